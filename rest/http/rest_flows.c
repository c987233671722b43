/*
 * rest_flows: the Kytos-ng flow_manager v2 endpoints.
 *
 *   POST|DELETE .../flows[/{dpid}]   {"flows": [...], "force": b, "switches": [dpids]}
 *   POST|DELETE .../flows_by_switch  {"<dpid>": {"flows": [...]}, ..., "force": b}
 * (GET .../flows is rest_flowstats.c, stored_flows rest_stored.c).
 *
 * A change is answered 202 only once the store has made it durable; then
 * the flow manager sends it. Before anything is stored every check runs, so
 * a 4xx/5xx means nothing of the request was kept: 400 malformed (the
 * field is named), 404 unknown dpid, 424 switch not connected (unless
 * "force": the flows are stored and installed when it connects; without a
 * dpid or "switches", the request is for every known switch, and none known
 * is a 424 too), 503 with
 * Retry-After when the switch's send queue has no room left under
 * flow_manager.queue_max or the store is full.
 *
 * Admission reserves: every request, add or delete, holds room for its
 * FLOW_MODs on each target switch's queue (flowmgr_admit) from before its
 * store commit until they are queued or the request fails, so requests
 * racing to their commits never together pass queue_max.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <microhttpd.h>

#include "flow_json.h"
#include "flowmgr.h"
#include "json_u64.h"
#include "ofcd_clock.h"
#include "ofcd_log.h"
#include "ofcd_ratelimit.h"
#include "rest_priv.h"
#include "store.h"

/* One switch's part of a request: which flows go to which dpid. */
struct fl_group {
    uint64_t dpid;
    const json_t *flows;            /* JSON array */
    char where[64];                 /* its JSON path, for error messages */
    char key[32];                   /* body member holding {"flows": ...}; "" = the body */
    struct fm_flow *parsed;         /* one per element */
    size_t n;
    size_t held;                    /* FLOW_MODs admitted for it, not yet queued */
};

struct fl_req {
    struct fl_group *g;
    size_t n, cap;
    bool force;
    struct flowmgr *fm;             /* of the admissions held */
};

/* Whatever admission a group still holds goes back: the request failed
 * (refused, store error, shutting down) before its FLOW_MODs were queued. */
static void fl_req_free(struct fl_req *fr)
{
    for (size_t i = 0; i < fr->n; i++) {
        if (fr->g[i].held)
            flowmgr_admit_cancel(fr->fm, fr->g[i].dpid, fr->g[i].held);
        free(fr->g[i].parsed);
    }
    free(fr->g);
}

/* key: the body's member whose object holds "flows" (by_switch), NULL when
 * the body holds it itself. */
static struct fl_group *fl_add(struct fl_req *fr, uint64_t dpid, const json_t *flows,
                               const char *where, const char *key)
{
    if (fr->n == fr->cap) {
        size_t nc = fr->cap ? fr->cap * 2 : 8;
        struct fl_group *ng = realloc(fr->g, nc * sizeof(*ng));
        if (!ng)
            return NULL;
        fr->g = ng;
        fr->cap = nc;
    }
    struct fl_group *g = &fr->g[fr->n++];
    memset(g, 0, sizeof(*g));
    g->dpid = dpid;
    g->flows = flows;
    snprintf(g->where, sizeof(g->where), "%s", where);
    if (key && snprintf(g->key, sizeof(g->key), "%s", key) >= (int)sizeof(g->key))
        g->key[0] = '\1';          /* too long to be a dpid: never matches the text */
    return g;
}

bool rest_need_fm(struct rest_req *q, struct rest_reply *r)
{
    if (q->rs->src.fm && q->rs->src.store)
        return true;
    rest_error(r, 503, "the flow manager is not running (see the log at start-up)");
    return false;
}

