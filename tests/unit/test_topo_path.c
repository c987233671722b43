/* test_topo_path: Kytos' pathfinder v3 route on the topology app — what a
 * client of POST /api/kytos/pathfinder/v3/ relies on: Kytos' answer shape
 * over the topology as topology v3 shows it, its 400s naming the field,
 * undesired links and metric constraints read from the links' metadata;
 * and the same constraints as the circuits ask them (topo_paths_best). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofp_wire.h"
#include "topo_path_cons.h"
#include "topo_paths.h"
#include "topo_rest_env.h"

/* POST body: 200, the answer's paths. */
static json_t *paths(struct tenv *e, const char *body)
{
    json_t *out;
    unsigned st = tenv_call(e, &e->t.ext_path, "POST", "", body, &out);
    char *text = json_dumps(out, JSON_COMPACT | JSON_ENCODE_ANY);
    if (st != 200 || !json_is_array(json_object_get(out, "paths")))
        fail_msg("POST %s: %u %s", body, st, text);
    free(text);
    json_t *p = json_incref(json_object_get(out, "paths"));
    json_decref(out);
    return p;
}

static void expect_one(struct tenv *e, const char *body, const char *hops, long long cost,
                       const char *metrics)
{
    json_t *p = paths(e, body);
    char *h = json_dumps(json_object_get(json_array_get(p, 0), "hops"), JSON_COMPACT);
    char *m = json_dumps(json_object_get(json_array_get(p, 0), "metrics"), JSON_COMPACT);
    json_t *c = json_object_get(json_array_get(p, 0), "cost");
    if (json_array_size(p) != 1 || strcmp(h, hops) != 0 || !json_is_integer(c) ||
        json_integer_value(c) != cost || (metrics ? !m || strcmp(m, metrics) : m != NULL))
        fail_msg("POST %s: %zu paths, first %s cost %lld metrics %s; expected one: %s cost %lld "
                 "metrics %s", body, json_array_size(p), h, (long long)json_integer_value(c),
                 m ? m : "none", hops, cost, metrics ? metrics : "none");
    free(h);
    free(m);
    json_decref(p);
}

static void expect_none(struct tenv *e, const char *body)
{
    json_t *p = paths(e, body);
    if (json_array_size(p))
        fail_msg("POST %s: %zu paths, expected none", body, json_array_size(p));
    json_decref(p);
}

#define ONE_WAY "[\"" SW1 "\",\"" SW1 ":1\",\"" SW2 ":2\",\"" SW2 "\"]"

