/*
 * test_timer_wheel: the per-lcore timer wheel driven by a fake clock
 * (now_us is just a number passed in): exact firing on and off tick
 * boundaries, once per arming, re-arm/cancel, past deadlines, timers many
 * revolutions away, everything callbacks may do (periodic re-arm, arming due
 * timers, cancelling timers due in the same run, re-entry), clock stalls and
 * huge jumps, a long random run checked against a reference model, and a
 * printed (never asserted) performance figure.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timer_wheel.h"

#define T0 1000000000ULL /* arbitrary start of the fake clock, on a tick boundary */
#define TICK ((uint64_t)TW_TICK_US)
#define REV (TICK * TW_SLOTS)
#define MS 1000ULL
#define SEC 1000000ULL

/* ---- a small owner of timers for the directed tests ---- */

enum tt_action {
    TT_NONE,
    TT_PERIODIC,        /* re-arm self at previous deadline + period */
    TT_REARM_SELF_AT,   /* re-arm self at arg */
    TT_ARM_OTHER_AT,    /* arm other at arg */
    TT_CANCEL_OTHER,
    TT_CANCEL_SELF,
    TT_REARM_SELF_THEN_CANCEL,
    TT_RUN_NESTED,
};

struct tt {
    struct tw_timer t;
    struct tw_wheel *w;
    enum tt_action action;
    uint64_t arg;
    struct tt *other;
    uint64_t deadline;      /* what the test armed, for periodic re-arms */
    unsigned fires;
    uint64_t fired_at;
    uint64_t fire_order;    /* sequence number of the last firing */
    unsigned nested_ret;
    uint64_t *seq;          /* shared firing sequence counter, may be NULL */
};

#define TT_OF(p) ((struct tt *)(void *)((char *)(p) - offsetof(struct tt, t)))

static void tt_cb(struct tw_timer *t, uint64_t now_us)
{
    struct tt *x = TT_OF(t);

    assert_false(tw_armed(t)); /* disarmed before the callback */
    x->fires++;
    x->fired_at = now_us;
    if (x->seq)
        x->fire_order = ++*x->seq;

    switch (x->action) {
    case TT_NONE:
        break;
    case TT_PERIODIC:
        x->deadline += x->arg;
        tw_arm(x->w, t, x->deadline);
        break;
    case TT_REARM_SELF_AT:
        tw_arm(x->w, t, x->arg);
        break;
    case TT_ARM_OTHER_AT:
        tw_arm(x->w, &x->other->t, x->arg);
        break;
    case TT_CANCEL_OTHER:
        tw_cancel(x->w, &x->other->t);
        break;
    case TT_CANCEL_SELF:
        tw_cancel(x->w, t);
        break;
    case TT_REARM_SELF_THEN_CANCEL:
        tw_arm(x->w, t, now_us + 5 * MS);
        tw_cancel(x->w, t);
        break;
    case TT_RUN_NESTED:
        x->nested_ret = tw_wheel_run(x->w, now_us + 10 * SEC);
        break;
    }
}

static void tt_setup(struct tt *x, struct tw_wheel *w)
{
    memset(x, 0, sizeof(*x));
    x->w = w;
    tw_timer_init(&x->t, tt_cb);
}

static void tt_arm(struct tt *x, uint64_t at)
{
    x->deadline = at;
    tw_arm(x->w, &x->t, at);
}

static struct tw_wheel *wheel_new(uint64_t now)
{
    struct tw_wheel *w = malloc(sizeof(*w));
    assert_non_null(w);
    tw_wheel_init(w, now);
    return w;
}

/* ---- basics ---- */

static void test_init_and_idle(void **state)
{
    (void)state;
    struct tw_wheel *w = wheel_new(T0 + 123);
    struct tt a;
    tt_setup(&a, w);

    assert_false(tw_armed(&a.t));
    assert_int_equal(w->armed, 0);
    assert_int_equal(w->fired, 0);
    assert_int_equal(tw_wheel_run(w, T0 + 123), 0);
    assert_int_equal(tw_wheel_run(w, T0 + 10 * SEC), 0);

    /* cancelling a timer that was never armed changes nothing */
    tw_cancel(w, &a.t);
    tw_cancel(w, &a.t);
    assert_false(tw_armed(&a.t));
    assert_int_equal(w->armed, 0);
    assert_int_equal(tw_wheel_run(w, T0 + 20 * SEC), 0);
    assert_int_equal(a.fires, 0);
    free(w);
}

/*
 * For deadlines on, just before and just after tick boundaries, and clocks
 * stepping by sub-tick, tick and multi-tick strides (mostly not dividing the
 * tick), the timer fires on the first run whose now >= deadline, once.
 */
