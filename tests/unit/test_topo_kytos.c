/* Unit tests of the rest of Kytos-ng's topology contract on topo_rest
 * (topo_rest_tags.c and the DELETE routes), over the shared fixture
 * (topo_rest_env.h): the interfaces' VLAN pools — shown, set, refused
 * with Kytos' words, the LLDP VLAN taken out of what is available while
 * the switch's LLDP flow is in place, kept over a restart; DELETE of a
 * switch or an interface refused (409, Kytos' words) while anything uses
 * it, then what is kept of it forgotten; of_lldp's liveness judging a
 * link whose two ends it is on for (liveness_status in its metadata, DOWN
 * for "liveness" while still active); a loop marked on its lower port,
 * its actions (log, disable) unless the switch's metadata ignores it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "ofcd_clock.h"
#include "ofp_wire.h"
#include "topo_admin.h"
#include "topo_loop.h"
#include "topo_start.h"
#include "store.h"
#include "topo_rest_env.h"
#include "topo_tags.h"

/* GET interfaces/{id}/tag_ranges: one field's "vlan" list, as compact JSON. */
static char *pool_field(struct tenv *e, const char *id, const char *field)
{
    char path[96];
    json_t *out;
    snprintf(path, sizeof(path), "interfaces/%s/tag_ranges", id);
    assert_int_equal(tenv_call(e, &e->t.ext_topology, "GET", path, NULL, &out), 200);
    json_t *v = json_object_get(json_object_get(json_object_get(out, id), field), "vlan");
    char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    json_decref(out);
    assert_non_null(text);
    return text;
}

static void field_is(struct tenv *e, const char *id, const char *field, const char *want)
{
    char *got = pool_field(e, id, field);
    if (strcmp(got, want) != 0)
        fail_msg("%s %s: %s, expected %s", id, field, got, want);
    free(got);
}

/* ---- a tag_ranges change against an app taking a tag at that moment ---- */

/* The other app (the circuits, as eline_rest.c's create does it): under the
 * pools' turn, read the interface's pool, take VLAN 400 if it is there. */
struct taker {
    struct tenv *e;
    pthread_mutex_t m;
    pthread_cond_t cv;
    bool armed, done, took;
    pthread_t th;
};

static void *taker_main(void *arg)
{
    struct taker *k = arg;
    uint64_t set[TOPO_TAGS_WORDS];
    unsigned special;

    topo_rest_pools_hold(&k->e->t);
    assert_int_equal(topo_rest_tags_allowed(&k->e->t, 0x1001, 1, set, &special), 0);
    bool took = set[400 / 64] >> (400 % 64) & 1;
    pthread_mutex_lock(&k->m);
    k->took = took;
    pthread_mutex_unlock(&k->m);
    topo_rest_pools_release(&k->e->t);
    pthread_mutex_lock(&k->m);
    k->done = true;
    pthread_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->m);
    return NULL;
}

/* topo_rest's tags_used: what the taker holds; the first time (the pool
 * change's check), the taker is started right after the answer is made
 * and given 200 ms, as if its request came at that moment. */
static void taker_used(void *arg, const struct topo_end *only, topo_tag_visit_fn visit,
                       void *v)
{
    struct taker *k = arg;

    pthread_mutex_lock(&k->m);
    if (k->took && (!only || (only->dpid == 0x1001 && only->port == 1)))
        visit(v, 0x1001, 1, 400, 400, 0);
    bool start = k->armed;
    k->armed = false;
    pthread_mutex_unlock(&k->m);
    if (!start)
        return;
    assert_int_equal(pthread_create(&k->th, NULL, taker_main, k), 0);
    struct timespec dl = ofcd_clock_deadline(200000);
    pthread_mutex_lock(&k->m);
    while (!k->done && pthread_cond_timedwait(&k->cv, &k->m, &dl) == 0)
        ;
    pthread_mutex_unlock(&k->m);
}

/* The tag the new pool leaves out is not taken meanwhile: the taker waits
 * for the change (topo_rest_pools_hold) and then finds 400 out of it. */
