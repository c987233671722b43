/*
 * store_etcd: the cluster's backend (store_etcd.h): each batch of the
 * group commit becomes etcd transactions, confirmed once this node's
 * mirror shows them; reads are the mirror's.
 *
 * A batch of more than 128 operations is several transactions, each atomic
 * on its own (etcd's --max-txn-ops): a failure after the first leaves the
 * first committed, and the queue's replay writes them again (every write
 * here is idempotent). Deletes and selective deletes decide from the
 * mirror (what this node has applied): a delete of a key the mirror does
 * not hold is -ENOENT without asking etcd.
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

static struct store_etcd *E(struct store *s)
{
    return (struct store_etcd *)s;
}

static struct store_etcd *EQ(struct store_queue *q)
{
    return (struct store_etcd *)q;
}

/* ---- the transaction being built (committer thread) ------------------------ */

static void tx_free(struct store_etcd *s)
{
    for (size_t i = 0; i < s->n_mem; i++)
        free(s->mem[i]);
    s->n_mem = 0;
    s->n_ops = 0;
    s->n_plain = 0;
}

/* The state updates waiting in s->st gone (their P data/inst values). */
static void st_free(struct store_etcd *s)
{
    for (size_t i = 0; i < s->n_st; i++)
        free(s->st[i].inst);
    s->n_st = 0;
}

/* ---- the flows this batch wrote (committer thread) ------------------------ */

static uint64_t wrote_hash(uint64_t dpid, uint64_t match_id)
{
    return (dpid * 0x9e3779b97f4a7c15ull) ^ match_id;        /* match_ids are hashes */
}

/* A flow this batch puts or deletes: 0, or -ENOMEM. */
static int wrote_note(struct store_etcd *s, uint64_t dpid, uint64_t match_id)
{
    return ofcd_hset_add(&s->wrote, wrote_hash(dpid, match_id)) < 0 ? -ENOMEM : 0;
}

/* Whether this batch may have written the flow (a hash collision says yes). */
static bool wrote_has(const struct store_etcd *s, uint64_t dpid, uint64_t match_id)
{
    return ofcd_hset_has(&s->wrote, wrote_hash(dpid, match_id));
}

static void wrote_reset(struct store_etcd *s)
{
    ofcd_hset_clear(&s->wrote, 65536);
}

/* A transaction's failure is known (nothing of it was applied) when it
 * never left (no endpoint, over the codec's bounds) or etcd refused it
 * (authentication); anything else, a timeout above all, may have been
 * applied. */
static bool outcome_known(int rc)
{
    return rc == -ECONNREFUSED || rc == -EINVAL || rc == -EPERM || rc == -ENOMEM;
}

static int tx_send(struct store_etcd *s, const struct etcd_cmp *cmp, size_t n_cmp,
                   bool *succeeded)
{
    /* Guarded (switch states): the plain changes at the front go whatever
     * the guards say. */
    struct etcd_txn t = {.cmp = cmp, .n_cmp = n_cmp, .success = s->ops, .n_success = s->n_ops,
                         .failure = s->ops, .n_failure = n_cmp ? s->n_plain : 0};
    struct etcd_txn_resp r = {0};
    int rc = s->n_ops ? etcd_txn(s->wc, &t, &r) : 0;

    if (rc < 0) {
        /* Unknown too once an earlier transaction of the batch went in:
         * never "nothing stored" for a batch that is partly in etcd. */
        bool unknown = !outcome_known(rc) || s->batch_rev;
        LOG_WARN(STORE_COMP, "etcd transaction of %zu operations failed: %s%s", s->n_ops,
                 etcd_client_error(s->wc),
                 !unknown ? ""
                 : s->batch_rev ? " (earlier ones of its batch are stored: outcome not known)"
                                : " (it may have been applied: outcome not known)");
        if (unknown)
            rc = -ETIME;
    } else if (s->n_ops) {
        if (succeeded)
            *succeeded = r.succeeded;
        if ((!succeeded || r.succeeded || t.n_failure) && r.hdr.revision > s->batch_rev)
            s->batch_rev = r.hdr.revision;
    }
    etcd_txn_resp_free(&r);
    tx_free(s);
    return rc;
}

