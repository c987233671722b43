/* cnode_class: see cnode_class.h. */
#include "cnode_class.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cfg.h"
#include "cnode_inst.h"
#include "of_event.h"
#include "ofcd_clock.h"
#include "ofcd_log.h"
#include "ofp_buf.h"
#include "ofp_msg.h"
#include "ofp_switch.h"
#include "ofp_wire.h"
#include "qmsg.h"
#include "rest_events.h"

static const char *const cnode_keys_read[] = {
    "cluster.etcd_endpoints", "cluster.node_id", "cluster.lease_ttl_s", "cluster.prefix",
    "cluster.etcd_ca", "cluster.etcd_cert", "cluster.etcd_key", "cluster.etcd_user",
    "cluster.etcd_api",
    "cluster.etcd_password_file", "openflow.max_switches_known", NULL};

static bool cnode_enabled(const struct ofcd_config *c)
{
    return c->cluster_etcd_endpoints[0] != '\0';
}

static int cnode_create(const struct app_host *host, unsigned index, struct of_app *hooks,
                     void **self)
{
    const struct ofcd_config *c = host->cfg;
    struct cnode_inst *ci = calloc(1, sizeof(*ci));
    struct cfg_cluster_etcd ea;
    char card[CL_CARD_MAX], err[256] = "";

    (void)index;
    (void)hooks;                    /* nothing on the workers: they read the gate */
    if (!ci)
        return -ENOMEM;
    ci->host = host;
    ci->next_xid = 0;
    ci->rl_refused = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(20, 1000);
    int rc = cfg_cluster_etcd(c, &ea);
    if (rc == 0 && (rc = cnode_card_make(c, card, sizeof(card))) < 0)
        snprintf(err, sizeof(err), "this node's card: %s", strerror(-rc));
    if (rc == 0) {
        struct cnode_cfg nc = {
            .endpoints = ea.endpoints, .n_endpoints = ea.n_endpoints,
            .node_id = c->cluster_node_id, .prefix = c->cluster_prefix,
            .ttl_s = c->cluster_lease_ttl_s, .ca = ea.ca, .cert = ea.cert, .key = ea.key,
            .user = ea.user, .password = ea.user ? ea.password : NULL, .json = ea.json,
            .max_switches = c->of_max_switches_known ? c->of_max_switches_known : 65536,
            .card = card, .stream = host->stream};
        rc = cnode_start(&ci->node, &nc, err);
    }
    memset(ea.password, 0, sizeof(ea.password));
    if (rc < 0) {
        if (err[0])             /* else the password file's reader said why */
            LOG_ERR("cluster", "cannot join the cluster: %s", err);
        free(ci);
        return rc;
    }
    /* Every event of this node's stream to the others' (nothing
     * publishes yet: the apps are being made). */
    if (host->stream)
        rest_events_set_tap(host->stream, cnode_tap, ci->node);
    ci->ext = (struct rest_ext){"/api/v1/cluster", ci, cnode_rest_get, false};
    LOG_INFO("cluster", "node %s joins the cluster on %s (prefix %s, lease %u s)",
             c->cluster_node_id, c->cluster_etcd_endpoints, c->cluster_prefix,
             c->cluster_lease_ttl_s);
    *self = ci;
    return 0;
}

/* ---- what the workers report -------------------------------------------- */

static void on_reply(struct cnode_inst *ci, struct cl_sw *sw, uint32_t xid,
                     const struct ofp_role *r)
{
    enum cl_role role = r->role == OFPCR_ROLE_MASTER ? CL_ROLE_MASTER : CL_ROLE_SLAVE;
    enum cl_role was = sw->role;
    int changed = cl_sw_reply(sw, xid, role, (int64_t)r->generation_id);
    if (changed == 1) {
        ci->node->stats.role_changes++;
        ci->node->stats.masters_gained += role == CL_ROLE_MASTER;
        ci->node->stats.masters_lost += was == CL_ROLE_MASTER;
        cnode_publish_role(ci, sw);
        LOG_INFO("cluster", "switch %016" PRIx64 ": this node is now its %s (generation "
                 "%" PRIu64 ")", sw->dpid, role == CL_ROLE_MASTER ? "master" : "slave",
                 r->generation_id);
    }
}

