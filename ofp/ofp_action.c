/*
 * ofp_action: decode/validate, encode, compare and print OF1.3 actions
 * (see ofp_action.h for the checks and the two forms of a list).
 */
#include "ofp_action.h"

#include <string.h>

#include "ofp_oxm.h"
#include "ofp_priv.h"

static const struct {
    uint16_t type;
    const char *name;
} type_names[] = {
    {OFPAT_OUTPUT, "output"},         {OFPAT_COPY_TTL_OUT, "copy_ttl_out"},
    {OFPAT_COPY_TTL_IN, "copy_ttl_in"}, {OFPAT_SET_MPLS_TTL, "set_mpls_ttl"},
    {OFPAT_DEC_MPLS_TTL, "dec_mpls_ttl"}, {OFPAT_PUSH_VLAN, "push_vlan"},
    {OFPAT_POP_VLAN, "pop_vlan"},     {OFPAT_PUSH_MPLS, "push_mpls"},
    {OFPAT_POP_MPLS, "pop_mpls"},     {OFPAT_SET_QUEUE, "set_queue"},
    {OFPAT_GROUP, "group"},           {OFPAT_SET_NW_TTL, "set_nw_ttl"},
    {OFPAT_DEC_NW_TTL, "dec_nw_ttl"}, {OFPAT_SET_FIELD, "set_field"},
    {OFPAT_PUSH_PBB, "push_pbb"},     {OFPAT_POP_PBB, "pop_pbb"},
    {OFPAT_EXPERIMENTER, "experimenter"},
};

const char *ofp_action_type_name(uint16_t type)
{
    for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
        if (type_names[i].type == type)
            return type_names[i].name;
    return NULL;
}

static bool out_port_ok(uint32_t port)
{
    if (port == 0 || port == OFPP_ANY)
        return false;
    return port <= OFPP_MAX || port >= OFPP_IN_PORT;
}

static int bad(struct ofp_err *err, uint16_t code)
{
    return ofp_fail(err, OFPET_BAD_ACTION, code);
}

static int set_field_decode(const uint8_t *p, size_t len, struct ofp_action_set_field *sf,
                            struct ofp_err *err)
{
    struct ofp_oxm_tlv t;

    if (ofp_oxm_parse(p + 4, len - 4, &t) < 0 || OFP_PAD8(8u + t.len) != len)
        return bad(err, OFPBAC_BAD_SET_LEN);
    sf->oxm_class = t.oxm_class;
    sf->field = t.field;
    sf->len = t.len;
    if (t.oxm_class != OFPXMC_OPENFLOW_BASIC) {
        if (t.oxm_class == OFPXMC_EXPERIMENTER && t.len < 4)
            return bad(err, OFPBAC_BAD_SET_LEN);
        sf->oxm = p + 4;
        return 0;
    }
    unsigned flen = ofp_oxm_field_len(t.field);
    if (!flen)
        return bad(err, OFPBAC_BAD_SET_TYPE);
    if (t.hasmask)
        return bad(err, OFPBAC_BAD_SET_ARGUMENT);
    if (t.len != flen)
        return bad(err, OFPBAC_BAD_SET_LEN);
    if (!ofp_oxm_value_ok(t.field, t.payload))
        return bad(err, OFPBAC_BAD_SET_ARGUMENT);
    memcpy(sf->value, t.payload, flen);
    return 0;
}

int ofp_action_decode(const uint8_t *p, size_t avail, struct ofp_action *a, size_t *used,
                      struct ofp_err *err)
{
    if (avail < sizeof(struct ofp13_action_header))
        return bad(err, OFPBAC_BAD_LEN);
    uint16_t type = ofp_rd16(p), len = ofp_rd16(p + 2);
    if (len < sizeof(struct ofp13_action_header) || len % 8 || len > avail)
        return bad(err, OFPBAC_BAD_LEN);

