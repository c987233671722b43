/* rest_jwt and rest_users: tokens that verify only as issued and until they
 * expire (time passed in), and a users file whose passwords check only as
 * set, written so that a reader never sees half of it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "rest.h"
#include "rest_auth.h"
#include "rest_jwt.h"
#include "rest_login_guard.h"
#include "rest_priv.h"
#include "rest_static_tokens.h"
#include "rest_users.h"

static const uint8_t key[32] = "0123456789abcdef0123456789abcdef";

static void sign_ok(const struct rest_jwt_claims *c, char *tok)
{
    assert_int_equal(rest_jwt_sign(key, sizeof(key), c, tok, REST_JWT_MAX), 0);
}

static void test_jwt_roundtrip_and_expiry(void **state)
{
    struct rest_jwt_claims c = {.username = "alice", .role = "admin",
                                .epoch = "0123456789abcdef", .exp_s = 1000}, got;
    char tok[REST_JWT_MAX];

    (void)state;
    sign_ok(&c, tok);
    assert_int_equal(rest_jwt_verify(key, sizeof(key), tok, 999, &got), 0);
    assert_string_equal(got.username, "alice");
    assert_string_equal(got.role, "admin");
    assert_string_equal(got.epoch, "0123456789abcdef");
    assert_true(got.exp_s == 1000);
    /* Expired at exp itself and after. */
    assert_int_equal(rest_jwt_verify(key, sizeof(key), tok, 1000, &got), -ETIMEDOUT);
    assert_int_equal(rest_jwt_verify(key, sizeof(key), tok, 5000, &got), -ETIMEDOUT);
    /* Another key: not ours. */
    uint8_t other[32];
    memcpy(other, key, sizeof(other));
    other[0] ^= 1;
    assert_int_equal(rest_jwt_verify(other, sizeof(other), tok, 1, &got), -EACCES);
}

static void test_jwt_tampering(void **state)
{
    struct rest_jwt_claims c = {.username = "bob", .role = "reader", .exp_s = 1u << 30}, got;
    char tok[REST_JWT_MAX], bad[REST_JWT_MAX];

    (void)state;
    sign_ok(&c, tok);
    /* Any byte of the payload or signature changed: refused. */
    char *d1 = strchr(tok, '.'), *d2 = strchr(d1 + 1, '.');
    for (char *p = d1 + 1; *p; p++) {
        if (p == d2)
            continue;
        strcpy(bad, tok);
        bad[p - tok] = bad[p - tok] == 'A' ? 'B' : 'A';
        int rc = rest_jwt_verify(key, sizeof(key), bad, 1, &got);
        if (rc == 0)
            fail_msg("a token changed at %td verified", p - tok);
    }
    /* A role raised in the payload, re-encoded, old signature: refused. */
    const char *raised = "eyJleHAiOjEwNzM3NDE4MjQsImlzcyI6Im9mY2QiLCJyb2xlIjoiYWRtaW4iLCJ1"
                         "c2VybmFtZSI6ImJvYiJ9";
    snprintf(bad, sizeof(bad), "%.*s.%s%s", (int)(d1 - tok), tok, raised, d2);
    assert_int_equal(rest_jwt_verify(key, sizeof(key), bad, 1, &got), -EACCES);
    /* alg none, with no signature or an empty one: not a token of ours. */
    const char *none_hdr = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0"; /* {"alg":"none","typ":"JWT"} */
    snprintf(bad, sizeof(bad), "%s%.*s.", none_hdr, (int)(d2 - d1), d1);
    assert_int_equal(rest_jwt_verify(key, sizeof(key), bad, 1, &got), -EINVAL);
    /* Shapes. */
    assert_int_equal(rest_jwt_verify(key, sizeof(key), "", 1, &got), -EINVAL);
    assert_int_equal(rest_jwt_verify(key, sizeof(key), "a.b", 1, &got), -EINVAL);
    assert_int_equal(rest_jwt_verify(key, sizeof(key), "a.b.c.d", 1, &got), -EINVAL);
    assert_int_equal(rest_jwt_verify(key, sizeof(key), "!!.!!.!!", 1, &got), -EINVAL);
    memset(bad, 'A', sizeof(bad) - 1);
    bad[sizeof(bad) - 1] = '\0';
    assert_int_equal(rest_jwt_verify(key, sizeof(key), bad, 1, &got), -EINVAL);
    /* Claims a signer refuses. */
    struct rest_jwt_claims empty = {.role = "admin", .exp_s = 1};
    assert_int_equal(rest_jwt_sign(key, sizeof(key), &empty, tok, sizeof(tok)), -EINVAL);
    assert_int_equal(rest_jwt_sign(key, 8, &c, tok, sizeof(tok)), -EINVAL);
    assert_int_equal(rest_jwt_sign(key, sizeof(key), &c, tok, 20), -ENOSPC);
}

