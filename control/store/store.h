/*
 * store: ofcd's flow store, the interface every backend implements.
 *
 * Holds the flows (one record per (dpid, match_id): the flow's identity, its
 * state — pending / installed / error with the switch's OpenFlow error
 * type/code / deleted —, timestamps, owner and the flow's JSON text as the
 * REST layer received it, opaque bytes here) and the apps' small records
 * (store_kv_*: string keys, opaque values). A deleted flow may be kept
 * (store_mark_deleted_if) with its deletion time in changed_ns until
 * store_purge_deleted() removes it; a put of the same key replaces it.
 *
 * Backends (store_open picks one from store_config.backend):
 *  - lmdb   (store_lmdb.c, the product's): one LMDB environment under
 *           store_config.dir; a change is durable (fsync'd) when confirmed.
 *  - memory (store_mem.c): a sorted map in this process; nothing survives
 *           a restart ("durable" there means: committed and readable).
 *           For tests and benches.
 *  - etcd   (store_etcd*.c, a cluster's): the records in etcd under the
 *           cluster's prefix, an LMDB mirror under dir that every read is
 *           served from and every node keeps by watching; a change is
 *           confirmed once committed in etcd AND applied to this node's
 *           mirror. The watcher (store_watch) sees every node's changes.
 * All apply changes through the group commit of store_queue.h: every
 * change is queued to one committer thread of the store, which takes
 * everything queued at that moment and applies it as ONE transaction (for
 * LMDB with ONE sync), then confirms the changes of that batch in queue
 * order. While it commits, new changes queue for the next batch. Changes
 * are applied in the order they were queued.
 *
 * How it is called:
 *  - The control thread opens it once with store_open() and closes it with
 *    store_close() after the REST server has stopped.
 *  - REST handlers queue changes with the *_async calls and answer from the
 *    completion (a 202 only once it said 0); tests and the apps may use the
 *    blocking forms (store_put, store_del, store_kv_put...), which wait for
 *    the same completion.
 *  - The flow manager reports barrier replies and OFPT_ERRORs with
 *    store_set_state(), which never blocks.
 *  - Readers (GET stored_flows, consistency check, start-up load) use
 *    store_get(), store_foreach*() and store_get_each(); they never wait for
 *    a commit to finish being synced, and see the last committed state.
 *  - The cluster's flow manager follows the commits of every node through
 *    store_watch() (the etcd backend calls it for its mirror's commits).
 *
 * The interface is struct store_ops, one table per backend; the functions
 * below keep the callers' names as thin inline wrappers of it
 * (store_put_many_async(s, ...) is s->ops->put_many_async(s, ...)). What
 * the table holds, and what is built on it here rather than in each backend:
 *
 *   ops table (one per backend)          built on it (store.c, the same for all)
 *   ---------------------------          --------------------------------------
 *   close                                store_open (picks the backend)
 *   put_many_async                       store_put_many, store_put (wait for it)
 *   del_async                            store_del
 *   select_async                         store_del_if, store_mark_deleted_if
 *   set_state, purge_deleted             (queued, nobody waits)
 *   sync_async                           store_sync
 *   kv_put_async, kv_del_async           store_kv_put, store_kv_del
 *   kv_put_leader_async                  store_kv_put_leader
 *   get                                  store_flow_release (get's copy is one block)
 *   foreach_from                         store_foreach (from the dpid's first key)
 *   get_each, kv_foreach, get_stats      store_kv_get (one key, on kv_foreach)
 *   watch                                store_state_name, store_backend_by_name
 *
 * All functions are thread-safe on one struct store. Return values are 0 or
 * a negative errno code; store_open() returns NULL and logs why.
 */
#ifndef OFCD_STORE_H
#define OFCD_STORE_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofcd_counters.h"

#define STORE_DEFAULT_MAP_SIZE ((size_t)1 << 30)   /* 1 GiB of address space */
#define STORE_DEFAULT_MAX_ASYNC 65536u
#define STORE_DEFAULT_BG_LINGER_US 5000u
#define STORE_DEFAULT_CHECKPOINT_MS 1000u
#define STORE_DEFAULT_CHECKPOINT_BYTES ((uint64_t)64 << 20)
#define STORE_OWNER_MAX 255                       /* bytes, without the NUL */

