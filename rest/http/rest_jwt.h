/*
 * rest_jwt: the REST API's bearer tokens, JSON Web Tokens signed with
 * HMAC-SHA256 (HS256) as Kytos-ng issues them: the claims "username",
 * "iss" and "exp" (seconds since the epoch), plus ofcd's "role" (admin or
 * reader, as at issue; the check uses the user's role now) and "epoch"
 * (the user's when issued, rest_users.h; "" when a token lacks it). Only
 * HS256 is accepted on the way in, whatever the header says (no "none", no
 * algorithm switching); the signature is compared in constant time; time
 * is passed in, so expiry is testable without waiting.
 */
#ifndef OFCD_REST_JWT_H
#define OFCD_REST_JWT_H

#include <stddef.h>
#include <stdint.h>

#define REST_JWT_MAX 1024               /* longest token issued or read */
#define REST_JWT_NAME_MAX 64            /* username, as Kytos-ng bounds it */
#define REST_JWT_ISSUER "ofcd"

struct rest_jwt_claims {
    char username[REST_JWT_NAME_MAX + 1];
    char role[16];
    char epoch[17];                     /* 16 hex digits */
    uint64_t exp_s;
};

/* A token for c into out (NUL-terminated). 0, -EINVAL (bad claims or key),
 * -ENOSPC (out too small), -ENOMEM. */
int rest_jwt_sign(const uint8_t *key, size_t key_len, const struct rest_jwt_claims *c,
                  char *out, size_t out_len);

/*
 * Check token against key at now_s: 0 with *c filled; -EINVAL not a token
 * of ours (shape, base64, JSON, missing claims, another algorithm),
 * -EACCES the signature does not match, -ETIMEDOUT expired.
 */
int rest_jwt_verify(const uint8_t *key, size_t key_len, const char *token, uint64_t now_s,
                    struct rest_jwt_claims *c);

#endif
