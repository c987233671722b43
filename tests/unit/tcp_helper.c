/*
 * tcp_helper: the fake env, segment builder, frame parser and peer model the
 * TCP unit tests share (see tcp_helper.h for how a test uses them). Test
 * code only: failures are reported through cmocka asserts, so every helper
 * may be called from a test body or a fixture.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net_cksum.h"
#include "tcp_helper.h"

static const uint8_t th_our_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
static const uint8_t th_peer_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};

/* ---- byte order ------------------------------------------------------ */

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)(v >> 16));
    put16(p + 2, (uint16_t)v);
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/* Sum of the IPv4 pseudo-header for a TCP segment of tcp_len bytes. */
static uint32_t pseudo_sum(uint32_t src, uint32_t dst, uint16_t tcp_len)
{
    uint8_t ph[12];

    put32(ph, src);
    put32(ph + 4, dst);
    ph[8] = 0;
    ph[9] = NET_IPPROTO_TCP;
    put16(ph + 10, tcp_len);
    return net_cksum_add(0, ph, sizeof(ph));
}

static uint16_t fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)sum;
}

/* ---- fake env ---------------------------------------------------------- */

/* A frame buffer remembers its capacity so frame_send can check the length. */
struct th_fbuf {
    uint16_t cap;
    uint8_t data[];
};

static uint8_t *env_frame_alloc(void *arg, uint16_t len, void **handle)
{
    struct th *th = arg;
    struct th_fbuf *fb;

    if (th->frame_alloc_fail)
        return NULL;
    assert_true(len >= NET_ETH_HLEN + 20 + 20);
    assert_true(len <= TH_FRAME_MAX);
    fb = malloc(sizeof(*fb) + len);
    assert_non_null(fb);
    fb->cap = len;
    th->frames_alloced++;
    *handle = fb;
    return fb->data;
}

static void env_frame_send(void *arg, void *handle, uint16_t len, const struct tcp_tx_meta *meta)
{
    struct th *th = arg;
    struct th_fbuf *fb = handle;
    struct th_frame *f;

    assert_non_null(fb);
    assert_true(len <= fb->cap);
    assert_true(th->out_tail < TH_OUT_MAX);
    f = &th->out[th->out_tail++];
    f->buf = malloc(len ? len : 1);
    assert_non_null(f->buf);
    memcpy(f->buf, fb->data, len);
    f->len = len;
    f->meta = *meta;
    free(fb);
    th->frames_sent++;
}

static void *env_chunk_alloc(void *arg)
{
    struct th *th = arg;
    void *c;

    if (th->chunk_limit >= 0 && th->chunks_live >= th->chunk_limit)
        return NULL;
    c = malloc(TCP_CHUNK_SIZE);
    assert_non_null(c);
    /* Garbage, so a stack that reads chunk bytes it never wrote is caught. */
    memset(c, 0xa5, TCP_CHUNK_SIZE);
    th->chunks_live++;
    if (th->chunks_live > th->chunks_peak)
        th->chunks_peak = th->chunks_live;
    return c;
}

static void env_chunk_free(void *arg, void *chunk)
{
    struct th *th = arg;

    assert_non_null(chunk);
    assert_true(th->chunks_live > 0);
    th->chunks_live--;
    free(chunk);
}

static int env_resolve(void *arg, uint32_t ip, uint8_t mac[6])
{
    struct th *th = arg;

    th->resolve_calls++;
    assert_int_equal(ip & 0xffffff00u, TH_PEER_IP & 0xffffff00u);   /* a peer on the subnet */
    if (th->resolve_rc)
        return th->resolve_rc;
    memcpy(mac, th_peer_mac, 6);
    return 0;
}

/* ---- callbacks ------------------------------------------------------- */

static void log_event(struct th *th, enum th_ev_type type, struct tcp_conn *c, int reason)
{
    assert_true(th->nev < TH_EV_MAX);
    th->ev[th->nev++] = (struct th_event){.type = type, .c = c, .reason = reason,
                                          .at_us = th->now};
}

static void run_hook(struct th *th, enum th_ev_type type, struct tcp_conn *c)
{
    if (th->hook)
        th->hook(th, type, c);
}

static void cb_established(struct tcp_conn *c, void *user)
{
    log_event(user, TH_EV_ESTABLISHED, c, 0);
    run_hook(user, TH_EV_ESTABLISHED, c);
}

