/*
 * store_etcd: the cluster's store backend (store.h, STORE_BACKEND_ETCD):
 * etcd is the truth, a local LMDB store the mirror every read is served
 * from. For the backend's files only; callers use store.h.
 *
 * Layout under the cluster's prefix P (docs/cluster.md, "Cluster:
 * flows through etcd"):
 *   P data/flows/<dpid16>/<match_id16>   a flow record (store_etcd_rec_*)
 *   P data/state/<dpid16>/<match_id16>   its installed/error state, written
 *                                        by the switch's master only
 *   P data/inst/<dpid16>                 a switch's installed flows, certified
 *                                        by its master (store_etcd_inst.c)
 *   P data/apps/<key>                    an app's record, value as given
 * A leader-only app record (store_kv_put_leader) goes in a transaction
 * that compares the leader's member key's create revision (store_leader_fn).
 * A flow put deletes its state key in the same transaction: a new version
 * starts pending (a flow neither the mirror nor the batch holds has none). The mirror keeps the etcd revision it has applied under
 * the kv key STORE_ETCD_REV_KEY, written after that revision's changes and
 * only if every one of them was applied, so a restart watches from the
 * next one (a compacted one: a full read) and never skips a change.
 *
 * Three threads: the store queue's committer (store_etcd.c) turns each
 * batch into etcd transactions of at most 128 operations and confirms it
 * once the mirror has applied the revision they got (read-your-writes);
 * the watcher (store_etcd_watch.c) reads the prefix once, then watches it
 * and queues each change to the mirror; the mirror's own committer applies
 * them and calls the store's watcher (store_watch is the mirror's).
 */
#ifndef OFCD_STORE_ETCD_H
#define OFCD_STORE_ETCD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "etcd_client.h"
#include "ofcd_hset.h"
#include "ofcd_pairmap.h"
#include "store.h"
#include "store_queue.h"

/* The mirror's own records live under STORE_ETCD_OWN_PREFIX in its kv
 * space, next to the apps' records: no app record may be named there (the
 * backend refuses to write one, -EINVAL, and one found in etcd, written by
 * anyone, is not applied), so nothing but the watcher moves the revision. */
#define STORE_ETCD_OWN_PREFIX "ofcd/"
#define STORE_ETCD_REV_KEY STORE_ETCD_OWN_PREFIX "etcd_revision"
#define STORE_ETCD_PREFIX_MAX 160u
#define STORE_ETCD_KEY_MAX (STORE_ETCD_PREFIX_MAX + 16u + STORE_KV_KEY_MAX)

enum store_etcd_key_kind {
    STORE_ETCD_KEY_OTHER = 0,       /* under data/, not ours (a newer layout) */
    STORE_ETCD_KEY_FLOW,
    STORE_ETCD_KEY_STATE,
    STORE_ETCD_KEY_APP,
    STORE_ETCD_KEY_SYNC,            /* P data/sync: a node marking its catch-up */
    STORE_ETCD_KEY_INST,            /* P data/inst/<dpid16>: installed, certified */
};

struct store_etcd_key {
    enum store_etcd_key_kind kind;
    uint64_t dpid, match_id;        /* FLOW, STATE; INST: dpid */
    const char *app;                /* APP: points into the parsed key */
    size_t app_len;
};

/* ---- keys and records (store_etcd_rec.c, pure) --------------------------- */

/* P data/sync, the key a node writes when it starts to catch up: once its
 * watch has delivered that write, it has delivered everything before. */
#define STORE_ETCD_SYNC_KEY "sync"

/* The revision a watch message brings the copy to: its last event's
 * mod_revision (etcd heads each part of a catch-up with its current
 * revision, ahead of the events still to come); the header's for a
 * progress notice (no events, not the creation); 0 when neither. */
int64_t store_etcd_watch_rev(const struct etcd_watch_resp *r);

/* P data/flows/... into buf: its length, or -ENAMETOOLONG. */
int store_etcd_key_flow(char *buf, size_t cap, const char *data_prefix, uint64_t dpid,
                        uint64_t match_id);
