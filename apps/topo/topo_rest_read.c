/* topo_rest_read: the topology's GETs that show the whole of it (see
 * topo_rest_priv.h). The switch view's lock is taken only to copy
 * (topo_snap.h): the dpids, then one switch with its ports at a time, the
 * links and liveness entries TOPO_SNAP_PIECE at a time; every JSON value is
 * made after the lock is let go, so neither rendering nor a slow client
 * holds up the control thread. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ofcd_clock.h"
#include "dpid.h"
#include "ofcd_inet.h"
#include "ofp_wire.h"
#include "topo_rest_priv.h"
#include "topo_snap.h"

static const struct sw_view *lock(struct topo_rest *t)
{
    return t->lock(t->lock_arg);
}

static void unlock(struct topo_rest *t)
{
    t->unlock(t->lock_arg);
}

static unsigned oom(json_t **out)
{
    return rest_ext_error(out, 500, "out of memory copying the topology");
}

/* ---- Kytos shapes, from copies --------------------------------------------------- */

static json_t *iface_json(struct topo_rest *t, uint64_t dpid, bool sw_up,
                          const struct topo_snap_port *sp)
{
    const struct ofp_port *p = &sp->p;
    char id[TOPO_END_ID_LEN], d[24], mac[18];
    topo_rest_iface_id(dpid, p->port_no, id);
    dpid_format(dpid, d);
    mac_format(p->hw_addr, mac);
    uint32_t f = topo_admin_get(t->admin, dpid, p->port_no);
    bool active, enabled;
    topo_rest_iface_state(t, dpid, sw_up, p, &active, &enabled);
    json_t *j = json_pack("{s:s, s:s, s:I, s:s, s:s, s:s, s:b, s:b}", "id", id, "name", p->name,
                          "port_number", (json_int_t)p->port_no, "mac", mac, "switch", d, "type",
                          "interface", "nni", sp->nni, "uni", !sp->nni);
    if (!j)
        return NULL;
    json_object_set_new(j, "speed", p->curr_speed ? json_integer((json_int_t)p->curr_speed * 125)
                                                  : json_null());
    json_t *m = topo_rest_meta_copy(t, "interface", id);
    /* of_lldp marks the lower port of a loop it finds (unless ignored). */
    if (sp->loop_peer && !topo_rest_loop_ignored(t, dpid, p->port_no, sp->loop_peer)) {
        char at[32];
        time_t s = (time_t)sp->loop_since_wall;
        struct tm tm;
        if (!gmtime_r(&s, &tm) || !strftime(at, sizeof(at), "%Y-%m-%dT%H:%M:%S", &tm))
            at[0] = '\0';
        json_object_set_new(m, "looped",
                            json_pack("{s:[I, I], s:s}", "port_numbers", (json_int_t)p->port_no,
                                      (json_int_t)sp->loop_peer, "detected_at", at));
    }
    json_object_set_new(j, "metadata", m);
    json_object_set_new(j, "lldp", json_boolean(!(f & TOPO_ADMIN_NO_LLDP)));
    topo_rest_status_fields(j, active, enabled);
    json_object_set_new(j, "link", json_string(sp->link_id));
    return j;
}

static json_t *switch_json(struct topo_rest *t, const struct topo_snap_switch *s, unsigned idx)
{
    char d[24], conn[OFCD_PEER_STRLEN] = "";
    dpid_format(s->dpid, d);
    /* Kytos: "address:port" of the switch's connection while it has one. */
    if (s->up && s->peer_ip)
        ofcd_peer_format(s->peer_ip, s->peer_port, conn);
    json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "id", d, "name", d,
                          "dpid", d, "connection", conn, "ofp_version", "0x04", "type", "switch",
                          "manufacturer", s->desc.mfr_desc, "serial", s->desc.serial_num,
                          "hardware", s->desc.hw_desc, "software", s->desc.sw_desc);
    if (!j)
        return NULL;
    json_object_set_new(j, "data_path", json_string(s->desc.dp_desc));
    json_t *ifs = json_object();
    for (uint32_t i = 0; s->ports && i < s->n_ports; i++) {
        char id[TOPO_END_ID_LEN];
        topo_rest_iface_id(s->dpid, s->ports[i].p.port_no, id);
        json_object_set_new(ifs, id, iface_json(t, s->dpid, s->up, &s->ports[i]));
    }
    json_object_set_new(j, "interfaces", ifs);
    json_t *m = topo_rest_meta_copy(t, "switch", d);
    /* As Kytos' topology does: a switch without a position gets one. */
    if (!json_object_get(m, "lat") || !json_object_get(m, "lng")) {
        char lng[32];
        snprintf(lng, sizeof(lng), "%.1f", -30.0 + idx * 10.0);
        json_object_set_new(m, "lat", json_string("0.0"));
        json_object_set_new(m, "lng", json_string(lng));
    }
    json_object_set_new(j, "metadata", m);
    topo_rest_status_fields(j, s->up, topo_rest_switch_enabled(t, s->dpid));
    return j;
}

