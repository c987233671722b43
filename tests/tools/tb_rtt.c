/*
 * tb_rtt: request/response latency. `conns` connections are opened first;
 * then, for `duration_s`, each keeps exactly one `msg_size` request
 * outstanding: send, wait for the whole echo, record the round trip in a
 * log-bucket histogram, send the next. Requests carry the connection index
 * and a sequence number so a stale or crossed echo counts as bad. Called by
 * tcp_bench.c.
 */
#include "tb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tt_common.h"

#define TB_RTT_EVENTS 256

enum tb_rtt_state { TB_RTT_CONNECTING, TB_RTT_READY, TB_RTT_BUSY, TB_RTT_DEAD };

struct tb_rtt_conn {
    int fd;
    enum tb_rtt_state state;
    uint32_t tx_off;       /* request bytes sent */
    uint32_t rx_off;       /* echo bytes received */
    bool bad;              /* this echo differs from its request */
    uint64_t seq;
    uint64_t t_send;
};

struct tb_rtt {
    struct tb_env *env;
    const struct tb_opts *o;
    struct tb_rtt_result *r;
    struct tb_rtt_conn *c;
    uint8_t req[TB_MAX_MSG];
    uint8_t rsp[TB_MAX_MSG];
    bool measuring;
    uint64_t t_end;
};

static void tb_rtt_dead(struct tb_rtt *b, struct tb_rtt_conn *c)
{
    close(c->fd);
    c->fd = -1;
    c->state = TB_RTT_DEAD;
    b->r->failed++;
}

static void tb_rtt_fill(const struct tb_rtt *b, uint32_t idx, uint64_t seq, uint8_t *msg)
{
    uint32_t n = b->o->msg_size;

    for (uint32_t i = 0; i < n; i++)
        msg[i] = (uint8_t)(i * 31 + idx * 7 + seq * 13);
    memcpy(msg, &idx, n < sizeof(idx) ? n : sizeof(idx));
    if (n >= sizeof(idx) + sizeof(seq))
        memcpy(msg + sizeof(idx), &seq, sizeof(seq));
}

/* Sends the rest of the current request. false when the connection died. */
static bool tb_rtt_send(struct tb_rtt *b, uint32_t idx)
{
    struct tb_rtt_conn *c = &b->c[idx];

    while (c->tx_off < b->o->msg_size) {
        ssize_t n;

        tb_rtt_fill(b, idx, c->seq, b->req);
        n = send(c->fd, b->req + c->tx_off, b->o->msg_size - c->tx_off, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                return true;
            tb_rtt_dead(b, c);
            return false;
        }
        c->tx_off += (uint32_t)n;
    }
    return true;
}

static bool tb_rtt_issue(struct tb_rtt *b, uint32_t idx)
{
    struct tb_rtt_conn *c = &b->c[idx];

    c->seq++;
    c->tx_off = 0;
    c->rx_off = 0;
    c->bad = false;
    c->state = TB_RTT_BUSY;
    c->t_send = tt_now_ns();
    return tb_rtt_send(b, idx);
}

/* Edge-triggered, but no recv() just to see EAGAIN: a short read drained the
 * queue, and with one request outstanding nothing more can be queued once
 * its echo is complete; any later arrival raises a new edge. */
static void tb_rtt_recv(struct tb_rtt *b, uint32_t idx)
{
    struct tb_rtt_conn *c = &b->c[idx];
    uint32_t size = b->o->msg_size;
    uint8_t *dst = b->rsp + c->rx_off;
    ssize_t n = recv(c->fd, dst, size - c->rx_off, 0);
    uint64_t now;

    if (n <= 0) {
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        tb_rtt_dead(b, c);
        return;
    }
    /* rsp is shared by all connections: check each piece on arrival. */
    tb_rtt_fill(b, idx, c->seq, b->req);
    if (memcmp(dst, b->req + c->rx_off, (size_t)n) != 0)
        c->bad = true;
    c->rx_off += (uint32_t)n;
    if (c->rx_off < size)
        return;
    now = tt_now_ns();
    if (c->bad)
        b->r->bad++;
    if (b->measuring && now <= b->t_end) {
        tt_hist_add(&b->r->rtt_ns, now - c->t_send);
        b->r->msgs++;
    }
    c->state = TB_RTT_READY;
    if (b->measuring && now < b->t_end)
        (void)tb_rtt_issue(b, idx);
}

