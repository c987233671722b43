/*
 * ofp_switch: encode/decode of the switch and channel messages (see
 * ofp_switch.h): hello and version negotiation, echo, experimenter,
 * features, config, role, async, table_mod, packet_in/out, queue config,
 * and the body-less messages.
 */
#include "ofp_switch.h"

#include <string.h>

#include "ofp_priv.h"

/* ---- body-less messages --------------------------------------------------- */

static bool is_empty_type(uint8_t type)
{
    return type == OFPT_FEATURES_REQUEST || type == OFPT_GET_CONFIG_REQUEST ||
           type == OFPT_BARRIER_REQUEST || type == OFPT_BARRIER_REPLY ||
           type == OFPT_GET_ASYNC_REQUEST;
}

int ofp_empty_encode(struct ofp_buf *b, uint8_t type, uint32_t xid)
{
    size_t start;
    if (!is_empty_type(type))
        return -EINVAL;
    if (!ofp_msg_begin(b, type, xid, OFP13_HEADER_LEN, &start))
        return -ENOSPC;
    return ofp_msg_end(b, start);
}

int ofp_empty_decode(const uint8_t *msg, size_t len, uint8_t type, struct ofp_err *err)
{
    if (!is_empty_type(type))
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_TYPE);
    return ofp_hdr_check(msg, len, type, err);
}

/* ---- HELLO ----------------------------------------------------------------- */

void ofp_hello_init(struct ofp_hello *h, uint32_t bitmap_lo, bool with_bitmap)
{
    memset(h, 0, sizeof(*h));
    h->bitmap[0] = bitmap_lo;
    h->has_bitmap = with_bitmap;
    h->version = OFP13_VERSION;
    for (int v = 31; v >= 0; v--) {
        if (bitmap_lo >> v & 1) {
            h->version = (uint8_t)v;
            break;
        }
    }
}

int ofp_hello_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_hello *h)
{
    size_t start;
    uint8_t *p = ofp_msg_begin(b, OFPT_HELLO, xid, OFP13_HEADER_LEN, &start);

    if (!p)
        return -ENOSPC;
    p[0] = h->version;
    if (h->has_bitmap) {
        unsigned words = 1;
        for (unsigned i = OFP_HELLO_BITMAP_WORDS; i-- > 1;) {
            if (h->bitmap[i]) {
                words = i + 1;
                break;
            }
        }
        size_t elen = 4 + 4 * words;
        uint8_t *e = ofp_buf_put(b, OFP_PAD8(elen));
        if (!e)
            return ofp_msg_abort(b, start, -ENOSPC);
        ofp_wr16(e, OFPHET_VERSIONBITMAP);
        ofp_wr16(e + 2, (uint16_t)elen);
        for (unsigned i = 0; i < words; i++) {
            uint32_t w = htobe32(h->bitmap[i]);
            memcpy(e + 4 + 4 * i, &w, 4);
        }
    }
    return ofp_msg_end(b, start);
}

int ofp_hello_decode(const uint8_t *msg, size_t len, struct ofp_hello *out, struct ofp_err *err)
{
    int rc = ofp_hdr_check(msg, len, OFPT_HELLO, err);
    if (rc < 0)
        return rc;
    memset(out, 0, sizeof(*out));
    out->version = msg[0];
    size_t pos = OFP13_HEADER_LEN;
    while (pos < len) {
        if (len - pos < sizeof(struct ofp13_hello_elem_header))
            return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
        uint16_t type = ofp_rd16(msg + pos), elen = ofp_rd16(msg + pos + 2);
        /* Elements are padded to 8 bytes and the padding is part of the
         * message (spec 7.5.1). */
        if (elen < sizeof(struct ofp13_hello_elem_header) || OFP_PAD8(elen) > len - pos)
            return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
        if (type == OFPHET_VERSIONBITMAP) {
            if ((elen - 4) % 4)
                return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
            unsigned words = (elen - 4u) / 4u;
            memset(out->bitmap, 0, sizeof(out->bitmap));
            for (unsigned i = 0; i < words && i < OFP_HELLO_BITMAP_WORDS; i++)
                out->bitmap[i] = ofp_rd32(msg + pos + 4 + 4 * i);
            out->has_bitmap = true;
        }
        pos += OFP_PAD8(elen);
    }
    return 0;
}

