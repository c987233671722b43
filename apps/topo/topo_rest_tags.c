/* topo_rest_tags: the interfaces' VLAN pools on topology v3 (see
 * topo_rest_priv.h; the rules are topo_tags.h's).
 *
 * An interface's pool is kept with the metadata (kind "tags", under
 * meta_lock, stored by topo_keep as topology/meta/tags/<id>) only when it
 * differs from Kytos' default: {"tag_ranges": [[lo, hi], ...],
 * "special_tags": [...]}. What is available is worked out when shown: the
 * ranges without the LLDP VLAN on an enabled switch's interfaces and
 * without the tags the circuits took (tags_used). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_view.h"
#include "ofcd_log.h"
#include "topo_keep.h"
#include "store.h"
#include "topo_rest_priv.h"
#include "topo_snap.h"
#include "topo_tags.h"

#define TAGS_KIND "tags"

/* The tag in use on (dpid, *): of_lldp's VLAN while the switch's LLDP flow
 * is in place (the switch enabled), else none. */
static uint32_t tag_in_use(struct topo_rest *t, uint64_t dpid)
{
    uint32_t vlan = t->app ? t->app->lldp_vlan : 0;
    return vlan && topo_rest_switch_enabled(t, dpid) ? vlan : 0;
}

/* ranges as JSON [[lo, hi], ...] -> r (room for TOPO_TAGS_MAX_RANGES);
 * singles (7 or [7]) become [7, 7]. 0, or -EINVAL with why. */
static int ranges_from_json(const json_t *a, struct topo_tag_range *r, size_t *n, char *why,
                            size_t len)
{
    size_t i;
    json_t *v;

    *n = 0;
    if (!json_is_array(a)) {
        snprintf(why, len, "field 'tag_ranges' must be a list of ranges");
        return -EINVAL;
    }
    if (json_array_size(a) > TOPO_TAGS_MAX_RANGES) {
        snprintf(why, len, "field 'tag_ranges': %zu ranges, at most %u", json_array_size(a),
                 TOPO_TAGS_MAX_RANGES);
        return -EINVAL;
    }
    json_array_foreach(a, i, v) {
        json_t *lo = json_is_array(v) ? json_array_get(v, 0) : v;
        json_t *hi = json_is_array(v) && json_array_size(v) == 2 ? json_array_get(v, 1) : lo;
        if ((json_is_array(v) && (json_array_size(v) < 1 || json_array_size(v) > 2)) ||
            !json_is_integer(lo) || !json_is_integer(hi) || json_integer_value(lo) < 0 ||
            json_integer_value(hi) < 0 || json_integer_value(lo) > UINT16_MAX ||
            json_integer_value(hi) > UINT16_MAX) {
            snprintf(why, len, "field 'tag_ranges[%zu]' must be a tag or [first, last] (tags "
                     "%u to %u)", i, TOPO_VLAN_MIN, TOPO_VLAN_MAX);
            return -EINVAL;
        }
        r[*n].lo = (uint32_t)json_integer_value(lo);
        r[*n].hi = (uint32_t)json_integer_value(hi);
        (*n)++;
    }
    return topo_tags_check(r, *n, why, len);
}

static json_t *ranges_json(const struct topo_tag_range *r, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_pack("[I, I]", (json_int_t)r[i].lo, (json_int_t)r[i].hi));
    return a;
}

/* An interface's stored ranges (Kytos' default when none): the count. */
static size_t pool_ranges(const json_t *pool, struct topo_tag_range *r)
{
    char why[128];
    size_t n = 0;

    if (pool && ranges_from_json(json_object_get(pool, "tag_ranges"), r, &n, why,
                                 sizeof(why)) == 0)
        return n;
    r[0] = (struct topo_tag_range){TOPO_VLAN_MIN, TOPO_VLAN_DEFAULT_HI};
    return 1;
}

static json_t *pool_special(const json_t *pool)
{
    json_t *s = json_object_get(pool, "special_tags");
    return json_is_array(s) ? json_deep_copy(s) : json_pack("[s, s]", "untagged", "any");
}

