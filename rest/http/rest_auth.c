/* rest_auth: see rest_auth.h. */
#include "rest_auth.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "ofcd_clock.h"
#include "ofcd_log.h"
#include "rest_priv.h"

#define KEY_FILE "rest_jwt.key"

OFCD_COUNTER_GROUP(rest_auth_counters, "rest_auth", struct rest_auth_stats, REST_AUTH_COUNTERS,
                   REST_AUTH_GAUGES);

#define COUNT(a, field) __atomic_fetch_add(&(a)->st->field, 1, __ATOMIC_RELAXED)

void rest_auth_stats_read(const struct rest_auth_stats *live, struct rest_auth_stats *out)
{
#define READ_FIELD(name, help) out->name = __atomic_load_n(&live->name, __ATOMIC_RELAXED);
    REST_AUTH_COUNTERS(READ_FIELD)
    REST_AUTH_GAUGES(READ_FIELD)
#undef READ_FIELD
}

/* The key file: read it, or make it (32 random bytes, mode 600). */
static int load_key(struct rest_auth *a, const char *data_dir)
{
    char path[4096];
    struct stat st;

    snprintf(path, sizeof(path), "%s/%s", data_dir, KEY_FILE);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        if (RAND_bytes(a->key, sizeof(a->key)) != 1)
            return -EIO;
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 || write(fd, a->key, sizeof(a->key)) != (ssize_t)sizeof(a->key) ||
            fsync(fd) != 0) {
            int e = errno;
            LOG_ERR("rest", "cannot write the token key %s: %s", path, strerror(e));
            if (fd >= 0)
                close(fd);
            return -e;
        }
        close(fd);
        LOG_INFO("rest", "made the token signing key %s", path);
        a->have_key = true;
        return 0;
    }
    if (fd < 0) {
        int e = errno;
        LOG_ERR("rest", "cannot read the token key %s: %s", path, strerror(e));
        return -e;
    }
    int rc = 0;
    if (fstat(fd, &st) != 0 || (st.st_mode & 077) || st.st_size != (off_t)sizeof(a->key) ||
        read(fd, a->key, sizeof(a->key)) != (ssize_t)sizeof(a->key)) {
        LOG_ERR("rest", "%s: not a 32-byte key readable by its owner only; remove it to have "
                "a new one made (tokens issued so far then stop working)", path);
        rc = -EINVAL;
    }
    close(fd);
    a->have_key = rc == 0;
    return rc;
}

static void note_identity(struct rest_auth *a)
{
    struct stat st;

    if (stat(a->users_file, &st) == 0) {
        a->users_mtime = st.st_mtim;
        a->users_ino = st.st_ino;
    } else {
        a->users_mtime = (struct timespec){0, 0};
        a->users_ino = 0;
    }
}

/* With a->lock held for writing: the users file read again if it is not
 * what was last read or written (a new inode or mtime: `ofcd user add`
 * renames a new file over it). 0 (unchanged, gone, or read), or the load's
 * error while the file cannot be read (the set is kept, and logged once). */
static int reload_changed(struct rest_auth *a)
{
    struct stat st;
    struct rest_users fresh;

    if (stat(a->users_file, &st) != 0 ||
        (st.st_ino == a->users_ino && st.st_mtim.tv_sec == a->users_mtime.tv_sec &&
         st.st_mtim.tv_nsec == a->users_mtime.tv_nsec))
        return a->users_unreadable ? -EINVAL : 0;
    int rc = rest_users_load(a->users_file, &fresh);
    if (rc == 0 && fresh.n && rest_auth_need_key(a, a->data_dir) < 0)
        rc = -EIO;
    if (rc == 0) {
        rest_users_free(&a->users);
        a->users = fresh;
        LOG_INFO("rest", "%s changed: %zu user(s) now", a->users_file, (size_t)fresh.n);
    } else {
        if (rc == -EIO)
            rest_users_free(&fresh);
        LOG_WARN("rest", "%s changed but cannot be read (%s): keeping the %zu user(s) known",
                 a->users_file, strerror(-rc), (size_t)a->users.n);
    }
    a->users_unreadable = rc < 0;
    note_identity(a);
    return rc;
}

/* The file looked at, at most once a second, from logins and checked
 * requests; read and swapped under the write lock, so a user route's
 * change is never overwritten with older text. */