    memset(a, 0, sizeof(*a));
    a->type = type;
    switch (type) {
    case OFPAT_OUTPUT: {
        if (len != sizeof(struct ofp13_action_output))
            return bad(err, OFPBAC_BAD_LEN);
        const struct ofp13_action_output *w = (const void *)p;
        a->u.output.port = be32toh(w->port);
        a->u.output.max_len = be16toh(w->max_len);
        if (!out_port_ok(a->u.output.port))
            return bad(err, OFPBAC_BAD_OUT_PORT);
        break;
    }
    case OFPAT_COPY_TTL_OUT:
    case OFPAT_COPY_TTL_IN:
    case OFPAT_DEC_MPLS_TTL:
    case OFPAT_POP_VLAN:
    case OFPAT_DEC_NW_TTL:
    case OFPAT_POP_PBB:
        if (len != 8)
            return bad(err, OFPBAC_BAD_LEN);
        break;
    case OFPAT_SET_MPLS_TTL:
    case OFPAT_SET_NW_TTL:
        if (len != 8)
            return bad(err, OFPBAC_BAD_LEN);
        a->u.ttl = ((const struct ofp13_action_ttl *)p)->ttl;
        break;
    case OFPAT_PUSH_VLAN:
    case OFPAT_PUSH_MPLS:
    case OFPAT_PUSH_PBB:
    case OFPAT_POP_MPLS: {
        if (len != 8)
            return bad(err, OFPBAC_BAD_LEN);
        uint16_t et = be16toh(((const struct ofp13_action_ethertype *)p)->ethertype);
        a->u.ethertype = et;
        if ((type == OFPAT_PUSH_VLAN && et != 0x8100 && et != 0x88a8) ||
            (type == OFPAT_PUSH_MPLS && et != 0x8847 && et != 0x8848) ||
            (type == OFPAT_PUSH_PBB && et != 0x88e7))
            return bad(err, OFPBAC_BAD_ARGUMENT);
        break;
    }
    case OFPAT_SET_QUEUE:
        if (len != 8)
            return bad(err, OFPBAC_BAD_LEN);
        a->u.queue_id = be32toh(((const struct ofp13_action_u32 *)p)->value);
        if (a->u.queue_id == OFPQ_ALL)
            return bad(err, OFPBAC_BAD_QUEUE);
        break;
    case OFPAT_GROUP:
        if (len != 8)
            return bad(err, OFPBAC_BAD_LEN);
        a->u.group_id = be32toh(((const struct ofp13_action_u32 *)p)->value);
        if (a->u.group_id > OFPG_MAX)
            return bad(err, OFPBAC_BAD_OUT_GROUP);
        break;
    case OFPAT_SET_FIELD: {
        int rc = set_field_decode(p, len, &a->u.set_field, err);
        if (rc < 0)
            return rc;
        break;
    }
    case OFPAT_EXPERIMENTER:
        a->u.experimenter.experimenter =
            be32toh(((const struct ofp13_action_experimenter *)p)->experimenter);
        a->u.experimenter.data = p + sizeof(struct ofp13_action_experimenter);
        a->u.experimenter.len = (uint16_t)(len - sizeof(struct ofp13_action_experimenter));
        break;
    default:
        return bad(err, OFPBAC_BAD_TYPE);
    }
    if (used)
        *used = len;
    return 0;
}

int ofp_actions_decode(const uint8_t *p, size_t len, struct ofp_actions *out,
                       struct ofp_err *err)
{
    struct ofp_action a;
    size_t pos = 0, used;
    uint32_t n = 0;

    memset(out, 0, sizeof(*out));
    if (len > 0xffff)
        return bad(err, OFPBAC_BAD_LEN);
    while (pos < len) {
        int rc = ofp_action_decode(p + pos, len - pos, &a, &used, err);
        if (rc < 0)
            return rc;
        pos += used;
        n++;
    }
    /* Every action is at least 8 bytes, so n fits in 16 bits. */
    out->wire = p;
    out->wire_len = (uint16_t)len;
    out->n = (uint16_t)n;
    return 0;
}

bool ofp_actions_next(struct ofp_action_iter *it, struct ofp_action *out)
{
    const struct ofp_actions *l = it->list;

    if (l->wire) {
        size_t used;
        if (it->pos >= l->wire_len ||
            ofp_action_decode(l->wire + it->pos, l->wire_len - it->pos, out, &used, NULL) < 0)
            return false;
        it->pos += (uint32_t)used;
        return true;
    }
    if (!l->arr || it->pos >= l->n)
        return false;
    *out = l->arr[it->pos++];
    return true;
}

/* ---- encoding ------------------------------------------------------------ */

static int set_field_encode(struct ofp_buf *b, const struct ofp_action_set_field *sf)
{
    size_t tlv;
    uint8_t *p;

    if (sf->oxm_class == OFPXMC_OPENFLOW_BASIC) {
        unsigned flen = ofp_oxm_field_len(sf->field);
        if (!flen)
            return -EINVAL;
        tlv = 4 + flen;
        p = ofp_buf_put(b, OFP_PAD8(4 + tlv));
        if (!p)
            return -ENOSPC;
        uint32_t h = htobe32(OFP13_OXM_HEADER(OFPXMC_OPENFLOW_BASIC, sf->field, 0, flen));
        memcpy(p + 4, &h, 4);
        memcpy(p + 8, sf->value, flen);
    } else {
        if (!sf->oxm)
            return -EINVAL;
        tlv = 4u + sf->len;
        p = ofp_buf_put(b, OFP_PAD8(4 + tlv));
        if (!p)
            return -ENOSPC;
        memcpy(p + 4, sf->oxm, tlv);
    }
    ofp_wr16(p, OFPAT_SET_FIELD);
    ofp_wr16(p + 2, (uint16_t)OFP_PAD8(4 + tlv));
    return 0;
}

