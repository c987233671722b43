/*
 * test_events_pub: the flow manager's events (typed, struct fm_event)
 * on the event stream as a client reads them. Each kind goes through
 * events_pub_flow into a real hub (rest_events.c) and the client's text is
 * compared byte for byte with what the stream carried when the flow
 * manager built the JSON itself (dcf1693's json_pack calls, run with the
 * same values): same kinds, same members in the same order, the same
 * spellings (dpid, match_id and cookie as text, counts past 2^63 as jansson
 * wrote them), so no client of GET /api/v1/events sees a change.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "events_pub.h"
#include "fm.h"
#include "rest_events.h"

struct ev_case {
    struct fm_event ev;
    const char *text;                 /* the SSE text, as it was */
};

#define D1 0x1001ull

static const struct ev_case cases[] = {
    {{.kind = FM_EV_INSTALLED, .dpid = D1, .u.installed = {.count = 3}},
     "event: flow.installed\n"
     "data: {\"dpid\":\"00:00:00:00:00:00:10:01\",\"count\":3}\n\n"},
    {{.kind = FM_EV_INSTALLED, .dpid = UINT64_MAX, .u.installed = {.count = 4096}},
     "event: flow.installed\n"
     "data: {\"dpid\":\"ff:ff:ff:ff:ff:ff:ff:ff\",\"count\":4096}\n\n"},
    {{.kind = FM_EV_ERROR, .dpid = D1,
      .u.error = {.match_id = 0x0123456789abcdefull, .type = 2, .code = 9,
                  .reason = "BAD_ACTION: BAD_OUT_GROUP \"q\""}},
     "event: flow.error\n"
     "data: {\"dpid\":\"00:00:00:00:00:00:10:01\",\"match_id\":\"0123456789abcdef\","
     "\"type\":2,\"code\":9,\"reason\":\"BAD_ACTION: BAD_OUT_GROUP \\\"q\\\"\"}\n\n"},
    {{.kind = FM_EV_ERROR, .dpid = D1,
      .u.error = {.match_id = 0xfedcba9876543210ull, .type = 65535, .code = 65535,
                  .reason = ""}},
     "event: flow.error\n"
     "data: {\"dpid\":\"00:00:00:00:00:00:10:01\",\"match_id\":\"fedcba9876543210\","
     "\"type\":65535,\"code\":65535,\"reason\":\"\"}\n\n"},
    {{.kind = FM_EV_REMOVED, .dpid = D1,
      .u.removed = {.match_id = 0x0123456789abcdefull, .stored = true, .cookie = 0x1234,
                    .table_id = 0, .priority = 9, .reason = 1, .duration_s = 7,
                    .packet_count = 3, .byte_count = 180}},
     "event: flow.removed\n"
     "data: {\"dpid\":\"00:00:00:00:00:00:10:01\",\"match_id\":\"0123456789abcdef\","
     "\"stored\":true,\"cookie\":\"0x1234\",\"table_id\":0,\"priority\":9,"
     "\"reason\":\"hard_timeout\",\"duration_s\":7,\"packet_count\":3,\"byte_count\":180}\n\n"},
    {{.kind = FM_EV_REMOVED, .dpid = D1,
      .u.removed = {.match_id = 1, .stored = false, .cookie = 0, .table_id = 254,
                    .priority = 65535, .reason = 9}},
     "event: flow.removed\n"
     "data: {\"dpid\":\"00:00:00:00:00:00:10:01\",\"match_id\":\"0000000000000001\","
     "\"stored\":false,\"cookie\":\"0\",\"table_id\":254,\"priority\":65535,"
     "\"reason\":\"unknown\",\"duration_s\":0,\"packet_count\":0,\"byte_count\":0}\n\n"},
    {{.kind = FM_EV_REMOVED, .dpid = D1,
      .u.removed = {.match_id = UINT64_MAX, .stored = true, .cookie = 0xff00000000000001ull,
                    .table_id = 3, .priority = 0, .reason = 5, .duration_s = 4294967295u,
                    .packet_count = 0x8000000000000005ull, .byte_count = UINT64_MAX}},
     "event: flow.removed\n"
     "data: {\"dpid\":\"00:00:00:00:00:00:10:01\",\"match_id\":\"ffffffffffffffff\","
     "\"stored\":true,\"cookie\":\"0xff00000000000001\",\"table_id\":3,\"priority\":0,"
     "\"reason\":\"eviction\",\"duration_s\":4294967295,"
     "\"packet_count\":-9223372036854775803,\"byte_count\":-1}\n\n"},
    {{.kind = FM_EV_DELETED, .dpid = D1, .u.deleted = {.count = 1}},
     "event: flow.deleted\n"
     "data: {\"dpid\":\"00:00:00:00:00:00:10:01\",\"count\":1}\n\n"},
    {{.kind = FM_EV_CONSISTENCY, .dpid = D1,
      .u.consistency = {.after_connect = true, .aliens_deleted = 1, .missing_reinstalled = 2,
                        .changed_reinstalled = 0}},
     "event: consistency\n"
     "data: {\"dpid\":\"00:00:00:00:00:00:10:01\",\"after_connect\":true,"
     "\"aliens_deleted\":1,\"missing_reinstalled\":2,\"changed_reinstalled\":0}\n\n"},
    {{.kind = FM_EV_CONSISTENCY, .dpid = D1,
      .u.consistency = {.after_connect = false, .changed_reinstalled = 100000}},
     "event: consistency\n"
     "data: {\"dpid\":\"00:00:00:00:00:00:10:01\",\"after_connect\":false,"
     "\"aliens_deleted\":0,\"missing_reinstalled\":0,\"changed_reinstalled\":100000}\n\n"},
};

static void no_wake(void *conn)
{
    (void)conn;
}

static const struct rest_events_io io = {.wake = no_wake};

static void test_flow_events_as_before(void **state)
{
    (void)state;
    char buf[1024];
    struct rest_events *h = rest_events_create(2, 1 << 16);
    struct rest_events_client *c = rest_events_join(h, NULL, "test", &io, NULL);

    assert_non_null(c);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        events_pub_flow(h, &cases[i].ev);
        ssize_t n = rest_events_read(c, buf, sizeof(buf) - 1);
        assert_true(n > 0);
        buf[n] = '\0';
        if (strcmp(buf, cases[i].text))
            fail_msg("case %zu:\n got: %s\nwant: %s", i, buf, cases[i].text);
    }
    rest_events_leave(c);
    rest_events_destroy(h);
}

/* The kinds a ?kinds= filter sees: flow.* and consistency, as before. */
static void test_kinds_filter(void **state)
{
    (void)state;
    char buf[1024];
    struct rest_events *h = rest_events_create(2, 1 << 16);
    struct rest_events_client *c = rest_events_join(h, "consistency", "test", &io, NULL);

    assert_non_null(c);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        events_pub_flow(h, &cases[i].ev);
    char want[1024];
    snprintf(want, sizeof(want), "%s%s", cases[8].text, cases[9].text);
    ssize_t n = rest_events_read(c, buf, sizeof(buf) - 1);
    assert_true(n > 0);
    buf[n] = '\0';
    assert_string_equal(buf, want);
    rest_events_leave(c);
    /* No hub (the stream is off): nothing happens. */
    events_pub_flow(NULL, &cases[0].ev);
    rest_events_destroy(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flow_events_as_before),
        cmocka_unit_test(test_kinds_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
