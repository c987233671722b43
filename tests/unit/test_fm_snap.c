/*
 * test_fm_snap: a switch's flow-statistics snapshot and the typed walk
 * GET v2/flows reads it by. A reply's parts become the snapshot only once
 * complete; a part of a new xid drops the reply being gathered; a reply
 * past its bounds or the shared budget is refused, named, then abandoned
 * (the rest of it ignored) while the snapshot before it stays; the bytes
 * held by all switches are counted exactly. The copy GET takes is walked
 * as typed flows (the flow, its identity, the switch's counts), entries
 * with more actions than a flow holds left out, and a later reply does not
 * change a copy already taken.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fm_flow.h"
#include "fm_snap.h"
#include "ofp_msg.h"
#include "ofp_test_util.h"

#define DPID 0x42ull

static struct ofp_action outputs[40];

/* The flow of priority prio matching in_port port, sending to n_actions
 * ports, as a switch reports it. */
static void entry(struct ofp_flow_stats *fs, uint16_t prio, uint32_t port, unsigned n_actions)
{
    memset(fs, 0, sizeof(*fs));
    fs->priority = prio;
    fs->cookie = 0x1000u + prio;
    fs->idle_timeout = 5;
    fs->duration_sec = prio;
    fs->duration_nsec = 7;
    fs->packet_count = 10u * prio;
    fs->byte_count = 0x8000000000000000ull + prio;
    ofp_match_init(&fs->match);
    ofp_match_set_uint(&fs->match, OFPXMT_OFB_IN_PORT, port);
    for (unsigned i = 0; i < 40; i++)
        outputs[i] = (struct ofp_action){.type = OFPAT_OUTPUT, .u.output = {.port = i + 1}};
    fs->inst.present = OFP_INST_APPLY_ACTIONS;
    fs->inst.apply_actions.arr = outputs;
    fs->inst.apply_actions.n = (uint16_t)n_actions;
}

/* One FLOW MULTIPART_REPLY part of n entries; *len its length. The
 * buffer is static: the snapshot copies what it keeps. */
static const uint8_t *part(const struct ofp_flow_stats *fs, unsigned n, uint32_t xid, bool more,
                           size_t *len)
{
    static uint8_t msg[65536];

    *len = ofp_test_flow_reply(fs, n, xid, more, msg, sizeof(msg));
    return msg;
}

static int add(struct fm_snap *s, const struct fm_snap_bounds *b, uint64_t *held,
               const struct ofp_flow_stats *fs, unsigned n, uint32_t xid, bool more)
{
    size_t len;
    const uint8_t *msg = part(fs, n, xid, more, &len);
    return fm_snap_add(s, b, held, msg, len, xid, more);
}

static unsigned walk_count(const struct fm_snap *s)
{
    struct fm_snap_walk w;
    struct ofp_flow_stats fs;
    unsigned n = 0;

    fm_snap_walk_init(&w, s->parts, s->n_parts);
    while (fm_snap_walk_next(&w, &fs))
        n++;
    return n;
}

static void test_gathered_then_complete(void **state)
{
    (void)state;
    struct fm_snap s = {0};
    struct fm_snap_bounds b = {0};
    struct ofp_flow_stats fs[3];
    uint64_t held = 0;

    for (unsigned i = 0; i < 3; i++)
        entry(&fs[i], (uint16_t)(100 + i), i + 1, 1);
    /* Two parts: nothing is the snapshot until the last. */
    assert_int_equal(add(&s, &b, &held, fs, 2, 0x300, true), 0);
    assert_int_equal(s.n_parts, 0);
    assert_int_equal(held, s.acc_bytes);
    assert_int_equal(add(&s, &b, &held, fs + 2, 1, 0x300, false), 1);
    assert_int_equal(s.n_parts, 2);
    assert_int_equal(s.n_acc, 0);
    assert_int_equal(held, s.bytes);
    assert_int_equal(walk_count(&s), 3);
    /* A reply begun, then another xid: the first is dropped, the snapshot stays. */
    assert_int_equal(add(&s, &b, &held, fs, 1, 0x301, true), 0);
    assert_int_equal(add(&s, &b, &held, fs, 1, 0x302, true), 0);
    assert_int_equal(s.n_acc, 1);
    assert_int_equal(held, s.bytes + s.acc_bytes);
    fm_snap_drop_partial(&s, &held);
    assert_int_equal(held, s.bytes);
    assert_int_equal(walk_count(&s), 3);
    fm_snap_clear(&s, &held);
    assert_int_equal(held, 0);
    assert_int_equal(walk_count(&s), 0);
}

