/* of_stream: see of_stream.h. */
#include "of_stream.h"

#include <errno.h>

static ssize_t tcp_side_recv(void *arg, void *buf, size_t len)
{
    struct tcp_conn *c = arg;
    size_t n = tcp_recv(c, buf, len);

    if (n)
        return (ssize_t)n;
    return tcp_recv_eof(c) ? -1 : 0;
}

static ssize_t tcp_side_send(void *arg, const void *buf, size_t len)
{
    ssize_t n = tcp_send(arg, buf, len);

    return n < 0 ? -1 : n;
}

int of_stream_tls_start(struct of_stream *s, struct tls_ctx *ctx)
{
    struct tls_transport t = {.arg = s->tcp, .recv = tcp_side_recv, .send = tcp_side_send};

    s->tls = tls_sess_new(ctx, &t);
    return s->tls ? 0 : -ENOMEM;
}

bool of_stream_handshaking(const struct of_stream *s)
{
    return s->tls && !tls_sess_ready(s->tls);
}

int of_stream_fill(struct of_stream *s, size_t want)
{
    return s->tls ? tls_sess_pump(s->tls, want) : 0;
}

const char *of_stream_error(const struct of_stream *s)
{
    return s->tls ? tls_sess_error(s->tls) : "";
}

size_t of_stream_avail(const struct of_stream *s)
{
    return s->tls ? tls_sess_avail(s->tls) : tcp_recv_available(s->tcp);
}

size_t of_stream_copy(const struct of_stream *s, void *buf, size_t len)
{
    return s->tls ? tls_sess_copy(s->tls, buf, len) : tcp_recv_copy(s->tcp, buf, len);
}

void of_stream_consume(struct of_stream *s, size_t n)
{
    if (s->tls)
        tls_sess_consume(s->tls, n);
    else
        tcp_recv_consume(s->tcp, n);
}

ssize_t of_stream_send(struct of_stream *s, const void *data, size_t len)
{
    return s->tls ? tls_sess_write(s->tls, data, len) : tcp_send(s->tcp, data, len);
}

bool of_stream_ended(const struct of_stream *s)
{
    /* TLS: the end is seen once OpenSSL read up to it, which it does only
     * while the framer wants bytes; plain: TCP's FIN. */
    return s->tls ? tls_sess_ended(s->tls) : tcp_recv_fin(s->tcp);
}

void of_stream_close(struct of_stream *s, bool abort)
{
    if (s->tls && !abort)
        tls_sess_close(s->tls);
    if (abort)
        tcp_abort(s->tcp);
    else
        tcp_close(s->tcp);
    of_stream_gone(s);
}

void of_stream_gone(struct of_stream *s)
{
    tls_sess_free(s->tls);
    s->tls = NULL;
    s->tcp = NULL;
}
