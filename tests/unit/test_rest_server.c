/*
 * test_rest_server: the REST server on a loopback port, driven with raw
 * sockets, for what only the whole server shows: a request without a
 * good token is answered when its headers arrive, before a byte of its
 * body is sent (so nothing of it is held); a login is refused a body the
 * same way; one address holds at most rest.max_conns_per_ip connections;
 * logins beyond rest.login_concurrency wait their turn, one address's one
 * at a time, so its fifth failure locks it whatever it sends at once.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "free_port.h"
#include "rest.h"
#include "rest_auth.h"
#include "rest_users.h"

struct server {
    char dir[64], users[128];
    uint16_t port;
    struct rest_server *rs;
    struct rest_auth_stats st;
};

static void server_start_threads(struct server *sv, unsigned conns_per_ip,
                                 unsigned login_concurrency, unsigned threads)
{
    snprintf(sv->dir, sizeof(sv->dir), "/tmp/ofcd-test-rest.XXXXXX");
    assert_non_null(mkdtemp(sv->dir));
    snprintf(sv->users, sizeof(sv->users), "%s/users.json", sv->dir);
    assert_int_equal(rest_users_put(sv->users, "alice", "password1", "admin"), 0);
    sv->port = free_port();
    struct rest_cfg cfg = {
        .ip = INADDR_LOOPBACK, .port = sv->port, .threads = threads, .max_body_kb = 16384,
        .max_conns_per_ip = conns_per_ip, .max_flows_per_request = 1000, .auth = true,
        .token_minutes = 60, .users_file = sv->users, .reader_tokens_file = "",
        .data_dir = sv->dir, .login_lock_s = 60, .login_track_max = 64,
        .login_concurrency = login_concurrency,
    };
    struct rest_sources src = {.auth_stats = &sv->st};
    memset(&sv->st, 0, sizeof(sv->st));
    sv->rs = rest_start(&cfg, &src);
    assert_non_null(sv->rs);
}

static void server_start(struct server *sv, unsigned conns_per_ip, unsigned login_concurrency)
{
    server_start_threads(sv, conns_per_ip, login_concurrency, 4);
}

static void server_stop(struct server *sv)
{
    char p[160];

    rest_stop(sv->rs);
    unlink(sv->users);
    snprintf(p, sizeof(p), "%s.lock", sv->users);
    unlink(p);
    snprintf(p, sizeof(p), "%s/rest_jwt.key", sv->dir);
    unlink(p);
    assert_int_equal(rmdir(sv->dir), 0);
}

/* A connection from 127.0.0.<from> to the server. */
static int dial(const struct server *sv, unsigned from)
{
    struct sockaddr_in me = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000000 | from)};
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(sv->port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int s = socket(AF_INET, SOCK_STREAM, 0);

    assert_true(s >= 0);
    assert_int_equal(bind(s, (struct sockaddr *)&me, sizeof(me)), 0);
    assert_int_equal(connect(s, (struct sockaddr *)&to, sizeof(to)), 0);
    return s;
}

static void send_all(int s, const char *text)
{
    size_t n = strlen(text);
    assert_int_equal(send(s, text, n, MSG_NOSIGNAL), (ssize_t)n);
}

/* What the server sends within ms into buf (NUL-terminated): bytes, 0 at
 * its close, -1 when it says nothing in time. */
static ssize_t answer(int s, char *buf, size_t len, int ms)
{
    struct pollfd p = {.fd = s, .events = POLLIN};
    size_t got = 0;

    buf[0] = '\0';
    while (got + 1 < len && poll(&p, 1, ms) == 1) {
        ssize_t n = recv(s, buf + got, len - 1 - got, 0);
        if (n <= 0)
            return got ? (ssize_t)got : (n == 0 || errno == ECONNRESET ? 0 : -1);
        got += (size_t)n;
        buf[got] = '\0';
        if (strstr(buf, "\r\n\r\n") && strstr(buf, "}"))
            break;                      /* a whole JSON error answer */
        ms = 200;
    }
    return got ? (ssize_t)got : -1;
}

/* A 16 MiB upload without a token is answered 401 from its headers alone,
 * the body never asked for (no 100 Continue); a reader of the answer sees
 * the connection end. */
