/*
 * ofp_meter: meters — METER_MOD with its bands, and the METER (stats) entries
 * of MULTIPART (framing in ofp_mp).
 *
 * A band list is a zero-copy view (decoded) or an array (to encode), walked
 * by one iterator. Message functions follow the conventions of ofp_switch.h.
 */
#ifndef OFCD_OFP_METER_H
#define OFCD_OFP_METER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofp_buf.h"
#include "ofp_err.h"
#include "ofp_wire.h"

struct ofp_meter_band {
    uint16_t type;            /* OFPMBT_* */
    uint32_t rate;            /* kbps or packets/s per the meter's flags */
    uint32_t burst_size;
    uint8_t prec_level;       /* DSCP_REMARK */
    uint32_t experimenter;    /* EXPERIMENTER */
    const uint8_t *exp_data;  /* EXPERIMENTER: bytes after the 16-byte band */
    uint16_t exp_len;         /* a multiple of 8 */
};

struct ofp_meter_bands {
    const uint8_t *wire;
    uint16_t wire_len;
    const struct ofp_meter_band *arr;
    uint16_t n;
};

bool ofp_meter_bands_next(const struct ofp_meter_bands *l, uint32_t *pos,
                          struct ofp_meter_band *out);
/* Band length < 16, not a multiple of 8, past the list, not 16 for DROP and
 * DSCP_REMARK, or an unknown type: OFPMMFC_BAD_BAND. */
int ofp_meter_bands_decode(const uint8_t *p, size_t len, struct ofp_meter_bands *out,
                           struct ofp_err *err);
int ofp_meter_bands_encode(struct ofp_buf *b, const struct ofp_meter_bands *l);
bool ofp_meter_bands_equal(const struct ofp_meter_bands *a, const struct ofp_meter_bands *b);

/* ---- METER_MOD ------------------------------------------------------------- */

struct ofp_meter_mod {
    uint16_t command;         /* OFPMC_* */
    uint16_t flags;           /* OFPMF_* */
    uint32_t meter_id;        /* 1..OFPM_MAX, OFPM_SLOWPATH, OFPM_CONTROLLER; OFPM_ALL for DELETE */
    struct ofp_meter_bands bands;
};

/* command unknown: OFPMMFC_BAD_COMMAND; unknown flags: OFPMMFC_BAD_FLAGS;
 * meter_id 0, between OFPM_MAX and the virtual meters, or OFPM_ALL outside
 * DELETE: OFPMMFC_INVALID_METER; bands as above. */
int ofp_meter_mod_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_meter_mod *mm);
int ofp_meter_mod_decode(const uint8_t *msg, size_t len, struct ofp_meter_mod *out,
                         struct ofp_err *err);

/* ---- statistics entries ------------------------------------------------------ */

struct ofp_meter_band_stats {
    uint64_t packet_band_count, byte_band_count;
};

struct ofp_meter_stats {
    uint32_t meter_id;
    uint32_t flow_count;
    uint64_t packet_in_count, byte_in_count;
    uint32_t duration_sec, duration_nsec;
    const uint8_t *bands_wire;     /* decoded: n_bands × 16 bytes */
    const struct ofp_meter_band_stats *bands;  /* to encode */
    uint16_t n_bands;
};

bool ofp_meter_stats_band(const struct ofp_meter_stats *m, uint16_t i,
                          struct ofp_meter_band_stats *out);
int ofp_meter_stats_put(struct ofp_buf *b, const struct ofp_meter_stats *m);
/* len < 40, past avail, or not 40 + 16n: OFPBRC_BAD_LEN. */
int ofp_meter_stats_parse(const uint8_t *p, size_t avail, struct ofp_meter_stats *out,
                          size_t *used, struct ofp_err *err);
bool ofp_meter_stats_equal(const struct ofp_meter_stats *a, const struct ofp_meter_stats *b);

#endif
