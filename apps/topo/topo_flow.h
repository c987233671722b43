/*
 * topo_flow: the LLDP flow of one switch — priority 50000, dl_type 0x88cc
 * and dl_vlan topology.lldp_vlan (none when 0) → CONTROLLER, cookie
 * TOPO_COOKIE(dpid), owner "of_lldp", as Kytos-ng's
 * of_lldp asks flow_manager for it — stored and installed through the
 * store and the flow manager like any REST flow, so it survives
 * reconnections and restarts, shows in stored_flows, and the consistency
 * check puts it back when a switch loses it.
 *
 * topo_flow_ensure: the control thread, at switch up; the store commits in
 * its own thread and the flow manager queues the flow from the commit's
 * completion, so nothing here waits. A switch whose flow is already
 * stored costs one read.
 * topo_flow_remove: a REST thread (topology v3 switch disable); it waits
 * for the delete to be durable, then the flow manager sends the DELETE.
 */
#ifndef OFCD_TOPO_FLOW_H
#define OFCD_TOPO_FLOW_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofcd_ratelimit.h"

struct fm;
struct fm_flow;

#define TOPO_FLOW_OWNER "of_lldp"
#define TOPO_FLOW_TEXT_MAX 256          /* the stored record's text, NUL included */

/*
 * The LLDP flow of dpid as a typed flow (the ADD, or with for_delete the
 * DELETE that selects it by its cookie, all of it), and, when text is not
 * NULL, the record the store keeps of the ADD: Kytos' flow JSON, compact,
 * keys sorted, as a REST client's POST of it would be stored. No JSON
 * library here: the text is one fixed shape (test_topo_flow holds both to
 * what rest/kytos makes of the same JSON). 0, or -ENOBUFS when len is
 * too small for the text.
 */
int topo_flow_lldp(uint64_t dpid, uint16_t vlan, bool for_delete, struct fm_flow *out,
                   char *text, size_t len);

/* What a caller that switches trigger (one per switch up or let go) keeps:
 * the limiters of its failure lines (`ensure` used on the control thread,
 * `forget` under the switch view's lock — topo_flow_forget runs from the
 * view's forgotten hook, on the control thread or a REST thread deleting a
 * switch —, `stored` on the store's committer only: a failed commit), and
 * how many deletes of switches let go are still queued — while any is,
 * topo_flow_ensure stores the flow even when it finds it stored (a delete
 * queued before a reconnect would take it after). */
struct topo_flow_ctx {
    struct ofcd_ratelimit ensure, forget, stored;
    atomic_uint forgets;
};
#define TOPO_FLOW_CTX_INIT                                                                \
    {.ensure = OFCD_RATELIMIT_INIT(5, 1000), .forget = OFCD_RATELIMIT_INIT(5, 1000),       \
     .stored = OFCD_RATELIMIT_INIT(5, 1000)}

/* 0 (stored already, or queued to be), or a negative errno (logged, through
 * ctx's limiters when ctx is not NULL). When this form is not stored yet,
 * the switch's LLDP flows of another form (stored by an ofcd of another
 * topology.lldp_vlan) are deleted: one LLDP flow per switch. */
int topo_flow_ensure(struct fm *fm, uint64_t dpid, uint16_t vlan,
                     struct topo_flow_ctx *ctx);
/* The switch view let the switch go (evicted or forgotten): its LLDP flow
 * of the form vlan leaves the store, queued (the control thread), nothing
 * sent (the switch is gone); topo_flow_ensure makes it again if the switch
 * comes back. Without it, switches that make up a dpid per connection
 * would each leave a stored flow for good. 0 (queued, or none stored) or a
 * negative errno (logged through ctx). */
int topo_flow_forget(struct fm *fm, uint64_t dpid, uint16_t vlan, struct topo_flow_ctx *ctx);

/* 0 (deleted, or was not stored), or a negative errno; the other form's too. */
int topo_flow_remove(struct fm *fm, uint64_t dpid, uint16_t vlan);

#endif
