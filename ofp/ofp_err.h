/*
 * ofp_err: OpenFlow 1.3 errors — the {type, code} pair every decoder reports,
 * the names the specification gives them (one table, looked up both ways),
 * and the OFPT_ERROR message itself.
 *
 * OpenFlow errors are never mixed into errno values: a decoder returns
 * -EBADMSG and fills a struct ofp_err, which the channel layer turns into an
 * OFPT_ERROR with ofp_error_reply() (the offending message's xid and its
 * first OFP_ERROR_DATA_MAX bytes). Note that {0, 0} is a real error
 * (OFPET_HELLO_FAILED / OFPHFC_INCOMPATIBLE), not "no error".
 */
#ifndef OFCD_OFP_ERR_H
#define OFCD_OFP_ERR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofp_buf.h"
#include "ofp_wire.h"

struct ofp_err {
    uint16_t type;            /* OFPET_* */
    uint16_t code;            /* OFPHFC_*, OFPBRC_*, ... depending on type */
};

#define OFP_ERR(t, c) ((struct ofp_err){(uint16_t)(t), (uint16_t)(c)})

/* How many bytes of the offending message an error we send carries. */
#define OFP_ERROR_DATA_MAX 64

/* "OFPET_BAD_MATCH", or NULL for a type the specification does not define. */
const char *ofp_err_type_name(uint16_t type);

/* "OFPBMC_BAD_PREREQ", or NULL for an unknown type/code pair. */
const char *ofp_err_code_name(uint16_t type, uint16_t code);

/* Name → error. Accepts a code name ("OFPBRC_BAD_LEN", unique across types),
 * or "TYPE/CODE" ("OFPET_BAD_REQUEST/OFPBRC_BAD_LEN", the pair must agree).
 * Returns 0, -EINVAL for NULL, -ENOENT when unknown. */
int ofp_err_from_name(const char *name, struct ofp_err *out);

/* Name → type ("OFPET_BAD_REQUEST"): 0 or -ENOENT. */
int ofp_err_type_from_name(const char *name, uint16_t *type);

/* "OFPET_BAD_MATCH/OFPBMC_BAD_PREREQ", numbers where names are unknown
 * ("type=20/code=3"). snprintf semantics: returns the length it needed. */
int ofp_err_format(struct ofp_err err, char *buf, size_t size);

static inline bool ofp_err_eq(struct ofp_err a, struct ofp_err b)
{
    return a.type == b.type && a.code == b.code;
}

/* ---- OFPT_ERROR --------------------------------------------------------- */

struct ofp_error {
    uint16_t type;            /* OFPET_* */
    uint16_t code;            /* unused when type == OFPET_EXPERIMENTER */
    uint16_t exp_type;        /* OFPET_EXPERIMENTER only */
    uint32_t experimenter;    /* OFPET_EXPERIMENTER only */
    /* For most types the start of the offending request; for HELLO_FAILED
     * an ASCII explanation. Zero-copy view into the decoded buffer. */
    const uint8_t *data;
    uint16_t data_len;
};

/* Encode an OFPT_ERROR. 0, -ENOSPC, -EMSGSIZE. */
int ofp_error_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_error *e);

/* The reply to a message that failed with err: xid taken from the offending
 * header (0 when fewer than 8 bytes), data = its first up-to-64 bytes.
 * 0 or -ENOSPC. */
int ofp_error_reply(struct ofp_buf *b, struct ofp_err err, const uint8_t *offending, size_t len);

/* Decode an OFPT_ERROR message of len bytes (header included).
 * 0, or -EBADMSG with *err set (OFPBRC_BAD_LEN when too short). */
int ofp_error_decode(const uint8_t *msg, size_t len, struct ofp_error *out, struct ofp_err *err);

#endif
