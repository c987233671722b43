/*
 * ofp_meter: band lists, METER_MOD and the METER statistics entries (see
 * ofp_meter.h).
 */
#include "ofp_meter.h"

#include <string.h>

#include "ofp_priv.h"

/* ---- bands -------------------------------------------------------------------- */

static int band_parse(const uint8_t *p, size_t avail, struct ofp_meter_band *out, size_t *used,
                      struct ofp_err *err)
{
    if (avail < sizeof(struct ofp13_meter_band))
        return ofp_fail(err, OFPET_METER_MOD_FAILED, OFPMMFC_BAD_BAND);
    const struct ofp13_meter_band *w = (const void *)p;
    size_t len = be16toh(w->len);
    if (len < sizeof(*w) || len % 8 || len > avail)
        return ofp_fail(err, OFPET_METER_MOD_FAILED, OFPMMFC_BAD_BAND);
    memset(out, 0, sizeof(*out));
    out->type = be16toh(w->type);
    out->rate = be32toh(w->rate);
    out->burst_size = be32toh(w->burst_size);
    switch (out->type) {
    case OFPMBT_DROP:
        break;
    case OFPMBT_DSCP_REMARK:
        out->prec_level = w->u.dscp.prec_level;
        break;
    case OFPMBT_EXPERIMENTER:
        out->experimenter = be32toh(w->u.experimenter);
        out->exp_data = p + sizeof(*w);
        out->exp_len = (uint16_t)(len - sizeof(*w));
        break;
    default:
        return ofp_fail(err, OFPET_METER_MOD_FAILED, OFPMMFC_BAD_BAND);
    }
    if (out->type != OFPMBT_EXPERIMENTER && len != sizeof(*w))
        return ofp_fail(err, OFPET_METER_MOD_FAILED, OFPMMFC_BAD_BAND);
    *used = len;
    return 0;
}

bool ofp_meter_bands_next(const struct ofp_meter_bands *l, uint32_t *pos,
                          struct ofp_meter_band *out)
{
    if (l->wire) {
        size_t used;
        if (*pos >= l->wire_len ||
            band_parse(l->wire + *pos, l->wire_len - *pos, out, &used, NULL) < 0)
            return false;
        *pos += (uint32_t)used;
        return true;
    }
    if (!l->arr || *pos >= l->n)
        return false;
    *out = l->arr[(*pos)++];
    return true;
}

int ofp_meter_bands_decode(const uint8_t *p, size_t len, struct ofp_meter_bands *out,
                           struct ofp_err *err)
{
    size_t pos = 0, used;
    struct ofp_meter_band band;

    memset(out, 0, sizeof(*out));
    if (len > 0xffff)
        return ofp_fail(err, OFPET_METER_MOD_FAILED, OFPMMFC_BAD_BAND);
    while (pos < len) {
        int rc = band_parse(p + pos, len - pos, &band, &used, err);
        if (rc < 0)
            return rc;
        pos += used;
        out->n++;
    }
    out->wire = p;
    out->wire_len = (uint16_t)len;
    return 0;
}

static int band_put(struct ofp_buf *b, const struct ofp_meter_band *band)
{
    size_t len = sizeof(struct ofp13_meter_band);

    if (band->type == OFPMBT_EXPERIMENTER) {
        len += band->exp_len;
        if (band->exp_len % 8 || len > 0xffff || (band->exp_len && !band->exp_data))
            return -EINVAL;
    } else if (band->type != OFPMBT_DROP && band->type != OFPMBT_DSCP_REMARK) {
        return -EINVAL;
    }
    uint8_t *p = ofp_buf_put(b, len);
    if (!p)
        return -ENOSPC;
    struct ofp13_meter_band *w = (void *)p;
    w->type = htobe16(band->type);
    w->len = htobe16((uint16_t)len);
    w->rate = htobe32(band->rate);
    w->burst_size = htobe32(band->burst_size);
    if (band->type == OFPMBT_DSCP_REMARK)
        w->u.dscp.prec_level = band->prec_level;
    if (band->type == OFPMBT_EXPERIMENTER) {
        w->u.experimenter = htobe32(band->experimenter);
        if (band->exp_len)
            memcpy(p + sizeof(*w), band->exp_data, band->exp_len);
    }
    return 0;
}

