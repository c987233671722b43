/*
 * cfg: the config file parser, command-line overrides, per-type value
 * parsers, cross-key checks and the --help / effective-config printers.
 *
 * Everything is driven by the schema rows of cfg_schema.c: a key is found by
 * scanning the table, and its value goes through the parser of its type
 * (cfg_type_ops below), which also produces the "must be ..." text used in
 * errors and in --help. Defaults are parsed by the same code. See cfg.h for
 * the call order.
 */
#include "cfg_priv.h"

#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>

#include "ofcd_inet.h"
#include "ofcd_log.h"

#define CFG_FILE_MAX (1u << 20)   /* a config file is a few KiB; refuse anything huge */
#define CFG_SHOW_MAX 80           /* longest value quoted back in an error */
#define CFG_NAME_MAX 64           /* "section.key" of any schema row fits */
#define CFG_HINT_MAX 320          /* " (did you mean ...)" or why a key was removed */
#define CFG_RATE_SUM_SLACK 1e-9   /* same rounding slack as fault_dir_init() */
#define CFG_HELP_WIDTH 100

/* ------------------------------------------------------------------------ */
/* small helpers                                                              */

__attribute__((format(printf, 3, 4)))
static void cfg_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (err == NULL || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static void *cfg_field(struct ofcd_config *cfg, size_t off)
{
    return (char *)cfg + off;
}

static const void *cfg_cfield(const struct ofcd_config *cfg, size_t off)
{
    return (const char *)cfg + off;
}

static bool cfg_isspace(char c)
{
    return isspace((unsigned char)c) != 0;
}

static bool cfg_isdigit(char c)
{
    return c >= '0' && c <= '9';
}

static char *cfg_skip_ws(char *s)
{
    while (cfg_isspace(*s))
        s++;
    return s;
}

static void cfg_rtrim(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && cfg_isspace(s[n - 1]))
        s[--n] = '\0';
}

/* A value as quoted back in an error: bounded, and one printable line even
 * when an override smuggled in control characters. */
