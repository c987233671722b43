/*
 * test_ofp_port: port descriptions, PORT_STATUS, PORT_MOD and port/queue
 * statistics entries, from hand-written spec layouts (§7.2.1, §7.4.3,
 * §7.3.4.3, §7.3.5.6): decoded field by field, re-encoded to the same bytes,
 * and the PORT_MOD errors of the spec.
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

/* port 1, 02:00:00:00:00:01, "eth1", NO_FWD, LIVE, 1GB_FD|COPPER, adv 1GB_FD,
 * supported 0x2fff, peer 0, 1 Gb/s now and max. */
#define PORT1_HEX                                                                          \
    "00 00 00 01 00 00 00 00  02 00 00 00 00 01 00 00"                                     \
    "65 74 68 31 00 00 00 00  00 00 00 00 00 00 00 00"                                     \
    "00 00 00 20 00 00 00 04  00 00 08 20 00 00 00 20"                                     \
    "00 00 2f ff 00 00 00 00  00 0f 42 40 00 0f 42 40"

static void check_port1(const struct ofp_port *p)
{
    assert_int_equal(p->port_no, 1);
    assert_memory_equal(p->hw_addr, "\x02\0\0\0\0\x01", 6);
    assert_string_equal(p->name, "eth1");
    assert_int_equal(p->config, OFPPC_NO_FWD);
    assert_int_equal(p->state, OFPPS_LIVE);
    assert_int_equal(p->curr, OFPPF_1GB_FD | OFPPF_COPPER);
    assert_int_equal(p->advertised, OFPPF_1GB_FD);
    assert_int_equal(p->supported, 0x2fff);
    assert_int_equal(p->peer, 0);
    assert_int_equal(p->curr_speed, 1000000);
    assert_int_equal(p->max_speed, 1000000);
}

static void test_port_status(void **state)
{
    uint8_t b[128], enc[128];
    struct ofp_msg m;
    struct ofp_err err;
    uint8_t *keep;
    (void)state;
    size_t n = ofp_test_hex("04 0c 00 50 00 00 00 00  02 00 00 00 00 00 00 00" PORT1_HEX, b,
                            sizeof(b));
    assert_int_equal(ofp_test_decode_copy(b, n, &m, &err, &keep), 0);
    free(keep);
    assert_int_equal(m.u.port_status.reason, OFPPR_MODIFY);
    check_port1(&m.u.port_status.desc);
    assert_int_equal(ofp_test_encode(&m, enc, sizeof(enc)), n);
    assert_memory_equal(enc, b, n);

    /* one byte short of the 64-byte port */
    b[3] = 0x4f;
    assert_int_equal(ofp_test_decode_copy(b, n - 1, &m, &err, NULL), -EBADMSG);
    assert_true(err.type == OFPET_BAD_REQUEST && err.code == OFPBRC_BAD_LEN);
}

static void test_port_names(void **state)
{
    struct ofp13_port w;
    struct ofp_port p;
    (void)state;
    /* a 16-byte name without NUL: the codec keeps 15 characters */
    memset(&w, 0, sizeof(w));
    memcpy(w.name, "abcdefghijklmnop", 16);
    ofp_port_from_wire(&w, &p);
    assert_string_equal(p.name, "abcdefghijklmno");
    /* and never writes a name that is not NUL-terminated */
    strcpy(p.name, "abcdefghijklmno");
    ofp_port_to_wire(&p, &w);
    assert_memory_equal(w.name, "abcdefghijklmno\0", 16);
}

static void expect_port_mod(const char *hex, int rc_want, uint16_t code)
{
    uint8_t b[64];
    struct ofp_msg m;
    struct ofp_err err = {0, 0};
    size_t n = ofp_test_hex(hex, b, sizeof(b));
    int rc = ofp_test_decode_copy(b, n, &m, &err, NULL);
    assert_int_equal(rc, rc_want);
    if (rc) {
        assert_int_equal(err.type, OFPET_PORT_MOD_FAILED);
        assert_int_equal(err.code, code);
    }
}