static void on_error(struct cnode_inst *ci, struct cl_sw *sw, uint32_t xid,
                     const struct ofp_error *e, uint64_t now)
{
    /* OpenFlow 1.3 demotes an old master without a word: the first sign is
     * a change refused as from a slave. What the switch confirmed is void;
     * the next step asks again. */
    if (e->type == OFPET_BAD_REQUEST && e->code == OFPBRC_IS_SLAVE &&
        sw->role == CL_ROLE_MASTER && !sw->asking) {
        sw->role = CL_ROLE_NONE;
        ci->node->stats.masters_lost++;
        return;
    }
    if (e->type != OFPET_ROLE_REQUEST_FAILED || cl_sw_refused(sw, xid, now) < 0)
        return;
    ci->node->stats.role_refusals++;
    LOG_WARN_RL(&ci->rl_refused, now, "cluster",
                "switch %016" PRIx64 ": refused our ROLE_REQUEST %s generation %" PRId64
                " (%s): asking again once this node's view of etcd has caught up", sw->dpid,
                sw->asked == CL_ROLE_MASTER ? "MASTER" : "SLAVE", sw->asked_generation,
                e->code == OFPRRFC_STALE ? "stale generation" : "role request failed");
}

/* What the switch sends each role (OFPT_SET_ASYNC). OpenFlow 1.3's
 * defaults send a slave no PACKET_IN, so an LLDP frame sent by the master
 * of one end of a link reaches only the master of the other end: with the
 * two mastered by different nodes, neither would see both ways. A slave
 * also gets the PACKET_INs of flows that send to the controller
 * (OFPR_ACTION: the LLDP flow is one), not table misses, so each node
 * finds every link itself and nothing about links has to go through etcd.
 * The rest as the defaults: port status to both, flow removed to the
 * master. */
static int send_async(struct cnode_inst *ci, uint64_t dpid, uint64_t conn)
{
    uint8_t mem[64];
    struct ofp_buf b;
    const uint32_t all_pin = 1u << OFPR_NO_MATCH | 1u << OFPR_ACTION | 1u << OFPR_INVALID_TTL;
    const uint32_t all_ps = 1u << OFPPR_ADD | 1u << OFPPR_DELETE | 1u << OFPPR_MODIFY;
    struct ofp_async a = {
        .packet_in_mask = {all_pin, 1u << OFPR_ACTION},
        .port_status_mask = {all_ps, all_ps},
        .flow_removed_mask = {1u << OFPRR_IDLE_TIMEOUT | 1u << OFPRR_HARD_TIMEOUT |
                                  1u << OFPRR_DELETE | 1u << OFPRR_GROUP_DELETE, 0},
    };

    ofp_buf_init(&b, mem, sizeof(mem));
    if (ofp_async_encode(&b, OFPT_SET_ASYNC, CNODE_XID_BASE | (ci->next_xid++ & 0xffffu), &a) < 0)
        return -EINVAL;
    if (!ci->host->send ||
        ci->host->send(ci->host->send_arg, conn, b.data, b.len, OFP_PRIO_P1) < 0) {
        ci->node->stats.send_failures++;
        LOG_WARN_RL(&ci->rl_refused, ofcd_clock_mono_us(), "cluster",
                    "switch %016" PRIx64 ": no room for SET_ASYNC on the way out: sent "
                    "again next tick (until then, as a slave, this node misses its LLDP "
                    "frames)", dpid);
        return -ENOBUFS;
    }
    return 0;
}