static bool bit(const struct ofp_hello *h, unsigned v)
{
    return v < 32 * OFP_HELLO_BITMAP_WORDS && (h->bitmap[v / 32] >> (v % 32) & 1);
}

int ofp_hello_negotiate(const struct ofp_hello *ours, const struct ofp_hello *peer,
                        uint8_t *version, struct ofp_err *err)
{
    if (ours->has_bitmap && peer->has_bitmap) {
        for (unsigned v = 32 * OFP_HELLO_BITMAP_WORDS; v-- > 0;) {
            if (bit(ours, v) && bit(peer, v)) {
                *version = (uint8_t)v;
                return 0;
            }
        }
        return ofp_fail(err, OFPET_HELLO_FAILED, OFPHFC_INCOMPATIBLE);
    }
    uint8_t v = ours->version < peer->version ? ours->version : peer->version;
    bool ok = ours->has_bitmap ? bit(ours, v) : v == ours->version;
    if (!ok || v == 0)
        return ofp_fail(err, OFPET_HELLO_FAILED, OFPHFC_INCOMPATIBLE);
    *version = v;
    return 0;
}

/* ---- ECHO, EXPERIMENTER --------------------------------------------------- */

int ofp_echo_encode(struct ofp_buf *b, uint8_t type, uint32_t xid, const struct ofp_echo *e)
{
    size_t start;
    if (type != OFPT_ECHO_REQUEST && type != OFPT_ECHO_REPLY)
        return -EINVAL;
    if (!ofp_msg_begin(b, type, xid, OFP13_HEADER_LEN, &start))
        return -ENOSPC;
    if (e->len && ofp_buf_put_bytes(b, e->data, e->len) < 0)
        return ofp_msg_abort(b, start, -ENOSPC);
    return ofp_msg_end(b, start);
}

int ofp_echo_decode(const uint8_t *msg, size_t len, uint8_t type, struct ofp_echo *out,
                    struct ofp_err *err)
{
    if (type != OFPT_ECHO_REQUEST && type != OFPT_ECHO_REPLY)
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_TYPE);
    int rc = ofp_hdr_check(msg, len, type, err);
    if (rc < 0)
        return rc;
    out->data = msg + OFP13_HEADER_LEN;
    out->len = (uint16_t)(len - OFP13_HEADER_LEN);
    return 0;
}

int ofp_experimenter_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_experimenter *x)
{
    size_t start;
    uint8_t *p = ofp_msg_begin(b, OFPT_EXPERIMENTER, xid,
                               sizeof(struct ofp13_experimenter_header), &start);
    if (!p)
        return -ENOSPC;
    struct ofp13_experimenter_header *w = (void *)p;
    w->experimenter = htobe32(x->experimenter);
    w->exp_type = htobe32(x->exp_type);
    if (x->len && ofp_buf_put_bytes(b, x->data, x->len) < 0)
        return ofp_msg_abort(b, start, -ENOSPC);
    return ofp_msg_end(b, start);
}

int ofp_experimenter_decode(const uint8_t *msg, size_t len, struct ofp_experimenter *out,
                            struct ofp_err *err)
{
    int rc = ofp_hdr_check(msg, len, OFPT_EXPERIMENTER, err);
    if (rc < 0)
        return rc;
    const struct ofp13_experimenter_header *w = (const void *)msg;
    memset(out, 0, sizeof(*out));
    out->experimenter = be32toh(w->experimenter);
    out->exp_type = be32toh(w->exp_type);
    out->data = msg + sizeof(*w);
    out->len = (uint16_t)(len - sizeof(*w));
    return 0;
}

/* ---- FEATURES_REPLY ----------------------------------------------------- */

int ofp_features_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_features *f)
{
    size_t start;
    uint8_t *p = ofp_msg_begin(b, OFPT_FEATURES_REPLY, xid,
                               sizeof(struct ofp13_switch_features), &start);
    if (!p)
        return -ENOSPC;
    struct ofp13_switch_features *w = (void *)p;
    w->datapath_id = htobe64(f->datapath_id);
    w->n_buffers = htobe32(f->n_buffers);
    w->n_tables = f->n_tables;
    w->auxiliary_id = f->auxiliary_id;
    w->capabilities = htobe32(f->capabilities);
    return ofp_msg_end(b, start);
}