/* What a reader of store_get_each() reads (struct store_ops.get_each). */
#define STORE_READ_ALL 0u
#define STORE_READ_VERSION 1u

enum store_flow_state {
    STORE_FLOW_PENDING = 0,   /* accepted, flow_mod sent or to be sent */
    STORE_FLOW_INSTALLED = 1, /* the barrier after its flow_mod was answered */
    STORE_FLOW_ERROR = 2,     /* the switch answered OFPT_ERROR: err_type/code */
    STORE_FLOW_DELETED = 3,   /* deleted, kept for a while: changed_ns says when */
};

/*
 * One flow record. On input (store_put*) the caller fills every field but the
 * timestamps, which the store sets to the commit time. On output
 * (store_get, store_foreach) every field is filled; owner is NUL-terminated.
 */
struct store_flow {
    uint64_t dpid;
    uint64_t match_id;     /* hash(dpid, table_id, priority, match): the key */
    uint64_t flow_id;      /* hash of the whole flow */
    enum store_flow_state state;
    uint16_t err_type;     /* OpenFlow error type/code when state is ERROR */
    uint16_t err_code;
    uint64_t added_ns;     /* CLOCK_REALTIME, ns: when this version was stored */
    uint64_t changed_ns;   /* CLOCK_REALTIME, ns: last state change */
    const char *owner;     /* may be NULL or "" on input */
    const void *json;      /* the flow's JSON text, not NUL-terminated */
    size_t json_len;
    void *priv;            /* store_get(): the copy to release; else unused */
};

enum store_backend {
    STORE_BACKEND_LMDB = 0,   /* durable, under dir: the product's */
    STORE_BACKEND_MEMORY,     /* in this process only: tests and benches */
    STORE_BACKEND_ETCD,       /* a cluster's: etcd, an LMDB mirror under dir */
};

/*
 * A master-only write's guard (the etcd backend's state updates, which only
 * a switch's master makes): for dpid, the key whose create revision must
 * still be *rev when the write commits (this node's candidate key, the
 * generation it masters the switch with). 0 with key and *rev filled, or
 * -EPERM when this node does not master the switch: the update is dropped.
 * Called on the store's committer thread; quick, never calls the store.
 */
typedef int (*store_guard_fn)(void *arg, uint64_t dpid, char *key, size_t cap, int64_t *rev);

/*
 * A leader-only write's guard (store_kv_put_leader through the etcd
 * backend): the key whose create revision must still be *rev when the
 * write commits (this node's member key, as of when it became the eldest
 * member, the leader). 0 with key and *rev filled, or -EPERM when this
 * node does not lead: the write is refused. Called on the store's
 * committer thread; quick, never calls the store.
 */
typedef int (*store_leader_fn)(void *arg, char *key, size_t cap, int64_t *rev);

/* The etcd backend's settings: read during store_open only (copied). */
struct store_etcd_cfg {
    const char *const *endpoints;   /* "http://127.0.0.1:2379", ... */
    size_t n_endpoints;
    const char *prefix;             /* the cluster's ("/ofcd/v1/"): records under data/ */
    const char *ca, *cert, *key;    /* NULL = none */
    const char *user, *password;    /* NULL = no authentication */
    bool json;                      /* etcd's JSON gateway instead of gRPC */
    unsigned timeout_ms;            /* one etcd call; 0 = 5000 */
    /* A change is confirmed once the mirror shows it; past this (0 =
     * 10000 ms) its caller gets -ETIMEDOUT (it is in etcd all the same). */
    unsigned confirm_ms;
    store_guard_fn guard;           /* NULL: state updates unguarded */
    void *guard_arg;
    store_leader_fn leader;         /* NULL: leader-only puts unguarded */
    void *leader_arg;
};

