/*
 * test_ofp_oxm: the OF1.3 match. The expected field table (names, sizes,
 * maskability) and prerequisites are typed in here from the 1.3.5 spec
 * (tables 11 and 12), and matches are built as raw OXM bytes by this file's
 * own helper — so the decoder is checked against the spec, not against its
 * own encoder. Covers: every field exact and masked (mask allowed or
 * BAD_MASK), every prerequisite met and unmet, BAD_LEN/BAD_FIELD/DUP_FIELD/
 * BAD_VALUE/BAD_WILDCARDS/BAD_TYPE, foreign OXM classes kept verbatim,
 * canonical form, equality, hashing and the text form.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ofp_msg.h"
#include "ofp_test_util.h"

/* Spec table 11. */
static const struct {
    const char *name;
    uint8_t len;
    bool maskable;
} spec_fields[OFPXMT_OFB_COUNT] = {
    {"in_port", 4, 0},      {"in_phy_port", 4, 0},   {"metadata", 8, 1},
    {"eth_dst", 6, 1},      {"eth_src", 6, 1},       {"eth_type", 2, 0},
    {"vlan_vid", 2, 1},     {"vlan_pcp", 1, 0},      {"ip_dscp", 1, 0},
    {"ip_ecn", 1, 0},       {"ip_proto", 1, 0},      {"ipv4_src", 4, 1},
    {"ipv4_dst", 4, 1},     {"tcp_src", 2, 0},       {"tcp_dst", 2, 0},
    {"udp_src", 2, 0},      {"udp_dst", 2, 0},       {"sctp_src", 2, 0},
    {"sctp_dst", 2, 0},     {"icmpv4_type", 1, 0},   {"icmpv4_code", 1, 0},
    {"arp_op", 2, 0},       {"arp_spa", 4, 1},       {"arp_tpa", 4, 1},
    {"arp_sha", 6, 1},      {"arp_tha", 6, 1},       {"ipv6_src", 16, 1},
    {"ipv6_dst", 16, 1},    {"ipv6_flabel", 4, 1},   {"icmpv6_type", 1, 0},
    {"icmpv6_code", 1, 0},  {"ipv6_nd_target", 16, 0}, {"ipv6_nd_sll", 6, 0},
    {"ipv6_nd_tll", 6, 0},  {"mpls_label", 4, 0},    {"mpls_tc", 1, 0},
    {"mpls_bos", 1, 0},     {"pbb_isid", 3, 1},      {"tunnel_id", 8, 1},
    {"ipv6_exthdr", 2, 1},
};

/* ---- raw match builder (independent of ofp_match_encode) ----------------------- */

struct mb {
    uint8_t b[600];
    size_t n;                 /* bytes after the 4-byte match header */
};

static void mb_init(struct mb *m)
{
    memset(m, 0, sizeof(*m));
}

static void mb_raw(struct mb *m, uint16_t cls, unsigned field, bool hm, const uint8_t *pay,
                   unsigned len)
{
    uint8_t *p = m->b + 4 + m->n;
    p[0] = (uint8_t)(cls >> 8);
    p[1] = (uint8_t)cls;
    p[2] = (uint8_t)(field << 1 | (hm ? 1 : 0));
    p[3] = (uint8_t)len;
    memcpy(p + 4, pay, len);
    m->n += 4u + len;
}

static void be(uint8_t *p, unsigned len, uint64_t v)
{
    for (unsigned i = len; i-- > 0; v >>= 8)
        p[i] = (uint8_t)v;
}

/* A basic field from an integer value (and mask when masked). */
static unsigned flen(unsigned field)
{
    unsigned l = field < OFPXMT_OFB_COUNT ? spec_fields[field].len : 0;
    if (l == 0 || l > 16)
        abort();
    return l;
}

static void mb_u(struct mb *m, unsigned field, uint64_t v)
{
    unsigned l = flen(field), w = l > 8 ? 8 : l;
    uint8_t pay[16] = {0};
    be(pay + (l - w), w, v);
    mb_raw(m, OFPXMC_OPENFLOW_BASIC, field, false, pay, l);
}

static void mb_um(struct mb *m, unsigned field, uint64_t v, uint64_t mask)
{
    unsigned l = flen(field), w = l > 8 ? 8 : l;
    uint8_t pay[32] = {0};
    if (l > 8)
        memset(pay + l, 0xff, l - 8);   /* wide fields: high bytes fully masked */
    be(pay + (l - w), w, v);
    be(pay + l + (l - w), w, mask);
    mb_raw(m, OFPXMC_OPENFLOW_BASIC, field, true, pay, 2 * l);
}

