/*
 * flow_json: Kytos-ng flow_manager v2 flow JSON <-> the typed flow
 * (fm_flow.h) and how it was written (struct flow_json_form). See
 * flow_json.h for the accepted format.
 */
#include "flow_json.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json_tape.h"
#include "json_u64.h"
#include "ofp_msg.h"

#define PATH_MAX_LEN 96

enum mf_kind {
    MK_UINT,          /* plain integer up to the field's width */
    MK_UINT_MASK,     /* integer or "value/mask" */
    MK_VLAN,
    MK_MAC,
    MK_IPV4,
    MK_IPV6,
    MK_TP,            /* tp_src/tp_dst: TCP/UDP/SCTP by nw_proto */
};

struct mf_def {
    const char *name;           /* Kytos name */
    uint8_t field;              /* OFPXMT_OFB_* (TCP_* for MK_TP) */
    uint8_t kind;
};

/* In OXM field order, so render emits keys in the order a switch sees them. */
static const struct mf_def mf_table[] = {
    {"in_port", OFPXMT_OFB_IN_PORT, MK_UINT},
    {"in_phy_port", OFPXMT_OFB_IN_PHY_PORT, MK_UINT},
    {"metadata", OFPXMT_OFB_METADATA, MK_UINT_MASK},
    {"dl_dst", OFPXMT_OFB_ETH_DST, MK_MAC},
    {"dl_src", OFPXMT_OFB_ETH_SRC, MK_MAC},
    {"dl_type", OFPXMT_OFB_ETH_TYPE, MK_UINT},
    {"dl_vlan", OFPXMT_OFB_VLAN_VID, MK_VLAN},
    {"dl_vlan_pcp", OFPXMT_OFB_VLAN_PCP, MK_UINT},
    {"ip_dscp", OFPXMT_OFB_IP_DSCP, MK_UINT},
    {"ip_ecn", OFPXMT_OFB_IP_ECN, MK_UINT},
    {"nw_proto", OFPXMT_OFB_IP_PROTO, MK_UINT},
    {"nw_src", OFPXMT_OFB_IPV4_SRC, MK_IPV4},
    {"nw_dst", OFPXMT_OFB_IPV4_DST, MK_IPV4},
    {"tp_src", OFPXMT_OFB_TCP_SRC, MK_TP},
    {"tp_dst", OFPXMT_OFB_TCP_DST, MK_TP},
    {"udp_src", OFPXMT_OFB_UDP_SRC, MK_UINT},
    {"udp_dst", OFPXMT_OFB_UDP_DST, MK_UINT},
    {"sctp_src", OFPXMT_OFB_SCTP_SRC, MK_UINT},
    {"sctp_dst", OFPXMT_OFB_SCTP_DST, MK_UINT},
    {"icmpv4_type", OFPXMT_OFB_ICMPV4_TYPE, MK_UINT},
    {"icmpv4_code", OFPXMT_OFB_ICMPV4_CODE, MK_UINT},
    {"arp_op", OFPXMT_OFB_ARP_OP, MK_UINT},
    {"arp_spa", OFPXMT_OFB_ARP_SPA, MK_IPV4},
    {"arp_tpa", OFPXMT_OFB_ARP_TPA, MK_IPV4},
    {"arp_sha", OFPXMT_OFB_ARP_SHA, MK_MAC},
    {"arp_tha", OFPXMT_OFB_ARP_THA, MK_MAC},
    {"ipv6_src", OFPXMT_OFB_IPV6_SRC, MK_IPV6},
    {"ipv6_dst", OFPXMT_OFB_IPV6_DST, MK_IPV6},
    {"ipv6_flabel", OFPXMT_OFB_IPV6_FLABEL, MK_UINT_MASK},
    {"icmpv6_type", OFPXMT_OFB_ICMPV6_TYPE, MK_UINT},
    {"icmpv6_code", OFPXMT_OFB_ICMPV6_CODE, MK_UINT},
    {"nd_tar", OFPXMT_OFB_IPV6_ND_TARGET, MK_IPV6},
    {"nd_sll", OFPXMT_OFB_IPV6_ND_SLL, MK_MAC},
    {"nd_tll", OFPXMT_OFB_IPV6_ND_TLL, MK_MAC},
    {"mpls_lab", OFPXMT_OFB_MPLS_LABEL, MK_UINT},
    {"mpls_tc", OFPXMT_OFB_MPLS_TC, MK_UINT},
    {"mpls_bos", OFPXMT_OFB_MPLS_BOS, MK_UINT},
    {"pbb_isid", OFPXMT_OFB_PBB_ISID, MK_UINT_MASK},
    {"tun_id", OFPXMT_OFB_TUNNEL_ID, MK_UINT_MASK},
    {"v6_hdr", OFPXMT_OFB_IPV6_EXTHDR, MK_UINT_MASK},
};
#define MF_COUNT (sizeof(mf_table) / sizeof(mf_table[0]))

static const struct {
    const char *name;
    uint32_t port;
} port_names[] = {
    {"in_port", OFPP_IN_PORT}, {"normal", OFPP_NORMAL},
    {"flood", OFPP_FLOOD},     {"all", OFPP_ALL},     {"controller", OFPP_CONTROLLER},
    {"local", OFPP_LOCAL},
};

/* ---- small helpers -------------------------------------------------------- */

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -EINVAL;
}

/*
 * Paths into the flow (for messages) are made for every field and action
 * of every flow; with snprintf that was 5-6 % of a batched POST's CPU, so
 * they are joined with memcpy. Truncated to cap, always terminated.
 */
static void path_join(char *dst, size_t cap, const char *a, const char *sep, const char *b)
{
    size_t n = 0;
    for (const char *part[3] = {a, sep, b}, **p = part; p < part + 3 && n + 1 < cap; p++) {
        size_t l = strlen(*p);
        if (l > cap - 1 - n)
            l = cap - 1 - n;
        memcpy(dst + n, *p, l);
        n += l;
    }
    dst[n] = '\0';
}

/* "a[i]" */
static void path_index(char *dst, size_t cap, const char *a, size_t i)
{
    char num[24], *e = num + sizeof(num);
    *--e = '\0';
    *--e = ']';
    do
        *--e = (char)('0' + i % 10);
    while ((i /= 10) && e > num + 1);
    *--e = '[';
    path_join(dst, cap, a, "", e);
}

/* Parse error context: where the message goes. */
struct pctx {
    char *err;
    size_t errlen;
};

static int bad_type(struct pctx *c, const char *path, const char *want)
{
    return fail(c->err, c->errlen, "wrong type for '%s': expected %s", path, want);
}

static int bad_value(struct pctx *c, const char *path, const char *want)
{
    return fail(c->err, c->errlen, "invalid value for '%s': expected %s", path, want);
}

/* An integer's value: 1 with *x for one in 0..2^64 - 1, -1 for a negative
 * or bigger one, 0 for a value that is no integer. */
static int int_of(const struct jt_node *v, uint64_t *x)
{
    if (!jt_is_int(v))
        return 0;
    if (v->flags & (JT_NEG | JT_BIG))
        return -1;
    *x = v->v.u;
    return 1;
}

static int get_uint(struct pctx *c, const struct jt_node *v, const char *path, uint64_t max,
                    uint64_t *out)
{
    char want[64];
    uint64_t x = 0;
    int r = int_of(v, &x);

    if (r <= 0 || x > max) {
        snprintf(want, sizeof(want), "integer 0..%" PRIu64, max);    /* only for the message */
        return r ? bad_value(c, path, want) : bad_type(c, path, want);
    }
    *out = x;
    return 0;
}

/* Whole string s as an unsigned number (decimal or 0x hex), at most max. */
static bool str_to_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (!*s || *s == '-' || *s == '+' || *s == ' ')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end || v > max)
        return false;
    *out = v;
    return true;
}

