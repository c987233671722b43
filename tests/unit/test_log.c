/* Unit test of ofcd_log_clean: what a switch sends cannot forge log lines. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "ofcd_log.h"

static void test_clean(void **state)
{
    char out[16];

    (void)state;
    assert_string_equal(ofcd_log_clean(out, sizeof(out), "Open vSwitch"), "Open vSwitch");
    assert_string_equal(ofcd_log_clean(out, sizeof(out), "a\nFAKE: b\x1b[2J"), "a?FAKE: b?[2J");
    assert_string_equal(ofcd_log_clean(out, sizeof(out), "caf\xc3\xa9\t"), "caf???");
    /* Truncated to the buffer, always terminated. */
    assert_string_equal(ofcd_log_clean(out, 5, "abcdefgh"), "abcd");
    assert_string_equal(ofcd_log_clean(out, 1, "abc"), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