int store_etcd_key_state(char *buf, size_t cap, const char *data_prefix, uint64_t dpid,
                         uint64_t match_id);
int store_etcd_key_app(char *buf, size_t cap, const char *data_prefix, const char *key);
int store_etcd_key_inst(char *buf, size_t cap, const char *data_prefix, uint64_t dpid);
/* A key read from etcd (not NUL-terminated): 0 and *out, or -EINVAL when
 * it is not under data_prefix. */
int store_etcd_key_parse(const char *data_prefix, const uint8_t *key, size_t len,
                         struct store_etcd_key *out);

/* A flow's value: a text line "ofcd-flow 1 <flow_id> <state> <err_type>
 * <err_code> <added_ns> <changed_ns> <owner_len>" (the times the writer's)
 * then the owner and the JSON, so etcdctl shows it readably. malloc'd into *out; its length, or -ENOMEM / -EINVAL. */
int store_etcd_rec_encode(const struct store_flow *f, char **out);
/* f's pointers into v (the owner, *owner_len bytes, not NUL-terminated:
 * the caller copies it); dpid and match_id are the caller's (from the
 * key). 0, or -EBADMSG. */
int store_etcd_rec_decode(const uint8_t *v, size_t len, struct store_flow *f,
                          size_t *owner_len);
/* A state's value: "ofcd-state 1 <flow_id> <state> <err_type> <err_code>". */
int store_etcd_state_encode(char *buf, size_t cap, uint64_t flow_id,
                            enum store_flow_state state, uint16_t err_type, uint16_t err_code);
int store_etcd_state_decode(const uint8_t *v, size_t len, uint64_t *flow_id,
                            enum store_flow_state *state, uint16_t *err_type,
                            uint16_t *err_code);

/* A switch's installed flows, certified by its master (P data/inst/<dpid>):
 * "ofcd-inst 1 <rev> <n>" then n lines "<match_id16> <flow_id16>", the
 * flows its master confirmed since its last such write. rev certifies
 * more: every flow record of the switch at or before etcd revision rev
 * that is pending was confirmed installed (in this write or an earlier
 * one), which is what a full read, seeing only the newest write, goes by.
 * One write per switch every STORE_ETCD_INST_WINDOW_MS instead of one
 * state key per flow: etcd's cost is per operation. */
#define STORE_ETCD_INST_MAX 256u
struct store_etcd_inst_ent {
    uint64_t match_id, flow_id;
    int64_t rev;                    /* the confirmed record's revision (held
                                     * only, not in the value; 0 when read) */
};
/* malloc'd into *out: its length, or -EINVAL / -ENOMEM. */
int store_etcd_inst_encode(int64_t rev, const struct store_etcd_inst_ent *e, size_t n,
                           char **out);
/* Into e (STORE_ETCD_INST_MAX entries) and *n: 0, or -EBADMSG. */
int store_etcd_inst_decode(const uint8_t *v, size_t len, int64_t *rev,
                           struct store_etcd_inst_ent *e, size_t *n);

/* ---- the backend --------------------------------------------------------- */

/* A leader-only put waiting for its guarded transaction (committer only). */
struct store_etcd_lead_op {
    char *key, *val;                /* malloc'd, handed to the transaction */
    size_t klen, vlen;
    struct store_op *op;            /* its rc is -EPERM when the guard fails */
};

/* A state update waiting for its guarded transaction (committer only);
 * or, with inst, a switch's certified installed flows (its P data/inst
 * value, malloc'd, match_id STORE_ETCD_INST_MATCH). */
struct store_etcd_state_op {
    uint64_t dpid, match_id, flow_id;
    enum store_flow_state state;
    uint16_t err_type, err_code;
    size_t seq;                     /* queue order within the batch */
    bool dpid_skip;                 /* its switch not mastered here: dropped */
    char *inst;
    size_t inst_len;
};
#define STORE_ETCD_INST_MATCH UINT64_MAX

/* A switch's installed confirmations held back for company (committer). */
struct store_etcd_held {
    uint64_t dpid;
    uint64_t first_us;              /* the oldest one's arrival (monotonic) */
    bool tried;                     /* not certifiable at the last try, and no
                                     * confirmation came since: next at the hold */
    struct store_etcd_inst_ent *e;
    size_t n, cap;
};

