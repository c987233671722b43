/*
 * test_tcp_close: how connections end in ofcd's TCP (RFC 9293 3.6, 3.10.4,
 * 3.10.7): active, passive and simultaneous close, half-close both ways,
 * FIN with data and out of order, FIN in every state, TIME_WAIT (duration,
 * restart on a retransmitted FIN, the max_time_wait bound, reuse by a new
 * SYN per RFC 6191), resets when the application closes with unread data or
 * data arrives after close, orphaned FIN_WAIT_2, and keepalive (RFC 9293
 * 3.8.4). Every path ends with the connection count at zero and no chunk
 * held. Built with tcp_helper.c; teardown checks for leaks again.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "tcp_helper.h"

#define NEAR(v, want, tol) assert_true((uint64_t)(v) + (tol) >= (uint64_t)(want) && \
                                       (uint64_t)(v) <= (uint64_t)(want) + (tol))

static struct tcp_conn *open_conn(struct th *th, struct th_peer *p, uint16_t port)
{
    int rc = tcp_listen(th->s, TH_PORT, 0, &th_ops, th);

    assert_true(rc == 0 || rc == -EADDRINUSE);
    th_peer_init(th, p, port);
    return th_passive_open(th, p);
}

/* The ACK the stack owes, allowing a delayed ACK. */
static const struct th_seg *expect_ack(struct th *th, struct th_peer *p, uint32_t seq,
                                       uint32_t ack)
{
    if (!th_pending(th))
        assert_true(th_advance_until_frame(th, 200 * TH_MS) <= th->cfg.delack_ms * TH_MS);
    return th_peer_expect(th, p, TH_ACK, seq, ack, 0);
}

static void assert_all_gone(struct th *th)
{
    assert_int_equal(tcp_stack_conn_count(th->s), 0);
    assert_int_equal(th->chunks_live, 0);
}

/* Our FIN, the peer's ACK and FIN; TIME_WAIT for time_wait_ms, then freed. */
static void close_to_time_wait(struct th *th, struct th_peer *p, struct tcp_conn *c)
{
    uint32_t fw1 = th_state_count(th, TCP_FIN_WAIT_1), fw2 = th_state_count(th, TCP_FIN_WAIT_2);
    uint32_t tw = th_state_count(th, TCP_TIME_WAIT);

    tcp_close(c);
    th_flush(th);
    th_peer_expect(th, p, TH_FIN | TH_ACK, p->rcv_nxt, p->snd_nxt, 0);
    th_peer_accept(p, &th->seg);
    th_expect_none(th);
    assert_int_equal(th_state_count(th, TCP_FIN_WAIT_1), fw1 + 1);
    th_peer_ack(th, p);
    th_expect_none(th);
    assert_int_equal(th_state_count(th, TCP_FIN_WAIT_2), fw2 + 1);
    th_peer_fin(th, p);
    expect_ack(th, p, p->rcv_nxt, p->snd_nxt);
    assert_int_equal(th_state_count(th, TCP_FIN_WAIT_2), fw2);
    if (tw < th->cfg.max_time_wait)
        assert_int_equal(th_state_count(th, TCP_TIME_WAIT), tw + 1);
}

static void test_active_close(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40001);
    uint8_t d[3000];

    th_pattern(d, 0, sizeof(d), 1);
    th_app_send(th, c, d, sizeof(d));
    th_peer_pump(th, &p, 1460, true);
    close_to_time_wait(th, &p, c);
    th_advance(th, th->cfg.time_wait_ms * TH_MS - 2 * TH_MS);
    assert_int_equal(tcp_stack_conn_count(th->s), 1);
    th_advance(th, 4 * TH_MS);
    assert_all_gone(th);
    th_expect_none(th);
    assert_int_equal(th->nev, 1);      /* on_established only: no callback after close */
    assert_int_equal(TH_STAT(th, conns_closed), 1);
}

/* tcp_close sends queued data first, then the FIN after it. */
static void test_close_flushes_queued_data(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40002);
    uint8_t d[5000];

    th_pattern(d, 0, sizeof(d), 2);
    assert_int_equal(tcp_send(c, d, sizeof(d)), (ssize_t)sizeof(d));
    tcp_close(c);
    th_flush(th);
    th_peer_pump(th, &p, 1460, true);
    assert_int_equal(p.rx_len, sizeof(d));
    assert_memory_equal(p.rx, d, sizeof(d));
    assert_true(p.fin_rcvd);
    assert_int_equal(th_state_count(th, TCP_FIN_WAIT_2), 1);
    th_peer_fin(th, &p);
    expect_ack(th, &p, p.rcv_nxt, p.snd_nxt);
    th_advance(th, th->cfg.time_wait_ms * TH_MS + 2 * TH_MS);
    assert_all_gone(th);
}

