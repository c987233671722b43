/*
 * store: ofcd's durable flow store, one LMDB environment under app.data_dir.
 *
 * Owns the "flows" database (and the apps' small records, "apps": see
 * store_kv_put below): one flow record per (dpid, match_id) holding the
 * flow's identity, its state (pending / installed / error with the switch's
 * OpenFlow error type/code / deleted), timestamps, owner and the flow's JSON
 * text as the REST layer received it (opaque bytes here). A deleted flow
 * may be kept (store_mark_deleted_if) with its deletion time in changed_ns
 * until store_purge_deleted() removes it; a put of the same key replaces it.
 *
 * How it is called:
 *  - The control thread opens it once with store_open() and closes it with
 *    store_close() after the REST server has stopped.
 *  - REST handlers (libmicrohttpd pool threads) call store_put*() /
 *    store_del*() which block until the change is durable: a 202 may only be
 *    sent after they return 0.
 *  - The flow manager reports barrier replies and OFPT_ERRORs with
 *    store_set_state(), which never blocks.
 *  - Readers (GET stored_flows, consistency check, start-up load) use
 *    store_get() and store_foreach(); they never wait for writers.
 *
 * Group commit: every change is queued to one committer thread owned by the
 * store. The committer takes everything queued at that moment and applies
 * it in ONE LMDB write transaction with ONE sync, then wakes the callers of
 * that batch. While it syncs, new changes queue up for the next batch, so
 * the number of syncs per second, not their cost, bounds latency and the
 * throughput grows with the number of concurrent callers. Changes are
 * applied in the order they were queued.
 *
 * Durability: LMDB runs with its default (synchronous) commit, so a change
 * whose blocking call returned 0 survives SIGKILL of the process and, on
 * storage that honours fsync, a power cut. Reopening after a crash sees
 * exactly the committed batches.
 *
 * All functions are thread-safe on one struct store. Return values are 0 or
 * a negative errno code; store_open() returns NULL and logs why.
 */
#ifndef OFCD_STORE_H
#define OFCD_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofcd_counters.h"

#define STORE_DEFAULT_MAP_SIZE ((size_t)1 << 30)   /* 1 GiB of address space */
#define STORE_DEFAULT_MAX_ASYNC 65536u
#define STORE_DEFAULT_BG_LINGER_US 5000u
#define STORE_OWNER_MAX 255                       /* bytes, without the NUL */

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

