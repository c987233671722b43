/* topo_snap: see topo_snap.h. */
#include "topo_snap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void snap_port(const struct topo_view *tc, uint64_t dpid, const struct ofp_port *p,
                      struct topo_snap_port *out)
{
    const struct topo_link_rec *l = topo_view_link_of(tc, (struct topo_end){dpid, p->port_no});

    out->p = *p;
    out->nni = l && l->active && !l->loop;
    snprintf(out->link_id, sizeof(out->link_id), "%s", l ? l->id : "");
    out->loop_peer = 0;
    if (l && l->loop && l->looping && l->a.port == p->port_no) {
        out->loop_peer = l->b.port;
        out->loop_since_wall = l->since_wall;
    }
}

int topo_snap_switch(const struct sw_view *cs, const struct topo_view *tc, uint64_t dpid,
                     bool with_ports, struct topo_snap_switch *out)
{
    const struct ctl_switch *s = sw_view_find(cs, dpid);

    memset(out, 0, sizeof(*out));
    if (!s)
        return -ENOENT;
    out->dpid = dpid;
    out->up = s->up;
    out->peer_ip = s->info.peer_ip;
    out->peer_port = s->info.peer_port;
    out->desc = s->info.desc;
    out->n_ports = s->ports.n;
    if (!with_ports || !s->ports.n)
        return 0;
    out->ports = malloc((size_t)s->ports.n * sizeof(*out->ports));
    if (!out->ports)
        return -ENOMEM;
    for (uint32_t i = 0; i < s->ports.n; i++)
        snap_port(tc, dpid, &s->ports.v[i], &out->ports[i]);
    return 0;
}

void topo_snap_switch_free(struct topo_snap_switch *s)
{
    free(s->ports);
    s->ports = NULL;
}

static void snap_end(const struct sw_view *cs, const struct topo_view *tc, struct topo_end e,
                     struct topo_snap_end *out)
{
    const struct ctl_switch *s = sw_view_find(cs, e.dpid);
    const struct ofp_port *p = s ? of_ports_find(&s->ports, e.port) : NULL;

    memset(out, 0, sizeof(*out));
    out->e = e;
    if (!p)
        return;
    out->known = true;
    out->sw_up = s->up;
    snap_port(tc, e.dpid, p, &out->port);
}

size_t topo_snap_links(const struct sw_view *cs, const struct topo_view *tc, size_t *pos,
                       struct topo_snap_link *out, size_t max)
{
    size_t n = 0;
    const struct topo_link_rec *l;

    for (; n < max && (l = topo_view_link_at(tc, *pos)) != NULL; (*pos)++, n++) {
        struct topo_snap_link *o = &out[n];
        snprintf(o->id, sizeof(o->id), "%s", l->id);
        o->active = l->active;
        o->loop = l->loop;
        o->enabled = l->enabled;
        o->since_wall = l->since_wall;
        o->ups = l->ups;
        o->downs = l->downs;
        snprintf(o->why, sizeof(o->why), "%s", l->why ? l->why : "");
        o->live = topo_view_link_liveness(tc, l);
        o->mismatched = topo_view_mismatched(tc, l);
        snap_end(cs, tc, l->a, &o->end[0]);
        snap_end(cs, tc, l->b, &o->end[1]);
    }
    return n;
}

struct lives_walk {
    struct topo_view *tc;
    struct topo_snap_lives *out;
    size_t n;
};

static void snap_live(void *arg, const struct topo_live_if *i)
{
    struct lives_walk *w = arg;
    struct topo_snap_lives *o = w->out;

    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : TOPO_SNAP_PIECE;
        struct topo_snap_live *v = realloc(o->v, cap * sizeof(*v));
        if (!v) {
            o->oom = true;
            return;
        }
        o->v = v;
        o->cap = cap;
    }
    struct topo_snap_live *s = &o->v[o->n++];
    memset(s, 0, sizeof(*s));
    s->i = *i;
    s->i.hnext = NULL;
    w->n++;
    /* Once per link: from its endpoint a, when both ends are on. */
    const struct topo_link_rec *l = topo_view_link_of(w->tc, i->end);
    if (!l || l->loop || l->a.dpid != i->end.dpid || l->a.port != i->end.port)
        return;
    const struct topo_live_if *b = topo_live_find(topo_view_live(w->tc), l->b);
    if (!b)
        return;
    s->paired = true;
    s->b = *b;
    s->b.hnext = NULL;
    snprintf(s->link_id, sizeof(s->link_id), "%s", l->id);
}

size_t topo_snap_lives(struct topo_view *tc, uint32_t *pos, struct topo_snap_lives *out)
{
    struct lives_walk w = {tc, out, 0};

    topo_live_each_from(topo_view_live(tc), pos, TOPO_SNAP_PIECE, snap_live, &w);
    return w.n;
}
