/* store_etcd_rec: the revision a watch message brings a node's copy to —
 * its last event's, never the header's that etcd heads a catch-up's part
 * with — and the sync key a node marks its catch-up with. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "store_etcd.h"

/* A part of a catch-up: etcd at 9,000, the part's events 1,001..1,003.
 * Recording 9,000 would resume after 5,997 changes never read. */
static void test_watch_rev_is_last_event(void **state)
{
    struct etcd_event ev[3] = {{.kv = {.mod_revision = 1001}}, {.kv = {.mod_revision = 1002}},
                               {.type = ETCD_EV_DELETE, .kv = {.mod_revision = 1003}}};
    struct etcd_watch_resp r = {.hdr = {.revision = 9000}, .ev = ev, .n_ev = 3};

    (void)state;
    assert_int_equal(store_etcd_watch_rev(&r), 1003);
    /* A progress notice says everything up to its header was sent. */
    struct etcd_watch_resp notice = {.hdr = {.revision = 9000}};
    assert_int_equal(store_etcd_watch_rev(&notice), 9000);
    /* The creation's header is etcd's revision before the catch-up. */
    struct etcd_watch_resp created = {.hdr = {.revision = 9000}, .created = true};
    assert_int_equal(store_etcd_watch_rev(&created), 0);
    struct etcd_watch_resp canceled = {.hdr = {.revision = 9000}, .canceled = true};
    assert_int_equal(store_etcd_watch_rev(&canceled), 0);
}

static void test_sync_key(void **state)
{
    struct store_etcd_key k;
    const char *p = "/ofcd/v1/data/";

    (void)state;
    assert_int_equal(store_etcd_key_parse(p, (const uint8_t *)"/ofcd/v1/data/sync", 18, &k), 0);
    assert_int_equal(k.kind, STORE_ETCD_KEY_SYNC);
    assert_int_equal(store_etcd_key_parse(p, (const uint8_t *)"/ofcd/v1/data/syncx", 19, &k), 0);
    assert_int_equal(k.kind, STORE_ETCD_KEY_OTHER);
}

/* An app record named like the mirror's own (its applied revision) is not
 * an app record: written to etcd by anyone, it would have moved the
 * revision this node resumes from. */
static void test_own_keys_are_not_apps(void **state)
{
    static const char *p = "/ofcd/v1/data/";
    static const char own[] = "/ofcd/v1/data/apps/" STORE_ETCD_REV_KEY;
    static const char app[] = "/ofcd/v1/data/apps/topology/link/ab";
    struct store_etcd_key k;

    (void)state;
    assert_int_equal(store_etcd_key_parse(p, (const uint8_t *)own, sizeof(own) - 1, &k), 0);
    assert_int_equal(k.kind, STORE_ETCD_KEY_OTHER);
    assert_int_equal(store_etcd_key_parse(p, (const uint8_t *)app, sizeof(app) - 1, &k), 0);
    assert_int_equal(k.kind, STORE_ETCD_KEY_APP);
    assert_int_equal(k.app_len, strlen("topology/link/ab"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_watch_rev_is_last_event),
        cmocka_unit_test(test_sync_key),
        cmocka_unit_test(test_own_keys_are_not_apps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
