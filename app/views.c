/*
 * views: what threads other than an lcore read of the appliance — every
 * counter set in one walk (the stats log, ofcdctl counters/show and
 * /metrics use it), the text of a ring as the log and ofcdctl print it,
 * and the sources the REST face is given. Nothing here touches
 * lcore-private state: lcores are read through their published counters,
 * rings through their atomic statistics, the switch view under ctl_lock.
 */
#include "app.h"

#include <stdio.h>

#include <jansson.h>

#include "capture.h"
#include "fm.h"
#include "ofcd_ctl_server.h"
#include "ofcd_pcapng.h"
#include "port.h"
#include "store.h"

void app_visit_counters(struct app_ctx *app, ofcd_counter_fn fn, void *arg)
{
    struct port_stats ps;
    struct qmsg_pool_stats qs;
    struct sw_view_stats cs;

    if (app->port && port_get_stats(app->port, &ps) == 0)
        fn(arg, &port_counters, "", OFCD_COUNTER_VALUES(&ps));
    const struct {
        struct qmsg_pool *pool;
        const char *label;
    } pools[] = {{app->qpool, "pool=\"switches\""}, {app->cpool, "pool=\"control\""},
                 {app->epool, "pool=\"events\""}};
    for (size_t i = 0; i < sizeof(pools) / sizeof(pools[0]); i++) {
        if (!pools[i].pool)
            continue;
        qmsg_pool_get_stats(pools[i].pool, &qs);
        fn(arg, &qmsg_pool_counters, pools[i].label, OFCD_COUNTER_VALUES(&qs));
    }
    if (app->ctl) {
        pthread_mutex_lock(&app->ctl_lock);
        sw_view_get_stats(app->ctl, &cs);
        pthread_mutex_unlock(&app->ctl_lock);
        fn(arg, &sw_view_counters, "", OFCD_COUNTER_VALUES(&cs));
    }
    if (app->fm) {
        struct fm_stats fs;
        fm_get_stats(app->fm, &fs);
        fn(arg, &fm_counters, "", OFCD_COUNTER_VALUES(&fs));
    }
    if (app->store) {
        struct store_stats ss;
        if (store_get_stats(app->store, &ss) == 0)
            fn(arg, &store_counters, "", OFCD_COUNTER_VALUES(&ss));
    }
    if (app->stream) {
        struct rest_events_stats es;
        rest_events_get_stats(app->stream, &es);
        fn(arg, &rest_events_counters, "", OFCD_COUNTER_VALUES(&es));
    }
    struct rest_auth_stats ras;
    rest_auth_stats_read(&app->rest_auth_st, &ras);
    fn(arg, &rest_auth_counters, "", OFCD_COUNTER_VALUES(&ras));
    if (app->cmd_srv) {
        struct ofcd_ctl_stats cst;
        ofcd_ctl_server_get_stats(app->cmd_srv, &cst);
        fn(arg, &ofcd_ctl_counters, "", OFCD_COUNTER_VALUES(&cst));
    }
    for (unsigned i = 0; i < app->n_inst; i++)
        if (app->inst[i].cls->counters)
            app->inst[i].cls->counters(app->inst[i].self, fn, arg);
    for (unsigned id = 0; id < RTE_MAX_LCORE; id++)
        if (app->lcores[id].lc)
            lcore_read_counters(app->lcores[id].lc, fn, arg);
}

size_t app_format_ring(char *line, size_t n, const char *who, unsigned id, const char *name,
                       const struct msgq_stats *q)
{
    int len = snprintf(line, n, "%s %u %s: depth P0..P3 %u/%u/%u/%u (max %u/%u/%u/%u), "
                       "enqueued %lu/%lu/%lu/%lu, failed %lu/%lu/%lu/%lu, starvation serves "
                       "%lu/%lu/%lu", who, id, name,
                       q->depth[0], q->depth[1], q->depth[2], q->depth[3], q->depth_max[0],
                       q->depth_max[1], q->depth_max[2], q->depth_max[3],
                       (unsigned long)q->enqueued[0], (unsigned long)q->enqueued[1],
                       (unsigned long)q->enqueued[2], (unsigned long)q->enqueued[3],
                       (unsigned long)q->enqueue_failed[0], (unsigned long)q->enqueue_failed[1],
                       (unsigned long)q->enqueue_failed[2], (unsigned long)q->enqueue_failed[3],
                       (unsigned long)q->starved_serves[1], (unsigned long)q->starved_serves[2],
                       (unsigned long)q->starved_serves[3]);
    return len < 0 ? 0 : (size_t)len < n ? (size_t)len : n - 1;
}

/* ---- REST sources ----------------------------------------------------------------- */

