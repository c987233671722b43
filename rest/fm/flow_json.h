/*
 * flow_json: one flow in the Kytos-ng flow_manager v2 JSON format <-> the
 * struct ofp_flow_mod ofcd sends, plus the two hashes the flow store keys
 * flows by. Pure C (jansson + the ofp codec), no I/O, no global state; the
 * REST handlers call flow_json_parse() on each element of "flows", the store
 * calls flow_match_id()/flow_id(), GET stored_flows calls flow_json_render().
 *
 * Accepted flow object (any key order; an unknown key is an error):
 *   table_id      0..254 (255 = all tables, DELETE only), default 0
 *   priority      0..65535, default 32768 (0x8000, Kytos' default)
 *   idle_timeout, hard_timeout   0..65535, default 0
 *   cookie        uint64, default 0
 *   cookie_mask   uint64, DELETE only
 *   owner         string (< FLOW_JSON_OWNER_MAX bytes)
 *   match         object of Kytos field names (of_core v0x04/match_fields):
 *                 in_port in_phy_port metadata dl_src dl_dst dl_type dl_vlan
 *                 dl_vlan_pcp ip_dscp ip_ecn nw_proto nw_src nw_dst tp_src
 *                 tp_dst udp_src udp_dst sctp_src sctp_dst icmpv4_type
 *                 icmpv4_code arp_op arp_spa arp_tpa arp_sha arp_tha ipv6_src
 *                 ipv6_dst ipv6_flabel icmpv6_type icmpv6_code nd_tar nd_sll
 *                 nd_tll mpls_lab mpls_tc mpls_bos pbb_isid tun_id v6_hdr
 *   actions | instructions   (not both)
 *
 * Value forms: integers as JSON numbers; 64-bit fields (cookie, cookie_mask,
 * metadata, tun_id, write_metadata's values) also as decimal or 0x strings,
 * because jansson cannot hold integers above INT64_MAX (render writes those
 * as decimal strings). Maskable integer fields take "value/mask". MACs
 * "aa:bb:cc:dd:ee:ff[/mask]"; IPv4/IPv6 "addr[/prefix|/mask]" (nd_tar: no
 * mask; nd_tar/nd_sll/nd_tll also as integers, as Kytos stores them).
 * dl_vlan: int 0..4095 (tagged with that VID), "vid/mask" (numbers 0..8191,
 * the OFPVID_PRESENT bit is added to both, so "4096/4096" = any tagged
 * frame), "untagged" (no tag) or "any" (= "4096/4096").
 * tp_src/tp_dst become TCP, UDP or SCTP ports according to nw_proto (6, 17,
 * 132); with another or no nw_proto they are TCP ports, which the
 * prerequisite check then rejects, naming the field.
 * Masked values are normalised (value &= mask), so "10.0.0.1/24" means
 * 10.0.0.0/24; a full mask means an exact match.
 *
 * Actions (Kytos format, {"action_type": T, ...}): output {port: number or
 * "in_port"|"normal"|"flood"|"all"|"controller"|"local"; not OFPP_TABLE}, set_vlan
 * {vlan_id 0..4095}, push_vlan {tag_type "c"|"s"}, pop_vlan, set_queue
 * {queue_id}, group {group_id}, set_field {field: a match name except
 * tp_src/tp_dst, value: as in a match, no mask}. Output uses max_len
 * OFPCML_NO_BUFFER.
 * Instructions ({"instruction_type": T, ...}, each type at most once):
 * apply_actions {actions}, write_actions {actions}, clear_actions, goto_table
 * {table_id > the flow's}, meter {meter_id}, write_metadata {metadata,
 * metadata_mask (default all ones)}.
 * Top-level "actions" is sent as one apply_actions instruction; an empty
 * action list sends no instruction (drop), as the switch would report it.
 *
 * Errors: -EINVAL and err = one line naming the field by its JSON path
 * relative to the flow object ("match.dl_vlan: ...", "actions[1].port: ...",
 * "unknown field 'match.foo'"); the caller prefixes "flows[i]." when useful.
 * Whatever parses has passed ofp_match_check and encodes into a FLOW_MOD
 * that ofp_validate accepts.
 */
#ifndef OFCD_FLOW_JSON_H
#define OFCD_FLOW_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "ofp_flow.h"

#define FLOW_JSON_ACTIONS_MAX 32     /* per action list */
#define FLOW_JSON_OWNER_MAX 64       /* bytes, NUL included */

enum flow_json_form {
    FLOW_FORM_NONE = 0,              /* neither actions nor instructions given */
    FLOW_FORM_ACTIONS,
    FLOW_FORM_INSTRUCTIONS,
};

