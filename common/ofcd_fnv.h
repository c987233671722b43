/*
 * ofcd_fnv: the 64-bit FNV-1a hash, for the identities ofcd derives from
 * bytes — a match's hash in the codec, the flow store's match_id and
 * flow_id (which LMDB keeps, so the function never changes).
 */
#ifndef OFCD_FNV_H
#define OFCD_FNV_H

#include <stddef.h>
#include <stdint.h>

#define OFCD_FNV_OFFSET 0xcbf29ce484222325ull

/* h folded with n bytes at p; start from OFCD_FNV_OFFSET. */
static inline uint64_t ofcd_fnv1a(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

#endif
