/*
 * store_etcd_inst: a switch's installed states in one etcd write
 * (store_etcd.h, P data/inst). Each installed state cost etcd an operation
 * of its own, as many as the flows themselves; etcd's cost is per
 * operation. The master now holds a switch's confirmations back for up to
 * STORE_ETCD_INST_WINDOW_MS and writes them as one value, guarded by its
 * mastership like any state.
 *
 * A full read sees only a switch's newest such value, so the value also
 * carries a revision its writer certifies: every record of the switch at
 * or before it that its copy held pending was confirmed. The master knows
 * that from the copy's pending flows (pend: what the watcher received,
 * kept by the watcher) matched one for one against what it holds. Where
 * they do not match (a flow sent but not yet confirmed, a switch that
 * answers nothing), the confirmations wait for the next try, and past
 * STORE_ETCD_INST_HOLD_MS go one state key each, as before.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ofcd_log.h"
#include "store_etcd.h"

#define STORE_COMP "store"

/* ---- the copy's pending flows (watcher writes, committer reads) ---------- */

static void pend_count(struct store_etcd *s, uint64_t dpid, int delta)
{
    uint64_t n = 0;

    ofcd_pairmap_get(&s->pend_n, dpid, 0, &n);
    n += (uint64_t)(int64_t)delta;
    if (n == 0)
        ofcd_pairmap_del(&s->pend_n, dpid, 0, NULL);
    else if (ofcd_pairmap_set(&s->pend_n, dpid, 0, n) < 0)
        s->pend_broken = true;
}

/* Under pend_lock. */
static void pend_del_locked(struct store_etcd *s, uint64_t dpid, uint64_t match_id)
{
    if (ofcd_pairmap_del(&s->pend, dpid, match_id, NULL))
        pend_count(s, dpid, -1);
    ofcd_pairmap_del(&s->pend_rv, dpid, match_id, NULL);
}

void store_etcd_pend_record(struct store_etcd *s, uint64_t dpid, uint64_t match_id,
                            uint64_t flow_id, int64_t rev, bool pending)
{
    pthread_mutex_lock(&s->pend_lock);
    if (!pending) {
        pend_del_locked(s, dpid, match_id);
    } else {
        int rc = ofcd_pairmap_set(&s->pend, dpid, match_id, flow_id);
        if (rc < 0 || ofcd_pairmap_set(&s->pend_rv, dpid, match_id, (uint64_t)rev) < 0)
            s->pend_broken = true;  /* a pending flow it lacks: certify nothing */
        if (rc == 1)
            pend_count(s, dpid, 1);
    }
    pthread_mutex_unlock(&s->pend_lock);
}

/* Whether (dpid, match_id) is pending as flow_id, at a revision at most
 * max_rev (-1: any), under pend_lock; its record's revision into *rev
 * when rev is not NULL. */
static bool pend_is_locked(const struct store_etcd *s, uint64_t dpid, uint64_t match_id,
                           uint64_t flow_id, int64_t max_rev, int64_t *rev)
{
    uint64_t have, rv = 0;

    if (!ofcd_pairmap_get(&s->pend, dpid, match_id, &have) || (flow_id && have != flow_id))
        return false;
    ofcd_pairmap_get(&s->pend_rv, dpid, match_id, &rv);
    if (rev)
        *rev = (int64_t)rv;
    return max_rev < 0 || (int64_t)rv <= max_rev;
}

void store_etcd_pend_decided(struct store_etcd *s, uint64_t dpid, uint64_t match_id,
                             uint64_t flow_id)
{
    uint64_t have;

    pthread_mutex_lock(&s->pend_lock);
    if (!ofcd_pairmap_get(&s->pend, dpid, match_id, &have) || !flow_id || have == flow_id)
        pend_del_locked(s, dpid, match_id);
    pthread_mutex_unlock(&s->pend_lock);
}

/* Published by this node, not yet back through the watch: no longer
 * pending for certification (a record at or before rev only: a newer one
 * stays), its revision kept for the list's application when it comes. */
