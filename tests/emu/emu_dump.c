/*
 * emu_dump.c - `ofswitch-emu --dump-replies FILE`: switch 1 runs offline (no socket)
 * through a fixed script of controller messages, using the real agent, flow table and
 * multipart code, and every byte it would send is written to FILE.  An independent
 * decoder (`ovs-ofctl ofp-parse FILE`, see ofctl_decode.sh) then checks the encodings:
 * HELLO, FEATURES_REPLY, DESC, PORT_DESC, FLOW/AGGREGATE/TABLE/PORT_STATS replies,
 * GET_CONFIG_REPLY, FLOW_REMOVED, ECHO_REPLY, BARRIER_REPLY, ROLE_REPLY, PACKET_IN and
 * PORT_STATUS.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "emu.h"
#include "emu_oxm.h"

#define DUMP_MSG_MAX 1024

static int feed(struct emu_sw *sw, const struct emu_wr *w)
{
    if (w->overflow)
        return -EMSGSIZE;
    return emu_conn_feed(sw, w->buf, w->len);
}

static int feed_simple(struct emu_sw *sw, uint8_t type, uint32_t xid, const uint8_t *body,
                       size_t len)
{
    uint8_t buf[DUMP_MSG_MAX];
    struct emu_wr w;
    emu_wr_init(&w, buf, sizeof(buf));
    emu_ofp_enc_simple(&w, type, xid, body, len);
    return feed(sw, &w);
}

static int feed_mp(struct emu_sw *sw, uint32_t xid, uint16_t type, const uint8_t *body,
                   size_t len)
{
    uint8_t buf[DUMP_MSG_MAX];
    struct emu_wr w;
    emu_wr_init(&w, buf, sizeof(buf));
    size_t start = emu_ofp_enc_mp_begin(&w, EMU_OFPT_MULTIPART_REQUEST, xid, type, 0);
    emu_wr_bytes(&w, body, len);
    emu_wr_msg_end(&w, start);
    return feed(sw, &w);
}

/* FLOW_MOD whose match is built by `put_match` into a small buffer. */
static int feed_flow_mod(struct emu_sw *sw, uint32_t xid, struct emu_ofp_flow_mod *fm,
                         const struct emu_wr *match, uint32_t out_port)
{
    uint8_t ibuf[64], buf[DUMP_MSG_MAX];
    struct emu_wr iw, w;
    emu_wr_init(&iw, ibuf, sizeof(ibuf));
    if (out_port)
        emu_ofp_enc_instr_output(&iw, out_port);
    fm->oxm = match->buf;
    fm->oxm_len = match->len;
    fm->instr = ibuf;
    fm->instr_len = iw.len;
    emu_wr_init(&w, buf, sizeof(buf));
    emu_ofp_enc_flow_mod(&w, xid, fm);
    return feed(sw, &w);
}