/* Finish: match header with type, padding; returns the padded size. */
static size_t mb_finish(struct mb *m, uint16_t type)
{
    size_t len = 4 + m->n;
    m->b[0] = (uint8_t)(type >> 8);
    m->b[1] = (uint8_t)type;
    m->b[2] = (uint8_t)(len >> 8);
    m->b[3] = (uint8_t)len;
    return (len + 7) & ~(size_t)7;
}

/* Decode m from an exact-size copy: rc, and *err / *out. */
static int mb_decode(struct mb *m, struct ofp_match *out, struct ofp_err *err)
{
    size_t n = mb_finish(m, OFPMT_OXM), used = 0;
    uint8_t *c = ofp_test_dup(m->b, n);
    int rc = ofp_match_decode(c, n, out, &used, err);
    if (rc == 0)
        assert_int_equal(used, n);
    free(c);
    return rc;
}

static void expect_ok(struct mb *m)
{
    struct ofp_match out;
    struct ofp_err err;
    int rc = mb_decode(m, &out, &err);
    if (rc != 0) {
        char e[96];
        ofp_err_format(err, e, sizeof(e));
        fail_msg("match refused: %s", e);
    }
}

static void expect_bad(struct mb *m, uint16_t code)
{
    struct ofp_match out;
    struct ofp_err err = {0, 0};
    int rc = mb_decode(m, &out, &err);
    if (rc != -EBADMSG || err.type != OFPET_BAD_MATCH || err.code != code) {
        char e[96];
        ofp_err_format(err, e, sizeof(e));
        fail_msg("rc %d %s, expected OFPBMC %s", rc, e, ofp_err_code_name(OFPET_BAD_MATCH, code));
    }
}

/* ---- prerequisites, spec table 12 ---------------------------------------------------- */

struct fv {
    uint8_t field;
    uint32_t value;
};

#define MAXP 4
struct prereq_case {
    uint8_t field;
    struct fv good[2][MAXP];  /* two ways to satisfy (second may be empty) */
    struct fv bad[3][MAXP];   /* ways to fail; an empty set means "nothing given" */
    uint8_t n_good, n_bad;
};

#define F(x) OFPXMT_OFB_##x
#define E(v) {F(ETH_TYPE), v}
#define P(v) {F(IP_PROTO), v}
#define END {0xff, 0}

