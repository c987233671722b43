/* fm_check: see fm_check.h. The consistency check, through the mirror view. */
#include "fm_check.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fm_flow.h"
#include "ofcd_log.h"
#include "store.h"

struct check_ctx {
    const struct fm_view *v;
    const struct fm_check_in *in;
    struct fm_check_log *log;
    struct fm_check_result *r;
    struct fm_flow *scratch;
    uint64_t *present;              /* match_ids on the switch */
    size_t cap_present;
    unsigned logged;
};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void delete_alien(struct check_ctx *c, const struct ofp_flow_stats *fs)
{
    if (c->v->ops->delete_strict(c->v->arg, fs->table_id, fs->priority, &fs->match) < 0)
        return;
    c->r->aliens++;
    if (c->logged++ < FM_CHECK_LOG_MAX) {
        char match[256];
        ofp_match_format(&fs->match, match, sizeof(match));
        LOG_INFO_RL(&c->log->alien, c->in->now, "flows", "switch %016" PRIx64 ": "
                    "consistency: deleting alien flow table=%u priority=%u cookie=%#"
                    PRIx64 " %s", c->in->dpid, fs->table_id, fs->priority, fs->cookie, match);
    }
}

/* The stored flow is on the switch in another version (actions, cookie or
 * timeouts changed behind ofcd's back): ADD the stored one over it. */
static void reinstall_changed(struct check_ctx *c, uint64_t match_id)
{
    if (c->v->ops->readd(c->v->arg, match_id))
        return;
    c->r->changed++;
    if (c->logged++ < FM_CHECK_LOG_MAX)
        LOG_INFO_RL(&c->log->changed, c->in->now, "flows", "switch %016" PRIx64 ": "
                    "consistency: flow %016" PRIx64 " differs from the stored version: "
                    "re-installing it", c->in->dpid, match_id);
}

static int check_entry(struct check_ctx *c, const struct ofp_flow_stats *fs)
{
    const struct fm_cfg *cfg = c->in->cfg;
    const uint64_t window = cfg->window_us, now = c->in->now;
    /* The whole flow when its actions fit an fm_flow (else only its key). */
    bool whole = fm_flow_from_entry(fs->table_id, fs->priority, fs->cookie, fs->idle_timeout,
                                    fs->hard_timeout, &fs->match, &fs->inst, c->scratch) == 0;
    uint64_t id = fm_match_id(c->in->dpid, fs->table_id, fs->priority, &fs->match);
    struct fm_view_flow f;

    if (c->r->on_switch == c->cap_present) {
        size_t nc = c->cap_present ? c->cap_present * 2 : 256;
        uint64_t *np = realloc(c->present, nc * sizeof(*np));
        if (!np)
            return -ENOMEM;
        c->present = np;
        c->cap_present = nc;
    }
    c->present[c->r->on_switch++] = id;
    if (c->v->ops->find(c->v->arg, id, &f)) {
        bool same = !whole || fm_flow_id_of(id, c->scratch) == f.flow_id;
        bool settled = !f.inflight && (f.sent_us == 0 || f.sent_us + window <= now);
        if (same && f.state == STORE_FLOW_PENDING && !f.inflight) {
            c->v->ops->installed(c->v->arg, id);
            c->r->confirmed++;
        } else if (!same && cfg->consistency && f.state != STORE_FLOW_ERROR && settled &&
                   (uint64_t)fs->duration_sec * 1000000u >= window) {
            reinstall_changed(c, id);
        }
        return 0;
    }
    if (!cfg->consistency)
        return 0;
    if (ofcd_ranges_contain(cfg->ignore_cookie, cfg->n_ignore_cookie, fs->cookie) ||
        ofcd_ranges_contain(cfg->ignore_table, cfg->n_ignore_table, fs->table_id) ||
        ofcd_ranges_contain(cfg->app_cookie, cfg->n_app_cookie, fs->cookie))
        return 0;
    if ((uint64_t)fs->duration_sec * 1000000u < window)
        return 0;                     /* may be one of ours on its way, or just changed */
    delete_alien(c, fs);
    return 0;
}

/* On connect, "not sent on this connection" is what counts: nothing older
 * can still be in flight. */
static void reinstall_missing(struct check_ctx *c)
{
    const uint64_t window = c->in->cfg->window_us, now = c->in->now;
    uint64_t horizon = c->in->connect ? c->in->up_us : now > window ? now - window : 0;
    struct fm_view_pos pos = {0};
    struct fm_view_flow f;

    while (c->v->ops->next(c->v->arg, &pos, &f)) {
        if (f.state == STORE_FLOW_ERROR || f.inflight || f.sent_us > horizon)
            continue;
        if (c->r->on_switch &&
            bsearch(&f.match_id, c->present, c->r->on_switch, sizeof(uint64_t), cmp_u64))
            continue;
        if (c->v->ops->readd(c->v->arg, f.match_id))
            return;
        c->r->missing++;
        if (c->logged++ < FM_CHECK_LOG_MAX)
            LOG_INFO_RL(&c->log->missing, now, "flows", "switch %016" PRIx64 ": "
                        "consistency: re-installing missing flow %016" PRIx64, c->in->dpid,
                        f.match_id);
    }
}

int fm_check_run(const struct fm_view *v, const struct fm_check_in *in, struct fm_check_log *log,
                 struct fm_check_result *out)
{
    struct check_ctx c = {.v = v, .in = in, .log = log, .r = out};
    struct fm_snap_walk w;
    struct ofp_flow_stats fs;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    if (!(c.scratch = malloc(sizeof(*c.scratch))))
        return -ENOMEM;
    fm_snap_walk_init(&w, in->snap->parts, in->snap->n_parts);
    while (rc == 0 && fm_snap_walk_next(&w, &fs))
        rc = check_entry(&c, &fs);
    if (rc == 0) {
        if (out->on_switch)
            qsort(c.present, out->on_switch, sizeof(uint64_t), cmp_u64);
        reinstall_missing(&c);
    }
    free(c.present);
    free(c.scratch);
    return rc;
}