struct store_config {
    const char *dir;        /* created (one level) if missing */
    /*
     * 0: STORE_DEFAULT_MAP_SIZE. The database's hard cap. Puts stop
     * (-ENOSPC) 1/8 of the map (16 pages .. 64 MiB) early so that deletes
     * and state updates still find room; a map under twice that reserve
     * (128 KiB with 4 KiB pages) is refused.
     */
    size_t map_size;
    /*
     * Batching window. 0 commits as soon as anything is queued; batches
     * then form from what arrives during the previous sync. With
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
    X(async_lost, "store_set_state() whose commit failed")
#define STORE_GAUGES(X)                                                                   \
    X(max_batch, "most operations in one commit")                                         \
    X(commit_ns_max, "longest commit, nanoseconds")                                       \
    X(records, "flows stored now")                                                        \
    X(map_size, "LMDB map size, bytes")                                                   \
    X(map_used, "bytes of the map in use (high-water mark)")

struct store_stats {
    STORE_COUNTERS(OFCD_COUNTER_FIELD)
    STORE_GAUGES(OFCD_COUNTER_FIELD)
};

extern const struct ofcd_counter_group store_counters;       /* "store" */

struct store;

/*
 * Open (or create) the store under cfg->dir and start its committer thread.
 * Stale reader slots left by a killed process are cleared. NULL (logged)
 * when the directory cannot be created, LMDB refuses the environment (e.g.
 * map_size smaller than the existing data) or the thread cannot start.
 */
struct store *store_open(const struct store_config *cfg);

/*
 * Commit everything still queued (async state updates included), stop the
 * committer and close LMDB. No other call may run on s concurrently or
 * after. NULL is accepted.
 */
void store_close(struct store *s);

/*
 * Store n flows as one atomic change and block until it is durable. A flow
 * whose (dpid, match_id) is already stored replaces the old record entirely
 * (new flow_id, state, owner, JSON, added_ns).
 * Returns 0 once durable, or:
 *   -EINVAL     n == 0, a NULL flow, json NULL with json_len > 0, a state out
 *               of range, or an owner longer than STORE_OWNER_MAX
 *   -ENOSPC     the map is full (see map_size): none of the n flows was stored (other
 *               callers' changes in the same batch are unaffected)
 *   -EIO (or another negative errno) the commit of the batch failed: none of
 *               its changes is stored and every caller in it gets this code
 *   -ECANCELED  the store is closing
 */
int store_put_many(struct store *s, const struct store_flow *flows, size_t n);
int store_put(struct store *s, const struct store_flow *flow);

/*
 * The same without blocking: done(arg, rc) is called exactly once, on the
 * committer thread after the commit (or its failure), with what
 * store_put_many would have returned; callbacks of one batch run in queue
 * order, so changes are confirmed in the order they became durable. flows
 * (and what they point to) must stay valid until then. done must be quick
 * and must not wait for the store (it may queue more changes). Returns 0
 * when queued, or -EINVAL / -ECANCELED / -ENOMEM at once (done then is
 * never called). Not bounded by max_async: the caller's own limit on
 * requests in flight bounds it (the REST server's connection limit).
 */
typedef void (*store_done_fn)(void *arg, int rc);
int store_put_many_async(struct store *s, const struct store_flow *flows, size_t n,
                         store_done_fn done, void *arg);

/*
 * Delete one flow and block until durable. 0 when it was deleted, -ENOENT if
 * it was not stored; otherwise the errors of store_put_many().
 */
int store_del(struct store *s, uint64_t dpid, uint64_t match_id);

/*
 * Predicate for store_del_if(): nonzero to delete f. It runs on the
 * committer thread inside the write transaction, so it must be quick and
 * must not call any store function. f's pointers are valid only during the
 * call. It may be called again for the same record if the batch has to be
 * retried, so count deletions from *deleted, not from inside it.
 */
typedef int (*store_pred_fn)(const struct store_flow *f, void *arg);

/*
 * Delete, atomically and durably, every flow of *dpid (every flow when dpid
 * is NULL) for which pred returns nonzero; *deleted (if not NULL) gets how
 * many. Errors as store_put_many().
 */
int store_del_if(struct store *s, const uint64_t *dpid, store_pred_fn pred, void *arg,
                 uint64_t *deleted);

/*
 * The same, but the flows are kept in state DELETED with changed_ns the
 * commit time; those already deleted are left as they are (not passed to
 * pred). *marked (if not NULL) gets how many. Errors as store_put_many().
 */
int store_mark_deleted_if(struct store *s, const uint64_t *dpid, store_pred_fn pred, void *arg,
                          uint64_t *marked);

/*
 * store_del_if (mark false) or store_mark_deleted_if (mark true) without
 * waiting: done(done_arg, rc) follows on the committer once durable, in
 * commit order with store_put_many_async's, as its done does; pred and arg
 * must stay valid until then. Returns 0 when queued, or -EINVAL /
 * -ECANCELED / -ENOMEM at once (done then is never called).
 */
int store_select_async(struct store *s, const uint64_t *dpid, store_pred_fn pred, void *arg,
                       bool mark, store_done_fn done, void *done_arg);

/*
 * Queue, without waiting, the removal of every flow deleted before
 * before_ns (CLOCK_REALTIME); committed with the next batch. 0 when queued,
 * -EAGAIN when max_async operations are already queued, -ENOMEM,
 * -ECANCELED while closing.
 */
int store_purge_deleted(struct store *s, uint64_t before_ns);

/*
 * Queue a state change without waiting; it is committed with the next batch.
 * It applies only if the stored record still has flow_id (0: any flow_id),
 * so a late barrier reply for a replaced flow cannot mark the new version
 * installed, and a deleted flow stays deleted; otherwise it is ignored
 * (counted in state_stale). changed_ns is
 * set to the commit time. err_type/err_code are kept only for ERROR.
 * Returns 0 when queued, -EINVAL for a bad state, -EAGAIN when max_async
 * updates are already queued (the caller decides whether to retry),
 * -ENOMEM, -ECANCELED while closing.
 */
int store_set_state(struct store *s, uint64_t dpid, uint64_t match_id, uint64_t flow_id,
                    enum store_flow_state state, uint16_t err_type, uint16_t err_code);

/* Block until everything queued before this call (async updates too) is durable. */
int store_sync(struct store *s);

/*
 * Look one flow up in the last committed state. On 0, *out holds a private
 * copy (owner, json) that the caller frees with store_flow_release().
 * -ENOENT when not stored, -EIO (or -errno) when LMDB fails.
 */
int store_get(struct store *s, uint64_t dpid, uint64_t match_id, struct store_flow *out);
void store_flow_release(struct store_flow *f);

/*
 * Call cb for every flow of *dpid (all flows when dpid is NULL) in
 * (dpid, match_id) order, on one consistent snapshot. f's pointers are valid
 * only during the call. cb returns 0 to go on, > 0 to stop (store_foreach
 * then returns 0), < 0 to stop and have store_foreach return that value.
 * cb may call store_put() etc.; they do not see the snapshot change.
 */
typedef int (*store_iter_fn)(const struct store_flow *f, void *arg);
int store_foreach(struct store *s, const uint64_t *dpid, store_iter_fn cb, void *arg);

/*
 * The same, from the first record at or after (from_dpid, from_match_id) in
 * key order (dpid, then match_id, unsigned): a way to walk the store in
 * pieces, each in a read transaction of its own, so no reader holds one
 * for long. What commits between two pieces may or may not be seen.
 */
int store_foreach_from(struct store *s, const uint64_t *dpid, uint64_t from_dpid,
                       uint64_t from_match_id, store_iter_fn cb, void *arg);

/*
 * Call cb, as store_foreach does, for each of the flows (dpid, match_ids[i])
 * in the order given, on one snapshot; a key not stored is skipped. For a
 * reader that has ordered keys by something else than the key itself.
 */
int store_get_each(struct store *s, uint64_t dpid, const uint64_t *match_ids, size_t n,
                   store_iter_fn cb, void *arg);

/* Fill *st; 0, or -EIO when LMDB cannot report the record count. */
int store_get_stats(struct store *s, struct store_stats *st);

/*
 * The apps' records: the "apps" database of the same environment, for what
 * an app must keep over a restart next to the flows (the topology's
 * metadata and what an operator disabled). Keys are strings
 * ("topology/meta/link/<id>"), values opaque bytes.
 *
 * store_kv_put (replaces) and store_kv_del block until durable, in the same
 * group commits as flows: 0, -ENOENT (del: no such key), -EINVAL (an empty
 * key, one over STORE_KV_KEY_MAX bytes, a value over STORE_KV_VAL_MAX),
 * -ENOSPC (the map's reserve reached), -ECANCELED (closing), or the
 * commit's error. store_kv_foreach calls cb for each key starting with
 * prefix ("" or NULL: all) in byte order, the value borrowed for the call;
 * a cb returning non-zero stops the walk (a negative value is returned).
 */
#define STORE_KV_KEY_MAX 511               /* LMDB's default key limit */
#define STORE_KV_VAL_MAX ((size_t)1 << 20)
typedef int (*store_kv_fn)(const char *key, const void *val, size_t len, void *arg);
int store_kv_put(struct store *s, const char *key, const void *val, size_t len);
int store_kv_del(struct store *s, const char *key);
int store_kv_foreach(struct store *s, const char *prefix, store_kv_fn cb, void *arg);

const char *store_state_name(enum store_flow_state state);

#endif
