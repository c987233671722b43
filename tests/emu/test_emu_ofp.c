/*
 * test_emu_ofp.c - the switch emulator's OpenFlow 1.3 codec (emu_ofp.c): every message it
 * encodes or decodes survives an encode -> decode round trip field for field, and
 * truncated or inconsistent input is rejected (with the OpenFlow error a switch sends,
 * where there is one) instead of being read past its end.  Also the instruction/action
 * checks FLOW_MOD and PACKET_OUT go through, and the histogram the report relies on.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu_hist.h"
#include "emu_ofp.h"
#include "emu_oxm.h"

#define BUF 4096

typedef int (*dec_fn)(const uint8_t *msg, size_t len);

/* Decoding a copy whose header length is cut to `cut` (as the framer would deliver a
 * shorter message) must fail for every cut in [from, len). */
static void assert_cuts_rejected(const uint8_t *msg, size_t len, size_t from, dec_fn dec)
{
    uint8_t *copy = malloc(len);
    assert_non_null(copy);
    for (size_t cut = from; cut < len; cut++) {
        memcpy(copy, msg, cut);
        emu_put16(copy + 2, (uint16_t)cut);
        if (dec(copy, cut) == 0)
            fail_msg("decoder accepted a message cut to %zu of %zu bytes", cut, len);
    }
    /* A buffer shorter than its header says is rejected too. */
    assert_int_not_equal(dec(msg, len - 1), 0);
    free(copy);
}

static int dec_features(const uint8_t *m, size_t n)
{
    struct emu_ofp_features f;
    return emu_ofp_dec_features_reply(m, n, &f);
}

static int dec_config(const uint8_t *m, size_t n)
{
    struct emu_ofp_config c;
    return emu_ofp_dec_config(m, n, &c, NULL);
}

static int dec_port_status(const uint8_t *m, size_t n)
{
    struct emu_ofp_port p;
    uint8_t reason;
    return emu_ofp_dec_port_status(m, n, &reason, &p);
}

static int dec_flow_mod(const uint8_t *m, size_t n)
{
    struct emu_ofp_flow_mod fm;
    return emu_ofp_dec_flow_mod(m, n, &fm, NULL);
}

static int dec_flow_removed(const uint8_t *m, size_t n)
{
    struct emu_ofp_flow_removed fr;
    return emu_ofp_dec_flow_removed(m, n, &fr);
}

static int dec_packet_in(const uint8_t *m, size_t n)
{
    struct emu_ofp_packet_in pi;
    return emu_ofp_dec_packet_in(m, n, &pi);
}

static int dec_role(const uint8_t *m, size_t n)
{
    struct emu_ofp_role r;
    return emu_ofp_dec_role(m, n, &r, NULL);
}

static int dec_async(const uint8_t *m, size_t n)
{
    struct emu_ofp_async a;
    return emu_ofp_dec_async(m, n, &a, NULL);
}

static int dec_port_mod(const uint8_t *m, size_t n)
{
    struct emu_ofp_port_mod pm;
    return emu_ofp_dec_port_mod(m, n, &pm, NULL);
}

static void test_header_and_writer_bounds(void **state)
{
    (void)state;
    uint8_t buf[16];
    struct emu_wr w;
    emu_wr_init(&w, buf, sizeof(buf));
    struct emu_ofp_features f = {.dpid = 1};
    assert_int_equal(emu_ofp_enc_features_reply(&w, 1, &f), -EMSGSIZE);
    assert_true(w.overflow);

    struct emu_ofp_hdr h;
    const uint8_t short_len[8] = {4, 0, 0, 7, 0, 0, 0, 1};
    assert_int_equal(emu_ofp_parse_hdr(short_len, 8, &h), -EBADMSG);
    assert_int_equal(emu_ofp_parse_hdr(short_len, 7, &h), -EBADMSG);
    const uint8_t ok[8] = {4, 14, 0x01, 0x00, 0xde, 0xad, 0xbe, 0xef};
    assert_int_equal(emu_ofp_parse_hdr(ok, 8, &h), 0);
    assert_int_equal(h.type, EMU_OFPT_FLOW_MOD);
    assert_int_equal(h.length, 256);
    assert_int_equal(h.xid, 0xdeadbeef);

    struct emu_rd r;
    const uint8_t three[3] = {1, 2, 3};
    emu_rd_init(&r, three, 3);
    assert_int_equal(emu_rd_u16(&r), 0x0102);
    assert_int_equal(emu_rd_u16(&r), 0); /* past the end: zero and bad */
    assert_true(r.bad);
}

