/*
 * ofp_test_util: sample messages, equality and byte helpers shared by the
 * ofp codec tests and tests/fuzz/fuzz_ofp.c (see ofp_test_util.h).
 */
#include "ofp_test_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- static material the samples point to --------------------------------- */

static const uint8_t frame[60] = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 1, 0x08, 0x06, 0, 1, 8, 0, 6, 4, 0, 1,
};
static const uint8_t junk[24] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};

static const uint8_t nx_reg0[8] = {0x00, 0x01, 0x00, 0x04, 0x00, 0x00, 0x00, 0x2a};

static const struct ofp_action out_acts[] = {
    {.type = OFPAT_PUSH_VLAN, .u.ethertype = 0x8100},
    {.type = OFPAT_SET_FIELD,
     .u.set_field = {.oxm_class = OFPXMC_OPENFLOW_BASIC, .field = OFPXMT_OFB_VLAN_VID,
                     .len = 2, .value = {0x10, 0x64}}},
    {.type = OFPAT_SET_FIELD,
     .u.set_field = {.oxm_class = OFPXMC_OPENFLOW_BASIC, .field = OFPXMT_OFB_IPV6_SRC,
                     .len = 16, .value = {0x20, 0x01, 0x0d, 0xb8, [15] = 1}}},
    {.type = OFPAT_SET_FIELD,
     .u.set_field = {.oxm_class = OFPXMC_NXM_1, .field = 0, .len = 4, .oxm = nx_reg0}},
    {.type = OFPAT_OUTPUT, .u.output = {.port = 3, .max_len = 0}},
    {.type = OFPAT_OUTPUT, .u.output = {.port = OFPP_CONTROLLER, .max_len = 128}},
};

static const struct ofp_action every_act[] = {
    {.type = OFPAT_COPY_TTL_OUT},
    {.type = OFPAT_COPY_TTL_IN},
    {.type = OFPAT_SET_MPLS_TTL, .u.ttl = 9},
    {.type = OFPAT_DEC_MPLS_TTL},
    {.type = OFPAT_POP_VLAN},
    {.type = OFPAT_PUSH_MPLS, .u.ethertype = 0x8847},
    {.type = OFPAT_POP_MPLS, .u.ethertype = 0x0800},
    {.type = OFPAT_SET_QUEUE, .u.queue_id = 7},
    {.type = OFPAT_GROUP, .u.group_id = 12},
    {.type = OFPAT_SET_NW_TTL, .u.ttl = 33},
    {.type = OFPAT_DEC_NW_TTL},
    {.type = OFPAT_PUSH_PBB, .u.ethertype = 0x88e7},
    {.type = OFPAT_POP_PBB},
    {.type = OFPAT_EXPERIMENTER, .u.experimenter = {.experimenter = 0x2320, .data = junk,
                                                    .len = 16}},
};

static const struct ofp_action group_acts[] = {
    {.type = OFPAT_OUTPUT, .u.output = {.port = 1}},
};

static const struct ofp_bucket buckets[] = {
    {.weight = 10, .watch_port = OFPP_ANY, .watch_group = OFPG_ANY,
     .actions = {.arr = out_acts, .n = 3}},
    {.weight = 20, .watch_port = OFPP_ANY, .watch_group = OFPG_ANY,
     .actions = {.arr = group_acts, .n = 1}},
    {.weight = 0, .watch_port = OFPP_ANY, .watch_group = OFPG_ANY, .actions = {.n = 0}},
};

static const struct ofp_meter_band bands[] = {
    {.type = OFPMBT_DROP, .rate = 1000, .burst_size = 100},
    {.type = OFPMBT_DSCP_REMARK, .rate = 500, .burst_size = 50, .prec_level = 2},
    {.type = OFPMBT_EXPERIMENTER, .rate = 1, .burst_size = 2, .experimenter = 0xabcdef,
     .exp_data = junk, .exp_len = 8},
};

static const struct ofp_port ports[] = {
    {.port_no = 1, .hw_addr = {2, 0, 0, 0, 0, 1}, .name = "eth1", .config = OFPPC_NO_FWD,
     .state = OFPPS_LIVE, .curr = OFPPF_1GB_FD | OFPPF_COPPER, .advertised = OFPPF_1GB_FD,
     .supported = 0x2fff, .peer = 0, .curr_speed = 1000000, .max_speed = 1000000},
    {.port_no = OFPP_LOCAL, .hw_addr = {2, 0, 0, 0, 0, 0xfe}, .name = "br-with-15-char",
     .config = OFPPC_PORT_DOWN, .state = OFPPS_LINK_DOWN},
};

static const struct ofp_bucket_counter counters[] = {{5, 500}, {6, 600}};
static const struct ofp_meter_band_stats band_stats[] = {{7, 700}};

static const uint8_t tf_body[16] = {0, 16, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8};