static void cnode_on_event(void *self, const struct qmsg *q, uint64_t lcore_now)
{
    struct cnode_inst *ci = self;
    struct of_event_hdr h;
    uint64_t now = ofcd_clock_mono_us();

    (void)lcore_now;
    if (q->len < sizeof(h))
        return;
    memcpy(&h, q->data, sizeof(h));
    const uint8_t *msg = q->data + sizeof(h);
    size_t len = q->len - sizeof(h);
    struct cnode *n = ci->node;

    pthread_mutex_lock(&n->lock);
    struct cl_sw *sw = q->kind == QMSG_EV_SWITCH_UP ? cl_table_get(&n->table, h.dpid)
                                                    : cl_table_find(&n->table, h.dpid);
    if (!sw) {
        pthread_mutex_unlock(&n->lock);
        if (q->kind == QMSG_EV_SWITCH_UP)
            LOG_WARN("cluster", "switch %016" PRIx64 ": the cluster table is full "
                     "(openflow.max_switches_known): this node will not stand for it",
                     h.dpid);
        return;
    }
    switch (q->kind) {
    case QMSG_EV_SWITCH_UP:
        cl_sw_up(sw, q->conn);      /* SET_ASYNC and the role go on the next tick */
        break;
    case QMSG_EV_SWITCH_DOWN:
        if (sw->conn == q->conn) {
            n->stats.masters_lost += sw->role == CL_ROLE_MASTER;
            cl_sw_down(sw);
        }
        break;
    case QMSG_EV_OF: {
        struct ofp_msg m;
        struct ofp_err err;
        if (len >= 8 && (msg[1] == OFPT_ROLE_REPLY || msg[1] == OFPT_ERROR) &&
            sw->channel_up && q->conn == sw->conn && ofp_decode(msg, len, &m, &err) == 0) {
            if (msg[1] == OFPT_ROLE_REPLY)
                on_reply(ci, sw, m.hdr.xid, &m.u.role);
            else
                on_error(ci, sw, m.hdr.xid, &m.u.error, now);
        }
        break;
    }
    default:
        break;
    }
    pthread_mutex_unlock(&n->lock);
}

/* ---- every tick: the steps -------------------------------------------- */

struct tick {
    struct cnode_inst *ci;
    bool may_act;
    uint64_t now;
    bool wake;
};

static void send_role(struct cnode_inst *ci, struct cl_sw *sw, const struct cl_ask *ask,
                      uint64_t now)
{
    uint8_t mem[64];
    struct ofp_buf b;
    uint32_t xid = CNODE_XID_BASE | (ci->next_xid++ & 0xffffu);
    struct ofp_role r = {.role = ask->nochange                 ? OFPCR_ROLE_NOCHANGE
                                 : ask->role == CL_ROLE_MASTER ? OFPCR_ROLE_MASTER
                                                               : OFPCR_ROLE_SLAVE,
                         .generation_id = (uint64_t)ask->generation};

    ofp_buf_init(&b, mem, sizeof(mem));
    if (ofp_role_encode(&b, OFPT_ROLE_REQUEST, xid, &r) < 0)
        return;
    if (!ci->host->send ||
        ci->host->send(ci->host->send_arg, sw->conn, b.data, b.len, OFP_PRIO_P1) < 0) {
        ci->node->stats.send_failures++;
        return;                     /* the next tick asks again */
    }
    cl_sw_asked(sw, ask, xid, now);
    ci->node->stats.role_requests++;
}

static void step_one(void *arg, struct cl_sw *sw)
{
    struct tick *t = arg;
    struct cl_ask ask;
    uint64_t timeouts = sw->ask_timeouts;

    if (cl_sw_step(sw, t->ci->node->node_id, t->may_act, t->now, &ask))
        t->wake = true;
    t->ci->node->stats.role_timeouts += sw->ask_timeouts - timeouts;
    if (sw->channel_up && !sw->async_sent)
        sw->async_sent = send_async(t->ci, sw->dpid, sw->conn) == 0;
    if (ask.send && sw->channel_up)
        send_role(t->ci, sw, &ask, t->now);
}

