/*
 * store_mem: the store's in-memory backend (see store.h), for tests and
 * benches: NOTHING of it survives the process.
 *
 * Two ordered maps (store_omap: the flows by (dpid, match_id), the apps'
 * records by key) under one read-write lock. Changes go through
 * store_queue's group commit as the LMDB backend's do, so callers see the
 * same semantics: completions on the store's committer thread, in queue
 * order, after the change is readable; a batch applied as one transaction
 * (the write lock held from begin to commit or abort, so readers see all
 * of it or none) and one change that fails (a full store) fails alone.
 * A transaction keeps an undo log; its abort needs no allocation (a
 * removed node is kept until commit, a replaced item too).
 *
 * Bounded like the LMDB map: the records' bytes (headers, owners, JSON,
 * keys, values) may not pass map_size; puts stop 1/8 early so deletes and
 * state updates always find room.
 */
#include "store.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ofcd_log.h"
#include "store_omap.h"
#include "store_queue.h"

#define STORE_COMP "store"

/* One flow: the record and its owner and JSON, one block. */
struct mem_flow {
    uint64_t dpid, match_id, flow_id;
    uint64_t added_ns, changed_ns;
    enum store_flow_state state;
    uint16_t err_type, err_code;
    size_t owner_len, json_len;
    char data[];                    /* owner, NUL, JSON, NUL */
};

/* One app record: key, NUL, value. */
struct mem_kv {
    size_t key_len, len;
    char data[];
};

enum mem_undo_kind {
    MEM_UNDO_INSERT,    /* cur was inserted */
    MEM_UNDO_REPLACE,   /* cur replaced old in old's node */
    MEM_UNDO_DELETE,    /* node (its item) was taken out */
};

struct mem_undo {
    enum mem_undo_kind kind;
    struct store_omap *map;
    void *old, *cur;
    struct store_omap_node *node;
};

struct store_mem {
    struct store_queue q;           /* first: the group commit, then struct store */
    pthread_rwlock_t rw;            /* readers / the committer's transaction */
    struct store_omap flows, kv;
    size_t map_size, put_limit;
    size_t used;                    /* bytes of records */

    /* committer thread only, between begin and commit/abort */
    struct mem_undo *undo;
    size_t n_undo, cap_undo;
    size_t used_at_begin;
};

static struct store_mem *M(struct store *s)
{
    return (struct store_mem *)s;
}

static struct store_mem *MQ(struct store_queue *q)
{
    return (struct store_mem *)q;
}

static int flow_cmp(const void *a, const void *b)
{
    const struct mem_flow *x = a, *y = b;

    if (x->dpid != y->dpid)
        return x->dpid < y->dpid ? -1 : 1;
    if (x->match_id != y->match_id)
        return x->match_id < y->match_id ? -1 : 1;
    return 0;
}

/* Keys are NUL-free strings: strcmp orders them bytewise, as LMDB does. */
static int kv_cmp(const void *a, const void *b)
{
    return strcmp(((const struct mem_kv *)a)->data, ((const struct mem_kv *)b)->data);
}

static size_t flow_size(const struct mem_flow *f)
{
    return sizeof(*f) + f->owner_len + f->json_len + 2;
}

static size_t kv_size(const struct mem_kv *r)
{
    return sizeof(*r) + r->key_len + 1 + r->len;
}

static size_t item_size(const struct store_mem *m, const struct store_omap *map, const void *it)
{
    return map == &m->flows ? flow_size(it) : kv_size(it);
}

static struct mem_flow *flow_copy(const struct mem_flow *f)
{
    struct mem_flow *c = malloc(flow_size(f));

    if (c)
        memcpy(c, f, flow_size(f));
    return c;
}

/* The reader's view of r; owner and JSON point into r. */
static void flow_view(const struct mem_flow *r, struct store_flow *f)
{
    *f = (struct store_flow){
        .dpid = r->dpid, .match_id = r->match_id, .flow_id = r->flow_id, .state = r->state,
        .err_type = r->err_type, .err_code = r->err_code, .added_ns = r->added_ns,
        .changed_ns = r->changed_ns, .owner = r->data, .json = r->data + r->owner_len + 1,
        .json_len = r->json_len,
    };
}

/* ---- committer side: store_queue's transaction --------------------------- */

