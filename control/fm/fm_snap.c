/* fm_snap: see fm_snap.h. A switch's flow-statistics snapshot and its walks. */
#include "fm_snap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void parts_free(uint8_t **parts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(parts[i]);
}

/* A part's length, from its OpenFlow header. */
static size_t part_len(const uint8_t *msg)
{
    return (size_t)msg[2] << 8 | msg[3];
}

void fm_snap_drop_partial(struct fm_snap *s, uint64_t *held)
{
    parts_free(s->acc, s->n_acc);
    *held -= s->acc_bytes;
    s->n_acc = 0;
    s->acc_xid = 0;
    s->acc_bytes = 0;
}

void fm_snap_abandon(struct fm_snap *s, uint64_t *held, uint32_t xid)
{
    fm_snap_drop_partial(s, held);
    s->dropped_xid = xid;
}

void fm_snap_clear(struct fm_snap *s, uint64_t *held)
{
    fm_snap_drop_partial(s, held);
    parts_free(s->parts, s->n_parts);
    *held -= s->bytes;
    free(s->parts);
    free(s->acc);
    s->parts = s->acc = NULL;
    s->n_parts = s->cap_acc = 0;
    s->bytes = 0;
}

/* May len more bytes join? Not past the reply's own bounds, nor past all
 * switches' snapshots together. */
static int refused(const struct fm_snap *s, const struct fm_snap_bounds *b, uint64_t held,
                   size_t len)
{
    if ((b->max_parts && s->n_acc >= b->max_parts) ||
        (b->max_bytes && s->acc_bytes + len > b->max_bytes))
        return -EMSGSIZE;
    if (b->budget_bytes && held + len > b->budget_bytes)
        return -ENOSPC;
    return 0;
}

int fm_snap_add(struct fm_snap *s, const struct fm_snap_bounds *b, uint64_t *held,
                const uint8_t *msg, size_t len, uint32_t xid, bool more)
{
    if (xid == s->dropped_xid)
        return 0;
    if (xid != s->acc_xid) {
        fm_snap_drop_partial(s, held);
        s->acc_xid = xid;
    }
    int rc = refused(s, b, *held, len);
    if (rc)
        return rc;
    if (s->n_acc == s->cap_acc) {
        size_t nc = s->cap_acc ? s->cap_acc * 2 : 8;
        uint8_t **na = realloc(s->acc, nc * sizeof(*na));
        if (!na)
            return -ENOMEM;
        s->acc = na;
        s->cap_acc = nc;
    }
    uint8_t *copy = malloc(len);
    if (!copy)
        return -ENOMEM;
    memcpy(copy, msg, len);
    s->acc[s->n_acc++] = copy;
    s->acc_bytes += len;
    *held += len;
    if (more)
        return 0;
    /* Complete: it becomes the snapshot. */
    parts_free(s->parts, s->n_parts);
    free(s->parts);
    *held -= s->bytes;
    s->parts = s->acc;
    s->n_parts = s->n_acc;
    s->bytes = s->acc_bytes;
    s->acc = NULL;
    s->n_acc = s->cap_acc = 0;
    s->acc_xid = 0;
    s->acc_bytes = 0;
    return 1;
}

/* ---- walks ------------------------------------------------------------------- */

void fm_snap_walk_init(struct fm_snap_walk *w, uint8_t *const *parts, size_t n_parts)
{
    w->parts = parts;
    w->n_parts = n_parts;
    w->next_part = 0;
    w->in_part = false;
}

bool fm_snap_walk_next(struct fm_snap_walk *w, struct ofp_flow_stats *fs)
{
    for (;;) {
        if (w->in_part && ofp_mp_next_flow_stats(&w->it, fs))
            return true;
        w->in_part = false;
        if (w->next_part == w->n_parts)
            return false;
        const uint8_t *msg = w->parts[w->next_part++];
        struct ofp_err err;
        if (ofp_decode(msg, part_len(msg), &w->m, &err) < 0)
            continue;                 /* the worker already vetted it; defensive */
        ofp_mp_iter_init(&w->it, &w->m.u.mp_reply);
        w->in_part = true;
    }
}

/* ---- GET v2/flows ---------------------------------------------------------------- */

/* A copy of one switch's snapshot and where its walk is. */
struct fm_snap_copy {
    uint8_t **parts;
    size_t n_parts;
    struct fm_snap_walk walk;
    struct fm_snap_copy_entry e;
};

void fm_snap_copy_free(struct fm_snap_copy *s)
{
    if (!s)
        return;
    parts_free(s->parts, s->n_parts);
    free(s->parts);
    free(s);
}

struct fm_snap_copy *fm_snap_take(const struct fm_snap *s, uint64_t dpid)
{
    struct fm_snap_copy *c = calloc(1, sizeof(*c));

    if (!c || (s->n_parts && !(c->parts = calloc(s->n_parts, sizeof(*c->parts))))) {
        free(c);
        return NULL;
    }
    for (; c->n_parts < s->n_parts; c->n_parts++) {
        size_t len = part_len(s->parts[c->n_parts]);
        if (!(c->parts[c->n_parts] = malloc(len))) {
            fm_snap_copy_free(c);
            return NULL;
        }
        memcpy(c->parts[c->n_parts], s->parts[c->n_parts], len);
    }
    c->e.dpid = dpid;
    fm_snap_walk_init(&c->walk, c->parts, c->n_parts);
    return c;
}

const struct fm_snap_copy_entry *fm_snap_copy_next(struct fm_snap_copy *s)
{
    struct fm_snap_copy_entry *e = &s->e;
    struct ofp_flow_stats fs;

    while (fm_snap_walk_next(&s->walk, &fs)) {
        if (fm_flow_from_entry(fs.table_id, fs.priority, fs.cookie, fs.idle_timeout,
                               fs.hard_timeout, &fs.match, &fs.inst, &e->flow) < 0)
            continue;                 /* more actions than a flow holds: not shown */
        e->match_id = fm_flow_match_id(e->dpid, &e->flow);
        e->flow_id = fm_flow_id_of(e->match_id, &e->flow);
        e->packet_count = fs.packet_count;
        e->byte_count = fs.byte_count;
        e->duration_sec = fs.duration_sec;
        e->duration_nsec = fs.duration_nsec;
        return e;
    }
    return NULL;
}
