/*
 * of_worker: the worker role's OpenFlow handling — one instance per worker
 * lcore. It drains its msg_in ring (strict priority, anti-starvation), runs
 * each switch connection's channel state machine (ofp_chan), keeps the
 * switch model (of_switch, by dpid), answers malformed messages with the
 * right OFPT_ERROR, and sends through the owning io lcore's msg_out ring.
 *
 * Messages that arrive before a channel is established wait on the
 * connection and are handled once it is (beyond OFW_HELD_MAX the switch is
 * cut off). A full msg_out or events ring parks the message on the worker's
 * ordered backlog, retried every loop (bounded by the pools it holds).
 *
 * Events to the control thread do not get lost for want of a buffer: a
 * switch is announced (SWITCH_UP) only once the buffer for its SWITCH_DOWN
 * is kept too, and its messages wait until then; a forwarded message
 * travels in its own buffer. Only echo round-trip samples are skipped when
 * the events pool is empty (counted, logged rate-limited; the next sample
 * is as good). Messages the worker sends that find the control pool empty
 * are counted (no_buffer): the channel's timers and the flow manager's
 * retries cover them.
 */
#ifndef OFCD_OF_WORKER_H
#define OFCD_OF_WORKER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "msgq.h"
#include "of_app.h"
#include "ofcd_counters.h"
#include "ofcd_doorbell.h"
#include "of_pins.h"
#include "ofp_chan.h"
#include "qmsg_pool.h"

struct of_worker;

#define OF_WORKER_COUNTERS(X)                                                             \
    X(msgs, "OpenFlow messages handled")                                                  \
    X(conns_up, "switch connections the worker took on")                                  \
    X(conns_down, "switch connections gone")                                              \
    X(switches_established, "channels that reached ESTABLISHED")                          \
    X(switches_replaced, "a dpid reconnected over its live connection")                   \
    X(malformed, "malformed messages answered with OFPT_ERROR")                           \
    X(malformed_disconnects, "switches cut off for openflow.malformed_limit")             \
    X(errors_from_switches, "OFPT_ERRORs switches sent")                                  \
    X(held, "messages held until the channel was established")                            \
    X(port_status, "PORT_STATUS messages")                                                \
    X(packet_in, "PACKET_IN messages")                                                    \
    X(echo_timeouts, "switches cut off for not answering echo")                           \
    X(handshake_timeouts, "connections cut off for not finishing the handshake")          \
    X(hello_timeouts, "connections cut off for not sending HELLO in time")                \
    X(out_backlogged, "msg_out full: messages parked and retried")                        \
    X(no_buffer, "message buffer pool empty")                                             \
    X(events, "events posted to the control thread")                                      \
    X(events_lost, "events lost: a forward without room in its buffer found no other")    \
    X(events_deferred, "switch announcements that waited for the events pool")           \
    X(rtt_samples_skipped, "echo round trips not reported: events pool empty")            \
    X(polls_sent, "statistics requests sent")                                             \
    X(polls_skipped, "statistics requests skipped: previous reply incomplete")           \
    X(mp_unsolicited, "multipart replies nobody asked for (or past their bounds): dropped") \
    X(mp_oversized, "statistics replies over openflow.mp_max_kb/mp_max_parts: dropped")    \
    X(ports_over_limit, "switches cut off for more than openflow.max_ports ports")       \
    X(dpid_claims_refused, "connections refused: their dpid's live connection answered")  \
    X(dpid_claims_evicted, "live connections replaced: silent when their dpid was claimed") \
    X(switches_forgotten, "switch models dropped: gone longer than openflow.forget_after_s") \
    X(switches_swept, "down switch models the once-a-second forget sweep looked at")       \
    X(switches_evicted, "down switch models dropped for a new dpid: max_switches_known")    \
    X(switches_refused, "new dpids refused: max_switches_known models, all live switches") \
    X(pin_refused, "connections refused: certificate not the one tls.pins_file pins")      \
    X(app_sends_not_master, "apps' FLOW_MOD/PACKET_OUT refused: not the switch's master")
