/* tls: sessions that agree only with certificates that chain to the CA,
 * carry every byte in order through a transport that takes a few hundred
 * bytes at a time, keep at most TLS_SESS_BUF_MAX for a reader that does not
 * read (the rest stays in the transport), and say why they failed. Two
 * sessions talk over an in-memory pipe: the fake TCP. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tls.h"
#include "tls_test_pki.h"

/* One direction of the fake TCP: bounded, like a send buffer and window. */
struct pipe {
    uint8_t buf[1 << 18];
    size_t len, cap;
    bool fin;                  /* the writer ended */
};

struct end {
    struct pipe *in, *out;
};

static ssize_t fake_recv(void *arg, void *buf, size_t len)
{
    struct end *e = arg;

    if (!e->in->len)
        return e->in->fin ? -1 : 0;
    size_t n = len < e->in->len ? len : e->in->len;
    memcpy(buf, e->in->buf, n);
    memmove(e->in->buf, e->in->buf + n, e->in->len - n);
    e->in->len -= n;
    return (ssize_t)n;
}

static ssize_t fake_send(void *arg, const void *buf, size_t len)
{
    struct end *e = arg;
    size_t room = e->out->cap - e->out->len;
    size_t n = len < room ? len : room;

    if (e->out->fin)
        return -1;
    memcpy(e->out->buf + e->out->len, buf, n);
    e->out->len += n;
    return (ssize_t)n;
}

static struct test_pki pki;

static int setup(void **state)
{
    (void)state;
    return test_pki_make(&pki);
}

static int teardown(void **state)
{
    (void)state;
    return test_pki_remove(&pki);
}

/* ofcd's side as tls.* configures it by default: verify against switchca.
 * Its paths are copies (test_pki_path's buffers rotate). */
static struct tls_cfg server_cfg(bool verify)
{
    static char cert[256], key[256];

    snprintf(cert, sizeof(cert), "%s", test_pki_path(&pki, "ofcd-cert.pem"));
    snprintf(key, sizeof(key), "%s", test_pki_path(&pki, "ofcd-key.pem"));
    return (struct tls_cfg){.cert = cert, .key = key,
                            .ca = verify ? test_pki_ca_file(pki.ca) : "",
                            .verify_peer = verify, .min_version = "1.2"};
}

static struct tls_ctx *server_ctx_of(const struct tls_cfg *c)
{
    struct tls_ctx *ctx;
    assert_int_equal(tls_ctx_create(c, &ctx), 0);
    return ctx;
}

static struct tls_ctx *server_ctx(bool verify)
{
    struct tls_cfg c = server_cfg(verify);
    return server_ctx_of(&c);
}

/* A switch: its certificate (NULL: none), trusting our CA. */
static struct tls_ctx *client_ctx(const char *cn, const char *min_version)
{
    char cert[64], key[64];
    struct tls_cfg c = {.ca = test_pki_ca_file(pki.ca), .client = true,
                        .min_version = min_version};
    struct tls_ctx *ctx;
    if (cn) {
        snprintf(cert, sizeof(cert), "%s-cert.pem", cn);
        snprintf(key, sizeof(key), "%s-key.pem", cn);
        c.cert = test_pki_path(&pki, cert);
        c.key = test_pki_path(&pki, key);
    }
    assert_int_equal(tls_ctx_create(&c, &ctx), 0);
    return ctx;
}

struct link {
    struct pipe c2s, s2c;
    struct end ce, se;
    struct tls_sess *cli, *srv;
};

static struct link *link_new(struct tls_ctx *cctx, struct tls_ctx *sctx, size_t cap)
{
    struct link *l = calloc(1, sizeof(*l));
    l->c2s.cap = l->s2c.cap = cap;
    l->ce = (struct end){.in = &l->s2c, .out = &l->c2s};
    l->se = (struct end){.in = &l->c2s, .out = &l->s2c};
    struct tls_transport ct = {.arg = &l->ce, .recv = fake_recv, .send = fake_send};
    struct tls_transport st = {.arg = &l->se, .recv = fake_recv, .send = fake_send};
    l->cli = tls_sess_new(cctx, &ct);
    l->srv = tls_sess_new(sctx, &st);
    assert_non_null(l->cli);
    assert_non_null(l->srv);
    return l;
}

