/*
 * test_store: the flow store's contract (control/store/store.h), one body per
 * case run against each backend of a table — LMDB under a fresh /tmp
 * directory per test, and memory: CRUD and iteration, state updates, group
 * commit under concurrent writers, a full store, async backpressure and
 * completions, the watch hook, a failed batch undone. LMDB alone: reopen,
 * SIGKILL of a writer process, the sync figures, open errors; memory
 * alone: nothing survives, and it says so.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log_capture.h"
#include "ofcd_log.h"
#include "ofcd_clock.h"
#include "etcd_client.h"
#include "store.h"
#include "store_queue.h"

/* A backend under test: how to open it, and whether it keeps its data
 * over a close (the parts of a case that reopen run only then). */
struct backend {
    const char *name;
    struct store *(*open)(const struct store_config *cfg);
    bool durable;
};

static struct store *etcd_open_case(const struct store_config *cfg);

/* LMDB with its journal (store_config.journal), the product's setting. */
static struct store *lmdb_journal_open(const struct store_config *cfg)
{
    struct store_config c = *cfg;

    c.journal = true;
    return store_lmdb_open(&c);
}

/* The same, checkpointing every 10 ms: checkpoints run while the case
 * writes (and the kill -9 comes during them). */
static struct store *lmdb_journal_busy_open(const struct store_config *cfg)
{
    struct store_config c = *cfg;

    c.journal = true;
    c.checkpoint_ms = 10;
    return store_lmdb_open(&c);
}

/* flow_manager.durability = group: one sync per commit, the meta page's
 * late (store_lmdb_meta.h). */
static struct store *lmdb_group_open(const struct store_config *cfg)
{
    struct store_config c = *cfg;

    c.lazy_meta_sync = true;
    c.meta_sync_ms = STORE_GROUP_META_SYNC_MS;
    return store_lmdb_open(&c);
}

static struct backend be_lmdb = {"lmdb", store_lmdb_open, true};
static struct backend be_lmdbg = {"lmdb, one sync per commit (durability group)",
                                  lmdb_group_open, true};
static struct backend be_lmdbj = {"lmdb, journal", lmdb_journal_open, true};
static struct backend be_lmdbj_busy = {"lmdb, journal, checkpoints every 10 ms",
                                       lmdb_journal_busy_open, true};
static struct backend be_mem = {"memory", store_mem_open, false};
static struct backend be_etcd = {"etcd", etcd_open_case, true};

/*
 * The etcd backend needs an etcd: OFCD_TEST_ETCD names its endpoint
 * (tests/integration/store_etcd.sh starts one and runs this program);
 * without it the etcd group is skipped. Each case's records live under a
 * prefix of its own (its directory's name), its mirror in its directory.
 */
static const char *etcd_endpoint(void)
{
    const char *e = getenv("OFCD_TEST_ETCD");
    return e && *e ? e : NULL;
}

static struct store *etcd_open_prefix(const struct store_config *cfg, const char *dir)
{
    const char *ep[1] = {etcd_endpoint()};
    char prefix[96];
    struct store_config c = *cfg;

    snprintf(prefix, sizeof(prefix), "/ofcd-test%s/", dir);
    struct store_etcd_cfg e = {.endpoints = ep, .n_endpoints = 1, .prefix = prefix,
                               .timeout_ms = 3000, .confirm_ms = 5000};
    c.backend = STORE_BACKEND_ETCD;
    c.etcd = &e;
    return store_open(&c);
}

static struct store *etcd_open_case(const struct store_config *cfg)
{
    return etcd_open_prefix(cfg, cfg->dir);
}

struct tctx {
    char dir[64];
    const struct backend *be;
};

/* *state comes in as the case's backend (its prestate). */
static int setup_dir(void **state)
{
    struct tctx *t = calloc(1, sizeof(*t));

    assert_non_null(t);
    t->be = *state;
    strcpy(t->dir, "/tmp/test_store.XXXXXX");
    assert_non_null(mkdtemp(t->dir));
    *state = t;
    return 0;
}

static int teardown_dir(void **state)
{
    struct tctx *t = *state;
    char path[128];

    snprintf(path, sizeof(path), "%s/data.mdb", t->dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/lock.mdb", t->dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/journal", t->dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/journal.1", t->dir);
    unlink(path);
    rmdir(t->dir);
    free(t);
    return 0;
}

/* The case's backend with cfg (its dir is the case's). */
static struct store *topen(const struct tctx *t, const struct store_config *cfg)
{
    return t->be->open(cfg);
}

static struct store *open_dir(const struct tctx *t)
{
    struct store_config cfg = { .dir = t->dir };

    return topen(t, &cfg);
}

/* A flow whose JSON and owner are derived from (dpid, match_id, version). */
struct tflow {
    struct store_flow f;
    char json[128];
    char owner[32];
};

static void mk_flow(struct tflow *tf, uint64_t dpid, uint64_t mid, unsigned ver)
{
    memset(tf, 0, sizeof(*tf));
    snprintf(tf->json, sizeof(tf->json),
             "{\"priority\": %u, \"match\": {\"in_port\": %" PRIu64 "}, \"v\": %u}",
             (unsigned)(mid % 65536), mid, ver);
    snprintf(tf->owner, sizeof(tf->owner), "owner%" PRIu64, dpid);
    tf->f.dpid = dpid;
    tf->f.match_id = mid;
    tf->f.flow_id = (mid << 8) | ver;
    tf->f.state = STORE_FLOW_PENDING;
    tf->f.owner = tf->owner;
    tf->f.json = tf->json;
    tf->f.json_len = strlen(tf->json);
}

static void assert_stored(struct store *s, const struct tflow *tf)
{
    struct store_flow g;

    assert_int_equal(store_get(s, tf->f.dpid, tf->f.match_id, &g), 0);
    assert_int_equal(g.dpid, tf->f.dpid);
    assert_int_equal(g.match_id, tf->f.match_id);
    assert_int_equal(g.flow_id, tf->f.flow_id);
    assert_string_equal(g.owner, tf->owner);
    assert_int_equal(g.json_len, tf->f.json_len);
    assert_memory_equal(g.json, tf->json, g.json_len);
    store_flow_release(&g);
}

static void test_put_get_replace_delete(void **state)
{
    struct tctx *t = *state;
    struct store *s = open_dir(t);
    struct tflow a, a2;
    struct store_flow g;
    struct timespec ts;
    uint64_t before;

    assert_non_null(s);
    clock_gettime(CLOCK_REALTIME, &ts);
    before = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;

    mk_flow(&a, 0x1, 42, 1);
    assert_int_equal(store_put(s, &a.f), 0);
    assert_stored(s, &a);
    assert_int_equal(store_get(s, 0x1, 42, &g), 0);
    assert_int_equal(g.state, STORE_FLOW_PENDING);
    assert_true(g.added_ns >= before);
    assert_int_equal(g.changed_ns, g.added_ns);
    store_flow_release(&g);

    /* Same key, new flow: replaces, nothing else appears. */
    mk_flow(&a2, 0x1, 42, 2);
    assert_int_equal(store_put(s, &a2.f), 0);
    assert_stored(s, &a2);
    assert_int_equal(store_get(s, 0x2, 42, &g), -ENOENT);
    assert_int_equal(store_get(s, 0x1, 43, &g), -ENOENT);

    assert_int_equal(store_del(s, 0x1, 42), 0);
    assert_int_equal(store_get(s, 0x1, 42, &g), -ENOENT);
    assert_int_equal(store_del(s, 0x1, 42), -ENOENT);

    struct store_stats st;
    assert_int_equal(store_get_stats(s, &st), 0);
    assert_int_equal(st.records, 0);
    assert_int_equal(st.records_put, 2);
    assert_int_equal(st.records_deleted, 1);
    store_close(s);
}

static void test_invalid_args(void **state)
{
    struct tctx *t = *state;
    struct store *s = open_dir(t);
    char long_owner[STORE_OWNER_MAX + 2];
    struct tflow a;
    struct store_flow g;

    assert_non_null(s);
    mk_flow(&a, 1, 1, 1);
    assert_int_equal(store_put_many(s, &a.f, 0), -EINVAL);
    memset(long_owner, 'x', sizeof(long_owner) - 1);
    long_owner[sizeof(long_owner) - 1] = '\0';
    a.f.owner = long_owner;
    assert_int_equal(store_put(s, &a.f), -EINVAL);
    a.f.owner = NULL;
    a.f.state = (enum store_flow_state)7;
    assert_int_equal(store_put(s, &a.f), -EINVAL);
    assert_int_equal(store_set_state(s, 1, 1, 0, (enum store_flow_state)7, 0, 0), -EINVAL);
    assert_int_equal(store_get(s, 1, 1, &g), -ENOENT);

    /* An owner of exactly the maximum length and no JSON are fine. */
    memset(long_owner, 'y', STORE_OWNER_MAX);
    long_owner[STORE_OWNER_MAX] = '\0';
    a.f.owner = long_owner;
    a.f.state = STORE_FLOW_PENDING;
    a.f.json = NULL;
    a.f.json_len = 0;
    assert_int_equal(store_put(s, &a.f), 0);
    assert_int_equal(store_get(s, 1, 1, &g), 0);
    assert_string_equal(g.owner, long_owner);
    assert_int_equal(g.json_len, 0);
    store_flow_release(&g);
    store_close(s);
}

struct collect {
    uint64_t dpid[64], mid[64];
    size_t n;
    size_t stop_after; /* 0: never */
    int stop_rc;
};

static int collect_cb(const struct store_flow *f, void *arg)
{
    struct collect *c = arg;

    assert_true(c->n < 64);
    c->dpid[c->n] = f->dpid;
    c->mid[c->n] = f->match_id;
    c->n++;
    if (c->stop_after && c->n == c->stop_after)
        return c->stop_rc;
    return 0;
}

/* Three switches; match ids chosen so byte order and sign matter. */
static const uint64_t it_dpids[] = { 1, 2, 0x8000000000000001ull };
static const uint64_t it_mids[] = { 0xffffffffffffffffull, 0, 0x100, 7 };

static void put_grid(struct store *s)
{
    struct tflow tf[12];
    struct store_flow f[12];
    size_t n = 0;

    for (size_t d = 0; d < 3; d++)
        for (size_t m = 0; m < 4; m++) {
            mk_flow(&tf[n], it_dpids[d], it_mids[m], 1);
            f[n] = tf[n].f;
            n++;
        }
    /* Owners and JSON live in tf[], still in scope for the blocking call. */
    assert_int_equal(store_put_many(s, f, n), 0);
}

static void test_iterate(void **state)
{
    struct tctx *t = *state;
    struct store *s = open_dir(t);
    struct collect c;
    uint64_t d;

    assert_non_null(s);
    put_grid(s);

    memset(&c, 0, sizeof(c));
    d = 2;
    assert_int_equal(store_foreach(s, &d, collect_cb, &c), 0);
    assert_int_equal(c.n, 4);
    /* match_id order, unsigned */
    assert_int_equal(c.mid[0], 0);
    assert_int_equal(c.mid[1], 7);
    assert_int_equal(c.mid[2], 0x100);
    assert_int_equal(c.mid[3], 0xffffffffffffffffull);
    for (size_t i = 0; i < c.n; i++)
        assert_int_equal(c.dpid[i], 2);

    memset(&c, 0, sizeof(c));
    d = 0x8000000000000001ull;
    assert_int_equal(store_foreach(s, &d, collect_cb, &c), 0);
    assert_int_equal(c.n, 4);
    for (size_t i = 0; i < c.n; i++)
        assert_int_equal(c.dpid[i], d);

    memset(&c, 0, sizeof(c));
    d = 3; /* no flows */
    assert_int_equal(store_foreach(s, &d, collect_cb, &c), 0);
    assert_int_equal(c.n, 0);

    memset(&c, 0, sizeof(c));
    assert_int_equal(store_foreach(s, NULL, collect_cb, &c), 0);
    assert_int_equal(c.n, 12);
    for (size_t i = 1; i < c.n; i++)
        assert_true(c.dpid[i - 1] < c.dpid[i] ||
                    (c.dpid[i - 1] == c.dpid[i] && c.mid[i - 1] < c.mid[i]));

    /* Early stop: > 0 is a normal end, < 0 is returned. */
    memset(&c, 0, sizeof(c));
    c.stop_after = 3;
    c.stop_rc = 1;
    assert_int_equal(store_foreach(s, NULL, collect_cb, &c), 0);
    assert_int_equal(c.n, 3);
    memset(&c, 0, sizeof(c));
    c.stop_after = 2;
    c.stop_rc = -EINTR;
    assert_int_equal(store_foreach(s, NULL, collect_cb, &c), -EINTR);
    assert_int_equal(c.n, 2);

    /* By key list: the order given, missing keys skipped, same stop rules. */
    const uint64_t want[] = { 0x100, 5, 0xffffffffffffffffull, 0 };
    memset(&c, 0, sizeof(c));
    assert_int_equal(store_get_each(s, 2, want, 4, collect_cb, &c), 0);
    assert_int_equal(c.n, 3);
    assert_true(c.mid[0] == 0x100 && c.mid[1] == 0xffffffffffffffffull && c.mid[2] == 0);
    assert_true(c.dpid[0] == 2 && c.dpid[2] == 2);
    memset(&c, 0, sizeof(c));
    c.stop_after = 1;
    c.stop_rc = -EINTR;
    assert_int_equal(store_get_each(s, 2, want, 4, collect_cb, &c), -EINTR);
    assert_int_equal(c.n, 1);
    memset(&c, 0, sizeof(c));
    assert_int_equal(store_get_each(s, 3, want, 4, collect_cb, &c), 0);
    assert_int_equal(c.n, 0);
    assert_int_equal(store_get_each(s, 2, NULL, 1, collect_cb, &c), -EINVAL);
    store_close(s);
}

static int pred_mid_small(const struct store_flow *f, void *arg)
{
    uint64_t limit = *(const uint64_t *)arg;

    return f->match_id < limit;
}

static void test_del_if(void **state)
{
    struct tctx *t = *state;
    struct store *s = open_dir(t);
    struct collect c;
    uint64_t limit = 0x101, deleted = 99, d = 2;

    assert_non_null(s);
    put_grid(s);

    /* Only dpid 2's flows with match_id < 0x101 (0, 7, 0x100) go. */
    assert_int_equal(store_del_if(s, &d, pred_mid_small, &limit, &deleted), 0);
    assert_int_equal(deleted, 3);
    memset(&c, 0, sizeof(c));
    assert_int_equal(store_foreach(s, &d, collect_cb, &c), 0);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.mid[0], 0xffffffffffffffffull);
    memset(&c, 0, sizeof(c));
    assert_int_equal(store_foreach(s, NULL, collect_cb, &c), 0);
    assert_int_equal(c.n, 9);

    /* Nothing matches: 0 deleted, not an error. */
    limit = 0;
    assert_int_equal(store_del_if(s, &d, pred_mid_small, &limit, &deleted), 0);
    assert_int_equal(deleted, 0);

    /* Every switch. */
    limit = 8;
    assert_int_equal(store_del_if(s, NULL, pred_mid_small, &limit, &deleted), 0);
    assert_int_equal(deleted, 4); /* 0 and 7 on dpids 1 and 0x80..01 */
    memset(&c, 0, sizeof(c));
    assert_int_equal(store_foreach(s, NULL, collect_cb, &c), 0);
    assert_int_equal(c.n, 5);
    for (size_t i = 0; i < c.n; i++)
        assert_true(c.mid[i] >= 8);
    store_close(s);
}

