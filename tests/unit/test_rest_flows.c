/*
 * test_rest_flows: the Kytos-ng flow_manager v2 changes (rest_flows.c) as
 * a client sees them, over HTTP on a loopback port with a real flow
 * manager and LMDB store (rest_fixture.h): a valid POST is 202 once
 * stored, listed by stored_flows and sent to the switch; each malformed
 * field is a 400 naming it, with nothing stored; an unknown switch is 404,
 * one not connected 424 unless "force"; a full switch queue or store, or
 * no flow manager, is 503 with Retry-After; a DELETE marks the stored
 * flows deleted and sends the DELETE.
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
#include "store.h"

#define FM "/api/kytos/flow_manager/v2"
#define SW1 "00:00:00:00:00:00:10:01"
#define SW2 "00:00:00:00:00:00:10:02"
#define FLOW(prio, port) "{\"priority\": " #prio ", \"match\": {\"in_port\": " #port "}, " \
    "\"actions\": [{\"action_type\": \"output\", \"port\": 9}]}"

static int setup(void **state)
{
    const struct rest_fixture_cfg cfg = {0};
    struct rest_fixture *f = rest_fixture_new(&cfg);

    rest_fixture_switch_up(f, 0x1001);
    *state = f;
    return 0;
}

/* The status of one request, its answer freed. */
static unsigned status_of(struct rest_fixture *f, const char *method, const char *path,
                          const char *body)
{
    struct rest_answer a;
    rest_fixture_http(f, method, path, body, &a);
    unsigned st = a.status;
    rest_answer_free(&a);
    return st;
}

/* How many stored flows the query lists, over every switch. */
static size_t stored(struct rest_fixture *f, const char *query)
{
    struct rest_answer a;
    char path[256];
    const char *dp;
    json_t *list;
    size_t n = 0;

    snprintf(path, sizeof(path), FM "/stored_flows%s", query);
    rest_fixture_http(f, "GET", path, NULL, &a);
    assert_int_equal(a.status, 200);
    assert_true(json_is_object(a.json));
    json_object_foreach(a.json, dp, list)
        n += json_array_size(list);
    rest_answer_free(&a);
    return n;
}

static void expect_error(struct rest_fixture *f, const char *method, const char *path,
                         const char *body, unsigned status, const char *words)
{
    struct rest_answer a;
    rest_fixture_http(f, method, path, body, &a);
    if (a.status != status)
        fail_msg("%s %s %s: %u, expected %u: %s", method, path, body ? body : "", a.status,
                 status, a.body);
    const char *d = rest_answer_description(&a);
    if (!strstr(d, words))
        fail_msg("%s %s %s: '%s' does not say '%s'", method, path, body ? body : "", d, words);
    rest_answer_free(&a);
}

static void test_post_is_stored_then_sent(void **state)
{
    struct rest_fixture *f = *state;
    struct rest_answer a;

    rest_fixture_http(f, "POST", FM "/flows/" SW1,
                      "{\"flows\": [" FLOW(100, 1) ", " FLOW(200, 2) "]}", &a);
    assert_int_equal(a.status, 202);
    assert_string_equal(json_string_value(json_object_get(a.json, "response")),
                        "FlowMod Messages Sent");
    rest_answer_free(&a);
    /* Durable before the 202: listed at once, pending until a barrier. */
    assert_int_equal(stored(f, "?dpid=" SW1 "&state=pending"), 2);
    rest_fixture_http(f, "GET", FM "/stored_flows?dpid=" SW1, NULL, &a);
    json_t *rec = json_array_get(json_object_get(a.json, SW1), 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(rec, "flow"),
                                                        "priority")), 200);
    assert_string_equal(json_string_value(json_object_get(rec, "switch")), SW1);
    rest_answer_free(&a);
    /* Queued for the switch: the next wake-up sends both ADDs. */
    assert_int_equal(rest_fixture_tick(f), 2);
    assert_int_equal(f->flow_mod_adds, 2);

    /* The same through flows_by_switch and Kytos' flow_mods alias. */
    assert_int_equal(status_of(f, "POST", FM "/flows_by_switch",
                               "{\"" SW1 "\": {\"flows\": [" FLOW(300, 3) "]}}"), 202);
    assert_int_equal(status_of(f, "POST", FM "/flow_mods/" SW1,
                               "{\"flows\": [" FLOW(400, 4) "]}"), 202);
    /* Without a dpid: every known switch. */
    assert_int_equal(status_of(f, "POST", FM "/flows", "{\"flows\": [" FLOW(500, 5) "]}"), 202);
    assert_int_equal(stored(f, "?dpid=" SW1), 5);
    assert_int_equal(rest_fixture_tick(f), 5);
    /* The same match again replaces the stored flow (Kytos' match_id). */
    assert_int_equal(status_of(f, "POST", FM "/flows/" SW1,
                               "{\"flows\": [{\"priority\": 100, \"match\": {\"in_port\": 1}, "
                               "\"actions\": []}]}"), 202);
    assert_int_equal(stored(f, "?dpid=" SW1), 5);
}

