/*
 * eline_app: the circuits app's state — its EVCs — and what its parts
 * (eline_evc.c: a record's JSON and keeping; eline_deploy.c: paths, tags
 * and flows; eline_rest.c: mef_eline v2's routes; eline_class.c: the app
 * class) share. Nothing outside apps/eline includes it.
 *
 * Locks: write_lock makes one change at a time (a create, a delete: each
 * reads the EVCs to choose tags, then waits for the store), taken with the
 * topology's pools (eline_write_lock: no tag_ranges change in between);
 * lock guards the list and every record's fields, held only to read or
 * write them, never across the store or the topology. Order: write_lock,
 * the pools, lock. The worker's moves run on up to 8 threads under one
 * write turn (eline_watch.c), each on records of its own: what they share
 * (S-VLANs chosen, plan_rl) is under lock.
 */
#ifndef OFCD_ELINE_APP_H
#define OFCD_ELINE_APP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "app_class.h"
#include "eline_layout.h"
#include "eline_req.h"
#include "ofcd_ratelimit.h"
#include "rest.h"

#define ELINE_ID_HEX 14                  /* an EVC id: 14 hex digits (56 bits) */
#define ELINE_PATH_MAX 64                /* links in a path */
#define ELINE_MOVERS 8                   /* the worker's moves at once (eline_watch.c) */
#define ELINE_MAX_EVCS 100000u
#define ELINE_RECORD_PREFIX "mef_eline/evc/"
#define ELINE_TIME_LEN 24                /* "2026-12-07T01:02:03" */

struct eline_rec {
    char id[ELINE_ID_HEX + 1];
    json_t *request;                     /* the NewCircuit body as accepted (owned) */
    struct eline_req req;                /* read from it (points into it) */
    bool enabled, active, archived;
    char creation_time[ELINE_TIME_LEN];
    char last_deployed_at[ELINE_TIME_LEN];   /* "" = never */
    struct eline_link path[ELINE_PATH_MAX];  /* the current path, S-VLANs chosen */
    size_t n_path;
    /* Its backup (Kytos' failover_path): a path sharing no link with the
     * current one, laid beside it behind a fast-failover group gid at
     * each UNI's switch (0 and n_backup 0: none). */
    struct eline_link backup[ELINE_PATH_MAX];
    size_t n_backup;
    uint32_t gid;
    /* Its meters (apps.mef_eline_meters, a bandwidth asked): meter id
     * `meter` on uni_a's switch, meter + 1 on uni_z's, each on the traffic
     * entering there (0: unmetered). */
    uint32_t meter;
    /* Unprotected because the topology had no second way when it was laid,
     * so a link's return may protect it (not kept: read back, every
     * unprotected EVC that may have a dynamic backup is taken for one). */
    bool lone;
    /* Its path and backup seen up since this process laid or loaded it:
     * until then (after a restart, before LLDP found the links again) a
     * link of them missing from the topology is not yet taken for a link
     * down. */
    bool seen_up;
    /* The FNV-1a of the record's text as this node last wrote or read it:
     * in a cluster, the watch's copy of a write is this node's own when it
     * hashes the same (eline_follow.c). Under lock. */
    uint64_t kept_hash;
    /* Its last save failed or its outcome is not known: memory is ahead
     * of the store (a leader keeps it again rather than take the store's
     * older text back). Under lock. */
    bool unkept;
};

#define ELINE_HINTS_MAX 256              /* hints queued for the worker before a sweep */
#define ELINE_FOLLOW_MAX 256             /* records named by the watch before a full read */
#define ELINE_ABSENT_MIN_US 60000000ull  /* a switch not back waited for at least this */
#define ELINE_WHY_LEN 96
#define ELINE_NAME_LEN 128               /* an EVC's name as logs and events copy it */

/* A port (0: the whole switch) gone down, for the worker. */
struct eline_hint {
    uint64_t dpid;
    uint32_t port;
    char why[ELINE_WHY_LEN];
};

/* The circuits' worker (eline_watch.c): lock and cv guard the fields up
 * to topo_moved; topo_told is the control thread's own. */
