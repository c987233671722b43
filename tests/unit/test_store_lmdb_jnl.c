/*
 * test_store_lmdb_jnl: the journal's checkpoint steps (store_lmdb_jnl.h)
 * against a power cut at each of them, on LMDB directly, the steps driven
 * by the test: a checkpoint begun and not ended (the records in two files,
 * the base the older one's), one ended, and journal files that do not
 * follow each other (refused, not half recovered). The images a power cut
 * leaves are built as in test_store_power_cut: the data file as synced at
 * the base, with any subset of the pages written since.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_journal.h"
#include "store_lmdb_jnl.h"

#define NKEYS 400u

struct env {
    MDB_env *env;
    MDB_dbi dbi[LMDB_JNL_DBS];
    struct lmdb_jnl *j;
};

/* The model: each key's value version (0 = absent). */
static unsigned model[NKEYS];

static void mkdir_tmp(char *dir)
{
    strcpy(dir, "/tmp/test_lmdb_jnl.XXXXXX");
    assert_non_null(mkdtemp(dir));
}

static const char *const files[] = {"data.mdb", "lock.mdb", "journal", "journal.1"};

static void rm_dir(const char *dir)
{
    char path[128];

    for (unsigned i = 0; i < 4; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* Recover (as the store does) and open, or the restore's error. */
static int env_open(struct env *e, const char *dir)
{
    struct lmdb_jnl_plan plan;
    struct lmdb_jnl_cfg cfg = {.checkpoint_ms = 600000, .checkpoint_bytes = (uint64_t)1 << 40};
    MDB_txn *txn;
    int rc = lmdb_jnl_restore(dir, &plan);

    if (rc)
        return rc;
    assert_int_equal(mdb_env_create(&e->env), 0);
    assert_int_equal(mdb_env_set_mapsize(e->env, 64u << 20), 0);
    assert_int_equal(mdb_env_set_maxdbs(e->env, 4), 0);
    assert_int_equal(mdb_env_open(e->env, dir, MDB_NOSYNC | MDB_NOTLS, 0600), 0);
    assert_int_equal(mdb_txn_begin(e->env, NULL, 0, &txn), 0);
    assert_int_equal(mdb_dbi_open(txn, "flows", MDB_CREATE, &e->dbi[0]), 0);
    assert_int_equal(mdb_dbi_open(txn, "apps", MDB_CREATE, &e->dbi[1]), 0);
    assert_int_equal(mdb_txn_commit(txn), 0);
    assert_int_equal(lmdb_jnl_open(e->env, e->dbi, dir, &cfg, &plan, &e->j), 0);
    return 0;
}

static void env_close(struct env *e)
{
    lmdb_jnl_close(e->j);
    mdb_env_close(e->env);
}

/* One transaction: key i set to version v (0: deleted), journaled. */
static void change(struct env *e, unsigned i, unsigned v)
{
    char kb[16], vb[160];
    MDB_txn *txn;

    snprintf(kb, sizeof(kb), "k%05u", i);
    /* ~150 bytes: the keys spread over many pages. */
    snprintf(vb, sizeof(vb), "v%u-%u-%0120u", i, v, i);
    MDB_val k = {strlen(kb), kb}, val = {strlen(vb), vb};
    assert_int_equal(mdb_txn_begin(e->env, NULL, 0, &txn), 0);
    if (v) {
        assert_int_equal(mdb_put(txn, e->dbi[0], &k, &val, 0), 0);
        assert_int_equal(lmdb_jnl_put(e->j, 0, &k, &val), 0);
    } else {
        assert_int_equal(mdb_del(txn, e->dbi[0], &k, NULL), 0);
        assert_int_equal(lmdb_jnl_del(e->j, 0, &k), 0);
    }
    assert_int_equal(lmdb_jnl_commit(e->j, txn), 0);
    model[i] = v;
}

/* A round of changes: new keys, replaced ones, deleted ones. */
static void changes(struct env *e, unsigned round)
{
    for (unsigned i = 0; i < NKEYS; i++)
        if ((i + round) % 3 == 0)
            change(e, i, model[i] && (i + round) % 7 == 0 ? 0 : round + 1);
}

static void assert_model(struct env *e)
{
    MDB_txn *txn;

    assert_int_equal(mdb_txn_begin(e->env, NULL, MDB_RDONLY, &txn), 0);
    for (unsigned i = 0; i < NKEYS; i++) {
        char kb[16], vb[160];
        MDB_val k = {0, kb}, v;

        snprintf(kb, sizeof(kb), "k%05u", i);
        k.mv_size = strlen(kb);
        int rc = mdb_get(txn, e->dbi[0], &k, &v);
        if (!model[i]) {
            assert_int_equal(rc, MDB_NOTFOUND);
            continue;
        }
        assert_int_equal(rc, 0);
        snprintf(vb, sizeof(vb), "v%u-%u-%0120u", i, model[i], i);
        assert_int_equal(v.mv_size, strlen(vb));
        assert_memory_equal(v.mv_data, vb, v.mv_size);
    }
    mdb_txn_abort(txn);
}

struct blob {
    uint8_t *p;
    size_t len;
};

static struct blob slurp(const char *dir, const char *name)
{
    char path[128];
    struct stat st;
    struct blob b = {NULL, 0};
    int fd;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    fd = open(path, O_RDONLY);
    if (fd < 0)
        return b;
    assert_int_equal(fstat(fd, &st), 0);
    b.len = (size_t)st.st_size;
    b.p = malloc(b.len + 1);
    assert_non_null(b.p);
    assert_int_equal(pread(fd, b.p, b.len, 0), (ssize_t)b.len);
    close(fd);
    return b;
}

static void spill(const char *dir, const char *name, const uint8_t *p, size_t len)
{
    char path[128];
    int fd;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, p, len), (ssize_t)len);
    close(fd);
}

