/*
 * store_omap: an ordered map of items (a skip list), the memory backend's
 * (store_mem.c) flows and apps' records. For the store's backends only.
 *
 * Items are the caller's pointers, ordered by the map's cmp; a probe is an
 * item-shaped key that cmp accepts on either side. Lookup, insert and
 * removal take O(log n) expected; walking in order from any key is a
 * linked-list step per item. No locking: the caller serialises writers
 * against readers.
 */
#ifndef OFCD_STORE_OMAP_H
#define OFCD_STORE_OMAP_H

#include <stddef.h>
#include <stdint.h>

#define STORE_OMAP_LEVELS 20      /* p = 1/4: good up to 4^20 items */

typedef int (*store_omap_cmp_fn)(const void *a, const void *b);

struct store_omap_node;

struct store_omap {
    store_omap_cmp_fn cmp;
    struct store_omap_node *head;     /* sentinel with STORE_OMAP_LEVELS links */
    unsigned level;                   /* levels in use */
    size_t n;
    uint64_t rng;                     /* xorshift state for node levels */
};

/* 0, or -ENOMEM. */
int store_omap_init(struct store_omap *m, store_omap_cmp_fn cmp);
/* Free the nodes; free_item (may be NULL) is called for each item first. */
void store_omap_destroy(struct store_omap *m, void (*free_item)(void *item));

/* The item equal to probe, or NULL. */
void *store_omap_find(const struct store_omap *m, const void *probe);
/*
 * Insert item, or replace the item equal to it in its node (*old gets the
 * one replaced, else NULL; the caller owns it). 0, or -ENOMEM (nothing
 * changed): only an insert allocates.
 */
int store_omap_put(struct store_omap *m, void *item, void **old);
/*
 * Take the node of the item equal to probe out of the map (NULL: none),
 * without freeing it, so that store_omap_relink can put it back without
 * allocating (a transaction's undo). store_omap_node_free frees a node
 * taken out (not its item).
 */
struct store_omap_node *store_omap_unlink(struct store_omap *m, const void *probe);
void store_omap_relink(struct store_omap *m, struct store_omap_node *node);
void store_omap_node_free(struct store_omap_node *node);

/* Walking: the first node at or after probe (probe NULL: the first), the
 * next, and a node's item. NULL past the end. Any write ends the walk. */
const struct store_omap_node *store_omap_seek(const struct store_omap *m, const void *probe);
const struct store_omap_node *store_omap_next(const struct store_omap_node *node);
void *store_omap_item(const struct store_omap_node *node);

#endif
