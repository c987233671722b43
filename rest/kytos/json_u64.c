/* json_u64: see json_u64.h. */
#include "json_u64.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARK "\x01u64:"          /* in memory */
#define MARK_OVER "\x01u64o:"
/* The same as JSON text, with the opening quote (how the loader writes them
 * and how jansson dumps them). */
#define MARK_ESC "\"\\u0001u64:"
#define MARK_OVER_ESC "\"\\u0001u64o:"
#define INT64_MAX_TEXT "9223372036854775807"
#define UINT64_MAX_TEXT "18446744073709551615"

/* Does the integer of n digits at p exceed the decimal text lim? */
static bool above(const char *p, size_t n, const char *lim)
{
    size_t ln = strlen(lim);
    return n > ln || (n == ln && memcmp(p, lim, n) > 0);
}

/* The number token at in[i..]: its length; *plain when it is an integer
 * without sign, fraction or exponent. */
static size_t number_token(const char *in, size_t len, size_t i, bool *plain)
{
    size_t j = i;

    *plain = in[j] != '-';
    if (in[j] == '-')
        j++;
    while (j < len && isdigit((unsigned char)in[j]))
        j++;
    if (j < len && (in[j] == '.' || in[j] == 'e' || in[j] == 'E')) {
        *plain = false;
        while (j < len && (isdigit((unsigned char)in[j]) || strchr(".eE+-", in[j])))
            j++;
    }
    return j - i;
}

/* The containers open at each depth, one bit each (1: an object), so a
 * number can be told in a key's place, where only a string may stand. */
struct u64_nest {
    unsigned char *bits;
    size_t depth;
    char last;                  /* the last character outside strings and blanks */
};

static void nest_open(struct u64_nest *n, bool object)
{
    if (object)
        n->bits[n->depth / 8] |= (unsigned char)(1u << n->depth % 8);
    else
        n->bits[n->depth / 8] &= (unsigned char)~(1u << n->depth % 8);
    n->depth++;
}

static bool nest_key_expected(const struct u64_nest *n)
{
    if (n->last == '{')
        return true;
    return n->last == ',' && n->depth > 0 &&
           (n->bits[(n->depth - 1) / 8] >> (n->depth - 1) % 8 & 1);
}

static void nest_see(struct u64_nest *n, char ch)
{
    if (isspace((unsigned char)ch))
        return;
    if (ch == '{' || ch == '[')
        nest_open(n, ch == '{');
    else if ((ch == '}' || ch == ']') && n->depth > 0)
        n->depth--;
    n->last = ch;
}

json_t *json_u64_loadb(const char *in, size_t len, json_error_t *err)
{
    char *out = malloc(2 * len + 16);
    /* Depth never passes the number of opening brackets, at most len. */
    struct u64_nest nest = {.bits = calloc(len / 8 + 1, 1)};
    size_t o = 0;
    bool str = false;

    if (!out || !nest.bits) {
        snprintf(err->text, sizeof(err->text), "out of memory");
        free(out);
        free(nest.bits);
        return NULL;
    }
    for (size_t i = 0; i < len;) {
        char ch = in[i];
        if (str) {
            if (ch == '\\' && i + 1 < len) {
                /* The markers' first character may not come from a client. */
                if (in[i + 1] == 'u' && i + 5 < len && strncmp(in + i + 2, "0001", 4) == 0) {
                    snprintf(err->text, sizeof(err->text), "control character U+0001 in a "
                             "string at byte %zu", i);
                    free(out);
                    free(nest.bits);
                    return NULL;
                }
                out[o++] = in[i++];
                out[o++] = in[i++];
                continue;
            }
            if (ch == '\x01') {
                snprintf(err->text, sizeof(err->text), "control character U+0001 in a string "
                         "at byte %zu", i);
                free(out);
                free(nest.bits);
                return NULL;
            }
            str = ch != '"';
            out[o++] = in[i++];
            continue;
        }
        if (ch == '"') {
            str = true;
            nest.last = ch;
            out[o++] = in[i++];
            continue;
        }
        if (ch == '-' || isdigit((unsigned char)ch)) {
            bool plain;
            size_t n = number_token(in, len, i, &plain);
            /* In a key's place the number stays bare for jansson to refuse:
             * made a marker string it would pass as a key. */
            if (plain && in[i] != '0' && above(in + i, n, INT64_MAX_TEXT) &&
                !nest_key_expected(&nest)) {
                /* The marker then the digits, as a string. */
                const char *mark = above(in + i, n, UINT64_MAX_TEXT) ? MARK_OVER_ESC : MARK_ESC;
                memcpy(out + o, mark, strlen(mark));
                o += strlen(mark);
                memcpy(out + o, in + i, n);
                o += n;
                out[o++] = '"';
            } else {
                memcpy(out + o, in + i, n);
                o += n;
            }
            i += n;
            nest.last = '0';
            continue;
        }
        nest_see(&nest, ch);
        out[o++] = in[i++];
    }
    json_t *j = json_loadb(out, o, 0, err);
    free(out);
    free(nest.bits);
    return j;
}

