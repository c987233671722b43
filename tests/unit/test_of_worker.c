/*
 * test_of_worker: the worker's side of the OpenFlow data path without EAL —
 * a fake clock, heap-backed message buffers (fake_qmsg_pool.c), real
 * priority rings, and the switch played by the codec: handshake to
 * ESTABLISHED and the event the control thread gets, messages held until
 * then, OFPT_ERROR for what cannot be decoded and the malformed limit, the
 * handshake and hello timeouts, the statistics poller and its
 * skip-if-pending, a dpid that reconnects, and the app hooks (each called
 * at its moment, messages an app sends numbered by the worker, per-switch
 * state freed at switch down). Every test ends with every buffer back in
 * the pool.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_qmsg_pool.h"
#include "of_event.h"
#include "of_worker.h"
#include "log_capture.h"
#include "ofp_msg.h"
#include "ofp_test_util.h"
#include "ofp_wire.h"

#define T0 1000000000ull
#define MS 1000ull
#define SEC 1000000ull
#define CONN conn_handle_make(0, 7, 1)
#define DPID 0x1001ull
#define OUT_MAX 256

/* One item the worker put on a ring, copied out (bytes owned). */
struct out {
    uint16_t kind;
    uint8_t cls;
    conn_handle_t conn;
    uint8_t *bytes;
    uint32_t len;
    struct ofp_msg m;                /* decoded when kind is QMSG_OF */
    bool taken;
    bool charged;                    /* to the connection's share */
};

/* What an app hook saw. */
struct app_log {
    unsigned up, packet_in, port_status, down;
    uint64_t dpid;
    uint32_t last_in_port_len;
    int *state;                      /* malloc'd at switch up, freed at down */
};

struct wh {
    struct qmsg_pool *pool, *event_pool;
    struct of_worker *w;
    struct msgq *io_out, *events;
    struct of_worker_cfg cfg;
    uint64_t now;
    struct out out[OUT_MAX], ev[OUT_MAX];
    unsigned n_out, n_ev;
    struct of_app app;
    struct app_log log;
    struct qmsg_quota quota;         /* the connections' share, as the io side gives it */
    struct ofcd_log_ring *lines;     /* the worker's log lines, when a test reads them */
    atomic_bool may_act;             /* the node's fence, for the cluster gate's tests */
};

/* ---- the harness ------------------------------------------------------------------ */

static struct msgq *ring(const char *name)
{
    struct msgq_cfg qc = {.name = name, .size = 256, .multi_producer = true, .credit = MSGQ_CREDIT,
                          .starve_bursts = MSGQ_STARVE_BURSTS};
    struct msgq *q = msgq_create(&qc);
    assert_non_null(q);
    return q;
}

static void wh_start(struct wh *h)
{
    h->w = of_worker_create(&h->cfg, h->pool, h->event_pool);
    assert_non_null(h->w);
    of_worker_set_outputs(h->w, &h->io_out, 1, h->events);
}

static int setup(void **state)
{
    struct wh *h = calloc(1, sizeof(*h));

    assert_non_null(h);
    h->pool = qmsg_pool_create("control", 4096, 64, 0, true);
    h->event_pool = qmsg_pool_create("events", 4096, 64, 0, true);
    h->io_out = ring("io_out");
    h->events = ring("events");
    h->now = T0;
    h->cfg = (struct of_worker_cfg){
        .index = 0,
        .queue_size = 256,
        .malformed_limit = 3,
        .max_ports = 64,
        .mp_max_kb = 1024,
        .mp_max_parts = 64,
        .stats_interval_s = 0,
        .role = OFPCR_ROLE_EQUAL,
        .chan = {.handshake_timeout_ms = 10000, .echo_interval_ms = 5000,
                 .echo_timeout_ms = 15000, .rtt_probe_ms = 0, .miss_send_len = 128},
    };
    *state = h;
    return 0;
}

static void drain(struct wh *h, struct msgq *q, struct out *arr, unsigned *n)
{
    struct qmsg *m[64];
    unsigned k;

    while ((k = msgq_dequeue_burst(q, m, 64, 0)) > 0) {
        for (unsigned i = 0; i < k; i++) {
            assert_true(*n < OUT_MAX);
            struct out *o = &arr[(*n)++];
            memset(o, 0, sizeof(*o));
            o->kind = m[i]->kind;
            o->cls = m[i]->cls;
            o->conn = m[i]->conn;
            o->len = m[i]->len;
            o->charged = m[i]->quota == &h->quota;
            o->bytes = ofp_test_dup(m[i]->data, m[i]->len ? m[i]->len : 1);
            if (o->kind == QMSG_OF) {
                struct ofp_err err;
                assert_int_equal(ofp_decode(o->bytes, o->len, &o->m, &err), 0);
            }
            qmsg_free(m[i]);
        }
    }
}

static void forget(struct out *arr, unsigned *n)
{
    for (unsigned i = 0; i < *n; i++)
        free(arr[i].bytes);
    *n = 0;
}

static int teardown(void **state)
{
    struct wh *h = *state;

    ofcd_log_use_ring(NULL);
    ofcd_log_ring_destroy(h->lines);
    of_worker_destroy(h->w);
    drain(h, h->io_out, h->out, &h->n_out);
    drain(h, h->events, h->ev, &h->n_ev);
    forget(h->out, &h->n_out);
    forget(h->ev, &h->n_ev);
    /* Every buffer the worker took came back (held, backlog, rings). */
    assert_int_equal(fake_qmsg_pool_live(h->pool), 0);
    assert_int_equal(fake_qmsg_pool_live(h->event_pool), 0);
    msgq_destroy(h->io_out);
    msgq_destroy(h->events);
    qmsg_pool_destroy(h->pool);
    qmsg_pool_destroy(h->event_pool);
    free(h->log.state);
    free(h);
    return 0;
}

/* One worker pass at the current fake time, then collect its output. */
static void poll_at(struct wh *h, uint64_t now)
{
    h->now = now;
    of_worker_poll(h->w, h->now, 0);
    drain(h, h->io_out, h->out, &h->n_out);
    drain(h, h->events, h->ev, &h->n_ev);
}

static void push(struct wh *h, conn_handle_t conn, uint16_t kind, const void *data,
                 uint32_t len, uint8_t cls)
{
    struct qmsg *q = qmsg_alloc(h->pool, len);

    assert_non_null(q);
    memcpy(q->data, data, len);
    q->len = len;
    q->kind = kind;
    q->cls = cls;
    q->conn = conn;
    assert_int_equal(msgq_enqueue(of_worker_msg_in(h->w), q, 0), 0);
    poll_at(h, h->now);
}

static void conn_event(struct wh *h, conn_handle_t conn, uint16_t kind, int reason)
{
    if (kind == QMSG_CONN_UP) {
        struct qmsg_conn_up up = {.quota = &h->quota, .peer_ip = 0x0a420001,
                                  .peer_port = (uint16_t)(40000 + conn_handle_slot(conn))};
        push(h, conn, kind, &up, sizeof(up), 0);
        return;
    }
    push(h, conn, kind, &reason, sizeof(reason), 0);
}

/* The switch sends m (encoded by the codec) on conn. */
static void sw_send(struct wh *h, conn_handle_t conn, struct ofp_msg *m)
{
    uint8_t buf[8192];
    m->hdr.version = OFP13_VERSION;
    size_t len = ofp_test_encode(m, buf, sizeof(buf));
    const struct ofp_msg_type *t = ofp_msg_type_get(m->hdr.type);
    push(h, conn, QMSG_OF, buf, (uint32_t)len, (uint8_t)t->prio);
}

