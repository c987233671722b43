/* eline_deploy: an EVC onto the network and off it — its UNI tags checked
 * against the other EVCs', its path (eline_path.c), an S-VLAN per link (the lowest one no other EVC
 * uses on that link, never topology.lldp_vlan), its flows laid through
 * the flow manager (eline_layout, eline_flows). See eline_app.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eline_app.h"
#include "dpid.h"
#include "eline_flows.h"
#include "fm_gm.h"
#include "gm_json.h"
#include "ofcd_clock.h"
#include "ofcd_log.h"
#include "ofcd_ratelimit.h"
#include "ofp_wire.h"
#include "topo_class.h"
#include "topo_paths.h"
#include "topo_tags.h"
#include "topo_view.h"

/* ---- UNI tags ---------------------------------------------------------------------- */

static bool same_port(const struct eline_uni_req *x, const struct eline_uni_req *y)
{
    return x->at.dpid == y->at.dpid && x->at.port == y->at.port;
}

/* Do two tagged UNIs of one port take a common tag? */
static bool tags_overlap(const struct eline_uni_req *x, const struct eline_uni_req *y)
{
    const struct eline_vlan *a = &x->vlan, *b = &y->vlan;

    if (a->kind != ELINE_VLAN_MASKS && b->kind != ELINE_VLAN_MASKS)
        return a->kind == b->kind && (a->kind != ELINE_VLAN_VID || a->vid == b->vid);
    if (a->kind == ELINE_VLAN_MASKS && b->kind == ELINE_VLAN_MASKS) {
        for (unsigned i = 0; i < x->n_ranges; i++)
            for (unsigned j = 0; j < y->n_ranges; j++)
                if (x->ranges[i][0] <= y->ranges[j][1] && y->ranges[j][0] <= x->ranges[i][1])
                    return true;
        return false;
    }
    const struct eline_uni_req *list = a->kind == ELINE_VLAN_MASKS ? x : y;
    const struct eline_vlan *one = a->kind == ELINE_VLAN_MASKS ? b : a;
    if (one->kind != ELINE_VLAN_VID || one->vid == 0)
        return false;                   /* "any" / "untagged" are special tags, not VIDs */
    for (unsigned i = 0; i < list->n_ranges; i++)
        if (list->ranges[i][0] <= one->vid && one->vid <= list->ranges[i][1])
            return true;
    return false;
}

static void tag_text(const struct eline_uni_req *u, char *out, size_t len)
{
    if (u->vlan.kind == ELINE_VLAN_ANY)
        snprintf(out, len, "any");
    else if (u->vlan.kind == ELINE_VLAN_MASKS)
        snprintf(out, len, "[%u, %u]...", u->ranges[0][0], u->ranges[0][1]);
    else if (u->vlan.vid == 0)
        snprintf(out, len, "untagged");
    else
        snprintf(out, len, "%u", u->vlan.vid);
}

/* The lowest S-VLAN o's path or backup carries on u's port inside u's
 * tags (mine, eline_uni_tags_on's): 0 when none. */
static unsigned svlan_at_uni(const struct eline_uni_req *u, const uint64_t *mine,
                             const struct eline_rec *o)
{
    uint64_t carried[4096 / 64] = {0};

    eline_links_tags_on(o->path, o->n_path, u->at.dpid, u->at.port, carried);
    eline_links_tags_on(o->backup, o->n_backup, u->at.dpid, u->at.port, carried);
    for (unsigned w = 0; w < 4096 / 64; w++)
        if (carried[w] & mine[w])
            return w * 64 + (unsigned)__builtin_ctzll(carried[w] & mine[w]);
    return 0;
}

