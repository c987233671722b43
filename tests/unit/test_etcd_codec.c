/*
 * test_etcd_codec: etcd v3 gateway requests as exact text, and answers
 * (as etcd 3.4.23 wrote them, captured with curl) decoded into structs;
 * the bounds, malformed and hostile answers, and the gateway's errors.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etcd_codec.h"

#define HDR "\"header\":{\"cluster_id\":\"12966031952838966607\"," \
            "\"member_id\":\"15678082314305046212\",\"revision\":\"2\",\"raft_term\":\"2\"}"

/* text is read after rc is computed: the call has filled it by then. */
static void expect_req(int rc, char **text, const char *want)
{
    assert_int_equal(rc, 0);
    assert_non_null(*text);
    assert_string_equal(*text, want);
    free(*text);
    *text = NULL;
}

/* ---- requests ---- */

static void test_req_put(void **state)
{
    (void)state;
    char *t = NULL;
    struct etcd_put p = {"a", 1, "1", 1, 0};

    expect_req(etcd_req_put(&p, &t), &t, "{\"key\":\"YQ==\",\"value\":\"MQ==\"}");
    p.lease = 487693054366313482;
    expect_req(etcd_req_put(&p, &t), &t,
               "{\"key\":\"YQ==\",\"value\":\"MQ==\",\"lease\":\"487693054366313482\"}");
    /* An empty value is a value: written, as "". */
    struct etcd_put e = {"k", 1, NULL, 0, 0};
    expect_req(etcd_req_put(&e, &t), &t, "{\"key\":\"aw==\",\"value\":\"\"}");
}

static void test_req_range(void **state)
{
    (void)state;
    char *t = NULL;
    struct etcd_range one = {.key = "a", .key_len = 1};
    struct etcd_range pfx = {.key = "/a", .key_len = 2, .prefix = true, .limit = 10,
                             .revision = 5, .keys_only = true};
    struct etcd_range all = {.prefix = true};
    struct etcd_range span = {.key = "a", .key_len = 1, .range_end = "c", .range_end_len = 1};

    expect_req(etcd_req_range(&one, &t), &t, "{\"key\":\"YQ==\"}");
    expect_req(etcd_req_range(&pfx, &t), &t,
               "{\"key\":\"L2E=\",\"range_end\":\"L2I=\",\"limit\":\"10\",\"revision\":\"5\","
               "\"keys_only\":true}");
    /* Every key: key "\0" and range_end "\0", etcd's convention. */
    expect_req(etcd_req_range(&all, &t), &t, "{\"key\":\"AA==\",\"range_end\":\"AA==\"}");
    expect_req(etcd_req_range(&span, &t), &t, "{\"key\":\"YQ==\",\"range_end\":\"Yw==\"}");
}

static void test_req_delete(void **state)
{
    (void)state;
    char *t = NULL;
    struct etcd_delete one = {"a", 1, false};
    struct etcd_delete pfx = {"a\xff", 2, true};

    expect_req(etcd_req_delete(&one, &t), &t, "{\"key\":\"YQ==\"}");
    /* "a\xff"'s prefix ends at "b": the 0xff is dropped, 'a' incremented. */
    expect_req(etcd_req_delete(&pfx, &t), &t, "{\"key\":\"Yf8=\",\"range_end\":\"Yg==\"}");
}

