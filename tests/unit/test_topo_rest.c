/* Unit tests of the topology's REST face (topo_rest.c, topo_rest_read.c)
 * over a real switch view, link table, admin table and store, each route's
 * handler called as the server calls it (request in; status and JSON out):
 * every GET builds its JSON after the switch view's lock is let go (the
 * lock a flag here, jansson's allocator counting what is made while it is
 * set); an entity's metadata is capped (TOPO_META_MAX_KEYS keys,
 * TOPO_META_MAX_BYTES of JSON) on POST — 413 naming the bound, nothing
 * changed — and when read back from the store; topology v3's enable,
 * disable, DELETE and metadata routes and of_lldp v1's interfaces,
 * polling time and liveness answer with Kytos-ng's statuses and words,
 * and what must outlive a restart is read back from the store. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_keep.h"
#include "topo_rest_env.h"

static void test_reads_rendered_outside_the_lock(void **state)
{
    struct tenv *e = *state;
    static const struct {
        int route;                      /* 0 topology v3, 1 of_lldp v1, 2 /api/v1/topology */
        const char *arg;
    } reads[] = {{0, ""}, {0, "switches"}, {0, "interfaces"}, {0, "links"},
                 {1, "interfaces"}, {1, "liveness/"}, {1, "liveness/pair"}, {2, ""}};
    const struct rest_ext *ext[3] = {&e->t.ext_topology, &e->t.ext_lldp, &e->t.ext_ofcd};

    for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
        json_t *out;
        e->watch.json_allocs_locked = 0;
        assert_int_equal(tenv_call(e, ext[reads[i].route], "GET", reads[i].arg, NULL, &out), 200);
        if (e->watch.json_allocs_locked)
            fail_msg("GET %s/%s: %u JSON allocations under the switch view's lock",
                     ext[reads[i].route]->prefix, reads[i].arg, e->watch.json_allocs_locked);
        json_decref(out);
    }
    /* What they show is whole: both switches, their interfaces, the link
     * (active, its ends' interfaces as nni). */
    json_t *out;
    tenv_call(e, &e->t.ext_topology, "GET", "", NULL, &out);
    json_t *topo = json_object_get(out, "topology");
    json_t *sw = json_object_get(json_object_get(topo, "switches"), SW1);
    assert_non_null(sw);
    assert_int_equal(json_object_size(json_object_get(sw, "interfaces")), 3);
    json_t *ifc = json_object_get(json_object_get(sw, "interfaces"), SW1 ":1");
    assert_true(json_is_true(json_object_get(ifc, "nni")));
    json_t *links = json_object_get(topo, "links");
    assert_int_equal(json_object_size(links), 1);
    const char *id;
    json_t *l;
    json_object_foreach(links, id, l) {
        assert_true(json_is_true(json_object_get(l, "active")));
        assert_string_equal(json_string_value(json_object_get(
                                json_object_get(l, "endpoint_a"), "id")), SW1 ":1");
        assert_string_equal(json_string_value(json_object_get(
                                json_object_get(l, "endpoint_a"), "name")), "p1");
    }
    json_decref(out);
    tenv_call(e, &e->t.ext_lldp, "GET", "liveness/pair", NULL, &out);
    assert_int_equal(json_array_size(json_object_get(out, "pairs")), 1);
    json_decref(out);
    tenv_call(e, &e->t.ext_ofcd, "GET", "", NULL, &out);
    assert_int_equal(json_array_size(json_object_get(out, "nodes")), 2);
    assert_int_equal(json_array_size(json_object_get(out, "links")), 1);
    json_decref(out);
}

/* {"kN": N, ...} for keys from..to-1. */
static char *keys_body(unsigned from, unsigned to)
{
    size_t cap = 32 + (to - from) * 32;
    char *b = malloc(cap);
    size_t n = 0;

    assert_non_null(b);
    n += (size_t)snprintf(b + n, cap - n, "{");
    for (unsigned k = from; k < to; k++)
        n += (size_t)snprintf(b + n, cap - n, "%s\"k%u\": %u", k > from ? ", " : "", k, k);
    snprintf(b + n, cap - n, "}");
    return b;
}

