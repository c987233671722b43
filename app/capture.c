/* capture: see capture.h. */
#include "capture.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "dpid.h"
#include "ofcd_clock.h"
#include "ofcd_inet.h"
#include "ofcd_pcapng.h"
#include "of_event.h"
#include "of_flight.h"
#include "ofp_msg.h"
#include "ofcd_log.h"

/* The ask of connection h (0: the switch's now) of dpid. */
static int ask_conn(struct app_ctx *app, uint64_t dpid, conn_handle_t h, char *why)
{
    char d[24];
    bool known = h != 0;

    dpid_format(dpid, d);
    pthread_mutex_lock(&app->ctl_lock);
    const struct ctl_switch *sw = !h && app->ctl ? sw_view_find(app->ctl, dpid) : NULL;
    if (sw) {
        h = sw->conn;
        known = true;
    }
    pthread_mutex_unlock(&app->ctl_lock);
    if (!known) {
        snprintf(why, CAPTURE_WHY_MAX, "no switch %s is known", d);
        return -ENOENT;
    }
    struct of_io *io = NULL;
    for (unsigned id = 0; id < RTE_MAX_LCORE && !io; id++)
        if (app->lcores[id].lc && app->lcores[id].io &&
            app->lcores[id].queue == conn_handle_io(h))
            io = app->lcores[id].ofio;
    if (!io || !app->cfg.of_recorder_kb) {
        snprintf(why, CAPTURE_WHY_MAX, "the flight recorder is off (openflow.recorder_kb = 0)");
        return -ENOTSUP;
    }
    pthread_mutex_lock(&app->capture.lock);
    int rc = app->capture.busy ? -EBUSY : of_io_flight_ask(io, h);
    if (rc == 0) {
        app->capture.busy = true;
        app->capture.dpid = dpid;
        app->capture.conn = h;
        app->capture.io = io;
    }
    pthread_mutex_unlock(&app->capture.lock);
    if (rc == -EBUSY)
        snprintf(why, CAPTURE_WHY_MAX, "busy: another capture is being copied; try again");
    else if (rc < 0)
        snprintf(why, CAPTURE_WHY_MAX, "the capture could not be asked for: %s",
                 strerror(-rc));
    return rc;
}

int capture_ask(struct app_ctx *app, uint64_t dpid, char *why)
{
    return ask_conn(app, dpid, 0, why);
}

int capture_ask_conn(struct app_ctx *app, uint64_t conn, char *why)
{
    return ask_conn(app, 0, conn, why);
}

void capture_drop(struct app_ctx *app)
{
    pthread_mutex_lock(&app->capture.lock);
    app->capture.busy = false;
    pthread_mutex_unlock(&app->capture.lock);
}

int capture_take(struct app_ctx *app, struct ofcd_pcapng *w, char *why)
{
    struct of_io_flight_ends e;
    struct of_flight_stats st = {0};
    const void *blob;
    size_t len;
    int rc;
    char d[24], who[48], peer[OFCD_PEER_STRLEN];

    memset(w, 0, sizeof(*w));
    if (!of_io_flight_answer(app->capture.io, &rc, &blob, &len, &e))
        return 1;
    dpid_format(app->capture.dpid, d);
    if (app->capture.dpid)
        snprintf(who, sizeof(who), "switch %s", d);
    else
        snprintf(who, sizeof(who), "connection %#llx", (unsigned long long)app->capture.conn);
    if (rc == -ENOENT) {
        snprintf(why, CAPTURE_WHY_MAX, "%s: the record of its last connection is gone "
                 "(its slot was taken by another connection)", who);
    } else if (rc < 0) {
        snprintf(why, CAPTURE_WHY_MAX, "%s: the record could not be copied: %s", who,
                 strerror(-rc));
    } else {
        of_flight_blob_each(blob, len, NULL, NULL, &st);
        snprintf(why, CAPTURE_WHY_MAX, "ofcd flight record: %s from %s, connection %s; "
                 "%llu messages recorded, %llu pushed out by newer ones, %llu shortened", who,
                 ofcd_peer_format(e.peer_ip, e.peer_port, peer), e.closed ? "over" : "open",
                 (unsigned long long)st.recorded, (unsigned long long)st.evicted,
                 (unsigned long long)st.truncated);
        struct ofcd_pcapng_ends ends = {e.peer_ip, app->cfg.ip, e.peer_port, e.local_port};
        /* The records carry the io lcore's clock; the capture the wall's. */
        int64_t shift = (int64_t)ofcd_clock_wall_ns() - (int64_t)(lcore_clock_us() * 1000u);
        rc = of_flight_pcapng(blob, len, &ends, shift, why, w);
        if (rc < 0) {
            ofcd_pcapng_free(w);
            snprintf(why, CAPTURE_WHY_MAX, "%s: the capture could not be made: %s", who,
                     strerror(-rc));
        }
    }
    /* The blob is read: the next ask may go. */
    capture_drop(app);
    return rc;
}

