/*
 * test_ofp_group: GROUP_MOD with buckets, and the GROUP / GROUP_DESC stats
 * entries. The group_mod vector is written from spec §7.3.4.2 (and reads
 * back the same in ovs-ofctl ofp-print: "ADD group_id=1,type=select,
 * bucket=weight:10,actions=output:1,bucket=weight:20,actions=pop_vlan").
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

#define BUCKET1 "00 20 00 0a ff ff ff ff ff ff ff ff 00 00 00 00" \
                "00 00 00 10 00 00 00 01 00 00 00 00 00 00 00 00"
#define BUCKET2 "00 18 00 14 ff ff ff ff ff ff ff ff 00 00 00 00 00 12 00 08 00 00 00 00"

static int dec(const char *hex, struct ofp_msg *m, struct ofp_err *err, uint8_t **keep)
{
    uint8_t b[256];
    size_t n = ofp_test_hex(hex, b, sizeof(b));
    b[2] = (uint8_t)(n >> 8);
    b[3] = (uint8_t)n;
    return ofp_test_decode_copy(b, n, m, err, keep);
}

static void expect(const char *hex, int rc_want, uint16_t type, uint16_t code)
{
    struct ofp_msg m;
    struct ofp_err err = {0, 0};
    int rc = dec(hex, &m, &err, NULL);
    char e[96];
    ofp_err_format(err, e, sizeof(e));
    if (rc != rc_want || (rc && (err.type != type || err.code != code)))
        fail_msg("%s: rc %d %s, expected %s", hex, rc, e, ofp_err_code_name(type, code));
}

static void test_group_mod_vector(void **state)
{
    struct ofp_msg m;
    struct ofp_err err;
    uint8_t *keep, enc[256];
    struct ofp_bucket bk;
    struct ofp_action a;
    struct ofp_action_iter it;
    uint32_t pos = 0;
    (void)state;

    const char *hex = "04 0f 00 48 00 00 00 01 00 00 01 00 00 00 00 01" BUCKET1 BUCKET2;
    assert_int_equal(dec(hex, &m, &err, &keep), 0);
    const struct ofp_group_mod *gm = &m.u.group_mod;
    assert_int_equal(gm->command, OFPGC_ADD);
    assert_int_equal(gm->type, OFPGT_SELECT);
    assert_int_equal(gm->group_id, 1);
    assert_int_equal(gm->buckets.n, 2);
    assert_true(ofp_buckets_next(&gm->buckets, &pos, &bk));
    assert_int_equal(bk.weight, 10);
    assert_int_equal(bk.watch_port, OFPP_ANY);
    assert_int_equal(bk.watch_group, OFPG_ANY);
    ofp_actions_iter_init(&it, &bk.actions);
    assert_true(ofp_actions_next(&it, &a));
    assert_int_equal(a.type, OFPAT_OUTPUT);
    assert_int_equal(a.u.output.port, 1);
    assert_true(ofp_buckets_next(&gm->buckets, &pos, &bk));
    assert_int_equal(bk.weight, 20);
    ofp_actions_iter_init(&it, &bk.actions);
    assert_true(ofp_actions_next(&it, &a));
    assert_int_equal(a.type, OFPAT_POP_VLAN);
    assert_false(ofp_buckets_next(&gm->buckets, &pos, &bk));

    size_t n = ofp_test_encode(&m, enc, sizeof(enc));
    assert_int_equal(n, 72);
    assert_memory_equal(enc, keep, n);
    free(keep);
}

static void test_group_mod_errors(void **state)
{
    (void)state;
    const uint16_t G = OFPET_GROUP_MOD_FAILED;
    expect("04 0f 00 10 00 00 00 01 00 03 01 00 00 00 00 01", -EBADMSG, G, OFPGMFC_BAD_COMMAND);
    expect("04 0f 00 10 00 00 00 01 00 00 04 00 00 00 00 01", -EBADMSG, G, OFPGMFC_BAD_TYPE);
    expect("04 0f 00 10 00 00 00 01 00 00 00 00 ff ff ff 01", -EBADMSG, G, OFPGMFC_INVALID_GROUP);
    expect("04 0f 00 10 00 00 00 01 00 01 00 00 ff ff ff fc", -EBADMSG, G, OFPGMFC_INVALID_GROUP);
    expect("04 0f 00 10 00 00 00 01 00 02 00 00 ff ff ff fc", 0, 0, 0);  /* DELETE ALL */
    expect("04 0f 00 10 00 00 00 01 00 02 00 00 ff ff ff ff", -EBADMSG, G, OFPGMFC_INVALID_GROUP);
    /* bucket shorter than its header, not a multiple of 8, past the message */
    expect("04 0f 00 00 00 00 00 01 00 00 01 00 00 00 00 01"
           "00 0c 00 0a ff ff ff ff ff ff ff ff 00 00 00 00",
           -EBADMSG, G, OFPGMFC_BAD_BUCKET);
    expect("04 0f 00 00 00 00 00 01 00 00 01 00 00 00 00 01"
           "00 14 00 0a ff ff ff ff ff ff ff ff 00 00 00 00 00 00 00 00",
           -EBADMSG, G, OFPGMFC_BAD_BUCKET);
    expect("04 0f 00 00 00 00 00 01 00 00 01 00 00 00 00 01"
           "00 28 00 0a ff ff ff ff ff ff ff ff 00 00 00 00 00 12 00 08 00 00 00 00",
           -EBADMSG, G, OFPGMFC_BAD_BUCKET);
    /* 8 stray bytes after the buckets */
    expect("04 0f 00 00 00 00 00 01 00 00 01 00 00 00 00 01" BUCKET2 "00 00 00 00 00 00 00 00",
           -EBADMSG, G, OFPGMFC_BAD_BUCKET);
    /* an action inside a bucket */
    expect("04 0f 00 00 00 00 00 01 00 00 01 00 00 00 00 01"
           "00 18 00 0a ff ff ff ff ff ff ff ff 00 00 00 00 00 16 00 08 ff ff ff ff",
           -EBADMSG, OFPET_BAD_ACTION, OFPBAC_BAD_OUT_GROUP);

    struct ofp_group_mod gm = {OFPGC_ADD, 9, 1, {.n = 0}};
    uint8_t out[64];
    struct ofp_buf b;
    ofp_buf_init(&b, out, sizeof(out));
    assert_int_equal(ofp_group_mod_encode(&b, 1, &gm), -EINVAL);
    assert_int_equal(b.len, 0);
}

