/*
 * fm: the flow manager — what ofcd believes each switch's flow table
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
 *  - the last complete flow-statistics reply (fm_snap.c), for GET flows and
 *    for the consistency check (fm_check.c): a worker's poll, or the reply
 *    to its own request (no other control-thread xid is taken), all
 *    switches' together within fm_cfg.snap_budget_bytes;
 *  - the admission of REST requests: FLOW_MODs reserved per switch from
 *    before a request's commit until queued (fm_admit), so queued and
 *    reserved never pass flow_manager.queue_max.
 *
 * It speaks typed flows (fm_flow.h) and typed events, never a client's
 * format: the Kytos JSON is the REST face's (rest/kytos), which the app
 * hands in as env.decode to read the store's records at start. It reaches
 * switches only through struct fm_env (the app glues that to the io
 * lcores' msg_out rings), so it runs in unit tests without DPDK.
 *
 * A change of the stored flows reaches it through fm_change.h (stored
 * first, then fm_add_admitted / fm_deleted_admitted from the
 * store's committer); nothing else calls those two.
 *
 * Threads: REST handlers (libmicrohttpd's pool) call fm_state(),
 * fm_admit[_cancel](), fm_delete_victims() and the readers; the
 * store's committer the _admitted pair (fm_change); the control thread calls
 * fm_on_event() for what the workers report and fm_tick() every
 * wake-up. One mutex guards everything; no call blocks on I/O while
 * holding it except the store's non-blocking state updates and reads.
 *
 * Control-thread xids have the top bit set, so they never collide with the
 * worker's (which count up from 1 per connection); they wrap from
 * 0xffffffff to 0x80000001 and are compared in serial-number order.
 */
#ifndef OFCD_FM_H
#define OFCD_FM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fm_flow.h"
#include "ofcd_counters.h"
#include "ofcd_range.h"
#include "qmsg.h"

struct store;
struct fm;

#define FM_MAX_APPS 8

struct fm_cfg {
    uint32_t pacing_per_s;          /* per owner per switch, 0 = none */
    uint32_t queue_max;             /* FLOW_MODs waiting per switch before 503 */
    bool consistency;
    uint64_t window_us;             /* the consistency check's verdict window */
    struct ofcd_range ignore_cookie[OFCD_MAX_RANGES];
    unsigned n_ignore_cookie;
    struct ofcd_range ignore_table[OFCD_MAX_RANGES];
    unsigned n_ignore_table;
    /* A switch gone this long with no stored flow is forgotten (0 = never). */
    uint64_t forget_after_us;
    /* One flow-statistics reply the snapshot may gather (0 = no bound). */
    uint64_t snap_max_bytes;
    uint32_t snap_max_parts;
    /* Every switch's snapshot and reply being gathered, together (0 = no
     * bound): a reply that would pass it is abandoned. */
    uint64_t snap_budget_bytes;
    /* The store is a cluster's, shared by nodes: groups and meters are
     * refused there for now (fm_gm.h). */
    bool shared_store;
    /* The cookies of the apps' flows (of_app.h): theirs, never aliens. */
    struct ofcd_range app_cookie[FM_MAX_APPS];
    unsigned n_app_cookie;
};

/* What happened to flows (struct fm_env.event); the app publishes
 * them on the event stream (app/events_pub.c names each kind there). */
enum fm_event_kind {
    FM_EV_INSTALLED,           /* a barrier reply installed stored flows */
    FM_EV_ERROR,               /* the switch rejected a stored flow */
    FM_EV_REMOVED,             /* the switch removed a flow and said so */
    FM_EV_DELETED,             /* stored flows were deleted (fm_deleted) */
    FM_EV_CONSISTENCY,         /* a consistency check deleted or re-installed */
};

struct fm_ev_installed {
    uint64_t count;                 /* flows the reply moved to installed */
};

struct fm_ev_error {
    uint64_t match_id;
    uint16_t type, code;            /* the switch's OFPT_ERROR */
    const char *reason;             /* type/code as text (ofp_err_format) */
};

/* One FLOW_REMOVED, whether or not ofcd stores the flow. */
struct fm_ev_removed {
    uint64_t match_id;
    bool stored;                    /* the mirror holds a flow of that match_id */
    uint64_t cookie;
    uint8_t table_id;
    uint16_t priority;
    uint8_t reason;                 /* OFPRR_* as the switch sent it */
    uint32_t duration_s;
    uint64_t packet_count, byte_count;
};

