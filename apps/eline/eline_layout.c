/* eline_layout: see eline_layout.h. The cases follow Kytos-ng mef_eline's
 * (models/evc.py: the push, pop, NNI and direct flows), reasoned over one
 * value type that says what Kytos' Python values say: None, an int (0 =
 * untagged), "4096/4096", one "value/mask" text, or a list of them. */
#include "eline_layout.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "dpid.h"
#include "json_u64.h"

/* A VLAN value as one flow sees it. */
enum val_kind { V_NONE, V_INT, V_ANY, V_MASK, V_LIST };
struct val {
    enum val_kind k;
    uint16_t i;                     /* V_INT */
    const char *s;                  /* V_MASK */
    const struct eline_vlan *list;  /* V_LIST */
};

static struct val val_of(const struct eline_vlan *v)
{
    switch (v->kind) {
    case ELINE_VLAN_VID:
        return (struct val){.k = V_INT, .i = v->vid};
    case ELINE_VLAN_ANY:
        return (struct val){.k = V_ANY};
    case ELINE_VLAN_MASKS:
        return (struct val){.k = V_LIST, .list = v};
    default:
        return (struct val){.k = V_NONE};
    }
}

/* Python's `not v`: None and 0 (a text or a list is never empty here). */
static bool falsy(struct val v)
{
    return v.k == V_NONE || (v.k == V_INT && v.i == 0);
}

/* Kytos' special cases {None, "4096/4096", 0}. */
static bool special(struct val v)
{
    return v.k == V_NONE || v.k == V_ANY || (v.k == V_INT && v.i == 0);
}

static bool ints_differ(struct val a, struct val b)
{
    return a.k == V_INT && b.k == V_INT && a.i != b.i;
}

static int priority_of(const struct eline_evc *evc, struct val v)
{
    if (evc->sb_priority)
        return evc->sb_priority;
    switch (v.k) {
    case V_NONE:
        return ELINE_PRIO_EPL;
    case V_ANY:
        return ELINE_PRIO_ANY;
    case V_INT:
        return v.i ? ELINE_PRIO_EVPL : ELINE_PRIO_UNTAGGED;
    default:
        return ELINE_PRIO_EVPL;
    }
}

/* A flow matching on a service tag (a VLAN always there). */
static const struct val SERVICE_TAG = {.k = V_INT, .i = 1};

static json_t *val_json(struct val v)
{
    if (v.k == V_INT)
        return json_integer(v.i);
    return json_string(v.k == V_ANY ? "4096/4096" : v.s);
}

uint64_t eline_cookie(uint64_t id)
{
    return ELINE_COOKIE_PREFIX << 56 | (id & 0x00ffffffffffffffull);
}

/* The flow every other starts as: in_port, cookie, [set_queue,] output. */
static json_t *flow_new(const struct eline_evc *evc, uint32_t in_port, uint32_t out_port,
                        struct val prio)
{
    json_t *actions = json_array();
    if (evc->queue_id >= 0)
        json_array_append_new(actions, json_pack("{s:s, s:i}", "action_type", "set_queue",
                                                 "queue_id", evc->queue_id));
    json_array_append_new(actions, json_pack("{s:s, s:I}", "action_type", "output", "port",
                                             (json_int_t)out_port));
    return json_pack("{s:{s:I}, s:o, s:o, s:s, s:i, s:i}", "match", "in_port",
                     (json_int_t)in_port, "cookie", json_u64_value(eline_cookie(evc->id)),
                     "actions", actions, "owner", "mef_eline", "table_id", 0, "priority",
                     priority_of(evc, prio));
}

/* action (stolen) first in flow's actions; -1 when it could not be made
 * or put there (out of memory): the flow is then not laid at all. */
static int prepend(json_t *flow, json_t *action)
{
    return action ? json_array_insert_new(json_object_get(flow, "actions"), 0, action) : -1;
}