static void sample_match(struct ofp_match *m)
{
    static const uint8_t src6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0x10};
    static const uint8_t mask6[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    ofp_match_init(m);
    ofp_match_set_uint(m, OFPXMT_OFB_IN_PORT, 7);
    ofp_match_set_uint(m, OFPXMT_OFB_ETH_TYPE, 0x86dd);
    ofp_match_set_uint_masked(m, OFPXMT_OFB_VLAN_VID, OFPVID_PRESENT, OFPVID_PRESENT);
    ofp_match_set_uint(m, OFPXMT_OFB_VLAN_PCP, 5);
    ofp_match_set_uint(m, OFPXMT_OFB_IP_PROTO, 6);
    ofp_match_set(m, OFPXMT_OFB_IPV6_SRC, src6, mask6);
    ofp_match_set_uint(m, OFPXMT_OFB_TCP_DST, 443);
    ofp_match_set_uint_masked(m, OFPXMT_OFB_METADATA, 0x1200, 0xff00);
}

static void sample_match4(struct ofp_match *m)
{
    ofp_match_init(m);
    ofp_match_set_uint(m, OFPXMT_OFB_ETH_TYPE, 0x0800);
    ofp_match_set_uint_masked(m, OFPXMT_OFB_IPV4_SRC, 0x0a000000, 0xff000000);
    ofp_match_set_uint(m, OFPXMT_OFB_IP_PROTO, 17);
    ofp_match_set_uint(m, OFPXMT_OFB_UDP_DST, 53);
}

static void sample_inst(struct ofp_instructions *in, uint8_t table)
{
    memset(in, 0, sizeof(*in));
    in->present = OFP_INST_METER | OFP_INST_APPLY_ACTIONS | OFP_INST_WRITE_ACTIONS |
                  OFP_INST_CLEAR_ACTIONS | OFP_INST_WRITE_METADATA | OFP_INST_GOTO_TABLE;
    in->meter_id = 4;
    in->apply_actions = (struct ofp_actions){.arr = out_acts, .n = 6};
    in->write_actions = (struct ofp_actions){.arr = every_act, .n = 14};
    in->metadata = 0xfeed;
    in->metadata_mask = 0xffff;
    in->goto_table = (uint8_t)(table + 1);
}

/* Multipart types covered by request and reply samples, in order. */
static const uint16_t mp_types[] = {
    OFPMP_DESC,  OFPMP_FLOW,      OFPMP_AGGREGATE, OFPMP_TABLE,     OFPMP_PORT_STATS,
    OFPMP_QUEUE, OFPMP_GROUP,     OFPMP_GROUP_DESC, OFPMP_METER,    OFPMP_PORT_DESC,
    OFPMP_TABLE_FEATURES, OFPMP_EXPERIMENTER,
};
#define N_MP (sizeof(mp_types) / sizeof(mp_types[0]))

static void sample_mp_request(uint16_t type, struct ofp_mp_request *r)
{
    memset(r, 0, sizeof(*r));
    r->type = type;
    switch (type) {
    case OFPMP_FLOW:
    case OFPMP_AGGREGATE:
        r->u.flow.table_id = OFPTT_ALL;
        r->u.flow.out_port = OFPP_ANY;
        r->u.flow.out_group = OFPG_ANY;
        r->u.flow.cookie = 0x10;
        r->u.flow.cookie_mask = 0xf0;
        sample_match4(&r->u.flow.match);
        break;
    case OFPMP_PORT_STATS:
        r->u.port_no = OFPP_ANY;
        break;
    case OFPMP_QUEUE:
        r->u.queue.port_no = 2;
        r->u.queue.queue_id = OFPQ_ALL;
        break;
    case OFPMP_GROUP:
        r->u.group_id = OFPG_ALL;
        break;
    case OFPMP_METER:
        r->u.meter_id = OFPM_ALL;
        break;
    case OFPMP_TABLE_FEATURES:
        r->body = tf_body;
        r->body_len = sizeof(tf_body);
        break;
    case OFPMP_EXPERIMENTER:
        r->u.exp.experimenter = 0x2320;
        r->u.exp.exp_type = 9;
        r->body = junk;
        r->body_len = 5;
        r->flags = OFPMPF_REQ_MORE;
        break;
    default:
        break;
    }
}

