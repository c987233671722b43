/*
 * test_ofp_err: the OpenFlow 1.3 error table against numbers typed in from
 * the 1.3.5 specification (§7.4.4), name lookups both ways, formatting, and
 * the OFPT_ERROR message: hand-built vectors decoded field by field, the
 * reply to an offending message (its xid, at most 64 bytes of it).
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

#include "ofp_msg.h"
#include "ofp_test_util.h"

struct spec_code {
    const char *name;
    uint16_t type, code;
};

/* Every type's first and last code and a few in between, from the spec. */
static const struct spec_code spec[] = {
    {"OFPHFC_INCOMPATIBLE", 0, 0},      {"OFPHFC_EPERM", 0, 1},
    {"OFPBRC_BAD_VERSION", 1, 0},       {"OFPBRC_BAD_TYPE", 1, 1},
    {"OFPBRC_BAD_MULTIPART", 1, 2},     {"OFPBRC_BAD_LEN", 1, 6},
    {"OFPBRC_IS_SLAVE", 1, 10},         {"OFPBRC_BAD_PORT", 1, 11},
    {"OFPBRC_MULTIPART_BUFFER_OVERFLOW", 1, 13},
    {"OFPBAC_BAD_TYPE", 2, 0},          {"OFPBAC_BAD_OUT_PORT", 2, 4},
    {"OFPBAC_BAD_OUT_GROUP", 2, 9},     {"OFPBAC_BAD_SET_ARGUMENT", 2, 15},
    {"OFPBIC_UNKNOWN_INST", 3, 0},      {"OFPBIC_BAD_TABLE_ID", 3, 2},
    {"OFPBIC_BAD_LEN", 3, 7},           {"OFPBIC_EPERM", 3, 8},
    {"OFPBMC_BAD_TYPE", 4, 0},          {"OFPBMC_BAD_WILDCARDS", 4, 5},
    {"OFPBMC_BAD_MASK", 4, 8},          {"OFPBMC_BAD_PREREQ", 4, 9},
    {"OFPBMC_DUP_FIELD", 4, 10},        {"OFPBMC_EPERM", 4, 11},
    {"OFPFMFC_UNKNOWN", 5, 0},          {"OFPFMFC_BAD_COMMAND", 5, 6},
    {"OFPFMFC_BAD_FLAGS", 5, 7},        {"OFPGMFC_GROUP_EXISTS", 6, 0},
    {"OFPGMFC_BAD_BUCKET", 6, 12},      {"OFPGMFC_EPERM", 6, 14},
    {"OFPPMFC_BAD_PORT", 7, 0},         {"OFPPMFC_EPERM", 7, 4},
    {"OFPTMFC_BAD_TABLE", 8, 0},        {"OFPTMFC_EPERM", 8, 2},
    {"OFPQOFC_BAD_PORT", 9, 0},         {"OFPQOFC_EPERM", 9, 2},
    {"OFPSCFC_BAD_FLAGS", 10, 0},       {"OFPSCFC_EPERM", 10, 2},
    {"OFPRRFC_STALE", 11, 0},           {"OFPRRFC_BAD_ROLE", 11, 2},
    {"OFPMMFC_UNKNOWN", 12, 0},         {"OFPMMFC_INVALID_METER", 12, 2},
    {"OFPMMFC_BAD_BAND", 12, 8},        {"OFPMMFC_OUT_OF_BANDS", 12, 11},
    {"OFPTFFC_BAD_TABLE", 13, 0},       {"OFPTFFC_EPERM", 13, 5},
};

/* Codes per type in the spec. */
static const uint16_t n_codes[14] = {2, 14, 16, 9, 12, 8, 15, 5, 3, 3, 3, 3, 12, 6};

