/*
 * test_tcp_data: data transfer in ofcd's TCP, segment by segment: in-order
 * delivery and the peek/consume interface, receive window and window updates
 * (RFC 9293 3.8.6), send buffer bound and on_writable, segment sizing and
 * coalescing, ACK clocking, delayed ACKs and out-of-order handling (RFC 5681
 * 4.2), overlapping and duplicate segments, the out-of-order bound, zero
 * windows both ways with persist probes, fast retransmit and NewReno (RFC
 * 5681 3.2, RFC 6582), the retransmission limit, and chunk-pool exhaustion.
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

/* Established connection from peer port with its defaults (MSS 1460, no WS,
 * no TS, window 65535). */
static struct tcp_conn *open_conn(struct th *th, struct th_peer *p, uint16_t port)
{
    th_listen(th, TH_PORT, 0);
    th_peer_init(th, p, port);
    return th_passive_open(th, p);
}

/* Peer data segment at an offset from the peer's ISN+1, not moving snd_nxt. */
static void seg_at(struct th *th, struct th_peer *p, const uint8_t *stream, uint32_t off,
                   uint16_t len)
{
    th_peer_tx(th, p, TH_ACK | TH_PSH, p->irs + 1 + off, p->rcv_nxt, stream + off, len);
}

/* Pop every queued frame: at least one, the last a pure ACK of ack. */
static void expect_last_ack(struct th *th, struct th_peer *p, uint32_t ack)
{
    struct th_seg seg;
    unsigned n = 0;

    while (th_peer_recv(th, p, &seg)) {
        n++;
        assert_int_equal(seg.flags, TH_ACK);
        assert_int_equal(seg.len, 0);
    }
    if (!n)
        fail_msg("expected an immediate ACK of %u, nothing sent", ack);
    assert_int_equal(seg.ack, ack);
}

/* In-order data: on_readable, peek describes exactly the bytes in chunk-sized
 * pieces without consuming, consume and recv take them in order. */
static void test_recv_peek_consume(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40001);
    struct tcp_iovec iov[16];
    struct tcp_conn_info info;
    uint8_t d[3260], buf[4000];
    unsigned cnt;
    size_t n, sum = 0;

    th_pattern(d, 0, sizeof(d), 1);
    th_peer_data(th, &p, d, 1000);
    assert_true(th_events(th, TH_EV_READABLE, c) >= 1);
    th_peer_data(th, &p, d + 1000, 1460);
    th_peer_data(th, &p, d + 2460, 800);
    assert_int_equal(tcp_recv_available(c), sizeof(d));

    cnt = 16;
    n = tcp_recv_peek(c, iov, &cnt);
    assert_int_equal(n, sizeof(d));
    assert_true(cnt >= 2 && cnt <= 16);
    for (unsigned i = 0; i < cnt; i++) {
        assert_true(iov[i].len > 0 && iov[i].len <= TCP_CHUNK_SIZE);
        assert_memory_equal(iov[i].base, d + sum, iov[i].len);
        sum += iov[i].len;
    }
    assert_int_equal(sum, sizeof(d));

    cnt = 1;
    n = tcp_recv_peek(c, iov, &cnt);
    assert_int_equal(cnt, 1);
    assert_int_equal(n, iov[0].len);
    assert_memory_equal(iov[0].base, d, n);
    assert_int_equal(tcp_recv_available(c), sizeof(d));

    tcp_recv_consume(c, 1000);
    cnt = 16;
    n = tcp_recv_peek(c, iov, &cnt);
    assert_int_equal(n, sizeof(d) - 1000);
    assert_memory_equal(iov[0].base, d + 1000, iov[0].len);

    assert_int_equal(tcp_recv(c, buf, sizeof(buf)), sizeof(d) - 1000);
    assert_memory_equal(buf, d + 1000, sizeof(d) - 1000);
    assert_int_equal(tcp_recv_available(c), 0);
    assert_int_equal(tcp_recv(c, buf, sizeof(buf)), 0);
    cnt = 16;
    assert_int_equal(tcp_recv_peek(c, iov, &cnt), 0);
    assert_int_equal(cnt, 0);
    assert_false(tcp_recv_eof(c));

    tcp_conn_get_info(c, &info);
    assert_int_equal(info.bytes_in, sizeof(d));
    assert_int_equal(info.rcv_queued, 0);
    assert_int_equal(TH_STAT(th, bytes_in), sizeof(d));
    th_advance(th, 100 * TH_MS);
    th_peer_collect(th, &p);
    assert_int_equal(p.rcv_nxt, p.iss + 1);
}

