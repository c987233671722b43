/*
 * rest_stored: what the flow store holds, as REST answers it.
 *
 *   GET .../v2/stored_flows?dpid=&state=&cookie_range=   (each repeatable)
 *       {"<dpid>": [record, ...], ...}, Kytos-ng's shape
 *   GET /api/v1/switches/{dpid}/flows
 *       {"dpid": "<dpid>", "flows": [record, ...]}, deleted flows left out
 *
 * Within a switch, records come in Kytos-ng's order: priority descending,
 * then updated_at ascending (then the flow's id, so the order is total).
 *
 * Both answers are streamed, one switch at a time. For each, a first pass
 * reads the switch's records in pieces of STORED_COLLECT (each in a read
 * transaction of its own) and keeps only the sort key of those the query
 * selects (24 bytes each: priority and cookie are read from the stored
 * JSON's top level without parsing it); the keys are sorted; then the
 * records are fetched back STORED_BATCH at a time, in that order, and each
 * piece is rendered as the client takes the previous one. So a million
 * stored flows cost the memory of one switch's keys and one piece, no lock
 * is held while JSON is made, and no read transaction stays open while a
 * slow client reads. What commits between the passes shows as it is when
 * fetched (a record gone by then, or no longer selected, is left out). The
 * first switch is read before the answer starts: a store that cannot be
 * read is a 500; a failure later cuts the connection (logged), the status
 * being sent.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <microhttpd.h>

#include "dpid.h"
#include "flow_json.h"
#include "fm.h"
#include "fm_stored.h"
#include "json_u64.h"
#include "ofcd_log.h"
#include "ofp_err.h"
#include "rest_cookie_query.h"
#include "rest_priv.h"
#include "rest_textbuf.h"
#include "store.h"

#define STORED_BATCH 256
#define STORED_COLLECT 4096
#define STORED_DEFAULT_PRIORITY 0x8000   /* a stored flow without one (none written so) */

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
    bool bad_in_body;               /* bad names a field of the JSON body */
    bool cookies_from_body;         /* the body's cookie_range replaced the query's */
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
    char hex[24], dp[24];

    if (sq->state_given && !(sq->states & 1u << f->state))
        return NULL;
    json_t *flow = json_u64_load_record(f->json, f->json_len);
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

/* One cookie_range value of a JSON body as the text rest_cookie_query
 * reads, taken as Kytos-ng takes it (Python's int()): an integer of any
 * size, a string holding one, a number truncated toward zero, a boolean as
 * 0 or 1. false for anything else. */
