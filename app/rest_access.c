/* rest_access: see rest_access.h. */
#include "rest_access.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "ofcd_log.h"
#include "rest_users.h"

void rest_access_resolve(struct ofcd_config *c)
{
    static const char name[] = "/users.json";
    size_t n = strlen(c->data_dir);

    /* A data_dir too long to have the name appended keeps the key empty:
     * loading it then fails, naming it. */
    if (!c->rest_users_file[0] && n + sizeof(name) <= sizeof(c->rest_users_file)) {
        memcpy(c->rest_users_file, c->data_dir, n);
        memcpy(c->rest_users_file + n, name, sizeof(name));
    }
}

void rest_access_warn(const struct ofcd_config *c)
{
    bool https = c->rest_tls_cert[0] && c->rest_tls_key[0];

    if ((c->rest_ip >> 24) == 127 || !c->rest_allow_insecure)
        return;
    if (!c->rest_auth)
        LOG_WARN("main", "rest.listen = %u.%u.%u.%u:%u is not loopback and rest.auth is off: "
                 "ANYONE WHO REACHES IT CAN CHANGE EVERY SWITCH'S FLOWS "
                 "(rest.allow_insecure = true)", c->rest_ip >> 24, c->rest_ip >> 16 & 255,
                 c->rest_ip >> 8 & 255, c->rest_ip & 255, c->rest_port);
    else if (!https)
        LOG_WARN("main", "rest.listen = %u.%u.%u.%u:%u is not loopback and serves plain HTTP: "
                 "PASSWORDS AND TOKENS CROSS THE NETWORK IN CLEAR (rest.allow_insecure = true)",
                 c->rest_ip >> 24, c->rest_ip >> 16 & 255, c->rest_ip >> 8 & 255,
                 c->rest_ip & 255, c->rest_port);
}

/* One line of input without its newline; echo off on a terminal. */
static int read_secret(const char *prompt, char *buf, size_t n)
{
    struct termios old, quiet;
    bool tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &old) == 0;

    if (tty) {
        fprintf(stderr, "%s", prompt);
        quiet = old;
        quiet.c_lflag &= ~(tcflag_t)ECHO;
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
    }
    char *got = fgets(buf, (int)n, stdin);
    if (tty) {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
        fprintf(stderr, "\n");
    }
    if (!got)
        return -EIO;
    buf[strcspn(buf, "\r\n")] = '\0';
    return tty ? 1 : 0;
}

/* root adding a user for a service that runs as its own user (the
 * package's ofcd): the file is written as the owner of its directory, so
 * the service can read it (it is mode 600). 1: switched, 0: not needed,
 * negative: could not. */
static int as_dir_owner(const char *file, uid_t *owner)
{
    char dir[PATH_MAX];
    struct stat st;

    if (geteuid() != 0 || snprintf(dir, sizeof(dir), "%s", file) >= (int)sizeof(dir) ||
        stat(dirname(dir), &st) != 0 || st.st_uid == 0)
        return 0;
    if (setegid(st.st_gid) != 0)
        return -errno;
    if (seteuid(st.st_uid) != 0) {
        int e = errno;
        return setegid(0) == 0 ? -e : -errno;
    }
    *owner = st.st_uid;
    return 1;
}

int rest_access_user_add(const struct ofcd_config *c, const char *name, const char *role)
{
    char pw[REST_PASSWORD_MAX + 2], again[REST_PASSWORD_MAX + 2];
    int rc;

    if (!rest_user_name_ok(name)) {
        fprintf(stderr, "ofcd: user name '%s': 1..64 of letters, digits, '_' and '-'\n", name);
        return 2;
    }
    if (!rest_user_role_ok(role)) {
        fprintf(stderr, "ofcd: --role '%s': admin or reader\n", role);
        return 2;
    }
    rc = read_secret("Password: ", pw, sizeof(pw));
    if (rc < 0) {
        fprintf(stderr, "ofcd: no password given\n");
        return 1;
    }
    if (rc == 1 && (read_secret("Again: ", again, sizeof(again)) < 0 || strcmp(pw, again))) {
        fprintf(stderr, "ofcd: the passwords differ\n");
        OPENSSL_cleanse(pw, sizeof(pw));
        OPENSSL_cleanse(again, sizeof(again));
        return 1;
    }
    OPENSSL_cleanse(again, sizeof(again));
    size_t len = strlen(pw);
    if (len < REST_PASSWORD_MIN || len > REST_PASSWORD_MAX) {
        fprintf(stderr, "ofcd: a password has %d..%d characters\n", REST_PASSWORD_MIN,
                REST_PASSWORD_MAX);
        OPENSSL_cleanse(pw, sizeof(pw));
        return 2;
    }
    uid_t owner = 0;
    int as = as_dir_owner(c->rest_users_file, &owner);
    rc = as < 0 ? as : rest_users_put(c->rest_users_file, name, pw, role);
    OPENSSL_cleanse(pw, sizeof(pw));
    if (as == 1 && (seteuid(0) != 0 || setegid(0) != 0))
        rc = rc < 0 ? rc : -errno;
    if (as == 1)
        printf("written as uid %u, the owner of the file's directory (the service's user)\n",
               (unsigned)owner);
    if (rc == -EWOULDBLOCK) {
        fprintf(stderr, "ofcd: %s is being written by another (its .lock held for %d ms); "
                "nothing changed, try again\n", c->rest_users_file, REST_USERS_LOCK_WAIT_MS);
        return 1;
    }
    if (rc < 0) {
        fprintf(stderr, "ofcd: cannot write %s: %s\n", c->rest_users_file, strerror(-rc));
        return 1;
    }
    printf("user %s (%s) saved in %s; a running ofcd reads it within a second\n", name, role,
           c->rest_users_file);
    return 0;
}