static const char *cfg_show(const char *val, char *buf, size_t len)
{
    size_t n = 0;
    for (; val[n] != '\0' && n < CFG_SHOW_MAX && n + 4 < len; n++)
        buf[n] = isprint((unsigned char)val[n]) ? val[n] : '?';
    if (val[n] != '\0' && n + 4 <= len) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

/* Strictly decimal: digits only, no sign, blanks, base prefix or overflow. */
static int cfg_parse_u64(const char *s, size_t n, uint64_t *out)
{
    if (n == 0)
        return -EINVAL;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!cfg_isdigit(s[i]))
            return -EINVAL;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -ERANGE;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* Dotted quad, four decimal octets. Leading zeros are refused because some
 * tools read "010" as octal, and the user should not have to guess which. */
static int cfg_parse_ipv4(const char *s, size_t n, uint32_t *out)
{
    uint32_t ip = 0;
    size_t i = 0;
    for (int part = 0; part < 4; part++) {
        size_t start = i;
        while (i < n && cfg_isdigit(s[i]))
            i++;
        size_t len = i - start;
        uint64_t v;
        if (len == 0 || len > 3 || (len > 1 && s[start] == '0') ||
            cfg_parse_u64(s + start, len, &v) < 0 || v > 255)
            return -EINVAL;
        ip = ip << 8 | (uint32_t)v;
        if (part < 3) {
            if (i >= n || s[i] != '.')
                return -EINVAL;
            i++;
        }
    }
    if (i != n)
        return -EINVAL;
    *out = ip;
    return 0;
}

static uint32_t cfg_mask(unsigned prefix)
{
    return prefix == 0 ? 0 : UINT32_MAX << (32 - prefix);
}

static void cfg_store_uint(void *p, size_t size, uint64_t v)
{
    switch (size) {
    case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

static uint64_t cfg_load_uint(const void *p, size_t size)
{
    switch (size) {
    case 1: { uint8_t x; memcpy(&x, p, 1); return x; }
    case 2: { uint16_t x; memcpy(&x, p, 2); return x; }
    case 4: { uint32_t x; memcpy(&x, p, 4); return x; }
    default: { uint64_t x; memcpy(&x, p, 8); return x; }
    }
}

/* ------------------------------------------------------------------------ */
/* one parser, printer and description per type                              */

struct cfg_type_ops {
    const char *meta;   /* placeholder in --help: --section.key=META */
    /* 0, or -EINVAL with an optional specific reason in detail (else ""). */
    int (*parse)(const struct cfg_key *k, const char *val, struct ofcd_config *cfg,
                 char *detail, size_t dlen);
    int (*format)(const struct cfg_key *k, const struct ofcd_config *cfg, char *buf,
                  size_t len);
    /* What is allowed, phrased to follow "must be ". */
    int (*describe)(const struct cfg_key *k, char *buf, size_t len);
};

/* UINT */

static int uint_parse(const struct cfg_key *k, const char *val, struct ofcd_config *cfg,
                      char *detail, size_t dlen)
{
    (void)detail;
    (void)dlen;
    uint64_t v;
    if (cfg_parse_u64(val, strlen(val), &v) < 0 || v < k->min || v > k->max)
        return -EINVAL;
    cfg_store_uint(cfg_field(cfg, k->off), k->size, v);
    return 0;
}

static int uint_format(const struct cfg_key *k, const struct ofcd_config *cfg, char *buf,
                       size_t len)
{
    return snprintf(buf, len, "%llu",
                    (unsigned long long)cfg_load_uint(cfg_cfield(cfg, k->off), k->size));
}

static int uint_describe(const struct cfg_key *k, char *buf, size_t len)
{
    return snprintf(buf, len, "an integer in %llu..%llu", (unsigned long long)k->min,
                    (unsigned long long)k->max);
}

/* BOOL */

static const struct {
    const char *word;
    bool value;
} cfg_bool_words[] = {
    {"true", true}, {"false", false}, {"yes", true}, {"no", false},
    {"on", true},   {"off", false},   {"1", true},   {"0", false},
};

static int bool_parse(const struct cfg_key *k, const char *val, struct ofcd_config *cfg,
                      char *detail, size_t dlen)
{
    (void)detail;
    (void)dlen;
    for (size_t i = 0; i < sizeof(cfg_bool_words) / sizeof(cfg_bool_words[0]); i++) {
        if (strcasecmp(val, cfg_bool_words[i].word) == 0) {
            bool v = cfg_bool_words[i].value;
            memcpy(cfg_field(cfg, k->off), &v, sizeof(v));
            return 0;
        }
    }
    return -EINVAL;
}

static int bool_format(const struct cfg_key *k, const struct ofcd_config *cfg, char *buf,
                       size_t len)
{
    bool v;
    memcpy(&v, cfg_cfield(cfg, k->off), sizeof(v));
    return snprintf(buf, len, "%s", v ? "true" : "false");
}

static int bool_describe(const struct cfg_key *k, char *buf, size_t len)
{
    (void)k;
    return snprintf(buf, len, "true or false (or yes/no, on/off, 1/0)");
}

/* STRING */

static int string_parse(const struct cfg_key *k, const char *val, struct ofcd_config *cfg,
                        char *detail, size_t dlen)
{
    size_t n = strlen(val);
    if (n < k->min)
        return -EINVAL;
    if (n > k->size - 1) {
        snprintf(detail, dlen, "%zu characters is too long", n);
        return -EINVAL;
    }
    /* A control character could not be written back on one config line. */
    for (size_t i = 0; i < n; i++) {
        if (iscntrl((unsigned char)val[i])) {
            snprintf(detail, dlen, "contains a control character");
            return -EINVAL;
        }
    }
    char *dst = cfg_field(cfg, k->off);
    memset(dst, 0, k->size);
    memcpy(dst, val, n);
    return 0;
}

/* Always quoted, so leading blanks, '#' and ';' survive a round trip. */
static int string_format(const struct cfg_key *k, const struct ofcd_config *cfg, char *buf,
                         size_t len)
{
    const char *s = cfg_cfield(cfg, k->off);
    size_t o = 0;
    int need = 0;
#define CFG_PUT(c)                                                                         \
    do {                                                                                   \
        if (o + 1 < len)                                                                   \
            buf[o++] = (c);                                                                \
        need++;                                                                            \
    } while (0)
    CFG_PUT('"');
    for (size_t i = 0; i < k->size && s[i] != '\0'; i++) {
        if (s[i] == '"' || s[i] == '\\')
            CFG_PUT('\\');
        CFG_PUT(s[i]);
    }
    CFG_PUT('"');
#undef CFG_PUT
    if (len > 0)
        buf[o] = '\0';
    return need;
}

static int string_describe(const struct cfg_key *k, char *buf, size_t len)
{
    return snprintf(buf, len, "%s string of at most %zu characters, without control "
                    "characters", k->min > 0 ? "a non-empty" : "a", k->size - 1);
}

/* IPV4_CIDR */

static int cidr_parse(const struct cfg_key *k, const char *val, struct ofcd_config *cfg,
                      char *detail, size_t dlen)
{
    const char *slash = strchr(val, '/');
    uint32_t ip;
    uint64_t prefix;
    if (slash == NULL) {
        snprintf(detail, dlen, "missing '/prefix'");
        return -EINVAL;
    }
    if (cfg_parse_ipv4(val, (size_t)(slash - val), &ip) < 0)
        return -EINVAL;
    if (cfg_parse_u64(slash + 1, strlen(slash + 1), &prefix) < 0 || prefix < k->min ||
        prefix > k->max) {
        snprintf(detail, dlen, "bad prefix length");
        return -EINVAL;
    }
    unsigned first = ip >> 24;
    if (first == 0 || first == 127 || first >= 224) {
        snprintf(detail, dlen, "not a unicast host address");
        return -EINVAL;
    }
    uint32_t host = ip & ~cfg_mask((unsigned)prefix);
    if (host == 0) {
        snprintf(detail, dlen, "host part is all zeros (the network address)");
        return -EINVAL;
    }
    if (host == ~cfg_mask((unsigned)prefix)) {
        snprintf(detail, dlen, "host part is all ones (the broadcast address)");
        return -EINVAL;
    }
    uint8_t p8 = (uint8_t)prefix;
    memcpy(cfg_field(cfg, k->off), &ip, sizeof(ip));
    memcpy(cfg_field(cfg, k->aux), &p8, sizeof(p8));
    return 0;
}

static int cidr_format(const struct cfg_key *k, const struct ofcd_config *cfg, char *buf,
                       size_t len)
{
    uint32_t ip;
    uint8_t prefix;
    char ipbuf[OFCD_IPV4_STRLEN];
    memcpy(&ip, cfg_cfield(cfg, k->off), sizeof(ip));
    memcpy(&prefix, cfg_cfield(cfg, k->aux), sizeof(prefix));
    return snprintf(buf, len, "%s/%u", ofcd_ipv4_format(ip, ipbuf), prefix);
}

static int cidr_describe(const struct cfg_key *k, char *buf, size_t len)
{
    return snprintf(buf, len, "a unicast IPv4 address with prefix length, A.B.C.D/%llu..%llu,"
                    " whose host part is neither all zeros nor all ones",
                    (unsigned long long)k->min, (unsigned long long)k->max);
}

/* IPV4_PORT */

static int ipport_parse(const struct cfg_key *k, const char *val, struct ofcd_config *cfg,
                        char *detail, size_t dlen)
{
    const char *colon = strchr(val, ':');
    uint32_t ip;
    uint64_t port;
    if (colon == NULL) {
        snprintf(detail, dlen, "missing ':port'");
        return -EINVAL;
    }
    if (cfg_parse_ipv4(val, (size_t)(colon - val), &ip) < 0)
        return -EINVAL;
    if (cfg_parse_u64(colon + 1, strlen(colon + 1), &port) < 0 || port < k->min ||
        port > k->max) {
        snprintf(detail, dlen, "bad port");
        return -EINVAL;
    }
    uint16_t p16 = (uint16_t)port;
    memcpy(cfg_field(cfg, k->off), &ip, sizeof(ip));
    memcpy(cfg_field(cfg, k->aux), &p16, sizeof(p16));
    return 0;
}

static int ipport_format(const struct cfg_key *k, const struct ofcd_config *cfg, char *buf,
                         size_t len)
{
    uint32_t ip;
    uint16_t port;
    char peer[OFCD_PEER_STRLEN];
    memcpy(&ip, cfg_cfield(cfg, k->off), sizeof(ip));
    memcpy(&port, cfg_cfield(cfg, k->aux), sizeof(port));
    return snprintf(buf, len, "%s", ofcd_peer_format(ip, port, peer));
}

static int ipport_describe(const struct cfg_key *k, char *buf, size_t len)
{
    return snprintf(buf, len, "an IPv4 address and port, A.B.C.D:%llu..%llu",
                    (unsigned long long)k->min, (unsigned long long)k->max);
}

/* MAC */

static int cfg_hexval(char c)
{
    if (cfg_isdigit(c))
        return c - '0';
    c = (char)tolower((unsigned char)c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

static int mac_parse(const struct cfg_key *k, const char *val, struct ofcd_config *cfg,
                     char *detail, size_t dlen)
{
    uint8_t mac[6] = {0};
    bool has = val[0] != '\0';
    if (has) {
        if (strlen(val) != 17)
            return -EINVAL;
        for (int i = 0; i < 6; i++) {
            int hi = cfg_hexval(val[i * 3]);
            int lo = cfg_hexval(val[i * 3 + 1]);
            if (hi < 0 || lo < 0 || (i < 5 && val[i * 3 + 2] != ':'))
                return -EINVAL;
            mac[i] = (uint8_t)(hi << 4 | lo);
        }
        if (mac[0] & 1) {
            snprintf(detail, dlen, "a multicast address");
            return -EINVAL;
        }
        if ((mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]) == 0) {
            snprintf(detail, dlen, "the all-zero address");
            return -EINVAL;
        }
    }
    memcpy(cfg_field(cfg, k->off), mac, sizeof(mac));
    memcpy(cfg_field(cfg, k->aux), &has, sizeof(has));
    return 0;
}

static int mac_format(const struct cfg_key *k, const struct ofcd_config *cfg, char *buf,
                      size_t len)
{
    uint8_t mac[6];
    bool has;
    memcpy(mac, cfg_cfield(cfg, k->off), sizeof(mac));
    memcpy(&has, cfg_cfield(cfg, k->aux), sizeof(has));
    if (!has)
        return snprintf(buf, len, "\"\"");
    return snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2],
                    mac[3], mac[4], mac[5]);
}

static int mac_describe(const struct cfg_key *k, char *buf, size_t len)
{
    (void)k;
    return snprintf(buf, len, "empty (use the port's MAC) or a unicast MAC address "
                    "xx:xx:xx:xx:xx:xx");
}

/* LCORE_LIST */

static int lcore_id_parse(const struct cfg_key *k, unsigned slots, const char *s, size_t n,
                          unsigned *id, char *detail, size_t dlen)
{
    uint64_t v;
    while (n > 0 && cfg_isspace(*s)) {
        s++;
        n--;
    }
    while (n > 0 && cfg_isspace(s[n - 1]))
        n--;
    int rc = cfg_parse_u64(s, n, &v);
    if (rc == -EINVAL) {
        snprintf(detail, dlen, "'%.*s' is not an lcore id or range", (int)(n < 32 ? n : 32),
                 s);
        return -EINVAL;
    }
    if (rc < 0 || v < k->min || v > k->max || v >= slots) {
        snprintf(detail, dlen, "lcore '%.*s' is out of range", (int)(n < 32 ? n : 32), s);
        return -EINVAL;
    }
    *id = (unsigned)v;
    return 0;
}

static int lcore_parse(const struct cfg_key *k, const char *val, struct ofcd_config *cfg,
                       char *detail, size_t dlen)
{
    unsigned slots = (unsigned)(k->size / sizeof(uint16_t));
    uint16_t ids[CFG_MAX_LCORES];
    bool seen[CFG_MAX_LCORES] = {false};
    unsigned n = 0;
    if (slots > CFG_MAX_LCORES)
        slots = CFG_MAX_LCORES;

    const char *p = val;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        while (len > 0 && cfg_isspace(*p)) {
            p++;
            len--;
        }
        while (len > 0 && cfg_isspace(p[len - 1]))
            len--;
        if (len == 0) {
            snprintf(detail, dlen, n == 0 && end == NULL ? "no lcore given" : "empty item");
            return -EINVAL;
        }
        /* Search from the second character so "-1" reads as a bad id, not a range. */
        const char *dash = memchr(p + 1, '-', len - 1);
        unsigned lo, hi;
        if (dash != NULL) {
            if (lcore_id_parse(k, slots, p, (size_t)(dash - p), &lo, detail, dlen) < 0 ||
                lcore_id_parse(k, slots, dash + 1, len - (size_t)(dash + 1 - p), &hi, detail,
                               dlen) < 0)
                return -EINVAL;
            if (lo > hi) {
                snprintf(detail, dlen, "range %u-%u is reversed", lo, hi);
                return -EINVAL;
            }
        } else {
            if (lcore_id_parse(k, slots, p, len, &lo, detail, dlen) < 0)
                return -EINVAL;
            hi = lo;
        }
        for (unsigned id = lo; id <= hi; id++) {
            if (seen[id]) {
                snprintf(detail, dlen, "lcore %u is listed twice", id);
                return -EINVAL;
            }
            seen[id] = true;
            ids[n++] = (uint16_t)id;   /* n < slots: ids are distinct and < slots */
        }
        if (end == NULL)
            break;
        p = end + 1;
    }
    /* Zero the unused tail so equal lists give byte-equal configs. */
    memset(cfg_field(cfg, k->off), 0, k->size);
    memcpy(cfg_field(cfg, k->off), ids, n * sizeof(ids[0]));
    memcpy(cfg_field(cfg, k->aux), &n, sizeof(n));
    return 0;
}

/* Runs of three or more consecutive ids print as "a-b"; order is kept, so
 * the printed list parses back to the same array. */
static int lcore_format(const struct cfg_key *k, const struct ofcd_config *cfg, char *buf,
                        size_t len)
{
    uint16_t ids[CFG_MAX_LCORES];
    unsigned n;
    size_t cap = k->size / sizeof(uint16_t);
    memcpy(&n, cfg_cfield(cfg, k->aux), sizeof(n));
    if (n > cap)
        n = (unsigned)cap;
    memcpy(ids, cfg_cfield(cfg, k->off), n * sizeof(ids[0]));

    int need = 0;
    size_t o = 0;
    if (len > 0)
        buf[0] = '\0';
    for (unsigned i = 0; i < n;) {
        unsigned j = i;
        while (j + 1 < n && ids[j + 1] == ids[j] + 1)
            j++;
        int w;
        const char *sep = i == 0 ? "" : ",";
        if (j - i >= 2) {
            w = snprintf(buf + o, len > o ? len - o : 0, "%s%u-%u", sep, ids[i], ids[j]);
            i = j + 1;
        } else {
            w = snprintf(buf + o, len > o ? len - o : 0, "%s%u", sep, ids[i]);
            i++;
        }
        need += w;
        o = (size_t)need < len ? (size_t)need : (len > 0 ? len - 1 : 0);
    }
    return need;
}

static int lcore_describe(const struct cfg_key *k, char *buf, size_t len)
{
    return snprintf(buf, len, "a comma-separated list of lcore ids in %llu..%llu and ranges "
                    "like 1-3, with at least one id and no duplicates",
                    (unsigned long long)k->min, (unsigned long long)k->max);
}

/* RATE */

/* Decimal digits with an optional fraction and exponent; no sign, no hex, no
 * inf/nan, which strtod() alone would all accept. */
static bool cfg_is_decimal(const char *s)
{
    size_t digits = 0;
    while (cfg_isdigit(*s)) {
        s++;
        digits++;
    }
    if (*s == '.') {
        s++;
        while (cfg_isdigit(*s)) {
            s++;
            digits++;
        }
    }
    if (digits == 0)
        return false;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!cfg_isdigit(*s))
            return false;
        while (cfg_isdigit(*s))
            s++;
    }
    return *s == '\0';
}

