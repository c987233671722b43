/*
 * ofp_mp: MULTIPART request/reply framing, per-type bodies, entry iterators
 * and reply reassembly (see ofp_mp.h).
 */
#include "ofp_mp.h"

#include <string.h>

#include "ofp_priv.h"

static int bad_len(struct ofp_err *err)
{
    return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
}

/* Types whose body ofcd keeps as raw bytes. */
static bool raw_type(uint16_t type)
{
    return type == OFPMP_GROUP_FEATURES || type == OFPMP_METER_CONFIG ||
           type == OFPMP_METER_FEATURES || type == OFPMP_TABLE_FEATURES;
}

/* ---- requests ---------------------------------------------------------------- */

/* Where the id of a PORT_STATS/GROUP/METER/METER_CONFIG request lives. */
static uint32_t *id_field(struct ofp_mp_request *r)
{
    switch (r->type) {
    case OFPMP_PORT_STATS: return &r->u.port_no;
    case OFPMP_GROUP: return &r->u.group_id;
    default: return &r->u.meter_id;
    }
}

int ofp_mp_request_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_mp_request *r)
{
    size_t start;
    int rc = 0;
    uint8_t *p = ofp_msg_begin(b, OFPT_MULTIPART_REQUEST, xid, sizeof(struct ofp13_multipart),
                               &start);
    if (!p)
        return -ENOSPC;
    struct ofp13_multipart *w = (void *)p;
    w->type = htobe16(r->type);
    w->flags = htobe16(r->flags);

    switch (r->type) {
    case OFPMP_DESC:
    case OFPMP_TABLE:
    case OFPMP_GROUP_DESC:
    case OFPMP_GROUP_FEATURES:
    case OFPMP_METER_FEATURES:
    case OFPMP_PORT_DESC:
        break;
    case OFPMP_FLOW:
    case OFPMP_AGGREGATE:
        rc = ofp_flow_stats_request_put(b, &r->u.flow);
        break;
    case OFPMP_PORT_STATS:
    case OFPMP_GROUP:
    case OFPMP_METER:
    case OFPMP_METER_CONFIG: {
        uint8_t *q = ofp_buf_put(b, sizeof(struct ofp13_port_stats_request));
        uint32_t id = htobe32(r->type == OFPMP_PORT_STATS ? r->u.port_no
                              : r->type == OFPMP_GROUP    ? r->u.group_id
                                                          : r->u.meter_id);
        if (q)
            memcpy(q, &id, 4);
        else
            rc = -ENOSPC;
        break;
    }
    case OFPMP_QUEUE: {
        uint8_t *q = ofp_buf_put(b, sizeof(struct ofp13_queue_stats_request));
        if (!q) {
            rc = -ENOSPC;
            break;
        }
        struct ofp13_queue_stats_request *qr = (void *)q;
        qr->port_no = htobe32(r->u.queue.port_no);
        qr->queue_id = htobe32(r->u.queue.queue_id);
        break;
    }
    case OFPMP_TABLE_FEATURES:
        if (r->body_len)
            rc = ofp_buf_put_bytes(b, r->body, r->body_len);
        break;
    case OFPMP_EXPERIMENTER: {
        uint8_t *q = ofp_buf_put(b, sizeof(struct ofp13_experimenter_multipart_header));
        if (!q) {
            rc = -ENOSPC;
            break;
        }
        struct ofp13_experimenter_multipart_header *x = (void *)q;
        x->experimenter = htobe32(r->u.exp.experimenter);
        x->exp_type = htobe32(r->u.exp.exp_type);
        if (r->body_len)
            rc = ofp_buf_put_bytes(b, r->body, r->body_len);
        break;
    }
    default:
        rc = -EINVAL;
        break;
    }
    if (rc < 0)
        return ofp_msg_abort(b, start, rc);
    return ofp_msg_end(b, start);
}

