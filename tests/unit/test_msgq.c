/* Unit tests of msgq: strict priority, bounded anti-starvation, per-class
 * FIFO (also with two producers), full classes refuse without losing, and a
 * FLOW_MOD's error kept before the barrier reply after it while the class
 * they travel in is starved (ofp_msg_class). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "msgq.h"
#include "ofp_msg.h"
#include "ofp_wire.h"

#define N_MSGS 4096

static struct qmsg *msgs;

static int setup(void **state)
{
    (void)state;
    msgs = calloc(N_MSGS, sizeof(struct qmsg) + 8);
    return msgs ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(msgs);
    return 0;
}

static struct qmsg *msg(unsigned i)
{
    return (struct qmsg *)((char *)msgs + (size_t)i * (sizeof(struct qmsg) + 8));
}

static struct qmsg *mk(unsigned i, uint8_t cls, uint32_t tag)
{
    struct qmsg *m = msg(i);
    m->cls = cls;
    m->conn = tag;
    return m;
}

static struct msgq *make(unsigned size, unsigned starve, unsigned credit, bool mp)
{
    struct msgq_cfg cfg = {.name = "t", .size = size, .multi_producer = mp,
                           .multi_consumer = false, .starve_bursts = starve, .credit = credit};
    struct msgq *q = msgq_create(&cfg);
    assert_non_null(q);
    return q;
}

static void test_strict_priority(void **state)
{
    (void)state;
    struct msgq *q = make(64, 100, 4, false);
    unsigned id = 0;
    /* Enqueue low classes first: the high class must still come out first. */
    for (int cls = 3; cls >= 0; cls--)
        for (unsigned k = 0; k < 5; k++)
            assert_int_equal(msgq_enqueue(q, mk(id++, (uint8_t)cls, k), 0), 0);
    struct qmsg *out[32];
    unsigned n = msgq_dequeue_burst(q, out, 32, 10);
    assert_int_equal(n, 20);
    for (unsigned i = 0; i < n; i++) {
        assert_int_equal(out[i]->cls, i / 5);
        assert_int_equal(out[i]->conn, i % 5);     /* FIFO inside the class */
    }
    struct msgq_stats st;
    msgq_get_stats(q, &st);
    for (unsigned c = 0; c < MSGQ_CLASSES; c++) {
        assert_int_equal(st.enqueued[c], 5);
        assert_int_equal(st.dequeued[c], 5);
        assert_int_equal(st.depth[c], 0);
        assert_int_equal(st.depth_max[c], 5);
    }
    msgq_destroy(q);
}

static void test_full_class_refuses(void **state)
{
    (void)state;
    struct msgq *q = make(8, 100, 4, false);
    for (unsigned i = 0; i < 8; i++)
        assert_int_equal(msgq_enqueue(q, mk(i, 3, i), 0), 0);
    assert_int_equal(msgq_enqueue(q, mk(8, 3, 8), 0), -ENOBUFS);
    /* Another class still has room: one full class does not block the rest. */
    assert_int_equal(msgq_enqueue(q, mk(9, 0, 9), 0), 0);
    assert_int_equal(msgq_enqueue(q, mk(10, 7, 9), 0), -EINVAL);
    struct msgq_stats st;
    msgq_get_stats(q, &st);
    assert_int_equal(st.enqueue_failed[3], 1);
    assert_int_equal(msgq_count(q, 3), 8);
    assert_int_equal(msgq_free_count(q, 3), 0);
    msgq_destroy(q);
}

/* P0 flooded every burst: P3 must still get `credit` items at least once
 * every starve_bursts + 1 bursts, and never more than credit when starved. */
