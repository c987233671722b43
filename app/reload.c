/* reload: see reload.h. */
#include "reload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "config_args.h"
#include "of_tls.h"
#include "ofcd_log.h"
#include "rest.h"
#include "rest_access.h"

/* A key the appliance itself takes while running; apply (NULL: its only
 * reader, the control loop, reads app->cfg each pass) runs after the new
 * value is in app->cfg. */
struct reload_live {
    const char *key;
    void (*apply)(struct app_ctx *app);
    bool tls;           /* live only while OpenFlow TLS runs: read again at every reload */
};

static void apply_log_level(struct app_ctx *app)
{
    ofcd_log_set_level((enum ofcd_log_level)app->cfg.log_level);
}

static void apply_rate_limit(struct app_ctx *app)
{
    if (app->rest)
        rest_set_rate_limit(app->rest, app->cfg.rest_rate_limit_per_s, app->cfg.rest_rate_burst);
}

static const struct reload_live reload_live_keys[] = {
    {"app.log_level", apply_log_level, false},
    {"app.stats_log_interval_s", NULL, false},
    {"rest.rate_limit_per_s", apply_rate_limit, false},
    {"rest.rate_burst", apply_rate_limit, false},
    {"tls.cert", NULL, true},
    {"tls.key", NULL, true},
    {"tls.ca", NULL, true},
    {"tls.crl_file", NULL, true},
    {"tls.verify_peer", NULL, true},
    {"tls.verify_depth", NULL, true},
    {"tls.min_version", NULL, true},
    {"tls.ciphers", NULL, true},
    {"tls.ciphersuites", NULL, true},
    {"tls.max_cert_list_kb", NULL, true},
};

struct reload_walk {
    struct app_ctx *app;
    const struct ofcd_config *next;
    bool reconfigure[OF_APPS_MAX];      /* app->inst[i] took a key */
    struct reload_result res;
    char *report;
    size_t len, used;
};

static bool listed(const char *const *keys, const char *key)
{
    for (; keys && *keys; keys++)
        if (strcmp(*keys, key) == 0)
            return true;
    return false;
}

/* The app instance that takes key while running, or -1. */
static int app_taking(const struct app_ctx *app, const char *key)
{
    for (unsigned i = 0; i < app->n_inst; i++)
        if (app->inst[i].cls->reconfigure && listed(app->inst[i].cls->live_keys, key))
            return (int)i;
    return -1;
}

static const struct reload_live *own_taking(const char *key)
{
    for (size_t i = 0; i < sizeof(reload_live_keys) / sizeof(reload_live_keys[0]); i++)
        if (strcmp(reload_live_keys[i].key, key) == 0)
            return &reload_live_keys[i];
    return NULL;
}

static void report_line(struct reload_walk *w, const char *key, const char *was,
                        const char *now, const char *when)
{
    if (w->used >= w->len)
        return;
    int n = snprintf(w->report + w->used, w->len - w->used, "%s: %s -> %s, %s\n", key, was,
                     now, when);
    if (n > 0)
        w->used += (size_t)n < w->len - w->used ? (size_t)n : w->len - w->used - 1;
}

static int on_changed(const char *key, const char *was, const char *now, void *arg)
{
    struct reload_walk *w = arg;
    const struct reload_live *own = own_taking(key);
    if (own && own->tls && !w->app->tls)
        own = NULL;                     /* no TLS running: a restart starts it */
    int inst = own ? -1 : app_taking(w->app, key);

    if ((own || inst >= 0) && cfg_copy_key(&w->app->cfg, w->next, key) == 0) {
        if (own && own->apply)
            own->apply(w->app);
        if (inst >= 0)
            w->reconfigure[inst] = true;
        w->res.applied++;
        LOG_INFO("control", "reload: %s %s -> %s, applied", key, was, now);
        report_line(w, key, was, now, "applied");
        return 0;
    }
    w->res.at_restart++;
    LOG_WARN("control", "reload: %s %s -> %s takes effect at the next restart (until then "
             "%s stays)", key, was, now, was);
    report_line(w, key, was, now, "at the next restart");
    return 0;
}

int reload_config(struct app_ctx *app, struct reload_result *out, char *report, size_t len)
{
    struct ofcd_config *next = malloc(sizeof(*next));     /* too big for a stack */
    struct config_args args;
    char err[CFG_ERR_MAX];

    if (!next) {
        snprintf(report, len, "refused, nothing changed: out of memory");
        return -ENOMEM;
    }
    cfg_defaults(next);
    next->no_test_services = app->cfg.no_test_services;
    if (config_args_parse(app->argc, app->argv, &args, next, err, sizeof(err)) < 0) {
        LOG_ERR("control", "reload refused, nothing changed: %s", err);
        snprintf(report, len, "refused, nothing changed: %s", err);
        free(next);
        return -EINVAL;
    }
    rest_access_resolve(next);
    struct reload_walk w = {.app = app, .next = next, .report = report, .len = len};
    if (len)
        report[0] = '\0';
    /* The TLS files first, whether or not their names changed (a renewed
     * certificate keeps its path): the only step that can still fail. */
    if (app->tls && next->tls_port) {
        if (of_tls_reload(next, app->tls) < 0) {
            LOG_ERR("control", "reload refused, nothing changed: [tls]'s files do not load "
                    "(the line above says which); the running certificates stay");
            snprintf(report, len, "refused, nothing changed: [tls]'s files do not load (see "
                     "the log)");
            free(next);
            return -EINVAL;
        }
        LOG_INFO("control", "reload: OpenFlow TLS certificate, key, CA and CRL read again: "
                 "connections accepted from now on use them");
        report_line(&w, "tls", "files", "read again", "for new connections");
    }
    /* libmicrohttpd holds REST's certificate from its start: say so, or a
     * renewed one at the same path would seem taken. */
    if (app->cfg.rest_tls_cert[0]) {
        LOG_WARN("control", "reload: REST's HTTPS certificate (rest.tls_cert) is read at start "
                 "only: a renewed one is served after the next restart");
        report_line(&w, "rest.tls_cert", "files", "not read again", "at the next restart");
    }
    cfg_diff(&app->cfg, next, on_changed, &w);
    for (unsigned i = 0; i < app->n_inst; i++)
        if (w.reconfigure[i])
            app->inst[i].cls->reconfigure(app->inst[i].self, &app->cfg);
    LOG_INFO("control", "reload of %s: %u key(s) applied, %u waiting for a restart",
             args.config_path ? args.config_path : "the built-in configuration",
             w.res.applied, w.res.at_restart);
    *out = w.res;
    free(next);
    return 0;
}
