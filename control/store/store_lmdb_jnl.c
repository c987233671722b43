/*
 * store_lmdb_jnl: LMDB's puts and deletes kept in a journal, its
 * checkpoints and its recovery; see store_lmdb_jnl.h.
 *
 * A record: u8 kind (PUT, DEL), u8 database, u16 key length, u32 value
 * length, the key, the value (none for DEL); little-endian.
 *
 * A file's checkpoint (its header's meta, store_journal.h): "OFCDCKP1",
 * u64 epoch, u32 page length (0: pending, the base is the other file's),
 * u32 0, then LMDB's meta page of the base transaction.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ofcd_clock.h"
#include "ofcd_sync_dir.h"
#include "ofcd_le.h"
#include "ofcd_log.h"
#include "store.h"
#include "store_journal.h"

#define COMP "store"

#define REC_PUT 1u
#define REC_DEL 2u
#define REC_HDR 8u

#define META_MAGIC 0xBEEFC0DEu
#define META_OFF_MAGIC 16u
#define META_OFF_LAST_PG 136u
#define META_OFF_TXNID 144u
#define META_PAGES 2u

#define CK_MAGIC "OFCDCKP1"
#define CK_HDR 24u

/* Replayed records are committed this many bytes at a time: one LMDB
 * transaction stays far below its own limit on dirty pages. */
#define REPLAY_TXN_BYTES (32u << 20)

/* How often the flusher syncs LMDB's file between checkpoints. */
#define FLUSH_EVERY_US 50000u

const char *const lmdb_jnl_files[LMDB_JNL_FILES] = {"journal", "journal.1"};

struct lmdb_jnl {
    MDB_env *env;
    MDB_dbi dbi[LMDB_JNL_DBS];
    struct store_journal *file[LMDB_JNL_FILES];
    unsigned active;                /* the file records go to */
    uint64_t epoch;                 /* the last completed checkpoint's */
    MDB_txn *pin;                   /* read txn on that checkpoint's snapshot */
    unsigned checkpoint_ms;
    uint64_t checkpoint_bytes;
    uint64_t since_bytes;           /* journal bytes since the last checkpoint began */
    uint64_t last_ns;               /* when it began */
    size_t psize;
    int failed;

    /* A checkpoint under way (between its steps 1 and 3). */
    bool ck_busy;
    MDB_txn *ck_pin;
    uint8_t *ck_blob;               /* CK_HDR + psize: the checkpoint to keep */
    uint64_t ck_req;                /* the flusher's request it waits for */

    /* The flusher (see the header). */
    pthread_t flusher;
    bool flusher_started;
    pthread_mutex_t lock;           /* flush_stop, req */
    pthread_cond_t cv;              /* to the flusher: a request, or stop */
    pthread_cond_t done_cv;         /* from it: a request served, or failed */
    bool flush_stop;
    uint64_t req;                   /* requests made */
    atomic_uint_fast64_t done;      /* the last request a finished sync covers */
    atomic_int flush_failed;        /* its sync's error, for the committer */
    atomic_uint_fast64_t commits;   /* LMDB commits so far: nothing new, no sync */
};

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
    ofcd_put_le(hdr + 2, k->mv_size, 2);
    ofcd_put_le(hdr + 4, v ? v->mv_size : 0, 4);
    struct store_journal_part parts[3] = {
        {hdr, REC_HDR}, {k->mv_data, k->mv_size}, {v ? v->mv_data : NULL, v ? v->mv_size : 0},
    };
    return store_journal_appendv(j->file[j->active], parts, v ? 3 : 2);
}

int lmdb_jnl_put(struct lmdb_jnl *j, unsigned db, const MDB_val *k, const MDB_val *v)
{
    return rec_append(j, REC_PUT, db, k, v);
}

int lmdb_jnl_del(struct lmdb_jnl *j, unsigned db, const MDB_val *k)
{
    return rec_append(j, REC_DEL, db, k, NULL);
}

/* ---- failure ----------------------------------------------------------- */

