/*
 * fm_priv: the flow manager's state (fm.c), here so its white-box
 * test can reach it too (test_fm starts a switch's xids near the wrap)
 * and so can the operator's view of its queues (fm_ctl.c, fm/queue).
 * Nothing else includes it: the consistency check sees the mirror through
 * fm_check.h's view, the snapshot is fm_snap.h's. Everything here is
 * guarded by fm.lock.
 */
#ifndef OFCD_FM_PRIV_H
#define OFCD_FM_PRIV_H

#include <pthread.h>

#include "fm.h"
#include "fm_check.h"
#include "fm_slab.h"
#include "fm_snap.h"
#include "ofcd_ratelimit.h"
#include "ofcd_tbucket.h"
#include "ofp_msg.h"

/* One stored flow as the flow manager mirrors it. */
struct fm_entry {
    struct fm_entry *hnext;
    uint64_t match_id, flow_id;
    uint64_t added_ns;              /* the stored version its ADD was queued for (its
                                     * added_ns; 0: not known): a cluster's watch and
                                     * the request's own path queue one ADD, not two */
    uint64_t sent_us;               /* last ADD of it sent (0: never this run) */
    uint16_t inflight;              /* its ADDs queued or sent, not yet answered */
    uint8_t state;                  /* enum store_flow_state */
    uint8_t owner;                  /* index into the switch's owner queues */
    uint16_t len;                   /* wire bytes of its ADD FLOW_MOD (xid 0) */
    uint8_t packed;                 /* wire holds them packed (fm_pack.h), len - 31 bytes */
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
    char name[FM_FLOW_OWNER_MAX];
    struct fm_item *head, *tail;
    struct ofcd_tbucket pace;       /* flow_manager.pacing_per_s */
};

/* What one sent FLOW_MOD is, for its error or its barrier; or one sent
 * GROUP_MOD / METER_MOD (kind an enum fm_gm_kind, match_id its id, flow_id
 * the version of the record it laid, gm_cmd its command, gm_fallback: it
 * was itself the other command tried after a refusal). */
struct fm_sent {
    uint32_t xid;
    bool is_add;
    bool failed;
    uint8_t kind;                   /* 0: a FLOW_MOD */
    uint8_t gm_cmd;
    bool gm_fallback;
    uint64_t match_id, flow_id;
};

/* A stored group or meter as the flow manager mirrors it (fm_gm.c). */
struct fm_gm_entry {
    struct fm_gm_entry *next;       /* the switch's, by (kind, id) */
    uint8_t kind;                   /* enum fm_gm_kind */
    uint8_t state;                  /* enum fm_gm_state */
    bool on_switch;                 /* an ADD or MODIFY of it went out on this connection:
                                     * the next put is sent as a MODIFY */
    bool seen;                      /* in the switch's reply to the check now running */
    uint8_t pending_checks;         /* checks that found it pending and not as stored:
                                     * at FM_GM_PENDING_CHECKS it is sent again */
    uint16_t err_type, err_code;
    uint32_t id;
    uint64_t version;               /* counts its puts: a barrier confirms only its own */
    uint32_t len;                   /* its ADD's wire bytes, then the client's text */
    uint32_t text_len;
    uint8_t data[];                 /* wire, then text and a NUL */
};

/* A GROUP_MOD / METER_MOD waiting to be sent: its bytes are the mirror's at
 * the time it goes (a DELETE's are made then). */
struct fm_gm_item {
    struct fm_gm_item *next;
    uint8_t kind, cmd;
    bool fallback;
    uint32_t id;
};

struct fm_batch {
    struct fm_batch *next;
    uint32_t barrier_xid;
    uint32_t n;
    struct fm_sent sent[];
};

#define FM_MAX_OWNERS 32
#define FM_SW_BUCKETS 4096u             /* the switches' hash (fm.c, fm_ctl.c) */

struct fm_switch {
    struct fm_switch *hnext;
    uint64_t dpid;
    bool seen;                      /* has been up since ofcd started */
    bool up;
    bool let_go;                    /* the switch view let it go while it held flows:
                                     * forgotten here once the last one goes */
    conn_handle_t conn;
    uint64_t up_us;                 /* when the current connection came up */
    uint64_t down_us;               /* when it last went down */
    uint32_t next_xid;
    /* mirror: chained hash on match_id */
    struct fm_entry **buckets;
    size_t n_buckets, n_flows;
    /* sending */
    struct fm_owner owners[FM_MAX_OWNERS];
    unsigned n_owners;
    size_t queued;
    size_t reserved;                /* admitted FLOW_MODs not yet queued (fm_admit) */
    unsigned rr;                    /* owner served first next time */
    struct fm_batch *bhead, *btail;
    struct fm_snap snap;            /* its last FLOW statistics reply, and the next */
    /* The xid of this connection's FLOW statistics request, until its reply
     * completes (0: none). The only control-thread xid a reply may carry. */
    uint32_t stats_xid;
    bool check_connect;             /* next complete reply gets the on-connect check */
    uint64_t last_check_us;
    /* groups and meters (fm_gm.c) */
    struct fm_gm_entry *gm;
    unsigned n_gm[3];               /* by kind */
    struct fm_gm_item *gm_head, *gm_tail;
    size_t gm_queued;
    bool gm_sending;                /* up and this node writes to it: it queues for it */
    struct fm_gm_entry **gm_index;  /* the list as an array, for binary search; */
    size_t gm_index_n;              /* rebuilt when gm_index_stale */
    bool gm_index_stale;
    /* The check's GROUP_DESC and METER_CONFIG requests (fm_gm_check.c):
     * their xids until answered (0: none) and the parts taken. */
    uint32_t gm_check_xid[2];
    unsigned gm_check_parts[2];
};