/* flow_manager.durability = async: a change is answered once queued (as
 * Kytos answers before its database write), stored and sent once its
 * commit is done; a change the store then refuses was answered 202 all
 * the same and is not there (the risk the option takes, said in the log
 * and the store's failed commits); a malformed one is still a 400, and
 * the server stops only once every queued change's commit is done. */
static void test_async_answers_once_queued(void **state)
{
    struct rest_fixture f;
    struct rest_fixture_cfg cfg = {.answer_queued = true, .store_map = 256 * 1024,
                                   .queue_max = 100000};
    struct rest_answer a;

    (void)state;
    rest_fixture_start(&f, &cfg);
    rest_fixture_switch_up(&f, 0x1001);
    rest_fixture_http(&f, "POST", FM "/flows/" SW1,
                      "{\"flows\": [" FLOW(100, 1) ", " FLOW(200, 2) "]}", &a);
    assert_int_equal(a.status, 202);
    rest_answer_free(&a);
    assert_int_equal(store_sync(f.store), 0);
    assert_int_equal(stored(&f, "?dpid=" SW1 "&state=pending"), 2);
    assert_int_equal(rest_fixture_tick(&f), 2);
    assert_int_equal(status_of(&f, "POST", FM "/flows/" SW1, "{\"flows\": [{\"priority\": -1}]}"),
                     400);
    assert_int_equal(status_of(&f, "DELETE", FM "/flows/" SW1,
                               "{\"flows\": [{\"priority\": 100, \"match\": {\"in_port\": 1}}]}"),
                     202);
    assert_int_equal(store_sync(f.store), 0);
    assert_int_equal(stored(&f, "?dpid=" SW1 "&state=deleted"), 1);

    /* Past the store's size: still 202, then not stored. */
    char *body = malloc(400 * 64 + 64);
    assert_non_null(body);
    unsigned refused = 0;
    for (unsigned round = 0; round < 64; round++) {
        size_t n = (size_t)sprintf(body, "{\"flows\": [");
        for (unsigned i = 0; i < 400; i++)
            n += (size_t)sprintf(body + n, "%s{\"priority\": %u, \"match\": {\"in_port\": %u}}",
                                 i ? ", " : "", round + 10, i + 1);
        sprintf(body + n, "]}");
        assert_int_equal(status_of(&f, "POST", FM "/flows/" SW1, body), 202);
    }
    free(body);
    assert_int_equal(store_sync(f.store), 0);
    size_t kept = stored(&f, "?dpid=" SW1);
    refused = 64 * 400 + 2 - (unsigned)kept;
    assert_true(refused > 0);
    /* Answered before their commits: no stage of theirs is timed. */
    rest_fixture_http(&f, "GET", "/metrics", NULL, &a);
    assert_non_null(strstr(a.body, "ofcd_rest_change_stage_seconds_count{stage=\"commit\"} 0\n"));
    rest_answer_free(&a);
    rest_fixture_stop(&f);
}

