/*
 * store_etcd_watch: the etcd backend's watcher thread (store_etcd.h) —
 * every node's changes into this node's mirror, in revision order.
 *
 * Armed (a watcher set, or a write waiting), it resumes from the revision
 * the mirror recorded, or reads every record once when it has none, when
 * etcd compacted past it, or when a catch-up message is past the watch's
 * bounds (ETCD_EVENTS_MAX events, ETCD_WATCH_LINE_MAX bytes): a full read,
 * page by page, puts every record, drops what the mirror holds that etcd
 * no longer has, and records the read's revision. Each watch message's
 * changes are queued to the mirror, then the revision of its last event
 * (not its header's: etcd heads each part of a catch-up with its current
 * revision); when the mirror confirms the revision, `applied` moves and
 * the writes waiting for it are confirmed. The revision is a progress mark
 * (store_queue_kv_mark_async): the mirror records it only if every change
 * queued before it was applied, so the record never passes a change the
 * copy lacks (its store full). If one was not, the copy is behind: writes
 * on this node are refused (-ESTALE), waits for the copy end, and full
 * reads are tried, further apart each time, until one is applied whole.
 *
 * Caught up: before it resumes, the node writes P data/sync and notes the
 * revision etcd gave the write; the watch delivers changes in revision
 * order, so once it has delivered that write it has delivered every change
 * before it, however many messages that took.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ofcd_clock.h"
#include "ofcd_log.h"
#include "store_etcd.h"

#define STORE_COMP "store"
#define FULL_READ_PAGE 2000
#define RETRY_MS 200u
#define REPAIR_MAX_MS 30000u

/* ---- what the mirror is given ----------------------------------------------- */

/* A change the mirror could not apply (told on its committer thread): the
 * copy is behind etcd from here until a full read; the first of a run is
 * logged, the rest counted. */
static void mirror_failed(struct store_etcd *s, int rc, const char *what)
{
    pthread_mutex_lock(&s->lock);
    s->mirror_errors++;
    bool first = s->lost_run++ == 0;
    pthread_mutex_unlock(&s->lock);
    if (first)
        LOG_ERR(STORE_COMP, "this node's copy of etcd could not apply %s: %s%s; the copy is "
                "behind etcd from here, and this node refuses writes until it has read "
                "every record again (further failures are counted in copy_errors)", what,
                strerror(-rc), rc == -ENOSPC ? " (its store is full: flow_manager."
                "store_map_mb)" : "");
}

struct mirror_flow {
    struct store_etcd *s;
    struct store_flow f;            /* its owner and JSON follow */
};

static void flow_done(void *arg, int rc)
{
    struct mirror_flow *m = arg;

    if (rc < 0)
        mirror_failed(m->s, rc, "a flow");
    free(m);
}

struct mirror_kv {
    struct store_etcd *s;
    char key[];                     /* then its value */
};

static void kv_done(void *arg, int rc)
{
    struct mirror_kv *m = arg;

    if (rc < 0 && rc != -ENOENT)
        mirror_failed(m->s, rc, "an app record");
    free(m);
}

static void del_done(void *arg, int rc)
{
    if (rc < 0 && rc != -ENOENT)
        mirror_failed(arg, rc, "a delete");
}

struct rev_mark {
    struct store_etcd *s;
    int64_t rev;
    char text[24];
};

/* The mirror's mark of a revision: recorded only if every change queued
 * before it was applied (store_queue_kv_mark_async); otherwise the copy is
 * behind, and the watcher repairs it. */
static void rev_done(void *arg, int rc)
{
    struct rev_mark *m = arg;
    struct store_etcd *s = m->s;

    pthread_mutex_lock(&s->lock);
    bool was = s->behind;
    if (rc == 0) {
        if (m->rev > s->applied)
            s->applied = m->rev;
        s->behind = false;
        s->lost_run = 0;
    } else {
        s->behind = true;
    }
    int64_t applied = s->applied;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->lock);
    if (rc < 0 && !was)
        LOG_ERR(STORE_COMP, "this node's copy stays at etcd revision %" PRId64 ": %s; "
                "writes here are refused until a full read repairs it", applied,
                rc == -ECANCELED ? "a change before the next one could not be applied"
                                 : "its revision record could not be written");
    else if (rc == 0 && was)
        LOG_INFO(STORE_COMP, "this node's copy is whole again at etcd revision %" PRId64
                 ": writes accepted", m->rev);
    free(m);
}

