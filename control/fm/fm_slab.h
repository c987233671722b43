/*
 * fm_slab: where the flow manager's mirror keeps its entries (one per stored
 * flow, 110-odd bytes each with the ADD packed (fm_pack.h), a million of
 * them and more).
 *
 * Why not malloc: the mirror's entries are long-lived and allocated on the
 * store's committer thread amid each batch's short-lived garbage (parsed
 * bodies, LMDB's dirty pages), so glibc interleaves them in the same arena
 * and cannot give the garbage's space back; with 16-byte headers and
 * rounding on top, a million flows held about 330 B each of heap for
 * entries of about 150 (tests/bench/run_bench_batch.sh). Here entries come
 * from chunks of their own (mmap'd, FM_SLAB_CHUNK bytes), exact to
 * FM_SLAB_ALIGN, in size classes with a free list each; a freed entry is
 * reused by the next of its class. Chunks are kept until fm_slab_destroy:
 * the pool is bounded by the most flows ever held at once.
 *
 * Sizes above FM_SLAB_MAX go to malloc. The caller passes the size to
 * fm_slab_free as it passed it to fm_slab_alloc (the entries know their
 * length), so nothing is stored per entry. Not thread-safe: the flow
 * manager calls it under its lock.
 */
#ifndef OFCD_FM_SLAB_H
#define OFCD_FM_SLAB_H

#include <stddef.h>

#define FM_SLAB_ALIGN 8u
#define FM_SLAB_MAX 1024u
#define FM_SLAB_CLASSES (FM_SLAB_MAX / FM_SLAB_ALIGN)
#define FM_SLAB_CHUNK ((size_t)256 * 1024)

struct fm_slab {
    void *free[FM_SLAB_CLASSES];    /* per class: freed entries, linked through their first word */
    unsigned char *cur;             /* the chunk being carved */
    size_t left;                    /* its bytes not yet carved */
    void *chunks;                   /* every chunk, linked through its first word */
    size_t mapped;                  /* bytes of chunks */
    size_t in_use;                  /* bytes handed out and not freed (classes' sizes) */
};

void fm_slab_init(struct fm_slab *s);
/* size bytes, FM_SLAB_ALIGN-aligned; NULL when out of memory or size is 0. */
void *fm_slab_alloc(struct fm_slab *s, size_t size);
/* p from fm_slab_alloc(s, size) with the same size; NULL is ignored. */
void fm_slab_free(struct fm_slab *s, void *p, size_t size);
/* Unmap every chunk: every entry is gone. */
void fm_slab_destroy(struct fm_slab *s);

#endif