/* Room in the undo log for one more entry, before the change is made. */
static int undo_reserve(struct store_mem *m)
{
    if (m->n_undo < m->cap_undo)
        return 0;
    size_t ncap = m->cap_undo ? m->cap_undo * 2 : 64;
    struct mem_undo *n = realloc(m->undo, ncap * sizeof(*n));

    if (!n)
        return -ENOMEM;
    m->undo = n;
    m->cap_undo = ncap;
    return 0;
}

/* Put item into map (reserve undo room first): inserted or replacing. */
static int mem_put(struct store_mem *m, struct store_omap *map, void *item)
{
    void *old;
    int rc = undo_reserve(m);

    if (!rc)
        rc = store_omap_put(map, item, &old);
    if (rc)
        return rc;
    m->used += item_size(m, map, item);
    if (old)
        m->used -= item_size(m, map, old);
    m->undo[m->n_undo++] = (struct mem_undo){
        .kind = old ? MEM_UNDO_REPLACE : MEM_UNDO_INSERT, .map = map, .old = old, .cur = item};
    return 0;
}

/* Take the item equal to probe out of map: 0, or -ENOENT. */
static int mem_remove(struct store_mem *m, struct store_omap *map, const void *probe)
{
    int rc = undo_reserve(m);
    struct store_omap_node *node = rc ? NULL : store_omap_unlink(map, probe);

    if (rc)
        return rc;
    if (!node)
        return -ENOENT;
    m->used -= item_size(m, map, store_omap_item(node));
    m->undo[m->n_undo++] = (struct mem_undo){.kind = MEM_UNDO_DELETE, .map = map,
                                             .node = node};
    return 0;
}

/* -ENOSPC when bytes more would pass the puts' limit. */
static int mem_room(const struct store_mem *m, size_t bytes)
{
    return m->used + bytes > m->put_limit ? -ENOSPC : 0;
}

static int mem_apply_put(struct store_mem *m, struct store_op *op, uint64_t now,
                         struct store_tally *t)
{
    for (size_t i = 0; i < op->u.put.n; i++) {
        const struct store_flow *f = &op->u.put.flows[i];
        size_t olen = store_owner_len(f);
        struct mem_flow *r;
        int rc = mem_room(m, sizeof(*r) + olen + f->json_len + 2);

        if (rc)
            return rc;
        if (!(r = malloc(sizeof(*r) + olen + f->json_len + 2)))
            return -ENOMEM;
        *r = (struct mem_flow){
            .dpid = f->dpid, .match_id = f->match_id, .flow_id = f->flow_id,
            .added_ns = now, .changed_ns = now, .state = f->state,
            .err_type = f->state == STORE_FLOW_ERROR ? f->err_type : 0,
            .err_code = f->state == STORE_FLOW_ERROR ? f->err_code : 0,
            .owner_len = olen, .json_len = f->json_len,
        };
        if (olen)
            memcpy(r->data, f->owner, olen);
        r->data[olen] = '\0';
        if (f->json_len)
            memcpy(r->data + olen + 1, f->json, f->json_len);
        r->data[olen + 1 + f->json_len] = '\0';
        if ((rc = mem_put(m, &m->flows, r)) < 0) {
            free(r);
            return rc;
        }
        t->put++;
        if ((rc = store_queue_changed_flow(&m->q, f->dpid, f->match_id, false)) < 0)
            return rc;
    }
    return 0;
}

static int mem_apply_del(struct store_mem *m, struct store_op *op, struct store_tally *t)
{
    struct mem_flow probe = {.dpid = op->u.del.dpid, .match_id = op->u.del.match_id};
    int rc = mem_remove(m, &m->flows, &probe);

    if (rc)
        return rc;
    t->deleted++;
    return store_queue_changed_flow(&m->q, probe.dpid, probe.match_id, true);
}

/* A copy of r with another state, changed now, replacing r. */
static int mem_restate(struct store_mem *m, const struct mem_flow *r, enum store_flow_state st,
                       uint16_t err_type, uint16_t err_code, uint64_t now)
{
    struct mem_flow *c = flow_copy(r);
    int rc;

    if (!c)
        return -ENOMEM;
    c->state = st;
    c->err_type = st == STORE_FLOW_ERROR ? err_type : 0;
    c->err_code = st == STORE_FLOW_ERROR ? err_code : 0;
    c->changed_ns = now;
    if ((rc = mem_put(m, &m->flows, c)) < 0)
        free(c);
    return rc;
}

/* What pred selects is collected first, then changed: the walk never runs
 * over a list it is changing. */
