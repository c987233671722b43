/* Unit tests of the log: ofcd_log_clean (what a switch sends cannot forge
 * log lines), the lcores' log ring (order, drops counted and told, one
 * producer and one consumer thread at once), a rate-limited site's
 * lines (LOG_*_RL: bounded, the suppressed count told) and the levels per
 * module (log/set changes one module's lines and no other's). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofcd_log.h"
#include "log_capture.h"
#include "ofcd_log_ring.h"
#include "ofcd_ratelimit.h"

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

/* A thread with a ring logs into it, whole lines in order; a full ring drops
 * and counts, and the drain says so before the lines it has. */
static void test_ring_order_and_drops(void **state)
{
    struct ofcd_log_ring *r = ofcd_log_ring_create("lcore 7", 4);
    unsigned n;

    (void)state;
    assert_null(ofcd_log_ring_create("x", 3));
    assert_non_null(r);
    ofcd_log_use_ring(r);
    for (int i = 0; i < 6; i++)
        LOG_WARN("test", "line %d", i);
    ofcd_log_use_ring(NULL);
    assert_int_equal(ofcd_log_ring_dropped(r), 2);
    char *out = log_capture_text(r, &n);
    assert_int_equal(n, 4);
    const char *d = strstr(out, "lcore 7: 2 lines dropped");
    const char *l0 = strstr(out, "WARN  test: line 0\n");
    const char *l3 = strstr(out, "WARN  test: line 3\n");
    assert_non_null(d);
    assert_non_null(l0);
    assert_non_null(l3);
    assert_true(d < l0 && l0 < l3);
    assert_null(strstr(out, "line 4"));
    free(out);
    /* Emptied: room again, and the drop is not reported twice. */
    ofcd_log_use_ring(r);
    LOG_INFO("test", "after");
    ofcd_log_use_ring(NULL);
    out = log_capture_text(r, &n);
    assert_int_equal(n, 1);
    assert_null(strstr(out, "dropped"));
    assert_non_null(strstr(out, "INFO  test: after\n"));
    free(out);
    ofcd_log_ring_destroy(r);
}

#define RING_LINES 20000

static void *ring_producer(void *arg)
{
    ofcd_log_use_ring(arg);
    for (int i = 0; i < RING_LINES; i++)
        LOG_INFO("p", "%d", i);
    return NULL;
}

/* One producer thread, one consumer draining while it writes: every line
 * arrives whole and in order or is counted dropped, none is both. */
static void test_ring_threads(void **state)
{
    struct ofcd_log_ring *r = ofcd_log_ring_create("lcore 1", 64);
    pthread_t t;
    unsigned total = 0, n;
    int next = 0;

    (void)state;
    assert_int_equal(pthread_create(&t, NULL, ring_producer, r), 0);
    for (bool done = false; !done;) {
        done = pthread_tryjoin_np(t, NULL) == 0;
        char *out = log_capture_text(r, &n);
        total += n;
        for (char *p = strstr(out, "INFO  p: "); p; p = strstr(p + 1, "INFO  p: ")) {
            int v = atoi(p + strlen("INFO  p: "));
            assert_true(v >= next);            /* in order; gaps are drops */
            next = v + 1;
        }
        free(out);
    }
    char *out = log_capture_text(r, &n);
    total += n;
    free(out);
    assert_int_equal(total + ofcd_log_ring_dropped(r), RING_LINES);
    ofcd_log_ring_destroy(r);
}

/* LOG_WARN_RL: burst lines a window from one site, the next one written
 * with how many were suppressed — kept even when the message is longer
 * than a ring line; a level not logged is not counted. */
static void test_rate_limited_site(void **state)
{
    (void)state;
    struct ofcd_log_ring *r = ofcd_log_ring_create("lcore 3", 64);
    struct ofcd_ratelimit rl = OFCD_RATELIMIT_INIT(3, 1000);
    char long_text[700];
    unsigned n;

    assert_non_null(r);
    ofcd_log_use_ring(r);
    for (unsigned i = 0; i < 50; i++)
        LOG_WARN_RL(&rl, 1000000, "test", "flood %u", i);
    char *text = log_capture_text(r, &n);
    assert_int_equal(n, 3);
    assert_non_null(strstr(text, "flood 2"));
    assert_null(strstr(text, "suppressed"));
    free(text);

    memset(long_text, 'x', sizeof(long_text) - 1);
    long_text[sizeof(long_text) - 1] = '\0';
    LOG_WARN_RL(&rl, 2000000, "test", "flood 50 %s", long_text);
    text = log_capture_text(r, &n);
    assert_int_equal(n, 1);
    assert_true(strlen(text) <= OFCD_LOG_RING_LINE + 1);
    assert_non_null(strstr(text, "WARN  test: flood 50 xxx"));
    assert_non_null(strstr(text, "xxx (47 similar lines suppressed)\n"));
    free(text);

    ofcd_log_set_level(OFCD_LOG_WARN);
    for (unsigned i = 0; i < 10; i++)
        LOG_INFO_RL(&rl, 3000000, "test", "quiet %u", i);
    LOG_WARN_RL(&rl, 3000000, "test", "loud");
    ofcd_log_set_level(OFCD_LOG_INFO);
    text = log_capture_text(r, &n);
    assert_int_equal(n, 1);
    assert_non_null(strstr(text, "loud\n"));
    free(text);
    ofcd_log_use_ring(NULL);
    ofcd_log_ring_destroy(r);
}

