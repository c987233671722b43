/*
 * rest_flows: the Kytos-ng flow_manager v2 endpoints.
 *
 *   POST|DELETE .../flows[/{dpid}]   {"flows": [...], "force": b, "switches": [dpids]}
 *   POST|DELETE .../flows_by_switch  {"<dpid>": {"flows": [...]}, ..., "force": b}
 * (GET .../flows is rest_flowstats.c, stored_flows rest_stored.c).
 *
 * A change is answered 202 only once the store has made it durable; then
 * the flow manager sends it (fm_change.h: this file parses, checks and
 * admits; fm_change stores and hands over). Before anything is stored every check runs, so
 * a 4xx/5xx means nothing of the request was kept: 400 malformed (the
 * field is named), 404 unknown dpid, 424 switch not connected (unless
 * "force": the flows are stored and installed when it connects; without a
 * dpid or "switches", the request is for every known switch, and none known
 * is a 424 too), 503 with
 * Retry-After when the switch's send queue has no room left under
 * flow_manager.queue_max or the store is full.
 *
 * Admission reserves: every request, add or delete, holds room for its
 * FLOW_MODs on each target switch's queue (fm_admit) from before its
 * store commit until they are queued or the request fails (fm_change gives
 * it back then), so requests
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
#include "fm.h"
#include "fm_change.h"
#include "json_u64.h"
#include "ofcd_clock.h"
#include "ofcd_log.h"
#include "ofcd_ratelimit.h"
#include "rest_priv.h"
#include "store.h"

/* One switch's part of a request: which flows go to which dpid. */
struct fl_group {
    uint64_t dpid;
    const struct jt_node *flows;    /* JSON array, on the request's tape */
    char where[64];                 /* its JSON path, for error messages */
    size_t n;
    size_t held;                    /* FLOW_MODs admitted for it, not yet queued */
    struct fm_add_one *adds;   /* an add's flows, one per element, or */
    struct fm_sel *dels;       /* a delete's selectors, and */
    uint8_t *bytes;                 /* their owners and FLOW_MODs (mods_link) */
    size_t bytes_len, bytes_cap;
};

struct fl_req {
    struct fl_group *g;
    size_t n, cap;
    bool force;
    struct fm *fm;             /* of the admissions held */
};

/* Whatever admission a group still holds goes back: the request failed
 * (refused, store error, shutting down) before its FLOW_MODs were queued. */
static void fl_req_free(struct fl_req *fr)
{
    for (size_t i = 0; i < fr->n; i++) {
        if (fr->g[i].held)
            fm_admit_cancel(fr->fm, fr->g[i].dpid, fr->g[i].held);
        free(fr->g[i].adds);
        free(fr->g[i].dels);
        free(fr->g[i].bytes);
    }
    free(fr->g);
}

/* Room for n more bytes at the end of g->bytes. */
static int bytes_room(struct fl_group *g, size_t n)
{
    if (g->bytes_cap - g->bytes_len >= n)
        return 0;
    size_t nc = g->bytes_cap ? g->bytes_cap : 4096;
    while (nc - g->bytes_len < n)
        nc *= 2;
    uint8_t *nb = realloc(g->bytes, nc);
    if (!nb)
        return -ENOMEM;
    g->bytes = nb;
    g->bytes_cap = nc;
    return 0;
}

/*
 * Flow or selector k, parsed into f with its FLOW_MOD's len bytes already
 * at the end of g->bytes (flow_json_parse_wire wrote them there): its
 * owner (with its NUL) after them, and an add's identity beside them.
 * g->bytes may still move: mods_link points at them once every flow is
 * in. The caller made room for the owner.
 */
static void mod_keep(struct fl_group *g, size_t k, const struct fm_flow *f, size_t len)
{
    size_t olen = strlen(f->owner) + 1;

    memcpy(g->bytes + g->bytes_len + len, f->owner, olen);
    g->bytes_len += len + olen;
    if (g->adds) {
        g->adds[k].match_id = fm_flow_match_id(g->dpid, f);
        g->adds[k].flow_id = fm_flow_id_of(g->adds[k].match_id, f);
        g->adds[k].len = len;
    } else {
        g->dels[k].len = len;
    }
}

