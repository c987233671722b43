/*
 * topo_rest_path: Kytos-ng's pathfinder v3 on ofcd —
 * POST /api/kytos/pathfinder/v3/ {"source", "destination", ...}: the
 * shortest paths between two switches or interfaces over the topology's
 * links that are up, with Kytos' body, constraints and answer
 * {"paths": [{"hops": [ids], "cost": n, "metrics": {...}}]}.
 *
 * The body is checked as Kytos' schema checks it (400 "The request body
 * contains invalid API data." and what is wrong, naming the field); an
 * unknown source or destination, or no path, is 200 with no paths (as
 * Kytos). The search runs on the REST thread over the graph the
 * topology keeps (topo_paths.c: made from the same copies GET topology/v3/
 * renders, again only when something changed).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path_query.h"
#include "topo_path_build.h"
#include "topo_path_cons.h"
#include "topo_paths.h"
#include "topo_rest_priv.h"

#define INVALID "The request body contains invalid API data. "

struct pf_req {
    const char *src, *dst;
    unsigned k;
    struct topo_path_cons c;
};

static unsigned invalid(json_t **out, const char *field, const char *why)
{
    return rest_ext_error(out, 400, INVALID "%s: %s", field, why);
}

static unsigned parse(json_t *body, struct pf_req *r, json_t **out)
{
    static const char *const required[] = {"source", "destination"};
    char err[256];

    for (unsigned i = 0; i < 2; i++) {
        json_t *x = json_object_get(body, required[i]);
        if (!x)
            return rest_ext_error(out, 400, INVALID "'%s' is a required property", required[i]);
        if (!json_is_string(x))
            return invalid(out, required[i], "not of type 'string'");
        *(i ? &r->dst : &r->src) = json_string_value(x);
    }
    r->k = 2;
    json_t *k = json_object_get(body, "spf_max_paths");
    if (k) {
        if (!json_is_integer(k))
            return invalid(out, "spf_max_paths", "not of type 'integer'");
        if (json_integer_value(k) < 1 || json_integer_value(k) > 10) {
            snprintf(err, sizeof(err), "%lld is %s", (long long)json_integer_value(k),
                     json_integer_value(k) < 1 ? "less than the minimum of 1"
                                               : "greater than the maximum of 10");
            return invalid(out, "spf_max_paths", err);
        }
        r->k = (unsigned)json_integer_value(k);
    }
    if (json_is_null(json_object_get(body, "spf_attribute")))
        return invalid(out, "spf_attribute", "None is not of type 'string'");
    int rc = topo_path_cons_read(body, "", &r->c, err, sizeof(err));
    if (rc == -ENOMEM)
        return rest_ext_error(out, 500, "out of memory");
    return rc ? rest_ext_error(out, 400, INVALID "%s", err) : 0;
}

static json_t *cost_json(double c)
{
    return c == floor(c) && fabs(c) < 9e15 ? json_integer((json_int_t)c) : json_real(c);
}

/* Kytos' metrics of a path: the mandatory ones, then the flexible ones it
 * met (a flexible one of the same name wins). */
static json_t *metrics_json(const struct topo_path_cons *c, uint32_t flex)
{
    json_t *m = c->mandatory ? json_deep_copy(c->mandatory) : json_object();
    for (size_t i = 0; m && i < c->n_flex; i++)
        if (flex & 1u << i)
            json_object_set(m, c->flex_name[i], json_object_get(c->flexible, c->flex_name[i]));
    return m;
}

static unsigned answer(const struct topo_path_build *b, const struct pf_req *r,
                       const struct path_list *l, json_t **out)
{
    json_t *paths = json_array();
    bool constrained = r->c.n_mand || r->c.n_flex;

    for (size_t i = 0; paths && i < l->n; i++) {
        json_t *hops = json_array();
        for (size_t j = 0; hops && j < l->p[i].n; j++) {
            char id[TOPO_END_ID_LEN];
            topo_path_node_id(b, l->p[i].nodes[j], id);
            json_array_append_new(hops, json_string(id));
        }
        json_t *p = json_pack("{s:o}", "hops", hops);
        if (p && constrained)
            json_object_set_new(p, "metrics", metrics_json(&r->c, l->p[i].flex));
        if (p)
            json_object_set_new(p, "cost", cost_json(l->p[i].cost));
        json_array_append_new(paths, p);
    }
    *out = paths ? json_pack("{s:o}", "paths", paths) : NULL;
    return *out ? 200 : rest_ext_error(out, 500, "out of memory");
}

struct search_ctx {
    struct pf_req *r;
    json_t **out;
    unsigned st;
};

/* On the kept graph (topo_paths_run), its lock held. */
static int search_on(const struct topo_path_build *b, void *arg)
{
    struct search_ctx *c = arg;
    struct pf_req *r = c->r;
    json_t **out = c->out;
    long src = topo_path_node(b, r->src), dst = topo_path_node(b, r->dst);
    struct path_list l = {0};

    if (src < 0 || dst < 0) {
        c->st = answer(b, r, &l, out);
        return 0;
    }
    struct path_query_err err;
    int rc = topo_paths_query(b, &r->c, (uint32_t)src, (uint32_t)dst, r->k, NULL, 0, &l, &err);
    if (rc == -EDOM)
        c->st = rest_ext_error(out, 400, "link %s has invalid metadata \"%s\": %s",
                               b->g.edges[err.edge].at.label ? b->g.edges[err.edge].at.label : "?",
                               path_metric_name(err.m),
                               err.m == PATH_OWNERSHIP ? "expected an object, a list or a string"
                                                       : "expected a number, not negative");
    else if (rc < 0)
        c->st = rest_ext_error(out, 500, "cannot search the paths: %s", strerror(-rc));
    else
        c->st = answer(b, r, &l, out);
    path_list_free(&l);
    return 0;
}

/* On the graph the topology keeps (topo_paths.c): made again only when
 * the topology, an admin flag or any metadata changed, or a second old. */
static unsigned search(struct topo_rest *t, struct pf_req *r, json_t **out)
{
    struct search_ctx c = {r, out, 0};
    int rc = topo_paths_run(t, search_on, &c);

    if (rc < 0)
        return rest_ext_error(out, rc == -E2BIG ? 413 : 500, "cannot make the topology's graph: %s",
                              strerror(-rc));
    return c.st;
}

unsigned topo_rest_pathfinder(void *arg, const struct rest_ext_req *q, json_t **out)
{
    struct topo_rest *t = arg;
    struct pf_req r = {0};
    json_error_t je;

    if (*q->arg)
        return rest_ext_error(out, 404, "no such resource: %s", q->path);
    if (strcmp(q->method, "POST") != 0)
        return rest_ext_error(out, 405, "method %s not allowed on %s", q->method, q->path);
    json_t *body = json_loadb(q->body ? q->body : "", q->body_len, 0, &je);
    if (!body)
        return rest_ext_error(out, 400, "Invalid json: %s", je.text);
    unsigned st = json_is_object(body)
                      ? parse(body, &r, out)
                      : rest_ext_error(out, 400, INVALID "the body is not of type 'object'");
    if (!st)
        st = search(t, &r, out);
    topo_path_cons_free(&r.c);
    json_decref(body);
    return st;
}
