/*
 * test_eline_layout: an EVC's flows as Kytos-ng's mef_eline lays them, case
 * by case (each expected body worked out from mef_eline's rules, and the
 * frames it would carry traced in the comments): different VIDs swap the
 * customer tag for the S-VLAN and back, equal VIDs get an 802.1ad S-tag
 * pushed and popped, an untagged UNI gets a C-tag pushed toward a tagged
 * one, EPL carries the whole port under an S-tag at priority 10000, a range
 * becomes one push flow per value/mask, switches inside the path swap
 * S-VLANs; intra-switch EVCs rewrite, push or pop; sb_priority and
 * queue_id apply to every flow; a path that does not join the UNIs is
 * refused. Every flow also parses as flow_manager v2 accepts it.
 * Protection: over a primary and a backup path, each UNI's push flow goes
 * to a fast-failover group whose buckets carry on as each path's push flow
 * did, watching its first port; both paths' pop and inside flows stay; the
 * groups are ones gm_json accepts; mismatched layouts are refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eline_layout.h"
#include "flow_json.h"
#include "gm_json.h"
#include "json_u64.h"

#define S1 0x1ull
#define S2 0x2ull
#define S3 0x3ull
#define COOKIE "12249790986447753780"    /* 0xaa00000000001234 */

static struct eline_evc evc_of(uint64_t a_dpid, uint32_t a_port, uint64_t z_dpid,
                               uint32_t z_port)
{
    struct eline_evc e;
    memset(&e, 0, sizeof(e));
    e.id = 0x1234;
    e.uni_a = (struct eline_end){a_dpid, a_port};
    e.uni_z = (struct eline_end){z_dpid, z_port};
    e.queue_id = -1;
    return e;
}

static struct eline_vlan vid(uint16_t v)
{
    struct eline_vlan x;
    memset(&x, 0, sizeof(x));
    x.kind = ELINE_VLAN_VID;
    x.vid = v;
    return x;
}

/* S1:2 - S2:3 (S-VLAN 10), S2:4 - S3:2 (11); UNIs S1:1 and S3:1. */
static const struct eline_link ring_path[2] = {
    {{S1, 2}, {S2, 3}, 10},
    {{S3, 2}, {S2, 4}, 11},     /* ends in either order */
};

/* got equals the JSON text want (integers above INT64_MAX allowed), and
 * every flow in it is one flow_manager v2 accepts. */
static void expect(json_t *got, const char *want)
{
    json_error_t je;
    json_t *w = json_u64_loadb(want, strlen(want), &je);
    if (!w)
        fail_msg("bad expected JSON: %s: %s", je.text, want);
    if (!json_equal(got, w)) {
        char *g = json_dumps(got, JSON_COMPACT);
        fail_msg("got  %s\nwant %s", g, want);
    }
    json_decref(w);
    const char *sw;
    json_t *v;
    json_object_foreach(got, sw, v) {
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(v, "flows"), i, f) {
            struct fm_flow ff;
            char err[256];
            if (flow_json_parse_json(f, false, &ff, NULL, err, sizeof(err)) != 0)
                fail_msg("%s flow %zu refused by flow_json: %s", sw, i, err);
        }
    }
}

#define FLOW(in, vlan, prio, acts)                                                              \
    "{\"match\": {\"in_port\": " #in vlan "}, \"cookie\": " COOKIE ", \"actions\": [" acts     \
    "], \"owner\": \"mef_eline\", \"table_id\": 0, \"priority\": " #prio "}"
#define OUT(p) "{\"action_type\": \"output\", \"port\": " #p "}"
#define SETV(v) "{\"action_type\": \"set_vlan\", \"vlan_id\": " #v "}"
#define PUSH(t) "{\"action_type\": \"push_vlan\", \"tag_type\": \"" t "\"}"
#define POP "{\"action_type\": \"pop_vlan\"}"
#define DLV(v) ", \"dl_vlan\": " #v
#define NNI_S2                                                                                  \
    "\"00:00:00:00:00:00:00:02\": {\"flows\": [" FLOW(3, DLV(10), 20000, SETV(11) ", " OUT(4))  \
    ", " FLOW(4, DLV(11), 20000, SETV(10) ", " OUT(3)) "]}"

