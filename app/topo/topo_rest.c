/* topo_rest: see topo_rest.h. */
#include "topo_rest.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl_switches.h"
#include "dpid.h"
#include "ofcd_inet.h"
#include "ofcd_log.h"
#include "ofp_wire.h"
#include "topo_flow.h"
#include "topo_keep.h"

#define OK_TEXT "Operation successful"

/* ---- ids ------------------------------------------------------------------------ */

static void iface_id(uint64_t dpid, uint32_t port, char out[TOPO_END_ID_LEN])
{
    topo_end_id((struct topo_end){dpid, port}, out);
}

/* An interface id, "dpid:port", into its two parts. */
static int iface_parse(const char *s, uint64_t *dpid, uint32_t *port)
{
    struct topo_end e;

    if (topo_end_parse(s, ':', false, &e) < 0)
        return -EINVAL;
    *dpid = e.dpid;
    *port = e.port;
    return 0;
}

static unsigned not_allowed(const struct rest_ext_req *q, json_t **out)
{
    return rest_ext_error(out, 405, "method %s not allowed on %s", q->method, q->path);
}

/* ---- what a request makes durable ------------------------------------------------ */

/* What a request changed that must reach the store: written after the
 * switch view's lock is let go (the control thread takes that lock; a
 * commit's sync must never hold it up), before the answer. */
struct keep_job {
    const char *meta_kind;              /* a metadata request, routed after the lock */
    char meta_id[96];
    const char *meta_tail;
    unsigned meta_ok;
    struct topo_end *admin;             /* (dpid, port)s whose flags changed */
    size_t n_admin, cap_admin;
    struct topo_link_rec link;          /* a link whose enabled changed (id[0] set) */
    bool forget_link_meta;              /* ... deleted: its metadata goes too */
    int lldp_flow;                      /* a switch's LLDP flow: +1 store, -1 delete */
    uint64_t lldp_flow_dpid;
    bool nomem;
};

static void keep_admin_later(struct keep_job *j, uint64_t dpid, uint32_t port)
{
    if (j->n_admin && j->admin[j->n_admin - 1].dpid == dpid && j->admin[j->n_admin - 1].port == port)
        return;
    if (j->n_admin == j->cap_admin) {
        size_t nc = j->cap_admin ? j->cap_admin * 2 : 8;
        struct topo_end *na = realloc(j->admin, nc * sizeof(*na));
        if (!na) {
            j->nomem = true;
            return;
        }
        j->admin = na;
        j->cap_admin = nc;
    }
    j->admin[j->n_admin++] = (struct topo_end){dpid, port};
}

static void keep_link_later(struct keep_job *j, const struct topo_link_rec *l, bool enabled)
{
    snprintf(j->link.id, sizeof(j->link.id), "%s", l->id);
    j->link.a = l->a;
    j->link.b = l->b;
    j->link.enabled = enabled;
}

/* The metadata of kind/id, routed once the lock is gone (the entity was
 * found under it): 0, which the caller's keep_flush turns into the answer. */
static unsigned meta_later(struct keep_job *j, const char *kind, const char *id, const char *tail,
                           unsigned ok)
{
    j->meta_kind = kind;
    snprintf(j->meta_id, sizeof(j->meta_id), "%s", id);
    j->meta_tail = tail;
    j->meta_ok = ok;
    return 0;
}

/* ---- metadata ------------------------------------------------------------------- */

static json_t *meta_of(struct topo_rest *t, const char *kind, const char *id)
{
    json_t *m = json_object_get(json_object_get(t->meta, kind), id);
    return m ? json_deep_copy(m) : json_object();
}

/* Make next (taken) the entity's metadata: durable first, then shown. */
static unsigned meta_commit(struct topo_rest *t, const char *kind, const char *id, json_t *next,
                            json_t **out, unsigned ok)
{
    int rc = t->store ? topo_keep_meta(t->store, kind, id, next) : -ENODEV;
    if (rc < 0) {
        json_decref(next);
        LOG_ERR("topology", "%s %s: metadata not stored: %s", kind, id, strerror(-rc));
        return rest_ext_error(out, rc == -ENOSPC ? 507 : 500, "metadata not stored: %s",
                              strerror(-rc));
    }
    json_t *all = json_object_get(t->meta, kind);
    if (!all)
        json_object_set_new(t->meta, kind, all = json_object());
    json_object_set_new(all, id, next);
    *out = json_string(OK_TEXT);
    return ok;
}

/* GET / POST / DELETE of one entity's metadata; rest is "metadata" or
 * "metadata/KEY". The entity exists (the caller checked). */