struct fm_ev_deleted {
    uint64_t count;                 /* stored flows the mirror let go */
};

struct fm_ev_consistency {
    bool after_connect;             /* the check after a (re)connect */
    uint64_t aliens_deleted, missing_reinstalled, changed_reinstalled;
};

struct fm_event {
    enum fm_event_kind kind;
    uint64_t dpid;
    union {
        struct fm_ev_installed installed;
        struct fm_ev_error error;
        struct fm_ev_removed removed;
        struct fm_ev_deleted deleted;
        struct fm_ev_consistency consistency;
    } u;
};

/* How the flow manager reaches switches, and its clock. */
struct fm_env {
    void *arg;
    /* Free slots for class cls on the way to the switch on conn. */
    unsigned (*room)(void *arg, conn_handle_t conn, uint8_t cls);
    /* Queue one OpenFlow message to it: 0, or -ENOBUFS (nothing queued). */
    int (*send)(void *arg, conn_handle_t conn, const uint8_t *msg, size_t len, uint8_t cls);
    uint64_t (*now_us)(void *arg);  /* monotonic */
    /* A stored record's text → the flow it was accepted as (the REST face's
     * parser, flow_json_record, which the app gives): read at create for
     * every stored flow, so the flow manager never parses a client's
     * format itself. 0, or a negative errno (that record is not managed). */
    int (*decode)(const char *text, size_t len, struct fm_flow *out);
    /* What happened to flows, for the event stream (may be NULL): one
     * struct fm_event, borrowed for the call; called with the flow
     * manager's lock held (on the control thread or a REST thread), so it
     * must not call back. */
    void (*event)(void *arg, const struct fm_event *ev);
    /* In a cluster: may this node send FLOW_MODs to the switch now (its
     * confirmed master)? While not, its flows wait queued (pending) and
     * the consistency check leaves it alone. NULL = always (one node). */
    bool (*may_write)(void *arg, uint64_t dpid);
};

#define FM_COUNTERS(X)                                                               \
    X(flow_mods_sent, "ADD/DELETE FLOW_MODs handed to msg_out")                           \
    X(barriers_sent, "BARRIER_REQUESTs sent")                                             \
    X(barrier_replies, "barrier replies matched to a batch")                              \
    X(installed, "flows moved to installed by a barrier reply")                           \
    X(confirmed, "ADD FLOW_MODs a barrier reply confirmed (a re-sent flow each time)")    \
    X(errors, "flows the switch rejected")                                                \
    X(ring_full, "sends postponed: msg_out P3 full or no buffer")                         \
    X(paced, "sends postponed by the pacing budget")                                      \
    X(dropped_on_down, "queued/in-flight work dropped at disconnect (flows stay stored)") \
    X(checks, "consistency checks run")                                                   \
    X(alien_deleted, "flows on a switch but not stored: deleted")                         \
    X(missing_reinstalled, "stored flows missing on the switch: re-installed")            \
    X(changed_reinstalled, "flows changed behind ofcd's back: put back")                  \
    X(pending_confirmed, "pending flows found on the switch")                             \
    X(state_update_failed, "store_set_state refused (queue full)")                        \
    X(snapshot_oversized, "flow-statistics replies over openflow.mp_max_kb/parts: dropped") \
    X(snapshot_unsolicited, "flow-statistics parts with a control xid not asked for: dropped") \
    X(snapshot_over_budget,                                                               \
      "flow-statistics replies abandoned: over flow_manager.snapshot_budget_mb")          \
    X(switches_forgotten, "switches without stored flows forgotten: gone past "            \
                          "openflow.forget_after_s, or let go by the switch view")           \
    X(gm_mods_sent, "GROUP_MODs and METER_MODs handed to msg_out (fm_gm.h)")              \
    X(gm_installed, "groups and meters a barrier reply confirmed")                        \
    X(gm_errors, "groups and meters the switch rejected")                                 \
    X(gm_fallbacks, "an ADD refused as existing sent as MODIFY, or a MODIFY as ADD")      \
    X(gm_checks, "a switch's group or meter list judged whole (a check reads both)")    \
    X(gm_alien_deleted, "groups and meters on a switch but not stored: deleted")          \
    X(gm_missing_relaid, "stored groups and meters missing on the switch: laid again")    \
    X(gm_changed_relaid, "groups and meters changed behind ofcd's back: put back")        \
    X(gm_check_abandoned, "groups-and-meters replies past their bounds: dropped")      \
    X(gm_followed, "group and meter records changed in the cluster, mirrored here")       \
    X(gm_unqueued, "followed group and meter changes not queued: the switch's queue was " \
                   "full (the master's check lays them)")
