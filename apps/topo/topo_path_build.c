/* topo_path_build: see topo_path_build.h. */
#include "topo_path_build.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpid.h"

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
    json_decref(b->topo);
    memset(b, 0, sizeof(*b));
}

/* A Kytos id: the dpid, and the port when it names an interface (eight
 * colons in the colon form, one after 16 hex digits). */
static int parse_id(const char *id, uint64_t *dpid, uint32_t *port, bool *iface)
{
    char d[24];
    unsigned colons = 0;
    const char *last = NULL;

    for (const char *c = id; *c; c++)
        if (*c == ':') {
            colons++;
            last = c;
        }
    *iface = colons == 8 || colons == 1;
    if (!*iface)
        return dpid_parse(id, dpid);
    if ((size_t)(last - id) >= sizeof(d) || !last[1])
        return -EINVAL;
    memcpy(d, id, (size_t)(last - id));
    d[last - id] = '\0';
    char *end;
    errno = 0;
    unsigned long p = strtoul(last + 1, &end, 10);
    if (*end || errno || last[1] == '-' || last[1] == '+' || p > UINT32_MAX)
        return -EINVAL;
    *port = (uint32_t)p;
    return dpid_parse(d, dpid);
}

static bool is_up(const json_t *entity)
{
    const char *s = json_string_value(json_object_get(entity, "status"));
    return s && strcmp(s, "UP") == 0;
}

static long node_of(struct topo_path_build *b, const char *id)
{
    uint64_t dpid;
    uint32_t port = 0;
    bool iface;
    if (parse_id(id, &dpid, &port, &iface) < 0)
        return -EINVAL;
    return path_graph_node(&b->g, dpid, port, iface);
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

static int add_switches(struct topo_path_build *b, json_t *switches)
{
    const char *id, *iid;
    json_t *s, *i;

    json_object_foreach(switches, id, s) {
        if (!is_up(s))
            continue;
        long sw = node_of(b, id);
        if (sw == -EINVAL)
            continue;                   /* not an id: not on the graph */
        if (sw < 0)
            return (int)sw;
        json_object_foreach(json_object_get(s, "interfaces"), iid, i) {
            if (!is_up(i))
                continue;
            long n = node_of(b, iid);
            if (n == -EINVAL)
                continue;
            int rc = n < 0 ? (int)n : path_graph_edge(&b->g, (uint32_t)sw, (uint32_t)n, NULL);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

static const char *end_id(const json_t *link, const char *end)
{
    return json_string_value(json_object_get(json_object_get(link, end), "id"));
}

static int add_links(struct topo_path_build *b, json_t *links)
{
    const char *id;
    json_t *l;

    json_object_foreach(links, id, l) {
        const char *ea = end_id(l, "endpoint_a"), *eb = end_id(l, "endpoint_b");
        if (!is_up(l) || !ea || !eb)
            continue;
        long a = node_of(b, ea), z = node_of(b, eb);
        if (a == -EINVAL || z == -EINVAL || a == z)
            continue;
        if (a < 0 || z < 0)
            return (int)(a < 0 ? a : z);
        struct path_attrs at;
        int rc = link_attrs(b, id, json_object_get(l, "metadata"), &at);
        if (rc == 0)
            rc = path_graph_edge(&b->g, (uint32_t)a, (uint32_t)z, &at);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int topo_path_build(struct topo_path_build *b, json_t *topo)
{
    memset(b, 0, sizeof(*b));
    path_graph_init(&b->g);
    b->topo = json_incref(topo);
    json_t *t = json_object_get(topo, "topology");
    int rc = add_switches(b, json_object_get(t, "switches"));
    if (rc == 0)
        rc = add_links(b, json_object_get(t, "links"));
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

void topo_path_unwanted(const struct topo_path_build *b, const char *link_id, bool *ok)
{
    const json_t *l = json_object_get(json_object_get(json_object_get(b->topo, "topology"),
                                                      "links"), link_id);
    const char *ea = end_id(l, "endpoint_a"), *eb = end_id(l, "endpoint_b");
    long a = ea ? topo_path_node(b, ea) : -ENOENT, z = eb ? topo_path_node(b, eb) : -ENOENT;
    if (a < 0 || z < 0)
        return;
    for (uint32_t i = b->g.off[a]; i < b->g.off[a + 1]; i++)
        if (b->g.adj[i].node == (uint32_t)z)
            ok[b->g.adj[i].edge] = false;
}

void topo_path_node_id(const struct topo_path_build *b, uint32_t i, char *out, size_t len)
{
    const struct path_node *n = &b->g.nodes[i];
    char d[24];
    dpid_format(n->dpid, d);
    if (n->iface)
        snprintf(out, len, "%s:%u", d, n->port);
    else
        snprintf(out, len, "%s", d);
}
