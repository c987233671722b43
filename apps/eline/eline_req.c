/* eline_req: see eline_req.h. */
#include "eline_req.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpid.h"
#include "eline_sched.h"

#define INVALID "The request body contains invalid API data. "

static int req_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int req_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

/* Kytos' Endpoint id pattern: ^([0-9A-Fa-f]{2}[:-]){8}(\d{1,5})$, 25..30 long. */
static bool iface_id_ok(const char *s)
{
    size_t n = strlen(s);
    if (n < 25 || n > 30)
        return false;
    for (int i = 0; i < 8; i++, s += 3)
        if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]) ||
            (s[2] != ':' && s[2] != '-'))
            return false;
    size_t d = strlen(s);
    if (d < 1 || d > 5)
        return false;
    for (size_t i = 0; i < d; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* "dpid:port" into at: the dpid's 8 pairs and the port number. */
static int iface_split(const char *id, struct eline_end *at)
{
    char dp[24];
    memcpy(dp, id, 23);
    dp[23] = '\0';
    for (int i = 2; i < 23; i += 3)
        dp[i] = ':';
    unsigned long port = strtoul(id + 24, NULL, 10);
    if (dpid_parse(dp, &at->dpid) < 0 || port == 0 || port > 0xffffff00ul)
        return -EINVAL;
    at->port = (uint32_t)port;
    return 0;
}

/* A range value: [[first, last] | [vid] | vid, ...], sorted, each within
 * 1..4095 and after the one before. */
static int tag_ranges(json_t *v, const char *path, struct eline_uni_req *u, char *err,
                      size_t errlen)
{
    size_t i;
    json_t *e;

    if (json_array_size(v) == 0)
        return req_fail(err, errlen, INVALID "%s.tag.value: [] is too short", path);
    if (json_array_size(v) > ELINE_RANGES_MAX)
        return req_fail(err, errlen, "%s.tag.value: at most %d ranges", path, ELINE_RANGES_MAX);
    u->n_ranges = 0;
    json_array_foreach(v, i, e) {
        json_int_t lo, hi;
        if (json_is_integer(e)) {
            lo = hi = json_integer_value(e);
        } else if (json_is_array(e) && json_array_size(e) >= 1 && json_array_size(e) <= 2 &&
                   json_is_integer(json_array_get(e, 0)) &&
                   json_is_integer(json_array_get(e, json_array_size(e) - 1))) {
            lo = json_integer_value(json_array_get(e, 0));
            hi = json_integer_value(json_array_get(e, json_array_size(e) - 1));
        } else {
            return req_fail(err, errlen, INVALID "%s.tag.value[%zu]: not an integer or a list "
                            "of one or two integers", path, i);
        }
        if (lo < 1 || hi > 4095 || lo > hi)
            return req_fail(err, errlen, "%s.tag.value[%zu]: [%lld, %lld] is not a range of "
                            "VLANs within 1..4095", path, i, (long long)lo, (long long)hi);
        if (u->n_ranges && lo <= u->ranges[u->n_ranges - 1][1])
            return req_fail(err, errlen, "%s.tag.value[%zu]: ranges must be in ascending order "
                            "and must not overlap", path, i);
        u->ranges[u->n_ranges][0] = (uint16_t)lo;
        u->ranges[u->n_ranges][1] = (uint16_t)hi;
        u->n_ranges++;
    }
    if (eline_vlan_from_ranges((const uint16_t(*)[2])u->ranges, u->n_ranges, &u->vlan) < 0)
        return req_fail(err, errlen, "%s.tag.value: more than %d value/mask pairs", path,
                        ELINE_MASKS_MAX);
    return 0;
}

/* Every key of obj one of keys (NULL-terminated); else the schema's words,
 * where naming the object ("" for the body itself). */
static int only_keys(json_t *obj, const char *where, const char *const *keys, char *err,
                     size_t errlen)
{
    const char *k;
    json_t *v;

    json_object_foreach(obj, k, v) {
        const char *const *p = keys;
        while (*p && strcmp(*p, k))
            p++;
        if (!*p)
            return req_fail(err, errlen, INVALID "%s%sAdditional properties are not allowed "
                            "('%s' was unexpected)", where, *where ? ": " : "", k);
    }
    return 0;
}

static int tag_parse(json_t *tag, const char *path, struct eline_uni_req *u, char *err,
                     size_t errlen)
{
    static const char *const keys[] = {"tag_type", "value", NULL};
    char where[16];                     /* "uni_a.tag" */
    json_t *v;

    if (!json_is_object(tag))
        return req_fail(err, errlen, INVALID "%s.tag: not of type 'object'", path);
    snprintf(where, sizeof(where), "%s.tag", path);
    int rc = only_keys(tag, where, keys, err, errlen);
    if (rc)
        return rc;
    json_t *tt = json_object_get(tag, "tag_type");
    if (tt && !(json_is_string(tt) && strcmp(json_string_value(tt), "vlan") == 0) &&
        !(json_is_integer(tt) && json_integer_value(tt) == 1))
        return req_fail(err, errlen, INVALID "%s.tag.tag_type: not one of ['vlan', 1]", path);
    v = json_object_get(tag, "value");
    if (!v)
        return req_fail(err, errlen, "%s.tag: 'value' is required", path);
    u->has_tag = true;
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        if (x < 1 || x > 4095)
            return req_fail(err, errlen, "%s.tag.value: %lld is not a VLAN (1..4095)", path,
                            (long long)x);
        u->vlan = (struct eline_vlan){.kind = ELINE_VLAN_VID, .vid = (uint16_t)x};
    } else if (json_is_string(v) && strcmp(json_string_value(v), "any") == 0) {
        u->vlan = (struct eline_vlan){.kind = ELINE_VLAN_ANY};
    } else if (json_is_string(v) && strcmp(json_string_value(v), "untagged") == 0) {
        u->vlan = (struct eline_vlan){.kind = ELINE_VLAN_VID, .vid = 0};
    } else if (json_is_array(v)) {
        return tag_ranges(v, path, u, err, errlen);
    } else {
        return req_fail(err, errlen, "%s.tag.value: expected a VLAN (1..4095), \"any\", "
                        "\"untagged\" or a list of ranges", path);
    }
    return 0;
}

