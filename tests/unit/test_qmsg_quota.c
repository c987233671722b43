/* Unit tests of qmsg_quota: what a peer holds, counted in buffers, in bytes
 * by each buffer's capacity (small or large) and in buffers of the control
 * plane's pools, is refused at each of its bounds, and comes back to
 * nothing when every buffer is released, from several threads at once; a
 * share nested in others (its address's, the pending connections') charges
 * them too, and a buffer is released from exactly what it was charged to. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>

#include "qmsg_pool.h"
#include "qmsg_quota.h"

static void test_counts_small_and_large(void **state)
{
    (void)state;
    struct qmsg_quota q = {0};

    qmsg_quota_charge(&q, false, false);
    qmsg_quota_charge(&q, true, false);
    qmsg_quota_charge(&q, true, true);
    assert_int_equal(qmsg_quota_bufs(&q), 3);
    assert_int_equal(qmsg_quota_bytes(&q), QMSG_SMALL_DATA + 2 * (uint64_t)QMSG_LARGE_DATA);
    assert_int_equal(qmsg_quota_control_bufs(&q), 1);
    qmsg_quota_release(&q, true, false);
    assert_int_equal(qmsg_quota_bufs(&q), 2);
    assert_int_equal(qmsg_quota_bytes(&q), QMSG_SMALL_DATA + (uint64_t)QMSG_LARGE_DATA);
    qmsg_quota_release(&q, false, false);
    qmsg_quota_release(&q, true, true);
    assert_int_equal(qmsg_quota_bufs(&q), 0);
    assert_int_equal(qmsg_quota_bytes(&q), 0);
    assert_int_equal(qmsg_quota_control_bufs(&q), 0);
}

static void test_full_at_each_bound(void **state)
{
    (void)state;
    struct qmsg_quota q = {0};

    assert_false(qmsg_quota_full(&q));                 /* no bounds: never full */
    qmsg_quota_set(&q, 3, 2 * (uint64_t)QMSG_LARGE_DATA, 2);
    qmsg_quota_charge(&q, true, false);
    assert_false(qmsg_quota_full(&q));
    qmsg_quota_charge(&q, true, false);                /* two large: the bytes bound */
    assert_true(qmsg_quota_full(&q));
    qmsg_quota_release(&q, true, false);
    qmsg_quota_charge(&q, false, false);
    assert_false(qmsg_quota_full(&q));
    qmsg_quota_charge(&q, false, false);               /* three buffers: the count bound */
    assert_true(qmsg_quota_full(&q));
    qmsg_quota_release(&q, false, false);
    qmsg_quota_release(&q, false, false);
    qmsg_quota_charge(&q, false, true);
    assert_false(qmsg_quota_full(&q));
    qmsg_quota_charge(&q, false, true);                /* two control buffers */
    assert_true(qmsg_quota_full(&q));
    qmsg_quota_release(&q, false, true);
    assert_false(qmsg_quota_full(&q));
}

/* Many small buffers never carry into the count of large ones. */
static void test_many_small_do_not_look_large(void **state)
{
    (void)state;
    struct qmsg_quota q = {0};
    const uint32_t n = 5u * 1000 * 1000;

    for (uint32_t i = 0; i < n; i++)
        qmsg_quota_charge(&q, false, false);
    assert_int_equal(qmsg_quota_bufs(&q), n);
    assert_int_equal(qmsg_quota_bytes(&q), (uint64_t)n * QMSG_SMALL_DATA);
}

#define CHURN_ROUNDS 200000

static void *churn(void *arg)
{
    struct qmsg_quota *q = arg;

    for (unsigned i = 0; i < CHURN_ROUNDS; i++) {
        bool large = i % 3 == 0, control = i % 5 == 0;
        qmsg_quota_charge(q, large, control);
        qmsg_quota_release(q, large, control);
    }
    return NULL;
}