static void test_fires_exactly_at_first_run_past_deadline(void **state)
{
    (void)state;
    static const uint64_t offs[] = {
        0, 1, 499, 999, 1000, 1001, 1500, 1999, 2000, 4095 * MS + 999, 4096 * MS,
        4097 * MS + 1, 12345678,
    };
    static const uint64_t steps[] = {1, 7, 250, 999, 1000, 1001, 3333, 77777};
    struct tw_wheel *w = malloc(sizeof(*w));
    assert_non_null(w);

    for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
        for (size_t j = 0; j < sizeof(steps) / sizeof(steps[0]); j++) {
            /* start off-boundary too, so "the current tick" is partial */
            for (uint64_t start = T0; start <= T0 + 700; start += 700) {
                tw_wheel_init(w, start);
                struct tt a;
                tt_setup(&a, w);
                uint64_t dl = start + offs[i];
                tt_arm(&a, dl);
                assert_true(tw_armed(&a.t));

                /* long walks start a bounded number of steps before the
                 * deadline, keeping the clock's phase against the tick */
                uint64_t now = start;
                if (offs[i] / steps[j] > 20000)
                    now += (offs[i] / steps[j] - 20000) * steps[j];
                while (now < dl) {
                    assert_int_equal(tw_wheel_run(w, now), 0);
                    assert_int_equal(a.fires, 0);
                    now += steps[j];
                }
                assert_int_equal(tw_wheel_run(w, now), 1);
                assert_int_equal(a.fires, 1);
                assert_int_equal(a.fired_at, now);
                assert_false(tw_armed(&a.t));
                /* exactly once, whatever comes after */
                assert_int_equal(tw_wheel_run(w, now), 0);
                assert_int_equal(tw_wheel_run(w, now + 3 * REV), 0);
                assert_int_equal(a.fires, 1);
                assert_int_equal(w->fired, 1);
                assert_int_equal(w->armed, 0);
            }
        }
    }
    free(w);
}

/* Two timers in the same tick with different microsecond deadlines: the
 * earlier fires alone, the later one only once its own deadline is reached. */
static void test_same_tick_distinct_deadlines(void **state)
{
    (void)state;
    struct tw_wheel *w = wheel_new(T0);
    struct tt a, b;
    tt_setup(&a, w);
    tt_setup(&b, w);
    tt_arm(&a, T0 + 5 * MS + 200);
    tt_arm(&b, T0 + 5 * MS + 800);

    assert_int_equal(tw_wheel_run(w, T0 + 5 * MS + 100), 0);
    assert_int_equal(tw_wheel_run(w, T0 + 5 * MS + 200), 1);
    assert_int_equal(a.fires, 1);
    assert_int_equal(b.fires, 0);
    assert_int_equal(tw_wheel_run(w, T0 + 5 * MS + 799), 0);
    assert_int_equal(tw_wheel_run(w, T0 + 5 * MS + 800), 1);
    assert_int_equal(b.fires, 1);
    assert_int_equal(b.fired_at, T0 + 5 * MS + 800);
    free(w);
}

static void test_rearm_moves(void **state)
{
    (void)state;
    struct tw_wheel *w = wheel_new(T0);
    struct tt a;
    tt_setup(&a, w);

    tt_arm(&a, T0 + 10 * MS);
    tt_arm(&a, T0 + 20 * MS); /* later: must not fire at 10 ms */
    assert_int_equal(w->armed, 1);
    assert_int_equal(tw_wheel_run(w, T0 + 15 * MS), 0);
    assert_int_equal(a.fires, 0);
    assert_int_equal(tw_wheel_run(w, T0 + 20 * MS), 1);
    assert_int_equal(a.fired_at, T0 + 20 * MS);

    tt_arm(&a, T0 + 3 * SEC);
    tt_arm(&a, T0 + 25 * MS); /* earlier: fires at the new deadline */
    assert_int_equal(w->armed, 1);
    assert_int_equal(tw_wheel_run(w, T0 + 24 * MS), 0);
    assert_int_equal(tw_wheel_run(w, T0 + 25 * MS), 1);
    assert_int_equal(a.fires, 2);
    assert_int_equal(tw_wheel_run(w, T0 + 4 * SEC), 0);
    assert_int_equal(a.fires, 2);

    /* re-arm into the same slot one revolution later */
    tt_arm(&a, T0 + 5 * SEC);
    tt_arm(&a, T0 + 5 * SEC + REV);
    assert_int_equal(tw_wheel_run(w, T0 + 5 * SEC), 0);
    assert_int_equal(tw_wheel_run(w, T0 + 5 * SEC + REV - 1), 0);
    assert_int_equal(tw_wheel_run(w, T0 + 5 * SEC + REV), 1);
    assert_int_equal(a.fires, 3);
    assert_int_equal(w->fired, 3);
    assert_int_equal(w->armed, 0);
    free(w);
}

