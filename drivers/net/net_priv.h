/*
 * net_priv: declarations shared by the files of the net layer (net_rx.c,
 * net_arp.c, net_ipv4.c, net_icmp.c) and nothing else. Byte access helpers
 * read and write network-order fields at any offset without casting the
 * frame to structs, so alignment and aliasing never matter.
 */
#ifndef OFCD_NET_PRIV_H
#define OFCD_NET_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "net.h"

#define NET_IPV4_FLAG_DF 0x4000
#define NET_IPV4_DEFAULT_TTL 64
#define NET_IPV4_BROADCAST 0xffffffffu

/* ff:ff:ff:ff:ff:ff, read-only (defined in net_rx.c). */
extern const uint8_t net_eth_broadcast[NET_ETH_ALEN];

static inline uint16_t net_rd16(const uint8_t *p)
{
    return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static inline uint32_t net_rd32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void net_wr16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void net_wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* The group bit: set for multicast and for broadcast. */
static inline bool net_mac_is_multicast(const uint8_t *mac)
{
    return mac[0] & 1;
}

static inline bool net_mac_is_zero(const uint8_t *mac)
{
    return (mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]) == 0;
}

static inline bool net_ipv4_is_multicast(uint32_t ip)
{
    return (ip >> 28) == 0xe;
}

static inline uint32_t net_subnet_broadcast(const struct net_ctx *ctx)
{
    return ctx->ip | ~ctx->netmask;
}

/* Zero-pad a reply to the Ethernet minimum (the caller guarantees room). */
static inline void net_pad_min_frame(uint8_t *buf, uint16_t *len)
{
    if (*len < NET_ETH_MIN_FRAME) {
        memset(buf + *len, 0, NET_ETH_MIN_FRAME - *len);
        *len = NET_ETH_MIN_FRAME;
    }
}

/* Per-protocol input: buf is the whole frame (Ethernet header already
 * validated), *len its length; each counts exactly one outcome. */
enum net_verdict net_arp_input(struct net_ctx *ctx, uint8_t *buf, uint16_t *len,
                               uint64_t now_us);
enum net_verdict net_ipv4_input(struct net_ctx *ctx, uint8_t *buf, uint16_t *len,
                                struct net_rx_info *info);

/* ICMP at buf + NET_ETH_HLEN + ip_hlen, icmp_len bytes per the IPv4 total
 * length; the IPv4 header has been validated and is addressed to us. */
enum net_verdict net_icmp_input(struct net_ctx *ctx, uint8_t *buf, uint16_t *len,
                                uint16_t ip_hlen, uint16_t icmp_len);

#endif