struct eline_watch {
    pthread_t thread;
    bool started;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    bool stop;
    bool sweep;                          /* hints were dropped: judge every EVC */
    bool topo_moved;                     /* the topology's count of changes moved */
    struct eline_hint hints[ELINE_HINTS_MAX];
    size_t n_hints;
    /* A cluster's (eline_follow.c): the records the watch named, a full
     * read asked for, whether this node leads (the control thread's
     * look, each pass). */
    char follow[ELINE_FOLLOW_MAX][ELINE_ID_HEX + 1];
    size_t n_follow;
    bool follow_all;
    bool leads;
    bool sched_changed;                  /* a schedule added, changed or removed */
    struct ofcd_ratelimit follow_rl;     /* records that cannot be read, logged */
    uint64_t topo_told;                  /* the count last told */
};

struct eline_app {
    const struct app_host *host;
    uint16_t lldp_vlan;                  /* never an S-VLAN (topology.lldp_vlan; 0: none) */
    bool fast_failover;                  /* apps.mef_eline_fast_failover */
    bool meters;                         /* apps.mef_eline_meters */
    pthread_mutex_t write_lock;
    pthread_mutex_t lock;
    struct topo_rest *pools;             /* the pools taken from (eline_tags_register) */
    struct eline_rec **evcs;
    size_t n_evcs, cap_evcs;
    uint32_t *index;                     /* eline_find's: by id (eline_evc.c) */
    size_t cap_index;
    /* The paths the moves in flight leave (eline_move's own copies of
     * them): their S-VLANs stay taken until their flows are off, or a mover
     * beside could lay the same match with its own S-VLAN and the leaving
     * EVC's removal take it. One slot per mover (r NULL: free). Under lock. */
    struct eline_leaving {
        const struct eline_rec *r;
        const struct eline_link *path, *backup;
        size_t n_path, n_backup;
    } leaving[ELINE_MOVERS];
    struct rest_ext route;
    struct eline_watch watch;
    /* A path not yet seen up is not judged down before settle_until_us
     * (monotonic: the worker's start plus settle_us, two LLDP rounds and a
     * link's timeout), nor while a switch of it has been up less than
     * settle_us (the control thread's clock, tick_us: links take that
     * long to be found). */
    uint64_t settle_us, settle_until_us, absent_until_us;
    atomic_uint_fast64_t tick_us;
    struct ofcd_ratelimit plan_rl;       /* a path that cannot be laid (under lock) */
};

/* ---- eline_evc.c ---------------------------------------------------------------- */

/* A new record of a request's body (taken: body's reference moves to it,
 * whatever the outcome), read once (eline_req_parse), its creation time
 * set and its id empty: 0 with *out; -EINVAL with the request's refusal in
 * err; -ENOMEM. */
int eline_rec_new(json_t *body, struct eline_rec **out, char *err, size_t errlen);
void eline_rec_free(struct eline_rec *r);
/* r and n exchange their requests and what was read from them (a PATCH's
 * new reading, or a change put back; n's is freed with n). Under lock. */
void eline_rec_swap_request(struct eline_rec *r, struct eline_rec *n);
/* Kytos' as_dict of the EVC. New reference; NULL when out of memory. */
json_t *eline_rec_dict(const struct eline_rec *r);
/* Kept as the app record ELINE_RECORD_PREFIX<id> (waits for the store);
 * r->kept_hash and r->unkept set. 0 (etcd's "stored, not yet in this
 * node's copy" included), or the store's error. */
int eline_rec_save(struct eline_app *a, struct eline_rec *r);
/* A kept record's text read into a new record (its id set, not in any
 * list): 0; -EINVAL when it is not an EVC this ofcd can read (its request
 * no longer parses, or out of memory reading it), why in err. */
int eline_rec_read(const void *val, size_t len, struct eline_rec **out, char *err,
                   size_t errlen);
/* Every kept record into a's list (at start). */
int eline_rec_load_all(struct eline_app *a);
/* Under lock: the record of id, archived or not; NULL. */
struct eline_rec *eline_find(struct eline_app *a, const char *id);
/* The same where it was seen at index at (records never leave the list):
 * no search unless the list moved. */
struct eline_rec *eline_find_at(struct eline_app *a, const char *id, size_t at);
/* Under lock: r joins the list (0, -ENOMEM, -ENOSPC past ELINE_MAX_EVCS). */
int eline_add(struct eline_app *a, struct eline_rec *r);
/* Under lock: the last record added leaves the list (a create that could
 * not be kept; the caller frees it). */
void eline_drop_last(struct eline_app *a);
/* Now as Kytos writes times ("%Y-%m-%dT%H:%M:%S", UTC). */
void eline_now_text(char out[ELINE_TIME_LEN]);

/* ---- eline_path.c ------------------------------------------------------------------- */

