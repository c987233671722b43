/*
 * test_of_io_tls: of_io's TLS port over ofcd's own TCP stack driven segment
 * by segment (tcp_helper: the fake TCP peer), with an OpenSSL client
 * session playing the switch. The worker hears of a TLS connection only
 * once its handshake is done, with the switch certificate's SHA-256; the
 * framer then sees plaintext as on the plain port (messages by class, echo
 * answered inline, msg_out encrypted to the switch); plaintext OpenFlow, a
 * certificate from another CA and a handshake that stalls past its timeout
 * (fake clock) are each refused, counted, and leave the worker nothing to
 * hear — every buffer and TCP chunk comes back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "fake_qmsg_pool.h"
#include "of_event.h"
#include "of_io.h"
#include "ofp_msg.h"
#include "ofp_wire.h"
#include "tcp_helper.h"
#include "tls.h"
#include "tls_test_pki.h"

#define HS_TIMEOUT_MS 500

/* The clock of_io reads through its env (no argument to carry a context). */
static uint64_t now_us;

static uint64_t fake_tsc(void)
{
    return 0;
}

static uint64_t fake_us(void)
{
    return now_us;
}

static struct test_pki pki;

/* The switch: a client session whose transport is the fake TCP peer. */
struct sw {
    struct th *th;
    struct th_peer p;
    size_t rx_off;                   /* bytes of p.rx already given to OpenSSL */
    struct tls_sess *tls;
};

static ssize_t sw_recv(void *arg, void *buf, size_t len)
{
    struct sw *s = arg;

    th_peer_collect(s->th, &s->p);
    size_t n = s->p.rx_len - s->rx_off;
    if (!n)
        return s->p.fin_rcvd ? -1 : 0;
    if (n > len)
        n = len;
    memcpy(buf, s->p.rx + s->rx_off, n);
    s->rx_off += n;
    return (ssize_t)n;
}

static ssize_t sw_send(void *arg, const void *buf, size_t len)
{
    struct sw *s = arg;

    for (size_t off = 0; off < len;) {
        uint16_t n = (uint16_t)(len - off > 1400 ? 1400 : len - off);
        th_peer_data(s->th, &s->p, (const uint8_t *)buf + off, n);
        off += n;
    }
    return (ssize_t)len;
}

struct tio {
    struct th *th;
    struct qmsg_pool *pool, *events;
    struct msgq *msg_in;
    struct of_io *io;
    struct tls_ctx *srv, *cli, *intruder;
    struct sw sw;
};

static struct tls_ctx *client_ctx(const char *cn, const struct test_pki_ca *trust)
{
    char c[64], k[64];
    snprintf(c, sizeof(c), "%s-cert.pem", cn);
    snprintf(k, sizeof(k), "%s-key.pem", cn);
    struct tls_cfg cfg = {.cert = test_pki_path(&pki, c), .key = test_pki_path(&pki, k),
                          .ca = test_pki_ca_file(trust),
                          .client = true, .min_version = "1.2"};
    struct tls_ctx *ctx;
    assert_int_equal(tls_ctx_create(&cfg, &ctx), 0);
    return ctx;
}

static int group_setup(void **state)
{
    (void)state;
    return test_pki_make(&pki);
}

static int group_teardown(void **state)
{
    (void)state;
    return test_pki_remove(&pki);
}