/* Every malformed part of a request: 400 naming it, nothing stored. */
static void test_malformed_field_is_named(void **state)
{
    struct rest_fixture *f = *state;
    static const struct {
        const char *path, *body, *words;
    } bad[] = {
        {FM "/flows/" SW1, "{\"flows\": [", "not valid JSON"},
        {FM "/flows/" SW1, "{\"flows\": [" FLOW(1, 1) "], \"force\": tru}",
         "not valid JSON: invalid token"},
        {FM "/flows/" SW1, "{\"flows\": [" FLOW(1, 1) "]} {}", "not valid JSON: end of file"},
        {FM "/flows/" SW1, "[1, 2]", "body must be a JSON object"},
        {FM "/flows/" SW1, "{\"flows\": [{\"priority\": 1, \"cookie\": 18446744073709551616}]}",
         "flows[0]: cookie: FlowMod.cookie is out of range"},
        {FM "/flows/" SW1, "{}", "flows: required"},
        {FM "/flows/" SW1, "{\"flows\": {}}", "flows: must be an array"},
        {FM "/flows/" SW1, "{\"flows\": [{}]}", "flows: is empty"},
        {FM "/flows/" SW1, "{\"flows\": [" FLOW(1, 1) "], \"bogus\": 1}",
         "unknown field 'bogus'"},
        {FM "/flows/" SW1, "{\"flows\": [" FLOW(1, 1) "], \"force\": \"yes\"}", "force:"},
        {FM "/flows/" SW1, "{\"flows\": [" FLOW(1, 1) "], \"switches\": [\"" SW1 "\"]}",
         "switches: not allowed"},
        {FM "/flows", "{\"flows\": [" FLOW(1, 1) "], \"switches\": \"" SW1 "\"}",
         "switches: must be an array"},
        {FM "/flows", "{\"flows\": [" FLOW(1, 1) "], \"switches\": [\"zz\"]}",
         "switches[0]: not a dpid"},
        {FM "/flows/" SW1, "{\"flows\": [" FLOW(1, 1) ", 7]}", "flows[1]: must be a flow"},
        {FM "/flows/" SW1, "{\"flows\": [{\"priority\": 1, \"match\": {\"nw_src\": \"1.2.3\"}}]}",
         "flows[0]: invalid value for 'match.nw_src'"},
        {FM "/flows/" SW1, "{\"flows\": [{\"priority\": 1, \"match\": {\"in_prot\": 1}}]}",
         "flows[0]: unknown field 'match.in_prot'"},
        {FM "/flows/" SW1, "{\"flows\": [{\"priority\": \"high\"}]}",
         "flows[0]: wrong type for 'priority'"},
        {FM "/flows/" SW1, "{\"flows\": [{\"priority\": 1, \"actions\": "
         "[{\"action_type\": \"output\"}]}]}", "flows[0]: actions[0]: missing field 'port'"},
        {FM "/flows/not-a-dpid", "{\"flows\": [" FLOW(1, 1) "]}", "not-a-dpid"},
        {FM "/flows_by_switch", "{\"zz\": {\"flows\": [" FLOW(1, 1) "]}}", "'zz': not a dpid"},
        {FM "/flows_by_switch", "{\"" SW1 "\": [1]}", SW1 ": must be an object"},
        {FM "/flows_by_switch", "{\"" SW1 "\": {\"flows\": [" FLOW(1, 1) "], \"x\": 1}}",
         "unknown field '" SW1 ".x'"},
        {FM "/flows_by_switch", "{\"" SW1 "\": {\"flows\": [{\"priority\": -1}]}}",
         SW1 ".flows[0]: invalid value for 'priority'"},
        {FM "/flows_by_switch", "{}", "no switch given"},
        {FM "/flows_by_switch?force=maybe", "{\"" SW1 "\": {\"flows\": [" FLOW(1, 1) "]}}",
         "Parameter force"},
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        expect_error(f, "POST", bad[i].path, bad[i].body, 400, bad[i].words);
        expect_error(f, "DELETE", bad[i].path, bad[i].body, 400, bad[i].words);
    }
    assert_int_equal(stored(f, ""), 0);
    assert_int_equal(rest_fixture_tick(f), 0);

    /* Not JSON by its Content-Type: 415, before the body is looked at. */
    struct rest_answer a;
    rest_fixture_http_ct(f, "POST", FM "/flows/" SW1, "text/plain",
                         "{\"flows\": [" FLOW(1, 1) "]}", &a);
    assert_int_equal(a.status, 415);
    rest_answer_free(&a);
    assert_int_equal(stored(f, ""), 0);
}

