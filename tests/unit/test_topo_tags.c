/* Unit tests of an interface's VLAN pool rules (topo_tags.c): Kytos-ng's
 * checks of tag_ranges, each fault named in Kytos' words, and a tag taken
 * out of a list of ranges wherever it falls. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "topo_tags.h"

#define R(lo, hi) ((struct topo_tag_range){lo, hi})

static void check_says(const struct topo_tag_range *r, size_t n, const char *words)
{
    char why[160] = "";
    int rc = topo_tags_check(r, n, why, sizeof(why));
    if (!words) {
        if (rc != 0)
            fail_msg("refused: %s", why);
        return;
    }
    assert_int_equal(rc, -EINVAL);
    if (!strstr(why, words))
        fail_msg("said '%s', expected '%s'", why, words);
}

static void test_ranges_checked_as_kytos(void **state)
{
    (void)state;
    struct topo_tag_range ok[] = {R(1, 500), R(2096, 2096), R(3001, 3001)};
    check_says(ok, 3, NULL);
    check_says((struct topo_tag_range[]){R(1, 4095)}, 1, NULL);
    check_says(ok, 0, "Tag range is empty");
    check_says((struct topo_tag_range[]){R(20, 10)}, 1, "The range [20, 10] is not ordered");
    check_says((struct topo_tag_range[]){R(100, 200), R(50, 60)}, 2,
               "Tag ranges are not ordered. 200 is higher than 50");
    check_says((struct topo_tag_range[]){R(10, 20), R(21, 30)}, 2,
               "Tag ranges have an unnecessary partition. 20 is before to 21");
    check_says((struct topo_tag_range[]){R(10, 20), R(20, 30)}, 2,
               "Tag ranges have repetition. [10, 20] have same values as [20, 30]");
    check_says((struct topo_tag_range[]){R(1, 4096)}, 1, "Maximum value for a tag is 4095");
    check_says((struct topo_tag_range[]){R(0, 10)}, 1, "Minimum value for a tag is 1");
    /* The first fault in Kytos' order is the one named. */
    check_says((struct topo_tag_range[]){R(0, 10), R(5, 4)}, 2, "The range [5, 4] is not ordered");
}

static void test_tag_taken_out(void **state)
{
    (void)state;
    struct topo_tag_range r[] = {R(1, 100), R(3799, 3799), R(3000, 4094)}, out[4];
    struct topo_tag_range def[] = {R(1, 4094)};

    size_t n = topo_tags_minus(def, 1, 3799, out);
    assert_int_equal(n, 2);
    assert_int_equal(out[0].lo, 1);
    assert_int_equal(out[0].hi, 3798);
    assert_int_equal(out[1].lo, 3800);
    assert_int_equal(out[1].hi, 4094);
    /* At a range's edge, a range of one, not there at all. */
    n = topo_tags_minus(r, 1, 1, out);
    assert_int_equal(n, 1);
    assert_int_equal(out[0].lo, 2);
    n = topo_tags_minus(r, 2, 3799, out);
    assert_int_equal(n, 1);
    assert_int_equal(out[0].hi, 100);
    n = topo_tags_minus(r, 1, 200, out);
    assert_int_equal(n, 1);
    assert_int_equal(out[0].hi, 100);
    n = topo_tags_minus(r + 2, 1, 4094, out);
    assert_int_equal(n, 1);
    assert_int_equal(out[0].hi, 4093);
    assert_true(topo_tags_has(r, 3, 3799));
    assert_true(topo_tags_has(r, 3, 4094));
    assert_false(topo_tags_has(r, 3, 101));
}

static void test_special_tags_known(void **state)
{
    (void)state;
    assert_int_equal(topo_special_bit("untagged"), TOPO_SPECIAL_UNTAGGED);
    assert_int_equal(topo_special_bit("any"), TOPO_SPECIAL_ANY);
    assert_int_equal(topo_special_bit("Any"), 0);
    assert_int_equal(topo_special_bit(""), 0);
    assert_string_equal(topo_special_name(TOPO_SPECIAL_ANY), "any");
}

/* Ranges through a set and back; tags taken out of the set split them. */
static void test_set_round_trip(void **state)
{
    (void)state;
    static const struct topo_tag_range r[] = {{1, 99}, {200, 200}, {4000, 4095}};
    struct topo_tag_range out[TOPO_TAGS_SET_RANGES];
    uint64_t set[TOPO_TAGS_WORDS];

    topo_tags_to_set(r, 3, set);
    size_t n = topo_tags_from_set(set, out);
    assert_int_equal(n, 3);
    assert_memory_equal(out, r, sizeof(r));
    set[0] &= ~(1ull << 1);                 /* 1 taken: [2, 99] */
    set[50 / 64] &= ~(1ull << (50 % 64));   /* 50 taken: [2, 49], [51, 99] */
    set[4095 / 64] &= ~(1ull << (4095 % 64));
    n = topo_tags_from_set(set, out);
    assert_int_equal(n, 4);
    assert_true(out[0].lo == 2 && out[0].hi == 49 && out[1].lo == 51 && out[1].hi == 99);
    assert_true(out[2].lo == 200 && out[2].hi == 200 && out[3].lo == 4000 && out[3].hi == 4094);
    /* Every other tag: the most ranges a set can hold. */
    for (unsigned w = 0; w < TOPO_TAGS_WORDS; w++)
        set[w] = 0x5555555555555555ull;
    assert_int_equal(topo_tags_from_set(set, out), TOPO_TAGS_SET_RANGES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges_checked_as_kytos),
        cmocka_unit_test(test_tag_taken_out),
        cmocka_unit_test(test_special_tags_known),
        cmocka_unit_test(test_set_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
