/*
 * topo_app: topology discovery's part in the data path, behind the
 * worker's app hooks (of_app.h), on the worker lcores:
 *
 *   on_switch_up    a small cursor per switch; the first probe round
 *                   starts within TOPO_FIRST_SPREAD_US (spread by dpid)
 *                   and goes one port per TOPO_FIRST_SPACING_US, so a new
 *                   switch's links are known in a fraction of a second
 *   on_tick         one LLDP PACKET_OUT per eligible port per
 *                   interval_ms, the ports of a switch spaced evenly over
 *                   the interval (at most one tick per TOPO_TICK_MIN_US,
 *                   several ports per tick past that), so 1,000 switches ×
 *                   48 ports are 16,000 frames a second, never a burst
 *   on_port_status  a port that is eligible after an ADD or MODIFY (it
 *                   came back up) is probed at once with a probe that asks
 *                   the receiver to answer at once (its port may show no
 *                   change), at most one off-schedule probe per switch per
 *                   TOPO_FIRST_SPACING_US
 *   on_packet_in    an LLDP frame (ethertype 0x88cc) is read
 *                   (topo_lldp.c): ofcd's own and fresh (sent within
 *                   max_age_ms) becomes a struct topo_seen event for the
 *                   control thread (topo_view.c, which drops replays);
 *                   foreign, malformed and stale ones are counted and
 *                   dropped here
 *
 * Probing keeps to what the path can carry. A fresh frame of ours that
 * took longer than max_age_ms / 4 to come back (queued in ofcd, in the
 * switch, or in the TCP between them) doubles the probe interval of the
 * switch it came back on, at most once per (stretched) interval and up to
 * half of link_timeout_ms, so one lost probe still does not take a link
 * down; frames back within max_age_ms / 8 take an eighth off again, as
 * slowly. Without it an overloaded lcore (1,000 switches × 28 ports at 1 s
 * on a slow machine) queued its own probes past max_age_ms, took them all
 * for stale, and every link flapped: more probes never help a link.
 *
 * A port is eligible when it is a physical port (1..OFPP_MAX), neither
 * configured down nor link down, and not switched off in topo_admin.
 * The LLDP flow that sends the frames back (priority 50000, dl_type
 * 0x88cc → CONTROLLER, cookie TOPO_COOKIE(dpid)) is the flow manager's
 * business (topo_flow.c); the cookie range is this app's, so the
 * consistency check never calls those flows alien.
 *
 * struct topo_app_cfg is shared by every worker: the limits are read-only
 * once the lcores run; the key and stamp offset may be changed by the
 * control thread (a cluster), interval_ms by REST (of_lldp's
 * polling_time), and counters are bumped, all with relaxed atomics.
 */
#ifndef OFCD_TOPO_APP_H
#define OFCD_TOPO_APP_H

#include <stdatomic.h>
#include <stdint.h>

#include "of_app.h"
#include "ofcd_counters.h"
#include "topo_admin.h"
#include "topo_lldp.h"

/* Kytos-ng of_lldp's cookie: 0xab in the top byte, the dpid's low 56 bits. */
#define TOPO_COOKIE_PREFIX 0xabull
#define TOPO_COOKIE(dpid) ((TOPO_COOKIE_PREFIX << 56) | ((dpid) & 0x00ffffffffffffffull))
#define TOPO_FLOW_PRIORITY 50000u
#define TOPO_TICK_MIN_US 1000u
#define TOPO_FIRST_SPREAD_US 100000u    /* first probe within 100 ms of switch up */
#define TOPO_FIRST_SPACING_US 5000u     /* first round: 200 probes/s per switch at most */

#define TOPO_APP_COUNTERS(X)                                                              \
    X(lldp_sent, "LLDP PACKET_OUTs sent")                                                 \
    X(lldp_send_failed, "LLDP PACKET_OUTs not sent: no buffer, or not master (cluster)") \
    X(lldp_prompt_limited, "off-schedule probes skipped: one per 5 ms per switch")         \
    X(lldp_answered, "probes that asked for an answer (their port just came up)")         \
    X(lldp_in, "LLDP frames received in PACKET_INs")                                      \
    X(lldp_ours, "ofcd's own fresh LLDP frames: a link seen one way")                     \
    X(lldp_foreign, "LLDP frames not ofcd's (another controller's, forged): ignored")     \
    X(lldp_malformed, "LLDP frames with truncated or broken TLVs: ignored")               \
    X(lldp_stale, "ofcd's LLDP frames sent too long ago (replays): ignored")              \
    X(lldp_no_port, "LLDP PACKET_INs without an in_port: ignored")                        \
    X(events_lost, "links seen that found no event buffer")                               \
    X(lldp_slowed, "a switch's probing slowed (x2): ofcd's frames came back late")          \
    X(lldp_sped_up, "a switch's probing sped up again (-1/8): frames back on time")

struct topo_app_stats {
    TOPO_APP_COUNTERS(OFCD_COUNTER_FIELD)
};

extern const struct ofcd_counter_group topo_app_counters;  /* "topology_lldp" */

#define TOPO_KEY_WORDS (TOPO_LLDP_KEY_LEN / 8)

struct topo_app_cfg {
    /* The HMAC key of the frames: this run's alone; in a cluster the one
     * every node shares, which may replace this run's while the workers
     * run (topo_app_set_key), so its words are atomic. A probe built across
     * a change may mix both and is read as foreign: one probe. */
    _Atomic uint64_t key[TOPO_KEY_WORDS];
    _Atomic uint64_t key_prev[TOPO_KEY_WORDS];  /* frames in flight across a change */
    /* Added to the lcore clock for a frame's send time and taken off again
     * when one is read: 0 alone; in a cluster wall − lcore clock, kept by
     * the control thread, so that a frame one node sends is dated on the
     * clock every node reads. */
    _Atomic uint64_t stamp_offset_us;
    uint64_t skew_us;                   /* TOPO_LLDP_SKEW_US, or the cluster's */
    _Atomic uint32_t interval_ms;       /* per port; of_lldp polling_time */
    uint32_t max_age_ms;                /* older frames are stale (lldp_max_age_ms) */
    /* The control thread's link timeout: probing is never slowed past half
     * of it (0: never slowed). */
    uint32_t link_timeout_ms;
    /* The VLAN LLDP frames carry and the LLDP flow matches, as of_lldp's
     * FLOW_VLAN_VID (topology.lldp_vlan, default 3799); 0: untagged. */
    uint16_t lldp_vlan;
    const struct topo_admin *admin;
    _Atomic uint64_t stats[sizeof(struct topo_app_stats) / sizeof(uint64_t)];
};

/* What a worker tells the control thread per frame of ours: sent from
 * (from_dpid, from_port), received on (event header's dpid, to_port). */
struct topo_seen {
    uint64_t from_dpid;
    uint32_t from_port;
    uint32_t to_port;
    uint64_t sent_us;                   /* the frame's send time: replays are not newer */
};

void topo_app_init(struct of_app *app, struct topo_app_cfg *cfg);
/* The key frames are signed with now; a new one (the old one is still
 * accepted until the next change). */
void topo_app_get_key(const struct topo_app_cfg *cfg, uint8_t out[TOPO_LLDP_KEY_LEN]);
void topo_app_set_key(struct topo_app_cfg *cfg, const uint8_t key[TOPO_LLDP_KEY_LEN]);
void topo_app_get_stats(const struct topo_app_cfg *cfg, struct topo_app_stats *out);

#endif