static void test_anti_starvation_bound(void **state)
{
    (void)state;
    const unsigned starve = 3, credit = 2, burst = 8;
    struct msgq *q = make(1024, starve, credit, false);
    unsigned id = 0;
    for (unsigned k = 0; k < 20; k++)
        assert_int_equal(msgq_enqueue(q, mk(id++, 3, k), 0), 0);
    unsigned p3_seen = 0, since_last = 0, worst_gap = 0;
    for (unsigned round = 0; round < 40; round++) {
        for (unsigned k = 0; k < burst; k++)       /* keep P0 always full enough */
            assert_int_equal(msgq_enqueue(q, mk(id++ % N_MSGS, 0, 1000 + k), 0), 0);
        struct qmsg *out[8];
        unsigned n = msgq_dequeue_burst(q, out, burst, 0);
        assert_int_equal(n, burst);
        unsigned p3 = 0;
        for (unsigned i = 0; i < n; i++)
            if (out[i]->cls == 3) {
                assert_int_equal(out[i]->conn, p3_seen + p3);   /* still FIFO */
                p3++;
            }
        assert_true(p3 <= credit);
        p3_seen += p3;
        since_last = p3 ? 0 : since_last + 1;
        if (since_last > worst_gap)
            worst_gap = since_last;
    }
    assert_true(worst_gap <= starve);
    assert_true(p3_seen >= 40 / (starve + 1) * credit);
    struct msgq_stats st;
    msgq_get_stats(q, &st);
    assert_true(st.starved_serves[3] > 0);
    msgq_destroy(q);
}

static void test_latency_histogram(void **state)
{
    (void)state;
    struct msgq *q = make(16, 100, 4, false);
    assert_int_equal(msgq_enqueue(q, mk(0, 1, 0), 1000), 0);
    struct qmsg *out[4];
    assert_int_equal(msgq_dequeue_burst(q, out, 4, 1000 + 5000), 1);
    struct msgq_stats st;
    msgq_get_stats(q, &st);
    /* 5000 cycles falls in bucket 12: [4096, 8192). */
    assert_int_equal(st.lat_hist[1][12], 1);
    msgq_destroy(q);
}

struct producer {
    struct msgq *q;
    unsigned base;
    unsigned count;
    uint32_t tag;
};

static void *produce(void *arg)
{
    struct producer *p = arg;
    for (unsigned i = 0; i < p->count; i++) {
        struct qmsg *m = mk(p->base + i, 2, (uint32_t)((p->tag << 16) | i));
        while (msgq_enqueue(p->q, m, 0) == -ENOBUFS)
            sched_yield();          /* full: the producer waits, nothing is lost */
    }
    return NULL;
}

static void test_two_producers_keep_their_order(void **state)
{
    (void)state;
    struct msgq *q = make(64, 100, 4, true);
    struct producer a = {q, 0, 1500, 1}, b = {q, 1500, 1500, 2};
    pthread_t ta, tb;
    assert_int_equal(pthread_create(&ta, NULL, produce, &a), 0);
    assert_int_equal(pthread_create(&tb, NULL, produce, &b), 0);
    uint32_t next[3] = {0, 0, 0};
    unsigned total = 0;
    while (total < 3000) {
        struct qmsg *out[16];
        unsigned n = msgq_dequeue_burst(q, out, 16, 0);
        for (unsigned i = 0; i < n; i++) {
            uint32_t tag = (uint32_t)out[i]->conn >> 16, seq = (uint32_t)out[i]->conn & 0xffff;
            assert_true(tag == 1 || tag == 2);
            assert_int_equal(seq, next[tag]);
            next[tag]++;
        }
        total += n;
        if (!n)
            sched_yield();
    }
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    assert_int_equal(next[1], 1500);
    assert_int_equal(next[2], 1500);
    msgq_destroy(q);
}

/* A consumer asleep on its doorbell is woken by an enqueue; one awake (the
 * bell not armed) costs the producer no write. */
static void test_enqueue_rings_the_consumer(void **state)
{
    (void)state;
    struct msgq *q = make(8, 8, 4, true);
    struct ofcd_doorbell bell;
    struct pollfd p;
    struct qmsg *out[2];

    assert_int_equal(ofcd_doorbell_init(&bell), 0);
    p = (struct pollfd){.fd = bell.fd, .events = POLLIN};
    msgq_set_bell(q, &bell);
    assert_int_equal(msgq_enqueue(q, mk(0, 3, 1), 0), 0);
    assert_int_equal(poll(&p, 1, 0), 0);          /* awake: nothing written */
    assert_int_equal(msgq_dequeue_burst(q, out, 2, 0), 1);
    ofcd_doorbell_arm(&bell);
    assert_int_equal(msgq_enqueue(q, mk(1, 0, 2), 0), 0);
    assert_int_equal(poll(&p, 1, 0), 1);          /* asleep: rung */
    ofcd_doorbell_clear(&bell);
    /* A refused message rings nobody. */
    for (unsigned i = 0; i < 8; i++)
        assert_int_equal(msgq_enqueue(q, mk(2 + i, 1, 3), 0), 0);
    ofcd_doorbell_arm(&bell);
    assert_int_equal(poll(&p, 1, 0), 0);
    assert_int_equal(msgq_enqueue(q, mk(10, 1, 3), 0), -ENOBUFS);
    assert_int_equal(poll(&p, 1, 0), 0);
    ofcd_doorbell_fini(&bell);
    msgq_destroy(q);
}

