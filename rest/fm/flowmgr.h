/*
 * flowmgr: the flow manager — what ofcd believes each switch's flow table
 * should hold, getting it there, and noticing when it is not.
 *
 * Owns, per switch (dpid):
 *  - the mirror: every stored flow (match_id → flow_id, state, its ADD
 *    FLOW_MOD on the wire), loaded from the store at start and changed only
 *    after the store has made a change durable;
 *  - per-owner queues of FLOW_MODs waiting for the pacing budget
 *    (flow_manager.pacing_per_s per owner per switch) and for room in the
 *    switch's io lcore msg_out ring (class P3);
 *  - the batches in flight: each send ends with a BARRIER_REQUEST; its reply
 *    moves the batch's flows to installed, an OFPT_ERROR carrying one
 *    flow_mod's xid moves that flow to error with the switch's type/code;
 *  - the last complete flow-statistics reply, for GET flows and for the
 *    consistency check (flowmgr_check.c).
 *
 * It reaches switches only through struct flowmgr_env (the app glues that
 * to the io lcores' msg_out rings), so it runs in unit tests without DPDK.
 *
 * Threads: REST handlers (libmicrohttpd's pool) call flowmgr_state(),
 * flowmgr_admit(), flowmgr_add(), flowmgr_delete_victims(),
 * flowmgr_deleted() and the readers; the control thread calls
 * flowmgr_on_event() for what the workers report and flowmgr_tick() every
 * wake-up. One mutex guards everything; no call blocks on I/O while
 * holding it except the store's non-blocking state updates and reads.
 *
 * Control-thread xids have the top bit set, so they never collide with the
 * worker's (which count up from 1 per connection).
 */
#ifndef OFCD_FLOWMGR_H
#define OFCD_FLOWMGR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "cfg.h"
#include "flow_json.h"
#include "qmsg.h"

struct store;
struct flowmgr;

struct flowmgr_cfg {
    uint32_t pacing_per_s;          /* per owner per switch, 0 = none */
    uint32_t queue_max;             /* FLOW_MODs waiting per switch before 503 */
    bool consistency;
    uint64_t window_us;             /* the consistency check's verdict window */
    struct cfg_range ignore_cookie[CFG_MAX_RANGES];
    unsigned n_ignore_cookie;
    struct cfg_range ignore_table[CFG_MAX_RANGES];
    unsigned n_ignore_table;
    bool l2_cookie_ignored;         /* apps.l2_learning: its flows are not aliens */
};

/* From ofcd's configuration (window = max(min interval, 1.5 x stats interval)). */
void flowmgr_cfg_from(const struct ofcd_config *c, struct flowmgr_cfg *out);

/* How the flow manager reaches switches, and its clock. */
struct flowmgr_env {
    void *arg;
    /* Free slots for class cls on the way to the switch on conn. */
    unsigned (*room)(void *arg, conn_handle_t conn, uint8_t cls);
    /* Queue one OpenFlow message to it: 0, or -ENOBUFS (nothing queued). */
    int (*send)(void *arg, conn_handle_t conn, const uint8_t *msg, size_t len, uint8_t cls);
    uint64_t (*now_us)(void *arg);  /* monotonic */
};

struct flowmgr_stats {
    uint64_t flow_mods_sent;        /* ADD/DELETE FLOW_MODs handed to msg_out */
    uint64_t barriers_sent;
    uint64_t barrier_replies;       /* matched to a batch */
    uint64_t installed;             /* flows moved to installed by a barrier reply */
    uint64_t confirmed;             /* ADD FLOW_MODs a barrier reply confirmed (a
                                     * re-sent flow counts each time) */
    uint64_t errors;                /* flows the switch rejected */
    uint64_t ring_full;             /* sends postponed: msg_out P3 full or no buffer */
    uint64_t paced;                 /* sends postponed by the pacing budget */
    uint64_t queued;                /* FLOW_MODs waiting now, all switches */
    uint64_t dropped_on_down;       /* queued/in-flight work dropped at disconnect
                                     * (the flows stay stored; the check re-installs) */
    uint64_t checks;                /* consistency checks run */
    uint64_t alien_deleted;
    uint64_t missing_reinstalled;
    uint64_t changed_reinstalled;   /* on the switch in another version */
    uint64_t pending_confirmed;     /* pending flows found on the switch */
    uint64_t state_update_failed;   /* store_set_state refused (queue full) */
    uint64_t flows_by_state[3];     /* mirror: pending, installed, error */
};

