/*
 * test_topo_flow: the topology's LLDP flow is built as a typed flow and its
 * stored text without JSON in apps/topo; this test holds both to what
 * Kytos' flow JSON gave before (the same object packed with jansson and
 * parsed by rest/kytos): the same FLOW_MOD on the wire for the ADD and for
 * the DELETE that selects it, the same owner, the same identity, and
 * byte for byte the record text the store keeps (and which reads back,
 * through the store's record decoder, as the same flow).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "flow_json.h"
#include "fm.h"
#include "fm_null_env.h"
#include "fm_flow.h"
#include "fm_stored.h"
#include "json_u64.h"
#include "ofp_buf.h"
#include "ofp_flow.h"
#include "store.h"
#include "topo_app.h"
#include "topo_flow.h"

/* The flow as Kytos' of_lldp spells it in its JSON (dl_vlan when vlan). */
static json_t *kytos_spelling(uint64_t dpid, uint16_t vlan, bool for_delete)
{
    json_t *j = json_pack("{s:i, s:i, s:o, s:s, s:{s:i}, s:[{s:s, s:I}]}", "table_id", 0,
                          "priority", (int)TOPO_FLOW_PRIORITY, "cookie",
                          json_u64_value(TOPO_COOKIE(dpid)), "owner", TOPO_FLOW_OWNER, "match",
                          "dl_type", 0x88cc, "actions", "action_type", "output", "port",
                          (json_int_t)0xfffffffdu);
    assert_non_null(j);
    if (vlan)
        json_object_set_new(json_object_get(j, "match"), "dl_vlan", json_integer(vlan));
    if (for_delete)
        json_object_set_new(j, "cookie_mask", json_u64_value(UINT64_MAX));
    return j;
}

static size_t wire(const struct fm_flow *f, uint8_t *buf, size_t cap)
{
    struct ofp_buf b;

    ofp_buf_init(&b, buf, cap);
    assert_int_equal(ofp_flow_mod_encode(&b, 7, &f->mod), 0);
    return b.len;
}

static void same_flow(const struct fm_flow *a, const struct fm_flow *b)
{
    uint8_t wa[512], wb[512];
    size_t la = wire(a, wa, sizeof(wa)), lb = wire(b, wb, sizeof(wb));

    assert_int_equal(la, lb);
    assert_memory_equal(wa, wb, la);
    assert_string_equal(a->owner, b->owner);
    assert_true(a->mod.cookie_mask == b->mod.cookie_mask);
}

static void test_as_kytos_json_gave(void **state)
{
    (void)state;
    const uint64_t dpids[] = {0x1, 0x0000000000000c71, 0x00ffffffffffffff, 0xffffffffffffffff};

    const uint16_t vlans[] = {0, 3799, 1, 4094};

    for (size_t i = 0; i < sizeof(dpids) / sizeof(dpids[0]); i++) {
        for (int del = 0; del < 2; del++) {
            uint16_t vlan = vlans[i];
            struct fm_flow typed, parsed;
            char text[TOPO_FLOW_TEXT_MAX], err[128];
            json_t *j = kytos_spelling(dpids[i], vlan, del);

            assert_int_equal(flow_json_parse_json(j, del, &parsed, NULL, err, sizeof(err)), 0);
            assert_int_equal(topo_flow_lldp(dpids[i], vlan, del, &typed, text, sizeof(text)), 0);
            same_flow(&typed, &parsed);
            assert_true(fm_flow_match_id(dpids[i], &typed) ==
                        fm_flow_match_id(dpids[i], &parsed));
            assert_true(fm_flow_id(dpids[i], &typed) == fm_flow_id(dpids[i], &parsed));
            if (!del) {
                char *dumped = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
                struct fm_flow back;
                assert_string_equal(text, dumped);
                assert_int_equal(flow_json_record(text, strlen(text), &back), 0);
                same_flow(&back, &typed);
                free(dumped);
            }
            json_decref(j);
        }
    }
    struct fm_flow f;
    char small[16];
    assert_int_equal(topo_flow_lldp(1, 3799, false, &f, small, sizeof(small)), -ENOBUFS);
}

static bool lldp_stored(struct fm *fm, uint64_t dpid, uint16_t vlan)
{
    struct fm_flow f;
    struct store_flow got;
    topo_flow_lldp(dpid, vlan, false, &f, NULL, 0);
    if (fm_stored_get(fm, dpid, fm_flow_match_id(dpid, &f), &got) < 0)
        return false;
    store_flow_release(&got);
    return true;
}

/* A switch the view lets go takes its LLDP flow with it: once stored, and
 * when its store write is still queued (a switch that came and went within
 * a commit); the flow manager then holds no record of it. One that comes
 * back while the delete is queued keeps its flow. */
static void test_forget_takes_the_flow(void **state)
{
    (void)state;
    struct store_config sc = {.backend = STORE_BACKEND_MEMORY, .linger_us = 100000,
                              .batch_target = 64};
    struct store *st = store_open(&sc);
    struct fm_cfg fc = {.queue_max = 16};
    struct fm_env env;
    fm_null_env(&env);
    struct fm *fm = fm_create(&fc, &env, st);
    struct topo_flow_ctx ctx = TOPO_FLOW_CTX_INIT;

    assert_non_null(fm);
    assert_int_equal(topo_flow_ensure(fm, 0x42, 3799, &ctx), 0);
    assert_int_equal(store_sync(st), 0);
    assert_true(lldp_stored(fm, 0x42, 3799));
    fm_forget(fm, 0x42);                          /* the view let it go: it holds a flow */
    assert_int_not_equal(fm_state(fm, 0x42), FM_SW_UNKNOWN);    /* kept for it */
    assert_int_equal(topo_flow_forget(fm, 0x42, 3799, &ctx), 0);
    assert_int_equal(store_sync(st), 0);
    assert_false(lldp_stored(fm, 0x42, 3799));
    struct fm_stats fs;
    fm_get_stats(fm, &fs);
    assert_int_equal(fs.switches_forgotten, 1);   /* its record went with its last flow */

    /* Queued, not yet committed (the store lingers 100 ms), then let go. */
    assert_int_equal(topo_flow_ensure(fm, 0x43, 3799, &ctx), 0);
    assert_int_equal(topo_flow_forget(fm, 0x43, 3799, &ctx), 0);
    assert_int_equal(store_sync(st), 0);
    assert_false(lldp_stored(fm, 0x43, 3799));

    /* Let go, then back before the delete commits: the flow is stored again
     * behind the delete, not taken by it. */
    assert_int_equal(topo_flow_ensure(fm, 0x44, 3799, &ctx), 0);
    assert_int_equal(store_sync(st), 0);
    assert_int_equal(topo_flow_forget(fm, 0x44, 3799, &ctx), 0);
    assert_int_equal(topo_flow_ensure(fm, 0x44, 3799, &ctx), 0);
    assert_int_equal(store_sync(st), 0);
    assert_true(lldp_stored(fm, 0x44, 3799));
    assert_int_equal(atomic_load(&ctx.forgets), 0);
    store_close(st);
    fm_destroy(fm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_as_kytos_json_gave),
        cmocka_unit_test(test_forget_takes_the_flow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
