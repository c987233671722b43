/*
 * tls: TLS 1.2/1.3 for the switch channels (OpenFlow over TLS, "ssl:" in
 * Open vSwitch's words), driven by OpenSSL 3 over a transport the caller
 * hands in — ofcd's own TCP on the io lcore in production, memory in the
 * unit tests. Nothing blocks and nothing here starts a thread: every call
 * does what the bytes at hand allow and returns.
 *
 * Why OpenSSL: it is what Open vSwitch, os-ken and ONOS's switches link, it
 * is on every Debian machine, and its BIO layer lets a poll loop own the
 * transport. The transport is reached through a BIO of ours (not memory
 * BIOs): ciphertext stays in the TCP buffers until OpenSSL asks for it, so
 * a peer that floods cannot make OpenSSL buffer more than one record, and
 * a peer that stops reading leaves our records in TCP, where
 * openflow.out_backlog_kb already bounds them.
 *
 * Two objects:
 *   tls_ctx  — certificates, CA, versions, ciphers; made once at start
 *              (errors name the key and the file), shared read-only by the
 *              io lcores (OpenSSL's SSL_CTX is safe for that);
 *   tls_sess — one connection: handshake, decrypted bytes waiting for the
 *              reader (bounded: TLS_SESS_BUF_MAX), writes.
 *
 * Hardened defaults: no renegotiation (a renegotiation flood costs nothing),
 * no compression, no session tickets or cache (switches reconnect rarely
 * and a ticket key would be one more secret), TLS 1.2 at least; a server
 * that verifies peers demands a certificate chaining to the CA through at
 * most verify_depth intermediates, in a chain of at most max_cert_list_kb,
 * none of it revoked by the optional CRLs (every CA of the chain needs its
 * CRL then: an expired or missing one refuses the peer, never lets it in).
 */
#ifndef OFCD_TLS_H
#define OFCD_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Decrypted bytes one session keeps for its reader at most: one OpenFlow
 * message of 64 KiB plus a record. The rest stays in the transport. */
#define TLS_SESS_BUF_MAX (96u * 1024u)
/* How much a session decrypts ahead of its reader when not asked for more. */
#define TLS_SESS_FILL (16u * 1024u)
/* A peer's certificate chain is read whole before it is verified: the
 * largest one taken (a switch's is a few KiB; OpenSSL's own bound is
 * 100 KiB). Beyond it the handshake fails, "excessive message size". */
#define TLS_MAX_CERT_LIST_KB_DEFAULT 32u
/* Intermediate CAs a peer's chain may have between its certificate and
 * the CA (OpenSSL's own default is 100). */
#define TLS_VERIFY_DEPTH_DEFAULT 4u

struct tls_cfg {
    const char *cert;          /* PEM: our certificate, then its chain */
    const char *key;           /* PEM private key of cert (mode 600) */
    const char *ca;            /* PEM: the CA(s) peers' certificates must chain to */
    bool verify_peer;          /* server: demand and verify the peer's certificate */
    bool client;               /* a client context (tests, tools); servers otherwise */
    const char *min_version;   /* "1.2" or "1.3" */
    const char *ciphers;       /* TLS 1.2 cipher list ("" = OpenSSL's default) */
    const char *ciphersuites;  /* TLS 1.3 suites ("" = OpenSSL's default) */
    const char *key_prefix;    /* how errors name the keys ("tls." → "tls.cert = ...") */
    const char *crl;           /* PEM: CRLs of the CAs, checked for every certificate of a
                                * peer's chain ("" = no revocation check) */
    unsigned verify_depth;     /* intermediate CAs a peer's chain may have (0: default) */
    unsigned max_cert_list_kb; /* largest certificate chain a peer may send (0: default) */
};

struct tls_ctx;
struct tls_sess;

/* Make a context; 0 or a negative errno with the reason logged (subsystem
 * "tls"), naming the configuration key and file. */
int tls_ctx_create(const struct tls_cfg *cfg, struct tls_ctx **out);
void tls_ctx_destroy(struct tls_ctx *ctx);
/* The files read again: a context made from cfg (in ctx's role) replaces
 * ctx's for the sessions made from now on; those already made keep theirs.
 * 0, or a negative errno (logged as tls_ctx_create does) with ctx as it
 * was. One caller at a time; tls_sess_new may run meanwhile on any thread. */
int tls_ctx_reload(struct tls_ctx *ctx, const struct tls_cfg *cfg);

/* The peer, as the session sees it. recv: up to len bytes, consumed; > 0
 * bytes, 0 none now, < 0 the peer ended the stream. send: up to len bytes
 * taken; 0 none now (retry when the transport has room), < 0 it is gone. */
struct tls_transport {
    void *arg;
    ssize_t (*recv)(void *arg, void *buf, size_t len);
    ssize_t (*send)(void *arg, const void *buf, size_t len);
};

/* A session in the context's role (server or client). NULL when out of
 * memory. t is copied. */
struct tls_sess *tls_sess_new(struct tls_ctx *ctx, const struct tls_transport *t);
void tls_sess_free(struct tls_sess *s);

/*
 * Move the session on with what the transport holds: the handshake, then
 * decrypting until at least want bytes (at least TLS_SESS_FILL, at most
 * what TLS_SESS_BUF_MAX leaves room for) wait for the reader. Returns 0, or
 * -EPROTO once the session failed (tls_sess_error says why; every later
 * call fails the same way). The peer's close_notify or the transport's end
 * is not a failure: tls_sess_ended() turns true.
 */
int tls_sess_pump(struct tls_sess *s, size_t want);

bool tls_sess_ready(const struct tls_sess *s);      /* handshake complete */
bool tls_sess_ended(const struct tls_sess *s);      /* nothing more will be decrypted */
const char *tls_sess_error(const struct tls_sess *s);

/* The decrypted bytes waiting: how many, a copy of the first len (not
 * consumed), and consuming n <= available. */
size_t tls_sess_avail(const struct tls_sess *s);
size_t tls_sess_copy(const struct tls_sess *s, void *buf, size_t len);
void tls_sess_consume(struct tls_sess *s, size_t n);

/* Encrypt and hand to the transport up to len bytes: how many were taken
 * (0: the transport is full — call again with the same bytes when it has
 * room), -ENOTCONN before the handshake is done, -EPROTO once failed,
 * -EPIPE after tls_sess_close. */
ssize_t tls_sess_write(struct tls_sess *s, const void *data, size_t len);

/* Send close_notify (once, as far as the transport takes it); writes end. */
void tls_sess_close(struct tls_sess *s);

/* After the handshake: the peer certificate's SHA-256 (0, or -ENOENT when
 * it sent none), its subject as text, the version and cipher agreed. */
int tls_sess_peer_sha256(const struct tls_sess *s, uint8_t out[32]);
void tls_sess_peer_subject(const struct tls_sess *s, char *buf, size_t len);
const char *tls_sess_version(const struct tls_sess *s);
const char *tls_sess_cipher(const struct tls_sess *s);

#endif
