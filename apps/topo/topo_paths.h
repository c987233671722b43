/*
 * topo_paths: the topology's paths for another app (the circuits'), in C
 * types: the shortest path between two switches over the links that are up,
 * as pathfinder finds it (topo_path_build's graph, apps/path's search), as
 * the links it crosses with their ends in the path's order. The same answer
 * as POST /api/kytos/pathfinder/v3/ with spf_max_paths 1 and no constraint,
 * without the JSON. From any thread that may take the switch view's lock
 * (not the control thread while it holds it).
 */
#ifndef OFCD_TOPO_PATHS_H
#define OFCD_TOPO_PATHS_H

#include <stddef.h>
#include <stdint.h>

#include "topo_links.h"

struct topo_rest;

/* One link of a path: from, the end on the switch the path comes from; to,
 * the end it goes on from. */
struct topo_path_hop {
    struct topo_end from, to;
};

/*
 * The fewest-links path from switch src to switch dst into out (cap hops
 * of room), *n set. 0; -ENOENT when either switch is unknown or down, or no
 * path joins them; -E2BIG when the path is longer than cap; -ENOMEM. src ==
 * dst is 0 with no hop.
 */
int topo_paths_shortest(struct topo_rest *t, uint64_t src, uint64_t dst,
                        struct topo_path_hop *out, size_t cap, size_t *n);

#endif
