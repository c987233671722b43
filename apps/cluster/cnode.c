/* cnode: see cnode.h. The cluster thread's loop and its etcd calls. */
#include "cnode.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cl_keys.h"
#include "etcd_client.h"
#include "ofcd_clock.h"
#include "ofcd_log.h"
#include "ofcd_ratelimit.h"
#include "rest_events.h"

OFCD_COUNTER_GROUP(cnode_counters, "cluster", struct cnode_stats, CNODE_COUNTERS,
                   CNODE_GAUGES);

/* The watch is polled this long at most: the longest a want_stand waits
 * for the thread to notice it. */
#define CNODE_POLL_MS 20u
/* After a failed grant or full read, before the next try. */
#define CNODE_RETRY_MS 200u
/* Keys a full read asks etcd for at once. */
#define CNODE_READ_PAGE 1000

static uint64_t now_us(void)
{
    return ofcd_clock_mono_us();
}

static void etcd_failed(struct cnode *n, const char *what, int rc)
{
    char text[sizeof(n->etcd_error)];

    /* etcd's words go into GET /api/v1/cluster's JSON: printable ASCII
     * only (a byte that is not valid UTF-8 would make its answer a 500). */
    snprintf(text, sizeof(text), "%s: %s", what,
             etcd_client_error(n->etcd)[0] ? etcd_client_error(n->etcd) : strerror(-rc));
    pthread_mutex_lock(&n->lock);
    n->etcd_ok = false;
    n->stats.etcd_errors++;
    ofcd_log_clean(n->etcd_error, sizeof(n->etcd_error), text);
    pthread_mutex_unlock(&n->lock);
}

/* ---- what etcd says, into the table ---------------------------------- */

static void apply_kv(struct cnode *n, const struct etcd_kv *kv, bool deleted)
{
    struct cl_key k;

    if (cl_key_parse(n->prefix, kv->key, kv->key_len, &k) < 0) {
        char raw[201], shown[201];
        size_t len = kv->key_len < sizeof(raw) - 1 ? kv->key_len : sizeof(raw) - 1;
        memcpy(raw, kv->key, len);
        raw[len] = '\0';
        n->stats.bad_keys++;
        LOG_WARN("cluster", "key '%s' under %s is not one this node can read: ignored",
                 ofcd_log_clean(shown, sizeof(shown), raw), n->prefix);
        return;
    }
    if (k.kind == CL_KEY_MEMBER) {
        if (deleted) {
            if (cl_members_find(&n->members, k.node))
                LOG_INFO("cluster", "node %s left the cluster", k.node);
            cl_members_del(&n->members, k.node);
        } else {
            bool known = cl_members_find(&n->members, k.node) != NULL;
            if (cl_members_put(&n->members, k.node, kv->value, kv->value_len, kv->lease,
                               kv->create_revision) < 0)
                n->stats.bad_keys++;
            else if (!known)
                LOG_INFO("cluster", "node %s joined the cluster", k.node);
        }
    } else if (k.kind == CL_KEY_EVENTS) {
        return;                     /* relay_in's (the watch's alone) */
    } else if (k.kind == CL_KEY_CAND) {
        struct cl_sw *sw = deleted ? cl_table_find(&n->table, k.dpid)
                                   : cl_table_get(&n->table, k.dpid);
        if (!sw) {
            if (!deleted)
                n->stats.bad_keys++;  /* the table is full */
            return;
        }
        if (deleted)
            cl_cands_del(&sw->cands, k.node);
        else if (cl_cands_put(&sw->cands, k.node, kv->create_revision) < 0)
            n->stats.bad_keys++;
        if (strcmp(k.node, n->node_id) == 0)
            sw->stood = !deleted;
    }
}

static void clear_cands(void *arg, struct cl_sw *sw)
{
    (void)arg;
    sw->cands.n = 0;
    sw->stood = false;
}

static void free_pages(struct etcd_range_resp *pages, size_t n)
{
    for (size_t i = 0; i < n; i++)
        etcd_range_resp_free(&pages[i]);
    free(pages);
}

/* The pages of the view from `from`, all at one revision: each a range of
 * at most CNODE_READ_PAGE keys from just after the last key of the one before
 * (one range of everything fails past the decoder's bounds, or takes
 * longer than a lease's third). 0 and *out (*n of them), or a negative
 * errno (logged). */
