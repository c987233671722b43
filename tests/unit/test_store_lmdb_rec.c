/*
 * test_store_lmdb_rec: the bytes of LMDB's flow and state records
 * (store_lmdb_rec.h). Every header written reads back as written, in the
 * fewest bytes (22 for a flow put without error, 18 for an installed
 * flow's state); records of version 1 (the 40-byte header, 24-byte state
 * records, written before 2026-12-05) still read, by themselves and
 * through a store opened on a file that holds them, which then rewrites
 * them in version 2 as they change; a damaged or truncated record is an
 * error, never a read past its bytes (ASan); the store's keys sort as
 * LMDB's own compare sorts them, so a file either wrote reads with either.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store.h"
#include "store_lmdb_rec.h"

static void hdr_equal(const struct rec_hdr *a, const struct rec_hdr *b)
{
    assert_int_equal(a->state, b->state);
    assert_int_equal(a->coded, b->coded);
    assert_int_equal(a->err_type, b->err_type);
    assert_int_equal(a->err_code, b->err_code);
    assert_int_equal(a->owner_len, b->owner_len);
    assert_int_equal(a->json_len, b->json_len);
    assert_int_equal(a->flow_id, b->flow_id);
    assert_int_equal(a->added_ns, b->added_ns);
    assert_int_equal(a->changed_ns, b->changed_ns);
}

/* h, its owner and a body of the length h calls for, as one value in buf;
 * the value's length. */
static size_t mk_value(uint8_t *buf, const struct rec_hdr *h)
{
    size_t at = rec_hdr_write(buf, h);
    size_t body = h->coded ? h->json_len / 2 + 1 : h->json_len;

    assert_int_equal(at, rec_hdr_len(h));
    memset(buf + at, 'o', h->owner_len);
    memset(buf + at + h->owner_len, 'j', body);
    return at + h->owner_len + body;
}

static void test_common_flows_take_22_bytes(void **state)
{
    (void)state;
    uint8_t buf[REC_HDR_MAX + 400];
    struct rec_hdr h = {.state = STORE_FLOW_PENDING, .coded = true, .json_len = 118,
                        .flow_id = 0x0123456789abcdefull, .added_ns = 1764900000123456789ull};
    struct rec_hdr back;

    h.changed_ns = h.added_ns;
    assert_int_equal(rec_hdr_len(&h), 22);
    size_t n = mk_value(buf, &h);
    assert_int_equal(rec_hdr_read(buf, n, &back), 22);
    hdr_equal(&h, &back);

    /* Each field the common case leaves out costs only itself. */
    h.changed_ns++;
    assert_int_equal(rec_hdr_len(&h), 30);
    h.state = STORE_FLOW_ERROR;
    h.err_code = 3;
    assert_int_equal(rec_hdr_len(&h), 34);
    h.json_len = 70000;
    assert_int_equal(rec_hdr_len(&h), 36);
}

static void test_round_trip_random(void **state)
{
    (void)state;
    static uint8_t buf[REC_HDR_MAX + 255 + 140000];

    srand(7);
    for (unsigned i = 0; i < 20000; i++) {
        struct rec_hdr h = {
            .state = (uint8_t)(rand() % 4),
            .coded = rand() % 2,
            .err_type = rand() % 3 ? 0 : (uint16_t)rand(),
            .err_code = rand() % 3 ? 0 : (uint16_t)rand(),
            .owner_len = (uint8_t)(rand() % 4 ? 0 : rand() % 256),
            .json_len = (uint32_t)(rand() % 50 ? 1 + rand() % 600 : 65530 + rand() % 70000),
            .flow_id = (uint64_t)rand() << 33 ^ (uint64_t)rand(),
            .added_ns = (uint64_t)rand() << 31 ^ (uint64_t)rand(),
        };
        h.changed_ns = rand() % 2 ? h.added_ns : h.added_ns + (uint64_t)rand();
        if (h.coded && h.json_len < 3)
            h.json_len = 3;             /* coding a text leaves it shorter (mk_value) */
        struct rec_hdr back;
        size_t n = mk_value(buf, &h);
        assert_int_equal(rec_hdr_read(buf, n, &back), (int)rec_hdr_len(&h));
        hdr_equal(&h, &back);
        /* A plain text one byte short or long of its length, a coded one
         * empty or not shorter than its text: no record. (A coded text's
         * own length is what its decoding checks, store_jcode.h.) */
        size_t body_at = rec_hdr_len(&h) + h.owner_len;
        if (!h.coded) {
            assert_int_equal(rec_hdr_read(buf, n - 1, &back), -EIO);
            assert_int_equal(rec_hdr_read(buf, n + 1, &back), -EIO);
        } else {
            assert_int_equal(rec_hdr_read(buf, body_at, &back), -EIO);
            assert_int_equal(rec_hdr_read(buf, body_at + h.json_len, &back), -EIO);
        }
    }
}

