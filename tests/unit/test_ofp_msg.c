/*
 * test_ofp_msg: the message table and the channel-facing entry points —
 * rows and priority classes (docs/design.md §2), framing a byte stream,
 * version/type/length checks, a round trip of every sample message (one or
 * more per message type and multipart type), every truncation of every
 * sample (exact-size heap copies, so ASan catches any read past the end),
 * oversized fixed messages, and encoders that never leave half a message
 * in the buffer.
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

#define BUF 8192

static void expect_err(struct ofp_err got, uint16_t type, uint16_t code)
{
    char g[96], w[96];
    ofp_err_format(got, g, sizeof(g));
    ofp_err_format(OFP_ERR(type, code), w, sizeof(w));
    if (got.type != type || got.code != code)
        fail_msg("error %s, expected %s", g, w);
}

/* ---- the table --------------------------------------------------------------- */

static void test_table_rows(void **state)
{
    (void)state;
    for (unsigned t = 0; t < OFPT_COUNT; t++) {
        const struct ofp_msg_type *row = ofp_msg_type_get((uint8_t)t);
        assert_non_null(row);
        assert_int_equal(row->type, t);
        assert_non_null(row->decode);
        assert_non_null(row->encode);
        uint16_t min, max;
        assert_int_equal(ofp_len_bounds((uint8_t)t, &min, &max), 0);
        assert_true(min >= OFP13_HEADER_LEN);
        assert_true(min <= max);
        assert_int_equal(strncmp(row->name, "OFPT_", 5), 0);
        assert_int_equal(ofp_msg_type_from_name(row->name), (int)t);
    }
    for (unsigned t = OFPT_COUNT; t < 256; t++) {
        uint16_t min, max;
        assert_null(ofp_msg_type_get((uint8_t)t));
        assert_int_equal(ofp_len_bounds((uint8_t)t, &min, &max), -ENOENT);
    }
    assert_string_equal(ofp_msg_type_name(OFPT_METER_MOD), "OFPT_METER_MOD");
    assert_int_equal(ofp_msg_type_from_name("OFPT_NOPE"), -ENOENT);
}

/* Spec numbers and sizes, typed in from OpenFlow 1.3.5 §7 (not from ofp/). */
static void test_table_lengths(void **state)
{
    static const struct {
        uint8_t type;
        uint16_t min, max;
    } want[] = {
        {0, 8, 65535},   {1, 12, 65535},  {2, 8, 65535},   {3, 8, 65535},   {4, 16, 65535},
        {5, 8, 8},       {6, 32, 32},     {7, 8, 8},       {8, 12, 12},     {9, 12, 12},
        {10, 34, 65535}, {11, 56, 65535}, {12, 80, 80},    {13, 24, 65535}, {14, 56, 65535},
        {15, 16, 65535}, {16, 40, 40},    {17, 16, 16},    {18, 16, 65535}, {19, 16, 65535},
        {20, 8, 8},      {21, 8, 8},      {22, 16, 16},    {23, 16, 65535}, {24, 24, 24},
        {25, 24, 24},    {26, 8, 8},      {27, 32, 32},    {28, 32, 32},    {29, 16, 65535},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        uint16_t min, max;
        assert_int_equal(ofp_len_bounds(want[i].type, &min, &max), 0);
        assert_int_equal(min, want[i].min);
        assert_int_equal(max, want[i].max);
    }
}

