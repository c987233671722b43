/*
 * store_queue: the group commit of the store's backends; see store_queue.h.
 *
 * Callers queue a calloc'd struct store_op under q->lock; the committer
 * thread (store_committer) takes the whole queue, applies it in one
 * transaction of the backend, whose commit is the one sync of the batch,
 * tells the watcher, then runs the completions in queue order. Only the
 * committer writes to the backend, so there is never more than one writer.
 */
#include "store_queue.h"
#include "ofcd_clock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ofcd_hset.h"
#include "ofcd_log.h"
#include "ofcd_ratelimit.h"

#define STORE_COMP "store"

size_t store_owner_len(const struct store_flow *f)
{
    return f->owner ? strnlen(f->owner, STORE_OWNER_MAX + 1) : 0;
}

static int store_flow_check(const struct store_flow *f)
{
    if (!f || (unsigned)f->state > STORE_FLOW_DELETED)
        return -EINVAL;
    if (!f->json && f->json_len)
        return -EINVAL;
    if (f->json_len > UINT32_MAX || store_owner_len(f) > STORE_OWNER_MAX)
        return -EINVAL;
    return 0;
}

/* ---- what a commit changed ------------------------------------------------ */

/* The batch's flow keys so far, as hashes; a key seen again (or a
 * collision, or no room to remember) marks the batch changed twice. */
static void store_note_key(struct store_queue *q, uint64_t dpid, uint64_t match_id)
{
    /* match_ids are hashes already */
    if (!q->batch_twice && ofcd_hset_add(&q->seen, dpid ^ match_id) != 1)
        q->batch_twice = true;
}

/* A new batch: nothing seen. A big batch's table is not kept past it. */
static void store_seen_reset(struct store_queue *q)
{
    q->batch_twice = false;
    ofcd_hset_clear(&q->seen, 65536);
}

static int store_queue_changed(struct store_queue *q, const struct store_change *c)
{
    if (!q->collect)
        return 0;
    if (q->n_chg == q->cap_chg) {
        size_t ncap = q->cap_chg ? q->cap_chg * 2 : 64;
        struct store_change *n = realloc(q->chg, ncap * sizeof(*n));

        if (!n)
            return -ENOMEM;
        q->chg = n;
        q->cap_chg = ncap;
    }
    q->chg[q->n_chg++] = *c;
    return 0;
}

int store_queue_changed_flow(struct store_queue *q, uint64_t dpid, uint64_t match_id,
                             bool removed)
{
    struct store_change c = {.kind = STORE_CHANGE_FLOW, .removed = removed, .dpid = dpid,
                             .match_id = match_id};
    if (q->exclusive)
        store_note_key(q, dpid, match_id);
    return store_queue_changed(q, &c);
}

int store_queue_changed_state(struct store_queue *q, uint64_t dpid, uint64_t match_id)
{
    struct store_change c = {.kind = STORE_CHANGE_FLOW, .dpid = dpid, .match_id = match_id};
    return store_queue_changed(q, &c);
}

int store_queue_changed_kv(struct store_queue *q, const char *key, bool removed)
{
    struct store_change c = {.kind = STORE_CHANGE_KV, .removed = removed, .key = key};
    return store_queue_changed(q, &c);
}

/* After commit number seq: the watcher gets what it changed. */
static void store_tell_watcher(struct store_queue *q, uint64_t seq)
{
    if (!q->collect)
        return;
    pthread_mutex_lock(&q->watch_lock);
    if (q->watch_fn && q->n_chg)
        q->watch_fn(q->watch_arg, seq, q->chg, q->n_chg);
    pthread_mutex_unlock(&q->watch_lock);
}

/* A large list from a bulk delete is not kept past its batch. */
static void store_changes_trim(struct store_queue *q)
{
    q->n_chg = 0;
    if (q->cap_chg > 4096) {
        free(q->chg);
        q->chg = NULL;
        q->cap_chg = 0;
    }
}

