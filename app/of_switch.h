/*
 * of_switch: what ofcd knows about one switch (by dpid) — the model the
 * worker lcore keeps and the REST API will show: the connection it is on,
 * negotiated version, features, DESC strings, ports (from PORT_DESC, kept
 * current by PORT_STATUS), when it came up, counters. A switch outlives its
 * connections: when the same dpid reconnects, the model is kept and bound to
 * the new connection (the stale one is closed).
 */
#ifndef OFCD_OF_SWITCH_H
#define OFCD_OF_SWITCH_H

#include <stdbool.h>
#include <stdint.h>

#include "ofp_mp.h"
#include "ofp_port.h"
#include "ofp_switch.h"

struct of_rec;

struct of_switch {
    uint64_t dpid;
    struct of_switch *hnext;
    struct of_rec *rec;              /* live connection, NULL while down */
    uint8_t version;
    struct ofp_features features;
    struct ofp_desc desc;
    struct ofp_port *ports;
    uint32_t n_ports, cap_ports;
    uint64_t up_since_us;            /* ESTABLISHED at (0 while down) */
    uint64_t down_since_us;
    uint64_t connects, disconnects, replaced, port_changes;
    struct l2_table *l2;             /* learning-switch app state, if enabled */
};

/* Replace the port list (PORT_DESC). 0 or -ENOMEM. */
int of_switch_set_ports(struct of_switch *sw, const struct ofp_port *ports, uint32_t n);

/* Apply a PORT_STATUS (OFPPR_ADD/MODIFY/DELETE). 0, -ENOENT (delete or
 * modify of a port we do not know: it is added for modify), -ENOMEM. */
int of_switch_port_status(struct of_switch *sw, uint8_t reason, const struct ofp_port *p);

const struct ofp_port *of_switch_port(const struct of_switch *sw, uint32_t port_no);

void of_switch_free_ports(struct of_switch *sw);

#endif
