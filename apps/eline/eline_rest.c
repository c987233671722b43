/* eline_rest: mef_eline v2's routes under /api/kytos/mef_eline/v2, as
 * Kytos-ng answers them:
 *   GET    evc/            {id: EVC, ...}; ?archived=true the archived
 *                          ones, ?archived=null all (default: live ones)
 *   POST   evc/            a NewCircuit: 201 {"circuit_id", "deployed"}
 *   GET    evc/{id}        one EVC (404 "circuit_id {id} not found")
 *   DELETE evc/{id}        its flows removed, it archived: 200
 *                          {"response": "Circuit {id} removed"}
 *   PATCH  evc/{id}        its fields changed (Kytos' updatable ones; 400
 *                          "{key} can't be updated." for others), read as
 *                          a new request would be: 200 {id: EVC,
 *                          "redeployed": bool}; disabled: taken off;
 *                          enabled: laid; UNIs, paths, priority or queue
 *                          changed: taken off and laid again
 *   evc/metadata, evc/{id}/metadata[/{key}]   eline_meta.c
 *   GET    evc/?metadata.KEY=VALUE    the EVCs whose metadata matches
 *   PATCH  evc/{id}/redeploy   laid again on the path now (eline_move):
 *                          202 "Circuit {id} redeploy received.", 409
 *                          "Circuit {id} is disabled." when disabled or no
 *                          path is found (?try_avoid_same_s_vlan=true|false
 *                          is checked and, S-VLANs being the lowest free,
 *                          has no other effect)
 * An EVC is Kytos' as_dict (eline_evc.c). Events on the stream:
 * evc.created {id, name, deployed, links}, evc.updated {id, name,
 * redeployed}, evc.deleted {id}. See
 * eline_app.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "cfg.h"
#include "eline_app.h"
#include "ofcd_clock.h"
#include "ofcd_log.h"
#include "store.h"

int eline_random_hex(char *out, size_t digits)
{
    uint8_t b[32];
    if (digits > 2 * sizeof(b) || digits % 2 || getrandom(b, digits / 2, 0) != (ssize_t)(digits / 2))
        return -EIO;
    for (size_t i = 0; i < digits / 2; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    out[digits] = '\0';
    return 0;
}

json_t *eline_body_object(const struct rest_ext_req *q, const char *not_object, json_t **out,
                          unsigned *st)
{
    json_error_t je;
    json_t *b = json_loadb(q->body ? q->body : "", q->body_len, 0, &je);

    if (!b)
        *st = rest_ext_error(out, 400, "Invalid json: %s", je.text);
    else if (!json_is_object(b))
        *st = rest_ext_error(out, 400, "%s", not_object);
    else
        return b;
    json_decref(b);
    return NULL;
}

/* A new EVC id: 14 hex digits, unused. */
static int new_id(struct eline_app *a, char out[ELINE_ID_HEX + 1])
{
    for (int tries = 0; tries < 8; tries++) {
        if (eline_random_hex(out, ELINE_ID_HEX) < 0)
            return -EIO;
        pthread_mutex_lock(&a->lock);
        bool taken = eline_find(a, out) != NULL;
        pthread_mutex_unlock(&a->lock);
        if (!taken)
            return 0;
    }
    return -EEXIST;
}

/* The list's metadata filters: ?metadata.KEY=VALUE, all of which an EVC
 * must match. */
#define LIST_FILTERS_MAX 16
struct list_filters {
    const char *path[LIST_FILTERS_MAX], *value[LIST_FILTERS_MAX];
    unsigned n;
    bool over;
};

static void list_filter(void *arg, const char *key, const char *value)
{
    struct list_filters *f = arg;

    if (strncmp(key, "metadata.", 9) != 0 || !key[9])
        return;
    if (f->n == LIST_FILTERS_MAX) {
        f->over = true;
        return;
    }
    f->path[f->n] = key + 9;
    f->value[f->n++] = value ? value : "";
}