static void test_users_file(void **state)
{
    char dir[] = "/tmp/ofcd-test-users.XXXXXX", path[128];
    struct rest_users us;
    const char *role = NULL;
    struct stat st;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/users.json", dir);
    assert_int_equal(rest_users_load(path, &us), -ENOENT);
    assert_int_equal(us.n, 0);
    /* What Kytos-ng refuses, refused. */
    assert_int_equal(rest_users_put(path, "bad name", "password1", "admin"), -EINVAL);
    assert_int_equal(rest_users_put(path, "carol", "short", "admin"), -EINVAL);
    assert_int_equal(rest_users_put(path, "carol", "password1", "root"), -EINVAL);
    assert_int_equal(rest_users_put(path, "carol", "password1", "admin"), 0);
    assert_int_equal(rest_users_put(path, "dave", "password2", "reader"), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(rest_users_load(path, &us), 0);
    assert_int_equal(us.n, 2);
    assert_int_equal(rest_users_check(&us, "carol", "password1", &role), 0);
    assert_string_equal(role, "admin");
    assert_int_equal(rest_users_check(&us, "dave", "password2", &role), 0);
    assert_string_equal(role, "reader");
    assert_int_equal(rest_users_check(&us, "carol", "password2", &role), -EACCES);
    assert_int_equal(rest_users_check(&us, "nobody", "password1", &role), -EACCES);
    assert_int_equal(rest_users_check(&us, "carol", "", &role), -EACCES);
    rest_users_free(&us);
    /* Replacing keeps one entry, with the new password and role. */
    assert_int_equal(rest_users_put(path, "carol", "password3", "reader"), 0);
    assert_int_equal(rest_users_load(path, &us), 0);
    assert_int_equal(us.n, 2);
    assert_int_equal(rest_users_check(&us, "carol", "password1", &role), -EACCES);
    assert_int_equal(rest_users_check(&us, "carol", "password3", &role), 0);
    assert_string_equal(role, "reader");
    rest_users_free(&us);
    /* A file others can read is refused; so is one that is not ours. */
    assert_int_equal(chmod(path, 0644), 0);
    assert_int_equal(rest_users_load(path, &us), -EPERM);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"users\": [{\"username\": \"x\"}]}", f);
    fclose(f);
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(rest_users_load(path, &us), -EINVAL);
    unlink(path);
    strcat(path, ".lock");
    unlink(path);
    assert_int_equal(rmdir(dir), 0);
}

/* The users file is written under a lock (path.lock, flock) through a
 * temporary file only the writer made: a name planted where the old fixed
 * temporary name was is left alone, a writer waits for the lock (and gives
 * up, writing nothing, when another holds it too long), and writers in
 * several processes lose no one's change. */