int ofp_meter_bands_encode(struct ofp_buf *b, const struct ofp_meter_bands *l)
{
    size_t start = b->len;
    uint32_t pos = 0;
    struct ofp_meter_band band;

    while (ofp_meter_bands_next(l, &pos, &band)) {
        int rc = band_put(b, &band);
        if (rc < 0) {
            b->len = start;
            return rc;
        }
    }
    return 0;
}

static bool band_equal(const struct ofp_meter_band *a, const struct ofp_meter_band *b)
{
    if (a->type != b->type || a->rate != b->rate || a->burst_size != b->burst_size)
        return false;
    if (a->type == OFPMBT_DSCP_REMARK)
        return a->prec_level == b->prec_level;
    if (a->type == OFPMBT_EXPERIMENTER)
        return a->experimenter == b->experimenter && a->exp_len == b->exp_len &&
               (a->exp_len == 0 || memcmp(a->exp_data, b->exp_data, a->exp_len) == 0);
    return true;
}

bool ofp_meter_bands_equal(const struct ofp_meter_bands *a, const struct ofp_meter_bands *b)
{
    uint32_t pa = 0, pb = 0;
    struct ofp_meter_band x, y;

    for (;;) {
        bool ha = ofp_meter_bands_next(a, &pa, &x), hb = ofp_meter_bands_next(b, &pb, &y);
        if (ha != hb)
            return false;
        if (!ha)
            return true;
        if (!band_equal(&x, &y))
            return false;
    }
}

/* ---- METER_MOD ----------------------------------------------------------------- */

static int meter_mod_check(const struct ofp_meter_mod *mm, struct ofp_err *err)
{
    uint32_t id = mm->meter_id;

    if (mm->command > OFPMC_DELETE)
        return ofp_fail(err, OFPET_METER_MOD_FAILED, OFPMMFC_BAD_COMMAND);
    if (mm->flags & ~OFPMF_ALL)
        return ofp_fail(err, OFPET_METER_MOD_FAILED, OFPMMFC_BAD_FLAGS);
    bool ok = (id >= 1 && id <= OFPM_MAX) || id == OFPM_SLOWPATH || id == OFPM_CONTROLLER ||
              (id == OFPM_ALL && mm->command == OFPMC_DELETE);
    if (!ok)
        return ofp_fail(err, OFPET_METER_MOD_FAILED, OFPMMFC_INVALID_METER);
    return 0;
}

int ofp_meter_mod_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_meter_mod *mm)
{
    size_t start;
    int rc;

    if (meter_mod_check(mm, NULL) < 0)
        return -EINVAL;
    uint8_t *p = ofp_msg_begin(b, OFPT_METER_MOD, xid, sizeof(struct ofp13_meter_mod), &start);
    if (!p)
        return -ENOSPC;
    struct ofp13_meter_mod *w = (void *)p;
    w->command = htobe16(mm->command);
    w->flags = htobe16(mm->flags);
    w->meter_id = htobe32(mm->meter_id);
    if ((rc = ofp_meter_bands_encode(b, &mm->bands)) < 0)
        return ofp_msg_abort(b, start, rc);
    return ofp_msg_end(b, start);
}

int ofp_meter_mod_decode(const uint8_t *msg, size_t len, struct ofp_meter_mod *out,
                         struct ofp_err *err)
{
    int rc = ofp_hdr_check(msg, len, OFPT_METER_MOD, err);
    if (rc < 0)
        return rc;
    const struct ofp13_meter_mod *w = (const void *)msg;
    memset(out, 0, sizeof(*out));
    out->command = be16toh(w->command);
    out->flags = be16toh(w->flags);
    out->meter_id = be32toh(w->meter_id);
    if ((rc = meter_mod_check(out, err)) < 0)
        return rc;
    return ofp_meter_bands_decode(msg + sizeof(*w), len - sizeof(*w), &out->bands, err);
}

