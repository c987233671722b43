/* tls_sess: see tls.h. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "tls_priv.h"

struct tls_sess {
    SSL *ssl;
    struct tls_transport tp;
    uint8_t *buf;              /* decrypted, not yet read: [head, tail) */
    size_t cap, head, tail;
    bool ready;                /* handshake complete */
    bool transport_end;        /* the transport said the peer ended */
    bool ended;                /* close_notify or the transport's end seen */
    bool failed;
    bool closed;               /* tls_sess_close called */
    char err[160];
};

/* ---- the transport BIO -------------------------------------------------------------------
 * OpenSSL asks for exactly the bytes of the record it is reading and writes
 * one record at a time; "none now" is a retry, as a non-blocking socket's
 * EAGAIN. */

static int bio_write(BIO *b, const char *data, size_t len, size_t *done)
{
    struct tls_sess *s = BIO_get_data(b);
    ssize_t n = s->tp.send(s->tp.arg, data, len);

    BIO_clear_retry_flags(b);
    if (n < 0)
        return 0;
    if (n == 0) {
        BIO_set_retry_write(b);
        return 0;
    }
    *done = (size_t)n;
    return 1;
}

static int bio_read(BIO *b, char *buf, size_t len, size_t *done)
{
    struct tls_sess *s = BIO_get_data(b);
    ssize_t n = s->tp.recv(s->tp.arg, buf, len);

    BIO_clear_retry_flags(b);
    if (n < 0) {
        s->transport_end = true;
        return 0;
    }
    if (n == 0) {
        BIO_set_retry_read(b);
        return 0;
    }
    *done = (size_t)n;
    return 1;
}

static long bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
    struct tls_sess *s = BIO_get_data(b);

    (void)num;
    (void)ptr;
    switch (cmd) {
    case BIO_CTRL_FLUSH:
        return 1;              /* the transport sends at its own flush */
    case BIO_CTRL_EOF:
        return s && s->transport_end;
    default:
        return 0;
    }
}

static int bio_create(BIO *b)
{
    BIO_set_init(b, 1);
    return 1;
}

BIO_METHOD *tls_bio_method_new(void)
{
    BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "ofcd transport");

    if (m && (!BIO_meth_set_write_ex(m, bio_write) || !BIO_meth_set_read_ex(m, bio_read) ||
              !BIO_meth_set_ctrl(m, bio_ctrl) || !BIO_meth_set_create(m, bio_create))) {
        BIO_meth_free(m);
        m = NULL;
    }
    return m;
}

/* ---- the session -------------------------------------------------------------------------- */

struct tls_sess *tls_sess_new(struct tls_ctx *ctx, const struct tls_transport *t)
{
    struct tls_sess *s = calloc(1, sizeof(*s));
    BIO *b = NULL;

    if (!s)
        return NULL;
    s->tp = *t;
    s->ssl = SSL_new(atomic_load_explicit(&ctx->ssl, memory_order_acquire));
    b = s->ssl ? BIO_new(ctx->bio) : NULL;
    if (!b) {
        SSL_free(s->ssl);
        free(s);
        ERR_clear_error();
        return NULL;
    }
    BIO_set_data(b, s);
    SSL_set_bio(s->ssl, b, b);          /* the SSL owns b from here */
    if (ctx->client)
        SSL_set_connect_state(s->ssl);
    else
        SSL_set_accept_state(s->ssl);
    return s;
}

void tls_sess_free(struct tls_sess *s)
{
    if (!s)
        return;
    SSL_free(s->ssl);
    free(s->buf);
    free(s);
}

/* The session failed: keep why (the verification's verdict first, it is
 * what an operator acts on). */
static int fail(struct tls_sess *s, int ssl_err)
{
    long vr = SSL_get_verify_result(s->ssl);
    char why[128];

    tls_take_error(why, sizeof(why));
    if (vr != X509_V_OK)
        snprintf(s->err, sizeof(s->err), "certificate verify failed: %s",
                 X509_verify_cert_error_string(vr));
    else if (why[0])
        snprintf(s->err, sizeof(s->err), "%s", why);
    else if (s->transport_end)
        snprintf(s->err, sizeof(s->err), "the peer closed the connection%s",
                 s->ready ? " without close_notify" : " during the handshake");
    else
        snprintf(s->err, sizeof(s->err), "TLS error %d", ssl_err);
    s->failed = true;
    return -EPROTO;
}

/* Room for need more bytes after tail: slide what is waiting to the front,
 * grow up to TLS_SESS_BUF_MAX. Returns the room there is. */
