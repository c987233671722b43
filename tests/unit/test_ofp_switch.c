/*
 * test_ofp_switch: the channel and switch messages — HELLO (hand-built
 * vectors with and without the version bitmap, unknown elements, bad
 * element lengths) and version negotiation per spec 6.3.1, ECHO, EXPERIMENTER,
 * FEATURES, GET/SET_CONFIG, ROLE, GET/SET_ASYNC, TABLE_MOD, PACKET_IN,
 * PACKET_OUT, QUEUE_GET_CONFIG and BARRIER. Vectors are written from the
 * spec's layouts; each is decoded field by field, then the malformed
 * variants must give the spec's error.
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

struct fx {
    uint8_t bytes[512];
    size_t n;
    uint8_t *copy;            /* exact-size copy the decoded views point into */
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

/* Decode a hex vector; returns ofp_decode's rc. */
static int dec(struct fx *f, const char *hex)
{
    free(f->copy);
    f->copy = NULL;
    f->n = ofp_test_hex(hex, f->bytes, sizeof(f->bytes));
    memset(&f->err, 0xff, sizeof(f->err));
    return ofp_test_decode_copy(f->bytes, f->n, &f->m, &f->err, &f->copy);
}

static void expect_fail(struct fx *f, const char *hex, uint16_t type, uint16_t code)
{
    int rc = dec(f, hex);
    char g[96];
    ofp_err_format(f->err, g, sizeof(g));
    if (rc != -EBADMSG || f->err.type != type || f->err.code != code)
        fail_msg("%s: rc %d err %s, expected %s/%s", hex, rc, g, ofp_err_type_name(type),
                 ofp_err_code_name(type, code));
}

/* ---- HELLO --------------------------------------------------------------------- */

static void test_hello_vectors(void **state)
{
    struct fx *f = *state;

    /* Bitmap element: versions 1 and 4 (0x12). */
    assert_int_equal(dec(f, "04 00 00 10 00 00 00 01  00 01 00 08 00 00 00 12"), 0);
    assert_int_equal(f->m.hdr.type, OFPT_HELLO);
    assert_int_equal(f->m.u.hello.version, 4);
    assert_true(f->m.u.hello.has_bitmap);
    assert_int_equal(f->m.u.hello.bitmap[0], 0x12);

    /* No element at all (OpenFlow 1.0 style, any version). */
    assert_int_equal(dec(f, "01 00 00 08 00 00 00 02"), 0);
    assert_int_equal(f->m.u.hello.version, 1);
    assert_false(f->m.u.hello.has_bitmap);

    /* An unknown element (type 99, 6 bytes + 2 padding) is skipped. */
    assert_int_equal(dec(f, "05 00 00 18 00 00 00 03  00 63 00 06 aa bb 00 00"
                            "00 01 00 08 00 00 00 30"),
                     0);
    assert_true(f->m.u.hello.has_bitmap);
    assert_int_equal(f->m.u.hello.bitmap[0], 0x30);

    /* Two-word bitmap: version 33 in word 1. */
    assert_int_equal(dec(f, "06 00 00 18 00 00 00 03  00 01 00 0c 00 00 00 10 00 00 00 02"
                            "00 00 00 00"),
                     0);
    assert_int_equal(f->m.u.hello.bitmap[0], 0x10);
    assert_int_equal(f->m.u.hello.bitmap[1], 0x2);

    /* Encoding ours gives exactly the bytes of the spec's example. */
    struct ofp_hello h;
    uint8_t out[32];
    struct ofp_buf b;
    ofp_buf_init(&b, out, sizeof(out));
    ofp_hello_init(&h, 1u << 4, true);
    assert_int_equal(ofp_hello_encode(&b, 7, &h), 0);
    uint8_t want[16];
    ofp_test_hex("04 00 00 10 00 00 00 07 00 01 00 08 00 00 00 10", want, sizeof(want));
    assert_int_equal(b.len, 16);
    assert_memory_equal(out, want, 16);
}

