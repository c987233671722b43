/*
 * test_flow_json: the Kytos-ng flow JSON <-> FLOW_MOD conversion the REST
 * flow manager relies on — every top-level and match field accepted and
 * rejected with a message naming it, each action and instruction, the
 * produced FLOW_MOD surviving ofp_encode/ofp_validate/ofp_decode unchanged,
 * render(parse(x)) == x for canonical flows (the typed flow and how it was
 * written, together), a stored record read back as the flow it was, and
 * flow identity hashes (fm_flow.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow_json.h"
#include "json_tape.h"
#include "json_u64.h"
#include "ofp_msg.h"

/* A parsed flow and how it was written: what the REST face has of one. */
struct kflow {
    struct fm_flow fl;
    struct flow_json_form form;
};

static json_t *render(const struct kflow *f)
{
    return flow_json_render(&f->fl, &f->form);
}

static json_t *load(const char *text)
{
    json_error_t je;
    json_t *j = json_u64_loadb(text, strlen(text), &je);
    if (!j)
        fail_msg("bad test JSON '%s': %s", text, je.text);
    return j;
}

static int parse_text(const char *text, bool del, struct kflow *f, char *err, size_t n)
{
    json_t *j = load(text);
    int rc = flow_json_parse_json(j, del, &f->fl, &f->form, err, n);
    json_decref(j);
    return rc;
}

/* The flow_mod must survive encode -> validate -> decode with the same meaning. */
static void check_wire(const struct kflow *f)
{
    static uint8_t buf[8192];
    struct ofp_msg m, d;
    struct ofp_buf b;
    struct ofp_err oe;

    memset(&m, 0, sizeof(m));
    m.hdr.version = OFP13_VERSION;
    m.hdr.type = OFPT_FLOW_MOD;
    m.hdr.xid = 7;
    m.u.flow_mod = f->fl.mod;
    ofp_buf_init(&b, buf, sizeof(buf));
    assert_int_equal(ofp_encode(&b, &m), 0);
    assert_int_equal(ofp_validate(b.data, b.len, &oe), 0);
    assert_int_equal(ofp_decode(b.data, b.len, &d, &oe), 0);
    assert_true(ofp_match_equal(&d.u.flow_mod.match, &f->fl.mod.match));
    assert_true(ofp_instructions_equal(&d.u.flow_mod.inst, &f->fl.mod.inst));
    assert_int_equal(d.u.flow_mod.priority, f->fl.mod.priority);
    assert_int_equal(d.u.flow_mod.table_id, f->fl.mod.table_id);
    assert_int_equal(d.u.flow_mod.command, f->fl.mod.command);
    assert_true(d.u.flow_mod.cookie == f->fl.mod.cookie);
}

/* What a request keeps (flow_json_parse_wire from the tape) is the same
 * flow and exactly the FLOW_MOD fm_flow_mod_encode makes of it. */
static void check_kept_wire(const char *text, bool del, const struct kflow *f)
{
    static uint8_t wire[FLOW_JSON_WIRE_MAX], want[FLOW_JSON_WIRE_MAX];
    struct jt_tape t = {0};
    struct fm_flow g;
    size_t len = 0, want_len = 0;
    char err[256] = "";

    assert_int_equal(jt_parse(&t, text, strlen(text), JT_MARKERS), 0);
    if (flow_json_parse_wire(jt_root(&t), del, &g, NULL, wire, &len, err, sizeof(err)))
        fail_msg("'%s' rejected from the tape: %s", text, err);
    jt_free(&t);
    assert_int_equal(fm_flow_mod_encode(&f->fl.mod, want, sizeof(want), &want_len), 0);
    assert_int_equal(len, want_len);
    assert_memory_equal(wire, want, len);
    assert_int_equal(fm_flow_id(1, &g), fm_flow_id(1, &f->fl));
}

static void parse_ok(const char *text, bool del, struct kflow *f)
{
    char err[256] = "";
    int rc = parse_text(text, del, f, err, sizeof(err));
    if (rc)
        fail_msg("'%s' rejected: %s", text, err);
    check_wire(f);
    check_kept_wire(text, del, f);
}

static void parse_bad(const char *text, bool del, const char *want)
{
    struct kflow f;
    char err[256] = "";
    int rc = parse_text(text, del, &f, err, sizeof(err));
    if (rc != -EINVAL)
        fail_msg("'%s' accepted (rc %d), expected error containing \"%s\"", text, rc, want);
    if (!strstr(err, want))
        fail_msg("'%s': error \"%s\" does not contain \"%s\"", text, err, want);
}

static void match_is(const char *match_json, const char *want_fmt)
{
    char text[1024], got[1024];
    struct kflow f;
    snprintf(text, sizeof(text), "{\"match\": %s}", match_json);
    parse_ok(text, false, &f);
    ofp_match_format(&f.fl.mod.match, got, sizeof(got));
    if (strcmp(got, want_fmt))
        fail_msg("match %s -> \"%s\", expected \"%s\"", match_json, got, want_fmt);
}

/* ---- top level ------------------------------------------------------------ */

static void test_defaults(void **state)
{
    (void)state;
    struct kflow f;
    parse_ok("{}", false, &f);
    assert_int_equal(f.fl.mod.table_id, 0);
    assert_int_equal(f.fl.mod.priority, 0x8000);
    assert_int_equal(f.fl.mod.command, OFPFC_ADD);
    assert_int_equal(f.fl.mod.idle_timeout, 0);
    assert_int_equal(f.fl.mod.hard_timeout, 0);
    assert_true(f.fl.mod.cookie == 0);
    assert_true(f.fl.mod.buffer_id == OFP_NO_BUFFER);
    assert_int_equal(f.fl.mod.inst.present, 0);
    assert_true(f.fl.mod.match.present == 0);
    assert_false(f.form.has_owner);

    parse_ok("{}", true, &f);
    assert_int_equal(f.fl.mod.command, OFPFC_DELETE);
    assert_true(f.fl.mod.out_port == OFPP_ANY);
    assert_true(f.fl.mod.out_group == OFPG_ANY);
}

static void test_top_fields(void **state)
{
    (void)state;
    struct kflow f;
    parse_ok("{\"table_id\": 254, \"priority\": 65535, \"idle_timeout\": 30,"
             " \"hard_timeout\": 65535, \"cookie\": 9223372036854775807,"
             " \"owner\": \"mef_eline\"}", false, &f);
    assert_int_equal(f.fl.mod.table_id, 254);
    assert_int_equal(f.fl.mod.priority, 65535);
    assert_int_equal(f.fl.mod.idle_timeout, 30);
    assert_int_equal(f.fl.mod.hard_timeout, 65535);
    assert_true(f.fl.mod.cookie == 0x7fffffffffffffffull);
    assert_string_equal(f.fl.owner, "mef_eline");
    assert_true(f.form.has_owner);

    parse_ok("{\"cookie\": \"0xffffffffffffffff\", \"cookie_mask\": \"18446744073709551615\","
             " \"table_id\": 255}", true, &f);
    assert_true(f.fl.mod.cookie == UINT64_MAX);
    assert_true(f.fl.mod.cookie_mask == UINT64_MAX);
    assert_int_equal(f.fl.mod.table_id, 255);
    assert_true(f.form.has_cookie_mask);

    /* Above INT64_MAX the cookie goes back out as a number (json_u64). */
    json_t *r = render(&f);
    assert_non_null(r);
    uint64_t v = 0;
    assert_int_equal(json_u64_marker_value(json_string_value(json_object_get(r, "cookie")), &v),
                     1);
    assert_true(v == UINT64_MAX);
    json_decref(r);
}