int ofp_mp_request_decode(const uint8_t *msg, size_t len, struct ofp_mp_request *out,
                          struct ofp_err *err)
{
    int rc = ofp_hdr_check(msg, len, OFPT_MULTIPART_REQUEST, err);
    if (rc < 0)
        return rc;
    const struct ofp13_multipart *w = (const void *)msg;
    const uint8_t *body = msg + sizeof(*w);
    size_t blen = len - sizeof(*w);

    memset(out, 0, sizeof(*out));
    out->type = be16toh(w->type);
    out->flags = be16toh(w->flags);
    out->body = body;
    out->body_len = (uint16_t)blen;
    switch (out->type) {
    case OFPMP_DESC:
    case OFPMP_TABLE:
    case OFPMP_GROUP_DESC:
    case OFPMP_GROUP_FEATURES:
    case OFPMP_METER_FEATURES:
    case OFPMP_PORT_DESC:
        if (blen)
            return bad_len(err);
        break;
    case OFPMP_FLOW:
    case OFPMP_AGGREGATE:
        return ofp_flow_stats_request_parse(body, blen, &out->u.flow, err);
    case OFPMP_PORT_STATS:
    case OFPMP_GROUP:
    case OFPMP_METER:
    case OFPMP_METER_CONFIG:
        if (blen != 8)
            return bad_len(err);
        *id_field(out) = ofp_rd32(body);
        break;
    case OFPMP_QUEUE:
        if (blen != sizeof(struct ofp13_queue_stats_request))
            return bad_len(err);
        out->u.queue.port_no = ofp_rd32(body);
        out->u.queue.queue_id = ofp_rd32(body + 4);
        break;
    case OFPMP_TABLE_FEATURES:
        break;
    case OFPMP_EXPERIMENTER:
        if (blen < sizeof(struct ofp13_experimenter_multipart_header))
            return bad_len(err);
        out->u.exp.experimenter = ofp_rd32(body);
        out->u.exp.exp_type = ofp_rd32(body + 4);
        out->body = body + 8;
        out->body_len = (uint16_t)(blen - 8);
        break;
    default:
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_MULTIPART);
    }
    return 0;
}

/* ---- reply bodies -------------------------------------------------------------- */

/* Fixed entry size of a reply type, 0 when entries carry their own length. */
static size_t fixed_entry(uint16_t type)
{
    switch (type) {
    case OFPMP_TABLE: return sizeof(struct ofp13_table_stats);
    case OFPMP_PORT_STATS: return sizeof(struct ofp13_port_stats);
    case OFPMP_QUEUE: return sizeof(struct ofp13_queue_stats);
    case OFPMP_PORT_DESC: return sizeof(struct ofp13_port);
    default: return 0;
    }
}

/* Parse one variable-length entry of a FLOW/GROUP/GROUP_DESC/METER reply. */
static int var_entry(uint16_t type, const uint8_t *p, size_t avail, void *out, size_t *used,
                     struct ofp_err *err)
{
    switch (type) {
    case OFPMP_FLOW: return ofp_flow_stats_parse(p, avail, out, used, err);
    case OFPMP_GROUP: return ofp_group_stats_parse(p, avail, out, used, err);
    case OFPMP_GROUP_DESC: return ofp_group_desc_parse(p, avail, out, used, err);
    default: return ofp_meter_stats_parse(p, avail, out, used, err);
    }
}

int ofp_mp_reply_body_parse(uint16_t type, uint16_t flags, const uint8_t *body, size_t len,
                            struct ofp_mp_reply *out, struct ofp_err *err)
{
    memset(out, 0, sizeof(*out));
    out->type = type;
    out->flags = flags;
    out->body = body;
    out->body_len = (uint16_t)len;
    if (len > 0xffff)
        return bad_len(err);

