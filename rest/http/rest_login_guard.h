/*
 * rest_login_guard: who may have a password checked now. A check is
 * scrypt (rest_users.h): ~32 MiB and ~0.1 s of a REST thread, so guessing
 * is also a way to load the machine. Three bounds, time passed in, one
 * mutex of the guard's own (callers hold no lock):
 *
 *  - Failures per address. After REST_LOGIN_FAILS_MAX failures, each
 *    within lock_s of the one before, the address is locked: its logins
 *    are refused (LOCKED: 429 with Retry-After) until lock_s after its last
 *    failure, without a check. A success clears the address.
 *  - The addresses remembered. Failures are kept in a table of track_max
 *    entries; an entry lives lock_s after its last failure and is never
 *    freed earlier (nor is the entry of a check that is running). While
 *    every entry is alive, an address without one is refused (FULL: 429,
 *    Retry-After until the first entry ends): new addresses can neither
 *    free a locked one nor reset the count of one that is guessing.
 *  - Checks at once: concurrency for any address; one more for addresses
 *    that logged in successfully within REST_LOGIN_TRUST_S (the last
 *    REST_LOGIN_TRUSTED of them, kept apart, their failures counted there
 *    and never refused as FULL). Over the bound: BUSY (503, Retry-After 1),
 *    without waiting, since a waiting check would hold a REST thread. So an
 *    operator who logged in before still gets in during a spray of wrong
 *    passwords from many addresses; an address new to ofcd may get 503s.
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
    uint32_t checking;                  /* checks of this address running */
    bool used;
};

struct rest_login_guard {
    pthread_mutex_t lock;
    struct rest_login_guard_cfg cfg;
    struct rest_login_entry *failing;   /* cfg.track_max */
    struct rest_login_entry trusted[REST_LOGIN_TRUSTED];
    unsigned running;                   /* checks holding a general slot */
    bool running_trusted;               /* the trusted addresses' slot is held */
};

enum rest_login_verdict {
    REST_LOGIN_GO,                      /* check it, then rest_login_guard_done */
    REST_LOGIN_LOCKED,                  /* 429: this address failed too often */
    REST_LOGIN_FULL,                    /* 429: every tracked address is failing */
    REST_LOGIN_BUSY,                    /* 503: every check slot is taken */
};

/* What a GO holds, for rest_login_guard_done. */
struct rest_login_pass {
    uint32_t addr;
    bool login;                         /* its outcome counts for the address */
    bool trusted_slot;
};

/* 0 or -ENOMEM. */
int rest_login_guard_init(struct rest_login_guard *g, const struct rest_login_guard_cfg *cfg);
void rest_login_guard_destroy(struct rest_login_guard *g);

/*
 * May addr have a password checked at now_s? login: a login (its outcome
 * counts for the address); false: a password being set (only the slot
 * bound applies). GO fills *p; otherwise *retry_s is the Retry-After.
 */
enum rest_login_verdict rest_login_guard_begin(struct rest_login_guard *g, uint32_t addr,
                                               bool login, uint64_t now_s,
                                               struct rest_login_pass *p, unsigned *retry_s);

/* The check of a GO ended: ok = the password matched. Frees its slot. */
void rest_login_guard_done(struct rest_login_guard *g, const struct rest_login_pass *p, bool ok,
                           uint64_t now_s);

#endif
