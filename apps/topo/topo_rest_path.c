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
#include "topo_paths.h"
#include "topo_rest_priv.h"

#define INVALID "The request body contains invalid API data. "
/* undesired_links, and each not_ownership: at most this many (Kytos: no bound). */
#define PF_MAX_LIST 1024
#define PF_MAX_LIST_TEXT "1024"

struct pf_req {
    const char *src, *dst;
    int weight;
    unsigned k;
    bool has_max_cost;
    double max_cost;
    json_t *undesired, *mandatory, *flexible;
    unsigned min_hits;
    struct path_constraint mand[16], flex[PATH_QUERY_MAX_FLEX];
    const char *flex_name[PATH_QUERY_MAX_FLEX];
    size_t n_mand, n_flex;
    const char **names;             /* not_ownership lists, pointing into the body */
    size_t n_names;
};

/* The bounds Kytos' Attributes schema puts on each number (inclusive). */
static const struct {
    const char *name;
    double lo, hi;
} metric_bounds[] = {
    {"bandwidth", 0.1, INFINITY}, {"utilization", 0, 100}, {"priority", 0, INFINITY},
    {"reliability", 1, 100},      {"delay", 0.1, INFINITY},
};

static unsigned invalid(json_t **out, const char *field, const char *why)
{
    return rest_ext_error(out, 400, INVALID "%s: %s", field, why);
}

/* x, the value of field: a number (an integer when integer) in [lo, hi]. */
static unsigned number_value(const json_t *x, const char *field, double lo, double hi,
                             bool integer, double *v, json_t **out)
{
    char why[128];

    if (integer ? !json_is_integer(x) : !json_is_number(x))
        return invalid(out, field, integer ? "not of type 'integer'" : "not of type 'number'");
    *v = json_number_value(x);
    if (*v < lo) {
        snprintf(why, sizeof(why), "%g is less than the minimum of %g", *v, lo);
        return invalid(out, field, why);
    }
    if (*v > hi) {
        snprintf(why, sizeof(why), "%g is greater than the maximum of %g", *v, hi);
        return invalid(out, field, why);
    }
    return 0;
}

static unsigned number_field(json_t *body, const char *key, double lo, double hi, bool integer,
                             bool *given, double *v, json_t **out)
{
    json_t *x = json_object_get(body, key);

    *given = x != NULL;
    return x ? number_value(x, key, lo, hi, integer, v, out) : 0;
}

/* One metric of mandatory_metrics or flexible_metrics. */
static unsigned metric(struct pf_req *r, const char *obj, const char *key, json_t *v,
                       struct path_constraint *c, json_t **out)
{
    char field[128];
    snprintf(field, sizeof(field), "%s.%s", obj, key);
    path_constraint_kind(key, c);
    if (c->kind == PATH_CONS_OWNER) {
        if (!json_is_string(v))
            return invalid(out, field, "not of type 'string'");
        c->owner = json_string_value(v);
    } else if (c->kind == PATH_CONS_NOT_OWNER) {
        size_t i;
        json_t *x;
        if (!json_is_array(v))
            return invalid(out, field, "not of type 'array'");
        if (json_array_size(v) > PF_MAX_LIST)
            return invalid(out, field, "at most " PF_MAX_LIST_TEXT " names");
        c->names = r->names + r->n_names;
        json_array_foreach(v, i, x) {
            if (!json_is_string(x))
                return invalid(out, field, "an item is not of type 'string'");
            r->names[r->n_names++] = json_string_value(x);
        }
        c->n_names = json_array_size(v);
    } else if (c->kind != PATH_CONS_NONE) {
        for (size_t i = 0; i < sizeof(metric_bounds) / sizeof(metric_bounds[0]); i++)
            if (strcmp(metric_bounds[i].name, key) == 0)
                return number_value(v, field, metric_bounds[i].lo, metric_bounds[i].hi, false,
                                    &c->v, out);
    }
    return 0;
}

static unsigned metrics(struct pf_req *r, json_t *body, const char *key, json_t **obj,
                        struct path_constraint *cs, const char **names, size_t max, size_t *n,
                        json_t **out)
{
    const char *k;
    json_t *v;

    *obj = json_object_get(body, key);
    if (!*obj)
        return 0;
    if (!json_is_object(*obj))
        return invalid(out, key, "not of type 'object'");
    if (json_object_size(*obj) > max) {
        char why[96];
        snprintf(why, sizeof(why), "at most %zu metrics are weighed", max);
        return invalid(out, key, why);
    }
    json_object_foreach(*obj, k, v) {
        unsigned st = metric(r, key, k, v, &cs[*n], out);
        if (st)
            return st;
        if (names)
            names[*n] = k;
        (*n)++;
    }
    return 0;
}

