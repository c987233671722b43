/* Unit tests of ofcd_hset: members found, others not (also in an empty set
 * and across the table's growth); a hash of 0 is a member like any other
 * (one with 1);
 * a second add says so; clear forgets, keeping or freeing the table. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "ofcd_hset.h"

/* Spread like match_ids: a multiplicative hash of the index. */
static uint64_t key_of(uint64_t i)
{
    return (i + 1) * 0x9e3779b97f4a7c15ull;
}

static void test_members(void **state)
{
    (void)state;
    struct ofcd_hset s = {0};

    assert_false(ofcd_hset_has(&s, 5));
    assert_int_equal(ofcd_hset_add(&s, 5), 1);
    assert_int_equal(ofcd_hset_add(&s, 5), 0);
    assert_true(ofcd_hset_has(&s, 5));
    assert_false(ofcd_hset_has(&s, 6));
    /* 0 is a member too (kept as 1: the two are one hash). */
    assert_false(ofcd_hset_has(&s, 0));
    assert_int_equal(ofcd_hset_add(&s, 0), 1);
    assert_true(ofcd_hset_has(&s, 0));
    assert_true(ofcd_hset_has(&s, 1));
    assert_int_equal(s.n, 2);
    ofcd_hset_free(&s);
    assert_null(s.slot);
}

/* 100,000 members: the table grows, every one is found, no other is. */
static void test_grows(void **state)
{
    (void)state;
    struct ofcd_hset s = {0};

    for (uint64_t i = 0; i < 100000; i++)
        assert_int_equal(ofcd_hset_add(&s, key_of(i)), 1);
    assert_int_equal(s.n, 100000);
    assert_true(s.cap >= 200000);
    for (uint64_t i = 0; i < 100000; i++)
        assert_true(ofcd_hset_has(&s, key_of(i)));
    for (uint64_t i = 100000; i < 200000; i++)
        assert_false(ofcd_hset_has(&s, key_of(i)));
    ofcd_hset_free(&s);
}

/* Clear forgets; a table past keep_cap is freed, a smaller one kept. */
static void test_clear(void **state)
{
    (void)state;
    struct ofcd_hset s = {0};

    for (uint64_t i = 0; i < 100; i++)
        ofcd_hset_add(&s, key_of(i));
    size_t cap = s.cap;
    ofcd_hset_clear(&s, 65536);
    assert_int_equal(s.n, 0);
    assert_int_equal(s.cap, cap);
    assert_false(ofcd_hset_has(&s, key_of(3)));
    assert_int_equal(ofcd_hset_add(&s, key_of(3)), 1);
    for (uint64_t i = 0; i < 1000; i++)
        ofcd_hset_add(&s, key_of(i));
    ofcd_hset_clear(&s, 1024);
    assert_null(s.slot);
    assert_int_equal(s.cap, 0);
    assert_false(ofcd_hset_has(&s, key_of(3)));
    ofcd_hset_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_members),
        cmocka_unit_test(test_grows),
        cmocka_unit_test(test_clear),
    };
    return cmocka_run_group_tests_name("ofcd_hset", tests, NULL, NULL);
}
