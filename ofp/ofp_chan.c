/* ofp_chan: see ofp_chan.h. */
#include "ofp_chan.h"

#include <errno.h>
#include <string.h>

#include "ofcd_hist.h"
#include "ofp_msg.h"
#include "ofp_wire.h"

static const char *const state_names[] = {
    "WAIT_HELLO", "WAIT_FEATURES", "WAIT_DESC", "ESTABLISHED", "CLOSED",
};

const char *ofp_chan_state_name(enum ofp_chan_state st)
{
    return (unsigned)st <= OFP_CHAN_CLOSED ? state_names[st] : "?";
}

uint32_t ofp_chan_xid(struct ofp_chan *ch)
{
    /* xid 0 is left unused so "no request outstanding" needs no extra flag;
     * the top bit is the control thread's. */
    ch->next_xid = (ch->next_xid + 1) & ~OFP_XID_CONTROL;
    if (ch->next_xid == 0)
        ch->next_xid = 1;
    return ch->next_xid;
}

void ofp_chan_close(struct ofp_chan *ch, const char *why)
{
    if (ch->state == OFP_CHAN_CLOSED)
        return;
    ch->state = OFP_CHAN_CLOSED;
    ch->close_reason = why;
    if (ch->ops->closed)
        ch->ops->closed(ch->arg, why);
}

/* A send that fails means the owner cannot reach the switch any more. */
static bool sent(struct ofp_chan *ch, int rc, const char *what)
{
    if (rc == 0)
        return true;
    ofp_chan_close(ch, what);
    return false;
}

void ofp_chan_init(struct ofp_chan *ch, const struct ofp_chan_cfg *cfg,
                   const struct ofp_chan_ops *ops, void *arg, uint64_t now_us)
{
    memset(ch, 0, sizeof(*ch));
    ch->cfg = *cfg;
    ch->ops = ops;
    ch->arg = arg;
    ch->state = OFP_CHAN_WAIT_HELLO;
    ch->connected_us = now_us;
    ch->last_rx_us = now_us;
    sent(ch, ops->send_hello(arg, ofp_chan_xid(ch)), "cannot send HELLO");
}

void ofp_chan_rx(struct ofp_chan *ch, uint64_t now_us)
{
    ch->last_rx_us = now_us;
}

int ofp_chan_on_hello(struct ofp_chan *ch, uint32_t xid, uint8_t hdr_version,
                      bool has_bitmap, uint32_t bitmap, uint64_t now_us)
{
    if (ch->state != OFP_CHAN_WAIT_HELLO)
        return 0;                    /* a second HELLO carries nothing new */
    /* OF 1.3 §6.3.1: with bitmaps on both sides, the highest common bit;
     * otherwise the smaller of the two header versions. */
    bool ok = has_bitmap ? (bitmap & (1u << OFP_CHAN_VERSION)) != 0
                         : hdr_version >= OFP_CHAN_VERSION;
    if (!ok) {
        static const char msg[] = "ofcd speaks OpenFlow 1.3 (version 0x04) only";
        ch->ops->send_error(ch->arg, xid, OFPET_HELLO_FAILED, OFPHFC_INCOMPATIBLE,
                            (const uint8_t *)msg, sizeof(msg) - 1);
        ofp_chan_close(ch, "version negotiation failed: no OpenFlow 1.3 in the switch's HELLO");
        return -EPROTO;
    }
    ch->version = OFP_CHAN_VERSION;
    ch->state = OFP_CHAN_WAIT_FEATURES;
    ch->features_xid = ofp_chan_xid(ch);
    (void)now_us;
    sent(ch, ch->ops->send_features_request(ch->arg, ch->features_xid),
         "cannot send FEATURES_REQUEST");
    return 0;
}