/* The body as a JSON object, or a 400 naming what is wrong. */
static json_t *body_object(struct rest_req *q, struct rest_reply *r)
{
    json_error_t je;

    if (!q->body || q->body_len == 0) {
        rest_error(r, 400, "a JSON body is required");
        return NULL;
    }
    /* Numbers up to 2^64 - 1 (cookies): jansson alone stops at 2^63 - 1. */
    json_t *j = json_u64_loadb(q->body, q->body_len, &je);
    if (!j) {
        rest_error(r, 400, "body is not valid JSON: %s (line %d, column %d)", je.text, je.line,
                   je.column);
        return NULL;
    }
    if (!json_is_object(j)) {
        rest_error(r, 400, "body must be a JSON object");
        json_decref(j);
        return NULL;
    }
    return j;
}

static int parse_force(const json_t *v, bool *force, struct rest_reply *r)
{
    if (!json_is_boolean(v)) {
        rest_error(r, 400, "force: must be true or false");
        return -EINVAL;
    }
    *force = json_is_true(v);
    return 0;
}

static int check_flows_array(const json_t *v, const char *where, struct rest_reply *r)
{
    if (!v) {
        rest_error(r, 400, "%s: required", where);
        return -EINVAL;
    }
    if (!json_is_array(v)) {
        rest_error(r, 400, "%s: must be an array of flows", where);
        return -EINVAL;
    }
    /* Kytos takes a list of nothing but empty flows for no flows at all
     * (Python's any() over the list), and clients match on its words. */
    size_t i;
    for (i = 0; i < json_array_size(v); i++) {
        const json_t *f = json_array_get(v, i);
        if (!json_is_object(f) || json_object_size(f))
            break;
    }
    if (i == json_array_size(v)) {
        rest_error(r, 400, "%s: is empty: the request body doesn't have any flows", where);
        return -EINVAL;
    }
    return 0;
}

/* Parse every group's flows and check every target switch. */
static int prepare(struct rest_req *q, struct rest_reply *r, struct fl_req *fr, bool del)
{
    struct flowmgr *fm = q->rs->src.fm;
    char err[256];
    char dp[24];
    size_t total = 0;

    /* One body sent to every switch expands to flows x switches changes,
     * each parsed and held while the request lives: bounded first. */
    for (size_t i = 0; i < fr->n; i++)
        total += json_array_size(fr->g[i].flows);
    if (total > q->rs->cfg.max_flows_per_request) {
        rest_error(r, 413, "the request expands to %zu flow changes (flows x switches), more "
                   "than rest.max_flows_per_request = %u; send it in parts", total,
                   q->rs->cfg.max_flows_per_request);
        return -E2BIG;
    }

    for (size_t i = 0; i < fr->n; i++) {
        struct fl_group *g = &fr->g[i];
        dpid_format(g->dpid, dp);
        enum flowmgr_sw_state st = flowmgr_state(fm, g->dpid);
        if (st == FLOWMGR_SW_UNKNOWN) {
            rest_error(r, 404, "switch %s is not known", dp);
            return -ENOENT;
        }
        if (st == FLOWMGR_SW_DOWN && !fr->force) {
            rest_error(r, 424, "switch %s is not connected (send \"force\": true to store the "
                       "change and apply it when it connects)", dp);
            return -ENOTCONN;
        }
        g->n = json_array_size(g->flows);
        g->parsed = malloc(g->n * sizeof(*g->parsed));
        if (!g->parsed) {
            rest_error(r, 500, "out of memory for %zu flows", g->n);
            return -ENOMEM;
        }
        for (size_t k = 0; k < g->n; k++) {
            const json_t *f = json_array_get(g->flows, k);
            if (!json_is_object(f)) {
                rest_error(r, 400, "%s[%zu]: must be a flow object", g->where, k);
                return -EINVAL;
            }
            if (flow_json_parse(f, del, &g->parsed[k], NULL, err, sizeof(err)) < 0) {
                rest_error(r, 400, "%s[%zu]: %s", g->where, k, err);
                return -EINVAL;
            }
        }
    }
    /* Valid: room for its FLOW_MODs on every switch (one per flow for an
     * add, one per selector for a delete; a switch that is down gets them
     * if it comes up before the commit), held until they are queued. What
     * is held already goes back with fr (fl_req_free). */
    fr->fm = fm;
    for (size_t i = 0; i < fr->n; i++) {
        struct fl_group *g = &fr->g[i];
        unsigned retry = 1;
        int rc = flowmgr_admit(fm, g->dpid, g->n, &retry);
        dpid_format(g->dpid, dp);
        if (rc == -E2BIG) {
            rest_error(r, 413, "%zu flows for switch %s in one request: more than "
                       "flow_manager.queue_max = %u can ever wait for it; send them in parts",
                       g->n, dp, q->rs->cfg.fm_queue_max);
            return rc;
        }
        if (rc == -EBUSY) {
            rest_error(r, 503, "switch %s: the FLOW_MODs waiting for it and those of requests "
                       "being stored leave no room for %zu more under flow_manager.queue_max "
                       "= %u; retry later", dp, g->n, q->rs->cfg.fm_queue_max);
            r->retry_after = retry;
            return rc;
        }
        if (rc < 0) {
            rest_error(r, 500, "out of memory");
            return rc;
        }
        g->held = g->n;
    }
    return 0;
}

