/* eline_flows: see eline_flows.h. */
#include "eline_flows.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpid.h"
#include "flow_json.h"
#include "fm.h"
#include "fm_change.h"
#include "json_u64.h"
#include "ofp_oxm.h"

/* What one add holds until the store is done with it. */
struct add_job {
    struct store_flow *recs;
    struct fm_add_one *adds;
    struct fm_change_part *parts;
    char **texts;
    uint8_t **wires;
    size_t n, n_parts;
};

static void add_job_free(struct add_job *j)
{
    for (size_t i = 0; i < j->n; i++) {
        free(j->texts ? j->texts[i] : NULL);
        free(j->wires ? j->wires[i] : NULL);
    }
    free(j->recs);
    free(j->adds);
    free(j->parts);
    free(j->texts);
    free(j->wires);
}

/* One flow object into slot k of j, for dpid. */
static int add_one(struct add_job *j, size_t k, uint64_t dpid, json_t *flow, struct fm_flow *f,
                   char *err, size_t errlen)
{
    uint8_t small[FM_FLOW_WIRE_SMALL];
    size_t len;

    if (flow_json_parse_json(flow, false, f, NULL, err, errlen) != 0)
        return -EINVAL;
    char *text = json_dumps(flow, JSON_COMPACT);
    if (!text)
        return -ENOMEM;
    j->texts[k] = text;
    size_t text_len = json_u64_fixup(text);
    int rc = fm_flow_mod_encode(&f->mod, small, sizeof(small), &len);
    if (rc < 0) {
        snprintf(err, errlen, "a flow of %016llx cannot be encoded", (unsigned long long)dpid);
        return rc == -ENOSPC ? -E2BIG : rc;
    }
    if (!(j->wires[k] = malloc(len)))
        return -ENOMEM;
    memcpy(j->wires[k], small, len);
    uint64_t mid = fm_flow_match_id(dpid, f), fid = fm_flow_id_of(mid, f);
    j->recs[k] = (struct store_flow){.dpid = dpid, .match_id = mid, .flow_id = fid,
                                     .state = STORE_FLOW_PENDING, .owner = ELINE_OWNER,
                                     .json = text, .json_len = text_len};
    j->adds[k] = (struct fm_add_one){mid, fid, ELINE_OWNER, j->wires[k], len};
    return 0;
}

int eline_flows_add(struct fm *fm, json_t *by_switch, char *err, size_t errlen)
{
    struct add_job j = {0};
    const char *key;
    json_t *sw;
    size_t total = 0, k = 0;
    int rc = 0;

    json_object_foreach(by_switch, key, sw)
        total += json_array_size(json_object_get(sw, "flows"));
    j.n = total;
    j.recs = calloc(total ? total : 1, sizeof(*j.recs));
    j.adds = calloc(total ? total : 1, sizeof(*j.adds));
    j.texts = calloc(total ? total : 1, sizeof(*j.texts));
    j.wires = calloc(total ? total : 1, sizeof(*j.wires));
    j.parts = calloc(json_object_size(by_switch) + 1, sizeof(*j.parts));
    struct fm_flow *f = malloc(sizeof(*f));
    if (!j.recs || !j.adds || !j.texts || !j.wires || !j.parts || !f)
        rc = -ENOMEM;
    json_object_foreach(by_switch, key, sw) {
        uint64_t dpid;
        size_t i;
        json_t *flow;
        if (rc < 0)
            break;
        if (dpid_parse(key, &dpid) < 0) {
            snprintf(err, errlen, "%s is not a dpid", key);
            rc = -EINVAL;
            break;
        }
        j.parts[j.n_parts] = (struct fm_change_part){.dpid = dpid, .adds = &j.adds[k]};
        json_array_foreach(json_object_get(sw, "flows"), i, flow) {
            if ((rc = add_one(&j, k, dpid, flow, f, err, errlen)) < 0)
                break;
            k++;
            j.parts[j.n_parts].n++;
        }
        j.n_parts++;
    }
    free(f);
    if (rc == 0 && total) {
        struct fm_change c = {.fm = fm, .parts = j.parts, .n_parts = j.n_parts,
                              .recs = j.recs, .n_recs = total};
        rc = fm_change_run(&c);
    }
    add_job_free(&j);
    return rc;
}