static int rate_parse(const struct cfg_key *k, const char *val, struct ofcd_config *cfg,
                      char *detail, size_t dlen)
{
    (void)detail;
    (void)dlen;
    if (!cfg_is_decimal(val))
        return -EINVAL;
    /* Underflow to a tiny or zero value is fine for a probability, so errno is
     * not consulted; overflow lands far above 1 and is refused below. */
    double v = strtod(val, NULL);
    if (!(v >= 0.0 && v <= 1.0))
        return -EINVAL;
    memcpy(cfg_field(cfg, k->off), &v, sizeof(v));
    return 0;
}

/* The shortest form that reads back as the same double, so "0.1" stays
 * "0.1" and the round trip is exact. */
static int rate_format(const struct cfg_key *k, const struct ofcd_config *cfg, char *buf,
                       size_t len)
{
    double v;
    char tmp[40];
    memcpy(&v, cfg_cfield(cfg, k->off), sizeof(v));
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    return snprintf(buf, len, "%s", tmp);
}

static int rate_describe(const struct cfg_key *k, char *buf, size_t len)
{
    (void)k;
    return snprintf(buf, len, "a decimal probability in 0..1");
}

/* LOG_LEVEL */

static int level_parse(const struct cfg_key *k, const char *val, struct ofcd_config *cfg,
                       char *detail, size_t dlen)
{
    (void)detail;
    (void)dlen;
    int level = ofcd_log_level_parse(val);
    if (level < 0)
        return -EINVAL;
    memcpy(cfg_field(cfg, k->off), &level, sizeof(level));
    return 0;
}

static int level_format(const struct cfg_key *k, const struct ofcd_config *cfg, char *buf,
                        size_t len)
{
    int level;
    memcpy(&level, cfg_cfield(cfg, k->off), sizeof(level));
    return snprintf(buf, len, "%s", ofcd_log_level_name((enum ofcd_log_level)level));
}

static int level_describe(const struct cfg_key *k, char *buf, size_t len)
{
    (void)k;
    return snprintf(buf, len, "one of error, warn, info, debug");
}

static const struct cfg_type_ops cfg_type_ops[] = {
    [CFG_T_UINT] = {"N", uint_parse, uint_format, uint_describe},
    [CFG_T_BOOL] = {"BOOL", bool_parse, bool_format, bool_describe},
    [CFG_T_STRING] = {"TEXT", string_parse, string_format, string_describe},
    [CFG_T_IPV4_CIDR] = {"A.B.C.D/LEN", cidr_parse, cidr_format, cidr_describe},
    [CFG_T_IPV4_PORT] = {"A.B.C.D:PORT", ipport_parse, ipport_format, ipport_describe},
    [CFG_T_MAC] = {"MAC", mac_parse, mac_format, mac_describe},
    [CFG_T_LCORE_LIST] = {"LIST", lcore_parse, lcore_format, lcore_describe},
    [CFG_T_RATE] = {"P", rate_parse, rate_format, rate_describe},
    [CFG_T_LOG_LEVEL] = {"LEVEL", level_parse, level_format, level_describe},
};

