/*
 * store: the durable flow store (LMDB) with group commit; see store.h.
 *
 * Callers queue a struct store_op (on their own stack when they block, on
 * the heap for store_set_state()) under s->lock; the committer thread
 * (store_committer) takes the whole queue, applies it in one write
 * transaction whose commit is the one sync of the batch, then marks the
 * blocking ops done and broadcasts done_cv. Only the committer writes to
 * LMDB, so there is never more than one writer waiting on LMDB's own lock.
 *
 * Record layout (native byte order: the file never leaves this machine):
 *   key   = dpid (8, big-endian) | match_id (8, big-endian), so keys sort by
 *           dpid and one cursor range walks one switch
 *   value = 40-byte header (see REC_*) | owner bytes | JSON bytes
 */
#include "store.h"

#include <errno.h>
#include <lmdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ofcd_log.h"

OFCD_COUNTER_GROUP(store_counters, "store", struct store_stats, STORE_COUNTERS, STORE_GAUGES);

#define STORE_COMP "store"
#define STORE_DB_NAME "flows"
#define STORE_KV_DB_NAME "apps"
#define STORE_KEY_LEN 16

/* Value header; offsets are fixed so the layout has no padding surprises. */
#define REC_MAGIC 0x4f465331u /* "OFS1": bump when the layout changes */
#define REC_OFF_MAGIC 0
#define REC_OFF_STATE 4
#define REC_OFF_OWNER_LEN 6
#define REC_OFF_ERR_TYPE 8
#define REC_OFF_ERR_CODE 10
#define REC_OFF_JSON_LEN 12
#define REC_OFF_FLOW_ID 16
#define REC_OFF_ADDED 24
#define REC_OFF_CHANGED 32
#define REC_HDR_LEN 40

/*
 * LMDB copies on write: a delete needs free pages too, so a map filled to
 * the last page could never be emptied again. Puts stop at map size minus
 * this reserve (1/8 of the map, at least 16 pages, at most 64 MiB of 4 KiB
 * pages); deletes and state updates may use it.
 */
#define STORE_RESERVE_MIN_PAGES 16u
#define STORE_RESERVE_MAX_PAGES 16384u

enum store_op_kind {
    STORE_OP_PUT,
    STORE_OP_DEL,
    STORE_OP_DEL_IF,
    STORE_OP_STATE,
    STORE_OP_SYNC,
    STORE_OP_KV,
};

struct store_op {
    struct store_op *next;
    enum store_op_kind kind;
    bool blocking; /* a caller waits for done; otherwise the committer frees it */
    store_done_fn done_cb;  /* non-blocking with a completion: called, then freed */
    void *done_arg;
    bool done;
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
            uint64_t deleted;
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
        } kv;
    } u;
};

/* What one transaction changed; added to the stats only if it commits. */
struct store_tally {
    uint64_t put, deleted, marked, state_updates, state_stale;
};

struct store {
    MDB_env *env;
    MDB_dbi dbi;
    MDB_dbi kv_dbi;           /* the apps' records (store_kv_*) */
    pthread_t committer;
    bool committer_started;

    pthread_mutex_t lock;     /* everything below up to 'scratch' */
    pthread_cond_t work_cv;   /* queue non-empty / stopping (CLOCK_MONOTONIC) */
    pthread_cond_t done_cv;   /* a batch finished */
    struct store_op *head, *tail;
    unsigned queued;
    unsigned async_queued;
    unsigned fg_queued;       /* queued ops a caller waits for (blocking or done_cb) */
    struct timespec fg_last;  /* CLOCK_MONOTONIC: when the last of them was queued */
    bool stopping;
    struct store_stats st;

    unsigned linger_us, batch_target, max_async, bg_linger_us;
    size_t map_size;
    size_t psize;
    size_t put_limit_pages; /* flow pages beyond which puts get -ENOSPC */

    /* committer thread only */
    uint8_t *scratch;
    size_t scratch_cap;
    uint64_t written_ahead;   /* the data file is initialised up to here (bytes) */
    bool prealloc_failed;     /* logged once; commits still work, only slower */
};

/*
 * The data file is kept written (with zeros) ahead of LMDB's last page, so
 * that a commit's pages land in blocks the file system has already
 * allocated and initialised: its two fdatasyncs (data, then meta page)
 * then carry no size or extent change to journal. Measured on this
 * machine's ext4: 0.13 ms per 8 KiB sync against 0.34 ms when the file
 * grows. Zeros are only ever written past the file's end, which LMDB has
 * never used, and only on the committer thread, between transactions.
 */
#define STORE_AHEAD_BYTES (4u << 20)


static uint64_t store_clock_ns(clockid_t clk)
{
    struct timespec ts;

    clock_gettime(clk, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* LMDB codes are negative numbers of their own; keep them out of errno space. */
static int store_err(int mdb_rc)
{
    switch (mdb_rc) {
    case MDB_SUCCESS:
        return 0;
    case MDB_NOTFOUND:
        return -ENOENT;
    case MDB_MAP_FULL:
        return -ENOSPC;
    case MDB_TXN_FULL:
        return -E2BIG;
    case MDB_READERS_FULL:
        return -EAGAIN;
    default:
        return mdb_rc > 0 ? -mdb_rc : -EIO;
    }
}

static void store_key(uint8_t key[STORE_KEY_LEN], uint64_t dpid, uint64_t match_id)
{
    for (int i = 0; i < 8; i++) {
        key[i] = (uint8_t)(dpid >> (56 - 8 * i));
        key[8 + i] = (uint8_t)(match_id >> (56 - 8 * i));
    }
}

static uint64_t store_key_u64(const uint8_t *p)
{
    uint64_t v = 0;

    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, sizeof(v)); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, sizeof(v)); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, sizeof(v)); }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, sizeof(v)); return v; }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, sizeof(v)); return v; }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, sizeof(v)); return v; }

static size_t store_owner_len(const struct store_flow *f)
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