int eline_flows_remove(struct fm *fm, uint64_t cookie, const uint64_t *dpids, size_t n)
{
    struct fm_flow del;
    uint8_t wire[FM_FLOW_WIRE_SMALL];
    size_t len = 0, n_keys = 0, cap = 0;
    struct fm_key *keys = NULL;
    struct fm_sel sel = {ELINE_OWNER, wire, 0};
    struct fm_change_part *parts = calloc(n ? n : 1, sizeof(*parts));
    int rc = parts ? 0 : -ENOMEM;

    memset(&del, 0, sizeof(del));
    del.mod.command = OFPFC_DELETE;
    del.mod.table_id = OFPTT_ALL;
    del.mod.cookie = cookie;
    del.mod.cookie_mask = UINT64_MAX;
    del.mod.buffer_id = OFP_NO_BUFFER;
    del.mod.out_port = OFPP_ANY;
    del.mod.out_group = OFPG_ANY;
    ofp_match_init(&del.mod.match);
    if (rc == 0)
        rc = fm_flow_mod_encode(&del.mod, wire, sizeof(wire), &len);
    sel.len = len;
    for (size_t i = 0; i < n && rc == 0; i++) {
        rc = fm_delete_victims(fm, dpids[i], &del.mod, &keys, &n_keys, &cap);
        parts[i] = (struct fm_change_part){.dpid = dpids[i], .n = 1, .dels = &sel};
    }
    if (rc == 0) {
        struct fm_change c = {.fm = fm, .parts = parts, .n_parts = n, .victims = keys,
                              .n_victims = n_keys, .keep_deleted = true};
        rc = fm_change_run(&c);
    }
    free(keys);
    free(parts);
    return rc;
}

/* One flow object's strict DELETE (its match, priority and exact cookie),
 * into wire; its identity into *k. */
static int strict_del(uint64_t dpid, json_t *flow, struct fm_flow *f, uint8_t *wire, size_t cap,
                      size_t *len, struct fm_key *k)
{
    char err[128];

    if (flow_json_parse_json(flow, false, f, NULL, err, sizeof(err)) != 0)
        return -EINVAL;
    k->dpid = dpid;
    k->match_id = fm_flow_match_id(dpid, f);
    k->flow_id = fm_flow_id_of(k->match_id, f);
    f->mod.command = OFPFC_DELETE_STRICT;
    f->mod.cookie_mask = UINT64_MAX;
    f->mod.out_port = OFPP_ANY;
    f->mod.out_group = OFPG_ANY;
    return fm_flow_mod_encode(&f->mod, wire, cap, len);
}

int eline_flows_remove_exact(struct fm *fm, json_t *by_switch)
{
    const char *key;
    json_t *sw;
    size_t total = 0, k = 0, n_parts = 0;
    int rc = 0;

    json_object_foreach(by_switch, key, sw)
        total += json_array_size(json_object_get(sw, "flows"));
    if (!total)
        return 0;
    struct fm_key *keys = calloc(total, sizeof(*keys));
    struct fm_sel *sels = calloc(total, sizeof(*sels));
    uint8_t (*wires)[FM_FLOW_WIRE_SMALL] = calloc(total, sizeof(*wires));
    struct fm_change_part *parts = calloc(json_object_size(by_switch), sizeof(*parts));
    struct fm_flow *f = malloc(sizeof(*f));
    if (!keys || !sels || !wires || !parts || !f)
        rc = -ENOMEM;
    json_object_foreach(by_switch, key, sw) {
        uint64_t dpid;
        size_t i;
        json_t *flow;
        if (rc < 0)
            break;
        if (dpid_parse(key, &dpid) < 0) {
            rc = -EINVAL;
            break;
        }
        parts[n_parts] = (struct fm_change_part){.dpid = dpid, .dels = &sels[k]};
        json_array_foreach(json_object_get(sw, "flows"), i, flow) {
            size_t len;
            if ((rc = strict_del(dpid, flow, f, wires[k], sizeof(wires[k]), &len, &keys[k])) < 0)
                break;
            sels[k] = (struct fm_sel){ELINE_OWNER, wires[k], len};
            k++;
            parts[n_parts].n++;
        }
        n_parts++;
    }
    if (rc == 0) {
        struct fm_change c = {.fm = fm, .parts = parts, .n_parts = n_parts, .victims = keys,
                              .n_victims = k, .keep_deleted = true};
        rc = fm_change_run(&c);
    }
    free(keys);
    free(sels);
    free(wires);
    free(parts);
    free(f);
    return rc;
}

json_t *eline_flows_minus(json_t *a, json_t *b)
{
    json_t *out = json_object();
    const char *key;
    json_t *sw;

    json_object_foreach(a, key, sw) {
        json_t *other = json_object_get(json_object_get(b, key), "flows"), *keep = json_array();
        size_t i, j;
        json_t *fa, *fb;
        if (!out || !keep) {
            json_decref(keep);
            json_decref(out);
            return NULL;
        }
        json_array_foreach(json_object_get(sw, "flows"), i, fa) {
            bool same = false;
            json_array_foreach(other, j, fb) {
                if (json_equal(json_object_get(fa, "match"), json_object_get(fb, "match")) &&
                    json_equal(json_object_get(fa, "priority"), json_object_get(fb, "priority")))
                    same = true;
            }
            if (!same)
                json_array_append(keep, fa);
        }
        if (json_array_size(keep))
            json_object_set_new(out, key, json_pack("{s:o}", "flows", keep));
        else
            json_decref(keep);
    }
    return out;
}
