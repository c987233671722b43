/*
 * topo_path_build: the topology as Kytos-ng's pathfinder sees it, made into
 * a path_graph (apps/path) from the topology v3 JSON that GET
 * /api/kytos/topology/v3/ answers — so pathfinder reads exactly what a
 * client of the topology reads: switches and interfaces whose status is
 * "UP", links whose status is "UP" with their metadata's bandwidth,
 * reliability, priority, utilization, delay and ownership.
 *
 * A link's ownership is its owners' names: an object's keys, a list's
 * strings, or a string's blank-separated words (Kytos' three forms); null
 * is no ownership. A metric of another type is kept as invalid (a query
 * that needs it fails naming the link). The graph points into the JSON and
 * into b's own copies: both live until topo_path_build_free.
 */
#ifndef OFCD_TOPO_PATH_BUILD_H
#define OFCD_TOPO_PATH_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "path_graph.h"

struct topo_path_build {
    struct path_graph g;
    json_t *topo;                   /* {"topology": {"switches": ..., "links": ...}}, held */
    void **owned;                   /* owner names split from strings, their arrays */
    size_t n_owned, cap_owned;
};

/* Build (and seal) the graph from topo (a reference is taken). 0, -ENOMEM,
 * -E2BIG (past PATH_GRAPH_MAX_NODES). */
int topo_path_build(struct topo_path_build *b, json_t *topo);
void topo_path_build_free(struct topo_path_build *b);

/* The node of a Kytos id: a switch ("00:00:00:00:00:00:00:01") or an
 * interface ("00:00:00:00:00:00:00:01:1"). -ENOENT when not on the graph
 * (unknown, down, or not an id). */
long topo_path_node(const struct topo_path_build *b, const char *id);

/* Mark the edge of link id unusable in ok (one flag per edge): nothing
 * when the link is unknown or not on the graph. */
void topo_path_unwanted(const struct topo_path_build *b, const char *link_id, bool *ok);

/* The Kytos id of node i into out (at least 32 bytes). */
void topo_path_node_id(const struct topo_path_build *b, uint32_t i, char *out, size_t len);

#endif
