/*
 * etcd-probe: drives drivers/etcd's client against a real etcd for the
 * etcd_client integration test (tests/integration/etcd_client.sh).
 *
 *   etcd-probe check URL...        every check below, against the endpoints
 *                                  in order (the first may be dead: failover)
 *   etcd-probe down ERRNO URL...   one put must fail with -ERRNO (ECONNREFUSED
 *                                  or ETIMEDOUT) within the 1.5 s timeout
 *   etcd-probe auth URL USER PASS  etcd with authentication on and a token TTL
 *                                  of 1 s: no or wrong credentials -EPERM; the
 *                                  right ones put, get and watch, and keep
 *                                  working after the token expired
 *   etcd-probe tls URL CA CERT KEY etcd on https demanding client certificates:
 *                                  with the CA and a client certificate put and
 *                                  get work; without the certificate, or without
 *                                  the CA, the call fails with a message
 *
 * ETCD_PROBE_API=json drives etcd's JSON gateway, anything else its gRPC
 * API (the client's default).
 *
 * Prints "ok <check>" per check passed; the first failure prints
 * "FAIL <check>: <why>" and exits 1. Keys are under /probe/<pid>/.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "etcd_client.h"

#define TIMEOUT_MS 1500u

static char pfx[64];
static const char *check_name = "";

static uint64_t now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

static void sleep_ms(unsigned ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};

    nanosleep(&t, NULL);
}

#define FAIL(...)                                       \
    do {                                                \
        printf("FAIL %s: ", check_name);                \
        printf(__VA_ARGS__);                            \
        printf("\n");                                   \
        exit(1);                                        \
    } while (0)

#define OK(c, call)                                                           \
    do {                                                                      \
        int rc_ = (call);                                                     \
        if (rc_ < 0)                                                          \
            FAIL("%s: %s (%s)", #call, strerror(-rc_), etcd_client_error(c)); \
    } while (0)

static void key(char *out, const char *name)
{
    snprintf(out, 128, "%s%s", pfx, name);
}

static int64_t put(struct etcd_client *c, const char *name, const char *val, int64_t lease)
{
    char k[128];
    struct etcd_header h;

    key(k, name);
    struct etcd_put p = {k, strlen(k), val, strlen(val), lease};
    OK(c, etcd_put(c, &p, &h));
    return h.revision;
}

/* The value of name, or NULL when absent (static buffer). */
static const char *get(struct etcd_client *c, const char *name)
{
    static char v[256];
    char k[128];
    struct etcd_range_resp r;

    key(k, name);
    struct etcd_range q = {.key = k, .key_len = strlen(k)};
    OK(c, etcd_get(c, &q, &r));
    if (r.kvs.n > 1)
        FAIL("one key read, %zu answered", r.kvs.n);
    const char *res = NULL;
    if (r.kvs.n) {
        snprintf(v, sizeof(v), "%s", (const char *)r.kvs.kv[0].value);
        res = v;
    }
    etcd_range_resp_free(&r);
    return res;
}

