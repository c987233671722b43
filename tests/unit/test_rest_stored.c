/*
 * test_rest_stored: what the flow store holds, as a client reads it
 * (rest_stored.c) over HTTP with a real flow manager and LMDB store
 * (rest_fixture.h): GET v2/stored_flows in Kytos-ng's shape and order
 * (by switch; priority descending, then updated_at ascending), its
 * filters (dpid and state repeated, cookie_range pairs from the query or
 * a JSON body), a 400 naming a bad argument, a long answer streamed in
 * pieces with each record exactly once; GET /api/v1/switches/{dpid}/flows
 * without the deleted ones, 404 for a switch not known.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rest_fixture.h"

#define FM "/api/kytos/flow_manager/v2"
#define SW1 "00:00:00:00:00:00:10:01"
#define SW2 "00:00:00:00:00:00:10:02"
#define SW3 "00:00:00:00:00:00:10:03"
#define MANY 1200

static int setup(void **state)
{
    const struct rest_fixture_cfg cfg = {.queue_max = 5000};
    struct rest_fixture *f = rest_fixture_new(&cfg);

    rest_fixture_switch_up(f, 0x1001);
    rest_fixture_switch_up(f, 0x1002);
    *state = f;
    return 0;
}

static void post(struct rest_fixture *f, const char *path, const char *body)
{
    struct rest_answer a;
    rest_fixture_http(f, "POST", path, body, &a);
    if (a.status != 202)
        fail_msg("POST %s %s: %u %s", path, body, a.status, a.body);
    rest_answer_free(&a);
}

/* On SW1: priorities 10 (cookie 0x10), 30 (0x30), 20 (0x20), posted in
 * that order, each alone so their updated_at differ; 20 again on another
 * match (cookie 0x21) after them; on SW2: one flow, then deleted. */
static void fill(struct rest_fixture *f)
{
    static const struct {
        unsigned prio, port, cookie;
    } fl[] = {{10, 1, 0x10}, {30, 2, 0x30}, {20, 3, 0x20}, {20, 4, 0x21}};
    char body[256];

    for (size_t i = 0; i < sizeof(fl) / sizeof(fl[0]); i++) {
        snprintf(body, sizeof(body), "{\"flows\": [{\"priority\": %u, \"cookie\": %u, "
                 "\"match\": {\"in_port\": %u}}]}", fl[i].prio, fl[i].cookie, fl[i].port);
        post(f, FM "/flows/" SW1, body);
    }
    post(f, FM "/flows/" SW2, "{\"flows\": [{\"priority\": 5, \"match\": {\"in_port\": 1}}]}");
    struct rest_answer a;
    rest_fixture_http(f, "DELETE", FM "/flows/" SW2, "{\"flows\": [{\"match\": {}}]}", &a);
    assert_int_equal(a.status, 202);
    rest_answer_free(&a);
}

/* GET path: 200 and the JSON object. */
static json_t *get(struct rest_fixture *f, const char *path)
{
    struct rest_answer a;
    rest_fixture_http(f, "GET", path, NULL, &a);
    if (a.status != 200 || !json_is_object(a.json))
        fail_msg("GET %s: %u %s", path, a.status, a.body);
    json_t *j = json_incref(a.json);
    rest_answer_free(&a);
    return j;
}

/* The cookies of dpid's records in the answer, in order, as "0x10,0x30". */
static void cookies_of(const json_t *list, char *out, size_t n)
{
    size_t i, k = 0;
    json_t *rec;

    out[0] = '\0';
    json_array_foreach(list, i, rec) {
        json_int_t c = json_integer_value(json_object_get(json_object_get(rec, "flow"),
                                                          "cookie"));
        k += (size_t)snprintf(out + k, n - k, "%s0x%llx", i ? "," : "", (long long)c);
    }
}