static void sw_raw(struct wh *h, conn_handle_t conn, const uint8_t *bytes, uint32_t len)
{
    push(h, conn, QMSG_OF, bytes, len, OFP_PRIO_P1);
}

/* The first not yet taken item of kind (and OpenFlow type, for QMSG_OF) for
 * conn; NULL when there is none. */
static struct out *take_from(struct out *arr, unsigned n, conn_handle_t conn, uint16_t kind,
                             int type)
{
    for (unsigned i = 0; i < n; i++) {
        struct out *o = &arr[i];
        if (o->taken || o->conn != conn || o->kind != kind)
            continue;
        if (kind == QMSG_OF && type >= 0 && o->m.hdr.type != type)
            continue;
        o->taken = true;
        return o;
    }
    return NULL;
}

static struct out *sent(struct wh *h, conn_handle_t conn, int type)
{
    return take_from(h->out, h->n_out, conn, QMSG_OF, type);
}

static struct out *event(struct wh *h, uint16_t kind)
{
    return take_from(h->ev, h->n_ev, CONN, kind, -1);
}

static const struct of_event_hdr *ev_hdr(const struct out *o)
{
    return (const struct of_event_hdr *)(const void *)o->bytes;
}

static void msg(struct ofp_msg *m, uint8_t type, uint32_t xid)
{
    memset(m, 0, sizeof(*m));
    m->hdr.type = type;
    m->hdr.xid = xid;
}

static const struct ofp_port ports[2] = {
    {.port_no = 1, .hw_addr = {2, 0, 0, 0, 0, 1}, .name = "p1", .curr_speed = 10000000},
    {.port_no = 2, .hw_addr = {2, 0, 0, 0, 0, 2}, .name = "p2", .curr_speed = 10000000},
};

/* HELLO and FEATURES_REPLY: the channel waits for PORT_DESC and DESC. */
static void to_wait_desc(struct wh *h, conn_handle_t conn, uint64_t dpid)
{
    struct ofp_msg m;

    conn_event(h, conn, QMSG_CONN_UP, 0);
    assert_non_null(sent(h, conn, OFPT_HELLO));
    msg(&m, OFPT_HELLO, 1);
    ofp_hello_init(&m.u.hello, 1u << OFP13_VERSION, true);
    sw_send(h, conn, &m);
    struct out *fr = sent(h, conn, OFPT_FEATURES_REQUEST);
    assert_non_null(fr);
    msg(&m, OFPT_FEATURES_REPLY, fr->m.hdr.xid);
    m.u.features = (struct ofp_features){.datapath_id = dpid, .n_buffers = 256, .n_tables = 254};
    sw_send(h, conn, &m);
}

/* The rest of the handshake. */
static void finish_handshake(struct wh *h, conn_handle_t conn)
{
    struct ofp_msg m;
    uint32_t pd_xid = 0, desc_xid = 0;
    struct out *o;

    while ((o = sent(h, conn, OFPT_MULTIPART_REQUEST)) != NULL) {
        if (o->m.u.mp_request.type == OFPMP_PORT_DESC)
            pd_xid = o->m.hdr.xid;
        if (o->m.u.mp_request.type == OFPMP_DESC)
            desc_xid = o->m.hdr.xid;
    }
    assert_true(pd_xid && desc_xid);
    msg(&m, OFPT_MULTIPART_REPLY, pd_xid);
    m.u.mp_reply.type = OFPMP_PORT_DESC;
    m.u.mp_reply.arr = ports;
    m.u.mp_reply.n = 2;
    sw_send(h, conn, &m);
    msg(&m, OFPT_MULTIPART_REPLY, desc_xid);
    m.u.mp_reply.type = OFPMP_DESC;
    strcpy(m.u.mp_reply.u.desc.mfr_desc, "test");
    strcpy(m.u.mp_reply.u.desc.sw_desc, "fake switch");
    sw_send(h, conn, &m);
}

static void establish(struct wh *h, conn_handle_t conn, uint64_t dpid)
{
    to_wait_desc(h, conn, dpid);
    finish_handshake(h, conn);
}

static struct of_worker_stats stats(struct wh *h)
{
    struct of_worker_stats st;
    of_worker_get_stats(h->w, &st);
    return st;
}

/* The first statistics round (within 1 s + one interval, staggered by
 * dpid): the FLOW request's xid. */
static uint32_t first_flow_poll(struct wh *h)
{
    uint32_t flow_xid = 0;

    for (uint64_t t = T0; t <= T0 + 11 * SEC && !flow_xid; t += 100 * MS) {
        poll_at(h, t);
        struct out *o;
        while ((o = sent(h, CONN, OFPT_MULTIPART_REQUEST)) != NULL)
            if (o->m.u.mp_request.type == OFPMP_FLOW)
                flow_xid = o->m.hdr.xid;
    }
    assert_true(flow_xid != 0);
    return flow_xid;
}

/* ---- tests ------------------------------------------------------------------------ */

static void test_handshake_to_established(void **state)
{
    struct wh *h = *state;

    wh_start(h);
    establish(h, CONN, DPID);
    /* The io side hears the connection is no longer pending. */
    assert_non_null(take_from(h->out, h->n_out, CONN, QMSG_ESTABLISHED, -1));
    struct out *sc = sent(h, CONN, OFPT_SET_CONFIG);
    assert_non_null(sc);
    assert_true(sc->charged);
    assert_int_equal(sc->m.u.config.miss_send_len, 128);
    assert_int_equal(sc->cls, OFP_PRIO_P0);

    struct out *up = event(h, QMSG_EV_SWITCH_UP);
    assert_non_null(up);
    assert_true(up->charged);
    assert_int_equal(ev_hdr(up)->dpid, DPID);
    const struct of_event_up *info = (const void *)(up->bytes + sizeof(struct of_event_hdr));
    assert_int_equal(info->features.datapath_id, DPID);
    assert_int_equal(info->n_ports, 2);
    assert_string_equal(info->desc.sw_desc, "fake switch");
    const struct ofp_port *p = (const void *)(info + 1);
    assert_int_equal(p[1].port_no, 2);
    assert_string_equal(p[1].name, "p2");

    /* What the worker made for this connection was charged to its share
     * (above), and came back to it; the buffer the switch's SWITCH_DOWN is
     * kept in is part of every switch's cost, not of its share (charged,
     * 10,000 switches from one address would spend their address's share
     * of the control plane's buffers for good). */
    assert_int_equal(qmsg_quota_bufs(&h->quota), 0);
    assert_int_equal(qmsg_quota_bytes(&h->quota), 0);
    assert_int_equal(qmsg_quota_control_bufs(&h->quota), 0);
    struct of_worker_stats st = stats(h);
    assert_int_equal(st.switches_established, 1);
    assert_int_equal(st.switches_up, 1);
    assert_int_equal(st.switches_known, 1);
    assert_int_equal(st.conns, 1);

    conn_event(h, CONN, QMSG_CONN_DOWN, -ECONNRESET);
    assert_non_null(event(h, QMSG_EV_SWITCH_DOWN));
    st = stats(h);
    assert_int_equal(st.switches_up, 0);
    assert_int_equal(st.conns, 0);
    assert_int_equal(st.switches_known, 1);       /* the model outlives the connection */
}

