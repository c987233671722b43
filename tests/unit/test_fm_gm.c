/*
 * test_fm_gm: a switch's groups and meters as the flow manager keeps them
 * (fm_gm.h), with a fake way to the switch, a fake clock and the memory
 * store: a put is stored and laid (ADD, then a barrier; the barrier's reply
 * installs it, an OFPT_ERROR marks it error with the switch's type/code);
 * they go in a batch of their own ahead of flows queued with them; an ADD
 * the switch refuses as existing is sent again as a MODIFY of the stored
 * version (and a MODIFY refused as unknown as an ADD), once; a put again is
 * a MODIFY, and an old barrier does not install the new version; a delete
 * sends a DELETE of the id and forgets it; a restart loads them and a
 * connect lays every one; bad input is refused. In a cluster every node's
 * record is followed through the store's watch (laid once, a repeat
 * changes nothing, a change is a MODIFY, a delete a DELETE) and a node not
 * the switch's master sends nothing and says "unknown".
 * The check (fm_gm_check.c), after a flow check: what the switch lists and
 * ofcd does not store is deleted, a confirmed one that differs is put back,
 * a confirmed one not listed is laid again, pending ones are left alone,
 * answers not asked for are ignored and a list past its bounds dropped.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fm.h"
#include "fm_gm.h"
#include "of_event.h"
#include "ofp_group.h"
#include "ofp_meter.h"
#include "ofp_mp.h"
#include "ofp_msg.h"
#include "store.h"

#define DPID 0x2002ull
#define CONN 0x0000000100000001ull

struct sent {
    uint8_t type;
    uint32_t xid;
    uint16_t command;               /* GROUP_MOD / METER_MOD */
    uint32_t id;
    uint16_t mp_type;               /* MULTIPART_REQUEST */
};

struct t {
    struct store *store;
    struct fm *fm;
    struct fm_cfg cfg;
    struct sent sent[20000];
    unsigned n_sent;
    unsigned room;
    bool not_master;                /* a cluster node that is not the switch's master */
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

    (void)conn;
    if (msg[1] == OFPT_GROUP_MOD || msg[1] == OFPT_METER_MOD || msg[1] == OFPT_BARRIER_REQUEST)
        assert_int_equal(cls, OFP_PRIO_P3);      /* behind control traffic */
    assert_true(t->n_sent < 20000);
    assert_int_equal(ofp_decode(msg, len, &m, &err), 0);
    struct sent *s = &t->sent[t->n_sent++];
    *s = (struct sent){.type = msg[1], .xid = m.hdr.xid};
    if (s->type == OFPT_GROUP_MOD) {
        s->command = m.u.group_mod.command;
        s->id = m.u.group_mod.group_id;
    } else if (s->type == OFPT_METER_MOD) {
        s->command = m.u.meter_mod.command;
        s->id = m.u.meter_mod.meter_id;
    } else if (s->type == OFPT_MULTIPART_REQUEST) {
        s->mp_type = m.u.mp_request.type;
    }
    return 0;
}

static uint64_t f_now(void *arg)
{
    (void)arg;
    return 1000000000ull;
}

static bool f_may_write(void *arg, uint64_t dpid)
{
    (void)dpid;
    return !((struct t *)arg)->not_master;
}

static int f_decode(const char *text, size_t len, struct fm_flow *out)
{
    (void)text;
    (void)len;
    (void)out;
    return -EINVAL;
}

static void open_fm(struct t *t)
{
    struct fm_env env = {.arg = t, .room = f_room, .send = f_send, .now_us = f_now,
                         .decode = f_decode, .may_write = f_may_write};
    t->fm = fm_create(&t->cfg, &env, t->store);
    assert_non_null(t->fm);
}

static int setup(void **state)
{
    struct t *t = calloc(1, sizeof(*t));
    struct store_config sc = {.backend = STORE_BACKEND_MEMORY};
    assert_non_null(t);
    t->store = store_open(&sc);
    assert_non_null(t->store);
    t->cfg.queue_max = 1000;
    t->room = 1000;
    open_fm(t);
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    struct t *t = *state;
    store_close(t->store);
    fm_destroy(t->fm);
    free(t);
    return 0;
}

static void event(struct t *t, uint16_t kind, const uint8_t *msg, size_t len)
{
    struct of_event_hdr h = {.dpid = DPID};
    struct qmsg *q = calloc(1, sizeof(*q) + sizeof(h) + len);
    assert_non_null(q);
    q->kind = kind;
    q->conn = CONN;
    q->len = (uint32_t)(sizeof(h) + len);
    memcpy(q->data, &h, sizeof(h));
    if (len)
        memcpy(q->data + sizeof(h), msg, len);
    fm_on_event(t->fm, q);
    free(q);
}

static void reply(struct t *t, struct ofp_msg *m)
{
    static uint8_t buf[65536];
    struct ofp_buf b;
    ofp_buf_init(&b, buf, sizeof(buf));
    assert_int_equal(ofp_encode(&b, m), 0);
    event(t, QMSG_EV_OF, b.data, b.len);
}

