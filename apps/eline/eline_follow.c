/*
 * eline_follow: the circuits in a cluster. One node changes them, the
 * cluster's leader (app_host.leads: the eldest live node): its REST takes
 * the circuits' changes and its worker moves them; the other nodes refuse
 * changes with 503 naming the leader, and keep a copy of every EVC, read
 * from the records the store's watch reports (the app class's
 * store_changed), so GET answers the same on every node and the next
 * leader starts from what the last one kept.
 *
 * The watch only names the key (its committer must not wait); the worker
 * reads the record and takes it under the write turn, so it never lands in
 * the middle of a change. A record whose text hashes as the one this node
 * last wrote or read (eline_rec.kept_hash) is its own write coming back
 * and changes nothing. Keys past ELINE_FOLLOW_MAX before the worker takes
 * them turn into a read of every record, and the worker reads every
 * record again each minute: none is lost. Only the leader changes
 * records, and it checks that it still leads once it holds the write turn
 * (eline_write_lock_leading); a record its last save could not keep
 * (eline_rec.unkept) it keeps again rather than take the store's older
 * text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eline_app.h"
#include "ofcd_clock.h"
#include "ofcd_fnv.h"
#include "ofcd_log.h"
#include "ofcd_ratelimit.h"
#include "store.h"

bool eline_leads(struct eline_app *a, char *leader, size_t len)
{
    if (!a->host->leads) {
        if (len)
            leader[0] = '\0';
        return true;                    /* one node: it does everything */
    }
    return a->host->leads(a->host->leads_arg, leader, len);
}

bool eline_write_lock_leading(struct eline_app *a)
{
    eline_write_lock(a);
    if (eline_leads(a, NULL, 0))
        return true;
    eline_write_unlock(a);
    return false;
}

unsigned eline_not_leader(struct eline_app *a, json_t **out)
{
    char leader[160];

    eline_leads(a, leader, sizeof(leader));
    return rest_ext_error(out, 503, "the circuits are changed on the cluster's leader, %s: "
                          "nothing was changed here; send the request there",
                          leader[0] ? leader : "not known now (retry in a few seconds)");
}

void eline_follow_changed(struct eline_app *a, const char *key)
{
    struct eline_watch *w = &a->watch;
    size_t plen = sizeof(ELINE_RECORD_PREFIX) - 1;
    const char *id = key + plen;

    if (strncmp(key, ELINE_RECORD_PREFIX, plen) != 0 || strlen(id) != ELINE_ID_HEX)
        return;
    pthread_mutex_lock(&w->lock);
    bool queued = false;
    for (size_t i = 0; i < w->n_follow && !queued; i++)
        queued = strcmp(w->follow[i], id) == 0;
    if (!queued && w->n_follow < ELINE_FOLLOW_MAX)
        memcpy(w->follow[w->n_follow++], id, ELINE_ID_HEX + 1);
    else if (!queued)
        w->follow_all = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->lock);
}

/* r takes n's kept state (n is freed). Under lock and the write turn. */
static void take(struct eline_rec *r, struct eline_rec *n)
{
    json_t *old = r->request;

    *r = *n;
    r->seen_up = false;                 /* judged once its links are seen, as after a load */
    n->request = old;
    eline_rec_free(n);
}

/* The record of id as the store holds it (*val, malloc'd) and its hash:
 * 0, -ENOENT, the store's error (logged). */
static int read_kept(struct eline_app *a, const char *id, char **val, size_t *len, uint64_t *h)
{
    char key[sizeof(ELINE_RECORD_PREFIX) + ELINE_ID_HEX];

    snprintf(key, sizeof(key), ELINE_RECORD_PREFIX "%s", id);
    int rc = store_kv_get(a->host->store, key, val, len);
    if (rc == 0)
        *h = ofcd_fnv1a(OFCD_FNV_OFFSET, *val, *len);
    else if (rc != -ENOENT)             /* a record no node deletes: gone is nothing to do */
        LOG_ERR("eline", "EVC %s changed in the cluster but not read here: %s", id,
                store_strerror(rc));
    return rc;
}

