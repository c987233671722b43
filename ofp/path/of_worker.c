/* of_worker: see of_worker.h. */
#include "of_worker.h"

#include <errno.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "of_event.h"
#include "of_switch.h"
#include "ofcd_inet.h"
#include "ofcd_log.h"
#include "ofcd_ratelimit.h"
#include "ofp_chan.h"
#include "ofp_msg.h"
#include "timer_wheel.h"

#define OFW_BURST 64
#define OFW_HASH_BITS 14
#define OFW_HELD_MAX 1024          /* messages held per connection before ESTABLISHED */
/* A switch whose announcement found the events pool empty tries again
 * this much later (its messages wait meanwhile). */
#define OFW_EVENT_RETRY_US 1000u
#define OFW_MALFORMED_WINDOW_US 60000000ull
/* Statistics polling: these kinds, the first round no sooner than
 * OFW_POLL_FIRST_US after ESTABLISHED (then staggered by dpid), a kind
 * whose reply is incomplete skipped for up to OFW_POLL_PENDING_ROUNDS. */
#define OFW_POLL_KINDS 3
#define OFW_POLL_FIRST_US 1000000u
#define OFW_POLL_PENDING_ROUNDS 3
/* A new connection claiming the dpid of a live one: the live one gets an
 * echo and this long to answer it before it is taken for stale. */
#define OFW_CLAIM_PROBE_US 1000000u
#define OFW_FORGET_SWEEP_US 1000000u    /* look for gone switches to forget this often */
/* Up this long, a switch's disconnect is logged under a limiter of its own. */
#define OFW_SETTLED_US 10000000ull
/* A new dpid refused at openflow.max_switches_known: one line per this
 * long, with how many were refused meanwhile. */
#define OFW_REFUSED_LOG_MS 10000u

struct of_rec {
    conn_handle_t h;
    struct qmsg_quota *quota;        /* the connection's share (from CONN_UP) */
    uint32_t peer_ip;                /* host order, for logs */
    uint16_t peer_port;
    bool tls, has_cert;              /* the channel, and its certificate's SHA-256: */
    uint8_t cert_sha256[32];         /* checked against tls.pins_file */
    struct of_rec *hnext;
    struct of_worker *w;
    struct ofp_chan chan;
    struct of_switch *sw;            /* bound after FEATURES_REPLY */
    struct tw_timer timer;
    struct qmsg_fifo held;           /* arrived before the handshake let them in */
    struct of_port_list pd;          /* PORT_DESC being reassembled */
    uint32_t malformed;
    uint64_t malformed_since_us;
    bool close_sent;
    bool refused;                    /* at max_switches_known: logged there, rate-limited */
    /* role_gate: the switch's last word on this connection's role was
     * MASTER (a ROLE_REPLY); false from the start and after SLAVE, EQUAL,
     * a role request error or OFPBRC_IS_SLAVE. */
    bool master;
    /* The control thread hears of the switch once both its buffers are in
     * hand: the SWITCH_DOWN one is kept from then on, so the switch's end
     * is never lost; until then (up_owed) its messages wait and nothing
     * about it is forwarded. */
    bool up_owed;
    bool up_posted;
    /* The io lcore keeps counting the connection as pending (its small
     * share, a candidate to give way) until told: owed while the control
     * pool has no buffer for it, retried by the record's timer. */
    bool est_owed;
    struct qmsg *down_ev;
    /* A dpid claim (on_features): the claimant's FEATURES_REPLY waits for
     * the verdict; the live connection's echo gives it. */
    bool claiming;
    struct ofp_features claim_features;
    uint32_t claim_xid;
    conn_handle_t claimant;          /* on the live one: who claims its dpid, 0: none */
    uint32_t probe_xid;
    uint64_t probe_deadline_us;
    /* statistics polling: FLOW, PORT_STATS, TABLE */
    uint64_t next_poll_us;
    uint32_t poll_xid[OFW_POLL_KINDS];
    uint64_t poll_since_us[OFW_POLL_KINDS];
    uint64_t poll_bytes[OFW_POLL_KINDS];   /* of the reply coming in */
    uint32_t poll_parts[OFW_POLL_KINDS];
};

static const uint16_t poll_types[OFW_POLL_KINDS] = {OFPMP_FLOW, OFPMP_PORT_STATS, OFPMP_TABLE};

struct of_worker {
    unsigned index;
    struct msgq *msg_in;
    struct msgq **io_out;
    unsigned n_io;
    struct msgq *events;             /* to the control thread */
    struct ofcd_doorbell *events_bell;
    bool events_urgent;              /* this pass posted one the control thread wants now */
    uint64_t stats_interval_us;
    uint32_t role;                   /* OFPCR_ROLE_* asked once established */
    const struct of_app *apps[OF_APPS_MAX];
    unsigned n_apps;
    const struct of_pins *pins;      /* tls.pins_file, NULL = none */
    uint64_t generation_id;
    bool role_gate;                  /* cluster mode: see of_worker_cfg */
    const atomic_bool *may_act;      /* the node's fence, NULL = always */
    struct qmsg_pool *pool;          /* what it sends switches */
    struct qmsg_pool *event_pool;    /* what it tells the control thread */
    struct tw_wheel wheel;
    struct ofp_chan_cfg chan_cfg;
    uint32_t malformed_limit;
    uint64_t forget_after_us;
    uint64_t next_forget_us;
    uint32_t max_known;              /* switch models, up or down; 0 = no bound */
    struct ofcd_dlist down;          /* models without a connection, oldest first */
    uint32_t max_ports;
    uint32_t mp_max_parts;
    uint64_t mp_max_bytes;
    struct ofcd_ratelimit rl_mp, rl_event, rl_pin, rl_refused;
    /* One limiter per log line a switch (or a peer claiming to be one)
     * can trigger: a flood costs a few lines a second per site, each
     * written line saying how many of its site were suppressed. */
    struct {
        struct ofcd_ratelimit up, down, down_settled, early_close, replaced, claim, ports_cut,
            ports_seen, port_status, malformed, sw_error, handshake;
    } rl_log;
    uint64_t now_us, now_tsc;
    struct of_rec *recs[1u << OFW_HASH_BITS];
    struct of_switch *switches[1u << OFW_HASH_BITS];
    struct qmsg_fifo backlog;        /* output waiting for room in its ring */
    struct of_worker_stats stats;
};

static const struct ofp_chan_ops chan_ops;

static uint32_t hash64(uint64_t v)
{
    v ^= v >> 33;
    v *= 0xff51afd7ed558ccdULL;
    v ^= v >> 33;
    return (uint32_t)v & ((1u << OFW_HASH_BITS) - 1);
}

static struct of_rec *rec_find(struct of_worker *w, conn_handle_t h)
{
    for (struct of_rec *r = w->recs[hash64(h)]; r; r = r->hnext)
        if (r->h == h)
            return r;
    return NULL;
}

static struct of_switch *switch_find(struct of_worker *w, uint64_t dpid)
{
    for (struct of_switch *s = w->switches[hash64(dpid)]; s; s = s->hnext)
        if (s->dpid == dpid)
            return s;
    return NULL;
}

/* The list of models without a connection, in the order they went down:
 * the head is the one down longest (forgotten first, evicted first). */
static void down_push(struct of_worker *w, struct of_switch *sw)
{
    ofcd_dlist_push(&w->down, &sw->down_node);
    sw->on_down_list = true;
}

static void down_unlink(struct of_worker *w, struct of_switch *sw)
{
    if (!sw->on_down_list)
        return;
    ofcd_dlist_unlink(&w->down, &sw->down_node);
    sw->on_down_list = false;
}

static struct of_switch *down_oldest(const struct of_worker *w)
{
    return w->down.head ? OFCD_DLIST_ENTRY(w->down.head, struct of_switch, down_node) : NULL;
}

static void ports_drop(struct of_worker *w, struct of_switch *sw)
{
    w->stats.ports_known -= sw->ports.n;
    of_ports_free(&sw->ports);
}

/* ---- output ------------------------------------------------------------------------ */

static bool is_event(const struct qmsg *m)
{
    return m->kind >= QMSG_EV_SWITCH_UP;
}

/* Events go to the control thread, everything else to the connection's io
 * lcore; both share the worker's ordered backlog when full. */
static bool out_enqueue(struct of_worker *w, struct qmsg *m)
{
    if (is_event(m))
        return w->events && msgq_enqueue(w->events, m, w->now_tsc) == 0;
    unsigned io = conn_handle_io(m->conn);
    if (io >= w->n_io)
        return false;
    return msgq_enqueue(w->io_out[io], m, w->now_tsc) == 0;
}

