/* eline_tags: the circuits' tags and the topology's VLAN pools, as
 * Kytos-ng's mef_eline takes them from its interfaces: a UNI's tag must be
 * in its interface's tag_ranges ("untagged" and "any" in its special
 * tags), an S-VLAN in the pools of both ends of its link; what the EVCs
 * took is out of the interfaces' available_tags (topology v3), and a
 * tag_ranges that would leave one out is refused there. The EVCs' records
 * are the truth of what is taken: nothing is kept twice. See eline_app.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "eline_app.h"
#include "topo_rest.h"
#include "topo_tags.h"

static bool in_set(const uint64_t *set, unsigned tag)
{
    return tag < 64u * TOPO_TAGS_WORDS && (set[tag / 64] >> (tag % 64) & 1);
}

/* The first tag of u outside the pool, as text in bad; true when none. */
static bool uni_fits(const struct eline_uni_req *u, const uint64_t *set, unsigned special,
                     char *bad, size_t len)
{
    const struct eline_vlan *v = &u->vlan;

    if (!u->has_tag)
        return true;                    /* an EPL takes the whole port, no tag */
    if (v->kind == ELINE_VLAN_ANY) {
        snprintf(bad, len, "any");
        return special & TOPO_SPECIAL_ANY;
    }
    if (v->kind == ELINE_VLAN_MASKS) {
        for (unsigned i = 0; i < u->n_ranges; i++)
            for (unsigned t = u->ranges[i][0]; t <= u->ranges[i][1]; t++)
                if (!in_set(set, t)) {
                    snprintf(bad, len, "%u", t);
                    return false;
                }
        return true;
    }
    if (v->vid == 0) {
        snprintf(bad, len, "untagged");
        return special & TOPO_SPECIAL_UNTAGGED;
    }
    snprintf(bad, len, "%u", v->vid);
    return in_set(set, v->vid);
}

unsigned eline_uni_pool(struct eline_app *a, const struct eline_rec *r, char *why, size_t len)
{
    struct topo_rest *t = eline_topology(a);
    const struct eline_uni_req *u[2] = {&r->req.uni_a, &r->req.uni_z};
    uint64_t set[TOPO_TAGS_WORDS];
    unsigned special;
    char bad[24];

    for (int k = 0; t && k < 2; k++) {
        if (!u[k]->has_tag)
            continue;
        if (topo_rest_tags_allowed(t, u[k]->at.dpid, u[k]->at.port, set, &special) < 0) {
            snprintf(why, len, "the tag pool of %s could not be read", u[k]->interface_id);
            return 503;
        }
        if (!uni_fits(u[k], set, special, bad, sizeof(bad))) {
            snprintf(why, len, "Tag %s is not available in %s: outside its tag_ranges.", bad,
                     u[k]->interface_id);
            return 400;
        }
    }
    return 0;
}

int eline_link_pool(struct eline_app *a, const struct eline_link *l, uint64_t *set)
{
    struct topo_rest *t = eline_topology(a);
    uint64_t other[TOPO_TAGS_WORDS];
    unsigned special;

    if (!t) {
        memset(set, 0, TOPO_TAGS_WORDS * sizeof(set[0]));
        topo_tags_mark(set, 1, 4094);
        return 0;
    }
    if (topo_rest_tags_allowed(t, l->a.dpid, l->a.port, set, &special) < 0 ||
        topo_rest_tags_allowed(t, l->b.dpid, l->b.port, other, &special) < 0)
        return -ENOMEM;
    for (unsigned w = 0; w < TOPO_TAGS_WORDS; w++)
        set[w] &= other[w];
    return 0;
}

/* ---- what a UNI or a path takes, as uses (topo_rest.h's visit) --------------- */

static bool on(const struct topo_end *only, uint64_t dpid, uint32_t port)
{
    return !only || (only->dpid == dpid && only->port == port);
}