static void pend_decided_by(struct store_etcd *s, uint64_t dpid, uint64_t match_id,
                            uint64_t flow_id, int64_t rev)
{
    pthread_mutex_lock(&s->pend_lock);
    if (pend_is_locked(s, dpid, match_id, flow_id, rev, NULL) &&
        ofcd_pairmap_del(&s->pend, dpid, match_id, NULL))
        pend_count(s, dpid, -1);
    pthread_mutex_unlock(&s->pend_lock);
}

/* Whether an inst value's (match_id, flow_id) at rev names the record the
 * copy holds: pending as that flow (or published by this node since), and
 * written at or before rev. */
static bool listed_locked(const struct store_etcd *s, uint64_t dpid, uint64_t match_id,
                          uint64_t flow_id, int64_t rev)
{
    uint64_t have, rv;

    if (!ofcd_pairmap_get(&s->pend_rv, dpid, match_id, &rv) || (int64_t)rv > rev)
        return false;
    return !ofcd_pairmap_get(&s->pend, dpid, match_id, &have) || have == flow_id;
}

void store_etcd_pend_at(struct store_etcd *s, int64_t rev)
{
    pthread_mutex_lock(&s->pend_lock);
    if (rev > s->pend_rev)
        s->pend_rev = rev;
    pthread_mutex_unlock(&s->pend_lock);
}

static void pend_empty(struct store_etcd *s, bool filling)
{
    pthread_mutex_lock(&s->pend_lock);
    ofcd_pairmap_free(&s->pend);
    ofcd_pairmap_free(&s->pend_n);
    ofcd_pairmap_free(&s->pend_rv);
    s->pend_broken = false;
    s->pend_filling = filling;
    s->pend_rev = 0;
    pthread_mutex_unlock(&s->pend_lock);
}

void store_etcd_pend_refill(struct store_etcd *s)
{
    pend_empty(s, true);
    s->n_fr = 0;
    s->in_full = true;
}

void store_etcd_pend_refilled(struct store_etcd *s, int64_t rev)
{
    s->in_full = false;
    free(s->fr);
    s->fr = NULL;
    s->n_fr = s->cap_fr = 0;
    pthread_mutex_lock(&s->pend_lock);
    s->pend_filling = false;
    if (rev < 0)
        s->pend_broken = true;      /* partial: the next full read rebuilds it */
    else if (rev > s->pend_rev)
        s->pend_rev = rev;
    pthread_mutex_unlock(&s->pend_lock);
}

static int load_one(const struct store_flow *f, void *arg)
{
    if (f->state == STORE_FLOW_PENDING)
        store_etcd_pend_record(arg, f->dpid, f->match_id, f->flow_id, 0, true);
    return 0;
}

int store_etcd_pend_load(struct store_etcd *s)
{
    pend_empty(s, false);
    int rc = store_foreach(s->mirror, NULL, load_one, s);
    pthread_mutex_lock(&s->pend_lock);
    if (rc < 0)
        s->pend_broken = true;
    pthread_mutex_unlock(&s->pend_lock);
    return rc;
}

int store_etcd_fr_note(struct store_etcd *s, uint64_t dpid, uint64_t match_id,
                       uint64_t flow_id, int64_t rev)
{
    if (s->n_fr == s->cap_fr) {
        size_t nc = s->cap_fr ? s->cap_fr * 2 : 1024;
        struct store_etcd_fr_ent *n = realloc(s->fr, nc * sizeof(*n));
        if (!n)
            return -ENOMEM;
        s->fr = n;
        s->cap_fr = nc;
    }
    s->fr[s->n_fr++] = (struct store_etcd_fr_ent){dpid, match_id, flow_id, rev};
    return 0;
}

/* ---- applying a P data/inst value (watcher) --------------------------------- */

