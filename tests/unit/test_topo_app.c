/* Unit tests of the topology app's control-side pieces: what operators
 * switch off (topo_admin: defaults, flags, a full table), the link records
 * the control thread builds from the workers' events (topo_view: up both
 * ways with Kytos-ng's link id, down at once on PORT_STATUS and switch down,
 * after the timeout on silence, kept while down, bad events counted). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "of_event.h"
#include "of_switch.h"
#include "ofp_msg.h"
#include "topo_admin.h"
#include "topo_app.h"
#include "store.h"
#include "topo_view.h"
#include "topo_keep.h"
#include "topo_live.h"

#define S 1000000ull

static void test_admin_defaults_and_flags(void **state)
{
    (void)state;
    struct topo_admin *a = topo_admin_create(4);
    assert_non_null(a);
    assert_int_equal(topo_admin_get(a, 1, 1), 0);
    assert_false(topo_admin_lldp_off(a, 1, 1));
    assert_int_equal(topo_admin_set(a, 1, 2, TOPO_ADMIN_NO_LLDP), 0);
    assert_true(topo_admin_lldp_off(a, 1, 2));
    assert_false(topo_admin_lldp_off(a, 1, 1));
    /* The switch disabled switches off every port's LLDP. */
    assert_int_equal(topo_admin_set(a, 1, TOPO_ADMIN_SWITCH, TOPO_ADMIN_DISABLED), 0);
    assert_true(topo_admin_lldp_off(a, 1, 1));
    assert_false(topo_admin_lldp_off(a, 2, 1));
    assert_int_equal(topo_admin_set(a, 1, TOPO_ADMIN_SWITCH, 0), 0);
    assert_false(topo_admin_lldp_off(a, 1, 1));
    assert_int_equal(topo_admin_set(a, 1, 2, 0), 0);
    assert_false(topo_admin_lldp_off(a, 1, 2));
    /* Four entries fit (cleared ones keep their slot); a fifth is refused,
     * a change to a known one is not, and setting a default costs nothing. */
    assert_int_equal(topo_admin_set(a, 3, 1, TOPO_ADMIN_DISABLED), 0);
    assert_int_equal(topo_admin_set(a, 3, 2, TOPO_ADMIN_DISABLED), 0);
    assert_int_equal(topo_admin_set(a, 3, 3, TOPO_ADMIN_DISABLED), -ENOSPC);
    assert_int_equal(topo_admin_set(a, 3, 3, 0), 0);
    assert_int_equal(topo_admin_set(a, 3, 2, TOPO_ADMIN_LIVENESS), 0);
    assert_int_equal(topo_admin_get(a, 3, 2), TOPO_ADMIN_LIVENESS);
    topo_admin_destroy(a);
}

/* An event as the worker posts it. */
static struct qmsg *ev(uint16_t kind, uint64_t dpid, uint64_t t_us, const void *p, size_t len)
{
    struct qmsg *q = calloc(1, sizeof(*q) + sizeof(struct of_event_hdr) + len + 8);
    struct of_event_hdr h = {.dpid = dpid, .time_us = t_us};
    assert_non_null(q);
    q->kind = kind;
    q->len = (uint32_t)(sizeof(h) + len);
    memcpy(q->data, &h, sizeof(h));
    if (len)
        memcpy(q->data + sizeof(h), p, len);
    return q;
}

/* A frame of ours sent from (from, fport) at sent_us, received on (to,
 * tport), reaching the control thread at now. */
static void seen_at(struct topo_view *t, unsigned app, uint64_t from, uint32_t fport, uint64_t to,
                    uint32_t tport, uint64_t sent_us, uint64_t now)
{
    struct {
        struct of_event_app a;
        struct topo_seen s;
    } p = {{app, sizeof(struct topo_seen)}, {from, fport, tport, sent_us}};
    struct qmsg *q = ev(QMSG_EV_APP, to, now, &p, sizeof(p));
    topo_view_handle(t, q, now);
    free(q);
}

/* The same, sent just before it arrived. */
static void seen(struct topo_view *t, unsigned app, uint64_t from, uint32_t fport, uint64_t to,
                 uint32_t tport, uint64_t now)
{
    seen_at(t, app, from, fport, to, tport, now - 1000, now);
}

struct found {
    unsigned n, active;
    const struct topo_link_rec *last;
};

static void count_links(void *arg, const struct topo_link_rec *l)
{
    struct found *f = arg;
    f->n++;
    f->active += l->active;
    f->last = l;
}

static struct found links(struct topo_view *t)
{
    struct found f = {0};
    topo_view_each(t, count_links, &f);
    return f;
}

static struct topo_view *ctl(void)
{
    struct topo_view_cfg c = {.app_index = 1, .link_timeout_us = 10 * S, .max_links = 2};
    struct topo_view *t = topo_view_create(&c);
    assert_non_null(t);
    return t;
}

