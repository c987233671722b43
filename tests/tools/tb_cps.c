/*
 * tb_cps: connections per second. Keeps `parallel` connections in flight;
 * each connects, half-closes at once, waits for the echo service's FIN
 * (it closes after our FIN) and closes, so one cycle is a full accept +
 * graceful close on the server. Called by tcp_bench.c.
 *
 * The client closes first and keeps the TIME_WAIT, as in any client: the
 * ephemeral port range (28k by default) bounds --conns per minute per target.
 */
#include "tb.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tt_common.h"

#define TB_CPS_EVENTS 256

enum tb_cps_state { TB_CPS_FREE, TB_CPS_CONNECTING, TB_CPS_WAIT_FIN };

struct tb_cps_slot {
    int fd;
    enum tb_cps_state state;
    uint64_t t0;
};

struct tb_cps {
    struct tb_env *env;
    const struct tb_opts *o;
    struct tb_cps_result *r;
    struct tb_cps_slot *slots;
    uint32_t started;
};

static void tb_cps_start(struct tb_cps *b, uint32_t i)
{
    struct tb_cps_slot *s = &b->slots[i];

    while (b->started < b->r->conns) {
        b->started++;
        s->t0 = tt_now_ns();
        s->fd = tb_connect_start(b->env, &b->o->dst, i);
        if (s->fd >= 0) {
            s->state = TB_CPS_CONNECTING;
            return;
        }
        b->r->failed++;
    }
    s->state = TB_CPS_FREE;
}

static void tb_cps_end(struct tb_cps *b, uint32_t i, bool ok)
{
    struct tb_cps_slot *s = &b->slots[i];

    close(s->fd);
    s->fd = -1;
    if (ok) {
        b->r->ok++;
        tt_hist_add(&b->r->cycle_ns, tt_now_ns() - s->t0);
    } else {
        b->r->failed++;
    }
    tb_cps_start(b, i);
}

static void tb_cps_event(struct tb_cps *b, uint32_t i, uint32_t events)
{
    struct tb_cps_slot *s = &b->slots[i];
    char byte;
    ssize_t n;

    if (s->state == TB_CPS_CONNECTING) {
        if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
            return;
        if (tb_connect_result(s->fd, events) != 0 || shutdown(s->fd, SHUT_WR) != 0) {
            tb_cps_end(b, i, false);
            return;
        }
        tt_hist_add(&b->r->connect_ns, tt_now_ns() - s->t0);
        s->state = TB_CPS_WAIT_FIN;
    }
    if (s->state != TB_CPS_WAIT_FIN)
        return;
    /* Edge-triggered: drain to EOF or EAGAIN; an echo service sends nothing
     * back here, bytes would only be discarded. */
    while ((n = recv(s->fd, &byte, sizeof(byte), 0)) > 0)
        ;
    if (n == 0)
        tb_cps_end(b, i, true);
    else if (errno != EAGAIN && errno != EINTR)
        tb_cps_end(b, i, false);
}

int tb_cps_run(struct tb_env *env, const struct tb_opts *o, struct tb_cps_result *r)
{
    struct epoll_event evs[TB_CPS_EVENTS];
    struct tb_cps b = { .env = env, .o = o, .r = r };
    uint32_t par;
    uint64_t t0, deadline;

    r->conns = o->conns;
    r->ok = r->failed = 0;
    tt_hist_init(&r->connect_ns);
    tt_hist_init(&r->cycle_ns);
    par = o->parallel < o->conns ? o->parallel : o->conns;
    b.slots = calloc(par, sizeof(*b.slots));
    if (b.slots == NULL)
        return -ENOMEM;

    t0 = tt_now_ns();
    deadline = t0 + (uint64_t)(o->timeout_s * 1e9);
    for (uint32_t i = 0; i < par; i++)
        tb_cps_start(&b, i);
    while (r->ok + r->failed < r->conns && !env->interrupted && tt_now_ns() < deadline) {
        int n = tb_wait(env, evs, TB_CPS_EVENTS, deadline);

        if (n < 0) {
            free(b.slots);
            return n;
        }
        for (int k = 0; k < n; k++)
            tb_cps_event(&b, (uint32_t)evs[k].data.u64, evs[k].events);
    }
    r->seconds = (double)(tt_now_ns() - t0) / 1e9;
    r->per_s = r->seconds > 0 ? r->ok / r->seconds : 0;
    /* Whatever is unfinished at the deadline counts as failed. */
    for (uint32_t i = 0; i < par; i++) {
        if (b.slots[i].state != TB_CPS_FREE) {
            close(b.slots[i].fd);
            r->failed++;
        }
    }
    r->failed += r->conns - b.started;
    free(b.slots);
    return 0;
}