static void rec_encode(uint8_t *v, const struct store_flow *f, uint64_t now)
{
    size_t olen = store_owner_len(f);

    put32(v + REC_OFF_MAGIC, REC_MAGIC);
    v[REC_OFF_STATE] = (uint8_t)f->state;
    v[REC_OFF_STATE + 1] = 0;
    put16(v + REC_OFF_OWNER_LEN, (uint16_t)olen);
    put16(v + REC_OFF_ERR_TYPE, f->state == STORE_FLOW_ERROR ? f->err_type : 0);
    put16(v + REC_OFF_ERR_CODE, f->state == STORE_FLOW_ERROR ? f->err_code : 0);
    put32(v + REC_OFF_JSON_LEN, (uint32_t)f->json_len);
    put64(v + REC_OFF_FLOW_ID, f->flow_id);
    put64(v + REC_OFF_ADDED, now);
    put64(v + REC_OFF_CHANGED, now);
    if (olen)
        memcpy(v + REC_HDR_LEN, f->owner, olen);
    if (f->json_len)
        memcpy(v + REC_HDR_LEN + olen, f->json, f->json_len);
}

/*
 * Decode a record; owner is copied into owner_buf (STORE_OWNER_MAX + 1) so
 * it can be NUL-terminated, json points into v. -EIO for a damaged record.
 */
static int rec_decode(const MDB_val *k, const MDB_val *v, struct store_flow *f, char *owner_buf)
{
    const uint8_t *p = v->mv_data;
    size_t olen, jlen;

    if (k->mv_size != STORE_KEY_LEN || v->mv_size < REC_HDR_LEN ||
        get32(p + REC_OFF_MAGIC) != REC_MAGIC)
        return -EIO;
    olen = get16(p + REC_OFF_OWNER_LEN);
    jlen = get32(p + REC_OFF_JSON_LEN);
    if (olen > STORE_OWNER_MAX || p[REC_OFF_STATE] > STORE_FLOW_DELETED ||
        v->mv_size != REC_HDR_LEN + olen + jlen)
        return -EIO;
    memset(f, 0, sizeof(*f));
    f->dpid = store_key_u64(k->mv_data);
    f->match_id = store_key_u64((const uint8_t *)k->mv_data + 8);
    f->flow_id = get64(p + REC_OFF_FLOW_ID);
    f->state = (enum store_flow_state)p[REC_OFF_STATE];
    f->err_type = get16(p + REC_OFF_ERR_TYPE);
    f->err_code = get16(p + REC_OFF_ERR_CODE);
    f->added_ns = get64(p + REC_OFF_ADDED);
    f->changed_ns = get64(p + REC_OFF_CHANGED);
    memcpy(owner_buf, p + REC_HDR_LEN, olen);
    owner_buf[olen] = '\0';
    f->owner = owner_buf;
    f->json = p + REC_HDR_LEN + olen;
    f->json_len = jlen;
    return 0;
}

/* ---- committer side ---------------------------------------------------- */

/* -ENOSPC when a record of vlen bytes would push the flows into the reserve. */
static int store_room_check(struct store *s, MDB_txn *txn, size_t vlen)
{
    MDB_stat ms;
    size_t pages;
    int rc;

    rc = mdb_stat(txn, s->dbi, &ms);
    if (rc)
        return store_err(rc);
    /* Current tree (this transaction included) + the record's own pages. */
    pages = ms.ms_branch_pages + ms.ms_leaf_pages + ms.ms_overflow_pages;
    pages += 1 + (vlen + STORE_KEY_LEN) / s->psize;
    return pages > s->put_limit_pages ? -ENOSPC : 0;
}

static int store_apply_put(struct store *s, MDB_txn *txn, struct store_op *op, uint64_t now,
                           struct store_tally *t)
{
    for (size_t i = 0; i < op->u.put.n; i++) {
        const struct store_flow *f = &op->u.put.flows[i];
        uint8_t kb[STORE_KEY_LEN];
        MDB_val k = { STORE_KEY_LEN, kb };
        MDB_val v = { REC_HDR_LEN + store_owner_len(f) + f->json_len, NULL };
        int rc;

        rc = store_room_check(s, txn, v.mv_size);
        if (rc)
            return rc;
        store_key(kb, f->dpid, f->match_id);
        /* MDB_RESERVE: encode straight into the page, no staging copy. */
        rc = mdb_put(txn, s->dbi, &k, &v, MDB_RESERVE);
        if (rc)
            return store_err(rc);
        rec_encode(v.mv_data, f, now);
        t->put++;
    }
    return 0;
}

static int store_apply_del(struct store *s, MDB_txn *txn, struct store_op *op,
                           struct store_tally *t)
{
    uint8_t kb[STORE_KEY_LEN];
    MDB_val k = { STORE_KEY_LEN, kb };
    int rc;

    store_key(kb, op->u.del.dpid, op->u.del.match_id);
    rc = mdb_del(txn, s->dbi, &k, NULL);
    if (rc == 0)
        t->deleted++;
    return store_err(rc);
}

/*
 * Matching keys are collected first and deleted afterwards so the walk never
 * depends on where a cursor lands after a delete.
 */
/* Rewrite the record at k in state DELETED, changed now (its deleted_at). */
static int store_mark_deleted(struct store *s, MDB_txn *txn, MDB_val *k, uint64_t now)
{
    MDB_val v;
    int rc = mdb_get(txn, s->dbi, k, &v);

    if (rc)
        return store_err(rc);
    /* v points into the map; stage a copy because mdb_put may reuse that page. */
    if (v.mv_size > s->scratch_cap) {
        uint8_t *ns = realloc(s->scratch, v.mv_size);
        if (!ns)
            return -ENOMEM;
        s->scratch = ns;
        s->scratch_cap = v.mv_size;
    }
    uint8_t *p = s->scratch;
    memcpy(p, v.mv_data, v.mv_size);
    p[REC_OFF_STATE] = STORE_FLOW_DELETED;
    put16(p + REC_OFF_ERR_TYPE, 0);
    put16(p + REC_OFF_ERR_CODE, 0);
    put64(p + REC_OFF_CHANGED, now);
    v.mv_data = p;
    return store_err(mdb_put(txn, s->dbi, k, &v, 0));
}