int store_queue_watch(struct store *s, store_watch_fn fn, void *arg)
{
    struct store_queue *q = store_queue_of(s);

    pthread_mutex_lock(&q->watch_lock);
    q->watch_fn = fn;
    q->watch_arg = arg;
    pthread_mutex_lock(&q->lock);
    q->watching = fn != NULL;
    pthread_mutex_unlock(&q->lock);
    pthread_mutex_unlock(&q->watch_lock);
    return 0;
}

/* ---- committer side ---------------------------------------------------- */

/* -ENOENT from a single delete is that caller's answer, not a failed batch. */
static bool store_op_soft_err(const struct store_op *op, int rc)
{
    return (op->kind == STORE_OP_DEL || op->kind == STORE_OP_KV) && rc == -ENOENT;
}

/*
 * Apply ops first..(end of list, or just first when single) in one
 * transaction and commit it. Returns 0, or the error; *at_apply tells whether
 * an operation failed (the transaction was then aborted) rather than the
 * transaction itself.
 */
static int store_txn_run(struct store_queue *q, struct store_op *first, bool single,
                         struct store_tally *t, bool *at_apply)
{
    uint64_t now = ofcd_clock_wall_ns();
    int rc;

    /* An aborted try forgets the restarts it met: its replay meets them again. */
    bool lost0 = q->lost;

    memset(t, 0, sizeof(*t));
    *at_apply = false;
    q->n_chg = 0;
    rc = q->txn->begin(q);
    if (rc)
        return rc;
    for (struct store_op *op = first; op; op = single ? NULL : op->next) {
        if (op->mark == STORE_MARK_RESTART)
            q->lost = false;
        if (op->mark == STORE_MARK_IF_WHOLE && q->lost) {
            op->rc = -ECANCELED;
            continue;
        }
        op->rc = q->txn->apply(q, op, now, t);
        if (op->rc && !store_op_soft_err(op, op->rc)) {
            rc = op->rc;
            q->txn->abort(q);
            q->lost = lost0;
            *at_apply = true;
            return rc;
        }
    }
    /* The sync of the whole batch happens here (LMDB's durable commit). */
    rc = q->txn->commit(q);
    if (rc)
        q->lost = lost0;
    return rc;
}

/* A change whose caller is told it failed: later marks must not pass it. */
static void store_op_failed(struct store_queue *q, struct store_op *op, int rc)
{
    op->rc = rc;
    if (op->mark == STORE_MARK_NONE && rc != -ENOENT)
        q->lost = true;
}

/* Counts a successful commit; its sequence number (the commits counter). */
static uint64_t store_stats_commit(struct store_queue *q, const struct store_tally *t,
                                   uint64_t nops, uint64_t ns)
{
    q->st.commits++;
    q->st.changes += nops;
    if (nops > q->st.max_batch)
        q->st.max_batch = nops;
    q->st.commit_ns_total += ns;
    if (ns > q->st.commit_ns_max)
        q->st.commit_ns_max = ns;
    q->st.records_put += t->put;
    q->st.records_deleted += t->deleted;
    q->st.records_marked_deleted += t->marked;
    q->st.state_updates += t->state_updates;
    q->st.state_stale += t->state_stale;
    return q->st.commits;
}

/* One transaction of ops from first (all of them, or just first when
 * single), counted and, once committed, told to the watcher. */
static int store_txn_counted(struct store_queue *q, struct store_op *first, bool single,
                             uint64_t nops, bool *at_apply)
{
    struct store_tally t;
    uint64_t t0 = ofcd_clock_mono_ns(), seq = 0;
    int rc = store_txn_run(q, first, single, &t, at_apply);
    uint64_t t1 = ofcd_clock_mono_ns();

    pthread_mutex_lock(&q->lock);
    if (rc == 0)
        seq = store_stats_commit(q, &t, nops, t1 - t0);
    else
        q->st.failed_commits++;
    pthread_mutex_unlock(&q->lock);
    if (rc == 0)
        store_tell_watcher(q, seq);
    return rc;
}

