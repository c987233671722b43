/*
 * eline_watch: what moves an EVC once it is laid — Kytos' failover without
 * a failover path, driven by the controller: a port of an EVC's current
 * path that goes down (PORT_STATUS: deleted, link down, configured down)
 * or a switch of its path that goes down, and every EVC that crossed it is
 * taken off (its flows removed) and laid again on the topology's path now
 * (which no longer has that link: the topology saw the same event first,
 * under the switch view's lock), make before break (eline_move: the UNIs'
 * push flows turn to the new path in place, then the old path's leftovers
 * go). An enabled EVC that is not active (no
 * path when it was made or moved) is tried again every ELINE_RETRY_US, a
 * few per pass, as Kytos' consistency round does.
 *
 * Control thread (on_event, on_tick): it waits for the store as each EVC
 * is laid again (a few ms each with LMDB). Events on the stream:
 * evc.redeployed {id, name, why, links, ms}, evc.error {id, name, why}.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "eline_app.h"
#include "of_event.h"
#include "ofcd_clock.h"
#include "ofcd_log.h"
#include "ofp_msg.h"
#include "qmsg.h"
#include "rest_events.h"

#define ELINE_RETRY_US 10000000ull      /* an inactive EVC is tried again this often */
#define ELINE_RETRY_PER_PASS 4u         /* at most this many per pass of the control thread */

static bool crosses_links(const struct eline_link *l, size_t n, uint64_t dpid, uint32_t port)
{
    for (size_t i = 0; i < n; i++) {
        const struct eline_end *e[2] = {&l[i].a, &l[i].b};
        for (int k = 0; k < 2; k++)
            if (e[k]->dpid == dpid && (!port || e[k]->port == port))
                return true;
    }
    return false;
}

/* Does r's current path or its backup cross (dpid, port) (port 0: any
 * port of dpid)? (A backup that broke is made again too.) */
static bool crosses(const struct eline_rec *r, uint64_t dpid, uint32_t port)
{
    return crosses_links(r->path, r->n_path, dpid, port) ||
           crosses_links(r->backup, r->n_backup, dpid, port);
}

void eline_publish(struct eline_app *a, const char *kind, json_t *data)
{
    if (a->host->stream && data)
        rest_events_publish(a->host->stream, kind, data);
    json_decref(data);
}

/* r laid again, after why; under write_lock. */
static void move(struct eline_app *a, struct eline_rec *r, const char *why)
{
    uint64_t t0 = ofcd_clock_mono_us();
    int rc = eline_move(a, r);
    uint64_t ms = (ofcd_clock_mono_us() - t0) / 1000u;
    if (rc == 0) {
        LOG_INFO("eline", "EVC %s (%s): %s: laid again over %zu links in %" PRIu64 " ms",
                 r->id, r->req.name, why, r->n_path, ms);
        eline_publish(a, "evc.redeployed", json_pack("{s:s, s:s, s:s, s:I, s:I}", "id", r->id, "name",
                                               r->req.name, "why", why, "links",
                                               (json_int_t)r->n_path, "ms", (json_int_t)ms));
    } else {
        LOG_WARN("eline", "EVC %s (%s): %s: no path now (%s): not active until one comes",
                 r->id, r->req.name, why, strerror(-rc));
        eline_publish(a, "evc.error", json_pack("{s:s, s:s, s:s}", "id", r->id, "name", r->req.name,
                                          "why", why));
    }
}

/* Every live, active EVC crossing (dpid, port) moves. */
static void move_crossing(struct eline_app *a, uint64_t dpid, uint32_t port, const char *why)
{
    char ids[64][ELINE_ID_HEX + 1];
    size_t n, from = 0;

    /* In rounds of 64 ids, so the list is read under its lock and each EVC
     * moved under write_lock alone. */
    do {
        n = 0;
        size_t i;
        pthread_mutex_lock(&a->lock);
        for (i = from; i < a->n_evcs && n < 64; i++) {
            const struct eline_rec *r = a->evcs[i];
            if (!r->archived && r->active && crosses(r, dpid, port))
                memcpy(ids[n++], r->id, sizeof(ids[0]));
        }
        from = i;
        pthread_mutex_unlock(&a->lock);
        for (size_t k = 0; k < n; k++) {
            pthread_mutex_lock(&a->write_lock);
            pthread_mutex_lock(&a->lock);
            struct eline_rec *r = eline_find(a, ids[k]);
            bool still = r && !r->archived && r->active && crosses(r, dpid, port);
            pthread_mutex_unlock(&a->lock);
            if (still)
                move(a, r, why);
            pthread_mutex_unlock(&a->write_lock);
        }
    } while (n == 64);
}

void eline_watch_event(struct eline_app *a, const struct qmsg *ev)
{
    struct of_event_hdr h;
    char why[96];

    if (!a->host->fm || ev->len < sizeof(h))
        return;
    memcpy(&h, ev->data, sizeof(h));
    if (ev->kind == QMSG_EV_SWITCH_DOWN) {
        snprintf(why, sizeof(why), "switch %016" PRIx64 " down", h.dpid);
        move_crossing(a, h.dpid, 0, why);
        return;
    }
    const uint8_t *msg = ev->data + sizeof(h);
    size_t len = ev->len - sizeof(h);
    struct ofp_msg m;
    struct ofp_err err;
    if (ev->kind != QMSG_EV_OF || len < 8 || msg[1] != OFPT_PORT_STATUS ||
        ofp_decode(msg, len, &m, &err) < 0)
        return;
    const struct ofp_port_status *ps = &m.u.port_status;
    if (ps->reason != OFPPR_DELETE && !(ps->desc.state & OFPPS_LINK_DOWN) &&
        !(ps->desc.config & OFPPC_PORT_DOWN))
        return;
    snprintf(why, sizeof(why), "port %016" PRIx64 ":%" PRIu32 " down", h.dpid, ps->desc.port_no);
    move_crossing(a, h.dpid, ps->desc.port_no, why);
}

void eline_watch_tick(struct eline_app *a, uint64_t now_us)
{
    if (!a->host->fm || now_us - a->last_retry_us < ELINE_RETRY_US)
        return;
    a->last_retry_us = now_us;
    for (unsigned tries = 0; tries < ELINE_RETRY_PER_PASS; tries++) {
        char id[ELINE_ID_HEX + 1] = "";
        pthread_mutex_lock(&a->lock);
        for (size_t k = 0; k < a->n_evcs && !*id; k++) {
            size_t i = (a->retry_at + k) % a->n_evcs;
            const struct eline_rec *r = a->evcs[i];
            if (!r->archived && r->enabled && !r->active) {
                memcpy(id, r->id, sizeof(id));
                a->retry_at = i + 1;
            }
        }
        pthread_mutex_unlock(&a->lock);
        if (!*id)
            return;
        pthread_mutex_lock(&a->write_lock);
        pthread_mutex_lock(&a->lock);
        struct eline_rec *r = eline_find(a, id);
        bool still = r && !r->archived && r->enabled && !r->active;
        pthread_mutex_unlock(&a->lock);
        if (still && eline_deploy(a, r) == 0) {
            LOG_INFO("eline", "EVC %s (%s): deployed on a retry over %zu links", r->id,
                     r->req.name, r->n_path);
            eline_publish(a, "evc.deployed", json_pack("{s:s, s:s, s:I}", "id", r->id, "name",
                                                 r->req.name, "links", (json_int_t)r->n_path));
        }
        pthread_mutex_unlock(&a->write_lock);
    }
}
