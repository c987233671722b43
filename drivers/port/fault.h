/*
 * fault: the decision engine of the fault-injection port wrapper.
 *
 * Pure logic over opaque packet pointers, no DPDK: the wrapper
 * (port_fault.c) feeds each packet of one direction through
 * fault_dir_submit() and sends whatever fault_dir_release() hands back.
 * Decisions come from a seeded PRNG private to the direction, so a given seed
 * and the same packet sequence give the same drops, duplicates, reorderings
 * and delays on every run. Time is passed in (microseconds), never read here,
 * so tests drive it with a fake clock.
 *
 * Held packets (reordered or delayed) live in a fixed ring of
 * FAULT_HOLD_MAX slots; when it is full the packet passes unharmed and
 * fault_stats.hold_full counts it, so the wrapper never loses or leaks a
 * packet on its own account.
 */
#ifndef OFCD_FAULT_H
#define OFCD_FAULT_H

#include <stdbool.h>
#include <stdint.h>

#define FAULT_HOLD_MAX 1024
/* A reordered packet waits for this many later packets to pass it, or for
 * FAULT_REORDER_MAX_US, whichever comes first. */
#define FAULT_REORDER_DEPTH 3
#define FAULT_REORDER_MAX_US 2000

struct fault_rates {
    double drop;     /* probability a packet is dropped */
    double dup;      /* probability a packet is sent twice */
    double reorder;  /* probability a packet is held back behind later ones */
    double delay;    /* probability a packet is delayed by delay_us */
    uint32_t delay_us;
};

enum fault_action {
    FAULT_PASS = 0,
    FAULT_DROP,
    FAULT_DUP,
    FAULT_REORDER,
    FAULT_DELAY,
};

/*
 * One bucket per submitted packet, so
 *   seen == passed + dropped + duplicated + reordered + delayed + hold_full.
 * passed also counts a DUP whose copy failed (the original went through);
 * reordered and delayed count packets actually held; a REORDER or DELAY
 * decision that found the hold full counts in hold_full only.
 */
struct fault_stats {
    uint64_t seen;
    uint64_t passed;
    uint64_t dropped;
    uint64_t duplicated;
    uint64_t reordered;
    uint64_t delayed;
    uint64_t hold_full;
};

struct fault_held {
    void *pkt;
    uint64_t release_us;     /* release when now >= release_us */
    /* Reorder: release once fault_dir.submits reaches this, i.e. after
     * FAULT_REORDER_DEPTH later packets; UINT64_MAX for delayed packets.
     * An absolute count rather than a per-packet countdown so that a submit
     * costs O(1) instead of touching every held packet. */
    uint64_t pass_due;
};

struct fault_dir {
    struct fault_rates rates;
    uint64_t rng;                         /* PRNG state (splitmix64) */
    uint64_t submits;                     /* packets submitted since init */
    /* Earliest release_us / pass_due among held packets (UINT64_MAX when
     * none): lets fault_dir_release() return at once when nothing is due. */
    uint64_t next_release_us;
    uint64_t next_pass_due;
    struct fault_held hold[FAULT_HOLD_MAX];
    uint32_t hold_head;                   /* ring of held packets, held order */
    uint32_t hold_count;
    struct fault_stats stats;
};

/* Callbacks so the engine can copy and free packets it does not understand. */
struct fault_pkt_ops {
    void *(*dup)(void *pkt, void *arg);   /* NULL on failure: the dup is skipped */
    void (*free)(void *pkt, void *arg);
    void *arg;
};

/* Rates a direction may take: each finite and in [0,1], drop + dup +
 * reorder + delay <= 1 up to 1e-9 of rounding; delay_us is free. 0 or
 * -EINVAL. */
int fault_rates_check(const struct fault_rates *rates);

/* One "KEY=VALUE" word (fault/set): drop, dup, reorder or delay = a
 * probability in [0,1], delay_us = 0..4294967295. 0, or -EINVAL with *why
 * naming what is wrong (rates untouched). The sum is fault_rates_check's. */
int fault_rates_set_kv(struct fault_rates *rates, const char *kv, const char **why);

/*
 * Validate rates (fault_rates_check) and seed the direction; any seed,
 * including 0, is valid. Returns 0, or -EINVAL (dir untouched) on bad rates
 * or a NULL argument. A running direction takes new rates by assignment to
 * dir->rates (on its own thread): held packets keep their plans.
 */
int fault_dir_init(struct fault_dir *dir, const struct fault_rates *rates, uint64_t seed);

/*
 * The next decision for one packet; advances the PRNG exactly once per call.
 * One uniform draw u in [0,1) (53 bits) falls into cumulative bands
 * drop | dup | reorder | delay | pass, so each rate is exact in expectation.
 */
enum fault_action fault_dir_decide(struct fault_dir *dir);

/*
 * Submit one packet at time now_us. Packets that go through now are written
 * to out[] (at most 2: the packet and its duplicate, in that order); returns
 * how many. Dropped packets are freed through ops. Held packets come out
 * later from fault_dir_release(). Every submit, whatever its decision, counts
 * as one packet passing the held reordered ones. A NULL pkt is ignored
 * (returns 0, no decision drawn).
 */
unsigned fault_dir_submit(struct fault_dir *dir, void *pkt, uint64_t now_us,
                          const struct fault_pkt_ops *ops, void **out);

/*
 * Hand back up to max held packets that are due at now_us (delay expired,
 * reorder depth passed, or reorder timeout), in the order they were held;
 * due packets beyond max stay for the next call. O(1) when nothing is due,
 * O(held) otherwise, no allocation. Returns how many were written.
 */
unsigned fault_dir_release(struct fault_dir *dir, uint64_t now_us, void **out, unsigned max);

/* Free every held packet (port close). */
void fault_dir_flush(struct fault_dir *dir, const struct fault_pkt_ops *ops);

#endif