/* Fill the window the stack offers, ACK by ACK, until it advertises zero. */
static uint32_t fill_window(struct th *th, struct th_peer *p, const uint8_t *stream)
{
    uint32_t sent = 0;

    for (;;) {
        uint32_t room = p->right_edge - p->snd_nxt;
        uint16_t n = room > 1000 ? 1000 : (uint16_t)room;

        if (!room)
            break;
        th_peer_data(th, p, stream + sent, n);
        sent += n;
        if (!th_pending(th))
            assert_true(th_advance_until_frame(th, 200 * TH_MS) != UINT64_MAX);
        while (th_peer_recv(th, p, &th->seg))
            assert_int_equal(th->seg.ack, p->snd_nxt);
    }
    return sent;
}

/* Window updates follow receiver SWS avoidance (RFC 9293 3.8.6.2.2): a read
 * of less than an MSS from a full buffer is not advertised; once the window
 * can grow by an MSS an update goes out without waiting for data. */
/* A whole OpenFlow message can be 64 KiB, 32 chunks: tcp_recv_copy gives it
 * all without consuming (a bounded iovec peek once cut such messages). */
static void test_recv_copy_large(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    static uint8_t d[60000], out[60000];

    th->cfg.rcv_buf = 65535;     /* the largest window that needs no scaling */
    th->cfg.window_scaling = false;
    th_restart(th);
    struct tcp_conn *c = open_conn(th, &p, 40009);

    th_pattern(d, 0, sizeof(d), 3);
    for (size_t off = 0; off < sizeof(d); off += 1460) {
        size_t k = sizeof(d) - off < 1460 ? sizeof(d) - off : 1460;
        th_peer_data(th, &p, d + off, (uint16_t)k);
    }
    assert_int_equal(tcp_recv_available(c), sizeof(d));
    memset(out, 0, sizeof(out));
    assert_int_equal(tcp_recv_copy(c, out, sizeof(out)), sizeof(d));
    assert_memory_equal(out, d, sizeof(d));
    assert_int_equal(tcp_recv_available(c), sizeof(d));       /* nothing consumed */
    tcp_recv_consume(c, 5000);
    assert_int_equal(tcp_recv_copy(c, out, 100000), sizeof(d) - 5000);
    assert_memory_equal(out, d + 5000, sizeof(d) - 5000);
}

static void test_window_update_on_consume(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    uint8_t *d = th_alloc(th, 20000);
    uint32_t filled, w1;

    assert_non_null(d);
    th->cfg.rcv_buf = 8 * 1460;
    th_restart(th);
    c = open_conn(th, &p, 40002);
    th_pattern(d, 0, 20000, 2);
    filled = fill_window(th, &p, d);
    assert_true(filled >= th->cfg.rcv_buf / 2 && filled <= th->cfg.rcv_buf);
    assert_int_equal(tcp_recv_available(c), filled);
    assert_int_equal(th_peer_wnd(&p, &th->seg), 0);

    /* Hidden free space (a window offered below the buffer) is < 1 MSS. */
    assert_true(th->cfg.rcv_buf - filled < 1360);
    tcp_recv_consume(c, 100);
    th_flush(th);
    th_expect_none(th);
    th_advance(th, 500 * TH_MS);
    th_expect_none(th);

    tcp_recv_consume(c, 1400);
    th_flush(th);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.snd_nxt, 0);
    w1 = th_peer_wnd(&p, &th->seg);
    assert_true(w1 >= 1460 && w1 <= th->cfg.rcv_buf - filled + 1500);
    th_expect_none(th);

    tcp_recv_consume(c, tcp_recv_available(c));
    th_flush(th);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.snd_nxt, 0);
    assert_true(th_peer_wnd(&p, &th->seg) >= w1 + 1460);

    /* The opened window takes data. */
    th_peer_data(th, &p, d + filled, 1460);
    assert_int_equal(tcp_recv_available(c), 1460);
}

/* Our zero window: with the buffer full, nothing beyond it is accepted (a
 * segment or a one-byte probe gets an ACK with the same ack and window 0);
 * reading reopens it. */
