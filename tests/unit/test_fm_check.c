/*
 * test_fm_check: the consistency check alone, over a fake mirror — the
 * view of fm_check.h (a table of calls) is all it may see of the flow
 * manager, so this test lends one of its own. One reply against
 * one mirror: a pending flow found is installed; a stored flow changed on
 * the switch and settled is put back, one with an ADD in flight is not;
 * missing flows are re-installed unless in error, in flight or sent within
 * the window (after a reconnect: unless sent on this connection); aliens
 * older than the window are deleted unless their cookie or table is
 * ignored or an app's; with the check off only the work of a reconnect is
 * done; a reply still being gathered is never read.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fm_check.h"
#include "fm_flow.h"
#include "ofp_test_util.h"
#include "store.h"

#define DPID 0x77ull
#define SEC 1000000ull
#define NOW (1000 * SEC)

/* ---- the fake flow manager ------------------------------------------------------ */

struct fake_flow {
    struct fm_view_flow f;
    bool readd, installed;
};

struct fake_mirror {
    struct fake_flow flows[8];
    size_t n;
    unsigned deletes;
    uint16_t deleted_prio[8];
};

static bool fake_next(void *arg, struct fm_view_pos *pos, struct fm_view_flow *out)
{
    struct fake_mirror *v = arg;
    if (pos->bucket == v->n)
        return false;
    *out = v->flows[pos->bucket++].f;
    return true;
}

static struct fake_flow *find(struct fake_mirror *v, uint64_t match_id)
{
    for (size_t i = 0; i < v->n; i++)
        if (v->flows[i].f.match_id == match_id)
            return &v->flows[i];
    return NULL;
}

static bool fake_find(void *arg, uint64_t match_id, struct fm_view_flow *out)
{
    struct fake_flow *f = find(arg, match_id);
    if (f)
        *out = f->f;
    return f != NULL;
}

static int fake_readd(void *arg, uint64_t match_id)
{
    struct fake_flow *f = find(arg, match_id);
    if (!f)
        return -ENOENT;
    f->readd = true;
    return 0;
}

static int fake_delete_strict(void *arg, uint8_t table_id, uint16_t priority,
                              const struct ofp_match *match)
{
    struct fake_mirror *v = arg;

    (void)table_id;
    (void)match;
    v->deleted_prio[v->deletes++] = priority;
    return 0;
}

static void fake_installed(void *arg, uint64_t match_id)
{
    find(arg, match_id)->installed = true;
}

static const struct fm_view_ops fake_ops = {
    .next = fake_next,
    .find = fake_find,
    .readd = fake_readd,
    .delete_strict = fake_delete_strict,
    .installed = fake_installed,
};

/* ---- flows and the reply ------------------------------------------------------------ */

static struct ofp_action out_port[2] = {
    {.type = OFPAT_OUTPUT, .u.output = {.port = 1}},
    {.type = OFPAT_OUTPUT, .u.output = {.port = 2}},
};

/* The switch's entry for priority prio (its match: in_port prio), sending
 * to port 1 or 2, age_s old, with cookie. */
static void entry(struct ofp_flow_stats *fs, uint16_t prio, unsigned port, uint32_t age_s,
                  uint64_t cookie)
{
    memset(fs, 0, sizeof(*fs));
    fs->priority = prio;
    fs->cookie = cookie;
    fs->duration_sec = age_s;
    ofp_match_init(&fs->match);
    ofp_match_set_uint(&fs->match, OFPXMT_OFB_IN_PORT, prio);
    fs->inst.present = OFP_INST_APPLY_ACTIONS;
    fs->inst.apply_actions.arr = &out_port[port - 1];
    fs->inst.apply_actions.n = 1;
}

/* The mirror's record of the flow of priority prio sending to port 1. */
static struct fake_flow *stored(struct fake_mirror *v, uint16_t prio, uint8_t state, bool inflight,
                                uint64_t sent_us)
{
    struct ofp_flow_stats fs;
    struct fm_flow fl;

    entry(&fs, prio, 1, 0, 0);
    assert_int_equal(fm_flow_from_entry(fs.table_id, fs.priority, fs.cookie, 0, 0, &fs.match,
                                        &fs.inst, &fl), 0);
    struct fake_flow *f = &v->flows[v->n++];
    memset(f, 0, sizeof(*f));
    f->f = (struct fm_view_flow){.match_id = fm_flow_match_id(DPID, &fl),
                                 .flow_id = fm_flow_id(DPID, &fl), .state = state,
                                 .inflight = inflight, .sent_us = sent_us};
    return f;
}

/* One part (xid, more) holding fs[0..n) into s: what fm_snap_add said. */
static int part(struct fm_snap *s, uint64_t *held, const struct ofp_flow_stats *fs, unsigned n,
                uint32_t xid, bool more)
{
    static uint8_t msg[20000];
    struct fm_snap_bounds bounds = {0};
    size_t len = ofp_test_flow_reply(fs, n, xid, more, msg, sizeof(msg));

    return fm_snap_add(s, &bounds, held, msg, len, xid, more);
}

/* A complete reply of fs[0..n). */
static void reply(struct fm_snap *s, uint64_t *held, const struct ofp_flow_stats *fs, unsigned n)
{
    assert_int_equal(part(s, held, fs, n, 0x300, false), 1);
}

/* The mirror and the switch of every case below. */
struct scene {
    struct fake_mirror v;
    struct fake_flow *pending, *changed, *changed_busy, *missing, *in_error, *in_flight,
        *recent, *before_up;
    struct fm_snap snap;
    uint64_t held;
    struct fm_cfg cfg;
};

