/*
 * tcp_in: segment arrival, in the order of RFC 9293 §3.10.7 — header and
 * checksum checks, demultiplexing (connection, TIME_WAIT reuse, listener,
 * SYN cookies, RST for nobody), then per state: SYN_SENT handling, and for
 * synchronized states PAWS → sequence acceptability → RST (RFC 5961 §3) →
 * SYN (RFC 5961 §4) → ACK (RFC 5961 §5, NewReno RFC 6582, RTT RFC 6298) →
 * data (in order, or into the bounded out-of-order queue) → FIN.
 *
 * Output decided here (ACKs, SYN-ACKs, data freed by the window) is only
 * marked (tcp_want_output) and leaves at tcp_stack_flush; the exceptions are
 * stateless replies — RSTs to nobody and cookie SYN-ACKs — which go at once.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "net_cksum.h"
#include "ofcd_log.h"
#include "tcp_priv.h"

/* 2^31 ms: a ts_recent older than ~24 days is invalid (RFC 7323 §5.5). */
#define TS_RECENT_MAX_AGE_US (24ULL * 24 * 3600 * 1000000)
/* Cookie ACKs are only considered while cookies were sent recently. */
#define COOKIE_ACCEPT_US (2ULL * 64 * 1000000)

struct tcp_seg {
    const uint8_t *frame;
    uint32_t rip;
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint8_t flags;
    uint16_t wnd;                 /* raw, unscaled */
    const uint8_t *data;
    uint32_t len;
    struct tcp_opts opts;
};

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void tcp_ack_sent(struct tcp_conn *c)
{
    c->ack_now = 0;
    c->delack_count = 0;
    tw_cancel(&c->stack->wheel, &c->delack_timer);
}

void tcp_events_deliver(struct tcp_conn *c)
{
    while (!c->dead && !c->app_detached && (c->events & ~TCP_EV_CLOSED)) {
        const struct tcp_conn_ops *ops = c->ops;
        if (c->events & TCP_EV_ESTABLISHED) {
            c->events &= (uint8_t)~TCP_EV_ESTABLISHED;
            c->app_known = 1;
            if (ops && ops->on_established)
                ops->on_established(c, c->user);
        } else if (c->events & TCP_EV_READABLE) {
            c->events &= (uint8_t)~TCP_EV_READABLE;
            if (ops && ops->on_readable)
                ops->on_readable(c, c->user);
        } else if (c->events & TCP_EV_WRITABLE) {
            c->events &= (uint8_t)~TCP_EV_WRITABLE;
            c->app_wants_write = 0;
            if (ops && ops->on_writable)
                ops->on_writable(c, c->user);
        }
    }
}

/* One ACK per invalid_ack_interval_ms per connection in answer to invalid
 * segments (out of window, PAWS, unsent data acked, challenges): a peer or
 * a spoofer cannot make us answer each one, two stacks cannot ACK each
 * other's ACKs forever, and an attacker's own connection cannot drain the
 * stack's challenge budget to count what is left of it. */
static bool invalid_ack_allowed(struct tcp_conn *c, uint64_t now_us)
{
    uint32_t iv = c->stack->cfg.invalid_ack_interval_ms;
    uint32_t now_ms = (uint32_t)(now_us / 1000u);

    if (iv && c->invalid_ack_ms && now_ms - c->invalid_ack_ms < iv) {
        c->stack->stats.invalid_ack_limited++;
        return false;
    }
    c->invalid_ack_ms = now_ms ? now_ms : 1;
    return true;
}

static void invalid_ack(struct tcp_conn *c, uint64_t now_us)
{
    if (!invalid_ack_allowed(c, now_us))
        return;
    c->ack_now = 1;
    tcp_want_output(c);
}

/* The stack's challenge ACKs of the second: a budget drawn each second in
 * [base/2, base/2 + base) from the keyed hash (RFC 5961 section 7), so the
 * count of those sent is no side channel on other connections' sequence
 * numbers (CVE-2016-5696). */
static bool challenge_ack_allowed(struct tcp_stack *s, uint64_t now_us)
{
    uint32_t base = s->cfg.challenge_ack_per_s;

    if (!s->chal_window_us || now_us - s->chal_window_us >= 1000000u) {
        s->chal_window_us = now_us ? now_us : 1;
        s->chal_left = base ? (base + 1) / 2 + tcp_random(s) % base : 0;
    }
    if (!s->chal_left) {
        s->stats.challenge_ack_limited++;
        return false;
    }
    s->chal_left--;
    return true;
}

static void challenge_ack(struct tcp_conn *c, uint64_t now_us)
{
    if (!invalid_ack_allowed(c, now_us) || !challenge_ack_allowed(c->stack, now_us))
        return;
    c->stack->stats.challenge_acks++;
    c->ack_now = 1;
    tcp_want_output(c);
}