static void test_users_file_lock(void **state)
{
    char dir[] = "/tmp/ofcd-test-ulock.XXXXXX", path[128], other[160], lock[160], tmp[160];
    struct rest_users us;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/users.json", dir);
    snprintf(other, sizeof(other), "%s/precious", dir);
    snprintf(lock, sizeof(lock), "%s.lock", path);
    snprintf(tmp, sizeof(tmp), "%s.new", path);
    FILE *f = fopen(other, "w");
    assert_non_null(f);
    fputs("not the users", f);
    fclose(f);
    assert_int_equal(symlink(other, tmp), 0);
    assert_int_equal(rest_users_put(path, "alice", "password1", "admin"), 0);
    char buf[64] = "";
    f = fopen(other, "r");
    assert_non_null(f);
    assert_non_null(fgets(buf, sizeof(buf), f));
    fclose(f);
    if (strcmp(buf, "not the users") != 0)
        fail_msg("the writer wrote through a link planted at %s", tmp);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    unlink(tmp);

    /* Another holds the lock: nothing is written. */
    int fd = open(lock, O_RDWR | O_CREAT, 0600);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX), 0);
    int rc = rest_users_put(path, "bob", "password2", "admin");
    if (rc != -EWOULDBLOCK)
        fail_msg("with the lock held elsewhere the writer returned %d, not -EWOULDBLOCK", rc);
    assert_int_equal(rest_users_load(path, &us), 0);
    assert_int_equal(us.n, 1);
    rest_users_free(&us);
    close(fd);

    /* 6 processes add 3 users each at once: 18 more in the end. */
    pid_t kids[6];
    for (int k = 0; k < 6; k++) {
        kids[k] = fork();
        assert_true(kids[k] >= 0);
        if (kids[k] == 0) {
            int bad = 0;
            for (int i = 0; i < 3; i++) {
                char name[32];
                snprintf(name, sizeof(name), "user%d_%d", k, i);
                bad |= rest_users_put(path, name, "password9", "reader") != 0;
            }
            _exit(bad);
        }
    }
    for (int k = 0; k < 6; k++) {
        int ws;
        assert_int_equal(waitpid(kids[k], &ws, 0), kids[k]);
        assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    }
    assert_int_equal(rest_users_load(path, &us), 0);
    if (us.n != 19)
        fail_msg("6 writers at once left %zu users, not 19", us.n);
    rest_users_free(&us);
    unlink(path);
    unlink(lock);
    unlink(other);
    rmdir(dir);
}

/* One login through the guard: its verdict, and with GO its outcome. */
static enum rest_login_verdict try_login(struct rest_login_guard *g, uint32_t addr, bool ok,
                                         uint64_t now, unsigned *retry)
{
    struct rest_login_pass p;
    unsigned r = 0;
    enum rest_login_verdict v = rest_login_guard_begin(g, addr, true, now, &p, &r);

    if (v == REST_LOGIN_GO)
        assert_null(rest_login_guard_done(g, &p, ok, now));    /* nobody waited */
    else
        assert_true(r > 0);
    if (retry)
        *retry = r;
    return v;
}

static const struct rest_login_guard_cfg guard_cfg = {.lock_s = 60, .track_max = 256,
                                                      .concurrency = 2};

/* Five failures, each within the lock time of the one before, lock the
 * address until the lock time after the last; others are not affected; a
 * success clears it. */