/* The files at a crash: the base as synced, the page cache, the journals. */
struct crash {
    struct blob base, cache, jnl[2];
};

static void crash_free(struct crash *c)
{
    free(c->base.p);
    free(c->cache.p);
    free(c->jnl[0].p);
    free(c->jnl[1].p);
}

/* The crash: what the page cache and the journals hold now (the run's own
 * directory then goes). */
static void crash_now(struct env *e, char *dir, struct crash *c)
{
    c->cache = slurp(dir, "data.mdb");
    c->jnl[0] = slurp(dir, "journal");
    c->jnl[1] = slurp(dir, "journal.1");
    env_close(e);
    rm_dir(dir);
}

/* A power cut's data file: base, and each later page written when the
 * xorshift says so (meta pages too); the journals as synced. */
static void power_cut_dir(const struct crash *c, uint64_t seed, char *dir)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *img = calloc(1, c->cache.len);
    uint64_t x = seed * 0x9E3779B97F4A7C15ull;

    assert_non_null(img);
    memcpy(img, c->base.p, c->base.len);
    for (size_t pg = 0; pg < c->cache.len / ps; pg++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if (seed && (x & 1))
            memcpy(img + pg * ps, c->cache.p + pg * ps, ps);
    }
    mkdir_tmp(dir);
    spill(dir, "data.mdb", img, c->cache.len);
    for (unsigned i = 0; i < 2; i++)
        if (c->jnl[i].p)
            spill(dir, files[2 + i], c->jnl[i].p, c->jnl[i].len);
    free(img);
}

static void recover_each(const struct crash *c)
{
    unsigned at_crash[NKEYS];

    memcpy(at_crash, model, sizeof(model));
    for (uint64_t seed = 0; seed <= 16; seed++) {
        char dir[64];
        struct env e;

        memcpy(model, at_crash, sizeof(model));

        power_cut_dir(c, seed, dir);
        assert_int_equal(env_open(&e, dir), 0);
        assert_model(&e);
        changes(&e, 50 + (unsigned)seed);     /* writable, and kept */
        env_close(&e);
        assert_int_equal(env_open(&e, dir), 0);
        assert_model(&e);
        env_close(&e);
        rm_dir(dir);
    }
}

