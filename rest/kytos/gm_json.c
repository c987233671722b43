/* gm_json: see gm_json.h. */
#include "gm_json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow_json.h"
#include "fm_flow.h"
#include "json_tape.h"
#include "ofp_group.h"
#include "ofp_meter.h"

#define GM_PATH_MAX 64

static int gm_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int gm_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

/* Keys of obj all in the NULL-terminated list; else an error naming the first other. */
static int gm_only_keys(const struct jt_node *obj, const char *path, const char *const *ok,
                        char *err, size_t errlen)
{
    for (const struct jt_node *m = jt_object_first(obj); m; m = jt_object_next(obj, m)) {
        bool found = false;
        for (const char *const *k = ok; *k && !found; k++)
            found = jt_same_key(*k, jt_string(m));
        if (!found)
            return gm_fail(err, errlen, "unknown field '%s%s%s'", path, *path ? "." : "",
                           jt_string(m));
    }
    return 0;
}

/* v as an integer in lo..hi. */
static int gm_uint(const struct jt_node *v, const char *path, uint64_t lo, uint64_t hi,
                   uint64_t *out, char *err, size_t errlen)
{
    if (!jt_is_int(v) || (v->flags & (JT_NEG | JT_BIG)) || v->v.u < lo || v->v.u > hi)
        return gm_fail(err, errlen, "invalid value for '%s': expected integer %" PRIu64
                       "..%" PRIu64, path, lo, hi);
    *out = v->v.u;
    return 0;
}

/* A port or group to watch: its number in 0..hi, or "any" (any_value). */
static int gm_watch(const struct jt_node *v, const char *path, uint64_t hi, uint32_t any_value,
                    uint32_t *out, char *err, size_t errlen)
{
    uint64_t x = 0;
    if (jt_is_string(v) && strcmp(jt_string(v), "any") == 0) {
        *out = any_value;
        return 0;
    }
    if (!jt_is_int(v))
        return gm_fail(err, errlen, "invalid value for '%s': expected integer 0..%" PRIu64
                       " or \"any\"", path, hi);
    int rc = gm_uint(v, path, 0, hi, &x, err, errlen);
    *out = (uint32_t)x;
    return rc;
}

static int gm_root(struct jt_tape *t, const char *text, size_t len, const char *what,
                   const struct jt_node **root, char *err, size_t errlen)
{
    if (jt_parse(t, text, len, 0) < 0)
        return gm_fail(err, errlen, "not JSON: %s", t->err);
    *root = jt_root(t);
    if (!jt_is_object(*root))
        return gm_fail(err, errlen, "the body must be one %s object", what);
    return 0;
}

/* ---- groups ------------------------------------------------------------------------ */

static const struct {
    const char *name;
    uint8_t type;
} group_types[] = {
    {"all", OFPGT_ALL}, {"select", OFPGT_SELECT}, {"indirect", OFPGT_INDIRECT},
    {"fast_failover", OFPGT_FF},
};

/* One bucket; its actions go in acts (FM_FLOW_ACTIONS_MAX). */
static int gm_bucket(const struct jt_node *jb, size_t i, uint8_t type, struct ofp_bucket *b,
                     struct ofp_action *acts, char *err, size_t errlen)
{
    static const char *const keys[] = {"weight", "watch_port", "watch_group", "actions", NULL};
    char path[GM_PATH_MAX], sub[GM_PATH_MAX + 16];
    const struct jt_node *v;
    uint64_t x = 0;
    int rc;

    snprintf(path, sizeof(path), "buckets[%zu]", i);
    if (!jt_is_object(jb))
        return gm_fail(err, errlen, "wrong type for '%s': expected object", path);
    if ((rc = gm_only_keys(jb, path, keys, err, errlen)))
        return rc;
    *b = (struct ofp_bucket){.weight = type == OFPGT_SELECT, .watch_port = OFPP_ANY,
                             .watch_group = OFPG_ANY, .actions = {.arr = acts}};
    if ((v = jt_object_get(jb, "weight"))) {
        snprintf(sub, sizeof(sub), "%s.weight", path);
        if (type != OFPGT_SELECT)
            return gm_fail(err, errlen, "%s: only a select group's buckets have a weight", sub);
        if ((rc = gm_uint(v, sub, 0, UINT16_MAX, &x, err, errlen)))
            return rc;
        b->weight = (uint16_t)x;
    }
    if ((v = jt_object_get(jb, "watch_port"))) {
        snprintf(sub, sizeof(sub), "%s.watch_port", path);
        if ((rc = gm_watch(v, sub, OFPP_MAX, OFPP_ANY, &b->watch_port, err, errlen)))
            return rc;
    }
    if ((v = jt_object_get(jb, "watch_group"))) {
        snprintf(sub, sizeof(sub), "%s.watch_group", path);
        if ((rc = gm_watch(v, sub, OFPG_MAX, OFPG_ANY, &b->watch_group, err, errlen)))
            return rc;
    }
    if (type == OFPGT_FF && b->watch_port == OFPP_ANY && b->watch_group == OFPG_ANY)
        return gm_fail(err, errlen, "%s: a fast_failover bucket watches a port or a group "
                       "(watch_port, watch_group)", path);
    if ((v = jt_object_get(jb, "actions"))) {
        snprintf(sub, sizeof(sub), "%s.actions", path);
        if ((rc = flow_json_parse_actions(v, sub, acts, &b->actions.n, err, errlen)))
            return rc;
    }
    return 0;
}

