/*
 * test_ofp_action: OF1.3 actions and instructions. One hand-written vector
 * holds every action type in its spec layout (§7.2.5) and one every
 * instruction (§7.2.4); they are decoded field by field and must re-encode
 * to the same bytes. Then each malformed variant must give its spec error
 * (OFPBAC_*, OFPBIC_*), and encoders must refuse what decoders refuse.
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

static const char every_action_hex[] =
    "00 00 00 10 00 00 00 05 ff ff 00 00 00 00 00 00" /* output:5 max_len=0xffff */
    "00 0b 00 08 00 00 00 00"                         /* copy_ttl_out */
    "00 0c 00 08 00 00 00 00"                         /* copy_ttl_in */
    "00 0f 00 08 40 00 00 00"                         /* set_mpls_ttl 64 */
    "00 10 00 08 00 00 00 00"                         /* dec_mpls_ttl */
    "00 11 00 08 81 00 00 00"                         /* push_vlan 0x8100 */
    "00 12 00 08 00 00 00 00"                         /* pop_vlan */
    "00 13 00 08 88 47 00 00"                         /* push_mpls 0x8847 */
    "00 14 00 08 08 00 00 00"                         /* pop_mpls 0x0800 */
    "00 15 00 08 00 00 00 03"                         /* set_queue 3 */
    "00 16 00 08 00 00 00 07"                         /* group 7 */
    "00 17 00 08 20 00 00 00"                         /* set_nw_ttl 32 */
    "00 18 00 08 00 00 00 00"                         /* dec_nw_ttl */
    "00 19 00 10 80 00 0c 02 10 64 00 00 00 00 00 00" /* set_field vlan_vid=0x1064 */
    "00 1a 00 08 88 e7 00 00"                         /* push_pbb 0x88e7 */
    "00 1b 00 08 00 00 00 00"                         /* pop_pbb */
    "ff ff 00 10 00 00 23 20 01 02 03 04 05 06 07 08" /* experimenter 0x2320 */
    "00 19 00 10 00 01 00 04 00 00 00 2a 00 00 00 00"; /* set_field NXM_NX_REG0=42 */

static int decode_actions(const uint8_t *p, size_t n, struct ofp_actions *out,
                          struct ofp_err *err, uint8_t **keep)
{
    *keep = ofp_test_dup(p, n);
    return ofp_actions_decode(*keep, n, out, err);
}

static void test_every_action(void **state)
{
    uint8_t b[512], enc[512];
    struct ofp_actions l;
    struct ofp_err err;
    struct ofp_action a;
    struct ofp_action_iter it;
    struct ofp_buf ob;
    uint8_t *keep;
    (void)state;

    size_t n = ofp_test_hex(every_action_hex, b, sizeof(b));
    assert_int_equal(decode_actions(b, n, &l, &err, &keep), 0);
    assert_int_equal(l.n, 18);
    ofp_actions_iter_init(&it, &l);

#define NEXT(t)                                                                             \
    do {                                                                                    \
        assert_true(ofp_actions_next(&it, &a));                                             \
        assert_int_equal(a.type, t);                                                        \
    } while (0)
    NEXT(OFPAT_OUTPUT);
    assert_int_equal(a.u.output.port, 5);
    assert_int_equal(a.u.output.max_len, 0xffff);
    NEXT(OFPAT_COPY_TTL_OUT);
    NEXT(OFPAT_COPY_TTL_IN);
    NEXT(OFPAT_SET_MPLS_TTL);
    assert_int_equal(a.u.ttl, 64);
    NEXT(OFPAT_DEC_MPLS_TTL);
    NEXT(OFPAT_PUSH_VLAN);
    assert_int_equal(a.u.ethertype, 0x8100);
    NEXT(OFPAT_POP_VLAN);
    NEXT(OFPAT_PUSH_MPLS);
    assert_int_equal(a.u.ethertype, 0x8847);
    NEXT(OFPAT_POP_MPLS);
    assert_int_equal(a.u.ethertype, 0x0800);
    NEXT(OFPAT_SET_QUEUE);
    assert_int_equal(a.u.queue_id, 3);
    NEXT(OFPAT_GROUP);
    assert_int_equal(a.u.group_id, 7);
    NEXT(OFPAT_SET_NW_TTL);
    assert_int_equal(a.u.ttl, 32);
    NEXT(OFPAT_DEC_NW_TTL);
    NEXT(OFPAT_SET_FIELD);
    assert_int_equal(a.u.set_field.oxm_class, OFPXMC_OPENFLOW_BASIC);
    assert_int_equal(a.u.set_field.field, OFPXMT_OFB_VLAN_VID);
    assert_memory_equal(a.u.set_field.value, "\x10\x64", 2);
    NEXT(OFPAT_PUSH_PBB);
    assert_int_equal(a.u.ethertype, 0x88e7);
    NEXT(OFPAT_POP_PBB);
    NEXT(OFPAT_EXPERIMENTER);
    assert_int_equal(a.u.experimenter.experimenter, 0x2320);
    assert_int_equal(a.u.experimenter.len, 8);
    assert_memory_equal(a.u.experimenter.data, "\1\2\3\4\5\6\7\x08", 8);
    NEXT(OFPAT_SET_FIELD);
    assert_int_equal(a.u.set_field.oxm_class, OFPXMC_NXM_1);
    assert_int_equal(a.u.set_field.len, 4);
    assert_memory_equal(a.u.set_field.oxm, "\x00\x01\x00\x04\x00\x00\x00\x2a", 8);
    assert_false(ofp_actions_next(&it, &a));
#undef NEXT

    ofp_buf_init(&ob, enc, sizeof(enc));
    assert_int_equal(ofp_actions_encode(&ob, &l), 0);
    assert_int_equal(ob.len, n);
    assert_memory_equal(enc, b, n);
    free(keep);
}