static void check_kv(struct etcd_client *c)
{
    char k[128];
    struct etcd_range_resp r;
    struct etcd_delete_resp d;

    check_name = "kv";
    put(c, "kv/a", "1", 0);
    put(c, "kv/b", "2", 0);
    put(c, "kv/c", "3", 0);
    put(c, "kw", "outside", 0);
    const char *v = get(c, "kv/b");
    if (!v || strcmp(v, "2"))
        FAIL("kv/b read as %s, put as 2", v ? v : "(absent)");

    key(k, "kv/");
    struct etcd_range q = {.key = k, .key_len = strlen(k), .prefix = true};
    OK(c, etcd_get(c, &q, &r));
    if (r.kvs.n != 3 || r.kvs.more || strcmp((char *)r.kvs.kv[0].value, "1") ||
        strcmp((char *)r.kvs.kv[2].value, "3"))
        FAIL("prefix kv/ gave %zu keys (want a, b, c in order)", r.kvs.n);
    for (size_t i = 0; i < r.kvs.n; i++)
        if (r.kvs.kv[i].version != 1 || r.kvs.kv[i].create_revision <= 0 ||
            r.kvs.kv[i].mod_revision != r.kvs.kv[i].create_revision)
            FAIL("kvs[%zu]: version %" PRId64 " create %" PRId64 " mod %" PRId64, i,
                 r.kvs.kv[i].version, r.kvs.kv[i].create_revision, r.kvs.kv[i].mod_revision);
    etcd_range_resp_free(&r);

    q.limit = 2;
    q.keys_only = true;
    OK(c, etcd_get(c, &q, &r));
    if (r.kvs.n != 2 || !r.kvs.more || r.kvs.count != 3 || r.kvs.kv[0].value_len)
        FAIL("limit 2 keys_only: %zu keys, more %d, count %" PRId64 ", value %zu bytes",
             r.kvs.n, r.kvs.more, r.kvs.count, r.kvs.kv[0].value_len);
    etcd_range_resp_free(&r);

    key(k, "kv/b");
    struct etcd_delete one = {k, strlen(k), false};
    OK(c, etcd_delete(c, &one, &d));
    if (d.deleted != 1 || get(c, "kv/b"))
        FAIL("delete kv/b: deleted %" PRId64 ", still there: %d", d.deleted,
             get(c, "kv/b") != NULL);
    key(k, "kv/");
    struct etcd_delete all = {k, strlen(k), true};
    OK(c, etcd_delete(c, &all, &d));
    if (d.deleted != 2 || !get(c, "kw"))
        FAIL("delete prefix kv/: deleted %" PRId64 " (want 2, kw kept)", d.deleted);
    printf("ok kv\n");
}

static void check_txn(struct etcd_client *c)
{
    char k[128];
    struct etcd_txn_resp r;

    check_name = "txn";
    key(k, "txn/owner");
    for (int round = 0; round < 2; round++) {
        const char *me = round ? "second" : "first";
        struct etcd_cmp cmp = {ETCD_CMP_CREATE, ETCD_CMP_EQUAL, k, strlen(k), 0, NULL, 0};
        struct etcd_op ok = {.kind = ETCD_OP_PUT,
                             .u.put = {k, strlen(k), me, strlen(me), 0}};
        struct etcd_op ko = {.kind = ETCD_OP_RANGE, .u.range = {.key = k, .key_len = strlen(k)}};
        struct etcd_txn t = {&cmp, 1, &ok, 1, &ko, 1};

        OK(c, etcd_txn(c, &t, &r));
        if (r.succeeded != (round == 0) || r.n_resp != 1)
            FAIL("round %d: succeeded %d with %zu answers", round, r.succeeded, r.n_resp);
        if (round == 1 && (r.resp[0].kind != ETCD_OP_RANGE || r.resp[0].kvs.n != 1 ||
                           strcmp((char *)r.resp[0].kvs.kv[0].value, "first")))
            FAIL("the failed txn's range does not show the first owner");
        etcd_txn_resp_free(&r);
    }
    const char *v = get(c, "txn/owner");
    if (!v || strcmp(v, "first"))
        FAIL("owner is %s, want first", v ? v : "(absent)");
    printf("ok txn\n");
}