static unsigned meta_route(struct topo_rest *t, const struct rest_ext_req *q, const char *kind,
                           const char *id, const char *rest, json_t **out, unsigned post_ok)
{
    const char *key = strncmp(rest, "metadata/", 9) == 0 ? rest + 9 : NULL;
    unsigned status = 200;

    if (!key && strcmp(rest, "metadata") != 0)
        return rest_ext_error(out, 404, "no such resource: %s", q->path);
    pthread_mutex_lock(&t->meta_lock);
    json_t *all = json_object_get(t->meta, kind);
    json_t *m = json_object_get(all, id);
    if (strcmp(q->method, "GET") == 0 && !key) {
        *out = json_pack("{s:o}", "metadata", m ? json_deep_copy(m) : json_object());
    } else if (strcmp(q->method, "POST") == 0 && !key) {
        json_error_t e;
        json_t *body = q->body ? json_loadb(q->body, q->body_len, 0, &e) : NULL;
        if (!json_is_object(body)) {
            status = rest_ext_error(out, 400, "the body must be a JSON object of metadata");
        } else {
            json_t *next = m ? json_deep_copy(m) : json_object();
            json_object_update(next, body);
            status = meta_commit(t, kind, id, next, out, post_ok);
        }
        json_decref(body);
    } else if (strcmp(q->method, "DELETE") == 0 && key) {
        if (!m || !json_object_get(m, key)) {
            status = rest_ext_error(out, 404, "Metadata not found");
        } else {
            json_t *next = json_deep_copy(m);
            json_object_del(next, key);
            status = meta_commit(t, kind, id, next, out, 200);
        }
    } else {
        status = not_allowed(q, out);
    }
    pthread_mutex_unlock(&t->meta_lock);
    return status;
}

/* After the switch view's lock: the deferred metadata request, then the
 * flags and link states the request changed and a switch's LLDP flow, written as they are now (so
 * concurrent requests leave the last state stored). A failed write keeps
 * the change in effect and says it is not kept. */
static unsigned keep_flush(struct topo_rest *t, const struct rest_ext_req *q, struct keep_job *j,
                           unsigned status, json_t **out)
{
    int rc = j->nomem ? -ENOMEM : 0;

    if (j->meta_kind)
        status = meta_route(t, q, j->meta_kind, j->meta_id, j->meta_tail, out, j->meta_ok);
    if (t->store && (j->n_admin || j->link.id[0])) {
        pthread_mutex_lock(&t->meta_lock);
        for (size_t i = 0; i < j->n_admin && rc == 0; i++)
            rc = topo_keep_admin(t->store, j->admin[i].dpid, j->admin[i].port,
                                 topo_admin_get(t->admin, j->admin[i].dpid, j->admin[i].port));
        if (rc == 0 && j->link.id[0])
            rc = topo_keep_link(t->store, &j->link, j->link.enabled);
        if (rc == 0 && j->forget_link_meta) {
            json_t *none = json_object();
            rc = none ? topo_keep_meta(t->store, "link", j->link.id, none) : -ENOMEM;
            json_decref(none);
            if (rc == 0)
                json_object_del(json_object_get(t->meta, "link"), j->link.id);
        }
        pthread_mutex_unlock(&t->meta_lock);
    }
    free(j->admin);
    j->admin = NULL;
    if (j->lldp_flow && t->store && t->fm) {
        int frc = j->lldp_flow > 0 ? topo_flow_ensure(t->store, t->fm, j->lldp_flow_dpid, NULL)
                                   : topo_flow_remove(t->store, t->fm, j->lldp_flow_dpid);
        if (frc < 0)
            LOG_WARN("topology", "switch %016" PRIx64 ": the LLDP flow was not %s: %s",
                     j->lldp_flow_dpid, j->lldp_flow > 0 ? "stored" : "deleted",
                     strerror(-frc));
    }
    if (rc < 0 && status < 300) {
        LOG_ERR("topology", "%s %s: in effect, but not stored: %s", q->method, q->path,
                strerror(-rc));
        json_decref(*out);
        *out = NULL;
        status = rest_ext_error(out, 500, "the change is in effect but not kept over a "
                                "restart: %s", strerror(-rc));
    }
    return status;
}

/* ---- Kytos shapes --------------------------------------------------------------- */

static bool switch_enabled(const struct topo_rest *t, uint64_t dpid)
{
    return !(topo_admin_get(t->admin, dpid, TOPO_ADMIN_SWITCH) & TOPO_ADMIN_DISABLED);
}

static void status_fields(json_t *j, bool active, bool enabled)
{
    json_t *why = json_array();
    if (!enabled)
        json_array_append_new(why, json_string("disabled"));
    if (!active)
        json_array_append_new(why, json_string("deactivated"));
    json_object_set_new(j, "active", json_boolean(active));
    json_object_set_new(j, "enabled", json_boolean(enabled));
    json_object_set_new(j, "status",
                        json_string(enabled && active ? "UP" : !enabled ? "DISABLED" : "DOWN"));
    json_object_set_new(j, "status_reason", why);
}