    switch (type) {
    case OFPMP_DESC: {
        if (len != sizeof(struct ofp13_desc))
            return bad_len(err);
        const struct ofp13_desc *w = (const void *)body;
        struct ofp_desc *d = &out->u.desc;
        ofp_str_from_wire(d->mfr_desc, w->mfr_desc, DESC_STR_LEN - 1);
        ofp_str_from_wire(d->hw_desc, w->hw_desc, DESC_STR_LEN - 1);
        ofp_str_from_wire(d->sw_desc, w->sw_desc, DESC_STR_LEN - 1);
        ofp_str_from_wire(d->serial_num, w->serial_num, SERIAL_NUM_LEN - 1);
        ofp_str_from_wire(d->dp_desc, w->dp_desc, DESC_STR_LEN - 1);
        return 0;
    }
    case OFPMP_AGGREGATE: {
        if (len != sizeof(struct ofp13_aggregate_stats_reply))
            return bad_len(err);
        const struct ofp13_aggregate_stats_reply *w = (const void *)body;
        out->u.agg.packet_count = be64toh(w->packet_count);
        out->u.agg.byte_count = be64toh(w->byte_count);
        out->u.agg.flow_count = be32toh(w->flow_count);
        return 0;
    }
    case OFPMP_TABLE:
    case OFPMP_PORT_STATS:
    case OFPMP_QUEUE:
    case OFPMP_PORT_DESC:
        if (len % fixed_entry(type))
            return bad_len(err);
        return 0;
    case OFPMP_FLOW:
    case OFPMP_GROUP:
    case OFPMP_GROUP_DESC:
    case OFPMP_METER: {
        union {
            struct ofp_flow_stats fs;
            struct ofp_group_stats gs;
            struct ofp_group_desc gd;
            struct ofp_meter_stats ms;
        } scratch;
        size_t pos = 0, used;
        while (pos < len) {
            int rc = var_entry(type, body + pos, len - pos, &scratch, &used, err);
            if (rc < 0)
                return rc;
            pos += used;
        }
        return 0;
    }
    case OFPMP_EXPERIMENTER:
        if (len < sizeof(struct ofp13_experimenter_multipart_header))
            return bad_len(err);
        out->u.exp.experimenter = ofp_rd32(body);
        out->u.exp.exp_type = ofp_rd32(body + 4);
        out->body = body + 8;
        out->body_len = (uint16_t)(len - 8);
        return 0;
    default:
        if (raw_type(type))
            return 0;
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_MULTIPART);
    }
}

int ofp_mp_reply_decode(const uint8_t *msg, size_t len, struct ofp_mp_reply *out,
                        struct ofp_err *err)
{
    int rc = ofp_hdr_check(msg, len, OFPT_MULTIPART_REPLY, err);
    if (rc < 0)
        return rc;
    const struct ofp13_multipart *w = (const void *)msg;
    return ofp_mp_reply_body_parse(be16toh(w->type), be16toh(w->flags), msg + sizeof(*w),
                                   len - sizeof(*w), out, err);
}

/* ---- iterators ------------------------------------------------------------------ */

/* Shared walk: the next entry's bytes (decoded form) or array slot. */
static const uint8_t *next_fixed(struct ofp_mp_iter *it, uint16_t type, size_t size,
                                 const void **slot, size_t elem)
{
    const struct ofp_mp_reply *r = it->reply;
    *slot = NULL;
    if (r->type != type)
        return NULL;
    if (r->body) {
        if ((size_t)it->pos + size > r->body_len)
            return NULL;
        const uint8_t *p = r->body + it->pos;
        it->pos += (uint32_t)size;
        return p;
    }
    if (r->arr && it->pos < r->n)
        *slot = (const uint8_t *)r->arr + (size_t)it->pos++ * elem;
    return NULL;
}

bool ofp_mp_next_table_stats(struct ofp_mp_iter *it, struct ofp_table_stats *out)
{
    const void *slot;
    const uint8_t *p = next_fixed(it, OFPMP_TABLE, sizeof(struct ofp13_table_stats), &slot,
                                  sizeof(*out));
    if (p) {
        const struct ofp13_table_stats *w = (const void *)p;
        out->table_id = w->table_id;
        out->active_count = be32toh(w->active_count);
        out->lookup_count = be64toh(w->lookup_count);
        out->matched_count = be64toh(w->matched_count);
        return true;
    }
    if (slot)
        *out = *(const struct ofp_table_stats *)slot;
    return slot != NULL;
}

