/*
 * ofp_priv: helpers shared by the ofp_*.c files only (not installed for
 * other modules): byte order, padding, error reporting, and the begin/end
 * pair that frames every encoded message.
 */
#ifndef OFCD_OFP_PRIV_H
#define OFCD_OFP_PRIV_H

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofp_buf.h"
#include "ofp_err.h"
#include "ofp_wire.h"

#define OFP_PAD8(n) (((size_t)(n) + 7u) & ~(size_t)7u)

/* Report an OpenFlow error: sets *err (when given), returns -EBADMSG. */
static inline int ofp_fail(struct ofp_err *err, uint16_t type, uint16_t code)
{
    if (err) {
        err->type = type;
        err->code = code;
    }
    return -EBADMSG;
}

static inline uint16_t ofp_rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t ofp_rd32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void ofp_wr16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* Copy a fixed-width, possibly unterminated wire string into a C string of
 * size n + 1; bytes after the first NUL are dropped. */
void ofp_str_from_wire(char *dst, const char *src, size_t n);
/* The reverse: zero-filled, truncated to n bytes (and NUL-terminated when
 * it is shorter than n). */
void ofp_str_to_wire(char *dst, const char *src, size_t n);

/* Bounded text for the *_format() functions: appends what fits, counts the
 * length the whole text needs (snprintf semantics for the caller). */
struct ofp_txt {
    char *buf;
    size_t size;
    size_t len;
};
void ofp_txt_add(struct ofp_txt *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int ofp_txt_result(const struct ofp_txt *t)
{
    return t->len > 0x7fffffff ? 0x7fffffff : (int)t->len;
}

/* Checks every decoder does first on a message of len bytes that claims to
 * be of type `type`: header present, version 0x04 (any version for HELLO),
 * header length equal to len, length within the message table's bounds.
 * 0 or -EBADMSG with *err set. */
int ofp_hdr_check(const uint8_t *msg, size_t len, uint8_t type, struct ofp_err *err);

/* Start a message: header with version 0x04, type and xid, then fixed_len
 * - 8 zeroed bytes. Returns the message start, or NULL on -ENOSPC (nothing
 * written). *start receives the offset to pass to ofp_msg_end. */
uint8_t *ofp_msg_begin(struct ofp_buf *b, uint8_t type, uint32_t xid, size_t fixed_len,
                       size_t *start);

/* Finish the message that began at start: writes its length. A message over
 * 65535 bytes is taken back out and -EMSGSIZE returned. */
int ofp_msg_end(struct ofp_buf *b, size_t start);

/* Undo a partly written message (on any encoder failure), return rc. */
static inline int ofp_msg_abort(struct ofp_buf *b, size_t start, int rc)
{
    b->len = start;
    return rc;
}

#endif