/* The env's two switches and their one link, 1001:1 - 1002:2. */
static void test_paths_over_the_link(void **state)
{
    struct tenv *e = *state;

    expect_one(e, "{\"source\": \"" SW1 "\", \"destination\": \"" SW2 "\"}", ONE_WAY, 3, NULL);
    expect_one(e, "{\"source\": \"" SW1 ":1\", \"destination\": \"" SW2 ":2\"}",
               "[\"" SW1 ":1\",\"" SW2 ":2\"]", 1, NULL);
    expect_one(e, "{\"source\": \"" SW1 "\", \"destination\": \"" SW1 "\"}", "[\"" SW1 "\"]", 0,
               NULL);
    /* Not on the graph: no paths, not an error (Kytos). */
    expect_none(e, "{\"source\": \"" SW1 "\", \"destination\": \"00:00:00:00:00:00:99:99\"}");
    expect_none(e, "{\"source\": \"" SW1 "\", \"destination\": \"nonsense\"}");
    expect_none(e, "{\"source\": \"" SW1 ":+1\", \"destination\": \"" SW2 ":2\"}");
    /* The link undesired: nothing left. An unknown link id changes nothing. */
    char id[128], body[512];
    tenv_link_id(e, id, sizeof(id));
    snprintf(body, sizeof(body), "{\"source\": \"" SW1 "\", \"destination\": \"" SW2 "\", "
             "\"undesired_links\": [\"%s\"]}", id);
    expect_none(e, body);
    expect_one(e, "{\"source\": \"" SW1 "\", \"destination\": \"" SW2 "\", "
               "\"undesired_links\": [\"nope\"]}", ONE_WAY, 3, NULL);
    /* An end disabled, then its port down: off the graph each time. */
    const char *q = "{\"source\": \"" SW1 "\", \"destination\": \"" SW2 "\"}";
    tenv_expect(e, &e->t.ext_topology, "POST", "interfaces/" SW1 ":1/disable", NULL, 200, NULL);
    expect_none(e, q);
    tenv_expect(e, &e->t.ext_topology, "POST", "interfaces/" SW1 ":1/enable", NULL, 200, NULL);
    expect_none(e, q);                  /* its link went disabled with it (Kytos) */
    snprintf(body, sizeof(body), "links/%s/enable", id);
    tenv_expect(e, &e->t.ext_topology, "POST", body, NULL, 201, NULL);
    expect_one(e, q, ONE_WAY, 3, NULL);
    tenv_port_status(e, 0x1002, OFPPR_MODIFY, 2, OFPPS_LINK_DOWN);
    expect_none(e, q);
    tenv_port_status(e, 0x1002, OFPPR_MODIFY, 2, 0);
    tenv_seen_at(e, 0x1001, 1, 0x1002, 2, 3 * S);      /* LLDP again, both ways */
    tenv_seen_at(e, 0x1002, 2, 0x1001, 1, 3 * S);
    expect_one(e, q, ONE_WAY, 3, NULL);
    /* The link disabled: down, off the graph. */
    snprintf(body, sizeof(body), "links/%s/disable", id);
    tenv_expect(e, &e->t.ext_topology, "POST", body, NULL, 201, NULL);
    expect_none(e, "{\"source\": \"" SW1 "\", \"destination\": \"" SW2 "\"}");
}

/* Constraints read the link's metadata; a path says which it met; a
 * metric of the wrong type is a 400 naming the link and the key. */
static void test_constraints_from_metadata(void **state)
{
    struct tenv *e = *state;
    char id[128], arg[256];

    tenv_link_id(e, id, sizeof(id));
    snprintf(arg, sizeof(arg), "links/%s/metadata", id);
    tenv_expect(e, &e->t.ext_topology, "POST", arg,
                "{\"bandwidth\": 10, \"delay\": 7, \"ownership\": {\"red\": {}}}", 201, NULL);
    const char *base = "{\"source\": \"" SW1 "\", \"destination\": \"" SW2 "\", ";
    char body[512];
    snprintf(body, sizeof(body), "%s\"mandatory_metrics\": {\"bandwidth\": 20}}", base);
    expect_none(e, body);
    snprintf(body, sizeof(body), "%s\"mandatory_metrics\": {\"bandwidth\": 5, \"ownership\": "
             "\"red\"}}", base);
    expect_one(e, body, ONE_WAY, 3, "{\"bandwidth\":5,\"ownership\":\"red\"}");
    snprintf(body, sizeof(body), "%s\"mandatory_metrics\": {\"not_ownership\": [\"red\"]}}", base);
    expect_none(e, body);
    /* Flexible: the pair fails, one of them (min hits 1) is met alone. */
    snprintf(body, sizeof(body), "%s\"flexible_metrics\": {\"delay\": 5, \"bandwidth\": 8}, "
             "\"minimum_flexible_hits\": 1}", base);
    expect_one(e, body, ONE_WAY, 3, "{\"bandwidth\":8}");
    /* Weighed by delay: the link's 7 and the switches' own edges' 1 each. */
    snprintf(body, sizeof(body), "%s\"spf_attribute\": \"delay\"}", base);
    expect_one(e, body, ONE_WAY, 9, NULL);
    snprintf(body, sizeof(body), "%s\"spf_attribute\": \"delay\", \"spf_max_path_cost\": 8}",
             base);
    expect_none(e, body);
    tenv_expect(e, &e->t.ext_topology, "POST", arg, "{\"delay\": \"slow\"}", 201, NULL);
    snprintf(body, sizeof(body), "%s\"spf_attribute\": \"delay\"}", base);
    char words[200];
    snprintf(words, sizeof(words), "link %s has invalid metadata \"delay\"", id);
    tenv_expect(e, &e->t.ext_path, "POST", "", body, 400, words);
}

