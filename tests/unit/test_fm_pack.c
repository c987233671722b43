/* Unit tests of the mirror's packed ADDs (fm_pack.c): an ADD as the flow
 * manager encodes it comes back byte for byte, every kept field (cookie,
 * table, timeouts, priority, flags) with it; anything that is not such an
 * ADD (another command, an xid, a cookie mask, a buffer, an out port or
 * group, a length that is not the buffer's, too short) is not packed. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "fm_pack.h"

/* An ADD's head as the flow manager sends it, then tail bytes of match
 * and instructions (their content is never looked at). */
static size_t make_add(uint8_t *w, size_t tail, unsigned seed)
{
    size_t len = FM_PACK_HEAD + tail;

    memset(w, 0, FM_PACK_HEAD);
    w[0] = 0x04;                            /* OpenFlow 1.3 */
    w[1] = 14;                              /* FLOW_MOD */
    w[2] = (uint8_t)(len >> 8);
    w[3] = (uint8_t)len;
    for (int i = 8; i < 16; i++)            /* cookie */
        w[i] = (uint8_t)(seed * 31 + (unsigned)i);
    w[24] = (uint8_t)seed;                  /* table */
    w[25] = 0;                              /* ADD */
    for (int i = 26; i < 32; i++)           /* idle, hard, priority */
        w[i] = (uint8_t)(seed * 7 + (unsigned)i);
    memset(w + 32, 0xff, 12);               /* no buffer, any port, any group */
    w[44] = (uint8_t)(seed >> 3);           /* flags */
    w[45] = (uint8_t)seed;
    for (size_t i = 0; i < tail; i++)
        w[FM_PACK_HEAD + i] = (uint8_t)(seed + i * 13);
    return len;
}

static void check_round_trip(const uint8_t *w, size_t len)
{
    uint8_t *p = malloc(len), *back = malloc(len);

    assert_non_null(p);
    assert_non_null(back);
    assert_int_equal(fm_pack_size(w, len), len - FM_PACK_SAVED);
    fm_pack(w, len, p);
    fm_unpack(p, len, back);
    assert_memory_equal(back, w, len);
    free(p);
    free(back);
}

static void test_adds_round_trip(void **state)
{
    (void)state;
    uint8_t w[FM_PACK_HEAD + 4096];

    for (unsigned seed = 0; seed < 2000; seed++) {
        size_t tail = (seed * 37) % 4096;
        check_round_trip(w, make_add(w, tail, seed));
    }
    check_round_trip(w, make_add(w, 0, 5));     /* the head alone */
}

static void test_other_shapes_kept_whole(void **state)
{
    (void)state;
    uint8_t w[FM_PACK_HEAD + 64];
    size_t len = make_add(w, 64, 3);
    /* Each byte of the head that is not kept, changed: not packed. */
    static const unsigned fixed[] = {0, 1, 2, 3, 4, 7, 16, 23, 25, 32, 35, 36, 39, 40, 43, 46, 47};

    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
        make_add(w, 64, 3);
        w[fixed[i]] ^= 0x01;
        assert_int_equal(fm_pack_size(w, len), 0);
    }
    make_add(w, 64, 3);
    assert_int_equal(fm_pack_size(w, len - 1), 0);         /* length not the buffer's */
    assert_int_equal(fm_pack_size(w, FM_PACK_HEAD - 1), 0);
    assert_int_equal(fm_pack_size(w, len), len - FM_PACK_SAVED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_adds_round_trip),
        cmocka_unit_test(test_other_shapes_kept_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