static void test_top_errors(void **state)
{
    (void)state;
    parse_bad("[]", false, "wrong type for 'flows[]': expected object");
    parse_bad("{\"priority\": \"1\"}", false,
              "wrong type for 'priority': expected integer 0..65535");
    parse_bad("{\"priority\": 65536}", false, "invalid value for 'priority'");
    parse_bad("{\"priority\": -1}", false, "invalid value for 'priority'");
    parse_bad("{\"priority\": 1.0}", false, "wrong type for 'priority'");
    parse_bad("{\"table_id\": 255}", false,
              "invalid value for 'table_id': expected integer 0..254");
    parse_bad("{\"table_id\": 256}", true, "invalid value for 'table_id': expected integer 0..255");
    parse_bad("{\"table_id\": null}", false, "wrong type for 'table_id'");
    parse_bad("{\"idle_timeout\": 70000}", false, "invalid value for 'idle_timeout'");
    parse_bad("{\"hard_timeout\": true}", false, "wrong type for 'hard_timeout'");
    parse_bad("{\"cookie\": -1}", false, "invalid value for 'cookie'");
    parse_bad("{\"cookie\": \"12abc\"}", false, "invalid value for 'cookie'");
    parse_bad("{\"cookie\": \"18446744073709551616\"}", false, "invalid value for 'cookie'");
    parse_bad("{\"cookie\": [1]}", false, "wrong type for 'cookie'");
    parse_bad("{\"cookie_mask\": 1}", false, "cookie_mask: only allowed when deleting");
    /* Kytos-ng's delete rule: cookie and cookie_mask together or not at all. */
    parse_bad("{\"cookie\": 5}", true, "cookie is set, cookie_mask should be set too");
    parse_bad("{\"cookie_mask\": 5}", true, "cookie_mask is set, cookie should be set too");
    parse_bad("{\"owner\": 5}", false, "wrong type for 'owner': expected string");
    parse_bad("{\"owner\": \"0123456789012345678901234567890123456789012345678901234567890123\"}",
              false, "invalid value for 'owner'");
    parse_bad("{\"foo\": 1}", false, "unknown field 'foo'");
    parse_bad("{\"match\": []}", false, "wrong type for 'match': expected object");
    parse_bad("{\"match\": {\"foo\": 1}}", false, "unknown field 'match.foo'");
    parse_bad("{\"actions\": [], \"instructions\": []}", false,
              "actions and instructions are mutually exclusive");
    parse_bad("{\"actions\": {}}", false, "wrong type for 'actions'");
    parse_bad("{\"instructions\": 3}", false, "wrong type for 'instructions'");
}

/* ---- match ---------------------------------------------------------------- */

static void test_match_fields(void **state)
{
    (void)state;
    char want[256];

    match_is("{\"in_port\": 1}", "in_port=1");
    match_is("{\"in_port\": 1, \"in_phy_port\": 2}", "in_port=1,in_phy_port=2");
    match_is("{\"dl_src\": \"00:11:22:33:44:55\", \"dl_dst\": \"AA:bb:cc:dd:ee:ff\"}",
             "eth_dst=aa:bb:cc:dd:ee:ff,eth_src=00:11:22:33:44:55");
    match_is("{\"dl_dst\": \"01:00:00:00:00:00/01:00:00:00:00:00\"}",
             "eth_dst=01:00:00:00:00:00/01:00:00:00:00:00");
    /* A full mask is an exact match. */
    match_is("{\"dl_dst\": \"01:02:03:04:05:06/ff:ff:ff:ff:ff:ff\"}", "eth_dst=01:02:03:04:05:06");
    match_is("{\"dl_type\": 2048}", "eth_type=0x0800");
    match_is("{\"dl_vlan\": 100}", "vlan_vid=0x1064");
    /* Kytos: VLAN 0 in a match means untagged (OVS vlan_tci=0x0000/0x1fff). */
    match_is("{\"dl_vlan\": 0}", "vlan_vid=0x0000");
    /* A tagged VID 0, exactly: the full-mask form (the fuzzer found it did
     * not survive rendering once 0 meant untagged). */
    match_is("{\"dl_vlan\": \"4096/8191\"}", "vlan_vid=0x1000");
    {
        struct kflow f, g;
        char err[256];
        parse_ok("{\"match\": {\"dl_vlan\": \"4096/8191\"}}", false, &f);
        json_t *r = render(&f);
        assert_int_equal(flow_json_parse_json(r, false, &g.fl, &g.form, err, sizeof(err)), 0);
        assert_true(ofp_match_equal(&f.fl.mod.match, &g.fl.mod.match));
        json_decref(r);
    }
    match_is("{\"dl_vlan\": \"untagged\"}", "vlan_vid=0x0000");
    match_is("{\"dl_vlan\": \"4096/4096\"}", "vlan_vid=0x1000/0x1000");
    match_is("{\"dl_vlan\": \"any\"}", "vlan_vid=0x1000/0x1000");
    match_is("{\"dl_vlan\": \"16/4080\"}", "vlan_vid=0x1010/0x1ff0");
    match_is("{\"dl_vlan\": 5, \"dl_vlan_pcp\": 7}", "vlan_vid=0x1005,vlan_pcp=7");
    match_is("{\"dl_type\": 2048, \"ip_dscp\": 63, \"ip_ecn\": 3, \"nw_proto\": 6}",
             "eth_type=0x0800,ip_dscp=63,ip_ecn=3,ip_proto=6");
    match_is("{\"dl_type\": 2048, \"nw_src\": \"10.0.0.1\", \"nw_dst\": \"10.1.0.0/16\"}",
             "eth_type=0x0800,ipv4_src=10.0.0.1,ipv4_dst=10.1.0.0/255.255.0.0");
    /* Value bits outside the mask are dropped, dotted masks work. */
    match_is("{\"dl_type\": 2048, \"nw_src\": \"10.0.0.77/255.255.255.0\"}",
             "eth_type=0x0800,ipv4_src=10.0.0.0/255.255.255.0");
    match_is("{\"dl_type\": 2048, \"nw_src\": \"10.0.0.1/32\"}",
             "eth_type=0x0800,ipv4_src=10.0.0.1");
    match_is("{\"dl_type\": 2048, \"nw_proto\": 6, \"tp_src\": 80, \"tp_dst\": 443}",
             "eth_type=0x0800,ip_proto=6,tcp_src=80,tcp_dst=443");
    match_is("{\"tp_dst\": 53, \"dl_type\": 2048, \"nw_proto\": 17}",
             "eth_type=0x0800,ip_proto=17,udp_dst=53");
    match_is("{\"dl_type\": 34525, \"nw_proto\": 132, \"tp_src\": 9}",
             "eth_type=0x86dd,ip_proto=132,sctp_src=9");
    match_is("{\"dl_type\": 2048, \"nw_proto\": 17, \"udp_src\": 1, \"udp_dst\": 2}",
             "eth_type=0x0800,ip_proto=17,udp_src=1,udp_dst=2");
    match_is("{\"dl_type\": 2048, \"nw_proto\": 132, \"sctp_src\": 1, \"sctp_dst\": 2}",
             "eth_type=0x0800,ip_proto=132,sctp_src=1,sctp_dst=2");
    match_is("{\"dl_type\": 2048, \"nw_proto\": 1, \"icmpv4_type\": 8, \"icmpv4_code\": 0}",
             "eth_type=0x0800,ip_proto=1,icmpv4_type=8,icmpv4_code=0");
    match_is("{\"dl_type\": 2054, \"arp_op\": 1, \"arp_spa\": \"10.0.0.1\","
             " \"arp_tpa\": \"10.0.0.0/8\", \"arp_sha\": \"00:00:00:00:00:01\","
             " \"arp_tha\": \"00:00:00:00:00:02\"}",
             "eth_type=0x0806,arp_op=1,arp_spa=10.0.0.1,arp_tpa=10.0.0.0/255.0.0.0,"
             "arp_sha=00:00:00:00:00:01,arp_tha=00:00:00:00:00:02");
    match_is("{\"dl_type\": 34525, \"ipv6_src\": \"2001:db8::1\","
             " \"ipv6_dst\": \"2001:db8:0:10::/64\", \"ipv6_flabel\": 5}",
             "eth_type=0x86dd,ipv6_src=2001:db8::1,ipv6_dst=2001:db8:0:10::/ffff:ffff:ffff:ffff::,"
             "ipv6_flabel=0x00000005");
    match_is("{\"dl_type\": 34525, \"nw_proto\": 58, \"icmpv6_type\": 135,"
             " \"icmpv6_code\": 0, \"nd_tar\": \"fe80::1\", \"nd_sll\": \"00:00:00:00:00:0a\"}",
             "eth_type=0x86dd,ip_proto=58,icmpv6_type=135,icmpv6_code=0,"
             "ipv6_nd_target=fe80::1,ipv6_nd_sll=00:00:00:00:00:0a");
    /* Kytos stores ND fields as integers. */
    match_is("{\"dl_type\": 34525, \"nw_proto\": 58, \"icmpv6_type\": 136, \"nd_tar\": 1,"
             " \"nd_tll\": 10}",
             "eth_type=0x86dd,ip_proto=58,icmpv6_type=136,ipv6_nd_target=::1,"
             "ipv6_nd_tll=00:00:00:00:00:0a");
    match_is("{\"dl_type\": 34887, \"mpls_lab\": 1048575, \"mpls_tc\": 7, \"mpls_bos\": 1}",
             "eth_type=0x8847,mpls_label=1048575,mpls_tc=7,mpls_bos=1");
    match_is("{\"dl_type\": 35047, \"pbb_isid\": \"5/255\"}", "eth_type=0x88e7,pbb_isid=5/255");
    match_is("{\"metadata\": \"4660/65280\"}", "metadata=0x0000000000001200/0x000000000000ff00");
    match_is("{\"metadata\": \"18446744073709551615\"}", "metadata=0xffffffffffffffff");
    match_is("{\"tun_id\": 42}", "tunnel_id=0x000000000000002a");
    match_is("{\"dl_type\": 34525, \"v6_hdr\": \"1/1\"}",
             "eth_type=0x86dd,ipv6_exthdr=0x0001/0x0001");
    snprintf(want, sizeof(want), "in_port=%u", 0xfffffffdu);
    match_is("{\"in_port\": 4294967293}", want);
}

