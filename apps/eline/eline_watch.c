/*
 * eline_watch: what moves an EVC once it is laid — Kytos' failover without
 * a failover path, driven by the controller — on a thread of its own (the
 * circuits' worker), so a mass failover waits for the store there and
 * never holds up the control thread's event draining.
 *
 * What wakes it:
 *   - a hint from the control thread (eline_watch_event): a port of an
 *     EVC's path that went down (PORT_STATUS: deleted, link down,
 *     configured down) or a switch of its path that went down; every EVC
 *     crossing it moves at once;
 *   - the topology's count of changes moved (eline_watch_tick compares it
 *     each control pass): every laid EVC is judged (eline_path_judge: a
 *     link of its path or backup down however the topology learnt it —
 *     LLDP liveness, a link disabled over REST —, its primary path up
 *     again, a backup possible again) and moved if it must be, and every
 *     enabled EVC without a path is tried again;
 *   - every ELINE_SWEEP_US, the same sweep (what only ages: a link's
 *     liveness judged on the topology's tick);
 *   - an EVC's schedule coming due, or one added, changed or removed
 *     (eline_sched_run.c carries them out).
 * A move is make before break (eline_move); the EVCs to move or judge go
 * as Kytos orders them (the highest service_level first, then the
 * oldest), in rounds of 64, 8 at a time (their store waits shared). Hints past ELINE_HINTS_MAX
 * before the worker takes them turn into a sweep: none is lost. In a
 * cluster only the leader moves (the others drop the hints and follow its
 * records, eline_follow.c); a node that becomes the leader sweeps at once.
 *
 * Events on the stream: evc.failover {id, name, why} (its path broke with
 * a backup laid: the switches turned its traffic), evc.redeployed {id,
 * name, why, links, ms}, evc.deployed {id, name, links} (a retry),
 * evc.error {id, name, why}.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "eline_app.h"
#include "of_event.h"
#include "ofcd_clock.h"
#include "ofcd_log.h"
#include "ofp_msg.h"
#include "qmsg.h"
#include "rest_events.h"
#include "topo_class.h"
#include "topo_paths.h"

#define ELINE_SWEEP_US 10000000ull      /* every EVC judged, inactive ones tried, this often */
#define ELINE_FOLLOW_ALL_US 60000000ull /* a cluster's: every record read again, this often */

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
static void move(struct eline_app *a, struct eline_rec *r, const char *why, bool failover)
{
    /* Its path broke while a backup was laid: the switches' groups turned
     * its traffic already; the controller now settles it. */
    if (failover) {
        LOG_INFO("eline", "EVC %s (%s): %s: its traffic on its backup (fast-failover)", r->id,
                 r->req.name, why);
        eline_publish(a, "evc.failover", json_pack("{s:s, s:s, s:s}", "id", r->id, "name",
                                                   r->req.name, "why", why));
    }
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

/* One round of EVCs acted on by ELINE_MOVERS threads at once: each move
 * waits for the store two or three times and for nothing of another EVC,
 * so together their commits share the store's group commit (500 EVCs
 * moved in 2.4 s one at a time, each ~4 ms of waiting). The worker holds
 * the write turn for the round; each record is one thread's (its fields
 * written under the list's lock as always, S-VLANs taken under it). */
#define ELINE_ROUND 64

typedef void (*eline_act_fn)(struct eline_app *a, const char *id, size_t at, const void *arg);

struct round {
    struct eline_app *a;
    eline_act_fn act;
    const void *arg;
    char ids[ELINE_ROUND][ELINE_ID_HEX + 1];
    size_t at[ELINE_ROUND], n;
    atomic_size_t next;
};

/* Each EVC acted on while this node still leads: one that loses the lead
 * in a round lays nothing more (its records would be refused by etcd, its
 * flows not). */
static void *round_run(void *p)
{
    struct round *r = p;
    size_t k;

    while ((k = atomic_fetch_add(&r->next, 1)) < r->n && !eline_watch_stopping(r->a) &&
           eline_leads(r->a, NULL, 0))
        r->act(r->a, r->ids[k], r->at[k], r->arg);
    return NULL;
}

/* The round's acts on this thread and up to ELINE_MOVERS - 1 more (fewer
 * when a thread cannot be made: the others take its share). */
static void round_all(struct round *r)
{
    pthread_t t[ELINE_MOVERS - 1];
    size_t n = 0;

    atomic_init(&r->next, 0);
    while (n < ELINE_MOVERS - 1 && n + 1 < r->n && pthread_create(&t[n], NULL, round_run, r) == 0)
        n++;
    round_run(r);
    for (size_t i = 0; i < n; i++)
        pthread_join(t[i], NULL);
}

/* An EVC picked, in the order Kytos' mef_eline handles them (its
 * get_evcs_by_svc_level): the highest service_level first, then the
 * oldest. */
struct pick {
    size_t at;
    int level;
    char created[ELINE_TIME_LEN];
    char id[ELINE_ID_HEX + 1];
};

static int pick_order(const void *x, const void *y)
{
    const struct pick *p = x, *q = y;
    if (p->level != q->level)
        return p->level > q->level ? -1 : 1;
    int c = strcmp(p->created, q->created);
    return c ? c : p->at < q->at ? -1 : p->at > q->at;
}

/* Each EVC pick selects, read under the list's lock (never held across a
 * move) and ordered (pick_order), in rounds of 64 handed to act with its
 * index (the record found again there), under the write turn taken for
 * the round while this node leads; until the worker is asked to stop. */
static void each_evc(struct eline_app *a, bool (*pick)(const struct eline_rec *r, const void *arg),
                     eline_act_fn act, const void *arg)
{
    struct round r;
    struct pick *p = NULL;
    size_t n = 0;

    pthread_mutex_lock(&a->lock);
    if (a->n_evcs && (p = malloc(a->n_evcs * sizeof(*p))))
        for (size_t i = 0; i < a->n_evcs; i++) {
            const struct eline_rec *e = a->evcs[i];
            if (!pick(e, arg))
                continue;
            p[n] = (struct pick){.at = i, .level = e->req.service_level};
            memcpy(p[n].created, e->creation_time, sizeof(p[n].created));
            memcpy(p[n].id, e->id, sizeof(p[n].id));
            n++;
        }
    bool short_of_memory = a->n_evcs && !p;
    pthread_mutex_unlock(&a->lock);
    if (short_of_memory)
        LOG_ERR("eline", "out of memory: the EVCs not judged now (the next sweep will)");
    if (n > 1)
        qsort(p, n, sizeof(*p), pick_order);
    for (size_t from = 0; from < n && !eline_watch_stopping(a); from += ELINE_ROUND) {
        r = (struct round){.a = a, .act = act, .arg = arg};
        for (size_t k = from; k < n && r.n < ELINE_ROUND; k++) {
            r.at[r.n] = p[k].at;
            memcpy(r.ids[r.n++], p[k].id, sizeof(r.ids[0]));
        }
        if (!eline_write_lock_leading(a))
            break;                      /* no longer the cluster's leader */
        round_all(&r);
        eline_write_unlock(a);
    }
    free(p);
}

struct down {
    uint64_t dpid;
    uint32_t port;
    const char *why;
};

static bool crossing(const struct eline_rec *r, const void *arg)
{
    const struct down *d = arg;
    return !r->archived && r->active && crosses(r, d->dpid, d->port);
}

/* Under the round's write turn. */
static void move_one(struct eline_app *a, const char *id, size_t at, const void *arg)
{
    const struct down *d = arg;

    pthread_mutex_lock(&a->lock);
    struct eline_rec *r = eline_find_at(a, id, at);
    bool still = r && crossing(r, d);
    bool failover = still && r->n_backup && crosses_links(r->path, r->n_path, d->dpid, d->port);
    pthread_mutex_unlock(&a->lock);
    if (still)
        move(a, r, d->why, failover);
}

/* Every live, active EVC crossing (dpid, port) moves. */
static void move_crossing(struct eline_app *a, uint64_t dpid, uint32_t port, const char *why)
{
    struct down d = {dpid, port, why};
    each_evc(a, crossing, move_one, &d);
}

/* A hint for the worker, from the control thread. */
static void hint(struct eline_app *a, uint64_t dpid, uint32_t port, const char *why)
{
    struct eline_watch *w = &a->watch;

    pthread_mutex_lock(&w->lock);
    if (w->n_hints < ELINE_HINTS_MAX) {
        struct eline_hint *h = &w->hints[w->n_hints++];
        h->dpid = dpid;
        h->port = port;
        snprintf(h->why, sizeof(h->why), "%s", why);
    } else {
        w->sweep = true;
    }
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->lock);
}

