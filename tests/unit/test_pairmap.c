/* Unit tests of ofcd_pairmap: set, replace, get and delete; two pairs that
 * share a number are two keys; 200,000 random sets and deletes agree with a
 * plain array kept beside (the backward shift never loses an entry of a
 * probe run, across the table's growth). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <cmocka.h>

#include "ofcd_pairmap.h"

static void test_basics(void **state)
{
    (void)state;
    struct ofcd_pairmap m = {0};
    uint64_t v = 0;

    assert_false(ofcd_pairmap_get(&m, 1, 2, &v));
    assert_false(ofcd_pairmap_del(&m, 1, 2, NULL));
    assert_int_equal(ofcd_pairmap_set(&m, 1, 2, 10), 1);
    assert_int_equal(ofcd_pairmap_set(&m, 2, 1, 20), 1);
    assert_int_equal(ofcd_pairmap_set(&m, 1, 2, 11), 0);
    assert_true(ofcd_pairmap_get(&m, 1, 2, &v));
    assert_int_equal(v, 11);
    assert_true(ofcd_pairmap_get(&m, 2, 1, &v));
    assert_int_equal(v, 20);
    assert_false(ofcd_pairmap_get(&m, 1, 1, NULL));
    assert_int_equal(m.n, 2);
    assert_true(ofcd_pairmap_del(&m, 1, 2, &v));
    assert_int_equal(v, 11);
    assert_false(ofcd_pairmap_get(&m, 1, 2, NULL));
    assert_true(ofcd_pairmap_get(&m, 2, 1, NULL));
    assert_int_equal(m.n, 1);
    ofcd_pairmap_free(&m);
    assert_null(m.slot);
}

#define CHURN_KEYS 5000u

/* Keys from a small space (many collide on their home slot as the table
 * fills), sets and deletes at random, checked against an array. */
static void test_churn(void **state)
{
    (void)state;
    struct ofcd_pairmap m = {0};
    static uint64_t ref[CHURN_KEYS];
    static bool in[CHURN_KEYS];
    size_t n = 0;

    srand(7);
    for (unsigned step = 0; step < 200000; step++) {
        unsigned k = (unsigned)rand() % CHURN_KEYS;
        uint64_t a = k / 50, b = (k % 50) * 0x100000001ull;
        if (rand() % 3) {
            uint64_t v = (uint64_t)step * 3 + 1;
            assert_int_equal(ofcd_pairmap_set(&m, a, b, v), in[k] ? 0 : 1);
            n += !in[k];
            in[k] = true;
            ref[k] = v;
        } else {
            uint64_t v = 0;
            assert_int_equal(ofcd_pairmap_del(&m, a, b, &v), in[k]);
            if (in[k])
                assert_int_equal(v, ref[k]);
            n -= in[k];
            in[k] = false;
        }
        if (step % 20000 == 0 || step == 199999) {
            assert_int_equal(m.n, n);
            for (unsigned i = 0; i < CHURN_KEYS; i++) {
                uint64_t v = 0;
                bool got = ofcd_pairmap_get(&m, i / 50, (i % 50) * 0x100000001ull, &v);
                assert_int_equal(got, in[i]);
                if (got)
                    assert_int_equal(v, ref[i]);
            }
        }
    }
    ofcd_pairmap_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basics),
        cmocka_unit_test(test_churn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