static void test_our_zero_window(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    uint8_t d[8000];
    uint32_t filled;

    th->cfg.rcv_buf = 4096;
    th_restart(th);
    c = open_conn(th, &p, 40003);
    th_pattern(d, 0, sizeof(d), 3);
    filled = fill_window(th, &p, d);
    assert_int_equal(tcp_recv_available(c), filled);

    th_peer_tx(th, &p, TH_ACK | TH_PSH, p.snd_nxt, p.rcv_nxt, d + filled, 1000);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.snd_nxt, 0);
    assert_int_equal(th->seg.win, 0);
    th_peer_tx(th, &p, TH_ACK, p.snd_nxt, p.rcv_nxt, d + filled, 1);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.snd_nxt, 0);
    assert_int_equal(th->seg.win, 0);
    assert_int_equal(tcp_recv_available(c), filled);
    assert_true(TH_STAT(th, drop_rcv_full) + TH_STAT(th, drop_out_of_window) >= 2);

    /* Read everything: the window reopens and takes the rest. */
    tcp_recv_consume(c, filled);
    th_flush(th);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.snd_nxt, 0);
    assert_true(th_peer_wnd(&p, &th->seg) >= 1460);
    th_peer_data(th, &p, d + filled, 1000);
    assert_int_equal(tcp_recv_available(c), 1000);
}

/* tcp_send queues what fits and says so; on_writable follows when ACKs free
 * room; every byte arrives once. */
static void test_send_short_count_writable(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    uint8_t d[10000];
    size_t space;
    ssize_t n;

    th->cfg.snd_buf = 8192;
    th_restart(th);
    c = open_conn(th, &p, 40004);
    space = tcp_send_space(c);
    assert_true(space <= 8192 && space >= 8192 - TCP_CHUNK_SIZE);
    th_pattern(d, 0, sizeof(d), 4);
    n = tcp_send(c, d, sizeof(d));
    assert_int_equal(n, (ssize_t)space);
    assert_int_equal(tcp_send_space(c), 0);
    assert_int_equal(tcp_send(c, d + n, 100), 0);
    assert_int_equal(th_events(th, TH_EV_WRITABLE, c), 0);

    th_flush(th);
    th_peer_pump(th, &p, 1460, true);
    assert_int_equal(p.rx_len, (size_t)n);
    assert_memory_equal(p.rx, d, (size_t)n);
    assert_true(th_events(th, TH_EV_WRITABLE, c) >= 1);
    assert_int_equal(tcp_send_space(c), space);
}

/* Several sends before one flush leave as one segment (tcp.h: no Nagle, no
 * tinygrams). */
static void test_sends_coalesce_until_flush(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40005);
    struct th_seg seg;
    uint8_t d[300];

    th_pattern(d, 0, sizeof(d), 5);
    assert_int_equal(tcp_send(c, d, 100), 100);
    assert_int_equal(tcp_send(c, d + 100, 100), 100);
    assert_int_equal(tcp_send(c, d + 200, 100), 100);
    th_expect_none(th);
    th_flush(th);
    assert_true(th_peer_recv(th, &p, &seg));
    assert_int_equal(seg.seq, p.iss + 1);
    assert_int_equal(seg.len, 300);
    assert_memory_equal(seg.data, d, 300);
    th_expect_none(th);

    /* A lone small message goes out at the next flush too (Nagle off). */
    assert_int_equal(tcp_send(c, d, 10), 10);
    th_flush(th);
    assert_true(th_peer_recv(th, &p, &seg));
    assert_int_equal(seg.len, 10);
}

/* ACK clocking against a 3000-byte peer window: never more than the window
 * in flight, and the transfer finishes on ACKs alone (the clock stands). */
static void test_ack_clocking_window_limited(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    struct th_seg seg;
    uint8_t *d = th_alloc(th, 20000);
    uint64_t t0 = th->now;

    assert_non_null(d);
    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &p, 40006);
    p.mss = 1000;
    p.win = 3000;
    c = th_passive_open(th, &p);
    th_pattern(d, 0, 20000, 6);
    assert_int_equal(tcp_send(c, d, 20000), 20000);
    th_flush(th);
    /* One ACK per flight: everything queued was sent under the last ACK. */
    for (unsigned round = 0; p.rx_len < 20000; round++) {
        uint32_t acked = p.rcv_nxt;

        assert_true(round < 1000);
        assert_true(th_pending(th) > 0);
        while (th_peer_recv(th, &p, &seg)) {
            assert_true(seg.len <= 1000);
            if (th_seq_lt(acked + 3000, seg.seq + seg.len))
                fail_msg("sent up to %u, beyond ack %u + window 3000", seg.seq + seg.len,
                         acked);
            th_peer_accept(&p, &seg);
        }
        th_peer_ack(th, &p);
    }
    assert_memory_equal(p.rx, d, 20000);
    assert_int_equal(th->now, t0);
    th_expect_none(th);
}

