/*
 * ofp_port: port descriptions, PORT_STATUS, PORT_MOD and the port/queue
 * statistics entries (see ofp_port.h).
 */
#include "ofp_port.h"

#include <string.h>

#include "ofp_priv.h"

void ofp_port_to_wire(const struct ofp_port *p, struct ofp13_port *w)
{
    memset(w, 0, sizeof(*w));
    w->port_no = htobe32(p->port_no);
    memcpy(w->hw_addr, p->hw_addr, OFP_ETH_ALEN);
    /* 15 characters at most, so the wire name stays NUL-terminated. */
    ofp_str_to_wire(w->name, p->name, OFP_MAX_PORT_NAME_LEN - 1);
    w->config = htobe32(p->config);
    w->state = htobe32(p->state);
    w->curr = htobe32(p->curr);
    w->advertised = htobe32(p->advertised);
    w->supported = htobe32(p->supported);
    w->peer = htobe32(p->peer);
    w->curr_speed = htobe32(p->curr_speed);
    w->max_speed = htobe32(p->max_speed);
}

void ofp_port_from_wire(const struct ofp13_port *w, struct ofp_port *p)
{
    memset(p, 0, sizeof(*p));
    p->port_no = be32toh(w->port_no);
    memcpy(p->hw_addr, w->hw_addr, OFP_ETH_ALEN);
    ofp_str_from_wire(p->name, w->name, OFP_MAX_PORT_NAME_LEN - 1);
    p->config = be32toh(w->config);
    p->state = be32toh(w->state);
    p->curr = be32toh(w->curr);
    p->advertised = be32toh(w->advertised);
    p->supported = be32toh(w->supported);
    p->peer = be32toh(w->peer);
    p->curr_speed = be32toh(w->curr_speed);
    p->max_speed = be32toh(w->max_speed);
}

bool ofp_port_equal(const struct ofp_port *a, const struct ofp_port *b)
{
    return a->port_no == b->port_no && memcmp(a->hw_addr, b->hw_addr, OFP_ETH_ALEN) == 0 &&
           strncmp(a->name, b->name, OFP_MAX_PORT_NAME_LEN - 1) == 0 && a->config == b->config &&
           a->state == b->state && a->curr == b->curr && a->advertised == b->advertised &&
           a->supported == b->supported && a->peer == b->peer &&
           a->curr_speed == b->curr_speed && a->max_speed == b->max_speed;
}

int ofp_port_put(struct ofp_buf *b, const struct ofp_port *p)
{
    uint8_t *w = ofp_buf_put(b, sizeof(struct ofp13_port));
    if (!w)
        return -ENOSPC;
    ofp_port_to_wire(p, (struct ofp13_port *)w);
    return 0;
}

/* ---- PORT_STATUS ----------------------------------------------------------- */

int ofp_port_status_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_port_status *ps)
{
    size_t start;
    uint8_t *p =
        ofp_msg_begin(b, OFPT_PORT_STATUS, xid, sizeof(struct ofp13_port_status), &start);
    if (!p)
        return -ENOSPC;
    struct ofp13_port_status *w = (void *)p;
    w->reason = ps->reason;
    ofp_port_to_wire(&ps->desc, &w->desc);
    return ofp_msg_end(b, start);
}

int ofp_port_status_decode(const uint8_t *msg, size_t len, struct ofp_port_status *out,
                           struct ofp_err *err)
{
    int rc = ofp_hdr_check(msg, len, OFPT_PORT_STATUS, err);
    if (rc < 0)
        return rc;
    const struct ofp13_port_status *w = (const void *)msg;
    out->reason = w->reason;
    ofp_port_from_wire(&w->desc, &out->desc);
    return 0;
}

/* ---- PORT_MOD --------------------------------------------------------------- */

static int port_mod_check(const struct ofp_port_mod *pm, struct ofp_err *err)
{
    if (pm->port_no == 0 || (pm->port_no > OFPP_MAX && pm->port_no != OFPP_LOCAL))
        return ofp_fail(err, OFPET_PORT_MOD_FAILED, OFPPMFC_BAD_PORT);
    if ((pm->config | pm->mask) & ~(uint32_t)OFPPC_ALL)
        return ofp_fail(err, OFPET_PORT_MOD_FAILED, OFPPMFC_BAD_CONFIG);
    if (pm->advertise & ~OFPPF_ALL)
        return ofp_fail(err, OFPET_PORT_MOD_FAILED, OFPPMFC_BAD_ADVERTISE);
    return 0;
}

int ofp_port_mod_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_port_mod *pm)
{
    size_t start;
    if (port_mod_check(pm, NULL) < 0)
        return -EINVAL;
    uint8_t *p = ofp_msg_begin(b, OFPT_PORT_MOD, xid, sizeof(struct ofp13_port_mod), &start);
    if (!p)
        return -ENOSPC;
    struct ofp13_port_mod *w = (void *)p;
    w->port_no = htobe32(pm->port_no);
    memcpy(w->hw_addr, pm->hw_addr, OFP_ETH_ALEN);
    w->config = htobe32(pm->config);
    w->mask = htobe32(pm->mask);
    w->advertise = htobe32(pm->advertise);
    return ofp_msg_end(b, start);
}