static bool list_matches(const struct eline_rec *r, const struct list_filters *f)
{
    for (unsigned i = 0; i < f->n; i++)
        if (!eline_meta_match(r, f->path[i], f->value[i]))
            return false;
    return true;
}

static unsigned list(struct eline_app *a, const struct rest_ext_req *q, json_t **out)
{
    const char *arch = q->query ? q->query(q, "archived") : NULL;
    int want = -1;                       /* -1: live ones; 1: archived; 2: all */
    struct list_filters f = {0};

    if (q->query_each)
        q->query_each(q, list_filter, &f);
    if (f.over)
        return rest_ext_error(out, 400, "more than %d metadata filters", LIST_FILTERS_MAX);

    if (arch && strcasecmp(arch, "true") == 0)
        want = 1;
    else if (arch && strcasecmp(arch, "null") == 0)
        want = 2;
    else if (arch && strcasecmp(arch, "false") != 0)
        return rest_ext_error(out, 400, "archived: expected true, false or null");
    json_t *o = json_object();
    pthread_mutex_lock(&a->lock);
    for (size_t i = 0; o && i < a->n_evcs; i++) {
        const struct eline_rec *r = a->evcs[i];
        if ((want == 2 || (want == 1) == r->archived) && list_matches(r, &f)) {
            json_t *d = eline_rec_dict(r);
            if (!d || json_object_set_new(o, r->id, d) < 0) {
                json_decref(o);
                o = NULL;
            }
        }
    }
    pthread_mutex_unlock(&a->lock);
    *out = o;
    return o ? 200 : rest_ext_error(out, 500, "out of memory");
}

/* A change whose record was not kept: 504 when the outcome is not known
 * (a cluster's etcd did not answer in time, or answered and this node's
 * copy has not shown it: read the EVC to see), else 503 with what. */
static unsigned not_kept(json_t **out, int rc, const char *what, const char *id)
{
    if (rc == -ETIME || rc == -EINPROGRESS)
        return rest_ext_error(out, 504, "circuit %s: the outcome is not known (%s); read "
                              "evc/%s to see", id, store_strerror(rc), id);
    if (rc == -EPERM)
        return rest_ext_error(out, 503, "circuit %s %s: this node no longer leads the cluster "
                              "(etcd refused its write); send the request to the leader "
                              "(GET /api/v1/health names it)", id, what);
    return rest_ext_error(out, 503, "circuit %s %s: %s", id, what, strerror(-rc));
}

static unsigned get_one(struct eline_app *a, const char *id, json_t **out)
{
    pthread_mutex_lock(&a->lock);
    struct eline_rec *r = eline_find(a, id);
    json_t *d = r ? eline_rec_dict(r) : NULL;
    pthread_mutex_unlock(&a->lock);
    if (!r)
        return rest_ext_error(out, 404, "circuit_id %s not found", id);
    *out = d;
    return d ? 200 : rest_ext_error(out, 500, "out of memory");
}