/* Takes key and val (malloc'd; val may be NULL for a delete). */
static int tx_add(struct store_etcd *s, enum etcd_op_kind kind, char *key, size_t klen,
                  char *val, size_t vlen)
{
    int rc = 0;

    if (!key) {
        free(val);
        return -ENOMEM;
    }
    /* etcd refuses a transaction that names a key twice. A second change
     * of one key (a flow POSTed twice in one batch) takes the first one's
     * place: the last one wins, as it would a transaction later, and
     * nothing reads between them (a read of a flow the batch wrote sends
     * what came before it first). Not among switch states, whose guarded
     * transactions hold no key twice (st_last_only, st_touch_batch): there
     * a second change would go in the next transaction. */
    struct etcd_op *op = NULL;
    for (size_t i = 0; i < s->n_ops && !op; i++) {
        struct etcd_op *o = &s->ops[i];
        const void *k = o->kind == ETCD_OP_PUT ? o->u.put.key : o->u.del.key;
        size_t l = o->kind == ETCD_OP_PUT ? o->u.put.key_len : o->u.del.key_len;
        if (l == klen && memcmp(k, key, klen) == 0)
            op = o;
    }
    if ((op && s->in_states) || (!op && s->n_ops == ETCD_TXN_OPS_MAX)) {
        if ((rc = tx_send(s, NULL, 0, NULL)) < 0) {
            free(key);
            free(val);
            return rc;
        }
        op = NULL;
    }
    if (op) {
        /* In the first one's place: its key stays (the same bytes), its
         * value goes (mem[] holds at most a key and a value per op). */
        free(key);
        key = (char *)(op->kind == ETCD_OP_PUT ? op->u.put.key : op->u.del.key);
        const void *old = op->kind == ETCD_OP_PUT ? op->u.put.value : NULL;
        for (size_t j = 0; old && j < s->n_mem; j++)
            if (s->mem[j] == old) {
                free(s->mem[j]);
                s->mem[j] = s->mem[--s->n_mem];
                break;
            }
    } else {
        op = &s->ops[s->n_ops++];
        s->mem[s->n_mem++] = key;
    }
    if (kind == ETCD_OP_PUT)
        *op = (struct etcd_op){.kind = ETCD_OP_PUT,
                               .u.put = {.key = key, .key_len = klen, .value = val,
                                         .value_len = vlen}};
    else
        *op = (struct etcd_op){.kind = ETCD_OP_DELETE, .u.del = {.key = key, .key_len = klen}};
    if (val)
        s->mem[s->n_mem++] = val;
    return 0;
}

static char *key_dup(const char *k, int len)
{
    return len < 0 ? NULL : strndup(k, (size_t)len);
}

static int tx_del_state(struct store_etcd *s, uint64_t dpid, uint64_t match_id)
{
    char k[STORE_ETCD_KEY_MAX];
    int kl = store_etcd_key_state(k, sizeof(k), s->data_prefix, dpid, match_id);

    return tx_add(s, ETCD_OP_DELETE, key_dup(k, kl), (size_t)kl, NULL, 0);
}

static int tx_put_state(struct store_etcd *s, const struct store_etcd_state_op *o)
{
    char k[STORE_ETCD_KEY_MAX], v[128];
    if (o->inst) {
        /* A copy: a refused guard sends the op again (send_states). */
        int kl = store_etcd_key_inst(k, sizeof(k), s->data_prefix, o->dpid);
        char *val = malloc(o->inst_len + 1);
        if (!val)
            return -ENOMEM;
        memcpy(val, o->inst, o->inst_len + 1);
        if (kl < 0) {
            free(val);
            return kl;
        }
        return tx_add(s, ETCD_OP_PUT, key_dup(k, kl), (size_t)kl, val, o->inst_len);
    }
    int kl = store_etcd_key_state(k, sizeof(k), s->data_prefix, o->dpid, o->match_id);
    int vl = store_etcd_state_encode(v, sizeof(v), o->flow_id, o->state, o->err_type,
                                     o->err_code);

    return vl < 0 ? vl : tx_add(s, ETCD_OP_PUT, key_dup(k, kl), (size_t)kl,
                                strndup(v, (size_t)vl), (size_t)vl);
}

/* A flow record (state as in f) and its state key gone: a new version.
 * fresh: the flow is in neither the mirror nor this batch, so no state key
 * of it is there to go (one of an older version written meanwhile names
 * that version's flow_id and is ignored). */
static int tx_put_flow_as(struct store_etcd *s, const struct store_flow *f, bool fresh)
{
    char k[STORE_ETCD_KEY_MAX];
    char *v = NULL;
    int vl = store_etcd_rec_encode(f, &v);

    if (vl < 0)
        return vl;
    int kl = store_etcd_key_flow(k, sizeof(k), s->data_prefix, f->dpid, f->match_id);
    int rc = wrote_note(s, f->dpid, f->match_id);
    store_etcd_held_drop(s, f->dpid, f->match_id);  /* a new record: not what was confirmed */
    if (rc < 0) {
        free(v);
        return rc;
    }
    rc = tx_add(s, ETCD_OP_PUT, key_dup(k, kl), (size_t)kl, v, (size_t)vl);
    return rc || fresh ? rc : tx_del_state(s, f->dpid, f->match_id);
}

static int tx_put_flow(struct store_etcd *s, const struct store_flow *f)
{
    return tx_put_flow_as(s, f, false);
}

static int tx_del_flow(struct store_etcd *s, uint64_t dpid, uint64_t match_id)
{
    char k[STORE_ETCD_KEY_MAX];
    int kl = store_etcd_key_flow(k, sizeof(k), s->data_prefix, dpid, match_id);
    int rc = wrote_note(s, dpid, match_id);

    store_etcd_held_drop(s, dpid, match_id);
    if (rc == 0)
        rc = tx_add(s, ETCD_OP_DELETE, key_dup(k, kl), (size_t)kl, NULL, 0);
    return rc ? rc : tx_del_state(s, dpid, match_id);
}

