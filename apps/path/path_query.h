/*
 * path_query: a pathfinder v3 question on a path_graph — k shortest paths
 * between two nodes under constraints, answered as Kytos-ng's pathfinder
 * answers it.
 *
 * Constraints filter edges: a link passes a numeric one when its metric is
 * at least (bandwidth, reliability) or at most (priority, utilization,
 * delay) the value asked; `ownership` when the name asked is one of its
 * owners; `not_ownership` when none of its owners is among the names
 * asked. A link without the metric, and a switch's own edge, passes every
 * constraint. A constraint of a name pathfinder does not know filters
 * nothing (it still counts among the flexible ones).
 *
 * Unconstrained (no mandatory and no flexible constraint): the k shortest
 * paths. Constrained: the edges passing every mandatory constraint; then,
 * from all n flexible constraints down to min_hits of them, each
 * combination of that many in the order given: the k shortest paths on the
 * edges also passing the combination, appended (each path tagged with the
 * combination, path_found.flex). The answer is complete as soon as it holds
 * exactly k paths, or at the end of the first size that found any — so, as
 * Kytos', it may hold more than k, or a path twice under two combinations.
 * Last, paths costing more than max_cost (when set) are dropped.
 *
 * Pure. Errors: -EDOM with *err saying which edge and metric (a link's
 * metric of the wrong type, or a negative weight), -EINVAL (bad k or
 * node), -E2BIG (more flexible
 * constraints than PATH_QUERY_MAX_FLEX), -ENOMEM.
 */
#ifndef OFCD_PATH_QUERY_H
#define OFCD_PATH_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "path_graph.h"
#include "path_ksp.h"

#define PATH_QUERY_MAX_FLEX 8

enum path_cons_kind {
    PATH_CONS_AT_LEAST,             /* bandwidth, reliability */
    PATH_CONS_AT_MOST,              /* priority, utilization, delay */
    PATH_CONS_OWNER,                /* ownership */
    PATH_CONS_NOT_OWNER,            /* not_ownership */
    PATH_CONS_NONE,                 /* a name pathfinder does not filter by */
};

struct path_constraint {
    enum path_cons_kind kind;
    enum path_metric m;             /* AT_LEAST, AT_MOST */
    double v;                       /* AT_LEAST, AT_MOST */
    const char *owner;              /* OWNER */
    const char *const *names;       /* NOT_OWNER: n_names of them */
    size_t n_names;
};

struct path_query {
    uint32_t src, dst;
    int weight;                     /* PATH_KSP_HOP, PATH_DELAY or PATH_PRIORITY */
    unsigned k;
    bool has_max_cost;
    double max_cost;
    const bool *edge_ok;            /* NULL: every edge (else undesired links removed) */
    const struct path_constraint *mandatory;
    size_t n_mandatory;
    const struct path_constraint *flexible;
    size_t n_flexible;
    unsigned min_hits;
};

struct path_query_err {
    uint32_t edge;                  /* the edge at fault */
    enum path_metric m;
};

/* The constraint a Kytos metric name makes (kind and m set; the values are
 * the caller's): -ENOENT for a name it does not filter by (kind NONE). */
int path_constraint_kind(const char *name, struct path_constraint *out);

/* Does edge e pass c: 1 or 0; -EDOM when its metric is of the wrong type. */
int path_constraint_passes(const struct path_constraint *c, const struct path_edge *e);

int path_query_run(const struct path_graph *g, const struct path_query *q, struct path_list *out,
                   struct path_query_err *err);

#endif
