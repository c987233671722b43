/* Unit tests of the emulator's wiring (emu_wire.c): a fat-tree has K^3/2
 * links with the ends its header promises and every link both ways; a ring
 * closes; a file is read line by line; what does not fit is refused with a
 * message. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu_wire.h"

static void test_fattree(void **state)
{
    (void)state;
    struct emu_wire *w;
    char err[256];
    uint32_t pi, pp, qi, qp;

    assert_int_equal(emu_wire_build("fattree:4", 20, 4, &w, err, sizeof(err)), 0);
    assert_int_equal(emu_wire_links(w), 32);
    /* Pod 1's first aggregation switch (index 4 + 4 = 8), port 2: core 1, port 2. */
    assert_int_equal(emu_wire_peer(w, 8, 2, &pi, &pp), 0);
    assert_int_equal(pi, 1);
    assert_int_equal(pp, 2);
    /* Its port 3 (K/2 + 1): the pod's first edge switch (10), port 1. */
    assert_int_equal(emu_wire_peer(w, 8, 3, &pi, &pp), 0);
    assert_int_equal(pi, 10);
    assert_int_equal(pp, 1);
    /* Edge ports 3..4 face hosts. */
    assert_int_equal(emu_wire_peer(w, 10, 3, &pi, &pp), -ENOENT);
    /* Every wired port's peer points back. */
    unsigned wired = 0;
    for (uint32_t i = 0; i < 20; i++)
        for (uint32_t p = 1; p <= 4; p++)
            if (emu_wire_peer(w, i, p, &pi, &pp) == 0) {
                wired++;
                assert_int_equal(emu_wire_peer(w, pi, pp, &qi, &qp), 0);
                assert_int_equal(qi, i);
                assert_int_equal(qp, p);
            }
    assert_int_equal(wired, 64);
    emu_wire_free(w);
    assert_int_equal(emu_wire_build("fattree:4", 19, 4, &w, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "20 switches"));
    assert_int_equal(emu_wire_build("fattree:5", 40, 8, &w, err, sizeof(err)), -EINVAL);
}

static void test_ring_and_file(void **state)
{
    (void)state;
    struct emu_wire *w;
    char err[256], path[] = "/tmp/emu-wire-XXXXXX";
    uint32_t pi, pp;

    assert_int_equal(emu_wire_build("ring", 5, 2, &w, err, sizeof(err)), 0);
    assert_int_equal(emu_wire_links(w), 5);
    assert_int_equal(emu_wire_peer(w, 4, 1, &pi, &pp), 0);
    assert_int_equal(pi, 0);
    assert_int_equal(pp, 2);
    emu_wire_free(w);

    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("# two links\n1 1 2 1\n\n2 2 3 1\n", f);
    fclose(f);
    char spec[64];
    snprintf(spec, sizeof(spec), "file:%s", path);
    assert_int_equal(emu_wire_build(spec, 3, 2, &w, err, sizeof(err)), 0);
    assert_int_equal(emu_wire_links(w), 2);
    assert_int_equal(emu_wire_peer(w, 2, 1, &pi, &pp), 0);
    assert_int_equal(pi, 1);
    assert_int_equal(pp, 2);
    emu_wire_free(w);
    f = fopen(path, "w");
    fputs("1 1 2 1\n2 1 3 1\n", f);              /* 2:1 twice */
    fclose(f);
    assert_int_equal(emu_wire_build(spec, 3, 2, &w, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "wired twice"));
    unlink(path);
    assert_int_equal(emu_wire_build("mesh", 3, 2, &w, err, sizeof(err)), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fattree),
        cmocka_unit_test(test_ring_and_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