static const struct prereq_case prereqs[] = {
    {F(IN_PHY_PORT), {{{F(IN_PORT), 1}, END}}, {{END}}, 1, 1},
    {F(VLAN_PCP), {{{F(VLAN_VID), 0x1005}, END}}, {{END}, {{F(VLAN_VID), 0}, END}}, 1, 2},
    {F(IP_DSCP), {{E(0x0800), END}, {E(0x86dd), END}}, {{END}, {E(0x0806), END}}, 2, 2},
    {F(IP_ECN), {{E(0x0800), END}, {E(0x86dd), END}}, {{END}, {E(0x8847), END}}, 2, 2},
    {F(IP_PROTO), {{E(0x0800), END}, {E(0x86dd), END}}, {{END}, {E(0x0806), END}}, 2, 2},
    {F(IPV4_SRC), {{E(0x0800), END}}, {{END}, {E(0x86dd), END}}, 1, 2},
    {F(IPV4_DST), {{E(0x0800), END}}, {{END}, {E(0x0806), END}}, 1, 2},
    {F(TCP_SRC), {{E(0x0800), P(6), END}, {E(0x86dd), P(6), END}},
     {{E(0x0800), END}, {E(0x0800), P(17), END}, {P(6), END}}, 2, 3},
    {F(TCP_DST), {{E(0x0800), P(6), END}}, {{E(0x0800), P(132), END}}, 1, 1},
    {F(UDP_SRC), {{E(0x0800), P(17), END}, {E(0x86dd), P(17), END}},
     {{E(0x0800), P(6), END}, {P(17), END}}, 2, 2},
    {F(UDP_DST), {{E(0x86dd), P(17), END}}, {{E(0x86dd), END}}, 1, 1},
    {F(SCTP_SRC), {{E(0x0800), P(132), END}}, {{E(0x0800), P(17), END}}, 1, 1},
    {F(SCTP_DST), {{E(0x86dd), P(132), END}}, {{E(0x86dd), P(6), END}}, 1, 1},
    {F(ICMPV4_TYPE), {{E(0x0800), P(1), END}}, {{E(0x0800), P(58), END}, {E(0x0800), END}}, 1,
     2},
    {F(ICMPV4_CODE), {{E(0x0800), P(1), END}}, {{E(0x0800), P(6), END}}, 1, 1},
    {F(ARP_OP), {{E(0x0806), END}}, {{END}, {E(0x0800), END}}, 1, 2},
    {F(ARP_SPA), {{E(0x0806), END}}, {{E(0x86dd), END}}, 1, 1},
    {F(ARP_TPA), {{E(0x0806), END}}, {{END}}, 1, 1},
    {F(ARP_SHA), {{E(0x0806), END}}, {{E(0x0800), END}}, 1, 1},
    {F(ARP_THA), {{E(0x0806), END}}, {{END}}, 1, 1},
    {F(IPV6_SRC), {{E(0x86dd), END}}, {{END}, {E(0x0800), END}}, 1, 2},
    {F(IPV6_DST), {{E(0x86dd), END}}, {{E(0x0800), END}}, 1, 1},
    {F(IPV6_FLABEL), {{E(0x86dd), END}}, {{E(0x0800), END}}, 1, 1},
    {F(ICMPV6_TYPE), {{E(0x86dd), P(58), END}}, {{E(0x86dd), P(1), END}, {E(0x86dd), END}}, 1,
     2},
    {F(ICMPV6_CODE), {{E(0x86dd), P(58), END}}, {{E(0x86dd), P(17), END}}, 1, 1},
    {F(IPV6_ND_TARGET),
     {{E(0x86dd), P(58), {F(ICMPV6_TYPE), 135}, END},
      {E(0x86dd), P(58), {F(ICMPV6_TYPE), 136}, END}},
     {{E(0x86dd), P(58), {F(ICMPV6_TYPE), 128}, END}, {E(0x86dd), P(58), END}}, 2, 2},
    {F(IPV6_ND_SLL), {{E(0x86dd), P(58), {F(ICMPV6_TYPE), 135}, END}},
     {{E(0x86dd), P(58), {F(ICMPV6_TYPE), 136}, END}}, 1, 1},
    {F(IPV6_ND_TLL), {{E(0x86dd), P(58), {F(ICMPV6_TYPE), 136}, END}},
     {{E(0x86dd), P(58), {F(ICMPV6_TYPE), 135}, END}}, 1, 1},
    {F(MPLS_LABEL), {{E(0x8847), END}, {E(0x8848), END}}, {{END}, {E(0x0800), END}}, 2, 2},
    {F(MPLS_TC), {{E(0x8847), END}, {E(0x8848), END}}, {{E(0x86dd), END}}, 2, 1},
    {F(MPLS_BOS), {{E(0x8848), END}}, {{E(0x88e7), END}}, 1, 1},
    {F(PBB_ISID), {{E(0x88e7), END}}, {{END}, {E(0x8847), END}}, 1, 2},
    {F(IPV6_EXTHDR), {{E(0x86dd), END}}, {{E(0x0800), END}}, 1, 1},
};

static const uint8_t no_prereq[] = {F(IN_PORT), F(METADATA), F(ETH_DST), F(ETH_SRC),
                                    F(ETH_TYPE), F(VLAN_VID), F(TUNNEL_ID)};

static void add_fvs(struct mb *m, const struct fv *set)
{
    for (int i = 0; i < MAXP && set[i].field != 0xff; i++)
        mb_u(m, set[i].field, set[i].value);
}

/* A value valid for the field whatever its width. */
static uint64_t some_value(unsigned f)
{
    return f == F(VLAN_VID) ? 0x1001 : 1;
}

static void test_field_table(void **state)
{
    (void)state;
    for (unsigned f = 0; f < OFPXMT_OFB_COUNT; f++) {
        assert_string_equal(ofp_oxm_field_name(f), spec_fields[f].name);
        assert_int_equal(ofp_oxm_field_len(f), spec_fields[f].len);
        assert_int_equal(ofp_oxm_field_maskable(f), spec_fields[f].maskable);
        assert_int_equal(ofp_oxm_field_from_name(spec_fields[f].name), (int)f);
    }
    assert_null(ofp_oxm_field_name(OFPXMT_OFB_COUNT));
    assert_int_equal(ofp_oxm_field_len(OFPXMT_OFB_COUNT), 0);
    assert_int_equal(ofp_oxm_field_from_name("dl_vlan"), -ENOENT);
}

