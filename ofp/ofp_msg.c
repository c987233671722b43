/*
 * ofp_msg: the message table (one row per OF1.3 message type) and the
 * validate/decode/encode dispatch through it (see ofp_msg.h); the frame
 * and the length bounds are ofp_frame.c's.
 */
#include "ofp_msg.h"

#include <string.h>

#include "ofp_priv.h"

/* ---- adapters from the table's uniform signature to each family's API ---- */

#define DEC(name, call)                                                                     \
    static int d_##name(const uint8_t *msg, size_t len, struct ofp_msg *o,                 \
                        struct ofp_err *err)                                                \
    {                                                                                       \
        (void)o;                                                                            \
        return call;                                                                        \
    }
#define ENC(name, call)                                                                     \
    static int e_##name(struct ofp_buf *b, const struct ofp_msg *m)                         \
    {                                                                                       \
        return call;                                                                        \
    }

#define T (o->hdr.type)
#define MT (m->hdr.type)
#define X (m->hdr.xid)

DEC(hello, ofp_hello_decode(msg, len, &o->u.hello, err))
ENC(hello, ofp_hello_encode(b, X, &m->u.hello))
DEC(error, ofp_error_decode(msg, len, &o->u.error, err))
ENC(error, ofp_error_encode(b, X, &m->u.error))
DEC(echo, ofp_echo_decode(msg, len, T, &o->u.echo, err))
ENC(echo, ofp_echo_encode(b, MT, X, &m->u.echo))
DEC(experimenter, ofp_experimenter_decode(msg, len, &o->u.experimenter, err))
ENC(experimenter, ofp_experimenter_encode(b, X, &m->u.experimenter))
DEC(empty, ofp_empty_decode(msg, len, T, err))
ENC(empty, ofp_empty_encode(b, MT, X))
DEC(features, ofp_features_decode(msg, len, &o->u.features, err))
ENC(features, ofp_features_encode(b, X, &m->u.features))
DEC(config, ofp_switch_config_decode(msg, len, T, &o->u.config, err))
ENC(config, ofp_switch_config_encode(b, MT, X, &m->u.config))
DEC(packet_in, ofp_packet_in_decode(msg, len, &o->u.packet_in, err))
ENC(packet_in, ofp_packet_in_encode(b, X, &m->u.packet_in))
DEC(flow_removed, ofp_flow_removed_decode(msg, len, &o->u.flow_removed, err))
ENC(flow_removed, ofp_flow_removed_encode(b, X, &m->u.flow_removed))
DEC(port_status, ofp_port_status_decode(msg, len, &o->u.port_status, err))
ENC(port_status, ofp_port_status_encode(b, X, &m->u.port_status))
DEC(packet_out, ofp_packet_out_decode(msg, len, &o->u.packet_out, err))
ENC(packet_out, ofp_packet_out_encode(b, X, &m->u.packet_out))
DEC(flow_mod, ofp_flow_mod_decode(msg, len, &o->u.flow_mod, err))
ENC(flow_mod, ofp_flow_mod_encode(b, X, &m->u.flow_mod))
DEC(group_mod, ofp_group_mod_decode(msg, len, &o->u.group_mod, err))
ENC(group_mod, ofp_group_mod_encode(b, X, &m->u.group_mod))
DEC(port_mod, ofp_port_mod_decode(msg, len, &o->u.port_mod, err))
ENC(port_mod, ofp_port_mod_encode(b, X, &m->u.port_mod))
DEC(table_mod, ofp_table_mod_decode(msg, len, &o->u.table_mod, err))
ENC(table_mod, ofp_table_mod_encode(b, X, &m->u.table_mod))
DEC(mp_request, ofp_mp_request_decode(msg, len, &o->u.mp_request, err))
ENC(mp_request, ofp_mp_request_encode(b, X, &m->u.mp_request))
DEC(mp_reply, ofp_mp_reply_decode(msg, len, &o->u.mp_reply, err))
ENC(mp_reply, ofp_mp_reply_encode(b, X, &m->u.mp_reply))
DEC(queue_request, ofp_queue_get_config_request_decode(msg, len, &o->u.queue_request, err))
ENC(queue_request, ofp_queue_get_config_request_encode(b, X, &m->u.queue_request))
DEC(queue_reply, ofp_queue_get_config_reply_decode(msg, len, &o->u.queue_reply, err))
ENC(queue_reply, ofp_queue_get_config_reply_encode(b, X, &m->u.queue_reply))
DEC(role, ofp_role_decode(msg, len, T, &o->u.role, err))
ENC(role, ofp_role_encode(b, MT, X, &m->u.role))
DEC(async, ofp_async_decode(msg, len, T, &o->u.async, err))
ENC(async, ofp_async_encode(b, MT, X, &m->u.async))
DEC(meter_mod, ofp_meter_mod_decode(msg, len, &o->u.meter_mod, err))
ENC(meter_mod, ofp_meter_mod_encode(b, X, &m->u.meter_mod))

#undef T
#undef MT
#undef X

#define ROW(t, prio, fn) [t] = {t, #t, prio, d_##fn, e_##fn}

