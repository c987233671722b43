/*
 * ofp_chan: the OpenFlow channel state machine of one switch connection —
 * pure logic, time passed in, no I/O: it decides, its owner (the worker
 * lcore) encodes and sends. Tested with a fake clock.
 *
 *   WAIT_HELLO ── HELLO (version by bitmap) ──▶ WAIT_FEATURES
 *        │  incompatible: ERROR HELLO_FAILED/INCOMPATIBLE, close
 *   WAIT_FEATURES ── FEATURES_REPLY (dpid) ──▶ WAIT_DESC  (PORT_DESC + DESC requested)
 *   WAIT_DESC ── both multipart replies complete ──▶ SET_CONFIG sent ──▶ ESTABLISHED
 *   any state ── handshake_timeout before ESTABLISHED, echo timeout, close() ──▶ CLOSED
 *
 * ofcd sends its HELLO as soon as the connection exists (both sides must).
 * Keepalive: after echo_interval of receive silence an ECHO_REQUEST goes
 * out; no ECHO_REPLY within echo_timeout closes the channel (0 disables
 * either). Echo RTT is kept as an EWMA and a log2 histogram.
 *
 * Messages that are not part of the handshake and arrive before
 * ESTABLISHED are not for this module to drop: ofp_chan_may_process() says
 * "hold it", and the owner replays them once established.
 */
#ifndef OFCD_OFP_CHAN_H
#define OFCD_OFP_CHAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OFP_CHAN_VERSION 0x04          /* OpenFlow 1.3: the only version ofcd speaks */
#define OFP_CHAN_RTT_BUCKETS 24        /* bucket b: RTT in [2^b, 2^(b+1)) µs */

enum ofp_chan_state {
    OFP_CHAN_WAIT_HELLO = 0,
    OFP_CHAN_WAIT_FEATURES,
    OFP_CHAN_WAIT_DESC,
    OFP_CHAN_ESTABLISHED,
    OFP_CHAN_CLOSED,
};

const char *ofp_chan_state_name(enum ofp_chan_state st);

/* Which of the channel's own deadlines closed it (ch->timeout), for the
 * owner's counters: NONE when it closed for any other reason. */
enum ofp_chan_timeout {
    OFP_CHAN_TIMEOUT_NONE = 0,
    OFP_CHAN_TIMEOUT_HELLO,            /* hello_timeout_ms */
    OFP_CHAN_TIMEOUT_HANDSHAKE,        /* handshake_timeout_ms */
    OFP_CHAN_TIMEOUT_ECHO,             /* echo_timeout_ms */
};

struct ofp_chan_cfg {
    uint32_t handshake_timeout_ms;     /* 0 = none */
    /* The switch's HELLO must come this soon (a silent peer holds a
     * connection slot for nothing); 0 = the handshake timeout only. */
    uint32_t hello_timeout_ms;
    uint32_t echo_interval_ms;         /* 0 = no keepalive */
    uint32_t echo_timeout_ms;          /* 0 = never give up on an echo */
    /* Once established, an echo also goes out when none has for this long,
     * busy channel or not, so every switch's RTT stays measured (0 = only
     * the silence keepalive). */
    uint32_t rtt_probe_ms;
    uint16_t miss_send_len;            /* SET_CONFIG */
};

/* What the channel asks of its owner. Sends return 0 or a negative errno;
 * a failed send closes the channel (the owner cannot reach the switch). */
struct ofp_chan_ops {
    int (*send_hello)(void *arg, uint32_t xid);
    int (*send_features_request)(void *arg, uint32_t xid);
    int (*send_port_desc_request)(void *arg, uint32_t xid);
    int (*send_desc_request)(void *arg, uint32_t xid);
    int (*send_set_config)(void *arg, uint32_t xid, uint16_t miss_send_len);
    int (*send_echo_request)(void *arg, uint32_t xid);
    /* An OpenFlow error for the switch (data: the offending message, may be NULL). */
    int (*send_error)(void *arg, uint32_t xid, uint16_t type, uint16_t code,
                      const uint8_t *data, size_t len);
    void (*established)(void *arg);
    /* The channel is over; why is a short text for the log. */
    void (*closed)(void *arg, const char *why);
};