/* Delayed ACK (RFC 9293 3.8.6.3, RFC 5681 4.2): one full segment is ACKed
 * after at most delack_ms, not at once; the second full segment is ACKed
 * immediately. */
static void test_delayed_ack(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40007);
    uint8_t d[4 * 1460];
    uint64_t waited;

    (void)c;
    th_pattern(d, 0, sizeof(d), 7);
    th_peer_data(th, &p, d, 1460);
    th_expect_none(th);
    waited = th_advance_until_frame(th, 500 * TH_MS);
    assert_true(waited >= TH_MS && waited <= th->cfg.delack_ms * TH_MS);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.snd_nxt, 0);

    th_peer_data(th, &p, d + 1460, 1460);
    th_expect_none(th);
    th_peer_data(th, &p, d + 2920, 1460);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.snd_nxt, 0);
    th_expect_none(th);

    /* Small segments are delayed too, but never beyond delack_ms. */
    th_peer_data(th, &p, d, 10);
    th_expect_none(th);
    waited = th_advance_until_frame(th, 500 * TH_MS);
    assert_true(waited <= th->cfg.delack_ms * TH_MS);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.snd_nxt, 0);
}

/* Out-of-order data (RFC 5681 4.2): an immediate duplicate ACK, data held and
 * not readable; the segment filling the hole delivers all of it in order
 * with an immediate ACK. */
static void test_out_of_order_fill(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40008);
    struct tcp_conn_info info;
    uint8_t d[4000], buf[4000];

    th_pattern(d, 0, sizeof(d), 8);
    seg_at(th, &p, d, 1000, 1000);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.irs + 1, 0);
    assert_int_equal(tcp_recv_available(c), 0);
    assert_int_equal(th_events(th, TH_EV_READABLE, c), 0);
    tcp_conn_get_info(c, &info);
    assert_int_equal(info.ooo_segs, 1);
    assert_int_equal(TH_STAT(th, ooo_queued), 1);

    seg_at(th, &p, d, 2000, 1000);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.irs + 1, 0);
    th_expect_none(th);

    seg_at(th, &p, d, 0, 1000);
    th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.irs + 1 + 3000, 0);
    assert_int_equal(tcp_recv_available(c), 3000);
    tcp_conn_get_info(c, &info);
    assert_int_equal(info.ooo_segs, 0);

    p.snd_nxt = p.irs + 1 + 3000;
    th_peer_data(th, &p, d + 3000, 1000);
    assert_int_equal(th_app_read(c, buf, sizeof(buf)), sizeof(d));
    assert_memory_equal(buf, d, sizeof(d));
    tcp_conn_get_info(c, &info);
    assert_int_equal(info.bytes_in, sizeof(d));
}

/* Overlapping, duplicate and out-of-order overlapping segments: every byte
 * is delivered exactly once, in order; an entirely old segment is ACKed. */
static void test_overlap_and_duplicates(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40009);
    struct tcp_conn_info info;
    uint8_t d[3500];

    th->auto_read = true;
    th_pattern(d, 0, sizeof(d), 9);
    seg_at(th, &p, d, 0, 1000);
    seg_at(th, &p, d, 500, 1000);
    assert_int_equal(th->rx_len, 1500);
    th_drop_all(th);
    seg_at(th, &p, d, 0, 1500);
    expect_last_ack(th, &p, p.irs + 1 + 1500);
    seg_at(th, &p, d, 1400, 600);
    assert_int_equal(th->rx_len, 2000);
    th_drop_all(th);
    seg_at(th, &p, d, 3000, 500);
    expect_last_ack(th, &p, p.irs + 1 + 2000);
    seg_at(th, &p, d, 2500, 700);
    expect_last_ack(th, &p, p.irs + 1 + 2000);
    assert_int_equal(th->rx_len, 2000);
    seg_at(th, &p, d, 1900, 700);
    expect_last_ack(th, &p, p.irs + 1 + 3500);
    assert_int_equal(th->rx_len, sizeof(d));
    assert_memory_equal(th->rx, d, sizeof(d));
    tcp_conn_get_info(c, &info);
    assert_int_equal(info.bytes_in, sizeof(d));
    assert_int_equal(info.ooo_segs, 0);
}

