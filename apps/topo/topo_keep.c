/* topo_keep: see topo_keep.h. */
#include "topo_keep.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpid.h"
#include "ofcd_clock.h"
#include "ofcd_log.h"
#include "ofcd_ratelimit.h"
#include "store.h"

#define KEEP_PREFIX "topology/"
#define KEEP_META "topology/meta/"
#define KEEP_ADMIN "topology/admin/"
#define KEEP_LINK "topology/link/"

static int put_json(struct store *s, const char *key, const json_t *j)
{
    char *text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    if (!text)
        return -ENOMEM;
    int rc = store_kv_put(s, key, text, strlen(text));
    free(text);
    return rc;
}

static int del(struct store *s, const char *key)
{
    int rc = store_kv_del(s, key);
    return rc == -ENOENT ? 0 : rc;
}

int topo_meta_check(const json_t *meta, char *why, size_t len)
{
    size_t keys = json_object_size(meta);
    size_t bytes = json_dumpb(meta, NULL, 0, JSON_COMPACT | JSON_SORT_KEYS);

    if (keys > TOPO_META_MAX_KEYS) {
        snprintf(why, len, "%zu keys, at most %u keys per entity", keys, TOPO_META_MAX_KEYS);
        return -E2BIG;
    }
    if (bytes > TOPO_META_MAX_BYTES) {
        snprintf(why, len, "%zu bytes of JSON, at most %u bytes per entity", bytes,
                 TOPO_META_MAX_BYTES);
        return -E2BIG;
    }
    return 0;
}

int topo_keep_meta(struct store *s, const char *kind, const char *id, const json_t *meta)
{
    char key[STORE_KV_KEY_MAX + 1];

    if ((size_t)snprintf(key, sizeof(key), KEEP_META "%s/%s", kind, id) >= sizeof(key))
        return -EINVAL;
    return json_object_size(meta) ? put_json(s, key, meta) : del(s, key);
}

/* The keys of (dpid, port)'s flags and of link id's record: one spelling
 * for the writes, synchronous or queued, and for the forget. */
static void admin_key(uint64_t dpid, uint32_t port, char key[64])
{
    char d[24];

    dpid_format(dpid, d);
    snprintf(key, 64, KEEP_ADMIN "%s/%" PRIu32, d, port);
}

static void link_key(const char *id, char key[96])
{
    snprintf(key, 96, KEEP_LINK "%s", id);
}

int topo_keep_admin(struct store *s, uint64_t dpid, uint32_t port, uint32_t flags)
{
    char key[64], v[16];

    admin_key(dpid, port, key);
    snprintf(v, sizeof(v), "%" PRIu32, flags);
    return flags ? store_kv_put(s, key, v, strlen(v)) : del(s, key);
}

/* A link's record as text (malloc'd), or NULL. */
static char *link_text(const struct topo_link_rec *l, bool enabled)
{
    char a[TOPO_END_ID_LEN], b[TOPO_END_ID_LEN];

    topo_end_id(l->a, a);
    topo_end_id(l->b, b);
    json_t *j = json_pack("{s:s, s:s, s:b}", "a", a, "b", b, "enabled", enabled);
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(j);
    return text;
}

int topo_keep_link(struct store *s, const struct topo_link_rec *l, bool enabled)
{
    char key[96];
    char *text = link_text(l, enabled);

    if (!text)
        return -ENOMEM;
    link_key(l->id, key);
    int rc = store_kv_put(s, key, text, strlen(text));
    free(text);
    return rc;
}

int topo_keep_link_del(struct store *s, const char *id)
{
    char key[96];

    link_key(id, key);
    return del(s, key);
}

struct kv_job {
    char key[96];
    char *text;
    struct ofcd_ratelimit *rl;
};

static void kv_done(void *arg, int rc)
{
    struct kv_job *j = arg;

    if (rc < 0 && rc != -ENOENT)
        LOG_WARN_RL(j->rl, ofcd_clock_mono_us(), "topology", "%s: not kept over a restart: %s",
                    j->key, strerror(-rc));
    free(j->text);
    free(j);
}

/* key's record made text (taken; NULL: deleted), queued. */
static int kv_async(struct store *s, const char *key, char *text, bool del,
                    struct ofcd_ratelimit *rl_caller, struct ofcd_ratelimit *rl_committer)
{
    struct kv_job *j = calloc(1, sizeof(*j));
    int rc;