static int mem_apply_del_if(struct store_mem *m, struct store_op *op, uint64_t now,
                            struct store_tally *t)
{
    struct mem_flow from = {.dpid = op->u.del_if.dpid};
    const struct store_omap_node *n = store_omap_seek(&m->flows,
                                                      op->u.del_if.all ? NULL : &from);
    struct mem_flow **hit = NULL;
    size_t nhit = 0, cap = 0;
    int rc = 0;

    op->u.del_if.deleted = 0;
    for (; n; n = store_omap_next(n)) {
        struct mem_flow *r = store_omap_item(n);
        struct store_flow f;

        if (!op->u.del_if.all && r->dpid != op->u.del_if.dpid)
            break;
        if (op->u.del_if.mark && r->state == STORE_FLOW_DELETED)
            continue;                               /* already: its deleted_at stays */
        flow_view(r, &f);
        if (!op->u.del_if.pred(&f, op->u.del_if.arg))
            continue;
        if (nhit == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            struct mem_flow **nh = realloc(hit, ncap * sizeof(*nh));

            if (!nh) {
                free(hit);
                return -ENOMEM;
            }
            hit = nh;
            cap = ncap;
        }
        hit[nhit++] = r;
    }
    for (size_t i = 0; i < nhit && !rc; i++) {
        uint64_t dpid = hit[i]->dpid, mid = hit[i]->match_id;

        rc = op->u.del_if.mark ? mem_restate(m, hit[i], STORE_FLOW_DELETED, 0, 0, now)
                               : mem_remove(m, &m->flows, hit[i]);
        if (!rc)
            rc = store_queue_changed_flow(&m->q, dpid, mid, !op->u.del_if.mark);
    }
    free(hit);
    if (rc)
        return rc;
    op->u.del_if.deleted = nhit;
    if (op->u.del_if.mark)
        t->marked += nhit;
    else
        t->deleted += nhit;
    return 0;
}

static int mem_apply_state(struct store_mem *m, struct store_op *op, uint64_t now,
                           struct store_tally *t)
{
    struct mem_flow probe = {.dpid = op->u.st.dpid, .match_id = op->u.st.match_id};
    const struct mem_flow *r = store_omap_find(&m->flows, &probe);
    int rc;

    /* A deleted flow's late barrier reply or error does not bring it back. */
    if (!r || r->state == STORE_FLOW_DELETED ||
        (op->u.st.flow_id && r->flow_id != op->u.st.flow_id)) {
        t->state_stale++;
        return 0;
    }
    rc = mem_restate(m, r, op->u.st.state, op->u.st.err_type, op->u.st.err_code, now);
    if (rc)
        return rc;
    t->state_updates++;
    return store_queue_changed_state(&m->q, probe.dpid, probe.match_id);
}

static int mem_apply_kv(struct store_mem *m, struct store_op *op)
{
    size_t klen = strlen(op->u.kv.key);
    struct mem_kv *r = malloc(sizeof(*r) + klen + 1 + (op->u.kv.val ? op->u.kv.len : 0));
    int rc;

    if (!r)
        return -ENOMEM;
    r->key_len = klen;
    r->len = op->u.kv.val ? op->u.kv.len : 0;
    memcpy(r->data, op->u.kv.key, klen + 1);
    if (!op->u.kv.val) {
        rc = mem_remove(m, &m->kv, r);          /* r is the probe */
        free(r);
    } else {
        /* The flows' reserve applies: an app's records never eat the room
         * deletes need. */
        if (r->len)
            memcpy(r->data + klen + 1, op->u.kv.val, r->len);
        rc = mem_room(m, kv_size(r));
        if (!rc)
            rc = mem_put(m, &m->kv, r);
        if (rc)
            free(r);
    }
    return rc ? rc : store_queue_changed_kv(&m->q, op->u.kv.key, !op->u.kv.val);
}

static int mem_apply(struct store_queue *q, struct store_op *op, uint64_t now,
                     struct store_tally *t)
{
    struct store_mem *m = MQ(q);

    switch (op->kind) {
    case STORE_OP_PUT:
        return mem_apply_put(m, op, now, t);
    case STORE_OP_DEL:
        return mem_apply_del(m, op, t);
    case STORE_OP_DEL_IF:
        return mem_apply_del_if(m, op, now, t);
    case STORE_OP_STATE:
        return mem_apply_state(m, op, now, t);
    case STORE_OP_SYNC:
        return 0;
    case STORE_OP_KV:
        return mem_apply_kv(m, op);
    }
    return -EINVAL;
}