static void test_match_errors(void **state)
{
    (void)state;
    parse_bad("{\"match\": {\"in_port\": \"1\"}}", false,
              "wrong type for 'match.in_port': expected integer 0..4294967295");
    parse_bad("{\"match\": {\"in_port\": 4294967296}}", false, "invalid value for 'match.in_port'");
    parse_bad("{\"match\": {\"dl_vlan\": 4096}}", false,
              "invalid value for 'match.dl_vlan': expected integer 0..4095, \"vid/mask\"");
    parse_bad("{\"match\": {\"dl_vlan\": \"abc\"}}", false, "invalid value for 'match.dl_vlan'");
    parse_bad("{\"match\": {\"dl_vlan\": \"5/9000\"}}", false, "invalid value for 'match.dl_vlan'");
    parse_bad("{\"match\": {\"dl_vlan\": true}}", false, "wrong type for 'match.dl_vlan'");
    parse_bad("{\"match\": {\"dl_vlan\": 5, \"dl_vlan_pcp\": 8}}", false,
              "invalid value for 'match.dl_vlan_pcp': expected integer 0..7");
    parse_bad("{\"match\": {\"dl_src\": \"00:11:22:33:44\"}}", false,
              "invalid value for 'match.dl_src'");
    parse_bad("{\"match\": {\"dl_src\": \"00:11:22:33:44:zz\"}}", false,
              "invalid value for 'match.dl_src'");
    parse_bad("{\"match\": {\"dl_dst\": \"00:11:22:33:44:55/ff\"}}", false,
              "invalid value for 'match.dl_dst'");
    parse_bad("{\"match\": {\"dl_src\": 5}}", false, "wrong type for 'match.dl_src'");
    parse_bad("{\"match\": {\"dl_type\": 65536}}", false, "invalid value for 'match.dl_type'");
    parse_bad("{\"match\": {\"dl_type\": 2048, \"nw_src\": \"10.0.0.1/33\"}}", false,
              "invalid value for 'match.nw_src'");
    parse_bad("{\"match\": {\"dl_type\": 2048, \"nw_dst\": \"10.0.0\"}}", false,
              "invalid value for 'match.nw_dst'");
    parse_bad("{\"match\": {\"dl_type\": 2048, \"nw_dst\": 167772161}}", false,
              "wrong type for 'match.nw_dst'");
    parse_bad("{\"match\": {\"dl_type\": 34525, \"ipv6_src\": \"::1/129\"}}", false,
              "invalid value for 'match.ipv6_src'");
    parse_bad("{\"match\": {\"dl_type\": 34525, \"ipv6_src\": \"10.0.0.1\"}}", false,
              "invalid value for 'match.ipv6_src'");
    parse_bad("{\"match\": {\"dl_type\": 34525, \"nw_proto\": 58, \"icmpv6_type\": 135,"
              " \"nd_tar\": \"fe80::/64\"}}", false, "invalid value for 'match.nd_tar'");
    parse_bad("{\"match\": {\"dl_type\": 2048, \"ip_dscp\": 64}}", false,
              "invalid value for 'match.ip_dscp': expected integer 0..63");
    parse_bad("{\"match\": {\"dl_type\": 2048, \"ip_ecn\": 4}}", false,
              "invalid value for 'match.ip_ecn'");
    parse_bad("{\"match\": {\"dl_type\": 34887, \"mpls_lab\": 1048576}}", false,
              "invalid value for 'match.mpls_lab'");
    parse_bad("{\"match\": {\"dl_type\": 34887, \"mpls_bos\": 2}}", false,
              "invalid value for 'match.mpls_bos'");
    parse_bad("{\"match\": {\"metadata\": \"1/x\"}}", false, "invalid value for 'match.metadata'");
    parse_bad("{\"match\": {\"metadata\": -5}}", false, "invalid value for 'match.metadata'");
    parse_bad("{\"match\": {\"tun_id\": 1.5}}", false, "wrong type for 'match.tun_id'");
    parse_bad("{\"match\": {\"dl_type\": 34525, \"ipv6_flabel\": 1048576}}", false,
              "invalid value for 'match.ipv6_flabel'");
    /* Prerequisites, reported with the field that lacks them. */
    parse_bad("{\"match\": {\"nw_src\": \"10.0.0.1\"}}", false, "match.nw_src: prerequisite");
    parse_bad("{\"match\": {\"dl_type\": 2048, \"tp_src\": 80}}", false,
              "match.tp_src: prerequisite");
    parse_bad("{\"match\": {\"dl_type\": 2048, \"nw_proto\": 6, \"udp_src\": 80}}", false,
              "match.udp_src: prerequisite");
    parse_bad("{\"match\": {\"dl_vlan_pcp\": 3}}", false, "match.dl_vlan_pcp: prerequisite");
    parse_bad("{\"match\": {\"dl_vlan\": \"untagged\", \"dl_vlan_pcp\": 3}}", false,
              "match.dl_vlan_pcp: prerequisite");
    parse_bad("{\"match\": {\"dl_type\": 2048, \"nw_proto\": 17, \"tp_src\": 1, \"udp_src\": 2}}",
              false, "match.tp_src: same field as 'udp_src'");
}

