/* rest_health: GET /api/v1/health — is every lcore still looping, is any
 * ring filling while its consumer stands still, is the flow store writable
 * (no commit failed since the previous look, the map not full). An lcore is
 * alive when its loop counter moved since the previous look, or the previous
 * look was less than REST_STALL_MS ago (the counters are published every
 * 100 ms). */
#include "rest_priv.h"
#include "store.h"

#define REST_STALL_MS 2000

static json_t *lcores_json(struct rest_server *rs, bool *ok)
{
    struct rest_lcore lc[REST_MAX_LCORES];
    unsigned n = rs->src.lcores(rs->src.arg, lc, REST_MAX_LCORES);
    uint64_t now = rest_now_ms();
    json_t *list = json_array();

    pthread_mutex_lock(&rs->lock);
    for (unsigned i = 0; i < n; i++) {
        unsigned id = lc[i].id % REST_MAX_LCORES;
        if (lc[i].loops != rs->last_loops[id] || rs->last_change_ms[id] == 0) {
            rs->last_loops[id] = lc[i].loops;
            rs->last_change_ms[id] = now;
        }
        bool alive = now - rs->last_change_ms[id] < REST_STALL_MS;
        *ok = *ok && alive;
        json_t *roles = json_array();
        if (lc[i].io)
            json_array_append_new(roles, json_string("io"));
        if (lc[i].worker)
            json_array_append_new(roles, json_string("worker"));
        json_array_append_new(list, json_pack("{s:i, s:o, s:b, s:I, s:b}", "lcore",
                                              (int)lc[i].id, "roles", roles, "alive", alive,
                                              "loops", (json_int_t)lc[i].loops, "rings_stuck",
                                              !alive && lc[i].rings_backlog));
    }
    pthread_mutex_unlock(&rs->lock);
    return list;
}

/* The store is writable while its commits succeed, the map has room for
 * puts (they stop 1/8 before the end) and, in a cluster, this node's copy
 * of etcd lacks no change (copy_behind: its writes are refused). */
static json_t *store_json(struct rest_server *rs, bool *ok)
{
    struct store_stats st;

    if (!rs->src.store)
        return json_null();
    bool writable = store_get_stats(rs->src.store, &st) == 0;
    uint64_t last = __atomic_load_n(&rs->health_failed_commits, __ATOMIC_RELAXED);
    writable = writable && st.failed_commits == last && st.map_used < st.map_size / 8 * 7 &&
               !st.copy_behind;
    __atomic_store_n(&rs->health_failed_commits, st.failed_commits, __ATOMIC_RELAXED);
    *ok = *ok && writable;
    return json_pack("{s:b, s:I, s:I, s:I, s:b}", "writable", writable, "flows",
                     (json_int_t)st.records, "map_used_bytes", (json_int_t)st.map_used,
                     "map_size_bytes", (json_int_t)st.map_size, "copy_behind",
                     st.copy_behind != 0);
}

void rest_get_health(struct rest_req *q, struct rest_reply *r)
{
    bool ok = true;
    json_t *lcores = lcores_json(q->rs, &ok);
    json_t *store = store_json(q->rs, &ok);

    json_t *j = json_pack("{s:o, s:o}", "lcores", lcores, "store", store);

    if (j && q->rs->src.health_more)
        q->rs->src.health_more(q->rs->src.arg, j, &ok);
    if (j)
        json_object_set_new(j, "status", json_string(ok ? "ok" : "degraded"));
    r->json = j;
    r->status = ok ? 200 : 503;
}
