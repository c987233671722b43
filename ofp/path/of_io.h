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
 *   - a switch that does not read → its unsent messages wait on the
 *     connection, in order, up to openflow.out_backlog_kb; beyond that the
 *     switch is disconnected and logged (it is not draining).
 * Connection events (up, down) are queued to the worker like messages and
 * retried the same way, so the worker's view never misses one.
 */
#ifndef OFCD_OF_IO_H
#define OFCD_OF_IO_H

#include <stdbool.h>
#include <stdint.h>

#include "msgq.h"
#include "qmsg.h"
#include "qmsg_pool.h"
#include "tcp.h"

struct lcore_ctx;

struct of_io_stats {
    uint64_t conns_accepted;
    uint64_t conns_closed;
    uint64_t msgs_in;              /* framed and queued to a worker */
    uint64_t msgs_out;             /* handed to TCP */
    uint64_t echo_inline;          /* ECHO_REQUESTs answered on the io lcore */
    uint64_t in_blocked;           /* times a connection paused on a full msg_in */
    uint64_t out_stale;            /* msg_out items for a connection already gone */
    uint64_t out_backlog_drops;    /* switches cut off for not reading */
    uint64_t bad_framing;          /* connections closed: length field < 8 */
    uint64_t no_buffer;            /* message buffer pool empty (retried) */
};

struct of_io;

/* Create for an io lcore: listeners, connection table, its msg_out ring.
 * worker_in: the msg_in ring of every worker (n_workers of them).
 * Returns NULL (logged) on failure. */
struct of_io *of_io_create(struct lcore_ctx *lc, unsigned io_index, struct msgq **worker_in,
                           unsigned n_workers, struct qmsg_pool *pool);
void of_io_destroy(struct of_io *io);

/* The ring workers and the control thread enqueue into for this lcore. */
struct msgq *of_io_msg_out(struct of_io *io);

/* Loop phases: retry what was blocked, drain msg_out into TCP. Returns
 * whether anything was done (for the idle back-off). */
bool of_io_poll(struct of_io *io, uint64_t now_us, uint64_t now_tsc);

void of_io_get_stats(const struct of_io *io, struct of_io_stats *out);
uint32_t of_io_conn_count(const struct of_io *io);

#endif
