/*
 * cl_members: the live nodes of the cluster as the members/ keys show them
 * — each node's card (the JSON text it wrote: addresses, version,
 * readiness) and its lease — pure, bounded to CL_NODES_MAX. A node whose
 * key is gone (stopped, or its lease expired) is gone from here.
 */
#ifndef OFCD_CL_MEMBERS_H
#define OFCD_CL_MEMBERS_H

#include <stddef.h>
#include <stdint.h>

#include "cl_elect.h"

#define CL_CARD_MAX 512             /* a card's text, NUL included */

struct cl_member {
    char node[CL_NODE_NAME_MAX];
    char card[CL_CARD_MAX];
    int64_t lease;
    int64_t create_rev;             /* of its key: when it (last) joined */
    int64_t ttl_s;                  /* its lease's TTL left as etcd said it, -1 = not yet */
    uint64_t ttl_at_us;             /* when etcd said it (monotonic) */
};

struct cl_members {
    struct cl_member m[CL_NODES_MAX];
    unsigned n;
};

/* A card seen: added or replaced. 0; -EINVAL (empty name, a card too long
 * for CL_CARD_MAX); -ENOSPC past CL_NODES_MAX nodes. */
int cl_members_put(struct cl_members *s, const char *node, const void *card, size_t len,
                   int64_t lease, int64_t create_rev);
void cl_members_del(struct cl_members *s, const char *node);
/* etcd said at at_us that node's lease has ttl_s seconds left: kept if the
 * node still holds that lease. */
void cl_members_ttl(struct cl_members *s, const char *node, int64_t lease, int64_t ttl_s,
                    uint64_t at_us);
/* Its TTL left at now_us (what etcd said, less the time since; 0 at the
 * least), -1 when not known. */
int64_t cl_member_ttl_left(const struct cl_member *m, uint64_t now_us);
const struct cl_member *cl_members_find(const struct cl_members *s, const char *node);
/* The cluster's leader: the live node that joined first (its key's lowest
 * create revision; the name decides a tie, which etcd never makes). Every
 * node reading the same members/ keys names the same one, and a leader
 * stays so until it leaves or its lease ends, so the job a single node
 * must do (the circuits' changes) never moves while it runs. NULL: none. */
const struct cl_member *cl_members_eldest(const struct cl_members *s);

#endif
