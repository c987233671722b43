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

/* How many flows by_switch holds. */
static size_t flows_count(json_t *by_switch)
{
    const char *key;
    json_t *sw;
    size_t total = 0;

    json_object_foreach(by_switch, key, sw)
        total += json_array_size(json_object_get(sw, "flows"));
    return total;
}

/* one(ctx, k, dpid, flow) for each flow of by_switch, k its index among
 * all of them, switch by switch; parts[] gets each switch's dpid and its
 * count of flows (the caller points each at its first, in the same
 * order), *n_parts how many. Stops at one's first error; -EINVAL, err
 * set, for a key that is no dpid. */
static int each_flow(json_t *by_switch, struct fm_change_part *parts, size_t *n_parts,
                     int (*one)(void *ctx, size_t k, uint64_t dpid, json_t *flow), void *ctx,
                     char *err, size_t errlen)
{
    const char *key;
    json_t *sw;
    size_t k = 0;
    int rc = 0;

    *n_parts = 0;
    json_object_foreach(by_switch, key, sw) {
        uint64_t dpid;
        size_t i;
        json_t *flow;
        if (dpid_parse(key, &dpid) < 0) {
            snprintf(err, errlen, "%s is not a dpid", key);
            return -EINVAL;
        }
        parts[*n_parts] = (struct fm_change_part){.dpid = dpid};
        json_array_foreach(json_object_get(sw, "flows"), i, flow) {
            if ((rc = one(ctx, k, dpid, flow)) < 0)
                return rc;
            k++;
            parts[*n_parts].n++;
        }
        (*n_parts)++;
    }
    return 0;
}

/* What one add holds until the store is done with it. */
struct add_job {
    struct store_flow *recs;
    struct fm_add_one *adds;
    struct fm_change_part *parts;
    char **texts;
    uint8_t **wires;
    size_t n, n_parts;
    struct fm_flow *f;                  /* the flow being read */
    char *err;
    size_t errlen;
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

/* One flow object into slot k of the add job ctx, for dpid. */
static int add_one(void *ctx, size_t k, uint64_t dpid, json_t *flow)
{
    struct add_job *j = ctx;
    struct fm_flow *f = j->f;
    char *err = j->err;
    size_t errlen = j->errlen;
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
    size_t total = flows_count(by_switch);
    struct add_job j = {.n = total, .err = err, .errlen = errlen};
    int rc = 0;

    j.recs = calloc(total ? total : 1, sizeof(*j.recs));
    j.adds = calloc(total ? total : 1, sizeof(*j.adds));
    j.texts = calloc(total ? total : 1, sizeof(*j.texts));
    j.wires = calloc(total ? total : 1, sizeof(*j.wires));
    j.parts = calloc(json_object_size(by_switch) + 1, sizeof(*j.parts));
    j.f = malloc(sizeof(*j.f));
    if (!j.recs || !j.adds || !j.texts || !j.wires || !j.parts || !j.f)
        rc = -ENOMEM;
    if (rc == 0)
        rc = each_flow(by_switch, j.parts, &j.n_parts, add_one, &j, err, errlen);
    for (size_t p = 0, k = 0; rc == 0 && p < j.n_parts; k += j.parts[p++].n)
        j.parts[p].adds = &j.adds[k];
    free(j.f);
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

/* What one exact delete holds until the store is done with it. */
struct del_job {
    struct fm_key *keys;
    struct fm_sel *sels;
    uint8_t (*wires)[FM_FLOW_WIRE_SMALL];
    struct fm_flow *f;
};

/* One flow object's strict DELETE (its match, priority and exact cookie)
 * into slot k of the delete job ctx, its identity beside it. */
static int strict_del(void *ctx, size_t k, uint64_t dpid, json_t *flow)
{
    struct del_job *j = ctx;
    struct fm_flow *f = j->f;
    char err[128];
    size_t len;

    if (flow_json_parse_json(flow, false, f, NULL, err, sizeof(err)) != 0)
        return -EINVAL;
    j->keys[k].dpid = dpid;
    j->keys[k].match_id = fm_flow_match_id(dpid, f);
    j->keys[k].flow_id = fm_flow_id_of(j->keys[k].match_id, f);
    f->mod.command = OFPFC_DELETE_STRICT;
    f->mod.cookie_mask = UINT64_MAX;
    f->mod.out_port = OFPP_ANY;
    f->mod.out_group = OFPG_ANY;
    int rc = fm_flow_mod_encode(&f->mod, j->wires[k], sizeof(j->wires[k]), &len);
    j->sels[k] = (struct fm_sel){ELINE_OWNER, j->wires[k], len};
    return rc;
}

int eline_flows_remove_exact(struct fm *fm, json_t *by_switch)
{
    size_t total = flows_count(by_switch), n_parts = 0;
    char err[128];
    int rc = 0;

    if (!total)
        return 0;
    struct del_job j = {.keys = calloc(total, sizeof(*j.keys)),
                        .sels = calloc(total, sizeof(*j.sels)),
                        .wires = calloc(total, sizeof(*j.wires)), .f = malloc(sizeof(*j.f))};
    struct fm_change_part *parts = calloc(json_object_size(by_switch), sizeof(*parts));
    if (!j.keys || !j.sels || !j.wires || !parts || !j.f)
        rc = -ENOMEM;
    if (rc == 0)
        rc = each_flow(by_switch, parts, &n_parts, strict_del, &j, err, sizeof(err));
    for (size_t p = 0, k = 0; rc == 0 && p < n_parts; k += parts[p++].n)
        parts[p].dels = &j.sels[k];
    if (rc == 0) {
        struct fm_change c = {.fm = fm, .parts = parts, .n_parts = n_parts, .victims = j.keys,
                              .n_victims = total, .keep_deleted = true};
        rc = fm_change_run(&c);
    }
    free(j.keys);
    free(j.sels);
    free(j.wires);
    free(parts);
    free(j.f);
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
