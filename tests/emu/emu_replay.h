/*
 * emu_replay: a captured OpenFlow session's switch side played against a
 * running controller, so that a field problem caught by ofcd's flight
 * recorder becomes a test case (ofswitch-replay, replay_main.c).
 *
 * The switch's messages go in their recorded order. A reply (FEATURES,
 * GET_CONFIG, MULTIPART, BARRIER, ROLE, GET_ASYNC, QUEUE_GET_CONFIG) and an
 * OFPT_ERROR answer a request: each waits (at most wait_ms) for the live
 * controller to send a request of that kind (a multipart of that type; for
 * an ERROR the request whose bytes it quotes) and goes with its xid, every
 * part of a multipart reply with the same one. A recorded reply whose
 * request never comes is skipped and counted. Echoes are answered live
 * (the recorded ECHO_REPLYs are not sent); a barrier left unanswered at
 * the end is answered. The rest (HELLO, PACKET_IN, PORT_STATUS,
 * FLOW_REMOVED, the switch's ECHO_REQUESTs) goes as recorded, after the
 * recorded gap divided by speed (0: no waits). Then hold_ms more to
 * collect what the controller does.
 *
 * The controller's FLOW_MODs are compared with the recorded ones (their
 * bytes but the xid, as a multiset): what a replay reproduces.
 */
#ifndef EMU_REPLAY_H
#define EMU_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "emu_pcapr.h"

struct emu_replay_opts {
    const char *host;               /* the controller's address */
    uint16_t port;
    double speed;                   /* the recorded gaps divided by this; 0: none */
    unsigned wait_ms;               /* a reply waits this long for its request */
    unsigned hold_ms;               /* after the last message */
};

struct emu_replay_report {
    unsigned sent;                  /* switch messages sent */
    unsigned replies_matched;       /* replies sent with a live request's xid */
    unsigned replies_skipped;       /* recorded replies whose request never came */
    unsigned echoes_answered, barriers_answered;
    unsigned rec_flow_mods, live_flow_mods;
    unsigned live_flow_mods_recorded;   /* of the live ones, those the record has too */
    bool peer_closed;               /* the controller closed the connection */
};

/* 0 once played (the report filled), or -errno with why. */
int emu_replay_run(const struct emu_pcapr_session *s, const struct emu_replay_opts *o,
                   struct emu_replay_report *rep, char *why, size_t why_len);

#endif