/* Keep order: once something is parked, later messages park behind it.
 * Parking never fails: what is parked is pool buffers, which the pools and
 * the connections' quotas bound. */
static int out_send(struct of_worker *w, struct qmsg *m)
{
    if (!w->backlog.head && out_enqueue(w, m))
        return 0;
    qmsg_fifo_push(&w->backlog, m);
    w->stats.out_backlogged++;
    return 0;
}

static bool flush_backlog(struct of_worker *w)
{
    bool moved = false;

    while (w->backlog.head && out_enqueue(w, w->backlog.head)) {
        qmsg_fifo_pop(&w->backlog);
        moved = true;
    }
    return moved;
}

/* A buffer for an outgoing item about the connection, from the control
 * pool and charged to the connection's share (never refused for it: the io
 * lcore stops reading a connection whose share is full, which bounds what
 * the worker makes from its messages). Counted when the pool is empty. */
static struct qmsg *out_buf(struct of_rec *r, size_t len)
{
    struct qmsg *q = qmsg_alloc_for(r->w->pool, len, r->quota, false);

    if (!q)
        r->w->stats.no_buffer++;
    return q;
}

/* Address a filled buffer to the connection (or, for events, about it). */
static int out_queue(struct of_rec *r, struct qmsg *q, size_t len, enum qmsg_kind kind,
                     uint8_t cls)
{
    q->len = (uint32_t)len;
    q->kind = kind;
    q->cls = cls;
    q->conn = r->h;
    return out_send(r->w, q);
}

/* Encode m for the connection and send it. 0 or a negative errno. */
static int send_msg(struct of_rec *r, const struct ofp_msg *m)
{
    struct qmsg *q = out_buf(r, QMSG_SMALL_DATA);
    struct ofp_buf b;

    if (!q)
        return -ENOBUFS;
    ofp_buf_init(&b, q->data, q->cap);
    int rc = ofp_encode(&b, m);
    if (rc == -ENOSPC) {
        qmsg_free(q);
        q = out_buf(r, QMSG_LARGE_DATA);
        if (!q)
            return -ENOBUFS;
        ofp_buf_init(&b, q->data, q->cap);
        rc = ofp_encode(&b, m);
    }
    if (rc < 0) {
        qmsg_free(q);
        LOG_ERR("of", "cannot encode %s: %s (bug)", ofp_msg_type_name(m->hdr.type),
                strerror(-rc));
        return rc;
    }
    const struct ofp_msg_type *t = ofp_msg_type_get(m->hdr.type);
    return out_queue(r, q, b.len, QMSG_OF, (uint8_t)(t ? t->prio : OFP_PRIO_P1));
}

static int send_bytes_error(struct of_rec *r, struct ofp_err err, const uint8_t *bad, size_t len)
{
    struct qmsg *q = out_buf(r, QMSG_SMALL_DATA);
    struct ofp_buf b;

    if (!q)
        return -ENOBUFS;
    ofp_buf_init(&b, q->data, q->cap);
    int rc = ofp_error_reply(&b, err, bad, len);
    if (rc < 0) {
        qmsg_free(q);
        return rc;
    }
    /* An error during the handshake is P0 (docs/design.md §2), otherwise P1. */
    return out_queue(r, q, b.len, QMSG_OF,
                     r->chan.state == OFP_CHAN_ESTABLISHED ? OFP_PRIO_P1 : OFP_PRIO_P0);
}

/* Ask the io lcore to close the connection. */
static void send_close(struct of_rec *r, const char *why)
{
    if (r->close_sent)
        return;
    struct qmsg *q = out_buf(r, QMSG_SMALL_DATA);
    if (!q)
        return;
    size_t n = strlen(why) < q->cap ? strlen(why) : q->cap;
    memcpy(q->data, why, n);
    if (out_queue(r, q, n, QMSG_CLOSE, OFP_PRIO_P0) == 0)
        r->close_sent = true;
}

/* The io lcore counts the connection as pending until it hears this. */
static void tell_io_established(struct of_rec *r)
{
    struct qmsg *q = out_buf(r, 0);

    r->est_owed = !q || out_queue(r, q, 0, QMSG_ESTABLISHED, OFP_PRIO_P0) != 0;
}

/* An event buffer about the connection, from the events pool, charged to
 * its quota; NULL when the pool is empty. */
static struct qmsg *event_buf(struct of_rec *r, size_t len)
{
    return qmsg_alloc_for(r->w->event_pool, sizeof(struct of_event_hdr) + len, r->quota, false);
}

static void event_header(const struct of_rec *r, struct qmsg *ev)
{
    struct of_event_hdr hdr = {.dpid = r->sw ? r->sw->dpid : 0, .time_us = r->w->now_us};

    memcpy(ev->data, &hdr, sizeof(hdr));
}

/* Switch up/down and a switch's messages (port status, barrier replies,
 * errors, role replies) wake the control thread; the steady streams —
 * statistics replies, echo samples, apps' events such as every LLDP seen —
 * wait for its timer (CONTROL_WAKE_MS) rather than wake it a thousand
 * times a second. msg: the OpenFlow message forwarded. */
static bool urgent_of(const uint8_t *msg)
{
    return msg[1] != OFPT_MULTIPART_REPLY;
}

/* Fill ev (header + payload in up to two pieces) and send it on. */
static void post_event(struct of_rec *r, struct qmsg *ev, enum qmsg_kind kind, uint8_t cls,
                       const void *a, size_t alen, const void *b, size_t blen)
{
    const size_t hl = sizeof(struct of_event_hdr);

    event_header(r, ev);
    if (alen)
        memcpy(ev->data + hl, a, alen);
    if (blen)
        memcpy(ev->data + hl + alen, b, blen);
    out_queue(r, ev, hl + alen + blen, kind, cls);
    r->w->stats.events++;
    r->w->events_urgent |= kind == QMSG_EV_SWITCH_UP || kind == QMSG_EV_SWITCH_DOWN ||
                           (kind == QMSG_EV_OF && urgent_of(a));
}

static void event_lost(struct of_rec *r, const char *what)
{
    struct of_worker *w = r->w;
    uint64_t missed;

    w->stats.events_lost++;
    if (ofcd_ratelimit(&w->rl_event, w->now_us, &missed))
        LOG_ERR("of", "switch %016" PRIx64 ": no event buffer for %s: lost (%lu more "
                "unlogged); raise openflow.event_buffers", r->sw ? r->sw->dpid : 0, what,
                (unsigned long)missed);
}

/* Tell the control thread the switch is up, once the announcement's buffer
 * and the one kept for its end are both in hand. False while the events
 * pool is empty: up_owed, the record's timer tries again and the switch's
 * messages wait (the ports announced are the ones known when it goes). */
static bool announce_up(struct of_rec *r)
{
    struct of_worker *w = r->w;
    const struct of_switch *sw = r->sw;
    struct of_event_up up = {.version = sw->version, .features = sw->features,
                             .desc = sw->desc, .n_ports = sw->ports.n,
                             .peer_ip = r->peer_ip, .peer_port = r->peer_port};
    size_t room = QMSG_LARGE_DATA - sizeof(struct of_event_hdr) - sizeof(up);
    size_t max_ports = room / sizeof(struct ofp_port);
    uint64_t missed;

    if (up.n_ports > max_ports)
        up.n_ports = (uint32_t)max_ports;
    size_t ports_len = (size_t)up.n_ports * sizeof(struct ofp_port);
    /* The buffer kept for the switch's end is part of what every switch
     * costs for its lifetime (the events pool is sized for it), not a
     * share of what it may hold: charged, 10,000 switches from one address
     * would keep their address's share of the control plane's buffers
     * spent for good. */
    if (!r->down_ev)
        r->down_ev = qmsg_alloc(w->event_pool, sizeof(struct of_event_hdr));
    struct qmsg *ev = r->down_ev ? event_buf(r, sizeof(up) + ports_len) : NULL;
    if (!ev) {
        if (!r->up_owed) {
            w->stats.events_deferred++;
            if (ofcd_ratelimit(&w->rl_event, w->now_us, &missed))
                LOG_WARN("of", "switch %016" PRIx64 ": events pool empty: the control thread "
                         "hears of it when buffers come back (%lu more unlogged); raise "
                         "openflow.event_buffers", sw->dpid, (unsigned long)missed);
        }
        r->up_owed = true;
        return false;
    }
    if (up.n_ports < sw->ports.n)
        LOG_WARN_RL(&w->rl_log.ports_seen, w->now_us, "of", "switch %016" PRIx64 ": %u ports, "
                    "the control thread sees the first %u", sw->dpid, sw->ports.n, up.n_ports);
    r->up_owed = false;
    r->up_posted = true;
    post_event(r, ev, QMSG_EV_SWITCH_UP, OFP_PRIO_P0, &up, sizeof(up), sw->ports.v, ports_len);
    return true;
}

