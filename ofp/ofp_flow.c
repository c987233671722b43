/*
 * ofp_flow: FLOW_MOD, FLOW_REMOVED and the FLOW/AGGREGATE statistics pieces
 * (see ofp_flow.h).
 */
#include "ofp_flow.h"

#include <string.h>

#include "ofp_priv.h"

/* ---- FLOW_MOD ------------------------------------------------------------- */

static int flow_mod_check(const struct ofp_flow_mod *fm, struct ofp_err *err)
{
    if (fm->command > OFPFC_DELETE_STRICT)
        return ofp_fail(err, OFPET_FLOW_MOD_FAILED, OFPFMFC_BAD_COMMAND);
    if (fm->flags & ~OFPFF_ALL)
        return ofp_fail(err, OFPET_FLOW_MOD_FAILED, OFPFMFC_BAD_FLAGS);
    if (fm->table_id == OFPTT_ALL && fm->command != OFPFC_DELETE &&
        fm->command != OFPFC_DELETE_STRICT)
        return ofp_fail(err, OFPET_FLOW_MOD_FAILED, OFPFMFC_BAD_TABLE_ID);
    return 0;
}

/* Encoder-side checks the wire checks cannot see until decode: the goto
 * target and the match's own consistency. */
static bool goto_ok(const struct ofp_instructions *in, uint8_t table_id)
{
    if (!(in->present & OFP_INST_GOTO_TABLE))
        return true;
    return in->goto_table != OFPTT_ALL && (table_id == OFPTT_ALL || in->goto_table > table_id);
}

int ofp_flow_mod_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_flow_mod *fm)
{
    size_t start;
    int rc;

    if (flow_mod_check(fm, NULL) < 0 || ofp_match_check(&fm->match, NULL) < 0 ||
        !goto_ok(&fm->inst, fm->table_id))
        return -EINVAL;
    uint8_t *p = ofp_msg_begin(b, OFPT_FLOW_MOD, xid, sizeof(struct ofp13_flow_mod), &start);
    if (!p)
        return -ENOSPC;
    struct ofp13_flow_mod *w = (void *)p;
    w->cookie = htobe64(fm->cookie);
    w->cookie_mask = htobe64(fm->cookie_mask);
    w->table_id = fm->table_id;
    w->command = fm->command;
    w->idle_timeout = htobe16(fm->idle_timeout);
    w->hard_timeout = htobe16(fm->hard_timeout);
    w->priority = htobe16(fm->priority);
    w->buffer_id = htobe32(fm->buffer_id);
    w->out_port = htobe32(fm->out_port);
    w->out_group = htobe32(fm->out_group);
    w->flags = htobe16(fm->flags);
    if ((rc = ofp_match_encode(b, &fm->match)) < 0 ||
        (rc = ofp_instructions_encode(b, &fm->inst)) < 0)
        return ofp_msg_abort(b, start, rc);
    return ofp_msg_end(b, start);
}

int ofp_flow_mod_decode(const uint8_t *msg, size_t len, struct ofp_flow_mod *out,
                        struct ofp_err *err)
{
    size_t used;
    int rc = ofp_hdr_check(msg, len, OFPT_FLOW_MOD, err);
    if (rc < 0)
        return rc;
    const struct ofp13_flow_mod *w = (const void *)msg;
    memset(out, 0, sizeof(*out));
    out->cookie = be64toh(w->cookie);
    out->cookie_mask = be64toh(w->cookie_mask);
    out->table_id = w->table_id;
    out->command = w->command;
    out->idle_timeout = be16toh(w->idle_timeout);
    out->hard_timeout = be16toh(w->hard_timeout);
    out->priority = be16toh(w->priority);
    out->buffer_id = be32toh(w->buffer_id);
    out->out_port = be32toh(w->out_port);
    out->out_group = be32toh(w->out_group);
    out->flags = be16toh(w->flags);
    if ((rc = flow_mod_check(out, err)) < 0)
        return rc;
    size_t pos = sizeof(*w);
    if ((rc = ofp_match_decode(msg + pos, len - pos, &out->match, &used, err)) < 0)
        return rc;
    pos += used;
    return ofp_instructions_decode(msg + pos, len - pos, out->table_id, &out->inst, err);
}

