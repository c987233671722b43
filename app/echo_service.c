/* echo_service: see echo_service.h. */
#include "echo_service.h"

#include <errno.h>

#define ECHO_IOV 16

static void echo_pump(struct tcp_conn *c, struct echo_service *e)
{
    for (;;) {
        struct tcp_iovec iov[ECHO_IOV];
        unsigned n = ECHO_IOV;
        size_t avail = tcp_recv_peek(c, iov, &n);
        size_t moved = 0;
        bool short_send = false;

        if (avail == 0)
            break;
        for (unsigned i = 0; i < n && !short_send; i++) {
            ssize_t w = tcp_send(c, iov[i].base, iov[i].len);
            if (w < 0) {
                /* The stack refused outright: nothing sensible to echo into. */
                tcp_abort(c);
                e->closed++;
                return;
            }
            moved += (size_t)w;
            short_send = (size_t)w < iov[i].len;
        }
        if (moved)
            tcp_recv_consume(c, moved);
        e->bytes += moved;
        if (short_send || moved == 0)
            return;                  /* backpressure: on_writable resumes us */
    }
    if (tcp_recv_eof(c)) {
        tcp_close(c);                /* FIN after everything queued */
        e->closed++;
    }
}

static void echo_on_established(struct tcp_conn *c, void *user)
{
    struct echo_service *e = user;

    e->accepted++;
    echo_pump(c, e);
}

static void echo_on_data(struct tcp_conn *c, void *user)
{
    echo_pump(c, user);
}

static void echo_on_closed(struct tcp_conn *c, void *user, int reason)
{
    struct echo_service *e = user;

    (void)c;
    (void)reason;
    e->closed++;
}

static const struct tcp_conn_ops echo_ops = {
    .on_established = echo_on_established,
    .on_readable = echo_on_data,
    .on_writable = echo_on_data,
    .on_closed = echo_on_closed,
};

int echo_service_start(struct echo_service *e, struct tcp_stack *stack, uint16_t port)
{
    e->stack = stack;
    e->port = port;
    return tcp_listen(stack, port, 0, &echo_ops, e);
}