static void test_hello(void **state)
{
    (void)state;
    uint8_t buf[BUF];
    struct emu_wr w;
    emu_wr_init(&w, buf, sizeof(buf));
    assert_int_equal(emu_ofp_enc_hello(&w, 9, 1u << 4), 0);
    bool has;
    uint32_t bm;
    assert_int_equal(emu_ofp_dec_hello(buf, w.len, &has, &bm), 0);
    assert_true(has);
    assert_int_equal(bm, 0x10);
    assert_int_equal(buf[0], 4);
    /* A bare HELLO (no elements) is valid and carries no bitmap. */
    assert_int_equal(emu_ofp_dec_hello(buf, 8, &has, &bm), -EBADMSG); /* header says 16 */
    emu_put16(buf + 2, 8);
    assert_int_equal(emu_ofp_dec_hello(buf, 8, &has, &bm), 0);
    assert_false(has);
    /* An element longer than the message is rejected. */
    emu_wr_init(&w, buf, sizeof(buf));
    emu_ofp_enc_hello(&w, 9, 0x10);
    emu_put16(buf + 10, 12);
    assert_int_equal(emu_ofp_dec_hello(buf, w.len, &has, &bm), -EBADMSG);
}

static void test_error_cuts_data(void **state)
{
    (void)state;
    uint8_t buf[BUF], data[100];
    for (int i = 0; i < 100; i++)
        data[i] = (uint8_t)i;
    struct emu_wr w;
    emu_wr_init(&w, buf, sizeof(buf));
    assert_int_equal(emu_ofp_enc_error(&w, 5, EMU_OFPET_BAD_REQUEST, EMU_OFPBRC_BAD_TYPE, data,
                                       sizeof(data)), 0);
    struct emu_ofp_error e;
    assert_int_equal(emu_ofp_dec_error(buf, w.len, &e), 0);
    assert_int_equal(e.type, EMU_OFPET_BAD_REQUEST);
    assert_int_equal(e.code, EMU_OFPBRC_BAD_TYPE);
    assert_int_equal(e.data_len, EMU_OFP_ERR_DATA);
    assert_memory_equal(e.data, data, EMU_OFP_ERR_DATA);
    emu_put16(buf + 2, 10);
    assert_int_equal(emu_ofp_dec_error(buf, 10, &e), -EBADMSG);
}