static void test_link_id_is_kytos(void **state)
{
    (void)state;
    char id[TOPO_LINK_ID_LEN + 1], rev[TOPO_LINK_ID_LEN + 1];
    /* hashlib.sha256(b"00:00:00:00:00:00:10:01:1:00:00:00:00:00:00:10:02:2") */
    topo_link_id((struct topo_end){0x1001, 1}, (struct topo_end){0x1002, 2}, id);
    assert_string_equal(id, "d562bac367c47c1dc59fa159c2e3a632a86ed74376f7d9935a1cc96298f4a5b9");
    topo_link_id((struct topo_end){0x1002, 2}, (struct topo_end){0x1001, 1}, rev);
    assert_string_equal(id, rev);
}

static void test_ctl_up_both_ways_then_port_status(void **state)
{
    (void)state;
    struct topo_view *t = ctl();
    struct topo_view_stats st;

    seen(t, 1, 0x1001, 1, 0x1002, 2, 1 * S);
    assert_int_equal(links(t).active, 0);          /* one way is not a link */
    seen(t, 0, 0x1002, 2, 0x1001, 1, 1 * S);       /* another app's event: not ours */
    assert_int_equal(links(t).active, 0);
    seen(t, 1, 0x1002, 2, 0x1001, 1, 2 * S);
    struct found f = links(t);
    assert_int_equal(f.n, 1);
    assert_int_equal(f.active, 1);
    assert_string_equal(f.last->id,
                        "d562bac367c47c1dc59fa159c2e3a632a86ed74376f7d9935a1cc96298f4a5b9");
    assert_int_equal(f.last->a.dpid, 0x1001);
    assert_true(f.last->enabled);
    assert_ptr_equal(topo_view_link_of(t, (struct topo_end){0x1002, 2}), f.last);
    assert_ptr_equal(topo_view_find(t, f.last->id), f.last);

    /* PORT_STATUS with the link down on 0x1002:2 takes it down at once and
     * the record stays, inactive; a PORT_STATUS of another port does not. */
    struct ofp_msg m;
    uint8_t wire[256];
    struct ofp_buf b;
    memset(&m, 0, sizeof(m));
    m.hdr.version = OFP13_VERSION;
    m.hdr.type = OFPT_PORT_STATUS;
    m.u.port_status.reason = OFPPR_MODIFY;
    m.u.port_status.desc = (struct ofp_port){.port_no = 3, .name = "p3",
                                             .state = OFPPS_LINK_DOWN};
    ofp_buf_init(&b, wire, sizeof(wire));
    assert_int_equal(ofp_encode(&b, &m), 0);
    struct qmsg *q = ev(QMSG_EV_OF, 0x1002, 3 * S, wire, b.len);
    topo_view_handle(t, q, 3 * S);
    free(q);
    assert_int_equal(links(t).active, 1);
    m.u.port_status.desc.port_no = 2;
    ofp_buf_init(&b, wire, sizeof(wire));
    assert_int_equal(ofp_encode(&b, &m), 0);
    q = ev(QMSG_EV_OF, 0x1002, 3 * S, wire, b.len);
    topo_view_handle(t, q, 3 * S);
    free(q);
    f = links(t);
    assert_int_equal(f.n, 1);
    assert_int_equal(f.active, 0);
    assert_string_equal(f.last->why, "a port went down");
    topo_view_get_stats(t, &st);
    assert_int_equal(st.links_up, 1);
    assert_int_equal(st.links_down, 1);
    assert_int_equal(st.links, 1);
    assert_int_equal(st.links_active, 0);
    topo_view_destroy(t);
}

static void test_ctl_switch_down_timeout_and_room(void **state)
{
    (void)state;
    struct topo_view *t = ctl();
    struct topo_view_stats st;

    seen(t, 1, 0x1, 1, 0x2, 1, 1 * S);
    seen(t, 1, 0x2, 1, 0x1, 1, 1 * S);
    seen(t, 1, 0x2, 2, 0x3, 1, 1 * S);
    seen(t, 1, 0x3, 1, 0x2, 2, 1 * S);
    assert_int_equal(links(t).active, 2);
    /* Switch 3 goes: its link goes at once, the other stays. */
    struct qmsg *q = ev(QMSG_EV_SWITCH_DOWN, 0x3, 2 * S, NULL, 0);
    topo_view_handle(t, q, 2 * S);
    free(q);
    assert_int_equal(links(t).active, 1);
    /* Silence past the timeout takes the other down. */
    topo_view_tick(t, 5 * S);
    assert_int_equal(links(t).active, 1);
    topo_view_tick(t, 12 * S);
    assert_int_equal(links(t).active, 0);
    /* The records are full (2) with inactive links: a new one replaces the
     * oldest. */
    seen(t, 1, 0x4, 1, 0x5, 1, 13 * S);
    seen(t, 1, 0x5, 1, 0x4, 1, 13 * S);
    struct found f = links(t);
    assert_int_equal(f.n, 2);
    assert_int_equal(f.active, 1);
    assert_null(topo_view_link_of(t, (struct topo_end){0x1, 1}));
    /* A malformed event is counted, not read. */
    struct of_event_app bad = {1, 3};
    q = ev(QMSG_EV_APP, 0x9, 14 * S, &bad, sizeof(bad));
    topo_view_handle(t, q, 14 * S);
    free(q);
    topo_view_get_stats(t, &st);
    assert_int_equal(st.bad_events, 1);
    topo_view_destroy(t);
}