/* FIN_WAIT_2 after tcp_close is not kept forever: freed after fin_wait2_ms. */
static void test_orphan_fin_wait2_timeout(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40003);

    tcp_close(c);
    th_flush(th);
    th_peer_expect(th, &p, TH_FIN | TH_ACK, p.iss + 1, p.snd_nxt, 0);
    th_peer_accept(&p, &th->seg);
    th_peer_ack(th, &p);
    th_advance(th, th->cfg.fin_wait2_ms * TH_MS - 2 * TH_MS);
    assert_int_equal(th_state_count(th, TCP_FIN_WAIT_2), 1);
    th_advance(th, 4 * TH_MS);
    assert_all_gone(th);
    th_drop_all(th);
}

/* Our half-close: tcp_shutdown sends FIN, further sends fail with -EPIPE,
 * the peer's data still arrives; after its FIN the application hears
 * on_closed(0) at the latest when TIME_WAIT ends. */
static void test_shutdown_half_close(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40004);
    uint8_t d[300], buf[300];

    assert_int_equal(tcp_shutdown(c), 0);
    th_flush(th);
    th_peer_expect(th, &p, TH_FIN | TH_ACK, p.iss + 1, p.snd_nxt, 0);
    th_peer_accept(&p, &th->seg);
    assert_int_equal(tcp_send(c, "x", 1), -EPIPE);
    assert_int_equal(tcp_conn_state(c), TCP_FIN_WAIT_1);
    th_peer_ack(th, &p);
    assert_int_equal(tcp_conn_state(c), TCP_FIN_WAIT_2);

    th_pattern(d, 0, sizeof(d), 4);
    th_peer_data(th, &p, d, sizeof(d));
    assert_int_equal(tcp_recv(c, buf, sizeof(buf)), sizeof(d));
    assert_memory_equal(buf, d, sizeof(d));
    expect_ack(th, &p, p.iss + 2, p.snd_nxt);
    assert_false(tcp_recv_eof(c));

    th_peer_fin(th, &p);
    expect_ack(th, &p, p.iss + 2, p.snd_nxt);
    if (!th_is_closed(th, c)) {
        assert_true(tcp_recv_eof(c));
        assert_int_equal(tcp_conn_state(c), TCP_TIME_WAIT);
    }
    th_advance(th, th->cfg.time_wait_ms * TH_MS + 2 * TH_MS);
    assert_int_equal(th_close_reason(th, c), TCP_CLOSE_NORMAL);
    assert_all_gone(th);
}

/* Passive close: the peer's FIN is ACKed and reported (readable, EOF), the
 * connection waits in CLOSE_WAIT; our close sends FIN → LAST_ACK → freed on
 * the peer's ACK. */
static void test_passive_close(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40005);

    th_peer_fin(th, &p);
    expect_ack(th, &p, p.iss + 1, p.irs + 2);
    assert_true(th_events(th, TH_EV_READABLE, c) >= 1);
    assert_true(tcp_recv_eof(c));
    assert_int_equal(tcp_conn_state(c), TCP_CLOSE_WAIT);
    th_advance(th, 10 * TH_SEC);
    th_expect_none(th);
    assert_int_equal(tcp_conn_state(c), TCP_CLOSE_WAIT);

    tcp_close(c);
    th_flush(th);
    th_peer_expect(th, &p, TH_FIN | TH_ACK, p.iss + 1, p.irs + 2, 0);
    th_peer_accept(&p, &th->seg);
    assert_int_equal(th_state_count(th, TCP_LAST_ACK), 1);
    th_peer_ack(th, &p);
    th_expect_none(th);
    assert_all_gone(th);
    assert_int_equal(th_events(th, TH_EV_CLOSED, NULL), 0);
}

/* LAST_ACK with the peer's ACK lost: our FIN is retransmitted until ACKed. */
static void test_last_ack_retransmits_fin(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40006);

    th_peer_fin(th, &p);
    expect_ack(th, &p, p.iss + 1, p.irs + 2);
    tcp_close(c);
    th_flush(th);
    th_peer_expect(th, &p, TH_FIN | TH_ACK, p.iss + 1, p.irs + 2, 0);
    assert_true(th_advance_until_frame(th, 5 * TH_SEC) != UINT64_MAX);
    th_peer_expect(th, &p, TH_FIN | TH_ACK, p.iss + 1, p.irs + 2, 0);
    th_peer_accept(&p, &th->seg);
    th_peer_ack(th, &p);
    assert_all_gone(th);
}

