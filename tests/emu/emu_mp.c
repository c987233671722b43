/*
 * emu_mp.c - multipart requests of one emulated switch: DESC, FLOW, AGGREGATE, TABLE,
 * PORT_STATS, PORT_DESC (and empty GROUP/GROUP_DESC/METER/METER_CONFIG/QUEUE replies, as
 * a switch without groups, meters or queues gives).
 *
 * Long replies (flow stats, many ports) are produced by a cursor, one message of at most
 * --mp-limit bytes (default EMU_OFP_MP_LIMIT; up to 65,535, parts as full as OVS's) at a time with OFPMPF_REPLY_MORE on all but the last, and only
 * while the connection's tx queue has room for a whole message: emu_conn.c calls
 * emu_mp_continue() as the queue drains, and reads nothing from the controller until
 * the reply is complete, so the tables cannot change under the cursor.
 * Called by the agent (emu_mp_request) and emu_conn.c (emu_mp_continue).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu.h"
#include "emu_oxm.h"

struct emu_mp {
    uint32_t xid;
    uint16_t type;
    uint16_t table;      /* FLOW: table being walked */
    uint16_t table_end;  /* FLOW: one past the last table */
    uint32_t pos;        /* FLOW: flow index; PORT_*, TABLE: entry index */
    uint32_t end;        /* PORT_*, TABLE: one past the last entry */
    struct emu_ft_filter flt;
    uint8_t match[];     /* the filter's normalised match */
};

void emu_mp_free(struct emu_sw *sw)
{
    free(sw->mp);
    sw->mp = NULL;
}

static int reject(struct emu_sw *sw, const struct emu_oferr *e, const uint8_t *msg,
                  size_t len)
{
    uint32_t gen = sw->conn_gen;
    emu_agent_send_error(sw, e->type, e->code, msg, len);
    return sw->conn_gen == gen && sw->cs == EMU_CS_OPEN ? 0 : -EPIPE;
}

static int send_part(struct emu_sw *sw, struct emu_wr *w, size_t start)
{
    if (emu_wr_msg_end(w, start))
        return -EMSGSIZE;
    sw->ctx->st.mp_reply_msgs++;
    if (w->len - start > sw->ctx->st.mp_reply_max_len)
        sw->ctx->st.mp_reply_max_len = (uint32_t)(w->len - start);
    return emu_conn_send_wr(sw, w);
}

static void fill_desc(const struct emu_sw *sw, struct emu_ofp_desc *d)
{
    memset(d, 0, sizeof(*d));
    snprintf(d->mfr, sizeof(d->mfr), "ofcd lab");
    snprintf(d->hw, sizeof(d->hw), "ofswitch-emu emulated OpenFlow 1.3 switch");
    snprintf(d->sw, sizeof(d->sw), "ofswitch-emu 1.0");
    snprintf(d->serial, sizeof(d->serial), "emu-%u", sw->idx + 1);
    snprintf(d->dp, sizeof(d->dp), "emulated switch %u dpid %016llx", sw->idx + 1,
             (unsigned long long)sw->dpid);
}

/* Appends entries to the open part; returns true when entries remain for a next part. */
static bool fill_flows(struct emu_sw *sw, struct emu_wr *w, size_t start)
{
    struct emu_mp *mp = sw->mp;
    uint64_t now = emu_now_ns();
    for (; mp->table < mp->table_end; mp->table++, mp->pos = 0) {
        uint32_t n = emu_ft_table_count(sw->ft, (uint8_t)mp->table);
        for (; mp->pos < n; mp->pos++) {
            const struct emu_ft_flow *f = emu_ft_get(sw->ft, (uint8_t)mp->table, mp->pos);
            if (!emu_ft_filter_match(&mp->flt, f))
                continue;
            size_t need = emu_ofp_flow_stats_len(f->match_len, f->instr_len);
            if (w->len - start + need > sw->ctx->opt.mp_limit && w->len - start > 16)
                return true;
            uint64_t age = now - f->installed_ns;
            struct emu_ofp_flow_stats fs = {
                .table_id = (uint8_t)mp->table,
                .duration_sec = (uint32_t)(age / EMU_NS_PER_SEC),
                .duration_nsec = (uint32_t)(age % EMU_NS_PER_SEC),
                .priority = f->priority,
                .idle_timeout = f->idle_timeout,
                .hard_timeout = f->hard_timeout,
                .flags = f->flags,
                .cookie = f->cookie,
                .packet_count = f->packet_count,
                .byte_count = f->byte_count,
                .oxm = emu_ft_flow_match(f),
                .oxm_len = f->match_len,
                .instr = emu_ft_flow_instr(f),
                .instr_len = f->instr_len,
            };
            emu_ofp_enc_flow_stats(w, &fs);
        }
    }
    return false;
}

