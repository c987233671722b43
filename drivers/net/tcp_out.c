/*
 * tcp_out: everything that leaves the stack — segment building (Ethernet,
 * IPv4, TCP with checksums or offload), the send loop that honours the
 * peer's window, the congestion window and the sender-side SWS rule,
 * retransmission of the first unacknowledged segment, and RSTs/cookie
 * SYN-ACKs that have no connection behind them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "net_cksum.h"
#include "tcp_priv.h"

/* DSCP CS6: OpenFlow is network control traffic; let QoS treat it as such. */
#define TCP_IP_TOS 0xc0
#define TCP_IP_TTL 64

struct seg_desc {
    const uint8_t *dst_mac;
    uint32_t rip;
    uint16_t lport, rport;
    uint32_t seq, ack;
    uint8_t flags;
    uint16_t win;                /* already scaled for the wire */
    const uint8_t *opts;
    unsigned optlen;
    const struct tcp_bufq *q;    /* payload source (NULL: none) */
    uint32_t qoff;
    uint32_t len;
};

static void put16(uint8_t *p, uint16_t v)
{
    memcpy(p, &v, 2);
}

static int xmit(struct tcp_stack *s, const struct seg_desc *d)
{
    unsigned tcp_hlen = TCP_HLEN + d->optlen;
    unsigned total = 14 + 20 + tcp_hlen + d->len;
    void *handle;
    uint8_t *f = s->env.frame_alloc(s->env.arg, (uint16_t)total, &handle);

    if (!f) {
        s->stats.frame_alloc_failed++;
        return -ENOBUFS;
    }
    /* Ethernet */
    memcpy(f, d->dst_mac, 6);
    memcpy(f + 6, s->mac, 6);
    put16(f + 12, htons(NET_ETHERTYPE_IPV4));
    /* IPv4 */
    uint8_t *ip = f + 14;
    ip[0] = 0x45;
    ip[1] = TCP_IP_TOS;
    put16(ip + 2, htons((uint16_t)(20 + tcp_hlen + d->len)));
    put16(ip + 4, htons(s->ip_id++));
    put16(ip + 6, htons(0x4000));      /* DF: we size segments to the MSS */
    ip[8] = TCP_IP_TTL;
    ip[9] = NET_IPPROTO_TCP;
    put16(ip + 10, 0);
    uint32_t src = htonl(s->ip), dst = htonl(d->rip);
    memcpy(ip + 12, &src, 4);
    memcpy(ip + 16, &dst, 4);
    /* TCP */
    uint8_t *th = ip + 20;
    put16(th, htons(d->lport));
    put16(th + 2, htons(d->rport));
    uint32_t v = htonl(d->seq);
    memcpy(th + 4, &v, 4);
    v = htonl(d->ack);
    memcpy(th + 8, &v, 4);
    th[12] = (uint8_t)((tcp_hlen / 4) << 4);
    th[13] = d->flags;
    put16(th + 14, htons(d->win));
    put16(th + 16, 0);
    put16(th + 18, 0);
    if (d->optlen)
        memcpy(th + TCP_HLEN, d->opts, d->optlen);
    if (d->len)
        tcp_bufq_copy(d->q, d->qoff, th + tcp_hlen, d->len);

    struct tcp_tx_meta meta = {
        .l4_cksum_offload = s->env.l4_cksum_offload,
        .ip_cksum_offload = s->env.ip_cksum_offload,
    };
    if (!meta.ip_cksum_offload)
        put16(ip + 10, net_cksum(ip, 20));
    uint8_t pseudo[12];
    memcpy(pseudo, ip + 12, 8);
    pseudo[8] = 0;
    pseudo[9] = NET_IPPROTO_TCP;
    put16(pseudo + 10, htons((uint16_t)(tcp_hlen + d->len)));
    uint32_t sum = net_cksum_add(0, pseudo, sizeof(pseudo));
    if (meta.l4_cksum_offload) {
        /* The NIC expects the folded pseudo-header sum, not complemented. */
        while (sum >> 16)
            sum = (sum & 0xffff) + (sum >> 16);
        uint16_t folded = (uint16_t)sum;
        memcpy(th + 16, &folded, 2);
    } else {
        sum = net_cksum_add(sum, th, tcp_hlen + d->len);
        put16(th + 16, net_cksum_finish(sum));
    }
    s->env.frame_send(s->env.arg, handle, (uint16_t)total, &meta);
    s->stats.segs_out++;
    if (d->flags & TCP_RST)
        s->stats.rst_sent++;
    return 0;
}