static void test_features_config_role_async(void **state)
{
    (void)state;
    uint8_t buf[BUF];
    struct emu_wr w;
    emu_wr_init(&w, buf, sizeof(buf));
    struct emu_ofp_features f = {.dpid = 0x0102030405060708ull, .n_buffers = 256,
                                 .n_tables = 254, .aux_id = 0, .capabilities = 0x47};
    assert_int_equal(emu_ofp_enc_features_reply(&w, 77, &f), 0);
    assert_int_equal(w.len, 32);
    struct emu_ofp_features g;
    assert_int_equal(emu_ofp_dec_features_reply(buf, w.len, &g), 0);
    assert_int_equal(g.dpid, f.dpid);
    assert_int_equal(g.n_buffers, 256);
    assert_int_equal(g.n_tables, 254);
    assert_int_equal(g.capabilities, 0x47);
    assert_int_equal(emu_get32(buf + 4), 77);
    assert_cuts_rejected(buf, w.len, 8, dec_features);

    emu_wr_init(&w, buf, sizeof(buf));
    struct emu_ofp_config c = {.flags = 1, .miss_send_len = 0xffff}, d;
    assert_int_equal(emu_ofp_enc_config(&w, EMU_OFPT_SET_CONFIG, 3, &c), 0);
    assert_int_equal(emu_ofp_dec_config(buf, w.len, &d, NULL), 0);
    assert_int_equal(d.flags, 1);
    assert_int_equal(d.miss_send_len, 0xffff);
    assert_cuts_rejected(buf, w.len, 8, dec_config);
    struct emu_oferr err;
    emu_put16(buf + 2, 10);
    assert_int_equal(emu_ofp_dec_config(buf, 10, &d, &err), -EBADMSG);
    assert_int_equal(err.type, EMU_OFPET_BAD_REQUEST);
    assert_int_equal(err.code, EMU_OFPBRC_BAD_LEN);

    emu_wr_init(&w, buf, sizeof(buf));
    struct emu_ofp_role ro = {.role = 2, .generation_id = 0xfffffffffull}, rr;
    assert_int_equal(emu_ofp_enc_role(&w, EMU_OFPT_ROLE_REPLY, 4, &ro), 0);
    assert_int_equal(emu_ofp_dec_role(buf, w.len, &rr, NULL), 0);
    assert_int_equal(rr.role, 2);
    assert_int_equal(rr.generation_id, ro.generation_id);
    assert_cuts_rejected(buf, w.len, 8, dec_role);

    emu_wr_init(&w, buf, sizeof(buf));
    struct emu_ofp_async a = {{1, 2}, {3, 4}, {5, 6}}, b;
    assert_int_equal(emu_ofp_enc_async(&w, EMU_OFPT_GET_ASYNC_REPLY, 4, &a), 0);
    assert_int_equal(emu_ofp_dec_async(buf, w.len, &b, NULL), 0);
    assert_memory_equal(&a, &b, sizeof(a));
    assert_cuts_rejected(buf, w.len, 8, dec_async);
}

static void sample_port(struct emu_ofp_port *p)
{
    memset(p, 0, sizeof(*p));
    p->port_no = 3;
    const uint8_t mac[6] = {2, 0, 0, 0, 0, 3};
    memcpy(p->hw_addr, mac, 6);
    strcpy(p->name, "s1-eth3");
    p->config = EMU_OFPPC_PORT_DOWN;
    p->state = EMU_OFPPS_LIVE;
    p->curr = EMU_OFPPF_10GB_FD;
    p->supported = EMU_OFPPF_1GB_FD | EMU_OFPPF_10GB_FD;
    p->curr_speed = 10000000;
    p->max_speed = 10000000;
}

static void test_ports(void **state)
{
    (void)state;
    uint8_t buf[BUF];
    struct emu_wr w;
    struct emu_ofp_port p, q;
    sample_port(&p);
    emu_wr_init(&w, buf, sizeof(buf));
    assert_int_equal(emu_ofp_enc_port_status(&w, 0, EMU_OFPPR_MODIFY, &p), 0);
    assert_int_equal(w.len, 80);
    uint8_t reason;
    assert_int_equal(emu_ofp_dec_port_status(buf, w.len, &reason, &q), 0);
    assert_int_equal(reason, EMU_OFPPR_MODIFY);
    assert_int_equal(q.port_no, 3);
    assert_memory_equal(q.hw_addr, p.hw_addr, 6);
    assert_string_equal(q.name, "s1-eth3");
    assert_int_equal(q.config, p.config);
    assert_int_equal(q.state, p.state);
    assert_int_equal(q.supported, p.supported);
    assert_int_equal(q.max_speed, p.max_speed);
    assert_cuts_rejected(buf, w.len, 8, dec_port_status);

    /* A 16-byte name is cut to 15 characters plus NUL on the wire. */
    strcpy(p.name, "abcdefghijklmno");
    emu_wr_init(&w, buf, sizeof(buf));
    emu_ofp_enc_port_status(&w, 0, EMU_OFPPR_ADD, &p);
    assert_int_equal(emu_ofp_dec_port_status(buf, w.len, &reason, &q), 0);
    assert_string_equal(q.name, "abcdefghijklmno");

    struct emu_ofp_port_mod pm = {.port_no = 2, .hw_addr = {2, 0, 0, 0, 0, 2}, .config = 1,
                                  .mask = 1, .advertise = 0x40}, pn;
    emu_wr_init(&w, buf, sizeof(buf));
    assert_int_equal(emu_ofp_enc_port_mod(&w, 8, &pm), 0);
    assert_int_equal(emu_ofp_dec_port_mod(buf, w.len, &pn, NULL), 0);
    assert_int_equal(pn.port_no, 2);
    assert_memory_equal(pn.hw_addr, pm.hw_addr, 6);
    assert_int_equal(pn.config, 1);
    assert_int_equal(pn.mask, 1);
    assert_int_equal(pn.advertise, 0x40);
    assert_cuts_rejected(buf, w.len, 8, dec_port_mod);
}

