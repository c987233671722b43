/* Unit tests of stored_flows' cookie_range reading: pairs in order, any
 * even count, an odd count or a non-integer refused, bounds beyond the
 * 64-bit cookie space clamped as Kytos-ng's numeric comparison means them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>

#include "rest_cookie_query.h"

static void add_all(struct rest_cookie_query *cq, const char *const *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(rest_cookie_query_add(cq, v[i]), 0);
    assert_int_equal(rest_cookie_query_finish(cq), 0);
}

static void test_no_values_match_all(void **state)
{
    struct rest_cookie_query cq = {0};

    (void)state;
    assert_int_equal(rest_cookie_query_finish(&cq), 0);
    assert_true(rest_cookie_query_match(&cq, 0));
    assert_true(rest_cookie_query_match(&cq, UINT64_MAX));
}

static void test_pairs_inclusive(void **state)
{
    static const char *const v[] = {"1", "2", "5", "6"};
    struct rest_cookie_query cq = {0};

    (void)state;
    add_all(&cq, v, 4);
    assert_false(rest_cookie_query_match(&cq, 0));
    assert_true(rest_cookie_query_match(&cq, 1));
    assert_true(rest_cookie_query_match(&cq, 2));
    assert_false(rest_cookie_query_match(&cq, 3));
    assert_false(rest_cookie_query_match(&cq, 4));
    assert_true(rest_cookie_query_match(&cq, 5));
    assert_true(rest_cookie_query_match(&cq, 6));
    assert_false(rest_cookie_query_match(&cq, 7));
}

static void test_odd_and_garbage_refused(void **state)
{
    struct rest_cookie_query cq = {0};

    (void)state;
    assert_int_equal(rest_cookie_query_add(&cq, "1"), 0);
    assert_int_equal(rest_cookie_query_finish(&cq), -EINVAL);
    static const char *const bad[] = {"", "x", "0x10", "1.5", "1e3", "--1", "12a", " "};
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct rest_cookie_query c2 = {0};
        assert_int_equal(rest_cookie_query_add(&c2, bad[i]), -EINVAL);
    }
}

/* 2^64-1 and the owner-tagged cookies Kytos NApps use read exactly;
 * beyond the cookie space a bound is clamped, below 0 too. */
static void test_edges_and_clamping(void **state)
{
    (void)state;
    static const char *const top[] = {"12321848580485677056", "18446744073709551615"};
    struct rest_cookie_query cq = {0};
    add_all(&cq, top, 2);
    assert_true(rest_cookie_query_match(&cq, 0xab00000000000000ull));
    assert_true(rest_cookie_query_match(&cq, UINT64_MAX));
    assert_false(rest_cookie_query_match(&cq, 0xaaffffffffffffffull));

    static const char *const wide[] = {"-5", "99999999999999999999999"};
    struct rest_cookie_query c2 = {0};
    add_all(&c2, wide, 2);
    assert_true(rest_cookie_query_match(&c2, 0));
    assert_true(rest_cookie_query_match(&c2, UINT64_MAX));

    static const char *const none[] = {"-9", "-1", "18446744073709551616", "18446744073709551617",
                                       "7", "3", " +4 ", "4"};
    struct rest_cookie_query c3 = {0};
    add_all(&c3, none, 8);
    assert_false(rest_cookie_query_match(&c3, 0));
    assert_false(rest_cookie_query_match(&c3, 5));
    assert_false(rest_cookie_query_match(&c3, UINT64_MAX));
    assert_true(rest_cookie_query_match(&c3, 4));  /* only the last pair can match */
}

static void test_pairs_bounded(void **state)
{
    struct rest_cookie_query cq = {0};

    (void)state;
    for (unsigned i = 0; i < 2 * REST_COOKIE_PAIRS_MAX; i++)
        assert_int_equal(rest_cookie_query_add(&cq, "1"), 0);
    assert_int_equal(rest_cookie_query_add(&cq, "1"), -E2BIG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_values_match_all),
        cmocka_unit_test(test_pairs_inclusive),
        cmocka_unit_test(test_odd_and_garbage_refused),
        cmocka_unit_test(test_edges_and_clamping),
        cmocka_unit_test(test_pairs_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