static void cb_readable(struct tcp_conn *c, void *user)
{
    struct th *th = user;
    uint8_t buf[4096];
    size_t n;

    log_event(th, TH_EV_READABLE, c, 0);
    if (!th->auto_read) {
        run_hook(th, TH_EV_READABLE, c);
        return;
    }
    while ((n = tcp_recv(c, buf, sizeof(buf))) > 0) {
        if (th->rx_len + n > th->rx_cap) {
            th->rx_cap = (th->rx_len + n) * 2;
            th->rx = realloc(th->rx, th->rx_cap);
            assert_non_null(th->rx);
        }
        memcpy(th->rx + th->rx_len, buf, n);
        th->rx_len += n;
    }
    run_hook(th, TH_EV_READABLE, c);
}

static void cb_writable(struct tcp_conn *c, void *user)
{
    log_event(user, TH_EV_WRITABLE, c, 0);
    run_hook(user, TH_EV_WRITABLE, c);
}

static void cb_closed(struct tcp_conn *c, void *user, int reason)
{
    log_event(user, TH_EV_CLOSED, c, reason);
    run_hook(user, TH_EV_CLOSED, c);
}

const struct tcp_conn_ops th_ops = {
    .on_established = cb_established,
    .on_readable = cb_readable,
    .on_writable = cb_writable,
    .on_closed = cb_closed,
};

unsigned th_events(const struct th *th, enum th_ev_type type, const struct tcp_conn *c)
{
    unsigned n = 0;

    for (unsigned i = 0; i < th->nev; i++)
        if (th->ev[i].type == type && (!c || th->ev[i].c == c))
            n++;
    return n;
}

struct tcp_conn *th_last_established(const struct th *th)
{
    for (unsigned i = th->nev; i-- > 0;)
        if (th->ev[i].type == TH_EV_ESTABLISHED)
            return th->ev[i].c;
    return NULL;
}

int th_close_reason(const struct th *th, const struct tcp_conn *c)
{
    int reason = 1;

    assert_int_equal(th_events(th, TH_EV_CLOSED, c), 1);
    for (unsigned i = 0; i < th->nev; i++)
        if (th->ev[i].type == TH_EV_CLOSED && th->ev[i].c == c)
            reason = th->ev[i].reason;
    return reason;
}

bool th_is_closed(const struct th *th, const struct tcp_conn *c)
{
    return th_events(th, TH_EV_CLOSED, c) > 0;
}

void th_clear_rx(struct th *th)
{
    th->rx_len = 0;
}

/* ---- set-up ---------------------------------------------------------- */

void th_config(struct tcp_config *cfg)
{
    tcp_config_defaults(cfg);
    cfg->mss = 1460;
    cfg->rcv_buf = 32768;        /* below 64 KiB: windows read unscaled as well */
    cfg->snd_buf = 65536;
    cfg->rto_min_ms = 200;
    cfg->rto_max_ms = 60000;
    cfg->rto_initial_ms = 1000;
    cfg->delack_ms = 40;
    cfg->time_wait_ms = 4000;
    cfg->max_time_wait = 64;
    cfg->fin_wait2_ms = 10000;
    cfg->syn_backlog = 16;
    cfg->max_conns = 64;
    cfg->syn_retries = 3;
    cfg->max_retrans = 5;
    cfg->keepalive_idle_s = 0;
    cfg->keepalive_intvl_s = 1;
    cfg->keepalive_probes = 3;
    cfg->ooo_max_segs = 16;
    cfg->challenge_ack_per_s = 100;
    cfg->syncookies = true;
    cfg->timestamps = true;
    cfg->window_scaling = true;
}

static void th_env_init(struct th *th)
{
    th->env.arg = th;
    th->env.frame_alloc = env_frame_alloc;
    th->env.frame_send = env_frame_send;
    th->env.chunk_alloc = env_chunk_alloc;
    th->env.chunk_free = env_chunk_free;
    th->env.resolve = env_resolve;
}

int th_setup(void **state)
{
    struct th *th = calloc(1, sizeof(*th));

    assert_non_null(th);
    th_config(&th->cfg);
    th_env_init(th);
    th->chunk_limit = -1;
    th->now = TH_T0;
    for (unsigned i = 0; i < sizeof(th->secret); i++)
        th->secret[i] = (uint8_t)(0x5a ^ (i * 37));
    th->s = tcp_stack_create(&th->cfg, &th->env, TH_OUR_IP, th_our_mac, th->secret, th->now);
    assert_non_null(th->s);
    *state = th;
    return 0;
}

