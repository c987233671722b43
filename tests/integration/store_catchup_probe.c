/*
 * store-catchup-probe: a node's store (etcd backend) catching up from a
 * fake etcd (etcd_fake.py) that shapes the catch-up as a test needs; for
 * store_etcd_catchup.sh. Each case: the fake is given changes while the
 * node is closed, the node is opened again, and once setting its watcher
 * returns (it waits until the node says it caught up) its copy must hold
 * exactly the flows the fake holds, and the revision its copy holds must be
 * the fake's last one.
 *
 *   parts     3,000 adds and 505 deletes sent in parts of 500 revisions,
 *             each headed with the fake's current revision, 300 ms apart,
 *             the stream ended after the second part
 *   oversize  70,000 adds sent in one message (past the watch's bounds):
 *             the node reads every record instead
 *   unknown   the node stores 300 flows in one batch (several transactions);
 *             the fake applies the third but answers after the node's
 *             timeout: the batch is answered -ETIME (outcome not known),
 *             never an error that says nothing was stored, while the first
 *             transactions' flows are in the fake
 *   full      3,000 changes missed by a node whose copy's store is too
 *             small for them: it says it is behind (copy_behind), records
 *             no revision past a change it lacks, refuses writes
 *             (-ESTALE); opened again with room, it catches up
 *
 * usage: store-catchup-probe FAKE_URL DIR
 * Exit 0 when every case holds; a line on stderr for each that does not.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

#include "store.h"
#include "store_etcd.h"

#define DPID 7

static const char *fake;
static char dir[512];
static const char *prefix = "/catchup/";     /* the cluster's, in the fake */
static size_t map_size;                     /* the node's copy's store; 0: the default */

struct text {
    char *p;
    size_t n;
};

static size_t take(char *d, size_t s, size_t n, void *arg)
{
    struct text *t = arg;
    char *p = realloc(t->p, t->n + s * n + 1);

    if (!p)
        return 0;
    memcpy(p + t->n, d, s * n);
    t->p = p;
    t->n += s * n;
    t->p[t->n] = '\0';
    return s * n;
}

/* The fake's control: POST body (or GET when NULL) to path; its JSON. */
static json_t *control(const char *path, const char *body)
{
    char url[1024];
    struct text t = {0};
    CURL *h = curl_easy_init();
    struct curl_slist *hd = curl_slist_append(NULL, "Content-Type: application/json");

    snprintf(url, sizeof(url), "%s%s", fake, path);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
    curl_easy_setopt(h, CURLOPT_PROXY, "");
    curl_easy_setopt(h, CURLOPT_TIMEOUT, 120L);
    if (body)
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, take);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
    CURLcode rc = curl_easy_perform(h);
    curl_slist_free_all(hd);
    curl_easy_cleanup(h);
    json_t *j = rc == CURLE_OK && t.p ? json_loads(t.p, 0, NULL) : NULL;
    free(t.p);
    if (!j) {
        fprintf(stderr, "FAIL: the fake etcd's %s did not answer\n", path);
        exit(1);
    }
    return j;
}

/* The fake's revision and flows under prefix. */
static json_t *fake_state(void)
{
    char path[256];

    snprintf(path, sizeof(path), "/fake/state?prefix=%s", prefix);
    return control(path, NULL);
}

static struct store *node_open_timeout(unsigned timeout_ms)
{
    const char *ep[1] = {fake};
    /* The fake speaks etcd's JSON gateway; what it shapes (the catch-up's
     * parts, the late answers) is the store's to handle whichever API
     * carries it. */
    struct store_etcd_cfg e = {.endpoints = ep, .n_endpoints = 1, .prefix = prefix,
                               .json = true, .timeout_ms = timeout_ms, .confirm_ms = 60000};
    struct store_config c = {.backend = STORE_BACKEND_ETCD, .dir = dir, .etcd = &e,
                             .map_size = map_size};
    struct store *s = store_open(&c);

    if (!s) {
        fprintf(stderr, "FAIL: the node's store did not open\n");
        exit(1);
    }
    return s;
}

static struct store *node_open(void)
{
    return node_open_timeout(20000);
}

static void on_change(void *arg, uint64_t seq, const struct store_change *c, size_t n)
{
    (void)arg;
    (void)seq;
    (void)c;
    (void)n;
}

struct held {
    uint64_t *mid;
    size_t n, cap;
};

static int hold(const struct store_flow *f, void *arg)
{
    struct held *h = arg;

    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 4096;
        h->mid = realloc(h->mid, h->cap * sizeof(*h->mid));
        if (!h->mid)
            return -ENOMEM;
    }
    h->mid[h->n++] = f->dpid == DPID ? f->match_id : UINT64_MAX;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The node opened again and caught up: its flows and revision the fake's. */
