/*
 * capture: a switch's flight record (ofp/path/of_flight.h) as a pcapng file,
 * asked of the io lcore that holds it — for ofcdctl's capture/get (the
 * control thread) and GET /api/v1/switches/{dpid}/capture (REST threads).
 * One capture at a time for the whole appliance (the io lcores' ask slots
 * take one asker each): a second one is told -EBUSY.
 *
 *   capture_ask   finds the switch (up, or down while its slot keeps its
 *                 last connection's record) and asks its io lcore: 0, or
 *                 -EINVAL / -ENOENT / -ENOTSUP / -EBUSY with why
 *   capture_take  the answer once there: 1 (not yet), 0 with the capture
 *                 in *w (the caller frees it) and a line saying what it
 *                 holds, or a negative errno with why; each ask ends with
 *                 one take that is not 1, or with capture_drop
 *   capture_wait  both, for a thread that may block (REST): the io lcore
 *                 (poll mode: it signals nobody) is looked at every 200 µs
 *                 for CAPTURE_WAIT_MS at most, then -ETIMEDOUT
 */
#ifndef OFCD_CAPTURE_H
#define OFCD_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#define CAPTURE_WHY_MAX 256u
#define CAPTURE_WAIT_MS 2000u       /* an io lcore's answer, at most */

struct app_ctx;
struct ofcd_pcapng;

int capture_ask(struct app_ctx *app, uint64_t dpid, char *why);
int capture_take(struct app_ctx *app, struct ofcd_pcapng *w, char *why);
/* The asker gave up (its deadline): the next ask may go once the io lcore
 * has answered this one. */
void capture_drop(struct app_ctx *app);
int capture_wait(struct app_ctx *app, uint64_t dpid, struct ofcd_pcapng *w, char *why);

#endif
