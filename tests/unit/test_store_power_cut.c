/*
 * test_store_power_cut: the journaled LMDB store (store_config.journal,
 * store_lmdb_jnl.h) keeps every confirmed change through a power cut, at
 * the level of the files a power cut leaves.
 *
 * A store is filled, checkpointed, and its data file copied (what the disk
 * holds for sure: the checkpoint synced it). Then confirmed changes of
 * every kind (new flows, replaced flows, deletes, state updates, the apps'
 * records), each committed by the journal's sync alone; the data file is
 * copied again (the page cache: what a kill -9 leaves) with the journal (as
 * synced). A power cut leaves any subset of the pages written since the
 * checkpoint, in any order, meta pages whole, torn or not written: each
 * case builds such a file from the two copies, puts it next to the
 * journal in a directory of its own, opens the store there and finds
 * exactly the confirmed state. One case writes LMDB's newer meta pages and
 * none of the pages they point at: LMDB alone would open that tree.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store.h"

#define DPID 5u
#define N_FIRST 600u        /* flows before the checkpoint */
#define N_ALL 900u          /* and after it, new ones up to this */
#define N_KV 40u
#define META_OFF_TXNID 144u /* LMDB 0.9's meta page: the transaction id */

/* What the store must hold: each flow's version (0 = none), state, and
 * each app record's version (0 = none). */
struct model {
    unsigned ver[N_ALL];
    bool installed[N_ALL];
    unsigned kv[N_KV];
};

struct files {
    char dir[64];
    uint8_t *ckpt, *cache, *jnl[2];     /* data.mdb at the checkpoint, at the crash; journal */
    size_t ckpt_len, cache_len, jnl_len[2];
    size_t psize;
    struct model m;
};

static void mk_json(char *buf, size_t len, unsigned id, unsigned ver)
{
    /* ~200 bytes: the flows spread over many pages. */
    snprintf(buf, len,
             "{\"priority\": %u, \"match\": {\"in_port\": %u, \"dl_vlan\": %u}, "
             "\"actions\": [{\"action_type\": \"output\", \"port\": %u}], \"version\": %u, "
             "\"pad\": \"%0*u\"}",
             id % 1000, id, id % 4095 + 1, id % 48 + 1, ver, 80, id);
}

static int put_flow(struct store *s, unsigned id, unsigned ver)
{
    char json[256], owner[16];

    mk_json(json, sizeof(json), id, ver);
    snprintf(owner, sizeof(owner), "app%u", id % 3);
    struct store_flow f = {.dpid = DPID, .match_id = id, .flow_id = ((uint64_t)id << 8) | ver,
                           .state = STORE_FLOW_PENDING, .owner = owner, .json = json,
                           .json_len = strlen(json)};
    return store_put(s, &f);
}

static int put_kv(struct store *s, unsigned i, unsigned ver)
{
    char key[32], val[64];

    snprintf(key, sizeof(key), "app/rec/%u", i);
    snprintf(val, sizeof(val), "{\"i\": %u, \"v\": %u}", i, ver);
    return store_kv_put(s, key, val, strlen(val));
}

static struct store *open_journal(const char *dir)
{
    /* No checkpoint but the ones at open and close: the crash comes after
     * changes the journal alone holds. */
    struct store_config cfg = {.dir = dir, .journal = true, .checkpoint_ms = 600000,
                               .checkpoint_bytes = (uint64_t)1 << 40};
    return store_lmdb_open(&cfg);
}

static uint8_t *slurp(const char *dir, const char *name, size_t *len)
{
    char path[128];
    struct stat st;
    uint8_t *buf;
    int fd;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(fstat(fd, &st), 0);
    buf = malloc((size_t)st.st_size + 1);
    assert_non_null(buf);
    assert_int_equal(pread(fd, buf, (size_t)st.st_size, 0), st.st_size);
    close(fd);
    *len = (size_t)st.st_size;
    return buf;
}

static void spill(const char *dir, const char *name, const uint8_t *buf, size_t len)
{
    char path[128];
    int fd;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
    close(fd);
}

