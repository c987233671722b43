/*
 * flowmgr_check: each switch's last flow-statistics reply and the
 * consistency check that compares it with the mirror of the store.
 *
 * A reply is gathered from the worker's polls (it forwards only its own) or
 * from the answer to the flow manager's own request (its xid, sw->stats_xid;
 * any other control-thread xid is a switch's invention: dropped, counted).
 * A reply past openflow.mp_max_kb/parts, or that would take all switches'
 * snapshots past the budget, is abandoned: no verdict comes from it.
 *
 * The check runs when a reply completes, at most once per verdict window
 * (max(flow_manager.consistency_min_interval_s, 1.5 x stats interval)), and
 * on the first complete reply after the switch (re)connects:
 *  - alien: on the switch, not stored, cookie and table outside the ignore
 *    ranges (and not the L2 app's cookie when it runs), older than the
 *    window (duration_sec) → DELETE_STRICT;
 *  - missing: stored (not in error), not on the switch, no ADD of it in
 *    flight (queued or sent, unanswered), last sent longer than the window ago — or, on the check
 *    after a (re)connect, not sent on this connection → ADD again;
 *  - changed: stored and on the switch, but in another version (actions,
 *    cookie, timeouts), older than the window, none in flight → ADD again;
 *  - pending flows the switch has (same version), none in flight → installed.
 * Every action is logged with the dpid and counted. With
 * flow_manager.consistency off only the check after a (re)connect runs, and
 * it installs missing flows without deleting aliens.
 */
#include "flowmgr_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ofcd_log.h"
#include "ofp_msg.h"
#include "store.h"

#define FM_CHECK_LOG_MAX 10     /* action lines per check; a summary follows */

static void parts_free(uint8_t **parts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(parts[i]);
}

void fm_snap_drop_partial(struct flowmgr *fm, struct fm_switch *sw)
{
    parts_free(sw->acc, sw->n_acc);
    fm->stats.snapshot_bytes -= sw->acc_bytes;
    sw->n_acc = 0;
    sw->acc_xid = 0;
    sw->acc_bytes = 0;
}

void fm_snap_free(struct flowmgr *fm, struct fm_switch *sw)
{
    fm_snap_drop_partial(fm, sw);
    parts_free(sw->snap, sw->n_snap);
    fm->stats.snapshot_bytes -= sw->snap_bytes;
    free(sw->snap);
    free(sw->acc);
    sw->snap = sw->acc = NULL;
    sw->n_snap = sw->cap_acc = 0;
    sw->snap_bytes = 0;
}