static void jnl_fail(struct lmdb_jnl *j, int rc, const char *what)
{
    if (j->failed)
        return;
    j->failed = rc < 0 ? rc : -EIO;
    LOG_ERR(COMP, "%s failed (%s): the store refuses changes from now on; restart ofcd to "
            "recover every committed change from the journal", what, strerror(-j->failed));
}

/* The flusher's failure is the committer's to act on. */
static int flusher_check(struct lmdb_jnl *j)
{
    int rc = atomic_load(&j->flush_failed);

    if (rc)
        jnl_fail(j, rc, "sync of the data file");
    return j->failed;
}

int lmdb_jnl_failed(const struct lmdb_jnl *j)
{
    return j->failed;
}

/* ---- the flusher ---------------------------------------------------------- */

static void *jnl_flusher(void *arg)
{
    struct lmdb_jnl *j = arg;
    uint64_t served = 0, flushed = 0;
    int fd;

    pthread_setname_np(pthread_self(), "ofcd-flush");
    pthread_mutex_lock(&j->lock);
    if (mdb_env_get_fd(j->env, &fd) != 0) {
        atomic_store(&j->flush_failed, -EBADF);
        pthread_cond_broadcast(&j->done_cv);
        pthread_mutex_unlock(&j->lock);
        return NULL;
    }
    while (!j->flush_stop) {
        if (j->req == served) {
            struct timespec dl = ofcd_clock_deadline(FLUSH_EVERY_US);
            pthread_cond_timedwait(&j->cv, &j->lock, &dl);
            if (j->flush_stop)
                break;
        }
        uint64_t want = j->req, c = atomic_load(&j->commits);
        if (want == served && c == flushed)
            continue;
        pthread_mutex_unlock(&j->lock);
        /* Started after the request: it covers the request's transaction. */
        int rc = fdatasync(fd) != 0 ? -errno : 0;
        pthread_mutex_lock(&j->lock);
        if (rc) {
            atomic_store(&j->flush_failed, rc);
            pthread_cond_broadcast(&j->done_cv);
            break;
        }
        flushed = c;
        served = want;
        atomic_store(&j->done, want);
        pthread_cond_broadcast(&j->done_cv);
    }
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

static int flusher_start(struct lmdb_jnl *j)
{
    int rc = pthread_create(&j->flusher, NULL, jnl_flusher, j);

    if (rc)
        return -rc;
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
    j->flusher_started = false;
}

/* Ask for a sync of LMDB's file; its number for lmdb_jnl_checkpoint_end. */
static uint64_t flusher_request(struct lmdb_jnl *j)
{
    pthread_mutex_lock(&j->lock);
    uint64_t r = ++j->req;
    pthread_cond_signal(&j->cv);
    pthread_mutex_unlock(&j->lock);
    return r;
}

/* Until request r is served: the flusher's, or this thread's own sync when
 * there is no flusher (yet, or any more). */
static int flusher_wait(struct lmdb_jnl *j, uint64_t r)
{
    int fd;

    if (!j->flusher_started) {
        if (mdb_env_get_fd(j->env, &fd) != 0)
            return -EBADF;
        if (fdatasync(fd) != 0)
            return -errno;
        atomic_store(&j->done, r);
        return 0;
    }
    pthread_mutex_lock(&j->lock);
    while (atomic_load(&j->done) < r && !atomic_load(&j->flush_failed))
        pthread_cond_wait(&j->done_cv, &j->lock);
    pthread_mutex_unlock(&j->lock);
    return atomic_load(&j->flush_failed);
}

/* ---- checkpoint ---------------------------------------------------------- */

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
        if (ofcd_get_le(page + META_OFF_MAGIC, 4) == META_MAGIC &&
            ofcd_get_le(page + META_OFF_TXNID, 8) == txnid)
            return 0;
    }
    return -EPROTO;
}

static void ck_header(uint8_t *blob, uint64_t epoch, size_t page_len)
{
    memcpy(blob, CK_MAGIC, 8);
    ofcd_put_le(blob + 8, epoch, 8);
    ofcd_put_le(blob + 16, page_len, 4);
    ofcd_put_le(blob + 20, 0, 4);
}

/*
 * Step 1: a read txn on the latest transaction, its meta page, and the
 * other file started again after the active one's records. complete: LMDB
 * is synced already (at open, nothing else running): the new file's
 * checkpoint is whole at once; otherwise it is pending until step 3.
 */
