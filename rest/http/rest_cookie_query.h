/*
 * rest_cookie_query: stored_flows' cookie_range query argument, read the
 * way Kytos-ng reads it: any even number of integers, taken in order as
 * inclusive (lo, hi) pairs; a cookie in any pair matches; no values at all
 * matches every cookie.
 *
 * Values are integers as a client writes them (optional sign, decimal
 * digits, surrounding blanks), any size: Kytos compares them with 64-bit
 * cookies as numbers, so a bound below 0 or above 2^64-1 is clamped to what
 * it means for a cookie (a pair wholly below 0, or with lo > hi, matches
 * nothing).
 *
 * Usage: zero a struct, rest_cookie_query_add() each value in order, then
 * rest_cookie_query_finish(), then rest_cookie_query_match() per cookie.
 */
#ifndef OFCD_REST_COOKIE_QUERY_H
#define OFCD_REST_COOKIE_QUERY_H

#include <stdbool.h>
#include <stdint.h>

#include "ofcd_range.h"

#define REST_COOKIE_PAIRS_MAX 256

struct rest_cookie_query {
    unsigned n_values;              /* values added */
    unsigned n;                     /* pairs that can match */
    struct ofcd_range pairs[REST_COOKIE_PAIRS_MAX];
    uint64_t lo;                    /* the pair being read: its first value, */
    int lo_side;                    /* and where it fell (-1 below 0, +1 above 2^64-1) */
};

/* One value, in order. -EINVAL: not an integer; -E2BIG: more than
 * REST_COOKIE_PAIRS_MAX pairs. */
int rest_cookie_query_add(struct rest_cookie_query *cq, const char *text);

/* After the last value. -EINVAL: an odd number of values. */
int rest_cookie_query_finish(const struct rest_cookie_query *cq);

bool rest_cookie_query_match(const struct rest_cookie_query *cq, uint64_t cookie);

#endif
