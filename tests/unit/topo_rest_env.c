/* topo_rest_env: see topo_rest_env.h. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fm.h"
#include "fm_null_env.h"
#include "of_event.h"
#include "ofp_msg.h"
#include "topo_keep.h"
#include "topo_paths.h"
#include "topo_rest_env.h"

static struct qmsg *tenv_event(uint16_t kind, uint64_t dpid, uint64_t t_us, const void *p, size_t len)
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

struct qmsg *tenv_up_event(uint64_t dpid)
{
    struct {
        struct of_event_up up;
        struct ofp_port p[3];
    } ev = {.up = {.version = 4, .n_ports = 3},
            .p = {{.port_no = 1, .name = "p1"}, {.port_no = 2, .name = "p2"},
                  {.port_no = 3, .name = "p3"}}};
    return tenv_event(QMSG_EV_SWITCH_UP, dpid, 1 * S, &ev, sizeof(ev));
}

/* What the topology app's class does with each event (topo_class.c): the
 * kept graph of paths is made again after a switch up or down, a
 * PORT_STATUS or a link's change. */
void tenv_switch_up(struct tenv *e, uint64_t dpid)
{
    struct qmsg *q = tenv_up_event(dpid);
    sw_view_handle(e->cs, q);
    topo_view_handle(e->ctl, q, 1 * S);
    topo_paths_touch(&e->t.paths);
    free(q);
}

void tenv_switch_down(struct tenv *e, uint64_t dpid)
{
    struct qmsg *q = tenv_event(QMSG_EV_SWITCH_DOWN, dpid, 3 * S, NULL, 0);
    sw_view_handle(e->cs, q);
    topo_view_handle(e->ctl, q, 3 * S);
    topo_paths_touch(&e->t.paths);
    free(q);
}

struct qmsg *tenv_port_event(uint64_t dpid, uint8_t reason, uint32_t port, uint32_t state)
{
    struct ofp_msg m;
    uint8_t wire[256];
    struct ofp_buf b;

    memset(&m, 0, sizeof(m));
    m.hdr.version = OFP13_VERSION;
    m.hdr.type = OFPT_PORT_STATUS;
    m.u.port_status.reason = reason;
    m.u.port_status.desc = (struct ofp_port){.port_no = port, .state = state};
    snprintf(m.u.port_status.desc.name, sizeof(m.u.port_status.desc.name), "p%u", port);
    ofp_buf_init(&b, wire, sizeof(wire));
    assert_int_equal(ofp_encode(&b, &m), 0);
    return tenv_event(QMSG_EV_OF, dpid, 3 * S, wire, b.len);
}

void tenv_port_status(struct tenv *e, uint64_t dpid, uint8_t reason, uint32_t port,
                      uint32_t state)
{
    struct qmsg *q = tenv_port_event(dpid, reason, port, state);
    sw_view_handle(e->cs, q);
    topo_view_handle(e->ctl, q, 3 * S);
    topo_paths_touch(&e->t.paths);
    free(q);
}

/* Our LLDP from (from, fport) seen on (to, tport). */
void tenv_seen(struct tenv *e, uint64_t from, uint32_t fport, uint64_t to, uint32_t tport)
{
    struct {
        struct of_event_app a;
        struct topo_seen s;
    } p = {{1, sizeof(struct topo_seen)}, {from, fport, tport, 2000}};
    struct qmsg *q = tenv_event(QMSG_EV_APP, to, 2 * S, &p, sizeof(p));
    topo_view_handle(e->ctl, q, 2 * S);
    free(q);
}

void tenv_seen_at(struct tenv *e, uint64_t from, uint32_t fport, uint64_t to, uint32_t tport,
                  uint64_t now_us)
{
    struct {
        struct of_event_app a;
        struct topo_seen s;
    } p = {{1, sizeof(struct topo_seen)}, {from, fport, tport, now_us}};
    struct qmsg *q = tenv_event(QMSG_EV_APP, to, now_us, &p, sizeof(p));
    topo_view_handle(e->ctl, q, now_us);
    free(q);
}

