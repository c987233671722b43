/*
 * store_queue: the group commit the store's backends share (store.h says
 * what it does for the callers). For backends only: callers use store.h.
 *
 * Owns the queue of changes, the committer thread, the batching windows
 * (linger_us, bg_linger_us), the bound on queued background changes
 * (max_async), a batch cut to the backend's budget, the order of
 * completions, the replay of a failed batch one
 * change at a time, the commit counters and the watcher. A backend gives
 * it a transaction (struct store_txn_ops) and gets the write half of
 * struct store_ops (store_queue_*_async, set_state, purge_deleted, watch)
 * to put in its table as is.
 *
 * Layout: the backend's struct starts with a struct store_queue, which
 * starts with the struct store the callers hold, so the ops below find
 * their queue from the store pointer.
 *
 * Threads: the store_txn_ops run on the committer thread only, one
 * transaction at a time, without the queue's lock held.
 */
#ifndef OFCD_STORE_QUEUE_H
#define OFCD_STORE_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "ofcd_hset.h"
#include "ofcd_ratelimit.h"
#include "store.h"

enum store_op_kind {
    STORE_OP_PUT,
    STORE_OP_DEL,
    STORE_OP_DEL_IF,
    STORE_OP_STATE,
    STORE_OP_SYNC,
    STORE_OP_KV,
};

/* What a progress mark is (store_queue_kv_mark_async, _mark_restart_async). */
enum store_op_mark {
    STORE_MARK_NONE = 0,
    STORE_MARK_IF_WHOLE,        /* a STORE_OP_KV put only if nothing was lost */
    STORE_MARK_RESTART,         /* a STORE_OP_SYNC that forgets what was lost */
};

/* One queued change: the committer frees it after its completion. */
struct store_op {
    struct store_op *next;
    enum store_op_kind kind;
    enum store_op_mark mark;
    store_done_fn done_cb;  /* NULL: a background change (set_state, purge) */
    void *done_arg;
    int rc;
    union {
        struct {
            const struct store_flow *flows;
            size_t n;
        } put;
        struct {
            uint64_t dpid, match_id;
        } del;
        struct {
            bool all;
            bool mark;             /* keep them, in state DELETED */
            uint64_t dpid;
            store_pred_fn pred;
            void *arg;
            uint64_t purge_before_ns;   /* the purge's own predicate */
            uint64_t deleted;           /* set by the backend's apply */
            uint64_t *count;            /* the caller's, filled before done */
        } del_if;
        struct {
            uint64_t dpid, match_id, flow_id;
            enum store_flow_state state;
            uint16_t err_type, err_code;
        } st;
        struct {
            const char *key;
            const void *val;            /* NULL: delete */
            size_t len;
            bool leader;                /* a leader-only put (store_kv_put_leader) */
        } kv;
    } u;
};

/* What one transaction changed; added to the stats only if it commits. */
struct store_tally {
    uint64_t put, deleted, marked, state_updates, state_stale;
};

struct store_queue;

/*
 * A backend's transaction. Each returns 0 or a negative errno.
 *  begin   start one (nothing of it visible to readers until commit)
 *  apply   apply op inside it (now: CLOCK_REALTIME ns, the commit time),
 *          add to *t, and report each key it changed with
 *          store_queue_changed_*. -ENOENT from a single delete (STORE_OP_DEL,
 *          a kv delete) is that op's answer and changes nothing; any other
 *          error aborts the transaction. A DEL_IF sets u.del_if.deleted.
 *  commit  make it durable and visible; on error nothing of it is stored
 *  abort   undo it
 *  idle    (may be NULL) after a batch's completions: housekeeping that
 *          must not delay an answer (LMDB's write-ahead of its file)
 *  budget  (may be NULL: no bound) how many records (a put's flows each,
 *          one per other change) the next transaction may touch, 0 for
 *          no bound; the batch is cut there, in queue order (a single
 *          change always goes). Called with the queue's lock held: it
 *          must not block. LMDB's bound on what a commit leaves unusable
 *          behind it when its map is nearly full (store_lmdb.c).
 */
struct store_txn_ops {
    int (*begin)(struct store_queue *q);
    int (*apply)(struct store_queue *q, struct store_op *op, uint64_t now,
                 struct store_tally *t);
    int (*commit)(struct store_queue *q);
    void (*abort)(struct store_queue *q);
    void (*idle)(struct store_queue *q);
    unsigned (*budget)(struct store_queue *q);
    /* Work the backend holds back for company (the etcd backend's
     * installed states), done when due: called on the committer with the
     * queue empty, now_us the monotonic clock (0: the queue is stopping,
     * do everything now). Returns the monotonic microsecond it wants to be
     * called again at, or 0 for never unless changes come. */
    uint64_t (*tick)(struct store_queue *q, uint64_t now_us);
};

struct store_queue {
    struct store base;              /* first: what callers hold */
    const struct store_txn_ops *txn;
    pthread_t committer;
    bool committer_started;

    pthread_mutex_t lock;     /* everything below up to 'watch_lock' */
    pthread_cond_t work_cv;   /* queue non-empty / stopping (CLOCK_MONOTONIC) */
    struct store_op *head, *tail;
    unsigned queued;
    unsigned async_queued;
    unsigned fg_queued;       /* queued ops a caller waits for (with a done_cb) */
    struct timespec fg_last;  /* CLOCK_MONOTONIC: when the last of them was queued */
    bool stopping;
    struct store_stats st;    /* the queue's counters; the gauges are the backend's */
    bool watching;            /* a watcher is set: collect the changes */

    unsigned linger_us, batch_target, max_async, bg_linger_us;

