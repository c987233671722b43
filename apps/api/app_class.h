/*
 * app_class: what an app is to the appliance — one struct per app, its
 * class, and the host that lends it the appliance's shared pieces. L2
 * learning (apps/l2learn/l2_class.c) and topology (apps/topo/topo_class.c)
 * are the two instances; app/apps.c lists the classes, and app/wire.c,
 * app/control.c and app/views.c loop over them, naming none.
 *
 * An app's life, all of it called from main's thread or the control thread:
 *
 *   enabled(cfg)             its switch in the configuration (apps.NAME)
 *   create(host, index, hooks, &self)
 *                            build the instance from host->cfg (its own
 *                            rows: config_keys), fill the worker hooks
 *                            (ofp/path/of_app.h; index is its slot there,
 *                            what of_app_event names); before the store
 *                            and the flow manager exist (the manager is
 *                            made knowing every app's cookie range); an
 *                            app with no part on the workers leaves the
 *                            hooks unnamed and takes no slot
 *   load(self)               the store is open: read back durable records
 *   ... the lcores run; on the control thread:
 *   on_event_locked(self, ev, now_us)
 *                            each worker event (switch up/down, port
 *                            status, the app's own QMSG_EV_APP), with the
 *                            switch view's lock held, after the view saw it
 *   on_event(self, ev, now_us)
 *                            the same event, after the lock is let go
 *                            (where the app may wait for the store)
 *   on_tick(self, now_us)    every control pass (at most CONTROL_WAKE_MS
 *                            apart), for timeouts
 *   ... from any thread that reads counters (stats log, /metrics, ofcdctl):
 *   counters(self, fn, arg)  its counter sets (ofcd_counters.h)
 *   ... once, when the REST server is made:
 *   routes(self, out, max)   its REST paths (rest_ext, behind the same
 *                            authentication as the built-in ones)
 *   status(self, buf, len)   one line for the operator (ofcdctl app/list)
 *   refuses_writes, health   from REST threads: whether it refuses
 *                            changes now, its part of /api/v1/health
 *   quiesce(self)            the control thread stopped, the store still open:
 *                            the app's own threads stop
 *   destroy(self)            after the lcores and REST stopped
 *
 * Every hook but create and destroy may be NULL. Times are the poll
 * loop's clock (lcore_clock_us), the one the workers stamp events with.
 */
#ifndef OFCD_APP_CLASS_H
#define OFCD_APP_CLASS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofcd_counters.h"

struct sw_view;
struct fm;
struct of_app;
struct ofcd_config;
struct qmsg;
struct rest_events;
struct rest_ext;
struct store;

/* The appliance's shared pieces, lent to every app. main fills it as they
 * come up: cfg and stream before create, store and fm before load. */
struct app_host {
    const struct ofcd_config *cfg;
    struct rest_events *stream;      /* the event stream: publish from the control thread */
    struct store *store;             /* NULL: no store */
    struct fm *fm;              /* NULL: no flow manager */
    /* The control thread's switch view: on_event_locked runs with it
     * held; anything else takes it through these (REST threads read it). */
    void *view_arg;
    const struct sw_view *(*view_lock)(void *arg);
    void (*view_unlock)(void *arg);
    /* One OpenFlow message to a switch's connection (the conn of its
     * events), from the control thread: 0, or -ENOBUFS (try again). */
    int (*send)(void *arg, uint64_t conn, const uint8_t *msg, size_t len, uint8_t cls);
    void *send_arg;
    /* The workers' gate in a cluster: whether this node may act as a
     * master now (the cluster app stores it; NULL outside a cluster). */
    atomic_bool *may_act;
    /* Another running app's instance by its class name (NULL: not
     * running), for an app built on another's services (the circuits on
     * the topology's paths): complete once every app is created, so asked
     * from load on. */
    void *(*app_find)(void *arg, const char *name);
    void *app_find_arg;
    /* In a cluster (NULL outside one): is this node the cluster's leader
     * now, the one node that does what only one may (the circuits'
     * changes)? The leader's name and REST address ("node2 at
     * 10.66.2.2:8181"; "" when none is known) into leader (len 0: not
     * asked). Any thread. */
    bool (*leads)(void *arg, char *leader, size_t len);
    void *leads_arg;
};

