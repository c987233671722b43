/*
 * test_fm_slab: the mirror's allocator — every entry handed out is its own
 * (no two overlap, each keeps what was written to it across many chunks), a
 * freed entry is reused by its size class and only by it, sizes above
 * FM_SLAB_MAX still work, and the accounting the chunks are sized by holds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "fm_slab.h"

#define N 20000

static void test_entries_are_their_own(void **state)
{
    (void)state;
    struct fm_slab s;
    static unsigned char *p[N];
    static size_t sz[N];

    fm_slab_init(&s);
    for (size_t i = 0; i < N; i++) {
        sz[i] = 1 + (i * 37) % 300;          /* many classes, across many chunks */
        p[i] = fm_slab_alloc(&s, sz[i]);
        assert_non_null(p[i]);
        assert_int_equal((uintptr_t)p[i] % FM_SLAB_ALIGN, 0);
        memset(p[i], (int)(i & 0xff), sz[i]);
    }
    assert_true(s.mapped > FM_SLAB_CHUNK);  /* the test spans chunks */
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < sz[i]; j++)
            if (p[i][j] != (unsigned char)(i & 0xff))
                fail_msg("entry %zu byte %zu overwritten", i, j);
    /* Every other one freed and taken again: the same addresses come back,
     * each to an entry of its own class, and nothing else is touched. */
    size_t mapped = s.mapped;
    for (size_t i = 0; i < N; i += 2)
        fm_slab_free(&s, p[i], sz[i]);
    for (size_t i = 0; i < N; i += 2) {
        p[i] = fm_slab_alloc(&s, sz[i]);
        memset(p[i], (int)(i & 0xff), sz[i]);
    }
    assert_int_equal(s.mapped, mapped);
    for (size_t i = 1; i < N; i += 2)
        for (size_t j = 0; j < sz[i]; j++)
            if (p[i][j] != (unsigned char)(i & 0xff))
                fail_msg("entry %zu byte %zu overwritten after reuse", i, j);
    fm_slab_destroy(&s);
    assert_int_equal(s.mapped, 0);
}

static void test_classes(void **state)
{
    (void)state;
    struct fm_slab s;
    fm_slab_init(&s);

    void *a = fm_slab_alloc(&s, 150);
    assert_int_equal(s.in_use, 152);        /* exact to FM_SLAB_ALIGN, no header */
    fm_slab_free(&s, a, 150);
    assert_int_equal(s.in_use, 0);
    void *b = fm_slab_alloc(&s, 100);       /* another class: not the freed one */
    assert_ptr_not_equal(a, b);
    void *c = fm_slab_alloc(&s, 145);       /* the same class (145..152): reused */
    assert_ptr_equal(a, c);
    assert_null(fm_slab_alloc(&s, 0));

    /* Above FM_SLAB_MAX: from malloc, freed to it (ASan checks the pairing). */
    unsigned char *big = fm_slab_alloc(&s, FM_SLAB_MAX + 1);
    assert_non_null(big);
    memset(big, 1, FM_SLAB_MAX + 1);
    fm_slab_free(&s, big, FM_SLAB_MAX + 1);
    fm_slab_free(&s, NULL, 10);
    fm_slab_free(&s, b, 100);
    fm_slab_free(&s, c, 145);
    assert_int_equal(s.in_use, 0);
    fm_slab_destroy(&s);
}

/* A chunk's tail too small for the next entry is not lost: it serves
 * smaller classes. */
static void test_chunk_tail_reused(void **state)
{
    (void)state;
    struct fm_slab s;
    fm_slab_init(&s);
    size_t n = 0;
    while (s.mapped <= FM_SLAB_CHUNK) {
        assert_non_null(fm_slab_alloc(&s, FM_SLAB_MAX));
        n++;
    }
    /* One chunk held n - 1 of them; its tail went to the free lists. */
    size_t tail = FM_SLAB_CHUNK - FM_SLAB_ALIGN - (n - 1) * FM_SLAB_MAX;
    assert_true(tail > 0 && tail < FM_SLAB_MAX);
    size_t mapped = s.mapped;
    void *t = fm_slab_alloc(&s, tail);
    assert_non_null(t);
    assert_true((unsigned char *)t < (unsigned char *)s.chunks ||
                (unsigned char *)t >= (unsigned char *)s.chunks + FM_SLAB_CHUNK);
    assert_int_equal(s.mapped, mapped);
    fm_slab_destroy(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entries_are_their_own),
        cmocka_unit_test(test_classes),
        cmocka_unit_test(test_chunk_tail_reused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
