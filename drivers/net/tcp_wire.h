/*
 * tcp_wire: the TCP header on the wire, its flags and options, and modular
 * sequence-number comparison (RFC 9293 §3.4; everything wraps at 2^32).
 */
#ifndef OFCD_TCP_WIRE_H
#define OFCD_TCP_WIRE_H

#include <stdbool.h>
#include <stdint.h>

#define TCP_HLEN 20
#define TCP_MAX_HLEN 60

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_PSH 0x08
#define TCP_ACK 0x10
#define TCP_URG 0x20

#define TCPOPT_EOL 0
#define TCPOPT_NOP 1
#define TCPOPT_MSS 2
#define TCPOPT_WSCALE 3
#define TCPOPT_SACK_PERM 4
#define TCPOPT_SACK 5
#define TCPOPT_TS 8

#define TCPOLEN_MSS 4
#define TCPOLEN_WSCALE 3
#define TCPOLEN_TS 10
#define TCPOLEN_TS_ALIGNED 12     /* NOP NOP TS */
#define TCP_MAX_WSCALE 14         /* RFC 7323 §2.3 */

struct tcp_hdr {
    uint16_t sport;
    uint16_t dport;
    uint32_t seq;
    uint32_t ack;
    uint8_t off;      /* data offset in the high nibble */
    uint8_t flags;
    uint16_t win;
    uint16_t csum;
    uint16_t urp;
} __attribute__((packed));

static inline bool seq_lt(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }
static inline bool seq_leq(uint32_t a, uint32_t b) { return (int32_t)(a - b) <= 0; }
static inline bool seq_gt(uint32_t a, uint32_t b) { return (int32_t)(a - b) > 0; }
static inline bool seq_geq(uint32_t a, uint32_t b) { return (int32_t)(a - b) >= 0; }
static inline uint32_t seq_max(uint32_t a, uint32_t b) { return seq_gt(a, b) ? a : b; }
static inline uint32_t seq_min(uint32_t a, uint32_t b) { return seq_lt(a, b) ? a : b; }

/* Parsed options of one segment. */
struct tcp_opts {
    bool mss_ok, ws_ok, ts_ok, sack_perm;
    uint16_t mss;
    uint8_t wscale;
    uint32_t tsval, tsecr;
};

#endif
