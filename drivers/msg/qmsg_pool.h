/*
 * qmsg_pool: where qmsg buffers come from — two DPDK mempools, small
 * (QMSG_SMALL_DATA bytes) for the common message and large (QMSG_LARGE_DATA)
 * for multipart replies and big flow_mods. Safe from any thread: lcores use
 * their per-lcore cache, the control thread the shared ring.
 *
 * The appliance has three: one for what peers send (messages framed by the
 * io lcores, echo replies), each buffer charged to its peer's quota; and two
 * for the control plane, marked control so their buffers count apart on a
 * peer's quota: the workers' messages and the flow manager's FLOW_MODs, and
 * the events (connection up/down, switch up/down, echo round trips), so a
 * peer that leaves its output unread cannot hold up any switch's events.
 */
#ifndef OFCD_QMSG_POOL_H
#define OFCD_QMSG_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "msgq.h"
#include "ofcd_counters.h"
#include "qmsg.h"
#include "qmsg_quota.h"

struct qmsg_pool;

/* n_small / n_large buffers on NUMA socket; name tells the pools apart,
 * control marks a control-plane pool. NULL (logged) on failure. */
struct qmsg_pool *qmsg_pool_create(const char *name, unsigned n_small, unsigned n_large,
                                   int socket, bool control);
void qmsg_pool_destroy(struct qmsg_pool *p);

/* A buffer with room for len bytes (kind/cls/conn left for the caller), or
 * NULL when that size class is exhausted (counted). */
struct qmsg *qmsg_alloc(struct qmsg_pool *p, size_t len);

/* The same, charged to quota q. With enforce, NULL when q is full (counted
 * on q); without, charged whatever q holds. */
struct qmsg *qmsg_alloc_for(struct qmsg_pool *p, size_t len, struct qmsg_quota *q,
                            bool enforce);

/* Back to the pool it came from, released from its quota. NULL is fine. */
void qmsg_free(struct qmsg *m);

/* Every message in f freed, f left empty. */
static inline void qmsg_fifo_free(struct qmsg_fifo *f)
{
    struct qmsg *m;

    while ((m = qmsg_fifo_pop(f)))
        qmsg_free(m);
}

/* Every message still on q freed (before msgq_destroy at teardown). */
static inline void qmsg_free_queued(struct msgq *q)
{
    struct qmsg *m[32];
    unsigned n;

    while ((n = msgq_dequeue_burst(q, m, 32, 0)) > 0)
        for (unsigned i = 0; i < n; i++)
            qmsg_free(m[i]);
}

/* What taking and returning a buffer does whatever stores the buffers (this
 * pool, and the unit tests' fake over malloc, so their quota accounting is
 * this one). qmsg_take_begin: false when enforce and q, or a share it is
 * part of, has no room for a buffer of size class big (the caller counts
 * it); qmsg_take_end stamps a fresh buffer of size class big (from a
 * control-plane pool or not) and charges it to q and the shares q is part
 * of now, which it records; qmsg_give_back releases it from exactly those
 * before it goes back to m->origin. */
static inline bool qmsg_take_begin(struct qmsg_quota *q, bool big, bool enforce)
{
    return !(q && enforce && qmsg_quota_blocker(q, big));
}

static inline struct qmsg *qmsg_take_end(struct qmsg *m, bool big, bool control, void *origin,
                                         struct qmsg_quota *q)
{
    m->size_class = big;
    m->control = control;
    m->cap = big ? QMSG_LARGE_DATA : QMSG_SMALL_DATA;
    m->len = 0;
    m->origin = origin;
    m->quota = q;
    for (unsigned i = 0; i < QMSG_QUOTA_UPS; i++)
        m->quota_up[i] = NULL;
    if (q) {
        qmsg_quota_charge(q, big, control);
        for (unsigned i = 0; i < QMSG_QUOTA_UPS; i++) {
            struct qmsg_quota *up = qmsg_quota_get_up(q, i);
            m->quota_up[i] = up;
            if (up)
                qmsg_quota_charge(up, big, control);
        }
    }
    return m;
}

static inline void qmsg_give_back(struct qmsg *m)
{
    if (!m->quota)
        return;
    qmsg_quota_release(m->quota, m->size_class, m->control);
    for (unsigned i = 0; i < QMSG_QUOTA_UPS; i++)
        if (m->quota_up[i])
            qmsg_quota_release(m->quota_up[i], m->size_class, m->control);
}

#define QMSG_POOL_COUNTERS(X) X(alloc_failed, "no buffer of the size class asked for")
#define QMSG_POOL_GAUGES(X)                                                               \
    X(small_free, "small buffers free") X(large_free, "large buffers free")               \
    X(small_total, "small buffers in all") X(large_total, "large buffers in all")

struct qmsg_pool_stats {
    QMSG_POOL_COUNTERS(OFCD_COUNTER_FIELD)
    QMSG_POOL_GAUGES(OFCD_COUNTER_FIELD)
};

extern const struct ofcd_counter_group qmsg_pool_counters;   /* "msg_buffers" */
void qmsg_pool_get_stats(struct qmsg_pool *p, struct qmsg_pool_stats *out);

#endif