static int setup(void **state)
{
    struct tio *t = calloc(1, sizeof(*t));

    assert_int_equal(th_setup((void **)&t->th), 0);
    now_us = 0;
    struct msgq_cfg qc = {.name = "msg_in", .size = 64, .credit = MSGQ_CREDIT,
                          .starve_bursts = MSGQ_STARVE_BURSTS};
    t->msg_in = msgq_create(&qc);
    t->pool = qmsg_pool_create("switches", 1024, 16, 0, false);
    t->events = qmsg_pool_create("events", 64, 16, 0, true);
    struct tls_cfg sc = {.cert = test_pki_path(&pki, "ofcd-cert.pem"),
                         .key = test_pki_path(&pki, "ofcd-key.pem"),
                         .ca = test_pki_ca_file(pki.ca), .verify_peer = true,
                         .min_version = "1.2"};
    assert_int_equal(tls_ctx_create(&sc, &t->srv), 0);
    t->cli = client_ctx("sw1", pki.ca);
    t->intruder = client_ctx("intruder", pki.ca);
    /* TLS only: the helper's peers connect to TH_PORT. */
    struct of_io_cfg cfg = {.io_index = 0, .tls_port = TH_PORT, .max_conns = 16,
                            .out_backlog_kb = 64, .queue_size = 64, .conn_buffers = 256,
                            .conn_buffer_kb = 1024, .max_pending = 64,
                            .tls_handshake_timeout_ms = HS_TIMEOUT_MS};
    struct of_io_env env = {.tcp = t->th->s, .pool = t->pool, .event_pool = t->events,
                            .worker_in = &t->msg_in, .n_workers = 1, .tls = t->srv,
                            .clock_tsc = fake_tsc, .clock_us = fake_us};
    t->io = of_io_create(&cfg, &env);
    assert_non_null(t->io);
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    struct tio *t = *state;

    tls_sess_free(t->sw.tls);
    of_io_destroy(t->io);
    qmsg_free_queued(t->msg_in);
    assert_int_equal(fake_qmsg_pool_live(t->pool), 0);
    assert_int_equal(fake_qmsg_pool_live(t->events), 0);
    msgq_destroy(t->msg_in);
    qmsg_pool_destroy(t->pool);
    qmsg_pool_destroy(t->events);
    tls_ctx_destroy(t->srv);
    tls_ctx_destroy(t->cli);
    tls_ctx_destroy(t->intruder);
    void *th = t->th;
    free(t);
    return th_teardown(&th);
}

static struct qmsg *to_worker(struct tio *t)
{
    struct qmsg *m = NULL;
    return msgq_dequeue_burst(t->msg_in, &m, 1, 0) ? m : NULL;
}

static void io_poll(struct tio *t)
{
    of_io_poll(t->io, 0);
    th_flush(t->th);
}

/* TCP up to the TLS port; the switch's TLS session made, not yet started. */
static void sw_connect(struct tio *t, struct tls_ctx *as)
{
    t->sw.th = t->th;
    th_peer_init(t->th, &t->sw.p, 40001);
    th_passive_syn(t->th, &t->sw.p);
    th_peer_ack(t->th, &t->sw.p);
    struct tls_transport tr = {.arg = &t->sw, .recv = sw_recv, .send = sw_send};
    t->sw.tls = tls_sess_new(as, &tr);
    assert_non_null(t->sw.tls);
}

/* Both sides on until the switch's handshake is done or fails. */
static int handshake(struct tio *t)
{
    for (int i = 0; i < 50 && !tls_sess_ready(t->sw.tls); i++) {
        int rc = tls_sess_pump(t->sw.tls, 0);
        if (rc < 0)
            return rc;
        io_poll(t);
    }
    return tls_sess_ready(t->sw.tls) ? 0 : -1;
}

static void sw_write(struct tio *t, const void *p, size_t len)
{
    assert_int_equal(tls_sess_write(t->sw.tls, p, len), (ssize_t)len);
    io_poll(t);
}

/* What the switch decrypts of what ofcd sent, up to len bytes. */
static size_t sw_read(struct tio *t, void *buf, size_t len)
{
    assert_int_equal(tls_sess_pump(t->sw.tls, len), 0);
    size_t n = tls_sess_copy(t->sw.tls, buf, len);
    tls_sess_consume(t->sw.tls, n);
    return n;
}

static size_t ofmsg(uint8_t *buf, uint8_t type, uint16_t len, uint32_t xid)
{
    memset(buf, 0, len);
    buf[0] = OFP13_VERSION;
    buf[1] = type;
    buf[2] = (uint8_t)(len >> 8);
    buf[3] = (uint8_t)len;
    buf[7] = (uint8_t)xid;
    for (size_t i = 8; i < len; i++)
        buf[i] = (uint8_t)(i * 3);
    return len;
}