static void th_free_frames(struct th *th)
{
    for (unsigned i = th->out_head; i < th->out_tail; i++)
        free(th->out[i].buf);
    th->out_head = th->out_tail = 0;
}

int th_teardown(void **state)
{
    struct th *th = *state;

    if (th->s)
        tcp_stack_destroy(th->s);
    th->s = NULL;
    th_free_frames(th);
    free(th->rx);
    for (unsigned i = 0; i < TH_ALLOC_MAX; i++)
        free(th->allocs[i]);
    /* Every chunk handed out came back, and every frame allocated was sent
     * (the env has no other way to get a frame buffer back). */
    assert_int_equal(th->chunks_live, 0);
    assert_int_equal(th->frames_alloced, th->frames_sent);
    free(th);
    return 0;
}

void th_restart(struct th *th)
{
    tcp_stack_destroy(th->s);
    assert_int_equal(th->chunks_live, 0);
    th_free_frames(th);
    th->nev = 0;
    th->s = tcp_stack_create(&th->cfg, &th->env, TH_OUR_IP, th_our_mac, th->secret, th->now);
    assert_non_null(th->s);
}

void th_listen(struct th *th, uint16_t port, uint32_t backlog)
{
    assert_int_equal(tcp_listen(th->s, port, backlog, &th_ops, th), 0);
}

uint32_t th_state_count(const struct th *th, enum tcp_state st)
{
    struct tcp_state_counts counts;

    tcp_stack_state_counts(th->s, &counts);
    return (uint32_t)OFCD_COUNTER_VALUES(&counts)[st];
}

/* ---- segment builder ----------------------------------------------- */

static unsigned build_opts(const struct th_tx *tx, uint8_t *o)
{
    unsigned n = 0;

    if (tx->raw_opts) {
        memcpy(o, tx->raw_opts, tx->raw_opts_len);
        n = tx->raw_opts_len;
        if (tx->doff <= 0)
            while (n % 4)
                o[n++] = 1;
        return n;
    }
    if (tx->mss) {
        o[n++] = 2;
        o[n++] = 4;
        put16(o + n, tx->mss);
        n += 2;
    }
    if (tx->has_ws) {
        o[n++] = 1;
        o[n++] = 3;
        o[n++] = 3;
        o[n++] = tx->ws;
    }
    if (tx->sack_perm) {
        o[n++] = 1;
        o[n++] = 1;
        o[n++] = 4;
        o[n++] = 2;
    }
    if (tx->has_ts) {
        o[n++] = 1;
        o[n++] = 1;
        o[n++] = 8;
        o[n++] = 10;
        put32(o + n, tx->tsval);
        put32(o + n + 4, tx->tsecr);
        n += 8;
    }
    return n;
}

uint16_t th_build(const struct th_tx *tx, uint8_t *buf, struct net_rx_info *info)
{
    uint8_t *ip = buf + NET_ETH_HLEN;
    uint8_t *tcp = ip + 20;
    uint32_t src = tx->src_ip ? tx->src_ip : TH_PEER_IP;
    unsigned optlen = build_opts(tx, tcp + 20);
    unsigned tcp_len = 20 + optlen + tx->len;
    unsigned doff = tx->doff > 0 ? (unsigned)tx->doff : (20 + optlen) / 4;
    uint16_t ck;

    assert_true(NET_ETH_HLEN + 20 + tcp_len <= TH_FRAME_MAX);
    memcpy(buf, th_our_mac, 6);
    memcpy(buf + 6, th_peer_mac, 6);
    put16(buf + 12, NET_ETHERTYPE_IPV4);

    ip[0] = 0x45;
    ip[1] = 0;
    put16(ip + 2, (uint16_t)(20 + tcp_len));
    put16(ip + 4, 0x1234);
    put16(ip + 6, 0x4000);              /* DF */
    ip[8] = 64;
    ip[9] = NET_IPPROTO_TCP;
    put16(ip + 10, 0);
    put32(ip + 12, src);
    put32(ip + 16, TH_OUR_IP);
    ck = net_cksum(ip, 20);
    memcpy(ip + 10, &ck, 2);

    put16(tcp, tx->sport ? tx->sport : 40000);
    put16(tcp + 2, tx->dport ? tx->dport : TH_PORT);
    put32(tcp + 4, tx->seq);
    put32(tcp + 8, tx->ack);
    tcp[12] = (uint8_t)((doff & 0xf) << 4);
    tcp[13] = tx->flags;
    put16(tcp + 14, tx->win == TH_WIN_ZERO ? 0 : tx->win ? (uint16_t)tx->win : 65535);
    put16(tcp + 16, 0);
    put16(tcp + 18, 0);
    if (tx->len)
        memcpy(tcp + 20 + optlen, tx->data, tx->len);
    ck = net_cksum_finish(net_cksum_add(pseudo_sum(src, TH_OUR_IP, (uint16_t)tcp_len), tcp,
                                        tcp_len));
    if (tx->bad_cksum)
        ck ^= 0x0101;
    memcpy(tcp + 16, &ck, 2);

    info->l3_off = NET_ETH_HLEN;
    info->l4_off = NET_ETH_HLEN + 20;
    info->l4_len = (uint16_t)tcp_len;
    return (uint16_t)(NET_ETH_HLEN + 20 + tcp_len);
}

