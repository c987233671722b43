/*
 * ofp_buf: the caller-owned output buffer every ofp_*_encode() writes into.
 *
 * The codec never allocates: the caller hands a fixed block (a TCP send
 * chunk, a stack array, an mbuf's data room) and encoders append to it.
 * An encoder that would not fit returns -ENOSPC and leaves len where it
 * was, so a caller can flush and retry the same message whole.
 */
#ifndef OFCD_OFP_BUF_H
#define OFCD_OFP_BUF_H

#include <stddef.h>
#include <stdint.h>

struct ofp_buf {
    uint8_t *data;
    size_t len;               /* bytes written so far */
    size_t cap;               /* size of data */
};

static inline void ofp_buf_init(struct ofp_buf *b, void *mem, size_t cap)
{
    b->data = mem;
    b->len = 0;
    b->cap = cap;
}

/* Append n zeroed bytes; returns where they start, or NULL (and nothing
 * appended) when they do not fit. */
uint8_t *ofp_buf_put(struct ofp_buf *b, size_t n);

/* Append a copy of n bytes: 0 or -ENOSPC. */
int ofp_buf_put_bytes(struct ofp_buf *b, const void *p, size_t n);

#endif
