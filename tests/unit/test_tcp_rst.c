/*
 * test_tcp_rst: what ofcd's TCP does with segments meant to hurt it: RST
 * and SYN validation per RFC 5961 (exact-match reset, challenge ACKs, the
 * challenge ACK rate limit), ACKs outside [SND.UNA - MAX.SND.WND, SND.NXT]
 * (RFC 5961 5.2), resets of half-open connections, and malformed segments
 * (bad checksum, data offset, option lengths, truncation): dropped, counted,
 * no state change, no crash.
 * Built with tcp_helper.c; every test ends in th_teardown's leak checks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tcp_helper.h"

static struct tcp_conn *open_conn(struct th *th, struct th_peer *p, uint16_t port)
{
    th_listen(th, TH_PORT, 0);
    th_peer_init(th, p, port);
    return th_passive_open(th, p);
}

/* RST at exactly RCV.NXT: on_closed(-ECONNRESET), nothing sent, everything
 * (queued send data included) freed. */
static void test_rst_exact_resets(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40001);
    uint8_t d[500] = {0};

    assert_int_equal(tcp_send(c, d, sizeof(d)), (ssize_t)sizeof(d));
    th_flush(th);
    th_drop_all(th);
    assert_true(th->chunks_live > 0);
    th_peer_tx(th, &p, TH_RST, p.snd_nxt, 0, NULL, 0);
    assert_int_equal(th_close_reason(th, c), -ECONNRESET);
    th_expect_none(th);
    assert_int_equal(tcp_stack_conn_count(th->s), 0);
    assert_int_equal(th->chunks_live, 0);
    assert_int_equal(TH_STAT(th, rst_received), 1);
    assert_int_equal(TH_STAT(th, conns_reset), 1);
}

/* A reset with out-of-order data held and unread data queued frees both. */
static void test_rst_frees_queued_data(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40008);
    struct tcp_conn_info info;
    uint8_t d[3000] = {0};

    th_peer_data(th, &p, d, 1000);
    th_peer_tx(th, &p, TH_ACK, p.snd_nxt + 500, p.rcv_nxt, d, 1000);
    th_drop_all(th);
    tcp_conn_get_info(c, &info);
    assert_int_equal(info.ooo_segs, 1);
    assert_int_equal(info.rcv_queued, 1000);
    assert_true(th->chunks_live >= 2);
    th_peer_tx(th, &p, TH_RST | TH_ACK, p.snd_nxt, p.rcv_nxt, NULL, 0);
    assert_int_equal(th_close_reason(th, c), -ECONNRESET);
    assert_int_equal(th->chunks_live, 0);
    assert_int_equal(tcp_stack_conn_count(th->s), 0);
}

/* RST inside the window but not at RCV.NXT (RFC 5961 3.2): a challenge ACK
 * <SEQ=SND.NXT><ACK=RCV.NXT>, the connection kept (again for one that comes
 * after tcp.invalid_ack_interval_ms); the peer's RST at the challenged
 * RCV.NXT then resets it. */
static void test_rst_in_window_challenge(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40002);

    th_peer_tx(th, &p, TH_RST, p.snd_nxt + 100, 0, NULL, 0);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.snd_nxt, 0);
    th_expect_none(th);
    th_advance(th, 500 * TH_MS);
    th_peer_tx(th, &p, TH_RST | TH_ACK, p.snd_nxt + 1, p.rcv_nxt, NULL, 0);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.snd_nxt, 0);
    assert_int_equal(tcp_conn_state(c), TCP_ESTABLISHED);
    assert_false(th_is_closed(th, c));
    assert_int_equal(TH_STAT(th, challenge_acks), 2);
    assert_int_equal(TH_STAT(th, rst_received), 0);

    th_peer_tx(th, &p, TH_RST, th->seg.ack, 0, NULL, 0);
    assert_int_equal(th_close_reason(th, c), -ECONNRESET);
    assert_int_equal(tcp_stack_conn_count(th->s), 0);
}

/* RST outside the window (left of RCV.NXT or beyond RCV.NXT + RCV.WND) is
 * silently dropped (RFC 5961 3.2 step 1). */
