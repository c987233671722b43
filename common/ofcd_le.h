/*
 * ofcd_le: little-endian integers of n bytes (1..8) in byte buffers, for
 * the files ofcd writes in its own layouts (the store's journal). Network
 * byte order has its own helpers (ofcd_inet.h, the OpenFlow codec).
 */
#ifndef OFCD_LE_H
#define OFCD_LE_H

#include <stdint.h>

static inline void ofcd_put_le(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t ofcd_get_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;

    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

#endif
