/*
 * ofp_flow: flow entries on the wire — FLOW_MOD, FLOW_REMOVED, and the FLOW /
 * AGGREGATE statistics request and reply entries of MULTIPART (framing in
 * ofp_mp).
 *
 * Message encoders/decoders follow the conventions of ofp_switch.h; the _put /
 * _parse functions handle one multipart body piece. Decoded instructions are views
 * into the message (see ofp_inst.h).
 */
#ifndef OFCD_OFP_FLOW_H
#define OFCD_OFP_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofp_buf.h"
#include "ofp_err.h"
#include "ofp_inst.h"
#include "ofp_oxm.h"
#include "ofp_wire.h"

/* ---- FLOW_MOD ------------------------------------------------------------- */

struct ofp_flow_mod {
    uint64_t cookie;
    uint64_t cookie_mask;     /* MODIFY/DELETE: which cookie bits must match */
    uint8_t table_id;         /* OFPTT_ALL only for DELETE* */
    uint8_t command;          /* OFPFC_* */
    uint16_t idle_timeout, hard_timeout;   /* seconds, 0 = none */
    uint16_t priority;
    uint32_t buffer_id;       /* OFP_NO_BUFFER normally */
    uint32_t out_port;        /* DELETE*: OFPP_ANY = any */
    uint32_t out_group;       /* DELETE*: OFPG_ANY = any */
    uint16_t flags;           /* OFPFF_* */
    struct ofp_match match;
    struct ofp_instructions inst;
};

/* Checks: command above DELETE_STRICT: OFPFMFC_BAD_COMMAND; unknown flags:
 * OFPFMFC_BAD_FLAGS; OFPTT_ALL with ADD/MODIFY*: OFPFMFC_BAD_TABLE_ID; the
 * match (OFPBMC_*, a match running past the message: OFPBMC_BAD_LEN), the
 * instructions (OFPBIC_*, OFPBAC_*). */
int ofp_flow_mod_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_flow_mod *fm);
int ofp_flow_mod_decode(const uint8_t *msg, size_t len, struct ofp_flow_mod *out,
                        struct ofp_err *err);

/* ---- FLOW_REMOVED ----------------------------------------------------------- */

struct ofp_flow_removed {
    uint64_t cookie;
    uint16_t priority;
    uint8_t reason;           /* OFPRR_* */
    uint8_t table_id;
    uint32_t duration_sec, duration_nsec;
    uint16_t idle_timeout, hard_timeout;
    uint64_t packet_count, byte_count;
    struct ofp_match match;
};

/* Bytes after the (padded) match: OFPBRC_BAD_LEN. */
int ofp_flow_removed_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_flow_removed *fr);
int ofp_flow_removed_decode(const uint8_t *msg, size_t len, struct ofp_flow_removed *out,
                            struct ofp_err *err);

/* ---- FLOW / AGGREGATE statistics ------------------------------------------- */

/* The body of a FLOW or AGGREGATE request. */
struct ofp_flow_stats_request {
    uint8_t table_id;         /* or OFPTT_ALL */
    uint32_t out_port;        /* or OFPP_ANY */
    uint32_t out_group;       /* or OFPG_ANY */
    uint64_t cookie, cookie_mask;
    struct ofp_match match;
};

/* One entry of a FLOW reply. */
struct ofp_flow_stats {
    uint8_t table_id;
    uint32_t duration_sec, duration_nsec;
    uint16_t priority;
    uint16_t idle_timeout, hard_timeout;
    uint16_t flags;
    uint64_t cookie;
    uint64_t packet_count, byte_count;
    struct ofp_match match;
    struct ofp_instructions inst;
};

/* The body of an AGGREGATE reply. */
struct ofp_aggregate_stats {
    uint64_t packet_count, byte_count;
    uint32_t flow_count;
};

int ofp_flow_stats_request_put(struct ofp_buf *b, const struct ofp_flow_stats_request *r);
/* The body is exactly len bytes: anything but one padded request there is
 * OFPBRC_BAD_LEN (or OFPBMC_* from the match). */
int ofp_flow_stats_request_parse(const uint8_t *p, size_t len, struct ofp_flow_stats_request *out,
                                 struct ofp_err *err);
bool ofp_flow_stats_request_equal(const struct ofp_flow_stats_request *a,
                                  const struct ofp_flow_stats_request *b);

int ofp_flow_stats_put(struct ofp_buf *b, const struct ofp_flow_stats *fs);
/* One entry at p (avail bytes): length field < 56, not a multiple of 8 or
 * past avail: OFPBRC_BAD_LEN; a match running past the entry:
 * OFPBMC_BAD_LEN; then match and instruction checks. *used = the entry's
 * length. */
int ofp_flow_stats_parse(const uint8_t *p, size_t avail, struct ofp_flow_stats *out, size_t *used,
                         struct ofp_err *err);
bool ofp_flow_stats_equal(const struct ofp_flow_stats *a, const struct ofp_flow_stats *b);

#endif