static void refresh_users(struct rest_auth *a, uint64_t now_s)
{
    uint_fast64_t last = atomic_load_explicit(&a->users_checked_s, memory_order_relaxed);

    if (last == now_s || !atomic_compare_exchange_strong(&a->users_checked_s, &last, now_s))
        return;
    pthread_rwlock_wrlock(&a->lock);
    (void)reload_changed(a);
    pthread_rwlock_unlock(&a->lock);
}

int rest_auth_users_lock(struct rest_auth *a)
{
    int fd = rest_users_lock(a->users_file);

    if (fd < 0)
        return fd;
    int rc = reload_changed(a);
    if (rc < 0) {
        rest_users_unlock(fd);
        return rc;
    }
    return fd;
}

void rest_auth_users_saved(struct rest_auth *a)
{
    a->users_unreadable = false;
    note_identity(a);
}

int rest_auth_open(struct rest_auth *a, const struct rest_cfg *cfg, struct rest_auth_stats *st)
{
    const struct rest_login_guard_cfg gc = {.lock_s = cfg->login_lock_s ? cfg->login_lock_s : 60,
                                            .track_max = cfg->login_track_max,
                                            .concurrency = cfg->login_concurrency};

    memset(a, 0, sizeof(*a));
    a->st = st ? st : &a->own_st;
    a->users_file = cfg->users_file;
    a->data_dir = cfg->data_dir;
    if (rest_login_guard_init(&a->guard, &gc) < 0) {
        LOG_ERR("rest", "out of memory for rest.login_track_max = %u addresses",
                cfg->login_track_max);
        return -ENOMEM;
    }
    rest_log_limit_init(&a->log_limit);
    a->on = cfg->auth;
    a->token_minutes = cfg->token_minutes ? cfg->token_minutes : 180;
    int rc = rest_users_load(cfg->users_file, &a->users);
    if (rc == -ENOENT) {
        if (a->on)
            LOG_WARN("rest", "rest.auth is on and %s holds no user: every request is 401 "
                     "until one is added (ofcd user add NAME)", cfg->users_file);
        rc = 0;
    }
    if (rc == 0)
        rc = a->on || a->users.n ? load_key(a, cfg->data_dir) : 0;
    if (rc == 0)
        rc = rest_static_tokens_load(cfg->reader_tokens_file, &a->readers);
    /* As many threads as checks may run: a check never waits for one. */
    if (rc == 0 && (rc = rest_kdf_start(&a->kdf, a->guard.cfg.concurrency + 1,
                                                a->on || a->users.n ? REST_USERS_KDF_BYTES
                                                                    : 0)) < 0) {
        LOG_ERR("rest", "cannot start the password check threads: %s", strerror(-rc));
        rest_static_tokens_free(&a->readers);
    }
    if (rc < 0) {
        rest_users_free(&a->users);
        rest_login_guard_destroy(&a->guard);
        rest_log_limit_destroy(&a->log_limit);
        return rc;
    }
    pthread_rwlock_init(&a->lock, NULL);
    note_identity(a);
    atomic_init(&a->users_checked_s, (uint_fast64_t)ofcd_clock_wall_s());
    a->opened = true;
    return 0;
}

int rest_auth_need_key(struct rest_auth *a, const char *data_dir)
{
    return a->have_key ? 0 : load_key(a, data_dir);
}

void rest_auth_close(struct rest_auth *a)
{
    if (!a->opened)
        return;
    a->opened = false;
    rest_kdf_stop(&a->kdf);
    pthread_rwlock_destroy(&a->lock);
    rest_login_guard_destroy(&a->guard);
    rest_log_limit_destroy(&a->log_limit);
    rest_users_free(&a->users);
    rest_static_tokens_free(&a->readers);
    OPENSSL_cleanse(a->key, sizeof(a->key));
}

static void unauthorized(struct rest_reply *r, const char *why)
{
    rest_error(r, 401, "Token not sent or expired: %s", why);
    r->www_authenticate = "Bearer realm=\"ofcd\"";
}

