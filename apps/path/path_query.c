/* path_query: see path_query.h. */
#include "path_query.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int path_constraint_kind(const char *name, struct path_constraint *out)
{
    memset(out, 0, sizeof(*out));
    if (strcmp(name, "not_ownership") == 0) {
        out->kind = PATH_CONS_NOT_OWNER;
        out->m = PATH_OWNERSHIP;
        return 0;
    }
    if (path_metric_by_name(name, &out->m) < 0) {
        out->kind = PATH_CONS_NONE;
        return -ENOENT;
    }
    switch (out->m) {
    case PATH_BANDWIDTH:
    case PATH_RELIABILITY:
        out->kind = PATH_CONS_AT_LEAST;
        break;
    case PATH_OWNERSHIP:
        out->kind = PATH_CONS_OWNER;
        break;
    default:
        out->kind = PATH_CONS_AT_MOST;
        break;
    }
    return 0;
}

static bool owns(const struct path_attrs *at, const char *name)
{
    for (size_t i = 0; i < at->n_owners; i++)
        if (strcmp(at->owners[i], name) == 0)
            return true;
    return false;
}

int path_constraint_passes(const struct path_constraint *c, const struct path_edge *e)
{
    const struct path_attrs *at = &e->at;

    if (c->kind == PATH_CONS_NONE)
        return 1;
    if (at->bad & 1u << c->m)
        return -EDOM;
    if (!(at->has & 1u << c->m))
        return 1;                       /* a link without it, a switch's own edge */
    switch (c->kind) {
    case PATH_CONS_AT_LEAST:
        return at->v[c->m] >= c->v;
    case PATH_CONS_AT_MOST:
        return at->v[c->m] <= c->v;
    case PATH_CONS_OWNER:
        return owns(at, c->owner);
    case PATH_CONS_NOT_OWNER:
        for (size_t i = 0; i < c->n_names; i++)
            if (owns(at, c->names[i]))
                return 0;
        return 1;
    default:
        return 1;
    }
}

/* ok[e] &= e passes each of cs[0..n). */
static int filter(const struct path_graph *g, const struct path_constraint *cs, size_t n,
                  bool *ok, struct path_query_err *err)
{
    for (size_t e = 0; e < g->n_edges; e++)
        for (size_t i = 0; ok[e] && i < n; i++) {
            int rc = path_constraint_passes(&cs[i], &g->edges[e]);
            if (rc < 0) {
                *err = (struct path_query_err){(uint32_t)e, cs[i].m};
                return rc;
            }
            ok[e] = rc;
        }
    return 0;
}

static int ksp(const struct path_graph *g, const struct path_query *q, const bool *ok,
               uint32_t flex, struct path_list *out, struct path_query_err *err)
{
    size_t from = out->n;
    uint32_t bad;
    int rc = path_ksp(g, ok, q->weight, q->src, q->dst, q->k, out, &bad);

    if (rc == -EDOM) {
        *err = (struct path_query_err){bad, (enum path_metric)q->weight};
        return rc;
    }
    for (size_t i = from; i < out->n; i++)
        out->p[i].flex = flex;
    return rc;
}

/* Each combination of `size` of the n flexible constraints, in order
 * (0 1, 0 2, 1 2 for two of three): stops when the answer holds exactly k. */
static int combinations(const struct path_graph *g, const struct path_query *q,
                        const bool *base, bool *ok, unsigned size, struct path_list *out,
                        struct path_query_err *err, bool *full)
{
    unsigned idx[PATH_QUERY_MAX_FLEX];
    size_t n = q->n_flexible;

    for (unsigned i = 0; i < size; i++)
        idx[i] = i;
    for (;;) {
        struct path_constraint pick[PATH_QUERY_MAX_FLEX];
        uint32_t flex = 0;
        for (unsigned i = 0; i < size; i++) {
            pick[i] = q->flexible[idx[i]];
            flex |= 1u << idx[i];
        }
        memcpy(ok, base, g->n_edges * sizeof(*ok));
        int rc = filter(g, pick, size, ok, err);
        if (rc == 0)
            rc = ksp(g, q, ok, flex, out, err);
        if (rc < 0)
            return rc;
        if (out->n == q->k) {
            *full = true;
            return 0;
        }
        /* the next combination */
        int i = (int)size - 1;
        while (i >= 0 && idx[i] == n - size + (unsigned)i)
            i--;
        if (i < 0)
            return 0;
        idx[i]++;
        for (unsigned j = (unsigned)i + 1; j < size; j++)
            idx[j] = idx[j - 1] + 1;
    }
}

static int constrained(const struct path_graph *g, const struct path_query *q,
                       struct path_list *out, struct path_query_err *err)
{
    size_t ne = g->n_edges ? g->n_edges : 1;
    bool *base = malloc(ne * sizeof(*base)), *ok = malloc(ne * sizeof(*ok));
    int rc = 0;

    if (!base || !ok) {
        rc = -ENOMEM;
        goto out;
    }
    for (size_t e = 0; e < g->n_edges; e++)
        base[e] = !q->edge_ok || q->edge_ok[e];
    if ((rc = filter(g, q->mandatory, q->n_mandatory, base, err)) < 0)
        goto out;
    unsigned n = (unsigned)q->n_flexible, low = q->min_hits < n ? q->min_hits : n;
    bool full = false;
    for (unsigned size = n + 1; size-- > low && !full;) {
        if ((rc = combinations(g, q, base, ok, size, out, err, &full)) < 0 || out->n)
            break;
    }
out:
    free(base);
    free(ok);
    return rc;
}

int path_query_run(const struct path_graph *g, const struct path_query *q, struct path_list *out,
                   struct path_query_err *err)
{
    int rc;

    if (q->n_flexible > PATH_QUERY_MAX_FLEX)
        return -E2BIG;
    if (q->n_mandatory || q->n_flexible)
        rc = constrained(g, q, out, err);
    else
        rc = ksp(g, q, q->edge_ok, 0, out, err);
    if (rc < 0 || !q->has_max_cost)
        return rc;
    size_t kept = 0;
    for (size_t i = 0; i < out->n; i++) {
        if (out->p[i].cost <= q->max_cost)
            out->p[kept++] = out->p[i];
        else
            free(out->p[i].nodes);
    }
    out->n = kept;
    return 0;
}