void eline_watch_event(struct eline_app *a, const struct qmsg *ev)
{
    struct of_event_hdr h;
    char why[ELINE_WHY_LEN];

    if (!a->watch.started || ev->len < sizeof(h))
        return;
    memcpy(&h, ev->data, sizeof(h));
    if (ev->kind == QMSG_EV_SWITCH_DOWN) {
        snprintf(why, sizeof(why), "switch %016" PRIx64 " down", h.dpid);
        hint(a, h.dpid, 0, why);
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
    hint(a, h.dpid, ps->desc.port_no, why);
}

void eline_watch_tick(struct eline_app *a, uint64_t now_us)
{
    struct eline_watch *w = &a->watch;
    struct topo_rest *t = eline_topology(a);

    atomic_store(&a->tick_us, now_us);
    /* Started on the control thread's first pass: the switch view and
     * the lcores exist, and the tick's clock is set. */
    if (!w->started && !w->stop && eline_watch_start(a) < 0)
        w->stop = true;                 /* logged; not tried again */
    if (!w->started)
        return;
    /* A cluster's leader changes: the new one judges every EVC at once
     * (what went down while it did not lead was not its to move). */
    bool leads = eline_leads(a, NULL, 0);
    pthread_mutex_lock(&w->lock);
    bool changed = leads != w->leads;
    if (changed) {
        w->leads = leads;
        w->sweep |= leads && a->host->leads;
        pthread_cond_signal(&w->cv);
    }
    pthread_mutex_unlock(&w->lock);
    if (changed && a->host->leads)
        LOG_INFO("eline", "this node %s the circuits' changes (the cluster's leader)",
                 leads ? "now makes" : "no longer makes");
    if (!t)
        return;
    uint64_t v = topo_paths_version(t);
    if (v == w->topo_told)
        return;
    w->topo_told = v;
    pthread_mutex_lock(&w->lock);
    w->topo_moved = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->lock);
}

