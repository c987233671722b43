/* Unit tests of the control thread's switch view: a switch comes up and goes
 * down with the events, a stale connection's down changes nothing, and a
 * switch gone for openflow.forget_after_s is forgotten on the workers' clock
 * (a fake one here) — not earlier, and not once it has come back; bounded
 * by max_known, a down switch without stored flows let go first; a down
 * switch's ports freed; port counters kept from whole port-statistics
 * replies only, for known ports; the forget sweep looking only at what is due;
 * ofcdctl's switch/show over the view. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <errno.h>

#include "sw_view.h"
#include "ofcd_ctl.h"
#include "ofp_msg.h"

#define SEC_US 1000000ull
#define DPID 0x00000000000000a1ull
#define AFTER_US (60 * SEC_US)

/* A worker's event about dpid on connection conn, stamped at t_us; a
 * SWITCH_UP with n_ports ports. */
static void event_of(struct sw_view *cs, uint64_t dpid, enum qmsg_kind kind,
                     conn_handle_t conn, uint64_t t_us, uint32_t n_ports)
{
    struct of_event_hdr h = {.dpid = dpid, .time_us = t_us};
    struct of_event_up up = {.version = 4, .n_ports = n_ports};
    size_t ports_len = (size_t)n_ports * sizeof(struct ofp_port);
    size_t len = sizeof(h) + (kind == QMSG_EV_SWITCH_UP ? sizeof(up) + ports_len : 0);
    struct qmsg *q = calloc(1, sizeof(*q) + len);

    assert_non_null(q);
    q->kind = kind;
    q->conn = conn;
    q->len = (uint32_t)len;
    memcpy(q->data, &h, sizeof(h));
    if (kind == QMSG_EV_SWITCH_UP) {
        memcpy(q->data + sizeof(h), &up, sizeof(up));
        for (uint32_t i = 0; i < n_ports; i++) {
            struct ofp_port p = {.port_no = i + 1};
            memcpy(q->data + sizeof(h) + sizeof(up) + i * sizeof(p), &p, sizeof(p));
        }
    }
    sw_view_handle(cs, q);
    free(q);
}

static void event(struct sw_view *cs, enum qmsg_kind kind, conn_handle_t conn,
                  uint64_t t_us)
{
    event_of(cs, DPID, kind, conn, t_us, 0);
}

static struct sw_view_stats stats(const struct sw_view *cs)
{
    struct sw_view_stats st;
    sw_view_get_stats(cs, &st);
    return st;
}

static void test_up_then_down(void **state)
{
    struct sw_view *cs = sw_view_create(NULL);

    (void)state;
    event(cs, QMSG_EV_SWITCH_UP, 7, 5 * SEC_US);
    const struct ctl_switch *s = sw_view_find(cs, DPID);
    assert_non_null(s);
    assert_true(s->up);
    assert_int_equal(s->conn, 7);
    assert_int_equal(stats(cs).up, 1);
    event(cs, QMSG_EV_SWITCH_DOWN, 7, 9 * SEC_US);
    assert_false(s->up);
    assert_int_equal(s->down_since_us, 9 * SEC_US);
    assert_int_equal(stats(cs).up, 0);
    assert_int_equal(stats(cs).downs, 1);
    assert_int_equal(stats(cs).known, 1);
    sw_view_destroy(cs);
}

/* The old connection's down, arriving after the new one came up. */
static void test_stale_down_ignored(void **state)
{
    struct sw_view *cs = sw_view_create(NULL);

    (void)state;
    event(cs, QMSG_EV_SWITCH_UP, 7, 1 * SEC_US);
    event(cs, QMSG_EV_SWITCH_UP, 8, 2 * SEC_US);
    event(cs, QMSG_EV_SWITCH_DOWN, 7, 3 * SEC_US);
    const struct ctl_switch *s = sw_view_find(cs, DPID);
    assert_true(s->up);
    assert_int_equal(s->conn, 8);
    assert_int_equal(stats(cs).up, 1);
    assert_int_equal(stats(cs).downs, 0);
    sw_view_destroy(cs);
}