static void negotiate_options(struct tcp_conn *c, const struct tcp_opts *o, bool we_offered)
{
    const struct tcp_config *cfg = &c->stack->cfg;
    uint16_t peer_mss = o->mss_ok ? o->mss : TCP_DEFAULT_MSS_V4;

    c->mss = peer_mss < cfg->mss ? peer_mss : cfg->mss;
    if (c->mss < 64)
        c->mss = 64;              /* a peer's MSS of 0..63 would stall us */
    c->ws_ok = cfg->window_scaling && o->ws_ok && we_offered;
    c->snd_wscale = c->ws_ok ? o->wscale : 0;
    c->rcv_wscale = c->ws_ok ? c->stack->rcv_wscale : 0;
    c->ts_ok = cfg->timestamps && o->ts_ok && we_offered;
    if (o->ts_ok)
        c->ts_recent = o->tsval;
    uint32_t iw = 4u * c->mss;
    if (iw < 14600u)
        iw = 14600u;
    if (iw > 10u * c->mss)
        iw = 10u * c->mss;
    c->cwnd = iw;                 /* RFC 6928 */
}

static uint32_t ts_offset_for(struct tcp_stack *s, uint32_t rip, uint16_t rport, uint16_t lport)
{
    struct {
        uint32_t rip;
        uint16_t rport, lport;
        uint32_t tag;
    } in = {rip, rport, lport, 0x7473};
    return (uint32_t)tcp_siphash(s->secret, &in, sizeof(in));
}

/* A fresh TCB for a passive open, in SYN_RECEIVED or (cookie) ESTABLISHED. */
static struct tcp_conn *passive_conn(struct tcp_stack *s, struct tcp_listener *l,
                                     const struct tcp_seg *seg, uint64_t now_us)
{
    struct tcp_conn *c = tcp_conn_alloc(s);

    if (!c)
        return NULL;
    c->rip = seg->rip;
    c->rport = seg->sport;
    c->lport = seg->dport;
    memcpy(c->peer_mac, seg->frame + 6, 6);
    c->passive = 1;
    c->listener_idx = (uint16_t)(l - s->listeners);
    c->ops = l->ops;
    c->user = l->user;
    c->rto_us = s->cfg.rto_initial_ms * 1000u;
    c->ssthresh = UINT32_MAX / 2;
    c->ts_offset = ts_offset_for(s, seg->rip, seg->sport, seg->dport);
    c->ts_recent_us = now_us;
    c->last_rcv_us = now_us;
    c->rtt_start_us = now_us;
    tcp_conn_hash_insert(s, c);
    return c;
}

static void listen_syn(struct tcp_stack *s, struct tcp_listener *l, const struct tcp_seg *seg,
                       uint64_t now_us)
{
    if (l->half_open >= l->backlog || !s->free_list) {
        if (s->cfg.syncookies) {
            tcp_send_cookie_synack(s, seg->frame + 6, seg->rip, seg->sport, seg->dport,
                                   seg->seq, &seg->opts, now_us);
            s->cookie_last_us = now_us ? now_us : 1;
        } else if (l->half_open >= l->backlog) {
            s->stats.drop_listen_overflow++;
        } else {
            s->stats.drop_no_tcb++;
        }
        return;
    }
    struct tcp_conn *c = passive_conn(s, l, seg, now_us);
    if (!c) {
        s->stats.drop_no_tcb++;
        return;
    }
    negotiate_options(c, &seg->opts, s->cfg.window_scaling || s->cfg.timestamps);
    c->irs = seg->seq;
    c->rcv_nxt = seg->seq + 1;
    c->iss = tcp_isn(s, seg->rip, seg->sport, seg->dport, now_us);
    c->snd_una = c->iss;
    c->snd_nxt = c->iss + 1;
    c->snd_max = c->iss + 1;
    c->recover = c->iss;
    c->snd_wnd = seg->wnd;          /* SYN windows are unscaled */
    c->max_snd_wnd = seg->wnd;
    c->snd_wl1 = seg->seq;
    c->snd_wl2 = c->iss;
    c->rcv_adv = c->rcv_nxt;
    tcp_set_state(c, TCP_SYN_RECEIVED);
    l->half_open++;
    c->syn_needed = 1;
    tcp_want_output(c);
}