static void barrier_reply(struct t *t, uint32_t xid)
{
    struct ofp_msg m = {.hdr = {.version = OFP13_VERSION, .type = OFPT_BARRIER_REPLY, .xid = xid}};
    reply(t, &m);
}

static void error_reply(struct t *t, uint32_t xid, uint16_t type, uint16_t code)
{
    static const uint8_t data[8] = {OFP13_VERSION, OFPT_GROUP_MOD};
    struct ofp_msg m = {.hdr = {.version = OFP13_VERSION, .type = OFPT_ERROR, .xid = xid}};
    m.u.error.type = type;
    m.u.error.code = code;
    m.u.error.data = data;
    m.u.error.data_len = sizeof(data);
    reply(t, &m);
}

/* An ADD GROUP_MOD: type ALL, one bucket sending to port. */
static size_t group_wire(uint8_t *buf, size_t cap, uint32_t id, uint32_t port)
{
    struct ofp_action out = {.type = OFPAT_OUTPUT, .u.output = {.port = port, .max_len = 0}};
    struct ofp_bucket bk = {.watch_port = OFPP_ANY, .watch_group = OFPG_ANY,
                            .actions = {.arr = &out, .n = 1}};
    struct ofp_group_mod gm = {.command = OFPGC_ADD, .type = OFPGT_ALL, .group_id = id,
                               .buckets = {.arr = &bk, .n = 1}};
    struct ofp_buf b;
    ofp_buf_init(&b, buf, cap);
    assert_int_equal(ofp_group_mod_encode(&b, 0, &gm), 0);
    return b.len;
}

static size_t meter_wire(uint8_t *buf, size_t cap, uint32_t id, uint32_t rate)
{
    struct ofp_meter_band band = {.type = OFPMBT_DROP, .rate = rate, .burst_size = 0};
    struct ofp_meter_mod mm = {.command = OFPMC_ADD, .flags = OFPMF_KBPS, .meter_id = id,
                               .bands = {.arr = &band, .n = 1}};
    struct ofp_buf b;
    ofp_buf_init(&b, buf, cap);
    assert_int_equal(ofp_meter_mod_encode(&b, 0, &mm), 0);
    return b.len;
}

static int put_group(struct t *t, uint32_t id, uint32_t port)
{
    uint8_t w[256];
    char text[64];
    size_t n = group_wire(w, sizeof(w), id, port);
    int tl = snprintf(text, sizeof(text), "{\"group_id\": %u, \"port\": %u}", id, port);
    return fm_gm_put(t->fm, DPID, w, n, text, (size_t)tl);
}

static int put_meter(struct t *t, uint32_t id, uint32_t rate)
{
    uint8_t w[256];
    size_t n = meter_wire(w, sizeof(w), id, rate);
    return fm_gm_put(t->fm, DPID, w, n, "{}", 2);
}

static void switch_up(struct t *t)
{
    event(t, QMSG_EV_SWITCH_UP, NULL, 0);
}

/* The one stored of (kind, id): its state; -1 when none. */
static int state_of(struct t *t, enum fm_gm_kind kind, uint32_t id, uint16_t *etype,
                    uint16_t *ecode)
{
    struct fm_gm_info *v;
    int n = fm_gm_list(t->fm, DPID, kind, &v), st = -1;
    assert_true(n >= 0);
    for (int i = 0; i < n; i++)
        if (v[i].id == id) {
            st = (int)v[i].state;
            if (etype)
                *etype = v[i].err_type;
            if (ecode)
                *ecode = v[i].err_code;
        }
    fm_gm_infos_free(v, n);
    return st;
}

static unsigned count_type(const struct t *t, unsigned from, uint8_t type)
{
    unsigned n = 0;
    for (unsigned i = from; i < t->n_sent; i++)
        n += t->sent[i].type == type;
    return n;
}

static const struct sent *last_of(struct t *t, uint8_t type)
{
    for (unsigned i = t->n_sent; i-- > 0;)
        if (t->sent[i].type == type)
            return &t->sent[i];
    fail_msg("no message of type %u sent", type);
    return NULL;
}

