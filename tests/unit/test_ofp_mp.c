/*
 * test_ofp_mp: MULTIPART framing, per-type bodies and reassembly. Vectors
 * for DESC, PORT_DESC, AGGREGATE, TABLE, FLOW and the request bodies are
 * written from spec §7.3.5; each is decoded field by field. Body sizes that
 * do not fit the type give OFPBRC_BAD_LEN, unknown types
 * OFPBRC_BAD_MULTIPART. Reassembly is driven through REPLY_MORE sequences
 * with matching and foreign xids, in buffered and tracking-only mode.
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

static uint8_t *keep;

static int teardown(void **state)
{
    (void)state;
    free(keep);
    keep = NULL;
    return 0;
}

/* Decode bytes (length field fixed up to n). */
static int dec_bytes(uint8_t *b, size_t n, struct ofp_msg *m, struct ofp_err *err)
{
    free(keep);
    keep = NULL;
    b[2] = (uint8_t)(n >> 8);
    b[3] = (uint8_t)n;
    return ofp_test_decode_copy(b, n, m, err, &keep);
}

static int dec(const char *hex, struct ofp_msg *m, struct ofp_err *err)
{
    static uint8_t b[2048];
    return dec_bytes(b, ofp_test_hex(hex, b, sizeof(b)), m, err);
}

static void expect_brc(const char *hex, uint16_t code)
{
    struct ofp_msg m;
    struct ofp_err err = {0, 0};
    int rc = dec(hex, &m, &err);
    if (rc != -EBADMSG || err.type != OFPET_BAD_REQUEST || err.code != code)
        fail_msg("%s: rc %d (%u,%u), expected OFPBRC %s", hex, rc, err.type, err.code,
                 ofp_err_code_name(OFPET_BAD_REQUEST, code));
}

/* ---- requests -------------------------------------------------------------------- */

static void test_requests(void **state)
{
    struct ofp_msg m;
    struct ofp_err err;
    (void)state;

    assert_int_equal(dec("04 12 00 10 00 00 00 01 00 00 00 00 00 00 00 00", &m, &err), 0);
    assert_int_equal(m.u.mp_request.type, OFPMP_DESC);
    assert_int_equal(m.u.mp_request.flags, 0);
    assert_int_equal(dec("04 12 00 10 00 00 00 01 00 0d 00 00 00 00 00 00", &m, &err), 0);
    assert_int_equal(m.u.mp_request.type, OFPMP_PORT_DESC);
    assert_int_equal(dec("04 12 00 18 00 00 00 01 00 04 00 00 00 00 00 00"
                         "00 00 00 07 00 00 00 00",
                         &m, &err),
                     0);
    assert_int_equal(m.u.mp_request.u.port_no, 7);
    assert_int_equal(dec("04 12 00 18 00 00 00 01 00 05 00 01 00 00 00 00"
                         "ff ff ff ff 00 00 00 02",
                         &m, &err),
                     0);
    assert_int_equal(m.u.mp_request.flags, OFPMPF_REQ_MORE);
    assert_int_equal(m.u.mp_request.u.queue.port_no, OFPP_ANY);
    assert_int_equal(m.u.mp_request.u.queue.queue_id, 2);
    assert_int_equal(dec("04 12 00 18 00 00 00 01 00 06 00 00 00 00 00 00"
                         "ff ff ff fc 00 00 00 00",
                         &m, &err),
                     0);
    assert_int_equal(m.u.mp_request.u.group_id, OFPG_ALL);
    assert_int_equal(dec("04 12 00 18 00 00 00 01 00 09 00 00 00 00 00 00"
                         "00 00 00 03 00 00 00 00",
                         &m, &err),
                     0);
    assert_int_equal(m.u.mp_request.u.meter_id, 3);

    /* bodies that do not fit their type */
    expect_brc("04 12 00 18 00 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
               OFPBRC_BAD_LEN);                                   /* DESC with a body */
    expect_brc("04 12 00 14 00 00 00 01 00 04 00 00 00 00 00 00 00 00 00 07",
               OFPBRC_BAD_LEN);                                   /* PORT_STATS, 4 */
    expect_brc("04 12 00 20 00 00 00 01 00 04 00 00 00 00 00 00 00 00 00 07 00 00 00 00"
               "00 00 00 00 00 00 00 00",
               OFPBRC_BAD_LEN);                                   /* PORT_STATS, 16 */
    expect_brc("04 12 00 10 00 00 00 01 00 05 00 00 00 00 00 00", OFPBRC_BAD_LEN); /* QUEUE */
    expect_brc("04 12 00 18 00 00 00 01 00 01 00 00 00 00 00 00 ff 00 00 00 ff ff ff ff",
               OFPBRC_BAD_LEN);                                   /* FLOW, cut */
    expect_brc("04 12 00 14 00 00 00 01 ff ff 00 00 00 00 00 00 00 00 23 20",
               OFPBRC_BAD_LEN);                                   /* EXPERIMENTER, cut */
    /* unknown multipart types */
    expect_brc("04 12 00 10 00 00 00 01 00 0e 00 00 00 00 00 00", OFPBRC_BAD_MULTIPART);
    expect_brc("04 12 00 10 00 00 00 01 80 00 00 00 00 00 00 00", OFPBRC_BAD_MULTIPART);
    expect_brc("04 13 00 10 00 00 00 01 00 0e 00 00 00 00 00 00", OFPBRC_BAD_MULTIPART);

    struct ofp_mp_request r = {.type = 0x77};
    uint8_t out[64];
    struct ofp_buf b;
    ofp_buf_init(&b, out, sizeof(out));
    assert_int_equal(ofp_mp_request_encode(&b, 1, &r), -EINVAL);
    assert_int_equal(b.len, 0);
}

