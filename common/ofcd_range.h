/*
 * ofcd_range: inclusive ranges of numbers, as operators write them in lists
 * such as "0-9,0xff00-0xffff,17" (cookies, table ids), and the one test
 * everything asks of them.
 */
#ifndef OFCD_RANGE_H
#define OFCD_RANGE_H

#include <stdbool.h>
#include <stdint.h>

#define OFCD_MAX_RANGES 16

struct ofcd_range {
    uint64_t lo, hi;
};

static inline bool ofcd_ranges_contain(const struct ofcd_range *r, unsigned n, uint64_t v)
{
    for (unsigned i = 0; i < n; i++)
        if (v >= r[i].lo && v <= r[i].hi)
            return true;
    return false;
}

#endif
