/* fm_slab: see fm_slab.h. */
#include "fm_slab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* A chunk's first word links the chunks; entries start after it. */
#define CHUNK_HEAD FM_SLAB_ALIGN

static size_t class_of(size_t size)
{
    return (size + FM_SLAB_ALIGN - 1) / FM_SLAB_ALIGN - 1;
}

void fm_slab_init(struct fm_slab *s)
{
    memset(s, 0, sizeof(*s));
}

static int new_chunk(struct fm_slab *s)
{
    void *c = mmap(NULL, FM_SLAB_CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (c == MAP_FAILED)
        return -1;
    *(void **)c = s->chunks;
    s->chunks = c;
    s->mapped += FM_SLAB_CHUNK;
    /* What is left of the old chunk is smaller than the entry that did not
     * fit: given to the free lists of the classes it can hold. */
    while (s->left >= FM_SLAB_ALIGN) {
        size_t k = (s->left < FM_SLAB_MAX ? s->left : FM_SLAB_MAX) / FM_SLAB_ALIGN - 1;
        size_t sz = (k + 1) * FM_SLAB_ALIGN;
        *(void **)s->cur = s->free[k];
        s->free[k] = s->cur;
        s->cur += sz;
        s->left -= sz;
    }
    s->cur = (unsigned char *)c + CHUNK_HEAD;
    s->left = FM_SLAB_CHUNK - CHUNK_HEAD;
    return 0;
}

void *fm_slab_alloc(struct fm_slab *s, size_t size)
{
    if (size == 0)
        return NULL;
    if (size > FM_SLAB_MAX)
        return malloc(size);
    size_t k = class_of(size), sz = (k + 1) * FM_SLAB_ALIGN;
    void *p = s->free[k];
    if (p) {
        s->free[k] = *(void **)p;
    } else {
        if (s->left < sz && new_chunk(s) < 0)
            return NULL;
        p = s->cur;
        s->cur += sz;
        s->left -= sz;
    }
    s->in_use += sz;
    return p;
}

void fm_slab_free(struct fm_slab *s, void *p, size_t size)
{
    if (!p)
        return;
    if (size > FM_SLAB_MAX) {
        free(p);
        return;
    }
    size_t k = class_of(size);
    *(void **)p = s->free[k];
    s->free[k] = p;
    s->in_use -= (k + 1) * FM_SLAB_ALIGN;
}

void fm_slab_destroy(struct fm_slab *s)
{
    while (s->chunks) {
        void *c = s->chunks;
        s->chunks = *(void **)c;
        munmap(c, FM_SLAB_CHUNK);
    }
    fm_slab_init(s);
}
