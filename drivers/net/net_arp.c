/*
 * net_arp: ARP input (RFC 826 with today's conventions: probes of RFC 5227,
 * gratuitous ARP) and the ARP requests ofcd sends. net_arp_input() is called
 * by net_rx() for ethertype 0x0806 and answers requests for our address by
 * rewriting the frame in place; net_build_arp_request() is called by whoever
 * needs a neighbour's MAC, after arp_cache_should_request() said yes.
 */
#include "net_priv.h"

#define ARP_OFF(field) (NET_ETH_HLEN + offsetof(struct net_arp_hdr, field))

/*
 * A sender we may answer or learn from: a unicast, non-zero MAC and an IPv4
 * address that can belong to one host. spa 0 is an RFC 5227 probe, fine in a
 * request only. spa == our address is a conflict or our own frame looped
 * back; learning it would poison the cache and answering it would feed the
 * conflict, so it is refused like any other bad sender.
 */
static bool arp_sender_ok(const struct net_ctx *ctx, const uint8_t *sha, uint32_t spa,
                          uint16_t op)
{
    if (net_mac_is_multicast(sha) || net_mac_is_zero(sha))
        return false;
    if (spa == 0)
        return op == NET_ARP_OP_REQUEST;
    if (spa == ctx->ip || spa == NET_IPV4_BROADCAST || net_ipv4_is_multicast(spa) ||
        spa == net_subnet_broadcast(ctx))
        return false;
    return true;
}

/* Turn the request in buf into our reply to its sender, in place. */
static void arp_make_reply(const struct net_ctx *ctx, uint8_t *buf, uint16_t *len)
{
    uint8_t req_sha[NET_ETH_ALEN];
    uint8_t req_spa[4];

    memcpy(req_sha, buf + ARP_OFF(sha), NET_ETH_ALEN);
    memcpy(req_spa, buf + ARP_OFF(spa), sizeof(req_spa));

    /* To the MAC the request names, as Linux does: for a probe that is the
     * only address we have, and tpa stays 0. */
    memcpy(buf + offsetof(struct net_eth_hdr, dst), req_sha, NET_ETH_ALEN);
    memcpy(buf + offsetof(struct net_eth_hdr, src), ctx->mac, NET_ETH_ALEN);
    net_wr16(buf + ARP_OFF(op), NET_ARP_OP_REPLY);
    memcpy(buf + ARP_OFF(sha), ctx->mac, NET_ETH_ALEN);
    net_wr32(buf + ARP_OFF(spa), ctx->ip);
    memcpy(buf + ARP_OFF(tha), req_sha, NET_ETH_ALEN);
    memcpy(buf + ARP_OFF(tpa), req_spa, sizeof(req_spa));

    /* Whatever followed the ARP body (padding, trailer) is not ours to echo. */
    *len = NET_ETH_HLEN + NET_ARP_LEN;
    net_pad_min_frame(buf, len);
}

enum net_verdict net_arp_input(struct net_ctx *ctx, uint8_t *buf, uint16_t *len,
                               uint64_t now_us)
{
    if (*len < NET_ETH_HLEN + NET_ARP_LEN ||
        net_rd16(buf + ARP_OFF(htype)) != NET_ARP_HTYPE_ETHER ||
        net_rd16(buf + ARP_OFF(ptype)) != NET_ETHERTYPE_IPV4 ||
        buf[ARP_OFF(hlen)] != NET_ETH_ALEN || buf[ARP_OFF(plen)] != 4) {
        ctx->stats.drop_arp_malformed++;
        return NET_VERDICT_DROP;
    }

    uint16_t op = net_rd16(buf + ARP_OFF(op));
    if (op != NET_ARP_OP_REQUEST && op != NET_ARP_OP_REPLY) {
        ctx->stats.drop_arp_bad_op++;
        return NET_VERDICT_DROP;
    }

    const uint8_t *sha = buf + ARP_OFF(sha);
    uint32_t spa = net_rd32(buf + ARP_OFF(spa));
    uint32_t tpa = net_rd32(buf + ARP_OFF(tpa));
    if (!arp_sender_ok(ctx, sha, spa, op)) {
        ctx->stats.drop_arp_bad_sender++;
        return NET_VERDICT_DROP;
    }

    if (op == NET_ARP_OP_REPLY) {
        /* A reply to us is learnt; one overheard (incl. a gratuitous reply,
         * spa == tpa) only corrects what we already know. The cache's own
         * checks were done above, so its result carries no news. */
        if (tpa == ctx->ip)
            (void)arp_cache_update(ctx->arp, spa, sha, now_us);
        else
            (void)arp_cache_refresh(ctx->arp, spa, sha, now_us);
        ctx->stats.rx_arp_reply++;
        return NET_VERDICT_DROP;
    }

    if (tpa != ctx->ip) {
        /* RFC 826 merge: also how a gratuitous request updates a peer. */
        if (spa != 0)
            (void)arp_cache_refresh(ctx->arp, spa, sha, now_us);
        ctx->stats.drop_arp_not_for_us++;
        return NET_VERDICT_DROP;
    }

    ctx->stats.rx_arp_request++;
    /* The requester is about to talk to us: learn it now and save a request.
     * A probe (spa 0) has no address yet to learn. */
    if (spa != 0)
        (void)arp_cache_update(ctx->arp, spa, sha, now_us);
    arp_make_reply(ctx, buf, len);
    ctx->stats.tx_arp_reply++;
    return NET_VERDICT_TX;
}

uint16_t net_build_arp_request(struct net_ctx *ctx, uint32_t target_ip, uint8_t *buf)
{
    memset(buf, 0, NET_ETH_MIN_FRAME);
    memcpy(buf + offsetof(struct net_eth_hdr, dst), net_eth_broadcast, NET_ETH_ALEN);
    memcpy(buf + offsetof(struct net_eth_hdr, src), ctx->mac, NET_ETH_ALEN);
    net_wr16(buf + offsetof(struct net_eth_hdr, type), NET_ETHERTYPE_ARP);
    net_wr16(buf + ARP_OFF(htype), NET_ARP_HTYPE_ETHER);
    net_wr16(buf + ARP_OFF(ptype), NET_ETHERTYPE_IPV4);
    buf[ARP_OFF(hlen)] = NET_ETH_ALEN;
    buf[ARP_OFF(plen)] = 4;
    net_wr16(buf + ARP_OFF(op), NET_ARP_OP_REQUEST);
    memcpy(buf + ARP_OFF(sha), ctx->mac, NET_ETH_ALEN);
    net_wr32(buf + ARP_OFF(spa), ctx->ip);
    /* tha stays zero: unknown, which is the question. */
    net_wr32(buf + ARP_OFF(tpa), target_ip);
    ctx->stats.tx_arp_request++;
    return NET_ETH_MIN_FRAME;
}
