/*
 * of_event: what the worker lcores tell the control thread, through the
 * events ring (a msgq: switch up/down in P0, errors and barrier replies in
 * P1, port status and flow_removed in P2, statistics in P3).
 *
 * Every event's data starts with struct of_event_hdr; after it:
 *   QMSG_EV_SWITCH_UP    struct of_event_up, then n_ports struct ofp_port
 *   QMSG_EV_SWITCH_DOWN  nothing (the reason is in the worker's log)
 *   QMSG_EV_OF           the switch's OpenFlow message, as received
 *   QMSG_EV_ECHO         struct of_event_echo (P3, one per measured round trip)
 *   QMSG_EV_APP          struct of_event_app, then its len bytes (P2; of_app_event)
 * conn in the qmsg is the switch's connection handle: the control thread
 * addresses flow_mods to it through that io lcore's msg_out.
 */
#ifndef OFCD_OF_EVENT_H
#define OFCD_OF_EVENT_H

#include <stdint.h>

#include "ofp_mp.h"
#include "qmsg.h"
#include "ofp_switch.h"

struct of_event_hdr {
    uint64_t dpid;
    uint64_t time_us;           /* lcore clock when the event happened */
};

/* Any switch message fits an event buffer whole (QMSG_EV_OF). */
_Static_assert(sizeof(struct of_event_hdr) + 65535 <= QMSG_LARGE_DATA,
               "a 65,535-byte OpenFlow message and its event header fit one buffer");

struct of_event_up {
    uint8_t version;
    struct ofp_features features;
    struct ofp_desc desc;
    uint32_t n_ports;
    uint32_t peer_ip;           /* the switch's end of the connection, host order */
    uint16_t peer_port;
};

/* An echo round trip ofcd measured on the switch's channel. */
struct of_event_echo {
    uint32_t rtt_us;
    uint32_t ewma_us;           /* the channel's moving average (1/8 weight) */
};

/* What an app's data-path hooks tell its control-thread part. */
struct of_event_app {
    uint32_t app;               /* index in the workers' app list */
    uint32_t len;               /* bytes that follow */
};

#endif