static int store_apply_del_if(struct store *s, MDB_txn *txn, struct store_op *op, uint64_t now,
                              struct store_tally *t)
{
    uint8_t kb[STORE_KEY_LEN], *keys = NULL;
    size_t nkeys = 0, cap = 0;
    char owner[STORE_OWNER_MAX + 1];
    MDB_cursor *cur;
    MDB_val k, v;
    int rc;

    op->u.del_if.deleted = 0;
    rc = mdb_cursor_open(txn, s->dbi, &cur);
    if (rc)
        return store_err(rc);
    if (op->u.del_if.all) {
        rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
    } else {
        store_key(kb, op->u.del_if.dpid, 0);
        k.mv_size = STORE_KEY_LEN;
        k.mv_data = kb;
        rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
    }
    for (; rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        struct store_flow f;

        if (rec_decode(&k, &v, &f, owner) < 0) {
            LOG_WARN(STORE_COMP, "skipping a damaged record in a bulk delete");
            continue;
        }
        if (!op->u.del_if.all && f.dpid != op->u.del_if.dpid)
            break;
        if (op->u.del_if.mark && f.state == STORE_FLOW_DELETED)
            continue;                               /* already: its deleted_at stays */
        if (!op->u.del_if.pred(&f, op->u.del_if.arg))
            continue;
        if (nkeys == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            uint8_t *nk = realloc(keys, ncap * STORE_KEY_LEN);

            if (!nk) {
                rc = ENOMEM;
                break;
            }
            keys = nk;
            cap = ncap;
        }
        memcpy(keys + nkeys * STORE_KEY_LEN, k.mv_data, STORE_KEY_LEN);
        nkeys++;
    }
    mdb_cursor_close(cur);
    if (rc != MDB_NOTFOUND && rc != 0) {
        free(keys);
        return store_err(rc);
    }
    for (size_t i = 0; i < nkeys; i++) {
        k.mv_size = STORE_KEY_LEN;
        k.mv_data = keys + i * STORE_KEY_LEN;
        rc = op->u.del_if.mark ? store_mark_deleted(s, txn, &k, now)
                               : store_err(mdb_del(txn, s->dbi, &k, NULL));
        if (rc) {
            free(keys);
            return rc;
        }
    }
    free(keys);
    op->u.del_if.deleted = nkeys;
    if (op->u.del_if.mark)
        t->marked += nkeys;
    else
        t->deleted += nkeys;
    return 0;
}

static int store_apply_state(struct store *s, MDB_txn *txn, struct store_op *op, uint64_t now,
                             struct store_tally *t)
{
    uint8_t kb[STORE_KEY_LEN], *p;
    MDB_val k = { STORE_KEY_LEN, kb }, v;
    int rc;

    store_key(kb, op->u.st.dpid, op->u.st.match_id);
    rc = mdb_get(txn, s->dbi, &k, &v);
    if (rc == MDB_NOTFOUND) {
        t->state_stale++;
        return 0;
    }
    if (rc)
        return store_err(rc);
    /* A deleted flow's late barrier reply or error does not bring it back. */
    if (v.mv_size < REC_HDR_LEN || get32((const uint8_t *)v.mv_data) != REC_MAGIC ||
        ((const uint8_t *)v.mv_data)[REC_OFF_STATE] == STORE_FLOW_DELETED ||
        (op->u.st.flow_id &&
         get64((const uint8_t *)v.mv_data + REC_OFF_FLOW_ID) != op->u.st.flow_id)) {
        t->state_stale++;
        return 0;
    }
    /* v points into the map; stage a copy because mdb_put may reuse that page. */
    if (v.mv_size > s->scratch_cap) {
        uint8_t *ns = realloc(s->scratch, v.mv_size);

        if (!ns)
            return -ENOMEM;
        s->scratch = ns;
        s->scratch_cap = v.mv_size;
    }
    p = s->scratch;
    memcpy(p, v.mv_data, v.mv_size);
    p[REC_OFF_STATE] = (uint8_t)op->u.st.state;
    put16(p + REC_OFF_ERR_TYPE, op->u.st.state == STORE_FLOW_ERROR ? op->u.st.err_type : 0);
    put16(p + REC_OFF_ERR_CODE, op->u.st.state == STORE_FLOW_ERROR ? op->u.st.err_code : 0);
    put64(p + REC_OFF_CHANGED, now);
    v.mv_data = p;
    rc = mdb_put(txn, s->dbi, &k, &v, 0);
    if (rc)
        return store_err(rc);
    t->state_updates++;
    return 0;
}

static int store_apply_kv(struct store *s, MDB_txn *txn, struct store_op *op)
{
    MDB_val k = { strlen(op->u.kv.key), (void *)op->u.kv.key };

    if (!op->u.kv.val)
        return store_err(mdb_del(txn, s->kv_dbi, &k, NULL));
    /* The flows' reserve applies: an app's records never eat the room
     * deletes need. */
    int rc = store_room_check(s, txn, op->u.kv.len);
    if (rc)
        return rc;
    MDB_val v = { op->u.kv.len, (void *)op->u.kv.val };
    return store_err(mdb_put(txn, s->kv_dbi, &k, &v, 0));
}

static int store_apply_op(struct store *s, MDB_txn *txn, struct store_op *op, uint64_t now,
                          struct store_tally *t)
{
    switch (op->kind) {
    case STORE_OP_PUT:
        return store_apply_put(s, txn, op, now, t);
    case STORE_OP_DEL:
        return store_apply_del(s, txn, op, t);
    case STORE_OP_DEL_IF:
        return store_apply_del_if(s, txn, op, now, t);
    case STORE_OP_STATE:
        return store_apply_state(s, txn, op, now, t);
    case STORE_OP_SYNC:
        return 0;
    case STORE_OP_KV:
        return store_apply_kv(s, txn, op);
    }
    return -EINVAL;
}

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
static int store_txn_run(struct store *s, struct store_op *first, bool single,
                         struct store_tally *t, bool *at_apply)
{
    uint64_t now = store_clock_ns(CLOCK_REALTIME);
    MDB_txn *txn;
    int rc;

