/* rest_users: see rest_users.h. */
#include "rest_users.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "ofcd_clock.h"
#include "ofcd_hex.h"
#include "ofcd_log.h"
#include "ofcd_sync_dir.h"

bool rest_user_name_ok(const char *name)
{
    size_t n = name ? strlen(name) : 0;

    if (n < 1 || n > REST_JWT_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return false;
    }
    return true;
}

bool rest_user_role_ok(const char *role)
{
    return role && (strcmp(role, "admin") == 0 || strcmp(role, "reader") == 0);
}

static int derive(const char *password, const uint8_t salt[16], uint32_t log2_n, uint32_t r,
                  uint32_t p, uint8_t out[32], struct rest_scrypt_mem *mem)
{
    if (log2_n < 10 || log2_n > 20 || r < 1 || r > 32 || p < 1 || p > 16)
        return -EINVAL;
    return rest_scrypt(mem, password, strlen(password), salt, 16, (uint64_t)1 << log2_n, r, p,
                       out, 32);
}

static bool hex_get(const char *s, uint8_t *b, size_t n)
{
    return s && ofcd_hex_decode(s, strlen(s), b, n) == 0;
}

void rest_users_free(struct rest_users *us)
{
    if (!us)
        return;
    if (us->u)
        OPENSSL_cleanse(us->u, us->n * sizeof(*us->u));
    free(us->u);
    us->u = NULL;
    us->n = 0;
}

int rest_users_load(const char *path, struct rest_users *us)
{
    struct stat st;
    json_error_t je;

    us->u = NULL;
    us->n = 0;
    if (stat(path, &st) != 0)
        return -errno;
    if (st.st_mode & 077) {
        LOG_ERR("rest", "%s is readable by others (mode %03o): chmod 600 it", path,
                (unsigned)(st.st_mode & 0777));
        return -EPERM;
    }
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    json_t *arr = j ? json_object_get(j, "users") : NULL;
    if (!json_is_array(arr) || json_array_size(arr) > REST_USERS_MAX) {
        LOG_ERR("rest", "%s: not a users file (%s)", path, j ? "no \"users\" list" : je.text);
        json_decref(j);
        return -EINVAL;
    }
    us->u = calloc(json_array_size(arr) + 1, sizeof(*us->u));
    if (!us->u) {
        json_decref(j);
        return -ENOMEM;
    }
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        struct rest_user *u = &us->u[us->n];
        const char *name = json_string_value(json_object_get(e, "username"));
        const char *role = json_string_value(json_object_get(e, "role"));
        if (!rest_user_name_ok(name) || !rest_user_role_ok(role) ||
            !hex_get(json_string_value(json_object_get(e, "salt")), u->salt, 16) ||
            !hex_get(json_string_value(json_object_get(e, "hash")), u->hash, 32) ||
            !json_is_integer(json_object_get(e, "log2_n"))) {
            LOG_ERR("rest", "%s: entry %zu is malformed", path, i);
            json_decref(j);
            rest_users_free(us);
            return -EINVAL;
        }
        snprintf(u->name, sizeof(u->name), "%s", name);
        snprintf(u->role, sizeof(u->role), "%s", role);
        const char *email = json_string_value(json_object_get(e, "email"));
        if (email && rest_user_email_ok(email))
            snprintf(u->email, sizeof(u->email), "%s", email);
        u->inserted_s = (int64_t)json_integer_value(json_object_get(e, "inserted_at_s"));
        u->updated_s = (int64_t)json_integer_value(json_object_get(e, "updated_at_s"));
        u->log2_n = (uint32_t)json_integer_value(json_object_get(e, "log2_n"));
        u->r = (uint32_t)json_integer_value(json_object_get(e, "r"));
        u->p = (uint32_t)json_integer_value(json_object_get(e, "p"));
        uint8_t ep[8];
        json_t *epj = json_object_get(e, "epoch");
        if (!epj) {
            memcpy(ep, u->salt, sizeof(ep));    /* older files: the password's */
        } else if (!hex_get(json_string_value(epj), ep, sizeof(ep))) {
            LOG_ERR("rest", "%s: entry %zu's epoch is not 16 hex digits", path, i);
            json_decref(j);
            rest_users_free(us);
            return -EINVAL;
        }
        for (size_t k = 0; k < sizeof(ep); k++)
            u->epoch = u->epoch << 8 | ep[k];
        us->n++;
    }
    json_decref(j);
    return 0;
}