static void test_prerequisites(void **state)
{
    unsigned checked = 0;
    (void)state;
    for (size_t i = 0; i < sizeof(prereqs) / sizeof(prereqs[0]); i++) {
        const struct prereq_case *c = &prereqs[i];
        struct mb m;
        for (unsigned g = 0; g < c->n_good; g++) {
            mb_init(&m);
            add_fvs(&m, c->good[g]);
            mb_u(&m, c->field, some_value(c->field));
            expect_ok(&m);
            /* order does not matter: the dependent field first */
            mb_init(&m);
            mb_u(&m, c->field, some_value(c->field));
            add_fvs(&m, c->good[g]);
            expect_ok(&m);
        }
        for (unsigned k = 0; k < c->n_bad; k++) {
            mb_init(&m);
            add_fvs(&m, c->bad[k]);
            mb_u(&m, c->field, some_value(c->field));
            expect_bad(&m, OFPBMC_BAD_PREREQ);
        }
        checked++;
    }
    /* every field either has a row above or none in the spec */
    assert_int_equal(checked + sizeof(no_prereq), OFPXMT_OFB_COUNT);
    for (size_t i = 0; i < sizeof(no_prereq); i++) {
        struct mb m;
        mb_init(&m);
        mb_u(&m, no_prereq[i], some_value(no_prereq[i]));
        expect_ok(&m);
    }
}

/* Prerequisites for a field, enough for the mask tests. */
static void add_prereqs(struct mb *m, unsigned f)
{
    for (size_t i = 0; i < sizeof(prereqs) / sizeof(prereqs[0]); i++)
        if (prereqs[i].field == f)
            add_fvs(m, prereqs[i].good[0]);
}

static void test_vlan_pcp_with_masked_vid(void **state)
{
    struct mb m;
    (void)state;
    /* any tagged frame: VID present bit matched through a mask */
    mb_init(&m);
    mb_um(&m, F(VLAN_VID), 0x1000, 0x1000);
    mb_u(&m, F(VLAN_PCP), 3);
    expect_ok(&m);
    /* a VID mask that leaves the present bit out says nothing about a tag */
    mb_init(&m);
    mb_um(&m, F(VLAN_VID), 0x0005, 0x0fff);
    mb_u(&m, F(VLAN_PCP), 3);
    expect_bad(&m, OFPBMC_BAD_PREREQ);
}

static void test_masks(void **state)
{
    (void)state;
    for (unsigned f = 0; f < OFPXMT_OFB_COUNT; f++) {
        struct mb m;
        mb_init(&m);
        add_prereqs(&m, f);
        /* value 0 under a mask with only the lowest bit clear */
        uint64_t mask = spec_fields[f].len >= 8 ? ~1ull
                                                 : ((1ull << (8 * spec_fields[f].len)) - 2);
        mb_um(&m, f, 0, mask);
        if (f == F(VLAN_VID)) {
            mb_init(&m);
            mb_um(&m, f, 0x1000, 0x1ffe);
        }
        if (spec_fields[f].maskable)
            expect_ok(&m);
        else
            expect_bad(&m, OFPBMC_BAD_MASK);
    }
}

static void test_bad_lengths(void **state)
{
    struct mb m;
    struct ofp_match out;
    struct ofp_err err;
    uint8_t b[64];
    size_t used;
    (void)state;

    for (unsigned f = 0; f < OFPXMT_OFB_COUNT; f++) {
        uint8_t pay[40] = {0};
        unsigned l = spec_fields[f].len;
        /* one byte short and one byte long, exact form */
        mb_init(&m);
        add_prereqs(&m, f);
        mb_raw(&m, OFPXMC_OPENFLOW_BASIC, f, false, pay, l - 1);
        expect_bad(&m, OFPBMC_BAD_LEN);
        mb_init(&m);
        add_prereqs(&m, f);
        mb_raw(&m, OFPXMC_OPENFLOW_BASIC, f, false, pay, l + 1);
        expect_bad(&m, OFPBMC_BAD_LEN);
        if (spec_fields[f].maskable) {
            /* masked form must be exactly twice the width */
            mb_init(&m);
            add_prereqs(&m, f);
            mb_raw(&m, OFPXMC_OPENFLOW_BASIC, f, true, pay, l);
            expect_bad(&m, OFPBMC_BAD_LEN);
        }
    }

    /* TLV payload past the match length */
    mb_init(&m);
    mb_u(&m, F(IN_PORT), 1);
    m.b[4 + 3] = 8;
    expect_bad(&m, OFPBMC_BAD_LEN);
    /* a partial TLV header left at the end */
    mb_init(&m);
    mb_u(&m, F(IN_PORT), 1);
    m.n += 2;
    expect_bad(&m, OFPBMC_BAD_LEN);

    /* match length below its own header, and padding beyond the buffer */
    ofp_test_hex("00 01 00 03 00 00 00 00", b, sizeof(b));
    assert_int_equal(ofp_match_decode(b, 8, &out, &used, &err), -EBADMSG);
    assert_true(err.type == OFPET_BAD_MATCH && err.code == OFPBMC_BAD_LEN);
    ofp_test_hex("00 01 00 0c 80 00 00 04 00 00 00 01 00 00 00 00", b, sizeof(b));
    uint8_t *c = ofp_test_dup(b, 12);             /* padding cut off */
    assert_int_equal(ofp_match_decode(c, 12, &out, &used, &err), -EBADMSG);
    assert_true(err.code == OFPBMC_BAD_LEN);
    free(c);
    c = ofp_test_dup(b, 3);
    assert_int_equal(ofp_match_decode(c, 3, &out, &used, &err), -EBADMSG);
    assert_true(err.code == OFPBMC_BAD_LEN);
    free(c);
}

