/*
 * ofcd_dlist: an intrusive doubly-linked list with a head and a tail, for a
 * queue whose entries may also leave from the middle in O(1) — the switches
 * that are down, oldest first, which a sweep pops from the head while they
 * are due and a reconnect takes out wherever they are (of_worker.c,
 * sw_view.c). The node sits in the entry; OFCD_DLIST_ENTRY gives the
 * entry back. Which list an entry is on, if any, is the entry's to know.
 */
#ifndef OFCD_DLIST_H
#define OFCD_DLIST_H

#include <stddef.h>

struct ofcd_dlist_node {
    struct ofcd_dlist_node *prev, *next;
};

struct ofcd_dlist {
    struct ofcd_dlist_node *head, *tail;
};

#define OFCD_DLIST_ENTRY(node, type, member) \
    ((type *)(void *)((char *)(node) - offsetof(type, member)))

static inline void ofcd_dlist_push(struct ofcd_dlist *l, struct ofcd_dlist_node *n)
{
    n->next = NULL;
    n->prev = l->tail;
    if (l->tail)
        l->tail->next = n;
    else
        l->head = n;
    l->tail = n;
}

static inline void ofcd_dlist_unlink(struct ofcd_dlist *l, struct ofcd_dlist_node *n)
{
    if (n->prev)
        n->prev->next = n->next;
    else
        l->head = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else
        l->tail = n->prev;
    n->prev = n->next = NULL;
}

#endif