int ofp_features_decode(const uint8_t *msg, size_t len, struct ofp_features *out,
                        struct ofp_err *err)
{
    int rc = ofp_hdr_check(msg, len, OFPT_FEATURES_REPLY, err);
    if (rc < 0)
        return rc;
    const struct ofp13_switch_features *w = (const void *)msg;
    memset(out, 0, sizeof(*out));
    out->datapath_id = be64toh(w->datapath_id);
    out->n_buffers = be32toh(w->n_buffers);
    out->n_tables = w->n_tables;
    out->auxiliary_id = w->auxiliary_id;
    out->capabilities = be32toh(w->capabilities);
    return 0;
}

/* ---- GET_CONFIG_REPLY / SET_CONFIG -------------------------------------- */

static bool config_type(uint8_t type)
{
    return type == OFPT_GET_CONFIG_REPLY || type == OFPT_SET_CONFIG;
}

int ofp_switch_config_encode(struct ofp_buf *b, uint8_t type, uint32_t xid,
                             const struct ofp_switch_config *c)
{
    size_t start;
    if (!config_type(type) || (c->flags & ~OFPC_FRAG_MASK))
        return -EINVAL;
    uint8_t *p = ofp_msg_begin(b, type, xid, sizeof(struct ofp13_switch_config), &start);
    if (!p)
        return -ENOSPC;
    struct ofp13_switch_config *w = (void *)p;
    w->flags = htobe16(c->flags);
    w->miss_send_len = htobe16(c->miss_send_len);
    return ofp_msg_end(b, start);
}

int ofp_switch_config_decode(const uint8_t *msg, size_t len, uint8_t type,
                             struct ofp_switch_config *out, struct ofp_err *err)
{
    if (!config_type(type))
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_TYPE);
    int rc = ofp_hdr_check(msg, len, type, err);
    if (rc < 0)
        return rc;
    const struct ofp13_switch_config *w = (const void *)msg;
    memset(out, 0, sizeof(*out));
    out->flags = be16toh(w->flags);
    out->miss_send_len = be16toh(w->miss_send_len);
    if (out->flags & ~OFPC_FRAG_MASK)
        return ofp_fail(err, OFPET_SWITCH_CONFIG_FAILED, OFPSCFC_BAD_FLAGS);
    return 0;
}

/* ---- ROLE ------------------------------------------------------------------ */

static bool role_type(uint8_t type)
{
    return type == OFPT_ROLE_REQUEST || type == OFPT_ROLE_REPLY;
}

int ofp_role_encode(struct ofp_buf *b, uint8_t type, uint32_t xid, const struct ofp_role *r)
{
    size_t start;
    if (!role_type(type) || r->role > OFPCR_ROLE_SLAVE)
        return -EINVAL;
    uint8_t *p = ofp_msg_begin(b, type, xid, sizeof(struct ofp13_role_request), &start);
    if (!p)
        return -ENOSPC;
    struct ofp13_role_request *w = (void *)p;
    w->role = htobe32(r->role);
    w->generation_id = htobe64(r->generation_id);
    return ofp_msg_end(b, start);
}

int ofp_role_decode(const uint8_t *msg, size_t len, uint8_t type, struct ofp_role *out,
                    struct ofp_err *err)
{
    if (!role_type(type))
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_TYPE);
    int rc = ofp_hdr_check(msg, len, type, err);
    if (rc < 0)
        return rc;
    const struct ofp13_role_request *w = (const void *)msg;
    memset(out, 0, sizeof(*out));
    out->role = be32toh(w->role);
    out->generation_id = be64toh(w->generation_id);
    if (out->role > OFPCR_ROLE_SLAVE)
        return ofp_fail(err, OFPET_ROLE_REQUEST_FAILED, OFPRRFC_BAD_ROLE);
    return 0;
}

/* ---- ASYNC ------------------------------------------------------------------ */

static bool async_type(uint8_t type)
{
    return type == OFPT_GET_ASYNC_REPLY || type == OFPT_SET_ASYNC;
}

