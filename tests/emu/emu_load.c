/*
 * emu_load.c - load an emulated switch generates on its own: PACKET_INs (latency and
 * throughput modes), port flaps (PORT_STATUS link down/up) and malformed messages.
 *
 * Packet_ins: each carries a 64-byte UDP frame between two hosts of the switch (host MACs
 * per port, so a learning switch learns them and installs flows), and an id that is both
 * its buffer_id (when the switch buffers) and a cookie inside the frame (for PACKET_OUTs
 * that carry the frame back).  An answer is a FLOW_MOD or PACKET_OUT naming the buffer
 * or carrying the frame; its latency goes to the pin_lat histogram.  Outstanding
 * packet_ins sit in a window of slots indexed by id % window; latency mode is a window
 * of 1 (the next packet_in leaves when the previous one is answered), throughput mode
 * keeps up to --window outstanding (cbench-like).  --packet-in-rate caps either with a
 * token bucket; unanswered packet_ins expire after --pin-timeout.
 * Called by the agent (handshake, close, responses), emu_conn.c (pump after tx drains)
 * and its own timers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu.h"

#define PIN_MAGIC "OFEMU-PI"
#define FRAME_LEN 64
#define FRAME_COOKIE_OFF 42 /* Ethernet 14 + IPv4 20 + UDP 8 */
#define PIN_ID_MAX 0x7fffffffu

struct emu_pin_slot {
    uint32_t id;
    uint8_t used;
    uint8_t buffered;
    uint64_t sent_ns;
};

struct emu_pin {
    uint32_t window;
    uint32_t outstanding;
    uint32_t next_id;        /* ids issued so far are 1 .. next_id - 1 */
    uint32_t port_rr;
    uint64_t next_send_ns;   /* token bucket: earliest time of the next packet_in */
    uint64_t scan_due_ns;    /* next sweep for timed-out packet_ins, 0 = none planned */
    struct emu_pin_slot slot[];
};

static void load_timer(struct emu_timer *t, uint64_t now);
static void flap_timer(struct emu_timer *t, uint64_t now);
static void bad_timer(struct emu_timer *t, uint64_t now);

int emu_load_init(struct emu_sw *sw)
{
    const struct emu_opts *o = &sw->ctx->opt;
    emu_timer_init(&sw->t_load, load_timer);
    emu_timer_init(&sw->t_flap, flap_timer);
    emu_timer_init(&sw->t_bad, bad_timer);
    if (o->mode == EMU_MODE_NONE)
        return 0;
    uint32_t w = o->mode == EMU_MODE_LATENCY ? 1 : o->window;
    sw->pin = calloc(1, sizeof(*sw->pin) + w * sizeof(struct emu_pin_slot));
    if (!sw->pin)
        return -ENOMEM;
    sw->pin->window = w;
    sw->pin->next_id = 1;
    return 0;
}

void emu_load_free(struct emu_sw *sw)
{
    struct emu_loop *l = &sw->ctx->loop;
    emu_timer_cancel(l, &sw->t_load);
    emu_timer_cancel(l, &sw->t_flap);
    emu_timer_cancel(l, &sw->t_bad);
    free(sw->pin);
    sw->pin = NULL;
}

size_t emu_load_frame(uint64_t dpid, uint32_t in_port, uint32_t n_ports, uint32_t id,
                      uint8_t *buf, size_t cap)
{
    if (cap < FRAME_LEN)
        return 0;
    memset(buf, 0, FRAME_LEN);
    uint32_t dst_port = in_port % n_ports + 1;
    if (n_ports == 1)
        memset(buf, 0xff, 6); /* one port: broadcast, which a learning switch floods */
    else
        emu_agent_host_mac(dpid, dst_port, buf);
    emu_agent_host_mac(dpid, in_port, buf + 6);
    emu_put16(buf + 12, 0x0800);
    uint8_t *ip = buf + 14;
    ip[0] = 0x45;
    emu_put16(ip + 2, FRAME_LEN - 14);
    ip[8] = 64;  /* ttl */
    ip[9] = 17;  /* udp */
    uint8_t src[4] = {10, (uint8_t)(dpid >> 8), (uint8_t)dpid, (uint8_t)in_port};
    uint8_t dst[4] = {10, (uint8_t)(dpid >> 8), (uint8_t)dpid, (uint8_t)dst_port};
    memcpy(ip + 12, src, 4);
    memcpy(ip + 16, dst, 4);
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2)
        sum += emu_get16(ip + i);
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    emu_put16(ip + 10, (uint16_t)~sum);
    uint8_t *udp = ip + 20;
    emu_put16(udp, 40000);
    emu_put16(udp + 2, 40001);
    emu_put16(udp + 4, FRAME_LEN - 34);
    memcpy(buf + FRAME_COOKIE_OFF, PIN_MAGIC, 8);
    emu_put64(buf + FRAME_COOKIE_OFF + 8, dpid);
    emu_put32(buf + FRAME_COOKIE_OFF + 16, id);
    return FRAME_LEN;
}