void th_input(struct th *th, const struct th_tx *tx)
{
    uint8_t *buf = malloc(TH_FRAME_MAX);
    struct net_rx_info info;
    uint16_t len;

    assert_non_null(buf);
    len = th_build(tx, buf, &info);
    /* An exact-size heap copy, so ASan catches any read past the frame. */
    uint8_t *frame = malloc(len);
    assert_non_null(frame);
    memcpy(frame, buf, len);
    free(buf);
    tcp_input(th->s, frame, len, &info, tx->cksum_ok, th->now);
    free(frame);
}

void th_send(struct th *th, const struct th_tx *tx)
{
    th_input(th, tx);
    th_flush(th);
}

/* ---- time ------------------------------------------------------------ */

void th_flush(struct th *th)
{
    tcp_stack_flush(th->s, th->now);
}

void th_advance(struct th *th, uint64_t us)
{
    uint64_t end = th->now + us;

    while (th->now < end) {
        uint64_t step = end - th->now < TH_MS ? end - th->now : TH_MS;

        th->now += step;
        tcp_stack_run_timers(th->s, th->now);
        tcp_stack_flush(th->s, th->now);
    }
}

uint64_t th_advance_until_frame(struct th *th, uint64_t max_us)
{
    uint64_t start = th->now;

    while (th_pending(th) == 0) {
        if (th->now - start >= max_us)
            return UINT64_MAX;
        th_advance(th, TH_MS);
    }
    return th->now - start;
}

/* ---- output parser --------------------------------------------------- */

unsigned th_pending(const struct th *th)
{
    return th->out_tail - th->out_head;
}

static void parse_opts(const uint8_t *o, unsigned n, struct th_seg *seg)
{
    unsigned i = 0;

    while (i < n) {
        uint8_t kind = o[i];

        if (kind == 0)
            break;
        if (kind == 1) {
            i++;
            continue;
        }
        assert_true(i + 1 < n);
        uint8_t len = o[i + 1];
        assert_true(len >= 2 && i + len <= n);
        switch (kind) {
        case 2:
            assert_int_equal(len, 4);
            seg->has_mss = true;
            seg->mss = get16(o + i + 2);
            break;
        case 3:
            assert_int_equal(len, 3);
            seg->has_ws = true;
            seg->ws = o[i + 2];
            break;
        case 4:
            assert_int_equal(len, 2);
            seg->sack_perm = true;
            break;
        case 5:
            seg->has_sack = true;
            break;
        case 8:
            assert_int_equal(len, 10);
            seg->has_ts = true;
            seg->tsval = get32(o + i + 2);
            seg->tsecr = get32(o + i + 6);
            break;
        default:
            fail_msg("stack sent unknown TCP option kind %u", kind);
        }
        i += len;
    }
}