static void expect_bad_action(const char *hex, uint16_t code)
{
    uint8_t b[128];
    struct ofp_actions l;
    struct ofp_err err = {0, 0};
    uint8_t *keep;
    size_t n = ofp_test_hex(hex, b, sizeof(b));
    int rc = decode_actions(b, n, &l, &err, &keep);
    free(keep);
    if (rc != -EBADMSG || err.type != OFPET_BAD_ACTION || err.code != code) {
        char e[96];
        ofp_err_format(err, e, sizeof(e));
        fail_msg("%s: rc %d %s, expected %s", hex, rc, e,
                 ofp_err_code_name(OFPET_BAD_ACTION, code));
    }
}

static void expect_good_action(const char *hex)
{
    uint8_t b[128];
    struct ofp_actions l;
    struct ofp_err err;
    uint8_t *keep;
    size_t n = ofp_test_hex(hex, b, sizeof(b));
    int rc = decode_actions(b, n, &l, &err, &keep);
    free(keep);
    if (rc != 0)
        fail_msg("%s refused", hex);
}

static void test_action_lengths(void **state)
{
    (void)state;
    expect_bad_action("00 12 00 04 00 00 00 00", OFPBAC_BAD_LEN);          /* below 8 */
    expect_bad_action("00 12 00 0c 00 00 00 00 00 00 00 00", OFPBAC_BAD_LEN); /* not x8 */
    expect_bad_action("00 12 00 10 00 00 00 00", OFPBAC_BAD_LEN);          /* past the list */
    expect_bad_action("00 12 00 08 00 00 00 00 00 12 00 08", OFPBAC_BAD_LEN); /* 4 left */
    expect_bad_action("00 00 00 08 00 00 00 05", OFPBAC_BAD_LEN);          /* output 8 */
    expect_bad_action("00 12 00 10 00 00 00 00 00 00 00 00 00 00 00 00", OFPBAC_BAD_LEN);
    expect_bad_action("00 16 00 10 00 00 00 01 00 00 00 00 00 00 00 00", OFPBAC_BAD_LEN);
    expect_bad_action("ff ff 00 04 00 00", OFPBAC_BAD_LEN);
    expect_good_action("ff ff 00 08 00 00 23 20");                        /* no data */
    expect_good_action("");                                               /* empty list */
}