static void link_free(struct link *l)
{
    tls_sess_free(l->cli);
    tls_sess_free(l->srv);
    free(l);
}

/* Pump both until the handshake ends; returns the server's result. */
static int handshake(struct link *l)
{
    int rs = 0, rc = 0;
    for (int i = 0; i < 200 && !(tls_sess_ready(l->srv) && tls_sess_ready(l->cli)); i++) {
        rc = tls_sess_pump(l->cli, 0);
        rs = tls_sess_pump(l->srv, 0);
        if (rs < 0)
            return rs;
        if (rc < 0)
            return rc;
    }
    return tls_sess_ready(l->srv) ? 0 : -EAGAIN;
}

static void test_mutual_handshake_and_identity(void **state)
{
    struct tls_ctx *s = server_ctx(true), *c = client_ctx("sw1", "1.2");
    struct link *l = link_new(c, s, 1 << 16);
    uint8_t fp[32], zero[32] = {0};
    char subj[128];

    (void)state;
    assert_false(tls_sess_ready(l->srv));
    assert_int_equal(tls_sess_write(l->srv, "x", 1), -ENOTCONN);
    assert_int_equal(handshake(l), 0);
    assert_string_equal(tls_sess_version(l->srv), "TLSv1.3");
    assert_int_equal(tls_sess_peer_sha256(l->srv, fp), 0);
    assert_memory_not_equal(fp, zero, 32);
    tls_sess_peer_subject(l->srv, subj, sizeof(subj));
    assert_non_null(strstr(subj, "CN=sw1"));
    link_free(l);
    tls_ctx_destroy(s);
    tls_ctx_destroy(c);
}

/* Every byte, in order, through a transport of 300 bytes at a time: records
 * written in pieces, a 64 KiB message spanning records. */
static void test_bytes_in_order_through_a_narrow_transport(void **state)
{
    struct tls_ctx *s = server_ctx(true), *c = client_ctx("sw1", "1.2");
    struct link *l = link_new(c, s, 300);
    size_t total = 65535 + 3 * 1000, sent = 0, got = 0;
    uint8_t *src = malloc(total), *dst = malloc(total);

    (void)state;
    for (size_t i = 0; i < total; i++)
        src[i] = (uint8_t)(i * 7 + i / 251);
    assert_int_equal(handshake(l), 0);
    for (int i = 0; i < 100000 && got < total; i++) {
        if (sent < total) {
            size_t n = total - sent > 65535 ? 65535 : total - sent;
            ssize_t w = tls_sess_write(l->cli, src + sent, n);
            assert_true(w >= 0);
            sent += (size_t)w;
        }
        assert_int_equal(tls_sess_pump(l->srv, 65535), 0);
        size_t a = tls_sess_avail(l->srv);
        assert_true(a <= TLS_SESS_BUF_MAX);
        got += tls_sess_copy(l->srv, dst + got, a);
        tls_sess_consume(l->srv, a);
        assert_int_equal(tls_sess_pump(l->cli, 0), 0);   /* nothing comes back */
    }
    assert_int_equal(got, total);
    assert_memory_equal(src, dst, total);
    free(src);
    free(dst);
    link_free(l);
    tls_ctx_destroy(s);
    tls_ctx_destroy(c);
}

/* A reader that does not read: the session holds at most its bound, the
 * rest waits in the transport, and the writer is told to wait. */
static void test_unread_bytes_stay_in_the_transport(void **state)
{
    struct tls_ctx *s = server_ctx(true), *c = client_ctx("sw1", "1.2");
    struct link *l = link_new(c, s, 1 << 18);
    static uint8_t blob[16384];
    size_t sent = 0;

    (void)state;
    assert_int_equal(handshake(l), 0);
    for (int i = 0; i < 64; i++) {
        ssize_t w = tls_sess_write(l->cli, blob, sizeof(blob));
        assert_true(w >= 0);
        sent += (size_t)w;
        assert_int_equal(tls_sess_pump(l->srv, 65535), 0);
    }
    assert_true(tls_sess_avail(l->srv) <= TLS_SESS_BUF_MAX);
    assert_true(tls_sess_avail(l->srv) >= 65535);
    assert_true(l->c2s.len > 0);                 /* the rest is in the transport */
    assert_true(l->c2s.len == l->c2s.cap);      /* ... which is full: the writer waits */
    assert_int_equal(tls_sess_write(l->cli, blob, sizeof(blob)), 0);
    assert_true(sent < 64 * sizeof(blob));
    link_free(l);
    tls_ctx_destroy(s);
    tls_ctx_destroy(c);
}