static void test_rst_out_of_window_ignored(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40003);

    th_peer_tx(th, &p, TH_RST, p.snd_nxt - 1, 0, NULL, 0);
    th_peer_tx(th, &p, TH_RST, p.snd_nxt + th->cfg.rcv_buf + 10, 0, NULL, 0);
    th_peer_tx(th, &p, TH_RST, p.snd_nxt + 0x40000000u, 0, NULL, 0);
    th_expect_none(th);
    assert_int_equal(tcp_conn_state(c), TCP_ESTABLISHED);
    assert_false(th_is_closed(th, c));
    assert_int_equal(TH_STAT(th, rst_received), 0);
}

/* SYN (or SYN-ACK) on an established connection, in window or not: an ACK
 * <SEQ=SND.NXT><ACK=RCV.NXT> (RFC 5961 4.2, RFC 9293 3.10.7.4; one per
 * tcp.invalid_ack_interval_ms), never a reset or a new handshake; the
 * connection goes on. */
static void test_syn_in_established(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40004);
    uint8_t d[50] = {1};

    TH_SEND(th, .sport = p.port, .flags = TH_SYN, .seq = p.snd_nxt + 5, .mss = 1460);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.snd_nxt, 0);
    th_advance(th, 500 * TH_MS);
    TH_SEND(th, .sport = p.port, .flags = TH_SYN, .seq = p.snd_nxt + 0x50000000u,
            .mss = 1460);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.snd_nxt, 0);
    th_advance(th, 500 * TH_MS);
    TH_SEND(th, .sport = p.port, .flags = TH_SYN | TH_ACK, .seq = p.irs, .ack = p.iss + 1,
            .mss = 1460);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.snd_nxt, 0);
    th_expect_none(th);
    assert_int_equal(tcp_conn_state(c), TCP_ESTABLISHED);
    assert_true(TH_STAT(th, challenge_acks) >= 1);
    assert_int_equal(tcp_stack_conn_count(th->s), 1);
    th_peer_data(th, &p, d, sizeof(d));
    assert_int_equal(tcp_recv_available(c), sizeof(d));
}

/* RFC 5961 5.2 / RFC 9293 3.10.7.4: a segment acknowledging data never sent
 * (SEG.ACK > SND.NXT) or older than SND.UNA - MAX.SND.WND is answered with an
 * ACK (one per tcp.invalid_ack_interval_ms) and dropped, its data with it; a
 * merely old ACK inside that range is a duplicate and its data is taken. */
static void test_unacceptable_ack(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40005);
    uint8_t d[100];

    th_pattern(d, 0, sizeof(d), 5);
    th_peer_tx(th, &p, TH_ACK | TH_PSH, p.snd_nxt, p.iss + 1 + 1000, d, sizeof(d));
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.irs + 1, 0);
    assert_int_equal(tcp_recv_available(c), 0);

    th_advance(th, 500 * TH_MS);
    th_peer_tx(th, &p, TH_ACK | TH_PSH, p.snd_nxt, p.iss + 1 - 70000, d, sizeof(d));
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.irs + 1, 0);
    assert_int_equal(tcp_recv_available(c), 0);
    th_expect_none(th);

    th_peer_tx(th, &p, TH_ACK | TH_PSH, p.snd_nxt, p.iss + 1 - 10, d, sizeof(d));
    assert_int_equal(tcp_recv_available(c), sizeof(d));
    assert_int_equal(tcp_conn_state(c), TCP_ESTABLISHED);
}

/* Frames queued for p's connection that are ACKs: popped, counted. */
static unsigned count_acks(struct th *th, struct th_peer *p)
{
    struct th_seg seg;
    unsigned acks = 0;

    while (th_peer_recv(th, p, &seg)) {
        assert_int_equal(seg.flags, TH_ACK);
        acks++;
    }
    return acks;
}

/* challenge_ack_per_s bounds the stack's challenge ACKs per second across
 * connections, the excess counted; the budget returns a second later. With
 * a base of 1 the drawn budget is exactly 1 (see the randomised test). */
