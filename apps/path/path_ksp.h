/*
 * path_ksp: the k shortest loopless paths from one node to another (Yen's
 * algorithm over Dijkstra), as Kytos-ng's pathfinder asks networkx for
 * them: in order of cost, none twice, each one simple (no node twice).
 *
 * The weight of an edge is its metric `weight` (PATH_DELAY, PATH_PRIORITY),
 * 1 where the edge has no such metric (a switch's own edge always), or 1
 * everywhere for PATH_KSP_HOP. A path's cost is the sum of its edges'
 * weights. Equal costs come out in a fixed order (the one found first:
 * lower node indexes first), not necessarily networkx's.
 *
 * A usable edge whose weight metric is invalid (bad, or negative: Dijkstra
 * needs none) fails the search: -EDOM, *bad_edge its index. Pure; the
 * paths are the caller's (path_list_free).
 */
#ifndef OFCD_PATH_KSP_H
#define OFCD_PATH_KSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "path_graph.h"

#define PATH_KSP_HOP ((int)PATH_N_METRICS)
#define PATH_KSP_MAX_K 64

struct path_found {
    uint32_t *nodes;
    size_t n;
    double cost;
    uint32_t flex;                  /* path_query: the flexible constraints it met */
};

struct path_list {
    struct path_found *p;
    size_t n, cap;
};

void path_list_free(struct path_list *l);
/* Append a copy of nodes[0..n). 0 or -ENOMEM. */
int path_list_add(struct path_list *l, const uint32_t *nodes, size_t n, double cost, uint32_t flex);

/*
 * Up to k (1..PATH_KSP_MAX_K) paths src -> dst over the edges edge_ok
 * allows (NULL: all), appended to out. A node no usable edge touches is
 * not on the graph (no path, even to itself) unless edge_ok is NULL.
 * 0 (none found is 0), -EINVAL (bad k or node), -EDOM (an invalid weight:
 * *bad_edge), -ENOMEM.
 */
int path_ksp(const struct path_graph *g, const bool *edge_ok, int weight, uint32_t src,
             uint32_t dst, unsigned k, struct path_list *out, uint32_t *bad_edge);

/* An edge's weight under weight (as path_ksp counts it). */
double path_edge_weight(const struct path_edge *e, int weight);

#endif
