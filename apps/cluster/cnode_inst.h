/*
 * cnode_inst: the cluster app's instance, shared by its class (cnode_class.c)
 * and its REST route (cnode_rest.c); nothing else sees it.
 */
#ifndef OFCD_CNODE_INST_H
#define OFCD_CNODE_INST_H

#include <stdbool.h>
#include <stdint.h>

#include "app_class.h"
#include "cnode.h"
#include "ofcd_ratelimit.h"
#include "rest.h"

#define CNODE_XID_BASE 0x7fff0000u
/* How often a node looks whether it masters more than its share: seldom
 * enough that the watch has shown the last round's yields everywhere. */
#define CNODE_BALANCE_EVERY_US 2000000u
#define CNODE_BALANCE_MAX 64u           /* yields per round */
/* How often the records of switches nobody stands for any more are let go
 * (the table's bound is openflow.max_switches_known). */
#define CNODE_SWEEP_EVERY_US 1000000u

struct cnode_inst {
    const struct app_host *host;
    struct cnode *node;
    uint32_t next_xid;
    bool may_act;                   /* as last published */
    uint64_t next_balance_us;
    uint64_t next_sweep_us;
    struct rest_ext ext;
    struct ofcd_ratelimit rl_refused;
    uint64_t stop_at_us;            /* on_stop's first call (SIGTERM), 0 before */
    unsigned handing;               /* switches it mastered then */
};

/* GET /api/v1/cluster (cnode_rest.c). */
unsigned cnode_rest_get(void *arg, const struct rest_ext_req *q, json_t **out);
/* "switch.role" on the event stream: the role sw confirmed to this node. */
void cnode_publish_role(struct cnode_inst *ci, const struct cl_sw *sw);
/* This node's card: what the other nodes and GET /api/v1/cluster show of it. */
int cnode_card_make(const struct ofcd_config *cfg, char *buf, size_t len);

#endif