int capture_wait(struct app_ctx *app, uint64_t dpid, struct ofcd_pcapng *w, char *why)
{
    uint64_t end = ofcd_clock_mono_ms() + CAPTURE_WAIT_MS;
    int rc;

    memset(w, 0, sizeof(*w));
    /* Another capture (a freeze, ofcdctl's) takes a few ms: its turn first. */
    while ((rc = capture_ask(app, dpid, why)) == -EBUSY && ofcd_clock_mono_ms() < end)
        nanosleep(&(struct timespec){0, 200000}, NULL);
    if (rc < 0)
        return rc;
    while ((rc = capture_take(app, w, why)) == 1) {
        if (ofcd_clock_mono_ms() >= end) {
            capture_drop(app);
            snprintf(why, CAPTURE_WHY_MAX, "no answer from the switch's io lcore within %u ms "
                     "(is its loop stuck?)", CAPTURE_WAIT_MS);
            return -ETIMEDOUT;
        }
        nanosleep(&(struct timespec){0, 200000}, NULL);
    }
    return rc;
}

/* ---- frozen copies ------------------------------------------------------------ */

int capture_freeze(struct app_ctx *app, uint64_t dpid, uint64_t conn, enum capture_kind kind,
                   const char *reason)
{
    pthread_mutex_lock(&app->capture.shelf_lock);
    int rc = capture_shelf_ask(&app->capture.shelf, dpid, conn, kind, reason,
                               ofcd_clock_mono_us());
    pthread_mutex_unlock(&app->capture.shelf_lock);
    if (rc == -ENOSPC)
        LOG_WARN_RL(&app->capture.rl_full, ofcd_clock_mono_us(), "capture", "a freeze of "
                    "switch %016" PRIx64 "'s flight record (%s) let go: %u are waiting already",
                    dpid, capture_kind_name(kind), CAPTURE_SHELF_ASKS);
    return rc;
}

/* The capture of the freeze in progress, onto the shelf. */
static void freeze_done(struct app_ctx *app, int rc, struct ofcd_pcapng *w, const char *why)
{
    const struct capture_ask *a = &app->capture.freeze;
    char d[24];

    dpid_format(a->dpid, d);
    app->capture.freezing = false;
    if (rc < 0) {
        pthread_mutex_lock(&app->capture.shelf_lock);
        capture_shelf_done(&app->capture.shelf);
        pthread_mutex_unlock(&app->capture.shelf_lock);
        LOG_WARN("capture", "switch %s: its flight record was not frozen (%s: %s): %s", d,
                 capture_kind_name(a->kind), a->reason, why);
        return;
    }
    /* Kept as long as the copy: its growth room goes. */
    uint8_t *fit = realloc(w->p, w->len ? w->len : 1);
    if (fit)
        w->p = fit;
    uint32_t id = 0;
    pthread_mutex_lock(&app->capture.shelf_lock);
    rc = capture_shelf_put(&app->capture.shelf, ofcd_clock_wall_ns(), why, w->p, w->len, &id);
    pthread_mutex_unlock(&app->capture.shelf_lock);
    w->p = NULL;                     /* the shelf's now (freed there on error) */
    if (rc < 0)
        LOG_WARN("capture", "switch %s: its flight record was not frozen (%s: %s): %zu bytes "
                 "is more than openflow.recorder_frozen copies may take", d,
                 capture_kind_name(a->kind), a->reason, w->len);
    else
        LOG_INFO("capture", "switch %s: flight record frozen as capture %u (%s: %s); "
                 "ofcdctl capture/save %s FILE %u", d, id, capture_kind_name(a->kind),
                 a->reason, d, id);
}

