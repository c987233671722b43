/*
 * ofcd_seqlock: one writer publishes an array of 64-bit words, any thread
 * reads a consistent copy without a lock and without slowing the writer.
 * An lcore publishes its counters this way on its tick; the control thread
 * and REST read them.
 *
 * The sequence is odd while a write is in progress; a reader retries until
 * it saw the same even sequence before and after its copy. Every word is
 * stored and loaded as a relaxed atomic, so the copy is race-free in the C11
 * sense (and to ThreadSanitizer), and the fences order the words against the
 * sequence.
 */
#ifndef OFCD_SEQLOCK_H
#define OFCD_SEQLOCK_H

#include <stdatomic.h>
#include <stdint.h>

struct ofcd_seqlock {
    atomic_uint seq;
};

static inline void ofcd_seqlock_init(struct ofcd_seqlock *s)
{
    atomic_init(&s->seq, 0);
}

/* Writer: copy n words from src (writer-private) to dst (shared). */
static inline void ofcd_seqlock_publish(struct ofcd_seqlock *s, uint64_t *dst, const uint64_t *src,
                                        unsigned n)
{
    unsigned seq = atomic_load_explicit(&s->seq, memory_order_relaxed);

    atomic_store_explicit(&s->seq, seq + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    for (unsigned i = 0; i < n; i++)
        __atomic_store_n(&dst[i], src[i], __ATOMIC_RELAXED);
    atomic_store_explicit(&s->seq, seq + 2, memory_order_release);
}

/* Any thread: a consistent copy of n words of src (shared) into dst. */
static inline void ofcd_seqlock_read(const struct ofcd_seqlock *s, uint64_t *dst,
                                     const uint64_t *src, unsigned n)
{
    unsigned before, after;

    do {
        before = atomic_load_explicit(&s->seq, memory_order_acquire);
        for (unsigned i = 0; i < n; i++)
            dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
        atomic_thread_fence(memory_order_acquire);
        after = atomic_load_explicit(&s->seq, memory_order_relaxed);
    } while ((before & 1u) || before != after);
}

#endif
