/*
 * emu_agent.c - the OpenFlow agent of one emulated switch: what it does with each
 * message the controller sends, the HELLO/FEATURES handshake, and its own echo probe.
 *
 * emu_conn.c frames the stream and calls emu_agent_on_msg() once per message; the
 * dispatch table below names a handler per message type.  Handlers answer through
 * emu_conn_send() and reject with OFPT_ERROR as a real switch would (the codes are in
 * each handler).  Multipart requests go to emu_mp.c, packet_in answers to emu_load.c.
 *
 * Handshake time (reported by emu_report.c) runs from connect() (or accept() in listen
 * mode) until the first controller message, other than HELLO, ECHO_*, ERROR or
 * FEATURES_REQUEST, that the switch processes after it has queued its FEATURES_REPLY:
 * typically the controller's SET_CONFIG or its first multipart request or FLOW_MOD.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu.h"
#include "emu_wire.h"
#include "emu_oxm.h"

#define OFP_DEFAULT_MISS_SEND_LEN 128
#define ROLE_EQUAL 1
#define ROLE_MASTER 2
#define ROLE_STALE_CODE 0

typedef int (*handler_fn)(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg);

static int flow_removed_send(struct emu_sw *sw, uint8_t table_id, const struct emu_ft_flow *f,
                             uint8_t reason, uint64_t now);

uint32_t emu_agent_next_xid(struct emu_sw *sw)
{
    uint32_t x = sw->next_xid++;
    if (sw->next_xid == 0)
        sw->next_xid = 1;
    return x;
}

static bool is_open(const struct emu_sw *sw)
{
    return sw->cs == EMU_CS_OPEN;
}

/* Encodes with `w` into the shared scratch buffer. */
static void wr_scratch(struct emu_sw *sw, struct emu_wr *w)
{
    emu_wr_init(w, sw->ctx->txbuf, EMU_TXBUF_LEN);
}

int emu_agent_send_error(struct emu_sw *sw, uint16_t type, uint16_t code, const uint8_t *msg,
                         size_t len)
{
    struct emu_ctx *ctx = sw->ctx;
    struct emu_wr w;
    wr_scratch(sw, &w);
    uint32_t xid = len >= EMU_OFP_HDR_LEN ? emu_get32(msg + 4) : 0;
    emu_ofp_enc_error(&w, xid, type, code, msg, len);
    emu_count_err(ctx->st.err_sent, &ctx->st.err_sent_other, type, code);
    return emu_conn_send_wr(sw, &w);
}

static int send_oferr(struct emu_sw *sw, const struct emu_oferr *e, const uint8_t *msg)
{
    return emu_agent_send_error(sw, e->type, e->code, msg, emu_get16(msg + 2));
}

/* 0 when still open: what handlers return after sending. */
static int sent(struct emu_sw *sw, uint32_t gen)
{
    return sw->conn_gen == gen && is_open(sw) ? 0 : -EPIPE;
}

/* ---- ports ------------------------------------------------------------------------- */

void emu_agent_host_mac(uint64_t dpid, uint32_t port_no, uint8_t mac[6])
{
    mac[0] = 0x0a; /* locally administered, unicast */
    mac[1] = (uint8_t)(dpid >> 16);
    mac[2] = (uint8_t)(dpid >> 8);
    mac[3] = (uint8_t)dpid;
    mac[4] = (uint8_t)(port_no >> 8);
    mac[5] = (uint8_t)port_no;
}

void emu_agent_port_desc(const struct emu_sw *sw, uint32_t port_idx, struct emu_ofp_port *p)
{
    const struct emu_port *ep = &sw->ports[port_idx];
    uint32_t no = port_idx + 1;
    memset(p, 0, sizeof(*p));
    p->port_no = no;
    emu_agent_host_mac(sw->dpid, no, p->hw_addr);
    p->hw_addr[0] = 0x02;
    snprintf(p->name, sizeof(p->name), "s%u-eth%u", sw->idx + 1, no);
    p->config = ep->config;
    bool up = !(ep->state & EMU_OFPPS_LINK_DOWN) && !(ep->config & EMU_OFPPC_PORT_DOWN);
    p->state = (ep->state & EMU_OFPPS_LINK_DOWN) | (up ? EMU_OFPPS_LIVE : 0);
    p->curr = EMU_OFPPF_10GB_FD | EMU_OFPPF_COPPER;
    p->advertised = p->curr;
    p->supported = EMU_OFPPF_1GB_FD | EMU_OFPPF_10GB_FD | EMU_OFPPF_COPPER;
    p->peer = p->curr;
    p->curr_speed = 10000000; /* kbps */
    p->max_speed = 10000000;
}

/* ---- lifecycle --------------------------------------------------------------------- */

static void echo_timer(struct emu_timer *t, uint64_t now);