/* A three-field match and one output instruction. */
static size_t sample_match(uint8_t *m)
{
    struct emu_wr w;
    emu_wr_init(&w, m, 64);
    emu_oxm_put_u32(&w, EMU_OXM_IN_PORT, 1);
    emu_oxm_put_u16(&w, EMU_OXM_ETH_TYPE, 0x0800);
    emu_oxm_put_u32m(&w, EMU_OXM_IPV4_DST, 0x0a000000, 0xff000000);
    return w.len; /* 8 + 6 + 12 = 26: needs padding to 32 with the match header */
}

static void test_flow_mod(void **state)
{
    (void)state;
    uint8_t buf[BUF], m[64], ins[64];
    size_t mlen = sample_match(m);
    struct emu_wr iw, w;
    emu_wr_init(&iw, ins, sizeof(ins));
    emu_ofp_enc_instr_output(&iw, 2);
    struct emu_ofp_flow_mod fm = {
        .cookie = 0x1122334455667788ull, .cookie_mask = 0xff, .table_id = 3,
        .command = EMU_OFPFC_MODIFY_STRICT, .idle_timeout = 10, .hard_timeout = 20,
        .priority = 300, .buffer_id = 77, .out_port = 5, .out_group = 6,
        .flags = EMU_OFPFF_SEND_FLOW_REM, .oxm = m, .oxm_len = mlen, .instr = ins,
        .instr_len = iw.len,
    }, g;
    emu_wr_init(&w, buf, sizeof(buf));
    assert_int_equal(emu_ofp_enc_flow_mod(&w, 12, &fm), 0);
    assert_int_equal(w.len % 8, 0);
    assert_int_equal(emu_ofp_dec_flow_mod(buf, w.len, &g, NULL), 0);
    assert_int_equal(g.cookie, fm.cookie);
    assert_int_equal(g.cookie_mask, 0xff);
    assert_int_equal(g.table_id, 3);
    assert_int_equal(g.command, EMU_OFPFC_MODIFY_STRICT);
    assert_int_equal(g.idle_timeout, 10);
    assert_int_equal(g.hard_timeout, 20);
    assert_int_equal(g.priority, 300);
    assert_int_equal(g.buffer_id, 77);
    assert_int_equal(g.out_port, 5);
    assert_int_equal(g.out_group, 6);
    assert_int_equal(g.flags, EMU_OFPFF_SEND_FLOW_REM);
    assert_int_equal(g.oxm_len, mlen);
    assert_memory_equal(g.oxm, m, mlen);
    assert_int_equal(g.instr_len, iw.len);
    assert_memory_equal(g.instr, ins, iw.len);
    /* Any cut inside the fixed part or the (padded) match is rejected. */
    size_t match_end = 48 + ((4 + mlen + 7) & ~(size_t)7);
    assert_cuts_rejected(buf, match_end, 8, dec_flow_mod);
    emu_put16(buf + 2, (uint16_t)match_end); /* no instructions at all is valid */
    assert_int_equal(emu_ofp_dec_flow_mod(buf, match_end, &g, NULL), 0);
    assert_int_equal(g.instr_len, 0);
    emu_put16(buf + 2, (uint16_t)w.len);

    struct emu_oferr err;
    emu_put16(buf + 48, 2); /* OFPMT_STANDARD: not OXM */
    assert_int_equal(emu_ofp_dec_flow_mod(buf, w.len, &g, &err), -EBADMSG);
    assert_int_equal(err.type, EMU_OFPET_BAD_MATCH);
    assert_int_equal(err.code, EMU_OFPBMC_BAD_TYPE);
    emu_put16(buf + 48, 1);
    emu_put16(buf + 50, (uint16_t)(w.len)); /* match longer than the message */
    assert_int_equal(emu_ofp_dec_flow_mod(buf, w.len, &g, &err), -EBADMSG);
    assert_int_equal(err.code, EMU_OFPBMC_BAD_LEN);
}

