/*
 * tcp_connector: active open that stays open — for peers that listen (an OVS
 * bridge with a "ptcp:" controller target). It connects to ip:port, and when
 * the attempt fails or a connection ends it tries again after a backoff that
 * doubles from backoff_min_ms to backoff_max_ms (reset by every successful
 * connection), with a little jitter so many connectors do not stampede.
 *
 * The connector sits between the stack and the upper layer: the user's ops
 * see each connection as if they had opened it themselves (on_established,
 * data, on_closed), and the connector reconnects after on_closed returns.
 * Runs on the stack's lcore and timer wheel; single-threaded like the stack.
 */
#ifndef OFCD_TCP_CONNECTOR_H
#define OFCD_TCP_CONNECTOR_H

#include <stdint.h>

#include "tcp.h"

struct tcp_connector;

struct tcp_connector_cfg {
    uint32_t ip;               /* host order */
    uint16_t port;
    uint32_t backoff_min_ms;   /* first retry delay (e.g. 1000) */
    uint32_t backoff_max_ms;   /* cap (e.g. 30000) */
};

#define TCP_CONNECTOR_COUNTERS(X)                                                         \
    X(attempts, "connection attempts (SYNs of a new connection)")                        \
    X(established, "attempts that got established")                                       \
    X(failures, "attempts that never got established")                                    \
    X(disconnects, "established connections that ended")
#define TCP_CONNECTOR_GAUGES(X) X(backoff_ms, "delay before the next attempt, ms")

struct tcp_connector_stats {
    TCP_CONNECTOR_COUNTERS(OFCD_COUNTER_FIELD)
    TCP_CONNECTOR_GAUGES(OFCD_COUNTER_FIELD)
};

extern const struct ofcd_counter_group tcp_connector_counters;  /* "tcp_connector" */

/* Start connecting now. Returns NULL on bad arguments or no memory (logged). */
struct tcp_connector *tcp_connector_start(struct tcp_stack *s,
                                          const struct tcp_connector_cfg *cfg,
                                          const struct tcp_conn_ops *ops, void *user,
                                          uint64_t now_us);

/* End the current connection gracefully (tcp_close: FIN after queued data)
 * and connect again after the backoff. Users of a connector call this, never
 * tcp_close()/tcp_abort() on its connection: the connector would not learn
 * that the connection is gone. No-op without a connection. */
void tcp_connector_close(struct tcp_connector *k);

/* Stop: abort the current connection (no callbacks), cancel retries, free. */
void tcp_connector_stop(struct tcp_connector *k);

/* The live connection, or NULL while connecting or waiting to retry. */
struct tcp_conn *tcp_connector_conn(const struct tcp_connector *k);

const struct tcp_connector_stats *tcp_connector_get_stats(const struct tcp_connector *k);

#endif
