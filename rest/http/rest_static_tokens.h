/*
 * rest_static_tokens: long-lived bearer tokens with the reader role, for
 * scrapers that cannot log in (Prometheus' authorization.credentials_file
 * sends the same token forever). rest.reader_tokens_file, mode 600, one
 * token per line:
 *
 *     NAME TOKEN         # e.g. prometheus 3f9c... (openssl rand -hex 32)
 *
 * NAME (1..64 of [A-Za-z0-9_-]) is what logs and 403s call the holder;
 * TOKEN at least 32 characters of [A-Za-z0-9_-.~+/=]. Only SHA-256 hashes
 * of the tokens are kept in memory, compared in constant time. A static
 * token may GET and HEAD, never change anything; drop its line and restart
 * to revoke it.
 */
#ifndef OFCD_REST_STATIC_TOKENS_H
#define OFCD_REST_STATIC_TOKENS_H

#include <stddef.h>
#include <stdint.h>

#define REST_STATIC_TOKEN_MIN 32

struct rest_static_token {
    char name[65];
    uint8_t sha256[32];
};

struct rest_static_tokens {
    struct rest_static_token *v;
    size_t n;
};

/* Parse the file's text: 0, or -EINVAL with err naming the line. */
int rest_static_tokens_parse(const char *text, struct rest_static_tokens *out, char *err,
                             size_t errlen);
/* Read path (mode 600 enforced): 0, or a negative errno logged naming the
 * key and file. An empty path leaves out empty. */
int rest_static_tokens_load(const char *path, struct rest_static_tokens *out);
void rest_static_tokens_free(struct rest_static_tokens *t);

/* The holder's name when token is one of them, else NULL. Every entry is
 * compared, so the time taken says nothing about which one matched. */
const char *rest_static_tokens_match(const struct rest_static_tokens *t, const char *token);

#endif
