/*
 * ofcd_doorbell: how an lcore wakes a thread that sleeps in poll(2) — the
 * control thread, when a worker has posted events for it — without a
 * system call per event and without the sleeper polling on a short timer.
 *
 * The sleeper arms the bell, checks once more for work (a ring may have
 * filled between its last drain and the arming), and sleeps on fd. A
 * ringer writes to the eventfd only when the bell is armed, and only the
 * first ringer after an arming does: one write(2) per sleep at most,
 * whatever the number of lcores and events. Waking, the sleeper clears it.
 *
 * The arm / check-for-work and post-work / ring pairs are a Dekker
 * handshake: each side's store is followed by a full fence before its
 * load, so a ringer sees the bell armed or the sleeper sees the work.
 */
#ifndef OFCD_DOORBELL_H
#define OFCD_DOORBELL_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct ofcd_doorbell {
    _Atomic bool armed;
    int fd;
};

/* 0, or a negative errno (no eventfd). */
static inline int ofcd_doorbell_init(struct ofcd_doorbell *d)
{
    atomic_init(&d->armed, false);
    d->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    return d->fd < 0 ? -errno : 0;
}

static inline void ofcd_doorbell_fini(struct ofcd_doorbell *d)
{
    if (d->fd >= 0)
        close(d->fd);
    d->fd = -1;
}

/* Sleeper, before its last look for work and poll(d->fd). */
static inline void ofcd_doorbell_arm(struct ofcd_doorbell *d)
{
    atomic_store_explicit(&d->armed, true, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
}

/* Sleeper, awake and not rung (its wait timed out, or it found work before
 * sleeping): disarmed, the eventfd left alone. A ringer that saw the bell
 * armed just before may still write: the next sleep then ends at once and
 * drains it, one spurious wake-up. */
static inline void ofcd_doorbell_disarm(struct ofcd_doorbell *d)
{
    atomic_store_explicit(&d->armed, false, memory_order_relaxed);
}

/* Sleeper, awake (rung or not): disarmed, the eventfd drained. */
static inline void ofcd_doorbell_clear(struct ofcd_doorbell *d)
{
    uint64_t v;

    atomic_store_explicit(&d->armed, false, memory_order_relaxed);
    while (read(d->fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
        ;
}

/* Ringer, after it has posted the work. d may be NULL (no sleeper). */
static inline void ofcd_doorbell_ring(struct ofcd_doorbell *d)
{
    uint64_t one = 1;

    if (!d)
        return;
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&d->armed, memory_order_relaxed) &&
        atomic_exchange_explicit(&d->armed, false, memory_order_relaxed))
        (void)!write(d->fd, &one, sizeof(one));
}

#endif