int emu_agent_init(struct emu_sw *sw)
{
    const struct emu_opts *o = &sw->ctx->opt;
    sw->ports = calloc(o->n_ports, sizeof(*sw->ports));
    sw->ft = emu_ft_new(o->n_tables, o->table_size);
    if (!sw->ports || !sw->ft)
        return -ENOMEM;
    emu_timer_init(&sw->t_echo, echo_timer);
    emu_attack_init(sw);
    return emu_load_init(sw);
}

void emu_agent_free(struct emu_sw *sw)
{
    emu_timer_cancel(&sw->ctx->loop, &sw->t_echo);
    emu_mp_free(sw);
    emu_load_free(sw);
    emu_ft_free(sw->ft);
    sw->ft = NULL;
    free(sw->ports);
    sw->ports = NULL;
}

void emu_agent_on_open(struct emu_sw *sw)
{
    struct emu_ctx *ctx = sw->ctx;
    const struct emu_opts *o = &ctx->opt;
    sw->flags &= EMU_SWF_EVER_HS | EMU_SWF_DIRTY;
    sw->next_xid = 1;
    sw->miss_send_len = OFP_DEFAULT_MISS_SEND_LEN;
    sw->cfg_flags = 0;
    sw->role = ROLE_EQUAL;
    sw->generation_id = 0;
    /* OF1.3 defaults (spec A.3.9): master/equal get packet_in, port status and flow
     * removed; slaves only port status. */
    sw->async = (struct emu_ofp_async){
        .packet_in_mask = {0x3, 0x0},
        .port_status_mask = {0x7, 0x7},
        .flow_removed_mask = {0xf, 0x0},
    };
    if (emu_attack_on_open(sw))
        return;
    uint32_t gen = sw->conn_gen;
    struct emu_wr w;
    wr_scratch(sw, &w);
    emu_ofp_enc_hello(&w, emu_agent_next_xid(sw), 1u << EMU_OFP_VERSION);
    if (emu_conn_send_wr(sw, &w) || sw->conn_gen != gen)
        return;
    uint64_t now = emu_now_ns();
    if (o->echo_interval_ms)
        emu_timer_arm(&ctx->loop, &sw->t_echo, now + o->echo_interval_ms * EMU_NS_PER_MS);
    if (o->reconnect_ms)
        emu_timer_arm(&ctx->loop, &sw->t_conn, now + o->reconnect_ms * EMU_NS_PER_MS);
}

void emu_agent_on_close(struct emu_sw *sw)
{
    struct emu_ctx *ctx = sw->ctx;
    emu_timer_cancel(&ctx->loop, &sw->t_echo);
    emu_attack_on_close(sw);
    if (sw->flags & EMU_SWF_HANDSHAKED)
        ctx->st.handshaked_now--;
    sw->flags &= EMU_SWF_EVER_HS | EMU_SWF_DIRTY;
    emu_mp_free(sw);
}

static void mark_handshake(struct emu_sw *sw)
{
    struct emu_ctx *ctx = sw->ctx;
    sw->flags |= EMU_SWF_HANDSHAKED;
    ctx->st.handshakes++;
    ctx->st.handshaked_now++;
    emu_hist_add(&ctx->st.handshake, emu_now_ns() - sw->t_conn_start);
    if (!(sw->flags & EMU_SWF_EVER_HS)) {
        sw->flags |= EMU_SWF_EVER_HS;
        ctx->st.switches_handshaked++;
    }
    sw->backoff_ms = 0; /* a working controller resets the backoff */
    emu_load_on_handshake(sw);
    emu_attack_on_handshake(sw);
}

/* ---- echo probe -------------------------------------------------------------------- */

static void echo_timer(struct emu_timer *t, uint64_t now)
{
    struct emu_sw *sw = EMU_CONTAINER_OF(t, struct emu_sw, t_echo);
    struct emu_ctx *ctx = sw->ctx;
    const struct emu_opts *o = &ctx->opt;
    if (!is_open(sw))
        return;
    if (sw->flags & EMU_SWF_ECHO_PENDING) {
        uint64_t deadline = sw->echo_sent_ns + o->echo_timeout_ms * EMU_NS_PER_MS;
        if (o->echo_timeout_ms && now >= deadline) {
            emu_conn_close(sw, EMU_DISC_ECHO_TIMEOUT);
            return;
        }
        /* Still waiting: look again at the deadline (or the next interval if no timeout). */
        uint64_t next = o->echo_timeout_ms ? deadline : now + o->echo_interval_ms * EMU_NS_PER_MS;
        emu_timer_arm(&ctx->loop, t, next);
        return;
    }
    if (!(sw->flags & EMU_SWF_HELLO_RCVD)) {
        emu_timer_arm(&ctx->loop, t, now + o->echo_interval_ms * EMU_NS_PER_MS);
        return;
    }
    uint8_t body[8];
    emu_put64(body, now);
    sw->echo_xid = emu_agent_next_xid(sw);
    sw->echo_sent_ns = now;
    sw->flags |= EMU_SWF_ECHO_PENDING;
    struct emu_wr w;
    wr_scratch(sw, &w);
    emu_ofp_enc_simple(&w, EMU_OFPT_ECHO_REQUEST, sw->echo_xid, body, sizeof(body));
    uint32_t gen = sw->conn_gen;
    if (emu_conn_send_wr(sw, &w) || sw->conn_gen != gen)
        return;
    ctx->st.echo_req_sent++;
    uint32_t wait = o->echo_interval_ms;
    if (o->echo_timeout_ms && o->echo_timeout_ms < wait)
        wait = o->echo_timeout_ms;
    emu_timer_arm(&ctx->loop, t, now + wait * EMU_NS_PER_MS);
}

