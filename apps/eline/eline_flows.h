/*
 * eline_flows: an EVC's flows through the flow manager's one path
 * (control/fm/fm_change.h): the flows eline_layout gives, stored as the
 * client's flows are (their Kytos JSON kept, so GET stored_flows shows
 * them as mef_eline's) and then sent; and every flow of an EVC's cookie
 * deleted from a set of switches, stored ones kept as deleted (Kytos
 * lists them), the switches told even where none was stored. All wait
 * for the store: from a REST thread, or the control thread when it moves
 * EVCs (eline_watch.c: it is held that long).
 */
#ifndef OFCD_ELINE_FLOWS_H
#define OFCD_ELINE_FLOWS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct fm;

#define ELINE_OWNER "mef_eline"

/* by_switch ({"<dpid>": {"flows": [...]}}) stored and queued: 0; -EINVAL
 * when a flow is refused (err says which and why: not expected, the layout
 * makes valid flows); -ENOMEM; the store's error. */
int eline_flows_add(struct fm *fm, json_t *by_switch, char *err, size_t errlen);

/* The flows of cookie (every table) on dpids[0..n) deleted: 0, -ENOMEM or
 * the store's error. */
int eline_flows_remove(struct fm *fm, uint64_t cookie, const uint64_t *dpids, size_t n);

/* Exactly the flows of by_switch deleted (strict: each one's match,
 * priority and cookie; the stored version each text names): what an EVC
 * that moved no longer uses, while what it uses now stays. 0, -EINVAL
 * (not a layout's flow), -ENOMEM, the store's error. */
int eline_flows_remove_exact(struct fm *fm, json_t *by_switch);

/* The flows of a (by switch) that b does not have on the same switch with
 * the same match and priority (what b's ADDs do not replace). New
 * reference; NULL when out of memory. */
json_t *eline_flows_minus(json_t *a, json_t *b);

#endif
