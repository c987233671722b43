/*
 * path_graph: the graph paths are found on, as Kytos-ng's pathfinder builds
 * it from the topology: a node per switch that is up and per interface of
 * it that is up; an edge from each such switch to each of its interfaces
 * (no attributes: it weighs 1 and passes every constraint) and an edge per
 * link that is up, between its two interfaces, with the link's metrics.
 * Undirected and simple: one edge per pair of nodes, the last attributes
 * given winning.
 *
 * A link's metrics are its metadata's bandwidth, reliability, priority,
 * utilization and delay (numbers) and ownership (its owners' names). A key
 * the link does not have is absent, not zero: every constraint on it
 * passes and as a weight it counts 1. A key present with a value of the
 * wrong type is kept as invalid: a query that weighs or filters by it fails
 * naming the link (its label) and the key.
 *
 * Pure: no JSON, no topology, no locks; one graph per query, built and
 * freed by the caller's thread. Bounded by PATH_GRAPH_MAX_NODES.
 */
#ifndef OFCD_PATH_GRAPH_H
#define OFCD_PATH_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PATH_GRAPH_MAX_NODES (1u << 20)

/* The numeric metrics, in Kytos' names (path_metric_name). */
enum path_metric {
    PATH_BANDWIDTH,
    PATH_RELIABILITY,
    PATH_PRIORITY,
    PATH_UTILIZATION,
    PATH_DELAY,
    PATH_N_NUMERIC,
    PATH_OWNERSHIP = PATH_N_NUMERIC,
    PATH_N_METRICS
};

/* A link's metrics. Bits of has/bad are 1u << enum path_metric. owners
 * (n_owners names, when has & 1u << PATH_OWNERSHIP) are the caller's and
 * must outlive the graph. */
struct path_attrs {
    unsigned has;                   /* present (a number, or owners) */
    unsigned bad;                   /* present with a value of the wrong type */
    double v[PATH_N_NUMERIC];
    const char *const *owners;
    size_t n_owners;
    const char *label;              /* the link's id, for errors; NULL for a switch's own edge */
};

struct path_node {
    uint64_t dpid;
    uint32_t port;
    bool iface;                     /* an interface (dpid:port), else the switch */
};

struct path_edge {
    uint32_t a, b;                  /* node indexes */
    struct path_attrs at;
};

struct path_adj {
    uint32_t node, edge;
};

struct path_graph {
    struct path_node *nodes;
    size_t n_nodes, cap_nodes;
    struct path_edge *edges;
    size_t n_edges, cap_edges;
    /* node lookup: open addressing over (dpid, port, iface) */
    uint32_t *slots;
    size_t n_slots;
    /* adjacency, made by path_graph_seal: adj[off[i] .. off[i + 1]) */
    struct path_adj *adj;
    uint32_t *off;
};

const char *path_metric_name(enum path_metric m);
/* The metric of a Kytos name; -ENOENT for a name it does not know. */
int path_metric_by_name(const char *name, enum path_metric *out);

void path_graph_init(struct path_graph *g);
void path_graph_free(struct path_graph *g);

/* The node's index, made if new (before seal): >= 0, -ENOMEM, -E2BIG (over
 * the bound) or -EINVAL (new after seal). */
long path_graph_node(struct path_graph *g, uint64_t dpid, uint32_t port, bool iface);
/* The node's index, or -ENOENT. */
long path_graph_find(const struct path_graph *g, uint64_t dpid, uint32_t port, bool iface);

/* The edge a - b with at (NULL: none), replacing the attributes of an edge
 * already there. 0, -EINVAL (a loop, or not a node), -ENOMEM. Before seal. */
int path_graph_edge(struct path_graph *g, uint32_t a, uint32_t b, const struct path_attrs *at);

/* Done adding: build the adjacency (each node's edges in the order added).
 * 0 or -ENOMEM. */
int path_graph_seal(struct path_graph *g);

#endif