static void store_failed(struct rest_reply *r, int rc)
{
    if (rc == -ENOSPC) {
        rest_error(r, 503, "the flow store is full (flow_manager.store_map_mb); delete flows "
                   "or raise it");
        r->retry_after = 60;
    } else if (rc == -ECANCELED) {
        rest_error(r, 503, "ofcd is shutting down");
        r->retry_after = 5;
    } else {
        rest_error(r, 500, "the flow store failed: %s; nothing of this request was stored",
                   strerror(-rc));
    }
}

static void accepted(struct rest_reply *r)
{
    json_decref(r->json);
    r->status = 202;
    r->json = json_pack("{s:s}", "response", "FlowMod Messages Sent");
}

/* An add between its queuing and its commit: what the store reads, and
 * what the flow manager takes once it is durable. */
struct fl_add {
    struct rest_server *rs;
    struct fl_req fr;               /* the groups and their parsed flows */
    size_t total;
    char *body;                     /* a copy of the request's body: the flows' texts */
    char **texts;                   /* dumped where the body's text could not be used */
    struct store_flow *recs;
    uint64_t *mids, *fids;
    void *token;                    /* the suspended request */
};

static void fl_add_free(struct fl_add *a)
{
    for (size_t i = 0; a->texts && i < a->total; i++)
        free(a->texts[i]);
    free(a->texts);
    free(a->body);
    free(a->recs);
    free(a->mids);
    free(a->fids);
    fl_req_free(&a->fr);
    free(a);
}

/* A deferred change's answer, once its commit is done (rest_defer). */
static void change_answer(struct rest_reply *r, int rc)
{
    if (rc < 0)
        store_failed(r, rc);
    else
        accepted(r);
}

/* A change answered before its commit (flow_manager.durability = async)
 * whose commit failed: the client heard 202, so it is said here (the store
 * counts the failed commit too, in /api/v1/health). On the committer. */
static void async_lost(struct rest_server *rs, const char *what, int rc)
{
    LOG_ERR_RL(&rs->async_rl, ofcd_clock_mono_us(), "rest",
               "%s answered 202 before it was stored (flow_manager.durability = async), "
               "then not stored: %s", what, strerror(-rc));
}

/* On the store's committer, in commit order: durable, so from here on the
 * flows are the flow manager's to install, whether or not the client is
 * still there to hear it. */