/* Version 1's layout, as store_lmdb.c wrote it until 2026-12-05. */
static size_t v1_value(uint8_t *v, uint8_t state, uint8_t flags, const char *owner,
                       uint16_t et, uint16_t ec, const char *json, uint64_t flow_id,
                       uint64_t added, uint64_t changed)
{
    uint32_t magic = 0x4f465331u, jl = (uint32_t)strlen(json);
    uint16_t ol = (uint16_t)strlen(owner);

    memset(v, 0, 40);
    memcpy(v, &magic, 4);
    v[4] = state;
    v[5] = flags;
    memcpy(v + 6, &ol, 2);
    memcpy(v + 8, &et, 2);
    memcpy(v + 10, &ec, 2);
    memcpy(v + 12, &jl, 4);
    memcpy(v + 16, &flow_id, 8);
    memcpy(v + 24, &added, 8);
    memcpy(v + 32, &changed, 8);
    memcpy(v + 40, owner, ol);
    memcpy(v + 40 + ol, json, jl);
    return 40 + ol + jl;
}

static size_t v1_state(uint8_t *v, uint8_t state, uint16_t et, uint16_t ec, uint64_t flow_id,
                       uint64_t changed)
{
    memset(v, 0, 24);
    v[0] = state;
    memcpy(v + 2, &et, 2);
    memcpy(v + 4, &ec, 2);
    memcpy(v + 8, &flow_id, 8);
    memcpy(v + 16, &changed, 8);
    return 24;
}

static void test_version_1_reads(void **state)
{
    (void)state;
    uint8_t v[200];
    struct rec_hdr h;
    struct rec_state st;
    size_t n = v1_value(v, STORE_FLOW_ERROR, 0, "app", 5, 6, "{\"priority\": 1}", 77, 100, 200);

    assert_int_equal(rec_hdr_read(v, n, &h), 40);
    assert_int_equal(h.state, STORE_FLOW_ERROR);
    assert_false(h.coded);
    assert_int_equal(h.err_type, 5);
    assert_int_equal(h.err_code, 6);
    assert_int_equal(h.owner_len, 3);
    assert_int_equal(h.json_len, 15);
    assert_int_equal(h.flow_id, 77);
    assert_int_equal(h.added_ns, 100);
    assert_int_equal(h.changed_ns, 200);
    v[5] = 0x02;                        /* a flag version 1 never had */
    assert_int_equal(rec_hdr_read(v, n, &h), -EIO);
    v[5] = 0;
    v[4] = STORE_FLOW_DELETED + 1;
    assert_int_equal(rec_hdr_read(v, n, &h), -EIO);

    n = v1_state(v, STORE_FLOW_INSTALLED, 0, 0, 99, 300);
    assert_int_equal(rec_state_read(v, n, &st), 0);
    assert_int_equal(st.state, STORE_FLOW_INSTALLED);
    assert_int_equal(st.flow_id, 99);
    assert_int_equal(st.changed_ns, 300);
}

