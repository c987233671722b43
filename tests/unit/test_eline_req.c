/*
 * test_eline_req: mef_eline v2 EVC requests as Kytos-ng reads them — the
 * defaults, every tag form (a VID, "any", "untagged", ranges in all three
 * spellings), the UNIs rendered back as Kytos shows them, and each refusal
 * in Kytos' words naming the field: its schema's (unknown keys, missing or
 * mistyped members, bounds, the interface id pattern) and its own rules
 * (tag lists alike, a primary path or dynamic paths across switches).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eline_req.h"

#define A "\"uni_a\": {\"interface_id\": \"00:00:00:00:00:00:00:01:1\""
#define Z "\"uni_z\": {\"interface_id\": \"00:00:00:00:00:00:00:03:1\""

static json_t *body;

static void ok(const char *text, struct eline_req *r)
{
    char err[256] = "";
    json_error_t je;
    json_decref(body);
    body = json_loads(text, 0, &je);
    if (!body)
        fail_msg("bad test JSON: %s: %s", je.text, text);
    if (eline_req_parse(body, r, err, sizeof(err)) != 0)
        fail_msg("%s: %s", text, err);
}

static void bad(const char *text, const char *want)
{
    char err[256] = "";
    struct eline_req r;
    json_error_t je;
    json_t *b = json_loads(text, 0, &je);
    if (!b)
        fail_msg("bad test JSON: %s: %s", je.text, text);
    /* Refused as a client's request is: read, then its times and
     * schedules (which a record read back is not asked). */
    int rc = eline_req_parse(b, &r, err, sizeof(err));
    if (rc == 0)
        rc = eline_req_check_times(&r, err, sizeof(err));
    assert_int_equal(rc, -EINVAL);
    if (strcmp(err, want) != 0)
        fail_msg("%s:\n got  \"%s\"\n want \"%s\"", text, err, want);
    json_decref(b);
}

static void test_defaults_and_tags(void **state)
{
    (void)state;
    struct eline_req r;

    ok("{\"name\": \"e1\", " A ", \"tag\": {\"tag_type\": \"vlan\", \"value\": 100}}, " Z
       ", \"tag\": {\"tag_type\": 1, \"value\": \"untagged\"}}, \"dynamic_backup_path\": true}",
       &r);
    assert_string_equal(r.name, "e1");
    assert_int_equal(r.uni_a.at.dpid, 1);
    assert_int_equal(r.uni_a.at.port, 1);
    assert_int_equal(r.uni_z.at.dpid, 3);
    assert_int_equal(r.uni_a.vlan.kind, ELINE_VLAN_VID);
    assert_int_equal(r.uni_a.vlan.vid, 100);
    assert_int_equal(r.uni_z.vlan.kind, ELINE_VLAN_VID);
    assert_int_equal(r.uni_z.vlan.vid, 0);
    assert_false(r.enabled);
    assert_true(r.dynamic_backup_path);
    assert_int_equal(r.sb_priority, -1);
    assert_int_equal(r.queue_id, -1);
    assert_int_equal(r.max_paths, 2);
    assert_int_equal(r.service_level, 0);
    assert_null(r.primary_path);

    json_t *u = eline_uni_json(&r.uni_z);
    char *s = json_dumps(u, JSON_COMPACT);
    assert_string_equal(s, "{\"interface_id\":\"00:00:00:00:00:00:00:03:1\","
                           "\"tag\":{\"tag_type\":\"vlan\",\"value\":\"untagged\"}}");
    free(s);
    json_decref(u);

    /* Ranges in all three spellings; the same on both UNIs. */
    ok("{\"name\": \"e2\", " A ", \"tag\": {\"value\": [[1, 5], [7], 9]}}, " Z
       ", \"tag\": {\"value\": [[1, 5], 7, [9, 9]]}}, \"enabled\": true, \"sb_priority\": null,"
       " \"queue_id\": 3, \"max_paths\": 10, \"primary_path\": [], \"metadata\": {\"k\": 1},"
       " \"dynamic_backup_path\": true}", &r);
    assert_int_equal(r.uni_a.vlan.kind, ELINE_VLAN_MASKS);
    assert_int_equal(r.uni_a.n_ranges, 3);
    assert_int_equal(r.uni_a.ranges[1][0], 7);
    assert_int_equal(r.uni_a.ranges[1][1], 7);
    assert_string_equal(r.uni_a.vlan.masks[0], "1/4095");
    assert_true(r.enabled);
    assert_int_equal(r.queue_id, 3);
    assert_int_equal(r.max_paths, 10);
    assert_int_equal(json_integer_value(json_object_get(r.metadata, "k")), 1);
    u = eline_uni_json(&r.uni_a);
    s = json_dumps(json_object_get(u, "tag"), JSON_COMPACT);
    assert_string_equal(s, "{\"tag_type\":\"vlan\",\"value\":[[1,5],[7,7],[9,9]]}");
    free(s);
    json_decref(u);

    /* Intra-switch: no path needed; "any"; an EPL UNI renders without a tag. */
    ok("{\"name\": \"e3\", " A ", \"tag\": {\"value\": \"any\"}}, "
       "\"uni_z\": {\"interface_id\": \"00-00-00-00-00-00-00-01:2\"}}", &r);
    assert_int_equal(r.uni_a.vlan.kind, ELINE_VLAN_ANY);
    assert_false(r.uni_z.has_tag);
    assert_int_equal(r.uni_z.at.dpid, 1);
    assert_int_equal(r.uni_z.at.port, 2);
    u = eline_uni_json(&r.uni_z);
    assert_null(json_object_get(u, "tag"));
    json_decref(u);
    json_decref(body);
    body = NULL;
}