static json_t *iface_json(struct topo_rest *t, const struct ctl_switch *s, const struct ofp_port *p)
{
    char id[40], d[24], mac[18];
    iface_id(s->dpid, p->port_no, id);
    dpid_format(s->dpid, d);
    mac_format(p->hw_addr, mac);
    uint32_t f = topo_admin_get(t->admin, s->dpid, p->port_no);
    const struct topo_link_rec *l = topo_ctl_link_of(t->ctl, (struct topo_end){s->dpid, p->port_no});
    bool nni = l && l->active && !l->loop;
    bool active = s->up && !(p->state & OFPPS_LINK_DOWN) && !(p->config & OFPPC_PORT_DOWN);
    bool enabled = switch_enabled(t, s->dpid) && !(f & TOPO_ADMIN_DISABLED);
    json_t *j = json_pack("{s:s, s:s, s:I, s:s, s:s, s:s, s:b, s:b}", "id", id, "name", p->name,
                          "port_number", (json_int_t)p->port_no, "mac", mac, "switch", d, "type",
                          "interface", "nni", nni, "uni", !nni);
    if (!j)
        return NULL;
    json_object_set_new(j, "speed", p->curr_speed ? json_integer((json_int_t)p->curr_speed * 125)
                                                  : json_null());
    pthread_mutex_lock(&t->meta_lock);
    json_object_set_new(j, "metadata", meta_of(t, "interface", id));
    pthread_mutex_unlock(&t->meta_lock);
    json_object_set_new(j, "lldp", json_boolean(!(f & TOPO_ADMIN_NO_LLDP)));
    status_fields(j, active, enabled);
    json_object_set_new(j, "link", json_string(l ? l->id : ""));
    return j;
}

static json_t *switch_json(struct topo_rest *t, const struct ctl_switch *s, unsigned idx)
{
    char d[24], conn[OFCD_PEER_STRLEN] = "";
    dpid_format(s->dpid, d);
    /* Kytos: "address:port" of the switch's connection while it has one. */
    if (s->up && s->info.peer_ip)
        ofcd_peer_format(s->info.peer_ip, s->info.peer_port, conn);
    json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "id", d, "name", d,
                          "dpid", d, "connection", conn, "ofp_version", "0x04", "type", "switch",
                          "manufacturer", s->info.desc.mfr_desc, "serial",
                          s->info.desc.serial_num, "hardware", s->info.desc.hw_desc, "software",
                          s->info.desc.sw_desc);
    if (!j)
        return NULL;
    json_object_set_new(j, "data_path", json_string(s->info.desc.dp_desc));
    json_t *ifs = json_object();
    for (uint32_t i = 0; i < s->ports.n; i++) {
        char id[40];
        iface_id(s->dpid, s->ports.v[i].port_no, id);
        json_object_set_new(ifs, id, iface_json(t, s, &s->ports.v[i]));
    }
    json_object_set_new(j, "interfaces", ifs);
    pthread_mutex_lock(&t->meta_lock);
    json_t *m = meta_of(t, "switch", d);
    pthread_mutex_unlock(&t->meta_lock);
    /* As Kytos' topology does: a switch without a position gets one. */
    if (!json_object_get(m, "lat") || !json_object_get(m, "lng")) {
        char lng[32];
        snprintf(lng, sizeof(lng), "%.1f", -30.0 + idx * 10.0);
        json_object_set_new(m, "lat", json_string("0.0"));
        json_object_set_new(m, "lng", json_string(lng));
    }
    json_object_set_new(j, "metadata", m);
    status_fields(j, s->up, switch_enabled(t, s->dpid));
    return j;
}

struct walk {
    struct topo_rest *t;
    const struct ctl_switches *cs;
    json_t *obj;
    unsigned idx;
};

static void add_switch(const struct ctl_switch *s, void *arg)
{
    struct walk *w = arg;
    char d[24];
    dpid_format(s->dpid, d);
    json_object_set_new(w->obj, d, switch_json(w->t, s, w->idx++));
}

static json_t *switches_json(struct topo_rest *t, const struct ctl_switches *cs)
{
    struct walk w = {t, cs, json_object(), 0};
    ctl_switches_foreach(cs, add_switch, &w);
    return w.obj;
}

/* An end as Kytos shows it: the interface, or what is known of it when its
 * switch is gone from the view. */
static json_t *end_json(struct topo_rest *t, const struct ctl_switches *cs, struct topo_end e)
{
    const struct ctl_switch *s = ctl_switches_find(cs, e.dpid);
    const struct ofp_port *p = s ? of_ports_find(&s->ports, e.port) : NULL;
    if (p)
        return iface_json(t, s, p);
    char id[40], d[24];
    iface_id(e.dpid, e.port, id);
    dpid_format(e.dpid, d);
    json_t *j = json_pack("{s:s, s:I, s:s, s:s}", "id", id, "port_number", (json_int_t)e.port,
                          "switch", d, "type", "interface");
    status_fields(j, false, switch_enabled(t, e.dpid));
    return j;
}

static void add_link(void *arg, const struct topo_link_rec *l)
{
    struct walk *w = arg;
    json_t *j = json_pack("{s:s, s:o, s:o}", "id", l->id, "endpoint_a", end_json(w->t, w->cs, l->a),
                          "endpoint_b", end_json(w->t, w->cs, l->b));
    if (!j)
        return;
    pthread_mutex_lock(&w->t->meta_lock);
    json_object_set_new(j, "metadata", meta_of(w->t, "link", l->id));
    pthread_mutex_unlock(&w->t->meta_lock);
    status_fields(j, l->active, l->enabled);
    json_object_set_new(w->obj, l->id, j);
}