static int action_put(struct ofp_buf *b, const struct ofp_action *a)
{
    size_t len = a->type == OFPAT_OUTPUT ? 16 : 8;
    uint8_t *p;

    if (a->type == OFPAT_SET_FIELD)
        return set_field_encode(b, &a->u.set_field);
    if (a->type == OFPAT_EXPERIMENTER) {
        len = 8u + a->u.experimenter.len;
        if (len % 8 || len > 0xfff8 || (a->u.experimenter.len && !a->u.experimenter.data))
            return -EINVAL;
    }
    p = ofp_buf_put(b, len);
    if (!p)
        return -ENOSPC;
    ofp_wr16(p, a->type);
    ofp_wr16(p + 2, (uint16_t)len);
    switch (a->type) {
    case OFPAT_OUTPUT: {
        struct ofp13_action_output *w = (void *)p;
        w->port = htobe32(a->u.output.port);
        w->max_len = htobe16(a->u.output.max_len);
        break;
    }
    case OFPAT_SET_MPLS_TTL:
    case OFPAT_SET_NW_TTL:
        ((struct ofp13_action_ttl *)p)->ttl = a->u.ttl;
        break;
    case OFPAT_PUSH_VLAN:
    case OFPAT_PUSH_MPLS:
    case OFPAT_PUSH_PBB:
    case OFPAT_POP_MPLS:
        ((struct ofp13_action_ethertype *)p)->ethertype = htobe16(a->u.ethertype);
        break;
    case OFPAT_SET_QUEUE:
        ((struct ofp13_action_u32 *)p)->value = htobe32(a->u.queue_id);
        break;
    case OFPAT_GROUP:
        ((struct ofp13_action_u32 *)p)->value = htobe32(a->u.group_id);
        break;
    case OFPAT_EXPERIMENTER:
        ((struct ofp13_action_experimenter *)p)->experimenter =
            htobe32(a->u.experimenter.experimenter);
        if (a->u.experimenter.len)
            memcpy(p + 8, a->u.experimenter.data, a->u.experimenter.len);
        break;
    default:
        break;                /* no argument, or unknown: the decode check below rejects */
    }
    return 0;
}

int ofp_action_encode(struct ofp_buf *b, const struct ofp_action *a)
{
    size_t start = b->len;
    struct ofp_action check;
    int rc = action_put(b, a);

    if (rc < 0) {
        b->len = start;
        return rc;
    }
    /* What we send must pass the checks we apply to what we receive. */
    if (ofp_action_decode(b->data + start, b->len - start, &check, NULL, NULL) < 0) {
        b->len = start;
        return -EINVAL;
    }
    return 0;
}

int ofp_actions_encode(struct ofp_buf *b, const struct ofp_actions *l)
{
    struct ofp_action_iter it;
    struct ofp_action a;
    size_t start = b->len;

    ofp_actions_iter_init(&it, l);
    while (ofp_actions_next(&it, &a)) {
        int rc = ofp_action_encode(b, &a);
        if (rc < 0) {
            b->len = start;
            return rc;
        }
    }
    return 0;
}

/* ---- comparing and printing ---------------------------------------------- */

bool ofp_action_equal(const struct ofp_action *a, const struct ofp_action *b)
{
    if (a->type != b->type)
        return false;
    switch (a->type) {
    case OFPAT_OUTPUT:
        return a->u.output.port == b->u.output.port &&
               a->u.output.max_len == b->u.output.max_len;
    case OFPAT_SET_MPLS_TTL:
    case OFPAT_SET_NW_TTL:
        return a->u.ttl == b->u.ttl;
    case OFPAT_PUSH_VLAN:
    case OFPAT_PUSH_MPLS:
    case OFPAT_PUSH_PBB:
    case OFPAT_POP_MPLS:
        return a->u.ethertype == b->u.ethertype;
    case OFPAT_SET_QUEUE:
        return a->u.queue_id == b->u.queue_id;
    case OFPAT_GROUP:
        return a->u.group_id == b->u.group_id;
    case OFPAT_SET_FIELD: {
        const struct ofp_action_set_field *x = &a->u.set_field, *y = &b->u.set_field;
        if (x->oxm_class != y->oxm_class)
            return false;
        if (x->oxm_class == OFPXMC_OPENFLOW_BASIC)
            return x->field == y->field &&
                   memcmp(x->value, y->value, ofp_oxm_field_len(x->field)) == 0;
        return x->len == y->len && x->oxm && y->oxm && memcmp(x->oxm, y->oxm, 4u + x->len) == 0;
    }
    case OFPAT_EXPERIMENTER:
        return a->u.experimenter.experimenter == b->u.experimenter.experimenter &&
               a->u.experimenter.len == b->u.experimenter.len &&
               (a->u.experimenter.len == 0 ||
                memcmp(a->u.experimenter.data, b->u.experimenter.data, a->u.experimenter.len) ==
                    0);
    default:
        return true;
    }
}