unsigned eline_uni_conflict(struct eline_app *a, const struct eline_rec *r, char *why,
                            size_t len)
{
    const struct eline_uni_req *mine[2] = {&r->req.uni_a, &r->req.uni_z};
    uint64_t tags[2][4096 / 64] = {{0}};
    unsigned st = 0, special = 0;

    for (int m = 0; m < 2; m++)
        eline_uni_tags_on(mine[m], mine[m]->at.dpid, mine[m]->at.port, tags[m], &special);
    pthread_mutex_lock(&a->lock);
    for (size_t i = 0; i < a->n_evcs && !st; i++) {
        const struct eline_rec *o = a->evcs[i];
        if (o->archived || o == r || strcmp(o->id, r->id) == 0)  /* itself, as it was */
            continue;
        const struct eline_uni_req *theirs[2] = {&o->req.uni_a, &o->req.uni_z};
        for (int m = 0; m < 2 && !st; m++)
            for (int t = 0; t < 2 && !st; t++) {
                if (!same_port(mine[m], theirs[t]))
                    continue;
                if (!mine[m]->has_tag && !theirs[t]->has_tag) {
                    snprintf(why, len, "UNI %s without a tag is already used by EVC %s.",
                             mine[m]->interface_id, o->id);
                    st = 409;
                } else if (mine[m]->has_tag && theirs[t]->has_tag &&
                           tags_overlap(mine[m], theirs[t])) {
                    char tag[48];
                    tag_text(mine[m], tag, sizeof(tag));
                    snprintf(why, len, "Tag %s is not available in %s: EVC %s uses it.", tag,
                             mine[m]->interface_id, o->id);
                    st = 400;
                }
            }
        for (int m = 0; m < 2 && !st; m++) {
            unsigned sv = svlan_at_uni(mine[m], tags[m], o);
            if (sv) {
                snprintf(why, len, "Tag %u is not available in %s: EVC %s carries it there as "
                         "its S-VLAN.", sv, mine[m]->interface_id, o->id);
                st = 400;
            }
        }
    }
    pthread_mutex_unlock(&a->lock);
    return st;
}

/* ---- the path --------------------------------------------------------------------------- */

/* The S-VLANs links[0..n) take on l, marked in used. */
static void mark_used(uint64_t *used, const struct eline_link *links, size_t n,
                      const struct eline_link *l)
{
    for (size_t k = 0; k < n; k++)
        if (eline_same_link(&links[k], l))
            used[links[k].s_vlan / 64] |= 1ull << (links[k].s_vlan % 64);
}

/* The lowest S-VLAN of pool (the link's ends' tag pools) no other live EVC
 * uses on link l, no live EVC's UNI takes at either of its ends (a UNI may
 * sit on a port between switches), nor the LLDP VLAN; 0 when none is
 * left. Under lock. */
static uint16_t svlan_free(struct eline_app *a, const struct eline_rec *self,
                           const struct eline_link *l, const uint64_t *pool)
{
    static const size_t words = 4096 / 64;
    uint64_t used[4096 / 64] = {0};

    for (size_t w = 0; w < words; w++)
        used[w] = ~pool[w];             /* outside the pool: as good as used */

    if (a->lldp_vlan)
        used[a->lldp_vlan / 64] |= 1ull << (a->lldp_vlan % 64);
    for (size_t i = 0; i < a->n_evcs; i++) {
        const struct eline_rec *o = a->evcs[i];
        unsigned special = 0;
        if (o->archived)
            continue;
        const struct eline_end *end[2] = {&l->a, &l->b};
        for (int e = 0; e < 2; e++) {
            eline_uni_tags_on(&o->req.uni_a, end[e]->dpid, end[e]->port, used, &special);
            eline_uni_tags_on(&o->req.uni_z, end[e]->dpid, end[e]->port, used, &special);
        }
        if (o == self)
            continue;
        mark_used(used, o->path, o->n_path, l);
        mark_used(used, o->backup, o->n_backup, l);
    }
    for (size_t k = 0; k < ELINE_MOVERS; k++) {
        const struct eline_leaving *g = &a->leaving[k];
        if (g->r && g->r != self) {
            mark_used(used, g->path, g->n_path, l);
            mark_used(used, g->backup, g->n_backup, l);
        }
    }
    for (size_t w = 0; w < words; w++)
        for (unsigned b = 0; b < 64; b++) {
            unsigned vid = (unsigned)(w * 64 + b);
            if (vid >= 1 && vid <= 4094 && !(used[w] & (1ull << b)))
                return (uint16_t)vid;
        }
    return 0;
}

