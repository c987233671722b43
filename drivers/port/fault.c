/*
 * fault: decision engine of the fault-injection port wrapper (see fault.h).
 *
 * Owns one direction's PRNG, hold ring and counters. port_fault.c calls
 * fault_dir_submit() for each packet of the direction and fault_dir_release()
 * on every poll; unit tests call the same functions with a fake clock and
 * opaque pointers standing in for mbufs.
 */
#include "fault.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The ring is indexed with a mask. */
static_assert((FAULT_HOLD_MAX & (FAULT_HOLD_MAX - 1)) == 0, "FAULT_HOLD_MAX: power of 2");
#define FAULT_HOLD_MASK ((uint32_t)FAULT_HOLD_MAX - 1)

/* Tolerated excess of the summed rates, for values like 0.1 + 0.2 + 0.7. */
#define FAULT_RATE_SUM_SLACK 1e-9

/*
 * splitmix64 (Steele, Lea, Flood 2014): a Weyl sequence through a 64-bit
 * finaliser. Its whole state is the one uint64_t the header reserves, every
 * state including 0 is good, and its output passes BigCrush, which is far
 * more than picking among five bands needs.
 */
static uint64_t fault_rng_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Uniform in [0,1): the top 53 bits fill a double's mantissa exactly. */
static double fault_rng_uniform(uint64_t *state)
{
    return (double)(fault_rng_next(state) >> 11) * 0x1.0p-53;
}

static bool fault_rate_ok(double r)
{
    return isfinite(r) && r >= 0.0 && r <= 1.0;
}

static uint64_t fault_add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

int fault_rates_check(const struct fault_rates *rates)
{
    if (!fault_rate_ok(rates->drop) || !fault_rate_ok(rates->dup) ||
        !fault_rate_ok(rates->reorder) || !fault_rate_ok(rates->delay))
        return -EINVAL;
    if (rates->drop + rates->dup + rates->reorder + rates->delay > 1.0 + FAULT_RATE_SUM_SLACK)
        return -EINVAL;
    return 0;
}

int fault_rates_set_kv(struct fault_rates *rates, const char *kv, const char **why)
{
    static const struct {
        const char *key;
        size_t off;
    } probs[] = {{"drop", offsetof(struct fault_rates, drop)},
                 {"dup", offsetof(struct fault_rates, dup)},
                 {"reorder", offsetof(struct fault_rates, reorder)},
                 {"delay", offsetof(struct fault_rates, delay)}};
    const char *eq = strchr(kv, '=');
    char *end;

    if (!eq || !eq[1]) {
        *why = "not KEY=VALUE";
        return -EINVAL;
    }
    size_t klen = (size_t)(eq - kv);
    const char *val = eq + 1;
    if (klen == 8 && strncmp(kv, "delay_us", 8) == 0) {
        errno = 0;
        unsigned long long us = strtoull(val, &end, 10);
        if (*end || errno || val[0] == '-' || us > UINT32_MAX) {
            *why = "delay_us takes microseconds, 0..4294967295";
            return -EINVAL;
        }
        rates->delay_us = (uint32_t)us;
        return 0;
    }
    for (size_t i = 0; i < sizeof(probs) / sizeof(probs[0]); i++) {
        if (strlen(probs[i].key) != klen || strncmp(kv, probs[i].key, klen) != 0)
            continue;
        double p = strtod(val, &end);
        if (*end || !fault_rate_ok(p)) {
            *why = "a rate is a probability, 0..1";
            return -EINVAL;
        }
        memcpy((char *)rates + probs[i].off, &p, sizeof(p));
        return 0;
    }
    *why = "the keys are drop, dup, reorder, delay and delay_us";
    return -EINVAL;
}

int fault_dir_init(struct fault_dir *dir, const struct fault_rates *rates, uint64_t seed)
{
    if (dir == NULL || rates == NULL || fault_rates_check(rates) < 0)
        return -EINVAL;

    memset(dir, 0, sizeof(*dir));
    dir->rates = *rates;
    dir->rng = seed;
    dir->next_release_us = UINT64_MAX;
    dir->next_pass_due = UINT64_MAX;
    return 0;
}

enum fault_action fault_dir_decide(struct fault_dir *dir)
{
    const struct fault_rates *r = &dir->rates;
    double u = fault_rng_uniform(&dir->rng);
    double edge = r->drop;

    /* u < edge with u < 1 makes a rate of exactly 1.0 always fire and 0.0
     * never, whatever the rounding of the other edges. */
    if (u < edge)
        return FAULT_DROP;
    edge += r->dup;
    if (u < edge)
        return FAULT_DUP;
    edge += r->reorder;
    if (u < edge)
        return FAULT_REORDER;
    edge += r->delay;
    if (u < edge)
        return FAULT_DELAY;
    return FAULT_PASS;
}

