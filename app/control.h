/*
 * control: the control thread — a plain pthread, never an EAL lcore, that
 * owns everything that is not packet work: signals (SIGINT/SIGTERM stop,
 * SIGUSR1 logs counters now, SIGUSR2 asks the lcores to log every TCP
 * connection and switch), the periodic counter log, link-state watching,
 * the workers' events (into the flow manager, then the switch view the REST
 * threads read), the flow manager's tick (pacing, consistency checks) and
 * ofcdctl's socket (ctl_cmds.h: its fds in the same poll, the commands run
 * here, never on an lcore).
 *
 * Signals are blocked in every thread (main blocks them before EAL creates
 * any) and taken here with sigtimedwait() at each wake-up (within
 * CONTROL_WAKE_MS), so no async signal handler and no global flag exist.
 */
#ifndef OFCD_CONTROL_H
#define OFCD_CONTROL_H

#include <signal.h>

#include "app.h"

/* The timer's period (the flow manager's pacing, link timeouts, ...).
 * Events from the workers do not wait for it: the workers ring the
 * control thread's doorbell (ofcd_doorbell.h), which wakes it at most once
 * per CONTROL_BELL_MIN_MS, so an event waits at most that long. */
#define CONTROL_WAKE_MS 10
#define CONTROL_BELL_MIN_MS 1
/* SIGINT/SIGTERM: the apps' on_stop get this long to hand over (a
 * cluster node its switches, each confirmed by the switch) while the
 * channels stay up, asked again every CONTROL_STOP_POLL_MS; a second
 * signal stops at once. */
#define CONTROL_STOP_WAIT_MS 2000
#define CONTROL_STOP_POLL_MS 5

/* The set of signals the control thread takes; main blocks it first. */
void control_signal_set(sigset_t *set);

/* Start the thread with the CPU affinity given (the process's original one,
 * not the main lcore's pinning). Returns 0 or a negative errno. */
int control_start(struct app_ctx *app, const cpu_set_t *cpus);

/* Ask it to stop (if not already) and join it. */
void control_stop(struct app_ctx *app);

/* Log every counter once: port, per lcore, net, ARP (also at shutdown). */
void control_log_stats(struct app_ctx *app);

#endif