static void test_forgotten_after_the_interval(void **state)
{
    struct sw_view *cs = sw_view_create(NULL);
    const uint64_t down = 100 * SEC_US;

    (void)state;
    event(cs, QMSG_EV_SWITCH_UP, 7, 1 * SEC_US);
    /* Up, however long: never forgotten. */
    assert_int_equal(sw_view_forget(cs, down + 10 * AFTER_US, AFTER_US), 0);
    event(cs, QMSG_EV_SWITCH_DOWN, 7, down);
    assert_int_equal(sw_view_forget(cs, down + AFTER_US - 1, AFTER_US), 0);
    assert_non_null(sw_view_find(cs, DPID));
    assert_int_equal(sw_view_forget(cs, down + AFTER_US, AFTER_US), 1);
    assert_null(sw_view_find(cs, DPID));
    assert_int_equal(stats(cs).known, 0);
    assert_int_equal(stats(cs).forgotten, 1);
    sw_view_destroy(cs);
}

static void test_back_up_is_kept(void **state)
{
    struct sw_view *cs = sw_view_create(NULL);

    (void)state;
    event(cs, QMSG_EV_SWITCH_UP, 7, 1 * SEC_US);
    event(cs, QMSG_EV_SWITCH_DOWN, 7, 2 * SEC_US);
    event(cs, QMSG_EV_SWITCH_UP, 9, 3 * SEC_US);
    assert_int_equal(sw_view_forget(cs, 2 * SEC_US + 2 * AFTER_US, AFTER_US), 0);
    assert_non_null(sw_view_find(cs, DPID));
    assert_int_equal(stats(cs).forgotten, 0);
    sw_view_destroy(cs);
}

/* ---- bounded (openflow.max_switches_known) ------------------------------------- */

/* The flow manager's word, as the hooks hear it: which dpids have stored
 * flows, and which records the view let go. */
struct hooks {
    uint64_t with_flows[4];
    unsigned n_with_flows;
    uint64_t forgotten[64];
    unsigned n_forgotten;
};

static bool has_flows(void *arg, uint64_t dpid)
{
    const struct hooks *hk = arg;
    for (unsigned i = 0; i < hk->n_with_flows; i++)
        if (hk->with_flows[i] == dpid)
            return true;
    return false;
}

static void forgotten(void *arg, uint64_t dpid)
{
    struct hooks *hk = arg;
    assert_true(hk->n_forgotten < 64);
    hk->forgotten[hk->n_forgotten++] = dpid;
}

static struct sw_view *bounded(struct hooks *hk, uint32_t max)
{
    struct sw_view_cfg cfg = {.max_known = max, .has_flows = has_flows,
                                   .forgotten = forgotten, .arg = hk};
    struct sw_view *cs = sw_view_create(&cfg);
    assert_non_null(cs);
    return cs;
}

static void up(struct sw_view *cs, uint64_t dpid, uint64_t t_us)
{
    event_of(cs, dpid, QMSG_EV_SWITCH_UP, dpid, t_us, 2);
}

static void down(struct sw_view *cs, uint64_t dpid, uint64_t t_us)
{
    event_of(cs, dpid, QMSG_EV_SWITCH_DOWN, dpid, t_us, 0);
}

/* At the bound a new dpid takes the record of the switch down longest that
 * has no stored flows; one with flows goes only when no other is down. */