static int read_pages(struct cnode *n, const char *from0, const char *to,
                      struct etcd_range_resp **out, size_t *n_out)
{
    struct etcd_range_resp *pages = NULL;
    size_t n_pages = 0, from_len = strlen(from0);
    uint8_t *from = malloc(from_len + 1);
    int64_t rev = 0;
    int rc = from ? 0 : -ENOMEM;

    if (from)
        memcpy(from, from0, from_len + 1);
    for (bool more = true; more && rc == 0;) {
        struct etcd_range_resp *p = realloc(pages, (n_pages + 1) * sizeof(*pages));
        if (!p) {
            rc = -ENOMEM;
            break;
        }
        pages = p;
        struct etcd_range_resp *resp = memset(&pages[n_pages++], 0, sizeof(*pages));
        struct etcd_range r = {.key = from, .key_len = from_len, .range_end = to,
                               .range_end_len = strlen(to), .limit = CNODE_READ_PAGE,
                               .revision = rev};
        if ((rc = etcd_get(n->etcd, &r, resp)) < 0) {
            etcd_failed(n, "reading the cluster's keys", rc);
            break;
        }
        rev = resp->hdr.revision;
        int next = etcd_range_next_page(resp, &from, &from_len);
        more = next > 0;
        rc = next < 0 ? next : 0;
    }
    free(from);
    if (rc < 0) {
        free_pages(pages, n_pages);
        return rc;
    }
    *out = pages;
    *n_out = n_pages;
    return 0;
}

/* Every key of the prefix at one revision, page by page: the table's
 * candidates and the members rebuilt from all of them at once, the watch
 * to start after it. */
static int full_read(struct cnode *n)
{
    char from[CL_KEY_MAX], to[CL_KEY_MAX];
    struct etcd_range_resp *pages = NULL;
    size_t n_pages = 0;
    int rc = cl_key_view(from, to, n->prefix);

    if (rc == 0)
        rc = read_pages(n, from, to, &pages, &n_pages);
    if (rc < 0)
        return rc;
    pthread_mutex_lock(&n->lock);
    cl_table_each(&n->table, clear_cands, NULL);
    n->members.n = 0;
    for (size_t p = 0; p < n_pages; p++)
        for (size_t i = 0; i < pages[p].kvs.n; i++)
            apply_kv(n, &pages[p].kvs.kv[i], false);
    n->revision = pages[n_pages - 1].hdr.revision;
    n->stats.full_reads++;
    n->etcd_ok = true;
    pthread_mutex_unlock(&n->lock);
    free_pages(pages, n_pages);
    return 0;
}

/* ---- events of other nodes --------------------------------------------- */

struct relay_in {
    struct cnode *n;
    const char *node;
};

static void relay_one(void *arg, const char *kind, const json_t *data)
{
    struct relay_in *ri = arg;

    rest_events_publish_relayed(ri->n->stream, kind, data, ri->node);
}

/* A batch another node put: its events on this node's stream, outside the
 * node's lock (the hub takes its own). */
static void relay_in(struct cnode *n, const struct etcd_watch_resp *r)
{
    for (size_t i = 0; i < r->n_ev; i++) {
        const struct etcd_kv *kv = &r->ev[i].kv;
        struct cl_key k;
        if (r->ev[i].type == ETCD_EV_DELETE ||
            cl_key_parse(n->prefix, kv->key, kv->key_len, &k) < 0 ||
            k.kind != CL_KEY_EVENTS || strcmp(k.node, n->node_id) == 0)
            continue;
        struct relay_in ri = {n, k.node};
        unsigned bad = 0;
        int got = n->stream ? cnode_relay_each((const char *)kv->value, kv->value_len, relay_one,
                                            &ri, &bad)
                            : 0;
        pthread_mutex_lock(&n->lock);
        n->stats.events_in += got > 0 ? (uint64_t)got : 0;
        n->stats.events_bad += got < 0 ? 1 : bad;
        pthread_mutex_unlock(&n->lock);
        if (got < 0 || bad)
            LOG_WARN_RL(&n->rl_relay, now_us(), "cluster",
                        "node %s's relayed events: %s: not published here", k.node,
                        got < 0 ? "the batch is not a JSON array" : "entries not [kind, object]");
    }
}