/* State updates dropped: this node does not master their switch. */
static void count_not_master(struct store_etcd *s, size_t n)
{
    pthread_mutex_lock(&s->lock);
    s->guard_refused += n;
    pthread_mutex_unlock(&s->lock);
}

/* ---- applying the queue's operations ---------------------------------------- */

static int wait_applied(struct store_etcd *s, int64_t rev);

/* What this batch wrote so far, sent and shown by the mirror: an operation
 * that decides from the mirror (a delete, a selection, a state update)
 * then sees the puts queued before it, as the LMDB backend's would. */
static int settle(struct store_etcd *s)
{
    int rc = tx_send(s, NULL, 0, NULL);
    return rc < 0 ? rc : wait_applied(s, s->batch_rev);
}

static int held_one(const struct store_flow *f, void *arg)
{
    (void)f;
    *(bool *)arg = true;
    return 1;
}

/* A flow neither this batch nor the mirror holds (in any state), read as a
 * version (no text decoded, nothing copied); an error reads as held. */
static bool flow_fresh(struct store_etcd *s, uint64_t dpid, uint64_t match_id)
{
    bool held = false;

    if (wrote_has(s, dpid, match_id))
        return false;
    return store_get_each_version(s->mirror, dpid, &match_id, 1, held_one, &held) == 0 &&
           !held;
}

static int apply_put(struct store_etcd *s, struct store_op *op, uint64_t now,
                     struct store_tally *t)
{
    for (size_t i = 0; i < op->u.put.n; i++) {
        struct store_flow f = op->u.put.flows[i];
        f.added_ns = f.changed_ns = now;
        /* A new flow costs etcd one operation, not two. */
        int rc = tx_put_flow_as(s, &f, flow_fresh(s, f.dpid, f.match_id));
        if (rc < 0)
            return rc;
    }
    t->put += op->u.put.n;
    return 0;
}

static int apply_del(struct store_etcd *s, struct store_op *op, struct store_tally *t)
{
    struct store_flow f;
    int rc = wrote_has(s, op->u.del.dpid, op->u.del.match_id) ? settle(s) : 0;

    if (rc == 0)
        rc = store_get(s->mirror, op->u.del.dpid, op->u.del.match_id, &f);

    if (rc < 0)
        return rc;                  /* -ENOENT: that delete's answer */
    store_flow_release(&f);
    rc = tx_del_flow(s, op->u.del.dpid, op->u.del.match_id);
    if (rc == 0)
        t->deleted++;
    return rc;
}

struct sel_ctx {
    struct store_etcd *s;
    struct store_op *op;
    uint64_t now;
    uint64_t n;
    int rc;
};

/* The mirror's walk: the matching records written now (mark: as DELETED). */
static int sel_one(const struct store_flow *f, void *arg)
{
    struct sel_ctx *c = arg;
    struct store_op *op = c->op;

    if (!op->u.del_if.all && f->dpid != op->u.del_if.dpid)
        return 1;
    if (op->u.del_if.mark && f->state == STORE_FLOW_DELETED)
        return 0;
    if (!op->u.del_if.pred(f, op->u.del_if.arg))
        return 0;
    if (op->u.del_if.mark) {
        struct store_flow d = *f;
        d.state = STORE_FLOW_DELETED;
        d.err_type = d.err_code = 0;
        d.changed_ns = c->now;
        c->rc = tx_put_flow(c->s, &d);
    } else {
        c->rc = tx_del_flow(c->s, f->dpid, f->match_id);
    }
    c->n++;
    return c->rc < 0 ? c->rc : 0;
}

static int apply_del_if(struct store_etcd *s, struct store_op *op, uint64_t now,
                        struct store_tally *t)
{
    struct sel_ctx c = {s, op, now, 0, 0};
    uint64_t dpid = op->u.del_if.dpid;
    int rc = settle(s);

    if (rc == 0)
        rc = store_foreach(s->mirror, op->u.del_if.all ? NULL : &dpid, sel_one, &c);

    if (rc < 0)
        return rc;
    op->u.del_if.deleted = c.n;
    if (op->u.del_if.mark)
        t->marked += c.n;
    else
        t->deleted += c.n;
    return 0;
}

/* Kept for the guarded transactions at commit; a flow the mirror no
 * longer holds in that version is dropped here, as LMDB would. The mirror
 * shows every batch before this one: only a flow this batch wrote needs
 * its writes sent and shown first. */
