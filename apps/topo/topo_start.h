/*
 * topo_start: how a switch or an interface ofcd meets for the first time
 * starts — topology.enable_on_start. true (the default, as Kytos-ng run
 * with kytosd -E): enabled. false (Kytos-ng's own default): disabled, so
 * nothing is probed nor given an LLDP flow until an operator enables it.
 *
 * "First time" is kept in topo_admin's TOPO_ADMIN_KNOWN bit: set on every
 * switch and port this policy has decided (and kept over a restart), so a
 * switch an operator enabled stays enabled when it comes back. On the
 * control thread, for SWITCH_UP (the switch and its ports) and
 * PORT_STATUS with reason ADD or MODIFY (a new port, or one deleted through
 * the API that comes back), before the LLDP flow is decided (topo_class).
 * The marks take topo_admin slots for good (topology.max_interfaces): when
 * it is full a new port starts enabled, and an error line says so.
 */
#ifndef OFCD_TOPO_START_H
#define OFCD_TOPO_START_H

#include <stdbool.h>

#include "ofcd_ratelimit.h"
#include "qmsg.h"

struct store;
struct topo_admin;

struct topo_start {
    bool enable;                        /* topology.enable_on_start */
    uint64_t full;                      /* ports that found topology.max_interfaces full */
    struct ofcd_ratelimit rl_now, rl_later;
};

void topo_start_init(struct topo_start *st, bool enable);
/* One worker event (others are let be). s may be NULL (nothing kept). */
void topo_start_event(struct topo_start *st, const struct qmsg *ev, struct topo_admin *admin,
                      struct store *s);

#endif