    memset(t, 0, sizeof(*t));
    *at_apply = false;
    rc = mdb_txn_begin(s->env, NULL, 0, &txn);
    if (rc)
        return store_err(rc);
    for (struct store_op *op = first; op; op = single ? NULL : op->next) {
        op->rc = store_apply_op(s, txn, op, now, t);
        if (op->rc && !store_op_soft_err(op, op->rc)) {
            rc = op->rc;
            mdb_txn_abort(txn);
            *at_apply = true;
            return rc;
        }
    }
    /* The sync of the whole batch happens here (LMDB's default durable commit). */
    return store_err(mdb_txn_commit(txn));
}

static void store_stats_commit(struct store *s, const struct store_tally *t, uint64_t nops,
                               uint64_t ns)
{
    s->st.commits++;
    s->st.changes += nops;
    if (nops > s->st.max_batch)
        s->st.max_batch = nops;
    s->st.commit_ns_total += ns;
    if (ns > s->st.commit_ns_max)
        s->st.commit_ns_max = ns;
    s->st.records_put += t->put;
    s->st.records_deleted += t->deleted;
    s->st.records_marked_deleted += t->marked;
    s->st.state_updates += t->state_updates;
    s->st.state_stale += t->state_stale;
}

/*
 * Commit a taken batch. If one operation cannot be applied (typically the
 * map is full) the batch is replayed one operation per transaction, so only
 * that operation's caller sees the error; a failing commit fails everyone in
 * it because nothing of that transaction is durable.
 * Called without s->lock; takes it only to update the counters.
 */
static void store_run_batch(struct store *s, struct store_op *batch, uint64_t nops)
{
    struct store_tally t;
    uint64_t t0 = store_clock_ns(CLOCK_MONOTONIC), t1;
    bool at_apply;
    int rc;

    rc = store_txn_run(s, batch, false, &t, &at_apply);
    t1 = store_clock_ns(CLOCK_MONOTONIC);
    pthread_mutex_lock(&s->lock);
    if (rc == 0)
        store_stats_commit(s, &t, nops, t1 - t0);
    else
        s->st.failed_commits++;
    pthread_mutex_unlock(&s->lock);
    if (rc == 0)
        return;

    if (nops > 1 && (at_apply || rc == -ENOSPC)) {
        LOG_WARN(STORE_COMP, "batch of %llu failed (%s), replaying one by one",
                 (unsigned long long)nops, strerror(-rc));
        for (struct store_op *op = batch; op; op = op->next) {
            int orc;

            t0 = store_clock_ns(CLOCK_MONOTONIC);
            orc = store_txn_run(s, op, true, &t, &at_apply);
            t1 = store_clock_ns(CLOCK_MONOTONIC);
            pthread_mutex_lock(&s->lock);
            if (orc == 0) {
                store_stats_commit(s, &t, 1, t1 - t0);
            } else {
                s->st.failed_commits++;
                op->rc = orc;
            }
            pthread_mutex_unlock(&s->lock);
        }
        return;
    }
    if (rc == -ENOSPC)
        LOG_WARN(STORE_COMP, "store full: change refused (map_size too small?)");
    else
        LOG_ERR(STORE_COMP, "commit of %llu changes failed: %s", (unsigned long long)nops,
                strerror(-rc));
    for (struct store_op *op = batch; op; op = op->next)
        op->rc = rc;
}

static void store_write_ahead(struct store *s)
{
    static const uint8_t zeros[65536];
    MDB_envinfo info;
    struct stat stt;
    int fd;

    if (s->prealloc_failed || mdb_env_info(s->env, &info) != 0 ||
        mdb_env_get_fd(s->env, &fd) != 0)
        return;
    uint64_t used = (uint64_t)(info.me_last_pgno + 1) * s->psize;
    uint64_t cap = info.me_mapsize;
    if (s->written_ahead >= cap || s->written_ahead >= used + STORE_AHEAD_BYTES / 2)
        return;
    if (fstat(fd, &stt) != 0)
        goto failed;
    uint64_t end = used + STORE_AHEAD_BYTES < cap ? used + STORE_AHEAD_BYTES : cap;
    uint64_t at = (uint64_t)stt.st_size;
    for (; at < end; at += sizeof(zeros)) {
        size_t n = end - at < sizeof(zeros) ? (size_t)(end - at) : sizeof(zeros);
        if (pwrite(fd, zeros, n, (off_t)at) != (ssize_t)n)
            goto failed;
    }
    if (fdatasync(fd) != 0)
        goto failed;
    s->written_ahead = end > (uint64_t)stt.st_size ? end : (uint64_t)stt.st_size;
    return;
failed:
    s->prealloc_failed = true;
    LOG_WARN(STORE_COMP, "cannot write the data file ahead (%s): commits stay correct, "
             "each sync is slower", strerror(errno));
}

/* Only background changes are queued: let them wait (bg_linger_us) for a
 * change somebody waits for, or for enough of their own kind. */
static void store_wait_company(struct store *s)
{
    struct timespec dl;

    clock_gettime(CLOCK_MONOTONIC, &dl);
    dl.tv_nsec += (long)(s->bg_linger_us % 1000000u) * 1000;
    dl.tv_sec += s->bg_linger_us / 1000000u + dl.tv_nsec / 1000000000;
    dl.tv_nsec %= 1000000000;
    while (!s->fg_queued && !s->stopping && s->async_queued < s->max_async / 4)
        if (pthread_cond_timedwait(&s->work_cv, &s->lock, &dl) == ETIMEDOUT)
            break;
}

static struct timespec ts_plus_us(struct timespec t, unsigned us)
{
    t.tv_nsec += (long)(us % 1000000u) * 1000;
    t.tv_sec += us / 1000000u + t.tv_nsec / 1000000000;
    t.tv_nsec %= 1000000000;
    return t;
}