/* Room for a group's buckets and their actions (~50 KiB): the heap's, not
 * a REST thread's stack. */
struct gm_group_room {
    struct ofp_bucket buckets[GM_JSON_BUCKETS_MAX];
    struct ofp_action acts[GM_JSON_BUCKETS_MAX][FM_FLOW_ACTIONS_MAX];
};

static int gm_group_parse(const struct jt_node *root, struct ofp_group_mod *gm,
                          struct gm_group_room *room, char *err, size_t errlen)
{
    static const char *const keys[] = {"group_id", "type", "buckets", NULL};
    const struct jt_node *v, *e;
    uint64_t x = 0;
    size_t i;
    int rc;

    if ((rc = gm_only_keys(root, "", keys, err, errlen)))
        return rc;
    *gm = (struct ofp_group_mod){.command = OFPGC_ADD, .buckets = {.arr = room->buckets}};
    if (!(v = jt_object_get(root, "group_id")))
        return gm_fail(err, errlen, "missing field 'group_id'");
    if ((rc = gm_uint(v, "group_id", 0, OFPG_MAX, &x, err, errlen)))
        return rc;
    gm->group_id = (uint32_t)x;
    if (!(v = jt_object_get(root, "type")))
        return gm_fail(err, errlen, "missing field 'type'");
    bool known = false;
    for (i = 0; jt_is_string(v) && i < sizeof(group_types) / sizeof(group_types[0]); i++)
        if (strcmp(jt_string(v), group_types[i].name) == 0) {
            gm->type = group_types[i].type;
            known = true;
        }
    if (!known)
        return gm_fail(err, errlen, "invalid value for 'type': expected one of all, select, "
                       "indirect, fast_failover");
    if ((v = jt_object_get(root, "buckets"))) {
        if (!jt_is_array(v))
            return gm_fail(err, errlen, "wrong type for 'buckets': expected array");
        if (v->size > GM_JSON_BUCKETS_MAX)
            return gm_fail(err, errlen, "buckets: at most %d", GM_JSON_BUCKETS_MAX);
        jt_array_foreach(v, i, e) {
            if ((rc = gm_bucket(e, i, gm->type, &room->buckets[i], room->acts[i], err, errlen)))
                return rc;
        }
        gm->buckets.n = (uint16_t)v->size;
    }
    if (gm->type == OFPGT_INDIRECT && gm->buckets.n != 1)
        return gm_fail(err, errlen, "buckets: an indirect group has exactly one bucket");
    return 0;
}

int gm_json_group(const char *text, size_t len, uint8_t *wire, size_t *wire_len,
                  uint32_t *group_id, char *err, size_t errlen)
{
    struct jt_tape t = {0};
    const struct jt_node *root = NULL;
    struct ofp_group_mod gm;
    struct gm_group_room *room = malloc(sizeof(*room));
    int rc = room ? gm_root(&t, text, len, "group", &root, err, errlen) : -ENOMEM;

    if (rc == 0)
        rc = gm_group_parse(root, &gm, room, err, errlen);
    if (rc == 0) {
        struct ofp_buf b;
        ofp_buf_init(&b, wire, GM_JSON_WIRE_MAX);
        if (ofp_group_mod_encode(&b, 0, &gm) < 0)
            rc = gm_fail(err, errlen, "the group cannot be encoded as a GROUP_MOD");
        *wire_len = b.len;
        *group_id = gm.group_id;
    }
    free(room);
    jt_free(&t);
    return rc;
}

/* ---- meters ------------------------------------------------------------------------ */