/* f, or NULL (f released) when one of its parts could not be made. */
static json_t *whole(json_t *f, int bad)
{
    if (!bad)
        return f;
    json_decref(f);
    return NULL;
}

static json_t *act_set_vlan(unsigned vid)
{
    return json_pack("{s:s, s:i}", "action_type", "set_vlan", "vlan_id", (int)vid);
}

static json_t *act_push(const char *tag_type)
{
    return json_pack("{s:s, s:s}", "action_type", "push_vlan", "tag_type", tag_type);
}

static json_t *act_pop(void)
{
    return json_pack("{s:s}", "action_type", "pop_vlan");
}

static int match_vlan(json_t *flow, struct val v)
{
    json_t *x = val_json(v);
    return x ? json_object_set_new(json_object_get(flow, "match"), "dl_vlan", x) : -1;
}

/* A UNI's traffic onto the path: the S-VLAN s_vlan put on; c is the far
 * UNI's value. */
static json_t *push_flow(const struct eline_evc *evc, uint32_t in_port, uint32_t out_port,
                         struct val in, uint16_t s_vlan, struct val c)
{
    json_t *f = flow_new(evc, in_port, out_port, c.k == V_LIST ? c : in);
    int bad = 0;
    if (!f)
        return NULL;
    bad |= prepend(f, act_set_vlan(s_vlan));
    if (!ints_differ(in, c))
        bad |= prepend(f, act_push("s"));
    if (in.k != V_NONE)
        bad |= match_vlan(f, in);
    if (in.k != V_INT && c.k == V_INT && c.i != 0)
        bad |= prepend(f, act_set_vlan(c.i));
    if (in.k == V_ANY && c.k == V_INT && c.i == 0)
        bad |= prepend(f, act_pop());
    else if (falsy(in) && c.k != V_LIST && !special(c))
        bad |= prepend(f, act_push("c"));
    return whole(f, bad);
}

/* The path's traffic out of a UNI whose value is own; c the far UNI's. */
static json_t *pop_flow(const struct eline_evc *evc, uint32_t in_port, uint32_t out_port,
                        uint16_t s_vlan, struct val own, struct val c)
{
    json_t *f = flow_new(evc, in_port, out_port, SERVICE_TAG);
    if (!f)
        return NULL;
    int bad = match_vlan(f, (struct val){.k = V_INT, .i = s_vlan});
    if (own.k == V_INT && own.i == 0)
        bad |= prepend(f, act_pop());
    else if (ints_differ(own, c))
        bad |= prepend(f, act_set_vlan(own.i));
    else
        bad |= prepend(f, act_pop());
    return whole(f, bad);
}

static json_t *nni_flow(const struct eline_evc *evc, uint32_t in_port, uint32_t out_port,
                        uint16_t in_vlan, uint16_t out_vlan)
{
    json_t *f = flow_new(evc, in_port, out_port, SERVICE_TAG);
    if (!f)
        return NULL;
    int bad = match_vlan(f, (struct val){.k = V_INT, .i = in_vlan});
    bad |= prepend(f, act_set_vlan(out_vlan));
    return whole(f, bad);
}

/* ---- collecting by switch ------------------------------------------------------- */

/* out[dpid].flows gets f (stolen); -ENOMEM when f is NULL or no room. */
static int add_flow(json_t *out, uint64_t dpid, json_t *f)
{
    char id[24];
    if (!f)
        return -ENOMEM;
    dpid_format(dpid, id);
    json_t *sw = json_object_get(out, id);
    if (!sw) {
        sw = json_pack("{s:[]}", "flows");
        if (!sw || json_object_set_new(out, id, sw) < 0) {
            json_decref(f);
            return -ENOMEM;
        }
    }
    return json_array_append_new(json_object_get(sw, "flows"), f) == 0 ? 0 : -ENOMEM;
}