static void test_put_laid_and_confirmed(void **state)
{
    struct t *t = *state;

    assert_int_equal(put_group(t, 7, 3), 0);
    assert_int_equal(put_meter(t, 2, 1000), 0);
    assert_int_equal(t->n_sent, 0);                 /* the switch is not up */
    assert_int_equal(state_of(t, FM_GM_GROUP, 7, NULL, NULL), FM_GM_PENDING);
    switch_up(t);
    /* Both ADDs, then their barrier, then the flow-statistics request. */
    assert_true(t->n_sent >= 3);
    assert_int_equal(t->sent[0].type, OFPT_GROUP_MOD);
    assert_int_equal(t->sent[0].command, OFPGC_ADD);
    assert_int_equal(t->sent[0].id, 7);
    assert_int_equal(t->sent[1].type, OFPT_METER_MOD);
    assert_int_equal(t->sent[1].command, OFPMC_ADD);
    assert_int_equal(t->sent[1].id, 2);
    assert_int_equal(t->sent[2].type, OFPT_BARRIER_REQUEST);
    assert_int_equal(state_of(t, FM_GM_GROUP, 7, NULL, NULL), FM_GM_PENDING);
    barrier_reply(t, t->sent[2].xid);
    assert_int_equal(state_of(t, FM_GM_GROUP, 7, NULL, NULL), FM_GM_INSTALLED);
    assert_int_equal(state_of(t, FM_GM_METER, 2, NULL, NULL), FM_GM_INSTALLED);
    struct fm_stats st;
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.gm_mods_sent, 2);
    assert_int_equal(st.gm_installed, 2);

    /* The list says what the client sent. */
    struct fm_gm_info *v;
    int n = fm_gm_list(t->fm, DPID, 0, &v);
    assert_int_equal(n, 2);
    assert_int_equal(v[0].kind, FM_GM_GROUP);
    assert_string_equal(v[0].text, "{\"group_id\": 7, \"port\": 3}");
    assert_int_equal(v[1].kind, FM_GM_METER);
    fm_gm_infos_free(v, n);
}

static void test_rejected_marks_error(void **state)
{
    struct t *t = *state;

    switch_up(t);
    unsigned from = t->n_sent;
    assert_int_equal(put_group(t, 9, 4), 0);
    assert_int_equal(t->n_sent, from + 2);          /* ADD and its barrier, at once */
    const struct sent *add = &t->sent[from];
    assert_int_equal(add->command, OFPGC_ADD);
    error_reply(t, add->xid, OFPET_GROUP_MOD_FAILED, OFPGMFC_OUT_OF_GROUPS);
    barrier_reply(t, t->sent[from + 1].xid);
    uint16_t ty, co;
    assert_int_equal(state_of(t, FM_GM_GROUP, 9, &ty, &co), FM_GM_ERROR);
    assert_int_equal(ty, OFPET_GROUP_MOD_FAILED);
    assert_int_equal(co, OFPGMFC_OUT_OF_GROUPS);
    assert_int_equal(t->n_sent, from + 2);          /* no retry of that */
}

static void test_exists_becomes_modify_once(void **state)
{
    struct t *t = *state;

    assert_int_equal(put_group(t, 5, 1), 0);
    switch_up(t);                                   /* the switch kept group 5 */
    const struct sent add = t->sent[0];
    assert_int_equal(add.command, OFPGC_ADD);
    error_reply(t, add.xid, OFPET_GROUP_MOD_FAILED, OFPGMFC_GROUP_EXISTS);
    error_reply(t, add.xid, OFPET_GROUP_MOD_FAILED, OFPGMFC_GROUP_EXISTS);   /* said twice */
    assert_int_equal(state_of(t, FM_GM_GROUP, 5, NULL, NULL), FM_GM_PENDING);
    barrier_reply(t, t->sent[1].xid);
    assert_int_equal(state_of(t, FM_GM_GROUP, 5, NULL, NULL), FM_GM_PENDING);
    fm_tick(t->fm);
    const struct sent *mod = last_of(t, OFPT_GROUP_MOD);
    assert_int_equal(mod->command, OFPGC_MODIFY);
    assert_int_equal(mod->id, 5);
    barrier_reply(t, last_of(t, OFPT_BARRIER_REQUEST)->xid);
    assert_int_equal(state_of(t, FM_GM_GROUP, 5, NULL, NULL), FM_GM_INSTALLED);

    /* A meter whose fallback is refused too ends in error: no ping-pong. */
    assert_int_equal(put_meter(t, 3, 500), 0);
    const struct sent madd = *last_of(t, OFPT_METER_MOD);
    error_reply(t, madd.xid, OFPET_METER_MOD_FAILED, OFPMMFC_METER_EXISTS);
    fm_tick(t->fm);
    const struct sent mmod = *last_of(t, OFPT_METER_MOD);
    assert_int_equal(mmod.command, OFPMC_MODIFY);
    error_reply(t, mmod.xid, OFPET_METER_MOD_FAILED, OFPMMFC_UNKNOWN_METER);
    fm_tick(t->fm);
    assert_int_equal(last_of(t, OFPT_METER_MOD)->xid, mmod.xid);
    uint16_t ty, co;
    assert_int_equal(state_of(t, FM_GM_METER, 3, &ty, &co), FM_GM_ERROR);
    assert_int_equal(co, OFPMMFC_UNKNOWN_METER);
    struct fm_stats st;
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.gm_fallbacks, 2);
}

