/* path_ksp: see path_ksp.h. */
#include "path_ksp.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

void path_list_free(struct path_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->p[i].nodes);
    free(l->p);
    memset(l, 0, sizeof(*l));
}

int path_list_add(struct path_list *l, const uint32_t *nodes, size_t n, double cost, uint32_t flex)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        struct path_found *p = realloc(l->p, cap * sizeof(*p));
        if (!p)
            return -ENOMEM;
        l->p = p;
        l->cap = cap;
    }
    uint32_t *copy = malloc((n ? n : 1) * sizeof(*copy));
    if (!copy)
        return -ENOMEM;
    memcpy(copy, nodes, n * sizeof(*copy));
    l->p[l->n++] = (struct path_found){copy, n, cost, flex};
    return 0;
}

double path_edge_weight(const struct path_edge *e, int weight)
{
    if (weight == PATH_KSP_HOP || weight < 0 || weight >= PATH_N_NUMERIC ||
        !(e->at.has & 1u << weight))
        return 1;
    return e->at.v[weight];
}

/* The search's scratch, one per path_ksp call. */
struct ksp {
    const struct path_graph *g;
    const bool *edge_ok;
    int weight;
    double *dist;
    uint32_t *prev_node, *heap, *pos;
    size_t n_heap;
    bool *done, *node_off, *edge_off;
};

static bool heap_less(const struct ksp *s, uint32_t a, uint32_t b)
{
    return s->dist[a] < s->dist[b] || (s->dist[a] == s->dist[b] && a < b);
}

static void heap_swap(struct ksp *s, size_t i, size_t j)
{
    uint32_t t = s->heap[i];
    s->heap[i] = s->heap[j];
    s->heap[j] = t;
    s->pos[s->heap[i]] = (uint32_t)i;
    s->pos[s->heap[j]] = (uint32_t)j;
}