bool rest_auth_check(struct rest_auth *a, const char *authorization, const char *method, bool reads,
                     uint64_t now_s, struct rest_reply *r)
{
    struct rest_jwt_claims c;
    const char *h = authorization;

    if (!a->on)
        return true;
    refresh_users(a, now_s);
    if (!h) {
        unauthorized(r, "no Authorization header (log in: GET /api/kytos/core/auth/login/)");
        return false;
    }
    if (strncmp(h, "Bearer ", 7) != 0) {
        unauthorized(r, "Authorization is not \"Bearer TOKEN\"");
        return false;
    }
    const char *reader = rest_static_tokens_match(&a->readers, h + 7);
    if (reader && !reads) {
        rest_error(r, 403, "static token %s is a reader's: only admin may %s", reader, method);
        return false;
    }
    if (reader)
        return true;
    int rc = rest_jwt_verify(a->key, sizeof(a->key), h + 7, now_s, &c);
    if (rc == -ETIMEDOUT) {
        unauthorized(r, "the token has expired; log in again");
        return false;
    }
    if (rc < 0) {
        unauthorized(r, rc == -EACCES ? "the token's signature is not ofcd's"
                                      : "the token is malformed");
        return false;
    }
    /* The user as it is now: its epoch says whether the token predates a
     * change of password or role (or the user's re-creation), its role
     * what the token may do. */
    char epoch[17], role[16] = "";
    pthread_rwlock_rdlock(&a->lock);
    const struct rest_user *u = rest_users_find(&a->users, c.username);
    if (u) {
        rest_user_epoch_text(u, epoch);
        snprintf(role, sizeof(role), "%s", u->role);
    }
    pthread_rwlock_unlock(&a->lock);
    if (!u) {
        unauthorized(r, "the token's user no longer exists");
        return false;
    }
    if (strlen(c.epoch) != 16 || CRYPTO_memcmp(c.epoch, epoch, 16) != 0) {
        COUNT(a, tokens_stale);
        unauthorized(r, "the token was issued before the user's password or role last "
                     "changed; log in again");
        return false;
    }
    if (!reads && strcmp(role, "admin") != 0) {
        rest_error(r, 403, "user %s has role %s: only admin may %s", c.username, role, method);
        return false;
    }
    return true;
}

bool rest_auth_allow(struct rest_auth *a, struct rest_req *q, bool reads, struct rest_reply *r,
                     uint64_t now_s)
{
    return rest_auth_check(a, MHD_lookup_connection_value(q->conn, MHD_HEADER_KIND,
                                                          MHD_HTTP_HEADER_AUTHORIZATION),
                           q->method, reads, now_s, r);
}

int rest_auth_issue(struct rest_auth *a, const char *name, const uint64_t *epoch,
                    uint64_t now_s, char *out, size_t out_len)
{
    struct rest_jwt_claims c = {.exp_s = now_s + a->token_minutes * 60ull};
    int rc = 0;

    refresh_users(a, now_s);
    pthread_rwlock_rdlock(&a->lock);
    const struct rest_user *u = rest_users_find(&a->users, name);
    if (!u) {
        rc = -ENOENT;
    } else if (epoch && u->epoch != *epoch) {
        rc = -ESTALE;
    } else {
        snprintf(c.username, sizeof(c.username), "%s", u->name);
        snprintf(c.role, sizeof(c.role), "%s", u->role);
        rest_user_epoch_text(u, c.epoch);
    }
    pthread_rwlock_unlock(&a->lock);
    return rc < 0 ? rc : rest_jwt_sign(a->key, sizeof(a->key), &c, out, out_len);
}

void rest_log_limit_init(struct rest_log_limit *l)
{
    pthread_mutex_init(&l->lock, NULL);
    l->rl = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 10000);
}

void rest_log_limit_destroy(struct rest_log_limit *l)
{
    pthread_mutex_destroy(&l->lock);
}

bool rest_log_limit_pass(struct rest_log_limit *l, char *more, size_t len)
{
    uint64_t missed = 0;
    uint64_t now_us = ofcd_clock_mono_us();

    pthread_mutex_lock(&l->lock);
    bool go = ofcd_ratelimit(&l->rl, now_us, &missed);
    pthread_mutex_unlock(&l->lock);
    more[0] = '\0';
    if (go && missed)
        snprintf(more, len, " (and %llu more not written)", (unsigned long long)missed);
    return go;
}

static void log_login(struct rest_auth *a, const char *what, const char *user, uint32_t addr)
{
    char more[64];

    if (rest_log_limit_pass(&a->log_limit, more, sizeof(more)))
        LOG_WARN("rest", "%s '%.64s' from %u.%u.%u.%u%s", what, user, addr >> 24,
                 addr >> 16 & 255, addr >> 8 & 255, addr & 255, more);
}

/* The guard's refusal as an answer (login: of a login, else of a password
 * being set); true when there was one. */
