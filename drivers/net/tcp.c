/*
 * tcp: the stack's public face (tcp.h) — creation, listeners, active open,
 * the send/receive/close calls of the upper layer, the per-iteration timer
 * and flush entry points, and the figures for operators.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ofcd_log.h"
#include "tcp_priv.h"

static const char *const state_names[TCP_STATE_COUNT] = {
    "CLOSED",     "LISTEN",     "SYN_SENT",   "SYN_RECEIVED", "ESTABLISHED", "FIN_WAIT_1",
    "FIN_WAIT_2", "CLOSE_WAIT", "CLOSING",    "LAST_ACK",     "TIME_WAIT",
};

const char *tcp_state_name(enum tcp_state st)
{
    return (unsigned)st < TCP_STATE_COUNT ? state_names[st] : "?";
}

void tcp_config_defaults(struct tcp_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->mss = 1460;
    cfg->rcv_buf = 65536;
    cfg->snd_buf = 65536;
    cfg->rto_min_ms = 200;
    cfg->rto_max_ms = 60000;
    cfg->rto_initial_ms = 1000;
    cfg->delack_ms = 40;
    cfg->time_wait_ms = 10000;
    cfg->max_time_wait = 4096;
    cfg->fin_wait2_ms = 60000;
    cfg->syn_backlog = 1024;
    cfg->max_conns = 16384;
    cfg->syn_retries = 5;
    cfg->max_retrans = 12;
    cfg->keepalive_idle_s = 0;
    cfg->keepalive_intvl_s = 10;
    cfg->keepalive_probes = 5;
    cfg->ooo_max_segs = 64;
    cfg->challenge_ack_per_s = 1000;
    cfg->invalid_ack_interval_ms = 500;
    cfg->syncookies = true;
    cfg->timestamps = true;
    cfg->window_scaling = true;
}

static int check_config(const struct tcp_config *c)
{
    const char *bad = NULL;

    if (c->mss < 88 || c->mss > 9000)
        bad = "mss must be in 88..9000";
    else if (c->rcv_buf < 2u * c->mss || c->rcv_buf > (1u << 30))
        bad = "rcv_buf must be in 2*mss..1 GiB";
    else if (c->snd_buf < c->mss || c->snd_buf > (1u << 30))
        bad = "snd_buf must be in mss..1 GiB";
    else if (c->rto_min_ms == 0 || c->rto_min_ms > c->rto_max_ms ||
             c->rto_initial_ms < c->rto_min_ms || c->rto_initial_ms > c->rto_max_ms)
        bad = "need 0 < rto_min_ms <= rto_initial_ms <= rto_max_ms";
    else if (c->delack_ms == 0 || c->delack_ms > 500)
        bad = "delack_ms must be in 1..500";
    else if (c->max_conns == 0 || c->max_conns > (1u << 24))
        bad = "max_conns must be in 1..16777216";
    else if (c->syn_backlog == 0)
        bad = "syn_backlog must be at least 1";
    else if (c->max_retrans == 0 || c->max_retrans > 255 || c->syn_retries > 255)
        bad = "max_retrans must be in 1..255, syn_retries at most 255";
    else if (c->keepalive_idle_s && (c->keepalive_intvl_s == 0 || c->keepalive_probes == 0 ||
                                     c->keepalive_probes > 255))
        bad = "keepalive needs keepalive_intvl_s >= 1 and keepalive_probes in 1..255";
    else if (c->ooo_max_segs > 4096)
        bad = "ooo_max_segs must be at most 4096";
    else if (c->time_wait_ms == 0)
        bad = "time_wait_ms must be at least 1";
    if (bad) {
        LOG_ERR("tcp", "bad TCP configuration: %s", bad);
        return -EINVAL;
    }
    return 0;
}

struct tcp_stack *tcp_stack_create(const struct tcp_config *cfg, const struct tcp_env *env,
                                   uint32_t ip, const uint8_t mac[6], const uint8_t secret[16],
                                   uint64_t now_us)
{
    if (check_config(cfg) < 0)
        return NULL;
    if (!env->frame_alloc || !env->frame_send || !env->chunk_alloc || !env->chunk_free) {
        LOG_ERR("tcp", "TCP environment is missing a frame or chunk function");
        return NULL;
    }
    struct tcp_stack *s = calloc(1, sizeof(*s));
    if (!s)
        goto oom;
    s->cfg = *cfg;
    s->env = *env;
    s->ip = ip;
    memcpy(s->mac, mac, 6);
    memcpy(s->secret, secret, 16);
    s->now_us = now_us;
    s->max_rcv_wnd = cfg->rcv_buf;
    while (s->rcv_wscale < TCP_MAX_WSCALE && (65535u << s->rcv_wscale) < cfg->rcv_buf)
        s->rcv_wscale++;
    tw_wheel_init(&s->wheel, now_us);

    s->pool = calloc(cfg->max_conns, sizeof(*s->pool));
    uint32_t nb = 1;
    while (nb < 2u * cfg->max_conns)
        nb <<= 1;
    s->buckets = calloc(nb, sizeof(*s->buckets));
    if (!s->pool || !s->buckets)
        goto oom;
    s->bucket_mask = nb - 1;
    for (uint32_t i = cfg->max_conns; i-- > 0;) {
        s->pool[i].list_next = s->free_list;
        s->free_list = &s->pool[i];
    }
    /* Spread ephemeral ports over restarts. */
    s->next_port = (uint16_t)(TCP_EPHEMERAL_MIN +
                              tcp_siphash(secret, &now_us, sizeof(now_us)) %
                                  (TCP_EPHEMERAL_MAX - TCP_EPHEMERAL_MIN + 1));
    s->ip_id = (uint16_t)now_us;
    return s;