uint32_t tcp_ts_now(const struct tcp_conn *c, uint64_t now_us)
{
    return (uint32_t)(now_us / 1000u) + c->ts_offset;
}

uint32_t tcp_rcv_window(const struct tcp_conn *c)
{
    const struct tcp_stack *s = c->stack;
    uint32_t buf = s->cfg.rcv_buf;
    uint32_t used = c->rcvq.len;
    uint32_t wnd = buf > used ? buf - used : 0;
    uint32_t sws = buf / 2 < c->mss ? buf / 2 : c->mss;
    uint32_t max = c->ws_ok ? 65535u << c->rcv_wscale : 65535u;

    /* Receiver SWS avoidance (RFC 9293 §3.8.6.2.2): no small openings. */
    if (wnd < sws)
        wnd = 0;
    if (wnd > max)
        wnd = max;
    /* Never move the right edge left (RFC 9293 §3.8.6). */
    if (seq_lt(c->rcv_nxt + wnd, c->rcv_adv))
        wnd = c->rcv_adv - c->rcv_nxt;
    return wnd;
}

static int ensure_mac(struct tcp_conn *c)
{
    struct tcp_stack *s = c->stack;
    static const uint8_t zero[6];

    if (memcmp(c->peer_mac, zero, 6) != 0)
        return 0;
    if (s->env.resolve && s->env.resolve(s->env.arg, c->rip, c->peer_mac) == 0)
        return 0;
    s->stats.no_route++;
    return -EAGAIN;
}

/* Fill the fields every segment of a connection shares. */
static void conn_desc(struct tcp_conn *c, struct seg_desc *d, uint8_t flags, uint32_t seq,
                      uint8_t *optbuf, uint64_t now_us)
{
    memset(d, 0, sizeof(*d));
    d->dst_mac = c->peer_mac;
    d->rip = c->rip;
    d->lport = c->lport;
    d->rport = c->rport;
    d->seq = seq;
    d->flags = flags;
    d->ack = (flags & TCP_ACK) ? c->rcv_nxt : 0;
    if (flags & TCP_SYN) {
        /* SYN windows are never scaled (RFC 7323 §2.2). */
        uint32_t w = tcp_rcv_window(c);
        d->win = (uint16_t)(w > 65535u ? 65535u : w);
        if (seq_gt(c->rcv_nxt + d->win, c->rcv_adv))
            c->rcv_adv = c->rcv_nxt + d->win;
        bool offer = c->state == TCP_SYN_SENT;
        bool ws = offer ? c->stack->cfg.window_scaling : c->ws_ok;
        bool ts = offer ? c->stack->cfg.timestamps : c->ts_ok;
        d->optlen = tcp_opts_build_syn(optbuf, c->stack->cfg.mss, ws, c->rcv_wscale, ts,
                                       tcp_ts_now(c, now_us), offer ? 0 : c->ts_recent);
    } else {
        uint32_t w = (flags & TCP_RST) ? 0 : tcp_rcv_window(c);
        uint32_t field = c->ws_ok ? w >> c->rcv_wscale : w;
        /* Scaling down must not pull the right edge left of what was
         * advertised: round up then (the window may exceed the buffer by
         * less than one scale unit; tcp_rcv_window already accepts that). */
        if (c->ws_ok && seq_lt(c->rcv_nxt + (field << c->rcv_wscale), c->rcv_adv))
            field++;
        if (field > 65535u)
            field = 65535u;
        d->win = (uint16_t)field;
        if (!(flags & TCP_RST)) {
            uint32_t edge = c->rcv_nxt + ((uint32_t)d->win << (c->ws_ok ? c->rcv_wscale : 0));
            if (seq_gt(edge, c->rcv_adv))
                c->rcv_adv = edge;
        }
        if (c->ts_ok)
            d->optlen = tcp_opts_build_ts(optbuf, tcp_ts_now(c, now_us), c->ts_recent);
    }
    d->opts = optbuf;
}

