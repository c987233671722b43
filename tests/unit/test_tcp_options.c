/*
 * test_tcp_options: TCP options and the timing they drive in ofcd's stack:
 * MSS with the timestamp option (RFC 6691), window-scale limits and the
 * switches that turn options off (RFC 7323 2), timestamp echo rules and PAWS
 * (RFC 7323 4.3, 5.3), the retransmission timer (RFC 6298: initial value,
 * backoff, cap, SRTT/RTTVAR formulas, Karn's rule), and a transfer across
 * sequence number 2^32 in both directions.
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

#define NEAR(v, want, tol) assert_true((uint64_t)(v) + (tol) >= (uint64_t)(want) && \
                                       (uint64_t)(v) <= (uint64_t)(want) + (tol))

/* With timestamps a full segment is the peer's MSS less 12 bytes. */
static void test_mss_less_timestamp_option(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    uint8_t d[5000];

    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &p, 40001);
    p.mss = 1000;
    p.ts = true;
    c = th_passive_open(th, &p);
    assert_true(p.ts_ok);
    th_pattern(d, 0, sizeof(d), 1);
    th_app_send(th, c, d, sizeof(d));
    assert_int_equal(th_peer_pump(th, &p, 988, true), 988);
    assert_memory_equal(p.rx, d, sizeof(d));
}

/* A peer MSS above ours does not make segments beyond what our own MSS
 * (the port's MTU) allows (RFC 9293 3.7.1: Eff.snd.MSS = min(SendMSS + 20,
 * MMS_S) - 20). */
static void test_peer_mss_above_ours(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    uint8_t *d = th_alloc(th, 20000);

    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &p, 40011);
    p.mss = 8960;
    c = th_passive_open(th, &p);
    th_pattern(d, 0, 20000, 11);
    th_app_send(th, c, d, 20000);
    assert_int_equal(th_peer_pump(th, &p, th->cfg.mss, true), th->cfg.mss);
    assert_memory_equal(p.rx, d, 20000);
}

/* RFC 7323 2.3: a shift above 14 is used as 14. */
static void test_window_scale_above_14(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    struct tcp_conn_info info;

    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &p, 40002);
    p.ws = 15;
    c = th_passive_open(th, &p);
    assert_true(p.ws_ok);
    p.win = 1;
    th_peer_ack(th, &p);
    tcp_conn_get_info(c, &info);
    assert_int_equal(info.snd_wnd, 1u << 14);
}

/* Window scaling and timestamps off in the config: offered by the peer, not
 * answered, and the peer's windows are taken unscaled. */
static void test_options_disabled(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    struct tcp_conn_info info;
    uint8_t d[3000];

    th->cfg.window_scaling = false;
    th->cfg.timestamps = false;
    th_restart(th);
    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &p, 40003);
    p.ws = 7;
    p.ts = true;
    c = th_passive_open(th, &p);
    assert_false(p.ws_ok);
    assert_false(p.ts_ok);
    tcp_conn_get_info(c, &info);
    assert_false(info.timestamps);
    p.win = 1000;
    th_peer_ack(th, &p);
    tcp_conn_get_info(c, &info);
    assert_int_equal(info.snd_wnd, 1000);
    p.win = 65535;
    th_peer_ack(th, &p);
    th_pattern(d, 0, sizeof(d), 3);
    th_app_send(th, c, d, sizeof(d));
    assert_int_equal(th_peer_pump(th, &p, 1460, true), 1460);
}

/* With window scaling and an application that does not read, the right edge
 * of the offered window never moves left (RFC 9293 3.8.6, SHLD-14), however
 * the scaled window field rounds: checked on every ACK by the peer model. */
