/*
 * rest_users_api: Kytos-ng's user routes over the running users set.
 *
 *   GET    .../core/auth/users          {"users": [USER, ...]}
 *   GET    .../core/auth/users/NAME     USER; 404
 *          USER = {"username", "email", "state", "inserted_at", "updated_at",
 *                  "deleted_at", "role"} as Kytos-ng's (times ISO 8601 UTC)
 *   POST   .../core/auth/users          {"username", "email", "password"[, "role"]}
 *                                       201 "User successfully created"; 409; 400
 *   PATCH  .../core/auth/users/NAME     any of username, email, password, role; 404; 409
 *   DELETE .../core/auth/users/NAME     200; 404
 *
 * Passwords never leave ofcd. Every change is written to rest.users_file
 * before it is answered (the set in memory changes only if the file did),
 * under the file's lock and on its latest content (rest_auth_users_lock);
 * a new role defaults to admin, as every Kytos-ng user may change anything.
 * With rest.auth these are admin routes for changes, as any other.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>

#include "ofcd_clock.h"
#include "rest_auth.h"
#include "rest_priv.h"


/* As Python's datetime.isoformat() of a naive UTC time, which is how
 * Kytos-ng shows its users' times; null when not known. */
static json_t *iso_time(int64_t s)
{
    char buf[32];
    struct tm tm;
    time_t t = (time_t)s;

    if (!s || !gmtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm))
        return json_null();
    return json_string(buf);
}

/* Kytos-ng's user document without its password (projection_nopw), and
 * ofcd's role. A user ofcd knows is active: DELETE removes it outright. */
static json_t *user_json(const struct rest_user *u)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:n}", "username", u->name, "email",
                     u->email, "role", u->role, "state", "active", "inserted_at",
                     iso_time(u->inserted_s), "updated_at", iso_time(u->updated_s),
                     "deleted_at");
}

static json_t *body_obj(struct rest_req *q, struct rest_reply *r)
{
    json_error_t je;
    json_t *j = q->body ? json_loadb(q->body, q->body_len, JSON_REJECT_DUPLICATES, &je) : NULL;

    if (!json_is_object(j)) {
        rest_error(r, 400, "body must be a JSON object (username, email, password)");
        json_decref(j);
        return NULL;
    }
    return j;
}

static void answer_text(struct rest_reply *r, unsigned status, const char *fmt, const char *a)
{
    char buf[256];

    snprintf(buf, sizeof(buf), fmt, a);
    json_decref(r->json);
    r->status = status;
    r->json = json_string(buf);
}

void rest_users_list(struct rest_req *q, struct rest_reply *r)
{
    struct rest_auth *a = &q->rs->auth;
    json_t *arr = json_array();

    pthread_rwlock_rdlock(&a->lock);
    for (size_t i = 0; arr && i < a->users.n; i++)
        json_array_append_new(arr, user_json(&a->users.u[i]));
    pthread_rwlock_unlock(&a->lock);
    json_decref(r->json);
    r->json = json_pack("{s:o}", "users", arr);
}

void rest_users_get(struct rest_req *q, struct rest_reply *r)
{
    struct rest_auth *a = &q->rs->auth;

    pthread_rwlock_rdlock(&a->lock);
    const struct rest_user *u = rest_users_find(&a->users, q->arg);
    json_t *j = u ? user_json(u) : NULL;
    pthread_rwlock_unlock(&a->lock);
    if (!j) {
        rest_error(r, 404, "User %.64s not found", q->arg);
        return;
    }
    json_decref(r->json);
    r->json = j;
}

/* The new password's salt and hash, if body sets one, into *pw, made
 * before any lock is taken (scrypt takes a REST thread ~0.1 s) and within
 * the bound on checks at once: 0 (also when there is none), or -1 with
 * the 400/503/500 in r. */
static int hash_password(struct rest_req *q, const json_t *body, struct rest_user *pw,
                         struct rest_reply *r)
{
    json_t *v = json_object_get(body, "password");
    const char *s = json_string_value(v);
    struct rest_login_pass slot;

