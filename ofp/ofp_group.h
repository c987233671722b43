/*
 * ofp_group: groups — GROUP_MOD with its buckets, and the GROUP (stats) and
 * GROUP_DESC entries of MULTIPART (framing in ofp_mp).
 *
 * A bucket list, like an action list, is either a zero-copy view of
 * validated wire bytes (decoded) or an array (to encode), walked by one
 * iterator. Message functions follow the conventions of ofp_switch.h.
 */
#ifndef OFCD_OFP_GROUP_H
#define OFCD_OFP_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofp_action.h"
#include "ofp_buf.h"
#include "ofp_err.h"
#include "ofp_wire.h"

struct ofp_bucket {
    uint16_t weight;          /* SELECT groups only */
    uint32_t watch_port;      /* FF groups: OFPP_ANY = none */
    uint32_t watch_group;     /* FF groups: OFPG_ANY = none */
    struct ofp_actions actions;
};

struct ofp_buckets {
    const uint8_t *wire;      /* decoded form, or NULL */
    uint16_t wire_len;
    const struct ofp_bucket *arr;  /* encode form */
    uint16_t n;
};

/* *pos starts at 0. */
bool ofp_buckets_next(const struct ofp_buckets *l, uint32_t *pos, struct ofp_bucket *out);
/* Bucket length < 16, not a multiple of 8 or past the list:
 * OFPGMFC_BAD_BUCKET; its actions: OFPBAC_*. */
int ofp_buckets_decode(const uint8_t *p, size_t len, struct ofp_buckets *out, struct ofp_err *err);
int ofp_buckets_encode(struct ofp_buf *b, const struct ofp_buckets *l);
bool ofp_buckets_equal(const struct ofp_buckets *a, const struct ofp_buckets *b);

/* ---- GROUP_MOD ------------------------------------------------------------ */

struct ofp_group_mod {
    uint16_t command;         /* OFPGC_* */
    uint8_t type;             /* OFPGT_* */
    uint32_t group_id;        /* <= OFPG_MAX; OFPG_ALL for DELETE */
    struct ofp_buckets buckets;
};

/* command unknown: OFPGMFC_BAD_COMMAND; type unknown: OFPGMFC_BAD_TYPE;
 * group_id above OFPG_MAX (except OFPG_ALL with DELETE):
 * OFPGMFC_INVALID_GROUP; buckets as above. */
int ofp_group_mod_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_group_mod *gm);
int ofp_group_mod_decode(const uint8_t *msg, size_t len, struct ofp_group_mod *out,
                         struct ofp_err *err);

/* ---- statistics entries ----------------------------------------------------- */

struct ofp_bucket_counter {
    uint64_t packet_count, byte_count;
};

struct ofp_group_stats {
    uint32_t group_id;
    uint32_t ref_count;
    uint64_t packet_count, byte_count;
    uint32_t duration_sec, duration_nsec;
    const uint8_t *counters_wire;  /* decoded: n_counters × 16 bytes */
    const struct ofp_bucket_counter *counters;  /* to encode */
    uint16_t n_counters;
};

/* Counter i of either form (false past the end). */
bool ofp_group_stats_counter(const struct ofp_group_stats *g, uint16_t i,
                             struct ofp_bucket_counter *out);

struct ofp_group_desc {
    uint8_t type;
    uint32_t group_id;
    struct ofp_buckets buckets;
};

int ofp_group_stats_put(struct ofp_buf *b, const struct ofp_group_stats *g);
/* length < 40, past avail, or not 40 + 16n: OFPBRC_BAD_LEN. */
int ofp_group_stats_parse(const uint8_t *p, size_t avail, struct ofp_group_stats *out,
                          size_t *used, struct ofp_err *err);
bool ofp_group_stats_equal(const struct ofp_group_stats *a, const struct ofp_group_stats *b);

int ofp_group_desc_put(struct ofp_buf *b, const struct ofp_group_desc *g);
/* length < 8, not a multiple of 8 or past avail: OFPBRC_BAD_LEN. */
int ofp_group_desc_parse(const uint8_t *p, size_t avail, struct ofp_group_desc *out,
                         size_t *used, struct ofp_err *err);
bool ofp_group_desc_equal(const struct ofp_group_desc *a, const struct ofp_group_desc *b);

#endif