int cfg_parse_value(const struct cfg_key *k, const char *val, struct ofcd_config *cfg,
                    char *why, size_t whylen)
{
    const struct cfg_type_ops *ops = &cfg_type_ops[k->type];
    char detail[128] = "";
    char allowed[256];
    if (ops->parse(k, val, cfg, detail, sizeof(detail)) == 0)
        return 0;
    ops->describe(k, allowed, sizeof(allowed));
    if (detail[0] != '\0')
        cfg_err(why, whylen, "%s; must be %s", detail, allowed);
    else
        cfg_err(why, whylen, "must be %s", allowed);
    return -EINVAL;
}

int cfg_format_value(const struct cfg_key *k, const struct ofcd_config *cfg, char *buf,
                     size_t len)
{
    return cfg_type_ops[k->type].format(k, cfg, buf, len);
}

/* ------------------------------------------------------------------------ */
/* key lookup and "did you mean"                                             */

static const struct cfg_key *cfg_find(const char *section, size_t slen, const char *name,
                                      size_t nlen)
{
    for (size_t i = 0; i < cfg_n_keys; i++) {
        const struct cfg_key *k = &cfg_keys[i];
        if (strlen(k->section) == slen && memcmp(k->section, section, slen) == 0 &&
            (name == NULL || (strlen(k->name) == nlen && memcmp(k->name, name, nlen) == 0)))
            return k;
    }
    return NULL;
}

/* Levenshtein distance; b is a schema name (short), a may be any length. */
static size_t cfg_distance(const char *a, const char *b)
{
    size_t m = strlen(b);
    size_t row[CFG_NAME_MAX + 1];
    if (m > CFG_NAME_MAX)
        return SIZE_MAX;
    for (size_t j = 0; j <= m; j++)
        row[j] = j;
    for (size_t i = 1; a[i - 1] != '\0'; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] == b[j - 1] ? 0 : 1);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[m];
}

static bool cfg_close_enough(size_t dist, const char *typed)
{
    return dist <= 2 || dist * 4 <= strlen(typed);
}

/* Writes " (did you mean 'x.y'?)" into buf, or "" when nothing is close. */
static const char *cfg_suggest_key(const char *typed, char *buf, size_t len)
{
    const char *dot = strchr(typed, '.');
    const struct cfg_key *best = NULL;
    size_t best_d = SIZE_MAX;
    char full[CFG_NAME_MAX + 1];

    buf[0] = '\0';
    for (size_t i = 0; i < cfg_n_removed_keys; i++) {
        if (strcmp(cfg_removed_keys[i].key, typed) == 0) {
            snprintf(buf, len, ": it was removed: %s", cfg_removed_keys[i].why);
            return buf;
        }
    }
    /* The right key under the wrong (or no) section is the likeliest slip. */
    const char *bare = dot != NULL ? dot + 1 : typed;
    for (size_t i = 0; i < cfg_n_keys; i++) {
        if (strcmp(cfg_keys[i].name, bare) == 0) {
            best = &cfg_keys[i];
            best_d = 0;
            break;
        }
    }
    for (size_t i = 0; best_d != 0 && i < cfg_n_keys; i++) {
        snprintf(full, sizeof(full), "%s.%s", cfg_keys[i].section, cfg_keys[i].name);
        size_t d = cfg_distance(typed, full);
        if (d < best_d) {
            best_d = d;
            best = &cfg_keys[i];
        }
    }
    if (best != NULL && (best_d == 0 || cfg_close_enough(best_d, typed)))
        snprintf(buf, len, " (did you mean '%s.%s'?)", best->section, best->name);
    return buf;
}

static const char *cfg_suggest_section(const char *typed, char *buf, size_t len)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    buf[0] = '\0';
    for (size_t i = 0; i < cfg_n_keys; i++) {
        size_t d = cfg_distance(typed, cfg_keys[i].section);
        if (d < best_d) {
            best_d = d;
            best = cfg_keys[i].section;
        }
    }
    if (best != NULL && cfg_close_enough(best_d, typed))
        snprintf(buf, len, " (did you mean '[%s]'?)", best);
    return buf;
}

/* ------------------------------------------------------------------------ */
/* file parser                                                                */

struct cfg_parser {
    struct ofcd_config *cfg;
    const char *origin;
    unsigned line;
    const char *section;               /* current section (schema string) or NULL */
    unsigned set_at[CFG_KEYS_MAX];     /* line that last set each key, 0 = not yet */
    char *err;
    size_t errlen;
};

/* val is a valid value of k other than its default: for a test service's
 * key in a build without them, a value that would turn the service on. */
static bool cfg_turns_on(const struct cfg_key *k, const char *val)
{
    struct ofcd_config scratch;
    char why[CFG_ERR_MAX], given[2 * CFG_STR_MAX + 8], off[2 * CFG_STR_MAX + 8];

    memset(&scratch, 0, sizeof(scratch));
    if (cfg_parse_value(k, val, &scratch, why, sizeof(why)) < 0)
        return false;               /* the parser names what is wrong with it */
    cfg_format_value(k, &scratch, given, sizeof(given));
    if (cfg_parse_value(k, k->def, &scratch, why, sizeof(why)) < 0)
        return true;
    cfg_format_value(k, &scratch, off, sizeof(off));
    return strcmp(given, off) != 0;
}

static int cfg_apply(const struct cfg_key *k, const char *val, struct ofcd_config *cfg,
                     const char *where, char *err, size_t errlen)
{
    char why[CFG_ERR_MAX];
    char shown[CFG_SHOW_MAX + 4];

    /* Only the off value where the service is not built: what an earlier
     * --print-config or ofcd.conf wrote still loads, and turning one on
     * says why it cannot rather than "unknown key". */
    if (k->test_only && cfg->no_test_services && cfg_turns_on(k, val)) {
        cfg_err(err, errlen, "%s: %s.%s = '%s': a test-only service this ofcd is built "
                "without (meson setup -Dtest_services=true builds it, as make test and "
                "make bench do); only the off value %s is accepted", where, k->section,
                k->name, cfg_show(val, shown, sizeof(shown)), k->def);
        return -EINVAL;
    }
    if (cfg_parse_value(k, val, cfg, why, sizeof(why)) == 0)
        return 0;
    cfg_err(err, errlen, "%s: %s.%s = '%s': %s", where, k->section, k->name,
            cfg_show(val, shown, sizeof(shown)), why);
    return -EINVAL;
}

static int cfg_parse_section(struct cfg_parser *p, char *s)
{
    char shown[CFG_SHOW_MAX + 4];
    char hint[CFG_HINT_MAX];
    char *close = strchr(s, ']');
    if (close == NULL) {
        cfg_err(p->err, p->errlen, "%s:%u: section header '%s' has no closing ']'",
                p->origin, p->line, cfg_show(s, shown, sizeof(shown)));
        return -EINVAL;
    }
    char *rest = cfg_skip_ws(close + 1);
    if (*rest != '\0' && *rest != '#' && *rest != ';') {
        cfg_err(p->err, p->errlen, "%s:%u: unexpected text '%s' after section header",
                p->origin, p->line, cfg_show(rest, shown, sizeof(shown)));
        return -EINVAL;
    }
    *close = '\0';
    char *name = cfg_skip_ws(s + 1);
    cfg_rtrim(name);
    const struct cfg_key *k = cfg_find(name, strlen(name), NULL, 0);
    if (k == NULL) {
        cfg_err(p->err, p->errlen, "%s:%u: unknown section '[%s]'%s", p->origin, p->line,
                cfg_show(name, shown, sizeof(shown)),
                cfg_suggest_section(name, hint, sizeof(hint)));
        return -EINVAL;
    }
    p->section = k->section;
    return 0;
}

/*
 * The value part of "key = value": a double-quoted value keeps
 * everything between the quotes (\" and \\ escape); otherwise a '#' after a
 * blank starts a comment and surrounding blanks are dropped (in place).
 * A quoted value is unescaped into unq, so v stays intact for the error.
 */
