/*
 * test_gm_json: groups and meters in ofcd's JSON become the GROUP_MOD /
 * METER_MOD an independent decode (ofp_decode) reads back field by field;
 * defaults as gm_json.h says; every refusal names its field.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gm_json.h"
#include "ofp_msg.h"

static uint8_t wire[GM_JSON_WIRE_MAX];

static void group_ok(const char *text, struct ofp_msg *m)
{
    char err[256] = "";
    size_t len;
    uint32_t id;
    struct ofp_err oe;

    int rc = gm_json_group(text, strlen(text), wire, &len, &id, err, sizeof(err));
    if (rc)
        fail_msg("%s: %s", text, err);
    assert_int_equal(ofp_decode(wire, len, m, &oe), 0);
    assert_int_equal(m->hdr.type, OFPT_GROUP_MOD);
    assert_int_equal(m->u.group_mod.group_id, id);
    assert_int_equal(m->u.group_mod.command, OFPGC_ADD);
}

static void group_bad(const char *text, const char *want)
{
    char err[256] = "";
    size_t len;
    uint32_t id;

    assert_int_equal(gm_json_group(text, strlen(text), wire, &len, &id, err, sizeof(err)),
                     -EINVAL);
    if (!strstr(err, want))
        fail_msg("%s: \"%s\" does not say \"%s\"", text, err, want);
}

static void test_group_fast_failover(void **state)
{
    (void)state;
    struct ofp_msg m;
    group_ok("{\"group_id\": 10, \"type\": \"fast_failover\", \"buckets\": ["
             "{\"watch_port\": 2, \"actions\": [{\"action_type\": \"output\", \"port\": 2}]},"
             "{\"watch_port\": 3, \"actions\": [{\"action_type\": \"push_vlan\", \"tag_type\": \"s\"},"
             "{\"action_type\": \"set_vlan\", \"vlan_id\": 100},"
             "{\"action_type\": \"output\", \"port\": 3}]}]}", &m);
    assert_int_equal(m.u.group_mod.type, OFPGT_FF);
    struct ofp_bucket b;
    uint32_t pos = 0;
    assert_true(ofp_buckets_next(&m.u.group_mod.buckets, &pos, &b));
    assert_int_equal(b.watch_port, 2);
    assert_int_equal(b.watch_group, OFPG_ANY);
    assert_int_equal(b.weight, 0);
    assert_int_equal(b.actions.n, 1);
    assert_true(ofp_buckets_next(&m.u.group_mod.buckets, &pos, &b));
    assert_int_equal(b.watch_port, 3);
    assert_int_equal(b.actions.n, 3);
    assert_false(ofp_buckets_next(&m.u.group_mod.buckets, &pos, &b));
}

static void test_group_defaults(void **state)
{
    (void)state;
    struct ofp_msg m;
    struct ofp_bucket b;
    uint32_t pos = 0;

    group_ok("{\"type\": \"all\", \"group_id\": 0}", &m);
    assert_int_equal(m.u.group_mod.type, OFPGT_ALL);
    assert_int_equal(m.u.group_mod.buckets.n + (m.u.group_mod.buckets.wire_len ? 1 : 0), 0);
    group_ok("{\"type\": \"select\", \"group_id\": 4294967040, \"buckets\": [{\"actions\": []},"
             "{\"weight\": 5, \"actions\": []}]}", &m);
    assert_int_equal(m.u.group_mod.group_id, 0xffffff00u);
    assert_true(ofp_buckets_next(&m.u.group_mod.buckets, &pos, &b));
    assert_int_equal(b.weight, 1);                  /* select's default */
    assert_int_equal(b.watch_port, OFPP_ANY);
    assert_true(ofp_buckets_next(&m.u.group_mod.buckets, &pos, &b));
    assert_int_equal(b.weight, 5);
    group_ok("{\"type\": \"indirect\", \"group_id\": 3, \"buckets\": [{\"watch_group\": \"any\","
             "\"actions\": [{\"action_type\": \"group\", \"group_id\": 4}]}]}", &m);
    assert_int_equal(m.u.group_mod.type, OFPGT_INDIRECT);
}

static void test_group_refusals(void **state)
{
    (void)state;
    group_bad("[1]", "one group object");
    group_bad("{\"group_id\": 1", "not JSON");
    group_bad("{\"type\": \"all\"}", "missing field 'group_id'");
    group_bad("{\"group_id\": 1}", "missing field 'type'");
    group_bad("{\"group_id\": 4294967041, \"type\": \"all\"}", "'group_id'");
    group_bad("{\"group_id\": -1, \"type\": \"all\"}", "'group_id'");
    group_bad("{\"group_id\": 1, \"type\": \"ff\"}", "'type'");
    group_bad("{\"group_id\": 1, \"type\": \"all\", \"colour\": 1}", "unknown field 'colour'");
    group_bad("{\"group_id\": 1, \"type\": \"all\", \"buckets\": {}}", "'buckets'");
    group_bad("{\"group_id\": 1, \"type\": \"all\", \"buckets\": [{\"x\": 1}]}",
              "unknown field 'buckets[0].x'");
    group_bad("{\"group_id\": 1, \"type\": \"all\", \"buckets\": [{\"weight\": 2}]}",
              "buckets[0].weight");
    group_bad("{\"group_id\": 1, \"type\": \"fast_failover\", \"buckets\": [{\"actions\": []}]}",
              "buckets[0]: a fast_failover bucket watches");
    group_bad("{\"group_id\": 1, \"type\": \"fast_failover\", \"buckets\": "
              "[{\"watch_port\": \"up\"}]}", "buckets[0].watch_port");
    group_bad("{\"group_id\": 1, \"type\": \"indirect\", \"buckets\": []}", "exactly one");
    group_bad("{\"group_id\": 1, \"type\": \"all\", \"buckets\": [{\"actions\": ["
              "{\"action_type\": \"output\"}]}]}", "buckets[0].actions[0]");
    group_bad("{\"group_id\": 1, \"type\": \"all\", \"buckets\": [{\"actions\": ["
              "{\"action_type\": \"output\", \"port\": \"nowhere\"}]}]}",
              "buckets[0].actions[0].port");
}

