/*
 * test_tt: the pieces the TCP tools' verdicts rest on. The stream must give
 * the same bytes however it is sliced (the receiver regenerates arbitrary
 * chunks), differ between connections, and pinpoint the first bad byte; the
 * checksum must not depend on chunking; the histogram must bound every value
 * by its bucket and report quantiles within 1/16.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "tt_hist.h"
#include "tt_stream.h"

#define WHOLE 4096

static void test_stream_slices_match_whole(void **state)
{
    (void)state;
    uint8_t whole[WHOLE], part[64];
    struct tt_stream s;

    tt_stream_init(&s, 42, 7);
    tt_stream_fill(&s, 0, whole, sizeof(whole));
    for (uint64_t off = 0; off < 48; off++) {
        for (size_t len = 0; len <= sizeof(part); len++) {
            memset(part, 0xa5, sizeof(part));
            tt_stream_fill(&s, off, part, len);
            assert_memory_equal(part, whole + off, len);
        }
    }
    /* Far offsets too: a 4 GiB transfer must not wrap or repeat early. */
    tt_stream_fill(&s, 3, part, 13);
    tt_stream_fill(&s, (1ULL << 32) + 3, whole, 13);
    assert_memory_not_equal(part, whole, 13);
}

static void test_stream_deterministic_and_distinct(void **state)
{
    (void)state;
    uint8_t a[256], b[256], c[256], d[256];
    struct tt_stream s;

    tt_stream_init(&s, 1, 0);
    tt_stream_fill(&s, 0, a, sizeof(a));
    tt_stream_init(&s, 1, 0);
    tt_stream_fill(&s, 0, b, sizeof(b));
    assert_memory_equal(a, b, sizeof(a));

    tt_stream_init(&s, 1, 1);
    tt_stream_fill(&s, 0, c, sizeof(c));
    assert_memory_not_equal(a, c, sizeof(a));
    tt_stream_init(&s, 2, 0);
    tt_stream_fill(&s, 0, d, sizeof(d));
    assert_memory_not_equal(a, d, sizeof(a));

    /* Not a constant or short cycle: most byte values appear in 256 bytes. */
    unsigned seen[256] = {0}, distinct = 0;
    for (size_t i = 0; i < sizeof(a); i++)
        if (seen[a[i]]++ == 0)
            distinct++;
    assert_true(distinct > 128);
}

static void test_stream_check_finds_first_bad_byte(void **state)
{
    (void)state;
    uint8_t buf[1000], scratch[1000];
    struct tt_stream s;

    tt_stream_init(&s, 9, 3);
    tt_stream_fill(&s, 12345, buf, sizeof(buf));
    assert_int_equal(tt_stream_check(&s, 12345, buf, sizeof(buf), scratch), sizeof(buf));
    /* The same bytes checked at the wrong offset fail at once. */
    assert_int_equal(tt_stream_check(&s, 12346, buf, sizeof(buf), scratch) < 8, 1);

    buf[777] ^= 0x10;
    buf[900] ^= 0x01;
    assert_int_equal(tt_stream_check(&s, 12345, buf, sizeof(buf), scratch), 777);
}

static void test_sum_independent_of_chunking(void **state)
{
    (void)state;
    uint8_t buf[3000];
    struct tt_stream s;
    struct tt_sum one, many;

    tt_stream_init(&s, 5, 5);
    tt_stream_fill(&s, 0, buf, sizeof(buf));
    tt_sum_init(&one);
    tt_sum_update(&one, buf, sizeof(buf));
    tt_sum_init(&many);
    for (size_t off = 0, step = 1; off < sizeof(buf); off += step, step = step * 3 % 97 + 1) {
        size_t n = off + step > sizeof(buf) ? sizeof(buf) - off : step;
        tt_sum_update(&many, buf + off, n);
    }
    assert_int_equal(tt_sum_value(&one), tt_sum_value(&many));
}

static void test_sum_matches_definition_and_sees_order(void **state)
{
    (void)state;
    const uint8_t v[] = {1, 2, 3, 250};
    struct tt_sum c;
    uint64_t a = 0, b = 0;

    /* a = sum of bytes, b = sum of byte_i * (n - i). */
    for (size_t i = 0; i < sizeof(v); i++) {
        a += v[i];
        b += v[i] * (sizeof(v) - i);
    }
    tt_sum_init(&c);
    tt_sum_update(&c, v, sizeof(v));
    assert_int_equal(c.a, a);
    assert_int_equal(c.b, b);

    const uint8_t swapped[] = {1, 3, 2, 250};
    struct tt_sum d;
    tt_sum_init(&d);
    tt_sum_update(&d, swapped, sizeof(swapped));
    assert_int_not_equal(tt_sum_value(&c), tt_sum_value(&d));
}

static void check_bucket(uint64_t v)
{
    unsigned idx = tt_hist_index(v);
    uint64_t lo, hi;

    assert_true(idx < TT_HIST_BUCKETS);
    tt_hist_bounds(idx, &lo, &hi);
    assert_true(lo <= v && v <= hi);
    /* Width at most 1/16 of the bucket's lower edge (exact below 32). */
    if (v >= 2 * TT_HIST_SUB)
        assert_true(hi - lo < lo / TT_HIST_SUB + 1);
    else
        assert_int_equal(lo, hi);
}

static void test_hist_buckets_cover_values(void **state)
{
    (void)state;
    unsigned prev = 0;

    for (uint64_t v = 0; v < 100000; v++) {
        unsigned idx = tt_hist_index(v);
        check_bucket(v);
        assert_true(idx >= prev);
        prev = idx;
    }
    for (unsigned sh = 17; sh < 64; sh++) {
        check_bucket(1ULL << sh);
        check_bucket((1ULL << sh) - 1);
        check_bucket((1ULL << sh) + 12345);
    }
    check_bucket(UINT64_MAX);
    assert_int_equal(tt_hist_index(UINT64_MAX), TT_HIST_BUCKETS - 1);
}

static void test_hist_quantiles(void **state)
{
    (void)state;
    struct tt_hist h;

    tt_hist_init(&h);
    assert_int_equal(tt_hist_quantile(&h, 0.5), 0);

    for (uint64_t v = 1; v <= 10000; v++)
        tt_hist_add(&h, v * 10);
    assert_int_equal(h.count, 10000);
    assert_int_equal(h.min, 10);
    assert_int_equal(h.max, 100000);

    uint64_t p50 = tt_hist_quantile(&h, 0.50);
    uint64_t p99 = tt_hist_quantile(&h, 0.99);
    assert_true(p50 >= 50000 && p50 <= 50000 + 50000 / 16);
    assert_true(p99 >= 99000 && p99 <= 100000);
    assert_int_equal(tt_hist_quantile(&h, 1.0), 100000);
    assert_int_equal(tt_hist_quantile(&h, 0.0), 10);

    tt_hist_init(&h);
    tt_hist_add(&h, 777777);
    assert_int_equal(tt_hist_quantile(&h, 0.5), 777777);
    assert_int_equal(tt_hist_quantile(&h, 0.99), 777777);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_slices_match_whole),
        cmocka_unit_test(test_stream_deterministic_and_distinct),
        cmocka_unit_test(test_stream_check_finds_first_bad_byte),
        cmocka_unit_test(test_sum_independent_of_chunking),
        cmocka_unit_test(test_sum_matches_definition_and_sees_order),
        cmocka_unit_test(test_hist_buckets_cover_values),
        cmocka_unit_test(test_hist_quantiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
