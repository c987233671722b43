/*
 * ofcd_inet: IPv4 addresses (host order) and peers (address:port) as text,
 * the one way every log line and error names them; the Internet checksum
 * of frames made outside the TCP stack (captures, test frames; the stack
 * has its own, drivers/net/net_cksum.h).
 */
#ifndef OFCD_INET_H
#define OFCD_INET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* RFC 1071's sum of n bytes added to sum (16-bit big-endian words, an odd
 * last byte padded); ofcd_inet_csum_fold makes it the checksum field. */
static inline uint32_t ofcd_inet_csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        sum += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (n & 1)
        sum += (uint32_t)(p[n - 1] << 8);
    return sum;
}

static inline uint16_t ofcd_inet_csum_fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

#define OFCD_IPV4_STRLEN 16          /* "255.255.255.255" */
#define OFCD_PEER_STRLEN 22          /* "255.255.255.255:65535" */

/* "192.0.2.1"; returns out, so it can stand in a printf's arguments. */
static inline const char *ofcd_ipv4_format(uint32_t ip, char out[OFCD_IPV4_STRLEN])
{
    snprintf(out, OFCD_IPV4_STRLEN, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255,
             (ip >> 8) & 255, ip & 255);
    return out;
}

/* "192.0.2.1:6653" */
static inline const char *ofcd_peer_format(uint32_t ip, uint16_t port,
                                           char out[OFCD_PEER_STRLEN])
{
    snprintf(out, OFCD_PEER_STRLEN, "%u.%u.%u.%u:%u", ip >> 24, (ip >> 16) & 255,
             (ip >> 8) & 255, ip & 255, port);
    return out;
}

#endif