bool ofp_mp_next_port_stats(struct ofp_mp_iter *it, struct ofp_port_stats *out)
{
    const void *slot;
    const uint8_t *p = next_fixed(it, OFPMP_PORT_STATS, sizeof(struct ofp13_port_stats), &slot,
                                  sizeof(*out));
    if (p) {
        ofp_port_stats_from_wire((const void *)p, out);
        return true;
    }
    if (slot)
        *out = *(const struct ofp_port_stats *)slot;
    return slot != NULL;
}

bool ofp_mp_next_queue_stats(struct ofp_mp_iter *it, struct ofp_queue_stats *out)
{
    const void *slot;
    const uint8_t *p = next_fixed(it, OFPMP_QUEUE, sizeof(struct ofp13_queue_stats), &slot,
                                  sizeof(*out));
    if (p) {
        ofp_queue_stats_from_wire((const void *)p, out);
        return true;
    }
    if (slot)
        *out = *(const struct ofp_queue_stats *)slot;
    return slot != NULL;
}

bool ofp_mp_next_port(struct ofp_mp_iter *it, struct ofp_port *out)
{
    const void *slot;
    const uint8_t *p =
        next_fixed(it, OFPMP_PORT_DESC, sizeof(struct ofp13_port), &slot, sizeof(*out));
    if (p) {
        ofp_port_from_wire((const void *)p, out);
        return true;
    }
    if (slot)
        *out = *(const struct ofp_port *)slot;
    return slot != NULL;
}

/* Variable-length entries: parse at pos (decoded form) or copy a slot. */
static bool next_var(struct ofp_mp_iter *it, uint16_t type, void *out, size_t elem)
{
    const struct ofp_mp_reply *r = it->reply;
    if (r->type != type)
        return false;
    if (r->body) {
        size_t used;
        if (it->pos >= r->body_len ||
            var_entry(type, r->body + it->pos, r->body_len - it->pos, out, &used, NULL) < 0)
            return false;
        it->pos += (uint32_t)used;
        return true;
    }
    if (!r->arr || it->pos >= r->n)
        return false;
    memcpy(out, (const uint8_t *)r->arr + (size_t)it->pos++ * elem, elem);
    return true;
}

bool ofp_mp_next_flow_stats(struct ofp_mp_iter *it, struct ofp_flow_stats *out)
{
    return next_var(it, OFPMP_FLOW, out, sizeof(*out));
}

bool ofp_mp_next_group_stats(struct ofp_mp_iter *it, struct ofp_group_stats *out)
{
    return next_var(it, OFPMP_GROUP, out, sizeof(*out));
}

bool ofp_mp_next_group_desc(struct ofp_mp_iter *it, struct ofp_group_desc *out)
{
    return next_var(it, OFPMP_GROUP_DESC, out, sizeof(*out));
}

bool ofp_mp_next_meter_stats(struct ofp_mp_iter *it, struct ofp_meter_stats *out)
{
    return next_var(it, OFPMP_METER, out, sizeof(*out));
}

uint32_t ofp_mp_reply_count(const struct ofp_mp_reply *r)
{
    struct ofp_mp_iter it;
    uint32_t n = 0;

    if (r->type == OFPMP_DESC || r->type == OFPMP_AGGREGATE)
        return 1;
    if (!r->body)
        return fixed_entry(r->type) || r->type == OFPMP_FLOW || r->type == OFPMP_GROUP ||
                       r->type == OFPMP_GROUP_DESC || r->type == OFPMP_METER
                   ? r->n
                   : 0;
    if (fixed_entry(r->type))
        return r->body_len / (uint32_t)fixed_entry(r->type);
    ofp_mp_iter_init(&it, r);
    switch (r->type) {
    case OFPMP_FLOW: {
        struct ofp_flow_stats e;
        while (ofp_mp_next_flow_stats(&it, &e))
            n++;
        break;
    }
    case OFPMP_GROUP: {
        struct ofp_group_stats e;
        while (ofp_mp_next_group_stats(&it, &e))
            n++;
        break;
    }
    case OFPMP_GROUP_DESC: {
        struct ofp_group_desc e;
        while (ofp_mp_next_group_desc(&it, &e))
            n++;
        break;
    }
    case OFPMP_METER: {
        struct ofp_meter_stats e;
        while (ofp_mp_next_meter_stats(&it, &e))
            n++;
        break;
    }
    default:
        break;
    }
    return n;
}

