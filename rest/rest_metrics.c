/* rest_metrics: GET /metrics in the Prometheus text format — switches, the
 * priority rings per class, TCP, the OpenFlow io/worker counters, REST
 * requests by status. Every figure comes from a published snapshot or an
 * atomic counter; nothing here touches lcore-private state. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcore.h"
#include "rest_priv.h"

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
    rest_format_dpid(s->dpid, dpid);
    put(arg, "ofcd_switch_connected{dpid=\"%s\"} %d\n", dpid, s->up ? 1 : 0);
    put(arg, "ofcd_switch_ports{dpid=\"%s\"} %u\n", dpid, s->ports.n);
    put(arg, "ofcd_switch_flows{dpid=\"%s\"} %" PRIu64 "\n", dpid, s->stats_entries[0]);
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
    static const char *const codes[REST_CODES] = {"2xx", "3xx", "400", "404", "405", "5xx"};
    put(&b, "# HELP ofcd_rest_requests_total REST requests answered, by status.\n"
            "# TYPE ofcd_rest_requests_total counter\n");
    for (unsigned i = 0; i < REST_CODES; i++)
        put(&b, "ofcd_rest_requests_total{code=\"%s\"} %" PRIu64 "\n", codes[i],
            __atomic_load_n(&rs->requests[i], __ATOMIC_RELAXED));
    if (b.oom) {
        free(b.p);
        rest_error(r, 500, "out of memory building the metrics");
        return;
    }
    r->text = b.p;
    r->text_len = b.len;
}
