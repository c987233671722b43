/*
 * emu_loop.h - the emulator's single event loop: one epoll set, a binary min-heap of
 * timers and a monotonic clock in nanoseconds.
 *
 * Everything runs on one thread: emu_loop_run_once() fires the timers that are due,
 * waits in epoll_wait() until the next timer, and hands each ready fd's tag and event
 * mask to the callback given at init.  Timers are embedded in their owners (struct
 * emu_timer inside a switch), so arming one never allocates after the heap has grown
 * to the number of timers in use.
 */
#ifndef EMU_LOOP_H
#define EMU_LOOP_H

#include <stdbool.h>
#include <stdint.h>

struct emu_timer;
typedef void (*emu_timer_fn)(struct emu_timer *t, uint64_t now_ns);

struct emu_timer {
    uint64_t due_ns;
    uint32_t heap_idx;     /* position + 1 in the heap, 0 when not armed */
    emu_timer_fn fn;
};

typedef void (*emu_loop_io_fn)(void *arg, uint64_t tag, uint32_t events);
/* Called once per iteration after timers and I/O (the emulator flushes tx there). */
typedef void (*emu_loop_idle_fn)(void *arg);

struct emu_loop {
    int epfd;
    uint64_t now_ns;
    struct emu_timer **heap;
    uint32_t n;
    uint32_t cap;
    emu_loop_io_fn io;
    emu_loop_idle_fn idle;
    void *arg;
};

uint64_t emu_now_ns(void);

/* Returns 0 or a negative errno. */
int emu_loop_init(struct emu_loop *l, emu_loop_io_fn io, emu_loop_idle_fn idle, void *arg);
void emu_loop_fini(struct emu_loop *l);

/* epoll registration keyed by an opaque 64-bit tag. Return 0 or -errno. */
int emu_loop_add(struct emu_loop *l, int fd, uint32_t events, uint64_t tag);
int emu_loop_mod(struct emu_loop *l, int fd, uint32_t events, uint64_t tag);
void emu_loop_del(struct emu_loop *l, int fd);

void emu_timer_init(struct emu_timer *t, emu_timer_fn fn);
/* (Re)arms t at absolute time due_ns. Returns 0 or -ENOMEM. */
int emu_timer_arm(struct emu_loop *l, struct emu_timer *t, uint64_t due_ns);
void emu_timer_cancel(struct emu_loop *l, struct emu_timer *t);
static inline bool emu_timer_armed(const struct emu_timer *t)
{
    return t->heap_idx != 0;
}

/* One iteration; waits at most max_wait_ms. Returns 0 or -errno from epoll_wait. */
int emu_loop_run_once(struct emu_loop *l, int max_wait_ms);

#endif /* EMU_LOOP_H */