static void test_put_again_is_modify(void **state)
{
    struct t *t = *state;

    switch_up(t);
    assert_int_equal(put_group(t, 1, 2), 0);
    uint32_t first_barrier = last_of(t, OFPT_BARRIER_REQUEST)->xid;
    assert_int_equal(put_group(t, 1, 3), 0);        /* before the first is answered */
    const struct sent *mod = last_of(t, OFPT_GROUP_MOD);
    assert_int_equal(mod->command, OFPGC_MODIFY);
    uint32_t second_barrier = last_of(t, OFPT_BARRIER_REQUEST)->xid;
    assert_int_not_equal(first_barrier, second_barrier);
    /* The first barrier answers for the first version, not the second. */
    barrier_reply(t, first_barrier);
    assert_int_equal(state_of(t, FM_GM_GROUP, 1, NULL, NULL), FM_GM_PENDING);
    barrier_reply(t, second_barrier);
    assert_int_equal(state_of(t, FM_GM_GROUP, 1, NULL, NULL), FM_GM_INSTALLED);
    struct fm_gm_info *v;
    int n = fm_gm_list(t->fm, DPID, FM_GM_GROUP, &v);
    assert_int_equal(n, 1);
    assert_string_equal(v[0].text, "{\"group_id\": 1, \"port\": 3}");
    fm_gm_infos_free(v, n);
}

static void test_groups_go_before_flows(void **state)
{
    struct t *t = *state;

    switch_up(t);
    unsigned from = t->n_sent;
    t->room = 0;                                    /* nothing leaves yet */
    for (uint32_t g = 100; g < 400; g++)            /* more than one batch of them */
        assert_int_equal(put_group(t, g, 1), 0);
    assert_int_equal(put_group(t, 4, 1), 0);
    struct fm_flow f;
    memset(&f, 0, sizeof(f));
    f.mod.command = OFPFC_ADD;
    f.mod.priority = 10;
    f.mod.buffer_id = OFP_NO_BUFFER;
    f.mod.out_port = OFPP_ANY;
    f.mod.out_group = OFPG_ANY;
    f.apply[0] = (struct ofp_action){.type = OFPAT_GROUP, .u.group_id = 4};
    f.mod.inst.present = OFP_INST_APPLY_ACTIONS;
    f.mod.inst.apply_actions.n = 1;
    fm_flow_fixup(&f);
    uint64_t mid = 1, fid = 1;
    /* fm_add lays what the store holds in that version. */
    struct store_flow sf = {.dpid = DPID, .match_id = mid, .flow_id = fid, .json = "{}",
                            .json_len = 2};
    assert_int_equal(store_put(t->store, &sf), 0);
    assert_int_equal(fm_add(t->fm, DPID, &f, &mid, &fid, 1), 0);
    assert_int_equal(t->n_sent, from);
    t->room = 1000;
    fm_tick(t->fm);                                 /* a batch of 256, no flow yet */
    assert_int_equal(t->n_sent, from + 257);
    assert_int_equal(count_type(t, from, OFPT_FLOW_MOD), 0);
    fm_tick(t->fm);                                 /* the other 45, then the flow */
    assert_int_equal(t->n_sent, from + 257 + 46 + 2);
    assert_int_equal(t->sent[from + 257 + 44].type, OFPT_GROUP_MOD);
    assert_int_equal(t->sent[from + 257 + 44].id, 4);
    assert_int_equal(t->sent[from + 257 + 45].type, OFPT_BARRIER_REQUEST);
    assert_int_equal(t->sent[from + 257 + 46].type, OFPT_FLOW_MOD);
    assert_int_equal(t->sent[from + 257 + 47].type, OFPT_BARRIER_REQUEST);
}

static void test_delete_sends_delete(void **state)
{
    struct t *t = *state;

    switch_up(t);
    assert_int_equal(put_meter(t, 6, 100), 0);
    assert_int_equal(fm_gm_del(t->fm, DPID, FM_GM_METER, 6), 0);
    const struct sent *del = last_of(t, OFPT_METER_MOD);
    assert_int_equal(del->command, OFPMC_DELETE);
    assert_int_equal(del->id, 6);
    assert_int_equal(state_of(t, FM_GM_METER, 6, NULL, NULL), -1);
    assert_int_equal(fm_gm_del(t->fm, DPID, FM_GM_METER, 6), -ENOENT);
    assert_int_equal(fm_gm_del(t->fm, DPID, FM_GM_GROUP, 6), -ENOENT);
    /* The barrier after a delete installs nothing. */
    barrier_reply(t, last_of(t, OFPT_BARRIER_REQUEST)->xid);
    char *val;
    size_t len;
    assert_int_equal(store_kv_get(t->store, "fm/gm/0000000000002002/m/00000006", &val, &len),
                     -ENOENT);
}