static void test_listing_shape_and_order(void **state)
{
    struct rest_fixture *f = *state;
    char got[128];

    fill(f);
    json_t *j = get(f, FM "/stored_flows");
    assert_int_equal(json_object_size(j), 2);
    json_t *l1 = json_object_get(j, SW1);
    assert_int_equal(json_array_size(l1), 4);
    /* Priority descending; of the two at 20, the older first. */
    cookies_of(l1, got, sizeof(got));
    assert_string_equal(got, "0x30,0x20,0x21,0x10");
    json_t *rec = json_array_get(l1, 0);
    assert_string_equal(json_string_value(json_object_get(rec, "switch")), SW1);
    assert_string_equal(json_string_value(json_object_get(rec, "state")), "pending");
    assert_int_equal(strlen(json_string_value(json_object_get(rec, "id"))), 16);
    assert_int_equal(strlen(json_string_value(json_object_get(rec, "flow_id"))), 16);
    const char *ins = json_string_value(json_object_get(rec, "inserted_at"));
    assert_non_null(ins);
    assert_int_equal(strlen(ins), strlen("2026-01-01T00:00:00.000000Z"));
    assert_int_equal(ins[strlen(ins) - 1], 'Z');
    assert_null(json_object_get(rec, "deleted_at"));
    /* The flow as the client sent it. */
    assert_int_equal(json_integer_value(json_object_get(json_object_get(
                         json_object_get(rec, "flow"), "match"), "in_port")), 2);
    /* The deleted one: listed, state deleted, with deleted_at. */
    rec = json_array_get(json_object_get(j, SW2), 0);
    assert_string_equal(json_string_value(json_object_get(rec, "state")), "deleted");
    assert_non_null(json_string_value(json_object_get(rec, "deleted_at")));
    json_decref(j);
}

static size_t count(struct rest_fixture *f, const char *query)
{
    char path[512];
    const char *dp;
    json_t *list;
    size_t n = 0;

    snprintf(path, sizeof(path), FM "/stored_flows%s", query);
    json_t *j = get(f, path);
    json_object_foreach(j, dp, list)
        n += json_array_size(list);
    json_decref(j);
    return n;
}