/* Kytos' schema: 400s that say what and where. */
static void test_bad_bodies(void **state)
{
    struct tenv *e = *state;
    const struct rest_ext *x = &e->t.ext_path;
    const char *pre = "The request body contains invalid API data. ";
    char w[256];

    tenv_expect(e, x, "POST", "", "{\"destination\": \"" SW2 "\"}", 400,
                "'source' is a required property");
    tenv_expect(e, x, "POST", "", "{\"source\": 1, \"destination\": \"" SW2 "\"}", 400,
                "source: not of type 'string'");
    snprintf(w, sizeof(w), "%sspf_max_paths: 11 is greater than the maximum of 10", pre);
    tenv_expect(e, x, "POST", "", "{\"source\": \"a\", \"destination\": \"b\", "
                "\"spf_max_paths\": 11}", 400, w);
    tenv_expect(e, x, "POST", "", "{\"source\": \"a\", \"destination\": \"b\", "
                "\"spf_max_paths\": 2.5}", 400, "spf_max_paths: not of type 'integer'");
    tenv_expect(e, x, "POST", "", "{\"source\": \"a\", \"destination\": \"b\", "
                "\"spf_attribute\": \"speed\"}", 400,
                "spf_attribute: 'speed' is not one of ['hop', 'delay', 'priority']");
    tenv_expect(e, x, "POST", "", "{\"source\": \"a\", \"destination\": \"b\", "
                "\"spf_attribute\": null}", 400, "spf_attribute: None is not of type 'string'");
    tenv_expect(e, x, "POST", "", "{\"source\": \"a\", \"destination\": \"b\", "
                "\"spf_max_path_cost\": 0}", 400,
                "spf_max_path_cost: 0 is less than the minimum of 1");
    tenv_expect(e, x, "POST", "", "{\"source\": \"a\", \"destination\": \"b\", "
                "\"mandatory_metrics\": {\"reliability\": 101}}", 400,
                "mandatory_metrics.reliability: 101 is greater than the maximum of 100");
    tenv_expect(e, x, "POST", "", "{\"source\": \"a\", \"destination\": \"b\", "
                "\"flexible_metrics\": {\"not_ownership\": \"red\"}}", 400,
                "flexible_metrics.not_ownership: not of type 'array'");
    tenv_expect(e, x, "POST", "", "{\"source\": \"a\", \"destination\": \"b\", "
                "\"minimum_flexible_hits\": 7}", 400,
                "minimum_flexible_hits: 7 is greater than the maximum of 6");
    tenv_expect(e, x, "POST", "", "{\"source\": \"a\", \"destination\": \"b\", "
                "\"undesired_links\": [1]}", 400, "undesired_links: an item is not of type");
    /* Bounded lists: 1,025 undesired links is a 400, not seconds of lookups. */
    size_t cap = 64 + 1025 * 6;
    char *big = malloc(cap), *p = big;
    p += sprintf(p, "{\"source\": \"a\", \"destination\": \"b\", \"undesired_links\": [");
    for (int i = 0; i < 1025; i++)
        p += sprintf(p, "%s\"l\"", i ? "," : "");
    strcpy(p, "]}");
    tenv_expect(e, x, "POST", "", big, 400, "undesired_links: at most 1024 link ids");
    free(big);
    tenv_expect(e, x, "POST", "", "{\"source\": ", 400, "Invalid json: ");
    tenv_expect(e, x, "POST", "", "[]", 400, "not of type 'object'");
    tenv_expect(e, x, "GET", "", NULL, 405, NULL);
    tenv_expect(e, x, "POST", "more", "{}", 404, NULL);
}

/* topo_paths_best under constraints read as an EVC's: the link's
 * metadata weighed, its id undesired, a path to avoid, a bound on the
 * cost; and topo_path_cons_read's 400 words with the EVC's prefix. */