/* Append to the ring; the caller has checked there is room. */
static void fault_hold(struct fault_dir *dir, void *pkt, uint64_t release_us, uint64_t pass_due)
{
    struct fault_held *h = &dir->hold[(dir->hold_head + dir->hold_count) & FAULT_HOLD_MASK];

    h->pkt = pkt;
    h->release_us = release_us;
    h->pass_due = pass_due;
    dir->hold_count++;
    if (release_us < dir->next_release_us)
        dir->next_release_us = release_us;
    if (pass_due < dir->next_pass_due)
        dir->next_pass_due = pass_due;
}

unsigned fault_dir_submit(struct fault_dir *dir, void *pkt, uint64_t now_us,
                          const struct fault_pkt_ops *ops, void **out)
{
    enum fault_action act;

    if (pkt == NULL)
        return 0;
    /* This packet passes every reordered packet already held. */
    dir->submits++;
    dir->stats.seen++;
    act = fault_dir_decide(dir);

    if ((act == FAULT_REORDER || act == FAULT_DELAY) && dir->hold_count == FAULT_HOLD_MAX) {
        dir->stats.hold_full++;
        out[0] = pkt;
        return 1;
    }

    switch (act) {
    case FAULT_DROP:
        dir->stats.dropped++;
        ops->free(pkt, ops->arg);
        return 0;
    case FAULT_DUP: {
        void *copy = ops->dup(pkt, ops->arg);

        out[0] = pkt;
        if (copy == NULL) {
            dir->stats.passed++;
            return 1;
        }
        dir->stats.duplicated++;
        out[1] = copy;
        return 2;
    }
    case FAULT_REORDER:
        dir->stats.reordered++;
        fault_hold(dir, pkt, fault_add_sat(now_us, FAULT_REORDER_MAX_US),
                   fault_add_sat(dir->submits, FAULT_REORDER_DEPTH));
        return 0;
    case FAULT_DELAY:
        dir->stats.delayed++;
        fault_hold(dir, pkt, fault_add_sat(now_us, dir->rates.delay_us), UINT64_MAX);
        return 0;
    case FAULT_PASS:
    default:
        dir->stats.passed++;
        out[0] = pkt;
        return 1;
    }
}

/*
 * One pass over the ring: due packets go to out[] in held order, the others
 * are compacted towards the head in their order. A leading run of released
 * packets just advances the head, so the usual FIFO delay case copies
 * nothing; the write slot never overtakes the read slot, so no packet is
 * overwritten before it is read.
 */
unsigned fault_dir_release(struct fault_dir *dir, uint64_t now_us, void **out, unsigned max)
{
    uint32_t start = dir->hold_head;
    uint32_t n = dir->hold_count;
    uint32_t head = start;
    uint32_t kept = 0;
    uint64_t next_release = UINT64_MAX;
    uint64_t next_pass = UINT64_MAX;
    unsigned got = 0;

    if (n == 0 || max == 0)
        return 0;
    if (now_us < dir->next_release_us && dir->submits < dir->next_pass_due)
        return 0;

    for (uint32_t i = 0; i < n; i++) {
        uint32_t src = (start + i) & FAULT_HOLD_MASK;
        struct fault_held *h = &dir->hold[src];
        uint32_t dst;

        if (got < max && (now_us >= h->release_us || dir->submits >= h->pass_due)) {
            out[got++] = h->pkt;
            if (kept == 0)
                head = (src + 1) & FAULT_HOLD_MASK;
            continue;
        }
        dst = (head + kept) & FAULT_HOLD_MASK;
        if (dst != src)
            dir->hold[dst] = *h;
        kept++;
        if (h->release_us < next_release)
            next_release = h->release_us;
        if (h->pass_due < next_pass)
            next_pass = h->pass_due;
    }
    dir->hold_head = head;
    dir->hold_count = kept;
    dir->next_release_us = next_release;
    dir->next_pass_due = next_pass;
    return got;
}

void fault_dir_flush(struct fault_dir *dir, const struct fault_pkt_ops *ops)
{
    for (uint32_t i = 0; i < dir->hold_count; i++) {
        struct fault_held *h = &dir->hold[(dir->hold_head + i) & FAULT_HOLD_MASK];

        ops->free(h->pkt, ops->arg);
        h->pkt = NULL;
    }
    dir->hold_count = 0;
    dir->next_release_us = UINT64_MAX;
    dir->next_pass_due = UINT64_MAX;
}