static void test_cancel(void **state)
{
    (void)state;
    struct tw_wheel *w = wheel_new(T0);
    struct tt a, b;
    tt_setup(&a, w);
    tt_setup(&b, w);

    tt_arm(&a, T0 + 10 * MS);
    tt_arm(&b, T0 + 10 * MS);
    assert_int_equal(w->armed, 2);
    tw_cancel(w, &a.t);
    assert_false(tw_armed(&a.t));
    assert_int_equal(w->armed, 1);
    tw_cancel(w, &a.t); /* twice: harmless */
    assert_int_equal(w->armed, 1);

    assert_int_equal(tw_wheel_run(w, T0 + 1 * SEC), 1);
    assert_int_equal(a.fires, 0);
    assert_int_equal(b.fires, 1);

    /* cancel after it fired: harmless, and it stays quiet */
    tw_cancel(w, &b.t);
    assert_int_equal(w->armed, 0);

    /* cancel a due (past) timer before the run */
    tt_arm(&a, T0);
    tw_cancel(w, &a.t);
    assert_int_equal(tw_wheel_run(w, T0 + 2 * SEC), 0);
    assert_int_equal(a.fires, 0);
    assert_int_equal(w->fired, 1);
    free(w);
}

static void test_arm_in_past_fires_next_run(void **state)
{
    (void)state;
    struct tw_wheel *w = wheel_new(T0);
    struct tt a, b, c, d;
    tt_setup(&a, w);
    tt_setup(&b, w);
    tt_setup(&c, w);
    tt_setup(&d, w);

    uint64_t now = T0 + 7 * SEC + 300;
    assert_int_equal(tw_wheel_run(w, now), 0);

    tt_arm(&a, T0);              /* seconds ago */
    tt_arm(&b, now);             /* exactly now */
    tt_arm(&c, 0);               /* the epoch */
    tt_arm(&d, now - 100);       /* earlier in this very tick */
    /* the clock has not moved: the next run still fires all four */
    assert_int_equal(tw_wheel_run(w, now), 4);
    assert_int_equal(a.fires + b.fires + c.fires + d.fires, 4);
    assert_int_equal(a.fired_at, now);
    assert_int_equal(w->armed, 0);
    free(w);
}

/* Deadlines several revolutions away fire at their time, not a revolution
 * (or several) early, whether the clock walks or jumps there. */
static void test_far_future(void **state)
{
    (void)state;
    struct tw_wheel *w = wheel_new(T0);
    struct tt ka, kb, kc;
    tt_setup(&ka, w);
    tt_setup(&kb, w);
    tt_setup(&kc, w);

    uint64_t two_h = T0 + 2 * 3600 * SEC + 17;    /* keepalive, off boundary */
    uint64_t five_rev = T0 + 5 * REV;             /* same slot as "now" */
    uint64_t rev_minus = T0 + REV - 1;            /* just under one revolution */
    tt_arm(&ka, two_h);
    tt_arm(&kb, five_rev);
    tt_arm(&kc, rev_minus);

    /* ~1 s strides that do not divide a revolution: the clock lands in every
     * slot, repeatedly, long before the deadlines */
    uint64_t now = T0;
    unsigned runs = 0;
    while (ka.fires == 0) {
        now += 999983;
        tw_wheel_run(w, now);
        runs++;
        assert_true(kb.fires == 0 || kb.fired_at >= five_rev);
        assert_true(kc.fires == 0 || kc.fired_at >= rev_minus);
        assert_true(runs < 8000);
    }
    assert_true(ka.fired_at >= two_h);
    assert_true(ka.fired_at - 999983 < two_h); /* first run past the deadline */
    assert_int_equal(kb.fires, 1);
    assert_true(kb.fired_at - 999983 < five_rev);
    assert_int_equal(kc.fires, 1);
    assert_true(kc.fired_at - 999983 < rev_minus);

    /* same deadlines reached in one jump of hours from a fresh wheel */
    tw_wheel_init(w, T0);
    tt_setup(&ka, w);
    tt_setup(&kb, w);
    tt_arm(&ka, two_h);
    tt_arm(&kb, five_rev);
    assert_int_equal(tw_wheel_run(w, five_rev - 1), 0);
    assert_int_equal(tw_wheel_run(w, two_h - 1), 1);
    assert_int_equal(kb.fires, 1);
    assert_int_equal(ka.fires, 0);
    assert_int_equal(tw_wheel_run(w, two_h), 1);
    assert_int_equal(ka.fires, 1);
    free(w);
}

/* A stall of minutes, then a jump to the end of the clock's range: every due
 * timer fires in that one run, the rest wait, and the run finishes (a walk of
 * every elapsed tick would take ~10^16 steps). */