/* The LLDP VLAN's tag on dpid's ports: used and special set to it alone. */
static void used_base(struct topo_rest *t, uint64_t dpid, uint64_t used[TOPO_TAGS_WORDS],
                      unsigned *special)
{
    uint32_t lldp = tag_in_use(t, dpid);

    memset(used, 0, TOPO_TAGS_WORDS * sizeof(used[0]));
    *special = 0;
    topo_tags_mark(used, lldp, lldp);
}

/* The tags in use on (dpid, port), into used and special: the LLDP
 * VLAN's and those other apps took (t->tags_used). No topology lock
 * held. */
static void used_set(struct topo_rest *t, uint64_t dpid, uint32_t port,
                     uint64_t used[TOPO_TAGS_WORDS], unsigned *special)
{
    struct topo_end only = {dpid, port};
    struct topo_tags_used b = {used, special};

    used_base(t, dpid, used, special);
    if (t->tags_used)
        t->tags_used(t->tags_used_arg, &only, topo_tags_into, &b);
}

/* Every interface's uses at once (a listing of them all): sorted by
 * interface, looked up per port. */
struct tag_use {
    uint64_t dpid;
    uint32_t port;
    uint16_t lo, hi;
    unsigned special;
};

struct tag_uses {
    struct tag_use *u;
    size_t n, cap;
    bool short_of_memory;
};

static void uses_visit(void *v, uint64_t dpid, uint32_t port, unsigned lo, unsigned hi,
                       unsigned special)
{
    struct tag_uses *s = v;

    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        struct tag_use *n = realloc(s->u, cap * sizeof(*n));
        if (!n) {
            s->short_of_memory = true;
            return;
        }
        s->u = n;
        s->cap = cap;
    }
    s->u[s->n++] = (struct tag_use){dpid, port, (uint16_t)lo, (uint16_t)hi, special};
}

static int use_order(const void *x, const void *y)
{
    const struct tag_use *a = x, *b = y;
    if (a->dpid != b->dpid)
        return a->dpid < b->dpid ? -1 : 1;
    return a->port < b->port ? -1 : a->port > b->port;
}

/* The LLDP VLAN's and the uses s holds of (dpid, port). */
static void used_from(struct topo_rest *t, const struct tag_uses *s, uint64_t dpid,
                      uint32_t port, uint64_t used[TOPO_TAGS_WORDS], unsigned *special)
{
    size_t lo = 0, hi = s->n;

    used_base(t, dpid, used, special);
    while (lo < hi) {                   /* the first use at or after (dpid, port) */
        size_t mid = lo + (hi - lo) / 2;
        const struct tag_use *m = &s->u[mid];
        if (m->dpid < dpid || (m->dpid == dpid && m->port < port))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < s->n && s->u[lo].dpid == dpid && s->u[lo].port == port; lo++) {
        topo_tags_mark(used, s->u[lo].lo, s->u[lo].hi);
        *special |= s->u[lo].special;
    }
}

/* The pool's special tags without those in use. */
static json_t *special_available(const json_t *pool, unsigned used)
{
    json_t *s = pool_special(pool), *v;
    size_t i;

    for (i = json_array_size(s); i-- > 0;) {
        v = json_array_get(s, i);
        if (json_is_string(v) && (topo_special_bit(json_string_value(v)) & used))
            json_array_remove(s, i);
    }
    return s;
}

static unsigned special_bits(const json_t *pool)
{
    json_t *s = pool_special(pool), *v;
    unsigned bits = 0;
    size_t i;

    json_array_foreach(s, i, v)
        bits |= json_is_string(v) ? topo_special_bit(json_string_value(v)) : 0;
    json_decref(s);
    return bits;
}

/* Kytos' shape of one interface's pool: each field keyed by tag type; the
 * available ones are its ranges and special tags without those in use.
 * Under meta_lock (pool is the stored one, or NULL). */
