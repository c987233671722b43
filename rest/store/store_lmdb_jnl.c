/*
 * store_lmdb_jnl: LMDB's puts and deletes kept in a journal, its
 * checkpoints and its recovery; see store_lmdb_jnl.h.
 *
 * A record: u8 kind (PUT, DEL), u8 database, u16 key length, u32 value
 * length, the key, the value (none for DEL); little-endian.
 *
 * LMDB's meta page (lmdb 0.9's MDB_meta after the 16-byte page header):
 * the magic at byte 16 of the page and the transaction id at byte 144.
 * Both are checked against what LMDB says before a page is kept, so a
 * different layout fails the first checkpoint loudly instead of being
 * trusted.
 */
#include "store_lmdb_jnl.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofcd_clock.h"
#include "ofcd_log.h"
#include "store.h"
#include "store_journal.h"

#define COMP "store"

#define REC_PUT 1u
#define REC_DEL 2u
#define REC_HDR 8u

#define META_MAGIC 0xBEEFC0DEu
#define META_OFF_MAGIC 16u
#define META_OFF_TXNID 144u
#define META_PAGES 2u

/* Replayed records are committed this many bytes at a time: one LMDB
 * transaction stays far below its own limit on dirty pages. */
#define REPLAY_TXN_BYTES (32u << 20)

/* How often the flusher syncs LMDB's file between checkpoints. */
#define FLUSH_EVERY_US 50000u

struct lmdb_jnl {
    MDB_env *env;
    MDB_dbi dbi[LMDB_JNL_DBS];
    struct store_journal *jnl;
    MDB_txn *pin;                   /* read txn on the checkpoint's snapshot */
    unsigned checkpoint_ms;
    uint64_t checkpoint_bytes;
    uint64_t since_bytes;           /* journal bytes since the last checkpoint */
    uint64_t last_ns;               /* when that was */
    /* The flusher: a thread of its own syncs LMDB's file every
     * FLUSH_EVERY_US, so the committer's checkpoint finds little left to
     * write and no commit waits behind a long sync. */
    pthread_t flusher;
    bool flusher_started;
    pthread_mutex_t lock;           /* flush_stop */
    pthread_cond_t cv;
    bool flush_stop;
    atomic_int flush_failed;        /* its sync's error, for the committer */
    atomic_uint_fast64_t commits;   /* LMDB commits so far: nothing new, no sync */
    size_t psize;
    int failed;
};

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

static int lmdb_errno(int rc)
{
    if (rc == 0)
        return 0;
    if (rc == MDB_MAP_FULL)
        return -ENOSPC;
    return rc > 0 ? -rc : -EIO;
}

static void jnl_path(const char *dir, const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", dir, name);
}

/* ---- the records ---------------------------------------------------------- */

static int rec_append(struct lmdb_jnl *j, unsigned kind, unsigned db, const MDB_val *k,
                      const MDB_val *v)
{
    uint8_t hdr[REC_HDR];

    if (j->failed)
        return j->failed;
    if (db >= LMDB_JNL_DBS || k->mv_size > UINT16_MAX || (v && v->mv_size > UINT32_MAX))
        return -EINVAL;
    hdr[0] = (uint8_t)kind;
    hdr[1] = (uint8_t)db;
    put_le(hdr + 2, k->mv_size, 2);
    put_le(hdr + 4, v ? v->mv_size : 0, 4);
    struct store_journal_part parts[3] = {
        {hdr, REC_HDR}, {k->mv_data, k->mv_size}, {v ? v->mv_data : NULL, v ? v->mv_size : 0},
    };
    return store_journal_appendv(j->jnl, parts, v ? 3 : 2);
}

int lmdb_jnl_put(struct lmdb_jnl *j, unsigned db, const MDB_val *k, const MDB_val *v)
{
    return rec_append(j, REC_PUT, db, k, v);
}

int lmdb_jnl_del(struct lmdb_jnl *j, unsigned db, const MDB_val *k)
{
    return rec_append(j, REC_DEL, db, k, NULL);
}

/* ---- checkpoint ---------------------------------------------------------- */

static void jnl_fail(struct lmdb_jnl *j, int rc, const char *what)
{
    if (j->failed)
        return;
    j->failed = rc < 0 ? rc : -EIO;
    LOG_ERR(COMP, "%s failed (%s): the store refuses changes from now on; restart ofcd to "
            "recover every committed change from the journal", what, strerror(-j->failed));
}