static int cfg_parse_rhs(struct cfg_parser *p, const struct cfg_key *k, char *v, char *unq,
                         char **out)
{
    char shown[CFG_SHOW_MAX + 4];
    const char *why = NULL;
    v = cfg_skip_ws(v);
    if (*v != '"') {
        for (char *q = v; *q != '\0'; q++) {
            if (*q == '#' && cfg_isspace(q[-1])) {
                *q = '\0';
                break;
            }
        }
        cfg_rtrim(v);
        *out = v;
        return 0;
    }

    const char *r = v + 1;
    char *w = unq;       /* at most as long as the line, which is what unq holds */
    for (;;) {
        if (*r == '\0') {
            why = "missing closing '\"'";
            break;
        }
        if (*r == '"') {
            const char *rest = r + 1;
            while (cfg_isspace(*rest))
                rest++;
            if (*rest != '\0' && *rest != '#')
                why = "unexpected text after the closing '\"'";
            break;
        }
        if (*r == '\\') {
            if (r[1] != '"' && r[1] != '\\') {
                why = "only \\\" and \\\\ may follow a backslash in a quoted value";
                break;
            }
            r++;
        }
        *w++ = *r++;
    }
    if (why != NULL) {
        cfg_rtrim(v);
        cfg_err(p->err, p->errlen, "%s:%u: %s.%s = '%s': %s", p->origin, p->line,
                k->section, k->name, cfg_show(v, shown, sizeof(shown)), why);
        return -EINVAL;
    }
    *w = '\0';
    *out = unq;
    return 0;
}

static int cfg_parse_line(struct cfg_parser *p, char *line)
{
    char shown[CFG_SHOW_MAX + 4];
    char hint[CFG_HINT_MAX];
    char *s = cfg_skip_ws(line);

    if (*s == '\0' || *s == '#' || *s == ';')
        return 0;
    if (*s == '[')
        return cfg_parse_section(p, s);

    char *eq = strchr(s, '=');
    if (eq == NULL) {
        cfg_rtrim(s);
        cfg_err(p->err, p->errlen, "%s:%u: expected 'key = value', '[section]' or a comment, "
                "got '%s'", p->origin, p->line, cfg_show(s, shown, sizeof(shown)));
        return -EINVAL;
    }
    *eq = '\0';
    cfg_rtrim(s);
    if (*s == '\0') {
        cfg_err(p->err, p->errlen, "%s:%u: missing key name before '='", p->origin, p->line);
        return -EINVAL;
    }
    if (p->section == NULL) {
        cfg_err(p->err, p->errlen, "%s:%u: key '%s' comes before any [section] header",
                p->origin, p->line, cfg_show(s, shown, sizeof(shown)));
        return -EINVAL;
    }
    const struct cfg_key *k = cfg_find(p->section, strlen(p->section), s, strlen(s));
    if (k == NULL) {
        char full[CFG_LINE_MAX + CFG_NAME_MAX + 2];
        snprintf(full, sizeof(full), "%s.%s", p->section, s);
        cfg_err(p->err, p->errlen, "%s:%u: unknown key '%s'%s", p->origin, p->line,
                cfg_show(full, shown, sizeof(shown)),
                cfg_suggest_key(full, hint, sizeof(hint)));
        return -EINVAL;
    }

    char *val;
    char unquoted[CFG_LINE_MAX + 1];
    if (cfg_parse_rhs(p, k, eq + 1, unquoted, &val) < 0)
        return -EINVAL;

    char where[CFG_ERR_MAX];
    snprintf(where, sizeof(where), "%s:%u", p->origin, p->line);
    if (cfg_apply(k, val, p->cfg, where, p->err, p->errlen) < 0)
        return -EINVAL;

    size_t idx = (size_t)(k - cfg_keys);
    if (p->set_at[idx] != 0)
        LOG_WARN("cfg", "%s: %s.%s is set again (first on line %u); the later value wins",
                 where, k->section, k->name, p->set_at[idx]);
    p->set_at[idx] = p->line;
    return 0;
}

int cfg_load_string(struct ofcd_config *cfg, const char *text, const char *origin,
                    char *err, size_t errlen)
{
    /* Parse into a copy so a failed load leaves the caller's config as it was. */
    struct ofcd_config work;
    struct cfg_parser p = {
        .cfg = &work, .origin = origin != NULL ? origin : "config", .err = err,
        .errlen = errlen,
    };
    char line[CFG_LINE_MAX + 1];

    memcpy(&work, cfg, sizeof(work));
    if (strncmp(text, "\xEF\xBB\xBF", 3) == 0)   /* a UTF-8 BOM from some editors */
        text += 3;
    while (*text != '\0') {
        const char *nl = strchr(text, '\n');
        size_t n = nl != NULL ? (size_t)(nl - text) : strlen(text);
        size_t len = n;
        if (len > 0 && text[len - 1] == '\r')
            len--;
        p.line++;
        if (len > CFG_LINE_MAX) {
            cfg_err(err, errlen, "%s:%u: line is longer than %d characters", p.origin,
                    p.line, CFG_LINE_MAX);
            return -EINVAL;
        }
        memcpy(line, text, len);
        line[len] = '\0';
        if (cfg_parse_line(&p, line) < 0)
            return -EINVAL;
        text += n + (nl != NULL ? 1 : 0);
    }
    memcpy(cfg, &work, sizeof(work));
    return 0;
}

int cfg_load_file(struct ofcd_config *cfg, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        int e = errno;
        cfg_err(err, errlen, "cannot open '%s': %s", path, strerror(e));
        return -e;
    }
    char *buf = malloc(CFG_FILE_MAX + 1);
    if (buf == NULL) {
        fclose(f);
        cfg_err(err, errlen, "cannot read '%s': out of memory", path);
        return -ENOMEM;
    }
    size_t n = fread(buf, 1, CFG_FILE_MAX + 1, f);
    int rc = 0;
    if (ferror(f)) {
        rc = errno != 0 ? -errno : -EIO;
        cfg_err(err, errlen, "cannot read '%s': %s", path, strerror(-rc));
    } else if (n > CFG_FILE_MAX) {
        rc = -EFBIG;
        cfg_err(err, errlen, "'%s' is larger than %u bytes; not a config file", path,
                CFG_FILE_MAX);
    } else if (memchr(buf, '\0', n) != NULL) {
        rc = -EINVAL;
        cfg_err(err, errlen, "'%s' contains a NUL byte; not a text config file", path);
    }
    fclose(f);
    if (rc == 0) {
        buf[n] = '\0';
        rc = cfg_load_string(cfg, buf, path, err, errlen);
    }
    free(buf);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* defaults and overrides                                                     */

void cfg_defaults(struct ofcd_config *cfg)
{
    char why[CFG_ERR_MAX];
    /* Zeroed first so padding and unused array tails compare equal. */
    memset(cfg, 0, sizeof(*cfg));
    for (size_t i = 0; i < cfg_n_keys; i++) {
        const struct cfg_key *k = &cfg_keys[i];
        if (cfg_parse_value(k, k->def, cfg, why, sizeof(why)) < 0) {
            /* A schema bug, caught by the unit test; never a user error. */
            LOG_ERR("cfg", "default of %s.%s ('%s') is invalid: %s", k->section, k->name,
                    k->def, why);
            abort();
        }
    }
}