static int h_echo_reply(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg)
{
    struct emu_ctx *ctx = sw->ctx;
    (void)msg;
    if (!(sw->flags & EMU_SWF_ECHO_PENDING) || h->xid != sw->echo_xid)
        return 0; /* not ours, or late: nothing to measure */
    uint64_t now = emu_now_ns();
    sw->flags &= (uint16_t)~EMU_SWF_ECHO_PENDING;
    ctx->st.echo_rep_rcvd++;
    emu_hist_add(&ctx->st.echo_rtt, now - sw->echo_sent_ns);
    if (ctx->opt.echo_interval_ms)
        emu_timer_arm(&ctx->loop, &sw->t_echo,
                      sw->echo_sent_ns + ctx->opt.echo_interval_ms * EMU_NS_PER_MS);
    return 0;
}

static int h_echo_request(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg)
{
    struct emu_wr w;
    uint32_t gen = sw->conn_gen;
    wr_scratch(sw, &w);
    emu_ofp_enc_simple(&w, EMU_OFPT_ECHO_REPLY, h->xid, msg + EMU_OFP_HDR_LEN,
                       h->length - EMU_OFP_HDR_LEN);
    emu_conn_send_wr(sw, &w);
    sw->ctx->st.echo_req_answered++;
    return sent(sw, gen);
}

/* ---- simple requests --------------------------------------------------------------- */

static int bad_len(struct emu_sw *sw, const uint8_t *msg)
{
    uint32_t gen = sw->conn_gen;
    emu_agent_send_error(sw, EMU_OFPET_BAD_REQUEST, EMU_OFPBRC_BAD_LEN, msg, emu_get16(msg + 2));
    return sent(sw, gen);
}

static int reply_simple(struct emu_sw *sw, uint8_t type, uint32_t xid)
{
    struct emu_wr w;
    uint32_t gen = sw->conn_gen;
    wr_scratch(sw, &w);
    emu_ofp_enc_simple(&w, type, xid, NULL, 0);
    emu_conn_send_wr(sw, &w);
    return sent(sw, gen);
}

static int h_hello(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg)
{
    (void)sw, (void)h, (void)msg;
    return 0; /* a second HELLO changes nothing */
}

static int h_error(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg)
{
    struct emu_ctx *ctx = sw->ctx;
    struct emu_ofp_error e;
    if (emu_ofp_dec_error(msg, h->length, &e))
        return 0;
    emu_count_err(ctx->st.err_rcvd, &ctx->st.err_rcvd_other, e.type, e.code);
    if (e.type == EMU_OFPET_HELLO_FAILED) {
        emu_conn_close(sw, EMU_DISC_HELLO_FAILED);
        return -EPIPE;
    }
    return 0;
}

static int h_experimenter(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg)
{
    uint32_t gen = sw->conn_gen;
    emu_agent_send_error(sw, EMU_OFPET_BAD_REQUEST, EMU_OFPBRC_BAD_EXPERIMENTER, msg, h->length);
    return sent(sw, gen);
}

static int h_bad_type(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg)
{
    uint32_t gen = sw->conn_gen;
    emu_agent_send_error(sw, EMU_OFPET_BAD_REQUEST, EMU_OFPBRC_BAD_TYPE, msg, h->length);
    return sent(sw, gen);
}

static int h_features(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg)
{
    const struct emu_opts *o = &sw->ctx->opt;
    if (h->length != EMU_OFP_HDR_LEN)
        return bad_len(sw, msg);
    struct emu_ofp_features f = {
        .dpid = sw->dpid,
        .n_buffers = o->n_buffers,
        .n_tables = o->n_tables,
        .aux_id = 0,
        .capabilities = EMU_OFPC_FLOW_STATS | EMU_OFPC_TABLE_STATS | EMU_OFPC_PORT_STATS,
    };
    struct emu_wr w;
    uint32_t gen = sw->conn_gen;
    wr_scratch(sw, &w);
    emu_ofp_enc_features_reply(&w, h->xid, &f);
    if (emu_conn_send_wr(sw, &w) == 0)
        sw->flags |= EMU_SWF_FEATURES_SENT;
    return sent(sw, gen);
}

