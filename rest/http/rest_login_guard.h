/*
 * rest_login_guard: failed logins, per client address. After
 * REST_LOGIN_FAILS_MAX failures within REST_LOGIN_WINDOW_S, a client's
 * logins are refused (429, Retry-After) until that window has passed since
 * its last failure, without a password check (which costs ~0.1 s of scrypt,
 * so guessing would also be a way to load the machine). A success clears
 * the client. A fixed table: when full, the stalest entry goes. Time is
 * passed in; callers hold no lock (the guard has its own).
 */
#ifndef OFCD_REST_LOGIN_GUARD_H
#define OFCD_REST_LOGIN_GUARD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define REST_LOGIN_FAILS_MAX 5
#define REST_LOGIN_WINDOW_S 60
#define REST_LOGIN_SLOTS 256

struct rest_login_slot {
    uint32_t addr;                      /* IPv4, host order; 0 = free */
    unsigned fails;
    uint64_t last_s;                    /* the last failure */
};

struct rest_login_guard {
    pthread_mutex_t lock;
    struct rest_login_slot slot[REST_LOGIN_SLOTS];
};

void rest_login_guard_init(struct rest_login_guard *g);
void rest_login_guard_destroy(struct rest_login_guard *g);

/* 0 when addr may try now; otherwise the seconds to wait. */
unsigned rest_login_guard_wait(struct rest_login_guard *g, uint32_t addr, uint64_t now_s);

/* The outcome of a try that was allowed. */
void rest_login_guard_result(struct rest_login_guard *g, uint32_t addr, bool ok, uint64_t now_s);

#endif