static void test_bad_type_field_dup(void **state)
{
    struct mb m;
    struct ofp_match out;
    struct ofp_err err;
    (void)state;

    mb_init(&m);
    mb_u(&m, F(IN_PORT), 1);
    size_t n = mb_finish(&m, OFPMT_STANDARD);
    assert_int_equal(ofp_match_decode(m.b, n, &out, NULL, &err), -EBADMSG);
    assert_true(err.type == OFPET_BAD_MATCH && err.code == OFPBMC_BAD_TYPE);
    n = mb_finish(&m, 2);
    assert_int_equal(ofp_match_decode(m.b, n, &out, NULL, &err), -EBADMSG);
    assert_true(err.code == OFPBMC_BAD_TYPE);

    for (unsigned f = OFPXMT_OFB_COUNT; f < 128; f += 11) {
        uint8_t pay[4] = {0};
        mb_init(&m);
        mb_raw(&m, OFPXMC_OPENFLOW_BASIC, f, false, pay, 4);
        expect_bad(&m, OFPBMC_BAD_FIELD);
    }

    mb_init(&m);
    mb_u(&m, F(IN_PORT), 1);
    mb_u(&m, F(IN_PORT), 2);
    expect_bad(&m, OFPBMC_DUP_FIELD);
    /* exact and masked forms of one field are still the same field */
    mb_init(&m);
    mb_u(&m, F(ETH_TYPE), 0x0800);
    mb_u(&m, F(IPV4_SRC), 1);
    mb_um(&m, F(IPV4_SRC), 0, 0xffffff00);
    expect_bad(&m, OFPBMC_DUP_FIELD);
}

static void test_bad_values(void **state)
{
    static const struct {
        uint8_t field;
        uint64_t bad, good;
    } cases[] = {
        {F(VLAN_VID), 0x2000, 0x1fff},  {F(VLAN_PCP), 8, 7},      {F(IP_DSCP), 64, 63},
        {F(IP_ECN), 4, 3},              {F(IPV6_FLABEL), 0x100000, 0xfffff},
        {F(MPLS_LABEL), 0x100000, 0xfffff}, {F(MPLS_TC), 8, 7}, {F(MPLS_BOS), 2, 1},
        {F(IPV6_EXTHDR), 0x200, 0x1ff},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct mb m;
        mb_init(&m);
        add_prereqs(&m, cases[i].field);
        mb_u(&m, cases[i].field, cases[i].bad);
        expect_bad(&m, OFPBMC_BAD_VALUE);
        mb_init(&m);
        add_prereqs(&m, cases[i].field);
        mb_u(&m, cases[i].field, cases[i].good);
        expect_ok(&m);
    }
    /* and through the struct: setters store, the check refuses */
    struct ofp_match s;
    struct ofp_err err;
    ofp_match_init(&s);
    ofp_match_set_uint(&s, F(VLAN_VID), 0x1001);
    ofp_match_set_uint(&s, F(VLAN_PCP), 9);
    assert_int_equal(ofp_match_check(&s, &err), -EBADMSG);
    assert_true(err.type == OFPET_BAD_MATCH && err.code == OFPBMC_BAD_VALUE);
}

static void test_bad_wildcards(void **state)
{
    struct mb m;
    (void)state;
    mb_init(&m);
    mb_u(&m, F(ETH_TYPE), 0x0800);
    mb_um(&m, F(IPV4_SRC), 0x0a000001, 0xff000000);    /* 10.0.0.1/8 */
    expect_bad(&m, OFPBMC_BAD_WILDCARDS);
    mb_init(&m);
    mb_u(&m, F(ETH_TYPE), 0x0800);
    mb_um(&m, F(IPV4_SRC), 0x0a000000, 0xff000000);    /* 10.0.0.0/8 */
    expect_ok(&m);
    mb_init(&m);
    mb_um(&m, F(METADATA), 0x3, 0x2);
    expect_bad(&m, OFPBMC_BAD_WILDCARDS);
    /* a wide field: the bit outside the mask is in the last byte */
    uint8_t pay[32] = {0};
    pay[15] = 1;
    memset(pay + 16, 0xff, 8);
    mb_init(&m);
    mb_u(&m, F(ETH_TYPE), 0x86dd);
    mb_raw(&m, OFPXMC_OPENFLOW_BASIC, F(IPV6_DST), true, pay, 32);
    expect_bad(&m, OFPBMC_BAD_WILDCARDS);
}

