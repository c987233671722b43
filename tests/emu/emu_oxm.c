/*
 * emu_oxm.c - OXM validation, normalisation and set relations (see emu_oxm.h).
 *
 * Masked comparisons are done byte by byte over the field's value, with an exact field
 * treated as masked by its "full" mask (all value bits the field can carry, e.g. 13 bits
 * for VLAN_VID), so exact and masked forms of a field compare consistently.
 * Called by the agent on FLOW_MOD and stats requests, and by the flow table.
 */
#include "emu_oxm.h"

#include <errno.h>
#include <string.h>

enum prereq {
    PRE_NONE,
    PRE_ETH,      /* eth_type is a or b */
    PRE_PROTO,    /* ip_proto is a */
    PRE_VLAN,     /* vlan_vid present with OFPVID_PRESENT */
    PRE_ICMPV6,   /* icmpv6_type is a or b */
    PRE_IN_PORT,  /* in_port present */
};

struct field_info {
    uint8_t len;      /* value length in bytes */
    bool maskable;
    uint8_t prereq;
    uint16_t a, b;
    uint32_t valid;   /* value bits the field carries, 0 = every bit of len bytes */
};

#define ETH_IP4 0x0800
#define ETH_IP6 0x86dd

static const struct field_info fields[EMU_OXM_FIELD_COUNT] = {
    [EMU_OXM_IN_PORT] = {4, false, PRE_NONE, 0, 0, 0},
    [EMU_OXM_IN_PHY_PORT] = {4, false, PRE_IN_PORT, 0, 0, 0},
    [EMU_OXM_METADATA] = {8, true, PRE_NONE, 0, 0, 0},
    [EMU_OXM_ETH_DST] = {6, true, PRE_NONE, 0, 0, 0},
    [EMU_OXM_ETH_SRC] = {6, true, PRE_NONE, 0, 0, 0},
    [EMU_OXM_ETH_TYPE] = {2, false, PRE_NONE, 0, 0, 0},
    [EMU_OXM_VLAN_VID] = {2, true, PRE_NONE, 0, 0, 0x1fff},
    [EMU_OXM_VLAN_PCP] = {1, false, PRE_VLAN, 0, 0, 0x7},
    [EMU_OXM_IP_DSCP] = {1, false, PRE_ETH, ETH_IP4, ETH_IP6, 0x3f},
    [EMU_OXM_IP_ECN] = {1, false, PRE_ETH, ETH_IP4, ETH_IP6, 0x3},
    [EMU_OXM_IP_PROTO] = {1, false, PRE_ETH, ETH_IP4, ETH_IP6, 0},
    [EMU_OXM_IPV4_SRC] = {4, true, PRE_ETH, ETH_IP4, ETH_IP4, 0},
    [EMU_OXM_IPV4_DST] = {4, true, PRE_ETH, ETH_IP4, ETH_IP4, 0},
    [EMU_OXM_TCP_SRC] = {2, false, PRE_PROTO, 6, 6, 0},
    [EMU_OXM_TCP_DST] = {2, false, PRE_PROTO, 6, 6, 0},
    [EMU_OXM_UDP_SRC] = {2, false, PRE_PROTO, 17, 17, 0},
    [EMU_OXM_UDP_DST] = {2, false, PRE_PROTO, 17, 17, 0},
    [EMU_OXM_SCTP_SRC] = {2, false, PRE_PROTO, 132, 132, 0},
    [EMU_OXM_SCTP_DST] = {2, false, PRE_PROTO, 132, 132, 0},
    [EMU_OXM_ICMPV4_TYPE] = {1, false, PRE_PROTO, 1, 1, 0},
    [EMU_OXM_ICMPV4_CODE] = {1, false, PRE_PROTO, 1, 1, 0},
    [EMU_OXM_ARP_OP] = {2, false, PRE_ETH, 0x0806, 0x0806, 0},
    [EMU_OXM_ARP_SPA] = {4, true, PRE_ETH, 0x0806, 0x0806, 0},
    [EMU_OXM_ARP_TPA] = {4, true, PRE_ETH, 0x0806, 0x0806, 0},
    [EMU_OXM_ARP_SHA] = {6, true, PRE_ETH, 0x0806, 0x0806, 0},
    [EMU_OXM_ARP_THA] = {6, true, PRE_ETH, 0x0806, 0x0806, 0},
    [EMU_OXM_IPV6_SRC] = {16, true, PRE_ETH, ETH_IP6, ETH_IP6, 0},
    [EMU_OXM_IPV6_DST] = {16, true, PRE_ETH, ETH_IP6, ETH_IP6, 0},
    [EMU_OXM_IPV6_FLABEL] = {4, true, PRE_ETH, ETH_IP6, ETH_IP6, 0xfffff},
    [EMU_OXM_ICMPV6_TYPE] = {1, false, PRE_PROTO, 58, 58, 0},
    [EMU_OXM_ICMPV6_CODE] = {1, false, PRE_PROTO, 58, 58, 0},
    [EMU_OXM_IPV6_ND_TARGET] = {16, false, PRE_ICMPV6, 135, 136, 0},
    [EMU_OXM_IPV6_ND_SLL] = {6, false, PRE_ICMPV6, 135, 135, 0},
    [EMU_OXM_IPV6_ND_TLL] = {6, false, PRE_ICMPV6, 136, 136, 0},
    [EMU_OXM_MPLS_LABEL] = {4, false, PRE_ETH, 0x8847, 0x8848, 0xfffff},
    [EMU_OXM_MPLS_TC] = {1, false, PRE_ETH, 0x8847, 0x8848, 0x7},
    [EMU_OXM_MPLS_BOS] = {1, false, PRE_ETH, 0x8847, 0x8848, 0x1},
    [EMU_OXM_PBB_ISID] = {3, true, PRE_ETH, 0x88e7, 0x88e7, 0},
    [EMU_OXM_TUNNEL_ID] = {8, true, PRE_NONE, 0, 0, 0},
    [EMU_OXM_IPV6_EXTHDR] = {2, true, PRE_ETH, ETH_IP6, ETH_IP6, 0x1ff},
};

