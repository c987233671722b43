/*
 * lcore: the poll loop every EAL lcore with a role runs.
 *
 * Loop order, written once: rx → timers → rings → tx → idle backoff.
 *   rx      io role: burst from the port queue this lcore owns, each frame
 *           through net_rx(); replies are rewritten in place and batched.
 *   timers  every LCORE_TICK_US: ARP expiry, counter snapshot.
 *   rings   worker role: msg_in/msg_out (arrives with the OpenFlow channel).
 *   tx      flush the batch; refused frames are freed and counted.
 *   idle    after cfg.idle_polls empty iterations, sleep cfg.idle_sleep_us
 *           (0 = never sleep) so a small machine keeps its other cores' work.
 */
#ifndef OFCD_LCORE_H
#define OFCD_LCORE_H

#include "app.h"

#define LCORE_TICK_US 100000ULL
#define LCORE_MAX_BURST 512

/* Allocate and initialise the context of an lcore (io/worker per config).
 * Returns NULL and logs on failure. */
struct lcore_ctx *lcore_ctx_create(struct app_ctx *app, unsigned lcore_id, bool io,
                                   bool worker, uint16_t queue);
void lcore_ctx_destroy(struct lcore_ctx *lc);

/* rte_eal_remote_launch() entry: runs until app->stop. arg is the lcore_ctx. */
int lcore_main(void *arg);

/* Copy the latest published snapshot (any thread). */
void lcore_read_snapshot(struct lcore_ctx *lc, struct lcore_snapshot *out);

#endif