struct ofp_chan {
    enum ofp_chan_state state;
    struct ofp_chan_cfg cfg;
    const struct ofp_chan_ops *ops;
    void *arg;

    uint8_t version;                   /* negotiated */
    uint64_t dpid;
    uint32_t next_xid;
    uint32_t features_xid, port_desc_xid, desc_xid;
    bool have_port_desc, have_desc;

    uint64_t connected_us, established_us, last_rx_us;
    uint32_t echo_xid;
    uint64_t echo_sent_us;
    bool echo_outstanding;

    /* echo round trips */
    uint64_t echo_sent, echo_replies;
    uint32_t rtt_last_us, rtt_ewma_us;
    uint64_t rtt_hist[OFP_CHAN_RTT_BUCKETS];
    const char *close_reason;
    enum ofp_chan_timeout timeout;     /* set before ops->closed is called */
};

/* Start: sends our HELLO. */
void ofp_chan_init(struct ofp_chan *ch, const struct ofp_chan_cfg *cfg,
                   const struct ofp_chan_ops *ops, void *arg, uint64_t now_us);

/* Any message received (keeps the keepalive quiet). */
void ofp_chan_rx(struct ofp_chan *ch, uint64_t now_us);

/* The switch's HELLO: header version and, if it carried one, the version
 * bitmap (bit n = version n). Returns 0, or -EPROTO when the versions are
 * incompatible (error sent, channel closed). */
int ofp_chan_on_hello(struct ofp_chan *ch, uint32_t xid, uint8_t hdr_version,
                      bool has_bitmap, uint32_t bitmap, uint64_t now_us);

/* A message other than HELLO arrived while we wait for HELLO: the switch
 * broke the protocol. Sends HELLO_FAILED/EPERM and closes. */
void ofp_chan_on_early_message(struct ofp_chan *ch, uint32_t xid, uint8_t type,
                               const uint8_t *msg, size_t len);

/* FEATURES_REPLY for our request. aux_id != 0 (auxiliary connection) is
 * refused: ofcd runs one main connection per switch. Returns 0 or -EPROTO. */
int ofp_chan_on_features(struct ofp_chan *ch, uint32_t xid, uint64_t dpid, uint8_t aux_id,
                         uint64_t now_us);

/* Our PORT_DESC / DESC multipart request has been answered completely. */
void ofp_chan_on_port_desc_done(struct ofp_chan *ch, uint32_t xid, uint64_t now_us);
void ofp_chan_on_desc_done(struct ofp_chan *ch, uint32_t xid, uint64_t now_us);

/* ECHO_REPLY (to our keepalive). */
void ofp_chan_on_echo_reply(struct ofp_chan *ch, uint32_t xid, uint64_t now_us);

/* Timeouts and keepalive. Returns the next time it wants to be called
 * (UINT64_MAX: nothing scheduled). */
uint64_t ofp_chan_tick(struct ofp_chan *ch, uint64_t now_us);

/* Close from outside (the connection went away, replaced by a reconnect of
 * the same dpid, too many errors). Calls ops->closed once. */
void ofp_chan_close(struct ofp_chan *ch, const char *why);

/* May a message of this OpenFlow type be processed now? False: hold it and
 * offer it again after ESTABLISHED. */
bool ofp_chan_may_process(const struct ofp_chan *ch, uint8_t type);

/* A fresh xid for a request of the owner's: 1..0x7fffffff, never one with
 * OFP_XID_CONTROL set (ofp_msg.h). */
uint32_t ofp_chan_xid(struct ofp_chan *ch);

#endif
