/*
 * store: what is the same for every backend (see store.h): the blocking
 * forms of the queued changes, and the names. The backends call it; the
 * choice of a backend is store_open.c's, the one file above them.
 */
#include "store.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ofcd_log.h"

OFCD_COUNTER_GROUP(store_counters, "store", struct store_stats, STORE_COUNTERS, STORE_GAUGES);

/* ---- the blocking forms: a queued change and a wait for its done ------------- */

void store_waiter_init(struct store_waiter *w)
{
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cv, NULL);
    w->done = false;
    w->rc = 0;
}

/* On the committer: the last touch of w is the unlock, after which the
 * waiter may return and w leave its stack. */
void store_waiter_done(void *arg, int rc)
{
    struct store_waiter *w = arg;

    pthread_mutex_lock(&w->lock);
    w->rc = rc;
    w->done = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->lock);
}

/* queued: what the *_async call returned; done is called only if it was 0. */
int store_waiter_wait(struct store_waiter *w, int queued)
{
    int rc = queued;

    if (queued == 0) {
        pthread_mutex_lock(&w->lock);
        while (!w->done)
            pthread_cond_wait(&w->cv, &w->lock);
        rc = w->rc;
        pthread_mutex_unlock(&w->lock);
    }
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->lock);
    return rc;
}

int store_put_many(struct store *s, const struct store_flow *flows, size_t n)
{
    struct store_waiter w;

    if (!s)
        return -EINVAL;
    store_waiter_init(&w);
    return store_waiter_wait(&w, s->ops->put_many_async(s, flows, n, store_waiter_done, &w));
}

int store_put(struct store *s, const struct store_flow *flow)
{
    return store_put_many(s, flow, 1);
}

int store_del(struct store *s, uint64_t dpid, uint64_t match_id)
{
    struct store_waiter w;

    if (!s)
        return -EINVAL;
    store_waiter_init(&w);
    return store_waiter_wait(&w, s->ops->del_async(s, dpid, match_id, store_waiter_done, &w));
}

/* Delete (or, with mark, keep in state DELETED) what pred selects: the one
 * body of store_del_if and store_mark_deleted_if. */
static int store_select_wait(struct store *s, const uint64_t *dpid, store_pred_fn pred,
                             void *arg, bool mark, uint64_t *n)
{
    struct store_waiter w;
    uint64_t count = 0;

    if (n)
        *n = 0;
    if (!s)
        return -EINVAL;
    store_waiter_init(&w);
    int rc = store_waiter_wait(&w, s->ops->select_async(s, dpid, pred, arg, mark, &count,
                                                        store_waiter_done, &w));
    if (rc == 0 && n)
        *n = count;
    return rc;
}

int store_del_if(struct store *s, const uint64_t *dpid, store_pred_fn pred, void *arg,
                 uint64_t *deleted)
{
    return store_select_wait(s, dpid, pred, arg, false, deleted);
}

int store_mark_deleted_if(struct store *s, const uint64_t *dpid, store_pred_fn pred, void *arg,
                          uint64_t *marked)
{
    return store_select_wait(s, dpid, pred, arg, true, marked);
}

int store_sync(struct store *s)
{
    struct store_waiter w;

    if (!s)
        return -EINVAL;
    store_waiter_init(&w);
    return store_waiter_wait(&w, s->ops->sync_async(s, store_waiter_done, &w));
}

int store_kv_put(struct store *s, const char *key, const void *val, size_t len)
{
    struct store_waiter w;

    if (!s)
        return -EINVAL;
    store_waiter_init(&w);
    return store_waiter_wait(&w, s->ops->kv_put_async(s, key, val, len, store_waiter_done, &w));
}

int store_kv_put_leader(struct store *s, const char *key, const void *val, size_t len)
{
    struct store_waiter w;

    if (!s)
        return -EINVAL;
    store_waiter_init(&w);
    return store_waiter_wait(&w, s->ops->kv_put_leader_async(s, key, val, len,
                                                             store_waiter_done, &w));
}

int store_kv_del(struct store *s, const char *key)
{
    struct store_waiter w;

    if (!s)
        return -EINVAL;
    store_waiter_init(&w);
    return store_waiter_wait(&w, s->ops->kv_del_async(s, key, store_waiter_done, &w));
}

/* ---- one app record ----------------------------------------------------------- */

struct kv_one {
    const char *key;
    char *val;
    size_t len;
    bool found;
};

/* The walk starts at key (its prefix): the exact key is first or absent. */
static int kv_one_cb(const char *key, const void *val, size_t len, void *arg)
{
    struct kv_one *o = arg;

    if (strcmp(key, o->key) != 0)
        return 1;
    o->found = true;
    if (!(o->val = malloc(len + 1)))
        return -ENOMEM;
    memcpy(o->val, val, len);
    o->val[len] = '\0';
    o->len = len;
    return 1;
}

int store_kv_get(struct store *s, const char *key, char **val, size_t *len)
{
    struct kv_one o = {key, NULL, 0, false};
    int rc = s && key ? s->ops->kv_foreach(s, key, kv_one_cb, &o) : -EINVAL;

    if (rc < 0) {
        free(o.val);
        return rc;
    }
    if (!o.found)
        return -ENOENT;
    *val = o.val;
    if (len)
        *len = o.len;
    return 0;
}

/* ---- the rest ----------------------------------------------------------------- */

void store_flow_release(struct store_flow *f)
{
    if (!f)
        return;
    free(f->priv);
    f->priv = NULL;
    f->owner = NULL;
    f->json = NULL;
    f->json_len = 0;
}

const char *store_state_name(enum store_flow_state state)
{
    switch (state) {
    case STORE_FLOW_PENDING:
        return "pending";
    case STORE_FLOW_INSTALLED:
        return "installed";
    case STORE_FLOW_ERROR:
        return "error";
    case STORE_FLOW_DELETED:
        return "deleted";
    }
    return "unknown";
}

const char *store_strerror(int rc)
{
    switch (rc) {
    case -ENOSPC:
        return "the store is full (flow_manager.store_map_mb)";
    case -ETIME:
        return "the outcome is not known (etcd did not answer in time)";
    case -EINPROGRESS:
        return "stored in etcd, not yet in this node's copy";
    case -ESTALE:
        return "this node's copy of etcd is behind: it could not apply a change (see the "
               "log); nothing was stored";
    }
    return strerror(-rc);
}