int topo_read_each_switch(struct topo_rest *t, bool with_ports,
                       void (*fn)(struct topo_rest *t, const struct topo_snap_switch *s,
                                  unsigned idx, void *arg),
                       void *arg)
{
    uint64_t *ids = NULL;
    int n = sw_view_dpids(lock(t), &ids);
    unsigned shown = 0;
    int rc = 0;

    unlock(t);
    if (n < 0)
        return n;
    for (int i = 0; i < n && rc == 0; i++) {
        struct topo_snap_switch s;
        rc = topo_snap_switch(lock(t), t->ctl, ids[i], with_ports, &s);
        unlock(t);
        if (rc == 0)
            fn(t, &s, shown++, arg);
        topo_snap_switch_free(&s);
        if (rc == -ENOENT)
            rc = 0;
    }
    free(ids);
    return rc;
}

static void add_switch(struct topo_rest *t, const struct topo_snap_switch *s, unsigned idx,
                       void *arg)
{
    char d[24];
    dpid_format(s->dpid, d);
    json_object_set_new(arg, d, switch_json(t, s, idx));
}

static void add_interfaces(struct topo_rest *t, const struct topo_snap_switch *s, unsigned idx,
                           void *arg)
{
    (void)idx;
    for (uint32_t i = 0; s->ports && i < s->n_ports; i++) {
        char id[TOPO_END_ID_LEN];
        topo_rest_iface_id(s->dpid, s->ports[i].p.port_no, id);
        json_object_set_new(arg, id, iface_json(t, s->dpid, s->up, &s->ports[i]));
    }
}

/* An end as Kytos shows it: the interface, or what is known of it when its
 * switch is gone from the view. */
static json_t *end_json(struct topo_rest *t, const struct topo_snap_end *e)
{
    if (e->known)
        return iface_json(t, e->e.dpid, e->sw_up, &e->port);
    char id[TOPO_END_ID_LEN], d[24];
    topo_rest_iface_id(e->e.dpid, e->e.port, id);
    dpid_format(e->e.dpid, d);
    json_t *j = json_pack("{s:s, s:I, s:s, s:s}", "id", id, "port_number",
                          (json_int_t)e->e.port, "switch", d, "type", "interface");
    topo_rest_status_fields(j, false, topo_rest_switch_enabled(t, e->e.dpid));
    return j;
}

static json_t *link_json(struct topo_rest *t, const struct topo_snap_link *l)
{
    json_t *j = json_pack("{s:s, s:o, s:o}", "id", l->id, "endpoint_a", end_json(t, &l->end[0]),
                          "endpoint_b", end_json(t, &l->end[1]));
    if (!j)
        return NULL;
    json_t *m = topo_rest_meta_copy(t, "link", l->id);
    /* of_lldp's verdict, as Kytos' topology shows it: in the metadata once
     * the pair is up or down, and a link it finds down is DOWN for
     * "liveness" while it is still active. */
    if (l->live == TOPO_LIVE_UP || l->live == TOPO_LIVE_DOWN)
        json_object_set_new(m, "liveness_status", json_string(topo_live_name(l->live)));
    json_object_set_new(j, "metadata", m);
    topo_rest_status_fields(j, l->active, l->enabled);
    /* Kytos' topology hooks, in its sorted order: liveness, and an end now
     * in another link that is up (the cable moved: mismatched_link). */
    json_t *why = json_object_get(j, "status_reason");
    bool liveness = topo_rest_link_liveness_down(l);
    if (liveness)
        json_array_append_new(why, json_string("liveness"));
    if (l->mismatched)
        json_array_append_new(why, json_string("mismatched_link"));
    if ((liveness || l->mismatched) && l->enabled)
        json_object_set_new(j, "status", json_string("DOWN"));
    return j;
}