static void sample_mp_reply(uint16_t type, struct ofp_mp_reply *r)
{
    static struct ofp_flow_stats fs[2];
    static const struct ofp_table_stats ts[] = {{0, 3, 100, 90}, {1, 0, 0, 0}};
    static const struct ofp_port_stats ps[] = {
        {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
        {OFPP_LOCAL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2}};
    static const struct ofp_queue_stats qs[] = {{1, 0, 10, 20, 30, 40, 50}};
    static const struct ofp_group_stats gs[] = {
        {1, 2, 3, 4, 5, 6, NULL, counters, 2}, {9, 0, 0, 0, 0, 0, NULL, NULL, 0}};
    static const struct ofp_group_desc gd[] = {
        {OFPGT_SELECT, 1, {.arr = buckets, .n = 3}},
        {OFPGT_INDIRECT, 2, {.arr = buckets + 1, .n = 1}}};
    static const struct ofp_meter_stats ms[] = {{1, 2, 3, 4, 5, 6, NULL, band_stats, 1}};

    for (int i = 0; i < 2; i++) {
        memset(&fs[i], 0, sizeof(fs[i]));
        fs[i].table_id = (uint8_t)i;
        fs[i].duration_sec = 10u + (uint32_t)i;
        fs[i].duration_nsec = 500;
        fs[i].priority = 100;
        fs[i].idle_timeout = 30;
        fs[i].flags = OFPFF_SEND_FLOW_REM;
        fs[i].cookie = 0xc0ffee;
        fs[i].packet_count = 42;
        fs[i].byte_count = 4200;
        if (i == 0) {
            sample_match(&fs[i].match);
            sample_inst(&fs[i].inst, 0);
        } else {
            ofp_match_init(&fs[i].match);
            fs[i].inst.present = OFP_INST_APPLY_ACTIONS;
            fs[i].inst.apply_actions = (struct ofp_actions){.arr = group_acts, .n = 1};
        }
    }

    memset(r, 0, sizeof(*r));
    r->type = type;
    switch (type) {
    case OFPMP_DESC:
        strcpy(r->u.desc.mfr_desc, "Nicira, Inc.");
        strcpy(r->u.desc.hw_desc, "Open vSwitch");
        strcpy(r->u.desc.sw_desc, "3.1.0");
        strcpy(r->u.desc.serial_num, "None");
        strcpy(r->u.desc.dp_desc, "br0");
        break;
    case OFPMP_FLOW: r->arr = fs; r->n = 2; r->flags = OFPMPF_REPLY_MORE; break;
    case OFPMP_AGGREGATE: r->u.agg = (struct ofp_aggregate_stats){100, 2000, 3}; break;
    case OFPMP_TABLE: r->arr = ts; r->n = 2; break;
    case OFPMP_PORT_STATS: r->arr = ps; r->n = 2; break;
    case OFPMP_QUEUE: r->arr = qs; r->n = 1; break;
    case OFPMP_GROUP: r->arr = gs; r->n = 2; break;
    case OFPMP_GROUP_DESC: r->arr = gd; r->n = 2; break;
    case OFPMP_METER: r->arr = ms; r->n = 1; break;
    case OFPMP_PORT_DESC: r->arr = ports; r->n = 2; break;
    case OFPMP_TABLE_FEATURES: r->body = tf_body; r->body_len = sizeof(tf_body); break;
    case OFPMP_EXPERIMENTER:
        r->u.exp.experimenter = 0x2320;
        r->u.exp.exp_type = 1;
        r->body = junk;
        r->body_len = 3;
        break;
    default:
        break;
    }
}

/* Fixed samples, by index. */
enum {
    S_HELLO_BITMAP, S_HELLO_BITMAP_WIDE, S_HELLO_PLAIN, S_ERROR, S_ERROR_EXP, S_ECHO_REQ,
    S_ECHO_REP, S_EXPERIMENTER, S_FEATURES_REQ, S_FEATURES_REP, S_GET_CONFIG_REQ,
    S_GET_CONFIG_REP, S_SET_CONFIG, S_PACKET_IN, S_PACKET_IN_EMPTY, S_FLOW_REMOVED,
    S_PORT_STATUS, S_PACKET_OUT, S_PACKET_OUT_EVERY, S_FLOW_MOD, S_FLOW_MOD_DELETE,
    S_GROUP_MOD, S_GROUP_MOD_DEL, S_PORT_MOD, S_TABLE_MOD, S_BARRIER_REQ, S_BARRIER_REP,
    S_QUEUE_REQ, S_QUEUE_REP, S_ROLE_REQ, S_ROLE_REP, S_GET_ASYNC_REQ, S_GET_ASYNC_REP,
    S_SET_ASYNC, S_METER_MOD, S_METER_MOD_DEL, S_FIXED_COUNT
};

int ofp_test_sample(unsigned i, struct ofp_msg *m)
{
    static const struct ofp_packet_queue queues[] = {
        {1, 2, 100, OFP_QUEUE_RATE_NONE}, {2, 2, OFP_QUEUE_RATE_NONE, 500}, {3, 2, 10, 20}};

    memset(m, 0, sizeof(*m));
    m->hdr.version = OFP13_VERSION;
    m->hdr.xid = 0x1000 + i;
    if (i >= S_FIXED_COUNT) {
        unsigned k = i - S_FIXED_COUNT;
        if (k < N_MP) {
            m->hdr.type = OFPT_MULTIPART_REQUEST;
            sample_mp_request(mp_types[k], &m->u.mp_request);
            return 0;
        }
        k -= N_MP;
        if (k < N_MP) {
            m->hdr.type = OFPT_MULTIPART_REPLY;
            sample_mp_reply(mp_types[k], &m->u.mp_reply);
            return 0;
        }
        return -ENOENT;
    }
    switch (i) {
    case S_HELLO_BITMAP:
        m->hdr.type = OFPT_HELLO;
        ofp_hello_init(&m->u.hello, 1u << 4 | 1u << 1, true);
        break;
    case S_HELLO_BITMAP_WIDE:
        m->hdr.type = OFPT_HELLO;
        ofp_hello_init(&m->u.hello, 1u << 4, true);
        m->u.hello.bitmap[1] = 1;             /* version 32, to need a second word */
        break;
    case S_HELLO_PLAIN:
        m->hdr.type = OFPT_HELLO;
        ofp_hello_init(&m->u.hello, 1u << 4, false);
        break;
    case S_ERROR:
        m->hdr.type = OFPT_ERROR;
        m->u.error = (struct ofp_error){.type = OFPET_BAD_MATCH, .code = OFPBMC_BAD_PREREQ,
                                        .data = junk, .data_len = 20};
        break;
    case S_ERROR_EXP:
        m->hdr.type = OFPT_ERROR;
        m->u.error = (struct ofp_error){.type = OFPET_EXPERIMENTER, .exp_type = 2600,
                                        .experimenter = 0x4f4e4600, .data = junk, .data_len = 8};
        break;
    case S_ECHO_REQ:
        m->hdr.type = OFPT_ECHO_REQUEST;
        m->u.echo = (struct ofp_echo){junk, 5};
        break;
    case S_ECHO_REP:
        m->hdr.type = OFPT_ECHO_REPLY;
        break;
    case S_EXPERIMENTER:
        m->hdr.type = OFPT_EXPERIMENTER;
        m->u.experimenter = (struct ofp_experimenter){0x2320, 17, junk, 3};
        break;
    case S_FEATURES_REQ: m->hdr.type = OFPT_FEATURES_REQUEST; break;
    case S_FEATURES_REP:
        m->hdr.type = OFPT_FEATURES_REPLY;
        m->u.features = (struct ofp_features){0x0000000000000abcull, 256, 254, 0,
                                              OFPC_FLOW_STATS | OFPC_PORT_STATS};
        break;
    case S_GET_CONFIG_REQ: m->hdr.type = OFPT_GET_CONFIG_REQUEST; break;
    case S_GET_CONFIG_REP:
        m->hdr.type = OFPT_GET_CONFIG_REPLY;
        m->u.config = (struct ofp_switch_config){OFPC_FRAG_NORMAL, 128};
        break;
    case S_SET_CONFIG:
        m->hdr.type = OFPT_SET_CONFIG;
        m->u.config = (struct ofp_switch_config){OFPC_FRAG_REASM, OFPCML_NO_BUFFER};
        break;
    case S_PACKET_IN:
        m->hdr.type = OFPT_PACKET_IN;
        m->u.packet_in.buffer_id = OFP_NO_BUFFER;
        m->u.packet_in.total_len = 60;
        m->u.packet_in.reason = OFPR_ACTION;
        m->u.packet_in.table_id = 3;
        m->u.packet_in.cookie = 0x1122334455667788ull;
        ofp_match_init(&m->u.packet_in.match);
        ofp_match_set_uint(&m->u.packet_in.match, OFPXMT_OFB_IN_PORT, 2);
        ofp_match_set_uint(&m->u.packet_in.match, OFPXMT_OFB_TUNNEL_ID, 99);
        memcpy(m->u.packet_in.match.other, nx_reg0, sizeof(nx_reg0));
        m->u.packet_in.match.other_len = sizeof(nx_reg0);
        m->u.packet_in.data = frame;
        m->u.packet_in.data_len = sizeof(frame);
        break;
    case S_PACKET_IN_EMPTY:
        m->hdr.type = OFPT_PACKET_IN;
        m->u.packet_in.buffer_id = 77;
        ofp_match_init(&m->u.packet_in.match);
        break;
    case S_FLOW_REMOVED:
        m->hdr.type = OFPT_FLOW_REMOVED;
        m->u.flow_removed = (struct ofp_flow_removed){.cookie = 5, .priority = 10,
                                                      .reason = OFPRR_IDLE_TIMEOUT,
                                                      .table_id = 1, .duration_sec = 3,
                                                      .duration_nsec = 4, .idle_timeout = 5,
                                                      .packet_count = 6, .byte_count = 7};
        sample_match4(&m->u.flow_removed.match);
        break;
    case S_PORT_STATUS:
        m->hdr.type = OFPT_PORT_STATUS;
        m->u.port_status.reason = OFPPR_MODIFY;
        m->u.port_status.desc = ports[0];
        break;
    case S_PACKET_OUT:
        m->hdr.type = OFPT_PACKET_OUT;
        m->u.packet_out.buffer_id = OFP_NO_BUFFER;
        m->u.packet_out.in_port = OFPP_CONTROLLER;
        m->u.packet_out.actions = (struct ofp_actions){.arr = out_acts, .n = 6};
        m->u.packet_out.data = frame;
        m->u.packet_out.data_len = 42;
        break;
    case S_PACKET_OUT_EVERY:
        m->hdr.type = OFPT_PACKET_OUT;
        m->u.packet_out.buffer_id = 12;
        m->u.packet_out.in_port = 1;
        m->u.packet_out.actions = (struct ofp_actions){.arr = every_act, .n = 14};
        break;
    case S_FLOW_MOD: {
        struct ofp_flow_mod *fm = &m->u.flow_mod;
        m->hdr.type = OFPT_FLOW_MOD;
        fm->cookie = 0xabc;
        fm->table_id = 2;
        fm->command = OFPFC_ADD;
        fm->idle_timeout = 60;
        fm->hard_timeout = 600;
        fm->priority = 1000;
        fm->buffer_id = OFP_NO_BUFFER;
        fm->out_port = OFPP_ANY;
        fm->out_group = OFPG_ANY;
        fm->flags = OFPFF_SEND_FLOW_REM | OFPFF_CHECK_OVERLAP;
        sample_match(&fm->match);
        sample_inst(&fm->inst, fm->table_id);
        break;
    }
    case S_FLOW_MOD_DELETE: {
        struct ofp_flow_mod *fm = &m->u.flow_mod;
        m->hdr.type = OFPT_FLOW_MOD;
        fm->cookie = 0x100;
        fm->cookie_mask = 0xf00;
        fm->table_id = OFPTT_ALL;
        fm->command = OFPFC_DELETE;
        fm->buffer_id = OFP_NO_BUFFER;
        fm->out_port = 5;
        fm->out_group = OFPG_ANY;
        ofp_match_init(&fm->match);
        fm->inst.present = OFP_INST_EXPERIMENTER;
        fm->inst.experimenter = 0x2320;
        fm->inst.exp_data = junk;
        fm->inst.exp_len = 8;
        break;
    }
    case S_GROUP_MOD:
        m->hdr.type = OFPT_GROUP_MOD;
        m->u.group_mod = (struct ofp_group_mod){OFPGC_ADD, OFPGT_SELECT, 7,
                                                {.arr = buckets, .n = 3}};
        break;
    case S_GROUP_MOD_DEL:
        m->hdr.type = OFPT_GROUP_MOD;
        m->u.group_mod = (struct ofp_group_mod){OFPGC_DELETE, OFPGT_ALL, OFPG_ALL, {.n = 0}};
        break;
    case S_PORT_MOD:
        m->hdr.type = OFPT_PORT_MOD;
        m->u.port_mod = (struct ofp_port_mod){3, {2, 0, 0, 0, 0, 3}, OFPPC_PORT_DOWN,
                                              OFPPC_PORT_DOWN | OFPPC_NO_PACKET_IN,
                                              OFPPF_10GB_FD};
        break;
    case S_TABLE_MOD:
        m->hdr.type = OFPT_TABLE_MOD;
        m->u.table_mod = (struct ofp_table_mod){OFPTT_ALL, 3};
        break;
    case S_BARRIER_REQ: m->hdr.type = OFPT_BARRIER_REQUEST; break;
    case S_BARRIER_REP: m->hdr.type = OFPT_BARRIER_REPLY; break;
    case S_QUEUE_REQ:
        m->hdr.type = OFPT_QUEUE_GET_CONFIG_REQUEST;
        m->u.queue_request.port = OFPP_ANY;
        break;
    case S_QUEUE_REP:
        m->hdr.type = OFPT_QUEUE_GET_CONFIG_REPLY;
        m->u.queue_reply = (struct ofp_queue_get_config_reply){2, NULL, 0, queues, 3};
        break;
    case S_ROLE_REQ:
        m->hdr.type = OFPT_ROLE_REQUEST;
        m->u.role = (struct ofp_role){OFPCR_ROLE_MASTER, 0x0102030405060708ull};
        break;
    case S_ROLE_REP:
        m->hdr.type = OFPT_ROLE_REPLY;
        m->u.role = (struct ofp_role){OFPCR_ROLE_SLAVE, 9};
        break;
    case S_GET_ASYNC_REQ: m->hdr.type = OFPT_GET_ASYNC_REQUEST; break;
    case S_GET_ASYNC_REP:
    case S_SET_ASYNC:
        m->hdr.type = i == S_SET_ASYNC ? OFPT_SET_ASYNC : OFPT_GET_ASYNC_REPLY;
        m->u.async = (struct ofp_async){{7, 0}, {7, 7}, {15, 1}};
        break;
    case S_METER_MOD:
        m->hdr.type = OFPT_METER_MOD;
        m->u.meter_mod = (struct ofp_meter_mod){OFPMC_ADD, OFPMF_KBPS | OFPMF_BURST, 5,
                                                {.arr = bands, .n = 3}};
        break;
    case S_METER_MOD_DEL:
        m->hdr.type = OFPT_METER_MOD;
        m->u.meter_mod = (struct ofp_meter_mod){OFPMC_DELETE, 0, OFPM_ALL, {.n = 0}};
        break;
    default:
        return -ENOENT;
    }
    return 0;
}

/* ---- equality -------------------------------------------------------------- */

static bool views_eq(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    return al == bl && (al == 0 || memcmp(a, b, al) == 0);
}

static bool mp_reply_eq(const struct ofp_mp_reply *a, const struct ofp_mp_reply *b)
{
    struct ofp_mp_iter ia, ib;

    if (a->type != b->type || a->flags != b->flags)
        return false;
    ofp_mp_iter_init(&ia, a);
    ofp_mp_iter_init(&ib, b);
    switch (a->type) {
    case OFPMP_DESC:
        return strcmp(a->u.desc.mfr_desc, b->u.desc.mfr_desc) == 0 &&
               strcmp(a->u.desc.hw_desc, b->u.desc.hw_desc) == 0 &&
               strcmp(a->u.desc.sw_desc, b->u.desc.sw_desc) == 0 &&
               strcmp(a->u.desc.serial_num, b->u.desc.serial_num) == 0 &&
               strcmp(a->u.desc.dp_desc, b->u.desc.dp_desc) == 0;
    case OFPMP_AGGREGATE:
        return a->u.agg.packet_count == b->u.agg.packet_count &&
               a->u.agg.byte_count == b->u.agg.byte_count &&
               a->u.agg.flow_count == b->u.agg.flow_count;
    case OFPMP_EXPERIMENTER:
        return a->u.exp.experimenter == b->u.exp.experimenter &&
               a->u.exp.exp_type == b->u.exp.exp_type &&
               views_eq(a->body, a->body_len, b->body, b->body_len);
#define WALK(T, next, eq)                                                                   \
    {                                                                                       \
        T x, y;                                                                             \
        for (;;) {                                                                          \
            bool ha = next(&ia, &x), hb = next(&ib, &y);                                    \
            if (ha != hb)                                                                   \
                return false;                                                               \
            if (!ha)                                                                        \
                return true;                                                                \
            if (!(eq))                                                                      \
                return false;                                                               \
        }                                                                                   \
    }
    case OFPMP_FLOW:
        WALK(struct ofp_flow_stats, ofp_mp_next_flow_stats, ofp_flow_stats_equal(&x, &y))
    case OFPMP_TABLE:
        WALK(struct ofp_table_stats, ofp_mp_next_table_stats,
             x.table_id == y.table_id && x.active_count == y.active_count &&
                 x.lookup_count == y.lookup_count && x.matched_count == y.matched_count)
    case OFPMP_PORT_STATS:
        WALK(struct ofp_port_stats, ofp_mp_next_port_stats, ofp_port_stats_equal(&x, &y))
    case OFPMP_QUEUE:
        WALK(struct ofp_queue_stats, ofp_mp_next_queue_stats, ofp_queue_stats_equal(&x, &y))
    case OFPMP_GROUP:
        WALK(struct ofp_group_stats, ofp_mp_next_group_stats, ofp_group_stats_equal(&x, &y))
    case OFPMP_GROUP_DESC:
        WALK(struct ofp_group_desc, ofp_mp_next_group_desc, ofp_group_desc_equal(&x, &y))
    case OFPMP_METER:
        WALK(struct ofp_meter_stats, ofp_mp_next_meter_stats, ofp_meter_stats_equal(&x, &y))
    case OFPMP_PORT_DESC:
        WALK(struct ofp_port, ofp_mp_next_port, ofp_port_equal(&x, &y))
#undef WALK
    default:
        return views_eq(a->body, a->body_len, b->body, b->body_len);
    }
}

static bool mp_request_eq(const struct ofp_mp_request *a, const struct ofp_mp_request *b)
{
    if (a->type != b->type || a->flags != b->flags)
        return false;
    switch (a->type) {
    case OFPMP_FLOW:
    case OFPMP_AGGREGATE:
        return ofp_flow_stats_request_equal(&a->u.flow, &b->u.flow);
    case OFPMP_PORT_STATS: return a->u.port_no == b->u.port_no;
    case OFPMP_QUEUE:
        return a->u.queue.port_no == b->u.queue.port_no &&
               a->u.queue.queue_id == b->u.queue.queue_id;
    case OFPMP_GROUP: return a->u.group_id == b->u.group_id;
    case OFPMP_METER:
    case OFPMP_METER_CONFIG: return a->u.meter_id == b->u.meter_id;
    case OFPMP_TABLE_FEATURES:
        return views_eq(a->body, a->body_len, b->body, b->body_len);
    case OFPMP_EXPERIMENTER:
        return a->u.exp.experimenter == b->u.exp.experimenter &&
               a->u.exp.exp_type == b->u.exp.exp_type &&
               views_eq(a->body, a->body_len, b->body, b->body_len);
    default:
        return true;
    }
}

static bool queue_reply_eq(const struct ofp_queue_get_config_reply *a,
                           const struct ofp_queue_get_config_reply *b)
{
    uint32_t pa = 0, pb = 0;
    struct ofp_packet_queue x, y;

    if (a->port != b->port)
        return false;
    for (;;) {
        bool ha = ofp_queue_next(a, &pa, &x), hb = ofp_queue_next(b, &pb, &y);
        if (ha != hb)
            return false;
        if (!ha)
            return true;
        if (x.queue_id != y.queue_id || x.port != y.port || x.min_rate != y.min_rate ||
            x.max_rate != y.max_rate)
            return false;
    }
}

bool ofp_test_msg_equal(const struct ofp_msg *a, const struct ofp_msg *b)
{
    if (a->hdr.type != b->hdr.type || a->hdr.xid != b->hdr.xid)
        return false;
    switch (a->hdr.type) {
    case OFPT_HELLO:
        return a->u.hello.version == b->u.hello.version &&
               a->u.hello.has_bitmap == b->u.hello.has_bitmap &&
               (!a->u.hello.has_bitmap ||
                memcmp(a->u.hello.bitmap, b->u.hello.bitmap, sizeof(a->u.hello.bitmap)) == 0);
    case OFPT_ERROR: {
        const struct ofp_error *x = &a->u.error, *y = &b->u.error;
        bool exp = x->type == OFPET_EXPERIMENTER;
        return x->type == y->type && (exp || x->code == y->code) &&
               (!exp || (x->exp_type == y->exp_type && x->experimenter == y->experimenter)) &&
               views_eq(x->data, x->data_len, y->data, y->data_len);
    }
    case OFPT_ECHO_REQUEST:
    case OFPT_ECHO_REPLY:
        return views_eq(a->u.echo.data, a->u.echo.len, b->u.echo.data, b->u.echo.len);
    case OFPT_EXPERIMENTER:
        return a->u.experimenter.experimenter == b->u.experimenter.experimenter &&
               a->u.experimenter.exp_type == b->u.experimenter.exp_type &&
               views_eq(a->u.experimenter.data, a->u.experimenter.len, b->u.experimenter.data,
                        b->u.experimenter.len);
    case OFPT_FEATURES_REPLY: {
        const struct ofp_features *x = &a->u.features, *y = &b->u.features;
        return x->datapath_id == y->datapath_id && x->n_buffers == y->n_buffers &&
               x->n_tables == y->n_tables && x->auxiliary_id == y->auxiliary_id &&
               x->capabilities == y->capabilities;
    }
    case OFPT_GET_CONFIG_REPLY:
    case OFPT_SET_CONFIG:
        return a->u.config.flags == b->u.config.flags &&
               a->u.config.miss_send_len == b->u.config.miss_send_len;
    case OFPT_PACKET_IN: {
        const struct ofp_packet_in *x = &a->u.packet_in, *y = &b->u.packet_in;
        return x->buffer_id == y->buffer_id && x->total_len == y->total_len &&
               x->reason == y->reason && x->table_id == y->table_id && x->cookie == y->cookie &&
               ofp_match_equal(&x->match, &y->match) &&
               views_eq(x->data, x->data_len, y->data, y->data_len);
    }
    case OFPT_FLOW_REMOVED: {
        const struct ofp_flow_removed *x = &a->u.flow_removed, *y = &b->u.flow_removed;
        return x->cookie == y->cookie && x->priority == y->priority && x->reason == y->reason &&
               x->table_id == y->table_id && x->duration_sec == y->duration_sec &&
               x->duration_nsec == y->duration_nsec && x->idle_timeout == y->idle_timeout &&
               x->hard_timeout == y->hard_timeout && x->packet_count == y->packet_count &&
               x->byte_count == y->byte_count && ofp_match_equal(&x->match, &y->match);
    }
    case OFPT_PORT_STATUS:
        return a->u.port_status.reason == b->u.port_status.reason &&
               ofp_port_equal(&a->u.port_status.desc, &b->u.port_status.desc);
    case OFPT_PACKET_OUT: {
        const struct ofp_packet_out *x = &a->u.packet_out, *y = &b->u.packet_out;
        return x->buffer_id == y->buffer_id && x->in_port == y->in_port &&
               ofp_actions_equal(&x->actions, &y->actions) &&
               views_eq(x->data, x->data_len, y->data, y->data_len);
    }
    case OFPT_FLOW_MOD: {
        const struct ofp_flow_mod *x = &a->u.flow_mod, *y = &b->u.flow_mod;
        return x->cookie == y->cookie && x->cookie_mask == y->cookie_mask &&
               x->table_id == y->table_id && x->command == y->command &&
               x->idle_timeout == y->idle_timeout && x->hard_timeout == y->hard_timeout &&
               x->priority == y->priority && x->buffer_id == y->buffer_id &&
               x->out_port == y->out_port && x->out_group == y->out_group &&
               x->flags == y->flags && ofp_match_equal(&x->match, &y->match) &&
               ofp_instructions_equal(&x->inst, &y->inst);
    }
    case OFPT_GROUP_MOD: {
        const struct ofp_group_mod *x = &a->u.group_mod, *y = &b->u.group_mod;
        return x->command == y->command && x->type == y->type && x->group_id == y->group_id &&
               ofp_buckets_equal(&x->buckets, &y->buckets);
    }
    case OFPT_PORT_MOD: {
        const struct ofp_port_mod *x = &a->u.port_mod, *y = &b->u.port_mod;
        return x->port_no == y->port_no && memcmp(x->hw_addr, y->hw_addr, 6) == 0 &&
               x->config == y->config && x->mask == y->mask && x->advertise == y->advertise;
    }
    case OFPT_TABLE_MOD:
        return a->u.table_mod.table_id == b->u.table_mod.table_id &&
               a->u.table_mod.config == b->u.table_mod.config;
    case OFPT_MULTIPART_REQUEST:
        return mp_request_eq(&a->u.mp_request, &b->u.mp_request);
    case OFPT_MULTIPART_REPLY:
        return mp_reply_eq(&a->u.mp_reply, &b->u.mp_reply);
    case OFPT_QUEUE_GET_CONFIG_REQUEST:
        return a->u.queue_request.port == b->u.queue_request.port;
    case OFPT_QUEUE_GET_CONFIG_REPLY:
        return queue_reply_eq(&a->u.queue_reply, &b->u.queue_reply);
    case OFPT_ROLE_REQUEST:
    case OFPT_ROLE_REPLY:
        return a->u.role.role == b->u.role.role &&
               a->u.role.generation_id == b->u.role.generation_id;
    case OFPT_GET_ASYNC_REPLY:
    case OFPT_SET_ASYNC:
        return memcmp(&a->u.async, &b->u.async, sizeof(a->u.async)) == 0;
    case OFPT_METER_MOD: {
        const struct ofp_meter_mod *x = &a->u.meter_mod, *y = &b->u.meter_mod;
        return x->command == y->command && x->flags == y->flags && x->meter_id == y->meter_id &&
               ofp_meter_bands_equal(&x->bands, &y->bands);
    }
    default:
        return true;          /* header-only messages */
    }
}

/* ---- bytes --------------------------------------------------------------------- */

size_t ofp_test_hex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    int hi = -1;

    for (const char *s = hex; *s; s++) {
        int v;
        if (*s >= '0' && *s <= '9')
            v = *s - '0';
        else if (*s >= 'a' && *s <= 'f')
            v = *s - 'a' + 10;
        else if (*s >= 'A' && *s <= 'F')
            v = *s - 'A' + 10;
        else if (*s == ' ' || *s == '\n' || *s == '\t')
            continue;
        else
            abort();
        if (hi < 0) {
            hi = v;
            continue;
        }
        if (n >= cap)
            abort();
        out[n++] = (uint8_t)(hi << 4 | v);
        hi = -1;
    }
    if (hi >= 0)
        abort();
    return n;
}