static void test_login_guard(void **state)
{
    struct rest_login_guard g;
    const uint32_t a = 0x0a000001, b = 0x0a000002;
    unsigned retry;

    (void)state;
    assert_int_equal(rest_login_guard_init(&g, &guard_cfg), 0);
    for (unsigned i = 0; i < REST_LOGIN_FAILS_MAX; i++)
        assert_int_equal(try_login(&g, a, false, 100 + i, NULL), REST_LOGIN_GO);
    unsigned last = 100 + REST_LOGIN_FAILS_MAX - 1;
    assert_int_equal(try_login(&g, a, true, last + 1, &retry), REST_LOGIN_LOCKED);
    assert_int_equal(retry, 59);
    assert_int_equal(try_login(&g, b, true, last + 1, NULL), REST_LOGIN_GO);
    assert_int_equal(try_login(&g, a, true, last + 59, &retry), REST_LOGIN_LOCKED);
    assert_int_equal(retry, 1);
    assert_int_equal(try_login(&g, a, false, last + 60, NULL), REST_LOGIN_GO);
    assert_int_equal(try_login(&g, a, true, last + 61, NULL), REST_LOGIN_GO);
    /* Failures spread wider than the lock time never lock out. */
    for (unsigned i = 0; i < 3 * REST_LOGIN_FAILS_MAX; i++)
        assert_int_equal(try_login(&g, b, false, 1000 + (uint64_t)i * 60, NULL), REST_LOGIN_GO);
    /* A success clears what came before. */
    for (unsigned i = 0; i < REST_LOGIN_FAILS_MAX - 1; i++)
        try_login(&g, a, false, 5000, NULL);
    try_login(&g, a, true, 5000, NULL);
    try_login(&g, a, false, 5000, NULL);
    assert_int_equal(try_login(&g, a, false, 5000, NULL), REST_LOGIN_GO);
    rest_login_guard_destroy(&g);
}

/* A locked address stays locked its whole lock time, however many other
 * addresses fail meanwhile (more than the table holds): they are refused
 * while every entry is alive, and get in once the first one ends. */
static void test_login_guard_no_eviction(void **state)
{
    struct rest_login_guard g;
    const uint32_t victim = 0x7f000009;
    unsigned retry, full = 0;

    (void)state;
    assert_int_equal(rest_login_guard_init(&g, &guard_cfg), 0);
    for (unsigned i = 0; i < REST_LOGIN_FAILS_MAX; i++)
        try_login(&g, victim, false, 100, NULL);
    for (uint32_t i = 1; i <= 300; i++) {
        enum rest_login_verdict v = try_login(&g, 0x7f000100 + i, false, 101, &retry);
        if (v == REST_LOGIN_FULL) {
            assert_int_equal(retry, 59);    /* the victim's entry ends first */
            full++;
        } else {
            assert_int_equal(v, REST_LOGIN_GO);
        }
    }
    assert_int_equal(full, 300 - (guard_cfg.track_max - 1));
    assert_int_equal(try_login(&g, victim, true, 102, &retry), REST_LOGIN_LOCKED);
    if (retry != 58)
        fail_msg("the locked address waits %u s, not 58: 300 other addresses freed it", retry);
    assert_int_equal(try_login(&g, victim, true, 159, &retry), REST_LOGIN_LOCKED);
    /* The victim's time is up: its entry is free for a newcomer; the
     * others' entries live a second longer. */
    assert_int_equal(try_login(&g, 0x7f000400, false, 160, NULL), REST_LOGIN_GO);
    assert_int_equal(try_login(&g, 0x7f000401, false, 160, &retry), REST_LOGIN_FULL);
    assert_int_equal(retry, 1);
    assert_int_equal(try_login(&g, 0x7f000401, false, 161, NULL), REST_LOGIN_GO);
    rest_login_guard_destroy(&g);
}

/* Checks at once: the configured number for anyone, one more for an
 * address that logged in lately; a login over them waits its turn, a
 * password being set is refused; a trusted address is never refused for a
 * full table, and its failures still lock it. */