bool flow_json_text_u64(const char *s, uint64_t *out)
{
    return str_to_u64(s, UINT64_MAX, out);
}

bool flow_json_u64(const json_t *v, uint64_t *out)
{
    if (json_is_integer(v)) {
        if (json_integer_value(v) < 0)
            return false;
        *out = (uint64_t)json_integer_value(v);
        return true;
    }
    if (!json_is_string(v))
        return false;
    int m = json_u64_marker_value(json_string_value(v), out);
    return m ? m > 0 : flow_json_text_u64(json_string_value(v), out);
}

/* A 64-bit value: a non-negative JSON integer (above INT64_MAX read through
 * json_u64's marker), or a decimal/0x string. One above 2^64 - 1 is named
 * as Kytos' serializer names it (FlowMod.cookie, FlowMod.cookie_mask). */
static int get_u64(struct pctx *c, const struct jt_node *v, const char *path, uint64_t *out)
{
    static const char want[] = "unsigned 64-bit integer (number, or decimal/0x string)";
    int m = 0;                      /* -1: above 2^64 - 1 */

    if (jt_is_int(v)) {
        if (v->flags & JT_NEG)
            return bad_value(c, path, want);
        if (!(v->flags & JT_BIG)) {
            *out = v->v.u;
            return 0;
        }
        m = -1;
    } else if (jt_is_string(v)) {
        /* A marker only in a record written by an older ofcd (request
         * bodies cannot hold U+0001). */
        m = json_u64_marker_value(jt_string(v), out);
        if (m == 0 && !str_to_u64(jt_string(v), UINT64_MAX, out))
            return bad_value(c, path, want);
    } else {
        return bad_type(c, path, want);
    }
    if (m < 0) {
        bool fm = !strcmp(path, "cookie") || !strcmp(path, "cookie_mask");
        return fail(c->err, c->errlen, "%s: %s%s is out of range: more than 2^64 - 1 = "
                    "18446744073709551615", path, fm ? "FlowMod." : "", path);
    }
    return 0;
}

static json_t *u64_json(uint64_t v)
{
    return json_u64_value(v);
}

static void put_be(uint8_t *p, unsigned len, uint64_t v)
{
    for (unsigned i = len; i-- > 0; v >>= 8)
        p[i] = (uint8_t)v;
}

static uint64_t get_be(const uint8_t *p, unsigned len)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < len; i++)
        v = v << 8 | p[i];
    return v;
}

/* Valid value bits of a field of <= 8 bytes, from the codec's own table. */
static uint64_t field_width(unsigned field)
{
    struct ofp_match m;
    ofp_match_init(&m);
    ofp_match_set_uint(&m, field, 0);
    return ofp_match_get_mask(&m, field);
}

/* ---- match values ------------------------------------------------------- */

static bool parse_mac(const char *s, uint8_t out[6])
{
    unsigned b[6];
    char tail;
    if (strlen(s) != 17 ||
        sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
               &tail) != 6)
        return false;
    for (int i = 0; i < 6; i++) {
        if (s[i * 3] == ' ' || s[i * 3] == '+' || s[i * 3] == '-')
            return false;
        out[i] = (uint8_t)b[i];
    }
    return true;
}

/* Mask of len bytes with the first bits set. */
static void prefix_mask(uint8_t *mask, unsigned len, unsigned bits)
{
    memset(mask, 0, len);
    for (unsigned i = 0; i < bits; i++)
        mask[i / 8] |= (uint8_t)(0x80 >> (i % 8));
}

/* Prefix length of a contiguous mask, or -1. */
static int mask_prefix(const uint8_t *mask, unsigned len)
{
    unsigned bits = 0;
    bool zero_seen = false;
    for (unsigned i = 0; i < len * 8; i++) {
        bool set = mask[i / 8] & (0x80 >> (i % 8));
        if (set && zero_seen)
            return -1;
        if (set)
            bits++;
        else
            zero_seen = true;
    }
    return (int)bits;
}

/* "addr[/prefix|/mask]" for IPv4 (alen 4) or IPv6 (alen 16). */
static bool parse_ip(const char *s, unsigned alen, bool allow_mask, uint8_t *val, uint8_t *mask,
                     bool *masked)
{
    char buf[INET6_ADDRSTRLEN + 48];
    int af = alen == 4 ? AF_INET : AF_INET6;

    if (strlen(s) >= sizeof(buf))
        return false;
    strcpy(buf, s);
    char *slash = strchr(buf, '/');
    *masked = false;
    if (slash)
        *slash++ = '\0';
    if (inet_pton(af, buf, val) != 1)
        return false;
    if (!slash)
        return true;
    if (!allow_mask)
        return false;
    uint64_t bits = 0;
    size_t sl = strlen(slash);
    if (sl && sl <= 3 && strspn(slash, "0123456789") == sl && str_to_u64(slash, alen * 8, &bits)) {
        prefix_mask(mask, alen, (unsigned)bits);
    } else if (inet_pton(af, slash, mask) != 1) {
        return false;
    }
    *masked = true;
    return true;
}

static bool has_slash(const struct jt_node *v)
{
    return jt_is_string(v) && strchr(jt_string(v), '/');
}

/* One match value being parsed: what parse_mf's per-kind parsers share. */
struct mf_in {
    struct pctx *c;
    const struct mf_def *d;
    const struct jt_node *v;
    const char *path;
    bool set_field;                 /* a set_field value: no mask, no tp alias */
    bool maskable;
    unsigned len;                   /* the field's value bytes */
    uint64_t *int_form;
    uint8_t val[16], mask[16];
    bool masked;
    char want[96];
};

/* "text" or "text/text" of at most cap-1 bytes into buf; *rest is the part
 * after the slash or NULL. */
static bool split_slash(const char *s, char *buf, size_t cap, char **rest)
{
    if (strlen(s) >= cap)
        return false;
    strcpy(buf, s);
    *rest = strchr(buf, '/');
    if (*rest)
        *(*rest)++ = '\0';
    return true;
}

static int mf_uint(struct mf_in *in)
{
    uint64_t x = 0;
    int rc = get_uint(in->c, in->v, in->path, field_width(in->d->field), &x);
    if (rc)
        return rc;
    put_be(in->val, in->len, x);
    return 0;
}

static int mf_uint_mask(struct mf_in *in)
{
    uint64_t w = field_width(in->d->field), x, mk = 0;
    char buf[64], *slash;

    snprintf(in->want, sizeof(in->want), "integer 0..%" PRIu64 "%s", w,
             in->maskable ? " or \"value/mask\"" : "");
    if (jt_is_int(in->v)) {
        if (int_of(in->v, &x) < 0 || x > w)
            return bad_value(in->c, in->path, in->want);
    } else if (jt_is_string(in->v)) {
        if (!split_slash(jt_string(in->v), buf, sizeof(buf), &slash))
            return bad_value(in->c, in->path, in->want);
        if (slash && (!in->maskable || !str_to_u64(slash, w, &mk)))
            return bad_value(in->c, in->path, in->want);
        in->masked = slash != NULL;
        if (!str_to_u64(buf, w, &x))
            return bad_value(in->c, in->path, in->want);
    } else {
        return bad_type(in->c, in->path, in->want);
    }
    put_be(in->val, in->len, x);
    put_be(in->mask, in->len, mk);
    return 0;
}

/* "vid/mask" (both under 0x1fff): the present bit is added to both. */
static int mf_vlan_string(struct mf_in *in, const char *s, const char *want, uint64_t *x,
                          uint64_t *mk)
{
    char buf[32], *slash;

    if (!strcmp(s, "untagged")) {
        *x = OFPVID_NONE;
        return 0;
    }
    if (!strcmp(s, "any")) {
        *x = *mk = OFPVID_PRESENT;
        in->masked = true;
        return 0;
    }
    if (!split_slash(s, buf, sizeof(buf), &slash) || !slash ||
        !str_to_u64(buf, 0x1fff, x) || !str_to_u64(slash, 0x1fff, mk))
        return bad_value(in->c, in->path, want);
    *x |= OFPVID_PRESENT;
    *mk |= OFPVID_PRESENT;
    in->masked = true;
    return 0;
}

