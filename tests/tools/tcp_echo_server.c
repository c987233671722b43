/*
 * tcp-echo-server: a kernel-socket echo service with the semantics of ofcd's
 * test echo service, so the TCP tools can be tested without ofcd and the
 * bench has a kernel baseline.
 *
 *   tcp-echo-server --addr A --port P [--buf BYTES] [--backlog N]
 *                   [--stats-file FILE]
 *
 * One thread, one epoll set, edge-triggered non-blocking sockets. Each
 * connection echoes through a buffer of at most --buf bytes: while it is
 * full the server stops reading (the kernel window closes, the peer feels
 * backpressure); after the peer's FIN the rest is echoed and the server
 * closes its side. Lines on stdout:
 *   "listening on A:P"                once ready,
 *   "idle conns_active=0 ..."         whenever the last connection closes,
 *   "stats seq=K conns_active=N ..."  on SIGUSR1 (also written to FILE),
 * and SIGTERM or SIGINT exit 0 after a final stats line.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tt_common.h"

#define ES_EVENTS 256
#define ES_POOL_MAX 256 /* idle buffers kept for reuse */

enum es_kind { ES_KIND_CONN, ES_KIND_LISTEN, ES_KIND_SIGNAL };

struct es_conn {
    enum es_kind kind;
    int fd;
    bool rd_eof;      /* peer's FIN seen */
    bool rd_ready;    /* may have unread bytes: not drained since the last EPOLLIN */
    bool wr_ready;    /* no EAGAIN on send since the last EPOLLOUT */
    bool rd_hup;      /* the peer shut down or failed: read until EOF/error */
    bool corrupted;   /* --corrupt-at already applied */
    uint64_t echoed;  /* bytes sent back so far */
    uint32_t head;    /* echo bytes pending are buf[head, tail) */
    uint32_t tail;
    uint8_t *buf;     /* NULL while nothing is pending */
    struct es_conn *prev; /* all open connections, for the exit path */
    struct es_conn *next;
};

struct es_stats {
    uint64_t accepted;
    uint64_t active;
    uint64_t peak;
    uint64_t closed_fin;   /* peer FIN, everything echoed */
    uint64_t closed_reset; /* peer reset or vanished */
    uint64_t closed_error; /* any other socket error */
    uint64_t bytes;        /* bytes echoed back */
};

struct es_ctx {
    int ep;
    struct es_conn listener;
    struct es_conn signals;
    struct es_conn *conns;
    uint32_t buf_size;
    uint64_t corrupt_at;  /* UINT64_MAX = never */
    bool accept_paused;
    uint64_t stats_seq;
    const char *stats_file;
    struct es_stats st;
    uint8_t *pool[ES_POOL_MAX];
    unsigned pool_len;
};

static uint8_t *es_buf_get(struct es_ctx *ctx)
{
    if (ctx->pool_len > 0)
        return ctx->pool[--ctx->pool_len];
    return malloc(ctx->buf_size);
}

/* Buffers go back when a connection drains, so idle connections hold none. */
static void es_buf_put(struct es_ctx *ctx, uint8_t *buf)
{
    if (ctx->pool_len < ES_POOL_MAX)
        ctx->pool[ctx->pool_len++] = buf;
    else
        free(buf);
}

static void es_stats_print(const struct es_ctx *ctx, FILE *f, const char *tag)
{
    const struct es_stats *s = &ctx->st;

    fprintf(f, "%s seq=%llu conns_active=%llu conns_total=%llu conns_peak=%llu "
            "closed_fin=%llu closed_reset=%llu closed_error=%llu bytes_echoed=%llu\n",
            tag, (unsigned long long)ctx->stats_seq, (unsigned long long)s->active,
            (unsigned long long)s->accepted, (unsigned long long)s->peak,
            (unsigned long long)s->closed_fin, (unsigned long long)s->closed_reset,
            (unsigned long long)s->closed_error, (unsigned long long)s->bytes);
    fflush(f);
}

/* Written whole under a temporary name, then renamed: readers never see a
 * half-written file. */
