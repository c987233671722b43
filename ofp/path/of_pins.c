/* of_pins: see of_pins.h. */
#include "of_pins.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpid.h"
#include "ofcd_lines.h"

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* 64 hex digits, colons between bytes allowed. */
static int parse_sha256(const char *s, uint8_t out[32])
{
    size_t n = 0;

    while (*s && n < 64) {
        if (*s == ':') {
            s++;
            continue;
        }
        int v = hexval((unsigned char)*s++);
        if (v < 0)
            return -EINVAL;
        out[n / 2] = (uint8_t)(n % 2 ? out[n / 2] | v : v << 4);
        n++;
    }
    return n == 64 && !*s ? 0 : -EINVAL;
}

static int by_dpid(const void *a, const void *b)
{
    uint64_t x = ((const struct of_pin *)a)->dpid, y = ((const struct of_pin *)b)->dpid;
    return x < y ? -1 : x > y;
}

int of_pins_parse(const char *text, struct of_pins *out, char *err, size_t errlen)
{
    struct of_pins p = {0};
    size_t cap = 0;
    unsigned line = 0;
    char buf[256];
    int rc;

    *out = (struct of_pins){0};
    while ((rc = ofcd_line_next(&text, buf, sizeof(buf), &line)) > 0) {
        char dp[128], fp[160], extra[2];
        int k = sscanf(buf, "%127s %159s %1s", dp, fp, extra);
        if (k <= 0)
            continue;                /* blank or a comment */
        struct of_pin pin;
        if (k != 2) {
            snprintf(err, errlen, "line %u: expected \"DPID SHA256\"", line);
            goto bad;
        }
        if (dpid_parse(dp, &pin.dpid) < 0) {
            snprintf(err, errlen, "line %u: '%s' is not a dpid", line, dp);
            goto bad;
        }
        if (parse_sha256(fp, pin.sha256) < 0) {
            snprintf(err, errlen, "line %u: '%s' is not a SHA-256 fingerprint (64 hex digits, "
                     "colons allowed)", line, fp);
            goto bad;
        }
        if (p.n == cap) {
            cap = cap ? cap * 2 : 16;
            struct of_pin *v = realloc(p.v, cap * sizeof(*v));
            if (!v) {
                free(p.v);
                return -ENOMEM;
            }
            p.v = v;
        }
        p.v[p.n++] = pin;
    }
    if (rc < 0) {
        snprintf(err, errlen, "line %u: longer than %zu characters", line, sizeof(buf) - 1);
        goto bad;
    }
    if (p.n)
        qsort(p.v, p.n, sizeof(*p.v), by_dpid);
    for (size_t i = 1; i < p.n; i++) {
        if (p.v[i].dpid == p.v[i - 1].dpid) {
            char d[24];
            dpid_format(p.v[i].dpid, d);
            snprintf(err, errlen, "dpid %s is pinned twice", d);
            goto bad;
        }
    }
    *out = p;
    return 0;
bad:
    free(p.v);
    return -EINVAL;
}

void of_pins_free(struct of_pins *p)
{
    free(p->v);
    *p = (struct of_pins){0};
}

const struct of_pin *of_pins_find(const struct of_pins *p, uint64_t dpid)
{
    struct of_pin key = {.dpid = dpid};

    if (!p || !p->n)
        return NULL;
    return bsearch(&key, p->v, p->n, sizeof(*p->v), by_dpid);
}

void of_pins_format_sha256(const uint8_t sha256[32], char out[OF_PINS_HEX_LEN])
{
    for (int i = 0; i < 32; i++)
        snprintf(out + 3 * i, 4, i < 31 ? "%02x:" : "%02x", sha256[i]);
}