static json_t *pool_json(const json_t *pool, const uint64_t used[TOPO_TAGS_WORDS],
                         unsigned special_used)
{
    struct topo_tag_range *r = malloc((TOPO_TAGS_MAX_RANGES + TOPO_TAGS_SET_RANGES) *
                                      sizeof(*r));
    if (!r)
        return NULL;
    struct topo_tag_range *avail = r + TOPO_TAGS_MAX_RANGES;
    uint64_t set[TOPO_TAGS_WORDS];
    size_t n = pool_ranges(pool, r);
    topo_tags_to_set(r, n, set);
    for (unsigned w = 0; w < TOPO_TAGS_WORDS; w++)
        set[w] &= ~used[w];
    size_t na = topo_tags_from_set(set, avail);
    json_t *j = json_pack("{s:{s:o}, s:{s:o}, s:{s:o}, s:{s:o}}",
                          "tag_ranges", "vlan", ranges_json(r, n),
                          "available_tags", "vlan", ranges_json(avail, na),
                          "special_tags", "vlan", pool_special(pool),
                          "special_available_tags", "vlan",
                          special_available(pool, special_used));
    free(r);
    return j;
}

int topo_rest_tags_allowed(struct topo_rest *t, uint64_t dpid, uint32_t port, uint64_t *set,
                           unsigned *special)
{
    struct topo_tag_range *r = malloc(TOPO_TAGS_MAX_RANGES * sizeof(*r));
    char id[TOPO_END_ID_LEN];

    if (!r)
        return -ENOMEM;
    topo_rest_iface_id(dpid, port, id);
    uint32_t lldp = tag_in_use(t, dpid);
    pthread_mutex_lock(&t->meta_lock);
    const json_t *pool = json_object_get(json_object_get(t->meta, TAGS_KIND), id);
    size_t n = pool_ranges(pool, r);
    *special = special_bits(pool);
    pthread_mutex_unlock(&t->meta_lock);
    topo_tags_to_set(r, n, set);
    free(r);
    if (lldp && lldp < 64u * TOPO_TAGS_WORDS)
        set[lldp / 64] &= ~(1ull << (lldp % 64));
    return 0;
}

void topo_rest_pools_hold(struct topo_rest *t)
{
    pthread_mutex_lock(&t->pool_lock);
}

void topo_rest_pools_release(struct topo_rest *t)
{
    pthread_mutex_unlock(&t->pool_lock);
}

void topo_rest_tags_user(struct topo_rest *t, topo_tags_walk_fn fn, void *arg)
{
    t->tags_used_arg = arg;
    t->tags_used = fn;
}

/* ---- GET ---------------------------------------------------------------------- */

struct pools_listing {
    json_t *all;
    const struct tag_uses *uses;
};

static void add_pools(struct topo_rest *t, const struct topo_snap_switch *s, unsigned idx,
                      void *arg)
{
    struct pools_listing *l = arg;
    uint64_t used[TOPO_TAGS_WORDS];
    unsigned special;
    (void)idx;
    for (uint32_t i = 0; s->ports && i < s->n_ports; i++) {
        char id[TOPO_END_ID_LEN];
        used_from(t, l->uses, s->dpid, s->ports[i].p.port_no, used, &special);
        topo_rest_iface_id(s->dpid, s->ports[i].p.port_no, id);
        pthread_mutex_lock(&t->meta_lock);
        json_t *pools = json_object_get(t->meta, TAGS_KIND);
        json_object_set_new(l->all, id, pool_json(json_object_get(pools, id), used, special));
        pthread_mutex_unlock(&t->meta_lock);
    }
}

/* Is id a known interface now? 0, -EINVAL (not an id), -ENOENT. */
static int iface_known(struct topo_rest *t, const char *id, struct topo_end *e)
{
    if (topo_end_parse(id, ':', false, e) < 0)
        return -EINVAL;
    const struct sw_view *cs = t->lock(t->lock_arg);
    const struct ctl_switch *s = sw_view_find(cs, e->dpid);
    bool known = s && of_ports_find(&s->ports, e->port);
    t->unlock(t->lock_arg);
    return known ? 0 : -ENOENT;
}