/* ---- replies ----------------------------------------------------------------------- */

static void put_str(uint8_t *p, const char *s)
{
    memcpy(p, s, strlen(s));
}

static void test_desc_reply(void **state)
{
    static uint8_t b[2048];
    struct ofp_msg m;
    struct ofp_err err;
    (void)state;

    memset(b, 0, sizeof(b));
    ofp_test_hex("04 13 00 00 00 00 00 09 00 00 00 00 00 00 00 00", b, 16);
    put_str(b + 16, "Nicira, Inc.");
    put_str(b + 16 + 256, "Open vSwitch");
    put_str(b + 16 + 512, "3.1.0");
    put_str(b + 16 + 768, "None");
    put_str(b + 16 + 800, "br-int");
    assert_int_equal(dec_bytes(b, 16 + 1056, &m, &err), 0);
    const struct ofp_mp_reply *r = &m.u.mp_reply;
    assert_int_equal(r->type, OFPMP_DESC);
    assert_string_equal(r->u.desc.mfr_desc, "Nicira, Inc.");
    assert_string_equal(r->u.desc.hw_desc, "Open vSwitch");
    assert_string_equal(r->u.desc.sw_desc, "3.1.0");
    assert_string_equal(r->u.desc.serial_num, "None");
    assert_string_equal(r->u.desc.dp_desc, "br-int");
    assert_int_equal(ofp_mp_reply_count(r), 1);

    /* unterminated strings are cut, never overrun */
    memset(b + 16, 'A', 1056);
    assert_int_equal(dec_bytes(b, 16 + 1056, &m, &err), 0);
    assert_int_equal(strlen(m.u.mp_reply.u.desc.mfr_desc), 255);
    assert_int_equal(strlen(m.u.mp_reply.u.desc.serial_num), 31);
    assert_int_equal(strlen(m.u.mp_reply.u.desc.dp_desc), 255);

    assert_int_equal(dec_bytes(b, 16 + 1055, &m, &err), -EBADMSG);
    assert_true(err.type == OFPET_BAD_REQUEST && err.code == OFPBRC_BAD_LEN);
    assert_int_equal(dec_bytes(b, 16 + 1064, &m, &err), -EBADMSG);
}

#define PORT(n, name)                                                                        \
    "00 00 00 0" n " 00 00 00 00 02 00 00 00 00 0" n " 00 00 " name                           \
    " 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"      \
    " 00 00 00 00"
#define NAME_P1 "70 31 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
#define NAME_P2 "70 32 00 00 00 00 00 00 00 00 00 00 00 00 00 00"

