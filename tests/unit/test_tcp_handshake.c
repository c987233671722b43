/*
 * test_tcp_handshake: connection set-up in ofcd's TCP, segment by segment
 * (RFC 9293 3.5 and 3.10, RFC 7323 options, RFC 6528 ISNs, RFC 4987 SYN
 * cookies): passive and active open with option negotiation, simultaneous
 * open, SYN-ACK and SYN retransmission and give-up, resets for closed ports,
 * the listener backlog with and without SYN cookies, the connection table
 * bound, ISN generation, and checksum offload on transmit.
 * Built with tcp_helper.c; every test ends in th_teardown's leak checks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "tcp_helper.h"

/* The documented defaults (tcp.h): the config's [tcp] section relies on them. */
static void test_config_defaults(void **state)
{
    struct tcp_config cfg;

    (void)state;
    memset(&cfg, 0xff, sizeof(cfg));
    tcp_config_defaults(&cfg);
    assert_int_equal(cfg.mss, 1460);
    assert_int_equal(cfg.rto_min_ms, 200);
    assert_int_equal(cfg.rto_max_ms, 60000);
    assert_int_equal(cfg.rto_initial_ms, 1000);
    assert_true(cfg.delack_ms > 0 && cfg.delack_ms <= 40);
    assert_true(cfg.rcv_buf > 0 && cfg.snd_buf > 0 && cfg.max_conns > 0);
    assert_true(cfg.challenge_ack_per_s > 0);
}

/* Every option offered: the SYN-ACK answers each (MSS is ours, TSecr echoes
 * the SYN's TSval), its window is not scaled (RFC 7323 2.2), later windows
 * are scaled both ways, and sent segments respect the peer's MSS less the
 * 12 bytes of the timestamp option (RFC 6691). */
static void test_passive_open_all_options(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn_info info;
    struct tcp_conn *c;
    uint8_t data[5000];

    th->cfg.rcv_buf = 262144;
    th_restart(th);
    th_listen(th, TH_PORT, 0);
    tcp_stack_force_next_iss(th->s, 0x12345678);
    th_peer_init(th, &p, 40001);
    p.mss = 1200;
    p.ws = 7;
    p.ts = true;
    p.sack_perm = true;
    p.tsval = 1000;
    th_passive_syn(th, &p);
    assert_int_equal(p.iss, 0x12345678);
    assert_int_equal(p.stack_mss, 1460);
    assert_true(p.ws_ok);
    assert_true(p.ts_ok);
    assert_int_equal(th->seg.tsecr, 1000);
    /* The shift lets the window cover the buffer, and the SYN-ACK's window
     * is the unscaled value (a scaled one would be rcv_buf >> shift). */
    assert_true((65535u << p.stack_ws) >= th->cfg.rcv_buf);
    assert_true(p.syn_win > (th->cfg.rcv_buf >> p.stack_ws));
    assert_int_equal(tcp_stack_conn_count(th->s), 1);
    assert_int_equal(th_state_count(th, TCP_SYN_RECEIVED), 1);

    th_peer_ack(th, &p);
    c = th_last_established(th);
    assert_non_null(c);
    assert_int_equal(tcp_conn_state(c), TCP_ESTABLISHED);
    tcp_conn_get_info(c, &info);
    assert_true(info.timestamps);
    assert_int_equal(info.local_port, TH_PORT);
    assert_int_equal(info.remote_port, 40001);
    assert_int_equal(info.local_ip, TH_OUR_IP);
    assert_int_equal(info.remote_ip, TH_PEER_IP);
    assert_int_equal(info.state, TCP_ESTABLISHED);

    /* The peer's windows are scaled by its shift (7). */
    p.win = 100;
    th_peer_ack(th, &p);
    tcp_conn_get_info(c, &info);
    assert_int_equal(info.snd_wnd, 100u << 7);
    p.win = 65535;
    th_peer_ack(th, &p);

    /* Our windows are scaled by ours: the buffer shows beyond 64 KiB. */
    th_pattern(data, 0, 100, 1);
    th_peer_data(th, &p, data, 100);
    assert_true(th_advance_until_frame(th, 200 * TH_MS) <= th->cfg.delack_ms * TH_MS);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.irs + 101, 0);
    assert_true(th_peer_wnd(&p, &th->seg) > 65535);
    assert_int_equal(th->seg.tsecr, p.tsval);

    th_pattern(data, 0, sizeof(data), 2);
    assert_int_equal(tcp_send(c, data, sizeof(data)), (ssize_t)sizeof(data));
    th_flush(th);
    assert_true(th_pending(th) > 0);
    assert_int_equal(th_peer_pump(th, &p, 1200 - 12, true), 1200 - 12);
    assert_int_equal(p.rx_len, sizeof(data));
    assert_memory_equal(p.rx, data, sizeof(data));
}