static bool refused(struct rest_auth *a, enum rest_login_verdict v, bool login, unsigned retry,
                    struct rest_reply *r)
{
    switch (v) {
    case REST_LOGIN_GO:
    case REST_LOGIN_WAIT:
        return false;
    case REST_LOGIN_LOCKED:
        COUNT(a, logins_locked);
        rest_error(r, 429, "too many failed logins from this address: retry in %u s", retry);
        break;
    case REST_LOGIN_FULL:
        COUNT(a, logins_untracked);
        rest_error(r, 429, "too many addresses are failing to log in (rest.login_track_max "
                   "= %u): retry in %u s", a->guard.cfg.track_max, retry);
        break;
    case REST_LOGIN_BUSY:
        COUNT(a, checks_busy);
        if (login)
            rest_error(r, 503, "%u logins from this address are waiting for their password "
                       "check: retry in %u s", REST_LOGIN_LINE_MAX, retry);
        else
            rest_error(r, 503, "rest.login_concurrency = %u password checks are running: "
                       "retry in %u s", a->guard.cfg.concurrency, retry);
        break;
    }
    r->retry_after = retry;
    return true;
}

bool rest_auth_hash_begin(struct rest_auth *a, struct rest_req *q, struct rest_reply *r,
                          struct rest_login_pass *p)
{
    unsigned retry = 1;
    enum rest_login_verdict v = rest_login_guard_begin(&a->guard, rest_client_ipv4(q->conn),
                                                       false, (uint64_t)ofcd_clock_wall_s(), p, &retry);
    if (refused(a, v, false, retry, r))
        return false;
    __atomic_fetch_add(&a->st->checks_running, 1, __ATOMIC_RELAXED);
    return true;
}

static void hand_over(struct rest_auth *a, struct rest_login_pass *list);

void rest_auth_hash_end(struct rest_auth *a, const struct rest_login_pass *p)
{
    __atomic_fetch_sub(&a->st->checks_running, 1, __ATOMIC_RELAXED);
    hand_over(a, rest_login_guard_done(&a->guard, p, true, (uint64_t)ofcd_clock_wall_s()));
}

/* One login: its password check on a rest_kdf thread, or its wait for
 * one in the guard, then its answer on an MHD thread. */
struct login_job {
    struct rest_kdf_job kj;
    struct rest_auth *a;
    struct rest_user u;                 /* a copy: no lock held while it runs */
    bool found;
    char *password;
    char name[REST_JWT_NAME_MAX + 1];   /* as given, for the log */
    uint32_t addr;
    struct rest_login_pass slot;        /* the guard's, while it waits */
    void *token;                        /* rest_defer_ctx's */
    bool ok;
};

static void login_job_free(void *ctx)
{
    struct login_job *j = ctx;

    OPENSSL_cleanse(j->password, strlen(j->password));
    free(j->password);
    OPENSSL_cleanse(&j->u, sizeof(j->u));
    free(j);
}

static void login_check(struct rest_kdf_job *kj, struct rest_scrypt_mem *mem)
{
    struct login_job *j = (struct login_job *)kj;
    struct rest_auth *a = j->a;

    j->ok = rest_user_check(j->found ? &j->u : NULL, j->password, mem) == 0;
    __atomic_fetch_sub(&a->st->checks_running, 1, __ATOMIC_RELAXED);
    struct rest_login_pass *next = rest_login_guard_done(&a->guard, &j->slot, j->ok,
                                                         (uint64_t)ofcd_clock_wall_s());
    if (!j->ok) {
        COUNT(a, logins_failed);
        log_login(a, "failed login as", j->name, j->addr);
    }
    rest_wake(j->token, 0);             /* j now belongs to the answer */
    hand_over(a, next);
}

/* Logins the guard let out of their wait: to a check, or answered. */
static void hand_over(struct rest_auth *a, struct rest_login_pass *list)
{
    while (list) {
        struct rest_login_pass *p = list;
        struct login_job *j = (struct login_job *)((char *)p - offsetof(struct login_job, slot));
        list = p->next;
        if (p->verdict == REST_LOGIN_GO) {
            __atomic_fetch_add(&a->st->checks_running, 1, __ATOMIC_RELAXED);
            rest_kdf_submit(&a->kdf, &j->kj);
        } else {
            rest_wake(j->token, 0);     /* login_answer says why */
        }
    }
}

