/*
 * eline_sched_rest: mef_eline v2's schedule routes, as Kytos answers them:
 *   GET    evc/schedule/              [{schedule_id, circuit_id, schedule}]
 *                                     of every EVC not archived ({} when
 *                                     there is none, as Kytos)
 *   POST   evc/schedule/              {circuit_id, schedule}: 201 the
 *                                     schedule as kept (its id made when
 *                                     the client gave none)
 *   PATCH  evc/schedule/{id}          the schedule replaced, its id kept: 200
 *   DELETE evc/schedule/{id}          200 "Schedule removed"
 * 400 naming the field, 404 an unknown circuit or schedule, 403 an archived
 * EVC's. A schedule is kept in its EVC's circuit_scheduler (the record),
 * so it follows the EVC over a restart and through a cluster; the worker
 * carries it out (eline_sched_run.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eline_app.h"
#include "eline_sched.h"
#include "ofcd_log.h"
#include "store.h"

/* A schedule's new id: 32 hex digits, as Kytos' uuid4().hex. */
static int new_sched_id(char out[ELINE_SCHED_ID_MAX])
{
    return eline_random_hex(out, 32);
}

/* The EVC holding schedule id (under lock), and the schedule's index. */
static struct eline_rec *holder(struct eline_app *a, const char *id, size_t *at)
{
    for (size_t i = 0; i < a->n_evcs; i++) {
        size_t k;
        json_t *s;
        json_array_foreach(a->evcs[i]->req.circuit_scheduler, k, s)
            if (json_is_string(json_object_get(s, "id")) &&
                strcmp(json_string_value(json_object_get(s, "id")), id) == 0) {
                *at = k;
                return a->evcs[i];
            }
    }
    return NULL;
}

unsigned eline_sched_ids(struct eline_app *a, json_t *list, const char *evc, json_t **out)
{
    size_t i, j, at;
    json_t *s;

    json_array_foreach(list, i, s) {
        char id[ELINE_SCHED_ID_MAX];
        if (!json_is_object(s) || json_object_get(s, "id"))
            continue;                   /* read (and refused) with the request */
        if (new_sched_id(id) < 0 || json_object_set_new(s, "id", json_string(id)) < 0)
            return rest_ext_error(out, 500, "no schedule id could be made");
    }
    json_array_foreach(list, i, s) {
        const char *id = json_string_value(json_object_get(s, "id"));
        if (!id)
            continue;
        for (j = 0; j < i; j++) {
            const char *before = json_string_value(json_object_get(json_array_get(list, j), "id"));
            if (before && strcmp(before, id) == 0)
                return rest_ext_error(out, 409, "schedule_id %s given twice", id);
        }
        pthread_mutex_lock(&a->lock);
        const struct eline_rec *r = holder(a, id, &at);
        bool other = r && (!evc || strcmp(r->id, evc) != 0);
        pthread_mutex_unlock(&a->lock);
        if (other)
            return rest_ext_error(out, 409, "schedule_id %s exists", id);
    }
    return 0;
}

static unsigned list_all(struct eline_app *a, json_t **out)
{
    json_t *v = json_array();
    size_t live = 0;

    pthread_mutex_lock(&a->lock);
    for (size_t i = 0; v && i < a->n_evcs; i++) {
        const struct eline_rec *r = a->evcs[i];
        size_t k;
        json_t *s;
        if (r->archived)
            continue;
        live++;
        json_array_foreach(r->req.circuit_scheduler, k, s)
            json_array_append_new(v, json_pack("{s:O, s:s, s:O}", "schedule_id",
                                               json_object_get(s, "id"), "circuit_id", r->id,
                                               "schedule", s));
    }
    pthread_mutex_unlock(&a->lock);
    if (!v)
        return rest_ext_error(out, 500, "out of memory");
    if (!live) {                        /* Kytos answers an object when there is no circuit */
        json_decref(v);
        v = json_object();
    }
    *out = v;
    return 200;
}


/* r's circuit_scheduler becomes list (stolen), read as a request is, kept.
 * Under the write turn. 0, or the answer's status with *out set. */
