/*
 * ofp_port: ports — the ofp_port description (FEATURES/PORT_DESC/PORT_STATUS),
 * PORT_STATUS, PORT_MOD, and the port and queue statistics entries of
 * MULTIPART (their request/reply framing is in ofp_mp).
 *
 * Message encoders/decoders follow the conventions of ofp_switch.h.
 * The _put/_parse functions handle one multipart body entry (no OpenFlow
 * header).
 */
#ifndef OFCD_OFP_PORT_H
#define OFCD_OFP_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofp_buf.h"
#include "ofp_err.h"
#include "ofp_wire.h"

struct ofp_port {
    uint32_t port_no;
    uint8_t hw_addr[OFP_ETH_ALEN];
    /* At most 15 characters travel (the wire field is 16 bytes, NUL-terminated). */
    char name[OFP_MAX_PORT_NAME_LEN];
    uint32_t config;          /* OFPPC_* */
    uint32_t state;           /* OFPPS_* */
    uint32_t curr, advertised, supported, peer;   /* OFPPF_* */
    uint32_t curr_speed;      /* kbps */
    uint32_t max_speed;       /* kbps */
};

void ofp_port_to_wire(const struct ofp_port *p, struct ofp13_port *w);
void ofp_port_from_wire(const struct ofp13_port *w, struct ofp_port *p);
bool ofp_port_equal(const struct ofp_port *a, const struct ofp_port *b);

/* ---- PORT_STATUS ----------------------------------------------------------- */

struct ofp_port_status {
    uint8_t reason;           /* OFPPR_ADD, OFPPR_DELETE, OFPPR_MODIFY */
    struct ofp_port desc;
};

int ofp_port_status_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_port_status *ps);
int ofp_port_status_decode(const uint8_t *msg, size_t len, struct ofp_port_status *out,
                           struct ofp_err *err);

/* ---- PORT_MOD --------------------------------------------------------------- */

struct ofp_port_mod {
    uint32_t port_no;
    uint8_t hw_addr[OFP_ETH_ALEN];
    uint32_t config;          /* OFPPC_* values ... */
    uint32_t mask;            /* ... of the bits set here */
    uint32_t advertise;       /* OFPPF_*, 0 = unchanged */
};

/* port_no 0 or above OFPP_MAX (other than OFPP_LOCAL): OFPPMFC_BAD_PORT;
 * config or mask bits that are not OFPPC_*: OFPPMFC_BAD_CONFIG;
 * advertise bits that are not OFPPF_*: OFPPMFC_BAD_ADVERTISE. */
int ofp_port_mod_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_port_mod *pm);
int ofp_port_mod_decode(const uint8_t *msg, size_t len, struct ofp_port_mod *out,
                        struct ofp_err *err);

/* ---- statistics entries ------------------------------------------------------ */

struct ofp_port_stats {
    uint32_t port_no;
    uint64_t rx_packets, tx_packets, rx_bytes, tx_bytes;
    uint64_t rx_dropped, tx_dropped, rx_errors, tx_errors;
    uint64_t rx_frame_err, rx_over_err, rx_crc_err, collisions;
    uint32_t duration_sec, duration_nsec;
};

struct ofp_queue_stats {
    uint32_t port_no;
    uint32_t queue_id;
    uint64_t tx_bytes, tx_packets, tx_errors;
    uint32_t duration_sec, duration_nsec;
};

int ofp_port_put(struct ofp_buf *b, const struct ofp_port *p);
int ofp_port_stats_put(struct ofp_buf *b, const struct ofp_port_stats *s);
void ofp_port_stats_from_wire(const struct ofp13_port_stats *w, struct ofp_port_stats *s);
bool ofp_port_stats_equal(const struct ofp_port_stats *a, const struct ofp_port_stats *b);
int ofp_queue_stats_put(struct ofp_buf *b, const struct ofp_queue_stats *s);
void ofp_queue_stats_from_wire(const struct ofp13_queue_stats *w, struct ofp_queue_stats *s);
bool ofp_queue_stats_equal(const struct ofp_queue_stats *a, const struct ofp_queue_stats *b);

#endif