static void test_tag_ranges_vs_a_taker(void **state)
{
    struct tenv *e = *state;
    const struct rest_ext *v3 = &e->t.ext_topology;
    struct taker k = {.e = e, .armed = true};

    pthread_mutex_init(&k.m, NULL);
    assert_int_equal(ofcd_clock_cond_init(&k.cv), 0);
    topo_rest_tags_user(&e->t, taker_used, &k);
    tenv_expect(e, v3, "POST", "interfaces/" SW1 ":1/tag_ranges",
                "{\"tag_type\": \"vlan\", \"tag_ranges\": [[1, 300]]}", 200,
                "Operation Successful");
    pthread_join(k.th, NULL);
    field_is(e, SW1 ":1", "tag_ranges", "[[1,300]]");
    assert_false(k.took);                /* 400 is outside the pool: not taken */
    topo_rest_tags_user(&e->t, NULL, NULL);
    pthread_cond_destroy(&k.cv);
    pthread_mutex_destroy(&k.m);
}

static void test_tag_ranges(void **state)
{
    struct tenv *e = *state;
    const struct rest_ext *v3 = &e->t.ext_topology;
    const char *ifc = SW1 ":1", *path = "interfaces/" SW1 ":1/tag_ranges";
    json_t *out;

    /* Kytos' defaults, on every interface of every switch. */
    assert_int_equal(tenv_call(e, v3, "GET", "interfaces/tag_ranges", NULL, &out), 200);
    assert_int_equal(json_object_size(out), 6);
    json_decref(out);
    field_is(e, ifc, "tag_ranges", "[[1,4094]]");
    field_is(e, ifc, "available_tags", "[[1,4094]]");
    field_is(e, ifc, "special_tags", "[\"untagged\",\"any\"]");
    field_is(e, ifc, "special_available_tags", "[\"untagged\",\"any\"]");

    tenv_expect(e, v3, "POST", path, "{\"tag_type\": \"vlan\", \"tag_ranges\": [[1, 500], 2096, [3001]]}",
                200, "Operation Successful");
    field_is(e, ifc, "tag_ranges", "[[1,500],[2096,2096],[3001,3001]]");
    field_is(e, SW1 ":2", "tag_ranges", "[[1,4094]]");
    /* Refused with Kytos' words, nothing changed. */
    tenv_expect(e, v3, "POST", path, "{\"tag_type\": \"vlan\", \"tag_ranges\": [[10, 20], [21, 30]]}",
                400, "unnecessary partition");
    tenv_expect(e, v3, "POST", path, "{\"tag_type\": \"mpls\", \"tag_ranges\": [[1, 2]]}", 400,
                "tag_type");
    tenv_expect(e, v3, "POST", path, "{\"tag_type\": \"vlan\", \"tag_ranges\": []}", 400,
                "tag_ranges");
    tenv_expect(e, v3, "POST", path, "{\"tag_type\": \"vlan\", \"tag_ranges\": [[1, 2, 3]]}", 400,
                "tag_ranges[0]");
    tenv_expect(e, v3, "POST", path, "{\"tag_type\": \"vlan\"}", 400, "tag_ranges");
    tenv_expect(e, v3, "POST", path, "[1", 400, NULL);
    tenv_expect(e, v3, "POST", "interfaces/" SW1 ":9/tag_ranges",
                "{\"tag_type\": \"vlan\", \"tag_ranges\": [7]}", 404, "Interface not found");
    field_is(e, ifc, "tag_ranges", "[[1,500],[2096,2096],[3001,3001]]");

    /* Special tags: a repeated or unknown one refused. */
    const char *sp = "interfaces/" SW1 ":1/special_tags";
    tenv_expect(e, v3, "POST", sp, "{\"tag_type\": \"vlan\", \"special_tags\": [\"any\", \"any\"]}",
                400, "There are duplicated values in the range.");
    tenv_expect(e, v3, "POST", sp, "{\"tag_type\": \"vlan\", \"special_tags\": [\"every\"]}", 400,
                "The tag every is not supported");
    tenv_expect(e, v3, "POST", sp, "{\"tag_type\": \"vlan\", \"special_tags\": [\"any\"]}", 200,
                NULL);
    field_is(e, ifc, "special_available_tags", "[\"any\"]");
    tenv_expect(e, v3, "GET", sp, NULL, 405, NULL);

    /* Kept over a restart; DELETE goes back to the default ranges. */
    tenv_restart(e);
    field_is(e, ifc, "tag_ranges", "[[1,500],[2096,2096],[3001,3001]]");
    field_is(e, ifc, "special_tags", "[\"any\"]");
    const struct query_arg mpls = {"tag_type", "mpls"};
    assert_int_equal(tenv_call_q(e, v3, "DELETE", path, NULL, &mpls, &out), 400);
    json_decref(out);
    tenv_expect(e, v3, "DELETE", path, NULL, 200, NULL);
    field_is(e, ifc, "tag_ranges", "[[1,4094]]");
    tenv_expect(e, v3, "DELETE", "interfaces/" SW1 ":9/tag_ranges", NULL, 404,
                "Interface not found");
    tenv_expect(e, v3, "PUT", "interfaces/tag_ranges", NULL, 405, NULL);

    /* The most ranges an interface holds (1,024, every other tag) are kept
     * over a restart; one more is refused. */
    char *body = malloc(32 * 1100);
    assert_non_null(body);
    for (unsigned n = 1024; n <= 1025; n++) {
        size_t len = (size_t)sprintf(body, "{\"tag_type\": \"vlan\", \"tag_ranges\": [");
        for (unsigned k = 0; k < n; k++)
            len += (size_t)sprintf(body + len, "%s[%u, %u]", k ? ", " : "", 2 * k + 1, 2 * k + 1);
        strcpy(body + len, "]}");
        tenv_expect(e, v3, "POST", path, body, n == 1024 ? 200 : 400,
                    n == 1024 ? NULL : "at most 1024");
    }
    free(body);
    tenv_restart(e);
    char *got = pool_field(e, ifc, "tag_ranges");
    json_t *arr = json_loads(got, 0, NULL);
    assert_int_equal(json_array_size(arr), 1024);
    json_decref(arr);
    free(got);
}

