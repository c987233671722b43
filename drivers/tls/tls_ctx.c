/* tls_ctx: see tls.h. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "ofcd_log.h"
#include "ofcd_pem.h"
#include "tls_priv.h"

void tls_take_error(char *buf, size_t len)
{
    unsigned long code = ERR_get_error();
    const char *reason = code ? ERR_reason_error_string(code) : NULL;

    if (reason)
        snprintf(buf, len, "%s", reason);
    else if (code)
        snprintf(buf, len, "OpenSSL error %#lx", code);
    else if (len)
        buf[0] = '\0';
    ERR_clear_error();
}

/* Every certificate of a PEM text, in order: fn(cert, i, arg) takes each
 * (0 to go on). Returns how many, or a negative errno. */
static int each_cert(const char *pem, int (*fn)(X509 *x, int i, void *arg), void *arg)
{
    BIO *b = BIO_new_mem_buf(pem, -1);
    int n = 0;
    X509 *x;

    if (!b)
        return -ENOMEM;
    while ((x = PEM_read_bio_X509(b, NULL, NULL, NULL))) {
        int rc = fn(x, n++, arg);
        if (rc < 0) {
            BIO_free(b);
            return rc;
        }
    }
    ERR_clear_error();         /* the end of the text reads as "no start line" */
    BIO_free(b);
    return n;
}

struct chain_arg {
    SSL_CTX *ssl;
    const char *key, *path;
};

static void warn_validity(const struct chain_arg *a, X509 *x)
{
    if (X509_cmp_current_time(X509_get0_notAfter(x)) < 0)
        LOG_WARN("tls", "%s = %s: the certificate has expired: peers that check it will "
                 "refuse ofcd", a->key, a->path);
    else if (X509_cmp_current_time(X509_get0_notBefore(x)) > 0)
        LOG_WARN("tls", "%s = %s: the certificate is not valid yet (clock?)", a->key, a->path);
}

static int add_chain(X509 *x, int i, void *arg)
{
    struct chain_arg *a = arg;
    int ok;

    if (i == 0) {
        warn_validity(a, x);
        ok = SSL_CTX_use_certificate(a->ssl, x);
        X509_free(x);
    } else {
        ok = SSL_CTX_add0_chain_cert(a->ssl, x);     /* takes x */
        if (!ok)
            X509_free(x);
    }
    if (!ok) {
        char why[128];
        tls_take_error(why, sizeof(why));
        LOG_ERR("tls", "%s = %s: certificate %d refused: %s", a->key, a->path, i + 1, why);
        return -EINVAL;
    }
    return 0;
}

static int add_ca(X509 *x, int i, void *arg)
{
    struct chain_arg *a = arg;
    int ok = X509_STORE_add_cert(SSL_CTX_get_cert_store(a->ssl), x);

    X509_free(x);
    if (!ok) {
        char why[128];
        tls_take_error(why, sizeof(why));
        LOG_ERR("tls", "%s = %s: CA certificate %d refused: %s", a->key, a->path, i + 1, why);
        return -EINVAL;
    }
    return 0;
}

static void key_name(const struct tls_cfg *cfg, const char *k, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s", cfg->key_prefix ? cfg->key_prefix : "tls.", k);
}

/* Every CRL of the PEM file into the store, every certificate of a peer's
 * chain checked against its CA's CRL. */
static int load_crl(SSL_CTX *ssl, const struct tls_cfg *cfg)
{
    char k[48], why[128], *pem = NULL;
    X509_STORE *store = SSL_CTX_get_cert_store(ssl);
    X509_CRL *crl;
    int n = 0, rc;

    key_name(cfg, "crl_file", k, sizeof(k));
    if ((rc = ofcd_pem_read("tls", k, cfg->crl, false, &pem)) < 0)
        return rc;
    BIO *b = BIO_new_mem_buf(pem, -1);
    if (!b) {
        free(pem);
        return -ENOMEM;
    }
    while ((crl = PEM_read_bio_X509_CRL(b, NULL, NULL, NULL))) {
        const ASN1_TIME *next = X509_CRL_get0_nextUpdate(crl);
        if (next && X509_cmp_current_time(next) < 0)
            LOG_WARN("tls", "%s = %s: CRL %d has expired: every switch whose chain it covers "
                     "is refused until a fresh one is installed", k, cfg->crl, n + 1);
        int ok = X509_STORE_add_crl(store, crl);
        X509_CRL_free(crl);
        n++;
        if (!ok) {
            tls_take_error(why, sizeof(why));
            LOG_ERR("tls", "%s = %s: CRL %d refused: %s", k, cfg->crl, n, why);
            BIO_free(b);
            free(pem);
            return -EINVAL;
        }
    }
    ERR_clear_error();         /* the end of the text reads as "no start line" */
    BIO_free(b);
    free(pem);
    if (n == 0) {
        LOG_ERR("tls", "%s = %s: no CRL in it", k, cfg->crl);
        return -EINVAL;
    }
    X509_STORE_set_flags(store, X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL);
    LOG_INFO("tls", "%s: %d CRL(s); every certificate of a peer's chain is checked", k, n);
    return 0;
}

