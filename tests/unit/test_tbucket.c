/* test_tbucket: the one token bucket, on a fake clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ofcd_ratelimit.h"
#include "ofcd_tbucket.h"

/* A full bucket lets `burst` through at once, then one per 1/rate. */
static void test_burst_then_rate(void **state)
{
    (void)state;
    struct ofcd_tbucket b;
    unsigned ok = 0;

    ofcd_tbucket_init(&b, 1000, 5);
    for (unsigned i = 0; i < 20; i++)
        ok += ofcd_tbucket_take(&b, 1000, 10, 5);
    assert_int_equal(ok, 5);
    /* 10/s: one token per 100 ms, not before. */
    assert_false(ofcd_tbucket_take(&b, 1000 + 99999, 10, 5));
    assert_true(ofcd_tbucket_take(&b, 1000 + 100000, 10, 5));
    assert_false(ofcd_tbucket_take(&b, 1000 + 100000, 10, 5));
}

/* However long the bucket was idle, it holds no more than burst. */
static void test_capped_after_idle(void **state)
{
    (void)state;
    struct ofcd_tbucket b;
    unsigned ok = 0;

    ofcd_tbucket_init(&b, 0, 0);
    for (unsigned i = 0; i < 100; i++)
        ok += ofcd_tbucket_take(&b, 3600ull * 1000000ull, 1000, 8);
    assert_int_equal(ok, 8);
}

/* A clock reading older than the last refill gains nothing and does not
 * move the refill point back (callers read the clock before a lock). */
static void test_older_reading(void **state)
{
    (void)state;
    struct ofcd_tbucket b;

    ofcd_tbucket_init(&b, 1000000, 1);
    assert_true(ofcd_tbucket_take(&b, 1000000, 1, 1));
    assert_false(ofcd_tbucket_take(&b, 500000, 1, 1));
    assert_int_equal(b.at_us, 1000000);
    assert_false(ofcd_tbucket_take(&b, 1999999, 1, 1));
    assert_true(ofcd_tbucket_take(&b, 2000000, 1, 1));
}

/* ready/spend split: the flow manager checks, then spends only when the
 * FLOW_MOD went out; a fractional burst (rate < 10 gives burst 1) works. */
static void test_ready_then_spend(void **state)
{
    (void)state;
    struct ofcd_tbucket b;

    ofcd_tbucket_init(&b, 0, 0);
    assert_false(ofcd_tbucket_ready(&b, 499999, 2, 1.5));
    assert_true(ofcd_tbucket_ready(&b, 500000, 2, 1.5));
    assert_true(ofcd_tbucket_ready(&b, 500000, 2, 1.5));   /* not spent yet */
    ofcd_tbucket_spend(&b);
    assert_false(ofcd_tbucket_ready(&b, 500000, 2, 1.5));
    assert_true(ofcd_tbucket_ready(&b, 10000000, 2, 1.5));
    assert_true(b.tokens <= 1.5);
}

/* Log sites on the bucket: the first line goes even at time 0, burst per
 * window, and the suppressed count comes with the next line. */
static void test_ratelimit_on_bucket(void **state)
{
    (void)state;
    struct ofcd_ratelimit rl = OFCD_RATELIMIT_INIT(2, 1000);
    uint64_t missed = 99;
    unsigned ok = 0;

    assert_true(ofcd_ratelimit(&rl, 0, &missed));
    assert_int_equal(missed, 0);
    for (unsigned i = 0; i < 10; i++)
        ok += ofcd_ratelimit(&rl, 0, &missed);
    assert_int_equal(ok, 1);
    assert_false(ofcd_ratelimit(&rl, 499999, &missed));
    assert_true(ofcd_ratelimit(&rl, 500000, &missed));
    assert_int_equal(missed, 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_burst_then_rate),
        cmocka_unit_test(test_capped_after_idle),
        cmocka_unit_test(test_older_reading),
        cmocka_unit_test(test_ready_then_spend),
        cmocka_unit_test(test_ratelimit_on_bucket),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
