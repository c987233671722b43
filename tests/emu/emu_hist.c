/*
 * emu_hist.c - log-bucket histogram (see emu_hist.h for the bucket layout).
 */
#include "emu_hist.h"

#include <string.h>

void emu_hist_init(struct emu_hist *h)
{
    memset(h, 0, sizeof(*h));
    h->min = UINT64_MAX;
}

unsigned emu_hist_index(uint64_t v)
{
    if (v < EMU_HIST_LINEAR)
        return (unsigned)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v); /* e > EMU_HIST_SUB_BITS */
    unsigned sub = (unsigned)(v >> (e - EMU_HIST_SUB_BITS)) & ((1u << EMU_HIST_SUB_BITS) - 1);
    return EMU_HIST_LINEAR + (e - EMU_HIST_SUB_BITS - 1) * (1u << EMU_HIST_SUB_BITS) + sub;
}

void emu_hist_range(unsigned idx, uint64_t *lo, uint64_t *hi)
{
    if (idx < EMU_HIST_LINEAR) {
        *lo = *hi = idx;
        return;
    }
    unsigned k = idx - EMU_HIST_LINEAR;
    unsigned e = k / (1u << EMU_HIST_SUB_BITS) + EMU_HIST_SUB_BITS + 1;
    uint64_t sub = k % (1u << EMU_HIST_SUB_BITS);
    uint64_t width = 1ull << (e - EMU_HIST_SUB_BITS);
    *lo = (1ull << e) | (sub << (e - EMU_HIST_SUB_BITS));
    *hi = *lo + (width - 1);
}

void emu_hist_add(struct emu_hist *h, uint64_t v)
{
    h->count++;
    h->sum += v;
    if (v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
    h->bucket[emu_hist_index(v)]++;
}

void emu_hist_merge(struct emu_hist *dst, const struct emu_hist *src)
{
    if (!src->count)
        return;
    dst->count += src->count;
    dst->sum += src->sum;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    for (unsigned i = 0; i < EMU_HIST_BUCKETS; i++)
        dst->bucket[i] += src->bucket[i];
}

uint64_t emu_hist_quantile(const struct emu_hist *h, double q)
{
    if (!h->count)
        return 0;
    if (q <= 0)
        return h->min;
    if (q >= 1)
        return h->max;
    /* Rank of the sample wanted, 1-based, rounded up (nearest-rank method). */
    uint64_t rank = (uint64_t)(q * (double)h->count);
    if ((double)rank < q * (double)h->count)
        rank++;
    if (rank == 0)
        rank = 1;
    uint64_t seen = 0;
    for (unsigned i = 0; i < EMU_HIST_BUCKETS; i++) {
        seen += h->bucket[i];
        if (seen >= rank) {
            uint64_t lo, hi;
            emu_hist_range(i, &lo, &hi);
            if (hi > h->max)
                hi = h->max;
            if (hi < h->min)
                hi = h->min;
            return hi;
        }
    }
    return h->max;
}
