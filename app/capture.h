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
 *
 * Frozen copies (capture_shelf.h): capture_freeze, from any thread (the
 * control thread on a disconnect or an OFPT_ERROR, the flow manager's
 * event on a mended table, ofcdctl's capture/freeze), asks; the control
 * thread's capture_freeze_tick takes the asks one at a time through the
 * same one-at-a-time ask (a capture/get or a download in progress goes
 * first) and puts each capture on the shelf, logged with its id.
 */
#ifndef OFCD_CAPTURE_H
#define OFCD_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "capture_shelf.h"

#define CAPTURE_WHY_MAX 256u
#define CAPTURE_WAIT_MS 2000u       /* an io lcore's answer, at most */

struct app_ctx;
struct ofcd_pcapng;

int capture_ask(struct app_ctx *app, uint64_t dpid, char *why);
/* The same by connection handle (as the logs print it, "connection 0x..."):
 * a switch that never finished its handshake has no dpid. */
int capture_ask_conn(struct app_ctx *app, uint64_t conn, char *why);
int capture_take(struct app_ctx *app, struct ofcd_pcapng *w, char *why);
/* The asker gave up (its deadline): the next ask may go once the io lcore
 * has answered this one. */
void capture_drop(struct app_ctx *app);
int capture_wait(struct app_ctx *app, uint64_t dpid, struct ofcd_pcapng *w, char *why);

/* Freeze the record of dpid's connection conn (0: its connection when the
 * freeze is taken) for reason: 0 asked; -EALREADY (the same switch and
 * kind asked or frozen lately), -ENOSPC (too many asks waiting), -ENOTSUP
 * (nothing is frozen: the recorder or openflow.recorder_frozen is 0). */
int capture_freeze(struct app_ctx *app, uint64_t dpid, uint64_t conn, enum capture_kind kind,
                   const char *reason);
/* Frozen copy id of dpid: malloc'd into *out (*len bytes), what it holds
 * in why; or -ENOENT (none, or another switch's), -ENOMEM, with why. */
int capture_frozen_copy(struct app_ctx *app, uint64_t dpid, uint32_t id, uint8_t **out,
                        size_t *len, char *why);
/* dpid's frozen copies, oldest first: {"captures": [{id, time (UTC), kind,
 * reason, summary, bytes}], "max": N}. New reference; NULL out of memory. */
json_t *capture_frozen_json(struct app_ctx *app, uint64_t dpid);
/* The control thread, every wake-up: the freeze in progress, or the next. */
void capture_freeze_tick(struct app_ctx *app);
struct qmsg;
/* The control thread, for each worker event: a switch down or an
 * OFPT_ERROR from it asks a freeze (not the *_EXISTS / UNKNOWN_* errors of
 * a group or meter the flow manager answers with the other command). */
void capture_on_worker_event(struct app_ctx *app, const struct qmsg *q);

#endif