/* ---- actions -------------------------------------------------------------- */

static const struct ofp_action *act(const struct kflow *f, unsigned i)
{
    assert_true(i < f->fl.mod.inst.apply_actions.n);
    return &f->fl.apply[i];
}

static void test_actions(void **state)
{
    (void)state;
    struct kflow f;
    parse_ok("{\"actions\": ["
             "{\"action_type\": \"output\", \"port\": 2},"
             "{\"action_type\": \"output\", \"port\": \"controller\"},"
             "{\"action_type\": \"set_vlan\", \"vlan_id\": 100},"
             "{\"action_type\": \"push_vlan\", \"tag_type\": \"s\"},"
             "{\"action_type\": \"push_vlan\", \"tag_type\": \"c\"},"
             "{\"action_type\": \"pop_vlan\"},"
             "{\"action_type\": \"set_queue\", \"queue_id\": 3},"
             "{\"action_type\": \"group\", \"group_id\": 9},"
             "{\"action_type\": \"set_field\", \"field\": \"nw_dst\", \"value\": \"10.0.0.9\"},"
             "{\"action_type\": \"output\", \"port\": \"in_port\"}]}", false, &f);
    assert_int_equal(f.form.treatment, FLOW_FORM_ACTIONS);
    assert_int_equal(f.fl.mod.inst.present, OFP_INST_APPLY_ACTIONS);
    assert_int_equal(f.fl.mod.inst.apply_actions.n, 10);
    assert_int_equal(act(&f, 0)->type, OFPAT_OUTPUT);
    assert_int_equal(act(&f, 0)->u.output.port, 2);
    assert_int_equal(act(&f, 1)->u.output.port, OFPP_CONTROLLER);
    assert_int_equal(act(&f, 1)->u.output.max_len, OFPCML_NO_BUFFER);
    assert_int_equal(act(&f, 2)->type, OFPAT_SET_FIELD);
    assert_int_equal(act(&f, 2)->u.set_field.field, OFPXMT_OFB_VLAN_VID);
    assert_int_equal(act(&f, 2)->u.set_field.value[0], 0x10);
    assert_int_equal(act(&f, 2)->u.set_field.value[1], 100);
    assert_int_equal(act(&f, 3)->type, OFPAT_PUSH_VLAN);
    assert_int_equal(act(&f, 3)->u.ethertype, 0x88a8);
    assert_int_equal(act(&f, 4)->u.ethertype, 0x8100);
    assert_int_equal(act(&f, 5)->type, OFPAT_POP_VLAN);
    assert_int_equal(act(&f, 6)->type, OFPAT_SET_QUEUE);
    assert_int_equal(act(&f, 6)->u.queue_id, 3);
    assert_int_equal(act(&f, 7)->type, OFPAT_GROUP);
    assert_int_equal(act(&f, 7)->u.group_id, 9);
    assert_int_equal(act(&f, 8)->u.set_field.field, OFPXMT_OFB_IPV4_DST);
    assert_memory_equal(act(&f, 8)->u.set_field.value, "\x0a\x00\x00\x09", 4);
    assert_int_equal(act(&f, 9)->u.output.port, OFPP_IN_PORT);

    /* An empty list is a drop flow: no instruction at all. */
    parse_ok("{\"actions\": []}", false, &f);
    assert_int_equal(f.fl.mod.inst.present, 0);
}

static void test_action_errors(void **state)
{
    (void)state;
    char big[4096];
    size_t n = (size_t)snprintf(big, sizeof(big), "{\"actions\": [");
    for (int i = 0; i <= FM_FLOW_ACTIONS_MAX; i++)
        n += (size_t)snprintf(big + n, sizeof(big) - n, "%s{\"action_type\": \"pop_vlan\"}",
                              i ? "," : "");
    snprintf(big + n, sizeof(big) - n, "]}");
    parse_bad(big, false, "actions: at most 32 actions");

    parse_bad("{\"actions\": [5]}", false, "wrong type for 'actions[0]': expected object");
    parse_bad("{\"actions\": [{\"port\": 1}]}", false, "actions[0]: missing field 'action_type'");
    parse_bad("{\"actions\": [{\"action_type\": 1}]}", false,
              "wrong type for 'actions[0].action_type'");
    parse_bad("{\"actions\": [{\"action_type\": \"fly\"}]}", false,
              "invalid value for 'actions[0].action_type'");
    parse_bad("{\"actions\": [{\"action_type\": \"output\"}]}", false,
              "actions[0]: missing field 'port'");
    parse_bad("{\"actions\": [{\"action_type\": \"output\", \"port\": 0}]}", false,
              "invalid value for 'actions[0].port'");
    parse_bad("{\"actions\": [{\"action_type\": \"output\", \"port\": 4294967041}]}", false,
              "invalid value for 'actions[0].port'");
    parse_bad("{\"actions\": [{\"action_type\": \"output\", \"port\": 4294967295}]}", false,
              "invalid value for 'actions[0].port'");
    parse_bad("{\"actions\": [{\"action_type\": \"output\", \"port\": 4294967289}]}", false,
              "invalid value for 'actions[0].port'");
    parse_bad("{\"actions\": [{\"action_type\": \"output\", \"port\": \"table\"}]}", false,
              "invalid value for 'actions[0].port'");
    parse_bad("{\"actions\": [{\"action_type\": \"output\", \"port\": \"nowhere\"}]}", false,
              "invalid value for 'actions[0].port'");
    parse_bad("{\"actions\": [{\"action_type\": \"output\", \"port\": 1, \"x\": 1}]}", false,
              "unknown field 'actions[0].x'");
    parse_bad("{\"actions\": [{\"action_type\": \"pop_vlan\"},"
              "{\"action_type\": \"set_vlan\", \"vlan_id\": 4096}]}", false,
              "invalid value for 'actions[1].vlan_id': expected integer 0..4095");
    parse_bad("{\"actions\": [{\"action_type\": \"push_vlan\", \"tag_type\": \"x\"}]}", false,
              "invalid value for 'actions[0].tag_type'");
    parse_bad("{\"actions\": [{\"action_type\": \"set_queue\", \"queue_id\": -1}]}", false,
              "invalid value for 'actions[0].queue_id'");
    parse_bad("{\"actions\": [{\"action_type\": \"group\", \"group_id\": 4294967041}]}", false,
              "invalid value for 'actions[0].group_id'");
    parse_bad("{\"actions\": [{\"action_type\": \"set_field\", \"field\": \"tp_src\","
              " \"value\": 1}]}", false, "invalid value for 'actions[0].field'");
    parse_bad("{\"actions\": [{\"action_type\": \"set_field\", \"field\": \"nw_src\","
              " \"value\": \"10.0.0.0/8\"}]}", false, "invalid value for 'actions[0].value'");
    parse_bad("{\"actions\": [{\"action_type\": \"set_field\", \"field\": \"dl_vlan_pcp\","
              " \"value\": 9}]}", false, "invalid value for 'actions[0].value'");
}

