/*
 * of_worker: the worker role's OpenFlow handling — one instance per worker
 * lcore. It drains its msg_in ring (strict priority, anti-starvation), runs
 * each switch connection's channel state machine (ofp_chan), keeps the
 * switch model (of_switch, by dpid), answers malformed messages with the
 * right OFPT_ERROR, and sends through the owning io lcore's msg_out ring.
 *
 * Held, never dropped: messages that arrive before a channel is established
 * wait on the connection and are handled once it is. A full msg_out parks
 * the message on the worker's backlog, retried every loop.
 */
#ifndef OFCD_OF_WORKER_H
#define OFCD_OF_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include "msgq.h"
#include "qmsg_pool.h"

struct lcore_ctx;
struct of_worker;

struct of_worker_stats {
    uint64_t msgs;                 /* OpenFlow messages handled */
    uint64_t conns_up, conns_down;
    uint64_t switches_established;
    uint64_t switches_replaced;    /* a dpid reconnected over its live connection */
    uint64_t malformed;            /* answered with OFPT_ERROR */
    uint64_t malformed_disconnects;
    uint64_t errors_from_switches;
    uint64_t held;                 /* messages held until established */
    uint64_t port_status;
    uint64_t packet_in;
    uint64_t echo_timeouts, handshake_timeouts;
    uint64_t out_backlogged;       /* msg_out full: parked and retried */
    uint64_t no_buffer;
    uint64_t events;               /* posted to the control thread */
    uint64_t events_lost;          /* no buffer or backlog full (logged) */
    uint64_t polls_sent;           /* statistics requests */
    uint64_t polls_skipped;        /* previous reply still incomplete */
    uint32_t switches_up;          /* now */
    uint32_t switches_known;
    uint32_t conns;                /* connections the worker tracks now */
};

/* Create for a worker lcore: its msg_in ring. Returns NULL (logged). */
struct of_worker *of_worker_create(struct lcore_ctx *lc, unsigned index, struct qmsg_pool *pool);
void of_worker_destroy(struct of_worker *w);

struct msgq *of_worker_msg_in(struct of_worker *w);

/* The msg_out ring of every io lcore, by io index (after they exist), and the
 * events ring to the control thread. */
void of_worker_set_outputs(struct of_worker *w, struct msgq **io_out, unsigned n_io,
                           struct msgq *events);

/* One pass: messages, timers, backlog. Returns whether it did anything. */
bool of_worker_poll(struct of_worker *w, uint64_t now_us, uint64_t now_tsc);

void of_worker_get_stats(const struct of_worker *w, struct of_worker_stats *out);

/* Log every switch the worker knows (SIGUSR2). */
void of_worker_log_switches(const struct of_worker *w);

#endif