/* The final ACK of a cookie handshake: rebuild the connection from it. */
static struct tcp_conn *listen_cookie_ack(struct tcp_stack *s, struct tcp_listener *l,
                                          const struct tcp_seg *seg, uint64_t now_us)
{
    int mss = tcp_cookie_check(s, seg->rip, seg->sport, seg->dport, seg->seq - 1,
                               seg->ack - 1, now_us);
    if (mss < 0) {
        s->stats.syncookies_failed++;
        return NULL;
    }
    struct tcp_conn *c = passive_conn(s, l, seg, now_us);
    if (!c) {
        s->stats.drop_no_tcb++;
        return NULL;
    }
    struct tcp_opts o;
    memset(&o, 0, sizeof(o));
    o.mss_ok = true;
    o.mss = (uint16_t)mss;
    if (seg->opts.ts_ok && s->cfg.timestamps) {
        /* Our SYN-ACK's TSval carried the peer's window shift in its low bits. */
        uint32_t code = seg->opts.tsecr & 0xfu;
        o.ts_ok = true;
        o.tsval = seg->opts.tsval;
        if (code != 0xfu && s->cfg.window_scaling) {
            o.ws_ok = true;
            o.wscale = (uint8_t)code;
        }
        c->ts_offset = 16;        /* stay above the TSval the SYN-ACK used */
    }
    negotiate_options(c, &o, true);
    c->irs = seg->seq - 1;
    c->rcv_nxt = seg->seq;
    c->iss = seg->ack - 1;
    c->snd_una = seg->ack;
    c->snd_nxt = seg->ack;
    c->snd_max = seg->ack;
    c->recover = c->iss;
    c->snd_wnd = (uint32_t)seg->wnd << c->snd_wscale;
    c->max_snd_wnd = c->snd_wnd;
    c->snd_wl1 = seg->seq;
    c->snd_wl2 = seg->ack;
    c->rcv_adv = c->rcv_nxt + (s->max_rcv_wnd > 65535u ? 65535u : s->max_rcv_wnd);
    tcp_set_state(c, TCP_ESTABLISHED);
    c->events |= TCP_EV_ESTABLISHED;
    s->stats.syncookies_ok++;
    s->stats.conns_opened++;
    tcp_life_arm(c, now_us);
    return c;
}

static void rtt_from_ack(struct tcp_conn *c, const struct tcp_seg *seg, uint64_t now_us)
{
    if (c->ts_ok && seg->opts.ts_ok && seg->opts.tsecr != 0) {
        /* RFC 7323 §4: timestamps time every ACK, retransmitted or not. */
        uint32_t rtt_ms = tcp_ts_now(c, now_us) - seg->opts.tsecr;
        if (rtt_ms < 0x7fffffffu / 1000u)
            tcp_rtt_sample(c, rtt_ms * 1000u);
    } else if (c->rtt_timing && seq_gt(seg->ack, c->rtt_seq)) {
        c->rtt_timing = 0;
        tcp_rtt_sample(c, (uint32_t)(now_us - c->rtt_start_us));
    }
}

static void enter_established(struct tcp_conn *c, uint64_t now_us)
{
    tcp_set_state(c, TCP_ESTABLISHED);
    c->events |= TCP_EV_ESTABLISHED;
    c->stack->stats.conns_opened++;
    c->backoff = 0;
    tcp_rtx_stop(c);
    tcp_life_arm(c, now_us);
}

static void syn_sent_input(struct tcp_conn *c, const struct tcp_seg *seg, uint64_t now_us)
{
    struct tcp_stack *s = c->stack;

    if (seg->flags & TCP_ACK) {
        if (seq_leq(seg->ack, c->iss) || seq_gt(seg->ack, c->snd_max)) {
            tcp_send_rst_reply(s, seg->frame, seg->rip, seg->sport, seg->dport, seg->seq,
                               seg->ack, seg->flags, seg->len);
            return;
        }
    }
    if (seg->flags & TCP_RST) {
        if (seg->flags & TCP_ACK) {
            s->stats.rst_received++;
            s->stats.conns_reset++;
            tcp_conn_destroy(c, -ECONNREFUSED);
        }
        return;
    }
    if (!(seg->flags & TCP_SYN))
        return;
    memcpy(c->peer_mac, seg->frame + 6, 6);
    negotiate_options(c, &seg->opts, true);
    c->irs = seg->seq;
    c->rcv_nxt = seg->seq + 1;
    c->rcv_adv = c->rcv_nxt;
    c->snd_wnd = seg->wnd;
    c->max_snd_wnd = seg->wnd;
    c->snd_wl1 = seg->seq;
    if (seg->flags & TCP_ACK) {
        c->snd_una = seg->ack;
        c->snd_wl2 = seg->ack;
        if (c->ts_ok && seg->opts.ts_ok && seg->opts.tsecr)
            rtt_from_ack(c, seg, now_us);
        else if (c->backoff == 0)
            tcp_rtt_sample(c, (uint32_t)(now_us - c->rtt_start_us));
        enter_established(c, now_us);
        c->ack_now = 1;
        tcp_want_output(c);
        return;
    }
    /* Simultaneous open: our SYN crossed theirs. */
    tcp_set_state(c, TCP_SYN_RECEIVED);
    c->syn_needed = 1;
    tcp_want_output(c);
}