/* In the class it came in (ofp_msg_class), so what the switch said in order
 * reaches the control thread in order. The message's own buffer carries it
 * (the io lcore frames with room for the event header in front), so a
 * forward takes no buffer and cannot be lost for want of one. True when q
 * was taken. */
static bool forward_of(struct of_rec *r, struct qmsg *q)
{
    const size_t hl = sizeof(struct of_event_hdr);
    uint8_t cls = (uint8_t)ofp_msg_class(q->data);
    uint32_t len = q->len;

    if (q->cap >= hl + len) {
        memmove(q->data + hl, q->data, len);
        event_header(r, q);
        out_queue(r, q, hl + len, QMSG_EV_OF, cls);
        r->w->stats.events++;
        r->w->events_urgent |= urgent_of(q->data + hl);
        return true;
    }
    struct qmsg *ev = event_buf(r, len);
    if (ev)
        post_event(r, ev, QMSG_EV_OF, cls, q->data, len, NULL, 0);
    else
        event_lost(r, "a forwarded message");
    return false;
}

/* ---- the channel's requests --------------------------------------------------- */

static void msg_init(struct ofp_msg *m, uint8_t type, uint32_t xid)
{
    memset(m, 0, sizeof(*m));
    m->hdr.version = OFP13_VERSION;
    m->hdr.type = type;
    m->hdr.xid = xid;
}

/* The handshake's steps, for `ofcdctl log/set of debug`. */
#define LOG_HANDSHAKE(r, ...)                                                              \
    OFCD_LOG_RL(OFCD_LOG_DEBUG, &(r)->w->rl_log.handshake, (r)->w->now_us, "of", __VA_ARGS__)

static int c_hello(void *arg, uint32_t xid)
{
    struct of_rec *r = arg;
    char peer[OFCD_PEER_STRLEN];
    struct ofp_msg m;

    LOG_HANDSHAKE(r, "connection %#" PRIx64 " from %s: HELLO sent", r->h,
                  ofcd_peer_format(r->peer_ip, r->peer_port, peer));
    msg_init(&m, OFPT_HELLO, xid);
    ofp_hello_init(&m.u.hello, 1u << OFP13_VERSION, true);
    return send_msg(arg, &m);
}

static int c_features(void *arg, uint32_t xid)
{
    struct of_rec *r = arg;
    struct ofp_msg m;

    LOG_HANDSHAKE(r, "connection %#" PRIx64 ": HELLO agreed on version %u, FEATURES_REQUEST "
                  "sent", r->h, r->chan.version);
    msg_init(&m, OFPT_FEATURES_REQUEST, xid);
    return send_msg(arg, &m);
}

static int c_mp(void *arg, uint32_t xid, uint16_t mp_type)
{
    struct ofp_msg m;
    msg_init(&m, OFPT_MULTIPART_REQUEST, xid);
    m.u.mp_request.type = mp_type;
    return send_msg(arg, &m);
}

static int c_port_desc(void *arg, uint32_t xid)
{
    return c_mp(arg, xid, OFPMP_PORT_DESC);
}

static int c_desc(void *arg, uint32_t xid)
{
    return c_mp(arg, xid, OFPMP_DESC);
}

static int c_set_config(void *arg, uint32_t xid, uint16_t miss_send_len)
{
    struct ofp_msg m;
    msg_init(&m, OFPT_SET_CONFIG, xid);
    m.u.config.flags = 0;                   /* OFPC_FRAG_NORMAL */
    m.u.config.miss_send_len = miss_send_len;
    return send_msg(arg, &m);
}

static int c_echo(void *arg, uint32_t xid)
{
    struct ofp_msg m;
    msg_init(&m, OFPT_ECHO_REQUEST, xid);
    return send_msg(arg, &m);
}

static int c_error(void *arg, uint32_t xid, uint16_t type, uint16_t code, const uint8_t *data,
                   size_t len)
{
    struct ofp_msg m;
    msg_init(&m, OFPT_ERROR, xid);
    m.u.error.type = type;
    m.u.error.code = code;
    m.u.error.data = data;
    m.u.error.data_len = (uint16_t)(len > OFP_ERROR_DATA_MAX ? OFP_ERROR_DATA_MAX : len);
    return send_msg(arg, &m);
}

/* ---- apps (of_app.h) ----------------------------------------------------------- */

struct of_app_out {
    struct of_rec *r;
    unsigned app;
};

/* In cluster mode, what changes the switch goes out only from its
 * confirmed master while the node's fence holds; the rest (barriers,
 * statistics, echo) is harmless from any node. */
static bool app_send_allowed(const struct of_rec *r, uint8_t type)
{
    const struct of_worker *w = r->w;

    if (!w->role_gate || (type != OFPT_FLOW_MOD && type != OFPT_PACKET_OUT))
        return true;
    return r->master && (!w->may_act || atomic_load_explicit(w->may_act, memory_order_acquire));
}

int of_app_send(struct of_app_out *out, struct ofp_msg *m)
{
    if (!app_send_allowed(out->r, m->hdr.type)) {
        out->r->w->stats.app_sends_not_master++;
        return -EPERM;
    }
    m->hdr.xid = ofp_chan_xid(&out->r->chan);
    return send_msg(out->r, m);
}

int of_app_event(struct of_app_out *out, const void *data, size_t len)
{
    struct of_rec *r = out->r;
    struct of_event_app a = {.app = out->app, .len = (uint32_t)len};

    if (len > OF_APP_EVENT_MAX)
        return -EMSGSIZE;
    struct qmsg *ev = event_buf(r, sizeof(a) + len);
    if (!ev) {
        event_lost(r, "an app's event");
        return -ENOBUFS;
    }
    post_event(r, ev, QMSG_EV_APP, OFP_PRIO_P2, &a, sizeof(a), data, len);
    return 0;
}

/* The switch as app i sees it; the hook may replace v.state and
 * v.next_tick_us, which app_keep stores back. */
static struct of_app_switch app_view(const struct of_switch *sw, unsigned i)
{
    return (struct of_app_switch){.dpid = sw->dpid, .features = &sw->features,
                                  .ports = &sw->ports, .state = sw->app_state[i],
                                  .next_tick_us = sw->app_tick_us[i]};
}

static void app_keep(struct of_switch *sw, unsigned i, const struct of_app_switch *v)
{
    sw->app_state[i] = v->state;
    sw->app_tick_us[i] = v->next_tick_us;
}

static void apps_switch_up(struct of_rec *r)
{
    struct of_worker *w = r->w;

    for (unsigned i = 0; i < w->n_apps; i++) {
        const struct of_app *a = w->apps[i];
        struct of_app_out out = {r, i};
        struct of_app_switch v = app_view(r->sw, i);
        v.next_tick_us = 0;
        if (a->on_switch_up)
            a->on_switch_up(a->arg, &v, w->now_us, &out);
        app_keep(r->sw, i, &v);
    }
}

static void apps_packet_in(struct of_rec *r, const struct ofp_packet_in *pi)
{
    struct of_worker *w = r->w;

    if (!r->sw || !r->sw->up_since_us)
        return;
    for (unsigned i = 0; i < w->n_apps; i++) {
        const struct of_app *a = w->apps[i];
        struct of_app_out out = {r, i};
        struct of_app_switch v = app_view(r->sw, i);
        if (a->on_packet_in)
            a->on_packet_in(a->arg, &v, pi, w->now_us, &out);
        app_keep(r->sw, i, &v);
    }
}

static void apps_port_status(struct of_rec *r, const struct ofp_port_status *ps)
{
    struct of_worker *w = r->w;

    if (!r->sw->up_since_us)
        return;
    for (unsigned i = 0; i < w->n_apps; i++) {
        const struct of_app *a = w->apps[i];
        struct of_app_out out = {r, i};
        struct of_app_switch v = app_view(r->sw, i);
        if (a->on_port_status)
            a->on_port_status(a->arg, &v, ps, w->now_us, &out);
        app_keep(r->sw, i, &v);
    }
}

