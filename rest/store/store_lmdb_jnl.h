/*
 * store_lmdb_jnl: the LMDB backend's journal (store_config.journal), the
 * durability source of the store (docs/design.md §5). store_lmdb.c calls
 * it; nothing else does.
 *
 * Owns dir/journal (store_journal.h), the checkpoint and the recovery.
 * LMDB runs with MDB_NOSYNC: a commit writes its pages to the page cache
 * and syncs nothing. Every mdb_put/mdb_del of a transaction is also a
 * record of the journal (which database, the key, the value or "deleted");
 * the commit is LMDB's commit without a sync, then one append and one
 * fdatasync of those records. So a commit is durable once the journal's
 * sync returns, and answers wait for nothing else. (Readers may see a
 * change that sync later fails to make durable: the store then refuses
 * every change, see below, and no caller was told it was stored.)
 *
 * Checkpoint (lmdb_jnl_idle, every checkpoint_ms or checkpoint_bytes of
 * journal, on the committer between transactions; at open and close):
 * mdb_env_sync makes LMDB's latest transaction T durable; a read
 * transaction on T is taken and kept, so LMDB never reuses a page of T's
 * tree until the next checkpoint; T's meta page is kept in the journal's
 * header (store_journal_reset: the journal starts again, empty); only
 * then is the previous checkpoint's read transaction let go.
 *
 * Recovery (lmdb_jnl_restore before mdb_env_open, then lmdb_jnl_open): a
 * crash of the machine may leave LMDB's newest meta page pointing at pages
 * that never reached the disk, or torn; T's pages are whole (synced, and
 * never reused since). So T's meta page is written back into both of
 * LMDB's meta pages, LMDB opens at T, and the journal's good records are
 * applied again in order (whole values and deletes: applying one twice is
 * harmless), then a checkpoint. A kill -9 is the same path.
 *
 * A failed fdatasync (journal or LMDB's file) cannot be trusted to be
 * retried (the kernel may have dropped the pages it could not write): the
 * journal then refuses every later commit (-EIO, logged) until ofcd is
 * restarted, and the restart recovers from the journal.
 *
 * Threads: everything on the store's committer thread, or before it
 * starts. Functions return 0 or a negative errno.
 */
#ifndef OFCD_STORE_LMDB_JNL_H
#define OFCD_STORE_LMDB_JNL_H

#include <lmdb.h>
#include <stdint.h>

#define LMDB_JNL_DBS 2u                 /* the databases a record may name */
#define LMDB_JNL_FILE "journal"

struct lmdb_jnl;

struct lmdb_jnl_cfg {
    unsigned checkpoint_ms;             /* 0: STORE_DEFAULT_CHECKPOINT_MS */
    uint64_t checkpoint_bytes;          /* 0: STORE_DEFAULT_CHECKPOINT_BYTES */
};

/* Before mdb_env_open of dir: if dir's journal holds a checkpoint, write
 * its meta page back into both of dir/data.mdb's meta pages (synced).
 * -EINVAL (logged): the journal is damaged or does not match data.mdb. */
int lmdb_jnl_restore(const char *dir);

/* After env (opened with MDB_NOSYNC, after lmdb_jnl_restore) and its
 * databases dbi[] are open: apply the journal's records, sync, open the
 * journal for appends and checkpoint. */
int lmdb_jnl_open(MDB_env *env, const MDB_dbi dbi[LMDB_JNL_DBS], const char *dir,
                  const struct lmdb_jnl_cfg *cfg, struct lmdb_jnl **out);

/* Record what the transaction just did to database db (an index into the
 * dbi[] given to open): k now holds v; k is gone. */
int lmdb_jnl_put(struct lmdb_jnl *j, unsigned db, const MDB_val *k, const MDB_val *v);
int lmdb_jnl_del(struct lmdb_jnl *j, unsigned db, const MDB_val *k);

/* The transaction's end: commit = mdb_txn_commit (no sync), then the
 * records' append and sync (txn is gone either way); abort (after
 * mdb_txn_abort) = its records dropped, and a checkpoint if the journal
 * holds anything (the abort may be for room the last checkpoint holds). */
int lmdb_jnl_commit(struct lmdb_jnl *j, MDB_txn *txn);
void lmdb_jnl_abort(struct lmdb_jnl *j);
/* Between transactions (now: ofcd_clock_mono_ns): a checkpoint if one is
 * due. */
void lmdb_jnl_idle(struct lmdb_jnl *j, uint64_t now_ns);
int lmdb_jnl_checkpoint(struct lmdb_jnl *j, uint64_t now_ns);
/* 0, or the error that stopped the journal (see above). */
int lmdb_jnl_failed(const struct lmdb_jnl *j);
/* A last checkpoint, then the journal closed. Before mdb_env_close. */
void lmdb_jnl_close(struct lmdb_jnl *j);

#endif