#define FM_GAUGES(X)                                                                 \
    X(queued, "FLOW_MODs waiting now, all switches")                                      \
    X(reserved, "FLOW_MODs admitted, not yet queued (their requests wait for the store)") \
    X(snapshot_bytes, "flow-statistics snapshots and replies being gathered, bytes")

struct fm_stats {
    FM_COUNTERS(OFCD_COUNTER_FIELD)
    FM_GAUGES(OFCD_COUNTER_FIELD)
    uint64_t flows_by_state[3];     /* mirror: pending, installed, error (not in the group) */
};

extern const struct ofcd_counter_group fm_counters;     /* "flow_manager" */

/* Create and load every stored flow into the mirror. NULL (logged). cfg
 * and env are copied. */
struct fm *fm_create(const struct fm_cfg *cfg, const struct fm_env *env,
                               struct store *store);
void fm_destroy(struct fm *fm);

/* ---- control thread ---------------------------------------------------------- */

/* A worker event (switch up/down, barrier reply, error, statistics). */
void fm_on_event(struct fm *fm, const struct qmsg *q);

/* Send what pacing and ring room now allow; run due consistency checks. */
void fm_tick(struct fm *fm);

/* The switch view's questions when it is full (openflow.max_switches_known;
 * asked under the view's lock, which this lock nests in): does dpid have
 * stored flows? And: the view let dpid go — its record goes here too when
 * it is down and holds no stored flow (a peer inventing dpids cannot grow
 * this table past the view's bound). */
bool fm_has_flows(struct fm *fm, uint64_t dpid);
void fm_forget(struct fm *fm, uint64_t dpid);

/* ---- REST threads ------------------------------------------------------------ */

enum fm_sw_state {
    FM_SW_UNKNOWN = 0,         /* never connected, no stored flows */
    FM_SW_DOWN,
    FM_SW_UP,
};
enum fm_sw_state fm_state(struct fm *fm, uint64_t dpid);

/* The dpids that are up now (up_only) or known (up, seen, or with stored
 * flows): a malloc'd array in *out, the count returned, or -ENOMEM. */
int fm_switches(struct fm *fm, bool up_only, uint64_t **out);

/*
 * Admission: reserve room for a request's n FLOW_MODs to dpid (adds and
 * deletes alike), before the request is stored. 0: held until
 * fm_add_admitted / fm_deleted_admitted queues them, or
 * fm_admit_cancel gives them back (the request failed). -E2BIG when n
 * alone is more than flow_manager.queue_max (it can never fit); -EBUSY when
 * what waits plus what other admitted requests hold leaves no room for n,
 * with the seconds after which a retry is likely to fit in *retry_s;
 * -ENOMEM. Queued and held FLOW_MODs admitted this way never together pass
 * queue_max, however many requests run at once.
 */
int fm_admit(struct fm *fm, uint64_t dpid, size_t n, unsigned *retry_s);
void fm_admit_cancel(struct fm *fm, uint64_t dpid, size_t held);

/*
 * One ADD as a request holds it from its parse to its commit: its identity
 * (fm_flow.h), its owner ("" = none) and its FLOW_MOD's bytes
 * (fm_flow_mod_encode, xid 0). Encoded where it was parsed, so the commit
 * holds no parsed flow (3 KiB each, most of it room for actions it does not
 * have) and the committer does not encode.
 */
struct fm_add_one {
    uint64_t match_id, flow_id;
    const char *owner;
    const uint8_t *wire;
    size_t len;
};

/*
 * n flows were just made durable for dpid (as stored): update the mirror and
 * queue their ADD FLOW_MODs when the switch is up. A flow whose stored
 * version has meanwhile been replaced by a concurrent request is left to
 * that request. held: what fm_admit reserved for them, released as
 * they are queued (0: not admitted). 0 or -ENOMEM.
 */