/* The apps whose tick is due get it; returns the earliest next one
 * (UINT64_MAX: none). */
static uint64_t apps_tick(struct of_rec *r)
{
    struct of_worker *w = r->w;
    uint64_t next = UINT64_MAX;

    if (!r->sw || !r->sw->up_since_us)
        return next;
    for (unsigned i = 0; i < w->n_apps; i++) {
        const struct of_app *a = w->apps[i];
        uint64_t due = r->sw->app_tick_us[i];
        if (!due || !a->on_tick)
            continue;
        if (due <= w->now_us) {
            struct of_app_out out = {r, i};
            struct of_app_switch v = app_view(r->sw, i);
            v.next_tick_us = 0;
            a->on_tick(a->arg, &v, w->now_us, &out);
            /* A tick that asks for the past would spin the wheel. */
            if (v.next_tick_us && v.next_tick_us <= w->now_us)
                v.next_tick_us = w->now_us + 1;
            app_keep(r->sw, i, &v);
            due = v.next_tick_us;
        }
        if (due && due < next)
            next = due;
    }
    return next;
}

/* Once after each apps_switch_up: the apps free what they kept. */
static void apps_switch_down(struct of_worker *w, struct of_switch *sw)
{
    for (unsigned i = 0; i < w->n_apps; i++) {
        const struct of_app *a = w->apps[i];
        struct of_app_switch v = app_view(sw, i);
        if (a->on_switch_down)
            a->on_switch_down(a->arg, &v);
        sw->app_state[i] = NULL;
        sw->app_tick_us[i] = 0;
    }
}

static void log_switch_up(const struct of_rec *r)
{
    const struct of_switch *sw = r->sw;
    char mfr[DESC_STR_LEN], hw[DESC_STR_LEN], swd[DESC_STR_LEN], peer[OFCD_PEER_STRLEN];

    LOG_INFO_RL(&r->w->rl_log.up, r->w->now_us, "of", "switch %016" PRIx64 " established (conn "
                "%#" PRIx64 " from %s): %u ports, %u tables, %u buffers, \"%s\" / \"%s\" / "
                "\"%s\"", sw->dpid, r->h, ofcd_peer_format(r->peer_ip, r->peer_port, peer),
                sw->ports.n, sw->features.n_tables, sw->features.n_buffers,
                ofcd_log_clean(mfr, sizeof(mfr), sw->desc.mfr_desc),
                ofcd_log_clean(hw, sizeof(hw), sw->desc.hw_desc),
                ofcd_log_clean(swd, sizeof(swd), sw->desc.sw_desc));
}

static void dispatch(struct of_rec *r, struct qmsg *q);
static void claim_resolve(struct of_rec *live, bool answered);

/* What arrived early (or while the switch's announcement waited) is
 * handled now, in arrival order. */
static void release_held(struct of_rec *r)
{
    struct qmsg_fifo held = r->held;
    struct qmsg *q;

    r->held = (struct qmsg_fifo){0};
    while ((q = qmsg_fifo_pop(&held)))
        dispatch(r, q);
}

static void c_established(void *arg)
{
    struct of_rec *r = arg;
    struct of_worker *w = r->w;

    if (r->sw) {
        r->sw->up_since_us = w->now_us;
        r->sw->connects++;
        r->sw->version = r->chan.version;
        w->stats.switches_up++;
        w->stats.switches_established++;
        log_switch_up(r);
        tell_io_established(r);
        announce_up(r);
        apps_switch_up(r);
        if (w->role != OFPCR_ROLE_EQUAL) {
            /* The answer (ROLE_REPLY, or an error such as a stale generation)
             * goes to the control thread like any other reply. */
            struct ofp_msg m;
            msg_init(&m, OFPT_ROLE_REQUEST, ofp_chan_xid(&r->chan));
            m.u.role.role = w->role;
            m.u.role.generation_id = w->generation_id;
            send_msg(r, &m);
        }
        /* Spread the polls of many switches over the interval. */
        if (w->stats_interval_us)
            r->next_poll_us = w->now_us + OFW_POLL_FIRST_US +
                              (r->sw->dpid * 0x9e3779b97f4a7c15ULL >> 20) % w->stats_interval_us;
    }
    if (!r->up_owed)
        release_held(r);
}

static void switch_down(struct of_rec *r, const char *why)
{
    struct of_worker *w = r->w;
    struct of_switch *sw = r->sw;

    if (!sw)
        return;
    if (sw->up_since_us) {
        w->stats.switches_up--;
        sw->disconnects++;
        if (r->up_posted) {
            post_event(r, r->down_ev, QMSG_EV_SWITCH_DOWN, OFP_PRIO_P0, NULL, 0, NULL, 0);
            r->down_ev = NULL;
            r->up_posted = false;
        }
        r->up_owed = false;
        apps_switch_down(w, sw);
        /* Switches that were up a while have a limiter of their own: peers
         * that handshake and leave by the hundred cannot hide the loss of
         * a real switch. */
        uint64_t up_us = w->now_us - sw->up_since_us;
        struct ofcd_ratelimit *rl = up_us >= OFW_SETTLED_US ? &w->rl_log.down_settled
                                                            : &w->rl_log.down;
        LOG_WARN_RL(rl, w->now_us, "of", "switch %016" PRIx64 " disconnected after %.1f s: %s",
                    sw->dpid, (double)up_us / 1e6, why);
    }
    sw->up_since_us = 0;
    sw->down_since_us = w->now_us;
    if (sw->rec == r) {
        /* Down: the record stays, its ports go (a peer inventing dpids with
         * thousands of ports each leaves nothing behind but the record). */
        sw->rec = NULL;
        ports_drop(w, sw);
        down_push(w, sw);
    }
    r->sw = NULL;
}

static void c_closed(void *arg, const char *why)
{
    struct of_rec *r = arg;
    struct of_worker *w = r->w;

    switch (r->chan.timeout) {
    case OFP_CHAN_TIMEOUT_ECHO:
        w->stats.echo_timeouts++;
        break;
    case OFP_CHAN_TIMEOUT_HANDSHAKE:
        w->stats.handshake_timeouts++;
        break;
    case OFP_CHAN_TIMEOUT_HELLO:
        w->stats.hello_timeouts++;
        break;
    case OFP_CHAN_TIMEOUT_NONE:
        break;
    }
    if (!r->sw && !r->refused) {
        char peer[OFCD_PEER_STRLEN];
        LOG_WARN_RL(&w->rl_log.early_close, w->now_us, "of", "connection %#" PRIx64 " from %s "
                    "closed before FEATURES: %s", r->h,
                    ofcd_peer_format(r->peer_ip, r->peer_port, peer), why);
    }
    switch_down(r, why);
    send_close(r, why);
}

static const struct ofp_chan_ops chan_ops = {
    .send_hello = c_hello,
    .send_features_request = c_features,
    .send_port_desc_request = c_port_desc,
    .send_desc_request = c_desc,
    .send_set_config = c_set_config,
    .send_echo_request = c_echo,
    .send_error = c_error,
    .established = c_established,
    .closed = c_closed,
};

/* ---- records and timers --------------------------------------------------------- */

/* Ask for FLOW, PORT_STATS and TABLE statistics; a type whose previous
 * reply is still incomplete is skipped this round (a slow switch is not
 * buried under requests), unless it has been pending for three rounds. */
static void poll_stats(struct of_rec *r)
{
    struct of_worker *w = r->w;

    for (unsigned i = 0; i < OFW_POLL_KINDS; i++) {
        if (r->poll_xid[i] && w->now_us - r->poll_since_us[i] <
                                  OFW_POLL_PENDING_ROUNDS * w->stats_interval_us) {
            w->stats.polls_skipped++;
            continue;
        }
        struct ofp_msg m;
        uint32_t xid = ofp_chan_xid(&r->chan);
        msg_init(&m, OFPT_MULTIPART_REQUEST, xid);
        m.u.mp_request.type = poll_types[i];
        if (poll_types[i] == OFPMP_FLOW) {
            m.u.mp_request.u.flow.table_id = OFPTT_ALL;
            m.u.mp_request.u.flow.out_port = OFPP_ANY;
            m.u.mp_request.u.flow.out_group = OFPG_ANY;
        } else if (poll_types[i] == OFPMP_PORT_STATS) {
            m.u.mp_request.u.port_no = OFPP_ANY;
        }
        if (send_msg(r, &m) == 0) {
            r->poll_xid[i] = xid;
            r->poll_bytes[i] = 0;
            r->poll_parts[i] = 0;
            r->poll_since_us[i] = w->now_us;
            w->stats.polls_sent++;
        }
    }
}