oom:
    LOG_ERR("tcp", "out of memory for a stack of %u connections", cfg->max_conns);
    if (s) {
        free(s->pool);
        free(s->buckets);
        free(s);
    }
    return NULL;
}

void tcp_stack_destroy(struct tcp_stack *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->cfg.max_conns; i++) {
        struct tcp_conn *c = &s->pool[i];
        if (!c->in_use || c->dead)
            continue;
        c->app_detached = 1;
        tcp_conn_destroy(c, TCP_CLOSE_NORMAL);
    }
    tcp_reap(s);
    free(s->pool);
    free(s->buckets);
    free(s);
}

void tcp_stack_force_next_iss(struct tcp_stack *s, uint32_t iss)
{
    s->force_iss = true;
    s->forced_iss = iss;
}

int tcp_listen(struct tcp_stack *s, uint16_t port, uint32_t backlog,
               const struct tcp_conn_ops *ops, void *user)
{
    if (port == 0 || !ops)
        return -EINVAL;
    if (tcp_listener_find(s, port))
        return -EADDRINUSE;
    struct tcp_listener *l = tcp_listener_find(s, 0);
    if (!l)
        return -ENOMEM;
    l->port = port;
    l->backlog = backlog ? backlog : s->cfg.syn_backlog;
    l->half_open = 0;
    l->ops = ops;
    l->user = user;
    return 0;
}

int tcp_unlisten(struct tcp_stack *s, uint16_t port)
{
    struct tcp_listener *l = port ? tcp_listener_find(s, port) : NULL;

    if (!l)
        return -ENOENT;
    /* Half-open connections of this listener can no longer be accepted. */
    for (uint32_t i = 0; i < s->cfg.max_conns; i++) {
        struct tcp_conn *c = &s->pool[i];
        if (c->in_use && !c->dead && c->passive && c->state == TCP_SYN_RECEIVED &&
            c->lport == port)
            tcp_conn_destroy(c, TCP_CLOSE_NORMAL);
    }
    memset(l, 0, sizeof(*l));
    tcp_reap(s);
    return 0;
}

