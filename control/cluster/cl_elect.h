/*
 * cl_elect: who masters one switch in a cluster, decided from what etcd
 * holds — pure, no I/O, no clock of its own (issue 27; docs/internals.md
 * "Cluster").
 *
 * Each node whose OpenFlow channel to the switch is up keeps a candidate
 * key for it (prefix/switches/<dpid>/cand/<node>), bound to the node's
 * lease; the candidate whose key has the lowest create revision wins (etcd's
 * election rule, kept per switch without a blocking campaign call). The
 * winner's create revision is the switch's generation_id: it only grows
 * across the cluster, so a master that comes back after its key was gone
 * asks with an older generation than the one the switch has seen and is
 * refused (OFPRRFC_STALE).
 *
 * struct cl_cands is one switch's candidates as this node last saw them
 * (its watch's PUTs and DELETEs, or a range read at start). cl_decide is
 * the whole policy: given the candidates, whether this node's channel is
 * up, whether it may act (cl_fence.h) and what role it last had confirmed,
 * what to do next. The caller does it (etcd txn, ROLE_REQUEST) and feeds
 * the outcome back.
 */
#ifndef OFCD_CL_ELECT_H
#define OFCD_CL_ELECT_H

#include <stdbool.h>
#include <stdint.h>

#define CL_NODES_MAX 16             /* nodes in a cluster (candidates per switch) */
#define CL_NODE_NAME_MAX 64         /* a node's id, NUL included */

struct cl_cand {
    char node[CL_NODE_NAME_MAX];
    int64_t create_rev;             /* of its candidate key; > 0 */
};

struct cl_cands {
    struct cl_cand c[CL_NODES_MAX];
    unsigned n;
};

/* A candidate key seen (a watch PUT or a range read): add it, or update the
 * node's revision (a key deleted and made again has a new one). 0; -EINVAL
 * for an empty or too long name or a revision <= 0; -ENOSPC past
 * CL_NODES_MAX nodes. */
int cl_cands_put(struct cl_cands *s, const char *node, int64_t create_rev);
/* A candidate key gone (a watch DELETE: resigned, or its lease expired). */
void cl_cands_del(struct cl_cands *s, const char *node);

/* The winner (lowest create revision; NULL with no candidate). */
const struct cl_cand *cl_cands_winner(const struct cl_cands *s);

enum cl_role {
    CL_ROLE_NONE = 0,               /* no role asked of the switch yet */
    CL_ROLE_SLAVE,
    CL_ROLE_MASTER,
};

/* What this node knows of itself for one switch. */
struct cl_self {
    const char *node;               /* this node's id */
    bool channel_up;                /* its OpenFlow channel to the switch */
    bool may_act;                   /* cl_fence: the lease is surely still ours */
    enum cl_role role;              /* the role the switch last confirmed (ROLE_REPLY) */
    int64_t generation;             /* with the generation it was confirmed for */
    bool asking;                    /* a ROLE_REQUEST is out, unanswered */
    bool leaving;                   /* this node leaves the cluster (SIGTERM) */
};

enum cl_action_kind {
    CL_DO_NOTHING = 0,
    CL_DO_STAND,                    /* create our candidate key (bound to our lease) */
    CL_DO_RESIGN,                   /* delete our candidate key */
    CL_DO_ASK_MASTER,               /* ROLE_REQUEST MASTER, generation_id = .generation */
    CL_DO_ASK_SLAVE,                /* ROLE_REQUEST SLAVE, generation_id = .generation */
    CL_DO_ASK_ROLE,                 /* ROLE_REQUEST NOCHANGE: which role the switch gives
                                     * us now (SLAVE once another master took over) */
};

struct cl_action {
    enum cl_action_kind kind;
    int64_t generation;             /* ASK: the winner's create revision (a switch checks
                                     * the generation of SLAVE requests too) */
};

/*
 * The next step for this node and this switch:
 *  - channel down: resign if we still stand (nothing to ask a switch we
 *    cannot reach);
 *  - leaving (SIGTERM: our keys go with our lease): stand no more; where
 *    the switch has us as master, ask our role until another node's
 *    MASTER request has made us SLAVE (a hand-over: the switch is never
 *    without a master meanwhile);
 *  - channel up, no candidate of ours: stand;
 *  - we win and may act: ask MASTER with the winner's revision, unless
 *    the switch confirmed exactly that already or a request is out;
 *  - another node wins while the switch has us as master and we may act
 *    (a balance hand-over): do not step down, ask our role until the
 *    winner's MASTER request has made us SLAVE;
 *  - otherwise (we do not win, or may not act: the fence): ask SLAVE with
 *    the winner's revision unless the switch has us as SLAVE of that
 *    generation already or a request is out. A master that may not act
 *    steps down at once, before another node can win.
 * Never two requests at once: the answer comes first.
 */
struct cl_action cl_decide(const struct cl_cands *s, const struct cl_self *self);

/* May this node send FLOW_MODs and PACKET_OUTs to the switch now? Only as
 * the confirmed master of the current winner's generation, while it may
 * act. */
bool cl_may_write(const struct cl_cands *s, const struct cl_self *self);

#endif