static void test_group_stats_entries(void **state)
{
    uint8_t b[256], *c;
    struct ofp_group_stats gs;
    struct ofp_group_desc gd;
    struct ofp_bucket_counter bc;
    struct ofp_err err;
    size_t used;
    (void)state;

    size_t n = ofp_test_hex("00 38 00 00 00 00 00 01 00 00 00 02 00 00 00 00"
                            "00 00 00 00 00 00 00 03 00 00 00 00 00 00 00 04"
                            "00 00 00 05 00 00 00 06"
                            "00 00 00 00 00 00 00 07 00 00 00 00 00 00 00 08",
                            b, sizeof(b));
    c = ofp_test_dup(b, n);
    assert_int_equal(ofp_group_stats_parse(c, n, &gs, &used, &err), 0);
    assert_int_equal(used, 56);
    assert_int_equal(gs.group_id, 1);
    assert_int_equal(gs.ref_count, 2);
    assert_int_equal(gs.packet_count, 3);
    assert_int_equal(gs.byte_count, 4);
    assert_int_equal(gs.duration_sec, 5);
    assert_int_equal(gs.duration_nsec, 6);
    assert_int_equal(gs.n_counters, 1);
    assert_true(ofp_group_stats_counter(&gs, 0, &bc));
    assert_int_equal(bc.packet_count, 7);
    assert_int_equal(bc.byte_count, 8);
    assert_false(ofp_group_stats_counter(&gs, 1, &bc));
    free(c);
    b[1] = 0x30;                    /* 40 + 8: half a counter */
    assert_int_equal(ofp_group_stats_parse(b, n, &gs, &used, &err), -EBADMSG);
    assert_true(err.type == OFPET_BAD_REQUEST && err.code == OFPBRC_BAD_LEN);
    b[1] = 0x20;                    /* shorter than the fixed part */
    assert_int_equal(ofp_group_stats_parse(b, n, &gs, &used, &err), -EBADMSG);
    b[1] = 0x48;                    /* past the body */
    assert_int_equal(ofp_group_stats_parse(b, n, &gs, &used, &err), -EBADMSG);

    n = ofp_test_hex("00 28 01 00 00 00 00 07" BUCKET1, b, sizeof(b));
    c = ofp_test_dup(b, n);
    assert_int_equal(ofp_group_desc_parse(c, n, &gd, &used, &err), 0);
    assert_int_equal(used, 40);
    assert_int_equal(gd.type, OFPGT_SELECT);
    assert_int_equal(gd.group_id, 7);
    assert_int_equal(gd.buckets.n, 1);
    free(c);
    b[1] = 0x24;
    assert_int_equal(ofp_group_desc_parse(b, n, &gd, &used, &err), -EBADMSG);
    assert_true(err.type == OFPET_BAD_REQUEST && err.code == OFPBRC_BAD_LEN);
    b[1] = 0x28;
    b[9] = 0x1c;                    /* the bucket's own length */
    assert_int_equal(ofp_group_desc_parse(b, n, &gd, &used, &err), -EBADMSG);
    assert_true(err.type == OFPET_GROUP_MOD_FAILED && err.code == OFPGMFC_BAD_BUCKET);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_mod_vector),
        cmocka_unit_test(test_group_mod_errors),
        cmocka_unit_test(test_group_stats_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
