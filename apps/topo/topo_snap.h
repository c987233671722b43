/*
 * topo_snap: what the topology's REST answers (topo_rest.c) copy out of the
 * switch view (sw_view) and the link table (topo_view) while the caller
 * holds the view's lock — the lock the control thread takes for every
 * worker event — so the JSON is built after it is let go. Each copy is
 * bounded: one switch with its ports, or a piece of the links or of the
 * liveness entries; the caller lets the lock go between pieces, so what it
 * shows of a changing topology is each piece as it was when copied.
 *
 * Every function here runs under the caller's lock and makes no JSON.
 */
#ifndef OFCD_TOPO_SNAP_H
#define OFCD_TOPO_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sw_view.h"
#include "topo_view.h"
#include "topo_live.h"

#define TOPO_SNAP_PIECE 256             /* links or liveness entries per lock hold */

/* A port and the link that ends on it, as an interface shows them. */
struct topo_snap_port {
    struct ofp_port p;
    bool nni;                           /* an active link, not a loop */
    char link_id[TOPO_LINK_ID_LEN + 1]; /* "" when none */
    /* A loop LLDP shows now from this port (the lower of the two, as
     * of_lldp marks it) to loop_peer on the same switch, since when; 0:
     * none. */
    uint32_t loop_peer;
    int64_t loop_since_wall;
};

struct topo_snap_switch {
    uint64_t dpid;
    bool up;
    uint32_t peer_ip;
    uint16_t peer_port;
    struct ofp_desc desc;
    uint32_t n_ports;
    struct topo_snap_port *ports;       /* malloc'd; NULL unless asked for */
};

/* dpid's record (its ports when with_ports). 0, -ENOENT, -ENOMEM. */
int topo_snap_switch(const struct sw_view *cs, const struct topo_view *tc, uint64_t dpid,
                     bool with_ports, struct topo_snap_switch *out);
void topo_snap_switch_free(struct topo_snap_switch *s);

/* A link's end: its interface when its switch is known with that port. */
struct topo_snap_end {
    struct topo_end e;
    bool known;
    bool sw_up;
    struct topo_snap_port port;
};

struct topo_snap_link {
    char id[TOPO_LINK_ID_LEN + 1];
    bool active, loop, enabled;
    int64_t since_wall;
    uint64_t ups, downs;
    char why[64];
    int live;                           /* topo_view_link_liveness */
    bool mismatched;                    /* topo_view_mismatched */
    struct topo_snap_end end[2];        /* endpoint a, endpoint b */
};

/* Up to max links from record *pos on into out; *pos advanced. The count
 * (0: none left). */
size_t topo_snap_links(const struct sw_view *cs, const struct topo_view *tc, size_t *pos,
                       struct topo_snap_link *out, size_t max);

/* A liveness entry; for the endpoint a of a link whose two ends are both
 * on, the other end and the link too. */
struct topo_snap_live {
    struct topo_live_if i;              /* hnext cleared */
    bool paired;
    struct topo_live_if b;
    char link_id[TOPO_LINK_ID_LEN + 1];
};

struct topo_snap_lives {
    struct topo_snap_live *v;
    size_t n, cap;
    bool oom;
};

/* The entries of the liveness buckets from *pos on (at least
 * TOPO_SNAP_PIECE of them when that many are left) appended to out; *pos
 * advanced. How many were appended: 0 once none is left. */
size_t topo_snap_lives(struct topo_view *tc, uint32_t *pos, struct topo_snap_lives *out);

#endif