static void cnode_on_tick(void *self, uint64_t lcore_now)
{
    struct cnode_inst *ci = self;
    struct cnode *n = ci->node;
    struct tick t = {.ci = ci, .now = ofcd_clock_mono_us()};

    (void)lcore_now;
    pthread_mutex_lock(&n->lock);
    t.may_act = cnode_may_act_locked(n, t.now);
    if (ci->may_act && !t.may_act && !ci->stop_at_us) {
        n->stats.fence_closed++;
        LOG_WARN("cluster", "node %s: its lease is no longer proved (%s): it stops acting "
                 "as master of any switch", n->node_id,
                 n->etcd_error[0] ? n->etcd_error : "no keepalive answered in time");
    } else if (!ci->may_act && t.may_act) {
        LOG_INFO("cluster", "node %s: lease proved, it may master switches", n->node_id);
    }
    ci->may_act = t.may_act;
    if (ci->host->may_act)
        atomic_store(ci->host->may_act, t.may_act);
    /* Until the first full read the table's candidates mean nothing. */
    if (n->synced && t.may_act && t.now >= ci->next_balance_us) {
        uint64_t dpids[CNODE_BALANCE_MAX];
        unsigned k = cl_table_balance(&n->table, n->node_id, n->members.n, dpids,
                                      CNODE_BALANCE_MAX);
        for (unsigned i = 0; i < k; i++)
            cl_sw_yield(cl_table_find(&n->table, dpids[i]));
        if (k) {
            n->stats.yields += k;
            LOG_INFO("cluster", "node %s masters more than its share of the switches: it "
                     "hands %u over to the other nodes", n->node_id, k);
        }
        ci->next_balance_us = t.now + CNODE_BALANCE_EVERY_US;
    }
    if (n->synced)
        cl_table_each(&n->table, step_one, &t);
    if (t.now >= ci->next_sweep_us) {
        n->stats.swept += cl_table_sweep(&n->table);
        ci->next_sweep_us = t.now + CNODE_SWEEP_EVERY_US;
    }
    pthread_mutex_unlock(&n->lock);
    if (t.wake)
        cnode_wake(n);
}

/* ---- the rest of the class ------------------------------------------- */

static void cnode_class_counters(void *self, ofcd_counter_fn fn, void *arg)
{
    struct cnode_inst *ci = self;
    struct cnode_stats s;

    cnode_get_stats(ci->node, &s);
    fn(arg, &cnode_counters, "", OFCD_COUNTER_VALUES(&s));
}

static unsigned cnode_routes(void *self, const struct rest_ext **out, unsigned max)
{
    struct cnode_inst *ci = self;

    if (!max)
        return 0;
    out[0] = &ci->ext;
    return 1;
}

static void cnode_status(void *self, char *buf, size_t len)
{
    struct cnode_inst *ci = self;
    struct cnode_stats s;

    cnode_get_stats(ci->node, &s);
    snprintf(buf, len, "node %s: %" PRIu64 " nodes live, master of %" PRIu64 " of %" PRIu64
             " switches, %s, revision %" PRIu64, ci->node->node_id, s.nodes, s.masters,
             s.switches, s.may_act ? "lease proved" : "lease NOT proved", s.revision);
}

static bool cnode_may_write_dpid(void *self, uint64_t dpid)
{
    struct cnode_inst *ci = self;
    struct cnode *n = ci->node;
    bool ok = false;

    pthread_mutex_lock(&n->lock);
    const struct cl_sw *sw = cl_table_find(&n->table, dpid);
    if (sw)
        ok = cl_sw_may_write(sw, n->node_id, cnode_may_act_locked(n, ofcd_clock_mono_us()));
    pthread_mutex_unlock(&n->lock);
    return ok;
}

/* Its state updates are written only while this node's candidate key of
 * the switch still has the create revision it is master with: a node
 * deposed meanwhile (its key gone, or a new one) writes nothing. */
static int cnode_store_guard(void *self, uint64_t dpid, char *key, size_t cap, int64_t *rev)
{
    struct cnode_inst *ci = self;
    struct cnode *n = ci->node;
    int rc = -EPERM;

    pthread_mutex_lock(&n->lock);
    const struct cl_sw *sw = cl_table_find(&n->table, dpid);
    if (sw && cl_sw_may_write(sw, n->node_id, cnode_may_act_locked(n, ofcd_clock_mono_us())) &&
        cl_key_cand(key, cap, n->prefix, dpid, n->node_id) > 0) {
        *rev = sw->generation;
        rc = 0;
    }
    pthread_mutex_unlock(&n->lock);
    return rc;
}

