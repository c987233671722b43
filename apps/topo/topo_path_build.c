/* topo_path_build: see topo_path_build.h. */
#include "topo_path_build.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dpid.h"
#include "topo_rest_priv.h"
#include "topo_snap.h"

static int keep(struct topo_path_build *b, void *p)
{
    if (!p)
        return -ENOMEM;
    if (b->n_owned == b->cap_owned) {
        size_t cap = b->cap_owned ? b->cap_owned * 2 : 16;
        void **o = realloc(b->owned, cap * sizeof(*o));
        if (!o) {
            free(p);
            return -ENOMEM;
        }
        b->owned = o;
        b->cap_owned = cap;
    }
    b->owned[b->n_owned++] = p;
    return 0;
}

void topo_path_build_free(struct topo_path_build *b)
{
    path_graph_free(&b->g);
    for (size_t i = 0; i < b->n_owned; i++)
        free(b->owned[i]);
    free(b->owned);
    json_decref(b->held);
    free(b->links);
    memset(b, 0, sizeof(*b));
}

/* A Kytos id: a switch's dpid (either form dpid_parse reads: seven colons
 * or none), else an interface's "dpid:port" (topo_end_parse). */
static int parse_id(const char *id, uint64_t *dpid, uint32_t *port, bool *iface)
{
    unsigned colons = 0;
    struct topo_end e;

    for (const char *c = id; *c; c++)
        colons += *c == ':';
    *iface = colons != 7 && colons != 0;
    if (!*iface)
        return dpid_parse(id, dpid);
    if (topo_end_parse(id, ':', false, &e) < 0)
        return -EINVAL;
    *dpid = e.dpid;
    *port = e.port;
    return 0;
}

/* Kytos' owners: an object's keys, a list's strings, a string's words. */
static int owners(struct topo_path_build *b, const json_t *v, struct path_attrs *at)
{
    const char **names = NULL;
    size_t n = 0;

    if (json_is_null(v) || !v)
        return 0;
    if (json_is_object(v)) {
        names = malloc((json_object_size(v) + 1) * sizeof(*names));
        const char *k;
        json_t *x;
        json_object_foreach((json_t *)v, k, x)
            if (names)
                names[n++] = k;
    } else if (json_is_array(v)) {
        names = malloc((json_array_size(v) + 1) * sizeof(*names));
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) {
            if (!json_is_string(x)) {
                free(names);
                at->bad |= 1u << PATH_OWNERSHIP;
                return 0;
            }
            if (names)
                names[n++] = json_string_value(x);
        }
    } else if (json_is_string(v)) {
        char *copy = strdup(json_string_value(v)), *save = NULL;
        int rc = keep(b, copy);
        if (rc < 0)
            return rc;
        names = malloc((strlen(copy) / 2 + 2) * sizeof(*names));
        for (char *w = strtok_r(copy, " \t\r\n\f\v", &save); names && w;
             w = strtok_r(NULL, " \t\r\n\f\v", &save))
            names[n++] = w;
    } else {
        at->bad |= 1u << PATH_OWNERSHIP;
        return 0;
    }
    int rc = keep(b, (void *)names);
    if (rc < 0)
        return rc;
    at->has |= 1u << PATH_OWNERSHIP;
    at->owners = names;
    at->n_owners = n;
    return 0;
}

static int link_attrs(struct topo_path_build *b, const char *id, const json_t *meta,
                      struct path_attrs *at)
{
    memset(at, 0, sizeof(*at));
    at->label = id;
    for (unsigned m = 0; m < PATH_N_NUMERIC; m++) {
        const json_t *v = json_object_get(meta, path_metric_name((enum path_metric)m));
        if (!v || json_is_null(v))
            continue;
        if (json_is_number(v)) {
            at->has |= 1u << m;
            at->v[m] = json_number_value(v);
        } else {
            at->bad |= 1u << m;
        }
    }
    return owners(b, json_object_get(meta, "ownership"), at);
}

static void add_switch(struct topo_rest *t, const struct topo_snap_switch *s, unsigned idx,
                       void *arg)
{
    struct topo_path_build *b = arg;
    (void)idx;

    if (b->err || !s->up || !topo_rest_switch_enabled(t, s->dpid))
        return;
    long sw = path_graph_node(&b->g, s->dpid, 0, false);
    for (uint32_t i = 0; sw >= 0 && s->ports && i < s->n_ports; i++) {
        bool active, enabled;
        topo_rest_iface_state(t, s->dpid, s->up, &s->ports[i].p, &active, &enabled);
        if (!active || !enabled)
            continue;
        long n = path_graph_node(&b->g, s->dpid, s->ports[i].p.port_no, true);
        if (n < 0 || path_graph_edge(&b->g, (uint32_t)sw, (uint32_t)n, NULL) < 0) {
            sw = n < 0 ? n : -ENOMEM;
            break;
        }
    }
    if (sw < 0)
        b->err = (int)sw;
}

