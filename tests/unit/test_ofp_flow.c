/*
 * test_ofp_flow: FLOW_MOD, FLOW_REMOVED and FLOW statistics pieces.
 * Vectors: a small flow_mod and a flow_removed written by hand from the
 * spec (§7.3.4.1, §7.4.2), and a large flow_mod using every instruction
 * whose bytes Open vSwitch's own decoder (ovs-ofctl ofp-print) read back as
 * the same flow — its decoded form is checked against what OVS printed.
 * Then the spec errors for bad commands, flags, tables, matches and
 * instruction lengths.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ofp_msg.h"
#include "ofp_test_util.h"

/* ADD table 0 prio 0x8000 cookie 10 idle 60 SEND_FLOW_REM, in_port=1,
 * apply_actions(output:2 max_len 0xffe5). */
static const char small_fm[] =
    "04 0e 00 58 00 00 00 01  00 00 00 00 00 00 00 0a  00 00 00 00 00 00 00 00"
    "00 00 00 3c 00 00 80 00  ff ff ff ff ff ff ff ff  ff ff ff ff 00 01 00 00"
    "00 01 00 0c 80 00 00 04  00 00 00 01 00 00 00 00"
    "00 04 00 18 00 00 00 00  00 00 00 10 00 00 00 02  ff e5 00 00 00 00 00 00";

/* ovs-ofctl ofp-print: "ADD table:2 priority=1000,tcp6,metadata=0x1200/0xff00,
 * in_port=7,dl_vlan_pcp=5,ipv6_src=2001:db8:0:10::/64,tp_dst=443 cookie:0xabc
 * idle:60 hard:600 send_flow_rem check_overlap actions=meter:4,push_vlan:0x8100,
 * set_field:4196->vlan_vid,set_field:2001:db8::1->ipv6_src,set_field:0x2a->reg0,
 * output:3,CONTROLLER:128,clear_actions,write_actions(set_mpls_ttl(9),
 * dec_mpls_ttl,pop_vlan,push_mpls:0x8847,pop_mpls:0x0800,set_queue:7,group:12,
 * mod_nw_ttl:33,dec_ttl),write_metadata:0xfeed/0xffff,goto_table:3" */
static const char ovs_checked_fm[] =
    "040e0180000010130000000000000abc00000000000000000200003c025803e8"
    "ffffffffffffffffffffffff0003000000010062800000040000000780000510"
    "0000000000001200000000000000ff0080000a0286dd80000d04100010008000"
    "0e0105800014010680001c0201bb8000352020010db800000010000000000000"
    "0000ffffffffffffffff00000000000000000000000000000006000800000004"
    "000400680000000000110008810000000019001080000c021064000000000000"
    "001900188000341020010db80000000000000000000000010019001000010004"
    "0000002a000000000000001000000003000000000000000000000010fffffffd"
    "008000000000000000050008000000000003005000000000000f000809000000"
    "0010000800000000001200080000000000130008884700000014000808000000"
    "0015000800000007001600080000000c00170008210000000018000800000000"
    "0002001800000000000000000000feed000000000000ffff0001000803000000";

struct fx {
    uint8_t bytes[1024];
    size_t n;
    uint8_t *copy;
    struct ofp_msg m;
    struct ofp_err err;
};

static int setup(void **state)
{
    *state = calloc(1, sizeof(struct fx));
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    free(f->copy);
    free(f);
    return 0;
}

static void load(struct fx *f, const char *hex)
{
    f->n = ofp_test_hex(hex, f->bytes, sizeof(f->bytes));
}

static int dec(struct fx *f)
{
    free(f->copy);
    f->copy = NULL;
    f->bytes[2] = (uint8_t)(f->n >> 8);
    f->bytes[3] = (uint8_t)f->n;
    return ofp_test_decode_copy(f->bytes, f->n, &f->m, &f->err, &f->copy);
}

static void expect_fail(struct fx *f, uint16_t type, uint16_t code)
{
    int rc = dec(f);
    char g[96];
    ofp_err_format(f->err, g, sizeof(g));
    if (rc != -EBADMSG || f->err.type != type || f->err.code != code)
        fail_msg("rc %d %s, expected %s", rc, g, ofp_err_code_name(type, code));
}