/*
 * Commit a taken batch. If one operation cannot be applied (typically the
 * store is full) the batch is replayed one operation per transaction, so
 * only that operation's caller sees the error; a failing commit fails
 * everyone in it because nothing of that transaction is durable.
 * Called without q->lock; takes it only to update the counters.
 */
/* One operation alone; once more if it failed for room: the backend's
 * abort may have made some (LMDB's journal lets its checkpoints' pages go,
 * store_lmdb_jnl.h). */
static int store_txn_single(struct store_queue *q, struct store_op *op, bool *at_apply)
{
    int rc = store_txn_counted(q, op, true, 1, at_apply);

    return rc == -ENOSPC ? store_txn_counted(q, op, true, 1, at_apply) : rc;
}

static void store_run_batch(struct store_queue *q, struct store_op *batch, uint64_t nops)
{
    bool at_apply;
    int rc = store_txn_counted(q, batch, false, nops, &at_apply);

    if (rc == 0)
        return;
    /* One change at a time finds the one that cannot be applied; not when
     * the outcome is not known (some may be stored: sent again one by one,
     * each would wait its own timeout) or known stored (-EINPROGRESS). */
    bool isolate = rc == -ENOSPC || (at_apply && rc != -ETIME && rc != -EINPROGRESS);
    if (nops > 1 && isolate) {
        LOG_WARN_RL(&q->rl_replay, ofcd_clock_mono_us(), STORE_COMP, "batch of %llu failed "
                    "(%s), replaying one by one", (unsigned long long)nops, strerror(-rc));
        for (struct store_op *op = batch; op; op = op->next) {
            int orc = store_txn_single(q, op, &at_apply);

            if (orc)
                store_op_failed(q, op, orc);
        }
        return;
    }
    /* A lone change that failed for room: once more (store_txn_single). */
    if (rc == -ENOSPC && nops == 1 && (rc = store_txn_counted(q, batch, true, 1, &at_apply)) == 0)
        return;
    if (rc == -ENOSPC)
        LOG_WARN_RL(&q->rl_full, ofcd_clock_mono_us(), STORE_COMP, "store full: change "
                    "refused (map_size too small?)");
    else
        LOG_ERR(STORE_COMP, "commit of %llu changes failed: %s", (unsigned long long)nops,
                strerror(-rc));
    /* A change the backend refused on its own (-EPERM: a leader-only put
     * from a node that does not lead) was not written whatever the rest
     * did: it keeps that answer (an -EINPROGRESS would read as stored). */
    for (struct store_op *op = batch; op; op = op->next)
        store_op_failed(q, op, op->rc == -EPERM ? -EPERM : rc);
}

static bool ts_before(struct timespec a, struct timespec b)
{
    return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

/* Only background changes are queued: let them wait (bg_linger_us) for a
 * change somebody waits for, or for enough of their own kind. */
static void store_wait_company(struct store_queue *q)
{
    struct timespec dl = ofcd_clock_deadline(q->bg_linger_us);
    while (!q->fg_queued && !q->stopping && q->async_queued < q->max_async / 4)
        if (pthread_cond_timedwait(&q->work_cv, &q->lock, &dl) == ETIMEDOUT)
            break;
}

/*
 * The group-commit window, after a quiet spell: wait for others to share
 * this commit, up to linger_us or batch_target changes, and no longer than
 * a quarter of the window after the last change a caller waits for: a
 * burst of requests is gathered whole, a lone request waits only that
 * quarter. Its readings are condition-variable deadlines, so they are the
 * kernel's CLOCK_MONOTONIC itself, never warped (ofcd_clock.h).
 */
static void store_linger(struct store_queue *q)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    struct timespec end = ofcd_clock_ts_plus_us(now, q->linger_us);
    unsigned gap = q->linger_us / 4 ? q->linger_us / 4 : 1;
    while (q->queued < q->batch_target && !q->stopping) {
        struct timespec dl = ofcd_clock_ts_plus_us(q->fg_last, gap);
        if (ts_before(end, dl))
            dl = end;
        if (pthread_cond_timedwait(&q->work_cv, &q->lock, &dl) != ETIMEDOUT)
            continue;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (!ts_before(now, end) || !ts_before(now, ofcd_clock_ts_plus_us(q->fg_last, gap)))
            break;
    }
}