/* topo_view's on_record, as ofcd wires it but written at once. */
static void keep_record(void *arg, const struct topo_link_rec *l, bool made)
{
    struct tenv *e = arg;
    assert_int_equal(made ? topo_keep_link(e->store, l, l->enabled)
                          : topo_keep_link_del(e->store, l->id), 0);
}

static void link_changed(void *arg, const struct topo_link_rec *l, enum topo_change c)
{
    struct tenv *e = arg;
    (void)l;
    (void)c;
    topo_paths_touch(&e->t.paths);
}

static struct topo_view *make_ctl(struct tenv *e)
{
    struct topo_view_cfg cc = {.app_index = 1, .link_timeout_us = 10 * S, .max_links = 8,
                              .on_record = keep_record, .on_record_arg = e,
                              .on_change = link_changed, .on_change_arg = e};
    return topo_view_create(&cc);
}

int tenv_setup(void **state)
{
    struct tenv *e = calloc(1, sizeof(*e));
    assert_non_null(e);
    strcpy(e->dir, "/tmp/test_topo_rest.XXXXXX");
    assert_non_null(mkdtemp(e->dir));
    struct store_config sc = {.dir = e->dir};
    assert_non_null(e->store = store_open(&sc));
    struct fm_cfg fc = {.queue_max = 16};
    struct fm_env fenv;
    fm_null_env(&fenv);
    assert_non_null(e->fm = fm_create(&fc, &fenv, e->store));
    assert_non_null(e->cs = sw_view_create(NULL));
    e->watch.cs = e->cs;
    assert_non_null(e->ctl = make_ctl(e));
    assert_non_null(e->admin = topo_admin_create(64));
    atomic_init(&e->app.interval_ms, 3000);
    tenv_switch_up(e, 0x1001);
    tenv_switch_up(e, 0x1002);
    tenv_seen(e, 0x1001, 1, 0x1002, 2);
    tenv_seen(e, 0x1002, 2, 0x1001, 1);
    assert_int_equal(topo_live_enable(topo_view_live(e->ctl), (struct topo_end){0x1001, 1}), 0);
    assert_int_equal(topo_live_enable(topo_view_live(e->ctl), (struct topo_end){0x1002, 2}), 0);
    assert_int_equal(topo_rest_init(&e->t, e->dir), 0);
    e->t.lock_arg = &e->watch;
    e->t.lock = view_watch_lock;
    e->t.unlock = view_watch_unlock;
    e->t.ctl = e->ctl;
    e->t.admin = e->admin;
    e->t.app = &e->app;
    e->t.fm = e->fm;
    assert_int_equal(topo_rest_load(&e->t, e->store), 0);
    view_watch_begin(&e->watch);
    *state = e;
    return 0;
}

