/* qmsg_pool: see qmsg_pool.h. */
#include "qmsg_pool.h"

#include <stdio.h>
#include <stdlib.h>

#include <rte_errno.h>
#include <rte_mempool.h>

#include "ofcd_log.h"

OFCD_COUNTER_GROUP(qmsg_pool_counters, "msg_buffers", struct qmsg_pool_stats,
                   QMSG_POOL_COUNTERS, QMSG_POOL_GAUGES);

#define QMSG_POOL_CACHE 128

struct qmsg_pool {
    struct rte_mempool *small;
    struct rte_mempool *large;
    uint64_t alloc_failed;         /* relaxed atomics: any thread */
    bool control;
};

struct qmsg_pool *qmsg_pool_create(const char *name, unsigned n_small, unsigned n_large,
                                   int socket, bool control)
{
    struct qmsg_pool *p = calloc(1, sizeof(*p));
    char small[RTE_MEMPOOL_NAMESIZE], large[RTE_MEMPOOL_NAMESIZE];

    if (!p) {
        LOG_ERR("qmsg", "out of memory");
        return NULL;
    }
    p->control = control;
    snprintf(small, sizeof(small), "%.16s_small", name);
    snprintf(large, sizeof(large), "%.16s_large", name);
    p->small = rte_mempool_create(small, n_small, sizeof(struct qmsg) + QMSG_SMALL_DATA,
                                  QMSG_POOL_CACHE, 0, NULL, NULL, NULL, NULL, socket, 0);
    p->large = rte_mempool_create(large, n_large, sizeof(struct qmsg) + QMSG_LARGE_DATA,
                                  n_large >= 64 ? 8 : 0, 0, NULL, NULL, NULL, NULL, socket, 0);
    if (!p->small || !p->large) {
        LOG_ERR("qmsg", "cannot allocate the %s message buffers (%u x %u B, %u x %u B): %s; "
                "lower openflow.msg_buffers/control_buffers/event_buffers or give EAL more memory", name,
                n_small, QMSG_SMALL_DATA, n_large, QMSG_LARGE_DATA, rte_strerror(rte_errno));
        qmsg_pool_destroy(p);
        return NULL;
    }
    return p;
}

void qmsg_pool_destroy(struct qmsg_pool *p)
{
    if (!p)
        return;
    rte_mempool_free(p->small);
    rte_mempool_free(p->large);
    free(p);
}

struct qmsg *qmsg_alloc_for(struct qmsg_pool *p, size_t len, struct qmsg_quota *q,
                            bool enforce)
{
    bool big = len > QMSG_SMALL_DATA;
    struct rte_mempool *mp = big ? p->large : p->small;
    void *obj;

    if (!qmsg_take_begin(q, big, enforce))
        return NULL;
    if (len > QMSG_LARGE_DATA || rte_mempool_get(mp, &obj) != 0) {
        __atomic_fetch_add(&p->alloc_failed, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    return qmsg_take_end(obj, big, p->control, mp, q);
}

struct qmsg *qmsg_alloc(struct qmsg_pool *p, size_t len)
{
    return qmsg_alloc_for(p, len, NULL, false);
}

void qmsg_free(struct qmsg *m)
{
    if (!m)
        return;
    qmsg_give_back(m);
    rte_mempool_put(m->origin, m);
}

void qmsg_pool_get_stats(struct qmsg_pool *p, struct qmsg_pool_stats *out)
{
    out->small_free = rte_mempool_avail_count(p->small);
    out->large_free = rte_mempool_avail_count(p->large);
    out->small_total = p->small->size;
    out->large_total = p->large->size;
    out->alloc_failed = __atomic_load_n(&p->alloc_failed, __ATOMIC_RELAXED);
}