static void check_lease(struct etcd_client *c)
{
    struct etcd_lease_resp l, ka;

    check_name = "lease";
    OK(c, etcd_lease_grant(c, 2, &l));
    if (l.id <= 0 || l.ttl != 2)
        FAIL("grant: id %" PRId64 " ttl %" PRId64, l.id, l.ttl);
    put(c, "lease/k", "held", l.id);
    /* Kept alive every 500 ms for 4 s, twice the TTL: the key stays. */
    uint64_t until = now_ms() + 4000;
    while (now_ms() < until) {
        OK(c, etcd_lease_keepalive(c, l.id, &ka));
        if (ka.id != l.id || ka.ttl != 2)
            FAIL("keepalive: id %" PRId64 " ttl %" PRId64, ka.id, ka.ttl);
        if (!get(c, "lease/k"))
            FAIL("key gone while its lease was kept alive");
        sleep_ms(500);
    }
    OK(c, etcd_lease_keepalive(c, l.id, &ka));
    uint64_t last = now_ms();
    /* Not kept alive: gone within TTL plus etcd's expiry scan (500 ms). */
    while (get(c, "lease/k")) {
        if (now_ms() - last > 5000)
            FAIL("key still there 5 s after the last keepalive of a 2 s lease");
        sleep_ms(100);
    }
    uint64_t gone = now_ms() - last;
    if (gone < 1500)
        FAIL("key gone %" PRIu64 " ms after the last keepalive of a 2 s lease", gone);
    int rc = etcd_lease_keepalive(c, l.id, &ka);
    if (rc != -ENOENT)
        FAIL("keepalive of the expired lease: %d (want -ENOENT)", rc);

    OK(c, etcd_lease_grant(c, 60, &l));
    put(c, "lease/r", "held", l.id);
    OK(c, etcd_lease_revoke(c, l.id));
    if (get(c, "lease/r"))
        FAIL("key of a revoked lease still there");
    printf("ok lease (key gone %" PRIu64 " ms after the last keepalive)\n", gone);
}

struct seen {
    size_t n;
    struct {
        enum etcd_event_type type;
        char key[128];
        char value[32];
        int64_t mod;
        bool has_prev;
    } ev[16];
    int64_t compact;
};

static void on_watch(void *arg, const struct etcd_watch_resp *r)
{
    struct seen *s = arg;

    if (r->compact_revision)
        s->compact = r->compact_revision;
    for (size_t i = 0; i < r->n_ev && s->n < 16; i++, s->n++) {
        s->ev[s->n].type = r->ev[i].type;
        snprintf(s->ev[s->n].key, 128, "%s", (char *)r->ev[i].kv.key);
        snprintf(s->ev[s->n].value, 32, "%s", (char *)r->ev[i].kv.value);
        s->ev[s->n].mod = r->ev[i].kv.mod_revision;
        s->ev[s->n].has_prev = r->ev[i].has_prev;
    }
}

static void check_watch(struct etcd_client *c)
{
    char k[128];
    struct seen s = {0};
    struct etcd_watch *w;
    struct etcd_delete_resp d;

    check_name = "watch";
    put(c, "outside", "x", 0);
    int64_t from = put(c, "w/a", "1", 0);
    put(c, "w/b", "2", 0);
    key(k, "w/a");
    struct etcd_delete del = {k, strlen(k), false};
    OK(c, etcd_delete(c, &del, &d));

    key(k, "w/");
    struct etcd_watch_req req = {k, strlen(k), true, from, true, NULL, 0};
    OK(c, etcd_watch_open(c, &req, on_watch, &s, &w, NULL));
    put(c, "outside", "y", 0);
    put(c, "w/c", "3", 0);
    uint64_t until = now_ms() + 3000;
    while (s.n < 4 && now_ms() < until) {
        int rc = etcd_watch_poll(w, 200);
        if (rc < 0)
            FAIL("poll: %s (%s)", strerror(-rc), etcd_watch_error(w));
    }
    static const struct { enum etcd_event_type t; const char *k, *v; } want[] = {
        {ETCD_EV_PUT, "w/a", "1"}, {ETCD_EV_PUT, "w/b", "2"},
        {ETCD_EV_DELETE, "w/a", ""}, {ETCD_EV_PUT, "w/c", "3"}};
    if (s.n != 4)
        FAIL("%zu events seen within 3 s, want 4", s.n);
    for (size_t i = 0; i < 4; i++) {
        char wk[128];
        key(wk, want[i].k);
        if (s.ev[i].type != want[i].t || strcmp(s.ev[i].key, wk) ||
            strcmp(s.ev[i].value, want[i].v) || (i && s.ev[i].mod <= s.ev[i - 1].mod))
            FAIL("event %zu: %s %s=%s at %" PRId64, i,
                 s.ev[i].type == ETCD_EV_PUT ? "PUT" : "DELETE", s.ev[i].key, s.ev[i].value,
                 s.ev[i].mod);
    }
    if (s.ev[0].mod != from || !s.ev[2].has_prev)
        FAIL("first event at %" PRId64 " (want %" PRId64 "), delete without prev_kv",
             s.ev[0].mod, from);
    /* Nothing more: a quiet poll times out with 0. */
    int rc = etcd_watch_poll(w, 300);
    if (rc != 0 || s.n != 4)
        FAIL("quiet poll: %d, %zu events", rc, s.n);
    etcd_watch_close(w);
    printf("ok watch (4 events from revision %" PRId64 " in order)\n", from);
}