static void test_port_desc_reply(void **state)
{
    struct ofp_msg m;
    struct ofp_err err;
    struct ofp_mp_iter it;
    struct ofp_port p;
    struct ofp_table_stats ts;
    (void)state;

    assert_int_equal(dec("04 13 00 00 00 00 00 09 00 0d 00 00 00 00 00 00" PORT("1", NAME_P1)
                             PORT("2", NAME_P2),
                         &m, &err),
                     0);
    const struct ofp_mp_reply *r = &m.u.mp_reply;
    assert_int_equal(r->type, OFPMP_PORT_DESC);
    assert_int_equal(ofp_mp_reply_count(r), 2);
    ofp_mp_iter_init(&it, r);
    assert_true(ofp_mp_next_port(&it, &p));
    assert_int_equal(p.port_no, 1);
    assert_string_equal(p.name, "p1");
    assert_int_equal(p.state, OFPPS_LINK_DOWN);
    assert_true(ofp_mp_next_port(&it, &p));
    assert_int_equal(p.port_no, 2);
    assert_string_equal(p.name, "p2");
    assert_memory_equal(p.hw_addr, "\x02\0\0\0\0\x02", 6);
    assert_false(ofp_mp_next_port(&it, &p));
    /* asking for another type's entries gives nothing */
    ofp_mp_iter_init(&it, r);
    assert_false(ofp_mp_next_table_stats(&it, &ts));

    /* an empty reply is valid; a partial port is not */
    assert_int_equal(dec("04 13 00 10 00 00 00 09 00 0d 00 00 00 00 00 00", &m, &err), 0);
    assert_int_equal(ofp_mp_reply_count(&m.u.mp_reply), 0);
    expect_brc("04 13 00 00 00 00 00 09 00 0d 00 00 00 00 00 00" PORT("1", NAME_P1)
               "00 00 00 02 00 00 00 00",
               OFPBRC_BAD_LEN);
}

static void test_aggregate_table_flow_replies(void **state)
{
    struct ofp_msg m;
    struct ofp_err err;
    struct ofp_mp_iter it;
    struct ofp_table_stats ts;
    struct ofp_flow_stats fs;
    (void)state;

    assert_int_equal(dec("04 13 00 28 00 00 00 09 00 02 00 00 00 00 00 00"
                         "00 00 00 00 00 00 00 64 00 00 00 00 00 00 07 d0 00 00 00 03 00 00 00 00",
                         &m, &err),
                     0);
    assert_int_equal(m.u.mp_reply.u.agg.packet_count, 100);
    assert_int_equal(m.u.mp_reply.u.agg.byte_count, 2000);
    assert_int_equal(m.u.mp_reply.u.agg.flow_count, 3);
    expect_brc("04 13 00 20 00 00 00 09 00 02 00 00 00 00 00 00"
               "00 00 00 00 00 00 00 64 00 00 00 00 00 00 07 d0",
               OFPBRC_BAD_LEN);

    assert_int_equal(dec("04 13 00 40 00 00 00 09 00 03 00 01 00 00 00 00"
                         "00 00 00 00 00 00 00 05 00 00 00 00 00 00 00 64 00 00 00 00 00 00 00 5a"
                         "01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
                         &m, &err),
                     0);
    assert_int_equal(m.u.mp_reply.flags, OFPMPF_REPLY_MORE);
    ofp_mp_iter_init(&it, &m.u.mp_reply);
    assert_true(ofp_mp_next_table_stats(&it, &ts));
    assert_int_equal(ts.table_id, 0);
    assert_int_equal(ts.active_count, 5);
    assert_int_equal(ts.lookup_count, 100);
    assert_int_equal(ts.matched_count, 90);
    assert_true(ofp_mp_next_table_stats(&it, &ts));
    assert_int_equal(ts.table_id, 1);
    assert_false(ofp_mp_next_table_stats(&it, &ts));
    expect_brc("04 13 00 00 00 00 00 09 00 03 00 00 00 00 00 00"
               "00 00 00 00 00 00 00 05 00 00 00 00 00 00 00 64 00 00 00 00",
               OFPBRC_BAD_LEN);

    /* two flow entries (56-byte minimum each: empty match, no instructions) */
    assert_int_equal(dec("04 13 00 00 00 00 00 09 00 01 00 00 00 00 00 00"
                         "00 38 00 00 00 00 00 01 00 00 00 00 00 0a 00 00 00 00 00 00 00 00 00 00"
                         "00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 03"
                         "00 01 00 04 00 00 00 00"
                         "00 38 05 00 00 00 00 01 00 00 00 00 00 0b 00 00 00 00 00 00 00 00 00 00"
                         "00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 03"
                         "00 01 00 04 00 00 00 00",
                         &m, &err),
                     0);
    assert_int_equal(ofp_mp_reply_count(&m.u.mp_reply), 2);
    ofp_mp_iter_init(&it, &m.u.mp_reply);
    assert_true(ofp_mp_next_flow_stats(&it, &fs));
    assert_int_equal(fs.priority, 10);
    assert_int_equal(fs.cookie, 1);
    assert_true(ofp_mp_next_flow_stats(&it, &fs));
    assert_int_equal(fs.table_id, 5);
    assert_int_equal(fs.priority, 11);
    assert_false(ofp_mp_next_flow_stats(&it, &fs));
    /* second entry's length runs past the body */
    expect_brc("04 13 00 00 00 00 00 09 00 01 00 00 00 00 00 00"
               "00 38 00 00 00 00 00 01 00 00 00 00 00 0a 00 00 00 00 00 00 00 00 00 00"
               "00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 03"
               "00 01 00 04 00 00 00 00"
               "00 40 05 00 00 00 00 01 00 00 00 00 00 0b 00 00 00 00 00 00 00 00 00 00"
               "00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 03"
               "00 01 00 04 00 00 00 00",
               OFPBRC_BAD_LEN);
}

