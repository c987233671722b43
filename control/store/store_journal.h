/*
 * store_journal: an append-only journal, the durability source of the
 * LMDB backend (store_lmdb_jnl.h: one sequential append and one fdatasync
 * per group commit, instead of LMDB's random page writes and two syncs).
 * This module is the file alone: records in, records back after a crash.
 *
 * File: two header slots of 8 KiB, then records. A slot: "OFCDJNL2", its
 * generation, the sequence number of the first record, and up to
 * STORE_JOURNAL_META_MAX bytes of the caller's (the checkpoint a recovery
 * starts from: the store keeps LMDB's meta page there), with a CRC-32C;
 * the valid slot of the higher generation is in force, and a reset
 * writes the other one, so a crash while it is written leaves the one
 * before whole. A record:
 *
 *   u32 len        payload bytes (1..STORE_JOURNAL_REC_MAX); 0 = the end
 *   u32 crc        CRC-32C over seq and the payload
 *   u64 seq        consecutive from the header's
 *   payload
 *
 * all little-endian, each record padded to 8 bytes. The file is kept
 * written ahead with zeros (STORE_JOURNAL_AHEAD at a time), so a sync never
 * grows it (a growing file costs the disk a metadata write per sync) and
 * the end is the first zero length.
 *
 * A crash may leave the last batch torn: replay stops at the first record
 * whose length runs past the file, whose CRC does not match, or whose
 * sequence number is not the next, and says how far the good records go;
 * opening for appends cuts the file there (zeros from there on), so a torn
 * tail is never mistaken for records later. Nothing before the last
 * completed sync is lost. A file with no valid slot is no journal: replay
 * says -EINVAL, an open makes it anew.
 *
 * Threads: one writer (the store's committer); replay before opening.
 * The file's bytes in use start at 16 KiB (the two slots).
 * Functions return 0 or a negative errno.
 */
#ifndef OFCD_STORE_JOURNAL_H
#define OFCD_STORE_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#define STORE_JOURNAL_REC_MAX (16u << 20)          /* one record's payload */
#define STORE_JOURNAL_AHEAD (4u << 20)             /* written ahead with zeros */
#define STORE_JOURNAL_META_MAX (8192u - 32u)      /* the checkpoint's bytes in a slot */

struct store_journal;

/* Every good record of the journal at path, in order: fn(arg, seq,
 * payload, len) (a nonzero return stops the replay and is returned). *end:
 * the offset just past the last good record; *next_seq: the sequence the
 * next record will carry; meta (STORE_JOURNAL_META_MAX bytes, or NULL)
 * and *meta_len: what the last reset kept (nothing for a new journal). A
 * missing file is an empty journal (0, *end 0, *next_seq 1). -EINVAL: the
 * file is not a journal (no valid header slot). */
int store_journal_replay(const char *path,
                         int (*fn)(void *arg, uint64_t seq, const void *rec, size_t len),
                         void *arg, uint64_t *end, uint64_t *next_seq, void *meta,
                         size_t *meta_len);

/* The same, and *first_seq: the sequence of the header's first record. */
int store_journal_replay_from(const char *path,
                              int (*fn)(void *arg, uint64_t seq, const void *rec, size_t len),
                              void *arg, uint64_t *end, uint64_t *first_seq,
                              uint64_t *next_seq, void *meta, size_t *meta_len);

/* Open path for appends, made if missing, after its good records (the
 * rest, a torn tail, zeroed). */
int store_journal_open(const char *path, struct store_journal **out);
/* Queue one record (copied); nothing is on disk before store_journal_sync.
 * -E2BIG past STORE_JOURNAL_REC_MAX, -ENOMEM. */
int store_journal_append(struct store_journal *j, const void *rec, size_t len);
/* One record made of n parts, in order (no copy of them beforehand). */
struct store_journal_part {
    const void *p;
    size_t len;
};
int store_journal_appendv(struct store_journal *j, const struct store_journal_part *parts,
                          unsigned n);
/* Forget what is queued and not written yet (its transaction aborted). */
void store_journal_drop(struct store_journal *j);
/* Bytes queued, not written yet. */
uint64_t store_journal_queued_bytes(const struct store_journal *j);
/* Write what is queued and fdatasync: once 0, it survives a crash. */
int store_journal_sync(struct store_journal *j);
/* Everything so far is durable elsewhere (a checkpoint, described by
 * meta, kept for the recovery): the journal starts again empty, its
 * sequence numbers going on. Durable once it returns 0. -E2BIG: meta
 * past STORE_JOURNAL_META_MAX. */
int store_journal_reset(struct store_journal *j, const void *meta, size_t meta_len);
/* The same, the journal's records starting at first_seq (>= the next
 * sequence): another journal carried the ones between. -EINVAL below. */
int store_journal_reset_at(struct store_journal *j, uint64_t first_seq, const void *meta,
                           size_t meta_len);
/* Keep meta in the header (the other slot), the records kept: durable
 * once it returns 0. */
int store_journal_set_meta(struct store_journal *j, const void *meta, size_t meta_len);
/* The sequence the next record will carry; the file's bytes in use. */
uint64_t store_journal_next_seq(const struct store_journal *j);
uint64_t store_journal_bytes(const struct store_journal *j);
void store_journal_close(struct store_journal *j);
/* Both header slots of the journal at path zeroed and synced: it is no
 * journal any more (a replay says -EINVAL, an open makes it anew), even
 * if an unlink of it is undone by a crash. A missing file: 0. */
int store_journal_invalidate(const char *path);

#endif
