/*
 * emu_ofp.c - OpenFlow 1.3 encoders and decoders of the switch emulator.
 *
 * Every decoder first checks the fixed part against the message length, then walks the
 * variable parts with a struct emu_rd, which never reads past the message; a decoder
 * succeeds only when the message is consumed exactly (modulo the documented padding).
 * Called by the agent (emu_agent.c), the load generators (emu_load.c) and the tests.
 */
#include "emu_ofp.h"

#include <errno.h>
#include <string.h>

/* ---- byte order helpers ------------------------------------------------------------ */

uint16_t emu_get16(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

uint32_t emu_get32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

uint64_t emu_get64(const uint8_t *p)
{
    return ((uint64_t)emu_get32(p) << 32) | emu_get32(p + 4);
}

void emu_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

void emu_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

void emu_put64(uint8_t *p, uint64_t v)
{
    emu_put32(p, (uint32_t)(v >> 32));
    emu_put32(p + 4, (uint32_t)v);
}

/* ---- writer ------------------------------------------------------------------------ */

void emu_wr_init(struct emu_wr *w, uint8_t *buf, size_t cap)
{
    w->buf = buf;
    w->cap = cap;
    w->len = 0;
    w->overflow = false;
}

static uint8_t *wr_take(struct emu_wr *w, size_t n)
{
    if (w->overflow || w->cap - w->len < n) {
        w->overflow = true;
        return NULL;
    }
    uint8_t *p = w->buf + w->len;
    w->len += n;
    return p;
}

void emu_wr_u8(struct emu_wr *w, uint8_t v)
{
    uint8_t *p = wr_take(w, 1);
    if (p)
        *p = v;
}

void emu_wr_u16(struct emu_wr *w, uint16_t v)
{
    uint8_t *p = wr_take(w, 2);
    if (p)
        emu_put16(p, v);
}

void emu_wr_u32(struct emu_wr *w, uint32_t v)
{
    uint8_t *p = wr_take(w, 4);
    if (p)
        emu_put32(p, v);
}

void emu_wr_u64(struct emu_wr *w, uint64_t v)
{
    uint8_t *p = wr_take(w, 8);
    if (p)
        emu_put64(p, v);
}

void emu_wr_bytes(struct emu_wr *w, const void *src, size_t n)
{
    uint8_t *p = wr_take(w, n);
    if (p && n)
        memcpy(p, src, n);
}

void emu_wr_zero(struct emu_wr *w, size_t n)
{
    uint8_t *p = wr_take(w, n);
    if (p && n)
        memset(p, 0, n);
}

void emu_wr_pad8(struct emu_wr *w, size_t start)
{
    size_t used = (w->len - start) % 8;
    if (used)
        emu_wr_zero(w, 8 - used);
}

void emu_wr_patch_u16(struct emu_wr *w, size_t off, uint16_t v)
{
    if (!w->overflow && off + 2 <= w->len)
        emu_put16(w->buf + off, v);
}

size_t emu_wr_msg_begin(struct emu_wr *w, uint8_t type, uint32_t xid)
{
    size_t start = w->len;
    emu_wr_u8(w, EMU_OFP_VERSION);
    emu_wr_u8(w, type);
    emu_wr_u16(w, 0); /* patched by emu_wr_msg_end() */
    emu_wr_u32(w, xid);
    return start;
}

int emu_wr_msg_end(struct emu_wr *w, size_t start)
{
    if (w->overflow || w->len - start > EMU_OFP_MAX_MSG) {
        w->overflow = true;
        return -EMSGSIZE;
    }
    emu_put16(w->buf + start + 2, (uint16_t)(w->len - start));
    return 0;
}

/* ---- reader ------------------------------------------------------------------------ */

void emu_rd_init(struct emu_rd *r, const uint8_t *p, size_t len)
{
    r->p = p;
    r->len = len;
    r->off = 0;
    r->bad = false;
}

const uint8_t *emu_rd_view(struct emu_rd *r, size_t n)
{
    if (r->bad || r->len - r->off < n) {
        r->bad = true;
        return NULL;
    }
    const uint8_t *p = r->p + r->off;
    r->off += n;
    return p;
}

uint8_t emu_rd_u8(struct emu_rd *r)
{
    const uint8_t *p = emu_rd_view(r, 1);
    return p ? *p : 0;
}

uint16_t emu_rd_u16(struct emu_rd *r)
{
    const uint8_t *p = emu_rd_view(r, 2);
    return p ? emu_get16(p) : 0;
}

uint32_t emu_rd_u32(struct emu_rd *r)
{
    const uint8_t *p = emu_rd_view(r, 4);
    return p ? emu_get32(p) : 0;
}

uint64_t emu_rd_u64(struct emu_rd *r)
{
    const uint8_t *p = emu_rd_view(r, 8);
    return p ? emu_get64(p) : 0;
}

void emu_rd_skip(struct emu_rd *r, size_t n)
{
    (void)emu_rd_view(r, n);
}

size_t emu_rd_left(const struct emu_rd *r)
{
    return r->bad ? 0 : r->len - r->off;
}

/* ---- common ------------------------------------------------------------------------ */

static const char *const type_names[EMU_OFPT_COUNT] = {
    "HELLO", "ERROR", "ECHO_REQUEST", "ECHO_REPLY", "EXPERIMENTER", "FEATURES_REQUEST",
    "FEATURES_REPLY", "GET_CONFIG_REQUEST", "GET_CONFIG_REPLY", "SET_CONFIG", "PACKET_IN",
    "FLOW_REMOVED", "PORT_STATUS", "PACKET_OUT", "FLOW_MOD", "GROUP_MOD", "PORT_MOD",
    "TABLE_MOD", "MULTIPART_REQUEST", "MULTIPART_REPLY", "BARRIER_REQUEST", "BARRIER_REPLY",
    "QUEUE_GET_CONFIG_REQUEST", "QUEUE_GET_CONFIG_REPLY", "ROLE_REQUEST", "ROLE_REPLY",
    "GET_ASYNC_REQUEST", "GET_ASYNC_REPLY", "SET_ASYNC", "METER_MOD",
};

const char *emu_ofp_type_name(uint8_t type)
{
    return type < EMU_OFPT_COUNT ? type_names[type] : "UNKNOWN";
}

int emu_ofp_parse_hdr(const uint8_t *buf, size_t avail, struct emu_ofp_hdr *h)
{
    if (avail < EMU_OFP_HDR_LEN)
        return -EBADMSG;
    h->version = buf[0];
    h->type = buf[1];
    h->length = emu_get16(buf + 2);
    h->xid = emu_get32(buf + 4);
    return h->length < EMU_OFP_HDR_LEN ? -EBADMSG : 0;
}

static void set_err(struct emu_oferr *err, uint16_t type, uint16_t code)
{
    if (err) {
        err->type = type;
        err->code = code;
    }
}

/* A fixed-size message body: the length must be exactly hdr + body. */
static int check_exact(const uint8_t *msg, size_t len, size_t want, struct emu_oferr *err)
{
    if (len < EMU_OFP_HDR_LEN || emu_get16(msg + 2) != len || len != want) {
        set_err(err, EMU_OFPET_BAD_REQUEST, EMU_OFPBRC_BAD_LEN);
        return -EBADMSG;
    }
    return 0;
}

static int check_min(const uint8_t *msg, size_t len, size_t min, struct emu_oferr *err)
{
    if (len < EMU_OFP_HDR_LEN || emu_get16(msg + 2) != len || len < min) {
        set_err(err, EMU_OFPET_BAD_REQUEST, EMU_OFPBRC_BAD_LEN);
        return -EBADMSG;
    }
    return 0;
}

/* ---- HELLO ------------------------------------------------------------------------- */

int emu_ofp_enc_hello(struct emu_wr *w, uint32_t xid, uint32_t bitmap)
{
    size_t start = emu_wr_msg_begin(w, EMU_OFPT_HELLO, xid);
    emu_wr_u16(w, EMU_OFPHET_VERSIONBITMAP);
    emu_wr_u16(w, 8); /* element header + one 32-bit bitmap */
    emu_wr_u32(w, bitmap);
    return emu_wr_msg_end(w, start);
}

int emu_ofp_dec_hello(const uint8_t *msg, size_t len, bool *has_bitmap, uint32_t *bitmap)
{
    *has_bitmap = false;
    *bitmap = 0;
    if (check_min(msg, len, EMU_OFP_HDR_LEN, NULL))
        return -EBADMSG;
    struct emu_rd r;
    emu_rd_init(&r, msg + EMU_OFP_HDR_LEN, len - EMU_OFP_HDR_LEN);
    /* Elements are padded to 8 bytes; unknown element types are skipped (spec 7.5.1). */
    while (emu_rd_left(&r) >= 4) {
        size_t start = r.off;
        uint16_t type = emu_rd_u16(&r);
        uint16_t elen = emu_rd_u16(&r);
        if (elen < 4 || elen - 4u > emu_rd_left(&r))
            return -EBADMSG;
        if (type == EMU_OFPHET_VERSIONBITMAP && elen >= 8) {
            *has_bitmap = true;
            *bitmap = emu_rd_u32(&r); /* bits 0..31: the versions we care about */
            emu_rd_skip(&r, elen - 8u);
        } else {
            emu_rd_skip(&r, elen - 4u);
        }
        size_t padded = ((r.off - start) + 7u) & ~(size_t)7;
        size_t pad = padded - (r.off - start);
        emu_rd_skip(&r, pad < emu_rd_left(&r) ? pad : emu_rd_left(&r));
    }
    return r.bad ? -EBADMSG : 0;
}

/* ---- ERROR, ECHO, BARRIER ----------------------------------------------------------- */

int emu_ofp_enc_error(struct emu_wr *w, uint32_t xid, uint16_t type, uint16_t code,
                      const uint8_t *data, size_t data_len)
{
    size_t start = emu_wr_msg_begin(w, EMU_OFPT_ERROR, xid);
    emu_wr_u16(w, type);
    emu_wr_u16(w, code);
    emu_wr_bytes(w, data, data_len > EMU_OFP_ERR_DATA ? EMU_OFP_ERR_DATA : data_len);
    return emu_wr_msg_end(w, start);
}

int emu_ofp_dec_error(const uint8_t *msg, size_t len, struct emu_ofp_error *e)
{
    if (check_min(msg, len, EMU_OFP_HDR_LEN + 4, NULL))
        return -EBADMSG;
    e->type = emu_get16(msg + 8);
    e->code = emu_get16(msg + 10);
    e->data = msg + 12;
    e->data_len = len - 12;
    return 0;
}

int emu_ofp_enc_simple(struct emu_wr *w, uint8_t type, uint32_t xid, const uint8_t *body,
                       size_t body_len)
{
    size_t start = emu_wr_msg_begin(w, type, xid);
    emu_wr_bytes(w, body, body_len);
    return emu_wr_msg_end(w, start);
}

/* ---- FEATURES, CONFIG ------------------------------------------------------------- */

int emu_ofp_enc_features_reply(struct emu_wr *w, uint32_t xid,
                               const struct emu_ofp_features *f)
{
    size_t start = emu_wr_msg_begin(w, EMU_OFPT_FEATURES_REPLY, xid);
    emu_wr_u64(w, f->dpid);
    emu_wr_u32(w, f->n_buffers);
    emu_wr_u8(w, f->n_tables);
    emu_wr_u8(w, f->aux_id);
    emu_wr_zero(w, 2);
    emu_wr_u32(w, f->capabilities);
    emu_wr_u32(w, 0); /* reserved */
    return emu_wr_msg_end(w, start);
}

int emu_ofp_dec_features_reply(const uint8_t *msg, size_t len, struct emu_ofp_features *f)
{
    if (check_exact(msg, len, 32, NULL))
        return -EBADMSG;
    f->dpid = emu_get64(msg + 8);
    f->n_buffers = emu_get32(msg + 16);
    f->n_tables = msg[20];
    f->aux_id = msg[21];
    f->capabilities = emu_get32(msg + 24);
    return 0;
}

int emu_ofp_enc_config(struct emu_wr *w, uint8_t type, uint32_t xid,
                       const struct emu_ofp_config *c)
{
    size_t start = emu_wr_msg_begin(w, type, xid);
    emu_wr_u16(w, c->flags);
    emu_wr_u16(w, c->miss_send_len);
    return emu_wr_msg_end(w, start);
}

int emu_ofp_dec_config(const uint8_t *msg, size_t len, struct emu_ofp_config *c,
                       struct emu_oferr *err)
{
    if (check_exact(msg, len, 12, err))
        return -EBADMSG;
    c->flags = emu_get16(msg + 8);
    c->miss_send_len = emu_get16(msg + 10);
    return 0;
}

/* ---- ports ------------------------------------------------------------------------- */

void emu_ofp_enc_port(struct emu_wr *w, const struct emu_ofp_port *p)
{
    char name[16];
    memset(name, 0, sizeof(name));
    memcpy(name, p->name, strnlen(p->name, sizeof(name) - 1));
    emu_wr_u32(w, p->port_no);
    emu_wr_zero(w, 4);
    emu_wr_bytes(w, p->hw_addr, 6);
    emu_wr_zero(w, 2);
    emu_wr_bytes(w, name, 16);
    emu_wr_u32(w, p->config);
    emu_wr_u32(w, p->state);
    emu_wr_u32(w, p->curr);
    emu_wr_u32(w, p->advertised);
    emu_wr_u32(w, p->supported);
    emu_wr_u32(w, p->peer);
    emu_wr_u32(w, p->curr_speed);
    emu_wr_u32(w, p->max_speed);
}

int emu_ofp_dec_port(struct emu_rd *r, struct emu_ofp_port *p)
{
    const uint8_t *b = emu_rd_view(r, EMU_OFP_PORT_LEN);
    if (!b)
        return -EBADMSG;
    p->port_no = emu_get32(b);
    memcpy(p->hw_addr, b + 8, 6);
    memcpy(p->name, b + 16, 16);
    p->name[15] = '\0';
    p->config = emu_get32(b + 32);
    p->state = emu_get32(b + 36);
    p->curr = emu_get32(b + 40);
    p->advertised = emu_get32(b + 44);
    p->supported = emu_get32(b + 48);
    p->peer = emu_get32(b + 52);
    p->curr_speed = emu_get32(b + 56);
    p->max_speed = emu_get32(b + 60);
    return 0;
}

int emu_ofp_enc_port_status(struct emu_wr *w, uint32_t xid, uint8_t reason,
                            const struct emu_ofp_port *p)
{
    size_t start = emu_wr_msg_begin(w, EMU_OFPT_PORT_STATUS, xid);
    emu_wr_u8(w, reason);
    emu_wr_zero(w, 7);
    emu_ofp_enc_port(w, p);
    return emu_wr_msg_end(w, start);
}

int emu_ofp_dec_port_status(const uint8_t *msg, size_t len, uint8_t *reason,
                            struct emu_ofp_port *p)
{
    if (check_exact(msg, len, 16 + EMU_OFP_PORT_LEN, NULL))
        return -EBADMSG;
    struct emu_rd r;
    emu_rd_init(&r, msg + 16, len - 16);
    *reason = msg[8];
    return emu_ofp_dec_port(&r, p);
}

int emu_ofp_enc_port_mod(struct emu_wr *w, uint32_t xid, const struct emu_ofp_port_mod *pm)
{
    size_t start = emu_wr_msg_begin(w, EMU_OFPT_PORT_MOD, xid);
    emu_wr_u32(w, pm->port_no);
    emu_wr_zero(w, 4);
    emu_wr_bytes(w, pm->hw_addr, 6);
    emu_wr_zero(w, 2);
    emu_wr_u32(w, pm->config);
    emu_wr_u32(w, pm->mask);
    emu_wr_u32(w, pm->advertise);
    emu_wr_zero(w, 4);
    return emu_wr_msg_end(w, start);
}

int emu_ofp_dec_port_mod(const uint8_t *msg, size_t len, struct emu_ofp_port_mod *pm,
                         struct emu_oferr *err)
{
    if (check_exact(msg, len, 40, err))
        return -EBADMSG;
    pm->port_no = emu_get32(msg + 8);
    memcpy(pm->hw_addr, msg + 16, 6);
    pm->config = emu_get32(msg + 24);
    pm->mask = emu_get32(msg + 28);
    pm->advertise = emu_get32(msg + 32);
    return 0;
}

/* ---- match ------------------------------------------------------------------------- */

#define OFPMT_OXM 1

void emu_ofp_enc_match(struct emu_wr *w, const uint8_t *oxm, size_t oxm_len)
{
    size_t start = w->len;
    emu_wr_u16(w, OFPMT_OXM);
    emu_wr_u16(w, (uint16_t)(4 + oxm_len));
    emu_wr_bytes(w, oxm, oxm_len);
    emu_wr_pad8(w, start);
}

int emu_ofp_dec_match(struct emu_rd *r, const uint8_t **oxm, size_t *oxm_len,
                      struct emu_oferr *err)
{
    size_t left = emu_rd_left(r);
    if (left < 4) {
        set_err(err, EMU_OFPET_BAD_REQUEST, EMU_OFPBRC_BAD_LEN);
        return -EBADMSG;
    }
    uint16_t type = emu_rd_u16(r);
    uint16_t mlen = emu_rd_u16(r);
    if (type != OFPMT_OXM) {
        set_err(err, EMU_OFPET_BAD_MATCH, EMU_OFPBMC_BAD_TYPE);
        return -EBADMSG;
    }
    size_t padded = ((size_t)mlen + 7u) & ~(size_t)7;
    if (mlen < 4 || padded > left) {
        set_err(err, EMU_OFPET_BAD_MATCH, EMU_OFPBMC_BAD_LEN);
        return -EBADMSG;
    }
    *oxm_len = mlen - 4u;
    *oxm = emu_rd_view(r, *oxm_len);
    emu_rd_skip(r, padded - mlen);
    return r->bad ? -EBADMSG : 0;
}

/* ---- FLOW_MOD, FLOW_REMOVED --------------------------------------------------------- */

int emu_ofp_enc_flow_mod(struct emu_wr *w, uint32_t xid, const struct emu_ofp_flow_mod *fm)
{
    size_t start = emu_wr_msg_begin(w, EMU_OFPT_FLOW_MOD, xid);
    emu_wr_u64(w, fm->cookie);
    emu_wr_u64(w, fm->cookie_mask);
    emu_wr_u8(w, fm->table_id);
    emu_wr_u8(w, fm->command);
    emu_wr_u16(w, fm->idle_timeout);
    emu_wr_u16(w, fm->hard_timeout);
    emu_wr_u16(w, fm->priority);
    emu_wr_u32(w, fm->buffer_id);
    emu_wr_u32(w, fm->out_port);
    emu_wr_u32(w, fm->out_group);
    emu_wr_u16(w, fm->flags);
    emu_wr_zero(w, 2);
    emu_ofp_enc_match(w, fm->oxm, fm->oxm_len);
    emu_wr_bytes(w, fm->instr, fm->instr_len);
    return emu_wr_msg_end(w, start);
}

int emu_ofp_dec_flow_mod(const uint8_t *msg, size_t len, struct emu_ofp_flow_mod *fm,
                         struct emu_oferr *err)
{
    /* 48 bytes of fixed part, then a match of at least 8 bytes (padded). */
    if (check_min(msg, len, 56, err))
        return -EBADMSG;
    struct emu_rd r;
    emu_rd_init(&r, msg + 8, len - 8);
    fm->cookie = emu_rd_u64(&r);
    fm->cookie_mask = emu_rd_u64(&r);
    fm->table_id = emu_rd_u8(&r);
    fm->command = emu_rd_u8(&r);
    fm->idle_timeout = emu_rd_u16(&r);
    fm->hard_timeout = emu_rd_u16(&r);
    fm->priority = emu_rd_u16(&r);
    fm->buffer_id = emu_rd_u32(&r);
    fm->out_port = emu_rd_u32(&r);
    fm->out_group = emu_rd_u32(&r);
    fm->flags = emu_rd_u16(&r);
    emu_rd_skip(&r, 2);
    if (emu_ofp_dec_match(&r, &fm->oxm, &fm->oxm_len, err))
        return -EBADMSG;
    fm->instr_len = emu_rd_left(&r);
    fm->instr = emu_rd_view(&r, fm->instr_len);
    return r.bad ? -EBADMSG : 0;
}

int emu_ofp_enc_flow_removed(struct emu_wr *w, uint32_t xid,
                             const struct emu_ofp_flow_removed *fr)
{
    size_t start = emu_wr_msg_begin(w, EMU_OFPT_FLOW_REMOVED, xid);
    emu_wr_u64(w, fr->cookie);
    emu_wr_u16(w, fr->priority);
    emu_wr_u8(w, fr->reason);
    emu_wr_u8(w, fr->table_id);
    emu_wr_u32(w, fr->duration_sec);
    emu_wr_u32(w, fr->duration_nsec);
    emu_wr_u16(w, fr->idle_timeout);
    emu_wr_u16(w, fr->hard_timeout);
    emu_wr_u64(w, fr->packet_count);
    emu_wr_u64(w, fr->byte_count);
    emu_ofp_enc_match(w, fr->oxm, fr->oxm_len);
    return emu_wr_msg_end(w, start);
}

int emu_ofp_dec_flow_removed(const uint8_t *msg, size_t len, struct emu_ofp_flow_removed *fr)
{
    if (check_min(msg, len, 56, NULL))
        return -EBADMSG;
    struct emu_rd r;
    emu_rd_init(&r, msg + 8, len - 8);
    fr->cookie = emu_rd_u64(&r);
    fr->priority = emu_rd_u16(&r);
    fr->reason = emu_rd_u8(&r);
    fr->table_id = emu_rd_u8(&r);
    fr->duration_sec = emu_rd_u32(&r);
    fr->duration_nsec = emu_rd_u32(&r);
    fr->idle_timeout = emu_rd_u16(&r);
    fr->hard_timeout = emu_rd_u16(&r);
    fr->packet_count = emu_rd_u64(&r);
    fr->byte_count = emu_rd_u64(&r);
    if (emu_ofp_dec_match(&r, &fr->oxm, &fr->oxm_len, NULL))
        return -EBADMSG;
    return emu_rd_left(&r) == 0 && !r.bad ? 0 : -EBADMSG;
}

/* ---- PACKET_IN, PACKET_OUT ---------------------------------------------------------- */

int emu_ofp_enc_packet_in(struct emu_wr *w, uint32_t xid, const struct emu_ofp_packet_in *pi)
{
    uint8_t oxm[8];
    emu_put16(oxm, 0x8000);         /* OFPXMC_OPENFLOW_BASIC */
    oxm[2] = 0;                     /* field IN_PORT, no mask */
    oxm[3] = 4;
    emu_put32(oxm + 4, pi->in_port);
    size_t start = emu_wr_msg_begin(w, EMU_OFPT_PACKET_IN, xid);
    emu_wr_u32(w, pi->buffer_id);
    emu_wr_u16(w, pi->total_len);
    emu_wr_u8(w, pi->reason);
    emu_wr_u8(w, pi->table_id);
    emu_wr_u64(w, pi->cookie);
    emu_ofp_enc_match(w, oxm, sizeof(oxm));
    emu_wr_zero(w, 2); /* aligns the IP header of the frame */
    emu_wr_bytes(w, pi->data, pi->data_len);
    return emu_wr_msg_end(w, start);
}

int emu_ofp_dec_packet_in(const uint8_t *msg, size_t len, struct emu_ofp_packet_in *pi)
{
    if (check_min(msg, len, 34, NULL))
        return -EBADMSG;
    struct emu_rd r;
    emu_rd_init(&r, msg + 8, len - 8);
    pi->buffer_id = emu_rd_u32(&r);
    pi->total_len = emu_rd_u16(&r);
    pi->reason = emu_rd_u8(&r);
    pi->table_id = emu_rd_u8(&r);
    pi->cookie = emu_rd_u64(&r);
    const uint8_t *oxm;
    size_t oxm_len;
    if (emu_ofp_dec_match(&r, &oxm, &oxm_len, NULL))
        return -EBADMSG;
    /* Find in_port among the TLVs; each TLV must fit in the match. */
    pi->in_port = 0;
    bool found = false;
    for (size_t off = 0; off < oxm_len;) {
        if (oxm_len - off < 4)
            return -EBADMSG;
        size_t tlen = oxm[off + 3];
        if (oxm_len - off - 4 < tlen)
            return -EBADMSG;
        if (emu_get16(oxm + off) == 0x8000 && (oxm[off + 2] >> 1) == 0 && tlen == 4) {
            pi->in_port = emu_get32(oxm + off + 4);
            found = true;
        }
        off += 4 + tlen;
    }
    emu_rd_skip(&r, 2);
    pi->data_len = emu_rd_left(&r);
    pi->data = emu_rd_view(&r, pi->data_len);
    return found && !r.bad ? 0 : -EBADMSG;
}

int emu_ofp_enc_packet_out(struct emu_wr *w, uint32_t xid,
                           const struct emu_ofp_packet_out *po)
{
    size_t start = emu_wr_msg_begin(w, EMU_OFPT_PACKET_OUT, xid);
    emu_wr_u32(w, po->buffer_id);
    emu_wr_u32(w, po->in_port);
    emu_wr_u16(w, (uint16_t)po->actions_len);
    emu_wr_zero(w, 6);
    emu_wr_bytes(w, po->actions, po->actions_len);
    emu_wr_bytes(w, po->data, po->data_len);
    return emu_wr_msg_end(w, start);
}

int emu_ofp_dec_packet_out(const uint8_t *msg, size_t len, struct emu_ofp_packet_out *po,
                           struct emu_oferr *err)
{
    if (check_min(msg, len, 24, err))
        return -EBADMSG;
    po->buffer_id = emu_get32(msg + 8);
    po->in_port = emu_get32(msg + 12);
    po->actions_len = emu_get16(msg + 16);
    if (po->actions_len > len - 24) {
        set_err(err, EMU_OFPET_BAD_REQUEST, EMU_OFPBRC_BAD_LEN);
        return -EBADMSG;
    }
    po->actions = msg + 24;
    po->data = msg + 24 + po->actions_len;
    po->data_len = len - 24 - po->actions_len;
    return 0;
}

/* ---- ROLE, ASYNC ------------------------------------------------------------------- */

int emu_ofp_enc_role(struct emu_wr *w, uint8_t type, uint32_t xid,
                     const struct emu_ofp_role *ro)
{
    size_t start = emu_wr_msg_begin(w, type, xid);
    emu_wr_u32(w, ro->role);
    emu_wr_zero(w, 4);
    emu_wr_u64(w, ro->generation_id);
    return emu_wr_msg_end(w, start);
}

int emu_ofp_dec_role(const uint8_t *msg, size_t len, struct emu_ofp_role *ro,
                     struct emu_oferr *err)
{
    if (check_exact(msg, len, 24, err))
        return -EBADMSG;
    ro->role = emu_get32(msg + 8);
    ro->generation_id = emu_get64(msg + 16);
    return 0;
}

int emu_ofp_enc_async(struct emu_wr *w, uint8_t type, uint32_t xid,
                      const struct emu_ofp_async *a)
{
    size_t start = emu_wr_msg_begin(w, type, xid);
    for (int i = 0; i < 2; i++)
        emu_wr_u32(w, a->packet_in_mask[i]);
    for (int i = 0; i < 2; i++)
        emu_wr_u32(w, a->port_status_mask[i]);
    for (int i = 0; i < 2; i++)
        emu_wr_u32(w, a->flow_removed_mask[i]);
    return emu_wr_msg_end(w, start);
}

int emu_ofp_dec_async(const uint8_t *msg, size_t len, struct emu_ofp_async *a,
                      struct emu_oferr *err)
{
    if (check_exact(msg, len, 32, err))
        return -EBADMSG;
    for (int i = 0; i < 2; i++) {
        a->packet_in_mask[i] = emu_get32(msg + 8 + 4 * i);
        a->port_status_mask[i] = emu_get32(msg + 16 + 4 * i);
        a->flow_removed_mask[i] = emu_get32(msg + 24 + 4 * i);
    }
    return 0;
}

/* ---- multipart --------------------------------------------------------------------- */

size_t emu_ofp_enc_mp_begin(struct emu_wr *w, uint8_t msg_type, uint32_t xid, uint16_t mp_type,
                            uint16_t flags)
{
    size_t start = emu_wr_msg_begin(w, msg_type, xid);
    emu_wr_u16(w, mp_type);
    emu_wr_u16(w, flags);
    emu_wr_zero(w, 4);
    return start;
}

int emu_ofp_dec_mp(const uint8_t *msg, size_t len, struct emu_ofp_mp *mp,
                   struct emu_oferr *err)
{
    if (check_min(msg, len, 16, err))
        return -EBADMSG;
    mp->type = emu_get16(msg + 8);
    mp->flags = emu_get16(msg + 10);
    mp->body = msg + 16;
    mp->body_len = len - 16;
    return 0;
}

static void put_str(struct emu_wr *w, const char *s, size_t field)
{
    size_t n = strnlen(s, field - 1);
    emu_wr_bytes(w, s, n);
    emu_wr_zero(w, field - n);
}

static void get_str(char *dst, const uint8_t *src, size_t field)
{
    memcpy(dst, src, field);
    dst[field - 1] = '\0';
}

void emu_ofp_enc_desc(struct emu_wr *w, const struct emu_ofp_desc *d)
{
    put_str(w, d->mfr, 256);
    put_str(w, d->hw, 256);
    put_str(w, d->sw, 256);
    put_str(w, d->serial, 32);
    put_str(w, d->dp, 256);
}

int emu_ofp_dec_desc(const uint8_t *body, size_t len, struct emu_ofp_desc *d)
{
    if (len != EMU_OFP_DESC_LEN)
        return -EBADMSG;
    get_str(d->mfr, body, 256);
    get_str(d->hw, body + 256, 256);
    get_str(d->sw, body + 512, 256);
    get_str(d->serial, body + 768, 32);
    get_str(d->dp, body + 800, 256);
    return 0;
}

void emu_ofp_enc_flow_stats_req(struct emu_wr *w, const struct emu_ofp_flow_stats_req *q)
{
    emu_wr_u8(w, q->table_id);
    emu_wr_zero(w, 3);
    emu_wr_u32(w, q->out_port);
    emu_wr_u32(w, q->out_group);
    emu_wr_zero(w, 4);
    emu_wr_u64(w, q->cookie);
    emu_wr_u64(w, q->cookie_mask);
    emu_ofp_enc_match(w, q->oxm, q->oxm_len);
}

int emu_ofp_dec_flow_stats_req(const uint8_t *body, size_t len,
                               struct emu_ofp_flow_stats_req *q, struct emu_oferr *err)
{
    struct emu_rd r;
    emu_rd_init(&r, body, len);
    if (len < 40) {
        set_err(err, EMU_OFPET_BAD_REQUEST, EMU_OFPBRC_BAD_LEN);
        return -EBADMSG;
    }
    q->table_id = emu_rd_u8(&r);
    emu_rd_skip(&r, 3);
    q->out_port = emu_rd_u32(&r);
    q->out_group = emu_rd_u32(&r);
    emu_rd_skip(&r, 4);
    q->cookie = emu_rd_u64(&r);
    q->cookie_mask = emu_rd_u64(&r);
    if (emu_ofp_dec_match(&r, &q->oxm, &q->oxm_len, err))
        return -EBADMSG;
    if (emu_rd_left(&r) != 0) {
        set_err(err, EMU_OFPET_BAD_REQUEST, EMU_OFPBRC_BAD_LEN);
        return -EBADMSG;
    }
    return 0;
}

size_t emu_ofp_flow_stats_len(size_t oxm_len, size_t instr_len)
{
    return 48 + ((4 + oxm_len + 7) & ~(size_t)7) + instr_len;
}

void emu_ofp_enc_flow_stats(struct emu_wr *w, const struct emu_ofp_flow_stats *fs)
{
    emu_wr_u16(w, (uint16_t)emu_ofp_flow_stats_len(fs->oxm_len, fs->instr_len));
    emu_wr_u8(w, fs->table_id);
    emu_wr_zero(w, 1);
    emu_wr_u32(w, fs->duration_sec);
    emu_wr_u32(w, fs->duration_nsec);
    emu_wr_u16(w, fs->priority);
    emu_wr_u16(w, fs->idle_timeout);
    emu_wr_u16(w, fs->hard_timeout);
    emu_wr_u16(w, fs->flags);
    emu_wr_zero(w, 4);
    emu_wr_u64(w, fs->cookie);
    emu_wr_u64(w, fs->packet_count);
    emu_wr_u64(w, fs->byte_count);
    emu_ofp_enc_match(w, fs->oxm, fs->oxm_len);
    emu_wr_bytes(w, fs->instr, fs->instr_len);
}

int emu_ofp_dec_flow_stats(struct emu_rd *r, struct emu_ofp_flow_stats *fs)
{
    size_t left = emu_rd_left(r);
    if (left < 56)
        return -EBADMSG;
    size_t start = r->off;
    uint16_t elen = emu_rd_u16(r);
    if (elen < 56 || elen > left)
        return -EBADMSG;
    fs->table_id = emu_rd_u8(r);
    emu_rd_skip(r, 1);
    fs->duration_sec = emu_rd_u32(r);
    fs->duration_nsec = emu_rd_u32(r);
    fs->priority = emu_rd_u16(r);
    fs->idle_timeout = emu_rd_u16(r);
    fs->hard_timeout = emu_rd_u16(r);
    fs->flags = emu_rd_u16(r);
    emu_rd_skip(r, 4);
    fs->cookie = emu_rd_u64(r);
    fs->packet_count = emu_rd_u64(r);
    fs->byte_count = emu_rd_u64(r);
    /* The match must stay inside this entry. */
    struct emu_rd sub;
    emu_rd_init(&sub, r->p + r->off, elen - (r->off - start));
    if (emu_ofp_dec_match(&sub, &fs->oxm, &fs->oxm_len, NULL))
        return -EBADMSG;
    fs->instr_len = emu_rd_left(&sub);
    fs->instr = emu_rd_view(&sub, fs->instr_len);
    emu_rd_skip(r, sub.off);
    return r->bad || sub.bad ? -EBADMSG : 0;
}

void emu_ofp_enc_aggregate(struct emu_wr *w, const struct emu_ofp_aggregate *a)
{
    emu_wr_u64(w, a->packet_count);
    emu_wr_u64(w, a->byte_count);
    emu_wr_u32(w, a->flow_count);
    emu_wr_zero(w, 4);
}

int emu_ofp_dec_aggregate(const uint8_t *body, size_t len, struct emu_ofp_aggregate *a)
{
    if (len != 24)
        return -EBADMSG;
    a->packet_count = emu_get64(body);
    a->byte_count = emu_get64(body + 8);
    a->flow_count = emu_get32(body + 16);
    return 0;
}

void emu_ofp_enc_table_stats(struct emu_wr *w, const struct emu_ofp_table_stats *t)
{
    emu_wr_u8(w, t->table_id);
    emu_wr_zero(w, 3);
    emu_wr_u32(w, t->active_count);
    emu_wr_u64(w, t->lookup_count);
    emu_wr_u64(w, t->matched_count);
}

int emu_ofp_dec_table_stats(struct emu_rd *r, struct emu_ofp_table_stats *t)
{
    const uint8_t *b = emu_rd_view(r, EMU_OFP_TABLE_STATS_LEN);
    if (!b)
        return -EBADMSG;
    t->table_id = b[0];
    t->active_count = emu_get32(b + 4);
    t->lookup_count = emu_get64(b + 8);
    t->matched_count = emu_get64(b + 16);
    return 0;
}

void emu_ofp_enc_port_stats(struct emu_wr *w, const struct emu_ofp_port_stats *s)
{
    emu_wr_u32(w, s->port_no);
    emu_wr_zero(w, 4);
    const uint64_t c[12] = {
        s->rx_packets, s->tx_packets, s->rx_bytes, s->tx_bytes, s->rx_dropped, s->tx_dropped,
        s->rx_errors, s->tx_errors, s->rx_frame_err, s->rx_over_err, s->rx_crc_err,
        s->collisions,
    };
    for (int i = 0; i < 12; i++)
        emu_wr_u64(w, c[i]);
    emu_wr_u32(w, s->duration_sec);
    emu_wr_u32(w, s->duration_nsec);
}

int emu_ofp_dec_port_stats(struct emu_rd *r, struct emu_ofp_port_stats *s)
{
    const uint8_t *b = emu_rd_view(r, EMU_OFP_PORT_STATS_LEN);
    if (!b)
        return -EBADMSG;
    s->port_no = emu_get32(b);
    uint64_t *c[12] = {
        &s->rx_packets, &s->tx_packets, &s->rx_bytes, &s->tx_bytes, &s->rx_dropped,
        &s->tx_dropped, &s->rx_errors, &s->tx_errors, &s->rx_frame_err, &s->rx_over_err,
        &s->rx_crc_err, &s->collisions,
    };
    for (int i = 0; i < 12; i++)
        *c[i] = emu_get64(b + 8 + 8 * i);
    s->duration_sec = emu_get32(b + 104);
    s->duration_nsec = emu_get32(b + 108);
    return 0;
}

int emu_ofp_dec_port_req(const uint8_t *body, size_t len, uint32_t *port_no,
                         struct emu_oferr *err)
{
    if (len != 8) {
        set_err(err, EMU_OFPET_BAD_REQUEST, EMU_OFPBRC_BAD_LEN);
        return -EBADMSG;
    }
    *port_no = emu_get32(body);
    return 0;
}

/* ---- instructions and actions ------------------------------------------------------- */

static bool port_valid_for_output(uint32_t port, const struct emu_ofp_limits *lim)
{
    if (port >= 1 && port <= lim->n_ports)
        return true;
    /* Reserved ports IN_PORT..LOCAL are all usable as output; ANY is not. */
    return port >= EMU_OFPP_IN_PORT && port <= EMU_OFPP_LOCAL;
}

int emu_ofp_check_actions(const uint8_t *p, size_t len, const struct emu_ofp_limits *lim,
                          struct emu_oferr *err)
{
    size_t off = 0;
    while (off < len) {
        if (len - off < 8) {
            set_err(err, EMU_OFPET_BAD_ACTION, EMU_OFPBAC_BAD_LEN);
            return -EBADMSG;
        }
        uint16_t type = emu_get16(p + off);
        uint16_t alen = emu_get16(p + off + 2);
        if (alen < 8 || alen % 8 || alen > len - off) {
            set_err(err, EMU_OFPET_BAD_ACTION, EMU_OFPBAC_BAD_LEN);
            return -EBADMSG;
        }
        if (type == EMU_OFPAT_OUTPUT) {
            if (alen != 16) {
                set_err(err, EMU_OFPET_BAD_ACTION, EMU_OFPBAC_BAD_LEN);
                return -EBADMSG;
            }
            if (!port_valid_for_output(emu_get32(p + off + 4), lim)) {
                set_err(err, EMU_OFPET_BAD_ACTION, EMU_OFPBAC_BAD_OUT_PORT);
                return -EBADMSG;
            }
        } else if (type == EMU_OFPAT_GROUP) {
            /* The emulator has no group table, so every group reference dangles. */
            set_err(err, EMU_OFPET_BAD_ACTION, EMU_OFPBAC_BAD_OUT_GROUP);
            return -EBADMSG;
        } else if (!(type == 11 || type == 12 || (type >= 15 && type <= 21) ||
                     (type >= 23 && type <= 27) || type == EMU_OFPAT_EXPERIMENTER)) {
            set_err(err, EMU_OFPET_BAD_ACTION, EMU_OFPBAC_BAD_TYPE);
            return -EBADMSG;
        }
        off += alen;
    }
    return 0;
}

int emu_ofp_check_instructions(const uint8_t *p, size_t len, uint8_t table_id,
                               const struct emu_ofp_limits *lim, struct emu_oferr *err)
{
    size_t off = 0;
    while (off < len) {
        if (len - off < 8) {
            set_err(err, EMU_OFPET_BAD_INSTRUCTION, EMU_OFPBIC_BAD_LEN);
            return -EBADMSG;
        }
        uint16_t type = emu_get16(p + off);
        uint16_t ilen = emu_get16(p + off + 2);
        if (ilen < 8 || ilen % 8 || ilen > len - off) {
            set_err(err, EMU_OFPET_BAD_INSTRUCTION, EMU_OFPBIC_BAD_LEN);
            return -EBADMSG;
        }
        switch (type) {
        case EMU_OFPIT_GOTO_TABLE: {
            uint8_t next = p[off + 4];
            if (ilen != 8) {
                set_err(err, EMU_OFPET_BAD_INSTRUCTION, EMU_OFPBIC_BAD_LEN);
                return -EBADMSG;
            }
            if (next <= table_id || next >= lim->n_tables) {
                set_err(err, EMU_OFPET_BAD_INSTRUCTION, EMU_OFPBIC_BAD_TABLE_ID);
                return -EBADMSG;
            }
            break;
        }
        case EMU_OFPIT_WRITE_METADATA:
            if (ilen != 24) {
                set_err(err, EMU_OFPET_BAD_INSTRUCTION, EMU_OFPBIC_BAD_LEN);
                return -EBADMSG;
            }
            break;
        case EMU_OFPIT_WRITE_ACTIONS:
        case EMU_OFPIT_APPLY_ACTIONS:
            if (emu_ofp_check_actions(p + off + 8, ilen - 8u, lim, err))
                return -EBADMSG;
            break;
        case EMU_OFPIT_CLEAR_ACTIONS:
        case EMU_OFPIT_METER:
        case EMU_OFPIT_EXPERIMENTER:
            break;
        default:
            set_err(err, EMU_OFPET_BAD_INSTRUCTION, EMU_OFPBIC_UNKNOWN_INST);
            return -EBADMSG;
        }
        off += ilen;
    }
    return 0;
}

static void actions_outputs(const uint8_t *p, size_t len, uint32_t out_port, uint32_t out_group,
                            bool *port_hit, bool *group_hit)
{
    for (size_t off = 0; off + 8 <= len;) {
        uint16_t type = emu_get16(p + off);
        uint16_t alen = emu_get16(p + off + 2);
        if (alen < 8 || alen > len - off)
            return;
        if (type == EMU_OFPAT_OUTPUT && alen >= 8 && emu_get32(p + off + 4) == out_port)
            *port_hit = true;
        if (type == EMU_OFPAT_GROUP && emu_get32(p + off + 4) == out_group)
            *group_hit = true;
        off += alen;
    }
}

bool emu_ofp_instr_outputs(const uint8_t *p, size_t len, uint32_t out_port,
                           uint32_t out_group)
{
    bool port_hit = out_port == EMU_OFPP_ANY;
    bool group_hit = out_group == EMU_OFPG_ANY;
    if (port_hit && group_hit)
        return true;
    for (size_t off = 0; off + 8 <= len;) {
        uint16_t type = emu_get16(p + off);
        uint16_t ilen = emu_get16(p + off + 2);
        if (ilen < 8 || ilen > len - off)
            break;
        if (type == EMU_OFPIT_WRITE_ACTIONS || type == EMU_OFPIT_APPLY_ACTIONS)
            actions_outputs(p + off + 8, ilen - 8u, out_port, out_group, &port_hit,
                            &group_hit);
        off += ilen;
    }
    return port_hit && group_hit;
}

void emu_ofp_enc_instr_output(struct emu_wr *w, uint32_t port)
{
    emu_wr_u16(w, EMU_OFPIT_APPLY_ACTIONS);
    emu_wr_u16(w, 24);
    emu_wr_zero(w, 4);
    emu_wr_u16(w, EMU_OFPAT_OUTPUT);
    emu_wr_u16(w, 16);
    emu_wr_u32(w, port);
    emu_wr_u16(w, 0xffff); /* max_len: OFPCML_NO_BUFFER */
    emu_wr_zero(w, 6);
}