/* ---- reassembly ---------------------------------------------------------------------- */

/* A PORT_DESC reply part holding ports first..first+n-1, as received bytes. */
static size_t port_part(uint8_t *out, size_t cap, uint32_t xid, uint32_t first, uint32_t n,
                        bool more)
{
    struct ofp_port ports[8];
    struct ofp_msg m;
    memset(&m, 0, sizeof(m));
    memset(ports, 0, sizeof(ports));
    for (uint32_t i = 0; i < n; i++) {
        ports[i].port_no = first + i;
        snprintf(ports[i].name, sizeof(ports[i].name), "p%u", first + i);
    }
    m.hdr.type = OFPT_MULTIPART_REPLY;
    m.hdr.xid = xid;
    m.u.mp_reply.type = OFPMP_PORT_DESC;
    m.u.mp_reply.flags = more ? OFPMPF_REPLY_MORE : 0;
    m.u.mp_reply.arr = ports;
    m.u.mp_reply.n = n;
    return ofp_test_encode(&m, out, cap);
}

static int feed(struct ofp_mp_asm *a, uint32_t xid, uint32_t first, uint32_t n, bool more)
{
    uint8_t b[1024];
    struct ofp_msg m;
    struct ofp_err err;
    uint8_t *c;
    size_t len = port_part(b, sizeof(b), xid, first, n, more);
    assert_int_equal(ofp_test_decode_copy(b, len, &m, &err, &c), 0);
    int rc = ofp_mp_asm_add(a, m.hdr.xid, &m.u.mp_reply);
    free(c);                   /* the assembler must have copied what it keeps */
    return rc;
}

