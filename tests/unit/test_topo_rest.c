/* Unit tests of the topology's REST face (topo_rest.c) over a real switch
 * view, link table, admin table and store: every GET builds its JSON after
 * the switch view's lock is let go (the lock a flag here, jansson's
 * allocator counting what is made while it is set), and an entity's
 * metadata is capped (TOPO_META_MAX_KEYS keys, TOPO_META_MAX_BYTES of JSON)
 * on POST — 413 naming the bound, nothing changed — and when read back
 * from the store. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl_switches.h"
#include "of_event.h"
#include "store.h"
#include "topo_app.h"
#include "topo_keep.h"
#include "topo_rest.h"
#include "view_watch.h"

#define S 1000000ull
#define SW1 "00:00:00:00:00:00:10:01"

struct env {
    char dir[64];
    struct store *store;
    struct ctl_switches *cs;
    struct topo_ctl *ctl;
    struct topo_admin *admin;
    struct topo_app_cfg app;
    struct topo_rest t;
    struct view_watch watch;            /* the switch view's lock */
};

static struct qmsg *event(uint16_t kind, uint64_t dpid, uint64_t t_us, const void *p, size_t len)
{
    struct qmsg *q = calloc(1, sizeof(*q) + sizeof(struct of_event_hdr) + len + 8);
    struct of_event_hdr h = {.dpid = dpid, .time_us = t_us};

    assert_non_null(q);
    q->kind = kind;
    q->conn = dpid;
    q->len = (uint32_t)(sizeof(h) + len);
    memcpy(q->data, &h, sizeof(h));
    if (len)
        memcpy(q->data + sizeof(h), p, len);
    return q;
}

static void switch_up(struct env *e, uint64_t dpid)
{
    struct {
        struct of_event_up up;
        struct ofp_port p[3];
    } ev = {.up = {.version = 4, .n_ports = 3},
            .p = {{.port_no = 1, .name = "p1"}, {.port_no = 2, .name = "p2"},
                  {.port_no = 3, .name = "p3"}}};
    struct qmsg *q = event(QMSG_EV_SWITCH_UP, dpid, 1 * S, &ev, sizeof(ev));
    ctl_switches_handle(e->cs, q);
    topo_ctl_handle(e->ctl, q, 1 * S);
    free(q);
}

/* Our LLDP from (from, fport) seen on (to, tport). */
static void seen(struct env *e, uint64_t from, uint32_t fport, uint64_t to, uint32_t tport)
{
    struct {
        struct of_event_app a;
        struct topo_seen s;
    } p = {{1, sizeof(struct topo_seen)}, {from, fport, tport, 2000}};
    struct qmsg *q = event(QMSG_EV_APP, to, 2 * S, &p, sizeof(p));
    topo_ctl_handle(e->ctl, q, 2 * S);
    free(q);
}

static int setup(void **state)
{
    struct env *e = calloc(1, sizeof(*e));
    assert_non_null(e);
    strcpy(e->dir, "/tmp/test_topo_rest.XXXXXX");
    assert_non_null(mkdtemp(e->dir));
    struct store_config sc = {.dir = e->dir};
    assert_non_null(e->store = store_open(&sc));
    assert_non_null(e->cs = ctl_switches_create(NULL));
    e->watch.cs = e->cs;
    struct topo_ctl_cfg cc = {.app_index = 1, .link_timeout_us = 10 * S, .max_links = 8};
    assert_non_null(e->ctl = topo_ctl_create(&cc));
    assert_non_null(e->admin = topo_admin_create(64));
    atomic_init(&e->app.interval_ms, 3000);
    switch_up(e, 0x1001);
    switch_up(e, 0x1002);
    seen(e, 0x1001, 1, 0x1002, 2);
    seen(e, 0x1002, 2, 0x1001, 1);
    assert_int_equal(topo_live_enable(topo_ctl_live(e->ctl), (struct topo_end){0x1001, 1}), 0);
    assert_int_equal(topo_live_enable(topo_ctl_live(e->ctl), (struct topo_end){0x1002, 2}), 0);
    assert_int_equal(topo_rest_init(&e->t, e->dir), 0);
    e->t.lock_arg = &e->watch;
    e->t.lock = view_watch_lock;
    e->t.unlock = view_watch_unlock;
    e->t.ctl = e->ctl;
    e->t.admin = e->admin;
    e->t.app = &e->app;
    assert_int_equal(topo_rest_load(&e->t, e->store), 0);
    view_watch_begin(&e->watch);
    *state = e;
    return 0;
}