/* Per-action rendering hints (how the user wrote what the codec holds). */
#define FLOW_ACT_PORT_NAMED 0x01     /* output port given as a name */
#define FLOW_ACT_SET_VLAN 0x02       /* set_field vlan_vid given as set_vlan */
#define FLOW_ACT_VAL_INT 0x04        /* set_field value given as integer */

/*
 * One parsed flow. fm is ready for ofp_flow_mod_encode(); its action lists
 * point into apply[] / write[] of this same struct, so after copying a
 * flow_spec by value (memcpy, LMDB read) call flow_spec_fixup() on the copy.
 */
struct flow_spec {
    struct ofp_flow_mod fm;
    char owner[FLOW_JSON_OWNER_MAX];
    bool has_owner;
    bool has_match;
    bool has_cookie_mask;
    bool for_delete;
    uint8_t form;                    /* enum flow_json_form */
    uint8_t tp_alias;                /* bit 0: tp_src used, bit 1: tp_dst used */
    uint64_t int_form;               /* bit f: match field f written as integer */
    struct ofp_action apply[FLOW_JSON_ACTIONS_MAX];
    struct ofp_action write[FLOW_JSON_ACTIONS_MAX];
    uint8_t apply_flags[FLOW_JSON_ACTIONS_MAX];  /* FLOW_ACT_* */
    uint8_t write_flags[FLOW_JSON_ACTIONS_MAX];
};

/* Parse one Kytos flow object. for_delete: the request is a DELETE (command
 * OFPFC_DELETE, cookie_mask allowed, table_id 255 allowed); otherwise
 * OFPFC_ADD. Returns 0, or -EINVAL with a message in err (errlen > 0). */
int flow_json_parse(const json_t *flow, bool for_delete, struct flow_spec *out, char *err,
                    size_t errlen);

/* Re-point fm's action lists at f's own arrays (after a by-value copy). */
void flow_spec_fixup(struct flow_spec *f);

/*
 * A flow as a switch reports it (flow statistics entry, decoded FLOW_MOD):
 * fill *out so that flow_json_render() shows it and flow_match_id() names
 * it as the REST flow it came from. Actions are copied out of inst's wire
 * views, so *out outlives the message. A lone apply_actions renders as
 * "actions". -E2BIG when an action list is longer than FLOW_JSON_ACTIONS_MAX.
 */
int flow_spec_from_entry(uint8_t table_id, uint16_t priority, uint64_t cookie, uint16_t idle,
                         uint16_t hard, const struct ofp_match *match,
                         const struct ofp_instructions *inst, struct flow_spec *out);

/* Back to Kytos JSON (new reference, NULL on allocation failure). Always
 * has table_id, priority, cookie, idle_timeout, hard_timeout (as Kytos'
 * stored flows do); owner, cookie_mask, match, actions/instructions when
 * they were given. render(parse(x)) equals x (json_equal) for x written in
 * the canonical forms: defaults spelled out, masks in the form render uses
 * (prefix lengths for contiguous IP masks, lowercase MACs and compressed
 * IPv6), instructions in execution order (meter, apply_actions,
 * clear_actions, write_actions, write_metadata, goto_table). */
json_t *flow_json_render(const struct flow_spec *f);

/*
 * Flow identity, stable across runs and builds (FNV-1a 64 over a fixed
 * byte encoding; all integers big-endian):
 *   match_id = H(dpid[8] table_id[1] priority[2] match-wire-bytes)
 *   flow_id  = H(match_id[8] cookie[8] idle[2] hard[2] instruction-wire-bytes)
 * Match and instructions are hashed in their OpenFlow wire encoding, which
 * the codec writes in one canonical order, so JSON key order and
 * equivalent spellings (a full mask, "controller" vs 4294967293, top-level
 * actions vs one apply_actions) do not change the hashes. owner and
 * cookie_mask are not part of either.
 */
uint64_t flow_match_id(uint64_t dpid, const struct flow_spec *f);
uint64_t flow_id(uint64_t dpid, const struct flow_spec *f);
/* flow_id() when the flow's match_id is already known. */
uint64_t flow_id_of(uint64_t match_id, const struct flow_spec *f);

/* A 64-bit value as flows write them (cookie, metadata): a whole decimal or
 * 0x string / a non-negative JSON integer or such a string. true when it is one. */
bool flow_json_text_u64(const char *s, uint64_t *out);
bool flow_json_u64(const json_t *v, uint64_t *out);

#endif
