/*
 * tt_hist: fixed-size log-bucket histogram for tcp-bench latencies.
 *
 * Values below 32 get a bucket each; above, every power of two is split in
 * 16 equal sub-buckets, so a reported percentile (the upper edge of its
 * bucket, clamped to the exact max) is at most 1/16 above the true value.
 * Count, min, max and sum are exact. Adding is O(1), memory is constant:
 * no sample arrays to sort however long the run.
 */
#ifndef TT_HIST_H
#define TT_HIST_H

#include <stdint.h>

#define TT_HIST_SUB_BITS 4
#define TT_HIST_SUB (1u << TT_HIST_SUB_BITS)
/* Shifts run 0..(63 - SUB_BITS); each owns SUB buckets above the first 2*SUB. */
#define TT_HIST_BUCKETS ((64u - TT_HIST_SUB_BITS) * TT_HIST_SUB + TT_HIST_SUB)

struct tt_hist {
    uint64_t count;
    uint64_t min;
    uint64_t max;
    uint64_t sum;
    uint64_t bucket[TT_HIST_BUCKETS];
};

void tt_hist_init(struct tt_hist *h);
void tt_hist_add(struct tt_hist *h, uint64_t v);

/* Bucket index of v, and the inclusive value range of bucket idx. */
unsigned tt_hist_index(uint64_t v);
void tt_hist_bounds(unsigned idx, uint64_t *lo, uint64_t *hi);

/* Smallest bucket upper edge with at least ceil(q * count) samples at or
 * below it, clamped to [min, max]; q in [0, 1]. 0 for an empty histogram. */
uint64_t tt_hist_quantile(const struct tt_hist *h, double q);

#endif
