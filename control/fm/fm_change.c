/* fm_change: see fm_change.h. */
#include "fm_change.h"

#include <errno.h>
#include <stdlib.h>

#include "fm_priv.h"

static int key_cmp(const void *a, const void *b)
{
    const struct fm_key *x = a, *y = b;
    if (x->dpid != y->dpid)
        return x->dpid < y->dpid ? -1 : 1;
    if (x->match_id != y->match_id)
        return x->match_id < y->match_id ? -1 : 1;
    return 0;
}

/* The store's predicate, on the committer: only the version named. */
static int is_victim(const struct store_flow *f, void *arg)
{
    const struct fm_change *c = arg;
    struct fm_key key = {f->dpid, f->match_id, 0};
    const struct fm_key *hit = bsearch(&key, c->victims, c->n_victims, sizeof(key),
                                            key_cmp);
    return hit && hit->flow_id == f->flow_id;
}

static void give_back(struct fm_change *c)
{
    for (size_t i = 0; i < c->n_parts; i++) {
        struct fm_change_part *p = &c->parts[i];
        if (p->held)
            fm_admit_cancel(c->fm, p->dpid, p->held);
        p->held = 0;
    }
}

/* Durable: the flow manager's now (its errors are its own: logged there). */
static void hand_over(struct fm_change *c)
{
    for (size_t i = 0; i < c->n_parts; i++) {
        struct fm_change_part *p = &c->parts[i];
        if (p->adds)
            fm_add_admitted(c->fm, p->dpid, p->adds, p->n, p->held);
        else
            fm_deleted_admitted(c->fm, c->victims, c->n_victims, p->dpid, p->dels, p->n,
                                     p->held);
        p->held = 0;
    }
}

static void committed(void *arg, int rc)
{
    struct fm_change *c = arg;

    if (rc == 0)
        hand_over(c);
    else
        give_back(c);
    c->done(c->arg, rc);
}

int fm_change_submit(struct fm_change *c)
{
    int rc;

    if (!c->fm || !c->done || (!c->recs && c->n_recs)) {
        if (c->fm)
            give_back(c);
        return -EINVAL;
    }
    if (c->recs) {
        rc = store_put_many_async(c->fm->store, c->recs, c->n_recs, committed, c);
    } else {
        if (c->n_victims) {
            qsort(c->victims, c->n_victims, sizeof(*c->victims), key_cmp);
            size_t u = 1;
            for (size_t i = 1; i < c->n_victims; i++)
                if (key_cmp(&c->victims[i], &c->victims[u - 1]) != 0)
                    c->victims[u++] = c->victims[i];
            c->n_victims = u;
        }
        if (!c->n_victims) {
            hand_over(c);
            return -EALREADY;
        }
        /* One switch's victims (every REST delete on one dpid, the
         * topology's): only its keys are walked, not the whole store. */
        bool one = c->victims[0].dpid == c->victims[c->n_victims - 1].dpid;
        rc = store_select_async(c->fm->store, one ? &c->victims[0].dpid : NULL, is_victim, c,
                                c->keep_deleted, committed, c);
    }
    if (rc < 0)
        give_back(c);
    return rc;
}

int fm_change_run(struct fm_change *c)
{
    struct store_waiter w;

    store_waiter_init(&w);
    c->done = store_waiter_done;
    c->arg = &w;
    int rc = store_waiter_wait(&w, fm_change_submit(c));
    return rc == -EALREADY ? 0 : rc;
}

int fm_change_purge_deleted(struct fm *fm, uint64_t before_ns)
{
    return store_purge_deleted(fm->store, before_ns);
}