static void test_clock_jumps(void **state)
{
    (void)state;
    struct tw_wheel *w = wheel_new(T0);
    enum { N = 300 };
    struct tt *x = calloc(N, sizeof(*x));
    assert_non_null(x);

    for (unsigned i = 0; i < N; i++) {
        tt_setup(&x[i], w);
        tt_arm(&x[i], T0 + (uint64_t)i * 2 * SEC + i);    /* spread over 10 minutes */
    }
    uint64_t now = T0 + 5 * 60 * SEC + 500;             /* stalled 5 minutes */
    unsigned due = 0;
    for (unsigned i = 0; i < N; i++)
        due += x[i].deadline <= now;
    assert_int_equal(tw_wheel_run(w, now), due);
    for (unsigned i = 0; i < N; i++)
        assert_int_equal(x[i].fires, x[i].deadline <= now ? 1 : 0);
    assert_int_equal(w->armed, N - due);

    /* the next run after the stall behaves normally */
    uint64_t next = x[due].deadline;
    assert_int_equal(tw_wheel_run(w, next - 1), 0);
    assert_int_equal(tw_wheel_run(w, next), 1);
    assert_int_equal(x[due].fired_at, next);

    tt_arm(&x[0], UINT64_MAX);
    assert_int_equal(tw_wheel_run(w, UINT64_MAX - 1), N - due - 1);
    assert_int_equal(x[0].fires, 1);
    assert_int_equal(tw_wheel_run(w, UINT64_MAX), 1);
    assert_int_equal(x[0].fires, 2);
    assert_int_equal(w->armed, 0);
    assert_int_equal(w->fired, N + 1);
    for (unsigned i = 1; i < N; i++)
        assert_int_equal(x[i].fires, 1);
    free(x);
    free(w);
}

/* A backwards step only fires what is due at the earlier time. */
static void test_clock_backwards(void **state)
{
    (void)state;
    struct tw_wheel *w = wheel_new(T0);
    struct tt a, b;
    tt_setup(&a, w);
    tt_setup(&b, w);

    assert_int_equal(tw_wheel_run(w, T0 + 10 * MS), 0);
    tt_arm(&a, T0 + 5 * MS);
    tt_arm(&b, T0 + 9 * MS);
    assert_int_equal(tw_wheel_run(w, T0 + 8 * MS), 1);
    assert_int_equal(a.fires, 1);
    assert_int_equal(b.fires, 0);
    assert_int_equal(tw_wheel_run(w, T0 + 9 * MS), 1);
    assert_int_equal(b.fires, 1);
    free(w);
}

/* ---- callbacks ---- */

static void test_periodic(void **state)
{
    (void)state;
    struct tw_wheel *w = wheel_new(T0);
    struct tt a;
    tt_setup(&a, w);
    a.action = TT_PERIODIC;
    a.arg = 40 * MS + 250; /* delayed-ACK-like, off the tick */
    tt_arm(&a, T0 + a.arg);

    for (uint64_t now = T0; now <= T0 + 2 * SEC; now += 100) {
        tw_wheel_run(w, now);
        /* k firings by now exactly when k periods have elapsed */
        assert_int_equal(a.fires, (now - T0) / a.arg);
    }
    assert_true(tw_armed(&a.t));
    assert_int_equal(w->armed, 1);
    assert_int_equal(w->fired, a.fires);
    free(w);
}

/* Periodic with a period below the step: after a stall, each run fires it
 * once and the caught-up deadline waits for the next run. */
static void test_periodic_catch_up_once_per_run(void **state)
{
    (void)state;
    struct tw_wheel *w = wheel_new(T0);
    struct tt a;
    tt_setup(&a, w);
    a.action = TT_PERIODIC;
    a.arg = 1 * MS;
    tt_arm(&a, T0 + 1 * MS);

    uint64_t now = T0 + 5 * MS;
    for (unsigned i = 1; i <= 5; i++) {
        assert_int_equal(tw_wheel_run(w, now), 1);
        assert_int_equal(a.fires, i);
    }
    /* the deadline (6 ms) is now ahead of the clock: nothing more */
    assert_int_equal(tw_wheel_run(w, now), 0);
    assert_int_equal(a.deadline, T0 + 6 * MS);
    free(w);
}

static void test_callback_arms_due_timer_same_run(void **state)
{
    (void)state;
    struct tw_wheel *w = wheel_new(T0);
    struct tt a, b, c, d, e;
    tt_setup(&a, w);
    tt_setup(&b, w);
    tt_setup(&c, w);
    tt_setup(&d, w);
    tt_setup(&e, w);
    uint64_t now = T0 + 50 * MS + 10;

    /* a arms b in the past, b arms c at exactly now, c arms d just after now */
    a.action = TT_ARM_OTHER_AT; a.other = &b; a.arg = T0 + 1 * MS;
    b.action = TT_ARM_OTHER_AT; b.other = &c; b.arg = now;
    c.action = TT_ARM_OTHER_AT; c.other = &d; c.arg = now + 1;
    tt_arm(&a, T0 + 50 * MS);
    /* e is due too, in an earlier slot of the same walk */
    tt_arm(&e, T0 + 30 * MS + 5);

    assert_int_equal(tw_wheel_run(w, now), 4);
    assert_int_equal(a.fires, 1);
    assert_int_equal(b.fires, 1);
    assert_int_equal(c.fires, 1);
    assert_int_equal(e.fires, 1);
    assert_int_equal(d.fires, 0);
    assert_true(tw_armed(&d.t));
    assert_int_equal(w->armed, 1);
    assert_int_equal(tw_wheel_run(w, now), 0);
    assert_int_equal(tw_wheel_run(w, now + 1), 1);
    assert_int_equal(d.fires, 1);

    /* arming a timer already due in a later slot of this walk: once only */
    tt_setup(&a, w);
    tt_setup(&b, w);
    a.action = TT_ARM_OTHER_AT; a.other = &b; a.arg = T0 + 70 * MS;
    tt_arm(&a, T0 + 60 * MS);
    tt_arm(&b, T0 + 80 * MS);
    assert_int_equal(tw_wheel_run(w, T0 + 90 * MS), 2);
    assert_int_equal(b.fires, 1);
    assert_int_equal(w->armed, 0);
    free(w);
}

