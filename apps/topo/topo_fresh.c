/* topo_fresh: see topo_fresh.h. */
#include "topo_fresh.h"

#include <stdbool.h>
#include <stdlib.h>

#include "topo_lldp.h"

/* Links between entries are indexes + 1, 0 = none. */
struct ent {
    struct topo_end end;
    uint64_t sent_us;
    uint32_t hnext;                     /* bucket chain; the free list when unused */
    uint32_t older, newer;              /* the age list, by when last accepted */
};

struct topo_fresh {
    struct ent *v;
    uint32_t *buckets;
    uint32_t mask, max, n;
    uint32_t free_head;
    uint32_t oldest, newest;
    uint64_t max_age_us;
    uint64_t skew_us;
};

struct topo_fresh *topo_fresh_create(uint32_t max, uint64_t max_age_us, uint64_t skew_us)
{
    struct topo_fresh *f = max ? calloc(1, sizeof(*f)) : NULL;
    uint32_t size = 16;

    if (!f)
        return NULL;
    while (size < max && size < (1u << 30))
        size <<= 1;
    f->v = calloc(max, sizeof(*f->v));
    f->buckets = calloc(size, sizeof(*f->buckets));
    if (!f->v || !f->buckets) {
        topo_fresh_destroy(f);
        return NULL;
    }
    f->mask = size - 1;
    f->max = max;
    f->max_age_us = max_age_us;
    f->skew_us = skew_us;
    for (uint32_t i = max; i-- > 0;) {
        f->v[i].hnext = f->free_head;
        f->free_head = i + 1;
    }
    return f;
}

void topo_fresh_destroy(struct topo_fresh *f)
{
    if (!f)
        return;
    free(f->v);
    free(f->buckets);
    free(f);
}

size_t topo_fresh_count(const struct topo_fresh *f)
{
    return f->n;
}

static bool end_eq(struct topo_end x, struct topo_end y)
{
    return x.dpid == y.dpid && x.port == y.port;
}

static uint32_t *bucket(struct topo_fresh *f, struct topo_end e)
{
    return &f->buckets[topo_end_hash(e) & f->mask];
}

static void age_unlink(struct topo_fresh *f, uint32_t i)
{
    struct ent *e = &f->v[i - 1];

    if (e->older)
        f->v[e->older - 1].newer = e->newer;
    else
        f->oldest = e->newer;
    if (e->newer)
        f->v[e->newer - 1].older = e->older;
    else
        f->newest = e->older;
    e->older = e->newer = 0;
}

static void age_append(struct topo_fresh *f, uint32_t i)
{
    struct ent *e = &f->v[i - 1];

    e->older = f->newest;
    e->newer = 0;
    if (f->newest)
        f->v[f->newest - 1].newer = i;
    else
        f->oldest = i;
    f->newest = i;
}

static void forget(struct topo_fresh *f, uint32_t i)
{
    uint32_t *pp = bucket(f, f->v[i - 1].end);

    while (*pp != i)
        pp = &f->v[*pp - 1].hnext;
    *pp = f->v[i - 1].hnext;
    age_unlink(f, i);
    f->v[i - 1].hnext = f->free_head;
    f->free_head = i;
    f->n--;
}

/* Entries whose send time is past max_age: any frame not newer than it is
 * stale by age now, so nothing is lost by forgetting them. */
static void expire(struct topo_fresh *f, uint64_t now_us)
{
    while (f->oldest) {
        const struct ent *e = &f->v[f->oldest - 1];
        if (e->sent_us >= now_us || now_us - e->sent_us <= f->max_age_us)
            break;
        forget(f, f->oldest);
    }
}

enum topo_fresh_verdict topo_fresh_check(struct topo_fresh *f, struct topo_end from,
                                         uint64_t sent_us, uint64_t now_us)
{
    expire(f, now_us);
    if (sent_us > now_us + f->skew_us ||
        (sent_us < now_us && now_us - sent_us > f->max_age_us))
        return TOPO_FRESH_STALE;
    uint32_t *head = bucket(f, from), i = *head;
    while (i && !end_eq(f->v[i - 1].end, from))
        i = f->v[i - 1].hnext;
    if (i) {
        if (sent_us <= f->v[i - 1].sent_us)
            return TOPO_FRESH_REPLAY;
        f->v[i - 1].sent_us = sent_us;
        age_unlink(f, i);
        age_append(f, i);
        return TOPO_FRESH_OK;
    }
    if (!f->free_head)
        return TOPO_FRESH_FULL;
    i = f->free_head;
    f->free_head = f->v[i - 1].hnext;
    f->v[i - 1] = (struct ent){.end = from, .sent_us = sent_us, .hnext = *head};
    *head = i;
    age_append(f, i);
    f->n++;
    return TOPO_FRESH_OK;
}