static unsigned create(struct eline_app *a, const struct rest_ext_req *q, json_t **out)
{
    json_error_t je;
    char err[512] = "", id[ELINE_ID_HEX + 1];
    struct eline_rec *r;

    json_t *body = json_loadb(q->body ? q->body : "", q->body_len, 0, &je);
    if (!body)
        return rest_ext_error(out, 400, "Invalid json: %s", je.text);
    unsigned ids = json_is_object(body)
                       ? eline_sched_ids(a, json_object_get(body, "circuit_scheduler"), NULL, out)
                       : 0;
    if (ids) {
        json_decref(body);
        return ids;
    }
    int rc = eline_rec_new(body, &r, err, sizeof(err));
    if (rc == 0 && (rc = eline_req_check_times(&r->req, err, sizeof(err))) < 0)
        eline_rec_free(r);
    else if (rc == 0 && (rc = eline_path_cons_check(r->req.primary_constraints,
                                               r->req.secondary_constraints, err,
                                               sizeof(err))) < 0)
        eline_rec_free(r);
    if (rc < 0)
        return rc == -EINVAL ? rest_ext_error(out, 400, "%s", err)
                             : rest_ext_error(out, 500, "out of memory");
    if (!eline_write_lock_leading(a)) {
        eline_rec_free(r);
        return eline_not_leader(a, out);
    }
    if ((rc = new_id(a, id)) < 0) {
        eline_write_unlock(a);
        eline_rec_free(r);
        return rest_ext_error(out, 500, "no EVC id could be made: %s", strerror(-rc));
    }
    memcpy(r->id, id, sizeof(r->id));
    unsigned st = eline_uni_pool(a, r, err, sizeof(err));
    if (!st)
        st = eline_uni_conflict(a, r, err, sizeof(err));
    if (st) {
        eline_rec_free(r);
        eline_write_unlock(a);
        return rest_ext_error(out, st, "%s", err);
    }
    pthread_mutex_lock(&a->lock);
    rc = eline_add(a, r);
    pthread_mutex_unlock(&a->lock);
    if (rc < 0) {
        eline_rec_free(r);
        eline_write_unlock(a);
        return rest_ext_error(out, 503, "no room for another EVC (%u at most)", ELINE_MAX_EVCS);
    }
    /* Kept before anything of it reaches a switch. Not kept: it never
     * was (the store says what the answer says). */
    rc = eline_rec_save(a, r);
    if (rc < 0) {
        pthread_mutex_lock(&a->lock);
        eline_drop_last(a);             /* r, added above */
        pthread_mutex_unlock(&a->lock);
        LOG_ERR("eline", "EVC %s (%s): not kept: %s", id, r->req.name, store_strerror(rc));
        eline_rec_free(r);
        eline_write_unlock(a);
        /* Kept after all (an outcome not known): this node's copy takes
         * it from the store, and the leader lays it at its next sweep. */
        return not_kept(out, rc, "could not be kept; nothing of it was made", id);
    }
    /* One with schedules waits for them, as Kytos' does. */
    bool deployed = r->enabled && !json_array_size(r->req.circuit_scheduler) &&
                    eline_deploy(a, r) == 0;
    char name[ELINE_NAME_LEN];
    pthread_mutex_lock(&a->lock);
    size_t links = r->n_path;
    snprintf(name, sizeof(name), "%s", r->req.name);
    pthread_mutex_unlock(&a->lock);
    bool scheduled = json_array_size(r->req.circuit_scheduler) > 0;
    eline_write_unlock(a);   /* a PATCH may replace r's request now */
    if (scheduled)
        eline_sched_changed(a);
    LOG_INFO("eline", "EVC %s (%s) created, %s", id, name,
             deployed ? "deployed" : "not deployed");
    eline_publish(a, "evc.created", json_pack("{s:s, s:s, s:b, s:I}", "id", id, "name",
                                              name, "deployed", deployed, "links",
                                              (json_int_t)links));
    *out = json_pack("{s:s, s:b}", "circuit_id", id, "deployed", deployed);
    return 201;
}

static unsigned remove_one(struct eline_app *a, const char *id, json_t **out)
{
    if (!eline_write_lock_leading(a))
        return eline_not_leader(a, out);
    pthread_mutex_lock(&a->lock);
    struct eline_rec *r = eline_find(a, id);
    bool live = r && !r->archived;
    pthread_mutex_unlock(&a->lock);
    if (!live) {
        eline_write_unlock(a);
        return rest_ext_error(out, 404, "circuit_id %s not found", id);
    }
    int rc = eline_undeploy(a, r);
    if (rc == 0) {
        pthread_mutex_lock(&a->lock);
        r->archived = true;
        r->enabled = false;
        pthread_mutex_unlock(&a->lock);
        if ((rc = eline_rec_save(a, r)) < 0) {
            /* Live still where it is kept: a retry does it again. */
            pthread_mutex_lock(&a->lock);
            r->archived = false;
            pthread_mutex_unlock(&a->lock);
        }
    }
    eline_write_unlock(a);
    if (rc < 0)
        return not_kept(out, rc, "was not removed", id);
    LOG_INFO("eline", "EVC %s removed", id);
    eline_publish(a, "evc.deleted", json_pack("{s:s}", "id", id));
    *out = json_pack("{s:o}", "response", json_sprintf("Circuit %s removed", id));
    return 200;
}