bool th_pop(struct th *th, struct th_seg *seg)
{
    struct th_frame *f;
    const uint8_t *ip, *tcp;
    uint16_t tot, tcp_len, doff;

    if (th->out_head == th->out_tail)
        return false;
    f = &th->out[th->out_head++];
    memset(seg, 0, offsetof(struct th_seg, data));
    seg->meta = f->meta;

    /* Ethernet: from us to the peer, IPv4. */
    assert_true(f->len >= NET_ETH_HLEN + 40);
    memcpy(seg->dst_mac, f->buf, 6);
    memcpy(seg->src_mac, f->buf + 6, 6);
    assert_memory_equal(seg->src_mac, th_our_mac, 6);
    assert_memory_equal(seg->dst_mac, th_peer_mac, 6);
    assert_int_equal(get16(f->buf + 12), NET_ETHERTYPE_IPV4);

    /* IPv4: no options, not fragmented, length consistent with the frame
     * (which may be padded beyond it). */
    ip = f->buf + NET_ETH_HLEN;
    assert_int_equal(ip[0], 0x45);
    tot = get16(ip + 2);
    assert_true(tot >= 40 && NET_ETH_HLEN + tot <= f->len);
    assert_int_equal(get16(ip + 6) & (NET_IPV4_FLAG_MF | NET_IPV4_FRAG_OFF_MASK), 0);
    assert_true(ip[8] > 0);
    assert_int_equal(ip[9], NET_IPPROTO_TCP);
    seg->src_ip = get32(ip + 12);
    seg->dst_ip = get32(ip + 16);
    assert_int_equal(seg->src_ip, TH_OUR_IP);
    assert_int_equal(seg->dst_ip & 0xffffff00u, TH_PEER_IP & 0xffffff00u);
    /* Offload only when the env offers it. */
    assert_true(!f->meta.ip_cksum_offload || th->env.ip_cksum_offload);
    assert_true(!f->meta.l4_cksum_offload || th->env.l4_cksum_offload);
    if (f->meta.ip_cksum_offload)
        assert_int_equal(get16(ip + 10), 0);
    else
        assert_int_equal(net_cksum(ip, 20), 0);

    tcp = ip + 20;
    tcp_len = (uint16_t)(tot - 20);
    doff = (uint16_t)((tcp[12] >> 4) * 4);
    assert_true(doff >= 20 && doff <= tcp_len);
    if (f->meta.l4_cksum_offload) {
        /* The field holds the folded pseudo-header sum, not complemented. */
        uint16_t want = fold(pseudo_sum(seg->src_ip, seg->dst_ip, tcp_len));
        uint16_t have;

        memcpy(&have, tcp + 16, 2);
        assert_int_equal(have, want);
    } else {
        assert_int_equal(net_cksum_finish(net_cksum_add(
                             pseudo_sum(seg->src_ip, seg->dst_ip, tcp_len), tcp, tcp_len)),
                         0);
    }
    seg->sport = get16(tcp);
    seg->dport = get16(tcp + 2);
    seg->seq = get32(tcp + 4);
    seg->ack = get32(tcp + 8);
    seg->flags = tcp[13];
    seg->win = get16(tcp + 14);
    seg->cksum = get16(tcp + 16);
    seg->opt_len = (uint8_t)(doff - 20);
    parse_opts(tcp + 20, doff - 20u, seg);
    seg->len = (uint16_t)(tcp_len - doff);
    memcpy(seg->data, tcp + doff, seg->len);
    /* Reserved bits zero; ACK on everything but a SYN or a reset. */
    assert_int_equal(tcp[12] & 0x0f, 0);
    if (!(seg->flags & (TH_SYN | TH_RST)))
        assert_true(seg->flags & TH_ACK);
    free(f->buf);
    if (th->out_head == th->out_tail)
        th->out_head = th->out_tail = 0;
    return true;
}

void th_drop_all(struct th *th)
{
    while (th_pop(th, &th->seg))
        ;
}

static const char *flag_str(uint8_t f, char *buf)
{
    static const char names[] = "FSRPAU";
    unsigned n = 0;

    for (unsigned i = 0; i < 6; i++)
        if (f & (1u << i))
            buf[n++] = names[i];
    buf[n] = 0;
    return buf;
}

void th_expect_none(struct th *th)
{
    if (th_pending(th)) {
        struct th_seg *seg = &th->seg;
        char fb[8];

        th_pop(th, seg);
        fail_msg("unexpected segment %s seq=%u ack=%u len=%u", flag_str(seg->flags, fb),
                 seg->seq, seg->ack, seg->len);
    }
}

const struct th_seg *th_expect(struct th *th, uint8_t flags, uint32_t seq, uint32_t ack,
                               uint16_t len)
{
    struct th_seg *seg = &th->seg;
    char f1[8], f2[8];

    if (!th_pop(th, seg))
        fail_msg("expected %s seq=%u ack=%u len=%u, nothing sent", flag_str(flags, f1), seq,
                 ack, len);
    if (seg->flags != flags || seg->seq != seq || ((flags & TH_ACK) && seg->ack != ack) ||
        seg->len != len)
        fail_msg("expected %s seq=%u ack=%u len=%u, got %s seq=%u ack=%u len=%u",
                 flag_str(flags, f1), seq, ack, len, flag_str(seg->flags, f2), seg->seq,
                 seg->ack, seg->len);
    return seg;
}