static json_t *links_json(struct topo_rest *t, const struct ctl_switches *cs)
{
    struct walk w = {t, cs, json_object(), 0};
    topo_ctl_each(t->ctl, add_link, &w);
    return w.obj;
}

/* ---- topology v3 ---------------------------------------------------------------- */

static unsigned switch_admin(struct topo_rest *t, struct keep_job *job, uint64_t dpid,
                             bool enable, json_t **out)
{
    uint32_t f = topo_admin_get(t->admin, dpid, TOPO_ADMIN_SWITCH);
    f = enable ? f & ~TOPO_ADMIN_DISABLED : f | TOPO_ADMIN_DISABLED;
    if (topo_admin_set(t->admin, dpid, TOPO_ADMIN_SWITCH, f) < 0)
        return rest_ext_error(out, 507, "topology.max_interfaces reached: nothing changed");
    keep_admin_later(job, dpid, TOPO_ADMIN_SWITCH);
    /* As of_lldp does on topology's switch events: the LLDP flow follows
     * (through the store: after the lock, in keep_flush). */
    job->lldp_flow_dpid = dpid;
    job->lldp_flow = enable ? 1 : -1;
    LOG_INFO("topology", "switch %016" PRIx64 " %s by REST", dpid, enable ? "enabled" : "disabled");
    *out = json_string(OK_TEXT);
    return 201;
}

static unsigned iface_admin(struct topo_rest *t, struct keep_job *job, const struct ctl_switch *s,
                            uint32_t port, bool enable, uint32_t bit, json_t **out)
{
    uint32_t f = topo_admin_get(t->admin, s->dpid, port);
    f = enable ? f & ~bit : f | bit;
    if (topo_admin_set(t->admin, s->dpid, port, f) < 0)
        return rest_ext_error(out, 507, "topology.max_interfaces reached: nothing changed");
    keep_admin_later(job, s->dpid, port);
    return 0;
}

static unsigned v3_switches(struct topo_rest *t, struct keep_job *job, const struct rest_ext_req *q,
                            const struct ctl_switches *cs, const char *rest, json_t **out)
{
    char d[64];
    uint64_t dpid;
    const char *slash = strchr(rest, '/');

    if (!*rest) {
        if (strcmp(q->method, "GET") != 0)
            return not_allowed(q, out);
        *out = json_pack("{s:o}", "switches", switches_json(t, cs));
        return 200;
    }
    if (!slash || (size_t)(slash - rest) >= sizeof(d))
        return rest_ext_error(out, 404, "no such resource: %s", q->path);
    memcpy(d, rest, (size_t)(slash - rest));
    d[slash - rest] = '\0';
    if (dpid_parse(d, &dpid) < 0 || !ctl_switches_find(cs, dpid))
        return rest_ext_error(out, 404, "Switch not found");
    const char *what = slash + 1;
    bool post = strcmp(q->method, "POST") == 0;
    if (strcmp(what, "enable") == 0 || strcmp(what, "disable") == 0) {
        if (!post)
            return not_allowed(q, out);
        return switch_admin(t, job, dpid, what[0] == 'e', out);
    }
    char id[24];
    dpid_format(dpid, id);
    return meta_later(job, "switch", id, what, 201);
}

static unsigned v3_interfaces(struct topo_rest *t, struct keep_job *job, const struct rest_ext_req *q,
                              const struct ctl_switches *cs, const char *rest, json_t **out)
{
    if (!*rest) {
        if (strcmp(q->method, "GET") != 0)
            return not_allowed(q, out);
        json_t *all = json_object(), *sw = switches_json(t, cs), *v;
        const char *k;
        json_object_foreach(sw, k, v) json_object_update(all, json_object_get(v, "interfaces"));
        json_decref(sw);
        *out = json_pack("{s:o}", "interfaces", all);
        return 200;
    }
    /* "switch/{dpid}/enable|disable" or "{id}/enable|disable|metadata..." */
    char id[96];
    const char *tail;
    bool whole = strncmp(rest, "switch/", 7) == 0;
    const char *start = whole ? rest + 7 : rest;
    const char *slash = strchr(start, '/');
    if (!slash || (size_t)(slash - start) >= sizeof(id))
        return rest_ext_error(out, 404, "no such resource: %s", q->path);
    memcpy(id, start, (size_t)(slash - start));
    id[slash - start] = '\0';
    tail = slash + 1;
    uint64_t dpid;
    uint32_t port = 0;
    if (whole ? dpid_parse(id, &dpid) < 0 : iface_parse(id, &dpid, &port) < 0)
        return rest_ext_error(out, 400, "'%s' is not %s", id,
                              whole ? "a dpid" : "an interface id (dpid:port)");
    const struct ctl_switch *s = ctl_switches_find(cs, dpid);
    if (!s)
        return rest_ext_error(out, 404, "Switch not found");
    if (!whole && !of_ports_find(&s->ports, port))
        return rest_ext_error(out, 404, "Switch %s interface %" PRIu32 " not found", id, port);
    if (strcmp(tail, "enable") == 0 || strcmp(tail, "disable") == 0) {
        bool enable = tail[0] == 'e';
        if (strcmp(q->method, "POST") != 0)
            return not_allowed(q, out);
        if (enable && !switch_enabled(t, dpid))
            return rest_ext_error(out, 409, "Enable Switch first");
        unsigned rc = 0;
        for (uint32_t i = 0; i < s->ports.n && !rc; i++)
            if (whole || s->ports.v[i].port_no == port)
                rc = iface_admin(t, job, s, s->ports.v[i].port_no, enable, TOPO_ADMIN_DISABLED,
                                 out);
        if (rc)
            return rc;
        *out = json_string(OK_TEXT);
        return 200;
    }
    if (whole)
        return rest_ext_error(out, 404, "no such resource: %s", q->path);
    char canon[40];
    iface_id(dpid, port, canon);
    return meta_later(job, "interface", canon, tail, 201);
}

