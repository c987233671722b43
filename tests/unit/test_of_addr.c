/*
 * test_of_addr: the io lcore's table of source addresses — which pending
 * connection gives way when the pending ones are at their bound (the oldest
 * of the address holding the most, whatever the number of addresses), and
 * when an address is forgotten (no connection left and every buffer charged
 * to its share back, even when the buffers come back after the last
 * connection closed).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>

#include "of_addr.h"

#define IP(n) (0x0a420000u + (n))

static const struct qmsg_quota_bounds share = {.bufs = 8};

/* Four connections from A, one from B, two from C: A's oldest goes first;
 * after two of A's are gone, A and C tie at two and one of theirs goes
 * (the oldest of that address); the order within an address is arrival. */
static void test_victim_is_oldest_of_busiest(void **state)
{
    (void)state;
    struct of_addrs *t = of_addrs_create(16, 16, &share);
    struct of_addr_pend a[4] = {0}, b = {0}, c[2] = {0};

    assert_non_null(t);
    assert_null(of_addrs_victim(t));
    struct of_addr *A = of_addrs_get(t, IP(1)), *B = of_addrs_get(t, IP(2));
    struct of_addr *C = of_addrs_get(t, IP(3));
    assert_int_equal(of_addrs_pend(t, A, &a[0]), 0);
    assert_int_equal(of_addrs_pend(t, B, &b), 0);
    assert_int_equal(of_addrs_pend(t, C, &c[0]), 0);
    for (int i = 1; i < 4; i++) {
        of_addrs_get(t, IP(1));
        assert_int_equal(of_addrs_pend(t, A, &a[i]), 0);
    }
    of_addrs_get(t, IP(3));
    assert_int_equal(of_addrs_pend(t, C, &c[1]), 0);
    assert_int_equal(of_addrs_pending(t), 7);
    assert_int_equal(A->n_conns, 4);
    assert_ptr_equal(of_addrs_victim(t), &a[0]);
    of_addrs_unpend(t, &a[0]);
    assert_ptr_equal(of_addrs_victim(t), &a[1]);
    of_addrs_unpend(t, &a[1]);
    struct of_addr_pend *v = of_addrs_victim(t);     /* A and C hold two each */
    assert_true(v == &a[2] || v == &c[0]);
    of_addrs_unpend(t, &c[0]);
    assert_ptr_equal(of_addrs_victim(t), &a[2]);    /* A two, B one, C one */
    of_addrs_unpend(t, &a[2]);
    of_addrs_unpend(t, &a[3]);
    v = of_addrs_victim(t);
    assert_true(v == &b || v == &c[1]);
    of_addrs_unpend(t, &b);
    of_addrs_unpend(t, &c[1]);
    assert_null(of_addrs_victim(t));
    assert_int_equal(of_addrs_pending(t), 0);
    of_addrs_unpend(t, &b);                          /* not pending: nothing */
    assert_int_equal(of_addrs_pending(t), 0);
    of_addrs_destroy(t);
}

/* The pending connections are bounded: the caller must give one up first. */
static void test_pend_refused_at_bound(void **state)
{
    (void)state;
    struct of_addrs *t = of_addrs_create(16, 2, &share);
    struct of_addr_pend p[3] = {0};
    struct of_addr *a = of_addrs_get(t, IP(1));

    assert_int_equal(of_addrs_pend(t, a, &p[0]), 0);
    assert_int_equal(of_addrs_pend(t, a, &p[0]), -ENOSPC);  /* twice */
    assert_int_equal(of_addrs_pend(t, a, &p[1]), 0);
    assert_int_equal(of_addrs_pend(t, a, &p[2]), -ENOSPC);
    of_addrs_unpend(t, of_addrs_victim(t));
    assert_null(p[0].addr);
    assert_int_equal(of_addrs_pend(t, a, &p[2]), 0);
    of_addrs_destroy(t);
}

/* An address whose last connection closed while a buffer charged to its
 * share is still out stays (its counts would otherwise land on a stranger)
 * until the buffer is back; a new connection from it meanwhile finds the
 * same entry and the same share. */
static void test_forgotten_once_buffers_are_back(void **state)
{
    (void)state;
    struct of_addrs *t = of_addrs_create(2, 4, &share);
    struct of_addr *a = of_addrs_get(t, IP(1));

    qmsg_quota_charge(&a->quota, false, false);      /* a buffer on its way */
    of_addrs_put(t, a);
    assert_int_equal(of_addrs_count(t), 1);
    of_addrs_reap(t);
    assert_ptr_equal(of_addrs_find(t, IP(1)), a);
    assert_ptr_equal(of_addrs_get(t, IP(1)), a);     /* back before the reap */
    assert_int_equal(qmsg_quota_bufs(&a->quota), 1);
    of_addrs_reap(t);                                /* in use: off the drain list */
    assert_ptr_equal(of_addrs_find(t, IP(1)), a);
    of_addrs_put(t, a);
    qmsg_quota_release(&a->quota, false, false);
    of_addrs_reap(t);
    assert_null(of_addrs_find(t, IP(1)));
    assert_int_equal(of_addrs_count(t), 0);
    of_addrs_destroy(t);
}

/* A full table refuses a new address; one reaped makes room, and an entry
 * taken again has the share's bounds. */
static void test_full_table(void **state)
{
    (void)state;
    struct of_addrs *t = of_addrs_create(2, 4, &share);
    struct of_addr *a = of_addrs_get(t, IP(1)), *b = of_addrs_get(t, IP(2));

    assert_non_null(a);
    assert_non_null(b);
    assert_null(of_addrs_get(t, IP(3)));
    assert_ptr_equal(of_addrs_get(t, IP(2)), b);     /* a known one still counts up */
    assert_int_equal(b->n_conns, 2);
    qmsg_quota_charge(&a->quota, false, false);
    of_addrs_put(t, a);                              /* draining */
    assert_null(of_addrs_get(t, IP(3)));
    qmsg_quota_release(&a->quota, false, false);
    struct of_addr *c = of_addrs_get(t, IP(3));      /* the reap inside makes room */
    assert_ptr_equal(c, a);
    assert_int_equal(c->quota.max_bufs, share.bufs);
    assert_ptr_equal(of_addrs_find(t, IP(2)), b);
    of_addrs_destroy(t);
}

/* Many addresses through a small table, equal in their low bits (what a
 * weak hash puts on one slot) and crowded enough that probe chains form:
 * the hash stays consistent after every removal (backward shift), none
 * lost, none found twice. */
static void test_churn_keeps_the_hash(void **state)
{
    (void)state;
    struct of_addrs *t = of_addrs_create(64, 64, &share);
    struct of_addr *live[64] = {0};

    for (uint32_t round = 0; round < 5000; round++) {
        uint32_t k = (round * 2654435761u >> 8) % 64;
        if (live[k]) {
            of_addrs_put(t, live[k]);
            live[k] = NULL;
            assert_null(of_addrs_find(t, (k << 16) + 7));
        } else {
            live[k] = of_addrs_get(t, (k << 16) + 7);
            assert_non_null(live[k]);
        }
        if (round % 97 == 0)
            for (uint32_t i = 0; i < 64; i++)
                assert_ptr_equal(of_addrs_find(t, (i << 16) + 7), live[i]);
    }
    of_addrs_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_victim_is_oldest_of_busiest),
        cmocka_unit_test(test_pend_refused_at_bound),
        cmocka_unit_test(test_forgotten_once_buffers_are_back),
        cmocka_unit_test(test_full_table),
        cmocka_unit_test(test_churn_keeps_the_hash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
