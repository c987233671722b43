/*
 * tcp_env: binds one io lcore's TCP stack to DPDK — segments go into the
 * lcore's tx batch as mbufs (with checksum offload flags where the port has
 * them), payload chunks come from a per-lcore mempool, next hops come from
 * the lcore's ARP cache (a miss sends a rate-limited ARP request).
 */
#ifndef OFCD_TCP_ENV_H
#define OFCD_TCP_ENV_H

#include "app.h"

/* Create the chunk pool and the stack for an io lcore (lc->tcp, lc->tcp_chunks).
 * Returns 0 or a negative errno (logged). */
int tcp_env_setup(struct lcore_ctx *lc, uint64_t now_us);
void tcp_env_teardown(struct lcore_ctx *lc);

/* Send the lcore's pending tx batch to the port; refused frames are freed
 * and counted. */
void lcore_tx_flush(struct lcore_ctx *lc, uint64_t now_us);

/* Queue one built frame for tx (flushes first when the batch is full). */
void lcore_tx_enqueue(struct lcore_ctx *lc, struct rte_mbuf *m, uint64_t now_us);

/* Build and queue an ARP request for ip (host order). */
int lcore_send_arp_request(struct lcore_ctx *lc, uint32_t target_ip, uint64_t now_us);

#endif
