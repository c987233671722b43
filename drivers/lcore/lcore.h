/*
 * lcore: the poll loop every EAL lcore with a role runs, and what one lcore
 * owns — for an io lcore its port queue, ARP cache, net layer and TCP stack;
 * for every lcore the tasks the app gave it (the OpenFlow worker and io
 * sides, test services) and the published copy of its counters.
 *
 * Loop order, written once: rx → timers → tasks → tx → idle backoff.
 *   rx      io: burst from the owned queue, each frame through net_rx();
 *           replies are rewritten in place and batched, TCP gets the rest.
 *   timers  io: the TCP stack's wheel; every LCORE_TICK_US: ARP expiry,
 *           the counter snapshot, the SIGUSR2 connection dump, conn/show's
 *           text (lcore_conns_ask).
 *   tasks   each task's poll, in the order they were added (the app adds the
 *           OpenFlow worker before the io side, so a reply made in an
 *           iteration leaves in it).
 *   tx      io: TCP output owed, then the batch; refused frames are freed and
 *           counted.
 *   idle    after cfg.idle_polls empty iterations, sleep cfg.idle_sleep_us
 *           per further empty one (0 = never sleep), so a small machine
 *           keeps its other cores' work; idle for LCORE_IDLE_SHORT_US with
 *           an idle_wait_us, arm the doorbell, look once more, then sleep
 *           until it rings or idle_wait_us pass, so an idle lcore does not
 *           wake for nothing.
 *
 * The lcore knows nothing of OpenFlow: tasks are function pointers, their
 * counters registry groups (ofcd_counters.h). Everything is set up before the
 * lcore is launched; afterwards only the lcore touches its context, and other
 * threads read the published counters (lcore_read_counters) and the stop and
 * dump words they own.
 */
#ifndef OFCD_LCORE_H
#define OFCD_LCORE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ofcd_counters.h"
#include "tcp.h"

#define LCORE_TICK_US 100000ULL      /* counter snapshot, ARP expiry, dump check */
#define LCORE_LOG_LINES 1024         /* log lines waiting for the control thread */
#define LCORE_MAX_BURST 512
#define LCORE_TXQ_MAX 512            /* frames batched before a tx burst */
#define LCORE_MAX_TASKS 8
#define LCORE_CONNS_TEXT_MAX ((size_t)4 << 20)  /* conn/show's text per lcore */
/* How long an idle lcore whose every input rings its doorbell sleeps at
 * most (struct lcore_cfg.idle_wait_us): its timers' grain (TCP's are tens of
 * milliseconds and more). */
#define LCORE_IDLE_WAIT_US 1000u
/* Idle this long (in timed sleeps of idle_sleep_us), an lcore with an
 * idle_wait_us goes to sleep on its doorbell. */
#define LCORE_IDLE_SHORT_US 1000u

/* What one lcore's loop did. */
#define LCORE_COUNTERS(X)                                                                 \
    X(loops, "poll loop iterations")                                                      \
    X(rx_packets, "frames received from the port queue")                                  \
    X(rx_unusable, "chained frames that could not be linearised (dropped)")               \
    X(tx_packets, "frames the port took")                                                 \
    X(tx_dropped, "frames the port refused: freed")                                       \
    X(tx_alloc_failed, "no mbuf for a frame ofcd wanted to send")                         \
    X(idle_sleeps, "idle back-off sleeps")                                                \
    X(idle_rung, "idle sleeps its doorbell ended (a message posted, a frame arrived)")
#define LCORE_GAUGES(X) X(tcp_chunks_free, "TCP payload chunks free in this lcore's pool")

struct lcore_stats {
    LCORE_COUNTERS(OFCD_COUNTER_FIELD)
    LCORE_GAUGES(OFCD_COUNTER_FIELD)
};

extern const struct ofcd_counter_group lcore_counters;       /* "lcore" */

struct port;
struct rte_mempool;
struct lcore_ctx;

