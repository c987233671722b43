/*
 * ec_run: connection state machine and epoll loop of tcp-echo-client
 * (modes and verdicts described in ec.h). One thread; sockets are
 * non-blocking and edge-triggered, so each event drains a socket both ways
 * until it would block.
 */
#include "ec.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tt_common.h"

#define EC_CHUNK (64u << 10)
#define EC_EVENTS 256
#define EC_START_BATCH 256
#define EC_SIGNAL_TAG UINT64_MAX

static const char *const ec_mode_names[] = {
    [EC_MODE_ECHO] = "echo",
    [EC_MODE_HALFCLOSE] = "halfclose-only",
    [EC_MODE_RESET] = "reset",
    [EC_MODE_HOLD] = "hold",
};

static const char *const ec_err_names[EC_ERR_COUNT] = {
    [EC_ERR_NONE] = "none",
    [EC_ERR_REFUSED] = "ECONNREFUSED",
    [EC_ERR_CONNECT] = "connect-error",
    [EC_ERR_RESET] = "ECONNRESET",
    [EC_ERR_IO] = "io-error",
    [EC_ERR_MISMATCH] = "mismatch",
    [EC_ERR_EXTRA] = "extra-data",
    [EC_ERR_EARLY_EOF] = "early-eof",
    [EC_ERR_TIMEOUT] = "timeout",
    [EC_ERR_INTERRUPTED] = "interrupted",
};

static const char *const ec_state_names[] = {
    [EC_ST_IDLE] = "not-started",
    [EC_ST_CONNECTING] = "connecting",
    [EC_ST_OPEN] = "open",
    [EC_ST_HELD] = "held",
    [EC_ST_DONE] = "done",
    [EC_ST_FAILED] = "failed",
};

const char *ec_mode_name(enum ec_mode m)
{
    return ec_mode_names[m];
}

int ec_mode_parse(const char *s, enum ec_mode *out)
{
    for (unsigned i = 0; i < sizeof(ec_mode_names) / sizeof(ec_mode_names[0]); i++) {
        if (strcmp(s, ec_mode_names[i]) == 0) {
            *out = (enum ec_mode)i;
            return 0;
        }
    }
    return -EINVAL;
}

const char *ec_err_name(enum ec_err e)
{
    return ec_err_names[e];
}

const char *ec_state_name(enum ec_state s)
{
    return ec_state_names[s];
}

struct ec_ctx *ec_create(const struct ec_opts *o)
{
    struct ec_ctx *ctx = calloc(1, sizeof(*ctx));

    if (ctx == NULL)
        return NULL;
    ctx->o = *o;
    ctx->ep = -1;
    ctx->sfd = -1;
    ctx->conns = calloc(o->conns, sizeof(*ctx->conns));
    ctx->txbuf = malloc(EC_CHUNK);
    ctx->rxbuf = malloc(EC_CHUNK);
    ctx->scratch = malloc(EC_CHUNK);
    if (ctx->conns == NULL || ctx->txbuf == NULL || ctx->rxbuf == NULL ||
        ctx->scratch == NULL) {
        fprintf(stderr, "tcp-echo-client: out of memory for %u connections\n", o->conns);
        ec_destroy(ctx);
        return NULL;
    }
    for (uint32_t i = 0; i < o->conns; i++) {
        struct ec_conn *c = &ctx->conns[i];

        c->fd = -1;
        c->target = o->mode == EC_MODE_RESET || o->mode == EC_MODE_HOLD ? o->bytes / 2
                                                                        : o->bytes;
        tt_stream_init(&c->stream, o->seed, i);
        tt_sum_init(&c->sum_tx);
        tt_sum_init(&c->sum_rx);
    }
    return ctx;
}

void ec_destroy(struct ec_ctx *ctx)
{
    if (ctx == NULL)
        return;
    for (uint32_t i = 0; ctx->conns != NULL && i < ctx->o.conns; i++)
        if (ctx->conns[i].fd >= 0)
            close(ctx->conns[i].fd);
    if (ctx->ep >= 0)
        close(ctx->ep);
    if (ctx->sfd >= 0)
        close(ctx->sfd);
    free(ctx->conns);
    free(ctx->txbuf);
    free(ctx->rxbuf);
    free(ctx->scratch);
    free(ctx);
}