/* of_lldp's VLAN is in use on an enabled switch's interfaces: not
 * available, and ranges without it refused; a disabled switch frees it. */
static void test_lldp_vlan_in_use(void **state)
{
    struct tenv *e = *state;
    const struct rest_ext *v3 = &e->t.ext_topology;
    const char *path = "interfaces/" SW1 ":1/tag_ranges";

    e->app.lldp_vlan = 3799;
    field_is(e, SW1 ":1", "available_tags", "[[1,3798],[3800,4094]]");
    field_is(e, SW1 ":1", "tag_ranges", "[[1,4094]]");
    tenv_expect(e, v3, "POST", path, "{\"tag_type\": \"vlan\", \"tag_ranges\": [[1, 100]]}", 400,
                "Missing tags in tag_range: [[3799, 3799]]");
    tenv_expect(e, v3, "POST", path, "{\"tag_type\": \"vlan\", \"tag_ranges\": [[1, 100], 3799]}",
                200, NULL);
    field_is(e, SW1 ":1", "available_tags", "[[1,100]]");
    tenv_expect(e, v3, "POST", "switches/" SW1 "/disable", NULL, 201, NULL);
    field_is(e, SW1 ":1", "available_tags", "[[1,100],[3799,3799]]");
    tenv_expect(e, v3, "POST", path, "{\"tag_type\": \"vlan\", \"tag_ranges\": [[1, 100]]}", 200,
                NULL);
}