static int apply_state(struct store_etcd *s, struct store_op *op, struct store_tally *t)
{
    struct store_flow f;
    int rc = wrote_has(s, op->u.st.dpid, op->u.st.match_id) ? settle(s) : 0;

    if (rc == 0)
        rc = store_get(s->mirror, op->u.st.dpid, op->u.st.match_id, &f);
    if (rc == -ENOENT) {
        t->state_stale++;
        return 0;
    }
    if (rc < 0)
        return rc;
    bool stale = f.state == STORE_FLOW_DELETED ||
                 (op->u.st.flow_id && f.flow_id != op->u.st.flow_id);
    uint64_t flow_id = f.flow_id;
    enum store_flow_state was = f.state;
    store_flow_release(&f);
    if (stale) {
        t->state_stale++;
        return 0;
    }
    t->state_updates++;
    /* Installed where the copy says pending: held back for its switch's
     * others (store_etcd_inst.c); installed already: nothing to write. */
    if (op->u.st.state == STORE_FLOW_INSTALLED && was == STORE_FLOW_INSTALLED)
        return 0;
    /* Not after a state of its own in this batch (an error): the two then
     * go in order as state keys, which a full read sees as followers do. */
    uint64_t h = wrote_hash(op->u.st.dpid, op->u.st.match_id);
    if (op->u.st.state == STORE_FLOW_INSTALLED && was == STORE_FLOW_PENDING &&
        !ofcd_hset_has(&s->st_own, h))
        return store_etcd_held_add(s, op->u.st.dpid, op->u.st.match_id, flow_id,
                                   ofcd_clock_mono_us());
    store_etcd_held_drop(s, op->u.st.dpid, op->u.st.match_id);
    if (ofcd_hset_add(&s->st_own, h) < 0)
        return -ENOMEM;
    return store_etcd_st_push(s, &(struct store_etcd_state_op){
        .dpid = op->u.st.dpid, .match_id = op->u.st.match_id, .flow_id = flow_id,
        .state = op->u.st.state, .err_type = op->u.st.err_type,
        .err_code = op->u.st.err_code});
}

/* ---- leader-only puts (committer thread) ---------------------------------- */

static void lead_free(struct store_etcd *s)
{
    for (size_t i = 0; i < s->n_lead; i++) {
        free(s->lead[i].key);
        free(s->lead[i].val);
    }
    s->n_lead = 0;
}

/* Takes key and val (malloc'd). */
static int lead_add(struct store_etcd *s, struct store_op *op, char *key, size_t klen,
                    char *val, size_t vlen)
{
    if (!key || !val) {
        free(key);
        free(val);
        return -ENOMEM;
    }
    if (s->n_lead == s->cap_lead) {
        size_t nc = s->cap_lead ? s->cap_lead * 2 : 16;
        struct store_etcd_lead_op *n = realloc(s->lead, nc * sizeof(*n));
        if (!n) {
            free(key);
            free(val);
            return -ENOMEM;
        }
        s->lead = n;
        s->cap_lead = nc;
    }
    s->lead[s->n_lead++] = (struct store_etcd_lead_op){key, val, klen, vlen, op};
    return 0;
}

/* Each caller hears -EPERM (the blocking put returns it). */
static void lead_refuse(struct store_etcd *s, size_t from, size_t to, const char *why)
{
    for (size_t i = from; i < to; i++)
        s->lead[i].op->rc = -EPERM;
    LOG_WARN(STORE_COMP, "%zu record(s) only the cluster's leader writes (%s%s): not written, "
             "%s", to - from, s->lead[from].op->u.kv.key, to - from > 1 ? ", ..." : "", why);
}

/*
 * The batch's leader-only puts, after its plain changes, in transactions
 * that compare the leader's member key: the plain changes before them ride
 * in both branches (they go whatever the compare says); the puts go only
 * while the key is the one this node leads with. A node that does not
 * lead, or whose key etcd no longer holds so (its lease ran out while it
 * was paused), writes none of them: each caller gets -EPERM.
 */
static int send_leader(struct store_etcd *s)
{
    char gkey[STORE_ETCD_GUARD_KEY_MAX] = "";
    struct etcd_cmp cmp = {.target = ETCD_CMP_CREATE, .result = ETCD_CMP_EQUAL};
    int rc = 0;

    if (!s->n_lead)
        return 0;
    if (s->leader && s->leader(s->leader_arg, gkey, sizeof(gkey), &cmp.number) < 0) {
        lead_refuse(s, 0, s->n_lead, "this node does not lead the cluster");
        lead_free(s);
        return 0;
    }
    cmp.key = gkey;
    cmp.key_len = strlen(gkey);
    for (size_t i = 0; i < s->n_lead && rc == 0;) {
        /* The plain changes go first, alone, when the puts would not fit
         * with them: a put must never ride in a transaction without the
         * compare. */
        if (s->n_ops && s->n_ops + (s->n_lead - i) > ETCD_TXN_OPS_MAX &&
            (rc = tx_send(s, NULL, 0, NULL)) < 0)
            break;
        size_t from = i;
        s->n_plain = s->n_ops;
        for (; i < s->n_lead && s->n_ops < ETCD_TXN_OPS_MAX && rc == 0; i++) {
            rc = tx_add(s, ETCD_OP_PUT, s->lead[i].key, s->lead[i].klen, s->lead[i].val,
                        s->lead[i].vlen);
            s->lead[i].key = s->lead[i].val = NULL;     /* the transaction's now */
        }
        bool ok = true;
        if (rc == 0)
            rc = tx_send(s, s->leader ? &cmp : NULL, s->leader ? 1 : 0, &ok);
        if (rc == 0 && !ok)
            lead_refuse(s, from, i, "etcd no longer holds this node's member key as it "
                                    "led with (another node leads now)");
    }
    lead_free(s);
    return rc;
}