/* ---- METER statistics ------------------------------------------------------------ */

bool ofp_meter_stats_band(const struct ofp_meter_stats *m, uint16_t i,
                          struct ofp_meter_band_stats *out)
{
    if (i >= m->n_bands)
        return false;
    if (m->bands_wire) {
        const struct ofp13_meter_band_stats *w =
            (const void *)(m->bands_wire + (size_t)i * sizeof(*w));
        out->packet_band_count = be64toh(w->packet_band_count);
        out->byte_band_count = be64toh(w->byte_band_count);
        return true;
    }
    if (!m->bands)
        return false;
    *out = m->bands[i];
    return true;
}

int ofp_meter_stats_put(struct ofp_buf *b, const struct ofp_meter_stats *m)
{
    size_t len = sizeof(struct ofp13_meter_stats) +
                 (size_t)m->n_bands * sizeof(struct ofp13_meter_band_stats);
    if (len > 0xffff)
        return -EINVAL;
    uint8_t *p = ofp_buf_put(b, len);
    if (!p)
        return -ENOSPC;
    struct ofp13_meter_stats *w = (void *)p;
    w->meter_id = htobe32(m->meter_id);
    w->len = htobe16((uint16_t)len);
    w->flow_count = htobe32(m->flow_count);
    w->packet_in_count = htobe64(m->packet_in_count);
    w->byte_in_count = htobe64(m->byte_in_count);
    w->duration_sec = htobe32(m->duration_sec);
    w->duration_nsec = htobe32(m->duration_nsec);
    struct ofp13_meter_band_stats *s = (void *)(p + sizeof(*w));
    for (uint16_t i = 0; i < m->n_bands; i++) {
        struct ofp_meter_band_stats bs = {0, 0};
        ofp_meter_stats_band(m, i, &bs);
        s[i].packet_band_count = htobe64(bs.packet_band_count);
        s[i].byte_band_count = htobe64(bs.byte_band_count);
    }
    return 0;
}

int ofp_meter_stats_parse(const uint8_t *p, size_t avail, struct ofp_meter_stats *out,
                          size_t *used, struct ofp_err *err)
{
    if (avail < sizeof(struct ofp13_meter_stats))
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    const struct ofp13_meter_stats *w = (const void *)p;
    size_t len = be16toh(w->len);
    if (len < sizeof(*w) || len > avail ||
        (len - sizeof(*w)) % sizeof(struct ofp13_meter_band_stats))
        return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    memset(out, 0, sizeof(*out));
    out->meter_id = be32toh(w->meter_id);
    out->flow_count = be32toh(w->flow_count);
    out->packet_in_count = be64toh(w->packet_in_count);
    out->byte_in_count = be64toh(w->byte_in_count);
    out->duration_sec = be32toh(w->duration_sec);
    out->duration_nsec = be32toh(w->duration_nsec);
    out->bands_wire = p + sizeof(*w);
    out->n_bands = (uint16_t)((len - sizeof(*w)) / sizeof(struct ofp13_meter_band_stats));
    if (used)
        *used = len;
    return 0;
}

bool ofp_meter_stats_equal(const struct ofp_meter_stats *a, const struct ofp_meter_stats *b)
{
    if (a->meter_id != b->meter_id || a->flow_count != b->flow_count ||
        a->packet_in_count != b->packet_in_count || a->byte_in_count != b->byte_in_count ||
        a->duration_sec != b->duration_sec || a->duration_nsec != b->duration_nsec ||
        a->n_bands != b->n_bands)
        return false;
    for (uint16_t i = 0; i < a->n_bands; i++) {
        struct ofp_meter_band_stats x, y;
        if (!ofp_meter_stats_band(a, i, &x) || !ofp_meter_stats_band(b, i, &y) ||
            x.packet_band_count != y.packet_band_count || x.byte_band_count != y.byte_band_count)
            return false;
    }
    return true;
}
