/* eline_evc: an EVC record — made from a request, shown as Kytos' as_dict,
 * kept as an app record and read back at start. See eline_app.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dpid.h"
#include "eline_app.h"
#include "ofcd_fnv.h"
#include "ofcd_log.h"
#include "store.h"
#include "topo_view.h"

void eline_now_text(char out[ELINE_TIME_LEN])
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(out, ELINE_TIME_LEN, "%Y-%m-%dT%H:%M:%S", &tm);
}

int eline_rec_new(json_t *body, struct eline_rec **out, char *err, size_t errlen)
{
    struct eline_rec *r = calloc(1, sizeof(*r));

    *out = NULL;
    if (!r) {
        json_decref(body);
        return -ENOMEM;
    }
    r->request = body;
    if (eline_req_parse(body, &r->req, err, errlen) < 0) {
        eline_rec_free(r);
        return -EINVAL;
    }
    r->enabled = r->req.enabled;
    eline_now_text(r->creation_time);
    *out = r;
    return 0;
}

void eline_rec_free(struct eline_rec *r)
{
    if (!r)
        return;
    json_decref(r->request);
    free(r);
}

/* The list's index: slot (the id's hash, then the next ones) holds a
 * record's place in the list plus one (0: free); at most half full. */
static size_t slot_of(const char *id, size_t cap)
{
    return (size_t)ofcd_fnv1a(OFCD_FNV_OFFSET, id, strlen(id)) & (cap - 1);
}

static void index_put(struct eline_app *a, size_t at)
{
    size_t s = slot_of(a->evcs[at]->id, a->cap_index);
    while (a->index[s])
        s = (s + 1) & (a->cap_index - 1);
    a->index[s] = (uint32_t)at + 1;
}

/* The index made again for cap slots: 0, -ENOMEM (the old one kept). */
static int index_build(struct eline_app *a, size_t cap)
{
    uint32_t *v = calloc(cap, sizeof(*v));
    if (!v)
        return -ENOMEM;
    free(a->index);
    a->index = v;
    a->cap_index = cap;
    for (size_t i = 0; i < a->n_evcs; i++)
        index_put(a, i);
    return 0;
}

void eline_rec_swap_request(struct eline_rec *r, struct eline_rec *n)
{
    json_t *request = r->request;
    struct eline_req req = r->req;

    r->request = n->request;
    r->req = n->req;
    n->request = request;
    n->req = req;
}

struct eline_rec *eline_find(struct eline_app *a, const char *id)
{
    if (!a->cap_index)
        return NULL;
    for (size_t s = slot_of(id, a->cap_index); a->index[s]; s = (s + 1) & (a->cap_index - 1))
        if (strcmp(a->evcs[a->index[s] - 1]->id, id) == 0)
            return a->evcs[a->index[s] - 1];
    return NULL;
}

struct eline_rec *eline_find_at(struct eline_app *a, const char *id, size_t at)
{
    if (at < a->n_evcs && strcmp(a->evcs[at]->id, id) == 0)
        return a->evcs[at];
    return eline_find(a, id);
}

