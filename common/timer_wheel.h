/*
 * timer_wheel (tw_): a hashed timer wheel for one thread — each io lcore's
 * drives every TCP timer (retransmit/persist, delayed ACK, keepalive,
 * TIME_WAIT, SYN_RECEIVED), each worker's drives its channels' timers.
 *
 * A hashed timing wheel: TW_SLOTS slots of TW_TICK_US each.
 * A timer is an intrusive node embedded in its owner (the connection), so
 * arming, re-arming and cancelling never allocate and cost O(1); a timer
 * further away than one revolution waits in its slot for later rounds.
 * Time is passed in (microseconds) — the lcore gives its TSC clock, tests a
 * fake one. Single-threaded: each wheel belongs to one lcore.
 *
 * Call order: tw_wheel_init → tw_timer_init for each embedded timer →
 * tw_arm / tw_cancel at will → tw_wheel_run(now) once
 * per loop iteration (cheap when nothing is due: one comparison until a tick
 * boundary passes or a deadline inside the current tick is reached; then it
 * walks the slots the clock has passed, at most TW_SLOTS of them
 * however far the clock jumped).
 *
 * Deadlines are exact, not rounded: a timer armed for T fires on the first
 * run whose now_us >= T, never earlier, whether or not T is on a tick
 * boundary. The tick only decides which slot holds the timer.
 *
 * The owner must cancel its timers before freeing the memory they live in.
 * The fields below are private to timer_wheel.c; read them only through the
 * functions (armed/fired counters may be read directly for stats).
 */
#ifndef OFCD_TIMER_WHEEL_H
#define OFCD_TIMER_WHEEL_H

#include <stdbool.h>
#include <stdint.h>

#define TW_TICK_US 1000u     /* 1 ms resolution: finer than any TCP timer needs */
#define TW_SLOTS 4096u       /* one revolution = 4.096 s; must be a power of two */

struct tw_timer;
typedef void (*tw_timer_fn)(struct tw_timer *t, uint64_t now_us);

struct tw_timer {
    struct tw_timer *next;         /* slot list links; NULL/unlinked when idle */
    struct tw_timer **pprev;
    uint64_t expire_us;             /* absolute deadline */
    tw_timer_fn fn;
    uint64_t fired_run;             /* wheel run that last fired it (0: never) */
};

struct tw_wheel {
    struct tw_timer *slots[TW_SLOTS];
    uint64_t cur_tick;              /* tick of the latest clock value processed */
    uint64_t next_us;               /* run does nothing while now_us < next_us */
    uint64_t armed;                 /* timers currently armed */
    uint64_t fired;                 /* total callbacks run */
    uint64_t run_seq;               /* number of runs that walked slots */
    uint64_t run_now;               /* now_us of the run in progress */
    struct tw_timer *due;          /* armed by callbacks already due: fire this run */
    bool in_run;
};

/* Start the wheel at now_us. */
void tw_wheel_init(struct tw_wheel *w, uint64_t now_us);

/* Prepare an embedded timer with its callback (non-NULL; container_of inside
 * fn recovers the owner). A timer belongs to one wheel at a time. */
void tw_timer_init(struct tw_timer *t, tw_timer_fn fn);

/*
 * Arm (or re-arm: an armed timer is moved) to fire at expire_us. A deadline
 * not after the latest now_us seen fires on the next tw_wheel_run.
 * Called from a callback with expire_us <= that run's now_us, the timer fires
 * in the same run — unless it has already fired in this run (e.g. it re-arms
 * itself in the past), then on the next run: each timer fires at most once
 * per run, so a run always ends.
 */
void tw_arm(struct tw_wheel *w, struct tw_timer *t, uint64_t expire_us);

/* Disarm; harmless when not armed. A timer cancelled by a callback does not
 * fire, even if it was due in the same run. */
void tw_cancel(struct tw_wheel *w, struct tw_timer *t);

static inline bool tw_armed(const struct tw_timer *t)
{
    return t->pprev != 0;
}

/*
 * Fire every timer whose deadline is <= now_us, each exactly once per
 * arming. The timer is disarmed before its callback runs, which may then
 * arm, re-arm or cancel any timer, including itself and timers due in the
 * same run (see tw_arm). Order: slots in tick order (timers of
 * different ticks fire in deadline order while the clock moved less than a
 * revolution); within one tick, and for timers armed due by callbacks, no
 * particular order. now_us should not go backwards; if it does, only
 * deadlines <= now_us fire. A call from inside a callback does nothing.
 * Returns the number fired.
 */
unsigned tw_wheel_run(struct tw_wheel *w, uint64_t now_us);

#endif