/* At most ooo_max_segs out-of-order segments are held; the excess is dropped
 * and counted, and a full in-order resend still delivers each byte once. */
static void test_ooo_bound(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    struct tcp_conn_info info;
    uint8_t d[1300];

    th->cfg.ooo_max_segs = 4;
    th_restart(th);
    c = open_conn(th, &p, 40010);
    th->auto_read = true;
    th_pattern(d, 0, sizeof(d), 10);
    for (uint32_t k = 1; k <= 6; k++) {
        seg_at(th, &p, d, 200 * k, 100);
        th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.irs + 1, 0);
        tcp_conn_get_info(c, &info);
        assert_true(info.ooo_segs <= 4);
    }
    assert_int_equal(TH_STAT(th, drop_ooo_full), 2);
    assert_int_equal(th->rx_len, 0);
    for (uint32_t off = 0; off < sizeof(d); off += 100)
        seg_at(th, &p, d, off, 100);
    assert_int_equal(th->rx_len, sizeof(d));
    assert_memory_equal(th->rx, d, sizeof(d));
    tcp_conn_get_info(c, &info);
    assert_int_equal(info.ooo_segs, 0);
    assert_int_equal(info.bytes_in, sizeof(d));
}

/* Out-of-order segments are bounded by the memory they pin, not only by
 * count: 1-byte segments each take a whole chunk, so with rcv_buf 8192 at
 * most 6 (12 KiB, 1.5 windows) are held however high ooo_max_segs is; the
 * rest are dropped and counted, and the data still arrives once resent. */
static void test_ooo_tiny_segments_bounded_by_bytes(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    struct tcp_conn_info info;
    uint8_t d[64];

    th->cfg.ooo_max_segs = 4096;
    th->cfg.rcv_buf = 8192;
    th_restart(th);
    c = open_conn(th, &p, 40011);
    th->auto_read = true;
    th_pattern(d, 0, sizeof(d), 11);
    long before = th->chunks_live;
    for (uint32_t k = 1; k <= 10; k++) {
        seg_at(th, &p, d, 2 * k, 1);              /* every other byte, alone */
        th_peer_expect(th, &p, TH_ACK, p.iss + 1, p.irs + 1, 0);
    }
    tcp_conn_get_info(c, &info);
    assert_int_equal(info.ooo_segs, 6);
    assert_int_equal(th->chunks_live - before, 6);
    assert_int_equal(TH_STAT(th, drop_ooo_full), 4);
    seg_at(th, &p, d, 0, sizeof(d));
    assert_int_equal(th->rx_len, sizeof(d));
    assert_memory_equal(th->rx, d, sizeof(d));
    tcp_conn_get_info(c, &info);
    assert_int_equal(info.ooo_segs, 0);
}

/* The peer's zero window (RFC 9293 3.8.6.1, RFC 1122 4.2.2.17): nothing is
 * sent, persist probes go out with exponential backoff, data resumes as soon
 * as the window opens. */
static void test_peer_zero_window_probes(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40011);
    struct th_seg seg;
    uint8_t d[4000];
    uint64_t gap[5];

    th_pattern(d, 0, sizeof(d), 11);
    th_app_send(th, c, d, 1000);
    assert_true(th_peer_recv(th, &p, &seg));
    th_peer_accept(&p, &seg);
    p.win = TH_WIN_ZERO;
    th_peer_ack(th, &p);
    assert_int_equal(tcp_send(c, d + 1000, 3000), 3000);
    th_flush(th);
    th_expect_none(th);

    for (unsigned i = 0; i < 5; i++) {
        gap[i] = th_advance_until_frame(th, 200 * TH_SEC);
        assert_true(gap[i] != UINT64_MAX);
        assert_true(th_peer_recv(th, &p, &seg));
        /* A probe: the next new byte, or an empty segment below snd_una. */
        if (seg.len == 1) {
            assert_int_equal(seg.seq, p.rcv_nxt);
            assert_int_equal(seg.data[0], d[1000]);
        } else {
            assert_int_equal(seg.len, 0);
            assert_int_equal(seg.seq, p.rcv_nxt - 1);
        }
        th_expect_none(th);
        /* The answer keeps the window shut; it is no duplicate ACK to
         * recover from, and nothing may leave before the next probe. */
        th_peer_ack(th, &p);
        th_expect_none(th);
        assert_int_equal(TH_STAT(th, fast_retransmits), 0);
        if (i > 0 && 2 * gap[i - 1] <= th->cfg.rto_max_ms * TH_MS)
            assert_true(gap[i] + 2 * TH_MS >= 2 * gap[i - 1] &&
                        gap[i] <= 2 * gap[i - 1] + 2 * TH_MS);
    }
    assert_int_equal(TH_STAT(th, zero_window_probes), 5);
    assert_int_equal(tcp_conn_state(c), TCP_ESTABLISHED);

    /* The window opens: data at once (a one-byte probe still unacked may
     * need its retransmission first). */
    p.win = 65535;
    th_peer_ack(th, &p);
    assert_true(th_pending(th) > 0);
    th_peer_pump(th, &p, 1460, true);
    while (p.rx_len < sizeof(d) && th_advance_until_frame(th, 10 * TH_SEC) != UINT64_MAX)
        th_peer_pump(th, &p, 1460, true);
    assert_int_equal(p.rx_len, sizeof(d));
    assert_memory_equal(p.rx, d, sizeof(d));
}