/* Only MSS offered: the SYN-ACK carries MSS alone and no segment carries a
 * timestamp (checked by the peer model); full segments are the peer's MSS. */
static void test_passive_open_mss_only(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    uint8_t data[3000];

    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &p, 40002);
    p.mss = 1000;
    c = th_passive_open(th, &p);
    assert_false(th->seg.has_ws);
    assert_false(th->seg.has_ts);
    assert_false(th->seg.sack_perm);
    /* The SYN-ACK window is the receive buffer (32 KiB, no scaling). */
    assert_true(p.syn_win > 0 && p.syn_win <= th->cfg.rcv_buf);

    th_pattern(data, 0, sizeof(data), 3);
    th_app_send(th, c, data, sizeof(data));
    assert_int_equal(th_peer_pump(th, &p, 1000, true), 1000);
    assert_memory_equal(p.rx, data, sizeof(data));
}

/* No MSS option: the send MSS defaults to 536 (RFC 9293 3.7.1, MUST-15). */
static void test_passive_open_no_options_mss_536(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    uint8_t data[2000];

    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &p, 40003);
    p.mss = 0;
    c = th_passive_open(th, &p);
    th_pattern(data, 0, sizeof(data), 4);
    th_app_send(th, c, data, sizeof(data));
    assert_int_equal(th_peer_pump(th, &p, 536, true), 536);
    assert_int_equal(p.rx_len, sizeof(data));
    assert_memory_equal(p.rx, data, sizeof(data));
}

/* The handshake's final ACK may carry data: established, then readable. */
static void test_third_segment_with_data(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    uint8_t d[100];

    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &p, 40004);
    th_passive_syn(th, &p);
    th_pattern(d, 0, sizeof(d), 12);
    th_peer_data(th, &p, d, sizeof(d));
    c = th_last_established(th);
    assert_non_null(c);
    assert_int_equal(tcp_conn_state(c), TCP_ESTABLISHED);
    assert_int_equal(th_events(th, TH_EV_READABLE, c), 1);
    assert_int_equal(tcp_recv_available(c), sizeof(d));
}

/* Active open: the SYN carries our ISS and options; the SYN-ACK's window is
 * taken unscaled (RFC 7323 2.2), later ones scaled; the ACK completes. */
static void test_active_open(void **state)
{
    struct th *th = *state;
    struct th_peer p, p2;
    struct tcp_conn *c, *c2;
    struct tcp_conn_info info;
    uint8_t data[1000];

    tcp_stack_force_next_iss(th->s, 0x01020304);
    th_peer_init(th, &p, 6653);
    p.ws = 2;
    p.ts = true;
    p.win = 1000;
    c = th_active_open(th, &p);
    assert_int_equal(p.iss, 0x01020304);
    assert_true(p.ws_ok && p.ts_ok);
    assert_int_equal(th_events(th, TH_EV_ESTABLISHED, c), 1);
    tcp_conn_get_info(c, &info);
    assert_int_equal(info.snd_wnd, 1000);
    assert_int_equal(info.remote_port, 6653);
    assert_int_equal(info.local_port, p.lport);

    th_peer_ack(th, &p);
    tcp_conn_get_info(c, &info);
    assert_int_equal(info.snd_wnd, 4000);

    th_pattern(data, 0, sizeof(data), 5);
    th_peer_data(th, &p, data, sizeof(data));
    assert_int_equal(tcp_recv_available(c), sizeof(data));

    /* A second connection to the same peer port gets another local port. */
    th_peer_init(th, &p2, 6653);
    c2 = th_active_open(th, &p2);
    assert_true(c2 != c);
    assert_true(p2.lport != p.lport);
    assert_int_equal(tcp_stack_conn_count(th->s), 2);
}

/* tcp_send before the handshake completes is refused. */
static void test_send_before_established(void **state)
{
    struct th *th = *state;
    struct tcp_conn *c = NULL;

    assert_int_equal(tcp_connect(th->s, TH_PEER_IP, 6653, &th_ops, th, th->now, &c), 0);
    assert_int_equal(tcp_send(c, "x", 1), -ENOTCONN);
    tcp_abort(c);
    th_flush(th);
    th_drop_all(th);
    assert_int_equal(tcp_stack_conn_count(th->s), 0);
}