static int ck_begin(struct lmdb_jnl *j, uint64_t now_ns, bool complete)
{
    unsigned other = (j->active + 1) % LMDB_JNL_FILES;
    MDB_txn *pin = NULL;
    int rc;

    if (j->failed)
        return j->failed;
    if (j->ck_busy)
        return -EALREADY;
    rc = lmdb_errno(mdb_txn_begin(j->env, NULL, MDB_RDONLY, &pin));
    if (rc) {
        LOG_WARN(COMP, "checkpoint postponed: no read transaction (%s)", strerror(-rc));
        return rc;
    }
    rc = read_meta(j, mdb_txn_id(pin), j->ck_blob + CK_HDR);
    if (rc) {
        mdb_txn_abort(pin);
        jnl_fail(j, rc, "finding LMDB's meta page of the checkpoint");
        return rc;
    }
    ck_header(j->ck_blob, j->epoch + 1, complete ? j->psize : 0);
    rc = store_journal_reset_at(j->file[other], store_journal_next_seq(j->file[j->active]),
                                j->ck_blob, complete ? CK_HDR + j->psize : CK_HDR);
    if (rc) {
        mdb_txn_abort(pin);
        jnl_fail(j, rc, "starting a journal file at a checkpoint");
        return rc;
    }
    j->active = other;
    j->since_bytes = 0;
    j->last_ns = now_ns;
    if (complete) {
        if (j->pin)
            mdb_txn_abort(j->pin);
        j->pin = pin;
        j->epoch++;
        return 0;
    }
    j->ck_pin = pin;
    j->ck_busy = true;
    j->ck_req = flusher_request(j);
    return 0;
}

int lmdb_jnl_checkpoint_begin(struct lmdb_jnl *j, uint64_t now_ns)
{
    return ck_begin(j, now_ns, false);
}

int lmdb_jnl_checkpoint_end(struct lmdb_jnl *j, bool wait)
{
    int rc;

    if (!j->ck_busy)
        return 0;
    if (flusher_check(j))
        return j->failed;
    if (atomic_load(&j->done) < j->ck_req) {
        if (!wait)
            return -EAGAIN;
        rc = flusher_wait(j, j->ck_req);
        if (rc) {
            jnl_fail(j, rc, "sync of the data file at a checkpoint");
            return rc;
        }
    }
    /* Step 3: the base's pages are durable; the file says so. */
    ck_header(j->ck_blob, j->epoch + 1, j->psize);
    rc = store_journal_set_meta(j->file[j->active], j->ck_blob, CK_HDR + j->psize);
    if (rc) {
        jnl_fail(j, rc, "writing the journal's checkpoint");
        return rc;
    }
    if (j->pin)
        mdb_txn_abort(j->pin);
    j->pin = j->ck_pin;
    j->ck_pin = NULL;
    j->ck_busy = false;
    j->epoch++;
    return 0;
}

int lmdb_jnl_checkpoint(struct lmdb_jnl *j, uint64_t now_ns)
{
    int rc = lmdb_jnl_checkpoint_end(j, true);

    if (!rc)
        rc = ck_begin(j, now_ns, false);
    if (!rc)
        rc = lmdb_jnl_checkpoint_end(j, true);
    return rc;
}

void lmdb_jnl_idle(struct lmdb_jnl *j, uint64_t now_ns)
{
    if (flusher_check(j))
        return;
    if (j->ck_busy) {
        (void)lmdb_jnl_checkpoint_end(j, false);
        return;
    }
    if (j->since_bytes && (j->since_bytes >= j->checkpoint_bytes ||
                           now_ns - j->last_ns >= (uint64_t)j->checkpoint_ms * 1000000u))
        (void)ck_begin(j, now_ns, false);
}

/* ---- commit ------------------------------------------------------------- */