uint8_t *ofp_test_dup(const void *p, size_t len)
{
    uint8_t *c = malloc(len ? len : 1);
    if (!c)
        abort();
    if (len)
        memcpy(c, p, len);
    return c;
}

size_t ofp_test_encode(const struct ofp_msg *m, uint8_t *buf, size_t cap)
{
    struct ofp_buf b;
    ofp_buf_init(&b, buf, cap);
    int rc = ofp_encode(&b, m);
    if (rc < 0) {
        fprintf(stderr, "encode of %s failed: %d\n", ofp_msg_type_name(m->hdr.type), rc);
        abort();
    }
    return b.len;
}

size_t ofp_test_flow_reply(const struct ofp_flow_stats *fs, unsigned n, uint32_t xid, bool more,
                           uint8_t *buf, size_t cap)
{
    static uint8_t body[65535 - 16];
    struct ofp_buf b;
    struct ofp_msg m;

    ofp_buf_init(&b, body, sizeof(body));
    for (unsigned i = 0; i < n; i++)
        if (ofp_flow_stats_put(&b, &fs[i]) < 0) {
            fprintf(stderr, "flow stats entry %u of %u does not fit a reply\n", i, n);
            abort();
        }
    memset(&m, 0, sizeof(m));
    m.hdr.version = OFP13_VERSION;
    m.hdr.type = OFPT_MULTIPART_REPLY;
    m.hdr.xid = xid;
    m.u.mp_reply.type = OFPMP_FLOW;
    m.u.mp_reply.flags = more ? OFPMPF_REPLY_MORE : 0;
    m.u.mp_reply.body = body;
    m.u.mp_reply.body_len = (uint16_t)b.len;
    return ofp_test_encode(&m, buf, cap);
}

int ofp_test_decode_copy(const uint8_t *msg, size_t len, struct ofp_msg *out,
                         struct ofp_err *err, uint8_t **keep)
{
    uint8_t *c = ofp_test_dup(msg, len);
    int rc = ofp_decode(c, len, out, err);
    if (keep)
        *keep = c;
    else
        free(c);
    return rc;
}
