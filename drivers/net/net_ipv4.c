/*
 * net_ipv4: IPv4 input. net_ipv4_input() is called by net_rx() for ethertype
 * 0x0800; it validates the header in the order the counters are listed in
 * net.h (length, version, header length, total length, checksum, options,
 * fragments, addresses) and hands ICMP to net_icmp_input() and TCP to the
 * caller's TCP stack through NET_VERDICT_TCP. Bytes after the IPv4 total
 * length (Ethernet padding) are ignored.
 */
#include "net_cksum.h"
#include "net_priv.h"

#define IP_OFF(field) offsetof(struct net_ipv4_hdr, field)

/* RFC 791 option list: EOL ends it, NOP is one byte, every other option is
 * type, length (>= 2, counting both) and data, and must end inside the
 * header. We never act on an option, but a reply is built from this header,
 * so it has to parse. */
static bool ipv4_options_ok(const uint8_t *ip, unsigned hlen)
{
    unsigned i = NET_IPV4_MIN_HLEN;

    while (i < hlen) {
        uint8_t type = ip[i];
        if (type == NET_IPOPT_EOL)
            return true;
        if (type == NET_IPOPT_NOP) {
            i++;
            continue;
        }
        if (hlen - i < 2)
            return false;
        uint8_t olen = ip[i + 1];
        if (olen < 2 || olen > hlen - i)
            return false;
        i += olen;
    }
    return true;
}

/* Sources no host can have (RFC 1122 3.2.1.3, RFC 1812 5.3.7): answering
 * them would reflect traffic at a group, the whole subnet, or ourselves. */
static bool ipv4_src_ok(const struct net_ctx *ctx, uint32_t src)
{
    return src != 0 && src != NET_IPV4_BROADCAST && !net_ipv4_is_multicast(src) &&
           (src >> 24) != 127 && src != net_subnet_broadcast(ctx) && src != ctx->ip;
}

enum net_verdict net_ipv4_input(struct net_ctx *ctx, uint8_t *buf, uint16_t *len,
                                struct net_rx_info *info)
{
    const uint8_t *ip = buf + NET_ETH_HLEN;
    unsigned avail = *len - NET_ETH_HLEN;

    if (avail < NET_IPV4_MIN_HLEN) {
        ctx->stats.drop_ip_short++;
        return NET_VERDICT_DROP;
    }
    if ((ip[IP_OFF(ver_ihl)] >> 4) != 4) {
        ctx->stats.drop_ip_version++;
        return NET_VERDICT_DROP;
    }
    unsigned hlen = (ip[IP_OFF(ver_ihl)] & 0x0fu) * 4u;
    if (hlen < NET_IPV4_MIN_HLEN || hlen > avail) {
        ctx->stats.drop_ip_hlen++;
        return NET_VERDICT_DROP;
    }
    /* The total length, not the frame, bounds the packet: frames shorter than
     * 60 bytes arrive padded. */
    unsigned total = net_rd16(ip + IP_OFF(total_len));
    if (total < hlen || total > avail) {
        ctx->stats.drop_ip_len++;
        return NET_VERDICT_DROP;
    }
    if (net_cksum(ip, hlen) != 0) {
        ctx->stats.drop_ip_csum++;
        return NET_VERDICT_DROP;
    }
    if (hlen > NET_IPV4_MIN_HLEN && !ipv4_options_ok(ip, hlen)) {
        ctx->stats.drop_ip_options++;
        return NET_VERDICT_DROP;
    }
    if (net_rd16(ip + IP_OFF(frag_off)) & (NET_IPV4_FLAG_MF | NET_IPV4_FRAG_OFF_MASK)) {
        ctx->stats.drop_ip_fragment++;
        return NET_VERDICT_DROP;
    }
    if (!ipv4_src_ok(ctx, net_rd32(ip + IP_OFF(src)))) {
        ctx->stats.drop_ip_bad_src++;
        return NET_VERDICT_DROP;
    }
    /* Unicast to us only: no broadcast pings, no forwarding. */
    if (net_rd32(ip + IP_OFF(dst)) != ctx->ip) {
        ctx->stats.drop_ip_not_for_us++;
        return NET_VERDICT_DROP;
    }

    uint16_t l4_len = (uint16_t)(total - hlen);
    switch (ip[IP_OFF(proto)]) {
    case NET_IPPROTO_ICMP:
        return net_icmp_input(ctx, buf, len, (uint16_t)hlen, l4_len);
    case NET_IPPROTO_TCP:
        if (!ctx->tcp_attached || !info) {
            ctx->stats.drop_tcp_no_stack++;
            return NET_VERDICT_DROP;
        }
        info->l3_off = NET_ETH_HLEN;
        info->l4_off = (uint16_t)(NET_ETH_HLEN + hlen);
        info->l4_len = l4_len;
        ctx->stats.rx_tcp++;
        return NET_VERDICT_TCP;
    default:
        ctx->stats.drop_ip_proto++;
        return NET_VERDICT_DROP;
    }
}
