/*
 * rest_auth: who may call the REST API, Kytos-ng's way. With rest.auth on,
 * every route but the login needs "Authorization: Bearer TOKEN"; no token,
 * a malformed, wrongly signed or expired one is 401 with WWW-Authenticate;
 * a reader's token on anything but GET is 403. The token comes from
 *   GET /api/kytos/core/auth/login/   with Basic credentials
 *   → {"token": "<JWT>"}, valid rest.token_minutes (rest_jwt.h)
 * checked against the users file (rest_users.h); the login works whenever
 * the user exists, auth on or off, so scripts that log in first run as
 * they do against Kytos-ng (whose flow_manager routes are open). The
 * signing key is 32 random bytes made at first start in
 * APP_DATA_DIR/rest_jwt.key (mode 600), so tokens outlive a restart.
 * Who may have a password checked, and how many at once:
 * rest_login_guard.h.
 * Scrapers that cannot log in present a static reader token
 * (rest_static_tokens.h) instead. A users file rewritten under a running
 * ofcd (`ofcd user add`) is read again within a second.
 */
#ifndef OFCD_REST_AUTH_H
#define OFCD_REST_AUTH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "ofcd_counters.h"
#include "ofcd_ratelimit.h"
#include "rest_kdf.h"
#include "rest_login_guard.h"
#include "rest_static_tokens.h"
#include "rest_users.h"

struct rest_cfg;
struct rest_req;
struct rest_reply;

#define REST_AUTH_COUNTERS(X)                                                             \
    X(logins_ok, "logins that gave a token")                                              \
    X(logins_failed, "logins with a wrong name or password")                              \
    X(logins_locked, "logins refused (429): 5 failures from the address within "          \
      "rest.login_lock_s")                                                                \
    X(logins_untracked, "logins refused (429): rest.login_track_max addresses are failing") \
    X(logins_waited, "logins that waited their turn for a password check")               \
    X(checks_busy, "password checks refused (503): rest.login_concurrency running, or "   \
      "8 logins of the address waiting")                                                  \
    X(tokens_stale, "tokens refused: issued before their user's password or role "        \
      "changed, or before the user was re-created")                                       \
    X(refused_at_headers, "requests refused (401/403/413) as their headers came, body "   \
      "unread")                                                                           \
    X(conns_refused, "connections closed as accepted: rest.max_conns_per_ip from their "  \
      "address (or 4,096 in all) open")                                                   \
    X(addrs_shunned, "times an address spent its rest.refused_burst of refusals")         \
    X(conns_shunned, "connections closed as accepted: their address over "                \
      "rest.refused_per_s")
#define REST_AUTH_GAUGES(X) X(checks_running, "password checks (scrypt) running now")

/* Relaxed atomics: REST threads write, anyone reads (rest_auth_stats_read). */
struct rest_auth_stats {
    REST_AUTH_COUNTERS(OFCD_COUNTER_FIELD)
    REST_AUTH_GAUGES(OFCD_COUNTER_FIELD)
};

extern const struct ofcd_counter_group rest_auth_counters;   /* "rest_auth" */

void rest_auth_stats_read(const struct rest_auth_stats *live, struct rest_auth_stats *out);

/* Lines a client can make ofcd write at will (a failed login, a refused
 * connection): at most 5 per 10 s per kind, the rest counted and said
 * with the next line that goes out. */
struct rest_log_limit {
    pthread_mutex_t lock;
    struct ofcd_ratelimit rl;
};
void rest_log_limit_init(struct rest_log_limit *l);
void rest_log_limit_destroy(struct rest_log_limit *l);
/* May a line go out now? Then more (len bytes) is " (and N more not
 * written)", or "" when none was held back. */
bool rest_log_limit_pass(struct rest_log_limit *l, char *more, size_t len);

