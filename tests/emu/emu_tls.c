/* emu_tls: see emu_tls.h. */
#include "emu_tls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "emu.h"

int emu_tls_setup(void **ctx_out, const char *spec)
{
    char buf[1024], *cert = buf, *key, *ca;

    if (snprintf(buf, sizeof(buf), "%s", spec) >= (int)sizeof(buf) || !(key = strchr(buf, ',')) ||
        !(ca = strchr(key + 1, ','))) {
        fprintf(stderr, "--tls: expected CERT,KEY,CA\n");
        return -1;
    }
    *key++ = '\0';
    *ca++ = '\0';
    SSL_CTX *c = SSL_CTX_new(TLS_client_method());
    if (!c || SSL_CTX_use_certificate_chain_file(c, cert) != 1 ||
        SSL_CTX_use_PrivateKey_file(c, key, SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_load_verify_locations(c, ca, NULL) != 1) {
        fprintf(stderr, "--tls %s: %s\n", spec, ERR_reason_error_string(ERR_get_error()));
        SSL_CTX_free(c);
        return -1;
    }
    SSL_CTX_set_verify(c, SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_mode(c, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    /* Take what the socket holds in one read, not one record per wake-up. */
    SSL_CTX_set_read_ahead(c, 1);
    *ctx_out = c;
    return 0;
}

void emu_tls_teardown(void *ctx)
{
    SSL_CTX_free(ctx);
}

int emu_tls_start(struct emu_sw *sw)
{
    SSL *s = SSL_new(sw->ctx->tls);

    if (!s || !SSL_set_fd(s, sw->fd)) {
        SSL_free(s);
        return -1;
    }
    SSL_set_connect_state(s);
    sw->ssl = s;
    return 0;
}

/* A failure's reason, printed once per run (1,000 switches fail alike). */
static void report_once(struct emu_sw *sw, const char *what)
{
    unsigned long e = ERR_get_error();
    if (!sw->ctx->tls_error_told) {
        sw->ctx->tls_error_told = true;
        fprintf(stderr, "ofswitch-emu: TLS %s: %s\n", what,
                e ? ERR_reason_error_string(e) : "connection closed");
    }
    ERR_clear_error();
}

int emu_tls_handshake(struct emu_sw *sw, bool *want_write)
{
    int r = SSL_do_handshake(sw->ssl);

    if (r == 1)
        return 1;
    int e = SSL_get_error(sw->ssl, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        *want_write = e == SSL_ERROR_WANT_WRITE;
        return 0;
    }
    report_once(sw, "handshake failed");
    return -1;
}

static ssize_t io_result(struct emu_sw *sw, int ok, size_t done)
{
    if (ok == 1)
        return (ssize_t)done;
    int e = SSL_get_error(sw->ssl, ok);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        errno = EAGAIN;
        return -1;
    }
    if (e == SSL_ERROR_ZERO_RETURN) {
        ERR_clear_error();
        return 0;
    }
    report_once(sw, "error");
    errno = EPIPE;
    return -1;
}

ssize_t emu_tls_recv(struct emu_sw *sw, void *buf, size_t len)
{
    size_t done = 0;
    int ok = SSL_read_ex(sw->ssl, buf, len, &done);
    return io_result(sw, ok, done);
}

ssize_t emu_tls_send(struct emu_sw *sw, const void *buf, size_t len)
{
    size_t done = 0;
    int ok = SSL_write_ex(sw->ssl, buf, len, &done);
    return io_result(sw, ok, done);
}

bool emu_tls_pending(const struct emu_sw *sw)
{
    return sw->ssl && SSL_has_pending(sw->ssl);
}

void emu_tls_free(struct emu_sw *sw)
{
    SSL_free(sw->ssl);
    sw->ssl = NULL;
}
