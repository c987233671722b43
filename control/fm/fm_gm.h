/*
 * fm_gm: a switch's groups and meters, kept by the flow manager beside its
 * flows — stored, sent behind control traffic, confirmed by barrier and laid
 * again on every (re)connect, so a flow that names a group or a meter
 * finds it there.
 *
 * One record per (dpid, kind, id) in the store's app records, under
 * "fm/gm/<dpid, 16 hex>/<g|m>/<id, 8 hex>": the ADD GROUP_MOD or METER_MOD
 * as it goes on the wire (xid 0) and the client's own text (its JSON, for
 * GET), opaque here. The flow manager mirrors them per switch with a state
 * that lives in memory only: pending until a barrier after its message
 * answered, installed, or error with the switch's OFPT_ERROR type/code.
 * After a restart every one is pending again and laid on the next connect.
 *
 * On the switch: a stored one is sent as an ADD at each connect and when
 * first put, as a MODIFY when put again while the switch holds it; an ADD
 * the switch refuses because the id exists there (OFPGMFC_GROUP_EXISTS,
 * OFPMMFC_METER_EXISTS: it kept it across the reconnect) is sent again as a
 * MODIFY of what is stored now, so the switch ends holding the stored
 * version either way. A delete sends a DELETE of that id (the switch then
 * drops the flows that use a deleted group or meter, as OpenFlow says).
 * They go in a batch of their own, ahead of the flows queued with them, on
 * the same class (P3) and behind the same barriers, so a flow naming a
 * group is sent after the group's barrier.
 *
 * The consistency check reads them back after each flow check
 * (fm_gm_check.c): aliens deleted, missing or changed ones laid again.
 *
 * In a cluster (fm_cfg.shared_store) the records are in etcd and every
 * node mirrors every record through the store's watch (fm_gm_follow): a
 * put or delete on any node is written to etcd only, and each node's
 * mirror follows the commit, its own included. Only the switch's master
 * sends (fm_env.may_write) and hears the barriers, so only the master
 * knows a record's state: the other nodes list it as "unknown". A node
 * that becomes master lays what it mirrors (its queue, the ADDs of the
 * connect, falls back to MODIFY where the switch has the id) and its
 * check mends the rest.
 *
 * Threads: the REST threads call put, del and list; put and del wait for
 * the store's commit (one group write at a time: they are rare, and so the
 * mirror follows the store's order). fm_gm_follow runs on the store's
 * committer (the watch).
 */
#ifndef OFCD_FM_GM_H
#define OFCD_FM_GM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fm;

enum fm_gm_kind {
    FM_GM_GROUP = 1,
    FM_GM_METER = 2,
};

enum fm_gm_state {
    FM_GM_PENDING = 0,
    FM_GM_INSTALLED = 1,
    FM_GM_ERROR = 2,
    FM_GM_UNKNOWN = 3,              /* listed by a node that is not the switch's master */
};

#define FM_GM_TEXT_MAX 65536u        /* the client's text a record may keep */
#define FM_GM_PER_SWITCH 4096u       /* groups and meters, each, per switch */
#define FM_GM_QUEUE_MAX 8192u        /* their messages waiting per switch (a switch
                                      * that reads nothing holds no more) */

/* "group" / "meter"; "pending" / "installed" / "error" / "unknown". */
const char *fm_gm_kind_name(enum fm_gm_kind kind);
const char *fm_gm_state_name(enum fm_gm_state state);

/*
 * Store and lay one group (wire: its ADD GROUP_MOD, xid 0) or meter (its ADD
 * METER_MOD), replacing the one of that id. 0 once durable and queued (sent
 * when the switch is up); -EINVAL when wire is not such a message or
 * text_len is over FM_GM_TEXT_MAX; -ENOSPC past FM_GM_PER_SWITCH or when
 * the store is full; -EBUSY while FM_GM_QUEUE_MAX of the switch's wait to
 * be sent (nothing stored); the store's error (-ETIME: the outcome is not
 * known; the watch mirrors it if it was stored).
 */
int fm_gm_put(struct fm *fm, uint64_t dpid, const uint8_t *wire, size_t len, const char *text,
              size_t text_len);

/* Delete the stored one of (dpid, kind, id) and send its DELETE when up
 * (a switch down then, or that drops it, loses it: the consistency check
 * deletes it at the next connect, as an alien): 0,
 * -ENOENT when none is stored, -EBUSY as for a put, the store's error. */
int fm_gm_del(struct fm *fm, uint64_t dpid, enum fm_gm_kind kind, uint32_t id);

/* Is key a group's or meter's record (the store's app-record space)? */
bool fm_gm_is_key(const char *key);

/*
 * In a cluster, on the store's watch: the record key was written (read back
 * from the store) or removed, by any node. The mirror follows; when the
 * switch is up the change is queued for it (sent by its master). A record
 * equal to the mirrored one changes nothing (a node's own write, a read
 * again after the watch reopened). 0; -ENOMEM; -EINVAL for a key that is
 * not one (fm_gm_is_key) or a record this ofcd cannot lay (logged, left
 * as it is).
 */
int fm_gm_follow(struct fm *fm, const char *key, bool removed);

/* One stored group or meter as the mirror holds it. */
struct fm_gm_info {
    enum fm_gm_kind kind;
    uint32_t id;
    enum fm_gm_state state;         /* FM_GM_UNKNOWN on a node not the master */
    uint16_t err_type, err_code;    /* state error: the switch's OFPT_ERROR */
    char *text;                     /* the client's text, NUL-terminated */
    size_t text_len;
};

/* The stored one of (dpid, kind, id) into *out (its text to free): 0,
 * -ENOENT, -ENOMEM. */
int fm_gm_get(struct fm *fm, uint64_t dpid, enum fm_gm_kind kind, uint32_t id,
              struct fm_gm_info *out);

/* dpid's stored ones of kind (0: both), by id: a malloc'd array in *out
 * (fm_gm_infos_free), the count returned, or -ENOMEM. */
int fm_gm_list(struct fm *fm, uint64_t dpid, enum fm_gm_kind kind, struct fm_gm_info **out);
void fm_gm_infos_free(struct fm_gm_info *v, int n);

#endif