static int h_get_config(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg)
{
    if (h->length != EMU_OFP_HDR_LEN)
        return bad_len(sw, msg);
    struct emu_ofp_config c = {.flags = sw->cfg_flags, .miss_send_len = sw->miss_send_len};
    struct emu_wr w;
    uint32_t gen = sw->conn_gen;
    wr_scratch(sw, &w);
    emu_ofp_enc_config(&w, EMU_OFPT_GET_CONFIG_REPLY, h->xid, &c);
    emu_conn_send_wr(sw, &w);
    return sent(sw, gen);
}

static int h_set_config(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg)
{
    struct emu_ofp_config c;
    struct emu_oferr err;
    uint32_t gen = sw->conn_gen;
    if (emu_ofp_dec_config(msg, h->length, &c, &err)) {
        send_oferr(sw, &err, msg);
        return sent(sw, gen);
    }
    if (c.flags & ~EMU_OFPC_FRAG_MASK) {
        emu_agent_send_error(sw, EMU_OFPET_SWITCH_CONFIG_FAILED, EMU_OFPSCFC_BAD_FLAGS, msg,
                             h->length);
        return sent(sw, gen);
    }
    sw->cfg_flags = c.flags;
    sw->miss_send_len = c.miss_send_len;
    return 0;
}

static int h_barrier(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg)
{
    if (h->length != EMU_OFP_HDR_LEN)
        return bad_len(sw, msg);
    /* Messages are applied in order as they arrive, so everything before is done. */
    sw->ctx->st.barriers++;
    return reply_simple(sw, EMU_OFPT_BARRIER_REPLY, h->xid);
}

static int h_multipart(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg)
{
    (void)h;
    sw->ctx->st.mp_requests++;
    return emu_mp_request(sw, msg, h->length);
}

static int h_role(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg)
{
    struct emu_ofp_role ro;
    struct emu_oferr err;
    uint32_t gen = sw->conn_gen;
    if (emu_ofp_dec_role(msg, h->length, &ro, &err)) {
        send_oferr(sw, &err, msg);
        return sent(sw, gen);
    }
    if (ro.role > EMU_OFPCR_ROLE_SLAVE) {
        emu_agent_send_error(sw, EMU_OFPET_ROLE_REQUEST_FAILED, EMU_OFPRRFC_BAD_ROLE, msg,
                             h->length);
        return sent(sw, gen);
    }
    if (ro.role == ROLE_MASTER || ro.role == EMU_OFPCR_ROLE_SLAVE) {
        if ((sw->flags & EMU_SWF_GEN_SET) && (int64_t)(ro.generation_id - sw->generation_id) < 0) {
            emu_agent_send_error(sw, EMU_OFPET_ROLE_REQUEST_FAILED, ROLE_STALE_CODE, msg,
                                 h->length);
            return sent(sw, gen);
        }
        sw->generation_id = ro.generation_id;
        sw->flags |= EMU_SWF_GEN_SET;
    }
    if (ro.role != EMU_OFPCR_ROLE_NOCHANGE)
        sw->role = ro.role;
    struct emu_ofp_role rep = {.role = sw->role, .generation_id = sw->generation_id};
    struct emu_wr w;
    wr_scratch(sw, &w);
    emu_ofp_enc_role(&w, EMU_OFPT_ROLE_REPLY, h->xid, &rep);
    emu_conn_send_wr(sw, &w);
    return sent(sw, gen);
}

static int h_get_async(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg)
{
    if (h->length != EMU_OFP_HDR_LEN)
        return bad_len(sw, msg);
    struct emu_wr w;
    uint32_t gen = sw->conn_gen;
    wr_scratch(sw, &w);
    emu_ofp_enc_async(&w, EMU_OFPT_GET_ASYNC_REPLY, h->xid, &sw->async);
    emu_conn_send_wr(sw, &w);
    return sent(sw, gen);
}

static int h_set_async(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg)
{
    struct emu_oferr err;
    struct emu_ofp_async a;
    uint32_t gen = sw->conn_gen;
    if (emu_ofp_dec_async(msg, h->length, &a, &err)) {
        send_oferr(sw, &err, msg);
        return sent(sw, gen);
    }
    sw->async = a;
    return 0;
}

static int h_table_mod(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg)
{
    if (h->length != 16)
        return bad_len(sw, msg);
    uint8_t table = msg[8];
    if (table != EMU_OFPTT_ALL && table >= sw->ctx->opt.n_tables) {
        uint32_t gen = sw->conn_gen;
        emu_agent_send_error(sw, EMU_OFPET_TABLE_MOD_FAILED, EMU_OFPTMFC_BAD_TABLE, msg,
                             h->length);
        return sent(sw, gen);
    }
    return 0; /* table config is deprecated in 1.3: nothing to change */
}

