/* topo_follow: every key another node changed reaches the tick, once,
 * however many came between two ticks (the class used to keep 4,096 and
 * drop the rest until a restart: a full read of a cluster's copy tells of
 * every record at once). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "topo_follow.h"

static void test_every_key_once(void **state)
{
    struct topo_follow f;
    char key[64], **keys;
    size_t n, lost;
    enum { KEYS = 20000 };

    (void)state;
    topo_follow_init(&f);
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < KEYS; i++) {
            snprintf(key, sizeof(key), "topology/admin/%016x/%d", i / 48, i % 48);
            assert_int_equal(topo_follow_add(&f, key), 0);
        }
    topo_follow_take(&f, &keys, &n, &lost);
    if (n != KEYS)
        fail_msg("%d keys changed three times each between two ticks: %zu handed over, "
                 "not %d", KEYS, n, KEYS);
    assert_int_equal(lost, 0);
    /* In the order they first came, each once. */
    for (int i = 0; i < KEYS; i++) {
        snprintf(key, sizeof(key), "topology/admin/%016x/%d", i / 48, i % 48);
        assert_string_equal(keys[i], key);
        free(keys[i]);
    }
    free(keys);
    /* Taken: empty, and it fills again. */
    topo_follow_take(&f, &keys, &n, &lost);
    assert_null(keys);
    assert_int_equal(n, 0);
    assert_int_equal(topo_follow_add(&f, "topology/link/ab"), 0);
    topo_follow_take(&f, &keys, &n, &lost);
    assert_int_equal(n, 1);
    assert_string_equal(keys[0], "topology/link/ab");
    free(keys[0]);
    free(keys);
    topo_follow_add(&f, "topology/link/cd");
    topo_follow_fini(&f);             /* what is held goes with it */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_key_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
