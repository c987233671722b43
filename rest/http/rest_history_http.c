/*
 * rest_history_http: the history's sampler (a thread of the REST server's,
 * waking every REST_HISTORY_INTERVAL_MS) and GET /api/v1/history
 * (rest_history.h). It reads the same sources /metrics reads, never an
 * lcore's state.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <microhttpd.h>

#include "sw_view.h"
#include "fm.h"
#include "ofcd_clock.h"
#include "ofcd_log.h"
#include "rest_history.h"
#include "rest_priv.h"
#include "store.h"

/* ---- gauges -------------------------------------------------------------------- */

struct topo_read {
    int64_t links, active;
};

static void topo_counters(void *arg, const struct ofcd_counter_group *g, const char *labels,
                          const uint64_t *values)
{
    struct topo_read *t = arg;

    (void)labels;
    if (strcmp(g->name, "topology") != 0)
        return;
    for (unsigned i = 0; i < g->n; i++) {
        if (strcmp(g->defs[i].name, "links") == 0)
            t->links = (int64_t)values[i];
        else if (strcmp(g->defs[i].name, "links_active") == 0)
            t->active = (int64_t)values[i];
    }
}

static void deepest_ring(void *arg, unsigned lcore, const char *name, const struct msgq_stats *q)
{
    int64_t *deepest = arg;

    (void)lcore;
    (void)name;
    for (unsigned c = 0; c < MSGQ_CLASSES; c++)
        if ((int64_t)q->depth[c] > *deepest)
            *deepest = q->depth[c];
}

/* The gauges now into s (rates unknown), and the echo histogram into rtt. */
static void read_gauges(struct rest_server *rs, struct rest_history_sample *s, uint64_t *rtt)
{
    const struct sw_view *cs = rs->src.switches_lock(rs->src.arg);
    struct sw_view_stats st;
    struct topo_read topo = {-1, -1};

    sw_view_get_stats(cs, &st);
    rs->src.switches_unlock(rs->src.arg);
    *s = (struct rest_history_sample){
        .t_ms = (int64_t)(ofcd_clock_wall_ns() / 1000000), .switches_up = (int64_t)st.up,
        .switches_known = (int64_t)st.known, .flows_installed = -1, .flows_pending = -1,
        .flows_error = -1, .store_used = -1, .store_size = -1, .rest_rps = -1,
        .rest_p99_ms = -1, .echo_p50_ms = -1, .echo_p99_ms = -1};
    if (rtt)
        memcpy(rtt, st.echo_rtt_hist, sizeof(st.echo_rtt_hist));
    if (rs->src.counters)
        rs->src.counters(rs->src.arg, topo_counters, &topo);
    s->links_up = topo.links < 0 ? -1 : topo.active;
    s->links_down = topo.links < 0 || topo.active < 0 ? -1 : topo.links - topo.active;
    if (rs->src.fm) {
        struct fm_stats fs;
        fm_get_stats(rs->src.fm, &fs);
        s->flows_pending = (int64_t)fs.flows_by_state[0];
        s->flows_installed = (int64_t)fs.flows_by_state[1];
        s->flows_error = (int64_t)fs.flows_by_state[2];
    }
    struct store_stats ss;
    if (rs->src.store && store_get_stats(rs->src.store, &ss) == 0) {
        s->store_used = (int64_t)ss.map_used;
        s->store_size = (int64_t)ss.map_size;
    }
    if (rs->src.rings)
        rs->src.rings(rs->src.arg, deepest_ring, &s->ring_depth);
}

/* ---- the sampler ------------------------------------------------------------------ */