static void file_sha256(const char *pem, uint8_t out[32])
{
    FILE *f = fopen(pem, "r");
    assert_non_null(f);
    X509 *x = PEM_read_X509(f, NULL, NULL, NULL);
    fclose(f);
    assert_non_null(x);
    unsigned n = 0;
    assert_true(X509_digest(x, EVP_sha256(), out, &n) && n == 32);
    X509_free(x);
}

static struct of_io_stats stats(struct tio *t)
{
    struct of_io_stats st;
    of_io_get_stats(t->io, &st);
    return st;
}

static void test_worker_hears_after_the_handshake_then_plaintext(void **state)
{
    struct tio *t = *state;
    uint8_t want[32], buf[256];

    sw_connect(t, t->cli);
    assert_null(to_worker(t));                   /* TCP is up, TLS is not: not yet */
    assert_int_equal(handshake(t), 0);
    struct qmsg *up = to_worker(t);
    assert_non_null(up);
    assert_int_equal(up->kind, QMSG_CONN_UP);
    struct qmsg_conn_up info;
    memcpy(&info, up->data, sizeof(info));
    assert_true(info.tls);
    assert_true(info.has_cert);
    file_sha256(test_pki_path(&pki, "sw1-cert.pem"), want);
    assert_memory_equal(info.cert_sha256, want, 32);
    conn_handle_t conn = up->conn;
    qmsg_free(up);
    assert_int_equal(stats(t).tls_handshakes, 1);
    assert_int_equal(stats(t).pending, 1);       /* until the worker says ESTABLISHED */

    /* Messages by class, one split across two records. */
    uint8_t two[108];
    ofmsg(two, OFPT_HELLO, 8, 1);
    ofmsg(two + 8, OFPT_PACKET_IN, 100, 2);
    sw_write(t, two, 50);
    sw_write(t, two + 50, sizeof(two) - 50);
    uint8_t types[2] = {OFPT_HELLO, OFPT_PACKET_IN}, cls[2] = {OFP_PRIO_P0, OFP_PRIO_P2};
    for (int i = 0; i < 2; i++) {
        struct qmsg *m = to_worker(t);
        assert_non_null(m);
        assert_int_equal(m->kind, QMSG_OF);
        assert_int_equal(m->conn, conn);
        assert_int_equal(m->data[1], types[i]);
        assert_int_equal(m->cls, cls[i]);
        assert_memory_equal(m->data, two + (i ? 8 : 0), i ? 100 : 8);
        qmsg_free(m);
    }

    /* Echo answered on the io side, encrypted. */
    uint8_t echo[24];
    ofmsg(echo, OFPT_ECHO_REQUEST, sizeof(echo), 9);
    sw_write(t, echo, sizeof(echo));
    assert_null(to_worker(t));
    assert_int_equal(sw_read(t, buf, sizeof(echo)), sizeof(echo));
    echo[1] = OFPT_ECHO_REPLY;
    assert_memory_equal(buf, echo, sizeof(echo));

    /* msg_out to the switch. */
    struct qmsg *m = qmsg_alloc(t->pool, 16);
    m->len = (uint32_t)ofmsg(m->data, OFPT_FEATURES_REQUEST, 16, 5);
    m->kind = QMSG_OF;
    m->cls = 0;
    m->conn = conn;
    assert_int_equal(msgq_enqueue(of_io_msg_out(t->io), m, 0), 0);
    io_poll(t);
    assert_int_equal(sw_read(t, buf, 16), 16);
    assert_int_equal(buf[1], OFPT_FEATURES_REQUEST);

    /* The switch's close_notify ends the connection: the worker hears it. */
    tls_sess_close(t->sw.tls);
    io_poll(t);
    struct qmsg *down = to_worker(t);
    assert_non_null(down);
    assert_int_equal(down->kind, QMSG_CONN_DOWN);
    assert_int_equal(down->conn, conn);
    qmsg_free(down);
    assert_int_equal(stats(t).switch_conns, 0);
    assert_int_equal(stats(t).tls_errors, 0);
}

/* Refused before the worker hears anything: no CONN_UP, no CONN_DOWN. */
static void expect_refused_quietly(struct tio *t)
{
    assert_null(to_worker(t));
    assert_int_equal(stats(t).switch_conns, 0);
    assert_int_equal(stats(t).pending, 0);
    assert_int_equal(stats(t).tls_handshakes, 0);
}

