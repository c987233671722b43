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

#include "sw_view.h"
#include "dpid.h"
#include "ofcd_log.h"
#include "topo_flow.h"
#include "topo_keep.h"
#include "store.h"
#include "topo_rest_priv.h"

#define OK_TEXT "Operation successful"

/* ---- ids ------------------------------------------------------------------------ */

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
    struct topo_link_rec *off;          /* links disabled with their switch or interface */
    size_t n_off, cap_off;
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

/* As Kytos does: a switch or interface disabled disables the links on it
 * (enabling it again does not enable them). */
static void disable_links_on(struct topo_rest *t, struct keep_job *j, uint64_t dpid,
                             uint32_t port)
{
    /* An interface's link by its end; a switch's by a walk of the links. */
    const struct topo_link_rec *one =
        port == TOPO_ADMIN_SWITCH ? NULL : topo_view_link_of(t->ctl, (struct topo_end){dpid, port});
    for (size_t i = 0;; i++) {
        const struct topo_link_rec *c = port == TOPO_ADMIN_SWITCH ? topo_view_link_at(t->ctl, i)
                                        : i == 0                  ? one
                                                                  : NULL;
        if (!c)
            break;
        bool on = port != TOPO_ADMIN_SWITCH || c->a.dpid == dpid || c->b.dpid == dpid;
        if (!on || !c->enabled)
            continue;
        if (j->n_off == j->cap_off) {
            size_t nc = j->cap_off ? j->cap_off * 2 : 8;
            struct topo_link_rec *no = realloc(j->off, nc * sizeof(*no));
            if (!no) {
                j->nomem = true;
                return;
            }
            j->off = no;
            j->cap_off = nc;
        }
        struct topo_link_rec *l = topo_view_find(t->ctl, c->id);
        l->enabled = false;
        topo_paths_touch(&t->paths);
        j->off[j->n_off++] = *l;
        LOG_INFO("topology", "link %s disabled with its %s", l->id,
                 port == TOPO_ADMIN_SWITCH ? "switch" : "interface");
    }
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

/* Make next (taken) the entity's metadata: durable first, then shown. */
static unsigned meta_commit(struct topo_rest *t, const char *kind, const char *id, json_t *next,
                            json_t **out, unsigned ok)
{
    int rc = t->store ? topo_keep_meta(t->store, kind, id, next) : -ENODEV;
    if (rc < 0) {
        json_decref(next);
        LOG_ERR("topology", "%s %s: metadata not stored: %s", kind, id, store_strerror(rc));
        return rest_ext_error(out, rc == -ENOSPC ? 507 : rc == -ESTALE ? 503 : 500,
                              "metadata not stored: %s", store_strerror(rc));
    }
    topo_rest_meta_swap(t, kind, id, next);
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
    if (strcmp(q->method, "GET") == 0 && !key) {
        *out = json_pack("{s:o}", "metadata", topo_rest_meta_copy(t, kind, id));
        return 200;
    }
    /* Writers in turn (keep_lock, held across the store's write); the
     * copy that readers see (meta_lock) is swapped once it is stored. */
    pthread_mutex_lock(&t->keep_lock);
    json_t *m = topo_rest_meta_copy(t, kind, id);
    if (strcmp(q->method, "POST") == 0 && !key) {
        json_error_t e;
        json_t *body = q->body ? json_loadb(q->body, q->body_len, 0, &e) : NULL;
        if (!json_is_object(body)) {
            status = rest_ext_error(out, 400, "the body must be a JSON object of metadata");
        } else {
            json_t *next = json_incref(m);
            char why[128];
            json_object_update(next, body);
            if (topo_meta_check(next, why, sizeof(why)) < 0) {
                json_decref(next);
                status = rest_ext_error(out, 413, "metadata of %s %s: %s; nothing changed",
                                        kind, id, why);
            } else {
                status = meta_commit(t, kind, id, next, out, post_ok);
            }
        }
        json_decref(body);
    } else if (strcmp(q->method, "DELETE") == 0 && key) {
        if (!json_object_get(m, key)) {
            status = rest_ext_error(out, 404, "Metadata not found");
        } else {
            json_t *next = json_incref(m);
            json_object_del(next, key);
            status = meta_commit(t, kind, id, next, out, 200);
        }
    } else {
        status = not_allowed(q, out);
    }
    json_decref(m);
    pthread_mutex_unlock(&t->keep_lock);
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
    if (t->store && (j->n_admin || j->link.id[0] || j->n_off)) {
        pthread_mutex_lock(&t->keep_lock);
        for (size_t i = 0; i < j->n_admin && rc == 0; i++)
            rc = topo_keep_admin(t->store, j->admin[i].dpid, j->admin[i].port,
                                 topo_admin_get(t->admin, j->admin[i].dpid, j->admin[i].port));
        if (rc == 0 && j->link.id[0])
            rc = j->forget_link_meta ? topo_keep_link_del(t->store, j->link.id)
                                     : topo_keep_link(t->store, &j->link, j->link.enabled);
        for (size_t i = 0; i < j->n_off && rc == 0; i++)
            rc = topo_keep_link(t->store, &j->off[i], false);
        if (rc == 0 && j->forget_link_meta) {
            json_t *none = json_object();
            rc = none ? topo_keep_meta(t->store, "link", j->link.id, none) : -ENOMEM;
            json_decref(none);
            if (rc == 0)
                topo_rest_meta_swap(t, "link", j->link.id, NULL);
        }
        pthread_mutex_unlock(&t->keep_lock);
    }
    free(j->admin);
    j->admin = NULL;
    free(j->off);
    j->off = NULL;
    if (j->lldp_flow && t->store && t->fm) {
        uint16_t vlan = t->app ? t->app->lldp_vlan : 0;
        int frc = j->lldp_flow > 0
                      ? topo_flow_ensure(t->fm, j->lldp_flow_dpid, vlan, NULL)
                      : topo_flow_remove(t->fm, j->lldp_flow_dpid, vlan);
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

/* ---- topology v3 ---------------------------------------------------------------- */

static unsigned switch_admin(struct topo_rest *t, struct keep_job *job, uint64_t dpid,
                             bool enable, json_t **out)
{
    if (topo_admin_update(t->admin, dpid, TOPO_ADMIN_SWITCH, enable ? 0 : TOPO_ADMIN_DISABLED,
                          enable ? TOPO_ADMIN_DISABLED : 0, NULL) < 0)
        return rest_ext_error(out, 507, "topology.max_interfaces reached: nothing changed");
    keep_admin_later(job, dpid, TOPO_ADMIN_SWITCH);
    if (!enable)
        disable_links_on(t, job, dpid, TOPO_ADMIN_SWITCH);
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
    /* An operator's enable also ends a loop detection's disable. */
    uint32_t clear = bit == TOPO_ADMIN_DISABLED ? bit | TOPO_ADMIN_LOOP_OFF : bit;
    if (topo_admin_update(t->admin, s->dpid, port, enable ? 0 : bit, enable ? clear : 0, NULL) <
        0)
        return rest_ext_error(out, 507, "topology.max_interfaces reached: nothing changed");
    keep_admin_later(job, s->dpid, port);
    if (!enable && bit == TOPO_ADMIN_DISABLED)
        disable_links_on(t, job, s->dpid, port);
    return 0;
}

static unsigned v3_switches(struct topo_rest *t, struct keep_job *job, const struct rest_ext_req *q,
                            const struct sw_view *cs, const char *rest, json_t **out)
{
    char d[64];
    uint64_t dpid;
    const char *slash = strchr(rest, '/');

    if (!*rest)
        return not_allowed(q, out);             /* GET: topo_read_v3, without the lock */
    if (!slash || (size_t)(slash - rest) >= sizeof(d))
        return rest_ext_error(out, 404, "no such resource: %s", q->path);
    memcpy(d, rest, (size_t)(slash - rest));
    d[slash - rest] = '\0';
    if (dpid_parse(d, &dpid) < 0 || !sw_view_find(cs, dpid))
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
                              const struct sw_view *cs, const char *rest, json_t **out)
{
    if (!*rest)
        return not_allowed(q, out);             /* GET: topo_read_v3 */
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
    const struct ctl_switch *s = sw_view_find(cs, dpid);
    if (!s)
        return rest_ext_error(out, 404, "Switch not found");
    if (!whole && !of_ports_find(&s->ports, port))
        return rest_ext_error(out, 404, "Switch %s interface %" PRIu32 " not found", id, port);
    if (strcmp(tail, "enable") == 0 || strcmp(tail, "disable") == 0) {
        bool enable = tail[0] == 'e';
        if (strcmp(q->method, "POST") != 0)
            return not_allowed(q, out);
        if (enable && !topo_rest_switch_enabled(t, dpid))
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
    topo_rest_iface_id(dpid, port, canon);
    return meta_later(job, "interface", canon, tail, 201);
}

static unsigned v3_links(struct topo_rest *t, struct keep_job *job, const struct rest_ext_req *q,
                         const char *rest, json_t **out)
{
    if (!*rest)
        return not_allowed(q, out);             /* GET: topo_read_v3 */
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
    struct topo_link_rec *l = topo_view_find(t->ctl, id);
    if (!l)
        return rest_ext_error(out, 404, "%s", missing);
    if (!*tail) {
        if (strcmp(q->method, "DELETE") != 0)
            return not_allowed(q, out);
        /* Kytos: only a disabled link; its kept records go with it. */
        if (l->enabled)
            return rest_ext_error(out, 409, "Link is not disabled.");
        keep_link_later(job, l, true);          /* its record goes (forget_link_meta) */
        job->forget_link_meta = true;
        topo_view_forget(t->ctl, id);
        topo_paths_touch(&t->paths);
        LOG_INFO("topology", "link %s deleted by REST", id);
        *out = json_string(OK_TEXT);
        return 200;
    }
    if (strcmp(tail, "enable") == 0 || strcmp(tail, "disable") == 0) {
        if (strcmp(q->method, "POST") != 0)
            return not_allowed(q, out);
        /* Kytos: an end that is disabled (or on a disabled switch) first. */
        for (int k = 0; k < 2 && tail[0] == 'e'; k++) {
            struct topo_end e = k ? l->b : l->a;
            if (!topo_rest_switch_enabled(t, e.dpid) ||
                (topo_admin_get(t->admin, e.dpid, e.port) & TOPO_ADMIN_DISABLED)) {
                char eid[TOPO_END_ID_LEN];
                topo_rest_iface_id(e.dpid, e.port, eid);
                return rest_ext_error(out, 409, "%s needs enabling.", eid);
            }
        }
        l->enabled = tail[0] == 'e';
        topo_paths_touch(&t->paths);
        keep_link_later(job, l, l->enabled);
        LOG_INFO("topology", "link %s %s by REST", id, l->enabled ? "enabled" : "disabled");
        *out = json_string(OK_TEXT);
        return 201;
    }
    return meta_later(job, "link", id, tail, 201);
}

/* "" or one of the collections ("switches", "switches/"...): what GET
 * shows whole, by topo_read_v3 (NULL: something else). */
static const char *v3_whole(const char *a)
{
    static const char *const words[] = {"switches", "interfaces", "links"};

    if (!*a)
        return "";
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        size_t n = strlen(words[i]);
        if (strncmp(a, words[i], n) == 0 && (!a[n] || (a[n] == '/' && !a[n + 1])))
            return words[i];
    }
    return NULL;
}

/* interfaces/tag_ranges, interfaces/{id}/tag_ranges|special_tags (a
 * trailing slash allowed): the VLAN pools' routes (topo_rest_tags.c), each
 * taking the locks it needs. Nonzero when a is one of them. */
static unsigned v3_tags(struct topo_rest *t, const struct rest_ext_req *q, const char *a,
                        json_t **out)
{
    char id[96];
    size_t n = strlen(a);

    if (strncmp(a, "interfaces/", 11) != 0)
        return 0;
    a += 11;
    n -= 11;
    if (n && a[n - 1] == '/')
        n--;
    if (n == 10 && strncmp(a, "tag_ranges", 10) == 0)
        return topo_rest_tags(t, q, NULL, "tag_ranges", out);
    const char *slash = memchr(a, '/', n);
    if (!slash || (size_t)(slash - a) >= sizeof(id))
        return 0;
    size_t tail = n - (size_t)(slash + 1 - a);
    const char *what = (tail == 10 && strncmp(slash + 1, "tag_ranges", 10) == 0) ? "tag_ranges"
                       : (tail == 12 && strncmp(slash + 1, "special_tags", 12) == 0)
                           ? "special_tags"
                           : NULL;
    if (!what)
        return 0;
    memcpy(id, a, (size_t)(slash - a));
    id[slash - a] = '\0';
    return topo_rest_tags(t, q, id, what, out);
}

/* DELETE switches/{dpid} or interfaces/{id} (a trailing slash allowed):
 * nonzero when a is one of them. */
static unsigned v3_delete(struct topo_rest *t, const char *a, json_t **out)
{
    char id[96];
    bool sw = strncmp(a, "switches/", 9) == 0, ifc = strncmp(a, "interfaces/", 11) == 0;
    const char *start = sw ? a + 9 : a + 11;
    size_t n;

    if (!sw && !ifc)
        return 0;
    n = strlen(start);
    if (n && start[n - 1] == '/')
        n--;
    if (!n || n >= sizeof(id) || memchr(start, '/', n))
        return 0;
    memcpy(id, start, n);
    id[n] = '\0';
    return sw ? topo_rest_delete_switch(t, id, out) : topo_rest_delete_interface(t, id, out);
}

static unsigned topology_v3(void *arg, const struct rest_ext_req *q, json_t **out)
{
    struct topo_rest *t = arg;
    struct keep_job job = {0};
    const char *a = q->arg, *whole = v3_whole(a);
    unsigned tags;

    if (whole && strcmp(q->method, "GET") == 0)
        return topo_read_v3(t, whole, out);        /* copies under the lock, renders after */
    if ((tags = v3_tags(t, q, a, out)) != 0)
        return tags;
    if (strcmp(q->method, "DELETE") == 0 && (tags = v3_delete(t, a, out)) != 0)
        return tags;
    const struct sw_view *cs = t->lock(t->lock_arg);
    unsigned status;
    if (!*a) {
        status = not_allowed(q, out);
    } else if (strncmp(a, "switches", 8) == 0 && (!a[8] || a[8] == '/')) {
        status = v3_switches(t, &job, q, cs, a[8] ? a + 9 : "", out);
    } else if (strncmp(a, "interfaces", 10) == 0 && (!a[10] || a[10] == '/')) {
        status = v3_interfaces(t, &job, q, cs, a[10] ? a + 11 : "", out);
    } else if (strncmp(a, "links", 5) == 0 && (!a[5] || a[5] == '/')) {
        status = v3_links(t, &job, q, a[5] ? a + 6 : "", out);
    } else {
        status = rest_ext_error(out, 404, "no such resource: %s", q->path);
    }
    t->unlock(t->lock_arg);
    return keep_flush(t, q, &job, status, out);
}

/* ---- of_lldp v1 ----------------------------------------------------------------- */

/* body: the request's, parsed before the lock was taken (NULL: none). */
static unsigned lldp_set(struct topo_rest *t, struct keep_job *job, const json_t *body,
                         const struct sw_view *cs, bool enable, json_t **out)
{
    json_t *ids = json_object_get(body, "interfaces"), *v;
    size_t i;

    if (!json_is_array(ids))
        return rest_ext_error(out, 400, "field 'interfaces' must be a list of interface ids");
    json_t *missing = json_array();
    json_array_foreach(ids, i, v) {
        uint64_t dpid;
        uint32_t port;
        const struct ctl_switch *s;
        if (!json_is_string(v) || !*json_string_value(v))
            continue;
        if (iface_parse(json_string_value(v), &dpid, &port) < 0 ||
            !(s = sw_view_find(cs, dpid)) || !of_ports_find(&s->ports, port) ||
            iface_admin(t, job, s, port, enable, TOPO_ADMIN_NO_LLDP, out) != 0) {
            json_array_append(missing, v);
        } else if (!enable) {
            /* No LLDP, no hellos: of_lldp turns its liveness off too. */
            topo_live_disable(topo_view_live(t->ctl), (struct topo_end){dpid, port});
            iface_admin(t, job, s, port, false, TOPO_ADMIN_LIVENESS, out);
        }
    }
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

/* POST liveness/enable|disable {"interfaces": [...]}: as of_lldp checks it
 * (empty: 400, unknown: 404, enable without LLDP on: 400), all or nothing. */
static unsigned live_set(struct topo_rest *t, struct keep_job *job, const json_t *body,
                         const struct sw_view *cs, bool enable, json_t **out)
{
    json_t *ids = json_object_get(body, "interfaces"), *v;
    json_t *unknown = json_array(), *no_lldp = json_array();
    struct topo_live *live = topo_view_live(t->ctl);
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
            !(s = sw_view_find(cs, dpid)) || !of_ports_find(&s->ports, port))
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
        if (enable) {
            if (topo_live_enable(live, end) < 0 ||
                topo_admin_update(t->admin, dpid, port, TOPO_ADMIN_LIVENESS, 0, NULL) < 0) {
                status = rest_ext_error(out, 507, "topology.max_links / max_interfaces "
                                        "reached: liveness not enabled on %s",
                                        json_string_value(v));
                goto done;
            }
        } else {
            topo_live_disable(live, end);
            topo_admin_update(t->admin, dpid, port, 0, TOPO_ADMIN_LIVENESS, NULL);
        }
        keep_admin_later(job, dpid, port);
    }
    *out = json_object();
done:
    json_decref(unknown);
    json_decref(no_lldp);
    return status;
}

static unsigned of_lldp_v1(void *arg, const struct rest_ext_req *q, json_t **out)
{
    struct topo_rest *t = arg;
    const char *a = q->arg;
    bool get = strcmp(q->method, "GET") == 0, post = strcmp(q->method, "POST") == 0;
    bool live = strncmp(a, "liveness", 8) == 0 && (!a[8] || a[8] == '/');
    const char *what = live && a[8] ? a + 9 : "";

    if (strcmp(a, "polling_time") == 0)
        return lldp_polling(t, q, out);
    /* The reads copy under the lock and render after it. */
    if (get && strcmp(a, "interfaces") == 0)
        return topo_read_lldp_interfaces(t, out);
    if (get && live && !*what)
        return topo_read_liveness(t, q->query(q, "interface_id"), out);
    if (get && live && strcmp(what, "pair") == 0)
        return topo_read_liveness_pairs(t, out);
    bool set_lldp = post && (strcmp(a, "interfaces/enable") == 0 ||
                             strcmp(a, "interfaces/disable") == 0);
    bool set_live = post && live && (strcmp(what, "enable") == 0 || strcmp(what, "disable") == 0);
    if (!set_lldp && !set_live)
        return rest_ext_error(out, 404, "no such resource: %s %s", q->method, q->path);
    /* A body is parsed before the lock: its size is the client's. */
    json_error_t e;
    json_t *body = q->body ? json_loadb(q->body, q->body_len, 0, &e) : NULL;
    struct keep_job job = {0};
    const struct sw_view *cs = t->lock(t->lock_arg);
    unsigned status = set_lldp ? lldp_set(t, &job, body, cs, a[11] == 'e', out)
                               : live_set(t, &job, body, cs, what[0] == 'e', out);
    t->unlock(t->lock_arg);
    json_decref(body);
    return keep_flush(t, q, &job, status, out);
}

/* ---- ofcd's compact graph -------------------------------------------------------- */

static unsigned ofcd_topology(void *arg, const struct rest_ext_req *q, json_t **out)
{
    if (*q->arg)
        return rest_ext_error(out, 404, "no such resource: %s", q->path);
    if (strcmp(q->method, "GET") != 0)
        return not_allowed(q, out);
    return topo_read_graph(arg, out);
}

/* ---- set-up --------------------------------------------------------------------- */

int topo_rest_init(struct topo_rest *t, const char *data_dir)
{
    size_t n = strlen(data_dir) + 40;

    pthread_mutex_init(&t->meta_lock, NULL);
    pthread_mutex_init(&t->keep_lock, NULL);
    pthread_mutex_init(&t->pool_lock, NULL);
    topo_paths_cache_init(&t->paths);
    if (!(t->meta_path = malloc(n)) || !(t->meta = json_object()))
        return -ENOMEM;
    snprintf(t->meta_path, n, "%s/topology_metadata.json", data_dir);
    t->ext_topology = (struct rest_ext){"/api/kytos/topology/v3", t, topology_v3, false};
    t->ext_lldp = (struct rest_ext){"/api/kytos/of_lldp/v1", t, of_lldp_v1, false};
    t->ext_ofcd = (struct rest_ext){"/api/v1/topology", t, ofcd_topology, false};
    t->ext_path = (struct rest_ext){"/api/kytos/pathfinder/v3", t, topo_rest_pathfinder, true};
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

void topo_rest_follow(struct topo_rest *t, const char *key)
{
    int rc;

    if (!t->store || !topo_keep_is_ours(key))
        return;
    if (topo_keep_is_meta(key)) {
        pthread_mutex_lock(&t->meta_lock);
        rc = topo_keep_follow_meta(t->store, key, t->meta);
        pthread_mutex_unlock(&t->meta_lock);
    } else {
        t->lock(t->lock_arg);
        rc = topo_keep_follow_state(t->store, key, t->admin, t->ctl);
        t->unlock(t->lock_arg);
    }
    if (rc < 0)
        LOG_WARN("topology", "record %s changed in the cluster, not followed here: %s", key,
                 strerror(-rc));
    else
        topo_paths_touch(&t->paths);    /* another node's metadata or flags: paths too */
}

void topo_rest_fini(struct topo_rest *t)
{
    json_decref(t->meta);
    t->meta = NULL;
    free(t->meta_path);
    t->meta_path = NULL;
    pthread_mutex_destroy(&t->meta_lock);
    pthread_mutex_destroy(&t->keep_lock);
    pthread_mutex_destroy(&t->pool_lock);
    topo_paths_cache_fini(&t->paths);
}
