/*
 * ofp_group: bucket lists, GROUP_MOD, and the GROUP / GROUP_DESC statistics
 * entries (see ofp_group.h).
 */
#include "ofp_group.h"

#include <string.h>

#include "ofp_priv.h"

/* ---- buckets ----------------------------------------------------------------- */

static int bucket_parse(const uint8_t *p, size_t avail, struct ofp_bucket *out, size_t *used,
                        struct ofp_err *err)
{
    if (avail < sizeof(struct ofp13_bucket))
        return ofp_fail(err, OFPET_GROUP_MOD_FAILED, OFPGMFC_BAD_BUCKET);
    const struct ofp13_bucket *w = (const void *)p;
    size_t len = be16toh(w->len);
    if (len < sizeof(*w) || len % 8 || len > avail)
        return ofp_fail(err, OFPET_GROUP_MOD_FAILED, OFPGMFC_BAD_BUCKET);
    out->weight = be16toh(w->weight);
    out->watch_port = be32toh(w->watch_port);
    out->watch_group = be32toh(w->watch_group);
    int rc = ofp_actions_decode(p + sizeof(*w), len - sizeof(*w), &out->actions, err);
    if (rc < 0)
        return rc;
    *used = len;
    return 0;
}

bool ofp_buckets_next(const struct ofp_buckets *l, uint32_t *pos, struct ofp_bucket *out)
{
    if (l->wire) {
        size_t used;
        if (*pos >= l->wire_len ||
            bucket_parse(l->wire + *pos, l->wire_len - *pos, out, &used, NULL) < 0)
            return false;
        *pos += (uint32_t)used;
        return true;
    }
    if (!l->arr || *pos >= l->n)
        return false;
    *out = l->arr[(*pos)++];
    return true;
}

int ofp_buckets_decode(const uint8_t *p, size_t len, struct ofp_buckets *out, struct ofp_err *err)
{
    size_t pos = 0, used;
    struct ofp_bucket bk;

    memset(out, 0, sizeof(*out));
    if (len > 0xffff)
        return ofp_fail(err, OFPET_GROUP_MOD_FAILED, OFPGMFC_BAD_BUCKET);
    while (pos < len) {
        int rc = bucket_parse(p + pos, len - pos, &bk, &used, err);
        if (rc < 0)
            return rc;
        pos += used;
        out->n++;
    }
    out->wire = p;
    out->wire_len = (uint16_t)len;
    return 0;
}

static int bucket_put(struct ofp_buf *b, const struct ofp_bucket *bk)
{
    size_t start = b->len;
    uint8_t *p = ofp_buf_put(b, sizeof(struct ofp13_bucket));
    if (!p)
        return -ENOSPC;
    struct ofp13_bucket *w = (void *)p;
    w->weight = htobe16(bk->weight);
    w->watch_port = htobe32(bk->watch_port);
    w->watch_group = htobe32(bk->watch_group);
    int rc = ofp_actions_encode(b, &bk->actions);
    if (rc < 0 || b->len - start > 0xffff) {
        b->len = start;
        return rc < 0 ? rc : -EMSGSIZE;
    }
    w->len = htobe16((uint16_t)(b->len - start));
    return 0;
}

int ofp_buckets_encode(struct ofp_buf *b, const struct ofp_buckets *l)
{
    size_t start = b->len;
    uint32_t pos = 0;
    struct ofp_bucket bk;

    while (ofp_buckets_next(l, &pos, &bk)) {
        int rc = bucket_put(b, &bk);
        if (rc < 0) {
            b->len = start;
            return rc;
        }
    }
    return 0;
}

bool ofp_buckets_equal(const struct ofp_buckets *a, const struct ofp_buckets *b)
{
    uint32_t pa = 0, pb = 0;
    struct ofp_bucket x, y;

    for (;;) {
        bool ha = ofp_buckets_next(a, &pa, &x), hb = ofp_buckets_next(b, &pb, &y);
        if (ha != hb)
            return false;
        if (!ha)
            return true;
        if (x.weight != y.weight || x.watch_port != y.watch_port ||
            x.watch_group != y.watch_group || !ofp_actions_equal(&x.actions, &y.actions))
            return false;
    }
}

