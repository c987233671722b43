/*
 * topo_lldp: the LLDP frames ofcd's topology discovery sends out of every
 * enabled port and reads back from PACKET_INs (IEEE 802.1AB), built and
 * checked over byte buffers with time passed in.
 *
 * A frame, 01:80:c2:00:00:0e ← the port's MAC, [an 802.1Q tag with the
 * LLDP VLAN, as Kytos-ng's of_lldp tags its own,] ethertype 0x88cc:
 *   Chassis ID  subtype 7 (locally assigned), the 8-byte dpid
 *   Port ID     subtype 7, the 4-byte port number     (both as Kytos-ng's
 *               of_lldp sends them, so either reads the other's)
 *   TTL         120 s
 *   ofcd's own  organisationally specific TLV (type 127, OUI TOPO_LLDP_OUI,
 *               subtype 1 for a probe on schedule, 2 for one that asks the
 *               receiver to answer at once — the sender's port just came
 *               up): when it was sent (µs of ofcd's monotonic clock, of
 *               the wall clock in a cluster; strictly increasing per
 *               switch) and an 8-byte tag, the first bytes of HMAC-SHA256
 *               under a key made at start (the cluster's, in a cluster)
 *               over dpid, port, send time and subtype
 *   End
 * so ofcd can tell its own frames from another controller's or a forged
 * one (no tag, or a wrong one) and from a stale one (sent longer ago than
 * the caller allows); the control thread refuses besides any frame not
 * newer than the last it accepted from the same port (topo_fresh.h).
 */
#ifndef OFCD_TOPO_LLDP_H
#define OFCD_TOPO_LLDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TOPO_LLDP_ETHERTYPE 0x88cc
#define TOPO_LLDP_FRAME_LEN 64          /* what topo_lldp_build writes, tagged or not */
#define TOPO_LLDP_KEY_LEN 32
/* A locally administered OUI (the U/L bit set): ofcd owns no IEEE one. */
#define TOPO_LLDP_OUI 0x02c0fdu
/* How far ahead of a reader's clock a send time may be: lcores read the
 * clock once per loop, so a frame can come back within the loop of a
 * worker whose clock reading is older than the sender's. Only ofcd can
 * make a frame with a valid tag, so this costs no replay protection. */
#define TOPO_LLDP_SKEW_US 10000u
/* In a cluster a frame one node sent comes back to another (the receiving
 * switch's master), and both stamp on the wall clock: their clocks must
 * agree within this (NTP does, by far; one machine trivially). */
#define TOPO_LLDP_CLUSTER_SKEW_US 500000u
/* Default of topology.lldp_max_age_ms: the stamp is taken when a probe is
 * built, so the age is the transit alone — worker, TCP, the switch, the
 * wire, the other switch, TCP back, worker, control thread — never the
 * spread of probes over the interval; 2 s leaves room for a retransmission
 * each way (ofcd's RTO before an RTT sample is 1 s) and a busy switch, and
 * is well below the link timeout (10 s). */
#define TOPO_LLDP_MAX_AGE_MS_DEFAULT 2000u

struct topo_lldp_id {
    uint64_t dpid;
    uint32_t port;
    uint64_t sent_us;                   /* ofcd's frames only */
    bool ask;                           /* ofcd's: answer with a probe now */
};

/* Write the frame for (dpid, port) sent at sent_us from src_mac into buf
 * (TOPO_LLDP_FRAME_LEN bytes), tagged with vlan (1..4094; 0: untagged);
 * ask: the receiver should answer at once. Returns its length. */
size_t topo_lldp_build(uint8_t *buf, const uint8_t src_mac[6], uint16_t vlan, uint64_t dpid,
                       uint32_t port, uint64_t sent_us, bool ask,
                       const uint8_t key[TOPO_LLDP_KEY_LEN]);

/* Is frame (len bytes) LLDP, tagged with one VLAN or not? */
bool topo_lldp_is_lldp(const uint8_t *frame, size_t len);

/* What a received frame is. */
enum topo_lldp_verdict {
    TOPO_LLDP_OURS = 0,                 /* ofcd's, fresh: *id filled */
    TOPO_LLDP_NOT_LLDP,                 /* another ethertype: not for topology */
    TOPO_LLDP_MALFORMED,                /* truncated or broken TLVs */
    TOPO_LLDP_FOREIGN,                  /* well formed, not ofcd's (no tag, or a
                                         * wrong one): *id has what it claims */
    TOPO_LLDP_STALE,                    /* ofcd's tag, but sent more than max_age_us
                                         * ago or more than skew_us ahead */
};

/* now_us on the clock the sender stamped with (TOPO_LLDP_SKEW_US alone,
 * TOPO_LLDP_CLUSTER_SKEW_US across nodes). */
enum topo_lldp_verdict topo_lldp_parse(const uint8_t *frame, size_t len,
                                       const uint8_t key[TOPO_LLDP_KEY_LEN], uint64_t now_us,
                                       uint64_t max_age_us, uint64_t skew_us,
                                       struct topo_lldp_id *id);

#endif