    if (!j) {
        free(text);
        return -ENOMEM;
    }
    j->rl = rl_committer;
    j->text = text;
    snprintf(j->key, sizeof(j->key), "%s", key);
    if (del)
        rc = store_kv_del_async(s, j->key, kv_done, j);
    else
        rc = text ? store_kv_put_async(s, j->key, text, strlen(text), kv_done, j) : -ENOMEM;
    if (rc < 0) {
        LOG_WARN_RL(rl_caller, ofcd_clock_mono_us(), "topology",
                    "%s: not kept over a restart: %s", j->key, strerror(-rc));
        free(j->text);
        free(j);
    }
    return rc;
}

int topo_keep_link_async(struct store *s, const struct topo_link_rec *l, bool gone,
                         struct ofcd_ratelimit *rl_caller, struct ofcd_ratelimit *rl_committer)
{
    char key[96];

    link_key(l->id, key);
    return kv_async(s, key, gone ? NULL : link_text(l, l->enabled), gone, rl_caller,
                    rl_committer);
}

int topo_keep_admin_async(struct store *s, uint64_t dpid, uint32_t port, uint32_t flags,
                          struct ofcd_ratelimit *rl_caller, struct ofcd_ratelimit *rl_committer)
{
    char key[64], v[16];

    admin_key(dpid, port, key);
    snprintf(v, sizeof(v), "%" PRIu32, flags);
    return kv_async(s, key, flags ? strdup(v) : NULL, !flags, rl_caller, rl_committer);
}

/* ---- forgetting ------------------------------------------------------------------ */

struct doomed {
    char (*keys)[STORE_KV_KEY_MAX + 1];
    size_t n, cap;
    bool nomem;
};

static int collect(const char *key, const void *val, size_t len, void *arg)
{
    struct doomed *d = arg;
    (void)val;
    (void)len;
    if (d->n == d->cap) {
        size_t nc = d->cap ? d->cap * 2 : 16;
        void *nk = realloc(d->keys, nc * sizeof(*d->keys));
        if (!nk) {
            d->nomem = true;
            return -ENOMEM;
        }
        d->keys = nk;
        d->cap = nc;
    }
    snprintf(d->keys[d->n++], sizeof(*d->keys), "%s", key);
    return 0;
}

/* The JSON objects' keys that start with prefix (or equal it, exact). */
static void meta_drop(json_t *all, const char *prefix, bool exact)
{
    const char *id;
    json_t *v;
    void *tmp;
    size_t n = strlen(prefix);

    json_object_foreach_safe(all, tmp, id, v) {
        (void)v;
        if (exact ? strcmp(id, prefix) == 0 : strncmp(id, prefix, n) == 0)
            json_object_del(all, id);
    }
}

int topo_keep_forget(struct store *s, uint64_t dpid, uint32_t port, json_t *meta,
                     pthread_mutex_t *meta_lock, struct topo_admin *admin)
{
    char d[24], id[TOPO_END_ID_LEN], pre[3][STORE_KV_KEY_MAX + 1];
    struct doomed doom = {0};
    bool sw = port == TOPO_ADMIN_SWITCH;
    int rc = 0;

    dpid_format(dpid, d);
    if (sw)
        snprintf(id, sizeof(id), "%s:", d);               /* every interface of it */
    else
        topo_end_id((struct topo_end){dpid, port}, id);
    snprintf(pre[0], sizeof(pre[0]), KEEP_META "interface/%s", id);
    snprintf(pre[1], sizeof(pre[1]), KEEP_META "tags/%s", id);
    if (sw)
        snprintf(pre[2], sizeof(pre[2]), KEEP_ADMIN "%s/", d);
    else
        admin_key(dpid, port, pre[2]);
    for (int i = 0; i < 3 && rc == 0 && s; i++)
        rc = store_kv_foreach(s, pre[i], collect, &doom);
    if (rc == 0 && sw && s) {
        char key[STORE_KV_KEY_MAX + 1];
        snprintf(key, sizeof(key), KEEP_META "switch/%s", d);
        rc = collect(key, NULL, 0, &doom);
    }
    for (size_t i = 0; i < doom.n && rc == 0; i++) {
        const char *k = doom.keys[i];
        /* A prefix match of interface ...:1 is also ...:10: keep to the one asked. */
        if (!sw && strncmp(k, KEEP_ADMIN, strlen(KEEP_ADMIN)) != 0 &&
            strcmp(strrchr(k, '/') + 1, id) != 0)
            continue;
        if (!sw && strncmp(k, KEEP_ADMIN, strlen(KEEP_ADMIN)) == 0 && strcmp(k, pre[2]) != 0)
            continue;
        rc = del(s, k);
        struct topo_end e;
        if (rc == 0 && strncmp(k, KEEP_ADMIN, strlen(KEEP_ADMIN)) == 0 &&
            topo_end_parse(k + strlen(KEEP_ADMIN), '/', true, &e) == 0)
            topo_admin_set(admin, e.dpid, e.port, 0);
    }
    free(doom.keys);
    if (rc < 0)
        return doom.nomem ? -ENOMEM : rc;
    pthread_mutex_lock(meta_lock);
    meta_drop(json_object_get(meta, "interface"), id, !sw);
    meta_drop(json_object_get(meta, "tags"), id, !sw);
    if (sw)
        meta_drop(json_object_get(meta, "switch"), d, true);
    pthread_mutex_unlock(meta_lock);
    /* Flags not read back from the store (none kept, or an interface's of
     * a switch deleted): those of the ports the admin table holds go by
     * the store's records above; the switch's and this port's here. */
    topo_admin_set(admin, dpid, port, 0);
    return 0;
}