static int load_cert_key(SSL_CTX *ssl, const struct tls_cfg *cfg)
{
    char kc[48], kk[48], *pem = NULL;
    struct chain_arg a = {.ssl = ssl, .key = kc, .path = cfg->cert};

    key_name(cfg, "cert", kc, sizeof(kc));
    key_name(cfg, "key", kk, sizeof(kk));
    int rc = ofcd_pem_read("tls", kc, cfg->cert, false, &pem);
    if (rc < 0)
        return rc;
    int n = each_cert(pem, add_chain, &a);
    free(pem);
    if (n == 0)
        LOG_ERR("tls", "%s = %s: no certificate in it", kc, cfg->cert);
    if (n <= 0)
        return n < 0 ? n : -EINVAL;
    if ((rc = ofcd_pem_read("tls", kk, cfg->key, true, &pem)) < 0)
        return rc;
    BIO *b = BIO_new_mem_buf(pem, -1);
    EVP_PKEY *pk = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;
    BIO_free(b);
    OPENSSL_cleanse(pem, strlen(pem));
    free(pem);
    char why[128];
    if (!pk) {
        tls_take_error(why, sizeof(why));
        LOG_ERR("tls", "%s = %s: no private key could be read (encrypted keys are not "
                "supported): %s", kk, cfg->key, why);
        return -EINVAL;
    }
    int ok = SSL_CTX_use_PrivateKey(ssl, pk);
    EVP_PKEY_free(pk);
    if (!ok || !SSL_CTX_check_private_key(ssl)) {
        tls_take_error(why, sizeof(why));
        LOG_ERR("tls", "%s = %s is not the key of %s = %s: %s", kk, cfg->key, kc, cfg->cert,
                why);
        return -EINVAL;
    }
    return 0;
}

static int load_ca(SSL_CTX *ssl, const struct tls_cfg *cfg)
{
    char kca[48], *pem = NULL;
    struct chain_arg a = {.ssl = ssl, .key = kca, .path = cfg->ca};

    key_name(cfg, "ca", kca, sizeof(kca));
    int rc = ofcd_pem_read("tls", kca, cfg->ca, false, &pem);
    if (rc < 0)
        return rc;
    int n = each_cert(pem, add_ca, &a);
    free(pem);
    if (n == 0)
        LOG_ERR("tls", "%s = %s: no certificate in it", kca, cfg->ca);
    return n <= 0 ? (n < 0 ? n : -EINVAL) : 0;
}