static int mf_vlan(struct mf_in *in)
{
    const char *vw = in->set_field ? "integer 0..4095"
                                   : "integer 0..4095, \"vid/mask\", \"untagged\" or \"any\"";
    uint64_t x = 0, mk = 0;

    if (jt_is_int(in->v)) {
        if (int_of(in->v, &x) < 0 || x > 4095)
            return bad_value(in->c, in->path, vw);
        /* Kytos: a match on VLAN 0 means untagged (OVS: vlan_tci=0x0000/0x1fff). */
        x = x == 0 && !in->set_field ? OFPVID_NONE : x | OFPVID_PRESENT;
    } else if (!jt_is_string(in->v) || in->set_field) {
        return bad_type(in->c, in->path, vw);
    } else {
        int rc = mf_vlan_string(in, jt_string(in->v), vw, &x, &mk);
        if (rc)
            return rc;
    }
    put_be(in->val, 2, x);
    if (in->masked)
        put_be(in->mask, 2, mk);
    return 0;
}

static int mf_mac(struct mf_in *in)
{
    unsigned f = in->d->field;
    bool int_ok = f == OFPXMT_OFB_IPV6_ND_SLL || f == OFPXMT_OFB_IPV6_ND_TLL;
    char buf[40], *slash;

    path_join(in->want, sizeof(in->want), "MAC address \"aa:bb:cc:dd:ee:ff\"",
              in->maskable ? " with optional \"/mask\"" : "", int_ok ? " or integer" : "");
    uint64_t x = 0;

    if (int_ok && jt_is_int(in->v)) {
        if (int_of(in->v, &x) < 0 || x > 0xffffffffffffULL)
            return bad_value(in->c, in->path, in->want);
        put_be(in->val, 6, x);
        *in->int_form |= 1ull << f;
        return 0;
    }
    if (!jt_is_string(in->v))
        return bad_type(in->c, in->path, in->want);
    if (!split_slash(jt_string(in->v), buf, sizeof(buf), &slash))
        return bad_value(in->c, in->path, in->want);
    if (slash && (!in->maskable || !parse_mac(slash, in->mask)))
        return bad_value(in->c, in->path, in->want);
    in->masked = slash != NULL;
    if (!parse_mac(buf, in->val))
        return bad_value(in->c, in->path, in->want);
    return 0;
}

static int mf_ip(struct mf_in *in)
{
    unsigned f = in->d->field;
    unsigned alen = in->d->kind == MK_IPV4 ? 4 : 16;
    bool int_ok = f == OFPXMT_OFB_IPV6_ND_TARGET;

    path_join(in->want, sizeof(in->want), alen == 4 ? "IPv4 address" : "IPv6 address",
              in->maskable ? " with optional \"/prefix\" or \"/mask\"" : "",
              int_ok ? " or integer" : "");
    uint64_t x = 0;

    if (int_ok && jt_is_int(in->v)) {
        if (int_of(in->v, &x) < 0)
            return bad_value(in->c, in->path, in->want);
        memset(in->val, 0, 16);
        put_be(in->val + 8, 8, x);
        *in->int_form |= 1ull << f;
        return 0;
    }
    if (!jt_is_string(in->v))
        return bad_type(in->c, in->path, in->want);
    if (!parse_ip(jt_string(in->v), alen, in->maskable, in->val, in->mask, &in->masked))
        return bad_value(in->c, in->path, in->want);
    return 0;
}

/* By enum mf_kind. */
static int (*const mf_parsers[])(struct mf_in *in) = {
    [MK_UINT] = mf_uint, [MK_UINT_MASK] = mf_uint_mask, [MK_VLAN] = mf_vlan,
    [MK_MAC] = mf_mac,   [MK_IPV4] = mf_ip,             [MK_IPV6] = mf_ip,
    [MK_TP] = mf_uint,
};

/* Parse the JSON value of match field d into m (or a set_field value when
 * set_field is true: no mask, no tp alias). int_form gets the field's bit
 * when the value was written as an integer where a string is usual. */
static int parse_mf(struct pctx *c, const struct mf_def *d, const struct jt_node *v,
                    const char *path, bool set_field, struct ofp_match *m, uint64_t *int_form)
{
    struct mf_in in = {.c = c, .d = d, .v = v, .path = path, .set_field = set_field,
                       .maskable = !set_field && ofp_oxm_field_maskable(d->field),
                       .len = ofp_oxm_field_len(d->field), .int_form = int_form};

    if (d->kind >= sizeof(mf_parsers) / sizeof(mf_parsers[0]) || !mf_parsers[d->kind])
        return bad_value(c, path, "a known field kind");
    int rc = mf_parsers[d->kind](&in);
    if (rc)
        return rc;
    if (in.masked) {
        for (unsigned i = 0; i < in.len; i++)
            in.val[i] &= in.mask[i];
    }
    if (ofp_match_set(m, d->field, in.val, in.masked ? in.mask : NULL))
        return bad_value(c, path, "a valid value");
    return 0;
}

/* Name lookups in the tables below are linear, several per flow of a
 * batch: jt_same_key's first-byte check spares most strcmp calls. */
static const struct mf_def *mf_by_name(const char *name)
{
    for (size_t i = 0; i < MF_COUNT; i++) {
        if (jt_same_key(mf_table[i].name, name))
            return &mf_table[i];
    }
    return NULL;
}

static const char *mf_name(unsigned field, uint8_t tp_alias)
{
    for (size_t i = 0; i < MF_COUNT; i++) {
        if (mf_table[i].field == field && mf_table[i].kind != MK_TP)
            return mf_table[i].name;
    }
    bool src = field == OFPXMT_OFB_TCP_SRC || field == OFPXMT_OFB_UDP_SRC ||
               field == OFPXMT_OFB_SCTP_SRC;
    bool dst = field == OFPXMT_OFB_TCP_DST || field == OFPXMT_OFB_UDP_DST ||
               field == OFPXMT_OFB_SCTP_DST;
    if ((src && (tp_alias & 1)) || field == OFPXMT_OFB_TCP_SRC)
        return "tp_src";
    if ((dst && (tp_alias & 2)) || field == OFPXMT_OFB_TCP_DST)
        return "tp_dst";
    return ofp_oxm_field_name(field);
}

/* The L4 port field tp_src/tp_dst stand for, by nw_proto. */
static unsigned tp_field(const struct ofp_match *m, bool dst)
{
    switch (ofp_match_get_uint(m, OFPXMT_OFB_IP_PROTO)) {
    case 17:
        return dst ? OFPXMT_OFB_UDP_DST : OFPXMT_OFB_UDP_SRC;
    case 132:
        return dst ? OFPXMT_OFB_SCTP_DST : OFPXMT_OFB_SCTP_SRC;
    default:
        return dst ? OFPXMT_OFB_TCP_DST : OFPXMT_OFB_TCP_SRC;
    }
}

static int parse_match(struct pctx *c, const struct jt_node *jm, struct ofp_match *m,
                       struct flow_json_form *form)
{
    const struct jt_node *k, *v;
    char path[PATH_MAX_LEN];
    const struct jt_node *tp[2] = {NULL, NULL};

