/*
 * eline_app: the circuits app's state — its EVCs — and what its parts
 * (eline_evc.c: a record's JSON and keeping; eline_deploy.c: paths, tags
 * and flows; eline_rest.c: mef_eline v2's routes; eline_class.c: the app
 * class) share. Nothing outside apps/eline includes it.
 *
 * Locks: write_lock makes one change at a time (a create, a delete: each
 * reads the EVCs to choose tags, then waits for the store); lock guards
 * the list and every record's fields, held only to read or write them,
 * never across the store or the topology.
 */
#ifndef OFCD_ELINE_APP_H
#define OFCD_ELINE_APP_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "app_class.h"
#include "eline_layout.h"
#include "eline_req.h"
#include "rest.h"

#define ELINE_ID_HEX 14                  /* an EVC id: 14 hex digits (56 bits) */
#define ELINE_PATH_MAX 64                /* links in a path */
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
};

struct eline_app {
    const struct app_host *host;
    uint16_t lldp_vlan;                  /* never an S-VLAN (topology.lldp_vlan; 0: none) */
    bool fast_failover;                  /* apps.mef_eline_fast_failover */
    pthread_mutex_t write_lock;
    pthread_mutex_t lock;
    struct eline_rec **evcs;
    size_t n_evcs, cap_evcs;
    struct rest_ext route;
    /* eline_watch.c's, the control thread's */
    uint64_t last_retry_us;
    size_t retry_at;
};

/* ---- eline_evc.c ---------------------------------------------------------------- */

/* A new record of a request's body (taken: body's reference moves to it,
 * whatever the outcome), read once (eline_req_parse), its creation time
 * set and its id empty: 0 with *out; -EINVAL with the request's refusal in
 * err; -ENOMEM. */
int eline_rec_new(json_t *body, struct eline_rec **out, char *err, size_t errlen);
void eline_rec_free(struct eline_rec *r);
/* Kytos' as_dict of the EVC. New reference; NULL when out of memory. */
json_t *eline_rec_dict(const struct eline_rec *r);
/* Kept as the app record ELINE_RECORD_PREFIX<id> (waits for the store). */
int eline_rec_save(struct eline_app *a, const struct eline_rec *r);
/* Every kept record into a's list (at start). */
int eline_rec_load_all(struct eline_app *a);
/* Under lock: the record of id, archived or not; NULL. */
struct eline_rec *eline_find(struct eline_app *a, const char *id);
/* Under lock: r joins the list (0, -ENOMEM, -ENOSPC past ELINE_MAX_EVCS). */
int eline_add(struct eline_app *a, struct eline_rec *r);
/* Now as Kytos writes times ("%Y-%m-%dT%H:%M:%S", UTC). */
void eline_now_text(char out[ELINE_TIME_LEN]);

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
/* On the control thread: a worker event (a port or a switch down moves
 * the EVCs crossing it); the tick (inactive EVCs tried again). */
void eline_watch_event(struct eline_app *a, const struct qmsg *ev);
void eline_watch_tick(struct eline_app *a, uint64_t now_us);
/* data (stolen; NULL: nothing) on the event stream as kind. */
void eline_publish(struct eline_app *a, const char *kind, json_t *data);

/* ---- eline_rest.c ----------------------------------------------------------------- */

unsigned eline_rest_handle(void *arg, const struct rest_ext_req *q, json_t **out);

#endif