static int set_policy(SSL_CTX *ssl, const struct tls_cfg *cfg)
{
    char k[48], why[128];
    const char *v = cfg->min_version && *cfg->min_version ? cfg->min_version : "1.2";
    int min = strcmp(v, "1.2") == 0 ? TLS1_2_VERSION : strcmp(v, "1.3") == 0 ? TLS1_3_VERSION : 0;

    key_name(cfg, "min_version", k, sizeof(k));
    if (!min) {
        LOG_ERR("tls", "%s = %s: 1.2 or 1.3", k, v);
        return -EINVAL;
    }
    SSL_CTX_set_min_proto_version(ssl, min);
    SSL_CTX_set_options(ssl, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION |
                                 SSL_OP_NO_TICKET | SSL_OP_CIPHER_SERVER_PREFERENCE);
    SSL_CTX_set_num_tickets(ssl, 0);
    SSL_CTX_set_session_cache_mode(ssl, SSL_SESS_CACHE_OFF);
    /* A peer's chain is held whole before it is verified: bounded below
     * OpenSSL's 100 KiB, and deep chains cost verification work. */
    SSL_CTX_set_max_cert_list(ssl, 1024L * (cfg->max_cert_list_kb ? cfg->max_cert_list_kb
                                                                  : TLS_MAX_CERT_LIST_KB_DEFAULT));
    SSL_CTX_set_verify_depth(ssl, (int)(cfg->verify_depth ? cfg->verify_depth
                                                          : TLS_VERIFY_DEPTH_DEFAULT));
    /* Retries pass the same bytes from a queue that may have moved; idle
     * sessions give their record buffers back (a thousand switches). */
    SSL_CTX_set_mode(ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                              SSL_MODE_RELEASE_BUFFERS);
    if (cfg->ciphers && *cfg->ciphers && !SSL_CTX_set_cipher_list(ssl, cfg->ciphers)) {
        tls_take_error(why, sizeof(why));
        key_name(cfg, "ciphers", k, sizeof(k));
        LOG_ERR("tls", "%s = %s: no cipher of it is usable: %s", k, cfg->ciphers, why);
        return -EINVAL;
    }
    if (cfg->ciphersuites && *cfg->ciphersuites &&
        !SSL_CTX_set_ciphersuites(ssl, cfg->ciphersuites)) {
        tls_take_error(why, sizeof(why));
        key_name(cfg, "ciphersuites", k, sizeof(k));
        LOG_ERR("tls", "%s = %s: not a TLS 1.3 suite list: %s", k, cfg->ciphersuites, why);
        return -EINVAL;
    }
    return 0;
}

int tls_ctx_create(const struct tls_cfg *cfg, struct tls_ctx **out)
{
    struct tls_ctx *ctx = calloc(1, sizeof(*ctx));
    int rc = -ENOMEM;

    *out = NULL;
    if (!ctx)
        return -ENOMEM;
    ctx->client = cfg->client;
    ctx->ssl = SSL_CTX_new(cfg->client ? TLS_client_method() : TLS_server_method());
    ctx->bio = tls_bio_method_new();
    if (!ctx->ssl || !ctx->bio)
        goto fail;
    if ((rc = set_policy(ctx->ssl, cfg)) < 0)
        goto fail;
    if ((cfg->cert && *cfg->cert) || !cfg->client) {
        if ((rc = load_cert_key(ctx->ssl, cfg)) < 0)
            goto fail;
    }
    bool verify = cfg->client ? (cfg->ca && *cfg->ca) : cfg->verify_peer;
    if (verify) {
        if (!cfg->ca || !*cfg->ca) {
            char k[48];
            key_name(cfg, "ca", k, sizeof(k));
            LOG_ERR("tls", "%s is empty: verifying peers needs the CA their certificates "
                    "chain to", k);
            rc = -EINVAL;
            goto fail;
        }
        if ((rc = load_ca(ctx->ssl, cfg)) < 0)
            goto fail;
        if (cfg->crl && *cfg->crl && (rc = load_crl(ctx->ssl, cfg)) < 0)
            goto fail;
        SSL_CTX_set_verify(ctx->ssl, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    } else if (cfg->crl && *cfg->crl) {
        char k[48];
        key_name(cfg, "crl_file", k, sizeof(k));
        LOG_ERR("tls", "%s = %s, but peers' certificates are not verified: a CRL needs "
                "verification on", k, cfg->crl);
        rc = -EINVAL;
        goto fail;
    } else {
        SSL_CTX_set_verify(ctx->ssl, SSL_VERIFY_NONE, NULL);
    }
    *out = ctx;
    return 0;
fail:
    if (rc == -ENOMEM)
        LOG_ERR("tls", "out of memory for the TLS context");
    tls_ctx_destroy(ctx);
    return rc;
}

int tls_ctx_reload(struct tls_ctx *ctx, const struct tls_cfg *cfg)
{
    struct tls_cfg role = *cfg;
    struct tls_ctx *fresh;

    role.client = ctx->client;
    int rc = tls_ctx_create(&role, &fresh);
    if (rc < 0)
        return rc;
    /* The old one goes with the fresh shell: SSL_CTX_free drops only this
     * reference, the sessions made from it keep theirs. */
    fresh->ssl = atomic_exchange(&ctx->ssl, atomic_load(&fresh->ssl));
    tls_ctx_destroy(fresh);
    return 0;
}

void tls_ctx_destroy(struct tls_ctx *ctx)
{
    if (!ctx)
        return;
    SSL_CTX_free(ctx->ssl);
    BIO_meth_free(ctx->bio);
    free(ctx);
}