/* ---- foreign classes ------------------------------------------------------------------- */

static void test_foreign_oxms_kept(void **state)
{
    struct mb m;
    struct ofp_match out;
    struct ofp_err err;
    uint8_t reg[4] = {0, 0, 0, 0x2a}, exp[8] = {0x00, 0x00, 0x23, 0x20, 1, 2, 3, 4};
    uint8_t enc[256];
    struct ofp_buf b;
    (void)state;

    mb_init(&m);
    mb_u(&m, F(IN_PORT), 5);
    mb_raw(&m, OFPXMC_NXM_1, 0, false, reg, 4);           /* NXM_NX_REG0 */
    mb_raw(&m, OFPXMC_EXPERIMENTER, 3, false, exp, 8);
    assert_int_equal(mb_decode(&m, &out, &err), 0);
    assert_int_equal(out.present, 1ull << F(IN_PORT));
    assert_int_equal(out.other_len, 8 + 12);
    assert_memory_equal(out.other, m.b + 4 + 8, 20);
    /* encoded back verbatim after the basic fields */
    ofp_buf_init(&b, enc, sizeof(enc));
    assert_int_equal(ofp_match_encode(&b, &out), 0);
    size_t n = mb_finish(&m, OFPMT_OXM);
    assert_int_equal(b.len, n);
    assert_memory_equal(enc, m.b, n);

    /* experimenter OXM without room for its experimenter id */
    mb_init(&m);
    mb_raw(&m, OFPXMC_EXPERIMENTER, 3, false, exp, 2);
    expect_bad(&m, OFPBMC_BAD_LEN);

    /* more foreign bytes than a match keeps */
    mb_init(&m);
    for (int i = 0; i < 20; i++)
        mb_raw(&m, OFPXMC_NXM_1, (unsigned)i, false, exp, 4);
    expect_bad(&m, OFPBMC_BAD_FIELD);
}

/* ---- canonical form, equality, hash, text ------------------------------------------------ */

static void test_canonical_and_equal(void **state)
{
    struct ofp_match a, b;
    struct mb m;
    struct ofp_err err;
    (void)state;

    /* built in a different order, through different setters: equal, same hash */
    ofp_match_init(&a);
    ofp_match_set_uint(&a, F(ETH_TYPE), 0x0800);
    ofp_match_set_uint_masked(&a, F(IPV4_DST), 0xc0a80000, 0xffff0000);
    ofp_match_set_uint_masked(&a, F(IPV4_SRC), 0x01020304, 0xffffffff);   /* full mask */
    ofp_match_init(&b);
    ofp_match_set_uint(&b, F(IPV4_SRC), 0x01020304);
    ofp_match_set_uint_masked(&b, F(IPV4_DST), 0xc0a80000, 0xffff0000);
    ofp_match_set_uint(&b, F(ETH_TYPE), 0x0800);
    assert_false(ofp_match_is_masked(&a, F(IPV4_SRC)));
    assert_true(ofp_match_equal(&a, &b));
    assert_int_equal(ofp_match_hash(&a, 1), ofp_match_hash(&b, 1));
    assert_int_equal(memcmp(&a, &b, sizeof(a)), 0);

    /* the decoder canonicalises the same way (full mask on the wire) */
    mb_init(&m);
    mb_um(&m, F(IPV4_DST), 0xc0a80000, 0xffff0000);
    mb_um(&m, F(IPV4_SRC), 0x01020304, 0xffffffff);
    mb_u(&m, F(ETH_TYPE), 0x0800);
    assert_int_equal(mb_decode(&m, &b, &err), 0);
    assert_true(ofp_match_equal(&a, &b));

    /* VLAN mask bits above the 13-bit field are meaningless: 0xffff = exact */
    ofp_match_init(&a);
    ofp_match_set_uint_masked(&a, F(VLAN_VID), 0x1064, 0xffff);
    assert_false(ofp_match_is_masked(&a, F(VLAN_VID)));
    assert_int_equal(ofp_match_get_mask(&a, F(VLAN_VID)), 0x1fff);

    /* different value, different mask, extra field: not equal */
    ofp_match_init(&a);
    ofp_match_set_uint_masked(&a, F(METADATA), 0x10, 0xf0);
    b = a;
    assert_true(ofp_match_equal(&a, &b));
    ofp_match_set_uint_masked(&b, F(METADATA), 0x10, 0xff);
    assert_false(ofp_match_equal(&a, &b));
    assert_int_not_equal(ofp_match_hash(&a, 0), ofp_match_hash(&b, 0));
    b = a;
    ofp_match_set_uint(&b, F(TUNNEL_ID), 0);
    assert_false(ofp_match_equal(&a, &b));
    ofp_match_clear(&b, F(TUNNEL_ID));
    assert_true(ofp_match_equal(&a, &b));

    /* setters refuse what cannot exist */
    assert_int_equal(ofp_match_set_uint_masked(&a, F(TCP_DST), 80, 0xff00), -EINVAL);
    assert_int_equal(ofp_match_set_uint(&a, OFPXMT_OFB_COUNT, 1), -EINVAL);
    assert_int_equal(ofp_match_set_uint(&a, F(IPV6_SRC), 1), -EINVAL);   /* wider than 8 */
}