static int gm_band(const struct jt_node *jb, size_t i, struct ofp_meter_band *b, char *err,
                   size_t errlen)
{
    static const char *const keys[] = {"type", "rate", "burst_size", "prec_level", NULL};
    char path[GM_PATH_MAX], sub[GM_PATH_MAX + 16];
    const struct jt_node *v;
    uint64_t x = 0;
    int rc;

    snprintf(path, sizeof(path), "bands[%zu]", i);
    if (!jt_is_object(jb))
        return gm_fail(err, errlen, "wrong type for '%s': expected object", path);
    if ((rc = gm_only_keys(jb, path, keys, err, errlen)))
        return rc;
    *b = (struct ofp_meter_band){0};
    v = jt_object_get(jb, "type");
    if (v && jt_is_string(v) && strcmp(jt_string(v), "drop") == 0)
        b->type = OFPMBT_DROP;
    else if (v && jt_is_string(v) && strcmp(jt_string(v), "dscp_remark") == 0)
        b->type = OFPMBT_DSCP_REMARK;
    else
        return gm_fail(err, errlen, "%s.type: %s", path,
                       v ? "expected \"drop\" or \"dscp_remark\"" : "missing");
    snprintf(sub, sizeof(sub), "%s.rate", path);
    if (!(v = jt_object_get(jb, "rate")))
        return gm_fail(err, errlen, "%s: missing", sub);
    if ((rc = gm_uint(v, sub, 1, UINT32_MAX, &x, err, errlen)))
        return rc;
    b->rate = (uint32_t)x;
    if ((v = jt_object_get(jb, "burst_size"))) {
        snprintf(sub, sizeof(sub), "%s.burst_size", path);
        if ((rc = gm_uint(v, sub, 0, UINT32_MAX, &x, err, errlen)))
            return rc;
        b->burst_size = (uint32_t)x;
    }
    if (b->type == OFPMBT_DSCP_REMARK)
        b->prec_level = 1;
    if ((v = jt_object_get(jb, "prec_level"))) {
        snprintf(sub, sizeof(sub), "%s.prec_level", path);
        if (b->type != OFPMBT_DSCP_REMARK)
            return gm_fail(err, errlen, "%s: only a dscp_remark band has one", sub);
        if ((rc = gm_uint(v, sub, 0, UINT8_MAX, &x, err, errlen)))
            return rc;
        b->prec_level = (uint8_t)x;
    }
    return 0;
}

static int gm_meter_flags(const struct jt_node *v, uint16_t *flags, char *err, size_t errlen)
{
    static const struct {
        const char *name;
        uint16_t bit;
    } names[] = {{"kbps", OFPMF_KBPS}, {"pktps", OFPMF_PKTPS}, {"burst", OFPMF_BURST},
                 {"stats", OFPMF_STATS}};
    const struct jt_node *e;
    size_t i;

    if (!jt_is_array(v))
        return gm_fail(err, errlen, "wrong type for 'flags': expected array of strings");
    *flags = 0;
    jt_array_foreach(v, i, e) {
        uint16_t bit = 0;
        for (size_t k = 0; jt_is_string(e) && k < sizeof(names) / sizeof(names[0]); k++)
            if (strcmp(jt_string(e), names[k].name) == 0)
                bit = names[k].bit;
        if (!bit)
            return gm_fail(err, errlen, "invalid value for 'flags[%zu]': expected one of kbps, "
                           "pktps, burst, stats", i);
        *flags |= bit;
    }
    if ((*flags & OFPMF_KBPS) && (*flags & OFPMF_PKTPS))
        return gm_fail(err, errlen, "flags: kbps or pktps, not both");
    if (!(*flags & (OFPMF_KBPS | OFPMF_PKTPS)))
        *flags |= OFPMF_KBPS;
    return 0;
}

int gm_json_meter(const char *text, size_t len, uint8_t *wire, size_t *wire_len,
                  uint32_t *meter_id, char *err, size_t errlen)
{
    static const char *const keys[] = {"meter_id", "flags", "bands", NULL};
    struct jt_tape t = {0};
    const struct jt_node *root = NULL, *v = NULL, *e;
    struct ofp_meter_band bands[GM_JSON_BANDS_MAX];
    struct ofp_meter_mod mm = {.command = OFPMC_ADD, .flags = OFPMF_KBPS,
                               .bands = {.arr = bands}};
    uint64_t x = 0;
    size_t i;
    int rc = gm_root(&t, text, len, "meter", &root, err, errlen);

    if (rc == 0)
        rc = gm_only_keys(root, "", keys, err, errlen);
    if (rc == 0 && !(v = jt_object_get(root, "meter_id")))
        rc = gm_fail(err, errlen, "missing field 'meter_id'");
    if (rc == 0 && (rc = gm_uint(v, "meter_id", 1, OFPM_MAX, &x, err, errlen)) == 0)
        mm.meter_id = (uint32_t)x;
    if (rc == 0 && (v = jt_object_get(root, "flags")))
        rc = gm_meter_flags(v, &mm.flags, err, errlen);
    if (rc == 0) {
        v = jt_object_get(root, "bands");
        if (!v || !jt_is_array(v) || v->size < 1 || v->size > GM_JSON_BANDS_MAX)
            rc = gm_fail(err, errlen, "bands: %s", v ? "expected an array of 1..16 bands"
                                                     : "missing");
    }
    if (rc == 0) {
        jt_array_foreach(v, i, e) {
            if ((rc = gm_band(e, i, &bands[i], err, errlen)))
                break;
        }
        mm.bands.n = (uint16_t)v->size;
    }
    if (rc == 0) {
        struct ofp_buf b;
        ofp_buf_init(&b, wire, GM_JSON_WIRE_MAX);
        if (ofp_meter_mod_encode(&b, 0, &mm) < 0)
            rc = gm_fail(err, errlen, "the meter cannot be encoded as a METER_MOD");
        *wire_len = b.len;
        *meter_id = mm.meter_id;
    }
    jt_free(&t);
    return rc;
}