static void test_action_types_and_arguments(void **state)
{
    (void)state;
    /* OpenFlow 1.0/1.1 action numbers and gaps are not 1.3 actions */
    static const char *unknown[] = {"00 01 00 08 00 00 00 00", "00 05 00 08 00 00 00 00",
                                    "00 0a 00 08 00 00 00 00", "00 0d 00 08 00 00 00 00",
                                    "00 0e 00 08 00 00 00 00", "00 1c 00 08 00 00 00 00",
                                    "ff fe 00 08 00 00 00 00"};
    for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
        expect_bad_action(unknown[i], OFPBAC_BAD_TYPE);

    expect_bad_action("00 00 00 10 00 00 00 00 00 00 00 00 00 00 00 00", OFPBAC_BAD_OUT_PORT);
    expect_bad_action("00 00 00 10 ff ff ff 01 00 00 00 00 00 00 00 00", OFPBAC_BAD_OUT_PORT);
    expect_bad_action("00 00 00 10 ff ff ff f7 00 00 00 00 00 00 00 00", OFPBAC_BAD_OUT_PORT);
    expect_bad_action("00 00 00 10 ff ff ff ff 00 00 00 00 00 00 00 00", OFPBAC_BAD_OUT_PORT);
    expect_good_action("00 00 00 10 ff ff ff 00 00 00 00 00 00 00 00 00");  /* OFPP_MAX */
    expect_good_action("00 00 00 10 ff ff ff f8 00 00 00 00 00 00 00 00");  /* IN_PORT */
    expect_good_action("00 00 00 10 ff ff ff fe 00 00 00 00 00 00 00 00");  /* LOCAL */

    expect_bad_action("00 11 00 08 08 00 00 00", OFPBAC_BAD_ARGUMENT);      /* push_vlan */
    expect_good_action("00 11 00 08 88 a8 00 00");
    expect_bad_action("00 13 00 08 81 00 00 00", OFPBAC_BAD_ARGUMENT);      /* push_mpls */
    expect_good_action("00 13 00 08 88 48 00 00");
    expect_bad_action("00 1a 00 08 81 00 00 00", OFPBAC_BAD_ARGUMENT);      /* push_pbb */

    expect_bad_action("00 16 00 08 ff ff ff 01", OFPBAC_BAD_OUT_GROUP);
    expect_bad_action("00 16 00 08 ff ff ff fc", OFPBAC_BAD_OUT_GROUP);     /* OFPG_ALL */
    expect_good_action("00 16 00 08 ff ff ff 00");                          /* OFPG_MAX */
    expect_bad_action("00 15 00 08 ff ff ff ff", OFPBAC_BAD_QUEUE);
}

static void test_set_field(void **state)
{
    (void)state;
    /* unknown basic field 40 */
    expect_bad_action("00 19 00 10 80 00 50 02 00 01 00 00 00 00 00 00", OFPBAC_BAD_SET_TYPE);
    /* masked OXM */
    expect_bad_action("00 19 00 10 80 00 0d 04 10 64 1f ff 00 00 00 00",
                      OFPBAC_BAD_SET_ARGUMENT);
    /* OXM length 3 for the 2-byte VLAN_VID */
    expect_bad_action("00 19 00 10 80 00 0c 03 10 64 00 00 00 00 00 00", OFPBAC_BAD_SET_LEN);
    /* more padding than needed to reach 8 */
    expect_bad_action("00 19 00 18 80 00 0c 02 10 64 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
                      OFPBAC_BAD_SET_LEN);
    /* OXM payload past the action */
    expect_bad_action("00 19 00 08 80 00 0c 02 10 64 00 00", OFPBAC_BAD_SET_LEN);
    expect_bad_action("00 19 00 08 80 00 16 04", OFPBAC_BAD_SET_LEN);
    /* values wider than the field */
    expect_bad_action("00 19 00 10 80 00 0e 01 08 00 00 00 00 00 00 00",
                      OFPBAC_BAD_SET_ARGUMENT);                         /* vlan_pcp 8 */
    expect_bad_action("00 19 00 10 80 00 0c 02 20 00 00 00 00 00 00 00",
                      OFPBAC_BAD_SET_ARGUMENT);                         /* vlan_vid 0x2000 */
    expect_good_action("00 19 00 10 80 00 0e 01 07 00 00 00 00 00 00 00");
    /* experimenter OXM too short for its id */
    expect_bad_action("00 19 00 10 ff ff 00 02 00 00 00 00 00 00 00 00", OFPBAC_BAD_SET_LEN);
    /* ipv6_src: 4 + 4 + 16 = 24, no padding needed */
    expect_good_action("00 19 00 18 80 00 34 10 20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 01");
}