static void test_held_until_established(void **state)
{
    struct wh *h = *state;
    struct ofp_msg m;

    wh_start(h);
    to_wait_desc(h, CONN, DPID);
    msg(&m, OFPT_PORT_STATUS, 0);
    m.u.port_status.reason = OFPPR_ADD;
    m.u.port_status.desc = (struct ofp_port){.port_no = 7, .name = "p7"};
    sw_send(h, CONN, &m);
    assert_int_equal(stats(h).held, 1);
    assert_int_equal(stats(h).port_status, 0);    /* not yet applied */
    assert_null(event(h, QMSG_EV_OF));

    finish_handshake(h, CONN);
    /* Up first, then the held message, forwarded and applied: the control
     * thread never hears of a port of a switch it does not know yet. Both
     * are P0/P2 events of one producer: ring order is per class, so the
     * worker must have posted the up before it replayed what it held. */
    struct out *up = event(h, QMSG_EV_SWITCH_UP);
    struct out *fwd = event(h, QMSG_EV_OF);
    assert_non_null(up);
    assert_non_null(fwd);
    assert_int_equal(fwd->bytes[sizeof(struct of_event_hdr) + 1], OFPT_PORT_STATUS);
    assert_int_equal(ev_hdr(fwd)->dpid, DPID);
    assert_true(ev_hdr(up)->time_us <= ev_hdr(fwd)->time_us);
    assert_int_equal(stats(h).port_status, 1);
}

static void test_malformed_answered_then_cut_off(void **state)
{
    struct wh *h = *state;
    /* A type OpenFlow 1.3 does not define. */
    const uint8_t bad[8] = {OFP13_VERSION, 0x63, 0, 8, 0, 0, 0, 42};

    wh_start(h);
    establish(h, CONN, DPID);
    sw_raw(h, CONN, bad, sizeof(bad));
    struct out *e = sent(h, CONN, OFPT_ERROR);
    assert_non_null(e);
    assert_int_equal(e->m.hdr.xid, 42);
    assert_int_equal(e->m.u.error.type, OFPET_BAD_REQUEST);
    assert_int_equal(e->m.u.error.code, OFPBRC_BAD_TYPE);
    assert_int_equal(e->m.u.error.data_len, sizeof(bad));
    assert_memory_equal(e->m.u.error.data, bad, sizeof(bad));
    assert_null(take_from(h->out, h->n_out, CONN, QMSG_CLOSE, -1));

    /* malformed_limit = 3 in a minute: the third closes this switch. */
    sw_raw(h, CONN, bad, sizeof(bad));
    sw_raw(h, CONN, bad, sizeof(bad));
    assert_non_null(take_from(h->out, h->n_out, CONN, QMSG_CLOSE, -1));
    assert_non_null(event(h, QMSG_EV_SWITCH_DOWN));
    assert_int_equal(stats(h).malformed, 3);
    assert_int_equal(stats(h).malformed_disconnects, 1);
}

static void test_handshake_timeout(void **state)
{
    struct wh *h = *state;

    wh_start(h);
    conn_event(h, CONN, QMSG_CONN_UP, 0);
    assert_non_null(sent(h, CONN, OFPT_HELLO));
    poll_at(h, T0 + 9999 * MS);
    assert_null(take_from(h->out, h->n_out, CONN, QMSG_CLOSE, -1));
    poll_at(h, T0 + 10001 * MS);
    assert_non_null(take_from(h->out, h->n_out, CONN, QMSG_CLOSE, -1));
    assert_int_equal(stats(h).handshake_timeouts, 1);
    assert_int_equal(stats(h).hello_timeouts, 0);
    conn_event(h, CONN, QMSG_CONN_DOWN, -ECONNABORTED);
    assert_int_equal(stats(h).conns, 0);
}

/* A peer that never says HELLO is cut off at hello_timeout_ms, long before
 * the handshake timeout, and counted as such. */
static void test_hello_timeout(void **state)
{
    struct wh *h = *state;

    h->cfg.chan.hello_timeout_ms = 2000;
    wh_start(h);
    conn_event(h, CONN, QMSG_CONN_UP, 0);
    poll_at(h, T0 + 1999 * MS);
    assert_null(take_from(h->out, h->n_out, CONN, QMSG_CLOSE, -1));
    poll_at(h, T0 + 2000 * MS);
    assert_non_null(take_from(h->out, h->n_out, CONN, QMSG_CLOSE, -1));
    assert_int_equal(stats(h).hello_timeouts, 1);
    assert_int_equal(stats(h).handshake_timeouts, 0);
    assert_int_equal(stats(h).echo_timeouts, 0);
    conn_event(h, CONN, QMSG_CONN_DOWN, -ECONNABORTED);
    assert_int_equal(stats(h).conns, 0);
}

static void test_stats_poller_skips_pending(void **state)
{
    struct wh *h = *state;
    struct ofp_msg m;

    h->cfg.stats_interval_s = 10;
    h->cfg.chan.echo_interval_ms = 0;            /* the switch here never answers echo */
    wh_start(h);
    establish(h, CONN, DPID);
    forget(h->out, &h->n_out);
    uint32_t flow_xid = first_flow_poll(h);
    assert_int_equal(stats(h).polls_sent, 3);      /* FLOW, PORT_STATS, TABLE */

    /* Unanswered, the next round skips all three. */
    poll_at(h, h->now + 10 * SEC);
    assert_int_equal(stats(h).polls_skipped, 3);
    assert_int_equal(stats(h).polls_sent, 3);

    /* The FLOW reply completes: the round after asks for FLOW again (and the
     * reply went to the control thread). */
    msg(&m, OFPT_MULTIPART_REPLY, flow_xid);
    m.u.mp_reply.type = OFPMP_FLOW;
    sw_send(h, CONN, &m);
    assert_non_null(event(h, QMSG_EV_OF));
    forget(h->out, &h->n_out);
    poll_at(h, h->now + 10 * SEC);
    assert_int_equal(stats(h).polls_sent, 4);
    assert_int_equal(stats(h).polls_skipped, 5);
}

/* A second connection claims the dpid of a live, established one: the live
 * one gets an echo; it answers, so the newcomer is refused and the switch
 * never goes down. */
static void test_dpid_claim_refused_while_live_answers(void **state)
{
    struct wh *h = *state;
    conn_handle_t thief = conn_handle_make(0, 8, 1);
    struct ofp_msg m;

    wh_start(h);
    establish(h, CONN, DPID);
    forget(h->out, &h->n_out);
    forget(h->ev, &h->n_ev);
    to_wait_desc(h, thief, DPID);
    struct out *probe = sent(h, CONN, OFPT_ECHO_REQUEST);
    assert_non_null(probe);
    assert_null(sent(h, thief, OFPT_MULTIPART_REQUEST));   /* its handshake waits */
    assert_null(take_from(h->out, h->n_out, CONN, QMSG_CLOSE, -1));
    msg(&m, OFPT_ECHO_REPLY, probe->m.hdr.xid);
    sw_send(h, CONN, &m);
    assert_non_null(take_from(h->out, h->n_out, thief, QMSG_CLOSE, -1));
    assert_null(take_from(h->out, h->n_out, CONN, QMSG_CLOSE, -1));
    assert_null(event(h, QMSG_EV_SWITCH_DOWN));
    assert_int_equal(stats(h).dpid_claims_refused, 1);
    assert_int_equal(stats(h).switches_replaced, 0);
    assert_int_equal(stats(h).switches_up, 1);
    conn_event(h, thief, QMSG_CONN_DOWN, -ECONNABORTED);
    /* Still the live one's: a later poll does not evict it. */
    poll_at(h, h->now + 2 * SEC);
    assert_null(take_from(h->out, h->n_out, CONN, QMSG_CLOSE, -1));
    assert_int_equal(stats(h).switches_up, 1);
}

/* The same claim, but the live connection stays silent past the probe: it
 * was stale, the newcomer takes the switch over. */