int eline_add(struct eline_app *a, struct eline_rec *r)
{
    if (a->n_evcs >= ELINE_MAX_EVCS)
        return -ENOSPC;
    if (a->n_evcs == a->cap_evcs) {
        size_t cap = a->cap_evcs ? 2 * a->cap_evcs : 64;
        struct eline_rec **v = realloc(a->evcs, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        a->evcs = v;
        a->cap_evcs = cap;
    }
    if (2 * (a->n_evcs + 1) > a->cap_index &&
        index_build(a, a->cap_index ? 2 * a->cap_index : 128) < 0)
        return -ENOMEM;
    a->evcs[a->n_evcs++] = r;
    index_put(a, a->n_evcs - 1);
    return 0;
}

void eline_drop_last(struct eline_app *a)
{
    if (!a->n_evcs)
        return;
    a->n_evcs--;
    /* Made again in place (nothing to allocate): a slot emptied in the
     * middle of a run would hide the records after it. */
    memset(a->index, 0, a->cap_index * sizeof(*a->index));
    for (size_t i = 0; i < a->n_evcs; i++)
        index_put(a, i);
}

/* ---- as Kytos shows it ------------------------------------------------------------- */

static json_t *end_json(struct eline_end e)
{
    char id[TOPO_END_ID_LEN];
    topo_end_id((struct topo_end){e.dpid, e.port}, id);
    return json_pack("{s:s}", "id", id);
}

/* A link of the current path, as Kytos' Link.as_dict shows the parts a
 * client reads: its id, ends and S-VLAN. */
static json_t *link_json(const struct eline_link *l)
{
    char id[TOPO_LINK_ID_LEN + 1];
    topo_link_id((struct topo_end){l->a.dpid, l->a.port}, (struct topo_end){l->b.dpid, l->b.port},
                 id);
    return json_pack("{s:s, s:o, s:o, s:{s:{s:s, s:i}}}", "id", id, "endpoint_a",
                     end_json(l->a), "endpoint_b", end_json(l->b), "metadata", "s_vlan",
                     "tag_type", "vlan", "value", l->s_vlan);
}

/* A member of the request, or dflt (a new reference either way). */
static json_t *given(const struct eline_rec *r, const char *key, json_t *dflt)
{
    json_t *v = json_object_get(r->request, key);
    if (!v)
        return dflt;
    json_decref(dflt);
    return json_incref(v);
}

static json_t *text_or_null(const char *s)
{
    return s && *s ? json_string(s) : json_null();
}

json_t *eline_rec_dict(const struct eline_rec *r)
{
    json_t *path = json_array();
    for (size_t i = 0; path && i < r->n_path; i++)
        json_array_append_new(path, link_json(&r->path[i]));
    json_t *d = json_pack("{s:s, s:s, s:o, s:o}", "id", r->id, "name", r->req.name, "uni_a",
                          eline_uni_json(&r->req.uni_a), "uni_z", eline_uni_json(&r->req.uni_z));
    if (!d || !path) {
        json_decref(d);
        json_decref(path);
        return NULL;
    }
    json_object_set_new(d, "start_date", given(r, "start_date", json_string(r->creation_time)));
    json_object_set_new(d, "end_date", given(r, "end_date", json_null()));
    json_object_set_new(d, "queue_id", given(r, "queue_id", json_integer(-1)));
    json_object_set_new(d, "bandwidth", given(r, "bandwidth", json_integer(0)));
    json_object_set_new(d, "primary_links", given(r, "primary_links", json_array()));
    json_object_set_new(d, "backup_links", given(r, "backup_links", json_array()));
    json_object_set_new(d, "current_path", path);
    json_t *fo = json_array();
    for (size_t i = 0; fo && i < r->n_backup; i++)
        json_array_append_new(fo, link_json(&r->backup[i]));
    json_object_set_new(d, "failover_path", fo ? fo : json_array());
    json_object_set_new(d, "primary_path", given(r, "primary_path", json_array()));
    json_object_set_new(d, "backup_path", given(r, "backup_path", json_array()));
    json_object_set_new(d, "dynamic_backup_path", json_boolean(r->req.dynamic_backup_path));
    json_object_set_new(d, "metadata", given(r, "metadata", json_object()));
    json_object_set_new(d, "request_time", json_string(r->creation_time));
    json_object_set_new(d, "creation_time", json_string(r->creation_time));
    json_object_set_new(d, "owner", given(r, "owner", json_null()));
    json_object_set_new(d, "circuit_scheduler", given(r, "circuit_scheduler", json_array()));
    json_object_set_new(d, "active", json_boolean(r->active));
    json_object_set_new(d, "enabled", json_boolean(r->enabled));
    json_object_set_new(d, "archived", json_boolean(r->archived));
    json_object_set_new(d, "sb_priority", r->req.sb_priority > 0
                                              ? json_integer(r->req.sb_priority)
                                              : json_null());
    json_object_set_new(d, "service_level", json_integer(r->req.service_level));
    json_object_set_new(d, "primary_constraints", given(r, "primary_constraints", json_object()));
    json_object_set_new(d, "secondary_constraints",
                        given(r, "secondary_constraints", json_object()));
    json_object_set_new(d, "flow_removed_at", json_null());
    json_object_set_new(d, "last_deployed_at", text_or_null(r->last_deployed_at));
    json_object_set_new(d, "last_removed_at", json_null());
    json_object_set_new(d, "updated_at", json_string(r->creation_time));
    json_object_set_new(d, "max_paths", json_integer(r->req.max_paths));
    json_object_set_new(d, "leftover_switch", json_null());
    return d;
}

/* ---- kept over a restart --------------------------------------------------------------- */

static json_t *end_text(struct eline_end e)
{
    char id[TOPO_END_ID_LEN];
    topo_end_id((struct topo_end){e.dpid, e.port}, id);
    return json_string(id);
}

static json_t *links_kept(const struct eline_link *l, size_t n)
{
    json_t *v = json_array();
    for (size_t i = 0; v && i < n; i++)
        json_array_append_new(v, json_pack("{s:o, s:o, s:i}", "a", end_text(l[i].a), "b",
                                           end_text(l[i].b), "s_vlan", l[i].s_vlan));
    return v;
}

int eline_rec_save(struct eline_app *a, struct eline_rec *r)
{
    char key[64];
    json_t *path = links_kept(r->path, r->n_path), *backup = links_kept(r->backup, r->n_backup);

    json_t *o = path && backup
                    ? json_pack("{s:O, s:s, s:s, s:b, s:b, s:b, s:s, s:o, s:o, s:I, s:I}",
                                "request", r->request, "id", r->id, "creation_time",
                                r->creation_time, "enabled", r->enabled, "active", r->active,
                                "archived", r->archived, "last_deployed_at",
                                r->last_deployed_at, "path", path, "backup", backup,
                                "group_id", (json_int_t)r->gid, "meter_id",
                                (json_int_t)r->meter)
                    : (json_decref(path), json_decref(backup), NULL);
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (!text)
        return -ENOMEM;
    snprintf(key, sizeof(key), ELINE_RECORD_PREFIX "%s", r->id);
    /* Before the write: in a cluster the watch brings it back at once and
     * must know it for this node's own (eline_follow.c). */
    pthread_mutex_lock(&a->lock);
    r->kept_hash = ofcd_fnv1a(OFCD_FNV_OFFSET, text, strlen(text));
    pthread_mutex_unlock(&a->lock);
    /* The leader's alone: etcd refuses it from a node that no longer leads
     * (-EPERM), however late after its check this write comes. */
    int rc = store_kv_put_leader(a->host->store, key, text, strlen(text));
    free(text);
    if (rc == -EINPROGRESS)
        rc = 0;                         /* in etcd; this node's copy shows it soon */
    /* Not kept, or not known (etcd's -ETIME): memory is ahead of the
     * store, and this node's own word until it is kept (eline_follow.c). */
    pthread_mutex_lock(&a->lock);
    r->unkept = rc < 0;
    pthread_mutex_unlock(&a->lock);
    return rc;
}

static int end_read(json_t *v, struct eline_end *e)
{
    struct topo_end t;
    if (!json_is_string(v) || topo_end_parse(json_string_value(v), ':', false, &t) < 0)
        return -EINVAL;
    *e = (struct eline_end){t.dpid, t.port};
    return 0;
}

/* A kept list of links (none: 0 links). */
static int links_read(json_t *v, struct eline_link *out, size_t *n)
{
    size_t i;
    json_t *l;

    *n = 0;
    json_array_foreach(v, i, l) {
        json_int_t s = json_integer_value(json_object_get(l, "s_vlan"));
        if (*n == ELINE_PATH_MAX || s < 1 || s > 4095 ||
            end_read(json_object_get(l, "a"), &out[*n].a) < 0 ||
            end_read(json_object_get(l, "b"), &out[*n].b) < 0)
            return -EINVAL;
        out[(*n)++].s_vlan = (uint16_t)s;
    }
    return 0;
}

int eline_rec_read(const void *val, size_t len, struct eline_rec **out, char *err,
                   size_t errlen)
{
    json_error_t je;
    json_t *o = json_loadb(val, len, 0, &je);
    const char *id = o ? json_string_value(json_object_get(o, "id")) : NULL;
    struct eline_rec *r = NULL;

    *out = NULL;
    snprintf(err, errlen, "%s", o ? "no EVC id" : je.text);
    if (id && strlen(id) == ELINE_ID_HEX &&
        eline_rec_new(json_incref(json_object_get(o, "request")), &r, err, errlen) == -ENOMEM)
        snprintf(err, errlen, "out of memory");
    bool ok = r != NULL;
    if (r)
        snprintf(err, errlen, "a path or backup that does not read");

    if (r) {
        snprintf(r->id, sizeof(r->id), "%s", id);
        const char *ct = json_string_value(json_object_get(o, "creation_time"));
        const char *ld = json_string_value(json_object_get(o, "last_deployed_at"));
        snprintf(r->creation_time, sizeof(r->creation_time), "%s", ct ? ct : "");
        snprintf(r->last_deployed_at, sizeof(r->last_deployed_at), "%s", ld ? ld : "");
        r->enabled = json_is_true(json_object_get(o, "enabled"));
        r->active = json_is_true(json_object_get(o, "active"));
        r->archived = json_is_true(json_object_get(o, "archived"));
        ok = links_read(json_object_get(o, "path"), r->path, &r->n_path) == 0 &&
             links_read(json_object_get(o, "backup"), r->backup, &r->n_backup) == 0;
        json_int_t gid = json_integer_value(json_object_get(o, "group_id"));
        r->gid = gid > 0 && gid <= 0xffffff00 ? (uint32_t)gid : 0;
        json_int_t meter = json_integer_value(json_object_get(o, "meter_id"));
        r->meter = meter > 0 && meter < 0xffff0000 ? (uint32_t)meter : 0;   /* and meter + 1 */
        /* Why a laid one went unprotected is not kept: one that could have
         * a dynamic backup is taken for lacking a second way, so the first
         * judge after the restart looks for one (and a move that finds it
         * cannot use it says so for good: eline_path_find). */
        r->lone = r->n_path && !r->n_backup &&
                  (r->req.dynamic_backup_path || !json_array_size(r->req.primary_path));
        r->kept_hash = ofcd_fnv1a(OFCD_FNV_OFFSET, val, len);
    }
    json_decref(o);
    if (!ok) {
        eline_rec_free(r);
        return -EINVAL;
    }
    *out = r;
    return 0;
}

static int load_one(const char *key, const void *val, size_t len, void *arg)
{
    struct eline_app *a = arg;
    struct eline_rec *r = NULL;
    char err[256];

    int rc = eline_rec_read(val, len, &r, err, sizeof(err));
    if (rc == 0 && (rc = eline_add(a, r)) < 0)
        snprintf(err, sizeof(err), "%s", strerror(-rc));
    if (rc < 0) {
        LOG_ERR("eline", "app record %s is not an EVC this ofcd can read (%s): kept, not "
                "managed", key, err);
        eline_rec_free(r);
    }
    return 0;
}

int eline_rec_load_all(struct eline_app *a)
{
    int rc = store_kv_foreach(a->host->store, ELINE_RECORD_PREFIX, load_one, a);
    if (rc < 0)
        LOG_ERR("eline", "cannot read the kept EVCs: %s", strerror(-rc));
    else if (a->n_evcs)
        LOG_INFO("eline", "%zu EVCs read back", a->n_evcs);
    return rc;
}