/* The peer half-closes; we keep sending and it keeps ACKing. */
static void test_peer_half_close_we_send(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40007);
    uint8_t d[5000];

    th_peer_fin(th, &p);
    expect_ack(th, &p, p.iss + 1, p.irs + 2);
    th_pattern(d, 0, sizeof(d), 7);
    th_app_send(th, c, d, sizeof(d));
    th_peer_pump(th, &p, 1460, true);
    assert_int_equal(p.rx_len, sizeof(d));
    assert_memory_equal(p.rx, d, sizeof(d));
    assert_int_equal(tcp_conn_state(c), TCP_CLOSE_WAIT);
    tcp_close(c);
    th_flush(th);
    th_peer_expect(th, &p, TH_FIN | TH_ACK, p.iss + 1 + sizeof(d), p.irs + 2, 0);
    th_peer_accept(&p, &th->seg);
    th_peer_ack(th, &p);
    assert_all_gone(th);
}

/* Simultaneous close: FIN crossing FIN → CLOSING (ACK of their FIN) → the
 * ACK of ours → TIME_WAIT → freed. */
static void test_simultaneous_close(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40008);

    tcp_close(c);
    th_flush(th);
    th_peer_expect(th, &p, TH_FIN | TH_ACK, p.iss + 1, p.irs + 1, 0);
    th_peer_tx(th, &p, TH_FIN | TH_ACK, p.snd_nxt, p.iss + 1, NULL, 0);
    p.snd_nxt++;
    th_peer_expect(th, &p, TH_ACK, p.iss + 2, p.irs + 2, 0);
    assert_int_equal(th_state_count(th, TCP_CLOSING), 1);

    /* Their FIN again while CLOSING: ACKed again, still CLOSING. */
    th_peer_tx(th, &p, TH_FIN | TH_ACK, p.irs + 1, p.iss + 1, NULL, 0);
    th_peer_expect(th, &p, TH_ACK, p.iss + 2, p.irs + 2, 0);
    assert_int_equal(th_state_count(th, TCP_CLOSING), 1);

    p.rcv_nxt = p.iss + 2;
    th_peer_ack(th, &p);
    th_expect_none(th);
    assert_int_equal(th_state_count(th, TCP_TIME_WAIT), 1);
    th_advance(th, th->cfg.time_wait_ms * TH_MS + 2 * TH_MS);
    assert_all_gone(th);
}

/* FIN_WAIT_1 receiving FIN|ACK that also ACKs our FIN goes to TIME_WAIT. */
static void test_fin_wait1_fin_ack(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40009);

    tcp_close(c);
    th_flush(th);
    th_peer_expect(th, &p, TH_FIN | TH_ACK, p.iss + 1, p.irs + 1, 0);
    th_peer_accept(&p, &th->seg);
    th_peer_fin(th, &p);
    expect_ack(th, &p, p.iss + 2, p.irs + 2);
    assert_int_equal(th_state_count(th, TCP_TIME_WAIT), 1);
    th_advance(th, th->cfg.time_wait_ms * TH_MS + 2 * TH_MS);
    assert_all_gone(th);
}

/* Data and FIN in one segment: the data is readable, EOF only after it is
 * read, the ACK covers data and FIN. */
static void test_fin_with_data(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40010);
    uint8_t d[500], buf[600];

    th_pattern(d, 0, sizeof(d), 10);
    th_peer_tx(th, &p, TH_FIN | TH_ACK | TH_PSH, p.snd_nxt, p.rcv_nxt, d, sizeof(d));
    p.snd_nxt += sizeof(d) + 1;
    expect_ack(th, &p, p.iss + 1, p.irs + 1 + sizeof(d) + 1);
    assert_int_equal(tcp_recv_available(c), sizeof(d));
    assert_false(tcp_recv_eof(c));
    assert_int_equal(tcp_recv(c, buf, sizeof(buf)), sizeof(d));
    assert_memory_equal(buf, d, sizeof(d));
    assert_true(tcp_recv_eof(c));
    assert_int_equal(tcp_conn_state(c), TCP_CLOSE_WAIT);
    tcp_close(c);
    th_flush(th);
    th_peer_expect(th, &p, TH_FIN | TH_ACK, p.iss + 1, p.snd_nxt, 0);
    th_peer_accept(&p, &th->seg);
    th_peer_ack(th, &p);
    assert_all_gone(th);
}