static void test_delete_switch(void **state)
{
    struct tenv *e = *state;
    const struct rest_ext *v3 = &e->t.ext_topology;
    char id[128], path[192];

    tenv_expect(e, v3, "POST", "switches/" SW1 "/metadata", "{\"site\": \"lab\"}", 201, NULL);
    tenv_expect(e, v3, "POST", "interfaces/" SW1 ":3/metadata", "{\"k\": 1}", 201, NULL);
    tenv_expect(e, v3, "DELETE", "switches/00:00:00:00:00:00:99:99", NULL, 404,
                "Switch not found.");
    tenv_expect(e, v3, "DELETE", "switches/nonsense", NULL, 404, "Switch not found.");
    tenv_expect(e, v3, "DELETE", "switches/" SW1, NULL, 409, "Switch should be disabled.");
    tenv_expect(e, v3, "POST", "switches/" SW1 "/disable", NULL, 201, NULL);
    tenv_link_id(e, id, sizeof(id));
    char words[192];
    snprintf(words, sizeof(words), "Switch should not have links. Link found %s.", id);
    tenv_expect(e, v3, "DELETE", "switches/" SW1, NULL, 409, words);
    /* Its link disabled and deleted (Kytos' order): still connected. */
    snprintf(path, sizeof(path), "links/%s/disable", id);
    tenv_expect(e, v3, "POST", path, NULL, 201, NULL);
    snprintf(path, sizeof(path), "links/%s", id);
    tenv_expect(e, v3, "DELETE", path, NULL, 200, NULL);
    tenv_expect(e, v3, "DELETE", "switches/" SW1 "/", NULL, 409, "Switch is connected");
    tenv_switch_down(e, 0x1001);
    tenv_expect(e, v3, "DELETE", "switches/" SW1, NULL, 200, "Operation successful");
    json_t *out;
    assert_int_equal(tenv_call(e, v3, "GET", "switches", NULL, &out), 200);
    assert_null(json_object_get(json_object_get(out, "switches"), SW1));
    assert_non_null(json_object_get(json_object_get(out, "switches"), SW2));
    json_decref(out);
    tenv_expect(e, v3, "DELETE", "switches/" SW1, NULL, 404, "Switch not found.");
    /* Nothing of it comes back after a restart, and when it connects again
     * it is new: enabled, no metadata. */
    tenv_restart(e);
    tenv_switch_up(e, 0x1001);
    assert_true(tenv_v3_enabled(e, "switches", SW1));
    json_t *sw = tenv_v3_entity(e, "switches", SW1);
    assert_null(json_object_get(json_object_get(sw, "metadata"), "site"));
    json_t *ifc = json_object_get(json_object_get(sw, "interfaces"), SW1 ":3");
    assert_int_equal(json_object_size(json_object_get(ifc, "metadata")), 0);
    json_decref(sw);
    /* Liveness was on at its port 1: gone with it. */
    assert_int_equal(tenv_listed(e, &e->t.ext_lldp, "liveness/", NULL, "interfaces"), 1);
}

static void put_flow(struct tenv *e, uint64_t dpid, const char *json)
{
    struct store_flow f = {.dpid = dpid, .match_id = 7, .flow_id = 0xabc,
                           .state = STORE_FLOW_INSTALLED, .owner = "test", .json = json,
                           .json_len = strlen(json)};
    assert_int_equal(store_put(e->store, &f), 0);
}

static void test_delete_interface(void **state)
{
    struct tenv *e = *state;
    const struct rest_ext *v3 = &e->t.ext_topology;
    const char *p3 = "interfaces/" SW2 ":3";

    tenv_expect(e, v3, "DELETE", "interfaces/" SW2 ":x", NULL, 400, "Invalid interface id.");
    tenv_expect(e, v3, "DELETE", "interfaces/" SW2 ":-1", NULL, 400, "Invalid interface id.");
    /* Any port number is an id (LOCAL too): this switch has no such port. */
    tenv_expect(e, v3, "DELETE", "interfaces/" SW2 ":4294967294", NULL, 404,
                "Interface not found.");
    tenv_expect(e, v3, "DELETE", "interfaces/" SW2 ":0", NULL, 404, "Interface not found.");
    tenv_expect(e, v3, "DELETE", "interfaces/00:00:00:00:00:00:99:99:1", NULL, 404,
                "Switch not found.");
    tenv_expect(e, v3, "DELETE", "interfaces/" SW2 ":9", NULL, 404, "Interface not found.");
    tenv_expect(e, v3, "DELETE", p3, NULL, 409, "It is enabled or active.");
    tenv_expect(e, v3, "POST", "interfaces/" SW2 ":3/disable", NULL, 200, NULL);
    tenv_expect(e, v3, "DELETE", p3, NULL, 409, "It is enabled or active.");   /* port up */
    tenv_port_status(e, 0x1002, OFPPR_MODIFY, 3, OFPPS_LINK_DOWN);
    put_flow(e, 0x1002, "{\"priority\": 10, \"match\": {\"in_port\": 1}, \"instructions\": "
                       "[{\"instruction_type\": \"apply_actions\", \"actions\": "
                       "[{\"action_type\": \"output\", \"port\": 3}]}]}");
    tenv_expect(e, v3, "DELETE", p3, NULL, 409, "There is a flow installed, 0000000000000abc.");
    put_flow(e, 0x1002, "{\"priority\": 10, \"match\": {\"in_port\": 1}, \"actions\": "
                       "[{\"action_type\": \"output\", \"port\": 2}]}");
    tenv_expect(e, v3, "POST", "interfaces/" SW2 ":3/tag_ranges",
                "{\"tag_type\": \"vlan\", \"tag_ranges\": [[5, 6]]}", 200, NULL);
    tenv_expect(e, v3, "DELETE", p3, NULL, 200, "Operation Successful");
    tenv_expect(e, v3, "DELETE", p3, NULL, 404, "Interface not found.");
    /* Port 2 ends the link: refused even when disabled and down. */
    tenv_expect(e, v3, "POST", "interfaces/" SW2 ":2/disable", NULL, 200, NULL);
    tenv_port_status(e, 0x1002, OFPPR_MODIFY, 2, OFPPS_LINK_DOWN);
    tenv_expect(e, v3, "DELETE", "interfaces/" SW2 ":2", NULL, 409, "It has a link");
    /* The switch tells of port 3 again: back, with nothing of before. */
    tenv_port_status(e, 0x1002, OFPPR_MODIFY, 3, 0);
    assert_true(tenv_v3_enabled(e, "interfaces", SW2 ":3"));
    field_is(e, SW2 ":3", "tag_ranges", "[[1,4094]]");
    tenv_restart(e);
    assert_true(tenv_v3_enabled(e, "interfaces", SW2 ":3"));
    assert_false(tenv_v3_enabled(e, "interfaces", SW2 ":2"));
}