static void test_restart_lays_again(void **state)
{
    struct t *t = *state;

    assert_int_equal(put_group(t, 11, 2), 0);
    assert_int_equal(put_group(t, 12, 2), 0);
    assert_int_equal(put_meter(t, 1, 64), 0);
    assert_int_equal(fm_gm_del(t->fm, DPID, FM_GM_GROUP, 12), 0);
    fm_destroy(t->fm);
    open_fm(t);
    assert_int_equal(fm_state(t->fm, DPID), FM_SW_DOWN);   /* known by its records */
    switch_up(t);
    unsigned groups = 0, meters = 0;
    for (unsigned i = 0; i < t->n_sent; i++) {
        if (t->sent[i].type == OFPT_GROUP_MOD) {
            assert_int_equal(t->sent[i].id, 11);
            assert_int_equal(t->sent[i].command, OFPGC_ADD);
            groups++;
        }
        meters += t->sent[i].type == OFPT_METER_MOD;
    }
    assert_int_equal(groups, 1);
    assert_int_equal(meters, 1);

    /* Down before the barrier: up again lays them again. */
    event(t, QMSG_EV_SWITCH_DOWN, NULL, 0);
    unsigned from = t->n_sent;
    switch_up(t);
    assert_int_equal(t->sent[from].type, OFPT_GROUP_MOD);
    assert_int_equal(t->sent[from].command, OFPGC_ADD);
}

static void test_bad_input(void **state)
{
    struct t *t = *state;
    uint8_t w[256];
    size_t n = group_wire(w, sizeof(w), 3, 1);

    w[9] = OFPGC_MODIFY;                            /* only an ADD is a record */
    assert_int_equal(fm_gm_put(t->fm, DPID, w, n, "", 0), -EINVAL);
    w[9] = OFPGC_ADD;
    assert_int_equal(fm_gm_put(t->fm, DPID, w, n - 1, "", 0), -EINVAL);
    w[1] = OFPT_FLOW_MOD;
    assert_int_equal(fm_gm_put(t->fm, DPID, w, n, "", 0), -EINVAL);
    w[1] = OFPT_GROUP_MOD;
    assert_int_equal(fm_gm_put(t->fm, DPID, w, n, "", FM_GM_TEXT_MAX + 1), -EINVAL);
    assert_int_equal(fm_gm_put(t->fm, DPID, w, n, "", 0), 0);

}

/* The store's watch as a cluster node's (app/cluster_store.c): every
 * node's group and meter records to this node's flow manager. */
static void t_watch(void *arg, uint64_t seq, const struct store_change *c, size_t n)
{
    struct t *t = arg;
    (void)seq;
    for (size_t i = 0; i < n; i++)
        if (c[i].kind == STORE_CHANGE_KV && fm_gm_is_key(c[i].key))
            assert_int_equal(fm_gm_follow(t->fm, c[i].key, c[i].removed), 0);
}

/* Messages of type sent from index from on: how many, the last one's
 * command and id. */
static unsigned sent_since(const struct t *t, unsigned from, uint8_t type, uint16_t *cmd,
                           uint32_t *id)
{
    unsigned n = 0;
    for (unsigned i = from; i < t->n_sent; i++)
        if (t->sent[i].type == type) {
            n++;
            *cmd = t->sent[i].command;
            *id = t->sent[i].id;
        }
    return n;
}

