/*
 * net_cksum: the RFC 1071 Internet checksum, used by net_rx to verify IPv4
 * and ICMP checksums and to fill in the checksums of the replies it builds.
 *
 * Words are summed in host byte order (RFC 1071 section 2(B): the one's
 * complement sum is byte-order independent), so the folded result, stored as
 * it is in memory, is already in network byte order. Loads go through memcpy
 * so any alignment is fine.
 */
#include "net_cksum.h"

#include <string.h>

/* Fold a 64-bit accumulator to 32 bits; 2^32 == 1 modulo 0xffff, so adding
 * the high half back in keeps the one's-complement value. */
static uint32_t cksum_fold64(uint64_t acc)
{
    acc = (acc & 0xffffffffu) + (acc >> 32);
    acc = (acc & 0xffffffffu) + (acc >> 32);
    return (uint32_t)acc;
}

uint32_t net_cksum_add(uint32_t sum, const void *data, size_t len)
{
    const uint8_t *p = data;
    uint64_t acc = sum;

    /* 8 bytes per step; an overflow of the 64-bit add is an end-around
     * carry (2^64 == 1 modulo 0xffff). */
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, sizeof(w));
        acc += w;
        acc += (acc < w);
        p += 8;
        len -= 8;
    }
    if (len >= 4) {
        uint32_t w;
        memcpy(&w, p, sizeof(w));
        acc += w;
        acc += (acc < w);
        p += 4;
        len -= 4;
    }
    if (len >= 2) {
        uint16_t w;
        memcpy(&w, p, sizeof(w));
        acc += w;
        acc += (acc < w);
        p += 2;
        len -= 2;
    }
    if (len) {
        /* The odd byte is the first byte of a word whose second byte is 0. */
        uint8_t last[2] = {p[0], 0};
        uint16_t w;
        memcpy(&w, last, sizeof(w));
        acc += w;
        acc += (acc < w);
    }
    return cksum_fold64(acc);
}

uint16_t net_cksum_finish(uint32_t sum)
{
    sum = (sum & 0xffffu) + (sum >> 16);
    sum = (sum & 0xffffu) + (sum >> 16);
    return (uint16_t)~sum;
}

uint16_t net_cksum(const void *data, size_t len)
{
    return net_cksum_finish(net_cksum_add(0, data, len));
}
