/*
 * test_rest_flowstats: GET .../v2/flows as a client reads it — the flows each
 * switch reported in its last complete flow-statistics reply, rendered as
 * Kytos-ng shows them (the flow, switch, id, match_id, stats), streamed one
 * switch at a time. The text is compared byte for byte with what ofcd
 * answered before the flow manager spoke typed flows (dcf1693), so moving
 * the JSON out of the flow manager changed nothing a client sees. A real
 * flow manager over a real store, fed the workers' events, behind a fake
 * way to the switches.
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
#include <unistd.h>

#include "flow_json.h"
#include "fm.h"
#include "json_u64.h"
#include "of_event.h"
#include "ofp_msg.h"
#include "ofp_test_util.h"
#include "rest_priv.h"
#include "store.h"

#define DPID_A 0x1001ull
#define DPID_B 0x2002ull

struct t {
    char dir[64];
    struct store *store;
    struct fm *fm;
    uint64_t now;
};

static unsigned f_room(void *arg, conn_handle_t conn, uint8_t cls)
{
    (void)arg;
    (void)conn;
    (void)cls;
    return 1000;
}

static int f_send(void *arg, conn_handle_t conn, const uint8_t *msg, size_t len, uint8_t cls)
{
    (void)arg;
    (void)conn;
    (void)msg;
    (void)len;
    (void)cls;
    return 0;
}

static uint64_t f_now(void *arg)
{
    return ((struct t *)arg)->now;
}

static int setup(void **state)
{
    struct t *t = calloc(1, sizeof(*t));
    assert_non_null(t);
    strcpy(t->dir, "/tmp/test_rest_flowstats.XXXXXX");
    assert_non_null(mkdtemp(t->dir));
    struct store_config sc = {.dir = t->dir};
    t->store = store_open(&sc);
    assert_non_null(t->store);
    t->now = 1000000000ull;
    struct fm_cfg cfg = {.queue_max = 1000, .window_us = 10000000ull};
    struct fm_env env = {.arg = t, .room = f_room, .send = f_send, .now_us = f_now,
                              .decode = flow_json_record};
    t->fm = fm_create(&cfg, &env, t->store);
    assert_non_null(t->fm);
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    struct t *t = *state;
    char path[128];
    store_close(t->store);              /* ofcd's order: app/main.c close_flow_store */
    fm_destroy(t->fm);
    snprintf(path, sizeof(path), "%s/data.mdb", t->dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/lock.mdb", t->dir);
    unlink(path);
    rmdir(t->dir);
    free(t);
    return 0;
}

static void worker_event(struct t *t, uint64_t dpid, uint16_t kind, const uint8_t *msg,
                         size_t len)
{
    struct of_event_hdr h = {.dpid = dpid, .time_us = t->now};
    struct qmsg *q = calloc(1, sizeof(*q) + sizeof(h) + len);
    assert_non_null(q);
    q->kind = kind;
    q->conn = dpid;                 /* one connection per switch */
    q->len = (uint32_t)(sizeof(h) + len);
    memcpy(q->data, &h, sizeof(h));
    if (len)
        memcpy(q->data + sizeof(h), msg, len);
    fm_on_event(t->fm, q);
    free(q);
}

/* A complete FLOW statistics reply of dpid to the worker's poll (xid 0x300). */
static void stats_reply(struct t *t, uint64_t dpid, const struct ofp_flow_stats *fs, unsigned n)
{
    static uint8_t msg[65536];
    size_t len = ofp_test_flow_reply(fs, n, 0x300, false, msg, sizeof(msg));

    worker_event(t, dpid, QMSG_EV_OF, msg, len);
}

/* The switch reports the flow the Kytos JSON text describes. *f keeps what
 * the entry's action lists point into. */
static void entry_from(const char *text, struct fm_flow *f, uint32_t dur_s, uint32_t dur_ns,
                       uint64_t packets, uint64_t bytes, struct ofp_flow_stats *fs)
{
    char err[256];
    json_error_t je;
    json_t *j = json_u64_loadb(text, strlen(text), &je);

    assert_non_null(j);
    if (flow_json_parse_json(j, false, f, NULL, err, sizeof(err)) != 0)
        fail_msg("%s: %s", text, err);
    json_decref(j);
    memset(fs, 0, sizeof(*fs));
    fs->table_id = f->mod.table_id;
    fs->priority = f->mod.priority;
    fs->cookie = f->mod.cookie;
    fs->idle_timeout = f->mod.idle_timeout;
    fs->hard_timeout = f->mod.hard_timeout;
    fs->match = f->mod.match;
    fs->inst = f->mod.inst;
    fs->duration_sec = dur_s;
    fs->duration_nsec = dur_ns;
    fs->packet_count = packets;
    fs->byte_count = bytes;
}