static uint64_t evc_number(const struct eline_rec *r)
{
    return strtoull(r->id, NULL, 16);
}

static struct eline_evc layout_of(const struct eline_rec *r)
{
    struct eline_evc e = {.id = evc_number(r), .uni_a = r->req.uni_a.at,
                          .uni_z = r->req.uni_z.at, .vlan_a = r->req.uni_a.vlan,
                          .vlan_z = r->req.uni_z.vlan, .queue_id = r->req.queue_id,
                          .sb_priority = r->req.sb_priority > 0 ? (uint16_t)r->req.sb_priority
                                                                : 0};
    if (!r->req.uni_a.has_tag)
        e.vlan_a.kind = ELINE_VLAN_NONE;
    if (!r->req.uni_z.has_tag)
        e.vlan_z.kind = ELINE_VLAN_NONE;
    return e;
}

/* The group id an EVC protects itself with on its UNIs' switches: from
 * its id (one switch rarely holds two EVCs' UNIs whose ids agree there;
 * when it does, the second goes unprotected, lay() says). */
static uint32_t gid_of(uint64_t evc)
{
    return (uint32_t)(evc % OFPG_MAX) + 1;
}

static uint32_t gid_free(struct eline_app *a, const struct eline_rec *r);

/* The meter ids an EVC takes: this on uni_a's switch, the next on
 * uni_z's (both differ on one switch: an intra-switch EVC has both). */
static uint32_t meter_of(uint64_t evc)
{
    return (uint32_t)(evc % ((OFPM_MAX - 1) / 2)) * 2 + 1;
}

/* Are the ids an EVC would take on its UNIs' switches free there: id on
 * uni_a's, id + step on uni_z's (its group: the same id; its meters: the
 * next)? One that another's holds, or that cannot be read, is never
 * overwritten: false, said with what the EVC goes without. */
static bool uni_ids_free(struct eline_app *a, const struct eline_rec *r, enum fm_gm_kind kind,
                         uint32_t id, uint32_t step, const char *without)
{
    const uint64_t sw[2] = {r->req.uni_a.at.dpid, r->req.uni_z.at.dpid};
    for (uint32_t i = 0; i < 2; i++) {
        struct fm_gm_info info;
        int rc = fm_gm_get(a->host->fm, sw[i], kind, id + i * step, &info);
        if (rc == 0)
            free(info.text);
        if (rc != -ENOENT) {
            LOG_WARN("eline", "EVC %s (%s): %s %" PRIu32 " on %016" PRIx64 " is %s: laid "
                     "without %s", r->id, r->req.name, fm_gm_kind_name(kind), id + i * step,
                     sw[i], rc == 0 ? "another's" : "not readable now", without);
            return false;
        }
    }
    return true;
}

/* The same ids off the UNIs' switches (id 0: nothing). */
static void uni_ids_del(struct eline_app *a, const struct eline_rec *r, enum fm_gm_kind kind,
                        uint32_t id, uint32_t step)
{
    const uint64_t sw[2] = {r->req.uni_a.at.dpid, r->req.uni_z.at.dpid};
    for (uint32_t i = 0; id && i < 2; i++) {
        int rc = fm_gm_del(a->host->fm, sw[i], kind, id + i * step);
        if (rc < 0 && rc != -ENOENT)
            LOG_WARN("eline", "EVC %s: its %s %" PRIu32 " on %016" PRIx64 " not deleted: %s",
                     r->id, fm_gm_kind_name(kind), id + i * step, sw[i], strerror(-rc));
    }
}

/* The meter ids r may take: its own, unless another's meter holds one
 * (then 0: laid unmetered). */
static uint32_t meter_free(struct eline_app *a, const struct eline_rec *r)
{
    uint32_t id = meter_of(evc_number(r));
    return r->meter == id || uni_ids_free(a, r, FM_GM_METER, id, 1, "its bandwidth's meters")
               ? id
               : 0;
}

/* r's path now and its S-VLANs, into r (under write_lock); its backup too
 * when the topology has one. */
