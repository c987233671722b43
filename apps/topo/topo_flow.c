/* topo_flow: see topo_flow.h. */
#include "topo_flow.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fm.h"
#include "fm_change.h"
#include "fm_flow.h"
#include "fm_stored.h"
#include "ofcd_clock.h"
#include "ofcd_log.h"
#include "topo_app.h"

/* One switch's flow on its way through the store (fm_change.h). */
struct topo_flow_put {
    struct fm_change ch;
    struct fm_change_part part;
    struct fm_add_one add;
    struct store_flow rec;
    uint8_t wire[FM_FLOW_WIRE_SMALL];
    char *text;
    struct ofcd_ratelimit *rl;          /* the committer thread's, or NULL */
};

/* A failure for dpid's flow, through rl when there is one. */
static void flow_failed(struct ofcd_ratelimit *rl, uint64_t dpid, const char *what, int rc)
{
    if (!rl) {
        LOG_ERR("topology", "switch %016" PRIx64 ": %s: %s", dpid, what, strerror(-rc));
        return;
    }
    LOG_ERR_RL(rl, ofcd_clock_mono_us(), "topology",
               "switch %016" PRIx64 ": %s: %s", dpid, what, strerror(-rc));
}

int topo_flow_lldp(uint64_t dpid, uint16_t vlan, bool for_delete, struct fm_flow *out,
                   char *text, size_t len)
{
    struct ofp_flow_mod *m = &out->mod;

    memset(out, 0, sizeof(*out));
    fm_flow_fixup(out);
    m->command = for_delete ? OFPFC_DELETE : OFPFC_ADD;
    m->table_id = 0;
    m->priority = TOPO_FLOW_PRIORITY;
    m->cookie = TOPO_COOKIE(dpid);
    /* A delete with a cookie needs its mask (as a REST DELETE does): all of it. */
    m->cookie_mask = for_delete ? UINT64_MAX : 0;
    m->buffer_id = OFP_NO_BUFFER;
    m->out_port = OFPP_ANY;
    m->out_group = OFPG_ANY;
    ofp_match_init(&m->match);
    ofp_match_set_uint(&m->match, OFPXMT_OFB_ETH_TYPE, 0x88cc);
    if (vlan)
        ofp_match_set_uint(&m->match, OFPXMT_OFB_VLAN_VID, OFPVID_PRESENT | (vlan & 0x0fffu));
    out->apply[0] = (struct ofp_action){.type = OFPAT_OUTPUT,
                                        .u.output = {.port = OFPP_CONTROLLER,
                                                     .max_len = OFPCML_NO_BUFFER}};
    m->inst.apply_actions.n = 1;
    m->inst.present |= OFP_INST_APPLY_ACTIONS;
    snprintf(out->owner, sizeof(out->owner), "%s", TOPO_FLOW_OWNER);
    if (!text)
        return 0;
    /* The cookie is above INT64_MAX: stored as the record decoder's u64
     * marker (json_u64.h), as a REST body's would be. */
    char vid[24] = "";
    if (vlan)
        snprintf(vid, sizeof(vid), ",\"dl_vlan\":%u", (unsigned)(vlan & 0x0fffu));
    int n = snprintf(text, len,
                     "{\"actions\":[{\"action_type\":\"output\",\"port\":%u}],"
                     "\"cookie\":\"\\u0001u64:%" PRIu64 "\",\"match\":{\"dl_type\":%u%s},"
                     "\"owner\":\"%s\",\"priority\":%u,\"table_id\":0}",
                     (unsigned)OFPP_CONTROLLER, (uint64_t)TOPO_COOKIE(dpid), 0x88ccu, vid,
                     TOPO_FLOW_OWNER, (unsigned)TOPO_FLOW_PRIORITY);
    return n < 0 || (size_t)n >= len ? -ENOBUFS : 0;
}

static void put_done(void *arg, int rc)
{
    struct topo_flow_put *p = arg;

    if (rc < 0)
        flow_failed(p->rl, p->rec.dpid, "the LLDP flow was not stored", rc);
    free(p->text);
    free(p);
}

/* One LLDP flow's delete on its way through the store. */
struct topo_flow_del {
    atomic_uint *forgets;               /* a switch let go: the count to lower when done */
    struct fm_change ch;
    struct fm_change_part part;
    struct fm_key k;
    struct fm_sel sel;
    uint8_t wire[FM_FLOW_WIRE_SMALL];
    struct ofcd_ratelimit *rl;
};