static int h_queue_get_config(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg)
{
    if (h->length != 16)
        return bad_len(sw, msg);
    uint32_t port = emu_get32(msg + 8);
    uint32_t gen = sw->conn_gen;
    if (port != EMU_OFPP_ANY && (port == 0 || port > sw->ctx->opt.n_ports)) {
        emu_agent_send_error(sw, EMU_OFPET_QUEUE_OP_FAILED, EMU_OFPQOFC_BAD_PORT, msg, h->length);
        return sent(sw, gen);
    }
    struct emu_wr w;
    wr_scratch(sw, &w);
    size_t start = emu_wr_msg_begin(&w, EMU_OFPT_QUEUE_GET_CONFIG_REPLY, h->xid);
    emu_wr_u32(&w, port);
    emu_wr_zero(&w, 4); /* and no queues */
    emu_wr_msg_end(&w, start);
    emu_conn_send_wr(sw, &w);
    return sent(sw, gen);
}

static int h_port_mod(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg)
{
    struct emu_ofp_port_mod pm;
    struct emu_oferr err;
    uint32_t gen = sw->conn_gen;
    if (emu_ofp_dec_port_mod(msg, h->length, &pm, &err)) {
        send_oferr(sw, &err, msg);
        return sent(sw, gen);
    }
    if (pm.port_no == 0 || pm.port_no > sw->ctx->opt.n_ports) {
        emu_agent_send_error(sw, EMU_OFPET_PORT_MOD_FAILED, EMU_OFPPMFC_BAD_PORT, msg, h->length);
        return sent(sw, gen);
    }
    struct emu_ofp_port desc;
    emu_agent_port_desc(sw, pm.port_no - 1, &desc);
    if (memcmp(desc.hw_addr, pm.hw_addr, 6) != 0) {
        emu_agent_send_error(sw, EMU_OFPET_PORT_MOD_FAILED, EMU_OFPPMFC_BAD_HW_ADDR, msg,
                             h->length);
        return sent(sw, gen);
    }
    struct emu_port *p = &sw->ports[pm.port_no - 1];
    uint32_t mask = pm.mask & EMU_OFPPC_ALL;
    uint32_t cfg = (p->config & ~mask) | (pm.config & mask);
    if (cfg == p->config)
        return 0;
    p->config = cfg;
    /* A real switch reports its own configuration change. */
    emu_agent_port_desc(sw, pm.port_no - 1, &desc);
    struct emu_wr w;
    wr_scratch(sw, &w);
    emu_ofp_enc_port_status(&w, 0, EMU_OFPPR_MODIFY, &desc);
    if (emu_conn_send_wr(sw, &w) == 0)
        sw->ctx->st.port_status_sent++;
    return sent(sw, gen);
}

/* ---- FLOW_MOD and PACKET_OUT ------------------------------------------------------- */

static void removed_cb(void *arg, uint8_t table_id, const struct emu_ft_flow *f, uint8_t reason,
                       uint64_t now)
{
    (void)flow_removed_send((struct emu_sw *)arg, table_id, f, reason, now);
}

static int flow_removed_send(struct emu_sw *sw, uint8_t table_id, const struct emu_ft_flow *f,
                             uint8_t reason, uint64_t now)
{
    if (!(f->flags & EMU_OFPFF_SEND_FLOW_REM) || !is_open(sw) ||
        !(sw->flags & EMU_SWF_HELLO_RCVD))
        return 0;
    unsigned slave = sw->role == EMU_OFPCR_ROLE_SLAVE;
    if (!(sw->async.flow_removed_mask[slave] & (1u << reason)))
        return 0;
    uint64_t age = now - f->installed_ns;
    struct emu_ofp_flow_removed fr = {
        .cookie = f->cookie,
        .priority = f->priority,
        .reason = reason,
        .table_id = table_id,
        .duration_sec = (uint32_t)(age / EMU_NS_PER_SEC),
        .duration_nsec = (uint32_t)(age % EMU_NS_PER_SEC),
        .idle_timeout = f->idle_timeout,
        .hard_timeout = f->hard_timeout,
        .packet_count = f->packet_count,
        .byte_count = f->byte_count,
        .oxm = emu_ft_flow_match(f),
        .oxm_len = f->match_len,
    };
    struct emu_wr w;
    wr_scratch(sw, &w);
    emu_ofp_enc_flow_removed(&w, 0, &fr);
    int rc = emu_conn_send_wr(sw, &w);
    if (rc == 0)
        sw->ctx->st.flows_removed_sent++;
    return rc;
}