static int apply_kv(struct store_etcd *s, struct store_op *op)
{
    char k[STORE_ETCD_KEY_MAX];
    int kl = store_etcd_key_app(k, sizeof(k), s->data_prefix, op->u.kv.key);

    if (kl < 0 || strncmp(op->u.kv.key, STORE_ETCD_OWN_PREFIX,
                          strlen(STORE_ETCD_OWN_PREFIX)) == 0)
        return -EINVAL;             /* the mirror's own: no one else writes them */
    if (!op->u.kv.val) {
        char *have = NULL;
        int rc = settle(s);
        if (rc == 0)
            rc = store_kv_get(s->mirror, op->u.kv.key, &have, NULL);
        free(have);
        if (rc < 0)
            return rc;              /* -ENOENT: that delete's answer */
        return tx_add(s, ETCD_OP_DELETE, key_dup(k, kl), (size_t)kl, NULL, 0);
    }
    char *v = malloc(op->u.kv.len + 1);
    if (!v)
        return -ENOMEM;
    memcpy(v, op->u.kv.val, op->u.kv.len);
    if (op->u.kv.leader)
        return lead_add(s, op, key_dup(k, kl), (size_t)kl, v, op->u.kv.len);
    return tx_add(s, ETCD_OP_PUT, key_dup(k, kl), (size_t)kl, v, op->u.kv.len);
}

static int etcd_apply(struct store_queue *q, struct store_op *op, uint64_t now,
                      struct store_tally *t)
{
    struct store_etcd *s = EQ(q);

    /* A copy that lacks a change decides nothing from it: only the switch
     * states this node's masters report go while it is behind. */
    if (s->refuse && op->kind != STORE_OP_STATE && op->kind != STORE_OP_SYNC)
        return -ESTALE;
    switch (op->kind) {
    case STORE_OP_PUT:
        return apply_put(s, op, now, t);
    case STORE_OP_DEL:
        return apply_del(s, op, t);
    case STORE_OP_DEL_IF:
        return apply_del_if(s, op, now, t);
    case STORE_OP_STATE:
        return apply_state(s, op, t);
    case STORE_OP_SYNC:
        s->flush_all = true;        /* what was held is stored once a sync returns */
        return 0;
    case STORE_OP_KV:
        return apply_kv(s, op);
    }
    return -EINVAL;
}

static int etcd_begin(struct store_queue *q)
{
    struct store_etcd *s = EQ(q);

    s->batch_rev = 0;
    st_free(s);
    s->flush_all = false;
    ofcd_hset_clear(&s->st_own, 4096);
    lead_free(s);
    wrote_reset(s);
    store_etcd_arm(s);              /* a write waits for the mirror */
    pthread_mutex_lock(&s->lock);
    s->refuse = s->behind;
    pthread_mutex_unlock(&s->lock);
    return 0;
}

/* By switch, then flow, then queue order: the last update of a flow wins. */
static int st_order(const void *a, const void *b)
{
    const struct store_etcd_state_op *x = a, *y = b;
    if (x->dpid != y->dpid)
        return x->dpid < y->dpid ? -1 : 1;
    if (x->match_id != y->match_id)
        return x->match_id < y->match_id ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sorted, each flow's last update only (etcd refuses a key twice in one
 * transaction). */
static size_t st_last_only(struct store_etcd *s)
{
    size_t n = 0;

    qsort(s->st, s->n_st, sizeof(*s->st), st_order);
    for (size_t i = 0; i < s->n_st; i++) {
        if (i + 1 < s->n_st && s->st[i + 1].dpid == s->st[i].dpid &&
            s->st[i + 1].match_id == s->st[i].match_id) {
            free(s->st[i].inst);
            continue;
        }
        s->st[n++] = s->st[i];
    }
    return n;
}

/* One switch's state updates: transactions guarded by this node's
 * mastership of it (the guard's key and generation). */