static bool body_cookie_text(const json_t *v, char *buf, size_t n)
{
    uint64_t u;

    if (json_is_integer(v)) {
        snprintf(buf, n, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    } else if (json_is_string(v)) {
        int m = json_u64_marker_value(json_string_value(v), &u);
        if (m > 0)
            snprintf(buf, n, "%" PRIu64, u);
        else if (m < 0)
            snprintf(buf, n, "18446744073709551616");   /* above 2^64-1: clamped */
        else
            snprintf(buf, n, "%s", json_string_value(v));
    } else if (json_is_real(v)) {
        double d = json_real_value(v);
        if (d != d || d > 1e30 || d < -1e30)
            return false;
        snprintf(buf, n, "%.0f", d < 0 ? -floor(-d) : floor(d));
    } else if (json_is_boolean(v)) {
        snprintf(buf, n, "%d", json_is_true(v) ? 1 : 0);
    } else {
        return false;
    }
    return true;
}

/* A JSON body's "cookie_range" replaces the query's, as in Kytos-ng (which
 * reads it when the request says Content-Type: application/json). 0, or
 * -EINVAL with sq->bad/why set (why may then be a decoder's message). */
static int body_cookies(struct stored_q *sq, const char *body, size_t len, char *why,
                        size_t why_len)
{
    json_error_t je;
    char text[64];
    int rc = 0;

    json_t *j = json_u64_loadb(body, len, &je);
    if (!j) {
        snprintf(why, why_len, "failed to decode json body: %s", je.text);
        sq->bad = "body";
        sq->why = why;
        sq->bad_in_body = true;
        return -EINVAL;
    }
    json_t *cr = json_is_object(j) ? json_object_get(j, "cookie_range") : NULL;
    if (cr) {
        memset(&sq->cookies, 0, sizeof(sq->cookies));
        sq->cookies_from_body = true;
        size_t i;
        json_t *v;
        if (!json_is_array(cr))
            rc = -EINVAL;
        json_array_foreach(cr, i, v) {
            if (rc == 0 && (!body_cookie_text(v, text, sizeof(text)) ||
                            (rc = rest_cookie_query_add(&sq->cookies, text)) < 0))
                rc = rc == -E2BIG ? rc : -EINVAL;
        }
        if (rc < 0) {
            sq->bad = "cookie_range";
            sq->bad_in_body = true;
            sq->why = rc == -E2BIG ? "more than 256 pairs" : "couldn't be cast as an int";
        }
    }
    json_decref(j);
    return rc < 0 ? -EINVAL : 0;
}

/* ---- the streamed answer ----------------------------------------------------------- */

/* One selected record of the switch being answered: what it is sorted by. */
struct stored_ord {
    uint64_t updated_ns;
    uint64_t match_id;
    uint16_t priority;
};

struct stored_gen {
    struct fm *fm;                  /* the stored flows are read through it */
    struct stored_q sq;
    bool one_switch;                /* {"dpid":..., "flows": [...]} */
    unsigned dpid_i;                /* with sq.dpids: the next of them to answer */
    uint64_t next_dpid;             /* without: where the next switch is looked for */
    bool last_dpid;                 /* without: the switch answered was the last possible */
    uint64_t dpid;                  /* the switch being answered, */
    struct stored_ord *ord;         /* its selected records, sorted, */
    size_t n_ord, cap_ord, ord_i;   /* and the next one to send */
    uint64_t from_match;            /* the first pass: where its next piece starts */
    unsigned left;                  /* records this piece may still take */
    bool more;                      /* the piece stopped short of the switch's end */
    bool done;                      /* every switch answered */
    bool any;                       /* a record was written (its separator) */
    uint64_t cur_dpid;              /* stored_flows: the dpid whose list is open */
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

/* The first pass: keep the sort key of a record the query selects. */
static int gen_collect_one(const struct store_flow *f, void *arg)
{
    struct stored_gen *g = arg;
    uint64_t prio = STORED_DEFAULT_PRIORITY, cookie = 0;

    if (!g->left) {
        g->from_match = f->match_id;         /* this one starts the next piece */
        g->more = true;
        return 1;
    }
    g->left--;
    if (g->sq.state_given && !(g->sq.states & 1u << f->state))
        return 0;
    if (json_u64_top_field(f->json, f->json_len, "priority", &prio) != 1 || prio > UINT16_MAX)
        prio = STORED_DEFAULT_PRIORITY;
    if (json_u64_top_field(f->json, f->json_len, "cookie", &cookie) != 1)
        cookie = 0;
    if (!rest_cookie_query_match(&g->sq.cookies, cookie))
        return 0;
    if (g->n_ord == g->cap_ord) {
        size_t nc = g->cap_ord ? g->cap_ord * 2 : 256;
        struct stored_ord *no = realloc(g->ord, nc * sizeof(*no));
        if (!no)
            return -ENOMEM;
        g->ord = no;
        g->cap_ord = nc;
    }
    g->ord[g->n_ord++] = (struct stored_ord){
        .updated_ns = f->changed_ns, .match_id = f->match_id, .priority = (uint16_t)prio};
    return 0;
}

static int cmp_ord(const void *a, const void *b)
{
    const struct stored_ord *x = a, *y = b;

    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    if (x->updated_ns != y->updated_ns)
        return x->updated_ns < y->updated_ns ? -1 : 1;
    return x->match_id < y->match_id ? -1 : x->match_id > y->match_id;
}

/* The first pass over one switch: its selected records' keys, sorted. */
static int gen_collect(struct stored_gen *g, uint64_t dpid)
{
    g->dpid = dpid;
    g->n_ord = g->ord_i = 0;
    g->from_match = 0;
    do {
        g->left = STORED_COLLECT;
        g->more = false;
        int rc = fm_stored_foreach_from(g->fm, &dpid, dpid, g->from_match, gen_collect_one, g);
        if (rc < 0)
            return rc;
    } while (g->more);
    if (g->n_ord > 1)                        /* (ord is NULL while nothing was kept) */
        qsort(g->ord, g->n_ord, sizeof(g->ord[0]), cmp_ord);
    return 0;
}

struct first_dpid {
    uint64_t dpid;
    bool seen;
};

static int first_dpid(const struct store_flow *f, void *arg)
{
    struct first_dpid *fd = arg;

    fd->dpid = f->dpid;
    fd->seen = true;
    return 1;
}

/* The next switch to answer: 1 with its keys collected, 0 when none is left. */
static int gen_next_switch(struct stored_gen *g)
{
    uint64_t dpid;

    if (g->sq.n_dpids) {
        if (g->dpid_i == g->sq.n_dpids)
            return 0;
        dpid = g->sq.dpids[g->dpid_i++];
    } else {
        struct first_dpid fd = {0};
        if (g->last_dpid)
            return 0;
        int rc = fm_stored_foreach_from(g->fm, NULL, g->next_dpid, 0, first_dpid, &fd);
        if (rc < 0)
            return rc;
        if (!fd.seen)
            return 0;
        dpid = fd.dpid;
        g->last_dpid = dpid == UINT64_MAX;
        g->next_dpid = dpid + 1;
    }
    int rc = gen_collect(g, dpid);
    return rc < 0 ? rc : 1;
}

/* Render the next piece of the switch being answered; after its last, move
 * to the next switch; after the last switch, close the JSON. */
static void gen_fill(struct stored_gen *g)
{
    if (g->ord_i == g->n_ord) {
        int rc = gen_next_switch(g);
        if (rc < 0) {
            g->err = rc;
            return;
        }
        if (rc == 0) {
            g->done = true;
            if (!(g->one_switch ? gen_puts(g, "]}") : gen_puts(g, g->any ? "]}" : "}")))
                g->err = -ENOMEM;
        }
        return;
    }
    uint64_t ids[STORED_BATCH];
    size_t k = 0;
    while (k < STORED_BATCH && g->ord_i < g->n_ord)
        ids[k++] = g->ord[g->ord_i++].match_id;
    int rc = fm_stored_get_each(g->fm, g->dpid, ids, k, gen_one, g);
    if (rc < 0)
        g->err = rc;
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
    free(g->ord);
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
    g->fm = q->rs->src.fm;
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
    char why[200];
    if (!g->sq.bad && q->body && q->body_len)
        (void)body_cookies(&g->sq, q->body, q->body_len, why, sizeof(why));
    if (!g->sq.bad && rest_cookie_query_finish(&g->sq.cookies) < 0) {
        g->sq.bad = "cookie_range";
        g->sq.bad_in_body = g->sq.cookies_from_body;
        g->sq.why = "expected an even number of values (inclusive lo, hi pairs)";
    }
    if (g->sq.bad) {
        if (g->sq.bad_in_body && strcmp(g->sq.bad, "body") == 0)
            rest_error(r, 400, "%s", g->sq.why);
        else
            rest_error(r, 400, "%s %s: %s", g->sq.bad_in_body ? "body field" : "query argument",
                       g->sq.bad, g->sq.why);
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
    if (fm_state(q->rs->src.fm, dpid) == FM_SW_UNKNOWN) {
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