static void test_401_before_body(void **state)
{
    struct server sv;
    char buf[2048];
    static const char *const heads[] = {
        "POST /api/kytos/flow_manager/v2/flows HTTP/1.1\r\nHost: t\r\n"
        "Content-Type: application/json\r\nContent-Length: 16777216\r\n\r\n",
        "POST /api/kytos/flow_manager/v2/flows HTTP/1.1\r\nHost: t\r\n"
        "Content-Type: application/json\r\nContent-Length: 16777216\r\n"
        "Expect: 100-continue\r\n\r\n",
        "POST /api/kytos/flow_manager/v2/flows HTTP/1.1\r\nHost: t\r\n"
        "Authorization: Bearer not.a.token\r\nTransfer-Encoding: chunked\r\n\r\n",
    };

    (void)state;
    server_start(&sv, 64, 2);
    for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
        int s = dial(&sv, 1);
        send_all(s, heads[i]);
        ssize_t n = answer(s, buf, sizeof(buf), 2000);
        if (n <= 0 || strncmp(buf, "HTTP/1.1 401", 12) != 0)
            fail_msg("request %zu: headers alone got %s", i,
                     n < 0 ? "no answer in 2 s (the server waits for the body)" : buf);
        assert_null(strstr(buf, "100 Continue"));
        close(s);
    }
    /* The login takes no body: refused the same way. */
    int s = dial(&sv, 1);
    send_all(s, "GET /api/kytos/core/auth/login/ HTTP/1.1\r\nHost: t\r\n"
                "Authorization: Basic YWxpY2U6cGFzc3dvcmQx\r\nContent-Length: 16777216\r\n\r\n");
    ssize_t n = answer(s, buf, sizeof(buf), 2000);
    if (n <= 0 || strncmp(buf, "HTTP/1.1 413", 12) != 0)
        fail_msg("a login with a 16 MiB body got %s", n < 0 ? "no answer in 2 s" : buf);
    close(s);
    struct rest_auth_stats st;
    rest_auth_stats_read(&sv.st, &st);
    assert_int_equal(st.refused_at_headers, 4);
    server_stop(&sv);
}

/* One address holds at most max_conns_per_ip connections: of 5 opened at
 * once with a limit of 4, the server closes one as it accepts it (which
 * one depends on the order its threads accept them) and serves the other
 * four; another address is served meanwhile. */
static void test_conns_per_ip(void **state)
{
    struct server sv;
    struct pollfd p[5];
    char buf[2048];

    (void)state;
    server_start(&sv, 4, 2);
    for (int i = 0; i < 5; i++)
        p[i] = (struct pollfd){.fd = dial(&sv, 2), .events = POLLIN};
    /* Nothing was sent: a connection that turns readable was closed. */
    int closed = -1;
    assert_int_equal(poll(p, 5, 2000), 1);
    for (int i = 0; i < 5; i++)
        if (p[i].revents)
            closed = i;
    assert_true(closed >= 0);
    assert_int_equal(answer(p[closed].fd, buf, sizeof(buf), 100), 0);
    for (int i = 0; i < 5; i++) {
        if (i == closed)
            continue;
        send_all(p[i].fd, "GET /api/v1/health HTTP/1.1\r\nHost: t\r\n\r\n");
        ssize_t n = answer(p[i].fd, buf, sizeof(buf), 2000);
        if (n <= 0 || strncmp(buf, "HTTP/1.1 401", 12) != 0)
            fail_msg("connection %d of the 4 kept got %s", i, n < 0 ? "no answer" : "closed");
    }
    int other = dial(&sv, 3);
    send_all(other, "GET /api/v1/health HTTP/1.1\r\nHost: t\r\n\r\n");
    ssize_t n = answer(other, buf, sizeof(buf), 2000);
    assert_true(n > 0);
    assert_int_equal(strncmp(buf, "HTTP/1.1 401", 12), 0);
    close(other);
    for (int i = 0; i < 5; i++)
        close(p[i].fd);
    struct rest_auth_stats st;
    rest_auth_stats_read(&sv.st, &st);
    assert_int_equal(st.conns_refused, 1);
    server_stop(&sv);
}

struct login_try {
    const struct server *sv;
    unsigned from;
    const char *basic;                  /* NULL: alice with a wrong password */
    char status[4];
    bool retry_after;
    uint64_t done_ns;
};

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *login_once(void *arg)
{
    struct login_try *t = arg;
    char buf[2048], req[256];
    int s = dial(t->sv, t->from);

    /* alice:wrongpass1 unless told */
    snprintf(req, sizeof(req), "GET /api/kytos/core/auth/login/ HTTP/1.1\r\nHost: t\r\n"
             "Authorization: Basic %s\r\n\r\n", t->basic ? t->basic : "YWxpY2U6d3JvbmdwYXNzMQ==");
    send_all(s, req);
    /* Logins wait their turn: under ThreadSanitizer a check takes ~2.5 s. */
    if (answer(s, buf, sizeof(buf), 90000) > 12) {
        memcpy(t->status, buf + 9, 3);
        t->retry_after = strstr(buf, "Retry-After: 1\r\n") != NULL;
    }
    t->done_ns = mono_ns();
    close(s);
    return NULL;
}