/* The one link as topology v3 shows it. */
static json_t *the_link(struct tenv *e)
{
    char id[128];
    tenv_link_id(e, id, sizeof(id));
    return tenv_v3_entity(e, "links", id);
}

static void link_shows(struct tenv *e, bool active, const char *status, const char *reasons,
                       const char *liveness)
{
    json_t *l = the_link(e);
    char *why = json_dumps(json_object_get(l, "status_reason"), JSON_COMPACT);
    const char *ls = json_string_value(json_object_get(json_object_get(l, "metadata"),
                                                       "liveness_status"));
    if (json_is_true(json_object_get(l, "active")) != active ||
        strcmp(json_string_value(json_object_get(l, "status")), status) != 0 ||
        strcmp(why, reasons) != 0 || (liveness ? !ls || strcmp(ls, liveness) : ls != NULL))
        fail_msg("link: active %d status %s reasons %s liveness_status %s; expected %d %s %s %s",
                 json_is_true(json_object_get(l, "active")),
                 json_string_value(json_object_get(l, "status")), why, ls ? ls : "(none)",
                 active, status, reasons, liveness ? liveness : "(none)");
    free(why);
    json_decref(l);
}

static void test_liveness_judges_the_link(void **state)
{
    struct tenv *e = *state;

    /* One hello each way so far (the fixture): init, nothing said. */
    link_shows(e, true, "UP", "[]", NULL);
    for (uint64_t t = 3; t <= 4; t++) {
        tenv_seen_at(e, 0x1001, 1, 0x1002, 2, t * S);
        tenv_seen_at(e, 0x1002, 2, 0x1001, 1, t * S);
    }
    link_shows(e, true, "UP", "[]", "up");
    /* Silent past both the link timeout and liveness' dead interval (10 s
     * here): liveness, not the timeout, takes it down — Kytos' shape. */
    topo_view_tick(e->ctl, 15 * S);
    link_shows(e, true, "DOWN", "[\"liveness\"]", "down");
    json_t *out;
    assert_int_equal(tenv_call(e, &e->t.ext_ofcd, "GET", "", NULL, &out), 200);
    json_t *gl = json_array_get(json_object_get(out, "links"), 0);
    assert_string_equal(json_string_value(json_object_get(gl, "state")), "down");
    json_decref(out);
    /* Hellos again: up. */
    for (uint64_t t = 16; t <= 17; t++) {
        tenv_seen_at(e, 0x1001, 1, 0x1002, 2, t * S);
        tenv_seen_at(e, 0x1002, 2, 0x1001, 1, t * S);
    }
    link_shows(e, true, "UP", "[]", "up");
    /* Liveness off at one end: the link timeout judges again. */
    tenv_expect(e, &e->t.ext_lldp, "POST", "liveness/disable",
                "{\"interfaces\": [\"" SW1 ":1\"]}", 200, NULL);
    link_shows(e, true, "UP", "[]", NULL);
    topo_view_tick(e->ctl, 28 * S);
    link_shows(e, false, "DOWN", "[\"deactivated\"]", NULL);
}

/* Kytos: a switch or interface disabled takes its links with it; a link
 * is enabled only once both its ends are; enabling the switch again does
 * not enable its links. */