static void test_reassembly_buffered(void **state)
{
    uint8_t store[64 * 8];
    struct ofp_mp_asm a;
    struct ofp_mp_reply r;
    struct ofp_mp_iter it;
    struct ofp_port p;
    (void)state;

    ofp_mp_asm_init(&a, store, sizeof(store));
    assert_int_equal(feed(&a, 5, 1, 1, false), -ENOENT);     /* nothing awaited yet */
    ofp_mp_asm_begin(&a, 5, OFPMP_PORT_DESC);
    assert_int_equal(ofp_mp_asm_result(&a, &r), -EINVAL);     /* not complete */
    assert_int_equal(feed(&a, 5, 1, 2, true), 0);
    assert_int_equal(feed(&a, 6, 9, 1, true), -ENOENT);       /* another xid */
    assert_int_equal(feed(&a, 5, 3, 2, true), 0);
    assert_int_equal(feed(&a, 5, 5, 1, false), 1);
    assert_int_equal(a.parts, 3);
    assert_int_equal(ofp_mp_asm_result(&a, &r), 0);
    assert_int_equal(r.type, OFPMP_PORT_DESC);
    assert_int_equal(ofp_mp_reply_count(&r), 5);
    ofp_mp_iter_init(&it, &r);
    for (uint32_t i = 1; i <= 5; i++) {
        char name[16];
        assert_true(ofp_mp_next_port(&it, &p));
        assert_int_equal(p.port_no, i);
        snprintf(name, sizeof(name), "p%u", i);
        assert_string_equal(p.name, name);
    }
    assert_false(ofp_mp_next_port(&it, &p));
    assert_int_equal(feed(&a, 5, 6, 1, false), -ENOENT);     /* already complete */

    /* a reply of another type with the awaited xid is not ours */
    ofp_mp_asm_begin(&a, 7, OFPMP_DESC);
    assert_int_equal(feed(&a, 7, 1, 1, false), -ENOENT);
}

static void test_reassembly_overflow_and_tracking(void **state)
{
    uint8_t store[64 * 3];
    struct ofp_mp_asm a;
    struct ofp_mp_reply r;
    (void)state;

    ofp_mp_asm_init(&a, store, sizeof(store));
    ofp_mp_asm_begin(&a, 9, OFPMP_PORT_DESC);
    assert_int_equal(feed(&a, 9, 1, 2, true), 0);
    assert_int_equal(feed(&a, 9, 3, 2, true), 0);             /* does not fit: swallowed */
    assert_int_equal(feed(&a, 9, 5, 1, false), -ENOSPC);      /* reported at the end */
    assert_false(a.active);
    assert_int_equal(ofp_mp_asm_result(&a, &r), -EINVAL);
    /* the next request starts clean */
    ofp_mp_asm_begin(&a, 10, OFPMP_PORT_DESC);
    assert_int_equal(feed(&a, 10, 1, 3, false), 1);
    assert_int_equal(ofp_mp_asm_result(&a, &r), 0);
    assert_int_equal(ofp_mp_reply_count(&r), 3);

    /* no buffer: completion tracking only */
    ofp_mp_asm_init(&a, NULL, 0);
    ofp_mp_asm_begin(&a, 11, OFPMP_PORT_DESC);
    assert_int_equal(feed(&a, 11, 1, 8, true), 0);
    assert_int_equal(feed(&a, 11, 9, 8, false), 1);
    assert_int_equal(a.parts, 2);
    assert_int_equal(ofp_mp_asm_result(&a, &r), -EINVAL);
}

static void test_reassembly_desc(void **state)
{
    static uint8_t b[2048], store[2048];
    struct ofp_msg m;
    struct ofp_err err;
    struct ofp_mp_asm a;
    struct ofp_mp_reply r;
    (void)state;
    memset(b, 0, sizeof(b));
    ofp_test_hex("04 13 00 00 00 00 00 21 00 00 00 00 00 00 00 00", b, 16);
    put_str(b + 16 + 800, "dp");
    assert_int_equal(dec_bytes(b, 16 + 1056, &m, &err), 0);
    ofp_mp_asm_init(&a, store, sizeof(store));
    ofp_mp_asm_begin(&a, 0x21, OFPMP_DESC);
    assert_int_equal(ofp_mp_asm_add(&a, m.hdr.xid, &m.u.mp_reply), 1);
    assert_int_equal(ofp_mp_asm_result(&a, &r), 0);
    assert_string_equal(r.u.desc.dp_desc, "dp");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_requests, teardown),
        cmocka_unit_test_teardown(test_desc_reply, teardown),
        cmocka_unit_test_teardown(test_port_desc_reply, teardown),
        cmocka_unit_test_teardown(test_aggregate_table_flow_replies, teardown),
        cmocka_unit_test(test_reassembly_buffered),
        cmocka_unit_test(test_reassembly_overflow_and_tracking),
        cmocka_unit_test_teardown(test_reassembly_desc, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
