/*
 * ofcd_clock: the one clock every thread outside the poll loop reads.
 *
 * Two kinds of time, never mixed:
 *  - monotonic (ofcd_clock_mono_us/_ms/_ns): durations, deadlines, rate
 *    limits, timeouts. Never steps back; its epoch is arbitrary, so it is
 *    compared only with itself. The poll-mode lcores read the same time
 *    through lcore_clock_us() (drivers/lcore), which counts TSC cycles for
 *    speed and adds the same warp.
 *  - wall (ofcd_clock_wall_s/_ns): what is shown or stored for a person
 *    (a flow's creation time, a link's "since", a token's iat/exp). It may
 *    step when the host's time is set.
 *
 * Warp (tests): ofcd_clock_warp_us(delta) moves both clocks forward by
 * delta for every reader in the process, as if that much time had passed
 * at once, so a test can expire a 60 s lockout or a 3600 s retention
 * without waiting (ofcdctl time/warp, in builds with test services). The
 * offset is the one process-wide mutable state here, on purpose: a clock
 * that two threads read differently would be two clocks. It only grows.
 *
 * Not clocks: the rings' enqueue stamps (drivers/msg/msgq.c) are TSC
 * cycles compared only with each other, for the anti-starvation age.
 *
 * Condition-variable deadlines are a different thing: pthread waits run on
 * the kernel's unwarped CLOCK_MONOTONIC, so ofcd_clock_deadline() gives an
 * absolute timespec on that clock (warping never shortens a real wait).
 */
#ifndef OFCD_CLOCK_H
#define OFCD_CLOCK_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

uint64_t ofcd_clock_mono_ns(void);
uint64_t ofcd_clock_mono_us(void);
uint64_t ofcd_clock_mono_ms(void);

uint64_t ofcd_clock_wall_ns(void);
int64_t ofcd_clock_wall_s(void);

/* How far the clocks have been warped, in µs (0 unless a test warped). */
uint64_t ofcd_clock_warp_offset_us(void);

/* Move both clocks forward by delta_us. 0, or -EINVAL if the offset would
 * pass a day in total (a typo in a test, not a time it needs). */
int ofcd_clock_warp_us(uint64_t delta_us);

/* now + after_us on the kernel's CLOCK_MONOTONIC, for pthread_cond_timedwait
 * with a condition variable whose clock attribute is CLOCK_MONOTONIC. */
struct timespec ofcd_clock_deadline(uint64_t after_us);
/* A condition variable with that clock attribute, so its timed waits take
 * ofcd_clock_deadline()'s timespecs. 0 or a negative errno. */
int ofcd_clock_cond_init(pthread_cond_t *cv);
/* t + us, normalised: a deadline after another one on the same clock. */
struct timespec ofcd_clock_ts_plus_us(struct timespec t, uint64_t us);

/* ofcdctl's time/warp (ofcd_clock_ctl.c), for test builds to register. 0 or
 * ofcd_ctl_register's error. */
struct ofcd_ctl;
int ofcd_clock_ctl_register(struct ofcd_ctl *c);

#endif
