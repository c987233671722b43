/* rest_metrics: GET /metrics in the Prometheus text format. Every counter
 * of the registry (ofcd_counters.h) as families grouped by name — a group's
 * counters as ofcd_<group>_total{...,what="<counter>"}, each gauge as
 * ofcd_<group>_<gauge> — plus what has a shape of its own: per-switch lines,
 * the echo RTT and REST latency histograms, the priority rings per class,
 * REST requests by status, a durable flow change's time by stage and flows
 * by state. Every figure comes from a published snapshot or an atomic
 * counter through the sources; a source not given (a server for the flow
 * paths alone, as the REST tests run it) leaves its families out. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fm.h"
#include "sw_view.h"
#include "rest_priv.h"
#include "store.h"

struct mbuf {
    char *p;
    size_t len, cap;
    bool oom;
};

static void put(struct mbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct mbuf *b, const char *fmt, ...)
{
    va_list ap;

    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0 || b->oom)
            return;
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap * 2 + (size_t)n;
        char *np = realloc(b->p, cap);
        if (!np) {
            b->oom = true;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
}

/* ---- registry families -------------------------------------------------------- */

struct set {
    const struct ofcd_counter_group *g;
    char labels[96];
    uint64_t *values;
};

struct sets {
    struct set *v;
    size_t n, cap;
    bool oom;
};

static void collect(void *arg, const struct ofcd_counter_group *g, const char *labels,
                    const uint64_t *values)
{
    struct sets *ss = arg;

    if (ss->n == ss->cap) {
        size_t cap = ss->cap ? ss->cap * 2 : 64;
        struct set *nv = realloc(ss->v, cap * sizeof(*nv));
        if (!nv) {
            ss->oom = true;
            return;
        }
        ss->v = nv;
        ss->cap = cap;
    }
    struct set *s = &ss->v[ss->n];
    s->values = malloc(g->n * sizeof(uint64_t) + 1);
    if (!s->values) {
        ss->oom = true;
        return;
    }
    memcpy(s->values, values, g->n * sizeof(uint64_t));
    s->g = g;
    snprintf(s->labels, sizeof(s->labels), "%s", labels);
    ss->n++;
}

static void sample(struct mbuf *b, const char *family, const char *labels, const char *what,
                   uint64_t v)
{
    const char *sep = labels[0] && what ? "," : "";
    if (what)
        put(b, "%s{%s%swhat=\"%s\"} %" PRIu64 "\n", family, labels, sep, what, v);
    else if (labels[0])
        put(b, "%s{%s} %" PRIu64 "\n", family, labels, v);
    else
        put(b, "%s %" PRIu64 "\n", family, v);
}

/* Every set of group g (they follow first), one family at a time. */
static void group_families(struct mbuf *b, const struct sets *ss, size_t first)
{
    const struct ofcd_counter_group *g = ss->v[first].g;
    char family[128];
    bool any_counter = false;

    for (unsigned d = 0; d < g->n; d++)
        any_counter |= g->defs[d].kind == OFCD_COUNTER;
    if (any_counter) {
        snprintf(family, sizeof(family), "ofcd_%s_total", g->name);
        put(b, "# HELP %s Counters of %s, by what.\n# TYPE %s counter\n", family, g->name,
            family);
        for (size_t i = first; i < ss->n; i++)
            for (unsigned d = 0; ss->v[i].g == g && d < g->n; d++)
                if (g->defs[d].kind == OFCD_COUNTER)
                    sample(b, family, ss->v[i].labels, g->defs[d].name, ss->v[i].values[d]);
    }
    for (unsigned d = 0; d < g->n; d++) {
        if (g->defs[d].kind != OFCD_GAUGE)
            continue;
        snprintf(family, sizeof(family), "ofcd_%s_%s", g->name, g->defs[d].name);
        put(b, "# HELP %s %s.\n# TYPE %s gauge\n", family, g->defs[d].help, family);
        for (size_t i = first; i < ss->n; i++)
            if (ss->v[i].g == g)
                sample(b, family, ss->v[i].labels, NULL, ss->v[i].values[d]);
    }
}

