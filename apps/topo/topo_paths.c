/* topo_paths: see topo_paths.h. */
#include "topo_paths.h"

#include <errno.h>
#include <stdbool.h>

#include <stdlib.h>
#include <string.h>

#include "dpid.h"
#include "ofcd_clock.h"
#include "path_query.h"
#include "topo_admin.h"
#include "topo_path_cons.h"
#include "topo_rest.h"

/* The path's nodes (switch, its interface, the next switch's interface,
 * that switch, ...) as the links crossed. */
static int hops_of(const struct topo_path_build *b, const struct path_found *p,
                   struct topo_path_hop *out, size_t cap, size_t *n)
{
    char id[TOPO_END_ID_LEN];

    *n = 0;
    for (size_t j = 1; j + 2 < p->n; j += 3) {
        struct topo_end e[2];
        for (int k = 0; k < 2; k++) {
            topo_path_node_id(b, p->nodes[j + (size_t)k], id);
            if (topo_end_parse(id, ':', false, &e[k]) < 0)
                return -EINVAL;
        }
        if (*n == cap)
            return -E2BIG;
        out[(*n)++] = (struct topo_path_hop){.from = e[0], .to = e[1]};
    }
    return 0;
}

void topo_paths_cache_init(struct topo_paths_cache *c)
{
    memset(c, 0, sizeof(*c));
    pthread_mutex_init(&c->lock, NULL);
    atomic_init(&c->touched, 0);
}

void topo_paths_cache_fini(struct topo_paths_cache *c)
{
    if (c->built)
        topo_path_build_free(&c->b);
    c->built = false;
    pthread_mutex_destroy(&c->lock);
}

void topo_paths_touch(struct topo_paths_cache *c)
{
    atomic_fetch_add_explicit(&c->touched, 1, memory_order_release);
}

uint64_t topo_paths_version(struct topo_rest *t)
{
    return atomic_load_explicit(&t->paths.touched, memory_order_acquire) +
           topo_admin_changes(t->admin);
}

/* Under c->lock: the graph of the topology now. The count is read before
 * the graph is made, so a change made meanwhile makes it again next time. */
static int graph_now(struct topo_rest *t, struct topo_paths_cache *c)
{
    uint64_t now = topo_paths_version(t);
    uint64_t now_us = ofcd_clock_mono_us();
    if (c->built && c->built_at == now && now_us - c->built_us < TOPO_PATHS_MAX_AGE_US)
        return 0;
    if (c->built)
        topo_path_build_free(&c->b);
    c->built = false;
    int rc = topo_path_build(&c->b, t);
    if (rc < 0) {
        topo_path_build_free(&c->b);
        return rc;
    }
    c->built = true;
    c->built_at = now;
    c->built_us = now_us;
    return 0;
}

struct search_args {
    uint64_t src, dst;
    const struct topo_path_cons *cons;      /* NULL: none */
    const struct topo_path_hop *avoid;
    size_t n_avoid;
    struct topo_path_hop *out;
    size_t cap, *n;
};

int topo_paths_query(const struct topo_path_build *b, const struct topo_path_cons *cons,
                     uint32_t src, uint32_t dst, unsigned k, const struct topo_path_hop *avoid,
                     size_t n_avoid, struct path_list *out, struct path_query_err *err)
{
    size_t n_undesired = cons ? json_array_size(cons->undesired) : 0;
    bool *ok = NULL;

    if (n_avoid || n_undesired) {
        if (!(ok = malloc((b->g.n_edges ? b->g.n_edges : 1) * sizeof(*ok))))
            return -ENOMEM;
        memset(ok, 1, b->g.n_edges * sizeof(*ok));
        for (size_t h = 0; h < n_avoid; h++)
            topo_path_unwanted_ends(b, avoid[h].from, avoid[h].to, ok);
        for (size_t u = 0; u < n_undesired; u++)
            topo_path_unwanted(b, json_string_value(json_array_get(cons->undesired, u)), ok);
    }
    struct path_query q = {.src = src, .dst = dst, .weight = PATH_KSP_HOP, .k = k,
                           .edge_ok = ok};
    if (cons) {
        q.weight = cons->weight;
        q.has_max_cost = cons->has_max_cost;
        q.max_cost = cons->max_cost;
        q.mandatory = cons->mand;
        q.n_mandatory = cons->n_mand;
        q.flexible = cons->flex;
        q.n_flexible = cons->n_flex;
        q.min_hits = cons->min_hits;
    }
    int rc = path_query_run(&b->g, &q, out, err);
    free(ok);
    return rc;
}

/* On the kept graph (topo_paths_run): pathfinder's first path. */
static int search_on(const struct topo_path_build *b, void *arg)
{
    struct search_args *x = arg;
    char a[24], z[24];

    dpid_format(x->src, a);
    dpid_format(x->dst, z);
    long s = topo_path_node(b, a), d = topo_path_node(b, z);
    if (s < 0 || d < 0)
        return -ENOENT;
    if (x->src == x->dst)
        return 0;
    struct path_list l = {0};
    struct path_query_err err;
    int rc = topo_paths_query(b, x->cons, (uint32_t)s, (uint32_t)d, 1, x->avoid, x->n_avoid,
                              &l, &err);
    if (rc == 0)
        rc = l.n ? hops_of(b, &l.p[0], x->out, x->cap, x->n) : -ENOENT;
    path_list_free(&l);
    return rc;
}

int topo_paths_best(struct topo_rest *t, uint64_t src, uint64_t dst,
                    const struct topo_path_cons *cons, const struct topo_path_hop *avoid,
                    size_t n_avoid, struct topo_path_hop *out, size_t cap, size_t *n)
{
    struct search_args x = {src, dst, cons, avoid, n_avoid, out, cap, n};

    *n = 0;
    return topo_paths_run(t, search_on, &x);
}

struct up_args {
    const struct topo_path_hop *h;
    size_t n;
};

static int up_on(const struct topo_path_build *b, void *arg)
{
    const struct up_args *x = arg;

    for (size_t i = 0; i < x->n; i++)
        if (!topo_path_joined(b, x->h[i].from, x->h[i].to))
            return 0;
    return 1;
}

int topo_paths_up(struct topo_rest *t, const struct topo_path_hop *h, size_t n)
{
    struct up_args x = {h, n};
    return topo_paths_run(t, up_on, &x);
}

int topo_paths_run(struct topo_rest *t, int (*fn)(const struct topo_path_build *b, void *arg),
                   void *arg)
{
    struct topo_paths_cache *c = &t->paths;

    pthread_mutex_lock(&c->lock);
    int rc = graph_now(t, c);
    if (rc == 0)
        rc = fn(&c->b, arg);
    pthread_mutex_unlock(&c->lock);
    return rc;
}
