/* test_of_flight: a switch connection's flight record (ofp/path/of_flight) — what
 * the capture built from it relies on: the last messages each way, whole
 * and in the order they happened across both directions, with their
 * times; a flood one way never pushes out the other; the oldest go first
 * and are counted; an oversized message kept as its start and flagged;
 * a blob that is not one refused before anything is read from it; as a
 * capture, each way's bytes in order, a shortened message with its length
 * field saying what was kept so the stream still frames. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "of_flight.h"
#include "ofcd_pcapng.h"

#define MAXR 4096

struct got {
    size_t n;
    struct of_flight_msg m[MAXR];
    uint8_t bytes[MAXR][512];
};

static int collect(const struct of_flight_msg *m, void *arg)
{
    struct got *g = arg;

    assert_true(g->n < MAXR);
    g->m[g->n] = *m;
    memcpy(g->bytes[g->n], m->bytes, m->len);
    g->m[g->n].bytes = g->bytes[g->n];
    g->n++;
    return 0;
}

static struct got *walk(const struct of_flight *r, struct of_flight_stats *st)
{
    struct got *g = calloc(1, sizeof(*g));
    size_t need = of_flight_copy_size(r);
    uint8_t *blob = malloc(need);

    assert_non_null(g);
    assert_non_null(blob);
    assert_int_equal(of_flight_copy(r, blob, need - 1), 0);       /* short: nothing */
    assert_int_equal(of_flight_copy(r, blob, need), need);
    assert_int_equal(of_flight_blob_each(blob, need, collect, g, st), 0);
    free(blob);
    return g;
}

/* A message of n bytes whose bytes say (tag, i). */
static void msg(uint8_t *b, size_t n, uint8_t tag, uint32_t i)
{
    for (size_t k = 0; k < n; k++)
        b[k] = (uint8_t)(tag ^ (i * 31u + k));
}

static void test_order_across_directions(void **state)
{
    (void)state;
    static uint8_t mem[4096] __attribute__((aligned(8)));
    struct of_flight r;
    uint8_t b[64];

    of_flight_init(&r, mem, sizeof(mem));
    for (uint32_t i = 0; i < 6; i++) {
        msg(b, 8 + i, (uint8_t)i, i);
        of_flight_add(&r, i % 3 == 1 ? OF_FLIGHT_OUT : OF_FLIGHT_IN, 1000 + i, b, 8 + i);
    }
    struct of_flight_stats st;
    struct got *g = walk(&r, &st);
    assert_int_equal(g->n, 6);
    for (uint32_t i = 0; i < 6; i++) {
        msg(b, 8 + i, (uint8_t)i, i);
        assert_int_equal(g->m[i].dir, i % 3 == 1 ? OF_FLIGHT_OUT : OF_FLIGHT_IN);
        assert_int_equal(g->m[i].t_ns, 1000 + i);
        assert_int_equal(g->m[i].len, 8 + i);
        assert_int_equal(g->m[i].orig_len, 8 + i);
        assert_memory_equal(g->m[i].bytes, b, 8 + i);
    }
    assert_int_equal(st.recorded, 6);
    assert_int_equal(st.evicted, 0);
    free(g);
}

/* 1 KiB: 512 bytes each way, a 40-byte message takes 64 (24 + 40). */
static void test_flood_one_way_keeps_the_other(void **state)
{
    (void)state;
    static uint8_t mem[1024] __attribute__((aligned(8)));
    struct of_flight r;
    uint8_t b[40];

    of_flight_init(&r, mem, sizeof(mem));
    msg(b, 40, 0xaa, 0);
    of_flight_add(&r, OF_FLIGHT_OUT, 1, b, 40);
    for (uint32_t i = 0; i < 100; i++) {
        msg(b, 40, 0x55, i);
        of_flight_add(&r, OF_FLIGHT_IN, 10 + i, b, 40);
    }
    msg(b, 40, 0xaa, 1);
    of_flight_add(&r, OF_FLIGHT_OUT, 200, b, 40);
    struct of_flight_stats st;
    struct got *g = walk(&r, &st);
    assert_int_equal(g->n, 8 + 2);
    assert_int_equal(st.evicted, 92);
    /* ofcd's first message is older than every switch message kept. */
    assert_int_equal(g->m[0].dir, OF_FLIGHT_OUT);
    assert_int_equal(g->m[0].t_ns, 1);
    for (uint32_t k = 0; k < 8; k++) {
        msg(b, 40, 0x55, 92 + k);
        assert_int_equal(g->m[1 + k].dir, OF_FLIGHT_IN);
        assert_int_equal(g->m[1 + k].t_ns, 10 + 92 + k);
        assert_memory_equal(g->m[1 + k].bytes, b, 40);
    }
    assert_int_equal(g->m[9].dir, OF_FLIGHT_OUT);
    assert_int_equal(g->m[9].t_ns, 200);
    free(g);
}

/* Against a model: random sizes both ways, many times round the rings
 * (records wrapping past the end), each ring holding the newest that fit. */