static void meter_ok(const char *text, struct ofp_msg *m)
{
    char err[256] = "";
    size_t len;
    uint32_t id;
    struct ofp_err oe;

    int rc = gm_json_meter(text, strlen(text), wire, &len, &id, err, sizeof(err));
    if (rc)
        fail_msg("%s: %s", text, err);
    assert_int_equal(ofp_decode(wire, len, m, &oe), 0);
    assert_int_equal(m->hdr.type, OFPT_METER_MOD);
    assert_int_equal(m->u.meter_mod.meter_id, id);
    assert_int_equal(m->u.meter_mod.command, OFPMC_ADD);
}

static void meter_bad(const char *text, const char *want)
{
    char err[256] = "";
    size_t len;
    uint32_t id;

    assert_int_equal(gm_json_meter(text, strlen(text), wire, &len, &id, err, sizeof(err)),
                     -EINVAL);
    if (!strstr(err, want))
        fail_msg("%s: \"%s\" does not say \"%s\"", text, err, want);
}

static void test_meter(void **state)
{
    (void)state;
    struct ofp_msg m;
    struct ofp_meter_band b;
    uint32_t pos = 0;

    meter_ok("{\"meter_id\": 7, \"bands\": [{\"type\": \"drop\", \"rate\": 1000}]}", &m);
    assert_int_equal(m.u.meter_mod.flags, OFPMF_KBPS);
    assert_true(ofp_meter_bands_next(&m.u.meter_mod.bands, &pos, &b));
    assert_int_equal(b.type, OFPMBT_DROP);
    assert_int_equal(b.rate, 1000);
    assert_int_equal(b.burst_size, 0);
    meter_ok("{\"meter_id\": 8, \"flags\": [\"pktps\", \"burst\", \"stats\"], \"bands\": ["
             "{\"type\": \"dscp_remark\", \"rate\": 50, \"burst_size\": 10, \"prec_level\": 2},"
             "{\"type\": \"drop\", \"rate\": 100}]}", &m);
    assert_int_equal(m.u.meter_mod.flags, OFPMF_PKTPS | OFPMF_BURST | OFPMF_STATS);
    pos = 0;
    assert_true(ofp_meter_bands_next(&m.u.meter_mod.bands, &pos, &b));
    assert_int_equal(b.type, OFPMBT_DSCP_REMARK);
    assert_int_equal(b.prec_level, 2);
    assert_int_equal(b.burst_size, 10);
    assert_true(ofp_meter_bands_next(&m.u.meter_mod.bands, &pos, &b));
    assert_false(ofp_meter_bands_next(&m.u.meter_mod.bands, &pos, &b));
}

static void test_meter_refusals(void **state)
{
    (void)state;
    meter_bad("{\"bands\": []}", "missing field 'meter_id'");
    meter_bad("{\"meter_id\": 0, \"bands\": [{\"type\": \"drop\", \"rate\": 1}]}", "'meter_id'");
    meter_bad("{\"meter_id\": 1}", "bands: missing");
    meter_bad("{\"meter_id\": 1, \"bands\": []}", "bands: expected");
    meter_bad("{\"meter_id\": 1, \"flags\": [\"kbps\", \"pktps\"], \"bands\": "
              "[{\"type\": \"drop\", \"rate\": 1}]}", "not both");
    meter_bad("{\"meter_id\": 1, \"flags\": [\"fast\"], \"bands\": "
              "[{\"type\": \"drop\", \"rate\": 1}]}", "flags[0]");
    meter_bad("{\"meter_id\": 1, \"bands\": [{\"type\": \"drop\", \"rate\": 0}]}",
              "bands[0].rate");
    meter_bad("{\"meter_id\": 1, \"bands\": [{\"type\": \"drop\"}]}", "bands[0].rate: missing");
    meter_bad("{\"meter_id\": 1, \"bands\": [{\"type\": \"shape\", \"rate\": 1}]}",
              "bands[0].type");
    meter_bad("{\"meter_id\": 1, \"bands\": [{\"type\": \"drop\", \"rate\": 1, "
              "\"prec_level\": 1}]}", "bands[0].prec_level");
    meter_bad("{\"meter_id\": 1, \"bands\": [{\"type\": \"drop\", \"rate\": 1, \"x\": 1}]}",
              "unknown field 'bands[0].x'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_fast_failover),
        cmocka_unit_test(test_group_defaults),
        cmocka_unit_test(test_group_refusals),
        cmocka_unit_test(test_meter),
        cmocka_unit_test(test_meter_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