void cnode_tap(void *node, const char *kind, const json_t *data)
{
    struct cnode *n = node;

    pthread_mutex_lock(&n->relay_lock);
    cnode_outbox_add(&n->outbox, kind, data);
    pthread_mutex_unlock(&n->relay_lock);
}

/* The events published since the last batch, in one put bound to the
 * lease: the other nodes' watches see each put. */
static void relay_out(struct cnode *n, int64_t lease)
{
    size_t len = 0;
    uint32_t count = 0;
    char key[CL_KEY_MAX];

    pthread_mutex_lock(&n->relay_lock);
    char *batch = cnode_outbox_take(&n->outbox, &len, &count);
    uint64_t dropped = n->outbox.dropped - n->relay_dropped;
    n->relay_dropped = n->outbox.dropped;
    pthread_mutex_unlock(&n->relay_lock);
    if (dropped) {
        pthread_mutex_lock(&n->lock);
        n->stats.events_dropped += dropped;
        pthread_mutex_unlock(&n->lock);
        LOG_WARN_RL(&n->rl_relay, now_us(), "cluster",
                    "node %s: %" PRIu64 " events published faster than %u KiB per %u ms: "
                    "not relayed to the other nodes (this node's stream has them)",
                    n->node_id, dropped, CNODE_RELAY_MAX_BYTES >> 10, CNODE_RELAY_MS);
    }
    if (!batch)
        return;
    int kl = cl_key_events(key, sizeof(key), n->prefix, n->node_id);
    struct etcd_put p = {.key = key, .key_len = kl > 0 ? (size_t)kl : 0, .value = batch,
                         .value_len = len, .lease = lease};
    struct etcd_header h;
    int rc = kl < 0 ? kl : etcd_put(n->etcd, &p, &h);
    free(batch);
    if (rc < 0)
        etcd_failed(n, "relaying this node's events", rc);
    pthread_mutex_lock(&n->lock);
    if (rc < 0)
        n->stats.events_dropped += count;
    else
        n->stats.events_out += count;
    pthread_mutex_unlock(&n->lock);
}

static void on_watch(void *arg, const struct etcd_watch_resp *r)
{
    struct cnode *n = arg;

    relay_in(n, r);
    pthread_mutex_lock(&n->lock);
    for (size_t i = 0; i < r->n_ev; i++)
        apply_kv(n, &r->ev[i].kv, r->ev[i].type == ETCD_EV_DELETE);
    n->stats.watch_events += r->n_ev;
    if (r->hdr.revision > n->revision)
        n->revision = r->hdr.revision;
    if (n->await_rev && n->revision >= n->await_rev) {
        n->stats.watch_lag_us = now_us() - n->await_at_us;
        n->await_rev = 0;
    }
    pthread_mutex_unlock(&n->lock);
}

/* ---- the lease --------------------------------------------------------- */

/* This node's card, written only if no live node holds its name (the key
 * absent, or bound to our own lease already): two nodes with one name would
 * write each other's candidate keys. 0; -EEXIST (another lease holds it:
 * the caller tries again until it expires), or etcd's error. */
static int put_card(struct cnode *n, int64_t lease)
{
    char key[CL_KEY_MAX];
    int kl = cl_key_member(key, sizeof(key), n->prefix, n->node_id);
    if (kl < 0)
        return kl;
    struct etcd_cmp absent = {.target = ETCD_CMP_CREATE, .result = ETCD_CMP_EQUAL,
                              .key = key, .key_len = (size_t)kl, .number = 0};
    struct etcd_op put = {.kind = ETCD_OP_PUT,
                          .u.put = {.key = key, .key_len = (size_t)kl, .value = n->card,
                                    .value_len = strlen(n->card), .lease = lease}};
    struct etcd_op get = {.kind = ETCD_OP_RANGE,
                          .u.range = {.key = key, .key_len = (size_t)kl}};
    struct etcd_txn txn = {.cmp = &absent, .n_cmp = 1, .success = &put, .n_success = 1,
                           .failure = &get, .n_failure = 1};
    struct etcd_txn_resp resp = {0};
    int rc = etcd_txn(n->etcd, &txn, &resp);
    if (rc < 0) {
        etcd_failed(n, "writing this node's card", rc);
        return rc;
    }
    if (!resp.succeeded) {
        int64_t holder = resp.n_resp && resp.resp[0].kvs.n ? resp.resp[0].kvs.kv[0].lease : 0;
        if (holder == lease) {
            /* ours already (a retry whose first answer was lost): write it anew */
            struct etcd_header h;
            struct etcd_put p = put.u.put;
            rc = etcd_put(n->etcd, &p, &h);
        } else {
            pthread_mutex_lock(&n->lock);
            n->stats.name_taken++;
            pthread_mutex_unlock(&n->lock);
            LOG_WARN_RL(&n->rl_name, now_us(), "cluster",
                        "node id %s is held by a live node (lease %" PRIx64 "): waiting "
                        "until it is gone (a node restarted within cluster.lease_ttl_s "
                        "waits for its old lease; two nodes must not share a name)",
                        n->node_id, (uint64_t)holder);
            rc = -EEXIST;
        }
    }
    etcd_txn_resp_free(&resp);
    return rc;
}