static void test_action_encode_checks(void **state)
{
    uint8_t out[64];
    struct ofp_buf b;
    (void)state;
    ofp_buf_init(&b, out, sizeof(out));

    struct ofp_action bad[] = {
        {.type = OFPAT_PUSH_VLAN, .u.ethertype = 0x0800},
        {.type = OFPAT_OUTPUT, .u.output = {.port = 0}},
        {.type = OFPAT_GROUP, .u.group_id = OFPG_ANY},
        {.type = 99},
        {.type = OFPAT_EXPERIMENTER, .u.experimenter = {.experimenter = 1, .len = 5,
                                                        .data = out}},
        {.type = OFPAT_SET_FIELD, .u.set_field = {.oxm_class = OFPXMC_OPENFLOW_BASIC,
                                                  .field = 77}},
        {.type = OFPAT_SET_FIELD, .u.set_field = {.oxm_class = OFPXMC_OPENFLOW_BASIC,
                                                  .field = OFPXMT_OFB_IP_DSCP, .value = {64}}},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(ofp_action_encode(&b, &bad[i]), -EINVAL);
        assert_int_equal(b.len, 0);
    }
    /* a list stops whole at its first bad action */
    struct ofp_action two[] = {{.type = OFPAT_POP_VLAN},
                               {.type = OFPAT_PUSH_PBB, .u.ethertype = 1}};
    struct ofp_actions l = {.arr = two, .n = 2};
    assert_int_equal(ofp_actions_encode(&b, &l), -EINVAL);
    assert_int_equal(b.len, 0);
}

static void test_action_equal_and_format(void **state)
{
    uint8_t b[512];
    struct ofp_actions wire;
    struct ofp_err err;
    uint8_t *keep;
    char s[256];
    (void)state;

    static const struct ofp_action arr[] = {
        {.type = OFPAT_OUTPUT, .u.output = {.port = 5, .max_len = 0}},
        {.type = OFPAT_PUSH_VLAN, .u.ethertype = 0x8100},
        {.type = OFPAT_SET_FIELD, .u.set_field = {.oxm_class = OFPXMC_OPENFLOW_BASIC,
                                                  .field = OFPXMT_OFB_VLAN_VID,
                                                  .value = {0x10, 0x64}}},
        {.type = OFPAT_OUTPUT, .u.output = {.port = OFPP_CONTROLLER, .max_len = 128}},
        {.type = OFPAT_GROUP, .u.group_id = 7},
    };
    struct ofp_actions built = {.arr = arr, .n = 5};
    size_t n = ofp_test_hex("00 00 00 10 00 00 00 05 00 00 00 00 00 00 00 00"
                            "00 11 00 08 81 00 00 00"
                            "00 19 00 10 80 00 0c 02 10 64 00 00 00 00 00 00"
                            "00 00 00 10 ff ff ff fd 00 80 00 00 00 00 00 00"
                            "00 16 00 08 00 00 00 07",
                            b, sizeof(b));
    assert_int_equal(decode_actions(b, n, &wire, &err, &keep), 0);
    assert_true(ofp_actions_equal(&built, &wire));
    ofp_actions_format(&wire, s, sizeof(s));
    assert_string_equal(s, "output:5,push_vlan:0x8100,set_field:vlan_vid=0x1064,"
                           "output:controller(max_len=128),group:7");
    /* one argument different, or one action fewer: not equal */
    struct ofp_actions shorter = {.arr = arr, .n = 4};
    assert_false(ofp_actions_equal(&shorter, &wire));
    keep[n - 1] = 8;
    assert_false(ofp_actions_equal(&built, &wire));
    free(keep);

    struct ofp_actions none = {.n = 0};
    ofp_actions_format(&none, s, sizeof(s));
    assert_string_equal(s, "drop");
    assert_string_equal(ofp_action_type_name(OFPAT_DEC_NW_TTL), "dec_nw_ttl");
    assert_null(ofp_action_type_name(2));
}

/* ---- instructions ------------------------------------------------------------------ */

