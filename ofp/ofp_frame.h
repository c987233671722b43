/*
 * ofp_frame: an OpenFlow 1.3 message's header and frame, below every
 * message's codec: reading a header, finding a message's end in a byte
 * stream, the length each type may have. The codecs (ofp_*.c) check and
 * frame their messages with it (ofp_priv.h: ofp_hdr_check, ofp_msg_begin,
 * ofp_msg_end); ofp_msg.c's table, above the codecs, dispatches to them.
 */
#ifndef OFCD_OFP_FRAME_H
#define OFCD_OFP_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "ofp_err.h"
#include "ofp_wire.h"

struct ofp_hdr {
    uint8_t version;
    uint8_t type;
    uint16_t length;
    uint32_t xid;
};

/* Header fields of buf (at least 8 bytes): 0 or -EINVAL. */
int ofp_hdr_peek(const uint8_t *buf, size_t avail, struct ofp_hdr *out);

/* Find the first message in a byte stream. Returns its length (> 0) when
 * all of it is in buf, 0 when more bytes are needed, or -EBADMSG with
 * OFPBRC_BAD_LEN when the header's length is below 8 — the stream cannot
 * be resynchronised after that, the connection should close after the
 * error is sent. */
int ofp_frame(const uint8_t *buf, size_t avail, struct ofp_err *err);

/* The lengths a message of type may have, header included: 0, or -ENOENT
 * for a type OF1.3 does not define. */
int ofp_len_bounds(uint8_t type, uint16_t *min_len, uint16_t *max_len);

#endif
