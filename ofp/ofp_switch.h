/*
 * ofp_switch: the messages about the switch and the channel itself —
 * HELLO (with the version bitmap, and version negotiation), ECHO, EXPERIMENTER,
 * FEATURES, GET/SET_CONFIG, ROLE, GET/SET_ASYNC, TABLE_MOD, PACKET_IN,
 * PACKET_OUT, QUEUE_GET_CONFIG, and the body-less ones (FEATURES_REQUEST,
 * GET_CONFIG_REQUEST, BARRIER_REQUEST/REPLY, GET_ASYNC_REQUEST).
 *
 * Each message has an encode/decode pair over a version-independent struct.
 * Encoders append one whole message to a struct ofp_buf (0, -ENOSPC,
 * -EMSGSIZE, -EINVAL for a struct that does not describe a valid message;
 * nothing is appended on failure). Decoders take the whole message (header
 * included, len = its length field) and return 0 or -EBADMSG with the
 * OpenFlow error to send back; pointers they fill are zero-copy views into
 * msg, valid while msg is.
 */
#ifndef OFCD_OFP_SWITCH_H
#define OFCD_OFP_SWITCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofp_action.h"
#include "ofp_buf.h"
#include "ofp_err.h"
#include "ofp_oxm.h"
#include "ofp_wire.h"

/* ---- body-less messages --------------------------------------------------- */

/* FEATURES_REQUEST, GET_CONFIG_REQUEST, BARRIER_REQUEST/REPLY,
 * GET_ASYNC_REQUEST: just the header. -EINVAL for a type that has a body. */
int ofp_empty_encode(struct ofp_buf *b, uint8_t type, uint32_t xid);
int ofp_empty_decode(const uint8_t *msg, size_t len, uint8_t type, struct ofp_err *err);

/* ---- HELLO ----------------------------------------------------------------- */

/* Bitmap words kept: versions 0..255, all the header can name. Longer
 * bitmaps are accepted, the extra words ignored. */
#define OFP_HELLO_BITMAP_WORDS 8

struct ofp_hello {
    uint8_t version;          /* header version (the highest the sender speaks) */
    bool has_bitmap;
    uint32_t bitmap[OFP_HELLO_BITMAP_WORDS];  /* bit v of word v/32: version v */
};

/* Our HELLO: version = highest bit set in the bitmap; with_bitmap adds the
 * VERSIONBITMAP element. bitmap_lo: versions 0..31 we speak (1u << 4 for
 * OpenFlow 1.3 alone). */
void ofp_hello_init(struct ofp_hello *h, uint32_t bitmap_lo, bool with_bitmap);

int ofp_hello_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_hello *h);
/* Any header version is accepted (that is the point of HELLO); unknown
 * element types are skipped as the spec asks. Element length < 4, past the
 * message (padding to 8 included), or a bitmap element not 4 + 4n bytes:
 * OFPBRC_BAD_LEN. */
int ofp_hello_decode(const uint8_t *msg, size_t len, struct ofp_hello *out, struct ofp_err *err);

/* Negotiate (spec 6.3.1): both bitmaps → highest common version; otherwise
 * the lower of the two header versions, which ours must support. 0 with
 * *version, or -EBADMSG with OFPHFC_INCOMPATIBLE. */
int ofp_hello_negotiate(const struct ofp_hello *ours, const struct ofp_hello *peer,
                        uint8_t *version, struct ofp_err *err);

/* ---- ECHO_REQUEST / ECHO_REPLY, EXPERIMENTER --------------------------- */

struct ofp_echo {
    const uint8_t *data;      /* arbitrary payload, echoed back */
    uint16_t len;
};

/* type: OFPT_ECHO_REQUEST or OFPT_ECHO_REPLY. */
int ofp_echo_encode(struct ofp_buf *b, uint8_t type, uint32_t xid, const struct ofp_echo *e);
int ofp_echo_decode(const uint8_t *msg, size_t len, uint8_t type, struct ofp_echo *out,
                    struct ofp_err *err);

struct ofp_experimenter {
    uint32_t experimenter;
    uint32_t exp_type;
    const uint8_t *data;
    uint16_t len;
};

int ofp_experimenter_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_experimenter *x);
int ofp_experimenter_decode(const uint8_t *msg, size_t len, struct ofp_experimenter *out,
                            struct ofp_err *err);

/* ---- FEATURES_REPLY ----------------------------------------------------- */

struct ofp_features {
    uint64_t datapath_id;
    uint32_t n_buffers;
    uint8_t n_tables;
    uint8_t auxiliary_id;     /* 0 for the main connection */
    uint32_t capabilities;    /* OFPC_* */
};

int ofp_features_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_features *f);
int ofp_features_decode(const uint8_t *msg, size_t len, struct ofp_features *out,
                        struct ofp_err *err);

/* ---- GET_CONFIG_REPLY / SET_CONFIG -------------------------------------- */

struct ofp_switch_config {
    uint16_t flags;           /* OFPC_FRAG_* */
    uint16_t miss_send_len;   /* bytes of a table-miss packet sent; OFPCML_NO_BUFFER = all */
};

/* type: OFPT_GET_CONFIG_REPLY or OFPT_SET_CONFIG. Flags beyond
 * OFPC_FRAG_MASK: OFPSCFC_BAD_FLAGS. */
int ofp_switch_config_encode(struct ofp_buf *b, uint8_t type, uint32_t xid,
                             const struct ofp_switch_config *c);
int ofp_switch_config_decode(const uint8_t *msg, size_t len, uint8_t type,
                             struct ofp_switch_config *out, struct ofp_err *err);