/* ---- FLOW_REMOVED ----------------------------------------------------------- */

int ofp_flow_removed_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_flow_removed *fr)
{
    size_t start;
    int rc;

    if (ofp_match_check(&fr->match, NULL) < 0)
        return -EINVAL;
    uint8_t *p =
        ofp_msg_begin(b, OFPT_FLOW_REMOVED, xid, sizeof(struct ofp13_flow_removed), &start);
    if (!p)
        return -ENOSPC;
    struct ofp13_flow_removed *w = (void *)p;
    w->cookie = htobe64(fr->cookie);
    w->priority = htobe16(fr->priority);
    w->reason = fr->reason;
    w->table_id = fr->table_id;
    w->duration_sec = htobe32(fr->duration_sec);
    w->duration_nsec = htobe32(fr->duration_nsec);
    w->idle_timeout = htobe16(fr->idle_timeout);
    w->hard_timeout = htobe16(fr->hard_timeout);
    w->packet_count = htobe64(fr->packet_count);
    w->byte_count = htobe64(fr->byte_count);
    if ((rc = ofp_match_encode(b, &fr->match)) < 0)
        return ofp_msg_abort(b, start, rc);
    return ofp_msg_end(b, start);
}

int ofp_flow_removed_decode(const uint8_t *msg, size_t len, struct ofp_flow_removed *out,
                            struct ofp_err *err)
{
    size_t used;
    int rc = ofp_hdr_check(msg, len, OFPT_FLOW_REMOVED, err);
    if (rc < 0)
        return rc;
    const struct ofp13_flow_removed *w = (const void *)msg;
    memset(out, 0, sizeof(*out));
    out->cookie = be64toh(w->cookie);
    out->priority = be16toh(w->priority);
    out->reason = w->reason;
    out->table_id = w->table_id;
    out->duration_sec = be32toh(w->duration_sec);
    out->duration_nsec = be32toh(w->duration_nsec);
    out->idle_timeout = be16toh(w->idle_timeout);
    out->hard_timeout = be16toh(w->hard_timeout);
    out->packet_count = be64toh(w->packet_count);
    out->byte_count = be64toh(w->byte_count);
    size_t pos = sizeof(*w);
    if ((rc = ofp_match_decode(msg + pos, len - pos, &out->match, &used, err)) < 0)
        return rc;
    if (pos + used != len)
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    return 0;
}

/* ---- FLOW / AGGREGATE statistics ------------------------------------------- */

int ofp_flow_stats_request_put(struct ofp_buf *b, const struct ofp_flow_stats_request *r)
{
    size_t start = b->len;
    int rc;

    if (ofp_match_check(&r->match, NULL) < 0)
        return -EINVAL;
    uint8_t *p = ofp_buf_put(b, sizeof(struct ofp13_flow_stats_request));
    if (!p)
        return -ENOSPC;
    struct ofp13_flow_stats_request *w = (void *)p;
    w->table_id = r->table_id;
    w->out_port = htobe32(r->out_port);
    w->out_group = htobe32(r->out_group);
    w->cookie = htobe64(r->cookie);
    w->cookie_mask = htobe64(r->cookie_mask);
    if ((rc = ofp_match_encode(b, &r->match)) < 0) {
        b->len = start;
        return rc;
    }
    return 0;
}

int ofp_flow_stats_request_parse(const uint8_t *p, size_t len, struct ofp_flow_stats_request *out,
                                 struct ofp_err *err)
{
    size_t used;
    int rc;

    if (len < sizeof(struct ofp13_flow_stats_request))
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    const struct ofp13_flow_stats_request *w = (const void *)p;
    out->table_id = w->table_id;
    out->out_port = be32toh(w->out_port);
    out->out_group = be32toh(w->out_group);
    out->cookie = be64toh(w->cookie);
    out->cookie_mask = be64toh(w->cookie_mask);
    size_t pos = sizeof(*w);
    if (len - pos < sizeof(struct ofp13_match))
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    if ((rc = ofp_match_decode(p + pos, len - pos, &out->match, &used, err)) < 0)
        return rc;
    if (pos + used != len)
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    return 0;
}