/* ---- changes ---------------------------------------------------------------------- */

/* Make pool (taken; NULL: the default) id's: stored first, then in effect.
 * Under keep_lock (the writers' turn); meta_lock only for the swap. */
static unsigned pool_commit(struct topo_rest *t, const char *id, json_t *pool, json_t **out)
{
    json_t *none = pool ? NULL : json_object();
    int rc = t->store ? topo_keep_meta(t->store, TAGS_KIND, id, pool ? pool : none) : 0;
    json_decref(none);
    if (rc < 0) {
        json_decref(pool);
        LOG_ERR("topology", "interface %s: tag ranges not stored: %s", id, store_strerror(rc));
        return rest_ext_error(out, rc == -ENOSPC ? 507 : rc == -ESTALE ? 503 : 500,
                              "tag ranges not stored: %s", store_strerror(rc));
    }
    topo_rest_meta_swap(t, TAGS_KIND, id, pool);
    *out = json_string("Operation Successful");
    return 200;
}

/* The stored pool with one field replaced; NULL when that makes it Kytos'
 * default again (nothing to keep). */
static json_t *pool_with(const json_t *old, const char *field, json_t *value)
{
    json_t *p = old ? json_deep_copy(old) : json_object();
    json_object_set_new(p, field, value);
    json_t *r = json_object_get(p, "tag_ranges"), *s = json_object_get(p, "special_tags");
    json_t *dr = json_pack("[[i, i]]", TOPO_VLAN_MIN, TOPO_VLAN_DEFAULT_HI);
    json_t *ds = json_pack("[s, s]", "untagged", "any");
    if (r && json_equal(r, dr))
        json_object_del(p, "tag_ranges");
    if (s && json_equal(s, ds))
        json_object_del(p, "special_tags");
    json_decref(dr);
    json_decref(ds);
    if (json_object_size(p) == 0) {
        json_decref(p);
        return NULL;
    }
    return p;
}

/* The first tag of used that r[0..n) leaves out; 0 when none. */
static uint32_t left_out(const struct topo_tag_range *r, size_t n,
                         const uint64_t used[TOPO_TAGS_WORDS])
{
    for (uint32_t tag = 1; tag < 64u * TOPO_TAGS_WORDS; tag++)
        if ((used[tag / 64] >> (tag % 64) & 1) && !topo_tags_has(r, n, tag))
            return tag;
    return 0;
}

/* Under pool_lock from the check of what is in use to the commit: a
 * circuit cannot take a tag in between that the new pool leaves out. */
static unsigned set_ranges(struct topo_rest *t, const char *id, const struct topo_end *e,
                           const struct topo_tag_range *r, size_t n, json_t **out)
{
    uint64_t used[TOPO_TAGS_WORDS];
    unsigned special;

    pthread_mutex_lock(&t->pool_lock);
    uint32_t lldp = tag_in_use(t, e->dpid);
    used_set(t, e->dpid, e->port, used, &special);
    uint32_t out_tag = left_out(r, n, used);
    if (out_tag) {
        pthread_mutex_unlock(&t->pool_lock);
        return rest_ext_error(out, 400, "Missing tags in tag_range: [[%" PRIu32 ", %" PRIu32
                              "]] (in use by %s)", out_tag, out_tag,
                              out_tag == lldp ? "LLDP: topology.lldp_vlan" : "a circuit");
    }
    pthread_mutex_lock(&t->keep_lock);
    json_t *old = topo_rest_meta_copy(t, TAGS_KIND, id);
    unsigned status = pool_commit(t, id, pool_with(old, "tag_ranges", ranges_json(r, n)), out);
    json_decref(old);
    pthread_mutex_unlock(&t->keep_lock);
    pthread_mutex_unlock(&t->pool_lock);
    if (status == 200)
        LOG_INFO("topology", "interface %s: %zu VLAN ranges set by REST", id, n);
    return status;
}

