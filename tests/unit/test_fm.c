/*
 * test_fm: the flow manager's promises, with a fake way to the
 * switches (struct fm_env), a fake clock and a real store, the
 * memory backend (the same contract as LMDB's, test_store; no disk):
 * FLOW_MODs then one BARRIER per batch in class P3; the barrier reply marks
 * the batch installed (and covers an earlier batch whose barrier could not
 * be sent); an OFPT_ERROR with a FLOW_MOD's xid marks that flow error with
 * the switch's type/code; pacing per owner and ring room delay but never
 * drop; a reconnecting switch gets a flow-stats request and its missing
 * flows re-installed; the consistency check deletes old aliens only outside
 * the ignore ranges; non-strict DELETE selection; stored flows survive a
 * restart of the flow manager; ofcdctl's fm/queue shows what waits.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow_json.h"
#include "fm.h"
#include "fm_change.h"
#include "fm_stored.h"
#include "fm_priv.h"
#include "ofcd_ctl.h"      /* the xid counter, to start a test near the wrap */
#include "of_event.h"
#include "log_capture.h"
#include "ofp_msg.h"
#include "store.h"

#define DPID 0x1001ull
#define CONN_A 0x0000000100000001ull
#define CONN_B 0x0000000200000002ull
#define MS 1000ull

struct sent {
    uint8_t type;
    uint8_t cls;
    uint32_t xid;
    conn_handle_t conn;
    struct ofp_flow_mod fm;        /* FLOW_MOD: decoded (match/command/priority) */
};

struct t {
    struct store *store;
    struct fm *fm;
    struct fm_cfg cfg;
    struct sent sent[512];
    unsigned n_sent;
    unsigned room;
    bool not_master;               /* env.may_write answers false (a cluster's slave) */
    int refuse_type;               /* this message type is refused once (-1: none) */
    uint64_t now;
    char events[1024];             /* what env.event heard: "kind field=value..." lines */
};

static unsigned f_room(void *arg, conn_handle_t conn, uint8_t cls)
{
    (void)conn;
    (void)cls;
    return ((struct t *)arg)->room;
}

static int f_send(void *arg, conn_handle_t conn, const uint8_t *msg, size_t len, uint8_t cls)
{
    struct t *t = arg;
    struct ofp_msg m;
    struct ofp_err err;

    if (msg[1] == t->refuse_type) {
        t->refuse_type = -1;
        return -ENOBUFS;
    }
    assert_true(t->n_sent < 512);
    assert_int_equal(ofp_decode(msg, len, &m, &err), 0);
    struct sent *s = &t->sent[t->n_sent++];
    memset(s, 0, sizeof(*s));
    s->type = msg[1];
    s->cls = cls;
    s->xid = m.hdr.xid;
    s->conn = conn;
    if (s->type == OFPT_FLOW_MOD) {
        s->fm = m.u.flow_mod;
        s->fm.inst.apply_actions.wire = NULL;   /* views into msg: not kept */
        s->fm.inst.write_actions.wire = NULL;
    }
    return 0;
}

static bool f_may_write(void *arg, uint64_t dpid)
{
    (void)dpid;
    return !((struct t *)arg)->not_master;
}

static uint64_t f_now(void *arg)
{
    return ((struct t *)arg)->now;
}

/* Every field of the typed event, one line (the JSON they become on the
 * stream is test_events_pub's). */
static void f_event(void *arg, const struct fm_event *ev)
{
    struct t *t = arg;
    size_t n = strlen(t->events);
    char *p = t->events + n;
    size_t room = sizeof(t->events) - n;

    switch (ev->kind) {
    case FM_EV_INSTALLED:
        snprintf(p, room, "flow.installed dpid=%016" PRIx64 " count=%" PRIu64 "\n", ev->dpid,
                 ev->u.installed.count);
        break;
    case FM_EV_ERROR:
        snprintf(p, room, "flow.error dpid=%016" PRIx64 " match_id=%016" PRIx64 " type=%u "
                 "code=%u reason=%s\n", ev->dpid, ev->u.error.match_id, ev->u.error.type,
                 ev->u.error.code, ev->u.error.reason);
        break;
    case FM_EV_REMOVED: {
        const struct fm_ev_removed *r = &ev->u.removed;
        snprintf(p, room, "flow.removed dpid=%016" PRIx64 " match_id=%016" PRIx64 " stored=%d "
                 "cookie=%#" PRIx64 " table_id=%u priority=%u reason=%u duration_s=%u "
                 "packet_count=%" PRIu64 " byte_count=%" PRIu64 "\n", ev->dpid, r->match_id,
                 r->stored, r->cookie, r->table_id, r->priority, r->reason, r->duration_s,
                 r->packet_count, r->byte_count);
        break;
    }
    case FM_EV_DELETED:
        snprintf(p, room, "flow.deleted dpid=%016" PRIx64 " count=%" PRIu64 "\n", ev->dpid,
                 ev->u.deleted.count);
        break;
    case FM_EV_CONSISTENCY:
        snprintf(p, room, "consistency dpid=%016" PRIx64 " after_connect=%d aliens_deleted=%"
                 PRIu64 " missing_reinstalled=%" PRIu64 " changed_reinstalled=%" PRIu64 "\n",
                 ev->dpid, ev->u.consistency.after_connect, ev->u.consistency.aliens_deleted,
                 ev->u.consistency.missing_reinstalled, ev->u.consistency.changed_reinstalled);
        break;
    }
}

#define SEC_US 1000000ull

static struct fm *open_fm(struct t *t)
{
    struct fm_env env = {.arg = t, .room = f_room, .send = f_send, .now_us = f_now,
                              .decode = flow_json_record, .event = f_event,
                              .may_write = f_may_write};
    return fm_create(&t->cfg, &env, t->store);
}

/* A new flow manager on the same store, with t->cfg as it is now (a
 * restart, or another configuration). */
static void reopen(struct t *t)
{
    fm_destroy(t->fm);
    t->fm = open_fm(t);
    assert_non_null(t->fm);
}

static int setup(void **state)
{
    struct t *t = calloc(1, sizeof(*t));
    assert_non_null(t);
    struct store_config sc = {.backend = STORE_BACKEND_MEMORY};
    t->store = store_open(&sc);
    assert_non_null(t->store);
    t->cfg.queue_max = 1000;
    t->cfg.consistency = true;
    t->cfg.window_us = 10000 * MS;
    t->room = 1000;
    t->refuse_type = -1;
    t->now = 1000000 * MS;
    t->fm = open_fm(t);
    assert_non_null(t->fm);
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    struct t *t = *state;
    store_close(t->store);              /* ofcd's order: app/main.c close_flow_store */
    fm_destroy(t->fm);
    free(t);
    return 0;
}

/* ---- events --------------------------------------------------------------------- */

static void event_dp(struct t *t, uint64_t dpid, uint16_t kind, conn_handle_t conn,
                     const uint8_t *msg, size_t len)
{
    struct of_event_hdr h = {.dpid = dpid, .time_us = t->now};
    struct qmsg *q = calloc(1, sizeof(*q) + sizeof(h) + len);
    assert_non_null(q);
    q->kind = kind;
    q->conn = conn;
    q->len = (uint32_t)(sizeof(h) + len);
    memcpy(q->data, &h, sizeof(h));
    if (len)
        memcpy(q->data + sizeof(h), msg, len);
    fm_on_event(t->fm, q);
    free(q);
}

static void event(struct t *t, uint16_t kind, conn_handle_t conn, const uint8_t *msg,
                  size_t len)
{
    event_dp(t, DPID, kind, conn, msg, len);
}

static void of_event_dp(struct t *t, uint64_t dpid, conn_handle_t conn, const struct ofp_msg *m)
{
    static uint8_t buf[65536];
    struct ofp_buf b;
    ofp_buf_init(&b, buf, sizeof(buf));
    assert_int_equal(ofp_encode(&b, m), 0);
    event_dp(t, dpid, QMSG_EV_OF, conn, b.data, b.len);
}

static void of_event(struct t *t, conn_handle_t conn, const struct ofp_msg *m)
{
    of_event_dp(t, DPID, conn, m);
}

static void msg_init(struct ofp_msg *m, uint8_t type, uint32_t xid)
{
    memset(m, 0, sizeof(*m));
    m->hdr.version = OFP13_VERSION;
    m->hdr.type = type;
    m->hdr.xid = xid;
}

static void barrier_reply(struct t *t, conn_handle_t conn, uint32_t xid)
{
    struct ofp_msg m;
    msg_init(&m, OFPT_BARRIER_REPLY, xid);
    of_event(t, conn, &m);
}

static void error_reply(struct t *t, conn_handle_t conn, uint32_t xid, uint16_t type,
                        uint16_t code)
{
    struct ofp_msg m;
    static const uint8_t data[8] = {OFP13_VERSION, OFPT_FLOW_MOD};
    msg_init(&m, OFPT_ERROR, xid);
    m.u.error.type = type;
    m.u.error.code = code;
    m.u.error.data = data;
    m.u.error.data_len = sizeof(data);
    of_event(t, conn, &m);
}

/* One part of a FLOW statistics reply of dpid, n entries (more: REPLY_MORE). */
static void flow_stats_part(struct t *t, uint64_t dpid, conn_handle_t conn, uint32_t xid,
                            const struct ofp_flow_stats *fs, unsigned n, bool more)
{
    static uint8_t body[32768];
    struct ofp_buf b;
    struct ofp_msg m;
    ofp_buf_init(&b, body, sizeof(body));
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(ofp_flow_stats_put(&b, &fs[i]), 0);
    msg_init(&m, OFPT_MULTIPART_REPLY, xid);
    m.u.mp_reply.type = OFPMP_FLOW;
    m.u.mp_reply.flags = more ? OFPMPF_REPLY_MORE : 0;
    m.u.mp_reply.body = body;
    m.u.mp_reply.body_len = (uint16_t)b.len;
    of_event_dp(t, dpid, conn, &m);
}

/* A FLOW statistics reply of n entries (one part). */
static void flow_stats_reply(struct t *t, conn_handle_t conn, uint32_t xid,
                             const struct ofp_flow_stats *fs, unsigned n)
{
    flow_stats_part(t, DPID, conn, xid, fs, n, false);
}

/* ---- helpers ------------------------------------------------------------------------ */

struct added {
    struct fm_flow flow;
    uint64_t match_id, flow_id;
};