/* The switch client_cn's handshake with a server made from sc is refused
 * for why (sc NULL: the default server). */
static void expect_refused_by(const struct tls_cfg *sc, const char *client_cn, const char *why)
{
    struct tls_cfg def = server_cfg(true);
    struct tls_ctx *s = server_ctx_of(sc ? sc : &def), *c = client_ctx(client_cn, "1.2");
    struct link *l = link_new(c, s, 1 << 18);

    assert_int_equal(handshake(l), -EPROTO);
    assert_false(tls_sess_ready(l->srv));
    if (!strstr(tls_sess_error(l->srv), why))
        fail_msg("server said \"%s\", expected \"%s\"", tls_sess_error(l->srv), why);
    /* Failed stays failed. */
    assert_int_equal(tls_sess_pump(l->srv, 0), -EPROTO);
    assert_int_equal(tls_sess_write(l->srv, "x", 1), -EPROTO);
    link_free(l);
    tls_ctx_destroy(s);
    tls_ctx_destroy(c);
}

static void expect_refused(const char *client_cn, const char *why)
{
    expect_refused_by(NULL, client_cn, why);
}

/* The switch client_cn completes a handshake with a server made from sc. */
static void expect_accepted_by(const struct tls_cfg *sc, const char *client_cn)
{
    struct tls_ctx *s = server_ctx_of(sc), *c = client_ctx(client_cn, "1.2");
    struct link *l = link_new(c, s, 1 << 18);
    int rc = handshake(l);

    if (rc != 0)
        fail_msg("%s refused: %s", client_cn, tls_sess_error(l->srv));
    link_free(l);
    tls_ctx_destroy(s);
    tls_ctx_destroy(c);
}

/* A switch's certificate chain is read whole before it is verified: one
 * larger than tls.max_cert_list_kb (32 KiB by default, below OpenSSL's
 * 100 KiB) is refused before OpenSSL holds it, with the reason. */
static void test_chain_size_bound(void **state)
{
    struct tls_cfg sc = server_cfg(true);

    (void)state;
    assert_int_equal(test_pki_leaf_padded(pki.ca, pki.dir, "bigchain", -60, 3600, 48 * 1024),
                     0);
    expect_refused_by(NULL, "bigchain", "excessive message size");
    sc.max_cert_list_kb = 64;
    expect_accepted_by(&sc, "bigchain");
    sc.max_cert_list_kb = 0;
    expect_accepted_by(&sc, "sw1");
}

/* Intermediate CAs between a switch's certificate and tls.ca: at most
 * tls.verify_depth (4 by default), a longer chain refused with the reason. */
static void test_verify_depth(void **state)
{
    struct test_pki_ca *mid[5];
    struct tls_cfg sc = server_cfg(true);
    char name[16];

    (void)state;
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof(name), "mid%d", i + 1);
        mid[i] = test_pki_ca_sub(i ? mid[i - 1] : pki.ca, pki.dir, name);
        assert_non_null(mid[i]);
    }
    assert_int_equal(test_pki_leaf(mid[3], pki.dir, "deep4", -60, 3600), 0);
    assert_int_equal(test_pki_leaf(mid[4], pki.dir, "deep5", -60, 3600), 0);
    for (int i = 4; i >= 0; i--) {
        if (i < 4)
            assert_int_equal(test_pki_append(mid[i], test_pki_path(&pki, "deep4-cert.pem")), 0);
        assert_int_equal(test_pki_append(mid[i], test_pki_path(&pki, "deep5-cert.pem")), 0);
    }
    expect_accepted_by(&sc, "deep4");
    expect_refused_by(&sc, "deep5", "certificate verify failed: certificate chain too long");
    sc.verify_depth = 5;
    expect_accepted_by(&sc, "deep5");
    sc.verify_depth = 1;
    expect_refused_by(&sc, "deep4", "certificate verify failed: certificate chain too long");
    for (int i = 0; i < 5; i++)
        test_pki_ca_free(mid[i]);
}