/* FIN arriving before the data in front of it: no EOF until the hole is
 * filled; then all data once, then EOF (if the stack dropped the early FIN,
 * the peer's retransmission of it completes the close). */
static void test_fin_out_of_order(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40011);
    uint8_t d[200], buf[300];
    struct th_seg seg;

    th_pattern(d, 0, sizeof(d), 11);
    th_peer_tx(th, &p, TH_FIN | TH_ACK | TH_PSH, p.irs + 101, p.rcv_nxt, d + 100, 100);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.irs + 1, 0);
    assert_false(tcp_recv_eof(c));
    assert_int_equal(tcp_recv_available(c), 0);
    assert_int_equal(tcp_conn_state(c), TCP_ESTABLISHED);

    th_peer_tx(th, &p, TH_ACK | TH_PSH, p.irs + 1, p.rcv_nxt, d, 100);
    assert_true(th_peer_recv(th, &p, &seg));
    th_expect_none(th);
    if (seg.ack == p.irs + 201) {
        th_peer_tx(th, &p, TH_FIN | TH_ACK, p.irs + 201, p.rcv_nxt, NULL, 0);
        seg = *expect_ack(th, &p, p.iss + 1, p.irs + 202);
    }
    assert_int_equal(seg.ack, p.irs + 202);
    p.snd_nxt = p.irs + 202;
    assert_int_equal(tcp_recv(c, buf, sizeof(buf)), sizeof(d));
    assert_memory_equal(buf, d, sizeof(d));
    assert_true(tcp_recv_eof(c));
    assert_int_equal(tcp_conn_state(c), TCP_CLOSE_WAIT);
    tcp_close(c);
    th_flush(th);
    th_peer_expect(th, &p, TH_FIN | TH_ACK, p.iss + 1, p.irs + 202, 0);
    th_peer_accept(&p, &th->seg);
    th_peer_ack(th, &p);
    assert_all_gone(th);
}

/* FIN|ACK in SYN-RECEIVED (RFC 9293 3.10.7.4): the ACK establishes, the FIN
 * takes it to CLOSE_WAIT; the application sees established then EOF. */
static void test_fin_in_syn_received(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    int est = -1, rd = -1;

    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &p, 40012);
    th_passive_syn(th, &p);
    th_peer_tx(th, &p, TH_FIN | TH_ACK, p.irs + 1, p.iss + 1, NULL, 0);
    p.snd_nxt = p.irs + 2;
    c = th_last_established(th);
    assert_non_null(c);
    for (unsigned i = 0; i < th->nev; i++) {
        if (th->ev[i].type == TH_EV_ESTABLISHED && est < 0)
            est = (int)i;
        if (th->ev[i].type == TH_EV_READABLE && rd < 0)
            rd = (int)i;
    }
    assert_true(est >= 0 && rd > est);
    assert_true(tcp_recv_eof(c));
    assert_int_equal(tcp_conn_state(c), TCP_CLOSE_WAIT);
    expect_ack(th, &p, p.iss + 1, p.irs + 2);
    tcp_close(c);
    th_flush(th);
    th_peer_expect(th, &p, TH_FIN | TH_ACK, p.iss + 1, p.irs + 2, 0);
    th_peer_accept(&p, &th->seg);
    th_peer_ack(th, &p);
    assert_all_gone(th);
}

/* FIN in SYN-SENT (no SYN bit): dropped (RFC 9293 3.10.7.3, "neither SYN nor
 * RST"); the handshake then completes normally. */
static void test_fin_in_syn_sent(void **state)
{
    struct th *th = *state;
    struct tcp_conn *c = NULL;
    struct th_seg seg;

    tcp_stack_force_next_iss(th->s, 5000);
    assert_int_equal(tcp_connect(th->s, TH_PEER_IP, 6653, &th_ops, th, th->now, &c), 0);
    th_flush(th);
    assert_true(th_pop(th, &seg));
    TH_SEND(th, .sport = 6653, .dport = seg.sport, .flags = TH_FIN | TH_ACK, .seq = 100,
            .ack = 5001);
    th_expect_none(th);
    assert_int_equal(tcp_conn_state(c), TCP_SYN_SENT);
    TH_SEND(th, .sport = 6653, .dport = seg.sport, .flags = TH_SYN | TH_ACK, .seq = 100,
            .ack = 5001, .mss = 1460);
    th_expect(th, TH_ACK, 5001, 101, 0);
    assert_int_equal(tcp_conn_state(c), TCP_ESTABLISHED);
    tcp_abort(c);
    th_flush(th);
    assert_true(th_pop(th, &seg));
    assert_true(seg.flags & TH_RST);
    assert_int_equal(seg.seq, 5001);
    assert_all_gone(th);
}