/* ---- instructions --------------------------------------------------------- */

static void test_instructions(void **state)
{
    (void)state;
    struct kflow f;
    parse_ok("{\"table_id\": 1, \"instructions\": ["
             "{\"instruction_type\": \"goto_table\", \"table_id\": 3},"
             "{\"instruction_type\": \"apply_actions\", \"actions\": "
             "[{\"action_type\": \"output\", \"port\": 1}]},"
             "{\"instruction_type\": \"write_actions\", \"actions\": "
             "[{\"action_type\": \"set_queue\", \"queue_id\": 1},"
             " {\"action_type\": \"output\", \"port\": 2}]},"
             "{\"instruction_type\": \"clear_actions\"},"
             "{\"instruction_type\": \"meter\", \"meter_id\": 5},"
             "{\"instruction_type\": \"write_metadata\", \"metadata\": 1, \"metadata_mask\": 255}"
             "]}", false, &f);
    const struct ofp_instructions *in = &f.fl.mod.inst;
    assert_int_equal(f.form.treatment, FLOW_FORM_INSTRUCTIONS);
    assert_int_equal(in->present, OFP_INST_GOTO_TABLE | OFP_INST_APPLY_ACTIONS |
                                  OFP_INST_WRITE_ACTIONS | OFP_INST_CLEAR_ACTIONS |
                                  OFP_INST_METER | OFP_INST_WRITE_METADATA);
    assert_int_equal(in->goto_table, 3);
    assert_int_equal(in->meter_id, 5);
    assert_true(in->metadata == 1 && in->metadata_mask == 255);
    assert_int_equal(in->apply_actions.n, 1);
    assert_int_equal(in->write_actions.n, 2);
    assert_int_equal(f.fl.write[1].u.output.port, 2);

    parse_ok("{\"instructions\": [{\"instruction_type\": \"write_metadata\", \"metadata\": 7}]}",
             false, &f);
    assert_true(f.fl.mod.inst.metadata_mask == UINT64_MAX);
}

static void test_instruction_errors(void **state)
{
    (void)state;
    parse_bad("{\"instructions\": [{\"instruction_type\": \"meter\", \"meter_id\": 1},"
              "{\"instruction_type\": \"meter\", \"meter_id\": 2}]}", false,
              "instructions[1]: instruction 'meter' given twice");
    parse_bad("{\"instructions\": [{\"instruction_type\": \"apply_actions\", \"actions\": []},"
              "{\"instruction_type\": \"apply_actions\", \"actions\": []}]}", false,
              "given twice");
    parse_bad("{\"table_id\": 3, \"instructions\": "
              "[{\"instruction_type\": \"goto_table\", \"table_id\": 3}]}", false,
              "goto_table.table_id must be greater");
    parse_bad("{\"instructions\": [{\"instruction_type\": \"goto_table\", \"table_id\": 255}]}",
              false, "invalid value for 'instructions[0].table_id'");
    parse_bad("{\"instructions\": [{\"instruction_type\": \"meter\", \"meter_id\": 0}]}", false,
              "invalid value for 'instructions[0].meter_id'");
    parse_bad("{\"instructions\": [{\"instruction_type\": \"meter\"}]}", false,
              "instructions[0]: missing field 'meter_id'");
    parse_bad("{\"instructions\": [{\"instruction_type\": \"jump\"}]}", false,
              "invalid value for 'instructions[0].instruction_type'");
    parse_bad("{\"instructions\": [{\"actions\": []}]}", false,
              "instructions[0]: missing field 'instruction_type'");
    parse_bad("{\"instructions\": [{\"instruction_type\": \"clear_actions\", \"actions\": "
              "[{\"action_type\": \"pop_vlan\"}]}]}", false,
              "invalid value for 'instructions[0].actions'");
    parse_bad("{\"instructions\": [{\"instruction_type\": \"write_actions\", \"actions\": "
              "[{\"action_type\": \"output\", \"port\": -3}]}]}", false,
              "invalid value for 'instructions[0].actions[0].port'");
    parse_bad("{\"instructions\": [{\"instruction_type\": \"write_metadata\", "
              "\"metadata\": \"x\"}]}", false, "invalid value for 'instructions[0].metadata'");
    parse_bad("{\"instructions\": [{\"instruction_type\": \"goto_table\", \"table_id\": 1,"
              " \"extra\": 0}]}", false, "unknown field 'instructions[0].extra'");
}

/* ---- render --------------------------------------------------------------- */