static void test_flow_removed(void **state)
{
    (void)state;
    uint8_t buf[BUF], m[64];
    size_t mlen = sample_match(m);
    struct emu_ofp_flow_removed fr = {
        .cookie = 9, .priority = 7, .reason = EMU_OFPRR_IDLE_TIMEOUT, .table_id = 2,
        .duration_sec = 100, .duration_nsec = 5, .idle_timeout = 30, .hard_timeout = 0,
        .packet_count = 1000, .byte_count = 64000, .oxm = m, .oxm_len = mlen,
    }, g;
    struct emu_wr w;
    emu_wr_init(&w, buf, sizeof(buf));
    assert_int_equal(emu_ofp_enc_flow_removed(&w, 0, &fr), 0);
    assert_int_equal(emu_ofp_dec_flow_removed(buf, w.len, &g), 0);
    assert_int_equal(g.cookie, 9);
    assert_int_equal(g.priority, 7);
    assert_int_equal(g.reason, EMU_OFPRR_IDLE_TIMEOUT);
    assert_int_equal(g.table_id, 2);
    assert_int_equal(g.duration_sec, 100);
    assert_int_equal(g.byte_count, 64000);
    assert_int_equal(g.oxm_len, mlen);
    assert_memory_equal(g.oxm, m, mlen);
    assert_cuts_rejected(buf, w.len, 8, dec_flow_removed);
}

static void test_packet_in_and_out(void **state)
{
    (void)state;
    uint8_t buf[BUF], frame[60];
    for (int i = 0; i < 60; i++)
        frame[i] = (uint8_t)(i * 3);
    struct emu_ofp_packet_in pi = {
        .buffer_id = 42, .total_len = 60, .reason = EMU_OFPR_NO_MATCH, .table_id = 0,
        .cookie = UINT64_MAX, .in_port = 4, .data = frame, .data_len = 60,
    }, g;
    struct emu_wr w;
    emu_wr_init(&w, buf, sizeof(buf));
    assert_int_equal(emu_ofp_enc_packet_in(&w, 0, &pi), 0);
    assert_int_equal(emu_ofp_dec_packet_in(buf, w.len, &g), 0);
    assert_int_equal(g.buffer_id, 42);
    assert_int_equal(g.total_len, 60);
    assert_int_equal(g.in_port, 4);
    assert_int_equal(g.cookie, UINT64_MAX);
    assert_int_equal(g.data_len, 60);
    assert_memory_equal(g.data, frame, 60);
    /* Cuts before the frame starts (header 8 + 16 + match 16 + pad 2 = 42) fail. */
    assert_cuts_rejected(buf, 42, 8, dec_packet_in);
    /* The emulator's "oxm" malformed kind: an in_port TLV that overruns its match. */
    buf[31] = 40;
    assert_int_equal(emu_ofp_dec_packet_in(buf, w.len, &g), -EBADMSG);

    uint8_t acts[16];
    struct emu_wr aw;
    emu_wr_init(&aw, acts, sizeof(acts));
    emu_wr_u16(&aw, EMU_OFPAT_OUTPUT);
    emu_wr_u16(&aw, 16);
    emu_wr_u32(&aw, 0xfffffffbu);
    emu_wr_u16(&aw, 0);
    emu_wr_zero(&aw, 6);
    struct emu_ofp_packet_out po = {.buffer_id = EMU_OFP_NO_BUFFER, .in_port = 1,
                                    .actions = acts, .actions_len = 16, .data = frame,
                                    .data_len = 60}, q;
    emu_wr_init(&w, buf, sizeof(buf));
    assert_int_equal(emu_ofp_enc_packet_out(&w, 3, &po), 0);
    assert_int_equal(emu_ofp_dec_packet_out(buf, w.len, &q, NULL), 0);
    assert_int_equal(q.buffer_id, EMU_OFP_NO_BUFFER);
    assert_int_equal(q.in_port, 1);
    assert_int_equal(q.actions_len, 16);
    assert_memory_equal(q.actions, acts, 16);
    assert_int_equal(q.data_len, 60);
    assert_memory_equal(q.data, frame, 60);
    struct emu_oferr err;
    emu_put16(buf + 16, 200); /* actions_len beyond the message */
    assert_int_equal(emu_ofp_dec_packet_out(buf, w.len, &q, &err), -EBADMSG);
    assert_int_equal(err.code, EMU_OFPBRC_BAD_LEN);
}

