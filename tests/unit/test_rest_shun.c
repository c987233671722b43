/* rest_shun: an address that keeps being refused before it authenticates
 * is refused at accept, by its own budget only, on a fake clock; the
 * connections it opened at once are paid for before it is let back; other
 * addresses, however many, neither share its budget nor free it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rest_shun.h"

#define S_US 1000000ull

static struct rest_shun sh;                 /* ~100 KiB: not on the stack */

static void test_budget_then_shunned(void **state)
{
    const uint32_t hog = 0x7f000002, other = 0x7f000003;
    uint64_t now = 10 * S_US;

    (void)state;
    rest_shun_init(&sh, 20, 200);
    for (unsigned i = 0; i < 199; i++)
        assert_false(rest_shun_refused(&sh, hog, now));
    assert_true(rest_shun_accept(&sh, hog, now));
    assert_true(rest_shun_refused(&sh, hog, now));      /* the 200th: shunned now */
    assert_false(rest_shun_accept(&sh, hog, now));
    assert_true(rest_shun_accept(&sh, other, now));     /* its budget is its own */
    /* One token back after 1/20 s: one more connection, then shunned again. */
    assert_false(rest_shun_accept(&sh, hog, now + S_US / 40));
    assert_true(rest_shun_accept(&sh, hog, now + S_US / 20));
    assert_true(rest_shun_refused(&sh, hog, now + S_US / 20));
    assert_false(rest_shun_accept(&sh, hog, now + S_US / 20));
    rest_shun_destroy(&sh);
}

/* 128 connections accepted together while it had one token: their 127
 * further refusals are debt, 127 / 20 s to pay back. */
static void test_connections_at_once_are_debt(void **state)
{
    const uint32_t hog = 0x7f000002;
    uint64_t now = 10 * S_US;

    (void)state;
    rest_shun_init(&sh, 20, 200);
    for (unsigned i = 0; i < 199; i++)
        rest_shun_refused(&sh, hog, now);
    for (unsigned i = 0; i < 128; i++)
        rest_shun_refused(&sh, hog, now);
    assert_false(rest_shun_accept(&sh, hog, now + 6 * S_US));
    assert_true(rest_shun_accept(&sh, hog, now + 6 * S_US + 450000));
    /* The debt has a floor: shunned at most (burst + 1) / per_s after its
     * last refusal, however many came at once. */
    now += 30 * S_US;
    for (unsigned i = 0; i < 100000; i++)
        rest_shun_refused(&sh, hog, now);
    assert_false(rest_shun_accept(&sh, hog, now + 10 * S_US));
    assert_true(rest_shun_accept(&sh, hog, now + 10 * S_US + S_US / 20));
    rest_shun_destroy(&sh);
}

/* Thousands of addresses refused once each do not push a shunned one out
 * of the table (it would come back with a full budget). */
static void test_many_addresses_do_not_free_it(void **state)
{
    const uint32_t hog = 0x7f000002;
    uint64_t now = 10 * S_US;

    (void)state;
    rest_shun_init(&sh, 20, 200);
    for (unsigned i = 0; i < 200; i++)
        rest_shun_refused(&sh, hog, now);
    for (uint32_t a = 1; a <= 3 * REST_SHUN_SLOTS; a++) {
        rest_shun_refused(&sh, 0x0a000000 + a, now);
        assert_true(rest_shun_accept(&sh, 0x0a000000 + a, now));
    }
    assert_false(rest_shun_accept(&sh, hog, now));
    rest_shun_destroy(&sh);
}

static void test_off(void **state)
{
    (void)state;
    rest_shun_init(&sh, 0, 200);
    for (unsigned i = 0; i < 1000; i++)
        assert_false(rest_shun_refused(&sh, 0x7f000002, 1));
    assert_true(rest_shun_accept(&sh, 0x7f000002, 1));
    rest_shun_destroy(&sh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_budget_then_shunned),
        cmocka_unit_test(test_connections_at_once_are_debt),
        cmocka_unit_test(test_many_addresses_do_not_free_it),
        cmocka_unit_test(test_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
