/*
 * tt_stream: the deterministic pseudo-random byte stream each test connection
 * sends, and the checksum reported over sent and received bytes.
 *
 * The byte at offset o of stream (seed, index) is a pure function of the
 * three, so the sender can produce any slice and the receiver can regenerate
 * the expected bytes for whatever chunk the network hands it, with no
 * per-connection buffer. Different connection indexes give different streams,
 * so bytes delivered on the wrong connection are caught too.
 *
 * The checksum is a position-weighted running sum (Fletcher style, modulo
 * 2^64): it depends on byte order, is independent of how the bytes are split
 * into calls, and per-connection values can be added into a run total.
 */
#ifndef TT_STREAM_H
#define TT_STREAM_H

#include <stddef.h>
#include <stdint.h>

struct tt_stream {
    uint64_t key;
};

struct tt_sum {
    uint64_t a; /* sum of bytes */
    uint64_t b; /* sum of the running values of a */
};

void tt_stream_init(struct tt_stream *s, uint64_t seed, uint64_t index);

/* Writes bytes [off, off + len) of the stream into buf. */
void tt_stream_fill(const struct tt_stream *s, uint64_t off, uint8_t *buf, size_t len);

/* Offset (relative to buf) of the first byte of buf that differs from the
 * stream at off, or len when all len bytes match. scratch holds len bytes. */
size_t tt_stream_check(const struct tt_stream *s, uint64_t off, const uint8_t *buf,
                       size_t len, uint8_t *scratch);

static inline void tt_sum_init(struct tt_sum *c)
{
    c->a = 0;
    c->b = 0;
}

void tt_sum_update(struct tt_sum *c, const uint8_t *buf, size_t len);

/* One 64-bit value for printing. */
uint64_t tt_sum_value(const struct tt_sum *c);

#endif