static size_t make_room(struct tls_sess *s, size_t need)
{
    size_t used = s->tail - s->head;

    if (s->cap - s->tail >= need)
        return s->cap - s->tail;
    if (s->head) {
        memmove(s->buf, s->buf + s->head, used);
        s->head = 0;
        s->tail = used;
    }
    if (s->cap - used < need && s->cap < TLS_SESS_BUF_MAX) {
        size_t cap = s->cap ? s->cap : TLS_SESS_FILL;
        while (cap - used < need && cap < TLS_SESS_BUF_MAX)
            cap *= 2;
        if (cap > TLS_SESS_BUF_MAX)
            cap = TLS_SESS_BUF_MAX;
        uint8_t *nb = realloc(s->buf, cap);
        if (nb) {
            s->buf = nb;
            s->cap = cap;
        }
    }
    return s->cap - s->tail;
}

int tls_sess_pump(struct tls_sess *s, size_t want)
{
    if (s->failed)
        return -EPROTO;
    if (!s->ready) {
        ERR_clear_error();
        int r = SSL_do_handshake(s->ssl);
        if (r != 1) {
            int e = SSL_get_error(s->ssl, r);
            if ((e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) && !s->transport_end)
                return 0;
            return fail(s, e);
        }
        s->ready = true;
    }
    size_t goal = want > TLS_SESS_FILL ? want : TLS_SESS_FILL;
    if (goal > TLS_SESS_BUF_MAX)
        goal = TLS_SESS_BUF_MAX;
    while (!s->ended && s->tail - s->head < goal) {
        size_t room = make_room(s, goal - (s->tail - s->head));
        size_t got = 0;
        if (!room)
            return 0;          /* out of memory: the bytes stay in the transport */
        ERR_clear_error();
        int r = SSL_read_ex(s->ssl, s->buf + s->tail, room, &got);
        if (r == 1) {
            s->tail += got;
            continue;
        }
        int e = SSL_get_error(s->ssl, r);
        if (e == SSL_ERROR_ZERO_RETURN || (s->transport_end && e != SSL_ERROR_SSL)) {
            s->ended = true;   /* close_notify, or the end of the stream */
            ERR_clear_error();
        } else if (e == SSL_ERROR_SSL && s->transport_end &&
                   ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
            s->ended = true;   /* OpenSSL 3 reports a bare end this way */
            ERR_clear_error();
        } else if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
            return fail(s, e);
        }
        break;
    }
    return 0;
}

bool tls_sess_ready(const struct tls_sess *s)
{
    return s->ready;
}

bool tls_sess_ended(const struct tls_sess *s)
{
    return s->ended;
}

const char *tls_sess_error(const struct tls_sess *s)
{
    return s->failed ? s->err : "";
}

size_t tls_sess_avail(const struct tls_sess *s)
{
    return s->tail - s->head;
}

size_t tls_sess_copy(const struct tls_sess *s, void *buf, size_t len)
{
    size_t n = s->tail - s->head;

    if (len > n)
        len = n;
    memcpy(buf, s->buf + s->head, len);
    return len;
}

void tls_sess_consume(struct tls_sess *s, size_t n)
{
    s->head += n;
    if (s->head >= s->tail) {
        s->head = s->tail = 0;
        if (s->cap > TLS_SESS_FILL) {  /* a large message went through: give it back */
            free(s->buf);
            s->buf = NULL;
            s->cap = 0;
        }
    }
}

ssize_t tls_sess_write(struct tls_sess *s, const void *data, size_t len)
{
    size_t done = 0;

    if (s->failed)
        return -EPROTO;
    if (s->closed)
        return -EPIPE;
    if (!s->ready)
        return -ENOTCONN;
    if (!len)
        return 0;
    ERR_clear_error();
    if (SSL_write_ex(s->ssl, data, len, &done) == 1)
        return (ssize_t)done;
    int e = SSL_get_error(s->ssl, 0);
    if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ)
        return 0;
    return fail(s, e);
}

void tls_sess_close(struct tls_sess *s)
{
    if (s->closed)
        return;
    s->closed = true;
    if (s->ready && !s->failed) {
        ERR_clear_error();
        SSL_shutdown(s->ssl);        /* close_notify as far as the transport takes it */
        ERR_clear_error();
    }
}

int tls_sess_peer_sha256(const struct tls_sess *s, uint8_t out[32])
{
    X509 *x = SSL_get0_peer_certificate(s->ssl);
    unsigned n = 0;

    if (!x || !X509_digest(x, EVP_sha256(), out, &n) || n != 32)
        return -ENOENT;
    return 0;
}

void tls_sess_peer_subject(const struct tls_sess *s, char *buf, size_t len)
{
    X509 *x = SSL_get0_peer_certificate(s->ssl);

    if (!len)
        return;
    if (!x || !X509_NAME_oneline(X509_get_subject_name(x), buf, (int)len))
        snprintf(buf, len, "(no certificate)");
}

const char *tls_sess_version(const struct tls_sess *s)
{
    return SSL_get_version(s->ssl);
}

const char *tls_sess_cipher(const struct tls_sess *s)
{
    return SSL_get_cipher_name(s->ssl);
}
