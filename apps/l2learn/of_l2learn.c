/* of_l2learn: see of_l2learn.h. Pure logic over decoded messages: the worker
 * encodes and sends what it returns, so the app is tested without a switch. */
#include "of_l2learn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct l2_entry {
    uint8_t mac[6];
    uint8_t used;
    uint32_t port;
    uint64_t seen_us;
};

struct l2_table {
    uint32_t mask;              /* slots - 1, slots a power of two >= 2 * size */
    uint32_t size, count;
    struct l2_entry *slots;
};

struct l2_table *l2_table_create(uint32_t size)
{
    struct l2_table *t = calloc(1, sizeof(*t));
    uint32_t slots = 16;

    if (!t || size == 0)
        goto fail;
    while (slots < 2 * size)
        slots <<= 1;
    t->slots = calloc(slots, sizeof(*t->slots));
    if (!t->slots)
        goto fail;
    t->mask = slots - 1;
    t->size = size;
    return t;
fail:
    free(t);
    return NULL;
}

void l2_table_destroy(struct l2_table *t)
{
    if (t)
        free(t->slots);
    free(t);
}

uint32_t l2_table_count(const struct l2_table *t)
{
    return t->count;
}

static uint32_t mac_hash(const uint8_t *mac)
{
    uint64_t v = 0;
    memcpy(&v, mac, 6);
    v *= 0x9e3779b97f4a7c15ULL;
    return (uint32_t)(v >> 32);
}

static struct l2_entry *lookup(struct l2_table *t, const uint8_t *mac)
{
    for (uint32_t i = mac_hash(mac) & t->mask, n = 0; n <= t->mask; i = (i + 1) & t->mask, n++) {
        if (!t->slots[i].used)
            return NULL;
        if (memcmp(t->slots[i].mac, mac, 6) == 0)
            return &t->slots[i];
    }
    return NULL;
}

/* Remove slot i, shifting the probe chain back (no tombstones). */
static void remove_at(struct l2_table *t, uint32_t i)
{
    uint32_t j = i;

    t->slots[i].used = 0;
    t->count--;
    for (;;) {
        j = (j + 1) & t->mask;
        if (!t->slots[j].used)
            return;
        uint32_t home = mac_hash(t->slots[j].mac) & t->mask;
        /* Move j into the hole i if its home is not in (i, j]. */
        bool between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!between) {
            t->slots[i] = t->slots[j];
            t->slots[j].used = 0;
            i = j;
        }
    }
}

static void learn(struct l2_table *t, const uint8_t *mac, uint32_t port, uint64_t now)
{
    struct l2_entry *e = lookup(t, mac);

    if (e) {
        e->port = port;
        e->seen_us = now;
        return;
    }
    if (t->count >= t->size) {
        /* Full: evict the least recently seen (a scan, but only on a table
         * that is full of hosts nobody has heard from recently). */
        uint32_t oldest = 0;
        uint64_t best = UINT64_MAX;
        for (uint32_t i = 0; i <= t->mask; i++)
            if (t->slots[i].used && t->slots[i].seen_us < best) {
                best = t->slots[i].seen_us;
                oldest = i;
            }
        remove_at(t, oldest);
    }
    uint32_t i = mac_hash(mac) & t->mask;
    while (t->slots[i].used)
        i = (i + 1) & t->mask;
    memcpy(t->slots[i].mac, mac, 6);
    t->slots[i].port = port;
    t->slots[i].seen_us = now;
    t->slots[i].used = 1;
    t->count++;
}

/* The next message to send, its header and the body its type selects
 * zeroed: the whole union is 1.1 KB, a PACKET_OUT's body 56 B, and every
 * packet_in makes one. */
static struct ofp_msg *next_msg(struct l2_out *out, uint8_t type)
{
    struct ofp_msg *m = &out->msg[out->n++];

    m->hdr = (struct ofp_hdr){.version = OFP13_VERSION, .type = type};
    if (type == OFPT_FLOW_MOD)
        memset(&m->u.flow_mod, 0, sizeof(m->u.flow_mod));
    else if (type == OFPT_PACKET_OUT)
        memset(&m->u.packet_out, 0, sizeof(m->u.packet_out));
    else
        memset(&m->u, 0, sizeof(m->u));
    return m;
}