static int check_caught_up(const char *name)
{
    struct store *s = node_open();
    int bad = 0;

    int rc = store_watch(s, on_change, NULL);     /* returns once caught up */
    json_t *st = fake_state();
    json_t *want = json_object_get(st, "flows");
    struct held h = {0};
    if (rc != 0) {
        fprintf(stderr, "FAIL: %s: the node did not say it caught up: %s\n", name,
                strerror(-rc));
        bad = 1;
    }
    if (store_foreach(s, NULL, hold, &h) < 0) {
        fprintf(stderr, "FAIL: %s: cannot read the node's copy\n", name);
        bad = 1;
    }
    if (h.n) /* never given to qsort empty */
        qsort(h.mid, h.n, sizeof(*h.mid), cmp_u64);
    size_t missing = 0, extra = 0, i = 0, j = 0, nw = json_array_size(want);
    while (i < h.n || j < nw) {
        uint64_t w = j < nw ? (uint64_t)json_integer_value(
                                  json_array_get(json_array_get(want, j), 1))
                            : UINT64_MAX;
        if (i < h.n && h.mid[i] == w) {
            i++;
            j++;
        } else if (i < h.n && (j == nw || h.mid[i] < w)) {
            extra++;
            i++;
        } else {
            missing++;
            j++;
        }
    }
    if (missing || extra) {
        fprintf(stderr, "FAIL: %s: the node caught up holding %zu flows, the fake %zu: "
                "%zu missing, %zu it should no longer have\n", name, h.n, nw, missing, extra);
        bad = 1;
    }
    struct store_stats ss;
    int64_t fake_rev = json_integer_value(json_object_get(st, "revision"));
    if (store_get_stats(s, &ss) < 0 || (int64_t)ss.copy_revision != fake_rev ||
        ss.copy_behind) {
        fprintf(stderr, "FAIL: %s: the node's copy is at revision %" PRIu64 "%s, the fake at "
                "%" PRId64 "\n", name, ss.copy_revision, ss.copy_behind ? " (behind)" : "",
                fake_rev);
        bad = 1;
    }
    if (!bad)
        printf("ok: %s: caught up with %zu flows, revision %" PRId64 "\n", name, h.n, fake_rev);
    free(h.mid);
    json_decref(st);
    store_close(s);
    return bad;
}

/* 300 flows in one put: the third transaction applied, answered late. */
static int check_unknown(void)
{
    enum { N = 300 };
    static struct store_flow f[N];
    static char json[N][64];
    struct store *s = node_open_timeout(1000);
    int bad = 0;

    if (store_watch(s, on_change, NULL) != 0) {
        fprintf(stderr, "FAIL: unknown: the node did not catch up\n");
        store_close(s);
        return 1;
    }
    json_t *before = fake_state();
    size_t n0 = json_array_size(json_object_get(before, "flows"));
    json_decref(before);
    for (unsigned i = 0; i < N; i++) {
        snprintf(json[i], sizeof(json[i]), "{\"priority\": %u}", i);
        f[i] = (struct store_flow){.dpid = DPID, .match_id = 500000 + i, .flow_id = i + 1,
                                   .state = STORE_FLOW_PENDING, .owner = "probe",
                                   .json = json[i], .json_len = strlen(json[i])};
    }
    json_decref(control("/fake/txn", "{\"hang_after\": 2, \"hang_s\": 3}"));
    int rc = store_put_many(s, f, N);
    json_decref(control("/fake/txn", "{\"hang_after\": -1, \"hang_s\": 0}"));
    json_t *after = fake_state();
    size_t stored = json_array_size(json_object_get(after, "flows")) - n0;
    json_decref(after);
    if (rc != -ETIME) {
        fprintf(stderr, "FAIL: unknown: 300 flows, the third transaction answered late: "
                "the put said %d (%s), not -ETIME, with %zu of them in etcd\n", rc,
                strerror(-rc), stored);
        bad = 1;
    } else if (stored == 0) {
        fprintf(stderr, "FAIL: unknown: the fake holds none of the 300: not the case "
                "this checks\n");
        bad = 1;
    } else {
        printf("ok: unknown: the put answered -ETIME (outcome not known) with %zu of 300 "
               "in etcd\n", stored);
    }
    store_close(s);
    return bad;
}

/* Flows from..from+count-1 put, one revision each, then deletes: the
 * fake's revision after them. */
static int64_t seed_pad(uint64_t from, uint64_t count, const char *deletes, unsigned pad)
{
    char body[1 << 16];

    snprintf(body, sizeof(body), "{\"prefix\": \"%s\", \"dpid\": %d, \"from\": %" PRIu64
             ", \"count\": %" PRIu64 ", \"delete\": [%s], \"pad\": %u}", prefix, DPID, from,
             count, deletes, pad);
    json_t *j = control("/fake/seed", body);
    int64_t rev = json_integer_value(json_object_get(j, "revision"));
    json_decref(j);
    return rev;
}

static int64_t seed(uint64_t from, uint64_t count, const char *deletes)
{
    return seed_pad(from, count, deletes, 0);
}