static const char *const canonical[] = {
    "{\"table_id\": 0, \"priority\": 32768, \"cookie\": 0, \"idle_timeout\": 0,"
    " \"hard_timeout\": 0}",
    "{\"table_id\": 2, \"priority\": 100, \"cookie\": 12, \"idle_timeout\": 5,"
    " \"hard_timeout\": 60, \"owner\": \"of_lldp\","
    " \"match\": {\"in_port\": 1, \"dl_vlan\": 100},"
    " \"actions\": [{\"action_type\": \"output\", \"port\": \"controller\"},"
    " {\"action_type\": \"output\", \"port\": 4294967293}]}",
    "{\"table_id\": 0, \"priority\": 1, \"cookie\": 18446744073709551615,"
    " \"idle_timeout\": 0, \"hard_timeout\": 0, \"cookie_mask\": 255}",
    "{\"table_id\": 0, \"priority\": 10, \"cookie\": 0, \"idle_timeout\": 0,"
    " \"hard_timeout\": 0, \"match\": {\"in_port\": 3, \"in_phy_port\": 3,"
    " \"metadata\": \"4608/65280\", \"dl_src\": \"00:11:22:33:44:55\","
    " \"dl_dst\": \"01:00:00:00:00:00/01:00:00:00:00:00\", \"dl_type\": 2048,"
    " \"dl_vlan\": \"4096/4096\", \"dl_vlan_pcp\": 3, \"ip_dscp\": 10, \"ip_ecn\": 1,"
    " \"nw_proto\": 17, \"nw_src\": \"10.0.0.0/8\", \"nw_dst\": \"10.0.0.0/255.0.255.0\","
    " \"tp_src\": 53, \"udp_dst\": 99, \"tun_id\": 5},"
    " \"actions\": [{\"action_type\": \"set_vlan\", \"vlan_id\": 7},"
    " {\"action_type\": \"push_vlan\", \"tag_type\": \"s\"}, {\"action_type\": \"pop_vlan\"},"
    " {\"action_type\": \"set_queue\", \"queue_id\": 1},"
    " {\"action_type\": \"group\", \"group_id\": 2},"
    " {\"action_type\": \"set_field\", \"field\": \"dl_dst\", \"value\": \"00:00:00:00:00:01\"},"
    " {\"action_type\": \"set_field\", \"field\": \"dl_vlan\", \"value\": 9}]}",
    "{\"table_id\": 0, \"priority\": 10, \"cookie\": 0, \"idle_timeout\": 0,"
    " \"hard_timeout\": 0, \"match\": {\"dl_type\": 34525, \"nw_proto\": 58,"
    " \"ipv6_src\": \"2001:db8::/32\", \"ipv6_dst\": \"::1\", \"ipv6_flabel\": \"1/15\","
    " \"icmpv6_type\": 135, \"icmpv6_code\": 0, \"nd_tar\": 77, \"nd_sll\": 12,"
    " \"v6_hdr\": 4},"
    " \"instructions\": [{\"instruction_type\": \"meter\", \"meter_id\": 1},"
    " {\"instruction_type\": \"apply_actions\", \"actions\": "
    "[{\"action_type\": \"output\", \"port\": 1}]},"
    " {\"instruction_type\": \"clear_actions\"},"
    " {\"instruction_type\": \"write_actions\", \"actions\": "
    "[{\"action_type\": \"output\", \"port\": \"flood\"}]},"
    " {\"instruction_type\": \"write_metadata\", \"metadata\": 1,"
    " \"metadata_mask\": 18446744073709551615},"
    " {\"instruction_type\": \"goto_table\", \"table_id\": 4}]}",
    "{\"table_id\": 0, \"priority\": 10, \"cookie\": 0, \"idle_timeout\": 0,"
    " \"hard_timeout\": 0, \"match\": {\"dl_type\": 2054, \"arp_op\": 2,"
    " \"arp_spa\": \"10.0.0.1\", \"arp_tpa\": \"10.0.0.2\", \"arp_sha\": \"00:00:00:00:00:01\","
    " \"arp_tha\": \"00:00:00:00:00:02/00:00:00:ff:ff:ff\", \"dl_vlan\": \"untagged\"},"
    " \"actions\": []}",
    "{\"table_id\": 0, \"priority\": 10, \"cookie\": 0, \"idle_timeout\": 0,"
    " \"hard_timeout\": 0, \"match\": {\"dl_type\": 34887, \"mpls_lab\": 16, \"mpls_tc\": 1,"
    " \"mpls_bos\": 1}}",
    "{\"table_id\": 0, \"priority\": 10, \"cookie\": 0, \"idle_timeout\": 0,"
    " \"hard_timeout\": 0, \"match\": {\"dl_type\": 35047, \"pbb_isid\": 77,"
    " \"dl_vlan\": \"16/4080\"}}",
};

static void test_render_roundtrip(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(canonical) / sizeof(canonical[0]); i++) {
        struct kflow f;
        json_t *in = load(canonical[i]);
        bool del = json_object_get(in, "cookie_mask") != NULL;
        char err[256] = "";
        if (flow_json_parse_json(in, del, &f.fl, &f.form, err, sizeof(err)))
            fail_msg("canonical[%zu] rejected: %s", i, err);
        check_wire(&f);
        json_t *out = render(&f);
        assert_non_null(out);
        if (!json_equal(in, out)) {
            char *a = json_dumps(out, JSON_SORT_KEYS);
            fail_msg("canonical[%zu] renders as %s", i, a);
        }
        /* Parsing the rendered form gives the same flow. */
        struct kflow g;
        assert_int_equal(flow_json_parse_json(out, del, &g.fl, &g.form, err, sizeof(err)), 0);
        assert_true(ofp_match_equal(&f.fl.mod.match, &g.fl.mod.match));
        assert_true(ofp_instructions_equal(&f.fl.mod.inst, &g.fl.mod.inst));
        json_decref(out);
        json_decref(in);
    }
}

static void test_render_normalises(void **state)
{
    (void)state;
    struct kflow f;
    parse_ok("{\"match\": {\"dl_type\": 2048, \"nw_src\": \"10.1.2.3/255.255.0.0\","
             " \"dl_src\": \"AA:BB:CC:DD:EE:FF\"}}", false, &f);
    json_t *r = render(&f);
    json_t *m = json_object_get(r, "match");
    assert_string_equal(json_string_value(json_object_get(m, "nw_src")), "10.1.0.0/16");
    assert_string_equal(json_string_value(json_object_get(m, "dl_src")), "aa:bb:cc:dd:ee:ff");
    json_decref(r);
}

/* A by-value copy works once fixed up (what the store does after a read). */
static void test_copy_fixup(void **state)
{
    (void)state;
    struct kflow *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
    parse_ok(canonical[4], false, a);
    memcpy(b, a, sizeof(*b));
    fm_flow_fixup(&b->fl);
    memset(a, 0xa5, sizeof(*a));
    free(a);
    check_wire(b);
    json_t *in = load(canonical[4]);
    json_t *out = render(b);
    assert_true(json_equal(in, out));
    json_decref(in);
    json_decref(out);
    free(b);
}

/* ---- identity ------------------------------------------------------------- */

static void ids(const char *text, uint64_t dpid, uint64_t *mid, uint64_t *fid)
{
    struct kflow f;
    parse_ok(text, false, &f);
    *mid = fm_flow_match_id(dpid, &f.fl);
    *fid = fm_flow_id(dpid, &f.fl);
}