static int plan(struct eline_app *a, struct eline_rec *r)
{
    struct eline_link path[ELINE_PATH_MAX], backup[ELINE_PATH_MAX];
    size_t n = 0, nb = 0;
    bool lone = false;

    int rc = eline_path_find(a, r, path, &n, backup, &nb, &lone);
    if (rc < 0) {
        /* No path is the callers' to tell (a create, a move); the worker's
         * retries, every 10 s and at each topology change, say nothing. */
        if (rc == -ENOENT)
            LOG_DEBUG("eline", "EVC %s (%s): no path from %s to %s now", r->id, r->req.name,
                      r->req.uni_a.interface_id, r->req.uni_z.interface_id);
        else {                          /* retried: at most 10 lines a minute */
            pthread_mutex_lock(&a->lock);   /* the worker's movers share the limiter */
            LOG_WARN_RL(&a->plan_rl, ofcd_clock_mono_us(), "eline",
                        "EVC %s (%s): its path cannot be laid: %s", r->id, r->req.name,
                        strerror(-rc));
            pthread_mutex_unlock(&a->lock);
        }
        return rc;
    }
    /* Its group id chosen here, so the record kept before anything is laid
     * names the groups it may leave behind. */
    uint32_t gid = nb ? gid_free(a, r) : 0;
    if (!gid)
        nb = 0;
    /* A meter's rate is 32 bits of kbit/s: past it, laid unmetered. */
    bool metered = a->meters && r->req.bandwidth > 0;
    if (metered && r->req.bandwidth > UINT32_MAX / 1000) {
        pthread_mutex_lock(&a->lock);
        LOG_WARN_RL(&a->plan_rl, ofcd_clock_mono_us(), "eline", "EVC %s (%s): bandwidth %"
                    PRId64 " Mbit/s is past what a meter takes (%u): laid unmetered", r->id,
                    r->req.name, r->req.bandwidth, UINT32_MAX / 1000);
        pthread_mutex_unlock(&a->lock);
        metered = false;
    }
    uint32_t meter = metered ? meter_free(a, r) : 0;
    /* The links' pools, read before the list's lock (the topology takes
     * its own). */
    uint64_t (*pool)[TOPO_TAGS_WORDS] = malloc((n + nb + 1) * sizeof(*pool));
    if (!pool)
        return -ENOMEM;
    for (size_t i = 0; i < n + nb && rc == 0; i++)
        rc = eline_link_pool(a, i < n ? &path[i] : &backup[i - n], pool[i]);
    pthread_mutex_lock(&a->lock);
    for (size_t i = 0; i < n && rc == 0; i++)
        if (!(path[i].s_vlan = svlan_free(a, r, &path[i], pool[i])))
            rc = -ENOSPC;
    for (size_t i = 0; i < nb && rc == 0; i++)
        if (!(backup[i].s_vlan = svlan_free(a, r, &backup[i], pool[n + i])))
            nb = 0;                     /* no S-VLAN left there: unprotected */
    if (rc == 0) {
        memcpy(r->path, path, n * sizeof(path[0]));
        r->n_path = n;
        memcpy(r->backup, backup, nb * sizeof(backup[0]));
        r->n_backup = nb;
        r->gid = nb ? gid : 0;
        r->meter = meter;
        r->lone = lone;
        r->seen_up = true;              /* found up just now */
    }
    pthread_mutex_unlock(&a->lock);
    free(pool);
    if (rc == -ENOSPC)
        LOG_WARN("eline", "EVC %s (%s): not deployed: no S-VLAN left on a link of its path",
                 r->id, r->req.name);
    return rc;
}

/* Its layout as planned: flows by switch, and the groups that protect it
 * ({} when unprotected). */
