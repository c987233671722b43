/*
 * net_wire: on-the-wire layouts of the headers ofcd parses (Ethernet, ARP,
 * IPv4, ICMP) and the constants that go with them.
 *
 * Our own definitions, independent of DPDK, so the protocol code and its unit
 * tests build and run without EAL. All multi-byte fields are network byte
 * order; read them with ntohs/ntohl.
 */
#ifndef OFCD_NET_WIRE_H
#define OFCD_NET_WIRE_H

#include <stdint.h>

#define NET_ETH_ALEN 6
#define NET_ETH_HLEN 14
#define NET_ETHERTYPE_IPV4 0x0800
#define NET_ETHERTYPE_ARP 0x0806
#define NET_ETHERTYPE_VLAN 0x8100

struct net_eth_hdr {
    uint8_t dst[NET_ETH_ALEN];
    uint8_t src[NET_ETH_ALEN];
    uint16_t type;
} __attribute__((packed));

#define NET_ARP_HTYPE_ETHER 1
#define NET_ARP_OP_REQUEST 1
#define NET_ARP_OP_REPLY 2
#define NET_ARP_LEN 28

struct net_arp_hdr {
    uint16_t htype;
    uint16_t ptype;
    uint8_t hlen;
    uint8_t plen;
    uint16_t op;
    uint8_t sha[NET_ETH_ALEN];
    uint32_t spa;
    uint8_t tha[NET_ETH_ALEN];
    uint32_t tpa;
} __attribute__((packed));

#define NET_IPV4_MIN_HLEN 20
#define NET_IPV4_MAX_HLEN 60
#define NET_IPV4_FLAG_MF 0x2000
#define NET_IPV4_FRAG_OFF_MASK 0x1fff
#define NET_IPPROTO_ICMP 1
#define NET_IPPROTO_TCP 6
#define NET_IPPROTO_UDP 17

/* IPv4 option types that matter for parsing the option list. */
#define NET_IPOPT_EOL 0
#define NET_IPOPT_NOP 1

struct net_ipv4_hdr {
    uint8_t ver_ihl;
    uint8_t tos;
    uint16_t total_len;
    uint16_t id;
    uint16_t frag_off;
    uint8_t ttl;
    uint8_t proto;
    uint16_t csum;
    uint32_t src;
    uint32_t dst;
} __attribute__((packed));

#define NET_ICMP_ECHO_REPLY 0
#define NET_ICMP_ECHO_REQUEST 8
#define NET_ICMP_HLEN 8

struct net_icmp_hdr {
    uint8_t type;
    uint8_t code;
    uint16_t csum;
    uint16_t id;
    uint16_t seq;
} __attribute__((packed));

#endif
