/* events_pub: see events_pub.h. */
#include "events_pub.h"

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

void events_pub_link(void *arg, const struct topo_link_rec *l, enum topo_change c)
{
    struct rest_events *h = arg;
    char a[TOPO_END_ID_LEN], b[TOPO_END_ID_LEN];

    if (!h)
        return;
    topo_end_id(l->a, a);
    topo_end_id(l->b, b);
    publish(h, c == TOPO_LINK_UP ? "link.up" : c == TOPO_LINK_DOWN ? "link.down" : "link.loop",
            json_pack("{s:s, s:s, s:s, s:s}", "id", l->id, "a", a, "b", b, "why",
                      l->why ? l->why : ""));
}