/* The meta page of txnid, read from LMDB's file into page (psize bytes). */
static int read_meta(struct lmdb_jnl *j, size_t txnid, uint8_t *page)
{
    int fd;

    if (mdb_env_get_fd(j->env, &fd) != 0)
        return -EBADF;
    for (unsigned i = 0; i < META_PAGES; i++) {
        ssize_t n = pread(fd, page, j->psize, (off_t)(i * j->psize));

        if (n != (ssize_t)j->psize)
            return n < 0 ? -errno : -EIO;
        if (get_le(page + META_OFF_MAGIC, 4) == META_MAGIC &&
            get_le(page + META_OFF_TXNID, 8) == txnid)
            return 0;
    }
    return -EPROTO;
}

int lmdb_jnl_checkpoint(struct lmdb_jnl *j, uint64_t now_ns)
{
    MDB_txn *pin = NULL;
    uint8_t *page;
    int rc;

    if (j->failed)
        return j->failed;
    if (!(page = malloc(j->psize)))
        return -ENOMEM;
    rc = lmdb_errno(mdb_env_sync(j->env, 1));
    if (rc) {
        jnl_fail(j, rc, "sync of the data file at a checkpoint");
        goto out;
    }
    rc = lmdb_errno(mdb_txn_begin(j->env, NULL, MDB_RDONLY, &pin));
    if (rc) {
        LOG_WARN(COMP, "checkpoint postponed: no read transaction (%s)", strerror(-rc));
        goto out;
    }
    rc = read_meta(j, mdb_txn_id(pin), page);
    if (rc) {
        jnl_fail(j, rc, "finding LMDB's meta page of the checkpoint");
        goto out;
    }
    rc = store_journal_reset(j->jnl, page, j->psize);
    if (rc) {
        jnl_fail(j, rc, "writing the journal's checkpoint");
        goto out;
    }
    /* The new snapshot is the recovery's base: the old one may go. */
    if (j->pin)
        mdb_txn_abort(j->pin);
    j->pin = pin;
    pin = NULL;
    j->since_bytes = 0;
    j->last_ns = now_ns;
out:
    if (pin)
        mdb_txn_abort(pin);
    free(page);
    return rc;
}

/* The flusher's failure is the committer's to act on. */
static int flusher_check(struct lmdb_jnl *j)
{
    int rc = atomic_load(&j->flush_failed);

    if (rc)
        jnl_fail(j, rc, "sync of the data file");
    return j->failed;
}

void lmdb_jnl_idle(struct lmdb_jnl *j, uint64_t now_ns)
{
    if (flusher_check(j) || !j->since_bytes)
        return;
    if (j->since_bytes >= j->checkpoint_bytes ||
        now_ns - j->last_ns >= (uint64_t)j->checkpoint_ms * 1000000u)
        (void)lmdb_jnl_checkpoint(j, now_ns);
}