static int uni_parse(json_t *body, const char *key, struct eline_uni_req *u, char *err,
                     size_t errlen)
{
    static const char *const keys[] = {"interface_id", "tag", NULL};
    json_t *x = json_object_get(body, key);

    memset(u, 0, sizeof(*u));
    if (!x)
        return req_fail(err, errlen, INVALID "'%s' is a required property", key);
    if (!json_is_object(x))
        return req_fail(err, errlen, INVALID "%s: not of type 'object'", key);
    int rc = only_keys(x, key, keys, err, errlen);
    if (rc)
        return rc;
    json_t *id = json_object_get(x, "interface_id");
    if (!id)
        return req_fail(err, errlen, INVALID "%s: 'interface_id' is a required property", key);
    if (!json_is_string(id) || !iface_id_ok(json_string_value(id)))
        return req_fail(err, errlen, INVALID "%s.interface_id: does not match "
                        "'^([0-9A-Fa-f]{2}[:-]){8}(\\\\d{1,5})$'", key);
    snprintf(u->interface_id, sizeof(u->interface_id), "%s", json_string_value(id));
    if (iface_split(u->interface_id, &u->at) < 0)
        return req_fail(err, errlen, "%s.interface_id: %s is not a port of a switch", key,
                        u->interface_id);
    json_t *tag = json_object_get(x, "tag");
    return tag ? tag_parse(tag, key, u, err, errlen) : 0;
}

/* An optional member of a JSON type: *out (NULL when absent). */
static int typed(json_t *body, const char *key, json_type type, const char *tname,
                 json_t **out, char *err, size_t errlen)
{
    *out = json_object_get(body, key);
    if (*out && json_typeof(*out) != type)
        return req_fail(err, errlen, INVALID "%s: not of type '%s'", key, tname);
    return 0;
}