static size_t meta_keys(struct tenv *e, const char *arg)
{
    json_t *out;
    assert_int_equal(tenv_call(e, &e->t.ext_topology, "GET", arg, NULL, &out), 200);
    size_t n = json_object_size(json_object_get(out, "metadata"));
    json_decref(out);
    return n;
}

static void test_metadata_capped_on_post(void **state)
{
    struct tenv *e = *state;
    json_t *out;
    char *body = keys_body(0, TOPO_META_MAX_KEYS);
    const char *sw = "switches/" SW1 "/metadata";

    assert_int_equal(tenv_call(e, &e->t.ext_topology, "POST", sw, body, &out), 201);
    json_decref(out);
    free(body);
    assert_int_equal(meta_keys(e, sw), TOPO_META_MAX_KEYS);
    /* One key more: refused, nothing changed, the bound named. */
    body = keys_body(TOPO_META_MAX_KEYS, TOPO_META_MAX_KEYS + 1);
    assert_int_equal(tenv_call(e, &e->t.ext_topology, "POST", sw, body, &out), 413);
    assert_non_null(strstr(json_string_value(json_object_get(out, "description")), "64 keys"));
    json_decref(out);
    free(body);
    assert_int_equal(meta_keys(e, sw), TOPO_META_MAX_KEYS);
    /* A key already there may change. */
    assert_int_equal(tenv_call(e, &e->t.ext_topology, "POST", sw, "{\"k1\": \"one\"}", &out), 201);
    json_decref(out);

    /* Too many bytes on an interface, then on a link. */
    size_t big = TOPO_META_MAX_BYTES + 16;
    char *text = malloc(big + 16);
    assert_non_null(text);
    memcpy(text, "{\"note\": \"", 10);
    memset(text + 10, 'x', big);
    strcpy(text + 10 + big, "\"}");
    const char *ifc = "interfaces/" SW1 ":1/metadata";
    assert_int_equal(tenv_call(e, &e->t.ext_topology, "POST", ifc, text, &out), 413);
    assert_non_null(strstr(json_string_value(json_object_get(out, "description")), "16384"));
    json_decref(out);
    assert_int_equal(meta_keys(e, ifc), 0);
    tenv_call(e, &e->t.ext_topology, "GET", "links", NULL, &out);
    const char *id;
    json_t *l;
    char link[160] = "";
    json_object_foreach(json_object_get(out, "links"), id, l)
        snprintf(link, sizeof(link), "links/%s/metadata", id);
    json_decref(out);
    assert_true(link[0]);
    assert_int_equal(tenv_call(e, &e->t.ext_topology, "POST", link, text, &out), 413);
    json_decref(out);
    free(text);
    assert_int_equal(meta_keys(e, link), 0);
}

/* A stored record over the bound (written by an earlier ofcd, or by hand)
 * is not loaded: logged, left in the store, the others loaded. */
static void test_metadata_capped_at_load(void **state)
{
    struct tenv *e = *state;
    char *over = keys_body(0, TOPO_META_MAX_KEYS + 1);

    assert_int_equal(store_kv_put(e->store, "topology/meta/switch/" SW1, over, strlen(over)), 0);
    free(over);
    const char *ok = "{\"site\": \"lab\"}";
    assert_int_equal(store_kv_put(e->store, "topology/meta/switch/00:00:00:00:00:00:10:02", ok,
                                  strlen(ok)), 0);
    assert_int_equal(topo_rest_load(&e->t, e->store), 0);
    assert_int_equal(meta_keys(e, "switches/" SW1 "/metadata"), 0);
    assert_int_equal(meta_keys(e, "switches/00:00:00:00:00:00:10:02/metadata"), 1);
}

