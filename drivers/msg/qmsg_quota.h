/*
 * qmsg_quota: how much of the message buffers one peer (a switch
 * connection) holds at once — its messages on their way to the worker, the
 * messages held until its handshake ends, what the worker and the io lcore
 * send it, the events about it on their way to the control thread.
 *
 * Charged when a buffer is taken for the peer (qmsg_alloc_for), released
 * when the buffer is freed, on whatever thread frees it: the counters are
 * relaxed atomics. Counted in buffers and in the bytes of the buffers'
 * capacity, so a 1-byte message pins what it holds, a whole buffer (a
 * buffer is small or large, so the bytes follow from how many of each: one
 * word holds both counts, and a charge is one atomic add, two for a buffer
 * of the control plane's pools, since every message a switch sends or is
 * sent costs a charge and a release on the packet_in path); and
 * apart, the buffers it holds of the control plane's pools (what the worker
 * sends it, events about it), so a few peers cannot take the buffers every
 * other switch's FLOW_MODs and events come from.
 *
 * The io lcore stops reading a peer whose quota is full (its bytes stay in
 * TCP and its window closes) and starts again once buffers come back; so
 * what is charged without being refused (the worker's answers and events,
 * made from messages already read) stays within one read budget of the
 * bound. A quota outlives the connection that charged it (it lives in the
 * io lcore's connection slot) until every buffer it charged is back.
 */
#ifndef OFCD_QMSG_QUOTA_H
#define OFCD_QMSG_QUOTA_H

#include <stdbool.h>
#include <stdint.h>

#include "qmsg.h"

struct qmsg_quota {
    uint32_t max_bufs;             /* 0 = no bound */
    uint64_t max_bytes;            /* 0 = no bound */
    uint32_t max_control_bufs;     /* of the control plane's pools, 0 = no bound */
    uint64_t held;                 /* buffers held (low 32 bits), of them large (high 32);
                                    * relaxed atomic */
    uint32_t control_bufs;         /* held now of control-plane pools (relaxed atomic) */
};

#define QMSG_QUOTA_LARGE_ONE ((uint64_t)1 << 32)

/* Set the bounds; what is held stays counted (a reused slot's buffers may
 * still be on their way back). */
static inline void qmsg_quota_set(struct qmsg_quota *q, uint32_t max_bufs, uint64_t max_bytes,
                                  uint32_t max_control_bufs)
{
    q->max_bufs = max_bufs;
    q->max_bytes = max_bytes;
    q->max_control_bufs = max_control_bufs;
}

static inline uint32_t qmsg_quota_held_bufs(uint64_t held)
{
    return (uint32_t)held;
}

static inline uint64_t qmsg_quota_held_bytes(uint64_t held)
{
    uint64_t large = held >> 32, small = (uint32_t)held - large;
    return small * QMSG_SMALL_DATA + large * QMSG_LARGE_DATA;
}

/* Buffers held now. */
static inline uint32_t qmsg_quota_bufs(const struct qmsg_quota *q)
{
    return qmsg_quota_held_bufs(__atomic_load_n(&q->held, __ATOMIC_RELAXED));
}

/* Bytes held now, by the buffers' capacity. */
static inline uint64_t qmsg_quota_bytes(const struct qmsg_quota *q)
{
    return qmsg_quota_held_bytes(__atomic_load_n(&q->held, __ATOMIC_RELAXED));
}

/* Buffers of the control plane's pools held now. */
static inline uint32_t qmsg_quota_control_bufs(const struct qmsg_quota *q)
{
    return __atomic_load_n(&q->control_bufs, __ATOMIC_RELAXED);
}

/* At or over any bound? */
static inline bool qmsg_quota_full(const struct qmsg_quota *q)
{
    uint64_t held = __atomic_load_n(&q->held, __ATOMIC_RELAXED);

    return (q->max_bufs && qmsg_quota_held_bufs(held) >= q->max_bufs) ||
           (q->max_bytes && qmsg_quota_held_bytes(held) >= q->max_bytes) ||
           (q->max_control_bufs && qmsg_quota_control_bufs(q) >= q->max_control_bufs);
}

static inline void qmsg_quota_charge(struct qmsg_quota *q, bool large, bool control)
{
    __atomic_fetch_add(&q->held, 1 + (large ? QMSG_QUOTA_LARGE_ONE : 0), __ATOMIC_RELAXED);
    if (control)
        __atomic_fetch_add(&q->control_bufs, 1, __ATOMIC_RELAXED);
}

static inline void qmsg_quota_release(struct qmsg_quota *q, bool large, bool control)
{
    __atomic_fetch_sub(&q->held, 1 + (large ? QMSG_QUOTA_LARGE_ONE : 0), __ATOMIC_RELAXED);
    if (control)
        __atomic_fetch_sub(&q->control_bufs, 1, __ATOMIC_RELAXED);
}

#endif