static void test_challenge_ack_rate_limit(void **state)
{
    struct th *th = *state;
    struct th_peer p[10];
    unsigned acks = 0;

    th->cfg.challenge_ack_per_s = 1;
    th_restart(th);
    th_listen(th, TH_PORT, 0);
    for (unsigned i = 0; i < 10; i++) {
        th_peer_init(th, &p[i], (uint16_t)(40060 + i));
        th_passive_open(th, &p[i]);
    }
    for (unsigned i = 0; i < 10; i++) {
        th_peer_tx(th, &p[i], TH_RST, p[i].snd_nxt + 1, 0, NULL, 0);
        acks += count_acks(th, &p[i]);
    }
    assert_int_equal(acks, 1);
    assert_int_equal(TH_STAT(th, challenge_acks), 1);
    assert_int_equal(TH_STAT(th, challenge_ack_limited), 9);
    assert_int_equal(TH_STAT(th, invalid_ack_limited), 0);

    th_advance(th, 1001 * TH_MS);
    th_expect_none(th);
    th_peer_tx(th, &p[5], TH_RST, p[5].snd_nxt + 1, 0, NULL, 0);
    th_peer_expect(th, &p[5], TH_ACK, p[5].iss + 1, p[5].snd_nxt, 0);
    assert_int_equal(TH_STAT(th, challenge_acks), 2);
    assert_int_equal(tcp_stack_conn_count(th->s), 10);
}

/* RFC 5961 7 / CVE-2016-5696: a connection gets at most one ACK to an
 * invalid segment (here in-window RSTs, each worth a challenge ACK) per
 * tcp.invalid_ack_interval_ms (500 ms by default); what it is refused does
 * not spend the stack's shared budget, so another connection is still
 * answered — an attacker's own connection cannot count that budget. */
static void test_challenge_ack_per_connection(void **state)
{
    struct th *th = *state;
    struct th_peer a, b;
    struct tcp_conn *ca, *cb;

    th->cfg.challenge_ack_per_s = 4;      /* 2..5 a second, drawn each second */
    th_restart(th);
    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &a, 40030);
    ca = th_passive_open(th, &a);
    th_peer_init(th, &b, 40031);
    cb = th_passive_open(th, &b);

    for (unsigned i = 0; i < 10; i++)
        th_peer_tx(th, &a, TH_RST, a.snd_nxt + 1 + i, 0, NULL, 0);
    assert_int_equal(count_acks(th, &a), 1);
    assert_int_equal(TH_STAT(th, invalid_ack_limited), 9);
    th_peer_tx(th, &b, TH_RST, b.snd_nxt + 1, 0, NULL, 0);
    th_peer_expect(th, &b, TH_ACK, b.iss + 1, b.snd_nxt, 0);
    assert_int_equal(TH_STAT(th, challenge_acks), 2);
    assert_int_equal(TH_STAT(th, challenge_ack_limited), 0);

    th_advance(th, 499 * TH_MS);
    th_peer_tx(th, &a, TH_RST, a.snd_nxt + 1, 0, NULL, 0);
    th_expect_none(th);
    th_advance(th, 2 * TH_MS);
    th_peer_tx(th, &a, TH_RST, a.snd_nxt + 1, 0, NULL, 0);
    th_peer_expect(th, &a, TH_ACK, a.iss + 1, a.snd_nxt, 0);
    assert_int_equal(tcp_conn_state(ca), TCP_ESTABLISHED);
    assert_int_equal(tcp_conn_state(cb), TCP_ESTABLISHED);
}

/* The stack's challenge ACK budget is drawn afresh each second around
 * tcp.challenge_ack_per_s (half of it plus a random share of it, from the
 * stack's keyed hash), so how many a second were sent says nothing an
 * attacker can subtract from: over 40 seconds of 24 connections each
 * earning one per second, the seconds differ, stay within the bounds and
 * average about the base. */