static void scene(struct scene *sc, bool consistency)
{
    struct ofp_flow_stats fs[8];

    memset(sc, 0, sizeof(*sc));
    sc->pending = stored(&sc->v, 1, STORE_FLOW_PENDING, false, 0);
    sc->changed = stored(&sc->v, 2, STORE_FLOW_INSTALLED, false, NOW - 60 * SEC);
    sc->changed_busy = stored(&sc->v, 3, STORE_FLOW_INSTALLED, true, 0);
    sc->missing = stored(&sc->v, 4, STORE_FLOW_INSTALLED, false, 0);
    sc->in_error = stored(&sc->v, 5, STORE_FLOW_ERROR, false, 0);
    sc->in_flight = stored(&sc->v, 6, STORE_FLOW_PENDING, true, NOW - 60 * SEC);
    sc->recent = stored(&sc->v, 7, STORE_FLOW_INSTALLED, false, NOW - 1 * SEC);
    sc->before_up = stored(&sc->v, 8, STORE_FLOW_INSTALLED, false, NOW - 30 * SEC);
    entry(&fs[0], 1, 1, 50, 0);                   /* pending's own version */
    entry(&fs[1], 2, 2, 50, 0);                   /* changed: port 2 */
    entry(&fs[2], 3, 2, 50, 0);                   /* changed, but an ADD in flight */
    entry(&fs[3], 100, 1, 3600, 0);               /* alien */
    entry(&fs[4], 101, 1, 2, 0);                  /* alien, younger than the window */
    entry(&fs[5], 102, 1, 3600, 0xab00);          /* alien, ignored cookie */
    entry(&fs[6], 103, 1, 3600, 0xcc01);          /* alien, an app's cookie */
    entry(&fs[7], 104, 1, 3600, 0);               /* alien */
    fs[7].table_id = 9;                           /* ... in an ignored table */
    reply(&sc->snap, &sc->held, fs, 8);
    sc->cfg.consistency = consistency;
    sc->cfg.window_us = 10 * SEC;
    sc->cfg.n_ignore_cookie = 1;
    sc->cfg.ignore_cookie[0] = (struct ofcd_range){0xab00, 0xabff};
    sc->cfg.n_ignore_table = 1;
    sc->cfg.ignore_table[0] = (struct ofcd_range){9, 9};
    sc->cfg.n_app_cookie = 1;
    sc->cfg.app_cookie[0] = (struct ofcd_range){0xcc00, 0xccff};
}

static void run(struct scene *sc, bool connect, struct fm_check_result *r)
{
    struct fm_check_log log = FM_CHECK_LOG_INIT;
    struct fm_check_in in = {.dpid = DPID, .cfg = &sc->cfg, .snap = &sc->snap,
                             .connect = connect, .up_us = NOW - 10 * SEC, .now = NOW};
    const struct fm_view view = {&fake_ops, &sc->v};
    assert_int_equal(fm_check_run(&view, &in, &log, r), 0);
    fm_snap_clear(&sc->snap, &sc->held);
}

static void test_periodic_check(void **state)
{
    (void)state;
    struct scene sc;
    struct fm_check_result r;

    scene(&sc, true);
    run(&sc, false, &r);
    assert_int_equal(r.on_switch, 8);
    assert_true(sc.pending->installed);
    assert_true(sc.changed->readd);
    assert_false(sc.changed_busy->readd);
    assert_true(sc.missing->readd);
    assert_false(sc.in_error->readd);
    assert_false(sc.in_flight->readd);
    assert_false(sc.recent->readd);
    assert_true(sc.before_up->readd);             /* sent longer than a window ago */
    assert_int_equal(sc.v.deletes, 1);
    assert_int_equal(sc.v.deleted_prio[0], 100);
    assert_true(r.confirmed == 1 && r.changed == 1 && r.missing == 2 && r.aliens == 1);
}

static void test_after_connect(void **state)
{
    (void)state;
    struct scene sc;
    struct fm_check_result r;

    scene(&sc, true);
    run(&sc, true, &r);
    /* Not sent on this connection (before up_us) is what counts now. */
    assert_true(sc.before_up->readd);
    assert_false(sc.recent->readd);
    assert_true(sc.missing->readd);
    assert_int_equal(r.missing, 2);
}

static void test_check_off(void **state)
{
    (void)state;
    struct scene sc;
    struct fm_check_result r;

    scene(&sc, false);
    run(&sc, true, &r);
    assert_true(sc.pending->installed);
    assert_true(sc.missing->readd);
    assert_false(sc.changed->readd);
    assert_int_equal(sc.v.deletes, 0);
    assert_true(r.confirmed == 1 && r.changed == 0 && r.aliens == 0 && r.missing == 2);
}

/* The verdict comes from the last complete reply only: the first part of
 * the next one, still being gathered, is not read — neither the stored
 * flow it holds (still missing: re-installed) nor the alien it no longer
 * holds (still deleted). */
static void test_only_the_complete_reply(void **state)
{
    (void)state;
    struct scene sc;
    struct ofp_flow_stats next[2];
    struct fm_check_result r;

    scene(&sc, true);
    entry(&next[0], 4, 1, 50, 0);                 /* the missing flow, there now */
    entry(&next[1], 1, 1, 50, 0);
    assert_int_equal(part(&sc.snap, &sc.held, next, 2, 0x301, true), 0);
    assert_int_equal(sc.snap.n_acc, 1);
    run(&sc, false, &r);
    assert_int_equal(r.on_switch, 8);
    assert_true(sc.missing->readd);
    assert_int_equal(sc.v.deletes, 1);
    assert_int_equal(sc.v.deleted_prio[0], 100);
    assert_true(r.confirmed == 1 && r.changed == 1 && r.missing == 2 && r.aliens == 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_periodic_check),
        cmocka_unit_test(test_after_connect),
        cmocka_unit_test(test_check_off),
        cmocka_unit_test(test_only_the_complete_reply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