static void test_state_records(void **state)
{
    (void)state;
    uint8_t v[REC_STATE_MAX];
    struct rec_state in = {.state = STORE_FLOW_INSTALLED, .flow_id = 42, .changed_ns = 9};
    struct rec_state out;

    assert_int_equal(rec_state_write(v, &in), 18);
    assert_int_equal(rec_state_read(v, 18, &out), 0);
    assert_int_equal(out.state, in.state);
    assert_int_equal(out.flow_id, 42);
    assert_int_equal(out.changed_ns, 9);
    assert_int_equal(out.err_type, 0);
    in = (struct rec_state){.state = STORE_FLOW_ERROR, .err_type = 4, .err_code = 1,
                            .flow_id = 43, .changed_ns = 10};
    assert_int_equal(rec_state_write(v, &in), 22);
    assert_int_equal(rec_state_read(v, 22, &out), 0);
    assert_int_equal(out.err_type, 4);
    assert_int_equal(out.err_code, 1);
    assert_int_equal(out.flow_id, 43);
    /* Any other length, or a length its flags do not call for: none. */
    for (size_t n = 0; n <= REC_STATE_MAX; n++)
        if (n != 22 && n != 24)
            assert_int_equal(rec_state_read(v, n, &out), -EIO);
    v[0] = STORE_FLOW_DELETED;
    assert_int_equal(rec_state_read(v, 22, &out), -EIO);
}

/* Every prefix of a valid record, and random bytes: read as an error or a
 * header whose lengths fit the bytes, never past them (ASan). A coded
 * record's prefix may read as a record: its decoding finds it short. */
static void test_damaged(void **state)
{
    (void)state;
    uint8_t good[REC_HDR_MAX + 300];
    struct rec_hdr h = {.state = 1, .err_type = 1, .owner_len = 9, .json_len = 200,
                        .flow_id = 5, .added_ns = 6, .changed_ns = 7};
    struct rec_hdr back;
    size_t n = mk_value(good, &h);

    for (size_t k = 0; k < n; k++) {
        uint8_t *copy = malloc(k ? k : 1);
        memcpy(copy, good, k);
        assert_int_equal(rec_hdr_read(copy, k, &back), -EIO);
        free(copy);
    }
    srand(11);
    for (unsigned i = 0; i < 100000; i++) {
        size_t len = (size_t)rand() % 64;
        uint8_t *b = malloc(len ? len : 1);
        for (size_t k = 0; k < len; k++)
            b[k] = (uint8_t)rand();
        if (len && rand() % 2)
            b[0] = good[0];             /* a version 2 magic, the rest random */
        int r = rec_hdr_read(b, len, &back);
        if (r >= 0)
            assert_true((size_t)r + back.owner_len <= len);
        struct rec_state st;
        (void)rec_state_read(b, len, &st);
        free(b);
    }
}

static int every_flow(const struct store_flow *f, void *arg)
{
    (void)f;
    (void)arg;
    return 1;
}

/* LMDB opened on dir the way the store opens it (its databases by name),
 * for a test that writes or reads the file behind the store's back. */
static MDB_env *raw_env(const char *dir, unsigned flags)
{
    MDB_env *env;

    assert_int_equal(mdb_env_create(&env), 0);
    assert_int_equal(mdb_env_set_maxdbs(env, 4), 0);
    assert_int_equal(mdb_env_set_mapsize(env, 1 << 26), 0);
    assert_int_equal(mdb_env_open(env, dir, MDB_NOTLS | flags, 0640), 0);
    return env;
}

