/* topo_class: see topo_class.h. */
#include "topo_class.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/rand.h>

#include "cfg.h"
#include "sw_view.h"
#include "ofcd_clock.h"
#include "ofcd_hex.h"
#include "of_event.h"
#include "ofcd_log.h"
#include "qmsg.h"
#include "rest_events.h"
#include "store.h"
#include "topo_admin.h"
#include "topo_loop.h"
#include "topo_start.h"
#include "topo_app.h"
#include "topo_flow.h"
#include "topo_follow.h"
#include "topo_keep.h"
#include "topo_rest.h"

/* The app record that holds a cluster's LLDP key (64 hex digits): outside
 * topology/ (topo_keep's), read at start, followed when another node
 * writes it. */
#define TOPO_CLUSTER_KEY_RECORD "lldp/cluster_key"

struct topo_inst {
    const struct app_host *host;
    bool cluster;                    /* [cluster] on: key shared, stamps on the wall clock */
    atomic_bool key_changed;         /* another node wrote the key: read it on the tick */
    struct topo_follow follow;
    struct topo_app_cfg app;         /* the workers' part (read by every worker) */
    struct topo_admin *admin;        /* REST writes, workers read */
    struct topo_view *ctl;            /* under the switch view's lock */
    struct topo_flow_ctx flow_ctx;   /* the LLDP flow: its failure lines, forgets queued */
    struct ofcd_ratelimit keep_rl;   /* links not kept: the store's committer thread */
    struct topo_loop loop;           /* loops' actions: the control thread */
    struct topo_start start;         /* topology.enable_on_start: the control thread */
    struct topo_rest rest;
    bool rest_ready;
};

static const char *const topo_keys[] = {
    "apps.topology", "topology.lldp_interval_s", "topology.link_timeout_s",
    "topology.lldp_max_age_ms", "topology.lldp_vlan", "topology.lldp_loop_actions",
    "topology.enable_on_start", "topology.max_links", "topology.max_interfaces", NULL};

void topo_class_publish_link(void *arg, const struct topo_link_rec *l, enum topo_change c)
{
    struct rest_events *h = arg;
    char a[TOPO_END_ID_LEN], b[TOPO_END_ID_LEN];

    if (!h)
        return;
    topo_end_id(l->a, a);
    topo_end_id(l->b, b);
    json_t *j = json_pack("{s:s, s:s, s:s, s:s}", "id", l->id, "a", a, "b", b, "why",
                          l->why ? l->why : "");
    if (j)
        rest_events_publish(h,
                            c == TOPO_LINK_UP     ? "link.up"
                            : c == TOPO_LINK_DOWN ? "link.down"
                                                  : "link.loop",
                            j);
    json_decref(j);
}

/* topo_view's on_change (under the view's lock): the event stream, and a
 * loop's change queued for its actions (applied once the lock is gone). */
static void topo_link_changed(void *arg, const struct topo_link_rec *l, enum topo_change c)
{
    struct topo_inst *t = arg;

    topo_class_publish_link(t->host->stream, l, c);
    topo_loop_note(&t->loop, l, c);
    topo_paths_touch(&t->rest.paths);
}

static bool topo_enabled(const struct ofcd_config *c)
{
    return c->topology;
}

struct topo_rest *topo_class_rest(void *self)
{
    struct topo_inst *t = self;
    return t && t->rest_ready ? &t->rest : NULL;
}

static void topo_destroy(void *self)
{
    struct topo_inst *t = self;

    if (!t)
        return;
    if (t->rest_ready)
        topo_rest_fini(&t->rest);
    topo_follow_fini(&t->follow);
    topo_view_destroy(t->ctl);
    topo_admin_destroy(t->admin);
    free(t);
}

/* A cluster's frames are dated on the wall clock, which every node reads
 * alike (NTP), the workers adding this to their lcore clock. Kept each
 * tick: the two clocks drift apart as NTP slews the wall clock. */
static void topo_stamp_offset(struct topo_inst *t, uint64_t lcore_now_us)
{
    uint64_t wall_us = ofcd_clock_wall_ns() / 1000u;

    atomic_store_explicit(&t->app.stamp_offset_us, wall_us - lcore_now_us,
                          memory_order_relaxed);
}

/* The cluster's key as stored: adopted when it differs from ours. With
 * none stored (the first node), ours is written; two nodes that both
 * found none both write, and both adopt the later write when the watch
 * shows it. */
