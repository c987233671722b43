/* topo_flow: see topo_flow.h. */
#include "topo_flow.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "flow_json.h"
#include "flowmgr.h"
#include "json_u64.h"
#include "ofcd_clock.h"
#include "ofcd_log.h"
#include "store.h"
#include "topo_app.h"

/* One switch's flow on its way through the store. */
struct topo_flow_put {
    struct flowmgr *fm;
    struct store_flow rec;
    struct fm_flow flow;
    char *text;
    struct ofcd_ratelimit *rl;          /* the committer thread's, or NULL */
};

/* A failure for dpid's flow, through rl when there is one. */
static void flow_failed(struct ofcd_ratelimit *rl, uint64_t dpid, const char *what, int rc)
{
    if (!rl) {
        LOG_ERR("topology", "switch %016" PRIx64 ": %s: %s", dpid, what, strerror(-rc));
        return;
    }
    LOG_ERR_RL(rl, ofcd_clock_mono_us(), "topology",
               "switch %016" PRIx64 ": %s: %s", dpid, what, strerror(-rc));
}

/* The LLDP flow of dpid (or the delete that selects it) as a typed flow,
 * parsed from the Kytos JSON it is stored as (*text, when wanted): the one
 * spelling is both what the store keeps and what the flow manager gets. */
static int lldp_flow(uint64_t dpid, bool for_delete, struct fm_flow *flow, char **text)
{
    char err[128];
    /* The cookie is above INT64_MAX: json_u64's marker, as a REST body's
     * would be, so the stored text reads back as any other flow's. */
    json_t *j = json_pack("{s:i, s:i, s:o, s:s, s:{s:i}, s:[{s:s, s:I}]}", "table_id", 0,
                          "priority", (int)TOPO_FLOW_PRIORITY, "cookie",
                          json_u64_value(TOPO_COOKIE(dpid)), "owner", TOPO_FLOW_OWNER, "match",
                          "dl_type", 0x88cc, "actions", "action_type", "output", "port",
                          (json_int_t)0xfffffffdu);
    if (!j)
        return -ENOMEM;
    /* A delete with a cookie needs its mask (as a REST DELETE does): all of it. */
    if (for_delete)
        json_object_set_new(j, "cookie_mask", json_u64_value(UINT64_MAX));
    int rc = flow_json_parse(j, for_delete, flow, NULL, err, sizeof(err));
    if (rc < 0)
        LOG_ERR("topology", "the LLDP flow does not parse: %s (bug)", err);
    if (rc == 0 && text && !(*text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS)))
        rc = -ENOMEM;
    json_decref(j);
    return rc;
}

static void put_done(void *arg, int rc)
{
    struct topo_flow_put *p = arg;

    if (rc == 0)
        flowmgr_add(p->fm, p->rec.dpid, &p->flow, &p->rec.match_id, &p->rec.flow_id, 1);
    else
        flow_failed(p->rl, p->rec.dpid, "the LLDP flow was not stored", rc);
    free(p->text);
    free(p);
}

int topo_flow_ensure(struct store *s, struct flowmgr *fm, uint64_t dpid,
                     struct topo_flow_log *log)
{
    struct topo_flow_put *p = calloc(1, sizeof(*p));
    struct store_flow cur;
    int rc;

    if (!p)
        return -ENOMEM;
    if ((rc = lldp_flow(dpid, false, &p->flow, &p->text)) < 0)
        goto fail;
    uint64_t mid = fm_flow_match_id(dpid, &p->flow), fid = fm_flow_id_of(mid, &p->flow);
    if (store_get(s, dpid, mid, &cur) == 0) {
        bool have = cur.flow_id == fid && cur.state != STORE_FLOW_DELETED;
        store_flow_release(&cur);
        if (have) {
            rc = 0;
            goto fail;                  /* nothing to do: not a failure */
        }
    }
    p->fm = fm;
    p->rl = log ? &log->stored : NULL;
    p->rec = (struct store_flow){.dpid = dpid, .match_id = mid, .flow_id = fid,
                                 .state = STORE_FLOW_PENDING, .owner = TOPO_FLOW_OWNER,
                                 .json = p->text, .json_len = strlen(p->text)};
    fm_flow_fixup(&p->flow);
    if ((rc = store_put_many_async(s, &p->rec, 1, put_done, p)) == 0)
        return 0;
    flow_failed(log ? &log->ensure : NULL, dpid, "cannot store its LLDP flow", rc);
fail:
    free(p->text);
    free(p);
    return rc;
}

int topo_flow_remove(struct store *s, struct flowmgr *fm, uint64_t dpid)
{
    struct fm_flow add, del;
    struct store_flow cur;
    int rc;

    if ((rc = lldp_flow(dpid, false, &add, NULL)) < 0 || (rc = lldp_flow(dpid, true, &del, NULL)) < 0)
        return rc;
    struct flowmgr_key k = {.dpid = dpid, .match_id = fm_flow_match_id(dpid, &add)};
    if (store_get(s, dpid, k.match_id, &cur) < 0)
        return 0;
    k.flow_id = cur.flow_id;
    store_flow_release(&cur);
    rc = store_del(s, dpid, k.match_id);
    if (rc == -ENOENT)
        return 0;
    if (rc < 0)
        return rc;
    /* Strict: only the LLDP flow itself, whatever else matches 0x88cc. */
    del.mod.command = OFPFC_DELETE_STRICT;
    del.mod.cookie = TOPO_COOKIE(dpid);
    del.mod.cookie_mask = UINT64_MAX;
    return flowmgr_deleted(fm, &k, 1, dpid, &del, 1);
}