int json_u64_marker_value(const char *s, uint64_t *out)
{
    const char *d;

    if (strncmp(s, MARK_OVER, strlen(MARK_OVER)) == 0)
        return -1;
    if (strncmp(s, MARK, strlen(MARK)) != 0)
        return 0;
    d = s + strlen(MARK);
    if (!*d || strspn(d, "0123456789") != strlen(d) || above(d, strlen(d), UINT64_MAX_TEXT))
        return -1;
    errno = 0;
    *out = strtoull(d, NULL, 10);
    return errno ? -1 : 1;
}

json_t *json_u64_value(uint64_t v)
{
    char s[32];

    if (v <= (uint64_t)INT64_MAX)
        return json_integer((json_int_t)v);
    snprintf(s, sizeof(s), MARK "%" PRIu64, v);
    return json_string(s);
}

size_t json_u64_fixup(char *text)
{
    size_t m = strlen(MARK_ESC);
    char *w = text, *r = text;

    while (*r) {
        if (strncmp(r, MARK_ESC, m) == 0) {
            const char *d = r + m;
            size_t k = strspn(d, "0123456789");
            if (k && d[k] == '"') {
                memmove(w, d, k);
                w += k;
                r = (char *)d + k + 1;
                continue;
            }
        }
        *w++ = *r++;
    }
    *w = '\0';
    return (size_t)(w - text);
}

/* ---- one top-level field, without parsing the rest --------------------- */

static size_t skip_ws(const char *t, size_t len, size_t i)
{
    while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
        i++;
    return i;
}

/* Past the string whose opening quote is at t[i]; len when unterminated. */
static size_t skip_string(const char *t, size_t len, size_t i)
{
    for (i++; i < len; i++) {
        if (t[i] == '\\')
            i++;
        else if (t[i] == '"')
            return i + 1;
    }
    return len;
}

/* Past the value at t[i] (any JSON value); len when malformed. */
static size_t skip_value(const char *t, size_t len, size_t i)
{
    unsigned depth = 0;

    if (i >= len)
        return len;
    if (t[i] == '"')
        return skip_string(t, len, i);
    if (t[i] != '{' && t[i] != '[') {
        while (i < len && !strchr(",}] \t\r\n", t[i]))
            i++;
        return i;
    }
    for (; i < len; i++) {
        if (t[i] == '"') {
            i = skip_string(t, len, i) - 1;
        } else if (t[i] == '{' || t[i] == '[') {
            depth++;
        } else if ((t[i] == '}' || t[i] == ']') && --depth == 0) {
            return i + 1;
        }
    }
    return len;
}

int json_u64_top_field(const char *t, size_t len, const char *key, uint64_t *out)
{
    size_t klen = strlen(key), i = skip_ws(t, len, 0);

    if (i >= len || t[i] != '{')
        return -EINVAL;
    i = skip_ws(t, len, i + 1);
    if (i < len && t[i] == '}')
        return 0;
    while (i < len && t[i] == '"') {
        size_t end = skip_string(t, len, i);
        bool hit = end - i == klen + 2 && memcmp(t + i + 1, key, klen) == 0;
        i = skip_ws(t, len, end);
        if (i >= len || t[i] != ':')
            return -EINVAL;
        i = skip_ws(t, len, i + 1);
        if (hit) {
            uint64_t v = 0;
            size_t j = i;
            for (; j < len && isdigit((unsigned char)t[j]); j++) {
                unsigned d = (unsigned)(t[j] - '0');
                if (v > (UINT64_MAX - d) / 10)
                    return -ERANGE;
                v = v * 10 + d;
            }
            if (j == i || (j < len && !strchr(",} \t\r\n", t[j])))
                return -EINVAL;     /* not a plain unsigned integer */
            *out = v;
            return 1;
        }
        i = skip_ws(t, len, skip_value(t, len, i));
        if (i < len && t[i] == '}')
            return 0;
        if (i >= len || t[i] != ',')
            return -EINVAL;
        i = skip_ws(t, len, i + 1);
    }
    return -EINVAL;
}

json_t *json_u64_load_record(const char *buf, size_t len)
{
    json_error_t je;
    json_t *j = json_u64_loadb(buf, len, &je);

    /* Records stored before 2026-12-02 were dumped from parsed values and
     * hold any integer above INT64_MAX as a marker string already, which
     * json_u64_loadb refuses (U+0001 in a string): read them as they are. */
    return j ? j : json_loadb(buf, len, 0, &je);
}