void capture_freeze_tick(struct app_ctx *app)
{
    char why[CAPTURE_WHY_MAX];
    struct ofcd_pcapng w;

    if (app->capture.freezing) {
        int rc = capture_take(app, &w, why);
        if (rc == 1 && ofcd_clock_mono_ms() < app->capture.freeze_deadline_ms)
            return;
        if (rc == 1) {
            capture_drop(app);
            snprintf(why, sizeof(why), "no answer from the switch's io lcore within %u ms",
                     CAPTURE_WAIT_MS);
            rc = -ETIMEDOUT;
        }
        freeze_done(app, rc, &w, why);
        ofcd_pcapng_free(&w);
        return;
    }
    if (!app->capture.freeze_held) {
        pthread_mutex_lock(&app->capture.shelf_lock);
        app->capture.freeze_held = capture_shelf_take_ask(&app->capture.shelf,
                                                          &app->capture.freeze);
        pthread_mutex_unlock(&app->capture.shelf_lock);
        if (!app->capture.freeze_held)
            return;
        app->capture.freeze_deadline_ms = ofcd_clock_mono_ms() + CAPTURE_WAIT_MS;
    }
    int rc = ask_conn(app, app->capture.freeze.dpid, app->capture.freeze.conn, why);
    /* A capture/get or a download first (next tick), but not for ever: an
     * io lcore that never answered keeps its ask slot. */
    if (rc == -EBUSY && ofcd_clock_mono_ms() < app->capture.freeze_deadline_ms)
        return;
    app->capture.freeze_held = false;
    if (rc < 0) {
        freeze_done(app, rc, &w, why);
        return;
    }
    app->capture.freezing = true;
    app->capture.freeze_deadline_ms = ofcd_clock_mono_ms() + CAPTURE_WAIT_MS;
}

/* An OFPT_ERROR that is part of laying a group or meter, not a fault: the
 * switch kept the id across a reconnect (an ADD answered *_EXISTS) or
 * lost it (a MODIFY answered UNKNOWN_*), and the flow manager sends the
 * other command (fm_gm.h). Each reconnect of a switch with groups meets
 * it; a copy frozen for each would push the useful ones off the shelf.
 * (Its retry refused the same way is logged and counted by the flow
 * manager, gm_errors, and not frozen either.) */
static bool capture_error_expected(const struct ofp_error *e)
{
    /* The refused request's type, from the copy of its header the error
     * carries: UNKNOWN_METER also answers a FLOW_MOD whose meter
     * instruction names a missing meter, a fault worth a copy. */
    uint8_t refused = e->data && e->data_len >= 2 ? e->data[1] : 0;
    if (e->type == OFPET_GROUP_MOD_FAILED && refused == OFPT_GROUP_MOD)
        return e->code == OFPGMFC_GROUP_EXISTS || e->code == OFPGMFC_UNKNOWN_GROUP;
    if (e->type == OFPET_METER_MOD_FAILED && refused == OFPT_METER_MOD)
        return e->code == OFPMMFC_METER_EXISTS || e->code == OFPMMFC_UNKNOWN_METER;
    return false;
}

