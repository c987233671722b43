/*
 * ofp_oxm: the OXM basic field table and everything done with a match
 * (see ofp_oxm.h). One row per field says where it lives in struct
 * ofp_match_fields, its width, whether the spec allows a mask, how to print
 * it, and its prerequisite; every function here is driven by that row.
 */
#include "ofp_oxm.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "ofcd_fnv.h"
#include "ofp_priv.h"

enum fmt { FMT_DEC, FMT_HEX, FMT_MAC, FMT_IPV4, FMT_IPV6 };

enum prereq {
    PRE_NONE,
    PRE_PRESENT,              /* the prerequisite field must be present */
    PRE_VALUE,                /* ... and exactly equal to one of vals[] */
    PRE_VLAN,                 /* VLAN_VID with OFPVID_PRESENT set in value and mask */
};

struct field_info {
    const char *name;
    uint8_t off;              /* in struct ofp_match_fields */
    uint8_t len;
    bool maskable;
    uint8_t fmt;
    uint64_t width;           /* valid value bits (fields <= 8 bytes); 0 = every bit */
    uint8_t pre;
    uint8_t pre_field;
    uint16_t pre_vals[2];     /* the first n_pre_vals are the accepted values */
    uint8_t n_pre_vals;
};

#define OFF(m) (uint8_t) offsetof(struct ofp_match_fields, m)
#define LEN(m) (uint8_t) sizeof(((struct ofp_match_fields *)0)->m)
/* FLD expands its arguments first so NOPRE/ETH/PROTO can supply several. */
#define FLD(...) FLD_(__VA_ARGS__)
#define FLD_(id, m, mask, fmt, w, pre, pf, nv, v0, v1)                                      \
    [OFPXMT_OFB_##id] = {#m, OFF(m), LEN(m), mask, fmt, w, pre, OFPXMT_OFB_##pf, {v0, v1}, nv}

#define NOPRE PRE_NONE, IN_PORT, 0, 0, 0
#define ETH(n, a, b) PRE_VALUE, ETH_TYPE, n, a, b
#define PROTO(a) PRE_VALUE, IP_PROTO, 1, a, 0
#define IP_ANY ETH(2, 0x0800, 0x86dd)

static const struct field_info fields[OFPXMT_OFB_COUNT] = {
    FLD(IN_PORT, in_port, false, FMT_DEC, 0, NOPRE),
    FLD(IN_PHY_PORT, in_phy_port, false, FMT_DEC, 0, PRE_PRESENT, IN_PORT, 0, 0, 0),
    FLD(METADATA, metadata, true, FMT_HEX, 0, NOPRE),
    FLD(ETH_DST, eth_dst, true, FMT_MAC, 0, NOPRE),
    FLD(ETH_SRC, eth_src, true, FMT_MAC, 0, NOPRE),
    FLD(ETH_TYPE, eth_type, false, FMT_HEX, 0, NOPRE),
    FLD(VLAN_VID, vlan_vid, true, FMT_HEX, 0x1fff, NOPRE),
    FLD(VLAN_PCP, vlan_pcp, false, FMT_DEC, 0x7, PRE_VLAN, VLAN_VID, 0, 0, 0),
    FLD(IP_DSCP, ip_dscp, false, FMT_DEC, 0x3f, IP_ANY),
    FLD(IP_ECN, ip_ecn, false, FMT_DEC, 0x3, IP_ANY),
    FLD(IP_PROTO, ip_proto, false, FMT_DEC, 0, IP_ANY),
    FLD(IPV4_SRC, ipv4_src, true, FMT_IPV4, 0, ETH(1, 0x0800, 0)),
    FLD(IPV4_DST, ipv4_dst, true, FMT_IPV4, 0, ETH(1, 0x0800, 0)),
    FLD(TCP_SRC, tcp_src, false, FMT_DEC, 0, PROTO(6)),
    FLD(TCP_DST, tcp_dst, false, FMT_DEC, 0, PROTO(6)),
    FLD(UDP_SRC, udp_src, false, FMT_DEC, 0, PROTO(17)),
    FLD(UDP_DST, udp_dst, false, FMT_DEC, 0, PROTO(17)),
    FLD(SCTP_SRC, sctp_src, false, FMT_DEC, 0, PROTO(132)),
    FLD(SCTP_DST, sctp_dst, false, FMT_DEC, 0, PROTO(132)),
    FLD(ICMPV4_TYPE, icmpv4_type, false, FMT_DEC, 0, PROTO(1)),
    FLD(ICMPV4_CODE, icmpv4_code, false, FMT_DEC, 0, PROTO(1)),
    FLD(ARP_OP, arp_op, false, FMT_DEC, 0, ETH(1, 0x0806, 0)),
    FLD(ARP_SPA, arp_spa, true, FMT_IPV4, 0, ETH(1, 0x0806, 0)),
    FLD(ARP_TPA, arp_tpa, true, FMT_IPV4, 0, ETH(1, 0x0806, 0)),
    FLD(ARP_SHA, arp_sha, true, FMT_MAC, 0, ETH(1, 0x0806, 0)),
    FLD(ARP_THA, arp_tha, true, FMT_MAC, 0, ETH(1, 0x0806, 0)),
    FLD(IPV6_SRC, ipv6_src, true, FMT_IPV6, 0, ETH(1, 0x86dd, 0)),
    FLD(IPV6_DST, ipv6_dst, true, FMT_IPV6, 0, ETH(1, 0x86dd, 0)),
    FLD(IPV6_FLABEL, ipv6_flabel, true, FMT_HEX, 0xfffff, ETH(1, 0x86dd, 0)),
    FLD(ICMPV6_TYPE, icmpv6_type, false, FMT_DEC, 0, PROTO(58)),
    FLD(ICMPV6_CODE, icmpv6_code, false, FMT_DEC, 0, PROTO(58)),
    FLD(IPV6_ND_TARGET, ipv6_nd_target, false, FMT_IPV6, 0,
        PRE_VALUE, ICMPV6_TYPE, 2, 135, 136),
    FLD(IPV6_ND_SLL, ipv6_nd_sll, false, FMT_MAC, 0, PRE_VALUE, ICMPV6_TYPE, 1, 135, 0),
    FLD(IPV6_ND_TLL, ipv6_nd_tll, false, FMT_MAC, 0, PRE_VALUE, ICMPV6_TYPE, 1, 136, 0),
    FLD(MPLS_LABEL, mpls_label, false, FMT_DEC, 0xfffff, ETH(2, 0x8847, 0x8848)),
    FLD(MPLS_TC, mpls_tc, false, FMT_DEC, 0x7, ETH(2, 0x8847, 0x8848)),
    FLD(MPLS_BOS, mpls_bos, false, FMT_DEC, 0x1, ETH(2, 0x8847, 0x8848)),
    FLD(PBB_ISID, pbb_isid, true, FMT_DEC, 0, ETH(1, 0x88e7, 0)),
    FLD(TUNNEL_ID, tunnel_id, true, FMT_HEX, 0, NOPRE),
    FLD(IPV6_EXTHDR, ipv6_exthdr, true, FMT_HEX, 0x1ff, ETH(1, 0x86dd, 0)),
};

static const struct field_info *info(unsigned field)
{
    return field < OFPXMT_OFB_COUNT ? &fields[field] : NULL;
}

/* Big-endian n-byte (n <= 8) integer. */
static uint64_t rd_be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

static void wr_be(uint8_t *p, unsigned n, uint64_t v)
{
    for (unsigned i = n; i-- > 0;) {
        p[i] = (uint8_t)v;
        v >>= 8;
    }
}

/* All the bits a value of the field may have, as bytes. */
static void width_bytes(const struct field_info *fi, uint8_t *out)
{
    if (fi->width)
        wr_be(out, fi->len, fi->width);
    else
        memset(out, 0xff, fi->len);
}

/* ---- the field table ---------------------------------------------------- */

const char *ofp_oxm_field_name(unsigned field)
{
    const struct field_info *fi = info(field);
    return fi ? fi->name : NULL;
}

int ofp_oxm_field_from_name(const char *name)
{
    if (!name)
        return -ENOENT;
    for (unsigned f = 0; f < OFPXMT_OFB_COUNT; f++)
        if (strcmp(fields[f].name, name) == 0)
            return (int)f;
    return -ENOENT;
}

unsigned ofp_oxm_field_len(unsigned field)
{
    const struct field_info *fi = info(field);
    return fi ? fi->len : 0;
}

bool ofp_oxm_field_maskable(unsigned field)
{
    const struct field_info *fi = info(field);
    return fi && fi->maskable;
}

bool ofp_oxm_value_ok(unsigned field, const uint8_t *value)
{
    const struct field_info *fi = info(field);
    if (!fi)
        return false;
    if (!fi->width)
        return true;
    return (rd_be(value, fi->len) & ~fi->width) == 0;
}

/* ---- building and reading ------------------------------------------------ */

void ofp_match_init(struct ofp_match *m)
{
    memset(m, 0, sizeof(*m));
}

int ofp_match_set(struct ofp_match *m, unsigned field, const void *value, const void *mask)
{
    const struct field_info *fi = info(field);
    uint8_t *val, *msk;

    if (!fi || !value || (mask && !fi->maskable))
        return -EINVAL;
    val = (uint8_t *)&m->val + fi->off;
    msk = (uint8_t *)&m->mask + fi->off;
    memcpy(val, value, fi->len);
    m->present |= 1ull << field;
    m->masked &= ~(1ull << field);
    memset(msk, 0, fi->len);
    if (mask) {
        uint8_t w[16];
        bool full = true;
        width_bytes(fi, w);
        for (unsigned i = 0; i < fi->len; i++) {
            msk[i] = ((const uint8_t *)mask)[i] & w[i];
            if (msk[i] != w[i])
                full = false;
        }
        if (full)
            memset(msk, 0, fi->len);
        else
            m->masked |= 1ull << field;
    }
    return 0;
}

int ofp_match_set_uint(struct ofp_match *m, unsigned field, uint64_t value)
{
    uint8_t v[8];
    const struct field_info *fi = info(field);
    if (!fi || fi->len > 8)
        return -EINVAL;
    wr_be(v, fi->len, value);
    return ofp_match_set(m, field, v, NULL);
}

int ofp_match_set_uint_masked(struct ofp_match *m, unsigned field, uint64_t value,
                              uint64_t mask)
{
    uint8_t v[8], k[8];
    const struct field_info *fi = info(field);
    if (!fi || fi->len > 8)
        return -EINVAL;
    wr_be(v, fi->len, value);
    wr_be(k, fi->len, mask);
    return ofp_match_set(m, field, v, k);
}

void ofp_match_clear(struct ofp_match *m, unsigned field)
{
    const struct field_info *fi = info(field);
    if (!fi)
        return;
    memset((uint8_t *)&m->val + fi->off, 0, fi->len);
    memset((uint8_t *)&m->mask + fi->off, 0, fi->len);
    m->present &= ~(1ull << field);
    m->masked &= ~(1ull << field);
}

const uint8_t *ofp_match_value(const struct ofp_match *m, unsigned field)
{
    const struct field_info *fi = info(field);
    return fi ? (const uint8_t *)&m->val + fi->off : NULL;
}

const uint8_t *ofp_match_mask(const struct ofp_match *m, unsigned field)
{
    const struct field_info *fi = info(field);
    return fi ? (const uint8_t *)&m->mask + fi->off : NULL;
}

uint64_t ofp_match_get_uint(const struct ofp_match *m, unsigned field)
{
    const struct field_info *fi = info(field);
    if (!fi || fi->len > 8 || !ofp_match_has(m, field))
        return 0;
    return rd_be((const uint8_t *)&m->val + fi->off, fi->len);
}

uint64_t ofp_match_get_mask(const struct ofp_match *m, unsigned field)
{
    const struct field_info *fi = info(field);
    if (!fi || fi->len > 8 || !ofp_match_has(m, field))
        return 0;
    if (ofp_match_is_masked(m, field))
        return rd_be((const uint8_t *)&m->mask + fi->off, fi->len);
    return fi->width ? fi->width : (fi->len == 8 ? ~0ull : (1ull << (8 * fi->len)) - 1);
}

/* ---- checks -------------------------------------------------------------- */

static bool prereq_ok(const struct ofp_match *m, const struct field_info *fi)
{
    unsigned pf = fi->pre_field;

    switch (fi->pre) {
    case PRE_NONE:
        return true;
    case PRE_PRESENT:
        return ofp_match_has(m, pf);
    case PRE_VLAN: {
        if (!ofp_match_has(m, pf))
            return false;
        uint64_t v = ofp_match_get_uint(m, pf), k = ofp_match_get_mask(m, pf);
        return (v & OFPVID_PRESENT) && (k & OFPVID_PRESENT);
    }
    default: {
        /* The prerequisite fields (ETH_TYPE, IP_PROTO, ICMPV6_TYPE) cannot
         * carry a mask, so an exact comparison is the whole story. */
        if (!ofp_match_has(m, pf) || ofp_match_is_masked(m, pf))
            return false;
        uint64_t v = ofp_match_get_uint(m, pf);
        for (unsigned i = 0; i < fi->n_pre_vals; i++)
            if (v == fi->pre_vals[i])
                return true;
        return false;
    }
    }
}

/* The fields present, in field order (the wire's order), one per turn:
 * a match holds a handful of the 40 fields, and every FLOW_MOD and
 * PACKET_IN passes through the loops below. */
#define FOR_EACH_PRESENT(m, f)                                                              \
    for (uint64_t bits_ = (m)->present & ((1ull << OFPXMT_OFB_COUNT) - 1);                 \
         bits_ && ((f) = (unsigned)__builtin_ctzll(bits_), 1); bits_ &= bits_ - 1)

int ofp_match_check(const struct ofp_match *m, struct ofp_err *err)
{
    unsigned f;

    if (m->present >> OFPXMT_OFB_COUNT || (m->masked & ~m->present))
        return ofp_fail(err, OFPET_BAD_MATCH, OFPBMC_BAD_FIELD);
    FOR_EACH_PRESENT(m, f) {
        const struct field_info *fi = &fields[f];
        const uint8_t *val = (const uint8_t *)&m->val + fi->off;
        if (ofp_match_is_masked(m, f) && !fi->maskable)
            return ofp_fail(err, OFPET_BAD_MATCH, OFPBMC_BAD_MASK);
        if (!ofp_oxm_value_ok(f, val))
            return ofp_fail(err, OFPET_BAD_MATCH, OFPBMC_BAD_VALUE);
        if (ofp_match_is_masked(m, f)) {
            const uint8_t *msk = (const uint8_t *)&m->mask + fi->off;
            for (unsigned i = 0; i < fi->len; i++)
                if (val[i] & ~msk[i])
                    return ofp_fail(err, OFPET_BAD_MATCH, OFPBMC_BAD_WILDCARDS);
        }
        if (!prereq_ok(m, fi))
            return ofp_fail(err, OFPET_BAD_MATCH, OFPBMC_BAD_PREREQ);
    }
    return 0;
}

/* ---- wire form ----------------------------------------------------------- */

static size_t oxm_bytes(const struct ofp_match *m)
{
    size_t n = 0;
    unsigned f;
    FOR_EACH_PRESENT(m, f)
        n += 4u + fields[f].len * (ofp_match_is_masked(m, f) ? 2u : 1u);
    return n + m->other_len;
}

size_t ofp_match_wire_len(const struct ofp_match *m)
{
    return OFP_PAD8(sizeof(struct ofp13_match) + oxm_bytes(m));
}

int ofp_match_encode(struct ofp_buf *b, const struct ofp_match *m)
{
    size_t len = sizeof(struct ofp13_match) + oxm_bytes(m);
    uint8_t *p;
    unsigned f;

    if (len > 0xffff || m->other_len > OFP_MATCH_OTHER_MAX)
        return -EINVAL;
    p = ofp_buf_put(b, OFP_PAD8(len));
    if (!p)
        return -ENOSPC;
    struct ofp13_match *w = (void *)p;
    w->type = htobe16(OFPMT_OXM);
    w->length = htobe16((uint16_t)len);
    p += sizeof(*w);
    FOR_EACH_PRESENT(m, f) {
        const struct field_info *fi = &fields[f];
        bool hm = ofp_match_is_masked(m, f);
        uint32_t h = OFP13_OXM_HEADER(OFPXMC_OPENFLOW_BASIC, f, hm, fi->len * (hm ? 2 : 1));
        uint32_t hbe = htobe32(h);
        memcpy(p, &hbe, 4);
        memcpy(p + 4, (const uint8_t *)&m->val + fi->off, fi->len);
        p += 4 + fi->len;
        if (hm) {
            memcpy(p, (const uint8_t *)&m->mask + fi->off, fi->len);
            p += fi->len;
        }
    }
    if (m->other_len)
        memcpy(p, m->other, m->other_len);
    return 0;
}

int ofp_oxm_parse(const uint8_t *p, size_t avail, struct ofp_oxm_tlv *out)
{
    if (avail < 4)
        return -EINVAL;
    uint32_t h = ofp_rd32(p);
    out->oxm_class = OFP13_OXM_CLASS(h);
    out->field = OFP13_OXM_FIELD(h);
    out->hasmask = OFP13_OXM_HASMASK(h);
    out->len = OFP13_OXM_LENGTH(h);
    out->payload = p + 4;
    if (out->len > avail - 4)
        return -EINVAL;
    return 0;
}

int ofp_match_decode(const uint8_t *p, size_t avail, struct ofp_match *m, size_t *used,
                     struct ofp_err *err)
{
    if (avail < sizeof(struct ofp13_match))
        return ofp_fail(err, OFPET_BAD_MATCH, OFPBMC_BAD_LEN);
    uint16_t type = ofp_rd16(p), length = ofp_rd16(p + 2);
    if (type != OFPMT_OXM)
        return ofp_fail(err, OFPET_BAD_MATCH, OFPBMC_BAD_TYPE);
    if (length < sizeof(struct ofp13_match) || OFP_PAD8(length) > avail)
        return ofp_fail(err, OFPET_BAD_MATCH, OFPBMC_BAD_LEN);

    ofp_match_init(m);
    size_t pos = sizeof(struct ofp13_match);
    while (pos < length) {
        struct ofp_oxm_tlv t;
        if (ofp_oxm_parse(p + pos, length - pos, &t) < 0)
            return ofp_fail(err, OFPET_BAD_MATCH, OFPBMC_BAD_LEN);
        size_t tlv_len = 4u + t.len;
        if (t.oxm_class == OFPXMC_OPENFLOW_BASIC) {
            const struct field_info *fi = info(t.field);
            if (!fi)
                return ofp_fail(err, OFPET_BAD_MATCH, OFPBMC_BAD_FIELD);
            if (t.hasmask && !fi->maskable)
                return ofp_fail(err, OFPET_BAD_MATCH, OFPBMC_BAD_MASK);
            if (t.len != fi->len * (t.hasmask ? 2u : 1u))
                return ofp_fail(err, OFPET_BAD_MATCH, OFPBMC_BAD_LEN);
            if (ofp_match_has(m, t.field))
                return ofp_fail(err, OFPET_BAD_MATCH, OFPBMC_DUP_FIELD);
            /* Value bits outside the mask must be seen before the setter
             * trims the mask to the field width. */
            if (!ofp_oxm_value_ok(t.field, t.payload))
                return ofp_fail(err, OFPET_BAD_MATCH, OFPBMC_BAD_VALUE);
            if (t.hasmask) {
                for (unsigned i = 0; i < fi->len; i++)
                    if (t.payload[i] & ~t.payload[fi->len + i])
                        return ofp_fail(err, OFPET_BAD_MATCH, OFPBMC_BAD_WILDCARDS);
            }
            ofp_match_set(m, t.field, t.payload, t.hasmask ? t.payload + fi->len : NULL);
        } else {
            if (t.oxm_class == OFPXMC_EXPERIMENTER && t.len < 4)
                return ofp_fail(err, OFPET_BAD_MATCH, OFPBMC_BAD_LEN);
            if (tlv_len > sizeof(m->other) - m->other_len)
                return ofp_fail(err, OFPET_BAD_MATCH, OFPBMC_BAD_FIELD);
            memcpy(m->other + m->other_len, p + pos, tlv_len);
            m->other_len = (uint16_t)(m->other_len + tlv_len);
        }
        pos += tlv_len;
    }
    int rc = ofp_match_check(m, err);
    if (rc < 0)
        return rc;
    if (used)
        *used = OFP_PAD8(length);
    return 0;
}

/* ---- comparing, hashing, printing ---------------------------------------- */

bool ofp_match_equal(const struct ofp_match *a, const struct ofp_match *b)
{
    unsigned f;

    if (a->present != b->present || a->masked != b->masked || a->other_len != b->other_len)
        return false;
    FOR_EACH_PRESENT(a, f) {
        const struct field_info *fi = &fields[f];
        if (memcmp((const uint8_t *)&a->val + fi->off, (const uint8_t *)&b->val + fi->off,
                   fi->len))
            return false;
        if (ofp_match_is_masked(a, f) &&
            memcmp((const uint8_t *)&a->mask + fi->off, (const uint8_t *)&b->mask + fi->off,
                   fi->len))
            return false;
    }
    return a->other_len == 0 || memcmp(a->other, b->other, a->other_len) == 0;
}

bool ofp_match_within(const struct ofp_match *m, const struct ofp_match *sel)
{
    unsigned f;

    /* Non-basic TLVs cannot be compared bit-wise: a selection with any
     * selects only an identical set. */
    if (sel->other_len &&
        (sel->other_len != m->other_len || memcmp(sel->other, m->other, sel->other_len)))
        return false;
    FOR_EACH_PRESENT(sel, f) {
        if (!ofp_match_has(m, f))
            return false;
        const struct field_info *fi = &fields[f];
        const uint8_t *mv = (const uint8_t *)&m->val + fi->off;
        const uint8_t *sv = (const uint8_t *)&sel->val + fi->off;
        bool mm = ofp_match_is_masked(m, f), sm = ofp_match_is_masked(sel, f);
        const uint8_t *mk = (const uint8_t *)&m->mask + fi->off;
        const uint8_t *sk = (const uint8_t *)&sel->mask + fi->off;
        for (unsigned i = 0; i < fi->len; i++) {
            uint8_t smask = sm ? sk[i] : 0xff;
            uint8_t mmask = mm ? mk[i] : 0xff;
            /* m must fix every bit sel fixes, to the same value. */
            if ((mmask & smask) != smask || (mv[i] & smask) != (sv[i] & smask))
                return false;
        }
    }
    return true;
}

uint64_t ofp_match_hash(const struct ofp_match *m, uint64_t seed)
{
    uint64_t h = ofcd_fnv1a(OFCD_FNV_OFFSET ^ seed, &m->present, sizeof(m->present));
    unsigned f;

    h = ofcd_fnv1a(h, &m->masked, sizeof(m->masked));
    FOR_EACH_PRESENT(m, f) {
        const struct field_info *fi = &fields[f];
        h = ofcd_fnv1a(h, (const uint8_t *)&m->val + fi->off, fi->len);
        if (ofp_match_is_masked(m, f))
            h = ofcd_fnv1a(h, (const uint8_t *)&m->mask + fi->off, fi->len);
    }
    return ofcd_fnv1a(h, m->other, m->other_len);
}

static void fmt_value(struct ofp_txt *t, const struct field_info *fi, const uint8_t *v)
{
    char ip[INET6_ADDRSTRLEN];

    switch (fi->fmt) {
    case FMT_DEC:
        ofp_txt_add(t, "%llu", (unsigned long long)rd_be(v, fi->len));
        break;
    case FMT_HEX:
        ofp_txt_add(t, "0x%0*llx", fi->len * 2, (unsigned long long)rd_be(v, fi->len));
        break;
    case FMT_MAC:
        ofp_txt_add(t, "%02x:%02x:%02x:%02x:%02x:%02x", v[0], v[1], v[2], v[3], v[4], v[5]);
        break;
    case FMT_IPV4:
        ofp_txt_add(t, "%u.%u.%u.%u", v[0], v[1], v[2], v[3]);
        break;
    default:
        ofp_txt_add(t, "%s", inet_ntop(AF_INET6, v, ip, sizeof(ip)) ? ip : "?");
        break;
    }
}

int ofp_match_format(const struct ofp_match *m, char *buf, size_t size)
{
    struct ofp_txt t = {buf, size, 0};
    bool first = true;
    unsigned f;

    if (size)
        buf[0] = '\0';
    FOR_EACH_PRESENT(m, f) {
        const struct field_info *fi = &fields[f];
        ofp_txt_add(&t, "%s%s=", first ? "" : ",", fi->name);
        fmt_value(&t, fi, (const uint8_t *)&m->val + fi->off);
        if (ofp_match_is_masked(m, f)) {
            ofp_txt_add(&t, "/");
            fmt_value(&t, fi, (const uint8_t *)&m->mask + fi->off);
        }
        first = false;
    }
    for (size_t pos = 0; pos + 4 <= m->other_len;) {
        struct ofp_oxm_tlv x;
        if (ofp_oxm_parse(m->other + pos, m->other_len - pos, &x) < 0)
            break;
        ofp_txt_add(&t, "%soxm(class=0x%04x,field=%u%s,len=%u)", first ? "" : ",", x.oxm_class,
                x.field, x.hasmask ? ",masked" : "", x.len);
        first = false;
        pos += 4u + x.len;
    }
    if (first)
        ofp_txt_add(&t, "any");
    return ofp_txt_result(&t);
}