/* The peer's FIN retransmitted in CLOSE_WAIT and LAST_ACK: ACKed again (an
 * old segment: one such ACK per tcp.invalid_ack_interval_ms, as a peer's
 * backed-off retransmissions come), the state unchanged. */
static void test_fin_retransmitted_close_wait_last_ack(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40013);
    struct th_seg seg;

    th_peer_fin(th, &p);
    expect_ack(th, &p, p.iss + 1, p.irs + 2);
    th_peer_tx(th, &p, TH_FIN | TH_ACK, p.irs + 1, p.rcv_nxt, NULL, 0);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.irs + 2, 0);
    assert_int_equal(tcp_conn_state(c), TCP_CLOSE_WAIT);

    tcp_close(c);
    th_flush(th);
    th_peer_expect(th, &p, TH_FIN | TH_ACK, p.iss + 1, p.irs + 2, 0);
    th_advance(th, 500 * TH_MS);
    th_drop_all(th);                  /* our FIN's retransmission, meanwhile */
    th_peer_tx(th, &p, TH_FIN | TH_ACK, p.irs + 1, p.iss + 1, NULL, 0);
    assert_true(th_peer_recv(th, &p, &seg));
    assert_true(seg.flags & TH_ACK);
    assert_false(seg.flags & TH_RST);
    assert_int_equal(seg.ack, p.irs + 2);
    th_expect_none(th);
    assert_int_equal(th_state_count(th, TCP_LAST_ACK), 1);
    p.rcv_nxt = p.iss + 2;
    th_peer_ack(th, &p);
    assert_all_gone(th);
}

/* TIME_WAIT: a retransmitted FIN is ACKed again and restarts the 2*MSL
 * timer (RFC 9293 3.10.7.4). */
static void test_time_wait_restart_on_fin(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40014);
    uint64_t tw = th->cfg.time_wait_ms * TH_MS;

    close_to_time_wait(th, &p, c);
    th_advance(th, tw - 500 * TH_MS);
    th_peer_tx(th, &p, TH_FIN | TH_ACK, p.irs + 1, p.rcv_nxt, NULL, 0);
    th_peer_expect(th, &p, TH_ACK, p.iss + 2, p.irs + 2, 0);
    th_advance(th, 600 * TH_MS);
    assert_int_equal(th_state_count(th, TCP_TIME_WAIT), 1);
    th_advance(th, tw - 600 * TH_MS - 2 * TH_MS);
    assert_int_equal(th_state_count(th, TCP_TIME_WAIT), 1);
    th_advance(th, 4 * TH_MS);
    assert_all_gone(th);
}

/* tcp_close with unread data resets (RFC 9293 3.10.4, RFC 2525): RST at
 * SND.NXT, no FIN, all freed. */
static void test_close_unread_data_resets(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40015);
    uint8_t d[100] = {0};
    struct th_seg seg;
    unsigned rst = 0;

    th_peer_data(th, &p, d, sizeof(d));
    tcp_close(c);
    th_flush(th);
    while (th_peer_recv(th, &p, &seg)) {
        assert_false(seg.flags & TH_FIN);
        if (seg.flags & TH_RST) {
            assert_int_equal(seg.seq, p.iss + 1);
            rst++;
        }
    }
    assert_int_equal(rst, 1);
    assert_int_equal(TH_STAT(th, rst_sent), 1);
    assert_all_gone(th);
}

/* Data arriving after tcp_close (nobody will read it) resets, in FIN_WAIT_1
 * and in FIN_WAIT_2. */
static void test_data_after_close_resets(void **state)
{
    struct th *th = *state;
    struct th_peer p, q;
    struct tcp_conn *c = open_conn(th, &p, 40016);
    uint8_t d[100] = {0};
    struct th_seg seg;

    tcp_close(c);
    th_flush(th);
    th_peer_expect(th, &p, TH_FIN | TH_ACK, p.iss + 1, p.irs + 1, 0);
    th_peer_tx(th, &p, TH_ACK | TH_PSH, p.snd_nxt, p.iss + 1, d, sizeof(d));
    assert_true(th_peer_recv(th, &p, &seg));
    assert_true(seg.flags & TH_RST);
    assert_true(seg.seq == p.iss + 1 || seg.seq == p.iss + 2);
    th_expect_none(th);
    assert_all_gone(th);

    c = open_conn(th, &q, 40017);
    tcp_close(c);
    th_flush(th);
    th_peer_expect(th, &q, TH_FIN | TH_ACK, q.iss + 1, q.irs + 1, 0);
    th_peer_accept(&q, &th->seg);
    th_peer_ack(th, &q);
    assert_int_equal(th_state_count(th, TCP_FIN_WAIT_2), 1);
    th_peer_data(th, &q, d, sizeof(d));
    assert_true(th_peer_recv(th, &q, &seg));
    assert_true(seg.flags & TH_RST);
    assert_int_equal(seg.seq, q.iss + 2);
    assert_all_gone(th);
}