/* Under n->lock: the eldest live member into *eldest (NULL: none), and
 * whether it is this node, able to act as a master (cnode_leads says
 * why). */
static bool cnode_leads_locked(const struct cnode *n, const struct cl_member **eldest)
{
    const struct cl_member *e = cl_members_eldest(&n->members);

    *eldest = e;
    return e && strcmp(e->node, n->node_id) == 0 && cnode_may_act_locked(n, ofcd_clock_mono_us());
}

/* This node's member key and the create revision it leads with: what etcd
 * must still hold for the leader's writes (the circuits' records) to
 * commit. A node paused past its lease resumes with its key gone or made
 * anew: its write is refused by etcd itself, whatever it believes. */
static int cnode_store_leader_guard(void *self, char *key, size_t cap, int64_t *rev)
{
    struct cnode_inst *ci = self;
    struct cnode *n = ci->node;
    int rc = -EPERM;

    pthread_mutex_lock(&n->lock);
    const struct cl_member *e;
    if (cnode_leads_locked(n, &e) && cl_key_member(key, cap, n->prefix, n->node_id) > 0) {
        *rev = e->create_rev;
        rc = 0;
    }
    pthread_mutex_unlock(&n->lock);
    return rc;
}

/* A node that cannot prove its lease may have lost its switches to another
 * node already: what it accepted now could not be made good. */
static bool cnode_refuses_writes(void *self, char *why, size_t len)
{
    struct cnode_inst *ci = self;
    struct cnode *n = ci->node;
    bool refuse;

    pthread_mutex_lock(&n->lock);
    refuse = !cnode_may_act_locked(n, ofcd_clock_mono_us());
    if (refuse)
        snprintf(why, len, "cluster node %s cannot write now: %s; try another node",
                 n->node_id,
                 !n->lease ? "it holds no lease (etcd unreachable or no quorum)"
                 : n->card_lease != n->lease ? "a live node still holds its name"
                 : !n->synced ? "it has not caught up with etcd yet"
                              : "its lease is not proved (no quorum in time)");
    pthread_mutex_unlock(&n->lock);
    return refuse;
}

/* The eldest live node leads (cl_members_eldest), and acts only while it
 * may act as a master: a leader cut off from etcd stops before its lease
 * ends and the next eldest takes over. */
static bool cnode_leads(void *self, char *leader, size_t len)
{
    struct cnode_inst *ci = self;
    struct cnode *n = ci->node;
    char name[CL_NODE_NAME_MAX] = "", card[CL_CARD_MAX] = "";
    bool leads;

    pthread_mutex_lock(&n->lock);
    const struct cl_member *e;
    leads = cnode_leads_locked(n, &e);
    if (e) {
        memcpy(name, e->node, sizeof(name));
        memcpy(card, e->card, sizeof(card));
    }
    pthread_mutex_unlock(&n->lock);
    if (!len)
        return leads;                   /* asked often (each control pass): no card read */
    json_t *c = card[0] ? json_loads(card, 0, NULL) : NULL;
    const char *rest = json_string_value(json_object_get(c, "rest"));
    if (!name[0])
        snprintf(leader, len, "%s", "");
    else if (rest)
        snprintf(leader, len, "%s at %s", name, rest);
    else
        snprintf(leader, len, "%s", name);
    json_decref(c);
    return leads;
}

static void cnode_health(void *self, char *buf, size_t len, bool *ok)
{
    struct cnode_inst *ci = self;
    struct cnode *n = ci->node;

    pthread_mutex_lock(&n->lock);
    bool quorum = n->lease && cl_fence_may_act(&n->fence, ofcd_clock_mono_us());
    const struct cl_member *e = cl_members_eldest(&n->members);
    snprintf(buf, len, "{\"node_id\": \"%s\", \"in_quorum\": %s, \"caught_up\": %s, "
             "\"revision\": %" PRId64 ", \"nodes\": %u, \"leader\": \"%s\"}", n->node_id,
             quorum ? "true" : "false", n->synced ? "true" : "false", n->revision,
             n->members.n, e ? e->node : "");
    if (!quorum || !n->synced)
        *ok = false;
    pthread_mutex_unlock(&n->lock);
}

