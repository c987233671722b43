/*
 * tt_stream: stream generator and checksum of the TCP tools (see tt_stream.h).
 * Called per send and per received chunk, so it works a word at a time.
 */
#include "tt_stream.h"

#include <string.h>

#define TT_GOLDEN 0x9e3779b97f4a7c15ULL

/* SplitMix64 finaliser: a bijective mix with good avalanche, cheap enough to
 * run once per 8 bytes of stream. */
static uint64_t tt_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void tt_stream_init(struct tt_stream *s, uint64_t seed, uint64_t index)
{
    s->key = tt_mix(tt_mix(seed + TT_GOLDEN) ^ (index * TT_GOLDEN + 1));
}

static uint64_t tt_stream_word(const struct tt_stream *s, uint64_t w)
{
    return tt_mix(s->key + w * TT_GOLDEN);
}

/* Little-endian byte order explicitly, so streams match across hosts. */
static void tt_put_word(uint8_t *p, uint64_t v, unsigned from, unsigned to)
{
    for (unsigned i = from; i < to; i++)
        *p++ = (uint8_t)(v >> (8 * i));
}

void tt_stream_fill(const struct tt_stream *s, uint64_t off, uint8_t *buf, size_t len)
{
    uint64_t w = off / 8;
    unsigned head = (unsigned)(off % 8);

    if (len == 0)
        return;
    if (head != 0) {
        unsigned to = len < 8 - head ? head + (unsigned)len : 8;

        tt_put_word(buf, tt_stream_word(s, w), head, to);
        buf += to - head;
        len -= to - head;
        w++;
    }
    for (; len >= 8; len -= 8, buf += 8, w++)
        tt_put_word(buf, tt_stream_word(s, w), 0, 8);
    if (len > 0)
        tt_put_word(buf, tt_stream_word(s, w), 0, (unsigned)len);
}

size_t tt_stream_check(const struct tt_stream *s, uint64_t off, const uint8_t *buf,
                       size_t len, uint8_t *scratch)
{
    tt_stream_fill(s, off, scratch, len);
    if (memcmp(buf, scratch, len) == 0)
        return len;
    for (size_t i = 0; i < len; i++)
        if (buf[i] != scratch[i])
            return i;
    return len;
}

void tt_sum_update(struct tt_sum *c, const uint8_t *buf, size_t len)
{
    uint64_t a = c->a, b = c->b;

    for (size_t i = 0; i < len; i++) {
        a += buf[i];
        b += a;
    }
    c->a = a;
    c->b = b;
}

uint64_t tt_sum_value(const struct tt_sum *c)
{
    return c->b ^ (c->a << 32 | c->a >> 32);
}