static void test_state_updates(void **state)
{
    struct tctx *t = *state;
    struct store *s = open_dir(t);
    struct store_stats st;
    struct store_flow g;
    struct tflow a;
    uint64_t added;

    assert_non_null(s);
    mk_flow(&a, 5, 500, 1);
    assert_int_equal(store_put(s, &a.f), 0);
    assert_int_equal(store_get(s, 5, 500, &g), 0);
    added = g.added_ns;
    store_flow_release(&g);

    assert_int_equal(store_set_state(s, 5, 500, a.f.flow_id, STORE_FLOW_INSTALLED, 0, 0), 0);
    assert_int_equal(store_sync(s), 0);
    assert_int_equal(store_get(s, 5, 500, &g), 0);
    assert_int_equal(g.state, STORE_FLOW_INSTALLED);
    assert_int_equal(g.added_ns, added);
    assert_true(g.changed_ns >= added);
    assert_int_equal(g.err_type, 0);
    assert_memory_equal(g.json, a.json, a.f.json_len);
    store_flow_release(&g);

    /* flow_id 0 matches any version; the switch's error is kept. */
    assert_int_equal(store_set_state(s, 5, 500, 0, STORE_FLOW_ERROR, 5, 3), 0);
    assert_int_equal(store_sync(s), 0);
    assert_int_equal(store_get(s, 5, 500, &g), 0);
    assert_int_equal(g.state, STORE_FLOW_ERROR);
    assert_int_equal(g.err_type, 5);
    assert_int_equal(g.err_code, 3);
    store_flow_release(&g);

    /* A late reply for another version, and one for a missing key: ignored. */
    assert_int_equal(store_set_state(s, 5, 500, a.f.flow_id + 1, STORE_FLOW_INSTALLED, 0, 0),
                     0);
    assert_int_equal(store_set_state(s, 5, 501, 0, STORE_FLOW_INSTALLED, 0, 0), 0);
    assert_int_equal(store_sync(s), 0);
    assert_int_equal(store_get(s, 5, 500, &g), 0);
    assert_int_equal(g.state, STORE_FLOW_ERROR);
    store_flow_release(&g);
    assert_int_equal(store_get(s, 5, 501, &g), -ENOENT);
    assert_int_equal(store_get_stats(s, &st), 0);
    assert_int_equal(st.state_updates, 2);
    assert_int_equal(st.state_stale, 2);

    /* Re-adding resets to the caller's state and clears the error. */
    assert_int_equal(store_put(s, &a.f), 0);
    assert_int_equal(store_get(s, 5, 500, &g), 0);
    assert_int_equal(g.state, STORE_FLOW_PENDING);
    assert_int_equal(g.err_type, 0);
    assert_int_equal(g.err_code, 0);
    store_flow_release(&g);
    store_close(s);
}

static int pred_any(const struct store_flow *f, void *arg)
{
    (void)f;
    (void)arg;
    return 1;
}

static enum store_flow_state state_of(struct store *s, uint64_t dpid, uint64_t mid,
                                      uint64_t *changed_ns)
{
    struct store_flow g;

    assert_int_equal(store_get(s, dpid, mid, &g), 0);
    enum store_flow_state st = g.state;
    if (changed_ns)
        *changed_ns = g.changed_ns;
    store_flow_release(&g);
    return st;
}

/* Deleted flows kept: state deleted with the deletion time, a second delete
 * does not move that time, a late state update cannot bring one back, a put
 * of the same key replaces it, and the purge removes only those deleted
 * before its cutoff — once they are, as with the rest of the store, durably. */
static void test_deleted_kept_then_purged(void **state)
{
    struct tctx *t = *state;
    struct store *s = open_dir(t);
    struct store_stats st;
    uint64_t d = 2, marked = 0, when = 0, again = 0;

    assert_non_null(s);
    put_grid(s);
    assert_int_equal(store_mark_deleted_if(s, &d, pred_any, NULL, &marked), 0);
    assert_int_equal(marked, 4);
    assert_int_equal(state_of(s, 2, 7, &when), STORE_FLOW_DELETED);
    assert_int_equal(state_of(s, 1, 7, NULL), STORE_FLOW_PENDING);
    struct collect c = {0};
    assert_int_equal(store_foreach(s, NULL, collect_cb, &c), 0);
    assert_int_equal(c.n, 12);                       /* still listed */

    assert_int_equal(store_mark_deleted_if(s, &d, pred_any, NULL, &marked), 0);
    assert_int_equal(marked, 0);
    assert_int_equal(state_of(s, 2, 7, &again), STORE_FLOW_DELETED);
    assert_int_equal(again, when);

    assert_int_equal(store_set_state(s, 2, 7, 0, STORE_FLOW_INSTALLED, 0, 0), 0);
    assert_int_equal(store_sync(s), 0);
    assert_int_equal(state_of(s, 2, 7, NULL), STORE_FLOW_DELETED);

    struct tflow re;
    mk_flow(&re, 2, 0x100, 2);
    assert_int_equal(store_put(s, &re.f), 0);
    assert_int_equal(state_of(s, 2, 0x100, NULL), STORE_FLOW_PENDING);

    /* A cutoff before the deletion keeps them; one after removes the three
     * still deleted and nothing else. */
    assert_int_equal(store_purge_deleted(s, when), 0);
    assert_int_equal(store_sync(s), 0);
    assert_int_equal(state_of(s, 2, 0, NULL), STORE_FLOW_DELETED);
    assert_int_equal(store_purge_deleted(s, when + 1), 0);
    assert_int_equal(store_sync(s), 0);
    struct store_flow g;
    assert_int_equal(store_get(s, 2, 0, &g), -ENOENT);
    assert_int_equal(store_get(s, 2, 7, &g), -ENOENT);
    assert_int_equal(state_of(s, 2, 0x100, NULL), STORE_FLOW_PENDING);
    memset(&c, 0, sizeof(c));
    assert_int_equal(store_foreach(s, NULL, collect_cb, &c), 0);
    assert_int_equal(c.n, 9);
    assert_int_equal(store_get_stats(s, &st), 0);
    assert_int_equal(st.records_marked_deleted, 4);
    assert_int_equal(st.records_deleted, 3);
    store_close(s);
    if (!t->be->durable)
        return;

    /* And after a restart. */
    s = open_dir(t);
    assert_non_null(s);
    memset(&c, 0, sizeof(c));
    assert_int_equal(store_foreach(s, NULL, collect_cb, &c), 0);
    assert_int_equal(c.n, 9);
    store_close(s);
}

#define REOPEN_N 300

static void test_reopen(void **state)
{
    struct tctx *t = *state;
    struct store *s = open_dir(t);
    struct store_flow g;
    struct tflow tf;

    assert_non_null(s);
    for (unsigned i = 0; i < REOPEN_N; i++) {
        mk_flow(&tf, 1 + i % 3, i, 1);
        assert_int_equal(store_put(s, &tf.f), 0);
    }
    /* Queued without waiting: close must still make them durable. */
    for (unsigned i = 0; i < REOPEN_N; i += 2)
        assert_int_equal(store_set_state(s, 1 + i % 3, i, 0, STORE_FLOW_INSTALLED, 0, 0), 0);
    assert_int_equal(store_del(s, 1, 0), 0);
    store_close(s);

    s = open_dir(t);
    assert_non_null(s);
    assert_int_equal(store_get(s, 1, 0, &g), -ENOENT);
    for (unsigned i = 1; i < REOPEN_N; i++) {
        mk_flow(&tf, 1 + i % 3, i, 1);
        assert_stored(s, &tf);
        assert_int_equal(store_get(s, 1 + i % 3, i, &g), 0);
        assert_int_equal(g.state, i % 2 ? STORE_FLOW_PENDING : STORE_FLOW_INSTALLED);
        store_flow_release(&g);
    }
    struct store_stats st;
    assert_int_equal(store_get_stats(s, &st), 0);
    assert_int_equal(st.records, REOPEN_N - 1);
    store_close(s);
}

/* ---- group commit ---------------------------------------------------- */

#define GC_THREADS 8
#define GC_PUTS 100

struct gc_arg {
    struct store *s;
    pthread_barrier_t *start;
    unsigned id;
    unsigned puts;
    int failures;
};

static void *gc_writer(void *p)
{
    struct gc_arg *a = p;
    struct tflow tf;

    pthread_barrier_wait(a->start);
    for (unsigned i = 0; i < a->puts; i++) {
        mk_flow(&tf, 100 + a->id, i, 1);
        if (store_put(a->s, &tf.f) != 0)
            a->failures++;
    }
    return NULL;
}

