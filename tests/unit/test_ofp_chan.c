/* Unit tests of the OpenFlow channel state machine with a fake clock: the
 * handshake in order, version negotiation, timeouts, keepalive and echo RTT,
 * holding early messages, and closing exactly once. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "ofp_chan.h"
#include "ofp_msg.h"

enum { EV_HELLO, EV_FEATURES, EV_PORT_DESC, EV_DESC, EV_SET_CONFIG, EV_ECHO, EV_ERROR,
       EV_ESTABLISHED, EV_CLOSED, EV_N };

struct rec {
    unsigned count[EV_N];
    uint32_t last_xid[EV_N];
    uint16_t err_type, err_code;
    uint16_t miss_send_len;
    const char *why;
    int fail_sends;               /* make sends fail */
};

static int rec_send(struct rec *r, int ev, uint32_t xid)
{
    r->count[ev]++;
    r->last_xid[ev] = xid;
    return r->fail_sends ? -EIO : 0;
}

static int s_hello(void *a, uint32_t x) { return rec_send(a, EV_HELLO, x); }
static int s_feat(void *a, uint32_t x) { return rec_send(a, EV_FEATURES, x); }
static int s_pd(void *a, uint32_t x) { return rec_send(a, EV_PORT_DESC, x); }
static int s_desc(void *a, uint32_t x) { return rec_send(a, EV_DESC, x); }
static int s_echo(void *a, uint32_t x) { return rec_send(a, EV_ECHO, x); }

static int s_setcfg(void *a, uint32_t x, uint16_t msl)
{
    ((struct rec *)a)->miss_send_len = msl;
    return rec_send(a, EV_SET_CONFIG, x);
}

static int s_err(void *a, uint32_t x, uint16_t t, uint16_t c, const uint8_t *d, size_t l)
{
    struct rec *r = a;
    (void)d;
    (void)l;
    r->err_type = t;
    r->err_code = c;
    return rec_send(a, EV_ERROR, x);
}

static void on_est(void *a) { ((struct rec *)a)->count[EV_ESTABLISHED]++; }

static void on_closed(void *a, const char *why)
{
    struct rec *r = a;
    r->count[EV_CLOSED]++;
    r->why = why;
}

static const struct ofp_chan_ops ops = {s_hello, s_feat, s_pd, s_desc, s_setcfg, s_echo,
                                        s_err, on_est, on_closed};

static const struct ofp_chan_cfg cfg = {
    .handshake_timeout_ms = 10000,
    .echo_interval_ms = 5000,
    .echo_timeout_ms = 3000,
    .miss_send_len = 128,
};

#define MS 1000ull

static void handshake(struct ofp_chan *ch, struct rec *r, uint64_t t)
{
    ofp_chan_init(ch, &cfg, &ops, r, t);
    assert_int_equal(r->count[EV_HELLO], 1);
    assert_int_equal(ofp_chan_on_hello(ch, 7, 0x04, true, 1u << 4, t), 0);
    assert_int_equal(r->count[EV_FEATURES], 1);
    assert_int_equal(ofp_chan_on_features(ch, r->last_xid[EV_FEATURES], 0xabcdef, 0, t), 0);
    assert_int_equal(ch->dpid, 0xabcdef);
    ofp_chan_on_port_desc_done(ch, r->last_xid[EV_PORT_DESC], t);
    assert_int_equal(ch->state, OFP_CHAN_WAIT_DESC);
    ofp_chan_on_desc_done(ch, r->last_xid[EV_DESC], t);
}

static void test_handshake_in_order(void **state)
{
    (void)state;
    struct ofp_chan ch;
    struct rec r = {0};
    handshake(&ch, &r, 1000 * MS);
    assert_int_equal(ch.state, OFP_CHAN_ESTABLISHED);
    assert_int_equal(r.count[EV_SET_CONFIG], 1);
    assert_int_equal(r.miss_send_len, 128);
    assert_int_equal(r.count[EV_ESTABLISHED], 1);
    assert_int_equal(r.count[EV_CLOSED], 0);
    assert_int_equal(ch.version, 0x04);
    /* Every request got its own nonzero xid. */
    assert_true(r.last_xid[EV_FEATURES] && r.last_xid[EV_PORT_DESC] && r.last_xid[EV_DESC]);
    assert_true(r.last_xid[EV_PORT_DESC] != r.last_xid[EV_DESC]);
}

