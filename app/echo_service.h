/*
 * echo_service: TEST ONLY — a TCP echo listener on an io lcore's stack
 * (tcp.echo_port), so the TCP stack can be tested and benchmarked against
 * Linux's TCP through the tap without any OpenFlow involved.
 *
 * Every byte received is sent back in order. When the send buffer is full it
 * stops reading (the receive window closes: backpressure reaches the peer),
 * and resumes on on_writable. After the peer's FIN, once everything has been
 * echoed, it closes its side.
 */
#ifndef OFCD_ECHO_SERVICE_H
#define OFCD_ECHO_SERVICE_H

#include <stdint.h>

#include "tcp.h"

struct echo_service {
    struct tcp_stack *stack;
    uint16_t port;
    uint64_t accepted;
    uint64_t closed;
    uint64_t bytes;
};

/* Listen on port. Returns 0 or a negative errno. */
int echo_service_start(struct echo_service *e, struct tcp_stack *stack, uint16_t port);

#endif
