/* of_pins: the pins file as an operator writes it — dpids in any form
 * dpid.h reads, fingerprints with or without colons, comments — and every
 * mistake refused naming its line, since a pin that silently fails to load
 * is a switch anyone with a switch-CA certificate can impersonate. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "of_pins.h"

#define FP_COLONS                                                                          \
    "AB:CD:EF:01:23:45:67:89:ab:cd:ef:01:23:45:67:89:ab:cd:ef:01:23:45:67:89:ab:cd:ef:01:" \
    "23:45:67:89"
#define FP_PLAIN "00112233445566778899aabbccddeeff00112233445566778899aabbccddee00"

static void test_parse_and_find(void **state)
{
    struct of_pins p;
    char err[128];
    const char *text = "# switches of rack 1\n"
                       "\n"
                       "00:00:00:00:00:00:10:02  " FP_COLONS "   # br2\n"
                       "4097\t" FP_PLAIN "\n"
                       "   \n";

    (void)state;
    assert_int_equal(of_pins_parse(text, &p, err, sizeof(err)), 0);
    assert_int_equal(p.n, 2);
    const struct of_pin *a = of_pins_find(&p, 0x1002), *b = of_pins_find(&p, 4097);
    assert_non_null(a);
    assert_non_null(b);
    assert_null(of_pins_find(&p, 0x1003));
    assert_null(of_pins_find(NULL, 0x1002));
    assert_int_equal(a->sha256[0], 0xab);
    assert_int_equal(a->sha256[31], 0x89);
    assert_int_equal(b->sha256[0], 0x00);
    assert_int_equal(b->sha256[31], 0x00);
    assert_int_equal(b->sha256[30], 0xee);
    char hex[OF_PINS_HEX_LEN];
    of_pins_format_sha256(a->sha256, hex);
    assert_string_equal(hex, "ab:cd:ef:01:23:45:67:89:ab:cd:ef:01:23:45:67:89:ab:cd:ef:01:23:45:"
                             "67:89:ab:cd:ef:01:23:45:67:89");
    of_pins_free(&p);
    assert_int_equal(of_pins_parse("", &p, err, sizeof(err)), 0);
    assert_int_equal(p.n, 0);
    assert_null(of_pins_find(&p, 1));
}

static void expect_bad(const char *text, const char *why)
{
    struct of_pins p = {.n = 99};
    char err[160] = "";

    assert_int_equal(of_pins_parse(text, &p, err, sizeof(err)), -EINVAL);
    assert_int_equal(p.n, 0);
    if (!strstr(err, why))
        fail_msg("\"%s\": said \"%s\", expected \"%s\"", text, err, why);
}

static void test_mistakes_name_the_line(void **state)
{
    (void)state;
    expect_bad("1 " FP_PLAIN "\nnot-a-dpid " FP_PLAIN "\n", "line 2: 'not-a-dpid' is not a dpid");
    expect_bad("1 " FP_PLAIN "0\n", "line 1: '" FP_PLAIN "0' is not a SHA-256");
    expect_bad("1 abcd\n", "is not a SHA-256");
    expect_bad("1 " FP_PLAIN "zz\n", "is not a SHA-256");
    expect_bad("1\n", "line 1: expected \"DPID SHA256\"");
    expect_bad("1 " FP_PLAIN " extra\n", "expected \"DPID SHA256\"");
    expect_bad("1 " FP_PLAIN "\n00:00:00:00:00:00:00:01 " FP_COLONS "\n",
               "dpid 00:00:00:00:00:00:00:01 is pinned twice");
    char longline[400];
    memset(longline, ' ', sizeof(longline));
    memcpy(longline, "# ok\n", 5);
    longline[sizeof(longline) - 1] = '\0';
    expect_bad(longline, "line 2: longer than 255 characters");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_and_find),
        cmocka_unit_test(test_mistakes_name_the_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