int tenv_teardown(void **state)
{
    struct tenv *e = *state;
    char path[96];

    view_watch_end();
    topo_rest_fini(&e->t);
    topo_admin_destroy(e->admin);
    topo_view_destroy(e->ctl);
    sw_view_destroy(e->cs);
    store_close(e->store);              /* commits what is queued, hands it to fm */
    fm_destroy(e->fm);
    snprintf(path, sizeof(path), "%s/data.mdb", e->dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/lock.mdb", e->dir);
    unlink(path);
    rmdir(e->dir);
    free(e);
    return 0;
}


static const char *tenv_one_query(const struct rest_ext_req *q, const char *key)
{
    const struct query_arg *qa = q->conn;
    return qa && qa->key && strcmp(qa->key, key) == 0 ? qa->value : NULL;
}

/* One request to one of the three routes, with a query argument; the
 * answer in *out. */
unsigned tenv_call_q(struct tenv *e, const struct rest_ext *ext, const char *method,
                     const char *arg, const char *body, const struct query_arg *qa,
                     json_t **out)
{
    struct rest_ext_req q = {.method = method, .path = arg, .arg = arg, .body = body,
                             .body_len = body ? strlen(body) : 0, .query = tenv_one_query,
                             .conn = (void *)qa};
    *out = NULL;
    unsigned status = ext->handle(ext->arg, &q, out);
    assert_false(e->watch.locked);
    return status;
}

unsigned tenv_call(struct tenv *e, const struct rest_ext *ext, const char *method,
                   const char *arg, const char *body, json_t **out)
{
    return tenv_call_q(e, ext, method, arg, body, NULL, out);
}


static const char *tenv_words_of(const json_t *out)
{
    const char *d = json_string_value(json_object_get(out, "description"));
    return d ? d : json_is_string(out) ? json_string_value(out) : "";
}

/* method arg body: status, and (words non-NULL) an answer saying them. */
void tenv_expect(struct tenv *e, const struct rest_ext *ext, const char *method,
                 const char *arg, const char *body, unsigned status, const char *words)
{
    json_t *out;
    unsigned st = tenv_call(e, ext, method, arg, body, &out);
    char *text = json_dumps(out, JSON_COMPACT | JSON_ENCODE_ANY);

    if (st != status || (words && !strstr(tenv_words_of(out), words)))
        fail_msg("%s %s/%s %s: %u %s, expected %u saying '%s'", method, ext->prefix, arg,
                 body ? body : "", st, text ? text : "null", status, words ? words : "");
    free(text);
    json_decref(out);
}

/* A field of one switch (or interface) as GET topology v3 shows it. */
json_t *tenv_v3_entity(struct tenv *e, const char *what, const char *id)
{
    json_t *out;
    assert_int_equal(tenv_call(e, &e->t.ext_topology, "GET", what, NULL, &out), 200);
    json_t *one = json_incref(json_object_get(json_object_get(out, what), id));
    json_decref(out);
    if (!one)
        fail_msg("GET %s: no %s", what, id);
    return one;
}

bool tenv_v3_enabled(struct tenv *e, const char *what, const char *id)
{
    json_t *one = tenv_v3_entity(e, what, id);
    bool enabled = json_is_true(json_object_get(one, "enabled"));
    json_decref(one);
    return enabled;
}

/* GET arg: 200, and the size of the answer's array key. */
size_t tenv_listed(struct tenv *e, const struct rest_ext *ext, const char *arg,
                   const struct query_arg *qa, const char *key)
{
    json_t *out;
    assert_int_equal(tenv_call_q(e, ext, "GET", arg, NULL, qa, &out), 200);
    size_t n = json_array_size(json_object_get(out, key));
    json_decref(out);
    return n;
}

/* ofcd restarted on the same store: a new admin table, read back. */
void tenv_restart(struct tenv *e)
{
    topo_admin_destroy(e->admin);
    assert_non_null(e->admin = topo_admin_create(64));
    e->t.admin = e->admin;
    assert_int_equal(topo_rest_load(&e->t, e->store), 0);
}

struct synced {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
};

static void sync_done(void *arg, int rc)
{
    struct synced *s = arg;
    assert_int_equal(rc, 0);
    pthread_mutex_lock(&s->lock);
    s->done = true;
    pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->lock);
}

void tenv_store_sync(struct tenv *e)
{
    struct synced s = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false};
    assert_int_equal(store_sync_async(e->store, sync_done, &s), 0);
    pthread_mutex_lock(&s.lock);
    while (!s.done)
        pthread_cond_wait(&s.cond, &s.lock);
    pthread_mutex_unlock(&s.lock);
}

void tenv_restart_all(struct tenv *e)
{
    topo_view_destroy(e->ctl);
    assert_non_null(e->ctl = make_ctl(e));
    e->t.ctl = e->ctl;
    tenv_restart(e);
}

/* The one link's id. */
void tenv_link_id(struct tenv *e, char *out, size_t n)
{
    json_t *links, *l;
    const char *id;

    assert_int_equal(tenv_call(e, &e->t.ext_topology, "GET", "links", NULL, &links), 200);
    out[0] = '\0';
    json_object_foreach(json_object_get(links, "links"), id, l)
        snprintf(out, n, "%s", id);
    json_decref(links);
    assert_true(out[0]);
}
