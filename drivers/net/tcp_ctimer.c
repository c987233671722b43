/*
 * tcp_ctimer: the three timers of a connection, on the lcore's wheel.
 *
 *   rtx_timer    retransmission (RFC 6298, exponential backoff), SYN/SYN-ACK
 *                retransmission, or — while the peer's window is zero — the
 *                persist timer that sends window probes
 *   delack_timer delayed ACK (cfg.delack_ms)
 *   life_timer   what a state needs beyond that: keepalive in ESTABLISHED and
 *                CLOSE_WAIT, 2*MSL in TIME_WAIT, the orphan limit in FIN_WAIT_2
 */
#include <errno.h>

#include "ofcd_log.h"
#include "tcp_priv.h"

static uint64_t ms_to_us(uint32_t ms)
{
    return (uint64_t)ms * 1000u;
}

static uint32_t rto_backed_off(const struct tcp_conn *c)
{
    uint64_t rto = c->rto_us;
    uint64_t max = ms_to_us(c->stack->cfg.rto_max_ms);

    for (unsigned i = 0; i < c->backoff && rto < max; i++)
        rto *= 2;
    return (uint32_t)(rto < max ? rto : max);
}

void tcp_rtx_arm(struct tcp_conn *c, uint64_t now_us)
{
    c->persist = 0;
    tw_arm(&c->stack->wheel, &c->rtx_timer, now_us + rto_backed_off(c));
}

void tcp_rtx_stop(struct tcp_conn *c)
{
    tw_cancel(&c->stack->wheel, &c->rtx_timer);
    c->persist = 0;
}

void tcp_persist_arm(struct tcp_conn *c, uint64_t now_us)
{
    c->persist = 1;
    tw_arm(&c->stack->wheel, &c->rtx_timer, now_us + rto_backed_off(c));
}

void tcp_delack_arm(struct tcp_conn *c, uint64_t now_us)
{
    if (!tw_armed(&c->delack_timer))
        tw_arm(&c->stack->wheel, &c->delack_timer,
                      now_us + ms_to_us(c->stack->cfg.delack_ms));
}

void tcp_life_arm(struct tcp_conn *c, uint64_t now_us)
{
    const struct tcp_config *cfg = &c->stack->cfg;
    struct tw_wheel *w = &c->stack->wheel;

    switch (c->state) {
    case TCP_ESTABLISHED:
    case TCP_CLOSE_WAIT:
        if (cfg->keepalive_idle_s)
            tw_arm(w, &c->life_timer,
                          c->last_rcv_us + (uint64_t)cfg->keepalive_idle_s * 1000000u);
        else
            tw_cancel(w, &c->life_timer);
        break;
    case TCP_TIME_WAIT:
        tw_arm(w, &c->life_timer, now_us + ms_to_us(cfg->time_wait_ms));
        break;
    case TCP_FIN_WAIT_2:
        if (c->app_detached)
            tw_arm(w, &c->life_timer, now_us + ms_to_us(cfg->fin_wait2_ms));
        break;
    default:
        tw_cancel(w, &c->life_timer);
        break;
    }
}

void tcp_rtt_sample(struct tcp_conn *c, uint32_t rtt_us)
{
    const struct tcp_config *cfg = &c->stack->cfg;

    if (rtt_us == 0)
        rtt_us = 1;
    if (c->srtt_us == 0) {
        c->srtt_us = rtt_us;
        c->rttvar_us = rtt_us / 2;
    } else {
        uint32_t diff = c->srtt_us > rtt_us ? c->srtt_us - rtt_us : rtt_us - c->srtt_us;
        c->rttvar_us = (3 * c->rttvar_us + diff) / 4;
        c->srtt_us = (7 * c->srtt_us + rtt_us) / 8;
    }
    uint64_t var = 4ull * c->rttvar_us;
    if (var < TW_TICK_US)
        var = TW_TICK_US;          /* G, the clock granularity */
    uint64_t rto = c->srtt_us + var;
    if (rto < ms_to_us(cfg->rto_min_ms))
        rto = ms_to_us(cfg->rto_min_ms);
    if (rto > ms_to_us(cfg->rto_max_ms))
        rto = ms_to_us(cfg->rto_max_ms);
    c->rto_us = (uint32_t)rto;
}

static void abort_timed_out(struct tcp_conn *c, uint64_t now_us)
{
    struct tcp_stack *s = c->stack;

    s->stats.conns_timed_out++;
    if (c->state != TCP_SYN_SENT)
        tcp_send_ctl(c, TCP_RST | TCP_ACK, tcp_ctl_seq(c), now_us);
    tcp_conn_destroy(c, -ETIMEDOUT);
}

