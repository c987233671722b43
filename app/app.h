/*
 * app: the appliance as one struct — the configuration, the port, one entry
 * per EAL lcore with a role (its lcore context and the tasks the app gave
 * it), the OpenFlow rings and buffers, the control thread's switch view, the
 * flow store and manager, the REST server.
 *
 * main.c builds it in order (config → EAL → port → lcores → OpenFlow →
 * flow manager → control thread → REST) and tears it down in reverse;
 * wire.c turns the configuration into each module's own config; views.c is
 * what other threads read (counters for the log and /metrics, the REST
 * sources). Only main's thread writes it before the lcores launch; after,
 * each piece has the owner its header names.
 */
#ifndef OFCD_APP_H
#define OFCD_APP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <rte_lcore.h>

#include "cfg.h"
#include "ctl_switches.h"
#include "lcore.h"
#include "msgq.h"
#include "of_l2learn.h"
#include "of_io.h"
#include "of_pins.h"
#include "rx_signal.h"
#include "of_worker.h"
#include "qmsg_pool.h"
#include "rest.h"
#include "ofcd_doorbell.h"
#include "rest_auth.h"
#include "rest_events.h"
#include "topo_admin.h"
#include "topo_app.h"
#include "topo_ctl.h"
#include "topo_flow.h"
#include "topo_rest.h"

struct echo_service;
struct flowmgr;
struct ofcd_ctl;
struct ofcd_ctl_server;
struct port;
struct rest_server;
struct rte_mempool;
struct store;

/* One EAL lcore with a role. */
struct app_lcore {
    struct lcore_ctx *lc;            /* NULL: this lcore has no role */
    bool io, worker;
    uint16_t queue;                  /* io: the port queue (= io index) */
    struct of_io *ofio;              /* io role */
    struct of_worker *ofw;           /* worker role */
    struct echo_service *echo;       /* TEST ONLY: tcp.echo_port */
    struct echo_service *echo_out;   /* TEST ONLY: tcp.echo_connect */
};

struct app_ctx {
    struct ofcd_config cfg;
    struct of_app apps[OF_APPS_MAX];  /* wire_apps(): the worker's hooks, in order */
    unsigned n_apps;
    struct l2_cfg l2;                /* apps.l2_learning's, read by the workers */
    /* apps.topology: the workers' part (topo), what operators switched off
     * (REST writes, workers read), the control thread's links (under
     * ctl_lock) and the REST routes; topo_ctl NULL = off. */
    struct topo_app_cfg topo;
    struct topo_admin *topo_admin;
    /* The LLDP flow's failure lines at switch up: `ensure` the control
     * thread's, `stored` the store committer's (topo_flow.h). */
    struct topo_flow_log topo_flow_log;
    struct topo_ctl *topo_ctl;
    struct topo_rest topo_rest;
    struct port *port;
    struct tls_ctx *tls;             /* [tls]: the TLS port's certificates, NULL = none */
    struct of_pins pins;             /* tls.pins_file, read by the workers */
    struct rte_mempool *pool;
    char kernel_ifname[32];          /* tap: the kernel side, "" otherwise */
    atomic_bool stop;
    atomic_uint dump_conns;          /* bumped on SIGUSR2: lcores log their connections */
    struct app_lcore lcores[RTE_MAX_LCORE];
    unsigned n_io;
    unsigned n_workers;
    struct qmsg_pool *qpool;         /* what switches send (charged to their shares) */
    struct qmsg_pool *cpool;         /* the control plane's: workers, flow manager */
    struct qmsg_pool *epool;         /* events: connection and switch up/down, echo rtt */
    struct msgq *worker_in[CFG_MAX_LCORES];   /* by worker index */
    struct msgq *io_out[CFG_MAX_LCORES];      /* by io index (= queue) */
    struct msgq *events;             /* workers → control thread */
    struct ofcd_doorbell events_bell; /* workers wake the control thread with it */
    struct ctl_switches *ctl;        /* the control thread's switch view */
    pthread_mutex_t ctl_lock;        /* ctl: control thread writes, REST threads read */
    struct rest_server *rest;
    struct rest_events *stream;      /* GET /api/v1/events: the control thread publishes */
    struct rest_auth_stats rest_auth_st;  /* REST threads count logins and tokens here */
    struct store *store;             /* the durable flow store (LMDB) */
    struct flowmgr *fm;              /* the flow manager (control thread + REST) */
    pthread_t control;
    bool control_started;
    /* ofcdctl: the commands and their socket (ctl_cmds.c), served by the
     * control thread; conn/show's one request at a time, answered by the
     * io lcores. */
    struct ofcd_ctl *cmds;
    struct ofcd_ctl_server *cmd_srv;
    struct {
        bool busy;
        uint64_t deadline_ms;
        bool asked[RTE_MAX_LCORE];
    } conn_show;
    struct rx_signal rxsig;          /* takes the tap PMD's signals off the lcores */
};

/* views.c: every counter set — port, buffers, switches, flow manager, store,
 * then each lcore's published sets — for the stats log and /metrics. */
void app_visit_counters(struct app_ctx *app, ofcd_counter_fn fn, void *arg);

/* views.c: one priority ring as a line: "<who> <id> <name>: depth ...". */
size_t app_format_ring(char *line, size_t n, const char *who, unsigned id, const char *name,
                       const struct msgq_stats *q);

/* views.c: every lcore's priority rings (msg_in of workers, msg_out of io
 * lcores), for the stats log and /metrics. */
void app_visit_rings(struct app_ctx *app, rest_ring_fn fn, void *arg);

/* views.c: what the REST face reads (app must outlive the server). */
void app_rest_sources(struct app_ctx *app, struct rest_sources *out);

#endif
