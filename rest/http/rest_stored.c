/*
 * rest_stored: what the flow store holds, as REST answers it.
 *
 *   GET .../v2/stored_flows?dpid=&state=&cookie_range=   (each repeatable)
 *       {"<dpid>": [record, ...], ...}, Kytos-ng's shape
 *   GET /api/v1/switches/{dpid}/flows
 *       {"dpid": "<dpid>", "flows": [record, ...]}, deleted flows left out
 *
 * Both answers are streamed: the store is read in pieces of
 * STORED_BATCH records, each in a read transaction of its own, and each
 * piece rendered as the client takes the previous one, so a million stored
 * flows cost the memory of one piece, no lock is held while JSON is made,
 * and no read transaction stays open while a slow client reads. The first
 * piece is read before the answer starts: a store that cannot be read is a
 * 500; a failure later cuts the connection (logged), the status being sent.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <microhttpd.h>

#include "dpid.h"
#include "flow_json.h"
#include "flowmgr.h"
#include "ofcd_log.h"
#include "ofp_err.h"
#include "rest_cookie_query.h"
#include "rest_priv.h"
#include "rest_textbuf.h"
#include "store.h"

#define STORED_BATCH 256

/* What a stored_flows query asks for, read as Kytos-ng reads it: dpid and
 * state repeatable (any of them matches; an unknown state matches nothing;
 * none given: every state, deleted flows too), cookie_range pairs
 * (rest_cookie_query.h), other arguments ignored. */
struct stored_q {
    uint64_t dpids[64];
    unsigned n_dpids;
    unsigned states;                /* bit per enum store_flow_state, 0: any */
    bool state_given;
    struct rest_cookie_query cookies;
    const char *bad;                /* first bad argument, */
    const char *why;                /* and what is wrong with it */
};

static enum MHD_Result query_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *value)
{
    struct stored_q *sq = cls;

    (void)kind;
    if (!value)
        value = "";
    if (sq->bad)
        return MHD_YES;
    if (strcmp(key, "dpid") == 0) {
        if (sq->n_dpids == 64)
            sq->why = "more than 64 dpids";
        else if (dpid_parse(value, &sq->dpids[sq->n_dpids]) < 0)
            sq->why = "not a dpid (00:00:00:00:00:00:00:01 or hex)";
        else
            sq->n_dpids++;
    } else if (strcmp(key, "state") == 0) {
        static const enum store_flow_state known[] = {STORE_FLOW_PENDING, STORE_FLOW_INSTALLED,
                                                      STORE_FLOW_ERROR, STORE_FLOW_DELETED};
        sq->state_given = true;
        for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
            if (strcmp(value, store_state_name(known[i])) == 0)
                sq->states |= 1u << known[i];
    } else if (strcmp(key, "cookie_range") == 0) {
        int rc = rest_cookie_query_add(&sq->cookies, value);
        if (rc == -E2BIG)
            sq->why = "more than 256 pairs";
        else if (rc < 0)
            sq->why = "couldn't be cast as an int";
    }
    if (sq->why)
        sq->bad = key;
    return MHD_YES;
}

static json_t *iso_time(uint64_t ns)
{
    char buf[40];
    time_t t = (time_t)(ns / 1000000000u);
    struct tm tm;
    gmtime_r(&t, &tm);
    size_t n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, sizeof(buf) - n, ".%06uZ", (unsigned)(ns % 1000000000u / 1000u));
    return json_string(buf);
}

/* The cookie of a stored flow (parsed when it was accepted; absent = 0). */
static uint64_t json_cookie(const json_t *flow)
{
    uint64_t v = 0;
    return flow_json_u64(json_object_get(flow, "cookie"), &v) ? v : 0;
}

/* The record as the answer shows it, or NULL when the query leaves it out
 * (or out of memory: the caller cannot tell, and need not). */
