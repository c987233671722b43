/*
 * ofp_mp: MULTIPART_REQUEST / MULTIPART_REPLY framing, the body of each
 * multipart type ofcd uses (DESC, FLOW, AGGREGATE, TABLE, PORT_STATS, QUEUE,
 * GROUP, GROUP_DESC, METER, PORT_DESC), and reassembly of replies split over
 * several messages with OFPMPF_REPLY_MORE.
 *
 * A decoded reply's entries stay in the received bytes: the decoder checks
 * every entry once, then the typed iterators (ofp_mp_next_*) walk them
 * without copying; to encode, the caller gives an array instead (arr, n)
 * and the same iterators walk that. The other multipart types
 * (GROUP_FEATURES, METER_CONFIG, METER_FEATURES, TABLE_FEATURES,
 * EXPERIMENTER) are accepted with their body kept as raw bytes. An unknown
 * multipart type is OFPBRC_BAD_MULTIPART; a body whose size does not fit its
 * type is OFPBRC_BAD_LEN.
 *
 * Reassembly (struct ofp_mp_asm): either collect the parts' bodies into a
 * caller buffer and iterate the whole reply at the end, or (no buffer)
 * iterate each part as it arrives and let the assembler only track xid,
 * type and completion.
 */
#ifndef OFCD_OFP_MP_H
#define OFCD_OFP_MP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofp_buf.h"
#include "ofp_err.h"
#include "ofp_flow.h"
#include "ofp_group.h"
#include "ofp_meter.h"
#include "ofp_port.h"
#include "ofp_wire.h"

/* DESC reply: the wire strings, NUL-terminated (at most 255/31 characters). */
struct ofp_desc {
    char mfr_desc[DESC_STR_LEN];
    char hw_desc[DESC_STR_LEN];
    char sw_desc[DESC_STR_LEN];
    char serial_num[SERIAL_NUM_LEN];
    char dp_desc[DESC_STR_LEN];
};

struct ofp_table_stats {
    uint8_t table_id;
    uint32_t active_count;
    uint64_t lookup_count, matched_count;
};

struct ofp_mp_request {
    uint16_t type;            /* OFPMP_* */
    uint16_t flags;           /* OFPMPF_REQ_MORE */
    union {
        struct ofp_flow_stats_request flow;   /* FLOW, AGGREGATE */
        uint32_t port_no;                     /* PORT_STATS (OFPP_ANY = all) */
        struct {
            uint32_t port_no;
            uint32_t queue_id;                /* OFPQ_ALL = all */
        } queue;                              /* QUEUE */
        uint32_t group_id;                    /* GROUP (OFPG_ALL = all) */
        uint32_t meter_id;                    /* METER, METER_CONFIG (OFPM_ALL = all) */
        struct {
            uint32_t experimenter;
            uint32_t exp_type;
        } exp;                                /* EXPERIMENTER (data in body) */
    } u;
    const uint8_t *body;      /* raw types and EXPERIMENTER data: zero-copy */
    uint16_t body_len;
};

struct ofp_mp_reply {
    uint16_t type;            /* OFPMP_* */
    uint16_t flags;           /* OFPMPF_REPLY_MORE */
    /* Entries (FLOW, TABLE, PORT_STATS, QUEUE, GROUP, GROUP_DESC, METER,
     * PORT_DESC) and raw bodies: validated bytes after the multipart header
     * (decoded form), zero-copy ... */
    const uint8_t *body;
    uint16_t body_len;
    /* ... or, to encode when body is NULL, an array of the type's entry
     * struct: ofp_flow_stats, ofp_table_stats, ofp_port_stats,
     * ofp_queue_stats, ofp_group_stats, ofp_group_desc, ofp_meter_stats,
     * ofp_port. */
    const void *arr;
    uint32_t n;
    union {
        struct ofp_desc desc;                 /* DESC */
        struct ofp_aggregate_stats agg;       /* AGGREGATE */
        struct {
            uint32_t experimenter;
            uint32_t exp_type;
        } exp;                                /* EXPERIMENTER (data in body) */
    } u;
};

