/*
 * qmsg_pool: where qmsg buffers come from — two DPDK mempools, small
 * (QMSG_SMALL_DATA bytes) for the common message and large (QMSG_LARGE_DATA)
 * for multipart replies and big flow_mods. Safe from any thread: lcores use
 * their per-lcore cache, the control thread the shared ring.
 */
#ifndef OFCD_QMSG_POOL_H
#define OFCD_QMSG_POOL_H

#include <stddef.h>

#include "qmsg.h"

struct qmsg_pool;

/* n_small / n_large buffers on NUMA socket. NULL (logged) on failure. */
struct qmsg_pool *qmsg_pool_create(unsigned n_small, unsigned n_large, int socket);
void qmsg_pool_destroy(struct qmsg_pool *p);

/* A buffer with room for len bytes (kind/cls/conn left for the caller), or
 * NULL when that size class is exhausted (counted). */
struct qmsg *qmsg_alloc(struct qmsg_pool *p, size_t len);
void qmsg_free(struct qmsg_pool *p, struct qmsg *m);

struct qmsg_pool_stats {
    unsigned small_free, large_free;
    unsigned small_total, large_total;
    uint64_t alloc_failed;
};
void qmsg_pool_get_stats(struct qmsg_pool *p, struct qmsg_pool_stats *out);

#endif
