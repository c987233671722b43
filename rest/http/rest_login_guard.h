/*
 * rest_login_guard: whose password is checked, and when. A check is
 * scrypt (rest_scrypt.h): ~70 ms of a CPU and 32 MiB, the costliest work a
 * client can make ofcd do before it is authenticated, so guessing is also
 * a way to load the machine and to keep others out. Time passed in, one
 * mutex of the guard's own (callers hold no lock).
 *
 *  - Failures per address. After REST_LOGIN_FAILS_MAX failures, each
 *    within lock_s of the one before, the address is locked: its logins
 *    are refused (LOCKED: 429 with Retry-After) until lock_s after its last
 *    failure, without a check. A success clears the address.
 *  - The addresses remembered. Failures are kept in a table of track_max
 *    entries; an entry lives lock_s after its last failure and is never
 *    freed earlier (nor is the entry of a login being checked or waiting).
 *    While every entry is alive, an address without one is refused (FULL:
 *    429, Retry-After until the first entry ends): new addresses can
 *    neither free a locked one nor reset the count of one that is guessing.
 *  - Checks shared by addresses in turn. An address has one check running
 *    at a time; its other logins wait in a line of its own (at most
 *    REST_LOGIN_LINE_MAX; more are BUSY: 503, Retry-After 1). At most
 *    concurrency checks run at once, one more for addresses that logged in
 *    successfully within REST_LOGIN_TRUST_S (the last REST_LOGIN_TRUSTED of
 *    them, kept apart, their failures counted there and never refused as
 *    FULL). When a check ends its slot goes to the next address waiting,
 *    round robin, not to whichever asked most: an operator's login waits
 *    for at most one check of each address ahead of it, however many
 *    connections those use. And since an address's checks run one after
 *    another, its fifth failure locks it before a sixth can start: its
 *    waiting logins are handed back LOCKED, unchecked.
 *
 * A login that has to wait (WAIT) stays in the guard, in the caller's own
 * struct rest_login_pass, until rest_login_guard_done hands it back, either
 * holding a slot (GO: run its check) or refused (LOCKED). Nothing waits
 * for a slot to set a password (false login: BUSY instead): the users
 * routes hash on a REST thread and cannot be suspended for it.
 */
#ifndef OFCD_REST_LOGIN_GUARD_H
#define OFCD_REST_LOGIN_GUARD_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REST_LOGIN_FAILS_MAX 5
#define REST_LOGIN_TRUSTED 64           /* addresses that logged in, remembered */
#define REST_LOGIN_TRUST_S 86400        /* for this long after their last success */
#define REST_LOGIN_LINE_MAX 8           /* logins of one address waiting at once */

struct rest_login_guard_cfg {
    unsigned lock_s;                    /* rest.login_lock_s */
    unsigned track_max;                 /* rest.login_track_max */
    unsigned concurrency;               /* rest.login_concurrency */
};

struct rest_login_entry {
    uint32_t addr;                      /* IPv4, host order */
    uint32_t fails;
    uint64_t last_s;                    /* the last failure (or a check's start) */
    uint64_t ok_s;                      /* trusted: the last success */
    uint32_t checking;                  /* logins of this address checked or waiting */
    bool used;
};

enum rest_login_verdict {
    REST_LOGIN_GO,                      /* check it, then rest_login_guard_done */
    REST_LOGIN_WAIT,                    /* the guard holds it until its turn */
    REST_LOGIN_LOCKED,                  /* 429: this address failed too often */
    REST_LOGIN_FULL,                    /* 429: every tracked address is failing */
    REST_LOGIN_BUSY,                    /* 503: no slot, or the address's line is full */
};

/* One check, asked for or granted; the caller's, held by the guard while it
 * waits. */
struct rest_login_pass {
    uint32_t addr;
    bool login;                         /* its outcome counts for the address */
    bool trusted_slot;                  /* GO: the slot it holds */
    /* Handed back by rest_login_guard_done: GO (it holds a slot now) or
     * LOCKED (retry_s); next links the hand-back list. */
    enum rest_login_verdict verdict;
    unsigned retry_s;
    struct rest_login_pass *next;
};

/* The logins of one address that are checked or waiting. */
struct rest_login_line {
    uint32_t addr;
    bool used;
    bool running;                       /* one of its checks holds a slot */
    unsigned waiting;
    struct rest_login_pass *head, *tail;
    struct rest_login_line *ready_next; /* in the round robin */
};

struct rest_login_guard {
    pthread_mutex_t lock;
    struct rest_login_guard_cfg cfg;
    struct rest_login_entry *failing;   /* cfg.track_max */
    struct rest_login_entry trusted[REST_LOGIN_TRUSTED];
    struct rest_login_line *lines;      /* cfg.track_max + REST_LOGIN_TRUSTED */
    /* Lines with logins waiting and no check running, in turn. */
    struct rest_login_line *ready_head, *ready_tail;
    unsigned running;                   /* checks holding a general slot */
    bool running_trusted;               /* the trusted addresses' slot is held */
};

/* 0 or -ENOMEM. */
int rest_login_guard_init(struct rest_login_guard *g, const struct rest_login_guard_cfg *cfg);
void rest_login_guard_destroy(struct rest_login_guard *g);

/*
 * May addr have a password checked at now_s? login: a login (its outcome
 * counts for the address, it may WAIT); false: a password being set (only
 * the slot bound applies: GO or BUSY). GO and WAIT fill *p, which the
 * guard keeps while it waits; otherwise *retry_s is the Retry-After.
 */
enum rest_login_verdict rest_login_guard_begin(struct rest_login_guard *g, uint32_t addr,
                                               bool login, uint64_t now_s,
                                               struct rest_login_pass *p, unsigned *retry_s);

/*
 * Is addr locked at now_s? true with *retry_s: a login from it would be
 * LOCKED. Only a shortcut for callers that answer it more cheaply than
 * they can begin one (rest_login_guard_begin decides).
 */
bool rest_login_guard_locked(struct rest_login_guard *g, uint32_t addr, uint64_t now_s,
                             unsigned *retry_s);

/*
 * The check of a GO ended: ok = the password matched. Frees its slot and
 * returns the waiting passes that leave the guard now (NULL if none),
 * linked by next: each GO (run its check, then done) or LOCKED.
 */
struct rest_login_pass *rest_login_guard_done(struct rest_login_guard *g,
                                              const struct rest_login_pass *p, bool ok,
                                              uint64_t now_s);

#endif