static void test_priority_classes(void **state)
{
    static const uint8_t p0[] = {OFPT_HELLO, OFPT_FEATURES_REQUEST, OFPT_FEATURES_REPLY,
                                 OFPT_GET_CONFIG_REQUEST, OFPT_GET_CONFIG_REPLY,
                                 OFPT_SET_CONFIG, OFPT_ECHO_REQUEST, OFPT_ECHO_REPLY};
    static const uint8_t p1[] = {OFPT_MULTIPART_REQUEST, OFPT_MULTIPART_REPLY, OFPT_ERROR,
                                 OFPT_ROLE_REQUEST, OFPT_ROLE_REPLY, OFPT_GET_ASYNC_REQUEST,
                                 OFPT_GET_ASYNC_REPLY, OFPT_SET_ASYNC,
                                 OFPT_QUEUE_GET_CONFIG_REQUEST, OFPT_QUEUE_GET_CONFIG_REPLY,
                                 OFPT_EXPERIMENTER};
    static const uint8_t p2[] = {OFPT_PACKET_IN, OFPT_PORT_STATUS, OFPT_FLOW_REMOVED,
                                 OFPT_PACKET_OUT};
    static const uint8_t p3[] = {OFPT_FLOW_MOD, OFPT_GROUP_MOD, OFPT_METER_MOD,
                                 OFPT_PORT_MOD, OFPT_TABLE_MOD, OFPT_BARRIER_REQUEST,
                                 OFPT_BARRIER_REPLY};
    const struct {
        const uint8_t *types;
        size_t n;
        enum ofp_prio prio;
    } cls[] = {{p0, sizeof(p0), OFP_PRIO_P0}, {p1, sizeof(p1), OFP_PRIO_P1},
               {p2, sizeof(p2), OFP_PRIO_P2}, {p3, sizeof(p3), OFP_PRIO_P3}};
    unsigned seen = 0;
    (void)state;
    for (size_t c = 0; c < 4; c++) {
        for (size_t i = 0; i < cls[c].n; i++) {
            const struct ofp_msg_type *row = ofp_msg_type_get(cls[c].types[i]);
            if (row->prio != cls[c].prio)
                fail_msg("%s in P%d, expected P%d", row->name, row->prio, cls[c].prio);
            seen++;
        }
    }
    assert_int_equal(seen, OFPT_COUNT);    /* every type listed exactly once above */
}

/* ---- framing ------------------------------------------------------------------ */