static void test_callback_cancels_due_timer(void **state)
{
    (void)state;
    struct tw_wheel *w = wheel_new(T0);
    struct tt a, b;

    /* different ticks: a (earlier tick) fires first and cancels b */
    tt_setup(&a, w);
    tt_setup(&b, w);
    a.action = TT_CANCEL_OTHER; a.other = &b;
    tt_arm(&a, T0 + 1 * MS);
    tt_arm(&b, T0 + 3 * MS);
    assert_int_equal(tw_wheel_run(w, T0 + 10 * MS), 1);
    assert_int_equal(a.fires, 1);
    assert_int_equal(b.fires, 0);
    assert_false(tw_armed(&b.t));
    assert_int_equal(w->armed, 0);
    assert_int_equal(tw_wheel_run(w, T0 + 10 * SEC), 0);

    /* same tick, order unspecified: each cancels the other, so exactly one
     * fires whichever goes first; try both arming orders */
    for (int order = 0; order < 2; order++) {
        uint64_t base = T0 + (uint64_t)(order + 1) * 20 * SEC;
        tt_setup(&a, w);
        tt_setup(&b, w);
        a.action = TT_CANCEL_OTHER; a.other = &b;
        b.action = TT_CANCEL_OTHER; b.other = &a;
        tt_arm(order ? &b : &a, base + 100);
        tt_arm(order ? &a : &b, base + 200);
        assert_int_equal(tw_wheel_run(w, base + 500), 1);
        assert_int_equal(a.fires + b.fires, 1);
        assert_int_equal(w->armed, 0);
    }

    /* cancelling a timer that a callback armed due in this run */
    struct tt c;
    tt_setup(&a, w);
    tt_setup(&b, w);
    tt_setup(&c, w);
    a.action = TT_ARM_OTHER_AT; a.other = &c; a.arg = T0;
    b.action = TT_CANCEL_OTHER; b.other = &c;
    tt_arm(&a, T0 + 70 * SEC + 1 * MS);
    tt_arm(&b, T0 + 70 * SEC + 2 * MS);
    assert_int_equal(tw_wheel_run(w, T0 + 70 * SEC + 5 * MS), 2);
    assert_int_equal(c.fires, 0);
    assert_int_equal(w->armed, 0);
    free(w);
}

static void test_callback_self_rearm_and_cancel(void **state)
{
    (void)state;
    struct tw_wheel *w = wheel_new(T0);
    struct tt a;
    uint64_t now = T0 + 10 * MS;

    /* re-arm in the past from its own callback: fires once in this run,
     * again on the next run even though the clock did not move */
    tt_setup(&a, w);
    a.action = TT_REARM_SELF_AT;
    a.arg = T0;
    tt_arm(&a, T0 + 5 * MS);
    assert_int_equal(tw_wheel_run(w, now), 1);
    assert_int_equal(a.fires, 1);
    assert_true(tw_armed(&a.t));
    assert_int_equal(w->armed, 1);
    assert_int_equal(tw_wheel_run(w, now), 1);
    assert_int_equal(a.fires, 2);
    a.action = TT_NONE;
    assert_int_equal(tw_wheel_run(w, now), 1);
    assert_int_equal(tw_wheel_run(w, now + 10 * SEC), 0);
    assert_int_equal(a.fires, 3);

    /* re-arm into the future from its callback: moves, fires later */
    tt_setup(&a, w);
    a.action = TT_REARM_SELF_AT;
    a.arg = now + 20 * SEC + 500;
    tt_arm(&a, now + 10 * SEC + 1);
    assert_int_equal(tw_wheel_run(w, now + 10 * SEC + 1), 1);
    a.action = TT_NONE;
    assert_int_equal(tw_wheel_run(w, now + 20 * SEC + 499), 0);
    assert_int_equal(tw_wheel_run(w, now + 20 * SEC + 500), 1);
    assert_int_equal(a.fires, 2);

    /* cancelling itself in its callback is harmless */
    tt_setup(&a, w);
    a.action = TT_CANCEL_SELF;
    tt_arm(&a, now + 30 * SEC);
    assert_int_equal(tw_wheel_run(w, now + 30 * SEC), 1);
    assert_int_equal(w->armed, 0);

    /* re-arm then cancel itself: stays quiet */
    tt_setup(&a, w);
    a.action = TT_REARM_SELF_THEN_CANCEL;
    tt_arm(&a, now + 40 * SEC);
    assert_int_equal(tw_wheel_run(w, now + 40 * SEC), 1);
    assert_false(tw_armed(&a.t));
    assert_int_equal(w->armed, 0);
    assert_int_equal(tw_wheel_run(w, now + 50 * SEC), 0);
    assert_int_equal(a.fires, 1);
    assert_int_equal(w->fired, 7);
    free(w);
}

