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
/* An interface's active and enabled, as topology v3 shows them. */
struct ofp_port;
void topo_rest_iface_state(const struct topo_rest *t, uint64_t dpid, bool sw_up,
                           const struct ofp_port *p, bool *active, bool *enabled);
/* A link of_lldp's liveness finds down while it is active and enabled
 * (shown DOWN for "liveness"); a link whose status is "UP": active,
 * enabled, not down for liveness, no end moved (mismatched). */
struct topo_snap_link;
bool topo_rest_link_liveness_down(const struct topo_snap_link *l);
bool topo_rest_link_up(const struct topo_snap_link *l);
/* Kytos' active, enabled, status and status_reason fields. */
void topo_rest_status_fields(json_t *j, bool active, bool enabled);
/* A copy of kind/id's metadata (an empty object when none); takes meta_lock. */
json_t *topo_rest_meta_copy(struct topo_rest *t, const char *kind, const char *id);
/* kind/id's in-memory copy made next (taken; NULL or empty: none), under
 * meta_lock: once what it replaces is stored. */
void topo_rest_meta_swap(struct topo_rest *t, const char *kind, const char *id, json_t *next);

/* Each switch the view knows, copied on its own (with its ports when
 * with_ports), handed to fn after the lock is let go. A switch gone
 * meanwhile is not shown. 0 or -ENOMEM. */
struct topo_snap_switch;
int topo_read_each_switch(struct topo_rest *t, bool with_ports,
                          void (*fn)(struct topo_rest *t, const struct topo_snap_switch *s,
                                     unsigned idx, void *arg),
                          void *arg);

/* Every link record, TOPO_SNAP_PIECE per lock hold, handed to fn after
 * the lock is let go. 0 or -ENOMEM. */
int topo_read_each_link(struct topo_rest *t,
                        void (*fn)(struct topo_rest *t, const struct topo_snap_link *l, void *arg),
                        void *arg);

/* The VLAN pools (topo_rest_tags.c): GET interfaces/tag_ranges (id NULL),
 * and GET|POST|DELETE interfaces/{id}/tag_ranges, POST .../special_tags
 * (what: "tag_ranges" or "special_tags"). Each takes the locks it needs. */
unsigned topo_rest_tags(struct topo_rest *t, const struct rest_ext_req *q, const char *id,
                        const char *what, json_t **out);

/* DELETE switches/{id} and interfaces/{id} (topo_rest_delete.c): only
 * what nothing uses, as Kytos allows it; each takes the locks it needs. */
unsigned topo_rest_delete_switch(struct topo_rest *t, const char *id, json_t **out);
unsigned topo_rest_delete_interface(struct topo_rest *t, const char *id, json_t **out);

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
/* /api/kytos/pathfinder/v3 (topo_rest_path.c): POST "", a rest_ext handler. */
unsigned topo_rest_pathfinder(void *arg, const struct rest_ext_req *q, json_t **out);

#endif