/* A test's store directory, gone. */
static void store_dir_remove(const char *dir)
{
    char path[96];

    snprintf(path, sizeof(path), "%s/data.mdb", dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/lock.mdb", dir);
    unlink(path);
    rmdir(dir);
}

/* A store file written by version 1 (records made here the way it made
 * them): a store opens it, reads every flow with its state, and what
 * changes is written anew and still reads. */
static void test_store_on_version_1_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_lmdb_rec.XXXXXX";
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi flows, states;
    uint8_t k[16] = {0}, v[256];

    assert_non_null(mkdtemp(dir));
    env = raw_env(dir, 0);
    assert_int_equal(mdb_txn_begin(env, NULL, 0, &txn), 0);
    assert_int_equal(mdb_dbi_open(txn, "flows", MDB_CREATE, &flows), 0);
    assert_int_equal(mdb_dbi_open(txn, "state", MDB_CREATE, &states), 0);
    for (unsigned i = 1; i <= 3; i++) {
        char json[64];
        snprintf(json, sizeof(json), "{\"priority\": %u}", i);
        k[7] = 5;                       /* dpid 5, match_id i */
        k[15] = (uint8_t)i;
        MDB_val kv = {16, k};
        MDB_val vv = {v1_value(v, STORE_FLOW_PENDING, 0, i == 2 ? "mef" : "", 0, 0, json,
                               1000 + i, 50, 50), v};
        assert_int_equal(mdb_put(txn, flows, &kv, &vv, 0), 0);
        if (i == 1) {
            vv = (MDB_val){v1_state(v, STORE_FLOW_INSTALLED, 0, 0, 1001, 60), v};
            assert_int_equal(mdb_put(txn, states, &kv, &vv, 0), 0);
        }
        if (i == 3) {                   /* about an older version: not this flow's */
            vv = (MDB_val){v1_state(v, STORE_FLOW_ERROR, 1, 2, 999, 60), v};
            assert_int_equal(mdb_put(txn, states, &kv, &vv, 0), 0);
        }
    }
    assert_int_equal(mdb_txn_commit(txn), 0);
    mdb_env_close(env);

    struct store_config cfg = {.dir = dir};
    struct store *s = store_lmdb_open(&cfg);
    struct store_flow f;
    assert_non_null(s);
    assert_int_equal(store_get(s, 5, 1, &f), 0);
    assert_int_equal(f.state, STORE_FLOW_INSTALLED);
    assert_int_equal(f.flow_id, 1001);
    assert_int_equal(f.added_ns, 50);
    assert_int_equal(f.changed_ns, 60);
    assert_string_equal(f.json, "{\"priority\": 1}");
    store_flow_release(&f);
    assert_int_equal(store_get(s, 5, 2, &f), 0);
    assert_string_equal(f.owner, "mef");
    assert_int_equal(f.state, STORE_FLOW_PENDING);
    store_flow_release(&f);
    assert_int_equal(store_get(s, 5, 3, &f), 0);
    assert_int_equal(f.state, STORE_FLOW_PENDING);
    store_flow_release(&f);

    /* Changes to old records: a state, a mark as deleted, a replacement. */
    assert_int_equal(store_set_state(s, 5, 2, 1002, STORE_FLOW_ERROR, 4, 5), 0);
    uint64_t dpid = 5, marked = 0;
    assert_int_equal(store_sync(s), 0);
    assert_int_equal(store_get(s, 5, 2, &f), 0);
    assert_int_equal(f.state, STORE_FLOW_ERROR);
    assert_int_equal(f.err_type, 4);
    assert_int_equal(f.err_code, 5);
    store_flow_release(&f);
    struct store_flow nf = {.dpid = 5, .match_id = 3, .flow_id = 2003, .json = "{}",
                            .json_len = 2};
    assert_int_equal(store_put(s, &nf), 0);
    assert_int_equal(store_mark_deleted_if(s, &dpid, every_flow, NULL, &marked), 0);
    assert_int_equal(marked, 3);
    for (uint64_t m = 1; m <= 3; m++) {
        assert_int_equal(store_get(s, 5, m, &f), 0);
        assert_int_equal(f.state, STORE_FLOW_DELETED);
        assert_int_equal(f.flow_id, m == 3 ? 2003 : 1000 + m);
        assert_true(f.changed_ns > 60);
        if (m == 1)
            assert_string_equal(f.json, "{\"priority\": 1}");
        store_flow_release(&f);
    }
    store_close(s);
    store_dir_remove(dir);
}

/* Big-endian dpid | match_id, as the store writes its keys. */
static void raw_key(uint8_t k[16], uint64_t dpid, uint64_t mid)
{
    for (int i = 0; i < 8; i++) {
        k[i] = (uint8_t)(dpid >> (56 - 8 * i));
        k[8 + i] = (uint8_t)(mid >> (56 - 8 * i));
    }
}