static void test_scaled_window_never_shrinks(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    struct th_seg seg;
    uint8_t d[1001];
    uint32_t sent = 0;

    th->cfg.rcv_buf = 262144;
    th_restart(th);
    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &p, 40010);
    p.ws = 0;
    c = th_passive_open(th, &p);
    assert_true(p.ws_ok && p.stack_ws > 0);
    th_pattern(d, 0, sizeof(d), 10);
    for (unsigned i = 0; i < 40; i++) {
        uint16_t n = (uint16_t)(sizeof(d) - (i % 7));

        th_peer_data(th, &p, d, n);
        sent += n;
        if (!th_pending(th))
            th_advance(th, th->cfg.delack_ms * TH_MS);
        while (th_peer_recv(th, &p, &seg))
            assert_int_equal(seg.ack, p.snd_nxt);
    }
    assert_int_equal(tcp_recv_available(c), sent);
    /* Reading opens it again, and the edge moves right. */
    tcp_recv_consume(c, sent);
    th_flush(th);
    while (th_peer_recv(th, &p, &seg))
        ;
    assert_true(th_peer_wnd(&p, &seg) >= th->cfg.rcv_buf - (1u << p.stack_ws));
}

/* RFC 7323 4.3: TSecr echoes TS.Recent, which only an in-sequence segment
 * (SEG.SEQ <= Last.ACK.sent) updates: an out-of-order segment's newer TSval
 * is not echoed, the one filling the hole is. */
static void test_timestamp_echo(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    uint8_t d[300];

    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &p, 40004);
    p.ts = true;
    p.tsval = 4000;
    th_passive_open(th, &p);
    th_pattern(d, 0, sizeof(d), 4);

    p.tsval = 5000;
    th_peer_data(th, &p, d, 100);
    assert_true(th_advance_until_frame(th, 200 * TH_MS) <= th->cfg.delack_ms * TH_MS);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.snd_nxt, 0);
    assert_int_equal(th->seg.tsecr, 5000);

    p.tsval = 6000;
    th_peer_tx(th, &p, TH_ACK | TH_PSH, p.snd_nxt + 100, p.rcv_nxt, d + 200, 100);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.snd_nxt, 0);
    assert_int_equal(th->seg.tsecr, 5000);

    p.tsval = 7000;
    th_peer_data(th, &p, d + 100, 100);
    p.snd_nxt += 100;
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.snd_nxt, 0);
    assert_int_equal(th->seg.tsecr, 7000);
}

/* PAWS (RFC 7323 5.3 R1): a segment with TSval older than TS.Recent is
 * dropped, counted and ACKed; a RST is exempt ("and the RST bit is not
 * set"), so an old-TSval RST at RCV.NXT still resets. */
static void test_paws(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    uint8_t d[200];

    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &p, 40005);
    p.ts = true;
    p.tsval = 1000;
    c = th_passive_open(th, &p);
    th->auto_read = true;
    th_pattern(d, 0, sizeof(d), 5);

    p.tsval = 2000;
    th_peer_data(th, &p, d, 100);
    assert_int_equal(th->rx_len, 100);
    th_advance(th, 100 * TH_MS);
    th_drop_all(th);

    p.tsval = 1500;
    th_peer_tx(th, &p, TH_ACK | TH_PSH, p.snd_nxt, p.rcv_nxt, d + 100, 100);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.snd_nxt, 0);
    assert_int_equal(th->seg.tsecr, 2000);
    assert_int_equal(th->rx_len, 100);
    assert_int_equal(TH_STAT(th, drop_paws), 1);

    p.tsval = 2001;
    th_peer_data(th, &p, d + 100, 100);
    assert_int_equal(th->rx_len, 200);
    assert_memory_equal(th->rx, d, 200);
    th_advance(th, 100 * TH_MS);
    th_drop_all(th);

    p.tsval = 1500;
    th_peer_tx(th, &p, TH_RST, p.snd_nxt, 0, NULL, 0);
    assert_int_equal(th_close_reason(th, c), -ECONNRESET);
    assert_int_equal(TH_STAT(th, drop_paws), 1);
    assert_int_equal(tcp_stack_conn_count(th->s), 0);
}

/* RFC 6298 5.5-5.6: the RTO doubles on each expiry up to rto_max; each
 * expiry retransmits the same first segment. The first RTO is rto_initial
 * without an RTT sample, or rto_min after the zero-length handshake sample. */