/* Next hop unresolved: no SYN while resolve says -EAGAIN, then the SYN goes
 * out once it resolves, within the initial RTO. */
static void test_active_open_resolve_pending(void **state)
{
    struct th *th = *state;
    struct tcp_conn *c = NULL;
    struct th_seg seg;
    uint64_t waited;

    th->resolve_rc = -EAGAIN;
    assert_int_equal(tcp_connect(th->s, TH_PEER_IP, 6653, &th_ops, th, th->now, &c), 0);
    th_flush(th);
    th_expect_none(th);
    assert_true(th->resolve_calls > 0);
    assert_true(TH_STAT(th, no_route) > 0);
    th_advance(th, 10 * TH_MS);
    th_expect_none(th);

    th->resolve_rc = 0;
    waited = th_advance_until_frame(th, th->cfg.rto_initial_ms * TH_MS);
    assert_true(waited != UINT64_MAX);
    assert_true(th_pop(th, &seg));
    assert_int_equal(seg.flags, TH_SYN);
    assert_int_equal(seg.dport, 6653);
    tcp_abort(c);
    th_flush(th);
    th_drop_all(th);
}

/* SYN-SENT (RFC 9293 3.10.7.3): a RST whose ACK does not cover the SYN, or
 * that has no ACK, is dropped; an acceptable one refuses the connection. */
static void test_active_open_refused(void **state)
{
    struct th *th = *state;
    struct tcp_conn *c = NULL;
    struct th_seg seg;
    uint32_t iss = 0x7ffffff0;

    tcp_stack_force_next_iss(th->s, iss);
    assert_int_equal(tcp_connect(th->s, TH_PEER_IP, 6653, &th_ops, th, th->now, &c), 0);
    th_flush(th);
    assert_true(th_pop(th, &seg));
    assert_int_equal(seg.seq, iss);

    TH_SEND(th, .sport = 6653, .dport = seg.sport, .flags = TH_RST | TH_ACK, .seq = 0,
            .ack = iss + 5);
    TH_SEND(th, .sport = 6653, .dport = seg.sport, .flags = TH_RST, .seq = 0);
    th_expect_none(th);
    assert_int_equal(tcp_conn_state(c), TCP_SYN_SENT);
    assert_false(th_is_closed(th, c));

    TH_SEND(th, .sport = 6653, .dport = seg.sport, .flags = TH_RST | TH_ACK, .seq = 0,
            .ack = iss + 1);
    assert_int_equal(th_close_reason(th, c), -ECONNREFUSED);
    th_expect_none(th);
    assert_int_equal(tcp_stack_conn_count(th->s), 0);
    assert_int_equal(th_events(th, TH_EV_ESTABLISHED, NULL), 0);
}

/* SYN-ACK acknowledging something we never sent: <SEQ=SEG.ACK><CTL=RST>,
 * and the connection stays in SYN-SENT (RFC 9293 3.10.7.3). */
static void test_active_open_bad_synack(void **state)
{
    struct th *th = *state;
    struct tcp_conn *c = NULL;
    struct th_seg seg;
    struct th_peer p;
    uint32_t iss = 0x22222222;

    tcp_stack_force_next_iss(th->s, iss);
    assert_int_equal(tcp_connect(th->s, TH_PEER_IP, 6653, &th_ops, th, th->now, &c), 0);
    th_flush(th);
    assert_true(th_pop(th, &seg));
    TH_SEND(th, .sport = 6653, .dport = seg.sport, .flags = TH_SYN | TH_ACK, .seq = 999,
            .ack = iss + 100, .mss = 1460);
    th_expect(th, TH_RST, iss + 100, 0, 0);
    assert_int_equal(tcp_conn_state(c), TCP_SYN_SENT);
    assert_false(th_is_closed(th, c));

    /* The right SYN-ACK still completes it. */
    th_peer_init(th, &p, 6653);
    p.lport = seg.sport;
    p.irs = 999;
    TH_SEND(th, .sport = 6653, .dport = seg.sport, .flags = TH_SYN | TH_ACK, .seq = 999,
            .ack = iss + 1, .mss = 1460);
    th_expect(th, TH_ACK, iss + 1, 1000, 0);
    assert_int_equal(th_events(th, TH_EV_ESTABLISHED, c), 1);
    assert_int_equal(tcp_conn_state(c), TCP_ESTABLISHED);
}

/* Unanswered SYN: retransmitted after 1, 2, 4 s (RFC 6298 2.1 and 5.5),
 * syn_retries times, then on_closed(-ETIMEDOUT). */