static int layout_now(const struct eline_rec *r, json_t **flows, json_t **groups)
{
    struct eline_evc e = layout_of(r);
    json_t *p = NULL, *b = NULL;

    *groups = NULL;
    *flows = NULL;
    int rc = eline_layout(&e, r->path, r->n_path, &p);
    if (rc == 0 && r->n_backup && r->gid && (rc = eline_layout(&e, r->backup, r->n_backup, &b)) == 0) {
        rc = eline_layout_protect(&e, r->gid, p, b, flows, groups);
        json_decref(p);
        p = NULL;
    } else if (rc == 0) {
        *flows = p;
        p = NULL;
        *groups = json_object();
    }
    json_decref(p);
    json_decref(b);
    if (rc == 0 && !*groups)
        rc = -ENOMEM;
    if (rc == 0 && r->meter)
        rc = eline_layout_meter(&e, *flows, r->meter, r->meter + 1);
    if (rc < 0) {
        json_decref(*flows);
        json_decref(*groups);
        *flows = *groups = NULL;
    }
    return rc;
}

/* One group or meter, as gm_json's text, stored and laid on dpid: 0,
 * -EINVAL (not one gm_json takes: a meter's rate past its bound), -ENOMEM,
 * fm_gm_put's error. */
static int gm_put_text(struct eline_app *a, uint64_t dpid, enum fm_gm_kind kind,
                       const char *text)
{
    char err[256];
    size_t len;
    uint32_t id;
    uint8_t *wire = malloc(GM_JSON_WIRE_MAX);
    int rc = wire ? 0 : -ENOMEM;

    if (rc == 0 && (kind == FM_GM_GROUP
                        ? gm_json_group(text, strlen(text), wire, &len, &id, err, sizeof(err))
                        : gm_json_meter(text, strlen(text), wire, &len, &id, err, sizeof(err))) < 0)
        rc = -EINVAL;
    if (rc == 0)
        rc = fm_gm_put(a->host->fm, dpid, wire, len, text, strlen(text));
    free(wire);
    return rc;
}

/* r's meters on its UNIs' switches, at its bandwidth (Mbit/s), before the
 * flows that name them; one stored as it is already is not put again (a
 * move keeps its UNIs), unless its switch refused it (error): a move or
 * a redeploy is the operator's way to have it tried again. */
static int put_meters(struct eline_app *a, const struct eline_rec *r)
{
    const uint64_t sw[2] = {r->req.uni_a.at.dpid, r->req.uni_z.at.dpid};
    int rc = 0;

    for (uint32_t i = 0; rc == 0 && i < 2; i++) {
        json_t *m = eline_layout_meter_body(r->meter + i, (uint64_t)r->req.bandwidth * 1000u);
        char *text = m ? json_dumps(m, JSON_COMPACT) : NULL;
        json_decref(m);
        struct fm_gm_info had;
        bool same = false;
        if (!text)
            rc = -ENOMEM;
        else if (fm_gm_get(a->host->fm, sw[i], FM_GM_METER, r->meter + i, &had) == 0) {
            same = strcmp(had.text, text) == 0 && had.state != FM_GM_ERROR;
            free(had.text);
        }
        if (rc == 0 && !same)
            rc = gm_put_text(a, sw[i], FM_GM_METER, text);
        free(text);
    }
    return rc;
}

/* r's meters meter, meter + 1 off its UNIs' switches (0: nothing). */
static void del_meters(struct eline_app *a, const struct eline_rec *r, uint32_t meter)
{
    uni_ids_del(a, r, FM_GM_METER, meter, 1);
}

/* Each group of groups stored and laid (before the flows that name it). */
static int put_groups(struct eline_app *a, json_t *groups)
{
    const char *key;
    json_t *g;
    int rc = 0;

    json_object_foreach(groups, key, g) {
        char *text = rc == 0 ? json_dumps(g, JSON_COMPACT) : NULL;
        uint64_t dpid;
        if (rc == 0 && (!text || dpid_parse(key, &dpid) < 0))
            rc = -ENOMEM;
        if (rc == 0)
            rc = gm_put_text(a, dpid, FM_GM_GROUP, text);
        free(text);
    }
    return rc;
}

/* r's groups off its UNIs' switches (none: nothing). */
static void del_groups(struct eline_app *a, const struct eline_rec *r, uint32_t gid)
{
    uni_ids_del(a, r, FM_GM_GROUP, gid, 0);
}

/* The group id r may take on both its UNIs' switches: its own, unless
 * another's group holds it there (then 0: it goes unprotected). */