/* Back on an MHD thread: the guard's refusal, or the token, made from the
 * user as it is now. */
static void login_answer(struct rest_reply *r, int rc, void *ctx)
{
    struct login_job *j = ctx;
    char token[REST_JWT_MAX];

    (void)rc;
    if (refused(j->a, j->slot.verdict, true, j->slot.retry_s, r))
        return;
    /* Made only if the user is still as checked: a password or role
     * changed meanwhile makes the check moot. */
    if (j->ok)
        rc = rest_auth_issue(j->a, j->u.name, &j->u.epoch, (uint64_t)ofcd_clock_wall_s(), token,
                             sizeof(token));
    if (!j->ok || rc == -ENOENT || rc == -ESTALE) {
        rest_error(r, 401, "Incorrect username or password");
        r->www_authenticate = "Basic realm=\"ofcd\"";
    } else if (rc < 0) {
        rest_error(r, 500, "cannot make a token");
    } else {
        COUNT(j->a, logins_ok);
        json_decref(r->json);
        r->status = 200;
        r->json = json_pack("{s:s}", "token", token);
        OPENSSL_cleanse(token, sizeof(token));
    }
}

void rest_auth_login(struct rest_req *q, struct rest_reply *r)
{
    struct rest_auth *a = &q->rs->auth;
    char *pass = NULL;

    refresh_users(a, (uint64_t)ofcd_clock_wall_s());
    pthread_rwlock_rdlock(&a->lock);
    bool have_key = a->have_key;
    pthread_rwlock_unlock(&a->lock);
    if (!have_key) {
        rest_error(r, 404, "no users: rest.auth is off and no token is needed (add one with "
                   "ofcd user add NAME)");
        return;
    }
    if (!MHD_lookup_connection_value(q->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION)) {
        rest_error(r, 400, "Authorization header missing");
        return;
    }
    /* A locked address (a guesser hammering on) is answered here, without
     * the suspension a login that may wait needs. */
    uint32_t addr = rest_client_ipv4(q->conn);
    unsigned retry;
    if (rest_login_guard_locked(&a->guard, addr, (uint64_t)ofcd_clock_wall_s(), &retry)) {
        refused(a, REST_LOGIN_LOCKED, true, retry, r);
        return;
    }
    char *user = MHD_basic_auth_get_username_password(q->conn, &pass);
    struct login_job *j = user ? calloc(1, sizeof(*j)) : NULL;
    if (!user || !j || !(j->password = strdup(pass ? pass : ""))) {
        rest_error(r, user ? 500 : 400, user ? "out of memory"
                                             : "Authorization is not Basic credentials");
        goto out;
    }
    j->kj.run = login_check;
    j->a = a;
    j->addr = addr;
    snprintf(j->name, sizeof(j->name), "%s", user);
    pthread_rwlock_rdlock(&a->lock);
    const struct rest_user *u = rest_users_find(&a->users, user);
    if (u)
        j->u = *u;
    j->found = u != NULL;
    pthread_rwlock_unlock(&a->lock);
    /* Suspended before the guard sees it: once in the guard, a check that
     * ends on another thread may hand it on and wake it at any time. */
    j->token = rest_defer_ctx(q, login_answer, j, login_job_free);
    if (!j->token) {
        rest_error(r, 503, "the REST API is stopping");
        goto out;
    }
    struct login_job *mine = j;
    j = NULL;                           /* the answer's now */
    enum rest_login_verdict v = rest_login_guard_begin(&a->guard, mine->addr, true,
                                                       (uint64_t)ofcd_clock_wall_s(),
                                                       &mine->slot, &mine->slot.retry_s);
    if (v == REST_LOGIN_GO) {
        __atomic_fetch_add(&a->st->checks_running, 1, __ATOMIC_RELAXED);
        rest_kdf_submit(&a->kdf, &mine->kj);
    } else if (v == REST_LOGIN_WAIT) {
        COUNT(a, logins_waited);
    } else {
        if (v == REST_LOGIN_FULL)
            log_login(a, "login refused, every tracked address is failing: user", user,
                      mine->addr);
        mine->slot.verdict = v;
        rest_wake(mine->token, 0);      /* answered at once, from the verdict */
    }
out:
    if (j) {
        if (j->password)
            login_job_free(j);
        else
            free(j);
    }
    if (pass) {
        OPENSSL_cleanse(pass, strlen(pass));
        MHD_free(pass);
    }
    MHD_free(user);
}