int topo_read_each_link(struct topo_rest *t,
                        void (*fn)(struct topo_rest *t, const struct topo_snap_link *l, void *arg),
                        void *arg)
{
    struct topo_snap_link *piece = malloc(TOPO_SNAP_PIECE * sizeof(*piece));
    size_t pos = 0, n;

    if (!piece)
        return -ENOMEM;
    do {
        n = topo_snap_links(lock(t), t->ctl, &pos, piece, TOPO_SNAP_PIECE);
        unlock(t);
        for (size_t i = 0; i < n; i++)
            fn(t, &piece[i], arg);
    } while (n == TOPO_SNAP_PIECE);
    free(piece);
    return 0;
}

static void add_link(struct topo_rest *t, const struct topo_snap_link *l, void *arg)
{
    json_object_set_new(arg, l->id, link_json(t, l));
}

unsigned topo_read_v3(struct topo_rest *t, const char *what, json_t **out)
{
    json_t *sw = NULL, *links = NULL;
    int rc = 0;
    bool all = !*what;

    if (all || strcmp(what, "switches") == 0) {
        sw = json_object();
        rc = sw ? topo_read_each_switch(t, true, add_switch, sw) : -ENOMEM;
    } else if (strcmp(what, "interfaces") == 0) {
        sw = json_object();
        rc = sw ? topo_read_each_switch(t, true, add_interfaces, sw) : -ENOMEM;
    }
    if (rc == 0 && (all || strcmp(what, "links") == 0)) {
        links = json_object();
        rc = links ? topo_read_each_link(t, add_link, links) : -ENOMEM;
    }
    if (rc < 0) {
        json_decref(sw);
        json_decref(links);
        return oom(out);
    }
    if (all)
        *out = json_pack("{s:{s:o, s:o}}", "topology", "switches", sw, "links", links);
    else if (links)
        *out = json_pack("{s:o}", "links", links);
    else
        *out = json_pack("{s:o}", strcmp(what, "switches") == 0 ? "switches" : "interfaces", sw);
    return *out ? 200 : oom(out);
}

/* ---- of_lldp v1 ------------------------------------------------------------------- */

static void add_lldp_ids(struct topo_rest *t, const struct topo_snap_switch *s, unsigned idx,
                         void *arg)
{
    (void)idx;
    for (uint32_t i = 0; s->ports && i < s->n_ports; i++) {
        char id[TOPO_END_ID_LEN];
        if (topo_admin_get(t->admin, s->dpid, s->ports[i].p.port_no) & TOPO_ADMIN_NO_LLDP)
            continue;
        topo_rest_iface_id(s->dpid, s->ports[i].p.port_no, id);
        json_array_append_new(arg, json_string(id));
    }
}

unsigned topo_read_lldp_interfaces(struct topo_rest *t, json_t **out)
{
    json_t *ids = json_array();

    if (!ids || topo_read_each_switch(t, true, add_lldp_ids, ids) < 0) {
        json_decref(ids);
        return oom(out);
    }
    *out = json_pack("{s:o}", "interfaces", ids);
    return 200;
}

static json_t *hello_at(const struct topo_live_if *i)
{
    char b[40];
    time_t s = (time_t)(i->last_hello_wall_us / 1000000);
    struct tm tm;

    if (!i->last_hello_us || !gmtime_r(&s, &tm))
        return json_null();
    size_t n = strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(b + n, sizeof(b) - n, ".%06lld", (long long)(i->last_hello_wall_us % 1000000));
    return json_string(b);
}

static json_t *live_json(const struct topo_live_if *i)
{
    char id[TOPO_END_ID_LEN];
    topo_rest_iface_id(i->end.dpid, i->end.port, id);
    return json_pack("{s:s, s:s, s:o}", "id", id, "status", topo_live_name(i->state),
                     "last_hello_at", hello_at(i));
}

/* Every liveness entry, in pieces: 0 or -ENOMEM (out->v to free either way). */
static int copy_lives(struct topo_rest *t, struct topo_snap_lives *out)
{
    uint32_t pos = 0;
    size_t n;

    do {
        lock(t);
        n = topo_snap_lives(t->ctl, &pos, out);
        unlock(t);
    } while (n && !out->oom);
    return out->oom ? -ENOMEM : 0;
}