/* The channel's xids never take the control thread's top bit, however long
 * a connection lives: the two spaces cannot meet. */
static void test_xids_stay_below_control_bit(void **state)
{
    (void)state;
    struct ofp_chan ch;
    struct rec r = {0};
    handshake(&ch, &r, 0);
    ch.next_xid = 0x7ffffffe;
    assert_int_equal(ofp_chan_xid(&ch), 0x7fffffffu);
    uint32_t wrapped = ofp_chan_xid(&ch);
    assert_int_equal(wrapped, 1);
    assert_false(ofp_xid_is_control(wrapped));
    for (unsigned i = 0; i < 1000; i++)
        assert_false(ofp_xid_is_control(ofp_chan_xid(&ch)));
}

static void test_desc_replies_any_order_and_stale_xids(void **state)
{
    (void)state;
    struct ofp_chan ch;
    struct rec r = {0};
    ofp_chan_init(&ch, &cfg, &ops, &r, 0);
    ofp_chan_on_hello(&ch, 1, 0x04, false, 0, 0);
    /* A FEATURES_REPLY with the wrong xid is ignored. */
    ofp_chan_on_features(&ch, r.last_xid[EV_FEATURES] + 100, 1, 0, 0);
    assert_int_equal(ch.state, OFP_CHAN_WAIT_FEATURES);
    ofp_chan_on_features(&ch, r.last_xid[EV_FEATURES], 1, 0, 0);
    ofp_chan_on_desc_done(&ch, r.last_xid[EV_PORT_DESC], 0);   /* wrong xid for DESC */
    assert_int_equal(ch.state, OFP_CHAN_WAIT_DESC);
    ofp_chan_on_desc_done(&ch, r.last_xid[EV_DESC], 0);
    assert_int_equal(ch.state, OFP_CHAN_WAIT_DESC);
    ofp_chan_on_port_desc_done(&ch, r.last_xid[EV_PORT_DESC], 0);
    assert_int_equal(ch.state, OFP_CHAN_ESTABLISHED);
}

static void test_version_negotiation(void **state)
{
    (void)state;
    struct ofp_chan ch;
    /* Bitmap with 1.0 and 1.4 but not 1.3: incompatible. */
    struct rec r = {0};
    ofp_chan_init(&ch, &cfg, &ops, &r, 0);
    assert_int_equal(ofp_chan_on_hello(&ch, 9, 0x05, true, (1u << 1) | (1u << 5), 0), -EPROTO);
    assert_int_equal(r.count[EV_ERROR], 1);
    assert_int_equal(r.err_type, 0);          /* OFPET_HELLO_FAILED */
    assert_int_equal(r.err_code, 0);          /* OFPHFC_INCOMPATIBLE */
    assert_int_equal(r.last_xid[EV_ERROR], 9);
    assert_int_equal(ch.state, OFP_CHAN_CLOSED);
    assert_int_equal(r.count[EV_CLOSED], 1);
    /* No bitmap, header version 1.0: incompatible. */
    struct rec r2 = {0};
    ofp_chan_init(&ch, &cfg, &ops, &r2, 0);
    assert_int_equal(ofp_chan_on_hello(&ch, 1, 0x01, false, 0, 0), -EPROTO);
    /* No bitmap, header version 1.5: we settle on 1.3. */
    struct rec r3 = {0};
    ofp_chan_init(&ch, &cfg, &ops, &r3, 0);
    assert_int_equal(ofp_chan_on_hello(&ch, 1, 0x06, false, 0, 0), 0);
    assert_int_equal(ch.version, 0x04);
    /* Bitmap with 1.3 and 1.5 while the header says 1.5: fine. */
    struct rec r4 = {0};
    ofp_chan_init(&ch, &cfg, &ops, &r4, 0);
    assert_int_equal(ofp_chan_on_hello(&ch, 1, 0x06, true, (1u << 4) | (1u << 6), 0), 0);
}

