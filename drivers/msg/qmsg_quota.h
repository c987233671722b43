/*
 * qmsg_quota: how much of the message buffers one peer (a switch
 * connection) holds at once — its messages on their way to the worker, the
 * messages held until its handshake ends, what the worker and the io lcore
 * send it, the events about it on their way to the control thread.
 *
 * Charged when a buffer is taken for the peer (qmsg_alloc_for), released
 * when the buffer is freed, on whatever thread frees it: the counters are
 * relaxed atomics. Counted in buffers and in the bytes of the buffers'
 * capacity, so a 1-byte message pins what it holds, a whole buffer; and
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

struct qmsg_quota {
    uint32_t max_bufs;             /* 0 = no bound */
    uint64_t max_bytes;            /* 0 = no bound */
    uint32_t max_control_bufs;     /* of the control plane's pools, 0 = no bound */
    uint32_t bufs;                 /* held now (relaxed atomic) */
    uint64_t bytes;                /* held now, by capacity (relaxed atomic) */
    uint32_t control_bufs;         /* held now of control-plane pools (relaxed atomic) */
    uint64_t refused;              /* allocations refused for it (relaxed atomic) */
};

/* Set the bounds; what is held stays counted (a reused slot's buffers may
 * still be on their way back). */
static inline void qmsg_quota_set(struct qmsg_quota *q, uint32_t max_bufs, uint64_t max_bytes,
                                  uint32_t max_control_bufs)
{
    q->max_bufs = max_bufs;
    q->max_bytes = max_bytes;
    q->max_control_bufs = max_control_bufs;
}

/* At or over any bound? */
static inline bool qmsg_quota_full(const struct qmsg_quota *q)
{
    uint32_t bufs = __atomic_load_n(&q->bufs, __ATOMIC_RELAXED);
    uint64_t bytes = __atomic_load_n(&q->bytes, __ATOMIC_RELAXED);
    uint32_t control = __atomic_load_n(&q->control_bufs, __ATOMIC_RELAXED);
    return (q->max_bufs && bufs >= q->max_bufs) || (q->max_bytes && bytes >= q->max_bytes) ||
           (q->max_control_bufs && control >= q->max_control_bufs);
}

static inline void qmsg_quota_charge(struct qmsg_quota *q, uint32_t cap, bool control)
{
    __atomic_fetch_add(&q->bufs, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&q->bytes, cap, __ATOMIC_RELAXED);
    if (control)
        __atomic_fetch_add(&q->control_bufs, 1, __ATOMIC_RELAXED);
}

static inline void qmsg_quota_release(struct qmsg_quota *q, uint32_t cap, bool control)
{
    __atomic_fetch_sub(&q->bufs, 1, __ATOMIC_RELAXED);
    __atomic_fetch_sub(&q->bytes, cap, __ATOMIC_RELAXED);
    if (control)
        __atomic_fetch_sub(&q->control_bufs, 1, __ATOMIC_RELAXED);
}

static inline void qmsg_quota_refused(struct qmsg_quota *q)
{
    __atomic_fetch_add(&q->refused, 1, __ATOMIC_RELAXED);
}

#endif