    if (!v)
        return 0;
    if (!rest_password_ok(s)) {
        rest_error(r, 400, "password: %d..%d characters", REST_PASSWORD_MIN, REST_PASSWORD_MAX);
        return -1;
    }
    if (!rest_auth_hash_begin(&q->rs->auth, q, r, &slot))
        return -1;
    int rc = rest_user_set_password(pw, s);
    rest_auth_hash_end(&q->rs->auth, &slot);
    if (rc < 0) {
        rest_error(r, 500, "cannot hash the password");
        return -1;
    }
    return 0;
}

/* Check and apply the fields of body to u (a copy), the password's hash
 * from pw (hash_password); 0, or -EINVAL with the 400 set. creating:
 * username, email and password are required. */
static int apply_fields(const json_t *body, struct rest_user *u, const struct rest_user *pw,
                        bool creating, struct rest_reply *r)
{
    const char *key;
    json_t *v;
    bool has_name = false, has_email = false, has_pw = false;
    bool renew = false;                 /* password or role changed: a new epoch */

    json_object_foreach((json_t *)body, key, v) {
        const char *s = json_string_value(v);
        if (strcmp(key, "username") == 0) {
            if (!rest_user_name_ok(s)) {
                rest_error(r, 400, "username: 1..64 of letters, digits, '_' and '-'");
                return -EINVAL;
            }
            snprintf(u->name, sizeof(u->name), "%s", s);
            has_name = true;
        } else if (strcmp(key, "email") == 0) {
            if (!rest_user_email_ok(s)) {
                rest_error(r, 400, "email: not an email address");
                return -EINVAL;
            }
            snprintf(u->email, sizeof(u->email), "%s", s);
            has_email = true;
        } else if (strcmp(key, "password") == 0) {
            memcpy(u->salt, pw->salt, sizeof(u->salt));
            memcpy(u->hash, pw->hash, sizeof(u->hash));
            u->log2_n = pw->log2_n;
            u->r = pw->r;
            u->p = pw->p;
            has_pw = renew = true;
        } else if (strcmp(key, "role") == 0) {
            if (!rest_user_role_ok(s)) {
                rest_error(r, 400, "role: admin or reader");
                return -EINVAL;
            }
            renew |= strcmp(u->role, s) != 0;
            snprintf(u->role, sizeof(u->role), "%s", s);
        } else if (creating) {
            rest_error(r, 400, "unknown field '%s' (expected username, email, password, role)",
                       key);
            return -EINVAL;
        }
        /* PATCH ignores other fields, as Kytos-ng does. */
    }
    if (creating && (!has_name || !has_email || !has_pw)) {
        rest_error(r, 400, "%s: required", !has_name ? "username" : !has_email ? "email"
                                                                            : "password");
        return -EINVAL;
    }
    if (renew && rest_user_new_epoch(u) < 0) {
        rest_error(r, 500, "cannot draw random bytes");
        return -EIO;
    }
    return 0;
}

/* With the set's lock held for writing: the users file's lock, the set
 * brought up to date with the file; -1 with the 503/500 set. */
static int lock_file(struct rest_server *rs, struct rest_reply *r)
{
    int fd = rest_auth_users_lock(&rs->auth);

    if (fd == -EWOULDBLOCK) {
        rest_error(r, 503, "%s is locked by another writer (ofcd user add?); nothing changed",
                   rs->cfg.users_file);
        r->retry_after = 1;
    } else if (fd < 0) {
        rest_error(r, 500, "%s cannot be locked or read again (%s); nothing changed",
                   rs->cfg.users_file, strerror(-fd));
    }
    return fd < 0 ? -1 : fd;
}

/* Write the set; on failure the 500 is set and the caller undoes its change. */
static int save_or_fail(struct rest_server *rs, struct rest_reply *r)
{
    int rc = rest_users_save(rs->cfg.users_file, &rs->auth.users);
    if (rc == 0)
        rest_auth_users_saved(&rs->auth);
    if (rc < 0)
        rest_error(r, 500, "cannot write %s: %s; nothing changed", rs->cfg.users_file,
                   strerror(-rc));
    return rc;
}

