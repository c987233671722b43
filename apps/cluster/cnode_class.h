/*
 * cnode_class: the cluster as an app of the appliance (app_class.h), on when
 * cluster.etcd_endpoints is set. It owns the cluster node (cnode.h: the
 * etcd thread and the table) and on the control thread:
 *  - hears each switch come up and go down and its answers to our
 *    ROLE_REQUESTs (ROLE_REPLY, OFPET_ROLE_REQUEST_FAILED); at switch up
 *    sends SET_ASYNC so that as a slave this node still gets the
 *    PACKET_INs of flows that output to the controller (LLDP's: every
 *    node finds every link);
 *  - every tick, carries out cl_table's steps: the candidate keys wanted
 *    (for the etcd thread) and the ROLE_REQUESTs (MASTER with the winner's
 *    create revision as generation_id, or SLAVE), sent through the io
 *    lcore's msg_out like the flow manager's messages;
 *  - publishes whether this node may act as a master (the fence) for the
 *    workers' gate;
 *  - serves GET /api/v1/cluster (cnode_rest.c) and the "cluster" counters.
 * Its xids are 0x7fff0000 + n: below the flow manager's (top bit set) and
 * far above what a worker's per-connection count reaches.
 */
#ifndef OFCD_CNODE_CLASS_H
#define OFCD_CNODE_CLASS_H

#include "app_class.h"

extern const struct app_class cnode_class;

#endif
