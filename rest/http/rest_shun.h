/*
 * rest_shun: addresses whose requests ofcd keeps refusing before they are
 * authenticated, refused at accept instead. A refusal costs ofcd an
 * accepted connection, a parsed request and an answer; an address with
 * rest.max_conns_per_ip connections sending bodies without a token, or
 * hammering on a login that is locked, would otherwise have the REST
 * threads spend their time on it at the cost of every other address.
 *
 * Each address has a budget of refusals: a token bucket of burst tokens
 * that gains per_s a second; each refusal (401 for no good token, 413 for
 * a login with a body, a failed login, the guard's 429 and 503) spends one.
 * While its bucket holds less than one token the address is shunned: its
 * connections are closed as they are accepted, before a byte is read. The
 * connections it opened at once while it had a token are answered, and
 * their refusals put the bucket into debt (down to -burst), paid back
 * before it is accepted again: over time it gets per_s refused answers a
 * second however many connections it opens, and is shunned for at most
 * (burst + 1) / per_s seconds after its last refusal (10 s by default). Requests that are answered otherwise (any authenticated one, a
 * login that succeeds) cost nothing: an operator or a Kytos script with a
 * good token is never shunned.
 *
 * The table remembers REST_SHUN_SLOTS addresses, each placed within
 * REST_SHUN_PROBE slots of its hash; a new address takes a free slot of
 * that window, or the one whose bucket is fullest (the least suspect:
 * a full bucket is what a new address starts with), so addresses that are
 * shunned are the last to be forgotten. Pure: time passed in, one mutex of
 * its own; per_s = 0 turns it off.
 */
#ifndef OFCD_REST_SHUN_H
#define OFCD_REST_SHUN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "ofcd_tbucket.h"

#define REST_SHUN_SLOTS 4096
#define REST_SHUN_PROBE 16

struct rest_shun_slot {
    uint32_t addr;                      /* IPv4, host order; 0 = free */
    struct ofcd_tbucket bucket;
};

struct rest_shun {
    pthread_mutex_t lock;
    unsigned per_s, burst;              /* rest.refused_per_s, rest.refused_burst */
    struct rest_shun_slot slot[REST_SHUN_SLOTS];
};

void rest_shun_init(struct rest_shun *s, unsigned per_s, unsigned burst);
void rest_shun_destroy(struct rest_shun *s);

/* addr was refused at now_us: one token of its budget spent. true when
 * this left it shunned (its budget gone). */
bool rest_shun_refused(struct rest_shun *s, uint32_t addr, uint64_t now_us);

/* May a connection from addr be accepted at now_us? */
bool rest_shun_accept(struct rest_shun *s, uint32_t addr, uint64_t now_us);

#endif