#define INV "The request body contains invalid API data. "

static void test_refusals(void **state)
{
    (void)state;
    bad("[]", INV "the body is not of type 'object'");
    bad("{\"name\": \"x\", " A "}, " Z "}, \"dynamic_backup_path\": true, "
        "\"circuit_scheduler\": [{\"date\": "
        "\"2026-12-07T10:00:00\"}, {\"frequency\": \"* * 32 * *\"}]}",
        INV "circuit_scheduler[1].frequency: '32' is not a day (1-31)");
    bad("{\"name\": \"x\", " A "}, " Z "}, \"owner\": 5}", INV "owner: not of type 'string'");
    bad("{\"name\": \"x\", " A "}, " Z "}, \"dynamic_backup_path\": true, "
        "\"start_date\": \"soon\"}",
        INV "start_date: an ISO 8601 time, as 2026-12-07T14:52:10Z");
    bad("{\"name\": \"x\", " A "}, " Z "}, \"colour\": 1}",
        INV "Additional properties are not allowed ('colour' was unexpected)");
    bad("{" A "}, " Z "}}", INV "'name' is a required property");
    bad("{\"name\": 1, " A "}, " Z "}}", INV "name: not of type 'string'");
    bad("{\"name\": \"x\", " A "}}", INV "'uni_z' is a required property");
    bad("{\"name\": \"x\", " A "}, \"uni_z\": {}}",
        INV "uni_z: 'interface_id' is a required property");
    bad("{\"name\": \"x\", " A "}, \"uni_z\": {\"interface_id\": \"00:00:00:00:00:00:00:03\"}}",
        INV "uni_z.interface_id: does not match '^([0-9A-Fa-f]{2}[:-]){8}(\\\\d{1,5})$'");
    bad("{\"name\": \"x\", " A ", \"vlan\": 1}, " Z "}}",
        INV "uni_a: Additional properties are not allowed ('vlan' was unexpected)");
    bad("{\"name\": \"x\", " A ", \"tag\": {\"tag_type\": \"mpls\", \"value\": 1}}, " Z "}}",
        INV "uni_a.tag.tag_type: not one of ['vlan', 1]");
    bad("{\"name\": \"x\", " A ", \"tag\": {\"value\": 4096}}, " Z "}}",
        "uni_a.tag.value: 4096 is not a VLAN (1..4095)");
    bad("{\"name\": \"x\", " A ", \"tag\": {\"value\": \"some\"}}, " Z "}}",
        "uni_a.tag.value: expected a VLAN (1..4095), \"any\", \"untagged\" or a list of ranges");
    bad("{\"name\": \"x\", " A ", \"tag\": {\"value\": [[5, 1]]}}, " Z
        ", \"tag\": {\"value\": [[5, 1]]}}}",
        "uni_a.tag.value[0]: [5, 1] is not a range of VLANs within 1..4095");
    bad("{\"name\": \"x\", " A ", \"tag\": {\"value\": [[1, 5], [3, 9]]}}, " Z "}}",
        "uni_a.tag.value[1]: ranges must be in ascending order and must not overlap");
    bad("{\"name\": \"x\", " A ", \"tag\": {\"value\": [[1, 5]]}}, " Z
        ", \"tag\": {\"value\": 7}}, \"dynamic_backup_path\": true}",
        "UNI_A and UNI_Z tag lists should be the same.");
    bad("{\"name\": \"x\", " A ", \"tag\": {\"value\": [[1, 5]]}}, " Z
        ", \"tag\": {\"value\": [[1, 6]]}}, \"dynamic_backup_path\": true}",
        "UNI_A and UNI_Z tag lists should be the same.");
    bad("{\"name\": \"x\", " A "}, " Z "}}",
        "The EVC must have a primary path or allow dynamic paths.");
    bad("{\"name\": \"x\", " A "}, " Z "}, \"sb_priority\": 65536}",
        INV "sb_priority: 65536 is greater than the maximum of 65535");
    bad("{\"name\": \"x\", " A "}, " Z "}, \"queue_id\": 8}",
        INV "queue_id: 8 is greater than the maximum of 7");
    bad("{\"name\": \"x\", " A "}, " Z "}, \"max_paths\": 1}",
        INV "max_paths: 1 is less than the minimum of 2");
    bad("{\"name\": \"x\", " A "}, " Z "}, \"service_level\": \"high\"}",
        INV "service_level: not of type 'integer'");
    bad("{\"name\": \"x\", " A "}, " Z "}, \"enabled\": 1}",
        INV "enabled: not of type 'boolean'");
    bad("{\"name\": \"x\", " A "}, " Z "}, \"primary_path\": {}}",
        INV "primary_path: not of type 'array'");
    bad("{\"name\": \"x\", " A "}, " Z "}, \"metadata\": []}",
        INV "metadata: not of type 'object'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_and_tags),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