/* An optional integer within lo..hi (or null, when nullable: *v = null_v). */
static int int_field(json_t *body, const char *key, long long lo, long long hi, bool nullable,
                     long long null_v, long long *v, char *err, size_t errlen)
{
    json_t *x = json_object_get(body, key);
    if (!x)
        return 0;
    if (nullable && json_is_null(x)) {
        *v = null_v;
        return 0;
    }
    if (!json_is_integer(x))
        return req_fail(err, errlen, INVALID "%s: not of type 'integer'", key);
    *v = json_integer_value(x);
    if (*v < lo)
        return req_fail(err, errlen, INVALID "%s: %lld is less than the minimum of %lld", key,
                        *v, lo);
    if (*v > hi)
        return req_fail(err, errlen, INVALID "%s: %lld is greater than the maximum of %lld",
                        key, *v, hi);
    return 0;
}

static const char *const known_keys[] = {
    "name", "frequency", "uni_a", "uni_z", "start_date", "end_date", "bandwidth",
    "primary_links", "backup_links", "primary_path", "backup_path", "primary_constraints",
    "secondary_constraints", "dynamic_backup_path", "circuit_scheduler", "sb_priority",
    "service_level", "queue_id", "enabled", "metadata", "max_paths", "owner", NULL,
};

/* The equal-tag-lists rule (Kytos' _tag_lists_equal). */
static bool tag_lists_equal(const struct eline_uni_req *a, const struct eline_uni_req *z)
{
    bool la = a->has_tag && a->vlan.kind == ELINE_VLAN_MASKS;
    bool lz = z->has_tag && z->vlan.kind == ELINE_VLAN_MASKS;
    if (la != lz)
        return false;
    return !la || (a->n_ranges == z->n_ranges &&
                   memcmp(a->ranges, z->ranges, a->n_ranges * sizeof(a->ranges[0])) == 0);
}

int eline_req_parse(json_t *body, struct eline_req *out, char *err, size_t errlen)
{
    int rc;

    memset(out, 0, sizeof(*out));
    out->sb_priority = -1;
    out->queue_id = -1;
    out->max_paths = 2;
    if (!json_is_object(body))
        return req_fail(err, errlen, INVALID "the body is not of type 'object'");
    if ((rc = only_keys(body, "", known_keys, err, errlen)))
        return rc;
    json_t *name = json_object_get(body, "name");
    if (!name)
        return req_fail(err, errlen, INVALID "'name' is a required property");
    if (!json_is_string(name))
        return req_fail(err, errlen, INVALID "name: not of type 'string'");
    out->name = json_string_value(name);
    if ((rc = uni_parse(body, "uni_a", &out->uni_a, err, errlen)) ||
        (rc = uni_parse(body, "uni_z", &out->uni_z, err, errlen)))
        return rc;
    static const char *const paths[] = {"primary_path", "backup_path", "primary_links",
                                        "backup_links"};
    json_t **path_out[] = {&out->primary_path, &out->backup_path, &out->primary_links,
                           &out->backup_links};
    for (int i = 0; i < 4; i++)
        if ((rc = typed(body, paths[i], JSON_ARRAY, "array", path_out[i], err, errlen)))
            return rc;
    if ((rc = typed(body, "primary_constraints", JSON_OBJECT, "object",
                    &out->primary_constraints, err, errlen)) ||
        (rc = typed(body, "secondary_constraints", JSON_OBJECT, "object",
                    &out->secondary_constraints, err, errlen)) ||
        (rc = typed(body, "metadata", JSON_OBJECT, "object", &out->metadata, err, errlen)) ||
        (rc = typed(body, "circuit_scheduler", JSON_ARRAY, "array", &out->circuit_scheduler,
                    err, errlen)))
        return rc;
    static const char *const bools[] = {"enabled", "dynamic_backup_path"};
    bool *bool_out[] = {&out->enabled, &out->dynamic_backup_path};
    for (int i = 0; i < 2; i++) {
        json_t *b = json_object_get(body, bools[i]);
        if (b && !json_is_boolean(b))
            return req_fail(err, errlen, INVALID "%s: not of type 'boolean'", bools[i]);
        *bool_out[i] = b && json_is_true(b);
    }
    static const char *const strs[] = {"start_date", "end_date", "frequency"};
    const char **str_out[] = {&out->start_date, &out->end_date, &out->frequency};
    for (int i = 0; i < 3; i++) {
        json_t *s = json_object_get(body, strs[i]);
        if (s && !json_is_string(s))
            return req_fail(err, errlen, INVALID "%s: not of type 'string'", strs[i]);
        *str_out[i] = s ? json_string_value(s) : NULL;
    }
    json_t *owner = json_object_get(body, "owner");
    if (owner && !json_is_string(owner) && !json_is_null(owner))
        return req_fail(err, errlen, INVALID "owner: not of type 'string'");
    long long sb = -1, sl = 0, q = -1, mp = 2, bw = 0;
    if ((rc = int_field(body, "sb_priority", 0, 65535, true, -1, &sb, err, errlen)) ||
        (rc = int_field(body, "service_level", 0, 7, false, 0, &sl, err, errlen)) ||
        (rc = int_field(body, "queue_id", -1, 7, true, -1, &q, err, errlen)) ||
        (rc = int_field(body, "max_paths", 2, 10, false, 2, &mp, err, errlen)) ||
        (rc = int_field(body, "bandwidth", 0, INT64_MAX, false, 0, &bw, err, errlen)))
        return rc;
    out->sb_priority = (int)sb;
    out->service_level = (int)sl;
    out->queue_id = (int)q;
    out->max_paths = (int)mp;
    out->bandwidth = bw;
    if (!tag_lists_equal(&out->uni_a, &out->uni_z))
        return req_fail(err, errlen, "UNI_A and UNI_Z tag lists should be the same.");
    if (!json_array_size(out->primary_path) && !out->dynamic_backup_path &&
        out->uni_a.at.dpid != out->uni_z.at.dpid)
        return req_fail(err, errlen, "The EVC must have a primary path or allow dynamic paths.");
    return 0;
}