static void test_frame(void **state)
{
    uint8_t s[64];
    struct ofp_err err;
    (void)state;
    size_t n = ofp_test_hex("04 02 00 0c 00 00 00 01 61 62 63 64"      /* echo, 12 */
                            "04 14 00 08 00 00 00 02",                 /* barrier, 8 */
                            s, sizeof(s));
    for (size_t i = 0; i < 12; i++)
        assert_int_equal(ofp_frame(s, i, &err), 0);   /* need more */
    assert_int_equal(ofp_frame(s, 12, &err), 12);
    assert_int_equal(ofp_frame(s, n, &err), 12);
    assert_int_equal(ofp_frame(s + 12, n - 12, &err), 8);

    /* A length field below 8: the stream cannot be resynchronised. */
    s[2] = 0;
    s[3] = 7;
    assert_int_equal(ofp_frame(s, n, &err), -EBADMSG);
    expect_err(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    s[3] = 0;
    assert_int_equal(ofp_frame(s, n, &err), -EBADMSG);

    /* Length field larger than what arrived: wait, do not read on. */
    uint8_t big[8] = {4, 0, 0xff, 0xff, 0, 0, 0, 0};
    uint8_t *c = ofp_test_dup(big, sizeof(big));
    assert_int_equal(ofp_frame(c, sizeof(big), &err), 0);
    free(c);
}

/* ---- header checks ---------------------------------------------------------------- */

static void test_header_checks(void **state)
{
    uint8_t s[64];
    struct ofp_err err;
    struct ofp_msg m;
    (void)state;

    /* OpenFlow 1.0 FEATURES_REQUEST after negotiating 1.3: BAD_VERSION. */
    size_t n = ofp_test_hex("01 05 00 08 00 00 00 09", s, sizeof(s));
    assert_int_equal(ofp_validate(s, n, &err), -EBADMSG);
    expect_err(err, OFPET_BAD_REQUEST, OFPBRC_BAD_VERSION);

    /* HELLO and ERROR are accepted in any version. */
    n = ofp_test_hex("01 00 00 08 00 00 00 01", s, sizeof(s));
    assert_int_equal(ofp_decode(s, n, &m, &err), 0);
    assert_int_equal(m.hdr.version, 1);
    assert_int_equal(m.u.hello.version, 1);
    n = ofp_test_hex("01 01 00 0c 00 00 00 01 00 00 00 00", s, sizeof(s));
    assert_int_equal(ofp_decode(s, n, &m, &err), 0);
    assert_int_equal(m.u.error.type, OFPET_HELLO_FAILED);
    assert_int_equal(m.u.error.code, OFPHFC_INCOMPATIBLE);

    /* Types above METER_MOD do not exist in 1.3. */
    for (unsigned t = OFPT_COUNT; t < 256; t += 37) {
        n = ofp_test_hex("04 00 00 08 00 00 00 03", s, sizeof(s));
        s[1] = (uint8_t)t;
        assert_int_equal(ofp_validate(s, n, &err), -EBADMSG);
        expect_err(err, OFPET_BAD_REQUEST, OFPBRC_BAD_TYPE);
    }

    /* Header length must be exactly the message handed in. */
    n = ofp_test_hex("04 14 00 10 00 00 00 02 00 00 00 00 00 00 00 00", s, sizeof(s));
    assert_int_equal(ofp_validate(s, 8, &err), -EBADMSG);
    expect_err(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    /* ... and within the row's bounds: a 16-byte BARRIER_REQUEST is too long. */
    assert_int_equal(ofp_validate(s, n, &err), -EBADMSG);
    expect_err(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    s[3] = 8;
    assert_int_equal(ofp_validate(s, 8, &err), 0);

    /* Fewer than 8 bytes or no buffer at all. */
    assert_int_equal(ofp_validate(s, 7, &err), -EBADMSG);
    expect_err(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    assert_int_equal(ofp_validate(NULL, 8, &err), -EBADMSG);
}

/* ---- every sample: round trip, truncation, capacity ----------------------------- */

static void test_round_trip_all(void **state)
{
    static uint8_t b1[BUF], b2[BUF];
    bool covered[OFPT_COUNT] = {false};
    struct ofp_msg in, out;
    struct ofp_err err;
    unsigned i;
    (void)state;

    for (i = 0; ofp_test_sample(i, &in) == 0; i++) {
        size_t n = ofp_test_encode(&in, b1, sizeof(b1));
        uint8_t *copy = NULL;
        struct ofp_hdr h;
        assert_int_equal(ofp_hdr_peek(b1, n, &h), 0);
        assert_int_equal(h.length, n);
        assert_int_equal(h.type, in.hdr.type);
        assert_int_equal(h.xid, in.hdr.xid);
        assert_int_equal(ofp_frame(b1, n, &err), (int)n);
        int rc = ofp_test_decode_copy(b1, n, &out, &err, &copy);
        if (rc != 0) {
            char e[96];
            ofp_err_format(err, e, sizeof(e));
            fail_msg("sample %u (%s) does not decode: %s", i, ofp_msg_type_name(in.hdr.type), e);
        }
        if (!ofp_test_msg_equal(&in, &out))
            fail_msg("sample %u (%s) decodes to something else", i,
                     ofp_msg_type_name(in.hdr.type));
        /* Re-encoding the decoded (view) form gives the same bytes. */
        size_t n2 = ofp_test_encode(&out, b2, sizeof(b2));
        assert_int_equal(n2, n);
        assert_memory_equal(b1, b2, n);
        free(copy);
        covered[in.hdr.type] = true;
    }
    assert_true(i > 40);
    for (unsigned t = 0; t < OFPT_COUNT; t++)
        if (!covered[t])
            fail_msg("no sample for %s", ofp_msg_type_name((uint8_t)t));
}

/* Cut each sample at every byte. With the length field rewritten to the cut
 * length: below the row's minimum it is exactly BAD_LEN; above it, either an
 * error or (the cut fell on a boundary of a trailing list or payload) a
 * valid shorter message that re-encodes to exactly those bytes. With the
 * original length field left in, it is always BAD_LEN. */
static void test_truncated_everywhere(void **state)
{
    static uint8_t full[BUF], again[BUF];
    struct ofp_msg in, out;
    struct ofp_err err;
    unsigned valid_cuts = 0, error_cuts = 0;
    (void)state;

    for (unsigned i = 0; ofp_test_sample(i, &in) == 0; i++) {
        size_t n = ofp_test_encode(&in, full, sizeof(full));
        uint16_t min, max;
        assert_int_equal(ofp_len_bounds(in.hdr.type, &min, &max), 0);
        for (size_t cut = 0; cut < n; cut++) {
            uint8_t *c = ofp_test_dup(full, cut);
            assert_int_equal(ofp_validate(c, cut, &err), -EBADMSG);
            expect_err(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
            if (cut >= 4) {
                c[2] = (uint8_t)(cut >> 8);
                c[3] = (uint8_t)cut;
            }
            int rc = ofp_decode(c, cut, &out, &err);
            if (cut < min) {
                assert_int_equal(rc, -EBADMSG);
                expect_err(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
            } else if (rc == 0) {
                size_t m = ofp_test_encode(&out, again, sizeof(again));
                assert_int_equal(m, cut);
                assert_memory_equal(again, c, cut);
                valid_cuts++;
            } else {
                assert_int_equal(rc, -EBADMSG);
                assert_non_null(ofp_err_code_name(err.type, err.code));
                error_cuts++;
            }
            free(c);
        }
    }
    assert_true(error_cuts > 1000);
    assert_true(valid_cuts > 0);
}

static void test_oversized_fixed(void **state)
{
    static uint8_t b[BUF];
    struct ofp_msg in;
    struct ofp_err err;
    (void)state;
    for (unsigned i = 0; ofp_test_sample(i, &in) == 0; i++) {
        uint16_t min, max;
        assert_int_equal(ofp_len_bounds(in.hdr.type, &min, &max), 0);
        if (max == OFP13_MAX_MSG_LEN)
            continue;
        size_t n = ofp_test_encode(&in, b, sizeof(b));
        memset(b + n, 0, 8);
        b[2] = (uint8_t)((n + 8) >> 8);
        b[3] = (uint8_t)(n + 8);
        assert_int_equal(ofp_validate(b, n + 8, &err), -EBADMSG);
        expect_err(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    }
}

static void test_encode_no_room(void **state)
{
    static uint8_t b[BUF];
    struct ofp_msg in;
    (void)state;
    for (unsigned i = 0; ofp_test_sample(i, &in) == 0; i++) {
        size_t n = ofp_test_encode(&in, b, sizeof(b));
        for (size_t cap = 0; cap < n; cap++) {
            struct ofp_buf ob;
            uint8_t *mem = malloc(cap + 3);
            ofp_buf_init(&ob, mem, cap + 3);
            memcpy(mem, "abc", 3);
            ob.len = 3;                      /* something queued before */
            assert_int_equal(ofp_encode(&ob, &in), -ENOSPC);
            assert_int_equal(ob.len, 3);
            assert_memory_equal(mem, "abc", 3);
            free(mem);
        }
    }
}

static void test_encode_too_big(void **state)
{
    static uint8_t data[70000], out[80000];
    struct ofp_msg m;
    struct ofp_buf b;
    (void)state;
    memset(&m, 0, sizeof(m));
    m.hdr.type = OFPT_ECHO_REQUEST;
    m.u.echo.data = data;
    m.u.echo.len = 65535 - 8;
    ofp_buf_init(&b, out, sizeof(out));
    assert_int_equal(ofp_encode(&b, &m), 0);
    assert_int_equal(b.len, 65535);
    m.u.echo.len = 65535 - 7;
    b.len = 0;
    assert_int_equal(ofp_encode(&b, &m), -EMSGSIZE);
    assert_int_equal(b.len, 0);

    m.hdr.type = 30;
    assert_int_equal(ofp_encode(&b, &m), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_rows),
        cmocka_unit_test(test_table_lengths),
        cmocka_unit_test(test_priority_classes),
        cmocka_unit_test(test_frame),
        cmocka_unit_test(test_header_checks),
        cmocka_unit_test(test_round_trip_all),
        cmocka_unit_test(test_truncated_everywhere),
        cmocka_unit_test(test_oversized_fixed),
        cmocka_unit_test(test_encode_no_room),
        cmocka_unit_test(test_encode_too_big),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