/* One parsed TLV: a view into a match. */
struct tlv {
    uint16_t cls;
    uint8_t field;
    bool hasmask;
    uint8_t plen;          /* payload length (value + mask) */
    const uint8_t *raw;    /* the TLV including its 4-byte header */
};

static uint32_t tlv_key(const struct tlv *t)
{
    return ((uint32_t)t->cls << 8) | t->field;
}

static bool is_basic(const struct tlv *t)
{
    return t->cls == EMU_OXM_CLASS_BASIC && t->field < EMU_OXM_FIELD_COUNT;
}

static const uint8_t *tlv_value(const struct tlv *t)
{
    return t->raw + 4;
}

/* The mask byte i of a basic TLV; an exact TLV uses the field's full mask. */
static uint8_t mask_byte(const struct tlv *t, size_t i)
{
    const struct field_info *fi = &fields[t->field];
    if (t->hasmask)
        return t->raw[4 + fi->len + i];
    if (!fi->valid)
        return 0xff;
    return (uint8_t)(fi->valid >> (8 * (fi->len - 1 - i)));
}

static uint8_t full_byte(uint8_t field, size_t i)
{
    const struct field_info *fi = &fields[field];
    if (!fi->valid)
        return 0xff;
    return (uint8_t)(fi->valid >> (8 * (fi->len - 1 - i)));
}

/* Splits a match into TLVs; -EBADMSG when a TLV does not fit or there are too many. */
static int split(const uint8_t *m, size_t len, struct tlv *out, size_t *n)
{
    size_t k = 0;
    for (size_t off = 0; off < len;) {
        if (len - off < 4 || k == EMU_OXM_MAX_TLVS)
            return -EBADMSG;
        struct tlv *t = &out[k++];
        t->cls = emu_get16(m + off);
        t->field = m[off + 2] >> 1;
        t->hasmask = m[off + 2] & 1;
        t->plen = m[off + 3];
        t->raw = m + off;
        if (len - off - 4 < t->plen)
            return -EBADMSG;
        off += 4u + t->plen;
    }
    *n = k;
    return 0;
}

static int tlv_cmp(const struct tlv *a, const struct tlv *b)
{
    uint32_t ka = tlv_key(a), kb = tlv_key(b);
    if (ka != kb)
        return ka < kb ? -1 : 1;
    size_t la = 4u + a->plen, lb = 4u + b->plen;
    int c = memcmp(a->raw, b->raw, la < lb ? la : lb);
    if (c)
        return c;
    return la == lb ? 0 : (la < lb ? -1 : 1);
}

static void sort_tlvs(struct tlv *t, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct tlv x = t[i];
        size_t j = i;
        while (j > 0 && tlv_cmp(&t[j - 1], &x) > 0) {
            t[j] = t[j - 1];
            j--;
        }
        t[j] = x;
    }
}

static void set_err(struct emu_oferr *err, uint16_t code)
{
    if (err) {
        err->type = EMU_OFPET_BAD_MATCH;
        err->code = code;
    }
}

/* Exact basic value of `field` in the normalised TLV list, for prerequisite checks. */
static bool exact_value(const struct tlv *t, size_t n, uint8_t field, uint32_t *v)
{
    for (size_t i = 0; i < n; i++) {
        if (t[i].cls != EMU_OXM_CLASS_BASIC || t[i].field != field)
            continue;
        const uint8_t *p = tlv_value(&t[i]);
        uint8_t len = fields[field].len;
        if (t[i].hasmask)
            return false;
        *v = len == 1 ? p[0] : len == 2 ? emu_get16(p) : emu_get32(p);
        return true;
    }
    return false;
}