struct store_config {
    enum store_backend backend;
    const char *dir;        /* lmdb: created (one level) if missing; memory: unused */
    /*
     * 0: STORE_DEFAULT_MAP_SIZE. The store's hard cap, bytes (LMDB: its map;
     * memory: what the records take). Puts stop (-ENOSPC) 1/8 of it early
     * (LMDB: 16 pages .. 64 MiB) so that deletes and state updates still
     * find room; an LMDB map under twice that reserve (128 KiB with 4 KiB
     * pages) is refused.
     */
    size_t map_size;
    /*
     * Batching window. 0 commits as soon as anything is queued; batches
     * then form from what arrives during the previous commit. With
     * linger_us > 0 the committer, once woken, waits up to linger_us more
     * for batch_target queued changes before it commits, and stops waiting
     * once no change a caller waits for has arrived for linger_us / 4;
     * only when it was idle (nothing queued as the last commit ended):
     * under load, what queues during a commit goes in the next at once.
     */
    unsigned linger_us;
    unsigned batch_target;
    unsigned max_async;     /* 0: STORE_DEFAULT_MAX_ASYNC queued store_set_state() */
    /*
     * Changes nobody waits for (store_set_state, store_purge_deleted) wait
     * up to this long (0: STORE_DEFAULT_BG_LINGER_US) for one somebody
     * waits for, or for max_async / 4 of their kind, and go in its commit:
     * a lone state update then never holds the commit a client waits for
     * behind a sync of its own.
     */
    unsigned bg_linger_us;
    /* etcd: where the records live (the mirror is an LMDB store under dir
     * with the settings above). */
    const struct store_etcd_cfg *etcd;
    /* lmdb, as a replica's mirror: a put keeps the flow's added_ns and
     * changed_ns as given (the writer's commit time; 0: this commit's), so
     * every node's copy says the same times. */
    bool keep_times;
    /* lmdb, as a replica's mirror: one sync per commit, not two (LMDB's
     * MDB_NOMETASYNC). A crash of the machine may undo the last commits,
     * never half of one, and what they held is read again from the
     * source (the revision applied is written in the same commit). */
    bool lazy_meta_sync;
    /* lmdb with lazy_meta_sync, no journal: the last commit's meta page is
     * synced this long after it by a thread of its own (store_lmdb_meta.h:
     * flow_manager.durability = group, one disk sync per commit); 0: only
     * by the next commit, as a replica's copy, which etcd refills. */
    unsigned meta_sync_ms;
#define STORE_GROUP_META_SYNC_MS 20
    /* Tests only (NULL): asked before each late meta sync; a negative
     * errno is taken as the sync's error (an EIO the disk would give). */
    int (*meta_sync_fault)(void);
    /*
     * lmdb: the durability source is a journal (store_lmdb_jnl.h): a
     * commit is one append and one fdatasync of its changes, LMDB is made
     * durable at checkpoints, every checkpoint_ms (0:
     * STORE_DEFAULT_CHECKPOINT_MS) or checkpoint_bytes of journal (0:
     * STORE_DEFAULT_CHECKPOINT_BYTES), whichever comes first. false: each
     * commit is LMDB's own (two syncs). Either way a confirmed change
     * survives a crash of the process or of the machine.
     */
    bool journal;
    unsigned checkpoint_ms;
    uint64_t checkpoint_bytes;
};

/* Counters since store_open(); store_get_stats() gives a consistent snapshot. */
#define STORE_COUNTERS(X)                                                                 \
    X(commits, "successful write transactions (one sync each)")                           \
    X(failed_commits, "transactions aborted or failing to commit")                        \
    X(changes, "queued operations committed (batch sizes summed)")                        \
    X(commit_ns_total, "nanoseconds inside commits: begin, apply, sync")                  \
    X(records_put, "flow records written")                                                \
    X(records_deleted, "flow records deleted")                                            \
    X(records_marked_deleted, "flow records kept in state deleted")                       \
    X(state_updates, "store_set_state() applied")                                         \
    X(state_stale, "store_set_state() ignored: key gone or flow_id replaced")             \
    X(async_rejected, "store_set_state() refused: queue full")                            \
    X(async_lost, "store_set_state() whose commit failed")                                \
    X(state_not_master, "store_set_state() dropped: this node does not master the switch "  \
      "(now) (etcd)")                                                                       \
    X(copy_errors, "changes read from etcd that this node's copy could not apply (etcd)")    \
    X(meta_syncs, "late syncs of LMDB's last commit (flow_manager.durability = group)")
