/* rest_static_tokens: see rest_static_tokens.h. */
#include "rest_static_tokens.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "ofcd_lines.h"
#include "ofcd_log.h"
#include "ofcd_pem.h"

static bool name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > 64)
        return false;
    return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == n;
}

static bool token_ok(const char *s)
{
    size_t n = strlen(s);
    return n >= REST_STATIC_TOKEN_MIN &&
           strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.~+/=") == n;
}

static void sha256(const char *s, uint8_t out[32])
{
    unsigned n = 32;
    EVP_Digest(s, strlen(s), out, &n, EVP_sha256(), NULL);
}

int rest_static_tokens_parse(const char *text, struct rest_static_tokens *out, char *err,
                             size_t errlen)
{
    struct rest_static_tokens t = {0};
    size_t cap = 0;
    unsigned line = 0;
    char buf[512];
    int rc;

    *out = (struct rest_static_tokens){0};
    while ((rc = ofcd_line_next(&text, buf, sizeof(buf), &line)) > 0) {
        char name[80], tok[400], extra[2];
        int k = sscanf(buf, "%79s %399s %1s", name, tok, extra);
        OPENSSL_cleanse(buf, sizeof(buf));
        if (k <= 0)
            continue;
        if (k != 2 || !name_ok(name)) {
            snprintf(err, errlen, "line %u: expected \"NAME TOKEN\" (NAME: 1..64 of "
                     "A-Z a-z 0-9 _ -)", line);
            goto bad;
        }
        if (!token_ok(tok)) {
            snprintf(err, errlen, "line %u: %s's token is shorter than %d characters or not "
                     "token characters (openssl rand -hex 32 makes one)", line, name,
                     REST_STATIC_TOKEN_MIN);
            goto bad;
        }
        for (size_t i = 0; i < t.n; i++) {
            if (strcmp(t.v[i].name, name) == 0) {
                snprintf(err, errlen, "line %u: %s is named twice", line, name);
                goto bad;
            }
        }
        if (t.n == cap) {
            cap = cap ? cap * 2 : 4;
            struct rest_static_token *v = realloc(t.v, cap * sizeof(*v));
            if (!v) {
                free(t.v);
                return -ENOMEM;
            }
            t.v = v;
        }
        memcpy(t.v[t.n].name, name, strlen(name) + 1);     /* name_ok: at most 64 */
        sha256(tok, t.v[t.n].sha256);
        OPENSSL_cleanse(tok, sizeof(tok));
        t.n++;
    }
    if (rc < 0) {
        snprintf(err, errlen, "line %u: longer than %zu characters", line, sizeof(buf) - 1);
        goto bad;
    }
    *out = t;
    return 0;
bad:
    free(t.v);
    return -EINVAL;
}

int rest_static_tokens_load(const char *path, struct rest_static_tokens *out)
{
    char *text = NULL, err[200];

    *out = (struct rest_static_tokens){0};
    if (!path || !*path)
        return 0;
    /* The same checks as a private key: a regular file nobody else reads. */
    int rc = ofcd_secret_file_read("rest", "rest.reader_tokens_file", path, &text);
    if (rc < 0)
        return rc;
    rc = rest_static_tokens_parse(text, out, err, sizeof(err));
    OPENSSL_cleanse(text, strlen(text));
    free(text);
    if (rc < 0)
        LOG_ERR("rest", "rest.reader_tokens_file = %s: %s", path,
                rc == -ENOMEM ? "out of memory" : err);
    else
        LOG_INFO("rest", "rest.reader_tokens_file: %zu static reader token(s)", out->n);
    return rc;
}

void rest_static_tokens_free(struct rest_static_tokens *t)
{
    free(t->v);
    *t = (struct rest_static_tokens){0};
}

const char *rest_static_tokens_match(const struct rest_static_tokens *t, const char *token)
{
    uint8_t h[32];
    const char *who = NULL;

    if (!t->n)
        return NULL;
    sha256(token, h);
    for (size_t i = 0; i < t->n; i++)
        if (CRYPTO_memcmp(h, t->v[i].sha256, 32) == 0)
            who = t->v[i].name;
    return who;
}
