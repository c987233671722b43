/* eline_meta: an EVC's metadata, as Kytos-ng's mef_eline serves it:
 *   GET    evc/{id}/metadata          {"metadata": {...}}
 *   POST   evc/{id}/metadata          an object's keys added (replacing):
 *                                     201 "Operation successful"
 *   DELETE evc/{id}/metadata/{key}    200 "Operation successful" (a key
 *                                     not there too)
 *   POST   evc/metadata               {"circuit_ids": [...], keys...}: to
 *                                     each; 404 listing the ids not found
 *                                     (the others changed)
 *   DELETE evc/metadata/{key}         {"circuit_ids": [...]}: from each
 * and the list's filter GET evc/?metadata.KEY=VALUE (eline_meta_match).
 * The metadata is the request's own member, kept with the EVC's record;
 * nothing is laid again for it. See eline_app.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "eline_app.h"
#include "ofcd_log.h"

/* add (an object's keys) into, or key out of, r's metadata, kept. A new
 * object takes the old one's place: answers being written hold the old
 * one (eline_rec_dict, GET .../metadata), which never changes. Under
 * write_lock. */
static int change(struct eline_app *a, struct eline_rec *r, json_t *add, const char *key)
{
    pthread_mutex_lock(&a->lock);
    json_t *old = json_object_get(r->request, "metadata");
    json_t *m = json_is_object(old) ? json_copy(old) : json_object();
    int rc = !m ? -ENOMEM : add ? (json_object_update(m, add) < 0 ? -ENOMEM : 0)
                                : (json_object_del(m, key), 0);
    if (rc == 0 && json_object_set(r->request, "metadata", m) < 0)
        rc = -ENOMEM;
    if (rc == 0)
        r->req.metadata = m;            /* held by the request now */
    json_decref(m);
    pthread_mutex_unlock(&a->lock);
    if (rc == 0 && (rc = eline_rec_save(a, r)) < 0)
        LOG_ERR("eline", "EVC %s: its metadata not kept: %s", r->id, strerror(-rc));
    return rc;
}

static struct eline_rec *live(struct eline_app *a, const char *id)
{
    pthread_mutex_lock(&a->lock);
    struct eline_rec *r = eline_find(a, id);
    if (r && r->archived)
        r = NULL;
    pthread_mutex_unlock(&a->lock);
    return r;
}

static unsigned done(json_t **out, unsigned status)
{
    *out = json_string("Operation successful");
    return status;
}

static json_t *body_object(const struct rest_ext_req *q, json_t **out, unsigned *st)
{
    return eline_body_object(q, "Invalid metadata value: the body is not an object", out, st);
}

static unsigned one(struct eline_app *a, const struct rest_ext_req *q, const char *id,
                    const char *key, json_t **out)
{
    unsigned st = 0;
    json_t *b = NULL;

    if (strcmp(q->method, "GET") == 0 && !key) {
        pthread_mutex_lock(&a->lock);
        struct eline_rec *r = eline_find(a, id);
        json_t *m = r ? json_object_get(r->request, "metadata") : NULL;
        *out = !r ? NULL : m ? json_pack("{s:O}", "metadata", m)
                             : json_pack("{s:{}}", "metadata");
        pthread_mutex_unlock(&a->lock);
        if (!r)
            return rest_ext_error(out, 404, "circuit_id %s not found.", id);
        return *out ? 200 : rest_ext_error(out, 500, "out of memory");
    }
    bool add = strcmp(q->method, "POST") == 0 && !key;
    if (!add && !(strcmp(q->method, "DELETE") == 0 && key))
        return rest_ext_error(out, 405, "method %s not allowed on %s", q->method, q->path);
    if (add && !(b = body_object(q, out, &st)))
        return st;
    if (!eline_write_lock_leading(a)) {
        json_decref(b);
        return eline_not_leader(a, out);
    }
    struct eline_rec *r = live(a, id);
    int rc = r ? change(a, r, b, key) : 0;
    eline_write_unlock(a);
    json_decref(b);
    if (!r)
        return rest_ext_error(out, 404, "circuit_id %s not found.", id);
    if (rc < 0)
        return rest_ext_error(out, 503, "the metadata could not be kept: %s", strerror(-rc));
    return done(out, add ? 201 : 200);
}

static unsigned bulk(struct eline_app *a, const struct rest_ext_req *q, const char *key,
                     json_t **out)
{
    unsigned st = 0;
    bool add = strcmp(q->method, "POST") == 0 && !key;

    if (!add && !(strcmp(q->method, "DELETE") == 0 && key))
        return rest_ext_error(out, 405, "method %s not allowed on %s", q->method, q->path);
    json_t *b = body_object(q, out, &st);
    if (!b)
        return st;
    json_t *ids = json_incref(json_object_get(b, "circuit_ids"));
    json_object_del(b, "circuit_ids");
    size_t i;
    json_t *v;
    bool ok = json_is_array(ids);
    json_array_foreach(ids, i, v) ok = ok && json_is_string(v);
    if (!ok) {
        json_decref(ids);
        json_decref(b);
        return rest_ext_error(out, 400, "The request body contains invalid API data. "
                              "'circuit_ids' is a required property: an array of strings");
    }
    json_t *missing = json_array();
    int rc = missing ? 0 : -ENOMEM;
    if (!eline_write_lock_leading(a)) {
        json_decref(missing);
        json_decref(ids);
        json_decref(b);
        return eline_not_leader(a, out);
    }
    json_array_foreach(ids, i, v) {
        struct eline_rec *r = live(a, json_string_value(v));
        if (!r)
            json_array_append(missing, v);
        else if (rc == 0)
            rc = change(a, r, add ? b : NULL, key);
    }
    eline_write_unlock(a);
    json_decref(ids);
    json_decref(b);
    if (rc < 0) {
        json_decref(missing);
        return rest_ext_error(out, 503, "the metadata could not be kept: %s", strerror(-rc));
    }
    if (json_array_size(missing)) {
        *out = json_pack("{s:i, s:o}", "code", 404, "description", missing);
        return 404;
    }
    json_decref(missing);
    return done(out, add ? 201 : 200);
}

unsigned eline_meta_route(struct eline_app *a, const struct rest_ext_req *q, const char *id,
                          const char *key, json_t **out)
{
    return id ? one(a, q, id, key, out) : bulk(a, q, key, out);
}

/* A query's text as Kytos reads it: an integer, true/false/null, or the
 * text. New reference. */
static json_t *query_value(const char *s)
{
    char *end;
    long long v = strtoll(s, &end, 10);

    if (*s && !*end)
        return json_integer(v);
    if (strcasecmp(s, "true") == 0)
        return json_true();
    if (strcasecmp(s, "false") == 0)
        return json_false();
    if (strcasecmp(s, "null") == 0)
        return json_null();
    return json_string(s);
}

bool eline_meta_match(const struct eline_rec *r, const char *path, const char *value)
{
    json_t *at = json_object_get(r->request, "metadata");
    char part[256];

    /* "a.b": metadata's a's b, as Mongo reads a dotted path. */
    while (at && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof(part))
            return false;
        memcpy(part, path, n);
        part[n] = '\0';
        at = json_is_object(at) ? json_object_get(at, part) : NULL;
        path += n + (dot != NULL);
    }
    if (!at)
        return false;
    json_t *want = query_value(value);
    bool eq = json_equal(at, want);
    /* An array matches when one of its members does. */
    size_t i;
    json_t *m;
    if (!eq && json_is_array(at))
        json_array_foreach(at, i, m) eq = eq || json_equal(m, want);
    json_decref(want);
    return eq;
}
