/*
 * rest_users: who may use the REST API when rest.auth is on. A small JSON
 * file (rest.users_file, default APP_DATA_DIR/users.json, mode 600) holds
 * each user's name, role and scrypt hash of the password (RFC 7914,
 * rest_scrypt.h: memory-hard, N = 2^15, r = 8, p = 1, 16-byte random salt,
 * the same KDF Kytos-ng uses). Read once at start (and again when it
 * changes under a running ofcd). Every writer (`ofcd user add`, the REST
 * users routes) holds an flock on PATH.lock from its read to its write, so
 * no one's change is lost, and writes through a temporary file of its own
 * (mkostemp beside it: O_EXCL, mode 600), synced, renamed over it.
 *
 * Roles: "admin" may do everything; "reader" only GET (and /metrics).
 *
 * Each user has an epoch: 64 random bits made anew whenever its password or
 * role is set (and so when it is created, or deleted and made again). A
 * token carries the epoch it was issued under (rest_jwt.h); one whose epoch
 * is not the user's now is refused, so a change ends the tokens issued
 * before it. Files written before epochs existed get one derived from the
 * salt (it changes with the password).
 */
#ifndef OFCD_REST_USERS_H
#define OFCD_REST_USERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rest_jwt.h"
#include "rest_scrypt.h"

#define REST_USERS_MAX 1024
#define REST_PASSWORD_MIN 8             /* as Kytos-ng asks */
#define REST_PASSWORD_MAX 64
#define REST_EMAIL_MAX 254

struct rest_user {
    char name[REST_JWT_NAME_MAX + 1];
    char role[16];
    char email[REST_EMAIL_MAX + 1];     /* "" when none was given */
    uint8_t salt[16];
    uint8_t hash[32];
    uint32_t log2_n, r, p;
    uint64_t epoch;                     /* tokens issued under another are refused */
    int64_t inserted_s, updated_s;      /* Unix seconds, 0 = not known (older files) */
};

struct rest_users {
    struct rest_user *u;
    size_t n;
};

/* A name Kytos-ng accepts: 1..64 of [A-Za-z0-9_-]. */
bool rest_user_name_ok(const char *name);
bool rest_user_role_ok(const char *role);
/* name@domain.tld, no blanks or quotes, at most REST_EMAIL_MAX. */
bool rest_user_email_ok(const char *email);
/* REST_PASSWORD_MIN..REST_PASSWORD_MAX characters. */
bool rest_password_ok(const char *password);

/* Load path into *us (empty when the file does not exist: -ENOENT, *us
 * valid and empty). 0, -ENOENT, -EINVAL (malformed; logged with the
 * entry), -EPERM (readable by others), -errno. */
int rest_users_load(const char *path, struct rest_users *us);
void rest_users_free(struct rest_users *us);

/* The scrypt parameters of a password set now (a user's own are kept with
 * its hash), and the memory a check of them works in. */
#define REST_USERS_KDF_LOG2_N 15u
#define REST_USERS_KDF_R 8u
#define REST_USERS_KDF_P 1u
#define REST_USERS_KDF_BYTES                                                                    \
    REST_SCRYPT_BYTES(1u << REST_USERS_KDF_LOG2_N, REST_USERS_KDF_R, REST_USERS_KDF_P)

/* 0 when password is u's; -EACCES otherwise, or when u is NULL (the same
 * time spent either way: a name that does not exist is not told apart).
 * mem: the caller's scrypt memory, kept between checks (rest_scrypt.h), or
 * NULL. */
int rest_user_check(const struct rest_user *u, const char *password, struct rest_scrypt_mem *mem);

/* The user's role when name and password match: 0; -EACCES otherwise (the
 * same time spent whether or not name exists). */
int rest_users_check(const struct rest_users *us, const char *name, const char *password,
                     const char **role);

/* The users file's lock: a descriptor of PATH.lock holding an exclusive
 * flock, waited for up to REST_USERS_LOCK_WAIT_MS; or -EWOULDBLOCK
 * (another holds it), -errno. rest_users_unlock(fd) lets go. */
#define REST_USERS_LOCK_WAIT_MS 2000
int rest_users_lock(const char *path);
void rest_users_unlock(int fd);

/* Add name (or replace its password and role) in the file at path, under
 * its lock. 0, -EINVAL (name, role or password not acceptable),
 * -EWOULDBLOCK (locked by another too long), -errno. */
int rest_users_put(const char *path, const char *name, const char *password, const char *role);

/* The running set, for the users routes (the caller holds its lock). */
struct rest_user *rest_users_find(const struct rest_users *us, const char *name);
/* A new salt and hash for password, and a new epoch: 0, -EINVAL (length),
 * -EIO. */
int rest_user_set_password(struct rest_user *u, const char *password);
/* A new epoch (the role changed): 0 or -EIO. */
int rest_user_new_epoch(struct rest_user *u);
/* u's epoch as a token carries it: 16 hex digits. */
void rest_user_epoch_text(const struct rest_user *u, char out[17]);
/* Append a copy of u: 0, -ENOSPC (REST_USERS_MAX), -ENOMEM. */
int rest_users_add(struct rest_users *us, const struct rest_user *u);
void rest_users_remove(struct rest_users *us, struct rest_user *u);
/* Write us to path as a whole (a new file, synced, renamed over); the
 * caller holds the lock (rest_users_lock). */
int rest_users_save(const char *path, const struct rest_users *us);

#endif