static void forget_stood(void *arg, struct cl_sw *sw)
{
    (void)arg;
    sw->stood = false;
}

static int grant(struct cnode *n)
{
    struct etcd_lease_resp l;
    uint64_t sent = now_us();
    int rc = etcd_lease_grant(n->etcd, n->ttl_s, &l);

    if (rc < 0) {
        etcd_failed(n, "granting a lease", rc);
        return rc;
    }
    pthread_mutex_lock(&n->lock);
    n->lease = l.id;
    n->stats.lease_grants++;
    /* Keys bound to an older lease are gone or going: write them again. */
    cl_table_each(&n->table, forget_stood, NULL);
    cl_fence_answer(&n->fence, sent, l.ttl);
    pthread_mutex_unlock(&n->lock);
    atomic_store(&n->work, true);
    LOG_INFO("cluster", "node %s holds lease %" PRIx64 " (%" PRId64 " s)", n->node_id,
             (uint64_t)l.id, l.ttl);
    return 0;
}

/* The card once per lease, before anything else is written under our name. */
static int claim_name(struct cnode *n, int64_t lease)
{
    int rc = put_card(n, lease);

    pthread_mutex_lock(&n->lock);
    if (rc == 0)
        n->card_lease = lease;
    else if (rc == -ENOENT && n->lease == lease) {
        /* Expired already (a stop right after the grant): start over. */
        n->lease = 0;
        cl_fence_lost(&n->fence);
    }
    pthread_mutex_unlock(&n->lock);
    return rc;
}

static void keepalive(struct cnode *n)
{
    struct etcd_lease_resp l;
    uint64_t sent = now_us();
    int rc = etcd_lease_keepalive(n->etcd, n->lease, &l);

    pthread_mutex_lock(&n->lock);
    if (rc == 0) {
        n->stats.keepalives++;
        cl_fence_answer(&n->fence, sent, l.ttl);
        cl_members_ttl(&n->members, n->node_id, n->lease, l.ttl, sent);
        n->etcd_ok = true;
        n->etcd_error[0] = '\0';
    } else {
        n->stats.keepalive_failures++;
        if (rc == -ENOENT) {
            n->stats.leases_lost++;
            cl_fence_lost(&n->fence);
            /* The candidates seen are a dead lease's world (our keys gone,
             * others' won): nothing is decided on them until a full read. */
            n->synced = false;
            LOG_WARN("cluster", "node %s: lease %" PRIx64 " is gone (expired while this "
                     "node could not renew it): every switch's key is written anew",
                     n->node_id, (uint64_t)n->lease);
            n->lease = 0;
        }
    }
    pthread_mutex_unlock(&n->lock);
    if (rc < 0)
        etcd_failed(n, "lease keepalive", rc);
}

/* One other node's lease TTL left, one node a keepalive round (GET
 * /api/v1/cluster shows it): how long before etcd lets its switches go if
 * it has stopped. Asked only after an answered keepalive, so a slow etcd
 * does not hold the next one up. */