static void test_cluster_follows_every_node(void **state)
{
    struct t *t = *state;
    uint16_t cmd = 0;
    uint32_t id = 0;

    fm_destroy(t->fm);
    t->cfg.shared_store = true;
    open_fm(t);
    assert_int_equal(store_watch(t->store, t_watch, t), 0);
    /* Another node: its own flow manager on the same store, its switch
     * never up here. */
    struct t other = {.store = t->store, .cfg = t->cfg, .room = 1000};
    open_fm(&other);
    switch_up(t);

    /* This node's put: laid once, by the watch's mirror (not twice). */
    unsigned from = t->n_sent;
    assert_int_equal(put_group(t, 7, 3), 0);
    assert_int_equal(sent_since(t, from, OFPT_GROUP_MOD, &cmd, &id), 1);
    assert_int_equal(cmd, OFPGC_ADD);
    assert_int_equal(id, 7);
    barrier_reply(t, last_of(t, OFPT_BARRIER_REQUEST)->xid);
    assert_int_equal(state_of(t, FM_GM_GROUP, 7, NULL, NULL), FM_GM_INSTALLED);

    /* The other node's put reaches this node's switch; the same record
     * again changes nothing; a changed one is a MODIFY of what it holds. */
    from = t->n_sent;
    assert_int_equal(put_group(&other, 8, 2), 0);
    assert_int_equal(sent_since(t, from, OFPT_GROUP_MOD, &cmd, &id), 1);
    assert_int_equal(cmd, OFPGC_ADD);
    assert_int_equal(id, 8);
    from = t->n_sent;
    assert_int_equal(put_group(&other, 8, 2), 0);
    assert_int_equal(sent_since(t, from, OFPT_GROUP_MOD, &cmd, &id), 0);
    assert_int_equal(put_group(&other, 7, 4), 0);
    assert_int_equal(sent_since(t, from, OFPT_GROUP_MOD, &cmd, &id), 1);
    assert_int_equal(cmd, OFPGC_MODIFY);
    assert_int_equal(id, 7);
    struct fm_gm_info one;
    assert_int_equal(fm_gm_get(t->fm, DPID, FM_GM_GROUP, 7, &one), 0);
    assert_string_equal(one.text, "{\"group_id\": 7, \"port\": 4}");
    free(one.text);

    /* The other node's delete: this node's switch gets the DELETE. */
    from = t->n_sent;
    assert_int_equal(fm_gm_del(other.fm, DPID, FM_GM_GROUP, 8), 0);
    assert_int_equal(sent_since(t, from, OFPT_GROUP_MOD, &cmd, &id), 1);
    assert_int_equal(cmd, OFPGC_DELETE);
    assert_int_equal(id, 8);
    assert_int_equal(state_of(t, FM_GM_GROUP, 8, NULL, NULL), -1);

    /* Not the switch's master: nothing sent, the state not known here;
     * master again, what waited goes. */
    t->not_master = true;
    assert_int_equal(state_of(t, FM_GM_GROUP, 7, NULL, NULL), FM_GM_UNKNOWN);
    from = t->n_sent;
    assert_int_equal(put_meter(&other, 3, 500), 0);
    assert_int_equal(t->n_sent, from);
    assert_int_equal(state_of(t, FM_GM_METER, 3, NULL, NULL), FM_GM_UNKNOWN);
    /* What changed meanwhile is laid as it stands, not replayed: a group
     * deleted and put again is one ADD, never a DELETE (which would drop
     * the switch's flows that use it). */
    assert_int_equal(put_group(&other, 5, 1), 0);
    assert_int_equal(fm_gm_del(other.fm, DPID, FM_GM_GROUP, 5), 0);
    assert_int_equal(put_group(&other, 5, 2), 0);
    for (unsigned i = 0; i < FM_GM_QUEUE_MAX + 10; i++)   /* nothing queued: never busy */
        assert_int_equal(put_group(&other, 6, 1 + i % 2), 0);
    assert_int_equal(t->n_sent, from);
    t->not_master = false;
    fm_tick(t->fm);
    assert_int_equal(sent_since(t, from, OFPT_METER_MOD, &cmd, &id), 1);
    assert_int_equal(cmd, OFPMC_ADD);
    assert_int_equal(id, 3);
    unsigned groups = 0;
    for (unsigned i = from; i < t->n_sent; i++)
        if (t->sent[i].type == OFPT_GROUP_MOD) {
            assert_int_equal(t->sent[i].command, OFPGC_ADD);
            groups++;
        }
    assert_int_equal(groups, 3);                    /* 5, 6 and 7, once each */
    assert_int_equal(state_of(t, FM_GM_METER, 3, NULL, NULL), FM_GM_PENDING);

    /* A record no ofcd can lay is refused, the mirror left as it was. */
    assert_int_equal(store_watch(t->store, NULL, NULL), 0);
    assert_int_equal(store_kv_put(t->store, "fm/gm/0000000000002002/g/00000009", "junk", 4), 0);
    assert_int_equal(fm_gm_follow(t->fm, "fm/gm/0000000000002002/g/00000009", false), -EINVAL);
    assert_int_equal(fm_gm_follow(t->fm, "topo/links", false), -EINVAL);
    assert_int_equal(state_of(t, FM_GM_GROUP, 9, NULL, NULL), -1);
    struct fm_stats st;
    fm_get_stats(t->fm, &st);
    /* 7, 8, 7 changed, 8 deleted, meter 3, 5 thrice, 6 each time it changed */
    assert_int_equal(st.gm_followed, 8 + FM_GM_QUEUE_MAX + 10);
    assert_int_equal(st.gm_unqueued, 0);
    fm_destroy(other.fm);
}

static void test_queue_and_table_bounds(void **state)
{
    struct t *t = *state;

    switch_up(t);
    t->room = 0;                                    /* the switch reads nothing */
    for (uint32_t i = 0; i < FM_GM_PER_SWITCH; i++) {
        assert_int_equal(put_group(t, i, 1), 0);
        assert_int_equal(put_meter(t, i + 1, 100), 0);
    }
    /* A new id past the table's bound: refused, nothing stored. */
    assert_int_equal(put_group(t, FM_GM_PER_SWITCH, 1), -ENOSPC);
    /* The queue holds FM_GM_QUEUE_MAX: a replacement waits for room. */
    assert_int_equal(put_group(t, 0, 2), -EBUSY);
    assert_int_equal(fm_gm_del(t->fm, DPID, FM_GM_GROUP, 0), -EBUSY);
    struct fm_gm_info *v;
    int n = fm_gm_list(t->fm, DPID, FM_GM_GROUP, &v);
    assert_int_equal(n, FM_GM_PER_SWITCH);
    assert_string_equal(v[0].text, "{\"group_id\": 0, \"port\": 1}");
    fm_gm_infos_free(v, n);
    t->room = 100000;
    fm_tick(t->fm);
    assert_int_equal(put_group(t, 0, 2), 0);
}

/* ---- the check ---------------------------------------------------------------- */