/* A FLOW_MOD with match-all, no buffer and no out_port/out_group filter. */
static struct ofp_flow_mod *next_flow_mod(struct l2_out *out, uint8_t command, uint8_t table,
                                          uint16_t priority)
{
    struct ofp_flow_mod *fm = &next_msg(out, OFPT_FLOW_MOD)->u.flow_mod;
    fm->command = command;
    /* Its entries carry the app's cookie, so the flow manager's consistency
     * check can tell them from aliens (a DELETE with mask 0 ignores it). */
    fm->cookie = command == OFPFC_ADD ? L2_COOKIE : 0;
    fm->table_id = table;
    fm->priority = priority;
    fm->buffer_id = OFP_NO_BUFFER;
    fm->out_port = OFPP_ANY;
    fm->out_group = OFPG_ANY;
    return fm;                     /* its match is zeroed: match-all (ofp_match_init) */
}

void l2_on_established(const struct l2_cfg *cfg, struct l2_out *out)
{
    (void)cfg;
    out->n = 0;
    next_flow_mod(out, OFPFC_DELETE, OFPTT_ALL, 0);
    struct ofp_flow_mod *fm = next_flow_mod(out, OFPFC_ADD, 0, 0);
    out->act[0].type = OFPAT_OUTPUT;
    out->act[0].u.output.port = OFPP_CONTROLLER;
    out->act[0].u.output.max_len = OFPCML_NO_BUFFER;
    fm->inst.present = OFP_INST_APPLY_ACTIONS;
    fm->inst.apply_actions.arr = &out->act[0];
    fm->inst.apply_actions.n = 1;
}

static bool is_unicast(const uint8_t *mac)
{
    return !(mac[0] & 1);
}

int l2_on_packet_in(struct l2_table *t, const struct l2_cfg *cfg, const struct ofp_packet_in *pi,
                    uint64_t now_us, struct l2_out *out)
{
    out->n = 0;
    if (pi->data_len < 14 || !ofp_match_has(&pi->match, OFPXMT_OFB_IN_PORT))
        return -EINVAL;
    const uint8_t *dst = pi->data, *src = pi->data + 6;
    uint32_t in_port = (uint32_t)ofp_match_get_uint(&pi->match, OFPXMT_OFB_IN_PORT);

    if (is_unicast(src))
        learn(t, src, in_port, now_us);
    /* 802.1D's reserved link-local group (01:80:c2:00:00:00-0f: LLDP, STP,
     * pause) is never forwarded by a bridge: flooding LLDP would show links
     * that are not there. */
    static const uint8_t link_local[5] = {0x01, 0x80, 0xc2, 0x00, 0x00};
    if (memcmp(dst, link_local, 5) == 0 && dst[5] <= 0x0f)
        return 0;
    struct l2_entry *e = is_unicast(dst) ? lookup(t, dst) : NULL;
    uint32_t out_port = e && e->port != in_port ? e->port : OFPP_FLOOD;
    if (e && e->port == in_port)
        return 0;                  /* already where it should be: nothing to do */

    out->act[0].type = OFPAT_OUTPUT;
    out->act[0].u.output.port = out_port;
    out->act[0].u.output.max_len = 0;
    bool flow = out_port != OFPP_FLOOD;
    if (flow) {
        struct ofp_flow_mod *fm = next_flow_mod(out, OFPFC_ADD, 0, cfg->priority);
        fm->idle_timeout = cfg->idle_timeout_s;
        fm->buffer_id = pi->buffer_id;        /* the switch forwards a buffered packet */
        ofp_match_set_uint(&fm->match, OFPXMT_OFB_IN_PORT, in_port);
        ofp_match_set(&fm->match, OFPXMT_OFB_ETH_DST, dst, NULL);
        fm->inst.present = OFP_INST_APPLY_ACTIONS;
        fm->inst.apply_actions.arr = &out->act[0];
        fm->inst.apply_actions.n = 1;
    }
    if (!flow || pi->buffer_id == OFP_NO_BUFFER) {
        struct ofp_msg *m = next_msg(out, OFPT_PACKET_OUT);
        struct ofp_packet_out *po = &m->u.packet_out;
        po->buffer_id = flow ? OFP_NO_BUFFER : pi->buffer_id;
        po->in_port = in_port;
        po->actions.arr = &out->act[0];
        po->actions.n = 1;
        if (po->buffer_id == OFP_NO_BUFFER) {
            po->data = pi->data;
            po->data_len = pi->data_len;
        }
    }
    return 0;
}