static void test_port_mod(void **state)
{
    uint8_t b[64], enc[64];
    struct ofp_msg m;
    struct ofp_err err;
    (void)state;
    size_t n = ofp_test_hex("04 10 00 28 00 00 00 05  00 00 00 03 00 00 00 00"
                            "02 00 00 00 00 03 00 00  00 00 00 01 00 00 00 41"
                            "00 00 00 40 00 00 00 00",
                            b, sizeof(b));
    assert_int_equal(ofp_test_decode_copy(b, n, &m, &err, NULL), 0);
    assert_int_equal(m.u.port_mod.port_no, 3);
    assert_memory_equal(m.u.port_mod.hw_addr, "\x02\0\0\0\0\x03", 6);
    assert_int_equal(m.u.port_mod.config, OFPPC_PORT_DOWN);
    assert_int_equal(m.u.port_mod.mask, OFPPC_PORT_DOWN | OFPPC_NO_PACKET_IN);
    assert_int_equal(m.u.port_mod.advertise, OFPPF_10GB_FD);
    assert_int_equal(ofp_test_encode(&m, enc, sizeof(enc)), n);
    assert_memory_equal(enc, b, n);

#define PM(port, cfg, mask, adv)                                                            \
    "04 10 00 28 00 00 00 05 " port " 00 00 00 00 02 00 00 00 00 03 00 00 " cfg " " mask   \
    " " adv " 00 00 00 00"
    expect_port_mod(PM("00 00 00 00", "00 00 00 01", "00 00 00 01", "00 00 00 00"), -EBADMSG,
                    OFPPMFC_BAD_PORT);
    expect_port_mod(PM("ff ff ff 01", "00 00 00 01", "00 00 00 01", "00 00 00 00"), -EBADMSG,
                    OFPPMFC_BAD_PORT);
    expect_port_mod(PM("ff ff ff fd", "00 00 00 01", "00 00 00 01", "00 00 00 00"), -EBADMSG,
                    OFPPMFC_BAD_PORT);                  /* CONTROLLER is no port to modify */
    expect_port_mod(PM("ff ff ff fe", "00 00 00 01", "00 00 00 01", "00 00 00 00"), 0, 0);
    expect_port_mod(PM("00 00 00 01", "00 00 00 02", "00 00 00 02", "00 00 00 00"), -EBADMSG,
                    OFPPMFC_BAD_CONFIG);                /* 1.0's NO_STP */
    expect_port_mod(PM("00 00 00 01", "00 00 00 00", "00 00 00 80", "00 00 00 00"), -EBADMSG,
                    OFPPMFC_BAD_CONFIG);
    expect_port_mod(PM("00 00 00 01", "00 00 00 00", "00 00 00 00", "00 01 00 00"), -EBADMSG,
                    OFPPMFC_BAD_ADVERTISE);
#undef PM

    struct ofp_port_mod pm = {.port_no = 0};
    struct ofp_buf ob;
    ofp_buf_init(&ob, enc, sizeof(enc));
    assert_int_equal(ofp_port_mod_encode(&ob, 1, &pm), -EINVAL);
    assert_int_equal(ob.len, 0);
}

static void test_stats_entries(void **state)
{
    uint8_t b[128], enc[128];
    struct ofp_port_stats ps;
    struct ofp_queue_stats qs;
    struct ofp_buf ob;
    (void)state;
    size_t n = ofp_test_hex("00 00 00 02 00 00 00 00"
                            "00 00 00 00 00 00 00 01  00 00 00 00 00 00 00 02"
                            "00 00 00 00 00 00 00 03  00 00 00 00 00 00 00 04"
                            "00 00 00 00 00 00 00 05  00 00 00 00 00 00 00 06"
                            "00 00 00 00 00 00 00 07  00 00 00 00 00 00 00 08"
                            "00 00 00 00 00 00 00 09  00 00 00 00 00 00 00 0a"
                            "00 00 00 00 00 00 00 0b  00 00 00 00 00 00 00 0c"
                            "00 00 00 0d 00 00 00 0e",
                            b, sizeof(b));
    assert_int_equal(n, sizeof(struct ofp13_port_stats));
    ofp_port_stats_from_wire((const void *)b, &ps);
    assert_int_equal(ps.port_no, 2);
    assert_int_equal(ps.rx_packets, 1);
    assert_int_equal(ps.tx_packets, 2);
    assert_int_equal(ps.rx_bytes, 3);
    assert_int_equal(ps.tx_bytes, 4);
    assert_int_equal(ps.rx_dropped, 5);
    assert_int_equal(ps.tx_dropped, 6);
    assert_int_equal(ps.rx_errors, 7);
    assert_int_equal(ps.tx_errors, 8);
    assert_int_equal(ps.rx_frame_err, 9);
    assert_int_equal(ps.rx_over_err, 10);
    assert_int_equal(ps.rx_crc_err, 11);
    assert_int_equal(ps.collisions, 12);
    assert_int_equal(ps.duration_sec, 13);
    assert_int_equal(ps.duration_nsec, 14);
    ofp_buf_init(&ob, enc, sizeof(enc));
    assert_int_equal(ofp_port_stats_put(&ob, &ps), 0);
    assert_memory_equal(enc, b, n);

    n = ofp_test_hex("00 00 00 02 00 00 00 05  00 00 00 00 00 00 00 01"
                     "00 00 00 00 00 00 00 02  00 00 00 00 00 00 00 03"
                     "00 00 00 04 00 00 00 05",
                     b, sizeof(b));
    ofp_queue_stats_from_wire((const void *)b, &qs);
    assert_int_equal(qs.port_no, 2);
    assert_int_equal(qs.queue_id, 5);
    assert_int_equal(qs.tx_bytes, 1);
    assert_int_equal(qs.tx_packets, 2);
    assert_int_equal(qs.tx_errors, 3);
    assert_int_equal(qs.duration_sec, 4);
    assert_int_equal(qs.duration_nsec, 5);
    ob.len = 0;
    assert_int_equal(ofp_queue_stats_put(&ob, &qs), 0);
    assert_int_equal(ob.len, n);
    assert_memory_equal(enc, b, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_port_status),
        cmocka_unit_test(test_port_names),
        cmocka_unit_test(test_port_mod),
        cmocka_unit_test(test_stats_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