/* Collect every queued data segment without ACKing. */
static unsigned take_segs(struct th *th, struct th_peer *p, struct th_seg *segs, unsigned max)
{
    unsigned n = 0;

    while (n < max && th_peer_recv(th, p, &segs[n]))
        if (segs[n].len)
            n++;
    return n;
}

/* Grow cwnd: a few rounds of slow start, every segment ACKed. */
static void open_cwnd(struct th *th, struct th_peer *p, struct tcp_conn *c, const uint8_t *d)
{
    for (unsigned r = 0; r < 4; r++) {
        assert_int_equal(tcp_send(c, d, 10000), 10000);
        th_flush(th);
        th_peer_pump(th, p, 1460, true);
    }
}

/* Three duplicate ACKs retransmit exactly the first unacknowledged segment
 * at once (RFC 5681 3.2); a partial ACK retransmits the next hole (RFC 6582
 * 3.2 step 4); the full ACK ends recovery; no RTO on the way. */
static void test_fast_retransmit_newreno(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    struct th_seg *segs = th_alloc(th, 16 * sizeof(*segs));
    struct th_seg seg;
    uint8_t *d = th_alloc(th, 10000);
    unsigned n;
    uint64_t rtx0;

    assert_non_null(segs);
    assert_non_null(d);
    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &p, 40012);
    p.mss = 1000;
    c = th_passive_open(th, &p);
    th_pattern(d, 0, 10000, 12);
    open_cwnd(th, &p, c, d);
    rtx0 = TH_STAT(th, retransmits);

    assert_int_equal(tcp_send(c, d, 8000), 8000);
    th_flush(th);
    n = take_segs(th, &p, segs, 16);
    assert_true(n >= 5);
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(segs[i].seq, segs[0].seq + 1000 * i);

    /* segs[0] and segs[2] lost: the peer ACKs segs[0].seq for each later one. */
    for (unsigned i = 0; i < 2; i++) {
        th_peer_tx(th, &p, TH_ACK, p.snd_nxt, segs[0].seq, NULL, 0);
        th_expect_none(th);
    }
    th_peer_tx(th, &p, TH_ACK, p.snd_nxt, segs[0].seq, NULL, 0);
    assert_true(th_peer_recv(th, &p, &seg));
    assert_int_equal(seg.seq, segs[0].seq);
    assert_int_equal(seg.len, segs[0].len);
    assert_memory_equal(seg.data, segs[0].data, seg.len);
    th_expect_none(th);
    assert_int_equal(TH_STAT(th, fast_retransmits), 1);
    assert_int_equal(TH_STAT(th, retransmits), rtx0 + 1);

    /* A fourth duplicate does not retransmit again. */
    th_peer_tx(th, &p, TH_ACK, p.snd_nxt, segs[0].seq, NULL, 0);
    th_expect_none(th);

    /* Partial ACK up to the second hole. */
    th_peer_tx(th, &p, TH_ACK, p.snd_nxt, segs[2].seq, NULL, 0);
    assert_true(th_peer_recv(th, &p, &seg));
    assert_int_equal(seg.seq, segs[2].seq);
    assert_int_equal(seg.len, segs[2].len);
    th_expect_none(th);
    assert_int_equal(TH_STAT(th, retransmits), rtx0 + 2);

    /* Everything ACKed: nothing more, not even after a while. */
    th_peer_tx(th, &p, TH_ACK, p.snd_nxt, segs[n - 1].seq + segs[n - 1].len, NULL, 0);
    th_advance(th, 3 * TH_SEC);
    th_expect_none(th);
    assert_int_equal(TH_STAT(th, retransmits), rtx0 + 2);
    assert_int_equal(TH_STAT(th, rto_expirations), 0);
    assert_int_equal(TH_STAT(th, fast_retransmits), 1);
}

