/*
 * fm_stored: the stored flows, read. The flow manager owns the flows: a
 * change goes through fm_change.h, a read through here, both on the store
 * the manager was created with. So no module above control/ names the store
 * for a flow (scripts/check-layout holds it): REST's stored_flows, the
 * topology's look at its own LLDP flow, the check that no flow uses an
 * interface about to be deleted.
 *
 * These read the store itself, not the manager's mirror: the mirror keeps a
 * flow's identity, state and FLOW_MOD, the store its text as the client gave
 * it (what Kytos' listings show). Each call is one read snapshot; the
 * callback runs on the caller's thread and must not call back into the
 * store. A flow got with fm_stored_get is the caller's: store_flow_release.
 *
 * All return 0 or a negative errno: -ENODEV with no flow manager (a REST
 * face serving without one), else the store's (-ENOENT: no such flow).
 */
#ifndef OFCD_FM_STORED_H
#define OFCD_FM_STORED_H

#include <stddef.h>
#include <stdint.h>

#include "fm.h"
#include "store.h"

/* The flow (dpid, match_id) as stored, deleted ones included. */
int fm_stored_get(struct fm *fm, uint64_t dpid, uint64_t match_id, struct store_flow *out);

/* Every flow of *dpid (all switches when NULL), in key order, from
 * (from_dpid, from_match_id) on: a listing that continues where a page
 * ended. cb's non-zero return stops the walk and is returned. */
int fm_stored_foreach_from(struct fm *fm, const uint64_t *dpid, uint64_t from_dpid,
                           uint64_t from_match_id, store_iter_fn cb, void *arg);

/* Every flow of *dpid (all when NULL), in key order. */
int fm_stored_foreach(struct fm *fm, const uint64_t *dpid, store_iter_fn cb, void *arg);

/* The flows of dpid among match_ids (n of them), whole, on one snapshot. */
int fm_stored_get_each(struct fm *fm, uint64_t dpid, const uint64_t *match_ids, size_t n,
                       store_iter_fn cb, void *arg);

#endif
