/*
 * topo_follow: the keys of the topology's records another node changed (a
 * cluster), from the store's committer thread to the control thread's
 * tick, each key once however often it changed meanwhile. The tick reads
 * each record as it is then, so one visit per key is all it needs.
 *
 * No cap that drops: a full read of the cluster's copy tells of every
 * record at once, and a change not followed would leave this node's view
 * apart until a restart. What it holds is bounded by the records that
 * exist (topology.max_interfaces and max_links bound those), not by how
 * fast they change. One mutex of its own; functions return 0 or a
 * negative errno.
 */
#ifndef OFCD_TOPO_FOLLOW_H
#define OFCD_TOPO_FOLLOW_H

#include <pthread.h>
#include <stddef.h>

struct topo_follow {
    pthread_mutex_t lock;
    char **keys;                    /* in the order they first came */
    size_t n, cap;
    size_t *slot;                   /* open addressing: index + 1 into keys, 0 free */
    size_t slots;                   /* a power of two, at least twice n */
    size_t lost;                    /* out of memory: logged by the taker */
};

void topo_follow_init(struct topo_follow *f);
void topo_follow_fini(struct topo_follow *f);

/* key changed: held once until taken. 0, or -ENOMEM (counted in lost). */
int topo_follow_add(struct topo_follow *f, const char *key);

/* Everything held, handed over: *keys (the caller frees each and the
 * array; NULL when none), *n, and *lost since the last take. */
void topo_follow_take(struct topo_follow *f, char ***keys, size_t *n, size_t *lost);

#endif