/* How many records op may touch: the unit of the backend's budget. */
static unsigned store_op_records(const struct store_op *op)
{
    return op->kind == STORE_OP_PUT && op->u.put.n > 1 ? (unsigned)op->u.put.n : 1;
}

/*
 * Take the next batch off the queue, in queue order: all of it, or as many
 * changes as fit in the backend's budget (a single one always goes,
 * however large). *nops: how many were taken. Called with q->lock held.
 */
static struct store_op *store_take_locked(struct store_queue *q, uint64_t *nops)
{
    struct store_op *batch = q->head, *last = NULL, *op;
    unsigned records = 0, n = 0, fg = 0, bg = 0;
    unsigned budget = q->txn->budget ? q->txn->budget(q) : 0;

    if (!budget) {
        *nops = q->queued;
        q->head = q->tail = NULL;
        q->queued = q->async_queued = q->fg_queued = 0;
        return batch;
    }
    for (op = batch; op; last = op, op = op->next) {
        unsigned r = store_op_records(op);

        if (n && records + r > budget)
            break;
        records += r;
        n++;
        if (op->done_cb)
            fg++;
        else
            bg++;
    }
    last->next = NULL;
    q->head = op;
    if (!op)
        q->tail = NULL;
    q->queued -= n;
    q->fg_queued -= fg;
    q->async_queued -= bg;
    *nops = n;
    return batch;
}

/* A background change that failed: counted and logged, then freed. */
static void store_bg_failed(struct store_queue *q, const struct store_op *op)
{
    if (op->kind == STORE_OP_DEL_IF) {
        LOG_WARN(STORE_COMP, "purge of deleted flows failed (retried at the next one): %s",
                 strerror(-op->rc));
    } else {
        q->st.async_lost++;
        LOG_ERR(STORE_COMP, "state update of dpid %016llx lost: %s",
                (unsigned long long)op->u.st.dpid, strerror(-op->rc));
    }
}

