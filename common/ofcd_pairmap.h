/*
 * ofcd_pairmap: a map from a pair of 64-bit numbers (a switch's dpid and a
 * flow's match_id, say) to a 64-bit value, in one open-addressing table
 * with linear probing. Keys are kept whole, so two pairs are never taken
 * for one. Grows by doubling at half full; a delete shifts the entries
 * after it back, so lookups never cross a tombstone. Not thread-safe: its
 * owner locks.
 */
#ifndef OFCD_PAIRMAP_H
#define OFCD_PAIRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ofcd_pairmap_slot {
    uint64_t a, b, v;
    bool used;
};

struct ofcd_pairmap {
    struct ofcd_pairmap_slot *slot;
    size_t n, cap;
};

/* Whether (a, b) is there; its value into *v when v is not NULL. */
bool ofcd_pairmap_get(const struct ofcd_pairmap *m, uint64_t a, uint64_t b, uint64_t *v);
/* (a, b) set to v: 1 when added, 0 when replaced, -ENOMEM (unchanged). */
int ofcd_pairmap_set(struct ofcd_pairmap *m, uint64_t a, uint64_t b, uint64_t v);
/* (a, b) gone: true when it was there (its value into *v when not NULL). */
bool ofcd_pairmap_del(struct ofcd_pairmap *m, uint64_t a, uint64_t b, uint64_t *v);
/* Empty; the table is freed. */
void ofcd_pairmap_free(struct ofcd_pairmap *m);

#endif
