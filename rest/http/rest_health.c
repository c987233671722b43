/* rest_health: GET /api/v1/health — is every lcore still looping, is any
 * ring filling while its consumer stands still, is the flow store writable
 * (no commit failed since the previous look, the map not full). An lcore is alive when its
 * loop counter moved since the previous look, or the previous look was less
 * than REST_STALL_MS ago (the counters are refreshed every 100 ms). */
#include "lcore.h"
#include "rest_priv.h"
#include "store.h"

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
    /* The store is writable while its commits succeed and the map has room
     * for puts (they stop 1/8 before the end). */
    json_t *store = json_null();
    if (rs->store) {
        struct store_stats st;
        bool writable = store_get_stats(rs->store, &st) == 0;
        uint64_t last = __atomic_load_n(&rs->health_failed_commits, __ATOMIC_RELAXED);
        writable = writable && st.failed_commits == last && st.map_used < st.map_size / 8 * 7;
        __atomic_store_n(&rs->health_failed_commits, st.failed_commits, __ATOMIC_RELAXED);
        json_decref(store);
        store = json_pack("{s:b, s:I, s:I, s:I}", "writable", writable, "flows",
                          (json_int_t)st.records, "map_used_bytes", (json_int_t)st.map_used,
                          "map_size_bytes", (json_int_t)st.map_size);
        ok = ok && writable;
    }
    r->json = json_pack("{s:s, s:o, s:o}", "status", ok ? "ok" : "degraded", "lcores", lcores,
                        "store", store);
    r->status = ok ? 200 : 503;
}