static const char every_inst_hex[] =
    "00 06 00 08 00 00 00 02"                          /* meter 2 */
    "00 04 00 10 00 00 00 00 00 12 00 08 00 00 00 00"  /* apply_actions(pop_vlan) */
    "00 05 00 08 00 00 00 00"                          /* clear_actions */
    "00 03 00 18 00 00 00 00 00 00 00 10 00 00 00 01 00 00 00 00 00 00 00 00" /* write(out:1) */
    "00 02 00 18 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 ff" /* metadata */
    "00 01 00 08 05 00 00 00"                          /* goto_table 5 */
    "ff ff 00 10 00 00 23 20 aa bb cc dd ee ff 00 11"; /* experimenter */

static int decode_inst(const char *hex, uint8_t table, struct ofp_instructions *in,
                       struct ofp_err *err, uint8_t **keep, size_t *n)
{
    uint8_t b[256];
    *n = ofp_test_hex(hex, b, sizeof(b));
    *keep = ofp_test_dup(b, *n);
    return ofp_instructions_decode(*keep, *n, table, in, err);
}

static void test_every_instruction(void **state)
{
    struct ofp_instructions in;
    struct ofp_err err;
    uint8_t *keep, enc[256];
    size_t n;
    struct ofp_buf b;
    char s[256];
    (void)state;

    assert_int_equal(decode_inst(every_inst_hex, 1, &in, &err, &keep, &n), 0);
    assert_int_equal(in.present, OFP_INST_METER | OFP_INST_APPLY_ACTIONS |
                                     OFP_INST_CLEAR_ACTIONS | OFP_INST_WRITE_ACTIONS |
                                     OFP_INST_WRITE_METADATA | OFP_INST_GOTO_TABLE |
                                     OFP_INST_EXPERIMENTER);
    assert_int_equal(in.meter_id, 2);
    assert_int_equal(in.apply_actions.n, 1);
    assert_int_equal(in.write_actions.n, 1);
    assert_int_equal(in.metadata, 1);
    assert_int_equal(in.metadata_mask, 0xff);
    assert_int_equal(in.goto_table, 5);
    assert_int_equal(in.experimenter, 0x2320);
    assert_int_equal(in.exp_len, 8);
    ofp_instructions_format(&in, s, sizeof(s));
    assert_string_equal(s, "meter:2,apply_actions(pop_vlan),clear_actions,"
                           "write_actions(output:1),write_metadata:0x1/0xff,goto_table:5,"
                           "experimenter:0x00002320(len=8)");
    ofp_buf_init(&b, enc, sizeof(enc));
    assert_int_equal(ofp_instructions_encode(&b, &in), 0);
    assert_int_equal(b.len, n);
    assert_memory_equal(enc, keep, n);
    free(keep);

    /* any order on the wire is accepted; equality ignores it */
    struct ofp_instructions other;
    assert_int_equal(decode_inst("00 01 00 08 05 00 00 00 00 06 00 08 00 00 00 02", 1, &other,
                                 &err, &keep, &n),
                     0);
    assert_int_equal(other.present, OFP_INST_GOTO_TABLE | OFP_INST_METER);
    free(keep);
}

static void expect_bad_inst(const char *hex, uint8_t table, uint16_t type, uint16_t code)
{
    struct ofp_instructions in;
    struct ofp_err err = {0, 0};
    uint8_t *keep;
    size_t n;
    int rc = decode_inst(hex, table, &in, &err, &keep, &n);
    free(keep);
    if (rc != -EBADMSG || err.type != type || err.code != code) {
        char e[96];
        ofp_err_format(err, e, sizeof(e));
        fail_msg("%s: rc %d %s, expected %s", hex, rc, e, ofp_err_code_name(type, code));
    }
}

