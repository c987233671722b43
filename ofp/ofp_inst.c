/*
 * ofp_inst: decode/validate, encode, compare and print OF1.3 instruction
 * sets (see ofp_inst.h).
 */
#include "ofp_inst.h"

#include <string.h>

#include "ofp_priv.h"

static int bad(struct ofp_err *err, uint16_t code)
{
    return ofp_fail(err, OFPET_BAD_INSTRUCTION, code);
}

static size_t fixed_len(uint16_t type)
{
    switch (type) {
    case OFPIT_GOTO_TABLE:
    case OFPIT_CLEAR_ACTIONS:
    case OFPIT_METER:
        return 8;
    case OFPIT_WRITE_METADATA:
        return sizeof(struct ofp13_instruction_write_metadata);
    default:
        return 0;             /* variable */
    }
}

static int decode_one(const uint8_t *p, uint16_t type, uint16_t len, uint8_t table_id,
                      struct ofp_instructions *in, struct ofp_err *err)
{
    size_t fl = fixed_len(type);
    if (fl && len != fl)
        return bad(err, OFPBIC_BAD_LEN);

    switch (type) {
    case OFPIT_GOTO_TABLE:
        in->goto_table = ((const struct ofp13_instruction_goto_table *)p)->table_id;
        if (in->goto_table == OFPTT_ALL || (table_id != OFPTT_ALL && in->goto_table <= table_id))
            return bad(err, OFPBIC_BAD_TABLE_ID);
        break;
    case OFPIT_WRITE_METADATA: {
        const struct ofp13_instruction_write_metadata *w = (const void *)p;
        in->metadata = be64toh(w->metadata);
        in->metadata_mask = be64toh(w->metadata_mask);
        break;
    }
    case OFPIT_WRITE_ACTIONS:
    case OFPIT_APPLY_ACTIONS: {
        struct ofp_actions *l =
            type == OFPIT_WRITE_ACTIONS ? &in->write_actions : &in->apply_actions;
        size_t hl = sizeof(struct ofp13_instruction_actions);
        int rc = ofp_actions_decode(p + hl, len - hl, l, err);
        if (rc < 0)
            return rc;
        break;
    }
    case OFPIT_CLEAR_ACTIONS:
        break;
    case OFPIT_METER:
        in->meter_id = be32toh(((const struct ofp13_instruction_meter *)p)->meter_id);
        break;
    case OFPIT_EXPERIMENTER: {
        const struct ofp13_instruction_experimenter *w = (const void *)p;
        in->experimenter = be32toh(w->experimenter);
        in->exp_data = p + sizeof(*w);
        in->exp_len = (uint16_t)(len - sizeof(*w));
        break;
    }
    default:
        return bad(err, OFPBIC_UNKNOWN_INST);
    }
    return 0;
}

static uint32_t type_bit(uint16_t type)
{
    return type == OFPIT_EXPERIMENTER ? OFP_INST_EXPERIMENTER
           : type >= OFPIT_GOTO_TABLE && type <= OFPIT_METER ? 1u << type
                                                             : 0;
}

int ofp_instructions_decode(const uint8_t *p, size_t len, uint8_t table_id,
                            struct ofp_instructions *out, struct ofp_err *err)
{
    size_t pos = 0;

    memset(out, 0, sizeof(*out));
    while (pos < len) {
        if (len - pos < 8)
            return bad(err, OFPBIC_BAD_LEN);
        uint16_t type = ofp_rd16(p + pos), ilen = ofp_rd16(p + pos + 2);
        if (ilen < 8 || ilen % 8 || ilen > len - pos)
            return bad(err, OFPBIC_BAD_LEN);
        uint32_t bit = type_bit(type);
        if (!bit)
            return bad(err, OFPBIC_UNKNOWN_INST);
        if (out->present & bit)
            return bad(err, OFPBIC_UNSUP_INST);
        int rc = decode_one(p + pos, type, ilen, table_id, out, err);
        if (rc < 0)
            return rc;
        out->present |= bit;
        pos += ilen;
    }
    return 0;
}

/* ---- encoding ------------------------------------------------------------ */

static int put_actions(struct ofp_buf *b, uint16_t type, const struct ofp_actions *l)
{
    size_t start = b->len;
    uint8_t *p = ofp_buf_put(b, sizeof(struct ofp13_instruction_actions));
    if (!p)
        return -ENOSPC;
    int rc = ofp_actions_encode(b, l);
    if (rc < 0) {
        b->len = start;
        return rc;
    }
    if (b->len - start > 0xffff) {
        b->len = start;
        return -EINVAL;
    }
    p = b->data + start;
    ofp_wr16(p, type);
    ofp_wr16(p + 2, (uint16_t)(b->len - start));
    return 0;
}

static uint8_t *put_fixed(struct ofp_buf *b, uint16_t type, size_t len)
{
    uint8_t *p = ofp_buf_put(b, len);
    if (p) {
        ofp_wr16(p, type);
        ofp_wr16(p + 2, (uint16_t)len);
    }
    return p;
}