static int queue_rev(struct store_etcd *s, int64_t rev)
{
    struct rev_mark *m = malloc(sizeof(*m));

    if (!m)
        return -ENOMEM;
    m->s = s;
    m->rev = rev;
    int n = snprintf(m->text, sizeof(m->text), "%" PRId64, rev);
    int rc = store_queue_kv_mark_async(s->mirror, STORE_ETCD_REV_KEY, m->text, (size_t)n,
                                       rev_done, m);
    if (rc < 0)
        free(m);
    else
        s->queued_rev = rev;
    return rc;
}

static int put_flow(struct store_etcd *s, const struct store_etcd_key *k, const struct etcd_kv *kv)
{
    struct store_flow f;
    size_t olen;

    if (store_etcd_rec_decode(kv->value, kv->value_len, &f, &olen) < 0) {
        LOG_WARN(STORE_COMP, "etcd key %.*s: not a flow record; skipped", (int)kv->key_len,
                 (const char *)kv->key);
        return 0;
    }
    bool pending = f.state == STORE_FLOW_PENDING;
    store_etcd_pend_record(s, k->dpid, k->match_id, f.flow_id, kv->mod_revision, pending);
    if (pending && s->in_full &&
        store_etcd_fr_note(s, k->dpid, k->match_id, f.flow_id, kv->mod_revision) < 0)
        return -ENOMEM;
    struct mirror_flow *m = malloc(sizeof(*m) + olen + 1 + f.json_len + 1);
    if (!m)
        return -ENOMEM;
    char *owner = (char *)(m + 1), *json = owner + olen + 1;
    memcpy(owner, f.owner, olen);
    owner[olen] = '\0';
    memcpy(json, f.json, f.json_len);
    json[f.json_len] = '\0';
    m->s = s;
    m->f = f;
    m->f.dpid = k->dpid;
    m->f.match_id = k->match_id;
    m->f.owner = owner;
    m->f.json = json;
    int rc = store_put_many_async(s->mirror, &m->f, 1, flow_done, m);
    if (rc < 0)
        free(m);
    return rc;
}

static int put_state(struct store_etcd *s, const struct store_etcd_key *k,
                     const struct etcd_kv *kv)
{
    uint64_t flow_id;
    enum store_flow_state st;
    uint16_t et, ec;

    if (store_etcd_state_decode(kv->value, kv->value_len, &flow_id, &st, &et, &ec) < 0) {
        LOG_WARN(STORE_COMP, "etcd key %.*s: not a flow state; skipped", (int)kv->key_len,
                 (const char *)kv->key);
        return 0;
    }
    return store_etcd_copy_state(s, k->dpid, k->match_id, flow_id, st, et, ec);
}

static int put_app(struct store_etcd *s, const struct store_etcd_key *k, const struct etcd_kv *kv,
                   bool removed)
{
    struct mirror_kv *m = malloc(sizeof(*m) + k->app_len + 1 + kv->value_len + 1);

    if (!m)
        return -ENOMEM;
    m->s = s;
    memcpy(m->key, k->app, k->app_len);
    m->key[k->app_len] = '\0';
    char *val = m->key + k->app_len + 1;
    if (!removed)
        memcpy(val, kv->value, kv->value_len);
    int rc = removed ? store_kv_del_async(s->mirror, m->key, kv_done, m)
                     : store_kv_put_async(s->mirror, m->key, val, kv->value_len, kv_done, m);
    if (rc < 0)
        free(m);
    return rc;
}

/* One change read from etcd into the mirror's queue. */
static int apply_one(struct store_etcd *s, const struct etcd_kv *kv, bool removed)
{
    struct store_etcd_key k;

    if (store_etcd_key_parse(s->data_prefix, kv->key, kv->key_len, &k) < 0)
        return 0;
    switch (k.kind) {
    case STORE_ETCD_KEY_FLOW:
        if (!removed)
            return put_flow(s, &k, kv);
        store_etcd_pend_decided(s, k.dpid, k.match_id, 0);
        return store_del_async(s->mirror, k.dpid, k.match_id, del_done, s);
    case STORE_ETCD_KEY_STATE:
        return removed ? 0 : put_state(s, &k, kv);   /* a put of its flow reset it */
    case STORE_ETCD_KEY_INST:
        return removed ? 0 : store_etcd_inst_apply(s, k.dpid, kv->value, kv->value_len);
    case STORE_ETCD_KEY_APP:
        return put_app(s, &k, kv, removed);
    case STORE_ETCD_KEY_SYNC:
    case STORE_ETCD_KEY_OTHER:
        break;
    }
    return 0;
}