/* The S-VLAN of each link, at both its ends (those on *only). */
static void links_each(const struct eline_link *l, size_t n, const struct topo_end *only,
                       topo_tag_visit_fn visit, void *v)
{
    for (size_t i = 0; i < n; i++) {
        if (on(only, l[i].a.dpid, l[i].a.port))
            visit(v, l[i].a.dpid, l[i].a.port, l[i].s_vlan, l[i].s_vlan, 0);
        if (on(only, l[i].b.dpid, l[i].b.port) &&
            (l[i].b.dpid != l[i].a.dpid || l[i].b.port != l[i].a.port))
            visit(v, l[i].b.dpid, l[i].b.port, l[i].s_vlan, l[i].s_vlan, 0);
    }
}

/* A UNI's tag at its interface (when on *only): its VID, its ranges,
 * "untagged" (a VID of 0) or "any"; none without a tag (an EPL). */
static void uni_each(const struct eline_uni_req *u, const struct topo_end *only,
                     topo_tag_visit_fn visit, void *v)
{
    uint64_t d = u->at.dpid;
    uint32_t p = u->at.port;

    if (!u->has_tag || !on(only, d, p))
        return;
    if (u->vlan.kind == ELINE_VLAN_ANY) {
        visit(v, d, p, 0, 0, TOPO_SPECIAL_ANY);
    } else if (u->vlan.kind == ELINE_VLAN_MASKS) {
        for (unsigned i = 0; i < u->n_ranges; i++)
            visit(v, d, p, u->ranges[i][0], u->ranges[i][1], 0);
    } else if (u->vlan.kind == ELINE_VLAN_VID) {
        if (u->vlan.vid)
            visit(v, d, p, u->vlan.vid, u->vlan.vid, 0);
        else
            visit(v, d, p, 0, 0, TOPO_SPECIAL_UNTAGGED);
    }
}

void eline_links_tags_on(const struct eline_link *l, size_t n, uint64_t dpid, uint32_t port,
                         uint64_t *used)
{
    struct topo_end only = {dpid, port};
    struct topo_tags_used b = {used, NULL};
    links_each(l, n, &only, topo_tags_into, &b);
}

void eline_uni_tags_on(const struct eline_uni_req *u, uint64_t dpid, uint32_t port,
                       uint64_t *used, unsigned *special)
{
    struct topo_end only = {dpid, port};
    struct topo_tags_used b = {used, special};
    uni_each(u, &only, topo_tags_into, &b);
}

/* topo_rest's tags_used: every live EVC's UNI tags (special ones too)
 * and S-VLANs, on one interface or on all of them in one walk. */
static void tags_used(void *arg, const struct topo_end *only, topo_tag_visit_fn visit, void *v)
{
    struct eline_app *a = arg;

    pthread_mutex_lock(&a->lock);
    for (size_t i = 0; i < a->n_evcs; i++) {
        const struct eline_rec *r = a->evcs[i];
        if (r->archived)
            continue;
        uni_each(&r->req.uni_a, only, visit, v);
        uni_each(&r->req.uni_z, only, visit, v);
        links_each(r->path, r->n_path, only, visit, v);
        links_each(r->backup, r->n_backup, only, visit, v);
    }
    pthread_mutex_unlock(&a->lock);
}

void eline_write_lock(struct eline_app *a)
{
    pthread_mutex_lock(&a->write_lock);
    struct topo_rest *t = a->pools;
    if (t)
        topo_rest_pools_hold(t);
}

void eline_write_unlock(struct eline_app *a)
{
    struct topo_rest *t = a->pools;
    if (t)
        topo_rest_pools_release(t);
    pthread_mutex_unlock(&a->write_lock);
}

void eline_tags_register(struct eline_app *a)
{
    struct topo_rest *t = eline_topology(a);
    if (t)
        topo_rest_tags_user(t, tags_used, a);
    a->pools = t;
}