int ofp_async_encode(struct ofp_buf *b, uint8_t type, uint32_t xid, const struct ofp_async *a)
{
    size_t start;
    if (!async_type(type))
        return -EINVAL;
    uint8_t *p = ofp_msg_begin(b, type, xid, sizeof(struct ofp13_async_config), &start);
    if (!p)
        return -ENOSPC;
    struct ofp13_async_config *w = (void *)p;
    for (int i = 0; i < 2; i++) {
        w->packet_in_mask[i] = htobe32(a->packet_in_mask[i]);
        w->port_status_mask[i] = htobe32(a->port_status_mask[i]);
        w->flow_removed_mask[i] = htobe32(a->flow_removed_mask[i]);
    }
    return ofp_msg_end(b, start);
}

int ofp_async_decode(const uint8_t *msg, size_t len, uint8_t type, struct ofp_async *out,
                     struct ofp_err *err)
{
    if (!async_type(type))
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_TYPE);
    int rc = ofp_hdr_check(msg, len, type, err);
    if (rc < 0)
        return rc;
    const struct ofp13_async_config *w = (const void *)msg;
    memset(out, 0, sizeof(*out));
    for (int i = 0; i < 2; i++) {
        out->packet_in_mask[i] = be32toh(w->packet_in_mask[i]);
        out->port_status_mask[i] = be32toh(w->port_status_mask[i]);
        out->flow_removed_mask[i] = be32toh(w->flow_removed_mask[i]);
    }
    return 0;
}

/* ---- TABLE_MOD ---------------------------------------------------------------- */

int ofp_table_mod_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_table_mod *t)
{
    size_t start;
    if (t->config & ~OFPTC_DEPRECATED_MASK)
        return -EINVAL;
    uint8_t *p = ofp_msg_begin(b, OFPT_TABLE_MOD, xid, sizeof(struct ofp13_table_mod), &start);
    if (!p)
        return -ENOSPC;
    struct ofp13_table_mod *w = (void *)p;
    w->table_id = t->table_id;
    w->config = htobe32(t->config);
    return ofp_msg_end(b, start);
}

int ofp_table_mod_decode(const uint8_t *msg, size_t len, struct ofp_table_mod *out,
                         struct ofp_err *err)
{
    int rc = ofp_hdr_check(msg, len, OFPT_TABLE_MOD, err);
    if (rc < 0)
        return rc;
    const struct ofp13_table_mod *w = (const void *)msg;
    memset(out, 0, sizeof(*out));
    out->table_id = w->table_id;
    out->config = be32toh(w->config);
    if (out->config & ~OFPTC_DEPRECATED_MASK)
        return ofp_fail(err, OFPET_TABLE_MOD_FAILED, OFPTMFC_BAD_CONFIG);
    return 0;
}

/* ---- PACKET_IN ---------------------------------------------------------------- */

int ofp_packet_in_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_packet_in *pi)
{
    size_t start;
    int rc;
    uint8_t *p = ofp_msg_begin(b, OFPT_PACKET_IN, xid, sizeof(struct ofp13_packet_in), &start);
    if (!p)
        return -ENOSPC;
    struct ofp13_packet_in *w = (void *)p;
    w->buffer_id = htobe32(pi->buffer_id);
    w->total_len = htobe16(pi->total_len);
    w->reason = pi->reason;
    w->table_id = pi->table_id;
    w->cookie = htobe64(pi->cookie);
    if ((rc = ofp_match_encode(b, &pi->match)) < 0)
        return ofp_msg_abort(b, start, rc);
    if (!ofp_buf_put(b, 2) || (pi->data_len && ofp_buf_put_bytes(b, pi->data, pi->data_len) < 0))
        return ofp_msg_abort(b, start, -ENOSPC);
    return ofp_msg_end(b, start);
}

int ofp_packet_in_decode(const uint8_t *msg, size_t len, struct ofp_packet_in *out,
                         struct ofp_err *err)
{
    size_t used;
    int rc = ofp_hdr_check(msg, len, OFPT_PACKET_IN, err);
    if (rc < 0)
        return rc;
    const struct ofp13_packet_in *w = (const void *)msg;
    memset(out, 0, sizeof(*out));
    out->buffer_id = be32toh(w->buffer_id);
    out->total_len = be16toh(w->total_len);
    out->reason = w->reason;
    out->table_id = w->table_id;
    out->cookie = be64toh(w->cookie);
    size_t pos = sizeof(*w);
    rc = ofp_match_decode(msg + pos, len - pos, &out->match, &used, err);
    if (rc < 0)
        return rc;
    pos += used;
    if (len - pos < 2)
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    pos += 2;
    out->data = msg + pos;
    out->data_len = (uint16_t)(len - pos);
    return 0;
}

