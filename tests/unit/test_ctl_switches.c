/* Unit tests of the control thread's switch view: a switch comes up and goes
 * down with the events, a stale connection's down changes nothing, and a
 * switch gone for openflow.forget_after_s is forgotten on the workers' clock
 * (a fake one here) — not earlier, and not once it has come back. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "ctl_switches.h"

#define SEC_US 1000000ull
#define DPID 0x00000000000000a1ull
#define AFTER_US (60 * SEC_US)

/* A worker's event about DPID on connection conn, stamped at t_us. */
static void event(struct ctl_switches *cs, enum qmsg_kind kind, conn_handle_t conn,
                  uint64_t t_us)
{
    struct of_event_hdr h = {.dpid = DPID, .time_us = t_us};
    struct of_event_up up = {.version = 4, .n_ports = 0};
    size_t len = sizeof(h) + (kind == QMSG_EV_SWITCH_UP ? sizeof(up) : 0);
    struct qmsg *q = calloc(1, sizeof(*q) + len);

    assert_non_null(q);
    q->kind = kind;
    q->conn = conn;
    q->len = (uint32_t)len;
    memcpy(q->data, &h, sizeof(h));
    if (kind == QMSG_EV_SWITCH_UP)
        memcpy(q->data + sizeof(h), &up, sizeof(up));
    ctl_switches_handle(cs, q);
    free(q);
}

static struct ctl_switches_stats stats(const struct ctl_switches *cs)
{
    struct ctl_switches_stats st;
    ctl_switches_get_stats(cs, &st);
    return st;
}

static void test_up_then_down(void **state)
{
    struct ctl_switches *cs = ctl_switches_create();

    (void)state;
    event(cs, QMSG_EV_SWITCH_UP, 7, 5 * SEC_US);
    const struct ctl_switch *s = ctl_switches_find(cs, DPID);
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
    ctl_switches_destroy(cs);
}

/* The old connection's down, arriving after the new one came up. */
static void test_stale_down_ignored(void **state)
{
    struct ctl_switches *cs = ctl_switches_create();

    (void)state;
    event(cs, QMSG_EV_SWITCH_UP, 7, 1 * SEC_US);
    event(cs, QMSG_EV_SWITCH_UP, 8, 2 * SEC_US);
    event(cs, QMSG_EV_SWITCH_DOWN, 7, 3 * SEC_US);
    const struct ctl_switch *s = ctl_switches_find(cs, DPID);
    assert_true(s->up);
    assert_int_equal(s->conn, 8);
    assert_int_equal(stats(cs).up, 1);
    assert_int_equal(stats(cs).downs, 0);
    ctl_switches_destroy(cs);
}

static void test_forgotten_after_the_interval(void **state)
{
    struct ctl_switches *cs = ctl_switches_create();
    const uint64_t down = 100 * SEC_US;

    (void)state;
    event(cs, QMSG_EV_SWITCH_UP, 7, 1 * SEC_US);
    /* Up, however long: never forgotten. */
    assert_int_equal(ctl_switches_forget(cs, down + 10 * AFTER_US, AFTER_US), 0);
    event(cs, QMSG_EV_SWITCH_DOWN, 7, down);
    assert_int_equal(ctl_switches_forget(cs, down + AFTER_US - 1, AFTER_US), 0);
    assert_non_null(ctl_switches_find(cs, DPID));
    assert_int_equal(ctl_switches_forget(cs, down + AFTER_US, AFTER_US), 1);
    assert_null(ctl_switches_find(cs, DPID));
    assert_int_equal(stats(cs).known, 0);
    assert_int_equal(stats(cs).forgotten, 1);
    ctl_switches_destroy(cs);
}

static void test_back_up_is_kept(void **state)
{
    struct ctl_switches *cs = ctl_switches_create();

    (void)state;
    event(cs, QMSG_EV_SWITCH_UP, 7, 1 * SEC_US);
    event(cs, QMSG_EV_SWITCH_DOWN, 7, 2 * SEC_US);
    event(cs, QMSG_EV_SWITCH_UP, 9, 3 * SEC_US);
    assert_int_equal(ctl_switches_forget(cs, 2 * SEC_US + 2 * AFTER_US, AFTER_US), 0);
    assert_non_null(ctl_switches_find(cs, DPID));
    assert_int_equal(stats(cs).forgotten, 0);
    ctl_switches_destroy(cs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_up_then_down),
        cmocka_unit_test(test_stale_down_ignored),
        cmocka_unit_test(test_forgotten_after_the_interval),
        cmocka_unit_test(test_back_up_is_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