int ofp_port_mod_decode(const uint8_t *msg, size_t len, struct ofp_port_mod *out,
                        struct ofp_err *err)
{
    int rc = ofp_hdr_check(msg, len, OFPT_PORT_MOD, err);
    if (rc < 0)
        return rc;
    const struct ofp13_port_mod *w = (const void *)msg;
    memset(out, 0, sizeof(*out));
    out->port_no = be32toh(w->port_no);
    memcpy(out->hw_addr, w->hw_addr, OFP_ETH_ALEN);
    out->config = be32toh(w->config);
    out->mask = be32toh(w->mask);
    out->advertise = be32toh(w->advertise);
    return port_mod_check(out, err);
}

/* ---- statistics entries ------------------------------------------------------ */

int ofp_port_stats_put(struct ofp_buf *b, const struct ofp_port_stats *s)
{
    uint8_t *p = ofp_buf_put(b, sizeof(struct ofp13_port_stats));
    if (!p)
        return -ENOSPC;
    struct ofp13_port_stats *w = (void *)p;
    w->port_no = htobe32(s->port_no);
    w->rx_packets = htobe64(s->rx_packets);
    w->tx_packets = htobe64(s->tx_packets);
    w->rx_bytes = htobe64(s->rx_bytes);
    w->tx_bytes = htobe64(s->tx_bytes);
    w->rx_dropped = htobe64(s->rx_dropped);
    w->tx_dropped = htobe64(s->tx_dropped);
    w->rx_errors = htobe64(s->rx_errors);
    w->tx_errors = htobe64(s->tx_errors);
    w->rx_frame_err = htobe64(s->rx_frame_err);
    w->rx_over_err = htobe64(s->rx_over_err);
    w->rx_crc_err = htobe64(s->rx_crc_err);
    w->collisions = htobe64(s->collisions);
    w->duration_sec = htobe32(s->duration_sec);
    w->duration_nsec = htobe32(s->duration_nsec);
    return 0;
}

void ofp_port_stats_from_wire(const struct ofp13_port_stats *w, struct ofp_port_stats *s)
{
    s->port_no = be32toh(w->port_no);
    s->rx_packets = be64toh(w->rx_packets);
    s->tx_packets = be64toh(w->tx_packets);
    s->rx_bytes = be64toh(w->rx_bytes);
    s->tx_bytes = be64toh(w->tx_bytes);
    s->rx_dropped = be64toh(w->rx_dropped);
    s->tx_dropped = be64toh(w->tx_dropped);
    s->rx_errors = be64toh(w->rx_errors);
    s->tx_errors = be64toh(w->tx_errors);
    s->rx_frame_err = be64toh(w->rx_frame_err);
    s->rx_over_err = be64toh(w->rx_over_err);
    s->rx_crc_err = be64toh(w->rx_crc_err);
    s->collisions = be64toh(w->collisions);
    s->duration_sec = be32toh(w->duration_sec);
    s->duration_nsec = be32toh(w->duration_nsec);
}

bool ofp_port_stats_equal(const struct ofp_port_stats *a, const struct ofp_port_stats *b)
{
    return a->port_no == b->port_no && a->rx_packets == b->rx_packets &&
           a->tx_packets == b->tx_packets && a->rx_bytes == b->rx_bytes &&
           a->tx_bytes == b->tx_bytes && a->rx_dropped == b->rx_dropped &&
           a->tx_dropped == b->tx_dropped && a->rx_errors == b->rx_errors &&
           a->tx_errors == b->tx_errors && a->rx_frame_err == b->rx_frame_err &&
           a->rx_over_err == b->rx_over_err && a->rx_crc_err == b->rx_crc_err &&
           a->collisions == b->collisions && a->duration_sec == b->duration_sec &&
           a->duration_nsec == b->duration_nsec;
}

int ofp_queue_stats_put(struct ofp_buf *b, const struct ofp_queue_stats *s)
{
    uint8_t *p = ofp_buf_put(b, sizeof(struct ofp13_queue_stats));
    if (!p)
        return -ENOSPC;
    struct ofp13_queue_stats *w = (void *)p;
    w->port_no = htobe32(s->port_no);
    w->queue_id = htobe32(s->queue_id);
    w->tx_bytes = htobe64(s->tx_bytes);
    w->tx_packets = htobe64(s->tx_packets);
    w->tx_errors = htobe64(s->tx_errors);
    w->duration_sec = htobe32(s->duration_sec);
    w->duration_nsec = htobe32(s->duration_nsec);
    return 0;
}

void ofp_queue_stats_from_wire(const struct ofp13_queue_stats *w, struct ofp_queue_stats *s)
{
    s->port_no = be32toh(w->port_no);
    s->queue_id = be32toh(w->queue_id);
    s->tx_bytes = be64toh(w->tx_bytes);
    s->tx_packets = be64toh(w->tx_packets);
    s->tx_errors = be64toh(w->tx_errors);
    s->duration_sec = be32toh(w->duration_sec);
    s->duration_nsec = be32toh(w->duration_nsec);
}

bool ofp_queue_stats_equal(const struct ofp_queue_stats *a, const struct ofp_queue_stats *b)
{
    return a->port_no == b->port_no && a->queue_id == b->queue_id &&
           a->tx_bytes == b->tx_bytes && a->tx_packets == b->tx_packets &&
           a->tx_errors == b->tx_errors && a->duration_sec == b->duration_sec &&
           a->duration_nsec == b->duration_nsec;
}