static unsigned v3_links(struct topo_rest *t, struct keep_job *job, const struct rest_ext_req *q,
                         const struct ctl_switches *cs, const char *rest, json_t **out)
{
    if (!*rest) {
        if (strcmp(q->method, "GET") != 0)
            return not_allowed(q, out);
        *out = json_pack("{s:o}", "links", links_json(t, cs));
        return 200;
    }
    /* "{id}" (DELETE) or "{id}/enable|disable|metadata..." */
    char id[TOPO_LINK_ID_LEN + 1];
    const char *slash = strchr(rest, '/');
    size_t idlen = slash ? (size_t)(slash - rest) : strlen(rest);
    const char *tail = slash ? slash + 1 : "";
    /* Kytos' words: DELETE says it with a full stop, the others without. */
    const char *missing = *tail ? "Link not found" : "Link not found.";
    if (idlen > TOPO_LINK_ID_LEN)
        return rest_ext_error(out, 404, "%s", missing);
    memcpy(id, rest, idlen);
    id[idlen] = '\0';
    struct topo_link_rec *l = topo_ctl_find(t->ctl, id);
    if (!l)
        return rest_ext_error(out, 404, "%s", missing);
    if (!*tail) {
        if (strcmp(q->method, "DELETE") != 0)
            return not_allowed(q, out);
        /* Kytos: only a disabled link; its kept records go with it. */
        if (l->enabled)
            return rest_ext_error(out, 409, "Link is not disabled.");
        keep_link_later(job, l, true);          /* no record kept: as never disabled */
        job->forget_link_meta = true;
        topo_ctl_forget(t->ctl, id);
        LOG_INFO("topology", "link %s deleted by REST", id);
        *out = json_string(OK_TEXT);
        return 200;
    }
    if (strcmp(tail, "enable") == 0 || strcmp(tail, "disable") == 0) {
        if (strcmp(q->method, "POST") != 0)
            return not_allowed(q, out);
        l->enabled = tail[0] == 'e';
        keep_link_later(job, l, l->enabled);
        LOG_INFO("topology", "link %s %s by REST", id, l->enabled ? "enabled" : "disabled");
        *out = json_string(OK_TEXT);
        return 201;
    }
    return meta_later(job, "link", id, tail, 201);
}

static unsigned topology_v3(void *arg, const struct rest_ext_req *q, json_t **out)
{
    struct topo_rest *t = arg;
    struct keep_job job = {0};
    const struct ctl_switches *cs = t->lock(t->lock_arg);
    unsigned status;
    const char *a = q->arg;

    if (!*a) {
        if (strcmp(q->method, "GET") != 0)
            status = not_allowed(q, out);
        else {
            *out = json_pack("{s:{s:o, s:o}}", "topology", "switches", switches_json(t, cs),
                             "links", links_json(t, cs));
            status = 200;
        }
    } else if (strncmp(a, "switches", 8) == 0 && (!a[8] || a[8] == '/')) {
        status = v3_switches(t, &job, q, cs, a[8] ? a + 9 : "", out);
    } else if (strncmp(a, "interfaces", 10) == 0 && (!a[10] || a[10] == '/')) {
        status = v3_interfaces(t, &job, q, cs, a[10] ? a + 11 : "", out);
    } else if (strncmp(a, "links", 5) == 0 && (!a[5] || a[5] == '/')) {
        status = v3_links(t, &job, q, cs, a[5] ? a + 6 : "", out);
    } else {
        status = rest_ext_error(out, 404, "no such resource: %s", q->path);
    }
    t->unlock(t->lock_arg);
    return keep_flush(t, q, &job, status, out);
}

/* ---- of_lldp v1 ----------------------------------------------------------------- */

struct lldp_walk {
    struct topo_rest *t;
    json_t *ids;
};

static void lldp_ids(const struct ctl_switch *s, void *arg)
{
    struct lldp_walk *w = arg;
    for (uint32_t i = 0; i < s->ports.n; i++) {
        char id[40];
        if (topo_admin_get(w->t->admin, s->dpid, s->ports.v[i].port_no) & TOPO_ADMIN_NO_LLDP)
            continue;
        iface_id(s->dpid, s->ports.v[i].port_no, id);
        json_array_append_new(w->ids, json_string(id));
    }
}