static void test_active_open_timeout(void **state)
{
    struct th *th = *state;
    struct tcp_conn *c = NULL;
    struct th_seg seg;
    uint64_t expect = th->cfg.rto_initial_ms * TH_MS;
    uint32_t iss = 0x33333333;

    tcp_stack_force_next_iss(th->s, iss);
    assert_int_equal(tcp_connect(th->s, TH_PEER_IP, 6653, &th_ops, th, th->now, &c), 0);
    th_flush(th);
    assert_true(th_pop(th, &seg));
    for (unsigned i = 0; i < th->cfg.syn_retries; i++) {
        uint64_t waited = th_advance_until_frame(th, 2 * expect);

        assert_true(waited >= expect && waited <= expect + TH_MS);
        th_expect(th, TH_SYN, iss, 0, 0);
        th_expect_none(th);
        expect *= 2;
    }
    assert_int_equal(th_events(th, TH_EV_CLOSED, c), 0);
    th_advance(th, expect - 2 * TH_MS);
    assert_int_equal(th_events(th, TH_EV_CLOSED, c), 0);
    th_advance(th, 4 * TH_MS);
    assert_int_equal(th_close_reason(th, c), -ETIMEDOUT);
    assert_int_equal(tcp_stack_conn_count(th->s), 0);
    while (th_pop(th, &seg))
        assert_false(seg.flags & TH_SYN);
}

/* Simultaneous open (RFC 9293 figure 8): SYN crossing SYN → SYN-RECEIVED,
 * SYN-ACK <SEQ=ISS><ACK=RCV.NXT>, the peer's ACK → ESTABLISHED, once. */
static void test_simultaneous_open(void **state)
{
    struct th *th = *state;
    struct tcp_conn *c = NULL;
    struct th_peer p;
    struct th_seg seg;
    uint8_t data[300];

    tcp_stack_force_next_iss(th->s, 0x40000000);
    th_peer_init(th, &p, 6653);
    p.irs = 0x90000000;
    assert_int_equal(tcp_connect(th->s, TH_PEER_IP, p.port, &th_ops, th, th->now, &c), 0);
    th_flush(th);
    assert_true(th_pop(th, &seg));
    assert_int_equal(seg.flags, TH_SYN);
    th_peer_learn_syn(&p, &seg, true);
    assert_int_equal(p.iss, 0x40000000);

    TH_SEND(th, .sport = p.port, .dport = p.lport, .flags = TH_SYN, .seq = p.irs,
            .mss = 1460);
    p.snd_nxt = p.irs + 1;
    th_peer_expect(th, &p, TH_SYN | TH_ACK, p.iss, p.irs + 1, 0);
    assert_int_equal(tcp_conn_state(c), TCP_SYN_RECEIVED);
    assert_int_equal(th_events(th, TH_EV_ESTABLISHED, c), 0);

    th_peer_ack(th, &p);
    assert_int_equal(tcp_conn_state(c), TCP_ESTABLISHED);
    assert_int_equal(th_events(th, TH_EV_ESTABLISHED, c), 1);
    th_expect_none(th);

    th_pattern(data, 0, sizeof(data), 6);
    th_peer_data(th, &p, data, sizeof(data));
    assert_int_equal(tcp_recv_available(c), sizeof(data));
    th_app_send(th, c, data, sizeof(data));
    th_peer_pump(th, &p, 1460, true);
    assert_int_equal(p.rx_len, sizeof(data));
    assert_int_equal(th_events(th, TH_EV_ESTABLISHED, c), 1);
}

/* Simultaneous open where the peer's SYN-ACK (figure 8 line 6) follows: it
 * completes the open or is answered (ACK, or our SYN-ACK again); never a
 * reset, and the next ACK-bearing segment surely completes it, once. */