/* After max_retrans retransmissions the next timeout aborts: on_closed
 * (-ETIMEDOUT), a RST at SND.NXT (RFC 9293 3.10.5), everything freed. */
static void test_max_retrans_abort(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    struct th_seg seg;
    uint8_t d[100];
    unsigned rtx = 0;

    th->cfg.max_retrans = 3;
    th->cfg.rto_max_ms = 2000;
    th_restart(th);
    c = open_conn(th, &p, 40013);
    th_pattern(d, 0, sizeof(d), 13);
    th_app_send(th, c, d, sizeof(d));
    assert_true(th_peer_recv(th, &p, &seg));
    assert_int_equal(seg.len, 100);
    for (;;) {
        assert_true(th_advance_until_frame(th, 3 * TH_SEC) != UINT64_MAX);
        assert_true(th_pop(th, &seg));
        if (seg.flags & TH_RST)
            break;
        assert_int_equal(seg.seq, p.iss + 1);
        assert_int_equal(seg.len, 100);
        rtx++;
        assert_false(th_is_closed(th, c));
    }
    assert_int_equal(rtx, 3);
    assert_int_equal(seg.seq, p.iss + 1 + 100);
    assert_int_equal(th_close_reason(th, c), -ETIMEDOUT);
    assert_int_equal(TH_STAT(th, conns_timed_out), 1);
    assert_int_equal(tcp_stack_conn_count(th->s), 0);
    assert_int_equal(th->chunks_live, 0);
}

/* Chunk pool empty: received payload is dropped and counted, not ACKed;
 * tcp_send queues less; both recover when chunks come back. */
static void test_chunk_exhaustion(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40014);
    struct th_seg seg;
    uint8_t d[500];

    th_pattern(d, 0, sizeof(d), 14);
    th->chunk_limit = th->chunks_live;
    th_peer_tx(th, &p, TH_ACK | TH_PSH, p.snd_nxt, p.rcv_nxt, d, sizeof(d));
    assert_int_equal(tcp_recv_available(c), 0);
    assert_true(TH_STAT(th, drop_no_chunk) >= 1);
    th_advance(th, 100 * TH_MS);
    while (th_peer_recv(th, &p, &seg))
        assert_int_equal(seg.ack, p.irs + 1);
    assert_true(tcp_send(c, d, sizeof(d)) < (ssize_t)sizeof(d));

    th->chunk_limit = -1;
    th_peer_data(th, &p, d, sizeof(d));
    assert_int_equal(tcp_recv_available(c), sizeof(d));
}

/* The pool runs short (16 chunks, the last one reserved): a connection whose
 * unread data holds many chunks gets no more (its segments dropped and
 * counted, the peer resends), while one holding little still takes its
 * small message; once the big one is read, its data flows again. */
static void test_chunk_fair_share(void **state)
{
    struct th *th = *state;
    struct th_peer p1, p2;
    const uint32_t total = 40000;
    uint8_t *d = th_alloc(th, total);

    th->cfg.chunk_budget = 16;
    th_restart(th);
    th->chunk_limit = 16;                         /* the pool really is that small */
    struct tcp_conn *big = open_conn(th, &p1, 40021);
    th_peer_init(th, &p2, 40022);
    struct tcp_conn *small = th_passive_open(th, &p2);
    th_pattern(d, 0, total, 21);
    for (int i = 0; i < 40; i++)
        seg_at(th, &p1, d, (uint32_t)tcp_recv_available(big), 1000);
    assert_true(tcp_recv_available(big) < total);
    assert_true(TH_STAT(th, drop_chunk_share) >= 1);
    assert_int_equal(th->chunks_live, 15);
    assert_int_equal(TH_STAT(th, drop_no_chunk), 0);

    seg_at(th, &p2, d, 0, 100);
    seg_at(th, &p2, d, 100, 100);
    assert_int_equal(tcp_recv_available(small), 200);  /* in the reserved chunk */
    assert_int_equal(TH_STAT(th, drop_no_chunk), 0);

    size_t had = tcp_recv_available(big);
    tcp_recv_consume(big, had);
    seg_at(th, &p1, d, (uint32_t)had, 1000);
    assert_int_equal(tcp_recv_available(big), 1000);
    tcp_recv_consume(small, 200);
    tcp_recv_consume(big, 1000);
}

