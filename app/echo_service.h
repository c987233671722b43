/*
 * echo_service: TEST ONLY — a TCP echo listener on an io lcore's stack
 * (tcp.echo_port), so the TCP stack can be tested and benchmarked against
 * Linux's TCP through the tap without any OpenFlow involved.
 *
 * Every byte received is sent back in order. When the send buffer is full it
 * stops reading (the receive window closes: backpressure reaches the peer),
 * and resumes on on_writable. After the peer's FIN, once everything has been
 * echoed, it closes its side.
 *
 * The same service can instead connect out (tcp.echo_connect) through a
 * tcp_connector, which reconnects with backoff after each close: the test of
 * active open against a listening kernel peer.
 */
#ifndef OFCD_ECHO_SERVICE_H
#define OFCD_ECHO_SERVICE_H

#include <stdint.h>

#include "ofcd_counters.h"
#include "tcp.h"
#include "tcp_connector.h"

struct echo_service {
    struct tcp_stack *stack;
    struct tcp_connector *connector;   /* active mode, else NULL */
    uint16_t port;
    uint64_t accepted;
    uint64_t closed;
    uint64_t bytes;
};

/* Listen on port. Returns 0 or a negative errno. */
int echo_service_start(struct echo_service *e, struct tcp_stack *stack, uint16_t port);

/* Connect to ip:port (host order) and echo, reconnecting with the backoff
 * given. Returns 0 or a negative errno. */
int echo_service_connect(struct echo_service *e, struct tcp_stack *stack, uint32_t ip,
                         uint16_t port, uint32_t backoff_min_ms, uint32_t backoff_max_ms,
                         uint64_t now_us);
void echo_service_stop(struct echo_service *e);

/* Active mode: visit the connector's counters (group "tcp_connector"). */
void echo_service_counters(const struct echo_service *e, ofcd_counter_fn fn, void *arg);

#endif
