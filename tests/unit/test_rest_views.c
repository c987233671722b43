/* Unit tests of the REST answers over the control thread's switch view
 * (rest_switches.c): GET /api/v1/switches and /api/v1/switches/{dpid}
 * copy what they show under the view's lock and build their JSON after
 * letting it go, so the control thread never waits for a renderer; and
 * /metrics' per-switch families list every switch. The lock here is a
 * flag; jansson's allocator counts what is made while it is set. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "sw_view.h"
#include "rest_priv.h"
#include "view_watch.h"

/* dpid comes up with n_ports ports. */
static void switch_up(struct sw_view *cs, uint64_t dpid, uint32_t n_ports)
{
    struct of_event_hdr h = {.dpid = dpid, .time_us = 1};
    struct of_event_up up = {.version = 4, .n_ports = n_ports};
    size_t len = sizeof(h) + sizeof(up) + n_ports * sizeof(struct ofp_port);
    struct qmsg *q = calloc(1, sizeof(*q) + len);

    assert_non_null(q);
    q->kind = QMSG_EV_SWITCH_UP;
    q->conn = dpid;
    q->len = (uint32_t)len;
    memcpy(q->data, &h, sizeof(h));
    memcpy(q->data + sizeof(h), &up, sizeof(up));
    for (uint32_t i = 0; i < n_ports; i++) {
        struct ofp_port p = {.port_no = i + 1, .name = "p"};
        memcpy(q->data + sizeof(h) + sizeof(up) + i * sizeof(p), &p, sizeof(p));
    }
    sw_view_handle(cs, q);
    free(q);
}

static int setup(void **state)
{
    struct view_watch *v = calloc(1, sizeof(*v));
    assert_non_null(v);
    v->cs = sw_view_create(NULL);
    assert_non_null(v->cs);
    for (uint64_t d = 1; d <= 40; d++)
        switch_up(v->cs, 0x3000 + d, 3);
    view_watch_begin(v);
    *state = v;
    return 0;
}

static int teardown(void **state)
{
    struct view_watch *v = *state;
    view_watch_end();
    sw_view_destroy(v->cs);
    free(v);
    return 0;
}

static void request(struct view_watch *v, struct rest_server *rs, struct rest_req *q)
{
    memset(rs, 0, sizeof(*rs));
    rs->src.arg = v;
    rs->src.switches_lock = view_watch_lock;
    rs->src.switches_unlock = view_watch_unlock;
    memset(q, 0, sizeof(*q));
    q->rs = rs;
    q->method = "GET";
}

static void test_list_rendered_outside_the_lock(void **state)
{
    struct view_watch *v = *state;
    struct rest_server rs;
    struct rest_req q;
    struct rest_reply r = {0};

    request(v, &rs, &q);
    q.path = "/api/v1/switches";
    rest_get_switches(&q, &r);
    assert_non_null(r.json);
    json_t *list = json_object_get(r.json, "switches");
    assert_int_equal(json_array_size(list), 40);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(list, 0), "n_ports")), 3);
    assert_false(v->locked);
    assert_int_equal(v->json_allocs_locked, 0);
    json_decref(r.json);
}

static void test_one_switch_rendered_outside_the_lock(void **state)
{
    struct view_watch *v = *state;
    struct rest_server rs;
    struct rest_req q;
    struct rest_reply r = {0};

    request(v, &rs, &q);
    q.path = "/api/v1/switches/00:00:00:00:00:00:30:07";
    q.arg = "00:00:00:00:00:00:30:07";
    rest_get_switch(&q, &r);
    assert_non_null(r.json);
    assert_int_equal(json_array_size(json_object_get(r.json, "ports")), 3);
    assert_false(v->locked);
    assert_int_equal(v->json_allocs_locked, 0);
    json_decref(r.json);
    /* One not known: 404, the lock let go. */
    struct rest_reply r2 = {0};
    q.arg = "00:00:00:00:00:00:99:99";
    rest_get_switch(&q, &r2);
    assert_int_equal(r2.status, 404);
    assert_false(v->locked);
    json_decref(r2.json);
}

static void no_rings(void *arg, rest_ring_fn fn, void *fn_arg)
{
    (void)arg;
    (void)fn;
    (void)fn_arg;
}

static void no_counters(void *arg, ofcd_counter_fn fn, void *fn_arg)
{
    (void)arg;
    (void)fn;
    (void)fn_arg;
}

/* /metrics: a line per switch in each per-switch family, the lock let go. */
static void test_metrics_lists_every_switch(void **state)
{
    struct view_watch *v = *state;
    struct rest_server rs;
    struct rest_req q;
    struct rest_reply r = {0};

    request(v, &rs, &q);
    rs.src.rings = no_rings;
    rs.src.counters = no_counters;
    q.path = "/metrics";
    rest_get_metrics(&q, &r);
    assert_non_null(r.text);
    assert_false(v->locked);
    unsigned lines = 0;
    for (const char *p = r.text; (p = strstr(p, "ofcd_switch_ports{dpid=")); p++)
        lines++;
    assert_int_equal(lines, 40);
    assert_non_null(strstr(r.text, "ofcd_switch_ports{dpid=\"00:00:00:00:00:00:30:07\"} 3\n"));
    free(r.text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_list_rendered_outside_the_lock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_switch_rendered_outside_the_lock, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_metrics_lists_every_switch, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
