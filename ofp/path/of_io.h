/*
 * of_io: the OpenFlow side of an io lcore — the listeners on openflow.port
 * (and extra_port), one of_conn per switch connection, framing of the byte
 * stream into messages, ECHO_REQUEST answered on the spot (never queued),
 * everything else into a worker's msg_in ring by priority class, and
 * msg_out drained into the TCP connections.
 *
 * Backpressure, never loss:
 *   - msg_in class full → the connection stops being read (its bytes stay in
 *     TCP, the window closes) and is retried every loop until there is room;
 *   - each connection's share of the buffers (openflow.conn_buffers and
 *     conn_buffer_kb, qmsg_quota.h: its messages to the worker, those held,
 *     its echo replies, what is sent to it, events about it; and apart,
 *     conn_control_buffers of the control plane's pools) full → the same:
 *     not read until buffers come back, so one peer cannot take the others';
 *     and likewise for the shares it is part of: all connections from its
 *     source address (openflow.ip_buffers, ip_buffer_kb, ip_control_buffers)
 *     and, until it is ESTABLISHED, all pending connections of the io lcore
 *     (openflow.pending_buffers); a pending connection's own share is small
 *     (openflow.pending_conn_buffers, one large buffer at most);
 *   - a switch that does not read → its unsent messages wait on the
 *     connection, in order, up to openflow.out_backlog_kb; beyond that the
 *     switch is disconnected and logged (it is not draining).
 * Admission (of_addr.h): every connection gets its HELLO while fewer than
 * max_pending are short of ESTABLISHED on the io lcore, from however few
 * addresses; at the bound, the oldest pending connection of the address
 * holding the most pending slots is closed for the newcomer (counted,
 * rate-limited log). Pending connections cost their share, not a slot
 * refused by count. The worker says when a connection is established
 * (QMSG_ESTABLISHED).
 *
 * TLS (tls_port): each connection is an of_stream over TLS; the worker is
 * told it is up only once the handshake is done (the certificate's SHA-256
 * in the event), so a switch that cannot show a certificate chaining to the
 * CA never reaches the OpenFlow handshake. Handshakes are admitted as every
 * pending connection is (max_pending, the shares above), expire after
 * tls_handshake_timeout_ms (oldest first, O(1) per loop), and each failure
 * is counted and logged with the peer and OpenSSL's reason (rate-limited).
 *
 * Flight record (of_flight.h, openflow.recorder_kb): every connection slot
 * keeps the last messages each way as they were framed or queued to the
 * switch, echoes answered here included. A slot's record outlives its
 * connection until the slot is taken again, and free slots are taken
 * oldest first, so a switch that went away leaves its last words behind
 * for as long as the table allows (of_io_flight_copy).
 *
 * Connection events (up, down) come from the events pool: both buffers are
 * taken when the connection is accepted (when the pool cannot give them the
 * connection is refused, counted and logged), so a connection's end always
 * reaches its worker. One that does not fit the ring waits on the io side
 * and is retried in order. Messages are framed with room for the event
 * header in front, so the worker can forward one in its own buffer.
 */
#ifndef OFCD_OF_IO_H
#define OFCD_OF_IO_H

#include <stdbool.h>
#include <stdint.h>

#include "msgq.h"
#include "ofcd_counters.h"
#include "qmsg.h"
#include "qmsg_pool.h"
#include "tcp.h"
#include "tls.h"

#define OF_IO_COUNTERS(X)                                                                 \
    X(conns_accepted, "switch connections accepted")                                      \
    X(conns_closed, "switch connections closed")                                          \
    X(msgs_in, "messages framed and queued to a worker")                                  \
    X(msgs_out, "messages handed to TCP")                                                 \
    X(echo_inline, "ECHO_REQUESTs answered on the io lcore")                              \
    X(in_blocked, "times a connection paused on a full msg_in class")                     \
    X(out_stale, "msg_out items for a connection already gone")                           \
    X(out_backlog_drops, "switches cut off for not reading (openflow.out_backlog_kb)")    \
    X(bad_framing, "connections closed: OpenFlow length field below 8")                   \
    X(no_buffer, "message buffer pool empty (retried)")                                   \
    X(quota_paused, "reads paused: the connection held its whole share of buffers")       \
    X(ip_paused, "reads paused: the address's connections held its whole share")        \
    X(pending_paused, "reads paused: pending connections held openflow.pending_buffers")  \
    X(pending_evicted, "pending connections closed for a newcomer at openflow.max_pending")\
    X(early_packet_ins_dropped,                                                           \
      "PACKET_INs let go before ESTABLISHED: the pending share was full")                 \
    X(refused_addr_table, "connections refused: address table full")                      \
    X(refused_table_full, "connections refused: connection table full")                   \
    X(refused_no_event_buffer, "connections refused: events pool empty (logged)")        \
    X(tls_handshakes, "TLS handshakes completed")                                         \
    X(tls_handshake_failed, "TLS handshakes failed: certificate, protocol or version")    \
    X(tls_handshake_timeouts, "TLS handshakes not done within tls.handshake_timeout_ms")  \
    X(tls_plaintext, "plaintext OpenFlow on the TLS port (also in handshake_failed)")     \
    X(tls_errors, "TLS connections closed for a protocol error after the handshake")      \
    X(tls_no_memory, "TLS connections refused: no memory for the session")                \
    X(recorded, "messages kept in the connections' flight records")                       \
    X(recorder_evicted, "recorded messages pushed out by newer ones (openflow.recorder_kb)")