/* ---- loading -------------------------------------------------------------------- */

struct load {
    json_t *meta;
    struct topo_admin *admin;
    struct topo_view *ctl;
    unsigned bad, over;
};

static int over_bound(struct load *L, const char *key, const char *why)
{
    if (L->over++ < 10)
        LOG_WARN("topology", "stored metadata %s: %s: not loaded (left in the store)", key, why);
    return 0;
}

static json_t *parse(const void *val, size_t len)
{
    json_t *j = json_loadb(val, len, 0, NULL);
    if (!json_is_object(j)) {
        json_decref(j);
        return NULL;
    }
    return j;
}

static int load_meta(struct load *L, const char *key, const void *val, size_t len)
{
    const char *kind = key + strlen(KEEP_META), *slash = strchr(kind, '/');
    char k[16], why[128];

    /* Past the bounds (an earlier ofcd had none): not loaded, not parsed
     * when its text alone is too long; the record stays in the store. */
    if (len > TOPO_META_MAX_BYTES) {
        snprintf(why, sizeof(why), "%zu bytes of JSON, at most %u bytes per entity", len,
                 TOPO_META_MAX_BYTES);
        return over_bound(L, key, why);
    }
    json_t *m = parse(val, len);
    if (m && topo_meta_check(m, why, sizeof(why)) < 0) {
        json_decref(m);
        return over_bound(L, key, why);
    }

    if (!m || !slash || slash == kind || (size_t)(slash - kind) >= sizeof(k) || !slash[1]) {
        json_decref(m);
        return -EINVAL;
    }
    memcpy(k, kind, (size_t)(slash - kind));
    k[slash - kind] = '\0';
    json_t *all = json_object_get(L->meta, k);
    if (!all)
        json_object_set_new(L->meta, k, all = json_object());
    json_object_set_new(all, slash + 1, m);
    return 0;
}

static int load_admin(struct load *L, const char *key, const void *val, size_t len)
{
    char v[16], *end;
    struct topo_end e;

    if (len == 0 || len >= sizeof(v))
        return -EINVAL;
    memcpy(v, val, len);
    v[len] = '\0';
    unsigned long f = strtoul(v, &end, 10);
    /* "dpid/port", port 0 the switch itself. */
    if (*end || f > UINT32_MAX || topo_end_parse(key + strlen(KEEP_ADMIN), '/', true, &e) < 0)
        return -EINVAL;
    if (topo_admin_set(L->admin, e.dpid, e.port, (uint32_t)f) < 0 ||
        ((f & TOPO_ADMIN_LIVENESS) && topo_live_enable(topo_view_live(L->ctl), e) < 0))
        LOG_WARN("topology", "%s: no room (topology.max_interfaces): not restored", key);
    return 0;
}

static int load_link(struct load *L, const char *key, const void *val, size_t len)
{
    json_t *j = parse(val, len);
    struct topo_end a, b;
    int rc = -EINVAL;

    if (j && topo_end_parse(json_string_value(json_object_get(j, "a")), ':', false, &a) == 0 &&
        topo_end_parse(json_string_value(json_object_get(j, "b")), ':', false, &b) == 0) {
        rc = 0;
        /* No "enabled": an earlier ofcd's record, kept for disabled links only. */
        if (topo_view_restore(L->ctl, a, b, json_is_true(json_object_get(j, "enabled"))) < 0)
            LOG_WARN("topology", "%s: no room (topology.max_links): not restored", key);
    }
    json_decref(j);
    return rc;
}