static void test_dpid_claim_evicts_silent_live(void **state)
{
    struct wh *h = *state;
    conn_handle_t again = conn_handle_make(0, 8, 1);

    h->cfg.chan.echo_interval_ms = 0;
    wh_start(h);
    establish(h, CONN, DPID);
    forget(h->out, &h->n_out);
    forget(h->ev, &h->n_ev);
    to_wait_desc(h, again, DPID);
    assert_non_null(sent(h, CONN, OFPT_ECHO_REQUEST));
    poll_at(h, h->now + 900 * MS);
    assert_null(take_from(h->out, h->n_out, CONN, QMSG_CLOSE, -1));
    poll_at(h, h->now + 200 * MS);
    assert_non_null(take_from(h->out, h->n_out, CONN, QMSG_CLOSE, -1));
    assert_non_null(event(h, QMSG_EV_SWITCH_DOWN));
    finish_handshake(h, again);
    assert_non_null(take_from(h->ev, h->n_ev, again, QMSG_EV_SWITCH_UP, -1));
    assert_int_equal(stats(h).dpid_claims_evicted, 1);
    assert_int_equal(stats(h).switches_up, 1);
    assert_int_equal(stats(h).switches_known, 1);
    conn_event(h, CONN, QMSG_CONN_DOWN, -ECONNABORTED);
    assert_int_equal(stats(h).switches_up, 1);     /* the new one is unaffected */
    conn_event(h, again, QMSG_CONN_DOWN, -ECONNRESET);
}

/* A connection claiming a dpid whose connection is still mid-handshake
 * replaces it at once (nothing established to protect). */
static void test_reconnect_replaces_unestablished(void **state)
{
    struct wh *h = *state;
    conn_handle_t again = conn_handle_make(0, 8, 1);

    wh_start(h);
    to_wait_desc(h, CONN, DPID);
    establish(h, again, DPID);
    assert_non_null(take_from(h->out, h->n_out, CONN, QMSG_CLOSE, -1));
    assert_int_equal(stats(h).switches_replaced, 1);
    assert_int_equal(stats(h).switches_up, 1);
    assert_non_null(take_from(h->ev, h->n_ev, again, QMSG_EV_SWITCH_UP, -1));
    conn_event(h, CONN, QMSG_CONN_DOWN, -ECONNABORTED);
    conn_event(h, again, QMSG_CONN_DOWN, -ECONNRESET);
}

/* PORT_DESC and PORT_STATUS together may not make the worker keep more than
 * max_ports ports (64 in these tests): the switch is cut off instead. */
static void test_ports_bounded(void **state)
{
    struct wh *h = *state;
    struct ofp_msg m;

    wh_start(h);
    establish(h, CONN, DPID);                     /* 2 ports */
    for (uint32_t no = 10; no < 72; no++) {       /* 62 more: 64 */
        msg(&m, OFPT_PORT_STATUS, 0);
        m.u.port_status.reason = OFPPR_ADD;
        m.u.port_status.desc = (struct ofp_port){.port_no = no, .name = "pX"};
        sw_send(h, CONN, &m);
    }
    /* A port it has, changed: still fine. */
    msg(&m, OFPT_PORT_STATUS, 0);
    m.u.port_status.reason = OFPPR_MODIFY;
    m.u.port_status.desc = (struct ofp_port){.port_no = 10, .name = "pX", .state = 1};
    sw_send(h, CONN, &m);
    assert_null(take_from(h->out, h->n_out, CONN, QMSG_CLOSE, -1));
    msg(&m, OFPT_PORT_STATUS, 0);
    m.u.port_status.reason = OFPPR_ADD;
    m.u.port_status.desc = (struct ofp_port){.port_no = 99, .name = "p99"};
    sw_send(h, CONN, &m);
    assert_non_null(take_from(h->out, h->n_out, CONN, QMSG_CLOSE, -1));
    assert_int_equal(stats(h).ports_over_limit, 1);
}

/* Multipart replies nobody asked for are dropped, not forwarded or kept;
 * a poll's reply past mp_max_parts (64 here) is cut at the bound. */
static void test_multipart_unsolicited_and_oversized(void **state)
{
    struct wh *h = *state;
    struct ofp_msg m;

    h->cfg.stats_interval_s = 10;
    h->cfg.chan.echo_interval_ms = 0;
    wh_start(h);
    establish(h, CONN, DPID);
    uint32_t flow_xid = first_flow_poll(h);
    forget(h->ev, &h->n_ev);
    msg(&m, OFPT_MULTIPART_REPLY, flow_xid + 1000);
    m.u.mp_reply.type = OFPMP_FLOW;
    m.u.mp_reply.flags = OFPMPF_REPLY_MORE;
    sw_send(h, CONN, &m);
    assert_null(event(h, QMSG_EV_OF));
    assert_int_equal(stats(h).mp_unsolicited, 1);
    m.hdr.xid = flow_xid;
    for (unsigned i = 0; i < 70; i++)
        sw_send(h, CONN, &m);
    unsigned forwarded = 0;
    while (event(h, QMSG_EV_OF))
        forwarded++;
    assert_int_equal(forwarded, 64);
    assert_int_equal(stats(h).mp_oversized, 1);
    assert_int_equal(stats(h).mp_unsolicited, 1 + 5);
}

/* A gone switch's model is dropped after forget_after_s: a peer cycling
 * through made-up dpids cannot grow the worker. */
static void test_gone_switch_forgotten(void **state)
{
    struct wh *h = *state;

    h->cfg.forget_after_s = 10;
    wh_start(h);
    establish(h, CONN, DPID);
    conn_event(h, CONN, QMSG_CONN_DOWN, -ECONNRESET);
    assert_int_equal(stats(h).switches_known, 1);
    poll_at(h, h->now + 9 * SEC);
    assert_int_equal(stats(h).switches_known, 1);
    poll_at(h, h->now + 2 * SEC);
    assert_int_equal(stats(h).switches_known, 0);
    assert_int_equal(stats(h).switches_forgotten, 1);
    /* It may come back: a new model. */
    establish(h, conn_handle_make(0, 9, 1), DPID);
    assert_int_equal(stats(h).switches_known, 1);
}

/* ---- bounded switch models (openflow.max_switches_known) ------------------------ */

/* Switch i on its own connection (slot 100 + i), dpid 0x2000 + i, established;
 * what it produced is let go so many fit in the harness's arrays. */
static conn_handle_t conn_i(unsigned i)
{
    return conn_handle_make(0, 100 + i, 1);
}

static void up_i(struct wh *h, unsigned i)
{
    establish(h, conn_i(i), 0x2000 + i);
    assert_non_null(take_from(h->ev, h->n_ev, conn_i(i), QMSG_EV_SWITCH_UP, -1));
    forget(h->out, &h->n_out);
    forget(h->ev, &h->n_ev);
}

static void down_i(struct wh *h, unsigned i)
{
    conn_event(h, conn_i(i), QMSG_CONN_DOWN, -ECONNRESET);
    forget(h->out, &h->n_out);
    forget(h->ev, &h->n_ev);
}

/* At the bound, a new dpid takes the model of the switch down longest; with
 * every model a live switch's it is refused after its FEATURES_REPLY (the
 * connection closed, counted), and nothing about it reaches the control
 * thread. */
