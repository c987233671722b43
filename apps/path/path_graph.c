/* path_graph: see path_graph.h. */
#include "path_graph.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define EMPTY UINT32_MAX

static const char *const metric_names[PATH_N_METRICS] = {
    [PATH_BANDWIDTH] = "bandwidth", [PATH_RELIABILITY] = "reliability",
    [PATH_PRIORITY] = "priority",   [PATH_UTILIZATION] = "utilization",
    [PATH_DELAY] = "delay",         [PATH_OWNERSHIP] = "ownership",
};

const char *path_metric_name(enum path_metric m)
{
    return (unsigned)m < PATH_N_METRICS ? metric_names[m] : "?";
}

int path_metric_by_name(const char *name, enum path_metric *out)
{
    for (unsigned m = 0; m < PATH_N_METRICS; m++)
        if (strcmp(name, metric_names[m]) == 0) {
            *out = (enum path_metric)m;
            return 0;
        }
    return -ENOENT;
}

void path_graph_init(struct path_graph *g)
{
    memset(g, 0, sizeof(*g));
}

void path_graph_free(struct path_graph *g)
{
    free(g->nodes);
    free(g->edges);
    free(g->slots);
    free(g->adj);
    free(g->off);
    path_graph_init(g);
}

static uint64_t node_hash(uint64_t dpid, uint32_t port, bool iface)
{
    uint64_t h = dpid * 0x9e3779b97f4a7c15ull ^ ((uint64_t)port << 1 | iface);
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ h >> 32;
}

static bool node_is(const struct path_node *n, uint64_t dpid, uint32_t port, bool iface)
{
    return n->dpid == dpid && n->iface == iface && (!iface || n->port == port);
}

static size_t slot_of(const struct path_graph *g, uint64_t dpid, uint32_t port, bool iface)
{
    size_t mask = g->n_slots - 1, i = node_hash(dpid, iface ? port : 0, iface) & mask;
    while (g->slots[i] != EMPTY && !node_is(&g->nodes[g->slots[i]], dpid, port, iface))
        i = (i + 1) & mask;
    return i;
}

/* Keep the table at most half full. */
static int grow_slots(struct path_graph *g)
{
    size_t n = g->n_slots ? g->n_slots * 2 : 64;
    uint32_t *old = g->slots;
    size_t old_n = g->n_slots;

    if (!(g->slots = malloc(n * sizeof(*g->slots)))) {
        g->slots = old;
        return -ENOMEM;
    }
    memset(g->slots, 0xff, n * sizeof(*g->slots));
    g->n_slots = n;
    for (size_t i = 0; i < old_n; i++)
        if (old[i] != EMPTY) {
            const struct path_node *nd = &g->nodes[old[i]];
            g->slots[slot_of(g, nd->dpid, nd->port, nd->iface)] = old[i];
        }
    free(old);
    return 0;
}

long path_graph_find(const struct path_graph *g, uint64_t dpid, uint32_t port, bool iface)
{
    if (!g->n_slots)
        return -ENOENT;
    uint32_t i = g->slots[slot_of(g, dpid, port, iface)];
    return i == EMPTY ? -ENOENT : (long)i;
}

long path_graph_node(struct path_graph *g, uint64_t dpid, uint32_t port, bool iface)
{
    long have = path_graph_find(g, dpid, port, iface);
    if (have >= 0)
        return have;
    if (g->off)
        return -EINVAL;                 /* sealed */
    if (g->n_nodes >= PATH_GRAPH_MAX_NODES)
        return -E2BIG;
    if ((g->n_nodes + 1) * 2 > g->n_slots && grow_slots(g) < 0)
        return -ENOMEM;
    if (g->n_nodes == g->cap_nodes) {
        size_t cap = g->cap_nodes ? g->cap_nodes * 2 : 32;
        struct path_node *p = realloc(g->nodes, cap * sizeof(*p));
        if (!p)
            return -ENOMEM;
        g->nodes = p;
        g->cap_nodes = cap;
    }
    uint32_t idx = (uint32_t)g->n_nodes++;
    g->nodes[idx] = (struct path_node){dpid, iface ? port : 0, iface};
    g->slots[slot_of(g, dpid, port, iface)] = idx;
    return idx;
}

int path_graph_edge(struct path_graph *g, uint32_t a, uint32_t b, const struct path_attrs *at)
{
    if (a == b || a >= g->n_nodes || b >= g->n_nodes || g->off)
        return -EINVAL;
    if (g->n_edges == g->cap_edges) {
        size_t cap = g->cap_edges ? g->cap_edges * 2 : 64;
        struct path_edge *p = realloc(g->edges, cap * sizeof(*p));
        if (!p)
            return -ENOMEM;
        g->edges = p;
        g->cap_edges = cap;
    }
    struct path_edge *e = &g->edges[g->n_edges++];
    e->a = a < b ? a : b;
    e->b = a < b ? b : a;
    if (at)
        e->at = *at;
    else
        memset(&e->at, 0, sizeof(e->at));
    return 0;
}

static int pair_cmp(const void *x, const void *y, void *arg)
{
    const struct path_edge *e = arg;
    uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
    if (e[i].a != e[j].a)
        return e[i].a < e[j].a ? -1 : 1;
    if (e[i].b != e[j].b)
        return e[i].b < e[j].b ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* One edge per pair: the first one added keeps its place, with the
 * attributes of the last. */
static int dedupe(struct path_graph *g)
{
    uint32_t *order = malloc((g->n_edges ? g->n_edges : 1) * sizeof(*order));
    bool *gone = calloc(g->n_edges ? g->n_edges : 1, sizeof(*gone));

    if (!order || !gone) {
        free(order);
        free(gone);
        return -ENOMEM;
    }
    for (size_t i = 0; i < g->n_edges; i++)
        order[i] = (uint32_t)i;
    qsort_r(order, g->n_edges, sizeof(*order), pair_cmp, g->edges);
    for (size_t i = 1; i < g->n_edges; i++) {
        struct path_edge *first = &g->edges[order[i - 1]], *e = &g->edges[order[i]];
        if (first->a == e->a && first->b == e->b) {
            first->at = e->at;
            gone[order[i]] = true;
            order[i] = order[i - 1];    /* the run's first stays its head */
        }
    }
    size_t n = 0;
    for (size_t i = 0; i < g->n_edges; i++)
        if (!gone[i])
            g->edges[n++] = g->edges[i];
    g->n_edges = n;
    free(order);
    free(gone);
    return 0;
}

int path_graph_seal(struct path_graph *g)
{
    int rc = dedupe(g);
    if (rc < 0)
        return rc;
    g->off = calloc(g->n_nodes + 1, sizeof(*g->off));
    g->adj = malloc((2 * g->n_edges + 1) * sizeof(*g->adj));
    if (!g->off || !g->adj)
        return -ENOMEM;
    for (size_t i = 0; i < g->n_edges; i++) {
        g->off[g->edges[i].a + 1]++;
        g->off[g->edges[i].b + 1]++;
    }
    for (size_t i = 0; i < g->n_nodes; i++)
        g->off[i + 1] += g->off[i];
    uint32_t *fill = calloc(g->n_nodes + 1, sizeof(*fill));
    if (!fill)
        return -ENOMEM;
    for (size_t i = 0; i < g->n_edges; i++) {
        const struct path_edge *e = &g->edges[i];
        g->adj[g->off[e->a] + fill[e->a]++] = (struct path_adj){e->b, (uint32_t)i};
        g->adj[g->off[e->b] + fill[e->b]++] = (struct path_adj){e->a, (uint32_t)i};
    }
    free(fill);
    return 0;
}