static int encode_all(struct ofp_buf *b, const struct ofp_instructions *in)
{
    uint8_t *p;
    int rc;

    if (in->present & ~(uint32_t)(OFP_INST_GOTO_TABLE | OFP_INST_WRITE_METADATA |
                                  OFP_INST_WRITE_ACTIONS | OFP_INST_APPLY_ACTIONS |
                                  OFP_INST_CLEAR_ACTIONS | OFP_INST_METER |
                                  OFP_INST_EXPERIMENTER))
        return -EINVAL;
    if (in->present & OFP_INST_METER) {
        if (!(p = put_fixed(b, OFPIT_METER, 8)))
            return -ENOSPC;
        ((struct ofp13_instruction_meter *)p)->meter_id = htobe32(in->meter_id);
    }
    if ((in->present & OFP_INST_APPLY_ACTIONS) &&
        (rc = put_actions(b, OFPIT_APPLY_ACTIONS, &in->apply_actions)) < 0)
        return rc;
    if ((in->present & OFP_INST_CLEAR_ACTIONS) && !put_fixed(b, OFPIT_CLEAR_ACTIONS, 8))
        return -ENOSPC;
    if ((in->present & OFP_INST_WRITE_ACTIONS) &&
        (rc = put_actions(b, OFPIT_WRITE_ACTIONS, &in->write_actions)) < 0)
        return rc;
    if (in->present & OFP_INST_WRITE_METADATA) {
        if (!(p = put_fixed(b, OFPIT_WRITE_METADATA, 24)))
            return -ENOSPC;
        struct ofp13_instruction_write_metadata *w = (void *)p;
        w->metadata = htobe64(in->metadata);
        w->metadata_mask = htobe64(in->metadata_mask);
    }
    if (in->present & OFP_INST_GOTO_TABLE) {
        if (in->goto_table == OFPTT_ALL)
            return -EINVAL;
        if (!(p = put_fixed(b, OFPIT_GOTO_TABLE, 8)))
            return -ENOSPC;
        ((struct ofp13_instruction_goto_table *)p)->table_id = in->goto_table;
    }
    if (in->present & OFP_INST_EXPERIMENTER) {
        size_t len = 8u + in->exp_len;
        if (len % 8 || len > 0xfff8 || (in->exp_len && !in->exp_data))
            return -EINVAL;
        if (!(p = put_fixed(b, OFPIT_EXPERIMENTER, len)))
            return -ENOSPC;
        ((struct ofp13_instruction_experimenter *)p)->experimenter = htobe32(in->experimenter);
        if (in->exp_len)
            memcpy(p + 8, in->exp_data, in->exp_len);
    }
    return 0;
}

int ofp_instructions_encode(struct ofp_buf *b, const struct ofp_instructions *in)
{
    size_t start = b->len;
    int rc = encode_all(b, in);
    if (rc < 0)
        b->len = start;
    return rc;
}

/* ---- comparing and printing ---------------------------------------------- */

bool ofp_instructions_equal(const struct ofp_instructions *a, const struct ofp_instructions *b)
{
    uint32_t p = a->present;

    if (p != b->present)
        return false;
    if ((p & OFP_INST_GOTO_TABLE) && a->goto_table != b->goto_table)
        return false;
    if ((p & OFP_INST_WRITE_METADATA) &&
        (a->metadata != b->metadata || a->metadata_mask != b->metadata_mask))
        return false;
    if ((p & OFP_INST_WRITE_ACTIONS) && !ofp_actions_equal(&a->write_actions, &b->write_actions))
        return false;
    if ((p & OFP_INST_APPLY_ACTIONS) && !ofp_actions_equal(&a->apply_actions, &b->apply_actions))
        return false;
    if ((p & OFP_INST_METER) && a->meter_id != b->meter_id)
        return false;
    if (p & OFP_INST_EXPERIMENTER) {
        if (a->experimenter != b->experimenter || a->exp_len != b->exp_len)
            return false;
        if (a->exp_len && memcmp(a->exp_data, b->exp_data, a->exp_len))
            return false;
    }
    return true;
}

int ofp_instructions_format(const struct ofp_instructions *in, char *buf, size_t size)
{
    struct ofp_txt t = {buf, size, 0};
    const char *sep = "";
    char tmp[512];

    if (size)
        buf[0] = '\0';
    if (in->present & OFP_INST_METER) {
        ofp_txt_add(&t, "%smeter:%u", sep, in->meter_id);
        sep = ",";
    }
    if (in->present & OFP_INST_APPLY_ACTIONS) {
        ofp_actions_format(&in->apply_actions, tmp, sizeof(tmp));
        ofp_txt_add(&t, "%sapply_actions(%s)", sep, tmp);
        sep = ",";
    }
    if (in->present & OFP_INST_CLEAR_ACTIONS) {
        ofp_txt_add(&t, "%sclear_actions", sep);
        sep = ",";
    }
    if (in->present & OFP_INST_WRITE_ACTIONS) {
        ofp_actions_format(&in->write_actions, tmp, sizeof(tmp));
        ofp_txt_add(&t, "%swrite_actions(%s)", sep, tmp);
        sep = ",";
    }
    if (in->present & OFP_INST_WRITE_METADATA) {
        ofp_txt_add(&t, "%swrite_metadata:0x%llx/0x%llx", sep,
                    (unsigned long long)in->metadata, (unsigned long long)in->metadata_mask);
        sep = ",";
    }
    if (in->present & OFP_INST_GOTO_TABLE) {
        ofp_txt_add(&t, "%sgoto_table:%u", sep, in->goto_table);
        sep = ",";
    }
    if (in->present & OFP_INST_EXPERIMENTER) {
        ofp_txt_add(&t, "%sexperimenter:0x%08x(len=%u)", sep, in->experimenter, in->exp_len);
        sep = ",";
    }
    if (!*sep)
        ofp_txt_add(&t, "none");
    return ofp_txt_result(&t);
}