static void test_simultaneous_open_synack(void **state)
{
    struct th *th = *state;
    struct tcp_conn *c = NULL;
    struct th_peer p;
    struct th_seg seg;
    uint8_t data[100];

    th_peer_init(th, &p, 6653);
    assert_int_equal(tcp_connect(th->s, TH_PEER_IP, p.port, &th_ops, th, th->now, &c), 0);
    th_flush(th);
    assert_true(th_pop(th, &seg));
    th_peer_learn_syn(&p, &seg, true);
    TH_SEND(th, .sport = p.port, .dport = p.lport, .flags = TH_SYN, .seq = p.irs,
            .mss = 1460);
    p.snd_nxt = p.irs + 1;
    th_peer_expect(th, &p, TH_SYN | TH_ACK, p.iss, p.irs + 1, 0);

    TH_SEND(th, .sport = p.port, .dport = p.lport, .flags = TH_SYN | TH_ACK, .seq = p.irs,
            .ack = p.iss + 1, .mss = 1460);
    while (th_peer_recv(th, &p, &seg)) {
        /* An ACK, or our SYN-ACK again; never a reset. */
        assert_false(seg.flags & TH_RST);
        if (seg.flags & TH_SYN)
            assert_int_equal(seg.seq, p.iss);
        assert_int_equal(seg.ack, p.irs + 1);
    }
    assert_false(th_is_closed(th, c));

    th_pattern(data, 0, sizeof(data), 7);
    th_peer_data(th, &p, data, sizeof(data));
    assert_int_equal(tcp_conn_state(c), TCP_ESTABLISHED);
    assert_int_equal(th_events(th, TH_EV_ESTABLISHED, c), 1);
    assert_int_equal(tcp_recv_available(c), sizeof(data));
}

/* Unanswered SYN-ACK: retransmitted at 1, 2, 4 s (syn_retries = 3), then the
 * half-open connection is freed when the last retransmission's timeout (8 s)
 * ends, without any callback. */
static void test_synack_retransmit_and_give_up(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct th_seg seg;
    uint64_t expect = th->cfg.rto_initial_ms * TH_MS;
    uint64_t gone_before = TH_STAT(th, conns_timed_out) + TH_STAT(th, conns_closed);

    th_listen(th, TH_PORT, 0);
    tcp_stack_force_next_iss(th->s, 0xabcdef00);
    th_peer_init(th, &p, 40010);
    th_passive_syn(th, &p);
    for (unsigned i = 0; i < th->cfg.syn_retries; i++) {
        uint64_t waited = th_advance_until_frame(th, 2 * expect);

        assert_true(waited >= expect && waited <= expect + TH_MS);
        th_peer_expect(th, &p, TH_SYN | TH_ACK, 0xabcdef00, p.irs + 1, 0);
        assert_true(th->seg.has_mss);
        th_expect_none(th);
        expect *= 2;
    }
    th_advance(th, expect - 2 * TH_MS);
    assert_int_equal(tcp_stack_conn_count(th->s), 1);
    th_advance(th, 4 * TH_MS);
    assert_int_equal(tcp_stack_conn_count(th->s), 0);
    while (th_pop(th, &seg))
        assert_false(seg.flags & TH_SYN);
    assert_int_equal(th->nev, 0);
    assert_true(TH_STAT(th, conns_timed_out) + TH_STAT(th, conns_closed) > gone_before);

    /* The listener is unaffected. */
    th_peer_init(th, &p, 40011);
    th_passive_open(th, &p);
}

/* No listener (RFC 9293 3.10.7.1): SYN → <SEQ=0><ACK=SEG.SEQ+SEG.LEN>
 * RST,ACK (SYN and FIN count in SEG.LEN); ACK → <SEQ=SEG.ACK> RST; a RST
 * gets nothing. */
static void test_closed_port_resets(void **state)
{
    struct th *th = *state;
    uint8_t data[10] = {0};
    uint64_t rst0 = TH_STAT(th, rst_sent);

    th_listen(th, TH_PORT, 0);
    TH_SEND(th, .sport = 40100, .dport = 7777, .flags = TH_SYN, .seq = 5000, .mss = 1460);
    th_expect(th, TH_RST | TH_ACK, 0, 5001, 0);
    assert_int_equal(th->seg.sport, 7777);
    assert_int_equal(th->seg.dport, 40100);

    TH_SEND(th, .sport = 40100, .dport = 7777, .flags = TH_SYN, .seq = 0xfffffffb,
            .data = data, .len = sizeof(data));
    th_expect(th, TH_RST | TH_ACK, 0, 0xfffffffbu + 11, 0);

    TH_SEND(th, .sport = 40100, .dport = 7777, .flags = TH_PSH, .seq = 100, .data = data,
            .len = sizeof(data));
    th_expect(th, TH_RST | TH_ACK, 0, 110, 0);

    TH_SEND(th, .sport = 40100, .dport = 7777, .flags = TH_ACK, .seq = 100, .ack = 777);
    th_expect(th, TH_RST, 777, 0, 0);

    TH_SEND(th, .sport = 40100, .dport = 7777, .flags = TH_FIN | TH_ACK, .seq = 100,
            .ack = 0x80000000u);
    th_expect(th, TH_RST, 0x80000000u, 0, 0);

    TH_SEND(th, .sport = 40100, .dport = 7777, .flags = TH_RST, .seq = 100);
    TH_SEND(th, .sport = 40100, .dport = 7777, .flags = TH_RST | TH_ACK, .seq = 100,
            .ack = 5);
    th_expect_none(th);
    assert_int_equal(TH_STAT(th, rst_sent), rst0 + 5);
    assert_int_equal(tcp_stack_conn_count(th->s), 0);
}