static bool prereq_ok(const struct tlv *all, size_t n, uint8_t field)
{
    const struct field_info *fi = &fields[field];
    uint32_t v;
    switch (fi->prereq) {
    case PRE_ETH:
        return exact_value(all, n, EMU_OXM_ETH_TYPE, &v) && (v == fi->a || v == fi->b);
    case PRE_PROTO:
        return exact_value(all, n, EMU_OXM_IP_PROTO, &v) && v == fi->a;
    case PRE_ICMPV6:
        return exact_value(all, n, EMU_OXM_ICMPV6_TYPE, &v) && (v == fi->a || v == fi->b);
    case PRE_IN_PORT:
        return exact_value(all, n, EMU_OXM_IN_PORT, &v);
    case PRE_VLAN:
        for (size_t i = 0; i < n; i++)
            if (all[i].cls == EMU_OXM_CLASS_BASIC && all[i].field == EMU_OXM_VLAN_VID)
                return (tlv_value(&all[i])[0] & 0x10) != 0; /* OFPVID_PRESENT */
        return false;
    default:
        return true;
    }
}

/* Writes one basic TLV in normal form; writes nothing when a zero mask wildcards it. */
static int normalise_basic(const struct tlv *t, struct emu_wr *w, struct emu_oferr *err)
{
    const struct field_info *fi = &fields[t->field];
    const uint8_t *v = tlv_value(t);
    size_t len = fi->len;
    if (t->plen != (t->hasmask ? 2 * len : len)) {
        set_err(err, EMU_OFPBMC_BAD_LEN);
        return -EBADMSG;
    }
    if (t->hasmask && !fi->maskable) {
        set_err(err, EMU_OFPBMC_BAD_MASK);
        return -EBADMSG;
    }
    for (size_t i = 0; i < len; i++) {
        if (v[i] & ~full_byte(t->field, i)) {
            set_err(err, EMU_OFPBMC_BAD_VALUE);
            return -EBADMSG;
        }
    }
    if (!t->hasmask) {
        emu_oxm_put(w, t->field, v, NULL, len);
        return 0;
    }
    uint8_t mask[16];
    bool all_zero = true, all_full = true;
    for (size_t i = 0; i < len; i++) {
        mask[i] = v[len + i] & full_byte(t->field, i);
        if (v[i] & ~mask[i]) {
            set_err(err, EMU_OFPBMC_BAD_WILDCARDS);
            return -EBADMSG;
        }
        all_zero = all_zero && mask[i] == 0;
        all_full = all_full && mask[i] == full_byte(t->field, i);
    }
    if (all_zero)
        return 0;
    emu_oxm_put(w, t->field, v, all_full ? NULL : mask, len);
    return 0;
}

int emu_oxm_normalise(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
                      size_t *out_len, struct emu_oferr *err)
{
    struct tlv t[EMU_OXM_MAX_TLVS];
    size_t n;
    if (split(in, in_len, t, &n)) {
        set_err(err, EMU_OFPBMC_BAD_LEN);
        return -EBADMSG;
    }
    sort_tlvs(t, n);
    struct emu_wr w;
    emu_wr_init(&w, out, out_cap);
    for (size_t i = 0; i < n; i++) {
        if (t[i].cls == EMU_OXM_CLASS_BASIC) {
            if (t[i].field >= EMU_OXM_FIELD_COUNT) {
                set_err(err, EMU_OFPBMC_BAD_FIELD);
                return -EBADMSG;
            }
            if (i > 0 && tlv_key(&t[i - 1]) == tlv_key(&t[i])) {
                set_err(err, EMU_OFPBMC_DUP_FIELD);
                return -EBADMSG;
            }
            if (normalise_basic(&t[i], &w, err))
                return -EBADMSG;
        } else {
            emu_wr_bytes(&w, t[i].raw, 4u + t[i].plen);
        }
    }
    if (w.overflow) {
        set_err(err, EMU_OFPBMC_BAD_LEN);
        return -EBADMSG;
    }
    /* Prerequisites are judged on the normal form: a field wildcarded away by a zero
     * mask no longer satisfies anything. */
    struct tlv nt[EMU_OXM_MAX_TLVS];
    size_t nn;
    if (split(out, w.len, nt, &nn)) {
        set_err(err, EMU_OFPBMC_BAD_LEN);
        return -EBADMSG;
    }
    for (size_t i = 0; i < nn; i++) {
        if (is_basic(&nt[i]) && !prereq_ok(nt, nn, nt[i].field)) {
            set_err(err, EMU_OFPBMC_BAD_PREREQ);
            return -EBADMSG;
        }
    }
    *out_len = w.len;
    return 0;
}