static unsigned redeploy(struct eline_app *a, const struct rest_ext_req *q, const char *id,
                         json_t **out)
{
    const char *avoid = q->query ? q->query(q, "try_avoid_same_s_vlan") : NULL;

    if (avoid && strcasecmp(avoid, "true") != 0 && strcasecmp(avoid, "false") != 0)
        return rest_ext_error(out, 400, "Parameter try_avoid_same_s_vlan has an invalid value.");
    if (!eline_write_lock_leading(a))
        return eline_not_leader(a, out);
    pthread_mutex_lock(&a->lock);
    struct eline_rec *r = eline_find(a, id);
    bool live = r && !r->archived, enabled = live && r->enabled;
    pthread_mutex_unlock(&a->lock);
    bool deployed = false;
    uint64_t t0 = ofcd_clock_mono_us();
    if (enabled)
        deployed = eline_move(a, r) == 0;
    uint64_t ms = (ofcd_clock_mono_us() - t0) / 1000u;
    char name[ELINE_NAME_LEN] = "";
    pthread_mutex_lock(&a->lock);
    size_t links = live ? r->n_path : 0;
    if (live)
        snprintf(name, sizeof(name), "%s", r->req.name);
    pthread_mutex_unlock(&a->lock);
    eline_write_unlock(a);
    if (!live)
        return rest_ext_error(out, 404, "circuit_id %s not found", id);
    if (!deployed) {
        *out = json_pack("{s:o}", "response", json_sprintf("Circuit %s is disabled.", id));
        return 409;
    }
    LOG_INFO("eline", "EVC %s redeployed by REST over %zu links", id, links);
    eline_publish(a, "evc.redeployed", json_pack("{s:s, s:s, s:s, s:I, s:I}", "id", id, "name",
                                                 name, "why", "redeploy", "links",
                                                 (json_int_t)links, "ms", (json_int_t)ms));
    *out = json_pack("{s:o}", "response", json_sprintf("Circuit %s redeploy received.", id));
    return 202;
}

static bool listed(const char *const *keys, const char *k)
{
    while (*keys && strcmp(*keys, k))
        keys++;
    return *keys != NULL;
}

/* What a PATCH may change, and what of it lays the EVC again (Kytos'
 * updatable_attributes and attributes_requiring_redeploy). */
static const char *const updatable[] = {
    "uni_a", "uni_z", "name", "start_date", "end_date", "queue_id", "bandwidth", "owner",
    "primary_path", "backup_path", "dynamic_backup_path", "primary_constraints",
    "secondary_constraints", "sb_priority", "service_level", "circuit_scheduler", "metadata",
    "enabled", "max_paths", NULL,
};
static const char *const relaying[] = {
    "primary_path", "backup_path", "dynamic_backup_path", "queue_id", "sb_priority",
    "primary_constraints", "secondary_constraints", "uni_a", "uni_z", NULL,
};

/* The body's changes made to r's request, read as a new request would
 * be (the same 400s): *n holds it. Under write_lock. */
static unsigned patch_read(struct eline_app *a, struct eline_rec *r, json_t *body,
                           struct eline_rec **n, json_t **out)
{
    char err[512] = "";