static json_t *stored_record(const struct store_flow *f, const struct stored_q *sq)
{
    json_error_t je;
    char hex[24], dp[24];

    if (sq->state_given && !(sq->states & 1u << f->state))
        return NULL;
    json_t *flow = json_loadb(f->json, f->json_len, 0, &je);
    if (!flow)
        flow = json_null();
    if (!rest_cookie_query_match(&sq->cookies, json_cookie(flow))) {
        json_decref(flow);
        return NULL;
    }
    dpid_format(f->dpid, dp);
    json_t *o = json_object();
    json_object_set_new(o, "flow", flow);
    snprintf(hex, sizeof(hex), "%016" PRIx64, f->match_id);
    json_object_set_new(o, "id", json_string(hex));
    snprintf(hex, sizeof(hex), "%016" PRIx64, f->flow_id);
    json_object_set_new(o, "flow_id", json_string(hex));
    json_object_set_new(o, "switch", json_string(dp));
    json_object_set_new(o, "state", json_string(store_state_name(f->state)));
    json_object_set_new(o, "inserted_at", iso_time(f->added_ns));
    json_object_set_new(o, "updated_at", iso_time(f->changed_ns));
    if (f->state == STORE_FLOW_DELETED)
        json_object_set_new(o, "deleted_at", iso_time(f->changed_ns));
    if (f->state == STORE_FLOW_ERROR) {
        char what[128];
        ofp_err_format(OFP_ERR(f->err_type, f->err_code), what, sizeof(what));
        json_object_set_new(o, "error", json_pack("{s:i, s:i, s:s}", "type", f->err_type,
                                                  "code", f->err_code, "description", what));
    }
    return o;
}

/* ---- the streamed answer ----------------------------------------------------------- */

struct stored_gen {
    struct store *store;
    struct stored_q sq;
    bool one_switch;                /* {"dpid":..., "flows": [...]} */
    unsigned dpid_i;                /* the dpid of sq.dpids being read */
    uint64_t from_dpid, from_match; /* where the next piece starts */
    bool more;                      /* the last piece stopped short of the end */
    bool done;                      /* the store is read to the end */
    bool any;                       /* a record was written (its separator) */
    uint64_t cur_dpid;              /* stored_flows: the dpid whose list is open */
    unsigned left;                  /* records this piece may still take */
    int err;
    struct rest_textbuf out;        /* rendered, not yet sent */
};

static bool gen_puts(struct stored_gen *g, const char *s)
{
    return rest_textbuf_puts(&g->out, s);
}

static int gen_one(const struct store_flow *f, void *arg)
{
    struct stored_gen *g = arg;

    if (!g->left) {
        g->from_dpid = f->dpid;              /* this one starts the next piece */
        g->from_match = f->match_id;
        g->more = true;
        return 1;
    }
    g->left--;
    json_t *o = stored_record(f, &g->sq);
    if (!o)
        return 0;
    bool ok = true;
    if (!g->one_switch && (!g->any || f->dpid != g->cur_dpid)) {
        char dp[24], head[40];
        dpid_format(f->dpid, dp);
        snprintf(head, sizeof(head), "%s\"%s\":[", g->any ? "]," : "", dp);
        ok = gen_puts(g, head);
        g->cur_dpid = f->dpid;
    } else if (g->any) {
        ok = gen_puts(g, ",");
    }
    g->any = true;
    if (!ok) {
        json_decref(o);
        return -ENOMEM;
    }
    return rest_textbuf_put_json(&g->out, o) ? 0 : -ENOMEM;
}

/* Read and render the next piece; at the end, close the JSON. */
static void gen_fill(struct stored_gen *g)
{
    const uint64_t *dpid = g->sq.n_dpids ? &g->sq.dpids[g->dpid_i] : NULL;

    g->left = STORED_BATCH;
    g->more = false;
    int rc = store_foreach_from(g->store, dpid, g->from_dpid, g->from_match, gen_one, g);
    if (rc < 0) {
        g->err = rc;
        return;
    }
    if (g->more)
        return;                              /* stopped at a piece's end */
    /* This dpid (or the whole store) is read. */
    if (g->sq.n_dpids && ++g->dpid_i < g->sq.n_dpids) {
        g->from_dpid = g->sq.dpids[g->dpid_i];
        g->from_match = 0;
        return;
    }
    g->done = true;
    if (!(g->one_switch ? gen_puts(g, "]}") : gen_puts(g, g->any ? "]}" : "}")))
        g->err = -ENOMEM;
}

