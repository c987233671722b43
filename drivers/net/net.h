/*
 * net: ofcd's layer-2/3 input path on one io lcore — Ethernet, ARP, IPv4 and
 * ICMP echo — over plain byte buffers, so it runs and is tested without EAL.
 *
 * The io lcore hands each received frame to net_rx(). The verdict says what
 * to do with the buffer:
 *   NET_VERDICT_DROP  free it (the reason is already counted in net_stats),
 *   NET_VERDICT_TX    the frame was rewritten in place into a reply (ARP
 *                     reply, ICMP echo reply) of *len bytes: transmit it,
 *   NET_VERDICT_TCP   an intact IPv4/TCP segment for us; info->l3_off and
 *                     info->l4_off locate it (consumed by the TCP stack).
 * Every frame is counted under exactly one outcome: a drop reason, a reply
 * sent, a segment delivered or an ARP reply consumed (see NET_STATS_FIELDS),
 * so "rx_frames == sum of outcomes" holds and nothing is dropped silently.
 */
#ifndef OFCD_NET_H
#define OFCD_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arp_cache.h"
#include "net_wire.h"

/*
 * Counter list, written once: X(name, help), in two groups.
 *
 * Outcome counters: net_rx() increments exactly one of them per frame, so
 *     rx_frames == net_stats_outcome_sum()
 * always holds between calls; that is the "no silent drop" guarantee. A
 * consumed ARP reply (cache updated, frame freed) is an outcome, not a drop.
 * Informational counters say more about a frame that also has an outcome
 * (rx_arp_request, rx_icmp_echo) or count work outside net_rx
 * (tx_arp_request); they are not part of the sum.
 */
#define NET_STATS_INFO_FIELDS(X)                                                          \
    X(rx_frames, "frames handed to the net layer")                                        \
    X(rx_arp_request, "ARP requests for our address")                                     \
    X(tx_arp_request, "ARP requests and gratuitous ARPs built")                           \
    X(rx_icmp_echo, "ICMP echo requests for us")

#define NET_STATS_OUTCOME_FIELDS(X)                                                       \
    X(rx_arp_reply, "ARP replies received")                                               \
    X(tx_arp_reply, "ARP replies sent")                                                   \
    X(tx_icmp_echo_reply, "ICMP echo replies sent")                                       \
    X(rx_tcp, "TCP segments for us handed to the TCP stack")                              \
    X(drop_eth_short, "frame shorter than an Ethernet header")                            \
    X(drop_eth_not_for_us, "destination MAC neither ours nor broadcast")                  \
    X(drop_eth_bad_src, "source MAC multicast or broadcast")                              \
    X(drop_eth_type, "ethertype other than IPv4 and ARP (incl. VLAN-tagged)")            \
    X(drop_arp_malformed, "ARP too short or not Ethernet/IPv4")                           \
    X(drop_arp_not_for_us, "ARP request for another address")                             \
    X(drop_arp_bad_op, "ARP opcode neither request nor reply")                            \
    X(drop_arp_bad_sender, "ARP with a broadcast/multicast/zero or our own sender")       \
    X(drop_ip_short, "IPv4 packet shorter than its header")                               \
    X(drop_ip_version, "IP version is not 4")                                             \
    X(drop_ip_hlen, "IPv4 header length < 20 or beyond the packet")                       \
    X(drop_ip_len, "IPv4 total length inconsistent with the frame")                       \
    X(drop_ip_csum, "IPv4 header checksum wrong")                                         \
    X(drop_ip_options, "IPv4 options malformed")                                          \
    X(drop_ip_fragment, "IPv4 fragment (ofcd does not reassemble)")                       \
    X(drop_ip_bad_src, "IPv4 source is ours, broadcast, multicast, loopback or zero")     \
    X(drop_ip_not_for_us, "IPv4 destination is not ofcd's address")                       \
    X(drop_ip_proto, "IPv4 protocol ofcd does not serve")                                 \
    X(drop_icmp_short, "ICMP shorter than its header")                                    \
    X(drop_icmp_csum, "ICMP checksum wrong")                                              \
    X(drop_icmp_type, "ICMP type other than echo request")                                \
    X(drop_tcp_no_stack, "TCP segment while no TCP stack is attached")

#define NET_STATS_FIELDS(X) NET_STATS_INFO_FIELDS(X) NET_STATS_OUTCOME_FIELDS(X)

/* Shortest Ethernet frame without FCS; replies are zero-padded up to it. */
#define NET_ETH_MIN_FRAME 60

struct net_stats {
    NET_STATS_FIELDS(OFCD_COUNTER_FIELD)
};

extern const struct ofcd_counter_group net_counters;          /* "net" */

enum net_verdict {
    NET_VERDICT_DROP = 0,
    NET_VERDICT_TX,
    NET_VERDICT_TCP,
};

struct net_rx_info {
    uint16_t l3_off;  /* offset of the IPv4 header */
    uint16_t l4_off;  /* offset of the L4 header */
    uint16_t l4_len;  /* L4 bytes (header + payload) per the IPv4 total length */
};

/* Per-io-lcore network identity and state. */
struct net_ctx {
    uint8_t mac[NET_ETH_ALEN];
    uint32_t ip;           /* host byte order */
    uint32_t netmask;      /* host byte order */
    bool tcp_attached;     /* false until a TCP stack consumes NET_VERDICT_TCP */
    struct arp_cache *arp;
    struct net_stats stats;
};

/* ip/prefix in host byte order. Returns 0 or -EINVAL: ctx, mac or arp NULL,
 * mac multicast/broadcast or zero, prefix_len outside 1..30 (a host needs a
 * network and a broadcast address besides its own), ip 0, loopback,
 * multicast, 255.255.255.255, or the network or broadcast address of its
 * own subnet (the same rules as the config's net.address).
 * Counters start at zero, tcp_attached false. The arp cache is owned by the
 * caller and must outlive ctx. */
int net_ctx_init(struct net_ctx *ctx, const uint8_t mac[6], uint32_t ip, uint8_t prefix_len,
                 struct arp_cache *arp);

/*
 * Process one received frame of *len bytes (without FCS) at time now_us.
 * buf must have room for max(*len, NET_ETH_MIN_FRAME) bytes: a reply is never
 * longer than the original frame, except that short replies are zero-padded
 * to 60 bytes. See the header comment for the verdicts; on NET_VERDICT_TX,
 * *len holds the reply length, otherwise it is unchanged. info is filled on
 * NET_VERDICT_TCP only; with info NULL a TCP segment counts as
 * drop_tcp_no_stack. Exactly one outcome counter is incremented per call.
 */
enum net_verdict net_rx(struct net_ctx *ctx, uint8_t *buf, uint16_t *len, uint64_t now_us,
                        struct net_rx_info *info);

/*
 * Build a broadcast ARP request for target_ip (host order) into buf, which
 * must have room for NET_ETH_MIN_FRAME bytes. target_ip == ctx->ip builds a
 * gratuitous ARP. Returns the frame length (60, zero-padded) and counts
 * tx_arp_request. Rate limiting is the caller's (arp_cache_should_request).
 */
uint16_t net_build_arp_request(struct net_ctx *ctx, uint32_t target_ip, uint8_t *buf);

/* Is ip (host order) inside ofcd's subnet? */
bool net_on_link(const struct net_ctx *ctx, uint32_t ip);

/* Sum of the outcome counters (see NET_STATS_OUTCOME_FIELDS); equals
 * rx_frames between net_rx() calls. */
uint64_t net_stats_outcome_sum(const struct net_stats *stats);

#endif