static unsigned post_ranges(struct topo_rest *t, const json_t *body, const char *id,
                            json_t **out)
{
    json_t *type = json_object_get(body, "tag_type");
    struct topo_tag_range *r = malloc(TOPO_TAGS_MAX_RANGES * sizeof(*r));
    struct topo_end e;
    char why[160];
    size_t n;
    unsigned status;

    if (!r)
        return rest_ext_error(out, 500, "out of memory");
    if (!json_is_object(body))
        status = rest_ext_error(out, 400, "the body must be a JSON object with 'tag_type' and "
                                "'tag_ranges'");
    else if (!json_is_string(type) || strcmp(json_string_value(type), "vlan") != 0)
        status = rest_ext_error(out, 400, "field 'tag_type' must be \"vlan\"");
    else if (!json_is_array(json_object_get(body, "tag_ranges")) ||
             json_array_size(json_object_get(body, "tag_ranges")) == 0)
        status = rest_ext_error(out, 400, "field 'tag_ranges' must be a non-empty list");
    else if (ranges_from_json(json_object_get(body, "tag_ranges"), r, &n, why, sizeof(why)) < 0)
        status = rest_ext_error(out, 400, "%s", why);
    else if (iface_known(t, id, &e) < 0)
        status = rest_ext_error(out, 404, "Interface not found");
    else
        status = set_ranges(t, id, &e, r, n, out);
    free(r);
    return status;
}

static unsigned delete_ranges(struct topo_rest *t, const struct rest_ext_req *q, const char *id,
                              json_t **out)
{
    const char *type = q->query(q, "tag_type");
    struct topo_end e;

    if (iface_known(t, id, &e) < 0)
        return rest_ext_error(out, 404, "Interface not found");
    if (type && strcmp(type, "vlan") != 0)
        return rest_ext_error(out, 400, "Tag type %s is not supported.", type);
    struct topo_tag_range def = {TOPO_VLAN_MIN, TOPO_VLAN_DEFAULT_HI};
    return set_ranges(t, id, &e, &def, 1, out);
}

static unsigned post_special(struct topo_rest *t, const json_t *body, const char *id,
                             json_t **out)
{
    json_t *type = json_object_get(body, "tag_type");
    json_t *tags = json_object_get(body, "special_tags"), *v;
    struct topo_end e;
    unsigned seen = 0;
    size_t i;

    if (!json_is_object(body) || !json_is_string(type) ||
        strcmp(json_string_value(type), "vlan") != 0)
        return rest_ext_error(out, 400, "field 'tag_type' must be \"vlan\"");
    if (!json_is_array(tags))
        return rest_ext_error(out, 400, "field 'special_tags' must be a list of strings");
    json_array_foreach(tags, i, v)
        if (!json_is_string(v))
            return rest_ext_error(out, 400, "field 'special_tags[%zu]' must be a string", i);
    if (iface_known(t, id, &e) < 0)
        return rest_ext_error(out, 404, "Interface not found");
    /* Kytos' checks, in its order: a repeated value first, then one it
     * does not know. */
    json_array_foreach(tags, i, v) {
        unsigned b = topo_special_bit(json_string_value(v));
        if (b & seen)
            return rest_ext_error(out, 400, "There are duplicated values in the range.");
        seen |= b;
    }
    json_array_foreach(tags, i, v)
        if (!topo_special_bit(json_string_value(v)))
            return rest_ext_error(out, 400, "The tag %s is not supported",
                                  json_string_value(v));
    /* Those in use stay, as tag_ranges keep theirs (pool_lock: set_ranges). */
    uint64_t used[TOPO_TAGS_WORDS];
    unsigned in_use;
    pthread_mutex_lock(&t->pool_lock);
    used_set(t, e.dpid, e.port, used, &in_use);
    if (in_use & ~seen) {
        pthread_mutex_unlock(&t->pool_lock);
        return rest_ext_error(out, 400, "Missing tags in special_tags: %s (in use by a "
                              "circuit)", topo_special_name(in_use & ~seen & TOPO_SPECIAL_UNTAGGED
                                                            ? TOPO_SPECIAL_UNTAGGED
                                                            : TOPO_SPECIAL_ANY));
    }
    pthread_mutex_lock(&t->keep_lock);
    json_t *old = topo_rest_meta_copy(t, TAGS_KIND, id);
    unsigned status = pool_commit(t, id, pool_with(old, "special_tags", json_deep_copy(tags)),
                                  out);
    json_decref(old);
    pthread_mutex_unlock(&t->keep_lock);
    pthread_mutex_unlock(&t->pool_lock);
    return status;
}

