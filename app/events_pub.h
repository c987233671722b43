/*
 * events_pub: what ofcd publishes on the event stream (rest_events.h, GET
 * /api/v1/events), in one place so the kinds and their fields are one list:
 *
 *   switch.up      {"dpid", "ports"}
 *   switch.down    {"dpid"}
 *   port.status    {"dpid", "port", "name", "reason": add|delete|modify,
 *                   "link": up|down, "admin_down"}
 *   link.up, link.down, link.loop
 *                  {"id", "a", "b", "why"}  (ids as Kytos-ng's topology shows
 *                  them; published by the topology app, topo_class.c)
 *
 * and the flow manager's (struct fm_event, from struct
 * fm_env.event, glued in flow_out.c; on the control thread or a REST
 * thread):
 *
 *   flow.installed {"dpid", "count"}
 *   flow.error     {"dpid", "match_id", "type", "code", "reason"}
 *   flow.removed   {"dpid", "match_id", "stored", "cookie" ("0x..."), "table_id",
 *                   "priority", "reason": idle_timeout|hard_timeout|delete|
 *                   group_delete|meter_delete|eviction|unknown, "duration_s",
 *                   "packet_count", "byte_count"}
 *   flow.deleted   {"dpid", "count"}
 *   consistency    {"dpid", "after_connect", "aliens_deleted",
 *                   "missing_reinstalled", "changed_reinstalled"}
 *
 * Members come in the order listed; dpids as "00:00:..:10:01", match_ids as
 * 16 hex digits.
 */
#ifndef OFCD_EVENTS_PUB_H
#define OFCD_EVENTS_PUB_H

#include "fm.h"
#include "qmsg.h"
#include "rest_events.h"

/* A worker event (the kinds above; others are let be). */
void events_pub_worker_event(struct rest_events *h, const struct qmsg *q);
/* A flow manager event (h may be NULL: the stream is off). */
void events_pub_flow(struct rest_events *h, const struct fm_event *ev);

#endif