/* Charged on one thread, released on another, as the io lcore and the
 * worker do: nothing is lost or left over. */
static void test_threads_leave_nothing(void **state)
{
    (void)state;
    struct qmsg_quota q = {0};
    pthread_t t[3];

    qmsg_quota_charge(&q, true, true);                 /* one held throughout */
    for (int i = 0; i < 3; i++)
        assert_int_equal(pthread_create(&t[i], NULL, churn, &q), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    assert_int_equal(qmsg_quota_bufs(&q), 1);
    assert_int_equal(qmsg_quota_bytes(&q), QMSG_LARGE_DATA);
    assert_int_equal(qmsg_quota_control_bufs(&q), 1);
}

/* A large bound of its own refuses only large buffers. */
static void test_large_bound(void **state)
{
    (void)state;
    struct qmsg_quota q = {0};

    qmsg_quota_bound(&q, &(struct qmsg_quota_bounds){.bufs = 16, .large = 1});
    qmsg_quota_charge(&q, true, false);
    assert_ptr_equal(qmsg_quota_blocker(&q, true), &q);
    assert_null(qmsg_quota_blocker(&q, false));
    assert_false(qmsg_quota_full(&q));
}

/* A buffer charged to a connection's share is charged to the shares it is
 * part of; the one that is full is named; a share that leaves its parent
 * (a connection becoming established leaves the pending one) still releases
 * the parent for what was charged before, and only that. */
static void test_nested_shares(void **state)
{
    (void)state;
    struct qmsg_quota conn = {0}, addr = {0}, pending = {0};
    struct {
        struct qmsg m;
        uint8_t data[16];
    } b[4];

    qmsg_quota_bound(&conn, &(struct qmsg_quota_bounds){.bufs = 8});
    qmsg_quota_bound(&addr, &(struct qmsg_quota_bounds){.bufs = 3});
    qmsg_quota_bound(&pending, &(struct qmsg_quota_bounds){.bufs = 2});
    qmsg_quota_set_up(&conn, 0, &addr);
    qmsg_quota_set_up(&conn, 1, &pending);
    for (int i = 0; i < 2; i++) {
        assert_true(qmsg_take_begin(&conn, false, true));
        qmsg_take_end(&b[i].m, false, false, NULL, &conn);
    }
    assert_int_equal(qmsg_quota_bufs(&addr), 2);
    assert_int_equal(qmsg_quota_bufs(&pending), 2);
    assert_ptr_equal(qmsg_quota_blocker(&conn, false), &pending);
    assert_false(qmsg_take_begin(&conn, false, true));
    assert_true(qmsg_take_begin(&conn, false, false));   /* not enforced: the worker's */
    qmsg_quota_set_up(&conn, 1, NULL);                    /* established */
    assert_null(qmsg_quota_blocker(&conn, false));
    qmsg_take_end(&b[2].m, false, false, NULL, &conn);
    assert_ptr_equal(qmsg_quota_blocker(&conn, false), &addr);
    assert_int_equal(qmsg_quota_bufs(&pending), 2);       /* the third is not its */
    qmsg_give_back(&b[2].m);
    qmsg_give_back(&b[0].m);
    qmsg_give_back(&b[1].m);
    assert_int_equal(qmsg_quota_bufs(&conn), 0);
    assert_int_equal(qmsg_quota_bufs(&addr), 0);
    assert_int_equal(qmsg_quota_bufs(&pending), 0);
    qmsg_take_end(&b[3].m, true, true, NULL, NULL);       /* no share: nothing counted */
    qmsg_give_back(&b[3].m);
    assert_int_equal(qmsg_quota_bufs(&addr), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_small_and_large),
        cmocka_unit_test(test_full_at_each_bound),
        cmocka_unit_test(test_many_small_do_not_look_large),
        cmocka_unit_test(test_threads_leave_nothing),
        cmocka_unit_test(test_large_bound),
        cmocka_unit_test(test_nested_shares),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