static uint32_t gid_free(struct eline_app *a, const struct eline_rec *r)
{
    uint32_t gid = gid_of(evc_number(r));
    return r->gid == gid || uni_ids_free(a, r, FM_GM_GROUP, gid, 0, "a fast-failover group")
               ? gid
               : 0;
}

/* The UNIs' push flows of flows (by switch) moved out into a new object:
 * what names the groups, laid once they are. NULL when out of memory. */
static json_t *take_push_flows(json_t *flows, const struct eline_rec *r)
{
    const struct eline_end *uni[2] = {&r->req.uni_a.at, &r->req.uni_z.at};
    json_t *push = json_object();

    for (int u = 0; push && u < 2; u++) {
        char key[24];
        dpid_format(uni[u]->dpid, key);
        json_t *list = json_object_get(json_object_get(flows, key), "flows");
        json_t *moved = json_array();
        if (!moved) {
            json_decref(push);
            return NULL;
        }
        for (size_t i = json_array_size(list); i-- > 0;) {
            json_t *f = json_array_get(list, i);
            if (json_integer_value(json_object_get(json_object_get(f, "match"), "in_port")) ==
                (json_int_t)uni[u]->port) {
                json_array_insert(moved, 0, f);
                json_array_remove(list, i);
            }
        }
        if (json_object_set_new(push, key, json_pack("{s:o}", "flows", moved)) < 0) {
            json_decref(push);
            return NULL;
        }
    }
    return push;
}

/* r's flows over its planned path; protected: the paths' other flows
 * first, then its groups, then the UNIs' push flows that name them, so
 * neither a group nor a push flow sends down a path before its flows are
 * laid. A group that cannot be laid leaves the EVC unprotected (its backup
 * stays laid, unused, until it moves). */
static int lay(struct eline_app *a, struct eline_rec *r, bool moving)
{
    char err[256] = "";
    json_t *flows = NULL, *groups = NULL, *push = NULL;

    if (r->meter) {
        int m = put_meters(a, r);
        if (m < 0) {
            LOG_WARN("eline", "EVC %s (%s): its bandwidth's meters not laid (%s): laid "
                     "unmetered", r->id, r->req.name, strerror(-m));
            /* A move's old flows still name them: the move deletes them
             * once its new flows are laid. */
            if (!moving)
                del_meters(a, r, r->meter);
            pthread_mutex_lock(&a->lock);
            r->meter = 0;
            pthread_mutex_unlock(&a->lock);
        }
    }
    int rc = layout_now(r, &flows, &groups);
    bool guarded = rc == 0 && json_object_size(groups);
    if (guarded && !(push = take_push_flows(flows, r)))
        rc = -ENOMEM;
    if (rc == 0)
        rc = eline_flows_add(a->host->fm, flows, err, sizeof(err));
    if (rc == 0 && guarded) {
        int g = put_groups(a, groups);
        if (g < 0) {
            LOG_WARN("eline", "EVC %s (%s): its fast-failover groups not laid (%s): "
                     "unprotected", r->id, r->req.name, strerror(-g));
            struct eline_evc e = layout_of(r);
            json_t *plain = NULL;
            pthread_mutex_lock(&a->lock);
            r->gid = 0;
            pthread_mutex_unlock(&a->lock);
            json_decref(push);
            push = NULL;
            rc = eline_layout(&e, r->path, r->n_path, &plain);
            if (rc == 0 && r->meter)
                rc = eline_layout_meter(&e, plain, r->meter, r->meter + 1);
            if (rc == 0 && !(push = take_push_flows(plain, r)))
                rc = -ENOMEM;
            json_decref(plain);
        }
    }
    if (rc == 0 && push)
        rc = eline_flows_add(a->host->fm, push, err, sizeof(err));
    json_decref(flows);
    json_decref(groups);
    json_decref(push);
    if (rc < 0)
        LOG_WARN("eline", "EVC %s (%s): its flows were not laid: %s%s%s", r->id, r->req.name,
                 strerror(-rc), *err ? ": " : "", err);
    return rc;
}