static void test_challenge_ack_budget_randomised(void **state)
{
    struct th *th = *state;
    struct th_peer p[24];
    unsigned seen[64] = {0}, distinct = 0, total = 0;
    const unsigned base = 10, secs = 40;

    th->cfg.challenge_ack_per_s = base;   /* 5..14 a second */
    th_restart(th);
    th_listen(th, TH_PORT, 0);
    for (unsigned i = 0; i < 24; i++) {
        th_peer_init(th, &p[i], (uint16_t)(40040 + i));
        th_passive_open(th, &p[i]);
    }
    th_advance(th, 1000 * TH_MS);
    for (unsigned t = 0; t < secs; t++) {
        unsigned acks = 0;

        for (unsigned i = 0; i < 24; i++) {
            th_peer_tx(th, &p[i], TH_RST, p[i].snd_nxt + 1, 0, NULL, 0);
            acks += count_acks(th, &p[i]);
        }
        if (acks < base / 2 || acks > base / 2 + base - 1)
            fail_msg("second %u: %u challenge ACKs, outside %u..%u", t, acks, base / 2,
                     base / 2 + base - 1);
        distinct += seen[acks]++ == 0;
        total += acks;
        th_advance(th, 1000 * TH_MS);
    }
    if (distinct < 4)
        fail_msg("only %u different budgets in %u seconds", distinct, secs);
    if (total < secs * (base - 2) || total > secs * (base + 2))
        fail_msg("%u challenge ACKs in %u s: the mean is not near %u", total, secs, base);
}

/* Segments outside the window — pure ACKs far ahead, an ACK of data never
 * sent — get at most one ACK per 500 ms per connection, so neither a peer
 * nor a spoofer makes ofcd answer every segment (and two stacks cannot
 * ACK each other's ACKs forever); a segment at RCV.NXT (a zero-window
 * probe) is not limited. */
static void test_out_of_window_ack_rate_limit(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40033);
    uint8_t d[100] = {0};

    for (unsigned i = 0; i < 10; i++)
        th_peer_tx(th, &p, TH_ACK, p.snd_nxt + 100000 + i * 1000, p.rcv_nxt, NULL, 0);
    assert_int_equal(count_acks(th, &p), 1);
    assert_int_equal(TH_STAT(th, drop_out_of_window), 10);
    th_peer_tx(th, &p, TH_ACK | TH_PSH, p.snd_nxt, p.iss + 1 + 1000, d, sizeof(d));
    th_expect_none(th);
    assert_int_equal(TH_STAT(th, invalid_ack_limited), 10);
    assert_int_equal(tcp_recv_available(c), 0);

    th_advance(th, 501 * TH_MS);
    th_peer_tx(th, &p, TH_ACK | TH_PSH, p.snd_nxt, p.iss + 1 + 1000, d, sizeof(d));
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.snd_nxt, 0);
    th_peer_tx(th, &p, TH_ACK, p.snd_nxt + 100000, p.rcv_nxt, NULL, 0);
    th_expect_none(th);
    th_peer_data(th, &p, d, sizeof(d));
    assert_int_equal(tcp_recv_available(c), sizeof(d));
    assert_int_equal(tcp_conn_state(c), TCP_ESTABLISHED);
}

/* SYN-RECEIVED from a passive open: a RST at RCV.NXT returns it to LISTEN
 * (RFC 9293 3.10.7.4) with no callback; one elsewhere in the window is
 * challenged; the listener keeps working. */
static void test_rst_in_syn_received(void **state)
{
    struct th *th = *state;
    struct th_peer p;

    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &p, 40007);
    th_passive_syn(th, &p);
    th_peer_tx(th, &p, TH_RST, p.irs + 1 + 50, 0, NULL, 0);
    while (th_peer_recv(th, &p, &th->seg))
        assert_false(th->seg.flags & TH_RST);
    assert_int_equal(tcp_stack_conn_count(th->s), 1);
    th_peer_tx(th, &p, TH_RST, p.irs + 1, 0, NULL, 0);
    th_expect_none(th);
    assert_int_equal(tcp_stack_conn_count(th->s), 0);
    assert_int_equal(th->nev, 0);
    th_advance(th, 5 * TH_SEC);
    th_expect_none(th);

    th_peer_init(th, &p, 40007);
    p.irs += 1000;
    th_passive_open(th, &p);
}

/* ---- malformed input ------------------------------------------------ */

/* A wrong TCP checksum: counted, and no effect whatever the segment says
 * (SYN to a listener, RST or FIN or data on a connection). With
 * l4_cksum_ok (NIC verified) the software check is skipped. */