/* ---- GROUP_MOD ------------------------------------------------------------ */

static int group_mod_check(const struct ofp_group_mod *gm, struct ofp_err *err)
{
    if (gm->command > OFPGC_DELETE)
        return ofp_fail(err, OFPET_GROUP_MOD_FAILED, OFPGMFC_BAD_COMMAND);
    if (gm->type > OFPGT_FF)
        return ofp_fail(err, OFPET_GROUP_MOD_FAILED, OFPGMFC_BAD_TYPE);
    if (gm->group_id > OFPG_MAX && !(gm->command == OFPGC_DELETE && gm->group_id == OFPG_ALL))
        return ofp_fail(err, OFPET_GROUP_MOD_FAILED, OFPGMFC_INVALID_GROUP);
    return 0;
}

int ofp_group_mod_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_group_mod *gm)
{
    size_t start;
    int rc;

    if (group_mod_check(gm, NULL) < 0)
        return -EINVAL;
    uint8_t *p = ofp_msg_begin(b, OFPT_GROUP_MOD, xid, sizeof(struct ofp13_group_mod), &start);
    if (!p)
        return -ENOSPC;
    struct ofp13_group_mod *w = (void *)p;
    w->command = htobe16(gm->command);
    w->type = gm->type;
    w->group_id = htobe32(gm->group_id);
    if ((rc = ofp_buckets_encode(b, &gm->buckets)) < 0)
        return ofp_msg_abort(b, start, rc);
    return ofp_msg_end(b, start);
}

int ofp_group_mod_decode(const uint8_t *msg, size_t len, struct ofp_group_mod *out,
                         struct ofp_err *err)
{
    int rc = ofp_hdr_check(msg, len, OFPT_GROUP_MOD, err);
    if (rc < 0)
        return rc;
    const struct ofp13_group_mod *w = (const void *)msg;
    memset(out, 0, sizeof(*out));
    out->command = be16toh(w->command);
    out->type = w->type;
    out->group_id = be32toh(w->group_id);
    if ((rc = group_mod_check(out, err)) < 0)
        return rc;
    return ofp_buckets_decode(msg + sizeof(*w), len - sizeof(*w), &out->buckets, err);
}

/* ---- GROUP statistics ---------------------------------------------------------- */

bool ofp_group_stats_counter(const struct ofp_group_stats *g, uint16_t i,
                             struct ofp_bucket_counter *out)
{
    if (i >= g->n_counters)
        return false;
    if (g->counters_wire) {
        const struct ofp13_bucket_counter *w =
            (const void *)(g->counters_wire + (size_t)i * sizeof(*w));
        out->packet_count = be64toh(w->packet_count);
        out->byte_count = be64toh(w->byte_count);
        return true;
    }
    if (!g->counters)
        return false;
    *out = g->counters[i];
    return true;
}

int ofp_group_stats_put(struct ofp_buf *b, const struct ofp_group_stats *g)
{
    size_t len = sizeof(struct ofp13_group_stats) +
                 (size_t)g->n_counters * sizeof(struct ofp13_bucket_counter);
    if (len > 0xffff)
        return -EINVAL;
    uint8_t *p = ofp_buf_put(b, len);
    if (!p)
        return -ENOSPC;
    struct ofp13_group_stats *w = (void *)p;
    w->length = htobe16((uint16_t)len);
    w->group_id = htobe32(g->group_id);
    w->ref_count = htobe32(g->ref_count);
    w->packet_count = htobe64(g->packet_count);
    w->byte_count = htobe64(g->byte_count);
    w->duration_sec = htobe32(g->duration_sec);
    w->duration_nsec = htobe32(g->duration_nsec);
    struct ofp13_bucket_counter *c = (void *)(p + sizeof(*w));
    for (uint16_t i = 0; i < g->n_counters; i++) {
        struct ofp_bucket_counter bc = {0, 0};
        ofp_group_stats_counter(g, i, &bc);
        c[i].packet_count = htobe64(bc.packet_count);
        c[i].byte_count = htobe64(bc.byte_count);
    }
    return 0;
}