void capture_on_worker_event(struct app_ctx *app, const struct qmsg *q)
{
    struct of_event_hdr hdr;
    char reason[CAPTURE_REASON_MAX];

    if (!app->capture.shelf.max || q->len < sizeof(hdr))
        return;
    memcpy(&hdr, q->data, sizeof(hdr));
    const uint8_t *m = q->data + sizeof(hdr);
    size_t len = q->len - sizeof(hdr);
    /* The connection the event is of: a switch back at once keeps the old
     * one's record apart. */
    if (q->kind == QMSG_EV_SWITCH_DOWN) {
        capture_freeze(app, hdr.dpid, q->conn, CAPTURE_KIND_DISCONNECT, "its connection ended");
    } else if (q->kind == QMSG_EV_OF && len >= OFP13_HEADER_LEN && m[1] == OFPT_ERROR) {
        struct ofp_msg msg;
        struct ofp_err err;
        if (ofp_decode(m, len, &msg, &err) == 0) {
            const struct ofp_error *e = &msg.u.error;
            if (capture_error_expected(e))
                return;
            snprintf(reason, sizeof(reason), "OFPT_ERROR type %u code %u, xid %u",
                     (unsigned)e->type,
                     (unsigned)(e->type == OFPET_EXPERIMENTER ? e->exp_type : e->code),
                     (unsigned)msg.hdr.xid);
        } else {
            snprintf(reason, sizeof(reason), "OFPT_ERROR that does not decode");
        }
        capture_freeze(app, hdr.dpid, q->conn, CAPTURE_KIND_ERROR, reason);
    }
}

int capture_frozen_copy(struct app_ctx *app, uint64_t dpid, uint32_t id, uint8_t **out,
                        size_t *len, char *why)
{
    int rc = 0;

    pthread_mutex_lock(&app->capture.shelf_lock);
    const struct capture_copy *c = capture_shelf_find(&app->capture.shelf, id);
    if (!c || c->dpid != dpid) {
        snprintf(why, CAPTURE_WHY_MAX, "%s", c ? "that frozen capture is another switch's"
                 : "no frozen capture has that id (the oldest go first: "
                   "openflow.recorder_frozen)");
        rc = -ENOENT;
    } else if (!(*out = malloc(c->len ? c->len : 1))) {   /* copied: the shelf may drop it */
        snprintf(why, CAPTURE_WHY_MAX, "out of memory");
        rc = -ENOMEM;
    } else {
        memcpy(*out, c->pcap, c->len);
        *len = c->len;
        snprintf(why, CAPTURE_WHY_MAX, "frozen capture %u (%s: %.60s): %.150s", id,
                 capture_kind_name(c->kind), c->reason, c->summary);
    }
    pthread_mutex_unlock(&app->capture.shelf_lock);
    return rc;
}

json_t *capture_frozen_json(struct app_ctx *app, uint64_t dpid)
{
    json_t *list = json_array();
    char when[CAPTURE_WHEN_LEN];
    bool ok = list != NULL;

    pthread_mutex_lock(&app->capture.shelf_lock);
    const struct capture_shelf *s = &app->capture.shelf;
    unsigned max = s->max;
    for (unsigned i = 0; ok && i < s->n; i++) {
        const struct capture_copy *c = capture_shelf_at(s, i);
        if (c->dpid != dpid)
            continue;
        capture_copy_when(c, when);
        /* The texts are ofcd's own (ASCII): json_pack cannot refuse them. */
        ok = json_array_append_new(list, json_pack("{s:I, s:s, s:s, s:s, s:s, s:I}", "id",
                                                   (json_int_t)c->id, "time", when, "kind",
                                                   capture_kind_name(c->kind), "reason",
                                                   c->reason, "summary", c->summary, "bytes",
                                                   (json_int_t)c->len)) == 0;
    }
    pthread_mutex_unlock(&app->capture.shelf_lock);
    if (!ok) {
        json_decref(list);
        return NULL;
    }
    return json_pack("{s:o, s:I}", "captures", list, "max", (json_int_t)max);
}