int lmdb_jnl_commit(struct lmdb_jnl *j, MDB_txn *txn)
{
    struct store_journal *f = j->file[j->active];
    uint64_t bytes = store_journal_queued_bytes(f);
    int rc = flusher_check(j);

    if (rc) {
        mdb_txn_abort(txn);
        store_journal_drop(f);
        return rc;
    }
    /* LMDB's commit first: it syncs nothing, and when it fails (its map
     * full: a checkpoint's snapshot holds pages) nothing of it is in the
     * journal yet, so the failure is this batch's alone. */
    rc = lmdb_errno(mdb_txn_commit(txn));
    if (rc) {
        lmdb_jnl_abort(j, rc == -ENOSPC);
        return rc;
    }
    if (bytes)
        atomic_fetch_add(&j->commits, 1);
    /* Durable once the records are: LMDB has the change already, so if
     * they cannot be, nothing more may be committed before a recovery. */
    rc = store_journal_sync(f);
    if (rc) {
        jnl_fail(j, rc, "the journal's sync");
        return rc;
    }
    j->since_bytes += bytes;
    return 0;
}

/* An aborted transaction: its records dropped. When it failed for room,
 * the checkpoints' snapshots may hold it: a whole checkpoint lets LMDB
 * reuse their pages (when there is anything since the last one to gain). */
void lmdb_jnl_abort(struct lmdb_jnl *j, bool for_room)
{
    store_journal_drop(j->file[j->active]);
    if (for_room && !j->failed && (j->since_bytes || j->ck_busy))
        (void)lmdb_jnl_checkpoint(j, ofcd_clock_mono_ns());
}

/* ---- recovery ----------------------------------------------------------- */

int lmdb_jnl_remove(const char *dir)
{
    char path[PATH_MAX];
    int rc = 0;

    /* Invalidated first: if the unlink is undone by a crash, what comes
     * back is no journal, never a stale checkpoint. */
    for (unsigned i = 0; i < LMDB_JNL_FILES && !rc; i++) {
        jnl_path(dir, lmdb_jnl_files[i], path, sizeof(path));
        rc = store_journal_invalidate(path);
        if (!rc && unlink(path) != 0 && errno != ENOENT)
            rc = -errno;
    }
    return rc ? rc : ofcd_sync_dir(dir);
}

/* One journal file as found: its checkpoint and where its records run. */
struct jfile {
    bool exists, valid;             /* valid: it holds a checkpoint of ours */
    uint64_t epoch, first, next;
    size_t page_len;
    uint8_t *blob;
};

static int read_jfile(const char *dir, unsigned i, struct jfile *f)
{
    char path[PATH_MAX];
    size_t blen = 0;
    uint64_t end;
    int rc;

    jnl_path(dir, lmdb_jnl_files[i], path, sizeof(path));
    f->exists = access(path, F_OK) == 0;
    if (!f->exists)
        return 0;
    rc = store_journal_replay_from(path, NULL, NULL, &end, &f->first, &f->next, f->blob,
                                   &blen);
    if (rc == -EINVAL) {
        /* No header slot whole: made and never finished, or invalidated.
         * Nothing in it was ever needed (records follow a whole slot). */
        LOG_WARN(COMP, "%s has no valid header: not part of the recovery", path);
        return 0;
    }
    if (rc) {
        LOG_ERR(COMP, "%s cannot be read (%s)", path, strerror(-rc));
        return rc;
    }
    if (blen < CK_HDR || memcmp(f->blob, CK_MAGIC, 8) != 0)
        return 0;                   /* started, no checkpoint yet */
    f->epoch = ofcd_get_le(f->blob + 8, 8);
    f->page_len = (size_t)ofcd_get_le(f->blob + 16, 4);
    f->valid = f->page_len == 0 ||
               (blen == CK_HDR + f->page_len && f->page_len >= META_OFF_TXNID + 8 &&
                ofcd_get_le(f->blob + CK_HDR + META_OFF_MAGIC, 4) == META_MAGIC);
    if (!f->valid)
        LOG_ERR(COMP, "%s: its checkpoint is not an LMDB meta page", path);
    return f->valid ? 0 : -EINVAL;
}