/* Stack to peer over a path that loses some segments once (the peer keeps
 * no out-of-order data, so every loss needs recovery): the stream arrives
 * complete and in order, by fast retransmit, NewReno and RTO, no stall. */
static void test_lossy_transfer_out(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c;
    struct th_seg seg;
    const size_t total = 200000;
    uint8_t *d = th_alloc(th, total), *lost = th_alloc(th, total / 100);
    size_t queued = 0;
    uint64_t t0 = th->now;

    th_listen(th, TH_PORT, 0);
    th_peer_init(th, &p, 40015);
    p.mss = 1000;
    c = th_passive_open(th, &p);
    th_pattern(d, 0, total, 15);
    while (p.rx_len < total) {
        unsigned got = 0;

        if (queued < total) {
            ssize_t n = tcp_send(c, d + queued, total - queued);

            assert_true(n >= 0);
            queued += (size_t)n;
            th_flush(th);
        }
        while (th_peer_recv(th, &p, &seg)) {
            uint32_t idx = (seg.seq - p.iss - 1) / 100;

            got++;
            if (seg.len && idx < total / 100 && idx % 97 == 13 && !lost[idx]) {
                lost[idx] = 1;
                continue;
            }
            th_peer_accept(&p, &seg);
            if (seg.len)
                th_peer_ack(th, &p);
        }
        if (!got && p.rx_len < total)
            assert_true(th_advance_until_frame(th, 70 * TH_SEC) != UINT64_MAX);
        assert_true(th->now - t0 < 600 * TH_SEC);
    }
    assert_memory_equal(p.rx, d, total);
    assert_true(TH_STAT(th, retransmits) > 0);
}

/* Peer to stack with reordering, duplication and a late segment in every
 * block of eight: each byte delivered exactly once, in order. */
static void test_reordered_duplicated_input(void **state)
{
    struct th *th = *state;
    struct th_peer p;
    struct tcp_conn *c = open_conn(th, &p, 40016);
    struct tcp_conn_info info;
    static const unsigned perm[8] = {3, 0, 5, 1, 7, 2, 6, 4};
    const uint32_t total = 64000;
    uint8_t *d = th_alloc(th, total);

    th->auto_read = true;
    th_pattern(d, 0, total, 16);
    for (uint32_t b = 0; b < total / 8000; b++) {
        for (unsigned i = 0; i < 8; i++) {
            if (i == 5)
                continue;                  /* late: sent after the block */
            seg_at(th, &p, d, b * 8000 + perm[i] * 1000, 1000);
            th_peer_collect(th, &p);
            if (i == 2) {
                seg_at(th, &p, d, b * 8000 + perm[i] * 1000, 1000);
                th_peer_collect(th, &p);
            }
        }
        seg_at(th, &p, d, b * 8000 + perm[5] * 1000 + 500, 500);
        th_peer_collect(th, &p);
        seg_at(th, &p, d, b * 8000 + perm[5] * 1000, 1000);
        th_peer_collect(th, &p);
    }
    th_advance(th, 100 * TH_MS);
    th_peer_collect(th, &p);
    assert_int_equal(th->rx_len, total);
    assert_memory_equal(th->rx, d, total);
    tcp_conn_get_info(c, &info);
    assert_int_equal(info.bytes_in, total);
    assert_int_equal(info.ooo_segs, 0);
    assert_int_equal(th->seg.ack, p.irs + 1 + total);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, th_setup, th_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_recv_peek_consume),
        T(test_recv_copy_large),
        T(test_window_update_on_consume),
        T(test_our_zero_window),
        T(test_send_short_count_writable),
        T(test_sends_coalesce_until_flush),
        T(test_ack_clocking_window_limited),
        T(test_delayed_ack),
        T(test_out_of_order_fill),
        T(test_overlap_and_duplicates),
        T(test_ooo_bound),
        T(test_ooo_tiny_segments_bounded_by_bytes),
        T(test_peer_zero_window_probes),
        T(test_fast_retransmit_newreno),
        T(test_max_retrans_abort),
        T(test_chunk_exhaustion),
        T(test_chunk_fair_share),
        T(test_lossy_transfer_out),
        T(test_reordered_duplicated_input),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