static void add_committed(void *arg, int rc)
{
    struct fl_add *a = arg;
    void *token = a->token;
    struct rest_server *rs = a->rs;
    size_t n = a->total;

    if (rc == 0) {
        size_t k = 0;
        for (size_t i = 0; i < a->fr.n; i++) {
            struct fl_group *g = &a->fr.g[i];
            flowmgr_add_admitted(a->rs->src.fm, g->dpid, g->parsed, a->mids + k, a->fids + k,
                                 g->n, g->held);
            g->held = 0;
            k += g->n;
        }
    }
    fl_add_free(a);
    if (token) {
        rest_wake(token, rc);
        return;
    }
    if (rc < 0)
        async_lost(rs, "a flow add", rc);
    rest_release(rs, n);
}

/*
 * Each flow's text as the store keeps it: the client's own text of that
 * array element, from a copy of the body (found by json_u64_array_spans:
 * dumping every flow again was a sixth of a batched POST's CPU); a group
 * whose text cannot be walked that way is dumped from its parsed values.
 * Groups that share one array (a body sent to several switches) share its
 * spans. 0 or -ENOMEM.
 */
static int flow_texts(const struct rest_req *q, struct fl_add *a)
{
    struct json_u64_span *spans = NULL;
    const json_t *spans_of = NULL;
    int n_spans = -1;
    size_t k = 0;

    if (!(a->body = malloc(q->body_len ? q->body_len : 1)))
        return -ENOMEM;
    memcpy(a->body, q->body, q->body_len);
    for (size_t i = 0; i < a->fr.n; i++) {
        struct fl_group *g = &a->fr.g[i];
        if (g->flows != spans_of) {
            const char *path[2] = {g->key, "flows"};
            size_t depth = g->key[0] ? 2 : 1;
            free(spans);
            if (!(spans = malloc((g->n ? g->n : 1) * sizeof(*spans))))
                return -ENOMEM;
            n_spans = json_u64_array_spans(a->body, q->body_len, depth == 2 ? path : path + 1,
                                           depth, spans, g->n);
            spans_of = g->flows;
        }
        for (size_t j = 0; j < g->n; j++, k++) {
            if (n_spans == (int)g->n) {
                a->recs[k].json = a->body + spans[j].off;
                a->recs[k].json_len = spans[j].len;
                continue;
            }
            a->texts[k] = json_dumps(json_array_get(g->flows, j), JSON_COMPACT | JSON_SORT_KEYS);
            if (!a->texts[k]) {
                free(spans);
                return -ENOMEM;
            }
            json_u64_fixup(a->texts[k]);
            a->recs[k].json = a->texts[k];
            a->recs[k].json_len = strlen(a->texts[k]);
        }
    }
    free(spans);
    return 0;
}