/* One lcore's knobs (from [lcores], [net], [port], [tcp] in the config). */
struct lcore_cfg {
    unsigned lcore_id;
    bool io;                         /* owns a port queue, the net layer and TCP */
    uint16_t queue;                  /* io: the port queue */
    uint16_t burst;
    uint32_t idle_sleep_us;          /* 0 = pure busy-poll */
    uint32_t idle_polls;
    /* Idle for LCORE_IDLE_SHORT_US, each sleep lasts until the lcore's
     * doorbell rings (lcore_bell) or this many µs pass; 0 = never: timed
     * sleeps of idle_sleep_us only. Only for an lcore everything it serves
     * rings: its rings (msgq_set_bell) and, for io, its port's receive. */
    uint32_t idle_wait_us;
    /* io: asleep on its doorbell, take the real-time signals (the tap's
     * receive signal) itself rather than through ofcd-rxsig. Only for a
     * sole io lcore: the kernel gives the signal to any thread that takes
     * it, and one lcore cannot tell another that the frame was for it. */
    bool sleep_takes_rx_signal;
    /* io role */
    uint8_t mac[6];
    uint32_t ip;                     /* host order */
    uint8_t prefix_len;
    uint32_t arp_cache_size;
    uint32_t arp_timeout_s;
    bool gratuitous_arp;             /* announce ourselves at start (queue 0 only) */
    struct tcp_config tcp;
    uint32_t tcp_chunks;             /* payload chunk pool size */
};

/* What the lcore shares with the rest of the appliance. */
struct lcore_env {
    struct port *port;
    struct rte_mempool *pool;        /* mbufs for frames ofcd originates */
    const atomic_bool *stop;         /* the loop ends once set */
    const atomic_uint *dump;         /* bumped on SIGUSR2: log connections */
};

/* Work the lcore runs besides its own io (every member but arg may be NULL). */
struct lcore_task {
    const char *name;
    /* Each iteration: returns whether it did anything (for the back-off). */
    bool (*poll)(void *arg, uint64_t now_us, uint64_t now_tsc);
    /* On SIGUSR2, on the lcore: log what the task holds. */
    void (*dump)(void *arg);
    /* Visit the task's live counter sets (labels may be ""). Called on the
     * lcore at every tick and once when the task is added, which fixes the
     * sets: the same groups, in the same order, every time. */
    void (*counters)(void *arg, ofcd_counter_fn fn, void *fn_arg);
    void *arg;
};

/* NULL (logged) on failure. Creates the ARP cache, net layer, chunk pool and
 * TCP stack of an io lcore. */
struct lcore_ctx *lcore_create(const struct lcore_cfg *cfg, const struct lcore_env *env);
void lcore_destroy(struct lcore_ctx *lc);

/* Before launch. 0, -ENOSPC (LCORE_MAX_TASKS), -ENOMEM. */
int lcore_add_task(struct lcore_ctx *lc, const struct lcore_task *task);

/* Its doorbell: rung by whoever posts it work (msgq_set_bell, the tap's
 * receive signal), it ends an idle sleep at once. */
struct ofcd_doorbell *lcore_bell(struct lcore_ctx *lc);

unsigned lcore_id(const struct lcore_ctx *lc);
bool lcore_is_io(const struct lcore_ctx *lc);
/* io: the TCP stack, for listeners and connectors (before launch or on the
 * lcore). NULL otherwise. */
struct tcp_stack *lcore_tcp(struct lcore_ctx *lc);
/* The lcore clock (TSC in microseconds), any thread. */
uint64_t lcore_clock_us(void);

/* rte_eal_remote_launch() entry: runs until *env.stop. arg is the lcore_ctx. */
int lcore_main(void *arg);

/* Any thread: the counters as last published (every LCORE_TICK_US), each
 * set with labels lcore="N"[,task labels]. */
void lcore_read_counters(struct lcore_ctx *lc, ofcd_counter_fn fn, void *arg);
/* Any thread: loop iterations as last published (liveness). */
uint64_t lcore_published_loops(struct lcore_ctx *lc);

/* The control thread (one asker): ask an io lcore for its TCP connections
 * as text, one line each as SIGUSR2 logs them, written on the lcore at its
 * next tick (the connections are its own: nothing else may read them). 0,
 * -EBUSY (the last ask is not answered yet), -ENOMEM, -ENOTSUP (no io
 * role). The text, LCORE_CONNS_TEXT_MAX at most (*cut: more did not fit):
 * NULL until it is written; the asker's to read until its next ask. */
int lcore_conns_ask(struct lcore_ctx *lc);
const char *lcore_conns_text(struct lcore_ctx *lc, size_t *len, bool *cut);

/* The lcore's log lines to out (it logs into a ring so its loop never waits
 * on stderr): one thread drains, the control thread while it runs; what is
 * left goes out at lcore_destroy. Returns the lines written. */
unsigned lcore_drain_log(struct lcore_ctx *lc, FILE *out);

#endif
