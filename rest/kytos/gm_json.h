/*
 * gm_json: a group or a meter in ofcd's JSON -> its ADD GROUP_MOD /
 * METER_MOD on the wire (xid 0), what the flow manager stores and lays
 * (control/fm/fm_gm.h). Pure C (the json_tape and the ofp codec), no I/O.
 * Kytos-ng has no such API; these shapes are ofcd's own, in the words of
 * OpenFlow and of Kytos' flows (a bucket's actions are Kytos actions).
 *
 * Group (POST /api/v1/switches/{dpid}/groups), any key order, an unknown
 * key an error:
 *   group_id   0..4294967040 (OFPG_MAX), required
 *   type       "all" | "select" | "indirect" | "fast_failover", required
 *   buckets    array (at most GM_JSON_BUCKETS_MAX) of
 *                {weight 0..65535 (select only; default 1 there, else 0),
 *                 watch_port (port number or "any"; default "any"),
 *                 watch_group (group id or "any"; default "any"),
 *                 actions [Kytos actions, flow_json.h]}
 *              default []; indirect: exactly one; fast_failover: every
 *              bucket watches a port or a group
 * Meter (POST /api/v1/switches/{dpid}/meters):
 *   meter_id   1..4294901760 (OFPM_MAX), required
 *   flags      array of "kbps" | "pktps" | "burst" | "stats", default
 *              ["kbps"]; not both kbps and pktps
 *   bands      array of 1..GM_JSON_BANDS_MAX
 *                {type "drop" | "dscp_remark", rate 1..4294967295 (kbps or
 *                 packets/s per flags), burst_size 0..4294967295 (default
 *                 0), prec_level 0..255 (dscp_remark only, default 1)}
 *
 * Errors: -EINVAL and err = one line naming the field by its path in the
 * object ("buckets[1].actions[0].port: ...", "bands[0].rate: ...").
 */
#ifndef OFCD_GM_JSON_H
#define OFCD_GM_JSON_H

#include <stddef.h>
#include <stdint.h>

#define GM_JSON_BUCKETS_MAX 64
#define GM_JSON_BANDS_MAX 16
/* Every group this parser accepts fits: 64 buckets of 32 actions of 24
 * bytes each and their headers. */
#define GM_JSON_WIRE_MAX 65535

/* The group object text (len bytes) as its ADD GROUP_MOD into wire
 * (GM_JSON_WIRE_MAX of room), *wire_len and *group_id set. */
int gm_json_group(const char *text, size_t len, uint8_t *wire, size_t *wire_len,
                  uint32_t *group_id, char *err, size_t errlen);

/* The meter object text as its ADD METER_MOD, the same way. */
int gm_json_meter(const char *text, size_t len, uint8_t *wire, size_t *wire_len,
                  uint32_t *meter_id, char *err, size_t errlen);

#endif
