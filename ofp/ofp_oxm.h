/*
 * ofp_oxm: the OpenFlow 1.3 match — all 40 OXM basic fields (IN_PORT ..
 * IPV6_EXTHDR) in a version-independent struct ofp_match, its wire form
 * (struct ofp_match + OXM TLVs + padding), the checks a switch makes on it,
 * equality/hash for the flow manager, and a text form for logs.
 *
 * struct ofp_match keeps values and masks in network byte order at fixed
 * places (struct ofp_match_fields, one member per field), a bitmap of the
 * fields present and one of those carrying a mask. The setters keep it
 * canonical — absent fields and unused masks are zero, a mask equal to the
 * field's full width is stored as an exact match — so two matches that mean
 * the same compare equal and hash alike. OXMs of other classes (Nicira
 * NXM_0/NXM_1, experimenter) are not interpreted: they are kept verbatim,
 * in received order, and encoded back after the basic fields.
 *
 * Checks made by ofp_match_check() and by the decoder, with the error each
 * gives (OFPET_BAD_MATCH):
 *   match type not OXM                       OFPBMC_BAD_TYPE
 *   TLV/match length wrong or truncated      OFPBMC_BAD_LEN
 *   basic field number unknown (>= 40)       OFPBMC_BAD_FIELD
 *   field repeated                           OFPBMC_DUP_FIELD
 *   mask on a field the spec does not mask   OFPBMC_BAD_MASK
 *   value wider than the field (e.g. PCP>7)  OFPBMC_BAD_VALUE
 *   value bit set where the mask is 0        OFPBMC_BAD_WILDCARDS
 *   prerequisite missing or different        OFPBMC_BAD_PREREQ
 *   more foreign OXM bytes than we keep      OFPBMC_BAD_FIELD
 * Prerequisites are those of the 1.3.5 spec table (IP_PROTO needs ETH_TYPE
 * 0x0800 or 0x86dd; TCP_* needs IP_PROTO 6; VLAN_PCP needs VLAN_VID with the
 * OFPVID_PRESENT bit matched; IPV6_ND_SLL needs ICMPV6_TYPE 135; ...).
 * They are checked whatever the TLV order (the spec asks senders to put
 * prerequisites first; ofcd accepts either order and always encodes in
 * field-number order, which satisfies it).
 */
#ifndef OFCD_OFP_OXM_H
#define OFCD_OFP_OXM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofp_buf.h"
#include "ofp_err.h"
#include "ofp_wire.h"

/* Every basic field at a fixed place, network byte order, no padding. */
struct ofp_match_fields {
    uint8_t in_port[4];
    uint8_t in_phy_port[4];
    uint8_t metadata[8];
    uint8_t eth_dst[6];
    uint8_t eth_src[6];
    uint8_t eth_type[2];
    uint8_t vlan_vid[2];
    uint8_t vlan_pcp[1];
    uint8_t ip_dscp[1];
    uint8_t ip_ecn[1];
    uint8_t ip_proto[1];
    uint8_t ipv4_src[4];
    uint8_t ipv4_dst[4];
    uint8_t tcp_src[2];
    uint8_t tcp_dst[2];
    uint8_t udp_src[2];
    uint8_t udp_dst[2];
    uint8_t sctp_src[2];
    uint8_t sctp_dst[2];
    uint8_t icmpv4_type[1];
    uint8_t icmpv4_code[1];
    uint8_t arp_op[2];
    uint8_t arp_spa[4];
    uint8_t arp_tpa[4];
    uint8_t arp_sha[6];
    uint8_t arp_tha[6];
    uint8_t ipv6_src[16];
    uint8_t ipv6_dst[16];
    uint8_t ipv6_flabel[4];
    uint8_t icmpv6_type[1];
    uint8_t icmpv6_code[1];
    uint8_t ipv6_nd_target[16];
    uint8_t ipv6_nd_sll[6];
    uint8_t ipv6_nd_tll[6];
    uint8_t mpls_label[4];
    uint8_t mpls_tc[1];
    uint8_t mpls_bos[1];
    uint8_t pbb_isid[3];
    uint8_t tunnel_id[8];
    uint8_t ipv6_exthdr[2];
};

/* Foreign (non-basic) OXM bytes kept per match. */
#define OFP_MATCH_OTHER_MAX 128

struct ofp_match {
    uint64_t present;         /* bit f: basic field f (OFPXMT_OFB_*) present */
    uint64_t masked;          /* bit f: field f carries a (non-full) mask */
    struct ofp_match_fields val;
    struct ofp_match_fields mask;
    uint16_t other_len;       /* bytes used in other[] */
    uint8_t other[OFP_MATCH_OTHER_MAX];   /* non-basic OXM TLVs, verbatim */
};

/* ---- the field table ---------------------------------------------------- */

