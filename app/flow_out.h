/*
 * flow_out: the flow manager's way to the switches in the running
 * appliance — a message buffer from the qmsg pool, into the msg_out ring of
 * the io lcore that owns the switch's connection — its clock, and the
 * REST face's reader of stored flows.
 */
#ifndef OFCD_FLOW_OUT_H
#define OFCD_FLOW_OUT_H

#include "app.h"
#include "flowmgr.h"

/* Fill env for app (app must outlive the flow manager). */
void flow_out_env(struct app_ctx *app, struct flowmgr_env *env);

#endif
