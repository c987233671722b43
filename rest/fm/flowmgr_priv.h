/*
 * flowmgr_priv: the flow manager's state, shared by flowmgr.c (mirror,
 * queues, batches, events) and flowmgr_check.c (statistics snapshot and the
 * consistency check). Everything here is guarded by flowmgr.lock.
 */
#ifndef OFCD_FLOWMGR_PRIV_H
#define OFCD_FLOWMGR_PRIV_H

#include <pthread.h>

#include "flowmgr.h"
#include "fm_slab.h"
#include "ofcd_ratelimit.h"
#include "ofp_msg.h"

/* One stored flow as the flow manager mirrors it. */
struct fm_flow {
    struct fm_flow *hnext;
    uint64_t match_id, flow_id;
    uint64_t sent_us;               /* last ADD of it sent (0: never this run) */
    uint16_t inflight;              /* its ADDs queued or sent, not yet answered */
    uint8_t state;                  /* enum store_flow_state */
    uint8_t owner;                  /* index into the switch's owner queues */
    uint16_t len;                   /* wire bytes of its ADD FLOW_MOD (xid 0) */
    uint8_t wire[];
};

/* A FLOW_MOD waiting to be sent. */
struct fm_item {
    struct fm_item *next;
    uint64_t match_id, flow_id;     /* ADD: the flow it installs; DELETE: 0 */
    bool is_add;
    uint16_t len;
    uint8_t wire[];
};

/* Per owner per switch: a FIFO and its pacing bucket. */
struct fm_owner {
    char name[FLOW_JSON_OWNER_MAX];
    struct fm_item *head, *tail;
    double tokens;
    uint64_t refill_us;
};

/* What one sent FLOW_MOD is, for its error or its barrier. */
struct fm_sent {
    uint32_t xid;
    bool is_add;
    bool failed;
    uint64_t match_id, flow_id;
};

struct fm_batch {
    struct fm_batch *next;
    uint32_t barrier_xid;
    uint32_t n;
    struct fm_sent sent[];
};

#define FM_MAX_OWNERS 32
#define FM_SW_BUCKETS 4096u             /* the switches' hash (flowmgr.c, flowmgr_ctl.c) */

struct fm_switch {
    struct fm_switch *hnext;
    uint64_t dpid;
    bool seen;                      /* has been up since ofcd started */
    bool up;
    conn_handle_t conn;
    uint64_t up_us;                 /* when the current connection came up */
    uint64_t down_us;               /* when it last went down */
    uint32_t next_xid;
    /* mirror: chained hash on match_id */
    struct fm_flow **buckets;
    size_t n_buckets, n_flows;
    /* sending */
    struct fm_owner owners[FM_MAX_OWNERS];
    unsigned n_owners;
    size_t queued;
    size_t reserved;                /* admitted FLOW_MODs not yet queued (flowmgr_admit) */
    unsigned rr;                    /* owner served first next time */
    struct fm_batch *bhead, *btail;
    /* statistics snapshot: raw FLOW reply parts (malloc'd OpenFlow messages) */
    uint8_t **snap, **acc;
    size_t n_snap, n_acc, cap_acc;
    uint32_t acc_xid;
    uint64_t snap_bytes;            /* of the snapshot held */
    uint64_t acc_bytes;             /* of the reply being gathered */
    uint32_t dropped_xid;           /* a reply past its bounds: the rest is ignored */
    /* The xid of this connection's FLOW statistics request, until its reply
     * completes (0: none). The only control-thread xid a reply may carry. */
    uint32_t stats_xid;
    bool check_connect;             /* next complete reply gets the on-connect check */
    uint64_t last_check_us;
};