static void test_different_vids_swap(void **state)
{
    (void)state;
    struct eline_evc e = evc_of(S1, 1, S3, 1);
    e.vlan_a = vid(100);
    e.vlan_z = vid(200);
    json_t *out;
    assert_int_equal(eline_layout(&e, ring_path, 2, &out), 0);
    /* A's frame tagged 100 leaves S1 tagged 10, crosses S2 as 11, and S3's
     * pop flow sets 200: no S-tag, the customer tag is the service's. */
    expect(out, "{" NNI_S2 ", "
           "\"00:00:00:00:00:00:00:01\": {\"flows\": ["
           FLOW(1, DLV(100), 20000, SETV(10) ", " OUT(2)) ", "
           FLOW(2, DLV(10), 20000, SETV(100) ", " OUT(1)) "]}, "
           "\"00:00:00:00:00:00:00:03\": {\"flows\": ["
           FLOW(1, DLV(200), 20000, SETV(11) ", " OUT(2)) ", "
           FLOW(2, DLV(11), 20000, SETV(200) ", " OUT(1)) "]}}");
    json_decref(out);
}

static void test_same_vid_gets_an_s_tag(void **state)
{
    (void)state;
    struct eline_evc e = evc_of(S1, 1, S3, 1);
    e.vlan_a = vid(100);
    e.vlan_z = vid(100);
    json_t *out;
    assert_int_equal(eline_layout(&e, ring_path, 2, &out), 0);
    expect(out, "{" NNI_S2 ", "
           "\"00:00:00:00:00:00:00:01\": {\"flows\": ["
           FLOW(1, DLV(100), 20000, PUSH("s") ", " SETV(10) ", " OUT(2)) ", "
           FLOW(2, DLV(10), 20000, POP ", " OUT(1)) "]}, "
           "\"00:00:00:00:00:00:00:03\": {\"flows\": ["
           FLOW(1, DLV(100), 20000, PUSH("s") ", " SETV(11) ", " OUT(2)) ", "
           FLOW(2, DLV(11), 20000, POP ", " OUT(1)) "]}}");
    json_decref(out);
}

static void test_untagged_to_tagged(void **state)
{
    (void)state;
    struct eline_evc e = evc_of(S1, 1, S3, 1);
    e.vlan_a = vid(0);                       /* "untagged" */
    e.vlan_z = vid(200);
    json_t *out;
    assert_int_equal(eline_layout(&e, &ring_path[0], 1, &out), -EINVAL);   /* S1-S2 only */
    assert_int_equal(eline_layout(&e, ring_path, 2, &out), 0);
    /* A's untagged frame gets a C-tag set to 10 (200 at S3's pop); Z's 200
     * comes back as 10 and S1 pops it. */
    expect(out, "{" NNI_S2 ", "
           "\"00:00:00:00:00:00:00:01\": {\"flows\": ["
           FLOW(1, DLV(0), 20000, PUSH("c") ", " SETV(10) ", " OUT(2)) ", "
           FLOW(2, DLV(10), 20000, POP ", " OUT(1)) "]}, "
           "\"00:00:00:00:00:00:00:03\": {\"flows\": ["
           FLOW(1, DLV(200), 20000, SETV(11) ", " OUT(2)) ", "
           FLOW(2, DLV(11), 20000, SETV(200) ", " OUT(1)) "]}}");
    json_decref(out);
}

static void test_epl_one_link_and_options(void **state)
{
    (void)state;
    struct eline_evc e = evc_of(S1, 1, S2, 7);
    e.queue_id = 3;
    json_t *out;
    assert_int_equal(eline_layout(&e, ring_path, 1, &out), 0);
#define Q "{\"action_type\": \"set_queue\", \"queue_id\": 3}, "
    /* The whole port under an S-tag; popped at the far end. */
    expect(out, "{\"00:00:00:00:00:00:00:01\": {\"flows\": ["
           FLOW(1, "", 10000, PUSH("s") ", " SETV(10) ", " Q OUT(2)) ", "
           FLOW(2, DLV(10), 20000, POP ", " Q OUT(1)) "]}, "
           "\"00:00:00:00:00:00:00:02\": {\"flows\": ["
           FLOW(7, "", 10000, PUSH("s") ", " SETV(10) ", " Q OUT(3)) ", "
           FLOW(3, DLV(10), 20000, POP ", " Q OUT(7)) "]}}");
    json_decref(out);
    e.queue_id = -1;
    e.sb_priority = 777;                     /* every flow */
    assert_int_equal(eline_layout(&e, ring_path, 1, &out), 0);
    expect(out, "{\"00:00:00:00:00:00:00:01\": {\"flows\": ["
           FLOW(1, "", 777, PUSH("s") ", " SETV(10) ", " OUT(2)) ", "
           FLOW(2, DLV(10), 777, POP ", " OUT(1)) "]}, "
           "\"00:00:00:00:00:00:00:02\": {\"flows\": ["
           FLOW(7, "", 777, PUSH("s") ", " SETV(10) ", " OUT(3)) ", "
           FLOW(3, DLV(10), 777, POP ", " OUT(7)) "]}}");
    json_decref(out);
}

