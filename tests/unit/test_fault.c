/*
 * Unit tests of the fault decision engine (drivers/fault.c).
 *
 * Packets are pointers into a byte array of a test pool; the pool's dup/free
 * callbacks and the deliver() helper keep one state per packet id, so any
 * double free, free of a delivered packet, double delivery or leak fails the
 * test. Time is a plain counter passed to the engine.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"

#define POOL_MAX 100000

enum pkt_state {
    PKT_UNUSED = 0,
    PKT_LIVE,       /* owned by the engine or the test, not yet gone */
    PKT_DELIVERED,  /* came out of submit or release */
    PKT_FREED,      /* freed through ops->free */
};

struct pool {
    char slot[POOL_MAX];         /* &slot[id] is packet id */
    uint8_t state[POOL_MAX];
    unsigned used;               /* ids handed out so far */
    unsigned frees;
    unsigned delivered;
    unsigned dup_calls;
    unsigned dups;               /* successful copies */
    unsigned dup_fail_every;     /* 0: never fail; N: every Nth dup call fails */
};

struct ctx {
    struct pool pool;
    struct fault_dir dir;
    struct fault_pkt_ops ops;
};

static unsigned pkt_id(struct pool *p, void *pkt)
{
    char *c = pkt;

    assert_true(c >= p->slot && c < p->slot + POOL_MAX);
    return (unsigned)(c - p->slot);
}

static void *pkt_new(struct pool *p)
{
    assert_true(p->used < POOL_MAX);
    p->state[p->used] = PKT_LIVE;
    return &p->slot[p->used++];
}

static void *pool_dup(void *pkt, void *arg)
{
    struct pool *p = arg;

    assert_int_equal(p->state[pkt_id(p, pkt)], PKT_LIVE);
    p->dup_calls++;
    if (p->dup_fail_every != 0 && p->dup_calls % p->dup_fail_every == 0)
        return NULL;
    p->dups++;
    return pkt_new(p);
}

static void pool_free(void *pkt, void *arg)
{
    struct pool *p = arg;
    unsigned id = pkt_id(p, pkt);

    assert_int_equal(p->state[id], PKT_LIVE);
    p->state[id] = PKT_FREED;
    p->frees++;
}

static void deliver(struct pool *p, void **out, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        unsigned id = pkt_id(p, out[i]);

        assert_int_equal(p->state[id], PKT_LIVE);
        p->state[id] = PKT_DELIVERED;
        p->delivered++;
    }
}

static int setup(void **state)
{
    struct ctx *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return -1;
    c->ops.dup = pool_dup;
    c->ops.free = pool_free;
    c->ops.arg = &c->pool;
    *state = c;
    return 0;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

static void init_ok(struct fault_dir *dir, double drop, double dup, double reorder,
                    double delay, uint32_t delay_us, uint64_t seed)
{
    struct fault_rates r = {
        .drop = drop, .dup = dup, .reorder = reorder, .delay = delay, .delay_us = delay_us,
    };

    assert_int_equal(fault_dir_init(dir, &r, seed), 0);
}

static void assert_stats_balance(const struct fault_stats *s)
{
    assert_int_equal(s->seen, s->passed + s->dropped + s->duplicated + s->reordered +
                     s->delayed + s->hold_full);
}

/* Each action's frequency over 100,000 draws lies within 4 binomial sigma. */
static void test_rates_within_tolerance(void **state)
{
    struct ctx *c = *state;
    const uint64_t seeds[] = {0, 1, 0x0123456789abcdefULL};
    const unsigned n = 100000;
    const double p[5] = {
        [FAULT_PASS] = 1.0 - 0.05 - 0.02 - 0.05 - 0.03,
        [FAULT_DROP] = 0.05, [FAULT_DUP] = 0.02, [FAULT_REORDER] = 0.05, [FAULT_DELAY] = 0.03,
    };

    for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
        unsigned count[5] = {0};

        init_ok(&c->dir, 0.05, 0.02, 0.05, 0.03, 100, seeds[s]);
        for (unsigned i = 0; i < n; i++) {
            enum fault_action a = fault_dir_decide(&c->dir);

            assert_true((unsigned)a < 5);
            count[a]++;
        }
        for (int a = 0; a < 5; a++) {
            double mean = n * p[a];
            double sigma = sqrt(n * p[a] * (1.0 - p[a]));

            if (fabs(count[a] - mean) > 4.0 * sigma)
                fail_msg("seed %llu action %d: %u of %u, expected %.0f +- %.0f",
                         (unsigned long long)seeds[s], a, count[a], n, mean, 4.0 * sigma);
        }
    }
}