static bool live(const struct eline_rec *r, const void *arg)
{
    (void)arg;
    return !r->archived && r->enabled;
}

/* The EVC of id, under the round's write turn: judged and moved if it
 * must be when laid, tried again when not. */
static void judge_one(struct eline_app *a, const char *id, size_t at, const void *arg)
{
    char why[ELINE_WHY_LEN];

    (void)arg;
    pthread_mutex_lock(&a->lock);
    struct eline_rec *r = eline_find_at(a, id, at);
    bool is_live = r && live(r, NULL);
    bool active = is_live && r->active;
    /* One created with schedules and never laid waits for them (Kytos). */
    bool waits = is_live && json_array_size(r->req.circuit_scheduler) && !r->last_deployed_at[0];
    pthread_mutex_unlock(&a->lock);
    bool failover = false;
    if (active && eline_path_judge(a, r, why, sizeof(why), &failover) == 1) {
        move(a, r, why, failover);
    } else if (is_live && !active && !waits && eline_deploy(a, r) == 0) {
        LOG_INFO("eline", "EVC %s (%s): deployed on a retry over %zu links", r->id,
                 r->req.name, r->n_path);
        eline_publish(a, "evc.deployed", json_pack("{s:s, s:s, s:I}", "id", r->id, "name",
                                                   r->req.name, "links",
                                                   (json_int_t)r->n_path));
    }
}

/* Every live EVC judged (laid ones) or tried again (enabled ones without a
 * path). */
static void sweep(struct eline_app *a)
{
    each_evc(a, live, judge_one, NULL);
}

bool eline_watch_stopping(struct eline_app *a)
{
    pthread_mutex_lock(&a->watch.lock);
    bool stop = a->watch.stop;
    pthread_mutex_unlock(&a->watch.lock);
    return stop;
}