static void tb_rtt_event(struct tb_rtt *b, uint32_t idx, uint32_t events)
{
    struct tb_rtt_conn *c = &b->c[idx];

    if (c->state == TB_RTT_CONNECTING) {
        if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
            return;
        if (tb_connect_result(c->fd, events) != 0) {
            tb_rtt_dead(b, c);
            return;
        }
        c->state = TB_RTT_READY;
        b->r->connected++;
        if (b->measuring)
            (void)tb_rtt_issue(b, idx);
        return;
    }
    if (c->state != TB_RTT_BUSY)
        return;
    if ((events & EPOLLOUT) && !tb_rtt_send(b, idx))
        return;
    tb_rtt_recv(b, idx);
}

static int tb_rtt_loop(struct tb_rtt *b, uint64_t until, bool (*done)(const struct tb_rtt *))
{
    struct epoll_event evs[TB_RTT_EVENTS];

    while (!done(b) && !b->env->interrupted && tt_now_ns() < until) {
        int n = tb_wait(b->env, evs, TB_RTT_EVENTS, until);

        if (n < 0)
            return n;
        for (int k = 0; k < n; k++)
            tb_rtt_event(b, (uint32_t)evs[k].data.u64, evs[k].events);
    }
    return 0;
}

static bool tb_rtt_all_connected(const struct tb_rtt *b)
{
    return b->r->connected + b->r->failed >= b->r->conns;
}

static bool tb_rtt_never(const struct tb_rtt *b)
{
    (void)b;
    return false;
}

int tb_rtt_run(struct tb_env *env, const struct tb_opts *o, struct tb_rtt_result *r)
{
    struct tb_rtt *b = calloc(1, sizeof(*b));
    uint64_t t0;
    int rc;

    if (b == NULL)
        return -ENOMEM;
    memset(r, 0, sizeof(*r));
    r->conns = o->conns;
    r->msg_size = o->msg_size;
    tt_hist_init(&r->rtt_ns);
    b->env = env;
    b->o = o;
    b->r = r;
    b->c = calloc(o->conns, sizeof(*b->c));
    if (b->c == NULL) {
        free(b);
        return -ENOMEM;
    }

    /* Phase 1: connect everything (not measured). */
    t0 = tt_now_ns();
    for (uint32_t i = 0; i < o->conns; i++) {
        b->c[i].state = TB_RTT_CONNECTING;
        b->c[i].fd = tb_connect_start(env, &o->dst, i);
        if (b->c[i].fd < 0) {
            b->c[i].state = TB_RTT_DEAD;
            r->failed++;
        }
    }
    rc = tb_rtt_loop(b, t0 + (uint64_t)(o->timeout_s * 1e9), tb_rtt_all_connected);

    /* Phase 2: one request outstanding per connection for duration_s. */
    if (rc == 0 && !env->interrupted) {
        uint64_t start = tt_now_ns();

        b->measuring = true;
        b->t_end = start + (uint64_t)(o->duration_s * 1e9);
        for (uint32_t i = 0; i < o->conns; i++)
            if (b->c[i].state == TB_RTT_READY)
                (void)tb_rtt_issue(b, i);
        rc = tb_rtt_loop(b, b->t_end, tb_rtt_never);
        r->seconds = (double)(tt_now_ns() - start) / 1e9;
        r->msgs_per_s = r->seconds > 0 ? (double)r->msgs / r->seconds : 0;
    }
    for (uint32_t i = 0; i < o->conns; i++) {
        if (b->c[i].state == TB_RTT_CONNECTING)
            r->failed++;
        if (b->c[i].fd >= 0)
            close(b->c[i].fd);
    }
    free(b->c);
    free(b);
    return rc;
}