#define STORE_GAUGES(X)                                                                   \
    X(max_batch, "most operations in one commit")                                         \
    X(commit_ns_max, "longest commit, nanoseconds")                                       \
    X(records, "flows stored now")                                                        \
    X(map_size, "size limit, bytes (LMDB: the map size)")                                 \
    X(map_used, "bytes in use (LMDB: the map's high-water mark)")                       \
    X(copy_revision, "the etcd revision this node's copy holds every change up to (etcd)") \
    X(copy_behind, "1 while this node's copy of etcd lacks a change it could not apply: "   \
      "writes refused here until a full read repairs it (etcd)")

struct store_stats {
    STORE_COUNTERS(OFCD_COUNTER_FIELD)
    STORE_GAUGES(OFCD_COUNTER_FIELD)
};

extern const struct ofcd_counter_group store_counters;       /* "store" */

/*
 * Completion of a queued change: called exactly once, on the store's
 * committer thread, after the commit (or its failure), with 0 or the
 * change's error (see the ops below); the completions of one batch run in
 * queue order, so changes are confirmed in the order they became durable.
 * It may run before the call that queued the change has returned: once
 * that call said 0, arg is done's. What the change points to (flows, keys,
 * values, a predicate's arg) must stay valid until done. done must be
 * quick and must not wait for the store (it may read it and queue more
 * changes).
 */
typedef void (*store_done_fn)(void *arg, int rc);

/* When the commit that completed a change ran (ofcd_clock_mono_us): its
 * batch taken off the queue (after the group-commit window and any commit
 * before it) and the batch durable. */
struct store_batch_times {
    uint64_t taken_us, durable_us;
};

/*
 * Predicate of a selective delete: nonzero to delete f. It runs on the
 * committer thread inside the write transaction, so it must be quick and
 * must not call any store function. f's pointers are valid only during the
 * call. It may be called again for the same record if the batch has to be
 * retried, so count deletions from *deleted, not from inside it.
 */
typedef int (*store_pred_fn)(const struct store_flow *f, void *arg);

/*
 * A reader's callback: f's pointers are valid only during the call. It
 * returns 0 to go on, > 0 to stop (the walk then returns 0), < 0 to stop
 * and have the walk return that value. It may queue changes (the *_async
 * calls, store_set_state) but must not wait for one (store_put, store_sync
 * ...): a backend may hold a read lock for the walk (memory does); the
 * change is not seen by the walk either way.
 */
typedef int (*store_iter_fn)(const struct store_flow *f, void *arg);

/* The apps' records: as store_iter_fn, the value borrowed for the call. */
typedef int (*store_kv_fn)(const char *key, const void *val, size_t len, void *arg);

/*
 * What one commit changed, for store_watch. A flow key written (put,
 * replaced, state updated, kept as deleted) or removed (deleted, purged);
 * an app record written or removed. Read the new value back with store_get
 * / store_kv_foreach if needed: the watcher is called once it is readable.
 */
enum store_change_kind {
    STORE_CHANGE_FLOW = 0,
    STORE_CHANGE_KV = 1,
};
struct store_change {
    enum store_change_kind kind;
    bool removed;
    uint64_t dpid, match_id;       /* STORE_CHANGE_FLOW */
    const char *key;               /* STORE_CHANGE_KV: valid during the call */
};

/*
 * Called after each successful commit with what it changed, in the order
 * applied (a key may appear more than once; a state update found stale and
 * a delete of a missing key change nothing and are not listed). seq counts
 * the commits since store_open (1, 2, ...; the stats' commits counter).
 * Called on the committer thread before that batch's completions, so a
 * caller told 0 has been seen by the watcher first. The same rules as
 * store_done_fn: quick, never waits for the store, and does not call
 * store_watch.
 */
typedef void (*store_watch_fn)(void *arg, uint64_t seq, const struct store_change *changes,
                               size_t n);