static void test_identity(void **state)
{
    (void)state;
    uint64_t m1, f1, m2, f2;
    const char *base = "{\"priority\": 10, \"match\": {\"dl_type\": 2048, \"nw_proto\": 6,"
                       " \"in_port\": 1, \"tp_dst\": 22}, \"actions\":"
                       " [{\"action_type\": \"output\", \"port\": 2}]}";

    ids(base, 1, &m1, &f1);
    /* Key order and equivalent spellings do not matter. */
    ids("{\"actions\": [{\"port\": 2, \"action_type\": \"output\"}], \"match\": {\"tp_dst\": 22,"
        " \"in_port\": 1, \"nw_proto\": 6, \"dl_type\": 2048}, \"priority\": 10}", 1, &m2, &f2);
    assert_true(m1 == m2 && f1 == f2);
    ids("{\"priority\": 10, \"match\": {\"dl_type\": 2048, \"nw_proto\": 6, \"in_port\": 1,"
        " \"tp_dst\": 22}, \"instructions\": [{\"instruction_type\": \"apply_actions\","
        " \"actions\": [{\"action_type\": \"output\", \"port\": 2}]}]}", 1, &m2, &f2);
    assert_true(m1 == m2 && f1 == f2);

    /* Same key, different actions: replaces (same match_id), new flow_id. */
    ids("{\"priority\": 10, \"match\": {\"dl_type\": 2048, \"nw_proto\": 6, \"in_port\": 1,"
        " \"tp_dst\": 22}, \"actions\": [{\"action_type\": \"output\", \"port\": 3}]}",
        1, &m2, &f2);
    assert_true(m1 == m2);
    assert_true(f1 != f2);
    ids("{\"priority\": 10, \"cookie\": 1, \"match\": {\"dl_type\": 2048, \"nw_proto\": 6,"
        " \"in_port\": 1, \"tp_dst\": 22}, \"actions\": [{\"action_type\": \"output\","
        " \"port\": 2}]}", 1, &m2, &f2);
    assert_true(m1 == m2);
    assert_true(f1 != f2);

    /* Each part of the key counts. */
    ids(base, 2, &m2, &f2);
    assert_true(m1 != m2 && f1 != f2);
    ids("{\"priority\": 11, \"match\": {\"dl_type\": 2048, \"nw_proto\": 6, \"in_port\": 1,"
        " \"tp_dst\": 22}, \"actions\": [{\"action_type\": \"output\", \"port\": 2}]}",
        1, &m2, &f2);
    assert_true(m1 != m2 && f1 != f2);
    ids("{\"priority\": 10, \"table_id\": 1, \"match\": {\"dl_type\": 2048, \"nw_proto\": 6,"
        " \"in_port\": 1, \"tp_dst\": 22}, \"actions\": [{\"action_type\": \"output\","
        " \"port\": 2}]}", 1, &m2, &f2);
    assert_true(m1 != m2);
    ids("{\"priority\": 10, \"match\": {\"dl_type\": 2048, \"nw_proto\": 6, \"in_port\": 1,"
        " \"tp_dst\": 23}, \"actions\": [{\"action_type\": \"output\", \"port\": 2}]}",
        1, &m2, &f2);
    assert_true(m1 != m2);

    /* A full mask is the exact match; a named port is its number. */
    ids("{\"match\": {\"dl_src\": \"00:00:00:00:00:01\"}, \"actions\":"
        " [{\"action_type\": \"output\", \"port\": \"controller\"}]}", 1, &m1, &f1);
    ids("{\"match\": {\"dl_src\": \"00:00:00:00:00:01/ff:ff:ff:ff:ff:ff\"}, \"actions\":"
        " [{\"action_type\": \"output\", \"port\": 4294967293}]}", 1, &m2, &f2);
    assert_true(m1 == m2 && f1 == f2);
}

/* A flow read back from a switch (its FLOW_MOD on the wire, decoded into
 * views) names and renders as the REST flow it came from. */
static void entry_roundtrip(const char *text)
{
    static uint8_t buf[8192];
    struct kflow f, back;
    struct ofp_msg m, d;
    struct ofp_buf b;
    struct ofp_err oe;

    parse_ok(text, false, &f);
    memset(&m, 0, sizeof(m));
    m.hdr.version = OFP13_VERSION;
    m.hdr.type = OFPT_FLOW_MOD;
    m.u.flow_mod = f.fl.mod;
    ofp_buf_init(&b, buf, sizeof(buf));
    assert_int_equal(ofp_encode(&b, &m), 0);
    assert_int_equal(ofp_decode(b.data, b.len, &d, &oe), 0);
    const struct ofp_flow_mod *fm = &d.u.flow_mod;
    assert_int_equal(fm_flow_from_entry(fm->table_id, fm->priority, fm->cookie,
                                        fm->idle_timeout, fm->hard_timeout, &fm->match,
                                        &fm->inst, &back.fl), 0);
    flow_json_form_of(&back.fl, &back.form);
    memset(buf, 0, sizeof(buf));              /* the copy must not point into it */
    assert_true(fm_flow_match_id(5, &back.fl) == fm_flow_match_id(5, &f.fl));
    assert_true(fm_flow_id(5, &back.fl) == fm_flow_id(5, &f.fl));
    json_t *want = load(text), *got = render(&back);
    char *g = json_dumps(got, JSON_SORT_KEYS);
    if (!json_equal(want, got))
        fail_msg("%s rendered back as %s", text, g);
    free(g);
    json_decref(want);
    json_decref(got);
}

static void test_from_entry(void **state)
{
    (void)state;
    entry_roundtrip("{\"table_id\": 0, \"priority\": 10, \"cookie\": 7, \"idle_timeout\": 0,"
                    " \"hard_timeout\": 30, \"match\": {\"in_port\": 1, \"dl_type\": 2048,"
                    " \"nw_dst\": \"10.0.0.0/8\"}, \"actions\": [{\"action_type\": \"output\","
                    " \"port\": 2}, {\"action_type\": \"push_vlan\", \"tag_type\": \"s\"}]}");
    entry_roundtrip("{\"table_id\": 1, \"priority\": 32768, \"cookie\": 0, \"idle_timeout\": 5,"
                    " \"hard_timeout\": 0, \"instructions\": [{\"instruction_type\":"
                    " \"apply_actions\", \"actions\": [{\"action_type\": \"output\", \"port\": 3}]},"
                    " {\"instruction_type\": \"goto_table\", \"table_id\": 2}]}");
    entry_roundtrip("{\"table_id\": 0, \"priority\": 1, \"cookie\": 0, \"idle_timeout\": 0,"
                    " \"hard_timeout\": 0, \"actions\": []}");
}

/* Cookies and the other 64-bit fields over the whole unsigned range, read
 * and written exactly as JSON numbers; 2^64 is a 400 naming FlowMod.cookie. */