static uint32_t ec_index(const struct ec_ctx *ctx, const struct ec_conn *c)
{
    return (uint32_t)(c - ctx->conns);
}

static void ec_finish(struct ec_ctx *ctx, struct ec_conn *c, enum ec_state st)
{
    if (c->fd >= 0) {
        close(c->fd);
        c->fd = -1;
    }
    c->state = (uint8_t)st;
    ctx->finished++;
    if (st == EC_ST_DONE)
        ctx->ok++;
    else
        ctx->failed++;
}

/* offset: where in the stream it went wrong (receive side unless sending). */
static void ec_fail(struct ec_ctx *ctx, struct ec_conn *c, enum ec_err err, int sys_err,
                    uint64_t offset)
{
    c->err = (uint8_t)err;
    c->sys_err = sys_err;
    ctx->err_count[err]++;
    if (ctx->nfirst < EC_FIRST_ERRORS) {
        struct ec_error_rec *r = &ctx->first[ctx->nfirst++];

        r->conn = ec_index(ctx, c);
        r->err = (uint8_t)err;
        r->sys_err = sys_err;
        r->offset = offset;
        r->sent = c->sent;
        r->state = c->state;
    }
    ec_finish(ctx, c, EC_ST_FAILED);
}

static void ec_fail_errno(struct ec_ctx *ctx, struct ec_conn *c, int e, uint64_t offset)
{
    if (e == ECONNRESET || e == EPIPE)
        ec_fail(ctx, c, EC_ERR_RESET, e, offset);
    else
        ec_fail(ctx, c, EC_ERR_IO, e, offset);
}

/* A held connection has succeeded in hold mode; it leaves the epoll set
 * (even an empty interest mask would still report HUP/ERR) but stays open. */
static void ec_hold(struct ec_ctx *ctx, struct ec_conn *c)
{
    (void)epoll_ctl(ctx->ep, EPOLL_CTL_DEL, c->fd, NULL);
    c->state = EC_ST_HELD;
    ctx->finished++;
    ctx->held++;
    ctx->ok++;
}

/* Returns 1 when progress was made, 0 when the socket would block, -1 when
 * the connection reached a verdict (or was held). */
static int ec_send_some(struct ec_ctx *ctx, struct ec_conn *c)
{
    if (c->sent < c->target) {
        size_t len = c->target - c->sent < EC_CHUNK ? (size_t)(c->target - c->sent) : EC_CHUNK;
        ssize_t n;

        tt_stream_fill(&c->stream, c->sent, ctx->txbuf, len);
        n = send(c->fd, ctx->txbuf, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                return 0;
            ec_fail_errno(ctx, c, errno, c->rcvd);
            return -1;
        }
        tt_sum_update(&c->sum_tx, ctx->txbuf, (size_t)n);
        c->sent += (uint64_t)n;
        return 1;
    }
    if (c->wr_shut)
        return 0;
    switch ((enum ec_mode)ctx->o.mode) {
    case EC_MODE_ECHO:
    case EC_MODE_HALFCLOSE:
        if (shutdown(c->fd, SHUT_WR) != 0) {
            ec_fail_errno(ctx, c, errno, c->rcvd);
            return -1;
        }
        c->wr_shut = true;
        return 1;
    case EC_MODE_RESET:
        (void)tt_set_linger0(c->fd);
        ec_finish(ctx, c, EC_ST_DONE);
        return -1;
    case EC_MODE_HOLD:
        ec_hold(ctx, c);
        return -1;
    }
    return 0;
}

