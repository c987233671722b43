/*
 * net_rx: the entry of the net layer on an io lcore. Owns the per-lcore
 * identity (net_ctx_init, net_on_link), the Ethernet checks and the dispatch
 * to ARP and IPv4, and the counter walk. Called once per received frame from
 * the lcore's burst loop; no allocation, no syscalls, no logging here —
 * every outcome is a counter (see net.h).
 */
#include <errno.h>

#include "net_priv.h"

const uint8_t net_eth_broadcast[NET_ETH_ALEN] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

int net_ctx_init(struct net_ctx *ctx, const uint8_t mac[6], uint32_t ip, uint8_t prefix_len,
                 struct arp_cache *arp)
{
    if (!ctx || !mac || !arp)
        return -EINVAL;
    if (net_mac_is_multicast(mac) || net_mac_is_zero(mac))
        return -EINVAL;
    if (prefix_len < 1 || prefix_len > 30)
        return -EINVAL;
    uint32_t mask = ~0u << (32 - prefix_len);
    if (ip == 0 || ip == NET_IPV4_BROADCAST || net_ipv4_is_multicast(ip) || (ip >> 24) == 127)
        return -EINVAL;
    /* The all-zeros and all-ones host parts name the subnet, not a host. */
    if ((ip & ~mask) == 0 || (ip & ~mask) == ~mask)
        return -EINVAL;

    memset(ctx, 0, sizeof(*ctx));
    memcpy(ctx->mac, mac, NET_ETH_ALEN);
    ctx->ip = ip;
    ctx->netmask = mask;
    ctx->tcp_attached = false;
    ctx->arp = arp;
    return 0;
}

bool net_on_link(const struct net_ctx *ctx, uint32_t ip)
{
    return (ip & ctx->netmask) == (ctx->ip & ctx->netmask);
}

enum net_verdict net_rx(struct net_ctx *ctx, uint8_t *buf, uint16_t *len, uint64_t now_us,
                        struct net_rx_info *info)
{
    ctx->stats.rx_frames++;
    if (*len < NET_ETH_HLEN) {
        ctx->stats.drop_eth_short++;
        return NET_VERDICT_DROP;
    }

    const uint8_t *dst = buf + offsetof(struct net_eth_hdr, dst);
    const uint8_t *src = buf + offsetof(struct net_eth_hdr, src);
    /* Multicast is not ours either: ofcd joins no group. */
    if (memcmp(dst, ctx->mac, NET_ETH_ALEN) != 0 &&
        memcmp(dst, net_eth_broadcast, NET_ETH_ALEN) != 0) {
        ctx->stats.drop_eth_not_for_us++;
        return NET_VERDICT_DROP;
    }
    /* A group address never sends (IEEE 802); replying to one would turn a
     * single forged frame into a flood. */
    if (net_mac_is_multicast(src)) {
        ctx->stats.drop_eth_bad_src++;
        return NET_VERDICT_DROP;
    }

    switch (net_rd16(buf + offsetof(struct net_eth_hdr, type))) {
    case NET_ETHERTYPE_ARP:
        return net_arp_input(ctx, buf, len, now_us);
    case NET_ETHERTYPE_IPV4:
        return net_ipv4_input(ctx, buf, len, info);
    default:
        /* Includes 802.1Q: ofcd's port is untagged. */
        ctx->stats.drop_eth_type++;
        return NET_VERDICT_DROP;
    }
}

uint64_t net_stats_outcome_sum(const struct net_stats *stats)
{
    uint64_t sum = 0;
#define NET_STATS_SUM(name, help) sum += stats->name;
    NET_STATS_OUTCOME_FIELDS(NET_STATS_SUM)
#undef NET_STATS_SUM
    return sum;
}

OFCD_COUNTER_GROUP(net_counters, "net", struct net_stats, NET_STATS_FIELDS, OFCD_NO_COUNTERS);
