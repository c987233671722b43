/*
 * fm_change: the one way a flow change is made. Stored first; once the
 * store has made it durable, handed to the flow manager (which updates its
 * mirror and queues the FLOW_MODs); the caller told last. Every writer of
 * flows goes through it: the REST flow_manager endpoints (rest_flows.c),
 * the topology app's LLDP flows (topo_flow.c), and the next app that
 * installs flows; the retention's purge of deleted flows too
 * (fm_change_purge_deleted, from the control thread).
 *
 * A change is an add or a delete over one or more switches (parts):
 *  - an add: the records to store (store_flow, their texts as kept) and,
 *    per switch, the ADDs to queue (fm_add_one: identity and encoded
 *    FLOW_MOD);
 *  - a delete: the stored versions it removes (victims: only the version
 *    named, so a re-add since the caller read them stays) and, per switch,
 *    the DELETE selectors to send; the switches are told even when no
 *    stored flow matches, as a flow ofcd does not know may be on them.
 * A part may hold admission (fm_admit): from submit on, the change
 * owns it and gives it back if the change fails.
 *
 * Order: the store completes changes in commit order, so the flow manager
 * gets an add and a later delete of one flow in that order, and never a
 * change that is not durable.
 *
 * Threads: submit from any thread (it never waits); done runs on the
 * store's committer. fm_change_run waits for done (a thread that may block).
 */
#ifndef OFCD_FM_CHANGE_H
#define OFCD_FM_CHANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fm.h"
#include "store.h"

/* One switch's part: n ADDs (adds) or n DELETE selectors (dels). */
struct fm_change_part {
    uint64_t dpid;
    size_t n;
    size_t held;                    /* admitted (fm_admit), not yet queued */
    const struct fm_add_one *adds;
    const struct fm_sel *dels;
};

/* rc: 0 (stored and handed over) or the store's error (nothing handed). */
typedef void (*fm_change_done_fn)(void *arg, int rc);

/* The caller's, from submit until done: it and all it points at. */
struct fm_change {
    struct fm *fm;                  /* stored in the store it was created with */
    struct fm_change_part *parts;
    size_t n_parts;
    /* an add */
    const struct store_flow *recs;
    size_t n_recs;
    /* a delete: sorted and made unique by submit (n_victims updated) */
    struct fm_key *victims;
    size_t n_victims;
    bool keep_deleted;              /* kept in state DELETED, as Kytos-ng lists them */
    fm_change_done_fn done;
    void *arg;
};

/*
 * Queue the change: 0, then done runs once it is stored (or failed).
 * -EALREADY: a delete of no stored flow, handed to the flow manager at once;
 * done does not run. Else the store's error (nothing queued, done does not
 * run). On any error the admission the parts held is given back.
 */
int fm_change_submit(struct fm_change *c);

/* Submit and wait: 0, or the store's error (-EALREADY is 0 here). c->done
 * is not used. Not from the store's committer (it would wait for itself). */
int fm_change_run(struct fm_change *c);

/* The flows deleted before before_ns (wall clock), kept in state DELETED
 * for Kytos' listings (flow_manager.deleted_retention_s), leave the store:
 * queued, never waited for; the flow manager holds none of them. 0, or
 * -EAGAIN when the store's queue of background changes is full. */
int fm_change_purge_deleted(struct fm *fm, uint64_t before_ns);

#endif
