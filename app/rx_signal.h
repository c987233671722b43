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
 * handler only bumps the counter, which every thread sees; then this thread
 * rings the io lcores' doorbells (rx_signal_add_bell), so an idle lcore
 * asleep on its bell wakes for the frame instead of being interrupted.
 */
#ifndef OFCD_RX_SIGNAL_H
#define OFCD_RX_SIGNAL_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "ofcd_doorbell.h"

#define RX_SIGNAL_MAX_BELLS 128

struct rx_signal {
    pthread_t thread;
    bool started;
    atomic_bool stop;
    struct ofcd_doorbell *bells[RX_SIGNAL_MAX_BELLS];
    atomic_uint n_bells;            /* published after its bell */
};

/* Add the real-time signals (SIGRTMIN..SIGRTMAX) to set: the caller blocks
 * it in the main thread before EAL creates its threads. */
void rx_signal_block_set(sigset_t *set);

/* Start the thread that takes them, on cpus (the CPUs ofcd was given, not
 * an lcore's), after EAL installed the tap's handler: a real-time signal
 * taken before that would end the process. 0 or a negative errno. */
int rx_signal_start(struct rx_signal *rs, const cpu_set_t *cpus);
void rx_signal_stop(struct rx_signal *rs);

/* Ring bell after every receive signal from now on (an io lcore's, on a
 * tap). 0, or -ENOSPC past RX_SIGNAL_MAX_BELLS. */
int rx_signal_add_bell(struct rx_signal *rs, struct ofcd_doorbell *bell);

#endif
