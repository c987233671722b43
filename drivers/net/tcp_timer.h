/*
 * tcp_timer: the per-io-lcore timer wheel that drives every TCP timer
 * (retransmit/persist, delayed ACK, keepalive, TIME_WAIT, SYN_RECEIVED).
 *
 * A hashed timing wheel: TCP_TIMER_SLOTS slots of TCP_TIMER_TICK_US each.
 * A timer is an intrusive node embedded in its owner (the connection), so
 * arming, re-arming and cancelling never allocate and cost O(1); a timer
 * further away than one revolution waits in its slot for later rounds.
 * Time is passed in (microseconds) — the lcore gives its TSC clock, tests a
 * fake one. Single-threaded: each io lcore owns its wheel.
 *
 * Call order: tcp_timer_wheel_init → tcp_timer_init for each embedded timer →
 * tcp_timer_arm / tcp_timer_cancel at will → tcp_timer_wheel_run(now) once
 * per loop iteration (cheap when nothing is due: one comparison until a tick
 * boundary passes or a deadline inside the current tick is reached; then it
 * walks the slots the clock has passed, at most TCP_TIMER_SLOTS of them
 * however far the clock jumped).
 *
 * Deadlines are exact, not rounded: a timer armed for T fires on the first
 * run whose now_us >= T, never earlier, whether or not T is on a tick
 * boundary. The tick only decides which slot holds the timer.
 *
 * The owner must cancel its timers before freeing the memory they live in.
 * The fields below are private to tcp_timer.c; read them only through the
 * functions (armed/fired counters may be read directly for stats).
 */
#ifndef OFCD_TCP_TIMER_H
#define OFCD_TCP_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#define TCP_TIMER_TICK_US 1000u     /* 1 ms resolution: finer than any TCP timer needs */
#define TCP_TIMER_SLOTS 4096u       /* one revolution = 4.096 s; must be a power of two */

struct tcp_timer;
typedef void (*tcp_timer_fn)(struct tcp_timer *t, uint64_t now_us);

struct tcp_timer {
    struct tcp_timer *next;         /* slot list links; NULL/unlinked when idle */
    struct tcp_timer **pprev;
    uint64_t expire_us;             /* absolute deadline */
    tcp_timer_fn fn;
    uint64_t fired_run;             /* wheel run that last fired it (0: never) */
};

struct tcp_timer_wheel {
    struct tcp_timer *slots[TCP_TIMER_SLOTS];
    uint64_t cur_tick;              /* tick of the latest clock value processed */
    uint64_t next_us;               /* run does nothing while now_us < next_us */
    uint64_t armed;                 /* timers currently armed */
    uint64_t fired;                 /* total callbacks run */
    uint64_t run_seq;               /* number of runs that walked slots */
    uint64_t run_now;               /* now_us of the run in progress */
    struct tcp_timer *due;          /* armed by callbacks already due: fire this run */
    bool in_run;
};

/* Start the wheel at now_us. */
void tcp_timer_wheel_init(struct tcp_timer_wheel *w, uint64_t now_us);

/* Prepare an embedded timer with its callback (non-NULL; container_of inside
 * fn recovers the owner). A timer belongs to one wheel at a time. */
void tcp_timer_init(struct tcp_timer *t, tcp_timer_fn fn);

/*
 * Arm (or re-arm: an armed timer is moved) to fire at expire_us. A deadline
 * not after the latest now_us seen fires on the next tcp_timer_wheel_run.
 * Called from a callback with expire_us <= that run's now_us, the timer fires
 * in the same run — unless it has already fired in this run (e.g. it re-arms
 * itself in the past), then on the next run: each timer fires at most once
 * per run, so a run always ends.
 */
void tcp_timer_arm(struct tcp_timer_wheel *w, struct tcp_timer *t, uint64_t expire_us);

/* Disarm; harmless when not armed. A timer cancelled by a callback does not
 * fire, even if it was due in the same run. */
void tcp_timer_cancel(struct tcp_timer_wheel *w, struct tcp_timer *t);

static inline bool tcp_timer_armed(const struct tcp_timer *t)
{
    return t->pprev != 0;
}

/*
 * Fire every timer whose deadline is <= now_us, each exactly once per
 * arming. The timer is disarmed before its callback runs, which may then
 * arm, re-arm or cancel any timer, including itself and timers due in the
 * same run (see tcp_timer_arm). Order: slots in tick order (timers of
 * different ticks fire in deadline order while the clock moved less than a
 * revolution); within one tick, and for timers armed due by callbacks, no
 * particular order. now_us should not go backwards; if it does, only
 * deadlines <= now_us fire. A call from inside a callback does nothing.
 * Returns the number fired.
 */
unsigned tcp_timer_wheel_run(struct tcp_timer_wheel *w, uint64_t now_us);

#endif