/* What rest_flows.c does for one flow: parse, store durably, hand over. */
static void add_flow(struct t *t, const char *json, struct added *out)
{
    char err[256];
    json_error_t je;
    json_t *j = json_loads(json, 0, &je);
    assert_non_null(j);
    if (flow_json_parse_json(j, false, &out->flow, NULL, err, sizeof(err)) != 0)
        fail_msg("%s: %s", json, err);
    out->match_id = fm_flow_match_id(DPID, &out->flow);
    out->flow_id = fm_flow_id(DPID, &out->flow);
    struct store_flow sf = {.dpid = DPID, .match_id = out->match_id, .flow_id = out->flow_id,
                            .state = STORE_FLOW_PENDING, .json = json, .json_len = strlen(json)};
    assert_int_equal(store_put(t->store, &sf), 0);
    assert_int_equal(fm_add(t->fm, DPID, &out->flow, &out->match_id, &out->flow_id, 1), 0);
    json_decref(j);
}

static void add_n(struct t *t, unsigned n, struct added *a)
{
    char json[256];
    for (unsigned i = 0; i < n; i++) {
        snprintf(json, sizeof(json), "{\"priority\": %u, \"match\": {\"in_port\": %u},"
                 " \"actions\": [{\"action_type\": \"output\", \"port\": 2}]}", 100 + i, i + 1);
        add_flow(t, json, &a[i]);
    }
}

/* n flows stored, then handed to the flow manager in one call (one batch)
 * with held FLOW_MODs admitted for them. */
static void add_batch(struct t *t, unsigned n, unsigned first, struct added *a, size_t held)
{
    struct fm_add_one adds[16];
    uint8_t wires[16][FM_FLOW_WIRE_SMALL];
    char json[160], err[128];

    assert_true(n <= 16);
    for (unsigned i = 0; i < n; i++) {
        snprintf(json, sizeof(json), "{\"priority\": %u, \"match\": {\"in_port\": %u}}",
                 100 + first + i, first + i + 1);
        json_t *j = json_loads(json, 0, NULL);
        assert_int_equal(flow_json_parse_json(j, false, &a[i].flow, NULL, err, sizeof(err)), 0);
        json_decref(j);
        a[i].match_id = fm_flow_match_id(DPID, &a[i].flow);
        a[i].flow_id = fm_flow_id(DPID, &a[i].flow);
        adds[i] = (struct fm_add_one){a[i].match_id, a[i].flow_id, a[i].flow.owner,
                                           wires[i], 0};
        assert_int_equal(fm_flow_mod_encode(&a[i].flow.mod, wires[i], sizeof(wires[i]),
                                            &adds[i].len), 0);
        struct store_flow sf = {.dpid = DPID, .match_id = a[i].match_id,
                                .flow_id = a[i].flow_id, .json = json, .json_len = strlen(json)};
        assert_int_equal(store_put(t->store, &sf), 0);
    }
    assert_int_equal(fm_add_admitted(t->fm, DPID, adds, n, held), 0);
}

static int state_of(struct t *t, const struct added *a, uint16_t *etype, uint16_t *ecode)
{
    struct store_flow f;
    assert_int_equal(store_sync(t->store), 0);
    if (store_get(t->store, DPID, a->match_id, &f) < 0)
        return -1;
    int st = (int)f.state;
    if (etype)
        *etype = f.err_type;
    if (ecode)
        *ecode = f.err_code;
    store_flow_release(&f);
    return st;
}

static unsigned count_type(const struct t *t, unsigned from, uint8_t type)
{
    unsigned n = 0;
    for (unsigned i = from; i < t->n_sent; i++)
        n += t->sent[i].type == type;
    return n;
}

static const struct sent *last_of(const struct t *t, uint8_t type)
{
    for (unsigned i = t->n_sent; i-- > 0;)
        if (t->sent[i].type == type)
            return &t->sent[i];
    return NULL;
}

static void switch_up_dp(struct t *t, uint64_t dpid, conn_handle_t conn)
{
    unsigned before = t->n_sent;
    event_dp(t, dpid, QMSG_EV_SWITCH_UP, conn, NULL, 0);
    /* It asks the switch for its flows at once (statistics class). */
    assert_int_equal(t->n_sent, before + 1);
    assert_int_equal(t->sent[before].type, OFPT_MULTIPART_REQUEST);
    assert_int_equal(t->sent[before].cls, OFP_PRIO_P1);
    assert_true(t->sent[before].xid & 0x80000000u);
}

static void switch_up(struct t *t, conn_handle_t conn)
{
    switch_up_dp(t, DPID, conn);
}

/* ---- tests ---------------------------------------------------------------------------- */

static void test_batch_then_barrier_installs(void **state)
{
    struct t *t = *state;
    struct added a[3];
    struct fm_stats st;

    assert_int_equal(fm_state(t->fm, DPID), FM_SW_UNKNOWN);
    switch_up(t, CONN_A);
    assert_int_equal(fm_state(t->fm, DPID), FM_SW_UP);
    unsigned from = t->n_sent;
    add_n(t, 3, a);
    /* Each request is its own batch: FLOW_MOD then BARRIER, all in P3, on
     * the switch's connection, with control-thread xids. */
    assert_int_equal(t->n_sent - from, 6);
    for (unsigned i = from; i < t->n_sent; i++) {
        assert_int_equal(t->sent[i].type, (i - from) % 2 ? OFPT_BARRIER_REQUEST : OFPT_FLOW_MOD);
        assert_int_equal(t->sent[i].cls, OFP_PRIO_P3);
        assert_int_equal(t->sent[i].conn, CONN_A);
        assert_true(t->sent[i].xid & 0x80000000u);
    }
    assert_int_equal(t->sent[from].fm.command, OFPFC_ADD);
    assert_int_equal(t->sent[from].fm.priority, 100);
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(state_of(t, &a[i], NULL, NULL), STORE_FLOW_PENDING);
    /* The mirror keeps each ADD packed (fm_pack.h): 31 bytes less a flow. */
    const struct fm_switch *msw = fm_switch_find(t->fm, DPID);
    unsigned mirrored = 0;
    for (size_t b = 0; b < msw->n_buckets; b++)
        for (const struct fm_entry *f = msw->buckets[b]; f; f = f->hnext, mirrored++)
            assert_true(f->packed);
    assert_int_equal(mirrored, 3);
    /* The last barrier's reply answers for every batch before it. */
    barrier_reply(t, CONN_A, last_of(t, OFPT_BARRIER_REQUEST)->xid);
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(state_of(t, &a[i], NULL, NULL), STORE_FLOW_INSTALLED);
    /* One event for the reply, with every flow it installed. */
    assert_string_equal(t->events, "flow.installed dpid=0000000000001001 count=3\n");
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.confirmed, 3);
    assert_int_equal(st.flows_by_state[STORE_FLOW_INSTALLED], 3);
    assert_int_equal(st.flows_by_state[STORE_FLOW_PENDING], 0);
    /* A reply on a stale connection or with a foreign xid changes nothing. */
    barrier_reply(t, CONN_B, 0x80000001u);
    barrier_reply(t, CONN_A, 12345);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.barrier_replies, 1);
}

static void test_error_marks_that_flow(void **state)
{
    struct t *t = *state;
    struct added a[2];
    uint16_t et, ec;

    switch_up(t, CONN_A);
    unsigned from = t->n_sent;
    add_n(t, 2, a);
    const struct sent *second = &t->sent[from + 2];
    assert_int_equal(second->type, OFPT_FLOW_MOD);
    error_reply(t, CONN_A, second->xid, OFPET_BAD_ACTION, OFPBAC_BAD_OUT_GROUP);
    assert_int_equal(state_of(t, &a[1], &et, &ec), STORE_FLOW_ERROR);
    assert_int_equal(et, OFPET_BAD_ACTION);
    assert_int_equal(ec, OFPBAC_BAD_OUT_GROUP);
    char want[160];
    snprintf(want, sizeof(want), "flow.error dpid=0000000000001001 match_id=%016" PRIx64
             " type=2 code=9 reason=", a[1].match_id);
    assert_non_null(strstr(t->events, want));
    barrier_reply(t, CONN_A, last_of(t, OFPT_BARRIER_REQUEST)->xid);
    assert_int_equal(state_of(t, &a[0], NULL, NULL), STORE_FLOW_INSTALLED);
    assert_int_equal(state_of(t, &a[1], NULL, NULL), STORE_FLOW_ERROR);
}

/* A switch answering with errors for xids the flow manager never had in
 * flight, by the hundred: a few log lines a second, the next one saying
 * how many were suppressed. */
static void test_switch_errors_rate_limited(void **state)
{
    struct t *t = *state;
    struct ofcd_log_ring *r = ofcd_log_ring_create("control", 1024);
    char last[1200] = "", want[64];

    assert_non_null(r);
    switch_up(t, CONN_A);
    ofcd_log_use_ring(r);
    for (uint32_t i = 0; i < 300; i++)
        error_reply(t, CONN_A, 0x80000000u | (0x1000000u + i), OFPET_BAD_REQUEST,
                    OFPBRC_BAD_TYPE);
    char *text = log_capture_text(r, NULL);
    unsigned n = log_capture_lines_with(text, "no FLOW_MOD in flight", last, sizeof(last));
    free(text);
    if (n < 1 || n > 10)
        fail_msg("%u lines for 300 stray errors", n);
    t->now += SEC_US;
    error_reply(t, CONN_A, 0x80000000u | 0x2000000u, OFPET_BAD_REQUEST, OFPBRC_BAD_TYPE);
    text = log_capture_text(r, NULL);
    unsigned again = log_capture_lines_with(text, "no FLOW_MOD in flight", last, sizeof(last));
    free(text);
    assert_int_equal(again, 1);
    ofcd_log_use_ring(NULL);
    ofcd_log_ring_destroy(r);
    snprintf(want, sizeof(want), "(%u similar lines suppressed)", 300 - n);
    if (!strstr(last, want))
        fail_msg("\"%s\" lacks \"%s\"", last, want);
    assert_non_null(strstr(last, "switch 0000000000001001"));
}

