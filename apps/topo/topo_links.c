/* topo_links: see topo_links.h. */
#include "topo_links.h"

#include <errno.h>
#include <stdlib.h>

struct slot {
    struct topo_end e;
    uint32_t link;                      /* index + 1; 0 = free */
};

struct topo_links {
    struct topo_link *v;
    bool *used;
    uint32_t *free_list, n_free, max;
    struct slot *idx;                   /* endpoint -> link, open addressing */
    uint32_t mask;
    size_t n;
    uint64_t timeout_us;
    topo_change_fn fn;
    void *arg;
    bool (*hold)(void *arg, const struct topo_link *l);
    void *hold_arg;
};

static bool end_eq(struct topo_end x, struct topo_end y)
{
    return x.dpid == y.dpid && x.port == y.port;
}

static bool end_lt(struct topo_end x, struct topo_end y)
{
    return x.dpid < y.dpid || (x.dpid == y.dpid && x.port < y.port);
}


/* The slot of e, or the free one where it would go. */
static struct slot *find(const struct topo_links *t, struct topo_end e)
{
    uint32_t i = topo_end_hash(e) & t->mask;
    while (t->idx[i].link && !end_eq(t->idx[i].e, e))
        i = (i + 1) & t->mask;
    return &t->idx[i];
}

static void unindex(struct topo_links *t, struct topo_end e)
{
    struct slot *s = find(t, e);
    if (!s->link)
        return;
    uint32_t i = (uint32_t)(s - t->idx);
    /* Backward shift: later entries of the probe run move up, no tombstones. */
    for (uint32_t j = (i + 1) & t->mask; t->idx[j].link; j = (j + 1) & t->mask) {
        uint32_t home = topo_end_hash(t->idx[j].e) & t->mask;
        if (((j - home) & t->mask) >= ((j - i) & t->mask)) {
            t->idx[i] = t->idx[j];
            i = j;
        }
    }
    t->idx[i].link = 0;
}

struct topo_links *topo_links_create(uint32_t max_links, uint64_t timeout_us,
                                     topo_change_fn fn, void *arg)
{
    struct topo_links *t = calloc(1, sizeof(*t));
    uint32_t slots = 16;

    if (!t || !max_links)
        goto fail;
    while (slots < 4u * max_links)
        slots *= 2;
    t->v = calloc(max_links, sizeof(*t->v));
    t->used = calloc(max_links, sizeof(*t->used));
    t->free_list = calloc(max_links, sizeof(*t->free_list));
    t->idx = calloc(slots, sizeof(*t->idx));
    if (!t->v || !t->used || !t->free_list || !t->idx)
        goto fail;
    t->max = max_links;
    for (uint32_t i = 0; i < max_links; i++)
        t->free_list[i] = max_links - 1 - i;
    t->n_free = max_links;
    t->mask = slots - 1;
    t->timeout_us = timeout_us;
    t->fn = fn;
    t->arg = arg;
    return t;
fail:
    topo_links_destroy(t);
    return NULL;
}

void topo_links_destroy(struct topo_links *t)
{
    if (!t)
        return;
    free(t->v);
    free(t->used);
    free(t->free_list);
    free(t->idx);
    free(t);
}

static void tell(struct topo_links *t, const struct topo_link *l, enum topo_change c,
                 const char *why)
{
    if (t->fn)
        t->fn(t->arg, l, c, why);
}

/* Forget link i, telling it went down if it was up or a loop. */
static void drop(struct topo_links *t, uint32_t i, const char *why)
{
    struct topo_link *l = &t->v[i];

    if (l->up || l->loop)
        tell(t, l, TOPO_LINK_DOWN, why);
    unindex(t, l->a);
    if (!l->loop || !end_eq(l->a, l->b))
        unindex(t, l->b);
    t->used[i] = false;
    t->free_list[t->n_free++] = i;
    t->n--;
}