/* A checkpoint begun, its sync perhaps done, its end not reached: the
 * older file's checkpoint is the base, both files' records are needed. */
static void test_begun_not_ended(void **state)
{
    (void)state;
    char dir[64];
    struct env e;
    struct crash c;

    memset(model, 0, sizeof(model));
    mkdir_tmp(dir);
    assert_int_equal(env_open(&e, dir), 0);       /* a whole checkpoint */
    changes(&e, 0);
    lmdb_jnl_close(e.j);                          /* another, then open's */
    mdb_env_close(e.env);
    assert_int_equal(env_open(&e, dir), 0);
    c.base = slurp(dir, "data.mdb");
    changes(&e, 1);
    assert_int_equal(lmdb_jnl_checkpoint_begin(e.j, 0), 0);
    assert_int_equal(lmdb_jnl_checkpoint_begin(e.j, 0), -EALREADY);
    changes(&e, 2);
    crash_now(&e, dir, &c);
    recover_each(&c);

    /* A file a recovery needs, lost: refused, nothing half recovered.
     * Without the pending file the base's own file is whole (its records
     * end where the lost ones began: those changes are lost, and so is
     * the file that said so, which no recovery can know); without the
     * base's file the pending one is refused. */
    unsigned refused = 0;
    for (unsigned i = 0; i < 2; i++) {
        struct lmdb_jnl_plan plan;
        char d2[64], path[128];

        power_cut_dir(&c, 0, d2);
        snprintf(path, sizeof(path), "%s/%s", d2, files[2 + i]);
        unlink(path);
        if (lmdb_jnl_restore(d2, &plan) == -EINVAL)
            refused++;
        rm_dir(d2);
    }
    assert_int_equal(refused, 1);

    /* Both files invalidated (what ofcd leaves when it turns the journal
     * off and the unlinks are undone by a crash): no checkpoint, no
     * error, and LMDB opens as it is. */
    struct lmdb_jnl_plan plan;
    char d3[64], path[128];
    power_cut_dir(&c, 0, d3);
    for (unsigned i = 0; i < 2; i++) {
        snprintf(path, sizeof(path), "%s/%s", d3, files[2 + i]);
        assert_int_equal(store_journal_invalidate(path), 0);
    }
    assert_int_equal(lmdb_jnl_restore(d3, &plan), 0);
    assert_int_equal(plan.n, 0);
    struct env e3;
    assert_int_equal(env_open(&e3, d3), 0);     /* the files made anew */
    change(&e3, 1, 99);
    env_close(&e3);
    assert_int_equal(env_open(&e3, d3), 0);
    env_close(&e3);
    rm_dir(d3);
    crash_free(&c);
}

/* A checkpoint ended: its file alone is the base and its records. */
static void test_ended(void **state)
{
    (void)state;
    char dir[64];
    struct env e;
    struct crash c;

    memset(model, 0, sizeof(model));
    mkdir_tmp(dir);
    assert_int_equal(env_open(&e, dir), 0);
    changes(&e, 0);
    assert_int_equal(lmdb_jnl_checkpoint_begin(e.j, 0), 0);
    assert_int_equal(lmdb_jnl_checkpoint_end(e.j, true), 0);
    assert_int_equal(lmdb_jnl_checkpoint_end(e.j, false), 0);   /* none under way */
    /* Synced at the checkpoint, nothing committed since: the base. */
    c.base = slurp(dir, "data.mdb");
    changes(&e, 1);
    changes(&e, 2);
    crash_now(&e, dir, &c);
    recover_each(&c);
    crash_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_begun_not_ended),
        cmocka_unit_test(test_ended),
    };

    return cmocka_run_group_tests_name("store, the journal's checkpoints", tests, NULL, NULL);
}