bool ofp_actions_equal(const struct ofp_actions *a, const struct ofp_actions *b)
{
    struct ofp_action_iter ia, ib;
    struct ofp_action x, y;

    ofp_actions_iter_init(&ia, a);
    ofp_actions_iter_init(&ib, b);
    for (;;) {
        bool ha = ofp_actions_next(&ia, &x), hb = ofp_actions_next(&ib, &y);
        if (ha != hb)
            return false;
        if (!ha)
            return true;
        if (!ofp_action_equal(&x, &y))
            return false;
    }
}

static const char *port_name(uint32_t port)
{
    switch (port) {
    case OFPP_IN_PORT: return "in_port";
    case OFPP_TABLE: return "table";
    case OFPP_NORMAL: return "normal";
    case OFPP_FLOOD: return "flood";
    case OFPP_ALL: return "all";
    case OFPP_CONTROLLER: return "controller";
    case OFPP_LOCAL: return "local";
    case OFPP_ANY: return "any";
    default: return NULL;
    }
}

static void format_one(struct ofp_txt *t, const struct ofp_action *a)
{
    const char *name = ofp_action_type_name(a->type);

    switch (a->type) {
    case OFPAT_OUTPUT: {
        const char *pn = port_name(a->u.output.port);
        if (pn)
            ofp_txt_add(t, "output:%s", pn);
        else
            ofp_txt_add(t, "output:%u", a->u.output.port);
        if (a->u.output.port == OFPP_CONTROLLER)
            ofp_txt_add(t, "(max_len=%u)", a->u.output.max_len);
        break;
    }
    case OFPAT_SET_MPLS_TTL:
    case OFPAT_SET_NW_TTL:
        ofp_txt_add(t, "%s:%u", name, a->u.ttl);
        break;
    case OFPAT_PUSH_VLAN:
    case OFPAT_PUSH_MPLS:
    case OFPAT_PUSH_PBB:
    case OFPAT_POP_MPLS:
        ofp_txt_add(t, "%s:0x%04x", name, a->u.ethertype);
        break;
    case OFPAT_SET_QUEUE:
        ofp_txt_add(t, "set_queue:%u", a->u.queue_id);
        break;
    case OFPAT_GROUP:
        ofp_txt_add(t, "group:%u", a->u.group_id);
        break;
    case OFPAT_SET_FIELD: {
        const struct ofp_action_set_field *sf = &a->u.set_field;
        if (sf->oxm_class == OFPXMC_OPENFLOW_BASIC) {
            struct ofp_match m;
            char tmp[128];
            ofp_match_init(&m);
            ofp_match_set(&m, sf->field, sf->value, NULL);
            ofp_match_format(&m, tmp, sizeof(tmp));
            ofp_txt_add(t, "set_field:%s", tmp);
        } else {
            ofp_txt_add(t, "set_field:oxm(class=0x%04x,field=%u,len=%u)", sf->oxm_class,
                        sf->field, sf->len);
        }
        break;
    }
    case OFPAT_EXPERIMENTER:
        ofp_txt_add(t, "experimenter:0x%08x(len=%u)", a->u.experimenter.experimenter,
                    a->u.experimenter.len);
        break;
    default:
        if (name)
            ofp_txt_add(t, "%s", name);
        else
            ofp_txt_add(t, "action_type_%u", a->type);
        break;
    }
}

int ofp_actions_format(const struct ofp_actions *l, char *buf, size_t size)
{
    struct ofp_txt t = {buf, size, 0};
    struct ofp_action_iter it;
    struct ofp_action a;
    bool first = true;

    if (size)
        buf[0] = '\0';
    ofp_actions_iter_init(&it, l);
    while (ofp_actions_next(&it, &a)) {
        if (!first)
            ofp_txt_add(&t, ",");
        format_one(&t, &a);
        first = false;
    }
    if (first)
        ofp_txt_add(&t, "drop");
    return ofp_txt_result(&t);
}
