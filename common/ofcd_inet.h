/*
 * ofcd_inet: IPv4 addresses (host order) and peers (address:port) as text,
 * the one way every log line and error names them.
 */
#ifndef OFCD_INET_H
#define OFCD_INET_H

#include <stdint.h>
#include <stdio.h>

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
