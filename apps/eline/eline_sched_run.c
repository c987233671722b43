/*
 * eline_sched_run: the EVCs' schedules carried out, on the circuits'
 * worker of the node that changes the circuits (eline_leads), as Kytos'
 * scheduler runs them: "create" enables the EVC and lays it when it is not
 * laid, "remove" takes it off its switches and disables it (so no retry
 * lays it again); an archived EVC's schedules do nothing. A firing missed
 * while the node did not run or did not lead is not made up later (Kytos'
 * scheduler lets a missed job go too); the firings the worker finds at one
 * look go in time order, each schedule once. Each firing is logged with the
 * EVC's and the schedule's ids and published as evc.scheduled.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eline_app.h"
#include "eline_sched.h"
#include "ofcd_log.h"

struct sched_due {
    char evc[ELINE_ID_HEX + 1];
    char id[ELINE_SCHED_ID_MAX];
    enum eline_sched_action action;
    int64_t at;                         /* its last firing in the window */
    size_t order;                       /* found order: ties keep it */
};

struct sched_scan {
    struct sched_due *due;
    size_t n, cap;
    int64_t next;                       /* the earliest firing after now, -1: none */
};

static int64_t time_of(const char *text)
{
    int64_t t = 0;
    return text && eline_sched_time(text, &t) == 0 ? t : 0;
}

static int due_add(struct sched_scan *sc, const struct eline_rec *r, const struct eline_sched *s,
                   int64_t at)
{
    if (sc->n == sc->cap) {
        size_t cap = sc->cap ? 2 * sc->cap : 16;
        void *v = realloc(sc->due, cap * sizeof(*sc->due));
        if (!v)
            return -ENOMEM;
        sc->due = v;
        sc->cap = cap;
    }
    struct sched_due *d = &sc->due[sc->n++];
    memcpy(d->evc, r->id, sizeof(d->evc));
    memcpy(d->id, s->id, sizeof(d->id));
    d->action = s->action;
    d->at = at;
    d->order = sc->n - 1;
    return 0;
}

/* In time order: a window that holds a "remove" and a later "create" of
 * one EVC ends with it laid, whatever their order in its list. */
static int due_order(const void *x, const void *y)
{
    const struct sched_due *a = x, *b = y;
    if (a->at != b->at)
        return a->at < b->at ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* Under lock: r's schedules that fired in (seen, now] into sc (each
 * once, at its last firing there), and its next one after now into
 * sc->next. */
static int scan_one(const struct eline_rec *r, int64_t seen, int64_t now, struct sched_scan *sc)
{
    int64_t start = time_of(r->req.start_date), end = time_of(r->req.end_date);
    int64_t created = time_of(r->creation_time);
    size_t i;
    json_t *item;

    json_array_foreach(r->req.circuit_scheduler, i, item) {
        struct eline_sched s;
        char err[8];
        if (eline_sched_parse(item, "", &s, err, sizeof(err)) < 0)
            continue;                   /* kept by an older ofcd: not one this one runs */
        int64_t t = eline_sched_last(&s, seen, now, start, end, created);
        if (t >= 0 && due_add(sc, r, &s, t) < 0)
            return -ENOMEM;
        t = eline_sched_next(&s, now, start, end, created);
        if (t >= 0 && (sc->next < 0 || t < sc->next))
            sc->next = t;
    }
    return 0;
}

/* One firing, under the write turn of the node that still leads. */
static void fire(struct eline_app *a, const struct sched_due *d)
{
    if (!eline_write_lock_leading(a))
        return;
    pthread_mutex_lock(&a->lock);
    struct eline_rec *r = eline_find(a, d->evc);
    bool live = r && !r->archived, active = live && r->active;
    char name[ELINE_NAME_LEN] = "";
    if (live) {
        snprintf(name, sizeof(name), "%s", r->req.name);
        r->enabled = d->action == ELINE_SCHED_CREATE;
    }
    pthread_mutex_unlock(&a->lock);
    int rc = 0;
    if (live && d->action == ELINE_SCHED_CREATE && !active)
        rc = eline_deploy(a, r);
    else if (live && d->action == ELINE_SCHED_REMOVE && active)
        rc = eline_undeploy(a, r);
    /* The enabled flag kept whatever the flows did (a deploy without a
     * path keeps nothing itself). */
    int kept = live ? eline_rec_save(a, r) : 0;
    eline_write_unlock(a);
    if (!live)
        return;
    const char *what = d->action == ELINE_SCHED_CREATE ? "create" : "remove";
    if (rc < 0 || kept < 0)
        LOG_WARN("eline", "EVC %s (%s): schedule %s (%s): %s%s", d->evc, name, d->id, what,
                 rc == -ENOENT ? "enabled, not laid: no path now" : strerror(-(rc ? rc : kept)),
                 kept < 0 ? " (not kept)" : "");
    else
        LOG_INFO("eline", "EVC %s (%s): schedule %s: %s", d->evc, name, d->id,
                 d->action == ELINE_SCHED_CREATE ? (active ? "enabled (already laid)" : "laid")
                                                 : "taken off its switches, disabled");
    eline_publish(a, "evc.scheduled", json_pack("{s:s, s:s, s:s, s:s, s:b}", "id", d->evc,
                                                "name", name, "schedule_id", d->id, "action",
                                                what, "done", rc == 0 && kept == 0));
}

int64_t eline_sched_run(struct eline_app *a, int64_t *seen, int64_t now, bool leads)
{
    struct sched_scan sc = {.next = -1};
    int rc = 0;

    pthread_mutex_lock(&a->lock);
    for (size_t i = 0; i < a->n_evcs && rc == 0; i++) {
        const struct eline_rec *r = a->evcs[i];
        if (!r->archived && json_array_size(r->req.circuit_scheduler))
            rc = scan_one(r, *seen, now, &sc);
    }
    pthread_mutex_unlock(&a->lock);
    if (rc < 0) {
        free(sc.due);
        return now + 1;                 /* out of memory: looked at again in a second */
    }
    *seen = now;
    if (sc.n > 1)
        qsort(sc.due, sc.n, sizeof(*sc.due), due_order);
    for (size_t i = 0; leads && i < sc.n; i++)
        fire(a, &sc.due[i]);
    free(sc.due);
    return sc.next;
}