#define OF_WORKER_GAUGES(X)                                                               \
    X(switches_up, "switches established now")                                            \
    X(switches_known, "switches the worker has a model of")                               \
    X(ports_known, "ports the worker's switch models hold (live switches only)")          \
    X(conns, "connections the worker tracks now")

struct of_worker_stats {
    OF_WORKER_COUNTERS(OFCD_COUNTER_FIELD)
    OF_WORKER_GAUGES(OFCD_COUNTER_FIELD)
};

extern const struct ofcd_counter_group of_worker_counters;   /* "openflow_worker" */

struct of_worker_cfg {
    unsigned index;                  /* which worker (msg_in ring name) */
    uint32_t queue_size;             /* msg_in slots per class */
    bool multi_producer;             /* several io lcores feed msg_in */
    uint32_t malformed_limit;        /* bad messages per switch per minute */
    uint32_t max_ports;              /* per switch, PORT_DESC and PORT_STATUS together */
    uint32_t forget_after_s;         /* a gone switch's model is dropped then, 0 = never */
    uint32_t max_switches_known;     /* switch models kept, up or down (0 = no bound) */
    uint32_t mp_max_kb;              /* one statistics reply, all its parts */
    uint32_t mp_max_parts;
    uint32_t stats_interval_s;       /* FLOW/PORT_STATS/TABLE polling, 0 = off */
    uint32_t role;                   /* OFPCR_ROLE_* asked once established */
    uint64_t generation_id;
    /* Cluster mode (cluster.etcd_endpoints): several nodes share each
     * switch and only its master may change it. The switch refuses a
     * slave's FLOW_MOD too, but a node must not even try: its apps'
     * FLOW_MODs and PACKET_OUTs go out only on a connection whose switch
     * answered a ROLE_REQUEST with MASTER (last ROLE_REPLY; a role request
     * error, OFPBRC_IS_SLAVE or a new connection: not master) and only
     * while *may_act (the node's lease fence; NULL = always). Refused:
     * of_app_send returns -EPERM, counted in app_sends_not_master. Off
     * (one node): the apps send as they always did. */
    bool role_gate;
    const atomic_bool *may_act;
    struct ofp_chan_cfg chan;
    const struct of_app *apps[OF_APPS_MAX];  /* their hooks, called in this order */
    const struct of_pins *pins;      /* tls.pins_file (shared, read-only), NULL = none */
    /* Rung after a poll pass that posted an urgent event (switch up/down,
     * a switch's message other than a statistics reply), so the control
     * thread hears it now rather than at its next timer (NULL = none);
     * statistics replies, echo samples and apps' events wait for the
     * timer. */
    struct ofcd_doorbell *events_bell;
    unsigned n_apps;
};

/* Create a worker and its msg_in ring: what it sends switches comes from
 * pool, what it tells the control thread from event_pool. Returns NULL
 * (logged). */
struct of_worker *of_worker_create(const struct of_worker_cfg *cfg, struct qmsg_pool *pool,
                                   struct qmsg_pool *event_pool);
void of_worker_destroy(struct of_worker *w);

struct msgq *of_worker_msg_in(struct of_worker *w);

/* The msg_out ring of every io lcore, by io index (after they exist), and the
 * events ring to the control thread. */
void of_worker_set_outputs(struct of_worker *w, struct msgq **io_out, unsigned n_io,
                           struct msgq *events);

/* One pass: messages, timers, backlog. Returns whether it did anything. */
bool of_worker_poll(struct of_worker *w, uint64_t now_us, uint64_t now_tsc);

void of_worker_get_stats(const struct of_worker *w, struct of_worker_stats *out);

/* Visit the live counters (on the worker lcore: its counter publication). */
void of_worker_visit_counters(const struct of_worker *w, ofcd_counter_fn fn, void *arg);

/* Log every switch the worker knows (SIGUSR2). */
void of_worker_log_switches(const struct of_worker *w);

#endif