json_t *eline_uni_json(const struct eline_uni_req *u)
{
    json_t *o = json_pack("{s:s}", "interface_id", u->interface_id);
    if (!o || !u->has_tag)
        return o;
    json_t *value;
    if (u->vlan.kind == ELINE_VLAN_MASKS) {
        value = json_array();
        for (unsigned i = 0; value && i < u->n_ranges; i++)
            json_array_append_new(value, json_pack("[i, i]", u->ranges[i][0], u->ranges[i][1]));
    } else if (u->vlan.kind == ELINE_VLAN_ANY) {
        value = json_string("any");
    } else if (u->vlan.vid == 0) {
        value = json_string("untagged");
    } else {
        value = json_integer(u->vlan.vid);
    }
    if (!value || json_object_set_new(o, "tag", json_pack("{s:s, s:o}", "tag_type", "vlan",
                                                          "value", value)) < 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int eline_req_check_times(const struct eline_req *r, char *err, size_t errlen)
{
    static const char *const strs[] = {"start_date", "end_date"};
    const char *const vals[] = {r->start_date, r->end_date};
    int64_t t;

    for (int i = 0; i < 2; i++)
        if (vals[i] && eline_sched_time(vals[i], &t) < 0)
            return req_fail(err, errlen, INVALID "%s: an ISO 8601 time, as "
                            "2026-12-07T14:52:10Z", strs[i]);
    if (json_array_size(r->circuit_scheduler) > ELINE_SCHED_MAX)
        return req_fail(err, errlen, INVALID "circuit_scheduler: at most %d schedules",
                        ELINE_SCHED_MAX);
    size_t si;
    json_t *item;
    json_array_foreach(r->circuit_scheduler, si, item) {
        char prefix[48], why[256];
        struct eline_sched sched;
        snprintf(prefix, sizeof(prefix), "circuit_scheduler[%zu]", si);
        if (eline_sched_parse(item, prefix, &sched, why, sizeof(why)) < 0)
            return req_fail(err, errlen, INVALID "%s", why);
    }
    return 0;
}