static int best(struct tenv *e, const char *cons, const struct topo_path_hop *avoid,
                size_t n_avoid, size_t *n)
{
    struct topo_path_hop out[8];
    struct topo_path_cons c;
    char err[256] = "";
    json_error_t je;
    json_t *o = cons ? json_loads(cons, 0, &je) : NULL;
    int rc = topo_path_cons_read(o, "primary_constraints.", &c, err, sizeof(err));

    if (rc)
        fail_msg("%s: %d %s", cons, rc, err);
    rc = topo_paths_best(&e->t, 0x1001, 0x1002, cons ? &c : NULL, avoid, n_avoid, out, 8, n);
    if (rc == 0 && (*n != 1 || out[0].from.dpid != 0x1001 || out[0].from.port != 1 ||
                    out[0].to.dpid != 0x1002 || out[0].to.port != 2))
        fail_msg("%s: %zu hops, first %llx:%u -> %llx:%u", cons, *n,
                 (unsigned long long)out[0].from.dpid, out[0].from.port,
                 (unsigned long long)out[0].to.dpid, out[0].to.port);
    topo_path_cons_free(&c);
    json_decref(o);
    return rc;
}

static void test_best_for_circuits(void **state)
{
    struct tenv *e = *state;
    char id[128], arg[256], body[256];
    size_t n;

    tenv_link_id(e, id, sizeof(id));
    snprintf(arg, sizeof(arg), "links/%s/metadata", id);
    tenv_expect(e, &e->t.ext_topology, "POST", arg, "{\"bandwidth\": 10, \"delay\": 7}", 201,
                NULL);
    assert_int_equal(best(e, NULL, NULL, 0, &n), 0);
    assert_int_equal(best(e, "{}", NULL, 0, &n), 0);
    assert_int_equal(best(e, "{\"mandatory_metrics\": {\"bandwidth\": 5}}", NULL, 0, &n), 0);
    assert_int_equal(best(e, "{\"mandatory_metrics\": {\"bandwidth\": 20}}", NULL, 0, &n),
                     -ENOENT);
    assert_int_equal(best(e, "{\"spf_attribute\": \"delay\", \"spf_max_path_cost\": 8}",
                          NULL, 0, &n), -ENOENT);
    assert_int_equal(best(e, "{\"spf_attribute\": \"delay\", \"spf_max_path_cost\": 9}",
                          NULL, 0, &n), 0);
    snprintf(body, sizeof(body), "{\"undesired_links\": [\"%s\"]}", id);
    assert_int_equal(best(e, body, NULL, 0, &n), -ENOENT);
    struct topo_path_hop avoid = {.from = {0x1002, 2}, .to = {0x1001, 1}};
    assert_int_equal(best(e, "{}", &avoid, 1, &n), -ENOENT);
    tenv_expect(e, &e->t.ext_topology, "POST", arg, "{\"bandwidth\": \"fast\"}", 201, NULL);
    assert_int_equal(best(e, "{\"mandatory_metrics\": {\"bandwidth\": 5}}", NULL, 0, &n),
                     -EDOM);

    /* What an EVC's request is told. */
    struct topo_path_cons c;
    char err[256];
    json_t *o = json_loads("{\"spf_attribute\": \"speed\"}", 0, NULL);
    assert_int_equal(topo_path_cons_read(o, "secondary_constraints.", &c, err, sizeof(err)),
                     -EINVAL);
    assert_string_equal(err, "secondary_constraints.spf_attribute: 'speed' is not one of "
                             "['hop', 'delay', 'priority']");
    topo_path_cons_free(&c);
    json_decref(o);
    o = json_loads("[]", 0, NULL);
    assert_int_equal(topo_path_cons_read(o, "primary_constraints", &c, err, sizeof(err)),
                     -EINVAL);
    assert_string_equal(err, "primary_constraints: not of type 'object'");
    topo_path_cons_free(&c);
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_paths_over_the_link, tenv_setup, tenv_teardown),
        cmocka_unit_test_setup_teardown(test_constraints_from_metadata, tenv_setup,
                                        tenv_teardown),
        cmocka_unit_test_setup_teardown(test_bad_bodies, tenv_setup, tenv_teardown),
        cmocka_unit_test_setup_teardown(test_best_for_circuits, tenv_setup, tenv_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