void ofp_chan_on_early_message(struct ofp_chan *ch, uint32_t xid, uint8_t type,
                               const uint8_t *msg, size_t len)
{
    static const char text[] = "a message came before HELLO";

    (void)type;
    (void)msg;
    (void)len;
    if (ch->state != OFP_CHAN_WAIT_HELLO)
        return;
    /* HELLO_FAILED carries an ASCII explanation, not the message (1.3.5 §A.4.4). */
    ch->ops->send_error(ch->arg, xid, OFPET_HELLO_FAILED, OFPHFC_EPERM, (const uint8_t *)text,
                        sizeof(text) - 1);
    ofp_chan_close(ch, "protocol violation: a message before HELLO");
}

int ofp_chan_on_features(struct ofp_chan *ch, uint32_t xid, uint64_t dpid, uint8_t aux_id,
                         uint64_t now_us)
{
    (void)now_us;
    if (ch->state != OFP_CHAN_WAIT_FEATURES || xid != ch->features_xid)
        return 0;                    /* unsolicited or stale: nothing to do */
    if (aux_id != 0) {
        ch->ops->send_error(ch->arg, xid, OFPET_BAD_REQUEST, OFPBRC_EPERM, NULL, 0);
        ofp_chan_close(ch, "auxiliary connection refused (ofcd uses one main connection)");
        return -EPROTO;
    }
    ch->dpid = dpid;
    ch->state = OFP_CHAN_WAIT_DESC;
    ch->port_desc_xid = ofp_chan_xid(ch);
    ch->desc_xid = ofp_chan_xid(ch);
    if (!sent(ch, ch->ops->send_port_desc_request(ch->arg, ch->port_desc_xid),
              "cannot send PORT_DESC request"))
        return -EIO;
    sent(ch, ch->ops->send_desc_request(ch->arg, ch->desc_xid), "cannot send DESC request");
    return 0;
}

static void maybe_established(struct ofp_chan *ch, uint64_t now_us)
{
    if (ch->state != OFP_CHAN_WAIT_DESC || !ch->have_port_desc || !ch->have_desc)
        return;
    if (!sent(ch, ch->ops->send_set_config(ch->arg, ofp_chan_xid(ch), ch->cfg.miss_send_len),
              "cannot send SET_CONFIG"))
        return;
    ch->state = OFP_CHAN_ESTABLISHED;
    ch->established_us = now_us;
    if (ch->ops->established)
        ch->ops->established(ch->arg);
}

void ofp_chan_on_port_desc_done(struct ofp_chan *ch, uint32_t xid, uint64_t now_us)
{
    if (ch->state == OFP_CHAN_WAIT_DESC && xid == ch->port_desc_xid) {
        ch->have_port_desc = true;
        maybe_established(ch, now_us);
    }
}

void ofp_chan_on_desc_done(struct ofp_chan *ch, uint32_t xid, uint64_t now_us)
{
    if (ch->state == OFP_CHAN_WAIT_DESC && xid == ch->desc_xid) {
        ch->have_desc = true;
        maybe_established(ch, now_us);
    }
}

void ofp_chan_on_echo_reply(struct ofp_chan *ch, uint32_t xid, uint64_t now_us)
{
    if (!ch->echo_outstanding || xid != ch->echo_xid)
        return;                      /* late reply to a probe we gave up on */
    ch->echo_outstanding = false;
    uint64_t rtt = now_us - ch->echo_sent_us;
    if (rtt > UINT32_MAX)
        rtt = UINT32_MAX;
    ch->rtt_last_us = (uint32_t)rtt;
    /* EWMA with gain 1/8, as TCP's SRTT: steady, yet follows a trend. */
    ch->rtt_ewma_us = ch->echo_replies ? (uint32_t)((7ull * ch->rtt_ewma_us + rtt) / 8)
                                       : (uint32_t)rtt;
    ch->echo_replies++;
    ch->rtt_hist[ofcd_log2_bucket(rtt, OFP_CHAN_RTT_BUCKETS)]++;
}

