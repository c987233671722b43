/*
 * ofp_buf: bounded appends into a caller's buffer (see ofp_buf.h).
 */
#include "ofp_buf.h"

#include <errno.h>
#include <string.h>

uint8_t *ofp_buf_put(struct ofp_buf *b, size_t n)
{
    if (!b->data || b->len > b->cap || n > b->cap - b->len)
        return NULL;
    uint8_t *p = b->data + b->len;
    if (n)
        memset(p, 0, n);
    b->len += n;
    return p;
}

int ofp_buf_put_bytes(struct ofp_buf *b, const void *p, size_t n)
{
    uint8_t *dst = ofp_buf_put(b, n);
    if (!dst)
        return -ENOSPC;
    if (n)
        memcpy(dst, p, n);
    return 0;
}