/* A rate of 1.0 always gives its action, whichever band it is. */
static void test_each_band_at_rate_one(void **state)
{
    struct ctx *c = *state;
    const enum fault_action acts[] = {FAULT_DROP, FAULT_DUP, FAULT_REORDER, FAULT_DELAY};

    for (size_t k = 0; k < sizeof(acts) / sizeof(acts[0]); k++) {
        double r[4] = {0};

        r[k] = 1.0;
        init_ok(&c->dir, r[0], r[1], r[2], r[3], 0, k);
        for (int i = 0; i < 10000; i++)
            assert_int_equal(fault_dir_decide(&c->dir), acts[k]);
    }
}

static void test_same_seed_same_sequence(void **state)
{
    struct ctx *c = *state;
    struct fault_dir *other = malloc(sizeof(*other));
    unsigned differ = 0;

    assert_non_null(other);
    init_ok(&c->dir, 0.2, 0.2, 0.2, 0.2, 10, 42);
    init_ok(other, 0.2, 0.2, 0.2, 0.2, 10, 42);
    for (int i = 0; i < 5000; i++)
        assert_int_equal(fault_dir_decide(&c->dir), fault_dir_decide(other));

    /* Neighbouring seeds, and 0 against 1, must not give the same stream. */
    for (uint64_t s = 0; s < 3; s++) {
        differ = 0;
        init_ok(&c->dir, 0.2, 0.2, 0.2, 0.2, 10, s);
        init_ok(other, 0.2, 0.2, 0.2, 0.2, 10, s + 1);
        for (int i = 0; i < 1000; i++)
            differ += fault_dir_decide(&c->dir) != fault_dir_decide(other);
        /* Independent streams over 5 equiprobable actions differ 80% of
         * the time; a shifted or equal stream would differ far less. */
        assert_true(differ > 600);
    }
    free(other);
}

/* submit() acts on the decision decide() would have drawn, one draw each. */
static void test_submit_follows_decide(void **state)
{
    struct ctx *c = *state;
    struct fault_dir *ref = malloc(sizeof(*ref));
    uint64_t now = 0;

    assert_non_null(ref);
    init_ok(&c->dir, 0.2, 0.2, 0.2, 0.2, 1000000, 99);
    init_ok(ref, 0.2, 0.2, 0.2, 0.2, 1000000, 99);
    for (int i = 0; i < 500; i++) {
        enum fault_action want = fault_dir_decide(ref);
        struct fault_stats before = c->dir.stats;
        unsigned frees = c->pool.frees;
        void *pkt = pkt_new(&c->pool);
        void *out[2];
        unsigned n = fault_dir_submit(&c->dir, pkt, now, &c->ops, out);

        switch (want) {
        case FAULT_DROP:
            assert_int_equal(n, 0);
            assert_int_equal(c->pool.frees, frees + 1);
            break;
        case FAULT_DUP:
            assert_int_equal(n, 2);
            assert_ptr_equal(out[0], pkt);
            assert_ptr_not_equal(out[1], pkt);
            break;
        case FAULT_REORDER:
            assert_int_equal(n, 0);
            assert_int_equal(c->dir.stats.reordered, before.reordered + 1);
            break;
        case FAULT_DELAY:
            assert_int_equal(n, 0);
            assert_int_equal(c->dir.stats.delayed, before.delayed + 1);
            break;
        case FAULT_PASS:
            assert_int_equal(n, 1);
            assert_ptr_equal(out[0], pkt);
            break;
        }
        deliver(&c->pool, out, n);
        /* Drain reorders so the hold never fills; the long delay keeps
         * delayed packets in, which is fine for 500 packets. */
        now += 1;
        while ((n = fault_dir_release(&c->dir, now, out, 2)) > 0)
            deliver(&c->pool, out, n);
    }
    assert_stats_balance(&c->dir.stats);
    fault_dir_flush(&c->dir, &c->ops);
    free(ref);
}