bool eline_same_link(const struct eline_link *x, const struct eline_link *y);
struct topo_rest;
/* The topology app's paths and pools; NULL when it is off. */
struct topo_rest *eline_topology(struct eline_app *a);
/* r's path now: n links into out (S-VLANs not chosen), and a backup
 * sharing no link with it into backup (*n_backup 0: none; *lone when the
 * topology had none). 0; -ENOENT when no path is up; -EINVAL when a given
 * path does not join the UNIs; -E2BIG; -ENOMEM. Under write_lock. */
int eline_path_find(struct eline_app *a, const struct eline_rec *r, struct eline_link *out,
                    size_t *n, struct eline_link *backup, size_t *n_backup, bool *lone);
/* primary_constraints and secondary_constraints (NULL: not given) read as
 * pathfinder reads constraints: 0; -EINVAL with Kytos' 400 message in err
 * naming the field ("primary_constraints.spf_attribute: ..."); -ENOMEM.
 * Asked of a new request and of a PATCH's own fields, never of an EVC read
 * back (one kept by an earlier ofcd stays managed: a constraint that does
 * not read is then no constraint, eline_path.c). */
int eline_path_cons_check(json_t *primary, json_t *secondary, char *err, size_t errlen);
/* Should the laid EVC r move now (its path or backup has a link down; its
 * primary path is up again while it is elsewhere; it went unprotected for
 * want of a second way and one is there)? 1 with the reason in why; 0;
 * -errno when the topology cannot say. A path never seen up (r->seen_up)
 * is not judged down before a->settle_until_us. *failover: its path is
 * down while a backup is laid (the switches turned its traffic). Under
 * write_lock. */
int eline_path_judge(struct eline_app *a, struct eline_rec *r, char *why, size_t len,
                     bool *failover);

/* ---- eline_tags.c --------------------------------------------------------------------- */

/* r's UNI tags against their interfaces' pools (tag_ranges, special
 * tags): 0, or 400 with the message in why. No topology: 0. */
unsigned eline_uni_pool(struct eline_app *a, const struct eline_rec *r, char *why, size_t len);
/* The S-VLANs link l may take: both ends' pools (all 1..4094 without the
 * topology). 0 or -ENOMEM. Not under lock. */
int eline_link_pool(struct eline_app *a, const struct eline_link *l, uint64_t *set);
/* The circuits take tags from the topology's pools from now on (at load). */
void eline_tags_register(struct eline_app *a);
/* The circuits' write turn (every change: create, PATCH, DELETE, redeploy,
 * the worker's moves): write_lock, then the topology's pools held
 * (topo_rest_pools_hold), so an interface's tag_ranges or special_tags do
 * not change between a check of its tags and their taking. */
void eline_write_lock(struct eline_app *a);
void eline_write_unlock(struct eline_app *a);
/* The tags UNI u takes on interface (dpid, port), when it is there: its
 * VIDs set in used (4096 bits), "untagged" and "any" as TOPO_SPECIAL_* in
 * special. */
void eline_uni_tags_on(const struct eline_uni_req *u, uint64_t dpid, uint32_t port,
                       uint64_t *used, unsigned *special);
/* The S-VLANs links l[0..n) carry on interface (dpid, port) (a link with
 * an end there), set in used. */
void eline_links_tags_on(const struct eline_link *l, size_t n, uint64_t dpid, uint32_t port,
                         uint64_t *used);

/* ---- eline_deploy.c --------------------------------------------------------------- */

/* Under write_lock: r's UNI tags against the other live EVCs'. 0, or the
 * status (400 a tag in use, 409 a port without tag taken twice) with the
 * message in why. */
unsigned eline_uni_conflict(struct eline_app *a, const struct eline_rec *r, char *why,
                            size_t len);
/* Under write_lock: find r's path (its primary_path, or the topology's
 * shortest), choose its S-VLANs, keep r with them, lay its flows, keep r
 * active. 0 (active), -ENOENT (no path now: not deployed), or another
 * error (logged; not deployed, what was laid of it removed). r is kept in
 * the store either way (its save's failure logged). */
int eline_deploy(struct eline_app *a, struct eline_rec *r);
/* Under write_lock: r, laid, moved to the path the topology has now,
 * make before break: the new path's flows laid first (the UNI's push flow
 * replaced in place, so its traffic turns at once), then exactly those of
 * the old path the new one does not use removed. 0 (active on the new
 * path); else nothing of it is left on any switch (inactive). Not laid: as
 * eline_deploy. */