void emu_agent_expire(struct emu_sw *sw, uint64_t now_ns)
{
    if (sw->mp)
        return; /* a flow stats reply in progress walks the tables by index */
    emu_ft_expire(sw->ft, now_ns, removed_cb, sw);
}

static struct emu_ofp_limits limits(const struct emu_sw *sw)
{
    return (struct emu_ofp_limits){.n_tables = sw->ctx->opt.n_tables,
                                   .n_ports = sw->ctx->opt.n_ports};
}

static int h_flow_mod(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg)
{
    struct emu_ctx *ctx = sw->ctx;
    struct emu_ofp_flow_mod fm;
    struct emu_oferr err;
    uint32_t gen = sw->conn_gen;
    ctx->st.flow_mods++;
    sw->flow_mods++;
    size_t mlen = 0;
    if (emu_ofp_dec_flow_mod(msg, h->length, &fm, &err) ||
        emu_oxm_normalise(fm.oxm, fm.oxm_len, ctx->mbuf, EMU_OFP_MAX_MSG, &mlen, &err))
        goto reject;
    bool adds = fm.command == EMU_OFPFC_ADD || fm.command == EMU_OFPFC_MODIFY ||
                fm.command == EMU_OFPFC_MODIFY_STRICT;
    struct emu_ofp_limits lim = limits(sw);
    if (adds && fm.table_id < lim.n_tables &&
        emu_ofp_check_instructions(fm.instr, fm.instr_len, fm.table_id, &lim, &err))
        goto reject;
    struct emu_ft_mod m = {
        .command = fm.command,
        .table_id = fm.table_id,
        .priority = fm.priority,
        .idle_timeout = fm.idle_timeout,
        .hard_timeout = fm.hard_timeout,
        .flags = fm.flags,
        .cookie = fm.cookie,
        .cookie_mask = fm.cookie_mask,
        .out_port = fm.out_port,
        .out_group = fm.out_group,
        .match = ctx->mbuf,
        .match_len = mlen,
        .instr = fm.instr,
        .instr_len = fm.instr_len,
    };
    int rc = emu_ft_apply(sw->ft, &m, emu_now_ns(), removed_cb, sw, &err);
    if (sw->conn_gen != gen)
        return -EPIPE;
    if (rc == -EINVAL)
        goto reject;
    if (rc) {
        emu_conn_close(sw, EMU_DISC_NO_MEMORY);
        return -EPIPE;
    }
    if (adds && fm.buffer_id != EMU_OFP_NO_BUFFER) {
        int b = emu_load_buffer_check(sw, fm.buffer_id);
        if (b) {
            emu_agent_send_error(sw, EMU_OFPET_BAD_REQUEST, (uint16_t)b, msg, h->length);
            return sent(sw, gen);
        }
        emu_load_on_response(sw, fm.buffer_id, NULL, 0);
    }
    return sent(sw, gen);
reject:
    ctx->st.flow_mods_failed++;
    send_oferr(sw, &err, msg);
    return sent(sw, gen);
}

static void count_output(struct emu_sw *sw, uint32_t port, uint32_t in_port, size_t bytes)
{
    uint32_t n = sw->ctx->opt.n_ports;
    if (port >= 1 && port <= n) {
        sw->ports[port - 1].tx_packets++;
        sw->ports[port - 1].tx_bytes += bytes;
    } else if (port == 0xfffffffbu || port == 0xfffffffcu) { /* FLOOD, ALL */
        for (uint32_t i = 0; i < n; i++) {
            if (i + 1 == in_port && port == 0xfffffffbu)
                continue;
            sw->ports[i].tx_packets++;
            sw->ports[i].tx_bytes += bytes;
        }
    }
}

/* --wiring: the frame leaves on a wired port and arrives on the peer's,
 * which gives it to its controller (emu_wire.h). */
static void wire_deliver(struct emu_sw *sw, uint32_t port, const uint8_t *data, size_t len)
{
    struct emu_ctx *ctx = sw->ctx;
    uint32_t pi_idx, pi_port;

    if (!ctx->wire || emu_wire_peer(ctx->wire, sw->idx, port, &pi_idx, &pi_port))
        return;
    struct emu_sw *peer = &ctx->sw[pi_idx];
    if (peer->cs != EMU_CS_OPEN || len > 0xffff) {
        ctx->st.wire_lost++;
        return;
    }
    struct emu_ofp_packet_in pi = {.buffer_id = EMU_OFP_NO_BUFFER, .total_len = (uint16_t)len,
                                   .reason = 1 /* OFPR_ACTION */, .table_id = 0,
                                   .cookie = UINT64_MAX, .in_port = pi_port, .data = data,
                                   .data_len = len};
    struct emu_wr w;
    emu_wr_init(&w, ctx->txbuf, EMU_TXBUF_LEN);
    if (emu_ofp_enc_packet_in(&w, 0, &pi) == 0 && emu_conn_send_wr(peer, &w) == 0)
        ctx->st.wire_delivered++;
    else
        ctx->st.wire_lost++;
}

