/*
 * test_capture_shelf: the frozen flight records (app/capture_shelf.h) with
 * a clock the test moves: asks come out oldest first; a switch giving one
 * reason again is skipped while its ask waits and for the gap after its
 * copy, an operator's ask never; the asks' ring and the copies' count and
 * bytes are bounds, the oldest copy leaving first; ids are never reused;
 * a capture over the whole bound is refused; nothing is frozen when off.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture_shelf.h"

#define T0 1000000000ull

static uint8_t *bytes(size_t n)
{
    uint8_t *p = malloc(n);
    assert_non_null(p);
    memset(p, 0xab, n);
    return p;
}

/* Ask, take the ask, freeze n bytes for it: its id. */
static int freeze(struct capture_shelf *s, uint64_t dpid, enum capture_kind k, uint64_t now,
                  size_t n)
{
    struct capture_ask a;

    assert_int_equal(capture_shelf_ask(s, dpid, 0, k, "why", now), 0);
    assert_true(capture_shelf_take_ask(s, &a));
    assert_int_equal(a.dpid, dpid);
    uint32_t id;
    int rc = capture_shelf_put(s, 42, "summary", bytes(n), n, &id);
    return rc < 0 ? rc : (int)id;
}

static void test_asks_in_order_and_copies_kept(void **state)
{
    (void)state;
    struct capture_shelf s;
    struct capture_ask a;

    assert_int_equal(capture_shelf_init(&s, 4, 1 << 20), 0);
    assert_int_equal(capture_shelf_ask(&s, 1, 0, CAPTURE_KIND_DISCONNECT, "switch closed", T0), 0);
    assert_int_equal(capture_shelf_ask(&s, 2, 0, CAPTURE_KIND_ERROR, "OFPT_ERROR type 5", T0), 0);
    assert_true(capture_shelf_take_ask(&s, &a));
    assert_int_equal(a.dpid, 1);
    assert_int_equal(a.kind, CAPTURE_KIND_DISCONNECT);
    assert_string_equal(a.reason, "switch closed");
    uint32_t id;
    assert_int_equal(capture_shelf_put(&s, 7, "3 messages", bytes(100), 100, &id), 0);
    assert_int_equal(id, 1);
    assert_true(capture_shelf_take_ask(&s, &a));
    assert_int_equal(a.dpid, 2);
    assert_false(capture_shelf_take_ask(&s, &a));
    const struct capture_copy *c = capture_shelf_find(&s, 1);
    assert_non_null(c);
    assert_int_equal(c->dpid, 1);
    assert_int_equal(c->len, 100);
    assert_int_equal(c->wall_ns, 7);
    assert_string_equal(c->summary, "3 messages");
    assert_string_equal(capture_kind_name(c->kind), "disconnect");
    char when[CAPTURE_WHEN_LEN];
    capture_copy_when(c, when);                 /* wall_ns 7: the epoch, UTC */
    assert_string_equal(when, "1970-01-01T00:00:00Z");
    assert_null(capture_shelf_find(&s, 2));
    assert_int_equal(s.st.asked, 2);
    assert_int_equal(s.st.frozen, 1);
    capture_shelf_free(&s);
}

/* One reason again: skipped while waiting and for the gap, then taken. */
static void test_same_reason_skipped_for_the_gap(void **state)
{
    (void)state;
    struct capture_shelf s;
    struct capture_ask a;

    assert_int_equal(capture_shelf_init(&s, 8, 1 << 20), 0);
    assert_int_equal(capture_shelf_ask(&s, 1, 0, CAPTURE_KIND_ERROR, "e1", T0), 0);
    assert_int_equal(capture_shelf_ask(&s, 1, 0, CAPTURE_KIND_ERROR, "e2", T0 + 1), -EALREADY);
    /* Another kind, another switch, an operator: each its own. */
    assert_int_equal(capture_shelf_ask(&s, 1, 0, CAPTURE_KIND_DISCONNECT, "d", T0 + 1), 0);
    assert_int_equal(capture_shelf_ask(&s, 2, 0, CAPTURE_KIND_ERROR, "e", T0 + 1), 0);
    assert_int_equal(capture_shelf_ask(&s, 1, 0, CAPTURE_KIND_ASKED, "a", T0 + 1), 0);
    assert_int_equal(capture_shelf_ask(&s, 1, 0, CAPTURE_KIND_ASKED, "a", T0 + 1), 0);
    uint32_t id;
    assert_true(capture_shelf_take_ask(&s, &a));
    /* Being frozen: the same again is skipped too. */
    assert_int_equal(capture_shelf_ask(&s, 1, 0, CAPTURE_KIND_ERROR, "e2", T0 + 2), -EALREADY);
    assert_int_equal(capture_shelf_put(&s, 1, "", bytes(10), 10, &id), 0);
    while (capture_shelf_take_ask(&s, &a))
        capture_shelf_done(&s);
    /* Frozen at T0: the same again within the gap is skipped, after it not. */
    uint64_t t = T0 + CAPTURE_SHELF_GAP_US - 1;
    assert_int_equal(capture_shelf_ask(&s, 1, 0, CAPTURE_KIND_ERROR, "e3", t), -EALREADY);
    assert_int_equal(capture_shelf_ask(&s, 1, 0, CAPTURE_KIND_ERROR, "e4", T0 + CAPTURE_SHELF_GAP_US),
                     0);
    assert_int_equal(s.st.skipped, 3);
    assert_int_equal(s.st.failed, 4);
    capture_shelf_free(&s);
}