/* Run nthreads writers of puts each; returns elapsed seconds. */
static double run_writers(struct store *s, unsigned nthreads, unsigned puts)
{
    pthread_t th[GC_THREADS];
    struct gc_arg args[GC_THREADS];
    pthread_barrier_t start;
    struct timespec t0, t1;

    assert_true(nthreads <= GC_THREADS);
    assert_int_equal(pthread_barrier_init(&start, NULL, nthreads + 1), 0);
    for (unsigned i = 0; i < nthreads; i++) {
        args[i] = (struct gc_arg){ .s = s, .start = &start, .id = i, .puts = puts };
        assert_int_equal(pthread_create(&th[i], NULL, gc_writer, &args[i]), 0);
    }
    pthread_barrier_wait(&start);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (unsigned i = 0; i < nthreads; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(args[i].failures, 0);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    pthread_barrier_destroy(&start);
    return (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

static void assert_all_written(struct store *s, unsigned nthreads, unsigned puts)
{
    struct tflow tf;

    for (unsigned id = 0; id < nthreads; id++)
        for (unsigned i = 0; i < puts; i++) {
            mk_flow(&tf, 100 + id, i, 1);
            assert_stored(s, &tf);
        }
}

/*
 * With a batching window that waits for one change per writer, every
 * commit carries several writers' changes: far fewer syncs than changes.
 */
static void test_group_commit_window(void **state)
{
    struct tctx *t = *state;
    struct store_config cfg = {
        .dir = t->dir, .linger_us = 200000, .batch_target = GC_THREADS,
    };
    struct store *s = topen(t, &cfg);
    struct store_stats st;
    const unsigned total = GC_THREADS * GC_PUTS;

    assert_non_null(s);
    run_writers(s, GC_THREADS, GC_PUTS);
    assert_int_equal(store_get_stats(s, &st), 0);
    assert_int_equal(st.records, total);
    assert_int_equal(st.records_put, total);
    assert_int_equal(st.changes, total);
    assert_true(st.commits < total / 2);
    assert_true(st.max_batch >= 2);
    assert_true(st.max_batch <= GC_THREADS);
    assert_int_equal(st.failed_commits, 0);
    assert_all_written(s, GC_THREADS, GC_PUTS);
    store_close(s);
}

static double since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * The window ends early once nobody else comes: a lone change waits about
 * a quarter of it for company (here 0.5 s of 2 s), not the whole window,
 * and the window never holds a change past its end while others keep
 * arriving within each quarter.
 */
static void test_group_commit_window_quiet(void **state)
{
    struct tctx *t = *state;
    struct store_config cfg = {.dir = t->dir, .linger_us = 2000000, .batch_target = 64};
    struct store *s = topen(t, &cfg);
    struct store_stats st;
    struct tflow tf;
    struct timespec t0;

    assert_non_null(s);
    mk_flow(&tf, 7, 1, 1);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(store_put(s, &tf.f), 0);
    double el = since(&t0);
    assert_true(el >= 0.45);                /* it did wait for company */
    assert_true(el < 1.5);                  /* and not for the whole window */
    assert_int_equal(store_get_stats(s, &st), 0);
    assert_int_equal(st.commits, 1);
    assert_stored(s, &tf);
    store_close(s);
}

/*
 * Default settings (no window): batches form from what queues during a
 * sync. Prints the figures; asserts only what the design guarantees: every
 * change committed exactly once and some commit carried more than one.
 */
static void test_group_commit_default(void **state)
{
    struct tctx *t = *state;
    struct store *s = open_dir(t);
    struct store_stats st1, st8;
    double el1, el8;

    assert_non_null(s);
    el1 = run_writers(s, 1, GC_PUTS);
    assert_int_equal(store_get_stats(s, &st1), 0);
    assert_int_equal(st1.commits, GC_PUTS); /* one writer: nothing to batch with */
    assert_int_equal(st1.max_batch, 1);

    el8 = run_writers(s, GC_THREADS, GC_PUTS);
    assert_int_equal(store_get_stats(s, &st8), 0);
    assert_int_equal(st8.changes - st1.changes, GC_THREADS * GC_PUTS);
    assert_int_equal(st8.records, GC_THREADS * GC_PUTS); /* writer 0 replaced its own */
    assert_true(st8.max_batch >= 2);
    assert_all_written(s, GC_THREADS, GC_PUTS);

    print_message("store: 1 thread  %u puts in %.3f s = %.0f puts/s, avg batch %.2f\n",
                  GC_PUTS, el1, GC_PUTS / el1, (double)st1.changes / (double)st1.commits);
    print_message("store: %u threads %u puts in %.3f s = %.0f puts/s, avg batch %.2f, "
                  "max %" PRIu64 ", avg commit %.2f ms\n",
                  GC_THREADS, GC_THREADS * GC_PUTS, el8, GC_THREADS * GC_PUTS / el8,
                  (double)(st8.changes - st1.changes) / (double)(st8.commits - st1.commits),
                  st8.max_batch,
                  (double)st8.commit_ns_total / (double)st8.commits / 1e6);
    store_close(s);
}

/* ---- crash safety ---------------------------------------------------- */

#define CRASH_MAX 100000u  /* the child never gets this far */
#define CRASH_KILL_AT 40u

static void crash_child(const struct tctx *t, int wfd)
{
    struct store *s = open_dir(t);
    struct tflow tf;

    if (!s)
        _exit(2);
    for (uint32_t i = 0; i < CRASH_MAX; i++) {
        uint32_t acked = i + 1;

        mk_flow(&tf, 9, i, 1);
        if (store_put(s, &tf.f) != 0)
            _exit(3);
        if (write(wfd, &acked, sizeof(acked)) != sizeof(acked))
            _exit(4);
    }
    _exit(0);
}

static void test_crash_sigkill(void **state)
{
    struct tctx *t = *state;
    uint32_t acked = 0, v;
    int pfd[2], status;
    bool killed = false;
    struct store_stats st;
    struct store *s;
    struct tflow tf;
    pid_t pid;
    ssize_t r;

    assert_int_equal(pipe(pfd), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(pfd[0]);
        crash_child(t, pfd[1]);
    }
    close(pfd[1]);
    /* Read every acknowledgement, including those racing with the kill. */
    while ((r = read(pfd[0], &v, sizeof(v))) == sizeof(v)) {
        assert_int_equal(v, acked + 1);
        acked = v;
        if (!killed && acked >= CRASH_KILL_AT) {
            assert_int_equal(kill(pid, SIGKILL), 0);
            killed = true;
        }
    }
    close(pfd[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGKILL);
    assert_true(acked >= CRASH_KILL_AT);

    s = open_dir(t);
    assert_non_null(s);
    for (uint32_t i = 0; i < acked; i++) {
        mk_flow(&tf, 9, i, 1);
        assert_stored(s, &tf);
    }
    /* The put in flight at the kill may or may not have made it; no more. */
    assert_int_equal(store_get_stats(s, &st), 0);
    assert_true(st.records == acked || st.records == acked + 1);
    /* The reopened store is writable. */
    mk_flow(&tf, 9, CRASH_MAX, 2);
    assert_int_equal(store_put(s, &tf.f), 0);
    store_close(s);
}

/* ---- map full ---------------------------------------------------------- */

/* Puts f as flow i (match_id i * mult, flow_id i + flow_base) for i = 0, 1,
 * ... until the store is full, which it must be before max; how many fit. */
static unsigned fill_until_full(struct store *s, struct store_flow *f, unsigned max,
                                uint64_t mult, uint64_t flow_base)
{
    int rc = 0;
    unsigned i;

    for (i = 0; i < max; i++) {
        f->match_id = i * mult;
        f->flow_id = i + flow_base;
        if ((rc = store_put(s, f)) != 0)
            break;
    }
    assert_int_equal(rc, -ENOSPC);
    return i;
}

static void test_map_full(void **state)
{
    struct tctx *t = *state;
    struct store_config cfg = { .dir = t->dir, .map_size = 256 * 1024 };
    static char big[1500];
    struct store_stats st;
    struct store_flow f = { .dpid = 3, .owner = "o", .json = big, .json_len = sizeof(big) };
    struct store_flow g;
    struct store *s;
    unsigned stored;

    memset(big, 'j', sizeof(big));
    s = topen(t, &cfg);
    assert_non_null(s);
    stored = fill_until_full(s, &f, 1000, 1, 0);
    assert_true(stored > 0);
    assert_int_equal(store_get(s, 3, stored, &g), -ENOENT);
    for (unsigned i = 0; i < stored; i++) {
        assert_int_equal(store_get(s, 3, i, &g), 0);
        assert_int_equal(g.json_len, sizeof(big));
        store_flow_release(&g);
    }
    assert_int_equal(store_get_stats(s, &st), 0);
    assert_int_equal(st.records, stored);
    assert_true(st.failed_commits >= 1);
    assert_int_equal(st.map_size, 256 * 1024);
    assert_true(st.map_used <= st.map_size);

    /* Deletes and state updates still work when full, and make room again. */
    assert_int_equal(store_set_state(s, 3, stored - 1, 0, STORE_FLOW_INSTALLED, 0, 0), 0);
    for (unsigned i = 0; i < stored / 2 + 1; i++)
        assert_int_equal(store_del(s, 3, i), 0);
    assert_int_equal(store_get_stats(s, &st), 0);
    assert_int_equal(st.async_lost, 0);
    assert_int_equal(store_get(s, 3, stored - 1, &g), 0);
    assert_int_equal(g.state, STORE_FLOW_INSTALLED);
    store_flow_release(&g);
    f.match_id = stored;
    assert_int_equal(store_put(s, &f), 0);
    store_close(s);
}

/* Texts as the callers gave them, byte for byte, through every read (get,
 * foreach, get_each, a delete's predicate) and after a mark as deleted:
 * Kytos flows (which LMDB keeps coded, store_jcode.h), pretty-printed
 * text, a byte below 0x20 that is not whitespace (kept as is), text that
 * coding would not shorten, high bytes. */
static const char *const exact_texts[] = {
    "{\"priority\": 100, \"match\": {\"dl_type\": 2048, \"nw_dst\": \"10.1.2.3\"}, "
    "\"actions\": [{\"action_type\": \"output\", \"port\": 1}]}",
    "{\n\t\"priority\" : 7,\r\n\t\"match\":{ \"in_port\" :1 }\n}",
    "{\"priority\": 1, \"note\": \"\x01 not json\"}",
    "jjjjjjjjjjjjjjjj",
    "{\"owner\": \"caf\xc3\xa9\", \"ports\": [\"port\", \"\\\"port\\\"\"]}",
};
#define N_EXACT (sizeof(exact_texts) / sizeof(exact_texts[0]))

static int exact_check(const struct store_flow *f, void *arg)
{
    unsigned *seen = arg;

    assert_true(f->match_id < N_EXACT);
    assert_int_equal(f->json_len, strlen(exact_texts[f->match_id]));
    assert_memory_equal(f->json, exact_texts[f->match_id], f->json_len);
    (*seen)++;
    return 0;
}

/* Identity, state (merged from its state record) and owner as stored; the
 * text, when read, exact. */
static int exact_meta_check(const struct store_flow *f, void *arg)
{
    unsigned *seen = arg;

    assert_true(f->match_id < N_EXACT);
    assert_int_equal(f->flow_id, f->match_id + 1);
    assert_int_equal(f->state, f->match_id == 1 ? STORE_FLOW_ERROR : STORE_FLOW_PENDING);
    assert_string_equal(f->owner, "o");
    if (f->json) {
        assert_int_equal(f->json_len, strlen(exact_texts[f->match_id]));
        assert_memory_equal(f->json, exact_texts[f->match_id], f->json_len);
    }
    (*seen)++;
    return 0;
}

/* A version-only read after the even flows were marked deleted: the
 * version and deleted-or-not exact. */
static int exact_version_check(const struct store_flow *f, void *arg)
{
    unsigned *seen = arg;

    assert_true(f->match_id < N_EXACT);
    assert_int_equal(f->flow_id, f->match_id + 1);
    assert_int_equal(f->state == STORE_FLOW_DELETED, f->match_id % 2 == 0);
    (*seen)++;
    return 0;
}

static int exact_pred(const struct store_flow *f, void *arg)
{
    exact_check(f, arg);
    return f->match_id % 2 == 0;
}

static void test_json_text_exact(void **state)
{
    struct tctx *t = *state;
    struct store *s = open_dir(t);
    uint64_t dpid = 9, mids[N_EXACT], n = 0;
    unsigned seen = 0;

    assert_non_null(s);
    for (size_t i = 0; i < N_EXACT; i++) {
        struct store_flow f = {.dpid = dpid, .match_id = i, .flow_id = i + 1, .owner = "o",
                               .json = exact_texts[i], .json_len = strlen(exact_texts[i])};
        struct store_flow g;

        assert_int_equal(store_put(s, &f), 0);
        assert_int_equal(store_get(s, dpid, i, &g), 0);
        seen = 0;
        exact_check(&g, &seen);
        store_flow_release(&g);
        mids[i] = i;
    }
    seen = 0;
    assert_int_equal(store_foreach(s, &dpid, exact_check, &seen), 0);
    assert_int_equal(seen, N_EXACT);
    seen = 0;
    assert_int_equal(store_get_each(s, dpid, mids, N_EXACT, exact_check, &seen), 0);
    assert_int_equal(seen, N_EXACT);
    assert_int_equal(store_set_state(s, dpid, 1, 2, STORE_FLOW_ERROR, 5, 6), 0);
    assert_int_equal(store_sync(s), 0);
    seen = 0;
    assert_int_equal(store_get_each(s, dpid, mids, N_EXACT, exact_meta_check, &seen), 0);
    assert_int_equal(seen, N_EXACT);
    seen = 0;
    assert_int_equal(store_mark_deleted_if(s, &dpid, exact_pred, &seen, &n), 0);
    assert_int_equal(seen, N_EXACT);
    assert_int_equal(n, (N_EXACT + 1) / 2);
    seen = 0;
    assert_int_equal(store_get_each_version(s, dpid, mids, N_EXACT, exact_version_check, &seen),
                     0);
    assert_int_equal(seen, N_EXACT);
    seen = 0;
    assert_int_equal(store_foreach(s, &dpid, exact_check, &seen), 0);
    assert_int_equal(seen, N_EXACT);
    store_close(s);
}

/* A store filled with small flows, every one of them then installed (and
 * one in error): no state update is lost for room, the states read back,
 * and deletes still make room for a put. The state records a full store's
 * flows will get must not eat the reserve deletes need, nor may the old
 * copies of the pages one big batch of them rewrote: the second half's
 * updates are queued while the first half's are committed, as a burst of
 * installs arrives (a batch of hundreds here once left no room for the
 * first delete). */
static void test_map_full_then_all_installed(void **state)
{
    struct tctx *t = *state;
    struct store_config cfg = { .dir = t->dir, .map_size = 256 * 1024 };
    struct store_flow f = { .dpid = 4, .owner = "o", .json = "{\"p\": 1}", .json_len = 8 };
    struct store_stats st;
    struct store_flow g;
    struct store *s;
    unsigned stored;
    int rc = 0;

    s = topen(t, &cfg);
    assert_non_null(s);
    /* match_ids spread as the REST layer's hashes spread them */
    stored = fill_until_full(s, &f, 20000, 0x9e3779b97f4a7c15ull, 1);
    assert_true(stored > 500);
    for (unsigned i = 0; i < stored; i++) {
        uint64_t mid = i * 0x9e3779b97f4a7c15ull;
        if (i == 7)
            rc = store_set_state(s, 4, mid, i + 1, STORE_FLOW_ERROR, 4, 9);
        else
            rc = store_set_state(s, 4, mid, i + 1, STORE_FLOW_INSTALLED, 0, 0);
        if (rc == -EAGAIN) {                    /* the queue's bound: let it drain */
            assert_int_equal(store_sync(s), 0);
            i--;
            continue;
        }
        assert_int_equal(rc, 0);
        if (i + 1 == stored / 2)
            assert_int_equal(store_sync(s), 0);
    }
    assert_int_equal(store_sync(s), 0);
    assert_int_equal(store_get_stats(s, &st), 0);
    assert_int_equal(st.async_lost, 0);
    assert_int_equal(st.state_updates, stored);
    for (unsigned i = 0; i < stored; i++) {
        assert_int_equal(store_get(s, 4, i * 0x9e3779b97f4a7c15ull, &g), 0);
        assert_int_equal(g.state, i == 7 ? STORE_FLOW_ERROR : STORE_FLOW_INSTALLED);
        assert_int_equal(g.err_code, i == 7 ? 9 : 0);
        store_flow_release(&g);
    }
    for (unsigned i = 0; i < stored / 2; i++)
        assert_int_equal(store_del(s, 4, i * 0x9e3779b97f4a7c15ull), 0);
    f.match_id = 1;
    assert_int_equal(store_put(s, &f), 0);
    assert_int_equal(store_get(s, 4, 1, &g), 0);
    assert_int_equal(g.state, STORE_FLOW_PENDING);
    store_flow_release(&g);
    store_close(s);
}

struct iso_arg {
    struct store *s;
    pthread_barrier_t *start;
    const struct store_flow *f;
    int rc;
};

static void *iso_writer(void *p)
{
    struct iso_arg *a = p;

    pthread_barrier_wait(a->start);
    a->rc = store_put(a->s, a->f);
    return NULL;
}

/*
 * A change that does not fit must fail alone: the small put sharing its
 * batch (the window waits for both) is still stored.
 */
static void test_full_isolated_in_batch(void **state)
{
    struct tctx *t = *state;
    struct store_config cfg = {
        .dir = t->dir, .map_size = 256 * 1024, .linger_us = 30u * 1000000u, .batch_target = 2,
    };
    static char huge[300 * 1024];
    struct store_flow big = { .dpid = 6, .match_id = 1, .json = huge, .json_len = sizeof(huge) };
    struct store_flow small = { .dpid = 6, .match_id = 2, .json = "{}", .json_len = 2 };
    pthread_barrier_t start;
    struct iso_arg a[2] = { { .f = &big }, { .f = &small } };
    pthread_t th[2];
    struct store_stats st;
    struct store_flow g;
    struct store *s = topen(t, &cfg);

    assert_non_null(s);
    assert_int_equal(pthread_barrier_init(&start, NULL, 2), 0);
    for (int i = 0; i < 2; i++) {
        a[i].s = s;
        a[i].start = &start;
        assert_int_equal(pthread_create(&th[i], NULL, iso_writer, &a[i]), 0);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);
    assert_int_equal(a[0].rc, -ENOSPC);
    assert_int_equal(a[1].rc, 0);
    assert_int_equal(store_get(s, 6, 1, &g), -ENOENT);
    assert_int_equal(store_get(s, 6, 2, &g), 0);
    assert_memory_equal(g.json, "{}", 2);
    store_flow_release(&g);
    assert_int_equal(store_get_stats(s, &st), 0);
    assert_int_equal(st.records, 1);
    store_close(s);
}

/* ---- async backpressure ---------------------------------------------- */

/* A completion that holds the committer until the test opens the gate. */
struct bp_gate {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    bool held, open;
};

static void bp_gate_hold(void *arg, int rc)
{
    struct bp_gate *g = arg;

    assert_int_equal(rc, 0);
    pthread_mutex_lock(&g->lock);
    g->held = true;
    pthread_cond_broadcast(&g->cv);
    while (!g->open)
        pthread_cond_wait(&g->cv, &g->lock);
    pthread_mutex_unlock(&g->lock);
}

static void test_async_backpressure(void **state)
{
    struct tctx *t = *state;
    /* No batching window: the gate below keeps the queue from draining
     * while it fills (a 30 s window did too, and made a lone change wait a
     * quarter of it, 7.5 s per backend, for its commit). */
    struct store_config cfg = { .dir = t->dir, .max_async = 4 };
    struct store *s;
    struct store_stats st;
    struct store_flow g;
    struct tflow tf;

    /* The flows first, without the window (a backend that forgets at close
     * is only checked for the refusal). */
    if (t->be->durable) {
        assert_non_null(s = open_dir(t));
        for (unsigned i = 0; i < 5; i++) {
            mk_flow(&tf, 4, i, 1);
            assert_int_equal(store_put(s, &tf.f), 0);
        }
        store_close(s);
    }

    s = topen(t, &cfg);
    assert_non_null(s);
    /* The committer is held inside a completion (completions run on it),
     * so nothing queued below can be taken before the fifth change: the
     * queue's bound, not a race with the committer, is what refuses it. */
    struct bp_gate gate = { .lock = PTHREAD_MUTEX_INITIALIZER,
                            .cv = PTHREAD_COND_INITIALIZER };
    assert_int_equal(store_sync_async(s, bp_gate_hold, &gate), 0);
    pthread_mutex_lock(&gate.lock);
    while (!gate.held)
        pthread_cond_wait(&gate.cv, &gate.lock);
    pthread_mutex_unlock(&gate.lock);
    for (unsigned i = 0; i < 4; i++)
        assert_int_equal(store_set_state(s, 4, i, 0, STORE_FLOW_INSTALLED, 0, 0), 0);
    assert_int_equal(store_set_state(s, 4, 4, 0, STORE_FLOW_INSTALLED, 0, 0), -EAGAIN);
    assert_int_equal(store_get_stats(s, &st), 0);
    assert_int_equal(st.async_rejected, 1);
    pthread_mutex_lock(&gate.lock);
    gate.open = true;
    pthread_cond_broadcast(&gate.cv);
    pthread_mutex_unlock(&gate.lock);
    /* Closing ends the window and commits what was accepted. */
    store_close(s);
    if (!t->be->durable)
        return;

    s = open_dir(t);
    assert_non_null(s);
    for (unsigned i = 0; i < 5; i++) {
        assert_int_equal(store_get(s, 4, i, &g), 0);
        assert_int_equal(g.state, i < 4 ? STORE_FLOW_INSTALLED : STORE_FLOW_PENDING);
        store_flow_release(&g);
    }
    store_close(s);
}

/* ---- completion callbacks ----------------------------------------------- */

struct done_log {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    struct store *s;
    int order[8];
    int rc[8];
    bool visible[8];
    unsigned n;
};

struct done_tag {
    struct done_log *log;
    int id;
    uint64_t dpid, mid;
};

static void done_cb(void *arg, int rc)
{
    struct done_tag *tag = arg;
    struct done_log *l = tag->log;
    struct store_flow g;
    bool vis = store_get(l->s, tag->dpid, tag->mid, &g) == 0;

    if (vis)
        store_flow_release(&g);
    pthread_mutex_lock(&l->lock);
    l->order[l->n] = tag->id;
    l->rc[l->n] = rc;
    l->visible[l->n] = vis;
    l->n++;
    pthread_cond_signal(&l->cv);
    pthread_mutex_unlock(&l->lock);
}

/* Each queued change is confirmed once, after it is durable (readable in
 * the callback), in queue order; closing completes what is still queued. */
/* ---- progress marks ------------------------------------------------------ */

struct rc_box {
    int rc;
    bool done;
};

static void rc_box_done(void *arg, int rc)
{
    struct rc_box *b = arg;

    b->rc = rc;
    b->done = true;
}

/* The committer held in a completion until gate_open: what is queued
 * meanwhile goes as one batch. */
static void gate_hold(struct store *s, struct bp_gate *gate)
{
    assert_int_equal(store_sync_async(s, bp_gate_hold, gate), 0);
    pthread_mutex_lock(&gate->lock);
    while (!gate->held)
        pthread_cond_wait(&gate->cv, &gate->lock);
    pthread_mutex_unlock(&gate->lock);
}

static void gate_open(struct store *s, struct bp_gate *gate)
{
    pthread_mutex_lock(&gate->lock);
    gate->open = true;
    pthread_cond_broadcast(&gate->cv);
    pthread_mutex_unlock(&gate->lock);
    assert_int_equal(store_sync(s), 0);
    gate->held = gate->open = false;
}

/* The recorded mark, or "" when none. */
static void mark_is(struct store *s, const char *want)
{
    char *text = NULL;
    int rc = store_kv_get(s, "rev", &text, NULL);

    if (!*want)
        assert_int_equal(rc, -ENOENT);
    else {
        assert_int_equal(rc, 0);
        assert_string_equal(text, want);
    }
    free(text);
}

/* A mark is recorded only if no change queued since the last restart
 * failed, decided in queue order within a batch and across the replay of a
 * failed one; a delete of nothing is not a failure; a restart forgets. */
static void test_progress_marks(void **state)
{
    struct tctx *t = *state;
    struct store_config cfg = { .dir = t->dir, .map_size = 256 * 1024 };
    static char huge[300 * 1024];
    struct store_flow big = { .dpid = 8, .match_id = 1, .json = huge, .json_len = sizeof(huge) };
    struct store_flow small = { .dpid = 8, .match_id = 2, .json = "{}", .json_len = 2 };
    struct bp_gate gate = { .lock = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };
    struct rc_box b[6];
    struct store *s = topen(t, &cfg);

    assert_non_null(s);
    /* Nothing lost yet; a delete of nothing is that delete's answer. */
    memset(b, 0, sizeof(b));
    gate_hold(s, &gate);
    assert_int_equal(store_del_async(s, 8, 99, rc_box_done, &b[0]), 0);
    assert_int_equal(store_queue_kv_mark_async(s, "rev", "1", 1, rc_box_done, &b[1]), 0);
    gate_open(s, &gate);
    assert_int_equal(b[0].rc, -ENOENT);
    assert_int_equal(b[1].rc, 0);
    mark_is(s, "1");

    /* A change that fails: no mark after it passes, in its batch or later. */
    memset(b, 0, sizeof(b));
    gate_hold(s, &gate);
    assert_int_equal(store_put_many_async(s, &small, 1, rc_box_done, &b[0]), 0);
    assert_int_equal(store_put_many_async(s, &big, 1, rc_box_done, &b[1]), 0);
    assert_int_equal(store_queue_kv_mark_async(s, "rev", "2", 1, rc_box_done, &b[2]), 0);
    gate_open(s, &gate);
    assert_int_equal(b[0].rc, 0);
    assert_int_equal(b[1].rc, -ENOSPC);
    assert_int_equal(b[2].rc, -ECANCELED);
    assert_int_equal(store_queue_kv_mark_async(s, "rev", "3", 1, rc_box_done, &b[3]), 0);
    assert_int_equal(store_sync(s), 0);
    assert_int_equal(b[3].rc, -ECANCELED);
    mark_is(s, "1");

    /* A mark before a restart, in a batch a later change fails and so
     * replays one by one: still refused (the aborted try's restart does
     * not count); the restart forgets; the failure after it counts. */
    memset(b, 0, sizeof(b));
    gate_hold(s, &gate);
    assert_int_equal(store_queue_kv_mark_async(s, "rev", "4", 1, rc_box_done, &b[0]), 0);
    assert_int_equal(store_queue_mark_restart_async(s, rc_box_done, &b[1]), 0);
    assert_int_equal(store_put_many_async(s, &small, 1, rc_box_done, &b[2]), 0);
    assert_int_equal(store_queue_kv_mark_async(s, "rev", "5", 1, rc_box_done, &b[3]), 0);
    assert_int_equal(store_put_many_async(s, &big, 1, rc_box_done, &b[4]), 0);
    assert_int_equal(store_queue_kv_mark_async(s, "rev", "6", 1, rc_box_done, &b[5]), 0);
    gate_open(s, &gate);
    assert_int_equal(b[0].rc, -ECANCELED);
    assert_int_equal(b[1].rc, 0);
    assert_int_equal(b[2].rc, 0);
    assert_int_equal(b[3].rc, 0);
    assert_int_equal(b[4].rc, -ENOSPC);
    assert_int_equal(b[5].rc, -ECANCELED);
    mark_is(s, "5");

    /* A restart alone, then a mark: recorded. */
    memset(b, 0, sizeof(b));
    assert_int_equal(store_queue_mark_restart_async(s, rc_box_done, &b[0]), 0);
    assert_int_equal(store_queue_kv_mark_async(s, "rev", "7", 1, rc_box_done, &b[1]), 0);
    assert_int_equal(store_sync(s), 0);
    assert_int_equal(b[1].rc, 0);
    mark_is(s, "7");
    assert_int_equal(store_queue_kv_mark_async(s, "rev", "8", 1, NULL, NULL), -EINVAL);
    store_close(s);
}

static void test_async_put_done(void **state)
{
    struct tctx *t = *state;
    struct store_config cfg = {
        .dir = t->dir, .linger_us = 30u * 1000000u, .batch_target = 3,
    };
    struct done_log l = {.lock = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    struct done_tag tags[4];
    struct tflow tf[4];

    l.s = topen(t, &cfg);
    assert_non_null(l.s);
    for (int i = 0; i < 4; i++) {
        mk_flow(&tf[i], 9, 100 + (unsigned)i, 1);
        tags[i] = (struct done_tag){&l, i, 9, 100 + (uint64_t)i};
    }
    assert_int_equal(store_put_many_async(l.s, &tf[0].f, 1, NULL, NULL), -EINVAL);
    for (int i = 0; i < 3; i++)
        assert_int_equal(store_put_many_async(l.s, &tf[i].f, 1, done_cb, &tags[i]), 0);
    /* batch_target reached: committed without waiting out the window. */
    pthread_mutex_lock(&l.lock);
    while (l.n < 3)
        pthread_cond_wait(&l.cv, &l.lock);
    pthread_mutex_unlock(&l.lock);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(l.order[i], i);
        assert_int_equal(l.rc[i], 0);
        assert_true(l.visible[i]);
    }
    /* A fourth waits in the 30 s window; closing commits and confirms it. */
    assert_int_equal(store_put_many_async(l.s, &tf[3].f, 1, done_cb, &tags[3]), 0);
    assert_int_equal(l.n, 3);
    store_close(l.s);
    assert_int_equal(l.n, 4);
    assert_int_equal(l.order[3], 3);
    assert_int_equal(l.rc[3], 0);
}

/* A delete without waiting (the REST DELETE's): confirmed after it is
 * durable, in queue order with the puts around it — a put, then the delete
 * of that flow, then a put of it again, leave the new version. */
static void test_async_select_in_order(void **state)
{
    struct tctx *t = *state;
    struct done_log l = {.lock = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    struct done_tag tags[3];
    struct tflow a, again;
    uint64_t d = 9;

    l.s = open_dir(t);
    assert_non_null(l.s);
    mk_flow(&a, 9, 100, 1);
    mk_flow(&again, 9, 100, 2);
    for (int i = 0; i < 3; i++)
        tags[i] = (struct done_tag){&l, i, 9, 100};
    assert_int_equal(store_select_async(l.s, &d, pred_any, NULL, true, NULL, NULL), -EINVAL);
    assert_int_equal(store_put_many_async(l.s, &a.f, 1, done_cb, &tags[0]), 0);
    assert_int_equal(store_select_async(l.s, &d, pred_any, NULL, true, done_cb, &tags[1]), 0);
    pthread_mutex_lock(&l.lock);
    while (l.n < 2)
        pthread_cond_wait(&l.cv, &l.lock);
    pthread_mutex_unlock(&l.lock);
    assert_int_equal(l.order[0], 0);
    assert_int_equal(l.order[1], 1);
    assert_int_equal(l.rc[1], 0);
    assert_int_equal(state_of(l.s, 9, 100, NULL), STORE_FLOW_DELETED);
    assert_int_equal(store_put_many_async(l.s, &again.f, 1, done_cb, &tags[2]), 0);
    assert_int_equal(store_select_async(l.s, &d, pred_any, NULL, false, done_cb, &tags[0]), 0);
    store_close(l.s);                                /* completes what is queued */
    assert_int_equal(l.n, 4);
    assert_int_equal(l.order[2], 2);
    assert_int_equal(l.order[3], 0);
    assert_false(l.visible[3]);                      /* deleted outright, durably */
    if (!t->be->durable)
        return;
    l.s = open_dir(t);
    assert_non_null(l.s);
    struct store_flow g;
    assert_int_equal(store_get(l.s, 9, 100, &g), -ENOENT);
    store_close(l.s);
}

/* A state update nobody waits for rides in the next commit a caller waits
 * for, instead of a sync of its own ahead of it. */
static void test_background_rides_along(void **state)
{
    struct tctx *t = *state;
    struct store_config cfg = {.dir = t->dir, .bg_linger_us = 30u * 1000000u};
    struct store_stats st0, st1;
    struct store_flow g;
    struct tflow a, b;

    struct store *s = topen(t, &cfg);
    assert_non_null(s);
    mk_flow(&a, 3, 1, 1);
    mk_flow(&b, 3, 2, 1);
    assert_int_equal(store_put(s, &a.f), 0);
    assert_int_equal(store_get_stats(s, &st0), 0);
    assert_int_equal(store_set_state(s, 3, 1, a.f.flow_id, STORE_FLOW_INSTALLED, 0, 0), 0);
    assert_int_equal(store_put(s, &b.f), 0);       /* returns once its commit is durable */
    assert_int_equal(store_get_stats(s, &st1), 0);
    assert_true(st1.commits == st0.commits + 1);
    assert_int_equal(store_get(s, 3, 1, &g), 0);
    assert_int_equal(g.state, STORE_FLOW_INSTALLED);
    store_flow_release(&g);
    /* Alone, it still is not lost: closing commits it. */
    assert_int_equal(store_set_state(s, 3, 2, b.f.flow_id, STORE_FLOW_INSTALLED, 0, 0), 0);
    store_close(s);
    if (!t->be->durable)
        return;
    s = open_dir(t);
    assert_non_null(s);
    assert_int_equal(store_get(s, 3, 2, &g), 0);
    assert_int_equal(g.state, STORE_FLOW_INSTALLED);
    store_flow_release(&g);
    store_close(s);
}

static void test_open_errors(void **state)
{
    struct tctx *t = *state;
    struct store_config cfg = { .dir = t->dir, .map_size = 64 * 1024 };

    /* A map too small to keep the delete reserve. */
    assert_null(store_open(&cfg));
    cfg.map_size = 128 * 1024;
    struct store *s = topen(t, &cfg);
    assert_non_null(s);
    store_close(s);

    cfg.dir = NULL;
    assert_null(store_open(NULL));
    assert_null(store_open(&cfg));
    cfg.dir = "/proc/ofcd-store-cannot-exist";
    assert_null(store_open(&cfg));
    assert_string_equal(store_state_name(STORE_FLOW_ERROR), "error");
}

/* The apps' records: what store_kv_foreach found, as "key=value;" text. */
static int kv_collect(const char *key, const void *val, size_t len, void *arg)
{
    char *out = arg;
    size_t n = strlen(out);
    snprintf(out + n, 512 - n, "%s=%.*s;", key, (int)len, (const char *)val);
    return 0;
}

static int kv_stop(const char *key, const void *val, size_t len, void *arg)
{
    (void)key, (void)val, (void)len;
    ++*(int *)arg;
    return -ECANCELED;
}

/* What test_kv_records leaves: every record in key order, and its flow. */
static void assert_kv_all(struct store *s, const struct tflow *tf)
{
    char got[512] = "";

    assert_int_equal(store_kv_foreach(s, NULL, kv_collect, got), 0);
    assert_string_equal(got, "topology/empty=;topology/meta/link/a={\"v\":3};"
                             "topology/meta/switch/1={\"x\":2};topologz=past the prefix;");
    assert_stored(s, tf);
}

static void test_kv_records(void **state)
{
    struct tctx *t = *state;
    struct store *s = open_dir(t);
    struct tflow tf;
    char got[512] = "";
    int calls = 0;

    assert_non_null(s);
    assert_int_equal(store_kv_put(s, "topology/meta/link/b", "{\"w\":1}", 7), 0);
    assert_int_equal(store_kv_put(s, "topology/meta/link/a", "{}", 2), 0);
    assert_int_equal(store_kv_put(s, "topology/meta/switch/1", "{\"x\":2}", 7), 0);
    assert_int_equal(store_kv_put(s, "topologz", "past the prefix", 15), 0);
    assert_int_equal(store_kv_put(s, "topology/meta/link/a", "{\"v\":3}", 7), 0);   /* replaces */
    assert_int_equal(store_kv_put(s, "topology/empty", NULL, 0), 0);
    /* A leader-only put, with no leader to check (no cluster): a put. */
    /* Flows and records live side by side and do not see each other. */
    mk_flow(&tf, 7, 1, 1);
    assert_int_equal(store_put(s, &tf.f), 0);
    assert_int_equal(store_kv_foreach(s, "topology/meta/link/", kv_collect, got), 0);
    assert_string_equal(got, "topology/meta/link/a={\"v\":3};topology/meta/link/b={\"w\":1};");
    /* One key: the exact one, not a longer key it is a prefix of. */
    char *v = NULL;
    size_t vlen = 0;
    assert_int_equal(store_kv_get(s, "topology/meta/link/a", &v, &vlen), 0);
    assert_int_equal(vlen, 7);
    assert_string_equal(v, "{\"v\":3}");
    free(v);
    assert_int_equal(store_kv_get(s, "topology/meta/link/", &v, &vlen), -ENOENT);
    /* A leader-only put, with no leader to check (no cluster): a put. */
    assert_int_equal(store_kv_put_leader(s, "topology/meta/link/a", "{}", 2), 0);
    assert_int_equal(store_kv_put_leader(s, "topology/meta/link/a", "{\"v\":3}", 7), 0);
    assert_int_equal(store_kv_get(s, "topology/empty", &v, &vlen), 0);
    assert_int_equal(vlen, 0);
    free(v);
    assert_int_equal(store_kv_del(s, "topology/meta/link/b"), 0);
    assert_int_equal(store_kv_del(s, "topology/meta/link/b"), -ENOENT);
    assert_int_equal(store_kv_get(s, "topology/meta/link/b", &v, &vlen), -ENOENT);
    assert_int_equal(store_kv_foreach(s, "topology/", kv_stop, &calls), -ECANCELED);
    assert_int_equal(calls, 1);
    /* Bad arguments change nothing. */
    char long_key[STORE_KV_KEY_MAX + 2];
    memset(long_key, 'k', sizeof(long_key) - 1);
    long_key[sizeof(long_key) - 1] = '\0';
    assert_int_equal(store_kv_put(s, long_key, "x", 1), -EINVAL);
    assert_int_equal(store_kv_put(s, "", "x", 1), -EINVAL);
    assert_int_equal(store_kv_put(s, "k", NULL, 3), -EINVAL);
    assert_int_equal(store_kv_put(s, "k", "x", STORE_KV_VAL_MAX + 1), -EINVAL);
    assert_kv_all(s, &tf);
    store_close(s);
    if (!t->be->durable)
        return;

    /* Durable: all there after a reopen, in key order. */
    s = open_dir(t);
    assert_non_null(s);
    assert_kv_all(s, &tf);
    store_close(s);
}

/* ---- the watch hook --------------------------------------------------- */

/* What the watcher saw, as text: "[f1/10 -f1/11 k:a -k:a]" per call. */
struct watch_log {
    pthread_mutex_t lock;
    struct store *s;
    unsigned calls;
    unsigned bad_seq;          /* calls whose seq was not the commits counter */
    unsigned bad_read;         /* changes not readable as reported */
    char text[1024];
};

static void watch_cb(void *arg, uint64_t seq, const struct store_change *c, size_t n)
{
    struct watch_log *w = arg;
    struct store_stats st;

    assert_int_equal(store_get_stats(w->s, &st), 0);
    pthread_mutex_lock(&w->lock);
    w->calls++;
    w->bad_seq += st.commits != seq;
    size_t len = strlen(w->text);
    len += (size_t)snprintf(w->text + len, sizeof(w->text) - len, "[");
    for (size_t i = 0; i < n; i++) {
        const char *sep = i ? " " : "";
        if (c[i].kind == STORE_CHANGE_FLOW) {
            struct store_flow g;
            int rc = store_get(w->s, c[i].dpid, c[i].match_id, &g);
            w->bad_read += c[i].removed ? rc != -ENOENT : rc != 0;
            if (rc == 0)
                store_flow_release(&g);
            len += (size_t)snprintf(w->text + len, sizeof(w->text) - len, "%s%sf%" PRIu64 "/%"
                                    PRIu64, sep, c[i].removed ? "-" : "", c[i].dpid,
                                    c[i].match_id);
        } else {
            len += (size_t)snprintf(w->text + len, sizeof(w->text) - len, "%s%sk:%s", sep,
                                    c[i].removed ? "-" : "", c[i].key);
        }
    }
    snprintf(w->text + len, sizeof(w->text) - len, "]");
    pthread_mutex_unlock(&w->lock);
}

static int pred_mid(const struct store_flow *f, void *arg)
{
    return f->match_id == *(const uint64_t *)arg;
}

/* A completion that notes what the watcher had seen by then. */
struct watched_done {
    struct watch_log *w;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    bool done;
    bool seen;
};

static void watched_done_cb(void *arg, int rc)
{
    struct watched_done *d = arg;

    assert_int_equal(rc, 0);
    pthread_mutex_lock(&d->w->lock);
    bool seen = strstr(d->w->text, "f1/12") != NULL;
    pthread_mutex_unlock(&d->w->lock);
    pthread_mutex_lock(&d->lock);
    d->seen = seen;
    d->done = true;
    pthread_cond_signal(&d->cv);
    pthread_mutex_unlock(&d->lock);
}

/*
 * Each commit that changed something is reported once, after it is
 * readable and before its completions, with its sequence number and each
 * key it wrote or removed; commits that changed nothing (a stale state
 * update, a delete of a missing key) are not; once the watcher is taken
 * away it is not called again.
 */
static void test_watch(void **state)
{
    struct tctx *t = *state;
    struct watch_log w = {.lock = PTHREAD_MUTEX_INITIALIZER};
    struct tflow a, b, c;
    struct store_flow f[2];
    uint64_t d = 1, mid = 11, n = 0;

    assert_non_null(w.s = open_dir(t));
    assert_int_equal(store_watch(w.s, watch_cb, &w), 0);
    mk_flow(&a, 1, 10, 1);
    mk_flow(&b, 1, 11, 1);
    f[0] = a.f;
    f[1] = b.f;
    assert_int_equal(store_put_many(w.s, f, 2), 0);
    assert_int_equal(store_set_state(w.s, 1, 10, a.f.flow_id, STORE_FLOW_INSTALLED, 0, 0), 0);
    assert_int_equal(store_sync(w.s), 0);
    assert_int_equal(store_set_state(w.s, 1, 99, 0, STORE_FLOW_INSTALLED, 0, 0), 0);
    assert_int_equal(store_sync(w.s), 0);                       /* stale: nothing */
    assert_int_equal(store_mark_deleted_if(w.s, &d, pred_mid, &mid, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(store_purge_deleted(w.s, UINT64_MAX), 0);
    assert_int_equal(store_sync(w.s), 0);
    assert_int_equal(store_del(w.s, 1, 10), 0);
    assert_int_equal(store_del(w.s, 1, 10), -ENOENT);           /* nothing */
    assert_int_equal(store_kv_put(w.s, "a/b", "v", 1), 0);
    assert_int_equal(store_kv_del(w.s, "a/b"), 0);
    assert_int_equal(store_kv_del(w.s, "a/b"), -ENOENT);        /* nothing */

    /* The completion comes after the watcher has seen the change. */
    struct watched_done wd = {.w = &w, .lock = PTHREAD_MUTEX_INITIALIZER,
                              .cv = PTHREAD_COND_INITIALIZER};
    mk_flow(&c, 1, 12, 1);
    assert_int_equal(store_put_many_async(w.s, &c.f, 1, watched_done_cb, &wd), 0);
    pthread_mutex_lock(&wd.lock);
    while (!wd.done)
        pthread_cond_wait(&wd.cv, &wd.lock);
    pthread_mutex_unlock(&wd.lock);
    assert_true(wd.seen);

    pthread_mutex_lock(&w.lock);
    assert_string_equal(w.text, "[f1/10 f1/11][f1/10][f1/11][-f1/11][-f1/10][k:a/b][-k:a/b]"
                                "[f1/12]");
    assert_int_equal(w.calls, 8);
    assert_int_equal(w.bad_seq, 0);
    assert_int_equal(w.bad_read, 0);
    pthread_mutex_unlock(&w.lock);

    /* Taken away: no more calls. */
    assert_int_equal(store_watch(w.s, NULL, NULL), 0);
    mk_flow(&c, 1, 13, 1);
    assert_int_equal(store_put(w.s, &c.f), 0);
    assert_int_equal(w.calls, 8);
    store_close(w.s);
}

/* ---- many keys ----------------------------------------------------------- */

#define MANY 3000

static uint64_t xorshift(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

struct key2 {
    uint64_t dpid, mid;
};

static int key2_cmp(const void *a, const void *b)
{
    const struct key2 *x = a, *y = b;
    if (x->dpid != y->dpid)
        return x->dpid < y->dpid ? -1 : 1;
    return x->mid < y->mid ? -1 : x->mid > y->mid;
}

/* Every record walked, checked against want[from..] in order. */
struct walk_check {
    const struct key2 *want;
    size_t n, at;
    unsigned bad;
};

static int walk_check_cb(const struct store_flow *f, void *arg)
{
    struct walk_check *w = arg;

    if (w->at >= w->n || w->want[w->at].dpid != f->dpid || w->want[w->at].mid != f->match_id)
        w->bad++;
    w->at++;
    return 0;
}

static int pred_third(const struct store_flow *f, void *arg)
{
    (void)arg;
    return f->match_id % 3 == 0;
}

static int kv_count(const char *key, const void *val, size_t len, void *arg)
{
    (void)val, (void)len;
    unsigned *n = arg;
    char want[16];
    snprintf(want, sizeof(want), "k/%05u", 100 + n[0]);
    n[1] += strcmp(key, want) != 0;
    n[0]++;
    return 0;
}

/* What one completion saw of store_batch_final and of its batch. */
struct final_seen {
    struct store *s;
    volatile int rc;
    volatile int final;
    uint64_t taken_us;
};

static void final_done(void *arg, int rc)
{
    struct final_seen *f = arg;
    struct store_batch_times bt;

    f->final = store_batch_final(f->s);
    store_batch_times(f->s, &bt);
    f->taken_us = bt.taken_us;
    f->rc = rc;
}

/* a and b put by two requests that share one commit: tried until the
 * committer takes them together (the group-commit window nearly always
 * does; a slow machine may split them). */
static void two_puts_one_batch(struct store *s, const struct store_flow *a,
                               const struct store_flow *b, struct final_seen out[2])
{
    for (int tries = 0; tries < 50; tries++) {
        out[0] = out[1] = (struct final_seen){.s = s, .rc = 1, .final = -1};
        assert_int_equal(store_put_many_async(s, a, 1, final_done, &out[0]), 0);
        assert_int_equal(store_put_many_async(s, b, 1, final_done, &out[1]), 0);
        assert_int_equal(store_sync(s), 0);
        assert_int_equal(out[0].rc, 0);
        assert_int_equal(out[1].rc, 0);
        if (out[0].taken_us == out[1].taken_us)
            return;
    }
    fail_msg("two puts never shared a batch in 50 tries");
}

/* A completion may trust what its change wrote (the flow manager then
 * reads nothing back) only when nothing else writes the store and no key
 * of its batch was changed twice; etcd, which other nodes write, never. */
static void test_batch_final(void **state)
{
    struct tctx *t = *state;
    struct store_config cfg = {.dir = t->dir, .linger_us = 200000, .batch_target = 64};
    struct store *s = topen(t, &cfg);
    bool exclusive = t->be != &be_etcd;
    struct final_seen seen[2];
    struct tflow a, b, c, d;

    assert_non_null(s);
    assert_false(store_batch_final(s));             /* not from a completion */
    mk_flow(&a, 7, 1, 1);
    mk_flow(&b, 7, 2, 1);
    two_puts_one_batch(s, &a.f, &b.f, seen);
    assert_int_equal(seen[0].final, exclusive);
    assert_int_equal(seen[1].final, exclusive);
    /* One key put twice in the batch: the first put's version is gone. */
    mk_flow(&c, 7, 3, 1);
    mk_flow(&d, 7, 3, 2);
    two_puts_one_batch(s, &c.f, &d.f, seen);
    assert_int_equal(seen[0].final, 0);
    assert_int_equal(seen[1].final, 0);
    assert_stored(s, &d);
    /* The next batch starts afresh, even with keys of the last one. */
    mk_flow(&c, 7, 3, 3);
    mk_flow(&d, 8, 3, 1);
    two_puts_one_batch(s, &c.f, &d.f, seen);
    assert_int_equal(seen[0].final, exclusive);
    assert_int_equal(seen[1].final, exclusive);
    assert_false(store_batch_final(s));
    store_close(s);
}

/* One put that names a key more than once (a body listing a flow twice):
 * the last of them is what is stored, and a flow it replaces loses its
 * installed state. */
static void test_put_same_key_in_one_put(void **state)
{
    struct tctx *t = *state;
    struct store *s = open_dir(t);
    struct store_flow g;
    const uint64_t mids[] = {50, 10, 50, 5, 50, 900, 10};
    struct store_flow f[7];

    assert_non_null(s);
    struct store_flow old = {.dpid = 1, .match_id = 50, .flow_id = 100, .json = "{}",
                             .json_len = 2};
    assert_int_equal(store_put(s, &old), 0);
    assert_int_equal(store_set_state(s, 1, 50, 100, STORE_FLOW_INSTALLED, 0, 0), 0);
    assert_int_equal(store_sync(s), 0);
    for (size_t i = 0; i < 7; i++)
        f[i] = (struct store_flow){.dpid = 1, .match_id = mids[i], .flow_id = i + 1,
                                   .json = "{}", .json_len = 2};
    assert_int_equal(store_put_many(s, f, 7), 0);
    const uint64_t want[][2] = {{50, 5}, {10, 7}, {5, 4}, {900, 6}};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(store_get(s, 1, want[i][0], &g), 0);
        assert_int_equal(g.flow_id, want[i][1]);
        assert_int_equal(g.state, STORE_FLOW_PENDING);
        store_flow_release(&g);
    }
    store_close(s);
}

/*
 * Thousands of keys in random order, in batches: walks come back in key
 * order from any starting key, a selective delete removes exactly what it
 * selects, and the apps' records list by prefix in order.
 */
static void test_many_keys(void **state)
{
    struct tctx *t = *state;
    static struct key2 keys[MANY];
    static struct store_flow f[MANY];
    struct store *s = open_dir(t);
    uint64_t rng = 88172645463325252ull, deleted = 0;
    size_t kept = 0;

    assert_non_null(s);
    for (size_t i = 0; i < MANY; i++) {
        keys[i] = (struct key2){1 + xorshift(&rng) % 4, xorshift(&rng)};
        f[i] = (struct store_flow){.dpid = keys[i].dpid, .match_id = keys[i].mid,
                                   .flow_id = i, .owner = "o", .json = "{}", .json_len = 2};
    }
    for (size_t i = 0; i < MANY; i += 100)
        assert_int_equal(store_put_many(s, f + i, 100), 0);
    qsort(keys, MANY, sizeof(keys[0]), key2_cmp);

    struct walk_check w = {.want = keys, .n = MANY};
    assert_int_equal(store_foreach(s, NULL, walk_check_cb, &w), 0);
    assert_int_equal(w.at, MANY);
    assert_int_equal(w.bad, 0);

    assert_int_equal(store_del_if(s, NULL, pred_third, NULL, &deleted), 0);
    for (size_t i = 0; i < MANY; i++)
        if (keys[i].mid % 3)
            keys[kept++] = keys[i];
    assert_int_equal(deleted, MANY - kept);
    w = (struct walk_check){.want = keys, .n = kept};
    assert_int_equal(store_foreach(s, NULL, walk_check_cb, &w), 0);
    assert_int_equal(w.at, kept);
    assert_int_equal(w.bad, 0);

    /* From the middle of switch 2's keys: the rest of switch 2's, in order. */
    size_t first2 = 0, end2;
    while (keys[first2].dpid < 2)
        first2++;
    for (end2 = first2; end2 < kept && keys[end2].dpid == 2; end2++)
        ;
    size_t mid2 = first2 + (end2 - first2) / 2;
    uint64_t d = 2;
    w = (struct walk_check){.want = keys + mid2, .n = end2 - mid2};
    assert_int_equal(store_foreach_from(s, &d, 2, keys[mid2].mid, walk_check_cb, &w), 0);
    assert_int_equal(w.at, end2 - mid2);
    assert_int_equal(w.bad, 0);

    struct store_stats st;
    assert_int_equal(store_get_stats(s, &st), 0);
    assert_int_equal(st.records, kept);

    /* The apps' records: 300 keys in random order, 100 under one prefix. */
    unsigned order[300];
    for (unsigned i = 0; i < 300; i++)
        order[i] = i;
    for (unsigned i = 299; i > 0; i--) {
        unsigned j = (unsigned)(xorshift(&rng) % (i + 1)), x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
    for (unsigned i = 0; i < 300; i++) {
        char key[16];
        snprintf(key, sizeof(key), "k/%05u", order[i]);
        assert_int_equal(store_kv_put(s, key, key, strlen(key)), 0);
    }
    unsigned got[2] = {0, 0};
    assert_int_equal(store_kv_foreach(s, "k/001", kv_count, got), 0);
    assert_int_equal(got[0], 100);
    assert_int_equal(got[1], 0);
    store_close(s);
}

/* ---- a failed batch is undone, then replayed ----------------------------- */

struct rc_slot {
    pthread_mutex_t *lock;
    pthread_cond_t *cv;
    unsigned *left;
    int rc;
};

static void rc_slot_done(void *arg, int rc)
{
    struct rc_slot *r = arg;

    pthread_mutex_lock(r->lock);
    r->rc = rc;
    --*r->left;
    pthread_cond_signal(r->cv);
    pthread_mutex_unlock(r->lock);
}

/* Three flows of switch 5, match_ids 1..3 (v1), and what the batch below
 * does to them when nothing fails. */
static void failed_batch_setup(struct store *s, struct tflow *tf)
{
    struct store_flow f[3];

    for (unsigned i = 0; i < 3; i++) {
        mk_flow(&tf[i], 5, 1 + i, 1);
        f[i] = tf[i].f;
    }
    assert_int_equal(store_put_many(s, f, 3), 0);
}

/*
 * A batch whose last change cannot be stored: what the others did in the
 * same transaction (a replace, a delete, a mark, a record) is undone with
 * it, so that replayed one by one each gets its own answer — the delete 0,
 * not -ENOENT from a delete that half-happened — and only the big put
 * fails. The memory backend's byte count comes back to what the same
 * changes without the failure leave.
 */
static void test_failed_batch_undone(void **state)
{
    struct tctx *t = *state;
    struct store_config cfg = {
        .dir = t->dir, .map_size = 256 * 1024, .linger_us = 400000, .batch_target = 5,
    };
    static char huge[300 * 1024];
    struct store_flow big = {.dpid = 5, .match_id = 9, .json = huge, .json_len = sizeof(huge)};
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
    unsigned left = 5;
    struct rc_slot r[5];
    struct tflow tf[3], a2;
    struct store_stats st;
    uint64_t d = 5, c_mid = 3, marked = 99;
    struct store *s = topen(t, &cfg);

    assert_non_null(s);
    for (int i = 0; i < 5; i++)
        r[i] = (struct rc_slot){&lock, &cv, &left, 1};
    failed_batch_setup(s, tf);
    mk_flow(&a2, 5, 1, 2);
    /* Five changes at once: batch_target ends the window with all of them. */
    assert_int_equal(store_put_many_async(s, &a2.f, 1, rc_slot_done, &r[0]), 0);
    assert_int_equal(s->ops->del_async(s, 5, 2, rc_slot_done, &r[1]), 0);
    assert_int_equal(s->ops->select_async(s, &d, pred_mid, &c_mid, true, &marked, rc_slot_done,
                                          &r[2]), 0);
    assert_int_equal(s->ops->kv_put_async(s, "app/x", "y", 1, rc_slot_done, &r[3]), 0);
    assert_int_equal(store_put_many_async(s, &big, 1, rc_slot_done, &r[4]), 0);
    pthread_mutex_lock(&lock);
    while (left)
        pthread_cond_wait(&cv, &lock);
    pthread_mutex_unlock(&lock);

    assert_int_equal(r[0].rc, 0);
    assert_int_equal(r[1].rc, 0);
    assert_int_equal(r[2].rc, 0);
    assert_int_equal(marked, 1);
    assert_int_equal(r[3].rc, 0);
    assert_int_equal(r[4].rc, -ENOSPC);
    assert_stored(s, &a2);
    struct store_flow g;
    assert_int_equal(store_get(s, 5, 2, &g), -ENOENT);
    assert_int_equal(state_of(s, 5, 3, NULL), STORE_FLOW_DELETED);
    assert_int_equal(store_get(s, 5, 9, &g), -ENOENT);
    assert_int_equal(store_get_stats(s, &st), 0);
    assert_true(st.failed_commits >= 1);
    assert_int_equal(st.records, 2);
    store_close(s);
    if (t->be->durable)
        return;

    /* The same changes, none failing, on a fresh store: the same bytes. */
    struct store_stats st2;
    cfg.linger_us = 0;
    assert_non_null(s = topen(t, &cfg));
    failed_batch_setup(s, tf);
    assert_int_equal(store_put(s, &a2.f), 0);
    assert_int_equal(store_del(s, 5, 2), 0);
    assert_int_equal(store_mark_deleted_if(s, &d, pred_mid, &c_mid, NULL), 0);
    assert_int_equal(store_kv_put(s, "app/x", "y", 1), 0);
    assert_int_equal(store_get_stats(s, &st2), 0);
    assert_int_equal(st2.map_used, st.map_used);
    store_close(s);
}

/* ---- memory alone ----------------------------------------------------------- */

/* store.backend = memory: no directory needed, a loud warning, and nothing
 * of it is there after a close; the names map to the backends. */
static void test_mem_open(void **state)
{
    (void)state;
    struct store_config cfg = {.backend = STORE_BACKEND_MEMORY};
    struct ofcd_log_ring *ring = ofcd_log_ring_create("test", 64);
    struct store_flow g;
    struct tflow a;
    enum store_backend b = STORE_BACKEND_MEMORY;

    assert_non_null(ring);
    ofcd_log_use_ring(ring);
    struct store *s = store_open(&cfg);
    char *text = log_capture_text(ring, NULL);
    ofcd_log_use_ring(NULL);
    assert_non_null(s);
    assert_string_equal(s->ops->name, "memory");
    assert_int_equal(log_capture_lines_with(text, "NOTHING of them survives a restart", NULL, 0),
                     1);
    free(text);
    mk_flow(&a, 1, 1, 1);
    assert_int_equal(store_put(s, &a.f), 0);
    assert_stored(s, &a);
    store_close(s);
    assert_non_null(s = store_open(&cfg));
    assert_int_equal(store_get(s, 1, 1, &g), -ENOENT);
    store_close(s);
    ofcd_log_ring_destroy(ring);

    assert_null(store_mem_open(NULL));
    cfg.backend = (enum store_backend)7;
    assert_null(store_open(&cfg));
    assert_int_equal(store_backend_by_name("lmdb", &b), 0);
    assert_int_equal(b, STORE_BACKEND_LMDB);
    assert_int_equal(store_backend_by_name("memory", &b), 0);
    assert_int_equal(b, STORE_BACKEND_MEMORY);
    assert_int_equal(store_backend_by_name("etcd", &b), -EINVAL);
    assert_int_equal(store_backend_by_name(NULL, &b), -EINVAL);
}

/* Each case with its backend as prestate (setup_dir reads it). */
#define T(fn, be) cmocka_unit_test_prestate_setup_teardown(fn, setup_dir, teardown_dir, &(be))
/* The contract: every backend passes these. */
#define CONTRACT(be)                                                                      \
    T(test_put_get_replace_delete, be), T(test_invalid_args, be), T(test_iterate, be),    \
    T(test_del_if, be), T(test_state_updates, be), T(test_deleted_kept_then_purged, be),  \
    T(test_group_commit_window, be), T(test_group_commit_window_quiet, be),               \
    T(test_map_full, be), T(test_map_full_then_all_installed, be),                        \
    T(test_json_text_exact, be),                                                          \
    T(test_full_isolated_in_batch, be), T(test_progress_marks, be),                       \
    T(test_async_backpressure, be), T(test_async_put_done, be),                           \
    T(test_async_select_in_order, be), T(test_background_rides_along, be),                \
    T(test_kv_records, be), T(test_watch, be),                                            \
    T(test_put_same_key_in_one_put, be), T(test_batch_final, be),                         \
    T(test_many_keys, be),                                                                \
    T(test_failed_batch_undone, be)

/* ---- etcd alone: several nodes on one prefix ---------------------------------- */

struct seen_log {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    unsigned flows, kvs;
};

static void seen_cb(void *arg, uint64_t seq, const struct store_change *c, size_t n)
{
    struct seen_log *l = arg;

    (void)seq;
    pthread_mutex_lock(&l->lock);
    for (size_t i = 0; i < n; i++) {
        if (c[i].kind == STORE_CHANGE_FLOW)
            l->flows++;
        else
            l->kvs++;
    }
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->lock);
}

/* Waits (at most 10 s) until get finds (dpid, mid) in state st on s. */
static int wait_state(struct store *s, uint64_t dpid, uint64_t mid, int st)
{
    for (int i = 0; i < 1000; i++) {
        struct store_flow g;
        int rc = store_get(s, dpid, mid, &g);
        int have = rc == 0 ? (int)g.state : -1;
        if (rc == 0)
            store_flow_release(&g);
        if (have == st)
            return 0;
        usleep(10000);
    }
    return -ETIMEDOUT;
}

/* get finds (dpid, mid) on s now, in state st. */
static void assert_state(struct store *s, uint64_t dpid, uint64_t mid, int st)
{
    struct store_flow g;

    assert_int_equal(store_get(s, dpid, mid, &g), 0);
    assert_int_equal(g.state, st);
    store_flow_release(&g);
}

/* Two nodes' stores on one prefix, each with its own mirror: what one
 * writes, the other reads and its watcher sees; a state update, a delete,
 * an app record likewise; a node reopened resumes from the revision its
 * mirror recorded, and once its watcher is set it holds what was added,
 * replaced and deleted while it was away. */
static void test_etcd_two_nodes(void **state)
{
    struct tctx *t = *state;
    char dir_b[80];
    struct seen_log lb = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
    struct tflow tf[3];
    struct store_flow g;

    snprintf(dir_b, sizeof(dir_b), "%s/b", t->dir);
    assert_int_equal(mkdir(dir_b, 0700), 0);
    struct store_config ca = {.dir = t->dir}, cb = {.dir = dir_b};
    struct store *a = etcd_open_prefix(&ca, t->dir);
    struct store *b = etcd_open_prefix(&cb, t->dir);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(store_watch(b, seen_cb, &lb), 0);

    for (int i = 0; i < 3; i++)
        mk_flow(&tf[i], 7, 100 + (uint64_t)i, 1);
    struct store_flow f[3] = {tf[0].f, tf[1].f, tf[2].f};
    assert_int_equal(store_put_many(a, f, 3), 0);
    assert_stored(a, &tf[0]);             /* read-your-writes on a at once */
    assert_int_equal(wait_state(b, 7, 101, STORE_FLOW_PENDING), 0);
    assert_stored(b, &tf[1]);
    pthread_mutex_lock(&lb.lock);
    while (lb.flows < 3)
        pthread_cond_wait(&lb.cv, &lb.lock);
    pthread_mutex_unlock(&lb.lock);

    /* A master's state update, seen on the other node; a stale one is not. */
    assert_int_equal(store_set_state(a, 7, 100, tf[0].f.flow_id, STORE_FLOW_INSTALLED, 0, 0), 0);
    assert_int_equal(store_set_state(a, 7, 101, 12345, STORE_FLOW_ERROR, 1, 2), 0);
    assert_int_equal(store_sync(a), 0);
    assert_int_equal(wait_state(b, 7, 100, STORE_FLOW_INSTALLED), 0);
    assert_int_equal(store_get(b, 7, 101, &g), 0);
    assert_int_equal(g.state, STORE_FLOW_PENDING);
    store_flow_release(&g);

    /* b deletes, a sees it; an app record from b reaches a. */
    assert_int_equal(store_del(b, 7, 102), 0);
    assert_int_equal(store_del(b, 7, 102), -ENOENT);
    assert_int_equal(store_kv_put(b, "topology/x", "on", 2), 0);
    /* The mirror's own records are no one else's to write. */
    assert_int_equal(store_kv_put(b, "ofcd/etcd_revision", "1", 1), -EINVAL);
    assert_int_equal(wait_state(a, 7, 102, -1), 0);

    /* b away; a deletes one, replaces one, adds one; b comes back. */
    store_close(b);
    assert_int_equal(store_del(a, 7, 100), 0);
    mk_flow(&tf[1], 7, 101, 2);
    assert_int_equal(store_put(a, &tf[1].f), 0);
    mk_flow(&tf[2], 7, 103, 1);
    assert_int_equal(store_put(a, &tf[2].f), 0);
    assert_int_equal(store_kv_del(a, "topology/x"), 0);
    b = etcd_open_prefix(&cb, t->dir);
    assert_non_null(b);
    lb.flows = 0;
    /* Setting the watcher waits until the copy caught up: read at once. */
    assert_int_equal(store_watch(b, seen_cb, &lb), 0);
    assert_stored(b, &tf[2]);
    assert_int_equal(store_get(b, 7, 100, &g), -ENOENT);
    assert_stored(b, &tf[1]);
    assert_int_equal(store_kv_del(b, "topology/x"), -ENOENT);
    store_close(a);
    store_close(b);
    snprintf(dir_b, sizeof(dir_b), "%s/b/data.mdb", t->dir);
    unlink(dir_b);
    snprintf(dir_b, sizeof(dir_b), "%s/b/lock.mdb", t->dir);
    unlink(dir_b);
    snprintf(dir_b, sizeof(dir_b), "%s/b", t->dir);
    rmdir(dir_b);
}

static void rc_done(void *arg, int rc)
{
    *(volatile int *)arg = rc;
}

/* One batch that changes a key twice (a flow POSTed twice, two barrier
 * replies for one flow): etcd refuses a key twice in one transaction, so
 * the store must not send it so (it failed the whole batch with -EINVAL). */
static void test_etcd_same_key_twice(void **state)
{
    struct tctx *t = *state;
    struct store_config cfg = {.dir = t->dir, .linger_us = 300000, .batch_target = 64};
    struct tflow v1, v2;
    volatile int rc1 = 1, rc2 = 1;
    struct store_flow g;

    struct store *s = etcd_open_case(&cfg);
    assert_non_null(s);
    mk_flow(&v1, 3, 30, 1);
    assert_int_equal(store_put(s, &v1.f), 0);
    mk_flow(&v2, 3, 30, 2);
    /* In the same window: two versions, then two state updates of the last. */
    assert_int_equal(store_put_many_async(s, &v1.f, 1, rc_done, (void *)&rc1), 0);
    assert_int_equal(store_put_many_async(s, &v2.f, 1, rc_done, (void *)&rc2), 0);
    assert_int_equal(store_sync(s), 0);
    /* A batch of state updates alone (no put before them to flush). */
    assert_int_equal(store_set_state(s, 3, 30, v2.f.flow_id, STORE_FLOW_ERROR, 4, 5), 0);
    assert_int_equal(store_set_state(s, 3, 30, v2.f.flow_id, STORE_FLOW_INSTALLED, 0, 0), 0);
    assert_int_equal(store_sync(s), 0);
    assert_int_equal(rc1, 0);
    assert_int_equal(rc2, 0);
    assert_stored(s, &v2);
    assert_int_equal(store_get(s, 3, 30, &g), 0);
    assert_int_equal(g.state, STORE_FLOW_INSTALLED);
    store_flow_release(&g);

    /* 300 versions of one flow and a delete of another in one batch (a
     * client re-POSTing in a loop): each takes its key's place in the
     * transaction, the last one wins, every caller hears 0. */
    enum { K = 300 };
    static struct tflow many[K];
    static volatile int rcs[K];
    struct tflow other;
    mk_flow(&other, 3, 31, 1);
    assert_int_equal(store_put(s, &other.f), 0);
    struct bp_gate gate = { .lock = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };
    struct rc_box del_rc = {0};
    gate_hold(s, &gate);
    for (int i = 0; i < K; i++) {
        mk_flow(&many[i], 3, 30, 10 + (unsigned)i);
        rcs[i] = 1;
        assert_int_equal(store_put_many_async(s, &many[i].f, 1, rc_done, (void *)&rcs[i]), 0);
    }
    assert_int_equal(store_del_async(s, 3, 31, rc_box_done, &del_rc), 0);
    gate_open(s, &gate);
    for (int i = 0; i < K; i++)
        assert_int_equal(rcs[i], 0);
    assert_int_equal(del_rc.rc, 0);
    assert_stored(s, &many[K - 1]);
    assert_int_equal(store_get(s, 3, 31, &g), -ENOENT);
    store_close(s);
}

/* A copy ahead of etcd (etcd replaced, or restored from a backup): read
 * whole again, not watched from a revision etcd has not reached (it kept
 * a record etcd does not have, and missed the ones etcd has). */
static void test_etcd_copy_ahead(void **state)
{
    struct tctx *t = *state;
    struct store_config cfg = {.dir = t->dir};
    struct seen_log l = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
    struct tflow a, b;
    struct store_flow g;

    struct store *s = etcd_open_case(&cfg);
    assert_non_null(s);
    mk_flow(&a, 4, 40, 1);
    assert_int_equal(store_put(s, &a.f), 0);
    store_close(s);
    /* The copy alone: a revision far ahead, a record etcd never had. */
    s = store_lmdb_open(&cfg);
    assert_non_null(s);
    assert_int_equal(store_kv_put(s, "ofcd/etcd_revision", "999999999", 9), 0);
    mk_flow(&b, 4, 41, 1);
    assert_int_equal(store_put(s, &b.f), 0);
    store_close(s);

    s = etcd_open_case(&cfg);
    assert_non_null(s);
    assert_int_equal(store_watch(s, seen_cb, &l), 0);
    assert_stored(s, &a);
    assert_int_equal(store_get(s, 4, 41, &g), -ENOENT);
    store_close(s);
}

/* A state update goes only while the guard says this node masters the
 * switch, and only while its key still has that create revision. */
struct guard_ctx {
    bool master;
    char key[192];
    int64_t rev;
    int64_t rev_10;                 /* switch 10's */
};

static int test_guard(void *arg, uint64_t dpid, char *key, size_t cap, int64_t *rev)
{
    struct guard_ctx *g = arg;

    if (!g->master)
        return -EPERM;
    snprintf(key, cap, "%s", g->key);
    *rev = dpid == 10 ? g->rev_10 : g->rev;
    return 0;
}

static void test_etcd_guard(void **state)
{
    struct tctx *t = *state;
    const char *ep[1] = {etcd_endpoint()};
    char prefix[96];
    struct guard_ctx gc = {.master = false};
    struct tflow tf;
    struct store_flow g;

    snprintf(prefix, sizeof(prefix), "/ofcd-test%s/", t->dir);
    snprintf(gc.key, sizeof(gc.key), "%sswitches/guard", prefix);
    struct store_etcd_cfg e = {.endpoints = ep, .n_endpoints = 1, .prefix = prefix,
                               .timeout_ms = 3000, .confirm_ms = 5000, .guard = test_guard,
                               .guard_arg = &gc};
    struct store_config c = {.backend = STORE_BACKEND_ETCD, .dir = t->dir, .etcd = &e};
    struct store *s = store_open(&c);
    assert_non_null(s);
    mk_flow(&tf, 9, 1, 1);
    assert_int_equal(store_put(s, &tf.f), 0);

    /* Not master: dropped. */
    assert_int_equal(store_set_state(s, 9, 1, 0, STORE_FLOW_INSTALLED, 0, 0), 0);
    assert_int_equal(store_sync(s), 0);
    assert_int_equal(store_get(s, 9, 1, &g), 0);
    assert_int_equal(g.state, STORE_FLOW_PENDING);
    store_flow_release(&g);

    /* Master by a key that is not there (create revision 0 != 5): refused. */
    gc.master = true;
    gc.rev = 5;
    assert_int_equal(store_set_state(s, 9, 1, 0, STORE_FLOW_INSTALLED, 0, 0), 0);
    assert_int_equal(store_sync(s), 0);
    assert_int_equal(store_get(s, 9, 1, &g), 0);
    assert_int_equal(g.state, STORE_FLOW_PENDING);
    store_flow_release(&g);

    /* The key absent is create revision 0: the guard holds, it is written. */
    gc.rev = 0;
    assert_int_equal(store_set_state(s, 9, 1, 0, STORE_FLOW_INSTALLED, 0, 0), 0);
    assert_int_equal(store_sync(s), 0);
    assert_int_equal(store_get(s, 9, 1, &g), 0);
    assert_int_equal(g.state, STORE_FLOW_INSTALLED);
    store_flow_release(&g);

    /* Two switches' updates in one batch, switch 10 lost meanwhile (its
     * generation no longer the key's): switch 9's are written all the same. */
    struct tflow f10;
    mk_flow(&tf, 9, 2, 1);
    mk_flow(&f10, 10, 2, 1);
    struct store_flow both[2] = {tf.f, f10.f};
    assert_int_equal(store_put_many(s, both, 2), 0);
    gc.rev_10 = 5;
    assert_int_equal(store_set_state(s, 9, 2, 0, STORE_FLOW_INSTALLED, 0, 0), 0);
    assert_int_equal(store_set_state(s, 10, 2, 0, STORE_FLOW_INSTALLED, 0, 0), 0);
    assert_int_equal(store_sync(s), 0);
    assert_int_equal(store_get(s, 9, 2, &g), 0);
    assert_int_equal(g.state, STORE_FLOW_INSTALLED);
    store_flow_release(&g);
    assert_int_equal(store_get(s, 10, 2, &g), 0);
    assert_int_equal(g.state, STORE_FLOW_PENDING);
    store_flow_release(&g);
    /* A put in the batch of a refused state update rides in its
     * transaction's other branch: stored all the same. */
    struct bp_gate gate = { .lock = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };
    struct rc_box put_rc = {0};
    struct tflow f3;
    mk_flow(&f3, 9, 3, 1);
    gc.rev = 5;
    gate_hold(s, &gate);
    assert_int_equal(store_set_state(s, 9, 1, 0, STORE_FLOW_ERROR, 1, 2), 0);
    assert_int_equal(store_put_many_async(s, &f3.f, 1, rc_box_done, &put_rc), 0);
    gate_open(s, &gate);
    assert_int_equal(put_rc.rc, 0);
    assert_int_equal(store_get(s, 9, 3, &g), 0);
    store_flow_release(&g);
    assert_int_equal(store_get(s, 9, 1, &g), 0);
    assert_int_equal(g.state, STORE_FLOW_INSTALLED);
    store_flow_release(&g);
    /* Counted, not silent: not master once, a lost generation three times. */
    struct store_stats st;
    assert_int_equal(store_get_stats(s, &st), 0);
    assert_int_equal(st.state_not_master, 4);
    assert_int_equal(st.copy_errors, 0);
    store_close(s);
}

/* How many keys etcd holds under prefix + sub. */
static int64_t etcd_count(const char *prefix, const char *sub)
{
    const char *ep[1] = {etcd_endpoint()};
    char err[ETCD_ERR_MAX] = "", key[192];
    struct etcd_client_cfg cc = {.endpoints = ep, .n_endpoints = 1, .timeout_ms = 3000};
    struct etcd_client *c = etcd_client_new(&cc, err);
    struct etcd_range_resp r = {0};

    assert_non_null(c);
    snprintf(key, sizeof(key), "%s%s", prefix, sub);
    struct etcd_range q = {.key = key, .key_len = strlen(key), .prefix = true,
                           .keys_only = true};
    assert_int_equal(etcd_get(c, &q, &r), 0);
    int64_t n = (int64_t)r.kvs.n;
    etcd_range_resp_free(&r);
    etcd_client_free(c);
    return n;
}

/* Node b closed, its copy removed, opened again: its copy is a full read
 * of etcd once its watcher is set (which waits for it). */
static struct store *afresh(struct store *b, const char *dir_b, const char *dir,
                            struct seen_log *lb)
{
    char path[120];
    struct store_config cb = {.dir = dir_b};

    store_close(b);
    snprintf(path, sizeof(path), "%s/data.mdb", dir_b);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof(path), "%s/lock.mdb", dir_b);
    unlink(path);
    b = etcd_open_prefix(&cb, dir);
    assert_non_null(b);
    assert_int_equal(store_watch(b, seen_cb, lb), 0);
    return b;
}

static void set_installed(struct store *s, const struct tflow *tf)
{
    assert_int_equal(store_set_state(s, tf->f.dpid, tf->f.match_id, tf->f.flow_id,
                                     STORE_FLOW_INSTALLED, 0, 0), 0);
}

/* A master's installed states: one P data/inst write per switch, not one
 * state key per flow (each was an etcd operation, as many as the flows),
 * published within the window without a sync; another node shows them,
 * and so does a node that reads everything afresh and sees only the
 * switch's newest such write (its certified revision covers the older
 * flows). A switch with a flow not yet confirmed cannot be certified: its
 * confirmed one gets its own state key. A new version of a flow starts
 * pending on every node, and so does one deleted and added again with
 * the same text after its switch's newest inst value listed it (the value
 * names the record before). */
static void test_etcd_inst(void **state)
{
    struct tctx *t = *state;
    const char *ep[1] = {etcd_endpoint()};
    char prefix[96], dir_b[80], path[120];
    struct guard_ctx gc = {.master = true};
    static struct tflow tf[34], t10[2];

    snprintf(prefix, sizeof(prefix), "/ofcd-test%s/", t->dir);
    snprintf(gc.key, sizeof(gc.key), "%sswitches/guard", prefix);
    snprintf(dir_b, sizeof(dir_b), "%s/b", t->dir);
    assert_int_equal(mkdir(dir_b, 0700), 0);
    struct store_etcd_cfg e = {.endpoints = ep, .n_endpoints = 1, .prefix = prefix,
                               .timeout_ms = 3000, .confirm_ms = 5000, .guard = test_guard,
                               .guard_arg = &gc};
    struct store_config ca = {.backend = STORE_BACKEND_ETCD, .dir = t->dir, .etcd = &e};
    struct store *a = store_open(&ca);
    struct store_config cb = {.dir = dir_b};
    struct store *b = etcd_open_prefix(&cb, t->dir);
    struct seen_log lb = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(store_watch(b, seen_cb, &lb), 0);     /* b follows etcd */

    for (unsigned i = 1; i <= 33; i++)
        mk_flow(&tf[i], 9, i, 1);
    for (unsigned i = 1; i <= 30; i++)
        assert_int_equal(store_put(a, &tf[i].f), 0);
    mk_flow(&t10[0], 10, 1, 1);
    mk_flow(&t10[1], 10, 2, 1);
    assert_int_equal(store_put(a, &t10[0].f), 0);
    assert_int_equal(store_put(a, &t10[1].f), 0);

    /* 30 of switch 9 confirmed: out within the window, no sync asked. */
    for (unsigned i = 1; i <= 30; i++)
        set_installed(a, &tf[i]);
    assert_int_equal(wait_state(b, 9, 30, STORE_FLOW_INSTALLED), 0);
    assert_int_equal(wait_state(b, 9, 1, STORE_FLOW_INSTALLED), 0);
    assert_int_equal(etcd_count(prefix, "data/state/"), 0);
    assert_int_equal(etcd_count(prefix, "data/inst/"), 1);

    /* Three more of switch 9: a second inst write, listing only them.
     * Switch 10: one of two confirmed, so not certifiable: its own key
     * once a sync asks for everything held. */
    for (unsigned i = 31; i <= 33; i++)
        assert_int_equal(store_put(a, &tf[i].f), 0);
    for (unsigned i = 31; i <= 33; i++)
        set_installed(a, &tf[i]);
    set_installed(a, &t10[0]);
    assert_int_equal(store_sync(a), 0);
    assert_int_equal(wait_state(b, 10, 1, STORE_FLOW_INSTALLED), 0);
    assert_int_equal(wait_state(b, 9, 33, STORE_FLOW_INSTALLED), 0);
    assert_state(b, 10, 2, STORE_FLOW_PENDING);
    assert_int_equal(etcd_count(prefix, "data/state/"), 1);
    assert_int_equal(etcd_count(prefix, "data/inst/"), 1);

    /* A new version of flow 5: pending again, on both nodes. */
    mk_flow(&tf[5], 9, 5, 2);
    assert_int_equal(store_put(a, &tf[5].f), 0);
    assert_int_equal(wait_state(b, 9, 5, STORE_FLOW_PENDING), 0);

    /* b afresh: a full read, which sees only switch 9's second write. */
    b = afresh(b, dir_b, t->dir, &lb);
    for (unsigned i = 1; i <= 33; i++)
        assert_state(b, 9, i, i == 5 ? STORE_FLOW_PENDING : STORE_FLOW_INSTALLED);
    assert_state(b, 10, 1, STORE_FLOW_INSTALLED);
    assert_state(b, 10, 2, STORE_FLOW_PENDING);

    /* Flow 31, which switch 9's newest inst value lists, deleted and added
     * again with the same text (the same flow_id), never confirmed since:
     * pending on b, and on a node that reads everything afresh (the list
     * names the record before, not this one). */
    assert_int_equal(store_del(a, 9, 31), 0);
    assert_int_equal(wait_state(b, 9, 31, -1), 0);
    assert_int_equal(store_put(a, &tf[31].f), 0);
    assert_int_equal(wait_state(b, 9, 31, STORE_FLOW_PENDING), 0);
    b = afresh(b, dir_b, t->dir, &lb);
    assert_state(b, 9, 31, STORE_FLOW_PENDING);
    assert_state(b, 9, 32, STORE_FLOW_INSTALLED);
    store_close(a);
    store_close(b);
    snprintf(path, sizeof(path), "%s/data.mdb", dir_b);
    unlink(path);
    snprintf(path, sizeof(path), "%s/lock.mdb", dir_b);
    unlink(path);
    rmdir(dir_b);
}

/* A leader-only put (the circuits' records) goes only while the leader
 * guard names a key etcd holds with that create revision: a node that
 * does not lead, or that led with a key etcd no longer holds so (its lease
 * ran out while it was paused), writes nothing and hears -EPERM; the plain
 * changes of its batch go all the same. */
struct leader_ctx {
    bool leads;
    char key[192];
    int64_t rev;
};

static int test_leader(void *arg, char *key, size_t cap, int64_t *rev)
{
    struct leader_ctx *l = arg;

    if (!l->leads)
        return -EPERM;
    snprintf(key, cap, "%s", l->key);
    *rev = l->rev;
    return 0;
}

static void test_etcd_leader(void **state)
{
    struct tctx *t = *state;
    const char *ep[1] = {etcd_endpoint()};
    char prefix[96], *v = NULL;
    struct leader_ctx lc = {.leads = false};
    struct tflow tf;
    struct store_flow g;

    snprintf(prefix, sizeof(prefix), "/ofcd-test%s/", t->dir);
    snprintf(lc.key, sizeof(lc.key), "%smembers/node1", prefix);
    struct store_etcd_cfg e = {.endpoints = ep, .n_endpoints = 1, .prefix = prefix,
                               .timeout_ms = 3000, .confirm_ms = 5000, .leader = test_leader,
                               .leader_arg = &lc};
    struct store_config c = {.backend = STORE_BACKEND_ETCD, .dir = t->dir, .etcd = &e};
    struct store *s = store_open(&c);
    assert_non_null(s);

    /* Not the leader: refused, nothing in etcd or the copy. */
    assert_int_equal(store_kv_put_leader(s, "eline/evc/a", "one", 3), -EPERM);
    assert_int_equal(store_kv_get(s, "eline/evc/a", &v, NULL), -ENOENT);
    /* Leading with a key etcd does not hold with that revision: refused by
     * etcd's compare. */
    lc.leads = true;
    lc.rev = 7;
    assert_int_equal(store_kv_put_leader(s, "eline/evc/a", "two", 3), -EPERM);
    assert_int_equal(store_kv_get(s, "eline/evc/a", &v, NULL), -ENOENT);
    /* The key as etcd holds it (absent: create revision 0): written. */
    lc.rev = 0;
    assert_int_equal(store_kv_put_leader(s, "eline/evc/a", "three", 5), 0);
    assert_int_equal(store_kv_get(s, "eline/evc/a", &v, NULL), 0);
    assert_string_equal(v, "three");
    free(v);
    /* In one batch with a flow and a plain record: the compare fails, the
     * leader's put is refused, the others are stored. */
    struct bp_gate gate = { .lock = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };
    struct rc_box put_rc = {0}, lead_rc = {0}, kv_rc = {0};
    mk_flow(&tf, 9, 1, 1);
    lc.rev = 7;
    gate_hold(s, &gate);
    assert_int_equal(store_put_many_async(s, &tf.f, 1, rc_box_done, &put_rc), 0);
    assert_int_equal(store_kv_put_leader_async(s, "eline/evc/a", "four", 4, rc_box_done,
                                               &lead_rc), 0);
    assert_int_equal(store_kv_put_async(s, "topology/x", "y", 1, rc_box_done, &kv_rc), 0);
    gate_open(s, &gate);
    assert_int_equal(put_rc.rc, 0);
    assert_int_equal(lead_rc.rc, -EPERM);
    assert_int_equal(kv_rc.rc, 0);
    assert_int_equal(store_get(s, 9, 1, &g), 0);
    store_flow_release(&g);
    assert_int_equal(store_kv_get(s, "eline/evc/a", &v, NULL), 0);
    assert_string_equal(v, "three");
    free(v);
    assert_int_equal(store_kv_get(s, "topology/x", &v, NULL), 0);
    free(v);
    /* More puts than one transaction holds, behind a full transaction of
     * plain ones: each part compared, all written. */
    lc.rev = 0;
    gate_hold(s, &gate);
    struct rc_box many[200];
    char keys[200][32];
    for (int i = 0; i < 200; i++) {
        snprintf(keys[i], sizeof(keys[i]), "%s/%d", i % 2 ? "eline/evc" : "plain", i);
        many[i] = (struct rc_box){0};
        assert_int_equal((i % 2 ? store_kv_put_leader_async : store_kv_put_async)(
                             s, keys[i], "v", 1, rc_box_done, &many[i]), 0);
    }
    gate_open(s, &gate);
    for (int i = 0; i < 200; i++) {
        assert_int_equal(many[i].rc, 0);
        assert_int_equal(store_kv_get(s, keys[i], &v, NULL), 0);
        free(v);
    }
    store_close(s);
}

/* The late syncs made once one is (at most 5 s). The late sync is the
 * thread's own event; its counter is all there is to wait on
 * (STORE_GROUP_META_SYNC_MS after the commit). */
static uint64_t wait_meta_sync(struct store *s)
{
    struct store_stats st;
    uint64_t deadline = ofcd_clock_mono_us() + 5000000u;

    do {
        assert_int_equal(store_get_stats(s, &st), 0);
        if (st.meta_syncs)
            break;
        usleep(2000);
    } while (ofcd_clock_mono_us() < deadline);
    return st.meta_syncs;
}

/* durability = group: a commit's meta page is synced late, by a thread of
 * its own, once per quiet spell: none before any commit, one soon after. */
static void test_meta_synced_late(void **state)
{
    struct tctx *t = *state;
    struct store *s = open_dir(t);
    struct store_stats st;
    struct tflow a;

    assert_non_null(s);
    assert_int_equal(store_get_stats(s, &st), 0);
    assert_int_equal(st.meta_syncs, 0);
    mk_flow(&a, 3, 1, 1);
    assert_int_equal(store_put(s, &a.f), 0);
    assert_int_equal(wait_meta_sync(s), 1);
    assert_stored(s, &a);
    store_close(s);
}

/* The late sync's EIO (injected: the disk's would do the same). */
static atomic_int meta_fault_rc;

static int meta_fault(void)
{
    return atomic_load(&meta_fault_rc);
}

/* durability = group: a late sync that fails stops the store as a failed
 * journal flush does: the commit it covered may not be on disk, and the
 * kernel tells one fsync only, so the next commit's own sync would pass.
 * Every change after it is refused, health sees failed commits. */
static void test_meta_sync_eio_stops_store(void **state)
{
    struct tctx *t = *state;
    struct store_config c = {.dir = t->dir, .lazy_meta_sync = true,
                             .meta_sync_ms = STORE_GROUP_META_SYNC_MS,
                             .meta_sync_fault = meta_fault};
    struct store *s = store_lmdb_open(&c);
    struct store_stats st;
    struct tflow a, b;

    assert_non_null(s);
    atomic_store(&meta_fault_rc, -EIO);
    mk_flow(&a, 3, 1, 1);
    assert_int_equal(store_put(s, &a.f), 0);      /* answered: its pages synced */
    assert_int_equal(wait_meta_sync(s), 1);
    atomic_store(&meta_fault_rc, 0);              /* the disk is quiet again */
    mk_flow(&b, 3, 2, 1);
    int rc = store_put(s, &b.f);
    if (rc != -EIO)
        fail_msg("a put after the late sync's EIO got %d, not -EIO: the store went on", rc);
    assert_int_equal(store_del(s, 3, 1), -EIO);
    assert_int_equal(store_get_stats(s, &st), 0);
    assert_true(st.failed_commits >= 2);
    store_close(s);
}

int main(void)
{
    const struct CMUnitTest lmdb[] = {
        CONTRACT(be_lmdb),
        T(test_reopen, be_lmdb),
        T(test_crash_sigkill, be_lmdb),
        T(test_group_commit_default, be_lmdb),
        T(test_open_errors, be_lmdb),
    };
    const struct CMUnitTest group[] = {
        CONTRACT(be_lmdbg),
        T(test_reopen, be_lmdbg),
        T(test_crash_sigkill, be_lmdbg),
        T(test_meta_synced_late, be_lmdbg),
        T(test_meta_sync_eio_stops_store, be_lmdbg),
    };
    const struct CMUnitTest journal[] = {
        CONTRACT(be_lmdbj),
        T(test_reopen, be_lmdbj),
        T(test_crash_sigkill, be_lmdbj),
        T(test_open_errors, be_lmdbj),
        T(test_reopen, be_lmdbj_busy),
        T(test_crash_sigkill, be_lmdbj_busy),
        T(test_map_full, be_lmdbj_busy),
        T(test_many_keys, be_lmdbj_busy),
    };
    const struct CMUnitTest memory[] = {
        CONTRACT(be_mem),
        T(test_mem_open, be_mem),
    };
    /* The etcd backend's contract: not the cases that count commits or
     * watcher calls one by one (its mirror commits what the watch brings,
     * as it comes), fill the map or fail a batch from inside. */
    const struct CMUnitTest etcd[] = {
        T(test_put_get_replace_delete, be_etcd), T(test_invalid_args, be_etcd),
        T(test_iterate, be_etcd), T(test_del_if, be_etcd), T(test_state_updates, be_etcd),
        T(test_deleted_kept_then_purged, be_etcd), T(test_async_put_done, be_etcd),
        T(test_async_select_in_order, be_etcd), T(test_kv_records, be_etcd),
        T(test_reopen, be_etcd), T(test_many_keys, be_etcd),
        T(test_etcd_two_nodes, be_etcd), T(test_etcd_guard, be_etcd),
        T(test_etcd_leader, be_etcd), T(test_etcd_inst, be_etcd),
        T(test_etcd_same_key_twice, be_etcd), T(test_etcd_copy_ahead, be_etcd),
        T(test_json_text_exact, be_etcd), T(test_batch_final, be_etcd),
        T(test_put_same_key_in_one_put, be_etcd),
    };
    int failed = 0;

    if (!etcd_endpoint() || !getenv("OFCD_TEST_ETCD_ONLY")) {
        failed += cmocka_run_group_tests_name("store, lmdb", lmdb, NULL, NULL);
        failed += cmocka_run_group_tests_name("store, lmdb, one sync per commit", group, NULL,
                                              NULL);
        failed += cmocka_run_group_tests_name("store, lmdb with its journal", journal, NULL,
                                              NULL);
        failed += cmocka_run_group_tests_name("store, memory", memory, NULL, NULL);
    }
    if (etcd_endpoint())
        failed += cmocka_run_group_tests_name("store, etcd", etcd, NULL, NULL);
    return failed;
}