/* A password check holds no REST thread: with one thread only, a request
 * that comes while a login's scrypt runs is answered before the login. */
static void test_check_holds_no_thread(void **state)
{
    struct server sv;
    struct login_try t;
    pthread_t th;
    char buf[2048];

    (void)state;
    server_start_threads(&sv, 64, 1, 1);
    t = (struct login_try){.sv = &sv, .from = 40, .basic = "YWxpY2U6cGFzc3dvcmQx"};
    assert_int_equal(pthread_create(&th, NULL, login_once, &t), 0);
    uint64_t end = mono_ns() + 5000000000u;
    while (__atomic_load_n(&sv.st.checks_running, __ATOMIC_RELAXED) == 0 && mono_ns() < end)
        sched_yield();
    int s = dial(&sv, 41);
    send_all(s, "GET /api/v1/health HTTP/1.1\r\nHost: t\r\n\r\n");
    ssize_t n = answer(s, buf, sizeof(buf), 5000);
    uint64_t got_ns = mono_ns();
    close(s);
    pthread_join(th, NULL);
    assert_true(n > 0);
    assert_int_equal(strncmp(buf, "HTTP/1.1 401", 12), 0);
    assert_int_equal(strncmp(t.status, "200", 3), 0);
    if (got_ns > t.done_ns)
        fail_msg("a request was answered %.0f ms after the login whose check ran meanwhile: "
                 "the check held the REST thread", (got_ns - t.done_ns) / 1e6);
    server_stop(&sv);
}

/* Four logins at once from four addresses with login_concurrency 1:
 * none is refused; they wait their turn and every one is checked. */
static void test_login_turns(void **state)
{
    struct server sv;
    struct login_try t[4];
    pthread_t th[4];

    (void)state;
    server_start(&sv, 64, 1);
    for (unsigned i = 0; i < 4; i++) {
        t[i] = (struct login_try){.sv = &sv, .from = 20 + i};
        assert_int_equal(pthread_create(&th[i], NULL, login_once, &t[i]), 0);
    }
    for (unsigned i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    for (unsigned i = 0; i < 4; i++) {
        if (strncmp(t[i].status, "401", 3) != 0)
            fail_msg("login %u from its own address: status '%.3s', not 401 after its check",
                     i, t[i].status);
    }
    struct rest_auth_stats st;
    rest_auth_stats_read(&sv.st, &st);
    assert_int_equal(st.logins_failed, 4);
    assert_int_equal(st.checks_busy, 0);
    assert_true(st.logins_waited >= 1);
    assert_int_equal(st.checks_running, 0);
    server_stop(&sv);
}

/* Twelve wrong logins at once from one address: its checks run one after
 * another, so exactly five are checked before it is locked; those that
 * waited are 429 unchecked, those over its line 503, none a sixth 401. */
static void test_login_one_address_locked_at_five(void **state)
{
    struct server sv;
    struct login_try t[12];
    pthread_t th[12];
    unsigned n401 = 0, n429 = 0, n503 = 0;

    (void)state;
    server_start(&sv, 64, 4);
    for (unsigned i = 0; i < 12; i++) {
        t[i] = (struct login_try){.sv = &sv, .from = 50};
        assert_int_equal(pthread_create(&th[i], NULL, login_once, &t[i]), 0);
    }
    for (unsigned i = 0; i < 12; i++)
        pthread_join(th[i], NULL);
    for (unsigned i = 0; i < 12; i++) {
        if (strncmp(t[i].status, "401", 3) == 0)
            n401++;
        else if (strncmp(t[i].status, "429", 3) == 0)
            n429++;
        else if (strncmp(t[i].status, "503", 3) == 0 && t[i].retry_after)
            n503++;
        else
            fail_msg("login %u: status '%.3s'", i, t[i].status);
    }
    if (n401 != REST_LOGIN_FAILS_MAX)
        fail_msg("one address with 12 logins at once and 4 check slots: %u checked, not %u",
                 n401, REST_LOGIN_FAILS_MAX);
    assert_int_equal(n429 + n503, 12 - REST_LOGIN_FAILS_MAX);
    struct rest_auth_stats st;
    rest_auth_stats_read(&sv.st, &st);
    assert_int_equal(st.logins_failed, REST_LOGIN_FAILS_MAX);
    assert_int_equal(st.logins_locked, n429);
    assert_int_equal(st.checks_running, 0);
    server_stop(&sv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_401_before_body),
        cmocka_unit_test(test_conns_per_ip),
        cmocka_unit_test(test_login_turns),
        cmocka_unit_test(test_login_one_address_locked_at_five),
        cmocka_unit_test(test_check_holds_no_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