static uint64_t rnd64(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

#define ORDER_N 1000
static const uint64_t order_dpids[] = {1, 0x80, 0x8000000000000001ull, UINT64_MAX};

/* Keys written with LMDB's default compare (memcmp) read through the
 * store, which compares them its own way, and the store's own keys read
 * back, in memcmp order, with the default compare: the two orders are one
 * (dpids and match_ids with their top bits set included). */
static void test_key_order_is_lmdbs_own(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_lmdb_rec.XXXXXX";
    uint64_t x = 0x9e3779b97f4a7c15ull, mids[2 * ORDER_N], dps[2 * ORDER_N];
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi flows;
    uint8_t k[16], v[256];

    assert_non_null(mkdtemp(dir));
    for (size_t i = 0; i < 2 * ORDER_N; i++) {
        dps[i] = order_dpids[rnd64(&x) % 4];
        mids[i] = rnd64(&x);
    }
    env = raw_env(dir, 0);
    assert_int_equal(mdb_txn_begin(env, NULL, 0, &txn), 0);
    assert_int_equal(mdb_dbi_open(txn, "flows", MDB_CREATE, &flows), 0);
    for (size_t i = 0; i < ORDER_N; i++) {
        raw_key(k, dps[i], mids[i]);
        MDB_val kv = {16, k};
        MDB_val vv = {v1_value(v, STORE_FLOW_PENDING, 0, "", 0, 0, "{}", mids[i] | 1, 1, 1), v};
        assert_int_equal(mdb_put(txn, flows, &kv, &vv, 0), 0);
    }
    assert_int_equal(mdb_txn_commit(txn), 0);
    mdb_env_close(env);

    struct store_config cfg = {.dir = dir};
    struct store *s = store_lmdb_open(&cfg);
    struct store_flow f;
    assert_non_null(s);
    for (size_t i = 0; i < ORDER_N; i++) {
        assert_int_equal(store_get(s, dps[i], mids[i], &f), 0);
        assert_int_equal(f.flow_id, mids[i] | 1);
        store_flow_release(&f);
    }
    for (size_t i = ORDER_N; i < 2 * ORDER_N; i++) {
        struct store_flow nf = {.dpid = dps[i], .match_id = mids[i], .flow_id = mids[i] | 1,
                                .json = "{}", .json_len = 2};
        assert_int_equal(store_put(s, &nf), 0);
    }
    store_close(s);

    MDB_cursor *cur;
    MDB_val kv, vv;
    uint8_t prev[16];
    size_t seen = 0;
    env = raw_env(dir, MDB_RDONLY);
    assert_int_equal(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn), 0);
    assert_int_equal(mdb_dbi_open(txn, "flows", 0, &flows), 0);
    assert_int_equal(mdb_cursor_open(txn, flows, &cur), 0);
    for (int rc = mdb_cursor_get(cur, &kv, &vv, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(cur, &kv, &vv, MDB_NEXT)) {
        assert_int_equal(kv.mv_size, 16);
        if (seen)
            assert_true(memcmp(prev, kv.mv_data, 16) < 0);
        memcpy(prev, kv.mv_data, 16);
        seen++;
    }
    assert_int_equal(seen, 2 * ORDER_N);
    for (size_t i = 0; i < 2 * ORDER_N; i++) {
        raw_key(k, dps[i], mids[i]);
        kv = (MDB_val){16, k};
        assert_int_equal(mdb_get(txn, flows, &kv, &vv), 0);
    }
    mdb_cursor_close(cur);
    mdb_txn_abort(txn);
    mdb_env_close(env);
    store_dir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_common_flows_take_22_bytes),
        cmocka_unit_test(test_round_trip_random),
        cmocka_unit_test(test_version_1_reads),
        cmocka_unit_test(test_state_records),
        cmocka_unit_test(test_damaged),
        cmocka_unit_test(test_store_on_version_1_file),
        cmocka_unit_test(test_key_order_is_lmdbs_own),
    };
    return cmocka_run_group_tests_name("store, LMDB's records", tests, NULL, NULL);
}