    pthread_mutex_lock(&a->lock);
    json_t *merged = json_deep_copy(r->request);
    pthread_mutex_unlock(&a->lock);
    if (!merged || json_object_update(merged, body) < 0) {
        json_decref(merged);
        return rest_ext_error(out, 500, "out of memory");
    }
    int rc = eline_rec_new(merged, n, err, sizeof(err));
    /* The times asked of what the PATCH sets (an EVC kept by an older
     * ofcd may hold one that does not read: its other fields still change). */
    bool times = json_object_get(body, "start_date") || json_object_get(body, "end_date") ||
                 json_object_get(body, "circuit_scheduler");
    if (rc == 0 && times && (rc = eline_req_check_times(&(*n)->req, err, sizeof(err))) < 0) {
        eline_rec_free(*n);
        *n = NULL;
    } else if (rc == 0 && (rc = eline_path_cons_check(json_object_get(body, "primary_constraints"),
                                               json_object_get(body, "secondary_constraints"),
                                               err, sizeof(err))) < 0) {
        eline_rec_free(*n);
        *n = NULL;
    }
    if (rc < 0)
        return rc == -EINVAL ? rest_ext_error(out, 400, "%s", err)
                             : rest_ext_error(out, 500, "out of memory");
    memcpy((*n)->id, r->id, sizeof(r->id));
    unsigned st = eline_uni_pool(a, *n, err, sizeof(err));
    if (!st)
        st = eline_uni_conflict(a, *n, err, sizeof(err));
    if (st) {
        eline_rec_free(*n);
        *n = NULL;
        return rest_ext_error(out, st, "%s", err);
    }
    return 0;
}

/* PATCH evc/{id}: as Kytos' update — a laid EVC disabled is taken off; a
 * change of what lays it (its UNIs, paths, priority, queue) takes it off
 * and lays it again; an inactive one enabled is laid. */
static unsigned update(struct eline_app *a, const struct rest_ext_req *q, const char *id,
                       json_t **out)
{
    const char *k;
    json_t *v;
    unsigned st;

    json_t *body = eline_body_object(q, "The request body is not a JSON object.", out, &st);
    if (!body)
        return st;
    bool relay = false, set_enabled = false, enable = false;
    json_object_foreach(body, k, v) {
        if (!listed(updatable, k)) {
            unsigned st = rest_ext_error(out, 400, "%s can't be updated.", k);
            json_decref(body);
            return st;
        }
        relay |= listed(relaying, k);
        relay |= a->meters && strcmp(k, "bandwidth") == 0;     /* its meters' rate */
        if (strcmp(k, "enabled") == 0 && json_is_boolean(v)) {
            set_enabled = true;
            enable = json_is_true(v);
        }
    }
    unsigned ids = eline_sched_ids(a, json_object_get(body, "circuit_scheduler"), id, out);
    if (ids) {
        json_decref(body);
        return ids;
    }
    if (!eline_write_lock_leading(a)) {
        json_decref(body);
        return eline_not_leader(a, out);
    }
    pthread_mutex_lock(&a->lock);
    struct eline_rec *r = eline_find(a, id), *n = NULL;
    bool live = r && !r->archived, was_active = live && r->active;
    pthread_mutex_unlock(&a->lock);
    st = live ? patch_read(a, r, body, &n, out)
              : rest_ext_error(out, 404, "circuit_id %s not found", id);
    json_decref(body);
    if (st) {
        eline_write_unlock(a);
        return st;
    }
    int rc = was_active && ((set_enabled && !enable) || relay) ? eline_undeploy(a, r) : 0;
    if (rc < 0) {
        eline_rec_free(n);
        eline_write_unlock(a);
        return rest_ext_error(out, 503, "circuit %s was not changed: its flows could not be "
                              "removed: %s", id, strerror(-rc));
    }
    pthread_mutex_lock(&a->lock);
    eline_rec_swap_request(r, n);       /* the old one freed with n */
    if (set_enabled)
        r->enabled = enable;
    bool lay = r->enabled && (relay || (set_enabled && enable && !was_active));
    pthread_mutex_unlock(&a->lock);
    eline_rec_free(n);
    bool redeployed = lay && eline_deploy(a, r) == 0;
    /* A deploy that found no path keeps nothing of an EVC that had none
     * left (undeployed above): the change itself is kept here. */
    if (!redeployed && (rc = eline_rec_save(a, r)) < 0)
        LOG_ERR("eline", "EVC %s: its change not kept: %s", id, strerror(-rc));
    pthread_mutex_lock(&a->lock);
    json_t *d = eline_rec_dict(r);
    char name[ELINE_NAME_LEN];
    snprintf(name, sizeof(name), "%s", r->req.name);
    pthread_mutex_unlock(&a->lock);
    eline_write_unlock(a);
    eline_sched_changed(a);             /* its schedules may be new */
    LOG_INFO("eline", "EVC %s (%s) updated%s", id, name,
             lay ? (redeployed ? ", laid again" : ", not laid: no path now") : "");
    eline_publish(a, "evc.updated", json_pack("{s:s, s:s, s:b}", "id", id, "name", name,
                                              "redeployed", redeployed));
    *out = d ? json_pack("{s:o, s:b}", id, d, "redeployed", redeployed) : NULL;
    return *out ? 200 : rest_ext_error(out, 500, "out of memory");
}