static int mem_begin(struct store_queue *q)
{
    struct store_mem *m = MQ(q);

    pthread_rwlock_wrlock(&m->rw);
    m->n_undo = 0;
    m->used_at_begin = m->used;
    return 0;
}

/* What the transaction replaced or removed is freed now. */
static int mem_commit(struct store_queue *q)
{
    struct store_mem *m = MQ(q);

    for (size_t i = 0; i < m->n_undo; i++) {
        struct mem_undo *u = &m->undo[i];

        if (u->kind == MEM_UNDO_REPLACE) {
            free(u->old);
        } else if (u->kind == MEM_UNDO_DELETE) {
            free(store_omap_item(u->node));
            store_omap_node_free(u->node);
        }
    }
    m->n_undo = 0;
    pthread_rwlock_unlock(&m->rw);
    return 0;
}

/* Newest first, so a key changed twice ends as it began. */
static void mem_abort(struct store_queue *q)
{
    struct store_mem *m = MQ(q);

    while (m->n_undo) {
        struct mem_undo *u = &m->undo[--m->n_undo];
        void *cur = NULL;

        switch (u->kind) {
        case MEM_UNDO_INSERT:
            store_omap_node_free(store_omap_unlink(u->map, u->cur));
            free(u->cur);
            break;
        case MEM_UNDO_REPLACE:
            store_omap_put(u->map, u->old, &cur);    /* in place: cannot fail */
            free(cur);
            break;
        case MEM_UNDO_DELETE:
            store_omap_relink(u->map, u->node);
            break;
        }
    }
    m->used = m->used_at_begin;
    pthread_rwlock_unlock(&m->rw);
}

static const struct store_txn_ops mem_txn = {
    .begin = mem_begin,
    .apply = mem_apply,
    .commit = mem_commit,
    .abort = mem_abort,
    .idle = NULL,
};

/* ---- readers: under the read lock, on the committed state ----------------- */

static int mem_get(struct store *s, uint64_t dpid, uint64_t match_id, struct store_flow *out)
{
    struct store_mem *m = M(s);
    struct mem_flow probe = {.dpid = dpid, .match_id = match_id};

    if (!out)
        return -EINVAL;
    memset(out, 0, sizeof(*out));
    pthread_rwlock_rdlock(&m->rw);
    const struct mem_flow *r = store_omap_find(&m->flows, &probe);
    char *copy = r ? malloc(r->owner_len + r->json_len + 2) : NULL;
    if (copy) {
        /* One block, as store_flow_release frees it: owner, NUL, JSON, NUL. */
        memcpy(copy, r->data, r->owner_len + r->json_len + 2);
        flow_view(r, out);
        out->owner = copy;
        out->json = copy + r->owner_len + 1;
        out->priv = copy;
    }
    pthread_rwlock_unlock(&m->rw);
    return copy ? 0 : r ? -ENOMEM : -ENOENT;
}

static int mem_foreach_from(struct store *s, const uint64_t *dpid, uint64_t from_dpid,
                            uint64_t from_match_id, store_iter_fn cb, void *arg)
{
    struct store_mem *m = M(s);
    struct mem_flow from = {.dpid = from_dpid, .match_id = from_match_id};
    int ret = 0;

    if (!cb)
        return -EINVAL;
    pthread_rwlock_rdlock(&m->rw);
    for (const struct store_omap_node *n = store_omap_seek(&m->flows, &from); n && !ret;
         n = store_omap_next(n)) {
        const struct mem_flow *r = store_omap_item(n);
        struct store_flow f;

        if (dpid && r->dpid != *dpid)
            break;
        flow_view(r, &f);
        ret = cb(&f, arg);
    }
    pthread_rwlock_unlock(&m->rw);
    return ret > 0 ? 0 : ret;
}

static int mem_get_each(struct store *s, uint64_t dpid, const uint64_t *match_ids, size_t n,
                        unsigned what, store_iter_fn cb, void *arg)
{
    struct store_mem *m = M(s);
    int ret = 0;

    (void)what;                         /* the text is there either way: no cost */
    if (!cb || (n && !match_ids))
        return -EINVAL;
    pthread_rwlock_rdlock(&m->rw);
    for (size_t i = 0; i < n && !ret; i++) {
        struct mem_flow probe = {.dpid = dpid, .match_id = match_ids[i]};
        const struct mem_flow *r = store_omap_find(&m->flows, &probe);
        struct store_flow f;

        if (!r)
            continue;                   /* gone since the caller saw it */
        flow_view(r, &f);
        ret = cb(&f, arg);
    }
    pthread_rwlock_unlock(&m->rw);
    return ret > 0 ? 0 : ret;
}