static void test_bounds_and_budget(void **state)
{
    (void)state;
    struct fm_snap s = {0}, other = {0};
    struct ofp_flow_stats fs[1];
    uint64_t held = 0;
    size_t len;

    entry(&fs[0], 7, 1, 1);
    part(fs, 1, 1, false, &len);
    struct fm_snap_bounds b = {.max_parts = 2};
    /* The snapshot before the oversized reply stays. */
    assert_int_equal(add(&s, &b, &held, fs, 1, 0x300, false), 1);
    assert_int_equal(add(&s, &b, &held, fs, 1, 0x301, true), 0);
    assert_int_equal(add(&s, &b, &held, fs, 1, 0x301, true), 0);
    assert_int_equal(add(&s, &b, &held, fs, 1, 0x301, true), -EMSGSIZE);
    assert_int_equal(s.n_acc, 2);                 /* still there, to be named in the log */
    fm_snap_abandon(&s, &held, 0x301);
    assert_int_equal(add(&s, &b, &held, fs, 1, 0x301, false), 0);   /* the rest: ignored */
    assert_int_equal(s.n_acc, 0);
    assert_int_equal(s.n_parts, 1);
    assert_int_equal(held, len);
    /* Bytes of one reply. */
    b = (struct fm_snap_bounds){.max_bytes = 2 * len - 1};
    assert_int_equal(add(&s, &b, &held, fs, 1, 0x303, true), 0);
    assert_int_equal(add(&s, &b, &held, fs, 1, 0x303, false), -EMSGSIZE);
    fm_snap_abandon(&s, &held, 0x303);
    /* The budget all switches share: another switch's snapshot counts. */
    b = (struct fm_snap_bounds){.budget_bytes = 3 * len};
    assert_int_equal(add(&other, &b, &held, fs, 1, 0x300, false), 1);
    assert_int_equal(held, 2 * len);
    assert_int_equal(add(&s, &b, &held, fs, 1, 0x304, true), 0);
    assert_int_equal(add(&s, &b, &held, fs, 1, 0x304, false), -ENOSPC);
    fm_snap_abandon(&s, &held, 0x304);
    assert_int_equal(held, 2 * len);
    fm_snap_clear(&s, &held);
    fm_snap_clear(&other, &held);
    assert_int_equal(held, 0);
}

/* GET v2/flows' walk: typed entries, in the switch's order. */
static void test_typed_walk_of_a_copy(void **state)
{
    (void)state;
    struct fm_snap s = {0};
    struct fm_snap_bounds b = {0};
    struct ofp_flow_stats fs[4];
    struct fm_flow want;
    uint64_t held = 0;

    entry(&fs[0], 10, 1, 1);
    entry(&fs[1], 11, 2, 33);                    /* more actions than a flow holds */
    entry(&fs[2], 12, 3, 32);
    entry(&fs[3], 13, 4, 0);
    assert_int_equal(add(&s, &b, &held, fs, 2, 0x300, true), 0);
    assert_int_equal(add(&s, &b, &held, fs + 2, 2, 0x300, false), 1);
    struct fm_snap_copy *c = fm_snap_take(&s, DPID);
    assert_non_null(c);
    /* A later reply changes the snapshot, not the copy. */
    assert_int_equal(add(&s, &b, &held, fs, 1, 0x301, false), 1);
    fm_snap_clear(&s, &held);

    static const unsigned shown[3] = {0, 2, 3};
    for (unsigned i = 0; i < 3; i++) {
        const struct ofp_flow_stats *f = &fs[shown[i]];
        const struct fm_snap_copy_entry *e = fm_snap_copy_next(c);
        assert_non_null(e);
        assert_true(e->dpid == DPID);
        assert_int_equal(e->flow.mod.priority, f->priority);
        assert_int_equal(e->flow.mod.command, OFPFC_ADD);
        assert_true(e->flow.mod.cookie == f->cookie);
        assert_int_equal(e->flow.mod.idle_timeout, 5);
        assert_true(ofp_match_equal(&e->flow.mod.match, &f->match));
        assert_int_equal(e->flow.mod.inst.apply_actions.n, f->inst.apply_actions.n);
        if (f->inst.apply_actions.n)
            assert_int_equal(e->flow.apply[f->inst.apply_actions.n - 1].u.output.port,
                             f->inst.apply_actions.n);
        /* Its identity is the identity of the flow that installs it. */
        assert_int_equal(fm_flow_from_entry(f->table_id, f->priority, f->cookie,
                                            f->idle_timeout, f->hard_timeout, &f->match,
                                            &f->inst, &want), 0);
        assert_true(e->match_id == fm_flow_match_id(DPID, &want));
        assert_true(e->flow_id == fm_flow_id(DPID, &want));
        assert_true(e->packet_count == f->packet_count);
        assert_true(e->byte_count == f->byte_count);
        assert_int_equal(e->duration_sec, f->duration_sec);
        assert_int_equal(e->duration_nsec, 7);
    }
    assert_null(fm_snap_copy_next(c));
    assert_null(fm_snap_copy_next(c));
    fm_snap_copy_free(c);
    /* An empty snapshot: a copy with nothing in it. */
    c = fm_snap_take(&s, DPID);
    assert_non_null(c);
    assert_null(fm_snap_copy_next(c));
    fm_snap_copy_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gathered_then_complete),
        cmocka_unit_test(test_bounds_and_budget),
        cmocka_unit_test(test_typed_walk_of_a_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
