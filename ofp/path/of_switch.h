/*
 * of_switch: what ofcd knows about one switch (by dpid) — the model the
 * worker lcore keeps (the control thread's view, sw_view, is built from
 * the events the worker sends, never from this): the connection it is on,
 * negotiated version, features, DESC strings, ports (from PORT_DESC, kept
 * current by PORT_STATUS), when it came up, counters. A switch outlives its
 * connections: when the same dpid reconnects, the model is kept and bound to
 * the new connection (the stale one is closed). A switch that is down keeps
 * its record (features, DESC, counters) but not its ports, which come again
 * with its next PORT_DESC.
 */
#ifndef OFCD_OF_SWITCH_H
#define OFCD_OF_SWITCH_H

#include <stdbool.h>
#include <stdint.h>

#include "of_app.h"
#include "ofcd_dlist.h"
#include "ofp_mp.h"
#include "ofp_port.h"
#include "ofp_switch.h"

struct of_rec;

/* A switch's ports: the one list type the worker's model, its PORT_DESC
 * reassembly and the control thread's view all use. Grows on topology
 * changes only. */
struct of_port_list {
    struct ofp_port *v;
    uint32_t n, cap;
};

/* Append one port. 0 or -ENOMEM. */
int of_ports_append(struct of_port_list *l, const struct ofp_port *p);

/* Replace the whole list (PORT_DESC). 0 or -ENOMEM. */
int of_ports_set(struct of_port_list *l, const struct ofp_port *ports, uint32_t n);

/* Apply a PORT_STATUS (OFPPR_ADD/MODIFY/DELETE). 0, -ENOENT (delete or
 * modify of a port we do not know: it is added for modify), -ENOMEM. */
int of_ports_status(struct of_port_list *l, uint8_t reason, const struct ofp_port *p);

const struct ofp_port *of_ports_find(const struct of_port_list *l, uint32_t port_no);

void of_ports_free(struct of_port_list *l);

struct of_switch {
    uint64_t dpid;
    struct of_switch *hnext;
    /* While down (no connection): on the worker's list of down switches,
     * oldest first, so forgetting them costs what is forgotten. */
    struct ofcd_dlist_node down_node;
    bool on_down_list;
    struct of_rec *rec;              /* live connection, NULL while down */
    uint8_t version;
    struct ofp_features features;
    struct ofp_desc desc;
    struct of_port_list ports;
    uint64_t up_since_us;            /* ESTABLISHED at (0 while down) */
    uint64_t down_since_us;
    uint64_t connects, disconnects, replaced, port_changes;
    void *app_state[OF_APPS_MAX];    /* each app's own (of_app.h) */
    uint64_t app_tick_us[OF_APPS_MAX];  /* when each app's on_tick is due, 0 = never */
};

#endif