/* A frame of ours is accepted only if sent after the last one accepted
 * from its sender port: the same frame relayed onto another port makes no
 * link there and does not take the real one down ("linked elsewhere"), and
 * replays of a link's frames keep nothing up: with only replays coming it
 * goes down on the timeout as if silent. */
static void test_ctl_replays_refused(void **state)
{
    (void)state;
    struct topo_view *t = ctl();

    seen_at(t, 1, 0x1001, 1, 0x1002, 2, 1 * S - 500, 1 * S);
    seen_at(t, 1, 0x1002, 2, 0x1001, 1, 1 * S - 400, 1 * S);
    assert_int_equal(links(t).active, 1);
    seen_at(t, 1, 0x1001, 1, 0x1003, 3, 1 * S - 500, 1 * S + 100000);
    struct found f = links(t);
    assert_int_equal(f.n, 1);
    assert_int_equal(f.active, 1);
    assert_null(topo_view_link_of(t, (struct topo_end){0x1003, 3}));
    for (uint64_t s = 2; s <= 12; s++) {
        seen_at(t, 1, 0x1001, 1, 0x1002, 2, 1 * S - 500, s * S);
        seen_at(t, 1, 0x1002, 2, 0x1001, 1, 1 * S - 400, s * S);
        topo_view_tick(t, s * S);
    }
    assert_int_equal(links(t).active, 0);
    struct topo_view_stats st;
    topo_view_get_stats(t, &st);
    assert_int_equal(st.replays, 3);              /* the relay, and both at 2 s */
    assert_int_equal(st.stale, 20);               /* from 3 s on: past lldp_max_age (2 s) */
    topo_view_destroy(t);
}

/* Liveness: init until two hellos, up while they come, down after the dead
 * interval (and the count starts again); off means no state at all; a pair
 * is init/down/up as Kytos-ng's LSM aggregates. */
static void test_liveness(void **state)
{
    (void)state;
    struct topo_live *l = topo_live_create(2, 5 * S);
    struct topo_end a = {0x1, 1}, b = {0x2, 1}, c = {0x3, 1};

    assert_int_equal(topo_live_enable(l, a), 0);
    assert_int_equal(topo_live_enable(l, b), 0);
    assert_int_equal(topo_live_enable(l, a), 0);        /* already on */
    assert_int_equal(topo_live_enable(l, c), -ENOSPC);  /* max 2 */
    assert_false(topo_live_hello(l, c, 1 * S, 0));      /* off: nothing kept */
    assert_null(topo_live_find(l, c));

    assert_false(topo_live_hello(l, a, 1 * S, 1));
    assert_int_equal(topo_live_find(l, a)->state, TOPO_LIVE_INIT);
    assert_true(topo_live_hello(l, a, 2 * S, 2));
    assert_int_equal(topo_live_find(l, a)->state, TOPO_LIVE_UP);
    assert_int_equal(topo_live_pair(topo_live_find(l, a), topo_live_find(l, b)), TOPO_LIVE_INIT);
    topo_live_hello(l, b, 2 * S, 2);
    topo_live_hello(l, b, 3 * S, 3);
    assert_int_equal(topo_live_pair(topo_live_find(l, a), topo_live_find(l, b)), TOPO_LIVE_UP);

    /* One way fails: a hears nothing more, b still does. */
    for (uint64_t t = 4; t <= 7; t++)
        topo_live_hello(l, b, t * S, (int64_t)t);
    assert_int_equal(topo_live_reap(l, 7 * S), 0);      /* 5 s since a's last: not past it */
    assert_int_equal(topo_live_reap(l, 7 * S + 1), 1);
    assert_int_equal(topo_live_find(l, a)->state, TOPO_LIVE_DOWN);
    assert_int_equal(topo_live_find(l, b)->state, TOPO_LIVE_UP);
    assert_int_equal(topo_live_pair(topo_live_find(l, a), topo_live_find(l, b)), TOPO_LIVE_DOWN);
    assert_string_equal(topo_live_name(TOPO_LIVE_DOWN), "down");
    /* Back: two hellos again. */
    assert_false(topo_live_hello(l, a, 10 * S, 10));
    assert_true(topo_live_hello(l, a, 11 * S, 11));
    topo_live_disable(l, a);
    assert_null(topo_live_find(l, a));
    assert_int_equal(topo_live_enable(l, c), 0);        /* room again */
    topo_live_destroy(l);
}