static int h_packet_out(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg)
{
    struct emu_ofp_packet_out po;
    struct emu_oferr err;
    uint32_t gen = sw->conn_gen;
    struct emu_ofp_limits lim = limits(sw);
    if (emu_ofp_dec_packet_out(msg, h->length, &po, &err))
        goto reject;
    bool port_ok = (po.in_port >= 1 && po.in_port <= lim.n_ports) ||
                   po.in_port == EMU_OFPP_CONTROLLER || po.in_port == EMU_OFPP_LOCAL ||
                   po.in_port == EMU_OFPP_ANY;
    if (!port_ok) {
        err = (struct emu_oferr){EMU_OFPET_BAD_REQUEST, EMU_OFPBRC_BAD_PORT};
        goto reject;
    }
    if (emu_ofp_check_actions(po.actions, po.actions_len, &lim, &err))
        goto reject;
    if (po.buffer_id != EMU_OFP_NO_BUFFER) {
        int b = emu_load_buffer_check(sw, po.buffer_id);
        if (b) {
            err = (struct emu_oferr){EMU_OFPET_BAD_REQUEST, (uint16_t)b};
            goto reject;
        }
    }
    for (size_t off = 0; off + 16 <= po.actions_len; off += emu_get16(po.actions + off + 2)) {
        if (emu_get16(po.actions + off) == EMU_OFPAT_OUTPUT) {
            count_output(sw, emu_get32(po.actions + off + 4), po.in_port, po.data_len);
            if (po.buffer_id == EMU_OFP_NO_BUFFER)
                wire_deliver(sw, emu_get32(po.actions + off + 4), po.data, po.data_len);
        }
    }
    emu_load_on_response(sw, po.buffer_id, po.data, po.data_len);
    return sent(sw, gen);
reject:
    send_oferr(sw, &err, msg);
    return sent(sw, gen);
}

/* ---- dispatch ---------------------------------------------------------------------- */

/* Messages a controller in the slave role may not send (spec 6.3.5). */
#define H_SLAVE_DENIED 0x1

static const struct {
    handler_fn fn;
    uint8_t flags;
} handlers[EMU_OFPT_COUNT] = {
    [EMU_OFPT_HELLO] = {h_hello, 0},
    [EMU_OFPT_ERROR] = {h_error, 0},
    [EMU_OFPT_ECHO_REQUEST] = {h_echo_request, 0},
    [EMU_OFPT_ECHO_REPLY] = {h_echo_reply, 0},
    [EMU_OFPT_EXPERIMENTER] = {h_experimenter, 0},
    [EMU_OFPT_FEATURES_REQUEST] = {h_features, 0},
    [EMU_OFPT_FEATURES_REPLY] = {h_bad_type, 0},
    [EMU_OFPT_GET_CONFIG_REQUEST] = {h_get_config, 0},
    [EMU_OFPT_GET_CONFIG_REPLY] = {h_bad_type, 0},
    [EMU_OFPT_SET_CONFIG] = {h_set_config, H_SLAVE_DENIED},
    [EMU_OFPT_PACKET_IN] = {h_bad_type, 0},
    [EMU_OFPT_FLOW_REMOVED] = {h_bad_type, 0},
    [EMU_OFPT_PORT_STATUS] = {h_bad_type, 0},
    [EMU_OFPT_PACKET_OUT] = {h_packet_out, H_SLAVE_DENIED},
    [EMU_OFPT_FLOW_MOD] = {h_flow_mod, H_SLAVE_DENIED},
    /* The emulator has no group or meter tables: it rejects those messages. */
    [EMU_OFPT_GROUP_MOD] = {h_bad_type, H_SLAVE_DENIED},
    [EMU_OFPT_PORT_MOD] = {h_port_mod, H_SLAVE_DENIED},
    [EMU_OFPT_TABLE_MOD] = {h_table_mod, H_SLAVE_DENIED},
    [EMU_OFPT_MULTIPART_REQUEST] = {h_multipart, 0},
    [EMU_OFPT_MULTIPART_REPLY] = {h_bad_type, 0},
    [EMU_OFPT_BARRIER_REQUEST] = {h_barrier, 0},
    [EMU_OFPT_BARRIER_REPLY] = {h_bad_type, 0},
    [EMU_OFPT_QUEUE_GET_CONFIG_REQUEST] = {h_queue_get_config, 0},
    [EMU_OFPT_QUEUE_GET_CONFIG_REPLY] = {h_bad_type, 0},
    [EMU_OFPT_ROLE_REQUEST] = {h_role, 0},
    [EMU_OFPT_ROLE_REPLY] = {h_bad_type, 0},
    [EMU_OFPT_GET_ASYNC_REQUEST] = {h_get_async, 0},
    [EMU_OFPT_GET_ASYNC_REPLY] = {h_bad_type, 0},
    [EMU_OFPT_SET_ASYNC] = {h_set_async, 0},
    [EMU_OFPT_METER_MOD] = {h_bad_type, H_SLAVE_DENIED},
};