static void test_pacing_delays_never_drops(void **state)
{
    struct t *t = *state;
    struct added a[5];
    struct fm_stats st;

    /* Reopen with 10 FLOW_MODs/s per owner: a burst of 1. */
    t->cfg.pacing_per_s = 10;
    reopen(t);
    switch_up(t, CONN_A);
    unsigned from = t->n_sent;
    add_n(t, 5, a);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 1);
    fm_tick(t->fm);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 1);
    t->now += 100 * MS;
    fm_tick(t->fm);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 2);
    /* Idle time does not bank more than the burst. */
    t->now += 10000 * MS;
    fm_tick(t->fm);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 3);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.queued, 2);
    assert_true(st.paced > 0);
    for (int i = 0; i < 2; i++) {
        t->now += 100 * MS;
        fm_tick(t->fm);
    }
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 5);
    /* In order. */
    unsigned k = 0;
    for (unsigned i = from; i < t->n_sent; i++)
        if (t->sent[i].type == OFPT_FLOW_MOD)
            assert_int_equal(t->sent[i].fm.priority, 100 + k++);
    /* 503 territory: more than queue_max waiting. */
    t->cfg.queue_max = 16;
    reopen(t);
    switch_up(t, CONN_B);
    struct added b[20];
    add_n(t, 18, b);
    unsigned retry = 0;
    assert_int_equal(fm_admit(t->fm, DPID, 10, &retry), -EBUSY);
    assert_true(retry >= 1);
    assert_int_equal(fm_admit(t->fm, 0x999, 10, &retry), 0);
    fm_admit_cancel(t->fm, 0x999, 10);
    /* Checked on every request, also with nothing waiting: one that alone
     * is more than queue_max can never fit. */
    assert_int_equal(fm_admit(t->fm, 0x999, 17, &retry), -E2BIG);
    assert_int_equal(fm_admit(t->fm, 0x999, 16, &retry), 0);
}

/* fm/queue's text for words, its status in *rc: malloc'd. */
static char *fm_queue_text(struct t *t, int argc, char **argv, int *rc)
{
    struct ofcd_ctl *c = ofcd_ctl_create();
    struct ofcd_ctl_out out;

    assert_int_equal(fm_ctl_register(t->fm, c), 0);
    ofcd_ctl_out_init(&out, OFCD_CTL_REPLY_MAX);
    *rc = ofcd_ctl_execute(c, argc, argv, &out);
    char *text = strdup(out.buf ? out.buf : "");
    ofcd_ctl_out_free(&out);
    ofcd_ctl_destroy(c);
    return text;
}

/* fm/queue: per switch what waits for pacing, what admitted requests hold
 * and what is sent but not confirmed; with a dpid, each owner's queue. */
static void test_fm_queue_shows_waiting(void **state)
{
    struct t *t = *state;
    struct added a[5];
    unsigned retry;
    int rc;

    t->cfg.pacing_per_s = 10;
    reopen(t);
    switch_up(t, CONN_A);
    add_n(t, 5, a);                             /* 1 sent (burst of 1), 4 wait */
    assert_int_equal(fm_admit(t->fm, DPID, 3, &retry), 0);
    char *text = fm_queue_text(t, 1, (char *[]){"fm/queue"}, &rc);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(text, "1 switches; FLOW_MODs waiting 4, reserved 3\n"));
    assert_non_null(strstr(text, "00:00:00:00:00:00:10:01 up   queued 4 reserved 3 "
                                 "in_flight 1 (1 batches) flows 5\n"));
    free(text);
    text = fm_queue_text(t, 2, (char *[]){"fm/queue", "00:00:00:00:00:00:10:01"}, &rc);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(text, "  owner (none): queued 4, pacing tokens "));
    free(text);
    text = fm_queue_text(t, 2, (char *[]){"fm/queue", "0x77"}, &rc);
    assert_int_equal(rc, -EINVAL);
    free(text);
    text = fm_queue_text(t, 2, (char *[]){"fm/queue", "77"}, &rc);
    assert_int_equal(rc, -ENOENT);
    assert_non_null(strstr(text, "no switch 000000000000004d"));
    free(text);
    fm_admit_cancel(t->fm, DPID, 3);
}

/* Flows still waiting for their pacing turn are in flight: a check in the
 * meantime must not queue them a second time. */
static void test_paced_flows_not_requeued(void **state)
{
    struct t *t = *state;
    struct added a[3];
    struct fm_stats st;

    t->cfg.pacing_per_s = 10;
    reopen(t);
    switch_up(t, CONN_A);
    unsigned from = t->n_sent;
    add_n(t, 3, a);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 1);
    /* A window later the switch reports none of them. */
    t->now += 20000 * MS;
    flow_stats_reply(t, CONN_A, 0x200, NULL, 0);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.missing_reinstalled, 0);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD) + st.queued, 3);
}

static void test_ring_room_and_lost_barrier(void **state)
{
    struct t *t = *state;
    struct added a[5], b[1];

    switch_up(t, CONN_A);
    /* Room for 3: two FLOW_MODs and the barrier; the rest wait. */
    t->room = 3;
    unsigned from = t->n_sent;
    struct added all[5];
    add_batch(t, 5, 10, all, 0);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 2);
    assert_int_equal(count_type(t, from, OFPT_BARRIER_REQUEST), 1);
    /* The next batch's barrier does not fit: the one after answers for it. */
    t->room = 1000;
    t->refuse_type = OFPT_BARRIER_REQUEST;
    fm_tick(t->fm);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 5);
    assert_int_equal(count_type(t, from, OFPT_BARRIER_REQUEST), 1);
    add_n(t, 1, b);
    assert_int_equal(count_type(t, from, OFPT_BARRIER_REQUEST), 2);
    barrier_reply(t, CONN_A, last_of(t, OFPT_BARRIER_REQUEST)->xid);
    for (unsigned i = 0; i < 5; i++)
        assert_int_equal(state_of(t, &all[i], NULL, NULL), STORE_FLOW_INSTALLED);
    assert_int_equal(state_of(t, &b[0], NULL, NULL), STORE_FLOW_INSTALLED);
    (void)a;
}

/* An entry as the switch reports it, for flow a (or an alien). */
static void entry_of(const struct fm_flow *s, uint32_t age_s, struct ofp_flow_stats *fs)
{
    memset(fs, 0, sizeof(*fs));
    fs->table_id = s->mod.table_id;
    fs->priority = s->mod.priority;
    fs->cookie = s->mod.cookie;
    fs->duration_sec = age_s;
    fs->match = s->mod.match;
    fs->inst = s->mod.inst;
}

static void test_reconnect_and_consistency(void **state)
{
    struct t *t = *state;
    struct added a[3];
    struct fm_stats st;

    t->cfg.n_ignore_cookie = 1;
    t->cfg.ignore_cookie[0] = (struct ofcd_range){0xab00, 0xabff};
    reopen(t);
    switch_up(t, CONN_A);
    add_n(t, 3, a);
    barrier_reply(t, CONN_A, last_of(t, OFPT_BARRIER_REQUEST)->xid);
    /* Down, then up on a new connection: the first complete FLOW reply
     * drives the check; the switch lost flow 2 and holds three aliens. */
    event(t, QMSG_EV_SWITCH_DOWN, CONN_A, NULL, 0);
    assert_int_equal(fm_state(t->fm, DPID), FM_SW_DOWN);
    t->now += 1000 * MS;
    switch_up(t, CONN_B);
    uint32_t req = last_of(t, OFPT_MULTIPART_REQUEST)->xid;
    struct added alien_old, alien_young, alien_ignored;
    char err[128];
    const char *aj[3] = {"{\"priority\": 7, \"match\": {\"dl_type\": 2048}}",
                         "{\"priority\": 8, \"match\": {\"dl_type\": 2054}}",
                         "{\"priority\": 9, \"cookie\": 43776, \"match\": {\"dl_type\": 34525}}"};
    struct added *al[3] = {&alien_old, &alien_young, &alien_ignored};
    for (int i = 0; i < 3; i++) {
        json_t *j = json_loads(aj[i], 0, NULL);
        assert_int_equal(flow_json_parse_json(j, false, &al[i]->flow, NULL, err, sizeof(err)), 0);
        json_decref(j);
    }
    struct ofp_flow_stats fs[5];
    entry_of(&a[0].flow, 50, &fs[0]);
    entry_of(&a[2].flow, 50, &fs[1]);
    entry_of(&alien_old.flow, 3600, &fs[2]);
    entry_of(&alien_young.flow, 2, &fs[3]);       /* younger than the 10 s window */
    entry_of(&alien_ignored.flow, 3600, &fs[4]);  /* cookie 0xab00 is ignored */
    unsigned from = t->n_sent;
    flow_stats_reply(t, CONN_B, req, fs, 5);
    /* Missing flow 2 goes out again (even though it was installed less than
     * a window ago: nothing from the old connection is in flight), the old
     * alien is deleted strictly; nothing else. */
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 2);
    const struct sent *add = NULL, *del = NULL;
    for (unsigned i = from; i < t->n_sent; i++) {
        if (t->sent[i].type != OFPT_FLOW_MOD)
            continue;
        if (t->sent[i].fm.command == OFPFC_ADD)
            add = &t->sent[i];
        else
            del = &t->sent[i];
    }
    assert_non_null(add);
    assert_int_equal(add->fm.priority, 101);
    assert_int_equal(add->conn, CONN_B);
    assert_non_null(del);
    assert_int_equal(del->fm.command, OFPFC_DELETE_STRICT);
    assert_int_equal(del->fm.priority, 7);
    assert_true(ofp_match_equal(&del->fm.match, &alien_old.flow.mod.match));
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.alien_deleted, 1);
    assert_int_equal(st.missing_reinstalled, 1);
    assert_int_equal(st.dropped_on_down, 0);
    assert_non_null(strstr(t->events, "consistency dpid=0000000000001001 after_connect=1 "
                                      "aliens_deleted=1 missing_reinstalled=1 "
                                      "changed_reinstalled=0\n"));

    /* The next reply within the window runs no check; one a window later
     * does, and a flow just re-sent but not yet answered is not re-sent. */
    from = t->n_sent;
    flow_stats_reply(t, CONN_B, 0x1234, fs, 2);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 0);
    t->now += 11000 * MS;
    flow_stats_reply(t, CONN_B, 0x1235, fs, 2);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 0);   /* flow 2 still in flight */
    barrier_reply(t, CONN_B, last_of(t, OFPT_BARRIER_REQUEST)->xid);
    assert_int_equal(state_of(t, &a[1], NULL, NULL), STORE_FLOW_INSTALLED);
    t->now += 11000 * MS;
    flow_stats_reply(t, CONN_B, 0x1236, fs, 2);              /* still missing: again */
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 1);
}