int store_etcd_copy_state(struct store_etcd *s, uint64_t dpid, uint64_t match_id,
                          uint64_t flow_id, enum store_flow_state st, uint16_t err_type,
                          uint16_t err_code)
{
    int rc;

    /* The mirror's bound on queued state updates: wait for it to drain. */
    while ((rc = store_set_state(s->mirror, dpid, match_id, flow_id, st, err_type,
                                 err_code)) == -EAGAIN)
        store_sync(s->mirror);
    if (rc == 0 && st != STORE_FLOW_PENDING)
        store_etcd_pend_decided(s, dpid, match_id, flow_id);
    return rc;
}

static int set_installed(struct store_etcd *s, uint64_t dpid, uint64_t match_id,
                         uint64_t flow_id)
{
    return store_etcd_copy_state(s, dpid, match_id, flow_id, STORE_FLOW_INSTALLED, 0, 0);
}

/* The first of the full read's pending records of dpid. */
static size_t fr_first(const struct store_etcd *s, uint64_t dpid)
{
    size_t lo = 0, hi = s->n_fr;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->fr[mid].dpid < dpid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int store_etcd_inst_apply(struct store_etcd *s, uint64_t dpid, const uint8_t *v, size_t len)
{
    struct store_etcd_inst_ent *e = malloc(STORE_ETCD_INST_MAX * sizeof(*e));
    int64_t rev;
    size_t n;
    int rc = 0;

    if (!e)
        return -ENOMEM;
    if (store_etcd_inst_decode(v, len, &rev, e, &n) < 0) {
        LOG_WARN(STORE_COMP, "switch %016" PRIx64 ": its installed flows' value in etcd is "
                 "not one; skipped", dpid);
        free(e);
        return 0;
    }
    /* Following the watch: the flows listed, each only as the record its
     * master confirmed (pending as that flow, written at or before the
     * value's revision: one deleted and added again since, even the same
     * flow, is not what was confirmed). A full read goes by the revision
     * alone (below): what it read is all there is. */
    for (size_t i = 0; i < n && rc == 0 && !s->in_full; i++) {
        pthread_mutex_lock(&s->pend_lock);
        bool trust = !s->pend_broken && !s->pend_filling;
        bool listed = listed_locked(s, dpid, e[i].match_id, e[i].flow_id, rev);
        pthread_mutex_unlock(&s->pend_lock);
        if (listed || !trust)
            rc = set_installed(s, dpid, e[i].match_id, e[i].flow_id);
    }
    free(e);
    /* A full read saw the records this value's revision covers: those it
     * read pending are installed (their own flow_id: a newer version of one
     * was read at a later revision and stays pending). */
    for (size_t i = s->in_full ? fr_first(s, dpid) : s->n_fr;
         rc == 0 && i < s->n_fr && s->fr[i].dpid == dpid; i++)
        if (s->fr[i].rev <= rev)
            rc = set_installed(s, dpid, s->fr[i].match_id, s->fr[i].flow_id);
    return rc;
}

/* ---- held confirmations (committer) ------------------------------------------ */

void store_etcd_inst_sent(struct store_etcd *s, const struct store_etcd_state_op *op)
{
    struct store_etcd_inst_ent *e = malloc(STORE_ETCD_INST_MAX * sizeof(*e));
    int64_t rev;
    size_t n = 0;

    if (e && store_etcd_inst_decode((const uint8_t *)op->inst, op->inst_len, &rev, e, &n) == 0)
        for (size_t i = 0; i < n; i++)
            pend_decided_by(s, op->dpid, e[i].match_id, e[i].flow_id, rev);
    free(e);
}

int store_etcd_st_push(struct store_etcd *s, const struct store_etcd_state_op *op)
{
    if (s->n_st == s->cap_st) {
        size_t nc = s->cap_st ? s->cap_st * 2 : 64;
        struct store_etcd_state_op *n = realloc(s->st, nc * sizeof(*n));
        if (!n)
            return -ENOMEM;
        s->st = n;
        s->cap_st = nc;
    }
    s->st[s->n_st] = *op;
    s->st[s->n_st].seq = s->n_st;
    s->n_st++;
    return 0;
}

static struct store_etcd_held *held_of(struct store_etcd *s, uint64_t dpid)
{
    uint64_t ix;
    return ofcd_pairmap_get(&s->held_ix, dpid, 0, &ix) ? &s->held[ix] : NULL;
}

int store_etcd_held_add(struct store_etcd *s, uint64_t dpid, uint64_t match_id,
                        uint64_t flow_id, uint64_t now_us)
{
    struct store_etcd_held *h = held_of(s, dpid);

    if (!h) {
        if (s->n_held == s->cap_held) {
            size_t nc = s->cap_held ? s->cap_held * 2 : 64;
            struct store_etcd_held *n = realloc(s->held, nc * sizeof(*n));
            if (!n)
                return -ENOMEM;
            s->held = n;
            s->cap_held = nc;
        }
        if (ofcd_pairmap_set(&s->held_ix, dpid, 0, s->n_held) < 0)
            return -ENOMEM;
        h = &s->held[s->n_held++];
        *h = (struct store_etcd_held){.dpid = dpid, .first_us = now_us};
    }
    h->tried = false;                       /* worth another try */
    /* The record confirmed: the one the copy holds now (the committer read
     * its flow_id from the mirror just before). */
    uint64_t rv = 0;
    pthread_mutex_lock(&s->pend_lock);
    ofcd_pairmap_get(&s->pend_rv, dpid, match_id, &rv);
    pthread_mutex_unlock(&s->pend_lock);
    for (size_t i = 0; i < h->n; i++)
        if (h->e[i].match_id == match_id) {
            h->e[i].flow_id = flow_id;      /* the newest confirmation of it */
            h->e[i].rev = (int64_t)rv;
            return 0;
        }
    if (h->n == h->cap) {
        size_t nc = h->cap ? h->cap * 2 : 8;
        struct store_etcd_inst_ent *n = realloc(h->e, nc * sizeof(*n));
        if (!n)
            return -ENOMEM;
        h->e = n;
        h->cap = nc;
    }
    h->e[h->n++] = (struct store_etcd_inst_ent){match_id, flow_id, (int64_t)rv};
    return 0;
}

void store_etcd_held_drop(struct store_etcd *s, uint64_t dpid, uint64_t match_id)
{
    struct store_etcd_held *h = held_of(s, dpid);

    for (size_t i = 0; h && i < h->n; i++)
        if (h->e[i].match_id == match_id) {
            h->e[i] = h->e[--h->n];
            return;
        }
}

/* Switch ix's entry gone (the last one takes its place). */
static void held_remove(struct store_etcd *s, size_t ix)
{
    free(s->held[ix].e);
    ofcd_pairmap_del(&s->held_ix, s->held[ix].dpid, 0, NULL);
    if (ix != --s->n_held) {
        s->held[ix] = s->held[s->n_held];
        ofcd_pairmap_set(&s->held_ix, s->held[ix].dpid, 0, ix);   /* replaces: no alloc */
    }
}

/* h's entries the copy still holds pending in that version, to the front;
 * how many. *certified: they are all of the switch's pending flows, as of
 * *rev. */
static size_t held_match(struct store_etcd *s, struct store_etcd_held *h, bool *certified,
                         int64_t *rev)
{
    size_t k = 0;
    uint64_t n = 0;

    pthread_mutex_lock(&s->pend_lock);
    bool trust = !s->pend_broken && !s->pend_filling;
    for (size_t i = 0; i < h->n; i++) {
        int64_t rv = 0;
        /* Not a confirmation of what the copy holds pending now (decided,
         * deleted, added again since): dropped. Unless the pending flows
         * cannot be trusted: then all go as state keys. */
        if (!trust ||
            (pend_is_locked(s, h->dpid, h->e[i].match_id, h->e[i].flow_id, -1, &rv) &&
             rv == h->e[i].rev))
            h->e[k++] = h->e[i];
    }
    ofcd_pairmap_get(&s->pend_n, h->dpid, 0, &n);
    *certified = trust && k == n;
    *rev = s->pend_rev;
    pthread_mutex_unlock(&s->pend_lock);
    h->n = k;
    return k;
}

/* How long h has waited at now_us (0 when now_us is before its first). */
static uint64_t held_age(const struct store_etcd_held *h, uint64_t now_us)
{
    return now_us > h->first_us ? now_us - h->first_us : 0;
}

/* How long h waits before its next try: the window, or the hold after a
 * try that could not certify it. */
static uint64_t held_wait_us(const struct store_etcd_held *h)
{
    return (h->tried ? STORE_ETCD_INST_HOLD_MS : STORE_ETCD_INST_WINDOW_MS) * 1000ull;
}

static int held_out_one(struct store_etcd *s, struct store_etcd_held *h, bool all,
                        uint64_t now_us, bool *gone)
{
    bool certified;
    int64_t rev;
    bool due_hold = held_age(h, now_us) >= STORE_ETCD_INST_HOLD_MS * 1000ull;

    *gone = false;
    if (held_match(s, h, &certified, &rev) == 0) {
        *gone = true;                       /* nothing left to say */
        return 0;
    }
    if (certified) {
        for (size_t off = 0; off < h->n; off += STORE_ETCD_INST_MAX) {
            size_t n = h->n - off < STORE_ETCD_INST_MAX ? h->n - off : STORE_ETCD_INST_MAX;
            struct store_etcd_state_op op = {.dpid = h->dpid, .match_id = STORE_ETCD_INST_MATCH,
                                             .state = STORE_FLOW_INSTALLED};
            int len = store_etcd_inst_encode(rev, h->e + off, n, &op.inst);
            if (len < 0)
                return len;
            op.inst_len = (size_t)len;
            int rc = store_etcd_st_push(s, &op);
            if (rc < 0) {
                free(op.inst);
                return rc;
            }
            /* One P data/inst per switch in a transaction: more than a
             * value's worth waits for the next flush. */
            if (off + n < h->n) {
                memmove(h->e, h->e + off + n, (h->n - off - n) * sizeof(*h->e));
                h->n -= off + n;
                h->first_us = now_us - STORE_ETCD_INST_WINDOW_MS * 1000ull;
                return 0;
            }
        }
        *gone = true;
        return 0;
    }
    if (!all && !due_hold) {
        h->tried = true;                    /* a flow of it is not confirmed yet */
        return 0;
    }
    for (size_t i = 0; i < h->n; i++) {
        struct store_etcd_state_op op = {.dpid = h->dpid, .match_id = h->e[i].match_id,
                                         .flow_id = h->e[i].flow_id,
                                         .state = STORE_FLOW_INSTALLED};
        int rc = store_etcd_st_push(s, &op);
        if (rc < 0)
            return rc;
    }
    *gone = true;
    return 0;
}

int store_etcd_held_flush(struct store_etcd *s, uint64_t now_us, bool all)
{
    for (size_t i = 0; i < s->n_held;) {
        struct store_etcd_held *h = &s->held[i];
        bool due = all || h->n >= STORE_ETCD_INST_MAX || held_age(h, now_us) >= held_wait_us(h);
        bool gone = false;
        int rc = due ? held_out_one(s, h, all, now_us, &gone) : 0;
        if (rc < 0)
            return rc;
        if (gone)
            held_remove(s, i);
        else
            i++;
    }
    return 0;
}

uint64_t store_etcd_held_due(const struct store_etcd *s)
{
    uint64_t due = 0;

    for (size_t i = 0; i < s->n_held; i++) {
        uint64_t d = s->held[i].first_us + held_wait_us(&s->held[i]);
        if (!due || d < due)
            due = d;
    }
    return due;
}

void store_etcd_inst_free(struct store_etcd *s)
{
    for (size_t i = 0; i < s->n_held; i++)
        free(s->held[i].e);
    free(s->held);
    s->held = NULL;
    s->n_held = s->cap_held = 0;
    ofcd_pairmap_free(&s->held_ix);
    ofcd_pairmap_free(&s->pend);
    ofcd_pairmap_free(&s->pend_n);
    ofcd_pairmap_free(&s->pend_rv);
    free(s->fr);
    s->fr = NULL;
    s->n_fr = s->cap_fr = 0;
}