static void rec_schedule(struct of_rec *r)
{
    struct of_worker *w = r->w;

    if (r->claimant && w->now_us >= r->probe_deadline_us)
        claim_resolve(r, false);                  /* no echo in time: stale */
    if (r->up_owed && announce_up(r))
        release_held(r);
    if (r->est_owed)
        tell_io_established(r);
    uint64_t next = ofp_chan_tick(&r->chan, w->now_us);
    if (r->claimant && r->probe_deadline_us < next)
        next = r->probe_deadline_us;
    if ((r->up_owed || r->est_owed) && w->now_us + OFW_EVENT_RETRY_US < next)
        next = w->now_us + OFW_EVENT_RETRY_US;

    if (r->chan.state == OFP_CHAN_ESTABLISHED && r->next_poll_us) {
        if (w->now_us >= r->next_poll_us) {
            poll_stats(r);
            r->next_poll_us += w->stats_interval_us;
            if (r->next_poll_us <= w->now_us)
                r->next_poll_us = w->now_us + w->stats_interval_us;
        }
        if (r->next_poll_us < next)
            next = r->next_poll_us;
    }
    if (r->chan.state == OFP_CHAN_ESTABLISHED) {
        uint64_t tick = apps_tick(r);
        if (tick < next)
            next = tick;
    }
    if (next == UINT64_MAX || r->chan.state == OFP_CHAN_CLOSED)
        tw_cancel(&w->wheel, &r->timer);
    else
        tw_arm(&w->wheel, &r->timer, next);
}

static void on_rec_timer(struct tw_timer *t, uint64_t now_us)
{
    struct of_rec *r = (struct of_rec *)(void *)((char *)t - offsetof(struct of_rec, timer));

    r->w->now_us = now_us;
    rec_schedule(r);
}

static void rec_free(struct of_rec *r)
{
    struct of_worker *w = r->w;
    struct of_rec **pp = &w->recs[hash64(r->h)];

    while (*pp && *pp != r)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = r->hnext;
    tw_cancel(&w->wheel, &r->timer);
    qmsg_fifo_free(&r->held);
    qmsg_free(r->down_ev);
    of_ports_free(&r->pd);
    w->stats.conns--;
    free(r);
}

static void conn_up(struct of_worker *w, const struct qmsg *q)
{
    struct of_rec *r = calloc(1, sizeof(*r));
    struct qmsg_conn_up up = {0};

    if (!r) {
        LOG_ERR("of", "worker %u: out of memory for a new connection", w->index);
        return;
    }
    if (q->len >= sizeof(up))
        memcpy(&up, q->data, sizeof(up));
    r->h = q->conn;
    r->w = w;
    r->quota = up.quota;
    r->peer_ip = up.peer_ip;
    r->peer_port = up.peer_port;
    r->tls = up.tls;
    r->has_cert = up.has_cert;
    memcpy(r->cert_sha256, up.cert_sha256, sizeof(r->cert_sha256));
    r->hnext = w->recs[hash64(r->h)];
    w->recs[hash64(r->h)] = r;
    w->stats.conns++;
    w->stats.conns_up++;
    tw_timer_init(&r->timer, on_rec_timer);
    ofp_chan_init(&r->chan, &w->chan_cfg, &chan_ops, r, w->now_us);
    rec_schedule(r);
}

static void conn_down(struct of_worker *w, conn_handle_t h, int reason)
{
    struct of_rec *r = rec_find(w, h);

    if (!r)
        return;
    w->stats.conns_down++;
    r->close_sent = true;                /* the io lcore already let it go */
    if (r->chan.state != OFP_CHAN_CLOSED) {
        const char *why = reason == -ECONNRESET ? "connection reset by the switch"
                          : reason == -ETIMEDOUT ? "TCP timeout"
                                                 : "connection closed";
        ofp_chan_close(&r->chan, why);
    }
    switch_down(r, "connection gone");
    if (r->claimant)
        claim_resolve(r, false);                  /* gone: the claimant takes over */
    rec_free(r);
}

/* ---- message handling -------------------------------------------------------------- */

static void switch_free(struct of_worker *w, struct of_switch *sw);
static void switch_forget(struct of_worker *w, struct of_switch *sw);

/* A new dpid at openflow.max_switches_known: the model of the switch down
 * longest makes room; with every model a live switch's, the connection is
 * refused (it may retry: a switch that leaves frees a place). True when
 * refused. */
static bool known_full(struct of_rec *r, uint64_t dpid)
{
    struct of_worker *w = r->w;
    char peer[OFCD_PEER_STRLEN];
    uint64_t missed;

    if (!w->max_known || w->stats.switches_known < w->max_known)
        return false;
    if (down_oldest(w)) {
        w->stats.switches_evicted++;
        switch_forget(w, down_oldest(w));
        return false;
    }
    w->stats.switches_refused++;
    r->refused = true;
    if (ofcd_ratelimit(&w->rl_refused, w->now_us, &missed))
        LOG_WARN("of", "switch %016" PRIx64 ": connection %#" PRIx64 " from %s refused: "
                 "openflow.max_switches_known = %u switches known, every one of them up; it "
                 "may retry (%lu more refused since the last line)", dpid, r->h,
                 ofcd_peer_format(r->peer_ip, r->peer_port, peer), w->max_known,
                 (unsigned long)missed);
    ofp_chan_close(&r->chan, "openflow.max_switches_known reached, every known switch up");
    return true;
}

static void bind_switch(struct of_rec *r, const struct ofp_features *f)
{
    struct of_worker *w = r->w;
    struct of_switch *sw = switch_find(w, f->datapath_id);

    if (!sw) {
        if (known_full(r, f->datapath_id))
            return;
        sw = calloc(1, sizeof(*sw));
        if (!sw) {
            ofp_chan_close(&r->chan, "out of memory for the switch model");
            return;
        }
        sw->dpid = f->datapath_id;
        sw->hnext = w->switches[hash64(sw->dpid)];
        w->switches[hash64(sw->dpid)] = sw;
        w->stats.switches_known++;
    } else if (sw->rec && sw->rec != r) {
        /* The same dpid again: the old connection is stale (the switch
         * restarted or lost it without us noticing). The new one wins. */
        struct of_rec *old = sw->rec;
        w->stats.switches_replaced++;
        sw->replaced++;
        LOG_WARN_RL(&w->rl_log.replaced, w->now_us, "of", "switch %016" PRIx64 " reconnected "
                    "(conn %#" PRIx64 "): replacing its stale connection %#" PRIx64, sw->dpid,
                    r->h, old->h);
        switch_down(old, "replaced by a new connection of the same dpid");
        ofp_chan_close(&old->chan, "replaced by a new connection of the same dpid");
    }
    down_unlink(w, sw);                          /* it has a connection again */
    sw->features = *f;
    sw->rec = r;
    r->sw = sw;
}

/* A switch may not make the worker and the control thread hold an unbounded
 * port list: past openflow.max_ports (PORT_DESC and PORT_STATUS together) it
 * is cut off. */
static void too_many_ports(struct of_rec *r)
{
    r->w->stats.ports_over_limit++;
    LOG_WARN_RL(&r->w->rl_log.ports_cut, r->w->now_us, "of", "switch %016" PRIx64 " (conn %#"
                PRIx64 "): more than openflow.max_ports = %u ports; disconnecting",
                r->sw ? r->sw->dpid : 0, r->h, r->w->max_ports);
    ofp_chan_close(&r->chan, "more than openflow.max_ports ports");
}

static void port_desc_part(struct of_rec *r, const struct ofp_msg *m)
{
    struct ofp_mp_iter it;
    struct ofp_port p;

    ofp_mp_iter_init(&it, &m->u.mp_reply);
    while (ofp_mp_next_port(&it, &p)) {
        if (r->pd.n >= r->w->max_ports) {
            too_many_ports(r);
            return;
        }
        if (of_ports_append(&r->pd, &p) < 0) {
            ofp_chan_close(&r->chan, "out of memory for the port list");
            return;
        }
    }
    if (m->u.mp_reply.flags & OFPMPF_REPLY_MORE)
        return;                              /* more parts follow */
    if (r->sw) {
        /* The reassembled list becomes the model's; the old one is dropped. */
        ports_drop(r->w, r->sw);
        r->sw->ports = r->pd;
        r->w->stats.ports_known += r->sw->ports.n;
    } else {
        of_ports_free(&r->pd);
    }
    memset(&r->pd, 0, sizeof(r->pd));
    ofp_chan_on_port_desc_done(&r->chan, m->hdr.xid, r->w->now_us);
}

