/* msgq: see msgq.h. */
#include "msgq.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ring.h>

#include "ofcd_hist.h"
#include "ofcd_log.h"

struct msgq {
    struct rte_ring *ring[MSGQ_CLASSES];
    unsigned starve_bursts;
    unsigned credit;
    /* consumer side (single consumer, or serialised by the caller) */
    unsigned skipped[MSGQ_CLASSES];
    struct ofcd_doorbell *bell;     /* the consumer's, or NULL */
    /* producer side: relaxed atomics, several producers may count */
    uint64_t enqueued[MSGQ_CLASSES];
    uint64_t enqueue_failed[MSGQ_CLASSES];
    uint32_t depth_max[MSGQ_CLASSES];
    /* consumer side, read by others with relaxed atomics */
    uint64_t dequeued[MSGQ_CLASSES];
    uint64_t starved_serves[MSGQ_CLASSES];
    uint64_t lat_hist[MSGQ_CLASSES][MSGQ_LAT_BUCKETS];
};

struct msgq *msgq_create(const struct msgq_cfg *cfg)
{
    if (!cfg->size || (cfg->size & (cfg->size - 1)) || cfg->size > (1u << 20) ||
        !cfg->credit) {
        LOG_ERR("msgq", "%s: size must be a power of two up to 2^20 and credit > 0",
                cfg->name);
        return NULL;
    }
    struct msgq *q = calloc(1, sizeof(*q));
    if (!q)
        goto oom;
    q->starve_bursts = cfg->starve_bursts;
    q->credit = cfg->credit;
    /* Exactly size items per class: EXACT_SZ rounds the storage up to the
     * next power of two above size. */
    ssize_t sz = rte_ring_get_memsize(cfg->size * 2);
    unsigned flags = RING_F_EXACT_SZ | (cfg->multi_producer ? 0 : RING_F_SP_ENQ) |
                     (cfg->multi_consumer ? 0 : RING_F_SC_DEQ);
    for (unsigned c = 0; c < MSGQ_CLASSES; c++) {
        q->ring[c] = aligned_alloc(64, ((size_t)sz + 63) & ~(size_t)63);
        if (!q->ring[c])
            goto oom;
        char name[RTE_RING_NAMESIZE];
        snprintf(name, sizeof(name), "%.24s_p%u", cfg->name, c);
        if (rte_ring_init(q->ring[c], name, cfg->size, flags) < 0) {
            LOG_ERR("msgq", "%s: ring init failed", cfg->name);
            msgq_destroy(q);
            return NULL;
        }
    }
    return q;
oom:
    LOG_ERR("msgq", "%s: out of memory", cfg->name);
    msgq_destroy(q);
    return NULL;
}

void msgq_destroy(struct msgq *q)
{
    if (!q)
        return;
    for (unsigned c = 0; c < MSGQ_CLASSES; c++)
        free(q->ring[c]);
    free(q);
}

void msgq_set_bell(struct msgq *q, struct ofcd_doorbell *bell)
{
    q->bell = bell;
}

int msgq_enqueue(struct msgq *q, struct qmsg *m, uint64_t now_tsc)
{
    unsigned c = m->cls;
    unsigned free_left;

    if (c >= MSGQ_CLASSES)
        return -EINVAL;
    m->enq_tsc = now_tsc;
    if (rte_ring_enqueue_bulk(q->ring[c], (void **)&m, 1, &free_left) == 0) {
        __atomic_fetch_add(&q->enqueue_failed[c], 1, __ATOMIC_RELAXED);
        return -ENOBUFS;
    }
    __atomic_fetch_add(&q->enqueued[c], 1, __ATOMIC_RELAXED);
    uint32_t depth = rte_ring_get_capacity(q->ring[c]) - free_left;
    uint32_t seen = __atomic_load_n(&q->depth_max[c], __ATOMIC_RELAXED);
    while (depth > seen &&
           !__atomic_compare_exchange_n(&q->depth_max[c], &seen, depth, true,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    ofcd_doorbell_ring(q->bell);
    return 0;
}

static unsigned take(struct msgq *q, unsigned c, struct qmsg **out, unsigned n, uint64_t now)
{
    unsigned got = rte_ring_dequeue_burst(q->ring[c], (void **)out, n, NULL);

    for (unsigned i = 0; i < got; i++) {
        uint64_t d = now > out[i]->enq_tsc ? now - out[i]->enq_tsc : 0;
        unsigned b = ofcd_log2_bucket(d, MSGQ_LAT_BUCKETS);
        __atomic_store_n(&q->lat_hist[c][b], q->lat_hist[c][b] + 1, __ATOMIC_RELAXED);
    }
    if (got)
        __atomic_store_n(&q->dequeued[c], q->dequeued[c] + got, __ATOMIC_RELAXED);
    return got;
}

unsigned msgq_dequeue_burst(struct msgq *q, struct qmsg **out, unsigned n, uint64_t now_tsc)
{
    unsigned got = 0;
    unsigned per_class[MSGQ_CLASSES] = {0};

    /* Starved lower classes first, a bounded credit each. */
    for (unsigned c = 1; c < MSGQ_CLASSES && got < n; c++) {
        if (q->skipped[c] < q->starve_bursts || rte_ring_empty(q->ring[c]))
            continue;
        unsigned want = n - got < q->credit ? n - got : q->credit;
        unsigned k = take(q, c, out + got, want, now_tsc);
        per_class[c] += k;
        got += k;
        __atomic_store_n(&q->starved_serves[c], q->starved_serves[c] + 1, __ATOMIC_RELAXED);
    }
    /* Then strictly by priority. */
    for (unsigned c = 0; c < MSGQ_CLASSES && got < n; c++) {
        unsigned k = take(q, c, out + got, n - got, now_tsc);
        per_class[c] += k;
        got += k;
    }
    for (unsigned c = 0; c < MSGQ_CLASSES; c++) {
        if (per_class[c] || rte_ring_empty(q->ring[c]))
            q->skipped[c] = 0;
        else
            q->skipped[c]++;
    }
    return got;
}

unsigned msgq_count(const struct msgq *q, unsigned cls)
{
    return cls < MSGQ_CLASSES ? rte_ring_count(q->ring[cls]) : 0;
}

unsigned msgq_free_count(const struct msgq *q, unsigned cls)
{
    return cls < MSGQ_CLASSES ? rte_ring_free_count(q->ring[cls]) : 0;
}

void msgq_get_stats(const struct msgq *q, struct msgq_stats *out)
{
    memset(out, 0, sizeof(*out));
    for (unsigned c = 0; c < MSGQ_CLASSES; c++) {
        out->enqueued[c] = __atomic_load_n(&q->enqueued[c], __ATOMIC_RELAXED);
        out->enqueue_failed[c] = __atomic_load_n(&q->enqueue_failed[c], __ATOMIC_RELAXED);
        out->dequeued[c] = __atomic_load_n(&q->dequeued[c], __ATOMIC_RELAXED);
        out->starved_serves[c] = __atomic_load_n(&q->starved_serves[c], __ATOMIC_RELAXED);
        out->depth[c] = rte_ring_count(q->ring[c]);
        out->depth_max[c] = __atomic_load_n(&q->depth_max[c], __ATOMIC_RELAXED);
        for (unsigned b = 0; b < MSGQ_LAT_BUCKETS; b++)
            out->lat_hist[c][b] = __atomic_load_n(&q->lat_hist[c][b], __ATOMIC_RELAXED);
    }
}
