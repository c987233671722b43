/* Unit tests of the event stream's hub (rest_events.c), without a server:
 * the SSE text of an event, filters by kind, the wake of a waiting client
 * (once, and not lost when the event comes while it is suspending), a
 * client that never reads cut off at its queue's bound while the others
 * get every event, the client limit, and close_all. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "rest_events.h"

static unsigned wakes[4];

static void fake_wake(void *conn)
{
    wakes[(uintptr_t)conn]++;
}

static const struct rest_events_io io = {.wake = fake_wake};

static struct rest_events_stats stats(struct rest_events *h)
{
    struct rest_events_stats st;
    rest_events_get_stats(h, &st);
    return st;
}

static void publish_n(struct rest_events *h, const char *kind, int n)
{
    json_t *j = json_pack("{s:i}", "n", n);
    rest_events_publish(h, kind, j);
    json_decref(j);
}

static void test_text_filter_and_wake(void **state)
{
    (void)state;
    char buf[512];
    memset(wakes, 0, sizeof(wakes));
    struct rest_events *h = rest_events_create(4, 4096);
    struct rest_events_client *all = rest_events_join(h, NULL, "test", &io, (void *)1);
    struct rest_events_client *links = rest_events_join(h, "port,link", "test", &io, (void *)2);
    assert_non_null(all);
    assert_non_null(links);
    assert_int_equal(stats(h).clients, 2);

    /* Nothing yet: the reader waits (suspends) and is woken once, by the
     * first event it wants. */
    assert_int_equal(rest_events_read(links, buf, sizeof(buf)), 0);
    assert_false(rest_events_suspended(links));
    publish_n(h, "switch.up", 1);
    assert_int_equal(wakes[2], 0);
    publish_n(h, "link.up", 2);
    publish_n(h, "link.down", 3);
    assert_int_equal(wakes[2], 1);

    ssize_t n = rest_events_read(links, buf, sizeof(buf));
    assert_true(n > 0);
    buf[n] = '\0';
    assert_string_equal(buf, "event: link.up\ndata: {\"n\":2}\n\n"
                             "event: link.down\ndata: {\"n\":3}\n\n");
    n = rest_events_read(all, buf, 10);             /* a short read takes a prefix */
    assert_int_equal(n, 10);
    assert_memory_equal(buf, "event: swi", 10);

    /* An event while the reader is between its 0 and its suspend: no wake
     * call (the connection is not suspended yet); the reader resumes itself. */
    assert_int_equal(rest_events_read(links, buf, sizeof(buf)), 0);
    publish_n(h, "port.status", 4);
    assert_int_equal(wakes[2], 1);
    assert_true(rest_events_suspended(links));

    rest_events_leave(links);
    rest_events_leave(all);
    assert_int_equal(stats(h).clients, 0);
    assert_int_equal(stats(h).published, 4);
    rest_events_destroy(h);
}

static void test_slow_client_cut_others_whole(void **state)
{
    (void)state;
    char buf[8192];
    memset(wakes, 0, sizeof(wakes));
    struct rest_events *h = rest_events_create(4, 1024);
    struct rest_events_client *fast = rest_events_join(h, NULL, "test", &io, (void *)1);
    struct rest_events_client *never = rest_events_join(h, NULL, "test", &io, (void *)2);
    unsigned got = 0;

    for (int i = 0; i < 200; i++) {
        publish_n(h, "link.up", i);
        ssize_t n = rest_events_read(fast, buf, sizeof(buf));
        assert_true(n > 0);
        buf[n] = '\0';
        for (char *p = buf; (p = strstr(p, "event: link.up")); p++)
            got++;
    }
    assert_int_equal(got, 200);
    assert_int_equal(rest_events_read(never, buf, sizeof(buf)), -1);
    assert_int_equal(stats(h).clients_cut, 1);
    /* ~30 bytes an event: cut once the 35th would pass 1 KiB. */
    assert_true(stats(h).queued < 200 + 40);
    rest_events_leave(never);
    rest_events_leave(fast);
    rest_events_destroy(h);
}

static void test_limit_and_close_all(void **state)
{
    (void)state;
    char buf[64];
    memset(wakes, 0, sizeof(wakes));
    struct rest_events *h = rest_events_create(2, 4096);
    struct rest_events_client *a = rest_events_join(h, NULL, "test", &io, (void *)1);
    struct rest_events_client *b = rest_events_join(h, NULL, "test", &io, (void *)2);
    assert_null(rest_events_join(h, NULL, "test", &io, (void *)3));
    assert_int_equal(stats(h).clients_refused, 1);

    assert_int_equal(rest_events_read(a, buf, sizeof(buf)), 0);
    assert_false(rest_events_suspended(a));
    rest_events_close_all(h);
    assert_int_equal(wakes[1], 1);                  /* the waiting one is woken to end */
    assert_int_equal(rest_events_read(a, buf, sizeof(buf)), -1);
    assert_int_equal(rest_events_read(b, buf, sizeof(buf)), -1);
    assert_null(rest_events_join(h, NULL, "test", &io, (void *)3));
    rest_events_leave(a);
    rest_events_leave(b);
    rest_events_destroy(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_filter_and_wake),
        cmocka_unit_test(test_slow_client_cut_others_whole),
        cmocka_unit_test(test_limit_and_close_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
