/*
 * emu_oxm.h - OXM match semantics of the switch emulator: validation, normalisation and
 * the set relations the flow table needs.
 *
 * A normalised match is a byte string of OXM TLVs sorted by (class, field), without
 * duplicates, where a mask of all-ones is dropped (the field becomes exact), a mask of
 * all-zeros drops the field, and masked-out value bits are zero.  Two normalised matches
 * are then equal exactly when their byte strings are equal, which is what strict
 * modify/delete and "identical match" replacement compare.
 *
 * Fields of the OPENFLOW_BASIC class are checked against the OF1.3 field table (length,
 * maskability, value range, prerequisites); TLVs of other classes are kept as opaque
 * bytes and compared exactly.
 */
#ifndef EMU_OXM_H
#define EMU_OXM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu_ofp.h"

#define EMU_OXM_CLASS_BASIC 0x8000
/* Most TLVs a match may carry (there are 40 basic fields). */
#define EMU_OXM_MAX_TLVS 64

enum emu_oxm_field {
    EMU_OXM_IN_PORT = 0,
    EMU_OXM_IN_PHY_PORT = 1,
    EMU_OXM_METADATA = 2,
    EMU_OXM_ETH_DST = 3,
    EMU_OXM_ETH_SRC = 4,
    EMU_OXM_ETH_TYPE = 5,
    EMU_OXM_VLAN_VID = 6,
    EMU_OXM_VLAN_PCP = 7,
    EMU_OXM_IP_DSCP = 8,
    EMU_OXM_IP_ECN = 9,
    EMU_OXM_IP_PROTO = 10,
    EMU_OXM_IPV4_SRC = 11,
    EMU_OXM_IPV4_DST = 12,
    EMU_OXM_TCP_SRC = 13,
    EMU_OXM_TCP_DST = 14,
    EMU_OXM_UDP_SRC = 15,
    EMU_OXM_UDP_DST = 16,
    EMU_OXM_SCTP_SRC = 17,
    EMU_OXM_SCTP_DST = 18,
    EMU_OXM_ICMPV4_TYPE = 19,
    EMU_OXM_ICMPV4_CODE = 20,
    EMU_OXM_ARP_OP = 21,
    EMU_OXM_ARP_SPA = 22,
    EMU_OXM_ARP_TPA = 23,
    EMU_OXM_ARP_SHA = 24,
    EMU_OXM_ARP_THA = 25,
    EMU_OXM_IPV6_SRC = 26,
    EMU_OXM_IPV6_DST = 27,
    EMU_OXM_IPV6_FLABEL = 28,
    EMU_OXM_ICMPV6_TYPE = 29,
    EMU_OXM_ICMPV6_CODE = 30,
    EMU_OXM_IPV6_ND_TARGET = 31,
    EMU_OXM_IPV6_ND_SLL = 32,
    EMU_OXM_IPV6_ND_TLL = 33,
    EMU_OXM_MPLS_LABEL = 34,
    EMU_OXM_MPLS_TC = 35,
    EMU_OXM_MPLS_BOS = 36,
    EMU_OXM_PBB_ISID = 37,
    EMU_OXM_TUNNEL_ID = 38,
    EMU_OXM_IPV6_EXTHDR = 39,
    EMU_OXM_FIELD_COUNT = 40,
};

/* Appends one OPENFLOW_BASIC TLV; mask NULL for an exact field. len is the value length. */
void emu_oxm_put(struct emu_wr *w, uint8_t field, const void *value, const void *mask,
                 size_t len);
void emu_oxm_put_u8(struct emu_wr *w, uint8_t field, uint8_t v);
void emu_oxm_put_u16(struct emu_wr *w, uint8_t field, uint16_t v);
void emu_oxm_put_u32(struct emu_wr *w, uint8_t field, uint32_t v);
void emu_oxm_put_u32m(struct emu_wr *w, uint8_t field, uint32_t v, uint32_t mask);

/*
 * Validates the TLVs in[0..in_len) and writes their normalised form to out (out_cap
 * >= in_len always suffices: normalising never grows a match).
 * Returns 0, or -EBADMSG with *err set to the OFPET_BAD_MATCH code a switch sends.
 */
int emu_oxm_normalise(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
                      size_t *out_len, struct emu_oferr *err);

/* Non-strict selection: true when every packet matching `flow` also matches `filter`,
 * i.e. the filter is equal to or more wildcarded than the flow, field by field.
 * Both arguments are normalised matches. */
bool emu_oxm_within(const uint8_t *filter, size_t filter_len, const uint8_t *flow,
                    size_t flow_len);

/* OFPFF_CHECK_OVERLAP: true when some packet could match both normalised matches. */
bool emu_oxm_overlap(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len);

/* Finds a basic field in a normalised match; value/mask views (mask NULL when exact). */
bool emu_oxm_find(const uint8_t *m, size_t len, uint8_t field, const uint8_t **value,
                  const uint8_t **mask, size_t *vlen);

#endif /* EMU_OXM_H */