static void test_req_txn(void **state)
{
    (void)state;
    char *t = NULL;
    struct etcd_cmp cmp[] = {
        {ETCD_CMP_CREATE, ETCD_CMP_EQUAL, "a", 1, 0, NULL, 0},
        {ETCD_CMP_MOD, ETCD_CMP_LESS, "b", 1, 9, NULL, 0},
        {ETCD_CMP_VERSION, ETCD_CMP_GREATER, "c", 1, 2, NULL, 0},
        {ETCD_CMP_VALUE, ETCD_CMP_NOT_EQUAL, "d", 1, 0, "x", 1},
    };
    struct etcd_op ok[] = {
        {.kind = ETCD_OP_PUT, .u.put = {"a", 1, "2", 1, 3}},
        {.kind = ETCD_OP_DELETE, .u.del = {"b", 1, false}},
    };
    struct etcd_op ko[] = {{.kind = ETCD_OP_RANGE, .u.range = {.key = "a", .key_len = 1}}};
    struct etcd_txn txn = {cmp, 4, ok, 2, ko, 1};

    expect_req(etcd_req_txn(&txn, &t), &t,
               "{\"compare\":["
               "{\"target\":\"CREATE\",\"result\":\"EQUAL\",\"key\":\"YQ==\","
               "\"create_revision\":\"0\"},"
               "{\"target\":\"MOD\",\"result\":\"LESS\",\"key\":\"Yg==\",\"mod_revision\":\"9\"},"
               "{\"target\":\"VERSION\",\"result\":\"GREATER\",\"key\":\"Yw==\","
               "\"version\":\"2\"},"
               "{\"target\":\"VALUE\",\"result\":\"NOT_EQUAL\",\"key\":\"ZA==\","
               "\"value\":\"eA==\"}],"
               "\"success\":[{\"request_put\":{\"key\":\"YQ==\",\"value\":\"Mg==\","
               "\"lease\":\"3\"}},{\"request_delete_range\":{\"key\":\"Yg==\"}}],"
               "\"failure\":[{\"request_range\":{\"key\":\"YQ==\"}}]}");
    /* No compares, no failure branch: only what is there is written. */
    struct etcd_txn bare = {NULL, 0, ok, 1, NULL, 0};
    expect_req(etcd_req_txn(&bare, &t), &t,
               "{\"success\":[{\"request_put\":{\"key\":\"YQ==\",\"value\":\"Mg==\","
               "\"lease\":\"3\"}}]}");
}

static void test_req_lease_watch_auth(void **state)
{
    (void)state;
    char *t = NULL;
    struct etcd_watch_req w = {"/o/", 3, true, 42, true, NULL, 0};
    struct etcd_watch_req now = {"k", 1, false, 0, false, NULL, 0};
    struct etcd_watch_req span = {"a/", 2, false, 0, false, "b0", 2};

    expect_req(etcd_req_compact(17, true, &t), &t, "{\"revision\":\"17\",\"physical\":true}");
    expect_req(etcd_req_lease_grant(2, &t), &t, "{\"TTL\":\"2\"}");
    expect_req(etcd_req_lease_keepalive(7, &t), &t, "{\"ID\":\"7\"}");
    expect_req(etcd_req_lease_revoke(7, &t), &t, "{\"ID\":\"7\"}");
    expect_req(etcd_req_lease_ttl(7, &t), &t, "{\"ID\":\"7\"}");
    expect_req(etcd_req_watch(&w, &t), &t,
               "{\"create_request\":{\"key\":\"L28v\",\"range_end\":\"L28w\","
               "\"start_revision\":\"42\",\"prev_kv\":true}}");
    expect_req(etcd_req_watch(&now, &t), &t, "{\"create_request\":{\"key\":\"aw==\"}}");
    /* An explicit range: a node's view without the flows beside it. */
    expect_req(etcd_req_watch(&span, &t), &t,
               "{\"create_request\":{\"key\":\"YS8=\",\"range_end\":\"YjA=\"}}");
    /* A password with JSON's special characters stays a string. */
    expect_req(etcd_req_auth("root", "p\"w\\", &t), &t,
               "{\"name\":\"root\",\"password\":\"p\\\"w\\\\\"}");
}