/* Two callbacks re-arming each other in the past cannot loop forever: each
 * fires once per run. */
static void test_mutual_rearm_terminates(void **state)
{
    (void)state;
    struct tw_wheel *w = wheel_new(T0);
    struct tt a, b;
    tt_setup(&a, w);
    tt_setup(&b, w);
    a.action = TT_ARM_OTHER_AT; a.other = &b; a.arg = T0;
    b.action = TT_ARM_OTHER_AT; b.other = &a; b.arg = T0;
    tt_arm(&a, T0 + 1 * MS);

    /* each run: a fires, arms b due (b fires in this run), b arms a due
     * (a already fired in this run: left for the next one) */
    for (unsigned r = 1; r <= 3; r++) {
        assert_int_equal(tw_wheel_run(w, T0 + 2 * MS), 2);
        assert_int_equal(a.fires, r);
        assert_int_equal(b.fires, r);
        assert_true(tw_armed(&a.t));
    }
    assert_int_equal(w->armed, 1);
    assert_int_equal(w->fired, a.fires + b.fires);
    free(w);
}

static void test_nested_run_is_ignored(void **state)
{
    (void)state;
    struct tw_wheel *w = wheel_new(T0);
    struct tt a, b;
    tt_setup(&a, w);
    tt_setup(&b, w);
    a.action = TT_RUN_NESTED;
    a.nested_ret = 99;
    tt_arm(&a, T0 + 1 * MS);
    tt_arm(&b, T0 + 5 * SEC);   /* due only for the nested call's clock */
    assert_int_equal(tw_wheel_run(w, T0 + 1 * MS), 1);
    assert_int_equal(a.nested_ret, 0);
    assert_int_equal(b.fires, 0);
    assert_int_equal(tw_wheel_run(w, T0 + 5 * SEC), 1);
    assert_int_equal(b.fires, 1);
    free(w);
}

/* Timers in different ticks fire in deadline order when one run covers them. */
static void test_order_across_ticks(void **state)
{
    (void)state;
    struct tw_wheel *w = wheel_new(T0);
    enum { N = 50 };
    struct tt x[N];
    uint64_t seq = 0;

    for (unsigned i = 0; i < N; i++) {
        tt_setup(&x[i], w);
        x[i].seq = &seq;
    }
    /* armed in scrambled order, deadlines 1..50 ms (+ odd microseconds) */
    for (unsigned k = 0; k < N; k++) {
        unsigned i = (k * 17) % N;
        tt_arm(&x[i], T0 + (i + 1) * MS + (i * 37) % 1000);
    }
    assert_int_equal(tw_wheel_run(w, T0 + 2 * SEC), N);
    for (unsigned i = 0; i < N; i++)
        assert_int_equal(x[i].fire_order, i + 1);
    free(w);
}

/* ---- the random run against a reference model ---- */

#define RT_N 10000

struct rt_ctx;

struct rt_timer {
    struct tw_timer t;
    struct rt_ctx *c;
    uint32_t id;
};

/* The model: a timer fires in a run iff it is armed, its deadline <= the
 * run's now, and it has not fired in this run already. */
struct rt_ctx {
    struct tw_wheel w;
    struct rt_timer tm[RT_N];
    bool armed[RT_N];
    uint64_t deadline[RT_N];
    uint64_t last_run[RT_N];
    uint64_t run;           /* model's run counter, every call counts */
    uint64_t now;
    uint64_t rng;
    uint64_t fires;
    uint64_t run_fires;
    uint64_t deferred;      /* statistics, to check the test reaches its cases */
    uint64_t cb_arms_due;
    uint64_t cb_cancels;
    bool in_run;
    bool quiet;             /* callbacks do nothing (final drain) */
};

static uint64_t rt_rand(struct rt_ctx *c)
{
    /* xorshift64*: deterministic, seedable, good enough to pick cases */
    c->rng ^= c->rng >> 12;
    c->rng ^= c->rng << 25;
    c->rng ^= c->rng >> 27;
    return c->rng * 0x2545f4914f6cdd1dULL;
}

static uint64_t rt_below(struct rt_ctx *c, uint64_t n)
{
    return rt_rand(c) % n;
}

static uint64_t rt_deadline(struct rt_ctx *c)
{
    uint64_t now = c->now;
    unsigned k = (unsigned)rt_below(c, 100);

    if (k < 10)
        return now - rt_below(c, 5 * SEC);                  /* past */
    if (k < 15)
        return now;
    if (k < 35)
        return now + 1 + rt_below(c, 2 * TICK);             /* this/next tick */
    if (k < 45)
        return (now / TICK + 1 + rt_below(c, 5000)) * TICK; /* on a boundary */
    if (k < 85)
        return now + rt_below(c, REV);
    return now + REV + rt_below(c, 9 * REV);                /* later revolutions */
}