static unsigned lldp_set(struct topo_rest *t, struct keep_job *job, const struct rest_ext_req *q,
                         const struct ctl_switches *cs, bool enable, json_t **out)
{
    json_error_t e;
    json_t *body = q->body ? json_loadb(q->body, q->body_len, 0, &e) : NULL;
    json_t *ids = json_object_get(body, "interfaces"), *v;
    size_t i;

    if (!json_is_array(ids)) {
        json_decref(body);
        return rest_ext_error(out, 400, "field 'interfaces' must be a list of interface ids");
    }
    json_t *missing = json_array();
    json_array_foreach(ids, i, v) {
        uint64_t dpid;
        uint32_t port;
        const struct ctl_switch *s;
        if (!json_is_string(v) || !*json_string_value(v))
            continue;
        if (iface_parse(json_string_value(v), &dpid, &port) < 0 ||
            !(s = ctl_switches_find(cs, dpid)) || !of_ports_find(&s->ports, port) ||
            iface_admin(t, job, s, port, enable, TOPO_ADMIN_NO_LLDP, out) != 0) {
            json_array_append(missing, v);
        } else if (!enable) {
            /* No LLDP, no hellos: of_lldp turns its liveness off too. */
            topo_live_disable(topo_ctl_live(t->ctl), (struct topo_end){dpid, port});
            iface_admin(t, job, s, port, false, TOPO_ADMIN_LIVENESS, out);
        }
    }
    json_decref(body);
    json_decref(*out);
    if (json_array_size(missing) == 0) {
        json_decref(missing);
        *out = json_string(enable ? "All the requested interfaces have been enabled."
                                  : "All the requested interfaces have been disabled.");
        return 200;
    }
    *out = json_pack("{s:o}", enable ? "Some interfaces couldn't be found and activated: "
                                     : "Some interfaces couldn't be found and deactivated: ",
                     missing);
    return 400;
}

static unsigned lldp_polling(struct topo_rest *t, const struct rest_ext_req *q, json_t **out)
{
    if (strcmp(q->method, "GET") == 0) {
        uint32_t ms = atomic_load_explicit(&t->app->interval_ms, memory_order_relaxed);
        *out = json_pack("{s:I}", "polling_time", (json_int_t)(ms / 1000u));
        return 200;
    }
    if (strcmp(q->method, "POST") != 0)
        return not_allowed(q, out);
    json_error_t e;
    json_t *body = q->body ? json_loadb(q->body, q->body_len, 0, &e) : NULL;
    json_t *v = json_object_get(body, "polling_time");
    json_int_t s = json_is_integer(v) ? json_integer_value(v) : 0;
    json_decref(body);
    if (s <= 0 || s > 3600)
        return rest_ext_error(out, 400, "field 'polling_time' must be whole seconds, 1 to 3600");
    atomic_store_explicit(&t->app->interval_ms, (uint32_t)s * 1000u, memory_order_relaxed);
    LOG_INFO("topology", "LLDP polling time set to %lld s by REST (not saved)", (long long)s);
    *out = json_string("Polling time has been updated.");
    return 200;
}

/* ---- of_lldp v1 liveness ------------------------------------------------------- */

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
    char id[40];
    iface_id(i->end.dpid, i->end.port, id);
    return json_pack("{s:s, s:s, s:o}", "id", id, "status", topo_live_name(i->state),
                     "last_hello_at", hello_at(i));
}

static void add_live(void *arg, const struct topo_live_if *i)
{
    json_array_append_new(arg, live_json(i));
}

struct pair_walk {
    struct topo_rest *t;
    json_t *pairs;
};

static void add_pair(void *arg, const struct topo_live_if *i)
{
    struct pair_walk *w = arg;
    struct topo_live *live = topo_ctl_live(w->t->ctl);
    const struct topo_link_rec *l = topo_ctl_link_of(w->t->ctl, i->end);

    /* Once per link: from its endpoint_a, when both ends are on. */
    if (!l || l->loop || l->a.dpid != i->end.dpid || l->a.port != i->end.port)
        return;
    const struct topo_live_if *b = topo_live_find(live, l->b);
    if (!b)
        return;
    json_array_append_new(w->pairs,
                          json_pack("{s:o, s:o, s:s, s:s}", "interface_a", live_json(i),
                                    "interface_b", live_json(b), "link_id", l->id, "status",
                                    topo_live_name(topo_live_pair(i, b))));
}

/* POST liveness/enable|disable {"interfaces": [...]}: as of_lldp checks it
 * (empty: 400, unknown: 404, enable without LLDP on: 400), all or nothing. */