    if (!jt_is_object(jm))
        return bad_type(c, "match", "object");
    jt_object_foreach(jm, k, v) {
        const char *key = jt_string(k);
        const struct mf_def *d = mf_by_name(key);
        path_join(path, sizeof(path), "match", ".", key);
        if (!d)
            return fail(c->err, c->errlen, "unknown field '%s'", path);
        if (d->kind == MK_TP) {
            /* Needs nw_proto, which may come later in the object. */
            tp[d->field == OFPXMT_OFB_TCP_DST] = v;
            continue;
        }
        int rc = parse_mf(c, d, v, path, false, m, &form->int_form);
        if (rc)
            return rc;
    }
    for (int dst = 0; dst < 2; dst++) {
        if (!tp[dst])
            continue;
        struct mf_def d = {dst ? "tp_dst" : "tp_src", (uint8_t)tp_field(m, dst), MK_TP};
        path_join(path, sizeof(path), "match", ".", d.name);
        if (ofp_match_has(m, d.field))
            return fail(c->err, c->errlen, "%s: same field as '%s'", path,
                        mf_name(d.field, 0));
        int rc = parse_mf(c, &d, tp[dst], path, false, m, &form->int_form);
        if (rc)
            return rc;
        form->tp_alias |= (uint8_t)(1u << dst);
    }

    struct ofp_err oe;
    if (ofp_match_check(m, &oe) == 0)
        return 0;
    /* Name the culprit: the field (highest first, as prerequisites point
     * down) whose removal makes the match acceptable. */
    char ename[80];
    ofp_err_format(oe, ename, sizeof(ename));
    for (int f = OFPXMT_OFB_COUNT - 1; f >= 0; f--) {
        if (!ofp_match_has(m, (unsigned)f))
            continue;
        struct ofp_match t = *m;
        struct ofp_err e2;
        ofp_match_clear(&t, (unsigned)f);
        if (ofp_match_check(&t, &e2) == 0)
            return fail(c->err, c->errlen, "match.%s: %s (%s)", mf_name((unsigned)f,
                        form->tp_alias),
                        oe.code == OFPBMC_BAD_PREREQ ? "prerequisite missing or different"
                                                     : "rejected by OpenFlow match checks",
                        ename);
    }
    return fail(c->err, c->errlen, "match: rejected by OpenFlow match checks (%s)", ename);
}

/* ---- actions ----------------------------------------------------------- */

/* Reject keys of obj not in the NULL-terminated allowed list. */
static int only_keys(struct pctx *c, const struct jt_node *obj, const char *path,
                     const char *const *ok)
{
    for (const struct jt_node *m = jt_object_first(obj); m; m = jt_object_next(obj, m)) {
        const char *key = jt_string(m);
        bool found = false;
        for (const char *const *k = ok; *k; k++)
            found = found || jt_same_key(*k, key);
        if (!found)
            return fail(c->err, c->errlen, "unknown field '%s.%s'", path, key);
    }
    return 0;
}

static const struct jt_node *need(struct pctx *c, const struct jt_node *obj, const char *path,
                                  const char *key, int *rc)
{
    const struct jt_node *v = jt_object_get(obj, key);
    if (!v)
        *rc = fail(c->err, c->errlen, "%s: missing field '%s'", path, key);
    return v;
}

static int parse_port(struct pctx *c, const struct jt_node *v, const char *path, uint32_t *port,
                      uint8_t *flags)
{
    static const char want[] = "port number 1..4294967040, or \"in_port\", \"normal\", "
                               "\"flood\", \"all\", \"controller\", \"local\"";
    if (jt_is_string(v)) {
        for (size_t i = 0; i < sizeof(port_names) / sizeof(port_names[0]); i++) {
            if (!strcasecmp(port_names[i].name, jt_string(v))) {
                *port = port_names[i].port;
                *flags |= FLOW_ACT_PORT_NAMED;
                return 0;
            }
        }
        return bad_value(c, path, want);
    }
    uint64_t p = 0;
    int r = int_of(v, &p);
    if (r == 0)
        return bad_type(c, path, want);
    /* OFPP_TABLE is for PACKET_OUT only; OFPP_ANY is no port at all. */
    if (r < 0 || p < 1 || p > OFPP_LOCAL || (p > OFPP_MAX && p < OFPP_IN_PORT) ||
        p == OFPP_TABLE)
        return bad_value(c, path, want);
    *port = (uint32_t)p;
    return 0;
}

/* One action object being parsed. */
struct act_in {
    struct pctx *c;
    const struct jt_node *ja;
    const char *path;
    struct ofp_action *a;
    uint8_t *flags;
    char sub[PATH_MAX_LEN + 32];     /* path of the member at hand, for errors */
};

/* Member key of the action: NULL with *rc set when required and missing. */
static const struct jt_node *act_arg(struct act_in *in, const char *key, bool required, int *rc)
{
    path_join(in->sub, sizeof(in->sub), in->path, ".", key);
    return required ? need(in->c, in->ja, in->path, key, rc) : jt_object_get(in->ja, key);
}

static int act_output(struct act_in *in)
{
    int rc = 0;
    const struct jt_node *v = act_arg(in, "port", true, &rc);
    if (!v)
        return rc;
    in->a->type = OFPAT_OUTPUT;
    in->a->u.output.max_len = OFPCML_NO_BUFFER;
    return parse_port(in->c, v, in->sub, &in->a->u.output.port, in->flags);
}

static int act_set_vlan(struct act_in *in)
{
    int rc = 0;
    uint64_t vid = 0;
    const struct jt_node *v = act_arg(in, "vlan_id", true, &rc);
    if (!v || (rc = get_uint(in->c, v, in->sub, 4095, &vid)))
        return rc;
    in->a->type = OFPAT_SET_FIELD;
    in->a->u.set_field.oxm_class = OFPXMC_OPENFLOW_BASIC;
    in->a->u.set_field.field = OFPXMT_OFB_VLAN_VID;
    in->a->u.set_field.len = 2;
    put_be(in->a->u.set_field.value, 2, vid | OFPVID_PRESENT);
    *in->flags |= FLOW_ACT_SET_VLAN;
    return 0;
}

static int act_push_vlan(struct act_in *in)
{
    int rc = 0;
    const struct jt_node *v = act_arg(in, "tag_type", false, &rc);

    in->a->type = OFPAT_PUSH_VLAN;
    in->a->u.ethertype = 0x8100;
    if (!v)
        return 0;    /* Kytos: anything but "s" is a C-tag */
    if (!jt_is_string(v))
        return bad_type(in->c, in->sub, "\"c\" or \"s\"");
    if (!strcmp(jt_string(v), "s"))
        in->a->u.ethertype = 0x88a8;
    else if (strcmp(jt_string(v), "c"))
        return bad_value(in->c, in->sub, "\"c\" or \"s\"");
    return 0;
}

static int act_pop_vlan(struct act_in *in)
{
    in->a->type = OFPAT_POP_VLAN;
    return 0;
}

static int act_set_queue(struct act_in *in)
{
    int rc = 0;
    uint64_t id = 0;
    const struct jt_node *v = act_arg(in, "queue_id", true, &rc);
    if (!v || (rc = get_uint(in->c, v, in->sub, OFPQ_ALL - 1, &id)))
        return rc;
    in->a->type = OFPAT_SET_QUEUE;
    in->a->u.queue_id = (uint32_t)id;
    return 0;
}

static int act_group(struct act_in *in)
{
    int rc = 0;
    uint64_t id = 0;
    const struct jt_node *v = act_arg(in, "group_id", true, &rc);
    if (!v || (rc = get_uint(in->c, v, in->sub, OFPG_MAX, &id)))
        return rc;
    in->a->type = OFPAT_GROUP;
    in->a->u.group_id = (uint32_t)id;
    return 0;
}