/* In a cluster, a node that is not the switch's master sends it no
 * FLOW_MOD: flows stay pending, and the consistency check neither deletes
 * aliens nor re-installs; once it is master, the queued flows go out. */
static void test_not_master_sends_nothing(void **state)
{
    struct t *t = *state;
    struct added a[3];

    t->not_master = true;
    switch_up(t, CONN_A);
    unsigned from = t->n_sent;
    add_n(t, 3, a);
    fm_tick(t->fm);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 0);
    assert_int_equal(state_of(t, &a[0], NULL, NULL), STORE_FLOW_PENDING);
    /* The switch reports an alien and lacks our flows: a slave leaves it. */
    uint32_t req = last_of(t, OFPT_MULTIPART_REQUEST)->xid;
    struct added alien;
    char err[128];
    json_t *j = json_loads("{\"priority\": 7, \"match\": {\"dl_type\": 2048}}", 0, NULL);
    assert_int_equal(flow_json_parse_json(j, false, &alien.flow, NULL, err, sizeof(err)), 0);
    json_decref(j);
    struct ofp_flow_stats fs[1];
    entry_of(&alien.flow, 3600, &fs[0]);
    flow_stats_reply(t, CONN_A, req, fs, 1);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 0);
    /* Master now: the queued flows go, with their barrier. */
    t->not_master = false;
    fm_tick(t->fm);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 3);
    barrier_reply(t, CONN_A, last_of(t, OFPT_BARRIER_REQUEST)->xid);
    assert_int_equal(state_of(t, &a[2], NULL, NULL), STORE_FLOW_INSTALLED);
}

/* A flow record written to the store by another writer (a cluster's other
 * node): fm_sync mirrors it and queues its ADD; the same version with
 * a new state takes the state; replaced by another version, the new ADD;
 * deleted in the store, a DELETE_STRICT and gone from the mirror. */
static void test_sync_follows_other_writers(void **state)
{
    struct t *t = *state;
    struct added a[1];
    char err[128];

    switch_up(t, CONN_A);
    add_n(t, 1, a);
    barrier_reply(t, CONN_A, last_of(t, OFPT_BARRIER_REQUEST)->xid);
    /* Another node's flow: in the store only. */
    const char *text = "{\"priority\": 4444, \"match\": {\"dl_type\": 2054}}";
    json_t *j = json_loads(text, 0, NULL);
    struct added b;
    assert_int_equal(flow_json_parse_json(j, false, &b.flow, NULL, err, sizeof(err)), 0);
    json_decref(j);
    uint64_t mid = fm_flow_match_id(DPID, &b.flow), fid = fm_flow_id(DPID, &b.flow);
    struct store_flow sf = {.dpid = DPID, .match_id = mid, .flow_id = fid,
                            .state = STORE_FLOW_PENDING, .owner = "", .json = text,
                            .json_len = strlen(text)};
    assert_int_equal(store_put(t->store, &sf), 0);
    unsigned from = t->n_sent;
    assert_int_equal(fm_sync(t->fm, DPID, mid), 0);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 1);
    assert_int_equal(last_of(t, OFPT_FLOW_MOD)->fm.priority, 4444);
    assert_int_equal(last_of(t, OFPT_FLOW_MOD)->fm.command, OFPFC_ADD);
    assert_true(fm_has_flows(t->fm, DPID));
    /* Its master wrote installed: the same version, no FLOW_MOD. */
    sf.state = STORE_FLOW_INSTALLED;
    assert_int_equal(store_put(t->store, &sf), 0);
    from = t->n_sent;
    assert_int_equal(fm_sync(t->fm, DPID, mid), 0);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 0);
    struct fm_stats st;
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.flows_by_state[STORE_FLOW_INSTALLED], 2);
    /* The same version stored again (a client POSTed it once more): pending
     * again, its ADD goes again. */
    sf.state = STORE_FLOW_PENDING;
    assert_int_equal(store_put(t->store, &sf), 0);
    from = t->n_sent;
    assert_int_equal(fm_sync(t->fm, DPID, mid), 0);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 1);
    /* The request's own path after the watch (the cluster's order): the
     * version is mirrored pending already, no second ADD. */
    from = t->n_sent;
    assert_int_equal(fm_add(t->fm, DPID, &b.flow, &mid, &fid, 1), 0);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 0);
    barrier_reply(t, CONN_A, last_of(t, OFPT_BARRIER_REQUEST)->xid);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.flows_by_state[STORE_FLOW_INSTALLED], 2);
    /* Stored again, and the switch answers the watch's ADD before the
     * request's own path runs: still that version, no second ADD (every
     * flow POSTed to a cluster went twice, its state written twice). */
    assert_int_equal(store_put(t->store, &sf), 0);
    from = t->n_sent;
    assert_int_equal(fm_sync(t->fm, DPID, mid), 0);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 1);
    barrier_reply(t, CONN_A, last_of(t, OFPT_BARRIER_REQUEST)->xid);
    from = t->n_sent;
    assert_int_equal(fm_add(t->fm, DPID, &b.flow, &mid, &fid, 1), 0);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 0);
    /* The other order: the request's path first, then the watch. */
    assert_int_equal(store_put(t->store, &sf), 0);
    from = t->n_sent;
    assert_int_equal(fm_add(t->fm, DPID, &b.flow, &mid, &fid, 1), 0);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 1);
    barrier_reply(t, CONN_A, last_of(t, OFPT_BARRIER_REQUEST)->xid);
    assert_int_equal(fm_sync(t->fm, DPID, mid), 0);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 1);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.flows_by_state[STORE_FLOW_INSTALLED], 2);
    /* Deleted by the other node: DELETE_STRICT, and gone here. */
    assert_int_equal(store_del(t->store, DPID, mid), 0);
    from = t->n_sent;
    assert_int_equal(fm_sync(t->fm, DPID, mid), 0);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 1);
    assert_int_equal(last_of(t, OFPT_FLOW_MOD)->fm.command, OFPFC_DELETE_STRICT);
    assert_int_equal(last_of(t, OFPT_FLOW_MOD)->fm.priority, 4444);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.flows_by_state[STORE_FLOW_INSTALLED], 1);
    /* Again: nothing left to do. */
    from = t->n_sent;
    assert_int_equal(fm_sync(t->fm, DPID, mid), 0);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 0);
}

/* A stored flow changed behind ofcd's back (same match, other actions) is
 * put back once settled; the unchanged version is left alone. */
static void test_changed_flow_reinstalled(void **state)
{
    struct t *t = *state;
    struct added a[1], other;
    char err[128];

    switch_up(t, CONN_A);
    add_n(t, 1, a);
    barrier_reply(t, CONN_A, last_of(t, OFPT_BARRIER_REQUEST)->xid);
    json_t *j = json_loads("{\"priority\": 100, \"match\": {\"in_port\": 1}, \"actions\":"
                           " [{\"action_type\": \"output\", \"port\": 3}]}", 0, NULL);
    assert_int_equal(flow_json_parse_json(j, false, &other.flow, NULL, err, sizeof(err)), 0);
    json_decref(j);
    assert_true(fm_flow_match_id(DPID, &other.flow) == a[0].match_id);
    struct ofp_flow_stats same, changed;
    entry_of(&a[0].flow, 3600, &same);
    entry_of(&other.flow, 3600, &changed);
    t->now += 20000 * MS;
    unsigned from = t->n_sent;
    flow_stats_reply(t, CONN_A, 0x100, &same, 1);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 0);
    t->now += 20000 * MS;
    flow_stats_reply(t, CONN_A, 0x101, &changed, 1);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 1);
    const struct sent *add = last_of(t, OFPT_FLOW_MOD);
    assert_int_equal(add->fm.command, OFPFC_ADD);
    assert_int_equal(add->fm.priority, 100);
    struct fm_stats st;
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.changed_reinstalled, 1);
    assert_int_equal(st.alien_deleted, 0);
}

static void test_delete_selection(void **state)
{
    struct t *t = *state;
    struct added a[4];
    const char *fl[4] = {
        "{\"priority\": 1, \"cookie\": 16, \"match\": {\"dl_type\": 2048, \"nw_dst\": \"10.0.0.0/24\"}}",
        "{\"priority\": 2, \"cookie\": 17, \"match\": {\"dl_type\": 2048, \"nw_dst\": \"10.0.1.0/24\"}}",
        "{\"priority\": 3, \"cookie\": 32, \"match\": {\"dl_type\": 2054}}",
        "{\"table_id\": 1, \"priority\": 4, \"cookie\": 16, \"match\": {\"dl_type\": 2048}}",
    };
    switch_up(t, CONN_A);
    for (int i = 0; i < 4; i++)
        add_flow(t, fl[i], &a[i]);
    struct {
        const char *del;
        unsigned want;             /* bit i: flow i selected */
    } cases[] = {
        {"{\"match\": {\"dl_type\": 2048}}", 0x3},                    /* table 0 only */
        {"{\"table_id\": 255, \"match\": {\"dl_type\": 2048}}", 0xb},
        {"{\"match\": {\"dl_type\": 2048, \"nw_dst\": \"10.0.0.0/16\"}}", 0x3},
        {"{\"match\": {\"dl_type\": 2048, \"nw_dst\": \"10.0.0.7\"}}", 0x0},  /* narrower */
        {"{\"table_id\": 255, \"cookie\": 16, \"cookie_mask\": 255}", 0x9},
        {"{\"table_id\": 255, \"cookie\": 16, \"cookie_mask\": 240}", 0xb},
        {"{}", 0x7},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        struct fm_flow del;
        char err[128];
        json_t *j = json_loads(cases[c].del, 0, NULL);
        assert_int_equal(flow_json_parse_json(j, true, &del, NULL, err, sizeof(err)), 0);
        json_decref(j);
        struct fm_key *keys = NULL;
        size_t n = 0, cap = 0;
        assert_int_equal(fm_delete_victims(t->fm, DPID, &del.mod, &keys, &n, &cap), 0);
        unsigned got = 0;
        for (size_t k = 0; k < n; k++)
            for (int i = 0; i < 4; i++)
                if (keys[k].match_id == a[i].match_id && keys[k].flow_id == a[i].flow_id)
                    got |= 1u << i;
        if (got != cases[c].want || n != (size_t)__builtin_popcount(cases[c].want))
            fail_msg("DELETE %s selected %#x (%zu keys), expected %#x", cases[c].del, got, n,
                     cases[c].want);
        free(keys);
    }
    /* After the store deleted them, the mirror forgets them and the switch
     * gets the DELETE as given. */
    struct fm_flow del;
    char err[128];
    json_t *j = json_loads("{\"match\": {\"dl_type\": 2054}}", 0, NULL);
    assert_int_equal(flow_json_parse_json(j, true, &del, NULL, err, sizeof(err)), 0);
    json_decref(j);
    struct fm_key key = {DPID, a[2].match_id, a[2].flow_id};
    assert_int_equal(store_del(t->store, DPID, a[2].match_id), 0);
    unsigned from = t->n_sent;
    assert_int_equal(fm_deleted(t->fm, &key, 1, DPID, &del, 1), 0);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 1);
    assert_int_equal(last_of(t, OFPT_FLOW_MOD)->fm.command, OFPFC_DELETE);
    struct fm_stats st;
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.flows_by_state[STORE_FLOW_PENDING], 3);
    /* The stream hears of it once, with the number the mirror dropped; the
     * same keys again (already gone) are not a second deletion. */
    assert_string_equal(t->events, "flow.deleted dpid=0000000000001001 count=1\n");
    assert_int_equal(fm_deleted(t->fm, &key, 1, DPID, NULL, 0), 0);
    assert_string_equal(t->events, "flow.deleted dpid=0000000000001001 count=1\n");
}