struct rest_auth {
    bool opened;                        /* rest_auth_open succeeded */
    bool on;                            /* rest.auth: tokens required */
    bool have_key;
    uint8_t key[32];
    struct rest_users users;
    struct rest_static_tokens readers;  /* rest.reader_tokens_file (read-only) */
    unsigned token_minutes;
    struct rest_login_guard guard;      /* password checks (its own lock) */
    struct rest_kdf kdf;                /* the threads that run a login's check */
    struct rest_auth_stats *st;         /* the app's, or own_st */
    struct rest_auth_stats own_st;
    struct rest_log_limit log_limit;    /* the failed-login lines */
    pthread_rwlock_t lock;              /* users and have_key: the users routes write */
    /* `ofcd user add` rewrites the users file under a running ofcd: its
     * identity when last read (under lock), looked at once a second. */
    const char *users_file, *data_dir;
    struct timespec users_mtime;
    ino_t users_ino;
    bool users_unreadable;              /* it changed and did not read (under lock) */
    atomic_uint_fast64_t users_checked_s;
};

/* Load the users and the key (made if missing); count in st (NULL: a
 * struct of a's own). 0, or a negative errno (logged; nothing left to
 * close): a broken users file or key stops start-up. rest_auth_close is a
 * no-op on what is not open. */
int rest_auth_open(struct rest_auth *a, const struct rest_cfg *cfg, struct rest_auth_stats *st);
void rest_auth_close(struct rest_auth *a);

/* May q go on (method on path)? reads: it changes nothing (GET, HEAD, a
 * route's reading POST): any valid token may; else only an admin's. true;
 * false with the 401/403 in r. */
bool rest_auth_allow(struct rest_auth *a, struct rest_req *q, bool reads, struct rest_reply *r,
                     uint64_t now_s);
/* The same for an Authorization header's value (NULL: none) and a method. */
bool rest_auth_check(struct rest_auth *a, const char *authorization, const char *method, bool reads,
                     uint64_t now_s, struct rest_reply *r);

/* A token for user name as the users set holds it now (its role and
 * epoch), valid rest.token_minutes from now_s: 0, -ENOENT (no such user),
 * -ESTALE (epoch given and the user's is another now: its password or role
 * changed since it was checked), or rest_jwt_sign's error. */
int rest_auth_issue(struct rest_auth *a, const char *name, const uint64_t *epoch,
                    uint64_t now_s, char *out, size_t out_len);

/* GET .../core/auth/login */
void rest_auth_login(struct rest_req *q, struct rest_reply *r);

/* Take a slot to hash a password being set for the client of q (users
 * routes): true, or false with the 503 in r. rest_auth_hash_end after. */
bool rest_auth_hash_begin(struct rest_auth *a, struct rest_req *q, struct rest_reply *r,
                          struct rest_login_pass *p);
void rest_auth_hash_end(struct rest_auth *a, const struct rest_login_pass *p);

/* With a->lock held for writing: the signing key, loaded or made now
 * (the first user added at run time needs it). 0 or a negative errno. */
int rest_auth_need_key(struct rest_auth *a, const char *data_dir);

/* With a->lock held for writing, before a users route changes the set:
 * the users file's lock (rest_users_lock; a descriptor to give back with
 * rest_users_unlock after the write), and the set read again if the file
 * changed since (`ofcd user add`), so the route changes the latest users.
 * A negative errno: -EWOULDBLOCK (another writer holds the file), or the
 * file changed and cannot be read (the route must not overwrite it). */
int rest_auth_users_lock(struct rest_auth *a);

/* With a->lock held for writing, after the users routes wrote the file:
 * what they wrote is the set in memory, not a change to read again. */
void rest_auth_users_saved(struct rest_auth *a);

/* Kytos-ng's user routes, .../core/auth/users[/NAME] (rest_users_api.c). */
void rest_users_list(struct rest_req *q, struct rest_reply *r);
void rest_users_get(struct rest_req *q, struct rest_reply *r);
void rest_users_create(struct rest_req *q, struct rest_reply *r);
void rest_users_patch(struct rest_req *q, struct rest_reply *r);
void rest_users_delete(struct rest_req *q, struct rest_reply *r);

#endif