static void test_plaintext_refused(void **state)
{
    struct tio *t = *state;
    uint8_t hello[8];

    sw_connect(t, t->cli);
    th_peer_data(t->th, &t->sw.p, hello, (uint16_t)ofmsg(hello, OFPT_HELLO, 8, 1));
    io_poll(t);
    assert_int_equal(stats(t).tls_plaintext, 1);
    assert_int_equal(stats(t).tls_handshake_failed, 1);
    expect_refused_quietly(t);
}

static void test_certificate_of_another_ca_refused(void **state)
{
    struct tio *t = *state;

    sw_connect(t, t->intruder);
    /* At TLS 1.3 the switch is done before ofcd has checked its certificate,
     * so its own result says nothing: ofcd's counters do. */
    (void)handshake(t);
    io_poll(t);
    assert_int_equal(stats(t).tls_handshake_failed, 1);
    expect_refused_quietly(t);
}

static void test_stalled_handshake_times_out(void **state)
{
    struct tio *t = *state;

    sw_connect(t, t->cli);                      /* and never a ClientHello */
    now_us += (HS_TIMEOUT_MS - 1) * 1000u;
    io_poll(t);
    assert_int_equal(stats(t).pending, 1);       /* not yet */
    now_us += 1000u;
    io_poll(t);
    assert_int_equal(stats(t).tls_handshake_timeouts, 1);
    expect_refused_quietly(t);
}

/* A burst of messages to a TLS switch leaves as one record, not one each
 * (22 bytes of header and tag per record at TLS 1.3, and OpenSSL's work). */
static void test_output_gathered_into_records(void **state)
{
    struct tio *t = *state;
    uint8_t buf[160];

    sw_connect(t, t->cli);
    assert_int_equal(handshake(t), 0);
    struct qmsg *up = to_worker(t);
    assert_non_null(up);
    conn_handle_t conn = up->conn;
    qmsg_free(up);
    uint64_t before = TH_STAT(t->th, bytes_out);
    for (uint32_t i = 0; i < 10; i++) {
        struct qmsg *m = qmsg_alloc(t->pool, 16);
        m->len = (uint32_t)ofmsg(m->data, OFPT_FEATURES_REQUEST, 16, i);
        m->kind = QMSG_OF;
        m->cls = 0;
        m->conn = conn;
        assert_int_equal(msgq_enqueue(of_io_msg_out(t->io), m, 0), 0);
    }
    io_poll(t);
    uint64_t wire = TH_STAT(t->th, bytes_out) - before;
    assert_true(wire <= 160 + 22);               /* one record; ten would be 380 */
    assert_int_equal(sw_read(t, buf, sizeof(buf)), sizeof(buf));
    for (int i = 0; i < 10; i++) {
        assert_int_equal(buf[16 * i + 1], OFPT_FEATURES_REQUEST);
        assert_int_equal(buf[16 * i + 7], i);    /* in order */
    }
    assert_int_equal(stats(t).msgs_out, 10);
}

/* A ClientHello costs ofcd a signature: handshakes begin at most one per
 * poll, so a burst is spread over loops (others' echo answered between). */
static void test_handshakes_begin_one_per_poll(void **state)
{
    struct tio *t = *state;

    sw_connect(t, t->cli);
    assert_int_equal(tls_sess_pump(t->sw.tls, 0), 0);   /* the ClientHello */
    th_peer_collect(t->th, &t->sw.p);
    assert_int_equal(t->sw.p.rx_len, 0);         /* no poll yet: not begun */
    io_poll(t);
    th_peer_collect(t->th, &t->sw.p);
    assert_true(t->sw.p.rx_len > 0);             /* the server's flight */
    assert_int_equal(handshake(t), 0);
    assert_int_equal(stats(t).tls_handshakes, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_worker_hears_after_the_handshake_then_plaintext,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_plaintext_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_certificate_of_another_ca_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_stalled_handshake_times_out, setup, teardown),
        cmocka_unit_test_setup_teardown(test_output_gathered_into_records, setup, teardown),
        cmocka_unit_test_setup_teardown(test_handshakes_begin_one_per_poll, setup, teardown),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