static void sample(struct rest_server *rs)
{
    static const unsigned lat_le_us[REST_LAT_BUCKETS - 1] = REST_LAT_LE_US_LIST;
    struct rest_history_sampler *h = &rs->hist;
    struct rest_history_sample s;
    uint64_t rtt[CTL_RTT_BUCKETS], lat[REST_LAT_BUCKETS];
    double lat_upper[REST_LAT_BUCKETS], rtt_upper[CTL_RTT_BUCKETS];
    uint64_t t = ofcd_clock_mono_ms();

    read_gauges(rs, &s, rtt);
    for (unsigned i = 0; i < REST_LAT_BUCKETS; i++) {
        lat[i] = __atomic_load_n(&rs->lat_hist[i], __ATOMIC_RELAXED);
        /* The last bucket has no bound: read as the one before's (a floor). */
        lat_upper[i] = (i < REST_LAT_BUCKETS - 1 ? lat_le_us[i] : lat_le_us[i - 1]) / 1000.0;
    }
    for (unsigned i = 0; i < CTL_RTT_BUCKETS; i++)
        rtt_upper[i] = (double)(1ull << (i + 1)) / 1000.0;
    if (h->have_prev && t > h->prev_ms) {
        uint64_t reqs = 0;
        for (unsigned i = 0; i < REST_LAT_BUCKETS; i++)
            reqs += lat[i] - h->prev_lat[i];
        s.rest_rps = (double)reqs * 1000.0 / (double)(t - h->prev_ms);
        s.rest_p99_ms = rest_history_quantile(lat, h->prev_lat, REST_LAT_BUCKETS, lat_upper, 0.99);
        s.echo_p50_ms = rest_history_quantile(rtt, h->prev_rtt, CTL_RTT_BUCKETS, rtt_upper, 0.5);
        s.echo_p99_ms = rest_history_quantile(rtt, h->prev_rtt, CTL_RTT_BUCKETS, rtt_upper, 0.99);
    }
    memcpy(h->prev_lat, lat, sizeof(lat));
    memcpy(h->prev_rtt, rtt, sizeof(rtt));
    h->prev_ms = t;
    h->have_prev = true;
    pthread_mutex_lock(&h->lock);
    rest_history_push(&h->ring, &s);
    pthread_mutex_unlock(&h->lock);
}

static void *sampler_main(void *arg)
{
    struct rest_server *rs = arg;
    struct rest_history_sampler *h = &rs->hist;
    struct timespec until;

    sample(rs);                         /* the readings the first rates start from */
    clock_gettime(CLOCK_MONOTONIC, &until);
    pthread_mutex_lock(&h->stop_lock);
    while (!h->stop) {
        until.tv_sec += REST_HISTORY_INTERVAL_MS / 1000;
        while (!h->stop && pthread_cond_timedwait(&h->stop_cv, &h->stop_lock, &until) != ETIMEDOUT)
            ;
        if (h->stop)
            break;
        pthread_mutex_unlock(&h->stop_lock);
        sample(rs);
        pthread_mutex_lock(&h->stop_lock);
    }
    pthread_mutex_unlock(&h->stop_lock);
    return NULL;
}

int rest_history_start(struct rest_server *rs)
{
    struct rest_history_sampler *h = &rs->hist;
    int rc;

    pthread_mutex_init(&h->lock, NULL);
    pthread_mutex_init(&h->stop_lock, NULL);
    ofcd_clock_cond_init(&h->stop_cv);
    h->inited = true;
    if (!rs->src.switches_lock)
        return 0;                       /* nothing to sample (a unit test's server) */
    rc = pthread_create(&h->thread, NULL, sampler_main, rs);
    if (rc != 0) {
        LOG_ERR("rest", "cannot start the history's sampler: %s", strerror(rc));
        return -rc;
    }
    h->running = true;
    return 0;
}

void rest_history_stop(struct rest_server *rs)
{
    struct rest_history_sampler *h = &rs->hist;

    if (!h->inited)
        return;
    if (h->running) {
        pthread_mutex_lock(&h->stop_lock);
        h->stop = true;
        pthread_cond_signal(&h->stop_cv);
        pthread_mutex_unlock(&h->stop_lock);
        pthread_join(h->thread, NULL);
        h->running = false;
    }
    pthread_cond_destroy(&h->stop_cv);
    pthread_mutex_destroy(&h->stop_lock);
    pthread_mutex_destroy(&h->lock);
    h->inited = false;
}

/* ---- GET /api/v1/history ------------------------------------------------------ */

void rest_get_history(struct rest_req *q, struct rest_reply *r)
{
    struct rest_history_sampler *h = &q->rs->hist;
    const char *since_arg = MHD_lookup_connection_value(q->conn, MHD_GET_ARGUMENT_KIND, "since");
    int64_t since = -1;
    struct rest_history_sample now;

    if (since_arg) {
        char *end;
        errno = 0;
        long long v = strtoll(since_arg, &end, 10);
        if (errno || end == since_arg || *end || v < 0) {
            rest_error(r, 400, "since: not a unix time in milliseconds: %s", since_arg);
            return;
        }
        since = v;
    }
    struct rest_history_sample *v = malloc(sizeof(*v) * REST_HISTORY_SAMPLES);
    if (!v) {
        rest_error(r, 500, "out of memory");
        return;
    }
    pthread_mutex_lock(&h->lock);
    unsigned n = rest_history_since(&h->ring, since, v);
    pthread_mutex_unlock(&h->lock);
    if (q->rs->src.switches_lock)
        read_gauges(q->rs, &now, NULL);
    json_t *o = rest_history_json(v, n, q->rs->src.switches_lock ? &now : NULL);
    free(v);
    if (!o) {
        rest_error(r, 500, "out of memory");
        return;
    }
    json_decref(r->json);
    r->json = o;
    r->status = 200;
}