/* ---- reply encoding --------------------------------------------------------------- */

static int put_desc(struct ofp_buf *b, const struct ofp_desc *d)
{
    uint8_t *p = ofp_buf_put(b, sizeof(struct ofp13_desc));
    if (!p)
        return -ENOSPC;
    struct ofp13_desc *w = (void *)p;
    ofp_str_to_wire(w->mfr_desc, d->mfr_desc, DESC_STR_LEN - 1);
    ofp_str_to_wire(w->hw_desc, d->hw_desc, DESC_STR_LEN - 1);
    ofp_str_to_wire(w->sw_desc, d->sw_desc, DESC_STR_LEN - 1);
    ofp_str_to_wire(w->serial_num, d->serial_num, SERIAL_NUM_LEN - 1);
    ofp_str_to_wire(w->dp_desc, d->dp_desc, DESC_STR_LEN - 1);
    return 0;
}

static int put_entries(struct ofp_buf *b, const struct ofp_mp_reply *r)
{
    struct ofp_mp_iter it;
    int rc = 0;

    ofp_mp_iter_init(&it, r);
    switch (r->type) {
    case OFPMP_FLOW: {
        struct ofp_flow_stats e;
        while (rc == 0 && ofp_mp_next_flow_stats(&it, &e))
            rc = ofp_flow_stats_put(b, &e);
        break;
    }
    case OFPMP_TABLE: {
        struct ofp_table_stats e;
        while (rc == 0 && ofp_mp_next_table_stats(&it, &e)) {
            uint8_t *p = ofp_buf_put(b, sizeof(struct ofp13_table_stats));
            if (!p)
                return -ENOSPC;
            struct ofp13_table_stats *w = (void *)p;
            w->table_id = e.table_id;
            w->active_count = htobe32(e.active_count);
            w->lookup_count = htobe64(e.lookup_count);
            w->matched_count = htobe64(e.matched_count);
        }
        break;
    }
    case OFPMP_PORT_STATS: {
        struct ofp_port_stats e;
        while (rc == 0 && ofp_mp_next_port_stats(&it, &e))
            rc = ofp_port_stats_put(b, &e);
        break;
    }
    case OFPMP_QUEUE: {
        struct ofp_queue_stats e;
        while (rc == 0 && ofp_mp_next_queue_stats(&it, &e))
            rc = ofp_queue_stats_put(b, &e);
        break;
    }
    case OFPMP_GROUP: {
        struct ofp_group_stats e;
        while (rc == 0 && ofp_mp_next_group_stats(&it, &e))
            rc = ofp_group_stats_put(b, &e);
        break;
    }
    case OFPMP_GROUP_DESC: {
        struct ofp_group_desc e;
        while (rc == 0 && ofp_mp_next_group_desc(&it, &e))
            rc = ofp_group_desc_put(b, &e);
        break;
    }
    case OFPMP_METER: {
        struct ofp_meter_stats e;
        while (rc == 0 && ofp_mp_next_meter_stats(&it, &e))
            rc = ofp_meter_stats_put(b, &e);
        break;
    }
    case OFPMP_PORT_DESC: {
        struct ofp_port e;
        while (rc == 0 && ofp_mp_next_port(&it, &e))
            rc = ofp_port_put(b, &e);
        break;
    }
    default:
        return -EINVAL;
    }
    return rc;
}