static void test_unknown_and_down_switches(void **state)
{
    struct rest_fixture *f = *state;
    const char *one = "{\"flows\": [" FLOW(1, 1) "]}";

    expect_error(f, "POST", FM "/flows/" SW2, one, 404, "switch " SW2 " is not known");
    expect_error(f, "DELETE", FM "/flows/" SW2, one, 404, "is not known");
    expect_error(f, "POST", FM "/flows", "{\"flows\": [" FLOW(1, 1) "], \"switches\": [\""
                 SW1 "\", \"" SW2 "\"]}", 404, SW2);
    expect_error(f, "POST", FM "/flows_by_switch", "{\"" SW2 "\": {\"flows\": [" FLOW(1, 1)
                 "]}}", 404, SW2);
    assert_int_equal(stored(f, ""), 0);

    /* Known but down: 424 unless forced; forced, stored and not sent. */
    rest_fixture_switch_down(f, 0x1001);
    expect_error(f, "POST", FM "/flows/" SW1, one, 424, "not connected");
    expect_error(f, "POST", FM "/flows", one, 424, "not connected");
    expect_error(f, "POST", FM "/flows_by_switch", "{\"" SW1 "\": {\"flows\": [" FLOW(1, 1)
                 "]}}", 424, "not connected");
    assert_int_equal(stored(f, ""), 0);
    assert_int_equal(status_of(f, "POST", FM "/flows/" SW1,
                               "{\"flows\": [" FLOW(1, 1) "], \"force\": true}"), 202);
    assert_int_equal(status_of(f, "POST", FM "/flows_by_switch?force=true",
                               "{\"" SW1 "\": {\"flows\": [" FLOW(2, 2) "]}}"), 202);
    assert_int_equal(stored(f, "?dpid=" SW1 "&state=pending"), 2);
    assert_int_equal(rest_fixture_tick(f), 0);      /* nothing sent to a switch that is down */
}

static void test_no_switch_known(void **state)
{
    struct rest_fixture f;
    struct rest_fixture_cfg cfg = {0};

    (void)state;
    rest_fixture_start(&f, &cfg);
    expect_error(&f, "POST", FM "/flows", "{\"flows\": [" FLOW(1, 1) "]}", 424,
                 "no switch is known");
    expect_error(&f, "DELETE", FM "/flows", "{\"flows\": [" FLOW(1, 1) "]}", 424,
                 "no switch is known");
    rest_fixture_stop(&f);
}

/* The switch's queue (flow_manager.queue_max) and the request's size bound
 * what is admitted; a refusal stores nothing. */
static void test_queue_full_is_503(void **state)
{
    struct rest_fixture f;
    struct rest_fixture_cfg cfg = {.queue_max = 3, .max_flows_per_request = 4};
    struct rest_answer a;

    (void)state;
    rest_fixture_start(&f, &cfg);
    rest_fixture_switch_up(&f, 0x1001);
    rest_fixture_switch_up(&f, 0x1002);
    f.room = 0;                         /* the switches take nothing: the queue fills */
    assert_int_equal(status_of(&f, "POST", FM "/flows/" SW1, "{\"flows\": [" FLOW(1, 1) ", "
                               FLOW(2, 2) ", " FLOW(3, 3) "]}"), 202);
    rest_fixture_tick(&f);
    rest_fixture_http(&f, "POST", FM "/flows/" SW1, "{\"flows\": [" FLOW(4, 4) "]}", &a);
    assert_int_equal(a.status, 503);
    assert_true(a.retry_after > 0);
    assert_non_null(strstr(rest_answer_description(&a), "flow_manager.queue_max = 3"));
    rest_answer_free(&a);
    /* A delete needs room too. */
    expect_error(&f, "DELETE", FM "/flows/" SW1, "{\"flows\": [{\"match\": {\"in_port\": 1}}]}",
                 503, "queue_max");
    /* More than the queue can ever hold: 413, not worth a retry. */
    expect_error(&f, "POST", FM "/flows/" SW2, "{\"flows\": [" FLOW(1, 1) ", " FLOW(2, 2) ", "
                 FLOW(3, 3) ", " FLOW(4, 4) "]}", 413, "flow_manager.queue_max = 3");
    /* flows x switches past rest.max_flows_per_request: 413. */
    expect_error(&f, "POST", FM "/flows", "{\"flows\": [" FLOW(1, 1) ", " FLOW(2, 2) ", "
                 FLOW(3, 3) "]}", 413, "rest.max_flows_per_request = 4");
    assert_int_equal(stored(&f, "?dpid=" SW1), 3);
    assert_int_equal(stored(&f, "?dpid=" SW2), 0);
    /* Once the switch takes them, there is room again. */
    f.room = 1000;
    assert_int_equal(rest_fixture_tick(&f), 3);
    assert_int_equal(status_of(&f, "POST", FM "/flows/" SW1, "{\"flows\": [" FLOW(4, 4) "]}"),
                     202);
    rest_fixture_stop(&f);
}