/* LISTEN (RFC 9293 3.10.7.2), cookies off: an ACK gets <SEQ=SEG.ACK> RST; a
 * RST or a FIN without ACK is dropped; nothing creates state. */
static void test_listener_rejects_non_syn(void **state)
{
    struct th *th = *state;

    th->cfg.syncookies = false;
    th_restart(th);
    th_listen(th, TH_PORT, 0);
    TH_SEND(th, .sport = 40200, .flags = TH_ACK, .seq = 1, .ack = 0x55555555);
    th_expect(th, TH_RST, 0x55555555, 0, 0);
    TH_SEND(th, .sport = 40200, .flags = TH_RST, .seq = 1);
    TH_SEND(th, .sport = 40200, .flags = TH_FIN, .seq = 1);
    th_expect_none(th);
    assert_int_equal(tcp_stack_conn_count(th->s), 0);
}

/* Backlog 2 with cookies: the third SYN gets a SYN-ACK but no state; the
 * right ACK creates an ESTABLISHED connection that honours what the cookie
 * SYN-ACK negotiated; a wrong cookie creates nothing and is counted. */
static void test_backlog_syncookies(void **state)
{
    struct th *th = *state;
    struct th_peer h1, h2, ck, bad;
    struct tcp_conn *c;
    struct tcp_conn_info info;
    struct th_seg seg;
    uint8_t data[3000];

    th->cfg.syn_backlog = 2;
    th->cfg.syncookies = true;
    th_restart(th);
    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &h1, 41001);
    th_peer_init(th, &h2, 41002);
    th_passive_syn(th, &h1);
    th_passive_syn(th, &h2);
    assert_int_equal(tcp_stack_conn_count(th->s), 2);
    assert_int_equal(TH_STAT(th, syncookies_sent), 0);

    th_peer_init(th, &ck, 41003);
    ck.mss = 1000;
    ck.ws = 3;
    th_passive_syn(th, &ck);
    assert_int_equal(TH_STAT(th, syncookies_sent), 1);
    assert_int_equal(tcp_stack_conn_count(th->s), 2);
    assert_true(ck.stack_mss > 0);

    th_peer_ack(th, &ck);
    assert_int_equal(th_events(th, TH_EV_ESTABLISHED, NULL), 1);
    c = th_last_established(th);
    assert_int_equal(tcp_conn_state(c), TCP_ESTABLISHED);
    assert_int_equal(tcp_stack_conn_count(th->s), 3);
    assert_int_equal(TH_STAT(th, syncookies_ok), 1);
    tcp_conn_get_info(c, &info);
    assert_int_equal(info.remote_port, 41003);

    /* Window scaling as the cookie SYN-ACK said. */
    ck.win = 100;
    th_peer_ack(th, &ck);
    tcp_conn_get_info(c, &info);
    assert_int_equal(info.snd_wnd, ck.ws_ok ? 800u : 100u);
    ck.win = 65535;
    th_peer_ack(th, &ck);

    /* Data both ways; segments no larger than the MSS the peer offered. */
    th_pattern(data, 0, sizeof(data), 8);
    th_peer_data(th, &ck, data, 500);
    assert_int_equal(tcp_recv_available(c), 500);
    th_advance(th, 100 * TH_MS);
    th_peer_collect(th, &ck);
    th_app_send(th, c, data, sizeof(data));
    th_peer_pump(th, &ck, 1000, true);
    assert_int_equal(ck.rx_len, sizeof(data));
    assert_memory_equal(ck.rx, data, sizeof(data));

    /* A wrong cookie. */
    th_peer_init(th, &bad, 41004);
    th_passive_syn(th, &bad);
    assert_int_equal(TH_STAT(th, syncookies_sent), 2);
    th_peer_tx(th, &bad, TH_ACK, bad.irs + 1, bad.iss + 1 + 0x12345, NULL, 0);
    assert_int_equal(TH_STAT(th, syncookies_failed), 1);
    assert_int_equal(tcp_stack_conn_count(th->s), 3);
    assert_int_equal(th_events(th, TH_EV_ESTABLISHED, NULL), 1);
    while (th_pop(th, &seg)) {
        assert_int_equal(seg.flags, TH_RST);
        assert_int_equal(seg.seq, bad.iss + 1 + 0x12345);
    }

    /* The half-open ones complete normally. */
    th_peer_ack(th, &h1);
    th_peer_ack(th, &h2);
    assert_int_equal(th_events(th, TH_EV_ESTABLISHED, NULL), 3);
    assert_int_equal(tcp_stack_conn_count(th->s), 3);
}