void rest_users_create(struct rest_req *q, struct rest_reply *r)
{
    struct rest_auth *a = &q->rs->auth;
    struct rest_user u = {.role = "admin"}, pw = {0};
    json_t *body = body_obj(q, r);

    if (!body)
        return;
    int rc = hash_password(q, body, &pw, r);
    if (rc == 0)
        rc = apply_fields(body, &u, &pw, true, r);
    json_decref(body);
    OPENSSL_cleanse(&pw, sizeof(pw));
    if (rc < 0)
        goto out;
    u.inserted_s = u.updated_s = ofcd_clock_wall_s();
    pthread_rwlock_wrlock(&a->lock);
    int fd = lock_file(q->rs, r);
    if (fd < 0) {
        /* the answer is set */
    } else if (rest_users_find(&a->users, u.name)) {
        rest_error(r, 409, "%s already exists.", u.name);
    } else if (rest_auth_need_key(a, q->rs->cfg.data_dir) < 0) {
        rest_error(r, 500, "cannot make the token signing key");
    } else if ((rc = rest_users_add(&a->users, &u)) < 0) {
        rest_error(r, rc == -ENOSPC ? 507 : 500, "cannot add a user: %s", strerror(-rc));
    } else if (save_or_fail(q->rs, r) < 0) {
        rest_users_remove(&a->users, &a->users.u[a->users.n - 1]);
    } else {
        answer_text(r, 201, "User successfully created%s", "");
    }
    rest_users_unlock(fd);
    pthread_rwlock_unlock(&a->lock);
out:
    OPENSSL_cleanse(&u, sizeof(u));
}

void rest_users_patch(struct rest_req *q, struct rest_reply *r)
{
    struct rest_auth *a = &q->rs->auth;
    json_t *body = body_obj(q, r);
    struct rest_user pw = {0};

    if (!body)
        return;
    if (hash_password(q, body, &pw, r) < 0) {
        json_decref(body);
        return;
    }
    pthread_rwlock_wrlock(&a->lock);
    int fd = lock_file(q->rs, r);
    struct rest_user *u = fd < 0 ? NULL : rest_users_find(&a->users, q->arg);
    if (fd < 0) {
        goto out;
    } else if (!u) {
        rest_error(r, 404, "User %.64s not found", q->arg);
        goto out;
    }
    struct rest_user nu = *u, old = *u;
    if (apply_fields(body, &nu, &pw, false, r) < 0)
        goto out;
    nu.updated_s = ofcd_clock_wall_s();
    if (strcmp(nu.name, u->name) != 0 && rest_users_find(&a->users, nu.name)) {
        rest_error(r, 409, "%s already exists.", nu.name);
        goto out;
    }
    *u = nu;
    if (save_or_fail(q->rs, r) < 0)
        *u = old;
    else
        answer_text(r, 200, "User successfully updated%s", "");
    OPENSSL_cleanse(&nu, sizeof(nu));
    OPENSSL_cleanse(&old, sizeof(old));
out:
    rest_users_unlock(fd);
    pthread_rwlock_unlock(&a->lock);
    json_decref(body);
    OPENSSL_cleanse(&pw, sizeof(pw));
}

void rest_users_delete(struct rest_req *q, struct rest_reply *r)
{
    struct rest_auth *a = &q->rs->auth;

    pthread_rwlock_wrlock(&a->lock);
    int fd = lock_file(q->rs, r);
    struct rest_user *u = fd < 0 ? NULL : rest_users_find(&a->users, q->arg);
    if (fd < 0) {
        /* the answer is set */
    } else if (!u) {
        rest_error(r, 404, "User %.64s not found", q->arg);
    } else {
        struct rest_user old = *u;
        size_t at = (size_t)(u - a->users.u);
        rest_users_remove(&a->users, u);
        if (save_or_fail(q->rs, r) < 0) {
            /* Put it back where it was. */
            if (rest_users_add(&a->users, &old) == 0) {
                memmove(&a->users.u[at + 1], &a->users.u[at],
                        (a->users.n - 1 - at) * sizeof(old));
                a->users.u[at] = old;
            }
        } else {
            answer_text(r, 200, "User %s deleted successfully", old.name);
        }
        OPENSSL_cleanse(&old, sizeof(old));
    }
    rest_users_unlock(fd);
    pthread_rwlock_unlock(&a->lock);
}