static void rt_arm(struct rt_ctx *c, uint32_t i, uint64_t at)
{
    c->armed[i] = true;
    c->deadline[i] = at;
    tw_arm(&c->w, &c->tm[i].t, at);
}

static void rt_cancel(struct rt_ctx *c, uint32_t i)
{
    c->armed[i] = false;
    tw_cancel(&c->w, &c->tm[i].t);
}

static void rt_cb(struct tw_timer *t, uint64_t now_us)
{
    struct rt_timer *x = (struct rt_timer *)(void *)((char *)t - offsetof(struct rt_timer, t));
    struct rt_ctx *c = x->c;
    uint32_t i = x->id;

    assert_true(c->in_run);
    assert_int_equal(now_us, c->now);
    assert_true(c->armed[i]);                   /* not cancelled, not twice per arming */
    assert_true(c->deadline[i] <= now_us);      /* never early */
    assert_int_not_equal(c->last_run[i], c->run); /* once per run */
    c->armed[i] = false;
    c->last_run[i] = c->run;
    c->fires++;
    c->run_fires++;
    if (c->quiet)
        return;

    unsigned k = (unsigned)rt_below(c, 100);
    uint32_t j = (uint32_t)rt_below(c, RT_N);
    if (k < 15) {
        uint64_t at = rt_deadline(c);
        c->deferred += at <= now_us;
        rt_arm(c, i, at);
    } else if (k < 27) {
        uint64_t at = rt_deadline(c);
        c->cb_arms_due += at <= now_us;
        rt_arm(c, j, at);
    } else if (k < 39) {
        c->cb_cancels += c->armed[j] && c->deadline[j] <= now_us;
        rt_cancel(c, j);
    } else if (k < 42) {
        rt_cancel(c, i);
    }
}

static uint64_t rt_step(struct rt_ctx *c)
{
    unsigned k = (unsigned)rt_below(c, 1000);

    if (k < 100)
        return 0;
    if (k < 400)
        return 1 + rt_below(c, TICK - 1);
    if (k < 900)
        return TICK + rt_below(c, 20 * MS);
    if (k < 980)
        return 20 * MS + rt_below(c, 200 * MS);
    if (k < 997)
        return 200 * MS + rt_below(c, 2 * SEC);
    return REV + 1 + rt_below(c, 2 * REV);
}

static void rt_run_and_check(struct rt_ctx *c)
{
    c->run++;
    c->run_fires = 0;
    c->in_run = true;
    unsigned n = tw_wheel_run(&c->w, c->now);
    c->in_run = false;
    assert_int_equal(n, c->run_fires);

    uint64_t armed = 0;
    for (uint32_t i = 0; i < RT_N; i++) {
        if (!c->armed[i])
            continue;
        armed++;
        /* not fired although due: only allowed when it already fired in this
         * run and a callback re-armed it due (then it is for the next run) */
        if (c->deadline[i] <= c->now)
            assert_int_equal(c->last_run[i], c->run);
        assert_true(tw_armed(&c->tm[i].t));
    }
    assert_int_equal(c->w.armed, armed);
    assert_int_equal(c->w.fired, c->fires);
}

static void test_random_against_model(void **state)
{
    (void)state;
    struct rt_ctx *c = calloc(1, sizeof(*c));
    assert_non_null(c);
    const char *env = getenv("OFCD_TEST_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 0) : 0x7c9e3a4d51f02b68ULL;
    c->rng = seed ? seed : 1;
    print_message("random wheel run, seed 0x%llx (set OFCD_TEST_SEED to replay)\n",
                  (unsigned long long)seed);

    c->now = T0 + 321;
    tw_wheel_init(&c->w, c->now);
    for (uint32_t i = 0; i < RT_N; i++) {
        c->tm[i].c = c;
        c->tm[i].id = i;
        tw_timer_init(&c->tm[i].t, rt_cb);
        /* spread over ten revolutions, a few right at the start */
        rt_arm(c, i, c->now + rt_below(c, 10 * REV));
    }

    unsigned runs = 0, jumps = 0, zero_steps = 0;
    while (c->now < T0 + 12 * REV && runs < 20000) {
        unsigned ops = (unsigned)rt_below(c, 8);
        for (unsigned o = 0; o < ops; o++) {
            uint32_t i = (uint32_t)rt_below(c, RT_N);
            if (rt_below(c, 10) < 6)
                rt_arm(c, i, rt_deadline(c));
            else
                rt_cancel(c, i);
        }
        uint64_t step = rt_step(c);
        /* make sure the big jumps happen whatever the seed */
        if (runs == 300 || runs == 700)
            step = 2 * REV + 777;
        jumps += step > REV;
        zero_steps += step == 0;
        c->now += step;
        rt_run_and_check(c);
        runs++;
    }

    /* drain: jump past every deadline, callbacks quiet */
    c->quiet = true;
    c->now += 11 * REV;
    rt_run_and_check(c);
    rt_run_and_check(c);    /* timers deferred by the last loud run */
    assert_int_equal(c->w.armed, 0);
    for (uint32_t i = 0; i < RT_N; i++)
        assert_false(c->armed[i]);

    print_message("  %u runs, %u jumps > 1 revolution, %u zero steps, %llu fires, "
                  "%llu self re-arms due, %llu due arms, %llu due cancels from callbacks\n",
                  runs, jumps, zero_steps, (unsigned long long)c->fires,
                  (unsigned long long)c->deferred, (unsigned long long)c->cb_arms_due,
                  (unsigned long long)c->cb_cancels);
    /* the run must have exercised what it claims to test */
    assert_true(jumps >= 2);
    assert_true(zero_steps > 0);
    assert_true(c->deferred > 0);
    assert_true(c->cb_arms_due > 0);
    assert_true(c->cb_cancels > 0);
    assert_true(c->fires > RT_N);
    free(c);
}

/* ---- performance sanity: figures printed, never asserted ---- */

#define PB_N 60000 /* ~20,000 connections x 3 timers */

struct pb_timer {
    struct tw_timer t;
    struct tw_wheel *w;
    uint64_t period;
};

static void pb_cb(struct tw_timer *t, uint64_t now_us)
{
    struct pb_timer *x = (struct pb_timer *)(void *)((char *)t - offsetof(struct pb_timer, t));
    tw_arm(x->w, t, now_us + x->period);
}

static double pb_ns(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) * 1e9 + (double)(b->tv_nsec - a->tv_nsec);
}

