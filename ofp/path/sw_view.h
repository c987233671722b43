/*
 * sw_view: the control thread's view of the switches, built only from
 * the events the workers send (of_event.h) — never by reading worker state,
 * so nothing is shared between threads. It is what the REST API and the
 * flow manager read: which dpids are up, on which connection (to address
 * flow_mods), their ports, and the latest statistics (reassembled from the
 * multipart replies of the periodic polls).
 *
 * Bounded: at most max_known records (openflow.max_switches_known). A
 * switch that goes down keeps its record but not its ports. At the bound a
 * new dpid takes the record of the switch down longest, one without stored
 * flows first (the view does not know the store: the has_flows hook asks
 * whoever does, the flow manager in ofcd); a record is made only by a
 * SWITCH_UP, and the workers refuse a new dpid when all of theirs are live,
 * so the view passes its bound only when several workers each fill theirs.
 * Records of switches down longer than forget_after_s are let go by a
 * sweep that looks only at those that are due.
 */
#ifndef OFCD_SW_VIEW_H
#define OFCD_SW_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "ofcd_counters.h"
#include "ofcd_dlist.h"
#include "of_event.h"
#include "of_switch.h"
#include "ofp_chan.h"
#include "qmsg.h"

#define CTL_MP_KINDS 3            /* FLOW, PORT_STATS, TABLE */

/* Each port's counters from the last complete port-statistics reply,
 * sorted by port number: only for ports the switch has told of (so at
 * most its ports, whatever a reply claims), with when its last part
 * reached the view (unix ms, for
 * operators and for rates between two polls). */
struct ctl_port_counters {
    struct ofp_port_stats *v;
    uint32_t n, cap;
    int64_t at_ms;
};

struct ctl_switch {
    uint64_t dpid;
    struct ctl_switch *hnext;
    conn_handle_t conn;
    bool up;
    uint8_t down_list;                  /* which list it is on while down (sw_view.c) */
    struct ofcd_dlist_node down_node;
    uint64_t up_since_us, down_since_us; /* the workers' lcore clock (event time) */
    int64_t up_wall, down_wall;         /* unix time, for operators */
    struct of_event_up info;
    struct of_port_list ports;
    /* statistics: entries in the last complete reply of each kind */
    uint64_t stats_entries[CTL_MP_KINDS];
    uint64_t stats_at_us[CTL_MP_KINDS];
    uint32_t acc_xid[CTL_MP_KINDS];
    uint64_t acc_entries[CTL_MP_KINDS];
    uint64_t port_status, flow_removed, errors, barrier_replies, role_replies;
    uint32_t echo_rtt_us, echo_ewma_us;  /* last measured round trip; 0 = none yet */
    uint64_t echo_samples;
    struct ctl_port_counters counters;  /* the last complete reply's */
    struct ctl_port_counters counting;  /* a reply arriving in parts */
};

/* The channels' echo RTT scale: bucket b holds [2^b, 2^(b+1)) µs. */
#define CTL_RTT_BUCKETS OFP_CHAN_RTT_BUCKETS

#define SW_VIEW_COUNTERS(X)                                                          \
    X(events, "events from the workers")                                                  \
    X(ups, "switches that came up")                                                       \
    X(downs, "switches that went down")                                                   \
    X(stats_replies, "complete multipart statistics replies")                             \
    X(undecodable, "forwarded messages the codec refused (a bug)")                        \
    X(forgotten, "switches gone longer than openflow.forget_after_s, forgotten")          \
    X(evicted, "down switches let go for a new dpid at openflow.max_switches_known")      \
    X(swept, "down switches the forget sweep looked at")
#define SW_VIEW_GAUGES(X)                                                            \
    X(known, "switches the control thread knows")                                         \
    X(up, "switches with an established OpenFlow channel")                                \
    X(ports, "ports of the switches that are up")

