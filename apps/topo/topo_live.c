/* topo_live: see topo_live.h. */
#include "topo_live.h"

#include <errno.h>
#include <stdlib.h>

struct topo_live {
    uint64_t dead_us;
    uint32_t n, max, mask;
    struct topo_live_if **buckets;
};


struct topo_live *topo_live_create(uint32_t max, uint64_t dead_us)
{
    struct topo_live *l = calloc(1, sizeof(*l));
    uint32_t size = 64;

    if (!l)
        return NULL;
    while (size < max && size < (1u << 24))
        size <<= 1;
    l->buckets = calloc(size, sizeof(*l->buckets));
    if (!l->buckets) {
        free(l);
        return NULL;
    }
    l->mask = size - 1;
    l->max = max;
    l->dead_us = dead_us;
    return l;
}

void topo_live_destroy(struct topo_live *l)
{
    if (!l)
        return;
    for (uint32_t b = 0; b <= l->mask; b++)
        for (struct topo_live_if *i = l->buckets[b], *next; i; i = next) {
            next = i->hnext;
            free(i);
        }
    free(l->buckets);
    free(l);
}

static struct topo_live_if **slot(const struct topo_live *l, struct topo_end e)
{
    struct topo_live_if **pp = &l->buckets[topo_end_hash(e) & l->mask];

    while (*pp && ((*pp)->end.dpid != e.dpid || (*pp)->end.port != e.port))
        pp = &(*pp)->hnext;
    return pp;
}

int topo_live_enable(struct topo_live *l, struct topo_end e)
{
    struct topo_live_if **pp = slot(l, e);

    if (*pp)
        return 0;
    if (l->n >= l->max)
        return -ENOSPC;
    struct topo_live_if *i = calloc(1, sizeof(*i));
    if (!i)
        return -ENOSPC;
    i->end = e;
    i->state = TOPO_LIVE_INIT;
    *pp = i;
    l->n++;
    return 0;
}

void topo_live_disable(struct topo_live *l, struct topo_end e)
{
    struct topo_live_if **pp = slot(l, e), *i = *pp;

    if (!i)
        return;
    *pp = i->hnext;
    free(i);
    l->n--;
}

bool topo_live_hello(struct topo_live *l, struct topo_end e, uint64_t now_us, int64_t wall_us)
{
    struct topo_live_if *i = *slot(l, e);

    if (!i)
        return false;
    i->last_hello_us = now_us;
    i->last_hello_wall_us = wall_us;
    if (i->state == TOPO_LIVE_UP)
        return false;
    if (++i->hellos < TOPO_LIVE_MIN_HELLOS)
        return false;
    i->state = TOPO_LIVE_UP;
    i->hellos = 0;
    return true;
}

unsigned topo_live_reap(struct topo_live *l, uint64_t now_us)
{
    unsigned changed = 0;

    for (uint32_t b = 0; b <= l->mask; b++)
        for (struct topo_live_if *i = l->buckets[b]; i; i = i->hnext)
            if (i->last_hello_us && i->state != TOPO_LIVE_DOWN && now_us > i->last_hello_us &&
                now_us - i->last_hello_us > l->dead_us) {
                i->state = TOPO_LIVE_DOWN;
                i->hellos = 0;
                changed++;
            }
    return changed;
}

const struct topo_live_if *topo_live_find(const struct topo_live *l, struct topo_end e)
{
    return *slot(l, e);
}

void topo_live_each(const struct topo_live *l,
                    void (*fn)(void *arg, const struct topo_live_if *i), void *arg)
{
    for (uint32_t b = 0; b <= l->mask; b++)
        for (const struct topo_live_if *i = l->buckets[b]; i; i = i->hnext)
            fn(arg, i);
}

size_t topo_live_each_from(const struct topo_live *l, uint32_t *pos, size_t max,
                           void (*fn)(void *arg, const struct topo_live_if *i), void *arg)
{
    size_t n = 0;

    for (; *pos <= l->mask && n < max; (*pos)++)
        for (const struct topo_live_if *i = l->buckets[*pos]; i; i = i->hnext, n++)
            fn(arg, i);
    return n;
}

enum topo_live_state topo_live_pair(const struct topo_live_if *a, const struct topo_live_if *b)
{
    if (a->state == TOPO_LIVE_INIT || b->state == TOPO_LIVE_INIT)
        return TOPO_LIVE_INIT;
    if (a->state == TOPO_LIVE_DOWN || b->state == TOPO_LIVE_DOWN)
        return TOPO_LIVE_DOWN;
    return TOPO_LIVE_UP;
}

const char *topo_live_name(enum topo_live_state s)
{
    return s == TOPO_LIVE_UP ? "up" : s == TOPO_LIVE_DOWN ? "down" : "init";
}