struct app_class {
    const char *name;                /* as the config, logs and ofcdctl name it */
    const char *const *config_keys;  /* the keys it reads, NULL-terminated */
    bool (*enabled)(const struct ofcd_config *cfg);
    /* What turns it on, as "section.key=value"; NULL = "apps.NAME=true". */
    const char *switched_by;
    int (*create)(const struct app_host *host, unsigned index, struct of_app *hooks,
                  void **self);
    int (*load)(void *self);
    void (*on_event_locked)(void *self, const struct qmsg *ev, uint64_t now_us);
    void (*on_event)(void *self, const struct qmsg *ev, uint64_t now_us);
    void (*on_tick)(void *self, uint64_t now_us);
    void (*counters)(void *self, ofcd_counter_fn fn, void *arg);
    /* Up to max routes into out; returns how many. */
    unsigned (*routes)(void *self, const struct rest_ext **out, unsigned max);
    void (*status)(void *self, char *buf, size_t len);
    /* From the flow manager (any thread, its lock held): may this node
     * send FLOW_MODs to the switch now? (a cluster: its confirmed master) */
    bool (*may_write)(void *self, uint64_t dpid);
    /* From the store's committer (a cluster's etcd backend): the key and
     * create revision that must hold for a master-only write of dpid's
     * (its state updates) to commit; -EPERM when this node does not master
     * it. store.h's store_guard_fn. */
    int (*store_guard)(void *self, uint64_t dpid, char *key, size_t cap, int64_t *rev);
    /* From the store's committer (a cluster's etcd backend): the key and
     * create revision that must hold for a leader-only write
     * (store_kv_put_leader: the circuits' records) to commit; -EPERM when
     * this node does not lead. store.h's store_leader_fn. */
    int (*store_leader_guard)(void *self, char *key, size_t cap, int64_t *rev);
    /* From the store's committer (a cluster's copy of etcd): an app record
     * (store_kv_*) written or removed, by any node. Quick, and it must not
     * take a lock that another thread holds across a store write (that
     * write waits for this very commit): queue the key, act on it later
     * (on_tick). */
    void (*store_changed)(void *self, const char *key, bool removed);
    /* From the switch view, its lock held (must not take it): on the
     * control thread, or a REST thread deleting the switch (topology v3
     * DELETE switches/{dpid}). The view let dpid's record go, evicted at
     * openflow.max_switches_known, forgotten after openflow's forget time,
     * or deleted. What the app keeps per switch that it can make again goes with
     * it, so switches that come and go (a dpid made up per connection) do
     * not grow it. NULL: it keeps nothing per switch. */
    void (*switch_forgotten)(void *self, uint64_t dpid);
    /* From REST threads, before any request that changes state (all but
     * GET, HEAD and logins): true refuses it with 503 and why (a cluster
     * node that cannot prove its lease may not write). */
    bool (*refuses_writes)(void *self, char *why, size_t len);
    /* The cluster app's answer to app_host.leads (any thread). */
    bool (*leads)(void *self, char *leader, size_t len);
    /* Its part of GET /api/v1/health: a JSON object's text in buf, under
     * the app's name; *ok false makes the whole answer degraded (503). */
    void (*health)(void *self, char *buf, size_t len, bool *ok);
    /* On the control thread when SIGINT/SIGTERM asks the appliance to
     * stop, before the poll loops stop, and again each pass of the control
     * loop (events still flow) until it returns 0: the switches' channels
     * are still up, so what the app hands over (a cluster node its
     * switches) is taken over while nothing is cut. 1 = not done yet; the
     * control thread stops anyway after CONTROL_STOP_WAIT_MS. */
    int (*on_stop)(void *self);
    /* After the control thread stopped, before the store and the flow
     * manager close: the app's own threads that write through them stop
     * here (whatever they were doing finished). */
    void (*quiesce)(void *self);
    void (*destroy)(void *self);
    /* The keys of config_keys it takes while running (NULL-terminated;
     * NULL: none), and what takes them: on the control thread, after a
     * reload (SIGHUP, ofcdctl config/reload) in which one of them changed,
     * with the whole new configuration. */
    const char *const *live_keys;
    void (*reconfigure)(void *self, const struct ofcd_config *cfg);
};

/* One running app. */
struct app_inst {
    const struct app_class *cls;
    void *self;
};

#endif