static void test_spec_numbers(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(spec) / sizeof(spec[0]); i++) {
        struct ofp_err e;
        const char *n = ofp_err_code_name(spec[i].type, spec[i].code);
        if (!n || strcmp(n, spec[i].name) != 0)
            fail_msg("(%u,%u) is %s, spec says %s", spec[i].type, spec[i].code, n ? n : "NULL",
                     spec[i].name);
        assert_int_equal(ofp_err_from_name(spec[i].name, &e), 0);
        assert_int_equal(e.type, spec[i].type);
        assert_int_equal(e.code, spec[i].code);
    }
}

static void test_every_code_named_both_ways(void **state)
{
    (void)state;
    for (uint16_t t = 0; t < 14; t++) {
        const char *tn = ofp_err_type_name(t);
        uint16_t back;
        assert_non_null(tn);
        assert_int_equal(strncmp(tn, "OFPET_", 6), 0);
        assert_int_equal(ofp_err_type_from_name(tn, &back), 0);
        assert_int_equal(back, t);
        for (uint16_t c = 0; c < n_codes[t]; c++) {
            struct ofp_err e;
            char full[128];
            const char *cn = ofp_err_code_name(t, c);
            assert_non_null(cn);
            assert_int_equal(ofp_err_from_name(cn, &e), 0);
            assert_true(e.type == t && e.code == c);
            snprintf(full, sizeof(full), "%s/%s", tn, cn);
            assert_int_equal(ofp_err_from_name(full, &e), 0);
            assert_true(e.type == t && e.code == c);
        }
        assert_null(ofp_err_code_name(t, n_codes[t]));
    }
    assert_string_equal(ofp_err_type_name(0xffff), "OFPET_EXPERIMENTER");
    assert_null(ofp_err_type_name(14));
    assert_null(ofp_err_code_name(0xffff, 0));
}

static void test_name_lookup_failures(void **state)
{
    struct ofp_err e = {77, 77};
    (void)state;
    assert_int_equal(ofp_err_from_name("OFPBRC_NOPE", &e), -ENOENT);
    assert_int_equal(ofp_err_from_name("", &e), -ENOENT);
    /* type and code of different families do not combine */
    assert_int_equal(ofp_err_from_name("OFPET_BAD_MATCH/OFPBRC_BAD_LEN", &e), -ENOENT);
    assert_int_equal(ofp_err_from_name("OFPET_BAD_REQUEST/", &e), -ENOENT);
    assert_int_equal(ofp_err_from_name(NULL, &e), -EINVAL);
    assert_int_equal(e.type, 77);            /* untouched on failure */
    assert_int_equal(ofp_err_type_from_name("OFPET_NOPE", NULL), -ENOENT);
}

static void test_format(void **state)
{
    char b[64];
    (void)state;
    assert_int_equal(ofp_err_format(OFP_ERR(OFPET_BAD_MATCH, OFPBMC_BAD_PREREQ), b, sizeof(b)),
                     (int)strlen("OFPET_BAD_MATCH/OFPBMC_BAD_PREREQ"));
    assert_string_equal(b, "OFPET_BAD_MATCH/OFPBMC_BAD_PREREQ");
    ofp_err_format(OFP_ERR(OFPET_BAD_MATCH, 99), b, sizeof(b));
    assert_string_equal(b, "OFPET_BAD_MATCH/code=99");
    ofp_err_format(OFP_ERR(20, 3), b, sizeof(b));
    assert_string_equal(b, "type=20/code=3");
    /* truncation keeps the snprintf contract */
    assert_int_equal(ofp_err_format(OFP_ERR(0, 0), b, 6),
                     (int)strlen("OFPET_HELLO_FAILED/OFPHFC_INCOMPATIBLE"));
    assert_string_equal(b, "OFPET");
}