static unsigned parse(json_t *body, struct pf_req *r, json_t **out)
{
    static const char *const required[] = {"source", "destination"};
    bool given;
    double v;
    unsigned st;

    for (unsigned i = 0; i < 2; i++) {
        json_t *x = json_object_get(body, required[i]);
        if (!x)
            return rest_ext_error(out, 400, INVALID "'%s' is a required property", required[i]);
        if (!json_is_string(x))
            return invalid(out, required[i], "not of type 'string'");
        *(i ? &r->dst : &r->src) = json_string_value(x);
    }
    r->weight = PATH_KSP_HOP;
    json_t *a = json_object_get(body, "spf_attribute");
    if (a) {
        const char *s = json_string_value(a);
        if (!json_is_string(a))
            return invalid(out, "spf_attribute", "not of type 'string'");
        if (strcmp(s, "delay") == 0)
            r->weight = PATH_DELAY;
        else if (strcmp(s, "priority") == 0)
            r->weight = PATH_PRIORITY;
        else if (strcmp(s, "hop") != 0)
            return rest_ext_error(out, 400, INVALID "spf_attribute: '%s' is not one of "
                                  "['hop', 'delay', 'priority']", s);
    }
    r->k = 2;
    if ((st = number_field(body, "spf_max_paths", 1, 10, true, &given, &v, out)))
        return st;
    if (given)
        r->k = (unsigned)v;
    if ((st = number_field(body, "spf_max_path_cost", 1, INFINITY, false, &r->has_max_cost,
                           &r->max_cost, out)))
        return st;
    if ((st = number_field(body, "minimum_flexible_hits", 0, 6, true, &given, &v, out)))
        return st;
    r->min_hits = given ? (unsigned)v : 0;
    r->undesired = json_object_get(body, "undesired_links");
    if (r->undesired) {
        size_t i;
        json_t *x;
        if (!json_is_array(r->undesired))
            return invalid(out, "undesired_links", "not of type 'array'");
        /* Each is looked up among the links: bounded, so one body cannot
         * hold a REST thread for seconds. */
        if (json_array_size(r->undesired) > PF_MAX_LIST)
            return invalid(out, "undesired_links", "at most " PF_MAX_LIST_TEXT " link ids");
        json_array_foreach(r->undesired, i, x)
            if (!json_is_string(x))
                return invalid(out, "undesired_links", "an item is not of type 'string'");
    }
    /* not_ownership names of both objects, pointing into the body */
    size_t n_names = 0;
    const char *k;
    json_t *m;
    for (unsigned o = 0; o < 2; o++)
        json_object_foreach(json_object_get(body, o ? "flexible_metrics" : "mandatory_metrics"),
                            k, m)
            n_names += json_is_array(m) ? json_array_size(m) : 0;
    if (!(r->names = malloc((n_names + 1) * sizeof(*r->names))))
        return rest_ext_error(out, 500, "out of memory");
    if ((st = metrics(r, body, "mandatory_metrics", &r->mandatory, r->mand, NULL, 16, &r->n_mand,
                      out)))
        return st;
    return metrics(r, body, "flexible_metrics", &r->flexible, r->flex, r->flex_name,
                   PATH_QUERY_MAX_FLEX, &r->n_flex, out);
}

static json_t *cost_json(double c)
{
    return c == floor(c) && fabs(c) < 9e15 ? json_integer((json_int_t)c) : json_real(c);
}

/* Kytos' metrics of a path: the mandatory ones, then the flexible ones it
 * met (a flexible one of the same name wins). */
static json_t *metrics_json(const struct pf_req *r, uint32_t flex)
{
    json_t *m = r->mandatory ? json_deep_copy(r->mandatory) : json_object();
    for (size_t i = 0; m && i < r->n_flex; i++)
        if (flex & 1u << i)
            json_object_set(m, r->flex_name[i], json_object_get(r->flexible, r->flex_name[i]));
    return m;
}

static unsigned answer(const struct topo_path_build *b, const struct pf_req *r,
                       const struct path_list *l, json_t **out)
{
    json_t *paths = json_array();
    bool constrained = r->n_mand || r->n_flex;

    for (size_t i = 0; paths && i < l->n; i++) {
        json_t *hops = json_array();
        for (size_t j = 0; hops && j < l->p[i].n; j++) {
            char id[TOPO_END_ID_LEN];
            topo_path_node_id(b, l->p[i].nodes[j], id);
            json_array_append_new(hops, json_string(id));
        }
        json_t *p = json_pack("{s:o}", "hops", hops);
        if (p && constrained)
            json_object_set_new(p, "metrics", metrics_json(r, l->p[i].flex));
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
    bool *ok = NULL;

    if (src < 0 || dst < 0) {
        c->st = answer(b, r, &l, out);
        return 0;
    }
    if (json_array_size(r->undesired)) {
        if (!(ok = malloc((b->g.n_edges ? b->g.n_edges : 1) * sizeof(*ok)))) {
            c->st = rest_ext_error(out, 500, "out of memory");
            return 0;
        }
        memset(ok, 1, b->g.n_edges * sizeof(*ok));
        size_t i;
        json_t *x;
        json_array_foreach(r->undesired, i, x)
            topo_path_unwanted(b, json_string_value(x), ok);
    }
    struct path_query q = {.src = (uint32_t)src, .dst = (uint32_t)dst, .weight = r->weight,
                           .k = r->k, .has_max_cost = r->has_max_cost, .max_cost = r->max_cost,
                           .edge_ok = ok, .mandatory = r->mand, .n_mandatory = r->n_mand,
                           .flexible = r->flex, .n_flexible = r->n_flex, .min_hits = r->min_hits};
    struct path_query_err err;
    int rc = path_query_run(&b->g, &q, &l, &err);
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
    free(ok);
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
    free(r.names);
    json_decref(body);
    return st;
}