static void test_switches_known_bounded(void **state)
{
    struct wh *h = *state;

    h->cfg.max_switches_known = 3;
    wh_start(h);
    for (unsigned i = 0; i < 3; i++)
        up_i(h, i);
    to_wait_desc(h, conn_i(3), 0x2000 + 3);
    assert_non_null(take_from(h->out, h->n_out, conn_i(3), QMSG_CLOSE, -1));
    assert_int_equal(stats(h).switches_refused, 1);
    assert_int_equal(stats(h).switches_known, 3);
    assert_null(take_from(h->ev, h->n_ev, conn_i(3), QMSG_EV_SWITCH_UP, -1));
    down_i(h, 3);
    /* A known dpid reconnecting is not new: never refused. */
    down_i(h, 1);
    up_i(h, 1);
    assert_int_equal(stats(h).switches_refused, 1);
    /* Two down: the one down longest (0) makes room, then the other (2). */
    down_i(h, 0);
    h->now += SEC;
    down_i(h, 2);
    up_i(h, 4);
    assert_int_equal(stats(h).switches_evicted, 1);
    assert_int_equal(stats(h).switches_known, 3);
    up_i(h, 0);                                   /* 0 was evicted: new again, takes 2's */
    assert_int_equal(stats(h).switches_evicted, 2);
    assert_int_equal(stats(h).switches_refused, 1);
    to_wait_desc(h, conn_i(5), 0x2000 + 5);       /* 1, 4, 0 live: refused */
    assert_non_null(take_from(h->out, h->n_out, conn_i(5), QMSG_CLOSE, -1));
    assert_int_equal(stats(h).switches_refused, 2);
    down_i(h, 5);
    down_i(h, 0);
    down_i(h, 1);
    down_i(h, 4);
}

/* A switch that is down keeps its model but not its ports: they come again
 * with its next PORT_DESC. */
static void test_ports_freed_at_disconnect(void **state)
{
    struct wh *h = *state;

    wh_start(h);
    up_i(h, 0);
    assert_int_equal(stats(h).ports_known, 2);
    down_i(h, 0);
    assert_int_equal(stats(h).switches_known, 1);
    assert_int_equal(stats(h).ports_known, 0);
    up_i(h, 0);
    assert_int_equal(stats(h).ports_known, 2);
    down_i(h, 0);
}

/* The once-a-second sweep looks at the switches whose time is up, not at
 * every one it knows: 40 down switches and 10 s of sweeps cost one look a
 * sweep until they expire, then one each. */
static void test_forget_sweep_visits_only_expired(void **state)
{
    struct wh *h = *state;

    h->cfg.forget_after_s = 10;
    wh_start(h);
    for (unsigned i = 0; i < 40; i++)
        up_i(h, i);
    for (unsigned i = 0; i < 20; i++)
        down_i(h, i);
    uint64_t down0 = h->now;
    h->now += 5 * SEC;
    for (unsigned i = 20; i < 40; i++)
        down_i(h, i);
    unsigned sweeps = 0;
    for (uint64_t t = down0 + SEC; t <= down0 + 10 * SEC - 1; t += SEC, sweeps++)
        poll_at(h, t);
    assert_int_equal(stats(h).switches_forgotten, 0);
    assert_true(stats(h).switches_swept <= sweeps);
    poll_at(h, down0 + 10 * SEC + 1);             /* the first 20 are due */
    assert_int_equal(stats(h).switches_forgotten, 20);
    assert_true(stats(h).switches_swept <= sweeps + 21);
    poll_at(h, down0 + 15 * SEC + 2);             /* the other 20 */
    assert_int_equal(stats(h).switches_forgotten, 40);
    assert_int_equal(stats(h).switches_known, 0);
    assert_true(stats(h).switches_swept <= sweeps + 42);
}

/* ---- app hooks -------------------------------------------------------------------- */

static void app_up(void *arg, struct of_app_switch *sw, uint64_t now_us, struct of_app_out *out)
{
    struct app_log *l = arg;
    struct ofp_msg m;

    (void)now_us;
    l->up++;
    l->dpid = sw->dpid;
    assert_null(sw->state);
    assert_int_equal(sw->features->datapath_id, sw->dpid);
    l->state = malloc(sizeof(int));
    *l->state = 0;
    sw->state = l->state;
    memset(&m, 0, sizeof(m));
    m.hdr.version = OFP13_VERSION;
    m.hdr.type = OFPT_BARRIER_REQUEST;
    assert_int_equal(of_app_send(out, &m), 0);
}

static void app_packet_in(void *arg, struct of_app_switch *sw, const struct ofp_packet_in *pi,
                          uint64_t now_us, struct of_app_out *out)
{
    struct app_log *l = arg;

    (void)now_us;
    (void)out;
    assert_ptr_equal(sw->state, l->state);
    (*(int *)sw->state)++;
    l->packet_in++;
    l->last_in_port_len = pi->data_len;
}

static void app_port_status(void *arg, struct of_app_switch *sw,
                            const struct ofp_port_status *ps, uint64_t now_us,
                            struct of_app_out *out)
{
    struct app_log *l = arg;

    (void)sw;
    (void)now_us;
    (void)out;
    assert_int_equal(ps->desc.port_no, 9);
    l->port_status++;
}

static void app_down(void *arg, struct of_app_switch *sw)
{
    struct app_log *l = arg;

    assert_ptr_equal(sw->state, l->state);
    free(sw->state);
    l->state = NULL;
    sw->state = NULL;
    l->down++;
}

static void test_app_hooks(void **state)
{
    struct wh *h = *state;
    struct ofp_msg m;
    uint8_t frame[60] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1};

    h->app = (struct of_app){.name = "test", .arg = &h->log, .on_switch_up = app_up,
                             .on_packet_in = app_packet_in, .on_port_status = app_port_status,
                             .on_switch_down = app_down};
    h->cfg.apps[0] = &h->app;
    h->cfg.n_apps = 1;
    wh_start(h);
    to_wait_desc(h, CONN, DPID);
    assert_int_equal(h->log.up, 0);
    finish_handshake(h, CONN);
    assert_int_equal(h->log.up, 1);
    assert_int_equal(h->log.dpid, DPID);
    /* What the app sent went to the switch, numbered by the worker. */
    struct out *b = sent(h, CONN, OFPT_BARRIER_REQUEST);
    assert_non_null(b);
    assert_true(b->m.hdr.xid != 0);
    assert_true(b->m.hdr.xid < 0x80000000u);      /* the worker's xids, not the control's */

    msg(&m, OFPT_PACKET_IN, 0);
    m.u.packet_in.buffer_id = OFP_NO_BUFFER;
    m.u.packet_in.total_len = sizeof(frame);
    ofp_match_init(&m.u.packet_in.match);
    ofp_match_set_uint(&m.u.packet_in.match, OFPXMT_OFB_IN_PORT, 1);
    m.u.packet_in.data = frame;
    m.u.packet_in.data_len = sizeof(frame);
    sw_send(h, CONN, &m);
    sw_send(h, CONN, &m);
    assert_int_equal(h->log.packet_in, 2);
    assert_int_equal(*h->log.state, 2);
    assert_int_equal(h->log.last_in_port_len, sizeof(frame));

    msg(&m, OFPT_PORT_STATUS, 0);
    m.u.port_status.reason = OFPPR_ADD;
    m.u.port_status.desc = (struct ofp_port){.port_no = 9, .name = "p9"};
    sw_send(h, CONN, &m);
    assert_int_equal(h->log.port_status, 1);

    conn_event(h, CONN, QMSG_CONN_DOWN, -ECONNRESET);
    assert_int_equal(h->log.down, 1);
    assert_null(h->log.state);

    /* Up again: a fresh state; the worker stopping frees it (teardown). */
    establish(h, conn_handle_make(0, 9, 1), DPID);
    assert_int_equal(h->log.up, 2);
    of_worker_destroy(h->w);
    h->w = NULL;
    assert_int_equal(h->log.down, 2);
    assert_null(h->log.state);
}

/* on_tick: called once its time has come, never before, as often as the app
 * asks and no more; what it tells the control thread arrives as QMSG_EV_APP
 * naming the app; a switch gone gets no tick. */
