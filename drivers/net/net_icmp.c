/*
 * net_icmp: answers ICMP echo requests addressed to ofcd, so an operator can
 * ping the appliance. net_icmp_input() is called by net_ipv4_input() once
 * the IPv4 header is known good and ours; the reply is built in place in the
 * received frame. Every other ICMP type is counted and dropped.
 */
#include "net_cksum.h"
#include "net_priv.h"

#define IP_OFF(field) offsetof(struct net_ipv4_hdr, field)
#define ICMP_OFF(field) offsetof(struct net_icmp_hdr, field)

/*
 * Rewrite the echo request in buf into its reply. IPv4 options are not
 * echoed (RFC 1122 3.2.2.6 allows it; record-route and timestamp would need
 * processing we do not do), so the header is rebuilt at 20 bytes and the
 * ICMP message moved up behind it. The reply goes back to the frame's
 * source MAC: it came from there, no ARP lookup needed.
 */
static void icmp_make_echo_reply(const struct net_ctx *ctx, uint8_t *buf, uint16_t *len,
                                 uint16_t ip_hlen, uint16_t icmp_len)
{
    uint8_t *ip = buf + NET_ETH_HLEN;
    uint8_t *icmp = ip + ip_hlen;

    memcpy(buf + offsetof(struct net_eth_hdr, dst), buf + offsetof(struct net_eth_hdr, src),
           NET_ETH_ALEN);
    memcpy(buf + offsetof(struct net_eth_hdr, src), ctx->mac, NET_ETH_ALEN);

    uint32_t peer = net_rd32(ip + IP_OFF(src));
    uint16_t frag = net_rd16(ip + IP_OFF(frag_off)) & NET_IPV4_FLAG_DF;
    if (ip_hlen > NET_IPV4_MIN_HLEN) {
        memmove(ip + NET_IPV4_MIN_HLEN, icmp, icmp_len);
        icmp = ip + NET_IPV4_MIN_HLEN;
    }

    /* tos and id stay as the request had them. */
    uint16_t total = (uint16_t)(NET_IPV4_MIN_HLEN + icmp_len);
    ip[IP_OFF(ver_ihl)] = 0x45;
    net_wr16(ip + IP_OFF(total_len), total);
    net_wr16(ip + IP_OFF(frag_off), frag);
    ip[IP_OFF(ttl)] = NET_IPV4_DEFAULT_TTL;
    ip[IP_OFF(proto)] = NET_IPPROTO_ICMP;
    net_wr16(ip + IP_OFF(csum), 0);
    net_wr32(ip + IP_OFF(src), ctx->ip);
    net_wr32(ip + IP_OFF(dst), peer);
    uint16_t csum = net_cksum(ip, NET_IPV4_MIN_HLEN);
    memcpy(ip + IP_OFF(csum), &csum, sizeof(csum));

    icmp[ICMP_OFF(type)] = NET_ICMP_ECHO_REPLY;
    icmp[ICMP_OFF(code)] = 0;
    net_wr16(icmp + ICMP_OFF(csum), 0);
    csum = net_cksum(icmp, icmp_len);
    memcpy(icmp + ICMP_OFF(csum), &csum, sizeof(csum));

    *len = (uint16_t)(NET_ETH_HLEN + total);
    net_pad_min_frame(buf, len);
}

enum net_verdict net_icmp_input(struct net_ctx *ctx, uint8_t *buf, uint16_t *len,
                                uint16_t ip_hlen, uint16_t icmp_len)
{
    const uint8_t *icmp = buf + NET_ETH_HLEN + ip_hlen;

    if (icmp_len < NET_ICMP_HLEN) {
        ctx->stats.drop_icmp_short++;
        return NET_VERDICT_DROP;
    }
    /* Over the whole message: the payload is what ping compares. */
    if (net_cksum(icmp, icmp_len) != 0) {
        ctx->stats.drop_icmp_csum++;
        return NET_VERDICT_DROP;
    }
    if (icmp[ICMP_OFF(type)] != NET_ICMP_ECHO_REQUEST || icmp[ICMP_OFF(code)] != 0) {
        ctx->stats.drop_icmp_type++;
        return NET_VERDICT_DROP;
    }

    ctx->stats.rx_icmp_echo++;
    icmp_make_echo_reply(ctx, buf, len, ip_hlen, icmp_len);
    ctx->stats.tx_icmp_echo_reply++;
    return NET_VERDICT_TX;
}