/* f, or one copy per value/mask of a list v, each matching its own. */
static int add_matching(json_t *out, uint64_t dpid, json_t *f, struct val v)
{
    int rc = 0;

    if (!f)
        return -ENOMEM;
    if (v.k != V_LIST)
        return add_flow(out, dpid, whole(f, v.k != V_NONE ? match_vlan(f, v) : 0));
    for (unsigned i = 0; i < v.list->n_masks && rc == 0; i++) {
        json_t *c = json_deep_copy(f);
        if (c)
            c = whole(c, match_vlan(c, (struct val){.k = V_MASK, .s = v.list->masks[i]}));
        rc = add_flow(out, dpid, c);
    }
    json_decref(f);
    return rc;
}

/* ---- the three layouts ----------------------------------------------------------- */

static int layout_direct(const struct eline_evc *evc, json_t *out)
{
    struct val va = val_of(&evc->vlan_a), vz = val_of(&evc->vlan_z);
    json_t *az = flow_new(evc, evc->uni_a.port, evc->uni_z.port, va);
    json_t *za = flow_new(evc, evc->uni_z.port, evc->uni_a.port, vz);

    if (!az || !za) {
        json_decref(az);
        json_decref(za);
        return -ENOMEM;
    }
    int bad = 0;
    if (vz.k != V_LIST && !special(vz)) {
        bad |= prepend(az, act_set_vlan(vz.i));
        if (falsy(va))
            bad |= prepend(az, act_push("c"));
        if (va.k == V_INT && va.i == 0)
            bad |= prepend(za, act_pop());
    } else if (va.k == V_INT && va.i == 0 && vz.k == V_ANY) {
        bad |= prepend(za, act_pop());
    }
    if (va.k != V_LIST && !special(va)) {
        bad |= prepend(za, act_set_vlan(va.i));
        if (falsy(vz))
            bad |= prepend(za, act_push("c"));
        if (vz.k == V_INT && vz.i == 0)
            bad |= prepend(az, act_pop());
    } else if (va.k == V_ANY && vz.k == V_INT && vz.i == 0) {
        bad |= prepend(az, act_pop());
    }
    if (bad) {
        json_decref(az);
        json_decref(za);
        return -ENOMEM;
    }
    int rc = add_matching(out, evc->uni_a.dpid, az, va);
    if (rc == 0)
        return add_matching(out, evc->uni_z.dpid, za, vz);
    json_decref(za);
    return rc;
}

/* The end of l on switch dpid (want_on) or off it; NULL when l has none so. */
static const struct eline_end *end_of(const struct eline_link *l, uint64_t dpid, bool want_on)
{
    if ((l->a.dpid == dpid) == want_on)
        return &l->a;
    if ((l->b.dpid == dpid) == want_on)
        return &l->b;
    return NULL;
}