int tcp_connect(struct tcp_stack *s, uint32_t ip, uint16_t port, const struct tcp_conn_ops *ops,
                void *user, uint64_t now_us, struct tcp_conn **out)
{
    uint16_t lport = 0;

    if (port == 0 || ip == 0 || !ops)
        return -EINVAL;
    s->now_us = now_us;
    for (uint32_t tries = 0; tries <= TCP_EPHEMERAL_MAX - TCP_EPHEMERAL_MIN; tries++) {
        uint16_t p = s->next_port;
        s->next_port = p >= TCP_EPHEMERAL_MAX ? TCP_EPHEMERAL_MIN : (uint16_t)(p + 1);
        if (!tcp_conn_lookup(s, ip, port, p) && !tcp_listener_find(s, p)) {
            lport = p;
            break;
        }
    }
    if (!lport)
        return -EADDRINUSE;
    struct tcp_conn *c = tcp_conn_alloc(s);
    if (!c)
        return -ENOMEM;
    c->rip = ip;
    c->rport = port;
    c->lport = lport;
    c->ops = ops;
    c->user = user;
    c->app_known = 1;
    c->rto_us = s->cfg.rto_initial_ms * 1000u;
    c->ssthresh = UINT32_MAX / 2;
    c->mss = TCP_DEFAULT_MSS_V4;
    c->cwnd = 4u * c->mss;
    c->rcv_wscale = s->cfg.window_scaling ? s->rcv_wscale : 0;
    c->ts_offset = (uint32_t)tcp_siphash(s->secret, &c->lport, sizeof(c->lport)) ^ ip;
    c->iss = tcp_isn(s, ip, port, lport, now_us);
    c->snd_una = c->iss;
    c->snd_nxt = c->iss + 1;
    c->snd_max = c->iss + 1;
    c->recover = c->iss;
    c->rtt_start_us = now_us;
    c->last_rcv_us = now_us;
    c->ts_recent_us = now_us;
    tcp_conn_hash_insert(s, c);
    tcp_set_state(c, TCP_SYN_SENT);
    c->syn_needed = 1;
    tcp_want_output(c);
    *out = c;
    return 0;
}

void tcp_conn_set_user(struct tcp_conn *c, void *user)
{
    c->user = user;
}

void *tcp_conn_user(const struct tcp_conn *c)
{
    return c->user;
}

enum tcp_state tcp_conn_state(const struct tcp_conn *c)
{
    return (enum tcp_state)c->state;
}

size_t tcp_send_space(const struct tcp_conn *c)
{
    uint32_t buf = c->stack->cfg.snd_buf;
    return buf > c->sndq.len ? buf - c->sndq.len : 0;
}

ssize_t tcp_send(struct tcp_conn *c, const void *data, size_t len)
{
    if (c->dead || c->app_detached)
        return -EPIPE;
    if (c->state == TCP_SYN_SENT || c->state == TCP_SYN_RECEIVED)
        return -ENOTCONN;
    if (c->fin_queued || (c->state != TCP_ESTABLISHED && c->state != TCP_CLOSE_WAIT))
        return -EPIPE;
    uint32_t want = len > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)len;
    uint32_t n = tcp_bufq_append(c->stack, &c->sndq, data, want, c->stack->cfg.snd_buf);
    if (n < len)
        c->app_wants_write = 1;
    if (n > 0)
        tcp_want_output(c);
    return n;
}

size_t tcp_recv_peek(const struct tcp_conn *c, struct tcp_iovec *iov, unsigned *iovcnt)
{
    return tcp_bufq_peek(&c->rcvq, iov, iovcnt);
}

size_t tcp_recv_available(const struct tcp_conn *c)
{
    return c->rcvq.len;
}

bool tcp_recv_eof(const struct tcp_conn *c)
{
    return c->fin_rcvd && c->rcvq.len == 0;
}

bool tcp_recv_fin(const struct tcp_conn *c)
{
    return c->fin_rcvd;
}

