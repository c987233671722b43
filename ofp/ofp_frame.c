/*
 * ofp_frame: see ofp_frame.h. Also the checks every codec starts with and
 * the begin/end pair every encoder frames its message with (ofp_priv.h).
 */
#include "ofp_frame.h"

#include <stdbool.h>

#include "ofp_priv.h"

#define MAXLEN OFP13_MAX_MSG_LEN

/* The lengths each type may have, header included (0/0: not OF1.3's). */
static const struct {
    uint16_t min, max;
} len_bounds[OFPT_COUNT] = {
    [OFPT_HELLO] = {8, MAXLEN},
    [OFPT_ERROR] = {12, MAXLEN},
    [OFPT_ECHO_REQUEST] = {8, MAXLEN},
    [OFPT_ECHO_REPLY] = {8, MAXLEN},
    [OFPT_EXPERIMENTER] = {16, MAXLEN},
    [OFPT_FEATURES_REQUEST] = {8, 8},
    [OFPT_FEATURES_REPLY] = {32, 32},
    [OFPT_GET_CONFIG_REQUEST] = {8, 8},
    [OFPT_GET_CONFIG_REPLY] = {12, 12},
    [OFPT_SET_CONFIG] = {12, 12},
    /* 24 fixed + an empty match (8 with padding) + 2 bytes of padding */
    [OFPT_PACKET_IN] = {34, MAXLEN},
    [OFPT_FLOW_REMOVED] = {56, MAXLEN},
    [OFPT_PORT_STATUS] = {80, 80},
    [OFPT_PACKET_OUT] = {24, MAXLEN},
    [OFPT_FLOW_MOD] = {56, MAXLEN},
    [OFPT_GROUP_MOD] = {16, MAXLEN},
    [OFPT_PORT_MOD] = {40, 40},
    [OFPT_TABLE_MOD] = {16, 16},
    [OFPT_MULTIPART_REQUEST] = {16, MAXLEN},
    [OFPT_MULTIPART_REPLY] = {16, MAXLEN},
    [OFPT_BARRIER_REQUEST] = {8, 8},
    [OFPT_BARRIER_REPLY] = {8, 8},
    [OFPT_QUEUE_GET_CONFIG_REQUEST] = {16, 16},
    [OFPT_QUEUE_GET_CONFIG_REPLY] = {16, MAXLEN},
    [OFPT_ROLE_REQUEST] = {24, 24},
    [OFPT_ROLE_REPLY] = {24, 24},
    [OFPT_GET_ASYNC_REQUEST] = {8, 8},
    [OFPT_GET_ASYNC_REPLY] = {32, 32},
    [OFPT_SET_ASYNC] = {32, 32},
    [OFPT_METER_MOD] = {16, MAXLEN},
};

int ofp_len_bounds(uint8_t type, uint16_t *min_len, uint16_t *max_len)
{
    if (type >= OFPT_COUNT || !len_bounds[type].min)
        return -ENOENT;
    *min_len = len_bounds[type].min;
    *max_len = len_bounds[type].max;
    return 0;
}

int ofp_hdr_peek(const uint8_t *buf, size_t avail, struct ofp_hdr *out)
{
    if (!buf || avail < OFP13_HEADER_LEN)
        return -EINVAL;
    const struct ofp13_header *h = (const void *)buf;
    out->version = h->version;
    out->type = h->type;
    out->length = be16toh(h->length);
    out->xid = be32toh(h->xid);
    return 0;
}

int ofp_frame(const uint8_t *buf, size_t avail, struct ofp_err *err)
{
    struct ofp_hdr h;

    if (ofp_hdr_peek(buf, avail, &h) < 0)
        return 0;
    if (h.length < OFP13_HEADER_LEN)
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    return avail >= h.length ? h.length : 0;
}

static bool any_version(uint8_t type)
{
    return type == OFPT_HELLO || type == OFPT_ERROR;
}

int ofp_hdr_check(const uint8_t *msg, size_t len, uint8_t type, struct ofp_err *err)
{
    struct ofp_hdr h;
    uint16_t min, max;

    if (!msg || ofp_hdr_peek(msg, len, &h) < 0)
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    if (h.version != OFP13_VERSION && !any_version(h.type))
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_VERSION);
    if (ofp_len_bounds(type, &min, &max) < 0 || h.type != type)
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_TYPE);
    if (h.length != len || len < min || len > max)
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    return 0;
}

uint8_t *ofp_msg_begin(struct ofp_buf *b, uint8_t type, uint32_t xid, size_t fixed_len,
                       size_t *start)
{
    size_t s = b->len;
    uint8_t *p = ofp_buf_put(b, fixed_len < OFP13_HEADER_LEN ? OFP13_HEADER_LEN : fixed_len);
    if (!p)
        return NULL;
    struct ofp13_header *h = (void *)p;
    h->version = OFP13_VERSION;
    h->type = type;
    h->xid = htobe32(xid);
    *start = s;
    return p;
}

int ofp_msg_end(struct ofp_buf *b, size_t start)
{
    size_t len = b->len - start;
    if (len > OFP13_MAX_MSG_LEN)
        return ofp_msg_abort(b, start, -EMSGSIZE);
    ofp_wr16(b->data + start + 2, (uint16_t)len);
    return 0;
}