static void test_multipart_bodies(void **state)
{
    (void)state;
    uint8_t buf[BUF], m[64], ins[64];
    size_t mlen = sample_match(m);
    struct emu_wr w, iw;
    emu_wr_init(&iw, ins, sizeof(ins));
    emu_ofp_enc_instr_output(&iw, 7);

    /* Request: header and flow-stats body. */
    emu_wr_init(&w, buf, sizeof(buf));
    size_t start = emu_ofp_enc_mp_begin(&w, EMU_OFPT_MULTIPART_REQUEST, 5, EMU_OFPMP_FLOW, 0);
    struct emu_ofp_flow_stats_req q = {.table_id = EMU_OFPTT_ALL, .out_port = 2,
                                       .out_group = EMU_OFPG_ANY, .cookie = 3,
                                       .cookie_mask = 0xf, .oxm = m, .oxm_len = mlen}, r;
    emu_ofp_enc_flow_stats_req(&w, &q);
    assert_int_equal(emu_wr_msg_end(&w, start), 0);
    struct emu_ofp_mp mp;
    assert_int_equal(emu_ofp_dec_mp(buf, w.len, &mp, NULL), 0);
    assert_int_equal(mp.type, EMU_OFPMP_FLOW);
    assert_int_equal(emu_ofp_dec_flow_stats_req(mp.body, mp.body_len, &r, NULL), 0);
    assert_int_equal(r.table_id, EMU_OFPTT_ALL);
    assert_int_equal(r.out_port, 2);
    assert_int_equal(r.cookie_mask, 0xf);
    assert_memory_equal(r.oxm, m, mlen);
    struct emu_oferr err;
    assert_int_equal(emu_ofp_dec_flow_stats_req(mp.body, mp.body_len - 8, &r, &err), -EBADMSG);

    /* Reply: two flow-stats entries back to back, then the body cut mid-entry. */
    uint8_t body[512];
    emu_wr_init(&w, body, sizeof(body));
    struct emu_ofp_flow_stats fs = {.table_id = 1, .duration_sec = 2, .priority = 3,
                                    .cookie = 4, .packet_count = 5, .byte_count = 6,
                                    .oxm = m, .oxm_len = mlen, .instr = ins,
                                    .instr_len = iw.len};
    emu_ofp_enc_flow_stats(&w, &fs);
    assert_int_equal(w.len, emu_ofp_flow_stats_len(mlen, iw.len));
    fs.priority = 9;
    fs.oxm_len = 0;
    emu_ofp_enc_flow_stats(&w, &fs);
    struct emu_rd rd;
    struct emu_ofp_flow_stats a, b;
    emu_rd_init(&rd, body, w.len);
    assert_int_equal(emu_ofp_dec_flow_stats(&rd, &a), 0);
    assert_int_equal(emu_ofp_dec_flow_stats(&rd, &b), 0);
    assert_int_equal(emu_rd_left(&rd), 0);
    assert_int_equal(a.priority, 3);
    assert_int_equal(a.oxm_len, mlen);
    assert_memory_equal(a.instr, ins, iw.len);
    assert_int_equal(b.priority, 9);
    assert_int_equal(b.oxm_len, 0);
    emu_rd_init(&rd, body, w.len - 4);
    assert_int_equal(emu_ofp_dec_flow_stats(&rd, &a), 0);
    assert_int_equal(emu_ofp_dec_flow_stats(&rd, &b), -EBADMSG);

    /* Fixed-size bodies. */
    struct emu_ofp_aggregate ag = {.packet_count = 1, .byte_count = 2, .flow_count = 3}, ag2;
    emu_wr_init(&w, body, sizeof(body));
    emu_ofp_enc_aggregate(&w, &ag);
    assert_int_equal(emu_ofp_dec_aggregate(body, w.len, &ag2), 0);
    assert_int_equal(ag2.flow_count, 3);
    assert_int_equal(emu_ofp_dec_aggregate(body, w.len - 1, &ag2), -EBADMSG);

    struct emu_ofp_table_stats ts = {.table_id = 4, .active_count = 5, .lookup_count = 6}, ts2;
    emu_wr_init(&w, body, sizeof(body));
    emu_ofp_enc_table_stats(&w, &ts);
    emu_rd_init(&rd, body, w.len);
    assert_int_equal(emu_ofp_dec_table_stats(&rd, &ts2), 0);
    assert_int_equal(ts2.active_count, 5);
    assert_int_equal(ts2.lookup_count, 6);
    emu_rd_init(&rd, body, w.len - 1);
    assert_int_equal(emu_ofp_dec_table_stats(&rd, &ts2), -EBADMSG);

    struct emu_ofp_port_stats ps = {.port_no = 2, .rx_packets = 3, .tx_bytes = 4,
                                    .collisions = 5, .duration_sec = 6}, ps2;
    emu_wr_init(&w, body, sizeof(body));
    emu_ofp_enc_port_stats(&w, &ps);
    assert_int_equal(w.len, EMU_OFP_PORT_STATS_LEN);
    emu_rd_init(&rd, body, w.len);
    assert_int_equal(emu_ofp_dec_port_stats(&rd, &ps2), 0);
    assert_int_equal(ps2.port_no, 2);
    assert_int_equal(ps2.rx_packets, 3);
    assert_int_equal(ps2.tx_bytes, 4);
    assert_int_equal(ps2.collisions, 5);
    assert_int_equal(ps2.duration_sec, 6);
    assert_int_equal(ps2.rx_errors, 0);

    struct emu_ofp_desc *d = calloc(2, sizeof(*d));
    assert_non_null(d);
    strcpy(d[0].mfr, "m");
    strcpy(d[0].serial, "serial-1");
    strcpy(d[0].dp, "dp");
    uint8_t *db = malloc(EMU_OFP_DESC_LEN);
    emu_wr_init(&w, db, EMU_OFP_DESC_LEN);
    emu_ofp_enc_desc(&w, &d[0]);
    assert_false(w.overflow);
    assert_int_equal(w.len, EMU_OFP_DESC_LEN);
    assert_int_equal(emu_ofp_dec_desc(db, w.len, &d[1]), 0);
    assert_string_equal(d[1].serial, "serial-1");
    assert_string_equal(d[1].dp, "dp");
    assert_int_equal(emu_ofp_dec_desc(db, w.len - 1, &d[1]), -EBADMSG);
    free(db);
    free(d);
}