/* SIGTERM: a planned hand-over of every switch this node masters. It stops
 * acting as a master (no FLOW_MOD, PACKET_OUT or state write) and revokes
 * its lease with the channels still up; each switch stays with it as its
 * master until another node's MASTER request demotes it, which it learns
 * by asking the switch its role (cl_decide's leaving). Done when no switch
 * has it as master any more, or after CNODE_LEAVE_WAIT_US (a switch no other
 * node reaches keeps it until the channel closes). */
#define CNODE_LEAVE_WAIT_US 1500000u

static void mark_leaving(void *arg, struct cl_sw *sw)
{
    (void)arg;
    sw->leaving = true;
}

/* Switches that have this node as master now (the "masters" gauge). */
static unsigned mastered(struct cnode *n)
{
    struct cnode_stats st;

    cnode_get_stats(n, &st);
    return (unsigned)st.masters;
}

static int cnode_on_stop(void *self)
{
    struct cnode_inst *ci = self;
    struct cnode *n = ci->node;
    uint64_t now = ofcd_clock_mono_us();

    if (!ci->stop_at_us) {
        ci->stop_at_us = now;
        cnode_leave(n);           /* the gate shuts: cnode_may_act_locked */
        ci->may_act = false;
        if (ci->host->may_act)
            atomic_store(ci->host->may_act, false);
        pthread_mutex_lock(&n->lock);
        cl_table_each(&n->table, mark_leaving, NULL);
        pthread_mutex_unlock(&n->lock);
        ci->handing = mastered(n);
        LOG_INFO("cluster", "node %s leaves the cluster: handing its %u switches over to "
                 "the other nodes, its channels still up", n->node_id, ci->handing);
        return 1;
    }
    unsigned masters = mastered(n);
    uint64_t took_ms = (now - ci->stop_at_us) / 1000u;
    if (masters == 0 && cnode_has_left(n)) {
        LOG_INFO("cluster", "node %s handed its %u switches over in %" PRIu64 " ms, each "
                 "confirmed by the switch (another master took it)", n->node_id, ci->handing,
                 took_ms);
        return 0;
    }
    if (now - ci->stop_at_us < CNODE_LEAVE_WAIT_US)
        return 1;
    LOG_WARN("cluster", "node %s: %u of its %u switches still have it as master after %" PRIu64
             " ms (no other node took them%s): stopping anyway, they go to the others when "
             "its channels close", n->node_id, masters, ci->handing, took_ms,
             cnode_has_left(n) ? "" : "; etcd did not take the lease back");
    return 0;
}

static void cnode_destroy(void *self)
{
    struct cnode_inst *ci = self;

    if (ci->host->may_act)
        atomic_store(ci->host->may_act, false);
    if (ci->host->stream)
        rest_events_set_tap(ci->host->stream, NULL, NULL);
    cnode_stop(ci->node);
    free(ci);
}

const struct app_class cnode_class = {
    .name = "cluster",
    .config_keys = cnode_keys_read,
    .enabled = cnode_enabled,
    .switched_by = "cluster.etcd_endpoints=http://127.0.0.1:2379",
    .create = cnode_create,
    .on_event = cnode_on_event,
    .on_tick = cnode_on_tick,
    .on_stop = cnode_on_stop,
    .counters = cnode_class_counters,
    .routes = cnode_routes,
    .status = cnode_status,
    .may_write = cnode_may_write_dpid,
    .store_guard = cnode_store_guard,
    .store_leader_guard = cnode_store_leader_guard,
    .refuses_writes = cnode_refuses_writes,
    .leads = cnode_leads,
    .health = cnode_health,
    .destroy = cnode_destroy,
};