/* Create and load every stored flow into the mirror. NULL (logged). cfg
 * and env are copied. */
struct flowmgr *flowmgr_create(const struct flowmgr_cfg *cfg, const struct flowmgr_env *env,
                               struct store *store);
void flowmgr_destroy(struct flowmgr *fm);

/* ---- control thread ---------------------------------------------------------- */

/* A worker event (switch up/down, barrier reply, error, statistics). */
void flowmgr_on_event(struct flowmgr *fm, const struct qmsg *q);

/* Send what pacing and ring room now allow; run due consistency checks. */
void flowmgr_tick(struct flowmgr *fm);

/* ---- REST threads ------------------------------------------------------------ */

enum flowmgr_sw_state {
    FLOWMGR_SW_UNKNOWN = 0,         /* never connected, no stored flows */
    FLOWMGR_SW_DOWN,
    FLOWMGR_SW_UP,
};
enum flowmgr_sw_state flowmgr_state(struct flowmgr *fm, uint64_t dpid);

/* The dpids that are up now (up_only) or known (up, seen, or with stored
 * flows): a malloc'd array in *out, the count returned, or -ENOMEM. */
int flowmgr_switches(struct flowmgr *fm, bool up_only, uint64_t **out);

/* Room for n more FLOW_MODs on dpid's queues? 0, or -EBUSY with the
 * seconds after which a retry is likely to fit in *retry_s. */
int flowmgr_admit(struct flowmgr *fm, uint64_t dpid, size_t n, unsigned *retry_s);

/*
 * n flows were just made durable for dpid (match_ids/flow_ids as stored):
 * update the mirror and queue their ADD FLOW_MODs when the switch is up.
 * A flow whose stored version has meanwhile been replaced by a concurrent
 * request is left to that request. 0 or -ENOMEM.
 */
int flowmgr_add(struct flowmgr *fm, uint64_t dpid, const struct flow_spec *specs,
                const uint64_t *match_ids, const uint64_t *flow_ids, size_t n);

/* A (match_id, flow_id) pair of one switch. */
struct flowmgr_key {
    uint64_t dpid, match_id, flow_id;
};

/*
 * The stored flows of dpid a non-strict DELETE with spec selects (table or
 * all tables, cookie under cookie_mask, match within), appended to *keys
 * (realloc'd; *n and *cap updated). 0 or -ENOMEM.
 */
int flowmgr_delete_victims(struct flowmgr *fm, uint64_t dpid, const struct flow_spec *spec,
                           struct flowmgr_key **keys, size_t *n, size_t *cap);

/*
 * The store has deleted keys: drop them from the mirror (where the flow_id
 * still matches) and queue each spec as a DELETE FLOW_MOD to dpid when up.
 */
int flowmgr_deleted(struct flowmgr *fm, const struct flowmgr_key *keys, size_t n_keys,
                    uint64_t dpid, const struct flow_spec *specs, size_t n_specs);

/*
 * The last complete flow-statistics reply of dpid as Kytos shows it:
 * {"flows": [flow + "stats"]}; NULL when the switch is unknown.
 * New reference.
 */
json_t *flowmgr_snapshot_json(struct flowmgr *fm, uint64_t dpid);

void flowmgr_get_stats(struct flowmgr *fm, struct flowmgr_stats *out);

#endif