static const struct ofp_msg_type msg_types[OFPT_COUNT] = {
    ROW(OFPT_HELLO, OFP_PRIO_P0, hello),
    ROW(OFPT_ERROR, OFP_PRIO_P1, error),
    ROW(OFPT_ECHO_REQUEST, OFP_PRIO_P0, echo),
    ROW(OFPT_ECHO_REPLY, OFP_PRIO_P0, echo),
    ROW(OFPT_EXPERIMENTER, OFP_PRIO_P1, experimenter),
    ROW(OFPT_FEATURES_REQUEST, OFP_PRIO_P0, empty),
    ROW(OFPT_FEATURES_REPLY, OFP_PRIO_P0, features),
    ROW(OFPT_GET_CONFIG_REQUEST, OFP_PRIO_P0, empty),
    ROW(OFPT_GET_CONFIG_REPLY, OFP_PRIO_P0, config),
    ROW(OFPT_SET_CONFIG, OFP_PRIO_P0, config),
    ROW(OFPT_PACKET_IN, OFP_PRIO_P2, packet_in),
    ROW(OFPT_FLOW_REMOVED, OFP_PRIO_P2, flow_removed),
    ROW(OFPT_PORT_STATUS, OFP_PRIO_P2, port_status),
    ROW(OFPT_PACKET_OUT, OFP_PRIO_P2, packet_out),
    ROW(OFPT_FLOW_MOD, OFP_PRIO_P3, flow_mod),
    ROW(OFPT_GROUP_MOD, OFP_PRIO_P3, group_mod),
    ROW(OFPT_PORT_MOD, OFP_PRIO_P3, port_mod),
    ROW(OFPT_TABLE_MOD, OFP_PRIO_P3, table_mod),
    ROW(OFPT_MULTIPART_REQUEST, OFP_PRIO_P1, mp_request),
    ROW(OFPT_MULTIPART_REPLY, OFP_PRIO_P1, mp_reply),
    ROW(OFPT_BARRIER_REQUEST, OFP_PRIO_P3, empty),
    ROW(OFPT_BARRIER_REPLY, OFP_PRIO_P3, empty),
    ROW(OFPT_QUEUE_GET_CONFIG_REQUEST, OFP_PRIO_P1, queue_request),
    ROW(OFPT_QUEUE_GET_CONFIG_REPLY, OFP_PRIO_P1, queue_reply),
    ROW(OFPT_ROLE_REQUEST, OFP_PRIO_P1, role),
    ROW(OFPT_ROLE_REPLY, OFP_PRIO_P1, role),
    ROW(OFPT_GET_ASYNC_REQUEST, OFP_PRIO_P1, empty),
    ROW(OFPT_GET_ASYNC_REPLY, OFP_PRIO_P1, async),
    ROW(OFPT_SET_ASYNC, OFP_PRIO_P1, async),
    ROW(OFPT_METER_MOD, OFP_PRIO_P3, meter_mod),
};

const struct ofp_msg_type *ofp_msg_type_get(uint8_t type)
{
    return type < OFPT_COUNT ? &msg_types[type] : NULL;
}

enum ofp_prio ofp_msg_class(const uint8_t *hdr)
{
    const struct ofp_msg_type *t = ofp_msg_type_get(hdr[1]);
    uint32_t xid = (uint32_t)hdr[4] << 24 | (uint32_t)hdr[5] << 16 | (uint32_t)hdr[6] << 8 | hdr[7];

    if (hdr[1] == OFPT_ERROR && ofp_xid_is_control(xid))
        return ofp_msg_type_get(OFPT_BARRIER_REPLY)->prio;
    return t ? t->prio : OFP_PRIO_P1;
}

const char *ofp_msg_type_name(uint8_t type)
{
    const struct ofp_msg_type *t = ofp_msg_type_get(type);
    return t ? t->name : NULL;
}

int ofp_msg_type_from_name(const char *name)
{
    if (!name)
        return -ENOENT;
    for (unsigned t = 0; t < OFPT_COUNT; t++)
        if (strcmp(msg_types[t].name, name) == 0)
            return (int)t;
    return -ENOENT;
}

/* ---- validate / decode / encode ------------------------------------------ */

int ofp_decode(const uint8_t *msg, size_t len, struct ofp_msg *out, struct ofp_err *err)
{
    struct ofp_hdr h;

    if (!msg || ofp_hdr_peek(msg, len, &h) < 0)
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    /* Version, type, length: the frame's checks, as each codec makes them. */
    int rc = ofp_hdr_check(msg, len, h.type, err);
    if (rc < 0)
        return rc;
    out->hdr = h;
    return ofp_msg_type_get(h.type)->decode(msg, len, out, err);
}

int ofp_validate(const uint8_t *msg, size_t len, struct ofp_err *err)
{
    struct ofp_msg scratch;
    return ofp_decode(msg, len, &scratch, err);
}

int ofp_encode(struct ofp_buf *b, const struct ofp_msg *m)
{
    const struct ofp_msg_type *row = ofp_msg_type_get(m->hdr.type);
    if (!row)
        return -EINVAL;
    return row->encode(b, m);
}