static void test_bound_evicts_down_without_flows_first(void **state)
{
    struct hooks hk = {.with_flows = {0xa1}, .n_with_flows = 1};
    struct sw_view *cs = bounded(&hk, 3);

    (void)state;
    up(cs, 0xa1, 1 * SEC_US);
    up(cs, 0xa2, 2 * SEC_US);
    up(cs, 0xa3, 3 * SEC_US);
    down(cs, 0xa1, 4 * SEC_US);                   /* down longest, but has flows */
    down(cs, 0xa2, 5 * SEC_US);
    up(cs, 0xa4, 6 * SEC_US);
    assert_int_equal(stats(cs).known, 3);
    assert_int_equal(stats(cs).evicted, 1);
    assert_null(sw_view_find(cs, 0xa2));
    assert_non_null(sw_view_find(cs, 0xa1));
    assert_int_equal(hk.n_forgotten, 1);
    assert_int_equal(hk.forgotten[0], 0xa2);
    down(cs, 0xa3, 7 * SEC_US);
    up(cs, 0xa5, 8 * SEC_US);
    assert_null(sw_view_find(cs, 0xa3));
    assert_non_null(sw_view_find(cs, 0xa1));
    /* Only the one with flows is down: it goes now. */
    up(cs, 0xa6, 9 * SEC_US);
    assert_null(sw_view_find(cs, 0xa1));
    assert_int_equal(hk.forgotten[2], 0xa1);
    assert_int_equal(stats(cs).evicted, 3);
    assert_int_equal(stats(cs).known, 3);
    assert_int_equal(stats(cs).up, 3);
    sw_view_destroy(cs);
}

/* A switch that goes down keeps its record, not its ports. */
static void test_ports_freed_at_down(void **state)
{
    struct sw_view *cs = sw_view_create(NULL);

    (void)state;
    up(cs, 0xb1, 1 * SEC_US);
    const struct ctl_switch *s = sw_view_find(cs, 0xb1);
    assert_int_equal(s->ports.n, 2);
    assert_int_equal(stats(cs).ports, 2);
    down(cs, 0xb1, 2 * SEC_US);
    s = sw_view_find(cs, 0xb1);
    assert_non_null(s);
    assert_int_equal(s->ports.n, 0);
    assert_null(s->ports.v);
    assert_int_equal(stats(cs).ports, 0);
    up(cs, 0xb1, 3 * SEC_US);
    assert_int_equal(sw_view_find(cs, 0xb1)->ports.n, 2);
    sw_view_destroy(cs);
}

/* A PORT_STATUS the switch sent before it went down can reach the view
 * after its SWITCH_DOWN (the down travels first, in P0): it must not give
 * the down switch ports back. */
static void test_late_port_status_after_down(void **state)
{
    struct sw_view *cs = sw_view_create(NULL);
    struct ofp_msg m;
    uint8_t wire[256];
    struct ofp_buf b;
    struct of_event_hdr h = {.dpid = 0xb2, .time_us = 3 * SEC_US};

    (void)state;
    up(cs, 0xb2, 1 * SEC_US);
    down(cs, 0xb2, 2 * SEC_US);
    memset(&m, 0, sizeof(m));
    m.hdr.version = OFP13_VERSION;
    m.hdr.type = OFPT_PORT_STATUS;
    m.u.port_status.reason = OFPPR_ADD;
    m.u.port_status.desc = (struct ofp_port){.port_no = 9, .name = "p9"};
    ofp_buf_init(&b, wire, sizeof(wire));
    assert_int_equal(ofp_encode(&b, &m), 0);
    struct qmsg *q = calloc(1, sizeof(*q) + sizeof(h) + b.len);
    assert_non_null(q);
    q->kind = QMSG_EV_OF;
    q->conn = 0xb2;
    q->len = (uint32_t)(sizeof(h) + b.len);
    memcpy(q->data, &h, sizeof(h));
    memcpy(q->data + sizeof(h), wire, b.len);
    sw_view_handle(cs, q);
    free(q);
    assert_int_equal(sw_view_find(cs, 0xb2)->ports.n, 0);
    assert_int_equal(stats(cs).ports, 0);
    sw_view_destroy(cs);
}