static int act_set_field(struct act_in *in)
{
    int rc = 0;
    const struct jt_node *jf, *jv;
    if (!(jf = act_arg(in, "field", true, &rc)) || !(jv = act_arg(in, "value", true, &rc)))
        return rc;
    path_join(in->sub, sizeof(in->sub), in->path, ".", "field");
    if (!jt_is_string(jf))
        return bad_type(in->c, in->sub, "match field name");
    const struct mf_def *d = mf_by_name(jt_string(jf));
    if (!d || d->kind == MK_TP)
        return bad_value(in->c, in->sub, "a match field name other than tp_src/tp_dst");
    path_join(in->sub, sizeof(in->sub), in->path, ".", "value");
    if (has_slash(jv))
        return bad_value(in->c, in->sub, "a value without mask");
    struct ofp_match tmp;
    uint64_t intf = 0;
    ofp_match_init(&tmp);
    if ((rc = parse_mf(in->c, d, jv, in->sub, true, &tmp, &intf)))
        return rc;
    in->a->type = OFPAT_SET_FIELD;
    in->a->u.set_field.oxm_class = OFPXMC_OPENFLOW_BASIC;
    in->a->u.set_field.field = d->field;
    in->a->u.set_field.len = (uint8_t)ofp_oxm_field_len(d->field);
    memcpy(in->a->u.set_field.value, ofp_match_value(&tmp, d->field), in->a->u.set_field.len);
    if (intf)
        *in->flags |= FLOW_ACT_VAL_INT;
    return 0;
}

/* Kytos' action types: the keys each takes, and its parser. */
static const struct action_def {
    const char *name;
    const char *const keys[4];
    int (*parse)(struct act_in *in);
} action_defs[] = {
    {"output", {"action_type", "port", NULL}, act_output},
    {"set_vlan", {"action_type", "vlan_id", NULL}, act_set_vlan},
    {"push_vlan", {"action_type", "tag_type", NULL}, act_push_vlan},
    {"pop_vlan", {"action_type", NULL}, act_pop_vlan},
    {"set_queue", {"action_type", "queue_id", NULL}, act_set_queue},
    {"group", {"action_type", "group_id", NULL}, act_group},
    {"set_field", {"action_type", "field", "value", NULL}, act_set_field},
};

static int parse_action(struct pctx *c, const struct jt_node *ja, const char *path,
                        struct ofp_action *a, uint8_t *flags)
{
    struct act_in in = {.c = c, .ja = ja, .path = path, .a = a, .flags = flags};
    int rc = 0;

    if (!jt_is_object(ja))
        return bad_type(c, path, "object");
    const struct jt_node *jt = act_arg(&in, "action_type", true, &rc);
    if (!jt)
        return rc;
    if (!jt_is_string(jt))
        return bad_type(c, in.sub, "string");
    memset(a, 0, sizeof(*a));
    *flags = 0;
    for (size_t i = 0; i < sizeof(action_defs) / sizeof(action_defs[0]); i++) {
        const struct action_def *d = &action_defs[i];
        if (!jt_same_key(jt_string(jt), d->name))
            continue;
        if ((rc = only_keys(c, ja, path, d->keys)))
            return rc;
        return d->parse(&in);
    }
    return bad_value(c, in.sub, "one of output, set_vlan, push_vlan, pop_vlan, set_queue, "
                                "group, set_field");
}

static int parse_actions(struct pctx *c, const struct jt_node *jl, const char *path,
                         struct ofp_action *arr, uint8_t *flags, uint16_t *n)
{
    char sub[PATH_MAX_LEN];

    if (!jt_is_array(jl))
        return bad_type(c, path, "array of action objects");
    if (jl->size > FM_FLOW_ACTIONS_MAX)
        return fail(c->err, c->errlen, "%s: at most %d actions", path, FM_FLOW_ACTIONS_MAX);
    size_t i;
    const struct jt_node *e;
    jt_array_foreach(jl, i, e) {
        path_index(sub, sizeof(sub), path, i);
        int rc = parse_action(c, e, sub, &arr[i], &flags[i]);
        if (rc)
            return rc;
    }
    *n = (uint16_t)jl->size;
    return 0;
}

int flow_json_parse_actions(const struct jt_node *list, const char *path, struct ofp_action *arr,
                            uint16_t *n, char *err, size_t errlen)
{
    struct pctx c = {err, errlen};
    uint8_t flags[FM_FLOW_ACTIONS_MAX];

    return parse_actions(&c, list, path, arr, flags, n);
}

/* ---- instructions ---------------------------------------------------------- */

/* One instruction object being parsed. */
struct inst_in {
    struct pctx *c;
    const struct jt_node *ji;
    const char *path;
    const char *type;
    struct fm_flow *out;
    struct flow_json_form *form;
    char sub[PATH_MAX_LEN + 32];
};

static const struct jt_node *inst_arg(struct inst_in *in, const char *key, bool required, int *rc)
{
    path_join(in->sub, sizeof(in->sub), in->path, ".", key);
    return required ? need(in->c, in->ji, in->path, key, rc) : jt_object_get(in->ji, key);
}

static int inst_actions(struct inst_in *in)
{
    bool apply = in->type[0] == 'a';
    struct ofp_instructions *ins = &in->out->mod.inst;
    int rc = 0;
    const struct jt_node *v = inst_arg(in, "actions", true, &rc);
    if (!v)
        return rc;
    struct ofp_actions *l = apply ? &ins->apply_actions : &ins->write_actions;
    return parse_actions(in->c, v, in->sub, apply ? in->out->apply : in->out->write,
                         apply ? in->form->apply_flags : in->form->write_flags, &l->n);
}

static int inst_clear_actions(struct inst_in *in)
{
    int rc = 0;
    const struct jt_node *v = inst_arg(in, "actions", false, &rc);
    if (v && !jt_is_array(v))
        return bad_type(in->c, in->sub, "empty array");
    if (v && v->size)
        return bad_value(in->c, in->sub, "empty array (clear_actions takes no actions)");
    return 0;
}

static int inst_goto_table(struct inst_in *in)
{
    int rc = 0;
    uint64_t x = 0;
    const struct jt_node *v = inst_arg(in, "table_id", true, &rc);
    if (!v || (rc = get_uint(in->c, v, in->sub, OFPTT_MAX, &x)))
        return rc;
    in->out->mod.inst.goto_table = (uint8_t)x;
    return 0;
}

static int inst_meter(struct inst_in *in)
{
    int rc = 0;
    uint64_t x = 0;
    const struct jt_node *v = inst_arg(in, "meter_id", true, &rc);
    if (!v || (rc = get_uint(in->c, v, in->sub, OFPM_MAX, &x)))
        return rc;
    if (x == 0)
        return bad_value(in->c, in->sub, "integer 1..4294901760");
    in->out->mod.inst.meter_id = (uint32_t)x;
    return 0;
}

static int inst_write_metadata(struct inst_in *in)
{
    struct ofp_instructions *ins = &in->out->mod.inst;
    int rc = 0;
    const struct jt_node *v = inst_arg(in, "metadata", true, &rc);
    if (!v || (rc = get_u64(in->c, v, in->sub, &ins->metadata)))
        return rc;
    ins->metadata_mask = UINT64_MAX;
    v = inst_arg(in, "metadata_mask", false, &rc);
    return v ? get_u64(in->c, v, in->sub, &ins->metadata_mask) : 0;
}

/* Kytos' instruction types: the keys each takes, its bit, its parser. */
static const struct inst_def {
    const char *name;
    const char *const keys[4];
    uint32_t bit;
    int (*parse)(struct inst_in *in);
} inst_defs[] = {
    {"apply_actions", {"instruction_type", "actions", NULL}, OFP_INST_APPLY_ACTIONS,
     inst_actions},
    {"write_actions", {"instruction_type", "actions", NULL}, OFP_INST_WRITE_ACTIONS,
     inst_actions},
    {"clear_actions", {"instruction_type", "actions", NULL}, OFP_INST_CLEAR_ACTIONS,
     inst_clear_actions},
    {"goto_table", {"instruction_type", "table_id", NULL}, OFP_INST_GOTO_TABLE,
     inst_goto_table},
    {"meter", {"instruction_type", "meter_id", NULL}, OFP_INST_METER, inst_meter},
    {"write_metadata", {"instruction_type", "metadata", "metadata_mask", NULL},
     OFP_INST_WRITE_METADATA, inst_write_metadata},
};