static ssize_t gen_read(void *ctx, char *out, size_t max)
{
    struct stored_gen *g = ctx;

    while (rest_textbuf_drained(&g->out) && !g->done && !g->err)
        gen_fill(g);
    if (g->err) {
        LOG_ERR("rest", "stored flows: cannot read the flow store mid-answer: %s; the "
                "connection is cut", strerror(-g->err));
        return -1;
    }
    return (ssize_t)rest_textbuf_take(&g->out, out, max);
}

static void gen_free(void *ctx)
{
    struct stored_gen *g = ctx;

    rest_textbuf_free(&g->out);
    free(g);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Start the answer: its opening and first piece now (a store that cannot be
 * read is still a 500), the rest as the client reads. */
static void gen_start(struct stored_gen *g, struct rest_req *q, struct rest_reply *r,
                      const char *opening)
{
    /* Each dpid once, in key order. */
    qsort(g->sq.dpids, g->sq.n_dpids, sizeof(g->sq.dpids[0]), cmp_u64);
    unsigned u = 0;
    for (unsigned i = 0; i < g->sq.n_dpids; i++)
        if (!u || g->sq.dpids[i] != g->sq.dpids[u - 1])
            g->sq.dpids[u++] = g->sq.dpids[i];
    g->sq.n_dpids = u;
    g->store = q->rs->src.store;
    g->from_dpid = u ? g->sq.dpids[0] : 0;
    if (!gen_puts(g, opening))
        g->err = -ENOMEM;
    else
        gen_fill(g);
    if (g->err) {
        rest_error(r, 500, "cannot read the flow store: %s", strerror(-g->err));
        gen_free(g);
        return;
    }
    r->status = 200;
    r->stream = gen_read;
    r->stream_free = gen_free;
    r->stream_ctx = g;
}

void rest_stored_flows_get(struct rest_req *q, struct rest_reply *r)
{
    struct stored_gen *g;

    if (!rest_need_fm(q, r))
        return;
    if (!(g = calloc(1, sizeof(*g)))) {
        rest_error(r, 500, "out of memory");
        return;
    }
    MHD_get_connection_values(q->conn, MHD_GET_ARGUMENT_KIND, query_arg, &g->sq);
    if (!g->sq.bad && rest_cookie_query_finish(&g->sq.cookies) < 0) {
        g->sq.bad = "cookie_range";
        g->sq.why = "expected an even number of values (inclusive lo, hi pairs)";
    }
    if (g->sq.bad) {
        rest_error(r, 400, "query argument %s: %s", g->sq.bad, g->sq.why);
        gen_free(g);
        return;
    }
    gen_start(g, q, r, "{");
}

void rest_switch_flows_get(struct rest_req *q, struct rest_reply *r, uint64_t dpid)
{
    struct stored_gen *g;
    char dp[24], opening[64];

    if (!rest_need_fm(q, r))
        return;
    dpid_format(dpid, dp);
    if (flowmgr_state(q->rs->src.fm, dpid) == FLOWMGR_SW_UNKNOWN) {
        rest_error(r, 404, "switch %s is not known", dp);
        return;
    }
    if (!(g = calloc(1, sizeof(*g)))) {
        rest_error(r, 500, "out of memory");
        return;
    }
    /* The switch's flows: deleted ones are only in stored_flows. */
    g->sq.state_given = true;
    g->sq.states = 1u << STORE_FLOW_PENDING | 1u << STORE_FLOW_INSTALLED | 1u << STORE_FLOW_ERROR;
    g->sq.dpids[0] = dpid;
    g->sq.n_dpids = 1;
    g->one_switch = true;
    snprintf(opening, sizeof(opening), "{\"dpid\":\"%s\",\"flows\":[", dp);
    gen_start(g, q, r, opening);
}
