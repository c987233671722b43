/* rest_metrics: GET /metrics in the Prometheus text format — switches, the
 * priority rings per class, TCP, the OpenFlow io/worker counters, REST
 * requests by status. Every figure comes from a published snapshot or an
 * atomic counter; nothing here touches lcore-private state. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flowmgr.h"
#include "lcore.h"
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

static void ring(struct mbuf *b, unsigned lcore, const char *name, const struct msgq_stats *q)
{
    for (unsigned c = 0; c < MSGQ_CLASSES; c++) {
        const char *l = "lcore=\"%u\",ring=\"%s\",class=\"P%u\"";
        char lab[96];
        snprintf(lab, sizeof(lab), l, lcore, name, c);
        put(b, "ofcd_ring_depth{%s} %u\n", lab, q->depth[c]);
        put(b, "ofcd_ring_depth_max{%s} %u\n", lab, q->depth_max[c]);
        put(b, "ofcd_ring_enqueued_total{%s} %" PRIu64 "\n", lab, q->enqueued[c]);
        put(b, "ofcd_ring_enqueue_failed_total{%s} %" PRIu64 "\n", lab, q->enqueue_failed[c]);
    }
}

static void switch_line(const struct ctl_switch *s, void *arg)
{
    char dpid[24];
    dpid_format(s->dpid, dpid);
    put(arg, "ofcd_switch_connected{dpid=\"%s\"} %d\n", dpid, s->up ? 1 : 0);
    put(arg, "ofcd_switch_ports{dpid=\"%s\"} %u\n", dpid, s->ports.n);
    put(arg, "ofcd_switch_flows{dpid=\"%s\"} %" PRIu64 "\n", dpid, s->stats_entries[0]);
    if (s->echo_samples)
        put(arg, "ofcd_switch_echo_rtt_seconds{dpid=\"%s\"} %.6f\n", dpid,
            s->echo_ewma_us / 1e6);
}

void rest_get_metrics(struct rest_req *q, struct rest_reply *r)
{
    struct rest_server *rs = q->rs;
    struct app_ctx *app = rs->app;
    struct mbuf b = {.p = malloc(8192), .cap = 8192};

    if (!b.p) {
        rest_error(r, 500, "out of memory");
        return;
    }
    b.p[0] = '\0';
    struct ctl_switches_stats cs;
    pthread_mutex_lock(&app->ctl_lock);
    ctl_switches_get_stats(app->ctl, &cs);
    put(&b, "# HELP ofcd_switches_up Switches with an established OpenFlow channel.\n"
            "# TYPE ofcd_switches_up gauge\nofcd_switches_up %u\n", cs.up);
    put(&b, "# TYPE ofcd_switches_known gauge\nofcd_switches_known %u\n", cs.known);
    put(&b, "# HELP ofcd_switch_connected 1 while the switch's channel is established.\n"
            "# TYPE ofcd_switch_connected gauge\n");
    ctl_switches_foreach(app->ctl, switch_line, &b);
    pthread_mutex_unlock(&app->ctl_lock);
    /* Bucket b holds [2^b, 2^(b+1)) µs: its upper bound is the "le". */
    put(&b, "# HELP ofcd_echo_rtt_seconds Echo round trips ofcd measured, all switches.\n"
            "# TYPE ofcd_echo_rtt_seconds histogram\n");
    uint64_t cum = 0, n = 0;
    for (unsigned i = 0; i < CTL_RTT_BUCKETS; i++)
        n += cs.echo_rtt_hist[i];
    for (unsigned i = 0; i < CTL_RTT_BUCKETS; i++) {
        cum += cs.echo_rtt_hist[i];
        put(&b, "ofcd_echo_rtt_seconds_bucket{le=\"%.6f\"} %" PRIu64 "\n",
            (double)(1ull << (i + 1)) / 1e6, cum);
    }
    put(&b, "ofcd_echo_rtt_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n", n);
    put(&b, "ofcd_echo_rtt_seconds_sum %.6f\nofcd_echo_rtt_seconds_count %" PRIu64 "\n",
        cs.echo_rtt_sum_us / 1e6, n);

    put(&b, "# HELP ofcd_ring_depth Messages waiting in a priority ring class.\n"
            "# TYPE ofcd_ring_depth gauge\n");
    for (unsigned id = 0; id < RTE_MAX_LCORE; id++) {
        struct lcore_ctx *lc = app->lcores[id];
        struct lcore_snapshot s;
        if (!lc)
            continue;
        lcore_read_snapshot(lc, &s);
        if (lc->role_worker)
            ring(&b, id, "msg_in", &s.msg_in);
        if (lc->role_io) {
            ring(&b, id, "msg_out", &s.msg_out);
            put(&b, "ofcd_tcp_connections{lcore=\"%u\"} %u\n", id, s.tcp_conns);
            put(&b, "ofcd_tcp_retransmits_total{lcore=\"%u\"} %" PRIu64 "\n", id,
                s.tcp.retransmits);
            put(&b, "ofcd_tcp_segments_in_total{lcore=\"%u\"} %" PRIu64 "\n", id, s.tcp.segs_in);
            put(&b, "ofcd_tcp_segments_out_total{lcore=\"%u\"} %" PRIu64 "\n", id,
                s.tcp.segs_out);
            put(&b, "ofcd_openflow_echo_inline_total{lcore=\"%u\"} %" PRIu64 "\n", id,
                s.of_io.echo_inline);
        }
        if (lc->role_worker) {
            put(&b, "ofcd_openflow_messages_total{lcore=\"%u\"} %" PRIu64 "\n", id,
                s.of_worker.msgs);
            put(&b, "ofcd_openflow_malformed_total{lcore=\"%u\"} %" PRIu64 "\n", id,
                s.of_worker.malformed);
            put(&b, "ofcd_openflow_echo_timeouts_total{lcore=\"%u\"} %" PRIu64 "\n", id,
                s.of_worker.echo_timeouts);
        }
        put(&b, "ofcd_lcore_loops_total{lcore=\"%u\"} %" PRIu64 "\n", id, s.lcore.loops);
    }
    static const unsigned statuses[REST_STATUSES] = REST_STATUS_LIST;
    put(&b, "# HELP ofcd_rest_requests_total REST requests answered, by status.\n"
            "# TYPE ofcd_rest_requests_total counter\n");
    for (unsigned i = 0; i < REST_STATUSES; i++)
        put(&b, "ofcd_rest_requests_total{code=\"%u\"} %" PRIu64 "\n", statuses[i],
            __atomic_load_n(&rs->by_status[i], __ATOMIC_RELAXED));
    for (unsigned i = 0; i < 6; i++)
        put(&b, "ofcd_rest_requests_total{code=\"%uxx_other\"} %" PRIu64 "\n", i,
            __atomic_load_n(&rs->other_status[i], __ATOMIC_RELAXED));
    static const char *const le[REST_LAT_BUCKETS] = {"0.001", "0.0025", "0.005", "0.01",
                                                     "0.025", "0.05", "0.1", "0.25", "1",
                                                     "+Inf"};
    put(&b, "# HELP ofcd_rest_request_seconds Time from a request's headers to its answer.\n"
            "# TYPE ofcd_rest_request_seconds histogram\n");
    cum = 0;
    for (unsigned i = 0; i < REST_LAT_BUCKETS; i++) {
        cum += __atomic_load_n(&rs->lat_hist[i], __ATOMIC_RELAXED);
        put(&b, "ofcd_rest_request_seconds_bucket{le=\"%s\"} %" PRIu64 "\n", le[i], cum);
    }
    put(&b, "ofcd_rest_request_seconds_sum %.6f\n",
        (double)__atomic_load_n(&rs->lat_sum_us, __ATOMIC_RELAXED) / 1e6);
    put(&b, "ofcd_rest_request_seconds_count %" PRIu64 "\n",
        __atomic_load_n(&rs->lat_count, __ATOMIC_RELAXED));
    if (rs->fm) {
        struct flowmgr_stats fs;
        flowmgr_get_stats(rs->fm, &fs);
        static const char *const states[3] = {"pending", "installed", "error"};
        put(&b, "# HELP ofcd_flows Stored flows by state.\n# TYPE ofcd_flows gauge\n");
        for (unsigned i = 0; i < 3; i++)
            put(&b, "ofcd_flows{state=\"%s\"} %" PRIu64 "\n", states[i], fs.flows_by_state[i]);
        put(&b, "# TYPE ofcd_flow_manager_total counter\n");
        const struct {
            const char *what;
            uint64_t v;
        } fc[] = {
            {"flow_mods_sent", fs.flow_mods_sent}, {"barriers_sent", fs.barriers_sent},
            {"barrier_replies", fs.barrier_replies}, {"installed", fs.installed}, {"confirmed", fs.confirmed},
            {"errors", fs.errors}, {"ring_full", fs.ring_full}, {"paced", fs.paced},
            {"dropped_on_down", fs.dropped_on_down}, {"checks", fs.checks},
            {"alien_deleted", fs.alien_deleted}, {"missing_reinstalled", fs.missing_reinstalled},
            {"changed_reinstalled", fs.changed_reinstalled},
            {"pending_confirmed", fs.pending_confirmed},
            {"state_update_failed", fs.state_update_failed},
        };
        for (unsigned i = 0; i < sizeof(fc) / sizeof(fc[0]); i++)
            put(&b, "ofcd_flow_manager_total{what=\"%s\"} %" PRIu64 "\n", fc[i].what, fc[i].v);
        put(&b, "# TYPE ofcd_flow_manager_queued gauge\nofcd_flow_manager_queued %" PRIu64 "\n",
            fs.queued);
    }
    if (rs->store) {
        struct store_stats ss;
        if (store_get_stats(rs->store, &ss) == 0) {
            put(&b, "# TYPE ofcd_store_commits_total counter\nofcd_store_commits_total %" PRIu64
                "\n", ss.commits);
            put(&b, "# TYPE ofcd_store_failed_commits_total counter\n"
                "ofcd_store_failed_commits_total %" PRIu64 "\n", ss.failed_commits);
            put(&b, "# TYPE ofcd_store_max_batch gauge\nofcd_store_max_batch %" PRIu64 "\n",
                ss.max_batch);
            put(&b, "# TYPE ofcd_store_map_used_bytes gauge\nofcd_store_map_used_bytes %" PRIu64
                "\n", ss.map_used);
        }
    }
    if (b.oom) {
        free(b.p);
        rest_error(r, 500, "out of memory building the metrics");
        return;
    }
    r->text = b.p;
    r->text_len = b.len;
}