static void test_message_before_hello(void **state)
{
    (void)state;
    struct ofp_chan ch;
    struct rec r = {0};
    uint8_t msg[8] = {4, 10, 0, 8, 0, 0, 0, 5};
    ofp_chan_init(&ch, &cfg, &ops, &r, 0);
    ofp_chan_on_early_message(&ch, 5, 10, msg, sizeof(msg));
    assert_int_equal(r.err_type, 0);
    assert_int_equal(r.err_code, 1);          /* OFPHFC_EPERM */
    assert_int_equal(ch.state, OFP_CHAN_CLOSED);
}

static void test_aux_connection_refused(void **state)
{
    (void)state;
    struct ofp_chan ch;
    struct rec r = {0};
    ofp_chan_init(&ch, &cfg, &ops, &r, 0);
    ofp_chan_on_hello(&ch, 1, 4, true, 1u << 4, 0);
    assert_int_equal(ofp_chan_on_features(&ch, r.last_xid[EV_FEATURES], 5, 1, 0), -EPROTO);
    assert_int_equal(ch.state, OFP_CHAN_CLOSED);
    assert_int_equal(r.count[EV_PORT_DESC], 0);
}

static void test_handshake_timeout(void **state)
{
    (void)state;
    struct ofp_chan ch;
    struct rec r = {0};
    ofp_chan_init(&ch, &cfg, &ops, &r, 0);
    ofp_chan_on_hello(&ch, 1, 4, true, 1u << 4, 100 * MS);
    /* Keepalive does not mask a stuck handshake. */
    uint64_t next = ofp_chan_tick(&ch, 100 * MS);
    assert_true(next <= 10000 * MS);
    assert_int_equal(ofp_chan_tick(&ch, 9999 * MS) != UINT64_MAX, 1);
    assert_int_equal(ch.state, OFP_CHAN_WAIT_FEATURES);
    ofp_chan_tick(&ch, 10000 * MS);
    assert_int_equal(ch.state, OFP_CHAN_CLOSED);
    assert_non_null(strstr(r.why, "FEATURES_REPLY"));
    assert_int_equal(ch.timeout, OFP_CHAN_TIMEOUT_HANDSHAKE);
    assert_int_equal(r.count[EV_CLOSED], 1);
    /* Closing is reported once, whatever comes after. */
    ofp_chan_close(&ch, "again");
    ofp_chan_tick(&ch, 20000 * MS);
    assert_int_equal(r.count[EV_CLOSED], 1);
}

static void test_no_handshake_timeout_once_established(void **state)
{
    (void)state;
    struct ofp_chan ch;
    struct rec r = {0};
    struct ofp_chan_cfg c = cfg;
    c.echo_interval_ms = 0;
    ofp_chan_init(&ch, &c, &ops, &r, 0);
    ofp_chan_on_hello(&ch, 1, 4, true, 1u << 4, 0);
    ofp_chan_on_features(&ch, r.last_xid[EV_FEATURES], 1, 0, 0);
    ofp_chan_on_port_desc_done(&ch, r.last_xid[EV_PORT_DESC], 0);
    ofp_chan_on_desc_done(&ch, r.last_xid[EV_DESC], 0);
    assert_int_equal(ofp_chan_tick(&ch, 3600000 * MS), UINT64_MAX);
    assert_int_equal(ch.state, OFP_CHAN_ESTABLISHED);
}

static void test_keepalive_and_rtt(void **state)
{
    (void)state;
    struct ofp_chan ch;
    struct rec r = {0};
    uint64_t t = 1000 * MS;
    handshake(&ch, &r, t);
    /* Traffic keeps the echo quiet. */
    ofp_chan_rx(&ch, t + 4000 * MS);
    ofp_chan_tick(&ch, t + 8000 * MS);
    assert_int_equal(r.count[EV_ECHO], 0);
    /* 5 s of silence after the last message: an echo goes out. */
    uint64_t next = ofp_chan_tick(&ch, t + 9000 * MS);
    assert_int_equal(r.count[EV_ECHO], 1);
    assert_int_equal(next, t + 12000 * MS);            /* its timeout */
    /* Reply after 2.5 ms: RTT recorded, no second echo while one is out. */
    ofp_chan_tick(&ch, t + 9001 * MS);
    assert_int_equal(r.count[EV_ECHO], 1);
    ofp_chan_rx(&ch, t + 9000 * MS + 2500);
    ofp_chan_on_echo_reply(&ch, r.last_xid[EV_ECHO], t + 9000 * MS + 2500);
    assert_int_equal(ch.rtt_last_us, 2500);
    assert_int_equal(ch.rtt_ewma_us, 2500);
    assert_int_equal(ch.rtt_hist[11], 1);                 /* [2048, 4096) µs */
    /* A reply with a stale xid changes nothing. */
    ofp_chan_on_echo_reply(&ch, r.last_xid[EV_ECHO] + 1, t + 9100 * MS);
    assert_int_equal(ch.echo_replies, 1);
    /* Next round: RTT 500 µs moves the EWMA by 1/8 of the difference. */
    ofp_chan_tick(&ch, t + 14003 * MS);
    assert_int_equal(r.count[EV_ECHO], 2);
    ofp_chan_on_echo_reply(&ch, r.last_xid[EV_ECHO], t + 14003 * MS + 500);
    assert_int_equal(ch.rtt_ewma_us, (7 * 2500 + 500) / 8);
    assert_int_equal(ch.state, OFP_CHAN_ESTABLISHED);
}