static void *jnl_flusher(void *arg)
{
    struct lmdb_jnl *j = arg;
    uint64_t flushed = 0;
    int fd;

    pthread_setname_np(pthread_self(), "ofcd-flush");
    if (mdb_env_get_fd(j->env, &fd) != 0)
        return NULL;
    pthread_mutex_lock(&j->lock);
    while (!j->flush_stop) {
        struct timespec dl = ofcd_clock_deadline(FLUSH_EVERY_US);

        if (pthread_cond_timedwait(&j->cv, &j->lock, &dl) != ETIMEDOUT || j->flush_stop)
            continue;
        uint64_t now = atomic_load(&j->commits);
        if (now == flushed)
            continue;
        flushed = now;
        pthread_mutex_unlock(&j->lock);
        if (fdatasync(fd) != 0) {
            atomic_store(&j->flush_failed, -errno);
            pthread_mutex_lock(&j->lock);
            break;
        }
        pthread_mutex_lock(&j->lock);
    }
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

static int flusher_start(struct lmdb_jnl *j)
{
    pthread_condattr_t ca;
    int rc;

    if (pthread_condattr_init(&ca))
        return -ENOMEM;
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    rc = pthread_cond_init(&j->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (rc)
        return -rc;
    if ((rc = pthread_mutex_init(&j->lock, NULL)) != 0) {
        pthread_cond_destroy(&j->cv);
        return -rc;
    }
    if ((rc = pthread_create(&j->flusher, NULL, jnl_flusher, j)) != 0) {
        pthread_mutex_destroy(&j->lock);
        pthread_cond_destroy(&j->cv);
        return -rc;
    }
    j->flusher_started = true;
    return 0;
}

static void flusher_stop(struct lmdb_jnl *j)
{
    if (!j->flusher_started)
        return;
    pthread_mutex_lock(&j->lock);
    j->flush_stop = true;
    pthread_cond_signal(&j->cv);
    pthread_mutex_unlock(&j->lock);
    pthread_join(j->flusher, NULL);
    pthread_mutex_destroy(&j->lock);
    pthread_cond_destroy(&j->cv);
    j->flusher_started = false;
}

/* ---- commit ------------------------------------------------------------- */

int lmdb_jnl_commit(struct lmdb_jnl *j, MDB_txn *txn)
{
    uint64_t bytes = store_journal_queued_bytes(j->jnl);
    int rc = flusher_check(j);

    if (rc) {
        mdb_txn_abort(txn);
        store_journal_drop(j->jnl);
        return rc;
    }
    /* LMDB's commit first: it syncs nothing, and when it fails (its map
     * full: the checkpoint's snapshot holds pages) nothing of it is in the
     * journal yet, so the failure is this batch's alone. */
    rc = lmdb_errno(mdb_txn_commit(txn));
    if (rc) {
        lmdb_jnl_abort(j);
        return rc;
    }
    atomic_fetch_add(&j->commits, 1);
    /* Durable once the records are: LMDB has the change already, so if
     * they cannot be, nothing more may be committed before a recovery. */
    rc = store_journal_sync(j->jnl);
    if (rc) {
        jnl_fail(j, rc, "the journal's sync");
        return rc;
    }
    j->since_bytes += bytes;
    return 0;
}

/* An aborted transaction: its records dropped. It may have failed for room
 * the checkpoint's snapshot holds: a checkpoint lets LMDB reuse it. */
void lmdb_jnl_abort(struct lmdb_jnl *j)
{
    store_journal_drop(j->jnl);
    if (!j->failed && j->since_bytes)
        (void)lmdb_jnl_checkpoint(j, ofcd_clock_mono_ns());
}

int lmdb_jnl_failed(const struct lmdb_jnl *j)
{
    return j->failed;
}

/* ---- recovery ----------------------------------------------------------- */

int lmdb_jnl_restore(const char *dir)
{
    char jpath[PATH_MAX], dpath[PATH_MAX];
    uint8_t *meta = malloc(STORE_JOURNAL_META_MAX);
    uint64_t end, next;
    size_t meta_len = 0;
    int fd = -1, rc;

    if (!meta)
        return -ENOMEM;
    jnl_path(dir, LMDB_JNL_FILE, jpath, sizeof(jpath));
    jnl_path(dir, "data.mdb", dpath, sizeof(dpath));
    rc = store_journal_replay(jpath, NULL, NULL, &end, &next, meta, &meta_len);
    if (rc) {
        LOG_ERR(COMP, "%s is not a journal ofcd can read (%s)", jpath, strerror(-rc));
        goto out;
    }
    if (meta_len == 0)
        goto out;                       /* no checkpoint yet: LMDB as it is */
    if (meta_len < META_OFF_TXNID + 8 || get_le(meta + META_OFF_MAGIC, 4) != META_MAGIC) {
        LOG_ERR(COMP, "%s: its checkpoint is not an LMDB meta page", jpath);
        rc = -EINVAL;
        goto out;
    }
    fd = open(dpath, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        rc = -errno;
        LOG_ERR(COMP, "%s has a checkpoint but %s cannot be opened (%s): refusing to start "
                "an empty store over it", jpath, dpath, strerror(-rc));
        goto out;
    }
    /* Both meta pages: LMDB takes the newer of two, and either may be a
     * later transaction's whose pages never reached the disk. */
    for (unsigned i = 0; i < META_PAGES && rc == 0; i++) {
        put_le(meta, i, 8);             /* the page header's own number */
        if (pwrite(fd, meta, meta_len, (off_t)(i * meta_len)) != (ssize_t)meta_len)
            rc = -EIO;
    }
    if (rc == 0 && fdatasync(fd) != 0)
        rc = -errno;
    if (rc)
        LOG_ERR(COMP, "cannot write the checkpoint back into %s: %s", dpath, strerror(-rc));
    else
        LOG_INFO(COMP, "recovery: %s set back to its checkpoint (transaction %llu)", dpath,
                 (unsigned long long)get_le(meta + META_OFF_TXNID, 8));
out:
    if (fd >= 0)
        close(fd);
    free(meta);
    return rc;
}

struct replay {
    struct lmdb_jnl *j;
    MDB_txn *txn;
    uint64_t records, txn_bytes;
    int rc;
};

static int replay_rec(void *arg, uint64_t seq, const void *rec, size_t len)
{
    struct replay *r = arg;
    const uint8_t *p = rec;
    int rc;

    if (len < REC_HDR)
        goto bad;
    unsigned kind = p[0], db = p[1];
    size_t klen = get_le(p + 2, 2), vlen = get_le(p + 4, 4);
    if (db >= LMDB_JNL_DBS || (kind != REC_PUT && kind != REC_DEL) ||
        len != REC_HDR + klen + (kind == REC_PUT ? vlen : 0) || (kind == REC_DEL && vlen))
        goto bad;
    if (!r->txn && (rc = mdb_txn_begin(r->j->env, NULL, 0, &r->txn)) != 0)
        return r->rc = lmdb_errno(rc);
    MDB_val k = {klen, (void *)(p + REC_HDR)}, v = {vlen, (void *)(p + REC_HDR + klen)};
    rc = kind == REC_PUT ? mdb_put(r->txn, r->j->dbi[db], &k, &v, 0)
                         : mdb_del(r->txn, r->j->dbi[db], &k, NULL);
    if (rc && !(kind == REC_DEL && rc == MDB_NOTFOUND))
        return r->rc = lmdb_errno(rc);
    r->records++;
    r->txn_bytes += len;
    if (r->txn_bytes >= REPLAY_TXN_BYTES) {
        rc = mdb_txn_commit(r->txn);
        r->txn = NULL;
        r->txn_bytes = 0;
        if (rc)
            return r->rc = lmdb_errno(rc);
    }
    return 0;
bad:
    LOG_ERR(COMP, "journal record %llu is whole but not a record ofcd writes",
            (unsigned long long)seq);
    return r->rc = -EINVAL;
}

/* Apply dir's journal to env; the caller's pin keeps the snapshot the
 * replay starts from whole while it commits in parts. */
static int jnl_replay(struct lmdb_jnl *j, const char *path)
{
    struct replay r = {.j = j};
    uint64_t end, next;
    int rc = store_journal_replay(path, replay_rec, &r, &end, &next, NULL, NULL);

    if (r.txn) {
        int crc = rc ? (mdb_txn_abort(r.txn), 0) : lmdb_errno(mdb_txn_commit(r.txn));
        if (!rc)
            rc = crc;
    }
    if (rc) {
        LOG_ERR(COMP, "replay of %s failed after %llu records: %s", path,
                (unsigned long long)r.records, strerror(-rc));
        return rc;
    }
    if (r.records)
        LOG_INFO(COMP, "recovery: %llu journal records applied again", (unsigned long long)r.records);
    return lmdb_errno(mdb_env_sync(j->env, 1));
}

int lmdb_jnl_open(MDB_env *env, const MDB_dbi dbi[LMDB_JNL_DBS], const char *dir,
                  const struct lmdb_jnl_cfg *cfg, struct lmdb_jnl **out)
{
    char path[PATH_MAX];
    struct lmdb_jnl *j = calloc(1, sizeof(*j));
    MDB_stat ms;
    int rc;

    if (!j)
        return -ENOMEM;
    j->env = env;
    memcpy(j->dbi, dbi, sizeof(j->dbi));
    j->checkpoint_ms = cfg && cfg->checkpoint_ms ? cfg->checkpoint_ms
                                                 : STORE_DEFAULT_CHECKPOINT_MS;
    j->checkpoint_bytes = cfg && cfg->checkpoint_bytes ? cfg->checkpoint_bytes
                                                       : STORE_DEFAULT_CHECKPOINT_BYTES;
    rc = lmdb_errno(mdb_env_stat(env, &ms));
    if (rc)
        goto fail;
    j->psize = ms.ms_psize;
    if (j->psize > STORE_JOURNAL_META_MAX) {
        rc = -EINVAL;
        goto fail;
    }
    jnl_path(dir, LMDB_JNL_FILE, path, sizeof(path));
    rc = lmdb_errno(mdb_txn_begin(env, NULL, MDB_RDONLY, &j->pin));
    if (!rc)
        rc = jnl_replay(j, path);
    if (!rc)
        rc = store_journal_open(path, &j->jnl);
    if (!rc)
        rc = lmdb_jnl_checkpoint(j, ofcd_clock_mono_ns());
    if (!rc)
        rc = flusher_start(j);
    if (rc)
        goto fail;
    *out = j;
    return 0;
fail:
    LOG_ERR(COMP, "cannot open the journal in %s: %s", dir, strerror(-rc));
    if (j->pin)
        mdb_txn_abort(j->pin);
    if (j->jnl)
        store_journal_close(j->jnl);
    free(j);
    return rc;
}

void lmdb_jnl_close(struct lmdb_jnl *j)
{
    if (!j)
        return;
    flusher_stop(j);
    if (!flusher_check(j))
        (void)lmdb_jnl_checkpoint(j, ofcd_clock_mono_ns());
    if (j->pin)
        mdb_txn_abort(j->pin);
    store_journal_close(j->jnl);
    free(j);
}