int eline_move(struct eline_app *a, struct eline_rec *r);
/* Under write_lock: every flow of r off its switches (the path's and the
 * UNIs'); r's path cleared. */
int eline_undeploy(struct eline_app *a, struct eline_rec *r);

/* ---- eline_watch.c ----------------------------------------------------------------- */

struct qmsg;
/* The worker: started once the EVCs are loaded (no flow manager: none);
 * stopped before the store closes (the class's quiesce), its move in
 * progress finished. */
int eline_watch_start(struct eline_app *a);
void eline_watch_stop(struct eline_app *a);
/* Ask the worker to stop (SIGTERM: its sweep ends at the next EVC);
 * whether it is asked (a sweep ends early). */
void eline_watch_ask_stop(struct eline_app *a);
bool eline_watch_stopping(struct eline_app *a);
/* On the control thread: a worker event (a port or a switch down: a hint
 * for the worker); the tick (the topology's count of changes compared). */
void eline_watch_event(struct eline_app *a, const struct qmsg *ev);
void eline_watch_tick(struct eline_app *a, uint64_t now_us);
/* data (stolen; NULL: nothing) on the event stream as kind. */
void eline_publish(struct eline_app *a, const char *kind, json_t *data);

/* ---- eline_follow.c ----------------------------------------------------------------- */

/* Does this node change the circuits (one node, or a cluster's leader)?
 * The leader's name and REST address into leader (len 0: not asked). */
bool eline_leads(struct eline_app *a, char *leader, size_t len);
/* The write turn taken (eline_write_lock) while this node leads: true;
 * false (nothing held) when it does not lead any more, so a change
 * admitted before a leader change is not made by two nodes. */
bool eline_write_lock_leading(struct eline_app *a);
/* The answer to a change on a node that does not lead: 503 naming the
 * leader. */
unsigned eline_not_leader(struct eline_app *a, json_t **out);
/* From the store's committer (the class's store_changed): an EVC record
 * written by some node, for the worker to read (quick; never waits). */
void eline_follow_changed(struct eline_app *a, const char *key);
/* On the worker: the records of id[0..n) read into the list, and every
 * record when all. 0, or the store's error for the full read (logged). */
int eline_follow_apply(struct eline_app *a, const char (*id)[ELINE_ID_HEX + 1], size_t n,
                       bool all);

/* ---- eline_sched_run.c, eline_sched_rest.c ------------------------------------------ */

/* On the worker: the schedules that fired in (*seen, now] (UTC seconds)
 * carried out when leads, *seen moved to now; the earliest firing after
 * now returned (-1: none). */
int64_t eline_sched_run(struct eline_app *a, int64_t *seen, int64_t now, bool leads);
/* A client's circuit_scheduler list (NULL: none): each schedule without
 * an id given one (32 hex digits, as Kytos), and an id another schedule
 * holds (of another EVC than evc, or twice in the list) refused. 0, or the
 * answer's status (409, 500) with *out set. */
unsigned eline_sched_ids(struct eline_app *a, json_t *list, const char *evc, json_t **out);
/* The worker looks at the schedules again (one added, changed or removed). */
void eline_sched_changed(struct eline_app *a);
/* evc/schedule/[id] (id "" for the list's routes). */
unsigned eline_sched_route(struct eline_app *a, const struct rest_ext_req *q, const char *id,
                           json_t **out);

/* ---- eline_rest.c ----------------------------------------------------------------- */

unsigned eline_rest_handle(void *arg, const struct rest_ext_req *q, json_t **out);
/* The request's body as a JSON object (a new reference); NULL with 400
 * "Invalid json: ..." or not_object in *out and its status in *st. */
json_t *eline_body_object(const struct rest_ext_req *q, const char *not_object, json_t **out,
                          unsigned *st);
/* digits (even, at most 64) random hex digits and a NUL into out: 0, -EIO. */
int eline_random_hex(char *out, size_t digits);

/* ---- eline_meta.c ----------------------------------------------------------------- */

/* The metadata routes: id NULL for the bulk ones; key the path's last
 * part (NULL: none). */
unsigned eline_meta_route(struct eline_app *a, const struct rest_ext_req *q, const char *id,
                          const char *key, json_t **out);
/* Does r's metadata at the dotted path equal value (read as Kytos reads a
 * query's: an integer, true/false/null, else text)? Under lock. */
bool eline_meta_match(const struct eline_rec *r, const char *path, const char *value);

#endif