static unsigned replace_list(struct eline_app *a, struct eline_rec *r, json_t *list, json_t **out)
{
    char err[512] = "";
    struct eline_rec *n = NULL;

    pthread_mutex_lock(&a->lock);
    json_t *merged = json_deep_copy(r->request);
    pthread_mutex_unlock(&a->lock);
    if (!merged || json_object_set_new(merged, "circuit_scheduler", list) < 0) {
        json_decref(merged);
        if (!merged)
            json_decref(list);
        return rest_ext_error(out, 500, "out of memory");
    }
    int rc = eline_rec_new(merged, &n, err, sizeof(err));
    if (rc == 0 && (rc = eline_req_check_times(&n->req, err, sizeof(err))) < 0)
        eline_rec_free(n);
    if (rc < 0)
        return rc == -EINVAL ? rest_ext_error(out, 400, "%s", err)
                             : rest_ext_error(out, 500, "out of memory");
    pthread_mutex_lock(&a->lock);
    eline_rec_swap_request(r, n);
    pthread_mutex_unlock(&a->lock);
    if ((rc = eline_rec_save(a, r)) < 0) {
        /* Not kept: not run either (the answer says it was not made). An
         * outcome not known is read back from the store by a cluster's
         * copies and taken by this node at its next change. */
        pthread_mutex_lock(&a->lock);
        eline_rec_swap_request(r, n);   /* back */
        pthread_mutex_unlock(&a->lock);
        eline_rec_free(n);
        return rest_ext_error(out, rc == -ETIME ? 504 : 503, "circuit %s: its schedules %s: "
                              "%s", r->id, rc == -ETIME ? "may not be kept" : "not kept",
                              store_strerror(rc));
    }
    eline_rec_free(n);                  /* with the old request */
    return 0;
}

static json_t *body_of(const struct rest_ext_req *q, json_t **out, unsigned *st)
{
    return eline_body_object(q, "The request body is not a JSON object.", out, st);
}

/* A schedule of the body checked, its id set (given, or made). New
 * reference; NULL with the answer in *out. */
static json_t *schedule_of(json_t *s, const char *keep_id, json_t **out, unsigned *st)
{
    struct eline_sched parsed;
    char err[256], id[ELINE_SCHED_ID_MAX];

    if (eline_sched_parse(s, "schedule", &parsed, err, sizeof(err)) < 0) {
        *st = rest_ext_error(out, 400, "The request body contains invalid API data. %s", err);
        return NULL;
    }
    json_t *copy = json_deep_copy(s);
    if (keep_id)
        snprintf(id, sizeof(id), "%s", keep_id);
    else if (parsed.id[0])
        snprintf(id, sizeof(id), "%s", parsed.id);
    else if (new_sched_id(id) < 0) {
        json_decref(copy);
        *st = rest_ext_error(out, 500, "no schedule id could be made");
        return NULL;
    }
    if (!copy || json_object_set_new(copy, "id", json_string(id)) < 0 ||
        (!json_object_get(copy, "action") &&
         json_object_set_new(copy, "action", json_string("create")) < 0)) {
        json_decref(copy);
        *st = rest_ext_error(out, 500, "out of memory");
        return NULL;
    }
    return copy;
}

void eline_sched_changed(struct eline_app *a)
{
    pthread_mutex_lock(&a->watch.lock);
    a->watch.sched_changed = true;
    pthread_cond_signal(&a->watch.cv);
    pthread_mutex_unlock(&a->watch.lock);
}