static void test_disable_takes_links(void **state)
{
    struct tenv *e = *state;
    const struct rest_ext *v3 = &e->t.ext_topology;
    char id[128], path[192];

    tenv_link_id(e, id, sizeof(id));
    snprintf(path, sizeof(path), "links/%s/enable", id);
    tenv_expect(e, v3, "POST", "switches/" SW2 "/disable", NULL, 201, NULL);
    assert_false(tenv_v3_enabled(e, "links", id));
    tenv_expect(e, v3, "POST", path, NULL, 409, SW2 ":2 needs enabling.");
    tenv_expect(e, v3, "POST", "switches/" SW2 "/enable", NULL, 201, NULL);
    assert_false(tenv_v3_enabled(e, "links", id));
    tenv_restart(e);
    assert_false(tenv_v3_enabled(e, "links", id));
    tenv_expect(e, v3, "POST", path, NULL, 201, NULL);
    assert_true(tenv_v3_enabled(e, "links", id));
    /* The same through one of its interfaces. */
    tenv_expect(e, v3, "POST", "interfaces/" SW1 ":1/disable", NULL, 200, NULL);
    assert_false(tenv_v3_enabled(e, "links", id));
    tenv_expect(e, v3, "POST", path, NULL, 409, SW1 ":1 needs enabling.");
    tenv_expect(e, v3, "POST", "interfaces/" SW1 ":2/disable", NULL, 200, NULL);
    tenv_expect(e, v3, "POST", "interfaces/" SW1 ":1/enable", NULL, 200, NULL);
    tenv_expect(e, v3, "POST", path, NULL, 201, NULL);
    assert_true(tenv_v3_enabled(e, "links", id));
}

/* Every link is kept over a restart, as Kytos keeps them: back inactive
 * until LLDP sees it; one whose end LLDP finds linked elsewhere is DOWN
 * for mismatched_link; a deleted one is not back. */
static void test_links_kept_over_restart(void **state)
{
    struct tenv *e = *state;
    const struct rest_ext *v3 = &e->t.ext_topology;
    char old[128], path[192];

    tenv_link_id(e, old, sizeof(old));
    tenv_restart_all(e);
    json_t *l = tenv_v3_entity(e, "links", old);
    assert_false(json_is_true(json_object_get(l, "active")));
    assert_true(json_is_true(json_object_get(l, "enabled")));
    json_decref(l);
    link_shows(e, false, "DOWN", "[\"deactivated\"]", NULL);
    /* 10:01:1 now hears 10:02:3: the cable moved while ofcd was away. */
    tenv_seen_at(e, 0x1001, 1, 0x1002, 3, 20 * S);
    tenv_seen_at(e, 0x1002, 3, 0x1001, 1, 20 * S);
    l = tenv_v3_entity(e, "links", old);
    char *why = json_dumps(json_object_get(l, "status_reason"), JSON_COMPACT);
    assert_string_equal(why, "[\"deactivated\",\"mismatched_link\"]");
    assert_string_equal(json_string_value(json_object_get(l, "status")), "DOWN");
    free(why);
    json_decref(l);
    json_t *out;
    assert_int_equal(tenv_call(e, v3, "GET", "links", NULL, &out), 200);
    assert_int_equal(json_object_size(json_object_get(out, "links")), 2);
    json_decref(out);
    /* Deleting the stale record leaves the link its end is in now up. */
    const struct topo_link_rec *now = topo_view_link_of(e->ctl, (struct topo_end){0x1001, 1});
    assert_non_null(now);
    assert_true(now->active);
    char now_id[TOPO_LINK_ID_LEN + 1];
    snprintf(now_id, sizeof(now_id), "%s", now->id);
    tenv_store_sync(e);
    tenv_restart_all(e);
    tenv_seen_at(e, 0x1001, 1, 0x1002, 3, 30 * S);
    tenv_seen_at(e, 0x1002, 3, 0x1001, 1, 30 * S);
    snprintf(path, sizeof(path), "links/%s/disable", old);
    tenv_expect(e, v3, "POST", path, NULL, 201, NULL);
    snprintf(path, sizeof(path), "links/%s", old);
    tenv_expect(e, v3, "DELETE", path, NULL, 200, NULL);
    l = tenv_v3_entity(e, "links", now_id);
    assert_true(json_is_true(json_object_get(l, "active")));
    json_decref(l);
    tenv_store_sync(e);
    tenv_restart_all(e);
    assert_int_equal(tenv_call(e, v3, "GET", "links", NULL, &out), 200);
    assert_int_equal(json_object_size(json_object_get(out, "links")), 1);
    json_decref(out);
}