static bool ts_before(struct timespec a, struct timespec b)
{
    return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

/*
 * The group-commit window, after a quiet spell: wait for others to share
 * this commit, up to linger_us or batch_target changes, and no longer than
 * a quarter of the window after the last change a caller waits for: a
 * burst of requests is gathered whole, a lone request waits only that
 * quarter.
 */
static void store_linger(struct store *s)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    struct timespec end = ts_plus_us(now, s->linger_us);
    unsigned gap = s->linger_us / 4 ? s->linger_us / 4 : 1;
    while (s->queued < s->batch_target && !s->stopping) {
        struct timespec dl = ts_plus_us(s->fg_last, gap);
        if (ts_before(end, dl))
            dl = end;
        if (pthread_cond_timedwait(&s->work_cv, &s->lock, &dl) != ETIMEDOUT)
            continue;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (!ts_before(now, end) || !ts_before(now, ts_plus_us(s->fg_last, gap)))
            break;
    }
}

static void *store_committer(void *arg)
{
    struct store *s = arg;

    pthread_setname_np(pthread_self(), "ofcd-store");
    store_write_ahead(s);
    pthread_mutex_lock(&s->lock);
    /* Idle: the queue was empty when the last commit ended. Under load
     * changes gather during each commit and the next one goes at once;
     * only the first change after a quiet spell waits for company. */
    bool idle = true;
    for (;;) {
        struct store_op *batch, *next;
        uint64_t nops;

        while (!s->head && !s->stopping)
            pthread_cond_wait(&s->work_cv, &s->lock);
        if (!s->head)
            break; /* stopping and drained */
        if (!s->fg_queued && !s->stopping)
            store_wait_company(s);
        if (idle && s->linger_us && !s->stopping && s->queued < s->batch_target)
            store_linger(s);
        batch = s->head;
        nops = s->queued;
        s->head = s->tail = NULL;
        s->queued = 0;
        s->async_queued = 0;
        s->fg_queued = 0;
        pthread_mutex_unlock(&s->lock);

        store_run_batch(s, batch, nops);

        pthread_mutex_lock(&s->lock);
        idle = !s->head;
        struct store_op *cbs = NULL, **cbs_tail = &cbs;
        for (struct store_op *op = batch; op; op = next) {
            next = op->next;
            if (op->blocking) {
                op->done = true;
                continue;
            }
            if (op->done_cb) {
                op->next = NULL;        /* completed below, in queue order */
                *cbs_tail = op;
                cbs_tail = &op->next;
                continue;
            }
            if (op->rc && op->rc != -ENOENT && op->kind == STORE_OP_DEL_IF) {
                LOG_WARN(STORE_COMP, "purge of deleted flows failed (retried at the next "
                         "one): %s", strerror(-op->rc));
            } else if (op->rc && op->rc != -ENOENT) {
                s->st.async_lost++;
                LOG_ERR(STORE_COMP, "state update of dpid %016llx lost: %s",
                        (unsigned long long)op->u.st.dpid, strerror(-op->rc));
            }
            free(op);
        }
        pthread_cond_broadcast(&s->done_cv);
        /* Outside the lock: a callback may queue more. The write-ahead
         * comes after the answers (cheap unless the margin is used up). */
        pthread_mutex_unlock(&s->lock);
        for (struct store_op *op = cbs; op; op = next) {
            next = op->next;
            op->done_cb(op->done_arg, op->rc);
            free(op);
        }
        store_write_ahead(s);
        pthread_mutex_lock(&s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* ---- caller side -------------------------------------------------------- */

static void store_enqueue_locked(struct store *s, struct store_op *op)
{
    bool fg = op->blocking || op->done_cb;

    s->fg_queued += fg;
    if (fg && s->linger_us)
        clock_gettime(CLOCK_MONOTONIC, &s->fg_last);
    op->next = NULL;
    if (s->tail)
        s->tail->next = op;
    else
        s->head = op;
    s->tail = op;
    s->queued++;
    pthread_cond_signal(&s->work_cv);
}

static int store_submit_wait(struct store *s, struct store_op *op)
{
    op->blocking = true;
    op->done = false;
    op->rc = 0;
    pthread_mutex_lock(&s->lock);
    if (s->stopping) {
        pthread_mutex_unlock(&s->lock);
        return -ECANCELED;
    }
    store_enqueue_locked(s, op);
    while (!op->done)
        pthread_cond_wait(&s->done_cv, &s->lock);
    pthread_mutex_unlock(&s->lock);
    return op->rc;
}

/* Queue op (calloc'd) with its completion; the committer frees it after
 * done. 0, or -ECANCELED (op freed) while closing. */
static int store_submit_done(struct store *s, struct store_op *op, store_done_fn done,
                             void *arg)
{
    op->done_cb = done;
    op->done_arg = arg;
    pthread_mutex_lock(&s->lock);
    if (s->stopping) {
        pthread_mutex_unlock(&s->lock);
        free(op);
        return -ECANCELED;
    }
    store_enqueue_locked(s, op);
    pthread_mutex_unlock(&s->lock);
    return 0;
}

int store_put_many(struct store *s, const struct store_flow *flows, size_t n)
{
    struct store_op op = { .kind = STORE_OP_PUT };

    if (!s || !flows || n == 0)
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        if (store_flow_check(&flows[i]) < 0)
            return -EINVAL;
    op.u.put.flows = flows;
    op.u.put.n = n;
    return store_submit_wait(s, &op);
}

int store_put_many_async(struct store *s, const struct store_flow *flows, size_t n,
                         store_done_fn done, void *arg)
{
    struct store_op *op;

    if (!s || !flows || n == 0 || !done)
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        if (store_flow_check(&flows[i]) < 0)
            return -EINVAL;
    if (!(op = calloc(1, sizeof(*op))))
        return -ENOMEM;
    op->kind = STORE_OP_PUT;
    op->u.put.flows = flows;
    op->u.put.n = n;
    return store_submit_done(s, op, done, arg);
}

int store_put(struct store *s, const struct store_flow *flow)
{
    return store_put_many(s, flow, 1);
}

int store_del(struct store *s, uint64_t dpid, uint64_t match_id)
{
    struct store_op op = { .kind = STORE_OP_DEL };

    if (!s)
        return -EINVAL;
    op.u.del.dpid = dpid;
    op.u.del.match_id = match_id;
    return store_submit_wait(s, &op);
}

/* Delete (or, with mark, keep in state DELETED) what pred selects: the one
 * body of store_del_if and store_mark_deleted_if. */
static int store_select_wait(struct store *s, const uint64_t *dpid, store_pred_fn pred,
                             void *arg, bool mark, uint64_t *n)
{
    struct store_op op = { .kind = STORE_OP_DEL_IF };
    int rc;

    if (n)
        *n = 0;
    if (!s || !pred)
        return -EINVAL;
    op.u.del_if.all = dpid == NULL;
    op.u.del_if.dpid = dpid ? *dpid : 0;
    op.u.del_if.mark = mark;
    op.u.del_if.pred = pred;
    op.u.del_if.arg = arg;
    rc = store_submit_wait(s, &op);
    if (rc == 0 && n)
        *n = op.u.del_if.deleted;
    return rc;
}

int store_select_async(struct store *s, const uint64_t *dpid, store_pred_fn pred, void *arg,
                       bool mark, store_done_fn done, void *done_arg)
{
    struct store_op *op;

    if (!s || !pred || !done)
        return -EINVAL;
    if (!(op = calloc(1, sizeof(*op))))
        return -ENOMEM;
    op->kind = STORE_OP_DEL_IF;
    op->u.del_if.all = dpid == NULL;
    op->u.del_if.dpid = dpid ? *dpid : 0;
    op->u.del_if.mark = mark;
    op->u.del_if.pred = pred;
    op->u.del_if.arg = arg;
    return store_submit_done(s, op, done, done_arg);
}

int store_del_if(struct store *s, const uint64_t *dpid, store_pred_fn pred, void *arg,
                 uint64_t *deleted)
{
    return store_select_wait(s, dpid, pred, arg, false, deleted);
}

int store_mark_deleted_if(struct store *s, const uint64_t *dpid, store_pred_fn pred, void *arg,
                          uint64_t *marked)
{
    return store_select_wait(s, dpid, pred, arg, true, marked);
}

static int store_purge_pred(const struct store_flow *f, void *arg)
{
    const struct store_op *op = arg;

    return f->state == STORE_FLOW_DELETED && f->changed_ns < op->u.del_if.purge_before_ns;
}

/* Queued like a state update, so the caller never waits for a sync. */
static int store_enqueue_async(struct store *s, struct store_op *op)
{
    pthread_mutex_lock(&s->lock);
    if (s->stopping || s->async_queued >= s->max_async) {
        int rc = s->stopping ? -ECANCELED : -EAGAIN;

        if (!s->stopping)
            s->st.async_rejected++;
        pthread_mutex_unlock(&s->lock);
        free(op);
        return rc;
    }
    s->async_queued++;
    store_enqueue_locked(s, op);
    pthread_mutex_unlock(&s->lock);
    return 0;
}

int store_purge_deleted(struct store *s, uint64_t before_ns)
{
    struct store_op *op;

    if (!s)
        return -EINVAL;
    op = calloc(1, sizeof(*op));
    if (!op)
        return -ENOMEM;
    op->kind = STORE_OP_DEL_IF;
    op->u.del_if.all = true;
    op->u.del_if.pred = store_purge_pred;
    op->u.del_if.arg = op;
    op->u.del_if.purge_before_ns = before_ns;
    return store_enqueue_async(s, op);
}

int store_set_state(struct store *s, uint64_t dpid, uint64_t match_id, uint64_t flow_id,
                    enum store_flow_state state, uint16_t err_type, uint16_t err_code)
{
    struct store_op *op;

    if (!s || (unsigned)state > STORE_FLOW_ERROR)
        return -EINVAL;
    op = calloc(1, sizeof(*op));
    if (!op)
        return -ENOMEM;
    op->kind = STORE_OP_STATE;
    op->u.st.dpid = dpid;
    op->u.st.match_id = match_id;
    op->u.st.flow_id = flow_id;
    op->u.st.state = state;
    op->u.st.err_type = err_type;
    op->u.st.err_code = err_code;
    return store_enqueue_async(s, op);
}

int store_sync(struct store *s)
{
    struct store_op op = { .kind = STORE_OP_SYNC };

    if (!s)
        return -EINVAL;
    return store_submit_wait(s, &op);
}

/* ---- readers ----------------------------------------------------------- */

int store_get(struct store *s, uint64_t dpid, uint64_t match_id, struct store_flow *out)
{
    uint8_t kb[STORE_KEY_LEN];
    char owner[STORE_OWNER_MAX + 1];
    MDB_val k = { STORE_KEY_LEN, kb }, v;
    MDB_txn *txn;
    struct store_flow f;
    size_t olen;
    char *copy;
    int rc;

    if (!s || !out)
        return -EINVAL;
    memset(out, 0, sizeof(*out));
    rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc)
        return store_err(rc);
    store_key(kb, dpid, match_id);
    rc = mdb_get(txn, s->dbi, &k, &v);
    if (rc) {
        mdb_txn_abort(txn);
        return store_err(rc);
    }
    rc = rec_decode(&k, &v, &f, owner);
    if (rc) {
        mdb_txn_abort(txn);
        return rc;
    }
    olen = strlen(owner);
    /* One block: owner with its NUL, then the JSON (plus a NUL for convenience). */
    copy = malloc(olen + 1 + f.json_len + 1);
    if (!copy) {
        mdb_txn_abort(txn);
        return -ENOMEM;
    }
    memcpy(copy, owner, olen + 1);
    memcpy(copy + olen + 1, f.json, f.json_len);
    copy[olen + 1 + f.json_len] = '\0';
    mdb_txn_abort(txn);
    *out = f;
    out->owner = copy;
    out->json = copy + olen + 1;
    out->priv = copy;
    return 0;
}

void store_flow_release(struct store_flow *f)
{
    if (!f)
        return;
    free(f->priv);
    f->priv = NULL;
    f->owner = NULL;
    f->json = NULL;
    f->json_len = 0;
}

int store_foreach(struct store *s, const uint64_t *dpid, store_iter_fn cb, void *arg)
{
    return store_foreach_from(s, dpid, dpid ? *dpid : 0, 0, cb, arg);
}

int store_foreach_from(struct store *s, const uint64_t *dpid, uint64_t from_dpid,
                       uint64_t from_match_id, store_iter_fn cb, void *arg)
{
    uint8_t kb[STORE_KEY_LEN];
    char owner[STORE_OWNER_MAX + 1];
    MDB_cursor *cur;
    MDB_txn *txn;
    MDB_val k, v;
    int rc, ret = 0;

    if (!s || !cb)
        return -EINVAL;
    rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc)
        return store_err(rc);
    rc = mdb_cursor_open(txn, s->dbi, &cur);
    if (rc) {
        mdb_txn_abort(txn);
        return store_err(rc);
    }
    store_key(kb, from_dpid, from_match_id);
    k.mv_size = STORE_KEY_LEN;
    k.mv_data = kb;
    rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
    for (; rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        struct store_flow f;

        if (rec_decode(&k, &v, &f, owner) < 0) {
            LOG_WARN(STORE_COMP, "skipping a damaged record");
            continue;
        }
        if (dpid && f.dpid != *dpid)
            break;
        ret = cb(&f, arg);
        if (ret)
            break;
    }
    if (rc != 0 && rc != MDB_NOTFOUND)
        ret = store_err(rc);
    mdb_cursor_close(cur);
    mdb_txn_abort(txn);
    return ret > 0 ? 0 : ret;
}

int store_get_each(struct store *s, uint64_t dpid, const uint64_t *match_ids, size_t n,
                   store_iter_fn cb, void *arg)
{
    uint8_t kb[STORE_KEY_LEN];
    char owner[STORE_OWNER_MAX + 1];
    MDB_txn *txn;
    int rc, ret = 0;

    if (!s || !cb || (n && !match_ids))
        return -EINVAL;
    rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc)
        return store_err(rc);
    for (size_t i = 0; i < n && !ret; i++) {
        MDB_val k = { STORE_KEY_LEN, kb }, v;
        struct store_flow f;

        store_key(kb, dpid, match_ids[i]);
        rc = mdb_get(txn, s->dbi, &k, &v);
        if (rc == MDB_NOTFOUND)
            continue;                   /* gone since the caller saw it */
        if (rc) {
            ret = store_err(rc);
            break;
        }
        if (rec_decode(&k, &v, &f, owner) < 0) {
            LOG_WARN(STORE_COMP, "skipping a damaged record");
            continue;
        }
        ret = cb(&f, arg);
    }
    mdb_txn_abort(txn);
    return ret > 0 ? 0 : ret;
}

