/*
 * topo_paths: the topology's paths for another app (the circuits'), in C
 * types: the best path between two switches over the links that are up,
 * under pathfinder's constraints, as pathfinder finds it (topo_path_build's
 * graph, apps/path's search), as the links it crosses with their ends in
 * the path's order. The same answer as POST /api/kytos/pathfinder/v3/'s
 * first path, without the JSON. From any thread that may take the switch view's lock
 * (not the control thread while it holds it).
 *
 * The graph is kept between calls (topo_paths_cache, in struct topo_rest)
 * and made again only when the topology moved: the count of its changes
 * (switches up or down, PORT_STATUS, links up or down or deleted,
 * switches forgotten, any metadata or tag pool changed: topo_paths_touch,
 * bumped by the topology app) or of
 * its admin flags (topo_admin_changes) is not the one it was made at, or
 * it is TOPO_PATHS_MAX_AGE_US old (what no event announces — a link's
 * liveness judged on the tick, a mismatch — is then at most that stale).
 * On the 980-switch fat-tree a graph takes ~45 ms to make; a search on it
 * well under one.
 */
#ifndef OFCD_TOPO_PATHS_H
#define OFCD_TOPO_PATHS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "path_query.h"
#include "topo_links.h"
#include "topo_path_build.h"

struct topo_rest;
struct topo_path_cons;

#define TOPO_PATHS_MAX_AGE_US 1000000u

/* The kept graph and the count it was made at; lock held across a search. */
struct topo_paths_cache {
    pthread_mutex_t lock;
    atomic_uint_fast64_t touched;       /* the topology's changes (topo_paths_touch) */
    bool built;
    uint64_t built_at;                  /* touched + the admin's changes, when made */
    uint64_t built_us;                  /* and when (monotonic) */
    struct topo_path_build b;
};

void topo_paths_cache_init(struct topo_paths_cache *c);
void topo_paths_cache_fini(struct topo_paths_cache *c);
/* The topology moved: the kept graph is made again before its next use.
 * Any thread, any lock held. */
void topo_paths_touch(struct topo_paths_cache *c);

/* One link of a path: from, the end on the switch the path comes from; to,
 * the end it goes on from. */
struct topo_path_hop {
    struct topo_end from, to;
};

/*
 * The best path from switch src to switch dst under pathfinder's
 * constraints cons (topo_path_cons.h; NULL: the fewest links), over no
 * link of avoid[0..n_avoid) (a backup for a path: no link in common,
 * switches may be) nor of the constraints' undesired_links: pathfinder's
 * first answer to the same question, into out (cap hops of room), *n set.
 * 0; -ENOENT when either switch is unknown or down, or no path joins them
 * and meets the constraints; -EDOM when a link's metadata the constraints
 * weigh is of the wrong type; -E2BIG when the path is longer than cap;
 * -ENOMEM. src == dst is 0 with no hop.
 */
int topo_paths_best(struct topo_rest *t, uint64_t src, uint64_t dst,
                    const struct topo_path_cons *cons, const struct topo_path_hop *avoid,
                    size_t n_avoid, struct topo_path_hop *out, size_t cap, size_t *n);

/* Inside fn (topo_paths_run), on the graph b: the k best paths between
 * its nodes src and dst under cons (NULL: the fewest links), over no link
 * of avoid[0..n_avoid) nor of cons' undesired_links — path_query_run's
 * answer (-EDOM with *err naming the link and metric), shared by
 * topo_paths_best and pathfinder's route. */
int topo_paths_query(const struct topo_path_build *b, const struct topo_path_cons *cons,
                     uint32_t src, uint32_t dst, unsigned k, const struct topo_path_hop *avoid,
                     size_t n_avoid, struct path_list *out, struct path_query_err *err);

/* fn over the kept graph (made again first if the topology moved), its
 * lock held: fn's answer, or graph_now's -errno (-ENOMEM, -E2BIG). For a
 * search of one's own (pathfinder's REST route). */
int topo_paths_run(struct topo_rest *t, int (*fn)(const struct topo_path_build *b, void *arg),
                   void *arg);

/* The topology's count of changes (what makes the kept graph again): a
 * caller that saw it unchanged knows no path it checked moved since, but
 * for what only ages (TOPO_PATHS_MAX_AGE_US). Any thread. */
uint64_t topo_paths_version(struct topo_rest *t);

/* Whether every link of the path h[0..n) is up now (its interfaces and
 * itself up and enabled): 1 yes, 0 no (a switch or link gone counts), or
 * -ENOMEM when the graph cannot be made (not known). */
int topo_paths_up(struct topo_rest *t, const struct topo_path_hop *h, size_t n);

#endif