struct tick_log {
    unsigned ticks;
    uint64_t last_us;
};

static void tick_up(void *arg, struct of_app_switch *sw, uint64_t now_us, struct of_app_out *out)
{
    (void)arg;
    (void)out;
    sw->next_tick_us = now_us + 1000;
}

static void tick_tick(void *arg, struct of_app_switch *sw, uint64_t now_us,
                      struct of_app_out *out)
{
    struct tick_log *l = arg;
    uint64_t n = ++l->ticks;

    l->last_us = now_us;
    assert_int_equal(of_app_event(out, &n, sizeof(n)), 0);
    uint8_t big[OF_APP_EVENT_MAX + 1] = {0};
    assert_int_equal(of_app_event(out, big, sizeof(big)), -EMSGSIZE);
    sw->next_tick_us = l->ticks < 3 ? now_us + 1000 : 0;
}

static void test_app_tick_and_event(void **state)
{
    struct wh *h = *state;
    struct tick_log log = {0};
    struct of_app idle = {.name = "idle"};

    h->app = (struct of_app){.name = "ticker", .arg = &log, .on_switch_up = tick_up,
                             .on_tick = tick_tick};
    h->cfg.apps[0] = &idle;          /* no hooks at all: index 0 */
    h->cfg.apps[1] = &h->app;
    h->cfg.n_apps = 2;
    wh_start(h);
    establish(h, CONN, DPID);
    uint64_t up = h->now;
    poll_at(h, up + 999);
    assert_int_equal(log.ticks, 0);
    poll_at(h, up + 1000);
    assert_int_equal(log.ticks, 1);
    poll_at(h, up + 1500);
    assert_int_equal(log.ticks, 1);
    poll_at(h, up + 5000);           /* late: one tick, not a catch-up burst */
    assert_int_equal(log.ticks, 2);
    poll_at(h, up + 6000);
    assert_int_equal(log.ticks, 3);
    poll_at(h, up + 60000);          /* it asked for no more */
    assert_int_equal(log.ticks, 3);

    unsigned n = 0;
    for (unsigned i = 0; i < h->n_ev; i++) {
        const struct out *o = &h->ev[i];
        if (o->kind != QMSG_EV_APP)
            continue;
        struct of_event_app a;
        uint64_t v;
        assert_int_equal(o->cls, OFP_PRIO_P2);
        assert_int_equal(o->len, sizeof(struct of_event_hdr) + sizeof(a) + sizeof(v));
        assert_int_equal(ev_hdr(o)->dpid, DPID);
        memcpy(&a, o->bytes + sizeof(struct of_event_hdr), sizeof(a));
        memcpy(&v, o->bytes + sizeof(struct of_event_hdr) + sizeof(a), sizeof(v));
        assert_int_equal(a.app, 1);
        assert_int_equal(a.len, sizeof(v));
        assert_int_equal(v, ++n);
    }
    assert_int_equal(n, 3);

    /* Up again, then gone before its first tick: never called. */
    conn_event(h, CONN, QMSG_CONN_DOWN, -ECONNRESET);
    establish(h, conn_handle_make(0, 9, 1), DPID);
    up = h->now;
    conn_event(h, conn_handle_make(0, 9, 1), QMSG_CONN_DOWN, -ECONNRESET);
    poll_at(h, up + 10000);
    assert_int_equal(log.ticks, 3);
}

/* Every buffer the events pool has left, taken (the pool is empty after). */
static void hoard_events(struct wh *h, struct qmsg_fifo *hoard)
{
    struct qmsg *m;

    while ((m = qmsg_alloc(h->event_pool, 0)) != NULL)
        qmsg_fifo_push(hoard, m);
    while ((m = qmsg_alloc(h->event_pool, QMSG_LARGE_DATA)) != NULL)
        qmsg_fifo_push(hoard, m);
}

/* With the events pool empty, an established switch's forwarded replies
 * still reach the control thread (in their own buffers), and so does its
 * end (in the buffer kept for it when it was announced). */
static void test_events_pool_empty_loses_no_event(void **state)
{
    struct wh *h = *state;
    struct qmsg_fifo hoard = {0};
    struct ofp_msg m;

    wh_start(h);
    establish(h, CONN, DPID);
    assert_non_null(event(h, QMSG_EV_SWITCH_UP));
    hoard_events(h, &hoard);

    msg(&m, OFPT_BARRIER_REPLY, 0x80000007u);
    sw_send(h, CONN, &m);
    struct out *b = event(h, QMSG_EV_OF);
    assert_non_null(b);
    assert_int_equal(b->len, sizeof(struct of_event_hdr) + OFP13_HEADER_LEN);
    assert_int_equal(ev_hdr(b)->dpid, DPID);
    assert_int_equal(b->bytes[sizeof(struct of_event_hdr) + 1], OFPT_BARRIER_REPLY);
    assert_int_equal(b->cls, OFP_PRIO_P3);

    conn_event(h, CONN, QMSG_CONN_DOWN, -ECONNRESET);
    struct out *down = event(h, QMSG_EV_SWITCH_DOWN);
    assert_non_null(down);
    assert_int_equal(ev_hdr(down)->dpid, DPID);
    assert_int_equal(stats(h).events_lost, 0);
    qmsg_fifo_free(&hoard);
}

/* A switch that completes its handshake while the events pool is empty is
 * announced once buffers come back; what it said meanwhile waits and
 * follows the announcement, in order. */
static void test_switch_announced_when_events_pool_gives(void **state)
{
    struct wh *h = *state;
    struct qmsg_fifo hoard = {0};
    struct ofp_msg m;

    wh_start(h);
    to_wait_desc(h, CONN, DPID);
    hoard_events(h, &hoard);
    finish_handshake(h, CONN);
    assert_null(event(h, QMSG_EV_SWITCH_UP));
    assert_int_equal(stats(h).events_deferred, 1);
    assert_int_equal(stats(h).switches_up, 1);   /* up for the worker and the apps */

    msg(&m, OFPT_PORT_STATUS, 0);
    m.u.port_status.reason = OFPPR_ADD;
    m.u.port_status.desc = (struct ofp_port){.port_no = 3, .name = "p3"};
    sw_send(h, CONN, &m);
    poll_at(h, h->now + 5 * MS);                  /* still empty: still waiting */
    assert_int_equal(h->n_ev, 0);

    qmsg_fifo_free(&hoard);
    poll_at(h, h->now + 5 * MS);
    assert_true(h->n_ev >= 2);
    assert_int_equal(h->ev[0].kind, QMSG_EV_SWITCH_UP);
    const struct of_event_up *info = (const void *)(h->ev[0].bytes +
                                                    sizeof(struct of_event_hdr));
    assert_int_equal(info->n_ports, 2);
    assert_int_equal(h->ev[1].kind, QMSG_EV_OF);
    assert_int_equal(h->ev[1].bytes[sizeof(struct of_event_hdr) + 1], OFPT_PORT_STATUS);
    assert_int_equal(stats(h).events_deferred, 1);
    assert_int_equal(stats(h).events_lost, 0);

    conn_event(h, CONN, QMSG_CONN_DOWN, -ECONNRESET);
    assert_non_null(event(h, QMSG_EV_SWITCH_DOWN));
}

/* The biggest message OpenFlow allows (65,535 bytes; OVS fills flow-stats
 * parts close to it) reaches the control thread whole, with its event
 * header in front: an OFPT_ERROR carrying that much data. */