/* r kept as it ends a deploy or a move; a failure is logged (the store
 * then says less than memory until the next change of it is kept). */
static void keep_state(struct eline_app *a, struct eline_rec *r)
{
    int kept = eline_rec_save(a, r);
    if (kept < 0)
        LOG_ERR("eline", "EVC %s (%s): its state not kept: %s", r->id, r->req.name,
                strerror(-kept));
}

int eline_deploy(struct eline_app *a, struct eline_rec *r)
{
    pthread_mutex_lock(&a->lock);
    bool had_path = r->active || r->n_path;
    pthread_mutex_unlock(&a->lock);
    int rc = plan(a, r);

    /* Kept with its path before its flows go: S-VLANs a restart must not
     * hand out twice, switches a delete must visit. */
    if (rc == 0 && (rc = eline_rec_save(a, r)) < 0)
        LOG_ERR("eline", "EVC %s (%s): its path not kept (%s): not deployed", r->id,
                r->req.name, strerror(-rc));
    if (rc == 0 && (rc = lay(a, r, false)) < 0)
        eline_undeploy(a, r);           /* what part of it the store took */
    pthread_mutex_lock(&a->lock);
    if (rc == 0) {
        r->active = true;
        eline_now_text(r->last_deployed_at);
    } else {
        r->n_path = r->n_backup = 0;
        r->gid = 0;
    }
    pthread_mutex_unlock(&a->lock);
    /* An inactive EVC still without a path changed nothing: a retry per
     * topology change writes no record. */
    if (rc == 0 || had_path)
        keep_state(a, r);
    return rc;
}

/* d appended to out[0..have) unless there already: the new count. */
static size_t add_once(uint64_t *out, size_t have, uint64_t d)
{
    for (size_t j = 0; j < have; j++)
        if (out[j] == d)
            return have;
    out[have] = d;
    return have + 1;
}

/* The switches of r's UNIs and of path[0..n) added to out[0..have) (room
 * for 2n + 2 more), each once: the new count. */
static size_t switches_of(const struct eline_rec *r, const struct eline_link *path, size_t n,
                          uint64_t *out, size_t have)
{
    have = add_once(out, have, r->req.uni_a.at.dpid);
    have = add_once(out, have, r->req.uni_z.at.dpid);
    for (size_t i = 0; i < n; i++) {
        have = add_once(out, have, path[i].a.dpid);
        have = add_once(out, have, path[i].b.dpid);
    }
    return have;
}

int eline_undeploy(struct eline_app *a, struct eline_rec *r)
{
    uint64_t dpids[4 * ELINE_PATH_MAX + 4];

    pthread_mutex_lock(&a->lock);
    size_t n = switches_of(r, r->path, r->n_path, dpids, 0);
    n = switches_of(r, r->backup, r->n_backup, dpids, n);
    uint32_t gid = r->gid, meter = r->meter;
    pthread_mutex_unlock(&a->lock);
    int rc = eline_flows_remove(a->host->fm, eline_cookie(evc_number(r)), dpids, n);
    if (rc < 0) {
        LOG_WARN("eline", "EVC %s (%s): its flows were not removed: %s", r->id, r->req.name,
                 strerror(-rc));
        return rc;
    }
    del_groups(a, r, gid);              /* after the flows that named them */
    del_meters(a, r, meter);
    pthread_mutex_lock(&a->lock);
    r->n_path = r->n_backup = 0;
    r->gid = 0;
    r->meter = 0;
    r->active = false;
    pthread_mutex_unlock(&a->lock);
    return 0;
}

/* A slot of a->leaving for r's old path and backup, the caller's copies,
 * which must outlive it (NULL when all are taken: never with the worker's
 * ELINE_MOVERS). */
static struct eline_leaving *leaving_take(struct eline_app *a, const struct eline_rec *r,
                                          const struct eline_link *path, size_t n,
                                          const struct eline_link *backup, size_t nb)
{
    struct eline_leaving *s = NULL;

    pthread_mutex_lock(&a->lock);
    for (size_t k = 0; k < ELINE_MOVERS && !s; k++)
        if (!a->leaving[k].r)
            s = &a->leaving[k];
    if (s)
        *s = (struct eline_leaving){r, path, backup, n, nb};
    pthread_mutex_unlock(&a->lock);
    return s;
}

