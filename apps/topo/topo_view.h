/*
 * topo_view: topology discovery's part on the control thread — every link
 * ofcd has seen, as the REST API shows it (Kytos-ng topology v3 links:
 * active, enabled, since when, why it last changed).
 *
 * It hears the workers' events (of_event.h): topo_app's struct topo_seen
 * (QMSG_EV_APP with its app index) feeds the link table (topo_links.c);
 * SWITCH_DOWN and PORT_STATUS (reason DELETE, or link or port down) take
 * links down at once; topo_view_tick() takes down those silent past the
 * timeout. A link once seen keeps its record (active false while down) so
 * an operator sees it went away; when the records are full the oldest
 * inactive one makes room. Every change is logged with both ends and
 * counted. The same frames are the hellos of of_lldp's liveness
 * (topo_live.c) on the interfaces it is on for. A frame counts only if it
 * was sent within lldp_max_age_us and after the last one accepted from
 * its sender port (topo_fresh.c): a replay, or ofcd's frame relayed onto
 * another port, is dropped and counted, refreshing and making nothing.
 *
 * Threads: the control thread calls handle and tick; REST threads read and
 * set enabled. The caller serialises them (the app's switch-view lock).
 */
#ifndef OFCD_TOPO_VIEW_H
#define OFCD_TOPO_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofcd_counters.h"
#include "qmsg.h"
#include "topo_links.h"
#include "topo_live.h"

#define TOPO_LINK_ID_LEN 64             /* hex SHA-256, Kytos' LinkID */

#define TOPO_VIEW_COUNTERS(X)                                                              \
    X(seen, "LLDP frames of ours that reached the control thread")                        \
    X(replays, "LLDP frames not newer than the last from their sender port: dropped")     \
    X(stale, "LLDP frames older than topology.lldp_max_age_ms here: dropped")             \
    X(senders_full, "LLDP frames of a new sender port refused: its table is full")        \
    X(links_up, "links that came up (seen both ways)")                                    \
    X(links_down, "links that went down")                                                 \
    X(loops, "LLDP that came back to the switch that sent it")                            \
    X(table_full, "frames of a new link refused: topology.max_links reached")             \
    X(bad_events, "topology events of the wrong size (a bug)")
#define TOPO_VIEW_GAUGES(X)                                                                \
    X(links, "links ofcd knows (up or down)")                                             \
    X(links_active, "links up")

struct topo_view_stats {
    TOPO_VIEW_COUNTERS(OFCD_COUNTER_FIELD)
    TOPO_VIEW_GAUGES(OFCD_COUNTER_FIELD)
};

extern const struct ofcd_counter_group topo_view_counters;  /* "topology" */

struct topo_link_rec {
    struct topo_end a, b;               /* a before b: Kytos' endpoint order */
    char id[TOPO_LINK_ID_LEN + 1];
    bool active, loop, enabled;
    bool looping;                       /* a loop LLDP shows now (since since_wall) */
    uint64_t since_us;                  /* the current state since (lcore clock) */
    int64_t since_wall;                 /* the same, unix seconds */
    uint64_t ups, downs;
    const char *why;                    /* the last change's reason */
    struct topo_link_rec *hnext;
    /* topo_view's index by end: one node per end, for topo_view_link_of */
    struct topo_end_node {
        struct topo_link_rec *rec;
        struct topo_end_node *next;
    } side[2];
};

struct topo_view_cfg {
    unsigned app_index;                 /* topo_app's index in the workers' list */
    uint64_t link_timeout_us;
    uint32_t max_links;
    uint64_t liveness_dead_us;          /* of_lldp liveness: no hello this long = down */
    uint64_t lldp_max_age_us;           /* older frames are stale (0: the default) */
    uint64_t lldp_skew_us;              /* how far ahead a frame may be (0: alone's) */
    /* Told every change after the record shows it (may be NULL): the event
     * stream's publisher. Called under the caller's lock. */
    void (*on_change)(void *arg, const struct topo_link_rec *l, enum topo_change c);
    void *on_change_arg;
    /* Told when LLDP makes a record (made true) and when the oldest
     * inactive one goes to make room (made false), to keep the records over
     * a restart (topo_keep); not for restore or forget, whose callers keep
     * them themselves. May be NULL. Under the caller's lock. */
    void (*on_record)(void *arg, const struct topo_link_rec *l, bool made);
    void *on_record_arg;
};