static void test_perf_print(void **state)
{
    (void)state;
    struct tw_wheel *w = wheel_new(T0);
    struct pb_timer *x = calloc(PB_N, sizeof(*x));
    assert_non_null(x);
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    struct timespec a, b;

    for (unsigned i = 0; i < PB_N; i++) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        x[i].w = w;
        /* a third each: RTO 200 ms..60 s, delayed ACK 40 ms, keepalive ~2 h */
        x[i].period = i % 3 == 0 ? 200 * MS + rng % (60 * SEC)
                    : i % 3 == 1 ? 40 * MS : 7200 * SEC + rng % SEC;
        tw_timer_init(&x[i].t, pb_cb);
        tw_arm(w, &x[i].t, T0 + x[i].period);
    }

    enum { IDLE = 1000000, REARM = 1000000 };
    unsigned sink = 0;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (unsigned i = 0; i < IDLE; i++)
        sink += tw_wheel_run(w, T0 + i % 500);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double idle_ns = pb_ns(&a, &b) / IDLE;

    clock_gettime(CLOCK_MONOTONIC, &a);
    for (unsigned i = 0; i < REARM; i++) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        struct pb_timer *p = &x[rng % PB_N];
        tw_arm(w, &p->t, T0 + p->period + (rng >> 40) % 1000);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double rearm_ns = pb_ns(&a, &b) / REARM;

    /* 2 s of 1 ms ticks with every timer periodic */
    uint64_t f0 = w->fired;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (uint64_t now = T0 + MS; now <= T0 + 2 * SEC; now += MS)
        sink += tw_wheel_run(w, now);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double tick_ns = pb_ns(&a, &b) / 2000;
    uint64_t fired_ticking = w->fired - f0;

    /* a 3 h stall: one capped walk fires every timer once */
    clock_gettime(CLOCK_MONOTONIC, &a);
    unsigned stall_fired = tw_wheel_run(w, T0 + 3 * 3600 * SEC);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double stall_us = pb_ns(&a, &b) / 1000;

    print_message("  %u timers: idle run %.1f ns, re-arm %.1f ns, 1 ms tick run %.0f ns "
                  "(%llu fired in 2 s), 3 h stall run %.0f us (%u fired) [sink %u]\n",
                  PB_N, idle_ns, rearm_ns, tick_ns, (unsigned long long)fired_ticking,
                  stall_us, stall_fired, sink);

    /* the behaviour behind the figures */
    assert_int_equal(stall_fired, PB_N);
    assert_int_equal(w->armed, PB_N);
    for (unsigned i = 0; i < PB_N; i++)
        tw_cancel(w, &x[i].t);
    assert_int_equal(w->armed, 0);
    free(x);
    free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_and_idle),
        cmocka_unit_test(test_fires_exactly_at_first_run_past_deadline),
        cmocka_unit_test(test_same_tick_distinct_deadlines),
        cmocka_unit_test(test_rearm_moves),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_arm_in_past_fires_next_run),
        cmocka_unit_test(test_far_future),
        cmocka_unit_test(test_clock_jumps),
        cmocka_unit_test(test_clock_backwards),
        cmocka_unit_test(test_periodic),
        cmocka_unit_test(test_periodic_catch_up_once_per_run),
        cmocka_unit_test(test_callback_arms_due_timer_same_run),
        cmocka_unit_test(test_callback_cancels_due_timer),
        cmocka_unit_test(test_callback_self_rearm_and_cancel),
        cmocka_unit_test(test_mutual_rearm_terminates),
        cmocka_unit_test(test_nested_run_is_ignored),
        cmocka_unit_test(test_order_across_ticks),
        cmocka_unit_test(test_random_against_model),
        cmocka_unit_test(test_perf_print),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
