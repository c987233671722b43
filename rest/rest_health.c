/* rest_health: GET /api/v1/health — is every lcore still looping, is any
 * ring filling while its consumer stands still. An lcore is alive when its
 * loop counter moved since the previous look, or the previous look was less
 * than REST_STALL_MS ago (the counters are refreshed every 100 ms). */
#include "lcore.h"
#include "rest_priv.h"

#define REST_STALL_MS 2000

static bool ring_backlog(const struct msgq_stats *q)
{
    return q->depth[0] || q->depth[1] || q->depth[2] || q->depth[3];
}

void rest_get_health(struct rest_req *q, struct rest_reply *r)
{
    struct rest_server *rs = q->rs;
    struct app_ctx *app = rs->app;
    uint64_t now = rest_now_ms();
    json_t *lcores = json_array();
    bool ok = true;

    pthread_mutex_lock(&rs->lock);
    for (unsigned id = 0; id < RTE_MAX_LCORE; id++) {
        struct lcore_ctx *lc = app->lcores[id];
        struct lcore_snapshot snap;
        if (!lc)
            continue;
        lcore_read_snapshot(lc, &snap);
        if (snap.lcore.loops != rs->last_loops[id] || rs->last_change_ms[id] == 0) {
            rs->last_loops[id] = snap.lcore.loops;
            rs->last_change_ms[id] = now;
        }
        bool alive = now - rs->last_change_ms[id] < REST_STALL_MS;
        bool stuck = !alive && ((lc->role_worker && ring_backlog(&snap.msg_in)) ||
                                (lc->role_io && ring_backlog(&snap.msg_out)));
        ok = ok && alive;
        json_t *roles = json_array();
        if (lc->role_io)
            json_array_append_new(roles, json_string("io"));
        if (lc->role_worker)
            json_array_append_new(roles, json_string("worker"));
        json_array_append_new(lcores, json_pack("{s:i, s:o, s:b, s:I, s:b}", "lcore", (int)id,
                                                "roles", roles, "alive", alive, "loops",
                                                (json_int_t)snap.lcore.loops, "rings_stuck",
                                                stuck));
    }
    pthread_mutex_unlock(&rs->lock);
    r->json = json_pack("{s:s, s:o}", "status", ok ? "ok" : "degraded", "lcores", lcores);
    r->status = ok ? 200 : 503;
}