/* A confirmation waits at most this for its switch's others; past it, one
 * that still cannot be certified gets its own state key. */
#define STORE_ETCD_INST_WINDOW_MS 100u
#define STORE_ETCD_INST_HOLD_MS 1000u

#define STORE_ETCD_GUARD_KEY_MAX 320u   /* a candidate key (cl_keys.h's CL_KEY_MAX) */

struct store_etcd {
    struct store_queue q;           /* first: the group commit, then struct store */
    struct store *mirror;           /* LMDB: every read */
    char data_prefix[STORE_ETCD_PREFIX_MAX];
    unsigned confirm_ms;
    store_guard_fn guard;
    void *guard_arg;
    store_leader_fn leader;
    void *leader_arg;

    /* committer thread only */
    struct etcd_client *wc;
    bool refuse;                    /* this batch: the copy is behind */
    struct etcd_op ops[ETCD_TXN_OPS_MAX];
    void *mem[ETCD_TXN_OPS_MAX * 2];
    size_t n_ops, n_mem;
    bool in_states;                 /* the commit's guarded state transactions */
    size_t n_plain;                 /* ops[0..n_plain): changes that go whatever the
                                     * guards of the states after them say */
    int64_t batch_rev;              /* the newest revision this batch wrote */
    struct ofcd_hset wrote;         /* the flows this batch wrote (a read of them
                                     * settles first) */
    struct store_etcd_state_op *st;
    size_t n_st, cap_st;
    struct store_etcd_lead_op *lead;   /* this batch's leader-only puts */
    size_t n_lead, cap_lead;
    struct etcd_cmp gcmp[ETCD_TXN_OPS_MAX];                  /* the guards of one txn */
    char gkey[ETCD_TXN_OPS_MAX][STORE_ETCD_GUARD_KEY_MAX];
    struct store_etcd_held *held;   /* installed confirmations held back */
    size_t n_held, cap_held;
    struct ofcd_pairmap held_ix;    /* (dpid, 0) -> its index in held */
    bool flush_all;                 /* this batch: every held one goes (a sync) */
    struct ofcd_hset st_own;        /* flows with a state op of their own in s->st */

    /* The copy's pending flows, as the watcher has received them: what a
     * master certifies a switch's installed flows against (pend_lock). */
    pthread_mutex_t pend_lock;
    struct ofcd_pairmap pend;       /* (dpid, match_id) -> flow_id */
    struct ofcd_pairmap pend_rv;    /* (dpid, match_id) -> its record's revision
                                     * (0: from the copy at open, older than any) */
    struct ofcd_pairmap pend_n;     /* (dpid, 0) -> how many */
    int64_t pend_rev;               /* every change up to it is in pend */
    bool pend_broken;               /* out of memory once: certify nothing */
    bool pend_filling;              /* a full read rebuilds it: certify nothing */
    /* A full read's pending records, in key order, with their revisions
     * (watcher only): what its P data/inst values' revisions cover. */
    struct store_etcd_fr_ent { uint64_t dpid, match_id, flow_id; int64_t rev; } *fr;
    size_t n_fr, cap_fr;
    bool in_full;

    /* the watcher thread */
    struct etcd_client *rc;
    pthread_t watcher;
    bool watcher_started;
    atomic_bool stop;
    int64_t queued_rev;             /* the newest revision queued to the mirror */
    bool need_full;
    unsigned repair_ms;             /* the pause before the next full read's try */
    bool map_warned;                /* the copy's map past 80 %, said once */

    pthread_mutex_t lock;           /* the fields below */
    pthread_cond_t cv;              /* applied moved, armed, stop */
    bool armed;                     /* a watcher is set or a write waits */
    bool ready;                     /* caught up with etcd once: ready_rev */
    int64_t ready_rev;              /* the mirror holds etcd as of then once applied */
    int64_t applied;                /* the mirror holds every change up to it */
    uint64_t mirror_errors;         /* changes the mirror failed to apply */
    uint64_t lost_run;              /* of them since the copy was last whole */
    bool behind;                    /* a change not applied: writes refused, a full
                                     * read to come (store_queue_kv_mark_async) */
    uint64_t guard_refused;         /* state updates of switches not mastered here */
};