static void del_done(void *arg, int rc)
{
    struct topo_flow_del *d = arg;

    if (rc < 0)
        flow_failed(d->rl, d->k.dpid, "its LLDP flow was not deleted", rc);
    if (d->forgets)
        atomic_fetch_sub(d->forgets, 1);
    free(d);
}

/* d's change: its one stored version d->k deleted, and n_sels (0 or 1) of
 * its selector d->sel sent to the switch. */
static void del_change(struct topo_flow_del *d, struct fm *fm, size_t n_sels)
{
    d->part = (struct fm_change_part){.dpid = d->k.dpid, .n = n_sels, .dels = &d->sel};
    d->ch = (struct fm_change){.fm = fm, .parts = &d->part, .n_parts = 1, .victims = &d->k,
                               .n_victims = 1, .done = del_done, .arg = d};
}

/* The LLDP flow of the form vlan goes, from the store first, then from
 * the switch (strict: only that flow). 0 when it was not stored. rl NULL:
 * waits for the store (a REST thread); else queued, failures through rl
 * (the control thread, which never waits). */
static int remove_form(struct fm *fm, uint64_t dpid, uint16_t vlan, struct ofcd_ratelimit *rl)
{
    struct fm_flow add, del;
    struct store_flow cur;
    struct topo_flow_del *d = calloc(1, sizeof(*d));
    int rc;

    if (!d)
        return -ENOMEM;
    topo_flow_lldp(dpid, vlan, false, &add, NULL, 0);
    topo_flow_lldp(dpid, vlan, true, &del, NULL, 0);
    d->rl = rl;
    d->k = (struct fm_key){.dpid = dpid, .match_id = fm_flow_match_id(dpid, &add)};
    del.mod.command = OFPFC_DELETE_STRICT;
    del.mod.cookie = TOPO_COOKIE(dpid);
    del.mod.cookie_mask = UINT64_MAX;
    size_t len;
    if ((rc = fm_flow_mod_encode(&del.mod, d->wire, sizeof(d->wire), &len)) < 0 ||
        fm_stored_get(fm, dpid, d->k.match_id, &cur) < 0) {
        free(d);
        return rc < 0 ? rc : 0;
    }
    bool gone = cur.state == STORE_FLOW_DELETED;
    d->k.flow_id = cur.flow_id;
    store_flow_release(&cur);
    if (gone) {
        free(d);
        return 0;
    }
    d->sel = (struct fm_sel){TOPO_FLOW_OWNER, d->wire, len};
    del_change(d, fm, 1);
    if (rl)
        return (rc = fm_change_submit(&d->ch)) == 0 ? 0 : (free(d), rc);
    rc = fm_change_run(&d->ch);
    free(d);
    return rc;
}

/* The LLDP flows of other forms a switch has stored (an ofcd run with
 * another topology.lldp_vlan stored them): their VLANs, read off the
 * records topo_flow_lldp wrote (owner of_lldp, this switch's cookie). */
struct other_forms {
    uint64_t match_id;                  /* the current form's: not another */
    uint16_t vlan[8];
    size_t n;
};

static int find_other(const struct store_flow *f, void *arg)
{
    struct other_forms *o = arg;
    char cookie[40];

    if (f->state == STORE_FLOW_DELETED || f->match_id == o->match_id || !f->owner ||
        strcmp(f->owner, TOPO_FLOW_OWNER) != 0 || o->n == sizeof(o->vlan) / sizeof(o->vlan[0]))
        return 0;
    snprintf(cookie, sizeof(cookie), "u64:%" PRIu64 "\"", (uint64_t)TOPO_COOKIE(f->dpid));
    const char *text = f->json, *end = text + f->json_len;
    if (!memmem(text, f->json_len, cookie, strlen(cookie)))
        return 0;
    const char *v = memmem(text, f->json_len, "\"dl_vlan\":", 10);
    unsigned vid = 0;
    for (v = v ? v + 10 : end; v < end && *v >= '0' && *v <= '9'; v++)
        vid = vid * 10 + (unsigned)(*v - '0');
    if (vid <= 4095)
        o->vlan[o->n++] = (uint16_t)vid;
    return 0;
}