/* A busy switch never goes silent: the RTT probe still measures it. */
static void test_rtt_probe_on_busy_channel(void **state)
{
    (void)state;
    struct ofp_chan ch;
    struct rec r = {0};
    struct ofp_chan_cfg c = cfg;
    uint64_t t = 1000 * MS;
    c.rtt_probe_ms = 2000;
    ofp_chan_init(&ch, &c, &ops, &r, t);
    ofp_chan_on_hello(&ch, 1, 4, true, 1u << 4, t);
    ofp_chan_on_features(&ch, r.last_xid[EV_FEATURES], 1, 0, t);
    ofp_chan_on_port_desc_done(&ch, r.last_xid[EV_PORT_DESC], t);
    ofp_chan_on_desc_done(&ch, r.last_xid[EV_DESC], t);
    assert_int_equal(ch.state, OFP_CHAN_ESTABLISHED);
    for (uint64_t ms = 100; ms < 2000; ms += 100) {
        ofp_chan_rx(&ch, t + ms * MS);
        ofp_chan_tick(&ch, t + ms * MS);
    }
    assert_int_equal(r.count[EV_ECHO], 0);
    ofp_chan_rx(&ch, t + 2000 * MS);
    ofp_chan_tick(&ch, t + 2000 * MS);
    assert_int_equal(r.count[EV_ECHO], 1);                /* busy, probed anyway */
    ofp_chan_on_echo_reply(&ch, r.last_xid[EV_ECHO], t + 2000 * MS + 700);
    assert_int_equal(ch.rtt_last_us, 700);
    ofp_chan_rx(&ch, t + 3999 * MS);
    ofp_chan_tick(&ch, t + 3999 * MS);
    assert_int_equal(r.count[EV_ECHO], 1);
    assert_int_equal(ofp_chan_tick(&ch, t + 3999 * MS), t + 4000 * MS);   /* next due */
    ofp_chan_tick(&ch, t + 4000 * MS);
    assert_int_equal(r.count[EV_ECHO], 2);
}

static void test_echo_timeout(void **state)
{
    (void)state;
    struct ofp_chan ch;
    struct rec r = {0};
    handshake(&ch, &r, 0);
    ofp_chan_tick(&ch, 5000 * MS);
    assert_int_equal(r.count[EV_ECHO], 1);
    /* Other traffic does not stand in for the echo reply. */
    ofp_chan_rx(&ch, 6000 * MS);
    ofp_chan_tick(&ch, 7999 * MS);
    assert_int_equal(ch.state, OFP_CHAN_ESTABLISHED);
    ofp_chan_tick(&ch, 8000 * MS);
    assert_int_equal(ch.state, OFP_CHAN_CLOSED);
    assert_non_null(strstr(r.why, "echo timeout"));
    assert_int_equal(ch.timeout, OFP_CHAN_TIMEOUT_ECHO);
}

/* No HELLO within hello_timeout_ms: closed then, and the owner can tell
 * which deadline it was; a close from outside names none. */
