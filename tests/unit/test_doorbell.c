/* Unit tests of ofcd_doorbell: a ring reaches a sleeper only when it is
 * armed, once per arming whatever the number of rings, and a ring from
 * another thread wakes a poll(2) that is waiting. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <poll.h>
#include <pthread.h>

#include "ofcd_doorbell.h"

static int readable(const struct ofcd_doorbell *d, int timeout_ms)
{
    struct pollfd p = {.fd = d->fd, .events = POLLIN};
    return poll(&p, 1, timeout_ms);
}

static void test_rings_only_when_armed(void **state)
{
    (void)state;
    struct ofcd_doorbell d;
    uint64_t v;

    assert_int_equal(ofcd_doorbell_init(&d), 0);
    ofcd_doorbell_ring(&d);                       /* nobody asleep: no write */
    assert_int_equal(readable(&d, 0), 0);
    ofcd_doorbell_arm(&d);
    ofcd_doorbell_ring(&d);
    ofcd_doorbell_ring(&d);                       /* the second finds it disarmed */
    assert_int_equal(readable(&d, 0), 1);
    assert_int_equal(read(d.fd, &v, sizeof(v)), (ssize_t)sizeof(v));
    assert_int_equal(v, 1);                       /* one write for two rings */
    ofcd_doorbell_arm(&d);
    ofcd_doorbell_clear(&d);                      /* woke for another reason */
    ofcd_doorbell_ring(&d);
    assert_int_equal(readable(&d, 0), 0);
    ofcd_doorbell_ring(NULL);                     /* no bell: nothing */
    ofcd_doorbell_fini(&d);
    assert_int_equal(d.fd, -1);
}

static void *ringer(void *arg)
{
    ofcd_doorbell_ring(arg);
    return NULL;
}

static void test_wakes_a_sleeper(void **state)
{
    (void)state;
    struct ofcd_doorbell d;
    pthread_t t;

    assert_int_equal(ofcd_doorbell_init(&d), 0);
    ofcd_doorbell_arm(&d);
    assert_int_equal(pthread_create(&t, NULL, ringer, &d), 0);
    assert_int_equal(readable(&d, 10000), 1);     /* woken, long before the timeout */
    pthread_join(t, NULL);
    ofcd_doorbell_clear(&d);
    assert_int_equal(readable(&d, 0), 0);         /* drained */
    ofcd_doorbell_fini(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rings_only_when_armed),
        cmocka_unit_test(test_wakes_a_sleeper),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