static void test_req_bounds(void **state)
{
    (void)state;
    char *t = NULL;
    static char big[ETCD_VALUE_MAX + 2];
    struct etcd_put long_key = {big, ETCD_KEY_MAX + 1, "v", 1, 0};
    struct etcd_put no_key = {"", 0, "v", 1, 0};
    struct etcd_put long_val = {"k", 1, big, ETCD_VALUE_MAX + 1, 0};
    struct etcd_put neg_lease = {"k", 1, "v", 1, -1};
    struct etcd_range neg_rev = {.key = "k", .key_len = 1, .revision = -1};
    struct etcd_range no_key_range = {.key = "", .key_len = 0};
    struct etcd_watch_req neg_start = {"k", 1, false, -5, false, NULL, 0};

    assert_int_equal(etcd_req_put(&long_key, &t), -EINVAL);
    assert_int_equal(etcd_req_put(&no_key, &t), -EINVAL);
    assert_int_equal(etcd_req_put(&long_val, &t), -EINVAL);
    assert_int_equal(etcd_req_put(&neg_lease, &t), -EINVAL);
    assert_int_equal(etcd_req_range(&neg_rev, &t), -EINVAL);
    assert_int_equal(etcd_req_range(&no_key_range, &t), -EINVAL);
    assert_int_equal(etcd_req_watch(&neg_start, &t), -EINVAL);
    assert_int_equal(etcd_req_compact(0, false, &t), -EINVAL);
    assert_int_equal(etcd_req_lease_grant(0, &t), -EINVAL);
    assert_int_equal(etcd_req_lease_keepalive(-1, &t), -EINVAL);
    assert_int_equal(etcd_req_auth("", "x", &t), -EINVAL);

    /* 128 operations per list is etcd's default bound; 129 is refused here. */
    struct etcd_op *ops = calloc(ETCD_TXN_OPS_MAX + 1, sizeof(*ops));
    assert_non_null(ops);
    for (size_t i = 0; i <= ETCD_TXN_OPS_MAX; i++)
        ops[i] = (struct etcd_op){.kind = ETCD_OP_PUT, .u.put = {"k", 1, "v", 1, 0}};
    struct etcd_txn max = {NULL, 0, ops, ETCD_TXN_OPS_MAX, ops, ETCD_TXN_OPS_MAX};
    assert_int_equal(etcd_req_txn(&max, &t), 0);
    free(t);
    struct etcd_txn over = {NULL, 0, ops, ETCD_TXN_OPS_MAX + 1, NULL, 0};
    assert_int_equal(etcd_req_txn(&over, &t), -EINVAL);
    over = (struct etcd_txn){NULL, 0, ops, 1, ops, ETCD_TXN_OPS_MAX + 1};
    assert_int_equal(etcd_req_txn(&over, &t), -EINVAL);
    /* A bad operation deep in a list fails the whole request. */
    ops[5].kind = (enum etcd_op_kind)9;
    assert_int_equal(etcd_req_txn(&max, &t), -EINVAL);
    free(ops);
    struct etcd_cmp bad_cmp = {(enum etcd_cmp_target)7, ETCD_CMP_EQUAL, "k", 1, 0, NULL, 0};
    struct etcd_txn bc = {&bad_cmp, 1, NULL, 0, NULL, 0};
    assert_int_equal(etcd_req_txn(&bc, &t), -EINVAL);
}

static void test_prefix_end(void **state)
{
    (void)state;
    uint8_t out[8];

    assert_int_equal(etcd_prefix_end((const uint8_t *)"abc", 3, out), 3);
    assert_memory_equal(out, "abd", 3);
    assert_int_equal(etcd_prefix_end((const uint8_t *)"a\xff\xff", 3, out), 1);
    assert_memory_equal(out, "b", 1);
    /* Nothing to increment: "\0", every key from the prefix on. */
    assert_int_equal(etcd_prefix_end((const uint8_t *)"\xff\xff", 2, out), 1);
    assert_int_equal(out[0], 0);
}

/* A paged range goes on just after the page's last key (a NUL after it:
 * the least key above it), only while etcd says there is more. */
static void test_range_next_page(void **state)
{
    (void)state;
    uint8_t k1[] = "p/a", k2[] = "p/b\xff";
    struct etcd_kv kv[2] = {{.key = k1, .key_len = 3}, {.key = k2, .key_len = 4}};
    struct etcd_range_resp r = {.kvs = {.kv = kv, .n = 2, .more = true}};
    uint8_t *from = (uint8_t *)strdup("p/");
    size_t from_len = 2;

    assert_int_equal(etcd_range_next_page(&r, &from, &from_len), 1);
    assert_int_equal(from_len, 5);
    assert_memory_equal(from, "p/b\xff\0", 5);
    r.kvs.more = false;
    assert_int_equal(etcd_range_next_page(&r, &from, &from_len), 0);
    assert_int_equal(from_len, 5);
    r.kvs.more = true;
    r.kvs.n = 0;                    /* "more" with no key: nothing to go on from */
    assert_int_equal(etcd_range_next_page(&r, &from, &from_len), 0);
    free(from);
}

