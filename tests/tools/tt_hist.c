/*
 * tt_hist: log-bucket histogram (layout in tt_hist.h). Called once per
 * measured round trip or connection by tcp-bench; reports at the end.
 */
#include "tt_hist.h"

#include <math.h>
#include <string.h>

void tt_hist_init(struct tt_hist *h)
{
    memset(h, 0, sizeof(*h));
    h->min = UINT64_MAX;
}

unsigned tt_hist_index(uint64_t v)
{
    unsigned shift;

    if (v < 2 * TT_HIST_SUB)
        return (unsigned)v;
    shift = 63u - (unsigned)__builtin_clzll(v) - TT_HIST_SUB_BITS;
    /* v >> shift lies in [SUB, 2 * SUB): the top SUB_BITS + 1 bits of v. */
    return shift * TT_HIST_SUB + (unsigned)(v >> shift);
}

void tt_hist_bounds(unsigned idx, uint64_t *lo, uint64_t *hi)
{
    unsigned shift;

    if (idx < 2 * TT_HIST_SUB) {
        *lo = *hi = idx;
        return;
    }
    shift = idx / TT_HIST_SUB - 1;
    *lo = (uint64_t)(idx - shift * TT_HIST_SUB) << shift;
    *hi = *lo + ((1ULL << shift) - 1);
}

void tt_hist_add(struct tt_hist *h, uint64_t v)
{
    h->bucket[tt_hist_index(v)]++;
    h->count++;
    h->sum += v;
    if (v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
}

uint64_t tt_hist_quantile(const struct tt_hist *h, double q)
{
    uint64_t rank, seen = 0;

    if (h->count == 0)
        return 0;
    if (q <= 0)
        return h->min;
    rank = (uint64_t)ceil(q * (double)h->count);
    if (rank > h->count)
        rank = h->count;
    for (unsigned i = 0; i < TT_HIST_BUCKETS; i++) {
        seen += h->bucket[i];
        if (seen >= rank) {
            uint64_t lo, hi;

            tt_hist_bounds(i, &lo, &hi);
            if (hi > h->max)
                hi = h->max;
            return hi < h->min ? h->min : hi;
        }
    }
    return h->max;
}