/* One part of a port-statistics reply (xid, more to come or not) from dpid. */
static void port_stats_part(struct sw_view *cs, uint64_t dpid, uint32_t xid, bool more,
                            const struct ofp_port_stats *v, uint32_t n)
{
    struct ofp_msg m;
    uint8_t wire[2048];
    struct ofp_buf b;
    struct of_event_hdr h = {.dpid = dpid, .time_us = 5 * SEC_US};

    memset(&m, 0, sizeof(m));
    m.hdr.version = OFP13_VERSION;
    m.hdr.type = OFPT_MULTIPART_REPLY;
    m.hdr.xid = xid;
    m.u.mp_reply = (struct ofp_mp_reply){.type = OFPMP_PORT_STATS,
                                         .flags = more ? OFPMPF_REPLY_MORE : 0, .arr = v, .n = n};
    ofp_buf_init(&b, wire, sizeof(wire));
    assert_int_equal(ofp_encode(&b, &m), 0);
    struct qmsg *q = calloc(1, sizeof(*q) + sizeof(h) + b.len);
    assert_non_null(q);
    q->kind = QMSG_EV_OF;
    q->conn = dpid;
    q->len = (uint32_t)(sizeof(h) + b.len);
    memcpy(q->data, &h, sizeof(h));
    memcpy(q->data + sizeof(h), wire, b.len);
    sw_view_handle(cs, q);
    free(q);
}

/* Port counters: kept from the last complete reply only (a reply in parts
 * counts once whole), only for ports the switch told of, copied with the
 * switch for REST; the next reply replaces them. */
static void test_port_counters(void **state)
{
    struct sw_view *cs = sw_view_create(NULL);
    const struct ofp_port_stats p1 = {.port_no = 1, .rx_packets = 10, .tx_bytes = 700};
    const struct ofp_port_stats bogus = {.port_no = 99, .rx_packets = 1};
    const struct ofp_port_stats p2 = {.port_no = 2, .tx_packets = 5};
    const struct ofp_port_stats first[2] = {p1, bogus};

    (void)state;
    up(cs, 0xb3, 1 * SEC_US);                   /* ports 1 and 2 */
    const struct ctl_switch *s = sw_view_find(cs, 0xb3);
    assert_null(ctl_switch_port_counters(s, 1));
    port_stats_part(cs, 0xb3, 7, true, first, 2);
    assert_null(ctl_switch_port_counters(s, 1));          /* not whole yet */
    port_stats_part(cs, 0xb3, 7, false, &p2, 1);
    assert_int_equal(s->counters.n, 2);
    assert_int_equal(ctl_switch_port_counters(s, 1)->rx_packets, 10);
    assert_int_equal(ctl_switch_port_counters(s, 1)->tx_bytes, 700);
    assert_int_equal(ctl_switch_port_counters(s, 2)->tx_packets, 5);
    assert_null(ctl_switch_port_counters(s, 99));         /* never told of */
    assert_true(s->counters.at_ms > 0);

    struct ctl_switch_copy c;
    assert_int_equal(sw_view_copy(cs, 0xb3, true, &c), 0);
    assert_int_equal(ctl_switch_port_counters(&c.s, 2)->tx_packets, 5);
    ctl_switch_copy_free(&c);

    const struct ofp_port_stats later = {.port_no = 1, .rx_packets = 25};
    port_stats_part(cs, 0xb3, 8, false, &later, 1);
    assert_int_equal(s->counters.n, 1);
    assert_int_equal(ctl_switch_port_counters(s, 1)->rx_packets, 25);
    assert_null(ctl_switch_port_counters(s, 2));
    const struct ofp_port_stats reversed[2] = {p2, p1};   /* any order in the reply */
    port_stats_part(cs, 0xb3, 9, false, reversed, 2);
    assert_int_equal(ctl_switch_port_counters(s, 1)->rx_packets, 10);
    assert_int_equal(ctl_switch_port_counters(s, 2)->tx_packets, 5);
    down(cs, 0xb3, 9 * SEC_US);                 /* a down switch keeps no counters */
    assert_int_equal(sw_view_find(cs, 0xb3)->counters.n, 0);
    sw_view_destroy(cs);
}

/* The forget sweep looks at the records that are due (and one more), not
 * at every one the view knows. */