static void flow_removed(struct t *t, conn_handle_t conn, const struct fm_flow *spec,
                         uint8_t reason)
{
    struct ofp_msg m;
    msg_init(&m, OFPT_FLOW_REMOVED, 0);
    m.u.flow_removed = (struct ofp_flow_removed){
        .cookie = spec->mod.cookie, .priority = spec->mod.priority, .reason = reason,
        .table_id = spec->mod.table_id, .duration_sec = 7, .hard_timeout = 7,
        .packet_count = 3, .byte_count = 180, .match = spec->mod.match};
    of_event(t, conn, &m);
}

static void test_flow_removed_published(void **state)
{
    struct t *t = *state;
    struct added a[1], other[1];
    char want[512];

    switch_up(t, CONN_A);
    add_flow(t, "{\"priority\": 9, \"cookie\": 4660, \"hard_timeout\": 7, \"match\": "
             "{\"in_port\": 5}, \"actions\": [{\"action_type\": \"output\", \"port\": 2}]}", a);
    /* A flow ofcd never stored (another match) is published as not stored. */
    char err[128];
    json_t *j = json_loads("{\"priority\": 9, \"match\": {\"in_port\": 6}}", 0, NULL);
    assert_int_equal(flow_json_parse_json(j, false, &other[0].flow, NULL, err, sizeof(err)), 0);
    json_decref(j);
    flow_removed(t, CONN_A, &a[0].flow, OFPRR_HARD_TIMEOUT);
    flow_removed(t, CONN_A, &other[0].flow, OFPRR_DELETE);
    /* ... and one on a connection that is not the switch's is not. */
    flow_removed(t, CONN_B, &a[0].flow, OFPRR_IDLE_TIMEOUT);
    snprintf(want, sizeof(want),
             "flow.removed dpid=0000000000001001 match_id=%016" PRIx64 " stored=1 "
             "cookie=0x1234 table_id=0 priority=9 reason=%u duration_s=7 packet_count=3 "
             "byte_count=180\n"
             "flow.removed dpid=0000000000001001 match_id=%016" PRIx64 " stored=0 "
             "cookie=0 table_id=0 priority=9 reason=%u duration_s=7 packet_count=3 "
             "byte_count=180\n",
             a[0].match_id, OFPRR_HARD_TIMEOUT, fm_flow_match_id(DPID, &other[0].flow),
             OFPRR_DELETE);
    assert_string_equal(t->events, want);
    /* Only published: the stored flow stays stored. */
    assert_int_equal(state_of(t, &a[0], NULL, NULL), STORE_FLOW_PENDING);
}

static void test_restart_reloads(void **state)
{
    struct t *t = *state;
    struct added a[3];

    switch_up(t, CONN_A);
    add_n(t, 3, a);
    /* ofcd restarts: a new flow manager on the same store. */
    reopen(t);
    assert_int_equal(fm_state(t->fm, DPID), FM_SW_DOWN);   /* known by its flows */
    struct fm_stats st;
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.flows_by_state[STORE_FLOW_PENDING], 3);
    switch_up(t, CONN_B);
    unsigned from = t->n_sent;
    flow_stats_reply(t, CONN_B, last_of(t, OFPT_MULTIPART_REQUEST)->xid, NULL, 0);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 3);
    barrier_reply(t, CONN_B, last_of(t, OFPT_BARRIER_REQUEST)->xid);
    for (int i = 0; i < 3; i++)
        assert_int_equal(state_of(t, &a[i], NULL, NULL), STORE_FLOW_INSTALLED);
}

static int is_match(const struct store_flow *f, void *arg)
{
    return f->match_id == *(const uint64_t *)arg;
}

/* A flow kept in the store in state deleted (listed by stored_flows until
 * purged) is not loaded at restart: it is neither re-installed nor counted. */
static void test_restart_skips_deleted(void **state)
{
    struct t *t = *state;
    struct added a[3];
    uint64_t marked = 0;

    switch_up(t, CONN_A);
    add_n(t, 3, a);
    assert_int_equal(store_mark_deleted_if(t->store, NULL, is_match, &a[1].match_id, &marked),
                     0);
    assert_int_equal(marked, 1);
    reopen(t);
    struct fm_stats st;
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.flows_by_state[STORE_FLOW_PENDING], 2);
    switch_up(t, CONN_B);
    unsigned from = t->n_sent;
    flow_stats_reply(t, CONN_B, last_of(t, OFPT_MULTIPART_REQUEST)->xid, NULL, 0);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 2);
    for (unsigned i = from; i < t->n_sent; i++)
        if (t->sent[i].type == OFPT_FLOW_MOD)
            assert_true(t->sent[i].fm.priority != a[1].flow.mod.priority);
    assert_int_equal(state_of(t, &a[1], NULL, NULL), STORE_FLOW_DELETED);
}

/* A switch that is gone and has no stored flow is forgotten after
 * forget_after_us; one with stored flows is kept for when it comes back. */
static void test_gone_switches_forgotten(void **state)
{
    struct t *t = *state;
    struct added a[1];

    t->cfg.forget_after_us = 60 * SEC_US;
    reopen(t);
    switch_up(t, CONN_A);
    event(t, QMSG_EV_SWITCH_DOWN, CONN_A, NULL, 0);
    assert_int_equal(fm_state(t->fm, DPID), FM_SW_DOWN);
    t->now += 59 * SEC_US;
    fm_tick(t->fm);
    assert_int_equal(fm_state(t->fm, DPID), FM_SW_DOWN);
    t->now += 2 * SEC_US;
    fm_tick(t->fm);
    assert_int_equal(fm_state(t->fm, DPID), FM_SW_UNKNOWN);
    struct fm_stats st;
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.switches_forgotten, 1);
    /* With a stored flow it stays, however long it is gone. */
    switch_up(t, CONN_B);
    add_n(t, 1, a);
    event(t, QMSG_EV_SWITCH_DOWN, CONN_B, NULL, 0);
    t->now += 3600 * SEC_US;
    fm_tick(t->fm);
    assert_int_equal(fm_state(t->fm, DPID), FM_SW_DOWN);
}

/* n old-enough flows ofcd never stored (priority 500 + i), as the switch
 * reports them; specs keeps what the entries point into. */
static void make_aliens(struct fm_flow *specs, struct ofp_flow_stats *fs, unsigned n,
                        uint32_t age_s)
{
    char json[128], err[128];
    for (unsigned i = 0; i < n; i++) {
        snprintf(json, sizeof(json), "{\"priority\": %u, \"match\": {\"in_port\": %u}}",
                 500 + i, i + 1);
        json_t *j = json_loads(json, 0, NULL);
        assert_int_equal(flow_json_parse_json(j, false, &specs[i], NULL, err, sizeof(err)), 0);
        json_decref(j);
        entry_of(&specs[i], age_s, &fs[i]);
    }
}

/* Flow-statistics parts whose xid has the control bit but is not the one
 * the flow manager asked for (the worker lets every control xid through)
 * are dropped and counted: never kept, never a consistency verdict, never
 * what GET flows shows. The reply it asked for is taken, once. */
static void test_unsolicited_control_stats_dropped(void **state)
{
    struct t *t = *state;
    struct added a[1];
    struct fm_flow al[4];
    struct ofp_flow_stats fs[4];
    struct fm_stats st;
    int err;

    switch_up(t, CONN_A);
    uint32_t req = last_of(t, OFPT_MULTIPART_REQUEST)->xid;
    add_n(t, 1, a);
    barrier_reply(t, CONN_A, last_of(t, OFPT_BARRIER_REQUEST)->xid);
    t->now += 20000 * MS;
    make_aliens(al, fs, 4, 3600);
    unsigned from = t->n_sent;
    t->events[0] = '\0';
    /* The xids of the flow manager's FLOW_MOD and barrier, and made-up ones;
     * parts with REPLY_MORE and without (which would complete a reply). */
    for (unsigned i = 0; i < 100; i++)
        flow_stats_part(t, DPID, CONN_A, req + 1 + i % 3, fs, 4, i % 10 != 9);
    flow_stats_part(t, DPID, CONN_A, 0xfffffff0u, fs, 4, false);
    fm_get_stats(t->fm, &st);
    if (st.snapshot_unsolicited != 101 || st.checks || count_type(t, from, OFPT_FLOW_MOD))
        fail_msg("forged parts: %" PRIu64 " counted unsolicited (want 101), %" PRIu64
                 " checks, %u FLOW_MODs sent (want 0, 0); events: %s",
                 st.snapshot_unsolicited, st.checks, count_type(t, from, OFPT_FLOW_MOD),
                 t->events);
    assert_int_equal(st.snapshot_bytes, 0);
    assert_null(strstr(t->events, "consistency"));
    struct fm_snap_copy *sn = fm_snap_copy_take(t->fm, DPID, &err);
    assert_non_null(sn);
    assert_null(fm_snap_copy_next(sn));
    fm_snap_copy_free(sn);
    /* The reply asked for is the snapshot and gets the on-connect check. */
    struct ofp_flow_stats mine;
    entry_of(&a[0].flow, 20, &mine);
    flow_stats_reply(t, CONN_A, req, &mine, 1);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.checks, 1);
    assert_true(st.snapshot_bytes > 0);
    uint64_t held = st.snapshot_bytes;
    /* Its xid again, once answered, is not asked for any more. */
    flow_stats_reply(t, CONN_A, req, fs, 4);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.snapshot_unsolicited, 102);
    assert_int_equal(st.snapshot_bytes, held);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 0);
    /* The worker's own polls (no control bit: it forwards only the xids it
     * asked for) still make the snapshot. */
    flow_stats_reply(t, CONN_A, 0x300, &mine, 1);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.snapshot_unsolicited, 102);
}