static void test_login_guard_slots(void **state)
{
    const struct rest_login_guard_cfg cfg = {.lock_s = 60, .track_max = 4, .concurrency = 2};
    struct rest_login_guard g;
    struct rest_login_pass p[6];
    const uint32_t admin = 0x7f000001;
    unsigned retry;

    (void)state;
    assert_int_equal(rest_login_guard_init(&g, &cfg), 0);
    assert_int_equal(try_login(&g, admin, true, 10, NULL), REST_LOGIN_GO);
    assert_int_equal(rest_login_guard_begin(&g, 0x0a000001, true, 20, &p[0], &retry),
                     REST_LOGIN_GO);
    assert_int_equal(rest_login_guard_begin(&g, 0x0a000002, true, 20, &p[1], &retry),
                     REST_LOGIN_GO);
    assert_int_equal(rest_login_guard_begin(&g, 0x0a000003, true, 20, &p[2], &retry),
                     REST_LOGIN_WAIT);
    /* Setting a password takes a slot too, and does not wait for one. */
    assert_int_equal(rest_login_guard_begin(&g, 0x0a000004, false, 20, &p[3], &retry),
                     REST_LOGIN_BUSY);
    assert_int_equal(retry, 1);
    assert_int_equal(rest_login_guard_begin(&g, admin, true, 20, &p[4], &retry), REST_LOGIN_GO);
    assert_true(p[4].trusted_slot);
    assert_int_equal(rest_login_guard_begin(&g, admin, false, 20, &p[5], &retry),
                     REST_LOGIN_BUSY);
    /* The trusted slot is not 0x0a000003's: it waits for a general one. */
    assert_null(rest_login_guard_done(&g, &p[4], true, 20));
    struct rest_login_pass *next = rest_login_guard_done(&g, &p[0], false, 21);
    assert_ptr_equal(next, &p[2]);
    assert_int_equal(next->verdict, REST_LOGIN_GO);
    assert_false(next->trusted_slot);
    assert_null(next->next);
    assert_null(rest_login_guard_done(&g, &p[1], false, 21));
    assert_null(rest_login_guard_done(&g, &p[2], false, 21));
    /* The table (4) full of failing addresses: newcomers wait, admin not. */
    assert_int_equal(try_login(&g, 0x0a000004, false, 22, NULL), REST_LOGIN_GO);
    assert_int_equal(try_login(&g, 0x0a000005, false, 22, &retry), REST_LOGIN_FULL);
    assert_int_equal(retry, 59);
    assert_int_equal(try_login(&g, admin, true, 22, NULL), REST_LOGIN_GO);
    for (unsigned i = 0; i < REST_LOGIN_FAILS_MAX; i++)
        assert_int_equal(try_login(&g, admin, false, 30, NULL), REST_LOGIN_GO);
    assert_int_equal(try_login(&g, admin, true, 31, &retry), REST_LOGIN_LOCKED);
    assert_int_equal(retry, 59);
    /* Trust ends REST_LOGIN_TRUST_S after the last success. */
    assert_int_equal(try_login(&g, admin, true, 200, NULL), REST_LOGIN_GO);
    for (unsigned i = 0; i < 4; i++)
        try_login(&g, 0x0b000000 + i, false, 200 + REST_LOGIN_TRUST_S, NULL);
    assert_int_equal(try_login(&g, admin, true, 200 + REST_LOGIN_TRUST_S, NULL),
                     REST_LOGIN_FULL);
    rest_login_guard_destroy(&g);
}

/* The first pass of a hand-back list, which must hold exactly one: GO. */
static struct rest_login_pass *one_go(struct rest_login_pass *list)
{
    assert_non_null(list);
    assert_null(list->next);
    assert_int_equal(list->verdict, REST_LOGIN_GO);
    return list;
}

/*
 * The fair share, on a fake clock, with one check at a time: a guesser
 * (many connections, wrong passwords) and a second busy address are ahead
 * of an operator whose address ofcd has never seen. The operator is not
 * refused (the guard used to answer BUSY while anyone's check ran) and is
 * checked after one check of each address ahead of it, not after all that
 * the guesser queued; the guesser's checks run one at a time, so it is
 * locked at its fifth failure, and what it still had waiting is handed
 * back LOCKED, unchecked.
 */