/* ---- the apps' records ------------------------------------------------------------- */

static int store_kv_check(const char *key, size_t len)
{
    size_t n = key ? strlen(key) : 0;
    return n == 0 || n > STORE_KV_KEY_MAX || len > STORE_KV_VAL_MAX ? -EINVAL : 0;
}

int store_kv_put(struct store *s, const char *key, const void *val, size_t len)
{
    struct store_op op = { .kind = STORE_OP_KV };

    if (!s || store_kv_check(key, len) < 0 || (!val && len))
        return -EINVAL;
    op.u.kv.key = key;
    op.u.kv.val = val ? val : "";
    op.u.kv.len = len;
    return store_submit_wait(s, &op);
}

int store_kv_del(struct store *s, const char *key)
{
    struct store_op op = { .kind = STORE_OP_KV };

    if (!s || store_kv_check(key, 0) < 0)
        return -EINVAL;
    op.u.kv.key = key;
    return store_submit_wait(s, &op);
}

int store_kv_foreach(struct store *s, const char *prefix, store_kv_fn cb, void *arg)
{
    char key[STORE_KV_KEY_MAX + 1];
    size_t plen = prefix ? strlen(prefix) : 0;
    MDB_cursor *cur;
    MDB_txn *txn;
    MDB_val k = { plen, (void *)prefix }, v;
    int rc, ret = 0;

    if (!s || !cb || plen > STORE_KV_KEY_MAX)
        return -EINVAL;
    rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc)
        return store_err(rc);
    rc = mdb_cursor_open(txn, s->kv_dbi, &cur);
    if (rc) {
        mdb_txn_abort(txn);
        return store_err(rc);
    }
    rc = plen ? mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE) : mdb_cursor_get(cur, &k, &v, MDB_FIRST);
    for (; rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        if (plen && (k.mv_size < plen || memcmp(k.mv_data, prefix, plen) != 0))
            break;                      /* keys sort bytewise: past the prefix */
        if (k.mv_size > STORE_KV_KEY_MAX)
            continue;
        memcpy(key, k.mv_data, k.mv_size);
        key[k.mv_size] = '\0';
        ret = cb(key, v.mv_data, v.mv_size, arg);
        if (ret)
            break;
    }
    if (rc != 0 && rc != MDB_NOTFOUND && !ret)
        ret = store_err(rc);
    mdb_cursor_close(cur);
    mdb_txn_abort(txn);
    return ret > 0 ? 0 : ret;
}