/* The answer's words: an error's description, or a bare JSON string. */
static void test_switch_enable_disable(void **state)
{
    struct tenv *e = *state;
    const struct rest_ext *v3 = &e->t.ext_topology;

    assert_true(tenv_v3_enabled(e, "switches", SW1));
    tenv_expect(e, v3, "POST", "switches/" SW1 "/disable", NULL, 201, "Operation successful");
    assert_false(tenv_v3_enabled(e, "switches", SW1));
    json_t *sw = tenv_v3_entity(e, "switches", SW1);
    assert_string_equal(json_string_value(json_object_get(sw, "status")), "DISABLED");
    json_decref(sw);
    /* Its interfaces show disabled with it; enabling one first is a 409. */
    assert_false(tenv_v3_enabled(e, "interfaces", SW1 ":1"));
    tenv_expect(e, v3, "POST", "interfaces/" SW1 ":1/enable", NULL, 409, "Enable Switch first");
    /* Kept over a restart. */
    tenv_restart(e);
    assert_false(tenv_v3_enabled(e, "switches", SW1));
    assert_true(tenv_v3_enabled(e, "switches", SW2));
    tenv_expect(e, v3, "POST", "switches/" SW1 "/enable", NULL, 201, "Operation successful");
    assert_true(tenv_v3_enabled(e, "switches", SW1));
    tenv_restart(e);
    assert_true(tenv_v3_enabled(e, "switches", SW1));

    tenv_expect(e, v3, "POST", "switches/00:00:00:00:00:00:99:99/disable", NULL, 404,
                "Switch not found");
    tenv_expect(e, v3, "POST", "switches/nonsense/disable", NULL, 404, "Switch not found");
    tenv_expect(e, v3, "GET", "switches/" SW1 "/disable", NULL, 405, "method GET not allowed");
    tenv_expect(e, v3, "POST", "switches/" SW1, NULL, 404, "no such resource");
    tenv_expect(e, v3, "POST", "switches", NULL, 405, NULL);
    tenv_expect(e, v3, "POST", "", NULL, 405, NULL);
    tenv_expect(e, v3, "GET", "nothing", NULL, 404, "no such resource");
}

static void test_interface_enable_disable(void **state)
{
    struct tenv *e = *state;
    const struct rest_ext *v3 = &e->t.ext_topology;

    tenv_expect(e, v3, "POST", "interfaces/" SW1 ":2/disable", NULL, 200, "Operation successful");
    assert_false(tenv_v3_enabled(e, "interfaces", SW1 ":2"));
    assert_true(tenv_v3_enabled(e, "interfaces", SW1 ":1"));
    json_t *ifc = tenv_v3_entity(e, "interfaces", SW1 ":2");
    assert_string_equal(json_string_value(json_object_get(ifc, "status")), "DISABLED");
    json_decref(ifc);
    tenv_restart(e);
    assert_false(tenv_v3_enabled(e, "interfaces", SW1 ":2"));
    /* A whole switch's interfaces at once. */
    tenv_expect(e, v3, "POST", "interfaces/switch/" SW2 "/disable", NULL, 200, NULL);
    for (unsigned p = 1; p <= 3; p++) {
        char id[40];
        snprintf(id, sizeof(id), SW2 ":%u", p);
        assert_false(tenv_v3_enabled(e, "interfaces", id));
    }
    tenv_expect(e, v3, "POST", "interfaces/switch/" SW2 "/enable", NULL, 200, NULL);
    assert_true(tenv_v3_enabled(e, "interfaces", SW2 ":3"));
    tenv_expect(e, v3, "POST", "interfaces/" SW1 ":2/enable", NULL, 200, NULL);
    assert_true(tenv_v3_enabled(e, "interfaces", SW1 ":2"));

    tenv_expect(e, v3, "POST", "interfaces/zz/disable", NULL, 400, "'zz' is not an interface id");
    tenv_expect(e, v3, "POST", "interfaces/switch/zz/disable", NULL, 400, "'zz' is not a dpid");
    tenv_expect(e, v3, "POST", "interfaces/" SW1 ":9/disable", NULL, 404, "interface 9 not found");
    tenv_expect(e, v3, "POST", "interfaces/00:00:00:00:00:00:99:99:1/disable", NULL, 404,
                "Switch not found");
    tenv_expect(e, v3, "DELETE", "interfaces/" SW1 ":1/disable", NULL, 405, NULL);
}

