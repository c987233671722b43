/* rest_gm: a switch's groups and meters (control/fm/fm_gm.h), in ofcd's JSON
 * (rest/kytos/gm_json.h):
 *   GET    /api/v1/switches/{dpid}/groups          every stored group, with its state
 *   POST   /api/v1/switches/{dpid}/groups          one group: stored, then laid (202)
 *   GET    /api/v1/switches/{dpid}/groups/{id}     one
 *   DELETE /api/v1/switches/{dpid}/groups/{id}     stored no more, DELETE sent (200)
 * and the same under meters/. A listed one is the object as the client
 * sent it, with "state" (pending, installed, error) and, in error, "error"
 * {type, code, reason} as the switch answered; in a cluster, a node that is
 * not the switch's master says "unknown" (only the master hears the
 * switch). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fm_gm.h"
#include "gm_json.h"
#include "ofp_err.h"
#include "rest_priv.h"
#include "store.h"

/* One listed: the client's object with its state. NULL: out of memory. */
static json_t *gm_item_json(const struct fm_gm_info *in)
{
    json_t *o = json_loadb(in->text, in->text_len, 0, NULL);
    if (!json_is_object(o)) {
        /* Stored by this ofcd from a parsed body: not expected. Said, not hidden. */
        json_decref(o);
        o = json_pack("{s:s}", "stored_text", in->text);
        if (!o)
            return NULL;
    }
    json_object_set_new(o, "state", json_string(fm_gm_state_name(in->state)));
    if (in->state == FM_GM_ERROR) {
        char what[96];
        ofp_err_format(OFP_ERR(in->err_type, in->err_code), what, sizeof(what));
        json_object_set_new(o, "error", json_pack("{s:i, s:i, s:s}", "type", in->err_type,
                                                  "code", in->err_code, "reason", what));
    }
    return o;
}

static const char *gm_plural(enum fm_gm_kind kind)
{
    return kind == FM_GM_GROUP ? "groups" : "meters";
}

/* GET, all of kind or the one of id (has_id). */
static void gm_get(struct rest_req *q, struct rest_reply *r, uint64_t dpid,
                   enum fm_gm_kind kind, bool has_id, uint32_t id)
{
    if (has_id) {
        struct fm_gm_info one;
        int rc = fm_gm_get(q->rs->src.fm, dpid, kind, id, &one);
        if (rc == -ENOENT) {
            rest_error(r, 404, "switch %016" PRIx64 " has no stored %s %" PRIu32, dpid,
                       fm_gm_kind_name(kind), id);
            return;
        }
        r->json = rc == 0 ? gm_item_json(&one) : NULL;
        if (rc == 0)
            free(one.text);
        if (!r->json)
            rest_error(r, 500, "out of memory reading %s %" PRIu32, fm_gm_kind_name(kind), id);
        return;
    }
    struct fm_gm_info *v;
    int n = fm_gm_list(q->rs->src.fm, dpid, kind, &v);
    json_t *list = n >= 0 ? json_array() : NULL;
    for (int i = 0; list && i < n; i++) {
        json_t *o = gm_item_json(&v[i]);
        if (!o || json_array_append_new(list, o) < 0) {
            json_decref(list);
            list = NULL;
        }
    }
    if (n >= 0)
        fm_gm_infos_free(v, n);
    if (!list)
        rest_error(r, 500, "out of memory listing the %s of %016" PRIx64, gm_plural(kind), dpid);
    else
        r->json = json_pack("{s:o}", gm_plural(kind), list);
}

/* A failed fm_gm_put / fm_gm_del as an answer. */
static void gm_refused(struct rest_reply *r, int rc, uint64_t dpid, enum fm_gm_kind kind,
                       uint32_t id)
{
    if (rc == -ENOENT)
        rest_error(r, 404, "switch %016" PRIx64 " has no stored %s %" PRIu32, dpid,
                   fm_gm_kind_name(kind), id);
    else if (rc == -ENOSPC)
        rest_error(r, 507, "no room for %s %" PRIu32 " on %016" PRIx64 ": at most %u %s per "
                   "switch, or the store is full: nothing was stored", fm_gm_kind_name(kind),
                   id, dpid, FM_GM_PER_SWITCH, gm_plural(kind));
    else if (rc == -EBUSY) {
        rest_error(r, 503, "switch %016" PRIx64 " has %u group and meter messages waiting to "
                   "be sent: nothing of this request was stored; retry later", dpid,
                   FM_GM_QUEUE_MAX);
        r->retry_after = 1;
    } else if (rc == -ETIMEDOUT || rc == -ETIME) {
        rest_error(r, 504, "the outcome is not known: the store did not confirm in time; read "
                   "the %s to see", fm_gm_kind_name(kind));
    } else if (rc == -EINPROGRESS) {
        rest_error(r, 504, "stored in etcd, but this node's copy has not shown it yet; it is "
                   "laid once it does (read the %s to see)", fm_gm_kind_name(kind));
    } else if (rc == -ESTALE) {
        rest_error(r, 503, "this node's copy of etcd is behind (see its log and GET "
                   "/api/v1/health): nothing of this request was stored; send it to another "
                   "node, or retry once this one has read etcd again");
        r->retry_after = 5;
    } else
        rest_error(r, 500, "%s %" PRIu32 " of %016" PRIx64 ": %s", fm_gm_kind_name(kind), id,
                   dpid, store_strerror(rc));
}

