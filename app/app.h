/*
 * app: the two context structs that hold all of ofcd's run-time state.
 *
 * struct app_ctx is the appliance: config, port, lcore contexts, the stop
 * flag, the control thread. struct lcore_ctx is one EAL lcore's private state
 * (cache-aligned, touched only by that lcore), plus a published snapshot of
 * its counters that other threads read under a sequence lock.
 */
#ifndef OFCD_APP_H
#define OFCD_APP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_lcore.h>

#include "arp_cache.h"
#include "cfg.h"
#include "net.h"
#include "port.h"
#include "ctl_switches.h"
#include "msgq.h"
#include "of_io.h"
#include "of_worker.h"
#include "qmsg_pool.h"
#include "tcp.h"

/* What one lcore's loop did, for operators and benches. */
struct lcore_stats {
    uint64_t loops;
    uint64_t rx_packets;
    uint64_t rx_unusable;      /* chained frame that could not be linearised */
    uint64_t tx_packets;
    uint64_t tx_dropped;       /* the port refused them: freed and counted here */
    uint64_t tx_alloc_failed;  /* no mbuf for a frame we wanted to send */
    uint64_t idle_sleeps;
};

/* A consistent copy of an lcore's counters, refreshed on its timer tick. */
struct lcore_snapshot {
    struct lcore_stats lcore;
    struct net_stats net;
    struct arp_cache_stats arp;
    uint32_t arp_entries;
    struct tcp_stats tcp;
    uint32_t tcp_states[TCP_STATE_COUNT];
    uint32_t tcp_conns;
    uint32_t tcp_chunks_free;
    uint64_t connector_attempts, connector_established, connector_failures;
    uint64_t connector_disconnects;
    uint32_t connector_backoff_ms;
    struct of_io_stats of_io;
    uint32_t of_conns;
    struct of_worker_stats of_worker;
    struct msgq_stats msg_in;         /* worker role */
    struct msgq_stats msg_out;        /* io role */
};

#define LCORE_TXQ_MAX 512

struct echo_service;
struct store;
struct flowmgr;

struct app_ctx;

struct lcore_ctx {
    struct app_ctx *app;
    unsigned lcore_id;
    bool role_io;
    bool role_worker;
    uint16_t queue;               /* io: the port queue this lcore owns */
    uint64_t tsc_hz;
    uint64_t now_us;              /* this iteration's clock */
    uint64_t next_tick_us;
    unsigned dump_seen;
    unsigned dump_seen_ofw;
    uint32_t empty_polls;
    struct net_ctx net;
    struct arp_cache *arp;
    struct tcp_stack *tcp;
    struct rte_mempool *tcp_chunks;
    struct echo_service *echo;    /* test-only (tcp.echo_port) */
    struct echo_service *echo_out; /* test-only (tcp.echo_connect) */
    struct of_io *ofio;           /* io role: OpenFlow connections */
    struct of_worker *ofw;        /* worker role: channels and switch model */
    struct lcore_stats stats;

    /* Frames waiting for the tx phase: replies and TCP segments. */
    struct rte_mbuf *txq[LCORE_TXQ_MAX];
    uint16_t ntx;

    /* Seqlock-published snapshot: odd seq = being written. */
    atomic_uint snap_seq;
    struct lcore_snapshot snap;
} __rte_cache_aligned;

struct app_ctx {
    struct ofcd_config cfg;
    struct port *port;
    struct rte_mempool *pool;
    char kernel_ifname[32];       /* tap: the kernel side, "" otherwise */
    atomic_bool stop;
    atomic_uint dump_conns;       /* bumped on SIGUSR2: lcores log their connections */
    struct lcore_ctx *lcores[RTE_MAX_LCORE];  /* NULL where an lcore has no role */
    unsigned n_io;
    unsigned n_workers;
    struct qmsg_pool *qpool;
    struct msgq *worker_in[CFG_MAX_LCORES];   /* by worker index */
    struct msgq *io_out[CFG_MAX_LCORES];      /* by io index (= queue) */
    struct msgq *events;          /* workers → control thread */
    struct ctl_switches *ctl;     /* the control thread's switch view */
    pthread_mutex_t ctl_lock;     /* ctl: control thread writes, REST threads read */
    struct rest_server *rest;
    struct store *store;          /* the durable flow store (LMDB) */
    struct flowmgr *fm;           /* the flow manager (control thread + REST) */
    pthread_t control;
    bool control_started;
};

#endif