static void test_login_guard_fair_turns(void **state)
{
    const struct rest_login_guard_cfg cfg = {.lock_s = 60, .track_max = 16, .concurrency = 1};
    const uint32_t guesser = 0x7f000003, busy = 0x7f000002, operator = 0x7f000001;
    struct rest_login_pass gp[12], bp[2], op;
    struct rest_login_guard g;
    unsigned retry, waiting = 0, busy503 = 0;
    uint64_t now = 1000;

    (void)state;
    assert_int_equal(rest_login_guard_init(&g, &cfg), 0);
    assert_int_equal(rest_login_guard_begin(&g, guesser, true, now, &gp[0], &retry),
                     REST_LOGIN_GO);
    for (unsigned i = 1; i < 12; i++) {
        enum rest_login_verdict v = rest_login_guard_begin(&g, guesser, true, now, &gp[i],
                                                           &retry);
        if (v == REST_LOGIN_WAIT)
            waiting++;
        else if (v == REST_LOGIN_BUSY && retry == 1)
            busy503++;
        else
            fail_msg("the guesser's login %u: verdict %d", i, v);
    }
    assert_int_equal(waiting, REST_LOGIN_LINE_MAX);
    assert_int_equal(busy503, 11 - REST_LOGIN_LINE_MAX);
    assert_int_equal(rest_login_guard_begin(&g, busy, true, now, &bp[0], &retry), REST_LOGIN_WAIT);
    assert_int_equal(rest_login_guard_begin(&g, busy, true, now, &bp[1], &retry), REST_LOGIN_WAIT);
    enum rest_login_verdict v = rest_login_guard_begin(&g, operator, true, now, &op, &retry);
    if (v != REST_LOGIN_WAIT)
        fail_msg("an operator new to ofcd was answered %d while another address's check ran",
                 v);

    /* In turn: the busy address, then the operator; the guesser's next
     * check only after both. */
    assert_ptr_equal(one_go(rest_login_guard_done(&g, &gp[0], false, ++now)), &bp[0]);
    assert_ptr_equal(one_go(rest_login_guard_done(&g, &bp[0], false, ++now)), &op);
    struct rest_login_pass *p = one_go(rest_login_guard_done(&g, &op, true, ++now));
    assert_ptr_equal(p, &gp[1]);
    waiting--;

    /* The guesser's failures 2..5, one check at a time (the busy address's
     * second login takes its turn between them). */
    unsigned guesser_checks = 1;
    while (p) {
        bool guess = p >= gp && p < gp + 12;
        guesser_checks += guess;
        struct rest_login_pass *next = rest_login_guard_done(&g, p, false, ++now);
        p = NULL;
        for (; next; next = next->next) {
            if (next->verdict == REST_LOGIN_GO) {
                assert_null(p);                 /* one check at a time */
                p = next;
            } else {
                assert_int_equal(next->verdict, REST_LOGIN_LOCKED);
                assert_true(next >= gp && next < gp + 12);
                assert_true(next->retry_s > 55);
                waiting--;
            }
        }
        if (p && p >= gp && p < gp + 12)
            waiting--;
    }
    assert_int_equal(guesser_checks, REST_LOGIN_FAILS_MAX);
    assert_int_equal(waiting, 0);             /* every waiting login came back */
    assert_int_equal(rest_login_guard_begin(&g, guesser, true, now, &gp[0], &retry),
                     REST_LOGIN_LOCKED);
    /* The operator, now trusted, runs at once; nothing is left waiting. */
    assert_int_equal(rest_login_guard_begin(&g, operator, true, now, &op, &retry), REST_LOGIN_GO);
    assert_null(rest_login_guard_done(&g, &op, true, now));
    assert_null(g.ready_head);
    assert_int_equal(g.running, 0);
    rest_login_guard_destroy(&g);
}

/* What a token of alice's may do at now (POST: changes): the status. */
static unsigned token_status(struct rest_auth *a, const char *tok, const char *method,
                             uint64_t now)
{
    char h[REST_JWT_MAX + 16];
    struct rest_reply r = {.status = 200};

    snprintf(h, sizeof(h), "Bearer %s", tok);
    bool reads = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    bool ok = rest_auth_check(a, h, method, reads, now, &r);
    json_decref(r.json);
    assert_true(ok == (r.status == 200));
    return r.status;
}