static void test_small_flow_mod(void **state)
{
    struct fx *f = *state;
    struct ofp_action_iter it;
    struct ofp_action a;
    load(f, small_fm);
    assert_int_equal(dec(f), 0);
    const struct ofp_flow_mod *fm = &f->m.u.flow_mod;
    assert_int_equal(fm->cookie, 10);
    assert_int_equal(fm->cookie_mask, 0);
    assert_int_equal(fm->table_id, 0);
    assert_int_equal(fm->command, OFPFC_ADD);
    assert_int_equal(fm->idle_timeout, 60);
    assert_int_equal(fm->hard_timeout, 0);
    assert_int_equal(fm->priority, 0x8000);
    assert_int_equal(fm->buffer_id, OFP_NO_BUFFER);
    assert_int_equal(fm->out_port, OFPP_ANY);
    assert_int_equal(fm->out_group, OFPG_ANY);
    assert_int_equal(fm->flags, OFPFF_SEND_FLOW_REM);
    assert_int_equal(fm->match.present, 1ull << OFPXMT_OFB_IN_PORT);
    assert_int_equal(ofp_match_get_uint(&fm->match, OFPXMT_OFB_IN_PORT), 1);
    assert_int_equal(fm->inst.present, OFP_INST_APPLY_ACTIONS);
    ofp_actions_iter_init(&it, &fm->inst.apply_actions);
    assert_true(ofp_actions_next(&it, &a));
    assert_int_equal(a.type, OFPAT_OUTPUT);
    assert_int_equal(a.u.output.port, 2);
    assert_false(ofp_actions_next(&it, &a));

    /* building the same flow_mod gives the same bytes */
    struct ofp_msg m;
    static const struct ofp_action out2 = {.type = OFPAT_OUTPUT,
                                           .u.output = {.port = 2, .max_len = OFPCML_MAX}};
    uint8_t enc[256];
    memset(&m, 0, sizeof(m));
    m.hdr.type = OFPT_FLOW_MOD;
    m.hdr.xid = 1;
    m.u.flow_mod = (struct ofp_flow_mod){.cookie = 10, .idle_timeout = 60, .priority = 0x8000,
                                         .buffer_id = OFP_NO_BUFFER, .out_port = OFPP_ANY,
                                         .out_group = OFPG_ANY, .flags = OFPFF_SEND_FLOW_REM};
    ofp_match_init(&m.u.flow_mod.match);
    ofp_match_set_uint(&m.u.flow_mod.match, OFPXMT_OFB_IN_PORT, 1);
    m.u.flow_mod.inst.present = OFP_INST_APPLY_ACTIONS;
    m.u.flow_mod.inst.apply_actions = (struct ofp_actions){.arr = &out2, .n = 1};
    assert_int_equal(ofp_test_encode(&m, enc, sizeof(enc)), f->n);
    assert_memory_equal(enc, f->bytes, f->n);
}

static void test_ovs_checked_flow_mod(void **state)
{
    struct fx *f = *state;
    char s[1024];
    load(f, ovs_checked_fm);
    assert_int_equal(dec(f), 0);
    const struct ofp_flow_mod *fm = &f->m.u.flow_mod;
    assert_int_equal(fm->command, OFPFC_ADD);
    assert_int_equal(fm->table_id, 2);
    assert_int_equal(fm->priority, 1000);
    assert_int_equal(fm->cookie, 0xabc);
    assert_int_equal(fm->idle_timeout, 60);
    assert_int_equal(fm->hard_timeout, 600);
    assert_int_equal(fm->flags, OFPFF_SEND_FLOW_REM | OFPFF_CHECK_OVERLAP);
    ofp_match_format(&fm->match, s, sizeof(s));
    assert_string_equal(s, "in_port=7,metadata=0x0000000000001200/0x000000000000ff00,"
                           "eth_type=0x86dd,vlan_vid=0x1000/0x1000,vlan_pcp=5,ip_proto=6,"
                           "tcp_dst=443,ipv6_src=2001:db8:0:10::/ffff:ffff:ffff:ffff::");
    ofp_instructions_format(&fm->inst, s, sizeof(s));
    assert_string_equal(s, "meter:4,apply_actions(push_vlan:0x8100,set_field:vlan_vid=0x1064,"
                           "set_field:ipv6_src=2001:db8::1,"
                           "set_field:oxm(class=0x0001,field=0,len=4),output:3,"
                           "output:controller(max_len=128)),clear_actions,"
                           "write_actions(set_mpls_ttl:9,dec_mpls_ttl,pop_vlan,"
                           "push_mpls:0x8847,pop_mpls:0x0800,set_queue:7,group:12,"
                           "set_nw_ttl:33,dec_nw_ttl),write_metadata:0xfeed/0xffff,"
                           "goto_table:3");
}