static json_t *looped_of(struct tenv *e, const char *ifc)
{
    json_t *i = tenv_v3_entity(e, "interfaces", ifc);
    json_t *lp = json_incref(json_object_get(json_object_get(i, "metadata"), "looped"));
    json_decref(i);
    return lp;
}

static void test_loops(void **state)
{
    struct tenv *e = *state;
    const struct rest_ext *v3 = &e->t.ext_topology;
    struct topo_loop lp;

    /* SW1's port 2 hears SW1's port 3: a loop, marked on port 2. */
    tenv_seen_at(e, 0x1001, 3, 0x1001, 2, 5 * S);
    json_t *lo = looped_of(e, SW1 ":2");
    assert_non_null(lo);
    char *ports = json_dumps(json_object_get(lo, "port_numbers"), JSON_COMPACT);
    assert_string_equal(ports, "[2,3]");
    free(ports);
    assert_int_equal(strlen(json_string_value(json_object_get(lo, "detected_at"))), 19);
    json_decref(lo);
    assert_null(looped_of(e, SW1 ":3"));
    const struct topo_link_rec *l = topo_view_link_of(e->ctl, (struct topo_end){0x1001, 2});
    assert_non_null(l);
    assert_true(l->loop && l->looping);

    /* disable: the lower port goes, kept over a restart; back when it stops. */
    topo_loop_init(&lp, CFG_LOOP_LOG | CFG_LOOP_DISABLE);
    topo_loop_note(&lp, l, TOPO_LINK_LOOP);
    topo_loop_take(&lp);
    topo_loop_apply(&lp, &e->t, e->admin, e->store, 5 * S);
    assert_false(tenv_v3_enabled(e, "interfaces", SW1 ":2"));
    assert_true(tenv_v3_enabled(e, "interfaces", SW1 ":3"));
    tenv_store_sync(e);
    tenv_restart(e);
    assert_false(tenv_v3_enabled(e, "interfaces", SW1 ":2"));
    topo_loop_note(&lp, l, TOPO_LINK_DOWN);
    topo_loop_take(&lp);
    topo_loop_apply(&lp, &e->t, e->admin, e->store, 6 * S);
    assert_true(tenv_v3_enabled(e, "interfaces", SW1 ":2"));
    tenv_store_sync(e);
    tenv_restart(e);
    assert_true(tenv_v3_enabled(e, "interfaces", SW1 ":2"));

    /* A port the operator disabled stays so when the loop stops. */
    tenv_expect(e, v3, "POST", "interfaces/" SW1 ":2/disable", NULL, 200, NULL);
    topo_loop_note(&lp, l, TOPO_LINK_LOOP);
    topo_loop_note(&lp, l, TOPO_LINK_DOWN);
    topo_loop_take(&lp);
    topo_loop_apply(&lp, &e->t, e->admin, e->store, 7 * S);
    assert_false(tenv_v3_enabled(e, "interfaces", SW1 ":2"));
    tenv_expect(e, v3, "POST", "interfaces/" SW1 ":2/enable", NULL, 200, NULL);

    /* Ignored by the switch's metadata (either order): no mark, no action. */
    tenv_expect(e, v3, "POST", "switches/" SW1 "/metadata", "{\"ignored_loops\": [[3, 2]]}", 201,
                NULL);
    assert_null(looped_of(e, SW1 ":2"));
    topo_loop_note(&lp, l, TOPO_LINK_LOOP);
    topo_loop_take(&lp);
    topo_loop_apply(&lp, &e->t, e->admin, e->store, 8 * S);
    assert_true(tenv_v3_enabled(e, "interfaces", SW1 ":2"));

    /* "log" alone disables nothing; nor does a link that is not a loop. */
    tenv_expect(e, v3, "DELETE", "switches/" SW1 "/metadata/ignored_loops", NULL, 200, NULL);
    topo_loop_init(&lp, CFG_LOOP_LOG);
    topo_loop_note(&lp, l, TOPO_LINK_LOOP);
    topo_loop_take(&lp);
    topo_loop_apply(&lp, &e->t, e->admin, e->store, 9 * S);
    assert_true(tenv_v3_enabled(e, "interfaces", SW1 ":2"));
    topo_loop_init(&lp, CFG_LOOP_DISABLE);
    topo_loop_note(&lp, topo_view_link_of(e->ctl, (struct topo_end){0x1001, 1}), TOPO_LINK_DOWN);
    assert_int_equal(lp.n, 0);
}

