/*
 * lcore_priv: the lcore context itself, shared by lcore.c (the loop, tasks,
 * counter publication) and lcore_io.c (the io role's binding of the net
 * layer and TCP stack to DPDK: tx batch, ARP requests, chunk pool).
 */
#ifndef OFCD_LCORE_PRIV_H
#define OFCD_LCORE_PRIV_H

#include <signal.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "arp_cache.h"
#include "lcore.h"
#include "net.h"
#include "ofcd_doorbell.h"
#include "ofcd_seqlock.h"
#include "ofcd_textreq.h"
#include "tcp.h"

#define LCORE_MAX_SETS 32            /* published counter sets */
#define LCORE_LABELS_MAX 64

/* One published set: which group, told apart by which labels, where. */
struct lcore_set {
    const struct ofcd_counter_group *group;
    char labels[LCORE_LABELS_MAX];
    unsigned off;                    /* first word in the snapshot */
};

struct lcore_ctx {
    struct lcore_cfg cfg;
    struct lcore_env env;
    struct ofcd_log_ring *log;       /* the loop's log lines, drained by the control thread */
    uint64_t now_us;                 /* this iteration's clock */
    uint64_t next_tick_us;
    unsigned dump_seen;
    struct ofcd_textreq conns;       /* conn/show: asked by the control thread */
    uint32_t empty_polls;
    struct ofcd_doorbell bell;       /* ends an idle sleep (lcore_bell) */
    bool bell_armed;                 /* armed by an empty iteration: the next may sleep */
    uint32_t sleeps_in_row;          /* timed idle sleeps since the last work */
    sigset_t sleep_sigs;             /* the mask while asleep on the bell */
    struct lcore_stats stats;
    /* io role */
    struct net_ctx net;
    struct arp_cache *arp;
    struct tcp_stack *tcp;
    struct rte_mempool *tcp_chunks;
    struct rte_mbuf *txq[LCORE_TXQ_MAX];   /* frames waiting for the tx phase */
    uint16_t ntx;

    struct lcore_task tasks[LCORE_MAX_TASKS];
    unsigned n_tasks;

    /* Published counters: sets fixed before launch; staging is the lcore's
     * own, snap what other threads read under the seqlock. */
    struct lcore_set sets[LCORE_MAX_SETS];
    unsigned n_sets;
    unsigned n_words;
    uint64_t *staging;
    uint64_t *snap;
    struct ofcd_seqlock snap_lock;
} __rte_cache_aligned;

/* io role (lcore_io.c) */
int lcore_io_setup(struct lcore_ctx *lc);
void lcore_io_teardown(struct lcore_ctx *lc);
/* Send the pending tx batch to the port; refused frames are freed and counted. */
void lcore_tx_flush(struct lcore_ctx *lc, uint64_t now_us);
/* Queue one built frame for tx (flushes first when the batch is full). */
void lcore_tx_enqueue(struct lcore_ctx *lc, struct rte_mbuf *m, uint64_t now_us);
/* Build and queue an ARP request for ip (host order). */
int lcore_send_arp_request(struct lcore_ctx *lc, uint32_t target_ip, uint64_t now_us);

#endif