static unsigned live_set(struct topo_rest *t, struct keep_job *job, const struct rest_ext_req *q,
                         const struct ctl_switches *cs, bool enable, json_t **out)
{
    json_error_t e;
    json_t *body = q->body ? json_loadb(q->body, q->body_len, 0, &e) : NULL;
    json_t *ids = json_object_get(body, "interfaces"), *v;
    json_t *unknown = json_array(), *no_lldp = json_array();
    struct topo_live *live = topo_ctl_live(t->ctl);
    unsigned status = 200;
    size_t i;

    if (!json_is_array(ids) || json_array_size(ids) == 0) {
        status = rest_ext_error(out, 400, "Interfaces payload is empty");
        goto done;
    }
    json_array_foreach(ids, i, v) {
        uint64_t dpid;
        uint32_t port;
        const struct ctl_switch *s;
        if (!json_is_string(v) || iface_parse(json_string_value(v), &dpid, &port) < 0 ||
            !(s = ctl_switches_find(cs, dpid)) || !of_ports_find(&s->ports, port))
            json_array_append(unknown, v);
        else if (enable && (topo_admin_get(t->admin, dpid, port) & TOPO_ADMIN_NO_LLDP))
            json_array_append(no_lldp, v);
    }
    if (json_array_size(unknown)) {
        char *text = json_dumps(unknown, JSON_COMPACT);
        status = rest_ext_error(out, 404, "Interface IDs %s not found", text ? text : "");
        free(text);
        goto done;
    }
    if (json_array_size(no_lldp)) {
        char *text = json_dumps(no_lldp, JSON_COMPACT);
        status = rest_ext_error(out, 400, "Interface IDs %s don't have LLDP enabled",
                                text ? text : "");
        free(text);
        goto done;
    }
    json_array_foreach(ids, i, v) {
        struct topo_end end;
        topo_end_parse(json_string_value(v), ':', false, &end);   /* checked above */
        uint64_t dpid = end.dpid;
        uint32_t port = end.port;
        uint32_t f = topo_admin_get(t->admin, dpid, port);
        if (enable) {
            if (topo_live_enable(live, end) < 0 ||
                topo_admin_set(t->admin, dpid, port, f | TOPO_ADMIN_LIVENESS) < 0) {
                status = rest_ext_error(out, 507, "topology.max_links / max_interfaces "
                                        "reached: liveness not enabled on %s",
                                        json_string_value(v));
                goto done;
            }
        } else {
            topo_live_disable(live, end);
            topo_admin_set(t->admin, dpid, port, f & ~(uint32_t)TOPO_ADMIN_LIVENESS);
        }
        keep_admin_later(job, dpid, port);
    }
    *out = json_object();
done:
    json_decref(unknown);
    json_decref(no_lldp);
    json_decref(body);
    return status;
}

static unsigned lldp_liveness(struct topo_rest *t, struct keep_job *job, const struct rest_ext_req *q,
                              const struct ctl_switches *cs, const char *what, json_t **out)
{
    struct topo_live *live = topo_ctl_live(t->ctl);
    bool get = strcmp(q->method, "GET") == 0, post = strcmp(q->method, "POST") == 0;

    if (!*what && get) {
        const char *want = q->query(q, "interface_id");
        json_t *arr = json_array();
        uint64_t dpid;
        uint32_t port;
        if (want) {
            const struct topo_live_if *i =
                iface_parse(want, &dpid, &port) == 0
                    ? topo_live_find(live, (struct topo_end){dpid, port})
                    : NULL;
            if (i)
                json_array_append_new(arr, live_json(i));
        } else {
            topo_live_each(live, add_live, arr);
        }
        *out = json_pack("{s:o}", "interfaces", arr);
        return 200;
    }
    if (strcmp(what, "pair") == 0 && get) {
        struct pair_walk w = {t, json_array()};
        topo_live_each(live, add_pair, &w);
        *out = json_pack("{s:o}", "pairs", w.pairs);
        return 200;
    }
    if ((strcmp(what, "enable") == 0 || strcmp(what, "disable") == 0) && post)
        return live_set(t, job, q, cs, what[0] == 'e', out);
    return rest_ext_error(out, 404, "no such resource: %s %s", q->method, q->path);
}

static unsigned of_lldp_v1(void *arg, const struct rest_ext_req *q, json_t **out)
{
    struct topo_rest *t = arg;
    unsigned status;

    if (strcmp(q->arg, "polling_time") == 0)
        return lldp_polling(t, q, out);
    struct keep_job job = {0};
    const struct ctl_switches *cs = t->lock(t->lock_arg);
    if (strcmp(q->arg, "interfaces") == 0 && strcmp(q->method, "GET") == 0) {
        struct lldp_walk w = {t, json_array()};
        ctl_switches_foreach(cs, lldp_ids, &w);
        *out = json_pack("{s:o}", "interfaces", w.ids);
        status = 200;
    } else if (strcmp(q->method, "POST") == 0 && (strcmp(q->arg, "interfaces/enable") == 0 ||
                                                  strcmp(q->arg, "interfaces/disable") == 0)) {
        status = lldp_set(t, &job, q, cs, q->arg[11] == 'e', out);
    } else if (strncmp(q->arg, "liveness", 8) == 0 && (!q->arg[8] || q->arg[8] == '/')) {
        status = lldp_liveness(t, &job, q, cs, q->arg[8] ? q->arg + 9 : "", out);
    } else {
        status = rest_ext_error(out, 404, "no such resource: %s %s", q->method, q->path);
    }
    t->unlock(t->lock_arg);
    return keep_flush(t, q, &job, status, out);
}