static void *store_committer(void *arg)
{
    struct store_queue *q = arg;

    pthread_setname_np(pthread_self(), "ofcd-store");
    if (q->txn->idle)
        q->txn->idle(q);
    pthread_mutex_lock(&q->lock);
    /* Idle: the queue was empty when the last commit ended. Under load
     * changes gather during each commit and the next one goes at once;
     * only the first change after a quiet spell waits for company. */
    bool idle = true, left = false;
    for (;;) {
        struct store_op *batch, *next;
        uint64_t nops;

        while (!q->head && !q->stopping) {
            uint64_t due = 0;
            if (q->txn->tick) {
                pthread_mutex_unlock(&q->lock);
                due = q->txn->tick(q, ofcd_clock_mono_us());
                pthread_mutex_lock(&q->lock);
                if (q->head || q->stopping)
                    break;
            }
            if (!due) {
                pthread_cond_wait(&q->work_cv, &q->lock);
                continue;
            }
            uint64_t now = ofcd_clock_mono_us();
            struct timespec dl = ofcd_clock_deadline(due > now ? due - now : 0);
            pthread_cond_timedwait(&q->work_cv, &q->lock, &dl);
        }
        if (!q->head) {
            /* Stopping and drained: what the backend held back goes now. */
            if (q->txn->tick) {
                pthread_mutex_unlock(&q->lock);
                q->txn->tick(q, 0);
                pthread_mutex_lock(&q->lock);
            }
            break;
        }
        /* What the last batch's bound left has waited its turn already. */
        if (!left && !q->fg_queued && !q->stopping)
            store_wait_company(q);
        if (idle && q->linger_us && !q->stopping && q->queued < q->batch_target)
            store_linger(q);
        batch = store_take_locked(q, &nops);
        left = q->head != NULL;
        q->times.taken_us = ofcd_clock_mono_us();
        q->collect = q->watching;
        pthread_mutex_unlock(&q->lock);

        store_seen_reset(q);
        store_run_batch(q, batch, nops);
        q->times.durable_us = ofcd_clock_mono_us();
        store_changes_trim(q);

        pthread_mutex_lock(&q->lock);
        idle = !q->head;
        struct store_op *cbs = NULL, **cbs_tail = &cbs;
        for (struct store_op *op = batch; op; op = next) {
            next = op->next;
            if (op->done_cb) {
                op->next = NULL;        /* completed below, in queue order */
                *cbs_tail = op;
                cbs_tail = &op->next;
                continue;
            }
            if (op->rc && op->rc != -ENOENT)
                store_bg_failed(q, op);
            free(op);
        }
        /* Outside the lock: a callback may queue more. The backend's
         * housekeeping comes after the answers. */
        pthread_mutex_unlock(&q->lock);
        q->completing = true;
        for (struct store_op *op = cbs; op; op = next) {
            next = op->next;
            if (op->kind == STORE_OP_DEL_IF && op->u.del_if.count)
                *op->u.del_if.count = op->rc == 0 ? op->u.del_if.deleted : 0;
            op->done_cb(op->done_arg, op->rc);
            free(op);
        }
        q->completing = false;
        if (q->txn->idle)
            q->txn->idle(q);
        pthread_mutex_lock(&q->lock);
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

bool store_queue_batch_final(struct store *s)
{
    struct store_queue *q = store_queue_of(s);

    return q->exclusive && q->committer_started && pthread_equal(pthread_self(), q->committer) &&
           q->completing && !q->batch_twice;
}

void store_queue_batch_times(struct store *s, struct store_batch_times *out)
{
    struct store_queue *q = store_queue_of(s);

    if (q->committer_started && pthread_equal(pthread_self(), q->committer))
        *out = q->times;
    else
        *out = (struct store_batch_times){0, 0};
}

/* ---- caller side -------------------------------------------------------- */

static void store_enqueue_locked(struct store_queue *q, struct store_op *op)
{
    bool fg = op->done_cb != NULL;

    q->fg_queued += fg;
    if (fg && q->linger_us)
        clock_gettime(CLOCK_MONOTONIC, &q->fg_last);
    op->next = NULL;
    if (q->tail)
        q->tail->next = op;
    else
        q->head = op;
    q->tail = op;
    q->queued++;
    pthread_cond_signal(&q->work_cv);
}

/* Queue op (calloc'd) with its completion; the committer frees it after
 * done. 0, or -ECANCELED (op freed) while closing. */
static int store_submit_done(struct store_queue *q, struct store_op *op, store_done_fn done,
                             void *arg)
{
    op->done_cb = done;
    op->done_arg = arg;
    pthread_mutex_lock(&q->lock);
    if (q->stopping) {
        pthread_mutex_unlock(&q->lock);
        free(op);
        return -ECANCELED;
    }
    store_enqueue_locked(q, op);
    pthread_mutex_unlock(&q->lock);
    return 0;
}

/* Queued without a completion, so the caller never waits for a sync;
 * bounded by max_async. */
static int store_enqueue_async(struct store_queue *q, struct store_op *op)
{
    pthread_mutex_lock(&q->lock);
    if (q->stopping || q->async_queued >= q->max_async) {
        int rc = q->stopping ? -ECANCELED : -EAGAIN;

        if (!q->stopping)
            q->st.async_rejected++;
        pthread_mutex_unlock(&q->lock);
        free(op);
        return rc;
    }
    q->async_queued++;
    store_enqueue_locked(q, op);
    pthread_mutex_unlock(&q->lock);
    return 0;
}

static struct store_op *store_op_new(enum store_op_kind kind)
{
    struct store_op *op = calloc(1, sizeof(*op));

    if (op)
        op->kind = kind;
    return op;
}

int store_queue_put_many_async(struct store *s, const struct store_flow *flows, size_t n,
                               store_done_fn done, void *arg)
{
    struct store_op *op;

    if (!flows || n == 0 || !done)
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        if (store_flow_check(&flows[i]) < 0)
            return -EINVAL;
    if (!(op = store_op_new(STORE_OP_PUT)))
        return -ENOMEM;
    op->u.put.flows = flows;
    op->u.put.n = n;
    return store_submit_done(store_queue_of(s), op, done, arg);
}

int store_queue_del_async(struct store *s, uint64_t dpid, uint64_t match_id,
                          store_done_fn done, void *arg)
{
    struct store_op *op;

    if (!done)
        return -EINVAL;
    if (!(op = store_op_new(STORE_OP_DEL)))
        return -ENOMEM;
    op->u.del.dpid = dpid;
    op->u.del.match_id = match_id;
    return store_submit_done(store_queue_of(s), op, done, arg);
}

int store_queue_select_async(struct store *s, const uint64_t *dpid, store_pred_fn pred,
                             void *arg, bool mark, uint64_t *count, store_done_fn done,
                             void *done_arg)
{
    struct store_op *op;

    if (!pred || !done)
        return -EINVAL;
    if (!(op = store_op_new(STORE_OP_DEL_IF)))
        return -ENOMEM;
    op->u.del_if.all = dpid == NULL;
    op->u.del_if.dpid = dpid ? *dpid : 0;
    op->u.del_if.mark = mark;
    op->u.del_if.pred = pred;
    op->u.del_if.arg = arg;
    op->u.del_if.count = count;
    return store_submit_done(store_queue_of(s), op, done, done_arg);
}

static int store_purge_pred(const struct store_flow *f, void *arg)
{
    const struct store_op *op = arg;

    return f->state == STORE_FLOW_DELETED && f->changed_ns < op->u.del_if.purge_before_ns;
}

int store_queue_purge_deleted(struct store *s, uint64_t before_ns)
{
    struct store_op *op = store_op_new(STORE_OP_DEL_IF);

    if (!op)
        return -ENOMEM;
    op->u.del_if.all = true;
    op->u.del_if.pred = store_purge_pred;
    op->u.del_if.arg = op;
    op->u.del_if.purge_before_ns = before_ns;
    return store_enqueue_async(store_queue_of(s), op);
}

int store_queue_set_state(struct store *s, uint64_t dpid, uint64_t match_id, uint64_t flow_id,
                          enum store_flow_state state, uint16_t err_type, uint16_t err_code)
{
    struct store_op *op;

    if ((unsigned)state > STORE_FLOW_ERROR)
        return -EINVAL;
    if (!(op = store_op_new(STORE_OP_STATE)))
        return -ENOMEM;
    op->u.st.dpid = dpid;
    op->u.st.match_id = match_id;
    op->u.st.flow_id = flow_id;
    op->u.st.state = state;
    op->u.st.err_type = err_type;
    op->u.st.err_code = err_code;
    return store_enqueue_async(store_queue_of(s), op);
}

/* A sync: nothing to apply, done once what came before it is. */
static int store_sync_op(struct store *s, enum store_op_mark mark, store_done_fn done, void *arg)
{
    struct store_op *op;

    if (!done)
        return -EINVAL;
    if (!(op = store_op_new(STORE_OP_SYNC)))
        return -ENOMEM;
    op->mark = mark;
    return store_submit_done(store_queue_of(s), op, done, arg);
}

int store_queue_sync_async(struct store *s, store_done_fn done, void *arg)
{
    return store_sync_op(s, STORE_MARK_NONE, done, arg);
}

static int store_kv_check(const char *key, size_t len)
{
    size_t n = key ? strlen(key) : 0;
    return n == 0 || n > STORE_KV_KEY_MAX || len > STORE_KV_VAL_MAX ? -EINVAL : 0;
}

/* A kv put, or a progress mark (store_queue_kv_mark_async). */
static int store_kv_put_op(struct store *s, const char *key, const void *val, size_t len,
                           enum store_op_mark mark, bool leader, store_done_fn done,
                           void *arg)
{
    struct store_op *op;

    if (!done || store_kv_check(key, len) < 0 || (!val && len))
        return -EINVAL;
    if (!(op = store_op_new(STORE_OP_KV)))
        return -ENOMEM;
    op->mark = mark;
    op->u.kv.key = key;
    op->u.kv.val = val ? val : "";
    op->u.kv.len = len;
    op->u.kv.leader = leader;
    return store_submit_done(store_queue_of(s), op, done, arg);
}

int store_queue_kv_put_async(struct store *s, const char *key, const void *val, size_t len,
                             store_done_fn done, void *arg)
{
    return store_kv_put_op(s, key, val, len, STORE_MARK_NONE, false, done, arg);
}

int store_queue_kv_put_leader_async(struct store *s, const char *key, const void *val,
                                    size_t len, store_done_fn done, void *arg)
{
    return store_kv_put_op(s, key, val, len, STORE_MARK_NONE, true, done, arg);
}

int store_queue_kv_del_async(struct store *s, const char *key, store_done_fn done, void *arg)
{
    struct store_op *op;

    if (!done || store_kv_check(key, 0) < 0)
        return -EINVAL;
    if (!(op = store_op_new(STORE_OP_KV)))
        return -ENOMEM;
    op->u.kv.key = key;
    return store_submit_done(store_queue_of(s), op, done, arg);
}

int store_queue_kv_mark_async(struct store *s, const char *key, const void *val, size_t len,
                              store_done_fn done, void *arg)
{
    return val ? store_kv_put_op(s, key, val, len, STORE_MARK_IF_WHOLE, false, done, arg)
               : -EINVAL;
}

int store_queue_mark_restart_async(struct store *s, store_done_fn done, void *arg)
{
    return store_sync_op(s, STORE_MARK_RESTART, done, arg);
}

void store_queue_stats(struct store_queue *q, struct store_stats *st)
{
    pthread_mutex_lock(&q->lock);
    *st = q->st;
    pthread_mutex_unlock(&q->lock);
}

/* ---- lifecycle --------------------------------------------------------- */

int store_queue_init(struct store_queue *q, const struct store_ops *ops,
                     const struct store_txn_ops *txn, const struct store_config *cfg)
{
    q->base.ops = ops;
    q->txn = txn;
    q->rl_replay = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 10000);
    q->rl_full = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 10000);
    q->linger_us = cfg->linger_us;
    q->batch_target = cfg->batch_target;
    q->max_async = cfg->max_async ? cfg->max_async : STORE_DEFAULT_MAX_ASYNC;
    q->bg_linger_us = cfg->bg_linger_us ? cfg->bg_linger_us : STORE_DEFAULT_BG_LINGER_US;
    if (pthread_mutex_init(&q->lock, NULL))
        return -ENOMEM;
    if (pthread_mutex_init(&q->watch_lock, NULL))
        goto no_watch_lock;
    /* The linger deadline must not move with wall-clock adjustments. */
    if (ofcd_clock_cond_init(&q->work_cv))
        goto no_attr;
    return 0;
no_attr:
    pthread_mutex_destroy(&q->watch_lock);
no_watch_lock:
    pthread_mutex_destroy(&q->lock);
    return -ENOMEM;
}

int store_queue_start(struct store_queue *q)
{
    int rc = pthread_create(&q->committer, NULL, store_committer, q);

    if (rc) {
        LOG_ERR(STORE_COMP, "cannot start the committer: %s", strerror(rc));
        return -rc;
    }
    q->committer_started = true;
    return 0;
}

void store_queue_stop(struct store_queue *q)
{
    pthread_mutex_lock(&q->lock);
    q->stopping = true;
    pthread_cond_signal(&q->work_cv);
    pthread_mutex_unlock(&q->lock);
    if (q->committer_started)
        pthread_join(q->committer, NULL);
    pthread_cond_destroy(&q->work_cv);
    pthread_mutex_destroy(&q->watch_lock);
    pthread_mutex_destroy(&q->lock);
    free(q->chg);
    q->chg = NULL;
    ofcd_hset_free(&q->seen);
}