static bool port_can_send(const struct emu_port *p)
{
    /* A port that is down, or configured not to, raises no packet_ins. */
    return !(p->state & EMU_OFPPS_LINK_DOWN) && !(p->config & (EMU_OFPPC_PORT_DOWN | 0x40));
}

/* Sends one packet_in; returns 0, -EAGAIN (no usable port) or -EPIPE (closed). */
static int send_one(struct emu_sw *sw, uint64_t now)
{
    struct emu_ctx *ctx = sw->ctx;
    struct emu_pin *pin = sw->pin;
    uint32_t n = ctx->opt.n_ports;
    uint32_t in_port = 0;
    for (uint32_t tries = 0; tries < n && !in_port; tries++) {
        uint32_t p = pin->port_rr++ % n;
        if (port_can_send(&sw->ports[p]))
            in_port = p + 1;
    }
    if (!in_port)
        return -EAGAIN;
    uint32_t id = pin->next_id++;
    if (pin->next_id > PIN_ID_MAX)
        pin->next_id = 1;
    struct emu_pin_slot *s = &pin->slot[id % pin->window];
    if (s->used) {
        /* The window wrapped onto an unanswered packet_in: it is given up. */
        s->used = 0;
        pin->outstanding--;
        ctx->st.pin_timeout++;
    }
    uint8_t frame[FRAME_LEN];
    size_t flen = emu_load_frame(sw->dpid, in_port, n, id, frame, sizeof(frame));
    bool buffered = ctx->opt.n_buffers > 0 && sw->miss_send_len != EMU_OFPCML_NO_BUFFER;
    size_t dlen = flen;
    if (buffered && dlen > sw->miss_send_len)
        dlen = sw->miss_send_len;
    struct emu_ofp_packet_in pi = {
        .buffer_id = buffered ? id : EMU_OFP_NO_BUFFER,
        .total_len = (uint16_t)flen,
        .reason = EMU_OFPR_NO_MATCH,
        .table_id = 0,
        .cookie = UINT64_MAX, /* not caused by a flow entry */
        .in_port = in_port,
        .data = frame,
        .data_len = dlen,
    };
    struct emu_wr w;
    emu_wr_init(&w, ctx->txbuf, EMU_TXBUF_LEN);
    emu_ofp_enc_packet_in(&w, 0, &pi);
    if (emu_conn_send_wr(sw, &w))
        return -EPIPE;
    *s = (struct emu_pin_slot){.id = id, .used = 1, .buffered = buffered, .sent_ns = now};
    if (!pin->outstanding++ && !pin->scan_due_ns)
        pin->scan_due_ns = now + ctx->opt.pin_timeout_ms * EMU_NS_PER_MS / 4 + 1;
    ctx->st.pin_sent++;
    sw->lookups++;
    sw->ports[in_port - 1].rx_packets++;
    sw->ports[in_port - 1].rx_bytes += flen;
    return 0;
}

/* Arms t_load for the next rate slot (unless the tx queue is what holds us back: its
 * drain pumps again) and for the next timeout sweep. */
static void arm(struct emu_sw *sw, uint64_t now, bool tx_full)
{
    struct emu_pin *pin = sw->pin;
    uint64_t due = UINT64_MAX;
    if (sw->ctx->opt.pin_rate > 0 && pin->outstanding < pin->window && !tx_full)
        due = pin->next_send_ns;
    if (pin->outstanding && pin->scan_due_ns && pin->scan_due_ns < due)
        due = pin->scan_due_ns;
    if (due == UINT64_MAX)
        return;
    emu_timer_arm(&sw->ctx->loop, &sw->t_load, due > now ? due : now);
}

void emu_load_pump(struct emu_sw *sw)
{
    struct emu_ctx *ctx = sw->ctx;
    struct emu_pin *pin = sw->pin;
    if (!pin || sw->cs != EMU_CS_OPEN || !(sw->flags & EMU_SWF_HANDSHAKED))
        return;
    unsigned slave = sw->role == EMU_OFPCR_ROLE_SLAVE;
    if (!(sw->async.packet_in_mask[slave] & (1u << EMU_OFPR_NO_MATCH)))
        return; /* this controller asked not to get table misses */
    uint64_t now = emu_now_ns();
    double rate = ctx->opt.pin_rate;
    uint64_t period = rate > 0 ? (uint64_t)(1e9 / rate) : 0;
    /* Up to 10 ms of unused credit may be spent at once. */
    uint64_t burst = period ? (period > 10 * EMU_NS_PER_MS ? period : 10 * EMU_NS_PER_MS) : 0;
    uint32_t gen = sw->conn_gen;
    bool tx_full = false;
    while (pin->outstanding < pin->window) {
        if (period && now < pin->next_send_ns)
            break;
        if (!emu_conn_room_load(sw)) {
            tx_full = true; /* emu_conn.c pumps again when the tx queue drains */
            break;
        }
        int rc = send_one(sw, now);
        if (rc == -EPIPE || sw->conn_gen != gen)
            return;
        if (rc) {
            /* Every port is down: look again later rather than spin. */
            pin->next_send_ns = now + 10 * EMU_NS_PER_MS;
            if (!period) {
                emu_timer_arm(&ctx->loop, &sw->t_load, pin->next_send_ns);
                return;
            }
            break;
        }
        if (period) {
            if (pin->next_send_ns + burst < now)
                pin->next_send_ns = now - burst;
            pin->next_send_ns += period;
        }
    }
    arm(sw, now, tx_full);
}