static void peer_ttl(struct cnode *n)
{
    char node[CL_NODE_NAME_MAX] = "";
    int64_t lease = 0, ttl = 0;

    pthread_mutex_lock(&n->lock);
    unsigned cnt = n->members.n;
    bool ok = n->etcd_ok && n->lease;
    for (unsigned k = 0; ok && k < cnt && !lease; k++) {
        const struct cl_member *m = &n->members.m[(n->ttl_next + k) % cnt];
        if (strcmp(m->node, n->node_id) != 0) {
            snprintf(node, sizeof(node), "%s", m->node);
            lease = m->lease;
            n->ttl_next = (n->ttl_next + k + 1) % cnt;
        }
    }
    pthread_mutex_unlock(&n->lock);
    if (!lease)
        return;
    uint64_t at = now_us();
    int rc = etcd_lease_ttl(n->etcd, lease, &ttl);
    if (rc < 0 && rc != -ENOENT)
        return;
    pthread_mutex_lock(&n->lock);
    cl_members_ttl(&n->members, node, lease, rc ? 0 : ttl, at);
    pthread_mutex_unlock(&n->lock);
}

/* ---- candidate keys ---------------------------------------------------- */

static void collect(void *arg, struct cl_sw *sw)
{
    struct cnode_todo *t = arg;

    if (t->n < CNODE_TXN_OPS && sw->want_stand != sw->stood) {
        t->dpid[t->n] = sw->dpid;
        t->stand[t->n++] = sw->want_stand;
    }
}

/* Write or delete up to CNODE_TXN_OPS candidate keys in one transaction.
 * Returns how many were carried out (the table learns them from the
 * watch; stood is set here too, so they are not written twice). */
static int reconcile(struct cnode *n, int64_t lease)
{
    struct cnode_todo *const t = &n->todo;
    char (*const keys)[CL_KEY_MAX] = t->key;
    struct etcd_op ops[CNODE_TXN_OPS];

    t->n = 0;
    pthread_mutex_lock(&n->lock);
    cl_table_each(&n->table, collect, t);
    pthread_mutex_unlock(&n->lock);
    if (!t->n)
        return 0;
    for (unsigned i = 0; i < t->n; i++) {
        int kl = cl_key_cand(keys[i], sizeof(keys[i]), n->prefix, t->dpid[i], n->node_id);
        if (kl < 0)
            return kl;
        if (t->stand[i])
            ops[i] = (struct etcd_op){.kind = ETCD_OP_PUT,
                                      .u.put = {.key = keys[i], .key_len = (size_t)kl,
                                                .value = "", .value_len = 0, .lease = lease}};
        else
            ops[i] = (struct etcd_op){.kind = ETCD_OP_DELETE,
                                      .u.del = {.key = keys[i], .key_len = (size_t)kl}};
    }
    struct etcd_txn txn = {.success = ops, .n_success = t->n};
    struct etcd_txn_resp resp = {0};
    uint64_t sent = now_us();
    int rc = etcd_txn(n->etcd, &txn, &resp);
    if (rc < 0) {
        etcd_failed(n, "writing candidate keys", rc);
        return rc;
    }
    pthread_mutex_lock(&n->lock);
    if (!n->await_rev) {
        n->await_rev = resp.hdr.revision;
        n->await_at_us = sent;
    }
    etcd_txn_resp_free(&resp);
    for (unsigned i = 0; i < t->n; i++) {
        struct cl_sw *sw = cl_table_find(&n->table, t->dpid[i]);
        if (sw)
            sw->stood = t->stand[i];
        if (t->stand[i])
            n->stats.stands++;
        else
            n->stats.resigns++;
    }
    pthread_mutex_unlock(&n->lock);
    return (int)t->n;
}

/* ---- leaving ---------------------------------------------------------- */

/* The events published so far go out first (the lease they are bound to
 * goes next); a revoke that fails is tried again by the loop until the
 * appliance stops (cnode_stop tries once more). */
static int leave_now(struct cnode *n, int64_t lease)
{
    if (lease)
        relay_out(n, lease);
    int rc = lease ? etcd_lease_revoke(n->etcd, lease) : 0;

    if (rc < 0) {
        etcd_failed(n, "revoking the lease to leave", rc);
        return rc;
    }
    if (lease)
        LOG_INFO("cluster", "node %s leaves the cluster: lease revoked, its switches go to "
                 "the other nodes now, while its channels are still up", n->node_id);
    pthread_mutex_lock(&n->lock);
    n->lease = 0;
    n->left = true;
    pthread_mutex_unlock(&n->lock);
    return 0;
}

