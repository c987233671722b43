/* echo_service: see echo_service.h. */
#include "echo_service.h"

#include <errno.h>

#define ECHO_IOV 16

static void echo_close(struct echo_service *e, struct tcp_conn *c)
{
    e->closed++;
    if (e->connector)
        tcp_connector_close(e->connector);   /* and it reconnects */
    else
        tcp_close(c);
}

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
                echo_close(e, c);
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
    if (tcp_recv_eof(c))
        echo_close(e, c);            /* FIN after everything queued */
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

int echo_service_connect(struct echo_service *e, struct tcp_stack *stack, uint32_t ip,
                         uint16_t port, uint32_t backoff_min_ms, uint32_t backoff_max_ms,
                         uint64_t now_us)
{
    struct tcp_connector_cfg kc = {
        .ip = ip,
        .port = port,
        .backoff_min_ms = backoff_min_ms,
        .backoff_max_ms = backoff_max_ms,
    };

    e->stack = stack;
    e->port = port;
    e->connector = tcp_connector_start(stack, &kc, &echo_ops, e, now_us);
    return e->connector ? 0 : -EINVAL;
}

void echo_service_counters(const struct echo_service *e, ofcd_counter_fn fn, void *arg)
{
    if (e->connector)
        fn(arg, &tcp_connector_counters, "",
           OFCD_COUNTER_VALUES(tcp_connector_get_stats(e->connector)));
}

void echo_service_stop(struct echo_service *e)
{
    if (e && e->connector) {
        tcp_connector_stop(e->connector);
        e->connector = NULL;
    }
}
