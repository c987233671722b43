/*
 * ofcd_hset: a set of 64-bit hashes in one open-addressing table, for the
 * "did this batch touch that key?" questions of a commit (the store queue's
 * keys changed twice, the etcd backend's flows a batch wrote). A hash is
 * the caller's (match_ids are hashes already); two keys with one hash are
 * one member, so a caller asks only questions a false "yes" answers safely.
 * Grows by doubling at half full; clear keeps the table for the next batch
 * unless it grew past a bound. Not thread-safe: one per committer.
 */
#ifndef OFCD_HSET_H
#define OFCD_HSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ofcd_hset {
    uint64_t *slot;                 /* 0: empty (a hash of 0 is kept as 1) */
    size_t n, cap;
};

/* 1 when h was added, 0 when it was a member already, -ENOMEM (not added). */
int ofcd_hset_add(struct ofcd_hset *s, uint64_t h);
bool ofcd_hset_has(const struct ofcd_hset *s, uint64_t h);
/* Empty it; the table is freed when it holds more than keep_cap slots. */
void ofcd_hset_clear(struct ofcd_hset *s, size_t keep_cap);
void ofcd_hset_free(struct ofcd_hset *s);

#endif
