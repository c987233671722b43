/* ofcd_log_ring: see ofcd_log_ring.h. */
#include "ofcd_log_ring.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ofcd_log.h"
#include "ofcd_log_priv.h"

struct ofcd_log_ring {
    char name[32];
    unsigned mask;
    _Atomic uint64_t head;           /* next slot the producer fills */
    _Atomic uint64_t tail;           /* next slot the consumer reads */
    _Atomic uint64_t dropped;
    uint64_t dropped_told;           /* consumer: dropped as last reported */
    struct slot {
        uint16_t len;
        char text[OFCD_LOG_RING_LINE];
    } *slots;
};

struct ofcd_log_ring *ofcd_log_ring_create(const char *name, unsigned slots)
{
    if (slots < 2 || (slots & (slots - 1)))
        return NULL;
    struct ofcd_log_ring *r = calloc(1, sizeof(*r));
    if (!r || !(r->slots = calloc(slots, sizeof(*r->slots)))) {
        free(r);
        return NULL;
    }
    snprintf(r->name, sizeof(r->name), "%s", name);
    r->mask = slots - 1;
    return r;
}

void ofcd_log_ring_destroy(struct ofcd_log_ring *r)
{
    if (!r)
        return;
    free(r->slots);
    free(r);
}

void ofcd_log_ring_put(struct ofcd_log_ring *r, const char *line, size_t len)
{
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);

    if (head - tail > r->mask) {
        atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
        return;
    }
    struct slot *s = &r->slots[head & r->mask];
    if (len > sizeof(s->text))
        len = sizeof(s->text);
    memcpy(s->text, line, len);
    s->len = (uint16_t)len;
    /* The slot's bytes before the new head: the consumer's acquire sees both. */
    atomic_store_explicit(&r->head, head + 1, memory_order_release);
}

unsigned ofcd_log_ring_drain(struct ofcd_log_ring *r, FILE *out)
{
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    uint64_t dropped = atomic_load_explicit(&r->dropped, memory_order_relaxed);
    unsigned n = 0;

    if (dropped != r->dropped_told) {
        char line[128];
        int len = ofcd_log_format(line, sizeof(line), OFCD_LOG_WARN, "log",
                                  "%s: %lu lines dropped: its log ring was full",
                                  r->name, (unsigned long)(dropped - r->dropped_told));
        ofcd_log_write(out, line, (size_t)len);
        r->dropped_told = dropped;
    }
    for (; tail != head; tail++, n++) {
        const struct slot *s = &r->slots[tail & r->mask];
        ofcd_log_write(out, s->text, s->len);
    }
    /* The slots read before they are handed back to the producer. */
    atomic_store_explicit(&r->tail, tail, memory_order_release);
    if (n)
        fflush(out);
    return n;
}

uint64_t ofcd_log_ring_dropped(const struct ofcd_log_ring *r)
{
    return atomic_load_explicit(&((struct ofcd_log_ring *)r)->dropped, memory_order_relaxed);
}
