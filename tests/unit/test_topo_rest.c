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
#define SW2 "00:00:00:00:00:00:10:02"

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

/* A request's one query argument (NULL key: none), carried in its conn. */
struct query_arg {
    const char *key, *value;
};

static const char *one_query(const struct rest_ext_req *q, const char *key)
{
    const struct query_arg *qa = q->conn;
    return qa && qa->key && strcmp(qa->key, key) == 0 ? qa->value : NULL;
}

/* One request to one of the three routes, with a query argument; the
 * answer in *out. */
static unsigned call_q(struct env *e, const struct rest_ext *ext, const char *method,
                       const char *arg, const char *body, const struct query_arg *qa,
                       json_t **out)
{
    struct rest_ext_req q = {.method = method, .path = arg, .arg = arg, .body = body,
                             .body_len = body ? strlen(body) : 0, .query = one_query,
                             .conn = (void *)qa};
    *out = NULL;
    unsigned status = ext->handle(ext->arg, &q, out);
    assert_false(e->watch.locked);
    return status;
}

static unsigned call(struct env *e, const struct rest_ext *ext, const char *method,
                     const char *arg, const char *body, json_t **out)
{
    return call_q(e, ext, method, arg, body, NULL, out);
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

/* The answer's words: an error's description, or a bare JSON string. */
static const char *words_of(const json_t *out)
{
    const char *d = json_string_value(json_object_get(out, "description"));
    return d ? d : json_is_string(out) ? json_string_value(out) : "";
}

/* method arg body: status, and (words non-NULL) an answer saying them. */
static void expect(struct env *e, const struct rest_ext *ext, const char *method,
                   const char *arg, const char *body, unsigned status, const char *words)
{
    json_t *out;
    unsigned st = call(e, ext, method, arg, body, &out);
    char *text = json_dumps(out, JSON_COMPACT | JSON_ENCODE_ANY);

    if (st != status || (words && !strstr(words_of(out), words)))
        fail_msg("%s %s/%s %s: %u %s, expected %u saying '%s'", method, ext->prefix, arg,
                 body ? body : "", st, text ? text : "null", status, words ? words : "");
    free(text);
    json_decref(out);
}

/* A field of one switch (or interface) as GET topology v3 shows it. */
static json_t *v3_entity(struct env *e, const char *what, const char *id)
{
    json_t *out;
    assert_int_equal(call(e, &e->t.ext_topology, "GET", what, NULL, &out), 200);
    json_t *one = json_incref(json_object_get(json_object_get(out, what), id));
    json_decref(out);
    if (!one)
        fail_msg("GET %s: no %s", what, id);
    return one;
}

static bool v3_enabled(struct env *e, const char *what, const char *id)
{
    json_t *one = v3_entity(e, what, id);
    bool enabled = json_is_true(json_object_get(one, "enabled"));
    json_decref(one);
    return enabled;
}

/* GET arg: 200, and the size of the answer's array key. */
static size_t listed(struct env *e, const struct rest_ext *ext, const char *arg,
                     const struct query_arg *qa, const char *key)
{
    json_t *out;
    assert_int_equal(call_q(e, ext, "GET", arg, NULL, qa, &out), 200);
    size_t n = json_array_size(json_object_get(out, key));
    json_decref(out);
    return n;
}

/* ofcd restarted on the same store: a new admin table, read back. */
static void restart(struct env *e)
{
    topo_admin_destroy(e->admin);
    assert_non_null(e->admin = topo_admin_create(64));
    e->t.admin = e->admin;
    assert_int_equal(topo_rest_load(&e->t, e->store), 0);
}

/* The one link's id. */
static void link_id(struct env *e, char *out, size_t n)
{
    json_t *links, *l;
    const char *id;

    assert_int_equal(call(e, &e->t.ext_topology, "GET", "links", NULL, &links), 200);
    out[0] = '\0';
    json_object_foreach(json_object_get(links, "links"), id, l)
        snprintf(out, n, "%s", id);
    json_decref(links);
    assert_true(out[0]);
}

static void test_switch_enable_disable(void **state)
{
    struct env *e = *state;
    const struct rest_ext *v3 = &e->t.ext_topology;

    assert_true(v3_enabled(e, "switches", SW1));
    expect(e, v3, "POST", "switches/" SW1 "/disable", NULL, 201, "Operation successful");
    assert_false(v3_enabled(e, "switches", SW1));
    json_t *sw = v3_entity(e, "switches", SW1);
    assert_string_equal(json_string_value(json_object_get(sw, "status")), "DISABLED");
    json_decref(sw);
    /* Its interfaces show disabled with it; enabling one first is a 409. */
    assert_false(v3_enabled(e, "interfaces", SW1 ":1"));
    expect(e, v3, "POST", "interfaces/" SW1 ":1/enable", NULL, 409, "Enable Switch first");
    /* Kept over a restart. */
    restart(e);
    assert_false(v3_enabled(e, "switches", SW1));
    assert_true(v3_enabled(e, "switches", SW2));
    expect(e, v3, "POST", "switches/" SW1 "/enable", NULL, 201, "Operation successful");
    assert_true(v3_enabled(e, "switches", SW1));
    restart(e);
    assert_true(v3_enabled(e, "switches", SW1));

    expect(e, v3, "POST", "switches/00:00:00:00:00:00:99:99/disable", NULL, 404,
           "Switch not found");
    expect(e, v3, "POST", "switches/nonsense/disable", NULL, 404, "Switch not found");
    expect(e, v3, "GET", "switches/" SW1 "/disable", NULL, 405, "method GET not allowed");
    expect(e, v3, "POST", "switches/" SW1, NULL, 404, "no such resource");
    expect(e, v3, "POST", "switches", NULL, 405, NULL);
    expect(e, v3, "POST", "", NULL, 405, NULL);
    expect(e, v3, "GET", "nothing", NULL, 404, "no such resource");
}

static void test_interface_enable_disable(void **state)
{
    struct env *e = *state;
    const struct rest_ext *v3 = &e->t.ext_topology;

    expect(e, v3, "POST", "interfaces/" SW1 ":2/disable", NULL, 200, "Operation successful");
    assert_false(v3_enabled(e, "interfaces", SW1 ":2"));
    assert_true(v3_enabled(e, "interfaces", SW1 ":1"));
    json_t *ifc = v3_entity(e, "interfaces", SW1 ":2");
    assert_string_equal(json_string_value(json_object_get(ifc, "status")), "DISABLED");
    json_decref(ifc);
    restart(e);
    assert_false(v3_enabled(e, "interfaces", SW1 ":2"));
    /* A whole switch's interfaces at once. */
    expect(e, v3, "POST", "interfaces/switch/" SW2 "/disable", NULL, 200, NULL);
    for (unsigned p = 1; p <= 3; p++) {
        char id[40];
        snprintf(id, sizeof(id), SW2 ":%u", p);
        assert_false(v3_enabled(e, "interfaces", id));
    }
    expect(e, v3, "POST", "interfaces/switch/" SW2 "/enable", NULL, 200, NULL);
    assert_true(v3_enabled(e, "interfaces", SW2 ":3"));
    expect(e, v3, "POST", "interfaces/" SW1 ":2/enable", NULL, 200, NULL);
    assert_true(v3_enabled(e, "interfaces", SW1 ":2"));

    expect(e, v3, "POST", "interfaces/zz/disable", NULL, 400, "'zz' is not an interface id");
    expect(e, v3, "POST", "interfaces/switch/zz/disable", NULL, 400, "'zz' is not a dpid");
    expect(e, v3, "POST", "interfaces/" SW1 ":9/disable", NULL, 404, "interface 9 not found");
    expect(e, v3, "POST", "interfaces/00:00:00:00:00:00:99:99:1/disable", NULL, 404,
           "Switch not found");
    expect(e, v3, "DELETE", "interfaces/" SW1 ":1/disable", NULL, 405, NULL);
}

static void test_link_disable_and_delete(void **state)
{
    struct env *e = *state;
    const struct rest_ext *v3 = &e->t.ext_topology;
    char id[128], path[192];
    json_t *out;

    link_id(e, id, sizeof(id));
    /* Only a disabled link may be deleted (Kytos). */
    snprintf(path, sizeof(path), "links/%s", id);
    expect(e, v3, "DELETE", path, NULL, 409, "Link is not disabled.");
    snprintf(path, sizeof(path), "links/%s/disable", id);
    expect(e, v3, "POST", path, NULL, 201, "Operation successful");
    assert_false(v3_enabled(e, "links", id));
    assert_true(v3_enabled(e, "switches", SW1));
    snprintf(path, sizeof(path), "links/%s", id);
    expect(e, v3, "GET", path, NULL, 405, NULL);
    expect(e, v3, "DELETE", path, NULL, 200, "Operation successful");
    assert_int_equal(call(e, v3, "GET", "links", NULL, &out), 200);
    assert_int_equal(json_object_size(json_object_get(out, "links")), 0);
    json_decref(out);
    /* Gone: Kytos' words, with and without the full stop. */
    expect(e, v3, "DELETE", path, NULL, 404, "Link not found.");
    snprintf(path, sizeof(path), "links/%s/enable", id);
    expect(e, v3, "POST", path, NULL, 404, "Link not found");
}

static void test_metadata_routes(void **state)
{
    struct env *e = *state;
    const struct rest_ext *v3 = &e->t.ext_topology;
    json_t *out;
    char id[128], path[192];

    expect(e, v3, "POST", "switches/" SW1 "/metadata", "{\"site\": \"lab\", \"rack\": 4}", 201,
           "Operation successful");
    expect(e, v3, "POST", "switches/" SW1 "/metadata", "{\"rack\": 5}", 201, NULL);
    assert_int_equal(call(e, v3, "GET", "switches/" SW1 "/metadata", NULL, &out), 200);
    json_t *m = json_object_get(out, "metadata");
    assert_string_equal(json_string_value(json_object_get(m, "site")), "lab");
    assert_int_equal(json_integer_value(json_object_get(m, "rack")), 5);
    json_decref(out);
    /* Shown with the switch, and kept over a restart. */
    json_t *sw = v3_entity(e, "switches", SW1);
    assert_string_equal(json_string_value(json_object_get(json_object_get(sw, "metadata"),
                                                          "site")), "lab");
    json_decref(sw);
    /* And on ofcd's compact graph, where the dashboard reads positions. */
    assert_int_equal(call(e, &e->t.ext_ofcd, "GET", "", NULL, &out), 200);
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
    restart(e);
    assert_int_equal(meta_keys(e, "switches/" SW1 "/metadata"), 2);
    expect(e, v3, "DELETE", "switches/" SW1 "/metadata/site", NULL, 200, "Operation successful");
    assert_int_equal(meta_keys(e, "switches/" SW1 "/metadata"), 1);
    expect(e, v3, "DELETE", "switches/" SW1 "/metadata/site", NULL, 404, "Metadata not found");
    restart(e);
    assert_int_equal(meta_keys(e, "switches/" SW1 "/metadata"), 1);

    /* An interface's and a link's. */
    expect(e, v3, "POST", "interfaces/" SW1 ":3/metadata", "{\"vlan\": 7}", 201, NULL);
    assert_int_equal(meta_keys(e, "interfaces/" SW1 ":3/metadata"), 1);
    assert_int_equal(meta_keys(e, "interfaces/" SW1 ":2/metadata"), 0);
    link_id(e, id, sizeof(id));
    snprintf(path, sizeof(path), "links/%s/metadata", id);
    expect(e, v3, "POST", path, "{\"cable\": \"c1\"}", 201, NULL);
    assert_int_equal(meta_keys(e, path), 1);

    /* Bad requests. */
    expect(e, v3, "POST", "switches/" SW1 "/metadata", "[1]", 400, "JSON object of metadata");
    expect(e, v3, "POST", "switches/" SW1 "/metadata", "{", 400, "JSON object of metadata");
    expect(e, v3, "POST", "switches/" SW1 "/metadata", NULL, 400, "JSON object of metadata");
    expect(e, v3, "PUT", "switches/" SW1 "/metadata", "{}", 405, NULL);
    expect(e, v3, "DELETE", "switches/" SW1 "/metadata", NULL, 405, NULL);
    expect(e, v3, "GET", "switches/" SW1 "/metadatum", NULL, 404, "no such resource");
    expect(e, v3, "GET", "switches/00:00:00:00:00:00:99:99/metadata", NULL, 404,
           "Switch not found");
}

static void test_lldp_interfaces_and_polling(void **state)
{
    struct env *e = *state;
    const struct rest_ext *lldp = &e->t.ext_lldp;
    json_t *out;

    assert_int_equal(listed(e, lldp, "interfaces", NULL, "interfaces"), 6);
    expect(e, lldp, "POST", "interfaces/disable", "{\"interfaces\": [\"" SW1 ":3\"]}", 200,
           "All the requested interfaces have been disabled.");
    assert_int_equal(listed(e, lldp, "interfaces", NULL, "interfaces"), 5);
    json_t *ifc = v3_entity(e, "interfaces", SW1 ":3");
    assert_true(json_is_false(json_object_get(ifc, "lldp")));
    json_decref(ifc);
    restart(e);
    assert_int_equal(listed(e, lldp, "interfaces", NULL, "interfaces"), 5);
    /* Some not found: 400 listing them, the others done. */
    assert_int_equal(call(e, lldp, "POST", "interfaces/enable",
                          "{\"interfaces\": [\"" SW1 ":3\", \"" SW1 ":9\"]}", &out), 400);
    json_t *missing = json_object_get(out, "Some interfaces couldn't be found and activated: ");
    assert_int_equal(json_array_size(missing), 1);
    assert_string_equal(json_string_value(json_array_get(missing, 0)), SW1 ":9");
    json_decref(out);
    assert_int_equal(listed(e, lldp, "interfaces", NULL, "interfaces"), 6);
    expect(e, lldp, "POST", "interfaces/enable", "{\"ids\": []}", 400,
           "field 'interfaces' must be a list");
    expect(e, lldp, "POST", "interfaces/enable", NULL, 400, "field 'interfaces' must be a list");

    /* The polling time: Kytos' 3 s by default here, set until a restart. */
    assert_int_equal(call(e, lldp, "GET", "polling_time", NULL, &out), 200);
    assert_int_equal(json_integer_value(json_object_get(out, "polling_time")), 3);
    json_decref(out);
    expect(e, lldp, "POST", "polling_time", "{\"polling_time\": 7}", 200,
           "Polling time has been updated.");
    assert_int_equal(call(e, lldp, "GET", "polling_time", NULL, &out), 200);
    assert_int_equal(json_integer_value(json_object_get(out, "polling_time")), 7);
    json_decref(out);
    static const char *const bad[] = {"{\"polling_time\": 0}", "{\"polling_time\": 3601}",
                                      "{\"polling_time\": \"5\"}", "{}", "nonsense"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        expect(e, lldp, "POST", "polling_time", bad[i], 400, "field 'polling_time'");
    assert_int_equal(atomic_load(&e->app.interval_ms), 7000);
    expect(e, lldp, "DELETE", "polling_time", NULL, 405, NULL);
    expect(e, lldp, "GET", "nothing", NULL, 404, "no such resource");
}

static void test_liveness(void **state)
{
    struct env *e = *state;
    const struct rest_ext *lldp = &e->t.ext_lldp;
    json_t *out;

    /* The setup's two ends. */
    assert_int_equal(listed(e, lldp, "liveness/", NULL, "interfaces"), 2);
    struct query_arg qa = {"interface_id", SW1 ":1"};
    assert_int_equal(call_q(e, lldp, "GET", "liveness/", NULL, &qa, &out), 200);
    json_t *one = json_array_get(json_object_get(out, "interfaces"), 0);
    assert_int_equal(json_array_size(json_object_get(out, "interfaces")), 1);
    assert_string_equal(json_string_value(json_object_get(one, "id")), SW1 ":1");
    assert_non_null(json_string_value(json_object_get(one, "status")));
    json_decref(out);
    qa.value = SW1 ":3";
    assert_int_equal(listed(e, lldp, "liveness/", &qa, "interfaces"), 0);

    /* All or nothing: an unknown id or one without LLDP refuses the lot. */
    expect(e, lldp, "POST", "liveness/enable", "{\"interfaces\": []}", 400,
           "Interfaces payload is empty");
    expect(e, lldp, "POST", "liveness/enable", "{}", 400, "Interfaces payload is empty");
    expect(e, lldp, "POST", "liveness/enable",
           "{\"interfaces\": [\"" SW1 ":3\", \"" SW1 ":9\"]}", 404,
           "Interface IDs [\"" SW1 ":9\"] not found");
    expect(e, lldp, "POST", "interfaces/disable", "{\"interfaces\": [\"" SW2 ":3\"]}", 200,
           NULL);
    expect(e, lldp, "POST", "liveness/enable",
           "{\"interfaces\": [\"" SW1 ":3\", \"" SW2 ":3\"]}", 400,
           "Interface IDs [\"" SW2 ":3\"] don't have LLDP enabled");
    assert_int_equal(listed(e, lldp, "liveness/", NULL, "interfaces"), 2);

    assert_int_equal(call(e, lldp, "POST", "liveness/enable",
                          "{\"interfaces\": [\"" SW1 ":3\"]}", &out), 200);
    assert_true(json_is_object(out) && json_object_size(out) == 0);
    json_decref(out);
    assert_int_equal(listed(e, lldp, "liveness/", NULL, "interfaces"), 3);
    /* Disabling one end of the pair leaves no pair. */
    assert_int_equal(listed(e, lldp, "liveness/pair", NULL, "pairs"), 1);
    expect(e, lldp, "POST", "liveness/disable", "{\"interfaces\": [\"" SW1 ":1\"]}", 200, NULL);
    assert_int_equal(listed(e, lldp, "liveness/pair", NULL, "pairs"), 0);
    expect(e, lldp, "PUT", "liveness/enable", "{}", 404, "no such resource");
}

static void test_ofcd_graph_routes(void **state)
{
    struct env *e = *state;

    expect(e, &e->t.ext_ofcd, "POST", "", NULL, 405, NULL);
    expect(e, &e->t.ext_ofcd, "GET", "more", NULL, 404, "no such resource");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_reads_rendered_outside_the_lock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_metadata_capped_on_post, setup, teardown),
        cmocka_unit_test_setup_teardown(test_metadata_capped_at_load, setup, teardown),
        cmocka_unit_test_setup_teardown(test_switch_enable_disable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_interface_enable_disable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_link_disable_and_delete, setup, teardown),
        cmocka_unit_test_setup_teardown(test_metadata_routes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lldp_interfaces_and_polling, setup, teardown),
        cmocka_unit_test_setup_teardown(test_liveness, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ofcd_graph_routes, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