void tcp_recv_consume(struct tcp_conn *c, size_t n)
{
    struct tcp_stack *s = c->stack;
    uint32_t before = tcp_rcv_window(c);

    tcp_bufq_consume(s, &c->rcvq, n > c->rcvq.len ? c->rcvq.len : (uint32_t)n);
    if (c->dead || c->fin_rcvd)
        return;
    /* Window update when the opening is worth a segment (RFC 9293 §3.8.6.2.2)
     * or the window was closed. */
    uint32_t after = tcp_rcv_window(c);
    uint32_t adv = seq_gt(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0;
    if (after > adv && (adv == 0 || before == 0 || after - adv >= 2u * c->mss ||
                        after - adv >= s->cfg.rcv_buf / 2)) {
        c->ack_now = 1;
        tcp_want_output(c);
    }
}

size_t tcp_recv_copy(const struct tcp_conn *c, void *buf, size_t len)
{
    size_t n = c->rcvq.len < len ? c->rcvq.len : len;

    tcp_bufq_copy(&c->rcvq, 0, buf, (uint32_t)n);
    return n;
}

size_t tcp_recv(struct tcp_conn *c, void *buf, size_t len)
{
    size_t n = c->rcvq.len < len ? c->rcvq.len : len;

    tcp_bufq_copy(&c->rcvq, 0, buf, (uint32_t)n);
    tcp_recv_consume(c, n);
    return n;
}

int tcp_shutdown(struct tcp_conn *c)
{
    if (c->dead)
        return -ENOTCONN;
    switch (c->state) {
    case TCP_ESTABLISHED:
        tcp_set_state(c, TCP_FIN_WAIT_1);
        break;
    case TCP_CLOSE_WAIT:
        tcp_set_state(c, TCP_LAST_ACK);
        break;
    case TCP_FIN_WAIT_1:
    case TCP_FIN_WAIT_2:
    case TCP_CLOSING:
    case TCP_LAST_ACK:
    case TCP_TIME_WAIT:
        return 0;
    default:
        return -ENOTCONN;
    }
    c->fin_queued = 1;
    tcp_want_output(c);
    return 0;
}

void tcp_abort(struct tcp_conn *c)
{
    if (c->dead)
        return;
    c->app_detached = 1;
    c->events = 0;
    switch (c->state) {
    case TCP_SYN_RECEIVED:
    case TCP_ESTABLISHED:
    case TCP_FIN_WAIT_1:
    case TCP_FIN_WAIT_2:
    case TCP_CLOSE_WAIT:
    case TCP_CLOSING:
    case TCP_LAST_ACK:
        tcp_send_ctl(c, TCP_RST | TCP_ACK, tcp_ctl_seq(c), c->stack->now_us);
        break;
    default:
        break;
    }
    tcp_conn_destroy(c, TCP_CLOSE_NORMAL);
}

void tcp_close(struct tcp_conn *c)
{
    if (c->dead)
        return;
    c->app_detached = 1;
    c->events = 0;
    switch (c->state) {
    case TCP_SYN_SENT:
        tcp_conn_destroy(c, TCP_CLOSE_NORMAL);
        return;
    case TCP_SYN_RECEIVED:
        tcp_abort(c);
        return;
    case TCP_ESTABLISHED:
    case TCP_CLOSE_WAIT:
        if (c->rcvq.len > 0) {
            /* Unread data would be lost silently: tell the peer (RFC 1122 §4.2.2.13). */
            c->stack->stats.conns_reset++;
            tcp_abort(c);
            return;
        }
        tcp_shutdown(c);
        return;
    case TCP_FIN_WAIT_2:
        tcp_life_arm(c, c->stack->now_us);   /* orphaned: bounded wait for their FIN */
        return;
    default:
        return;
    }
}

void tcp_stack_run_timers(struct tcp_stack *s, uint64_t now_us)
{
    s->now_us = now_us;
    tw_wheel_run(&s->wheel, now_us);
    tcp_reap(s);
}

void tcp_stack_flush(struct tcp_stack *s, uint64_t now_us)
{
    s->now_us = now_us;
    while (s->flush_head) {
        struct tcp_conn *c = s->flush_head;
        tcp_flush_unlink(c);
        tcp_output(c, now_us);
    }
    tcp_reap(s);
}

void tcp_conn_get_info(const struct tcp_conn *c, struct tcp_conn_info *out)
{
    memset(out, 0, sizeof(*out));
    out->state = (enum tcp_state)c->state;
    out->local_ip = c->stack->ip;
    out->remote_ip = c->rip;
    out->local_port = c->lport;
    out->remote_port = c->rport;
    out->srtt_us = c->srtt_us;
    out->rttvar_us = c->rttvar_us;
    out->rto_us = c->rto_us;
    out->cwnd = c->cwnd;
    out->ssthresh = c->ssthresh;
    out->snd_wnd = c->snd_wnd;
    out->rcv_wnd = seq_gt(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0;
    out->mss = c->mss;
    out->snd_wscale = c->snd_wscale;
    out->rcv_wscale = c->rcv_wscale;
    out->timestamps = c->ts_ok;
    out->bytes_in = c->bytes_in;
    out->bytes_out = c->bytes_out;
    out->segs_in = c->segs_in;
    out->segs_out = c->segs_out;
    out->retransmits = c->retransmits;
    out->fast_retransmits = c->fast_retransmits;
    out->rto_expirations = c->rto_expirations;
    out->snd_queued = c->sndq.len;
    out->rcv_queued = c->rcvq.len;
    out->ooo_segs = c->ooo_count;
    out->chunks = c->sndq.nchunks + c->rcvq.nchunks + c->ooo_count;
    out->snd_una = c->snd_una;
    out->snd_nxt = c->snd_nxt;
    out->snd_max = c->snd_max;
    out->rcv_nxt = c->rcv_nxt;
    out->rcv_adv = c->rcv_adv;
    out->backoff = c->backoff;
    out->dupacks = c->dupacks;
    out->rtx_armed = tw_armed(&c->rtx_timer);
    out->persist = c->persist;
    out->in_recovery = c->in_recovery;
    out->fin_sent = c->fin_sent;
    out->fin_rcvd = c->fin_rcvd;
    out->app_closed = c->app_detached;
    out->wants_write = c->app_wants_write;
}

const struct tcp_stats *tcp_stack_get_stats(const struct tcp_stack *s)
{
    return &s->stats;
}

void tcp_stack_state_counts(const struct tcp_stack *s, struct tcp_state_counts *out)
{
    uint64_t *v = (uint64_t *)(void *)out;

    for (unsigned st = 0; st < TCP_STATE_COUNT; st++)
        v[st] = s->state_counts[st];
}

uint32_t tcp_stack_conn_count(const struct tcp_stack *s)
{
    return (uint32_t)s->stats.connections;
}

size_t tcp_conn_idle_bytes(void)
{
    /* The TCB, plus the hash table's two bucket pointers per pool slot. */
    return sizeof(struct tcp_conn) + 2 * sizeof(struct tcp_conn *);
}

OFCD_COUNTER_GROUP(tcp_counters, "tcp", struct tcp_stats, TCP_STATS_FIELDS, TCP_STATS_GAUGES);
OFCD_COUNTER_GROUP(tcp_state_counters, "tcp_state", struct tcp_state_counts, OFCD_NO_COUNTERS,
                   TCP_STATE_GAUGES);
_Static_assert(sizeof(struct tcp_state_counts) == TCP_STATE_COUNT * sizeof(uint64_t),
               "one gauge per TCP state");

void tcp_stack_foreach_conn(const struct tcp_stack *s,
                            void (*fn)(const struct tcp_conn *c, void *arg), void *arg)
{
    for (uint32_t i = 0; i < s->cfg.max_conns; i++) {
        const struct tcp_conn *c = &s->pool[i];
        if (c->in_use && !c->dead)
            fn(c, arg);
    }
}
