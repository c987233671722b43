/*
 * rest_flowstats: GET .../v2/flows[/{dpid}] — the flows each switch reported
 * in its last complete flow-statistics reply, as Kytos-ng shows them:
 * {"<dpid>": {"flows": [flow + "stats", ...]}, ...}.
 *
 * Streamed like stored_flows (rest_reply.stream): one switch's snapshot at a
 * time is copied out of the flow manager (fm_snap_copy_take, under its lock,
 * bounded by openflow.mp_max_kb), then walked as typed flows and rendered
 * FLOWSTATS_BATCH entries per piece as the client reads, outside any lock.
 * So the answer for every switch costs the memory of one switch's snapshot
 * and one piece of text.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpid.h"
#include "flow_json.h"
#include "fm.h"
#include "ofcd_log.h"
#include "rest_priv.h"
#include "rest_textbuf.h"

#define FLOWSTATS_BATCH 256

struct flowstats_gen {
    struct fm *fm;
    uint64_t *ids;                  /* the switches to show, in order */
    int n_ids, next_id;
    struct fm_snap_copy *snap;      /* the switch being shown, NULL between them */
    bool any_switch, any_flow, done;
    int err;
    struct rest_textbuf out;
};

/* One entry as Kytos-ng shows it: the flow, then "switch", "id" (the
 * flow's version), "match_id" and "stats". NULL when out of memory. */
static json_t *entry_json(const struct fm_snap_copy_entry *e)
{
    struct flow_json_form form;
    char hex[24];

    flow_json_form_of(&e->flow, &form);
    json_t *o = flow_json_render(&e->flow, &form);
    if (!o)
        return NULL;
    dpid_format(e->dpid, hex);
    json_object_set_new(o, "switch", json_string(hex));
    snprintf(hex, sizeof(hex), "%016" PRIx64, e->flow_id);
    json_object_set_new(o, "id", json_string(hex));
    snprintf(hex, sizeof(hex), "%016" PRIx64, e->match_id);
    json_object_set_new(o, "match_id", json_string(hex));
    json_object_set_new(o, "stats",
                        json_pack("{s:I, s:I, s:I, s:I}", "packet_count",
                                  (json_int_t)e->packet_count, "byte_count",
                                  (json_int_t)e->byte_count, "duration_sec",
                                  (json_int_t)e->duration_sec, "duration_nsec",
                                  (json_int_t)e->duration_nsec));
    return o;
}

static void gen_free(void *ctx)
{
    struct flowstats_gen *g = ctx;

    fm_snap_copy_free(g->snap);
    free(g->ids);
    rest_textbuf_free(&g->out);
    free(g);
}

/* Open the next switch that is still known (one gone since the list was
 * made is left out); false when none is left. */
static bool next_switch(struct flowstats_gen *g)
{
    while (g->next_id < g->n_ids) {
        uint64_t dpid = g->ids[g->next_id++];
        int err;
        g->snap = fm_snap_copy_take(g->fm, dpid, &err);
        if (!g->snap && err == -ENOENT)
            continue;
        if (!g->snap) {
            g->err = err;
            return false;
        }
        char dp[24], head[48];
        dpid_format(dpid, dp);
        snprintf(head, sizeof(head), "%s\"%s\":{\"flows\":[", g->any_switch ? "," : "", dp);
        g->any_switch = true;
        g->any_flow = false;
        if (!rest_textbuf_puts(&g->out, head))
            g->err = -ENOMEM;
        return !g->err;
    }
    return false;
}

static void gen_fill(struct flowstats_gen *g)
{
    for (unsigned n = 0; n < FLOWSTATS_BATCH && !g->err; n++) {
        if (!g->snap && !next_switch(g)) {
            if (!g->err && !rest_textbuf_puts(&g->out, "}"))
                g->err = -ENOMEM;
            g->done = true;
            return;
        }
        const struct fm_snap_copy_entry *e = fm_snap_copy_next(g->snap);
        if (!e) {
            fm_snap_copy_free(g->snap);
            g->snap = NULL;
            if (!rest_textbuf_puts(&g->out, "]}"))
                g->err = -ENOMEM;
            continue;
        }
        json_t *o = entry_json(e);
        if (!o)
            continue;                 /* out of memory for this one: left out */
        if ((g->any_flow && !rest_textbuf_puts(&g->out, ",")) ||
            !rest_textbuf_put_json(&g->out, o))
            g->err = -ENOMEM;
        g->any_flow = true;
    }
}

static ssize_t gen_read(void *ctx, char *out, size_t max)
{
    struct flowstats_gen *g = ctx;

    while (rest_textbuf_drained(&g->out) && !g->done && !g->err)
        gen_fill(g);
    if (g->err) {
        LOG_ERR("rest", "flow statistics answer: %s mid-answer; the connection is cut",
                strerror(-g->err));
        return -1;
    }
    return (ssize_t)rest_textbuf_take(&g->out, out, max);
}

void rest_flows_get(struct rest_req *q, struct rest_reply *r)
{
    struct flowstats_gen *g;
    uint64_t one;

    if (!rest_need_fm(q, r))
        return;
    if (!(g = calloc(1, sizeof(*g)))) {
        rest_error(r, 500, "out of memory");
        return;
    }
    g->fm = q->rs->src.fm;
    if (q->arg) {
        char dp[24];
        int err;
        if (rest_dpid_arg(q->arg, &one, r) < 0) {
            gen_free(g);
            return;
        }
        /* One switch: unknown is a 404, decided before the answer starts. */
        dpid_format(one, dp);
        g->snap = fm_snap_copy_take(g->fm, one, &err);
        if (!g->snap) {
            if (err == -ENOENT)
                rest_error(r, 404, "switch %s is not known", dp);
            else
                rest_error(r, 500, "out of memory");
            gen_free(g);
            return;
        }
        char head[48];
        snprintf(head, sizeof(head), "{\"%s\":{\"flows\":[", dp);
        g->any_switch = true;
        if (!rest_textbuf_puts(&g->out, head))
            g->err = -ENOMEM;
    } else {
        g->n_ids = fm_switches(g->fm, false, &g->ids);
        if (g->n_ids < 0 || !rest_textbuf_puts(&g->out, "{"))
            g->err = -ENOMEM;
    }
    if (g->err) {
        rest_error(r, 500, "out of memory");
        gen_free(g);
        return;
    }
    r->status = 200;
    r->stream = gen_read;
    r->stream_free = gen_free;
    r->stream_ctx = g;
}