unsigned topo_rest_tags(struct topo_rest *t, const struct rest_ext_req *q, const char *id,
                        const char *what, json_t **out)
{
    bool get = strcmp(q->method, "GET") == 0, post = strcmp(q->method, "POST") == 0;

    if (!id) {
        if (!get)
            return rest_ext_error(out, 405, "method %s not allowed on %s", q->method, q->path);
        /* The apps' uses walked once for all interfaces (a walk per
         * interface cost interfaces x circuits). */
        struct tag_uses uses = {0};
        if (t->tags_used)
            t->tags_used(t->tags_used_arg, NULL, uses_visit, &uses);
        if (uses.n > 1)
            qsort(uses.u, uses.n, sizeof(*uses.u), use_order);
        struct pools_listing l = {json_object(), &uses};
        if (uses.short_of_memory || !l.all ||
            topo_read_each_switch(t, true, add_pools, &l) < 0) {
            json_decref(l.all);
            free(uses.u);
            return rest_ext_error(out, 500, "out of memory copying the interfaces");
        }
        free(uses.u);
        *out = l.all;
        return 200;
    }
    if (strcmp(what, "special_tags") == 0 && !post)
        return rest_ext_error(out, 405, "method %s not allowed on %s", q->method, q->path);
    if (get) {
        struct topo_end e;
        if (iface_known(t, id, &e) < 0)
            return rest_ext_error(out, 404, "Interface not found");
        uint64_t used[TOPO_TAGS_WORDS];
        unsigned special;
        used_set(t, e.dpid, e.port, used, &special);
        char canon[TOPO_END_ID_LEN];
        topo_rest_iface_id(e.dpid, e.port, canon);
        pthread_mutex_lock(&t->meta_lock);
        json_t *pool = pool_json(json_object_get(json_object_get(t->meta, TAGS_KIND), canon),
                                 used, special);
        pthread_mutex_unlock(&t->meta_lock);
        *out = pool ? json_pack("{s:o}", id, pool) : NULL;
        return *out ? 200 : rest_ext_error(out, 500, "out of memory");
    }
    if (strcmp(q->method, "DELETE") == 0) {
        struct topo_end e;
        char canon[TOPO_END_ID_LEN];
        if (topo_end_parse(id, ':', false, &e) < 0)
            return rest_ext_error(out, 404, "Interface not found");
        topo_rest_iface_id(e.dpid, e.port, canon);
        return delete_ranges(t, q, canon, out);
    }
    if (!post)
        return rest_ext_error(out, 405, "method %s not allowed on %s", q->method, q->path);
    /* A body is read before any lock: its size is the client's. */
    json_error_t err;
    json_t *body = q->body ? json_loadb(q->body, q->body_len, 0, &err) : NULL;
    struct topo_end e;
    char canon[TOPO_END_ID_LEN] = "";
    if (topo_end_parse(id, ':', false, &e) == 0)
        topo_rest_iface_id(e.dpid, e.port, canon);
    unsigned status;
    if (!body)
        status = rest_ext_error(out, 400, "the body is not JSON");
    else if (!*canon)
        status = rest_ext_error(out, 404, "Interface not found");
    else if (what[0] == 't')
        status = post_ranges(t, body, canon, out);
    else
        status = post_special(t, body, canon, out);
    json_decref(body);
    return status;
}