struct flowmgr {
    struct flowmgr_cfg cfg;
    struct flowmgr_env env;
    struct store *store;
    pthread_mutex_t lock;
    struct fm_slab slab;            /* the mirror's entries (under lock) */
    struct fm_switch **sw_buckets;
    size_t n_sw_buckets;
    uint64_t last_forget_us;
    /* One limiter per log line what switches send can trigger (errors,
     * what the consistency check finds, oversized replies), under lock. */
    struct {
        struct ofcd_ratelimit rejected, rejected_other, stray_error, alien, changed, missing,
            check, snap_oversized, snap_unsolicited, snap_budget;
    } rl_log;
    struct flowmgr_stats stats;
};

static inline uint64_t fm_now_us(const struct flowmgr *fm)
{
    return fm->env.now_us(fm->env.arg);
}

struct fm_switch *fm_switch_find(struct flowmgr *fm, uint64_t dpid);
struct fm_flow *fm_flow_find(const struct fm_switch *sw, uint64_t match_id);
/* Queue a FLOW_MOD (wire bytes, any xid) for sw under owner index o; an
 * ADD counts as in flight for its mirrored flow until answered. */
int fm_queue(struct flowmgr *fm, struct fm_switch *sw, unsigned o, bool is_add,
             uint64_t match_id, uint64_t flow_id, const uint8_t *wire, size_t len);
/* fmod as a FLOW_MOD on the wire (xid 0, patched at send) in a malloc'd
 * buffer (*len bytes), or NULL. */
/* A FLOW_MOD (xid 0) in a malloc'd buffer of *len bytes; NULL when out of
 * memory or it cannot be encoded. */
uint8_t *fm_encode_flow_mod(const struct ofp_flow_mod *fmod, size_t *len);
/* The same into buf: 0, or -ENOSPC when cap is too small (nearly every
 * flow fits FM_WIRE_SMALL). */
#define FM_WIRE_SMALL 2048
int fm_encode_flow_mod_into(const struct ofp_flow_mod *fmod, uint8_t *buf, size_t cap,
                            size_t *len);
/* The next control-thread xid of sw (top bit set). */
uint32_t fm_next_xid(struct fm_switch *sw);

/* Sending order of two control-thread xids: serial-number arithmetic
 * (RFC 1982) over their 31-bit space, so a batch or a barrier that spans
 * the wrap from 0xffffffff to 0x80000001 still compares in the order sent.
 * < 0 when a went out before b, 0 when equal, > 0 after. */
static inline int fm_xid_cmp(uint32_t a, uint32_t b)
{
    uint32_t d = (a - b) & ~OFP_XID_CONTROL;

    return d == 0 ? 0 : d < (1u << 30) ? 1 : -1;
}
/* One message (wire bytes, xid patched in) to sw's io lcore msg_out in
 * class cls; 0 or -ENOBUFS (ring full or no buffer: nothing sent). */
int fm_send_wire(struct flowmgr *fm, struct fm_switch *sw, const uint8_t *wire, size_t len,
                 uint32_t xid, uint8_t cls);
/* Send what may go now on sw. */
void fm_pump(struct flowmgr *fm, struct fm_switch *sw, uint64_t now_us);
/* Hand kind/data (owned, may be NULL) to env.event, if any. */
void fm_event(struct flowmgr *fm, const char *kind, json_t *data);
void fm_set_state(struct flowmgr *fm, struct fm_switch *sw, struct fm_flow *f, uint8_t state,
                  uint16_t err_type, uint16_t err_code);

/* flowmgr_check.c */
/* One FLOW statistics part of sw: kept only when it answers the request
 * outstanding (control xid) or a worker's poll (the worker forwards only
 * its own), within the reply's bounds and the budget of all snapshots. */
void fm_snap_part(struct flowmgr *fm, struct fm_switch *sw, const uint8_t *msg, size_t len,
                  uint32_t xid, bool more);
/* Drop a reply still being collected (its connection is gone). */
void fm_snap_drop_partial(struct flowmgr *fm, struct fm_switch *sw);
void fm_snap_free(struct flowmgr *fm, struct fm_switch *sw);
/* Ask sw for its flows; the xid becomes sw->stats_xid. */
int fm_request_flow_stats(struct flowmgr *fm, struct fm_switch *sw);

#endif
