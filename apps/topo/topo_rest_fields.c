/*
 * topo_rest_fields: what both the topology's changes (topo_rest.c) and its
 * reads (topo_rest_read.c) show of an entity — Kytos' interface id, a
 * switch's enabled flag, the active/enabled/status fields, a copy of its
 * metadata — so the two files each depend on this one and not on each
 * other (topo_rest.c calls the reads; the reads call nothing back).
 */
#include "topo_paths.h"
#include "topo_rest_priv.h"

#include <pthread.h>

#include "dpid.h"
#include "ofp_wire.h"
#include "topo_admin.h"
#include "topo_snap.h"
#include "topo_view.h"

void topo_rest_iface_id(uint64_t dpid, uint32_t port, char out[TOPO_END_ID_LEN])
{
    topo_end_id((struct topo_end){dpid, port}, out);
}

bool topo_rest_switch_enabled(const struct topo_rest *t, uint64_t dpid)
{
    return !(topo_admin_get(t->admin, dpid, TOPO_ADMIN_SWITCH) & TOPO_ADMIN_DISABLED);
}

void topo_rest_iface_state(const struct topo_rest *t, uint64_t dpid, bool sw_up,
                           const struct ofp_port *p, bool *active, bool *enabled)
{
    *active = sw_up && !(p->state & OFPPS_LINK_DOWN) && !(p->config & OFPPC_PORT_DOWN);
    *enabled = topo_rest_switch_enabled(t, dpid) &&
               !(topo_admin_get(t->admin, dpid, p->port_no) & TOPO_ADMIN_DISABLED);
}

bool topo_rest_link_liveness_down(const struct topo_snap_link *l)
{
    return l->live == TOPO_LIVE_DOWN && l->active && l->enabled;
}

bool topo_rest_link_up(const struct topo_snap_link *l)
{
    return l->active && l->enabled && !topo_rest_link_liveness_down(l) && !l->mismatched;
}

void topo_rest_status_fields(json_t *j, bool active, bool enabled)
{
    json_t *why = json_array();
    /* Sorted, as Kytos' as_dict gives them. */
    if (!active)
        json_array_append_new(why, json_string("deactivated"));
    if (!enabled)
        json_array_append_new(why, json_string("disabled"));
    json_object_set_new(j, "active", json_boolean(active));
    json_object_set_new(j, "enabled", json_boolean(enabled));
    json_object_set_new(j, "status",
                        json_string(enabled && active ? "UP" : !enabled ? "DISABLED" : "DOWN"));
    json_object_set_new(j, "status_reason", why);
}

static bool is_pair(const json_t *p, uint32_t a, uint32_t b)
{
    json_t *x = json_array_get(p, 0), *y = json_array_get(p, 1);
    return json_array_size(p) == 2 && json_is_integer(x) && json_is_integer(y) &&
           json_integer_value(x) == (json_int_t)a && json_integer_value(y) == (json_int_t)b;
}

bool topo_rest_loop_ignored(struct topo_rest *t, uint64_t dpid, uint32_t a, uint32_t b)
{
    char d[24];
    size_t i;
    json_t *p;
    bool ignored = false;

    dpid_format(dpid, d);
    pthread_mutex_lock(&t->meta_lock);
    json_t *pairs =
        json_object_get(json_object_get(json_object_get(t->meta, "switch"), d), "ignored_loops");
    json_array_foreach(pairs, i, p) ignored = ignored || is_pair(p, a, b) || is_pair(p, b, a);
    pthread_mutex_unlock(&t->meta_lock);
    return ignored;
}

void topo_rest_meta_swap(struct topo_rest *t, const char *kind, const char *id, json_t *next)
{
    pthread_mutex_lock(&t->meta_lock);
    json_t *all = json_object_get(t->meta, kind);
    if (next && json_object_size(next)) {
        if (!all)
            json_object_set_new(t->meta, kind, all = json_object());
        json_object_set_new(all, id, next);
    } else {
        json_object_del(all, id);
        json_decref(next);
    }
    pthread_mutex_unlock(&t->meta_lock);
    topo_paths_touch(&t->paths);        /* a link's metrics are the paths' too */
}

json_t *topo_rest_meta_copy(struct topo_rest *t, const char *kind, const char *id)
{
    pthread_mutex_lock(&t->meta_lock);
    json_t *m = json_object_get(json_object_get(t->meta, kind), id);
    m = m ? json_deep_copy(m) : json_object();
    pthread_mutex_unlock(&t->meta_lock);
    return m;
}
