/* test_path: the pathfinder engine (apps/path) — the graph, Yen's k
 * shortest paths against every simple path enumerated, and Kytos-ng's
 * constraint semantics on the topologies of its own tests. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path_graph.h"
#include "path_ksp.h"
#include "path_query.h"

/* A test topology: switches by number, interfaces sw:port. */
struct topo {
    struct path_graph g;
};

static uint32_t sw(struct topo *t, uint64_t d)
{
    long i = path_graph_node(&t->g, d, 0, false);
    assert_true(i >= 0);
    return (uint32_t)i;
}

static uint32_t ifc(struct topo *t, uint64_t d, uint32_t p)
{
    long i = path_graph_node(&t->g, d, p, true);
    assert_true(i >= 0);
    assert_int_equal(path_graph_edge(&t->g, sw(t, d), (uint32_t)i, NULL), 0);
    return (uint32_t)i;
}

static void link(struct topo *t, uint64_t da, uint32_t pa, uint64_t db, uint32_t pb,
                 const struct path_attrs *at)
{
    assert_int_equal(path_graph_edge(&t->g, ifc(t, da, pa), ifc(t, db, pb), at), 0);
}

static struct path_attrs num(enum path_metric m, double v)
{
    struct path_attrs a = {.has = 1u << m};
    a.v[m] = v;
    return a;
}

/* The path as "1:1 1 1:2 3:1 ..." (switch d, interface d:p). */
static void path_text(const struct path_graph *g, const struct path_found *p, char *out, size_t n)
{
    size_t w = 0;
    out[0] = '\0';
    for (size_t i = 0; i < p->n && w < n; i++) {
        const struct path_node *nd = &g->nodes[p->nodes[i]];
        w += nd->iface ? (size_t)snprintf(out + w, n - w, "%s%llu:%u", i ? " " : "",
                                         (unsigned long long)nd->dpid, nd->port)
                       : (size_t)snprintf(out + w, n - w, "%s%llu", i ? " " : "",
                                         (unsigned long long)nd->dpid);
    }
}

static void expect_path(const struct path_graph *g, const struct path_found *p, const char *want,
                        double cost)
{
    char got[512];
    path_text(g, p, got, sizeof(got));
    if (strcmp(got, want) != 0 || p->cost != cost)
        fail_msg("path %s cost %g; expected %s cost %g", got, p->cost, want, cost);
}

/* Kytos' mock triangle: 1:1-2:1, 1:2-3:1, 2:2-3:2. 1:1 -> 2:1 with k 2:
 * the link itself (cost 1), then round by 3, every switch's own edges
 * counted (cost 8). */
static void test_triangle_two_paths(void **state)
{
    (void)state;
    struct topo t;
    struct path_list out = {0};
    uint32_t bad;

    path_graph_init(&t.g);
    link(&t, 1, 1, 2, 1, NULL);
    link(&t, 1, 2, 3, 1, NULL);
    link(&t, 2, 2, 3, 2, NULL);
    assert_int_equal(path_graph_seal(&t.g), 0);
    assert_int_equal(t.g.n_nodes, 9);
    assert_int_equal(t.g.n_edges, 9);            /* 6 own edges + 3 links */
    uint32_t a = (uint32_t)path_graph_find(&t.g, 1, 1, true),
             b = (uint32_t)path_graph_find(&t.g, 2, 1, true);
    assert_int_equal(path_ksp(&t.g, NULL, PATH_KSP_HOP, a, b, 2, &out, &bad), 0);
    assert_int_equal(out.n, 2);
    expect_path(&t.g, &out.p[0], "1:1 2:1", 1);
    expect_path(&t.g, &out.p[1], "1:1 1 1:2 3:1 3 3:2 2:2 2 2:1", 8);
    path_list_free(&out);
    /* A switch to itself: the one node. */
    assert_int_equal(path_ksp(&t.g, NULL, PATH_KSP_HOP, sw(&t, 1), sw(&t, 1), 2, &out, &bad), 0);
    assert_int_equal(out.n, 1);
    expect_path(&t.g, &out.p[0], "1", 0);
    path_list_free(&out);
    path_graph_free(&t.g);
}

/* ---- Yen against every simple path --------------------------------------------------- */

static unsigned rnd_state = 12345;