static void test_link_disable_and_delete(void **state)
{
    struct tenv *e = *state;
    const struct rest_ext *v3 = &e->t.ext_topology;
    char id[128], path[192];
    json_t *out;

    tenv_link_id(e, id, sizeof(id));
    /* Only a disabled link may be deleted (Kytos). */
    snprintf(path, sizeof(path), "links/%s", id);
    tenv_expect(e, v3, "DELETE", path, NULL, 409, "Link is not disabled.");
    snprintf(path, sizeof(path), "links/%s/disable", id);
    tenv_expect(e, v3, "POST", path, NULL, 201, "Operation successful");
    assert_false(tenv_v3_enabled(e, "links", id));
    assert_true(tenv_v3_enabled(e, "switches", SW1));
    snprintf(path, sizeof(path), "links/%s", id);
    tenv_expect(e, v3, "GET", path, NULL, 405, NULL);
    tenv_expect(e, v3, "DELETE", path, NULL, 200, "Operation successful");
    assert_int_equal(tenv_call(e, v3, "GET", "links", NULL, &out), 200);
    assert_int_equal(json_object_size(json_object_get(out, "links")), 0);
    json_decref(out);
    /* Gone: Kytos' words, with and without the full stop. */
    tenv_expect(e, v3, "DELETE", path, NULL, 404, "Link not found.");
    snprintf(path, sizeof(path), "links/%s/enable", id);
    tenv_expect(e, v3, "POST", path, NULL, 404, "Link not found");
}

static void test_metadata_routes(void **state)
{
    struct tenv *e = *state;
    const struct rest_ext *v3 = &e->t.ext_topology;
    json_t *out;
    char id[128], path[192];

    tenv_expect(e, v3, "POST", "switches/" SW1 "/metadata", "{\"site\": \"lab\", \"rack\": 4}", 201,
           "Operation successful");
    tenv_expect(e, v3, "POST", "switches/" SW1 "/metadata", "{\"rack\": 5}", 201, NULL);
    assert_int_equal(tenv_call(e, v3, "GET", "switches/" SW1 "/metadata", NULL, &out), 200);
    json_t *m = json_object_get(out, "metadata");
    assert_string_equal(json_string_value(json_object_get(m, "site")), "lab");
    assert_int_equal(json_integer_value(json_object_get(m, "rack")), 5);
    json_decref(out);
    /* Shown with the switch, and kept over a restart. */
    json_t *sw = tenv_v3_entity(e, "switches", SW1);
    assert_string_equal(json_string_value(json_object_get(json_object_get(sw, "metadata"),
                                                          "site")), "lab");
    json_decref(sw);
    /* And on ofcd's compact graph, where the dashboard reads positions. */
    assert_int_equal(tenv_call(e, &e->t.ext_ofcd, "GET", "", NULL, &out), 200);
    json_t *node, *nodes = json_object_get(out, "nodes");
    size_t k;
    bool seen = false;
    json_array_foreach(nodes, k, node) {
        if (strcmp(json_string_value(json_object_get(node, "dpid")), SW1) != 0)
            continue;
        seen = true;
        assert_int_equal(json_integer_value(json_object_get(json_object_get(node, "metadata"),
                                                            "rack")), 5);
    }
    assert_true(seen);
    json_decref(out);
    tenv_restart(e);
    assert_int_equal(meta_keys(e, "switches/" SW1 "/metadata"), 2);
    tenv_expect(e, v3, "DELETE", "switches/" SW1 "/metadata/site", NULL, 200, "Operation successful");
    assert_int_equal(meta_keys(e, "switches/" SW1 "/metadata"), 1);
    tenv_expect(e, v3, "DELETE", "switches/" SW1 "/metadata/site", NULL, 404, "Metadata not found");
    tenv_restart(e);
    assert_int_equal(meta_keys(e, "switches/" SW1 "/metadata"), 1);

    /* An interface's and a link's. */
    tenv_expect(e, v3, "POST", "interfaces/" SW1 ":3/metadata", "{\"vlan\": 7}", 201, NULL);
    assert_int_equal(meta_keys(e, "interfaces/" SW1 ":3/metadata"), 1);
    assert_int_equal(meta_keys(e, "interfaces/" SW1 ":2/metadata"), 0);
    tenv_link_id(e, id, sizeof(id));
    snprintf(path, sizeof(path), "links/%s/metadata", id);
    tenv_expect(e, v3, "POST", path, "{\"cable\": \"c1\"}", 201, NULL);
    assert_int_equal(meta_keys(e, path), 1);

    /* Bad requests. */
    tenv_expect(e, v3, "POST", "switches/" SW1 "/metadata", "[1]", 400, "JSON object of metadata");
    tenv_expect(e, v3, "POST", "switches/" SW1 "/metadata", "{", 400, "JSON object of metadata");
    tenv_expect(e, v3, "POST", "switches/" SW1 "/metadata", NULL, 400, "JSON object of metadata");
    tenv_expect(e, v3, "PUT", "switches/" SW1 "/metadata", "{}", 405, NULL);
    tenv_expect(e, v3, "DELETE", "switches/" SW1 "/metadata", NULL, 405, NULL);
    tenv_expect(e, v3, "GET", "switches/" SW1 "/metadatum", NULL, 404, "no such resource");
    tenv_expect(e, v3, "GET", "switches/00:00:00:00:00:00:99:99/metadata", NULL, 404,
                "Switch not found");
}