static void registry_families(struct rest_server *rs, struct mbuf *b)
{
    struct sets ss = {0};

    if (!rs->src.counters)
        return;
    rs->src.counters(rs->src.arg, collect, &ss);
    if (ss.oom)
        b->oom = true;
    for (size_t i = 0; i < ss.n; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = ss.v[j].g == ss.v[i].g;
        if (!seen)
            group_families(b, &ss, i);
    }
    for (size_t i = 0; i < ss.n; i++)
        free(ss.v[i].values);
    free(ss.v);
}

/* ---- families of their own ------------------------------------------------------ */

/* What the per-switch families show of one switch, copied out of the view
 * under its lock (a few words a switch, nothing allocated but the array)
 * and printed after the lock is let go. */
struct switch_row {
    uint64_t dpid;
    bool up;
    uint32_t n_ports, echo_ewma_us;
    uint64_t flows, echo_samples;
};

struct switch_rows {
    struct switch_row *v;
    size_t n, cap;
    bool oom;
};

static void copy_row(const struct ctl_switch *s, void *arg)
{
    struct switch_rows *rr = arg;

    if (rr->n == rr->cap) {
        size_t cap = rr->cap ? 2 * rr->cap : 256;
        struct switch_row *v = realloc(rr->v, cap * sizeof(*v));
        if (!v) {
            rr->oom = true;
            return;
        }
        rr->v = v;
        rr->cap = cap;
    }
    rr->v[rr->n++] = (struct switch_row){s->dpid, s->up, s->ports.n, s->echo_ewma_us,
                                         s->stats_entries[0], s->echo_samples};
}

/* One line per switch of one family; a switch without the value (an RTT
 * never measured) has no line. */
struct switch_family {
    const char *name, *help;
    int decimals;                       /* of the value as printed */
    bool (*value)(const struct switch_row *s, double *v);
};

static bool sw_connected(const struct switch_row *s, double *v) { *v = s->up; return true; }
static bool sw_ports(const struct switch_row *s, double *v) { *v = s->n_ports; return true; }
static bool sw_flows(const struct switch_row *s, double *v)
{
    *v = (double)s->flows;
    return true;
}
static bool sw_rtt(const struct switch_row *s, double *v)
{
    *v = s->echo_ewma_us / 1e6;
    return s->echo_samples != 0;
}

static const struct switch_family switch_fams[] = {
    {"ofcd_switch_connected", "1 while the switch's channel is established.", 0, sw_connected},
    {"ofcd_switch_ports", "Ports the switch reported.", 0, sw_ports},
    {"ofcd_switch_flows", "Flow entries in the switch's last flow statistics.", 0, sw_flows},
    {"ofcd_switch_echo_rtt_seconds", "The switch's echo RTT (moving average).", 6, sw_rtt},
};

static void switch_families(struct rest_server *rs, struct mbuf *b)
{
    struct sw_view_stats st;
    struct switch_rows rr = {0};

    if (!rs->src.switches_lock)
        return;
    const struct sw_view *cs = rs->src.switches_lock(rs->src.arg);

    sw_view_get_stats(cs, &st);
    sw_view_foreach(cs, copy_row, &rr);
    rs->src.switches_unlock(rs->src.arg);
    b->oom |= rr.oom;
    for (size_t i = 0; i < sizeof(switch_fams) / sizeof(switch_fams[0]); i++) {
        const struct switch_family *f = &switch_fams[i];
        put(b, "# HELP %s %s\n# TYPE %s gauge\n", f->name, f->help, f->name);
        for (size_t k = 0; k < rr.n; k++) {
            char dpid[24];
            double v;
            if (!f->value(&rr.v[k], &v))
                continue;
            dpid_format(rr.v[k].dpid, dpid);
            put(b, "%s{dpid=\"%s\"} %.*f\n", f->name, dpid, f->decimals, v);
        }
    }
    free(rr.v);

    /* Bucket i holds [2^i, 2^(i+1)) µs: its upper bound is the "le". */
    put(b, "# HELP ofcd_echo_rtt_seconds Echo round trips ofcd measured, all switches.\n"
           "# TYPE ofcd_echo_rtt_seconds histogram\n");
    uint64_t cum = 0, n = 0;
    for (unsigned i = 0; i < CTL_RTT_BUCKETS; i++)
        n += st.echo_rtt_hist[i];
    for (unsigned i = 0; i < CTL_RTT_BUCKETS; i++) {
        cum += st.echo_rtt_hist[i];
        put(b, "ofcd_echo_rtt_seconds_bucket{le=\"%.6f\"} %" PRIu64 "\n",
            (double)(1ull << (i + 1)) / 1e6, cum);
    }
    put(b, "ofcd_echo_rtt_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n", n);
    put(b, "ofcd_echo_rtt_seconds_sum %.6f\nofcd_echo_rtt_seconds_count %" PRIu64 "\n",
        st.echo_rtt_sum_us / 1e6, n);
}