/* ---- the peer -------------------------------------------------------- */

void th_peer_init(struct th *th, struct th_peer *p, uint16_t port)
{
    memset(p, 0, sizeof(*p));
    p->th = th;
    p->port = port;
    p->lport = TH_PORT;
    p->irs = 0x10000000u + port;
    p->snd_nxt = p->irs;
    p->win = 65535;
    p->mss = 1460;
    p->ws = -1;
    p->tsval = 1000;
}

uint32_t th_peer_wnd(const struct th_peer *p, const struct th_seg *seg)
{
    if (seg->flags & TH_SYN || !p->ws_ok)
        return seg->win;
    return (uint32_t)seg->win << p->stack_ws;
}

/* The invariants every segment from the stack to p keeps. */
static void peer_check(struct th_peer *p, const struct th_seg *seg)
{
    assert_int_equal(seg->sport, p->lport);
    assert_int_equal(seg->dport, p->port);
    if (!(seg->flags & TH_SYN)) {
        /* MSS, WS and SACK-permitted belong to SYNs only (RFC 9293 3.7.1,
         * RFC 7323 2.2); SACK blocks only when SACK was permitted. */
        assert_false(seg->has_mss);
        assert_false(seg->has_ws);
        assert_false(seg->sack_perm);
        if (!p->sack_perm)
            assert_false(seg->has_sack);
    }
    if (seg->flags & TH_RST)
        return;
    if (p->ts_ok) {
        /* RFC 7323 3.2: TSopt in every non-RST segment once negotiated;
         * TSval monotonic non-decreasing. */
        assert_true(seg->has_ts);
        if (p->ts_seen && th_seq_lt(seg->tsval, p->ts_recent))
            fail_msg("TSval went backwards: %u after %u", seg->tsval, p->ts_recent);
    } else if (!(seg->flags & TH_SYN)) {
        assert_false(seg->has_ts);
    }
    if (seg->has_ts) {
        p->ts_recent = seg->tsval;
        p->ts_seen = true;
    }
    if (seg->flags & TH_ACK) {
        /* RFC 9293 3.8.6.2.2 / RFC 7323 2.4: the right edge of the offered
         * window never moves left. */
        uint32_t edge = seg->ack + th_peer_wnd(p, seg);

        if (p->edge_valid && th_seq_lt(edge, p->right_edge))
            fail_msg("receive window shrank: right edge %u after %u (ack %u win %u)", edge,
                     p->right_edge, seg->ack, seg->win);
        if (!p->edge_valid || th_seq_lt(p->right_edge, edge))
            p->right_edge = edge;
        p->edge_valid = true;
    }
}

bool th_peer_recv(struct th *th, struct th_peer *p, struct th_seg *seg)
{
    if (!th_pop(th, seg))
        return false;
    peer_check(p, seg);
    return true;
}

size_t th_peer_accept(struct th_peer *p, const struct th_seg *seg)
{
    uint32_t start = seg->seq + ((seg->flags & TH_SYN) ? 1 : 0);
    uint32_t end = start + seg->len;
    size_t took = 0;

    if (seg->flags & TH_RST)
        return 0;
    if (th_seq_le(start, p->rcv_nxt) && th_seq_lt(p->rcv_nxt, end)) {
        uint32_t off = p->rcv_nxt - start;

        took = seg->len - off;
        if (p->rx_len + took > p->rx_cap) {
            p->rx_cap = (p->rx_len + took) * 2 + 4096;
            p->rx = th_realloc(p->th, p->rx, p->rx_cap);
            assert_non_null(p->rx);
        }
        memcpy(p->rx + p->rx_len, seg->data + off, took);
        p->rx_len += took;
        p->rcv_nxt = end;
    }
    if ((seg->flags & TH_FIN) && p->rcv_nxt == end && !p->fin_rcvd) {
        p->rcv_nxt++;
        p->fin_rcvd = true;
    }
    return took;
}

unsigned th_peer_collect(struct th *th, struct th_peer *p)
{
    unsigned n = 0;

    while (th_peer_recv(th, p, &th->seg)) {
        th_peer_accept(p, &th->seg);
        n++;
    }
    return n;
}

