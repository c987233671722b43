/*
 * ofcd_log_ring: where a poll-mode thread's log lines wait, so logging never
 * stalls its loop on stderr (a slow terminal, a full pipe to a log
 * collector). One producer (the thread that called ofcd_log_use_ring) and
 * one consumer (the thread that drains, the control thread); lock-free.
 *
 * A full ring drops the line and counts it; the drain reports how many were
 * dropped, with the thread's name, before the next line it writes. Lines
 * are cut at OFCD_LOG_RING_LINE bytes.
 */
#ifndef OFCD_LOG_RING_H
#define OFCD_LOG_RING_H

#include <stdint.h>
#include <stdio.h>

#define OFCD_LOG_RING_LINE 512

struct ofcd_log_ring;

/* slots: a power of two (at least 2); name says whose lines they are. NULL
 * when out of memory or slots is not a power of two. */
struct ofcd_log_ring *ofcd_log_ring_create(const char *name, unsigned slots);
void ofcd_log_ring_destroy(struct ofcd_log_ring *r);

/* Producer side: one whole line (no newline), or counted as dropped. */
void ofcd_log_ring_put(struct ofcd_log_ring *r, const char *line, size_t len);

/* Consumer side: every waiting line to out, each with a newline; returns
 * how many. */
unsigned ofcd_log_ring_drain(struct ofcd_log_ring *r, FILE *out);

/* Lines dropped so far (any thread). */
uint64_t ofcd_log_ring_dropped(const struct ofcd_log_ring *r);

/* The calling thread's lines go to r from now on (NULL: straight to
 * stderr again). Per thread: an lcore sets its own at start. */
void ofcd_log_use_ring(struct ofcd_log_ring *r);

#endif
