/*
 * store_lmdb_jnl: the LMDB backend's journal (store_config.journal), the
 * durability source of the store (docs/design.md §5). store_lmdb.c calls
 * it; nothing else does.
 *
 * Owns dir/journal and dir/journal.1 (store_journal.h), the checkpoints and
 * the recovery. LMDB runs with MDB_NOSYNC: a commit writes its pages to the
 * page cache and syncs nothing. Every mdb_put/mdb_del of a transaction is
 * also a record of the journal (which database, the key, the value or
 * "deleted"); the commit is LMDB's commit without a sync, then one append
 * and one fdatasync of those records. So a commit is durable once the
 * journal's sync returns, and answers wait for nothing else. (Readers may
 * see a change that sync later fails to make durable: the store then
 * refuses every change, see below, and no caller was told it was stored.)
 *
 * A checkpoint makes LMDB's transaction T the base a recovery starts from,
 * and the journal before it unneeded. It runs beside the commits, in three
 * steps, so that no commit waits for LMDB's own sync:
 *  1. (committer, between transactions) a read transaction on T is taken
 *     and kept: LMDB reuses none of T's pages while it lives. The other
 *     journal file is started again, "pending" (its first record follows
 *     the active file's last), and the records go there from now on.
 *  2. (the flusher thread) fdatasync of LMDB's file: T's pages are durable.
 *  3. (committer) T's meta page is kept in the new file's header (the
 *     checkpoint is done: that file alone is what a recovery needs), then
 *     the previous checkpoint's read transaction is let go.
 * Each file's header carries the checkpoint's epoch (one more each time).
 * The flusher also syncs LMDB's file every 50 ms between checkpoints, so
 * no sync ever has much to write.
 *
 * Recovery (lmdb_jnl_restore before mdb_env_open, then lmdb_jnl_open): a
 * crash of the machine may leave LMDB's newest meta page pointing at pages
 * that never reached the disk, or torn; the base's pages are whole (synced,
 * and never reused since). The newest file's checkpoint is the base, or,
 * when that file is pending, the other file's (whose records then come
 * first). The base's meta page is written back into both of LMDB's meta
 * pages, LMDB opens at it, and the journal's good records are applied
 * again in order (whole values and deletes: applying one twice is
 * harmless), then a checkpoint. A kill -9 is the same path.
 *
 * A failed fdatasync (journal or LMDB's file) cannot be trusted to be
 * retried (the kernel may have dropped the pages it could not write): the
 * journal then refuses every later commit (-EIO, logged) until ofcd is
 * restarted, and the restart recovers from the journal.
 *
 * Threads: the committer's (or before it starts), and the flusher this
 * module starts. Functions return 0 or a negative errno.
 */
#ifndef OFCD_STORE_LMDB_JNL_H
#define OFCD_STORE_LMDB_JNL_H

#include <lmdb.h>
#include <stdbool.h>
#include <stdint.h>

#define LMDB_JNL_DBS 3u                 /* the databases a record may name */
#define LMDB_JNL_FILES 2u
extern const char *const lmdb_jnl_files[LMDB_JNL_FILES];

struct lmdb_jnl;

struct lmdb_jnl_cfg {
    unsigned checkpoint_ms;             /* 0: STORE_DEFAULT_CHECKPOINT_MS */
    uint64_t checkpoint_bytes;          /* 0: STORE_DEFAULT_CHECKPOINT_BYTES */
};

/* What lmdb_jnl_restore found: the files to replay, in order, and the
 * newest checkpoint's epoch and file (n == 0 and epoch 0: none). */
struct lmdb_jnl_plan {
    unsigned n;
    unsigned file[LMDB_JNL_FILES];
    uint64_t epoch;
    unsigned newest;
};

/* Before mdb_env_open of dir: if dir's journal holds a checkpoint, write
 * its meta page back into both of dir/data.mdb's meta pages (synced).
 * -EINVAL (logged): the journal is damaged or does not match data.mdb. */
int lmdb_jnl_restore(const char *dir, struct lmdb_jnl_plan *plan);

/* After env (opened with MDB_NOSYNC, after lmdb_jnl_restore) and its
 * databases dbi[] are open: apply the plan's records, sync, checkpoint into
 * the file the plan did not end with, start the flusher. */
int lmdb_jnl_open(MDB_env *env, const MDB_dbi dbi[LMDB_JNL_DBS], const char *dir,
                  const struct lmdb_jnl_cfg *cfg, const struct lmdb_jnl_plan *plan,
                  struct lmdb_jnl **out);

/* Record what the transaction just did to database db (an index into the
 * dbi[] given to open): k now holds v; k is gone. */
int lmdb_jnl_put(struct lmdb_jnl *j, unsigned db, const MDB_val *k, const MDB_val *v);
int lmdb_jnl_del(struct lmdb_jnl *j, unsigned db, const MDB_val *k);

/* The transaction's end: commit = mdb_txn_commit (no sync), then the
 * records' append and sync (txn is gone either way); abort (after
 * mdb_txn_abort) = its records dropped; for_room (it failed for want of
 * room): a checkpoint waited for, if there is anything since the last one
 * (their snapshots may hold the room). */
int lmdb_jnl_commit(struct lmdb_jnl *j, MDB_txn *txn);
void lmdb_jnl_abort(struct lmdb_jnl *j, bool for_room);

/* Between transactions (now: ofcd_clock_mono_ns): step 3 of a checkpoint
 * whose sync is done, step 1 of one that is due. */
void lmdb_jnl_idle(struct lmdb_jnl *j, uint64_t now_ns);
/* The steps, for tests and for the whole checkpoint below: begin = step 1
 * and the flusher asked (-EALREADY: one is under way); end = step 3 once
 * the flusher's sync is done (wait: until it is; -EAGAIN: not yet). */
int lmdb_jnl_checkpoint_begin(struct lmdb_jnl *j, uint64_t now_ns);
int lmdb_jnl_checkpoint_end(struct lmdb_jnl *j, bool wait);
/* A whole checkpoint, waited for (one under way is ended first). */
int lmdb_jnl_checkpoint(struct lmdb_jnl *j, uint64_t now_ns);
/* 0, or the error that stopped the journal (see above). */
int lmdb_jnl_failed(const struct lmdb_jnl *j);
/* A last checkpoint, the flusher stopped, the journal closed. Before
 * mdb_env_close. */
void lmdb_jnl_close(struct lmdb_jnl *j);
/* After a closed journal was recovered and LMDB synced, with the journal
 * off from now on: both files invalidated, removed, the directory synced. */
int lmdb_jnl_remove(const char *dir);

#endif