/* ---- PACKET_OUT ---------------------------------------------------------------- */

static bool in_port_ok(uint32_t port)
{
    return (port != 0 && port <= OFPP_MAX) || port == OFPP_CONTROLLER || port == OFPP_LOCAL ||
           port == OFPP_ANY;
}

int ofp_packet_out_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_packet_out *po)
{
    size_t start;
    int rc;
    if (!in_port_ok(po->in_port))
        return -EINVAL;
    uint8_t *p = ofp_msg_begin(b, OFPT_PACKET_OUT, xid, sizeof(struct ofp13_packet_out), &start);
    if (!p)
        return -ENOSPC;
    struct ofp13_packet_out *w = (void *)p;
    w->buffer_id = htobe32(po->buffer_id);
    w->in_port = htobe32(po->in_port);
    size_t a0 = b->len;
    if ((rc = ofp_actions_encode(b, &po->actions)) < 0)
        return ofp_msg_abort(b, start, rc);
    if (b->len - a0 > 0xffff)
        return ofp_msg_abort(b, start, -EMSGSIZE);
    w->actions_len = htobe16((uint16_t)(b->len - a0));
    if (po->data_len && ofp_buf_put_bytes(b, po->data, po->data_len) < 0)
        return ofp_msg_abort(b, start, -ENOSPC);
    return ofp_msg_end(b, start);
}

int ofp_packet_out_decode(const uint8_t *msg, size_t len, struct ofp_packet_out *out,
                          struct ofp_err *err)
{
    int rc = ofp_hdr_check(msg, len, OFPT_PACKET_OUT, err);
    if (rc < 0)
        return rc;
    const struct ofp13_packet_out *w = (const void *)msg;
    memset(out, 0, sizeof(*out));
    size_t alen = be16toh(w->actions_len), pos = sizeof(*w);
    out->buffer_id = be32toh(w->buffer_id);
    out->in_port = be32toh(w->in_port);
    if (alen % 8 || alen > len - pos)
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    if (!in_port_ok(out->in_port))
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_PORT);
    rc = ofp_actions_decode(msg + pos, alen, &out->actions, err);
    if (rc < 0)
        return rc;
    pos += alen;
    out->data = msg + pos;
    out->data_len = (uint16_t)(len - pos);
    return 0;
}

/* ---- QUEUE_GET_CONFIG ------------------------------------------------------------ */

int ofp_queue_get_config_request_encode(struct ofp_buf *b, uint32_t xid,
                                        const struct ofp_queue_get_config_request *r)
{
    size_t start;
    uint8_t *p = ofp_msg_begin(b, OFPT_QUEUE_GET_CONFIG_REQUEST, xid,
                               sizeof(struct ofp13_queue_get_config_request), &start);
    if (!p)
        return -ENOSPC;
    ((struct ofp13_queue_get_config_request *)p)->port = htobe32(r->port);
    return ofp_msg_end(b, start);
}

int ofp_queue_get_config_request_decode(const uint8_t *msg, size_t len,
                                        struct ofp_queue_get_config_request *out,
                                        struct ofp_err *err)
{
    int rc = ofp_hdr_check(msg, len, OFPT_QUEUE_GET_CONFIG_REQUEST, err);
    if (rc < 0)
        return rc;
    out->port = be32toh(((const struct ofp13_queue_get_config_request *)msg)->port);
    return 0;
}

/* One queue at p (validated or not): its fields, and its length in *qlen.
 * 0 or -EBADMSG. */