static void test_filters(void **state)
{
    struct rest_fixture *f = *state;
    struct rest_answer a;

    fill(f);
    assert_int_equal(count(f, ""), 5);
    assert_int_equal(count(f, "?dpid=" SW1), 4);
    assert_int_equal(count(f, "?dpid=" SW2), 1);
    assert_int_equal(count(f, "?dpid=" SW1 "&dpid=" SW2), 5);
    assert_int_equal(count(f, "?dpid=0000000000001001"), 4);    /* hex without colons */
    assert_int_equal(count(f, "?dpid=" SW3), 0);                /* none stored: nothing */
    assert_int_equal(count(f, "?state=pending"), 4);
    assert_int_equal(count(f, "?state=deleted"), 1);
    assert_int_equal(count(f, "?state=pending&state=deleted"), 5);
    assert_int_equal(count(f, "?state=installed"), 0);
    assert_int_equal(count(f, "?state=nonsense"), 0);           /* matches nothing, as Kytos */
    assert_int_equal(count(f, "?dpid=" SW2 "&state=pending"), 0);
    assert_int_equal(count(f, "?cookie_range=32&cookie_range=33"), 2);     /* 0x20, 0x21 */
    assert_int_equal(count(f, "?cookie_range=16&cookie_range=16&cookie_range=48"
                             "&cookie_range=48"), 2);
    assert_int_equal(count(f, "?whatever=1"), 5);               /* unknown: ignored */
    /* A JSON body's cookie_range replaces the query's (a string or a real read as
     * Python's int() reads them). */
    rest_fixture_http(f, "GET", FM "/stored_flows?cookie_range=0&cookie_range=0",
                      "{\"cookie_range\": [\"48\", 48.9]}", &a);
    assert_int_equal(a.status, 200);
    assert_int_equal(json_array_size(json_object_get(a.json, SW1)), 1);
    rest_answer_free(&a);

    /* Bad arguments: 400 naming them. */
    static const struct {
        const char *query, *body, *words;
    } bad[] = {
        {"?dpid=xyz", NULL, "query argument dpid: not a dpid"},
        {"?cookie_range=abc&cookie_range=1", NULL, "query argument cookie_range: couldn't be"},
        {"?cookie_range=1", NULL, "cookie_range: expected an even number"},
        {"", "{\"cookie_range\": [1]}", "body field cookie_range: expected an even number"},
        {"", "{\"cookie_range\": [{}, 1]}", "body field cookie_range: couldn't be cast"},
        {"", "{\"cookie_range\": ", "failed to decode json body"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char path[256];
        snprintf(path, sizeof(path), FM "/stored_flows%s", bad[i].query);
        rest_fixture_http(f, "GET", path, bad[i].body, &a);
        if (a.status != 400 || !strstr(rest_answer_description(&a), bad[i].words))
            fail_msg("GET %s %s: %u %s, expected 400 saying '%s'", path,
                     bad[i].body ? bad[i].body : "", a.status, a.body, bad[i].words);
        rest_answer_free(&a);
    }
}

/* MANY flows on one switch: the answer comes in pieces, every record in
 * it once, in order. */
static void test_long_answer_streamed(void **state)
{
    struct rest_fixture *f = *state;
    size_t cap = MANY * 96 + 64, n = 0;
    char *body = malloc(cap);
    struct rest_answer a;

    assert_non_null(body);
    n += (size_t)snprintf(body + n, cap - n, "{\"flows\": [");
    for (unsigned i = 0; i < MANY; i++)
        n += (size_t)snprintf(body + n, cap - n, "%s{\"priority\": %u, \"cookie\": %u, "
                              "\"match\": {\"in_port\": %u}}", i ? ", " : "", 1000 + i % 7, i,
                              i + 1);
    snprintf(body + n, cap - n, "]}");
    post(f, FM "/flows/" SW1, body);
    free(body);

    rest_fixture_http(f, "GET", FM "/stored_flows?dpid=" SW1, NULL, &a);
    assert_int_equal(a.status, 200);
    assert_true(a.chunks > 1);
    json_t *list = json_object_get(a.json, SW1);
    assert_int_equal(json_array_size(list), MANY);
    unsigned char *seen = calloc(MANY, 1);
    assert_non_null(seen);
    json_int_t last_prio = 65536;
    size_t i;
    json_t *rec;
    json_array_foreach(list, i, rec) {
        json_t *fl = json_object_get(rec, "flow");
        json_int_t c = json_integer_value(json_object_get(fl, "cookie"));
        json_int_t p = json_integer_value(json_object_get(fl, "priority"));
        assert_true(c >= 0 && c < MANY);
        assert_int_equal(seen[c]++, 0);
        assert_true(p <= last_prio);
        last_prio = p;
    }
    free(seen);
    rest_answer_free(&a);

    /* The switch's own listing streams the same records. */
    rest_fixture_http(f, "GET", "/api/v1/switches/" SW1 "/flows", NULL, &a);
    assert_int_equal(a.status, 200);
    assert_true(a.chunks > 1);
    assert_int_equal(json_array_size(json_object_get(a.json, "flows")), MANY);
    rest_answer_free(&a);
}

static void test_switch_flows(void **state)
{
    struct rest_fixture *f = *state;
    struct rest_answer a;

    fill(f);
    json_t *j = get(f, "/api/v1/switches/" SW1 "/flows");
    assert_string_equal(json_string_value(json_object_get(j, "dpid")), SW1);
    assert_int_equal(json_array_size(json_object_get(j, "flows")), 4);
    json_decref(j);
    /* SW2's only flow is deleted: not listed here (stored_flows has it). */
    j = get(f, "/api/v1/switches/" SW2 "/flows");
    assert_int_equal(json_array_size(json_object_get(j, "flows")), 0);
    json_decref(j);
    rest_fixture_http(f, "GET", "/api/v1/switches/" SW3 "/flows", NULL, &a);
    assert_int_equal(a.status, 404);
    assert_non_null(strstr(rest_answer_description(&a), "switch " SW3 " is not known"));
    rest_answer_free(&a);
    /* Nothing stored at all: an empty object. */
    rest_fixture_http(f, "GET", FM "/stored_flows?dpid=" SW3, NULL, &a);
    assert_int_equal(a.status, 200);
    assert_string_equal(a.body, "{}");
    rest_answer_free(&a);
}

/* A case on a fixture of its own (setup above). */
#define CASE(fn) cmocka_unit_test_setup_teardown(fn, setup, rest_fixture_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        CASE(test_listing_shape_and_order),
        CASE(test_filters),
        CASE(test_long_answer_streamed),
        CASE(test_switch_flows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