static int ec_recv_some(struct ec_ctx *ctx, struct ec_conn *c)
{
    ssize_t n = recv(c->fd, ctx->rxbuf, EC_CHUNK, 0);
    size_t good;

    if (n < 0) {
        if (errno == EAGAIN || errno == EINTR)
            return 0;
        ec_fail_errno(ctx, c, errno, c->rcvd);
        return -1;
    }
    if (n == 0) {
        if (c->wr_shut && c->rcvd == c->target)
            ec_finish(ctx, c, EC_ST_DONE);
        else
            ec_fail(ctx, c, EC_ERR_EARLY_EOF, 0, c->rcvd);
        return -1;
    }
    if (c->rcvd + (uint64_t)n > c->sent) {
        ec_fail(ctx, c, EC_ERR_EXTRA, 0, c->sent);
        return -1;
    }
    good = tt_stream_check(&c->stream, c->rcvd, ctx->rxbuf, (size_t)n, ctx->scratch);
    tt_sum_update(&c->sum_rx, ctx->rxbuf, good);
    c->rcvd += good;
    if (good < (size_t)n) {
        ec_fail(ctx, c, EC_ERR_MISMATCH, 0, c->rcvd);
        return -1;
    }
    return 1;
}

/* Moves data both ways until the socket would block or a verdict is due. */
static void ec_pump(struct ec_ctx *ctx, struct ec_conn *c)
{
    for (;;) {
        int tx = ec_send_some(ctx, c), rx = 0;

        if (tx < 0)
            return;
        if (ctx->o.mode != EC_MODE_HOLD &&
            (ctx->o.mode != EC_MODE_HALFCLOSE || c->wr_shut)) {
            rx = ec_recv_some(ctx, c);
            if (rx < 0)
                return;
        }
        if (tx == 0 && rx == 0)
            return;
    }
}

static void ec_connected(struct ec_ctx *ctx, struct ec_conn *c)
{
    c->state = EC_ST_OPEN;
    ctx->connected++;
    ec_pump(ctx, c);
}

static void ec_start(struct ec_ctx *ctx, struct ec_conn *c)
{
    struct epoll_event ev = {
        .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
        .data.u64 = ec_index(ctx, c),
    };
    int fd = tt_tcp_socket();

    c->state = EC_ST_CONNECTING;
    if (fd < 0) {
        ec_fail(ctx, c, EC_ERR_CONNECT, -fd, 0);
        return;
    }
    c->fd = fd;
    if (ctx->o.cc[0] && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, ctx->o.cc,
                                   (socklen_t)strlen(ctx->o.cc)) != 0) {
        ec_fail(ctx, c, EC_ERR_CONNECT, errno, 0);
        return;
    }
    if (epoll_ctl(ctx->ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
        ec_fail(ctx, c, EC_ERR_CONNECT, errno, 0);
        return;
    }
    if (connect(fd, (const struct sockaddr *)&ctx->o.dst, sizeof(ctx->o.dst)) == 0) {
        ec_connected(ctx, c);
    } else if (errno != EINPROGRESS) {
        ec_fail(ctx, c, errno == ECONNREFUSED ? EC_ERR_REFUSED : EC_ERR_CONNECT, errno, 0);
    }
}

static void ec_event(struct ec_ctx *ctx, struct ec_conn *c, uint32_t events)
{
    if (c->state == EC_ST_CONNECTING) {
        int err = 0;
        socklen_t len = sizeof(err);

        if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
            return;
        if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
            err = errno;
        if (err == 0 && (events & (EPOLLERR | EPOLLHUP)) && !(events & EPOLLOUT))
            err = ECONNRESET;
        if (err != 0) {
            ec_fail(ctx, c, err == ECONNREFUSED ? EC_ERR_REFUSED : EC_ERR_CONNECT, err, 0);
            return;
        }
        ec_connected(ctx, c);
        return;
    }
    if (c->state == EC_ST_OPEN)
        ec_pump(ctx, c);
}

/* Starts the connections due by now under --connect-rate, at most
 * EC_START_BATCH per call so that events are served between batches (a
 * connect() can take milliseconds when the port range is crowded with
 * TIME_WAIT). Returns the nanoseconds until the next start is due, 1 when
 * more are due at once, 0 when all are started. */
