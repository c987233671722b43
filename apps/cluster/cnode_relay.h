/*
 * cnode_relay: the events a node publishes on its stream, carried to every
 * other node's stream through etcd (issue 27: "switch, link and flow
 * events of all nodes reach any node's event stream"). Pure: no lock, no
 * etcd; the cluster thread holds the outbox under its own mutex and does
 * the etcd calls (cnode.c).
 *
 * Each node collects what it publishes in a bounded outbox; every
 * CNODE_RELAY_MS the cluster thread takes the batch and puts it as the value
 * of <prefix>events/<node> (cl_keys.h), bound to the node's lease. The
 * other nodes watch that key and publish each event of each new value on
 * their own stream with a "node" member naming where it happened. A batch
 * is a JSON array of [kind, data] pairs in the order they were published.
 *
 * Bounded: an outbox holds CNODE_RELAY_MAX_BYTES at most; an event past that
 * is dropped and counted (the local stream has it all the same).
 */
#ifndef OFCD_CNODE_RELAY_H
#define OFCD_CNODE_RELAY_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define CNODE_RELAY_MS 100u
/* 640 KiB/s per node at most: etcd keeps each put until it compacts. */
#define CNODE_RELAY_MAX_BYTES (64u << 10)
/* A kind is what ofcd names events: [a-z0-9._-], at most this long (it
 * goes into the SSE "event:" line as it is). */
#define CNODE_RELAY_KIND_MAX 31u

struct cnode_outbox {
    char *buf;                      /* "[k,d],[k,d]," so far */
    size_t len, cap, max;
    uint32_t n;                     /* events in buf */
    uint64_t dropped;               /* events that found the outbox full */
};

/* An empty outbox of at most max bytes (0: CNODE_RELAY_MAX_BYTES). */
void cnode_outbox_init(struct cnode_outbox *o, size_t max);
void cnode_outbox_fini(struct cnode_outbox *o);

/* One event (kind, data: an object, borrowed). 0, -ENOBUFS (full:
 * counted in dropped), -EINVAL (no kind, or data not an object) or
 * -ENOMEM. */
int cnode_outbox_add(struct cnode_outbox *o, const char *kind, const json_t *data);

/* The batch so far as JSON text (malloc'd, NUL-terminated, *len bytes
 * without the NUL, *n events), the outbox emptied; NULL when it is empty
 * or out of memory (the events stay then). */
char *cnode_outbox_take(struct cnode_outbox *o, size_t *len, uint32_t *n);

/* Each well-formed event of a batch (len bytes, not NUL-terminated) to fn,
 * in order; *bad (may be NULL) gets how many entries were not [kind,
 * object] with a kind as ofcd names them (a newline in one would forge
 * lines of the stream). The number given to fn, or -EINVAL when the text
 * is not a JSON array. */
typedef void (*cnode_relay_fn)(void *arg, const char *kind, const json_t *data);
int cnode_relay_each(const char *text, size_t len, cnode_relay_fn fn, void *arg, unsigned *bad);

#endif