static int conn_xmit(struct tcp_conn *c, struct seg_desc *d)
{
    int rc = ensure_mac(c);

    if (rc < 0)
        return rc;
    rc = xmit(c->stack, d);
    if (rc == 0) {
        c->segs_out++;
        if (d->flags & TCP_ACK)
            tcp_ack_sent(c);
    }
    return rc;
}

uint32_t tcp_ctl_seq(const struct tcp_conn *c)
{
    /* Not snd_nxt: after a timeout rewinds it, a segment carrying that old
     * number is below the peer's RCV.NXT and the peer discards it, ACK field
     * and all — and if the peer rewound too, neither side ever hears the
     * other's ACKs. The highest number sent is what the peer expects next,
     * kept inside its window (as Linux's tcp_acceptable_seq does). */
    uint32_t wnd_end = c->snd_una + c->snd_wnd;
    return seq_leq(c->snd_max, wnd_end) ? c->snd_max : wnd_end;
}

int tcp_send_ctl(struct tcp_conn *c, uint8_t flags, uint32_t seq, uint64_t now_us)
{
    struct seg_desc d;
    uint8_t opts[40];

    conn_desc(c, &d, flags, seq, opts, now_us);
    return conn_xmit(c, &d);
}

void tcp_want_output(struct tcp_conn *c)
{
    struct tcp_stack *s = c->stack;

    if (c->in_flush || c->dead)
        return;
    c->in_flush = 1;
    c->flush_prev = NULL;
    c->flush_next = s->flush_head;
    if (s->flush_head)
        s->flush_head->flush_prev = c;
    s->flush_head = c;
}

void tcp_flush_unlink(struct tcp_conn *c)
{
    struct tcp_stack *s = c->stack;

    if (!c->in_flush)
        return;
    if (c->flush_prev)
        c->flush_prev->flush_next = c->flush_next;
    else
        s->flush_head = c->flush_next;
    if (c->flush_next)
        c->flush_next->flush_prev = c->flush_prev;
    c->flush_next = c->flush_prev = NULL;
    c->in_flush = 0;
}

/* One data (and/or FIN) segment at seq, len payload bytes. */
static int send_data(struct tcp_conn *c, uint32_t seq, uint32_t len, bool fin, uint64_t now_us)
{
    struct seg_desc d;
    uint8_t opts[40];
    uint8_t flags = TCP_ACK;
    uint32_t off = seq - c->snd_una;

    if (len && off + len == c->sndq.len)
        flags |= TCP_PSH;
    if (fin)
        flags |= TCP_FIN;
    conn_desc(c, &d, flags, seq, opts, now_us);
    d.q = &c->sndq;
    d.qoff = off;
    d.len = len;
    return conn_xmit(c, &d);
}

static bool can_send_data(const struct tcp_conn *c)
{
    switch (c->state) {
    case TCP_ESTABLISHED:
    case TCP_CLOSE_WAIT:
    case TCP_FIN_WAIT_1:
    case TCP_CLOSING:
    case TCP_LAST_ACK:
        return true;
    default:
        return false;
    }
}

static bool fin_due(const struct tcp_conn *c, uint32_t seq_after)
{
    /* The FIN takes the sequence number right after the last queued byte. */
    return c->fin_queued && seq_after == c->snd_una + c->sndq.len;
}