static int on_hello(struct emu_sw *sw, const struct emu_ofp_hdr *h, const uint8_t *msg)
{
    struct emu_ctx *ctx = sw->ctx;
    if (h->type == EMU_OFPT_ERROR) {
        h_error(sw, h, msg);
        if (is_open(sw))
            emu_conn_close(sw, EMU_DISC_HELLO_FAILED);
        return -EPIPE;
    }
    bool has_bitmap;
    uint32_t bitmap;
    if (h->type != EMU_OFPT_HELLO || emu_ofp_dec_hello(msg, h->length, &has_bitmap, &bitmap)) {
        emu_conn_close(sw, EMU_DISC_PROTOCOL);
        return -EPIPE;
    }
    /* With a bitmap both sides must list 1.3; without one the highest common version
     * is min(ours, theirs), which must be 1.3 (we speak nothing else). */
    bool ok = has_bitmap ? (bitmap & (1u << EMU_OFP_VERSION)) != 0
                         : h->version >= EMU_OFP_VERSION;
    if (!ok) {
        static const char why[] = "ofswitch-emu speaks OpenFlow 1.3 only";
        struct emu_wr w;
        wr_scratch(sw, &w);
        emu_ofp_enc_error(&w, h->xid, EMU_OFPET_HELLO_FAILED, EMU_OFPHFC_INCOMPATIBLE,
                          (const uint8_t *)why, sizeof(why) - 1);
        emu_count_err(ctx->st.err_sent, &ctx->st.err_sent_other, EMU_OFPET_HELLO_FAILED,
                      EMU_OFPHFC_INCOMPATIBLE);
        if (emu_conn_send_wr(sw, &w) == 0)
            emu_conn_close(sw, EMU_DISC_HELLO_FAILED);
        return -EPIPE;
    }
    sw->flags |= EMU_SWF_HELLO_RCVD;
    return 0;
}

int emu_agent_on_msg(struct emu_sw *sw, const uint8_t *msg, size_t len)
{
    struct emu_ctx *ctx = sw->ctx;
    struct emu_ofp_hdr h;
    if (emu_ofp_parse_hdr(msg, len, &h) || h.length != len) {
        emu_conn_close(sw, EMU_DISC_BAD_FRAMING);
        return -EPIPE;
    }
    ctx->st.rx_msgs[h.type < EMU_OFPT_COUNT ? h.type : EMU_OFPT_COUNT]++;
    if (emu_attack_ignores_input(sw))
        return 0;
    if (!(sw->flags & EMU_SWF_HELLO_RCVD))
        return on_hello(sw, &h, msg);
    uint32_t gen = sw->conn_gen;
    /* An ERROR is counted whatever its version (a controller may answer a bad-version
     * message in that version), and never answered with another ERROR. */
    if (h.type == EMU_OFPT_ERROR)
        return h_error(sw, &h, msg);
    if (h.version != EMU_OFP_VERSION) {
        emu_agent_send_error(sw, EMU_OFPET_BAD_REQUEST, EMU_OFPBRC_BAD_VERSION, msg, len);
        return sent(sw, gen);
    }
    bool completes = (sw->flags & (EMU_SWF_FEATURES_SENT | EMU_SWF_HANDSHAKED)) ==
                         EMU_SWF_FEATURES_SENT &&
                     h.type != EMU_OFPT_HELLO && h.type != EMU_OFPT_ERROR &&
                     h.type != EMU_OFPT_ECHO_REQUEST && h.type != EMU_OFPT_ECHO_REPLY &&
                     h.type != EMU_OFPT_FEATURES_REQUEST;
    int rc;
    if (h.type >= EMU_OFPT_COUNT) {
        rc = h_bad_type(sw, &h, msg);
    } else if ((handlers[h.type].flags & H_SLAVE_DENIED) && sw->role == EMU_OFPCR_ROLE_SLAVE) {
        emu_agent_send_error(sw, EMU_OFPET_BAD_REQUEST, 10 /* OFPBRC_IS_SLAVE */, msg, len);
        rc = sent(sw, gen);
    } else {
        rc = handlers[h.type].fn(sw, &h, msg);
    }
    if (rc || sent(sw, gen))
        return -EPIPE;
    /* Marked after the message took effect, so load starts with e.g. its SET_CONFIG. */
    if (completes)
        mark_handshake(sw);
    emu_attack_on_msg(sw, h.type);
    return sent(sw, gen);
}