static int send_states(struct store_etcd *s, const struct store_etcd_state_op *st, size_t n)
{
    char gkey[STORE_ETCD_KEY_MAX];
    int64_t gen = 0;
    struct etcd_cmp cmp;
    size_t n_cmp = 0;

    if (s->guard) {
        if (s->guard(s->guard_arg, st[0].dpid, gkey, sizeof(gkey), &gen) < 0) {
            count_not_master(s, n);
            return 0;
        }
        cmp = (struct etcd_cmp){.target = ETCD_CMP_CREATE, .result = ETCD_CMP_EQUAL,
                                .key = gkey, .key_len = strlen(gkey), .number = gen};
        n_cmp = 1;
    }
    for (size_t i = 0; i < n;) {
        int rc = 0;
        for (; i < n && s->n_ops < ETCD_TXN_OPS_MAX && rc == 0; i++)
            rc = tx_put_state(s, &st[i]);
        bool ok = true;
        if (rc == 0)
            rc = tx_send(s, n_cmp ? &cmp : NULL, n_cmp, &ok);
        if (rc < 0)
            return rc;
        if (!ok) {
            LOG_WARN(STORE_COMP, "switch %016" PRIx64 ": state updates not written: this "
                     "node no longer masters it with generation %" PRId64, st[0].dpid, gen);
            count_not_master(s, n);
            return 0;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (st[i].inst)
            store_etcd_inst_sent(s, &st[i]);
    return 0;
}

/* Until the mirror shows rev (0: nothing to wait for), at most confirm_ms. */
static int wait_applied(struct store_etcd *s, int64_t rev)
{
    int rc = 0;

    if (rev == 0)
        return 0;
    struct timespec until = ofcd_clock_deadline((uint64_t)s->confirm_ms * 1000u);
    pthread_mutex_lock(&s->lock);
    while (s->applied < rev && !s->behind && rc == 0 && !atomic_load(&s->stop))
        rc = -pthread_cond_timedwait(&s->cv, &s->lock, &until);
    if (s->applied < rev) {
        LOG_WARN(STORE_COMP, "etcd revision %" PRId64 " committed but not seen by this "
                 "node's mirror %s (it holds %" PRId64 "): answered as stored but not yet "
                 "here", rev, s->behind ? "(the copy is behind etcd)" : "in time",
                 s->applied);
        rc = -EINPROGRESS;
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* The end of the switch's updates that start at st[i]. */
static size_t st_group_end(const struct store_etcd *s, size_t i)
{
    size_t j = i + 1;
    while (j < s->n_st && s->st[j].dpid == s->st[i].dpid)
        j++;
    return j;
}

/* From st[*i]: as many switches' updates as fit one transaction, each
 * switch's guard a compare of it, so a batch of barrier replies from many
 * switches is one etcd revision, not one per switch. If a compare fails
 * (a switch lost meanwhile), each switch of it goes alone (send_states),
 * and only the lost one's are dropped. A switch with more than a
 * transaction's worth goes alone at once. */
static int send_states_some(struct store_etcd *s, size_t *i)
{
    size_t j = *i, n_cmp = 0, first = *i;

    if (st_group_end(s, j) - j > ETCD_TXN_OPS_MAX / 2 || !s->guard) {
        size_t k = st_group_end(s, j);
        *i = k;
        return send_states(s, s->st + j, k - j);
    }
    int rc = 0;
    while (j < s->n_st && rc == 0) {
        size_t k = st_group_end(s, j);
        if (s->n_ops + (k - j) > ETCD_TXN_OPS_MAX || n_cmp == ETCD_TXN_OPS_MAX ||
            k - j > ETCD_TXN_OPS_MAX / 2)
            break;
        if (s->guard(s->guard_arg, s->st[j].dpid, s->gkey[n_cmp], sizeof(s->gkey[n_cmp]),
                     &s->gcmp[n_cmp].number) < 0) {
            count_not_master(s, k - j);
            for (size_t x = j; x < k; x++)
                s->st[x].dpid_skip = true;
            j = k;
            continue;
        }
        s->gcmp[n_cmp].target = ETCD_CMP_CREATE;
        s->gcmp[n_cmp].result = ETCD_CMP_EQUAL;
        s->gcmp[n_cmp].key = s->gkey[n_cmp];
        s->gcmp[n_cmp].key_len = strlen(s->gkey[n_cmp]);
        n_cmp++;
        for (; j < k && rc == 0; j++)
            rc = tx_put_state(s, &s->st[j]);
    }
    *i = j;
    bool ok = true;
    if (rc == 0)
        rc = tx_send(s, s->gcmp, n_cmp, &ok);
    for (size_t x = first; rc == 0 && ok && x < j; x++)
        if (s->st[x].inst && !s->st[x].dpid_skip)
            store_etcd_inst_sent(s, &s->st[x]);
    for (size_t x = first; rc == 0 && !ok && x < j;) {
        size_t k = st_group_end(s, x);
        if (!s->st[x].dpid_skip)
            rc = send_states(s, s->st + x, k - x);
        x = k;
    }
    return rc;
}

/* Whether a state update names a flow this batch wrote (conservative). */
static bool st_touch_batch(const struct store_etcd *s)
{
    for (size_t i = 0; i < s->n_st; i++)
        if (wrote_has(s, s->st[i].dpid, s->st[i].match_id))
            return true;
    return false;
}

/* The state updates in s->st, and what the transaction holds before them:
 * the batch's last changes ride in the updates' first transaction, in both
 * of its branches (a guard that fails still lets them go): one etcd round
 * trip where there were two. Not when an update names a flow of this batch
 * (etcd refuses a key twice in one transaction): they go first, alone. */
static int send_all_states(struct store_etcd *s)
{
    int rc = 0;

    if (s->n_st) {
        s->n_st = st_last_only(s);
        if (st_touch_batch(s))
            rc = tx_send(s, NULL, 0, NULL);
        /* What is in the transaction now goes in both branches of the
         * first guarded one (tx_free leaves the next ones none). */
        s->n_plain = s->n_ops;
        s->in_states = true;
        for (size_t i = 0; i < s->n_st && rc == 0;)
            rc = send_states_some(s, &i);
    }
    if (rc == 0)
        rc = tx_send(s, NULL, 0, NULL);      /* no states, or none of them sent */
    st_free(s);
    s->in_states = false;
    return rc;
}

/* The batch to etcd with the held installed states that are due, then the
 * wait for the mirror to show the newest revision written. */
static int etcd_commit(struct store_queue *q)
{
    struct store_etcd *s = EQ(q);
    int rc = send_leader(s);

    if (rc == 0)
        rc = store_etcd_held_flush(s, ofcd_clock_mono_us(), s->flush_all);
    if (rc == 0)
        rc = send_all_states(s);
    st_free(s);
    return rc < 0 ? rc : wait_applied(s, s->batch_rev);
}

/* A held switch due while changes still come rides in their next commit;
 * a transaction of its own only once none came for this long past due,
 * so that it does not hold a request's commit back (the seed's 250/s
 * leaves the queue empty between requests). */
#define ETCD_TICK_GRACE_US 20000u

/* The held installed states that fell due while no change came (now_us
 * 0: all of them, the queue stops). */
static uint64_t etcd_tick(struct store_queue *q, uint64_t now_us)
{
    struct store_etcd *s = EQ(q);

    if (!s->n_held)
        return 0;
    s->batch_rev = 0;
    int rc = now_us == 0 ? store_etcd_held_flush(s, ofcd_clock_mono_us(), true)
             : now_us > ETCD_TICK_GRACE_US
                 ? store_etcd_held_flush(s, now_us - ETCD_TICK_GRACE_US, false)
                 : 0;
    if (rc == 0)
        rc = send_all_states(s);
    st_free(s);
    tx_free(s);
    if (rc < 0)
        LOG_WARN(STORE_COMP, "installed states not written to etcd: %s (the switches' "
                 "consistency check confirms them again)", strerror(-rc));
    uint64_t due = store_etcd_held_due(s);
    return due ? due + ETCD_TICK_GRACE_US : 0;
}

static void etcd_abort(struct store_queue *q)
{
    struct store_etcd *s = EQ(q);

    tx_free(s);
    lead_free(s);
    st_free(s);
    s->in_states = false;
}

static const struct store_txn_ops etcd_store_txn = {
    .begin = etcd_begin,
    .apply = etcd_apply,
    .commit = etcd_commit,
    .abort = etcd_abort,
    .tick = etcd_tick,
};

/* ---- reads: the mirror's ------------------------------------------------------ */

static int etcd_get1(struct store *s, uint64_t dpid, uint64_t match_id, struct store_flow *out)
{
    return store_get(E(s)->mirror, dpid, match_id, out);
}

static int etcd_foreach_from(struct store *s, const uint64_t *dpid, uint64_t from_dpid,
                             uint64_t from_match_id, store_iter_fn cb, void *arg)
{
    return store_foreach_from(E(s)->mirror, dpid, from_dpid, from_match_id, cb, arg);
}

static int etcd_get_each(struct store *s, uint64_t dpid, const uint64_t *match_ids, size_t n,
                         unsigned what, store_iter_fn cb, void *arg)
{
    return E(s)->mirror->ops->get_each(E(s)->mirror, dpid, match_ids, n, what, cb, arg);
}

/* The apps see their records, not the mirror's own revision key. */
struct kv_pass {
    store_kv_fn cb;
    void *arg;
};

static int kv_skip_ours(const char *key, const void *val, size_t len, void *arg)
{
    struct kv_pass *p = arg;
    return strcmp(key, STORE_ETCD_REV_KEY) == 0 ? 0 : p->cb(key, val, len, p->arg);
}

static int etcd_kv_foreach(struct store *s, const char *prefix, store_kv_fn cb, void *arg)
{
    struct kv_pass p = {cb, arg};
    return store_kv_foreach(E(s)->mirror, prefix, kv_skip_ours, &p);
}

/* The queue's counters (this node's writes to etcd), the mirror's gauges. */
static int etcd_get_stats(struct store *s, struct store_stats *st)
{
    struct store_stats m;
    int rc = store_get_stats(E(s)->mirror, &m);

    store_queue_stats(&E(s)->q, st);
    pthread_mutex_lock(&E(s)->lock);
    st->state_not_master = E(s)->guard_refused;
    st->copy_errors = E(s)->mirror_errors;
    st->copy_behind = E(s)->behind;
    st->copy_revision = (uint64_t)E(s)->applied;
    pthread_mutex_unlock(&E(s)->lock);
    if (rc == 0) {
        st->records = m.records;
        st->map_size = m.map_size;
        st->map_used = m.map_used;
    }
    return rc;
}

/* The mirror's commits carry every node's changes: its watcher is ours.
 * The first one arms the watch and returns once the mirror caught up (or
 * after confirm_ms), so what is read after it is etcd's, and every change
 * since the caller's own reads reached fn. */
static int etcd_watch(struct store *s, store_watch_fn fn, void *arg)
{
    int rc = store_watch(E(s)->mirror, fn, arg);

    if (fn && rc == 0) {
        store_etcd_arm(E(s));
        store_etcd_wait_ready(E(s));
    }
    return rc;
}

/* ---- life cycle ------------------------------------------------------------------ */

static void etcd_free(struct store_etcd *s)
{
    ofcd_hset_free(&s->wrote);
    ofcd_hset_free(&s->st_own);
    etcd_client_free(s->wc);
    etcd_client_free(s->rc);
    store_close(s->mirror);
    st_free(s);
    free(s->st);
    store_etcd_inst_free(s);
    pthread_mutex_destroy(&s->pend_lock);
    lead_free(s);
    free(s->lead);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* Everything queued is committed and confirmed (the watcher still runs),
 * then the watcher stops, then the mirror closes. */
static void etcd_close(struct store *st)
{
    struct store_etcd *s = E(st);

    store_queue_stop(&s->q);
    store_etcd_watch_stop(s);
    etcd_free(s);
}

static const struct store_ops etcd_ops = {
    .name = "etcd",
    .close = etcd_close,
    STORE_QUEUE_WRITE_OPS,
    .get = etcd_get1,
    .foreach_from = etcd_foreach_from,
    .get_each = etcd_get_each,
    .kv_foreach = etcd_kv_foreach,
    .get_stats = etcd_get_stats,
    .watch = etcd_watch,
    .batch_times = store_queue_batch_times,
};

static struct etcd_client *client(const struct store_etcd_cfg *e, unsigned timeout_ms)
{
    char err[ETCD_ERR_MAX] = "";
    struct etcd_client_cfg cc = {
        .endpoints = e->endpoints, .n_endpoints = e->n_endpoints, .timeout_ms = timeout_ms,
        .ca = e->ca, .cert = e->cert, .key = e->key, .user = e->user, .password = e->password,
        .api = e->json ? ETCD_API_JSON : ETCD_API_GRPC};
    struct etcd_client *c = etcd_client_new(&cc, err);

    if (!c)
        LOG_ERR(STORE_COMP, "etcd: %s", err);
    return c;
}

struct store *store_etcd_open(const struct store_config *cfg)
{
    const struct store_etcd_cfg *e = cfg ? cfg->etcd : NULL;
    struct store_etcd *s;

    if (!e || !e->prefix || !e->n_endpoints) {
        LOG_ERR(STORE_COMP, "the etcd backend needs the cluster's endpoints and prefix");
        return NULL;
    }
    if (!(s = calloc(1, sizeof(*s))))
        return NULL;
    pthread_mutex_init(&s->lock, NULL);
    pthread_mutex_init(&s->pend_lock, NULL);
    ofcd_clock_cond_init(&s->cv);
    atomic_init(&s->stop, false);
    int n = snprintf(s->data_prefix, sizeof(s->data_prefix), "%sdata/", e->prefix);
    s->confirm_ms = e->confirm_ms ? e->confirm_ms : 10000;
    s->guard = e->guard;
    s->guard_arg = e->guard_arg;
    s->leader = e->leader;
    s->leader_arg = e->leader_arg;
    if (n < 0 || (size_t)n >= sizeof(s->data_prefix)) {
        LOG_ERR(STORE_COMP, "cluster prefix '%s' is too long", e->prefix);
        etcd_free(s);
        return NULL;
    }
    unsigned tmo = e->timeout_ms ? e->timeout_ms : 5000;
    s->wc = client(e, tmo);
    s->rc = client(e, tmo);
    /* The mirror commits what the watch brings at once: its batches form
     * while it syncs, and nobody's answer waits in a window of its own.
     * etcd holds the changes durably, so one sync per commit will do: a
     * commit a crash undoes is read again from its revision. */
    struct store_config mc = {.backend = STORE_BACKEND_LMDB, .dir = cfg->dir,
                              .map_size = cfg->map_size, .max_async = 1u << 20,
                              .keep_times = true, .lazy_meta_sync = true};
    s->mirror = s->wc && s->rc ? store_lmdb_open(&mc) : NULL;
    if (!s->mirror) {
        etcd_free(s);
        return NULL;
    }
    /* Its pending flows, what this node certifies installed ones against
     * when it masters their switch; the watcher keeps them from here. */
    if (store_etcd_pend_load(s) < 0)
        LOG_WARN(STORE_COMP, "this node's copy could not be read for its pending flows: "
                 "installed states go one etcd key each until a full read");
    if (store_queue_init(&s->q, &etcd_ops, &etcd_store_txn, cfg) < 0) {
        etcd_free(s);
        return NULL;
    }
    if (store_etcd_watch_start(s) < 0) {
        store_queue_stop(&s->q);
        etcd_free(s);
        return NULL;
    }
    if (store_queue_start(&s->q) < 0) {
        store_queue_stop(&s->q);
        store_etcd_watch_stop(s);
        etcd_free(s);
        return NULL;
    }
    LOG_INFO(STORE_COMP, "flows in etcd under %s, mirrored in %s (revision %" PRId64 ")",
             s->data_prefix, cfg->dir, s->applied);
    return &s->q.base;
}