/* A store that has no room left: 503 with Retry-After, nothing of the
 * request kept. */
static void test_store_full_is_503(void **state)
{
    struct rest_fixture f;
    struct rest_fixture_cfg cfg = {.queue_max = 100000, .store_map = 256 * 1024};
    char *body = malloc(400 * 64 + 64);
    struct rest_answer a;
    unsigned round, full = 0;

    (void)state;
    assert_non_null(body);
    rest_fixture_start(&f, &cfg);
    rest_fixture_switch_up(&f, 0x1001);
    for (round = 0; round < 64 && !full; round++) {
        size_t n = (size_t)sprintf(body, "{\"flows\": [");
        for (unsigned i = 0; i < 400; i++)
            n += (size_t)sprintf(body + n, "%s{\"priority\": %u, \"match\": {\"in_port\": %u}}",
                                 i ? ", " : "", round + 1, i + 1);
        sprintf(body + n, "]}");
        rest_fixture_http(&f, "POST", FM "/flows/" SW1, body, &a);
        if (a.status == 503) {
            assert_non_null(strstr(rest_answer_description(&a), "flow store is full"));
            assert_int_equal(a.retry_after, 60);
            full = round + 1;
        } else {
            assert_int_equal(a.status, 202);
        }
        rest_answer_free(&a);
    }
    free(body);
    assert_true(full > 1);
    /* The refused round left nothing: every earlier round whole. */
    assert_int_equal(stored(&f, ""), (full - 1) * 400);
    rest_fixture_stop(&f);
}

static void test_no_flow_manager_is_503(void **state)
{
    struct rest_fixture f;
    struct rest_fixture_cfg cfg = {.no_fm = true};

    (void)state;
    rest_fixture_start(&f, &cfg);
    expect_error(&f, "POST", FM "/flows/" SW1, "{\"flows\": [" FLOW(1, 1) "]}", 503,
                 "flow manager is not running");
    expect_error(&f, "DELETE", FM "/flows", "{\"flows\": [" FLOW(1, 1) "]}", 503,
                 "flow manager is not running");
    expect_error(&f, "POST", FM "/flows_by_switch", "{\"" SW1 "\": {\"flows\": []}}", 503,
                 "flow manager is not running");
    expect_error(&f, "GET", FM "/stored_flows", NULL, 503, "flow manager is not running");
    rest_fixture_stop(&f);
}

