/*
 * ofcd_hist: the log2 histograms ofcd keeps (ring latency in TSC cycles,
 * echo RTT in µs): bucket b counts values in [2^b, 2^(b+1)), 0 goes to
 * bucket 0, anything beyond the last bucket into the last.
 */
#ifndef OFCD_HIST_H
#define OFCD_HIST_H

#include <stdint.h>

static inline unsigned ofcd_log2_bucket(uint64_t v, unsigned n_buckets)
{
    unsigned b = v ? 63u - (unsigned)__builtin_clzll(v) : 0;
    return b < n_buckets ? b : n_buckets - 1;
}

#endif