static void test_hello_bad_lengths(void **state)
{
    struct fx *f = *state;
    /* bitmap element of 7 bytes: not 4 + 4n */
    expect_fail(f, "04 00 00 10 00 00 00 01  00 01 00 07 00 00 00 10", OFPET_BAD_REQUEST,
                OFPBRC_BAD_LEN);
    /* element length below its own header */
    expect_fail(f, "04 00 00 10 00 00 00 01  00 01 00 03 00 00 00 10", OFPET_BAD_REQUEST,
                OFPBRC_BAD_LEN);
    /* element longer than the message */
    expect_fail(f, "04 00 00 10 00 00 00 01  00 01 00 0c 00 00 00 10", OFPET_BAD_REQUEST,
                OFPBRC_BAD_LEN);
    /* padding of the element missing */
    expect_fail(f, "04 00 00 14 00 00 00 01  00 01 00 0c 00 00 00 10 00 00 00 00",
                OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    /* 2 stray bytes: not even an element header */
    expect_fail(f, "04 00 00 0a 00 00 00 01  00 01", OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
}

static void hello(struct ofp_hello *h, uint8_t version, bool bm, uint32_t w0, uint32_t w1)
{
    memset(h, 0, sizeof(*h));
    h->version = version;
    h->has_bitmap = bm;
    h->bitmap[0] = w0;
    h->bitmap[1] = w1;
}

static void test_negotiation(void **state)
{
    struct ofp_hello ours, peer;
    struct ofp_err err;
    uint8_t v = 0;
    (void)state;

    ofp_hello_init(&ours, 1u << 4, true);
    assert_int_equal(ours.version, 4);

    /* both bitmaps: highest common */
    hello(&peer, 5, true, 1u << 1 | 1u << 4 | 1u << 5, 0);
    assert_int_equal(ofp_hello_negotiate(&ours, &peer, &v, &err), 0);
    assert_int_equal(v, 4);

    /* both bitmaps, nothing in common: incompatible, even if the header
     * version (5) is above ours */
    hello(&peer, 5, true, 1u << 1 | 1u << 5, 0);
    assert_int_equal(ofp_hello_negotiate(&ours, &peer, &v, &err), -EBADMSG);
    assert_true(err.type == OFPET_HELLO_FAILED && err.code == OFPHFC_INCOMPATIBLE);

    /* peer bitmap only names versions >= 32 */
    hello(&peer, 40, true, 0, 1u << 8);
    assert_int_equal(ofp_hello_negotiate(&ours, &peer, &v, &err), -EBADMSG);

    /* no bitmap from the peer: the smaller header version, if we speak it */
    hello(&peer, 6, false, 0, 0);
    assert_int_equal(ofp_hello_negotiate(&ours, &peer, &v, &err), 0);
    assert_int_equal(v, 4);
    hello(&peer, 4, false, 0, 0);
    assert_int_equal(ofp_hello_negotiate(&ours, &peer, &v, &err), 0);
    assert_int_equal(v, 4);
    hello(&peer, 1, false, 0, 0);
    err = OFP_ERR(9, 9);
    assert_int_equal(ofp_hello_negotiate(&ours, &peer, &v, &err), -EBADMSG);
    assert_true(err.type == OFPET_HELLO_FAILED && err.code == OFPHFC_INCOMPATIBLE);

    /* we speak 1.0 and 1.3; a 1.2 peer without bitmap picks 1.2: not ours */
    ofp_hello_init(&ours, 1u << 1 | 1u << 4, true);
    hello(&peer, 3, false, 0, 0);
    assert_int_equal(ofp_hello_negotiate(&ours, &peer, &v, &err), -EBADMSG);
    hello(&peer, 3, true, 1u << 1 | 1u << 3, 0);
    assert_int_equal(ofp_hello_negotiate(&ours, &peer, &v, &err), 0);
    assert_int_equal(v, 1);

    /* our hello without bitmap: header versions only */
    ofp_hello_init(&ours, 1u << 4, false);
    hello(&peer, 5, true, 1u << 4 | 1u << 5, 0);
    assert_int_equal(ofp_hello_negotiate(&ours, &peer, &v, &err), 0);
    assert_int_equal(v, 4);
}

/* ---- echo, experimenter, barrier ----------------------------------------------- */

static void test_echo(void **state)
{
    struct fx *f = *state;
    uint8_t out[64];
    struct ofp_buf b;

    assert_int_equal(dec(f, "04 02 00 0c 00 00 00 2a 70 69 6e 67"), 0);
    assert_int_equal(f->m.hdr.type, OFPT_ECHO_REQUEST);
    assert_int_equal(f->m.u.echo.len, 4);
    assert_memory_equal(f->m.u.echo.data, "ping", 4);
    /* The reply carries the same xid and payload. */
    ofp_buf_init(&b, out, sizeof(out));
    assert_int_equal(ofp_echo_encode(&b, OFPT_ECHO_REPLY, f->m.hdr.xid, &f->m.u.echo), 0);
    assert_int_equal(b.len, 12);
    assert_memory_equal(out, "\x04\x03\x00\x0c\x00\x00\x00\x2a" "ping", 12);
    /* only the two echo types */
    assert_int_equal(ofp_echo_encode(&b, OFPT_HELLO, 1, &f->m.u.echo), -EINVAL);

    assert_int_equal(dec(f, "04 03 00 08 00 00 00 2a"), 0);
    assert_int_equal(f->m.u.echo.len, 0);
}

static void test_experimenter_barrier(void **state)
{
    struct fx *f = *state;
    assert_int_equal(dec(f, "04 04 00 14 00 00 00 01 00 00 23 20 00 00 00 05 01 02 03 04"), 0);
    assert_int_equal(f->m.u.experimenter.experimenter, 0x2320);
    assert_int_equal(f->m.u.experimenter.exp_type, 5);
    assert_int_equal(f->m.u.experimenter.len, 4);
    expect_fail(f, "04 04 00 0f 00 00 00 01 00 00 23 20 00 00 00", OFPET_BAD_REQUEST,
                OFPBRC_BAD_LEN);

    assert_int_equal(dec(f, "04 14 00 08 00 00 00 63"), 0);
    assert_int_equal(f->m.hdr.type, OFPT_BARRIER_REQUEST);
    assert_int_equal(f->m.hdr.xid, 0x63);
    assert_int_equal(dec(f, "04 15 00 08 00 00 00 63"), 0);
    assert_int_equal(f->m.hdr.type, OFPT_BARRIER_REPLY);

    uint8_t out[16];
    struct ofp_buf b;
    ofp_buf_init(&b, out, sizeof(out));
    assert_int_equal(ofp_empty_encode(&b, OFPT_FLOW_MOD, 1), -EINVAL);
    assert_int_equal(ofp_empty_encode(&b, OFPT_FEATURES_REQUEST, 0x01020304), 0);
    assert_memory_equal(out, "\x04\x05\x00\x08\x01\x02\x03\x04", 8);
}

/* ---- features, config, role, async, table_mod ------------------------------------ */

static void test_features(void **state)
{
    struct fx *f = *state;
    assert_int_equal(dec(f, "04 06 00 20 00 00 00 05  00 00 00 00 00 00 0a bc"
                            "00 00 01 00 fe 01 00 00  00 00 00 47 00 00 00 00"),
                     0);
    assert_int_equal(f->m.u.features.datapath_id, 0xabc);
    assert_int_equal(f->m.u.features.n_buffers, 256);
    assert_int_equal(f->m.u.features.n_tables, 254);
    assert_int_equal(f->m.u.features.auxiliary_id, 1);
    assert_int_equal(f->m.u.features.capabilities,
                     OFPC_FLOW_STATS | OFPC_TABLE_STATS | OFPC_PORT_STATS | OFPC_QUEUE_STATS);
    expect_fail(f, "04 06 00 1c 00 00 00 05  00 00 00 00 00 00 0a bc 00 00 01 00 fe 01 00 00"
                   "00 00 00 47",
                OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
}

static void test_config(void **state)
{
    struct fx *f = *state;
    assert_int_equal(dec(f, "04 09 00 0c 00 00 00 07 00 02 00 80"), 0);
    assert_int_equal(f->m.u.config.flags, OFPC_FRAG_REASM);
    assert_int_equal(f->m.u.config.miss_send_len, 128);
    assert_int_equal(dec(f, "04 08 00 0c 00 00 00 07 00 00 ff ff"), 0);
    assert_int_equal(f->m.u.config.miss_send_len, OFPCML_NO_BUFFER);
    expect_fail(f, "04 09 00 0c 00 00 00 07 00 04 00 80", OFPET_SWITCH_CONFIG_FAILED,
                OFPSCFC_BAD_FLAGS);
    expect_fail(f, "04 08 00 0c 00 00 00 07 80 00 00 80", OFPET_SWITCH_CONFIG_FAILED,
                OFPSCFC_BAD_FLAGS);
    expect_fail(f, "04 07 00 0c 00 00 00 07 00 00 00 80", OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);

    struct ofp_switch_config c = {OFPC_FRAG_MASK + 1, 0};
    uint8_t out[32];
    struct ofp_buf b;
    ofp_buf_init(&b, out, sizeof(out));
    assert_int_equal(ofp_switch_config_encode(&b, OFPT_SET_CONFIG, 1, &c), -EINVAL);
    assert_int_equal(b.len, 0);
}

static void test_role_async_table_mod(void **state)
{
    struct fx *f = *state;
    assert_int_equal(dec(f, "04 18 00 18 00 00 00 01  00 00 00 02 00 00 00 00"
                            "00 00 00 00 00 00 00 2a"),
                     0);
    assert_int_equal(f->m.u.role.role, OFPCR_ROLE_MASTER);
    assert_int_equal(f->m.u.role.generation_id, 42);
    expect_fail(f, "04 19 00 18 00 00 00 01  00 00 00 04 00 00 00 00 00 00 00 00 00 00 00 2a",
                OFPET_ROLE_REQUEST_FAILED, OFPRRFC_BAD_ROLE);

    assert_int_equal(dec(f, "04 1c 00 20 00 00 00 01  00 00 00 01 00 00 00 02"
                            "00 00 00 03 00 00 00 04  00 00 00 05 00 00 00 06"),
                     0);
    assert_int_equal(f->m.hdr.type, OFPT_SET_ASYNC);
    assert_int_equal(f->m.u.async.packet_in_mask[0], 1);
    assert_int_equal(f->m.u.async.packet_in_mask[1], 2);
    assert_int_equal(f->m.u.async.port_status_mask[0], 3);
    assert_int_equal(f->m.u.async.port_status_mask[1], 4);
    assert_int_equal(f->m.u.async.flow_removed_mask[0], 5);
    assert_int_equal(f->m.u.async.flow_removed_mask[1], 6);
    assert_int_equal(dec(f, "04 1a 00 08 00 00 00 01"), 0);
    assert_int_equal(f->m.hdr.type, OFPT_GET_ASYNC_REQUEST);

    assert_int_equal(dec(f, "04 11 00 10 00 00 00 01 ff 00 00 00 00 00 00 03"), 0);
    assert_int_equal(f->m.u.table_mod.table_id, OFPTT_ALL);
    assert_int_equal(f->m.u.table_mod.config, 3);
    expect_fail(f, "04 11 00 10 00 00 00 01 01 00 00 00 00 00 00 04", OFPET_TABLE_MOD_FAILED,
                OFPTMFC_BAD_CONFIG);
}

/* ---- packet-in / packet-out --------------------------------------------------------- */

static void test_packet_in(void **state)
{
    struct fx *f = *state;
    /* buffer none, total_len 42, NO_MATCH, table 0, cookie 0, match in_port=3
     * (12 bytes + 4 padding), 2 bytes padding, 4 bytes of frame. */
    assert_int_equal(dec(f, "04 0a 00 2e 00 00 00 00  ff ff ff ff 00 2a 00 00"
                            "00 00 00 00 00 00 00 00  00 01 00 0c 80 00 00 04"
                            "00 00 00 03 00 00 00 00  00 00 de ad be ef"),
                     0);
    const struct ofp_packet_in *pi = &f->m.u.packet_in;
    assert_int_equal(pi->buffer_id, OFP_NO_BUFFER);
    assert_int_equal(pi->total_len, 42);
    assert_int_equal(pi->reason, OFPR_NO_MATCH);
    assert_int_equal(ofp_match_get_uint(&pi->match, OFPXMT_OFB_IN_PORT), 3);
    assert_int_equal(pi->match.present, 1ull << OFPXMT_OFB_IN_PORT);
    assert_int_equal(pi->data_len, 4);
    assert_memory_equal(pi->data, "\xde\xad\xbe\xef", 4);

    /* the 2 bytes after the match are missing */
    expect_fail(f, "04 0a 00 29 00 00 00 00  ff ff ff ff 00 2a 00 00 00 00 00 00 00 00 00 00"
                   "00 01 00 0c 80 00 00 04 00 00 00 03 00 00 00 00 00",
                OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    /* the match (12 bytes, 16 padded) runs past the message */
    expect_fail(f, "04 0a 00 22 00 00 00 00  ff ff ff ff 00 2a 00 00 00 00 00 00 00 00 00 00"
                   "00 01 00 0c 80 00 00 04 00 00",
                OFPET_BAD_MATCH, OFPBMC_BAD_LEN);
    /* old-style match type */
    expect_fail(f, "04 0a 00 22 00 00 00 00  ff ff ff ff 00 2a 00 00 00 00 00 00 00 00 00 00"
                   "00 00 00 04 00 00 00 00 00 00",
                OFPET_BAD_MATCH, OFPBMC_BAD_TYPE);
}

static void test_packet_out(void **state)
{
    struct fx *f = *state;
    assert_int_equal(dec(f, "04 0d 00 2c 00 00 00 09  ff ff ff ff ff ff ff fd"
                            "00 10 00 00 00 00 00 00  00 00 00 10 00 00 00 01"
                            "ff e5 00 00 00 00 00 00  ca fe f0 0d"),
                     0);
    const struct ofp_packet_out *po = &f->m.u.packet_out;
    struct ofp_action_iter it;
    struct ofp_action a;
    assert_int_equal(po->buffer_id, OFP_NO_BUFFER);
    assert_int_equal(po->in_port, OFPP_CONTROLLER);
    assert_int_equal(po->actions.n, 1);
    ofp_actions_iter_init(&it, &po->actions);
    assert_true(ofp_actions_next(&it, &a));
    assert_int_equal(a.type, OFPAT_OUTPUT);
    assert_int_equal(a.u.output.port, 1);
    assert_int_equal(a.u.output.max_len, OFPCML_MAX);
    assert_false(ofp_actions_next(&it, &a));
    assert_int_equal(po->data_len, 4);

    /* actions_len not a multiple of 8 */
    expect_fail(f, "04 0d 00 28 00 00 00 09  ff ff ff ff ff ff ff fd 00 0c 00 00 00 00 00 00"
                   "00 00 00 10 00 00 00 01 ff e5 00 00 00 00 00 00",
                OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    /* actions_len past the message */
    expect_fail(f, "04 0d 00 28 00 00 00 09  ff ff ff ff ff ff ff fd 00 18 00 00 00 00 00 00"
                   "00 00 00 10 00 00 00 01 ff e5 00 00 00 00 00 00",
                OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    /* in_port 0 and a number in the gap above OFPP_MAX */
    expect_fail(f, "04 0d 00 18 00 00 00 09  ff ff ff ff 00 00 00 00 00 00 00 00 00 00 00 00",
                OFPET_BAD_REQUEST, OFPBRC_BAD_PORT);
    expect_fail(f, "04 0d 00 18 00 00 00 09  ff ff ff ff ff ff ff 01 00 00 00 00 00 00 00 00",
                OFPET_BAD_REQUEST, OFPBRC_BAD_PORT);
    /* an action of its own wrong length inside a right actions_len */
    expect_fail(f, "04 0d 00 28 00 00 00 09  ff ff ff ff 00 00 00 01 00 10 00 00 00 00 00 00"
                   "00 00 00 08 00 00 00 01 ff e5 00 00 00 00 00 00",
                OFPET_BAD_ACTION, OFPBAC_BAD_LEN);
}

/* ---- queue configuration --------------------------------------------------------------- */

static void test_queue_config(void **state)
{
    struct fx *f = *state;
    struct ofp_packet_queue q;
    uint32_t pos = 0;

    assert_int_equal(dec(f, "04 16 00 10 00 00 00 01 ff ff ff ff 00 00 00 00"), 0);
    assert_int_equal(f->m.u.queue_request.port, OFPP_ANY);

    assert_int_equal(dec(f, "04 17 00 30 00 00 00 01  00 00 00 02 00 00 00 00"
                            "00 00 00 01 00 00 00 02  00 20 00 00 00 00 00 00"
                            "00 01 00 10 00 00 00 00  00 64 00 00 00 00 00 00"),
                     0);
    assert_int_equal(f->m.u.queue_reply.port, 2);
    assert_true(ofp_queue_next(&f->m.u.queue_reply, &pos, &q));
    assert_int_equal(q.queue_id, 1);
    assert_int_equal(q.port, 2);
    assert_int_equal(q.min_rate, 100);
    assert_int_equal(q.max_rate, OFP_QUEUE_RATE_NONE);
    assert_false(ofp_queue_next(&f->m.u.queue_reply, &pos, &q));

    /* queue length cuts its property in half */
    expect_fail(f, "04 17 00 30 00 00 00 01  00 00 00 02 00 00 00 00 00 00 00 01 00 00 00 02"
                   "00 18 00 00 00 00 00 00  00 01 00 10 00 00 00 00 00 64 00 00 00 00 00 00",
                OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
    /* property length not a multiple of 8 */
    expect_fail(f, "04 17 00 30 00 00 00 01  00 00 00 02 00 00 00 00 00 00 00 01 00 00 00 02"
                   "00 20 00 00 00 00 00 00  00 01 00 0c 00 00 00 00 00 64 00 00 00 00 00 00",
                OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hello_vectors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hello_bad_lengths, setup, teardown),
        cmocka_unit_test(test_negotiation),
        cmocka_unit_test_setup_teardown(test_echo, setup, teardown),
        cmocka_unit_test_setup_teardown(test_experimenter_barrier, setup, teardown),
        cmocka_unit_test_setup_teardown(test_features, setup, teardown),
        cmocka_unit_test_setup_teardown(test_config, setup, teardown),
        cmocka_unit_test_setup_teardown(test_role_async_table_mod, setup, teardown),
        cmocka_unit_test_setup_teardown(test_packet_in, setup, teardown),
        cmocka_unit_test_setup_teardown(test_packet_out, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queue_config, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
