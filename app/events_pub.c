/* events_pub: see events_pub.h. */
#include "events_pub.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dpid.h"
#include "of_event.h"
#include "ofp_msg.h"

static void publish(struct rest_events *h, const char *kind, json_t *j)
{
    if (j)
        rest_events_publish(h, kind, j);
    json_decref(j);
}

static void port_status(struct rest_events *h, const char *dpid, const uint8_t *msg, size_t len)
{
    static const char *const reasons[] = {"add", "delete", "modify"};
    struct ofp_msg m;
    struct ofp_err err;

    if (len < 8 || msg[1] != OFPT_PORT_STATUS || ofp_decode(msg, len, &m, &err) < 0)
        return;
    const struct ofp_port_status *ps = &m.u.port_status;
    publish(h, "port.status",
            json_pack("{s:s, s:I, s:s, s:s, s:s, s:b}", "dpid", dpid, "port",
                      (json_int_t)ps->desc.port_no, "name", ps->desc.name, "reason",
                      ps->reason < 3 ? reasons[ps->reason] : "unknown", "link",
                      (ps->desc.state & OFPPS_LINK_DOWN) ? "down" : "up", "admin_down",
                      (ps->desc.config & OFPPC_PORT_DOWN) != 0));
}

void events_pub_worker_event(struct rest_events *h, const struct qmsg *q)
{
    struct of_event_hdr hdr;
    char dpid[24];

    if (!h || q->len < sizeof(hdr))
        return;
    memcpy(&hdr, q->data, sizeof(hdr));
    dpid_format(hdr.dpid, dpid);
    if (q->kind == QMSG_EV_SWITCH_UP && q->len >= sizeof(hdr) + sizeof(struct of_event_up)) {
        struct of_event_up up;
        memcpy(&up, q->data + sizeof(hdr), sizeof(up));
        publish(h, "switch.up", json_pack("{s:s, s:I}", "dpid", dpid, "ports",
                                          (json_int_t)up.n_ports));
    } else if (q->kind == QMSG_EV_SWITCH_DOWN) {
        publish(h, "switch.down", json_pack("{s:s}", "dpid", dpid));
    } else if (q->kind == QMSG_EV_OF) {
        port_status(h, dpid, q->data + sizeof(hdr), q->len - sizeof(hdr));
    }
}

static json_t *flow_removed_json(const char *dpid, const struct fm_ev_removed *r)
{
    static const char *const reasons[] = {"idle_timeout", "hard_timeout", "delete",
                                          "group_delete", "meter_delete", "eviction"};
    char mid[24], cookie[24];

    snprintf(mid, sizeof(mid), "%016" PRIx64, r->match_id);
    snprintf(cookie, sizeof(cookie), "%#" PRIx64, r->cookie);
    /* The counts as jansson takes them (signed): past 2^63 they read
     * negative, as they always have on this stream. */
    return json_pack("{s:s, s:s, s:b, s:s, s:i, s:i, s:s, s:I, s:I, s:I}", "dpid", dpid,
                     "match_id", mid, "stored", r->stored, "cookie", cookie, "table_id",
                     (int)r->table_id, "priority", (int)r->priority, "reason",
                     r->reason < 6 ? reasons[r->reason] : "unknown", "duration_s",
                     (json_int_t)r->duration_s, "packet_count", (json_int_t)r->packet_count,
                     "byte_count", (json_int_t)r->byte_count);
}

void events_pub_flow(struct rest_events *h, const struct fm_event *ev)
{
    char dpid[24], mid[24];

    if (!h)
        return;
    dpid_format(ev->dpid, dpid);
    switch (ev->kind) {
    case FM_EV_INSTALLED:
        publish(h, "flow.installed", json_pack("{s:s, s:I}", "dpid", dpid, "count",
                                               (json_int_t)ev->u.installed.count));
        break;
    case FM_EV_ERROR:
        snprintf(mid, sizeof(mid), "%016" PRIx64, ev->u.error.match_id);
        publish(h, "flow.error",
                json_pack("{s:s, s:s, s:i, s:i, s:s}", "dpid", dpid, "match_id", mid, "type",
                          (int)ev->u.error.type, "code", (int)ev->u.error.code, "reason",
                          ev->u.error.reason ? ev->u.error.reason : ""));
        break;
    case FM_EV_REMOVED:
        publish(h, "flow.removed", flow_removed_json(dpid, &ev->u.removed));
        break;
    case FM_EV_DELETED:
        publish(h, "flow.deleted", json_pack("{s:s, s:I}", "dpid", dpid, "count",
                                             (json_int_t)ev->u.deleted.count));
        break;
    case FM_EV_CONSISTENCY:
        publish(h, "consistency",
                json_pack("{s:s, s:b, s:I, s:I, s:I}", "dpid", dpid, "after_connect",
                          ev->u.consistency.after_connect, "aliens_deleted",
                          (json_int_t)ev->u.consistency.aliens_deleted, "missing_reinstalled",
                          (json_int_t)ev->u.consistency.missing_reinstalled,
                          "changed_reinstalled",
                          (json_int_t)ev->u.consistency.changed_reinstalled));
        break;
    }
}
