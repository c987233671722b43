/*
 * tb_tput: echo throughput. `conns` connections open at once; each sends
 * `bytes` while reading the echo, half-closes, and finishes on the service's
 * FIN after every byte came back. The figure is (sent + received) / wall
 * time from the first connect to the last FIN. Payload is a fixed pattern
 * unless --verify, which sends and checks each connection's tt_stream (and
 * costs client CPU). Called by tcp_bench.c.
 */
#include "tb.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tt_common.h"
#include "tt_stream.h"

#define TB_TPUT_CHUNK (64u << 10)
#define TB_TPUT_EVENTS 256

enum tb_tput_state { TB_TPUT_CONNECTING, TB_TPUT_OPEN, TB_TPUT_OVER };

struct tb_tput_conn {
    int fd;
    enum tb_tput_state state;
    bool wr_shut;
    uint64_t sent;
    uint64_t rcvd;
};

struct tb_tput {
    const struct tb_opts *o;
    struct tb_tput_result *r;
    struct tb_tput_conn *c;
    uint8_t *pattern;
    uint8_t *txbuf;
    uint8_t *rxbuf;
    uint8_t *scratch;
    uint32_t over;
};

static void tb_tput_end(struct tb_tput *b, struct tb_tput_conn *c, bool ok)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->state = TB_TPUT_OVER;
    b->over++;
    if (ok)
        b->r->ok++;
    else
        b->r->failed++;
}

/* false when the connection ended. */
static bool tb_tput_send(struct tb_tput *b, struct tb_tput_conn *c, uint32_t idx, bool *moved)
{
    uint64_t left = b->o->bytes - c->sent;
    size_t len = left < TB_TPUT_CHUNK ? (size_t)left : TB_TPUT_CHUNK;
    const uint8_t *p = b->pattern;
    ssize_t n;

    if (left == 0) {
        if (!c->wr_shut) {
            if (shutdown(c->fd, SHUT_WR) != 0) {
                tb_tput_end(b, c, false);
                return false;
            }
            c->wr_shut = true;
        }
        return true;
    }
    if (b->o->verify) {
        struct tt_stream s;

        tt_stream_init(&s, b->o->seed, idx);
        tt_stream_fill(&s, c->sent, b->txbuf, len);
        p = b->txbuf;
    }
    n = send(c->fd, p, len, MSG_NOSIGNAL);
    if (n > 0) {
        c->sent += (uint64_t)n;
        b->r->sent += (uint64_t)n;
        *moved = true;
    } else if (errno != EAGAIN && errno != EINTR) {
        tb_tput_end(b, c, false);
        return false;
    }
    return true;
}

static bool tb_tput_recv(struct tb_tput *b, struct tb_tput_conn *c, uint32_t idx, bool *moved)
{
    ssize_t n = recv(c->fd, b->rxbuf, TB_TPUT_CHUNK, 0);

    if (n > 0) {
        if (c->rcvd + (uint64_t)n > c->sent) {
            tb_tput_end(b, c, false);
            return false;
        }
        if (b->o->verify) {
            struct tt_stream s;

            tt_stream_init(&s, b->o->seed, idx);
            if (tt_stream_check(&s, c->rcvd, b->rxbuf, (size_t)n, b->scratch) != (size_t)n) {
                tb_tput_end(b, c, false);
                return false;
            }
        }
        c->rcvd += (uint64_t)n;
        b->r->rcvd += (uint64_t)n;
        *moved = true;
        return true;
    }
    if (n == 0) {
        tb_tput_end(b, c, c->wr_shut && c->rcvd == b->o->bytes);
        return false;
    }
    if (errno != EAGAIN && errno != EINTR) {
        tb_tput_end(b, c, false);
        return false;
    }
    return true;
}

static void tb_tput_event(struct tb_tput *b, uint32_t idx, uint32_t events)
{
    struct tb_tput_conn *c = &b->c[idx];

    if (c->state == TB_TPUT_CONNECTING) {
        if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
            return;
        if (tb_connect_result(c->fd, events) != 0) {
            tb_tput_end(b, c, false);
            return;
        }
        c->state = TB_TPUT_OPEN;
    }
    if (c->state != TB_TPUT_OPEN)
        return;
    for (;;) {
        bool moved = false;

        if (!tb_tput_send(b, c, idx, &moved) || !tb_tput_recv(b, c, idx, &moved))
            return;
        if (!moved)
            return;
    }
}

static void tb_tput_free(struct tb_tput *b)
{
    free(b->c);
    free(b->pattern);
    free(b->txbuf);
    free(b->rxbuf);
    free(b->scratch);
}

int tb_tput_run(struct tb_env *env, const struct tb_opts *o, struct tb_tput_result *r)
{
    struct epoll_event evs[TB_TPUT_EVENTS];
    struct tb_tput b = { .o = o, .r = r };
    struct tt_stream s;
    uint64_t t0, deadline;

    r->conns = o->conns;
    r->bytes_each = o->bytes;
    r->verified = o->verify;
    r->ok = r->failed = 0;
    r->sent = r->rcvd = 0;
    b.c = calloc(o->conns, sizeof(*b.c));
    b.pattern = malloc(TB_TPUT_CHUNK);
    b.txbuf = malloc(TB_TPUT_CHUNK);
    b.rxbuf = malloc(TB_TPUT_CHUNK);
    b.scratch = malloc(TB_TPUT_CHUNK);
    if (b.c == NULL || b.pattern == NULL || b.txbuf == NULL || b.rxbuf == NULL ||
        b.scratch == NULL) {
        tb_tput_free(&b);
        return -ENOMEM;
    }
    /* Random-looking payload even unverified, in case a path compresses. */
    tt_stream_init(&s, o->seed, UINT32_MAX);
    tt_stream_fill(&s, 0, b.pattern, TB_TPUT_CHUNK);

    t0 = tt_now_ns();
    deadline = t0 + (uint64_t)(o->timeout_s * 1e9);
    for (uint32_t i = 0; i < o->conns; i++) {
        b.c[i].fd = tb_connect_start(env, &o->dst, i);
        b.c[i].state = TB_TPUT_CONNECTING;
        if (b.c[i].fd < 0)
            tb_tput_end(&b, &b.c[i], false);
    }
    while (b.over < o->conns && !env->interrupted && tt_now_ns() < deadline) {
        int n = tb_wait(env, evs, TB_TPUT_EVENTS, deadline);

        if (n < 0) {
            tb_tput_free(&b);
            return n;
        }
        for (int k = 0; k < n; k++)
            tb_tput_event(&b, (uint32_t)evs[k].data.u64, evs[k].events);
    }
    r->seconds = (double)(tt_now_ns() - t0) / 1e9;
    r->mb_per_s = r->seconds > 0 ? (double)(r->sent + r->rcvd) / r->seconds / 1e6 : 0;
    for (uint32_t i = 0; i < o->conns; i++)
        if (b.c[i].state != TB_TPUT_OVER)
            tb_tput_end(&b, &b.c[i], false);
    tb_tput_free(&b);
    return 0;
}
