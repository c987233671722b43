/*
 * libFuzzer target for the REST flow parser, as REST reads a body: the
 * bytes onto a json_tape, which must agree with jansson (json_u64_loadb)
 * on whether they are JSON and on every value and span (jt_json_agree);
 * an object then goes through flow_json_parse() (as an add or, when the
 * first byte is odd, a delete). Whatever it accepts must encode as a
 * FLOW_MOD, render back to JSON (the typed flow with how it was written),
 * and that JSON must parse to a flow with the same match_id and flow_id
 * (the store's identity of a flow survives a restart). The same object
 * also goes through the group and meter parsers (gm_json.h): what they
 * accept must decode (ofp_decode, which validates) as the ADD GROUP_MOD or
 * METER_MOD of the id they said. And through the EVC parser (eline_req.h):
 * an EVC it accepts is laid out (eline_layout.h, over a link between its
 * UNIs' switches, or none when they share one) into flows every one of
 * which flow_json accepts; its schedules (eline_sched.h), once accepted,
 * read again the same and fire next after the time asked, never before.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow_json.h"
#include "eline_layout.h"
#include "eline_req.h"
#include "eline_sched.h"
#include "gm_json.h"
#include "jt_json.h"
#include "json_u64.h"
#include "ofp_msg.h"

static uint8_t wire[65536];

/* A group or meter the parsers accepted: a valid ADD of that id. */
static void gm_check(const char *text, size_t len)
{
    char err[256];
    size_t wlen;
    uint32_t id;
    struct ofp_msg m;
    struct ofp_err oe;

    if (gm_json_group(text, len, wire, &wlen, &id, err, sizeof(err)) == 0 &&
        (ofp_decode(wire, wlen, &m, &oe) != 0 || m.hdr.type != OFPT_GROUP_MOD ||
         m.u.group_mod.command != OFPGC_ADD || m.u.group_mod.group_id != id))
        abort();
    if (gm_json_meter(text, len, wire, &wlen, &id, err, sizeof(err)) == 0 &&
        (ofp_decode(wire, wlen, &m, &oe) != 0 || m.hdr.type != OFPT_METER_MOD ||
         m.u.meter_mod.command != OFPMC_ADD || m.u.meter_mod.meter_id != id))
        abort();
}

/* An EVC the parser accepted: its flows are flows. */
static void evc_check(const char *text, size_t len)
{
    static struct eline_req r;
    static struct fm_flow f;
    char err[512];
    json_error_t je;
    json_t *body = json_loadb(text, len, 0, &je), *flows = NULL;

    if (!body || eline_req_parse(body, &r, err, sizeof(err)) != 0) {
        json_decref(body);
        return;
    }
    /* Its schedules read and reckoned as the worker would (bounded). */
    if (eline_req_check_times(&r, err, sizeof(err)) == 0) {
        size_t i;
        json_t *item;
        json_array_foreach(r.circuit_scheduler, i, item) {
            struct eline_sched s;
            if (eline_sched_parse(item, "", &s, err, sizeof(err)) != 0)
                abort();                /* accepted above, refused here */
            int64_t t = eline_sched_next(&s, 1796601600ll, 0, 0, 1796601600ll);
            if (t >= 0 && t <= 1796601600ll)
                abort();                /* a next firing not after the time asked */
        }
    }
    json_t *ua = eline_uni_json(&r.uni_a), *uz = eline_uni_json(&r.uni_z);
    if (!ua || !uz)
        abort();
    json_decref(ua);
    json_decref(uz);
    struct eline_evc e = {.id = 0x1234, .uni_a = r.uni_a.at, .uni_z = r.uni_z.at,
                          .vlan_a = r.uni_a.vlan, .vlan_z = r.uni_z.vlan,
                          .queue_id = r.queue_id, .sb_priority = (uint16_t)(r.sb_priority > 0 ?
                                                                             r.sb_priority : 0)};
    if (!r.uni_a.has_tag)
        e.vlan_a.kind = ELINE_VLAN_NONE;
    if (!r.uni_z.has_tag)
        e.vlan_z.kind = ELINE_VLAN_NONE;
    struct eline_link l = {.a = {r.uni_a.at.dpid, 4000}, .b = {r.uni_z.at.dpid, 4001}, .s_vlan = 7};
    size_t n = r.uni_a.at.dpid == r.uni_z.at.dpid ? 0 : 1;
    if (eline_layout(&e, &l, n, &flows) != 0)
        abort();
    const char *sw;
    json_t *v;
    json_object_foreach(flows, sw, v) {
        size_t i;
        json_t *fl;
        json_array_foreach(json_object_get(v, "flows"), i, fl)
            if (flow_json_parse_json(fl, false, &f, NULL, err, sizeof(err)) != 0) {
                fprintf(stderr, "an EVC's flow refused: %s\n", err);
                abort();
            }
    }
    json_decref(flows);
    json_decref(body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct fm_flow f, g;
    static struct flow_json_form ff, gf;
    char err[256];
    json_error_t je;

    static struct jt_tape t;

    if (size == 0)
        return 0;
    bool del = data[0] & 1;
    const char *text = (const char *)data + 1;
    if (jt_json_agree(text, size - 1, err, sizeof(err)) != 0) {
        fprintf(stderr, "tape and jansson disagree: %s\n", err);
        abort();
    }
    if (jt_parse(&t, text, size - 1, 0) != 0)
        return 0;
    if (jt_is_object(jt_root(&t))) {
        gm_check(text, size - 1);
        evc_check(text, size - 1);
    }
    if (jt_is_object(jt_root(&t)) &&
        flow_json_parse(jt_root(&t), del, &f, &ff, err, sizeof(err)) == 0) {
        struct ofp_msg m;
        struct ofp_buf b;
        memset(&m, 0, sizeof(m));
        m.hdr.version = OFP13_VERSION;
        m.hdr.type = OFPT_FLOW_MOD;
        m.u.flow_mod = f.mod;
        ofp_buf_init(&b, wire, sizeof(wire));
        if (ofp_encode(&b, &m) != 0)
            abort();
        json_t *r = flow_json_render(&f, &ff);
        if (!r)
            abort();
        if (flow_json_parse_json(r, del, &g, &gf, err, sizeof(err)) != 0)
            abort();
        if (fm_flow_match_id(1, &f) != fm_flow_match_id(1, &g) ||
            fm_flow_id(1, &f) != fm_flow_id(1, &g))
            abort();
        /* And as text, the way REST answers and reads it: the same JSON. */
        char *dumped = json_dumps(r, JSON_COMPACT);
        if (!dumped)
            abort();
        json_u64_fixup(dumped);
        json_t *back = json_u64_loadb(dumped, strlen(dumped), &je);
        if (!back || !json_equal(back, r))
            abort();
        json_decref(back);
        free(dumped);
        json_decref(r);
    }
    return 0;
}