static void test_flow_mod_errors(void **state)
{
    struct fx *f = *state;

    load(f, small_fm);
    f->bytes[25] = 5;                                   /* command */
    expect_fail(f, OFPET_FLOW_MOD_FAILED, OFPFMFC_BAD_COMMAND);
    load(f, small_fm);
    f->bytes[45] = 0x20;                                /* unknown flag */
    expect_fail(f, OFPET_FLOW_MOD_FAILED, OFPFMFC_BAD_FLAGS);
    load(f, small_fm);
    f->bytes[24] = OFPTT_ALL;                           /* ADD to all tables */
    expect_fail(f, OFPET_FLOW_MOD_FAILED, OFPFMFC_BAD_TABLE_ID);
    f->bytes[25] = OFPFC_MODIFY_STRICT;
    expect_fail(f, OFPET_FLOW_MOD_FAILED, OFPFMFC_BAD_TABLE_ID);
    f->bytes[25] = OFPFC_DELETE;
    assert_int_equal(dec(f), 0);

    /* match claims more bytes than the message has */
    load(f, small_fm);
    f->n = 48 + 12;
    f->bytes[51] = 0x0c;
    expect_fail(f, OFPET_BAD_MATCH, OFPBMC_BAD_LEN);
    /* match without the prerequisite: tcp_dst alone */
    load(f, small_fm);
    memcpy(f->bytes + 48, "\x00\x01\x00\x0a\x80\x00\x1c\x02\x00\x50\x00\x00\x00\x00\x00\x00", 16);
    expect_fail(f, OFPET_BAD_MATCH, OFPBMC_BAD_PREREQ);
    /* instructions that do not end on an 8-byte boundary */
    load(f, small_fm);
    f->n += 4;
    expect_fail(f, OFPET_BAD_INSTRUCTION, OFPBIC_BAD_LEN);
    /* instruction length past the message */
    load(f, small_fm);
    f->bytes[67] = 0x20;
    expect_fail(f, OFPET_BAD_INSTRUCTION, OFPBIC_BAD_LEN);
    /* goto_table back to this flow's own table */
    load(f, small_fm);
    f->n = 64;
    memcpy(f->bytes + 64, "\x00\x01\x00\x08\x00\x00\x00\x00", 8);
    f->n = 72;
    expect_fail(f, OFPET_BAD_INSTRUCTION, OFPBIC_BAD_TABLE_ID);
    /* fewer than the 48 fixed bytes + an empty match */
    load(f, small_fm);
    f->n = 55;
    expect_fail(f, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
}

static void test_flow_mod_encode_checks(void **state)
{
    struct ofp_flow_mod fm;
    uint8_t out[256];
    struct ofp_buf b;
    (void)state;
    ofp_buf_init(&b, out, sizeof(out));
    memset(&fm, 0, sizeof(fm));
    ofp_match_init(&fm.match);
    assert_int_equal(ofp_flow_mod_encode(&b, 1, &fm), 0);
    b.len = 0;

    fm.command = 7;
    assert_int_equal(ofp_flow_mod_encode(&b, 1, &fm), -EINVAL);
    fm.command = OFPFC_ADD;
    fm.flags = 0x40;
    assert_int_equal(ofp_flow_mod_encode(&b, 1, &fm), -EINVAL);
    fm.flags = 0;
    fm.table_id = OFPTT_ALL;
    assert_int_equal(ofp_flow_mod_encode(&b, 1, &fm), -EINVAL);
    fm.table_id = 3;
    fm.inst.present = OFP_INST_GOTO_TABLE;
    fm.inst.goto_table = 3;
    assert_int_equal(ofp_flow_mod_encode(&b, 1, &fm), -EINVAL);
    fm.inst.present = 0;
    ofp_match_set_uint(&fm.match, OFPXMT_OFB_IPV4_DST, 1);   /* no eth_type */
    assert_int_equal(ofp_flow_mod_encode(&b, 1, &fm), -EINVAL);
    assert_int_equal(b.len, 0);
}

/* ---- FLOW_REMOVED ---------------------------------------------------------------------- */

static const char flow_removed_hex[] =
    "04 0b 00 40 00 00 00 02  00 00 00 00 00 00 00 0a  80 00 00 03 00 00 00 05"
    "00 00 00 06 00 3c 00 00  00 00 00 00 00 00 00 07  00 00 00 00 00 00 00 08"
    "00 01 00 0c 80 00 00 04  00 00 00 01 00 00 00 00";

static void test_flow_removed(void **state)
{
    struct fx *f = *state;
    load(f, flow_removed_hex);
    assert_int_equal(dec(f), 0);
    const struct ofp_flow_removed *fr = &f->m.u.flow_removed;
    assert_int_equal(fr->cookie, 10);
    assert_int_equal(fr->priority, 0x8000);
    assert_int_equal(fr->reason, OFPRR_IDLE_TIMEOUT);
    assert_int_equal(fr->table_id, 3);
    assert_int_equal(fr->duration_sec, 5);
    assert_int_equal(fr->duration_nsec, 6);
    assert_int_equal(fr->idle_timeout, 60);
    assert_int_equal(fr->hard_timeout, 0);
    assert_int_equal(fr->packet_count, 7);
    assert_int_equal(fr->byte_count, 8);
    assert_int_equal(ofp_match_get_uint(&fr->match, OFPXMT_OFB_IN_PORT), 1);

    load(f, flow_removed_hex);
    memset(f->bytes + 64, 0, 8);
    f->n = 72;                                          /* 8 bytes after the match */
    expect_fail(f, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    load(f, flow_removed_hex);
    f->n = 60;                                          /* padding of the match cut */
    expect_fail(f, OFPET_BAD_MATCH, OFPBMC_BAD_LEN);
}

/* ---- FLOW statistics entries -------------------------------------------------------------- */

/* One ofp_flow_stats: length 72, table 1, 5.6 s, prio 7, idle 8, hard 9,
 * flags 1, cookie 10, 11 packets, 12 bytes, in_port=1, goto_table 2. */
static const char flow_stats_hex[] =
    "00 48 01 00 00 00 00 05  00 00 00 06 00 07 00 08  00 09 00 01 00 00 00 00"
    "00 00 00 00 00 00 00 0a  00 00 00 00 00 00 00 0b  00 00 00 00 00 00 00 0c"
    "00 01 00 0c 80 00 00 04  00 00 00 01 00 00 00 00"
    "00 01 00 08 02 00 00 00  00 00 00 00 00 00 00 00";

static int parse_fs(const uint8_t *b, size_t n, struct ofp_flow_stats *fs, size_t *used,
                    struct ofp_err *err)
{
    uint8_t *c = ofp_test_dup(b, n);
    int rc = ofp_flow_stats_parse(c, n, fs, used, err);
    free(c);
    return rc;
}

static void test_flow_stats_entry(void **state)
{
    uint8_t b[128];
    struct ofp_flow_stats fs;
    struct ofp_err err;
    size_t used;
    (void)state;

    size_t n = ofp_test_hex(flow_stats_hex, b, sizeof(b));
    assert_int_equal(n, 80);          /* 72-byte entry + 8 bytes of the next one */
    assert_int_equal(parse_fs(b, 80, &fs, &used, &err), 0);
    assert_int_equal(used, 72);
    assert_int_equal(fs.table_id, 1);
    assert_int_equal(fs.duration_sec, 5);
    assert_int_equal(fs.duration_nsec, 6);
    assert_int_equal(fs.priority, 7);
    assert_int_equal(fs.idle_timeout, 8);
    assert_int_equal(fs.hard_timeout, 9);
    assert_int_equal(fs.flags, 1);
    assert_int_equal(fs.cookie, 10);
    assert_int_equal(fs.packet_count, 11);
    assert_int_equal(fs.byte_count, 12);
    assert_int_equal(fs.inst.present, OFP_INST_GOTO_TABLE);
    assert_int_equal(fs.inst.goto_table, 2);

    /* length not a multiple of 8, below the minimum, past what there is */
    b[1] = 0x44;
    assert_int_equal(parse_fs(b, 80, &fs, &used, &err), -EBADMSG);
    assert_true(err.type == OFPET_BAD_REQUEST && err.code == OFPBRC_BAD_LEN);
    b[1] = 0x30;
    assert_int_equal(parse_fs(b, 80, &fs, &used, &err), -EBADMSG);
    assert_true(err.code == OFPBRC_BAD_LEN);
    b[1] = 0x58;
    assert_int_equal(parse_fs(b, 80, &fs, &used, &err), -EBADMSG);
    assert_true(err.code == OFPBRC_BAD_LEN);
    /* goto_table not beyond the entry's table */
    b[1] = 0x48;
    b[64 + 4] = 1;
    assert_int_equal(parse_fs(b, 80, &fs, &used, &err), -EBADMSG);
    assert_true(err.type == OFPET_BAD_INSTRUCTION && err.code == OFPBIC_BAD_TABLE_ID);
    /* fewer bytes than any entry */
    assert_int_equal(parse_fs(b, 55, &fs, &used, &err), -EBADMSG);
    assert_true(err.code == OFPBRC_BAD_LEN);
}

static void test_flow_stats_request_body(void **state)
{
    uint8_t b[128];
    struct ofp_flow_stats_request r;
    struct ofp_err err;
    (void)state;
    size_t n = ofp_test_hex("ff 00 00 00 ff ff ff ff  ff ff ff ff 00 00 00 00"
                            "00 00 00 00 00 00 00 10  00 00 00 00 00 00 00 f0"
                            "00 01 00 04 00 00 00 00",
                            b, sizeof(b));
    assert_int_equal(ofp_flow_stats_request_parse(b, n, &r, &err), 0);
    assert_int_equal(r.table_id, OFPTT_ALL);
    assert_int_equal(r.out_port, OFPP_ANY);
    assert_int_equal(r.out_group, OFPG_ANY);
    assert_int_equal(r.cookie, 0x10);
    assert_int_equal(r.cookie_mask, 0xf0);
    assert_int_equal(r.match.present, 0);
    assert_int_equal(ofp_flow_stats_request_parse(b, n + 8, &r, &err), -EBADMSG);
    assert_true(err.type == OFPET_BAD_REQUEST && err.code == OFPBRC_BAD_LEN);
    assert_int_equal(ofp_flow_stats_request_parse(b, 36, &r, &err), -EBADMSG);
    assert_true(err.type == OFPET_BAD_MATCH && err.code == OFPBMC_BAD_LEN);
    assert_int_equal(ofp_flow_stats_request_parse(b, 34, &r, &err), -EBADMSG);
    assert_true(err.type == OFPET_BAD_REQUEST && err.code == OFPBRC_BAD_LEN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_small_flow_mod, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ovs_checked_flow_mod, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flow_mod_errors, setup, teardown),
        cmocka_unit_test(test_flow_mod_encode_checks),
        cmocka_unit_test_setup_teardown(test_flow_removed, setup, teardown),
        cmocka_unit_test(test_flow_stats_entry),
        cmocka_unit_test(test_flow_stats_request_body),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