static void test_bad_config(void **state)
{
    (void)state;
    struct msgq_cfg cfg = {.name = "bad", .size = 100, .credit = 1};
    assert_null(msgq_create(&cfg));
    cfg.size = 64;
    cfg.credit = 0;
    assert_null(msgq_create(&cfg));
}

/* The flow manager's FLOW_MOD is rejected (OFPT_ERROR with its control xid),
 * then the switch answers the batch's barrier. Both must leave the ring in
 * that order even when their class is starved by a flood in another class
 * and anti-starvation serves it ahead of the others. */
static void test_error_before_barrier_under_starvation(void **state)
{
    (void)state;
    const uint8_t error_hdr[8] = {OFP13_VERSION, OFPT_ERROR, 0, 12, 0x80, 0, 0, 7};
    const uint8_t barrier_hdr[8] = {OFP13_VERSION, OFPT_BARRIER_REPLY, 0, 8, 0x80, 0, 0, 8};
    const uint8_t pin_hdr[8] = {OFP13_VERSION, OFPT_PACKET_IN, 0, 34, 0, 0, 0, 1};
    uint8_t err_cls = (uint8_t)ofp_msg_class(error_hdr);
    uint8_t bar_cls = (uint8_t)ofp_msg_class(barrier_hdr);
    uint8_t pin_cls = (uint8_t)ofp_msg_class(pin_hdr);
    struct msgq *q = make(1024, 8, 16, false);
    struct qmsg *out[8];
    unsigned id = 0;

    assert_int_equal(err_cls, bar_cls);          /* one class: FIFO between them */
    assert_true(pin_cls < bar_cls);
    /* Barrier replies of other switches wait in their class while a
     * packet_in flood takes every burst: after starve_bursts bursts the class
     * is starved, and the next burst serves it first. */
    for (unsigned k = 0; k < 2; k++)
        assert_int_equal(msgq_enqueue(q, mk(id++, bar_cls, 100 + k), 0), 0);
    for (unsigned k = 0; k < 200; k++)
        assert_int_equal(msgq_enqueue(q, mk(id++, pin_cls, 0), 0), 0);
    for (unsigned b = 0; b < 8; b++) {
        assert_int_equal(msgq_dequeue_burst(q, out, 8, 0), 8);
        for (unsigned i = 0; i < 8; i++)
            assert_int_equal(out[i]->cls, pin_cls);
    }
    /* Now the switch's error, then its barrier reply. */
    assert_int_equal(msgq_enqueue(q, mk(id++, err_cls, 7), 0), 0);
    assert_int_equal(msgq_enqueue(q, mk(id++, bar_cls, 8), 0), 0);
    uint32_t order[2];
    unsigned seen = 0;
    while (seen < 2) {
        unsigned n = msgq_dequeue_burst(q, out, 8, 0);
        assert_true(n > 0);
        for (unsigned i = 0; i < n; i++)
            if (out[i]->conn == 7 || out[i]->conn == 8)
                order[seen++] = (uint32_t)out[i]->conn;
    }
    assert_int_equal(order[0], 7);               /* the error first */
    assert_int_equal(order[1], 8);
    msgq_destroy(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strict_priority),
        cmocka_unit_test(test_full_class_refuses),
        cmocka_unit_test(test_anti_starvation_bound),
        cmocka_unit_test(test_latency_histogram),
        cmocka_unit_test(test_two_producers_keep_their_order),
        cmocka_unit_test(test_enqueue_rings_the_consumer),
        cmocka_unit_test(test_bad_config),
        cmocka_unit_test(test_error_before_barrier_under_starvation),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