/* At most max_time_wait connections in TIME_WAIT: the oldest is recycled
 * (its retransmitted FIN then meets no connection), the newest kept. */
static void test_time_wait_bound(void **state)
{
    struct th *th = *state;
    struct th_peer p[3];

    th->cfg.max_time_wait = 2;
    th->cfg.syncookies = false;
    th_restart(th);
    for (unsigned i = 0; i < 3; i++) {
        struct tcp_conn *c = open_conn(th, &p[i], (uint16_t)(43001 + i));

        close_to_time_wait(th, &p[i], c);
        th_advance(th, 10 * TH_MS);
    }
    assert_int_equal(th_state_count(th, TCP_TIME_WAIT), 2);
    assert_int_equal(tcp_stack_conn_count(th->s), 2);
    assert_int_equal(TH_STAT(th, time_wait_recycled), 1);

    th_peer_tx(th, &p[0], TH_FIN | TH_ACK, p[0].irs + 1, p[0].rcv_nxt, NULL, 0);
    th_expect(th, TH_RST, p[0].rcv_nxt, 0, 0);
    th_peer_tx(th, &p[2], TH_FIN | TH_ACK, p[2].irs + 1, p[2].rcv_nxt, NULL, 0);
    th_peer_expect(th, &p[2], TH_ACK, p[2].iss + 2, p[2].irs + 2, 0);
    th_advance(th, th->cfg.time_wait_ms * TH_MS + 2 * TH_MS);
    assert_all_gone(th);
}

/* A SYN for a tuple in TIME_WAIT with a higher sequence number opens a new
 * connection (RFC 9293 3.10.7.4 / RFC 1122 4.2.2.13). */
static void test_time_wait_reuse_higher_seq(void **state)
{
    struct th *th = *state;
    struct th_peer p, p2;
    struct tcp_conn *c = open_conn(th, &p, 43010), *c2;

    close_to_time_wait(th, &p, c);
    th_peer_init(th, &p2, 43010);
    p2.irs = p.snd_nxt + 100000;
    c2 = th_passive_open(th, &p2);
    assert_int_equal(th_state_count(th, TCP_TIME_WAIT), 0);
    assert_int_equal(tcp_stack_conn_count(th->s), 1);
    assert_int_equal(TH_STAT(th, time_wait_recycled), 1);
    /* (The new TCB may reuse the old one's memory: count events.) */
    assert_ptr_equal(th_last_established(th), c2);
    assert_int_equal(th_events(th, TH_EV_ESTABLISHED, NULL), 2);
}

/* With timestamps, a newer TSval admits the SYN even with a lower sequence
 * number (RFC 6191 2). */
static void test_time_wait_reuse_newer_timestamp(void **state)
{
    struct th *th = *state;
    struct th_peer p, p2;
    struct tcp_conn *c;

    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &p, 43011);
    p.ts = true;
    c = th_passive_open(th, &p);
    close_to_time_wait(th, &p, c);
    th_peer_init(th, &p2, 43011);
    p2.ts = true;
    p2.tsval = p.tsval + 100;
    p2.irs = p.irs - 5000;
    th_passive_open(th, &p2);
    assert_int_equal(th_state_count(th, TCP_TIME_WAIT), 0);
    assert_int_equal(TH_STAT(th, time_wait_recycled), 1);
}

/* An old SYN (lower sequence, no newer timestamp) does not replace TIME_WAIT. */
static void test_time_wait_old_syn_rejected(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 43012);
    struct th_seg seg;

    close_to_time_wait(th, &p, c);
    TH_SEND(th, .sport = p.port, .flags = TH_SYN, .seq = p.irs, .mss = 1460);
    while (th_pop(th, &seg))
        assert_false(seg.flags & TH_SYN);
    assert_int_equal(th_state_count(th, TCP_TIME_WAIT), 1);
    assert_int_equal(tcp_stack_conn_count(th->s), 1);
}

static void keepalive_config(struct th *th)
{
    th->cfg.keepalive_idle_s = 10;
    th->cfg.keepalive_intvl_s = 2;
    th->cfg.keepalive_probes = 3;
    th_restart(th);
}

