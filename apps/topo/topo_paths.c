/* topo_paths: see topo_paths.h. */
#include "topo_paths.h"

#include <errno.h>
#include <stdbool.h>

#include "dpid.h"
#include "path_query.h"
#include "topo_path_build.h"

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

int topo_paths_shortest(struct topo_rest *t, uint64_t src, uint64_t dst,
                        struct topo_path_hop *out, size_t cap, size_t *n)
{
    struct topo_path_build b;
    char a[24], z[24];

    *n = 0;
    int rc = topo_path_build(&b, t);
    if (rc < 0) {
        topo_path_build_free(&b);
        return rc;
    }
    dpid_format(src, a);
    dpid_format(dst, z);
    long s = topo_path_node(&b, a), d = topo_path_node(&b, z);
    if (s < 0 || d < 0) {
        topo_path_build_free(&b);
        return -ENOENT;
    }
    struct path_query q = {.src = (uint32_t)s, .dst = (uint32_t)d, .weight = PATH_KSP_HOP,
                           .k = 1};
    struct path_list l = {0};
    struct path_query_err err;
    rc = src == dst ? 0 : path_query_run(&b.g, &q, &l, &err);
    if (rc == 0 && src != dst)
        rc = l.n ? hops_of(&b, &l.p[0], out, cap, n) : -ENOENT;
    path_list_free(&l);
    topo_path_build_free(&b);
    return rc;
}