static void test_hello_timeout(void **state)
{
    (void)state;
    struct ofp_chan ch;
    struct rec r = {0};
    struct ofp_chan_cfg c = cfg;
    c.hello_timeout_ms = 2000;
    ofp_chan_init(&ch, &c, &ops, &r, 0);
    assert_int_equal(ofp_chan_tick(&ch, 0), 2000 * MS);
    ofp_chan_tick(&ch, 1999 * MS);
    assert_int_equal(ch.state, OFP_CHAN_WAIT_HELLO);
    ofp_chan_tick(&ch, 2000 * MS);
    assert_int_equal(ch.state, OFP_CHAN_CLOSED);
    assert_int_equal(ch.timeout, OFP_CHAN_TIMEOUT_HELLO);
    assert_non_null(strstr(r.why, "no HELLO"));

    struct rec r2 = {0};
    ofp_chan_init(&ch, &c, &ops, &r2, 0);
    ofp_chan_close(&ch, "replaced");
    assert_int_equal(ch.timeout, OFP_CHAN_TIMEOUT_NONE);
}

static void test_echo_disabled(void **state)
{
    (void)state;
    struct ofp_chan ch;
    struct rec r = {0};
    struct ofp_chan_cfg c = cfg;
    c.echo_interval_ms = 0;
    ofp_chan_init(&ch, &c, &ops, &r, 0);
    ofp_chan_on_hello(&ch, 1, 4, true, 1u << 4, 0);
    ofp_chan_on_features(&ch, r.last_xid[EV_FEATURES], 1, 0, 0);
    ofp_chan_on_port_desc_done(&ch, r.last_xid[EV_PORT_DESC], 0);
    ofp_chan_on_desc_done(&ch, r.last_xid[EV_DESC], 0);
    ofp_chan_tick(&ch, 86400000 * MS);
    assert_int_equal(r.count[EV_ECHO], 0);
}

static void test_hold_until_established(void **state)
{
    (void)state;
    struct ofp_chan ch;
    struct rec r = {0};
    ofp_chan_init(&ch, &cfg, &ops, &r, 0);
    /* PACKET_IN (10), PORT_STATUS (12), FLOW_REMOVED (11) wait; replies pass. */
    assert_false(ofp_chan_may_process(&ch, 10));
    assert_false(ofp_chan_may_process(&ch, 12));
    assert_false(ofp_chan_may_process(&ch, 11));
    assert_true(ofp_chan_may_process(&ch, 19));
    assert_true(ofp_chan_may_process(&ch, 1));
    ofp_chan_on_hello(&ch, 1, 4, true, 1u << 4, 0);
    ofp_chan_on_features(&ch, r.last_xid[EV_FEATURES], 1, 0, 0);
    assert_false(ofp_chan_may_process(&ch, 12));
    ofp_chan_on_port_desc_done(&ch, r.last_xid[EV_PORT_DESC], 0);
    ofp_chan_on_desc_done(&ch, r.last_xid[EV_DESC], 0);
    assert_true(ofp_chan_may_process(&ch, 10));
    assert_true(ofp_chan_may_process(&ch, 12));
    ofp_chan_close(&ch, "bye");
    assert_false(ofp_chan_may_process(&ch, 19));
}

static void test_failed_send_closes(void **state)
{
    (void)state;
    struct ofp_chan ch;
    struct rec r = {0};
    ofp_chan_init(&ch, &cfg, &ops, &r, 0);
    r.fail_sends = 1;
    ofp_chan_on_hello(&ch, 1, 4, true, 1u << 4, 0);
    assert_int_equal(ch.state, OFP_CHAN_CLOSED);
    assert_non_null(strstr(r.why, "FEATURES_REQUEST"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_handshake_in_order),
        cmocka_unit_test(test_xids_stay_below_control_bit),
        cmocka_unit_test(test_desc_replies_any_order_and_stale_xids),
        cmocka_unit_test(test_version_negotiation),
        cmocka_unit_test(test_message_before_hello),
        cmocka_unit_test(test_aux_connection_refused),
        cmocka_unit_test(test_handshake_timeout),
        cmocka_unit_test(test_no_handshake_timeout_once_established),
        cmocka_unit_test(test_keepalive_and_rtt),
        cmocka_unit_test(test_rtt_probe_on_busy_channel),
        cmocka_unit_test(test_echo_timeout),
        cmocka_unit_test(test_hello_timeout),
        cmocka_unit_test(test_echo_disabled),
        cmocka_unit_test(test_hold_until_established),
        cmocka_unit_test(test_failed_send_closes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