static void test_forget_visits_only_expired(void **state)
{
    struct hooks hk = {0};
    struct sw_view *cs = bounded(&hk, 0);
    uint64_t visits = 0;

    (void)state;
    for (uint64_t d = 1; d <= 40; d++)
        up(cs, 0xc00 + d, 1 * SEC_US);
    for (uint64_t d = 1; d <= 40; d++)
        down(cs, 0xc00 + d, (d <= 20 ? 10 : 20) * SEC_US);
    for (uint64_t t = 21; t < 70; t++) {
        sw_view_forget(cs, t * SEC_US, AFTER_US);
        visits++;
    }
    assert_int_equal(stats(cs).forgotten, 0);
    assert_true(stats(cs).swept <= visits);
    assert_int_equal(sw_view_forget(cs, 70 * SEC_US, AFTER_US), 20);
    assert_true(stats(cs).swept <= visits + 21);
    assert_int_equal(sw_view_forget(cs, 80 * SEC_US, AFTER_US), 20);
    assert_true(stats(cs).swept <= visits + 41);
    assert_int_equal(stats(cs).known, 0);
    assert_int_equal(hk.n_forgotten, 40);
    sw_view_destroy(cs);
}

/* switch/show's text for words (argv), its status in *rc: malloc'd. */
static char *show(struct ofcd_ctl *c, int argc, char **argv, int *rc)
{
    struct ofcd_ctl_out out;

    ofcd_ctl_out_init(&out, OFCD_CTL_REPLY_MAX);
    *rc = ofcd_ctl_execute(c, argc, argv, &out);
    char *text = strdup(out.buf ? out.buf : "");
    ofcd_ctl_out_free(&out);
    return text;
}

/* switch/show: every switch known, one line each in dpid order; one
 * switch whole with its ports; an unknown or malformed dpid an error. */
static void test_switch_show(void **state)
{
    struct sw_view *cs = sw_view_create(NULL);
    struct ofcd_ctl *c = ofcd_ctl_create();
    int rc;

    (void)state;
    assert_int_equal(sw_view_ctl_register(cs, c), 0);
    event_of(cs, 0xb2, QMSG_EV_SWITCH_UP, 9, 1 * SEC_US, 0);
    event_of(cs, DPID, QMSG_EV_SWITCH_UP, 7, 1 * SEC_US, 3);
    event_of(cs, 0xb2, QMSG_EV_SWITCH_DOWN, 9, 2 * SEC_US, 0);

    char *text = show(c, 1, (char *[]){"switch/show"}, &rc);
    assert_int_equal(rc, 0);
    const char *a = strstr(text, "00:00:00:00:00:00:00:a1 up   since ");
    const char *b = strstr(text, "00:00:00:00:00:00:00:b2 down since ");
    assert_non_null(strstr(text, "2 switches known\n"));
    assert_non_null(a);
    assert_non_null(b);
    assert_true(a < b);
    assert_non_null(strstr(a, "3 ports"));
    free(text);

    text = show(c, 2, (char *[]){"switch/show", "161"}, &rc);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(text, "switch 00:00:00:00:00:00:00:a1 (00000000000000a1): up since"));
    assert_non_null(strstr(text, "  ports: 3\n    1 "));
    assert_non_null(strstr(text, "\n    3 "));
    free(text);

    text = show(c, 2, (char *[]){"switch/show", "00:00:00:00:00:00:00:c3"}, &rc);
    assert_int_equal(rc, -ENOENT);
    assert_non_null(strstr(text, "00000000000000c3 is not known"));
    free(text);
    text = show(c, 2, (char *[]){"switch/show", "zz"}, &rc);
    assert_int_equal(rc, -EINVAL);
    free(text);
    ofcd_ctl_destroy(c);
    sw_view_destroy(cs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_up_then_down),
        cmocka_unit_test(test_stale_down_ignored),
        cmocka_unit_test(test_forgotten_after_the_interval),
        cmocka_unit_test(test_back_up_is_kept),
        cmocka_unit_test(test_bound_evicts_down_without_flows_first),
        cmocka_unit_test(test_ports_freed_at_down),
        cmocka_unit_test(test_late_port_status_after_down),
        cmocka_unit_test(test_port_counters),
        cmocka_unit_test(test_forget_visits_only_expired),
        cmocka_unit_test(test_switch_show),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
