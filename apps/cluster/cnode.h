/*
 * cnode: this node's membership of the cluster — the etcd thread and
 * the state it shares with the control thread (issue 27;
 * docs/cluster.md, "How it is built").
 *
 * The cluster thread (never a poll-mode lcore: every etcd call blocks) keeps
 * the node's lease (granted with cluster.lease_ttl_s, kept alive every
 * third of it, each answer moving the fence, cl_fence.h), writes the node's
 * card under members/ bound to it — only if no live node holds the name:
 * a node restarted within the TTL waits for its old lease to go —, reads every key of the prefix once and
 * then watches it (candidates into the table, cards into the members), and
 * writes or deletes this node's candidate key of each switch as the control
 * thread wants (want_stand), at most 128 in one transaction. A lease found
 * gone (expired while this node was stopped or cut off) is granted anew and
 * every key written again; a watch that ends is reopened after a full read.
 * Every CNODE_RELAY_MS it puts the events this node published under
 * events/<node>, and publishes those of other nodes that the watch shows
 * (cnode_relay.h); the events of a full read are old and not published.
 *
 * Everything in struct cnode below `lock` is guarded by it; the etcd
 * thread never holds it across a call to etcd.
 */
#ifndef OFCD_CNODE_H
#define OFCD_CNODE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cl_fence.h"
#include "cl_keys.h"
#include "cl_members.h"
#include "cnode_relay.h"
#include "cl_table.h"
#include "ofcd_counters.h"
#include "ofcd_ratelimit.h"

struct cnode_cfg {
    const char *const *endpoints;
    size_t n_endpoints;
    const char *node_id;
    const char *prefix;             /* "/.../" */
    unsigned ttl_s;
    const char *ca, *cert, *key;    /* NULL = none */
    const char *user, *password;    /* NULL = no authentication */
    bool json;                      /* etcd's JSON gateway instead of gRPC */
    unsigned max_switches;
    const char *card;               /* this node's card (JSON text, < CL_CARD_MAX) */
    struct rest_events *stream;     /* the event stream: relayed both ways (NULL: not) */
};

#define CNODE_COUNTERS(X)                                                               \
    X(lease_grants, "leases granted to this node (the first, then after each loss)")     \
    X(leases_lost, "leases found gone (expired while this node could not renew them)")   \
    X(keepalives, "lease keepalives answered")                                           \
    X(keepalive_failures, "lease keepalives that failed (etcd unreachable or no quorum)") \
    X(etcd_errors, "etcd calls that failed, keepalives included")                        \
    X(full_reads, "full reads of the cluster's keys (start, watch lost, compaction)")    \
    X(watch_events, "changes delivered by the watch")                                    \
    X(watch_restarts, "watches that ended and were opened again")                        \
    X(stands, "candidate keys written (this node stands for a switch)")                  \
    X(resigns, "candidate keys deleted (this node's channel to the switch went down)")   \
    X(bad_keys, "keys under the prefix this node could not read (logged)")               \
    X(name_taken, "tries to write this node's card while a live node held its name")    \
    X(role_requests, "ROLE_REQUESTs sent to switches")                                   \
    X(role_changes, "roles the switches confirmed that differ from the one before")      \
    X(masters_gained, "switches that confirmed this node as their master (failovers, "    \
      "hand-overs and first elections)")                                                  \
    X(masters_lost, "switches this node stopped mastering (demoted, or its channel went " \
      "down)")                                                                            \
    X(role_refusals, "ROLE_REQUESTs the switches refused (a stale generation, mostly)")  \
    X(role_timeouts, "ROLE_REQUESTs left unanswered for 2 s and asked again")            \
    X(send_failures, "ROLE_REQUESTs that found no room on the way out (asked again)")    \
    X(fence_closed, "times this node stopped acting as master: its lease unproved")      \
    X(yields, "switches this node handed over to balance the masters over the nodes")   \
    X(swept, "switch records let go: down here, and no node stands for them")            \
    X(events_out, "events of this node's stream sent to the other nodes")                \
    X(events_in, "events of other nodes published on this node's stream")                \
    X(events_dropped, "events not sent to the other nodes: the outbox was full or etcd " \
      "refused the batch")                                                                \
    X(events_bad, "relayed events this node could not read (logged)")