static void rm_dir(const char *dir)
{
    const char *names[] = {"data.mdb", "lock.mdb", "journal", "journal.1"};
    char path[128];

    for (unsigned i = 0; i < 4; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* The run the power cut interrupts; f gets its files and its model. */
static void run_until_crash(struct files *f)
{
    struct store *s;
    struct model *m = &f->m;

    memset(m, 0, sizeof(*m));
    strcpy(f->dir, "/tmp/test_power_cut.XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    f->psize = (size_t)sysconf(_SC_PAGESIZE);

    /* Before the checkpoint: the first flows and records, then a close and
     * an open (each a checkpoint). */
    s = open_journal(f->dir);
    assert_non_null(s);
    for (unsigned i = 0; i < N_FIRST; i++) {
        assert_int_equal(put_flow(s, i, 1), 0);
        m->ver[i] = 1;
    }
    for (unsigned i = 0; i < N_KV / 2; i++) {
        assert_int_equal(put_kv(s, i, 1), 0);
        m->kv[i] = 1;
    }
    store_close(s);
    s = open_journal(f->dir);
    assert_non_null(s);
    f->ckpt = slurp(f->dir, "data.mdb", &f->ckpt_len);

    /* After it, confirmed by the journal alone: each call returns once its
     * commit is durable. */
    for (unsigned i = N_FIRST; i < N_ALL; i++) {
        assert_int_equal(put_flow(s, i, 1), 0);
        m->ver[i] = 1;
    }
    for (unsigned i = 0; i < 100; i++) {
        assert_int_equal(put_flow(s, i, 2), 0);
        m->ver[i] = 2;
    }
    for (unsigned i = 100; i < 200; i++) {
        assert_int_equal(store_del(s, DPID, i), 0);
        m->ver[i] = 0;
    }
    for (unsigned i = 200; i < 250; i++) {
        assert_int_equal(store_set_state(s, DPID, i, ((uint64_t)i << 8) | 1,
                                         STORE_FLOW_INSTALLED, 0, 0), 0);
        m->installed[i] = true;
    }
    assert_int_equal(store_sync(s), 0);    /* the state updates' commit */
    for (unsigned i = N_KV / 2; i < N_KV; i++) {
        assert_int_equal(put_kv(s, i, 1), 0);
        m->kv[i] = 1;
    }
    for (unsigned i = 0; i < 5; i++) {
        char key[32];
        snprintf(key, sizeof(key), "app/rec/%u", i);
        assert_int_equal(store_kv_del(s, key), 0);
        m->kv[i] = 0;
    }
    for (unsigned i = 5; i < 10; i++) {
        assert_int_equal(put_kv(s, i, 2), 0);
        m->kv[i] = 2;
    }

    /* The crash: what the page cache and the journal hold now. */
    f->cache = slurp(f->dir, "data.mdb", &f->cache_len);
    f->jnl[0] = slurp(f->dir, "journal", &f->jnl_len[0]);
    f->jnl[1] = slurp(f->dir, "journal.1", &f->jnl_len[1]);
    store_close(s);
    rm_dir(f->dir);
    assert_true(f->cache_len >= f->ckpt_len);
    assert_int_equal(f->cache_len % f->psize, 0);
}

static uint64_t meta_txnid(const uint8_t *page)
{
    uint64_t v;
    memcpy(&v, page + META_OFF_TXNID, sizeof(v));
    return v;
}

/* The pages a power cut may have written: meta pages per meta_mode (0 not
 * written, 1 written, 2 torn: the first half new), every other changed page
 * when keep(page) says so. */
static uint8_t *power_cut_image(const struct files *f, int meta_mode,
                                bool (*keep)(size_t pg, void *arg), void *arg)
{
    uint8_t *img = calloc(1, f->cache_len);
    size_t ps = f->psize;

    assert_non_null(img);
    memcpy(img, f->ckpt, f->ckpt_len);
    for (size_t pg = 0; pg < f->cache_len / ps; pg++) {
        const uint8_t *now = f->cache + pg * ps;
        uint8_t *at = img + pg * ps;

        if (pg < 2) {
            if (meta_mode == 1)
                memcpy(at, now, ps);
            else if (meta_mode == 2)
                memcpy(at, now, ps / 2);
        } else if (memcmp(at, now, ps) != 0 && keep(pg, arg)) {
            memcpy(at, now, ps);
        }
    }
    return img;
}

static bool keep_none(size_t pg, void *arg) { (void)pg; (void)arg; return false; }
static bool keep_all(size_t pg, void *arg) { (void)pg; (void)arg; return true; }
static bool keep_random(size_t pg, void *arg)
{
    (void)pg;
    /* xorshift: each case its own subset, the same on every run. */
    uint64_t *x = arg;
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x & 1;
}

static void assert_model(struct store *s, const struct model *m)
{
    struct store_stats st;
    unsigned n = 0;

    for (unsigned i = 0; i < N_ALL; i++) {
        struct store_flow g;
        char json[256];
        int rc = store_get(s, DPID, i, &g);

        if (!m->ver[i]) {
            assert_int_equal(rc, -ENOENT);
            continue;
        }
        assert_int_equal(rc, 0);
        n++;
        mk_json(json, sizeof(json), i, m->ver[i]);
        assert_int_equal(g.json_len, strlen(json));
        assert_memory_equal(g.json, json, g.json_len);
        assert_int_equal(g.state, m->installed[i] ? STORE_FLOW_INSTALLED : STORE_FLOW_PENDING);
        store_flow_release(&g);
    }
    assert_int_equal(store_get_stats(s, &st), 0);
    assert_int_equal(st.records, n);
    for (unsigned i = 0; i < N_KV; i++) {
        char key[32], want[64], *val = NULL;
        size_t len = 0;

        snprintf(key, sizeof(key), "app/rec/%u", i);
        int rc = store_kv_get(s, key, &val, &len);
        if (!m->kv[i]) {
            assert_int_equal(rc, -ENOENT);
            continue;
        }
        assert_int_equal(rc, 0);
        snprintf(want, sizeof(want), "{\"i\": %u, \"v\": %u}", i, m->kv[i]);
        assert_int_equal(len, strlen(want));
        assert_memory_equal(val, want, len);
        free(val);
    }
}

/* Open the image with the journal in a directory of their own: the
 * confirmed state, and a store that takes changes and keeps them. */
static void recover_and_check(const struct files *f, uint8_t *img)
{
    char dir[64] = "/tmp/test_power_cut.XXXXXX";
    struct store_config cfg = {.dir = dir, .journal = true};
    struct store *s;

    assert_non_null(mkdtemp(dir));
    spill(dir, "data.mdb", img, f->cache_len);
    spill(dir, "journal", f->jnl[0], f->jnl_len[0]);
    spill(dir, "journal.1", f->jnl[1], f->jnl_len[1]);
    s = store_lmdb_open(&cfg);
    assert_non_null(s);
    assert_model(s, &f->m);
    assert_int_equal(put_flow(s, N_ALL + 1, 7), 0);
    store_close(s);
    s = store_lmdb_open(&cfg);
    assert_non_null(s);
    struct store_flow g;
    assert_int_equal(store_get(s, DPID, N_ALL + 1, &g), 0);
    store_flow_release(&g);
    assert_int_equal(store_del(s, DPID, N_ALL + 1), 0);
    assert_model(s, &f->m);
    store_close(s);
    rm_dir(dir);
    free(img);
}

static int setup(void **state)
{
    struct files *f = calloc(1, sizeof(*f));

    assert_non_null(f);
    run_until_crash(f);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct files *f = *state;

    free(f->ckpt);
    free(f->cache);
    free(f->jnl[0]);
    free(f->jnl[1]);
    free(f);
    return 0;
}

/* The crash the process alone has: every page as the page cache had it. */
static void test_kill_9(void **state)
{
    struct files *f = *state;

    recover_and_check(f, power_cut_image(f, 1, keep_all, NULL));
}

/* Nothing of LMDB's since the checkpoint reached the disk. */
static void test_nothing_written(void **state)
{
    struct files *f = *state;

    recover_and_check(f, power_cut_image(f, 0, keep_none, NULL));
}

/* LMDB's newer meta pages reached the disk, none of the pages of their
 * tree: LMDB alone would open a tree that is not there. */
static void test_metas_without_their_pages(void **state)
{
    struct files *f = *state;
    uint64_t ck = meta_txnid(f->ckpt) > meta_txnid(f->ckpt + f->psize)
                      ? meta_txnid(f->ckpt) : meta_txnid(f->ckpt + f->psize);
    uint64_t now = meta_txnid(f->cache) > meta_txnid(f->cache + f->psize)
                       ? meta_txnid(f->cache) : meta_txnid(f->cache + f->psize);

    assert_true(now > ck);          /* the case is real: LMDB would trust it */
    recover_and_check(f, power_cut_image(f, 1, keep_none, NULL));
}

/* Any subset of the pages, with meta pages whole, torn or old. */
static void test_random_subsets(void **state)
{
    struct files *f = *state;

    for (uint64_t seed = 1; seed <= 24; seed++) {
        uint64_t x = seed * 0x9E3779B97F4A7C15ull;
        recover_and_check(f, power_cut_image(f, (int)(seed % 3), keep_random, &x));
    }
}

/* Started again with store.journal off: the journal is recovered all the
 * same, then removed (a stale one must never set LMDB back later). */
static void test_recovered_with_journal_off(void **state)
{
    struct files *f = *state;
    char dir[64] = "/tmp/test_power_cut.XXXXXX", path[128];
    struct store_config off = {.dir = dir}, on = {.dir = dir, .journal = true};
    struct store *s;

    assert_non_null(mkdtemp(dir));
    uint8_t *img = power_cut_image(f, 2, keep_none, NULL);
    spill(dir, "data.mdb", img, f->cache_len);
    spill(dir, "journal", f->jnl[0], f->jnl_len[0]);
    spill(dir, "journal.1", f->jnl[1], f->jnl_len[1]);
    free(img);
    s = store_lmdb_open(&off);
    assert_non_null(s);
    assert_model(s, &f->m);
    snprintf(path, sizeof(path), "%s/journal", dir);
    assert_int_equal(access(path, F_OK), -1);
    snprintf(path, sizeof(path), "%s/journal.1", dir);
    assert_int_equal(access(path, F_OK), -1);
    /* Changes with LMDB's own syncs, then the journal on again: kept. */
    assert_int_equal(put_flow(s, 3, 9), 0);
    store_close(s);
    s = store_lmdb_open(&on);
    assert_non_null(s);
    struct store_flow g;
    assert_int_equal(store_get(s, DPID, 3, &g), 0);
    assert_int_equal(g.flow_id, (3u << 8) | 9);
    store_flow_release(&g);
    store_close(s);
    rm_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kill_9),
        cmocka_unit_test(test_nothing_written),
        cmocka_unit_test(test_metas_without_their_pages),
        cmocka_unit_test(test_random_subsets),
        cmocka_unit_test(test_recovered_with_journal_off),
    };

    return cmocka_run_group_tests_name("store, power cut", tests, setup, teardown);
}