static int es_stats_write_file(const struct es_ctx *ctx)
{
    char tmp[4096];
    FILE *f;

    if (ctx->stats_file == NULL)
        return 0;
    if (snprintf(tmp, sizeof(tmp), "%s.tmp", ctx->stats_file) >= (int)sizeof(tmp))
        return -ENAMETOOLONG;
    f = fopen(tmp, "w");
    if (f == NULL)
        return -errno;
    es_stats_print(ctx, f, "stats");
    if (fclose(f) != 0 || rename(tmp, ctx->stats_file) != 0)
        return -errno;
    return 0;
}

static void es_stats_report(struct es_ctx *ctx)
{
    int rc;

    ctx->stats_seq++;
    es_stats_print(ctx, stdout, "stats");
    rc = es_stats_write_file(ctx);
    if (rc < 0)
        fprintf(stderr, "tcp-echo-server: stats file: %s\n", strerror(-rc));
}

static void es_accept_set(struct es_ctx *ctx, bool on)
{
    struct epoll_event ev = { .events = on ? EPOLLIN : 0, .data.ptr = &ctx->listener };

    ctx->accept_paused = !on;
    (void)epoll_ctl(ctx->ep, EPOLL_CTL_MOD, ctx->listener.fd, &ev);
}

static void es_conn_close(struct es_ctx *ctx, struct es_conn *c, int err)
{
    if (err == 0)
        ctx->st.closed_fin++;
    else if (err == ECONNRESET || err == EPIPE || err == ETIMEDOUT)
        ctx->st.closed_reset++;
    else
        ctx->st.closed_error++;
    close(c->fd);
    if (c->buf != NULL)
        es_buf_put(ctx, c->buf);
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        ctx->conns = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    free(c);
    ctx->st.active--;
    if (ctx->accept_paused)
        es_accept_set(ctx, true);
    if (ctx->st.active == 0)
        es_stats_print(ctx, stdout, "idle");
}

/* Moves bytes until the socket would block both ways. Edge-triggered: a
 * short read means the queue was empty, and later data raises a new edge, so
 * no extra recv() just to see EAGAIN (that saves a third of the syscalls per
 * request/response) unless the peer's FIN may already be queued, which shows
 * as EPOLLRDHUP. Returns false when the connection was closed (and freed). */
static bool es_conn_pump(struct es_ctx *ctx, struct es_conn *c, uint32_t events)
{
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
        c->rd_ready = true;
    if (events & (EPOLLOUT | EPOLLHUP | EPOLLERR))
        c->wr_ready = true;
    if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR))
        c->rd_hup = true;
    for (;;) {
        bool progress = false;
        ssize_t n;

        if (c->tail > c->head && c->wr_ready) {
            uint64_t pending = c->tail - c->head;

            /* Test fault: lets the selftest prove a client catches a bad byte. */
            if (!c->corrupted && ctx->corrupt_at >= c->echoed &&
                ctx->corrupt_at - c->echoed < pending) {
                c->buf[c->head + (ctx->corrupt_at - c->echoed)] ^= 0x5a;
                c->corrupted = true;
            }
            n = send(c->fd, c->buf + c->head, c->tail - c->head, MSG_NOSIGNAL);
            if (n > 0) {
                c->head += (uint32_t)n;
                c->echoed += (uint64_t)n;
                ctx->st.bytes += (uint64_t)n;
                progress = true;
                if (c->head == c->tail) {
                    es_buf_put(ctx, c->buf);
                    c->buf = NULL;
                    c->head = c->tail = 0;
                }
            } else if (errno == EAGAIN) {
                c->wr_ready = false;
            } else if (errno != EINTR) {
                es_conn_close(ctx, c, errno);
                return false;
            }
        }
        if (!c->rd_eof && c->rd_ready && (c->buf == NULL || c->tail - c->head < ctx->buf_size)) {
            if (c->buf == NULL) {
                c->buf = es_buf_get(ctx);
                if (c->buf == NULL) {
                    es_conn_close(ctx, c, ENOMEM);
                    return false;
                }
            } else if (c->tail == ctx->buf_size) {
                memmove(c->buf, c->buf + c->head, c->tail - c->head);
                c->tail -= c->head;
                c->head = 0;
            }
            size_t want = ctx->buf_size - c->tail;

            n = recv(c->fd, c->buf + c->tail, want, 0);
            if (n > 0) {
                c->tail += (uint32_t)n;
                progress = true;
                if ((size_t)n < want && !c->rd_hup)
                    c->rd_ready = false;
            } else if (n == 0) {
                c->rd_eof = true;
            } else if (errno == EAGAIN) {
                c->rd_ready = false;
            } else if (errno != EINTR) {
                es_conn_close(ctx, c, errno);
                return false;
            }
            if (c->tail == c->head) {
                es_buf_put(ctx, c->buf);
                c->buf = NULL;
                c->head = c->tail = 0;
            }
        }
        if (c->rd_eof && c->tail == c->head) {
            es_conn_close(ctx, c, 0);
            return false;
        }
        if (!progress)
            return true;
    }
}

