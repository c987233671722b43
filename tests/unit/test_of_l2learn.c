/* Unit tests of the L2 learning-switch app: take-over messages, flooding of
 * unknown and broadcast destinations, flows for learnt ones (with and without
 * a switch buffer), moves, and the bounded table. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "of_l2learn.h"

static const struct l2_cfg cfg = {.table_size = 4, .idle_timeout_s = 60, .priority = 10};

static uint8_t frame[64];

static struct ofp_packet_in pin(uint32_t in_port, uint8_t dst_last, uint8_t src_last,
                                uint32_t buffer_id)
{
    struct ofp_packet_in pi;
    memset(&pi, 0, sizeof(pi));
    memset(frame, 0, sizeof(frame));
    uint8_t dst[6] = {0x02, 0, 0, 0, 0, dst_last}, src[6] = {0x02, 0, 0, 0, 0, src_last};
    if (dst_last == 0xff)
        memset(dst, 0xff, 6);
    memcpy(frame, dst, 6);
    memcpy(frame + 6, src, 6);
    frame[12] = 0x08;
    pi.data = frame;
    pi.data_len = 60;
    pi.buffer_id = buffer_id;
    ofp_match_init(&pi.match);
    ofp_match_set_uint(&pi.match, OFPXMT_OFB_IN_PORT, in_port);
    return pi;
}

static void test_takeover(void **state)
{
    (void)state;
    struct l2_out out;
    l2_on_established(&cfg, &out);
    assert_int_equal(out.n, 2);
    assert_int_equal(out.msg[0].hdr.type, OFPT_FLOW_MOD);
    assert_int_equal(out.msg[0].u.flow_mod.command, OFPFC_DELETE);
    assert_int_equal(out.msg[0].u.flow_mod.table_id, OFPTT_ALL);
    const struct ofp_flow_mod *miss = &out.msg[1].u.flow_mod;
    assert_int_equal(miss->command, OFPFC_ADD);
    assert_int_equal(miss->priority, 0);
    assert_int_equal(miss->inst.apply_actions.n, 1);
    assert_int_equal(miss->inst.apply_actions.arr[0].u.output.port, OFPP_CONTROLLER);
    assert_int_equal(miss->inst.apply_actions.arr[0].u.output.max_len, OFPCML_NO_BUFFER);
    /* Both encode as valid messages. */
    uint8_t buf[512];
    for (unsigned i = 0; i < out.n; i++) {
        struct ofp_buf b;
        ofp_buf_init(&b, buf, sizeof(buf));
        assert_int_equal(ofp_encode(&b, &out.msg[i]), 0);
        struct ofp_err err;
        assert_int_equal(ofp_validate(buf, b.len, &err), 0);
    }
}

static void test_unknown_floods_then_learnt_gets_flow(void **state)
{
    (void)state;
    struct l2_table *t = l2_table_create(cfg.table_size);
    struct l2_out out;
    /* h1 (mac ..01 on port 1) to h2 (..02): unknown → flood, h1 learnt. */
    struct ofp_packet_in pi = pin(1, 2, 1, OFP_NO_BUFFER);
    assert_int_equal(l2_on_packet_in(t, &cfg, &pi, 100, &out), 0);
    assert_int_equal(out.n, 1);
    assert_int_equal(out.msg[0].hdr.type, OFPT_PACKET_OUT);
    assert_int_equal(out.msg[0].u.packet_out.actions.arr[0].u.output.port, OFPP_FLOOD);
    assert_int_equal(out.msg[0].u.packet_out.data_len, 60);
    assert_int_equal(l2_table_count(t), 1);
    /* Reply h2 → h1 from port 2: h1 known → flow + packet_out (no buffer). */
    pi = pin(2, 1, 2, OFP_NO_BUFFER);
    assert_int_equal(l2_on_packet_in(t, &cfg, &pi, 200, &out), 0);
    assert_int_equal(out.n, 2);
    const struct ofp_flow_mod *fm = &out.msg[0].u.flow_mod;
    assert_int_equal(out.msg[0].hdr.type, OFPT_FLOW_MOD);
    assert_int_equal(fm->priority, 10);
    assert_int_equal(fm->idle_timeout, 60);
    assert_int_equal(ofp_match_get_uint(&fm->match, OFPXMT_OFB_IN_PORT), 2);
    assert_memory_equal(ofp_match_value(&fm->match, OFPXMT_OFB_ETH_DST),
                        ((uint8_t[]){2, 0, 0, 0, 0, 1}), 6);
    assert_int_equal(fm->inst.apply_actions.arr[0].u.output.port, 1);
    assert_int_equal(out.msg[1].hdr.type, OFPT_PACKET_OUT);
    assert_int_equal(out.msg[1].u.packet_out.actions.arr[0].u.output.port, 1);
    /* With a switch buffer the flow alone forwards it: no PACKET_OUT. */
    pi = pin(2, 1, 2, 77);
    assert_int_equal(l2_on_packet_in(t, &cfg, &pi, 300, &out), 0);
    assert_int_equal(out.n, 1);
    assert_int_equal(out.msg[0].u.flow_mod.buffer_id, 77);
    l2_table_destroy(t);
}