/* A match's hash is in every stored flow's key (the store's match_id, and
 * so the flow ids REST clients hold): a new version must give the same
 * value for the same match, whatever order the fields were set in. The
 * values are those of the version that first stored flows. */
static void test_hash_is_stable(void **state)
{
    struct ofp_match m;
    uint8_t mac[6] = {0x00, 0x16, 0x3e, 0x01, 0x02, 0x03}, mk[6] = {0xff, 0xff, 0xff, 0, 0, 0};
    (void)state;

    ofp_match_init(&m);
    ofp_match_set_uint(&m, F(TCP_DST), 443);
    ofp_match_set_uint(&m, F(IN_PORT), 7);
    ofp_match_set(&m, F(ETH_DST), mac, mk);
    ofp_match_set_uint(&m, F(ETH_TYPE), 0x0800);
    ofp_match_set_uint_masked(&m, F(IPV4_SRC), 0x0a000000, 0xff000000);
    ofp_match_set_uint(&m, F(IP_PROTO), 6);
    ofp_match_set_uint_masked(&m, F(TUNNEL_ID), 0x1234, 0xffff);
    assert_int_equal(ofp_match_hash(&m, 0), 0x5ddec98b7fecb86bull);
    assert_int_equal(ofp_match_hash(&m, 0x5eed), 0xabe8732e2c032f70ull);
}

static void test_format(void **state)
{
    struct ofp_match m;
    char s[256];
    static const uint8_t v6[16] = {0xfe, 0x80, [15] = 1};
    static const uint8_t mac[6] = {0, 0x11, 0x22, 0x33, 0x44, 0x55};
    static const uint8_t macmask[6] = {0xff, 0xff, 0xff, 0, 0, 0};
    (void)state;

    ofp_match_init(&m);
    ofp_match_format(&m, s, sizeof(s));
    assert_string_equal(s, "any");

    ofp_match_set_uint(&m, F(IN_PORT), 1);
    ofp_match_set(&m, F(ETH_DST), mac, macmask);
    ofp_match_set_uint(&m, F(ETH_TYPE), 0x86dd);
    ofp_match_set_uint(&m, F(VLAN_VID), 0x1064);
    ofp_match_set(&m, F(IPV6_SRC), v6, NULL);
    ofp_match_set_uint(&m, F(IP_PROTO), 6);
    ofp_match_set_uint(&m, F(TCP_DST), 443);
    int n = ofp_match_format(&m, s, sizeof(s));
    assert_string_equal(s, "in_port=1,eth_dst=00:11:22:33:44:55/ff:ff:ff:00:00:00,"
                           "eth_type=0x86dd,vlan_vid=0x1064,ip_proto=6,tcp_dst=443,"
                           "ipv6_src=fe80::1");
    assert_int_equal(n, (int)strlen(s));
    /* bounded: the return value still says how long it would be */
    char small[10];
    assert_int_equal(ofp_match_format(&m, small, sizeof(small)), n);
    assert_string_equal(small, "in_port=1");

    ofp_match_init(&m);
    ofp_match_set_uint(&m, F(ETH_TYPE), 0x0800);
    ofp_match_set_uint_masked(&m, F(IPV4_SRC), 0x0a000000, 0xff000000);
    ofp_match_format(&m, s, sizeof(s));
    assert_string_equal(s, "eth_type=0x0800,ipv4_src=10.0.0.0/255.0.0.0");
}

/* A match written out by hand from §7.2.3: eth_type=IPv4, ip_proto=TCP,
 * ipv4_src=10.0.0.0/8, tcp_dst=80 (field-number order, as ofcd encodes). */