/* Write the checkpoint's meta page into both of LMDB's meta pages. */
static int write_base(const char *dir, uint8_t *page, size_t len)
{
    char dpath[PATH_MAX];
    int fd, rc = 0;

    jnl_path(dir, "data.mdb", dpath, sizeof(dpath));
    fd = open(dpath, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        rc = -errno;
        LOG_ERR(COMP, "the journal in %s has a checkpoint but %s cannot be opened (%s): "
                "refusing to start an empty store over it", dir, dpath, strerror(-rc));
        return rc;
    }
    /* The base's tree must fit in the file: a journal of another data file
     * would set this one to pages it never had. */
    struct stat st;
    uint64_t last_pg = ofcd_get_le(page + META_OFF_LAST_PG, 8);
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < (last_pg + 1) * len) {
        LOG_ERR(COMP, "the journal in %s does not match %s (its checkpoint reaches page %llu, "
                "the file is %lld bytes): refusing to open", dir, dpath,
                (unsigned long long)last_pg, (long long)st.st_size);
        close(fd);
        return -EINVAL;
    }
    /* Both: LMDB takes the newer of two, and either may be a later
     * transaction's whose pages never reached the disk. */
    for (unsigned i = 0; i < META_PAGES && rc == 0; i++) {
        ofcd_put_le(page, i, 8);         /* the page header's own number */
        if (pwrite(fd, page, len, (off_t)(i * len)) != (ssize_t)len)
            rc = -EIO;
    }
    if (rc == 0 && fdatasync(fd) != 0)
        rc = -errno;
    close(fd);
    if (rc)
        LOG_ERR(COMP, "cannot write the checkpoint back into %s: %s", dpath, strerror(-rc));
    else
        LOG_INFO(COMP, "recovery: %s set back to its checkpoint (transaction %llu)", dpath,
                 (unsigned long long)ofcd_get_le(page + META_OFF_TXNID, 8));
    return rc;
}

