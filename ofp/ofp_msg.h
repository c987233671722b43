/*
 * ofp_msg: the OpenFlow 1.3 message table and the entry points the channel
 * layer calls for every received message:
 *
 *     n = ofp_frame(bytes, avail, &err)       find one whole message
 *     ofp_decode(bytes, n, &msg, &err)        checks + decoded struct
 *         (or ofp_validate(bytes, n, &err)    checks only)
 *     ... handle msg.hdr.type / msg.u.* ...
 *     on -EBADMSG: ofp_error_reply(out, err, bytes, n) answers the switch
 *
 * One table row per message type holds its name, the priority class it is
 * queued in (docs/design.md §2), and its decode/encode functions; the
 * lengths each type may have are the frame's (ofp_frame.h), below the
 * codecs that check them.
 *
 * Priority classes: P0 handshake and liveness (HELLO, FEATURES_*, *_CONFIG*,
 * ECHO_*); P1 queries and control (MULTIPART_*, ERROR, ROLE_*, and also
 * GET/SET_ASYNC, QUEUE_GET_CONFIG_*, EXPERIMENTER: they are control-plane
 * exchanges like ROLE, small and rare, and must not wait behind a flood of
 * flow_mods); P2 asynchronous events and packets (PACKET_IN, PORT_STATUS,
 * FLOW_REMOVED, PACKET_OUT); P3 state changes (FLOW_MOD, GROUP_MOD,
 * METER_MOD, PORT_MOD, TABLE_MOD, BARRIER_*). BARRIER_REPLY sits with the
 * flow_mods it follows, and an ERROR (P1) about one of them is therefore
 * handled before the barrier reply queued after it. An ERROR during the
 * handshake belongs in P0 (docs/design.md §2): the channel layer, which knows
 * the state, may raise it; the table cannot.
 *
 * Version: every message must carry 0x04 except HELLO and ERROR, which are
 * accepted in any version (a switch that speaks only 1.0 answers our HELLO
 * with a 1.0 HELLO_FAILED; hdr.version tells the caller).
 */
#ifndef OFCD_OFP_MSG_H
#define OFCD_OFP_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofp_buf.h"
#include "ofp_err.h"
#include "ofp_flow.h"
#include "ofp_frame.h"
#include "ofp_group.h"
#include "ofp_meter.h"
#include "ofp_mp.h"
#include "ofp_port.h"
#include "ofp_switch.h"
#include "ofp_wire.h"

enum ofp_prio {
    OFP_PRIO_P0 = 0,
    OFP_PRIO_P1 = 1,
    OFP_PRIO_P2 = 2,
    OFP_PRIO_P3 = 3,
};
#define OFP_PRIO_COUNT 4

/* Any decoded message: hdr, and the body struct that hdr.type selects.
 * FEATURES_REQUEST, GET_CONFIG_REQUEST, BARRIER_*, GET_ASYNC_REQUEST have
 * no body. Views inside point into the decoded bytes. */
struct ofp_msg {
    struct ofp_hdr hdr;
    union {
        struct ofp_hello hello;
        struct ofp_error error;
        struct ofp_echo echo;                 /* ECHO_REQUEST, ECHO_REPLY */
        struct ofp_experimenter experimenter;
        struct ofp_features features;         /* FEATURES_REPLY */
        struct ofp_switch_config config;      /* GET_CONFIG_REPLY, SET_CONFIG */
        struct ofp_packet_in packet_in;
        struct ofp_flow_removed flow_removed;
        struct ofp_port_status port_status;
        struct ofp_packet_out packet_out;
        struct ofp_flow_mod flow_mod;
        struct ofp_group_mod group_mod;
        struct ofp_port_mod port_mod;
        struct ofp_table_mod table_mod;
        struct ofp_mp_request mp_request;
        struct ofp_mp_reply mp_reply;
        struct ofp_queue_get_config_request queue_request;
        struct ofp_queue_get_config_reply queue_reply;
        struct ofp_role role;                 /* ROLE_REQUEST, ROLE_REPLY */
        struct ofp_async async;               /* GET_ASYNC_REPLY, SET_ASYNC */
        struct ofp_meter_mod meter_mod;
    } u;
};

/* One row of the message table. */
struct ofp_msg_type {
    uint8_t type;             /* OFPT_* */
    const char *name;         /* "OFPT_FLOW_MOD" */
    enum ofp_prio prio;
    /* Decode a message already known to be of this type: 0 or -EBADMSG. */
    int (*decode)(const uint8_t *msg, size_t len, struct ofp_msg *out, struct ofp_err *err);
    /* Encode m (m->hdr.type is this row's type, m->hdr.xid used). */
    int (*encode)(struct ofp_buf *b, const struct ofp_msg *m);
};

/* The row for a type, or NULL for a type OF1.3 does not define. */
const struct ofp_msg_type *ofp_msg_type_get(uint8_t type);

/*
 * Two spaces of xids on one connection that never meet: the channel (the
 * worker) numbers its requests 1..0x7fffffff, the control thread (the flow
 * manager) sets the top bit on its own. Replies carry their request's xid,
 * so each side knows its answers.
 */
#define OFP_XID_CONTROL 0x80000000u

static inline bool ofp_xid_is_control(uint32_t xid)
{
    return (xid & OFP_XID_CONTROL) != 0;
}

/*
 * The priority class a message from a switch travels in (msg_in, then the
 * events ring): its table row's, except that an OFPT_ERROR answering a
 * control-thread request travels with the BARRIER_REPLY that follows it
 * (P3). Within a class the rings are FIFO, so the flow manager always sees a
 * FLOW_MOD's error before the barrier reply that would mark it installed;
 * anti-starvation may reorder classes, never one class. A type 1.3 does not
 * define is P1 (to be answered with OFPBRC_BAD_TYPE). hdr: the 8-byte header.
 */
enum ofp_prio ofp_msg_class(const uint8_t *hdr);

/* "OFPT_HELLO", or NULL. */
const char *ofp_msg_type_name(uint8_t type);

/* Name → type ("OFPT_BARRIER_REQUEST"): the type, or -ENOENT. */
int ofp_msg_type_from_name(const char *name);

/* Every check for the message of len bytes at msg (header length must equal
 * len): version (OFPBRC_BAD_VERSION), type (OFPBRC_BAD_TYPE), length bounds
 * (OFPBRC_BAD_LEN), then the type's own checks. 0 or -EBADMSG with *err. */
int ofp_validate(const uint8_t *msg, size_t len, struct ofp_err *err);

/* ofp_validate, and the decoded message in *out. */
int ofp_decode(const uint8_t *msg, size_t len, struct ofp_msg *out, struct ofp_err *err);

/* Encode any message from its struct: 0, -ENOSPC, -EMSGSIZE, -EINVAL
 * (unknown type, or a body that is not a valid message). */
int ofp_encode(struct ofp_buf *b, const struct ofp_msg *m);

#endif