static bool fill_ports(struct emu_sw *sw, struct emu_wr *w, size_t start)
{
    struct emu_mp *mp = sw->mp;
    size_t each = mp->type == EMU_OFPMP_PORT_DESC ? EMU_OFP_PORT_LEN : EMU_OFP_PORT_STATS_LEN;
    uint64_t age = emu_now_ns() - sw->ctx->st.t_start_ns;
    for (; mp->pos < mp->end; mp->pos++) {
        if (w->len - start + each > sw->ctx->opt.mp_limit)
            return true;
        if (mp->type == EMU_OFPMP_PORT_DESC) {
            struct emu_ofp_port p;
            emu_agent_port_desc(sw, mp->pos, &p);
            emu_ofp_enc_port(w, &p);
            continue;
        }
        const struct emu_port *ep = &sw->ports[mp->pos];
        struct emu_ofp_port_stats s = {
            .port_no = mp->pos + 1,
            .rx_packets = ep->rx_packets,
            .tx_packets = ep->tx_packets,
            .rx_bytes = ep->rx_bytes,
            .tx_bytes = ep->tx_bytes,
            .duration_sec = (uint32_t)(age / EMU_NS_PER_SEC),
            .duration_nsec = (uint32_t)(age % EMU_NS_PER_SEC),
        };
        emu_ofp_enc_port_stats(w, &s);
    }
    return false;
}

static bool fill_tables(struct emu_sw *sw, struct emu_wr *w, size_t start)
{
    struct emu_mp *mp = sw->mp;
    for (; mp->pos < mp->end; mp->pos++) {
        if (w->len - start + EMU_OFP_TABLE_STATS_LEN > sw->ctx->opt.mp_limit)
            return true;
        /* Every generated packet_in is a table-0 lookup that missed. */
        struct emu_ofp_table_stats t = {
            .table_id = (uint8_t)mp->pos,
            .active_count = emu_ft_table_count(sw->ft, (uint8_t)mp->pos),
            .lookup_count = mp->pos == 0 ? sw->lookups : 0,
            .matched_count = 0,
        };
        emu_ofp_enc_table_stats(w, &t);
    }
    return false;
}

void emu_mp_continue(struct emu_sw *sw)
{
    while (sw->mp && emu_conn_room_mp(sw)) {
        struct emu_mp *mp = sw->mp;
        struct emu_wr w;
        emu_wr_init(&w, sw->ctx->txbuf, EMU_TXBUF_LEN);
        size_t start = emu_ofp_enc_mp_begin(&w, EMU_OFPT_MULTIPART_REPLY, mp->xid, mp->type, 0);
        bool more;
        if (mp->type == EMU_OFPMP_FLOW)
            more = fill_flows(sw, &w, start);
        else if (mp->type == EMU_OFPMP_TABLE)
            more = fill_tables(sw, &w, start);
        else
            more = fill_ports(sw, &w, start);
        if (more)
            emu_wr_patch_u16(&w, start + 10, EMU_OFPMPF_MORE);
        if (!more)
            emu_mp_free(sw);
        uint32_t gen = sw->conn_gen;
        if (send_part(sw, &w, start) || sw->conn_gen != gen)
            return;
    }
}