bool ofp_flow_stats_request_equal(const struct ofp_flow_stats_request *a,
                                  const struct ofp_flow_stats_request *b)
{
    return a->table_id == b->table_id && a->out_port == b->out_port &&
           a->out_group == b->out_group && a->cookie == b->cookie &&
           a->cookie_mask == b->cookie_mask && ofp_match_equal(&a->match, &b->match);
}

int ofp_flow_stats_put(struct ofp_buf *b, const struct ofp_flow_stats *fs)
{
    size_t start = b->len;
    int rc;

    if (ofp_match_check(&fs->match, NULL) < 0 || !goto_ok(&fs->inst, fs->table_id))
        return -EINVAL;
    uint8_t *p = ofp_buf_put(b, sizeof(struct ofp13_flow_stats));
    if (!p)
        return -ENOSPC;
    struct ofp13_flow_stats *w = (void *)p;
    w->table_id = fs->table_id;
    w->duration_sec = htobe32(fs->duration_sec);
    w->duration_nsec = htobe32(fs->duration_nsec);
    w->priority = htobe16(fs->priority);
    w->idle_timeout = htobe16(fs->idle_timeout);
    w->hard_timeout = htobe16(fs->hard_timeout);
    w->flags = htobe16(fs->flags);
    w->cookie = htobe64(fs->cookie);
    w->packet_count = htobe64(fs->packet_count);
    w->byte_count = htobe64(fs->byte_count);
    if ((rc = ofp_match_encode(b, &fs->match)) < 0 ||
        (rc = ofp_instructions_encode(b, &fs->inst)) < 0) {
        b->len = start;
        return rc;
    }
    if (b->len - start > 0xffff) {
        b->len = start;
        return -EMSGSIZE;
    }
    w->length = htobe16((uint16_t)(b->len - start));
    return 0;
}

int ofp_flow_stats_parse(const uint8_t *p, size_t avail, struct ofp_flow_stats *out, size_t *used,
                         struct ofp_err *err)
{
    size_t mlen;
    int rc;

    if (avail < sizeof(struct ofp13_flow_stats) + sizeof(struct ofp13_match))
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    const struct ofp13_flow_stats *w = (const void *)p;
    size_t len = be16toh(w->length);
    if (len < sizeof(*w) + 8 || len % 8 || len > avail)
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    out->table_id = w->table_id;
    out->duration_sec = be32toh(w->duration_sec);
    out->duration_nsec = be32toh(w->duration_nsec);
    out->priority = be16toh(w->priority);
    out->idle_timeout = be16toh(w->idle_timeout);
    out->hard_timeout = be16toh(w->hard_timeout);
    out->flags = be16toh(w->flags);
    out->cookie = be64toh(w->cookie);
    out->packet_count = be64toh(w->packet_count);
    out->byte_count = be64toh(w->byte_count);
    size_t pos = sizeof(*w);
    if ((rc = ofp_match_decode(p + pos, len - pos, &out->match, &mlen, err)) < 0)
        return rc;
    pos += mlen;
    if ((rc = ofp_instructions_decode(p + pos, len - pos, out->table_id, &out->inst, err)) < 0)
        return rc;
    if (used)
        *used = len;
    return 0;
}

bool ofp_flow_stats_equal(const struct ofp_flow_stats *a, const struct ofp_flow_stats *b)
{
    return a->table_id == b->table_id && a->duration_sec == b->duration_sec &&
           a->duration_nsec == b->duration_nsec && a->priority == b->priority &&
           a->idle_timeout == b->idle_timeout && a->hard_timeout == b->hard_timeout &&
           a->flags == b->flags && a->cookie == b->cookie &&
           a->packet_count == b->packet_count && a->byte_count == b->byte_count &&
           ofp_match_equal(&a->match, &b->match) && ofp_instructions_equal(&a->inst, &b->inst);
}