static int parse_instruction(struct pctx *c, const struct jt_node *ji, const char *path,
                             struct fm_flow *out, struct flow_json_form *form)
{
    struct inst_in in = {.c = c, .ji = ji, .path = path, .out = out, .form = form};
    int rc = 0;

    if (!jt_is_object(ji))
        return bad_type(c, path, "object");
    const struct jt_node *jt = inst_arg(&in, "instruction_type", true, &rc);
    if (!jt)
        return rc;
    if (!jt_is_string(jt))
        return bad_type(c, in.sub, "string");
    in.type = jt_string(jt);
    for (size_t i = 0; i < sizeof(inst_defs) / sizeof(inst_defs[0]); i++) {
        const struct inst_def *d = &inst_defs[i];
        if (!jt_same_key(in.type, d->name))
            continue;
        if (out->mod.inst.present & d->bit)
            return fail(c->err, c->errlen, "%s: instruction '%s' given twice", path, in.type);
        if ((rc = only_keys(c, ji, path, d->keys)) || (rc = d->parse(&in)))
            return rc;
        out->mod.inst.present |= d->bit;
        return 0;
    }
    return bad_value(c, in.sub, "one of apply_actions, write_actions, clear_actions, "
                                "goto_table, meter, write_metadata");
}

/* ---- the flow -------------------------------------------------------------- */

static int parse_u16_field(struct pctx *c, const struct jt_node *v, const char *name, uint16_t *out)
{
    uint64_t x = 0;
    int rc = get_uint(c, v, name, 65535, &x);
    if (!rc)
        *out = (uint16_t)x;
    return rc;
}

/* One flow object being parsed: the members that need the others are kept
 * for after the walk. */
struct flow_in {
    struct pctx c;
    bool for_delete;
    bool has_cookie;
    struct fm_flow *out;
    struct flow_json_form *form;
    const struct jt_node *jmatch, *jactions, *jinst;
    uint8_t *wire;                  /* the caller's, FLOW_JSON_WIRE_MAX bytes; or NULL */
    size_t *wire_len;
};

static int top_table_id(struct flow_in *in, const char *key, const struct jt_node *v)
{
    uint64_t x = 0;
    int rc = get_uint(&in->c, v, key, in->for_delete ? OFPTT_ALL : OFPTT_MAX, &x);
    in->out->mod.table_id = (uint8_t)x;
    return rc;
}

static int top_priority(struct flow_in *in, const char *key, const struct jt_node *v)
{
    return parse_u16_field(&in->c, v, key, &in->out->mod.priority);
}

static int top_idle_timeout(struct flow_in *in, const char *key, const struct jt_node *v)
{
    return parse_u16_field(&in->c, v, key, &in->out->mod.idle_timeout);
}

static int top_hard_timeout(struct flow_in *in, const char *key, const struct jt_node *v)
{
    return parse_u16_field(&in->c, v, key, &in->out->mod.hard_timeout);
}

static int top_cookie(struct flow_in *in, const char *key, const struct jt_node *v)
{
    in->has_cookie = true;
    return get_u64(&in->c, v, key, &in->out->mod.cookie);
}

static int top_cookie_mask(struct flow_in *in, const char *key, const struct jt_node *v)
{
    if (!in->for_delete)
        return fail(in->c.err, in->c.errlen, "cookie_mask: only allowed when deleting flows");
    in->form->has_cookie_mask = true;
    return get_u64(&in->c, v, key, &in->out->mod.cookie_mask);
}

static int top_owner(struct flow_in *in, const char *key, const struct jt_node *v)
{
    if (!jt_is_string(v))
        return bad_type(&in->c, key, "string");
    if (v->size >= FM_FLOW_OWNER_MAX || strlen(jt_string(v)) != v->size)
        return bad_value(&in->c, key, "string of at most 63 bytes without NUL");
    strcpy(in->out->owner, jt_string(v));
    in->form->has_owner = true;
    return 0;
}

static int top_match(struct flow_in *in, const char *key, const struct jt_node *v)
{
    (void)key;
    in->jmatch = v;
    return 0;
}

static int top_actions(struct flow_in *in, const char *key, const struct jt_node *v)
{
    (void)key;
    in->jactions = v;
    return 0;
}

static int top_instructions(struct flow_in *in, const char *key, const struct jt_node *v)
{
    (void)key;
    in->jinst = v;
    return 0;
}

/* The members of a Kytos flow. */
static const struct {
    const char *key;
    int (*parse)(struct flow_in *in, const char *key, const struct jt_node *v);
} flow_keys[] = {
    {"table_id", top_table_id},         {"priority", top_priority},
    {"idle_timeout", top_idle_timeout}, {"hard_timeout", top_hard_timeout},
    {"cookie", top_cookie},             {"cookie_mask", top_cookie_mask},
    {"owner", top_owner},               {"match", top_match},
    {"actions", top_actions},           {"instructions", top_instructions},
};

static void flow_defaults(struct fm_flow *out, struct flow_json_form *form, bool for_delete)
{
    struct ofp_flow_mod *fm = &out->mod;

    memset(out, 0, sizeof(*out));
    memset(form, 0, sizeof(*form));
    fm_flow_fixup(out);
    fm->command = for_delete ? OFPFC_DELETE : OFPFC_ADD;
    fm->priority = 0x8000;
    fm->buffer_id = OFP_NO_BUFFER;
    fm->out_port = OFPP_ANY;
    fm->out_group = OFPG_ANY;
    ofp_match_init(&fm->match);
}

/* "actions" (apply-actions) or "instructions", whichever was given. */
static int parse_treatment(struct flow_in *in)
{
    struct fm_flow *out = in->out;
    struct ofp_flow_mod *fm = &out->mod;
    int rc;

    if (in->jactions) {
        in->form->treatment = FLOW_FORM_ACTIONS;
        rc = parse_actions(&in->c, in->jactions, "actions", out->apply, in->form->apply_flags,
                           &fm->inst.apply_actions.n);
        if (rc)
            return rc;
        if (fm->inst.apply_actions.n)
            fm->inst.present |= OFP_INST_APPLY_ACTIONS;
        return 0;
    }
    if (!in->jinst)
        return 0;
    char path[PATH_MAX_LEN];
    in->form->treatment = FLOW_FORM_INSTRUCTIONS;
    if (!jt_is_array(in->jinst))
        return bad_type(&in->c, "instructions", "array of instruction objects");
    size_t i;
    const struct jt_node *e;
    jt_array_foreach(in->jinst, i, e) {
        path_index(path, sizeof(path), "instructions", i);
        if ((rc = parse_instruction(&in->c, e, path, out, in->form)))
            return rc;
    }
    if ((fm->inst.present & OFP_INST_GOTO_TABLE) && fm->inst.goto_table <= fm->table_id)
        return fail(in->c.err, in->c.errlen, "instructions: goto_table.table_id must be "
                    "greater than the flow's table_id %u", fm->table_id);
    return 0;
}

/* Last line of defence: what we accept must be a FLOW_MOD a switch would
 * take apart without complaint. */