static int add_link_record(struct topo_path_build *b, const char *id, uint32_t a, uint32_t z)
{
    if (b->n_links == b->cap_links) {
        size_t cap = b->cap_links ? b->cap_links * 2 : 256;
        struct topo_path_link *v = realloc(b->links, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        b->links = v;
        b->cap_links = cap;
    }
    b->links[b->n_links++] = (struct topo_path_link){id, a, z};
    return 0;
}

static void add_link(struct topo_rest *t, const struct topo_snap_link *l, void *arg)
{
    struct topo_path_build *b = arg;
    struct path_attrs at;

    if (b->err || !topo_rest_link_up(l))
        return;
    const struct topo_end *ea = &l->end[0].e, *ez = &l->end[1].e;
    long a = path_graph_node(&b->g, ea->dpid, ea->port, true);
    long z = a < 0 ? a : path_graph_node(&b->g, ez->dpid, ez->port, true);
    if (z < 0) {
        b->err = (int)z;
        return;
    }
    /* Held until free: the edge's label and owners point into them. */
    json_t *id = json_string(l->id), *meta = topo_rest_meta_copy(t, "link", l->id);
    int held = json_array_append_new(b->held, id);
    held |= json_array_append_new(b->held, meta);
    int rc = held ? -ENOMEM : 0;
    if (rc == 0 && a != z)
        rc = link_attrs(b, json_string_value(id), meta, &at);
    if (rc == 0 && a != z)
        rc = path_graph_edge(&b->g, (uint32_t)a, (uint32_t)z, &at);
    if (rc == 0 && a != z)
        rc = add_link_record(b, json_string_value(id), (uint32_t)a, (uint32_t)z);
    if (rc < 0)
        b->err = rc;
}

int topo_path_build(struct topo_path_build *b, struct topo_rest *t)
{
    memset(b, 0, sizeof(*b));
    path_graph_init(&b->g);
    if (!(b->held = json_array()))
        return -ENOMEM;
    int rc = topo_read_each_switch(t, true, add_switch, b);
    if (rc == 0 && !b->err)
        rc = topo_read_each_link(t, add_link, b);
    if (rc == 0)
        rc = b->err;
    if (rc == 0)
        rc = path_graph_seal(&b->g);
    return rc;
}

long topo_path_node(const struct topo_path_build *b, const char *id)
{
    uint64_t dpid;
    uint32_t port = 0;
    bool iface;
    if (parse_id(id, &dpid, &port, &iface) < 0)
        return -ENOENT;
    return path_graph_find(&b->g, dpid, port, iface);
}

/* The edges from node x to node y marked unusable in ok. */
static void unwant_between(const struct topo_path_build *b, uint32_t x, uint32_t y, bool *ok)
{
    for (uint32_t i = b->g.off[x]; i < b->g.off[x + 1]; i++)
        if (b->g.adj[i].node == y)
            ok[b->g.adj[i].edge] = false;
}

void topo_path_unwanted(const struct topo_path_build *b, const char *link_id, bool *ok)
{
    for (size_t k = 0; k < b->n_links; k++)
        if (strcmp(b->links[k].id, link_id) == 0)
            unwant_between(b, b->links[k].a, b->links[k].z, ok);
}

void topo_path_unwanted_ends(const struct topo_path_build *b, struct topo_end x,
                             struct topo_end y, bool *ok)
{
    char id[TOPO_END_ID_LEN];

    topo_end_id(x, id);
    long nx = topo_path_node(b, id);
    topo_end_id(y, id);
    long ny = topo_path_node(b, id);
    if (nx >= 0 && ny >= 0)             /* off the graph: not usable anyway */
        unwant_between(b, (uint32_t)nx, (uint32_t)ny, ok);
}

bool topo_path_joined(const struct topo_path_build *b, struct topo_end x, struct topo_end y)
{
    char id[TOPO_END_ID_LEN];

    topo_end_id(x, id);
    long nx = topo_path_node(b, id);
    topo_end_id(y, id);
    long ny = topo_path_node(b, id);
    if (nx < 0 || ny < 0)
        return false;
    for (uint32_t i = b->g.off[nx]; i < b->g.off[nx + 1]; i++)
        if (b->g.adj[i].node == (uint32_t)ny)
            return true;
    return false;
}

void topo_path_node_id(const struct topo_path_build *b, uint32_t i, char out[TOPO_END_ID_LEN])
{
    const struct path_node *n = &b->g.nodes[i];
    if (n->iface)
        topo_end_id((struct topo_end){n->dpid, n->port}, out);
    else
        dpid_format(n->dpid, out);
}
