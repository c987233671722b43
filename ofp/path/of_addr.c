/* of_addr: see of_addr.h. */
#include "of_addr.h"

#include <errno.h>
#include <stdlib.h>

struct of_addrs {
    struct of_addr *e;               /* capacity entries */
    uint32_t capacity, used;
    struct of_addr *free_head;       /* through dnext */
    struct of_addr *drain_head;      /* through dnext */
    uint32_t *hash;                  /* entry index + 1, 0 = empty; hash_mask + 1 slots */
    uint32_t hash_mask;
    struct of_addr **bucket;         /* [k]: addresses with k pending, 1..max_pending */
    uint32_t max_pending, top;       /* top: the highest non-empty bucket, 0 = none */
    uint32_t n_pending;
    struct qmsg_quota_bounds share;
};

/* Every bit of the address moves the home slot (a multiply alone leaves
 * addresses equal in their low bits on one slot, and O(1) becomes a scan). */
static uint32_t addr_hash(uint32_t ip)
{
    ip ^= ip >> 16;
    ip *= 0x85ebca6bu;
    ip ^= ip >> 13;
    ip *= 0xc2b2ae35u;
    return ip ^ (ip >> 16);
}

/* The hash slot holding ip, or the empty one where it would go. */
static uint32_t slot_of(const struct of_addrs *t, uint32_t ip)
{
    uint32_t i = addr_hash(ip) & t->hash_mask;
    while (t->hash[i] && t->e[t->hash[i] - 1].ip != ip)
        i = (i + 1) & t->hash_mask;
    return i;
}

/* Out of the hash by backward shift, so lookups need no tombstones. */
static void hash_remove(struct of_addrs *t, uint32_t ip)
{
    uint32_t i = slot_of(t, ip);

    if (!t->hash[i])
        return;
    for (uint32_t j = (i + 1) & t->hash_mask; t->hash[j]; j = (j + 1) & t->hash_mask) {
        uint32_t home = addr_hash(t->e[t->hash[j] - 1].ip) & t->hash_mask;
        /* j's entry may move to i if i lies between its home and j. */
        if (((j - home) & t->hash_mask) >= ((j - i) & t->hash_mask)) {
            t->hash[i] = t->hash[j];
            i = j;
        }
    }
    t->hash[i] = 0;
}

struct of_addrs *of_addrs_create(uint32_t capacity, uint32_t max_pending,
                                 const struct qmsg_quota_bounds *share)
{
    struct of_addrs *t = calloc(1, sizeof(*t));
    uint32_t slots = 16;

    if (!t)
        return NULL;
    while (slots < 2u * capacity)
        slots *= 2;
    t->capacity = capacity;
    t->max_pending = max_pending;
    t->share = *share;
    t->hash_mask = slots - 1;
    t->e = calloc(capacity, sizeof(*t->e));
    t->hash = calloc(slots, sizeof(*t->hash));
    t->bucket = calloc((size_t)max_pending + 1, sizeof(*t->bucket));
    if (!t->e || !t->hash || !t->bucket) {
        of_addrs_destroy(t);
        return NULL;
    }
    for (uint32_t i = capacity; i-- > 0;) {
        t->e[i].dnext = t->free_head;
        t->free_head = &t->e[i];
    }
    return t;
}

void of_addrs_destroy(struct of_addrs *t)
{
    if (!t)
        return;
    free(t->e);
    free(t->hash);
    free(t->bucket);
    free(t);
}

struct of_addr *of_addrs_find(const struct of_addrs *t, uint32_t ip)
{
    uint32_t i = slot_of(t, ip);
    return t->hash[i] ? &t->e[t->hash[i] - 1] : NULL;
}

static void forget(struct of_addrs *t, struct of_addr *a)
{
    hash_remove(t, a->ip);
    a->ip = 0;
    a->draining = false;
    for (unsigned i = 0; i < QMSG_QUOTA_UPS; i++)
        qmsg_quota_set_up(&a->quota, i, NULL);
    a->dnext = t->free_head;
    t->free_head = a;
    t->used--;
}