static unsigned rnd(unsigned n)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return (rnd_state >> 16) % n;
}

struct enum_ctx {
    const struct path_graph *g;
    uint32_t dst;
    bool *on;
    double costs[4096];
    size_t n;
};

static void dfs(struct enum_ctx *c, uint32_t u, double cost)
{
    if (u == c->dst) {
        if (c->n < 4096)
            c->costs[c->n++] = cost;
        return;
    }
    c->on[u] = true;
    for (uint32_t i = c->g->off[u]; i < c->g->off[u + 1]; i++) {
        uint32_t v = c->g->adj[i].node;
        if (!c->on[v])
            dfs(c, v, cost + path_edge_weight(&c->g->edges[c->g->adj[i].edge], PATH_DELAY));
    }
    c->on[u] = false;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* On random graphs, the k paths are simple, distinct, from src to dst,
 * their costs those of the k cheapest simple paths, in order. */
static void test_yen_matches_enumeration(void **state)
{
    (void)state;
    for (unsigned round = 0; round < 200; round++) {
        struct path_graph g;
        path_graph_init(&g);
        unsigned n = 4 + rnd(5);
        for (unsigned i = 0; i < n; i++)
            assert_true(path_graph_node(&g, i + 1, 0, false) >= 0);
        for (unsigned e = 0; e < n * 2; e++) {
            uint32_t a = rnd(n), b = rnd(n);
            if (a == b)
                continue;
            struct path_attrs at = rnd(4) ? num(PATH_DELAY, 1 + rnd(9)) : (struct path_attrs){0};
            assert_int_equal(path_graph_edge(&g, a, b, &at), 0);
        }
        assert_int_equal(path_graph_seal(&g), 0);
        struct enum_ctx c = {.g = &g, .dst = n - 1, .on = calloc(n, sizeof(bool))};
        dfs(&c, 0, 0);
        qsort(c.costs, c.n, sizeof(c.costs[0]), cmp_double);
        unsigned k = 1 + rnd(8);
        struct path_list out = {0};
        uint32_t bad;
        assert_int_equal(path_ksp(&g, NULL, PATH_DELAY, 0, n - 1, k, &out, &bad), 0);
        size_t want = c.n < k ? c.n : k;
        if (out.n != want)
            fail_msg("round %u: %zu paths, %zu simple ones exist, k %u", round, out.n, c.n, k);
        for (size_t i = 0; i < out.n; i++) {
            const struct path_found *p = &out.p[i];
            assert_int_equal(p->nodes[0], 0);
            assert_int_equal(p->nodes[p->n - 1], n - 1);
            double cost = 0;
            for (size_t j = 0; j + 1 < p->n; j++) {
                long e = -1;
                for (uint32_t a = g.off[p->nodes[j]]; a < g.off[p->nodes[j] + 1]; a++)
                    if (g.adj[a].node == p->nodes[j + 1])
                        e = g.adj[a].edge;
                assert_true(e >= 0);
                cost += path_edge_weight(&g.edges[e], PATH_DELAY);
                for (size_t m = j + 1; m < p->n; m++)
                    assert_int_not_equal(p->nodes[j], p->nodes[m]);
            }
            assert_true(cost == p->cost);
            if (p->cost != c.costs[i])
                fail_msg("round %u: path %zu costs %g, the %zu-th cheapest %g", round, i,
                         p->cost, i, c.costs[i]);
            for (size_t o = 0; o < i; o++)
                assert_false(out.p[o].n == p->n &&
                             memcmp(out.p[o].nodes, p->nodes, p->n * sizeof(uint32_t)) == 0);
        }
        path_list_free(&out);
        free(c.on);
        path_graph_free(&g);
    }
}

/* ---- constraints, on the "simple" topology of Kytos' integration tests ----------------- */

/* S1 (2 ports), S2 (3), S3 (2), S4 (2 ports, no links), S5 (none).
 * 1:1-2:1 {bandwidth 50, owner red}; 3:1-2:2 {51, blue}; 1:2-3:2 {49, blue}. */
static const char *const red[] = {"red"}, *const blue[] = {"blue"};

static void simple_topo(struct topo *t)
{
    path_graph_init(&t->g);
    struct path_attrs a = num(PATH_BANDWIDTH, 50), b = num(PATH_BANDWIDTH, 51),
                      c = num(PATH_BANDWIDTH, 49);
    a.has |= 1u << PATH_OWNERSHIP, a.owners = red, a.n_owners = 1, a.label = "l12";
    b.has |= 1u << PATH_OWNERSHIP, b.owners = blue, b.n_owners = 1, b.label = "l32";
    c.has |= 1u << PATH_OWNERSHIP, c.owners = blue, c.n_owners = 1, c.label = "l13";
    link(t, 1, 1, 2, 1, &a);
    link(t, 3, 1, 2, 2, &b);
    link(t, 1, 2, 3, 2, &c);
    ifc(t, 2, 3);
    ifc(t, 4, 1);
    ifc(t, 4, 2);
    sw(t, 5);
    assert_int_equal(path_graph_seal(&t->g), 0);
}

static size_t run(struct topo *t, uint64_t from, uint64_t to, unsigned k,
                  const struct path_constraint *mand, size_t n_mand,
                  const struct path_constraint *flex, size_t n_flex, unsigned hits,
                  struct path_list *out)
{
    struct path_query q = {.src = sw(t, from), .dst = sw(t, to), .weight = PATH_KSP_HOP, .k = k,
                           .mandatory = mand, .n_mandatory = n_mand, .flexible = flex,
                           .n_flexible = n_flex, .min_hits = hits};
    struct path_query_err err;
    memset(out, 0, sizeof(*out));
    assert_int_equal(path_query_run(&t->g, &q, out, &err), 0);
    return out->n;
}

static bool path_has(const struct topo *t, const struct path_found *p, uint64_t d)
{
    for (size_t i = 0; i < p->n; i++)
        if (t->g.nodes[p->nodes[i]].dpid == d)
            return true;
    return false;
}

static struct path_constraint cons(const char *name)
{
    struct path_constraint c;
    path_constraint_kind(name, &c);
    return c;
}

static void test_simple_topology(void **state)
{
    (void)state;
    struct topo t;
    struct path_list out;

    simple_topo(&t);
    assert_int_equal(run(&t, 1, 2, 2, NULL, 0, NULL, 0, 0, &out), 2);
    expect_path(&t.g, &out.p[0], "1 1:1 2:1 2", 3);
    path_list_free(&out);
    assert_int_equal(run(&t, 1, 4, 2, NULL, 0, NULL, 0, 0, &out), 0);
    assert_int_equal(run(&t, 1, 1, 2, NULL, 0, NULL, 0, 0, &out), 1);
    path_list_free(&out);

    struct path_constraint own = cons("ownership");
    own.owner = "red";
    assert_int_equal(run(&t, 1, 3, 2, &own, 1, NULL, 0, 0, &out), 0);
    own.owner = "blue";
    assert_true(run(&t, 1, 3, 2, &own, 1, NULL, 0, 0, &out) > 0);
    path_list_free(&out);

    static const char *const r[] = {"red"}, *const b[] = {"blue"}, *const rb[] = {"blue", "red"};
    struct path_constraint not = cons("not_ownership");
    not.names = r, not.n_names = 1;
    assert_true(run(&t, 1, 2, 2, &not, 1, NULL, 0, 0, &out) > 0);
    for (size_t i = 0; i < out.n; i++)
        assert_true(path_has(&t, &out.p[i], 3));      /* around, by blue links */
    path_list_free(&out);
    not.names = b;
    assert_int_equal(run(&t, 1, 2, 2, &not, 1, NULL, 0, 0, &out), 1);
    expect_path(&t.g, &out.p[0], "1 1:1 2:1 2", 3);
    path_list_free(&out);
    not.names = rb, not.n_names = 2;
    assert_int_equal(run(&t, 1, 2, 2, &not, 1, NULL, 0, 0, &out), 0);

    struct path_constraint bw = cons("bandwidth");
    bw.v = 50;
    assert_true(run(&t, 1, 3, 4, &bw, 1, NULL, 0, 0, &out) > 0);
    for (size_t i = 0; i < out.n; i++)
        assert_true(path_has(&t, &out.p[i], 2));
    path_list_free(&out);
    path_graph_free(&t.g);
}

/* The filters, each way, inclusive; a link without the metric passes. */
static void test_filters(void **state)
{
    (void)state;
    struct path_edge hi = {.at = num(PATH_BANDWIDTH, 20)}, lo = {.at = num(PATH_BANDWIDTH, 10)},
                     none = {0};
    struct path_constraint c = cons("bandwidth");
    c.v = 15;
    assert_int_equal(path_constraint_passes(&c, &hi), 1);
    assert_int_equal(path_constraint_passes(&c, &lo), 0);
    assert_int_equal(path_constraint_passes(&c, &none), 1);
    c.v = 20;
    assert_int_equal(path_constraint_passes(&c, &hi), 1);
    for (enum path_metric m = PATH_PRIORITY; m <= PATH_DELAY; m++) {
        struct path_edge h = {.at = num(m, 20)}, l = {.at = num(m, 10)};
        struct path_constraint d = cons(path_metric_name(m));
        assert_int_equal(d.kind, PATH_CONS_AT_MOST);
        d.v = 15;
        assert_int_equal(path_constraint_passes(&d, &h), 0);
        assert_int_equal(path_constraint_passes(&d, &l), 1);
        d.v = 9;
        assert_int_equal(path_constraint_passes(&d, &l), 0);
    }
    static const char *const br[] = {"blue", "red"}, *const gr[] = {"green"};
    struct path_edge e1 = {.at = {.has = 1u << PATH_OWNERSHIP, .owners = br, .n_owners = 2}},
                     e2 = {.at = {.has = 1u << PATH_OWNERSHIP, .owners = gr, .n_owners = 1}},
                     empty = {.at = {.has = 1u << PATH_OWNERSHIP}};
    struct path_constraint o = cons("ownership");
    o.owner = "blue";
    assert_int_equal(path_constraint_passes(&o, &e1), 1);
    assert_int_equal(path_constraint_passes(&o, &e2), 0);
    assert_int_equal(path_constraint_passes(&o, &empty), 0);  /* no owners: not blue's */
    assert_int_equal(path_constraint_passes(&o, &none), 1);   /* no ownership: passes */
    struct path_constraint x = cons("color");
    assert_int_equal(x.kind, PATH_CONS_NONE);
    assert_int_equal(path_constraint_passes(&x, &e2), 1);
    /* A metric of the wrong type on the link: the query fails naming it. */
    struct path_edge bad = {.at = {.bad = 1u << PATH_BANDWIDTH, .label = "lx"}};
    assert_int_equal(path_constraint_passes(&c, &bad), -EDOM);
}

/* Flexible constraints: the most met first; a level that finds paths ends
 * the answer; each path says which it met; min_hits bounds the levels. */
static void test_flexible_levels(void **state)
{
    (void)state;
    struct topo t;
    struct path_list out;

    simple_topo(&t);
    struct path_constraint flex[2] = {cons("bandwidth"), cons("ownership")};
    flex[0].v = 50;                     /* 1-2 direct, or round by 3 on 51 and 49: no */
    flex[1].owner = "blue";             /* only round by 3 */
    /* Both at once: no path; one of them (min_hits 1): each alone, in order. */
    assert_int_equal(run(&t, 1, 2, 4, NULL, 0, flex, 2, 2, &out), 0);
    assert_int_equal(run(&t, 1, 2, 4, NULL, 0, flex, 2, 1, &out), 2);
    expect_path(&t.g, &out.p[0], "1 1:1 2:1 2", 3);
    assert_int_equal(out.p[0].flex, 1u << 0);
    expect_path(&t.g, &out.p[1], "1 1:2 3:2 3 3:1 2:2 2", 6);
    assert_int_equal(out.p[1].flex, 1u << 1);
    path_list_free(&out);
    /* k 1: the first combination's one path makes exactly k: done there. */
    assert_int_equal(run(&t, 1, 2, 1, NULL, 0, flex, 2, 1, &out), 1);
    assert_int_equal(out.p[0].flex, 1u << 0);
    path_list_free(&out);
    /* min_hits past n means all of them. */
    assert_int_equal(run(&t, 1, 2, 4, NULL, 0, flex, 2, 6, &out), 0);
    path_graph_free(&t.g);
}

/* Undesired links are gone from the search; max cost drops the dear paths;
 * an invalid weight fails naming its edge. */
static void test_undesired_cost_and_bad_weight(void **state)
{
    (void)state;
    struct topo t;
    struct path_list out = {0};
    struct path_query_err err;

    simple_topo(&t);
    bool *ok = malloc(t.g.n_edges * sizeof(bool));
    for (size_t e = 0; e < t.g.n_edges; e++)
        ok[e] = !(t.g.edges[e].at.label && strcmp(t.g.edges[e].at.label, "l12") == 0);
    struct path_query q = {.src = sw(&t, 1), .dst = sw(&t, 2), .weight = PATH_KSP_HOP, .k = 4,
                           .edge_ok = ok};
    assert_int_equal(path_query_run(&t.g, &q, &out, &err), 0);
    assert_int_equal(out.n, 1);
    expect_path(&t.g, &out.p[0], "1 1:2 3:2 3 3:1 2:2 2", 6);
    path_list_free(&out);
    q.edge_ok = NULL;
    q.has_max_cost = true;
    q.max_cost = 5;
    assert_int_equal(path_query_run(&t.g, &q, &out, &err), 0);
    assert_int_equal(out.n, 1);
    assert_true(out.p[0].cost == 3);
    path_list_free(&out);
    free(ok);

    path_graph_free(&t.g);
    path_graph_init(&t.g);
    struct path_attrs neg = num(PATH_DELAY, -5), text = {.bad = 1u << PATH_DELAY, .label = "l2"};
    neg.label = "l1";
    link(&t, 1, 1, 2, 1, &neg);
    link(&t, 1, 2, 2, 2, &text);
    assert_int_equal(path_graph_seal(&t.g), 0);
    q = (struct path_query){.src = sw(&t, 1), .dst = sw(&t, 2), .weight = PATH_DELAY, .k = 2};
    assert_int_equal(path_query_run(&t.g, &q, &out, &err), -EDOM);
    assert_string_equal(t.g.edges[err.edge].at.label, "l1");
    assert_int_equal(err.m, PATH_DELAY);
    q.weight = PATH_KSP_HOP;             /* hops never read delay */
    assert_int_equal(path_query_run(&t.g, &q, &out, &err), 0);
    assert_int_equal(out.n, 2);
    path_list_free(&out);
    path_graph_free(&t.g);
}

/* One edge per pair: a link given twice keeps its first place and its
 * last attributes; nodes are found again, not made twice. */
static void test_graph_simple(void **state)
{
    (void)state;
    struct path_graph g;
    path_graph_init(&g);
    long a = path_graph_node(&g, 7, 1, true), b = path_graph_node(&g, 8, 1, true);
    assert_int_equal(path_graph_node(&g, 7, 1, true), a);
    assert_int_not_equal(path_graph_node(&g, 7, 0, false), a);
    struct path_attrs x = num(PATH_DELAY, 3), y = num(PATH_DELAY, 9);
    assert_int_equal(path_graph_edge(&g, (uint32_t)a, (uint32_t)b, &x), 0);
    assert_int_equal(path_graph_edge(&g, (uint32_t)b, (uint32_t)a, &y), 0);
    assert_int_equal(path_graph_edge(&g, (uint32_t)a, (uint32_t)a, &y), -EINVAL);
    for (uint64_t d = 100; d < 5100; d++)
        assert_true(path_graph_node(&g, d, 1, true) >= 0);
    assert_int_equal(path_graph_seal(&g), 0);
    assert_int_equal(g.n_edges, 1);
    assert_true(g.edges[0].at.v[PATH_DELAY] == 9);
    assert_int_equal(path_graph_node(&g, 9, 9, true), -EINVAL);     /* sealed */
    assert_int_equal(path_graph_find(&g, 4321, 1, true), 4321 - 100 + 3);
    assert_int_equal(path_graph_find(&g, 4321, 2, true), -ENOENT);
    path_graph_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_triangle_two_paths),
        cmocka_unit_test(test_yen_matches_enumeration),
        cmocka_unit_test(test_simple_topology),
        cmocka_unit_test(test_filters),
        cmocka_unit_test(test_flexible_levels),
        cmocka_unit_test(test_undesired_cost_and_bad_weight),
        cmocka_unit_test(test_graph_simple),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