/*
 * The backend's table. Every write is queued and confirmed through done
 * (see store_done_fn); it returns 0 when queued, or at once -EINVAL (bad
 * arguments), -ECANCELED (closing) or -ENOMEM, and done then is never
 * called. The errors a change's done may get:
 *   -ENOSPC     the store is full (map_size): that change failed alone (other
 *               callers' changes in the same batch are unaffected)
 *   -EIO (or another negative errno) the commit of the batch failed: none of
 *               its changes is stored and every caller in it gets this code
 *   -ETIME      (etcd) the outcome is not known: a transaction was sent and
 *               no answer came (a leader election, a timeout), or the batch
 *               took several transactions and failed after some were
 *               stored; some, all or none of the batch may be stored
 *   -EINPROGRESS (etcd) stored in etcd, but this node's copy did not show
 *               it within confirm_ms: it is installed when it does
 *   -ECANCELED  the store is closing
 */
struct store;
struct store_ops {
    const char *name;        /* "lmdb", "memory" */
    /*
     * Commit everything still queued (state updates too), confirm it, stop
     * the committer and free s. No other call may run on s concurrently
     * or after.
     */
    void (*close)(struct store *s);
    /*
     * Store n flows as one atomic change. A flow whose (dpid, match_id) is
     * already stored replaces the old record entirely (new flow_id, state,
     * owner, JSON, added_ns). -EINVAL: n == 0, a NULL flow or done, json
     * NULL with json_len > 0, a state out of range, an owner longer than
     * STORE_OWNER_MAX.
     */
    int (*put_many_async)(struct store *s, const struct store_flow *flows, size_t n,
                          store_done_fn done, void *arg);
    /* Delete one flow: done gets 0, or -ENOENT when it was not stored. */
    int (*del_async)(struct store *s, uint64_t dpid, uint64_t match_id, store_done_fn done,
                     void *arg);
    /*
     * Delete, atomically, every flow of *dpid (every flow when dpid is NULL)
     * for which pred returns nonzero; or with mark, keep them in state
     * DELETED with changed_ns the commit time (those already deleted are
     * left as they are, not passed to pred). *count (if not NULL) gets how
     * many before done is called. pred and arg stay valid until done.
     */
    int (*select_async)(struct store *s, const uint64_t *dpid, store_pred_fn pred, void *arg,
                        bool mark, uint64_t *count, store_done_fn done, void *done_arg);
    /*
     * Queue a state change nobody waits for; committed with the next batch.
     * It applies only if the stored record still has flow_id (0: any), so a
     * late barrier reply for a replaced flow cannot mark the new version
     * installed, and a deleted flow stays deleted; otherwise it is ignored
     * (counted in state_stale). changed_ns is set to the commit time;
     * err_type/err_code are kept only for ERROR. 0 when queued, -EINVAL for
     * a bad state (DELETED included), -EAGAIN when max_async are queued (the
     * caller decides whether to retry), -ENOMEM, -ECANCELED while closing.
     */
    int (*set_state)(struct store *s, uint64_t dpid, uint64_t match_id, uint64_t flow_id,
                     enum store_flow_state state, uint16_t err_type, uint16_t err_code);
    /*
     * Queue, as set_state is, the removal of every flow deleted before
     * before_ns (CLOCK_REALTIME). Same returns.
     */
    int (*purge_deleted)(struct store *s, uint64_t before_ns);
    /* done once everything queued before this call (set_state too) is durable. */
    int (*sync_async)(struct store *s, store_done_fn done, void *arg);
    /*
     * An app's record: put (replaces) or delete, in the same commits as the
     * flows. -EINVAL: an empty key, one over STORE_KV_KEY_MAX bytes, a value
     * over STORE_KV_VAL_MAX, val NULL with len > 0. kv_del's done gets
     * -ENOENT when there was no such key. The flows' reserve applies to puts.
     */
    int (*kv_put_async)(struct store *s, const char *key, const void *val, size_t len,
                        store_done_fn done, void *arg);
    int (*kv_del_async)(struct store *s, const char *key, store_done_fn done, void *arg);
    /* A put only the cluster's leader makes (store_kv_put_leader). */
    int (*kv_put_leader_async)(struct store *s, const char *key, const void *val, size_t len,
                               store_done_fn done, void *arg);
    /*
     * Look one flow up in the last committed state. On 0, *out holds a
     * private copy (owner, json: one malloc'd block in out->priv, the JSON
     * followed by a NUL) that the caller frees with store_flow_release().
     * -ENOENT when not stored, -EIO (or -errno) when the backend fails.
     */
    int (*get)(struct store *s, uint64_t dpid, uint64_t match_id, struct store_flow *out);
    /*
     * Call cb for every flow of *dpid (all flows when dpid is NULL) from the
     * first record at or after (from_dpid, from_match_id) in key order
     * (dpid, then match_id, unsigned), on one consistent snapshot: a way to
     * walk the store in pieces, each a snapshot of its own, so no reader
     * holds one for long. What commits between two pieces may or may not be
     * seen.
     */
    int (*foreach_from)(struct store *s, const uint64_t *dpid, uint64_t from_dpid,
                        uint64_t from_match_id, store_iter_fn cb, void *arg);
    /*
     * Call cb for each of the flows (dpid, match_ids[i]) in the order given,
     * on one snapshot; a key not stored is skipped. For a reader that has
     * ordered keys by something else than the key itself. what:
     * STORE_READ_ALL, or STORE_READ_VERSION for a reader of flow_id and
     * whether the flow is deleted only: its flows may come with json NULL
     * (json_len still the text's), and state is STORE_FLOW_DELETED exactly
     * when the flow is, else one of its live states, not necessarily the
     * last (LMDB then decodes no text and reads no state record).
     */
    int (*get_each)(struct store *s, uint64_t dpid, const uint64_t *match_ids, size_t n,
                    unsigned what, store_iter_fn cb, void *arg);
    /*
     * Call cb for each app record whose key starts with prefix ("" or NULL:
     * all) in byte order, on one snapshot.
     */
    int (*kv_foreach)(struct store *s, const char *prefix, store_kv_fn cb, void *arg);
    /* Fill *st; 0, or -EIO when the backend cannot report the record count. */
    int (*get_stats)(struct store *s, struct store_stats *st);
    /*
     * Set the one watcher (fn NULL: none). Commits whose batch the
     * committer takes after this returns are reported to fn; once a call
     * with NULL (or another fn) returns, the old fn is not running and
     * will not be called again. 0.
     */
    int (*watch)(struct store *s, store_watch_fn fn, void *arg);
    /*
     * From a completion (store_done_fn, on the committer): the times of the
     * commit it belongs to. Zeroes from any other thread. What /metrics
     * splits a durable answer's time with.
     */
    void (*batch_times)(struct store *s, struct store_batch_times *out);
    /*
     * From a completion (on the committer): true when the store now holds
     * exactly what the completed change wrote: nothing but this process's
     * committer writes it, and no key of the change's batch was changed
     * twice in it. A reader of what it just wrote may then trust it
     * instead of reading it back. false from any other thread, and
     * whenever unsure (NULL: always false, as for etcd, whose other nodes
     * write too).
     */
    bool (*batch_final)(struct store *s);
};

