/* topo_rest_delete: topology v3's DELETE of a switch or an interface (see
 * topo_rest_priv.h), as Kytos-ng's topology allows it — only what nothing
 * uses — and what ofcd forgets with it.
 *
 * A switch: 409 unless it is disabled, ends no link ofcd knows (up, down
 * or disabled: delete those first) and has no stored flow (any state but
 * deleted: Kytos asks for installed ones only; a pending or refused flow
 * of a switch that is gone would be lost with it). ofcd also refuses a
 * switch that is connected (Kytos lets it go and meets it again at its
 * next message; ofcd would make its record again at once). Then its
 * record leaves the switch view, and its metadata, VLAN pools, flags and
 * liveness, its interfaces' with it, leave memory and the store.
 *
 * An interface: 409 while it is enabled or active (its port up on a
 * connected switch), ends a link, or a stored flow matches on it (in_port)
 * or outputs to it, as Kytos checks; then it leaves the switch's port list
 * until the switch tells of it again, and what is kept of it goes. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_view.h"
#include "dpid.h"
#include "fm.h"
#include "fm_stored.h"
#include "ofcd_log.h"
#include "ofp_wire.h"
#include "store.h"
#include "topo_keep.h"
#include "topo_rest_priv.h"

/* ---- what uses an interface ------------------------------------------------------- */

static bool outputs_to(const json_t *actions, uint32_t port)
{
    size_t i;
    json_t *a;

    json_array_foreach(actions, i, a) {
        const char *type = json_string_value(json_object_get(a, "action_type"));
        json_t *p = json_object_get(a, "port");
        if (type && strcmp(type, "output") == 0 && json_is_integer(p) &&
            json_integer_value(p) == (json_int_t)port)
            return true;
    }
    return false;
}

struct port_user {
    uint32_t port;
    char flow_id[24];                   /* the first flow found using it */
};

static int flow_uses_port(const struct store_flow *f, void *arg)
{
    struct port_user *u = arg;
    json_t *j, *in, *inst;
    size_t i;

    if (f->state == STORE_FLOW_DELETED)
        return 0;
    j = json_loadb(f->json, f->json_len, 0, NULL);
    in = json_object_get(json_object_get(j, "match"), "in_port");
    bool uses = (json_is_integer(in) && json_integer_value(in) == (json_int_t)u->port) ||
                outputs_to(json_object_get(j, "actions"), u->port);
    json_array_foreach(json_object_get(j, "instructions"), i, inst) {
        const char *type = json_string_value(json_object_get(inst, "instruction_type"));
        if (type && strcmp(type, "apply_actions") == 0)
            uses = uses || outputs_to(json_object_get(inst, "actions"), u->port);
    }
    json_decref(j);
    if (uses) {
        snprintf(u->flow_id, sizeof(u->flow_id), "%016" PRIx64, f->flow_id);
        return 1;                       /* found: stop */
    }
    return 0;
}

/* ---- a link that ends on a switch ------------------------------------------------- */

struct link_on {
    uint64_t dpid;
    char id[TOPO_LINK_ID_LEN + 1];
};

static void find_link_on(void *arg, const struct topo_link_rec *l)
{
    struct link_on *o = arg;
    if (!o->id[0] && (l->a.dpid == o->dpid || l->b.dpid == o->dpid))
        snprintf(o->id, sizeof(o->id), "%s", l->id);
}

struct live_on {
    uint64_t dpid;
    struct topo_end e[64];
    size_t n;
};

static void find_live_on(void *arg, const struct topo_live_if *i)
{
    struct live_on *o = arg;
    if (i->end.dpid == o->dpid && o->n < sizeof(o->e) / sizeof(o->e[0]))
        o->e[o->n++] = i->end;
}

/* The view's lock is the one the control thread changes the view under: a
 * delete changes it under the same lock. */
static struct sw_view *view_rw(const struct sw_view *cs)
{
    return (struct sw_view *)cs;
}

/* ---- the routes ------------------------------------------------------------------ */

/* What is kept of (dpid, port) goes: store first, then memory. */
static unsigned forget_kept(struct topo_rest *t, uint64_t dpid, uint32_t port, const char *what,
                            json_t **out, const char *ok)
{
    int rc = 0;

    pthread_mutex_lock(&t->keep_lock);
    rc = topo_keep_forget(t->store, dpid, port, t->meta, &t->meta_lock, t->admin);
    pthread_mutex_unlock(&t->keep_lock);
    if (rc < 0) {
        LOG_ERR("topology", "%s deleted, but its kept records are not: %s", what,
                store_strerror(rc));
        return rest_ext_error(out, 500, "%s is gone, but what was kept of it is not: %s", what,
                              store_strerror(rc));
    }
    LOG_INFO("topology", "%s deleted by REST", what);
    *out = json_string(ok);
    return 200;
}