/* topology.enable_on_start = false: a switch and its interfaces met for
 * the first time start disabled (kept over a restart), a new port too; an
 * operator's enable sticks when the switch comes back. */
static void test_start_disabled(void **state)
{
    struct tenv *e = *state;
    const struct rest_ext *v3 = &e->t.ext_topology;
    struct topo_start st;
    const char *sw3 = "00:00:00:00:00:00:10:03";

    topo_start_init(&st, false);
    struct qmsg *up = tenv_up_event(0x1003);
    topo_start_event(&st, up, e->admin, e->store);
    tenv_switch_up(e, 0x1003);
    assert_false(tenv_v3_enabled(e, "switches", sw3));
    assert_false(tenv_v3_enabled(e, "interfaces", "00:00:00:00:00:00:10:03:2"));
    tenv_store_sync(e);
    tenv_restart(e);
    assert_false(tenv_v3_enabled(e, "switches", sw3));
    tenv_expect(e, v3, "POST", "switches/00:00:00:00:00:00:10:03/enable", NULL, 201, NULL);
    tenv_expect(e, v3, "POST", "interfaces/00:00:00:00:00:00:10:03:2/enable", NULL, 200, NULL);
    /* Back again (the same event): what the operator enabled stays. */
    topo_start_event(&st, up, e->admin, e->store);
    assert_true(tenv_v3_enabled(e, "switches", sw3));
    assert_true(tenv_v3_enabled(e, "interfaces", "00:00:00:00:00:00:10:03:2"));
    assert_false(tenv_v3_enabled(e, "interfaces", "00:00:00:00:00:00:10:03:1"));
    free(up);
    /* A port added later starts disabled too; with true nothing changes. */
    struct qmsg *add = tenv_port_event(0x1003, OFPPR_ADD, 4, 0);
    topo_start_event(&st, add, e->admin, e->store);
    tenv_port_status(e, 0x1003, OFPPR_ADD, 4, 0);
    assert_false(tenv_v3_enabled(e, "interfaces", "00:00:00:00:00:00:10:03:4"));
    free(add);
    topo_start_init(&st, true);
    struct qmsg *up4 = tenv_up_event(0x1004);
    topo_start_event(&st, up4, e->admin, e->store);
    tenv_switch_up(e, 0x1004);
    free(up4);
    assert_true(tenv_v3_enabled(e, "switches", "00:00:00:00:00:00:10:04"));
    assert_true(tenv_v3_enabled(e, "switches", SW1));
}

static void test_loop_actions_config(void **state)
{
    unsigned f;
    (void)state;
    assert_int_equal(cfg_loop_actions("log", &f), 0);
    assert_int_equal(f, CFG_LOOP_LOG);
    assert_int_equal(cfg_loop_actions("log, disable", &f), 0);
    assert_int_equal(f, CFG_LOOP_LOG | CFG_LOOP_DISABLE);
    assert_int_equal(cfg_loop_actions("none", &f), 0);
    assert_int_equal(f, 0);
    assert_int_equal(cfg_loop_actions("", &f), -EINVAL);
    assert_int_equal(cfg_loop_actions("shutdown", &f), -EINVAL);
    assert_int_equal(cfg_loop_actions("log,", &f), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_tag_ranges, tenv_setup, tenv_teardown),
        cmocka_unit_test_setup_teardown(test_tag_ranges_vs_a_taker, tenv_setup, tenv_teardown),
        cmocka_unit_test_setup_teardown(test_lldp_vlan_in_use, tenv_setup, tenv_teardown),
        cmocka_unit_test_setup_teardown(test_delete_switch, tenv_setup, tenv_teardown),
        cmocka_unit_test_setup_teardown(test_delete_interface, tenv_setup, tenv_teardown),
        cmocka_unit_test_setup_teardown(test_liveness_judges_the_link, tenv_setup,
                                        tenv_teardown),
        cmocka_unit_test_setup_teardown(test_disable_takes_links, tenv_setup, tenv_teardown),
        cmocka_unit_test_setup_teardown(test_links_kept_over_restart, tenv_setup,
                                        tenv_teardown),
        cmocka_unit_test_setup_teardown(test_loops, tenv_setup, tenv_teardown),
        cmocka_unit_test(test_loop_actions_config),
        cmocka_unit_test_setup_teardown(test_start_disabled, tenv_setup, tenv_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
