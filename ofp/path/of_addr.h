/*
 * of_addr: an io lcore's table of the source addresses its switch
 * connections come from — how many connections each has open, which of them
 * are short of ESTABLISHED (oldest first), and the share of the message
 * buffers all of them hold together (qmsg_quota.h: a connection's share is
 * part of its address's).
 *
 * It also answers the admission question when the io lcore's pending
 * connections reach openflow.max_pending: which one to give up. The oldest
 * pending connection of the address that holds the most pending slots, so a
 * lab of thousands of switches behind one address is served while the table
 * has room, and when it fills, whoever holds most of it pays first — not a
 * newcomer from an address with one connection. The addresses are kept in
 * buckets by their pending count (the constant-time LFU layout), so the
 * choice is O(1) whatever the number of addresses.
 *
 * An address is forgotten once it has no connection and every buffer
 * charged to its share is back (buffers are freed on other threads, so an
 * address with buffers out waits on a drain list that of_addrs_reap walks).
 * Owned by one io lcore; only the share's counters are touched elsewhere
 * (relaxed atomics, qmsg_quota.h).
 */
#ifndef OFCD_OF_ADDR_H
#define OFCD_OF_ADDR_H

#include <stdbool.h>
#include <stdint.h>

#include "qmsg_quota.h"

struct of_addr;

/* A pending connection's place in its address's list (embedded in the
 * connection; of_addrs_victim hands it back). */
struct of_addr_pend {
    struct of_addr *addr;            /* NULL: not pending */
    struct of_addr_pend *prev, *next;
};

struct of_addr {
    uint32_t ip;                     /* host order; 0 = free entry */
    uint32_t n_conns;                /* open connections from ip */
    uint32_t n_pending;              /* of them short of ESTABLISHED */
    struct of_addr_pend *pend_head, *pend_tail;  /* those, oldest first */
    struct of_addr *bprev, *bnext;   /* in the bucket of n_pending (> 0) */
    struct of_addr *dnext;           /* on the drain list, or the free list */
    bool draining;
    struct qmsg_quota quota;         /* what its connections hold together */
};

struct of_addrs;

/* capacity: addresses at once (open or draining); max_pending: the io
 * lcore's pending connections at most (the buckets' range); share: the
 * bounds of each address's share. NULL on allocation failure. */
struct of_addrs *of_addrs_create(uint32_t capacity, uint32_t max_pending,
                                 const struct qmsg_quota_bounds *share);
void of_addrs_destroy(struct of_addrs *t);

/* The entry of ip with one more connection counted; NULL when the table is
 * full of addresses with connections or buffers out. */
struct of_addr *of_addrs_get(struct of_addrs *t, uint32_t ip);

/* One connection of a fewer; the address is forgotten when it has none and
 * its buffers are back (now, or later by of_addrs_reap). */
void of_addrs_put(struct of_addrs *t, struct of_addr *a);

/* p (a connection of a) is now pending, the newest of a's; -ENOSPC when
 * max_pending are (of_addrs_victim first) or p already is. */
int of_addrs_pend(struct of_addrs *t, struct of_addr *a, struct of_addr_pend *p);

/* p is no longer pending (established, or closed); nothing if it was not. */
void of_addrs_unpend(struct of_addrs *t, struct of_addr_pend *p);

/* The connection to give up when pending connections are at their bound:
 * the oldest pending one of an address holding the most; NULL if none. */
struct of_addr_pend *of_addrs_victim(const struct of_addrs *t);

/* Pending connections over all addresses; addresses known (open or draining). */
uint32_t of_addrs_pending(const struct of_addrs *t);
uint32_t of_addrs_count(const struct of_addrs *t);

/* Forget the draining addresses whose buffers are all back. */
void of_addrs_reap(struct of_addrs *t);

/* The entry of ip, or NULL (tests, logs). */
struct of_addr *of_addrs_find(const struct of_addrs *t, uint32_t ip);

#endif
