/*
 * topo_path_build: the topology as Kytos-ng's pathfinder sees it, made into
 * a path_graph (apps/path): switches and interfaces whose topology v3 status
 * is "UP", links whose status is "UP" with their metadata's bandwidth,
 * reliability, priority, utilization, delay and ownership. Read from the
 * same copies GET /api/kytos/topology/v3/ renders (topo_snap, the switch
 * view's lock held only to copy) and with the same status rules
 * (topo_rest_iface_state, topo_rest_link_up), without making its JSON: on
 * the 980-switch fat-tree that JSON is 21 MB.
 *
 * A link's ownership is its owners' names: an object's keys, a list's
 * strings, or a string's blank-separated words (Kytos' three forms); null
 * is no ownership. A metric of another type is kept as invalid (a query
 * that needs it fails naming the link). The graph points into b's own
 * copies (link ids, metadata), which live until topo_path_build_free.
 */
#ifndef OFCD_TOPO_PATH_BUILD_H
#define OFCD_TOPO_PATH_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "path_graph.h"
#include "topo_view.h"

struct topo_rest;

/* A link on the graph: its id and its ends' nodes. */
struct topo_path_link {
    const char *id;
    uint32_t a, z;
};

struct topo_path_build {
    struct path_graph g;
    struct topo_path_link *links;
    size_t n_links, cap_links;
    void **owned;                   /* owner names split from strings, the names' arrays */
    size_t n_owned, cap_owned;
    json_t *held;                   /* the links' ids and metadata copies the graph points into */
    int err;                        /* the first failure while building */
};

/* Build (and seal) the graph of t's topology now. 0, -ENOMEM, -E2BIG (past
 * PATH_GRAPH_MAX_NODES). */
int topo_path_build(struct topo_path_build *b, struct topo_rest *t);
void topo_path_build_free(struct topo_path_build *b);

/* The node of a Kytos id: a switch ("00:00:00:00:00:00:00:01") or an
 * interface ("00:00:00:00:00:00:00:01:1"). -ENOENT when not on the graph
 * (unknown, down, or not an id). */
long topo_path_node(const struct topo_path_build *b, const char *id);

/* Mark the edge of link id unusable in ok (one flag per edge): nothing
 * when the link is unknown or not on the graph. */
void topo_path_unwanted(const struct topo_path_build *b, const char *link_id, bool *ok);
/* The same for the link between interfaces x and y. */
void topo_path_unwanted_ends(const struct topo_path_build *b, struct topo_end x,
                             struct topo_end y, bool *ok);

/* Whether the graph joins interfaces x and y by a link (both up, the link
 * up and enabled). */
bool topo_path_joined(const struct topo_path_build *b, struct topo_end x, struct topo_end y);

/* The Kytos id of node i (topo_end_id's for an interface, dpid_format's for
 * a switch). */
void topo_path_node_id(const struct topo_path_build *b, uint32_t i, char out[TOPO_END_ID_LEN]);

#endif