unsigned topo_rest_delete_switch(struct topo_rest *t, const char *id, json_t **out)
{
    uint64_t dpid;
    struct link_on lo = {0};
    struct live_on live = {0};
    unsigned status = 0;

    if (dpid_parse(id, &dpid) < 0)
        return rest_ext_error(out, 404, "Switch not found.");
    lo.dpid = live.dpid = dpid;
    const struct sw_view *cs = t->lock(t->lock_arg);
    const struct ctl_switch *s = sw_view_find(cs, dpid);
    if (!s)
        status = rest_ext_error(out, 404, "Switch not found.");
    else if (topo_rest_switch_enabled(t, dpid))
        status = rest_ext_error(out, 409, "Switch should be disabled.");
    if (!status) {
        topo_view_each(t->ctl, find_link_on, &lo);
        if (lo.id[0])
            status = rest_ext_error(out, 409, "Switch should not have links. Link found %s.",
                                    lo.id);
    }
    if (!status && t->fm && fm_has_flows(t->fm, dpid))
        status = rest_ext_error(out, 409, "Switch has flows. Verify if a switch is used.");
    if (!status && s->up)
        status = rest_ext_error(out, 409, "Switch is connected: it would be back at its next "
                                "message; disconnect it first");
    if (!status) {
        struct topo_live *lv = topo_view_live(t->ctl);
        do {
            live.n = 0;
            topo_live_each(lv, find_live_on, &live);
            for (size_t i = 0; i < live.n; i++)
                topo_live_disable(lv, live.e[i]);
        } while (live.n == sizeof(live.e) / sizeof(live.e[0]));
        sw_view_drop(view_rw(cs), dpid);
    }
    t->unlock(t->lock_arg);
    if (status)
        return status;
    char what[48];
    char d[24];
    dpid_format(dpid, d);
    snprintf(what, sizeof(what), "switch %s", d);
    return forget_kept(t, dpid, TOPO_ADMIN_SWITCH, what, out, "Operation successful");
}

unsigned topo_rest_delete_interface(struct topo_rest *t, const char *id, json_t **out)
{
    const char *colon = strrchr(id, ':');
    char d[64], *end;
    uint64_t dpid;
    unsigned status = 0;

    if (!colon || !colon[1])
        return rest_ext_error(out, 400, "Invalid interface id.");
    /* Kytos refuses only a port that is not a number; LOCAL (4294967294)
     * is an interface like any other, and port 0 none (404 below). */
    errno = 0;
    unsigned long port = strtoul(colon + 1, &end, 10);
    if (*end || colon[1] == '-' || errno || port > UINT32_MAX)
        return rest_ext_error(out, 400, "Invalid interface id.");
    if ((size_t)(colon - id) >= sizeof(d))
        return rest_ext_error(out, 404, "Switch not found.");
    memcpy(d, id, (size_t)(colon - id));
    d[colon - id] = '\0';
    if (dpid_parse(d, &dpid) < 0)
        return rest_ext_error(out, 404, "Switch not found.");
    /* The stored flows are read before the view's lock (a store read must
     * never hold up the control thread). */
    struct port_user u = {.port = (uint32_t)port};
    if (t->fm)
        fm_stored_foreach(t->fm, &dpid, flow_uses_port, &u);

    const struct sw_view *cs = t->lock(t->lock_arg);
    const struct ctl_switch *s = sw_view_find(cs, dpid);
    const struct ofp_port *p = s ? of_ports_find(&s->ports, (uint32_t)port) : NULL;
    struct topo_end e = {dpid, (uint32_t)port};
    const struct topo_link_rec *l;
    if (!s) {
        status = rest_ext_error(out, 404, "Switch not found.");
    } else if (!p) {
        status = rest_ext_error(out, 404, "Interface not found.");
    } else {
        bool active = s->up && !(p->state & OFPPS_LINK_DOWN) && !(p->config & OFPPC_PORT_DOWN);
        bool enabled = topo_rest_switch_enabled(t, dpid) &&
                       !(topo_admin_get(t->admin, dpid, (uint32_t)port) & TOPO_ADMIN_DISABLED);
        if (enabled || active)
            status = rest_ext_error(out, 409, "Interface could not be deleted. Reason: It is "
                                    "enabled or active.");
        else if ((l = topo_view_link_of(t->ctl, e)) != NULL)
            status = rest_ext_error(out, 409, "Interface could not be deleted. Reason: It has "
                                    "a link, %s.", l->id);
        else if (u.flow_id[0])
            status = rest_ext_error(out, 409, "Interface could not be deleted. Reason: There "
                                    "is a flow installed, %s.", u.flow_id);
    }
    if (!status) {
        topo_live_disable(topo_view_live(t->ctl), e);
        sw_view_drop_port(view_rw(cs), dpid, (uint32_t)port);
    }
    t->unlock(t->lock_arg);
    if (status)
        return status;
    char what[64], canon[TOPO_END_ID_LEN];
    topo_rest_iface_id(dpid, (uint32_t)port, canon);
    snprintf(what, sizeof(what), "interface %s", canon);
    return forget_kept(t, dpid, (uint32_t)port, what, out, "Operation Successful");
}