/* A token is good only for its user as the users file holds it now: a new
 * password, a new role, or the user deleted and made again, and the
 * tokens issued before are refused. */
static void test_token_follows_user(void **state)
{
    char dir[] = "/tmp/ofcd-test-epoch.XXXXXX", path[128];
    char tok[REST_JWT_MAX], tok2[REST_JWT_MAX];
    struct rest_auth a;
    struct rest_users us;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/users.json", dir);
    assert_int_equal(rest_users_put(path, "alice", "password1", "admin"), 0);
    struct rest_cfg cfg = {.auth = true, .token_minutes = 60, .users_file = path,
                           .reader_tokens_file = "", .data_dir = dir, .login_lock_s = 60,
                           .login_track_max = 16, .login_concurrency = 1};
    assert_int_equal(rest_auth_open(&a, &cfg, NULL), 0);
    /* The file is looked at once a second: each step a second later. */
    uint64_t now = (uint64_t)time(NULL) + 10;
    assert_int_equal(rest_auth_issue(&a, "alice", NULL, now, tok, sizeof(tok)), 0);
    assert_int_equal(token_status(&a, tok, "POST", now), 200);

    /* A new password. */
    uint64_t epoch = rest_users_find(&a.users, "alice")->epoch;
    assert_int_equal(rest_users_put(path, "alice", "password2", "admin"), 0);
    now++;
    if (token_status(&a, tok, "GET", now) != 401)
        fail_msg("a token issued before the password changed is still good");
    /* A login whose check began before the change gets no token. */
    assert_int_equal(rest_auth_issue(&a, "alice", &epoch, now, tok, sizeof(tok)), -ESTALE);
    assert_int_equal(rest_auth_issue(&a, "alice", NULL, now, tok, sizeof(tok)), 0);
    assert_int_equal(token_status(&a, tok, "POST", now), 200);

    /* Demoted: the admin's token may not change anything any more. */
    assert_int_equal(rest_users_put(path, "alice", "password2", "reader"), 0);
    now++;
    if (token_status(&a, tok, "POST", now) == 200)
        fail_msg("a demoted user's token still changes");
    assert_int_equal(token_status(&a, tok, "GET", now), 401);
    assert_int_equal(rest_auth_issue(&a, "alice", NULL, now, tok, sizeof(tok)), 0);
    assert_int_equal(token_status(&a, tok, "GET", now), 200);
    assert_int_equal(token_status(&a, tok, "POST", now), 403);

    /* Deleted and made again with the same name and password. */
    assert_int_equal(rest_users_put(path, "alice", "password2", "admin"), 0);
    now++;
    assert_int_equal(rest_auth_issue(&a, "alice", NULL, now, tok2, sizeof(tok2)), 0);
    assert_int_equal(token_status(&a, tok2, "POST", now), 200);
    int lk = rest_users_lock(path);
    assert_true(lk >= 0);
    assert_int_equal(rest_users_load(path, &us), 0);
    rest_users_remove(&us, rest_users_find(&us, "alice"));
    assert_int_equal(rest_users_save(path, &us), 0);
    rest_users_unlock(lk);
    rest_users_free(&us);
    now++;
    assert_int_equal(token_status(&a, tok2, "GET", now), 401);
    assert_int_equal(rest_users_put(path, "alice", "password2", "admin"), 0);
    now++;
    if (token_status(&a, tok2, "POST", now) != 401)
        fail_msg("a token of the deleted user works for the new one of that name");

    /* A users route changes the latest users: one added by `ofcd user add`
     * a moment ago (before the once-a-second look) is read under the
     * file's lock, so the route's write keeps it. */
    assert_int_equal(rest_users_put(path, "bob", "password3", "admin"), 0);
    pthread_rwlock_wrlock(&a.lock);
    int fd = rest_auth_users_lock(&a);
    assert_true(fd >= 0);
    assert_non_null(rest_users_find(&a.users, "bob"));
    struct rest_user carol = {.name = "carol", .role = "reader"};
    assert_int_equal(rest_user_set_password(&carol, "password4"), 0);
    assert_int_equal(rest_users_add(&a.users, &carol), 0);
    assert_int_equal(rest_users_save(path, &a.users), 0);
    rest_auth_users_saved(&a);
    rest_users_unlock(fd);
    pthread_rwlock_unlock(&a.lock);
    assert_int_equal(rest_users_load(path, &us), 0);
    assert_non_null(rest_users_find(&us, "bob"));
    assert_non_null(rest_users_find(&us, "carol"));
    rest_users_free(&us);

    rest_auth_close(&a);
    char key[160];
    snprintf(key, sizeof(key), "%s/rest_jwt.key", dir);
    unlink(key);
    snprintf(key, sizeof(key), "%s.lock", path);
    unlink(key);
    unlink(path);
    rmdir(dir);
}