static void test_zero_rates_pass_in_order(void **state)
{
    struct ctx *c = *state;
    void *out[2];

    init_ok(&c->dir, 0, 0, 0, 0, 500, 3);
    for (int i = 0; i < 10000; i++) {
        void *pkt = pkt_new(&c->pool);

        assert_int_equal(fault_dir_submit(&c->dir, pkt, (uint64_t)i, &c->ops, out), 1);
        assert_ptr_equal(out[0], pkt);
        deliver(&c->pool, out, 1);
        assert_int_equal(fault_dir_release(&c->dir, (uint64_t)i + 100000, out, 2), 0);
    }
    assert_int_equal(c->dir.stats.seen, 10000);
    assert_int_equal(c->dir.stats.passed, 10000);
    assert_int_equal(c->pool.frees, 0);
    assert_int_equal(c->pool.dup_calls, 0);
}

static void test_drop_all(void **state)
{
    struct ctx *c = *state;
    void *out[2];

    init_ok(&c->dir, 1.0, 0, 0, 0, 0, 5);
    for (int i = 0; i < 10000; i++)
        assert_int_equal(fault_dir_submit(&c->dir, pkt_new(&c->pool), 0, &c->ops, out), 0);
    assert_int_equal(fault_dir_release(&c->dir, UINT64_MAX, out, 2), 0);
    assert_int_equal(c->pool.frees, 10000);
    for (unsigned id = 0; id < c->pool.used; id++)
        assert_int_equal(c->pool.state[id], PKT_FREED);
    assert_int_equal(c->dir.stats.dropped, 10000);
    assert_stats_balance(&c->dir.stats);
}

static void test_dup_failure_passes(void **state)
{
    struct ctx *c = *state;
    void *out[2];

    c->pool.dup_fail_every = 1;
    init_ok(&c->dir, 0, 1.0, 0, 0, 0, 5);
    for (int i = 0; i < 100; i++) {
        void *pkt = pkt_new(&c->pool);

        assert_int_equal(fault_dir_submit(&c->dir, pkt, 0, &c->ops, out), 1);
        assert_ptr_equal(out[0], pkt);
        deliver(&c->pool, out, 1);
    }
    assert_int_equal(c->dir.stats.passed, 100);
    assert_int_equal(c->dir.stats.duplicated, 0);
    assert_stats_balance(&c->dir.stats);
}

/* A reordered packet comes out once FAULT_REORDER_DEPTH later ones passed. */
static void test_reorder_after_depth(void **state)
{
    struct ctx *c = *state;
    void *out[2];
    void *held = pkt_new(&c->pool);

    init_ok(&c->dir, 0, 0, 1.0, 0, 0, 11);
    assert_int_equal(fault_dir_submit(&c->dir, held, 1000, &c->ops, out), 0);
    assert_int_equal(c->dir.stats.reordered, 1);
    c->dir.rates.reorder = 0.0;
    for (int k = 1; k <= FAULT_REORDER_DEPTH; k++) {
        void *pkt = pkt_new(&c->pool);

        assert_int_equal(fault_dir_release(&c->dir, 1000, out, 2), 0);
        assert_int_equal(fault_dir_submit(&c->dir, pkt, 1000, &c->ops, out), 1);
        assert_ptr_equal(out[0], pkt);
        deliver(&c->pool, out, 1);
    }
    assert_int_equal(fault_dir_release(&c->dir, 1000, out, 2), 1);
    assert_ptr_equal(out[0], held);
    deliver(&c->pool, out, 1);
    assert_int_equal(fault_dir_release(&c->dir, 1000, out, 2), 0);
}

/* Later packets pass a reordered one whatever happens to them. */
static void test_reorder_passed_by_held_and_dropped(void **state)
{
    struct ctx *c = *state;
    void *out[2];
    void *first = pkt_new(&c->pool);

    init_ok(&c->dir, 0, 0, 1.0, 0, 0, 12);
    assert_int_equal(fault_dir_submit(&c->dir, first, 0, &c->ops, out), 0);
    /* Held behind it: these pass it too. */
    for (int k = 1; k < FAULT_REORDER_DEPTH; k++)
        assert_int_equal(fault_dir_submit(&c->dir, pkt_new(&c->pool), 0, &c->ops, out), 0);
    assert_int_equal(fault_dir_release(&c->dir, 0, out, 2), 0);
    c->dir.rates.reorder = 0.0;
    c->dir.rates.drop = 1.0;
    assert_int_equal(fault_dir_submit(&c->dir, pkt_new(&c->pool), 0, &c->ops, out), 0);
    assert_int_equal(fault_dir_release(&c->dir, 0, out, 2), 1);
    assert_ptr_equal(out[0], first);
    deliver(&c->pool, out, 1);
    fault_dir_flush(&c->dir, &c->ops);
    /* The dropped packet and the FAULT_REORDER_DEPTH - 1 still held. */
    assert_int_equal(c->pool.frees, 1 + (FAULT_REORDER_DEPTH - 1));
}