const struct sw_view *app_view_lock(void *arg)
{
    struct app_ctx *app = arg;

    pthread_mutex_lock(&app->ctl_lock);
    return app->ctl;
}

void app_view_unlock(void *arg)
{
    struct app_ctx *app = arg;

    pthread_mutex_unlock(&app->ctl_lock);
}

static bool backlog(struct msgq *q)
{
    struct msgq_stats st;

    if (!q)
        return false;
    msgq_get_stats(q, &st);
    return st.depth[0] || st.depth[1] || st.depth[2] || st.depth[3];
}

static unsigned src_lcores(void *arg, struct rest_lcore *out, unsigned max)
{
    struct app_ctx *app = arg;
    unsigned n = 0;

    for (unsigned id = 0; id < RTE_MAX_LCORE && n < max; id++) {
        const struct app_lcore *al = &app->lcores[id];
        if (!al->lc)
            continue;
        out[n++] = (struct rest_lcore){
            .id = id,
            .io = al->io,
            .worker = al->worker,
            .loops = lcore_published_loops(al->lc),
            .rings_backlog = (al->ofw && backlog(of_worker_msg_in(al->ofw))) ||
                             (al->ofio && backlog(of_io_msg_out(al->ofio))),
        };
    }
    return n;
}

void app_visit_rings(struct app_ctx *app, rest_ring_fn fn, void *fn_arg)
{
    struct msgq_stats st;

    for (unsigned id = 0; id < RTE_MAX_LCORE; id++) {
        const struct app_lcore *al = &app->lcores[id];
        if (al->ofw) {
            msgq_get_stats(of_worker_msg_in(al->ofw), &st);
            fn(fn_arg, id, "msg_in", &st);
        }
        if (al->ofio) {
            msgq_get_stats(of_io_msg_out(al->ofio), &st);
            fn(fn_arg, id, "msg_out", &st);
        }
    }
}

static void src_rings(void *arg, rest_ring_fn fn, void *fn_arg)
{
    app_visit_rings(arg, fn, fn_arg);
}

static void src_counters(void *arg, ofcd_counter_fn fn, void *fn_arg)
{
    app_visit_counters(arg, fn, fn_arg);
}

static bool src_writes_refused(void *arg, char *why, size_t len)
{
    struct app_ctx *app = arg;

    for (unsigned i = 0; i < app->n_inst; i++) {
        const struct app_inst *a = &app->inst[i];
        if (a->cls->refuses_writes && a->cls->refuses_writes(a->self, why, len))
            return true;
    }
    return false;
}

static void src_health_more(void *arg, json_t *obj, bool *ok)
{
    struct app_ctx *app = arg;
    char text[2048];

    for (unsigned i = 0; i < app->n_inst; i++) {
        const struct app_inst *a = &app->inst[i];
        if (!a->cls->health)
            continue;
        text[0] = '\0';
        a->cls->health(a->self, text, sizeof(text), ok);
        json_t *part = json_loads(text, 0, NULL);
        json_object_set_new(obj, a->cls->name, part ? part : json_string(text));
    }
}

/* GET /api/v1/switches/{dpid}/capture, on a REST thread. */
static int rest_capture(void *arg, uint64_t dpid, uint32_t frozen, uint8_t **out, size_t *len,
                        char *note)
{
    struct ofcd_pcapng w;

    if (frozen)
        return capture_frozen_copy(arg, dpid, frozen, out, len, note);
    int rc = capture_wait(arg, dpid, &w, note);

    if (rc < 0) {
        ofcd_pcapng_free(&w);
        return rc;
    }
    *out = w.p;                     /* the answer's now (malloc'd) */
    *len = w.len;
    return 0;
}

static json_t *rest_captures(void *arg, uint64_t dpid)
{
    return capture_frozen_json(arg, dpid);
}

void app_rest_sources(struct app_ctx *app, struct rest_sources *out)
{
    *out = (struct rest_sources){
        .arg = app,
        .fm = app->fm,
        .store = app->store,
        .switches_lock = app_view_lock,
        .switches_unlock = app_view_unlock,
        .lcores = src_lcores,
        .rings = src_rings,
        .counters = src_counters,
        .events = app->stream,
        .auth_stats = &app->rest_auth_st,
        .writes_refused = src_writes_refused,
        .health_more = src_health_more,
        .capture = app->cfg.of_recorder_kb ? rest_capture : NULL,
        .captures = app->cfg.of_recorder_kb ? rest_captures : NULL,
    };
    for (unsigned i = 0; i < app->n_inst; i++)
        if (app->inst[i].cls->routes)
            out->n_ext += app->inst[i].cls->routes(app->inst[i].self, out->ext + out->n_ext,
                                                   REST_EXT_MAX - out->n_ext);
}