static void test_broadcast_floods_and_moves_relearn(void **state)
{
    (void)state;
    struct l2_table *t = l2_table_create(cfg.table_size);
    struct l2_out out;
    struct ofp_packet_in pi = pin(3, 0xff, 5, 9);
    assert_int_equal(l2_on_packet_in(t, &cfg, &pi, 1, &out), 0);
    assert_int_equal(out.n, 1);
    assert_int_equal(out.msg[0].u.packet_out.buffer_id, 9);   /* flood the buffered one */
    assert_int_equal(out.msg[0].u.packet_out.data_len, 0);
    /* Host 5 moves from port 3 to port 4; traffic to it follows. */
    pi = pin(4, 0xff, 5, OFP_NO_BUFFER);
    l2_on_packet_in(t, &cfg, &pi, 2, &out);
    pi = pin(1, 5, 6, OFP_NO_BUFFER);
    l2_on_packet_in(t, &cfg, &pi, 3, &out);
    assert_int_equal(out.msg[0].u.flow_mod.inst.apply_actions.arr[0].u.output.port, 4);
    /* A destination on the ingress port: nothing to send. */
    pi = pin(4, 5, 7, OFP_NO_BUFFER);
    assert_int_equal(l2_on_packet_in(t, &cfg, &pi, 4, &out), 0);
    assert_int_equal(out.n, 0);
    l2_table_destroy(t);
}

static void test_table_bounded_lru(void **state)
{
    (void)state;
    struct l2_table *t = l2_table_create(4);
    struct l2_out out;
    for (uint8_t mac = 1; mac <= 10; mac++) {
        struct ofp_packet_in pi = pin(mac, 0xff, mac, OFP_NO_BUFFER);
        l2_on_packet_in(t, &cfg, &pi, mac, &out);
        assert_true(l2_table_count(t) <= 4);
    }
    assert_int_equal(l2_table_count(t), 4);
    /* The most recent (10) is known; the oldest (1) was evicted. */
    struct ofp_packet_in pi = pin(1, 10, 11, OFP_NO_BUFFER);
    l2_on_packet_in(t, &cfg, &pi, 20, &out);
    assert_int_equal(out.msg[0].hdr.type, OFPT_FLOW_MOD);
    pi = pin(2, 1, 12, OFP_NO_BUFFER);
    l2_on_packet_in(t, &cfg, &pi, 21, &out);
    assert_int_equal(out.msg[0].u.packet_out.actions.arr[0].u.output.port, OFPP_FLOOD);
    l2_table_destroy(t);
}

/* LLDP and the rest of 802.1D's link-local group are never flooded (a
 * flooded LLDP would show the topology links that are not there); the
 * sender is still learnt. */
static void test_link_local_never_forwarded(void **state)
{
    (void)state;
    struct l2_table *t = l2_table_create(cfg.table_size);
    struct l2_out out;
    static const uint8_t lldp_dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e};
    struct ofp_packet_in pi = pin(3, 2, 7, OFP_NO_BUFFER);
    memcpy(frame, lldp_dst, 6);
    frame[12] = 0x88;
    frame[13] = 0xcc;
    assert_int_equal(l2_on_packet_in(t, &cfg, &pi, 100, &out), 0);
    assert_int_equal(out.n, 0);
    assert_int_equal(l2_table_count(t), 1);
    /* 01:80:c2:00:00:10 is outside the group: flooded like any multicast. */
    pi = pin(3, 2, 7, OFP_NO_BUFFER);
    memcpy(frame, lldp_dst, 6);
    frame[5] = 0x10;
    assert_int_equal(l2_on_packet_in(t, &cfg, &pi, 200, &out), 0);
    assert_int_equal(out.n, 1);
    assert_int_equal(out.msg[0].u.packet_out.actions.arr[0].u.output.port, OFPP_FLOOD);
    l2_table_destroy(t);
}

static void test_short_frame_refused(void **state)
{
    (void)state;
    struct l2_table *t = l2_table_create(4);
    struct l2_out out;
    struct ofp_packet_in pi = pin(1, 2, 3, OFP_NO_BUFFER);
    pi.data_len = 13;
    assert_int_equal(l2_on_packet_in(t, &cfg, &pi, 1, &out), -EINVAL);
    assert_int_equal(out.n, 0);
    l2_table_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_takeover),
        cmocka_unit_test(test_unknown_floods_then_learnt_gets_flow),
        cmocka_unit_test(test_broadcast_floods_and_moves_relearn),
        cmocka_unit_test(test_table_bounded_lru),
        cmocka_unit_test(test_link_local_never_forwarded),
        cmocka_unit_test(test_short_frame_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