static void topo_cluster_key(struct topo_inst *t, bool write_if_none)
{
    struct store *s = t->host->store;
    uint8_t key[TOPO_LLDP_KEY_LEN], ours[TOPO_LLDP_KEY_LEN];
    char *val = NULL;
    size_t len = 0;

    int rc = store_kv_get(s, TOPO_CLUSTER_KEY_RECORD, &val, &len);
    if (rc == 0 && ofcd_hex_decode(val, len, key, sizeof(key)) == 0) {
        topo_app_get_key(&t->app, ours);
        if (memcmp(key, ours, sizeof(key)) != 0) {
            topo_app_set_key(&t->app, key);
            LOG_INFO("topology", "LLDP: the cluster's frame key (%s) adopted",
                     TOPO_CLUSTER_KEY_RECORD);
        }
    } else if (rc == 0) {
        LOG_ERR("topology", "LLDP: the cluster's frame key record %s is not 64 hex digits: "
                "this node keeps its own, so links whose ends other nodes master are not found",
                TOPO_CLUSTER_KEY_RECORD);
    } else if (rc == -ENOENT && write_if_none) {
        char hex[2 * TOPO_LLDP_KEY_LEN + 1];
        topo_app_get_key(&t->app, ours);
        ofcd_hex_encode(hex, ours, sizeof(ours));
        rc = store_kv_put(s, TOPO_CLUSTER_KEY_RECORD, hex, strlen(hex));
        if (rc < 0)
            LOG_ERR("topology", "LLDP: cannot store the cluster's frame key: %s; links whose "
                    "ends other nodes master are found once another node stores one",
                    strerror(-rc));
        else
            LOG_INFO("topology", "LLDP: this node's frame key stored as the cluster's (%s)",
                     TOPO_CLUSTER_KEY_RECORD);
    } else if (rc < 0 && rc != -ENOENT) {
        LOG_ERR("topology", "LLDP: cannot read the cluster's frame key: %s", strerror(-rc));
    }
    free(val);
}

/* topo_view's on_record: every link LLDP finds is kept over a restart (as
 * Kytos keeps them), queued: the control thread never waits (its failure
 * lines share the LLDP flow's limiter of that thread). */
static void topo_keep_record(void *arg, const struct topo_link_rec *l, bool made)
{
    struct topo_inst *t = arg;

    if (t->host->store)
        topo_keep_link_async(t->host->store, l, !made, &t->flow_ctx.ensure, &t->keep_rl);
}

/* A fresh LLDP key per run, so frames of an earlier run are foreign;
 * in a cluster, the cluster's once loaded (topo_load). */
static int topo_create(const struct app_host *host, unsigned index, struct of_app *hooks,
                       void **self)
{
    const struct ofcd_config *c = host->cfg;
    struct topo_inst *t = calloc(1, sizeof(*t));
    uint8_t key[TOPO_LLDP_KEY_LEN];

    if (!t)
        return -ENOMEM;
    t->host = host;
    t->cluster = c->cluster_etcd_endpoints[0] != '\0';
    atomic_init(&t->key_changed, false);
    topo_follow_init(&t->follow);
    if (RAND_bytes(key, sizeof(key)) != 1) {
        LOG_ERR("topology", "no random bytes for the LLDP key");
        free(t);
        return -EIO;
    }
    /* Twice: the key before it (still accepted) is this one too, never
     * the all-zero words the struct starts with. */
    topo_app_set_key(&t->app, key);
    topo_app_set_key(&t->app, key);
    /* The stamp offset is set by the first tick, long before a switch
     * can connect and be probed. */
    t->app.skew_us = t->cluster ? TOPO_LLDP_CLUSTER_SKEW_US : TOPO_LLDP_SKEW_US;
    atomic_init(&t->app.interval_ms, c->topo_lldp_interval_s * 1000u);
    t->flow_ctx = (struct topo_flow_ctx)TOPO_FLOW_CTX_INIT;
    t->keep_rl = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    unsigned loop_actions = CFG_LOOP_LOG;
    cfg_loop_actions(c->topo_loop_actions, &loop_actions);      /* checked by cfg_finish */
    topo_loop_init(&t->loop, loop_actions);
    topo_start_init(&t->start, c->topo_enable_on_start);
    t->app.max_age_ms = c->topo_lldp_max_age_ms;
    t->app.link_timeout_ms = c->topo_link_timeout_s * 1000u;
    t->app.lldp_vlan = (uint16_t)c->topo_lldp_vlan;
    t->admin = topo_admin_create(c->topo_max_interfaces);
    struct topo_view_cfg tc = {.app_index = index,
                              .link_timeout_us = (uint64_t)c->topo_link_timeout_s * 1000000u,
                              .max_links = c->topo_max_links,
                              /* of_lldp: POLLING_TIME x LIVENESS_DEAD_MULTIPLIER (5) */
                              .liveness_dead_us = (uint64_t)c->topo_lldp_interval_s * 5000000u,
                              .lldp_max_age_us = (uint64_t)c->topo_lldp_max_age_ms * 1000u,
                              .lldp_skew_us = t->app.skew_us,
                              .on_change = topo_link_changed,
                              .on_change_arg = t,
                              .on_record = topo_keep_record,
                              .on_record_arg = t};
    t->ctl = t->admin ? topo_view_create(&tc) : NULL;
    if (!t->ctl) {
        LOG_ERR("topology", "out of memory for %u links and %u interfaces", c->topo_max_links,
                c->topo_max_interfaces);
        topo_destroy(t);
        return -ENOMEM;
    }
    t->app.admin = t->admin;
    int rc = topo_rest_init(&t->rest, c->data_dir);
    if (rc < 0) {
        topo_destroy(t);
        return rc;
    }
    t->rest_ready = true;
    t->rest.admin = t->admin;
    t->rest.ctl = t->ctl;
    t->rest.app = &t->app;
    t->rest.lock_arg = host->view_arg;
    t->rest.lock = host->view_lock;
    t->rest.unlock = host->view_unlock;
    topo_app_init(hooks, &t->app);
    *self = t;
    return 0;
}