struct fm {
    struct fm_cfg cfg;
    struct fm_env env;
    struct store *store;
    pthread_mutex_t lock;
    struct fm_slab slab;            /* the mirror's entries (under lock) */
    struct fm_switch **sw_buckets;
    size_t n_sw_buckets;
    uint64_t last_forget_us;
    /* One limiter per log line what switches send can trigger (errors,
     * what the consistency check finds, oversized replies), under lock. */
    struct {
        struct ofcd_ratelimit rejected, rejected_other, stray_error, check, snap_oversized,
            snap_unsolicited, snap_budget;
    } rl_log;
    struct fm_check_log check_log;
    struct fm_stats stats;
    pthread_mutex_t gm_write;       /* one group or meter write at a time (fm_gm.h) */
    uint64_t gm_version;            /* under lock: the last version given */
};

struct fm_switch *fm_switch_find(struct fm *fm, uint64_t dpid);
/* Under lock: dpid's record, made if need be (NULL: out of memory). */
struct fm_switch *fm_switch_get(struct fm *fm, uint64_t dpid);

/* What fm.c lends fm_gm.c for sending, all under lock: the next control
 * xid; one message to the switch (its xid patched in; 0 or -ENOBUFS); a
 * batch closed with its barrier and put in flight; the time; may this node
 * write to the switch. */
uint32_t fm_next_xid(struct fm_switch *sw);
int fm_send_wire(struct fm *fm, struct fm_switch *sw, const uint8_t *wire, size_t len,
                 uint32_t xid, uint8_t cls);
void fm_send_barrier(struct fm *fm, struct fm_switch *sw, struct fm_batch *batch);
uint64_t fm_now_us(const struct fm *fm);
bool fm_may_write(struct fm *fm, const struct fm_switch *sw);
/* Send what may go now on sw (nothing unless it is up and this node may
 * write to it). */
void fm_pump_now(struct fm *fm, struct fm_switch *sw);

/* fm_gm.c's part in fm.c's events, under lock. The stored groups and meters
 * read at create (0 or the store's error); sw came up: all of them queued
 * as ADDs; sw went down: its queue dropped; its record goes: everything
 * freed. pump: a batch of its queue, if any, within *room slots of P3
 * (barrier included), *room lowered by what it took. A sent one's barrier
 * answered (confirmed) or its OFPT_ERROR (rejected, reason the error as
 * text). */
int fm_gm_load(struct fm *fm);
/* fm_gm.c's list for fm_gm_check.c: the one of (kind, id) or NULL; one
 * more message to send (fallback: the other command tried after a
 * refusal). */
struct fm_gm_entry *fm_gm_find(struct fm_switch *sw, uint8_t kind, uint32_t id);
void fm_gm_queue(struct fm_switch *sw, uint8_t kind, uint8_t cmd, uint32_t id, bool fallback);
/* The check (fm_gm_check.c): ask the switch for its groups and meters
 * (after a flow check, when flow_manager.consistency is on); one part of
 * its answer (a MULTIPART_REPLY of GROUP_DESC or METER_CONFIG). */
void fm_gm_check_request(struct fm *fm, struct fm_switch *sw);
void fm_gm_check_reply(struct fm *fm, struct fm_switch *sw, const uint8_t *msg, size_t len);
void fm_gm_switch_up(struct fm *fm, struct fm_switch *sw);
/* Each tick, for an up switch that has some: this node became its master
 * (everything mirrored laid again, the queue of before dropped) or stopped
 * being it (the queue dropped). */
void fm_gm_mastership(struct fm *fm, struct fm_switch *sw);
void fm_gm_switch_reset(struct fm *fm, struct fm_switch *sw);
void fm_gm_switch_free(struct fm_switch *sw);
void fm_gm_pump(struct fm *fm, struct fm_switch *sw, size_t *room);
void fm_gm_confirmed(struct fm *fm, struct fm_switch *sw, const struct fm_sent *s);
void fm_gm_rejected(struct fm *fm, struct fm_switch *sw, const struct fm_sent *s,
                    uint16_t type, uint16_t code, const char *reason);

#endif