/* tls.crl_file: a revoked switch certificate is refused with the reason,
 * others of the same CA are accepted; every CA of a chain needs its CRL
 * (CRL_CHECK_ALL), and an expired CRL refuses everyone rather than letting
 * revoked switches in. Files are checked at start. */
static void test_crl(void **state)
{
    struct tls_cfg sc = server_cfg(true);
    struct tls_ctx *ctx;
    char crl[256], stale[256], rev[256], missing[256], notcrl[256];
    const char *revoked[] = {rev, NULL};

    (void)state;
    snprintf(rev, sizeof(rev), "%s", test_pki_path(&pki, "revoked1-cert.pem"));
    snprintf(missing, sizeof(missing), "%s", test_pki_path(&pki, "no-such-crl.pem"));
    snprintf(notcrl, sizeof(notcrl), "%s", test_pki_path(&pki, "sw2-cert.pem"));
    assert_int_equal(test_pki_leaf(pki.ca, pki.dir, "revoked1", -60, 3600), 0);
    assert_int_equal(test_pki_leaf(pki.ca, pki.dir, "sw2", -60, 3600), 0);
    snprintf(crl, sizeof(crl), "%s", test_pki_path(&pki, "switchca-crl.pem"));
    snprintf(stale, sizeof(stale), "%s", test_pki_path(&pki, "stale-crl.pem"));
    assert_int_equal(test_pki_crl(pki.ca, crl, 3600, revoked), 0);
    assert_int_equal(test_pki_crl(pki.ca, stale, -10, NULL), 0);

    sc.crl = crl;
    expect_refused_by(&sc, "revoked1", "certificate verify failed: certificate revoked");
    expect_accepted_by(&sc, "sw2");
    sc.crl = stale;
    expect_refused_by(&sc, "sw2", "certificate verify failed: CRL has expired");
    sc.crl = "";
    expect_accepted_by(&sc, "revoked1");

    sc.crl = missing;
    assert_int_equal(tls_ctx_create(&sc, &ctx), -ENOENT);
    sc.crl = notcrl;                                           /* no CRL in it */
    assert_int_equal(tls_ctx_create(&sc, &ctx), -EINVAL);
    sc = server_cfg(false);
    sc.crl = crl;                                              /* nothing is verified */
    assert_int_equal(tls_ctx_create(&sc, &ctx), -EINVAL);
}

static void test_refused_certificates(void **state)
{
    (void)state;
    expect_refused("intruder", "certificate verify failed: unable to get local issuer");
    expect_refused("expired", "certificate verify failed: certificate has expired");
    expect_refused(NULL, "peer did not return a certificate");
}

/* Without verify_peer a switch without a certificate is accepted. */
static void test_verify_off_accepts_anonymous_switches(void **state)
{
    struct tls_ctx *s = server_ctx(false), *c = client_ctx(NULL, "1.2");
    struct link *l = link_new(c, s, 1 << 16);
    uint8_t fp[32];

    (void)state;
    assert_int_equal(handshake(l), 0);
    assert_int_equal(tls_sess_peer_sha256(l->srv, fp), -ENOENT);
    link_free(l);
    tls_ctx_destroy(s);
    tls_ctx_destroy(c);
}

/* Plaintext OpenFlow on the TLS port: a HELLO instead of a ClientHello. */
static void test_plaintext_is_refused(void **state)
{
    struct tls_ctx *s = server_ctx(true);
    struct pipe in = {.cap = 1 << 16}, out = {.cap = 1 << 16};
    struct end e = {.in = &in, .out = &out};
    struct tls_transport t = {.arg = &e, .recv = fake_recv, .send = fake_send};
    struct tls_sess *srv = tls_sess_new(s, &t);
    static const uint8_t hello[8] = {4, 0, 0, 8, 0, 0, 0, 1};

    (void)state;
    memcpy(in.buf, hello, 8);
    in.len = 8;
    assert_int_equal(tls_sess_pump(srv, 0), -EPROTO);
    assert_string_equal(tls_sess_error(srv), "wrong version number");
    tls_sess_free(srv);
    tls_ctx_destroy(s);
}

