/* eline_path: where an EVC goes, and whether it should go elsewhere now.
 *
 * Its path, as Kytos' mef_eline chooses one: the request's primary_path
 * when all its links are up; else its backup_path when all of those are;
 * else, with dynamic_backup_path (or no path given at all), the
 * topology's best under its primary_constraints (pathfinder's first
 * answer; the fewest links without). Its backup (a fast-failover group's
 * second way): the request's backup_path beside a primary one, else the
 * topology's best under its secondary_constraints sharing no link with
 * the path (Kytos asks pathfinder with them for its failover path too).
 * Without the topology app a given path is taken as it is (nothing can
 * say it is down) and no dynamic path exists. See eline_app.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "eline_app.h"
#include "ofcd_clock.h"
#include "sw_view.h"
#include "topo_class.h"
#include "topo_path_cons.h"
#include "topo_paths.h"
#include "topo_view.h"

bool eline_same_link(const struct eline_link *x, const struct eline_link *y)
{
    return (x->a.dpid == y->a.dpid && x->a.port == y->a.port && x->b.dpid == y->b.dpid &&
            x->b.port == y->b.port) ||
           (x->a.dpid == y->b.dpid && x->a.port == y->b.port && x->b.dpid == y->a.dpid &&
            x->b.port == y->a.port);
}

static bool has_link(const struct eline_link *l, size_t n, const struct eline_link *x)
{
    for (size_t i = 0; i < n; i++)
        if (eline_same_link(&l[i], x))
            return true;
    return false;
}

/* Do two paths share a link? */
static bool share_link(const struct eline_link *x, size_t nx, const struct eline_link *y,
                       size_t ny)
{
    for (size_t i = 0; i < nx; i++)
        if (has_link(y, ny, &x[i]))
            return true;
    return false;
}

/* The same links, in any order? */
static bool same_links(const struct eline_link *x, size_t nx, const struct eline_link *y,
                       size_t ny)
{
    if (nx != ny)
        return false;
    for (size_t i = 0; i < nx; i++)
        if (!has_link(y, ny, &x[i]))
            return false;
    return true;
}

/* "dpid:port" of a link end in a request's path. */
static int path_end(json_t *link, const char *which, struct eline_end *e)
{
    struct topo_end t;
    const char *id = json_string_value(json_object_get(json_object_get(link, which), "id"));
    if (!id || topo_end_parse(id, ':', false, &t) < 0)
        return -EINVAL;
    *e = (struct eline_end){t.dpid, t.port};
    return 0;
}

/* A request's path (primary_path, backup_path), ordered from uni_a's
 * switch: each link has an end on the switch the one before reached. */
static int given_path(const struct eline_rec *r, json_t *p, struct eline_link *out, size_t *n)
{
    uint64_t at = r->req.uni_a.at.dpid;
    json_t *l;
    size_t i;

    *n = 0;
    if (json_array_size(p) > ELINE_PATH_MAX)
        return -E2BIG;
    json_array_foreach(p, i, l) {
        struct eline_end x, y;
        if (path_end(l, "endpoint_a", &x) < 0 || path_end(l, "endpoint_b", &y) < 0)
            return -EINVAL;
        if (y.dpid == at) {
            struct eline_end s = x;
            x = y;
            y = s;
        }
        if (x.dpid != at)
            return -EINVAL;
        out[(*n)++] = (struct eline_link){.a = x, .b = y};
        at = y.dpid;
    }
    return at == r->req.uni_z.at.dpid ? 0 : -EINVAL;
}

struct topo_rest *eline_topology(struct eline_app *a)
{
    void *topo = a->host->app_find ? a->host->app_find(a->host->app_find_arg, "topology") : NULL;
    return topo_class_rest(topo);
}

static void links_of(const struct topo_path_hop *h, size_t n, struct eline_link *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (struct eline_link){.a = {h[i].from.dpid, h[i].from.port},
                                     .b = {h[i].to.dpid, h[i].to.port}};
}

static void hops_of(const struct eline_link *l, size_t n, struct topo_path_hop *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (struct topo_path_hop){.from = {l[i].a.dpid, l[i].a.port},
                                        .to = {l[i].b.dpid, l[i].b.port}};
}