static void test_spec_vector(void **state)
{
    uint8_t b[64], enc[64];
    struct ofp_match m;
    struct ofp_err err;
    struct ofp_buf ob;
    size_t used;
    (void)state;
    size_t n = ofp_test_hex("00 01 00 21"
                            "80 00 0a 02 08 00"                         /* ETH_TYPE */
                            "80 00 14 01 06"                            /* IP_PROTO */
                            "80 00 17 08 0a 00 00 00 ff 00 00 00"       /* IPV4_SRC masked */
                            "80 00 1c 02 00 50"                         /* TCP_DST */
                            "00 00 00 00 00 00 00",                     /* padding */
                            b, sizeof(b));
    assert_int_equal(n, 40);
    uint8_t *c = ofp_test_dup(b, n);
    assert_int_equal(ofp_match_decode(c, n, &m, &used, &err), 0);
    free(c);
    assert_int_equal(used, 40);
    assert_int_equal(m.present, 1ull << F(ETH_TYPE) | 1ull << F(IPV4_SRC) | 1ull << F(IP_PROTO) |
                                    1ull << F(TCP_DST));
    assert_int_equal(m.masked, 1ull << F(IPV4_SRC));
    assert_int_equal(ofp_match_get_uint(&m, F(ETH_TYPE)), 0x0800);
    assert_int_equal(ofp_match_get_uint(&m, F(IPV4_SRC)), 0x0a000000);
    assert_int_equal(ofp_match_get_mask(&m, F(IPV4_SRC)), 0xff000000);
    assert_int_equal(ofp_match_get_uint(&m, F(TCP_DST)), 80);
    assert_memory_equal(m.val.ipv4_src, "\x0a\0\0\0", 4);
    /* and our encoder writes these same bytes (field-number order) */
    ofp_buf_init(&ob, enc, sizeof(enc));
    assert_int_equal(ofp_match_encode(&ob, &m), 0);
    assert_int_equal(ob.len, 40);
    assert_int_equal(ofp_match_wire_len(&m), 40);
    assert_memory_equal(enc, b, 40);
    ofp_buf_init(&ob, enc, 39);
    assert_int_equal(ofp_match_encode(&ob, &m), -ENOSPC);
    assert_int_equal(ob.len, 0);
}

/* Non-strict selection: what a DELETE with match sel removes. */
static void test_within(void **state)
{
    struct ofp_match flow, sel;
    (void)state;

    ofp_match_init(&flow);
    ofp_match_set_uint(&flow, F(IN_PORT), 3);
    ofp_match_set_uint(&flow, F(ETH_TYPE), 0x0800);
    ofp_match_set_uint_masked(&flow, F(IPV4_DST), 0x0a000100, 0xffffff00);

    ofp_match_init(&sel);
    assert_true(ofp_match_within(&flow, &sel));               /* empty selects all */
    ofp_match_set_uint(&sel, F(ETH_TYPE), 0x0800);
    assert_true(ofp_match_within(&flow, &sel));
    ofp_match_set_uint_masked(&sel, F(IPV4_DST), 0x0a000000, 0xffff0000);
    assert_true(ofp_match_within(&flow, &sel));               /* /24 inside /16 */
    ofp_match_set_uint_masked(&sel, F(IPV4_DST), 0x0a000000, 0xffffff00);
    assert_false(ofp_match_within(&flow, &sel));              /* other /24 */
    ofp_match_set_uint(&sel, F(IPV4_DST), 0x0a000101);
    assert_false(ofp_match_within(&flow, &sel));              /* exact is narrower */
    assert_true(ofp_match_within(&sel, &flow) == false);      /* sel lacks in_port */

    ofp_match_init(&sel);
    ofp_match_set_uint(&sel, F(IN_PORT), 4);
    assert_false(ofp_match_within(&flow, &sel));
    ofp_match_init(&sel);
    ofp_match_set_uint(&sel, F(VLAN_VID), 0x1001);
    assert_false(ofp_match_within(&flow, &sel));              /* field absent in flow */
    assert_true(ofp_match_within(&flow, &flow));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_field_table),
        cmocka_unit_test(test_prerequisites),
        cmocka_unit_test(test_vlan_pcp_with_masked_vid),
        cmocka_unit_test(test_masks),
        cmocka_unit_test(test_bad_lengths),
        cmocka_unit_test(test_bad_type_field_dup),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_bad_wildcards),
        cmocka_unit_test(test_foreign_oxms_kept),
        cmocka_unit_test(test_canonical_and_equal),
        cmocka_unit_test(test_hash_is_stable),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_within),
        cmocka_unit_test(test_spec_vector),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