static void es_accept(struct es_ctx *ctx)
{
    for (;;) {
        int fd = accept4(ctx->listener.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        struct epoll_event ev;
        struct es_conn *c;

        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                /* Resumed when a connection closes; the backlog holds the rest. */
                fprintf(stderr, "tcp-echo-server: accept: %s, pausing\n", strerror(errno));
                es_accept_set(ctx, false);
                return;
            }
            if (errno == ECONNABORTED || errno == EINTR)
                continue;
            return;
        }
        c = calloc(1, sizeof(*c));
        if (c == NULL) {
            close(fd);
            continue;
        }
        c->kind = ES_KIND_CONN;
        c->fd = fd;
        c->rd_ready = c->wr_ready = true;
        (void)tt_set_nodelay(fd);
        ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
        ev.data.ptr = c;
        if (epoll_ctl(ctx->ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
            close(fd);
            free(c);
            continue;
        }
        c->next = ctx->conns;
        if (c->next != NULL)
            c->next->prev = c;
        ctx->conns = c;
        ctx->st.accepted++;
        ctx->st.active++;
        if (ctx->st.active > ctx->st.peak)
            ctx->st.peak = ctx->st.active;
    }
}

static int es_listen(struct es_ctx *ctx, const struct sockaddr_in *sa, int backlog)
{
    int one = 1;
    int fd = tt_tcp_socket();
    struct epoll_event ev = { .events = EPOLLIN };

    if (fd < 0)
        return fd;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (const struct sockaddr *)sa, sizeof(*sa)) != 0 || listen(fd, backlog) != 0) {
        int err = -errno;

        close(fd);
        return err;
    }
    ctx->listener.kind = ES_KIND_LISTEN;
    ctx->listener.fd = fd;
    ev.data.ptr = &ctx->listener;
    if (epoll_ctl(ctx->ep, EPOLL_CTL_ADD, fd, &ev) != 0)
        return -errno;
    return 0;
}

/* Returns when SIGTERM or SIGINT arrives. */
static void es_run(struct es_ctx *ctx)
{
    struct epoll_event evs[ES_EVENTS];

    for (;;) {
        int n = epoll_wait(ctx->ep, evs, ES_EVENTS, -1);

        for (int i = 0; i < n; i++) {
            struct es_conn *c = evs[i].data.ptr;
            int sig;

            switch (c->kind) {
            case ES_KIND_LISTEN:
                es_accept(ctx);
                break;
            case ES_KIND_SIGNAL:
                while ((sig = tt_signal_read(c->fd)) != 0) {
                    if (sig != SIGUSR1)
                        return;
                    es_stats_report(ctx);
                }
                break;
            case ES_KIND_CONN:
                (void)es_conn_pump(ctx, c, evs[i].events);
                break;
            }
        }
    }
}