static void test_u64_edges(void **state)
{
    static const struct {
        const char *text;
        uint64_t v;
    } ok[] = {
        {"9223372036854775807", 9223372036854775807ull},
        {"9223372036854775808", 9223372036854775808ull},
        {"12321848580485677057", 12321848580485677057ull},
        {"18446744073709551615", 18446744073709551615ull},
    };
    char text[512];
    struct kflow f;

    (void)state;
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        snprintf(text, sizeof(text), "{\"cookie\": %s, \"instructions\": [{\"instruction_type"
                 "\": \"write_metadata\", \"metadata\": %s, \"metadata_mask\": %s}]}",
                 ok[i].text, ok[i].text, ok[i].text);
        parse_ok(text, false, &f);
        assert_true(f.fl.mod.cookie == ok[i].v);
        assert_true(f.fl.mod.inst.metadata == ok[i].v);
        assert_true(f.fl.mod.inst.metadata_mask == ok[i].v);
        /* Written back as the same bare numbers. */
        json_t *r = render(&f);
        assert_non_null(r);
        char *dump = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS);
        json_u64_fixup(dump);
        char want[64];
        snprintf(want, sizeof(want), "\"cookie\":%s,", ok[i].text);
        if (!strstr(dump, want))
            fail_msg("rendered %s lacks %s", dump, want);
        snprintf(want, sizeof(want), "\"metadata\":%s,", ok[i].text);
        assert_non_null(strstr(dump, want));
        free(dump);
        json_decref(r);
    }
    parse_bad("{\"cookie\": 18446744073709551616}", false, "FlowMod.cookie");
    parse_bad("{\"cookie\": 99999999999999999999999}", false, "FlowMod.cookie");
    parse_bad("{\"cookie_mask\": 18446744073709551616}", true, "FlowMod.cookie_mask");
    parse_bad("{\"instructions\": [{\"instruction_type\": \"write_metadata\", "
              "\"metadata\": 18446744073709551616}]}", false, "out of range");
    /* Other fields are no wider for it. */
    parse_bad("{\"priority\": 9223372036854775808}", false, "priority");
    /* Negative, fractional and small numbers pass through untouched. */
    parse_bad("{\"cookie\": -1}", false, "cookie");
    parse_ok("{\"cookie\": 255, \"priority\": 7}", false, &f);
    assert_true(f.fl.mod.cookie == 255);
    /* No client string may pose as a marker. */
    json_error_t je;
    assert_null(json_u64_loadb("{\"owner\": \"\\u0001u64:5\"}", 23, &je));
    assert_non_null(strstr(je.text, "U+0001"));
    /* A number inside a string stays a string. */
    json_t *j = json_u64_loadb("{\"a\": \"18446744073709551616\"}", 29, &je);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "a")), "18446744073709551616");
    json_decref(j);
    /* A big number in a key's place is no key (the fuzzer found it passed as
     * its marker string), at any depth, after a comma too; in an array after
     * an object it is a value again. */
    static const char *const keys[] = {
        "{18446744073709551615: 1}",
        "{\"a\": 1, 9223372036854775808: 2}",
        "{\"a\": [1, {\"b\": {}, 99999999999999999999: 3}]}",
    };
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        assert_null(json_u64_loadb(keys[i], strlen(keys[i]), &je));
    static const char arr[] = "{\"a\": [{\"b\": 1}, 18446744073709551615]}";
    j = json_u64_loadb(arr, strlen(arr), &je);
    assert_non_null(j);
    uint64_t u;
    assert_int_equal(json_u64_marker_value(json_string_value(
                         json_array_get(json_object_get(j, "a"), 1)), &u), 1);
    assert_true(u == UINT64_MAX);
    json_decref(j);
}

/* The top-level field scan stored_flows orders by: only the object's own
 * keys count, nested ones and look-alikes inside strings do not. */
#define TOP(lit, key, v) json_u64_top_field(lit, strlen(lit), key, v)

static void test_top_field_scan(void **state)
{
    static const char text[] =
        " { \"match\": {\"priority\": 1, \"x\": [\"}\", {\"cookie\": 2}]},"
        " \"owner\": \"a\\\"priority\\\": 3\", \"table_id\" : 0,"
        " \"priority\" : 40000 , \"cookie\": 18446744073709551615 }";
    uint64_t v = 7;

    (void)state;
    assert_int_equal(json_u64_top_field(text, strlen(text), "priority", &v), 1);
    assert_true(v == 40000);
    assert_int_equal(json_u64_top_field(text, strlen(text), "cookie", &v), 1);
    assert_true(v == UINT64_MAX);
    assert_int_equal(json_u64_top_field(text, strlen(text), "x", &v), 0);
    assert_int_equal(json_u64_top_field(text, strlen(text), "prio", &v), 0);
    assert_int_equal(TOP("{}", "priority", &v), 0);
    assert_int_equal(TOP("{\"cookie\": 18446744073709551616}", "cookie",
                                        &v), -ERANGE);
    assert_int_equal(TOP("{\"priority\": -1}", "priority", &v), -EINVAL);
    assert_int_equal(TOP("{\"priority\": 1.5}", "priority", &v), -EINVAL);
    assert_int_equal(TOP("{\"priority\": \"1\"}", "priority", &v),
                     -EINVAL);
    assert_int_equal(TOP("[1]", "priority", &v), -EINVAL);
    assert_int_equal(TOP("{\"a\": 1 \"priority\": 2}", "priority", &v),
                     -EINVAL);
    /* Truncated text is malformed, never read past its end. */
    assert_int_equal(TOP("{\"a\": {\"b\": 1", "priority", &v), -EINVAL);
    assert_int_equal(TOP("{\"a\": \"b", "priority", &v), -EINVAL);
}

/* A stored text holds large integers bare (a client's own text) or, when
 * stored by an older ofcd, as markers already: both load to markers. */
static void test_load_record(void **state)
{
    static const char bare[] = "{\"cookie\": 18446744073709551615}";
    static const char marked[] = "{\"cookie\": \"\\u0001u64:18446744073709551615\"}";
    uint64_t v = 0;
    (void)state;

    json_t *a = json_u64_load_record(bare, strlen(bare));
    json_t *b = json_u64_load_record(marked, strlen(marked));
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(json_u64_marker_value(json_string_value(json_object_get(a, "cookie")), &v), 1);
    assert_true(v == UINT64_MAX);
    assert_true(json_equal(a, b));
    json_decref(a);
    json_decref(b);
    assert_null(json_u64_load_record("{", 1));
}

/* The flow manager's decoder: a stored record (the client's text, large
 * integers bare or, from an older ofcd, as markers) is the typed flow it was
 * accepted as; text that is not such a flow any more is refused. */
static void test_record_decoder(void **state)
{
    static const char bare[] = "{\"priority\": 7, \"cookie\": 18446744073709551615, \"owner\": "
                               "\"x\", \"actions\": [{\"action_type\": \"output\", \"port\": 2}]}";
    static const char marked[] = "{\"priority\": 7, \"cookie\": "
                                 "\"\\u0001u64:18446744073709551615\", \"owner\": \"x\", "
                                 "\"actions\": [{\"action_type\": \"output\", \"port\": 2}]}";
    struct kflow want;
    struct fm_flow a, b;
    (void)state;

    parse_ok(bare, false, &want);
    assert_int_equal(flow_json_record(bare, strlen(bare), &a), 0);
    assert_int_equal(flow_json_record(marked, strlen(marked), &b), 0);
    assert_true(a.mod.cookie == UINT64_MAX);
    assert_string_equal(a.owner, "x");
    assert_true(fm_flow_id(9, &a) == fm_flow_id(9, &want.fl));
    assert_true(fm_flow_id(9, &b) == fm_flow_id(9, &want.fl));
    assert_int_equal(flow_json_record("{\"priority\": 7", 15, &a), -EINVAL);
    assert_int_equal(flow_json_record("{\"cookie_mask\": 1}", 17, &a), -EINVAL);
    assert_int_equal(flow_json_record("[]", 2, &a), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_top_fields),
        cmocka_unit_test(test_top_errors),
        cmocka_unit_test(test_match_fields),
        cmocka_unit_test(test_match_errors),
        cmocka_unit_test(test_actions),
        cmocka_unit_test(test_action_errors),
        cmocka_unit_test(test_instructions),
        cmocka_unit_test(test_instruction_errors),
        cmocka_unit_test(test_render_roundtrip),
        cmocka_unit_test(test_render_normalises),
        cmocka_unit_test(test_copy_fixup),
        cmocka_unit_test(test_identity),
        cmocka_unit_test(test_from_entry),
        cmocka_unit_test(test_u64_edges),
        cmocka_unit_test(test_top_field_scan),
        cmocka_unit_test(test_load_record),
        cmocka_unit_test(test_record_decoder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
