/*
 * events_pub: what the control thread publishes on the event stream
 * (rest_events.h, GET /api/v1/events), in one place so the kinds and their
 * fields are one list:
 *
 *   switch.up      {"dpid", "ports"}
 *   switch.down    {"dpid"}
 *   port.status    {"dpid", "port", "name", "reason": add|delete|modify,
 *                   "link": up|down, "admin_down"}
 *   link.up, link.down, link.loop
 *                  {"id", "a", "b", "why"}  (ids as Kytos-ng's topology shows them)
 *
 * The flow manager publishes its own (flow.installed, flow.error,
 * flow.removed, flow.deleted, consistency: flowmgr.h, struct
 * flowmgr_env.event, glued in flow_out.c).
 */
#ifndef OFCD_EVENTS_PUB_H
#define OFCD_EVENTS_PUB_H

#include "qmsg.h"
#include "rest_events.h"
#include "topo_ctl.h"

/* A worker event (the kinds above; others are let be). */
void events_pub_worker_event(struct rest_events *h, const struct qmsg *q);
/* topo_ctl's on_change (arg: the hub). */
void events_pub_link(void *arg, const struct topo_link_rec *l, enum topo_change c);

#endif