static void es_usage(FILE *f)
{
    fprintf(f,
            "usage: tcp-echo-server --addr A.B.C.D --port P [options]\n"
            "  --buf BYTES        per-connection echo buffer (default 64K, 1K..64M)\n"
            "  --backlog N        listen backlog (default 4096)\n"
            "  --max-fds N        descriptor limit to ask for (default 20000)\n"
            "  --stats-file FILE  rewritten with the stats line on SIGUSR1 and at exit\n"
            "  --corrupt-at N     test fault: flip the echoed byte at offset N of every\n"
            "                     connection (proves a client notices)\n"
            "Prints connection counts on SIGUSR1; exits 0 on SIGTERM/SIGINT.\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "addr", required_argument, NULL, 'a' },
        { "port", required_argument, NULL, 'p' },
        { "buf", required_argument, NULL, 'b' },
        { "backlog", required_argument, NULL, 'l' },
        { "max-fds", required_argument, NULL, 'm' },
        { "stats-file", required_argument, NULL, 's' },
        { "corrupt-at", required_argument, NULL, 'x' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct es_ctx ctx = { .buf_size = 64 << 10, .corrupt_at = UINT64_MAX };
    const char *addr = NULL;
    uint64_t port = 0, v, backlog = 4096, max_fds = 20000;
    struct sockaddr_in sa;
    struct epoll_event ev;
    int opt, rc;

    while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (opt) {
        case 'a': addr = optarg; break;
        case 'p': rc = tt_parse_u64(optarg, 1, 65535, &port); goto check;
        case 'b':
            rc = tt_parse_size(optarg, 64 << 20, &v);
            if (rc == 0 && v < 1024)
                rc = -EINVAL;
            ctx.buf_size = (uint32_t)v;
            goto check;
        case 'l': rc = tt_parse_u64(optarg, 1, 1 << 20, &backlog); goto check;
        case 'm': rc = tt_parse_u64(optarg, 64, 1 << 22, &max_fds); goto check;
        case 's': ctx.stats_file = optarg; break;
        case 'x': rc = tt_parse_u64(optarg, 0, UINT64_MAX - 1, &ctx.corrupt_at); goto check;
        case 'h': es_usage(stdout); return 0;
        default: es_usage(stderr); return 2;
        }
        continue;
check:
        if (rc != 0) {
            fprintf(stderr, "tcp-echo-server: bad value '%s' for --%s\n", optarg,
                    tt_optname(opts, opt));
            return 2;
        }
    }
    if (optind != argc || port == 0 || tt_parse_addr(addr, (uint16_t)port, &sa) != 0) {
        es_usage(stderr);
        return 2;
    }
    if (tt_raise_nofile(max_fds) != 0)
        fprintf(stderr, "tcp-echo-server: could not raise the fd limit to %llu\n",
                (unsigned long long)max_fds);

    ctx.ep = epoll_create1(EPOLL_CLOEXEC);
    ctx.signals.kind = ES_KIND_SIGNAL;
    ctx.signals.fd = tt_signal_fd();
    if (ctx.ep < 0 || ctx.signals.fd < 0) {
        perror("tcp-echo-server: epoll/signalfd");
        return 1;
    }
    ev.events = EPOLLIN;
    ev.data.ptr = &ctx.signals;
    if (epoll_ctl(ctx.ep, EPOLL_CTL_ADD, ctx.signals.fd, &ev) != 0) {
        perror("tcp-echo-server: epoll_ctl");
        return 1;
    }
    rc = es_listen(&ctx, &sa, (int)backlog);
    if (rc < 0) {
        fprintf(stderr, "tcp-echo-server: listen on %s:%llu: %s\n", addr,
                (unsigned long long)port, strerror(-rc));
        return 1;
    }
    printf("listening on %s:%llu buf=%u\n", addr, (unsigned long long)port, ctx.buf_size);
    fflush(stdout);

    es_run(&ctx);

    es_stats_report(&ctx);
    while (ctx.conns != NULL) {
        struct es_conn *c = ctx.conns;

        ctx.conns = c->next;
        close(c->fd);
        free(c->buf);
        free(c);
    }
    while (ctx.pool_len > 0)
        free(ctx.pool[--ctx.pool_len]);
    close(ctx.listener.fd);
    close(ctx.signals.fd);
    close(ctx.ep);
    return 0;
}
