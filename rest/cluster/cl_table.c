/* cl_table: see cl_table.h. */
#include "cl_table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static unsigned slot(const struct cl_table *t, uint64_t dpid)
{
    return (unsigned)((dpid * 0x9e3779b97f4a7c15ULL) >> 32) & (t->n_buckets - 1);
}

int cl_table_init(struct cl_table *t, unsigned max)
{
    unsigned nb = 16;

    if (!max)
        return -EINVAL;
    while (nb < max && nb < (1u << 20))
        nb <<= 1;
    *t = (struct cl_table){.n_buckets = nb, .max = max};
    t->bucket = calloc(nb, sizeof(*t->bucket));
    return t->bucket ? 0 : -ENOMEM;
}

void cl_table_free(struct cl_table *t)
{
    for (unsigned b = 0; t->bucket && b < t->n_buckets; b++)
        for (struct cl_sw *sw = t->bucket[b], *next; sw; sw = next) {
            next = sw->hnext;
            free(sw);
        }
    free(t->bucket);
    *t = (struct cl_table){0};
}

struct cl_sw *cl_table_find(const struct cl_table *t, uint64_t dpid)
{
    for (struct cl_sw *sw = t->bucket[slot(t, dpid)]; sw; sw = sw->hnext)
        if (sw->dpid == dpid)
            return sw;
    return NULL;
}

struct cl_sw *cl_table_get(struct cl_table *t, uint64_t dpid)
{
    struct cl_sw *sw = cl_table_find(t, dpid);

    if (sw || t->n >= t->max)
        return sw;
    sw = calloc(1, sizeof(*sw));
    if (!sw)
        return NULL;
    sw->dpid = dpid;
    unsigned s = slot(t, dpid);
    sw->hnext = t->bucket[s];
    t->bucket[s] = sw;
    t->n++;
    return sw;
}

void cl_table_each(const struct cl_table *t, void (*fn)(void *arg, struct cl_sw *sw), void *arg)
{
    for (unsigned b = 0; b < t->n_buckets; b++)
        for (struct cl_sw *sw = t->bucket[b]; sw; sw = sw->hnext)
            fn(arg, sw);
}

unsigned cl_table_sweep(struct cl_table *t)
{
    unsigned gone = 0;

    for (unsigned b = 0; b < t->n_buckets; b++)
        for (struct cl_sw **pp = &t->bucket[b]; *pp;) {
            struct cl_sw *sw = *pp;
            if (!sw->channel_up && !sw->cands.n && !sw->stood && !sw->want_stand) {
                *pp = sw->hnext;
                free(sw);
                t->n--;
                gone++;
            } else {
                pp = &sw->hnext;
            }
        }
    return gone;
}

void cl_sw_up(struct cl_sw *sw, uint64_t conn)
{
    sw->channel_up = true;
    sw->conn = conn;
    sw->role = CL_ROLE_NONE;
    sw->generation = 0;
    sw->asking = false;
    sw->retry_at_us = 0;
}

void cl_sw_down(struct cl_sw *sw)
{
    sw->channel_up = false;
    sw->role = CL_ROLE_NONE;
    sw->generation = 0;
    sw->asking = false;
}

bool cl_sw_step(struct cl_sw *sw, const char *node, bool may_act, uint64_t now_us,
                struct cl_ask *ask)
{
    *ask = (struct cl_ask){0};
    if (sw->asking && now_us - sw->ask_at_us >= CL_ASK_TIMEOUT_US) {
        sw->asking = false;
        sw->ask_timeouts++;
    }
    struct cl_self self = {.node = node, .channel_up = sw->channel_up, .may_act = may_act,
                           .role = sw->role, .generation = sw->generation,
                           .asking = sw->asking};
    struct cl_action a = cl_decide(&sw->cands, &self);
    bool was = sw->want_stand;
    /* Stand exactly while the channel is up: cl_decide's STAND and RESIGN
     * say so when the key and the channel disagree, and a channel back
     * before the cluster thread deleted the key keeps it (and its place). */
    sw->want_stand = sw->channel_up;
    if (a.kind == CL_DO_ASK_MASTER || a.kind == CL_DO_ASK_SLAVE) {
        if (now_us >= sw->retry_at_us) {
            ask->send = true;
            ask->role = a.kind == CL_DO_ASK_MASTER ? CL_ROLE_MASTER : CL_ROLE_SLAVE;
            ask->generation = a.generation;
        }
    }
    return was != sw->want_stand;
}

void cl_sw_asked(struct cl_sw *sw, const struct cl_ask *ask, uint32_t xid, uint64_t now_us)
{
    sw->asking = true;
    sw->asked = ask->role;
    sw->asked_generation = ask->generation;
    sw->ask_xid = xid;
    sw->ask_at_us = now_us;
}

int cl_sw_reply(struct cl_sw *sw, uint32_t xid, enum cl_role role, int64_t generation)
{
    if (!sw->asking || xid != sw->ask_xid)
        return -ESRCH;
    sw->asking = false;
    /* The generation kept is the one asked for: the policy compares it
     * with the winner's (the reply's is the switch's newest, the same or
     * one this node has not seen yet). */
    (void)generation;
    int changed = role != sw->role;
    sw->role = role;
    sw->generation = sw->asked_generation;
    if (changed)
        sw->role_changes++;
    return changed;
}

int cl_sw_refused(struct cl_sw *sw, uint32_t xid, uint64_t now_us)
{
    if (!sw->asking || xid != sw->ask_xid)
        return -ESRCH;
    sw->asking = false;
    sw->role = CL_ROLE_NONE;
    sw->refusals++;
    sw->retry_at_us = now_us + CL_RETRY_AFTER_US;
    return 0;
}

const struct cl_cand *cl_sw_winner(const struct cl_sw *sw)
{
    return cl_cands_winner(&sw->cands);
}