static int queue_parse(const uint8_t *p, size_t avail, struct ofp_packet_queue *q, size_t *qlen,
                       struct ofp_err *err)
{
    if (avail < sizeof(struct ofp13_packet_queue))
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    const struct ofp13_packet_queue *w = (const void *)p;
    size_t len = be16toh(w->len);
    if (len < sizeof(*w) || len % 8 || len > avail)
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    q->queue_id = be32toh(w->queue_id);
    q->port = be32toh(w->port);
    q->min_rate = q->max_rate = OFP_QUEUE_RATE_NONE;
    for (size_t pos = sizeof(*w); pos < len;) {
        if (len - pos < sizeof(struct ofp13_queue_prop_header))
            return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
        uint16_t prop = ofp_rd16(p + pos), plen = ofp_rd16(p + pos + 2);
        if (plen < sizeof(struct ofp13_queue_prop_header) || plen % 8 || plen > len - pos)
            return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
        if (prop == OFPQT_MIN_RATE || prop == OFPQT_MAX_RATE) {
            if (plen != sizeof(struct ofp13_queue_prop_rate))
                return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
            uint16_t rate = ofp_rd16(p + pos + 8);
            if (prop == OFPQT_MIN_RATE)
                q->min_rate = rate;
            else
                q->max_rate = rate;
        }
        pos += plen;
    }
    *qlen = len;
    return 0;
}

static int queue_put(struct ofp_buf *b, const struct ofp_packet_queue *q)
{
    size_t n = (q->min_rate != OFP_QUEUE_RATE_NONE) + (q->max_rate != OFP_QUEUE_RATE_NONE);
    size_t len = sizeof(struct ofp13_packet_queue) + n * sizeof(struct ofp13_queue_prop_rate);
    uint8_t *p = ofp_buf_put(b, len);
    if (!p)
        return -ENOSPC;
    struct ofp13_packet_queue *w = (void *)p;
    w->queue_id = htobe32(q->queue_id);
    w->port = htobe32(q->port);
    w->len = htobe16((uint16_t)len);
    p += sizeof(*w);
    for (int i = 0; i < 2; i++) {
        uint16_t rate = i == 0 ? q->min_rate : q->max_rate;
        if (rate == OFP_QUEUE_RATE_NONE)
            continue;
        ofp_wr16(p, i == 0 ? OFPQT_MIN_RATE : OFPQT_MAX_RATE);
        ofp_wr16(p + 2, sizeof(struct ofp13_queue_prop_rate));
        ofp_wr16(p + 8, rate);
        p += sizeof(struct ofp13_queue_prop_rate);
    }
    return 0;
}

bool ofp_queue_next(const struct ofp_queue_get_config_reply *r, uint32_t *pos,
                    struct ofp_packet_queue *out)
{
    if (r->queues_wire) {
        size_t qlen;
        if (*pos >= r->queues_len ||
            queue_parse(r->queues_wire + *pos, r->queues_len - *pos, out, &qlen, NULL) < 0)
            return false;
        *pos += (uint32_t)qlen;
        return true;
    }
    if (!r->queues || *pos >= r->n_queues)
        return false;
    *out = r->queues[(*pos)++];
    return true;
}

int ofp_queue_get_config_reply_encode(struct ofp_buf *b, uint32_t xid,
                                      const struct ofp_queue_get_config_reply *r)
{
    size_t start;
    uint32_t pos = 0;
    struct ofp_packet_queue q;
    uint8_t *p = ofp_msg_begin(b, OFPT_QUEUE_GET_CONFIG_REPLY, xid,
                               sizeof(struct ofp13_queue_get_config_reply), &start);
    if (!p)
        return -ENOSPC;
    ((struct ofp13_queue_get_config_reply *)p)->port = htobe32(r->port);
    while (ofp_queue_next(r, &pos, &q))
        if (queue_put(b, &q) < 0)
            return ofp_msg_abort(b, start, -ENOSPC);
    return ofp_msg_end(b, start);
}

int ofp_queue_get_config_reply_decode(const uint8_t *msg, size_t len,
                                      struct ofp_queue_get_config_reply *out,
                                      struct ofp_err *err)
{
    int rc = ofp_hdr_check(msg, len, OFPT_QUEUE_GET_CONFIG_REPLY, err);
    if (rc < 0)
        return rc;
    memset(out, 0, sizeof(*out));
    out->port = be32toh(((const struct ofp13_queue_get_config_reply *)msg)->port);
    size_t pos = sizeof(struct ofp13_queue_get_config_reply);
    out->queues_wire = msg + pos;
    out->queues_len = (uint16_t)(len - pos);
    while (pos < len) {
        struct ofp_packet_queue q;
        size_t qlen;
        if ((rc = queue_parse(msg + pos, len - pos, &q, &qlen, err)) < 0)
            return rc;
        pos += qlen;
        out->n_queues++;
    }
    return 0;
}