/* The last multipart request of type sent: its xid. */
static uint32_t request_xid(struct t *t, uint16_t mp_type)
{
    for (unsigned i = t->n_sent; i-- > 0;)
        if (t->sent[i].type == OFPT_MULTIPART_REQUEST && t->sent[i].mp_type == mp_type)
            return t->sent[i].xid;
    fail_msg("no multipart request of type %u sent", mp_type);
    return 0;
}

static void mp_reply(struct t *t, uint32_t xid, uint16_t type, const uint8_t *body, size_t len,
                     bool more)
{
    struct ofp_msg m = {.hdr = {.version = OFP13_VERSION, .type = OFPT_MULTIPART_REPLY,
                                .xid = xid}};
    m.u.mp_reply.type = type;
    m.u.mp_reply.flags = more ? OFPMPF_REPLY_MORE : 0;
    m.u.mp_reply.body = body;
    m.u.mp_reply.body_len = (uint16_t)len;
    reply(t, &m);
}

/* Connected, every stored one confirmed, and the flow check done: the
 * groups-and-meters requests are out. */
static void up_confirmed_checked(struct t *t)
{
    switch_up(t);
    barrier_reply(t, last_of(t, OFPT_BARRIER_REQUEST)->xid);
    mp_reply(t, request_xid(t, OFPMP_FLOW), OFPMP_FLOW, NULL, 0, false);
}

/* A group as the switch lists it (GROUP_DESC entry): type ALL, one bucket to port. */
static size_t desc_put(uint8_t *body, size_t off, uint32_t id, uint32_t port)
{
    struct ofp_action out = {.type = OFPAT_OUTPUT, .u.output = {.port = port, .max_len = 0}};
    struct ofp_bucket bk = {.watch_port = OFPP_ANY, .watch_group = OFPG_ANY,
                            .actions = {.arr = &out, .n = 1}};
    struct ofp_group_desc d = {.type = OFPGT_ALL, .group_id = id, .buckets = {.arr = &bk, .n = 1}};
    struct ofp_buf b;
    ofp_buf_init(&b, body + off, 4096 - off);
    assert_int_equal(ofp_group_desc_put(&b, &d), 0);
    return off + b.len;
}

/* A METER_CONFIG entry: flags KBPS, one DROP band at rate. */
static size_t meter_config_put(uint8_t *body, size_t off, uint32_t id, uint32_t rate)
{
    uint8_t *p = body + off;
    memset(p, 0, 24);
    p[1] = 24;
    p[3] = OFPMF_KBPS;
    p[4] = (uint8_t)(id >> 24), p[5] = (uint8_t)(id >> 16), p[6] = (uint8_t)(id >> 8);
    p[7] = (uint8_t)id;
    p[9] = OFPMBT_DROP;
    p[11] = 16;
    p[12] = (uint8_t)(rate >> 24), p[13] = (uint8_t)(rate >> 16), p[14] = (uint8_t)(rate >> 8);
    p[15] = (uint8_t)rate;
    return off + 24;
}

static unsigned count_cmd(struct t *t, unsigned from, uint8_t type, uint16_t cmd, uint32_t id)
{
    unsigned n = 0;
    for (unsigned i = from; i < t->n_sent; i++)
        n += t->sent[i].type == type && t->sent[i].command == cmd && t->sent[i].id == id;
    return n;
}

static void test_check_judges_the_switch(void **state)
{
    struct t *t = *state;
    uint8_t body[4096];
    size_t n = 0;

    fm_destroy(t->fm);
    t->cfg.consistency = true;
    open_fm(t);
    assert_int_equal(put_group(t, 7, 3), 0);       /* the switch will list it changed */
    assert_int_equal(put_group(t, 8, 3), 0);       /* listed as stored */
    assert_int_equal(put_meter(t, 2, 1000), 0);    /* not listed: laid again */
    assert_int_equal(put_meter(t, 4, 64), 0);      /* listed as stored */
    up_confirmed_checked(t);
    uint32_t gx = request_xid(t, OFPMP_GROUP_DESC), mx = request_xid(t, OFPMP_METER_CONFIG);
    unsigned from = t->n_sent;

    /* Another xid (not asked for) changes nothing. */
    n = desc_put(body, 0, 50, 1);
    mp_reply(t, gx + 100, OFPMP_GROUP_DESC, body, n, false);
    assert_int_equal(t->n_sent, from);

    n = desc_put(body, 0, 7, 9);                    /* bucket to 9, stored: 3 */
    n = desc_put(body, n, 8, 3);
    mp_reply(t, gx, OFPMP_GROUP_DESC, body, n, true);
    n = desc_put(body, 0, 50, 1);                   /* alien, in the second part */
    mp_reply(t, gx, OFPMP_GROUP_DESC, body, n, false);
    assert_int_equal(count_cmd(t, from, OFPT_GROUP_MOD, OFPGC_MODIFY, 7), 1);
    assert_int_equal(count_cmd(t, from, OFPT_GROUP_MOD, OFPGC_DELETE, 50), 1);
    assert_int_equal(count_cmd(t, from, OFPT_GROUP_MOD, OFPGC_MODIFY, 8) +
                     count_cmd(t, from, OFPT_GROUP_MOD, OFPGC_ADD, 8), 0);
    assert_int_equal(state_of(t, FM_GM_GROUP, 7, NULL, NULL), FM_GM_PENDING);
    assert_int_equal(state_of(t, FM_GM_GROUP, 8, NULL, NULL), FM_GM_INSTALLED);

    n = meter_config_put(body, 0, 4, 64);
    n = meter_config_put(body, n, 61, 5);           /* alien */
    mp_reply(t, mx, OFPMP_METER_CONFIG, body, n, false);
    assert_int_equal(count_cmd(t, from, OFPT_METER_MOD, OFPMC_DELETE, 61), 1);
    assert_int_equal(count_cmd(t, from, OFPT_METER_MOD, OFPMC_ADD, 2), 1);
    assert_int_equal(count_cmd(t, from, OFPT_METER_MOD, OFPMC_MODIFY, 4) +
                     count_cmd(t, from, OFPT_METER_MOD, OFPMC_ADD, 4), 0);
    struct fm_stats st;
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.gm_alien_deleted, 2);
    assert_int_equal(st.gm_changed_relaid, 1);
    assert_int_equal(st.gm_missing_relaid, 1);
    assert_int_equal(st.gm_checks, 2);

    /* The answer is over: a late part of it is not judged again. */
    from = t->n_sent;
    mp_reply(t, gx, OFPMP_GROUP_DESC, body, desc_put(body, 0, 51, 1), false);
    assert_int_equal(t->n_sent, from);
}