/* The whole streamed answer to GET v2/flows[/arg], as a client reads it. */
static char *get_flows(struct t *t, const char *arg, unsigned *status)
{
    struct rest_server *rs = calloc(1, sizeof(*rs));
    struct rest_req q = {0};
    struct rest_reply r = {0};
    size_t len = 0, cap = 1 << 16;
    char *text = malloc(cap);
    ssize_t n;

    assert_non_null(rs);
    assert_non_null(text);
    rs->src.fm = t->fm;
    rs->src.store = t->store;
    q.rs = rs;
    q.method = "GET";
    q.arg = arg;
    rest_flows_get(&q, &r);
    *status = r.status;
    if (!r.stream) {
        char *body = r.json ? json_dumps(r.json, JSON_COMPACT) : NULL;
        json_decref(r.json);
        free(text);
        free(rs);
        return body;
    }
    /* Small reads: a piece never has to fit the client's buffer. */
    while ((n = r.stream(r.stream_ctx, text + len, len + 97 < cap ? 97 : cap - len - 1)) > 0)
        len += (size_t)n;
    assert_int_equal(n, 0);
    text[len] = '\0';
    r.stream_free(r.stream_ctx);
    free(rs);
    return text;
}

#define N_ENTRIES 6

static const char *const entry_json[N_ENTRIES - 1] = {
    "{\"priority\": 100, \"idle_timeout\": 30, \"cookie\": 18446744073709551615, \"match\": "
    "{\"in_port\": 1, \"dl_type\": 2048, \"nw_src\": \"10.0.0.0/8\"}, \"actions\": "
    "[{\"action_type\": \"output\", \"port\": 2}]}",
    "{\"table_id\": 1, \"priority\": 5, \"hard_timeout\": 9, \"instructions\": ["
    "{\"instruction_type\": \"meter\", \"meter_id\": 3}, {\"instruction_type\": "
    "\"apply_actions\", \"actions\": [{\"action_type\": \"set_vlan\", \"vlan_id\": 5}, "
    "{\"action_type\": \"output\", \"port\": \"controller\"}]}, {\"instruction_type\": "
    "\"goto_table\", \"table_id\": 4}]}",
    "{\"priority\": 0}",
    "{\"priority\": 7, \"cookie\": 4660, \"match\": {\"nw_proto\": 6, \"dl_type\": 2048, "
    "\"tp_dst\": 80, \"dl_src\": \"0A:00:00:00:00:01\"}, \"actions\": [{\"action_type\": "
    "\"push_vlan\", \"tag_type\": \"s\"}, {\"action_type\": \"set_field\", \"field\": "
    "\"dl_vlan\", \"value\": 7}]}",
    "{\"priority\": 8, \"instructions\": [{\"instruction_type\": \"write_actions\", "
    "\"actions\": [{\"action_type\": \"group\", \"group_id\": 1}]}, {\"instruction_type\": "
    "\"write_metadata\", \"metadata\": 1, \"metadata_mask\": 255}, {\"instruction_type\": "
    "\"clear_actions\"}]}",
};

/* Switch A reports the flows above and one with 33 actions (more than a
 * flow of ofcd's holds: not shown); switch B is up and has reported none. */
static void report(struct t *t, struct fm_flow *specs, struct ofp_action *many)
{
    struct ofp_flow_stats fs[N_ENTRIES];

    worker_event(t, DPID_A, QMSG_EV_SWITCH_UP, NULL, 0);
    worker_event(t, DPID_B, QMSG_EV_SWITCH_UP, NULL, 0);
    entry_from(entry_json[0], &specs[0], 7, 500000000, 5, 300, &fs[0]);
    entry_from(entry_json[1], &specs[1], 0, 0, 0x8000000000000005ull, 1, &fs[1]);
    entry_from(entry_json[2], &specs[2], 4294967295u, 999999999, 0, UINT64_MAX, &fs[2]);
    entry_from(entry_json[3], &specs[3], 1, 2, 3, 4, &fs[3]);
    entry_from(entry_json[4], &specs[4], 5, 6, 7, 8, &fs[4]);
    fs[5] = fs[0];
    fs[5].priority = 101;
    for (unsigned i = 0; i < 33; i++)
        many[i] = (struct ofp_action){.type = OFPAT_OUTPUT, .u.output = {.port = i + 1}};
    fs[5].inst.apply_actions.arr = many;
    fs[5].inst.apply_actions.n = 33;
    stats_reply(t, DPID_A, fs, N_ENTRIES);
}

