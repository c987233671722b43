/* ofcd_pairmap: see ofcd_pairmap.h. */
#include "ofcd_pairmap.h"

#include <errno.h>
#include <stdlib.h>

#define PAIRMAP_FIRST_CAP 64u

static size_t pm_home(uint64_t a, uint64_t b, size_t cap)
{
    uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b * 0xc2b2ae3d27d4eb4full);
    return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

/* The slot of (a, b), or of the empty one where it would go. */
static size_t pm_find(const struct ofcd_pairmap *m, uint64_t a, uint64_t b)
{
    size_t j = pm_home(a, b, m->cap);

    while (m->slot[j].used && (m->slot[j].a != a || m->slot[j].b != b))
        j = (j + 1) & (m->cap - 1);
    return j;
}

static int pm_grow(struct ofcd_pairmap *m)
{
    size_t nc = m->cap ? m->cap * 2 : PAIRMAP_FIRST_CAP;
    struct ofcd_pairmap_slot *ns = calloc(nc, sizeof(*ns));

    if (!ns)
        return -ENOMEM;
    struct ofcd_pairmap old = *m;
    m->slot = ns;
    m->cap = nc;
    for (size_t i = 0; i < old.cap; i++)
        if (old.slot[i].used)
            m->slot[pm_find(m, old.slot[i].a, old.slot[i].b)] = old.slot[i];
    free(old.slot);
    return 0;
}

bool ofcd_pairmap_get(const struct ofcd_pairmap *m, uint64_t a, uint64_t b, uint64_t *v)
{
    if (!m->n)
        return false;
    size_t j = pm_find(m, a, b);
    if (!m->slot[j].used)
        return false;
    if (v)
        *v = m->slot[j].v;
    return true;
}

int ofcd_pairmap_set(struct ofcd_pairmap *m, uint64_t a, uint64_t b, uint64_t v)
{
    if (m->n) {
        size_t j = pm_find(m, a, b);
        if (m->slot[j].used) {
            m->slot[j].v = v;
            return 0;
        }
    }
    if (2 * (m->n + 1) > m->cap && pm_grow(m) < 0)
        return -ENOMEM;
    m->slot[pm_find(m, a, b)] = (struct ofcd_pairmap_slot){a, b, v, true};
    m->n++;
    return 1;
}

bool ofcd_pairmap_del(struct ofcd_pairmap *m, uint64_t a, uint64_t b, uint64_t *v)
{
    if (!m->n)
        return false;
    size_t mask = m->cap - 1, i = pm_find(m, a, b);
    if (!m->slot[i].used)
        return false;
    if (v)
        *v = m->slot[i].v;
    /* Backward shift: each later entry of the run moves into the hole
     * unless its home lies (cyclically) after the hole and up to itself. */
    for (size_t j = (i + 1) & mask; m->slot[j].used; j = (j + 1) & mask) {
        size_t h = pm_home(m->slot[j].a, m->slot[j].b, m->cap);
        bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
        if (!stays) {
            m->slot[i] = m->slot[j];
            i = j;
        }
    }
    m->slot[i].used = false;
    m->n--;
    return true;
}

void ofcd_pairmap_free(struct ofcd_pairmap *m)
{
    free(m->slot);
    *m = (struct ofcd_pairmap){0};
}