static int layout_path(const struct eline_evc *evc, const struct eline_link *path, size_t n,
                       json_t *out)
{
    struct val va = val_of(&evc->vlan_a), vz = val_of(&evc->vlan_z);
    const struct eline_end *ea = end_of(&path[0], evc->uni_a.dpid, true);
    const struct eline_end *ez = end_of(&path[n - 1], evc->uni_z.dpid, true);
    uint64_t previous = evc->uni_a.dpid;
    int rc = 0;

    if (!ea || !ez)
        return -EINVAL;
    /* The switches inside the path first, as Kytos sends them. */
    for (size_t i = 0; i + 1 < n && rc == 0; i++) {
        const struct eline_end *in = end_of(&path[i], previous, false);
        const struct eline_end *o = in ? end_of(&path[i + 1], in->dpid, true) : NULL;
        if (!in || !o)
            return -EINVAL;
        rc = add_flow(out, in->dpid,
                      nni_flow(evc, in->port, o->port, path[i].s_vlan, path[i + 1].s_vlan));
        if (rc == 0)
            rc = add_flow(out, in->dpid,
                          nni_flow(evc, o->port, in->port, path[i + 1].s_vlan, path[i].s_vlan));
        previous = in->dpid;
    }
    /* The last link leaves the switch the path reached, for uni_z's. */
    const struct eline_end *last = end_of(&path[n - 1], previous, false);
    if (rc == 0 && (!last || last->dpid != evc->uni_z.dpid || last != ez))
        return -EINVAL;
    /* Each UNI: its push flow(s), then its pop flow. */
    const struct {
        const struct eline_end *uni, *edge;
        struct val own, far;
        uint16_t s_vlan;
    } side[2] = {{&evc->uni_a, ea, va, vz, path[0].s_vlan},
                 {&evc->uni_z, ez, vz, va, path[n - 1].s_vlan}};
    for (int s = 0; s < 2 && rc == 0; s++) {
        if (side[s].own.k == V_LIST) {
            for (unsigned i = 0; i < side[s].own.list->n_masks && rc == 0; i++) {
                struct val m = {.k = V_MASK, .s = side[s].own.list->masks[i]};
                rc = add_flow(out, side[s].uni->dpid,
                              push_flow(evc, side[s].uni->port, side[s].edge->port, m,
                                        side[s].s_vlan, side[s].far));
            }
        } else {
            rc = add_flow(out, side[s].uni->dpid,
                          push_flow(evc, side[s].uni->port, side[s].edge->port, side[s].own,
                                    side[s].s_vlan, side[s].far));
        }
        if (rc == 0)
            rc = add_flow(out, side[s].uni->dpid,
                          pop_flow(evc, side[s].edge->port, side[s].uni->port, side[s].s_vlan,
                                   side[s].own, side[s].far));
    }
    return rc;
}

int eline_layout(const struct eline_evc *evc, const struct eline_link *path, size_t n,
                 json_t **out)
{
    int rc;

    *out = NULL;
    if (n == 0 && evc->uni_a.dpid != evc->uni_z.dpid)
        return -EINVAL;
    json_t *o = json_object();
    if (!o)
        return -ENOMEM;
    rc = n == 0 ? layout_direct(evc, o) : layout_path(evc, path, n, o);
    if (rc < 0) {
        json_decref(o);
        return rc;
    }
    *out = o;
    return 0;
}

int eline_vlan_from_ranges(const uint16_t (*ranges)[2], size_t n, struct eline_vlan *out)
{
    memset(out, 0, sizeof(*out));
    out->kind = ELINE_VLAN_MASKS;
    for (size_t r = 0; r < n; r++) {
        unsigned lo = ranges[r][0], hi = ranges[r][1];
        if (lo < 1 || hi > 4095 || lo > hi)
            return -EINVAL;
        /* The largest aligned block that starts at lo and stays within hi. */
        while (lo <= hi) {
            unsigned size = 1;
            while (lo % (size * 2) == 0 && lo + size * 2 - 1 <= hi)
                size *= 2;
            if (out->n_masks == ELINE_MASKS_MAX)
                return -E2BIG;
            snprintf(out->masks[out->n_masks++], ELINE_MASK_TEXT, "%u/%u", lo,
                     4095u & ~(size - 1));
            lo += size;
        }
    }
    return 0;
}

/* ---- protection: a fast-failover group at each UNI --------------------------------- */

/* Where a push flow's path part starts: its last set_vlan (the S-VLAN, or
 * the swapped VID), then [set_queue,] output. -1 when it has none. */
static long path_part(json_t *actions)
{
    long at = -1;
    size_t i;
    json_t *a;
    json_array_foreach(actions, i, a) {
        const char *t = json_string_value(json_object_get(a, "action_type"));
        if (t && strcmp(t, "set_vlan") == 0)
            at = (long)i;
    }
    return at;
}

static json_t *slice(json_t *arr, size_t from, size_t to)
{
    json_t *s = json_array();
    for (size_t i = from; s && i < to; i++)
        json_array_append(s, json_array_get(arr, i));
    return s;
}

static json_t *out_port(json_t *actions)
{
    return json_object_get(json_array_get(actions, json_array_size(actions) - 1), "port");
}