/* With no later packets a reordered one leaves after FAULT_REORDER_MAX_US. */
static void test_reorder_timeout(void **state)
{
    struct ctx *c = *state;
    void *out[2];
    void *held = pkt_new(&c->pool);

    init_ok(&c->dir, 0, 0, 1.0, 0, 0, 13);
    assert_int_equal(fault_dir_submit(&c->dir, held, 5000, &c->ops, out), 0);
    assert_int_equal(fault_dir_release(&c->dir, 5000, out, 2), 0);
    assert_int_equal(fault_dir_release(&c->dir, 5000 + FAULT_REORDER_MAX_US - 1, out, 2), 0);
    assert_int_equal(fault_dir_release(&c->dir, 5000 + FAULT_REORDER_MAX_US, out, 2), 1);
    assert_ptr_equal(out[0], held);
    deliver(&c->pool, out, 1);
}

/* A delayed packet leaves at now + delay_us, not before, passes or not. */
static void test_delay(void **state)
{
    struct ctx *c = *state;
    void *out[2];
    void *held = pkt_new(&c->pool);
    const uint32_t delay_us = 500;

    init_ok(&c->dir, 0, 0, 0, 1.0, delay_us, 14);
    assert_int_equal(fault_dir_submit(&c->dir, held, 1000, &c->ops, out), 0);
    assert_int_equal(c->dir.stats.delayed, 1);
    c->dir.rates.delay = 0.0;
    for (int i = 0; i < 10; i++) {
        assert_int_equal(fault_dir_submit(&c->dir, pkt_new(&c->pool), 1000, &c->ops, out), 1);
        deliver(&c->pool, out, 1);
        assert_int_equal(fault_dir_release(&c->dir, 1000, out, 2), 0);
    }
    assert_int_equal(fault_dir_release(&c->dir, 1000 + delay_us - 1, out, 2), 0);
    assert_int_equal(fault_dir_release(&c->dir, 1000 + delay_us, out, 2), 1);
    assert_ptr_equal(out[0], held);
    deliver(&c->pool, out, 1);

    /* delay_us = 0 holds the packet only until the next release call. */
    init_ok(&c->dir, 0, 0, 0, 1.0, 0, 14);
    held = pkt_new(&c->pool);
    assert_int_equal(fault_dir_submit(&c->dir, held, 7, &c->ops, out), 0);
    assert_int_equal(fault_dir_release(&c->dir, 7, out, 2), 1);
    assert_ptr_equal(out[0], held);
    deliver(&c->pool, out, 1);
}

/* Due packets come out in held order, at most max per call. */
static void test_release_order_and_max(void **state)
{
    struct ctx *c = *state;
    void *pkts[10];
    void *out[16];

    init_ok(&c->dir, 0, 0, 0, 1.0, 100, 15);
    for (int i = 0; i < 10; i++) {
        pkts[i] = pkt_new(&c->pool);
        assert_int_equal(fault_dir_submit(&c->dir, pkts[i], (uint64_t)i, &c->ops, out), 0);
    }
    assert_int_equal(fault_dir_release(&c->dir, 1000, out, 0), 0);
    assert_int_equal(fault_dir_release(&c->dir, 1000, out, 3), 3);
    for (int i = 0; i < 3; i++)
        assert_ptr_equal(out[i], pkts[i]);
    deliver(&c->pool, out, 3);
    assert_int_equal(fault_dir_release(&c->dir, 1000, out, 16), 7);
    for (int i = 0; i < 7; i++)
        assert_ptr_equal(out[i], pkts[3 + i]);
    deliver(&c->pool, out, 7);
    assert_int_equal(c->dir.hold_count, 0);
}

