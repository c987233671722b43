/*
 * topo_fresh: the send time of the newest LLDP frame of ours accepted from
 * each sender port (dpid, port), on the control thread, pure and with time
 * passed in — so a frame that is not newer than that is told apart as a
 * replay: a captured frame sent again, or ofcd's own frame relayed by a
 * host onto another port to fake a link there. It is dropped: it neither
 * refreshes a link nor makes one.
 *
 * A frame older than max_age (or more than skew ahead of the clock) is stale whatever the table holds, so a sender's entry is needed
 * only for max_age after the send time it holds: entries are forgotten
 * then (oldest first, O(1) per frame), and the table holds the ports heard
 * within max_age — each probed once per topology.lldp_interval_s. At most
 * `max` entries; when every one is younger than max_age, a new sender is
 * refused (counted by the caller) rather than an entry evicted early.
 */
#ifndef OFCD_TOPO_FRESH_H
#define OFCD_TOPO_FRESH_H

#include <stddef.h>
#include <stdint.h>

#include "topo_links.h"

enum topo_fresh_verdict {
    TOPO_FRESH_OK = 0,                  /* newer than any before: recorded */
    TOPO_FRESH_STALE,                   /* sent more than max_age ago, or in the future */
    TOPO_FRESH_REPLAY,                  /* not newer than the last accepted from its port */
    TOPO_FRESH_FULL,                    /* a new sender, and no room */
};

struct topo_fresh;

/* At most max senders; NULL when out of memory (or max is 0). skew_us:
 * how far ahead of the reader's clock a send time may be (topo_lldp.h). */
struct topo_fresh *topo_fresh_create(uint32_t max, uint64_t max_age_us, uint64_t skew_us);
void topo_fresh_destroy(struct topo_fresh *f);

/* A frame sent by `from` at sent_us, seen at now_us (the same clock). */
enum topo_fresh_verdict topo_fresh_check(struct topo_fresh *f, struct topo_end from,
                                         uint64_t sent_us, uint64_t now_us);

/* Senders remembered now. */
size_t topo_fresh_count(const struct topo_fresh *f);

#endif
