/*
 * flow_out: the flow manager's way to the switches in the running
 * appliance — a message buffer from the qmsg pool, into the msg_out ring of
 * the io lcore that owns the switch's connection — its clock, and the
 * REST face's reader of stored flows.
 */
#ifndef OFCD_FLOW_OUT_H
#define OFCD_FLOW_OUT_H

#include "app.h"
#include "fm.h"

/* One OpenFlow message to the switch on conn, through its io lcore's
 * msg_out ring in class cls, from the control plane's pool (arg: the
 * app_ctx). 0, or -ENOBUFS (no buffer or no room: try again later). Also
 * the apps' way to their switches (app_host.send). */
int flow_out_send(void *arg, conn_handle_t conn, const uint8_t *msg, size_t len, uint8_t cls);

/* Fill env for app (app must outlive the flow manager). */
void flow_out_env(struct app_ctx *app, struct fm_env *env);

#endif