static void test_range_to_vid(void **state)
{
    (void)state;
    const uint16_t r[1][2] = {{100, 103}};
    struct eline_evc e = evc_of(S1, 1, S2, 7);
    assert_int_equal(eline_vlan_from_ranges(r, 1, &e.vlan_a), 0);
    e.vlan_z = vid(300);
    json_t *out;
    assert_int_equal(eline_layout(&e, ring_path, 1, &out), 0);
    /* 100..103 matched as one value/mask; Z's 300 set, then the S-tag. */
    expect(out, "{\"00:00:00:00:00:00:00:01\": {\"flows\": ["
           FLOW(1, DLV("100/4092"), 20000, SETV(300) ", " PUSH("s") ", " SETV(10) ", " OUT(2))
           ", " FLOW(2, DLV(10), 20000, POP ", " OUT(1)) "]}, "
           "\"00:00:00:00:00:00:00:02\": {\"flows\": ["
           FLOW(7, DLV(300), 20000, PUSH("s") ", " SETV(10) ", " OUT(3)) ", "
           FLOW(3, DLV(10), 20000, POP ", " OUT(7)) "]}}");
    json_decref(out);
}

static void test_intra_switch(void **state)
{
    (void)state;
    struct eline_evc e = evc_of(S1, 1, S1, 2);
    json_t *out;

    e.vlan_a = vid(100);
    e.vlan_z = vid(200);
    assert_int_equal(eline_layout(&e, NULL, 0, &out), 0);
    expect(out, "{\"00:00:00:00:00:00:00:01\": {\"flows\": ["
           FLOW(1, DLV(100), 20000, SETV(200) ", " OUT(2)) ", "
           FLOW(2, DLV(200), 20000, SETV(100) ", " OUT(1)) "]}}");
    json_decref(out);

    e.vlan_a = (struct eline_vlan){.kind = ELINE_VLAN_NONE};
    assert_int_equal(eline_layout(&e, NULL, 0, &out), 0);
    expect(out, "{\"00:00:00:00:00:00:00:01\": {\"flows\": ["
           FLOW(1, "", 10000, PUSH("c") ", " SETV(200) ", " OUT(2)) ", "
           FLOW(2, DLV(200), 20000, OUT(1)) "]}}");
    json_decref(out);

    e.vlan_a = (struct eline_vlan){.kind = ELINE_VLAN_ANY};
    e.vlan_z = vid(0);
    assert_int_equal(eline_layout(&e, NULL, 0, &out), 0);
    expect(out, "{\"00:00:00:00:00:00:00:01\": {\"flows\": ["
           FLOW(1, DLV("4096/4096"), 15000, POP ", " OUT(2)) ", "
           FLOW(2, DLV(0), 20000, OUT(1)) "]}}");
    json_decref(out);

    e.uni_z.dpid = S2;                      /* two switches, no path */
    assert_int_equal(eline_layout(&e, NULL, 0, &out), -EINVAL);
    assert_null(out);
}

#define MFLOW(in, vlan, prio, m, acts)                                                          \
    "{\"match\": {\"in_port\": " #in vlan "}, \"cookie\": " COOKIE ", \"instructions\": ["      \
    "{\"instruction_type\": \"meter\", \"meter_id\": " #m "}, {\"instruction_type\": "          \
    "\"apply_actions\", \"actions\": [" acts "]}], \"owner\": \"mef_eline\", \"table_id\": 0, " \
    "\"priority\": " #prio "}"

/* Metered: only what enters at a UNI goes through that UNI's meter (the
 * push flows at the ends, both directions of an intra-switch EVC, each its
 * own); the path's flows and the pop flows are left as they were. */