static int script(struct emu_sw *sw)
{
    struct emu_ctx *ctx = sw->ctx;
    uint8_t buf[DUMP_MSG_MAX], mb[3][128];
    struct emu_wr w, m[3];
    int rc = 0;
    uint32_t xid = 100;

    emu_wr_init(&w, buf, sizeof(buf));
    emu_ofp_enc_hello(&w, xid++, 1u << EMU_OFP_VERSION);
    rc = rc ? rc : feed(sw, &w);
    rc = rc ? rc : feed_simple(sw, EMU_OFPT_FEATURES_REQUEST, xid++, NULL, 0);
    struct emu_ofp_config cfg = {.flags = 0, .miss_send_len = 128};
    emu_wr_init(&w, buf, sizeof(buf));
    emu_ofp_enc_config(&w, EMU_OFPT_SET_CONFIG, xid++, &cfg);
    rc = rc ? rc : feed(sw, &w);
    rc = rc ? rc : feed_mp(sw, xid++, EMU_OFPMP_DESC, NULL, 0);
    rc = rc ? rc : feed_mp(sw, xid++, EMU_OFPMP_PORT_DESC, NULL, 0);

    /* Three flows: L2 in table 0, masked L3/L4 with flow-removed in table 0, VLAN in 1. */
    uint8_t mac[6];
    emu_agent_host_mac(sw->dpid, 2, mac);
    for (int i = 0; i < 3; i++)
        emu_wr_init(&m[i], mb[i], sizeof(mb[i]));
    emu_oxm_put_u32(&m[0], EMU_OXM_IN_PORT, 1);
    emu_oxm_put(&m[0], EMU_OXM_ETH_DST, mac, NULL, 6);
    emu_oxm_put_u16(&m[1], EMU_OXM_ETH_TYPE, 0x0800);
    emu_oxm_put_u8(&m[1], EMU_OXM_IP_PROTO, 6);
    emu_oxm_put_u32m(&m[1], EMU_OXM_IPV4_DST, 0x0a000000, 0xff000000);
    emu_oxm_put_u16(&m[1], EMU_OXM_TCP_DST, 80);
    emu_oxm_put_u16(&m[2], EMU_OXM_VLAN_VID, 0x1000 | 5);
    struct emu_ofp_flow_mod fm = {
        .command = EMU_OFPFC_ADD, .priority = 100, .buffer_id = EMU_OFP_NO_BUFFER,
        .out_port = EMU_OFPP_ANY, .out_group = EMU_OFPG_ANY,
    };
    rc = rc ? rc : feed_flow_mod(sw, xid++, &fm, &m[0], 2);
    fm.priority = 200;
    fm.cookie = 0xabc;
    fm.idle_timeout = 60;
    fm.flags = EMU_OFPFF_SEND_FLOW_REM;
    rc = rc ? rc : feed_flow_mod(sw, xid++, &fm, &m[1], 3);
    fm = (struct emu_ofp_flow_mod){
        .command = EMU_OFPFC_ADD, .table_id = 1, .priority = 10,
        .buffer_id = EMU_OFP_NO_BUFFER, .out_port = EMU_OFPP_ANY, .out_group = EMU_OFPG_ANY,
    };
    rc = rc ? rc : feed_flow_mod(sw, xid++, &fm, &m[2], EMU_OFPP_CONTROLLER);

    uint8_t req[64];
    struct emu_wr rw;
    emu_wr_init(&rw, req, sizeof(req));
    struct emu_ofp_flow_stats_req q = {
        .table_id = EMU_OFPTT_ALL, .out_port = EMU_OFPP_ANY, .out_group = EMU_OFPG_ANY,
    };
    emu_ofp_enc_flow_stats_req(&rw, &q);
    rc = rc ? rc : feed_mp(sw, xid++, EMU_OFPMP_FLOW, req, rw.len);
    rc = rc ? rc : feed_mp(sw, xid++, EMU_OFPMP_AGGREGATE, req, rw.len);
    rc = rc ? rc : feed_mp(sw, xid++, EMU_OFPMP_TABLE, NULL, 0);
    uint8_t any[8] = {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};
    rc = rc ? rc : feed_mp(sw, xid++, EMU_OFPMP_PORT_STATS, any, sizeof(any));
    rc = rc ? rc : feed_simple(sw, EMU_OFPT_GET_CONFIG_REQUEST, xid++, NULL, 0);

    /* Deleting the flow-removed flow strictly makes the switch send FLOW_REMOVED. */
    fm = (struct emu_ofp_flow_mod){
        .command = EMU_OFPFC_DELETE_STRICT, .priority = 200, .buffer_id = EMU_OFP_NO_BUFFER,
        .out_port = EMU_OFPP_ANY, .out_group = EMU_OFPG_ANY,
    };
    rc = rc ? rc : feed_flow_mod(sw, xid++, &fm, &m[1], 0);
    const uint8_t payload[4] = {1, 2, 3, 4};
    rc = rc ? rc : feed_simple(sw, EMU_OFPT_ECHO_REQUEST, xid++, payload, sizeof(payload));
    rc = rc ? rc : feed_simple(sw, EMU_OFPT_BARRIER_REQUEST, xid++, NULL, 0);
    struct emu_ofp_role ro = {.role = EMU_OFPCR_ROLE_NOCHANGE};
    emu_wr_init(&w, buf, sizeof(buf));
    emu_ofp_enc_role(&w, EMU_OFPT_ROLE_REQUEST, xid++, &ro);
    rc = rc ? rc : feed(sw, &w);
    if (rc)
        return rc;

    /* Messages the switch sends by itself. */
    uint8_t frame[64];
    size_t flen = emu_load_frame(sw->dpid, 1, ctx->opt.n_ports, 7, frame, sizeof(frame));
    struct emu_ofp_packet_in pi = {
        .buffer_id = 7, .total_len = (uint16_t)flen, .cookie = UINT64_MAX, .in_port = 1,
        .data = frame, .data_len = flen,
    };
    emu_wr_init(&w, ctx->txbuf, EMU_TXBUF_LEN);
    emu_ofp_enc_packet_in(&w, 0, &pi);
    rc = emu_conn_send_wr(sw, &w);
    struct emu_ofp_port p;
    emu_agent_port_desc(sw, 0, &p);
    emu_wr_init(&w, ctx->txbuf, EMU_TXBUF_LEN);
    emu_ofp_enc_port_status(&w, 0, EMU_OFPPR_MODIFY, &p);
    return rc ? rc : emu_conn_send_wr(sw, &w);
}

int emu_dump_replies(struct emu_ctx *ctx)
{
    struct emu_sw *sw = &ctx->sw[0];
    ctx->st.t_start_ns = emu_now_ns();
    sw->cs = EMU_CS_OPEN;
    sw->t_conn_start = ctx->st.t_start_ns;
    ctx->st.open_now++;
    emu_agent_on_open(sw);
    int rc = script(sw);
    uint64_t errs = ctx->st.err_sent_other;
    for (int i = 0; i < EMU_ERR_SLOTS; i++)
        errs += ctx->st.err_sent[i].n;
    if (rc || errs || sw->cs != EMU_CS_OPEN) {
        fprintf(stderr, "ofswitch-emu: dump script failed (rc %d, %llu errors sent)\n", rc,
                (unsigned long long)errs);
        return rc ? rc : -EPROTO;
    }
    FILE *f = fopen(ctx->opt.dump_path, "wb");
    if (!f) {
        fprintf(stderr, "ofswitch-emu: cannot write %s: %s\n", ctx->opt.dump_path,
                strerror(errno));
        return -errno;
    }
    size_t n = fwrite(sw->tx.p + sw->tx.off, 1, sw->tx.len, f);
    if (fclose(f) || n != sw->tx.len)
        return -EIO;
    uint64_t msgs = 0;
    for (int i = 0; i <= EMU_OFPT_COUNT; i++)
        msgs += ctx->st.tx_msgs[i];
    fprintf(stderr, "ofswitch-emu: wrote %u bytes (%llu messages) to %s\n", sw->tx.len,
            (unsigned long long)msgs, ctx->opt.dump_path);
    return 0;
}