static int topo_load(void *self)
{
    struct topo_inst *t = self;

    if (!t->host->store)
        return 0;
    if (t->cluster)
        topo_cluster_key(t, true);
    return topo_rest_load(&t->rest, t->host->store);
}

static void topo_on_event_locked(void *self, const struct qmsg *ev, uint64_t now_us)
{
    struct topo_inst *t = self;

    topo_view_handle(t->ctl, ev, now_us);
    topo_loop_take(&t->loop);
    /* A switch up or down, or a PORT_STATUS: what the graph is made of
     * moved. Not the other messages the workers hand up (barrier replies,
     * statistics: thousands a second while flows go in); LLDP
     * (QMSG_EV_APP) moves it only when a link changes (topo_link_changed). */
    const size_t hl = sizeof(struct of_event_hdr);
    if (ev->kind == QMSG_EV_SWITCH_UP || ev->kind == QMSG_EV_SWITCH_DOWN ||
        (ev->kind == QMSG_EV_OF && ev->len >= hl + 8 && ev->data[hl + 1] == OFPT_PORT_STATUS))
        topo_paths_touch(&t->rest.paths);
}

/* Loops' actions queued under the lock; a switch or port met for the
 * first time starts as topology.enable_on_start says; an enabled switch
 * that came up gets its LLDP flow, unless it is stored already (then the
 * flow manager's check at connect puts it back if the switch lost it).
 * Never waits: the store commits it. */
static void topo_on_event(void *self, const struct qmsg *ev, uint64_t now_us)
{
    struct topo_inst *t = self;
    struct of_event_hdr h;

    if (t->loop.n_ready)
        topo_loop_apply(&t->loop, &t->rest, t->admin, t->host->store, now_us);
    topo_start_event(&t->start, ev, t->admin, t->host->store);
    if (ev->kind != QMSG_EV_SWITCH_UP || !t->host->store || !t->host->fm ||
        ev->len < sizeof(h))
        return;
    memcpy(&h, ev->data, sizeof(h));
    if (topo_admin_get(t->admin, h.dpid, TOPO_ADMIN_SWITCH) & TOPO_ADMIN_DISABLED)
        return;
    /* Events reach the apps after the view has taken a batch of them: a
     * switch that came and went meanwhile may be let go already, and its
     * flow made now would outlive it (topo_switch_forgotten came first). It
     * gets its flow when it comes back. */
    const struct ctl_switch *sw = sw_view_find(t->host->view_lock(t->host->view_arg), h.dpid);
    bool up = sw && sw->up && sw->conn == ev->conn;
    t->host->view_unlock(t->host->view_arg);
    if (up)
        topo_flow_ensure(t->host->fm, h.dpid, t->app.lldp_vlan, &t->flow_ctx);
}

/* The switch view let a switch go: its LLDP flow goes with it (made again
 * if it comes back). Not in a cluster: there the store is shared, and the
 * switch another node's view still holds may be up there. */