static void test_metered(void **state)
{
    (void)state;
    struct eline_evc e = evc_of(S1, 1, S3, 1);
    json_t *out;

    e.vlan_a = vid(100);
    e.vlan_z = vid(200);
    assert_int_equal(eline_layout(&e, ring_path, 2, &out), 0);
    assert_int_equal(eline_layout_meter(&e, out, 7, 9), 0);
    expect(out, "{\"00:00:00:00:00:00:00:01\": {\"flows\": ["
           MFLOW(1, DLV(100), 20000, 7, SETV(10) ", " OUT(2)) ", "
           FLOW(2, DLV(10), 20000, SETV(100) ", " OUT(1)) "]}, "
           NNI_S2 ", "
           "\"00:00:00:00:00:00:00:03\": {\"flows\": ["
           MFLOW(1, DLV(200), 20000, 9, SETV(11) ", " OUT(2)) ", "
           FLOW(2, DLV(11), 20000, SETV(200) ", " OUT(1)) "]}}");
    json_decref(out);

    e = evc_of(S1, 1, S1, 2);
    e.vlan_a = vid(100);
    e.vlan_z = vid(200);
    assert_int_equal(eline_layout(&e, NULL, 0, &out), 0);
    assert_int_equal(eline_layout_meter(&e, out, 0, 4), 0);     /* 0: uni_a unmetered */
    expect(out, "{\"00:00:00:00:00:00:00:01\": {\"flows\": ["
           FLOW(1, DLV(100), 20000, SETV(200) ", " OUT(2)) ", "
           MFLOW(2, DLV(200), 20000, 4, SETV(100) ", " OUT(1)) "]}}");
    json_decref(out);

    /* Both UNIs on one port (two VLANs): each direction its own meter (the
     * first UNI's took both before). */
    e = evc_of(S1, 5, S1, 5);
    e.vlan_a = vid(100);
    e.vlan_z = vid(200);
    assert_int_equal(eline_layout(&e, NULL, 0, &out), 0);
    assert_int_equal(eline_layout_meter(&e, out, 3, 4), 0);
    expect(out, "{\"00:00:00:00:00:00:00:01\": {\"flows\": ["
           MFLOW(5, DLV(100), 20000, 3, SETV(200) ", " OUT(5)) ", "
           MFLOW(5, DLV(200), 20000, 4, SETV(100) ", " OUT(5)) "]}}");
    json_decref(out);

    json_t *m = eline_layout_meter_body(4, 100000);
    char *t = json_dumps(m, JSON_COMPACT | JSON_SORT_KEYS);
    assert_string_equal(t, "{\"bands\":[{\"burst_size\":10000,\"rate\":100000,\"type\":"
                           "\"drop\"}],\"flags\":[\"kbps\",\"burst\",\"stats\"],\"meter_id\":4}");
    free(t);
    json_decref(m);
}

static void test_ranges_as_masks(void **state)
{
    (void)state;
    struct eline_vlan v;
    const uint16_t one[1][2] = {{5, 5}}, top[1][2] = {{4094, 4095}}, two[2][2] = {{1, 6}, {9, 9}};
    const uint16_t bad[1][2] = {{10, 9}}, all[1][2] = {{1, 4095}};

    assert_int_equal(eline_vlan_from_ranges(one, 1, &v), 0);
    assert_int_equal(v.n_masks, 1);
    assert_string_equal(v.masks[0], "5/4095");
    assert_int_equal(eline_vlan_from_ranges(top, 1, &v), 0);
    assert_int_equal(v.n_masks, 1);
    assert_string_equal(v.masks[0], "4094/4094");
    assert_int_equal(eline_vlan_from_ranges(two, 2, &v), 0);
    assert_int_equal(v.n_masks, 5);         /* 1, 2-3, 4-5, 6; then 9 */
    assert_string_equal(v.masks[0], "1/4095");
    assert_string_equal(v.masks[1], "2/4094");
    assert_string_equal(v.masks[2], "4/4094");
    assert_string_equal(v.masks[3], "6/4095");
    assert_string_equal(v.masks[4], "9/4095");
    assert_int_equal(eline_vlan_from_ranges(all, 1, &v), 0);
    assert_int_equal(v.n_masks, 12);        /* 1, 2/2, 4/4, ... 2048/2048 */
    assert_string_equal(v.masks[11], "2048/2048");
    assert_int_equal(eline_vlan_from_ranges(bad, 1, &v), -EINVAL);
}