static unsigned create_one(struct eline_app *a, const struct rest_ext_req *q, json_t **out)
{
    unsigned st;
    json_t *b = body_of(q, out, &st);
    if (!b)
        return st;
    const char *cid = json_string_value(json_object_get(b, "circuit_id"));
    json_t *s = json_object_get(b, "schedule");
    if (!cid || !json_is_object(s)) {
        json_decref(b);
        return rest_ext_error(out, 400, "The request body contains invalid API data. '%s' is "
                              "a required property", !cid ? "circuit_id" : "schedule");
    }
    json_t *sched = schedule_of(s, NULL, out, &st);
    if (!sched) {
        json_decref(b);
        return st;
    }
    if (!eline_write_lock_leading(a)) {
        json_decref(sched);
        json_decref(b);
        return eline_not_leader(a, out);
    }
    size_t at;
    pthread_mutex_lock(&a->lock);
    struct eline_rec *r = eline_find(a, cid);
    bool archived = r && r->archived;
    bool taken = holder(a, json_string_value(json_object_get(sched, "id")), &at) != NULL;
    json_t *list = r && !archived && !taken ? json_deep_copy(r->req.circuit_scheduler) : NULL;
    pthread_mutex_unlock(&a->lock);
    if (!r)
        st = rest_ext_error(out, 404, "circuit_id %s not found", cid);
    else if (archived)
        st = rest_ext_error(out, 403, "Circuit %s is archived. Update is forbidden.", cid);
    else if (taken)
        st = rest_ext_error(out, 409, "schedule_id %s exists",
                            json_string_value(json_object_get(sched, "id")));
    else if (!(list = list ? list : json_array()) || json_array_append(list, sched) < 0)
        st = rest_ext_error(out, 500, "out of memory");
    else
        st = replace_list(a, r, json_incref(list), out);
    json_decref(list);
    eline_write_unlock(a);
    if (!st)
        LOG_INFO("eline", "EVC %s: schedule %s added", cid,
                 json_string_value(json_object_get(sched, "id")));
    json_decref(b);                     /* cid's */
    if (st) {
        json_decref(sched);
        return st;
    }
    eline_sched_changed(a);
    *out = sched;
    return 201;
}

/* PATCH (body: the new schedule) or DELETE (body NULL) of schedule id. */
static unsigned change_one(struct eline_app *a, const char *id, json_t *b, json_t **out)
{
    unsigned st = 0;
    json_t *sched = NULL;
    if (!eline_write_lock_leading(a))
        return eline_not_leader(a, out);
    size_t at = 0;
    pthread_mutex_lock(&a->lock);
    struct eline_rec *r = holder(a, id, &at);
    bool archived = r && r->archived;
    json_t *list = r && !archived ? json_deep_copy(r->req.circuit_scheduler) : NULL;
    pthread_mutex_unlock(&a->lock);
    /* Kytos' order: an unknown schedule before a bad body. */
    if (!r)
        st = rest_ext_error(out, 404, "schedule_id %s not found", id);
    else if (b && !(sched = schedule_of(b, id, out, &st)))
        ;                               /* 400 (or 500) said */
    else if (archived)
        st = rest_ext_error(out, 403, "Circuit %s is archived. Update is forbidden.", r->id);
    else if (!list || (sched ? json_array_set(list, at, sched) : json_array_remove(list, at)) < 0)
        st = rest_ext_error(out, 500, "out of memory");
    else
        st = replace_list(a, r, json_incref(list), out);
    json_decref(list);
    eline_write_unlock(a);
    if (st) {
        json_decref(sched);
        return st;
    }
    LOG_INFO("eline", "schedule %s %s", id, sched ? "changed" : "removed");
    eline_sched_changed(a);
    *out = sched ? sched : json_string("Schedule removed");
    return *out ? 200 : rest_ext_error(out, 500, "out of memory");
}

unsigned eline_sched_route(struct eline_app *a, const struct rest_ext_req *q, const char *id,
                           json_t **out)
{
    bool get = strcmp(q->method, "GET") == 0;
    if (!*id) {
        if (get)
            return list_all(a, out);
        if (strcmp(q->method, "POST") == 0)
            return create_one(a, q, out);
        return rest_ext_error(out, 405, "method %s not allowed on %s", q->method, q->path);
    }
    if (strcmp(q->method, "DELETE") == 0)
        return change_one(a, id, NULL, out);
    if (strcmp(q->method, "PATCH") != 0)
        return rest_ext_error(out, 405, "method %s not allowed on %s", q->method, q->path);
    unsigned st;
    json_t *b = body_of(q, out, &st);
    if (!b)
        return st;
    st = change_one(a, id, b, out);
    json_decref(b);
    return st;
}