/* Are all links of l[0..n) up? 1, 0, or -errno (not known). No topology:
 * 1 (a given path is taken as it is). */
static int links_up(struct topo_rest *t, const struct eline_link *l, size_t n)
{
    struct topo_path_hop h[ELINE_PATH_MAX];

    if (!t || n == 0)
        return 1;
    hops_of(l, n, h);
    return topo_paths_up(t, h, n);
}

/* The request's path p into out when it is given and up: 0; -ENOENT when
 * not given or down; -EINVAL when it does not join the UNIs. */
static int given_up(struct topo_rest *t, const struct eline_rec *r, json_t *p,
                    struct eline_link *out, size_t *n)
{
    if (!json_array_size(p))
        return -ENOENT;
    int rc = given_path(r, p, out, n);
    if (rc == 0 && (rc = links_up(t, out, *n)) >= 0)
        rc = rc ? 0 : -ENOENT;
    return rc;
}

static bool dynamic_allowed(const struct eline_rec *r)
{
    return r->req.dynamic_backup_path || !json_array_size(r->req.primary_path);
}

int eline_path_cons_check(json_t *primary, json_t *secondary, char *err, size_t errlen)
{
    static const char *const prefix[] = {"primary_constraints.", "secondary_constraints."};
    json_t *const obj[] = {primary, secondary};
    char why[256];

    for (int i = 0; i < 2; i++) {
        struct topo_path_cons c;
        int rc = topo_path_cons_read(obj[i], prefix[i], &c, why, sizeof(why));
        topo_path_cons_free(&c);
        if (rc == -EINVAL)
            snprintf(err, errlen, "The request body contains invalid API data. %s", why);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* The topology's best path for r under its primary (which = 0) or
 * secondary constraints, over no link of avoid. A constraint that does
 * not read (an EVC kept by an earlier ofcd, which took any object) is no
 * constraint at all: the EVC is better laid than not. */
static int dynamic_path(struct topo_rest *t, const struct eline_rec *r, int which,
                        const struct topo_path_hop *avoid, size_t n_avoid,
                        struct topo_path_hop *out, size_t *n)
{
    struct topo_path_cons c;
    char why[256];
    int rc = topo_path_cons_read(which ? r->req.secondary_constraints
                                       : r->req.primary_constraints, "", &c, why, sizeof(why));

    if (rc == 0)
        rc = topo_paths_best(t, r->req.uni_a.at.dpid, r->req.uni_z.at.dpid, &c, avoid, n_avoid,
                             out, ELINE_PATH_MAX, n);
    else if (rc == -EINVAL)
        rc = topo_paths_best(t, r->req.uni_a.at.dpid, r->req.uni_z.at.dpid, NULL, avoid,
                             n_avoid, out, ELINE_PATH_MAX, n);
    topo_path_cons_free(&c);
    return rc;
}

int eline_path_find(struct eline_app *a, const struct eline_rec *r, struct eline_link *out,
                    size_t *n, struct eline_link *backup, size_t *n_backup, bool *lone)
{
    struct topo_rest *t = eline_topology(a);
    struct topo_path_hop hops[ELINE_PATH_MAX], spare[ELINE_PATH_MAX];
    uint64_t src = r->req.uni_a.at.dpid, dst = r->req.uni_z.at.dpid;

    *n = *n_backup = 0;
    *lone = false;
    if (src == dst)
        return 0;
    int rc = given_up(t, r, r->req.primary_path, out, n);
    if (rc == 0) {
        /* On its primary: its backup_path beside it when that is up and
         * shares no link, else a dynamic one if allowed. */
        if (!a->fast_failover)
            return 0;
        if (given_up(t, r, r->req.backup_path, backup, n_backup) == 0 &&
            !share_link(out, *n, backup, *n_backup))
            return 0;
        *n_backup = 0;
        if (!t || !r->req.dynamic_backup_path)
            return 0;
        hops_of(out, *n, hops);
    } else {
        if (rc != -ENOENT)
            return rc;
        if ((rc = given_up(t, r, r->req.backup_path, out, n)) != -ENOENT)
            return rc;
        if (!t || !dynamic_allowed(r))
            return -ENOENT;             /* apps.topology off: no dynamic path */
        if ((rc = dynamic_path(t, r, 0, NULL, 0, hops, n)) < 0)
            return rc;
        links_of(hops, *n, out);
        if (!a->fast_failover)
            return 0;
    }
    rc = dynamic_path(t, r, 1, hops, *n, spare, n_backup);
    if (rc < 0) {
        *n_backup = 0;                  /* unprotected: the topology has no second way */
        *lone = rc == -ENOENT || rc == -EDOM;    /* retried: the topology may change */
        return 0;
    }
    links_of(spare, *n_backup, backup);
    return 0;
}

/* May a path never seen up be judged down now? Not before the settle
 * time from the worker's start, nor while a switch of it has been up less
 * than the settle time (LLDP has not found its links yet), nor while one
 * has not come back at all before absent_until_us. */
static bool settled(struct eline_app *a, const struct eline_link *l, size_t n)
{
    uint64_t mono = ofcd_clock_mono_us();

    if (mono < a->settle_until_us)
        return false;
    if (!a->host->view_lock)
        return true;
    uint64_t now = atomic_load(&a->tick_us);
    bool ok = true;
    const struct sw_view *v = a->host->view_lock(a->host->view_arg);
    for (size_t i = 0; i < n && ok; i++) {
        const struct eline_end *e[2] = {&l[i].a, &l[i].b};
        for (int k = 0; k < 2 && ok; k++) {
            const struct ctl_switch *sw = sw_view_find(v, e[k]->dpid);
            if (!sw || !sw->up)
                ok = mono >= a->absent_until_us;
            else        /* up after the last tick: now < up_since */
                ok = now >= sw->up_since_us && now - sw->up_since_us >= a->settle_us;
        }
    }
    a->host->view_unlock(a->host->view_arg);
    return ok;
}

int eline_path_judge(struct eline_app *a, struct eline_rec *r, char *why, size_t len,
                     bool *failover)
{
    struct topo_rest *t = eline_topology(a);
    struct eline_link path[ELINE_PATH_MAX], backup[ELINE_PATH_MAX], want[ELINE_PATH_MAX];
    struct topo_path_hop hops[ELINE_PATH_MAX], spare[ELINE_PATH_MAX];
    size_t n, nb, nw;

    *failover = false;
    if (!t)
        return 0;
    pthread_mutex_lock(&a->lock);
    bool active = r->active && !r->archived, lone = r->lone, seen = r->seen_up;
    n = r->n_path;
    nb = r->n_backup;
    memcpy(path, r->path, n * sizeof(path[0]));
    memcpy(backup, r->backup, nb * sizeof(backup[0]));
    pthread_mutex_unlock(&a->lock);
    if (!active || n == 0)
        return 0;
    int up = links_up(t, path, n), bup = nb ? links_up(t, backup, nb) : 1;
    if (!seen && ((up == 0 && !settled(a, path, n)) || (bup == 0 && !settled(a, backup, nb))))
        return 0;                       /* their links not found again yet */
    if (up <= 0) {
        snprintf(why, len, "a link of its path is down");
        *failover = up == 0 && nb;
        return up < 0 ? up : 1;
    }
    if (bup <= 0) {
        snprintf(why, len, "a link of its backup is down");
        return bup < 0 ? bup : 1;
    }
    if (!seen) {
        pthread_mutex_lock(&a->lock);
        r->seen_up = true;
        pthread_mutex_unlock(&a->lock);
    }
    if (given_up(t, r, r->req.primary_path, want, &nw) == 0 && !same_links(want, nw, path, n)) {
        snprintf(why, len, "its primary path is up again");
        return 1;
    }
    if (lone && a->fast_failover && nb == 0) {
        hops_of(path, n, hops);
        if (dynamic_path(t, r, 1, hops, n, spare, &nw) == 0) {
            snprintf(why, len, "a backup can protect it again");
            return 1;
        }
    }
    return 0;
}