static void test_wrap_matches_model(void **state)
{
    (void)state;
    static uint8_t mem[2048] __attribute__((aligned(8)));
    static uint32_t sizes[2][20000], seqs[2][20000];
    size_t first[2] = {0, 0}, last[2] = {0, 0}, used[2] = {0, 0};
    struct of_flight r;
    uint8_t b[320];
    uint32_t x = 12345, seq = 0;

    of_flight_init(&r, mem, sizeof(mem));
    for (uint32_t i = 0; i < 20000; i++) {
        x = x * 1103515245u + 12345u;
        int d = (x >> 16) & 1;
        uint32_t n = 1 + (x >> 20) % 300;         /* past a quarter (256): kept as 256 */
        msg(b, n, (uint8_t)d, i);
        of_flight_add(&r, d ? OF_FLIGHT_OUT : OF_FLIGHT_IN, i, b, n);
        uint32_t kept = n > 256 ? 256 : n;
        uint32_t sz = 24 + ((kept + 7) & ~7u);
        while (used[d] + sz > 1024) {
            used[d] -= 24 + ((sizes[d][first[d]] + 7) & ~7u);
            first[d]++;
        }
        sizes[d][last[d]] = kept;
        seqs[d][last[d]++] = seq++;
        used[d] += sz;
        if (i % 997 != 0 && i != 19999)
            continue;
        struct got *g = walk(&r, NULL);
        assert_int_equal(g->n, (last[0] - first[0]) + (last[1] - first[1]));
        size_t at[2] = {first[0], first[1]};
        for (size_t k = 0; k < g->n; k++) {
            int e = g->m[k].dir == OF_FLIGHT_OUT;
            assert_true(at[e] < last[e]);
            assert_int_equal(g->m[k].seq, seqs[e][at[e]]);
            assert_int_equal(g->m[k].len, sizes[e][at[e]]);
            msg(b, g->m[k].len, (uint8_t)e, (uint32_t)g->m[k].t_ns);
            assert_memory_equal(g->m[k].bytes, b, g->m[k].len);
            if (k)
                assert_true(g->m[k].seq > g->m[k - 1].seq);
            at[e]++;
        }
        free(g);
    }
}

static void test_oversized_kept_as_its_start(void **state)
{
    (void)state;
    static uint8_t mem[1024] __attribute__((aligned(8)));
    struct of_flight r;
    uint8_t b[300];

    of_flight_init(&r, mem, sizeof(mem));         /* 512 a way: a quarter is 128 */
    msg(b, sizeof(b), 7, 0);
    of_flight_add(&r, OF_FLIGHT_IN, 5, b, sizeof(b));
    struct of_flight_stats st;
    struct got *g = walk(&r, &st);
    assert_int_equal(g->n, 1);
    assert_int_equal(g->m[0].len, 128);
    assert_int_equal(g->m[0].orig_len, 300);
    assert_memory_equal(g->m[0].bytes, b, 128);
    assert_int_equal(st.truncated, 1);
    free(g);
}

static void test_off_and_reset(void **state)
{
    (void)state;
    static uint8_t mem[1024] __attribute__((aligned(8)));
    struct of_flight r;
    uint8_t b[16] = {0};

    of_flight_init(&r, NULL, 0);
    of_flight_add(&r, OF_FLIGHT_IN, 1, b, sizeof(b));
    struct got *g = walk(&r, NULL);
    assert_int_equal(g->n, 0);
    free(g);

    of_flight_init(&r, mem, sizeof(mem));
    of_flight_add(&r, OF_FLIGHT_IN, 1, b, sizeof(b));
    of_flight_add(&r, OF_FLIGHT_OUT, 2, b, sizeof(b));
    of_flight_reset(&r);
    struct of_flight_stats st;
    g = walk(&r, &st);
    assert_int_equal(g->n, 0);
    assert_int_equal(st.recorded, 0);
    free(g);
    of_flight_add(&r, OF_FLIGHT_OUT, 3, b, sizeof(b));
    g = walk(&r, NULL);
    assert_int_equal(g->n, 1);
    assert_int_equal(g->m[0].seq, 0);
    free(g);
}

static int never(const struct of_flight_msg *m, void *arg)
{
    (void)m;
    (void)arg;
    fail_msg("a record handed over from a blob that is not one");
    return 0;
}

static int stop_at_second(const struct of_flight_msg *m, void *arg)
{
    (void)m;
    return ++*(int *)arg == 2 ? 42 : 0;
}