static void test_lldp_interfaces_and_polling(void **state)
{
    struct tenv *e = *state;
    const struct rest_ext *lldp = &e->t.ext_lldp;
    json_t *out;

    assert_int_equal(tenv_listed(e, lldp, "interfaces", NULL, "interfaces"), 6);
    tenv_expect(e, lldp, "POST", "interfaces/disable", "{\"interfaces\": [\"" SW1 ":3\"]}", 200,
           "All the requested interfaces have been disabled.");
    assert_int_equal(tenv_listed(e, lldp, "interfaces", NULL, "interfaces"), 5);
    json_t *ifc = tenv_v3_entity(e, "interfaces", SW1 ":3");
    assert_true(json_is_false(json_object_get(ifc, "lldp")));
    json_decref(ifc);
    tenv_restart(e);
    assert_int_equal(tenv_listed(e, lldp, "interfaces", NULL, "interfaces"), 5);
    /* Some not found: 400 listing them, the others done. */
    assert_int_equal(tenv_call(e, lldp, "POST", "interfaces/enable",
                          "{\"interfaces\": [\"" SW1 ":3\", \"" SW1 ":9\"]}", &out), 400);
    json_t *missing = json_object_get(out, "Some interfaces couldn't be found and activated: ");
    assert_int_equal(json_array_size(missing), 1);
    assert_string_equal(json_string_value(json_array_get(missing, 0)), SW1 ":9");
    json_decref(out);
    assert_int_equal(tenv_listed(e, lldp, "interfaces", NULL, "interfaces"), 6);
    tenv_expect(e, lldp, "POST", "interfaces/enable", "{\"ids\": []}", 400,
           "field 'interfaces' must be a list");
    tenv_expect(e, lldp, "POST", "interfaces/enable", NULL, 400, "field 'interfaces' must be a list");

    /* The polling time: Kytos' 3 s by default here, set until a restart. */
    assert_int_equal(tenv_call(e, lldp, "GET", "polling_time", NULL, &out), 200);
    assert_int_equal(json_integer_value(json_object_get(out, "polling_time")), 3);
    json_decref(out);
    tenv_expect(e, lldp, "POST", "polling_time", "{\"polling_time\": 7}", 200,
           "Polling time has been updated.");
    assert_int_equal(tenv_call(e, lldp, "GET", "polling_time", NULL, &out), 200);
    assert_int_equal(json_integer_value(json_object_get(out, "polling_time")), 7);
    json_decref(out);
    static const char *const bad[] = {"{\"polling_time\": 0}", "{\"polling_time\": 3601}",
                                      "{\"polling_time\": \"5\"}", "{}", "nonsense"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        tenv_expect(e, lldp, "POST", "polling_time", bad[i], 400, "field 'polling_time'");
    assert_int_equal(atomic_load(&e->app.interval_ms), 7000);
    tenv_expect(e, lldp, "DELETE", "polling_time", NULL, 405, NULL);
    tenv_expect(e, lldp, "GET", "nothing", NULL, 404, "no such resource");
}

static void test_liveness(void **state)
{
    struct tenv *e = *state;
    const struct rest_ext *lldp = &e->t.ext_lldp;
    json_t *out;

    /* The setup's two ends. */
    assert_int_equal(tenv_listed(e, lldp, "liveness/", NULL, "interfaces"), 2);
    struct query_arg qa = {"interface_id", SW1 ":1"};
    assert_int_equal(tenv_call_q(e, lldp, "GET", "liveness/", NULL, &qa, &out), 200);
    json_t *one = json_array_get(json_object_get(out, "interfaces"), 0);
    assert_int_equal(json_array_size(json_object_get(out, "interfaces")), 1);
    assert_string_equal(json_string_value(json_object_get(one, "id")), SW1 ":1");
    assert_non_null(json_string_value(json_object_get(one, "status")));
    json_decref(out);
    qa.value = SW1 ":3";
    assert_int_equal(tenv_listed(e, lldp, "liveness/", &qa, "interfaces"), 0);

    /* All or nothing: an unknown id or one without LLDP refuses the lot. */
    tenv_expect(e, lldp, "POST", "liveness/enable", "{\"interfaces\": []}", 400,
           "Interfaces payload is empty");
    tenv_expect(e, lldp, "POST", "liveness/enable", "{}", 400, "Interfaces payload is empty");
    tenv_expect(e, lldp, "POST", "liveness/enable",
                "{\"interfaces\": [\"" SW1 ":3\", \"" SW1 ":9\"]}", 404,
                "Interface IDs [\"" SW1 ":9\"] not found");
    tenv_expect(e, lldp, "POST", "interfaces/disable", "{\"interfaces\": [\"" SW2 ":3\"]}", 200,
           NULL);
    tenv_expect(e, lldp, "POST", "liveness/enable",
                "{\"interfaces\": [\"" SW1 ":3\", \"" SW2 ":3\"]}", 400,
                "Interface IDs [\"" SW2 ":3\"] don't have LLDP enabled");
    assert_int_equal(tenv_listed(e, lldp, "liveness/", NULL, "interfaces"), 2);

    assert_int_equal(tenv_call(e, lldp, "POST", "liveness/enable",
                          "{\"interfaces\": [\"" SW1 ":3\"]}", &out), 200);
    assert_true(json_is_object(out) && json_object_size(out) == 0);
    json_decref(out);
    assert_int_equal(tenv_listed(e, lldp, "liveness/", NULL, "interfaces"), 3);
    /* Disabling one end of the pair leaves no pair. */
    assert_int_equal(tenv_listed(e, lldp, "liveness/pair", NULL, "pairs"), 1);
    tenv_expect(e, lldp, "POST", "liveness/disable", "{\"interfaces\": [\"" SW1 ":1\"]}", 200, NULL);
    assert_int_equal(tenv_listed(e, lldp, "liveness/pair", NULL, "pairs"), 0);
    tenv_expect(e, lldp, "PUT", "liveness/enable", "{}", 404, "no such resource");
}

static void test_ofcd_graph_routes(void **state)
{
    struct tenv *e = *state;

    tenv_expect(e, &e->t.ext_ofcd, "POST", "", NULL, 405, NULL);
    tenv_expect(e, &e->t.ext_ofcd, "GET", "more", NULL, 404, "no such resource");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_reads_rendered_outside_the_lock, tenv_setup, tenv_teardown),
        cmocka_unit_test_setup_teardown(test_metadata_capped_on_post, tenv_setup, tenv_teardown),
        cmocka_unit_test_setup_teardown(test_metadata_capped_at_load, tenv_setup, tenv_teardown),
        cmocka_unit_test_setup_teardown(test_switch_enable_disable, tenv_setup, tenv_teardown),
        cmocka_unit_test_setup_teardown(test_interface_enable_disable, tenv_setup, tenv_teardown),
        cmocka_unit_test_setup_teardown(test_link_disable_and_delete, tenv_setup, tenv_teardown),
        cmocka_unit_test_setup_teardown(test_metadata_routes, tenv_setup, tenv_teardown),
        cmocka_unit_test_setup_teardown(test_lldp_interfaces_and_polling, tenv_setup, tenv_teardown),
        cmocka_unit_test_setup_teardown(test_liveness, tenv_setup, tenv_teardown),
        cmocka_unit_test_setup_teardown(test_ofcd_graph_routes, tenv_setup, tenv_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
