/*
 * emu_hist.h - fixed-size log-bucket histogram of the switch emulator.
 *
 * Values (nanoseconds) fall into 16 linear sub-buckets per power of two, so any
 * reported percentile is within 1/16 (6.25 %) of the true value, with count, min, max
 * and sum kept exactly.  Recording is O(1) and the size is fixed (no sorting of
 * unbounded sample arrays).  Used for connect/handshake times, echo RTT and packet_in
 * latency (emu_report.c prints them).
 */
#ifndef EMU_HIST_H
#define EMU_HIST_H

#include <stdint.h>

#define EMU_HIST_SUB_BITS 4
#define EMU_HIST_LINEAR (2u << EMU_HIST_SUB_BITS) /* values below are exact buckets */
#define EMU_HIST_BUCKETS (EMU_HIST_LINEAR + (64u - EMU_HIST_SUB_BITS - 1u) * \
                          (1u << EMU_HIST_SUB_BITS))

struct emu_hist {
    uint64_t count;
    uint64_t min;
    uint64_t max;
    uint64_t sum;
    uint64_t bucket[EMU_HIST_BUCKETS];
};

void emu_hist_init(struct emu_hist *h);
void emu_hist_add(struct emu_hist *h, uint64_t v);
/* Adds every sample of src into dst. */
void emu_hist_merge(struct emu_hist *dst, const struct emu_hist *src);
/* Value at quantile q in [0,1]: the upper edge of the bucket reached, clamped to
 * [min, max]; 0 when empty. */
uint64_t emu_hist_quantile(const struct emu_hist *h, double q);
/* Bucket index of v and the [lo, hi] value range of a bucket (exposed for tests). */
unsigned emu_hist_index(uint64_t v);
void emu_hist_range(unsigned idx, uint64_t *lo, uint64_t *hi);

#endif /* EMU_HIST_H */