/* The peer's close_notify, and a transport that just ends: both end the
 * stream after every byte before them was read; neither is a failure. */
static void test_close_notify_and_transport_end(void **state)
{
    struct tls_ctx *s = server_ctx(true), *c = client_ctx("sw1", "1.3");
    struct link *l = link_new(c, s, 1 << 16);
    char buf[8];

    (void)state;
    assert_int_equal(handshake(l), 0);
    assert_int_equal(tls_sess_write(l->cli, "last", 4), 4);
    tls_sess_close(l->cli);
    assert_int_equal(tls_sess_write(l->cli, "more", 4), -EPIPE);
    assert_int_equal(tls_sess_pump(l->srv, 0), 0);
    assert_true(tls_sess_ended(l->srv));
    assert_int_equal(tls_sess_copy(l->srv, buf, sizeof(buf)), 4);
    assert_memory_equal(buf, "last", 4);
    link_free(l);

    l = link_new(c, s, 1 << 16);
    assert_int_equal(handshake(l), 0);
    assert_int_equal(tls_sess_write(l->cli, "bye", 3), 3);
    l->c2s.fin = true;
    assert_int_equal(tls_sess_pump(l->srv, 0), 0);
    assert_true(tls_sess_ended(l->srv));
    assert_int_equal(tls_sess_avail(l->srv), 3);
    link_free(l);

    /* The end during the handshake is a failure with a reason. */
    l = link_new(c, s, 1 << 16);
    assert_int_equal(tls_sess_pump(l->cli, 0), 0);
    l->c2s.fin = true;
    assert_int_equal(handshake(l), -EPROTO);
    tls_sess_free(l->srv);
    l->srv = NULL;
    link_free(l);
    tls_ctx_destroy(s);
    tls_ctx_destroy(c);
}

static void test_config_errors(void **state)
{
    struct tls_ctx *ctx;
    struct tls_cfg c = {.cert = test_pki_path(&pki, "ofcd-cert.pem"),
                        .key = test_pki_path(&pki, "ofcd-key.pem"),
                        .ca = test_pki_ca_file(pki.ca), .verify_peer = true, .min_version = "1.2"};

    (void)state;
    c.min_version = "1.1";
    assert_int_equal(tls_ctx_create(&c, &ctx), -EINVAL);
    assert_null(ctx);
    c.min_version = "1.2";
    c.ca = "";
    assert_int_equal(tls_ctx_create(&c, &ctx), -EINVAL);      /* verify without a CA */
    c.ca = test_pki_ca_file(pki.ca);
    c.key = test_pki_path(&pki, "sw1-key.pem");
    assert_int_equal(tls_ctx_create(&c, &ctx), -EINVAL);      /* not the cert's key */
    c.key = test_pki_path(&pki, "ofcd-key.pem");
    chmod(c.key, 0644);
    assert_int_equal(tls_ctx_create(&c, &ctx), -EPERM);       /* readable by others */
    chmod(c.key, 0600);
    c.cert = test_pki_path(&pki, "missing.pem");
    assert_int_equal(tls_ctx_create(&c, &ctx), -ENOENT);
    c.cert = test_pki_path(&pki, "ofcd-key.pem");
    assert_int_equal(tls_ctx_create(&c, &ctx), -EINVAL);      /* a key, no certificate */
    c.cert = test_pki_path(&pki, "ofcd-cert.pem");
    c.ciphers = "NO-SUCH-CIPHER";
    assert_int_equal(tls_ctx_create(&c, &ctx), -EINVAL);
    c.ciphers = "";
    assert_int_equal(tls_ctx_create(&c, &ctx), 0);
    tls_ctx_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mutual_handshake_and_identity),
        cmocka_unit_test(test_bytes_in_order_through_a_narrow_transport),
        cmocka_unit_test(test_unread_bytes_stay_in_the_transport),
        cmocka_unit_test(test_refused_certificates),
        cmocka_unit_test(test_verify_off_accepts_anonymous_switches),
        cmocka_unit_test(test_plaintext_is_refused),
        cmocka_unit_test(test_close_notify_and_transport_end),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_chain_size_bound),
        cmocka_unit_test(test_verify_depth),
        cmocka_unit_test(test_crl),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