static void load_timer(struct emu_timer *t, uint64_t now)
{
    struct emu_sw *sw = EMU_CONTAINER_OF(t, struct emu_sw, t_load);
    struct emu_pin *pin = sw->pin;
    struct emu_ctx *ctx = sw->ctx;
    if (!pin)
        return;
    if (pin->scan_due_ns && now >= pin->scan_due_ns) {
        uint64_t limit = ctx->opt.pin_timeout_ms * EMU_NS_PER_MS;
        for (uint32_t i = 0; i < pin->window && pin->outstanding; i++) {
            struct emu_pin_slot *s = &pin->slot[i];
            if (s->used && now - s->sent_ns >= limit) {
                s->used = 0;
                pin->outstanding--;
                ctx->st.pin_timeout++;
            }
        }
        pin->scan_due_ns = pin->outstanding ? now + limit / 4 + 1 : 0;
    }
    emu_load_pump(sw);
}

int emu_load_buffer_check(const struct emu_sw *sw, uint32_t buffer_id)
{
    const struct emu_pin *pin = sw->pin;
    if (!pin || buffer_id == 0 || buffer_id >= pin->next_id)
        return EMU_OFPBRC_BUFFER_UNKNOWN;
    const struct emu_pin_slot *s = &pin->slot[buffer_id % pin->window];
    if (s->used && s->buffered && s->id == buffer_id)
        return 0;
    return EMU_OFPBRC_BUFFER_EMPTY;
}

int emu_load_on_response(struct emu_sw *sw, uint32_t buffer_id, const uint8_t *data,
                         size_t data_len)
{
    struct emu_pin *pin = sw->pin;
    struct emu_ctx *ctx = sw->ctx;
    if (!pin)
        return -ENOENT;
    uint32_t id;
    if (buffer_id != EMU_OFP_NO_BUFFER) {
        id = buffer_id;
    } else if (data && data_len >= FRAME_COOKIE_OFF + 20 &&
               memcmp(data + FRAME_COOKIE_OFF, PIN_MAGIC, 8) == 0 &&
               emu_get64(data + FRAME_COOKIE_OFF + 8) == sw->dpid) {
        id = emu_get32(data + FRAME_COOKIE_OFF + 16);
    } else {
        return -ENOENT;
    }
    struct emu_pin_slot *s = &pin->slot[id % pin->window];
    if (!s->used || s->id != id) {
        if (id != 0 && id < pin->next_id)
            ctx->st.pin_late++;
        return -ENOENT;
    }
    uint64_t now = emu_now_ns();
    s->used = 0;
    pin->outstanding--;
    ctx->st.pin_resp++;
    emu_hist_add(&ctx->st.pin_lat, now - s->sent_ns);
    emu_load_pump(sw);
    return 0;
}

void emu_load_on_handshake(struct emu_sw *sw)
{
    struct emu_ctx *ctx = sw->ctx;
    const struct emu_opts *o = &ctx->opt;
    uint64_t now = emu_now_ns();
    if (o->flap_ms)
        emu_timer_arm(&ctx->loop, &sw->t_flap, now + o->flap_ms * EMU_NS_PER_MS);
    if (o->malformed && sw->dpid == o->malformed_dpid)
        emu_timer_arm(&ctx->loop, &sw->t_bad, now + o->malformed_ms * EMU_NS_PER_MS);
    if (sw->pin) {
        sw->pin->next_send_ns = now;
        emu_load_pump(sw);
    }
}

void emu_load_on_close(struct emu_sw *sw)
{
    struct emu_ctx *ctx = sw->ctx;
    emu_timer_cancel(&ctx->loop, &sw->t_load);
    emu_timer_cancel(&ctx->loop, &sw->t_flap);
    emu_timer_cancel(&ctx->loop, &sw->t_bad);
    struct emu_pin *pin = sw->pin;
    if (!pin)
        return;
    for (uint32_t i = 0; i < pin->window; i++)
        pin->slot[i].used = 0;
    ctx->st.pin_lost_disc += pin->outstanding;
    pin->outstanding = 0;
    pin->scan_due_ns = 0;
}