void cnode_leave(struct cnode *n)
{
    atomic_store(&n->leave, true);
}

bool cnode_has_left(struct cnode *n)
{
    pthread_mutex_lock(&n->lock);
    bool left = n->left;
    pthread_mutex_unlock(&n->lock);
    return left;
}

/* ---- the loop ---------------------------------------------------------- */

static void *cnode_main(void *arg)
{
    struct cnode *n = arg;
    struct etcd_watch *w = NULL;
    uint64_t next_ka = 0, retry_at = 0, next_relay = 0;
    const uint64_t ka_every = (uint64_t)n->ttl_s * 1000000u / 3;

    while (!atomic_load(&n->stop)) {
        uint64_t now = now_us();
        pthread_mutex_lock(&n->lock);
        int64_t lease = n->lease;
        bool synced = n->synced;
        pthread_mutex_unlock(&n->lock);

        if (atomic_load(&n->leave)) {
            if (!n->left && now >= retry_at && leave_now(n, lease) < 0)
                retry_at = now_us() + CNODE_RETRY_MS * 1000u;
            nanosleep(&(struct timespec){0, CNODE_POLL_MS * 1000000L}, NULL);
            continue;
        }
        if (now < retry_at) {
            nanosleep(&(struct timespec){0, CNODE_POLL_MS * 1000000L}, NULL);
            continue;
        }
        if (!lease) {
            if (grant(n) < 0) {
                retry_at = now_us() + CNODE_RETRY_MS * 1000u;
                continue;
            }
            next_ka = now + ka_every;
            continue;
        }
        if (now >= next_ka) {
            keepalive(n);
            next_ka = now + ka_every;
            peer_ttl(n);
            continue;
        }
        pthread_mutex_lock(&n->lock);
        bool named = n->card_lease == lease;
        pthread_mutex_unlock(&n->lock);
        if (!named) {
            if (claim_name(n, lease) < 0)
                retry_at = now_us() + CNODE_RETRY_MS * 1000u;
            continue;
        }
        if (!synced) {
            if (w) {
                etcd_watch_close(w);
                w = NULL;
            }
            if (full_read(n) < 0) {
                retry_at = now_us() + CNODE_RETRY_MS * 1000u;
                continue;
            }
            char from[CL_KEY_MAX], to[CL_KEY_MAX];
            cl_key_view(from, to, n->prefix);      /* checked by full_read */
            pthread_mutex_lock(&n->lock);
            struct etcd_watch_req req = {.key = from, .key_len = strlen(from), .range_end = to,
                                         .range_end_len = strlen(to),
                                         .start_revision = n->revision + 1};
            pthread_mutex_unlock(&n->lock);
            int rc = etcd_watch_open(n->etcd, &req, on_watch, n, &w, NULL);
            if (rc < 0) {
                etcd_failed(n, "opening the watch", rc);
                w = NULL;
                retry_at = now_us() + CNODE_RETRY_MS * 1000u;
                continue;
            }
            pthread_mutex_lock(&n->lock);
            n->synced = true;
            pthread_mutex_unlock(&n->lock);
            atomic_store(&n->work, true);
        }
        if (now >= next_relay) {
            relay_out(n, lease);
            next_relay = now + CNODE_RELAY_MS * 1000u;
        }
        if (atomic_exchange(&n->work, false)) {
            int done = reconcile(n, lease);
            if (done == CNODE_TXN_OPS)
                atomic_store(&n->work, true);     /* more than one transaction's worth */
            else if (done < 0)
                atomic_store(&n->work, true), retry_at = now_us() + CNODE_RETRY_MS * 1000u;
        }
        uint64_t left = next_ka > now_us() ? (next_ka - now_us()) / 1000u : 0;
        int rc = etcd_watch_poll(w, (unsigned)(left < CNODE_POLL_MS ? left : CNODE_POLL_MS));
        if (rc < 0) {
            LOG_WARN("cluster", "node %s: the watch ended (%s): reading every key again",
                     n->node_id, etcd_watch_error(w));
            pthread_mutex_lock(&n->lock);
            n->synced = false;
            n->stats.watch_restarts++;
            pthread_mutex_unlock(&n->lock);
        }
    }
    if (w)
        etcd_watch_close(w);
    return NULL;
}