static int mem_kv_foreach(struct store *s, const char *prefix, store_kv_fn cb, void *arg)
{
    struct store_mem *m = M(s);
    size_t plen = prefix ? strlen(prefix) : 0;
    _Alignas(struct mem_kv) char buf[sizeof(struct mem_kv) + STORE_KV_KEY_MAX + 1];
    struct mem_kv *from = (struct mem_kv *)buf;
    int ret = 0;

    if (!cb || plen > STORE_KV_KEY_MAX)
        return -EINVAL;
    memcpy(from->data, plen ? prefix : "", plen + 1);
    pthread_rwlock_rdlock(&m->rw);
    for (const struct store_omap_node *n = store_omap_seek(&m->kv, from); n && !ret;
         n = store_omap_next(n)) {
        const struct mem_kv *r = store_omap_item(n);

        if (plen && strncmp(r->data, prefix, plen) != 0)
            break;                      /* keys sort bytewise: past the prefix */
        ret = cb(r->data, r->data + r->key_len + 1, r->len, arg);
    }
    pthread_rwlock_unlock(&m->rw);
    return ret > 0 ? 0 : ret;
}

static int mem_get_stats(struct store *s, struct store_stats *st)
{
    struct store_mem *m = M(s);

    if (!st)
        return -EINVAL;
    store_queue_stats(&m->q, st);
    pthread_rwlock_rdlock(&m->rw);
    st->records = m->flows.n;
    st->map_size = m->map_size;
    st->map_used = m->used;
    pthread_rwlock_unlock(&m->rw);
    return 0;
}

/* ---- lifecycle --------------------------------------------------------- */

static void mem_free(struct store_mem *m)
{
    store_omap_destroy(&m->flows, free);
    store_omap_destroy(&m->kv, free);
    pthread_rwlock_destroy(&m->rw);
    free(m->undo);
    free(m);
}

static void mem_close(struct store *s)
{
    struct store_mem *m = M(s);

    store_queue_stop(&m->q);
    mem_free(m);
}

static const struct store_ops mem_ops = {
    .name = "memory",
    .close = mem_close,
    STORE_QUEUE_WRITE_OPS,
    .get = mem_get,
    .foreach_from = mem_foreach_from,
    .get_each = mem_get_each,
    .kv_foreach = mem_kv_foreach,
    .get_stats = mem_get_stats,
    .watch = store_queue_watch,
    .batch_times = store_queue_batch_times,
    .batch_final = store_queue_batch_final,
};

struct store *store_mem_open(const struct store_config *cfg)
{
    struct store_mem *m;

    if (!cfg) {
        LOG_ERR(STORE_COMP, "no configuration");
        return NULL;
    }
    if (!(m = calloc(1, sizeof(*m)))) {
        LOG_ERR(STORE_COMP, "out of memory");
        return NULL;
    }
    m->map_size = cfg->map_size ? cfg->map_size : STORE_DEFAULT_MAP_SIZE;
    m->put_limit = m->map_size - m->map_size / 8;
    if (pthread_rwlock_init(&m->rw, NULL)) {
        free(m);
        LOG_ERR(STORE_COMP, "cannot initialise locks");
        return NULL;
    }
    if (store_omap_init(&m->flows, flow_cmp) < 0 || store_omap_init(&m->kv, kv_cmp) < 0) {
        mem_free(m);
        LOG_ERR(STORE_COMP, "out of memory");
        return NULL;
    }
    if (store_queue_init(&m->q, &mem_ops, &mem_txn, cfg) < 0) {
        mem_free(m);
        LOG_ERR(STORE_COMP, "cannot initialise locks");
        return NULL;
    }
    m->q.exclusive = true;              /* every flow change is reported (mem_apply_*) */
    if (store_queue_start(&m->q) < 0) {
        mem_close(&m->q.base);
        return NULL;
    }
    LOG_WARN(STORE_COMP, "store.backend = memory: flows and app records live in this "
             "process only; NOTHING of them survives a restart (for tests and benches)");
    return &m->q.base;
}