static void test_instruction_errors(void **state)
{
    (void)state;
    const uint16_t BI = OFPET_BAD_INSTRUCTION;
    expect_bad_inst("00 07 00 08 00 00 00 00", 0, BI, OFPBIC_UNKNOWN_INST);
    expect_bad_inst("00 00 00 08 00 00 00 00", 0, BI, OFPBIC_UNKNOWN_INST);
    expect_bad_inst("00 01 00 04 05 00 00 00", 0, BI, OFPBIC_BAD_LEN);
    expect_bad_inst("00 01 00 0c 05 00 00 00 00 00 00 00", 0, BI, OFPBIC_BAD_LEN);
    expect_bad_inst("00 01 00 10 05 00 00 00", 0, BI, OFPBIC_BAD_LEN);
    expect_bad_inst("00 01 00 08 05 00 00 00 00 05", 0, BI, OFPBIC_BAD_LEN);
    expect_bad_inst("00 01 00 10 05 00 00 00 00 00 00 00 00 00 00 00", 0, BI, OFPBIC_BAD_LEN);
    expect_bad_inst("00 02 00 10 00 00 00 00 00 00 00 00 00 00 00 01", 0, BI, OFPBIC_BAD_LEN);
    expect_bad_inst("00 05 00 10 00 00 00 00 00 12 00 08 00 00 00 00", 0, BI, OFPBIC_BAD_LEN);
    expect_bad_inst("00 06 00 10 00 00 00 01 00 00 00 00 00 00 00 00", 0, BI, OFPBIC_BAD_LEN);
    expect_bad_inst("00 04 00 04 00 00 00 00", 0, BI, OFPBIC_BAD_LEN);
    /* goto: never OFPTT_ALL, never back or to itself */
    expect_bad_inst("00 01 00 08 ff 00 00 00", 0, BI, OFPBIC_BAD_TABLE_ID);
    expect_bad_inst("00 01 00 08 05 00 00 00", 5, BI, OFPBIC_BAD_TABLE_ID);
    expect_bad_inst("00 01 00 08 03 00 00 00", 5, BI, OFPBIC_BAD_TABLE_ID);
    /* the same instruction twice */
    expect_bad_inst("00 05 00 08 00 00 00 00 00 05 00 08 00 00 00 00", 0, BI, OFPBIC_UNSUP_INST);
    /* a bad action inside apply_actions is an action error */
    expect_bad_inst("00 04 00 10 00 00 00 00 00 63 00 08 00 00 00 00", 0, OFPET_BAD_ACTION,
                    OFPBAC_BAD_TYPE);
    expect_bad_inst("00 03 00 10 00 00 00 00 00 00 00 08 00 00 00 01", 0, OFPET_BAD_ACTION,
                    OFPBAC_BAD_LEN);

    /* goto checks are off where there is no table (OFPTT_ALL) */
    struct ofp_instructions in;
    struct ofp_err err;
    uint8_t *keep;
    size_t n;
    assert_int_equal(decode_inst("00 01 00 08 00 00 00 00", OFPTT_ALL, &in, &err, &keep, &n), 0);
    free(keep);
}

static void test_instruction_encode_checks(void **state)
{
    uint8_t out[128];
    struct ofp_buf b;
    struct ofp_instructions in;
    static const struct ofp_action bad = {.type = OFPAT_GROUP, .u.group_id = OFPG_ALL};
    (void)state;
    ofp_buf_init(&b, out, sizeof(out));

    memset(&in, 0, sizeof(in));
    in.present = OFP_INST_GOTO_TABLE;
    in.goto_table = OFPTT_ALL;
    assert_int_equal(ofp_instructions_encode(&b, &in), -EINVAL);
    in.present = 1u << 9;
    assert_int_equal(ofp_instructions_encode(&b, &in), -EINVAL);
    in.present = OFP_INST_METER | OFP_INST_APPLY_ACTIONS;
    in.apply_actions = (struct ofp_actions){.arr = &bad, .n = 1};
    assert_int_equal(ofp_instructions_encode(&b, &in), -EINVAL);
    assert_int_equal(b.len, 0);            /* the meter written first was taken back */
    in.present = OFP_INST_EXPERIMENTER;
    in.exp_len = 4;
    in.exp_data = out;
    assert_int_equal(ofp_instructions_encode(&b, &in), -EINVAL);
    assert_int_equal(b.len, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_action),
        cmocka_unit_test(test_action_lengths),
        cmocka_unit_test(test_action_types_and_arguments),
        cmocka_unit_test(test_set_field),
        cmocka_unit_test(test_action_encode_checks),
        cmocka_unit_test(test_action_equal_and_format),
        cmocka_unit_test(test_every_instruction),
        cmocka_unit_test(test_instruction_errors),
        cmocka_unit_test(test_instruction_encode_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