/* Hand-built from spec §7.4.4: header, type 4 (BAD_MATCH), code 9, 4 bytes data. */
static void test_decode_vector(void **state)
{
    uint8_t s[64];
    struct ofp_msg m;
    struct ofp_err err;
    uint8_t *keep;
    (void)state;
    size_t n = ofp_test_hex("04 01 00 10 12 34 56 78 00 04 00 09 de ad be ef", s, sizeof(s));
    assert_int_equal(ofp_test_decode_copy(s, n, &m, &err, &keep), 0);
    assert_int_equal(m.hdr.xid, 0x12345678);
    assert_int_equal(m.u.error.type, OFPET_BAD_MATCH);
    assert_int_equal(m.u.error.code, OFPBMC_BAD_PREREQ);
    assert_int_equal(m.u.error.data_len, 4);
    assert_memory_equal(m.u.error.data, "\xde\xad\xbe\xef", 4);
    free(keep);

    /* Experimenter error: type 0xffff, exp_type, experimenter id. */
    n = ofp_test_hex("04 01 00 12 00 00 00 01 ff ff 0a 28 4f 4e 46 00 aa bb", s, sizeof(s));
    assert_int_equal(ofp_test_decode_copy(s, n, &m, &err, &keep), 0);
    assert_int_equal(m.u.error.type, OFPET_EXPERIMENTER);
    assert_int_equal(m.u.error.exp_type, 2600);
    assert_int_equal(m.u.error.experimenter, 0x4f4e4600);
    assert_int_equal(m.u.error.data_len, 2);
    free(keep);

    /* An experimenter error too short for its experimenter id. */
    n = ofp_test_hex("04 01 00 0e 00 00 00 01 ff ff 0a 28 4f 4e", s, sizeof(s));
    assert_int_equal(ofp_test_decode_copy(s, n, &m, &err, NULL), -EBADMSG);
    assert_true(err.type == OFPET_BAD_REQUEST && err.code == OFPBRC_BAD_LEN);

    /* Shorter than type + code. */
    n = ofp_test_hex("04 01 00 0b 00 00 00 01 00 01 00", s, sizeof(s));
    assert_int_equal(ofp_test_decode_copy(s, n, &m, &err, NULL), -EBADMSG);
    assert_true(err.type == OFPET_BAD_REQUEST && err.code == OFPBRC_BAD_LEN);
}

static void test_error_reply(void **state)
{
    uint8_t offending[100], out[256];
    struct ofp_buf b;
    struct ofp_msg m;
    struct ofp_err err;
    (void)state;
    for (size_t i = 0; i < sizeof(offending); i++)
        offending[i] = (uint8_t)i;
    offending[0] = 4;
    offending[1] = OFPT_FLOW_MOD;
    offending[4] = 0xca;
    offending[5] = 0xfe;
    offending[6] = 0xba;
    offending[7] = 0xbe;

    ofp_buf_init(&b, out, sizeof(out));
    assert_int_equal(ofp_error_reply(&b, OFP_ERR(OFPET_BAD_MATCH, OFPBMC_DUP_FIELD), offending,
                                     sizeof(offending)),
                     0);
    assert_int_equal(b.len, 12 + 64);
    assert_memory_equal(out, "\x04\x01\x00\x4c\xca\xfe\xba\xbe\x00\x04\x00\x0a", 12);
    assert_memory_equal(out + 12, offending, 64);
    assert_int_equal(ofp_decode(out, b.len, &m, &err), 0);
    assert_int_equal(m.hdr.xid, 0xcafebabe);

    /* Short offending message: all of it; under 8 bytes: xid 0. */
    b.len = 0;
    assert_int_equal(ofp_error_reply(&b, OFP_ERR(OFPET_BAD_REQUEST, OFPBRC_BAD_LEN), offending, 5),
                     0);
    assert_int_equal(b.len, 17);
    assert_memory_equal(out + 4, "\0\0\0\0", 4);
    assert_memory_equal(out + 12, offending, 5);

    /* No room: nothing written. */
    ofp_buf_init(&b, out, 40);
    assert_int_equal(ofp_error_reply(&b, OFP_ERR(1, 6), offending, sizeof(offending)), -ENOSPC);
    assert_int_equal(b.len, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_numbers),
        cmocka_unit_test(test_every_code_named_both_ways),
        cmocka_unit_test(test_name_lookup_failures),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_decode_vector),
        cmocka_unit_test(test_error_reply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
