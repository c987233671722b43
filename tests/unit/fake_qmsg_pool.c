/* fake_qmsg_pool: see fake_qmsg_pool.h. */
#include "fake_qmsg_pool.h"

#include <stdlib.h>

struct qmsg_pool {
    unsigned cap[2], used[2];
    uint64_t alloc_failed;
    bool control;
};

struct qmsg_pool *qmsg_pool_create(const char *name, unsigned n_small, unsigned n_large,
                                   int socket, bool control)
{
    struct qmsg_pool *p = calloc(1, sizeof(*p));

    (void)name;
    (void)socket;
    if (p) {
        p->cap[0] = n_small;
        p->cap[1] = n_large;
        p->control = control;
    }
    return p;
}

void qmsg_pool_destroy(struct qmsg_pool *p)
{
    free(p);
}

struct qmsg *qmsg_alloc_for(struct qmsg_pool *p, size_t len, struct qmsg_quota *q,
                            bool enforce)
{
    bool big = len > QMSG_SMALL_DATA;

    if (!qmsg_take_begin(q, big, enforce))
        return NULL;
    if (len > QMSG_LARGE_DATA || p->used[big] == p->cap[big]) {
        p->alloc_failed++;
        return NULL;
    }
    struct qmsg *m = malloc(sizeof(*m) + (big ? QMSG_LARGE_DATA : QMSG_SMALL_DATA));
    if (!m)
        return NULL;
    p->used[big]++;
    return qmsg_take_end(m, big, p->control, p, q);
}

struct qmsg *qmsg_alloc(struct qmsg_pool *p, size_t len)
{
    return qmsg_alloc_for(p, len, NULL, false);
}

void qmsg_free(struct qmsg *m)
{
    if (!m)
        return;
    struct qmsg_pool *p = m->origin;
    qmsg_give_back(m);
    p->used[m->size_class]--;
    free(m);
}

void qmsg_pool_get_stats(struct qmsg_pool *p, struct qmsg_pool_stats *out)
{
    *out = (struct qmsg_pool_stats){
        .alloc_failed = p->alloc_failed,
        .small_free = p->cap[0] - p->used[0],
        .large_free = p->cap[1] - p->used[1],
        .small_total = p->cap[0],
        .large_total = p->cap[1],
    };
}

unsigned fake_qmsg_pool_live(const struct qmsg_pool *p)
{
    return p->used[0] + p->used[1];
}