/* GET v2/flows' walk through the flow manager: the last complete reply,
 * copied, as typed entries whose identity is the stored flows' own; an
 * unknown switch is -ENOENT. */
static void test_snapshot_typed_entries(void **state)
{
    struct t *t = *state;
    struct added a[2];
    struct fm_flow al[1];
    struct ofp_flow_stats fs[3];
    int err;

    switch_up(t, CONN_A);
    add_n(t, 2, a);
    entry_of(&a[0].flow, 30, &fs[0]);
    entry_of(&a[1].flow, 40, &fs[1]);
    make_aliens(al, &fs[2], 1, 5);
    fs[0].packet_count = 11;
    fs[1].byte_count = 22;
    flow_stats_reply(t, CONN_A, 0x300, fs, 3);
    struct fm_snap_copy *sn = fm_snap_copy_take(t->fm, DPID, &err);
    assert_non_null(sn);
    assert_int_equal(err, 0);
    for (unsigned i = 0; i < 2; i++) {
        const struct fm_snap_copy_entry *e = fm_snap_copy_next(sn);
        assert_non_null(e);
        assert_true(e->dpid == DPID);
        assert_true(e->match_id == a[i].match_id);
        assert_true(e->flow_id == a[i].flow_id);
        assert_int_equal(e->duration_sec, i ? 40 : 30);
        assert_true(e->packet_count == (i ? 0 : 11));
        assert_true(e->byte_count == (i ? 22 : 0));
        assert_int_equal(e->flow.mod.priority, a[i].flow.mod.priority);
    }
    const struct fm_snap_copy_entry *e = fm_snap_copy_next(sn);
    assert_non_null(e);
    assert_true(e->match_id == fm_flow_match_id(DPID, &al[0]));
    assert_null(fm_snap_copy_next(sn));
    fm_snap_copy_free(sn);
    assert_null(fm_snap_copy_take(t->fm, 0x9999, &err));
    assert_int_equal(err, -ENOENT);
}

/* All switches' snapshots together stay within snap_budget_bytes: a reply
 * that would pass it is abandoned (counted, no verdict from it), and the
 * switch's next reply that fits is taken. */
static void test_snapshot_budget_across_switches(void **state)
{
    struct t *t = *state;
    const uint64_t dp2 = 0x1002;
    const conn_handle_t conn2 = 0x0000000300000003ull;
    static struct fm_flow young_s[100], old_s[100];
    static struct ofp_flow_stats young[100], old[100];
    struct fm_stats st;

    /* One part of 100 entries is 6,416 bytes: one fits, two do not. */
    t->cfg.snap_budget_bytes = 12000;
    reopen(t);
    make_aliens(young_s, young, 100, 0);
    make_aliens(old_s, old, 100, 3600);
    switch_up_dp(t, DPID, CONN_A);
    flow_stats_part(t, DPID, CONN_A, last_of(t, OFPT_MULTIPART_REQUEST)->xid, young, 100,
                    false);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.checks, 1);
    /* The second switch's reply: its first part would pass the budget. The
     * rest of it is ignored, and the old aliens in it are not deleted. */
    switch_up_dp(t, dp2, conn2);
    uint32_t req2 = last_of(t, OFPT_MULTIPART_REQUEST)->xid;
    unsigned from = t->n_sent;
    flow_stats_part(t, dp2, conn2, req2, old, 100, true);
    flow_stats_part(t, dp2, conn2, req2, old, 10, false);
    fm_get_stats(t->fm, &st);
    if (st.snapshot_over_budget != 1 || st.checks != 1 || count_type(t, from, OFPT_FLOW_MOD))
        fail_msg("over the budget: %" PRIu64 " abandoned (want 1), %" PRIu64 " checks (want 1),"
                 " %u FLOW_MODs (want 0), %" PRIu64 " bytes held", st.snapshot_over_budget,
                 st.checks, count_type(t, from, OFPT_FLOW_MOD), st.snapshot_bytes);
    assert_int_equal(st.snapshot_bytes, 6416);     /* the first switch's */
    /* A reply of it that fits (a statistics poll) is taken and checked. */
    flow_stats_part(t, dp2, conn2, 0x400, old, 10, false);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.checks, 2);
    assert_int_equal(st.snapshot_bytes, 6416 + 656);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 10);
    /* A switch that goes gives its reply in progress back, not its snapshot
     * (GET flows still shows it); forgetting it gives everything back. */
    flow_stats_part(t, DPID, CONN_A, 0x401, young, 10, true);
    event(t, QMSG_EV_SWITCH_DOWN, CONN_A, NULL, 0);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.snapshot_bytes, 6416 + 656);
}

/* Two requests admitted before either is stored (two REST threads on their
 * way to the store's commit) never together queue more than queue_max:
 * admission reserves, queuing or failure gives the reservation back. */
static void test_admission_reserves(void **state)
{
    struct t *t = *state;
    struct added a[10], b[10];
    struct fm_stats st;
    unsigned retry = 0;

    t->cfg.queue_max = 16;
    reopen(t);
    switch_up(t, CONN_A);
    t->room = 0;                     /* nothing leaves: what is queued stays */
    int ra = fm_admit(t->fm, DPID, 10, &retry);
    int rb = fm_admit(t->fm, DPID, 10, &retry);
    if (ra == 0)
        add_batch(t, 10, 0, a, 10);
    if (rb == 0)
        add_batch(t, 10, 10, b, 10);
    fm_get_stats(t->fm, &st);
    if (st.queued + st.reserved > 16 || ra != 0 || rb != -EBUSY)
        fail_msg("two requests of 10, queue_max 16: admitted %d and %d, %" PRIu64 " queued, %"
                 PRIu64 " reserved", ra, rb, st.queued, st.reserved);
    assert_true(retry >= 1);
    assert_int_equal(st.reserved, 0);
    assert_int_equal(st.queued, 10);
    /* A request that fails (store error, client gone) gives its room back. */
    assert_int_equal(fm_admit(t->fm, DPID, 6, &retry), 0);
    assert_int_equal(fm_admit(t->fm, DPID, 1, &retry), -EBUSY);
    fm_admit_cancel(t->fm, DPID, 6);
    assert_int_equal(fm_admit(t->fm, DPID, 6, &retry), 0);
    fm_admit_cancel(t->fm, DPID, 6);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.reserved, 0);
}

/* One request's add as rest_flows hands it over: from its commit's
 * completion, on the store's committer. */
struct committed_add {
    struct t *t;
    struct fm_add_one add;
    uint8_t wire[FM_FLOW_WIRE_SMALL];
    struct store_flow rec;
    char json[160];
    volatile int rc;
    uint64_t taken_us;
};

static void add_committed(void *arg, int rc)
{
    struct committed_add *c = arg;
    struct store_batch_times bt;

    store_batch_times(c->t->store, &bt);
    c->taken_us = bt.taken_us;
    c->rc = rc == 0 ? fm_add_admitted(c->t->fm, DPID, &c->add, 1, 0) : rc;
}

static void committed_add_make(struct t *t, struct committed_add *c, unsigned in_port,
                               unsigned out_port)
{
    struct fm_flow f;
    char err[128];

    memset(c, 0, sizeof(*c));
    c->t = t;
    c->rc = 1;
    snprintf(c->json, sizeof(c->json), "{\"priority\": 7, \"match\": {\"in_port\": %u}, "
             "\"actions\": [{\"action_type\": \"output\", \"port\": %u}]}", in_port, out_port);
    json_t *j = json_loads(c->json, 0, NULL);
    assert_int_equal(flow_json_parse_json(j, false, &f, NULL, err, sizeof(err)), 0);
    json_decref(j);
    c->add.match_id = fm_flow_match_id(DPID, &f);
    c->add.flow_id = fm_flow_id(DPID, &f);
    c->add.owner = "";
    c->add.wire = c->wire;
    assert_int_equal(fm_flow_mod_encode(&f.mod, c->wire, sizeof(c->wire), &c->add.len), 0);
    c->rec = (struct store_flow){.dpid = DPID, .match_id = c->add.match_id,
                                 .flow_id = c->add.flow_id, .json = c->json,
                                 .json_len = strlen(c->json)};
}

/* Two requests' adds stored by one commit, each handed to the flow manager
 * from its completion (tried until they share a batch). */
static void two_adds_one_batch(struct t *t, struct committed_add *a, struct committed_add *b)
{
    for (int tries = 0; tries < 50; tries++) {
        a->rc = b->rc = 1;
        assert_int_equal(store_put_many_async(t->store, &a->rec, 1, add_committed, a), 0);
        assert_int_equal(store_put_many_async(t->store, &b->rec, 1, add_committed, b), 0);
        assert_int_equal(store_sync(t->store), 0);
        assert_int_equal(a->rc, 0);
        assert_int_equal(b->rc, 0);
        if (a->taken_us == b->taken_us)
            return;
    }
    fail_msg("two adds never shared a batch in 50 tries");
}

/* From a commit's completion the flow manager mirrors and sends what that
 * commit stored: two new flows both; two versions of one flow in one
 * commit only the last (the first was replaced before it was told), as
 * when it reads the versions back (store_batch_final). */