const struct th_seg *th_peer_expect(struct th *th, struct th_peer *p, uint8_t flags,
                                    uint32_t seq, uint32_t ack, uint16_t len)
{
    const struct th_seg *seg = th_expect(th, flags, seq, ack, len);

    peer_check(p, seg);
    return seg;
}

void th_peer_tx(struct th *th, struct th_peer *p, uint8_t flags, uint32_t seq, uint32_t ack,
                const void *data, uint16_t len)
{
    th_send(th, &(struct th_tx){
                    .src_ip = p->ip,
                    .sport = p->port,
                    .dport = p->lport,
                    .flags = flags,
                    .seq = seq,
                    .ack = ack,
                    .win = p->win,
                    .has_ts = p->ts_ok,
                    .tsval = p->tsval,
                    .tsecr = p->ts_recent,
                    .data = data,
                    .len = len,
                });
}

void th_peer_data(struct th *th, struct th_peer *p, const void *data, uint16_t len)
{
    th_peer_tx(th, p, TH_ACK | TH_PSH, p->snd_nxt, p->rcv_nxt, data, len);
    p->snd_nxt += len;
}

void th_peer_ack(struct th *th, struct th_peer *p)
{
    th_peer_tx(th, p, TH_ACK, p->snd_nxt, p->rcv_nxt, NULL, 0);
}

void th_peer_fin(struct th *th, struct th_peer *p)
{
    th_peer_tx(th, p, TH_FIN | TH_ACK, p->snd_nxt, p->rcv_nxt, NULL, 0);
    p->snd_nxt++;
}

/* Learn from the stack's SYN or SYN-ACK what was negotiated with p. */
void th_peer_learn_syn(struct th_peer *p, const struct th_seg *seg, bool active)
{
    assert_int_equal(seg->len, 0);
    assert_true(seg->has_mss);
    p->stack_mss = seg->mss;
    if (seg->has_ws)
        assert_true(seg->ws <= 14);
    if (!active) {
        /* RFC 7323 1.3 / 2.2, RFC 2018: a SYN-ACK carries WS, TS and
         * SACK-permitted only if the SYN did. */
        if (p->ws < 0)
            assert_false(seg->has_ws);
        if (!p->ts)
            assert_false(seg->has_ts);
        if (!p->sack_perm)
            assert_false(seg->sack_perm);
        if (seg->has_ts)
            assert_int_equal(seg->tsecr, p->tsval);
    }
    p->ws_ok = p->ws >= 0 && seg->has_ws;
    p->stack_ws = p->ws_ok ? seg->ws : 0;
    p->ts_ok = p->ts && seg->has_ts;
    p->sack_perm = p->sack_perm && seg->sack_perm;
    p->syn_win = seg->win;
    p->iss = seg->seq;
    p->rcv_nxt = seg->seq + 1;
    if (active)
        p->lport = seg->sport;
}

void th_passive_syn(struct th *th, struct th_peer *p)
{
    struct th_seg *seg = &th->seg;

    p->snd_nxt = p->irs;
    TH_SEND(th, .src_ip = p->ip, .sport = p->port, .dport = p->lport, .flags = TH_SYN,
            .seq = p->irs,
            .win = p->win, .mss = p->mss, .has_ws = p->ws >= 0, .ws = (uint8_t)(p->ws & 0xff),
            .has_ts = p->ts, .tsval = p->tsval, .sack_perm = p->sack_perm);
    p->snd_nxt = p->irs + 1;
    if (!th_pop(th, seg))
        fail_msg("no SYN-ACK for the SYN from port %u", p->port);
    if (seg->flags != (TH_SYN | TH_ACK))
        fail_msg("SYN answered with flags 0x%x", seg->flags);
    assert_int_equal(seg->ack, p->irs + 1);
    th_peer_learn_syn(p, seg, false);
    peer_check(p, seg);
}

struct tcp_conn *th_passive_open(struct th *th, struct th_peer *p)
{
    unsigned before = th_events(th, TH_EV_ESTABLISHED, NULL);
    struct tcp_conn *c;

    th_passive_syn(th, p);
    th_peer_ack(th, p);
    assert_int_equal(th_events(th, TH_EV_ESTABLISHED, NULL), before + 1);
    c = th_last_established(th);
    assert_non_null(c);
    assert_int_equal(tcp_conn_state(c), TCP_ESTABLISHED);
    p->conn = c;
    return c;
}

