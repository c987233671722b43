/*
 * eline_layout: the flows of one EVC, laid out as Kytos-ng's mef_eline lays
 * them, so that `ovs-ofctl dump-flows` and GET stored_flows show a Kytos
 * user what they expect. Pure: an EVC's ends, its path and its tags in,
 * flow_manager v2 flow objects out (JSON, grouped by switch as a
 * flows_by_switch body is), no I/O, no state.
 *
 * The layout, for UNIs A and Z whose tags are the "VLAN values" Kytos
 * matches on — none (EPL: the whole port), a VID 1..4095, 0 for
 * "untagged", "any" (4096/4096: any tagged frame) or a list of value/mask
 * pairs (a range):
 *  - every flow: match in_port, cookie 0xaa << 56 | the EVC's 56-bit id,
 *    owner "mef_eline", actions ending in output (set_queue before it when
 *    a queue is asked), table 0;
 *  - priority: sb_priority when given; else by the VLAN value the flow is
 *    about: a VID or a list 20000 (EVPL), untagged 20000, any 15000, none
 *    10000 (EPL); a flow matching a service tag 20000;
 *  - inter-switch, at each UNI's switch: a push flow (the UNI's traffic to
 *    the path's first link, carrying the link's S-VLAN) and a pop flow (the
 *    path's traffic back out of the UNI). The S-tag (802.1ad, push_vlan
 *    "s") is pushed unless both UNIs carry different plain VIDs (then the
 *    customer tag itself is rewritten to the S-VLAN and back); a UNI
 *    without a tag gets a C-tag pushed when the far side expects a VID; a
 *    far side's VID is set before the S-tag goes on;
 *  - at each switch inside the path: one flow per direction, matching the
 *    incoming link's S-VLAN and setting the outgoing link's;
 *  - intra-switch: one flow per direction, with the tag rewritten, pushed
 *    or popped as the two UNIs' values need.
 * A list value on a UNI makes one flow per value/mask pair where that
 * UNI's traffic is matched.
 */
#ifndef OFCD_ELINE_LAYOUT_H
#define OFCD_ELINE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define ELINE_COOKIE_PREFIX 0xaaull        /* the cookie's top byte: mef_eline's */
#define ELINE_PRIO_EVPL 20000
#define ELINE_PRIO_EPL 10000
#define ELINE_PRIO_ANY 15000
#define ELINE_PRIO_UNTAGGED 20000
#define ELINE_MASK_TEXT 16                 /* "4095/4095" and its NUL, with room */
#define ELINE_MASKS_MAX 64

/* The VLAN value of a UNI, as its flows match it. */
enum eline_vlan_kind {
    ELINE_VLAN_NONE = 0,    /* no tag asked: EPL */
    ELINE_VLAN_VID,         /* vid: 0 = untagged, 1..4095 */
    ELINE_VLAN_ANY,         /* any tagged frame */
    ELINE_VLAN_MASKS,       /* masks[0..n_masks): "value/mask" */
};

struct eline_vlan {
    enum eline_vlan_kind kind;
    uint16_t vid;
    char masks[ELINE_MASKS_MAX][ELINE_MASK_TEXT];
    unsigned n_masks;
};

/* An interface: a switch and a port. */
struct eline_end {
    uint64_t dpid;
    uint32_t port;
};

/* One link of the path, in the path's order; its S-VLAN (1..4095). */
struct eline_link {
    struct eline_end a, b;
    uint16_t s_vlan;
};

struct eline_evc {
    uint64_t id;                /* 56 bits: the cookie's low part */
    struct eline_end uni_a, uni_z;
    struct eline_vlan vlan_a, vlan_z;
    uint16_t sb_priority;       /* 0: by the VLAN values */
    int queue_id;               /* -1: none */
};

/* The tag ranges [first, last] pairs (VIDs 1..4095) as value/mask pairs
 * covering exactly them, into out (kind MASKS). 0, -EINVAL for a range
 * out of order or out of 1..4095, -E2BIG past ELINE_MASKS_MAX pairs. */
int eline_vlan_from_ranges(const uint16_t (*ranges)[2], size_t n, struct eline_vlan *out);

/*
 * The EVC's flows over path (n links from uni_a's switch to uni_z's, each
 * link's ends in either order; n = 0 when both UNIs are on one switch) as
 * {"<dpid>": {"flows": [...]}, ...}, a new reference in *out. 0, -EINVAL
 * when the path does not join the two UNIs' switches link by link (or n is
 * 0 and they are on two), -ENOMEM.
 */
int eline_layout(const struct eline_evc *evc, const struct eline_link *path, size_t n,
                 json_t **out);

/*
 * Protection, beyond Kytos: primary and backup (eline_layout of two paths
 * that share no link, from uni_a's switch to uni_z's) made into one layout
 * in *out, where each UNI's push flows go to fast-failover group gid on
 * its switch instead of out of the primary's first port: the group's
 * first bucket does what the primary's push flow did from its last
 * set_vlan on (the S-VLAN, [set_queue,] output) and watches that port,
 * the second does the backup's; so when the primary's first link goes
 * down the switch itself sends the traffic down the backup. Both paths'
 * pop flows and the flows inside both paths are kept. The groups, one per
 * UNI switch, in *groups: {"<dpid>": {"group_id", "type":
 * "fast_failover", "buckets": [...]}} (gm_json.h's form). 0; -EINVAL when
 * the two are not one EVC's layouts over two paths; -ENOMEM.
 */
int eline_layout_protect(const struct eline_evc *evc, uint32_t gid, json_t *primary,
                         json_t *backup, json_t **out, json_t **groups);

/*
 * Metering, beyond Kytos (apps.mef_eline_meters): each flow of flows (a
 * layout by switch, eline_layout's or eline_layout_protect's) that takes a
 * UNI's traffic in — on that UNI's switch, matching its port — goes through
 * the UNI's meter first: its "actions" become "instructions" [meter
 * meter_a (uni_a's) or meter_z (uni_z's), apply_actions]. A meter of 0
 * leaves that UNI's flows as they are. 0; -ENOMEM (flows then partly
 * changed: not to be laid).
 */
int eline_layout_meter(const struct eline_evc *evc, json_t *flows, uint32_t meter_a,
                       uint32_t meter_z);

/* The meter id's body as rest/kytos/gm_json.h reads it: kbps, burst and
 * stats, one drop band at rate_kbps with a burst of a tenth of a second.
 * New reference; NULL when out of memory. */
json_t *eline_layout_meter_body(uint32_t meter_id, uint64_t rate_kbps);

/* The EVC's cookie (ELINE_COOKIE_PREFIX << 56 | id). */
uint64_t eline_cookie(uint64_t id);

#endif