static void mp_reply(struct of_rec *r, const struct ofp_msg *m)
{
    const struct ofp_mp_reply *mp = &m->u.mp_reply;

    if (mp->type == OFPMP_PORT_DESC && m->hdr.xid == r->chan.port_desc_xid) {
        port_desc_part(r, m);
    } else if (mp->type == OFPMP_DESC && m->hdr.xid == r->chan.desc_xid) {
        if (r->sw)
            r->sw->desc = mp->u.desc;
        ofp_chan_on_desc_done(&r->chan, m->hdr.xid, r->w->now_us);
    }
}

/* Is this multipart reply one the control thread should see? One of this
 * worker's statistics polls within openflow.mp_max_kb/mp_max_parts, or one
 * the control thread asked for itself (its xid space: the flow manager
 * bounds those). Anything else — unsolicited, or the rest of a reply past
 * its bounds — is dropped here and counted, never kept. */
static bool mp_forward(struct of_rec *r, const struct qmsg *q, const struct ofp_msg *m)
{
    struct of_worker *w = r->w;
    const struct ofp_mp_reply *mp = &m->u.mp_reply;
    uint64_t missed;

    if (mp->type == OFPMP_PORT_DESC || mp->type == OFPMP_DESC)
        return false;                             /* the handshake's own */
    if (ofp_xid_is_control(m->hdr.xid))
        return true;
    for (unsigned i = 0; i < OFW_POLL_KINDS; i++) {
        if (mp->type != poll_types[i] || m->hdr.xid != r->poll_xid[i] || !r->poll_xid[i])
            continue;
        r->poll_bytes[i] += q->len;
        if (++r->poll_parts[i] > w->mp_max_parts || r->poll_bytes[i] > w->mp_max_bytes) {
            w->stats.mp_oversized++;
            r->poll_xid[i] = 0;                   /* the rest is dropped as unsolicited */
            if (ofcd_ratelimit(&w->rl_mp, w->now_us, &missed))
                LOG_WARN("of", "switch %016" PRIx64 ": statistics reply over "
                         "openflow.mp_max_kb/mp_max_parts (%u parts, %lu bytes): dropped (%lu "
                         "more unlogged)", r->sw ? r->sw->dpid : 0, r->poll_parts[i],
                         (unsigned long)r->poll_bytes[i], (unsigned long)missed);
            return false;
        }
        if (!(mp->flags & OFPMPF_REPLY_MORE))
            r->poll_xid[i] = 0;                   /* complete: the next round may ask */
        return true;
    }
    w->stats.mp_unsolicited++;
    return false;
}

static void port_status(struct of_rec *r, const struct ofp_msg *m)
{
    const struct ofp_port_status *ps = &m->u.port_status;
    static const char *const reasons[] = {"added", "deleted", "modified"};

    r->w->stats.port_status++;
    if (!r->sw)
        return;
    if (ps->reason != OFPPR_DELETE && r->sw->ports.n >= r->w->max_ports &&
        !of_ports_find(&r->sw->ports, ps->desc.port_no)) {
        too_many_ports(r);
        return;
    }
    r->sw->port_changes++;
    r->w->stats.ports_known -= r->sw->ports.n;
    of_ports_status(&r->sw->ports, ps->reason, &ps->desc);
    r->w->stats.ports_known += r->sw->ports.n;
    char name[OFP_MAX_PORT_NAME_LEN];
    LOG_INFO_RL(&r->w->rl_log.port_status, r->w->now_us, "of", "switch %016" PRIx64 " port %u "
                "(%s) %s, link %s", r->sw->dpid, ps->desc.port_no,
                ofcd_log_clean(name, sizeof(name), ps->desc.name),
                ps->reason < 3 ? reasons[ps->reason] : "?",
                (ps->desc.state & OFPPS_LINK_DOWN) ? "down" : "up");
    apps_port_status(r, ps);
}

static void malformed(struct of_rec *r, struct ofp_err err, const struct qmsg *q)
{
    struct of_worker *w = r->w;
    char what[96];

    w->stats.malformed++;
    ofp_err_format(err, what, sizeof(what));
    send_bytes_error(r, err, q->data, q->len);
    if (w->now_us - r->malformed_since_us > OFW_MALFORMED_WINDOW_US) {
        r->malformed_since_us = w->now_us;
        r->malformed = 0;
    }
    r->malformed++;
    LOG_WARN_RL(&w->rl_log.malformed, w->now_us, "of", "switch %016" PRIx64 " (conn %#" PRIx64
                "): malformed %s, %u bytes: %s (%u this minute)", r->sw ? r->sw->dpid : 0, r->h,
                q->len >= 2 && ofp_msg_type_name(q->data[1]) ? ofp_msg_type_name(q->data[1])
                                                             : "message",
                q->len, what, r->malformed);
    if (r->malformed >= w->malformed_limit) {
        w->stats.malformed_disconnects++;
        ofp_chan_close(&r->chan, "too many malformed messages (openflow.malformed_limit)");
    }
}

/* ---- one handler per message type the worker acts on --------------------------- */

static void on_hello(struct of_rec *r, const struct ofp_msg *m)
{
    struct ofp_hello ours;
    struct ofp_err err;
    uint8_t version;

    ofp_hello_init(&ours, 1u << OFP13_VERSION, true);
    bool ok = ofp_hello_negotiate(&ours, &m->u.hello, &version, &err) == 0;
    /* The channel owns the decision and the error; it only needs to know
     * whether 1.3 is common ground. */
    ofp_chan_on_hello(&r->chan, m->hdr.xid, ok ? OFP13_VERSION : 0, false, 0, r->w->now_us);
}

static void on_error(struct of_rec *r, const struct ofp_msg *m)
{
    char what[96];

    r->w->stats.errors_from_switches++;
    /* A refused role request (a stale generation), or the switch telling
     * us we are a slave (in 1.3 a new master demotes the old one without a
     * word): not the master, whoever asked. */
    if (m->u.error.type == OFPET_ROLE_REQUEST_FAILED ||
        (m->u.error.type == OFPET_BAD_REQUEST && m->u.error.code == OFPBRC_IS_SLAVE))
        r->master = false;
    /* Errors about the control thread's requests (top xid bit: flow
     * manager) are logged there, with the flow they concern. */
    if (ofp_xid_is_control(m->hdr.xid))
        return;
    ofp_err_format(OFP_ERR(m->u.error.type, m->u.error.code), what, sizeof(what));
    LOG_WARN_RL(&r->w->rl_log.sw_error, r->w->now_us, "of", "switch %016" PRIx64 " sent an "
                "error for xid %u: %s", r->sw ? r->sw->dpid : 0, m->hdr.xid, what);
}

/* Reaches the worker only when the io lcore did not answer it (another
 * header version): answer in kind. */
static void on_echo_request(struct of_rec *r, const struct ofp_msg *m)
{
    struct ofp_msg rep;

    msg_init(&rep, OFPT_ECHO_REPLY, m->hdr.xid);
    rep.u.echo = m->u.echo;
    send_msg(r, &rep);
}

static void on_echo_reply(struct of_rec *r, const struct ofp_msg *m)
{
    uint64_t before = r->chan.echo_replies;

    if (r->claimant && m->hdr.xid == r->probe_xid) {
        claim_resolve(r, true);                   /* alive: keep it */
        return;
    }
    ofp_chan_on_echo_reply(&r->chan, m->hdr.xid, r->w->now_us);
    if (r->chan.echo_replies != before && r->up_posted) {
        struct of_event_echo rtt = {r->chan.rtt_last_us, r->chan.rtt_ewma_us};
        struct qmsg *ev = event_buf(r, sizeof(rtt));
        uint64_t missed;
        if (ev) {
            post_event(r, ev, QMSG_EV_ECHO, OFP_PRIO_P3, &rtt, sizeof(rtt), NULL, 0);
        } else {
            r->w->stats.rtt_samples_skipped++;   /* a sample: the next one is as good */
            if (ofcd_ratelimit(&r->w->rl_event, r->w->now_us, &missed))
                LOG_WARN("of", "switch %016" PRIx64 ": events pool empty: echo round trip "
                         "not reported (%lu more unlogged); raise openflow.event_buffers",
                         r->sw ? r->sw->dpid : 0, (unsigned long)missed);
        }
    }
}