static int load_one(const char *key, const void *val, size_t len, void *arg)
{
    struct load *L = arg;
    int rc = -EINVAL;

    if (strncmp(key, KEEP_META, strlen(KEEP_META)) == 0)
        rc = load_meta(L, key, val, len);
    else if (strncmp(key, KEEP_ADMIN, strlen(KEEP_ADMIN)) == 0)
        rc = load_admin(L, key, val, len);
    else if (strncmp(key, KEEP_LINK, strlen(KEEP_LINK)) == 0)
        rc = load_link(L, key, val, len);
    if (rc < 0 && L->bad++ < 10)
        LOG_WARN("topology", "stored record %s does not parse: skipped", key);
    return 0;
}

int topo_keep_load(struct store *s, json_t **meta, struct topo_admin *admin,
                   struct topo_view *ctl)
{
    struct load L = {json_object(), admin, ctl, 0, 0};

    if (!L.meta)
        return -ENOMEM;
    int rc = store_kv_foreach(s, KEEP_PREFIX, load_one, &L);
    if (rc < 0) {
        json_decref(L.meta);
        return rc;
    }
    if (L.bad)
        LOG_WARN("topology", "%u stored records skipped", L.bad);
    if (L.over)
        LOG_WARN("topology", "%u stored metadata records over the bounds not loaded", L.over);
    *meta = L.meta;
    return 0;
}

/* ---- following another node's changes (a cluster) --------------------------------- */

bool topo_keep_is_meta(const char *key)
{
    return strncmp(key, KEEP_META, strlen(KEEP_META)) == 0;
}

bool topo_keep_is_ours(const char *key)
{
    return strncmp(key, KEEP_PREFIX, strlen(KEEP_PREFIX)) == 0;
}

/* key's value now: *val (NULL: no such record). */
static int read_now(struct store *s, const char *key, char **val, size_t *len)
{
    int rc = store_kv_get(s, key, val, len);

    if (rc == -ENOENT) {
        *val = NULL;
        return 0;
    }
    return rc;
}

int topo_keep_follow_meta(struct store *s, const char *key, json_t *meta)
{
    const char *kind = key + strlen(KEEP_META), *slash = strchr(kind, '/');
    char k[16], *val;
    size_t len;

    if (!slash || slash == kind || (size_t)(slash - kind) >= sizeof(k) || !slash[1])
        return -EINVAL;
    memcpy(k, kind, (size_t)(slash - kind));
    k[slash - kind] = '\0';
    int rc = read_now(s, key, &val, &len);
    if (rc < 0)
        return rc;
    if (!val) {
        json_object_del(json_object_get(meta, k), slash + 1);
        return 0;
    }
    struct load L = {meta, NULL, NULL, 0, 0};
    rc = load_meta(&L, key, val, len);
    free(val);
    return rc;
}

/* A removed record undone: the flags of (dpid, port) back to 0, the link
 * deleted (unless it is up here: this node sees it). */
static int follow_removed(const char *key, struct topo_admin *admin, struct topo_view *ctl)
{
    if (strncmp(key, KEEP_ADMIN, strlen(KEEP_ADMIN)) == 0) {
        struct topo_end e;
        if (topo_end_parse(key + strlen(KEEP_ADMIN), '/', true, &e) < 0)
            return -EINVAL;
        topo_admin_set(admin, e.dpid, e.port, 0);
        return 0;
    }
    if (strncmp(key, KEEP_LINK, strlen(KEEP_LINK)) == 0) {
        struct topo_link_rec *l = topo_view_find(ctl, key + strlen(KEEP_LINK));
        if (l && !l->active)
            topo_view_forget(ctl, l->id);
        return 0;
    }
    return -EINVAL;
}

int topo_keep_follow_state(struct store *s, const char *key, struct topo_admin *admin,
                           struct topo_view *ctl)
{
    struct load L = {NULL, admin, ctl, 0, 0};
    char *val;
    size_t len;
    int rc = read_now(s, key, &val, &len);

    if (rc < 0)
        return rc;
    if (!val)
        return follow_removed(key, admin, ctl);
    if (strncmp(key, KEEP_ADMIN, strlen(KEEP_ADMIN)) == 0)
        rc = load_admin(&L, key, val, len);
    else if (strncmp(key, KEEP_LINK, strlen(KEEP_LINK)) == 0)
        rc = load_link(&L, key, val, len);
    else
        rc = -EINVAL;
    free(val);
    return rc;
}