int rest_user_check(const struct rest_user *u, const char *password, struct rest_scrypt_mem *mem)
{
    static const uint8_t dummy_salt[16];
    uint8_t h[32];

    /* Spend the same time for a name that does not exist. */
    int rc = derive(password ? password : "", u ? u->salt : dummy_salt,
                    u ? u->log2_n : REST_USERS_KDF_LOG2_N, u ? u->r : REST_USERS_KDF_R,
                    u ? u->p : REST_USERS_KDF_P, h, mem);
    bool ok = rc == 0 && u && CRYPTO_memcmp(h, u->hash, sizeof(h)) == 0;
    OPENSSL_cleanse(h, sizeof(h));
    return ok ? 0 : -EACCES;
}

int rest_users_check(const struct rest_users *us, const char *name, const char *password,
                     const char **role)
{
    const struct rest_user *hit = rest_users_find(us, name);

    if (rest_user_check(hit, password, NULL) < 0)
        return -EACCES;
    *role = hit->role;
    return 0;
}

int rest_users_lock(const char *path)
{
    char lock[4096];

    if (snprintf(lock, sizeof(lock), "%s.lock", path) >= (int)sizeof(lock))
        return -ENAMETOOLONG;
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -errno;
    /* Polled, not blocking: a holder that never lets go costs a bounded
     * wait, not a REST thread (and the users set's lock) for good. */
    for (unsigned waited = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; waited += 10) {
        int e = errno;
        if (e != EWOULDBLOCK && e != EINTR) {
            close(fd);
            return -e;
        }
        if (waited >= REST_USERS_LOCK_WAIT_MS) {
            close(fd);
            return -EWOULDBLOCK;
        }
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    return fd;
}

void rest_users_unlock(int fd)
{
    if (fd >= 0)
        close(fd);                      /* the flock goes with the last descriptor */
}

/* text into a temporary file of our own beside path (mkostemp: O_EXCL,
 * mode 600), synced, renamed over path, the directory synced. */
static int write_file(const char *path, const char *text)
{
    char tmp[4096];
    size_t n = strlen(text);

    if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
        return -ENAMETOOLONG;
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = 0;
    if (fchmod(fd, 0600) != 0 || write(fd, text, n) != (ssize_t)n || fsync(fd) != 0)
        rc = -errno;
    close(fd);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -errno;
    if (rc < 0) {
        unlink(tmp);
        return rc;
    }
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", path);
    (void)ofcd_sync_dir(dirname(dir));
    return 0;
}

bool rest_user_email_ok(const char *email)
{
    size_t n = email ? strlen(email) : 0;
    const char *at = n ? strchr(email, '@') : NULL;

    if (n < 3 || n > REST_EMAIL_MAX || !at || at == email || strchr(at + 1, '@') ||
        !strchr(at + 1, '.') || at[1] == '.' || email[n - 1] == '.')
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)email[i] <= ' ' || email[i] == '"' || email[i] == '\\')
            return false;
    return true;
}

bool rest_password_ok(const char *password)
{
    size_t n = password ? strlen(password) : 0;
    return n >= REST_PASSWORD_MIN && n <= REST_PASSWORD_MAX;
}

int rest_user_new_epoch(struct rest_user *u)
{
    uint8_t ep[8];

    if (RAND_bytes(ep, sizeof(ep)) != 1)
        return -EIO;
    u->epoch = 0;
    for (size_t k = 0; k < sizeof(ep); k++)
        u->epoch = u->epoch << 8 | ep[k];
    return 0;
}

void rest_user_epoch_text(const struct rest_user *u, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)u->epoch);
}

int rest_user_set_password(struct rest_user *u, const char *password)
{
    if (!rest_password_ok(password))
        return -EINVAL;
    u->log2_n = REST_USERS_KDF_LOG2_N;
    u->r = REST_USERS_KDF_R;
    u->p = REST_USERS_KDF_P;
    if (RAND_bytes(u->salt, sizeof(u->salt)) != 1 || rest_user_new_epoch(u) < 0)
        return -EIO;
    return derive(password, u->salt, u->log2_n, u->r, u->p, u->hash, NULL) < 0 ? -EIO : 0;
}