static void check_compacted(struct etcd_client *c)
{
    char k[128];
    struct seen s = {0};
    struct etcd_watch *w = NULL;
    struct etcd_range_resp r;
    int64_t compact = 0;

    check_name = "compacted";
    int64_t old = put(c, "cmp/a", "1", 0);
    put(c, "cmp/a", "2", 0);
    int64_t now = put(c, "cmp/a", "3", 0);
    OK(c, etcd_compact(c, now, NULL));

    key(k, "cmp/");
    struct etcd_watch_req req = {k, strlen(k), true, old, false, NULL, 0};
    /* etcd creates the watch, then cancels it (its watchers are synced
     * every 100 ms): -ESTALE from the open or from the first polls. */
    int rc = etcd_watch_open(c, &req, on_watch, &s, &w, &compact);
    if (rc == 0) {
        uint64_t until = now_ms() + 2000;
        while ((rc = etcd_watch_poll(w, 200)) >= 0 && now_ms() < until)
            ;
        compact = s.compact;
        printf("ok compacted watch: %s\n", etcd_watch_error(w));
        etcd_watch_close(w);
    } else {
        printf("ok compacted watch: %s\n", etcd_client_error(c));
    }
    if (rc != -ESTALE || compact != now || s.n)
        FAIL("watch from compacted %" PRId64 ": %d, compact_revision %" PRId64
             ", %zu events (want -ESTALE, %" PRId64 ", none)", old, rc, compact, s.n, now);

    struct etcd_range q = {.key = k, .key_len = strlen(k), .prefix = true, .revision = old};
    rc = etcd_get(c, &q, &r);
    if (rc != -ESTALE)
        FAIL("range at compacted %" PRId64 ": %d (want -ESTALE)", old, rc);
    printf("ok compacted range: %s\n", etcd_client_error(c));
}

static enum etcd_api api(void)
{
    const char *a = getenv("ETCD_PROBE_API");

    return a && !strcmp(a, "json") ? ETCD_API_JSON : ETCD_API_GRPC;
}

static struct etcd_client *client_as(char **urls, size_t n, const char *user,
                                     const char *password)
{
    char err[ETCD_ERR_MAX];
    struct etcd_client_cfg cfg = {
        .endpoints = (const char *const *)urls, .n_endpoints = n, .timeout_ms = TIMEOUT_MS,
        .connect_timeout_ms = 500, .user = user, .password = password, .api = api()};
    struct etcd_client *c = etcd_client_new(&cfg, err);

    if (!c) {
        printf("FAIL client: %s\n", err);
        exit(1);
    }
    return c;
}

static struct etcd_client *client(char **urls, size_t n)
{
    return client_as(urls, n, NULL, NULL);
}

static struct etcd_client *client_tls(char *url, const char *ca, const char *cert,
                                      const char *key)
{
    char err[ETCD_ERR_MAX];
    struct etcd_client_cfg cfg = {.endpoints = (const char *const *)&url, .n_endpoints = 1,
                                  .timeout_ms = TIMEOUT_MS, .ca = ca, .cert = cert,
                                  .key = key, .api = api()};
    struct etcd_client *c = etcd_client_new(&cfg, err);

    if (!c)
        FAIL("client: %s", err);
    return c;
}