static void test_largest_message_forwarded_whole(void **state)
{
    struct wh *h = *state;
    uint8_t *big = calloc(1, 65535);

    assert_non_null(big);
    wh_start(h);
    establish(h, CONN, DPID);
    big[0] = OFP13_VERSION;
    big[1] = OFPT_ERROR;
    big[2] = 0xff;
    big[3] = 0xff;
    big[7] = 5;                                   /* xid 5 */
    big[9] = OFPET_BAD_REQUEST;
    big[11] = OFPBRC_BAD_TYPE;
    for (size_t i = 12; i < 65535; i++)
        big[i] = (uint8_t)i;
    sw_raw(h, CONN, big, 65535);
    struct out *e = event(h, QMSG_EV_OF);
    assert_non_null(e);
    assert_int_equal(e->len, sizeof(struct of_event_hdr) + 65535);
    assert_memory_equal(e->bytes + sizeof(struct of_event_hdr), big, 65535);
    assert_int_equal(stats(h).events_lost, 0);
    free(big);
}

/* A switch flooding PORT_STATUS and malformed messages costs a few log
 * lines a second per kind, not one per message; the next line of a kind
 * that is written says how many of it were suppressed meanwhile. */
static void test_peer_log_lines_rate_limited(void **state)
{
    struct wh *h = *state;
    const uint8_t bad[8] = {OFP13_VERSION, 0x63, 0, 8, 0, 0, 0, 42};
    const unsigned flood = 500;
    struct ofp_msg m;
    char last[1200], want[64];

    h->cfg.malformed_limit = 100000;
    wh_start(h);
    establish(h, CONN, DPID);
    h->lines = ofcd_log_ring_create("worker", 4096);
    assert_non_null(h->lines);
    ofcd_log_use_ring(h->lines);
    for (unsigned i = 0; i < flood; i++) {
        msg(&m, OFPT_PORT_STATUS, 0);
        m.u.port_status.reason = OFPPR_MODIFY;
        m.u.port_status.desc = ports[i & 1];
        sw_send(h, CONN, &m);
        sw_raw(h, CONN, bad, sizeof(bad));
        forget(h->out, &h->n_out);
        forget(h->ev, &h->n_ev);
    }
    char *text = log_capture_text(h->lines, NULL);
    unsigned ps = log_capture_lines_with(text, " port ", NULL, 0);
    unsigned mf = log_capture_lines_with(text, "malformed", NULL, 0);
    free(text);
    if (ps < 1 || ps > 20 || mf < 1 || mf > 20)
        fail_msg("%u PORT_STATUS and %u malformed-message lines for %u of each", ps, mf,
                 flood);
    assert_int_equal(stats(h).port_status, flood);
    assert_int_equal(stats(h).malformed, flood);

    poll_at(h, h->now + SEC);
    msg(&m, OFPT_PORT_STATUS, 0);
    m.u.port_status.reason = OFPPR_MODIFY;
    m.u.port_status.desc = ports[0];
    sw_send(h, CONN, &m);
    sw_raw(h, CONN, bad, sizeof(bad));
    text = log_capture_text(h->lines, NULL);
    assert_int_equal(log_capture_lines_with(text, " port ", last, sizeof(last)), 1);
    snprintf(want, sizeof(want), "(%u similar lines suppressed)", flood - ps);
    if (!strstr(last, want))
        fail_msg("\"%s\" lacks \"%s\"", last, want);
    assert_non_null(strstr(last, "switch 0000000000001001"));
    assert_int_equal(log_capture_lines_with(text, "malformed", last, sizeof(last)), 1);
    snprintf(want, sizeof(want), "(%u similar lines suppressed)", flood - mf);
    if (!strstr(last, want))
        fail_msg("\"%s\" lacks \"%s\"", last, want);
    free(text);
    forget(h->out, &h->n_out);
    forget(h->ev, &h->n_ev);
}

/* ---- cluster mode: only the switch's confirmed master sends what changes it -------- */

/* What the gate test app's sends returned; it sends a FLOW_MOD at switch up
 * and a FLOW_MOD, a PACKET_OUT and a BARRIER_REQUEST for each PACKET_IN. */
struct gate_log {
    int up_flow;
    int flow, out, barrier;
};

static int gate_send(struct of_app_out *out, uint8_t type)
{
    static const uint8_t frame[60] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1};
    struct ofp_msg m;

    memset(&m, 0, sizeof(m));
    m.hdr.version = OFP13_VERSION;
    m.hdr.type = type;
    if (type == OFPT_FLOW_MOD) {
        m.u.flow_mod.command = OFPFC_ADD;
        m.u.flow_mod.buffer_id = OFP_NO_BUFFER;
        m.u.flow_mod.out_port = OFPP_ANY;
        m.u.flow_mod.out_group = OFPG_ANY;
        ofp_match_init(&m.u.flow_mod.match);
    } else if (type == OFPT_PACKET_OUT) {
        m.u.packet_out.buffer_id = OFP_NO_BUFFER;
        m.u.packet_out.in_port = OFPP_CONTROLLER;
        m.u.packet_out.data = frame;
        m.u.packet_out.data_len = sizeof(frame);
    }
    return of_app_send(out, &m);
}

static void gate_up(void *arg, struct of_app_switch *sw, uint64_t now_us, struct of_app_out *out)
{
    struct gate_log *l = arg;

    (void)sw;
    (void)now_us;
    l->up_flow = gate_send(out, OFPT_FLOW_MOD);
}

static void gate_packet_in(void *arg, struct of_app_switch *sw, const struct ofp_packet_in *pi,
                           uint64_t now_us, struct of_app_out *out)
{
    struct gate_log *l = arg;

    (void)sw;
    (void)pi;
    (void)now_us;
    l->flow = gate_send(out, OFPT_FLOW_MOD);
    l->out = gate_send(out, OFPT_PACKET_OUT);
    l->barrier = gate_send(out, OFPT_BARRIER_REQUEST);
}

/* A worker with the gate app (role_gate as asked, may_act pointing at
 * h->may_act, true) and switch DPID established on CONN. */
static void gate_start(struct wh *h, struct gate_log *l, bool gate)
{
    h->app = (struct of_app){.name = "gate", .arg = l, .on_switch_up = gate_up,
                             .on_packet_in = gate_packet_in};
    h->cfg.apps[0] = &h->app;
    h->cfg.n_apps = 1;
    h->cfg.role_gate = gate;
    atomic_store(&h->may_act, true);
    h->cfg.may_act = &h->may_act;
    wh_start(h);
    establish(h, CONN, DPID);
}

static void gate_end(struct wh *h)
{
    forget(h->out, &h->n_out);
    forget(h->ev, &h->n_ev);
}

/* The switch sends a PACKET_IN on conn: the gate app answers it. */
static void gate_packet(struct wh *h, conn_handle_t conn)
{
    static const uint8_t frame[60] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 2};
    struct ofp_msg m;

    msg(&m, OFPT_PACKET_IN, 0);
    m.u.packet_in.buffer_id = OFP_NO_BUFFER;
    m.u.packet_in.total_len = sizeof(frame);
    ofp_match_init(&m.u.packet_in.match);
    ofp_match_set_uint(&m.u.packet_in.match, OFPXMT_OFB_IN_PORT, 1);
    m.u.packet_in.data = frame;
    m.u.packet_in.data_len = sizeof(frame);
    sw_send(h, conn, &m);
}

/* The switch answers the cluster's ROLE_REQUEST (control xid) with role. */
static void role_reply(struct wh *h, conn_handle_t conn, uint32_t role)
{
    struct ofp_msg m;

    msg(&m, OFPT_ROLE_REPLY, OFP_XID_CONTROL | 7);
    m.u.role.role = role;
    m.u.role.generation_id = 42;
    sw_send(h, conn, &m);
}