int ofp_group_stats_parse(const uint8_t *p, size_t avail, struct ofp_group_stats *out,
                          size_t *used, struct ofp_err *err)
{
    if (avail < sizeof(struct ofp13_group_stats))
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    const struct ofp13_group_stats *w = (const void *)p;
    size_t len = be16toh(w->length);
    if (len < sizeof(*w) || len > avail ||
        (len - sizeof(*w)) % sizeof(struct ofp13_bucket_counter))
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    memset(out, 0, sizeof(*out));
    out->group_id = be32toh(w->group_id);
    out->ref_count = be32toh(w->ref_count);
    out->packet_count = be64toh(w->packet_count);
    out->byte_count = be64toh(w->byte_count);
    out->duration_sec = be32toh(w->duration_sec);
    out->duration_nsec = be32toh(w->duration_nsec);
    out->counters_wire = p + sizeof(*w);
    out->n_counters = (uint16_t)((len - sizeof(*w)) / sizeof(struct ofp13_bucket_counter));
    if (used)
        *used = len;
    return 0;
}

bool ofp_group_stats_equal(const struct ofp_group_stats *a, const struct ofp_group_stats *b)
{
    if (a->group_id != b->group_id || a->ref_count != b->ref_count ||
        a->packet_count != b->packet_count || a->byte_count != b->byte_count ||
        a->duration_sec != b->duration_sec || a->duration_nsec != b->duration_nsec ||
        a->n_counters != b->n_counters)
        return false;
    for (uint16_t i = 0; i < a->n_counters; i++) {
        struct ofp_bucket_counter x, y;
        if (!ofp_group_stats_counter(a, i, &x) || !ofp_group_stats_counter(b, i, &y) ||
            x.packet_count != y.packet_count || x.byte_count != y.byte_count)
            return false;
    }
    return true;
}

/* ---- GROUP_DESC ---------------------------------------------------------------- */

int ofp_group_desc_put(struct ofp_buf *b, const struct ofp_group_desc *g)
{
    size_t start = b->len;
    uint8_t *p = ofp_buf_put(b, sizeof(struct ofp13_group_desc));
    if (!p)
        return -ENOSPC;
    struct ofp13_group_desc *w = (void *)p;
    w->type = g->type;
    w->group_id = htobe32(g->group_id);
    int rc = ofp_buckets_encode(b, &g->buckets);
    if (rc < 0 || b->len - start > 0xffff) {
        b->len = start;
        return rc < 0 ? rc : -EMSGSIZE;
    }
    w->length = htobe16((uint16_t)(b->len - start));
    return 0;
}

int ofp_group_desc_parse(const uint8_t *p, size_t avail, struct ofp_group_desc *out,
                         size_t *used, struct ofp_err *err)
{
    if (avail < sizeof(struct ofp13_group_desc))
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    const struct ofp13_group_desc *w = (const void *)p;
    size_t len = be16toh(w->length);
    if (len < sizeof(*w) || len % 8 || len > avail)
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    out->type = w->type;
    out->group_id = be32toh(w->group_id);
    int rc = ofp_buckets_decode(p + sizeof(*w), len - sizeof(*w), &out->buckets, err);
    if (rc < 0)
        return rc;
    if (used)
        *used = len;
    return 0;
}

bool ofp_group_desc_equal(const struct ofp_group_desc *a, const struct ofp_group_desc *b)
{
    return a->type == b->type && a->group_id == b->group_id &&
           ofp_buckets_equal(&a->buckets, &b->buckets);
}