/* Backlog full, cookies off: SYNs are dropped and counted until a half-open
 * connection completes; the per-listener backlog argument overrides the
 * config. */
static void test_backlog_no_cookies(void **state)
{
    struct th *th = *state;
    struct th_peer h1, h2, h3, h4;

    th->cfg.syn_backlog = 2;
    th->cfg.syncookies = false;
    th_restart(th);
    th_listen(th, TH_PORT, 0);
    th_listen(th, 6633, 1);
    th_peer_init(th, &h1, 41101);
    th_peer_init(th, &h2, 41102);
    th_passive_syn(th, &h1);
    th_passive_syn(th, &h2);
    TH_SEND(th, .sport = 41103, .flags = TH_SYN, .seq = 1, .mss = 1460);
    th_expect_none(th);
    assert_int_equal(TH_STAT(th, drop_listen_overflow), 1);
    assert_int_equal(tcp_stack_conn_count(th->s), 2);

    th_peer_ack(th, &h1);
    assert_int_equal(th_events(th, TH_EV_ESTABLISHED, NULL), 1);
    th_peer_init(th, &h3, 41103);
    th_passive_syn(th, &h3);
    assert_int_equal(tcp_stack_conn_count(th->s), 3);

    /* Port 6633 has a backlog of one. */
    th_peer_init(th, &h4, 41104);
    h4.lport = 6633;
    th_passive_syn(th, &h4);
    TH_SEND(th, .sport = 41105, .dport = 6633, .flags = TH_SYN, .seq = 1, .mss = 1460);
    th_expect_none(th);
    assert_int_equal(TH_STAT(th, drop_listen_overflow), 2);
}

/* The TCB pool: beyond max_conns a SYN is dropped (drop_no_tcb) and
 * tcp_connect fails with -ENOMEM. */
static void test_max_conns(void **state)
{
    struct th *th = *state;
    struct th_peer p[3];
    struct tcp_conn *c = NULL;

    th->cfg.max_conns = 3;
    th->cfg.syncookies = false;
    th_restart(th);
    th_listen(th, TH_PORT, 0);
    for (unsigned i = 0; i < 3; i++) {
        th_peer_init(th, &p[i], (uint16_t)(41200 + i));
        th_passive_open(th, &p[i]);
    }
    TH_SEND(th, .sport = 41210, .flags = TH_SYN, .seq = 1, .mss = 1460);
    th_expect_none(th);
    assert_int_equal(TH_STAT(th, drop_no_tcb), 1);
    assert_int_equal(tcp_connect(th->s, TH_PEER_IP, 6653, &th_ops, th, th->now, &c), -ENOMEM);
    assert_int_equal(tcp_stack_conn_count(th->s), 3);
}

static uint32_t half_open_iss(struct th *th, uint16_t port)
{
    struct th_peer p;

    th_peer_init(th, &p, port);
    th_passive_syn(th, &p);
    /* Withdraw it: a RST at RCV.NXT returns it to LISTEN. */
    th_peer_tx(th, &p, TH_RST, p.irs + 1, 0, NULL, 0);
    th_expect_none(th);
    assert_int_equal(tcp_stack_conn_count(th->s), 0);
    return p.iss;
}

/* RFC 6528: ISN = M + F(4-tuple, secret), M a 4 us clock. Different tuples
 * get different ISNs, the same tuple one second later an ISN 250000 higher,
 * another secret a different ISN. */
static void test_isn_rfc6528(void **state)
{
    struct th *th = *state;
    struct tcp_stack *s1 = th->s, *s2;
    uint32_t a, b, a2, a3;
    uint8_t secret2[16];

    th_listen(th, TH_PORT, 0);
    a = half_open_iss(th, 42001);
    b = half_open_iss(th, 42002);
    assert_true(a != b);
    th_advance(th, TH_SEC);
    a2 = half_open_iss(th, 42001);
    assert_true(a2 - a >= 249000 && a2 - a <= 251000);

    memcpy(secret2, th->secret, sizeof(secret2));
    secret2[0] ^= 0x80;
    s2 = tcp_stack_create(&th->cfg, &th->env, TH_OUR_IP,
                          (const uint8_t[6]){0x02, 0, 0, 0, 0, 0x02}, secret2, th->now);
    assert_non_null(s2);
    th->s = s2;
    th_listen(th, TH_PORT, 0);
    a3 = half_open_iss(th, 42001);
    th->s = s1;
    tcp_stack_destroy(s2);
    assert_true(a3 != a2);
}