/* Does this node's copy of id hash as h? */
static bool known(struct eline_app *a, const char *id, uint64_t h)
{
    pthread_mutex_lock(&a->lock);
    struct eline_rec *r = eline_find(a, id);
    bool same = r && r->kept_hash == h;
    pthread_mutex_unlock(&a->lock);
    return same;
}

/* The record of id as the store holds it now, into the list. Read again
 * under the write turn: a change of this node's in flight has then
 * written its last text, so its own writes are known and never taken back
 * over newer ones. */
static void follow_one(struct eline_app *a, const char *id)
{
    char *val = NULL;
    size_t len = 0;
    uint64_t h = 0;
    struct eline_rec *n = NULL;

    int rc = read_kept(a, id, &val, &len, &h);
    bool same = rc < 0 || known(a, id, h);
    free(val);
    if (same)
        return;                         /* the common case: no write turn taken */
    eline_write_lock(a);
    val = NULL;
    rc = read_kept(a, id, &val, &len, &h);
    pthread_mutex_lock(&a->lock);
    struct eline_rec *r = eline_find(a, id);
    bool unkept = r && r->unkept;
    pthread_mutex_unlock(&a->lock);
    if (rc == 0 && unkept && eline_leads(a, NULL, 0)) {
        /* This node's last word on it was not kept: memory says what its
         * flows are; the store's older text would undo that. */
        if ((rc = eline_rec_save(a, r)) < 0)
            LOG_WARN_RL(&a->watch.follow_rl, ofcd_clock_mono_us(), "eline",
                        "EVC %s: still not kept: %s", id, store_strerror(rc));
    } else if (rc == 0 && !known(a, id, h)) {
        char err[256];
        if ((rc = eline_rec_read(val, len, &n, err, sizeof(err))) < 0) {
            LOG_ERR_RL(&a->watch.follow_rl, ofcd_clock_mono_us(), "eline",
                       "EVC %s changed in the cluster is not an EVC this ofcd can read: %s",
                       id, err);
        } else {
            pthread_mutex_lock(&a->lock);
            r = eline_find(a, id);
            if (r)
                take(r, n);
            else if ((rc = eline_add(a, n)) < 0)
                eline_rec_free(n);
            pthread_mutex_unlock(&a->lock);
            if (rc < 0)
                LOG_ERR_RL(&a->watch.follow_rl, ofcd_clock_mono_us(), "eline",
                           "EVC %s of the cluster not kept here: %s", id, strerror(-rc));
        }
    }
    eline_write_unlock(a);
    free(val);
}

struct follow_ids {
    char (*id)[ELINE_ID_HEX + 1];
    size_t n, cap;
};

/* The walk only gathers ids: taking the write turn there could wait for a
 * change that waits for the walk's read lock. */
static int gather(const char *key, const void *val, size_t len, void *arg)
{
    struct follow_ids *ids = arg;
    const char *id = key + sizeof(ELINE_RECORD_PREFIX) - 1;

    (void)val;
    (void)len;
    if (strlen(id) != ELINE_ID_HEX)
        return 0;
    if (ids->n == ids->cap) {
        size_t cap = ids->cap ? 2 * ids->cap : 64;
        void *v = realloc(ids->id, cap * sizeof(*ids->id));
        if (!v)
            return -ENOMEM;
        ids->id = v;
        ids->cap = cap;
    }
    memcpy(ids->id[ids->n++], id, ELINE_ID_HEX + 1);
    return 0;
}

int eline_follow_apply(struct eline_app *a, const char (*id)[ELINE_ID_HEX + 1], size_t n,
                       bool all)
{
    for (size_t i = 0; i < n; i++)
        follow_one(a, id[i]);
    if (!all)
        return 0;
    struct follow_ids ids = {0};
    int rc = store_kv_foreach(a->host->store, ELINE_RECORD_PREFIX, gather, &ids);
    if (rc < 0)
        LOG_ERR("eline", "cannot read the cluster's EVCs again: %s", store_strerror(rc));
    for (size_t i = 0; rc == 0 && i < ids.n; i++)
        follow_one(a, ids.id[i]);
    free(ids.id);
    return rc;
}
