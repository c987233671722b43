/* fm_flow: see fm_flow.h. The typed flow and its identity. */
#include "fm_flow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ofcd_fnv.h"
#include "ofp_msg.h"

/* Room for the largest instructions a flow holds: two full action lists of
 * set_fields (24 bytes each) and the rest. */
#define FM_FLOW_INST_BUF 8192

void fm_flow_fixup(struct fm_flow *f)
{
    f->mod.inst.apply_actions.wire = NULL;
    f->mod.inst.apply_actions.wire_len = 0;
    f->mod.inst.apply_actions.arr = f->apply;
    f->mod.inst.write_actions.wire = NULL;
    f->mod.inst.write_actions.wire_len = 0;
    f->mod.inst.write_actions.arr = f->write;
}

int fm_flow_mod_encode(const struct ofp_flow_mod *fmod, uint8_t *buf, size_t cap, size_t *len)
{
    struct ofp_msg m;
    struct ofp_buf b;

    m.hdr = (struct ofp_hdr){.version = OFP13_VERSION, .type = OFPT_FLOW_MOD};
    m.u.flow_mod = *fmod;
    ofp_buf_init(&b, buf, cap);
    int rc = ofp_encode(&b, &m);
    if (rc == 0)
        *len = b.len;
    return rc;
}

bool fm_flow_is_delete(const struct fm_flow *f)
{
    return f->mod.command == OFPFC_DELETE || f->mod.command == OFPFC_DELETE_STRICT;
}

static int copy_actions(const struct ofp_actions *in, struct ofp_action *arr)
{
    struct ofp_action_iter it;
    unsigned n = 0;

    ofp_actions_iter_init(&it, in);
    while (n < FM_FLOW_ACTIONS_MAX && ofp_actions_next(&it, &arr[n]))
        n++;
    return n == in->n ? (int)n : -E2BIG;
}

int fm_flow_from_entry(uint8_t table_id, uint16_t priority, uint64_t cookie, uint16_t idle,
                       uint16_t hard, const struct ofp_match *match,
                       const struct ofp_instructions *inst, struct fm_flow *out)
{
    struct ofp_flow_mod *mod = &out->mod;
    int na, nw;

    memset(out, 0, sizeof(*out));
    mod->command = OFPFC_ADD;
    mod->table_id = table_id;
    mod->priority = priority;
    mod->cookie = cookie;
    mod->idle_timeout = idle;
    mod->hard_timeout = hard;
    mod->buffer_id = OFP_NO_BUFFER;
    mod->out_port = OFPP_ANY;
    mod->out_group = OFPG_ANY;
    mod->match = *match;
    mod->inst = *inst;
    na = (inst->present & OFP_INST_APPLY_ACTIONS) ? copy_actions(&inst->apply_actions, out->apply)
                                                  : 0;
    nw = (inst->present & OFP_INST_WRITE_ACTIONS) ? copy_actions(&inst->write_actions, out->write)
                                                  : 0;
    if (na < 0 || nw < 0)
        return -E2BIG;
    fm_flow_fixup(out);
    mod->inst.apply_actions.n = (uint16_t)na;
    mod->inst.write_actions.n = (uint16_t)nw;
    return 0;
}

/* ---- identity -------------------------------------------------------------- */

/* v's low len bytes, big-endian, into the hash. */
static uint64_t fnv_be(uint64_t h, uint64_t v, unsigned len)
{
    uint8_t b[8];

    for (unsigned i = 0; i < len; i++)
        b[i] = (uint8_t)(v >> 8 * (len - 1 - i));
    return ofcd_fnv1a(h, b, len);
}

uint64_t fm_match_id(uint64_t dpid, uint8_t table_id, uint16_t priority,
                     const struct ofp_match *match)
{
    uint8_t buf[1024];
    struct ofp_buf b;
    uint64_t h = OFCD_FNV_OFFSET;

    h = fnv_be(h, dpid, 8);
    h = fnv_be(h, table_id, 1);
    h = fnv_be(h, priority, 2);
    ofp_buf_init(&b, buf, sizeof(buf));
    /* A parsed match always fits: 40 fields with masks stay under 700 bytes. */
    if (ofp_match_encode(&b, match) == 0)
        h = ofcd_fnv1a(h, b.data, b.len);
    return h;
}

uint64_t fm_flow_match_id(uint64_t dpid, const struct fm_flow *f)
{
    return fm_match_id(dpid, f->mod.table_id, f->mod.priority, &f->mod.match);
}

uint64_t fm_flow_id(uint64_t dpid, const struct fm_flow *f)
{
    return fm_flow_id_of(fm_flow_match_id(dpid, f), f);
}

uint64_t fm_flow_id_of(uint64_t match_id, const struct fm_flow *f)
{
    struct ofp_instructions inst = f->mod.inst;
    uint8_t *buf = malloc(FM_FLOW_INST_BUF);
    struct ofp_buf b;
    uint64_t h = OFCD_FNV_OFFSET;

    /* The action lists may point into another copy of f: hash through
     * lists that point at this struct's own arrays. */
    inst.apply_actions = (struct ofp_actions){.arr = f->apply, .n = inst.apply_actions.n};
    inst.write_actions = (struct ofp_actions){.arr = f->write, .n = inst.write_actions.n};
    h = fnv_be(h, match_id, 8);
    h = fnv_be(h, f->mod.cookie, 8);
    h = fnv_be(h, f->mod.idle_timeout, 2);
    h = fnv_be(h, f->mod.hard_timeout, 2);
    if (buf) {
        ofp_buf_init(&b, buf, FM_FLOW_INST_BUF);
        if (ofp_instructions_encode(&b, &inst) == 0)
            h = ofcd_fnv1a(h, b.data, b.len);
        free(buf);
    }
    return h;
}