static void test_b64(void **state)
{
    (void)state;
    static const char *const vec[][2] = {{"", ""}, {"f", "Zg=="}, {"fo", "Zm8="},
                                         {"foo", "Zm9v"}, {"foob", "Zm9vYg=="},
                                         {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
    char enc[16];
    uint8_t dec[16];

    for (size_t i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
        size_t n = strlen(vec[i][0]);
        assert_int_equal(etcd_b64_encode((const uint8_t *)vec[i][0], n, enc),
                         strlen(vec[i][1]));
        assert_string_equal(enc, vec[i][1]);
        assert_int_equal(etcd_b64_decode(vec[i][1], strlen(vec[i][1]), dec), (int)n);
        assert_memory_equal(dec, vec[i][0], n);
    }
    /* Every byte value survives. */
    uint8_t all[256], back[258];
    char *e = malloc(ETCD_B64_LEN(256) + 1);
    for (int i = 0; i < 256; i++)
        all[i] = (uint8_t)i;
    etcd_b64_encode(all, 256, e);
    assert_int_equal(etcd_b64_decode(e, strlen(e), back), 256);
    assert_memory_equal(back, all, 256);
    free(e);
    static const char *const bad[] = {"Zg=", "Z===", "====", "Zg==Zg==", "Zm9*", "Zg=a",
                                      "Zm 9", "Zm9v\n", "Zm-_"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(etcd_b64_decode(bad[i], strlen(bad[i]), dec), -EBADMSG);
}

/* ---- responses ---- */

#define DEC(fn, text, out) fn(text, strlen(text), out, err)

static void test_decode_range(void **state)
{
    (void)state;
    char err[ETCD_ERR_MAX];
    struct etcd_range_resp r;
    const char *t = "{" HDR ",\"kvs\":[{\"key\":\"YQ==\",\"create_revision\":\"2\","
                    "\"mod_revision\":\"2\",\"version\":\"1\",\"value\":\"MQ==\","
                    "\"lease\":\"487693054366313482\"},{\"key\":\"Yg==\"}],\"more\":true,"
                    "\"count\":\"7\"}";

    assert_int_equal(DEC(etcd_decode_range, t, &r), 0);
    assert_int_equal(r.hdr.revision, 2);
    assert_int_equal(r.hdr.raft_term, 2);
    assert_true(r.hdr.member_id == 15678082314305046212ull);
    assert_int_equal(r.kvs.n, 2);
    assert_true(r.kvs.more);
    assert_int_equal(r.kvs.count, 7);
    assert_string_equal((char *)r.kvs.kv[0].key, "a");
    assert_int_equal(r.kvs.kv[0].key_len, 1);
    assert_string_equal((char *)r.kvs.kv[0].value, "1");
    assert_int_equal(r.kvs.kv[0].create_revision, 2);
    assert_int_equal(r.kvs.kv[0].mod_revision, 2);
    assert_int_equal(r.kvs.kv[0].version, 1);
    assert_true(r.kvs.kv[0].lease == 487693054366313482);
    /* keys_only: no value field, an empty value. */
    assert_int_equal(r.kvs.kv[1].value_len, 0);
    assert_string_equal((char *)r.kvs.kv[1].value, "");
    etcd_range_resp_free(&r);
    etcd_range_resp_free(&r);   /* twice is harmless */

    /* Nothing found: proto3 leaves kvs and count out. */
    assert_int_equal(DEC(etcd_decode_range, "{" HDR "}", &r), 0);
    assert_int_equal(r.kvs.n, 0);
    assert_int_equal(r.kvs.count, 0);
    etcd_range_resp_free(&r);
    /* Numbers as JSON integers are taken as well as strings. */
    assert_int_equal(DEC(etcd_decode_range, "{\"header\":{\"revision\":9}}", &r), 0);
    assert_int_equal(r.hdr.revision, 9);
    etcd_range_resp_free(&r);
}

static void test_decode_txn_delete_lease(void **state)
{
    (void)state;
    char err[ETCD_ERR_MAX];
    struct etcd_txn_resp t;
    struct etcd_delete_resp d;
    struct etcd_lease_resp l;

    assert_int_equal(DEC(etcd_decode_txn,
                         "{" HDR ",\"succeeded\":true,\"responses\":[{\"response_put\":"
                         "{\"header\":{\"revision\":\"3\"}}},{\"response_delete_range\":"
                         "{\"header\":{\"revision\":\"3\"},\"deleted\":\"1\"}}]}", &t), 0);
    assert_true(t.succeeded);
    assert_int_equal(t.n_resp, 2);
    assert_int_equal(t.resp[0].kind, ETCD_OP_PUT);
    assert_int_equal(t.resp[1].kind, ETCD_OP_DELETE);
    assert_int_equal(t.resp[1].deleted, 1);
    etcd_txn_resp_free(&t);

    /* A failed compare: "succeeded" absent, the failure branch's range. */
    assert_int_equal(DEC(etcd_decode_txn,
                         "{" HDR ",\"responses\":[{\"response_range\":{\"header\":"
                         "{\"revision\":\"2\"},\"kvs\":[{\"key\":\"YQ==\",\"create_revision\":"
                         "\"2\",\"mod_revision\":\"2\",\"version\":\"1\",\"value\":\"MQ==\"}],"
                         "\"count\":\"1\"}}]}", &t), 0);
    assert_false(t.succeeded);
    assert_int_equal(t.resp[0].kind, ETCD_OP_RANGE);
    assert_int_equal(t.resp[0].kvs.n, 1);
    assert_string_equal((char *)t.resp[0].kvs.kv[0].value, "1");
    etcd_txn_resp_free(&t);

    assert_int_equal(DEC(etcd_decode_delete, "{" HDR ",\"deleted\":\"1\"}", &d), 0);
    assert_int_equal(d.deleted, 1);
    assert_int_equal(d.hdr.revision, 2);

    assert_int_equal(DEC(etcd_decode_lease, "{" HDR ",\"ID\":\"487693054366313482\","
                         "\"TTL\":\"5\"}", &l), 0);
    assert_true(l.id == 487693054366313482);
    assert_int_equal(l.ttl, 5);
    /* keepalive's streamed form; a lease etcd no longer has has no TTL. */
    assert_int_equal(DEC(etcd_decode_lease, "{\"result\":{" HDR ",\"ID\":\"7\","
                         "\"TTL\":\"2\"}}", &l), 0);
    assert_int_equal(l.id, 7);
    assert_int_equal(l.ttl, 2);
    assert_int_equal(DEC(etcd_decode_lease, "{\"result\":{" HDR ",\"ID\":\"123\"}}", &l), 0);
    assert_int_equal(l.ttl, 0);
    /* timetolive of a lease etcd no longer has: TTL -1. */
    assert_int_equal(DEC(etcd_decode_lease, "{" HDR ",\"ID\":\"12345\",\"TTL\":\"-1\"}", &l), 0);
    assert_int_equal(l.ttl, -1);
}

static void test_decode_watch(void **state)
{
    (void)state;
    char err[ETCD_ERR_MAX];
    struct etcd_watch_resp w;

    assert_int_equal(DEC(etcd_decode_watch, "{\"result\":{" HDR ",\"created\":true}}", &w), 0);
    assert_true(w.created);
    assert_false(w.canceled);
    assert_int_equal(w.n_ev, 0);
    etcd_watch_resp_free(&w);

    /* A PUT's type is proto3's default: absent. */
    assert_int_equal(DEC(etcd_decode_watch,
                         "{\"result\":{" HDR ",\"events\":[{\"kv\":{\"key\":\"Yw==\","
                         "\"create_revision\":\"5\",\"mod_revision\":\"5\",\"version\":\"1\","
                         "\"value\":\"eA==\"}},{\"type\":\"DELETE\",\"kv\":{\"key\":\"Yg==\","
                         "\"mod_revision\":\"6\"},\"prev_kv\":{\"key\":\"Yg==\","
                         "\"create_revision\":\"3\",\"mod_revision\":\"3\",\"version\":\"1\","
                         "\"value\":\"Mg==\"}}]}}", &w), 0);
    assert_int_equal(w.n_ev, 2);
    assert_int_equal(w.ev[0].type, ETCD_EV_PUT);
    assert_string_equal((char *)w.ev[0].kv.key, "c");
    assert_string_equal((char *)w.ev[0].kv.value, "x");
    assert_int_equal(w.ev[0].kv.mod_revision, 5);
    assert_false(w.ev[0].has_prev);
    assert_int_equal(w.ev[1].type, ETCD_EV_DELETE);
    assert_int_equal(w.ev[1].kv.mod_revision, 6);
    assert_true(w.ev[1].has_prev);
    assert_string_equal((char *)w.ev[1].prev.value, "2");
    etcd_watch_resp_free(&w);

    /* A start revision below the compaction: canceled with the revision. */
    assert_int_equal(DEC(etcd_decode_watch,
                         "{\"result\":{\"header\":{\"raft_term\":\"2\"},\"canceled\":true,"
                         "\"compact_revision\":\"3\"}}", &w), 0);
    assert_true(w.canceled);
    assert_int_equal(w.compact_revision, 3);
    etcd_watch_resp_free(&w);
    assert_int_equal(etcd_watch_end(&w), -ESTALE);
    assert_int_equal(DEC(etcd_decode_watch,
                         "{\"result\":{\"canceled\":true,\"cancel_reason\":\"gone\"}}", &w), 0);
    assert_string_equal(w.cancel_reason, "gone");
    assert_int_equal(etcd_watch_end(&w), -ECANCELED);
    etcd_watch_resp_free(&w);
    /* A watch made with a token etcd no longer takes is created, then
     * canceled with this reason (etcd 3.4.23): an authentication failure,
     * so the client authenticates again. */
    assert_int_equal(DEC(etcd_decode_watch,
                         "{\"result\":{\"header\":{\"revision\":\"9\"},\"canceled\":true,"
                         "\"cancel_reason\":\"rpc error: code = Unauthenticated desc = "
                         "etcdserver: invalid auth token\"}}", &w), 0);
    assert_int_equal(etcd_watch_end(&w), -EPERM);
    assert_int_equal(DEC(etcd_decode_watch,
                         "{\"result\":{\"canceled\":true,\"cancel_reason\":\"rpc error: "
                         "code = PermissionDenied desc = etcdserver: permission denied\"}}",
                         &w), 0);
    assert_int_equal(etcd_watch_end(&w), -EPERM);
    assert_int_equal(DEC(etcd_decode_watch, "{\"result\":{\"created\":true}}", &w), 0);
    assert_int_equal(etcd_watch_end(&w), 0);
}

static void test_decode_errors(void **state)
{
    (void)state;
    char err[ETCD_ERR_MAX];
    struct etcd_header h;
    struct etcd_range_resp r;
    struct etcd_watch_resp w;
    struct etcd_lease_resp l;

    assert_int_equal(DEC(etcd_decode_range, "{\"error\":\"etcdserver: mvcc: required revision "
                         "has been compacted\",\"message\":\"etcdserver: mvcc: required "
                         "revision has been compacted\",\"code\":11}", &r), -ESTALE);
    assert_non_null(strstr(err, "required revision has been compacted"));
    assert_int_equal(DEC(etcd_decode_lease, "{\"error\":\"etcdserver: requested lease not "
                         "found\",\"message\":\"etcdserver: requested lease not found\","
                         "\"code\":5}", &l), -ENOENT);
    assert_non_null(strstr(err, "requested lease not found"));
    assert_int_equal(DEC(etcd_decode_header_only, "{\"error\":\"etcdserver: invalid auth "
                         "token\",\"message\":\"etcdserver: invalid auth token\",\"code\":16}",
                         &h), -EPERM);
    assert_int_equal(DEC(etcd_decode_header_only, "{\"error\":\"etcdserver: permission "
                         "denied\",\"code\":7}", &h), -EPERM);
    assert_non_null(strstr(err, "permission denied"));
    assert_int_equal(DEC(etcd_decode_header_only, "{\"error\":\"etcdserver: authentication "
                         "is not enabled\",\"code\":9}", &h), -EIO);
    /* A stream's error form. */
    assert_int_equal(DEC(etcd_decode_watch, "{\"error\":{\"grpc_code\":14,\"http_code\":503,"
                         "\"message\":\"etcdserver: no leader\",\"http_status\":\"Service "
                         "Unavailable\"}}", &w), -EAGAIN);
    assert_non_null(strstr(err, "no leader"));
    /* etcd 3.4 answers a wrong password and a missing token with
     * InvalidArgument (3): they are authentication failures all the same. */
    assert_int_equal(DEC(etcd_decode_header_only, "{\"error\":\"etcdserver: authentication "
                         "failed, invalid user ID or password\",\"message\":\"etcdserver: "
                         "authentication failed, invalid user ID or password\",\"code\":3}",
                         &h), -EPERM);
    assert_int_equal(DEC(etcd_decode_header_only, "{\"error\":\"etcdserver: user name is "
                         "empty\",\"message\":\"etcdserver: user name is empty\",\"code\":3}",
                         &h), -EPERM);
    assert_int_equal(etcd_grpc_errno(4, "context deadline exceeded"), -ETIMEDOUT);
    assert_int_equal(etcd_grpc_errno(3, "etcdserver: too many operations in txn request"),
                     -EINVAL);
}

/* Each malformed answer fails with its errno and says where. */
static void test_decode_malformed(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int rc;
        const char *where;
    } cases[] = {
        {"", -EBADMSG, "not JSON"},
        {"{\"header\":", -EBADMSG, "not JSON"},
        {"[1,2]", -EBADMSG, "not a JSON object"},
        {"{\"header\":[]}", -EBADMSG, "answer.header"},
        {"{\"header\":{\"revision\":\"12a\"}}", -EBADMSG, "header.revision"},
        {"{\"header\":{\"revision\":\"99999999999999999999\"}}", -EBADMSG, "header.revision"},
        {"{\"header\":{\"revision\":1.5}}", -EBADMSG, "header.revision"},
        {"{\"header\":{\"revision\":\"\"}}", -EBADMSG, "header.revision"},
        {"{\"header\":{\"revision\":\"-\"}}", -EBADMSG, "header.revision"},
        {"{\"kvs\":{}}", -EBADMSG, "range.kvs"},
        {"{\"kvs\":[1]}", -EBADMSG, "range.kvs[0]"},
        {"{\"kvs\":[{\"key\":\"Y!==\"}]}", -EBADMSG, "range.kvs[0].key"},
        {"{\"kvs\":[{\"key\":5}]}", -EBADMSG, "range.kvs[0].key"},
        {"{\"kvs\":[{\"key\":\"YQ==\",\"version\":true}]}", -EBADMSG, "version"},
        {"{\"more\":\"yes\"}", -EBADMSG, "range.more"},
        {"{\"count\":\"1\",\"count\":\"2\"}", -EBADMSG, "not JSON"},
    };
    char err[ETCD_ERR_MAX];
    struct etcd_range_resp r;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        err[0] = 0;
        int rc = etcd_decode_range(cases[i].text, strlen(cases[i].text), &r, err);
        if (rc != cases[i].rc || !strstr(err, cases[i].where))
            fail_msg("case %zu '%s': %d '%s'", i, cases[i].text, rc, err);
        etcd_range_resp_free(&r);
    }

    struct etcd_watch_resp w;
    static const char *const bad_watch[] = {
        "{\"header\":{}}",                                          /* no result */
        "{\"result\":[]}",
        "{\"result\":{\"events\":[{\"type\":\"BOGUS\",\"kv\":{\"key\":\"YQ==\"}}]}}",
        "{\"result\":{\"events\":[{\"type\":\"PUT\"}]}}",              /* no kv */
        "{\"result\":{\"events\":[{\"kv\":{}}]}}",                     /* empty key */
        "{\"result\":{\"events\":[{\"kv\":{\"key\":\"YQ==\"},\"prev_kv\":7}]}}",
        "{\"result\":{\"created\":1}}",
    };
    for (size_t i = 0; i < sizeof(bad_watch) / sizeof(bad_watch[0]); i++) {
        err[0] = 0;
        int rc = etcd_decode_watch(bad_watch[i], strlen(bad_watch[i]), &w, err);
        if (rc != -EBADMSG || !err[0])
            fail_msg("watch case %zu '%s': %d '%s'", i, bad_watch[i], rc, err);
        etcd_watch_resp_free(&w);
    }

    struct etcd_txn_resp t;
    static const char *const bad_txn[] = {
        "{\"responses\":[{\"response_put\":{},\"response_range\":{}}]}",
        "{\"responses\":[{\"response_other\":{}}]}",
        "{\"responses\":[{\"response_range\":{\"kvs\":[{\"key\":\"%%%%\"}]}}]}",
        "{\"succeeded\":\"true\"}",
    };
    for (size_t i = 0; i < sizeof(bad_txn) / sizeof(bad_txn[0]); i++) {
        err[0] = 0;
        int rc = etcd_decode_txn(bad_txn[i], strlen(bad_txn[i]), &t, err);
        if (rc != -EBADMSG || !err[0])
            fail_msg("txn case %zu '%s': %d '%s'", i, bad_txn[i], rc, err);
        etcd_txn_resp_free(&t);
    }
}

/* Past every bound: -EMSGSIZE, nothing kept. */
static void test_decode_bounds(void **state)
{
    (void)state;
    char err[ETCD_ERR_MAX];
    struct etcd_range_resp r;
    struct etcd_txn_resp t;
    size_t b64 = ETCD_B64_LEN(ETCD_KEY_MAX + 3);
    char *text = malloc(b64 + 64);
    int n = sprintf(text, "{\"kvs\":[{\"key\":\"");

    /* A key of ETCD_KEY_MAX + 3 bytes. */
    memset(text + n, 'Q', b64);
    strcpy(text + n + b64, "\"}]}");
    assert_int_equal(etcd_decode_range(text, strlen(text), &r, err), -EMSGSIZE);
    assert_non_null(strstr(err, "kvs[0].key"));
    etcd_range_resp_free(&r);
    free(text);

    /* ETCD_KVS_MAX + 1 pairs. */
    size_t cap = 16 + (ETCD_KVS_MAX + 1) * 3;
    text = malloc(cap);
    n = sprintf(text, "{\"kvs\":[");
    for (size_t i = 0; i <= ETCD_KVS_MAX; i++)
        n += sprintf(text + n, "%s{}", i ? "," : "");
    strcpy(text + n, "]}");
    assert_int_equal(etcd_decode_range(text, strlen(text), &r, err), -EMSGSIZE);
    assert_non_null(strstr(err, "more than"));
    etcd_range_resp_free(&r);
    free(text);

    /* More answers than a txn may have operations. */
    text = malloc(32 + (ETCD_TXN_OPS_MAX + 1) * 20);
    n = sprintf(text, "{\"responses\":[");
    for (size_t i = 0; i <= ETCD_TXN_OPS_MAX; i++)
        n += sprintf(text + n, "%s{\"response_put\":{}}", i ? "," : "");
    strcpy(text + n, "]}");
    assert_int_equal(etcd_decode_txn(text, strlen(text), &t, err), -EMSGSIZE);
    etcd_txn_resp_free(&t);
    free(text);

    /* A text over ETCD_TEXT_MAX is refused before it is parsed. */
    text = calloc(1, ETCD_TEXT_MAX + 1);
    assert_int_equal(etcd_decode_range(text, ETCD_TEXT_MAX + 1, &r, err), -EMSGSIZE);
    free(text);

    /* Nesting deeper than jansson's parser bound: an error, not a crash. */
    size_t depth = 100000;
    text = malloc(depth * 2 + 1);
    memset(text, '[', depth);
    memset(text + depth, ']', depth);
    text[depth * 2] = 0;
    assert_int_equal(etcd_decode_range(text, depth * 2, &r, err), -EBADMSG);
    free(text);
}

static void test_decode_auth(void **state)
{
    (void)state;
    char err[ETCD_ERR_MAX];
    char tok[ETCD_TOKEN_MAX];

    assert_int_equal(etcd_decode_auth("{" HDR ",\"token\":\"abc.123\"}",
                                      strlen("{" HDR ",\"token\":\"abc.123\"}"), tok, err), 0);
    assert_string_equal(tok, "abc.123");
    /* A token is sent as a header: a CR/LF (or a NUL) in it is refused. */
    static const char *const bad[] = {"{\"token\":\"a\\r\\nX-Evil: 1\"}",
                                      "{\"token\":\"a\\u0000b\"}", "{\"token\":\"\"}",
                                      "{\"token\":7}", "{}"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(etcd_decode_auth(bad[i], strlen(bad[i]), tok, err), -EBADMSG);
        assert_string_equal(tok, "");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_req_put),
        cmocka_unit_test(test_req_range),
        cmocka_unit_test(test_req_delete),
        cmocka_unit_test(test_req_txn),
        cmocka_unit_test(test_req_lease_watch_auth),
        cmocka_unit_test(test_req_bounds),
        cmocka_unit_test(test_prefix_end),
        cmocka_unit_test(test_range_next_page),
        cmocka_unit_test(test_b64),
        cmocka_unit_test(test_decode_range),
        cmocka_unit_test(test_decode_txn_delete_lease),
        cmocka_unit_test(test_decode_watch),
        cmocka_unit_test(test_decode_errors),
        cmocka_unit_test(test_decode_malformed),
        cmocka_unit_test(test_decode_bounds),
        cmocka_unit_test(test_decode_auth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