/* The rings' four families, each whole: collected first, then printed. */
#define RING_MAX 260
struct ring_row {
    unsigned lcore;
    const char *name;
    struct msgq_stats q;
};
struct rings {
    struct ring_row v[RING_MAX];
    unsigned n;
};

static void collect_ring(void *arg, unsigned lcore, const char *name, const struct msgq_stats *q)
{
    struct rings *rr = arg;
    if (rr->n < RING_MAX)
        rr->v[rr->n++] = (struct ring_row){lcore, name, *q};
}

static uint64_t ring_depth(const struct msgq_stats *q, unsigned c) { return q->depth[c]; }
static uint64_t ring_depth_max(const struct msgq_stats *q, unsigned c) { return q->depth_max[c]; }
static uint64_t ring_enq(const struct msgq_stats *q, unsigned c) { return q->enqueued[c]; }
static uint64_t ring_fail(const struct msgq_stats *q, unsigned c) { return q->enqueue_failed[c]; }

static void ring_families(struct rest_server *rs, struct mbuf *b)
{
    static const struct {
        const char *name, *type, *help;
        uint64_t (*get)(const struct msgq_stats *q, unsigned c);
    } fam[] = {
        {"ofcd_ring_depth", "gauge", "Messages waiting in a priority ring class.", ring_depth},
        {"ofcd_ring_depth_max", "gauge", "Most messages a ring class held.", ring_depth_max},
        {"ofcd_ring_enqueued_total", "counter", "Messages put in a ring class.", ring_enq},
        {"ofcd_ring_enqueue_failed_total", "counter", "Enqueues refused: class full.",
         ring_fail},
    };
    if (!rs->src.rings)
        return;
    struct rings *rr = calloc(1, sizeof(*rr));

    if (!rr) {
        b->oom = true;
        return;
    }
    rs->src.rings(rs->src.arg, collect_ring, rr);
    for (size_t f = 0; f < sizeof(fam) / sizeof(fam[0]); f++) {
        put(b, "# HELP %s %s\n# TYPE %s %s\n", fam[f].name, fam[f].help, fam[f].name,
            fam[f].type);
        for (unsigned i = 0; i < rr->n; i++)
            for (unsigned c = 0; c < MSGQ_CLASSES; c++)
                put(b, "%s{lcore=\"%u\",ring=\"%s\",class=\"P%u\"} %" PRIu64 "\n",
                    fam[f].name, rr->v[i].lcore, rr->v[i].name, c, fam[f].get(&rr->v[i].q, c));
    }
    free(rr);
}

/* A durable flow change's answer, stage by stage (rest_priv.h). */
static void stage_family(struct rest_server *rs, struct mbuf *b)
{
    static const char *const names[REST_STAGES] = REST_STAGE_NAMES;
    static const unsigned le_us[REST_STAGE_BUCKETS - 1] = REST_STAGE_LE_US_LIST;

    put(b, "# HELP ofcd_rest_change_stage_seconds A flow change answered once durable, stage "
           "by stage: receive (headers to body), check (parse, checks, admission), wait "
           "(queued until its commit began: the group-commit window, a commit before it), "
           "commit (sync included), apply (to the flow manager), resume (woken until "
           "answered).\n# TYPE ofcd_rest_change_stage_seconds histogram\n");
    for (unsigned s = 0; s < REST_STAGES; s++) {
        uint64_t cum = 0;
        for (unsigned i = 0; i < REST_STAGE_BUCKETS; i++) {
            cum += __atomic_load_n(&rs->stage_hist[s][i], __ATOMIC_RELAXED);
            if (i < REST_STAGE_BUCKETS - 1)
                put(b, "ofcd_rest_change_stage_seconds_bucket{stage=\"%s\",le=\"%g\"} %" PRIu64
                    "\n", names[s], le_us[i] / 1e6, cum);
            else
                put(b, "ofcd_rest_change_stage_seconds_bucket{stage=\"%s\",le=\"+Inf\"} %"
                    PRIu64 "\n", names[s], cum);
        }
        put(b, "ofcd_rest_change_stage_seconds_sum{stage=\"%s\"} %.6f\n", names[s],
            (double)__atomic_load_n(&rs->stage_sum_us[s], __ATOMIC_RELAXED) / 1e6);
        put(b, "ofcd_rest_change_stage_seconds_count{stage=\"%s\"} %" PRIu64 "\n", names[s],
            cum);
    }
}