static int start_cursor(struct emu_sw *sw, uint32_t xid, uint16_t type, uint32_t pos,
                        uint32_t end, const struct emu_ft_filter *flt)
{
    size_t mlen = flt ? flt->match_len : 0;
    struct emu_mp *mp = calloc(1, sizeof(*mp) + mlen + 1);
    if (!mp) {
        emu_conn_close(sw, EMU_DISC_NO_MEMORY);
        return -EPIPE;
    }
    mp->xid = xid;
    mp->type = type;
    mp->pos = pos;
    mp->end = end;
    if (flt) {
        mp->flt = *flt;
        memcpy(mp->match, flt->match, mlen);
        mp->flt.match = mp->match;
        mp->table = flt->table_id == EMU_OFPTT_ALL ? 0 : flt->table_id;
        mp->table_end = flt->table_id == EMU_OFPTT_ALL ? sw->ctx->opt.n_tables
                                                       : (uint16_t)(flt->table_id + 1);
    }
    sw->mp = mp;
    uint32_t gen = sw->conn_gen;
    emu_mp_continue(sw);
    return sw->conn_gen == gen && sw->cs == EMU_CS_OPEN ? 0 : -EPIPE;
}

/* Decodes a FLOW/AGGREGATE request into a filter whose match is in ctx->mbuf. */
static int flow_filter(struct emu_sw *sw, const struct emu_ofp_mp *mp, struct emu_ft_filter *f,
                       struct emu_oferr *err)
{
    struct emu_ofp_flow_stats_req q;
    size_t mlen;
    if (emu_ofp_dec_flow_stats_req(mp->body, mp->body_len, &q, err))
        return -EBADMSG;
    if (q.table_id != EMU_OFPTT_ALL && q.table_id >= sw->ctx->opt.n_tables) {
        *err = (struct emu_oferr){EMU_OFPET_BAD_REQUEST, EMU_OFPBRC_BAD_TABLE_ID};
        return -EBADMSG;
    }
    if (emu_oxm_normalise(q.oxm, q.oxm_len, sw->ctx->mbuf, EMU_OFP_MAX_MSG, &mlen, err))
        return -EBADMSG;
    *f = (struct emu_ft_filter){
        .table_id = q.table_id,
        .strict = false,
        .out_port = q.out_port,
        .out_group = q.out_group,
        .cookie = q.cookie,
        .cookie_mask = q.cookie_mask,
        .match = sw->ctx->mbuf,
        .match_len = mlen,
    };
    return 0;
}

static int reply_aggregate(struct emu_sw *sw, uint32_t xid, const struct emu_ft_filter *flt)
{
    struct emu_ofp_aggregate a = {0};
    unsigned lo = flt->table_id == EMU_OFPTT_ALL ? 0 : flt->table_id;
    unsigned hi = flt->table_id == EMU_OFPTT_ALL ? sw->ctx->opt.n_tables : lo + 1;
    for (unsigned t = lo; t < hi; t++) {
        uint32_t n = emu_ft_table_count(sw->ft, (uint8_t)t);
        for (uint32_t i = 0; i < n; i++) {
            const struct emu_ft_flow *f = emu_ft_get(sw->ft, (uint8_t)t, i);
            if (!emu_ft_filter_match(flt, f))
                continue;
            a.flow_count++;
            a.packet_count += f->packet_count;
            a.byte_count += f->byte_count;
        }
    }
    struct emu_wr w;
    emu_wr_init(&w, sw->ctx->txbuf, EMU_TXBUF_LEN);
    size_t start = emu_ofp_enc_mp_begin(&w, EMU_OFPT_MULTIPART_REPLY, xid, EMU_OFPMP_AGGREGATE, 0);
    emu_ofp_enc_aggregate(&w, &a);
    uint32_t gen = sw->conn_gen;
    send_part(sw, &w, start);
    return sw->conn_gen == gen && sw->cs == EMU_CS_OPEN ? 0 : -EPIPE;
}