static void test_bad_checksum(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40010);
    uint8_t d[100] = {0};

    TH_SEND(th, .sport = 40011, .flags = TH_SYN, .seq = 1, .mss = 1460, .bad_cksum = true);
    TH_SEND(th, .sport = p.port, .flags = TH_RST, .seq = p.snd_nxt, .bad_cksum = true);
    TH_SEND(th, .sport = p.port, .flags = TH_FIN | TH_ACK, .seq = p.snd_nxt,
            .ack = p.rcv_nxt, .bad_cksum = true);
    TH_SEND(th, .sport = p.port, .flags = TH_ACK, .seq = p.snd_nxt, .ack = p.rcv_nxt,
            .data = d, .len = sizeof(d), .bad_cksum = true);
    th_advance(th, 100 * TH_MS);
    th_expect_none(th);
    assert_int_equal(TH_STAT(th, drop_bad_cksum), 4);
    assert_int_equal(tcp_conn_state(c), TCP_ESTABLISHED);
    assert_int_equal(tcp_recv_available(c), 0);
    assert_false(tcp_recv_eof(c));
    assert_int_equal(tcp_stack_conn_count(th->s), 1);

    TH_SEND(th, .sport = 40011, .flags = TH_SYN, .seq = 1, .mss = 1460, .bad_cksum = true,
            .cksum_ok = true);
    assert_true(th_pop(th, &th->seg));
    assert_int_equal(th->seg.flags, TH_SYN | TH_ACK);
    assert_int_equal(TH_STAT(th, drop_bad_cksum), 4);
}

static const uint8_t opt_len0[] = {2, 0, 5, 0xb4};          /* MSS kind, length 0 */
static const uint8_t opt_len1[] = {3, 1, 1, 1};             /* WS kind, length 1 */
static const uint8_t opt_past_end[] = {1, 1, 1, 2};         /* MSS kind, no length */
static const uint8_t opt_overflow[] = {8, 10, 0, 0};        /* TS of 10 in 4 bytes */
static const uint8_t opt_len_over[] = {1, 2, 6, 5, 0xb4, 0, 0, 0}; /* length 6 > 5 left */

/* Malformed TCP header or options on a SYN: counted as drop_malformed,
 * nothing sent, no state created. */
static void test_malformed_headers(void **state)
{
    struct th *th = *state;
    struct {
        const uint8_t *opts;
        uint8_t len;
        int doff;
    } bad[] = {
        {NULL, 0, 4},                      /* data offset below 5 */
        {NULL, 0, 1},
        {NULL, 0, 15},                     /* beyond the 20-byte segment */
        {opt_len0, sizeof(opt_len0), 0},
        {opt_len1, sizeof(opt_len1), 0},
        {opt_past_end, sizeof(opt_past_end), 0},
        {opt_overflow, sizeof(opt_overflow), 0},
        {opt_len_over, sizeof(opt_len_over), 0},
    };
    unsigned n = sizeof(bad) / sizeof(bad[0]);

    th_listen(th, TH_PORT, 0);
    for (unsigned i = 0; i < n; i++) {
        uint64_t before = TH_STAT(th, drop_malformed);

        TH_SEND(th, .sport = (uint16_t)(40100 + i), .flags = TH_SYN, .seq = 1,
                .raw_opts = bad[i].opts, .raw_opts_len = bad[i].len, .doff = bad[i].doff);
        if (TH_STAT(th, drop_malformed) != before + 1)
            fail_msg("case %u not counted as malformed", i);
        th_expect_none(th);
        assert_int_equal(tcp_stack_conn_count(th->s), 0);
    }
    /* A well-formed SYN still works afterwards. */
    TH_SEND(th, .sport = 40199, .flags = TH_SYN, .seq = 1, .mss = 1460);
    assert_true(th_pop(th, &th->seg));
    assert_int_equal(th->seg.flags, TH_SYN | TH_ACK);
}