/* Static reader tokens: as written, matched only whole, mistakes named by line. */
static void test_static_tokens(void **state)
{
    struct rest_static_tokens t;
    char err[200];
    const char *tok = "0123456789abcdef0123456789abcdef";
    char text[256];

    (void)state;
    snprintf(text, sizeof(text), "# scrapers\nprometheus %s\n\ngrafana %s-2  # dashboards\n", tok,
             tok);
    assert_int_equal(rest_static_tokens_parse(text, &t, err, sizeof(err)), 0);
    assert_int_equal(t.n, 2);
    assert_string_equal(rest_static_tokens_match(&t, tok), "prometheus");
    char two[64];
    snprintf(two, sizeof(two), "%s-2", tok);
    assert_string_equal(rest_static_tokens_match(&t, two), "grafana");
    assert_null(rest_static_tokens_match(&t, "0123456789abcdef0123456789abcde"));
    assert_null(rest_static_tokens_match(&t, "0123456789abcdef0123456789abcdeF"));
    assert_null(rest_static_tokens_match(&t, ""));
    /* Only hashes are kept. */
    assert_null(memmem(t.v, t.n * sizeof(*t.v), tok, strlen(tok)));
    rest_static_tokens_free(&t);

    static const struct {
        const char *text, *why;
    } bad[] = {
        {"prometheus short\n", "line 1: prometheus's token is shorter than 32"},
        {"# c\nprometheus\n", "line 2: expected \"NAME TOKEN\""},
        {"bad/name 0123456789abcdef0123456789abcdef\n", "line 1: expected"},
        {"a 0123456789abcdef0123456789abcdef\na 0123456789abcdef0123456789abcdeg\n",
         "line 2: a is named twice"},
        {"a 0123456789abcdef0123456789abcdef extra\n", "line 1: expected"},
        {"a 0123456789abcdef0123456789abcdef\"\n", "not token characters"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(rest_static_tokens_parse(bad[i].text, &t, err, sizeof(err)), -EINVAL);
        if (!strstr(err, bad[i].why))
            fail_msg("\"%s\": said \"%s\", expected \"%s\"", bad[i].text, err, bad[i].why);
        assert_int_equal(t.n, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jwt_roundtrip_and_expiry),
        cmocka_unit_test(test_jwt_tampering),
        cmocka_unit_test(test_users_file),
        cmocka_unit_test(test_users_file_lock),
        cmocka_unit_test(test_login_guard),
        cmocka_unit_test(test_login_guard_no_eviction),
        cmocka_unit_test(test_login_guard_slots),
        cmocka_unit_test(test_login_guard_fair_turns),
        cmocka_unit_test(test_static_tokens),
        cmocka_unit_test(test_token_follows_user),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
