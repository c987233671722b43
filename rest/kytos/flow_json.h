/*
 * flow_json: one flow in the Kytos-ng flow_manager v2 JSON format <-> the
 * typed flow the control plane holds (struct fm_flow, control/fm/fm_flow.h),
 * with how the client wrote it beside it (struct flow_json_form), so that
 * rendering gives back what was sent. Pure C (jansson + the ofp codec), no
 * I/O, no global state. The REST handlers read a request's body onto a
 * json_tape (json_tape.h: no tree, no allocation per value) and call
 * flow_json_parse() on each element of "flows"; GET v2/flows renders a switch's flows with
 * flow_json_render(); the app hands flow_json_record() to the flow manager,
 * which turns the store's records into typed flows with it at start.
 *
 * Accepted flow object (any key order; an unknown key is an error):
 *   table_id      0..254 (255 = all tables, DELETE only), default 0
 *   priority      0..65535, default 32768 (0x8000, Kytos' default)
 *   idle_timeout, hard_timeout   0..65535, default 0
 *   cookie        uint64, default 0
 *   cookie_mask   uint64, DELETE only
 *   owner         string (< FM_FLOW_OWNER_MAX bytes)
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

#include "fm_flow.h"
#include "json_tape.h"

/* Which of the two spellings of a flow's treatment the client used. */
enum flow_json_treatment {
    FLOW_FORM_NONE = 0,              /* neither actions nor instructions given */
    FLOW_FORM_ACTIONS,
    FLOW_FORM_INSTRUCTIONS,
};

/* Per-action rendering hints (how the user wrote what the codec holds). */
#define FLOW_ACT_PORT_NAMED 0x01     /* output port given as a name */
#define FLOW_ACT_SET_VLAN 0x02       /* set_field vlan_vid given as set_vlan */
#define FLOW_ACT_VAL_INT 0x04        /* set_field value given as integer */

/*
 * How a flow was written, where the typed flow cannot say: which optional
 * members were given, and the spelling of values the codec holds one way.
 * Nothing here changes what is sent to a switch or the flow's identity.
 */
struct flow_json_form {
    uint8_t treatment;               /* enum flow_json_treatment */
    bool has_owner;                  /* "owner" given (maybe "") */
    bool has_match;                  /* "match" given (maybe {}) */
    bool has_cookie_mask;            /* a delete's "cookie_mask" given */
    uint8_t tp_alias;                /* bit 0: tp_src used, bit 1: tp_dst used */
    uint64_t int_form;               /* bit f: match field f written as integer */
    uint8_t apply_flags[FM_FLOW_ACTIONS_MAX];  /* FLOW_ACT_* */
    uint8_t write_flags[FM_FLOW_ACTIONS_MAX];
};

/* Parse one Kytos flow object. for_delete: the request is a DELETE (command
 * OFPFC_DELETE, cookie_mask allowed, table_id 255 allowed); otherwise
 * OFPFC_ADD. form gets how it was written (NULL: not wanted). Returns 0, or
 * -EINVAL with a message in err (errlen > 0). */
int flow_json_parse(const struct jt_node *flow, bool for_delete, struct fm_flow *out,
                    struct flow_json_form *form, char *err, size_t errlen);

/*
 * The same, and the checked flow's FLOW_MOD (xid 0, the bytes
 * fm_flow_mod_encode writes) in wire, FLOW_JSON_WIRE_MAX bytes of room
 * (every flow this parser accepts fits: header 56, a full match, two full
 * action lists of set_fields, 24 bytes each, and the rest; the parser's
 * own check encodes into that much), its length in *wire_len: a request
 * keeps those bytes, encoded once.
 */
#define FLOW_JSON_WIRE_MAX 8192
int flow_json_parse_wire(const struct jt_node *flow, bool for_delete, struct fm_flow *out,
                         struct flow_json_form *form, uint8_t *wire, size_t *wire_len,
                         char *err, size_t errlen);

/* The same for one flow object's text (integers above INT64_MAX bare or as
 * json_u64 markers); a text that is not JSON is -EINVAL "not JSON: ...". */
int flow_json_parse_text(const char *text, size_t len, bool for_delete, struct fm_flow *out,
                         struct flow_json_form *form, char *err, size_t errlen);

/* The same for a flow held as a jansson value (one flow_json_render gave,
 * or one built by hand): its text is dumped and parsed. */
int flow_json_parse_json(const json_t *flow, bool for_delete, struct fm_flow *out,
                         struct flow_json_form *form, char *err, size_t errlen);

/*
 * A stored flow's text (the client's own, rest_flows.c) as the typed flow it
 * was accepted as: the flow manager's decoder for its records (struct
 * fm_env.decode). 0, or -EINVAL when the text no longer parses.
 */
int flow_json_record(const char *text, size_t len, struct fm_flow *out);

/* How a flow a switch reported (fm_flow_from_entry) shows, as Kytos shows
 * it: "match" when it matches on anything, plain "actions" when a lone
 * apply_actions is all it does, "instructions" otherwise; values in their
 * plain forms. */
void flow_json_form_of(const struct fm_flow *f, struct flow_json_form *out);

/* Back to Kytos JSON (new reference, NULL on allocation failure). Always
 * has table_id, priority, cookie, idle_timeout, hard_timeout (as Kytos'
 * stored flows do); owner, cookie_mask, match, actions/instructions when
 * form says they were given. render(parse(x)) equals x (json_equal) for x
 * written in the canonical forms: defaults spelled out, masks in the form
 * render uses (prefix lengths for contiguous IP masks, lowercase MACs and
 * compressed IPv6), instructions in execution order (meter, apply_actions,
 * clear_actions, write_actions, write_metadata, goto_table). */
json_t *flow_json_render(const struct fm_flow *f, const struct flow_json_form *form);

/* One Kytos action list (as "actions" above) at path (for messages) into
 * arr, FM_FLOW_ACTIONS_MAX of room, *n set: the groups' buckets are written
 * so too (gm_json.h). 0, or -EINVAL with the message in err. */
int flow_json_parse_actions(const struct jt_node *list, const char *path, struct ofp_action *arr,
                            uint16_t *n, char *err, size_t errlen);

/* A 64-bit value as flows write them (cookie, metadata): a whole decimal or
 * 0x string / a non-negative JSON integer or such a string. true when it is one. */
bool flow_json_text_u64(const char *s, uint64_t *out);
bool flow_json_u64(const json_t *v, uint64_t *out);

#endif
