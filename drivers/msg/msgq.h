/*
 * msgq: a priority queue of qmsg made of four rte_rings, one per class
 * (P0 handshake/echo … P3 flow_mod/barrier, docs/design.md §2).
 *
 * Dequeue is strict by priority with bounded anti-starvation: a non-empty
 * lower class that got nothing for starve_bursts consecutive bursts is served
 * first in the next one, up to credit items. So a P3 flood never delays a P0
 * message by more than one burst, and P3 itself is never stalled forever.
 * Order is kept within a class (rte_ring is FIFO per producer), which is what
 * per-connection ordering and "a barrier never overtakes earlier flow_mods"
 * rely on: those messages share a class and a producer.
 *
 * A full class makes msgq_enqueue fail with -ENOBUFS and count it; the
 * producer decides (stop reading the TCP connection, answer 503, ...).
 * Nothing is dropped here. Counters are safe to read from any thread.
 */
#ifndef OFCD_MSGQ_H
#define OFCD_MSGQ_H

#include <stdbool.h>
#include <stdint.h>

#include "ofcd_doorbell.h"
#include "qmsg.h"

#define MSGQ_CLASSES 4
#define MSGQ_LAT_BUCKETS 32     /* log2 buckets of enqueue→dequeue TSC cycles */
/* The anti-starvation every ring of ofcd uses: a non-empty lower class
 * unserved for MSGQ_STARVE_BURSTS bursts gets up to MSGQ_CREDIT items first
 * in the next one (docs/design.md §1). */
#define MSGQ_STARVE_BURSTS 8
#define MSGQ_CREDIT 16

struct msgq;

struct msgq_cfg {
    const char *name;
    unsigned size;              /* slots per class, power of two */
    bool multi_producer;        /* several threads enqueue (e.g. workers + control) */
    bool multi_consumer;
    unsigned starve_bursts;     /* bursts a non-empty lower class may go unserved */
    unsigned credit;            /* items a starved class gets when its turn comes */
};

struct msgq_stats {
    uint64_t enqueued[MSGQ_CLASSES];
    uint64_t enqueue_failed[MSGQ_CLASSES];
    uint64_t dequeued[MSGQ_CLASSES];
    uint64_t starved_serves[MSGQ_CLASSES];   /* times anti-starvation kicked in */
    uint32_t depth[MSGQ_CLASSES];            /* now */
    uint32_t depth_max[MSGQ_CLASSES];        /* highest seen at enqueue */
    uint64_t lat_hist[MSGQ_CLASSES][MSGQ_LAT_BUCKETS]; /* bucket b: [2^b, 2^(b+1)) cycles */
};

/* NULL (logged) on bad config or no memory. Works without EAL (tests). */
struct msgq *msgq_create(const struct msgq_cfg *cfg);
void msgq_destroy(struct msgq *q);

/* The consumer's doorbell, rung after each enqueue so that a consumer
 * asleep on it wakes for the message (ofcd_doorbell.h: a fence and a load
 * while it is awake). NULL, the default: none. Set before producers run. */
void msgq_set_bell(struct msgq *q, struct ofcd_doorbell *bell);

/* Enqueue m in class m->cls, stamping m->enq_tsc = now_tsc. 0 or -ENOBUFS
 * (full: m is still the caller's), -EINVAL for a bad class. */
int msgq_enqueue(struct msgq *q, struct qmsg *m, uint64_t now_tsc);

/* Up to n messages in service order; latency is recorded against now_tsc. */
unsigned msgq_dequeue_burst(struct msgq *q, struct qmsg **out, unsigned n, uint64_t now_tsc);

unsigned msgq_count(const struct msgq *q, unsigned cls);
unsigned msgq_free_count(const struct msgq *q, unsigned cls);
void msgq_get_stats(const struct msgq *q, struct msgq_stats *out);

#endif