void tcp_output(struct tcp_conn *c, uint64_t now_us)
{
    struct tcp_stack *s = c->stack;
    bool sent = false;

    if (c->dead)
        return;
    if (c->state == TCP_SYN_SENT || c->state == TCP_SYN_RECEIVED) {
        if (c->syn_needed) {
            uint8_t flags = c->state == TCP_SYN_SENT ? TCP_SYN : TCP_SYN | TCP_ACK;
            int rc = tcp_send_ctl(c, flags, c->iss, now_us);
            if (rc == 0) {
                c->syn_needed = 0;
                c->await_mac = 0;
                if (!tw_armed(&c->rtx_timer))
                    tcp_rtx_arm(c, now_us);
            } else if (rc == -EAGAIN && c->mac_waits < TCP_MAC_WAIT_TRIES) {
                /* ARP is resolving the peer: try again soon, not after a
                 * whole RTO, and without counting it as a retransmission. */
                c->await_mac = 1;
                c->mac_waits++;
                tw_arm(&c->stack->wheel, &c->rtx_timer, now_us + TCP_MAC_WAIT_US);
            } else if (!tw_armed(&c->rtx_timer)) {
                tcp_rtx_arm(c, now_us);
            }
        } else if (c->ack_now && c->state == TCP_SYN_RECEIVED) {
            tcp_send_ctl(c, TCP_SYN | TCP_ACK, c->iss, now_us);
        }
        return;
    }
    if (can_send_data(c)) {
        uint32_t maxseg = c->mss - (c->ts_ok ? TCPOLEN_TS_ALIGNED : 0u);
        for (;;) {
            uint32_t inflight = c->snd_nxt - c->snd_una;
            uint32_t avail = c->sndq.len > inflight ? c->sndq.len - inflight : 0;
            uint32_t wnd = c->snd_wnd < c->cwnd ? c->snd_wnd : c->cwnd;
            uint32_t usable = wnd > inflight ? wnd - inflight : 0;
            uint32_t len = avail < usable ? avail : usable;
            if (len > maxseg)
                len = maxseg;
            bool fin = fin_due(c, c->snd_nxt + len) && !seq_gt(c->snd_nxt, c->snd_una + c->sndq.len);
            if (len == 0 && !fin)
                break;
            /* Sender SWS avoidance (RFC 9293 §3.8.6.2.1): hold a small
             * segment back only while data is in flight, so an ACK will
             * come to clock it out; with nothing outstanding no ACK will
             * come, and waiting would stall the connection. */
            if (len < maxseg && len < avail && usable < c->max_snd_wnd / 2 && !fin &&
                inflight > 0)
                break;
            bool rexmit = seq_lt(c->snd_nxt, c->snd_max);
            if (send_data(c, c->snd_nxt, len, fin, now_us) < 0)
                break;
            /* After a go-back-N rewind a segment can straddle snd_max: its
             * part beyond is a first transmission and counts as such. */
            uint32_t end = c->snd_nxt + len;
            uint32_t fresh = seq_gt(end, c->snd_max) ? end - seq_max(c->snd_nxt, c->snd_max) : 0;
            c->bytes_out += fresh;
            s->stats.bytes_out += fresh;
            if (rexmit) {
                c->retransmits++;
                s->stats.retransmits++;
            } else {
                if (!c->rtt_timing && !c->ts_ok && len) {
                    c->rtt_timing = 1;
                    c->rtt_seq = c->snd_nxt;
                    c->rtt_start_us = now_us;
                }
            }
            c->snd_nxt += len + (fin ? 1u : 0u);
            if (fin)
                c->fin_sent = 1;
            c->snd_max = seq_max(c->snd_max, c->snd_nxt);
            if (!tw_armed(&c->rtx_timer) || c->persist)
                tcp_rtx_arm(c, now_us);
            sent = true;
            if (fin)
                break;
        }
        uint32_t inflight = c->snd_nxt - c->snd_una;
        bool waiting = c->sndq.len > inflight;
        if (!sent && waiting && c->snd_wnd == 0 && c->snd_una == c->snd_max &&
            !tw_armed(&c->rtx_timer))
            tcp_persist_arm(c, now_us);
    }
    if (!sent && c->ack_now && c->state != TCP_CLOSED)
        tcp_send_ctl(c, TCP_ACK, tcp_ctl_seq(c), now_us);
}

