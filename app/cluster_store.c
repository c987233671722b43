/* cluster_store: see cluster_store.h. */
#include "cluster_store.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "cfg.h"
#include "fm.h"
#include "fm_gm.h"
#include "ofcd_log.h"

/* The app that has the say on mastership (the cluster's) guards. */
static int guard(void *arg, uint64_t dpid, char *key, size_t cap, int64_t *rev)
{
    struct app_ctx *app = arg;

    for (unsigned i = 0; i < app->n_inst; i++) {
        const struct app_inst *a = &app->inst[i];
        if (a->cls->store_guard)
            return a->cls->store_guard(a->self, dpid, key, cap, rev);
    }
    return -EPERM;
}

/* And the app that names the leader (the cluster's) guards its writes. */
static int leader_guard(void *arg, char *key, size_t cap, int64_t *rev)
{
    struct app_ctx *app = arg;

    for (unsigned i = 0; i < app->n_inst; i++) {
        const struct app_inst *a = &app->inst[i];
        if (a->cls->store_leader_guard)
            return a->cls->store_leader_guard(a->self, key, cap, rev);
    }
    return -EPERM;
}

int cluster_store_cfg(struct app_ctx *app, struct store_config *sc, struct cluster_store_buf *b)
{
    const struct cfg_cluster_etcd *a = &b->access;
    int rc = cfg_cluster_etcd(&app->cfg, &b->access);

    if (rc < 0)
        return rc;
    b->etcd = (struct store_etcd_cfg){
        .endpoints = a->endpoints, .n_endpoints = a->n_endpoints,
        .prefix = app->cfg.cluster_prefix, .ca = a->ca, .cert = a->cert, .key = a->key,
        .user = a->user, .password = a->user ? a->password : NULL, .json = a->json,
        .guard = guard, .guard_arg = app, .leader = leader_guard, .leader_arg = app};
    sc->backend = STORE_BACKEND_ETCD;
    sc->etcd = &b->etcd;
    return 0;
}

/* On the mirror's committer, after each commit: every node's changes. */
static void on_change(void *arg, uint64_t seq, const struct store_change *c, size_t n)
{
    struct app_ctx *app = arg;

    (void)seq;
    for (size_t i = 0; i < n; i++) {
        if (c[i].kind == STORE_CHANGE_KV && fm_gm_is_key(c[i].key)) {
            fm_gm_follow(app->fm, c[i].key, c[i].removed);   /* logs what it cannot follow */
            continue;
        }
        if (c[i].kind == STORE_CHANGE_KV) {
            for (unsigned k = 0; k < app->n_inst; k++) {
                const struct app_inst *a = &app->inst[k];
                if (a->cls->store_changed)
                    a->cls->store_changed(a->self, c[i].key, c[i].removed);
            }
            continue;
        }
        int rc = fm_sync(app->fm, c[i].dpid, c[i].match_id);
        if (rc < 0)
            LOG_ERR("flows", "switch %016" PRIx64 ": flow %016" PRIx64 " changed in the "
                    "cluster but not followed here: %s", c[i].dpid, c[i].match_id,
                    strerror(-rc));
    }
}

int cluster_store_follow(struct app_ctx *app)
{
    return store_watch(app->store, on_change, app);
}