int fm_add_admitted(struct fm *fm, uint64_t dpid, const struct fm_add_one *adds,
                         size_t n, size_t held);
/* The same for typed flows (not admitted): encodes them first; -EINVAL
 * when one cannot be encoded. For tests: the product goes through fm_change. */
int fm_add(struct fm *fm, uint64_t dpid, const struct fm_flow *flows,
                const uint64_t *match_ids, const uint64_t *flow_ids, size_t n);

/* A (match_id, flow_id) pair of one switch. */
struct fm_key {
    uint64_t dpid, match_id, flow_id;
};

/*
 * The stored flows of dpid a non-strict DELETE with sel selects (table or
 * all tables, cookie under cookie_mask, match within), appended to *keys
 * (realloc'd; *n and *cap updated). 0 or -ENOMEM.
 */
int fm_delete_victims(struct fm *fm, uint64_t dpid, const struct ofp_flow_mod *sel,
                           struct fm_key **keys, size_t *n, size_t *cap);

/*
 * One DELETE selector as a request holds it from its parse to its commit:
 * its owner ("" = none) and its FLOW_MOD's bytes (fm_flow_mod_encode, xid
 * 0), ~100 bytes where a parsed struct fm_flow is 3 KiB.
 */
struct fm_sel {
    const char *owner;
    const uint8_t *wire;
    size_t len;
};

/*
 * The store has deleted keys: drop them from the mirror (where the flow_id
 * still matches) and queue each of sels as a DELETE FLOW_MOD to dpid when
 * up. held: what fm_admit reserved for them, released as they are
 * queued. 0 or -ENOMEM.
 */
int fm_deleted_admitted(struct fm *fm, const struct fm_key *keys, size_t n_keys,
                             uint64_t dpid, const struct fm_sel *sels, size_t n_sels,
                             size_t held);
/* The same for typed selectors (not admitted): encodes them first;
 * -EINVAL when one cannot be encoded. For tests, as fm_add. */
int fm_deleted(struct fm *fm, const struct fm_key *keys, size_t n_keys,
                    uint64_t dpid, const struct fm_flow *sels, size_t n_sels);

/*
 * Another writer changed the flow (dpid, match_id) in the store — another
 * node of a cluster, whose change reached this node's store through its
 * replica —: the mirror follows the stored record. A new or replaced
 * version is mirrored in its stored state and queued as an ADD (the
 * switch's master sends it, env.may_write); a deleted or vanished one is
 * dropped and queued as a DELETE_STRICT; the same version only takes the
 * stored state (installed or error, as the master wrote it). Nothing is
 * written to the store. 0, or -ENOMEM, or the store's read error; a record
 * env.decode refuses is -EINVAL (logged, not managed, as at start).
 */
int fm_sync(struct fm *fm, uint64_t dpid, uint64_t match_id);

/* One flow of a switch's flow-statistics reply: the flow as an ADD would
 * install it, its identity, and what the switch counted. */
struct fm_snap_copy_entry {
    uint64_t dpid;
    uint64_t match_id, flow_id;
    struct fm_flow flow;
    uint64_t packet_count, byte_count;
    uint32_t duration_sec, duration_nsec;
};

/*
 * The last complete flow-statistics reply of dpid, taken (copied under the
 * lock) to be walked outside it, one entry at a time. take: NULL when the
 * switch is unknown (*err -ENOENT) or out of memory (-ENOMEM). next: the
 * next entry (valid until the next call), NULL at the end; an entry with an
 * action list longer than a flow holds (FM_FLOW_ACTIONS_MAX) is left out.
 */
struct fm_snap_copy;
struct fm_snap_copy *fm_snap_copy_take(struct fm *fm, uint64_t dpid, int *err);
const struct fm_snap_copy_entry *fm_snap_copy_next(struct fm_snap_copy *s);
void fm_snap_copy_free(struct fm_snap_copy *s);

void fm_get_stats(struct fm *fm, struct fm_stats *out);

struct ofcd_ctl;

/* ofcdctl's fm/queue [DPID] (fm_ctl.c): FLOW_MODs queued, reserved
 * and in flight per switch, read under the lock. 0 or ofcd_ctl_register's
 * error. */
int fm_ctl_register(struct fm *fm, struct ofcd_ctl *c);

#endif