static int check_encodable(struct flow_in *in)
{
    uint8_t *buf = in->wire ? in->wire : malloc(FLOW_JSON_WIRE_MAX);
    struct ofp_buf b;
    struct ofp_err oe;

    if (!buf)
        return fail(in->c.err, in->c.errlen, "out of memory");
    ofp_buf_init(&b, buf, FLOW_JSON_WIRE_MAX);
    int rc = ofp_flow_mod_encode(&b, 0, &in->out->mod);
    if (rc == 0 && ofp_validate(b.data, b.len, &oe) != 0)
        rc = -EBADMSG;
    if (rc == 0 && in->wire)
        *in->wire_len = b.len;
    if (!in->wire)
        free(buf);
    if (rc == -EBADMSG) {
        char en[80];
        ofp_err_format(oe, en, sizeof(en));
        return fail(in->c.err, in->c.errlen, "flow rejected by OpenFlow checks (%s)", en);
    }
    if (rc)
        return fail(in->c.err, in->c.errlen, "flow cannot be encoded as a FLOW_MOD (%s)",
                    strerror(-rc));
    return 0;
}

int flow_json_parse(const struct jt_node *flow, bool for_delete, struct fm_flow *out,
                    struct flow_json_form *form, char *err, size_t errlen)
{
    return flow_json_parse_wire(flow, for_delete, out, form, NULL, NULL, err, errlen);
}

int flow_json_parse_wire(const struct jt_node *flow, bool for_delete, struct fm_flow *out,
                         struct flow_json_form *form, uint8_t *wire, size_t *wire_len,
                         char *err, size_t errlen)
{
    struct flow_json_form scratch;
    struct flow_in in = {.c = {err, errlen}, .for_delete = for_delete, .out = out,
                         .form = form ? form : &scratch, .wire = wire, .wire_len = wire_len};
    const struct jt_node *k, *v;
    int rc = 0;

    if (err && errlen)
        err[0] = '\0';
    flow_defaults(out, in.form, for_delete);
    if (!jt_is_object(flow))
        return bad_type(&in.c, "flows[]", "object");
    jt_object_foreach(flow, k, v) {
        const char *key = jt_string(k);
        size_t k = 0;
        while (k < sizeof(flow_keys) / sizeof(flow_keys[0]) && !jt_same_key(flow_keys[k].key, key))
            k++;
        if (k == sizeof(flow_keys) / sizeof(flow_keys[0]))
            return fail(err, errlen, "unknown field '%s'", key);
        if ((rc = flow_keys[k].parse(&in, key, v)))
            return rc;
    }
    if (in.jactions && in.jinst)
        return fail(err, errlen, "actions and instructions are mutually exclusive");
    /* Kytos-ng's rule and words: a delete selects by cookie only under a mask. */
    if (for_delete && in.has_cookie && !in.form->has_cookie_mask)
        return fail(err, errlen, "cookie is set, cookie_mask should be set too when deleting "
                    "flows");
    if (for_delete && !in.has_cookie && in.form->has_cookie_mask)
        return fail(err, errlen, "cookie_mask is set, cookie should be set too when deleting "
                    "flows");
    if (in.jmatch) {
        in.form->has_match = true;
        if ((rc = parse_match(&in.c, in.jmatch, &out->mod.match, in.form)))
            return rc;
    }
    if ((rc = parse_treatment(&in)))
        return rc;
    return check_encodable(&in);
}

/* ---- rendering ------------------------------------------------------------- */

static json_t *render_mac(const uint8_t *v)
{
    char s[18];
    snprintf(s, sizeof(s), "%02x:%02x:%02x:%02x:%02x:%02x", v[0], v[1], v[2], v[3], v[4], v[5]);
    return json_string(s);
}

/* The JSON value of field f of m, as parse_mf reads it back. */
static json_t *render_mf(const struct ofp_match *m, unsigned f, unsigned kind, uint64_t int_form)
{
    const uint8_t *v = ofp_match_value(m, f);
    const uint8_t *mk = ofp_match_mask(m, f);
    bool masked = ofp_match_is_masked(m, f);
    unsigned len = ofp_oxm_field_len(f);
    char s[2 * INET6_ADDRSTRLEN + 8];

    if (int_form >> f & 1) {
        return u64_json(len > 8 ? get_be(v + len - 8, 8) : get_be(v, len));
    }
    switch (kind) {
    case MK_UINT:
    case MK_TP:
        return json_integer((json_int_t)get_be(v, len));
    case MK_UINT_MASK:
        if (!masked)
            return u64_json(get_be(v, len));
        snprintf(s, sizeof(s), "%" PRIu64 "/%" PRIu64, get_be(v, len), get_be(mk, len));
        return json_string(s);
    case MK_VLAN: {
        unsigned x = (unsigned)get_be(v, 2);
        /* 0 reads as untagged (Kytos), so a tagged VID 0 is written with a
         * full mask, which reads back as the same exact match. */
        if (!masked && x == OFPVID_PRESENT)
            return json_string("4096/8191");
        if (!masked)
            return x & OFPVID_PRESENT ? json_integer(x & 0xfff) : json_string("untagged");
        unsigned y = (unsigned)get_be(mk, 2);
        if ((x & 0xfff) == 0 && y == OFPVID_PRESENT)
            return json_string("4096/4096");
        snprintf(s, sizeof(s), "%u/%u", x & 0xfff, y & 0xfff);
        return json_string(s);
    }
    case MK_MAC: {
        json_t *a = render_mac(v);
        if (!masked || !a)
            return a;
        json_t *b = render_mac(mk);
        if (!b) {
            json_decref(a);
            return NULL;
        }
        snprintf(s, sizeof(s), "%s/%s", json_string_value(a), json_string_value(b));
        json_decref(a);
        json_decref(b);
        return json_string(s);
    }
    case MK_IPV4:
    case MK_IPV6: {
        int af = kind == MK_IPV4 ? AF_INET : AF_INET6;
        if (!inet_ntop(af, v, s, INET6_ADDRSTRLEN))
            return NULL;
        if (masked) {
            size_t n = strlen(s);
            int p = mask_prefix(mk, len);
            if (p >= 0)
                snprintf(s + n, sizeof(s) - n, "/%d", p);
            else if (!inet_ntop(af, mk, s + n + 1, INET6_ADDRSTRLEN))
                return NULL;
            else
                s[n] = '/';
        }
        return json_string(s);
    }
    default:
        return NULL;
    }
}

static const struct mf_def *mf_for_field(unsigned f, uint8_t tp_alias)
{
    bool l4 = f >= OFPXMT_OFB_TCP_SRC && f <= OFPXMT_OFB_SCTP_DST;
    bool dst = l4 && (f - OFPXMT_OFB_TCP_SRC) % 2;
    if (l4 && (tp_alias >> dst & 1 || f == OFPXMT_OFB_TCP_SRC || f == OFPXMT_OFB_TCP_DST))
        return mf_by_name(dst ? "tp_dst" : "tp_src");
    for (size_t i = 0; i < MF_COUNT; i++) {
        if (mf_table[i].field == f && mf_table[i].kind != MK_TP)
            return &mf_table[i];
    }
    return NULL;
}

static int set_new(json_t *obj, const char *key, json_t *v)
{
    return v ? json_object_set_new(obj, key, v) : -1;
}

