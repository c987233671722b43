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

#include "app_class.h"
#include "capture_shelf.h"
#include "ofcd_ratelimit.h"
#include "cfg.h"
#include "sw_view.h"
#include "lcore.h"
#include "msgq.h"
#include "ofcd_journal.h"
#include "of_io.h"
#include "of_pins.h"
#include "rx_signal.h"
#include "of_worker.h"
#include "qmsg_pool.h"
#include "rest.h"
#include "ofcd_doorbell.h"
#include "ofcd_sd_notify.h"
#include "rest_auth.h"
#include "rest_events.h"

struct echo_service;
struct fm;
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
    /* TEST ONLY (test_services.h): tcp.echo_port, tcp.echo_connect; always
     * NULL in a product build. */
    struct echo_service *echo;
    struct echo_service *echo_out;
};

struct app_ctx {
    struct ofcd_config cfg;
    struct ofcd_journal journal;      /* the log's entries under systemd (ofcd_journal.h) */
    int argc;                         /* the command line: a reload reads it again */
    char **argv;
    struct of_app apps[OF_APPS_MAX];  /* wire_apps(): the worker's hooks, in order */
    unsigned n_apps;
    struct app_inst inst[OF_APPS_MAX];  /* the running apps (app/apps.c), inst[i] hooks apps[i] */
    unsigned n_inst;
    struct app_host host;            /* what the apps are lent (wire_apps, wire_apps_load) */
    struct port *port;
    struct tls_ctx *tls;             /* [tls]: the TLS port's certificates, NULL = none */
    struct of_pins pins;             /* tls.pins_file, read by the workers */
    struct rte_mempool *pool;
    char kernel_ifname[32];          /* tap: the kernel side, "" otherwise */
    /* systemd's readiness (Type=notify): main says READY and what it is
     * doing, the control thread STOPPING and the watchdog's keep-alive. */
    struct ofcd_sd_notify notify;
    atomic_bool stop;
    atomic_uint dump_conns;          /* bumped on SIGUSR2: lcores log their connections */
    /* Cluster mode: whether this node may act as a master now (its lease
     * fence); the cluster class stores it, the workers read it before an
     * app's FLOW_MOD or PACKET_OUT. False until the cluster says so. */
    atomic_bool cluster_may_act;
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
    struct sw_view *ctl;        /* the control thread's switch view */
    pthread_mutex_t ctl_lock;        /* ctl: control thread writes, REST threads read */
    struct rest_server *rest;
    char ui_dir[4096];               /* the dashboard's folder the server was given */
    struct rest_events *stream;      /* GET /api/v1/events: the control thread publishes */
    struct rest_auth_stats rest_auth_st;  /* REST threads count logins and tokens here */
    struct store *store;             /* the durable flow store (LMDB) */
    struct fm *fm;              /* the flow manager (control thread + REST) */
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
    /* One flight-record capture at a time (capture.h): capture/get on the
     * control thread, GET .../capture on a REST thread. */
    struct {
        pthread_mutex_t lock;        /* busy; the rest is the asker's while busy */
        bool busy;
        uint64_t dpid;               /* 0: asked by connection */
        uint64_t conn;
        struct of_io *io;
        uint64_t deadline_ms;        /* capture/get's, on the control thread's clock */
        bool ctl_asking;             /* capture/get waits for its turn to ask */
        uint64_t ctl_dpid, ctl_conn;
        /* Frozen copies (capture_shelf.h): asked from any thread,
         * frozen one at a time by the control thread (capture.h). */
        pthread_mutex_t shelf_lock;
        struct capture_shelf shelf;
        struct ofcd_ratelimit rl_full;   /* freezes let go: the asks were full */
        bool freeze_held;            /* control thread: an ask taken, not yet asked */
        bool freezing;               /* ... asked of its io lcore */
        struct capture_ask freeze;
        uint64_t freeze_deadline_ms;
    } capture;
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

/* views.c: the switch view's lock, as the REST face and the apps take it
 * (arg: the app_ctx); lock returns the view. */
const struct sw_view *app_view_lock(void *arg);
void app_view_unlock(void *arg);

/* views.c: what the REST face reads (app must outlive the server). */
void app_rest_sources(struct app_ctx *app, struct rest_sources *out);

#endif