/* The watcher (store_etcd_watch.c): start reads the mirror's revision
 * (not yet etcd: it waits to be armed); stop joins it. */
int store_etcd_watch_start(struct store_etcd *s);
void store_etcd_watch_stop(struct store_etcd *s);
/* Let it read etcd now (a watcher was set, or a write waits). */
void store_etcd_arm(struct store_etcd *s);
/* Wait (at most confirm_ms) until the mirror has caught up with etcd once
 * since it was armed: 0, or -ETIMEDOUT, or -ESTALE when it could not apply
 * a change (logged: reads are stale until it has). */
int store_etcd_wait_ready(struct store_etcd *s);

/* ---- installed states, certified per switch (store_etcd_inst.c) ---------- */

/* The watcher's side: a flow record put (pending: its state is PENDING) or
 * decided (deleted, or a state other than pending for flow_id, 0: any). */
void store_etcd_pend_record(struct store_etcd *s, uint64_t dpid, uint64_t match_id,
                            uint64_t flow_id, int64_t rev, bool pending);
void store_etcd_pend_decided(struct store_etcd *s, uint64_t dpid, uint64_t match_id,
                             uint64_t flow_id);
void store_etcd_pend_at(struct store_etcd *s, int64_t rev);
/* A full read rebuilds it: emptied, nothing certified until refilled at
 * rev (-1: the read failed, nothing certified until the next one). */
void store_etcd_pend_refill(struct store_etcd *s);
void store_etcd_pend_refilled(struct store_etcd *s, int64_t rev);
/* From the mirror, at open: 0 or <0 (then nothing is certified). */
int store_etcd_pend_load(struct store_etcd *s);
/* A full read's pending record (in key order): 0 or -ENOMEM. */
int store_etcd_fr_note(struct store_etcd *s, uint64_t dpid, uint64_t match_id,
                       uint64_t flow_id, int64_t rev);
/* A flow's state into the copy (waiting while the mirror's queue of state
 * updates is full); one not pending is decided for certification. 0, or
 * the mirror's error. */
int store_etcd_copy_state(struct store_etcd *s, uint64_t dpid, uint64_t match_id,
                          uint64_t flow_id, enum store_flow_state st, uint16_t err_type,
                          uint16_t err_code);
/* A P data/inst value applied to the mirror: its flows installed; in a full
 * read also every pending record of the switch read at or before its
 * revision. 0, or the mirror's error. */
int store_etcd_inst_apply(struct store_etcd *s, uint64_t dpid, const uint8_t *v, size_t len);

/* The committer's side. An op for s->st: 0 or -ENOMEM. */
int store_etcd_st_push(struct store_etcd *s, const struct store_etcd_state_op *op);
/* A flow the master confirmed installed, held back: 0 or -ENOMEM. */
int store_etcd_held_add(struct store_etcd *s, uint64_t dpid, uint64_t match_id,
                        uint64_t flow_id, uint64_t now_us);
/* A later state of the flow goes on its own: the held one is dropped. */
void store_etcd_held_drop(struct store_etcd *s, uint64_t dpid, uint64_t match_id);
/* The switches due (all: every one) into s->st: a P data/inst op where
 * the copy certifies them, else (past the hold, or all) one state op per
 * flow. 0 or -ENOMEM. */
int store_etcd_held_flush(struct store_etcd *s, uint64_t now_us, bool all);
/* A P data/inst op etcd took: its flows are no longer pending for the
 * next certification of its switch, whether or not the watch has brought
 * it back yet (its own flow_id only: a newer version stays). */
void store_etcd_inst_sent(struct store_etcd *s, const struct store_etcd_state_op *op);
/* When the next switch falls due (monotonic µs), 0: none held. */
uint64_t store_etcd_held_due(const struct store_etcd *s);
void store_etcd_inst_free(struct store_etcd *s);

#endif
