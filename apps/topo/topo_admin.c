/* topo_admin: see topo_admin.h. */
#include "topo_admin.h"

#include "topo_links.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

struct topo_admin_slot {
    _Atomic uint64_t dpid;
    _Atomic uint32_t port;
    _Atomic uint32_t flags;
    _Atomic bool used;
};

struct topo_admin {
    pthread_mutex_t wlock;              /* writers only */
    atomic_uint_fast64_t changes;       /* flags that changed, ever (topo_admin_changes) */
    uint32_t mask;
    uint32_t n, max;
    struct topo_admin_slot slot[];
};

static uint32_t slot_hash(uint64_t dpid, uint32_t port)
{
    return topo_end_hash((struct topo_end){dpid, port});
}

struct topo_admin *topo_admin_create(uint32_t capacity)
{
    uint32_t size = 16;

    while (size < 2ull * capacity && size < (1u << 30))
        size <<= 1;
    struct topo_admin *a = calloc(1, sizeof(*a) + (size_t)size * sizeof(a->slot[0]));
    if (!a)
        return NULL;
    pthread_mutex_init(&a->wlock, NULL);
    a->mask = size - 1;
    a->max = capacity;
    return a;
}

void topo_admin_destroy(struct topo_admin *a)
{
    if (!a)
        return;
    pthread_mutex_destroy(&a->wlock);
    free(a);
}

static struct topo_admin_slot *find(const struct topo_admin *a, uint64_t dpid, uint32_t port)
{
    for (uint32_t i = slot_hash(dpid, port), k = 0; k <= a->mask; i++, k++) {
        struct topo_admin_slot *s = (struct topo_admin_slot *)&a->slot[i & a->mask];
        if (!atomic_load_explicit(&s->used, memory_order_acquire))
            return NULL;
        if (atomic_load_explicit(&s->dpid, memory_order_relaxed) == dpid &&
            atomic_load_explicit(&s->port, memory_order_relaxed) == port)
            return s;
    }
    return NULL;
}

/* Under wlock. */
static int set_locked(struct topo_admin *a, uint64_t dpid, uint32_t port, uint32_t flags)
{
    int rc = 0;
    struct topo_admin_slot *s = find(a, dpid, port);
    if (s) {
        atomic_store_explicit(&s->flags, flags, memory_order_release);
    } else if (!flags) {
        /* nothing stored is the default already */
    } else if (a->n >= a->max) {
        rc = -ENOSPC;
    } else {
        uint32_t i = slot_hash(dpid, port);
        while (atomic_load_explicit(&a->slot[i & a->mask].used, memory_order_relaxed))
            i++;
        s = &a->slot[i & a->mask];
        atomic_store_explicit(&s->dpid, dpid, memory_order_relaxed);
        atomic_store_explicit(&s->port, port, memory_order_relaxed);
        atomic_store_explicit(&s->flags, flags, memory_order_relaxed);
        atomic_store_explicit(&s->used, true, memory_order_release);
        a->n++;
    }
    return rc;
}

uint64_t topo_admin_changes(const struct topo_admin *a)
{
    return atomic_load_explicit(&a->changes, memory_order_acquire);
}

int topo_admin_set(struct topo_admin *a, uint64_t dpid, uint32_t port, uint32_t flags)
{
    pthread_mutex_lock(&a->wlock);
    bool moved = topo_admin_get(a, dpid, port) != flags;
    int rc = set_locked(a, dpid, port, flags);
    /* After the write: a reader that sees the new count reads the new flag. */
    if (rc == 0 && moved)
        atomic_fetch_add_explicit(&a->changes, 1, memory_order_release);
    pthread_mutex_unlock(&a->wlock);
    return rc;
}

int topo_admin_update(struct topo_admin *a, uint64_t dpid, uint32_t port, uint32_t set,
                      uint32_t clear, uint32_t *now)
{
    pthread_mutex_lock(&a->wlock);
    uint32_t f = (topo_admin_get(a, dpid, port) & ~clear) | set;
    bool moved = topo_admin_get(a, dpid, port) != f;
    int rc = set_locked(a, dpid, port, f);
    if (rc == 0 && moved)
        atomic_fetch_add_explicit(&a->changes, 1, memory_order_release);
    pthread_mutex_unlock(&a->wlock);
    if (now)
        *now = rc == 0 ? f : topo_admin_get(a, dpid, port);
    return rc;
}

uint32_t topo_admin_get(const struct topo_admin *a, uint64_t dpid, uint32_t port)
{
    const struct topo_admin_slot *s = find(a, dpid, port);

    return s ? atomic_load_explicit(&s->flags, memory_order_acquire) : 0;
}