static void test_rto_backoff_and_cap(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    struct tcp_conn_info info;
    struct th_seg seg;
    uint8_t d[100];
    uint64_t expect;

    th->cfg.rto_max_ms = 8000;
    th->cfg.max_retrans = 10;
    th_restart(th);
    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &p, 40006);
    c = th_passive_open(th, &p);
    tcp_conn_get_info(c, &info);
    assert_true(info.rto_us == th->cfg.rto_initial_ms * TH_MS ||
                info.rto_us == th->cfg.rto_min_ms * TH_MS);
    expect = info.rto_us;

    th_pattern(d, 0, sizeof(d), 6);
    th_app_send(th, c, d, sizeof(d));
    assert_true(th_peer_recv(th, &p, &seg));
    for (unsigned i = 0; i < 7; i++) {
        uint64_t waited = th_advance_until_frame(th, 2 * expect + TH_SEC);

        NEAR(waited, expect, TH_MS);
        assert_true(th_peer_recv(th, &p, &seg));
        assert_int_equal(seg.seq, p.iss + 1);
        assert_int_equal(seg.len, 100);
        assert_memory_equal(seg.data, d, 100);
        th_expect_none(th);
        expect = 2 * expect > 8000 * TH_MS ? 8000 * TH_MS : 2 * expect;
    }
    assert_int_equal(TH_STAT(th, rto_expirations), 7);
    assert_int_equal(TH_STAT(th, retransmits), 7);
    tcp_conn_get_info(c, &info);
    assert_int_equal(info.retransmits, 7);
    assert_int_equal(info.rto_expirations, 7);

    th_peer_accept(&p, &seg);
    th_peer_ack(th, &p);
    th_advance(th, 20 * TH_SEC);
    th_expect_none(th);
    assert_int_equal(tcp_conn_state(c), TCP_ESTABLISHED);
}

/* A SYN-ACK retransmission keeps the handshake from giving an RTT sample
 * (Karn); then one 100 ms data round trip. */
static struct tcp_conn *open_without_sample(struct th *th, struct th_peer *p, uint16_t port)
{
    uint64_t waited;

    th_listen(th, TH_PORT, 0);
    th_peer_init(th, p, port);
    th_passive_syn(th, p);
    waited = th_advance_until_frame(th, 2 * TH_SEC);
    NEAR(waited, th->cfg.rto_initial_ms * TH_MS, TH_MS);
    th_peer_expect(th, p, TH_SYN | TH_ACK, p->iss, p->irs + 1, 0);
    th_peer_ack(th, p);
    assert_non_null(th_last_established(th));
    return th_last_established(th);
}

/* Send 100 bytes, let rtt_us pass, ACK them. */
static void rtt_round(struct th *th, struct th_peer *p, struct tcp_conn *c, uint64_t rtt_us)
{
    struct th_seg seg;
    uint8_t d[100];

    th_pattern(d, 0, sizeof(d), 7);
    th_app_send(th, c, d, sizeof(d));
    assert_true(th_peer_recv(th, p, &seg));
    assert_int_equal(seg.len, 100);
    th_peer_accept(p, &seg);
    th_advance(th, rtt_us);
    th_expect_none(th);
    th_peer_ack(th, p);
}

/* RFC 6298 2.2-2.3: first sample R: SRTT = R, RTTVAR = R/2, RTO = SRTT +
 * max(G, 4 RTTVAR) = 300 ms for R = 100 ms; second sample R' = 200 ms:
 * RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R'| = 62.5 ms, SRTT = 7/8 SRTT + 1/8 R'
 * = 112.5 ms, RTO = 362.5 ms, and the next segment is retransmitted then. */
static void test_rtt_estimator(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_without_sample(th, &p, 40007);
    struct tcp_conn_info info;
    struct th_seg seg;
    uint8_t d[100] = {0};
    uint64_t waited;

    rtt_round(th, &p, c, 100 * TH_MS);
    tcp_conn_get_info(c, &info);
    NEAR(info.srtt_us, 100000, 1000);
    NEAR(info.rttvar_us, 50000, 1000);
    NEAR(info.rto_us, 300000, 2000);

    rtt_round(th, &p, c, 200 * TH_MS);
    tcp_conn_get_info(c, &info);
    NEAR(info.srtt_us, 112500, 1000);
    NEAR(info.rttvar_us, 62500, 1000);
    NEAR(info.rto_us, 362500, 2000);

    th_app_send(th, c, d, sizeof(d));
    assert_true(th_peer_recv(th, &p, &seg));
    waited = th_advance_until_frame(th, 2 * TH_SEC);
    NEAR(waited, 362500, 2000);
    assert_true(th_peer_recv(th, &p, &seg));
    assert_int_equal(seg.seq, p.rcv_nxt);
    assert_int_equal(seg.len, sizeof(d));
}

