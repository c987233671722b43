/*
 * tcp_table: where connections live — a fixed pool of TCBs (no allocation
 * after tcp_stack_create), a chained hash on the 4-tuple, the per-state
 * counts, the TIME_WAIT age list (bounded: the oldest is recycled first), and
 * the reap list that returns destroyed connections to the pool once no code
 * up the call stack can still be looking at them.
 */
#include <errno.h>
#include <string.h>

#include "ofcd_log.h"
#include "tcp_priv.h"

static uint32_t tuple_bucket(const struct tcp_stack *s, uint32_t rip, uint16_t rport,
                             uint16_t lport)
{
    /* Cheap mix; the table is sized 2x the pool, chains stay short. The
     * remote port varies most, so it goes through the multiply too. */
    uint64_t h = ((uint64_t)rip << 32) | ((uint32_t)rport << 16) | lport;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 32;
    return (uint32_t)h & s->bucket_mask;
}

struct tcp_conn *tcp_conn_alloc(struct tcp_stack *s)
{
    struct tcp_conn *c = s->free_list;

    if (!c) {
        /* Give TIME_WAIT's oldest back before refusing a live connection. */
        if (!s->tw_head)
            return NULL;
        s->stats.time_wait_recycled++;
        tcp_conn_destroy(s->tw_head, TCP_CLOSE_NORMAL);
        tcp_reap(s);
        c = s->free_list;
        if (!c)
            return NULL;
    }
    s->free_list = c->list_next;
    memset(c, 0, sizeof(*c));
    c->stack = s;
    c->in_use = 1;
    c->state = TCP_CLOSED;
    s->state_counts[TCP_CLOSED]++;
    s->stats.connections++;
    tcp_ctimers_init(c);
    return c;
}

void tcp_conn_hash_insert(struct tcp_stack *s, struct tcp_conn *c)
{
    uint32_t b = tuple_bucket(s, c->rip, c->rport, c->lport);
    c->hnext = s->buckets[b];
    s->buckets[b] = c;
    c->in_hash = 1;
}

static void hash_remove(struct tcp_stack *s, struct tcp_conn *c)
{
    struct tcp_conn **pp = &s->buckets[tuple_bucket(s, c->rip, c->rport, c->lport)];

    for (; *pp; pp = &(*pp)->hnext) {
        if (*pp == c) {
            *pp = c->hnext;
            break;
        }
    }
    c->in_hash = 0;
}

struct tcp_conn *tcp_conn_lookup(struct tcp_stack *s, uint32_t rip, uint16_t rport,
                                 uint16_t lport)
{
    for (struct tcp_conn *c = s->buckets[tuple_bucket(s, rip, rport, lport)]; c; c = c->hnext)
        if (c->rip == rip && c->rport == rport && c->lport == lport)
            return c;
    return NULL;
}

static void tw_unlink(struct tcp_stack *s, struct tcp_conn *c)
{
    if (c->tw_prev)
        c->tw_prev->tw_next = c->tw_next;
    else
        s->tw_head = c->tw_next;
    if (c->tw_next)
        c->tw_next->tw_prev = c->tw_prev;
    else
        s->tw_tail = c->tw_prev;
    c->tw_prev = c->tw_next = NULL;
    s->n_time_wait--;
}

void tcp_set_state(struct tcp_conn *c, enum tcp_state st)
{
    struct tcp_stack *s = c->stack;

    if (c->state == st)
        return;
    if (c->state == TCP_TIME_WAIT)
        tw_unlink(s, c);
    if (c->state == TCP_SYN_RECEIVED && c->passive) {
        struct tcp_listener *l = &s->listeners[c->listener_idx];
        if (l->half_open)
            l->half_open--;
    }
    s->state_counts[c->state]--;
    s->state_counts[st]++;
    c->state = st;
    if (st == TCP_TIME_WAIT) {
        c->tw_prev = s->tw_tail;
        c->tw_next = NULL;
        if (s->tw_tail)
            s->tw_tail->tw_next = c;
        else
            s->tw_head = c;
        s->tw_tail = c;
        s->n_time_wait++;
        /* Bounded: beyond the limit the oldest goes now. */
        if (s->n_time_wait > s->cfg.max_time_wait && s->tw_head != c) {
            s->stats.time_wait_recycled++;
            tcp_conn_destroy(s->tw_head, TCP_CLOSE_NORMAL);
        }
    }
}

void tcp_conn_destroy(struct tcp_conn *c, int reason)
{
    struct tcp_stack *s = c->stack;

    if (c->dead)
        return;
    tcp_ctimers_cancel(c);
    tcp_set_state(c, TCP_CLOSED);
    if (c->in_hash)
        hash_remove(s, c);
    tcp_bufq_clear(s, &c->sndq);
    tcp_bufq_clear(s, &c->rcvq);
    tcp_ooo_clear(c);
    if (c->in_flush)
        tcp_flush_unlink(c);
    c->dead = 1;
    s->stats.conns_closed++;
    if (!c->app_detached && c->app_known && c->ops && c->ops->on_closed) {
        /* Delivered by tcp_reap, before the memory is reused. */
        c->events = TCP_EV_CLOSED;
        c->close_reason = (int8_t)reason;
    } else {
        c->events = 0;
    }
    c->list_next = s->reap_list;
    s->reap_list = c;
}

void tcp_reap(struct tcp_stack *s)
{
    while (s->reap_list) {
        struct tcp_conn *c = s->reap_list;
        s->reap_list = c->list_next;
        if (c->events & TCP_EV_CLOSED) {
            /* Owed to the app: deliver before the memory is reused. */
            c->events = 0;
            if (!c->app_detached && c->ops && c->ops->on_closed) {
                c->app_detached = 1;
                c->ops->on_closed(c, c->user, c->close_reason);
            }
        }
        s->state_counts[TCP_CLOSED]--;
        s->stats.connections--;
        c->in_use = 0;
        c->list_next = s->free_list;
        s->free_list = c;
    }
}

struct tcp_listener *tcp_listener_find(struct tcp_stack *s, uint16_t port)
{
    for (unsigned i = 0; i < TCP_MAX_LISTENERS; i++)
        if (s->listeners[i].port == port)
            return &s->listeners[i];
    return NULL;
}