struct sw_view_stats {
    SW_VIEW_COUNTERS(OFCD_COUNTER_FIELD)
    SW_VIEW_GAUGES(OFCD_COUNTER_FIELD)
    /* not in the group: the histogram of every switch's echo round trips */
    uint64_t echo_rtt_hist[CTL_RTT_BUCKETS];
    uint64_t echo_rtt_sum_us;
};

extern const struct ofcd_counter_group sw_view_counters;  /* "switches" */

struct sw_view;

struct sw_view_cfg {
    uint32_t max_known;                 /* records, up or down; 0 = no bound */
    /* At the bound, of the switch down longest: does it have stored flows?
     * Those are let go after the others (NULL: none has). Called under
     * whatever serialises the view: it must not take that lock. */
    bool (*has_flows)(void *arg, uint64_t dpid);
    /* Told of each record let go, evicted or forgotten (NULL: nobody). */
    void (*forgotten)(void *arg, uint64_t dpid);
    void *arg;
};

/* cfg NULL: no bound, no hooks. */
struct sw_view *sw_view_create(const struct sw_view_cfg *cfg);
void sw_view_destroy(struct sw_view *cs);

/* Apply one event (the qmsg stays the caller's). */
void sw_view_handle(struct sw_view *cs, const struct qmsg *q);

/* Forget the switches down for after_us or longer. now_us is the clock the
 * workers stamp events with (the lcore clock, never stepped like the wall
 * clock), so the view forgets a switch when its worker does. Returns how
 * many. */
unsigned sw_view_forget(struct sw_view *cs, uint64_t now_us, uint64_t after_us);

const struct ctl_switch *sw_view_find(const struct sw_view *cs, uint64_t dpid);

/* An operator's delete (topology v3 DELETE switches/{dpid}): the record of
 * a switch that is down goes now, as if forgotten. 0, -ENOENT, or -EBUSY
 * (it is up: its next event would make it again). */
int sw_view_drop(struct sw_view *cs, uint64_t dpid);
/* ... and of one port of a switch (DELETE interfaces/{id}): gone from its
 * list until the switch tells of it again (a PORT_STATUS, a reconnect).
 * 0 or -ENOENT. */
int sw_view_drop_port(struct sw_view *cs, uint64_t dpid, uint32_t port);

/* For readers that render outside the lock (REST): take the lock, copy,
 * let it go, then render — so the lock is held for a copy of bounded size,
 * never for JSON or a slow client.
 *
 * The dpids known now (any order) into a malloc'd array (*out, free it):
 * their count, or -ENOMEM. */
int sw_view_dpids(const struct sw_view *cs, uint64_t **out);

/* One switch by value. Its ports are copied into a list of its own when
 * with_ports (of_ports_free it), else left out (n_ports says how many).
 * 0, -ENOENT, -ENOMEM. */
struct ctl_switch_copy {
    struct ctl_switch s;                /* s.ports and s.counters: copies, or empty;
                                         * no links */
    uint32_t n_ports;
};
/* Free what a copy holds. */
void ctl_switch_copy_free(struct ctl_switch_copy *c);
/* A port's counters in s (a switch or a copy), NULL when none came. */
const struct ofp_port_stats *ctl_switch_port_counters(const struct ctl_switch *s,
                                                      uint32_t port_no);
int sw_view_copy(const struct sw_view *cs, uint64_t dpid, bool with_ports,
                      struct ctl_switch_copy *out);

/* Visit every switch (any order). */
void sw_view_foreach(const struct sw_view *cs,
                          void (*fn)(const struct ctl_switch *s, void *arg), void *arg);
void sw_view_get_stats(const struct sw_view *cs, struct sw_view_stats *out);

/* Log one line per switch (SIGUSR2). */
void sw_view_log(const struct sw_view *cs);

struct ofcd_ctl;

/* ofcdctl's switch/show [DPID] (sw_view_ctl.c): the view as text.
 * Its handler runs on the control thread, the view's only writer, and so
 * reads without the lock. 0 or ofcd_ctl_register's error. */
int sw_view_ctl_register(struct sw_view *cs, struct ofcd_ctl *c);

#endif
