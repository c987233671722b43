/*
 * cmocka_filter: OFCD_TEST=PATTERN runs only the cases of a cmocka test
 * whose names match PATTERN (a glob: '*' any characters, '?' one), e.g.
 *
 *     OFCD_TEST=test_cancel meson test -C build timer_wheel
 *     OFCD_TEST='test_clock_*' ./build/tests/unit/test_timer_wheel
 *
 * Every cmocka test links this file with -Wl,--wrap=_cmocka_run_group_tests
 * (tests/meson.build), so no test's main has to know: the group runner its
 * cmocka_run_group_tests() calls comes here first. cmocka 1.1.5 (Debian 12)
 * has the filter (cmocka_set_test_filter) but reads no environment variable
 * for it; this is that variable. A pattern that matches none of the cases
 * fails the test and lists them, so a mistyped name cannot pass as a run of
 * nothing. Unset or empty: every case runs, as before.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>

int __real__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests,
                                   const size_t num_tests, CMFixtureFunction group_setup,
                                   CMFixtureFunction group_teardown);
int __wrap__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests,
                                   const size_t num_tests, CMFixtureFunction group_setup,
                                   CMFixtureFunction group_teardown);

int __wrap__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests,
                                   const size_t num_tests, CMFixtureFunction group_setup,
                                   CMFixtureFunction group_teardown)
{
    const char *pattern = getenv("OFCD_TEST");
    size_t hits = 0;

    if (pattern && *pattern) {
        /* fnmatch's '*' and '?' are the two wildcards cmocka's own matcher
         * knows, so this count is what cmocka will run. */
        for (size_t i = 0; i < num_tests; i++)
            hits += tests[i].name && fnmatch(pattern, tests[i].name, 0) == 0;
        if (!hits) {
            fprintf(stderr, "OFCD_TEST='%s' matches none of the %zu cases of %s; they are:\n",
                    pattern, num_tests, group_name);
            for (size_t i = 0; i < num_tests; i++)
                fprintf(stderr, "    %s\n", tests[i].name ? tests[i].name : "(unnamed)");
            return 1;
        }
        cmocka_set_test_filter(pattern);
    }
    return __real__cmocka_run_group_tests(group_name, tests, num_tests, group_setup,
                                          group_teardown);
}
