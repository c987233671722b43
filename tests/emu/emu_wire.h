/*
 * emu_wire: a wiring between the emulated switches (--wiring), so that a
 * frame a controller sends out of a wired port with PACKET_OUT arrives on
 * the peer port of the peer switch — which hands it to the controller as a
 * PACKET_IN (reason ACTION, table 0), as a real switch does with the frames
 * of a controller's LLDP flow. Topology discovery is tested and benched on
 * this: no flow lookup is emulated on the way, and a peer that is not
 * connected loses the frame (counted).
 *
 *   ring         switch i port 1 <-> switch i+1 port 2 (the last to the first)
 *   fattree:K    K even: (K/2)^2 core switches first, then K pods of K/2
 *                aggregation and K/2 edge switches; aggregation a, port j
 *                <-> core a*K/2+j-1, port pod+1; edge e, port a+1 <->
 *                aggregation a, port K/2+e+1 (edge ports K/2+1..K face hosts:
 *                unwired). 5K^2/4 switches, K ports, K^3/2 links.
 *   file:PATH    lines "A PA B PB" (switch numbers from 1, ports from 1)
 */
#ifndef EMU_WIRE_H
#define EMU_WIRE_H

#include <stddef.h>
#include <stdint.h>

struct emu_wire;

/* 0, or -EINVAL with a message in err (a spec that does not fit the
 * switches and ports given, an end wired twice, a bad file line). */
int emu_wire_build(const char *spec, uint32_t n_switches, uint32_t n_ports,
                   struct emu_wire **out, char *err, size_t errlen);
void emu_wire_free(struct emu_wire *w);

/* The peer of (switch index, port): 0 with *peer_idx and *peer_port set, or
 * -ENOENT when the port is not wired. */
int emu_wire_peer(const struct emu_wire *w, uint32_t idx, uint32_t port, uint32_t *peer_idx,
                  uint32_t *peer_port);
uint64_t emu_wire_links(const struct emu_wire *w);

#endif
