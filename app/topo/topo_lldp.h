/*
 * topo_lldp: the LLDP frames ofcd's topology discovery sends out of every
 * enabled port and reads back from PACKET_INs (IEEE 802.1AB), built and
 * checked over byte buffers with time passed in.
 *
 * A frame, 01:80:c2:00:00:0e ← the port's MAC, ethertype 0x88cc:
 *   Chassis ID  subtype 7 (locally assigned), the 8-byte dpid
 *   Port ID     subtype 7, the 4-byte port number     (both as Kytos-ng's
 *               of_lldp sends them, so either reads the other's)
 *   TTL         120 s
 *   ofcd's own  organisationally specific TLV (type 127, OUI TOPO_LLDP_OUI,
 *               subtype 1 for a probe on schedule, 2 for one that asks the
 *               receiver to answer at once — the sender's port just came
 *               up): when it was sent (ms) and an 8-byte tag, the first
 *               bytes of HMAC-SHA256 under a key made at start over dpid,
 *               port, send time and subtype
 *   End
 * so ofcd can tell its own frames from another controller's or a forged
 * one (no tag, or a wrong one) and from a replay (sent longer ago than the
 * caller allows).
 */
#ifndef OFCD_TOPO_LLDP_H
#define OFCD_TOPO_LLDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TOPO_LLDP_ETHERTYPE 0x88cc
#define TOPO_LLDP_FRAME_LEN 64          /* what topo_lldp_build writes */
#define TOPO_LLDP_KEY_LEN 32
/* A locally administered OUI (the U/L bit set): ofcd owns no IEEE one. */
#define TOPO_LLDP_OUI 0x02c0fdu

struct topo_lldp_id {
    uint64_t dpid;
    uint32_t port;
    uint64_t sent_ms;                   /* ofcd's frames only */
    bool ask;                           /* ofcd's: answer with a probe now */
};

/* Write the frame for (dpid, port) sent at now_ms from src_mac into buf
 * (TOPO_LLDP_FRAME_LEN bytes); ask: the receiver should answer at once.
 * Returns its length. */
size_t topo_lldp_build(uint8_t *buf, const uint8_t src_mac[6], uint64_t dpid, uint32_t port,
                       uint64_t now_ms, bool ask, const uint8_t key[TOPO_LLDP_KEY_LEN]);

/* What a received frame is. */
enum topo_lldp_verdict {
    TOPO_LLDP_OURS = 0,                 /* ofcd's, fresh: *id filled */
    TOPO_LLDP_NOT_LLDP,                 /* another ethertype: not for topology */
    TOPO_LLDP_MALFORMED,                /* truncated or broken TLVs */
    TOPO_LLDP_FOREIGN,                  /* well formed, not ofcd's (no tag, or a
                                         * wrong one): *id has what it claims */
    TOPO_LLDP_STALE,                    /* ofcd's tag, but sent more than max_age_ms
                                         * ago or in the future: a replay */
};

enum topo_lldp_verdict topo_lldp_parse(const uint8_t *frame, size_t len,
                                       const uint8_t key[TOPO_LLDP_KEY_LEN], uint64_t now_ms,
                                       uint64_t max_age_ms, struct topo_lldp_id *id);

#endif