int store_get_stats(struct store *s, struct store_stats *st)
{
    MDB_envinfo info;
    MDB_stat ms;
    MDB_txn *txn;
    int rc;

    if (!s || !st)
        return -EINVAL;
    pthread_mutex_lock(&s->lock);
    *st = s->st;
    pthread_mutex_unlock(&s->lock);
    rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc)
        return store_err(rc);
    rc = mdb_stat(txn, s->dbi, &ms);
    mdb_txn_abort(txn);
    if (rc)
        return store_err(rc);
    st->records = ms.ms_entries;
    if (mdb_env_info(s->env, &info) == 0) {
        st->map_size = info.me_mapsize;
        st->map_used = (uint64_t)(info.me_last_pgno + 1) * ms.ms_psize;
    }
    return 0;
}

const char *store_state_name(enum store_flow_state state)
{
    switch (state) {
    case STORE_FLOW_PENDING:
        return "pending";
    case STORE_FLOW_INSTALLED:
        return "installed";
    case STORE_FLOW_ERROR:
        return "error";
    case STORE_FLOW_DELETED:
        return "deleted";
    }
    return "unknown";
}

/* ---- lifecycle --------------------------------------------------------- */

static int store_sync_init(struct store *s)
{
    pthread_condattr_t ca;

    if (pthread_mutex_init(&s->lock, NULL))
        return -ENOMEM;
    if (pthread_condattr_init(&ca)) {
        pthread_mutex_destroy(&s->lock);
        return -ENOMEM;
    }
    /* The linger deadline must not move with wall-clock adjustments. */
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (pthread_cond_init(&s->work_cv, &ca)) {
        pthread_condattr_destroy(&ca);
        pthread_mutex_destroy(&s->lock);
        return -ENOMEM;
    }
    pthread_condattr_destroy(&ca);
    if (pthread_cond_init(&s->done_cv, NULL)) {
        pthread_cond_destroy(&s->work_cv);
        pthread_mutex_destroy(&s->lock);
        return -ENOMEM;
    }
    return 0;
}