/* The link e is in, other than the pair (a, b): dropped, the cable moved. */
static void free_end(struct topo_links *t, struct topo_end e, struct topo_end a,
                     struct topo_end b)
{
    struct slot *s = find(t, e);
    if (!s->link)
        return;
    struct topo_link *l = &t->v[s->link - 1];
    if (end_eq(l->a, a) && end_eq(l->b, b))
        return;
    drop(t, s->link - 1, "one of its ports is now linked elsewhere");
}

int topo_links_seen(struct topo_links *t, struct topo_end from, struct topo_end to,
                    uint64_t now_us)
{
    if (!from.dpid || !to.dpid || !from.port || !to.port)
        return -EINVAL;
    bool ab = end_lt(from, to) || end_eq(from, to);
    struct topo_end a = ab ? from : to, b = ab ? to : from;
    free_end(t, a, a, b);
    free_end(t, b, a, b);
    struct slot *s = find(t, a);
    struct topo_link *l;
    if (s->link) {
        l = &t->v[s->link - 1];
    } else {
        if (!t->n_free)
            return -ENOSPC;
        uint32_t i = t->free_list[--t->n_free];
        t->used[i] = true;
        t->n++;
        l = &t->v[i];
        *l = (struct topo_link){.a = a, .b = b, .loop = a.dpid == b.dpid};
        s->e = a;
        s->link = i + 1;
        if (!end_eq(a, b)) {
            struct slot *sb = find(t, b);
            sb->e = b;
            sb->link = i + 1;
        }
        if (l->loop) {
            l->since_us = now_us;
            tell(t, l, TOPO_LINK_LOOP, "an LLDP frame came back to the switch that sent it");
        }
    }
    if (ab)
        l->seen_ab_us = now_us;
    else
        l->seen_ba_us = now_us;
    if (l->loop) {
        l->seen_ab_us = l->seen_ba_us = now_us;
        return 0;
    }
    if (!l->up && l->seen_ab_us && l->seen_ba_us) {
        l->up = true;
        l->since_us = now_us;
        tell(t, l, TOPO_LINK_UP, "LLDP seen both ways");
    }
    return 0;
}

void topo_links_expire(struct topo_links *t, uint64_t now_us)
{
    for (uint32_t i = 0; i < t->max; i++) {
        if (!t->used[i])
            continue;
        const struct topo_link *l = &t->v[i];
        uint64_t last = l->seen_ab_us < l->seen_ba_us ? l->seen_ab_us : l->seen_ba_us;
        /* A link seen one way only waits for the other as long. */
        if (!last)
            last = l->seen_ab_us > l->seen_ba_us ? l->seen_ab_us : l->seen_ba_us;
        if (now_us - last >= t->timeout_us && !(l->up && t->hold && t->hold(t->hold_arg, l)))
            drop(t, i, "no LLDP within topology.link_timeout_s");
    }
}

void topo_links_set_hold(struct topo_links *t, bool (*hold)(void *arg, const struct topo_link *l),
                         void *arg)
{
    t->hold = hold;
    t->hold_arg = arg;
}

void topo_links_port_down(struct topo_links *t, struct topo_end e)
{
    struct slot *s = find(t, e);
    if (s->link)
        drop(t, s->link - 1, "a port went down");
}

void topo_links_forget_pair(struct topo_links *t, struct topo_end a, struct topo_end b,
                            const char *why)
{
    struct slot *s = find(t, a);
    if (!s->link)
        return;
    const struct topo_link *l = &t->v[s->link - 1];
    if (end_eq(l->a, a) && end_eq(l->b, b))
        drop(t, s->link - 1, why);
}

void topo_links_switch_down(struct topo_links *t, uint64_t dpid)
{
    for (uint32_t i = 0; i < t->max; i++)
        if (t->used[i] && (t->v[i].a.dpid == dpid || t->v[i].b.dpid == dpid))
            drop(t, i, "a switch disconnected");
}

size_t topo_links_count(const struct topo_links *t)
{
    return t->n;
}

void topo_links_each(const struct topo_links *t, void (*fn)(void *arg, const struct topo_link *l),
                     void *arg)
{
    for (uint32_t i = 0; i < t->max; i++)
        if (t->used[i])
            fn(arg, &t->v[i]);
}