static void test_bad_blobs_refused(void **state)
{
    (void)state;
    static uint8_t mem[1024] __attribute__((aligned(8)));
    static uint8_t blob[2048], bad[2048];
    struct of_flight r;
    uint8_t b[20] = {1, 2, 3};

    of_flight_init(&r, mem, sizeof(mem));
    for (uint32_t i = 0; i < 3; i++)
        of_flight_add(&r, i & 1 ? OF_FLIGHT_OUT : OF_FLIGHT_IN, i, b, sizeof(b));
    size_t n = of_flight_copy(&r, blob, sizeof(blob));
    assert_true(n > 0);
    for (size_t cut = 0; cut < n; cut++)
        assert_int_equal(of_flight_blob_each(blob, cut, never, NULL, NULL), -EBADMSG);
    assert_int_equal(of_flight_blob_each(NULL, n, never, NULL, NULL), -EBADMSG);
    memcpy(bad, blob, n);
    bad[0] ^= 1;                                        /* the magic */
    assert_int_equal(of_flight_blob_each(bad, n, never, NULL, NULL), -EBADMSG);
    /* The header is 32 bytes; a record's: t_ns 8, seq 4, len 4, orig 4, dir 4. */
    const size_t rec0 = 32;
    uint32_t v;
    memcpy(bad, blob, n);
    v = 0xfffffff9u;                                    /* len past everything */
    memcpy(bad + rec0 + 12, &v, 4);
    memcpy(bad + rec0 + 16, &v, 4);
    assert_int_equal(of_flight_blob_each(bad, n, never, NULL, NULL), -EBADMSG);
    memcpy(bad, blob, n);
    v = 21;                                             /* kept more than it had */
    memcpy(bad + rec0 + 12, &v, 4);
    assert_int_equal(of_flight_blob_each(bad, n, never, NULL, NULL), -EBADMSG);
    memcpy(bad, blob, n);
    v = 2;                                              /* no such direction */
    memcpy(bad + rec0 + 20, &v, 4);
    assert_int_equal(of_flight_blob_each(bad, n, never, NULL, NULL), -EBADMSG);
    memcpy(bad, blob, n);
    bad[n] = 0;                                         /* trailing bytes */
    assert_int_equal(of_flight_blob_each(bad, n + 8, never, NULL, NULL), -EBADMSG);

    int seen = 0;
    assert_int_equal(of_flight_blob_each(blob, n, stop_at_second, &seen, NULL), 42);
    assert_int_equal(seen, 2);
}

static uint32_t rd32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_capture(void **state)
{
    (void)state;
    static uint8_t mem[1024] __attribute__((aligned(8)));
    static uint8_t blob[2048], want_in[512], got[2][512];
    size_t got_n[2] = {0, 0};
    struct of_flight r;
    uint8_t hello[8] = {4, 0, 0, 8, 0, 0, 0, 1}, pin[300];

    of_flight_init(&r, mem, sizeof(mem));             /* a quarter of a way: 128 */
    msg(pin, sizeof(pin), 3, 3);
    of_flight_add(&r, OF_FLIGHT_IN, 100, hello, sizeof(hello));
    of_flight_add(&r, OF_FLIGHT_OUT, 200, hello, sizeof(hello));
    of_flight_add(&r, OF_FLIGHT_IN, 300, pin, sizeof(pin));
    size_t n = of_flight_copy(&r, blob, sizeof(blob));
    struct ofcd_pcapng w;
    struct ofcd_pcapng_ends ends = {0x0a420001, 0x0a420002, 40000, 6653};
    assert_int_equal(of_flight_pcapng(blob, n, &ends, 1000000, "switch 1", &w), 0);

    /* Section, interface, then frames: the first three the handshake. */
    size_t off = 0;
    unsigned blocks = 0, frames = 0;
    uint64_t first_data_ns = 0;
    while (off < w.len) {
        uint32_t type = rd32le(w.p + off), len = rd32le(w.p + off + 4);
        const uint8_t *b = w.p + off + 8;
        if (blocks++ >= 2 && type == 6) {
            uint32_t caplen = rd32le(b + 12);
            const uint8_t *f = b + 20, *opt = f + ((caplen + 3) & ~3u);
            int in = rd32le(opt + 4) == 1;
            size_t pl = caplen - 54;
            if (frames++ >= 3) {
                if (!first_data_ns)
                    first_data_ns = (uint64_t)rd32le(b + 4) << 32 | rd32le(b + 8);
                assert_true(got_n[in] + pl <= sizeof(got[in]));
                memcpy(got[in] + got_n[in], f + 54, pl);
                got_n[in] += pl;
            }
        }
        off += len;
    }
    assert_int_equal(first_data_ns, 100 + 1000000);
    memcpy(want_in, hello, 8);
    memcpy(want_in + 8, pin, 128);
    want_in[8 + 2] = 0;                             /* its length: what was kept */
    want_in[8 + 3] = 128;
    assert_int_equal(got_n[1], 8 + 128);
    assert_memory_equal(got[1], want_in, 8 + 128);
    assert_int_equal(got_n[0], 8);
    assert_memory_equal(got[0], hello, 8);
    ofcd_pcapng_free(&w);
    blob[0] ^= 1;
    assert_int_equal(of_flight_pcapng(blob, n, &ends, 0, NULL, &w), -EBADMSG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_across_directions),
        cmocka_unit_test(test_flood_one_way_keeps_the_other),
        cmocka_unit_test(test_wrap_matches_model),
        cmocka_unit_test(test_oversized_kept_as_its_start),
        cmocka_unit_test(test_off_and_reset),
        cmocka_unit_test(test_bad_blobs_refused),
        cmocka_unit_test(test_capture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