static void test_committed_batch_mirrors_what_is_stored(void **state)
{
    struct t *t = *state;
    struct committed_add a, b;
    struct fm_stats st;

    fm_destroy(t->fm);
    store_close(t->store);
    struct store_config sc = {.backend = STORE_BACKEND_MEMORY, .linger_us = 200000,
                              .batch_target = 64};
    t->store = store_open(&sc);
    assert_non_null(t->store);
    t->fm = open_fm(t);
    assert_non_null(t->fm);
    switch_up(t, CONN_A);

    committed_add_make(t, &a, 1, 5);
    committed_add_make(t, &b, 2, 5);
    unsigned from = t->n_sent;
    two_adds_one_batch(t, &a, &b);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 2);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.flows_by_state[STORE_FLOW_PENDING], 2);

    committed_add_make(t, &a, 3, 5);
    committed_add_make(t, &b, 3, 6);                /* the same flow, other actions */
    from = t->n_sent;
    two_adds_one_batch(t, &a, &b);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 1);
    const struct sent *m = last_of(t, OFPT_FLOW_MOD);
    assert_non_null(m);
    assert_int_equal(m->fm.command, OFPFC_ADD);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.flows_by_state[STORE_FLOW_PENDING], 3);
    /* The mirror holds the last version (a delete chooses its victims there). */
    struct fm_flow sel;
    char err[128];
    json_t *j = json_loads("{\"match\": {\"in_port\": 3}}", 0, NULL);
    assert_int_equal(flow_json_parse_json(j, true, &sel, NULL, err, sizeof(err)), 0);
    json_decref(j);
    struct fm_key *keys = NULL;
    size_t n = 0, cap = 0;
    assert_int_equal(fm_delete_victims(t->fm, DPID, &sel.mod, &keys, &n, &cap), 0);
    assert_int_equal(n, 1);
    assert_true(keys[0].match_id == b.add.match_id && keys[0].flow_id == b.add.flow_id);
    free(keys);
}

/* An app's selector that cannot be encoded is an error, but the store has
 * deleted the flow all the same: the mirror must not keep it. */
static void test_deleted_bad_selector_still_forgets(void **state)
{
    struct t *t = *state;
    struct added a;
    struct fm_stats st;

    switch_up(t, CONN_A);
    add_flow(t, "{\"priority\": 9, \"match\": {\"in_port\": 4}}", &a);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.flows_by_state[STORE_FLOW_PENDING], 1);
    struct fm_flow bad = a.flow;
    fm_flow_fixup(&bad);
    bad.mod.command = 99;                           /* no such FLOW_MOD command */
    struct fm_key key = {DPID, a.match_id, a.flow_id};
    assert_int_equal(store_del(t->store, DPID, a.match_id), 0);
    unsigned from = t->n_sent;
    assert_int_equal(fm_deleted(t->fm, &key, 1, DPID, &bad, 1), -EINVAL);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 0);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.flows_by_state[STORE_FLOW_PENDING], 0);
}

/* A delete's FLOW_MODs are admitted like an add's: reserved before the
 * store commits, released as they are queued. */
static void test_delete_admission_reserved(void **state)
{
    struct t *t = *state;
    struct fm_flow del[10];
    struct fm_sel sels[10];
    uint8_t wires[10][256];
    struct fm_stats st;
    unsigned retry = 0;
    char json[64], err[128];

    t->cfg.queue_max = 16;
    reopen(t);
    switch_up(t, CONN_A);
    t->room = 0;
    for (unsigned i = 0; i < 10; i++) {
        snprintf(json, sizeof(json), "{\"match\": {\"in_port\": %u}}", i + 1);
        json_t *j = json_loads(json, 0, NULL);
        assert_int_equal(flow_json_parse_json(j, true, &del[i], NULL, err, sizeof(err)), 0);
        json_decref(j);
        sels[i].owner = del[i].owner;
        sels[i].wire = wires[i];
        assert_int_equal(fm_flow_mod_encode(&del[i].mod, wires[i], sizeof(wires[i]),
                                            &sels[i].len), 0);
    }
    assert_int_equal(fm_admit(t->fm, DPID, 10, &retry), 0);       /* the delete */
    int rc = fm_admit(t->fm, DPID, 10, &retry);                   /* an add meanwhile */
    if (rc != -EBUSY)
        fail_msg("an add of 10 while a delete of 10 waits for its commit, queue_max 16: %d",
                 rc);
    assert_int_equal(fm_deleted_admitted(t->fm, NULL, 0, DPID, sels, 10, 10), 0);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.queued, 10);
    assert_int_equal(st.reserved, 0);
    assert_int_equal(fm_admit(t->fm, DPID, 7, &retry), -EBUSY);
    assert_int_equal(fm_admit(t->fm, DPID, 6, &retry), 0);
}

/* ---- fm_change: stored, then handed over (fm_change.h) ---------------------------------- */

struct change_box {
    struct fm_change ch;
    struct fm_change_part part;
    volatile int rc;                /* 1 until done */
};

static void change_box_done(void *arg, int rc)
{
    ((struct change_box *)arg)->rc = rc;
}

/* A delete selector from Kytos JSON, encoded into wire as a request holds it. */
static void sel_encode(const char *json, uint8_t *wire, size_t cap, struct fm_sel *out)
{
    struct fm_flow sf;
    char err[128];
    json_t *j = json_loads(json, 0, NULL);

    assert_int_equal(flow_json_parse_json(j, true, &sf, NULL, err, sizeof(err)), 0);
    json_decref(j);
    *out = (struct fm_sel){"", wire, 0};
    assert_int_equal(fm_flow_mod_encode(&sf.mod, wire, cap, &out->len), 0);
}

static int count_flow(const struct store_flow *f, void *arg)
{
    (void)f;
    ++*(unsigned *)arg;
    return 0;
}

/* An add through fm_change and then, once it is stored, a delete of the
 * same flow, both admitted: the switch gets the ADD then the DELETE, the
 * flow reads back through fm_stored once added and not once deleted (the
 * store ends without it), and no admission is left held. (In one
 * commit the add would not be sent at all: test_committed_batch_...) */
static void test_change_add_then_delete(void **state)
{
    struct t *t = *state;
    struct committed_add a;
    struct change_box add = {.rc = 1}, del = {.rc = 1};
    struct fm_sel sel;
    uint8_t wire[256];
    unsigned retry;
    struct fm_stats st;
    struct store_flow got;

    switch_up(t, CONN_A);
    committed_add_make(t, &a, 3, 4);
    assert_int_equal(fm_admit(t->fm, DPID, 1, &retry), 0);
    add.part = (struct fm_change_part){.dpid = DPID, .n = 1, .held = 1, .adds = &a.add};
    add.ch = (struct fm_change){.fm = t->fm, .parts = &add.part,
                                .n_parts = 1, .recs = &a.rec, .n_recs = 1,
                                .done = change_box_done, .arg = &add};
    assert_int_equal(fm_change_submit(&add.ch), 0);
    assert_int_equal(store_sync(t->store), 0);
    assert_int_equal(add.rc, 0);
    /* Read back through the flow manager, as REST and the apps read. */
    assert_int_equal(fm_stored_get(t->fm, DPID, a.add.match_id, &got), 0);
    assert_int_equal(got.flow_id, a.add.flow_id);
    assert_int_equal(got.json_len, a.rec.json_len);
    assert_memory_equal(got.json, a.rec.json, a.rec.json_len);
    store_flow_release(&got);
    unsigned n_seen = 0;
    uint64_t dpid = DPID;
    assert_int_equal(fm_stored_foreach(t->fm, &dpid, count_flow, &n_seen), 0);
    assert_int_equal(n_seen, 1);
    assert_int_equal(fm_stored_get(NULL, DPID, a.add.match_id, &got), -ENODEV);

    sel_encode("{\"match\": {\"in_port\": 3}}", wire, sizeof(wire), &sel);
    struct fm_key victims[2] = {{DPID, a.add.match_id, a.add.flow_id},
                                     {DPID, a.add.match_id, a.add.flow_id}};
    assert_int_equal(fm_admit(t->fm, DPID, 1, &retry), 0);
    del.part = (struct fm_change_part){.dpid = DPID, .n = 1, .held = 1, .dels = &sel};
    del.ch = (struct fm_change){.fm = t->fm, .parts = &del.part,
                                .n_parts = 1, .victims = victims, .n_victims = 2,
                                .done = change_box_done, .arg = &del};
    assert_int_equal(fm_change_submit(&del.ch), 0);
    assert_int_equal(del.ch.n_victims, 1);          /* made unique */
    assert_int_equal(store_sync(t->store), 0);
    assert_int_equal(add.rc, 0);
    assert_int_equal(del.rc, 0);

    int i_add = -1, i_del = -1;
    for (unsigned i = 0; i < t->n_sent; i++)
        if (t->sent[i].type == OFPT_FLOW_MOD) {
            if (t->sent[i].fm.command == OFPFC_ADD && i_add < 0)
                i_add = (int)i;
            if (t->sent[i].fm.command == OFPFC_DELETE && i_del < 0)
                i_del = (int)i;
        }
    if (i_add < 0 || i_del < i_add)
        fail_msg("the switch got the ADD at %d and the DELETE at %d", i_add, i_del);
    assert_int_equal(fm_stored_get(t->fm, DPID, a.add.match_id, &got), -ENOENT);
    n_seen = 0;
    assert_int_equal(fm_stored_foreach(t->fm, &dpid, count_flow, &n_seen), 0);
    assert_int_equal(n_seen, 0);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.reserved, 0);
}

/* ofcd stops with a change still queued in the store (the topology's LLDP
 * flow of a switch that just connected): closing the store commits it and
 * hands it to the flow manager, which ofcd destroys only after
 * (close_flow_store). The change is done, its ADD queued for the switch,
 * its admission returned. */
static void test_change_in_flight_at_close(void **state)
{
    struct t *t = *state;
    struct committed_add a;
    struct change_box add = {.rc = 1};
    unsigned retry;
    struct fm_stats st;

    switch_up(t, CONN_A);
    committed_add_make(t, &a, 7, 8);
    assert_int_equal(fm_admit(t->fm, DPID, 1, &retry), 0);
    add.part = (struct fm_change_part){.dpid = DPID, .n = 1, .held = 1, .adds = &a.add};
    add.ch = (struct fm_change){.fm = t->fm, .parts = &add.part,
                                .n_parts = 1, .recs = &a.rec, .n_recs = 1,
                                .done = change_box_done, .arg = &add};
    unsigned before = t->n_sent;
    assert_int_equal(fm_change_submit(&add.ch), 0);
    store_close(t->store);
    t->store = NULL;
    assert_int_equal(add.rc, 0);
    bool sent = false;
    for (unsigned i = before; i < t->n_sent; i++)
        sent |= t->sent[i].type == OFPT_FLOW_MOD && t->sent[i].fm.command == OFPFC_ADD;
    assert_true(sent);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.reserved, 0);
}