/* The copy's map: a warning once its use passes 80 %, again after it fell
 * below 70 %; looked at after each watch message (LMDB's counts: cheap). */
static void map_check(struct store_etcd *s)
{
    struct store_stats st;

    if (store_get_stats(s->mirror, &st) < 0 || !st.map_size)
        return;
    unsigned pct = (unsigned)(st.map_used * 100 / st.map_size);
    if (pct >= 80 && !s->map_warned)
        LOG_WARN(STORE_COMP, "this node's copy of etcd uses %u %% of its store (%" PRIu64
                 " of %" PRIu64 " MiB): past 87 %% it applies no more changes and refuses "
                 "writes; raise flow_manager.store_map_mb", pct, st.map_used >> 20,
                 st.map_size >> 20);
    if (pct >= 80)
        s->map_warned = true;
    else if (pct < 70)
        s->map_warned = false;
}

static void on_watch(void *arg, const struct etcd_watch_resp *r)
{
    struct store_etcd *s = arg;
    int rc = 0;

    /* A message after one that failed: the full read to come covers it. */
    if (s->need_full)
        return;
    for (size_t i = 0; i < r->n_ev && rc == 0; i++)
        rc = apply_one(s, &r->ev[i].kv, r->ev[i].type == ETCD_EV_DELETE);
    int64_t rev = store_etcd_watch_rev(r);
    if (rc == 0)
        store_etcd_pend_at(s, rev);
    if (rc == 0 && rev > s->queued_rev)
        rc = queue_rev(s, rev);
    if (rc < 0) {
        mirror_failed(s, rc, "a watched change");
        s->need_full = true;
    }
    map_check(s);
}

/* ---- the full read ------------------------------------------------------------- */

/* The keys a full read saw, in the order etcd gives a range: ascending
 * bytes, which for flows/<dpid16>/<match_id16> is (dpid, match_id)'s order
 * and for apps/<key> strcmp's: sorted as they come, searched as they are
 * (never given to bsearch empty: NULL is not its to take). */
struct seen {
    uint64_t (*flows)[2];
    size_t n_flows, cap_flows;
    char **apps;
    size_t n_apps, cap_apps;
};

static int seen_flow(struct seen *v, uint64_t dpid, uint64_t match_id)
{
    if (v->n_flows == v->cap_flows) {
        size_t nc = v->cap_flows ? v->cap_flows * 2 : 1024;
        void *n = realloc(v->flows, nc * sizeof(*v->flows));
        if (!n)
            return -ENOMEM;
        v->flows = n;
        v->cap_flows = nc;
    }
    v->flows[v->n_flows][0] = dpid;
    v->flows[v->n_flows++][1] = match_id;
    return 0;
}

static int seen_app(struct seen *v, const char *key, size_t len)
{
    if (v->n_apps == v->cap_apps) {
        size_t nc = v->cap_apps ? v->cap_apps * 2 : 64;
        char **n = realloc(v->apps, nc * sizeof(*n));
        if (!n)
            return -ENOMEM;
        v->apps = n;
        v->cap_apps = nc;
    }
    if (!(v->apps[v->n_apps] = strndup(key, len)))
        return -ENOMEM;
    v->n_apps++;
    return 0;
}

static void seen_free(struct seen *v)
{
    for (size_t i = 0; i < v->n_apps; i++)
        free(v->apps[i]);
    free(v->apps);
    free(v->flows);
}

