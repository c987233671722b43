/*
 * fm_flow: one flow as the control plane holds it — the OpenFlow content of
 * a FLOW_MOD (struct ofp_flow_mod with its own action lists) and its owner —
 * and the flow's identity, the two hashes the store and the flow manager
 * key flows by. Nothing here knows how a client wrote the flow: the REST
 * face (rest/kytos/flow_json.h) keeps that beside it, so rendering is
 * exact, while the flow manager and the store see only this. Pure C over
 * the ofp codec: no JSON, no I/O, no global state.
 */
#ifndef OFCD_FM_FLOW_H
#define OFCD_FM_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofp_flow.h"

#define FM_FLOW_ACTIONS_MAX 32       /* per action list */
#define FM_FLOW_OWNER_MAX 64         /* bytes, NUL included */

/*
 * One flow. mod is ready for ofp_flow_mod_encode(); its action lists point
 * into apply[] / write[] of this same struct, so after copying an fm_flow by
 * value (memcpy, an array realloc) call fm_flow_fixup() on the copy.
 */
struct fm_flow {
    struct ofp_flow_mod mod;
    char owner[FM_FLOW_OWNER_MAX];   /* its pacing queue and the store's owner; "" = none */
    struct ofp_action apply[FM_FLOW_ACTIONS_MAX];
    struct ofp_action write[FM_FLOW_ACTIONS_MAX];
};

/* Re-point mod's action lists at f's own arrays (after a by-value copy). */
void fm_flow_fixup(struct fm_flow *f);

/*
 * fmod as a FLOW_MOD (xid 0) into buf: 0, -ENOSPC when cap is too small
 * (FM_FLOW_WIRE_SMALL bytes hold nearly every flow; OpenFlow's 64 KiB all of
 * them), or the codec's error when fmod cannot be encoded.
 */
#define FM_FLOW_WIRE_SMALL 2048
int fm_flow_mod_encode(const struct ofp_flow_mod *fmod, uint8_t *buf, size_t cap, size_t *len);

/* true when the flow selects flows to delete (OFPFC_DELETE[_STRICT]). */
bool fm_flow_is_delete(const struct fm_flow *f);

/*
 * A flow as a switch reports it (a flow-statistics entry, a decoded
 * FLOW_MOD): fill *out as the ADD that installs it, so fm_flow_match_id()
 * names it as the flow it came from. Actions are copied out of inst's wire
 * views, so *out outlives the message. -E2BIG when an action list is longer
 * than FM_FLOW_ACTIONS_MAX.
 */
int fm_flow_from_entry(uint8_t table_id, uint16_t priority, uint64_t cookie, uint16_t idle,
                       uint16_t hard, const struct ofp_match *match,
                       const struct ofp_instructions *inst, struct fm_flow *out);

/*
 * Flow identity, stable across runs and builds (FNV-1a 64 over a fixed
 * byte encoding; all integers big-endian):
 *   match_id = H(dpid[8] table_id[1] priority[2] match-wire-bytes)
 *   flow_id  = H(match_id[8] cookie[8] idle[2] hard[2] instruction-wire-bytes)
 * Match and instructions are hashed in their OpenFlow wire encoding, which
 * the codec writes in one canonical order, so how a client spelt the flow
 * (key order, a full mask, "controller" vs 4294967293, top-level actions vs
 * one apply_actions) changes neither. owner and cookie_mask are part of
 * neither.
 */
uint64_t fm_match_id(uint64_t dpid, uint8_t table_id, uint16_t priority,
                     const struct ofp_match *match);
uint64_t fm_flow_match_id(uint64_t dpid, const struct fm_flow *f);
uint64_t fm_flow_id(uint64_t dpid, const struct fm_flow *f);
/* fm_flow_id() when the flow's match_id is already known. */
uint64_t fm_flow_id_of(uint64_t match_id, const struct fm_flow *f);

#endif
