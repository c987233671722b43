/*
 * timer_wheel: the hashed timer wheel of one lcore (see timer_wheel.h). The
 * owner calls tw_wheel_run() every loop iteration and arms and cancels the
 * timers embedded in its objects (TCP connections, OpenFlow channels).
 *
 * Placement: a timer for T lives in the slot of tick T / TICK, or of the
 * current tick when T's tick has already been reached. A slot therefore holds
 * timers of several revolutions; a walk fires only those with expire <= now
 * and leaves the rest, so correctness never depends on which revolution a
 * timer belongs to, only on every slot that may hold a due timer being walked.
 *
 * next_us is a lower bound on the earliest moment anything can be due: the
 * end of the current tick, lowered to the deadline of any timer sitting in
 * the current slot for this tick (off-boundary deadlines, past deadlines,
 * timers deferred to the next run). Cancelling never raises it; a stale bound
 * costs one walk of one slot, which recomputes it.
 *
 * A run walks the ticks after cur_tick up to now's tick, plus cur_tick itself
 * when next_us says its slot still holds something for this tick. After one
 * full revolution every slot has been seen, so a walk never exceeds
 * TW_SLOTS slots whatever the clock did.
 *
 * A walked slot is first detached onto a list on the stack: callbacks may
 * then cancel or re-arm any timer in it (the pprev links follow the timer
 * wherever it is), and the walk simply pops that list until it is empty.
 * Timers armed by callbacks with a deadline already reached go on w->due,
 * drained before the run returns. fired_run stops a timer from firing twice
 * in one run, which bounds a run by the number of armed timers.
 */
#include "timer_wheel.h"

#include <assert.h>
#include <stddef.h>

static_assert((TW_SLOTS & (TW_SLOTS - 1)) == 0, "slots must be a power of two");

#define TW_MASK (TW_SLOTS - 1)

/* First microsecond after tick; UINT64_MAX when that is beyond the clock's
 * range (the last tick then never ends, so it is always revisited). */
static uint64_t tick_end(uint64_t tick)
{
    if (tick >= UINT64_MAX / TW_TICK_US)
        return UINT64_MAX;
    return (tick + 1) * TW_TICK_US;
}

static void link_head(struct tw_timer **head, struct tw_timer *t)
{
    t->next = *head;
    if (t->next)
        t->next->pprev = &t->next;
    t->pprev = head;
    *head = t;
}

static void unlink_timer(struct tw_timer *t)
{
    *t->pprev = t->next;
    if (t->next)
        t->next->pprev = t->pprev;
    t->next = NULL;
    t->pprev = NULL;
}

void tw_wheel_init(struct tw_wheel *w, uint64_t now_us)
{
    for (unsigned i = 0; i < TW_SLOTS; i++)
        w->slots[i] = NULL;
    w->cur_tick = now_us / TW_TICK_US;
    w->next_us = tick_end(w->cur_tick);
    w->armed = 0;
    w->fired = 0;
    w->run_seq = 0;
    w->run_now = 0;
    w->due = NULL;
    w->in_run = false;
}

void tw_timer_init(struct tw_timer *t, tw_timer_fn fn)
{
    t->next = NULL;
    t->pprev = NULL;
    t->expire_us = 0;
    t->fn = fn;
    t->fired_run = 0;
}

void tw_arm(struct tw_wheel *w, struct tw_timer *t, uint64_t expire_us)
{
    if (t->pprev)
        unlink_timer(t);
    else
        w->armed++;
    t->expire_us = expire_us;

    if (w->in_run && expire_us <= w->run_now && t->fired_run != w->run_seq) {
        link_head(&w->due, t);
        return;
    }
    /* Includes a timer deferred to the next run: it lands in the current
     * slot with a reached deadline, and the lowered next_us makes the next
     * run walk that slot whatever its clock value. */
    uint64_t tick = expire_us / TW_TICK_US;
    if (tick < w->cur_tick)
        tick = w->cur_tick;
    link_head(&w->slots[tick & TW_MASK], t);
    if (expire_us < w->next_us)
        w->next_us = expire_us;
}

void tw_cancel(struct tw_wheel *w, struct tw_timer *t)
{
    if (!t->pprev)
        return;
    unlink_timer(t);
    w->armed--;
}

/* Disarms t before calling back: the callback owns it from then on (it may
 * re-arm it or free its owner), so t is not touched afterwards. */
static void fire(struct tw_wheel *w, struct tw_timer *t, uint64_t now_us)
{
    t->fired_run = w->run_seq;
    w->armed--;
    w->fired++;
    t->fn(t, now_us);
}

static unsigned walk_slot(struct tw_wheel *w, struct tw_timer **slot, uint64_t now_us)
{
    struct tw_timer *pending = *slot;
    struct tw_timer *t;
    unsigned n = 0;

    if (!pending)
        return 0;
    *slot = NULL;
    pending->pprev = &pending;

    while ((t = pending) != NULL) {
        unlink_timer(t);
        if (t->expire_us <= now_us && t->fired_run != w->run_seq) {
            fire(w, t, now_us);
            n++;
            continue;
        }
        /* Later revolution, later in this tick, or deferred to the next run:
         * only the latter two can be below the end of the tick. */
        link_head(slot, t);
        if (t->expire_us < w->next_us)
            w->next_us = t->expire_us;
    }
    return n;
}

unsigned tw_wheel_run(struct tw_wheel *w, uint64_t now_us)
{
    if (now_us < w->next_us || w->in_run)
        return 0;

    uint64_t cur_end = tick_end(w->cur_tick);
    uint64_t first = w->cur_tick;
    if (w->next_us >= cur_end && cur_end != UINT64_MAX)
        first++;        /* nothing left for the current tick in its slot */
    uint64_t last = now_us / TW_TICK_US;
    if (last < w->cur_tick)
        last = w->cur_tick;     /* clock went backwards: keep the wheel's time */

    w->cur_tick = last;
    w->next_us = tick_end(last);
    if (w->armed == 0)
        return 0;

    uint64_t span = last >= first ? last - first + 1 : 0;
    unsigned nslots = span > TW_SLOTS ? TW_SLOTS : (unsigned)span;
    unsigned n = 0;

    w->in_run = true;
    w->run_now = now_us;
    w->run_seq++;
    for (unsigned i = 0; i < nslots; i++)
        n += walk_slot(w, &w->slots[(first + i) & TW_MASK], now_us);
    while (w->due) {
        struct tw_timer *t = w->due;
        unlink_timer(t);
        fire(w, t, now_us);
        n++;
    }
    w->in_run = false;
    return n;
}