/* A keepalive probe (seq = SND.UNA - 1, RFC 9293 3.8.4) after idle seconds;
 * answered, the connection lives and the next probe waits a full idle time. */
static void test_keepalive_answered(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    struct th_seg seg;

    keepalive_config(th);
    c = open_conn(th, &p, 40020);
    for (unsigned i = 0; i < 2; i++) {
        NEAR(th_advance_until_frame(th, 30 * TH_SEC), 10 * TH_SEC, TH_MS);
        assert_true(th_peer_recv(th, &p, &seg));
        assert_int_equal(seg.seq, p.iss);
        assert_int_equal(seg.ack, p.irs + 1);
        assert_true(seg.len <= 1);
        assert_true(seg.flags & TH_ACK);
        th_expect_none(th);
        th_peer_ack(th, &p);
        th_expect_none(th);
    }
    assert_int_equal(TH_STAT(th, keepalive_probes), 2);
    assert_int_equal(tcp_conn_state(c), TCP_ESTABLISHED);
}

/* Traffic from the peer defers the probe. */
static void test_keepalive_deferred_by_data(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    uint8_t d[10] = {0};

    keepalive_config(th);
    open_conn(th, &p, 40021);
    th_advance(th, 6 * TH_SEC);
    th_expect_none(th);
    th_peer_data(th, &p, d, sizeof(d));
    th_advance(th, 100 * TH_MS);
    th_drop_all(th);
    NEAR(th_advance_until_frame(th, 30 * TH_SEC), 10 * TH_SEC - 100 * TH_MS, TH_MS);
}

/* keepalive_probes unanswered probes, keepalive_intvl apart, then
 * on_closed(-ETIMEDOUT) one interval after the last. */
static void test_keepalive_unanswered_aborts(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    struct th_seg seg;

    keepalive_config(th);
    c = open_conn(th, &p, 40022);
    for (unsigned i = 0; i < 3; i++) {
        NEAR(th_advance_until_frame(th, 30 * TH_SEC), i ? 2 * TH_SEC : 10 * TH_SEC, TH_MS);
        assert_true(th_peer_recv(th, &p, &seg));
        assert_int_equal(seg.seq, p.iss);
        assert_false(th_is_closed(th, c));
    }
    th_advance(th, 2 * TH_SEC - 2 * TH_MS);
    assert_false(th_is_closed(th, c));
    th_advance(th, 4 * TH_MS);
    assert_int_equal(th_close_reason(th, c), -ETIMEDOUT);
    while (th_peer_recv(th, &p, &seg))
        assert_true(seg.flags & TH_RST);
    assert_int_equal(TH_STAT(th, keepalive_probes), 3);
    assert_int_equal(TH_STAT(th, conns_timed_out), 1);
    assert_all_gone(th);
}

/* tcp_abort: RST now, no callback, freed at once. */
static void test_abort(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40023);
    uint8_t d[1000] = {0};

    assert_int_equal(tcp_send(c, d, sizeof(d)), (ssize_t)sizeof(d));
    tcp_abort(c);
    th_flush(th);
    assert_true(th_peer_recv(th, &p, &th->seg));
    assert_true(th->seg.flags & TH_RST);
    th_expect_none(th);
    assert_int_equal(th_events(th, TH_EV_CLOSED, NULL), 0);
    assert_all_gone(th);
}

/* ---- API calls from inside callbacks (tcp.h allows any) ------------- */

static void hook_close_on_eof(struct th *th, enum th_ev_type type, struct tcp_conn *c)
{
    bool *done = th->hook_arg;

    if (type == TH_EV_READABLE && !*done && tcp_recv_eof(c)) {
        *done = true;
        tcp_close(c);
    }
}

/* The application reads and closes from on_readable when it sees EOF. */
static void test_close_inside_callback(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct th_seg seg;
    uint8_t d[300];
    bool done = false, fin = false;

    open_conn(th, &p, 40030);
    th->auto_read = true;
    th->hook = hook_close_on_eof;
    th->hook_arg = &done;
    th_pattern(d, 0, sizeof(d), 30);
    th_peer_tx(th, &p, TH_FIN | TH_ACK | TH_PSH, p.snd_nxt, p.rcv_nxt, d, sizeof(d));
    p.snd_nxt += sizeof(d) + 1;
    assert_true(done);
    assert_int_equal(th->rx_len, sizeof(d));
    assert_memory_equal(th->rx, d, sizeof(d));
    while (th_peer_recv(th, &p, &seg)) {
        th_peer_accept(&p, &seg);
        if (seg.flags & TH_FIN) {
            fin = true;
            assert_int_equal(seg.ack, p.snd_nxt);
        }
    }
    assert_true(fin);
    th_peer_ack(th, &p);
    assert_all_gone(th);
}