static int teardown(void **state)
{
    struct env *e = *state;
    char path[96];

    view_watch_end();
    topo_rest_fini(&e->t);
    topo_admin_destroy(e->admin);
    topo_ctl_destroy(e->ctl);
    ctl_switches_destroy(e->cs);
    store_close(e->store);
    snprintf(path, sizeof(path), "%s/data.mdb", e->dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/lock.mdb", e->dir);
    unlink(path);
    rmdir(e->dir);
    free(e);
    return 0;
}

static const char *no_query(const struct rest_ext_req *q, const char *key)
{
    (void)q;
    (void)key;
    return NULL;
}

/* One request to one of the three routes; the answer in *out. */
static unsigned call(struct env *e, const struct rest_ext *ext, const char *method,
                     const char *arg, const char *body, json_t **out)
{
    struct rest_ext_req q = {.method = method, .path = arg, .arg = arg, .body = body,
                             .body_len = body ? strlen(body) : 0, .query = no_query};
    *out = NULL;
    unsigned status = ext->handle(ext->arg, &q, out);
    assert_false(e->watch.locked);
    return status;
}

static void test_reads_rendered_outside_the_lock(void **state)
{
    struct env *e = *state;
    static const struct {
        int route;                      /* 0 topology v3, 1 of_lldp v1, 2 /api/v1/topology */
        const char *arg;
    } reads[] = {{0, ""}, {0, "switches"}, {0, "interfaces"}, {0, "links"},
                 {1, "interfaces"}, {1, "liveness/"}, {1, "liveness/pair"}, {2, ""}};
    const struct rest_ext *ext[3] = {&e->t.ext_topology, &e->t.ext_lldp, &e->t.ext_ofcd};

    for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
        json_t *out;
        e->watch.json_allocs_locked = 0;
        assert_int_equal(call(e, ext[reads[i].route], "GET", reads[i].arg, NULL, &out), 200);
        if (e->watch.json_allocs_locked)
            fail_msg("GET %s/%s: %u JSON allocations under the switch view's lock",
                     ext[reads[i].route]->prefix, reads[i].arg, e->watch.json_allocs_locked);
        json_decref(out);
    }
    /* What they show is whole: both switches, their interfaces, the link
     * (active, its ends' interfaces as nni). */
    json_t *out;
    call(e, &e->t.ext_topology, "GET", "", NULL, &out);
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
    call(e, &e->t.ext_lldp, "GET", "liveness/pair", NULL, &out);
    assert_int_equal(json_array_size(json_object_get(out, "pairs")), 1);
    json_decref(out);
    call(e, &e->t.ext_ofcd, "GET", "", NULL, &out);
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

static size_t meta_keys(struct env *e, const char *arg)
{
    json_t *out;
    assert_int_equal(call(e, &e->t.ext_topology, "GET", arg, NULL, &out), 200);
    size_t n = json_object_size(json_object_get(out, "metadata"));
    json_decref(out);
    return n;
}

static void test_metadata_capped_on_post(void **state)
{
    struct env *e = *state;
    json_t *out;
    char *body = keys_body(0, TOPO_META_MAX_KEYS);
    const char *sw = "switches/" SW1 "/metadata";

    assert_int_equal(call(e, &e->t.ext_topology, "POST", sw, body, &out), 201);
    json_decref(out);
    free(body);
    assert_int_equal(meta_keys(e, sw), TOPO_META_MAX_KEYS);
    /* One key more: refused, nothing changed, the bound named. */
    body = keys_body(TOPO_META_MAX_KEYS, TOPO_META_MAX_KEYS + 1);
    assert_int_equal(call(e, &e->t.ext_topology, "POST", sw, body, &out), 413);
    assert_non_null(strstr(json_string_value(json_object_get(out, "description")), "64 keys"));
    json_decref(out);
    free(body);
    assert_int_equal(meta_keys(e, sw), TOPO_META_MAX_KEYS);
    /* A key already there may change. */
    assert_int_equal(call(e, &e->t.ext_topology, "POST", sw, "{\"k1\": \"one\"}", &out), 201);
    json_decref(out);

    /* Too many bytes on an interface, then on a link. */
    size_t big = TOPO_META_MAX_BYTES + 16;
    char *text = malloc(big + 16);
    assert_non_null(text);
    memcpy(text, "{\"note\": \"", 10);
    memset(text + 10, 'x', big);
    strcpy(text + 10 + big, "\"}");
    const char *ifc = "interfaces/" SW1 ":1/metadata";
    assert_int_equal(call(e, &e->t.ext_topology, "POST", ifc, text, &out), 413);
    assert_non_null(strstr(json_string_value(json_object_get(out, "description")), "16384"));
    json_decref(out);
    assert_int_equal(meta_keys(e, ifc), 0);
    call(e, &e->t.ext_topology, "GET", "links", NULL, &out);
    const char *id;
    json_t *l;
    char link[160] = "";
    json_object_foreach(json_object_get(out, "links"), id, l)
        snprintf(link, sizeof(link), "links/%s/metadata", id);
    json_decref(out);
    assert_true(link[0]);
    assert_int_equal(call(e, &e->t.ext_topology, "POST", link, text, &out), 413);
    json_decref(out);
    free(text);
    assert_int_equal(meta_keys(e, link), 0);
}

/* A stored record over the bound (written by an earlier ofcd, or by hand)
 * is not loaded: logged, left in the store, the others loaded. */
static void test_metadata_capped_at_load(void **state)
{
    struct env *e = *state;
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_reads_rendered_outside_the_lock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_metadata_capped_on_post, setup, teardown),
        cmocka_unit_test_setup_teardown(test_metadata_capped_at_load, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
