/*
 * cl_keys: the cluster's keys in etcd, under cluster.prefix — made and read
 * back here alone, so the layout is one table of code:
 *
 *   <prefix>members/<node>                  a node's card (cl_card), bound to
 *                                           its lease: present = the node lives
 *   <prefix>switches/<dpid>/cand/<node>     a node stands for a switch (its
 *                                           channel is up), bound to its lease;
 *                                           the lowest create revision wins
 *   <prefix>events/<node>                   the events a node published in its
 *                                           last 100 ms (cnode_relay.h), bound to
 *                                           its lease: each put is a batch
 *
 * dpid is 16 lower-case hex digits, so a switch's keys sort together and a
 * range read of <prefix>switches/ gives every candidate at once.
 */
#ifndef OFCD_CL_KEYS_H
#define OFCD_CL_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "cl_elect.h"

#define CL_KEY_MAX 320              /* a prefix of 127 bytes, a node of 63, NUL */

/* Each writes a NUL-terminated key and returns its length, or -ENAMETOOLONG
 * when it does not fit len. */
int cl_key_member(char *buf, size_t len, const char *prefix, const char *node);
int cl_key_members(char *buf, size_t len, const char *prefix);     /* every card */
int cl_key_cand(char *buf, size_t len, const char *prefix, uint64_t dpid, const char *node);
int cl_key_switches(char *buf, size_t len, const char *prefix);    /* every candidate */
int cl_key_events(char *buf, size_t len, const char *prefix, const char *node);
/* The keys a node reads and watches: [from, to) = events/ up to and with
 * switches/ (members/ between them), not the flows' records under data/
 * (the store's). Each buffer CL_KEY_MAX; 0 or -ENAMETOOLONG. */
int cl_key_view(char *from, char *to, const char *prefix);

enum cl_key_kind {
    CL_KEY_OTHER = 0,               /* under the prefix, not ours to read (a newer layout) */
    CL_KEY_MEMBER,
    CL_KEY_CAND,
    CL_KEY_EVENTS,
};

struct cl_key {
    enum cl_key_kind kind;
    uint64_t dpid;                  /* CL_KEY_CAND */
    char node[CL_NODE_NAME_MAX];
};

/* What key (len bytes, not NUL-terminated) is. 0, or -EINVAL for a key
 * outside prefix or one of ours that is malformed (a bad dpid, an empty
 * or too long node): a watch that delivers one logs it and goes on. */
int cl_key_parse(const char *prefix, const uint8_t *key, size_t len, struct cl_key *out);

#endif