static void test_instruction_checks(void **state)
{
    (void)state;
    struct emu_ofp_limits lim = {.n_tables = 4, .n_ports = 8};
    uint8_t b[128];
    struct emu_wr w;
    struct emu_oferr err;

    emu_wr_init(&w, b, sizeof(b));
    emu_ofp_enc_instr_output(&w, 8);
    emu_ofp_enc_instr_output(&w, EMU_OFPP_CONTROLLER);
    assert_int_equal(emu_ofp_check_instructions(b, w.len, 0, &lim, &err), 0);
    assert_true(emu_ofp_instr_outputs(b, w.len, 8, EMU_OFPG_ANY));
    assert_true(emu_ofp_instr_outputs(b, w.len, EMU_OFPP_ANY, EMU_OFPG_ANY));
    assert_false(emu_ofp_instr_outputs(b, w.len, 3, EMU_OFPG_ANY));
    assert_false(emu_ofp_instr_outputs(b, w.len, EMU_OFPP_ANY, 1));

    emu_wr_init(&w, b, sizeof(b));
    emu_ofp_enc_instr_output(&w, 9); /* beyond the 8 ports */
    assert_int_equal(emu_ofp_check_instructions(b, w.len, 0, &lim, &err), -EBADMSG);
    assert_int_equal(err.type, EMU_OFPET_BAD_ACTION);
    assert_int_equal(err.code, EMU_OFPBAC_BAD_OUT_PORT);

    /* goto_table must go forward to an existing table. */
    emu_wr_init(&w, b, sizeof(b));
    emu_wr_u16(&w, EMU_OFPIT_GOTO_TABLE);
    emu_wr_u16(&w, 8);
    emu_wr_u8(&w, 2);
    emu_wr_zero(&w, 3);
    assert_int_equal(emu_ofp_check_instructions(b, w.len, 1, &lim, &err), 0);
    assert_int_equal(emu_ofp_check_instructions(b, w.len, 2, &lim, &err), -EBADMSG);
    assert_int_equal(err.type, EMU_OFPET_BAD_INSTRUCTION);
    assert_int_equal(err.code, EMU_OFPBIC_BAD_TABLE_ID);
    b[4] = 4;
    assert_int_equal(emu_ofp_check_instructions(b, w.len, 0, &lim, &err), -EBADMSG);

    /* Unknown instruction, bad lengths, and a group (the emulator has none). */
    emu_put16(b, 9);
    assert_int_equal(emu_ofp_check_instructions(b, 8, 0, &lim, &err), -EBADMSG);
    assert_int_equal(err.code, EMU_OFPBIC_UNKNOWN_INST);
    emu_wr_init(&w, b, sizeof(b));
    emu_ofp_enc_instr_output(&w, 1);
    assert_int_equal(emu_ofp_check_instructions(b, w.len - 8, 0, &lim, &err), -EBADMSG);
    assert_int_equal(err.code, EMU_OFPBIC_BAD_LEN);
    emu_put16(b + 10, 12); /* action length not a multiple of 8 */
    assert_int_equal(emu_ofp_check_instructions(b, w.len, 0, &lim, &err), -EBADMSG);
    assert_int_equal(err.type, EMU_OFPET_BAD_ACTION);
    assert_int_equal(err.code, EMU_OFPBAC_BAD_LEN);
    emu_wr_init(&w, b, sizeof(b));
    emu_wr_u16(&w, EMU_OFPAT_GROUP);
    emu_wr_u16(&w, 8);
    emu_wr_u32(&w, 1);
    assert_int_equal(emu_ofp_check_actions(b, w.len, &lim, &err), -EBADMSG);
    assert_int_equal(err.code, EMU_OFPBAC_BAD_OUT_GROUP);
}

