/*
 * cnode_rest: the cluster in JSON — GET /api/v1/cluster (this node, the live
 * nodes with their cards, every switch's master and generation_id, the
 * etcd revision applied) and this node's card.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cfg.h"
#include "cnode_inst.h"
#include "cl_keys.h"
#include "dpid.h"
#include "rest_events.h"
#include "ofcd_clock.h"
#include "ofcd_inet.h"
#include "ofcd_version.h"

int cnode_card_make(const struct ofcd_config *c, char *buf, size_t len)
{
    char of[OFCD_PEER_STRLEN], rest[OFCD_PEER_STRLEN];

    ofcd_peer_format(c->ip, c->of_port, of);
    ofcd_peer_format(c->rest_ip, c->rest_port, rest);
    json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I}", "node_id", c->cluster_node_id,
                          "openflow", of, "rest", rest, "version", OFCD_VERSION, "pid",
                          (json_int_t)getpid(), "since", (json_int_t)ofcd_clock_wall_s());
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!text)
        return -ENOMEM;
    int rc = strlen(text) < len && strlen(text) < CL_CARD_MAX ? 0 : -ENAMETOOLONG;
    if (rc == 0)
        memcpy(buf, text, strlen(text) + 1);
    free(text);
    return rc;
}

static const char *role_name(enum cl_role r)
{
    return r == CL_ROLE_MASTER ? "master" : r == CL_ROLE_SLAVE ? "slave" : "none";
}

void cnode_publish_role(struct cnode_inst *ci, const struct cl_sw *sw)
{
    char d[24];

    if (!ci->host->stream)
        return;
    dpid_format(sw->dpid, d);
    json_t *j = json_pack("{s:s, s:s, s:s, s:I}", "dpid", d, "node_id", ci->node->node_id,
                          "role", role_name(sw->role), "generation_id",
                          (json_int_t)sw->generation);
    if (j)
        rest_events_publish(ci->host->stream, "switch.role", j);
    json_decref(j);
}

static void add_switch(void *arg, struct cl_sw *sw)
{
    json_t *arr = arg;
    char d[24];
    const struct cl_cand *w = cl_sw_winner(sw);
    json_t *cands = json_array();

    dpid_format(sw->dpid, d);
    for (unsigned i = 0; i < sw->cands.n; i++)
        json_array_append_new(cands, json_pack("{s:s, s:I}", "node_id", sw->cands.c[i].node,
                                               "create_revision",
                                               (json_int_t)sw->cands.c[i].create_rev));
    json_array_append_new(arr, json_pack("{s:s, s:o, s:I, s:o, s:b, s:s, s:I}", "dpid", d,
                                         "master", w ? json_string(w->node) : json_null(),
                                         "generation_id", (json_int_t)(w ? w->create_rev : 0),
                                         "candidates", cands, "channel_up", sw->channel_up,
                                         "role", role_name(sw->role),
                                         "role_changes", (json_int_t)sw->role_changes));
}

unsigned cnode_rest_get(void *arg, const struct rest_ext_req *q, json_t **out)
{
    struct cnode_inst *ci = arg;
    struct cnode *n = ci->node;

    if (*q->arg)
        return rest_ext_error(out, 404, "no such resource: %s", q->path);
    if (strcmp(q->method, "GET") != 0)
        return rest_ext_error(out, 405, "method %s not allowed on %s", q->method, q->path);
    json_t *nodes = json_array(), *switches = json_array();
    uint64_t now = ofcd_clock_mono_us();

    pthread_mutex_lock(&n->lock);
    for (unsigned i = 0; i < n->members.n; i++) {
        const struct cl_member *m = &n->members.m[i];
        json_t *card = json_loads(m->card, 0, NULL);
        int64_t left = cl_member_ttl_left(m, now);
        json_array_append_new(nodes, json_pack("{s:s, s:o, s:b, s:I, s:o}", "node_id", m->node,
                                               "card", card ? card : json_null(), "self",
                                               strcmp(m->node, n->node_id) == 0,
                                               "joined_revision", (json_int_t)m->create_rev,
                                               "lease_ttl_left_s",
                                               left < 0 ? json_null()
                                                        : json_integer((json_int_t)left)));
    }
    cl_table_each(&n->table, add_switch, switches);
    char lease[24];
    snprintf(lease, sizeof(lease), "%" PRIx64, (uint64_t)n->lease);
    json_t *j = json_pack("{s:s, s:s, s:s, s:b, s:I, s:b, s:b, s:s, s:I, s:I, s:o, s:o}",
                          "node_id", n->node_id, "prefix", n->prefix, "lease", lease,
                          "may_act", cnode_may_act_locked(n, now),
                          "may_act_ms", (json_int_t)(cl_fence_left_us(&n->fence, now) / 1000),
                          "etcd_ok", n->etcd_ok, "caught_up", n->synced, "etcd_error",
                          n->etcd_error, "revision", (json_int_t)n->revision,
                          "lease_ttl_s", (json_int_t)n->ttl_s, "nodes", nodes,
                          "switches", switches);
    pthread_mutex_unlock(&n->lock);
    if (!j)
        return rest_ext_error(out, 500, "out of memory");
    *out = j;
    return 200;
}
