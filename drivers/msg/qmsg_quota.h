/*
 * qmsg_quota: how much of the message buffers one peer holds at once — its
 * messages on their way to the worker, the messages held until its
 * handshake ends, what the worker and the io lcore send it, the events
 * about it on their way to the control thread — and the larger shares a
 * peer is part of.
 *
 * Charged when a buffer is taken for the peer (qmsg_alloc_for), released
 * when the buffer is freed, on whatever thread frees it: the counters are
 * relaxed atomics. Counted in buffers and in the bytes of the buffers'
 * capacity, so a 1-byte message pins what it holds, a whole buffer (a
 * buffer is small or large, so the bytes follow from how many of each: one
 * word holds both counts, and a charge is one atomic add, two for a buffer
 * of the control plane's pools, since every message a switch sends or is
 * sent costs a charge and a release on the packet_in path); apart, the
 * buffers it holds of the control plane's pools (what the worker sends it,
 * events about it), so a few peers cannot take the buffers every other
 * switch's FLOW_MODs and events come from; and the large buffers it holds,
 * which a share may bound on their own (a connection short of ESTABLISHED
 * needs one at most, for a handshake reply).
 *
 * Shares nest: a connection's share names up to QMSG_QUOTA_UPS shares it is
 * part of (its source address's, all pending connections' of its io lcore),
 * and a buffer is charged to every one of them. The buffer records the
 * shares it was charged to, so a share's `up` may change (a connection
 * becomes established and leaves the pending stage) while buffers charged
 * before are still out: each is released from exactly what it was charged
 * to.
 *
 * The io lcore stops reading a peer when its share or one above it has no
 * room and starts again once buffers come back; so what is charged without
 * being refused (the worker's answers and events, made from messages
 * already read) stays within one read budget of the bound. A share
 * outlives the connection that charged it (it lives in the io lcore's
 * connection slot or address table) until every buffer it charged is back.
 */
#ifndef OFCD_QMSG_QUOTA_H
#define OFCD_QMSG_QUOTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qmsg.h"

struct qmsg_quota {
    uint32_t max_bufs;             /* 0 = no bound */
    uint64_t max_bytes;            /* 0 = no bound */
    uint32_t max_control_bufs;     /* of the control plane's pools, 0 = no bound */
    uint32_t max_large;            /* large buffers, 0 = only the bytes bound */
    uint64_t held;                 /* buffers held (low 32 bits), of them large (high 32);
                                    * relaxed atomic */
    uint32_t control_bufs;         /* held now of control-plane pools (relaxed atomic) */
    /* The shares this one is part of, NULL = none (relaxed atomic pointers:
     * set on the io lcore, read wherever a buffer is charged). */
    struct qmsg_quota *up[QMSG_QUOTA_UPS];
};

#define QMSG_QUOTA_LARGE_ONE ((uint64_t)1 << 32)

/* The bounds (0 = none). What is held stays counted (a reused slot's
 * buffers may still be on their way back). */
struct qmsg_quota_bounds {
    uint32_t bufs;
    uint64_t bytes;
    uint32_t control_bufs;
    uint32_t large;
};

static inline void qmsg_quota_bound(struct qmsg_quota *q, const struct qmsg_quota_bounds *b)
{
    q->max_bufs = b->bufs;
    q->max_bytes = b->bytes;
    q->max_control_bufs = b->control_bufs;
    q->max_large = b->large;
}

/* The older form: bufs, bytes, control buffers; no bound of its own on
 * large buffers. */
static inline void qmsg_quota_set(struct qmsg_quota *q, uint32_t max_bufs, uint64_t max_bytes,
                                  uint32_t max_control_bufs)
{
    struct qmsg_quota_bounds b = {max_bufs, max_bytes, max_control_bufs, 0};
    qmsg_quota_bound(q, &b);
}

/* Slot i of the shares q is part of (NULL: none). */
static inline void qmsg_quota_set_up(struct qmsg_quota *q, unsigned i, struct qmsg_quota *up)
{
    __atomic_store_n(&q->up[i], up, __ATOMIC_RELAXED);
}

static inline struct qmsg_quota *qmsg_quota_get_up(const struct qmsg_quota *q, unsigned i)
{
    return __atomic_load_n(&q->up[i], __ATOMIC_RELAXED);
}

static inline uint32_t qmsg_quota_held_bufs(uint64_t held)
{
    return (uint32_t)held;
}

static inline uint32_t qmsg_quota_held_large(uint64_t held)
{
    return (uint32_t)(held >> 32);
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

/* Large buffers held now. */
static inline uint32_t qmsg_quota_large(const struct qmsg_quota *q)
{
    return qmsg_quota_held_large(__atomic_load_n(&q->held, __ATOMIC_RELAXED));
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

/* Room in q itself for one more buffer of size class big? */
static inline bool qmsg_quota_room_own(const struct qmsg_quota *q, bool big)
{
    uint64_t held = __atomic_load_n(&q->held, __ATOMIC_RELAXED);

    return !((q->max_bufs && qmsg_quota_held_bufs(held) >= q->max_bufs) ||
             (q->max_bytes && qmsg_quota_held_bytes(held) >= q->max_bytes) ||
             (big && q->max_large && qmsg_quota_held_large(held) >= q->max_large) ||
             (q->max_control_bufs && qmsg_quota_control_bufs(q) >= q->max_control_bufs));
}

/* The first share, q or one it is part of, with no room for one more buffer
 * of size class big; NULL when every one has room. */
static inline const struct qmsg_quota *qmsg_quota_blocker(const struct qmsg_quota *q, bool big)
{
    if (!qmsg_quota_room_own(q, big))
        return q;
    for (unsigned i = 0; i < QMSG_QUOTA_UPS; i++) {
        const struct qmsg_quota *up = qmsg_quota_get_up(q, i);
        if (up && !qmsg_quota_room_own(up, big))
            return up;
    }
    return NULL;
}

/* At or over any bound of its own, for a buffer of either size? */
static inline bool qmsg_quota_full(const struct qmsg_quota *q)
{
    return !qmsg_quota_room_own(q, false);
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