/* full: 3,000 changes (9 KB each) missed by a node whose copy's store
 * holds about 80 of them: the copy says it is behind, refuses writes, records no revision
 * past a change it lacks, and once opened with room it catches up. */
static int check_full(const char *base)
{
    enum { FROM = 10, N = 3000 };
    struct store_stats st;
    struct held h = {0};
    int bad = 0;

    prefix = "/full/";
    snprintf(dir, sizeof(dir), "%s/full", base);
    if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
        fprintf(stderr, "FAIL: full: cannot make %s: %s\n", dir, strerror(errno));
        return 1;
    }
    map_size = 1u << 20;
    seed(0, FROM, "");
    bad |= check_caught_up("full, first read");
    /* Records far larger than the copy's own revision record: the record
     * would still fit where they no longer do. */
    int64_t last = seed_pad(FROM, N, "", 9000);
    /* flow FROM + i was put at revision first + i */
    int64_t first = last - N + 1;
    json_decref(control("/fake/watch", "{\"part_revs\": 500, \"pause_ms\": 0, "
                        "\"close_after\": 0, \"one_message\": false}"));

    struct store *s = node_open();
    store_watch(s, on_change, NULL);    /* returns once the copy is behind */
    if (store_get_stats(s, &st) < 0 || !st.copy_behind || !st.copy_errors) {
        fprintf(stderr, "FAIL: full: the copy does not say it is behind (copy_behind %" PRIu64
                ", copy_errors %" PRIu64 ")\n", st.copy_behind, st.copy_errors);
        bad = 1;
    }
    int64_t rec = (int64_t)st.copy_revision;
    if (store_foreach(s, NULL, hold, &h) < 0) {
        fprintf(stderr, "FAIL: full: cannot read the node's copy\n");
        bad = 1;
    }
    if (h.n)
        qsort(h.mid, h.n, sizeof(*h.mid), cmp_u64);
    size_t lacking = 0;
    for (int64_t r = first; r <= rec; r++) {
        uint64_t mid = (uint64_t)(FROM + r - first);
        if (!h.n || !bsearch(&mid, h.mid, h.n, sizeof(*h.mid), cmp_u64))
            lacking++;
    }
    if (rec >= last || lacking) {
        fprintf(stderr, "FAIL: full: the copy recorded revision %" PRId64 " (etcd at %"
                PRId64 ") and lacks %zu changes up to it\n", rec, last, lacking);
        bad = 1;
    }
    struct store_flow f = {.dpid = DPID, .match_id = 900000, .flow_id = 1,
                           .state = STORE_FLOW_PENDING, .owner = "probe", .json = "{}",
                           .json_len = 2};
    int rc = store_put(s, &f);
    if (rc != -ESTALE) {
        fprintf(stderr, "FAIL: full: a write on the node behind answered %d (%s), not "
                "-ESTALE\n", rc, strerror(-rc));
        bad = 1;
    }
    if (!bad)
        printf("ok: full: the copy is behind, holds %zu flows and every change up to its "
               "revision %" PRId64 " of %" PRId64 ", refuses writes\n", h.n, rec, last);
    free(h.mid);
    store_close(s);

    map_size = 0;
    bad |= check_caught_up("full, opened again with room");
    prefix = "/catchup/";
    snprintf(dir, sizeof(dir), "%s", base);
    return bad;
}

int main(int argc, char **argv)
{
    char dels[1 << 15];
    size_t n = 0;
    int bad = 0;

    if (argc != 3) {
        fprintf(stderr, "usage: store-catchup-probe FAKE_URL DIR\n");
        return 2;
    }
    fake = argv[1];
    snprintf(dir, sizeof(dir), "%s", argv[2]);
    curl_global_init(CURL_GLOBAL_DEFAULT);

    /* The node's first read: 10 flows. */
    seed(0, 10, "");
    bad |= check_caught_up("first read");

    /* parts: 3,000 adds, 500 of them and 5 of the first deleted. */
    dels[0] = '\0';
    for (int i = 0; i < 505; i++)
        n += (size_t)snprintf(dels + n, sizeof(dels) - n, "%s[%d, %d]", i ? ", " : "", DPID,
                              i < 5 ? i : 10 + 5 * i);
    seed(10, 3000, dels);
    json_decref(control("/fake/watch", "{\"part_revs\": 500, \"pause_ms\": 300, "
                        "\"close_after\": 2, \"one_message\": false}"));
    bad |= check_caught_up("parts");

    /* oversize: 70,000 adds in one message. */
    seed(100000, 70000, "");
    json_decref(control("/fake/watch", "{\"part_revs\": 1000, \"pause_ms\": 0, "
                        "\"close_after\": 0, \"one_message\": true}"));
    bad |= check_caught_up("oversize");
    bad |= check_unknown();
    bad |= check_full(argv[2]);
    curl_global_cleanup();
    return bad;
}
