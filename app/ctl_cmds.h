/*
 * ctl_cmds: ofcdctl in the appliance — the command registry with every
 * module's commands, the socket they are served on, and the commands that
 * belong to the appliance as a whole: counters/show (every counter set, as
 * SIGUSR1 logs them) and conn/show (each io lcore's TCP connections,
 * written by the lcore itself).
 *
 * The socket is app.ctl_socket, by default /run/ofcd/<EAL file-prefix>.ctl,
 * next to the instance lock of the same prefix: one ofcd per prefix holds
 * that lock, so the socket it finds there is a dead one's and may be
 * replaced, and ofcdctl finds it from the same configuration
 * (instance_lock.h). Mode 600.
 *
 * Opened after the switch view, the flow manager and the port exist and
 * before the control thread starts, which serves it (control.c); closed
 * after that thread has stopped.
 */
#ifndef OFCD_CTL_CMDS_H
#define OFCD_CTL_CMDS_H

#include "app.h"

/* conn/show waits this long for the io lcores (they answer at their
 * 100 ms tick), then answers with what came. */
#define CTL_CONN_SHOW_WAIT_MS 2000

/* 0, or a negative errno (logged, naming the socket). */
int ctl_cmds_open(struct app_ctx *app, const char *file_prefix);
void ctl_cmds_close(struct app_ctx *app);

#endif