/* Every backend's struct store starts with this. */
struct store {
    const struct store_ops *ops;
};

#define STORE_KV_KEY_MAX 511               /* LMDB's default key limit */
#define STORE_KV_VAL_MAX ((size_t)1 << 20)

/*
 * Open (or create) the store of cfg->backend. LMDB: under cfg->dir, stale
 * reader slots left by a killed process cleared. Memory: empty, and a
 * warning in the log that nothing of it survives a restart. NULL (logged)
 * when the directory cannot be created, LMDB refuses the environment (e.g.
 * map_size smaller than the existing data), the backend is unknown or the
 * committer thread cannot start.
 */
struct store *store_open(const struct store_config *cfg);
/* The backends' own constructors (cfg->backend is not read). */
struct store *store_lmdb_open(const struct store_config *cfg);
struct store *store_mem_open(const struct store_config *cfg);
struct store *store_etcd_open(const struct store_config *cfg);
/* "lmdb" / "memory" -> *out: 0, or -EINVAL for another name. */
int store_backend_by_name(const char *name, enum store_backend *out);

/* ofcdctl's store/stats (store_ctl.c): the backend and its counters. 0, or
 * ofcd_ctl_register's error; -EINVAL without a store. */
struct ofcd_ctl;
int store_ctl_register(struct store *s, struct ofcd_ctl *c);

