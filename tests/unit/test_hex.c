/* Unit tests of ofcd_hex: bytes to lower-case hex and back; a decode takes
 * exactly 2n hex digits, either case, and nothing sscanf("%2x") would let
 * through (spaces, signs, 0x, a short or long text). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "ofcd_hex.h"

static void test_round_trip(void **state)
{
    (void)state;
    const uint8_t in[4] = {0x00, 0x0f, 0xa5, 0xff};
    char text[9];
    uint8_t out[4];

    ofcd_hex_encode(text, in, sizeof(in));
    assert_string_equal(text, "000fa5ff");
    assert_int_equal(ofcd_hex_decode(text, strlen(text), out, sizeof(out)), 0);
    assert_memory_equal(in, out, sizeof(in));
    assert_int_equal(ofcd_hex_decode("000FA5FF", 8, out, sizeof(out)), 0);
    assert_memory_equal(in, out, sizeof(in));
    ofcd_hex_encode(text, in, 0);
    assert_string_equal(text, "");
}

static void test_strict(void **state)
{
    (void)state;
    static const char *const bad[] = {" 00fa5ff", "+00fa5ff", "0x0fa5ff", "000fa5fg",
                                      "000fa5f", "000fa5ff0", "00-fa5ff"};
    uint8_t out[4];

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(ofcd_hex_decode(bad[i], strlen(bad[i]), out, sizeof(out)), -EINVAL);
    assert_int_equal(ofcd_hex_decode(NULL, 0, out, 0), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_strict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