static uint64_t ec_start_due(struct ec_ctx *ctx, uint64_t now)
{
    uint32_t due = ctx->o.conns, batch = 0;
    uint64_t next;

    if (ctx->o.connect_rate > 0) {
        double d = (double)(now - ctx->t_start) / 1e9 * ctx->o.connect_rate + 1.0;

        if (d < (double)ctx->o.conns)
            due = (uint32_t)d;
    }
    while (ctx->started < due && batch++ < EC_START_BATCH)
        ec_start(ctx, &ctx->conns[ctx->started++]);
    if (ctx->started >= ctx->o.conns)
        return 0;
    if (ctx->started < due)
        return 1;
    next = ctx->t_start + (uint64_t)((double)ctx->started / ctx->o.connect_rate * 1e9);
    return next > now ? next - now : 1;
}

/* Every connection without a verdict fails with err; the rest keep theirs. */
static void ec_fail_pending(struct ec_ctx *ctx, enum ec_err err)
{
    for (uint32_t i = 0; i < ctx->o.conns; i++) {
        struct ec_conn *c = &ctx->conns[i];

        if (c->state == EC_ST_IDLE || c->state == EC_ST_CONNECTING ||
            c->state == EC_ST_OPEN)
            ec_fail(ctx, c, err, 0, c->rcvd);
    }
}

static void ec_progress(const struct ec_ctx *ctx)
{
    fprintf(stderr, "tcp-echo-client: started=%u connected=%u ok=%u failed=%u held=%u\n",
            ctx->started, ctx->connected, ctx->ok, ctx->failed, ctx->held);
}

int ec_run(struct ec_ctx *ctx)
{
    struct epoll_event evs[EC_EVENTS];
    struct epoll_event sev = { .events = EPOLLIN, .data.u64 = EC_SIGNAL_TAG };
    uint64_t deadline;

    ctx->ep = epoll_create1(EPOLL_CLOEXEC);
    if (ctx->ep < 0)
        return -errno;
    ctx->sfd = tt_signal_fd();
    if (ctx->sfd < 0)
        return ctx->sfd;
    if (epoll_ctl(ctx->ep, EPOLL_CTL_ADD, ctx->sfd, &sev) != 0)
        return -errno;

    ctx->t_start = tt_now_ns();
    deadline = ctx->t_start + (uint64_t)(ctx->o.timeout_s * 1e9);
    for (;;) {
        uint64_t now = tt_now_ns(), wait_ns;
        int n, wait_ms;

        wait_ns = ec_start_due(ctx, now);
        if (ctx->finished == ctx->o.conns) {
            if (ctx->o.mode != EC_MODE_HOLD || ctx->held == 0)
                break;
            if (!ctx->holding_printed) {
                ctx->t_end = now;
                printf("holding %u connections\n", ctx->held);
                fflush(stdout);
                ctx->holding_printed = true;
            }
        } else if (now >= deadline) {
            ec_fail_pending(ctx, EC_ERR_TIMEOUT);
            break;
        }
        if (!ctx->holding_printed && (wait_ns == 0 || wait_ns > deadline - now))
            wait_ns = now < deadline ? deadline - now : 0;
        if (ctx->holding_printed && wait_ns == 0)
            wait_ms = -1;
        else
            wait_ms = wait_ns <= 1 ? 0 : (int)((wait_ns + 999999) / 1000000);

        n = epoll_wait(ctx->ep, evs, EC_EVENTS, wait_ms);
        if (n < 0 && errno != EINTR)
            return -errno;
        for (int i = 0; i < n; i++) {
            if (evs[i].data.u64 == EC_SIGNAL_TAG) {
                int sig;

                while ((sig = tt_signal_read(ctx->sfd)) != 0) {
                    if (sig == SIGUSR1) {
                        ec_progress(ctx);
                        continue;
                    }
                    ec_fail_pending(ctx, EC_ERR_INTERRUPTED);
                    goto out;
                }
                continue;
            }
            ec_event(ctx, &ctx->conns[evs[i].data.u64], evs[i].events);
        }
    }
out:
    if (!ctx->holding_printed)
        ctx->t_end = tt_now_ns();
    return 0;
}