static void gm_post(struct rest_req *q, struct rest_reply *r, uint64_t dpid,
                    enum fm_gm_kind kind)
{
    char err[256] = "";
    size_t len = 0;
    uint32_t id = 0;

    if (!q->body) {
        rest_error(r, 400, "a %s object is required as the body", fm_gm_kind_name(kind));
        return;
    }
    if (q->body_len > FM_GM_TEXT_MAX) {
        rest_error(r, 413, "a %s's JSON takes at most %u bytes", fm_gm_kind_name(kind),
                   FM_GM_TEXT_MAX);
        return;
    }
    uint8_t *wire = malloc(GM_JSON_WIRE_MAX);
    if (!wire) {
        rest_error(r, 500, "out of memory");
        return;
    }
    int rc = kind == FM_GM_GROUP
                 ? gm_json_group(q->body, q->body_len, wire, &len, &id, err, sizeof(err))
                 : gm_json_meter(q->body, q->body_len, wire, &len, &id, err, sizeof(err));
    if (rc == -EINVAL)
        rest_error(r, 400, "%s", err);
    else if (rc < 0)
        rest_error(r, 500, "out of memory");
    else if ((rc = fm_gm_put(q->rs->src.fm, dpid, wire, len, q->body, q->body_len)) < 0)
        gm_refused(r, rc, dpid, kind, id);
    else {
        r->status = 202;
        r->json = json_pack("{s:I, s:s}", kind == FM_GM_GROUP ? "group_id" : "meter_id",
                            (json_int_t)id, "state", "pending");
    }
    free(wire);
}

/* "{id}" as a group or meter id. */
static bool gm_id_arg(const char *s, uint32_t *id, struct rest_reply *r)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);

    if (*s < '0' || *s > '9' || *end || v > UINT32_MAX) {
        rest_error(r, 400, "'%s' is not a group or meter id (a decimal number)", s);
        return false;
    }
    *id = (uint32_t)v;
    return true;
}

void rest_switch_gm(struct rest_req *q, struct rest_reply *r, uint64_t dpid, const char *rest)
{
    enum fm_gm_kind kind;
    const char *tail;

    if (strncmp(rest, "groups", 6) == 0) {
        kind = FM_GM_GROUP;
        tail = rest + 6;
    } else if (strncmp(rest, "meters", 6) == 0) {
        kind = FM_GM_METER;
        tail = rest + 6;
    } else {
        rest_error(r, 404, "no such resource: %s", q->path);
        return;
    }
    if (*tail && *tail != '/') {
        rest_error(r, 404, "no such resource: %s", q->path);
        return;
    }
    if (!rest_need_fm(q, r))
        return;
    bool has_id = *tail == '/';
    uint32_t id = 0;
    if (has_id && !gm_id_arg(tail + 1, &id, r))
        return;
    if (strcmp(q->method, "GET") == 0) {
        gm_get(q, r, dpid, kind, has_id, id);
    } else if (strcmp(q->method, "POST") == 0 && !has_id) {
        gm_post(q, r, dpid, kind);
    } else if (strcmp(q->method, "DELETE") == 0 && has_id) {
        int rc = fm_gm_del(q->rs->src.fm, dpid, kind, id);
        if (rc < 0)
            gm_refused(r, rc, dpid, kind, id);
        else
            r->json = json_pack("{s:I, s:s}", kind == FM_GM_GROUP ? "group_id" : "meter_id",
                                (json_int_t)id, "state", "deleted");
    } else {
        rest_error(r, 405, "method %s not allowed on %s (GET and POST on the list, GET and "
                   "DELETE on one)", q->method, q->path);
    }
}
