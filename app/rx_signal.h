/*
 * rx_signal: where the tap PMD's receive signals are taken. DPDK's tap
 * driver asks the kernel for a real-time signal per received frame (its
 * "rx trigger": the handler bumps a counter its rx burst checks before a
 * read). The kernel gives a process's signal to its main thread, which in
 * ofcd is the main lcore: a packet_in flood cost the poll loop 53,000
 * signal deliveries a second (a signal frame saved and restored each),
 * about a fifth of its time. So every ofcd thread blocks the real-time
 * signals from before EAL starts (its threads inherit the mask), and one
 * thread of its own, "ofcd-rxsig", takes them: it waits with them unblocked
 * (ppoll, 100 ms at a time, so it sees the stop) and does nothing else. The
 * handler only bumps the counter, which every thread sees; an idle lcore
 * now notices a frame at its next wake-up (lcores.idle_sleep_us) instead of
 * being interrupted.
 */
#ifndef OFCD_RX_SIGNAL_H
#define OFCD_RX_SIGNAL_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

struct rx_signal {
    pthread_t thread;
    bool started;
    atomic_bool stop;
};

/* Add the real-time signals (SIGRTMIN..SIGRTMAX) to set: the caller blocks
 * it in the main thread before EAL creates its threads. */
void rx_signal_block_set(sigset_t *set);

/* Start the thread that takes them, on cpus (the CPUs ofcd was given, not
 * an lcore's), after EAL installed the tap's handler: a real-time signal
 * taken before that would end the process. 0 or a negative errno. */
int rx_signal_start(struct rx_signal *rs, const cpu_set_t *cpus);
void rx_signal_stop(struct rx_signal *rs);

#endif
