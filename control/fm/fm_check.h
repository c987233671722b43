/*
 * fm_check: the consistency check — one switch's last complete
 * flow-statistics reply (fm_snap.h) against the flow manager's mirror of
 * the store. The flow manager runs it when a reply completes, at most once
 * per verdict window (max(flow_manager.consistency_min_interval_s, 1.5 x
 * stats interval)), and on the first complete reply after the switch
 * (re)connects:
 *  - alien: on the switch, not stored, cookie and table outside the ignore
 *    ranges and the apps' cookies, older than the window (duration_sec) →
 *    DELETE_STRICT;
 *  - missing: stored (not in error), not on the switch, no ADD of it in
 *    flight (queued or sent, unanswered), last sent longer than the window
 *    ago — or, on the check after a (re)connect, not sent on this
 *    connection → ADD again;
 *  - changed: stored and on the switch, but in another version (actions,
 *    cookie, timeouts), older than the window, none in flight → ADD again;
 *  - pending flows the switch has (same version), none in flight →
 *    installed.
 * With flow_manager.consistency off only the check after a (re)connect
 * runs, and it installs missing flows without deleting aliens.
 *
 * The check sees the flow manager only through the view below — one
 * switch's mirror, lent by fm.c under its lock: a walk over the
 * mirrored flows, a lookup by match_id, and three calls, as a table of
 * function pointers (struct fm_view_ops). fm.c fills it and calls
 * fm_check_run; neither file includes the other's internals, nor calls a
 * name the other defines but fm_check_run. The check logs each action (rate-limited, the first
 * FM_CHECK_LOG_MAX of a check) and returns what it did; the flow manager
 * counts it, logs the summary and publishes it.
 */
#ifndef OFCD_FM_CHECK_H
#define OFCD_FM_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fm.h"
#include "fm_snap.h"
#include "ofcd_ratelimit.h"

/* ---- the view: lent by fm.c, called with its lock held ---------------- */

/* One mirrored (stored) flow as the check sees it. */
struct fm_view_flow {
    uint64_t match_id, flow_id;
    uint8_t state;                  /* enum store_flow_state */
    bool inflight;                  /* an ADD of it queued or sent, not yet answered */
    uint64_t sent_us;               /* its last ADD sent (0: never this run) */
};

/* Where a walk over the mirror is: all zero to start. */
struct fm_view_pos {
    size_t bucket;
    const void *next;
};

/*
 * One switch of the flow manager, as a table of calls over its own arg, so
 * the check is linked against nothing of the manager's (a test lends a
 * fake mirror the same way):
 *   next            the next mirrored flow, in no particular order; false
 *                   at the end. The calls below may be made between steps.
 *   find            the mirrored flow of match_id: false when none.
 *   readd           queue its stored ADD again (under its owner): 0, or
 *                   -ENOMEM / -ENOENT.
 *   delete_strict   queue a DELETE_STRICT of the switch's flow (table,
 *                   priority, match): 0 or -ENOMEM.
 *   installed       the pending flow is on the switch in its stored
 *                   version: installed (the store is told).
 */
struct fm_view_ops {
    bool (*next)(void *arg, struct fm_view_pos *pos, struct fm_view_flow *out);
    bool (*find)(void *arg, uint64_t match_id, struct fm_view_flow *out);
    int (*readd)(void *arg, uint64_t match_id);
    int (*delete_strict)(void *arg, uint8_t table_id, uint16_t priority,
                         const struct ofp_match *match);
    void (*installed)(void *arg, uint64_t match_id);
};

struct fm_view {
    const struct fm_view_ops *ops;
    void *arg;
};

/* ---- the check ---------------------------------------------------------------- */

#define FM_CHECK_LOG_MAX 10         /* action lines per check; the summary follows */

/* The limiters of the check's lines (peer-triggered: what a switch holds),
 * kept by the flow manager, used under its lock. */
struct fm_check_log {
    struct ofcd_ratelimit alien, changed, missing;
};
#define FM_CHECK_LOG_INIT                                                                 \
    {.alien = OFCD_RATELIMIT_INIT(20, 1000), .changed = OFCD_RATELIMIT_INIT(20, 1000),   \
     .missing = OFCD_RATELIMIT_INIT(20, 1000)}

/* What one check did. */
struct fm_check_result {
    size_t on_switch;               /* flows in the reply */
    uint64_t aliens, missing, changed, confirmed;
};

/* What the check is run on. */
struct fm_check_in {
    uint64_t dpid;
    const struct fm_cfg *cfg;
    const struct fm_snap *snap;     /* its parts: the reply to check */
    bool connect;                   /* the check after a (re)connect */
    uint64_t up_us;                 /* when the switch (re)connected */
    uint64_t now;
};

/* Run the check: 0, or -ENOMEM (what was done so far is in *out; no
 * verdict for the rest). */
int fm_check_run(const struct fm_view *v, const struct fm_check_in *in, struct fm_check_log *log,
                 struct fm_check_result *out);

#endif