int lmdb_jnl_restore(const char *dir, struct lmdb_jnl_plan *plan)
{
    struct jfile f[LMDB_JNL_FILES] = {{0}};
    unsigned n = LMDB_JNL_FILES, newest = 0;
    int rc = 0;

    memset(plan, 0, sizeof(*plan));
    for (unsigned i = 0; i < n && rc == 0; i++) {
        if (!(f[i].blob = malloc(STORE_JOURNAL_META_MAX)))
            rc = -ENOMEM;
        else
            rc = read_jfile(dir, i, &f[i]);
    }
    if (rc)
        goto out;
    bool any = false;
    for (unsigned i = 0; i < n; i++)
        if (f[i].valid && (!any || f[i].epoch > f[newest].epoch)) {
            newest = i;
            any = true;
        }
    if (!any)
        goto out;                   /* no checkpoint yet: LMDB as it is */
    unsigned base = newest, other = (newest + 1) % n;
    if (f[newest].page_len == 0) {
        /* Pending: its base is the other file's, whose records come first. */
        if (!f[other].valid || f[other].page_len == 0 ||
            f[other].epoch + 1 != f[newest].epoch || f[other].next != f[newest].first) {
            LOG_ERR(COMP, "the journal files in %s do not follow each other (epochs %llu "
                    "and %llu): refusing to start without records a recovery needs", dir,
                    (unsigned long long)f[other].epoch, (unsigned long long)f[newest].epoch);
            rc = -EINVAL;
            goto out;
        }
        base = other;
        plan->file[plan->n++] = other;
    }
    plan->file[plan->n++] = newest;
    plan->newest = newest;
    plan->epoch = f[newest].epoch;
    rc = write_base(dir, f[base].blob + CK_HDR, f[base].page_len);
out:
    for (unsigned i = 0; i < n; i++)
        free(f[i].blob);
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
    size_t klen = ofcd_get_le(p + 2, 2), vlen = ofcd_get_le(p + 4, 4);
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

/* Apply the plan's files to env; the caller's pin keeps the snapshot the
 * replay starts from whole while it commits in parts. */
static int jnl_replay(struct lmdb_jnl *j, const char *dir, const struct lmdb_jnl_plan *plan)
{
    struct replay r = {.j = j};
    char path[PATH_MAX];
    uint64_t end, next;
    int rc = 0;

    for (unsigned i = 0; i < plan->n && rc == 0; i++) {
        jnl_path(dir, lmdb_jnl_files[plan->file[i]], path, sizeof(path));
        rc = store_journal_replay(path, replay_rec, &r, &end, &next, NULL, NULL);
    }
    if (r.txn) {
        int crc = rc ? (mdb_txn_abort(r.txn), 0) : lmdb_errno(mdb_txn_commit(r.txn));
        if (!rc)
            rc = crc;
    }
    if (rc) {
        LOG_ERR(COMP, "replay of the journal in %s failed after %llu records: %s", dir,
                (unsigned long long)r.records, strerror(-rc));
        return rc;
    }
    if (r.records)
        LOG_INFO(COMP, "recovery: %llu journal records applied again", (unsigned long long)r.records);
    return lmdb_errno(mdb_env_sync(j->env, 1));
}

static int jnl_sync_init(struct lmdb_jnl *j)
{
    int rc = ofcd_clock_cond_init(&j->cv);

    if (!rc && (rc = ofcd_clock_cond_init(&j->done_cv)) != 0)
        pthread_cond_destroy(&j->cv);
    if (rc)
        return rc;
    if ((rc = pthread_mutex_init(&j->lock, NULL)) != 0) {
        pthread_cond_destroy(&j->cv);
        pthread_cond_destroy(&j->done_cv);
        return -rc;
    }
    return 0;
}

static void jnl_free(struct lmdb_jnl *j)
{
    flusher_stop(j);
    if (j->ck_pin)
        mdb_txn_abort(j->ck_pin);
    if (j->pin)
        mdb_txn_abort(j->pin);
    for (unsigned i = 0; i < LMDB_JNL_FILES; i++)
        if (j->file[i])
            store_journal_close(j->file[i]);
    pthread_mutex_destroy(&j->lock);
    pthread_cond_destroy(&j->cv);
    pthread_cond_destroy(&j->done_cv);
    free(j->ck_blob);
    free(j);
}

int lmdb_jnl_open(MDB_env *env, const MDB_dbi dbi[LMDB_JNL_DBS], const char *dir,
                  const struct lmdb_jnl_cfg *cfg, const struct lmdb_jnl_plan *plan,
                  struct lmdb_jnl **out)
{
    char path[PATH_MAX];
    struct lmdb_jnl *j = calloc(1, sizeof(*j));
    MDB_stat ms;
    int rc;

    if (!j)
        return -ENOMEM;
    if ((rc = jnl_sync_init(j)) != 0) {
        free(j);
        return rc;
    }
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
    if (j->psize + CK_HDR > STORE_JOURNAL_META_MAX || !(j->ck_blob = malloc(CK_HDR + j->psize))) {
        rc = j->ck_blob ? -EINVAL : -ENOMEM;
        goto fail;
    }
    /* The replay's base stays whole (pinned) until the new checkpoint is. */
    rc = lmdb_errno(mdb_txn_begin(env, NULL, MDB_RDONLY, &j->pin));
    if (!rc)
        rc = jnl_replay(j, dir, plan);
    for (unsigned i = 0; i < LMDB_JNL_FILES && !rc; i++) {
        jnl_path(dir, lmdb_jnl_files[i], path, sizeof(path));
        rc = store_journal_open(path, &j->file[i]);
    }
    /* The files' names durable before any record in them is promised. */
    if (!rc)
        rc = ofcd_sync_dir(dir);
    if (rc)
        goto fail;
    /* LMDB is synced: a whole checkpoint into the file the plan did not end
     * with, whose epoch then is the newest. */
    j->active = plan->n ? plan->newest : 0;
    j->epoch = plan->epoch;
    rc = ck_begin(j, ofcd_clock_mono_ns(), true);
    if (!rc)
        rc = flusher_start(j);
    if (rc)
        goto fail;
    *out = j;
    return 0;
fail:
    LOG_ERR(COMP, "cannot open the journal in %s: %s", dir, strerror(-rc));
    jnl_free(j);
    return rc;
}

void lmdb_jnl_close(struct lmdb_jnl *j)
{
    if (!j)
        return;
    if (!flusher_check(j))
        (void)lmdb_jnl_checkpoint(j, ofcd_clock_mono_ns());
    jnl_free(j);
}