unsigned topo_read_liveness(struct topo_rest *t, const char *interface_id, json_t **out)
{
    json_t *arr = json_array();
    struct topo_snap_lives all = {0};

    if (!arr)
        return oom(out);
    if (interface_id) {
        struct topo_end e;
        struct topo_live_if one = {0};
        const struct topo_live_if *i = NULL;
        if (topo_end_parse(interface_id, ':', false, &e) == 0) {
            lock(t);
            i = topo_live_find(topo_view_live(t->ctl), e);
            if (i)
                one = *i;
            unlock(t);
        }
        if (i)
            json_array_append_new(arr, live_json(&one));
    } else if (copy_lives(t, &all) < 0) {
        free(all.v);
        json_decref(arr);
        return oom(out);
    }
    for (size_t k = 0; k < all.n; k++)
        json_array_append_new(arr, live_json(&all.v[k].i));
    free(all.v);
    *out = json_pack("{s:o}", "interfaces", arr);
    return 200;
}

unsigned topo_read_liveness_pairs(struct topo_rest *t, json_t **out)
{
    json_t *pairs = json_array();
    struct topo_snap_lives all = {0};

    if (!pairs || copy_lives(t, &all) < 0) {
        free(all.v);
        json_decref(pairs);
        return oom(out);
    }
    for (size_t k = 0; k < all.n; k++) {
        const struct topo_snap_live *s = &all.v[k];
        if (!s->paired)
            continue;
        json_array_append_new(pairs, json_pack("{s:o, s:o, s:s, s:s}", "interface_a",
                                               live_json(&s->i), "interface_b", live_json(&s->b),
                                               "link_id", s->link_id, "status",
                                               topo_live_name(topo_live_pair(&s->i, &s->b))));
    }
    free(all.v);
    *out = json_pack("{s:o}", "pairs", pairs);
    return 200;
}

/* ---- ofcd's compact graph ---------------------------------------------------------- */

static void graph_node(struct topo_rest *t, const struct topo_snap_switch *s, unsigned idx,
                       void *arg)
{
    char d[24];
    (void)idx;
    dpid_format(s->dpid, d);
    /* Its metadata too: where the dashboard was told to draw it, say,
     * without reading every switch's interfaces. */
    json_array_append_new(arg, json_pack("{s:s, s:b, s:I, s:o}", "dpid", d, "connected", s->up,
                                         "ports", (json_int_t)s->n_ports, "metadata",
                                         topo_rest_meta_copy(t, "switch", d)));
}

struct graph_links {
    json_t *arr;
    int64_t now;
};

static void graph_link(struct topo_rest *t, const struct topo_snap_link *l, void *arg)
{
    struct graph_links *g = arg;
    char a[TOPO_END_ID_LEN], b[TOPO_END_ID_LEN];
    (void)t;
    topo_rest_iface_id(l->end[0].e.dpid, l->end[0].e.port, a);
    topo_rest_iface_id(l->end[1].e.dpid, l->end[1].e.port, b);
    json_array_append_new(
        g->arr, json_pack("{s:s, s:s, s:s, s:s, s:b, s:I, s:I, s:I, s:s}", "id", l->id, "a", a,
                          "b", b, "state", l->loop                        ? "loop"
                                           : l->active && l->live != TOPO_LIVE_DOWN ? "up"
                                                                                    : "down",
                          "enabled", l->enabled, "age_s", (json_int_t)(g->now - l->since_wall),
                          "ups", (json_int_t)l->ups, "downs", (json_int_t)l->downs, "why",
                          l->why));
}

unsigned topo_read_graph(struct topo_rest *t, json_t **out)
{
    json_t *nodes = json_array();
    struct graph_links g = {json_array(), ofcd_clock_wall_s()};

    if (!nodes || !g.arr || topo_read_each_switch(t, false, graph_node, nodes) < 0 ||
        topo_read_each_link(t, graph_link, &g) < 0) {
        json_decref(nodes);
        json_decref(g.arr);
        return oom(out);
    }
    *out = json_pack("{s:o, s:o}", "nodes", nodes, "links", g.arr);
    return 200;
}