static int store_limits(struct store *s)
{
    MDB_envinfo info;
    MDB_stat ms;
    size_t map_pages, reserve;
    int rc;

    rc = mdb_env_stat(s->env, &ms);
    if (!rc)
        rc = mdb_env_info(s->env, &info);
    if (rc)
        return rc;
    s->psize = ms.ms_psize;
    map_pages = info.me_mapsize / ms.ms_psize;
    reserve = map_pages / 8;
    if (reserve < STORE_RESERVE_MIN_PAGES)
        reserve = STORE_RESERVE_MIN_PAGES;
    if (reserve > STORE_RESERVE_MAX_PAGES)
        reserve = STORE_RESERVE_MAX_PAGES;
    if (map_pages < 2 * reserve) {
        LOG_ERR(STORE_COMP, "map size %zu bytes is below the minimum of %zu",
                (size_t)info.me_mapsize, 2 * reserve * ms.ms_psize);
        return EINVAL;
    }
    s->put_limit_pages = map_pages - reserve;
    return 0;
}

static int store_env_open(struct store *s, const char *dir)
{
    MDB_txn *txn;
    int dead = 0, rc;

    rc = mdb_env_create(&s->env);
    if (rc) {
        s->env = NULL;
        return rc;
    }
    rc = mdb_env_set_mapsize(s->env, s->map_size);
    if (!rc)
        rc = mdb_env_set_maxdbs(s->env, 4);
    /* MDB_NOTLS: read transactions are made on any MHD pool thread. */
    if (!rc)
        rc = mdb_env_open(s->env, dir, MDB_NOTLS, 0640);
    if (rc)
        return rc;
    /* A SIGKILLed ofcd leaves its reader slots behind; they would pin old pages. */
    mdb_reader_check(s->env, &dead);
    if (dead)
        LOG_INFO(STORE_COMP, "cleared %d stale reader slot(s)", dead);
    rc = store_limits(s);
    if (rc)
        return rc;
    rc = mdb_txn_begin(s->env, NULL, 0, &txn);
    if (rc)
        return rc;
    rc = mdb_dbi_open(txn, STORE_DB_NAME, MDB_CREATE, &s->dbi);
    if (!rc)
        rc = mdb_dbi_open(txn, STORE_KV_DB_NAME, MDB_CREATE, &s->kv_dbi);
    if (rc) {
        mdb_txn_abort(txn);
        return rc;
    }
    return mdb_txn_commit(txn);
}

struct store *store_open(const struct store_config *cfg)
{
    struct store *s;
    int rc;

    if (!cfg || !cfg->dir || !cfg->dir[0]) {
        LOG_ERR(STORE_COMP, "no data directory configured");
        return NULL;
    }
    if (mkdir(cfg->dir, 0750) < 0 && errno != EEXIST) {
        LOG_ERR(STORE_COMP, "cannot create %s: %s", cfg->dir, strerror(errno));
        return NULL;
    }
    s = calloc(1, sizeof(*s));
    if (!s) {
        LOG_ERR(STORE_COMP, "out of memory");
        return NULL;
    }
    s->map_size = cfg->map_size ? cfg->map_size : STORE_DEFAULT_MAP_SIZE;
    s->linger_us = cfg->linger_us;
    s->batch_target = cfg->batch_target;
    s->max_async = cfg->max_async ? cfg->max_async : STORE_DEFAULT_MAX_ASYNC;
    s->bg_linger_us = cfg->bg_linger_us ? cfg->bg_linger_us : STORE_DEFAULT_BG_LINGER_US;
    rc = store_env_open(s, cfg->dir);
    if (rc) {
        LOG_ERR(STORE_COMP, "cannot open LMDB in %s: %s", cfg->dir, mdb_strerror(rc));
        if (s->env)
            mdb_env_close(s->env);
        free(s);
        return NULL;
    }
    if (store_sync_init(s) < 0) {
        LOG_ERR(STORE_COMP, "cannot initialise locks");
        mdb_env_close(s->env);
        free(s);
        return NULL;
    }
    rc = pthread_create(&s->committer, NULL, store_committer, s);
    if (rc) {
        LOG_ERR(STORE_COMP, "cannot start the committer: %s", strerror(rc));
        store_close(s);
        return NULL;
    }
    s->committer_started = true;
    return s;
}

void store_close(struct store *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->stopping = true;
    pthread_cond_signal(&s->work_cv);
    pthread_mutex_unlock(&s->lock);
    if (s->committer_started)
        pthread_join(s->committer, NULL);
    pthread_cond_destroy(&s->done_cv);
    pthread_cond_destroy(&s->work_cv);
    pthread_mutex_destroy(&s->lock);
    mdb_env_close(s->env);
    free(s->scratch);
    free(s);
}
