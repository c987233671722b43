/*
 * test_ofp_meter: METER_MOD with bands and the METER stats entries. The
 * meter_mod vector is written from spec §7.3.4.4 (ovs-ofctl ofp-print reads
 * it as "ADD meter=1 kbps burst stats bands= type=drop rate=1000
 * burst_size=100 type=dscp_remark rate=500 burst_size=50 prec_level=1").
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

#define DROP "00 01 00 10 00 00 03 e8 00 00 00 64 00 00 00 00"
#define DSCP "00 02 00 10 00 00 01 f4 00 00 00 32 01 00 00 00"

static int dec(const char *hex, struct ofp_msg *m, struct ofp_err *err, uint8_t **keep)
{
    uint8_t b[256];
    size_t n = ofp_test_hex(hex, b, sizeof(b));
    b[2] = (uint8_t)(n >> 8);
    b[3] = (uint8_t)n;
    return ofp_test_decode_copy(b, n, m, err, keep);
}

static void expect(const char *hex, int rc_want, uint16_t code)
{
    struct ofp_msg m;
    struct ofp_err err = {0, 0};
    int rc = dec(hex, &m, &err, NULL);
    char e[96];
    ofp_err_format(err, e, sizeof(e));
    if (rc != rc_want || (rc && (err.type != OFPET_METER_MOD_FAILED || err.code != code)))
        fail_msg("%s: rc %d %s, expected %s", hex, rc, e,
                 ofp_err_code_name(OFPET_METER_MOD_FAILED, code));
}

static void test_meter_mod_vector(void **state)
{
    struct ofp_msg m;
    struct ofp_err err;
    uint8_t *keep, enc[128];
    struct ofp_meter_band band;
    uint32_t pos = 0;
    (void)state;

    assert_int_equal(dec("04 1d 00 30 00 00 00 01 00 00 00 0d 00 00 00 01" DROP DSCP, &m, &err,
                         &keep),
                     0);
    const struct ofp_meter_mod *mm = &m.u.meter_mod;
    assert_int_equal(mm->command, OFPMC_ADD);
    assert_int_equal(mm->flags, OFPMF_KBPS | OFPMF_BURST | OFPMF_STATS);
    assert_int_equal(mm->meter_id, 1);
    assert_int_equal(mm->bands.n, 2);
    assert_true(ofp_meter_bands_next(&mm->bands, &pos, &band));
    assert_int_equal(band.type, OFPMBT_DROP);
    assert_int_equal(band.rate, 1000);
    assert_int_equal(band.burst_size, 100);
    assert_true(ofp_meter_bands_next(&mm->bands, &pos, &band));
    assert_int_equal(band.type, OFPMBT_DSCP_REMARK);
    assert_int_equal(band.rate, 500);
    assert_int_equal(band.burst_size, 50);
    assert_int_equal(band.prec_level, 1);
    assert_false(ofp_meter_bands_next(&mm->bands, &pos, &band));
    assert_int_equal(ofp_test_encode(&m, enc, sizeof(enc)), 48);
    assert_memory_equal(enc, keep, 48);
    free(keep);
}

static void test_meter_mod_errors(void **state)
{
    (void)state;
    expect("04 1d 00 10 00 00 00 01 00 03 00 01 00 00 00 01", -EBADMSG, OFPMMFC_BAD_COMMAND);
    expect("04 1d 00 10 00 00 00 01 00 00 00 10 00 00 00 01", -EBADMSG, OFPMMFC_BAD_FLAGS);
    expect("04 1d 00 10 00 00 00 01 00 00 00 01 00 00 00 00", -EBADMSG, OFPMMFC_INVALID_METER);
    expect("04 1d 00 10 00 00 00 01 00 00 00 01 ff ff 00 01", -EBADMSG, OFPMMFC_INVALID_METER);
    expect("04 1d 00 10 00 00 00 01 00 00 00 01 ff ff ff ff", -EBADMSG, OFPMMFC_INVALID_METER);
    expect("04 1d 00 10 00 00 00 01 00 02 00 00 ff ff ff ff", 0, 0);    /* DELETE all */
    expect("04 1d 00 10 00 00 00 01 00 00 00 01 ff ff ff fe", 0, 0);    /* CONTROLLER */
    expect("04 1d 00 10 00 00 00 01 00 00 00 01 ff ff 00 00", 0, 0);    /* OFPM_MAX */
    /* bands: unknown type, wrong length for drop, short, not x8, past the end */
    expect("04 1d 00 00 00 00 00 01 00 00 00 01 00 00 00 01"
           "00 03 00 10 00 00 03 e8 00 00 00 64 00 00 00 00",
           -EBADMSG, OFPMMFC_BAD_BAND);
    expect("04 1d 00 00 00 00 00 01 00 00 00 01 00 00 00 01"
           "00 01 00 18 00 00 03 e8 00 00 00 64 00 00 00 00 00 00 00 00 00 00 00 00",
           -EBADMSG, OFPMMFC_BAD_BAND);
    expect("04 1d 00 00 00 00 00 01 00 00 00 01 00 00 00 01 00 01 00 0c 00 00 03 e8 00 00 00 64",
           -EBADMSG, OFPMMFC_BAD_BAND);
    expect("04 1d 00 00 00 00 00 01 00 00 00 01 00 00 00 01"
           "00 01 00 14 00 00 03 e8 00 00 00 64 00 00 00 00 00 00 00 00",
           -EBADMSG, OFPMMFC_BAD_BAND);
    expect("04 1d 00 00 00 00 00 01 00 00 00 01 00 00 00 01 00 01 00 10 00 00 03 e8",
           -EBADMSG, OFPMMFC_BAD_BAND);
    /* an experimenter band may carry data after its 16 bytes */
    expect("04 1d 00 00 00 00 00 01 00 00 00 01 00 00 00 01"
           "ff ff 00 18 00 00 00 01 00 00 00 02 00 00 23 20 01 02 03 04 05 06 07 08",
           0, 0);

    struct ofp_meter_mod mm = {OFPMC_ADD, 0, 0, {.n = 0}};
    uint8_t out[64];
    struct ofp_buf b;
    ofp_buf_init(&b, out, sizeof(out));
    assert_int_equal(ofp_meter_mod_encode(&b, 1, &mm), -EINVAL);
    static const struct ofp_meter_band bad = {.type = 7};
    mm = (struct ofp_meter_mod){OFPMC_ADD, 0, 3, {.arr = &bad, .n = 1}};
    assert_int_equal(ofp_meter_mod_encode(&b, 1, &mm), -EINVAL);
    assert_int_equal(b.len, 0);
}