static void sw_error(struct wh *h, conn_handle_t conn, uint16_t type, uint16_t code)
{
    static const uint8_t req[24] = {OFP13_VERSION, OFPT_ROLE_REQUEST, 0, 24, 0x80, 0, 0, 7};
    struct ofp_msg m;

    msg(&m, OFPT_ERROR, OFP_XID_CONTROL | 7);
    m.u.error.type = type;
    m.u.error.code = code;
    m.u.error.data = req;
    m.u.error.data_len = sizeof(req);
    sw_send(h, conn, &m);
}

/* A PACKET_IN, and whether the app's FLOW_MOD and PACKET_OUT went out (the
 * BARRIER_REQUEST always does). */
static bool gate_open(struct wh *h, struct gate_log *l, conn_handle_t conn)
{
    uint64_t refused = stats(h).app_sends_not_master;

    gate_packet(h, conn);
    assert_int_equal(l->barrier, 0);
    assert_non_null(sent(h, conn, OFPT_BARRIER_REQUEST));
    struct out *fm = sent(h, conn, OFPT_FLOW_MOD), *po = sent(h, conn, OFPT_PACKET_OUT);
    if (l->flow == 0) {
        assert_int_equal(l->out, 0);
        assert_non_null(fm);
        assert_non_null(po);
        assert_int_equal(stats(h).app_sends_not_master, refused);
        return true;
    }
    assert_int_equal(l->flow, -EPERM);
    assert_int_equal(l->out, -EPERM);
    assert_null(fm);
    assert_null(po);
    assert_int_equal(stats(h).app_sends_not_master, refused + 2);
    return false;
}

/* Nothing that changes the switch before it confirmed this node as master,
 * not even the app's take-over at switch up; the rest goes out. */
static void test_gate_refuses_before_role_reply(void **state)
{
    struct wh *h = *state;
    struct gate_log l = {0};

    gate_start(h, &l, true);
    assert_int_equal(l.up_flow, -EPERM);
    assert_null(sent(h, CONN, OFPT_FLOW_MOD));
    assert_int_equal(stats(h).app_sends_not_master, 1);
    assert_false(gate_open(h, &l, CONN));
    gate_end(h);
}

/* The role the switch last confirmed decides: MASTER opens, SLAVE or
 * EQUAL closes, a refused role request (a stale generation) or the switch
 * saying "you are a slave" closes; the ROLE_REPLY still reaches the control
 * thread. */
static void test_gate_follows_switch_confirmed_role(void **state)
{
    struct wh *h = *state;
    struct gate_log l = {0};

    gate_start(h, &l, true);
    role_reply(h, CONN, OFPCR_ROLE_MASTER);
    struct out *fwd = event(h, QMSG_EV_OF);
    assert_non_null(fwd);
    assert_int_equal(fwd->bytes[sizeof(struct of_event_hdr) + 1], OFPT_ROLE_REPLY);
    assert_true(gate_open(h, &l, CONN));

    role_reply(h, CONN, OFPCR_ROLE_SLAVE);
    assert_false(gate_open(h, &l, CONN));
    role_reply(h, CONN, OFPCR_ROLE_MASTER);
    assert_true(gate_open(h, &l, CONN));
    role_reply(h, CONN, OFPCR_ROLE_EQUAL);
    assert_false(gate_open(h, &l, CONN));

    role_reply(h, CONN, OFPCR_ROLE_MASTER);
    sw_error(h, CONN, OFPET_ROLE_REQUEST_FAILED, OFPRRFC_STALE);
    assert_false(gate_open(h, &l, CONN));
    role_reply(h, CONN, OFPCR_ROLE_MASTER);
    sw_error(h, CONN, OFPET_BAD_REQUEST, OFPBRC_IS_SLAVE);
    assert_false(gate_open(h, &l, CONN));
    /* Another error says nothing about the role. */
    role_reply(h, CONN, OFPCR_ROLE_MASTER);
    sw_error(h, CONN, OFPET_FLOW_MOD_FAILED, OFPFMFC_TABLE_FULL);
    assert_true(gate_open(h, &l, CONN));
    gate_end(h);
}

/* The node's fence: a confirmed master sends nothing while the node may
 * not act (its lease unproven), and again once it may. */
static void test_gate_node_may_not_act(void **state)
{
    struct wh *h = *state;
    struct gate_log l = {0};

    gate_start(h, &l, true);
    role_reply(h, CONN, OFPCR_ROLE_MASTER);
    atomic_store(&h->may_act, false);
    assert_false(gate_open(h, &l, CONN));
    atomic_store(&h->may_act, true);
    assert_true(gate_open(h, &l, CONN));
    gate_end(h);
}

/* Mastership belongs to a connection: the switch back on a new one (after
 * a disconnect, or replacing its stale connection) starts refused. */
static void test_gate_reconnect_starts_refused(void **state)
{
    struct wh *h = *state;
    struct gate_log l = {0};
    conn_handle_t c2 = conn_handle_make(0, 9, 1), c3 = conn_handle_make(0, 11, 1);

    gate_start(h, &l, true);
    role_reply(h, CONN, OFPCR_ROLE_MASTER);
    assert_true(gate_open(h, &l, CONN));
    conn_event(h, CONN, QMSG_CONN_DOWN, -ECONNRESET);

    establish(h, c2, DPID);
    assert_int_equal(l.up_flow, -EPERM);
    assert_false(gate_open(h, &l, c2));
    role_reply(h, c2, OFPCR_ROLE_MASTER);
    assert_true(gate_open(h, &l, c2));
    /* c2 never answers the claim's echo: c3 replaces it, and starts refused. */
    to_wait_desc(h, c3, DPID);
    poll_at(h, h->now + 2 * SEC);
    finish_handshake(h, c3);
    assert_int_equal(stats(h).dpid_claims_evicted, 1);
    assert_false(gate_open(h, &l, c3));
    gate_end(h);
}

/* Without the gate (every single node), the apps send as they always did:
 * no role asked, no role confirmed, the node's flag ignored. */
static void test_gate_off_sends_everything(void **state)
{
    struct wh *h = *state;
    struct gate_log l = {0};

    gate_start(h, &l, false);
    assert_int_equal(l.up_flow, 0);
    assert_non_null(sent(h, CONN, OFPT_FLOW_MOD));
    atomic_store(&h->may_act, false);
    assert_true(gate_open(h, &l, CONN));
    role_reply(h, CONN, OFPCR_ROLE_SLAVE);
    assert_true(gate_open(h, &l, CONN));
    assert_int_equal(stats(h).app_sends_not_master, 0);
    gate_end(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_handshake_to_established, setup, teardown),
        cmocka_unit_test_setup_teardown(test_held_until_established, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_answered_then_cut_off, setup, teardown),
        cmocka_unit_test_setup_teardown(test_handshake_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hello_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stats_poller_skips_pending, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dpid_claim_refused_while_live_answers, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_dpid_claim_evicts_silent_live, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reconnect_replaces_unestablished, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_app_hooks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_app_tick_and_event, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ports_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gone_switch_forgotten, setup, teardown),
        cmocka_unit_test_setup_teardown(test_switches_known_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ports_freed_at_disconnect, setup, teardown),
        cmocka_unit_test_setup_teardown(test_forget_sweep_visits_only_expired, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_multipart_unsolicited_and_oversized, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_events_pool_empty_loses_no_event, setup, teardown),
        cmocka_unit_test_setup_teardown(test_switch_announced_when_events_pool_gives, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_largest_message_forwarded_whole, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_peer_log_lines_rate_limited, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gate_refuses_before_role_reply, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gate_follows_switch_confirmed_role, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_gate_node_may_not_act, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gate_reconnect_starts_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gate_off_sends_everything, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