/* The wires and owners, where g->bytes has come to rest. */
static void mods_link(struct fl_group *g)
{
    const uint8_t *p = g->bytes;

    for (size_t k = 0; k < g->n; k++) {
        const uint8_t *wire = p;
        size_t len = g->adds ? g->adds[k].len : g->dels[k].len;
        const char *owner = (const char *)(p + len);
        p += len + strlen(owner) + 1;
        if (g->adds)
            g->adds[k] = (struct fm_add_one){g->adds[k].match_id, g->adds[k].flow_id,
                                                  owner, wire, len};
        else
            g->dels[k] = (struct fm_sel){owner, wire, len};
    }
}

static struct fl_group *fl_add(struct fl_req *fr, uint64_t dpid, const struct jt_node *flows,
                               const char *where)
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
    return g;
}

bool rest_need_fm(struct rest_req *q, struct rest_reply *r)
{
    if (q->rs->src.fm && q->rs->src.store)
        return true;
    rest_error(r, 503, "the flow manager is not running (see the log at start-up)");
    return false;
}

/*
 * The body read onto t (json_tape.h: one pass, no tree; numbers up to
 * 2^64 - 1, which cookies need), as a JSON object: its node, or NULL after
 * a 400 naming what is wrong. Bad JSON is told in jansson's words, as
 * before the tape: json_u64_loadb accepts what the tape accepts, and runs
 * only for a body that is refused.
 */
static const struct jt_node *body_object(struct rest_req *q, struct rest_reply *r,
                                         struct jt_tape *t)
{
    json_error_t je;

    if (!q->body || q->body_len == 0) {
        rest_error(r, 400, "a JSON body is required");
        return NULL;
    }
    int rc = jt_parse(t, q->body, q->body_len, 0);
    if (rc == -ENOMEM) {
        rest_error(r, 500, "out of memory for a body of %zu bytes", q->body_len);
        return NULL;
    }
    if (rc < 0) {
        json_t *j = json_u64_loadb(q->body, q->body_len, &je);
        if (j) {
            json_decref(j);
            rest_error(r, 400, "body is not valid JSON: %s", t->err);
        } else {
            rest_error(r, 400, "body is not valid JSON: %s (line %d, column %d)", je.text,
                       je.line, je.column);
        }
        return NULL;
    }
    if (!jt_is_object(jt_root(t))) {
        rest_error(r, 400, "body must be a JSON object");
        return NULL;
    }
    return jt_root(t);
}

static int parse_force(const struct jt_node *v, bool *force, struct rest_reply *r)
{
    if (!jt_is_bool(v)) {
        rest_error(r, 400, "force: must be true or false");
        return -EINVAL;
    }
    *force = v->type == JT_TRUE;
    return 0;
}

static int check_flows_array(const struct jt_node *v, const char *where, struct rest_reply *r)
{
    if (!v) {
        rest_error(r, 400, "%s: required", where);
        return -EINVAL;
    }
    if (!jt_is_array(v)) {
        rest_error(r, 400, "%s: must be an array of flows", where);
        return -EINVAL;
    }
    /* Kytos takes a list of nothing but empty flows for no flows at all
     * (Python's any() over the list), and clients match on its words. */
    size_t i;
    const struct jt_node *f;
    jt_array_foreach(v, i, f) {
        if (!jt_is_object(f) || f->size)
            break;
    }
    if (i == v->size) {
        rest_error(r, 400, "%s: is empty: the request body doesn't have any flows", where);
        return -EINVAL;
    }
    return 0;
}