/* Is the flow TLV g at least as specific as the filter TLV f, and inside it? */
static bool tlv_within(const struct tlv *f, const struct tlv *g)
{
    if (!is_basic(f))
        return f->plen == g->plen && memcmp(f->raw, g->raw, 4u + f->plen) == 0;
    const uint8_t *fv = tlv_value(f), *gv = tlv_value(g);
    for (size_t i = 0; i < fields[f->field].len; i++) {
        uint8_t fm = mask_byte(f, i), gm = mask_byte(g, i);
        if ((gm & fm) != fm || (gv[i] & fm) != fv[i])
            return false;
    }
    return true;
}

bool emu_oxm_within(const uint8_t *filter, size_t filter_len, const uint8_t *flow,
                    size_t flow_len)
{
    struct tlv f[EMU_OXM_MAX_TLVS], g[EMU_OXM_MAX_TLVS];
    size_t nf, ng;
    if (split(filter, filter_len, f, &nf) || split(flow, flow_len, g, &ng))
        return false;
    size_t j = 0;
    for (size_t i = 0; i < nf; i++) {
        uint32_t key = tlv_key(&f[i]);
        while (j < ng && tlv_key(&g[j]) < key)
            j++;
        bool hit = false;
        for (size_t k = j; k < ng && tlv_key(&g[k]) == key && !hit; k++)
            hit = tlv_within(&f[i], &g[k]);
        if (!hit)
            return false;
    }
    return true;
}

static bool tlv_compatible(const struct tlv *a, const struct tlv *b)
{
    if (!is_basic(a))
        return a->plen == b->plen && memcmp(a->raw, b->raw, 4u + a->plen) == 0;
    const uint8_t *av = tlv_value(a), *bv = tlv_value(b);
    for (size_t i = 0; i < fields[a->field].len; i++)
        if ((av[i] ^ bv[i]) & mask_byte(a, i) & mask_byte(b, i))
            return false;
    return true;
}

bool emu_oxm_overlap(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len)
{
    struct tlv ta[EMU_OXM_MAX_TLVS], tb[EMU_OXM_MAX_TLVS];
    size_t na, nb;
    if (split(a, a_len, ta, &na) || split(b, b_len, tb, &nb))
        return true; /* cannot judge: refuse as the cautious answer */
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        uint32_t ka = tlv_key(&ta[i]), kb = tlv_key(&tb[j]);
        if (ka < kb) {
            i++;
        } else if (kb < ka) {
            j++;
        } else {
            if (!tlv_compatible(&ta[i], &tb[j]))
                return false;
            i++;
            j++;
        }
    }
    return true;
}

bool emu_oxm_find(const uint8_t *m, size_t len, uint8_t field, const uint8_t **value,
                  const uint8_t **mask, size_t *vlen)
{
    struct tlv t[EMU_OXM_MAX_TLVS];
    size_t n;
    if (field >= EMU_OXM_FIELD_COUNT || split(m, len, t, &n))
        return false;
    for (size_t i = 0; i < n; i++) {
        if (t[i].cls == EMU_OXM_CLASS_BASIC && t[i].field == field) {
            *vlen = fields[field].len;
            *value = tlv_value(&t[i]);
            *mask = t[i].hasmask ? tlv_value(&t[i]) + *vlen : NULL;
            return true;
        }
    }
    return false;
}

void emu_oxm_put(struct emu_wr *w, uint8_t field, const void *value, const void *mask,
                 size_t len)
{
    emu_wr_u16(w, EMU_OXM_CLASS_BASIC);
    emu_wr_u8(w, (uint8_t)((field << 1) | (mask ? 1 : 0)));
    emu_wr_u8(w, (uint8_t)(mask ? 2 * len : len));
    emu_wr_bytes(w, value, len);
    if (mask)
        emu_wr_bytes(w, mask, len);
}

void emu_oxm_put_u8(struct emu_wr *w, uint8_t field, uint8_t v)
{
    emu_oxm_put(w, field, &v, NULL, 1);
}

void emu_oxm_put_u16(struct emu_wr *w, uint8_t field, uint16_t v)
{
    uint8_t b[2];
    emu_put16(b, v);
    emu_oxm_put(w, field, b, NULL, 2);
}

void emu_oxm_put_u32(struct emu_wr *w, uint8_t field, uint32_t v)
{
    uint8_t b[4];
    emu_put32(b, v);
    emu_oxm_put(w, field, b, NULL, 4);
}

void emu_oxm_put_u32m(struct emu_wr *w, uint8_t field, uint32_t v, uint32_t mask)
{
    uint8_t b[4], m[4];
    emu_put32(b, v);
    emu_put32(m, mask);
    emu_oxm_put(w, field, b, m, 4);
}