static int cmp_flow(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

struct prune {
    struct store_etcd *s;
    struct seen *v;
    uint64_t n;
    int rc;
};

static int prune_flow(const struct store_flow *f, void *arg)
{
    struct prune *p = arg;
    uint64_t key[2] = {f->dpid, f->match_id};

    if (p->v->n_flows &&
        bsearch(key, p->v->flows, p->v->n_flows, sizeof(*p->v->flows), cmp_flow))
        return 0;
    p->n++;
    p->rc = store_del_async(p->s->mirror, f->dpid, f->match_id, del_done, p->s);
    return p->rc < 0 ? p->rc : 0;
}

static int prune_app(const char *key, const void *val, size_t len, void *arg)
{
    struct prune *p = arg;

    (void)val;
    (void)len;
    if (strcmp(key, STORE_ETCD_REV_KEY) == 0 ||
        (p->v->n_apps && bsearch(&key, p->v->apps, p->v->n_apps, sizeof(char *), cmp_str)))
        return 0;
    size_t n = strlen(key);
    struct mirror_kv *m = malloc(sizeof(*m) + n + 1);
    if (!m)
        return -ENOMEM;
    m->s = p->s;
    memcpy(m->key, key, n + 1);
    p->n++;
    p->rc = store_kv_del_async(p->s->mirror, m->key, kv_done, m);
    if (p->rc < 0)
        free(m);
    return p->rc < 0 ? p->rc : 0;
}

static void restart_done(void *arg, int rc)
{
    (void)arg;
    (void)rc;                       /* a failed commit: the read's own mark says so */
}

/* Every record at one revision, page by page; then what the mirror holds
 * beyond them goes. */
static int full_read(struct store_etcd *s)
{
    size_t pl = strlen(s->data_prefix);
    uint8_t end[STORE_ETCD_PREFIX_MAX];
    size_t end_len = etcd_prefix_end((const uint8_t *)s->data_prefix, pl, end);
    uint8_t *from = (uint8_t *)strdup(s->data_prefix);
    size_t from_len = pl;
    int64_t rev = 0;
    struct seen v = {0};
    int rc = from ? 0 : -ENOMEM;
    uint64_t t0 = ofcd_clock_mono_ms();

    /* What the copy lost before is replaced by what this read puts. */
    if (rc == 0)
        rc = store_queue_mark_restart_async(s->mirror, restart_done, NULL);
    store_etcd_pend_refill(s);
    for (bool more = true; more && rc == 0;) {
        struct etcd_range r = {.key = from, .key_len = from_len, .range_end = end,
                               .range_end_len = end_len, .limit = FULL_READ_PAGE,
                               .revision = rev};
        struct etcd_range_resp resp = {0};
        if ((rc = etcd_get(s->rc, &r, &resp)) < 0) {
            LOG_WARN(STORE_COMP, "reading the cluster's flows from etcd: %s",
                     etcd_client_error(s->rc));
            etcd_range_resp_free(&resp);
            break;
        }
        rev = resp.hdr.revision;
        for (size_t i = 0; i < resp.kvs.n && rc == 0; i++) {
            const struct etcd_kv *kv = &resp.kvs.kv[i];
            struct store_etcd_key k;
            if (store_etcd_key_parse(s->data_prefix, kv->key, kv->key_len, &k) < 0)
                continue;
            if (k.kind == STORE_ETCD_KEY_FLOW)
                rc = seen_flow(&v, k.dpid, k.match_id);
            else if (k.kind == STORE_ETCD_KEY_APP)
                rc = seen_app(&v, k.app, k.app_len);
            if (rc == 0)
                rc = apply_one(s, kv, false);
        }
        if (rc == 0) {
            int next = etcd_range_next_page(&resp, &from, &from_len);
            more = next > 0;
            rc = next < 0 ? next : 0;
        }
        etcd_range_resp_free(&resp);
    }
    free(from);
    store_etcd_pend_refilled(s, rc == 0 ? rev : -1);
    if (rc == 0) {
        struct prune p = {s, &v, 0, 0};
        rc = store_foreach(s->mirror, NULL, prune_flow, &p);
        if (rc == 0)
            rc = store_kv_foreach(s->mirror, NULL, prune_app, &p);
        if (rc == 0)
            rc = queue_rev(s, rev);
        if (rc == 0)
            LOG_INFO(STORE_COMP, "read the cluster's records at etcd revision %" PRId64
                     ": %zu flows, %zu app records; %" PRIu64 " held here and no longer "
                     "in etcd let go; queued in %" PRIu64 " ms", rev, v.n_flows, v.n_apps,
                     p.n, ofcd_clock_mono_ms() - t0);
    }
    seen_free(&v);
    return rc;
}

/* ---- the thread ------------------------------------------------------------------ */

static void pause_ms(struct store_etcd *s, unsigned ms)
{
    struct timespec until = ofcd_clock_deadline((uint64_t)ms * 1000u);

    pthread_mutex_lock(&s->lock);
    if (!atomic_load(&s->stop))
        pthread_cond_timedwait(&s->cv, &s->lock, &until);
    pthread_mutex_unlock(&s->lock);
}

static void set_ready(struct store_etcd *s)
{
    pthread_mutex_lock(&s->lock);
    if (!s->ready) {
        s->ready = true;
        s->ready_rev = s->queued_rev;
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->lock);
}

/* This node's sync write (P data/sync): the revision etcd gave it, or -1
 * (logged). */
static int64_t put_sync(struct store_etcd *s)
{
    char key[STORE_ETCD_PREFIX_MAX + sizeof(STORE_ETCD_SYNC_KEY)];
    int n = snprintf(key, sizeof(key), "%s%s", s->data_prefix, STORE_ETCD_SYNC_KEY);
    struct etcd_put p = {.key = key, .key_len = (size_t)n, .value = "catching up", .value_len = 11};
    struct etcd_header h = {0};

    if (etcd_put(s->rc, &p, &h) < 0) {
        LOG_WARN(STORE_COMP, "cannot mark this node's catch-up in etcd (%s); retried",
                 etcd_client_error(s->rc));
        return -1;
    }
    return h.revision;
}

static bool ready_now(struct store_etcd *s)
{
    pthread_mutex_lock(&s->lock);
    bool r = s->ready;
    pthread_mutex_unlock(&s->lock);
    return r;
}

static bool behind_now(struct store_etcd *s)
{
    pthread_mutex_lock(&s->lock);
    bool b = s->behind;
    pthread_mutex_unlock(&s->lock);
    return b;
}

/* A full read, and once the mirror has applied it, whether it made the
 * copy whole: 0, or a negative errno (the copy still behind: -ESTALE). */
static int full_read_applied(struct store_etcd *s)
{
    uint64_t t0 = ofcd_clock_mono_ms();
    int rc = full_read(s);

    if (rc == 0)
        rc = store_sync(s->mirror);
    if (rc == 0 && behind_now(s))
        rc = -ESTALE;
    if (rc == 0)
        LOG_INFO(STORE_COMP, "caught up with etcd at revision %" PRId64 ": a full read in %"
                 PRIu64 " ms", s->queued_rev, ofcd_clock_mono_ms() - t0);
    return rc;
}

static void watch_once(struct store_etcd *s)
{
    int64_t target = 0;             /* catching up: this node's sync write's revision */

    if (s->need_full) {
        if (full_read_applied(s) < 0) {
            /* etcd unreachable, or the copy's store still too small: tried
             * again later, each time later, up to REPAIR_MAX_MS apart. */
            pause_ms(s, s->repair_ms);
            s->repair_ms = s->repair_ms * 2 > REPAIR_MAX_MS ? REPAIR_MAX_MS : s->repair_ms * 2;
            return;
        }
        s->repair_ms = RETRY_MS;
        s->need_full = false;
        set_ready(s);               /* everything at the read's revision is applied */
    } else if (!ready_now(s) && (target = put_sync(s)) < 0) {
        pause_ms(s, RETRY_MS);
        return;
    } else if (target && target <= s->queued_rev) {
        /* etcd is behind the copy: not the etcd the copy was made from (a
         * new one, or restored from a backup). Its watch would start in
         * its future and the copy keep what etcd does not have. */
        LOG_WARN(STORE_COMP, "etcd is at revision %" PRId64 ", this node's copy at %" PRId64
                 ": not the same etcd; reading every record again", target, s->queued_rev);
        pthread_mutex_lock(&s->lock);
        s->applied = 0;
        pthread_mutex_unlock(&s->lock);
        s->queued_rev = 0;
        s->need_full = true;
        return;
    }
    int64_t from = s->queued_rev + 1;
    if (target)
        LOG_INFO(STORE_COMP, "catching up with etcd from revision %" PRId64 " to %" PRId64,
                 from, target);
    struct etcd_watch_req req = {.key = s->data_prefix, .key_len = strlen(s->data_prefix),
                                 .prefix = true, .start_revision = from};
    struct etcd_watch *w = NULL;
    /* Resuming: etcd sends the changes since the mirror's revision, in
     * parts, right after the watch is made; the node's sync write is among
     * them, after every change before it, so once the revision queued (a
     * message's last event's) reaches it, the copy has caught up. */
    uint64_t t0 = ofcd_clock_mono_ms();
    int rc = etcd_watch_open(s->rc, &req, on_watch, s, &w, NULL);
    while (rc >= 0 && !s->need_full && !atomic_load(&s->stop)) {
        rc = etcd_watch_poll(w, 100);
        if (target && s->queued_rev >= target && rc >= 0) {
            store_sync(s->mirror);      /* applied, not only queued: the time is the copy's */
            LOG_INFO(STORE_COMP, "caught up with etcd at revision %" PRId64 ": revisions %"
                     PRId64 " to %" PRId64 " in %" PRIu64 " ms", s->queued_rev, from, target,
                     ofcd_clock_mono_ms() - t0);
            set_ready(s);
            target = 0;
        }
        /* The mirror could not apply a change: only a full read repairs it. */
        if (behind_now(s))
            s->need_full = true;
    }
    if (rc == -ESTALE) {
        LOG_WARN(STORE_COMP, "etcd compacted past revision %" PRId64 ": reading every "
                 "record again", s->queued_rev + 1);
        s->need_full = true;
    } else if (rc == -EMSGSIZE) {
        /* The same message would come again at the same revision: read
         * every record instead, page by page, and watch from there. */
        LOG_WARN(STORE_COMP, "a watch message from revision %" PRId64 " is past this "
                 "node's bounds (%s): reading every record again", s->queued_rev + 1,
                 etcd_watch_error(w));
        s->need_full = true;
    } else if (rc < 0 && !atomic_load(&s->stop)) {
        LOG_WARN(STORE_COMP, "the watch of the cluster's flows ended (%s); opened again",
                 w ? etcd_watch_error(w) : etcd_client_error(s->rc));
        pause_ms(s, RETRY_MS);
    }
    etcd_watch_close(w);
}

static void *watch_main(void *arg)
{
    struct store_etcd *s = arg;

    pthread_mutex_lock(&s->lock);
    while (!s->armed && !atomic_load(&s->stop))
        pthread_cond_wait(&s->cv, &s->lock);
    pthread_mutex_unlock(&s->lock);
    while (!atomic_load(&s->stop))
        watch_once(s);
    return NULL;
}

int store_etcd_watch_start(struct store_etcd *s)
{
    int64_t rev = 0;
    char *text = NULL;
    int rc = store_kv_get(s->mirror, STORE_ETCD_REV_KEY, &text, NULL);

    if (rc < 0 && rc != -ENOENT)
        return rc;
    if (text)
        rev = strtoll(text, NULL, 10);
    free(text);
    s->applied = s->queued_rev = rev > 0 ? rev : 0;
    s->need_full = s->queued_rev == 0;
    s->repair_ms = RETRY_MS;
    rc = pthread_create(&s->watcher, NULL, watch_main, s);
    if (rc) {
        LOG_ERR(STORE_COMP, "cannot start the etcd watcher thread: %s", strerror(rc));
        return -rc;
    }
    pthread_setname_np(s->watcher, "ofcd-etcdstore");
    s->watcher_started = true;
    return 0;
}

void store_etcd_arm(struct store_etcd *s)
{
    pthread_mutex_lock(&s->lock);
    if (!s->armed) {
        s->armed = true;
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->lock);
}

void store_etcd_watch_stop(struct store_etcd *s)
{
    if (!s->watcher_started)
        return;
    pthread_mutex_lock(&s->lock);
    atomic_store(&s->stop, true);
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->watcher, NULL);
    s->watcher_started = false;
    store_sync(s->mirror);          /* what it queued is applied before the mirror closes */
}

int store_etcd_wait_ready(struct store_etcd *s)
{
    struct timespec until = ofcd_clock_deadline((uint64_t)s->confirm_ms * 1000u);
    int rc = 0;

    pthread_mutex_lock(&s->lock);
    while (!(s->ready && s->applied >= s->ready_rev) && !s->behind && rc == 0 &&
           !atomic_load(&s->stop))
        rc = -pthread_cond_timedwait(&s->cv, &s->lock, &until);
    bool ok = s->ready && s->applied >= s->ready_rev, behind = s->behind;
    pthread_mutex_unlock(&s->lock);
    if (behind) {
        LOG_WARN(STORE_COMP, "this node's copy is behind etcd (revision %" PRId64 "): it "
                 "serves what it holds until a full read repairs it", s->applied);
        return -ESTALE;
    }
    if (!ok) {
        LOG_WARN(STORE_COMP, "not caught up with etcd within %u ms: this node serves what "
                 "its copy held (revision %" PRId64 ") until it has", s->confirm_ms,
                 s->applied);
        return -ETIMEDOUT;
    }
    return 0;
}
