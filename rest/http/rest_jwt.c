/* rest_jwt: see rest_jwt.h. */
#include "rest_jwt.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

static const char b64url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* base64url without padding; -ENOSPC when out is too small. */
static int b64_enc(const uint8_t *in, size_t n, char *out, size_t out_len, size_t *written)
{
    size_t o = 0;

    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        size_t k = n - i >= 3 ? 3 : n - i;
        if (k > 1)
            v |= (uint32_t)in[i + 1] << 8;
        if (k > 2)
            v |= in[i + 2];
        if (o + k + 1 >= out_len)
            return -ENOSPC;
        out[o++] = b64url[v >> 18 & 63];
        out[o++] = b64url[v >> 12 & 63];
        if (k > 1)
            out[o++] = b64url[v >> 6 & 63];
        if (k > 2)
            out[o++] = b64url[v & 63];
    }
    out[o] = '\0';
    *written = o;
    return 0;
}

static int b64_val(char c)
{
    const char *p = c ? strchr(b64url, c) : NULL;
    return p ? (int)(p - b64url) : -1;
}

/* Decode n base64url characters (no padding) into out; -EINVAL on any other. */
static int b64_dec(const char *in, size_t n, uint8_t *out, size_t out_len, size_t *written)
{
    size_t o = 0;
    uint32_t acc = 0;
    unsigned bits = 0;

    if (n % 4 == 1)
        return -EINVAL;
    for (size_t i = 0; i < n; i++) {
        int v = b64_val(in[i]);
        if (v < 0)
            return -EINVAL;
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (o == out_len)
                return -EINVAL;
            out[o++] = (uint8_t)(acc >> bits);
        }
    }
    /* Leftover bits must be zero (one encoding per value). */
    if (acc & ((1u << bits) - 1))
        return -EINVAL;
    *written = o;
    return 0;
}

static int hs256(const uint8_t *key, size_t key_len, const char *data, size_t n,
                 uint8_t mac[32])
{
    unsigned len = 0;

    if (!HMAC(EVP_sha256(), key, (int)key_len, (const uint8_t *)data, n, mac, &len) ||
        len != 32)
        return -EINVAL;
    return 0;
}

int rest_jwt_sign(const uint8_t *key, size_t key_len, const struct rest_jwt_claims *c,
                  char *out, size_t out_len)
{
    static const char header[] = "{\"alg\":\"HS256\",\"typ\":\"JWT\"}";
    uint8_t mac[32];
    size_t o, w;
    int rc;

    if (!key || key_len < 16 || !c || !c->username[0] || !c->role[0])
        return -EINVAL;
    json_t *p = json_pack("{s:s, s:s, s:s, s:I, s:s}", "username", c->username, "role",
                          c->role, "iss", REST_JWT_ISSUER, "exp", (json_int_t)c->exp_s,
                          "epoch", c->epoch);
    char *payload = p ? json_dumps(p, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(p);
    if (!payload)
        return -ENOMEM;
    rc = b64_enc((const uint8_t *)header, strlen(header), out, out_len, &o);
    if (rc == 0 && o + 1 < out_len) {
        out[o++] = '.';
        rc = b64_enc((const uint8_t *)payload, strlen(payload), out + o, out_len - o, &w);
        o += w;
    } else if (rc == 0) {
        rc = -ENOSPC;
    }
    free(payload);
    if (rc == 0)
        rc = hs256(key, key_len, out, o, mac);
    if (rc == 0 && o + 1 < out_len) {
        out[o++] = '.';
        rc = b64_enc(mac, sizeof(mac), out + o, out_len - o, &w);
    } else if (rc == 0) {
        rc = -ENOSPC;
    }
    OPENSSL_cleanse(mac, sizeof(mac));
    return rc;
}

/* The JSON object of one base64url part, or NULL. */
static json_t *part_json(const char *s, size_t n)
{
    uint8_t buf[REST_JWT_MAX];
    size_t len;
    json_error_t je;

    if (b64_dec(s, n, buf, sizeof(buf), &len) < 0)
        return NULL;
    json_t *j = json_loadb((const char *)buf, len, JSON_REJECT_DUPLICATES, &je);
    if (j && !json_is_object(j)) {
        json_decref(j);
        return NULL;
    }
    return j;
}

int rest_jwt_verify(const uint8_t *key, size_t key_len, const char *token, uint64_t now_s,
                    struct rest_jwt_claims *c)
{
    uint8_t mac[32], got[32];
    size_t n, glen;

    if (!key || !token || !c || (n = strlen(token)) >= REST_JWT_MAX)
        return -EINVAL;
    const char *d1 = strchr(token, '.');
    const char *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
    if (!d1 || !d2 || strchr(d2 + 1, '.'))
        return -EINVAL;
    json_t *h = part_json(token, (size_t)(d1 - token));
    const char *alg = h ? json_string_value(json_object_get(h, "alg")) : NULL;
    bool hs = alg && strcmp(alg, "HS256") == 0;
    json_decref(h);
    if (!hs)
        return -EINVAL;
    if (b64_dec(d2 + 1, strlen(d2 + 1), got, sizeof(got), &glen) < 0 || glen != sizeof(got))
        return -EINVAL;
    if (hs256(key, key_len, token, (size_t)(d2 - token), mac) < 0)
        return -EINVAL;
    int same = CRYPTO_memcmp(mac, got, sizeof(mac)) == 0;
    OPENSSL_cleanse(mac, sizeof(mac));
    if (!same)
        return -EACCES;
    json_t *p = part_json(d1 + 1, (size_t)(d2 - d1 - 1));
    const char *user = p ? json_string_value(json_object_get(p, "username")) : NULL;
    const char *role = p ? json_string_value(json_object_get(p, "role")) : NULL;
    json_t *exp = p ? json_object_get(p, "exp") : NULL;
    json_t *epj = p ? json_object_get(p, "epoch") : NULL;
    const char *epoch = epj ? json_string_value(epj) : "";
    int rc = 0;
    if (!user || !role || !json_is_integer(exp) || json_integer_value(exp) < 0 ||
        strlen(user) > REST_JWT_NAME_MAX || strlen(role) >= sizeof(c->role) || !epoch ||
        strlen(epoch) >= sizeof(c->epoch)) {
        rc = -EINVAL;
    } else {
        memset(c, 0, sizeof(*c));
        snprintf(c->username, sizeof(c->username), "%s", user);
        snprintf(c->role, sizeof(c->role), "%s", role);
        snprintf(c->epoch, sizeof(c->epoch), "%s", epoch);
        c->exp_s = (uint64_t)json_integer_value(exp);
        if (c->exp_s <= now_s)
            rc = -ETIMEDOUT;
    }
    json_decref(p);
    return rc;
}