int topo_flow_ensure(struct fm *fm, uint64_t dpid, uint16_t vlan, struct topo_flow_ctx *ctx)
{
    struct topo_flow_put *p = calloc(1, sizeof(*p));
    struct store_flow cur;
    int rc;

    if (!p)
        return -ENOMEM;
    if (!(p->text = malloc(TOPO_FLOW_TEXT_MAX))) {
        rc = -ENOMEM;
        goto fail;
    }
    struct fm_flow flow;
    if ((rc = topo_flow_lldp(dpid, vlan, false, &flow, p->text, TOPO_FLOW_TEXT_MAX)) < 0)
        goto fail;
    uint64_t mid = fm_flow_match_id(dpid, &flow), fid = fm_flow_id_of(mid, &flow);
    if (fm_stored_get(fm, dpid, mid, &cur) == 0) {
        bool have = cur.flow_id == fid && cur.state != STORE_FLOW_DELETED &&
                    !(ctx && atomic_load(&ctx->forgets));
        store_flow_release(&cur);
        if (have) {
            rc = 0;
            goto fail;                  /* nothing to do: not a failure */
        }
    }
    /* This form is new to the switch: one of another form goes (a walk of
     * the switch's stored flows, once per form change). The control
     * thread (ctx set) queues the deletes; a REST thread waits. */
    struct other_forms other = {.match_id = mid};
    fm_stored_foreach(fm, &dpid, find_other, &other);
    for (size_t i = 0; i < other.n; i++)
        if ((rc = remove_form(fm, dpid, other.vlan[i], ctx ? &ctx->stored : NULL)) < 0)
            flow_failed(ctx ? &ctx->ensure : NULL, dpid, "cannot delete its LLDP flow of "
                        "another topology.lldp_vlan", rc);
    p->rl = ctx ? &ctx->stored : NULL;
    p->rec = (struct store_flow){.dpid = dpid, .match_id = mid, .flow_id = fid,
                                 .state = STORE_FLOW_PENDING, .owner = TOPO_FLOW_OWNER,
                                 .json = p->text, .json_len = strlen(p->text)};
    fm_flow_fixup(&flow);
    size_t len;
    if ((rc = fm_flow_mod_encode(&flow.mod, p->wire, sizeof(p->wire), &len)) < 0) {
        flow_failed(ctx ? &ctx->ensure : NULL, dpid, "cannot encode its LLDP flow", rc);
        goto fail;
    }
    p->add = (struct fm_add_one){mid, fid, TOPO_FLOW_OWNER, p->wire, len};
    p->part = (struct fm_change_part){.dpid = dpid, .n = 1, .adds = &p->add};
    p->ch = (struct fm_change){.fm = fm, .parts = &p->part, .n_parts = 1,
                               .recs = &p->rec, .n_recs = 1, .done = put_done, .arg = p};
    if ((rc = fm_change_submit(&p->ch)) == 0)
        return 0;
    flow_failed(ctx ? &ctx->ensure : NULL, dpid, "cannot store its LLDP flow", rc);
fail:
    free(p->text);
    free(p);
    return rc;
}

int topo_flow_remove(struct fm *fm, uint64_t dpid, uint16_t vlan)
{
    struct fm_flow f;

    topo_flow_lldp(dpid, vlan, false, &f, NULL, 0);
    struct other_forms other = {.match_id = fm_flow_match_id(dpid, &f)};
    int rc = remove_form(fm, dpid, vlan, NULL);
    fm_stored_foreach(fm, &dpid, find_other, &other);
    for (size_t i = 0; i < other.n && rc >= 0; i++)
        rc = remove_form(fm, dpid, other.vlan[i], NULL);
    return rc;
}

int topo_flow_forget(struct fm *fm, uint64_t dpid, uint16_t vlan, struct topo_flow_ctx *ctx)
{
    struct topo_flow_del *d = calloc(1, sizeof(*d));
    struct fm_flow add;
    int rc;

    if (!d)
        return -ENOMEM;
    /* The version topo_flow_ensure stores, named without reading the store:
     * a put still queued (the switch came and went within a commit) is
     * applied first and deleted by this. */
    topo_flow_lldp(dpid, vlan, false, &add, NULL, 0);
    uint64_t mid = fm_flow_match_id(dpid, &add);
    d->k = (struct fm_key){.dpid = dpid, .match_id = mid, .flow_id = fm_flow_id_of(mid, &add)};
    d->rl = &ctx->stored;
    del_change(d, fm, 0);                               /* nothing sent: the switch is gone */
    d->forgets = &ctx->forgets;
    atomic_fetch_add(&ctx->forgets, 1);
    if ((rc = fm_change_submit(&d->ch)) < 0) {
        atomic_fetch_sub(&ctx->forgets, 1);
        free(d);
        flow_failed(&ctx->forget, dpid, "cannot delete the LLDP flow of a switch let go", rc);
    }
    return rc;
}