static void test_protected(void **state)
{
    (void)state;
    /* Primary: the chord S1:3 - S3:3 (S-VLAN 10); backup through S2. */
    const struct eline_link primary[1] = {{{S1, 3}, {S3, 3}, 10}};
    const struct eline_link backup[2] = {{{S1, 2}, {S2, 2}, 11}, {{S2, 3}, {S3, 2}, 12}};
    struct eline_evc e = evc_of(S1, 1, S3, 1);
    e.vlan_a = vid(100);
    e.vlan_z = vid(200);
    json_t *p, *b, *out, *groups;
    assert_int_equal(eline_layout(&e, primary, 1, &p), 0);
    assert_int_equal(eline_layout(&e, backup, 2, &b), 0);
    assert_int_equal(eline_layout_protect(&e, 5, p, b, &out, &groups), 0);
#define GRP "{\"action_type\": \"group\", \"group_id\": 5}"
    expect(out, "{\"00:00:00:00:00:00:00:01\": {\"flows\": ["
           FLOW(1, DLV(100), 20000, GRP) ", "
           FLOW(3, DLV(10), 20000, SETV(100) ", " OUT(1)) ", "
           FLOW(2, DLV(11), 20000, SETV(100) ", " OUT(1)) "]}, "
           "\"00:00:00:00:00:00:00:03\": {\"flows\": ["
           FLOW(1, DLV(200), 20000, GRP) ", "
           FLOW(3, DLV(10), 20000, SETV(200) ", " OUT(1)) ", "
           FLOW(2, DLV(12), 20000, SETV(200) ", " OUT(1)) "]}, "
           "\"00:00:00:00:00:00:00:02\": {\"flows\": ["
           FLOW(2, DLV(11), 20000, SETV(12) ", " OUT(3)) ", "
           FLOW(3, DLV(12), 20000, SETV(11) ", " OUT(2)) "]}}");
    json_error_t je;
    const char *want = "{\"00:00:00:00:00:00:00:01\": {\"group_id\": 5, \"type\": \"fast_failover\","
                       " \"buckets\": [{\"watch_port\": 3, \"actions\": [" SETV(10) ", " OUT(3) "]},"
                       " {\"watch_port\": 2, \"actions\": [" SETV(11) ", " OUT(2) "]}]},"
                       " \"00:00:00:00:00:00:00:03\": {\"group_id\": 5, \"type\": \"fast_failover\","
                       " \"buckets\": [{\"watch_port\": 3, \"actions\": [" SETV(10) ", " OUT(3) "]},"
                       " {\"watch_port\": 2, \"actions\": [" SETV(12) ", " OUT(2) "]}]}}";
    json_t *w = json_loads(want, 0, &je);
    assert_non_null(w);
    assert_true(json_equal(groups, w));
    json_decref(w);
    const char *k;
    json_t *g;
    json_object_foreach(groups, k, g) {
        static uint8_t wire[GM_JSON_WIRE_MAX];
        char *text = json_dumps(g, JSON_COMPACT), err[256];
        size_t len;
        uint32_t id;
        assert_int_equal(gm_json_group(text, strlen(text), wire, &len, &id, err, sizeof(err)), 0);
        assert_int_equal(id, 5);
        free(text);
    }
    json_decref(out);
    json_decref(groups);
    /* Not one EVC's two layouts: refused. */
    struct eline_evc other = e;
    other.vlan_z = vid(300);
    json_t *b2;
    assert_int_equal(eline_layout(&other, backup, 2, &b2), 0);
    assert_int_equal(eline_layout_protect(&e, 5, p, b2, &out, &groups), -EINVAL);
    assert_null(out);
    json_decref(b2);
    json_decref(p);
    json_decref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_different_vids_swap),
        cmocka_unit_test(test_same_vid_gets_an_s_tag),
        cmocka_unit_test(test_untagged_to_tagged),
        cmocka_unit_test(test_epl_one_link_and_options),
        cmocka_unit_test(test_range_to_vid),
        cmocka_unit_test(test_intra_switch),
        cmocka_unit_test(test_ranges_as_masks),
        cmocka_unit_test(test_protected),
        cmocka_unit_test(test_metered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