/* A due packet behind one that is not due leaves alone; order is kept. */
static void test_release_from_middle(void **state)
{
    struct ctx *c = *state;
    void *out[4];
    void *slow = pkt_new(&c->pool);
    void *fast = pkt_new(&c->pool);
    void *late_slow = pkt_new(&c->pool);

    init_ok(&c->dir, 0, 0, 0, 1.0, 10000, 16);
    assert_int_equal(fault_dir_submit(&c->dir, slow, 0, &c->ops, out), 0);
    c->dir.rates.delay = 0.0;
    c->dir.rates.reorder = 1.0;
    assert_int_equal(fault_dir_submit(&c->dir, fast, 0, &c->ops, out), 0);
    c->dir.rates.reorder = 0.0;
    c->dir.rates.delay = 1.0;
    assert_int_equal(fault_dir_submit(&c->dir, late_slow, 0, &c->ops, out), 0);
    c->dir.rates.delay = 0.0;
    for (int k = 1; k < FAULT_REORDER_DEPTH; k++) {
        assert_int_equal(fault_dir_submit(&c->dir, pkt_new(&c->pool), 0, &c->ops, out), 1);
        deliver(&c->pool, out, 1);
    }
    assert_int_equal(fault_dir_release(&c->dir, 0, out, 4), 1);
    assert_ptr_equal(out[0], fast);
    deliver(&c->pool, out, 1);
    assert_int_equal(fault_dir_release(&c->dir, 9999, out, 4), 0);
    assert_int_equal(fault_dir_release(&c->dir, 10000, out, 4), 2);
    assert_ptr_equal(out[0], slow);
    assert_ptr_equal(out[1], late_slow);
    deliver(&c->pool, out, 2);
}

static void test_hold_full(void **state)
{
    struct ctx *c = *state;
    void *out[2];

    init_ok(&c->dir, 0, 0, 0, 1.0, 1000000, 17);
    for (int i = 0; i < FAULT_HOLD_MAX; i++)
        assert_int_equal(fault_dir_submit(&c->dir, pkt_new(&c->pool), 0, &c->ops, out), 0);
    for (int i = 0; i < 5; i++) {
        void *pkt = pkt_new(&c->pool);

        assert_int_equal(fault_dir_submit(&c->dir, pkt, 0, &c->ops, out), 1);
        assert_ptr_equal(out[0], pkt);
        deliver(&c->pool, out, 1);
    }
    /* A reorder decision finds the hold full as well. */
    c->dir.rates.delay = 0.0;
    c->dir.rates.reorder = 1.0;
    for (int i = 0; i < 3; i++) {
        void *pkt = pkt_new(&c->pool);

        assert_int_equal(fault_dir_submit(&c->dir, pkt, 0, &c->ops, out), 1);
        assert_ptr_equal(out[0], pkt);
        deliver(&c->pool, out, 1);
    }
    assert_int_equal(c->dir.stats.delayed, FAULT_HOLD_MAX);
    assert_int_equal(c->dir.stats.hold_full, 8);
    assert_int_equal(c->dir.stats.reordered, 0);
    assert_stats_balance(&c->dir.stats);
    assert_int_equal(fault_dir_release(&c->dir, 999999, out, 2), 0);

    fault_dir_flush(&c->dir, &c->ops);
    assert_int_equal(c->pool.frees, FAULT_HOLD_MAX);
    for (unsigned id = 0; id < c->pool.used; id++)
        assert_int_not_equal(c->pool.state[id], PKT_LIVE);
    /* After the flush the ring holds packets again. */
    assert_int_equal(fault_dir_submit(&c->dir, pkt_new(&c->pool), 0, &c->ops, out), 0);
    assert_int_equal(c->dir.stats.reordered, 1);
    fault_dir_flush(&c->dir, &c->ops);
}

static void test_init_rejects(void **state)
{
    struct ctx *c = *state;
    const struct fault_rates bad[] = {
        {.drop = -0.01},
        {.dup = -1e-12},
        {.reorder = 1.01},
        {.delay = 2.0},
        {.drop = NAN},
        {.dup = INFINITY},
        {.delay = -INFINITY},
        {.drop = 0.5, .dup = 0.5, .reorder = 0.01},
        {.drop = 0.3, .dup = 0.3, .reorder = 0.3, .delay = 0.3},
        {.drop = 1.0, .delay = 1.0},
    };
    const struct fault_rates edge = {.drop = 0.2, .dup = 0.4, .reorder = 0.3, .delay = 0.1};
    const struct fault_rates ones = {.drop = 1.0, .delay_us = UINT32_MAX};

    init_ok(&c->dir, 0.1, 0, 0, 0, 0, 1);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(fault_dir_init(&c->dir, &bad[i], 1), -EINVAL);
        /* The rejected rates did not replace the valid ones. */
        assert_true(c->dir.rates.drop == 0.1);
    }
    assert_int_equal(fault_dir_init(NULL, &edge, 1), -EINVAL);
    assert_int_equal(fault_dir_init(&c->dir, NULL, 1), -EINVAL);
    /* Sums of exactly 1 that round above it in binary are accepted. */
    assert_int_equal(fault_dir_init(&c->dir, &edge, 1), 0);
    assert_int_equal(fault_dir_init(&c->dir, &ones, 0), 0);
}