struct tcp_conn *th_active_open(struct th *th, struct th_peer *p)
{
    struct th_seg *seg = &th->seg;
    struct tcp_conn *c = NULL;

    assert_int_equal(tcp_connect(th->s, TH_PEER_IP, p->port, &th_ops, th, th->now, &c), 0);
    assert_non_null(c);
    assert_int_equal(tcp_conn_state(c), TCP_SYN_SENT);
    th_flush(th);
    if (!th_pop(th, seg))
        fail_msg("no SYN after tcp_connect");
    assert_int_equal(seg->flags, TH_SYN);
    assert_int_equal(seg->dport, p->port);
    p->lport = seg->sport;
    assert_true(p->lport != 0);
    /* The stack offers what its config enables. */
    assert_int_equal(seg->has_ws, th->cfg.window_scaling);
    assert_int_equal(seg->has_ts, th->cfg.timestamps);
    assert_int_equal(seg->mss, th->cfg.mss);
    th_peer_learn_syn(p, seg, true);
    p->sack_perm = false;
    peer_check(p, seg);

    p->snd_nxt = p->irs;
    TH_SEND(th, .sport = p->port, .dport = p->lport, .flags = TH_SYN | TH_ACK, .seq = p->irs,
            .ack = p->iss + 1, .win = p->win, .mss = p->mss, .has_ws = p->ws_ok,
            .ws = (uint8_t)(p->ws & 0xff), .has_ts = p->ts_ok, .tsval = p->tsval,
            .tsecr = p->ts_recent);
    p->snd_nxt = p->irs + 1;
    th_peer_expect(th, p, TH_ACK, p->iss + 1, p->irs + 1, 0);
    assert_int_equal(th_events(th, TH_EV_ESTABLISHED, c), 1);
    assert_int_equal(tcp_conn_state(c), TCP_ESTABLISHED);
    p->conn = c;
    return c;
}

uint16_t th_peer_pump(struct th *th, struct th_peer *p, uint16_t max_seg, bool ack_each)
{
    struct th_seg *seg = &th->seg;
    uint16_t largest = 0;

    for (unsigned round = 0; round < 100000; round++) {
        unsigned got = 0;

        while (th_peer_recv(th, p, seg)) {
            if (seg->len > max_seg)
                fail_msg("segment of %u bytes, more than %u", seg->len, max_seg);
            if (seg->len > largest)
                largest = seg->len;
            th_peer_accept(p, seg);
            got++;
            if (ack_each && (seg->len || (seg->flags & TH_FIN)))
                th_peer_ack(th, p);
        }
        if (!got)
            break;
        if (!ack_each)
            th_peer_ack(th, p);
    }
    return largest;
}

/* ---- app side -------------------------------------------------------- */

void th_app_send(struct th *th, struct tcp_conn *c, const void *data, size_t len)
{
    ssize_t n = tcp_send(c, data, len);

    assert_int_equal(n, (ssize_t)len);
    th_flush(th);
}

size_t th_app_read(struct tcp_conn *c, void *buf, size_t cap)
{
    size_t total = 0, n;

    while (total < cap && (n = tcp_recv(c, (uint8_t *)buf + total, cap - total)) > 0)
        total += n;
    return total;
}

void *th_alloc(struct th *th, size_t n)
{
    for (unsigned i = 0; i < TH_ALLOC_MAX; i++) {
        if (!th->allocs[i]) {
            th->allocs[i] = calloc(1, n ? n : 1);
            assert_non_null(th->allocs[i]);
            return th->allocs[i];
        }
    }
    fail_msg("th_alloc: more than %u blocks", TH_ALLOC_MAX);
    return NULL;
}

void *th_realloc(struct th *th, void *ptr, size_t n)
{
    if (!ptr)
        return th_alloc(th, n);
    for (unsigned i = 0; i < TH_ALLOC_MAX; i++) {
        if (th->allocs[i] == ptr) {
            th->allocs[i] = realloc(ptr, n);
            assert_non_null(th->allocs[i]);
            return th->allocs[i];
        }
    }
    fail_msg("th_realloc of a block th does not own");
    return NULL;
}

void th_pattern(uint8_t *buf, size_t off, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++) {
        size_t k = off + i;

        buf[i] = (uint8_t)((k * 131u) ^ (k >> 7) ^ (seed * 29u));
    }
}