    pthread_mutex_t watch_lock;   /* held while the watcher runs or is set */
    store_watch_fn watch_fn;
    void *watch_arg;

    /* committer thread only: the changes of the transaction being applied */
    struct store_batch_times times;     /* of the batch being committed or completed */
    bool collect;
    struct store_change *chg;
    size_t n_chg, cap_chg;

    /*
     * The backend reports every flow it changes (store_queue_changed_flow,
     * _state) and nothing but this committer writes it (not an etcd copy, whose
     * other nodes write too): set by the backend after store_queue_init.
     * Then each batch's flow keys are remembered (hashes, in an open
     * table: a collision only says "twice") to tell its completions
     * whether any key was changed twice (store_queue_batch_final).
     */
    bool exclusive;
    bool lost;                /* a change failed since the last mark restart */
    struct ofcd_ratelimit rl_replay, rl_full;   /* its failures' log lines */
    bool completing;          /* running the batch's completions */
    bool batch_twice;         /* a key of this batch changed twice, or unsure */
    struct ofcd_hset seen;
};

/* The queue of s (s from a backend built on store_queue). */
static inline struct store_queue *store_queue_of(struct store *s)
{
    return (struct store_queue *)s;
}

/*
 * Set up q (zeroed by the caller) with the backend's ops and transaction
 * and cfg's batching settings; no thread yet. 0 or -ENOMEM.
 */
int store_queue_init(struct store_queue *q, const struct store_ops *ops,
                     const struct store_txn_ops *txn, const struct store_config *cfg);
/* Start the committer thread. 0 or a negative errno (logged). */
int store_queue_start(struct store_queue *q);
/*
 * Commit and confirm everything queued, stop the committer (if it was
 * started) and free what init made. The backend closes its own after.
 */
void store_queue_stop(struct store_queue *q);

/* The write half of struct store_ops (see store.h). */
int store_queue_put_many_async(struct store *s, const struct store_flow *flows, size_t n,
                               store_done_fn done, void *arg);
int store_queue_del_async(struct store *s, uint64_t dpid, uint64_t match_id,
                          store_done_fn done, void *arg);
int store_queue_select_async(struct store *s, const uint64_t *dpid, store_pred_fn pred,
                             void *arg, bool mark, uint64_t *count, store_done_fn done,
                             void *done_arg);
int store_queue_set_state(struct store *s, uint64_t dpid, uint64_t match_id, uint64_t flow_id,
                          enum store_flow_state state, uint16_t err_type, uint16_t err_code);
int store_queue_purge_deleted(struct store *s, uint64_t before_ns);
int store_queue_sync_async(struct store *s, store_done_fn done, void *arg);
int store_queue_kv_put_async(struct store *s, const char *key, const void *val, size_t len,
                             store_done_fn done, void *arg);
int store_queue_kv_del_async(struct store *s, const char *key, store_done_fn done, void *arg);
/* A put with u.kv.leader set: the backend that knows a leader guards it,
 * the others apply it as any put. */
int store_queue_kv_put_leader_async(struct store *s, const char *key, const void *val,
                                    size_t len, store_done_fn done, void *arg);

/*
 * Progress marks, for a store that copies another (the etcd backend's
 * mirror records the revision it has applied): a kv put of key = val that
 * is applied only if no change queued since the last restart failed (its
 * completion got an error other than a single delete's -ENOENT); if one
 * did, nothing is written and done gets -ECANCELED, as every mark after it
 * does until a restart. The committer decides it in queue order, so a mark
 * never records progress past a change that is not there. A restart (a
 * full copy begins anew) forgets what was lost before it; done once it is
 * committed. Both: 0, -EINVAL, -ENOMEM, -ECANCELED while closing.
 */
int store_queue_kv_mark_async(struct store *s, const char *key, const void *val, size_t len,
                              store_done_fn done, void *arg);
int store_queue_mark_restart_async(struct store *s, store_done_fn done, void *arg);

int store_queue_watch(struct store *s, store_watch_fn fn, void *arg);
void store_queue_batch_times(struct store *s, struct store_batch_times *out);
/* struct store_ops.batch_final of an exclusive backend (store.h). */
bool store_queue_batch_final(struct store *s);

/* The write half in a backend's ops table, as every backend has it:
 * `static const struct store_ops x = {.name = ..., STORE_QUEUE_WRITE_OPS, ...}`. */
#define STORE_QUEUE_WRITE_OPS                                                             \
    .put_many_async = store_queue_put_many_async, .del_async = store_queue_del_async,     \
    .select_async = store_queue_select_async, .set_state = store_queue_set_state,         \
    .purge_deleted = store_queue_purge_deleted, .sync_async = store_queue_sync_async,     \
    .kv_put_async = store_queue_kv_put_async, .kv_del_async = store_queue_kv_del_async,  \
    .kv_put_leader_async = store_queue_kv_put_leader_async

/* The queue's counters (a backend's get_stats adds its gauges). */
void store_queue_stats(struct store_queue *q, struct store_stats *st);

/*
 * From apply: a key it changed. 0, or -ENOMEM (apply then fails: a watcher
 * must not miss a change). Free when nobody watches. A change of only a
 * flow's state (installed, error) is reported with _state: it leaves the
 * flow's version, so it does not count as the key changed twice.
 */
int store_queue_changed_flow(struct store_queue *q, uint64_t dpid, uint64_t match_id,
                             bool removed);
int store_queue_changed_state(struct store_queue *q, uint64_t dpid, uint64_t match_id);
int store_queue_changed_kv(struct store_queue *q, const char *key, bool removed);

/* The owner's length as stored (0 for NULL). */
size_t store_owner_len(const struct store_flow *f);

#endif
