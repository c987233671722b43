/* test_clock: the one clock and its warp. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "ofcd_clock.h"

/* The units agree and the monotonic clock does not step back. */
static void test_units_agree(void **state)
{
    (void)state;
    uint64_t us = ofcd_clock_mono_us();
    uint64_t ns = ofcd_clock_mono_ns();
    uint64_t ms = ofcd_clock_mono_ms();

    assert_true(ns / 1000 >= us);
    assert_true(ms <= ns / 1000000);
    assert_true(ms + 1000 > us / 1000);
    int64_t wall = ofcd_clock_wall_s();
    assert_true(wall >= (int64_t)time(NULL) - 1 && wall <= (int64_t)time(NULL) + 1);
}

/* A warp moves both clocks forward for every reader at once, only grows,
 * and refuses more than a day in total. */
static void test_warp_moves_both(void **state)
{
    (void)state;
    uint64_t base = ofcd_clock_warp_offset_us();
    uint64_t mono0 = ofcd_clock_mono_us();
    int64_t wall0 = ofcd_clock_wall_s();

    assert_int_equal(ofcd_clock_warp_us(3600ull * 1000000ull), 0);
    assert_int_equal(ofcd_clock_warp_offset_us(), base + 3600ull * 1000000ull);
    assert_true(ofcd_clock_mono_us() >= mono0 + 3600ull * 1000000ull);
    assert_true(ofcd_clock_wall_s() >= wall0 + 3600);
    assert_int_equal(ofcd_clock_warp_us(86400ull * 1000000ull), -EINVAL);
    assert_int_equal(ofcd_clock_warp_offset_us(), base + 3600ull * 1000000ull);
}

/* A deadline is on the kernel's unwarped clock: the warp above does not
 * make a real 20 ms wait return at once. */
static void test_ts_plus_carries(void **state)
{
    (void)state;
    struct timespec t = ofcd_clock_ts_plus_us((struct timespec){5, 999999000}, 2500);

    assert_int_equal(t.tv_sec, 6);
    assert_int_equal(t.tv_nsec, 2499000);
    t = ofcd_clock_ts_plus_us((struct timespec){5, 0}, 30000000);
    assert_int_equal(t.tv_sec, 35);
    assert_int_equal(t.tv_nsec, 0);
}

static void test_deadline_unwarped(void **state)
{
    (void)state;
    pthread_cond_t cv;
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    struct timespec t0, t1;

    assert_int_equal(ofcd_clock_cond_init(&cv), 0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct timespec dl = ofcd_clock_deadline(20000);
    pthread_mutex_lock(&m);
    while (pthread_cond_timedwait(&cv, &m, &dl) != ETIMEDOUT)
        ;
    pthread_mutex_unlock(&m);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    int64_t waited_us = (t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000;
    assert_true(waited_us >= 20000);
    pthread_cond_destroy(&cv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units_agree),
        cmocka_unit_test(test_warp_moves_both),
        cmocka_unit_test(test_ts_plus_carries),
        cmocka_unit_test(test_deadline_unwarped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
