/*
 * fm_snap: one switch's flow-statistics replies as the flow manager keeps
 * them — the last complete reply (the snapshot: what the consistency check
 * and GET v2/flows know of the switch's table) and the reply being
 * gathered, part by part — within the bounds of one reply
 * (openflow.mp_max_kb/mp_max_parts, as the worker's) and a budget all
 * switches' snapshots share (flow_manager.snapshot_budget_mb). Parts are
 * kept as the OpenFlow MULTIPART_REPLY messages they came in and decoded
 * only when walked.
 *
 * Which xids may join (the request outstanding, the worker's polls) is the
 * flow manager's decision, and so are the logs and counters: this only
 * keeps bytes and says what happened. No lock: the flow manager calls it
 * under its own; a walk over a copy (fm_snap_take) needs none.
 */
#ifndef OFCD_FM_SNAP_H
#define OFCD_FM_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fm.h"
#include "ofp_msg.h"

struct fm_snap {
    uint8_t **parts;                /* the snapshot (malloc'd messages) */
    size_t n_parts;
    uint64_t bytes;
    uint8_t **acc;                  /* the reply being gathered */
    size_t n_acc, cap_acc;
    uint64_t acc_bytes;
    uint32_t acc_xid;
    uint32_t dropped_xid;           /* an abandoned reply: the rest of it is ignored */
};

/* What one reply and all switches' snapshots together may hold (0: no
 * bound). */
struct fm_snap_bounds {
    uint64_t max_bytes;
    uint32_t max_parts;
    uint64_t budget_bytes;
};

/*
 * One part (len bytes, a FLOW MULTIPART_REPLY with xid; more: REPLY_MORE
 * set) of sw's reply. *held is all switches' bytes (snapshots and replies
 * being gathered), kept up to date here. A part of another xid than the
 * one being gathered starts a new reply (the old one is dropped).
 * 1: the part completed the reply, which is the snapshot now (the previous
 *    one freed);
 * 0: kept, more to come; or the rest of an abandoned reply, ignored;
 * -EMSGSIZE past the reply's bounds, -ENOSPC past the budget, -ENOMEM: the
 *    part is not kept and the reply gathered so far (n_acc parts, acc_bytes
 *    bytes) is still there, for the caller to name in its log; it then
 *    calls fm_snap_abandon.
 */
int fm_snap_add(struct fm_snap *s, const struct fm_snap_bounds *b, uint64_t *held,
                const uint8_t *msg, size_t len, uint32_t xid, bool more);
/* Drop the reply being gathered and ignore the rest of it (xid). */
void fm_snap_abandon(struct fm_snap *s, uint64_t *held, uint32_t xid);
/* Drop the reply being gathered (its connection is gone). */
void fm_snap_drop_partial(struct fm_snap *s, uint64_t *held);
/* Free everything (the switch is forgotten). */
void fm_snap_clear(struct fm_snap *s, uint64_t *held);

/* A walk over a snapshot's entries: init over parts (the snapshot's own,
 * under the flow manager's lock, or a copy's); next gives each entry (its
 * action lists point into the parts) and false at the end. */
struct fm_snap_walk {
    uint8_t *const *parts;
    size_t n_parts, next_part;
    bool in_part;
    struct ofp_msg m;               /* the part being walked */
    struct ofp_mp_iter it;
};
void fm_snap_walk_init(struct fm_snap_walk *w, uint8_t *const *parts, size_t n_parts);
bool fm_snap_walk_next(struct fm_snap_walk *w, struct ofp_flow_stats *fs);

/* GET v2/flows' copy of dpid's snapshot s (struct fm_snap_copy, walked by
 * fm_snap_copy_next outside the lock): NULL when out of memory. */
struct fm_snap_copy *fm_snap_take(const struct fm_snap *s, uint64_t dpid);

#endif