/* ---- ROLE_REQUEST / ROLE_REPLY ------------------------------------------- */

struct ofp_role {
    uint32_t role;            /* OFPCR_ROLE_* */
    uint64_t generation_id;
};

/* type: OFPT_ROLE_REQUEST or OFPT_ROLE_REPLY. Role above SLAVE:
 * OFPRRFC_BAD_ROLE. */
int ofp_role_encode(struct ofp_buf *b, uint8_t type, uint32_t xid, const struct ofp_role *r);
int ofp_role_decode(const uint8_t *msg, size_t len, uint8_t type, struct ofp_role *out,
                    struct ofp_err *err);

/* ---- GET_ASYNC_REPLY / SET_ASYNC ----------------------------------------- */

struct ofp_async {
    /* [0]: when master or equal, [1]: when slave; bit n = reason n wanted */
    uint32_t packet_in_mask[2];
    uint32_t port_status_mask[2];
    uint32_t flow_removed_mask[2];
};

/* type: OFPT_GET_ASYNC_REPLY or OFPT_SET_ASYNC. */
int ofp_async_encode(struct ofp_buf *b, uint8_t type, uint32_t xid, const struct ofp_async *a);
int ofp_async_decode(const uint8_t *msg, size_t len, uint8_t type, struct ofp_async *out,
                     struct ofp_err *err);

/* ---- TABLE_MOD ------------------------------------------------------------ */

struct ofp_table_mod {
    uint8_t table_id;         /* or OFPTT_ALL */
    uint32_t config;          /* only OFPTC_DEPRECATED_MASK bits exist in 1.3 */
};

/* Config bits beyond OFPTC_DEPRECATED_MASK: OFPTMFC_BAD_CONFIG. */
int ofp_table_mod_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_table_mod *t);
int ofp_table_mod_decode(const uint8_t *msg, size_t len, struct ofp_table_mod *out,
                         struct ofp_err *err);

/* ---- PACKET_IN ------------------------------------------------------------ */

struct ofp_packet_in {
    uint32_t buffer_id;       /* OFP_NO_BUFFER when the whole frame is here */
    uint16_t total_len;       /* length of the frame on the switch */
    uint8_t reason;           /* OFPR_* */
    uint8_t table_id;
    uint64_t cookie;
    struct ofp_match match;   /* pipeline fields: in_port, metadata, tunnel_id, ... */
    const uint8_t *data;      /* the (possibly truncated) frame */
    uint16_t data_len;
};

int ofp_packet_in_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_packet_in *pi);
/* Match errors are OFPBMC_*; a message ending inside the match or its 2
 * padding bytes: OFPBRC_BAD_LEN. */
int ofp_packet_in_decode(const uint8_t *msg, size_t len, struct ofp_packet_in *out,
                         struct ofp_err *err);

/* ---- PACKET_OUT ----------------------------------------------------------- */

struct ofp_packet_out {
    uint32_t buffer_id;       /* OFP_NO_BUFFER: the frame is in data */
    uint32_t in_port;         /* a port, OFPP_CONTROLLER, OFPP_LOCAL or OFPP_ANY */
    struct ofp_actions actions;
    const uint8_t *data;
    uint16_t data_len;
};

/* actions_len not a multiple of 8 or past the message: OFPBRC_BAD_LEN;
 * in_port 0 or between OFPP_MAX and the reserved ports: OFPBRC_BAD_PORT;
 * actions: OFPBAC_*. */
int ofp_packet_out_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_packet_out *po);
int ofp_packet_out_decode(const uint8_t *msg, size_t len, struct ofp_packet_out *out,
                          struct ofp_err *err);

/* ---- QUEUE_GET_CONFIG ------------------------------------------------------ */

struct ofp_queue_get_config_request {
    uint32_t port;            /* or OFPP_ANY */
};

/* One queue of a QUEUE_GET_CONFIG_REPLY. Rates in 1/10 of a percent;
 * OFP_QUEUE_RATE_NONE when the queue has no such property. */
#define OFP_QUEUE_RATE_NONE 0xffff
struct ofp_packet_queue {
    uint32_t queue_id;
    uint32_t port;
    uint16_t min_rate;
    uint16_t max_rate;
};

struct ofp_queue_get_config_reply {
    uint32_t port;
    /* Validated ofp_packet_queue list: zero-copy view (decoded) ... */
    const uint8_t *queues_wire;
    uint16_t queues_len;
    /* ... or an array (to encode, when queues_wire is NULL). */
    const struct ofp_packet_queue *queues;
    uint16_t n_queues;
};

int ofp_queue_get_config_request_encode(struct ofp_buf *b, uint32_t xid,
                                        const struct ofp_queue_get_config_request *r);
int ofp_queue_get_config_request_decode(const uint8_t *msg, size_t len,
                                        struct ofp_queue_get_config_request *out,
                                        struct ofp_err *err);
int ofp_queue_get_config_reply_encode(struct ofp_buf *b, uint32_t xid,
                                      const struct ofp_queue_get_config_reply *r);
/* Queue or property length short, past its container or not a multiple of
 * 8: OFPBRC_BAD_LEN. Experimenter properties are skipped. */
int ofp_queue_get_config_reply_decode(const uint8_t *msg, size_t len,
                                      struct ofp_queue_get_config_reply *out,
                                      struct ofp_err *err);

/* Walk the queues of a reply (either form): *pos starts at 0. */
bool ofp_queue_next(const struct ofp_queue_get_config_reply *r, uint32_t *pos,
                    struct ofp_packet_queue *out);

#endif