struct topo_view;

struct topo_view *topo_view_create(const struct topo_view_cfg *cfg);
void topo_view_destroy(struct topo_view *t);

/* One worker event (any kind: those that are not the topology's are let
 * be). now_us: the lcore clock. */
void topo_view_handle(struct topo_view *t, const struct qmsg *q, uint64_t now_us);
void topo_view_tick(struct topo_view *t, uint64_t now_us);

/* Kytos' interface id: "dpid:port", the dpid colon-separated. */
#define TOPO_END_ID_LEN 40
void topo_end_id(struct topo_end e, char out[TOPO_END_ID_LEN]);
/* Read "dpid<sep>port" back (the dpid in either form dpid_parse reads; port
 * in decimal digits, 1..UINT32_MAX, or 0 too — the switch itself — when
 * allow_switch). 0 or -EINVAL. */
int topo_end_parse(const char *s, char sep, bool allow_switch, struct topo_end *e);

/* Kytos' link id of a – b: hex SHA-256 of "A:B", each end "dpid:port"
 * with the dpid colon-separated, the ends sorted. */
void topo_link_id(struct topo_end a, struct topo_end b, char out[TOPO_LINK_ID_LEN + 1]);

/* Reads and the one change REST makes. */
void topo_view_each(const struct topo_view *t, void (*fn)(void *arg, const struct topo_link_rec *l),
                   void *arg);
struct topo_link_rec *topo_view_find(struct topo_view *t, const char *id);
/* The i-th record (creation order), NULL past the last: readers copy the
 * table in pieces, letting the lock go between them (a record dropped
 * meanwhile shifts the rest: one may be missed or seen twice). */
const struct topo_link_rec *topo_view_link_at(const struct topo_view *t, size_t i);
/* A link's record before it is seen (what topo_keep kept), inactive; an
 * existing record only takes enabled. 0, or -ENOSPC (topology.max_links
 * reached: no record is evicted for it). a before b. When LLDP finds a new
 * link with every record taken, the oldest inactive enabled one makes
 * room; disabled ones (an operator's) are never evicted. */
int topo_view_restore(struct topo_view *t, struct topo_end a, struct topo_end b, bool enabled);
/* Drop link id's record (topology v3 DELETE links/{id}); LLDP that finds
 * the link again makes a new one. 0 or -ENOENT. */
int topo_view_forget(struct topo_view *t, const char *id);
/* The link record one end belongs to (the active one first), or NULL. */
const struct topo_link_rec *topo_view_link_of(const struct topo_view *t, struct topo_end e);
/* Kytos' mismatched_link: an end of l is now in another link that is up
 * (the cable moved while ofcd was away, or since): l is DOWN for it. */
bool topo_view_mismatched(const struct topo_view *t, const struct topo_link_rec *l);
void topo_view_get_stats(const struct topo_view *t, struct topo_view_stats *out);
/* of_lldp's verdict on link l: -1 unless liveness is on at both its ends,
 * else the pair's enum topo_live_state. A link with liveness on at both
 * ends is not taken down by topology.link_timeout_s of silence: liveness
 * judges it (down after its dead interval, shown as Kytos shows it:
 * active, status DOWN, reason "liveness"); ports and switches going down
 * still take it down. */
int topo_view_link_liveness(const struct topo_view *t, const struct topo_link_rec *l);
/* The interfaces' liveness (topo_live.h), fed by the same frames; REST
 * turns it on and off and reads it, under the same lock. */
struct topo_live *topo_view_live(struct topo_view *t);

#endif