/* Switch A's part of the answer, as ofcd wrote it before (dcf1693). */
static const char want_a[] =
    "\"00:00:00:00:00:00:10:01\":{\"flows\":[{\"table_id\":0,\"priority\":100,\"idle_time"
    "out\":30,\"hard_timeout\":0,\"cookie\":18446744073709551615,\"match\":{\"in_port\":1"
    ",\"dl_type\":2048,\"nw_src\":\"10.0.0.0/8\"},\"actions\":[{\"action_type\":\"output"
    "\",\"port\":2}],\"switch\":\"00:00:00:00:00:00:10:01\",\"id\":\"bdb9aa9e86b695c4\","
    "\"match_id\":\"d0cf6e7867cac3fa\",\"stats\":{\"packet_count\":5,\"byte_count\":300,"
    "\"duration_sec\":7,\"duration_nsec\":500000000}},{\"table_id\":1,\"priority\":5,\"id"
    "le_timeout\":0,\"hard_timeout\":9,\"cookie\":0,\"instructions\":[{\"instruction_type"
    "\":\"meter\",\"meter_id\":3},{\"instruction_type\":\"apply_actions\",\"actions\":[{"
    "\"action_type\":\"set_field\",\"field\":\"dl_vlan\",\"value\":5},{\"action_type\":\""
    "output\",\"port\":4294967293}]},{\"instruction_type\":\"goto_table\",\"table_id\":4}"
    "],\"switch\":\"00:00:00:00:00:00:10:01\",\"id\":\"d4c2c940416a5d32\",\"match_id\":\""
    "ffd94fc275750e29\",\"stats\":{\"packet_count\":-9223372036854775803,\"byte_count\":1"
    ",\"duration_sec\":0,\"duration_nsec\":0}},{\"table_id\":0,\"priority\":0,\"idle_time"
    "out\":0,\"hard_timeout\":0,\"cookie\":0,\"actions\":[],\"switch\":\"00:00:00:00:00:0"
    "0:10:01\",\"id\":\"ce32659c375bc5cb\",\"match_id\":\"7a58070580f53cfd\",\"stats\":{"
    "\"packet_count\":0,\"byte_count\":-1,\"duration_sec\":4294967295,\"duration_nsec\":9"
    "99999999}},{\"table_id\":0,\"priority\":7,\"idle_timeout\":0,\"hard_timeout\":0,\"co"
    "okie\":4660,\"match\":{\"dl_src\":\"0a:00:00:00:00:01\",\"dl_type\":2048,\"nw_proto"
    "\":6,\"tp_dst\":80},\"actions\":[{\"action_type\":\"push_vlan\",\"tag_type\":\"s\"},"
    "{\"action_type\":\"set_field\",\"field\":\"dl_vlan\",\"value\":7}],\"switch\":\"00:0"
    "0:00:00:00:00:10:01\",\"id\":\"3058ed1a8e799d13\",\"match_id\":\"c8cfd11f66c174c5\","
    "\"stats\":{\"packet_count\":3,\"byte_count\":4,\"duration_sec\":1,\"duration_nsec\":"
    "2}},{\"table_id\":0,\"priority\":8,\"idle_timeout\":0,\"hard_timeout\":0,\"cookie\":"
    "0,\"instructions\":[{\"instruction_type\":\"clear_actions\"},{\"instruction_type\":"
    "\"write_actions\",\"actions\":[{\"action_type\":\"group\",\"group_id\":1}]},{\"instr"
    "uction_type\":\"write_metadata\",\"metadata\":1,\"metadata_mask\":255}],\"switch\":"
    "\"00:00:00:00:00:00:10:01\",\"id\":\"a2c73e9a3facff49\",\"match_id\":\"15aab1f225cce"
    "d95\",\"stats\":{\"packet_count\":7,\"byte_count\":8,\"duration_sec\":5,\"duration_n"
    "sec\":6}}]}";

static void test_get_flows_unchanged(void **state)
{
    struct t *t = *state;
    static struct fm_flow specs[N_ENTRIES];
    static struct ofp_action many[33];
    char want[sizeof(want_a) + 64];
    unsigned status;

    report(t, specs, many);
    /* Every switch: A's flows, then B with none. */
    char *text = get_flows(t, NULL, &status);
    assert_int_equal(status, 200);
    snprintf(want, sizeof(want), "{%s,\"00:00:00:00:00:00:20:02\":{\"flows\":[]}}", want_a);
    assert_string_equal(text, want);
    free(text);
    /* One switch. */
    text = get_flows(t, "00:00:00:00:00:00:10:01", &status);
    assert_int_equal(status, 200);
    snprintf(want, sizeof(want), "{%s}", want_a);
    assert_string_equal(text, want);
    free(text);
    text = get_flows(t, "00:00:00:00:00:00:20:02", &status);
    assert_int_equal(status, 200);
    assert_string_equal(text, "{\"00:00:00:00:00:00:20:02\":{\"flows\":[]}}");
    free(text);
    /* One never seen: 404, before the answer starts. */
    text = get_flows(t, "00:00:00:00:00:00:30:03", &status);
    assert_int_equal(status, 404);
    assert_string_equal(text, "{\"code\":404,\"description\":\"switch "
                              "00:00:00:00:00:00:30:03 is not known\"}");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_get_flows_unchanged, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