int cnode_start(struct cnode **out, const struct cnode_cfg *cfg, char *err)
{
    struct cnode *n = calloc(1, sizeof(*n));
    char why[ETCD_ERR_MAX] = "";

    if (!n) {
        snprintf(err, 256, "out of memory");
        return -ENOMEM;
    }
    snprintf(n->node_id, sizeof(n->node_id), "%s", cfg->node_id);
    snprintf(n->prefix, sizeof(n->prefix), "%s", cfg->prefix);
    snprintf(n->card, sizeof(n->card), "%s", cfg->card);
    n->ttl_s = cfg->ttl_s;
    n->rl_name = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(1, 2000);
    n->rl_relay = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(2, 10000);
    n->stream = cfg->stream;
    cnode_outbox_init(&n->outbox, 0);
    cl_fence_init(&n->fence, cl_fence_margin_us(cfg->ttl_s));
    pthread_mutex_init(&n->lock, NULL);
    pthread_mutex_init(&n->relay_lock, NULL);
    int rc = cl_table_init(&n->table, cfg->max_switches);
    if (rc < 0) {
        snprintf(err, 256, "cluster table: %s", strerror(-rc));
        goto fail;
    }
    struct etcd_client_cfg ec = {.endpoints = cfg->endpoints, .n_endpoints = cfg->n_endpoints,
                                 /* A call may take a third of the TTL: a keepalive late
                                  * by that still leaves the fence two thirds. */
                                 .timeout_ms = cfg->ttl_s * 1000u / 3,
                                 .connect_timeout_ms = 250, .ca = cfg->ca, .cert = cfg->cert,
                                 .key = cfg->key, .user = cfg->user,
                                 .password = cfg->password,
                                 .api = cfg->json ? ETCD_API_JSON : ETCD_API_GRPC};
    n->etcd = etcd_client_new(&ec, why);
    if (!n->etcd) {
        snprintf(err, 256, "etcd client: %.200s", why);
        rc = -EINVAL;
        goto fail;
    }
    rc = -pthread_create(&n->thread, NULL, cnode_main, n);
    if (rc < 0) {
        snprintf(err, 256, "cluster thread: %s", strerror(-rc));
        goto fail;
    }
    pthread_setname_np(n->thread, "ofcd-cluster");
    n->started = true;
    *out = n;
    return 0;
fail:
    etcd_client_free(n->etcd);
    cl_table_free(&n->table);
    cnode_outbox_fini(&n->outbox);
    pthread_mutex_destroy(&n->relay_lock);
    pthread_mutex_destroy(&n->lock);
    free(n);
    return rc;
}

void cnode_stop(struct cnode *n)
{
    if (!n)
        return;
    if (n->started) {
        atomic_store(&n->stop, true);
        pthread_join(n->thread, NULL);
    }
    if (n->lease && etcd_lease_revoke(n->etcd, n->lease) == 0)
        LOG_INFO("cluster", "node %s left the cluster: lease revoked, its switches go to "
                 "the other nodes now", n->node_id);
    etcd_client_free(n->etcd);
    cl_table_free(&n->table);
    cnode_outbox_fini(&n->outbox);
    pthread_mutex_destroy(&n->relay_lock);
    pthread_mutex_destroy(&n->lock);
    free(n);
}

void cnode_wake(struct cnode *n)
{
    atomic_store(&n->work, true);
}

bool cnode_may_act_locked(const struct cnode *n, uint64_t now)
{
    if (atomic_load(&n->leave))
        return false;
    return n->lease && n->card_lease == n->lease && n->synced &&
           cl_fence_may_act(&n->fence, now);
}

static void count_masters(void *arg, struct cl_sw *sw)
{
    if (sw->role == CL_ROLE_MASTER)
        (*(uint64_t *)arg)++;
}

void cnode_get_stats(struct cnode *n, struct cnode_stats *out)
{
    pthread_mutex_lock(&n->lock);
    *out = n->stats;
    out->nodes = n->members.n;
    out->switches = n->table.n;
    out->masters = 0;
    cl_table_each(&n->table, count_masters, &out->masters);
    out->may_act = cnode_may_act_locked(n, now_us());
    out->revision = n->revision > 0 ? (uint64_t)n->revision : 0;

    pthread_mutex_unlock(&n->lock);
}