/* Parse every group's flows and check every target switch. */
static int prepare(struct rest_req *q, struct rest_reply *r, struct fl_req *fr, bool del)
{
    struct fm *fm = q->rs->src.fm;
    struct fm_flow scratch;         /* a flow or selector, until mod_keep has its identity */
    char err[256];
    char dp[24];
    size_t total = 0;

    /* One body sent to every switch expands to flows x switches changes,
     * each parsed and held while the request lives: bounded first. */
    for (size_t i = 0; i < fr->n; i++)
        total += fr->g[i].flows->size;
    if (total > q->rs->cfg.max_flows_per_request) {
        rest_error(r, 413, "the request expands to %zu flow changes (flows x switches), more "
                   "than rest.max_flows_per_request = %u; send it in parts", total,
                   q->rs->cfg.max_flows_per_request);
        return -E2BIG;
    }

    for (size_t i = 0; i < fr->n; i++) {
        struct fl_group *g = &fr->g[i];
        dpid_format(g->dpid, dp);
        enum fm_sw_state st = fm_state(fm, g->dpid);
        if (st == FM_SW_UNKNOWN) {
            rest_error(r, 404, "switch %s is not known", dp);
            return -ENOENT;
        }
        if (st == FM_SW_DOWN && !fr->force) {
            rest_error(r, 424, "switch %s is not connected (send \"force\": true to store the "
                       "change and apply it when it connects)", dp);
            return -ENOTCONN;
        }
        g->n = g->flows->size;
        if (del)
            g->dels = malloc((g->n ? g->n : 1) * sizeof(*g->dels));
        else
            g->adds = malloc((g->n ? g->n : 1) * sizeof(*g->adds));
        if (!g->dels && !g->adds) {
            rest_error(r, 500, "out of memory for %zu flows", g->n);
            return -ENOMEM;
        }
        size_t k;
        const struct jt_node *f;
        jt_array_foreach(g->flows, k, f) {
            if (!jt_is_object(f)) {
                rest_error(r, 400, "%s[%zu]: must be a flow object", g->where, k);
                return -EINVAL;
            }
            /* Parsed, checked and encoded once, straight into the bytes kept. */
            size_t len;
            if (bytes_room(g, FLOW_JSON_WIRE_MAX + FM_FLOW_OWNER_MAX) < 0) {
                rest_error(r, 500, "out of memory for %zu flows", g->n);
                return -ENOMEM;
            }
            if (flow_json_parse_wire(f, del, &scratch, NULL, g->bytes + g->bytes_len, &len, err,
                                     sizeof(err)) < 0) {
                rest_error(r, 400, "%s[%zu]: %s", g->where, k, err);
                return -EINVAL;
            }
            mod_keep(g, k, &scratch, len);
        }
        mods_link(g);
    }
    /* Valid: room for its FLOW_MODs on every switch (one per flow for an
     * add, one per selector for a delete; a switch that is down gets them
     * if it comes up before the commit), held until they are queued. What
     * is held already goes back with fr (fl_req_free). */
    fr->fm = fm;
    for (size_t i = 0; i < fr->n; i++) {
        struct fl_group *g = &fr->g[i];
        unsigned retry = 1;
        int rc = fm_admit(fm, g->dpid, g->n, &retry);
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
    } else if (rc == -ETIME) {
        rest_error(r, 504, "the outcome is not known: etcd did not answer in time, or only "
                   "part of this request was stored before it failed; read the flows "
                   "(GET .../stored_flows) to see what was stored");
    } else if (rc == -ESTALE) {
        rest_error(r, 503, "this node's copy of the cluster's flows is behind etcd: it could "
                   "not apply a change (see its log and GET /api/v1/health); nothing of this "
                   "request was stored; send it to another node, or retry once this one has "
                   "read etcd again");
        r->retry_after = 5;
    } else if (rc == -EINPROGRESS) {
        rest_error(r, 504, "stored in etcd, but this node's copy has not shown it yet; it is "
                   "installed once it does (read the flows to see)");
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

/* A change between its queuing and its commit: the flow manager's change
 * (fm_change.h), what it points at, and the suspended request. */
struct fl_change {
    struct rest_server *rs;
    struct fl_req fr;               /* the groups and their parsed flows */
    struct fm_change ch;
    size_t held_answers;            /* counted by rest_hold (durability async) */
    char *body;                     /* an add: a copy of the body, the flows' texts */
    struct store_flow *recs;        /* an add's records */
    void *token;                    /* the suspended request */
};

static void fl_change_free(struct fl_change *c)
{
    free(c->body);
    free(c->recs);
    free(c->ch.parts);
    free(c->ch.victims);
    fl_req_free(&c->fr);
    free(c);
}

/* The request's groups are the change's now, and so is their admission:
 * fm_change gives it back if the change fails. */
static struct fl_change *fl_change_new(struct rest_req *q, struct fl_req *fr)
{
    struct fl_change *c = calloc(1, sizeof(*c));

    if (!c || !(c->ch.parts = calloc(fr->n ? fr->n : 1, sizeof(*c->ch.parts)))) {
        free(c);
        return NULL;
    }
    c->rs = q->rs;
    c->fr = *fr;
    *fr = (struct fl_req){0};
    for (size_t i = 0; i < c->fr.n; i++) {
        struct fl_group *g = &c->fr.g[i];
        c->ch.parts[i] = (struct fm_change_part){g->dpid, g->n, g->held, g->adds, g->dels};
        g->held = 0;
        g->flows = NULL;            /* the parsed body is not kept past this request */
    }
    c->ch.n_parts = c->fr.n;
    c->ch.fm = q->rs->src.fm;
    c->ch.arg = c;
    return c;
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

/* On the store's committer, in commit order, after fm_change handed what
 * is durable to the flow manager (installed whether or not the client is
 * still there to hear it): the answer. */
static void change_done(void *arg, int rc)
{
    struct fl_change *c = arg;
    void *token = c->token;
    struct rest_server *rs = c->rs;
    size_t n = c->held_answers;
    bool del = c->ch.recs == NULL;
    struct store_batch_times bt;

    store_batch_times(rs->src.store, &bt);
    fl_change_free(c);
    if (token) {
        rest_wake_timed(token, rc, bt.taken_us, bt.durable_us);
        return;
    }
    if (rc < 0)
        async_lost(rs, del ? "a flow delete" : "a flow add", rc);
    rest_release(rs, n);
}

/* Queue c (its records or victims set): answered from its completion, so
 * no thread sleeps while it syncs; or (durability async) now, the server
 * held until the commit is done. c is gone after. */
static void submit(struct rest_req *q, struct rest_reply *r, struct fl_change *c, size_t n)
{
    struct rest_server *rs = q->rs;
    bool now = rs->cfg.answer_queued && rest_hold(rs, n);

    c->held_answers = now ? n : 0;
    c->ch.done = change_done;
    if (!now && !(c->token = rest_defer(q, change_answer))) {
        rest_error(r, 503, "ofcd is shutting down; nothing of this request was %s",
                   c->ch.recs ? "stored" : "changed");
        r->retry_after = 5;
        fl_change_free(c);
        return;
    }
    void *token = c->token;
    int rc = fm_change_submit(&c->ch);
    if (rc < 0) {
        fl_change_free(c);
        if (!now) {
            rest_wake(token, rc);
            return;
        }
        rest_release(rs, n);
        store_failed(r, rc);
        return;
    }
    if (now)
        accepted(r);
}

/*
 * Each flow's text as the store keeps it: the client's own text of that
 * array element (its span on the tape, while fr still holds the tape's
 * nodes) in a copy of the body, which lives until the commit. The copy,
 * or NULL when out of memory.
 */
static char *flow_texts(const struct rest_req *q, const struct fl_req *fr,
                        struct store_flow *recs)
{
    size_t k = 0;
    char *body = malloc(q->body_len ? q->body_len : 1);

    if (!body)
        return NULL;
    memcpy(body, q->body, q->body_len);
    for (size_t i = 0; i < fr->n; i++) {
        const struct fl_group *g = &fr->g[i];
        size_t j;
        const struct jt_node *f;
        jt_array_foreach(g->flows, j, f) {
            recs[k].json = body + f->off;
            recs[k++].json_len = f->len;
        }
    }
    return body;
}

static void run_add(struct rest_req *q, struct rest_reply *r, struct fl_req *fr)
{
    size_t k = 0, total = 0;
    struct store_flow *recs;
    struct fl_change *c;

    if (prepare(q, r, fr, false) < 0)
        return;
    for (size_t i = 0; i < fr->n; i++)
        total += fr->g[i].n;
    if (!(recs = calloc(total ? total : 1, sizeof(*recs)))) {
        rest_error(r, 500, "out of memory for %zu flows", total);
        return;
    }
    for (size_t i = 0; i < fr->n; i++) {
        const struct fl_group *g = &fr->g[i];
        for (size_t j = 0; j < g->n; j++, k++) {
            const struct fm_add_one *ad = &g->adds[j];
            recs[k] = (struct store_flow){.dpid = g->dpid, .match_id = ad->match_id,
                                          .flow_id = ad->flow_id, .state = STORE_FLOW_PENDING,
                                          .owner = ad->owner};  /* "" is stored as no owner */
        }
    }
    /* The texts from the tape, before fl_change_new lets the body go. */
    char *body = flow_texts(q, fr, recs);
    if (!body || !(c = fl_change_new(q, fr))) {
        free(body);
        free(recs);
        rest_error(r, 500, "out of memory");
        return;
    }
    c->body = body;
    c->recs = recs;
    c->ch.recs = recs;
    c->ch.n_recs = total;
    submit(q, r, c, total);
}

static void run_delete(struct rest_req *q, struct rest_reply *r, struct fl_req *fr)
{
    struct fm_key *keys = NULL;
    size_t n = 0, cap = 0;
    struct fl_change *c;

    if (prepare(q, r, fr, true) < 0)
        return;
    for (size_t i = 0; i < fr->n; i++)
        for (size_t j = 0; j < fr->g[i].n; j++) {
            /* The selector back from its bytes (the match is copied out). */
            const struct fm_sel *sel = &fr->g[i].dels[j];
            struct ofp_flow_mod mod;
            struct ofp_err oerr;
            if (ofp_flow_mod_decode(sel->wire, sel->len, &mod, &oerr) < 0) {
                rest_error(r, 500, "selector %zu of switch %016" PRIx64 " did not decode from "
                           "its own encoding", j, fr->g[i].dpid);
                free(keys);
                return;
            }
            if (fm_delete_victims(q->rs->src.fm, fr->g[i].dpid, &mod, &keys, &n,
                                       &cap) < 0) {
                rest_error(r, 500, "out of memory");
                free(keys);
                return;
            }
        }
    if (!(c = fl_change_new(q, fr))) {
        rest_error(r, 500, "out of memory");
        free(keys);
        return;
    }
    c->ch.victims = keys;
    c->ch.n_victims = n;
    /* Kept in state deleted (Kytos-ng lists them so) unless retention is off. */
    c->ch.keep_deleted = q->rs->cfg.keep_deleted;
    if (!n) {
        /* Nothing stored matches: the switches are still told at once (a
         * flow ofcd does not know may be on them; fm_change_submit says
         * -EALREADY), and there is nothing to wait for. */
        c->ch.done = change_done;
        fm_change_submit(&c->ch);
        fl_change_free(c);
        accepted(r);
        return;
    }
    submit(q, r, c, n);
}

/* POST|DELETE .../flows[/{dpid}] */
static void flows_change(struct rest_req *q, struct rest_reply *r, bool del)
{
    struct fl_req fr = {0};
    struct jt_tape tape = {0};
    const struct jt_node *body, *k, *v;
    const struct jt_node *flows = NULL, *switches = NULL;
    uint64_t dpid;
    uint64_t *ups = NULL;

    if (!rest_need_fm(q, r) || !(body = body_object(q, r, &tape)))
        goto out;
    jt_object_foreach(body, k, v) {
        const char *key = jt_string(k);
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
        if (!fl_add(&fr, dpid, flows, "flows"))
            goto oom;
    } else if (switches) {
        size_t i;
        const struct jt_node *s;
        if (!jt_is_array(switches)) {
            rest_error(r, 400, "switches: must be an array of dpids");
            goto out;
        }
        jt_array_foreach(switches, i, s) {
            if (!jt_is_string(s) || dpid_parse(jt_string(s), &dpid) < 0) {
                rest_error(r, 400, "switches[%zu]: not a dpid", i);
                goto out;
            }
            if (!fl_add(&fr, dpid, flows, "flows"))
                goto oom;
        }
    } else {
        /* Every known switch, as Kytos does (its enabled ones): one that is
         * down is a 424 unless "force" (then stored for when it connects).
         * None known at all: Kytos answers 202 and does nothing; ofcd says
         * so instead, so a client cannot take nothing for success. */
        int n = fm_switches(q->rs->src.fm, false, &ups);
        if (n < 0)
            goto oom;
        if (n == 0) {
            rest_error(r, 424, "no switch is known to ofcd yet: nothing to %s",
                       del ? "delete from" : "install on");
            goto out;
        }
        for (int i = 0; i < n; i++)
            if (!fl_add(&fr, ups[i], flows, "flows"))
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
    jt_free(&tape);
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
    struct jt_tape tape = {0};
    const struct jt_node *body, *k, *v;

    if (!rest_need_fm(q, r) || !(body = body_object(q, r, &tape)))
        goto out;
    if (query_force(q, r, &fr.force) < 0)
        goto out;
    jt_object_foreach(body, k, v) {
        const char *key = jt_string(k);
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
        if (!jt_is_object(v)) {
            rest_error(r, 400, "%.24s: must be an object {\"flows\": [...]}", key);
            goto out;
        }
        for (const struct jt_node *k2 = jt_object_first(v); k2; k2 = jt_object_next(v, k2))
            if (strcmp(jt_string(k2), "flows") != 0) {
                rest_error(r, 400, "unknown field '%.24s.%.64s'", key, jt_string(k2));
                goto out;
            }
        const struct jt_node *flows = jt_object_get(v, "flows");
        if (check_flows_array(flows, where, r) < 0)
            goto out;
        if (!fl_add(&fr, dpid, flows, where)) {
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
    jt_free(&tape);
}

void rest_flows_by_switch_post(struct rest_req *q, struct rest_reply *r)
{
    by_switch_change(q, r, false);
}

void rest_flows_by_switch_delete(struct rest_req *q, struct rest_reply *r)
{
    by_switch_change(q, r, true);
}