/* ---- port flaps -------------------------------------------------------------------- */

static void flap_timer(struct emu_timer *t, uint64_t now)
{
    struct emu_sw *sw = EMU_CONTAINER_OF(t, struct emu_sw, t_flap);
    struct emu_ctx *ctx = sw->ctx;
    if (sw->cs != EMU_CS_OPEN)
        return;
    uint32_t idx = sw->flap_next++ % ctx->opt.n_ports;
    sw->ports[idx].state ^= EMU_OFPPS_LINK_DOWN;
    unsigned slave = sw->role == EMU_OFPCR_ROLE_SLAVE;
    if (sw->async.port_status_mask[slave] & (1u << EMU_OFPPR_MODIFY)) {
        struct emu_ofp_port p;
        emu_agent_port_desc(sw, idx, &p);
        struct emu_wr w;
        emu_wr_init(&w, ctx->txbuf, EMU_TXBUF_LEN);
        emu_ofp_enc_port_status(&w, 0, EMU_OFPPR_MODIFY, &p);
        uint32_t gen = sw->conn_gen;
        if (emu_conn_send_wr(sw, &w) || sw->conn_gen != gen)
            return;
        ctx->st.port_status_sent++;
    }
    emu_timer_arm(&ctx->loop, t, now + ctx->opt.flap_ms * EMU_NS_PER_MS);
}

/* ---- malformed messages ------------------------------------------------------------ */

static void build_bad(struct emu_sw *sw, enum emu_bad kind, struct emu_wr *w)
{
    uint32_t xid = emu_agent_next_xid(sw);
    struct emu_ofp_port p;
    size_t start;
    switch (kind) {
    case EMU_BAD_TYPE:
        start = emu_wr_msg_begin(w, 0xee, xid);
        emu_wr_u64(w, 0x4f46454d552d4254ull);
        emu_wr_msg_end(w, start);
        break;
    case EMU_BAD_SHORT:
        /* PORT_STATUS is 80 bytes; this one stops after the reason and padding. */
        start = emu_wr_msg_begin(w, EMU_OFPT_PORT_STATUS, xid);
        emu_wr_u8(w, EMU_OFPPR_MODIFY);
        emu_wr_zero(w, 7);
        emu_wr_msg_end(w, start);
        break;
    case EMU_BAD_OXM: {
        uint8_t frame[FRAME_LEN];
        size_t flen = emu_load_frame(sw->dpid, 1, sw->ctx->opt.n_ports, 0, frame, sizeof(frame));
        struct emu_ofp_packet_in pi = {
            .buffer_id = EMU_OFP_NO_BUFFER, .total_len = (uint16_t)flen, .cookie = UINT64_MAX,
            .in_port = 1, .data = frame, .data_len = flen,
        };
        emu_ofp_enc_packet_in(w, xid, &pi);
        /* The in_port TLV (at byte 28) claims 40 bytes inside a 12-byte match. */
        if (!w->overflow)
            w->buf[31] = 40;
        break;
    }
    case EMU_BAD_VERSION:
        emu_agent_port_desc(sw, 0, &p);
        emu_ofp_enc_port_status(w, xid, EMU_OFPPR_MODIFY, &p);
        if (!w->overflow)
            w->buf[0] = 0x01;
        break;
    default: /* EMU_BAD_LEN */
        emu_wr_u8(w, EMU_OFP_VERSION);
        emu_wr_u8(w, EMU_OFPT_ECHO_REQUEST);
        emu_wr_u16(w, 4);
        emu_wr_u32(w, xid);
        break;
    }
}

static void bad_timer(struct emu_timer *t, uint64_t now)
{
    struct emu_sw *sw = EMU_CONTAINER_OF(t, struct emu_sw, t_bad);
    struct emu_ctx *ctx = sw->ctx;
    uint32_t kinds = ctx->opt.malformed_kinds;
    if (sw->cs != EMU_CS_OPEN || !kinds)
        return;
    unsigned k = sw->bad_next % EMU_BAD_COUNT;
    while (!(kinds & (1u << k)))
        k = (k + 1) % EMU_BAD_COUNT;
    sw->bad_next = k + 1;
    struct emu_wr w;
    emu_wr_init(&w, ctx->txbuf, EMU_TXBUF_LEN);
    build_bad(sw, (enum emu_bad)k, &w);
    uint32_t gen = sw->conn_gen;
    if (emu_conn_send_wr(sw, &w) || sw->conn_gen != gen)
        return;
    ctx->st.malformed_sent[k]++;
    emu_timer_arm(&ctx->loop, t, now + ctx->opt.malformed_ms * EMU_NS_PER_MS);
}