/* Karn (RFC 6298 3): an ACK for a retransmitted segment gives no RTT sample
 * (timestamps off); the next fresh segment does. */
static void test_karn(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_without_sample(th, &p, 40008);
    struct tcp_conn_info info;
    struct th_seg seg;
    uint8_t d[100] = {0};
    uint64_t waited;

    rtt_round(th, &p, c, 100 * TH_MS);
    th_app_send(th, c, d, sizeof(d));
    assert_true(th_peer_recv(th, &p, &seg));
    waited = th_advance_until_frame(th, 2 * TH_SEC);
    NEAR(waited, 300000, 2000);
    assert_true(th_peer_recv(th, &p, &seg));
    th_peer_accept(&p, &seg);
    th_advance(th, 50 * TH_MS);
    th_peer_ack(th, &p);
    tcp_conn_get_info(c, &info);
    NEAR(info.srtt_us, 100000, 1000);
    NEAR(info.rttvar_us, 50000, 1000);

    rtt_round(th, &p, c, 180 * TH_MS);
    tcp_conn_get_info(c, &info);
    NEAR(info.srtt_us, 110000, 1000);
    NEAR(info.rttvar_us, 57500, 1000);
}

/* Our ISS 0xFFFFFF00 and the peer's ISN 0xFFFFFFF0: 20000 bytes each way
 * cross 2^32; every byte arrives once and the ACKs wrap correctly. */
static void test_sequence_wraparound(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    struct tcp_conn_info info;
    struct th_seg seg;
    uint8_t *up = th_alloc(th, 20000), *down = th_alloc(th, 20000);
    uint32_t last_ack = 0xFFFFFFF1u;

    th_listen(th, TH_PORT, 0);
    tcp_stack_force_next_iss(th->s, 0xFFFFFF00u);
    th_peer_init(th, &p, 40009);
    p.irs = 0xFFFFFFF0u;
    p.ts = true;
    p.ws = 2;
    c = th_passive_open(th, &p);
    assert_int_equal(p.iss, 0xFFFFFF00u);
    th->auto_read = true;
    th_pattern(up, 0, 20000, 9);
    th_pattern(down, 0, 20000, 10);

    for (uint32_t off = 0; off < 20000; off += 1000) {
        p.tsval++;
        th_peer_data(th, &p, up + off, 1000);
        while (th_peer_recv(th, &p, &seg)) {
            assert_true(th_seq_lt(last_ack, seg.ack) || last_ack == seg.ack);
            assert_true(th_seq_le(seg.ack, p.snd_nxt));
            last_ack = seg.ack;
        }
    }
    th_advance(th, 100 * TH_MS);
    while (th_peer_recv(th, &p, &seg))
        last_ack = seg.ack;
    assert_int_equal(last_ack, 0xFFFFFFF1u + 20000u);
    assert_int_equal(th->rx_len, 20000);
    assert_memory_equal(th->rx, up, 20000);

    th_app_send(th, c, down, 20000);
    th_peer_pump(th, &p, 1460, true);
    assert_int_equal(p.rx_len, 20000);
    assert_memory_equal(p.rx, down, 20000);
    assert_int_equal(p.rcv_nxt, 0xFFFFFF01u + 20000u);
    tcp_conn_get_info(c, &info);
    assert_int_equal(info.bytes_in, 20000);
    assert_int_equal(info.bytes_out, 20000);
    assert_int_equal(info.snd_queued, 0);
    assert_int_equal(TH_STAT(th, retransmits), 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, th_setup, th_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_mss_less_timestamp_option),
        T(test_peer_mss_above_ours),
        T(test_window_scale_above_14),
        T(test_options_disabled),
        T(test_scaled_window_never_shrinks),
        T(test_timestamp_echo),
        T(test_paws),
        T(test_rto_backoff_and_cap),
        T(test_rtt_estimator),
        T(test_karn),
        T(test_sequence_wraparound),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