/* ---- the ops, under the callers' names ----------------------------------- */

/* NULL is accepted. */
static inline void store_close(struct store *s)
{
    if (s)
        s->ops->close(s);
}

static inline int store_put_many_async(struct store *s, const struct store_flow *flows,
                                       size_t n, store_done_fn done, void *arg)
{
    return s ? s->ops->put_many_async(s, flows, n, done, arg) : -EINVAL;
}

static inline int store_del_async(struct store *s, uint64_t dpid, uint64_t match_id,
                                  store_done_fn done, void *arg)
{
    return s ? s->ops->del_async(s, dpid, match_id, done, arg) : -EINVAL;
}

static inline int store_kv_put_async(struct store *s, const char *key, const void *val,
                                     size_t len, store_done_fn done, void *arg)
{
    return s ? s->ops->kv_put_async(s, key, val, len, done, arg) : -EINVAL;
}

static inline int store_kv_del_async(struct store *s, const char *key, store_done_fn done,
                                     void *arg)
{
    return s ? s->ops->kv_del_async(s, key, done, arg) : -EINVAL;
}

static inline int store_kv_put_leader_async(struct store *s, const char *key, const void *val,
                                            size_t len, store_done_fn done, void *arg)
{
    return s ? s->ops->kv_put_leader_async(s, key, val, len, done, arg) : -EINVAL;
}

/* select_async without the count (the REST DELETE's). */
static inline int store_select_async(struct store *s, const uint64_t *dpid, store_pred_fn pred,
                                     void *arg, bool mark, store_done_fn done, void *done_arg)
{
    return s ? s->ops->select_async(s, dpid, pred, arg, mark, NULL, done, done_arg) : -EINVAL;
}

/* done(arg, rc) once everything queued before it is committed. */
static inline int store_sync_async(struct store *s, store_done_fn done, void *arg)
{
    return s ? s->ops->sync_async(s, done, arg) : -EINVAL;
}

static inline int store_set_state(struct store *s, uint64_t dpid, uint64_t match_id,
                                  uint64_t flow_id, enum store_flow_state state,
                                  uint16_t err_type, uint16_t err_code)
{
    return s ? s->ops->set_state(s, dpid, match_id, flow_id, state, err_type, err_code)
             : -EINVAL;
}

static inline int store_purge_deleted(struct store *s, uint64_t before_ns)
{
    return s ? s->ops->purge_deleted(s, before_ns) : -EINVAL;
}

static inline int store_get(struct store *s, uint64_t dpid, uint64_t match_id,
                            struct store_flow *out)
{
    return s ? s->ops->get(s, dpid, match_id, out) : -EINVAL;
}

static inline int store_foreach_from(struct store *s, const uint64_t *dpid, uint64_t from_dpid,
                                     uint64_t from_match_id, store_iter_fn cb, void *arg)
{
    return s ? s->ops->foreach_from(s, dpid, from_dpid, from_match_id, cb, arg) : -EINVAL;
}

/* Every flow of *dpid (all when NULL), in key order, on one snapshot. */
static inline int store_foreach(struct store *s, const uint64_t *dpid, store_iter_fn cb,
                                void *arg)
{
    return store_foreach_from(s, dpid, dpid ? *dpid : 0, 0, cb, arg);
}

static inline int store_get_each(struct store *s, uint64_t dpid, const uint64_t *match_ids,
                                 size_t n, store_iter_fn cb, void *arg)
{
    return s ? s->ops->get_each(s, dpid, match_ids, n, STORE_READ_ALL, cb, arg) : -EINVAL;
}

/* store_get_each() for a reader of flow_id and deleted-or-not only
 * (STORE_READ_VERSION): what the flow manager asks after each commit. */