/* Field name as in the spec without prefix, lowercase ("ipv4_src"); NULL
 * for an unknown field. */
const char *ofp_oxm_field_name(unsigned field);
/* Name → field number, or -ENOENT. */
int ofp_oxm_field_from_name(const char *name);
/* Value size in bytes (0 for an unknown field). */
unsigned ofp_oxm_field_len(unsigned field);
/* Whether OF1.3 allows a mask on the field. */
bool ofp_oxm_field_maskable(unsigned field);

/* ---- building and reading a match ---------------------------------------- */

void ofp_match_init(struct ofp_match *m);

/* Set field to value (ofp_oxm_field_len bytes, network order), with mask
 * (same size) or NULL for exact. Mask bits beyond the field's width are
 * dropped; a full mask is stored as exact. Returns 0, -EINVAL for an
 * unknown field or a mask on a non-maskable field. Value/mask consistency
 * is ofp_match_check's business, so a test can build a bad match. */
int ofp_match_set(struct ofp_match *m, unsigned field, const void *value, const void *mask);

/* Same for fields of at most 8 bytes, value in host order. */
int ofp_match_set_uint(struct ofp_match *m, unsigned field, uint64_t value);
int ofp_match_set_uint_masked(struct ofp_match *m, unsigned field, uint64_t value,
                              uint64_t mask);

void ofp_match_clear(struct ofp_match *m, unsigned field);

static inline bool ofp_match_has(const struct ofp_match *m, unsigned field)
{
    return field < OFPXMT_OFB_COUNT && (m->present >> field & 1);
}

static inline bool ofp_match_is_masked(const struct ofp_match *m, unsigned field)
{
    return field < OFPXMT_OFB_COUNT && (m->masked >> field & 1);
}

/* Pointers to the field's value / mask bytes inside m (network order), or
 * NULL for an unknown field. */
const uint8_t *ofp_match_value(const struct ofp_match *m, unsigned field);
const uint8_t *ofp_match_mask(const struct ofp_match *m, unsigned field);

/* Value (or mask; all ones for an exact field) of a field of <= 8 bytes in
 * host order; 0 when absent. */
uint64_t ofp_match_get_uint(const struct ofp_match *m, unsigned field);
uint64_t ofp_match_get_mask(const struct ofp_match *m, unsigned field);

/* ---- checks, wire form -------------------------------------------------- */

/* Value width, value-within-mask and prerequisite checks (see the table
 * above). 0 or -EBADMSG with *err set. */
int ofp_match_check(const struct ofp_match *m, struct ofp_err *err);

/* Bytes the wire form takes, padding included. */
size_t ofp_match_wire_len(const struct ofp_match *m);

/* Append the wire form (ofp_match header, TLVs, zero padding to 8).
 * 0, -ENOSPC (nothing appended). Encodes whatever m holds: run
 * ofp_match_check first when m comes from outside. */
int ofp_match_encode(struct ofp_buf *b, const struct ofp_match *m);

/* Decode the wire match at p (avail bytes available from p), run every
 * check, and return in *used the padded length consumed. 0 or -EBADMSG
 * with *err set (OFPET_BAD_MATCH codes; padding beyond avail is
 * OFPBMC_BAD_LEN). */
int ofp_match_decode(const uint8_t *p, size_t avail, struct ofp_match *m, size_t *used,
                     struct ofp_err *err);

/* One OXM TLV seen on the wire (any class). */
struct ofp_oxm_tlv {
    uint16_t oxm_class;
    uint8_t field;
    bool hasmask;
    uint8_t len;              /* payload length (value + mask) */
    const uint8_t *payload;
};

/* Split the TLV at p: 0, or -EINVAL when its header or payload does not fit
 * in avail bytes. No semantic check. */
int ofp_oxm_parse(const uint8_t *p, size_t avail, struct ofp_oxm_tlv *out);

/* Whether the value (len bytes) fits the field's width (e.g. VLAN_PCP <= 7). */
bool ofp_oxm_value_ok(unsigned field, const uint8_t *value);

/* ---- comparing, hashing, printing ---------------------------------------- */

bool ofp_match_equal(const struct ofp_match *a, const struct ofp_match *b);

/* Whether every packet m matches is also matched by sel: each field of sel
 * is in m, with m's mask covering sel's and equal values under sel's mask.
 * The selection rule of non-strict MODIFY/DELETE and flow statistics. */
bool ofp_match_within(const struct ofp_match *m, const struct ofp_match *sel);

/* Hash of what the match means (equal matches hash alike). */
uint64_t ofp_match_hash(const struct ofp_match *m, uint64_t seed);

/* "in_port=1,eth_type=0x0800,ipv4_src=10.0.0.0/255.255.255.0" — "any" for an
 * empty match. snprintf semantics (returns the length needed). */
int ofp_match_format(const struct ofp_match *m, char *buf, size_t size);

#endif