static void hook_abort(struct th *th, enum th_ev_type type, struct tcp_conn *c)
{
    (void)th;
    if (type == TH_EV_READABLE)
        tcp_abort(c);
}

/* tcp_abort from on_readable: RST, freed, no further callback. */
static void test_abort_inside_callback(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40031);
    uint8_t d[2000] = {0};

    th->hook = hook_abort;
    th_peer_tx(th, &p, TH_FIN | TH_ACK | TH_PSH, p.snd_nxt, p.rcv_nxt, d, sizeof(d));
    assert_true(th_peer_recv(th, &p, &th->seg));
    assert_true(th->seg.flags & TH_RST);
    th_expect_none(th);
    assert_int_equal(th_events(th, TH_EV_READABLE, c), 1);
    assert_int_equal(th_events(th, TH_EV_CLOSED, NULL), 0);
    assert_all_gone(th);
}

static void hook_send_hello(struct th *th, enum th_ev_type type, struct tcp_conn *c)
{
    (void)th;
    if (type == TH_EV_ESTABLISHED)
        assert_int_equal(tcp_send(c, "hello", 5), 5);
}

/* tcp_send from on_established: the data leaves at the same flush. */
static void test_send_inside_established(void **state)
{
    struct th *th = *state;
    struct th_peer p;

    th->hook = hook_send_hello;
    open_conn(th, &p, 40032);
    assert_true(th_peer_recv(th, &p, &th->seg));
    assert_int_equal(th->seg.len, 5);
    assert_memory_equal(th->seg.data, "hello", 5);
}

static void hook_reconnect(struct th *th, enum th_ev_type type, struct tcp_conn *c)
{
    struct tcp_conn **next = th->hook_arg;

    (void)c;
    if (type == TH_EV_CLOSED && !*next)
        assert_int_equal(tcp_connect(th->s, TH_PEER_IP, 6653, &th_ops, th, th->now, next), 0);
}

/* Reconnecting from on_closed (refused): a new SYN, the old TCB gone. */
static void test_reconnect_inside_closed(void **state)
{
    struct th *th = *state;
    struct tcp_conn *c = NULL, *next = NULL;
    struct th_seg seg;

    th->hook = hook_reconnect;
    th->hook_arg = &next;
    assert_int_equal(tcp_connect(th->s, TH_PEER_IP, 6653, &th_ops, th, th->now, &c), 0);
    th_flush(th);
    assert_true(th_pop(th, &seg));
    TH_SEND(th, .sport = 6653, .dport = seg.sport, .flags = TH_RST | TH_ACK, .seq = 0,
            .ack = seg.seq + 1);
    assert_int_equal(th_close_reason(th, c), -ECONNREFUSED);
    assert_non_null(next);
    assert_true(th_pop(th, &seg));
    assert_int_equal(seg.flags, TH_SYN);
    assert_int_equal(tcp_stack_conn_count(th->s), 1);
    assert_int_equal(tcp_conn_state(next), TCP_SYN_SENT);
    th->hook = NULL;
    tcp_abort(next);
    th_flush(th);
    th_drop_all(th);
    assert_all_gone(th);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, th_setup, th_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_active_close),
        T(test_close_flushes_queued_data),
        T(test_orphan_fin_wait2_timeout),
        T(test_shutdown_half_close),
        T(test_passive_close),
        T(test_last_ack_retransmits_fin),
        T(test_peer_half_close_we_send),
        T(test_simultaneous_close),
        T(test_fin_wait1_fin_ack),
        T(test_fin_with_data),
        T(test_fin_out_of_order),
        T(test_fin_in_syn_received),
        T(test_fin_in_syn_sent),
        T(test_fin_retransmitted_close_wait_last_ack),
        T(test_time_wait_restart_on_fin),
        T(test_close_unread_data_resets),
        T(test_data_after_close_resets),
        T(test_time_wait_bound),
        T(test_time_wait_reuse_higher_seq),
        T(test_time_wait_reuse_newer_timestamp),
        T(test_time_wait_old_syn_rejected),
        T(test_keepalive_answered),
        T(test_keepalive_deferred_by_data),
        T(test_keepalive_unanswered_aborts),
        T(test_abort),
        T(test_close_inside_callback),
        T(test_abort_inside_callback),
        T(test_send_inside_established),
        T(test_reconnect_inside_closed),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