static void heap_up(struct ksp *s, size_t i)
{
    while (i && heap_less(s, s->heap[i], s->heap[(i - 1) / 2])) {
        heap_swap(s, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static uint32_t heap_pop(struct ksp *s)
{
    uint32_t top = s->heap[0];
    s->pos[top] = NONE;
    if (--s->n_heap) {
        s->heap[0] = s->heap[s->n_heap];
        s->pos[s->heap[0]] = 0;
        for (size_t i = 0;;) {
            size_t l = 2 * i + 1, r = l + 1, m = i;
            if (l < s->n_heap && heap_less(s, s->heap[l], s->heap[m]))
                m = l;
            if (r < s->n_heap && heap_less(s, s->heap[r], s->heap[m]))
                m = r;
            if (m == i)
                break;
            heap_swap(s, i, m);
            i = m;
        }
    }
    return top;
}

static bool edge_usable(const struct ksp *s, uint32_t e)
{
    return (!s->edge_ok || s->edge_ok[e]) && !s->edge_off[e];
}

/* Dijkstra src -> dst avoiding node_off and edge_off: the path into *out
 * (its n nodes, src first) and its cost; false when none. */
static bool shortest(struct ksp *s, uint32_t src, uint32_t dst, uint32_t *out, size_t *n,
                     double *cost)
{
    const struct path_graph *g = s->g;

    for (size_t i = 0; i < g->n_nodes; i++) {
        s->dist[i] = INFINITY;
        s->done[i] = false;
        s->pos[i] = NONE;
    }
    s->n_heap = 0;
    s->dist[src] = 0;
    s->prev_node[src] = NONE;
    s->heap[s->n_heap] = src;
    s->pos[src] = (uint32_t)s->n_heap++;
    while (s->n_heap) {
        uint32_t u = heap_pop(s);
        s->done[u] = true;
        if (u == dst)
            break;
        for (uint32_t i = g->off[u]; i < g->off[u + 1]; i++) {
            uint32_t v = g->adj[i].node, e = g->adj[i].edge;
            if (s->done[v] || s->node_off[v] || !edge_usable(s, e))
                continue;
            double d = s->dist[u] + path_edge_weight(&g->edges[e], s->weight);
            if (d >= s->dist[v])
                continue;
            s->dist[v] = d;
            s->prev_node[v] = u;
            if (s->pos[v] == NONE) {
                s->heap[s->n_heap] = v;
                s->pos[v] = (uint32_t)s->n_heap++;
            }
            heap_up(s, s->pos[v]);
        }
    }
    if (!s->done[dst])
        return false;
    size_t len = 0;
    for (uint32_t v = dst; v != NONE; v = s->prev_node[v])
        len++;
    *n = len;
    for (uint32_t v = dst; v != NONE; v = s->prev_node[v])
        out[--len] = v;
    *cost = s->dist[dst];
    return true;
}

/* The edge between two neighbours (the graph is simple). */
static uint32_t edge_between(const struct path_graph *g, uint32_t a, uint32_t b)
{
    for (uint32_t i = g->off[a]; i < g->off[a + 1]; i++)
        if (g->adj[i].node == b)
            return g->adj[i].edge;
    return NONE;
}

static bool same_path(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
    return na == nb && memcmp(a, b, na * sizeof(*a)) == 0;
}

static bool listed(const struct path_list *l, size_t from, const uint32_t *nodes, size_t n)
{
    for (size_t i = from; i < l->n; i++)
        if (same_path(l->p[i].nodes, l->p[i].n, nodes, n))
            return true;
    return false;
}

static int check_weights(const struct path_graph *g, const bool *edge_ok, int weight,
                         uint32_t *bad_edge)
{
    if (weight == PATH_KSP_HOP)
        return 0;
    for (size_t i = 0; i < g->n_edges; i++) {
        const struct path_edge *e = &g->edges[i];
        if (edge_ok && !edge_ok[i])
            continue;
        if ((e->at.bad & 1u << weight) ||
            ((e->at.has & 1u << weight) && !(e->at.v[weight] >= 0))) {
            *bad_edge = (uint32_t)i;
            return -EDOM;
        }
    }
    return 0;
}

static bool touched(const struct path_graph *g, const bool *edge_ok, uint32_t v)
{
    if (!edge_ok)
        return true;
    for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++)
        if (edge_ok[g->adj[i].edge])
            return true;
    return false;
}

/* Yen: A holds the paths taken (out, from base), B the candidates. */
static int yen(struct ksp *s, uint32_t src, uint32_t dst, unsigned k, struct path_list *out,
               uint32_t *buf)
{
    const struct path_graph *g = s->g;
    size_t base = out->n, n;
    double cost;
    struct path_list cand = {0};
    int rc = 0;

    if (!shortest(s, src, dst, buf, &n, &cost))
        return 0;
    if ((rc = path_list_add(out, buf, n, cost, 0)) < 0)
        return rc;
    while (out->n - base < k) {
        const struct path_found *last = &out->p[out->n - 1];
        double root_cost = 0;
        for (size_t i = 0; i + 1 < last->n && rc == 0; i++) {
            uint32_t spur = last->nodes[i];
            /* Edges that would repeat a path taken with this root. */
            for (size_t a = base; a < out->n; a++) {
                const struct path_found *p = &out->p[a];
                if (p->n > i + 1 && memcmp(p->nodes, last->nodes, (i + 1) * sizeof(uint32_t)) == 0) {
                    uint32_t e = edge_between(g, p->nodes[i], p->nodes[i + 1]);
                    if (e != NONE)
                        s->edge_off[e] = true;
                }
            }
            for (size_t r = 0; r < i; r++)
                s->node_off[last->nodes[r]] = true;
            size_t sn;
            double sc;
            if (shortest(s, spur, dst, buf + i, &sn, &sc)) {
                memcpy(buf, last->nodes, i * sizeof(uint32_t));
                size_t total = i + sn;
                if (!listed(&cand, 0, buf, total) && !listed(out, base, buf, total))
                    rc = path_list_add(&cand, buf, total, root_cost + sc, 0);
            }
            memset(s->edge_off, 0, g->n_edges * sizeof(bool));
            for (size_t r = 0; r < i; r++)
                s->node_off[last->nodes[r]] = false;
            root_cost += path_edge_weight(&g->edges[edge_between(g, spur, last->nodes[i + 1])],
                                          s->weight);
        }
        if (rc < 0 || !cand.n)
            break;
        size_t best = 0;                /* lowest cost; the first found among equals */
        for (size_t c = 1; c < cand.n; c++)
            if (cand.p[c].cost < cand.p[best].cost)
                best = c;
        if ((rc = path_list_add(out, cand.p[best].nodes, cand.p[best].n, cand.p[best].cost, 0)) < 0)
            break;
        free(cand.p[best].nodes);
        memmove(&cand.p[best], &cand.p[best + 1], (cand.n - best - 1) * sizeof(*cand.p));
        cand.n--;
    }
    path_list_free(&cand);
    return rc;
}

int path_ksp(const struct path_graph *g, const bool *edge_ok, int weight, uint32_t src,
             uint32_t dst, unsigned k, struct path_list *out, uint32_t *bad_edge)
{
    if (!k || k > PATH_KSP_MAX_K || src >= g->n_nodes || dst >= g->n_nodes || !g->off ||
        (weight != PATH_KSP_HOP && (weight < 0 || weight >= PATH_N_NUMERIC)))
        return -EINVAL;
    int rc = check_weights(g, edge_ok, weight, bad_edge);
    if (rc < 0)
        return rc;
    if (!touched(g, edge_ok, src) || !touched(g, edge_ok, dst))
        return 0;
    if (src == dst)
        return path_list_add(out, &src, 1, 0, 0);

    size_t nn = g->n_nodes;
    struct ksp s = {.g = g, .edge_ok = edge_ok, .weight = weight};
    s.dist = malloc(nn * sizeof(*s.dist));
    s.prev_node = malloc(nn * sizeof(*s.prev_node));
    s.heap = malloc(nn * sizeof(*s.heap));
    s.pos = malloc(nn * sizeof(*s.pos));
    s.done = malloc(nn * sizeof(*s.done));
    s.node_off = calloc(nn, sizeof(*s.node_off));
    s.edge_off = calloc(g->n_edges ? g->n_edges : 1, sizeof(*s.edge_off));
    uint32_t *buf = malloc(2 * nn * sizeof(*buf));
    if (s.dist && s.prev_node && s.heap && s.pos && s.done && s.node_off && s.edge_off && buf)
        rc = yen(&s, src, dst, k, out, buf);
    else
        rc = -ENOMEM;
    free(s.dist);
    free(s.prev_node);
    free(s.heap);
    free(s.pos);
    free(s.done);
    free(s.node_off);
    free(s.edge_off);
    free(buf);
    return rc;
}