int ofp_mp_request_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_mp_request *r);
int ofp_mp_request_decode(const uint8_t *msg, size_t len, struct ofp_mp_request *out,
                          struct ofp_err *err);
int ofp_mp_reply_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_mp_reply *r);
int ofp_mp_reply_decode(const uint8_t *msg, size_t len, struct ofp_mp_reply *out,
                        struct ofp_err *err);

/* Check a reply body of the given type and fill *out from it (body view and
 * the single-object types). Used by the decoder and by reassembly.
 * 0 or -EBADMSG with *err set. */
int ofp_mp_reply_body_parse(uint16_t type, uint16_t flags, const uint8_t *body, size_t len,
                            struct ofp_mp_reply *out, struct ofp_err *err);

/* ---- iterating a reply's entries ------------------------------------------- */

struct ofp_mp_iter {
    const struct ofp_mp_reply *reply;
    uint32_t pos;             /* byte offset (body) or index (arr) */
};

static inline void ofp_mp_iter_init(struct ofp_mp_iter *it, const struct ofp_mp_reply *r)
{
    it->reply = r;
    it->pos = 0;
}

/* Each returns false at the end, or when the reply is of another type. */
bool ofp_mp_next_flow_stats(struct ofp_mp_iter *it, struct ofp_flow_stats *out);
bool ofp_mp_next_table_stats(struct ofp_mp_iter *it, struct ofp_table_stats *out);
bool ofp_mp_next_port_stats(struct ofp_mp_iter *it, struct ofp_port_stats *out);
bool ofp_mp_next_queue_stats(struct ofp_mp_iter *it, struct ofp_queue_stats *out);
bool ofp_mp_next_group_stats(struct ofp_mp_iter *it, struct ofp_group_stats *out);
bool ofp_mp_next_group_desc(struct ofp_mp_iter *it, struct ofp_group_desc *out);
bool ofp_mp_next_meter_stats(struct ofp_mp_iter *it, struct ofp_meter_stats *out);
bool ofp_mp_next_port(struct ofp_mp_iter *it, struct ofp_port *out);   /* PORT_DESC */

/* Number of entries (either form); 1 for DESC/AGGREGATE, 0 for raw types. */
uint32_t ofp_mp_reply_count(const struct ofp_mp_reply *r);

/* ---- reassembly -------------------------------------------------------------- */

struct ofp_mp_asm {
    uint8_t *buf;             /* NULL: track only, the caller iterates each part */
    size_t cap;
    size_t len;               /* body bytes collected */
    uint32_t xid;
    uint16_t type;
    uint32_t parts;           /* parts seen for the current reply */
    bool active;              /* a reply is awaited */
    bool overflow;            /* the bodies did not fit in buf */
};

void ofp_mp_asm_init(struct ofp_mp_asm *a, uint8_t *buf, size_t cap);

/* Await the reply to the request sent with xid/type (forgets any earlier). */
void ofp_mp_asm_begin(struct ofp_mp_asm *a, uint32_t xid, uint16_t type);

/* Feed one decoded reply part that arrived with xid. Returns
 *   0        more parts follow (REPLY_MORE set)
 *   1        the reply is complete: ofp_mp_asm_result() gives it
 *  -ENOENT   not the awaited reply (no reply awaited, other xid or type)
 *  -ENOSPC   complete, but the bodies did not fit in buf (entries lost;
 *            the xid is released all the same)
 * A part arriving after overflow is swallowed until the last one. */
int ofp_mp_asm_add(struct ofp_mp_asm *a, uint32_t xid, const struct ofp_mp_reply *part);

/* The collected reply (a view of buf) after ofp_mp_asm_add returned 1.
 * 0, -EINVAL when nothing was collected into a buffer. */
int ofp_mp_asm_result(const struct ofp_mp_asm *a, struct ofp_mp_reply *out);

#endif