static int reply_single(struct emu_sw *sw, uint32_t xid, uint16_t type, bool desc)
{
    struct emu_wr w;
    emu_wr_init(&w, sw->ctx->txbuf, EMU_TXBUF_LEN);
    size_t start = emu_ofp_enc_mp_begin(&w, EMU_OFPT_MULTIPART_REPLY, xid, type, 0);
    if (desc) {
        struct emu_ofp_desc d;
        fill_desc(sw, &d);
        emu_ofp_enc_desc(&w, &d);
    }
    uint32_t gen = sw->conn_gen;
    send_part(sw, &w, start);
    return sw->conn_gen == gen && sw->cs == EMU_CS_OPEN ? 0 : -EPIPE;
}

int emu_mp_request(struct emu_sw *sw, const uint8_t *msg, size_t len)
{
    struct emu_ofp_mp mp;
    struct emu_oferr err;
    uint32_t xid = emu_get32(msg + 4);
    if (emu_ofp_dec_mp(msg, len, &mp, &err))
        return reject(sw, &err, msg, len);
    if (sw->mp || (mp.flags & EMU_OFPMPF_MORE)) {
        /* No request type we serve needs more than one part. */
        err = (struct emu_oferr){EMU_OFPET_BAD_REQUEST, EMU_OFPBRC_BAD_MULTIPART};
        return reject(sw, &err, msg, len);
    }
    bool empty_body = mp.body_len == 0;
    struct emu_oferr bad_len = {EMU_OFPET_BAD_REQUEST, EMU_OFPBRC_BAD_LEN};
    struct emu_ft_filter flt;
    uint32_t port;
    switch (mp.type) {
    case EMU_OFPMP_DESC:
        return empty_body ? reply_single(sw, xid, mp.type, true) : reject(sw, &bad_len, msg, len);
    case EMU_OFPMP_FLOW:
        if (flow_filter(sw, &mp, &flt, &err))
            return reject(sw, &err, msg, len);
        return start_cursor(sw, xid, mp.type, 0, 0, &flt);
    case EMU_OFPMP_AGGREGATE:
        if (flow_filter(sw, &mp, &flt, &err))
            return reject(sw, &err, msg, len);
        return reply_aggregate(sw, xid, &flt);
    case EMU_OFPMP_TABLE:
        if (!empty_body)
            return reject(sw, &bad_len, msg, len);
        return start_cursor(sw, xid, mp.type, 0, sw->ctx->opt.n_tables, NULL);
    case EMU_OFPMP_PORT_DESC:
        if (!empty_body)
            return reject(sw, &bad_len, msg, len);
        return start_cursor(sw, xid, mp.type, 0, sw->ctx->opt.n_ports, NULL);
    case EMU_OFPMP_PORT_STATS:
        if (emu_ofp_dec_port_req(mp.body, mp.body_len, &port, &err))
            return reject(sw, &err, msg, len);
        if (port == EMU_OFPP_ANY)
            return start_cursor(sw, xid, mp.type, 0, sw->ctx->opt.n_ports, NULL);
        if (port == 0 || port > sw->ctx->opt.n_ports) {
            err = (struct emu_oferr){EMU_OFPET_BAD_REQUEST, EMU_OFPBRC_BAD_PORT};
            return reject(sw, &err, msg, len);
        }
        return start_cursor(sw, xid, mp.type, port - 1, port, NULL);
    case EMU_OFPMP_QUEUE:
    case EMU_OFPMP_GROUP:
    case EMU_OFPMP_GROUP_DESC:
    case EMU_OFPMP_METER:
    case EMU_OFPMP_METER_CONFIG:
        return reply_single(sw, xid, mp.type, false);
    default:
        err = (struct emu_oferr){EMU_OFPET_BAD_REQUEST, EMU_OFPBRC_BAD_MULTIPART};
        return reject(sw, &err, msg, len);
    }
}