static void *watch_main(void *arg)
{
    struct eline_app *a = arg;
    struct eline_watch *w = &a->watch;
    struct eline_hint hints[ELINE_HINTS_MAX];
    char follow[ELINE_FOLLOW_MAX][ELINE_ID_HEX + 1];
    uint64_t next_sweep = ofcd_clock_mono_us() + ELINE_SWEEP_US;
    uint64_t next_follow_all = ofcd_clock_mono_us() + ELINE_FOLLOW_ALL_US;
    bool cluster = a->host->leads != NULL;
    /* The schedules (wall clock, UTC seconds): what fired after seen is
     * carried out; next_fire is when the next one does (-1: none). */
    int64_t seen = (int64_t)ofcd_clock_wall_s(), next_fire = -1;

    pthread_mutex_lock(&w->lock);
    for (;;) {
        uint64_t now = ofcd_clock_mono_us(), wake = next_sweep;
        int64_t wall = (int64_t)ofcd_clock_wall_s();
        if (next_fire >= 0) {
            uint64_t in = next_fire > wall ? (uint64_t)(next_fire - wall) * 1000000u : 0;
            if (now + in < wake)
                wake = now + in;
        }
        struct timespec until = ofcd_clock_deadline(wake > now ? wake - now : 0);
        while (!w->stop && !w->n_hints && !w->sweep && !w->topo_moved && !w->n_follow &&
               !w->follow_all && !w->sched_changed && ofcd_clock_mono_us() < wake)
            pthread_cond_timedwait(&w->cv, &w->lock, &until);
        if (w->stop)
            break;
        size_t n = w->n_hints, nf = w->n_follow;
        memcpy(hints, w->hints, n * sizeof(hints[0]));
        memcpy(follow, w->follow, nf * sizeof(follow[0]));
        w->n_hints = w->n_follow = 0;
        uint64_t at = ofcd_clock_mono_us();
        bool all = w->sweep || w->topo_moved || at >= next_sweep;
        /* In a cluster every record is read again now and then: a key the
         * watch named and the read missed (the store busy) is not lost. */
        bool follow_all = w->follow_all || (cluster && at >= next_follow_all);
        if (follow_all)
            next_follow_all = at + ELINE_FOLLOW_ALL_US;
        bool leads = w->leads;
        w->sweep = w->topo_moved = w->follow_all = w->sched_changed = false;
        pthread_mutex_unlock(&w->lock);
        /* Another node's changes first: a new leader moves what the last
         * one kept. */
        if (nf || follow_all)
            eline_follow_apply(a, follow, nf, follow_all);   /* a failed read: the next sweep's */
        for (size_t i = 0; leads && i < n; i++)
            move_crossing(a, hints[i].dpid, hints[i].port, hints[i].why);
        if (all && leads)
            sweep(a);
        if (all)
            next_sweep = ofcd_clock_mono_us() + ELINE_SWEEP_US;
        next_fire = eline_sched_run(a, &seen, (int64_t)ofcd_clock_wall_s(), leads);
        pthread_mutex_lock(&w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

int eline_watch_start(struct eline_app *a)
{
    struct eline_watch *w = &a->watch;

    if (!a->host->fm || w->started)
        return 0;
    const struct ofcd_config *c = a->host->cfg;
    uint64_t settle_s = c->topology ? 2ull * c->topo_lldp_interval_s + c->topo_link_timeout_s : 0;
    a->settle_us = settle_s * 1000000u;
    a->settle_until_us = ofcd_clock_mono_us() + a->settle_us;
    /* A switch that has not come back at all is waited for longer (its
     * reconnect backoff, a slow start). */
    a->absent_until_us = ofcd_clock_mono_us() +
                         (4 * a->settle_us > ELINE_ABSENT_MIN_US ? 4 * a->settle_us
                                                                 : ELINE_ABSENT_MIN_US);
    int rc = pthread_create(&w->thread, NULL, watch_main, a);
    if (rc) {
        LOG_ERR("eline", "cannot start the circuits' worker: %s", strerror(rc));
        return -rc;
    }
    w->started = true;
    return 0;
}

void eline_watch_ask_stop(struct eline_app *a)
{
    struct eline_watch *w = &a->watch;

    pthread_mutex_lock(&w->lock);
    w->stop = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->lock);
}

void eline_watch_stop(struct eline_app *a)
{
    struct eline_watch *w = &a->watch;

    if (!w->started)
        return;
    eline_watch_ask_stop(a);
    pthread_join(w->thread, NULL);
    w->started = false;
}