static void test_delete_marks_deleted_and_sends(void **state)
{
    struct rest_fixture *f = *state;

    assert_int_equal(status_of(f, "POST", FM "/flows/" SW1,
                               "{\"flows\": [" FLOW(100, 1) ", " FLOW(100, 2) "]}"), 202);
    assert_int_equal(rest_fixture_tick(f), 2);
    /* Non-strict, by match: one of the two. */
    assert_int_equal(status_of(f, "DELETE", FM "/flows/" SW1,
                               "{\"flows\": [{\"match\": {\"in_port\": 1}}]}"), 202);
    assert_int_equal(stored(f, "?state=deleted"), 1);
    assert_int_equal(stored(f, "?state=pending"), 1);
    assert_int_equal(rest_fixture_tick(f), 3);
    assert_int_equal(f->flow_mod_deletes, 1);
    /* Kytos' POST alias of delete, by cookie: nothing stored matches, the
     * switch is still told (it may hold flows ofcd does not know). */
    assert_int_equal(status_of(f, "POST", FM "/delete/" SW1,
                               "{\"flows\": [{\"cookie\": 7, \"cookie_mask\": 255}]}"), 202);
    assert_int_equal(rest_fixture_tick(f), 4);
    assert_int_equal(stored(f, "?state=pending"), 1);
    /* flows_by_switch, every table. */
    assert_int_equal(status_of(f, "DELETE", FM "/flows_by_switch",
                               "{\"" SW1 "\": {\"flows\": [{\"table_id\": 255}]}}"), 202);
    assert_int_equal(stored(f, "?state=deleted"), 2);
    assert_int_equal(stored(f, "?state=pending"), 0);
}

/* The value of the /metrics line that starts with series + " ", -1 when
 * there is none. */
static double metric(const char *text, const char *series)
{
    size_t n = strlen(series);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, series, n) == 0 && l[n] == ' ')
            return strtod(l + n + 1, NULL);
    return -1;
}

/* A durable answer's time, stage by stage in /metrics: each stage of
 * each change answered from its commit counted once (a refused request
 * in none), the stages together within the requests' own time, and the
 * commit a real one (its sync takes time). */
static void test_change_stages_in_metrics(void **state)
{
    static const char *const stages[] = {"receive", "check", "wait", "commit", "apply",
                                         "resume"};
    struct rest_fixture *f = *state;
    struct rest_answer a;

    for (int i = 1; i <= 3; i++) {
        char body[128];
        snprintf(body, sizeof(body), "{\"flows\": [" FLOW(100, %d) "]}", i);
        assert_int_equal(status_of(f, "POST", FM "/flows/" SW1, body), 202);
    }
    assert_int_equal(status_of(f, "DELETE", FM "/flows/" SW1,
                               "{\"flows\": [{\"priority\": 100, \"match\": {\"in_port\": 1}}]}"),
                     202);
    assert_int_equal(status_of(f, "POST", FM "/flows/" SW1, "{\"flows\": [{\"priority\": -1}]}"),
                     400);
    rest_fixture_http(f, "GET", "/metrics", NULL, &a);
    assert_int_equal(a.status, 200);
    double all = 0;
    for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
        char series[128];
        snprintf(series, sizeof(series), "ofcd_rest_change_stage_seconds_count{stage=\"%s\"}",
                 stages[i]);
        assert_int_equal((int)metric(a.body, series), 4);
        snprintf(series, sizeof(series),
                 "ofcd_rest_change_stage_seconds_bucket{stage=\"%s\",le=\"+Inf\"}", stages[i]);
        assert_int_equal((int)metric(a.body, series), 4);
        snprintf(series, sizeof(series), "ofcd_rest_change_stage_seconds_sum{stage=\"%s\"}",
                 stages[i]);
        double sum = metric(a.body, series);
        assert_true(sum >= 0);
        if (strcmp(stages[i], "commit") == 0)
            assert_true(sum > 0);
        all += sum;
    }
    assert_true(all <= metric(a.body, "ofcd_rest_request_seconds_sum"));
    rest_answer_free(&a);
}

/* A case on a fixture of its own (setup above). */
#define CASE(fn) cmocka_unit_test_setup_teardown(fn, setup, rest_fixture_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        CASE(test_post_is_stored_then_sent),
        CASE(test_malformed_field_is_named),
        CASE(test_unknown_and_down_switches),
        cmocka_unit_test(test_no_switch_known),
        cmocka_unit_test(test_queue_full_is_503),
        cmocka_unit_test(test_store_full_is_503),
        cmocka_unit_test(test_no_flow_manager_is_503),
        CASE(test_delete_marks_deleted_and_sends),
        CASE(test_change_stages_in_metrics),
        cmocka_unit_test(test_async_answers_once_queued),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
