/*
 * topo_rest_priv: what the topology's REST files share — the changes
 * (topo_rest.c: routes, POSTs, metadata, what is kept over a restart) and
 * the reads (topo_rest_read.c: the GETs that show the whole topology, made
 * from topo_snap copies so the switch view's lock is held only to copy).
 * Not a module's manual: topo_rest.h is.
 */
#ifndef OFCD_TOPO_REST_PRIV_H
#define OFCD_TOPO_REST_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "topo_rest.h"

/* Kytos' interface id, "dpid:port". */
void topo_rest_iface_id(uint64_t dpid, uint32_t port, char out[TOPO_END_ID_LEN]);
/* The switch's enabled flag (topo_admin, read without a lock). */
bool topo_rest_switch_enabled(const struct topo_rest *t, uint64_t dpid);
/* Kytos' active, enabled, status and status_reason fields. */
void topo_rest_status_fields(json_t *j, bool active, bool enabled);
/* A copy of kind/id's metadata (an empty object when none); takes meta_lock. */
json_t *topo_rest_meta_copy(struct topo_rest *t, const char *kind, const char *id);

/* The reads (each takes the switch view's lock only to copy, piece by
 * piece, and answers 200, or 500 when out of memory):
 * topology v3 "" (the whole topology), "switches", "interfaces", "links". */
unsigned topo_read_v3(struct topo_rest *t, const char *what, json_t **out);
/* of_lldp v1: GET interfaces (those with LLDP on); GET liveness/ (all, or
 * ?interface_id=) and liveness/pair. */
unsigned topo_read_lldp_interfaces(struct topo_rest *t, json_t **out);
unsigned topo_read_liveness(struct topo_rest *t, const char *interface_id, json_t **out);
unsigned topo_read_liveness_pairs(struct topo_rest *t, json_t **out);
/* /api/v1/topology: ofcd's compact graph. */
unsigned topo_read_graph(struct topo_rest *t, json_t **out);

#endif