int cfg_apply_override(struct ofcd_config *cfg, const char *assignment, char *err,
                       size_t errlen)
{
    char shown[CFG_SHOW_MAX + 4];
    char hint[CFG_HINT_MAX];
    const char *eq = strchr(assignment, '=');
    if (eq == NULL) {
        cfg_err(err, errlen, "command line: '--%s' has no '='; write --section.key=value",
                cfg_show(assignment, shown, sizeof(shown)));
        return -EINVAL;
    }
    size_t nlen = (size_t)(eq - assignment);
    const char *dot = memchr(assignment, '.', nlen);
    const struct cfg_key *k = NULL;
    if (dot != NULL)
        k = cfg_find(assignment, (size_t)(dot - assignment), dot + 1,
                     nlen - (size_t)(dot + 1 - assignment));
    if (k == NULL) {
        /* One character past what cfg_show() quotes, so a long name gets "...". */
        char name[CFG_SHOW_MAX + 2];
        snprintf(name, sizeof(name), "%.*s",
                 (int)(nlen <= CFG_SHOW_MAX ? nlen : CFG_SHOW_MAX + 1), assignment);
        cfg_err(err, errlen, "command line: unknown key '%s'%s",
                cfg_show(name, shown, sizeof(shown)),
                cfg_suggest_key(name, hint, sizeof(hint)));
        return -EINVAL;
    }
    return cfg_apply(k, eq + 1, cfg, "command line", err, errlen);
}

/* ------------------------------------------------------------------------ */
/* cross-key checks                                                           */

static int cfg_check_fault_dir(const char *dir, const struct cfg_fault_dir *f, char *err,
                               size_t errlen)
{
    double sum = f->drop + f->dup + f->reorder + f->delay;
    if (sum <= 1.0 + CFG_RATE_SUM_SLACK)
        return 0;
    cfg_err(err, errlen, "fault.%s_drop + fault.%s_dup + fault.%s_reorder + fault.%s_delay = "
            "%g + %g + %g + %g = %g: the %s fault rates must add up to at most 1",
            dir, dir, dir, dir, f->drop, f->dup, f->reorder, f->delay, sum, dir);
    return -EINVAL;
}

int cfg_parse_ranges(const char *text, uint64_t limit, struct ofcd_range *out, unsigned max,
                     unsigned *n, char *why, size_t whylen)
{
    const char *p = text;

    *n = 0;
    while (*p) {
        char *end;
        struct ofcd_range r;
        if (*n == max) {
            snprintf(why, whylen, "more than %u ranges", max);
            return -EINVAL;
        }
        errno = 0;
        r.lo = strtoull(p, &end, 0);
        if (errno || end == p || *p == '-') {
            snprintf(why, whylen, "'%s' is not a number", p);
            return -EINVAL;
        }
        r.hi = r.lo;
        p = end;
        if (*p == '-') {
            const char *q = p + 1;
            r.hi = strtoull(q, &end, 0);
            if (errno || end == q || *q == '-') {
                snprintf(why, whylen, "'%s' is not a number", q);
                return -EINVAL;
            }
            p = end;
        }
        if (r.hi < r.lo || r.hi > limit) {
            snprintf(why, whylen, "range %llu-%llu is empty or beyond %llu",
                     (unsigned long long)r.lo, (unsigned long long)r.hi,
                     (unsigned long long)limit);
            return -EINVAL;
        }
        out[(*n)++] = r;
        if (*p == ',')
            p++;
        else if (*p) {
            snprintf(why, whylen, "unexpected '%c'; write lo-hi ranges separated by commas", *p);
            return -EINVAL;
        }
    }
    return 0;
}

/* ---- cross-key checks: each one a rule between keys, run by cfg_finish() ---- */

static int check_fm_ranges(struct ofcd_config *cfg, char *err, size_t errlen)
{
    char why[160];

    if (cfg_parse_ranges(cfg->fm_ignore_cookies, UINT64_MAX, cfg->fm_ignore_cookie,
                         CFG_MAX_RANGES, &cfg->n_fm_ignore_cookie, why, sizeof(why)) < 0) {
        cfg_err(err, errlen, "flow_manager.ignore_cookies = '%s': %s", cfg->fm_ignore_cookies,
                why);
        return -EINVAL;
    }
    if (cfg_parse_ranges(cfg->fm_ignore_tables, 254, cfg->fm_ignore_table, CFG_MAX_RANGES,
                         &cfg->n_fm_ignore_table, why, sizeof(why)) < 0) {
        cfg_err(err, errlen, "flow_manager.ignore_tables = '%s': %s", cfg->fm_ignore_tables,
                why);
        return -EINVAL;
    }
    return 0;
}

int cfg_loop_actions(const char *text, unsigned *out)
{
    char buf[64];
    unsigned f = 0;

    if (strlen(text) >= sizeof(buf))
        return -EINVAL;
    if (strcmp(text, "none") == 0) {
        *out = 0;
        return 0;
    }
    snprintf(buf, sizeof(buf), "%s", text);
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        while (*w == ' ')
            w++;
        size_t n = strlen(w);
        while (n && w[n - 1] == ' ')
            w[--n] = '\0';
        if (strcmp(w, "log") == 0)
            f |= CFG_LOOP_LOG;
        else if (strcmp(w, "disable") == 0)
            f |= CFG_LOOP_DISABLE;
        else
            return -EINVAL;
    }
    if (!f)
        return -EINVAL;
    *out = f;
    return 0;
}

static int check_topology(struct ofcd_config *cfg, char *err, size_t errlen)
{
    unsigned loop;

    if (cfg_loop_actions(cfg->topo_loop_actions, &loop) < 0) {
        cfg_err(err, errlen, "topology.lldp_loop_actions = '%s': must be log, disable, "
                "log,disable or none", cfg->topo_loop_actions);
        return -EINVAL;
    }
    /* A link must survive one probe lost, not go down between two probes. */
    if (cfg->topo_link_timeout_s <= cfg->topo_lldp_interval_s) {
        cfg_err(err, errlen, "topology.link_timeout_s = %u must be more than "
                "topology.lldp_interval_s = %u (links would flap between probes)",
                cfg->topo_link_timeout_s, cfg->topo_lldp_interval_s);
        return -EINVAL;
    }
    /* A frame older than the timeout could keep a silent link up. Equal
     * is let pass: every configuration valid before the key (the shortest
     * timeout is 2 s) stays valid with its default. */
    if ((uint64_t)cfg->topo_lldp_max_age_ms > (uint64_t)cfg->topo_link_timeout_s * 1000u) {
        cfg_err(err, errlen, "topology.lldp_max_age_ms = %u must be at most "
                "topology.link_timeout_s = %u (%llu ms): an older frame could keep a silent "
                "link up", cfg->topo_lldp_max_age_ms, cfg->topo_link_timeout_s,
                (unsigned long long)cfg->topo_link_timeout_s * 1000u);
        return -EINVAL;
    }
    return 0;
}

static int check_port_pool(struct ofcd_config *cfg, char *err, size_t errlen)
{
    /* DPDK's rte_pktmbuf_pool_create() refuses a cache above n / 1.5. */
    if ((uint64_t)cfg->mbuf_cache * 3 > (uint64_t)cfg->mbufs * 2) {
        cfg_err(err, errlen, "port.mbuf_cache = %u and port.mbufs = %u conflict: mbuf_cache "
                "must be at most mbufs/1.5 (%u)", cfg->mbuf_cache, cfg->mbufs,
                (unsigned)((uint64_t)cfg->mbufs * 2 / 3));
        return -EINVAL;
    }
    /* Both rings full plus a burst in flight each way must not drain the pool. */
    uint64_t need = (uint64_t)cfg->rx_desc + cfg->tx_desc + 2ull * cfg->burst;
    if (need >= cfg->mbufs) {
        cfg_err(err, errlen, "port.rx_desc + port.tx_desc + 2 * port.burst = %u + %u + 2 * %u "
                "= %llu must be less than port.mbufs = %u", cfg->rx_desc, cfg->tx_desc,
                cfg->burst, (unsigned long long)need, cfg->mbufs);
        return -EINVAL;
    }
    return 0;
}