#define OF_IO_GAUGES(X)                                                                   \
    X(switch_conns, "switch connections open")                                            \
    X(pending, "connections not yet ESTABLISHED")                                          \
    X(addresses, "source addresses with connections or buffers out")                     \
    X(waiting_read, "connections waiting to be read again (ring, share or pool full)")     \
    X(waiting_start, "connections accepted while others waited, not yet started")

struct of_io_stats {
    OF_IO_COUNTERS(OFCD_COUNTER_FIELD)
    OF_IO_GAUGES(OFCD_COUNTER_FIELD)
};

extern const struct ofcd_counter_group of_io_counters;       /* "openflow_io" */

struct of_io_cfg {
    unsigned io_index;               /* = the io lcore's port queue */
    uint16_t port, extra_port;       /* plain listeners (0 = none) */
    uint16_t tls_port;               /* TLS listener (0 = none; needs env.tls) */
    uint32_t tls_handshake_timeout_ms;
    uint32_t max_conns;              /* connection table slots */
    uint32_t out_backlog_kb;         /* unsent bytes per switch before disconnect */
    uint32_t queue_size;             /* msg_out slots per class */
    uint32_t conn_buffers;           /* each connection's share of buffers ... */
    uint32_t conn_buffer_kb;         /* ... and of their capacity */
    uint32_t conn_control_buffers;   /* ... and of the control plane's pools */
    uint32_t max_pending;            /* connections short of ESTABLISHED */
    uint32_t pending_conn_buffers;   /* the share of each of them, one large at most
                                      * (0: the established share) */
    uint32_t pending_buffers;        /* ... of all of them together (0: no bound) */
    uint32_t ip_buffers;             /* the share of one source address's connections */
    uint32_t ip_buffer_kb;           /* ... in KiB (0: no bound) */
    uint32_t ip_control_buffers;     /* ... of the control plane's pools (0: no bound) */
    uint32_t recorder_kb;            /* each slot's flight record (0: none) */
};

/* Large buffers a share of n buffers may hold: the pools' own ratio (one
 * large per 64 small), at least one. */
static inline uint32_t of_io_large_of(uint32_t n)
{
    return n ? (n / 64 ? n / 64 : 1) : 0;
}

struct of_io_env {
    struct tcp_stack *tcp;           /* the io lcore's stack */
    struct qmsg_pool *pool;          /* for what switches send, charged to their quota */
    struct qmsg_pool *event_pool;    /* for connection events to the workers */
    struct msgq **worker_in;         /* the msg_in ring of every worker */
    struct tls_ctx *tls;             /* certificates for the TLS port (shared, read-only) */
    unsigned n_workers;
    uint64_t (*clock_tsc)(void);     /* enqueue stamps (ring latency) */
    uint64_t (*clock_us)(void);      /* rate-limited logs */
};

struct of_io;

/* Create for an io lcore: listeners, connection table, its msg_out ring.
 * cfg and env are copied (worker_in must outlive it). Returns NULL (logged)
 * on failure. */
struct of_io *of_io_create(const struct of_io_cfg *cfg, const struct of_io_env *env);
void of_io_destroy(struct of_io *io);

/* The ring workers and the control thread enqueue into for this lcore. */
struct msgq *of_io_msg_out(struct of_io *io);

/* Loop phases: retry what was blocked, drain msg_out into TCP. Returns
 * whether anything was done (for the idle back-off). */
bool of_io_poll(struct of_io *io, uint64_t now_tsc);

/* Where a recorded connection ran: the switch's end and ofcd's port. */
struct of_io_flight_ends {
    uint32_t peer_ip;                /* host order */
    uint16_t peer_port, local_port;
    bool closed;                     /* the connection is over */
};

/* The flight record of connection h, open or over while its slot has not
 * been taken again, as an of_flight blob into dst (cap bytes): 0 with *len
 * and *ends; -ENOENT when that connection's record is gone (or the
 * recorder is off); -ENOSPC when cap is short (*len: what it needs). On
 * the io lcore only. */
int of_io_flight_copy(struct of_io *io, conn_handle_t h, void *dst, size_t cap, size_t *len,
                      struct of_io_flight_ends *ends);
/* The same from another thread (one asker: the control thread): the ask,
 * answered by the io lcore at its next poll, neither side waiting. 0,
 * -EBUSY (the last ask is unanswered), -ENOENT (the recorder is off),
 * -ENOMEM. */
int of_io_flight_ask(struct of_io *io, conn_handle_t h);
/* The answer once there: true with *rc (of_io_flight_copy's), the blob
 * (*blob, *len: the asker's until its next ask) and *ends. */
bool of_io_flight_answer(struct of_io *io, int *rc, const void **blob, size_t *len,
                         struct of_io_flight_ends *ends);

void of_io_get_stats(const struct of_io *io, struct of_io_stats *out);
uint32_t of_io_conn_count(const struct of_io *io);

/* Visit the live counters (on the io lcore: its counter publication). */
void of_io_visit_counters(const struct of_io *io, ofcd_counter_fn fn, void *arg);

#endif
