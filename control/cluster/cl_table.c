/* cl_table: see cl_table.h. */
#include "cl_table.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
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
    sw->async_sent = false;
}

void cl_sw_down(struct cl_sw *sw)
{
    sw->channel_up = false;
    sw->role = CL_ROLE_NONE;
    sw->generation = 0;
    sw->asking = false;
}

/* What cl_elect's policy knows of this node for sw. */
static struct cl_self self_of(const struct cl_sw *sw, const char *node, bool may_act)
{
    return (struct cl_self){.node = node, .channel_up = sw->channel_up, .may_act = may_act,
                            .role = sw->role, .generation = sw->generation,
                            .asking = sw->asking, .leaving = sw->leaving};
}

bool cl_sw_may_write(const struct cl_sw *sw, const char *node, bool may_act)
{
    struct cl_self self = self_of(sw, node, may_act);
    return cl_may_write(&sw->cands, &self);
}

bool cl_sw_step(struct cl_sw *sw, const char *node, bool may_act, uint64_t now_us,
                struct cl_ask *ask)
{
    *ask = (struct cl_ask){0};
    if (sw->asking && now_us - sw->ask_at_us >= CL_ASK_TIMEOUT_US) {
        sw->asking = false;
        sw->ask_timeouts++;
    }
    struct cl_self self = self_of(sw, node, may_act);
    struct cl_action a = cl_decide(&sw->cands, &self);
    bool was = sw->want_stand;
    /* Stand exactly while the channel is up: cl_decide's STAND and RESIGN
     * say so when the key and the channel disagree, and a channel back
     * before the cluster thread deleted the key keeps it (and its place). */
    sw->want_stand = sw->channel_up;
    if (sw->yielding) {
        /* Resign until the watch shows our key gone, then stand behind. */
        bool listed = false;
        for (unsigned i = 0; i < sw->cands.n; i++)
            listed |= strcmp(sw->cands.c[i].node, node) == 0;
        if (listed && sw->channel_up)
            sw->want_stand = false;
        else
            sw->yielding = false;
    }
    if (sw->leaving)
        sw->want_stand = false;     /* our keys went with the lease */
    if (a.kind == CL_DO_ASK_MASTER || a.kind == CL_DO_ASK_SLAVE || a.kind == CL_DO_ASK_ROLE) {
        if (now_us >= sw->retry_at_us) {
            ask->send = true;
            ask->nochange = a.kind == CL_DO_ASK_ROLE;
            ask->role = a.kind == CL_DO_ASK_MASTER ? CL_ROLE_MASTER
                        : a.kind == CL_DO_ASK_SLAVE ? CL_ROLE_SLAVE
                                                    : sw->role;
            ask->generation = a.generation;
        }
    }
    return was != sw->want_stand;
}

void cl_sw_asked(struct cl_sw *sw, const struct cl_ask *ask, uint32_t xid, uint64_t now_us)
{
    sw->asking = true;
    sw->asked_role = ask->nochange;
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
    int changed = role != sw->role;
    if (sw->asked_role) {
        /* What the switch gives us now: SLAVE under the generation of the
         * master that took over, or MASTER still (asked again later). */
        sw->role = role;
        sw->generation = generation;
        if (role == CL_ROLE_MASTER)
            sw->retry_at_us = sw->ask_at_us + CL_ROLE_QUERY_EVERY_US;
        if (changed)
            sw->role_changes++;
        return changed;
    }
    /* The generation kept is the one asked for: the policy compares it
     * with the winner's (the reply's is the switch's newest, the same or
     * one this node has not seen yet). */
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

struct tally {
    char node[2 * CL_NODES_MAX][CL_NODE_NAME_MAX];
    unsigned wins[2 * CL_NODES_MAX];
    unsigned n_nodes, switches;
    bool yielding;
};

static unsigned *wins_of(struct tally *y, const char *node)
{
    for (unsigned i = 0; i < y->n_nodes; i++)
        if (strcmp(y->node[i], node) == 0)
            return &y->wins[i];
    if (y->n_nodes == 2 * CL_NODES_MAX)
        return NULL;
    snprintf(y->node[y->n_nodes], CL_NODE_NAME_MAX, "%s", node);
    y->wins[y->n_nodes] = 0;
    return &y->wins[y->n_nodes++];
}

static void tally_one(void *arg, struct cl_sw *sw)
{
    struct tally *y = arg;
    const struct cl_cand *w = cl_cands_winner(&sw->cands);

    y->yielding |= sw->yielding;
    if (!w)
        return;
    y->switches++;
    unsigned *c = wins_of(y, w->node);
    if (c)
        (*c)++;
}

static void collect_sw(void *arg, struct cl_sw *sw)
{
    struct cl_sw ***p = arg;

    if (sw->cands.n)
        *(*p)++ = sw;
}

static int by_dpid(const void *a, const void *b)
{
    uint64_t x = (*(struct cl_sw *const *)a)->dpid, y = (*(struct cl_sw *const *)b)->dpid;
    return x < y ? -1 : x > y;
}

/* sw's candidates in the order they win: lowest create revision first. */
static unsigned ranked(const struct cl_cands *s, const struct cl_cand **out)
{
    unsigned n = s->n;

    for (unsigned i = 0; i < n; i++)
        out[i] = &s->c[i];
    for (unsigned i = 1; i < n; i++)
        for (unsigned k = i; k > 0 && out[k]->create_rev < out[k - 1]->create_rev; k--) {
            const struct cl_cand *tmp = out[k];
            out[k] = out[k - 1];
            out[k - 1] = tmp;
        }
    return n;
}

/*
 * Every node works out the same plan from the same view: over the switches
 * in dpid order, one whose winner masters more than the share goes to the
 * first candidate behind it that masters fewer; the winner and every
 * candidate ranked before that one yield it (each node does its own part).
 */
unsigned cl_table_balance(const struct cl_table *t, const char *node, unsigned live_nodes,
                          uint64_t *out, unsigned max)
{
    struct tally y = {0};
    unsigned n = 0;

    cl_table_each(t, tally_one, &y);
    if (y.yielding || live_nodes < 2 || !y.switches)
        return 0;
    struct cl_sw **all = malloc(y.switches * sizeof(*all)), **end = all;
    if (!all)
        return 0;
    cl_table_each(t, collect_sw, &end);
    qsort(all, (size_t)(end - all), sizeof(*all), by_dpid);
    unsigned share = (y.switches + live_nodes - 1) / live_nodes;
    for (struct cl_sw **p = all; p < end && n < max; p++) {
        const struct cl_cand *r[CL_NODES_MAX];
        unsigned k = ranked(&(*p)->cands, r), to = 0;
        unsigned *winner = wins_of(&y, r[0]->node), *target = NULL;
        if (!winner || *winner <= share)
            continue;
        for (to = 1; to < k; to++) {
            target = wins_of(&y, r[to]->node);
            if (target && *target < share)
                break;
        }
        if (to == k)
            continue;
        (*winner)--;
        (*target)++;
        for (unsigned i = 0; i < to; i++)
            if (strcmp(r[i]->node, node) == 0)
                out[n++] = (*p)->dpid;
    }
    free(all);
    return n;
}

void cl_sw_yield(struct cl_sw *sw)
{
    sw->yielding = true;
}