uint64_t ofp_chan_tick(struct ofp_chan *ch, uint64_t now_us)
{
    uint64_t next = UINT64_MAX;
    const struct ofp_chan_cfg *cfg = &ch->cfg;

    if (ch->state == OFP_CHAN_CLOSED)
        return UINT64_MAX;
    if (ch->state == OFP_CHAN_WAIT_HELLO && cfg->hello_timeout_ms) {
        uint64_t deadline = ch->connected_us + (uint64_t)cfg->hello_timeout_ms * 1000u;
        if (now_us >= deadline) {
            ch->timeout = OFP_CHAN_TIMEOUT_HELLO;
            ofp_chan_close(ch, "no HELLO within openflow.hello_timeout_ms");
            return UINT64_MAX;
        }
        next = deadline;
    }
    if (ch->state != OFP_CHAN_ESTABLISHED && cfg->handshake_timeout_ms) {
        uint64_t deadline = ch->connected_us + (uint64_t)cfg->handshake_timeout_ms * 1000u;
        if (now_us >= deadline) {
            ch->timeout = OFP_CHAN_TIMEOUT_HANDSHAKE;
            ofp_chan_close(ch, ch->state == OFP_CHAN_WAIT_HELLO ? "handshake timeout: no HELLO"
                               : ch->state == OFP_CHAN_WAIT_FEATURES
                                   ? "handshake timeout: no FEATURES_REPLY"
                                   : "handshake timeout: PORT_DESC/DESC incomplete");
            return UINT64_MAX;
        }
        if (deadline < next)
            next = deadline;
    }
    if (ch->echo_outstanding && cfg->echo_timeout_ms) {
        uint64_t deadline = ch->echo_sent_us + (uint64_t)cfg->echo_timeout_ms * 1000u;
        if (now_us >= deadline) {
            ch->timeout = OFP_CHAN_TIMEOUT_ECHO;
            ofp_chan_close(ch, "echo timeout: no ECHO_REPLY");
            return UINT64_MAX;
        }
        if (deadline < next)
            next = deadline;
    }
    /* Keepalive only once the switch has said HELLO: before that the
     * handshake timeout is the watchdog. */
    if (!ch->echo_outstanding && cfg->echo_interval_ms && ch->state != OFP_CHAN_WAIT_HELLO) {
        uint64_t due = ch->last_rx_us + (uint64_t)cfg->echo_interval_ms * 1000u;
        if (cfg->rtt_probe_ms && ch->state == OFP_CHAN_ESTABLISHED) {
            uint64_t last = ch->echo_sent ? ch->echo_sent_us : ch->established_us;
            uint64_t probe = last + (uint64_t)cfg->rtt_probe_ms * 1000u;
            if (probe < due)
                due = probe;
        }
        if (now_us >= due) {
            ch->echo_xid = ofp_chan_xid(ch);
            ch->echo_sent_us = now_us;
            ch->echo_outstanding = true;
            ch->echo_sent++;
            if (!sent(ch, ch->ops->send_echo_request(ch->arg, ch->echo_xid),
                      "cannot send ECHO_REQUEST"))
                return UINT64_MAX;
            if (cfg->echo_timeout_ms) {
                uint64_t deadline = now_us + (uint64_t)cfg->echo_timeout_ms * 1000u;
                if (deadline < next)
                    next = deadline;
            }
        } else if (due < next) {
            next = due;
        }
    }
    return next;
}

bool ofp_chan_may_process(const struct ofp_chan *ch, uint8_t type)
{
    switch (ch->state) {
    case OFP_CHAN_ESTABLISHED:
        return true;
    case OFP_CHAN_CLOSED:
        return false;
    default:
        /* The handshake's own messages; everything else waits its turn. */
        return type == OFPT_HELLO || type == OFPT_ERROR || type == OFPT_ECHO_REQUEST ||
               type == OFPT_ECHO_REPLY || type == OFPT_FEATURES_REPLY ||
               type == OFPT_MULTIPART_REPLY || type == OFPT_GET_CONFIG_REPLY ||
               type == OFPT_BARRIER_REPLY || type == OFPT_EXPERIMENTER;
    }
}