/* Without a resolver the stack answers to the MAC the SYN came from (checked
 * by the frame parser on every segment). */
static void test_no_resolver_uses_learnt_mac(void **state)
{
    struct th *th = *state;
    struct th_peer p;

    th->env.resolve = NULL;
    th_restart(th);
    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &p, 42100);
    th_passive_open(th, &p);
    assert_int_equal(th->resolve_calls, 0);
}

/* With offload the frame says so, the IPv4 checksum is left 0 and the TCP
 * field holds the pseudo-header sum (both checked by the parser). */
static void test_checksum_offload(void **state)
{
    struct th *th = *state;
    struct th_peer p;

    th->env.l4_cksum_offload = true;
    th->env.ip_cksum_offload = true;
    th_restart(th);
    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &p, 42200);
    th_passive_syn(th, &p);
    assert_true(th->seg.meta.l4_cksum_offload);
    assert_true(th->seg.meta.ip_cksum_offload);
}

/* tcp_listen on a port already listened on; tcp_unlisten stops SYN-ACKs. */
static void test_listen_unlisten(void **state)
{
    struct th *th = *state;

    th_listen(th, TH_PORT, 0);
    assert_int_equal(tcp_listen(th->s, TH_PORT, 0, &th_ops, th), -EADDRINUSE);
    assert_int_equal(tcp_unlisten(th->s, TH_PORT), 0);
    TH_SEND(th, .sport = 42300, .flags = TH_SYN, .seq = 10, .mss = 1460);
    th_expect(th, TH_RST | TH_ACK, 0, 11, 0);
}

/* An idle connection (everything read and ACKed both ways) holds no payload
 * chunk, and its fixed cost stays under the 16 KiB goal of the issue; the
 * operator views (state names, counters) cover everything. */
static void test_idle_connection_cost(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    struct tcp_conn_info info;
    uint8_t d[5000], buf[5000];
    unsigned n = 0;

    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &p, 42400);
    c = th_passive_open(th, &p);
    th_pattern(d, 0, sizeof(d), 9);
    th_peer_data(th, &p, d, 1000);
    th_peer_data(th, &p, d + 1000, 1000);
    assert_int_equal(th_app_read(c, buf, sizeof(buf)), 2000);
    th_app_send(th, c, d, sizeof(d));
    th_peer_pump(th, &p, 1460, true);
    th_advance(th, 100 * TH_MS);
    th_drop_all(th);
    tcp_conn_get_info(c, &info);
    assert_int_equal(info.chunks, 0);
    assert_int_equal(info.snd_queued, 0);
    assert_int_equal(info.rcv_queued, 0);
    assert_int_equal(th->chunks_live, 0);
    assert_true(tcp_conn_idle_bytes() > 0 && tcp_conn_idle_bytes() < 16384);

    for (int st = 0; st < TCP_STATE_COUNT; st++)
        assert_true(tcp_state_name((enum tcp_state)st) != NULL);
    /* Every field of the stats struct is named by the registry. */
    assert_int_equal(tcp_counters.n, sizeof(struct tcp_stats) / sizeof(uint64_t));
    assert_int_equal(tcp_state_counters.n, TCP_STATE_COUNT);
    for (unsigned i = 0; i < tcp_counters.n; i++)
        n += tcp_counters.defs[i].name && tcp_counters.defs[i].help[0];
    assert_int_equal(n, tcp_counters.n);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, th_setup, th_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_defaults),
        T(test_passive_open_all_options),
        T(test_passive_open_mss_only),
        T(test_passive_open_no_options_mss_536),
        T(test_third_segment_with_data),
        T(test_active_open),
        T(test_send_before_established),
        T(test_active_open_resolve_pending),
        T(test_active_open_refused),
        T(test_active_open_bad_synack),
        T(test_active_open_timeout),
        T(test_simultaneous_open),
        T(test_simultaneous_open_synack),
        T(test_synack_retransmit_and_give_up),
        T(test_closed_port_resets),
        T(test_listener_rejects_non_syn),
        T(test_backlog_syncookies),
        T(test_backlog_no_cookies),
        T(test_max_conns),
        T(test_isn_rfc6528),
        T(test_no_resolver_uses_learnt_mac),
        T(test_checksum_offload),
        T(test_listen_unlisten),
        T(test_idle_connection_cost),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
