/*
 * emu_loop.c - epoll and the timer heap (see emu_loop.h).
 */
#include "emu_loop.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#define EMU_LOOP_EVENTS 512

uint64_t emu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int emu_loop_init(struct emu_loop *l, emu_loop_io_fn io, emu_loop_idle_fn idle, void *arg)
{
    l->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (l->epfd < 0)
        return -errno;
    l->now_ns = emu_now_ns();
    l->heap = NULL;
    l->n = 0;
    l->cap = 0;
    l->io = io;
    l->idle = idle;
    l->arg = arg;
    return 0;
}

void emu_loop_fini(struct emu_loop *l)
{
    if (l->epfd >= 0)
        close(l->epfd);
    l->epfd = -1;
    free(l->heap);
    l->heap = NULL;
    l->n = l->cap = 0;
}

int emu_loop_add(struct emu_loop *l, int fd, uint32_t events, uint64_t tag)
{
    struct epoll_event ev = {.events = events, .data.u64 = tag};
    return epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

int emu_loop_mod(struct emu_loop *l, int fd, uint32_t events, uint64_t tag)
{
    struct epoll_event ev = {.events = events, .data.u64 = tag};
    return epoll_ctl(l->epfd, EPOLL_CTL_MOD, fd, &ev) ? -errno : 0;
}

void emu_loop_del(struct emu_loop *l, int fd)
{
    (void)epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
}

/* ---- timer heap ------------------------------------------------------------------- */

void emu_timer_init(struct emu_timer *t, emu_timer_fn fn)
{
    t->due_ns = 0;
    t->heap_idx = 0;
    t->fn = fn;
}

static void heap_set(struct emu_loop *l, uint32_t i, struct emu_timer *t)
{
    l->heap[i] = t;
    t->heap_idx = i + 1;
}

static void sift_up(struct emu_loop *l, uint32_t i)
{
    struct emu_timer *t = l->heap[i];
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (l->heap[p]->due_ns <= t->due_ns)
            break;
        heap_set(l, i, l->heap[p]);
        i = p;
    }
    heap_set(l, i, t);
}

static void sift_down(struct emu_loop *l, uint32_t i)
{
    struct emu_timer *t = l->heap[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= l->n)
            break;
        if (c + 1 < l->n && l->heap[c + 1]->due_ns < l->heap[c]->due_ns)
            c++;
        if (l->heap[c]->due_ns >= t->due_ns)
            break;
        heap_set(l, i, l->heap[c]);
        i = c;
    }
    heap_set(l, i, t);
}

void emu_timer_cancel(struct emu_loop *l, struct emu_timer *t)
{
    if (!t->heap_idx)
        return;
    uint32_t i = t->heap_idx - 1;
    t->heap_idx = 0;
    l->n--;
    if (i == l->n)
        return;
    struct emu_timer *m = l->heap[l->n];
    heap_set(l, i, m);
    if (i > 0 && m->due_ns < l->heap[(i - 1) / 2]->due_ns)
        sift_up(l, i);
    else
        sift_down(l, i);
}

int emu_timer_arm(struct emu_loop *l, struct emu_timer *t, uint64_t due_ns)
{
    if (t->heap_idx) {
        uint32_t i = t->heap_idx - 1;
        uint64_t old = t->due_ns;
        t->due_ns = due_ns;
        if (due_ns < old)
            sift_up(l, i);
        else
            sift_down(l, i);
        return 0;
    }
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 1024;
        struct emu_timer **h = realloc(l->heap, cap * sizeof(*h));
        if (!h)
            return -ENOMEM;
        l->heap = h;
        l->cap = cap;
    }
    t->due_ns = due_ns;
    heap_set(l, l->n++, t);
    sift_up(l, l->n - 1);
    return 0;
}

/* ---- iteration --------------------------------------------------------------------- */

static void run_timers(struct emu_loop *l)
{
    l->now_ns = emu_now_ns();
    /* Bounded per pass so a timer that re-arms itself at `now` cannot starve I/O. */
    for (uint32_t budget = l->n + 1; l->n && budget; budget--) {
        struct emu_timer *t = l->heap[0];
        if (t->due_ns > l->now_ns)
            break;
        emu_timer_cancel(l, t);
        t->fn(t, l->now_ns);
    }
}

int emu_loop_run_once(struct emu_loop *l, int max_wait_ms)
{
    struct epoll_event ev[EMU_LOOP_EVENTS];
    run_timers(l);
    int wait_ms = max_wait_ms;
    if (l->n) {
        uint64_t now = emu_now_ns();
        uint64_t due = l->heap[0]->due_ns;
        /* Round up so we do not wake just before the timer and spin. */
        uint64_t ms = due > now ? (due - now + 999999) / 1000000 : 0;
        if (ms < (uint64_t)wait_ms)
            wait_ms = (int)ms;
    }
    if (l->idle)
        l->idle(l->arg);
    int n = epoll_wait(l->epfd, ev, EMU_LOOP_EVENTS, wait_ms);
    if (n < 0)
        return errno == EINTR ? 0 : -errno;
    l->now_ns = emu_now_ns();
    for (int i = 0; i < n; i++)
        l->io(l->arg, ev[i].data.u64, ev[i].events);
    if (l->idle)
        l->idle(l->arg);
    return 0;
}