/* ---- ofcd's compact graph -------------------------------------------------------- */

struct graph_walk {
    json_t *nodes, *links;
    int64_t now;
};

static void graph_node(const struct ctl_switch *s, void *arg)
{
    struct graph_walk *w = arg;
    char d[24];
    dpid_format(s->dpid, d);
    json_array_append_new(w->nodes, json_pack("{s:s, s:b, s:I}", "dpid", d, "connected", s->up,
                                              "ports", (json_int_t)s->ports.n));
}

static void graph_link(void *arg, const struct topo_link_rec *l)
{
    struct graph_walk *w = arg;
    char a[40], b[40];
    iface_id(l->a.dpid, l->a.port, a);
    iface_id(l->b.dpid, l->b.port, b);
    json_array_append_new(
        w->links, json_pack("{s:s, s:s, s:s, s:s, s:b, s:I, s:I, s:I, s:s}", "id", l->id, "a", a,
                            "b", b, "state", l->loop ? "loop" : l->active ? "up" : "down",
                            "enabled", l->enabled, "age_s", (json_int_t)(w->now - l->since_wall),
                            "ups", (json_int_t)l->ups, "downs", (json_int_t)l->downs, "why",
                            l->why ? l->why : ""));
}

static unsigned ofcd_topology(void *arg, const struct rest_ext_req *q, json_t **out)
{
    struct topo_rest *t = arg;

    if (*q->arg)
        return rest_ext_error(out, 404, "no such resource: %s", q->path);
    if (strcmp(q->method, "GET") != 0)
        return not_allowed(q, out);
    struct graph_walk w = {json_array(), json_array(), (int64_t)time(NULL)};
    const struct ctl_switches *cs = t->lock(t->lock_arg);
    ctl_switches_foreach(cs, graph_node, &w);
    topo_ctl_each(t->ctl, graph_link, &w);
    t->unlock(t->lock_arg);
    *out = json_pack("{s:o, s:o}", "nodes", w.nodes, "links", w.links);
    return 200;
}

/* ---- set-up --------------------------------------------------------------------- */

int topo_rest_init(struct topo_rest *t, const char *data_dir)
{
    size_t n = strlen(data_dir) + 40;

    pthread_mutex_init(&t->meta_lock, NULL);
    if (!(t->meta_path = malloc(n)) || !(t->meta = json_object()))
        return -ENOMEM;
    snprintf(t->meta_path, n, "%s/topology_metadata.json", data_dir);
    t->ext_topology = (struct rest_ext){"/api/kytos/topology/v3", t, topology_v3};
    t->ext_lldp = (struct rest_ext){"/api/kytos/of_lldp/v1", t, of_lldp_v1};
    t->ext_ofcd = (struct rest_ext){"/api/v1/topology", t, ofcd_topology};
    return 0;
}

/* Earlier ofcd kept metadata in a JSON file of its own: each entity goes
 * into the store, then the file is renamed (kept, never read again). */
static int import_file(struct topo_rest *t, struct store *s)
{
    json_error_t e;
    json_t *old, *all, *m;
    const char *kind, *id;
    int rc = 0;
    unsigned n = 0;

    if (access(t->meta_path, F_OK) != 0)
        return 0;
    if (!(old = json_load_file(t->meta_path, 0, &e)) || !json_is_object(old)) {
        LOG_ERR("topology", "%s: not a JSON object (line %d: %s): fix or remove it",
                t->meta_path, e.line, e.text);
        json_decref(old);
        return -EINVAL;
    }
    json_object_foreach(old, kind, all) {
        json_object_foreach(all, id, m) {
            if (rc == 0 && json_is_object(m) && (rc = topo_keep_meta(s, kind, id, m)) == 0)
                n++;
        }
    }
    json_decref(old);
    if (rc < 0) {
        LOG_ERR("topology", "importing %s into the store: %s", t->meta_path, strerror(-rc));
        return rc;
    }
    char done[4200];
    snprintf(done, sizeof(done), "%s.imported", t->meta_path);
    if (rename(t->meta_path, done) < 0)
        LOG_WARN("topology", "cannot rename %s: %s", t->meta_path, strerror(errno));
    LOG_INFO("topology", "metadata of %u entities moved from %s into the store", n, t->meta_path);
    return 0;
}

int topo_rest_load(struct topo_rest *t, struct store *s)
{
    json_t *meta = NULL;

    t->store = s;
    int rc = import_file(t, s);
    if (rc == 0)
        rc = topo_keep_load(s, &meta, t->admin, t->ctl);
    if (rc < 0) {
        LOG_ERR("topology", "cannot read the topology's stored records: %s", strerror(-rc));
        return rc;
    }
    pthread_mutex_lock(&t->meta_lock);
    json_decref(t->meta);
    t->meta = meta;
    pthread_mutex_unlock(&t->meta_lock);
    return 0;
}

void topo_rest_fini(struct topo_rest *t)
{
    json_decref(t->meta);
    t->meta = NULL;
    free(t->meta_path);
    t->meta_path = NULL;
    pthread_mutex_destroy(&t->meta_lock);
}