struct rest_user *rest_users_find(const struct rest_users *us, const char *name)
{
    for (size_t i = 0; us && name && i < us->n; i++)
        if (strcmp(us->u[i].name, name) == 0)
            return &us->u[i];
    return NULL;
}

int rest_users_save(const char *path, const struct rest_users *us)
{
    char salt[33], hash[65];
    json_t *arr = json_array();

    for (size_t i = 0; arr && i < us->n; i++) {
        const struct rest_user *u = &us->u[i];
        ofcd_hex_encode(salt, u->salt, 16);
        ofcd_hex_encode(hash, u->hash, 32);
        char epoch[17];
        rest_user_epoch_text(u, epoch);
        json_t *e = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:s}", "username",
                              u->name, "role", u->role, "kdf", "scrypt", "salt", salt, "hash",
                              hash, "log2_n", (int)u->log2_n, "r", (int)u->r, "p", (int)u->p,
                              "epoch", epoch);
        if (e && u->email[0])
            json_object_set_new(e, "email", json_string(u->email));
        if (e && u->inserted_s)
            json_object_set_new(e, "inserted_at_s", json_integer(u->inserted_s));
        if (e && u->updated_s)
            json_object_set_new(e, "updated_at_s", json_integer(u->updated_s));
        json_array_append_new(arr, e);
    }
    json_t *doc = arr ? json_pack("{s:o}", "users", arr) : NULL;
    char *text = doc ? json_dumps(doc, JSON_INDENT(1) | JSON_SORT_KEYS) : NULL;
    json_decref(doc);
    if (!text)
        return -ENOMEM;
    int rc = write_file(path, text);
    OPENSSL_cleanse(text, strlen(text));
    free(text);
    return rc;
}

int rest_users_add(struct rest_users *us, const struct rest_user *u)
{
    if (us->n >= REST_USERS_MAX)
        return -ENOSPC;
    struct rest_user *nu = realloc(us->u, (us->n + 1) * sizeof(*nu));
    if (!nu)
        return -ENOMEM;
    us->u = nu;
    us->u[us->n++] = *u;
    return 0;
}

void rest_users_remove(struct rest_users *us, struct rest_user *u)
{
    size_t i = (size_t)(u - us->u);

    OPENSSL_cleanse(u, sizeof(*u));
    memmove(u, u + 1, (us->n - i - 1) * sizeof(*u));
    us->n--;
}

int rest_users_put(const char *path, const char *name, const char *password, const char *role)
{
    struct rest_users us;
    struct rest_user pw = {0};

    if (!rest_user_name_ok(name) || !rest_user_role_ok(role) || !rest_password_ok(password))
        return -EINVAL;
    /* The hash first: the lock is held for the file's read and write only. */
    int rc = rest_user_set_password(&pw, password);
    int fd = rc < 0 ? rc : rest_users_lock(path);
    if (fd < 0) {
        OPENSSL_cleanse(&pw, sizeof(pw));
        return fd;
    }
    rc = rest_users_load(path, &us);
    if (rc == 0 || rc == -ENOENT) {
        struct rest_user *old = rest_users_find(&us, name);
        struct rest_user nu = old ? *old : (struct rest_user){0};   /* keeps its email */
        snprintf(nu.name, sizeof(nu.name), "%s", name);
        snprintf(nu.role, sizeof(nu.role), "%s", role);
        memcpy(nu.salt, pw.salt, sizeof(nu.salt));
        memcpy(nu.hash, pw.hash, sizeof(nu.hash));
        nu.log2_n = pw.log2_n;
        nu.r = pw.r;
        nu.p = pw.p;
        nu.epoch = pw.epoch;
        nu.updated_s = ofcd_clock_wall_s();
        if (!old)
            nu.inserted_s = nu.updated_s;
        rc = old ? (*old = nu, 0) : rest_users_add(&us, &nu);
        if (rc == 0)
            rc = rest_users_save(path, &us);
        OPENSSL_cleanse(&nu, sizeof(nu));
        rest_users_free(&us);
    }
    rest_users_unlock(fd);
    OPENSSL_cleanse(&pw, sizeof(pw));
    return rc;
}