static void check_tls(char *url, const char *ca, const char *cert, const char *key)
{
    struct etcd_client *c = client_tls(url, ca, cert, key);
    struct etcd_client *no_cert = client_tls(url, ca, NULL, NULL);
    struct etcd_client *no_ca = client_tls(url, NULL, cert, key);
    struct etcd_put p = {"/probe/tls", 10, "x", 1, 0};
    int rc;

    check_name = "tls";
    snprintf(pfx, sizeof(pfx), "/probe/tls/");
    put(c, "k", "over-tls", 0);
    const char *v = get(c, "k");
    if (!v || strcmp(v, "over-tls"))
        FAIL("read back %s", v ? v : "(absent)");
    printf("ok tls: put and get with the CA and a client certificate\n");
    if ((rc = etcd_put(no_cert, &p, NULL)) == 0 || !etcd_client_error(no_cert)[0])
        FAIL("a put without a client certificate: %d", rc);
    printf("ok tls: no client certificate: %s: %s\n", strerror(-rc),
           etcd_client_error(no_cert));
    if ((rc = etcd_put(no_ca, &p, NULL)) == 0 || !etcd_client_error(no_ca)[0])
        FAIL("a put that does not trust etcd's CA: %d", rc);
    printf("ok tls: etcd's CA not trusted: %s: %s\n", strerror(-rc), etcd_client_error(no_ca));
    etcd_client_free(c);
    etcd_client_free(no_cert);
    etcd_client_free(no_ca);
}

static void check_auth(char *url, const char *user, const char *password)
{
    struct etcd_client *anon = client(&url, 1);
    struct etcd_client *wrong = client_as(&url, 1, user, "not-the-password");
    struct etcd_client *c = client_as(&url, 1, user, password);
    struct etcd_put p = {"/probe/auth", 11, "x", 1, 0};
    struct seen s = {0};
    struct etcd_watch *w;
    int rc;

    check_name = "auth";
    snprintf(pfx, sizeof(pfx), "/probe/auth/");
    if ((rc = etcd_put(anon, &p, NULL)) != -EPERM)
        FAIL("put without credentials: %d '%s' (want -EPERM)", rc, etcd_client_error(anon));
    printf("ok auth: no credentials: %s\n", etcd_client_error(anon));
    if ((rc = etcd_put(wrong, &p, NULL)) != -EPERM)
        FAIL("put with a wrong password: %d '%s' (want -EPERM)", rc,
             etcd_client_error(wrong));
    printf("ok auth: wrong password: %s\n", etcd_client_error(wrong));
    int64_t from = put(c, "k", "1", 0);
    const char *v = get(c, "k");
    if (!v || strcmp(v, "1"))
        FAIL("read back %s", v ? v : "(absent)");
    char k[128];
    key(k, "");
    struct etcd_watch_req req = {k, strlen(k), true, from, false, NULL, 0};
    /* Twice: the second time after the token (TTL 1 s on this etcd)
     * expired unused: the watch is refused once, authenticates again and
     * is made; then a put the same way. */
    for (int round = 0; round < 2; round++) {
        s.n = 0;
        OK(c, etcd_watch_open(c, &req, on_watch, &s, &w, NULL));
        uint64_t until = now_ms() + 2000;
        while (s.n < 1 && now_ms() < until)
            if ((rc = etcd_watch_poll(w, 200)) < 0)
                FAIL("watch: %s", etcd_watch_error(w));
        etcd_watch_close(w);
        if (s.n != 1)
            FAIL("the watch saw %zu events, want 1", s.n);
        if (!round)
            sleep_ms(2500);
    }
    sleep_ms(2500);
    put(c, "k", "2", 0);
    v = get(c, "k");
    if (!v || strcmp(v, "2"))
        FAIL("after the token expired: read back %s", v ? v : "(absent)");
    printf("ok auth: put, get and watch with a token, renewed after it expired\n");
    etcd_client_free(anon);
    etcd_client_free(wrong);
    etcd_client_free(c);
}

/* A kept connection whose etcd went away between two calls (killed -9:
 * no GOAWAY, only a closed socket) and came back: the second call is not
 * lost nor of unknown outcome, it goes on a new connection. go_file: the
 * script creates it once etcd is back. */