static void run_add(struct rest_req *q, struct rest_reply *r, struct fl_req *fr)
{
    size_t k = 0;
    struct fl_add *a;

    if (prepare(q, r, fr, false) < 0)
        return;
    if (!(a = calloc(1, sizeof(*a)))) {
        rest_error(r, 500, "out of memory");
        return;
    }
    a->rs = q->rs;
    a->fr = *fr;                    /* the request's groups are the add's now */
    *fr = (struct fl_req){0};
    for (size_t i = 0; i < a->fr.n; i++)
        a->total += a->fr.g[i].n;
    a->texts = calloc(a->total, sizeof(*a->texts));
    a->recs = calloc(a->total, sizeof(*a->recs));
    a->mids = calloc(a->total, sizeof(*a->mids));
    a->fids = calloc(a->total, sizeof(*a->fids));
    if (!a->texts || !a->recs || !a->mids || !a->fids) {
        rest_error(r, 500, "out of memory for %zu flows", a->total);
        goto fail;
    }
    if (flow_texts(q, a) < 0) {
        rest_error(r, 500, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < a->fr.n; i++) {
        struct fl_group *g = &a->fr.g[i];
        for (size_t j = 0; j < g->n; j++, k++) {
            const struct fm_flow *sp = &g->parsed[j];
            a->mids[k] = fm_flow_match_id(g->dpid, sp);
            a->fids[k] = fm_flow_id_of(a->mids[k], sp);
            a->recs[k].dpid = g->dpid;
            a->recs[k].match_id = a->mids[k];
            a->recs[k].flow_id = a->fids[k];
            a->recs[k].state = STORE_FLOW_PENDING;
            a->recs[k].owner = sp->owner;       /* "" is stored as no owner */
        }
        g->flows = NULL;            /* the parsed body is not kept past this request */
    }
    /* Answered from the commit's completion: no thread sleeps while it
     * syncs; or (durability async) once queued, the server held until the
     * commit is done. */
    bool now = q->rs->cfg.answer_queued && rest_hold(q->rs, a->total);
    if (!now && !(a->token = rest_defer(q, change_answer))) {
        rest_error(r, 503, "ofcd is shutting down; nothing of this request was stored");
        r->retry_after = 5;
        goto fail;
    }
    struct rest_server *rs = q->rs;
    size_t a_total = a->total;
    int rc = store_put_many_async(rs->src.store, a->recs, a->total, add_committed, a);
    if (rc < 0) {
        void *token = a->token;
        fl_add_free(a);
        if (!now) {
            rest_wake(token, rc);
            return;
        }
        rest_release(rs, a_total);
        store_failed(r, rc);
        return;
    }
    if (now)
        accepted(r);
    return;
fail:
    fl_add_free(a);
}

static int key_cmp(const void *a, const void *b)
{
    const struct flowmgr_key *x = a, *y = b;
    if (x->dpid != y->dpid)
        return x->dpid < y->dpid ? -1 : 1;
    if (x->match_id != y->match_id)
        return x->match_id < y->match_id ? -1 : 1;
    return 0;
}

struct victims {
    const struct flowmgr_key *k;
    size_t n;
};

static int is_victim(const struct store_flow *f, void *arg)
{
    const struct victims *v = arg;
    struct flowmgr_key key = {f->dpid, f->match_id, 0};
    const struct flowmgr_key *hit = bsearch(&key, v->k, v->n, sizeof(key), key_cmp);
    /* Only the version the request saw: a re-add since then stays. */
    return hit && hit->flow_id == f->flow_id;
}

/* A delete waiting for its commit: the victims the store's predicate reads
 * on the committer, and what the flow manager is told once durable. */
struct fl_del {
    struct rest_server *rs;
    struct fl_req fr;
    struct victims v;
    struct flowmgr_key *keys;
    void *token;
};

static void fl_del_free(struct fl_del *d)
{
    free(d->keys);
    fl_req_free(&d->fr);
    free(d);
}

static void tell_deleted(struct rest_server *rs, struct fl_req *fr,
                         const struct flowmgr_key *keys, size_t n)
{
    for (size_t i = 0; i < fr->n; i++) {
        struct fl_group *g = &fr->g[i];
        flowmgr_deleted_admitted(rs->src.fm, keys, n, g->dpid, g->parsed, g->n, g->held);
        g->held = 0;
    }
}

/* On the committer, in commit order with the adds: the switches are told
 * only what is durable, and an add then a delete of one flow reach the
 * flow manager in that order. */
static void del_committed(void *arg, int rc)
{
    struct fl_del *d = arg;
    void *token = d->token;
    struct rest_server *rs = d->rs;
    size_t n = d->v.n;

    if (rc == 0)
        tell_deleted(d->rs, &d->fr, d->keys, d->v.n);
    fl_del_free(d);
    if (token) {
        rest_wake(token, rc);
        return;
    }
    if (rc < 0)
        async_lost(rs, "a flow delete", rc);
    rest_release(rs, n);
}

static void run_delete(struct rest_req *q, struct rest_reply *r, struct fl_req *fr)
{
    struct flowmgr_key *keys = NULL;
    size_t n = 0, cap = 0;

    if (prepare(q, r, fr, true) < 0)
        return;
    for (size_t i = 0; i < fr->n; i++)
        for (size_t j = 0; j < fr->g[i].n; j++)
            if (flowmgr_delete_victims(q->rs->src.fm, fr->g[i].dpid, &fr->g[i].parsed[j], &keys,
                                       &n, &cap) < 0) {
                rest_error(r, 500, "out of memory");
                free(keys);
                return;
            }
    if (!n) {
        /* Nothing stored matches: the switches are still told (a flow ofcd
         * does not know may be on them), and there is nothing to wait for. */
        tell_deleted(q->rs, fr, keys, 0);
        accepted(r);
        free(keys);
        return;
    }
    qsort(keys, n, sizeof(*keys), key_cmp);
    size_t u = 1;
    for (size_t i = 1; i < n; i++)
        if (key_cmp(&keys[i], &keys[u - 1]) != 0)
            keys[u++] = keys[i];
    struct fl_del *d = calloc(1, sizeof(*d));
    if (!d) {
        rest_error(r, 500, "out of memory");
        free(keys);
        return;
    }
    d->rs = q->rs;
    d->fr = *fr;                    /* the request's groups are the delete's now */
    *fr = (struct fl_req){0};
    d->keys = keys;
    d->v = (struct victims){keys, u};
    for (size_t i = 0; i < d->fr.n; i++)
        d->fr.g[i].flows = NULL;    /* the body is not kept past this request */
    /* Answered from the commit's completion, as adds are: no thread sleeps
     * while it syncs. Kept in state deleted (Kytos-ng lists them so) unless
     * retention is off. */
    bool now = q->rs->cfg.answer_queued && rest_hold(q->rs, u);
    if (!now && !(d->token = rest_defer(q, change_answer))) {
        rest_error(r, 503, "ofcd is shutting down; nothing of this request was changed");
        r->retry_after = 5;
        fl_del_free(d);
        return;
    }
    struct rest_server *rs = q->rs;
    int rc = store_select_async(rs->src.store, NULL, is_victim, &d->v, rs->cfg.keep_deleted,
                                del_committed, d);
    if (rc < 0) {
        void *token = d->token;
        fl_del_free(d);
        if (!now) {
            rest_wake(token, rc);
            return;
        }
        rest_release(rs, u);
        store_failed(r, rc);
        return;
    }
    if (now)
        accepted(r);
}

/* POST|DELETE .../flows[/{dpid}] */
static void flows_change(struct rest_req *q, struct rest_reply *r, bool del)
{
    struct fl_req fr = {0};
    json_t *body;
    const char *key;
    json_t *v;
    const json_t *flows = NULL, *switches = NULL;
    uint64_t dpid;
    uint64_t *ups = NULL;

    if (!rest_need_fm(q, r) || !(body = body_object(q, r)))
        return;
    json_object_foreach(body, key, v) {
        if (strcmp(key, "flows") == 0)
            flows = v;
        else if (strcmp(key, "switches") == 0)
            switches = v;
        else if (strcmp(key, "force") == 0) {
            if (parse_force(v, &fr.force, r) < 0)
                goto out;
        } else {
            rest_error(r, 400, "unknown field '%s' (expected flows, force, switches)", key);
            goto out;
        }
    }
    if (check_flows_array(flows, "flows", r) < 0)
        goto out;
    if (q->arg) {
        if (rest_dpid_arg(q->arg, &dpid, r) < 0)
            goto out;
        if (switches) {
            rest_error(r, 400, "switches: not allowed with a dpid in the path");
            goto out;
        }
        if (!fl_add(&fr, dpid, flows, "flows", NULL))
            goto oom;
    } else if (switches) {
        size_t i;
        json_t *s;
        if (!json_is_array(switches)) {
            rest_error(r, 400, "switches: must be an array of dpids");
            goto out;
        }
        json_array_foreach(switches, i, s) {
            if (!json_is_string(s) || dpid_parse(json_string_value(s), &dpid) < 0) {
                rest_error(r, 400, "switches[%zu]: not a dpid", i);
                goto out;
            }
            if (!fl_add(&fr, dpid, flows, "flows", NULL))
                goto oom;
        }
    } else {
        /* Every known switch, as Kytos does (its enabled ones): one that is
         * down is a 424 unless "force" (then stored for when it connects).
         * None known at all: Kytos answers 202 and does nothing; ofcd says
         * so instead, so a client cannot take nothing for success. */
        int n = flowmgr_switches(q->rs->src.fm, false, &ups);
        if (n < 0)
            goto oom;
        if (n == 0) {
            rest_error(r, 424, "no switch is known to ofcd yet: nothing to %s",
                       del ? "delete from" : "install on");
            goto out;
        }
        for (int i = 0; i < n; i++)
            if (!fl_add(&fr, ups[i], flows, "flows", NULL))
                goto oom;
    }
    if (del)
        run_delete(q, r, &fr);
    else
        run_add(q, r, &fr);
    goto out;
oom:
    rest_error(r, 500, "out of memory");
out:
    free(ups);
    fl_req_free(&fr);
    json_decref(body);
}

void rest_flows_post(struct rest_req *q, struct rest_reply *r)
{
    flows_change(q, r, false);
}

void rest_flows_delete(struct rest_req *q, struct rest_reply *r)
{
    flows_change(q, r, true);
}

/* flows_by_switch takes force in the query, as Kytos-ng does (true or
 * false, any case); false when absent. -1 after a 400. */
static int query_force(struct rest_req *q, struct rest_reply *r, bool *force)
{
    const char *v = MHD_lookup_connection_value(q->conn, MHD_GET_ARGUMENT_KIND, "force");

    if (!v)
        return 0;
    if (strcasecmp(v, "true") == 0 || strcasecmp(v, "false") == 0) {
        *force = strcasecmp(v, "true") == 0;
        return 0;
    }
    rest_error(r, 400, "Parameter force does not have a valid value (true or false).");
    return -1;
}

/* POST|DELETE .../flows_by_switch[?force=true] ("force" in the body too) */
static void by_switch_change(struct rest_req *q, struct rest_reply *r, bool del)
{
    struct fl_req fr = {0};
    json_t *body;
    const char *key;
    json_t *v;

    if (!rest_need_fm(q, r) || !(body = body_object(q, r)))
        return;
    if (query_force(q, r, &fr.force) < 0)
        goto out;
    json_object_foreach(body, key, v) {
        uint64_t dpid;
        if (strcmp(key, "force") == 0) {
            if (parse_force(v, &fr.force, r) < 0)
                goto out;
            continue;
        }
        if (dpid_parse(key, &dpid) < 0) {
            rest_error(r, 400, "'%s': not a dpid (expected {\"<dpid>\": {\"flows\": [...]}})",
                       key);
            goto out;
        }
        char where[64];
        snprintf(where, sizeof(where), "%.24s.flows", key);
        if (!json_is_object(v)) {
            rest_error(r, 400, "%.24s: must be an object {\"flows\": [...]}", key);
            goto out;
        }
        const char *k2;
        json_t *v2;
        json_object_foreach(v, k2, v2)
            if (strcmp(k2, "flows") != 0) {
                rest_error(r, 400, "unknown field '%.24s.%.64s'", key, k2);
                goto out;
            }
        const json_t *flows = json_object_get(v, "flows");
        if (check_flows_array(flows, where, r) < 0)
            goto out;
        if (!fl_add(&fr, dpid, flows, where, key)) {
            rest_error(r, 500, "out of memory");
            goto out;
        }
    }
    if (fr.n == 0) {
        rest_error(r, 400, "no switch given: expected {\"<dpid>\": {\"flows\": [...]}}");
        goto out;
    }
    if (del)
        run_delete(q, r, &fr);
    else
        run_add(q, r, &fr);
out:
    fl_req_free(&fr);
    json_decref(body);
}

void rest_flows_by_switch_post(struct rest_req *q, struct rest_reply *r)
{
    by_switch_change(q, r, false);
}

void rest_flows_by_switch_delete(struct rest_req *q, struct rest_reply *r)
{
    by_switch_change(q, r, true);
}
