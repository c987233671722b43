/*
 * topo_live: of_lldp's link liveness — a state per interface an operator
 * turned liveness on for (POST of_lldp/v1/liveness/enable), fed by the
 * LLDP frames of ours that interface receives (its hellos), pure and with
 * time passed in:
 *
 *   init  enabled, not yet TOPO_LIVE_MIN_HELLOS hellos
 *   up    that many hellos; stays up while hellos keep coming
 *   down  no hello for dead_us (the hello count starts again)
 *
 * Because each end is judged by what it receives, a one-way failure shows
 * as one end down and the other up; a pair (the two ends of a link, both
 * enabled) is init while either end is, down while either is, up when
 * both are — as Kytos-ng's LSM aggregates its two ILSMs.
 */
#ifndef OFCD_TOPO_LIVE_H
#define OFCD_TOPO_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topo_links.h"

#define TOPO_LIVE_MIN_HELLOS 2          /* of_lldp's LIVENESS_MIN_HELLOS_UP */

enum topo_live_state { TOPO_LIVE_INIT, TOPO_LIVE_UP, TOPO_LIVE_DOWN };

struct topo_live_if {
    struct topo_end end;
    enum topo_live_state state;
    uint32_t hellos;
    uint64_t last_hello_us;             /* 0 = none yet */
    int64_t last_hello_wall_us;         /* unix time of it, for the API */
    struct topo_live_if *hnext;
};

struct topo_live;

/* At most max interfaces. NULL when out of memory. */
struct topo_live *topo_live_create(uint32_t max, uint64_t dead_us);
void topo_live_destroy(struct topo_live *l);

/* Turn liveness on (state init; already on: unchanged) or off. on: 0 or
 * -ENOSPC. */
int topo_live_enable(struct topo_live *l, struct topo_end e);
void topo_live_disable(struct topo_live *l, struct topo_end e);

/* A hello received on e (nothing when e's liveness is off). Returns true
 * when e's state changed. */
bool topo_live_hello(struct topo_live *l, struct topo_end e, uint64_t now_us, int64_t wall_us);
/* Ends whose hellos stopped go down; returns how many changed. */
unsigned topo_live_reap(struct topo_live *l, uint64_t now_us);

const struct topo_live_if *topo_live_find(const struct topo_live *l, struct topo_end e);
void topo_live_each(const struct topo_live *l,
                    void (*fn)(void *arg, const struct topo_live_if *i), void *arg);
/* The same in pieces: the hash buckets from *pos on, until at least max
 * entries were visited (a bucket is visited whole); *pos advanced. Returns
 * how many were visited: 0 once no bucket is left. */
size_t topo_live_each_from(const struct topo_live *l, uint32_t *pos, size_t max,
                           void (*fn)(void *arg, const struct topo_live_if *i), void *arg);
/* The pair state of two ends (both must be on). */
enum topo_live_state topo_live_pair(const struct topo_live_if *a, const struct topo_live_if *b);
const char *topo_live_name(enum topo_live_state s);

#endif