unsigned eline_rest_handle(void *arg, const struct rest_ext_req *q, json_t **out)
{
    struct eline_app *a = arg;
    const char *p = q->arg;

    if (strncmp(p, "evc", 3) != 0 || (p[3] != '\0' && p[3] != '/'))
        return rest_ext_error(out, 404, "no such resource: %s", q->path);
    if (!a->host->fm)
        return rest_ext_error(out, 503, "the flow manager is not running");
    /* In a cluster one node changes the circuits (eline_follow.c); every
     * node answers reads from its copy. */
    if (strcmp(q->method, "GET") != 0 && strcmp(q->method, "HEAD") != 0 &&
        !eline_leads(a, NULL, 0))
        return eline_not_leader(a, out);
    if (p[3] == '\0') {
        if (strcmp(q->method, "GET") == 0)
            return list(a, q, out);
        if (strcmp(q->method, "POST") == 0)
            return create(a, q, out);
        return rest_ext_error(out, 405, "method %s not allowed on %s", q->method, q->path);
    }
    const char *id = p + 4;
    const char *slash = strchr(id, '/');
    if (strncmp(id, "schedule", 8) == 0 && (id[8] == '\0' || id[8] == '/'))
        return eline_sched_route(a, q, id[8] ? id + 9 : "", out);
    if (strncmp(id, "metadata", 8) == 0 && (id[8] == '\0' || id[8] == '/'))
        return eline_meta_route(a, q, NULL, id[8] ? id + 9 : NULL, out);
    if (slash && strncmp(slash, "/metadata", 9) == 0 && (slash[9] == '\0' || slash[9] == '/')) {
        char one[ELINE_ID_HEX + 1];
        size_t n = (size_t)(slash - id);
        if (n > ELINE_ID_HEX)
            return rest_ext_error(out, 404, "circuit_id %.*s not found.", (int)n, id);
        memcpy(one, id, n);
        one[n] = '\0';
        return eline_meta_route(a, q, one, slash[9] ? slash + 10 : NULL, out);
    }
    if (slash) {
        char one[ELINE_ID_HEX + 1];
        size_t n = (size_t)(slash - id);
        if (strcmp(slash, "/redeploy") != 0 || n > ELINE_ID_HEX)
            return rest_ext_error(out, 404, "no such resource: %s", q->path);
        if (strcmp(q->method, "PATCH") != 0)
            return rest_ext_error(out, 405, "method %s not allowed on %s", q->method, q->path);
        memcpy(one, id, n);
        one[n] = '\0';
        return redeploy(a, q, one, out);
    }
    if (strcmp(q->method, "GET") == 0)
        return get_one(a, id, out);
    if (strcmp(q->method, "DELETE") == 0)
        return remove_one(a, id, out);
    if (strcmp(q->method, "PATCH") == 0)
        return update(a, q, id, out);
    return rest_ext_error(out, 405, "method %s not allowed on %s", q->method, q->path);
}