void tcp_retransmit_una(struct tcp_conn *c, uint64_t now_us)
{
    struct tcp_stack *s = c->stack;

    if (c->state == TCP_SYN_SENT || c->state == TCP_SYN_RECEIVED) {
        c->syn_needed = 1;
        tcp_output(c, now_us);
        s->stats.retransmits++;
        c->retransmits++;
        return;
    }
    if (c->persist) {
        /* Zero-window probe: one byte, the same one until it is taken. */
        if (c->sndq.len == 0)
            return;
        if (c->snd_max == c->snd_una) {
            c->snd_nxt = c->snd_una + 1;
            c->snd_max = c->snd_nxt;
            c->bytes_out += 1;
        }
        send_data(c, c->snd_una, 1, false, now_us);
        return;
    }
    uint32_t maxseg = c->mss - (c->ts_ok ? TCPOLEN_TS_ALIGNED : 0u);
    uint32_t len = c->sndq.len < maxseg ? c->sndq.len : maxseg;
    uint32_t in_flight_data = c->snd_max - c->snd_una - (c->fin_sent ? 1u : 0u);
    if (len > in_flight_data)
        len = in_flight_data;
    bool fin = c->fin_sent && len == c->sndq.len;
    if (len == 0 && !fin)
        return;
    if (send_data(c, c->snd_una, len, fin, now_us) == 0) {
        c->retransmits++;
        s->stats.retransmits++;
    }
}

void tcp_send_rst_reply(struct tcp_stack *s, const uint8_t *frame, uint32_t rip,
                        uint16_t rport, uint16_t lport, uint32_t seg_seq, uint32_t seg_ack,
                        uint8_t seg_flags, uint32_t seg_len)
{
    struct seg_desc d;

    if (seg_flags & TCP_RST)
        return;                          /* never answer a RST (RFC 9293 §3.10.7.1) */
    memset(&d, 0, sizeof(d));
    d.dst_mac = frame + 6;               /* the sender's MAC, from its own frame */
    d.rip = rip;
    d.lport = lport;
    d.rport = rport;
    if (seg_flags & TCP_ACK) {
        d.seq = seg_ack;
        d.flags = TCP_RST;
    } else {
        d.seq = 0;
        d.ack = seg_seq + seg_len + ((seg_flags & TCP_SYN) ? 1u : 0u) +
                ((seg_flags & TCP_FIN) ? 1u : 0u);
        d.flags = TCP_RST | TCP_ACK;
    }
    xmit(s, &d);
}

void tcp_send_cookie_synack(struct tcp_stack *s, const uint8_t *peer_mac, uint32_t rip,
                            uint16_t rport, uint16_t lport, uint32_t irs,
                            const struct tcp_opts *opts, uint64_t now_us)
{
    struct seg_desc d;
    uint8_t optbuf[40];
    uint16_t peer_mss = opts->mss_ok ? opts->mss : TCP_DEFAULT_MSS_V4;
    bool ts = s->cfg.timestamps && opts->ts_ok;
    /* Window scaling needs somewhere to remember the peer's shift: the low
     * bits of our timestamp. Without timestamps, offer no scaling. */
    bool ws = ts && s->cfg.window_scaling && opts->ws_ok;
    uint32_t tsval = 0;

    if (ts) {
        uint32_t code = ws ? opts->wscale : 0xfu;
        tsval = ((uint32_t)(now_us / 1000u) & ~0xfu) | code;
    }
    memset(&d, 0, sizeof(d));
    d.dst_mac = peer_mac;
    d.rip = rip;
    d.lport = lport;
    d.rport = rport;
    d.seq = tcp_cookie_make(s, rip, rport, lport, irs, peer_mss, now_us);
    d.ack = irs + 1;
    d.flags = TCP_SYN | TCP_ACK;
    d.win = (uint16_t)(s->max_rcv_wnd > 65535u ? 65535u : s->max_rcv_wnd);
    d.optlen = tcp_opts_build_syn(optbuf, s->cfg.mss, ws, s->rcv_wscale, ts, tsval,
                                  opts->tsval);
    d.opts = optbuf;
    if (xmit(s, &d) == 0)
        s->stats.syncookies_sent++;
}