static void on_rtx(struct tw_timer *t, uint64_t now_us)
{
    struct tcp_conn *c = tcp_container_of(t, struct tcp_conn, rtx_timer);
    struct tcp_stack *s = c->stack;

    if (c->persist) {
        /* The peer's window is zero: probe it. Probes that get ACKs reset
         * backoff, so only a silent peer runs out of retries. */
        if (c->backoff >= s->cfg.max_retrans) {
            abort_timed_out(c, now_us);
            return;
        }
        s->stats.zero_window_probes++;
        c->backoff++;
        tcp_retransmit_una(c, now_us);
        tcp_persist_arm(c, now_us);
        return;
    }
    if (c->await_mac) {
        c->await_mac = 0;
        tcp_output(c, now_us);
        return;
    }
    if (c->state == TCP_SYN_SENT || c->state == TCP_SYN_RECEIVED) {
        if (c->backoff >= s->cfg.syn_retries) {
            abort_timed_out(c, now_us);
            return;
        }
        c->backoff++;
        s->stats.rto_expirations++;
        c->rto_expirations++;
        c->rtt_timing = 0;
        tcp_retransmit_una(c, now_us);
        tcp_rtx_arm(c, now_us);
        return;
    }
    if (c->snd_una == c->snd_max)
        return;                           /* everything acked meanwhile */
    /* Nobody reads an orphan (the app closed it): give up sooner, as Linux
     * does with tcp_orphan_retries, so dead peers do not pin TCBs. */
    uint32_t limit = s->cfg.max_retrans;
    if (c->app_detached && limit > TCP_ORPHAN_RETRIES)
        limit = TCP_ORPHAN_RETRIES;
    if (c->backoff >= limit) {
        abort_timed_out(c, now_us);
        return;
    }
    s->stats.rto_expirations++;
    c->rto_expirations++;
    /* RFC 5681 §3.1 eq. 4 and RFC 6582: loss window, leave recovery. */
    uint32_t flight = c->snd_max - c->snd_una;
    c->ssthresh = flight / 2 > 2u * c->mss ? flight / 2 : 2u * c->mss;
    c->cwnd = c->mss;
    c->in_recovery = 0;
    c->dupacks = 0;
    c->recover = c->snd_max;
    c->rtt_timing = 0;                    /* Karn: no samples from retransmissions */
    c->backoff++;
    /* Go back to the first unacknowledged byte. */
    c->snd_nxt = c->snd_una;
    tcp_output(c, now_us);
    if (!tw_armed(&c->rtx_timer))
        tcp_rtx_arm(c, now_us);
}

static void on_delack(struct tw_timer *t, uint64_t now_us)
{
    struct tcp_conn *c = tcp_container_of(t, struct tcp_conn, delack_timer);

    c->ack_now = 1;
    tcp_output(c, now_us);
}

static void on_life(struct tw_timer *t, uint64_t now_us)
{
    struct tcp_conn *c = tcp_container_of(t, struct tcp_conn, life_timer);
    struct tcp_stack *s = c->stack;
    const struct tcp_config *cfg = &s->cfg;

    switch (c->state) {
    case TCP_TIME_WAIT:
    case TCP_FIN_WAIT_2:
        tcp_conn_destroy(c, TCP_CLOSE_NORMAL);
        return;
    case TCP_ESTABLISHED:
    case TCP_CLOSE_WAIT: {
        if (!cfg->keepalive_idle_s)
            return;
        uint64_t idle_end = c->last_rcv_us + (uint64_t)cfg->keepalive_idle_s * 1000000u;
        if (now_us < idle_end) {
            c->ka_probes = 0;
            tw_arm(&s->wheel, &c->life_timer, idle_end);
            return;
        }
        if (c->ka_probes >= cfg->keepalive_probes) {
            abort_timed_out(c, now_us);
            return;
        }
        c->ka_probes++;
        s->stats.keepalive_probes++;
        /* An old sequence number makes any live peer answer with an ACK. */
        tcp_send_ctl(c, TCP_ACK, c->snd_una - 1, now_us);
        tw_arm(&s->wheel, &c->life_timer,
                      now_us + (uint64_t)cfg->keepalive_intvl_s * 1000000u);
        return;
    }
    default:
        return;
    }
}

void tcp_ctimers_init(struct tcp_conn *c)
{
    tw_timer_init(&c->rtx_timer, on_rtx);
    tw_timer_init(&c->delack_timer, on_delack);
    tw_timer_init(&c->life_timer, on_life);
}

void tcp_ctimers_cancel(struct tcp_conn *c)
{
    struct tw_wheel *w = &c->stack->wheel;

    tw_cancel(w, &c->rtx_timer);
    tw_cancel(w, &c->delack_timer);
    tw_cancel(w, &c->life_timer);
}