/* The flow of list with match m; NULL. */
static json_t *same_match(json_t *list, json_t *m)
{
    size_t i;
    json_t *f;
    json_array_foreach(list, i, f)
        if (json_equal(json_object_get(f, "match"), m))
            return f;
    return NULL;
}

/* One UNI's switch: its push flows in out (primary's) turned to the group,
 * backup's other flows there added, its group into groups. */
static int protect_uni(json_t *out, json_t *backup, uint64_t dpid, uint32_t uni_port,
                       uint32_t gid, json_t *groups)
{
    char key[24];
    size_t i;
    json_t *f, *g = NULL;

    dpid_format(dpid, key);
    json_t *mine = json_object_get(json_object_get(out, key), "flows");
    json_t *theirs = json_object_get(json_object_get(backup, key), "flows");
    if (!mine || !theirs)
        return -EINVAL;
    json_t *added = json_array();
    if (!added)
        return -ENOMEM;
    json_array_foreach(theirs, i, f) {
        json_int_t in = json_integer_value(json_object_get(json_object_get(f, "match"), "in_port"));
        if (in != (json_int_t)uni_port)
            json_array_append(added, f);            /* its pop flow */
    }
    int rc = 0;
    json_array_foreach(mine, i, f) {
        json_t *m = json_object_get(f, "match");
        if (json_integer_value(json_object_get(m, "in_port")) != (json_int_t)uni_port)
            continue;
        json_t *b = same_match(theirs, m);
        json_t *pa = json_object_get(f, "actions"), *ba = b ? json_object_get(b, "actions") : NULL;
        long ip = path_part(pa), ib = ba ? path_part(ba) : -1;
        json_t *pre = ip >= 0 ? slice(pa, 0, (size_t)ip) : NULL;
        json_t *bpre = ib >= 0 ? slice(ba, 0, (size_t)ib) : NULL;
        bool ok = pre && bpre && json_equal(pre, bpre);
        json_decref(bpre);
        if (!ok) {
            json_decref(pre);
            rc = -EINVAL;
            break;
        }
        if (!g)
            g = json_pack("{s:I, s:s, s:[{s:O, s:o}, {s:O, s:o}]}", "group_id", (json_int_t)gid,
                          "type", "fast_failover", "buckets", "watch_port", out_port(pa),
                          "actions", slice(pa, (size_t)ip, json_array_size(pa)), "watch_port",
                          out_port(ba), "actions", slice(ba, (size_t)ib, json_array_size(ba)));
        json_array_append_new(pre, json_pack("{s:s, s:I}", "action_type", "group", "group_id",
                                             (json_int_t)gid));
        json_object_set_new(f, "actions", pre);
    }
    if (rc == 0 && !g)
        rc = -EINVAL;                               /* no push flow: not a UNI's switch */
    if (rc == 0 && json_array_extend(mine, added) < 0)
        rc = -ENOMEM;
    if (rc == 0)
        rc = json_object_set_new(groups, key, g) < 0 ? -ENOMEM : 0;     /* g taken either way */
    else
        json_decref(g);
    json_decref(added);
    return rc;
}

int eline_layout_protect(const struct eline_evc *evc, uint32_t gid, json_t *primary,
                         json_t *backup, json_t **out, json_t **groups)
{
    char ka[24], kz[24];
    const char *key;
    json_t *sw;

    *out = json_deep_copy(primary);
    *groups = json_object();
    int rc = *out && *groups ? 0 : -ENOMEM;
    if (rc == 0)
        rc = protect_uni(*out, backup, evc->uni_a.dpid, evc->uni_a.port, gid, *groups);
    if (rc == 0)
        rc = protect_uni(*out, backup, evc->uni_z.dpid, evc->uni_z.port, gid, *groups);
    dpid_format(evc->uni_a.dpid, ka);
    dpid_format(evc->uni_z.dpid, kz);
    /* The switches inside the backup path: their flows as they are. */
    json_object_foreach(backup, key, sw) {
        if (rc < 0)
            break;
        if (strcmp(key, ka) == 0 || strcmp(key, kz) == 0)
            continue;
        json_t *have = json_object_get(*out, key);
        if (have)
            rc = json_array_extend(json_object_get(have, "flows"), json_object_get(sw, "flows"))
                     ? -ENOMEM : 0;
        else
            rc = json_object_set_new(*out, key, json_deep_copy(sw)) ? -ENOMEM : 0;
    }
    if (rc < 0) {
        json_decref(*out);
        json_decref(*groups);
        *out = *groups = NULL;
    }
    return rc;
}