/* fault/set's KEY=VALUE words: each key changes its own rate, bad keys
 * and values are refused and change nothing; the same check as at init
 * judges the result. */
static void test_rates_from_words(void **state)
{
    struct fault_rates r = {.drop = 0.1, .delay_us = 7};
    const char *why = NULL;

    (void)state;
    assert_int_equal(fault_rates_set_kv(&r, "dup=0.25", &why), 0);
    assert_int_equal(fault_rates_set_kv(&r, "delay_us=2000", &why), 0);
    assert_int_equal(fault_rates_set_kv(&r, "reorder=1e-2", &why), 0);
    assert_true(r.drop == 0.1 && r.dup == 0.25 && r.reorder == 0.01 && r.delay == 0.0);
    assert_int_equal(r.delay_us, 2000);
    assert_int_equal(fault_rates_check(&r), 0);
    const char *bad[] = {"dup", "dup=", "dup=x", "dup=0.5x", "dup=1.5", "dup=-0.1", "dup=nan",
                         "speed=1", "delay_us=-1", "delay_us=4294967296", "delay_us=1.5"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        why = NULL;
        assert_int_equal(fault_rates_set_kv(&r, bad[i], &why), -EINVAL);
        assert_non_null(why);
    }
    assert_true(r.dup == 0.25);
    assert_int_equal(r.delay_us, 2000);
    /* Each rate fine, together over 1: the check refuses the sum. */
    assert_int_equal(fault_rates_set_kv(&r, "drop=0.8", &why), 0);
    assert_int_equal(fault_rates_check(&r), -EINVAL);
}

/* Test-side generator for the clock and release sizes, apart from the engine's. */
static uint32_t test_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 32);
}

struct held_rec {
    unsigned id;
    uint64_t seq;         /* order in which it was held */
    uint64_t due_us;
    uint64_t pass_due;    /* submit count at which a reorder is due */
};

/* Remove id from the held list, returning its record. */
static struct held_rec held_take(struct held_rec *held, unsigned *n, unsigned id)
{
    for (unsigned i = 0; i < *n; i++) {
        if (held[i].id == id) {
            struct held_rec r = held[i];

            held[i] = held[--*n];
            return r;
        }
    }
    fail_msg("packet %u released but not held", id);
    return (struct held_rec){0};
}

/*
 * Long random run: every packet is delivered or freed exactly once, each
 * release is due and in held order, and a full-size release leaves nothing
 * due behind.
 */
