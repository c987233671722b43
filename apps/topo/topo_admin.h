/*
 * topo_admin: what an operator switched off — a switch, an interface, an
 * interface's LLDP (of_lldp's "lldp" flag) — and which interfaces have
 * liveness on. Written by the REST threads (one writer at a time: the
 * table's own mutex) and read by the worker lcores with no lock at all,
 * on every LLDP they are about to send.
 *
 * A fixed table of atomic slots, open addressing: a slot, once given to a
 * (dpid, port), keeps it for the table's life and is published whole
 * (release on `used`) before any reader can find it, so a reader sees an
 * entry entire or not at all and never blocks. Port TOPO_ADMIN_SWITCH is
 * the switch itself. Nothing stored means all defaults: enabled, LLDP on,
 * liveness off.
 */
#ifndef OFCD_TOPO_ADMIN_H
#define OFCD_TOPO_ADMIN_H

#include <stdint.h>

#define TOPO_ADMIN_SWITCH 0u

enum {
    TOPO_ADMIN_DISABLED = 1u << 0,      /* topology v3 .../disable */
    TOPO_ADMIN_NO_LLDP = 1u << 1,       /* of_lldp v1 interfaces/disable */
    TOPO_ADMIN_LIVENESS = 1u << 2,      /* of_lldp v1 liveness/enable */
    TOPO_ADMIN_LOOP_OFF = 1u << 3,      /* disabled by loop detection (enabled again
                                         * when the loop stops) */
    TOPO_ADMIN_KNOWN = 1u << 4,         /* met before: topology.enable_on_start decided
                                         * (topo_start.h) */
};

struct topo_admin;

/* Room for capacity entries (rounded up to a power of two, twice over so
 * probes stay short). NULL when out of memory. */
struct topo_admin *topo_admin_create(uint32_t capacity);
void topo_admin_destroy(struct topo_admin *a);

/* Set the flags of (dpid, port). 0, or -ENOSPC (the table is full: the
 * change is refused, the caller says so). */
int topo_admin_set(struct topo_admin *a, uint64_t dpid, uint32_t port, uint32_t flags);

/* The flags of (dpid, port) made (old & ~clear) | set in one step, so two
 * writers (REST, the control thread's loop and start-up policies) never
 * lose each other's bits; *now (may be NULL): the flags after. 0 or
 * -ENOSPC (nothing changed). */
int topo_admin_update(struct topo_admin *a, uint64_t dpid, uint32_t port, uint32_t set,
                      uint32_t clear, uint32_t *now);

/* The flags of (dpid, port); 0 when never set. Any thread, lock-free. */
/* How many times a flag changed since create: what depends on them (a
 * cached path graph, topo_paths.h) is made again when it moved. */
uint64_t topo_admin_changes(const struct topo_admin *a);

uint32_t topo_admin_get(const struct topo_admin *a, uint64_t dpid, uint32_t port);

/* Switched off for LLDP: the switch or the interface disabled, or its LLDP. */
static inline int topo_admin_lldp_off(const struct topo_admin *a, uint64_t dpid, uint32_t port)
{
    return (topo_admin_get(a, dpid, TOPO_ADMIN_SWITCH) & TOPO_ADMIN_DISABLED) ||
           (topo_admin_get(a, dpid, port) & (TOPO_ADMIN_DISABLED | TOPO_ADMIN_NO_LLDP));
}

#endif