/* ---- metering ------------------------------------------------------------------------ */

/* f's actions behind meter id: 0; -1 out of memory. */
static int metered(json_t *f, uint32_t id)
{
    json_t *actions = json_object_get(f, "actions");
    json_t *inst = json_pack("[{s:s, s:I}, {s:s, s:O}]", "instruction_type", "meter",
                             "meter_id", (json_int_t)id, "instruction_type", "apply_actions",
                             "actions", actions);
    if (!inst || json_object_set_new(f, "instructions", inst) < 0)
        return -1;
    return json_object_del(f, "actions");
}

/* Whether a flow's dl_vlan match (NULL: none) is one of v's. */
static bool vlan_is(json_t *dl_vlan, const struct eline_vlan *v)
{
    struct val x = val_of(v);
    bool is = false;

    if (x.k == V_NONE)
        return !dl_vlan;
    for (unsigned i = 0; dl_vlan && i < (x.k == V_LIST ? v->n_masks : 1u) && !is; i++) {
        json_t *want = val_json(x.k == V_LIST ? (struct val){.k = V_MASK, .s = v->masks[i]} : x);
        is = want && json_equal(want, dl_vlan);
        json_decref(want);
    }
    return is;
}

/* The flows entering at uni behind meter id; only those matching vlan
 * when it is given (two UNIs on one port: each its own traffic). */
static int meter_uni(json_t *flows, const struct eline_end *uni, const struct eline_vlan *vlan,
                     uint32_t id)
{
    char key[24];
    size_t i;
    json_t *f;

    if (!id)
        return 0;
    dpid_format(uni->dpid, key);
    json_t *list = json_object_get(json_object_get(flows, key), "flows");
    json_array_foreach(list, i, f) {
        json_t *match = json_object_get(f, "match");
        if (json_integer_value(json_object_get(match, "in_port")) != (json_int_t)uni->port ||
            !json_object_get(f, "actions") ||
            (vlan && !vlan_is(json_object_get(match, "dl_vlan"), vlan)))
            continue;
        if (metered(f, id) < 0)
            return -ENOMEM;
    }
    return 0;
}

int eline_layout_meter(const struct eline_evc *evc, json_t *flows, uint32_t meter_a,
                       uint32_t meter_z)
{
    bool one_port = evc->uni_a.dpid == evc->uni_z.dpid && evc->uni_a.port == evc->uni_z.port;
    int rc = meter_uni(flows, &evc->uni_a, one_port ? &evc->vlan_a : NULL, meter_a);
    return rc < 0 ? rc : meter_uni(flows, &evc->uni_z, one_port ? &evc->vlan_z : NULL, meter_z);
}

json_t *eline_layout_meter_body(uint32_t meter_id, uint64_t rate_kbps)
{
    /* A burst of a tenth of a second's traffic, said outright: a switch
     * that picks its own reads back as changed at every check. */
    uint64_t burst = rate_kbps / 10 ? rate_kbps / 10 : 1;
    return json_pack("{s:I, s:[s, s, s], s:[{s:s, s:I, s:I}]}", "meter_id",
                     (json_int_t)meter_id, "flags", "kbps", "burst", "stats", "bands", "type",
                     "drop", "rate", (json_int_t)rate_kbps, "burst_size", (json_int_t)burst);
}