static void rest_families(struct rest_server *rs, struct mbuf *b)
{
    static const unsigned statuses[REST_STATUSES] = REST_STATUS_LIST;
    static const unsigned le_us[REST_LAT_BUCKETS - 1] = REST_LAT_LE_US_LIST;

    put(b, "# HELP ofcd_rest_requests_total REST requests answered, by status.\n"
           "# TYPE ofcd_rest_requests_total counter\n");
    for (unsigned i = 0; i < REST_STATUSES; i++)
        put(b, "ofcd_rest_requests_total{code=\"%u\"} %" PRIu64 "\n", statuses[i],
            __atomic_load_n(&rs->by_status[i], __ATOMIC_RELAXED));
    for (unsigned i = 0; i < 6; i++)
        put(b, "ofcd_rest_requests_total{code=\"%uxx_other\"} %" PRIu64 "\n", i,
            __atomic_load_n(&rs->other_status[i], __ATOMIC_RELAXED));
    put(b, "# HELP ofcd_rest_request_seconds Time from a request's headers to its answer.\n"
           "# TYPE ofcd_rest_request_seconds histogram\n");
    uint64_t cum = 0;
    for (unsigned i = 0; i < REST_LAT_BUCKETS; i++) {
        cum += __atomic_load_n(&rs->lat_hist[i], __ATOMIC_RELAXED);
        if (i < REST_LAT_BUCKETS - 1)
            put(b, "ofcd_rest_request_seconds_bucket{le=\"%g\"} %" PRIu64 "\n",
                le_us[i] / 1e6, cum);
        else
            put(b, "ofcd_rest_request_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n", cum);
    }
    put(b, "ofcd_rest_request_seconds_sum %.6f\n",
        (double)__atomic_load_n(&rs->lat_sum_us, __ATOMIC_RELAXED) / 1e6);
    put(b, "ofcd_rest_request_seconds_count %" PRIu64 "\n",
        __atomic_load_n(&rs->lat_count, __ATOMIC_RELAXED));
    stage_family(rs, b);
}

static void flow_families(struct rest_server *rs, struct mbuf *b)
{
    static const char *const states[3] = {"pending", "installed", "error"};
    struct fm_stats fs;

    if (!rs->src.fm)
        return;
    fm_get_stats(rs->src.fm, &fs);
    put(b, "# HELP ofcd_flows Stored flows by state.\n# TYPE ofcd_flows gauge\n");
    for (unsigned i = 0; i < 3; i++)
        put(b, "ofcd_flows{state=\"%s\"} %" PRIu64 "\n", states[i], fs.flows_by_state[i]);
}

void rest_get_metrics(struct rest_req *q, struct rest_reply *r)
{
    struct rest_server *rs = q->rs;
    struct mbuf b = {.p = malloc(8192), .cap = 8192};

    if (!b.p) {
        rest_error(r, 500, "out of memory");
        return;
    }
    b.p[0] = '\0';
    switch_families(rs, &b);
    ring_families(rs, &b);
    rest_families(rs, &b);
    flow_families(rs, &b);
    registry_families(rs, &b);
    if (b.oom) {
        free(b.p);
        rest_error(r, 500, "out of memory building the metrics");
        return;
    }
    r->text = b.p;
    r->text_len = b.len;
}