static void test_histogram(void **state)
{
    (void)state;
    struct emu_hist *h = malloc(sizeof(*h));
    assert_non_null(h);
    emu_hist_init(h);
    assert_int_equal(emu_hist_quantile(h, 0.5), 0);
    /* 1..100000 us in ns: quantiles within the 1/16 bucket resolution. */
    for (uint64_t v = 1; v <= 100000; v++)
        emu_hist_add(h, v * 1000);
    const double qs[4] = {0.5, 0.9, 0.99, 0.999};
    for (int i = 0; i < 4; i++) {
        double want = qs[i] * 100000.0 * 1000.0;
        double got = (double)emu_hist_quantile(h, qs[i]);
        assert_true(got >= want * 0.999);
        assert_true(got <= want * 1.0625 + 1000.0);
    }
    assert_int_equal(emu_hist_quantile(h, 1.0), 100000000);
    assert_int_equal(h->min, 1000);
    assert_int_equal(h->count, 100000);
    /* Bucket ranges tile the value space without gaps. */
    uint64_t lo, hi, prev_hi = 0;
    for (unsigned i = 1; i < EMU_HIST_BUCKETS; i++) {
        emu_hist_range(i, &lo, &hi);
        assert_int_equal(lo, prev_hi + 1);
        assert_int_equal(emu_hist_index(lo), i);
        assert_int_equal(emu_hist_index(hi), i);
        prev_hi = hi;
    }
    assert_int_equal(prev_hi, UINT64_MAX);
    free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_and_writer_bounds),
        cmocka_unit_test(test_hello),
        cmocka_unit_test(test_error_cuts_data),
        cmocka_unit_test(test_features_config_role_async),
        cmocka_unit_test(test_ports),
        cmocka_unit_test(test_flow_mod),
        cmocka_unit_test(test_flow_removed),
        cmocka_unit_test(test_packet_in_and_out),
        cmocka_unit_test(test_multipart_bodies),
        cmocka_unit_test(test_instruction_checks),
        cmocka_unit_test(test_histogram),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
