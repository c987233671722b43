/*
 * store_lmdb_meta: the late sync of LMDB's meta page, for one disk sync
 * per commit (flow_manager.durability = group; store_config.meta_sync_ms).
 *
 * LMDB's commit syncs twice: the transaction's pages, then the meta page
 * that makes them the current tree. With MDB_NOMETASYNC it syncs the pages
 * only and writes the meta page without waiting for the disk; the next
 * commit's sync carries it down, so under load every commit but the last
 * is whole on disk, and a machine crash (not one of ofcd: the page cache
 * keeps what was written) can undo the last commit, never half of one.
 * This thread bounds how long that last one waits: once delay_ms have
 * passed without a commit it syncs the file, which carries the meta page
 * down; while commits keep coming it syncs nothing (each carries the one
 * before it).
 *
 * The committer tells it of each commit (lmdb_meta_sync_committed: a flag
 * and the time, and a signal only when the thread is waiting for work);
 * the thread waits for that, then for delay_ms without a commit, then
 * calls mdb_env_sync. mdb_env_sync is an fdatasync of
 * the data file, which LMDB allows from any thread next to a write
 * transaction. Functions return 0 or a negative errno.
 *
 * A late sync that fails is the store's to act on, as a failed journal
 * flush is: the pages of a commit already answered may not be on disk,
 * and the kernel reports a write-back error to one fsync only, so the
 * next commit's own sync would not see it. The error is kept
 * (lmdb_meta_sync_failed) and the store refuses every commit from then on.
 */
#ifndef OFCD_STORE_LMDB_META_H
#define OFCD_STORE_LMDB_META_H

#include <lmdb.h>
#include <stdint.h>

struct lmdb_meta_sync;

/* The thread for env (opened with MDB_NOMETASYNC). fault (tests; NULL
 * in the product): asked before each sync, a negative errno is taken as
 * the sync's error and the sync not made (store_config.meta_sync_fault).
 * NULL when it cannot start (logged). */
struct lmdb_meta_sync *lmdb_meta_sync_start(MDB_env *env, unsigned delay_ms,
                                            int (*fault)(void));

/* 0, or the error of the first late sync that failed. */
int lmdb_meta_sync_failed(struct lmdb_meta_sync *m);

/* A commit was made: its meta page is to be synced within delay_ms. */
void lmdb_meta_sync_committed(struct lmdb_meta_sync *m);

/* Syncs done so far (the store's meta_syncs counter). */
uint64_t lmdb_meta_sync_count(struct lmdb_meta_sync *m);

/* A sync owed is done at once, then the thread stops. NULL is ignored. */
void lmdb_meta_sync_stop(struct lmdb_meta_sync *m);

#endif