static json_t *render_match(const struct ofp_match *m, const struct flow_json_form *form)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    for (unsigned fld = 0; fld < OFPXMT_OFB_COUNT; fld++) {
        if (!ofp_match_has(m, fld))
            continue;
        const struct mf_def *d = mf_for_field(fld, form->tp_alias);
        if (!d || set_new(o, d->name, render_mf(m, fld, d->kind, form->int_form))) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

static json_t *render_action(const struct ofp_action *a, uint8_t flags)
{
    json_t *o = json_object();
    int bad = !o;

    switch (a->type) {
    case OFPAT_OUTPUT: {
        json_t *p = NULL;
        if (flags & FLOW_ACT_PORT_NAMED) {
            for (size_t i = 0; i < sizeof(port_names) / sizeof(port_names[0]); i++) {
                if (port_names[i].port == a->u.output.port)
                    p = json_string(port_names[i].name);
            }
        } else {
            p = json_integer(a->u.output.port);
        }
        bad = bad || set_new(o, "action_type", json_string("output")) || set_new(o, "port", p);
        break;
    }
    case OFPAT_PUSH_VLAN:
        bad = bad || set_new(o, "action_type", json_string("push_vlan")) ||
              set_new(o, "tag_type", json_string(a->u.ethertype == 0x88a8 ? "s" : "c"));
        break;
    case OFPAT_POP_VLAN:
        bad = bad || set_new(o, "action_type", json_string("pop_vlan"));
        break;
    case OFPAT_SET_QUEUE:
        bad = bad || set_new(o, "action_type", json_string("set_queue")) ||
              set_new(o, "queue_id", json_integer(a->u.queue_id));
        break;
    case OFPAT_GROUP:
        bad = bad || set_new(o, "action_type", json_string("group")) ||
              set_new(o, "group_id", json_integer(a->u.group_id));
        break;
    case OFPAT_SET_FIELD: {
        unsigned fld = a->u.set_field.field;
        if (flags & FLOW_ACT_SET_VLAN) {
            bad = bad || set_new(o, "action_type", json_string("set_vlan")) ||
                  set_new(o, "vlan_id", json_integer(get_be(a->u.set_field.value, 2) & 0xfff));
            break;
        }
        struct ofp_match tmp;
        ofp_match_init(&tmp);
        const struct mf_def *d = mf_for_field(fld, 0);
        bad = bad || !d || ofp_match_set(&tmp, fld, a->u.set_field.value, NULL) ||
              set_new(o, "action_type", json_string("set_field")) ||
              set_new(o, "field", json_string(d->name)) ||
              set_new(o, "value", render_mf(&tmp, fld, d->kind,
                                            flags & FLOW_ACT_VAL_INT ? 1ull << fld : 0));
        break;
    }
    default:
        bad = 1;
    }
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *render_actions(const struct ofp_action *arr, const uint8_t *flags, uint16_t n)
{
    json_t *l = json_array();
    for (uint16_t i = 0; l && i < n; i++) {
        if (json_array_append_new(l, render_action(&arr[i], flags[i]))) {
            json_decref(l);
            return NULL;
        }
    }
    return l;
}

static json_t *inst_obj(const char *type)
{
    json_t *o = json_object();
    if (o && set_new(o, "instruction_type", json_string(type))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *render_instructions(const struct fm_flow *f, const struct flow_json_form *form)
{
    const struct ofp_instructions *in = &f->mod.inst;
    json_t *l = json_array();
    json_t *o;
    int bad = !l;

    /* Execution order, the order ofp_instructions_encode uses too. */
    if (!bad && (in->present & OFP_INST_METER)) {
        o = inst_obj("meter");
        bad = !o || set_new(o, "meter_id", json_integer(in->meter_id)) ||
              json_array_append_new(l, o);
    }
    if (!bad && (in->present & OFP_INST_APPLY_ACTIONS)) {
        o = inst_obj("apply_actions");
        bad = !o ||
              set_new(o, "actions",
                      render_actions(f->apply, form->apply_flags, in->apply_actions.n)) ||
              json_array_append_new(l, o);
    }
    if (!bad && (in->present & OFP_INST_CLEAR_ACTIONS)) {
        o = inst_obj("clear_actions");
        bad = !o || json_array_append_new(l, o);
    }
    if (!bad && (in->present & OFP_INST_WRITE_ACTIONS)) {
        o = inst_obj("write_actions");
        bad = !o ||
              set_new(o, "actions",
                      render_actions(f->write, form->write_flags, in->write_actions.n)) ||
              json_array_append_new(l, o);
    }
    if (!bad && (in->present & OFP_INST_WRITE_METADATA)) {
        o = inst_obj("write_metadata");
        bad = !o || set_new(o, "metadata", u64_json(in->metadata)) ||
              set_new(o, "metadata_mask", u64_json(in->metadata_mask)) ||
              json_array_append_new(l, o);
    }
    if (!bad && (in->present & OFP_INST_GOTO_TABLE)) {
        o = inst_obj("goto_table");
        bad = !o || set_new(o, "table_id", json_integer(in->goto_table)) ||
              json_array_append_new(l, o);
    }
    if (bad) {
        json_decref(l);
        return NULL;
    }
    return l;
}

json_t *flow_json_render(const struct fm_flow *f, const struct flow_json_form *form)
{
    const struct ofp_flow_mod *fm = &f->mod;
    json_t *o = json_object();
    int bad = !o;

    bad = bad || set_new(o, "table_id", json_integer(fm->table_id)) ||
          set_new(o, "priority", json_integer(fm->priority)) ||
          set_new(o, "idle_timeout", json_integer(fm->idle_timeout)) ||
          set_new(o, "hard_timeout", json_integer(fm->hard_timeout));
    /* A delete selects by cookie only with its mask (Kytos' rule, which the
     * parser holds to): a delete without one renders without a cookie. */
    if (!bad && (!fm_flow_is_delete(f) || form->has_cookie_mask))
        bad = set_new(o, "cookie", u64_json(fm->cookie));
    if (!bad && form->has_cookie_mask)
        bad = set_new(o, "cookie_mask", u64_json(fm->cookie_mask));
    if (!bad && form->has_owner)
        bad = set_new(o, "owner", json_string(f->owner));
    if (!bad && form->has_match)
        bad = set_new(o, "match", render_match(&fm->match, form));
    if (!bad && form->treatment == FLOW_FORM_ACTIONS)
        bad = set_new(o, "actions",
                      render_actions(f->apply, form->apply_flags, fm->inst.apply_actions.n));
    if (!bad && form->treatment == FLOW_FORM_INSTRUCTIONS)
        bad = set_new(o, "instructions", render_instructions(f, form));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

void flow_json_form_of(const struct fm_flow *f, struct flow_json_form *out)
{
    const struct ofp_flow_mod *fm = &f->mod;

    memset(out, 0, sizeof(*out));
    out->has_match = fm->match.present != 0 || fm->match.other_len != 0;
    out->treatment = (fm->inst.present & ~OFP_INST_APPLY_ACTIONS) ? FLOW_FORM_INSTRUCTIONS
                                                                  : FLOW_FORM_ACTIONS;
}

int flow_json_parse_text(const char *text, size_t len, bool for_delete, struct fm_flow *out,
                         struct flow_json_form *form, char *err, size_t errlen)
{
    struct jt_tape t = {0};
    int rc = jt_parse(&t, text, len, JT_MARKERS);

    if (rc == 0)
        rc = flow_json_parse(jt_root(&t), for_delete, out, form, err, errlen);
    else
        rc = fail(err, errlen, "not JSON: %s", rc == -EINVAL ? t.err : strerror(-rc));
    jt_free(&t);
    return rc;
}

int flow_json_parse_json(const json_t *flow, bool for_delete, struct fm_flow *out,
                         struct flow_json_form *form, char *err, size_t errlen)
{
    if (!json_is_object(flow)) {
        struct pctx c = {err, errlen};
        flow_defaults(out, form ? form : &(struct flow_json_form){0}, for_delete);
        return bad_type(&c, "flows[]", "object");
    }
    char *text = json_dumps(flow, JSON_COMPACT);
    if (!text)
        return fail(err, errlen, "out of memory");
    int rc = flow_json_parse_text(text, json_u64_fixup(text), for_delete, out, form, err, errlen);
    free(text);
    return rc;
}

int flow_json_record(const char *text, size_t len, struct fm_flow *out)
{
    char err[256];
    return flow_json_parse_text(text, len, false, out, NULL, err, sizeof(err)) < 0 ? -EINVAL : 0;
}