static int check_kernel_side(struct ofcd_config *cfg, char *err, size_t errlen)
{
    char a[OFCD_IPV4_STRLEN], b[OFCD_IPV4_STRLEN], net[OFCD_IPV4_STRLEN];
    uint32_t mask = cfg_mask(cfg->prefix_len);

    if (!cfg->configure_kernel)
        return 0;
    ofcd_ipv4_format(cfg->ip, a);
    ofcd_ipv4_format(cfg->kernel_ip, b);
    if (cfg->kernel_prefix_len != cfg->prefix_len ||
        (cfg->kernel_ip & mask) != (cfg->ip & mask)) {
        cfg_err(err, errlen, "net.kernel_address = %s/%u is not in the subnet of "
                "net.address = %s/%u (%s/%u); both must share network and prefix while "
                "net.configure_kernel is true", b, cfg->kernel_prefix_len, a,
                cfg->prefix_len, ofcd_ipv4_format(cfg->ip & mask, net),
                cfg->prefix_len);
        return -EINVAL;
    }
    if (cfg->kernel_ip == cfg->ip) {
        cfg_err(err, errlen, "net.kernel_address = %s/%u and net.address = %s/%u are the "
                "same address; the tap's kernel side needs its own", b,
                cfg->kernel_prefix_len, a, cfg->prefix_len);
        return -EINVAL;
    }
    return 0;
}

/* A switch's snapshot and its next reply, both as large as one reply may be,
 * must fit the budget of all snapshots, or that switch is never checked. */
static int check_fm_durability(struct ofcd_config *cfg, char *err, size_t errlen)
{
    if (strcmp(cfg->fm_durability, "sync") != 0 && strcmp(cfg->fm_durability, "group") != 0 &&
        strcmp(cfg->fm_durability, "async") != 0) {
        cfg_err(err, errlen, "flow_manager.durability = '%s': must be sync, group or async",
                cfg->fm_durability);
        return -EINVAL;
    }
    return 0;
}

static int check_fm_snapshot(struct ofcd_config *cfg, char *err, size_t errlen)
{
    uint64_t need_kb = 2ull * cfg->of_mp_max_kb;

    if ((uint64_t)cfg->fm_snapshot_budget_mb * 1024u < need_kb) {
        unsigned long long need_mb = (need_kb + 1023) / 1024;
        cfg_err(err, errlen, "flow_manager.snapshot_budget_mb = %u is below 2 x "
                "openflow.mp_max_kb = 2 x %u KiB = %llu MiB (a switch's snapshot and its next "
                "reply, each of the largest size): raise it to %llu or lower "
                "openflow.mp_max_kb", cfg->fm_snapshot_budget_mb, cfg->of_mp_max_kb, need_mb,
                need_mb);
        return -EINVAL;
    }
    return 0;
}

static int check_openflow(struct ofcd_config *cfg, char *err, size_t errlen)
{
    if (!cfg->of_port && !cfg->of_extra_port && !cfg->tls_port) {
        cfg_err(err, errlen, "openflow.port = 0, openflow.extra_port = 0 and tls.port = 0: "
                "switches would have nowhere to connect");
        return -EINVAL;
    }
    if (cfg->of_extra_port != 0 && cfg->of_extra_port == cfg->of_port) {
        cfg_err(err, errlen, "openflow.extra_port = %u equals openflow.port = %u; use a "
                "different port or 0 for none", cfg->of_extra_port, cfg->of_port);
        return -EINVAL;
    }
    if (strcmp(cfg->of_role, "equal") != 0 && strcmp(cfg->of_role, "master") != 0 &&
        strcmp(cfg->of_role, "slave") != 0) {
        cfg_err(err, errlen, "openflow.role = '%s': must be equal, master or slave",
                cfg->of_role);
        return -EINVAL;
    }
    if (cfg->of_queue_size & (cfg->of_queue_size - 1)) {
        cfg_err(err, errlen, "openflow.queue_size = %u: must be a power of two",
                cfg->of_queue_size);
        return -EINVAL;
    }
    return 0;
}

static int check_tls(struct ofcd_config *cfg, char *err, size_t errlen)
{
    if (!cfg->tls_port && cfg->tls_pins_file[0]) {
        cfg_err(err, errlen, "tls.pins_file pins switches to certificates, which needs "
                "tls.port (a pinned switch is refused on a plaintext port)");
        return -EINVAL;
    }
    if (!cfg->tls_port)
        return 0;
    if (cfg->tls_port == cfg->of_port || cfg->tls_port == cfg->of_extra_port) {
        cfg_err(err, errlen, "tls.port = %u is also a plaintext port (openflow.port = %u, "
                "extra_port = %u): one port, one kind; set openflow.port = 0 for TLS only",
                cfg->tls_port, cfg->of_port, cfg->of_extra_port);
        return -EINVAL;
    }
    if (!cfg->tls_cert[0] || !cfg->tls_key[0]) {
        cfg_err(err, errlen, "tls.port = %u needs tls.cert and tls.key (%s is empty)",
                cfg->tls_port, cfg->tls_cert[0] ? "tls.key" : "tls.cert");
        return -EINVAL;
    }
    if (cfg->tls_crl_file[0] && !cfg->tls_verify_peer) {
        cfg_err(err, errlen, "tls.crl_file = %s with tls.verify_peer = false: no switch "
                "certificate is asked for, so none could be checked against the CRL",
                cfg->tls_crl_file);
        return -EINVAL;
    }
    if (cfg->tls_verify_peer && !cfg->tls_ca[0]) {
        cfg_err(err, errlen, "tls.verify_peer = true needs tls.ca, the CA switches' "
                "certificates chain to (or tls.verify_peer = false to accept any switch)");
        return -EINVAL;
    }
    if (strcmp(cfg->tls_min_version, "1.2") != 0 && strcmp(cfg->tls_min_version, "1.3") != 0) {
        cfg_err(err, errlen, "tls.min_version = '%s': must be 1.2 or 1.3",
                cfg->tls_min_version);
        return -EINVAL;
    }
    return 0;
}

static int check_tcp(struct ofcd_config *cfg, char *err, size_t errlen)
{
    const struct tcp_config *t = &cfg->tcp;

    if (!(t->rto_min_ms <= t->rto_initial_ms && t->rto_initial_ms <= t->rto_max_ms)) {
        cfg_err(err, errlen, "tcp.rto_min_ms = %u, tcp.rto_initial_ms = %u and tcp.rto_max_ms "
                "= %u conflict: need rto_min_ms <= rto_initial_ms <= rto_max_ms",
                t->rto_min_ms, t->rto_initial_ms, t->rto_max_ms);
        return -EINVAL;
    }
    if (t->rcv_buf < 2u * t->mss || t->snd_buf < t->mss) {
        cfg_err(err, errlen, "tcp.rcv_buf = %u, tcp.snd_buf = %u and tcp.mss = %u conflict: "
                "rcv_buf must hold two segments and snd_buf one", t->rcv_buf, t->snd_buf,
                t->mss);
        return -EINVAL;
    }
    if (cfg->tcp_echo_port != 0 &&
        (cfg->tcp_echo_port == cfg->of_port || cfg->tcp_echo_port == cfg->of_extra_port)) {
        cfg_err(err, errlen, "tcp.echo_port = %u collides with an OpenFlow port; pick another",
                cfg->tcp_echo_port);
        return -EINVAL;
    }
    if (cfg->tcp_backoff_min_ms > cfg->tcp_backoff_max_ms) {
        cfg_err(err, errlen, "tcp.connect_backoff_min_ms = %u exceeds "
                "tcp.connect_backoff_max_ms = %u", cfg->tcp_backoff_min_ms,
                cfg->tcp_backoff_max_ms);
        return -EINVAL;
    }
    if ((cfg->tcp_echo_connect_ip == 0) != (cfg->tcp_echo_connect_port == 0)) {
        cfg_err(err, errlen, "tcp.echo_connect needs both an address and a port, or "
                "0.0.0.0:0 for off");
        return -EINVAL;
    }
    return 0;
}

/* Off loopback the REST API needs authentication, and authentication needs
 * HTTPS (Basic passwords and bearer tokens would cross the network in
 * clear); rest.allow_insecure lets an operator do either knowingly (app/
 * rest_access.c then says so loudly at every start). */