static void run_conservation(struct ctx *c, const struct fault_rates *r, uint64_t seed,
                             unsigned submits, unsigned step_us)
{
    struct held_rec *held = calloc(FAULT_HOLD_MAX, sizeof(*held));
    unsigned nheld = 0;
    uint64_t now = 1, rs = seed * 2 + 1, seq = 0, count = 0;
    void *out[FAULT_HOLD_MAX];
    struct fault_stats before;

    assert_non_null(held);
    memset(&c->pool, 0, sizeof(c->pool));
    c->pool.dup_fail_every = 7;
    assert_int_equal(fault_dir_init(&c->dir, r, seed), 0);

    for (unsigned i = 0; i < submits; i++) {
        void *pkt = pkt_new(&c->pool);
        unsigned n, max;
        uint64_t last_seq = 0;

        before = c->dir.stats;
        n = fault_dir_submit(&c->dir, pkt, now, &c->ops, out);
        count++;
        assert_true(n <= 2);
        if (c->dir.stats.reordered != before.reordered ||
            c->dir.stats.delayed != before.delayed) {
            bool reorder = c->dir.stats.reordered != before.reordered;

            assert_int_equal(n, 0);
            assert_true(nheld < FAULT_HOLD_MAX);
            held[nheld++] = (struct held_rec){
                .id = pkt_id(&c->pool, pkt), .seq = seq++,
                .due_us = now + (reorder ? FAULT_REORDER_MAX_US : r->delay_us),
                .pass_due = reorder ? count + FAULT_REORDER_DEPTH : UINT64_MAX,
            };
        }
        if (n == 2)
            assert_ptr_not_equal(out[0], out[1]);
        deliver(&c->pool, out, n);

        now += test_rand(&rs) % (2 * step_us + 1);
        /* Alternate small releases (packets stay due) with full ones. */
        max = (i & 1) ? 1 + test_rand(&rs) % 3 : FAULT_HOLD_MAX;
        n = fault_dir_release(&c->dir, now, out, max);
        assert_true(n <= max);
        for (unsigned k = 0; k < n; k++) {
            struct held_rec h = held_take(held, &nheld, pkt_id(&c->pool, out[k]));

            assert_true(now >= h.due_us || count >= h.pass_due);
            assert_true(k == 0 || h.seq > last_seq);
            last_seq = h.seq;
        }
        deliver(&c->pool, out, n);
        if (max == FAULT_HOLD_MAX)
            for (unsigned k = 0; k < nheld; k++)
                assert_true(now < held[k].due_us && count < held[k].pass_due);
        assert_int_equal(c->dir.hold_count, nheld);
    }

    assert_stats_balance(&c->dir.stats);
    assert_int_equal(c->dir.stats.seen, submits);
    assert_int_equal(c->dir.stats.duplicated, c->pool.dups);
    assert_int_equal(c->dir.stats.dropped, c->pool.frees);
    assert_int_equal(c->dir.stats.reordered + c->dir.stats.delayed, seq);

    fault_dir_flush(&c->dir, &c->ops);
    assert_int_equal(c->dir.hold_count, 0);
    assert_int_equal(c->pool.frees, c->dir.stats.dropped + nheld);
    assert_int_equal(c->pool.used, submits + c->pool.dups);
    assert_int_equal(c->pool.delivered + c->pool.frees, c->pool.used);
    for (unsigned id = 0; id < c->pool.used; id++)
        assert_true(c->pool.state[id] == PKT_DELIVERED || c->pool.state[id] == PKT_FREED);
    free(held);
}

static void test_conservation_mixed(void **state)
{
    struct ctx *c = *state;
    const struct fault_rates r = {
        .drop = 0.05, .dup = 0.02, .reorder = 0.05, .delay = 0.03, .delay_us = 300,
    };

    run_conservation(c, &r, 2024, 40000, 20);
    /* The mix must have exercised every path. */
    assert_true(c->dir.stats.dropped > 0 && c->dir.stats.duplicated > 0);
    assert_true(c->dir.stats.reordered > 0 && c->dir.stats.delayed > 0);
    assert_true(c->pool.dup_calls > c->pool.dups);
}

/* Long delays overflow the ring: hold_full is taken and still nothing leaks. */
static void test_conservation_hold_full(void **state)
{
    struct ctx *c = *state;
    const struct fault_rates r = {
        .drop = 0.1, .dup = 0.1, .reorder = 0.2, .delay = 0.5, .delay_us = 200000,
    };

    run_conservation(c, &r, 7, 20000, 25);
    assert_true(c->dir.stats.hold_full > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_rates_within_tolerance, setup, teardown),
        cmocka_unit_test_setup_teardown(test_each_band_at_rate_one, setup, teardown),
        cmocka_unit_test_setup_teardown(test_same_seed_same_sequence, setup, teardown),
        cmocka_unit_test_setup_teardown(test_submit_follows_decide, setup, teardown),
        cmocka_unit_test_setup_teardown(test_zero_rates_pass_in_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_drop_all, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dup_failure_passes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reorder_after_depth, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reorder_passed_by_held_and_dropped, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_reorder_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delay, setup, teardown),
        cmocka_unit_test_setup_teardown(test_release_order_and_max, setup, teardown),
        cmocka_unit_test_setup_teardown(test_release_from_middle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hold_full, setup, teardown),
        cmocka_unit_test_setup_teardown(test_init_rejects, setup, teardown),
        cmocka_unit_test(test_rates_from_words),
        cmocka_unit_test_setup_teardown(test_conservation_mixed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_conservation_hold_full, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
