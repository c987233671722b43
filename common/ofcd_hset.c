/* ofcd_hset: see ofcd_hset.h. */
#include "ofcd_hset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define HSET_FIRST_CAP 256u

static uint64_t hset_key(uint64_t h)
{
    return h ? h : 1;
}

static void hset_place(uint64_t *slot, size_t cap, uint64_t h)
{
    size_t j = h & (cap - 1);

    while (slot[j])
        j = (j + 1) & (cap - 1);
    slot[j] = h;
}

static int hset_grow(struct ofcd_hset *s)
{
    size_t nc = s->cap ? s->cap * 2 : HSET_FIRST_CAP;
    uint64_t *ns = calloc(nc, sizeof(*ns));

    if (!ns)
        return -ENOMEM;
    for (size_t i = 0; i < s->cap; i++)
        if (s->slot[i])
            hset_place(ns, nc, s->slot[i]);
    free(s->slot);
    s->slot = ns;
    s->cap = nc;
    return 0;
}

bool ofcd_hset_has(const struct ofcd_hset *s, uint64_t h)
{
    h = hset_key(h);
    if (!s->n)
        return false;
    for (size_t j = h & (s->cap - 1); s->slot[j]; j = (j + 1) & (s->cap - 1))
        if (s->slot[j] == h)
            return true;
    return false;
}

int ofcd_hset_add(struct ofcd_hset *s, uint64_t h)
{
    h = hset_key(h);
    if (ofcd_hset_has(s, h))
        return 0;
    if (2 * (s->n + 1) > s->cap && hset_grow(s) < 0)
        return -ENOMEM;
    hset_place(s->slot, s->cap, h);
    s->n++;
    return 1;
}

void ofcd_hset_clear(struct ofcd_hset *s, size_t keep_cap)
{
    if (s->cap > keep_cap)
        ofcd_hset_free(s);
    else if (s->n)
        memset(s->slot, 0, s->cap * sizeof(*s->slot));
    s->n = 0;
}

void ofcd_hset_free(struct ofcd_hset *s)
{
    free(s->slot);
    *s = (struct ofcd_hset){0};
}