static int check_rest(struct ofcd_config *cfg, char *err, size_t errlen)
{
    char ip[OFCD_IPV4_STRLEN];
    bool https = cfg->rest_tls_cert[0] && cfg->rest_tls_key[0];

    if ((cfg->rest_ip >> 24) == 127 || cfg->rest_allow_insecure || (cfg->rest_auth && https))
        return 0;
    ofcd_ipv4_format(cfg->rest_ip, ip);
    if (!cfg->rest_auth)
        cfg_err(err, errlen, "rest.listen = %s:%u is not loopback: set rest.auth = true "
                "(users: ofcd user add NAME), or rest.allow_insecure = true to serve it open",
                ip, cfg->rest_port);
    else
        cfg_err(err, errlen, "rest.listen = %s:%u is not loopback and rest.auth is on over "
                "plain HTTP: passwords and tokens would cross the network in clear; set "
                "rest.tls_cert and rest.tls_key (HTTPS), or rest.allow_insecure = true to "
                "serve it so", ip, cfg->rest_port);
    return -EINVAL;
}

/* A unix socket's path must fit sun_path with its NUL: refused here rather
 * than when the socket is made, after the port and lcores have started. */
static int check_app(struct ofcd_config *cfg, char *err, size_t errlen)
{
    size_t len = strlen(cfg->ctl_socket), max = sizeof(((struct sockaddr_un *)0)->sun_path) - 1;

    if (len > max) {
        snprintf(err, errlen, "app.ctl_socket is %zu bytes; a unix socket's path holds at "
                 "most %zu", len, max);
        return -EINVAL;
    }
    if (cfg->ctl_group[0] && !getgrnam(cfg->ctl_group)) {
        snprintf(err, errlen, "app.ctl_group '%s': no such group on this machine (addgroup "
                 "--system %s, or leave it empty for ofcd's own user only)", cfg->ctl_group,
                 cfg->ctl_group);
        return -EINVAL;
    }
    return 0;
}

static int check_fault(struct ofcd_config *cfg, char *err, size_t errlen)
{
    if (cfg_check_fault_dir("rx", &cfg->fault_rx, err, errlen) < 0 ||
        cfg_check_fault_dir("tx", &cfg->fault_tx, err, errlen) < 0)
        return -EINVAL;
    return 0;
}

/* The store's backends (control/store/store.h); config/ does not see that
 * module, so the names are checked here. */
static int check_store(struct ofcd_config *cfg, char *err, size_t errlen)
{
    if (strcmp(cfg->store_backend, "lmdb") != 0 && strcmp(cfg->store_backend, "memory") != 0) {
        cfg_err(err, errlen, "store.backend = '%s': must be lmdb or memory",
                cfg->store_backend);
        return -EINVAL;
    }
    return 0;
}

/* In the order an operator reads the file; the first rule broken is named. */
static int (*const cross_checks[])(struct ofcd_config *cfg, char *err, size_t errlen) = {
    check_fm_ranges, check_topology, check_port_pool, check_kernel_side, check_openflow,
    cfg_check_shares, check_tls, check_tcp, check_rest, check_app, check_fault, check_fm_snapshot,
    check_fm_durability, check_store, cfg_check_cluster,
};

int cfg_finish(struct ofcd_config *cfg, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof(cross_checks) / sizeof(cross_checks[0]); i++) {
        int rc = cross_checks[i](cfg, err, errlen);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* printers                                                                   */

static void cfg_fmt_default(const struct cfg_key *k, char *buf, size_t len)
{
    bool quote = k->def[0] == '\0' || strpbrk(k->def, " \t#") != NULL;
    snprintf(buf, len, quote ? "(default: \"%s\")" : "(default: %s)", k->def);
}

/* Word-wrap text to CFG_HELP_WIDTH columns, every line indented. */
static void cfg_wrap(FILE *out, const char *text, int indent)
{
    int col = 0;
    while (*text != '\0') {
        size_t w = strcspn(text, " ");
        if (col > indent && col + 1 + (int)w > CFG_HELP_WIDTH) {
            fputc('\n', out);
            col = 0;
        }
        if (col == 0)
            col = fprintf(out, "%*s", indent, "");
        else
            col += fprintf(out, " ");
        col += fprintf(out, "%.*s", (int)w, text);
        text += w;
        while (*text == ' ')
            text++;
    }
    fputc('\n', out);
}

/*
 * One entry per key: "--section.key=META  (default: X)" aligned across all
 * keys, then the help and the allowed values wrapped below it. The allowed
 * text is the same one value errors use, so the two never disagree.
 */
void cfg_print_help(FILE *out)
{
    char opt[CFG_NAME_MAX + 32];
    char def[CFG_STR_MAX + 16];
    char allowed[256];
    char text[512];
    int optw = 0;

    for (size_t i = 0; i < cfg_n_keys; i++) {
        const struct cfg_key *k = &cfg_keys[i];
        int w = snprintf(opt, sizeof(opt), "--%s.%s=%s", k->section, k->name,
                         cfg_type_ops[k->type].meta);
        if (w > optw)
            optw = w;
    }

    fprintf(out, "Configuration keys: '[section]' and 'key = value' in the config file, or\n"
            "--section.key=VALUE on the command line (applied after the file).\n");
    const char *section = NULL;
    for (size_t i = 0; i < cfg_n_keys; i++) {
        const struct cfg_key *k = &cfg_keys[i];
        if (section == NULL || strcmp(section, k->section) != 0) {
            section = k->section;
            fprintf(out, "\n[%s]\n", section);
        }
        snprintf(opt, sizeof(opt), "--%s.%s=%s", k->section, k->name,
                 cfg_type_ops[k->type].meta);
        cfg_fmt_default(k, def, sizeof(def));
        fprintf(out, "  %-*s  %s\n", optw, opt, def);
        cfg_type_ops[k->type].describe(k, allowed, sizeof(allowed));
        snprintf(text, sizeof(text), "%s (allowed: %s)", k->help, allowed);
        cfg_wrap(out, text, 8);
    }
}

void cfg_print(const struct ofcd_config *cfg, FILE *out)
{
    char val[2 * CFG_STR_MAX + 8];
    const char *section = NULL;
    fprintf(out, "# ofcd effective configuration\n");
    for (size_t i = 0; i < cfg_n_keys; i++) {
        const struct cfg_key *k = &cfg_keys[i];
        if (k->test_only && cfg->no_test_services)
            continue;               /* not in this build: only its off value loads */
        if (section == NULL || strcmp(section, k->section) != 0) {
            section = k->section;
            fprintf(out, "\n[%s]\n", section);
        }
        cfg_format_value(k, cfg, val, sizeof(val));
        fprintf(out, "%s = %s\n", k->name, val);
    }
}

int cfg_diff(const struct ofcd_config *a, const struct ofcd_config *b, cfg_diff_fn fn,
             void *arg)
{
    char was[2 * CFG_STR_MAX + 8], now[2 * CFG_STR_MAX + 8], key[128];

    for (size_t i = 0; i < cfg_n_keys; i++) {
        const struct cfg_key *k = &cfg_keys[i];
        cfg_format_value(k, a, was, sizeof(was));
        cfg_format_value(k, b, now, sizeof(now));
        if (strcmp(was, now) == 0)
            continue;
        snprintf(key, sizeof(key), "%s.%s", k->section, k->name);
        int rc = fn(key, was, now, arg);
        if (rc)
            return rc;
    }
    return 0;
}

int cfg_copy_key(struct ofcd_config *dst, const struct ofcd_config *src, const char *key)
{
    const char *dot = strchr(key, '.');
    const struct cfg_key *k =
        dot ? cfg_find(key, (size_t)(dot - key), dot + 1, strlen(dot + 1)) : NULL;

    if (!k)
        return -ENOENT;
    if (k->aux)
        return -EINVAL;
    memcpy((char *)dst + k->off, (const char *)src + k->off, k->size);
    return 0;
}