/* The lines r holds now, taken out of it: exactly want of them, needle
 * (unless NULL) among them. */
static void expect_lines(struct ofcd_log_ring *r, unsigned want, const char *needle)
{
    unsigned n;
    char *text = log_capture_text(r, &n);

    assert_int_equal(n, want);
    if (needle)
        assert_non_null(strstr(text, needle));
    free(text);
}

/* A module's level is its own: "of" at debug writes its debug lines while
 * "tcp" stays at info; "of" at error silences its info lines only; a name
 * the table does not hold is refused and changes nothing; setting every
 * module puts them all back. Components no module names share "other". */
static void test_module_levels(void **state)
{
    struct ofcd_log_ring *r = ofcd_log_ring_create("lcore 4", 64);
    unsigned n;

    (void)state;
    assert_non_null(r);
    ofcd_log_set_level(OFCD_LOG_INFO);
    ofcd_log_use_ring(r);
    assert_int_equal(ofcd_log_set_module_level("of", OFCD_LOG_DEBUG), 0);
    assert_int_equal(ofcd_log_module_level("of"), OFCD_LOG_DEBUG);
    assert_int_equal(ofcd_log_module_level("tcp"), OFCD_LOG_INFO);
    LOG_DEBUG("of", "of debug");
    LOG_DEBUG("tcp", "tcp debug");
    LOG_INFO("tcp", "tcp info");
    char *text = log_capture_text(r, &n);
    assert_int_equal(n, 2);
    assert_non_null(strstr(text, "DEBUG of: of debug\n"));
    assert_non_null(strstr(text, "INFO  tcp: tcp info\n"));
    free(text);

    assert_int_equal(ofcd_log_set_module_level("of", OFCD_LOG_ERR), 0);
    LOG_INFO("of", "of info");
    LOG_DEBUG("of", "of debug");
    LOG_ERR("of", "of error");
    expect_lines(r, 1, "ERROR of: of error\n");

    /* Unknown names: refused, nothing changed. */
    assert_int_equal(ofcd_log_set_module_level("nosuch", OFCD_LOG_DEBUG), -ENOENT);
    assert_int_equal(ofcd_log_module_level("nosuch"), -ENOENT);
    assert_int_equal(ofcd_log_module_level("tcp"), OFCD_LOG_INFO);
    /* A component outside the table is logged at "other"'s level. */
    assert_int_equal(ofcd_log_set_module_level("other", OFCD_LOG_WARN), 0);
    LOG_INFO("test", "hidden");
    LOG_WARN("test", "shown");
    expect_lines(r, 1, "shown");

    /* Every module at once. */
    ofcd_log_set_level(OFCD_LOG_INFO);
    for (unsigned i = 0; i < ofcd_log_module_count(); i++) {
        const char *help = NULL;
        const char *name = ofcd_log_module_name(i, &help);
        assert_non_null(name);
        assert_non_null(help);
        assert_int_equal(ofcd_log_module_level(name), OFCD_LOG_INFO);
    }
    assert_null(ofcd_log_module_name(ofcd_log_module_count(), NULL));
    LOG_INFO("of", "back");
    LOG_DEBUG("of", "still quiet");
    expect_lines(r, 1, "back");
    ofcd_log_use_ring(NULL);
    ofcd_log_ring_destroy(r);
}

/* The level check an lcore makes while the control thread changes the
 * level: relaxed atomics, no race the sanitizers see, and the last level
 * set is the one in force afterwards. */
static void *level_setter(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20000; i++)
        ofcd_log_set_module_level("of", i & 1 ? OFCD_LOG_DEBUG : OFCD_LOG_WARN);
    return NULL;
}

static void test_module_levels_threads(void **state)
{
    pthread_t t;
    unsigned seen = 0;

    (void)state;
    assert_int_equal(pthread_create(&t, NULL, level_setter, NULL), 0);
    for (int i = 0; i < 20000; i++)
        seen += ofcd_log_enabled("of", OFCD_LOG_DEBUG) ? 1 : 0;
    pthread_join(t, NULL);
    (void)seen;
    assert_true(ofcd_log_enabled("of", OFCD_LOG_DEBUG));     /* the setter's last: debug */
    assert_false(ofcd_log_enabled("tcp", OFCD_LOG_DEBUG));
    ofcd_log_set_level(OFCD_LOG_INFO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean),
        cmocka_unit_test(test_ring_order_and_drops),
        cmocka_unit_test(test_ring_threads),
        cmocka_unit_test(test_rate_limited_site),
        cmocka_unit_test(test_module_levels),
        cmocka_unit_test(test_module_levels_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
