/* Unit tests of cnode_relay: a batch of events comes back in order with its
 * data intact; an outbox is bounded (what does not fit is dropped and
 * counted, what fitted is still sent); a value that is not a batch, or
 * entries that are not [kind, object], are refused without a call. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cnode_relay.h"

struct got {
    char kinds[8][32];
    json_t *data[8];
    unsigned n;
};

static void collect(void *arg, const char *kind, const json_t *data)
{
    struct got *g = arg;
    assert_true(g->n < 8);
    strncpy(g->kinds[g->n], kind, sizeof(g->kinds[0]) - 1);
    g->data[g->n++] = json_deep_copy(data);
}

static void got_free(struct got *g)
{
    for (unsigned i = 0; i < g->n; i++)
        json_decref(g->data[i]);
}

static void test_batch_round_trip(void **state)
{
    (void)state;
    struct cnode_outbox o;
    struct got g = {0};
    size_t len;
    uint32_t n;

    cnode_outbox_init(&o, 0);
    assert_null(cnode_outbox_take(&o, &len, &n));
    json_t *up = json_pack("{s:s, s:i}", "dpid", "00:00:00:00:00:00:10:01", "ports", 3);
    json_t *link = json_pack("{s:s, s:s}", "id", "ab12", "why", "a \"quoted\" reason");
    assert_int_equal(cnode_outbox_add(&o, "switch.up", up), 0);
    assert_int_equal(cnode_outbox_add(&o, "link.down", link), 0);
    char *text = cnode_outbox_take(&o, &len, &n);
    assert_non_null(text);
    assert_int_equal(n, 2);
    assert_int_equal(strlen(text), len);
    assert_null(cnode_outbox_take(&o, &len, &n));      /* emptied */
    unsigned bad = 9;
    assert_int_equal(cnode_relay_each(text, len, collect, &g, &bad), 2);
    assert_int_equal(bad, 0);
    assert_string_equal(g.kinds[0], "switch.up");
    assert_string_equal(g.kinds[1], "link.down");
    assert_true(json_equal(g.data[0], up));
    assert_true(json_equal(g.data[1], link));
    free(text);
    got_free(&g);
    /* Not an object, or no kind: refused at the door. */
    json_t *arr = json_array();
    assert_int_equal(cnode_outbox_add(&o, "x", arr), -EINVAL);
    assert_int_equal(cnode_outbox_add(&o, "", up), -EINVAL);
    json_decref(arr);
    json_decref(up);
    json_decref(link);
    cnode_outbox_fini(&o);
}

static void test_outbox_bounded(void **state)
{
    (void)state;
    struct cnode_outbox o;
    struct got g = {0};
    size_t len;
    uint32_t n;
    json_t *d = json_pack("{s:s}", "dpid", "00:00:00:00:00:00:00:01");

    /* Each entry is 50 bytes and a comma: two fit in 110 with the brackets. */
    cnode_outbox_init(&o, 110);
    assert_int_equal(cnode_outbox_add(&o, "switch.down", d), 0);
    assert_int_equal(cnode_outbox_add(&o, "switch.down", d), 0);
    assert_int_equal(cnode_outbox_add(&o, "switch.down", d), -ENOBUFS);
    assert_int_equal(o.dropped, 1);
    char *text = cnode_outbox_take(&o, &len, &n);
    assert_int_equal(n, 2);
    assert_true(len <= 110);
    assert_int_equal(cnode_relay_each(text, len, collect, &g, NULL), 2);
    free(text);
    /* Emptied: room again. */
    assert_int_equal(cnode_outbox_add(&o, "switch.down", d), 0);
    got_free(&g);
    json_decref(d);
    cnode_outbox_fini(&o);
}

static void test_bad_batches(void **state)
{
    (void)state;
    struct got g = {0};
    unsigned bad = 0;
    static const char *const not_batches[] = {"", "{}", "[", "\"x\"", "[1,2", "null"};

    for (size_t i = 0; i < sizeof(not_batches) / sizeof(not_batches[0]); i++)
        assert_int_equal(cnode_relay_each(not_batches[i], strlen(not_batches[i]), collect, &g,
                                       &bad), -EINVAL);
    assert_int_equal(g.n, 0);
    /* Kinds as ofcd names them only: a newline would forge SSE lines. */
    const char *mixed = "[[\"ok\",{}],[\"no-data\"],[1,{}],[\"arr\",[]],\"x\",[\"\",{}],"
                        "[\"ok2\",{\"a\":1}],[\"three\",{},1],"
                        "[\"x\\nevent: fake\",{}],[\"Up\",{}],"
                        "[\"0123456789012345678901234567890123\",{}]]";
    assert_int_equal(cnode_relay_each(mixed, strlen(mixed), collect, &g, &bad), 2);
    assert_int_equal(bad, 9);
    assert_string_equal(g.kinds[0], "ok");
    assert_string_equal(g.kinds[1], "ok2");
    got_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_round_trip),
        cmocka_unit_test(test_outbox_bounded),
        cmocka_unit_test(test_bad_batches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
