/* eline_class: see eline_class.h. */
#include "eline_class.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cfg.h"
#include "ofcd_clock.h"
#include "eline_app.h"

static const char *const eline_keys[] = {"apps.mef_eline", "apps.mef_eline_fast_failover",
                                         "apps.mef_eline_meters", NULL};

static bool eline_enabled(const struct ofcd_config *c)
{
    return c->mef_eline;
}

static int eline_create(const struct app_host *host, unsigned index, struct of_app *hooks,
                        void **self)
{
    struct eline_app *a = calloc(1, sizeof(*a));

    (void)index;
    (void)hooks;                        /* nothing on the workers */
    if (!a)
        return -ENOMEM;
    a->host = host;
    a->lldp_vlan = host->cfg->topology ? (uint16_t)host->cfg->topo_lldp_vlan : 0;
    a->fast_failover = host->cfg->eline_fast_failover;
    a->meters = host->cfg->eline_meters;
    a->plan_rl = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(10, 60000);
    a->watch.follow_rl = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(10, 60000);
    pthread_mutex_init(&a->write_lock, NULL);
    pthread_mutex_init(&a->lock, NULL);
    pthread_mutex_init(&a->watch.lock, NULL);
    int rc = ofcd_clock_cond_init(&a->watch.cv);
    if (rc < 0) {
        pthread_mutex_destroy(&a->watch.lock);
        pthread_mutex_destroy(&a->lock);
        pthread_mutex_destroy(&a->write_lock);
        free(a);
        return rc;
    }
    a->route = (struct rest_ext){.prefix = "/api/kytos/mef_eline/v2", .arg = a,
                                 .handle = eline_rest_handle};
    *self = a;
    return 0;
}

static int eline_load(void *self)
{
    struct eline_app *a = self;
    int rc = a->host->store ? eline_rec_load_all(a) : 0;
    if (rc < 0)
        return rc;
    /* Every node: each keeps a copy of every EVC (eline_follow.c), so the
     * pools it answers for know their tags. */
    eline_tags_register(a);
    return 0;
}

/* SIGTERM: the worker's sweep ends at the next EVC. */
static int eline_on_stop(void *self)
{
    eline_watch_ask_stop(self);
    return 0;
}

/* The worker's move in progress ends while the store is still open. */
static void eline_quiesce(void *self)
{
    eline_watch_stop(self);
}

static void eline_on_event(void *self, const struct qmsg *ev, uint64_t now_us)
{
    (void)now_us;
    eline_watch_event(self, ev);
}

static void eline_store_changed(void *self, const char *key, bool removed)
{
    (void)removed;                      /* records are archived, never removed */
    eline_follow_changed(self, key);
}

static void eline_on_tick(void *self, uint64_t now_us)
{
    eline_watch_tick(self, now_us);
}

static unsigned eline_routes(void *self, const struct rest_ext **out, unsigned max)
{
    struct eline_app *a = self;
    if (max < 1)
        return 0;
    out[0] = &a->route;
    return 1;
}

static void eline_status(void *self, char *buf, size_t len)
{
    struct eline_app *a = self;
    size_t live = 0, active = 0, all;

    pthread_mutex_lock(&a->lock);
    all = a->n_evcs;
    for (size_t i = 0; i < a->n_evcs; i++) {
        live += !a->evcs[i]->archived;
        active += a->evcs[i]->active && !a->evcs[i]->archived;
    }
    pthread_mutex_unlock(&a->lock);
    snprintf(buf, len, "on: %zu EVCs (%zu active), %zu archived", live, active, all - live);
}

static void eline_destroy(void *self)
{
    struct eline_app *a = self;

    eline_watch_stop(a);
    for (size_t i = 0; i < a->n_evcs; i++)
        eline_rec_free(a->evcs[i]);
    free(a->evcs);
    free(a->index);
    pthread_cond_destroy(&a->watch.cv);
    pthread_mutex_destroy(&a->watch.lock);
    pthread_mutex_destroy(&a->lock);
    pthread_mutex_destroy(&a->write_lock);
    free(a);
}

const struct app_class eline_class = {
    .name = "mef_eline",
    .config_keys = eline_keys,
    .enabled = eline_enabled,
    .create = eline_create,
    .load = eline_load,
    .on_event = eline_on_event,
    .on_tick = eline_on_tick,
    .store_changed = eline_store_changed,
    .on_stop = eline_on_stop,
    .quiesce = eline_quiesce,
    .routes = eline_routes,
    .status = eline_status,
    .destroy = eline_destroy,
};