void of_addrs_reap(struct of_addrs *t)
{
    struct of_addr **pp = &t->drain_head;

    while (*pp) {
        struct of_addr *a = *pp;
        if (a->n_conns == 0 && qmsg_quota_bufs(&a->quota) != 0) {
            pp = &a->dnext;              /* buffers still out */
            continue;
        }
        *pp = a->dnext;
        a->draining = false;
        if (a->n_conns == 0)
            forget(t, a);
        /* else: a connection came back from ip; it is in use again */
    }
}

struct of_addr *of_addrs_get(struct of_addrs *t, uint32_t ip)
{
    uint32_t i = slot_of(t, ip);

    if (t->hash[i]) {
        struct of_addr *a = &t->e[t->hash[i] - 1];
        a->n_conns++;                    /* a draining entry leaves at the next reap */
        return a;
    }
    if (!t->free_head) {
        of_addrs_reap(t);
        if (!t->free_head)
            return NULL;
        i = slot_of(t, ip);              /* the reap may have shifted slots */
    }
    struct of_addr *a = t->free_head;
    t->free_head = a->dnext;
    a->dnext = NULL;
    a->ip = ip;
    a->n_conns = 1;
    a->n_pending = 0;
    a->pend_head = a->pend_tail = NULL;
    a->bprev = a->bnext = NULL;
    /* held is left as it is: a buffer charged to the entry's previous address
     * may still be on its way back (it is released where it was charged). */
    qmsg_quota_bound(&a->quota, &t->share);
    t->hash[i] = (uint32_t)(a - t->e) + 1;
    t->used++;
    return a;
}

void of_addrs_put(struct of_addrs *t, struct of_addr *a)
{
    if (--a->n_conns)
        return;
    if (qmsg_quota_bufs(&a->quota) == 0 && !a->draining) {
        forget(t, a);
        return;
    }
    if (!a->draining) {
        a->draining = true;
        a->dnext = t->drain_head;
        t->drain_head = a;
    }
}

/* ---- buckets by pending count ------------------------------------------------------- */

static void bucket_out(struct of_addrs *t, struct of_addr *a)
{
    if (a->bprev)
        a->bprev->bnext = a->bnext;
    else
        t->bucket[a->n_pending] = a->bnext;
    if (a->bnext)
        a->bnext->bprev = a->bprev;
    a->bprev = a->bnext = NULL;
}

static void bucket_in(struct of_addrs *t, struct of_addr *a)
{
    a->bprev = NULL;
    a->bnext = t->bucket[a->n_pending];
    if (a->bnext)
        a->bnext->bprev = a;
    t->bucket[a->n_pending] = a;
}

int of_addrs_pend(struct of_addrs *t, struct of_addr *a, struct of_addr_pend *p)
{
    if (t->n_pending >= t->max_pending || p->addr)
        return -ENOSPC;
    if (a->n_pending)
        bucket_out(t, a);
    a->n_pending++;
    bucket_in(t, a);
    if (a->n_pending > t->top)
        t->top = a->n_pending;
    t->n_pending++;
    p->addr = a;
    p->next = NULL;
    p->prev = a->pend_tail;
    if (a->pend_tail)
        a->pend_tail->next = p;
    else
        a->pend_head = p;
    a->pend_tail = p;
    return 0;
}

void of_addrs_unpend(struct of_addrs *t, struct of_addr_pend *p)
{
    struct of_addr *a = p->addr;

    if (!a)
        return;
    if (p->prev)
        p->prev->next = p->next;
    else
        a->pend_head = p->next;
    if (p->next)
        p->next->prev = p->prev;
    else
        a->pend_tail = p->prev;
    p->addr = NULL;
    p->prev = p->next = NULL;
    bucket_out(t, a);
    a->n_pending--;
    if (a->n_pending)
        bucket_in(t, a);
    /* Only a's move can empty the top bucket, and a now sits one below. */
    if (!t->bucket[t->top])
        t->top--;
    t->n_pending--;
}

struct of_addr_pend *of_addrs_victim(const struct of_addrs *t)
{
    return t->top ? t->bucket[t->top]->pend_head : NULL;
}

uint32_t of_addrs_pending(const struct of_addrs *t)
{
    return t->n_pending;
}

uint32_t of_addrs_count(const struct of_addrs *t)
{
    return t->used;
}