/* The asks' ring: full is refused; taken and asked again it wraps, the
 * order kept, each with its connection. */
static void test_ask_ring_bounded(void **state)
{
    (void)state;
    struct capture_shelf s;
    struct capture_ask a;

    assert_int_equal(capture_shelf_init(&s, 2, 1 << 20), 0);
    for (unsigned i = 0; i < CAPTURE_SHELF_ASKS; i++)
        assert_int_equal(capture_shelf_ask(&s, i + 1, 100 + i, CAPTURE_KIND_DISCONNECT, "", T0), 0);
    assert_int_equal(capture_shelf_ask(&s, 999, 0, CAPTURE_KIND_DISCONNECT, "", T0), -ENOSPC);
    assert_int_equal(s.st.ask_full, 1);
    for (unsigned round = 0; round < 3; round++)
        for (unsigned i = 0; i < CAPTURE_SHELF_ASKS / 2; i++) {
            assert_true(capture_shelf_take_ask(&s, &a));
            capture_shelf_done(&s);
            assert_int_equal(capture_shelf_ask(&s, 1000 + round * 100 + i, a.conn,
                                               CAPTURE_KIND_DISCONNECT, "", T0), 0);
        }
    /* Round 1's asks come next, with the connections they were given. */
    assert_true(capture_shelf_take_ask(&s, &a));
    assert_int_equal(a.dpid, 1100);
    assert_int_equal(a.conn, 100 + CAPTURE_SHELF_ASKS / 2);
    capture_shelf_free(&s);
}

/* At most max copies and max_bytes: the oldest go; ids stay unique. */
static void test_copies_bounded_oldest_out(void **state)
{
    (void)state;
    struct capture_shelf s;

    assert_int_equal(capture_shelf_init(&s, 3, 1000), 0);
    for (uint64_t d = 1; d <= 4; d++)
        assert_int_equal(freeze(&s, d, CAPTURE_KIND_ASKED, T0, 100), (int)d);
    assert_int_equal(s.n, 3);                   /* by count: #1 left */
    assert_null(capture_shelf_find(&s, 1));
    assert_int_equal(capture_shelf_at(&s, 0)->id, 2);
    /* 900 bytes more: #2 leaves for the count, #3 for the bytes. */
    assert_int_equal(freeze(&s, 5, CAPTURE_KIND_ASKED, T0, 900), 5);
    assert_int_equal(s.n, 2);
    assert_int_equal(capture_shelf_at(&s, 0)->id, 4);
    assert_int_equal(s.bytes, 1000);
    assert_int_equal(s.st.evicted, 3);
    /* Over the whole bound alone: refused, nothing else goes. */
    assert_int_equal(freeze(&s, 6, CAPTURE_KIND_ASKED, T0, 1001), -E2BIG);
    assert_int_equal(s.n, 2);
    assert_int_equal(freeze(&s, 7, CAPTURE_KIND_ASKED, T0, 10), 6);
    capture_shelf_free(&s);
}

static void test_off_freezes_nothing(void **state)
{
    (void)state;
    struct capture_shelf s;

    assert_int_equal(capture_shelf_init(&s, 0, 0), 0);
    assert_int_equal(capture_shelf_ask(&s, 1, 0, CAPTURE_KIND_ASKED, "", T0), -ENOTSUP);
    capture_shelf_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_asks_in_order_and_copies_kept),
        cmocka_unit_test(test_same_reason_skipped_for_the_gap),
        cmocka_unit_test(test_ask_ring_bounded),
        cmocka_unit_test(test_copies_bounded_oldest_out),
        cmocka_unit_test(test_off_freezes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