static void check_restart(const char *go_file, char **urls, size_t n)
{
    struct etcd_client *c = client(urls, n);
    struct etcd_client_stats st;

    check_name = "restart";
    snprintf(pfx, sizeof(pfx), "/probe/%d/", (int)getpid());
    put(c, "r", "1", 0);
    printf("ready: one call answered\n");
    for (unsigned waited = 0; access(go_file, F_OK) != 0; waited += 20) {
        if (waited > 60000)
            FAIL("%s not created within 60 s", go_file);
        sleep_ms(20);
    }
    put(c, "r", "2", 0);
    const char *v = get(c, "r");
    if (!v || strcmp(v, "2"))
        FAIL("read back %s after etcd came back, want 2", v ? v : "(absent)");
    etcd_client_stats(c, &st);
    if (st.connects != 2 || st.calls != 3)
        FAIL("%" PRIu64 " calls over %" PRIu64 " connections (want 3 over 2)", st.calls,
             st.connects);
    printf("ok restart: etcd killed and back between calls, the next one on a new "
           "connection\n");
    etcd_client_free(c);
}

int main(int argc, char **argv)
{
    /* Each line out as it is printed, so a crash still shows how far it got. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 6 && !strcmp(argv[1], "tls")) {
        check_tls(argv[2], argv[3], argv[4], argv[5]);
        return 0;
    }
    if (argc >= 4 && !strcmp(argv[1], "restart")) {
        check_restart(argv[2], argv + 3, (size_t)argc - 3);
        return 0;
    }
    if (argc == 5 && !strcmp(argv[1], "auth")) {
        check_auth(argv[2], argv[3], argv[4]);
        return 0;
    }
    if (argc >= 3 && !strcmp(argv[1], "check")) {
        struct etcd_client *c = client(argv + 2, (size_t)argc - 2);
        snprintf(pfx, sizeof(pfx), "/probe/%d/", (int)getpid());
        check_kv(c);
        /* Keep-alive: the kv check's eleven calls share one connection,
         * HTTP/1.1 to the gateway or HTTP/2 for gRPC. */
        struct etcd_client_stats st;
        etcd_client_stats(c, &st);
        uint64_t want = 1;
        if (st.calls < 10 || st.connects != want || st.failovers != (argc > 3))
            FAIL("%" PRIu64 " calls over %" PRIu64 " connections, %" PRIu64 " failovers "
                 "(want %" PRIu64 " connections, %d failover)", st.calls, st.connects,
                 st.failovers, want, argc > 3);
        printf("ok connections: %" PRIu64 " calls over %" PRIu64 " connections\n", st.calls,
               st.connects);
        if (argc > 3 && strcmp(etcd_client_endpoint(c), argv[argc - 1]))
            FAIL("client on %s after failover, want %s", etcd_client_endpoint(c),
                 argv[argc - 1]);
        if (argc > 3)
            printf("ok failover (%s dead, on %s)\n", argv[2], etcd_client_endpoint(c));
        check_txn(c);
        check_watch(c);
        check_compacted(c);
        check_lease(c);
        etcd_client_free(c);
        return 0;
    }
    if (argc >= 4 && !strcmp(argv[1], "down")) {
        int want = !strcmp(argv[2], "ETIMEDOUT") ? ETIMEDOUT : ECONNREFUSED;
        struct etcd_client *c = client(argv + 3, (size_t)argc - 3);
        struct etcd_put p = {"/probe/down", 11, "x", 1, 0};
        uint64_t t0 = now_ms();
        int rc = etcd_put(c, &p, NULL);
        uint64_t took = now_ms() - t0;

        check_name = "down";
        if (rc != -want || took > TIMEOUT_MS + 500 || !etcd_client_error(c)[0])
            FAIL("put: %d in %" PRIu64 " ms (want -%s within %u ms), error '%s'", rc, took,
                 argv[2], TIMEOUT_MS, etcd_client_error(c));
        printf("ok down: -%s in %" PRIu64 " ms: %s\n", argv[2], took, etcd_client_error(c));
        etcd_client_free(c);
        return 0;
    }
    fprintf(stderr, "usage: etcd-probe check URL... | etcd-probe down ERRNO URL... | "
            "etcd-probe auth URL USER PASSWORD | etcd-probe tls URL CA CERT KEY\n");
    return 2;
}