static bool seq_acceptable(const struct tcp_conn *c, const struct tcp_seg *seg)
{
    uint32_t wnd = seq_gt(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0;
    uint32_t seg_len = seg->len + ((seg->flags & TCP_SYN) ? 1u : 0u) +
                       ((seg->flags & TCP_FIN) ? 1u : 0u);

    if (seg_len == 0) {
        if (wnd == 0)
            return seg->seq == c->rcv_nxt;
        return seq_geq(seg->seq, c->rcv_nxt) && seq_lt(seg->seq, c->rcv_nxt + wnd);
    }
    if (wnd == 0)
        return false;
    uint32_t last = seg->seq + seg_len - 1;
    return (seq_geq(seg->seq, c->rcv_nxt) && seq_lt(seg->seq, c->rcv_nxt + wnd)) ||
           (seq_geq(last, c->rcv_nxt) && seq_lt(last, c->rcv_nxt + wnd));
}

static void fin_acked(struct tcp_conn *c, uint64_t now_us)
{
    c->fin_queued = 0;
    switch (c->state) {
    case TCP_FIN_WAIT_1:
        tcp_set_state(c, TCP_FIN_WAIT_2);
        tcp_life_arm(c, now_us);
        break;
    case TCP_CLOSING:
        tcp_set_state(c, TCP_TIME_WAIT);
        tcp_life_arm(c, now_us);
        break;
    case TCP_LAST_ACK:
        tcp_conn_destroy(c, TCP_CLOSE_NORMAL);
        break;
    default:
        break;
    }
}

static void cc_new_ack(struct tcp_conn *c, uint32_t acked, uint64_t now_us)
{
    if (c->in_recovery) {
        if (seq_geq(c->snd_una, c->recover)) {
            /* Full ACK: leave recovery with a deflated window (RFC 6582 §3.2 step 3). */
            uint32_t flight = c->snd_max - c->snd_una;
            uint32_t w = flight + c->mss;
            c->cwnd = w < c->ssthresh ? w : c->ssthresh;
            c->in_recovery = 0;
        } else {
            /* Partial ACK: the next hole goes out now (step 4). */
            tcp_retransmit_una(c, now_us);
            c->fast_retransmits++;
            c->cwnd = acked < c->cwnd ? c->cwnd - acked : 0;
            c->cwnd += c->mss;
            tcp_rtx_arm(c, now_us);
        }
        return;
    }
    if (c->cwnd < c->ssthresh) {
        c->cwnd += acked < c->mss ? acked : c->mss;
    } else {
        uint32_t inc = (uint32_t)((uint64_t)c->mss * c->mss / (c->cwnd ? c->cwnd : 1));
        c->cwnd += inc ? inc : 1;
    }
}

static void fast_retransmit(struct tcp_conn *c, uint64_t now_us)
{
    struct tcp_stack *s = c->stack;
    uint32_t flight = c->snd_max - c->snd_una;

    /* RFC 6582 §3.2 step 2: only once per window of data. */
    if (!seq_gt(c->snd_una - 1, c->recover) && c->recover != c->iss)
        return;
    c->ssthresh = flight / 2 > 2u * c->mss ? flight / 2 : 2u * c->mss;
    c->recover = c->snd_max;
    c->in_recovery = 1;
    c->rtt_timing = 0;
    tcp_retransmit_una(c, now_us);
    c->fast_retransmits++;
    s->stats.fast_retransmits++;
    c->cwnd = c->ssthresh + 3u * c->mss;
    tcp_rtx_arm(c, now_us);
}

/* ACK processing for synchronized states past SYN_RECEIVED. Returns false
 * when the segment must not be processed further. */
static bool ack_input(struct tcp_conn *c, const struct tcp_seg *seg, uint64_t now_us)
{
    struct tcp_stack *s = c->stack;

    if (seq_gt(seg->ack, c->snd_max)) {
        /* ACK for data never sent (RFC 5961 §5.2 / RFC 9293). */
        invalid_ack(c, now_us);
        return false;
    }
    if (seq_lt(seg->ack, c->snd_una - c->max_snd_wnd)) {
        challenge_ack(c, now_us);
        return false;
    }
    uint32_t wnd = (uint32_t)seg->wnd << c->snd_wscale;

    if (seq_gt(seg->ack, c->snd_una)) {
        uint32_t acked = seg->ack - c->snd_una;
        bool fin_covered = c->fin_sent && seg->ack == c->snd_max && c->fin_queued;
        uint32_t data = acked - (fin_covered ? 1u : 0u);
        if (data > c->sndq.len)
            data = c->sndq.len;
        tcp_bufq_consume(s, &c->sndq, data);
        rtt_from_ack(c, seg, now_us);
        c->backoff = 0;
        c->snd_una = seg->ack;
        if (seq_lt(c->snd_nxt, c->snd_una))
            c->snd_nxt = c->snd_una;
        cc_new_ack(c, acked, now_us);
        c->dupacks = 0;
        if (c->snd_una == c->snd_max)
            tcp_rtx_stop(c);
        else if (!c->in_recovery)
            tcp_rtx_arm(c, now_us);
        if (c->app_wants_write &&
            s->cfg.snd_buf - c->sndq.len >= (s->cfg.snd_buf / 4 ? s->cfg.snd_buf / 4 : 1))
            c->events |= TCP_EV_WRITABLE;
        if (c->sndq.len > 0 || c->fin_queued)
            tcp_want_output(c);
        if (fin_covered) {
            fin_acked(c, now_us);
            if (c->dead)
                return false;
        }
    } else if (seg->ack == c->snd_una && seg->len == 0 &&
               !(seg->flags & (TCP_SYN | TCP_FIN)) && wnd == c->snd_wnd && wnd != 0 &&
               !c->persist && c->snd_max != c->snd_una) {
        /* Answers to zero-window probes repeat the ACK too, but are not a
         * sign of loss: only a nonzero, unchanged window counts. */
        /* A duplicate ACK (RFC 5681 §2). */
        c->dupacks = c->dupacks < 255 ? (uint8_t)(c->dupacks + 1) : c->dupacks;
        if (c->dupacks == 3 && !c->in_recovery) {
            fast_retransmit(c, now_us);
        } else if (c->dupacks > 3 && c->in_recovery) {
            c->cwnd += c->mss;          /* inflate: a segment left the network */
            tcp_want_output(c);
        }
    }
    /* Window update (RFC 9293 §3.10.7.4, SND.WL1/WL2 rule). */
    if (seq_lt(c->snd_wl1, seg->seq) ||
        (c->snd_wl1 == seg->seq && seq_leq(c->snd_wl2, seg->ack))) {
        bool opened = c->snd_wnd == 0 && wnd > 0;
        c->snd_wnd = wnd;
        c->snd_wl1 = seg->seq;
        c->snd_wl2 = seg->ack;
        if (wnd > c->max_snd_wnd)
            c->max_snd_wnd = wnd;
        if (opened) {
            if (c->persist) {
                tcp_rtx_stop(c);
                c->backoff = 0;
            }
            tcp_want_output(c);
        }
    }
    return true;
}

static void process_fin(struct tcp_conn *c, uint64_t now_us)
{
    c->rcv_nxt++;
    c->fin_rcvd = 1;
    c->ack_now = 1;
    c->events |= TCP_EV_READABLE;
    switch (c->state) {
    case TCP_SYN_RECEIVED:
    case TCP_ESTABLISHED:
        tcp_set_state(c, TCP_CLOSE_WAIT);
        break;
    case TCP_FIN_WAIT_1:
        if (c->fin_sent && !c->fin_queued) {
            tcp_set_state(c, TCP_TIME_WAIT);
            tcp_rtx_stop(c);
            tcp_life_arm(c, now_us);
        } else {
            tcp_set_state(c, TCP_CLOSING);
        }
        break;
    case TCP_FIN_WAIT_2:
        tcp_set_state(c, TCP_TIME_WAIT);
        tcp_rtx_stop(c);
        tcp_life_arm(c, now_us);
        break;
    default:
        break;
    }
}

static bool data_state(const struct tcp_conn *c)
{
    return c->state == TCP_ESTABLISHED || c->state == TCP_FIN_WAIT_1 ||
           c->state == TCP_FIN_WAIT_2;
}

static void data_input(struct tcp_conn *c, const struct tcp_seg *seg, uint64_t now_us)
{
    struct tcp_stack *s = c->stack;
    const uint8_t *data = seg->data;
    uint32_t seq = seg->seq, len = seg->len;
    uint32_t fin_seq = seg->seq + seg->len;
    bool fin = (seg->flags & TCP_FIN) != 0;

    if (len > 0 && c->app_detached && data_state(c) && seq_gt(fin_seq, c->rcv_nxt)) {
        /* New data after the app closed: nobody will read it (RFC 1122
         * §4.2.2.13) — reset rather than ACK into the void. */
        tcp_send_ctl(c, TCP_RST | TCP_ACK, tcp_ctl_seq(c), now_us);
        s->stats.conns_reset++;
        tcp_conn_destroy(c, -ECONNABORTED);
        return;
    }
    if (len > 0 && data_state(c)) {
        if (seq_lt(seq, c->rcv_nxt)) {
            uint32_t skip = c->rcv_nxt - seq;
            if (skip >= len) {
                len = 0;
            } else {
                data += skip;
                len -= skip;
                seq = c->rcv_nxt;
            }
            c->ack_now = 1;       /* a retransmission: our ACK was lost */
        }
        /* Keep within the window we offered: beyond it is the peer's error. */
        uint32_t edge = seq_gt(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv : c->rcv_nxt;
        uint32_t room_edge = c->rcv_nxt + (s->cfg.rcv_buf > c->rcvq.len
                                               ? s->cfg.rcv_buf - c->rcvq.len : 0);
        if (seq_gt(room_edge, edge))
            edge = room_edge;
        if (len > 0 && seq_gt(seq + len, edge)) {
            uint32_t keep = seq_gt(edge, seq) ? edge - seq : 0;
            s->stats.drop_rcv_full++;
            len = keep;
            fin = false;
        }
        if (len > 0 && seq == c->rcv_nxt) {
            /* A big holder, with the pool short, fills only the chunk it has. */
            uint32_t limit = tcp_rcv_limit(c);
            bool capped = !tcp_rcv_may_grow(c);
            if (capped) {
                uint32_t room = c->rcvq.tail ? TCP_CHUNK_DATA - c->rcvq.tail_used : 0;
                if (c->rcvq.len + room < limit)
                    limit = c->rcvq.len + room;
            }
            uint32_t got = tcp_bufq_append(s, &c->rcvq, data, len, limit);
            if (got < len) {
                if (capped)
                    s->stats.drop_chunk_share++;
                else
                    s->stats.drop_no_chunk++;
                fin = false;
            }
            c->rcv_nxt += got;
            c->bytes_in += got;
            s->stats.bytes_in += got;
            bool had_ooo = c->ooo != NULL;
            uint32_t drained = had_ooo ? tcp_ooo_drain(c) : 0;
            c->bytes_in += drained;
            s->stats.bytes_in += drained;
            if (got || drained)
                c->events |= TCP_EV_READABLE;
            if (had_ooo) {
                c->ack_now = 1;   /* a hole was filled: tell the sender now */
            } else if (++c->delack_count >= 2) {
                c->ack_now = 1;   /* every second segment (RFC 5681 §4.2) */
            } else {
                tcp_delack_arm(c, now_us);
            }
        } else if (len > 0 && seq_gt(seq, c->rcv_nxt)) {
            int rc = tcp_rcv_may_grow(c) ? tcp_ooo_insert(c, seq, data, len) : -EBUSY;
            if (rc == -EBUSY) {
                s->stats.drop_chunk_share++;
            } else if (rc == 0) {
                s->stats.ooo_queued++;
                if (fin) {
                    c->ooo_fin = 1;
                    c->ooo_fin_seq = fin_seq;
                }
            } else if (rc == -ENOMEM) {
                s->stats.drop_no_chunk++;
            } else {
                s->stats.drop_ooo_full++;
            }
            fin = false;
            c->ack_now = 1;       /* duplicate ACK drives the sender's fast retransmit */
        }
    }
    if (fin && data_state(c) && fin_seq == c->rcv_nxt) {
        process_fin(c, now_us);
    } else if (c->ooo_fin && c->ooo_fin_seq == c->rcv_nxt && data_state(c)) {
        c->ooo_fin = 0;
        process_fin(c, now_us);
    } else if (fin && c->state == TCP_TIME_WAIT) {
        /* Our ACK of their FIN was lost: ACK again and restart 2*MSL. */
        c->ack_now = 1;
        tcp_life_arm(c, now_us);
    } else if (fin && (c->state == TCP_CLOSE_WAIT || c->state == TCP_CLOSING ||
                       c->state == TCP_LAST_ACK)) {
        c->ack_now = 1;
    }
    if (c->ack_now)
        tcp_want_output(c);
}

/* Their SYN again while we are in SYN_RECEIVED: either our SYN-ACK was lost
 * (resend it), or — in a simultaneous open — it is their SYN-ACK acking our
 * SYN (RFC 9293 figure 8), which completes the handshake. */
static void syn_received_syn(struct tcp_conn *c, const struct tcp_seg *seg, uint64_t now_us)
{
    if ((seg->flags & TCP_ACK) && seg->ack == c->snd_max) {
        rtt_from_ack(c, seg, now_us);
        c->snd_una = seg->ack;
        c->snd_wnd = seg->wnd;            /* a SYN's window is never scaled */
        c->max_snd_wnd = c->snd_wnd;
        c->snd_wl1 = seg->seq;
        c->snd_wl2 = seg->ack;
        enter_established(c, now_us);
        c->ack_now = 1;
    } else {
        c->syn_needed = 1;
    }
    tcp_want_output(c);
}

static void established_input(struct tcp_conn *c, const struct tcp_seg *seg, uint64_t now_us)
{
    struct tcp_stack *s = c->stack;

    /* PAWS (RFC 7323 §5.3), not applied to RSTs. */
    if (c->ts_ok && seg->opts.ts_ok && !(seg->flags & TCP_RST) &&
        seq_lt(seg->opts.tsval, c->ts_recent) &&
        now_us - c->ts_recent_us < TS_RECENT_MAX_AGE_US) {
        s->stats.drop_paws++;
        invalid_ack(c, now_us);
        return;
    }
    if (c->state == TCP_SYN_RECEIVED && (seg->flags & TCP_SYN) && seg->seq == c->irs &&
        !(seg->flags & TCP_RST)) {
        syn_received_syn(c, seg, now_us);
        return;
    }
    if (!seq_acceptable(c, seg)) {
        if (!(seg->flags & TCP_RST)) {
            s->stats.drop_out_of_window++;
            /* A retransmitted FIN in TIME_WAIT is below RCV.NXT, so it lands
             * here: it still restarts 2*MSL (RFC 9293 §3.10.7.4). */
            if (c->state == TCP_TIME_WAIT && (seg->flags & TCP_FIN))
                tcp_life_arm(c, now_us);
            /* A probe of our zero window sits at RCV.NXT, which no off-path
             * sender knows: always answered, the rest one per interval. */
            if (seg->seq == c->rcv_nxt) {
                c->ack_now = 1;
                tcp_want_output(c);
            } else {
                invalid_ack(c, now_us);
            }
        }
        return;
    }
    /* RFC 7323 §4.3: remember the newest timestamp from an in-sequence segment. */
    if (c->ts_ok && seg->opts.ts_ok && seq_geq(seg->opts.tsval, c->ts_recent) &&
        seq_leq(seg->seq, c->rcv_nxt)) {
        c->ts_recent = seg->opts.tsval;
        c->ts_recent_us = now_us;
    }
    c->last_rcv_us = now_us;
    c->ka_probes = 0;

    if (seg->flags & TCP_RST) {
        if (seg->seq != c->rcv_nxt) {
            challenge_ack(c, now_us);     /* RFC 5961 §3.2 */
            return;
        }
        s->stats.rst_received++;
        if (c->state == TCP_SYN_RECEIVED && c->passive) {
            tcp_conn_destroy(c, TCP_CLOSE_NORMAL);   /* back to LISTEN: nothing to tell */
            return;
        }
        if (c->state != TCP_TIME_WAIT)
            s->stats.conns_reset++;
        tcp_conn_destroy(c, c->state == TCP_TIME_WAIT ? TCP_CLOSE_NORMAL : -ECONNRESET);
        return;
    }
    if (seg->flags & TCP_SYN) {
        challenge_ack(c, now_us);         /* RFC 5961 §4.2 */
        return;
    }
    if (!(seg->flags & TCP_ACK))
        return;
    if (c->state == TCP_SYN_RECEIVED) {
        if (!seq_gt(seg->ack, c->snd_una) || seq_gt(seg->ack, c->snd_max)) {
            tcp_send_rst_reply(s, seg->frame, seg->rip, seg->sport, seg->dport, seg->seq,
                               seg->ack, seg->flags, seg->len);
            return;
        }
        if (c->backoff == 0 && !(c->ts_ok && seg->opts.ts_ok && seg->opts.tsecr))
            tcp_rtt_sample(c, (uint32_t)(now_us - c->rtt_start_us));
        else
            rtt_from_ack(c, seg, now_us);
        c->snd_una = seg->ack;
        c->snd_wnd = (uint32_t)seg->wnd << c->snd_wscale;
        c->max_snd_wnd = c->snd_wnd;
        c->snd_wl1 = seg->seq;
        c->snd_wl2 = seg->ack;
        enter_established(c, now_us);
    } else if (!ack_input(c, seg, now_us)) {
        return;
    }
    if (c->state == TCP_TIME_WAIT) {
        if (seg->flags & TCP_FIN) {
            c->ack_now = 1;
            tcp_life_arm(c, now_us);
            tcp_want_output(c);
        }
        return;
    }
    data_input(c, seg, now_us);
}

static bool time_wait_reusable(const struct tcp_conn *c, const struct tcp_seg *seg)
{
    /* RFC 6191: a newer timestamp, or (without timestamps) a higher sequence. */
    if (c->ts_ok && seg->opts.ts_ok)
        return seq_gt(seg->opts.tsval, c->ts_recent);
    return seq_gt(seg->seq, c->rcv_nxt);
}

static int parse_segment(struct tcp_stack *s, const uint8_t *frame, const struct net_rx_info *info,
                         bool l4_cksum_ok, struct tcp_seg *seg)
{
    const uint8_t *th = frame + info->l4_off;
    uint32_t tlen = info->l4_len;

    if (tlen < TCP_HLEN) {
        s->stats.drop_malformed++;
        return -EINVAL;
    }
    unsigned hlen = (unsigned)(th[12] >> 4) * 4u;
    if (hlen < TCP_HLEN || hlen > tlen) {
        s->stats.drop_malformed++;
        return -EINVAL;
    }
    if (!l4_cksum_ok) {
        const uint8_t *ip = frame + info->l3_off;
        uint8_t pseudo[12];
        memcpy(pseudo, ip + 12, 8);
        pseudo[8] = 0;
        pseudo[9] = NET_IPPROTO_TCP;
        pseudo[10] = (uint8_t)(tlen >> 8);
        pseudo[11] = (uint8_t)tlen;
        uint32_t sum = net_cksum_add(0, pseudo, sizeof(pseudo));
        sum = net_cksum_add(sum, th, tlen);
        if (net_cksum_finish(sum) != 0) {
            s->stats.drop_bad_cksum++;
            return -EINVAL;
        }
    }
    seg->frame = frame;
    seg->rip = rd32(frame + info->l3_off + 12);
    seg->sport = rd16(th);
    seg->dport = rd16(th + 2);
    seg->seq = rd32(th + 4);
    seg->ack = rd32(th + 8);
    seg->flags = th[13] & 0x3f;
    seg->wnd = rd16(th + 14);
    seg->data = th + hlen;
    seg->len = tlen - hlen;
    /* SYN with FIN or RST is never legitimate; port 0 is not a port. */
    if (((seg->flags & TCP_SYN) && (seg->flags & (TCP_FIN | TCP_RST))) || seg->sport == 0 ||
        seg->dport == 0) {
        s->stats.drop_malformed++;
        return -EINVAL;
    }
    if (tcp_opts_parse(th + TCP_HLEN, hlen - TCP_HLEN, seg->flags & TCP_SYN, &seg->opts) < 0) {
        s->stats.drop_malformed++;
        return -EINVAL;
    }
    return 0;
}

static void no_conn_input(struct tcp_stack *s, const struct tcp_seg *seg, uint64_t now_us)
{
    struct tcp_listener *l = tcp_listener_find(s, seg->dport);

    if (!l) {
        tcp_send_rst_reply(s, seg->frame, seg->rip, seg->sport, seg->dport, seg->seq, seg->ack,
                           seg->flags, seg->len);
        return;
    }
    if (seg->flags & TCP_RST)
        return;
    if (seg->flags & TCP_ACK) {
        if (!(seg->flags & TCP_SYN) && s->cookie_last_us &&
            now_us - s->cookie_last_us < COOKIE_ACCEPT_US) {
            struct tcp_conn *c = listen_cookie_ack(s, l, seg, now_us);
            if (c) {
                data_input(c, seg, now_us);
                tcp_events_deliver(c);
                return;
            }
        }
        tcp_send_rst_reply(s, seg->frame, seg->rip, seg->sport, seg->dport, seg->seq, seg->ack,
                           seg->flags, seg->len);
        return;
    }
    if (seg->flags & TCP_SYN)
        listen_syn(s, l, seg, now_us);
}

void tcp_input(struct tcp_stack *s, const uint8_t *frame, uint16_t len,
               const struct net_rx_info *info, bool l4_cksum_ok, uint64_t now_us)
{
    struct tcp_seg seg;

    s->now_us = now_us;
    s->stats.segs_in++;
    if (!info || (uint32_t)info->l4_off + info->l4_len > len) {
        s->stats.drop_malformed++;
        return;
    }
    if (parse_segment(s, frame, info, l4_cksum_ok, &seg) < 0)
        return;

    struct tcp_conn *c = tcp_conn_lookup(s, seg.rip, seg.sport, seg.dport);
    if (c && c->state == TCP_TIME_WAIT && (seg.flags & TCP_SYN) && !(seg.flags & TCP_ACK) &&
        time_wait_reusable(c, &seg) && tcp_listener_find(s, seg.dport)) {
        s->stats.time_wait_recycled++;
        tcp_conn_destroy(c, TCP_CLOSE_NORMAL);
        tcp_reap(s);
        c = NULL;
    }
    if (!c) {
        no_conn_input(s, &seg, now_us);
    } else {
        c->segs_in++;
        if (c->state == TCP_SYN_SENT)
            syn_sent_input(c, &seg, now_us);
        else
            established_input(c, &seg, now_us);
        tcp_events_deliver(c);
    }
    tcp_reap(s);
}