int eline_move(struct eline_app *a, struct eline_rec *r)
{
    struct eline_link old_path[ELINE_PATH_MAX], old_backup[ELINE_PATH_MAX];
    json_t *old = NULL, *old_groups = NULL, *now = NULL, *now_groups = NULL;

    pthread_mutex_lock(&a->lock);
    bool active = r->active;
    size_t n_old = r->n_path, nb_old = r->n_backup;
    uint32_t old_gid = r->gid, old_meter = r->meter;
    bool ids_kept = false;
    memcpy(old_path, r->path, n_old * sizeof(old_path[0]));
    memcpy(old_backup, r->backup, nb_old * sizeof(old_backup[0]));
    pthread_mutex_unlock(&a->lock);
    if (!active || layout_now(r, &old, &old_groups) < 0) {
        /* Nothing laid, or its layout cannot be told: break, then make. */
        int rc = active ? eline_undeploy(a, r) : 0;
        return rc < 0 ? rc : eline_deploy(a, r);
    }
    json_decref(old_groups);
    struct eline_leaving *gone = leaving_take(a, r, old_path, n_old, old_backup, nb_old);
    int rc = plan(a, r);
    if (rc == 0 && (rc = eline_rec_save(a, r)) == 0)
        rc = lay(a, r, true);           /* same match, same priority: replaced in place */
    if (rc == 0 && (rc = layout_now(r, &now, &now_groups)) == 0) {
        /* What the old paths had and the new ones do not replace. */
        json_t *stale = eline_flows_minus(old, now);
        int gone = stale ? eline_flows_remove_exact(a->host->fm, stale) : -ENOMEM;
        if (gone < 0)
            LOG_WARN("eline", "EVC %s (%s): flows of its old path not removed (%s): the "
                     "consistency check leaves them as stored", r->id, r->req.name,
                     strerror(-gone));
        json_decref(stale);
        if (old_gid && old_gid != r->gid)
            del_groups(a, r, old_gid);  /* no push flow names it any more */
        if (old_meter && old_meter != r->meter)
            del_meters(a, r, old_meter);
    }
    json_decref(old);
    json_decref(now);
    json_decref(now_groups);
    if (rc < 0) {
        /* Neither layout whole: every flow and group of it goes, from all. */
        uint64_t dpids[8 * ELINE_PATH_MAX + 8];
        size_t n = switches_of(r, old_path, n_old, dpids, 0);
        n = switches_of(r, old_backup, nb_old, dpids, n);
        pthread_mutex_lock(&a->lock);
        n = switches_of(r, r->path, r->n_path, dpids, n);
        n = switches_of(r, r->backup, r->n_backup, dpids, n);
        uint32_t gid = r->gid, meter = r->meter;
        pthread_mutex_unlock(&a->lock);
        int gone = eline_flows_remove(a->host->fm, eline_cookie(evc_number(r)), dpids, n);
        if (gone == 0) {
            del_groups(a, r, old_gid);
            if (gid != old_gid)
                del_groups(a, r, gid);
            del_meters(a, r, old_meter);
            if (meter != old_meter)
                del_meters(a, r, meter);
        } else {
            /* Still named by its flows, and still its own (the record
             * keeps the ids: the next lay finds them its own, a delete
             * removes them). */
            ids_kept = true;
            LOG_ERR("eline", "EVC %s (%s): its flows could not be removed either (%s): its "
                    "groups and meters are kept for them", r->id, r->req.name,
                    strerror(-gone));
        }
    }
    pthread_mutex_lock(&a->lock);
    if (rc == 0) {
        eline_now_text(r->last_deployed_at);
    } else {
        r->active = false;
        r->n_path = r->n_backup = 0;
        if (!ids_kept)
            r->gid = r->meter = 0;
    }
    if (gone)
        gone->r = NULL;                 /* its old flows are off (or the check's now) */
    pthread_mutex_unlock(&a->lock);
    keep_state(a, r);
    return rc;
}