struct one_link {
    const struct topo_link_rec *l;
    unsigned n;
};

static void take_link(void *arg, const struct topo_link_rec *l)
{
    struct one_link *o = arg;
    o->l = l;
    o->n++;
}

/* What an operator set survives a restart: written through topo_keep,
 * the store closed and opened again, read back into a fresh table. */
static void test_keep_over_restart(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_topo_keep.XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    struct store_config sc = {.dir = dir};
    struct store *s = store_open(&sc);
    assert_non_null(s);
    struct topo_view *c1 = ctl();
    struct topo_end a = {0x1001, 1}, b = {0x1002, 2};
    assert_int_equal(topo_view_restore(c1, a, b, true), 0);
    struct one_link o = {0};
    topo_view_each(c1, take_link, &o);
    assert_int_equal(o.n, 1);

    json_t *m = json_pack("{s:s, s:i}", "owner", "ring", "weight", 7);
    assert_int_equal(topo_keep_meta(s, "link", o.l->id, m), 0);
    assert_int_equal(topo_keep_meta(s, "switch", "00:00:00:00:00:00:10:01", m), 0);
    json_t *empty = json_object();
    assert_int_equal(topo_keep_meta(s, "switch", "00:00:00:00:00:00:10:01", empty), 0);
    assert_int_equal(topo_keep_admin(s, 0x1001, TOPO_ADMIN_SWITCH, TOPO_ADMIN_DISABLED), 0);
    assert_int_equal(topo_keep_admin(s, 0x1002, 2, TOPO_ADMIN_NO_LLDP | TOPO_ADMIN_LIVENESS), 0);
    assert_int_equal(topo_keep_admin(s, 0x1002, 3, TOPO_ADMIN_DISABLED), 0);
    assert_int_equal(topo_keep_admin(s, 0x1002, 3, 0), 0);       /* back to default: gone */
    assert_int_equal(topo_keep_link(s, o.l, false), 0);
    /* A record that does not parse is skipped, not fatal. */
    assert_int_equal(store_kv_put(s, "topology/admin/nonsense", "x", 1), 0);
    char id1[TOPO_LINK_ID_LEN + 1];
    strcpy(id1, o.l->id);                         /* o.l goes with c1 */
    store_close(s);
    topo_view_destroy(c1);

    s = store_open(&sc);
    assert_non_null(s);
    struct topo_admin *ad = topo_admin_create(16);
    struct topo_view *c2 = ctl();
    json_t *meta = NULL;
    assert_int_equal(topo_keep_load(s, &meta, ad, c2), 0);
    char *text = json_dumps(meta, JSON_COMPACT | JSON_SORT_KEYS);
    char want[256];
    snprintf(want, sizeof(want), "{\"link\":{\"%s\":{\"owner\":\"ring\",\"weight\":7}}}",
             id1);
    assert_string_equal(text, want);
    free(text);
    assert_int_equal(topo_admin_get(ad, 0x1001, TOPO_ADMIN_SWITCH), TOPO_ADMIN_DISABLED);
    assert_int_equal(topo_admin_get(ad, 0x1002, 2), TOPO_ADMIN_NO_LLDP | TOPO_ADMIN_LIVENESS);
    assert_int_equal(topo_admin_get(ad, 0x1002, 3), 0);
    assert_non_null(topo_live_find(topo_view_live(c2), b));   /* liveness on again */
    struct one_link o2 = {0};
    topo_view_each(c2, take_link, &o2);
    assert_int_equal(o2.n, 1);                                  /* disabled, not yet seen */
    assert_false(o2.l->enabled);
    assert_false(o2.l->active);
    assert_int_equal(o2.l->a.dpid, a.dpid);
    assert_int_equal(o2.l->b.port, b.port);
    /* Forgotten (DELETE links/{id}): gone, and once only. */
    char lid[TOPO_LINK_ID_LEN + 1];
    strcpy(lid, o2.l->id);
    assert_int_equal(topo_view_forget(c2, lid), 0);
    assert_null(topo_view_find(c2, lid));
    assert_int_equal(topo_view_forget(c2, lid), -ENOENT);

    json_decref(meta);
    json_decref(m);
    json_decref(empty);
    topo_view_destroy(c2);
    topo_admin_destroy(ad);
    store_close(s);
    snprintf(path, sizeof(path), "%s/data.mdb", dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/lock.mdb", dir);
    unlink(path);
    rmdir(dir);
}

/* The worker's side of the app hooks, as the topology app sees it: what
 * it sends (PACKET_OUT ports) is recorded. */
static uint32_t sent_ports[16];
static uint8_t sent_frames[16][TOPO_LLDP_FRAME_LEN];
static unsigned n_sent;

int of_app_send(struct of_app_out *out, struct ofp_msg *m)
{
    (void)out;
    assert_int_equal(m->hdr.type, OFPT_PACKET_OUT);
    assert_int_equal(m->u.packet_out.actions.n, 1);
    assert_int_equal(m->u.packet_out.data_len, TOPO_LLDP_FRAME_LEN);
    if (n_sent < 16) {
        memcpy(sent_frames[n_sent], m->u.packet_out.data, TOPO_LLDP_FRAME_LEN);
        sent_ports[n_sent++] = m->u.packet_out.actions.arr[0].u.output.port;
    }
    return 0;
}

static bool sent_asks(unsigned i, const struct topo_app_cfg *cfg)
{
    struct topo_lldp_id id;
    uint8_t key[TOPO_LLDP_KEY_LEN];
    topo_app_get_key(cfg, key);
    assert_int_equal(topo_lldp_parse(sent_frames[i], TOPO_LLDP_FRAME_LEN, key, 1000 * S,
                                     UINT64_MAX, TOPO_LLDP_SKEW_US, &id), TOPO_LLDP_OURS);
    return id.ask;
}

static struct topo_seen last_seen;

int of_app_event(struct of_app_out *out, const void *data, size_t len)
{
    (void)out;
    assert_int_equal(len, sizeof(last_seen));
    memcpy(&last_seen, data, sizeof(last_seen));
    return 0;
}

/* A port that comes back up is probed at once (its link is known within a
 * round trip, not a round later); one that is down, deleted or has LLDP
 * off is not; a PORT_STATUS flood gets one probe per 5 ms per switch. */
static void test_port_up_probed_at_once(void **state)
{
    (void)state;
    struct topo_admin *ad = topo_admin_create(8);
    struct topo_app_cfg cfg = {.admin = ad, .max_age_ms = 10000};
    struct of_app app;
    struct ofp_port ports[2] = {{.port_no = 1}, {.port_no = 2}};
    struct of_port_list pl = {ports, 2, 2};
    struct of_app_switch sw = {.dpid = 0x1001, .ports = &pl};
    struct ofp_port_status ps = {.reason = OFPPR_MODIFY, .desc = {.port_no = 2}};

    atomic_init(&cfg.interval_ms, 3000);
    topo_app_init(&app, &cfg);
    assert_non_null(app.on_port_status);
    app.on_switch_up(app.arg, &sw, 1 * S, NULL);
    n_sent = 0;
    app.on_port_status(app.arg, &sw, &ps, 2 * S, NULL);
    assert_int_equal(n_sent, 1);
    assert_int_equal(sent_ports[0], 2);
    assert_true(sent_asks(0, &cfg));              /* the other end should answer */
    /* Another within 5 ms: limited. */
    ps.desc.port_no = 1;
    app.on_port_status(app.arg, &sw, &ps, 2 * S + 4000, NULL);
    assert_int_equal(n_sent, 1);
    /* Down, deleted, LLDP off: nothing. */
    ps.desc.state = OFPPS_LINK_DOWN;
    app.on_port_status(app.arg, &sw, &ps, 3 * S, NULL);
    ps.desc.state = 0;
    ps.reason = OFPPR_DELETE;
    app.on_port_status(app.arg, &sw, &ps, 4 * S, NULL);
    ps.reason = OFPPR_ADD;
    assert_int_equal(topo_admin_set(ad, 0x1001, 1, TOPO_ADMIN_NO_LLDP), 0);
    app.on_port_status(app.arg, &sw, &ps, 5 * S, NULL);
    assert_int_equal(n_sent, 1);
    assert_int_equal(topo_admin_set(ad, 0x1001, 1, 0), 0);
    app.on_port_status(app.arg, &sw, &ps, 6 * S, NULL);
    assert_int_equal(n_sent, 2);
    assert_int_equal(sent_ports[1], 1);
    /* The other end: an asking probe arrives on its port 2 and is answered
     * there at once, with a probe that does not ask (no ping-pong). */
    struct of_app_switch peer = {.dpid = 0x1002, .ports = &pl};
    app.on_switch_up(app.arg, &peer, 1 * S, NULL);
    struct ofp_packet_in pi = {.data = sent_frames[0], .data_len = TOPO_LLDP_FRAME_LEN};
    ofp_match_init(&pi.match);
    assert_int_equal(ofp_match_set_uint(&pi.match, OFPXMT_OFB_IN_PORT, 2), 0);
    app.on_packet_in(app.arg, &peer, &pi, 2 * S + 1000, NULL);
    assert_int_equal(n_sent, 3);
    assert_int_equal(sent_ports[2], 2);
    assert_false(sent_asks(2, &cfg));
    /* Its answer, received back at the first switch, asks nothing more. */
    pi.data = sent_frames[2];
    app.on_packet_in(app.arg, &sw, &pi, 2 * S + 2000, NULL);
    assert_int_equal(n_sent, 3);
    app.on_switch_down(app.arg, &peer);
    struct topo_app_stats st;
    topo_app_get_stats(&cfg, &st);
    assert_int_equal(st.lldp_prompt_limited, 1);
    assert_int_equal(st.lldp_sent, 3);
    assert_int_equal(st.lldp_answered, 1);
    app.on_switch_down(app.arg, &sw);
    topo_admin_destroy(ad);
}

/* Two probes of one port in the same loop (a round's and a PORT_STATUS's)
 * carry different send times, later for the later one: the control thread
 * would take the second for a replay otherwise. */
static void test_probe_send_times_increase(void **state)
{
    (void)state;
    struct topo_admin *ad = topo_admin_create(8);
    struct topo_app_cfg cfg = {.admin = ad, .max_age_ms = 2000};
    struct of_app app;
    struct ofp_port ports[1] = {{.port_no = 1}};
    struct of_port_list pl = {ports, 1, 1};
    struct of_app_switch sw = {.dpid = 0x1001, .ports = &pl};
    struct ofp_port_status ps = {.reason = OFPPR_MODIFY, .desc = {.port_no = 1}};
    struct topo_lldp_id a, b;
    uint8_t key[TOPO_LLDP_KEY_LEN];

    topo_app_get_key(&cfg, key);
    atomic_init(&cfg.interval_ms, 3000);
    topo_app_init(&app, &cfg);
    app.on_switch_up(app.arg, &sw, 1 * S, NULL);
    n_sent = 0;
    app.on_tick(app.arg, &sw, 2 * S, NULL);
    app.on_port_status(app.arg, &sw, &ps, 2 * S, NULL);
    assert_int_equal(n_sent, 2);
    assert_int_equal(topo_lldp_parse(sent_frames[0], TOPO_LLDP_FRAME_LEN, key, 2 * S,
                                     2000000, TOPO_LLDP_SKEW_US, &a), TOPO_LLDP_OURS);
    assert_int_equal(topo_lldp_parse(sent_frames[1], TOPO_LLDP_FRAME_LEN, key, 2 * S,
                                     2000000, TOPO_LLDP_SKEW_US, &b), TOPO_LLDP_OURS);
    assert_true(b.sent_us > a.sent_us);
    app.on_switch_down(app.arg, &sw);
    topo_admin_destroy(ad);
}

/* A probe from a's port 1 sent at sent_us (a tick of a's), received on
 * b's port 1 at now_us. */
static void probe_back(struct of_app *app, struct of_app_switch *a, struct of_app_switch *b,
                       uint64_t sent_us, uint64_t now_us)
{
    struct ofp_packet_in pi = {.data = sent_frames[0], .data_len = TOPO_LLDP_FRAME_LEN};

    n_sent = 0;
    app->on_tick(app->arg, a, sent_us, NULL);
    assert_true(n_sent >= 1);
    ofp_match_init(&pi.match);
    assert_int_equal(ofp_match_set_uint(&pi.match, OFPXMT_OFB_IN_PORT, 1), 0);
    app->on_packet_in(app->arg, b, &pi, now_us, NULL);
}

/* The spacing b's next tick takes at now_us (its ports spread over its
 * stretched interval). */
static uint64_t tick_spacing(struct of_app *app, struct of_app_switch *b, uint64_t now_us)
{
    app->on_tick(app->arg, b, now_us, NULL);
    return b->next_tick_us - now_us;
}

/* Frames of ours that come back late (past max_age / 4) slow the probing of
 * the switch they come back on, x2 per interval up to half the link
 * timeout; frames back on time speed it up by an eighth per interval.
 * Neither a stale frame (a replay) nor one in between moves it. Without
 * this an overloaded lcore queued its own probes until all were stale and
 * every link of a 1,000-switch fat-tree flapped. */
static void test_probing_slows_when_frames_come_back_late(void **state)
{
    (void)state;
    struct topo_admin *ad = topo_admin_create(8);
    struct topo_app_cfg cfg = {.admin = ad, .max_age_ms = 2000, .link_timeout_ms = 5000};
    struct of_app app;
    struct ofp_port pa[1] = {{.port_no = 1}}, pb[4] = {{.port_no = 1}, {.port_no = 2},
                                                        {.port_no = 3}, {.port_no = 4}};
    struct of_port_list la = {pa, 1, 1}, lb = {pb, 4, 4};
    struct of_app_switch a = {.dpid = 0xa, .ports = &la}, b = {.dpid = 0xb, .ports = &lb};
    struct topo_app_stats st;
    uint64_t t = 10 * S;

    atomic_init(&cfg.interval_ms, 1000);
    topo_app_init(&app, &cfg);
    app.on_switch_up(app.arg, &a, 1 * S, NULL);
    app.on_switch_up(app.arg, &b, 1 * S, NULL);
    for (int i = 0; i < 4; i++)                 /* b's first (fast) round */
        app.on_tick(app.arg, &b, 2 * S + (uint64_t)i * 10000, NULL);
    assert_int_equal(tick_spacing(&app, &b, 3 * S), 250000);   /* 4 ports over 1 s */

    /* Back in 100 ms: on time, nothing to undo. */
    probe_back(&app, &a, &b, t, t + 100000);
    assert_int_equal(tick_spacing(&app, &b, t + 100000), 250000);
    /* 600 ms: late. b's interval doubles; a second late frame within it
     * changes nothing. */
    t += S;
    probe_back(&app, &a, &b, t, t + 600000);
    assert_int_equal(tick_spacing(&app, &b, t + 600000), 500000);
    probe_back(&app, &a, &b, t + 700000, t + 1400000);
    assert_int_equal(tick_spacing(&app, &b, t + 1400000), 500000);
    /* Two seconds on, late again: x2 would be 4 s, past half the link
     * timeout (2.5 s): 2.5 s. */
    t += 3 * S;
    probe_back(&app, &a, &b, t, t + 900000);
    assert_int_equal(tick_spacing(&app, &b, t + 900000), 625000);
    t += 3 * S;
    probe_back(&app, &a, &b, t, t + 900000);
    assert_int_equal(tick_spacing(&app, &b, t + 900000), 625000);
    /* Stale (2.5 s: a replay, or a queue past saving) and in between
     * (400 ms) move nothing; on time (200 ms) takes an eighth off, once per
     * interval. */
    t += 3 * S;
    probe_back(&app, &a, &b, t, t + 2500000);
    probe_back(&app, &a, &b, t + 2600000, t + 3000000);
    assert_int_equal(tick_spacing(&app, &b, t + 3000000), 625000);
    probe_back(&app, &a, &b, t + 3000001, t + 3200000);
    probe_back(&app, &a, &b, t + 3300000, t + 3500000);
    assert_int_equal(tick_spacing(&app, &b, t + 3500000), 593750);   /* 19/8 s / 4 */
    topo_app_get_stats(&cfg, &st);
    assert_int_equal(st.lldp_slowed, 2);
    assert_int_equal(st.lldp_sped_up, 1);
    assert_int_equal(st.lldp_stale, 1);

    /* No link timeout known: never slowed. */
    cfg.link_timeout_ms = 0;
    t += 10 * S;
    probe_back(&app, &a, &b, t, t + 900000);
    probe_back(&app, &a, &b, t + 5 * S, t + 5 * S + 900000);
    topo_app_get_stats(&cfg, &st);
    assert_int_equal(st.lldp_slowed, 2);
    app.on_switch_down(app.arg, &a);
    app.on_switch_down(app.arg, &b);
    topo_admin_destroy(ad);
}

/* A cluster: a frame node A's master sends comes back to node B (the
 * receiving switch's master). Both share the key and stamp on the wall
 * clock (their lcore clocks differ); B reads it as its own, dated on B's
 * clock; after one key change B still reads it, after two it is foreign;
 * a sender's clock ahead by less than the cluster's skew is accepted,
 * past it the frame is stale. */
static void test_cluster_nodes_read_each_other(void **state)
{
    (void)state;
    const uint64_t wall = 1800000000ull * S;
    struct topo_admin *ad = topo_admin_create(8);
    struct topo_app_cfg na = {.admin = ad, .max_age_ms = 2000,
                              .skew_us = TOPO_LLDP_CLUSTER_SKEW_US};
    struct topo_app_cfg nb = na;
    struct of_app app_a, app_b;
    struct ofp_port ports[1] = {{.port_no = 1}};
    struct of_port_list pl = {ports, 1, 1};
    struct of_app_switch sa = {.dpid = 0x1001, .ports = &pl};
    struct of_app_switch sb = {.dpid = 0x1002, .ports = &pl};
    struct ofp_port_status ps = {.reason = OFPPR_MODIFY, .desc = {.port_no = 1}};
    struct topo_app_stats st;
    uint8_t k1[TOPO_LLDP_KEY_LEN], k2[TOPO_LLDP_KEY_LEN], k3[TOPO_LLDP_KEY_LEN];

    memset(k1, 0x11, sizeof(k1));
    memset(k2, 0x22, sizeof(k2));
    memset(k3, 0x33, sizeof(k3));
    for (unsigned i = 0; i < 2; i++) {
        topo_app_set_key(&na, k1);
        topo_app_set_key(&nb, k1);
    }
    atomic_init(&na.interval_ms, 3000);
    atomic_init(&nb.interval_ms, 3000);
    /* A's lcore clock reads 5 s when the wall reads `wall`, B's 900 s. */
    atomic_store(&na.stamp_offset_us, wall - 5 * S);
    atomic_store(&nb.stamp_offset_us, wall - 900 * S);
    topo_app_init(&app_a, &na);
    topo_app_init(&app_b, &nb);
    app_a.on_switch_up(app_a.arg, &sa, 4 * S, NULL);
    app_b.on_switch_up(app_b.arg, &sb, 899 * S, NULL);
    n_sent = 0;
    app_a.on_port_status(app_a.arg, &sa, &ps, 5 * S, NULL);
    assert_int_equal(n_sent, 1);              /* B's answers to these asking probes follow */
    struct ofp_packet_in pi = {.data = sent_frames[0], .data_len = TOPO_LLDP_FRAME_LEN};
    ofp_match_init(&pi.match);
    assert_int_equal(ofp_match_set_uint(&pi.match, OFPXMT_OFB_IN_PORT, 1), 0);
    memset(&last_seen, 0, sizeof(last_seen));
    app_b.on_packet_in(app_b.arg, &sb, &pi, 900 * S + 1000, NULL);
    assert_int_equal(last_seen.from_dpid, 0x1001);
    assert_int_equal(last_seen.from_port, 1);
    assert_int_equal(last_seen.to_port, 1);
    assert_int_equal(last_seen.sent_us, 900 * S);      /* on B's clock */
    /* The key changes once: frames in flight still count; twice: not. */
    topo_app_set_key(&nb, k2);
    memset(&last_seen, 0, sizeof(last_seen));
    app_b.on_packet_in(app_b.arg, &sb, &pi, 900 * S + 2000, NULL);
    assert_int_equal(last_seen.from_dpid, 0x1001);
    topo_app_set_key(&nb, k3);
    app_b.on_packet_in(app_b.arg, &sb, &pi, 900 * S + 3000, NULL);
    topo_app_get_stats(&nb, &st);
    assert_int_equal(st.lldp_ours, 2);
    assert_int_equal(st.lldp_foreign, 1);
    /* A's wall clock 0.4 s ahead of B's: fresh; 0.6 s: stale. */
    topo_app_set_key(&nb, k1);
    atomic_store(&na.stamp_offset_us, wall - 5 * S + 400000);
    app_a.on_port_status(app_a.arg, &sa, &ps, 6 * S, NULL);
    pi.data = sent_frames[n_sent - 1];
    app_b.on_packet_in(app_b.arg, &sb, &pi, 901 * S, NULL);
    atomic_store(&na.stamp_offset_us, wall - 5 * S + 600000);
    app_a.on_port_status(app_a.arg, &sa, &ps, 7 * S, NULL);
    pi.data = sent_frames[n_sent - 1];
    app_b.on_packet_in(app_b.arg, &sb, &pi, 902 * S, NULL);
    topo_app_get_stats(&nb, &st);
    assert_int_equal(st.lldp_ours, 3);
    assert_int_equal(st.lldp_stale, 1);
    /* The offset moves back 10 ms (a control tick read the clocks late):
     * A's next probe still carries a later stamp than its last. */
    struct topo_lldp_id p1, p2;
    uint8_t k[TOPO_LLDP_KEY_LEN];
    topo_app_get_key(&na, k);
    assert_int_equal(topo_lldp_parse(sent_frames[n_sent - 1], TOPO_LLDP_FRAME_LEN, k,
                                     wall + 3 * S, 10 * S, TOPO_LLDP_CLUSTER_SKEW_US, &p1),
                     TOPO_LLDP_OURS);
    atomic_store(&na.stamp_offset_us, wall - 5 * S + 600000 - 10000);
    app_a.on_port_status(app_a.arg, &sa, &ps, 7 * S + 6000, NULL);
    assert_int_equal(topo_lldp_parse(sent_frames[n_sent - 1], TOPO_LLDP_FRAME_LEN, k,
                                     wall + 3 * S, 10 * S, TOPO_LLDP_CLUSTER_SKEW_US, &p2),
                     TOPO_LLDP_OURS);
    assert_true(p2.sent_us > p1.sent_us);
    app_a.on_switch_down(app_a.arg, &sa);
    app_b.on_switch_down(app_b.arg, &sb);
    topo_admin_destroy(ad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_admin_defaults_and_flags),
        cmocka_unit_test(test_link_id_is_kytos),
        cmocka_unit_test(test_ctl_up_both_ways_then_port_status),
        cmocka_unit_test(test_ctl_switch_down_timeout_and_room),
        cmocka_unit_test(test_ctl_replays_refused),
        cmocka_unit_test(test_liveness),
        cmocka_unit_test(test_keep_over_restart),
        cmocka_unit_test(test_port_up_probed_at_once),
        cmocka_unit_test(test_probe_send_times_increase),
        cmocka_unit_test(test_probing_slows_when_frames_come_back_late),
        cmocka_unit_test(test_cluster_nodes_read_each_other),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