static void features_reply(struct of_rec *r, uint32_t xid, const struct ofp_features *f)
{
    if (ofp_chan_on_features(&r->chan, xid, f->datapath_id, f->auxiliary_id, r->w->now_us) == 0 &&
        r->chan.state == OFP_CHAN_WAIT_DESC && !r->sw)
        bind_switch(r, f);
}

static void log_claim(const struct of_rec *live, const struct of_rec *c, const char *what)
{
    char cp[OFCD_PEER_STRLEN], lp[OFCD_PEER_STRLEN];

    LOG_WARN_RL(&c->w->rl_log.claim, c->w->now_us, "of", "switch %016" PRIx64 ": connection %#"
                PRIx64 " from %s claims the dpid of live connection %#" PRIx64 " from %s: %s",
                c->claim_features.datapath_id, c->h,
                ofcd_peer_format(c->peer_ip, c->peer_port, cp), live->h,
                ofcd_peer_format(live->peer_ip, live->peer_port, lp), what);
}

/* The verdict on a claim of live's dpid: if live answered its echo the
 * claimant is refused; if not, live was stale and the claimant takes over. */
static void claim_resolve(struct of_rec *live, bool answered)
{
    struct of_worker *w = live->w;
    struct of_rec *c = rec_find(w, live->claimant);

    live->claimant = 0;
    if (!c || !c->claiming)
        return;                                   /* the claimant left meanwhile */
    c->claiming = false;
    if (answered) {
        w->stats.dpid_claims_refused++;
        log_claim(live, c, "the live one answers echo: refusing the newcomer");
        ofp_chan_close(&c->chan, "its dpid belongs to a live connection that answers echo");
        return;
    }
    w->stats.dpid_claims_evicted++;
    log_claim(live, c, "the live one did not answer an echo: replacing it");
    switch_down(live, "replaced: did not answer an echo when another connection claimed its dpid");
    ofp_chan_close(&live->chan, "replaced by a new connection of the same dpid");
    features_reply(c, c->claim_xid, &c->claim_features);
    rec_schedule(c);
}

/* A connection says it is the switch dpid; another connection of that dpid
 * is established. Do not evict it on the newcomer's word: ask it for an
 * echo first (claim_resolve decides), and hold the newcomer's handshake. */
static void claim(struct of_rec *r, struct of_rec *live, const struct ofp_msg *m)
{
    struct of_worker *w = r->w;

    r->claim_features = m->u.features;       /* log_claim names the dpid from it */
    r->claim_xid = m->hdr.xid;
    if (live->claimant) {
        w->stats.dpid_claims_refused++;
        log_claim(live, r, "another claim is being decided: refusing this one");
        ofp_chan_close(&r->chan, "its dpid belongs to a live connection (claim pending)");
        return;
    }
    r->claiming = true;
    live->claimant = r->h;
    live->probe_xid = ofp_chan_xid(&live->chan);
    live->probe_deadline_us = w->now_us + OFW_CLAIM_PROBE_US;
    log_claim(live, r, "asking the live one for an echo");
    if (c_echo(live, live->probe_xid) < 0)
        claim_resolve(live, false);
    else
        rec_schedule(live);
}

/* A pinned dpid must come over TLS with exactly its certificate: anyone
 * else holding a certificate of the switch CA is refused, logged with both
 * fingerprints. */
static bool pin_refused(struct of_rec *r, uint64_t dpid)
{
    const struct of_pin *pin = of_pins_find(r->w->pins, dpid);
    char want[OF_PINS_HEX_LEN], got[OF_PINS_HEX_LEN] = "", peer[OFCD_PEER_STRLEN];
    uint64_t missed;

    if (!pin || (r->has_cert && memcmp(pin->sha256, r->cert_sha256, 32) == 0))
        return false;
    r->w->stats.pin_refused++;
    of_pins_format_sha256(pin->sha256, want);
    if (r->has_cert)
        of_pins_format_sha256(r->cert_sha256, got);
    if (ofcd_ratelimit(&r->w->rl_pin, r->w->now_us, &missed))
        LOG_WARN("of", "switch %016" PRIx64 ": connection %#" PRIx64 " from %s shows %s%s, "
                 "but tls.pins_file pins the dpid to certificate SHA-256 %s: refused (%lu more "
                 "refusals unlogged)", dpid, r->h,
                 ofcd_peer_format(r->peer_ip, r->peer_port, peer),
                 !r->tls      ? "no TLS at all"
                 : r->has_cert ? "certificate SHA-256 "
                               : "no certificate",
                 got, want, (unsigned long)missed);
    ofp_chan_close(&r->chan, "its certificate is not the one pinned to its dpid");
    return true;
}

static void on_features(struct of_rec *r, const struct ofp_msg *m)
{
    struct of_switch *sw = switch_find(r->w, m->u.features.datapath_id);

    if (!r->sw && pin_refused(r, m->u.features.datapath_id))
        return;

    if (!r->sw && !r->claiming && sw && sw->rec && sw->rec != r &&
        sw->rec->chan.state == OFP_CHAN_ESTABLISHED && r->chan.state == OFP_CHAN_WAIT_FEATURES &&
        m->hdr.xid == r->chan.features_xid) {
        claim(r, sw->rec, m);
        return;
    }
    features_reply(r, m->hdr.xid, &m->u.features);
}

/* The switch's word on this connection's role (the control thread gets
 * the reply too: it asked). */
static void on_role_reply(struct of_rec *r, const struct ofp_msg *m)
{
    r->master = m->u.role.role == OFPCR_ROLE_MASTER;
}

static void on_packet_in(struct of_rec *r, const struct ofp_msg *m)
{
    r->w->stats.packet_in++;
    apps_packet_in(r, &m->u.packet_in);
}

/* What the worker does with each type (NULL: nothing beyond forwarding);
 * what it forwards to the control thread is forwarded()'s. */
typedef void of_handler_fn(struct of_rec *r, const struct ofp_msg *m);
static of_handler_fn *const type_handlers[OFPT_METER_MOD + 1] = {
    [OFPT_HELLO] = on_hello,
    [OFPT_ERROR] = on_error,
    [OFPT_ECHO_REQUEST] = on_echo_request,
    [OFPT_ECHO_REPLY] = on_echo_reply,
    [OFPT_FEATURES_REPLY] = on_features,
    [OFPT_MULTIPART_REPLY] = mp_reply,
    [OFPT_PORT_STATUS] = port_status,
    [OFPT_PACKET_IN] = on_packet_in,
    [OFPT_ROLE_REPLY] = on_role_reply,
};

/* Switch messages the control thread acts on (flow manager, switch view),
 * once the channel is established; the handshake's own replies stay here. */
static bool forwarded(struct of_rec *r, const struct qmsg *q, const struct ofp_msg *m)
{
    if (r->chan.state != OFP_CHAN_ESTABLISHED)
        return false;
    switch (m->hdr.type) {
    case OFPT_PORT_STATUS:
    case OFPT_FLOW_REMOVED:
    case OFPT_ERROR:
    case OFPT_BARRIER_REPLY:
    case OFPT_ROLE_REPLY:
        return true;
    case OFPT_MULTIPART_REPLY:
        return mp_forward(r, q, m);
    default:
        return false;
    }
}

/* True when q was taken (forwarded in its own buffer). The worker's own
 * handling goes first: the decoded message points into q's data, which the
 * forward moves. */
static bool handle(struct of_rec *r, struct qmsg *q)
{
    struct ofp_msg m;
    struct ofp_err err;

    if (ofp_decode(q->data, q->len, &m, &err) < 0) {
        malformed(r, err, q);
        return false;
    }
    bool fwd = forwarded(r, q, &m);
    if (m.hdr.type < sizeof(type_handlers) / sizeof(type_handlers[0]) &&
        type_handlers[m.hdr.type])
        type_handlers[m.hdr.type](r, &m);
    /* Not after the handler cut the switch off: its end is already told. */
    return fwd && r->up_posted && forward_of(r, q);
}