static inline int store_get_each_version(struct store *s, uint64_t dpid,
                                         const uint64_t *match_ids, size_t n, store_iter_fn cb,
                                         void *arg)
{
    return s ? s->ops->get_each(s, dpid, match_ids, n, STORE_READ_VERSION, cb, arg) : -EINVAL;
}

static inline int store_kv_foreach(struct store *s, const char *prefix, store_kv_fn cb,
                                   void *arg)
{
    return s ? s->ops->kv_foreach(s, prefix, cb, arg) : -EINVAL;
}

/* false for NULL or a backend without it. */
static inline bool store_batch_final(struct store *s)
{
    return s && s->ops->batch_final && s->ops->batch_final(s);
}

/* Zeroes for NULL or a backend without it. */
static inline void store_batch_times(struct store *s, struct store_batch_times *out)
{
    if (s && s->ops->batch_times)
        s->ops->batch_times(s, out);
    else
        *out = (struct store_batch_times){0, 0};
}

static inline int store_get_stats(struct store *s, struct store_stats *st)
{
    return s ? s->ops->get_stats(s, st) : -EINVAL;
}

static inline int store_watch(struct store *s, store_watch_fn fn, void *arg)
{
    return s ? s->ops->watch(s, fn, arg) : -EINVAL;
}

/* ---- built on the ops (store.c) ---------------------------------------------- */

/*
 * The blocking forms: queue the change and wait for its completion; they
 * return what done would have been given (errors above).
 */
int store_put_many(struct store *s, const struct store_flow *flows, size_t n);
int store_put(struct store *s, const struct store_flow *flow);
/* 0 when it was deleted, -ENOENT if it was not stored. */
int store_del(struct store *s, uint64_t dpid, uint64_t match_id);
/* select_async without mark; *deleted (if not NULL) gets how many. */
int store_del_if(struct store *s, const uint64_t *dpid, store_pred_fn pred, void *arg,
                 uint64_t *deleted);
/* select_async with mark; *marked (if not NULL) gets how many. */
int store_mark_deleted_if(struct store *s, const uint64_t *dpid, store_pred_fn pred, void *arg,
                          uint64_t *marked);
/* Wait until everything queued before this call (state updates too) is durable. */
int store_sync(struct store *s);

/*
 * What the blocking forms are made of, for a caller whose own queued
 * change (one that ends in a store_done_fn) it must wait for: init w, give
 * store_waiter_done and w as the done and its arg, then
 * store_waiter_wait(w, what the queuing call returned): done's rc, or that
 * call's own result when it was not 0 (done is awaited only after a 0).
 */
struct store_waiter {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    bool done;
    int rc;
};
void store_waiter_init(struct store_waiter *w);
void store_waiter_done(void *arg, int rc);
int store_waiter_wait(struct store_waiter *w, int queued);
int store_kv_put(struct store *s, const char *key, const void *val, size_t len);
/*
 * store_kv_put for a record only the cluster's leader writes (the
 * circuits'): through etcd it commits only while etcd still holds this
 * node's member key with the revision it leads with (store_leader_fn), in
 * one transaction with that compare, so a leader paused past its lease
 * and resumed writes nothing over its successor's records: -EPERM, nothing
 * written (the batch's other changes are). Other backends: store_kv_put.
 */
int store_kv_put_leader(struct store *s, const char *key, const void *val, size_t len);
/* 0, or -ENOENT when there was no such key. */
int store_kv_del(struct store *s, const char *key);
/* The app record key as last committed: 0 with *val a malloc'd copy (the
 * caller frees it; NUL-terminated, the NUL not counted in *len), -ENOENT
 * when there is no such key, or kv_foreach's error. */
int store_kv_get(struct store *s, const char *key, char **val, size_t *len);

/* Free what store_get() copied (NULL and a zeroed flow are accepted). */
void store_flow_release(struct store_flow *f);

const char *store_state_name(enum store_flow_state state);
/* A change's error in the words a caller shows: the store's own meaning of
 * -ENOSPC, -ETIME, -EINPROGRESS, -ESTALE (a cluster node's copy behind
 * etcd), strerror's for the rest. */
const char *store_strerror(int rc);

#endif