int ofp_mp_reply_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_mp_reply *r)
{
    size_t start;
    int rc;
    uint8_t *p =
        ofp_msg_begin(b, OFPT_MULTIPART_REPLY, xid, sizeof(struct ofp13_multipart), &start);
    if (!p)
        return -ENOSPC;
    struct ofp13_multipart *w = (void *)p;
    w->type = htobe16(r->type);
    w->flags = htobe16(r->flags);

    if (r->type == OFPMP_DESC) {
        rc = put_desc(b, &r->u.desc);
    } else if (r->type == OFPMP_AGGREGATE) {
        uint8_t *q = ofp_buf_put(b, sizeof(struct ofp13_aggregate_stats_reply));
        rc = q ? 0 : -ENOSPC;
        if (q) {
            struct ofp13_aggregate_stats_reply *a = (void *)q;
            a->packet_count = htobe64(r->u.agg.packet_count);
            a->byte_count = htobe64(r->u.agg.byte_count);
            a->flow_count = htobe32(r->u.agg.flow_count);
        }
    } else if (r->type == OFPMP_EXPERIMENTER) {
        uint8_t *q = ofp_buf_put(b, sizeof(struct ofp13_experimenter_multipart_header));
        rc = q ? 0 : -ENOSPC;
        if (q) {
            struct ofp13_experimenter_multipart_header *x = (void *)q;
            x->experimenter = htobe32(r->u.exp.experimenter);
            x->exp_type = htobe32(r->u.exp.exp_type);
            if (r->body_len)
                rc = ofp_buf_put_bytes(b, r->body, r->body_len);
        }
    } else if (raw_type(r->type)) {
        rc = r->body_len ? ofp_buf_put_bytes(b, r->body, r->body_len) : 0;
    } else {
        rc = put_entries(b, r);
    }
    if (rc < 0)
        return ofp_msg_abort(b, start, rc);
    return ofp_msg_end(b, start);
}

/* ---- reassembly --------------------------------------------------------------------- */

void ofp_mp_asm_init(struct ofp_mp_asm *a, uint8_t *buf, size_t cap)
{
    memset(a, 0, sizeof(*a));
    a->buf = buf;
    a->cap = buf ? cap : 0;
}

void ofp_mp_asm_begin(struct ofp_mp_asm *a, uint32_t xid, uint16_t type)
{
    a->xid = xid;
    a->type = type;
    a->len = 0;
    a->parts = 0;
    a->active = true;
    a->overflow = false;
}

/* The body bytes of a part as they were on the wire. */
static void part_body(const struct ofp_mp_reply *part, const uint8_t **p, size_t *len)
{
    *p = part->body;
    *len = part->body_len;
    /* The experimenter header was split off by the parser: put it back
     * in front, so the collected body parses the same way again. */
    if (part->type == OFPMP_EXPERIMENTER && part->body) {
        *p = part->body - sizeof(struct ofp13_experimenter_multipart_header);
        *len += sizeof(struct ofp13_experimenter_multipart_header);
    }
}

int ofp_mp_asm_add(struct ofp_mp_asm *a, uint32_t xid, const struct ofp_mp_reply *part)
{
    if (!a->active || xid != a->xid || part->type != a->type)
        return -ENOENT;
    a->parts++;
    if (a->buf && !a->overflow) {
        const uint8_t *p;
        size_t len;
        part_body(part, &p, &len);
        if (!p && len)
            a->overflow = true;       /* encode-form part: nothing on the wire to keep */
        else if (len > a->cap - a->len || a->len + len > 0xffff)
            a->overflow = true;
        else if (len) {
            memcpy(a->buf + a->len, p, len);
            a->len += len;
        }
    }
    if (part->flags & OFPMPF_REPLY_MORE)
        return 0;
    a->active = false;
    return a->overflow ? -ENOSPC : 1;
}

int ofp_mp_asm_result(const struct ofp_mp_asm *a, struct ofp_mp_reply *out)
{
    if (!a->buf || a->active || a->overflow || a->parts == 0)
        return -EINVAL;
    return ofp_mp_reply_body_parse(a->type, 0, a->buf, a->len, out, NULL) < 0 ? -EINVAL : 0;
}