/* Malformed segments on an established connection change nothing. */
static void test_malformed_on_connection(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40020);
    uint8_t d[40] = {0};

    TH_SEND(th, .sport = p.port, .flags = TH_RST, .seq = p.snd_nxt, .doff = 3);
    TH_SEND(th, .sport = p.port, .flags = TH_ACK | TH_FIN, .seq = p.snd_nxt, .ack = p.rcv_nxt,
            .raw_opts = opt_len0, .raw_opts_len = sizeof(opt_len0));
    TH_SEND(th, .sport = p.port, .flags = TH_ACK, .seq = p.snd_nxt, .ack = p.rcv_nxt,
            .data = d, .len = 8, .doff = 15);
    th_expect_none(th);
    assert_int_equal(TH_STAT(th, drop_malformed), 3);
    assert_int_equal(tcp_conn_state(c), TCP_ESTABLISHED);
    assert_int_equal(tcp_recv_available(c), 0);
    assert_false(tcp_recv_eof(c));
}

/* The L4 length from the IPv4 header shorter than a TCP header, or running
 * past the frame: dropped as malformed without reading beyond the frame
 * (ASan checks: th_input hands the stack an exact-size copy). */
static void test_truncated_segment(void **state)
{
    struct th *th = *state;
    uint8_t *buf = th_alloc(th, TH_FRAME_MAX);
    struct net_rx_info info;
    uint16_t len;

    th_listen(th, TH_PORT, 0);
    len = th_build(&(struct th_tx){.sport = 40300, .flags = TH_SYN, .seq = 1, .mss = 1460},
                   buf, &info);
    for (unsigned l4 = 0; l4 < 20; l4 += 6) {
        uint8_t *frame = th_alloc(th, len);
        struct net_rx_info bad = info;

        memcpy(frame, buf, len);
        bad.l4_len = (uint16_t)l4;
        tcp_input(th->s, frame, (uint16_t)(info.l4_off + l4), &bad, false, th->now);
        th_flush(th);
    }
    {
        uint8_t *frame = th_alloc(th, len);
        struct net_rx_info bad = info;

        memcpy(frame, buf, len);
        bad.l4_len = (uint16_t)(info.l4_len + 100);
        tcp_input(th->s, frame, len, &bad, false, th->now);
        th_flush(th);
    }
    th_expect_none(th);
    assert_int_equal(TH_STAT(th, drop_malformed), 5);
    assert_int_equal(tcp_stack_conn_count(th->s), 0);
}

/* Junk in every field: no crash, no leak, the stack still serves. A cheap
 * deterministic smoke run; the fuzz target does the real search. */
static void test_random_segments(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    uint32_t x = 12345;
    uint8_t d[64], opts[40];

    open_conn(th, &p, 40400);
    for (unsigned i = 0; i < 3000; i++) {
        x = x * 1103515245u + 12345u;
        uint8_t olen = (uint8_t)((x >> 8) % 41);

        for (unsigned k = 0; k < olen; k++) {
            x = x * 1103515245u + 12345u;
            opts[k] = (uint8_t)(x >> 16);
        }
        for (unsigned k = 0; k < sizeof(d); k++)
            d[k] = (uint8_t)(x >> (k % 24));
        x = x * 1103515245u + 12345u;
        TH_SEND(th, .sport = (i & 1) ? p.port : (uint16_t)(40401 + (x & 7)),
                .flags = (uint8_t)(x >> 5) & 0x3f,
                .seq = (i & 2) ? p.snd_nxt + (x >> 20) : x, .ack = (i & 4) ? p.rcv_nxt : x * 7,
                .win = (x >> 3) & 0xffff, .raw_opts = opts, .raw_opts_len = olen,
                .data = d, .len = (uint16_t)((x >> 12) % sizeof(d)));
        th_drop_all(th);
        if (i % 100 == 0)
            th_advance(th, 50 * TH_MS);
    }
    th_drop_all(th);
    th_peer_init(th, &p, 40500);
    th_passive_open(th, &p);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, th_setup, th_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_rst_exact_resets),
        T(test_rst_frees_queued_data),
        T(test_rst_in_window_challenge),
        T(test_rst_out_of_window_ignored),
        T(test_syn_in_established),
        T(test_unacceptable_ack),
        T(test_challenge_ack_rate_limit),
        T(test_challenge_ack_per_connection),
        T(test_challenge_ack_budget_randomised),
        T(test_out_of_window_ack_rate_limit),
        T(test_rst_in_syn_received),
        T(test_bad_checksum),
        T(test_malformed_headers),
        T(test_malformed_on_connection),
        T(test_truncated_segment),
        T(test_random_segments),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