static void topo_switch_forgotten(void *self, uint64_t dpid)
{
    struct topo_inst *t = self;

    topo_paths_touch(&t->rest.paths);
    if (!t->cluster && t->host->store && t->host->fm)
        topo_flow_forget(t->host->fm, dpid, t->app.lldp_vlan, &t->flow_ctx);
}

/* On the store's committer: only queued (the hook's rules). */
static void topo_store_changed(void *self, const char *key, bool removed)
{
    struct topo_inst *t = self;

    (void)removed;                  /* the record is read again when applied */
    if (t->cluster && strcmp(key, TOPO_CLUSTER_KEY_RECORD) == 0) {
        atomic_store(&t->key_changed, true);
        return;
    }
    if (topo_keep_is_ours(key))
        (void)topo_follow_add(&t->follow, key);     /* out of memory: counted */
}

/* What other nodes changed, then links silent past
 * topology.link_timeout_s go down. */
static void topo_on_tick(void *self, uint64_t now_us)
{
    struct topo_inst *t = self;

    char **keys;
    size_t n, lost;
    topo_follow_take(&t->follow, &keys, &n, &lost);
    for (size_t i = 0; i < n; i++) {
        topo_rest_follow(&t->rest, keys[i]);
        free(keys[i]);
    }
    free(keys);
    if (lost)
        LOG_ERR("topology", "out of memory: %zu changes of the topology's records in the "
                "cluster not followed until this node restarts", lost);
    if (t->cluster) {
        topo_stamp_offset(t, now_us);
        if (atomic_exchange(&t->key_changed, false))
            topo_cluster_key(t, false);
    }
    t->host->view_lock(t->host->view_arg);
    topo_view_tick(t->ctl, now_us);
    topo_loop_take(&t->loop);
    t->host->view_unlock(t->host->view_arg);
    if (t->loop.n_ready)
        topo_loop_apply(&t->loop, &t->rest, t->admin, t->host->store, now_us);
}

static void topo_counters(void *self, ofcd_counter_fn fn, void *arg)
{
    struct topo_inst *t = self;
    struct topo_view_stats ts;
    struct topo_app_stats as;

    t->host->view_lock(t->host->view_arg);
    topo_view_get_stats(t->ctl, &ts);
    t->host->view_unlock(t->host->view_arg);
    fn(arg, &topo_view_counters, "", OFCD_COUNTER_VALUES(&ts));
    topo_app_get_stats(&t->app, &as);
    fn(arg, &topo_app_counters, "", OFCD_COUNTER_VALUES(&as));
}

/* The routes reach the store and the flow manager, which exist by now. */
static unsigned topo_routes(void *self, const struct rest_ext **out, unsigned max)
{
    struct topo_inst *t = self;
    unsigned n = 0;

    t->rest.store = t->host->store;
    t->rest.fm = t->host->fm;
    if (n < max)
        out[n++] = &t->rest.ext_topology;
    if (n < max)
        out[n++] = &t->rest.ext_lldp;
    if (n < max)
        out[n++] = &t->rest.ext_ofcd;
    if (n < max)
        out[n++] = &t->rest.ext_path;
    return n;
}

static void topo_status(void *self, char *buf, size_t len)
{
    struct topo_inst *t = self;
    struct topo_view_stats ts;

    t->host->view_lock(t->host->view_arg);
    topo_view_get_stats(t->ctl, &ts);
    t->host->view_unlock(t->host->view_arg);
    snprintf(buf, len, "on: %" PRIu64 " links known, %" PRIu64 " up, LLDP every %u ms",
             (uint64_t)ts.links, (uint64_t)ts.links_active,
             (unsigned)atomic_load(&t->app.interval_ms));
}

/* The LLDP interval, as of_lldp's polling_time route sets it. */
static const char *const topo_live_keys[] = {"topology.lldp_interval_s", NULL};

static void topo_reconfigure(void *self, const struct ofcd_config *c)
{
    struct topo_inst *t = self;

    atomic_store_explicit(&t->app.interval_ms, c->topo_lldp_interval_s * 1000u,
                          memory_order_relaxed);
}

const struct app_class topo_class = {
    .name = "topology",
    .config_keys = topo_keys,
    .enabled = topo_enabled,
    .create = topo_create,
    .load = topo_load,
    .on_event_locked = topo_on_event_locked,
    .on_event = topo_on_event,
    .on_tick = topo_on_tick,
    .store_changed = topo_store_changed,
    .switch_forgotten = topo_switch_forgotten,
    .counters = topo_counters,
    .routes = topo_routes,
    .status = topo_status,
    .destroy = topo_destroy,
    .live_keys = topo_live_keys,
    .reconfigure = topo_reconfigure,
};
