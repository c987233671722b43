/*
 * capture_ctl: ofcdctl's flight-record commands (capture.h does the work):
 *   capture/get DPID [ID]   the switch's live record, or its frozen copy ID,
 *                           as a pcapng file in hex (ofcdctl capture/save
 *                           DPID FILE [ID] writes the file)
 *   capture/list            the frozen copies: id, switch, when, why
 *   capture/freeze DPID     freeze the switch's record now
 */
#ifndef OFCD_CAPTURE_CTL_H
#define OFCD_CAPTURE_CTL_H

struct app_ctx;

/* Into app->cmds: 0 or a negative errno. */
int capture_ctl_register(struct app_ctx *app);

#endif