#define CNODE_GAUGES(X)                                                                 \
    X(nodes, "live nodes of the cluster (members/ keys)")                                 \
    X(switches, "switches in the cluster table")                                          \
    X(masters, "switches this node is the confirmed master of")                           \
    X(may_act, "1 while this node's lease is proved (it may act as a master)")            \
    X(revision, "the etcd revision this node has applied")                                \
    X(watch_lag_us, "from this node's last write of candidate keys to its watch delivering it, µs")

struct cnode_stats {
    CNODE_COUNTERS(OFCD_COUNTER_FIELD)
    CNODE_GAUGES(OFCD_COUNTER_FIELD)
};

extern const struct ofcd_counter_group cnode_counters;    /* "cluster" */

struct etcd_client;
struct rest_events;

#define CNODE_TXN_OPS 128u             /* etcd's default --max-txn-ops */

/* One transaction's worth of candidate keys to write or delete: the
 * cluster thread's alone. */
struct cnode_todo {
    uint64_t dpid[CNODE_TXN_OPS];
    bool stand[CNODE_TXN_OPS];
    char key[CNODE_TXN_OPS][CL_KEY_MAX];
    unsigned n;
};

struct cnode {
    char node_id[CL_NODE_NAME_MAX];
    char prefix[128];
    unsigned ttl_s;
    char card[CL_CARD_MAX];
    struct etcd_client *etcd;       /* the cluster thread's alone */
    pthread_t thread;
    bool started;
    atomic_bool stop;
    atomic_bool work;               /* the control thread changed a want_stand */
    atomic_bool leave;              /* the appliance stops: revoke, ask no lease again */
    struct cnode_todo todo;            /* the cluster thread's, outside the lock */
    struct rest_events *stream;
    /* The events this node published since the last batch: filled by the
     * publishers (cnode_tap), taken by the cluster thread. */
    pthread_mutex_t relay_lock;
    struct cnode_outbox outbox;
    uint64_t relay_dropped;         /* outbox.dropped already counted */
    struct ofcd_ratelimit rl_relay;

    pthread_mutex_t lock;
    struct cl_table table;
    struct cl_members members;
    struct cl_fence fence;
    int64_t lease;                  /* 0: none held */
    int64_t card_lease;             /* the lease our card is bound to: our name is ours */
    int64_t revision;               /* applied */
    int64_t await_rev;              /* a write of ours the watch has not shown yet, 0 = none */
    unsigned ttl_next;              /* the member whose lease TTL is asked next */
    uint64_t await_at_us;           /* when it was sent */
    bool synced;                    /* a full read done and the watch open */
    bool left;                      /* cnode_leave's revoke done */
    bool etcd_ok;                   /* the last call answered */
    char etcd_error[256];           /* the last failure's text */
    struct cnode_stats stats;
    struct ofcd_ratelimit rl_name;
};

/* Make the node and start its thread (the lease comes when etcd answers;
 * until then the fence is shut). 0, or a negative errno with the reason in
 * err (256 bytes). */
int cnode_start(struct cnode **out, const struct cnode_cfg *cfg, char *err);
/* Leave the cluster now, the channels still up: the cluster thread
 * revokes the lease (every candidate key of this node goes with it, so the
 * other nodes take the switches over at once and their MASTER requests
 * demote this node at each switch) and asks no lease again; from this call
 * on the node may not act as a master (cnode_may_act_locked). Returns at
 * once; cnode_has_left says when etcd took the lease back (until then
 * the revoke is tried again; past the appliance's stop the lease ends
 * with its TTL). */
void cnode_leave(struct cnode *n);
bool cnode_has_left(struct cnode *n);
/* Stop the thread and revoke the lease if cnode_leave did not, so the
 * other nodes take over the switches at once rather than after the TTL. */
void cnode_stop(struct cnode *n);

/* rest_events' tap (rest_events_set_tap): an event this node publishes,
 * into the outbox the cluster thread sends every CNODE_RELAY_MS. */
void cnode_tap(void *node, const char *kind, const json_t *data);

/* The control thread changed a want_stand: the etcd thread looks now. */
void cnode_wake(struct cnode *n);

/* May this node act as a master now: its lease proved (the fence), its
 * name claimed under that lease and its view read since (a lease found
 * gone makes the view a dead lease's until a full read)? With n->lock. */
bool cnode_may_act_locked(const struct cnode *n, uint64_t now_us);

/* The counters now (takes the lock). */
void cnode_get_stats(struct cnode *n, struct cnode_stats *out);

#endif