int fm_request_flow_stats(struct flowmgr *fm, struct fm_switch *sw)
{
    struct ofp_msg m;
    struct ofp_buf b;
    uint8_t buf[128];

    memset(&m, 0, sizeof(m));
    m.hdr.version = OFP13_VERSION;
    m.hdr.type = OFPT_MULTIPART_REQUEST;
    m.u.mp_request.type = OFPMP_FLOW;
    m.u.mp_request.u.flow.table_id = OFPTT_ALL;
    m.u.mp_request.u.flow.out_port = OFPP_ANY;
    m.u.mp_request.u.flow.out_group = OFPG_ANY;
    ofp_match_init(&m.u.mp_request.u.flow.match);
    ofp_buf_init(&b, buf, sizeof(buf));
    int rc = ofp_encode(&b, &m);
    if (rc < 0)
        return rc;
    /* Not through fm_queue, which would pace it behind FLOW_MODs: it goes
     * straight out, in the statistics class it belongs to. */
    uint32_t xid = fm_next_xid(sw);
    rc = fm_send_wire(fm, sw, b.data, b.len, xid, OFP_PRIO_P1);
    if (rc == 0)
        sw->stats_xid = xid;
    return rc;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Visit every entry of the snapshot. cb returns 0 to go on. */
typedef int (*entry_fn)(const struct ofp_flow_stats *fs, void *arg);

static int snap_foreach(uint8_t *const *parts, size_t n_parts, entry_fn cb, void *arg)
{
    for (size_t p = 0; p < n_parts; p++) {
        const uint8_t *msg = parts[p];
        size_t len = (size_t)msg[2] << 8 | msg[3];
        struct ofp_msg m;
        struct ofp_err err;
        if (ofp_decode(msg, len, &m, &err) < 0)
            continue;                 /* the worker already vetted it; defensive */
        struct ofp_mp_iter it;
        struct ofp_flow_stats fs;
        ofp_mp_iter_init(&it, &m.u.mp_reply);
        while (ofp_mp_next_flow_stats(&it, &fs)) {
            int rc = cb(&fs, arg);
            if (rc)
                return rc;
        }
    }
    return 0;
}

struct check_ctx {
    struct flowmgr *fm;
    struct fm_switch *sw;
    struct fm_flow *scratch;
    uint64_t *present;
    size_t n_present, cap_present;
    uint64_t now, aliens, confirmed, missing, changed;
    unsigned logged;
};

static void delete_alien(struct check_ctx *c, const struct ofp_flow_stats *fs)
{
    struct ofp_flow_mod del = {
        .command = OFPFC_DELETE_STRICT,
        .table_id = fs->table_id,
        .priority = fs->priority,
        .buffer_id = OFP_NO_BUFFER,
        .out_port = OFPP_ANY,
        .out_group = OFPG_ANY,
        .match = fs->match,
    };
    size_t len;
    uint8_t *wire = fm_encode_flow_mod(&del, &len);

    if (wire && fm_queue(c->fm, c->sw, 0, false, 0, 0, wire, len) == 0) {
        c->aliens++;
        c->fm->stats.alien_deleted++;
        if (c->logged++ < FM_CHECK_LOG_MAX) {
            char match[256];
            ofp_match_format(&fs->match, match, sizeof(match));
            LOG_INFO_RL(&c->fm->rl_log.alien, c->now, "flows", "switch %016" PRIx64 ": "
                        "consistency: deleting alien flow table=%u priority=%u cookie=%#"
                        PRIx64 " %s", c->sw->dpid, fs->table_id, fs->priority, fs->cookie,
                        match);
        }
    }
    free(wire);
}

/* The stored flow is on the switch in another version (actions, cookie or
 * timeouts changed behind ofcd's back): ADD the stored one over it. */
static void reinstall_changed(struct check_ctx *c, struct fm_entry *f)
{
    if (fm_queue(c->fm, c->sw, f->owner, true, f->match_id, f->flow_id, f->wire, f->len))
        return;
    c->changed++;
    c->fm->stats.changed_reinstalled++;
    if (c->logged++ < FM_CHECK_LOG_MAX)
        LOG_INFO_RL(&c->fm->rl_log.changed, c->now, "flows", "switch %016" PRIx64 ": "
                    "consistency: flow %016" PRIx64 " differs from the stored version: "
                    "re-installing it", c->sw->dpid, f->match_id);
}

static int check_entry(const struct ofp_flow_stats *fs, void *arg)
{
    struct check_ctx *c = arg;
    const struct flowmgr_cfg *cfg = &c->fm->cfg;
    /* The whole flow when its actions fit an fm_flow (else only its key). */
    bool whole = fm_flow_from_entry(fs->table_id, fs->priority, fs->cookie, fs->idle_timeout,
                                    fs->hard_timeout, &fs->match, &fs->inst, c->scratch) == 0;
    uint64_t id = fm_match_id(c->sw->dpid, fs->table_id, fs->priority, &fs->match);

    if (c->n_present == c->cap_present) {
        size_t nc = c->cap_present ? c->cap_present * 2 : 256;
        uint64_t *np = realloc(c->present, nc * sizeof(*np));
        if (!np)
            return -ENOMEM;
        c->present = np;
        c->cap_present = nc;
    }
    c->present[c->n_present++] = id;
    struct fm_entry *f = fm_entry_find(c->sw, id);
    if (f) {
        bool same = !whole || fm_flow_id_of(id, c->scratch) == f->flow_id;
        bool settled = f->inflight == 0 &&
                       (f->sent_us == 0 || f->sent_us + c->fm->cfg.window_us <= c->now);
        if (same && f->state == STORE_FLOW_PENDING && f->inflight == 0) {
            fm_set_state(c->fm, c->sw, f, STORE_FLOW_INSTALLED, 0, 0);
            c->confirmed++;
            c->fm->stats.pending_confirmed++;
        } else if (!same && cfg->consistency && f->state != STORE_FLOW_ERROR && settled &&
                   (uint64_t)fs->duration_sec * 1000000u >= c->fm->cfg.window_us) {
            reinstall_changed(c, f);
        }
        return 0;
    }
    if (!cfg->consistency)
        return 0;
    if (ofcd_ranges_contain(cfg->ignore_cookie, cfg->n_ignore_cookie, fs->cookie) ||
        ofcd_ranges_contain(cfg->ignore_table, cfg->n_ignore_table, fs->table_id) ||
        ofcd_ranges_contain(cfg->app_cookie, cfg->n_app_cookie, fs->cookie))
        return 0;
    if ((uint64_t)fs->duration_sec * 1000000u < c->fm->cfg.window_us)
        return 0;                     /* may be one of ours on its way, or just changed */
    delete_alien(c, fs);
    return 0;
}

static void reinstall_missing(struct check_ctx *c, bool connect)
{
    struct fm_switch *sw = c->sw;
    uint64_t horizon = connect ? sw->up_us
                       : c->now > c->fm->cfg.window_us ? c->now - c->fm->cfg.window_us : 0;

    for (size_t b = 0; b < sw->n_buckets; b++)
        for (struct fm_entry *f = sw->buckets[b]; f; f = f->hnext) {
            if (f->state == STORE_FLOW_ERROR || f->inflight || f->sent_us > horizon)
                continue;
            if (c->n_present &&
                bsearch(&f->match_id, c->present, c->n_present, sizeof(uint64_t), cmp_u64))
                continue;
            if (fm_queue(c->fm, sw, f->owner, true, f->match_id, f->flow_id, f->wire, f->len))
                return;
            c->missing++;
            c->fm->stats.missing_reinstalled++;
            if (c->logged++ < FM_CHECK_LOG_MAX)
                LOG_INFO_RL(&c->fm->rl_log.missing, c->now, "flows", "switch %016" PRIx64 ": "
                            "consistency: re-installing missing flow %016" PRIx64, sw->dpid,
                            f->match_id);
        }
}

static void run_check(struct flowmgr *fm, struct fm_switch *sw, bool connect, uint64_t now)
{
    struct check_ctx c = {.fm = fm, .sw = sw, .now = now};

    c.scratch = calloc(1, sizeof(*c.scratch));
    if (!c.scratch)
        return;
    if (snap_foreach(sw->snap, sw->n_snap, check_entry, &c) == 0) {
        if (c.n_present)
            qsort(c.present, c.n_present, sizeof(uint64_t), cmp_u64);
        /* On connect, "not sent on this connection" is what counts: nothing
         * older can still be in flight. */
        reinstall_missing(&c, connect);
        fm->stats.checks++;
        if (c.aliens || c.missing || c.confirmed || c.changed)
            LOG_INFO_RL(&fm->rl_log.check, now, "flows", "switch %016" PRIx64 ": consistency "
                        "check%s: %zu flows on the switch, %zu stored; %lu alien deleted, %lu "
                        "missing re-installed, %lu changed re-installed, %lu pending confirmed",
                        sw->dpid, connect ? " after connect" : "", c.n_present, sw->n_flows,
                        (unsigned long)c.aliens, (unsigned long)c.missing,
                        (unsigned long)c.changed, (unsigned long)c.confirmed);
        if (c.aliens || c.missing || c.changed)
            fm_event(fm, &(struct flowmgr_event){
                             .kind = FLOWMGR_EV_CONSISTENCY, .dpid = sw->dpid,
                             .u.consistency = {.after_connect = connect,
                                               .aliens_deleted = c.aliens,
                                               .missing_reinstalled = c.missing,
                                               .changed_reinstalled = c.changed}});
        fm_pump(fm, sw, now);
    }
    sw->last_check_us = now;
    free(c.present);
    free(c.scratch);
}

/* May the part of len bytes not join sw's reply being gathered? Not past
 * the reply's own bounds (openflow.mp_max_kb/mp_max_parts, as the
 * worker's), nor past all switches' snapshots together
 * (flow_manager.snapshot_budget_mb). Counted and logged (rate-limited). */
static bool snap_refused(struct flowmgr *fm, struct fm_switch *sw, size_t len,
                                uint64_t now)
{
    const struct flowmgr_cfg *cfg = &fm->cfg;

    if ((cfg->snap_max_parts && sw->n_acc >= cfg->snap_max_parts) ||
        (cfg->snap_max_bytes && sw->acc_bytes + len > cfg->snap_max_bytes)) {
        fm->stats.snapshot_oversized++;
        LOG_WARN_RL(&fm->rl_log.snap_oversized, now, "flows", "switch %016" PRIx64 ": flow "
                    "statistics reply over openflow.mp_max_kb/mp_max_parts (%zu parts, %lu "
                    "bytes): dropped, no consistency verdict from it", sw->dpid, sw->n_acc,
                    (unsigned long)(sw->acc_bytes + len));
        return true;
    }
    if (cfg->snap_budget_bytes && fm->stats.snapshot_bytes + len > cfg->snap_budget_bytes) {
        fm->stats.snapshot_over_budget++;
        LOG_WARN_RL(&fm->rl_log.snap_budget, now, "flows", "switch %016" PRIx64 ": flow "
                    "statistics reply abandoned: all switches' snapshots would take more "
                    "than flow_manager.snapshot_budget_mb (%lu of %lu bytes held); no "
                    "consistency verdict from it", sw->dpid,
                    (unsigned long)fm->stats.snapshot_bytes,
                    (unsigned long)cfg->snap_budget_bytes);
        return true;
    }
    return false;
}

void fm_snap_part(struct flowmgr *fm, struct fm_switch *sw, const uint8_t *msg, size_t len,
                  uint32_t xid, bool more)
{
    uint64_t now = fm_now_us(fm);

    /* The worker forwards every control-thread xid (it cannot know which
     * one the flow manager asked for): the only one that is ours is the
     * request outstanding on this connection. Anything else is a switch's
     * own invention and is never kept, nor checked against the store. */
    if (ofp_xid_is_control(xid) && xid != sw->stats_xid) {
        fm->stats.snapshot_unsolicited++;
        LOG_WARN_RL(&fm->rl_log.snap_unsolicited, now, "flows", "switch %016" PRIx64 ": "
                    "flow statistics with xid %#x, which ofcd did not ask for: dropped",
                    sw->dpid, xid);
        return;
    }
    if (xid == sw->dropped_xid)
        return;
    if (xid != sw->acc_xid) {
        fm_snap_drop_partial(fm, sw);
        sw->acc_xid = xid;
    }
    bool keep = !snap_refused(fm, sw, len, now);
    if (keep && sw->n_acc == sw->cap_acc) {
        size_t nc = sw->cap_acc ? sw->cap_acc * 2 : 8;
        uint8_t **na = realloc(sw->acc, nc * sizeof(*na));
        keep = na != NULL;
        if (na) {
            sw->acc = na;
            sw->cap_acc = nc;
        }
    }
    uint8_t *copy = keep ? malloc(len) : NULL;
    if (!copy) {
        /* Never kept (nor a verdict from a reply with a part missing): the
         * rest of this reply is ignored (its xid stays the dropped one's
         * until the next reply). */
        fm_snap_drop_partial(fm, sw);
        sw->dropped_xid = xid;
        if (xid == sw->stats_xid)
            sw->stats_xid = 0;      /* abandoned: no part of it is wanted any more */
        return;
    }
    memcpy(copy, msg, len);
    sw->acc[sw->n_acc++] = copy;
    sw->acc_bytes += len;
    fm->stats.snapshot_bytes += len;
    if (more)
        return;
    /* Complete: it becomes the snapshot. */
    if (xid == sw->stats_xid)
        sw->stats_xid = 0;          /* answered: that xid is not ours any more */
    parts_free(sw->snap, sw->n_snap);
    free(sw->snap);
    fm->stats.snapshot_bytes -= sw->snap_bytes;
    sw->snap = sw->acc;
    sw->n_snap = sw->n_acc;
    sw->snap_bytes = sw->acc_bytes;
    sw->acc = NULL;
    sw->n_acc = sw->cap_acc = 0;
    sw->acc_xid = 0;
    sw->acc_bytes = 0;
    /* Installing what is stored on a switch that (re)connects is part of
     * keeping the store's promise, so it happens even with the check off;
     * deleting aliens and the periodic rounds need flow_manager.consistency. */
    if (sw->check_connect) {
        sw->check_connect = false;
        run_check(fm, sw, true, now);
    } else if (fm->cfg.consistency && now - sw->last_check_us >= fm->cfg.window_us) {
        run_check(fm, sw, false, now);
    }
}

/* ---- GET flows ------------------------------------------------------------------ */

/* A copy of one switch's snapshot and where its walk is. */
struct flowmgr_snap {
    uint8_t **parts;
    size_t n_parts, next_part;
    bool in_part;
    struct ofp_msg m;                /* the part being walked (points into parts[]) */
    struct ofp_mp_iter it;
    struct flowmgr_snap_entry e;
};

void flowmgr_snap_free(struct flowmgr_snap *s)
{
    if (!s)
        return;
    parts_free(s->parts, s->n_parts);
    free(s->parts);
    free(s);
}

/* Copied under the flow manager's lock, decoded outside it: a switch's
 * 100,000 flows must not hold up the control thread or other requests
 * while they are walked and rendered. */
struct flowmgr_snap *flowmgr_snap_take(struct flowmgr *fm, uint64_t dpid, int *err)
{
    struct flowmgr_snap *s = calloc(1, sizeof(*s));

    *err = 0;
    if (!s) {
        *err = -ENOMEM;
        return NULL;
    }
    s->e.dpid = dpid;
    pthread_mutex_lock(&fm->lock);
    struct fm_switch *sw = fm_switch_find(fm, dpid);
    if (!sw || !(sw->seen || sw->n_flows)) {
        *err = -ENOENT;
    } else if (sw->n_snap && !(s->parts = calloc(sw->n_snap, sizeof(*s->parts)))) {
        *err = -ENOMEM;
    } else {
        for (; s->n_parts < sw->n_snap; s->n_parts++) {
            const uint8_t *msg = sw->snap[s->n_parts];
            size_t len = (size_t)msg[2] << 8 | msg[3];
            if (!(s->parts[s->n_parts] = malloc(len))) {
                *err = -ENOMEM;
                break;
            }
            memcpy(s->parts[s->n_parts], msg, len);
        }
    }
    pthread_mutex_unlock(&fm->lock);
    if (*err) {
        flowmgr_snap_free(s);
        return NULL;
    }
    return s;
}

/* The entry as a flow: false when it cannot be one (too many actions). */
static bool entry_of(const struct ofp_flow_stats *fs, struct flowmgr_snap_entry *e)
{
    if (fm_flow_from_entry(fs->table_id, fs->priority, fs->cookie, fs->idle_timeout,
                           fs->hard_timeout, &fs->match, &fs->inst, &e->flow) < 0)
        return false;
    e->match_id = fm_flow_match_id(e->dpid, &e->flow);
    e->flow_id = fm_flow_id_of(e->match_id, &e->flow);
    e->packet_count = fs->packet_count;
    e->byte_count = fs->byte_count;
    e->duration_sec = fs->duration_sec;
    e->duration_nsec = fs->duration_nsec;
    return true;
}

const struct flowmgr_snap_entry *flowmgr_snap_next(struct flowmgr_snap *s)
{
    for (;;) {
        struct ofp_flow_stats fs;
        if (s->in_part && ofp_mp_next_flow_stats(&s->it, &fs)) {
            if (entry_of(&fs, &s->e))
                return &s->e;
            continue;                 /* not one ofcd can show: skipped */
        }
        s->in_part = false;
        if (s->next_part == s->n_parts)
            return NULL;
        const uint8_t *msg = s->parts[s->next_part++];
        size_t len = (size_t)msg[2] << 8 | msg[3];
        struct ofp_err err;
        if (ofp_decode(msg, len, &s->m, &err) < 0)
            continue;                 /* the worker already vetted it; defensive */
        ofp_mp_iter_init(&s->it, &s->m.u.mp_reply);
        s->in_part = true;
    }
}