static void dispatch(struct of_rec *r, struct qmsg *q)
{
    struct of_worker *w = r->w;
    uint8_t type = q->len >= 2 ? q->data[1] : 0xff;

    w->stats.msgs++;
    if (r->chan.state == OFP_CHAN_CLOSED) {
        qmsg_free(q);
        return;
    }
    ofp_chan_rx(&r->chan, w->now_us);
    if (r->chan.state == OFP_CHAN_WAIT_HELLO && type != OFPT_HELLO && type != OFPT_ERROR) {
        ofp_chan_on_early_message(&r->chan, q->len >= 8 ? (uint32_t)q->data[4] << 24 |
                                  (uint32_t)q->data[5] << 16 | (uint32_t)q->data[6] << 8 |
                                  q->data[7] : 0, type, q->data, q->len);
        qmsg_free(q);
        return;
    }
    if (r->up_owed || !ofp_chan_may_process(&r->chan, type)) {
        if (r->held.n >= OFW_HELD_MAX) {
            qmsg_free(q);
            ofp_chan_close(&r->chan, "too many messages before the handshake completed");
            return;
        }
        qmsg_fifo_push(&r->held, q);
        w->stats.held++;
        return;
    }
    if (!handle(r, q))
        qmsg_free(q);
}

/* ---- life cycle ----------------------------------------------------------------------- */

OFCD_COUNTER_GROUP(of_worker_counters, "openflow_worker", struct of_worker_stats,
                   OF_WORKER_COUNTERS, OF_WORKER_GAUGES);

struct of_worker *of_worker_create(const struct of_worker_cfg *cfg, struct qmsg_pool *pool,
                                   struct qmsg_pool *event_pool)
{
    struct of_worker *w = calloc(1, sizeof(*w));

    if (!w) {
        LOG_ERR("of", "worker %u: out of memory", cfg->index);
        return NULL;
    }
    w->index = cfg->index;
    w->pool = pool;
    w->event_pool = event_pool;
    w->malformed_limit = cfg->malformed_limit;
    w->max_ports = cfg->max_ports;
    w->max_known = cfg->max_switches_known;
    w->forget_after_us = (uint64_t)cfg->forget_after_s * 1000000u;
    w->mp_max_parts = cfg->mp_max_parts;
    w->mp_max_bytes = (uint64_t)cfg->mp_max_kb * 1024u;
    w->rl_mp = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    w->rl_event = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    w->rl_pin = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    /* Switches coming and going are what operators read the log for: more
     * of those a second than of a switch's own noise. */
    w->rl_log.up = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(50, 1000);
    w->rl_log.down = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(50, 1000);
    w->rl_log.down_settled = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(50, 1000);
    w->rl_log.early_close = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    w->rl_log.replaced = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    w->rl_log.claim = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    w->rl_log.ports_cut = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    w->rl_log.ports_seen = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    w->rl_log.handshake = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(50, 1000);
    w->rl_log.port_status = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(10, 1000);
    w->rl_log.malformed = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    w->rl_log.sw_error = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(10, 1000);
    w->rl_refused = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(1, OFW_REFUSED_LOG_MS);
    w->stats_interval_us = (uint64_t)cfg->stats_interval_s * 1000000u;
    w->events_bell = cfg->events_bell;
    w->role = cfg->role;
    w->generation_id = cfg->generation_id;
    w->role_gate = cfg->role_gate;
    w->may_act = cfg->may_act;
    w->pins = cfg->pins;
    memcpy(w->apps, cfg->apps, sizeof(w->apps));
    w->n_apps = cfg->n_apps;
    w->chan_cfg = cfg->chan;
    char name[32];
    snprintf(name, sizeof(name), "msg_in_%u", cfg->index);
    struct msgq_cfg qc = {
        .name = name,
        .size = cfg->queue_size,
        .multi_producer = cfg->multi_producer,
        .multi_consumer = false,
        .starve_bursts = MSGQ_STARVE_BURSTS,
        .credit = MSGQ_CREDIT,
    };
    w->msg_in = msgq_create(&qc);
    if (!w->msg_in) {
        free(w);
        return NULL;
    }
    tw_wheel_init(&w->wheel, 0);
    return w;
}

/* A switch model and what it holds; the apps let go of it first while
 * they still see its ports. */
static void switch_free(struct of_worker *w, struct of_switch *sw)
{
    if (sw->up_since_us)
        apps_switch_down(w, sw);
    ports_drop(w, sw);
    free(sw);
}

/* A model without a connection, out of the table and the down list. */
static void switch_forget(struct of_worker *w, struct of_switch *sw)
{
    struct of_switch **pp = &w->switches[hash64(sw->dpid)];

    while (*pp && *pp != sw)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = sw->hnext;
    down_unlink(w, sw);
    switch_free(w, sw);
    w->stats.switches_known--;
}

void of_worker_destroy(struct of_worker *w)
{
    if (!w)
        return;
    for (unsigned b = 0; b < (1u << OFW_HASH_BITS); b++) {
        while (w->recs[b])
            rec_free(w->recs[b]);
        while (w->switches[b]) {
            struct of_switch *sw = w->switches[b];
            w->switches[b] = sw->hnext;
            switch_free(w, sw);
        }
    }
    qmsg_fifo_free(&w->backlog);
    qmsg_free_queued(w->msg_in);
    msgq_destroy(w->msg_in);
    free(w);
}

struct msgq *of_worker_msg_in(struct of_worker *w)
{
    return w->msg_in;
}

void of_worker_set_outputs(struct of_worker *w, struct msgq **io_out, unsigned n_io,
                           struct msgq *events)
{
    w->io_out = io_out;
    w->n_io = n_io;
    w->events = events;
}

/* The models of switches gone for forget_after_us (their apps' state went
 * at switch down): a peer cycling through made-up dpids cannot grow them.
 * The down list is in the order they went down, so the sweep stops at the
 * first one whose time has not come: it costs what it forgets, not what the
 * worker knows. */
static void forget_gone(struct of_worker *w)
{
    struct of_switch *sw;

    while ((sw = down_oldest(w)) != NULL) {
        w->stats.switches_swept++;
        if (w->now_us - sw->down_since_us < w->forget_after_us)
            break;
        switch_forget(w, sw);
        w->stats.switches_forgotten++;
    }
}

bool of_worker_poll(struct of_worker *w, uint64_t now_us, uint64_t now_tsc)
{
    struct qmsg *m[OFW_BURST];

    w->now_us = now_us;
    w->now_tsc = now_tsc;
    bool worked = flush_backlog(w);
    if (w->forget_after_us && now_us >= w->next_forget_us) {
        w->next_forget_us = now_us + OFW_FORGET_SWEEP_US;
        forget_gone(w);
    }
    unsigned n = msgq_dequeue_burst(w->msg_in, m, OFW_BURST, now_tsc);
    for (unsigned i = 0; i < n; i++) {
        struct qmsg *q = m[i];
        int reason;
        switch (q->kind) {
        case QMSG_CONN_UP:
            conn_up(w, q);
            qmsg_free(q);
            break;
        case QMSG_CONN_DOWN:
            memcpy(&reason, q->data, sizeof(reason));
            conn_down(w, q->conn, reason);
            qmsg_free(q);
            break;
        default: {
            struct of_rec *r = rec_find(w, q->conn);
            if (!r || q->len < OFP13_HEADER_LEN) {
                qmsg_free(q);
                break;
            }
            dispatch(r, q);
            if (r->chan.state != OFP_CHAN_CLOSED)
                rec_schedule(r);
            break;
        }
        }
    }
    worked |= tw_wheel_run(&w->wheel, now_us) > 0;
    if (w->events_urgent) {
        w->events_urgent = false;
        ofcd_doorbell_ring(w->events_bell);
    }
    return worked || n > 0;
}

void of_worker_get_stats(const struct of_worker *w, struct of_worker_stats *out)
{
    *out = w->stats;
}

void of_worker_visit_counters(const struct of_worker *w, ofcd_counter_fn fn, void *arg)
{
    fn(arg, &of_worker_counters, "", OFCD_COUNTER_VALUES(&w->stats));
}

void of_worker_log_switches(const struct of_worker *w)
{
    for (unsigned b = 0; b < (1u << OFW_HASH_BITS); b++)
        for (const struct of_switch *sw = w->switches[b]; sw; sw = sw->hnext) {
            const struct of_rec *r = sw->rec;
            LOG_INFO("of", "switch %016" PRIx64 ": %s, %u ports, conn %#" PRIx64 ", echo rtt "
                     "%u us (ewma %u us, %lu/%lu replies), connects %lu, replaced %lu, port "
                     "changes %lu", sw->dpid, sw->up_since_us ? "up" : "down", sw->ports.n,
                     r ? r->h : 0, r ? r->chan.rtt_last_us : 0, r ? r->chan.rtt_ewma_us : 0,
                     (unsigned long)(r ? r->chan.echo_replies : 0),
                     (unsigned long)(r ? r->chan.echo_sent : 0), (unsigned long)sw->connects,
                     (unsigned long)sw->replaced, (unsigned long)sw->port_changes);
        }
}
