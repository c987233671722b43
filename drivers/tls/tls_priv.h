/* tls internals shared by tls_ctx.c and tls_sess.c. */
#ifndef OFCD_TLS_PRIV_H
#define OFCD_TLS_PRIV_H

#include <stdatomic.h>

#include <openssl/ssl.h>

#include "tls.h"

struct tls_ctx {
    /* Swapped whole by tls_ctx_reload while lcores make sessions from it:
     * each session holds a reference of its own (SSL_new), so the one
     * replaced lives on until its last session ends. */
    _Atomic(SSL_CTX *) ssl;
    BIO_METHOD *bio;           /* the transport BIO (tls_sess.c) */
    bool client;
};

/* The BIO method that reaches a session's transport; NULL when out of memory. */
BIO_METHOD *tls_bio_method_new(void);

/* OpenSSL's first queued error as a short reason ("" when none); the queue
 * is emptied. */
void tls_take_error(char *buf, size_t len);

#endif