/* The switch view lets a down switch go while it holds a stored flow: its
 * record stays for the flow, and goes with the flow's delete — but not
 * while a change admitted for it is on its way to the store (its room
 * under queue_max would be lost). */
static void test_let_go_forgotten_with_last_flow(void **state)
{
    struct t *t = *state;
    struct committed_add a;
    struct change_box add = {.rc = 1}, del = {.rc = 1};
    struct fm_stats st;
    unsigned retry;

    switch_up(t, CONN_A);
    committed_add_make(t, &a, 9, 10);
    assert_int_equal(fm_admit(t->fm, DPID, 1, &retry), 0);
    add.part = (struct fm_change_part){.dpid = DPID, .n = 1, .held = 1, .adds = &a.add};
    add.ch = (struct fm_change){.fm = t->fm, .parts = &add.part, .n_parts = 1, .recs = &a.rec,
                                .n_recs = 1, .done = change_box_done, .arg = &add};
    assert_int_equal(fm_change_submit(&add.ch), 0);
    assert_int_equal(store_sync(t->store), 0);
    event(t, QMSG_EV_SWITCH_DOWN, CONN_A, NULL, 0);
    fm_forget(t->fm, DPID);                             /* the view lets it go */
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.switches_forgotten, 0);         /* kept: it holds a flow */

    struct fm_key victim = {DPID, a.add.match_id, a.add.flow_id};
    assert_int_equal(fm_admit(t->fm, DPID, 1, &retry), 0);   /* a change on its way */
    del.part = (struct fm_change_part){.dpid = DPID};
    del.ch = (struct fm_change){.fm = t->fm, .parts = &del.part, .n_parts = 1,
                                .victims = &victim, .n_victims = 1,
                                .done = change_box_done, .arg = &del};
    assert_int_equal(fm_change_submit(&del.ch), 0);
    assert_int_equal(store_sync(t->store), 0);
    assert_int_equal(del.rc, 0);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.switches_forgotten, 0);         /* kept: the admission holds it */
    assert_int_equal(st.reserved, 1);
    fm_admit_cancel(t->fm, DPID, 1);

    /* Without an admission, the last flow's delete takes the record. */
    committed_add_make(t, &a, 11, 12);
    add.rc = 1;
    add.part = (struct fm_change_part){.dpid = DPID, .n = 1, .adds = &a.add};
    add.ch.recs = &a.rec;
    assert_int_equal(fm_change_submit(&add.ch), 0);
    assert_int_equal(store_sync(t->store), 0);
    fm_forget(t->fm, DPID);
    victim = (struct fm_key){DPID, a.add.match_id, a.add.flow_id};
    del.rc = 1;
    assert_int_equal(fm_change_submit(&del.ch), 0);
    assert_int_equal(store_sync(t->store), 0);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.switches_forgotten, 1);
    assert_int_equal(st.reserved, 0);
}

/* A change the store refuses gives its admission back (else the switch's
 * room under queue_max would shrink for good); a delete that matches no
 * stored flow still reaches the switch, at once. */
static void test_change_refused_and_empty(void **state)
{
    struct t *t = *state;
    struct committed_add a;
    struct change_box add = {.rc = 1}, del = {.rc = 1};
    struct fm_stats st;
    struct fm_sel sel;
    uint8_t wire[256];
    unsigned retry;

    t->cfg.queue_max = 4;
    reopen(t);
    switch_up(t, CONN_A);
    committed_add_make(t, &a, 5, 6);
    a.rec.state = (enum store_flow_state)99;         /* the store refuses it */
    assert_int_equal(fm_admit(t->fm, DPID, 4, &retry), 0);
    add.part = (struct fm_change_part){.dpid = DPID, .n = 1, .held = 4, .adds = &a.add};
    add.ch = (struct fm_change){.fm = t->fm, .parts = &add.part,
                                .n_parts = 1, .recs = &a.rec, .n_recs = 1,
                                .done = change_box_done, .arg = &add};
    assert_int_equal(fm_change_submit(&add.ch), -EINVAL);
    assert_int_equal(add.rc, 1);                     /* done does not run */
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.reserved, 0);
    assert_int_equal(fm_admit(t->fm, DPID, 4, &retry), 0);

    sel_encode("{\"match\": {\"in_port\": 9}}", wire, sizeof(wire), &sel);
    unsigned before = t->n_sent;
    del.part = (struct fm_change_part){.dpid = DPID, .n = 1, .held = 4, .dels = &sel};
    del.ch = (struct fm_change){.fm = t->fm, .parts = &del.part,
                                .n_parts = 1, .done = change_box_done, .arg = &del};
    assert_int_equal(fm_change_submit(&del.ch), -EALREADY);
    assert_int_equal(del.rc, 1);
    fm_tick(t->fm);
    bool sent = false;
    for (unsigned i = before; i < t->n_sent; i++)
        sent |= t->sent[i].type == OFPT_FLOW_MOD && t->sent[i].fm.command == OFPFC_DELETE;
    assert_true(sent);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.reserved, 0);
}

/* The control thread's xids wrap from 0xffffffff to 0x80000001: a batch
 * that spans the wrap still maps each error to its flow (serial-number
 * comparison), and a barrier reply after the wrap covers a batch before it. */
static void test_xid_wrap(void **state)
{
    struct t *t = *state;
    struct added a[4], b[1];
    uint16_t et, ec;

    switch_up(t, CONN_A);
    fm_switch_find(t->fm, DPID)->next_xid = 0x7ffffffbu;
    unsigned from = t->n_sent;
    add_batch(t, 1, 10, b, 0);                   /* 0xfffffffc, barrier 0xfffffffd */
    add_batch(t, 4, 0, a, 0);                    /* 0xfffffffe 0xffffffff 0x80000001 ... */
    static const uint32_t want[7] = {0xfffffffcu, 0xfffffffdu, 0xfffffffeu, 0xffffffffu,
                                     0x80000001u, 0x80000002u, 0x80000003u};
    assert_int_equal(t->n_sent - from, 7);
    for (unsigned i = 0; i < 7; i++)
        assert_int_equal(t->sent[from + i].xid, want[i]);
    /* Rejected: one flow before the wrap, one after it. */
    error_reply(t, CONN_A, 0xffffffffu, OFPET_BAD_ACTION, OFPBAC_BAD_OUT_PORT);
    error_reply(t, CONN_A, 0x80000002u, OFPET_BAD_MATCH, OFPBMC_BAD_FIELD);
    barrier_reply(t, CONN_A, 0x80000003u);
    int st[4];
    for (unsigned i = 0; i < 4; i++)
        st[i] = state_of(t, &a[i], NULL, NULL);
    if (st[0] != STORE_FLOW_INSTALLED || st[1] != STORE_FLOW_ERROR ||
        st[2] != STORE_FLOW_INSTALLED || st[3] != STORE_FLOW_ERROR)
        fail_msg("a batch across the xid wrap, flows 2 and 4 rejected: states %d %d %d %d "
                 "(want installed=%d, error=%d)", st[0], st[1], st[2], st[3],
                 STORE_FLOW_INSTALLED, STORE_FLOW_ERROR);
    assert_int_equal(state_of(t, &a[3], &et, &ec), STORE_FLOW_ERROR);
    assert_int_equal(et, OFPET_BAD_MATCH);
    assert_int_equal(ec, OFPBMC_BAD_FIELD);
    /* The batch before the wrap: answered by the later barrier. */
    assert_int_equal(state_of(t, &b[0], NULL, NULL), STORE_FLOW_INSTALLED);
    struct fm_stats fst;
    fm_get_stats(t->fm, &fst);
    assert_int_equal(fst.errors, 2);
    assert_int_equal(fst.barrier_replies, 1);
}

/* The switch view, full (openflow.max_switches_known), asks which switches
 * have stored flows and lets the others go: a down switch without flows is
 * forgotten here at once; one that is up, or has flows, stays. */
static void test_view_forgets_switch(void **state)
{
    struct t *t = *state;
    struct added a[1];
    struct fm_stats st;

    switch_up(t, CONN_A);
    assert_false(fm_has_flows(t->fm, DPID));
    fm_forget(t->fm, DPID);
    assert_int_equal(fm_state(t->fm, DPID), FM_SW_UP);
    event(t, QMSG_EV_SWITCH_DOWN, CONN_A, NULL, 0);
    fm_forget(t->fm, DPID);
    assert_int_equal(fm_state(t->fm, DPID), FM_SW_UNKNOWN);
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.switches_forgotten, 1);
    switch_up(t, CONN_B);
    add_n(t, 1, a);
    event(t, QMSG_EV_SWITCH_DOWN, CONN_B, NULL, 0);
    assert_true(fm_has_flows(t->fm, DPID));
    fm_forget(t->fm, DPID);
    assert_int_equal(fm_state(t->fm, DPID), FM_SW_DOWN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_batch_then_barrier_installs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_committed_batch_mirrors_what_is_stored, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_deleted_bad_selector_still_forgets, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_error_marks_that_flow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_switch_errors_rate_limited, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pacing_delays_never_drops, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fm_queue_shows_waiting, setup, teardown),
        cmocka_unit_test_setup_teardown(test_paced_flows_not_requeued, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ring_room_and_lost_barrier, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_master_sends_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sync_follows_other_writers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reconnect_and_consistency, setup, teardown),
        cmocka_unit_test_setup_teardown(test_changed_flow_reinstalled, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delete_selection, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flow_removed_published, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart_reloads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart_skips_deleted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gone_switches_forgotten, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unsolicited_control_stats_dropped, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_snapshot_budget_across_switches, setup, teardown),
        cmocka_unit_test_setup_teardown(test_snapshot_typed_entries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_admission_reserves, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delete_admission_reserved, setup, teardown),
        cmocka_unit_test_setup_teardown(test_change_add_then_delete, setup, teardown),
        cmocka_unit_test_setup_teardown(test_change_in_flight_at_close, setup, teardown),
        cmocka_unit_test_setup_teardown(test_let_go_forgotten_with_last_flow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_change_refused_and_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_xid_wrap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_view_forgets_switch, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
