/*
 * cl_table: the switches as the cluster sees them from this node — for
 * each dpid its candidates (from etcd), whether this node's channel is up,
 * what it asked the switch and what the switch confirmed — and the steps
 * that turn cl_decide's policy into requests with their timeouts. Pure: no
 * I/O, no lock, time passed in. In ofcd two threads share one table under
 * one mutex (apps/cluster): the cluster thread writes the candidates and
 * carries out stand/resign against etcd; the control thread feeds the
 * switch events and sends the ROLE_REQUESTs.
 *
 * Bounded: at most max switches. A switch whose channel is down, with no
 * candidate left and no key of ours, is dropped by cl_table_sweep.
 */
#ifndef OFCD_CL_TABLE_H
#define OFCD_CL_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "cl_elect.h"

/* A ROLE_REQUEST unanswered this long is given up and asked again. */
#define CL_ASK_TIMEOUT_US 2000000u
/* After a refusal (an OFPT_ERROR: a stale generation, most often the
 * candidates this node saw being behind etcd), this long before asking
 * again: the watch catches up meanwhile. */
#define CL_RETRY_AFTER_US 500000u

struct cl_sw {
    uint64_t dpid;
    struct cl_sw *hnext;
    struct cl_cands cands;          /* etcd's view, as the watch delivered it */
    /* the channel and the role handshake (control thread) */
    bool channel_up;
    uint64_t conn;                  /* the channel's handle (opaque here) */
    enum cl_role role;              /* confirmed by the switch */
    int64_t generation;             /* the generation it was confirmed with */
    bool asking;
    bool asked_role;                /* the request out is a NOCHANGE (CL_DO_ASK_ROLE) */
    bool leaving;                   /* this node leaves: cl_self.leaving */
    bool async_sent;                /* SET_ASYNC went on this connection (cnode_class) */
    enum cl_role asked;
    int64_t asked_generation;
    uint32_t ask_xid;
    uint64_t ask_at_us, retry_at_us;
    /* our candidate key: wanted (cl_decide), written (cluster thread) */
    bool want_stand;
    bool stood;
    bool yielding;                  /* balancing: resign once, then stand again behind */
    /* counted */
    uint64_t role_changes, refusals, ask_timeouts;
};

struct cl_table {
    struct cl_sw **bucket;
    unsigned n_buckets;             /* a power of two */
    unsigned n, max;
};

/* 0, -EINVAL (max 0) or -ENOMEM. */
int cl_table_init(struct cl_table *t, unsigned max);
void cl_table_free(struct cl_table *t);

struct cl_sw *cl_table_find(const struct cl_table *t, uint64_t dpid);
/* The switch's record, made when new: NULL at the bound (or out of memory). */
struct cl_sw *cl_table_get(struct cl_table *t, uint64_t dpid);

/* Every record, in no particular order; fn may not add or remove any. */
void cl_table_each(const struct cl_table *t, void (*fn)(void *arg, struct cl_sw *sw),
                   void *arg);

/* Drop the records that hold nothing (channel down, no candidate, no key
 * of ours standing or wanted). Returns how many went. */
unsigned cl_table_sweep(struct cl_table *t);

/* The channel came up on conn / went down: whatever the switch confirmed
 * before is void (a new connection starts with no role). */
void cl_sw_up(struct cl_sw *sw, uint64_t conn);
void cl_sw_down(struct cl_sw *sw);

struct cl_ask {
    bool send;                      /* a ROLE_REQUEST to send now */
    bool nochange;                  /* OFPCR_ROLE_NOCHANGE: asks the role, changes none */
    enum cl_role role;              /* else MASTER or SLAVE */
    int64_t generation;             /* MASTER: the winner's create revision */
};

/* A hand-over asks the switch our role (NOCHANGE) this often until it
 * says SLAVE. */
#define CL_ROLE_QUERY_EVERY_US 50000u

/* One step of this node's part for sw at now: cl_decide, then
 *  - want_stand follows the channel (the cluster thread writes or deletes
 *    the key; returns true when want_stand changed), so a channel back
 *    before the old key was deleted keeps the key and its place;
 *  - an ask fills *ask (the caller sends it with a fresh xid and calls
 *    cl_sw_asked) unless a refusal's wait is not over;
 *  - an ask out longer than CL_ASK_TIMEOUT_US is given up first. */
bool cl_sw_step(struct cl_sw *sw, const char *node, bool may_act, uint64_t now_us,
                struct cl_ask *ask);
void cl_sw_asked(struct cl_sw *sw, const struct cl_ask *ask, uint32_t xid, uint64_t now_us);

/* May this node send sw FLOW_MODs and PACKET_OUTs now (cl_may_write on
 * what the table holds)? */
bool cl_sw_may_write(const struct cl_sw *sw, const char *node, bool may_act);

/* The switch's ROLE_REPLY to xid: 1 when the confirmed role changed, 0
 * when not, -ESRCH when no request of ours has that xid (ignored). The
 * answer to a NOCHANGE sets the role and generation the switch gives; one
 * that still says MASTER is asked again CL_ROLE_QUERY_EVERY_US later. */
int cl_sw_reply(struct cl_sw *sw, uint32_t xid, enum cl_role role, int64_t generation);
/* The switch refused the request xid (OFPET_ROLE_REQUEST_FAILED): 0, or
 * -ESRCH as above. */
int cl_sw_refused(struct cl_sw *sw, uint32_t xid, uint64_t now_us);

/*
 * Balancing: masters spread evenly over the live nodes. Every node works
 * out the same plan from the same candidates: over the switches in dpid
 * order, one whose winner masters more than the share (ceil(switches with
 * a candidate / live nodes)) goes to the first candidate behind it that
 * masters fewer; the winner and every candidate ranked before that one
 * yield it (resign, then stand again behind), each node its own part, so
 * the target wins. A node back from a restart, last everywhere, gets its
 * share this way. The dpids this node yields go to out (at most max);
 * returns how many. Nothing while a yield of this node's is under way or
 * with fewer than two live nodes.
 */
unsigned cl_table_balance(const struct cl_table *t, const char *node, unsigned live_nodes,
                          uint64_t *out, unsigned max);
/* Start a yield of sw (cl_sw_step carries it out). */
void cl_sw_yield(struct cl_sw *sw);

/* The winner as etcd has it (NULL: nobody stands). */
const struct cl_cand *cl_sw_winner(const struct cl_sw *sw);

#endif
