/*
 * of_app: the hook table through which an app (the L2 learning switch is
 * one) takes part in the OpenFlow data path, with no branch for it in the
 * worker and no knowledge of it in the flow manager. The worker
 * calls every configured app's hooks, on the worker lcore, for each switch:
 *
 *   on_switch_up     the channel is ESTABLISHED (features, DESC, ports known)
 *   on_packet_in     a PACKET_IN arrived
 *   on_port_status   a PORT_STATUS was applied to the switch model
 *   on_tick          the time the app asked for in sw->next_tick_us came
 *                    (set it in any hook; 0 = no tick): work spread over
 *                    time, such as LLDP probes, without a timer of its own
 *   on_switch_down   the connection is gone (or the worker is stopping):
 *                    free the per-switch state
 *
 * A hook sends with of_app_send() (the worker numbers the message and
 * queues it on the switch's connection, behind what is already queued) and
 * tells its own part on the control thread with of_app_event() (class P2
 * of the events ring, QMSG_EV_APP; of_event.h).
 * Per-switch state lives in of_app_switch.state, one slot per app, NULL
 * until the app sets it. Every hook may be NULL.
 *
 * An app also names the cookie range of the flows it installs: the flow
 * manager's consistency check leaves those flows alone (they are the app's,
 * not aliens). arg is the app's own, shared by every worker: read-only once
 * the lcores run.
 */
#ifndef OFCD_OF_APP_H
#define OFCD_OF_APP_H

#include <stddef.h>
#include <stdint.h>

#include "ofcd_range.h"
#include "ofp_msg.h"

#define OF_APPS_MAX 4

struct of_port_list;
struct of_app_out;              /* the worker's, opaque to apps */

/* What an app sees of one switch. */
struct of_app_switch {
    uint64_t dpid;
    const struct ofp_features *features;
    const struct of_port_list *ports;
    void *state;                /* the app's own; NULL until it sets it */
    uint64_t next_tick_us;      /* when on_tick is due; 0 = never */
};

struct of_app {
    const char *name;
    struct ofcd_range cookies;  /* the app's flows: the consistency check ignores them */
    void *arg;
    void (*on_switch_up)(void *arg, struct of_app_switch *sw, uint64_t now_us,
                         struct of_app_out *out);
    void (*on_packet_in)(void *arg, struct of_app_switch *sw, const struct ofp_packet_in *pi,
                         uint64_t now_us, struct of_app_out *out);
    void (*on_port_status)(void *arg, struct of_app_switch *sw,
                           const struct ofp_port_status *ps, uint64_t now_us,
                           struct of_app_out *out);
    void (*on_tick)(void *arg, struct of_app_switch *sw, uint64_t now_us,
                    struct of_app_out *out);
    void (*on_switch_down)(void *arg, struct of_app_switch *sw);
};

/* Send m to the switch the hook was called for (the xid is the worker's).
 * 0 or a negative errno (-ENOBUFS: no buffer; counted by the worker;
 * -EPERM: a FLOW_MOD or PACKET_OUT in cluster mode while this node is not
 * the switch's confirmed master, or may not act: not sent, counted). */
int of_app_send(struct of_app_out *out, struct ofp_msg *m);

/* Tell the control thread len bytes about the switch (up to
 * OF_APP_EVENT_MAX), as a QMSG_EV_APP event naming this app's index. 0, or
 * -ENOBUFS (the events pool is empty: counted by the worker), -EMSGSIZE. */
#define OF_APP_EVENT_MAX 256u
int of_app_event(struct of_app_out *out, const void *data, size_t len);

#endif