static void test_meter_stats_entry(void **state)
{
    uint8_t b[128], enc[128];
    struct ofp_meter_stats ms;
    struct ofp_meter_band_stats bs;
    struct ofp_err err;
    struct ofp_buf ob;
    size_t used;
    (void)state;
    size_t n = ofp_test_hex("00 00 00 01 00 38 00 00 00 00 00 00 00 00 00 02"
                            "00 00 00 00 00 00 00 03 00 00 00 00 00 00 00 04"
                            "00 00 00 05 00 00 00 06"
                            "00 00 00 00 00 00 00 07 00 00 00 00 00 00 00 08",
                            b, sizeof(b));
    uint8_t *c = ofp_test_dup(b, n);
    assert_int_equal(ofp_meter_stats_parse(c, n, &ms, &used, &err), 0);
    assert_int_equal(used, 56);
    assert_int_equal(ms.meter_id, 1);
    assert_int_equal(ms.flow_count, 2);
    assert_int_equal(ms.packet_in_count, 3);
    assert_int_equal(ms.byte_in_count, 4);
    assert_int_equal(ms.duration_sec, 5);
    assert_int_equal(ms.duration_nsec, 6);
    assert_int_equal(ms.n_bands, 1);
    assert_true(ofp_meter_stats_band(&ms, 0, &bs));
    assert_int_equal(bs.packet_band_count, 7);
    assert_int_equal(bs.byte_band_count, 8);
    ofp_buf_init(&ob, enc, sizeof(enc));
    assert_int_equal(ofp_meter_stats_put(&ob, &ms), 0);
    assert_int_equal(ob.len, n);
    assert_memory_equal(enc, b, n);
    free(c);
    b[5] = 0x2c;
    assert_int_equal(ofp_meter_stats_parse(b, n, &ms, &used, &err), -EBADMSG);
    assert_true(err.type == OFPET_BAD_REQUEST && err.code == OFPBRC_BAD_LEN);
    b[5] = 0x40;
    assert_int_equal(ofp_meter_stats_parse(b, n, &ms, &used, &err), -EBADMSG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_meter_mod_vector),
        cmocka_unit_test(test_meter_mod_errors),
        cmocka_unit_test(test_meter_stats_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