static void test_check_leaves_pending_and_bounds(void **state)
{
    struct t *t = *state;
    uint8_t body[4096];

    fm_destroy(t->fm);
    t->cfg.consistency = true;
    t->cfg.window_us = 0;                           /* every poll checks */
    open_fm(t);
    switch_up(t);
    assert_int_equal(put_group(t, 5, 1), 0);       /* sent, its barrier not answered */
    mp_reply(t, request_xid(t, OFPMP_FLOW), OFPMP_FLOW, NULL, 0, false);
    uint32_t gx = request_xid(t, OFPMP_GROUP_DESC);
    unsigned from = t->n_sent;
    mp_reply(t, gx, OFPMP_GROUP_DESC, NULL, 0, false);
    assert_int_equal(t->n_sent, from);              /* pending: not "missing" yet */
    /* Its barrier lost: the next check (a worker's poll, xid 7, the window
     * 0) finds it pending again and sends it. */
    mp_reply(t, 7, OFPMP_FLOW, NULL, 0, false);
    gx = request_xid(t, OFPMP_GROUP_DESC);
    mp_reply(t, gx, OFPMP_GROUP_DESC, NULL, 0, false);
    assert_int_equal(count_cmd(t, from, OFPT_GROUP_MOD, OFPGC_ADD, 5), 1);
    /* Listed as stored while pending: confirmed. */
    assert_int_equal(state_of(t, FM_GM_GROUP, 5, NULL, NULL), FM_GM_PENDING);
    mp_reply(t, 7, OFPMP_FLOW, NULL, 0, false);
    mp_reply(t, request_xid(t, OFPMP_GROUP_DESC), OFPMP_GROUP_DESC, body,
             desc_put(body, 0, 5, 1), false);
    assert_int_equal(state_of(t, FM_GM_GROUP, 5, NULL, NULL), FM_GM_INSTALLED);

    /* Check off: no request at all. */
    fm_destroy(t->fm);
    t->cfg.consistency = false;
    open_fm(t);
    from = t->n_sent;
    switch_up(t);
    mp_reply(t, request_xid(t, OFPMP_FLOW), OFPMP_FLOW, NULL, 0, false);
    for (unsigned i = from; i < t->n_sent; i++)
        assert_true(t->sent[i].type != OFPT_MULTIPART_REQUEST ||
                    t->sent[i].mp_type == OFPMP_FLOW);

    /* A list without end: dropped after its bound, each part judged until then. */
    fm_destroy(t->fm);
    t->cfg.consistency = true;
    open_fm(t);
    up_confirmed_checked(t);
    gx = request_xid(t, OFPMP_GROUP_DESC);
    for (uint32_t i = 0; i < 100; i++)
        mp_reply(t, gx, OFPMP_GROUP_DESC, body, desc_put(body, 0, 1000 + i, 1), true);
    struct fm_stats st;
    fm_get_stats(t->fm, &st);
    assert_int_equal(st.gm_check_abandoned, 1);
    assert_int_equal(st.gm_alien_deleted, 64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_put_laid_and_confirmed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rejected_marks_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exists_becomes_modify_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_put_again_is_modify, setup, teardown),
        cmocka_unit_test_setup_teardown(test_groups_go_before_flows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delete_sends_delete, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart_lays_again, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cluster_follows_every_node, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queue_and_table_bounds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_check_judges_the_switch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_check_leaves_pending_and_bounds, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
