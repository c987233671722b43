/*
 * of_flight: one switch connection's flight record (issue 51) — the last
 * OpenFlow messages each way, whole, each with the time it was framed or
 * handed to TCP, in a fixed piece of memory its owner gives (of_io: one
 * per connection slot, so the recorder is bounded per switch and, by the
 * slot table, in total). Pure: time passed in, no allocation, no I/O, no
 * lock. The io lcore that owns the connection is its only writer; a copy
 * for anyone else is taken on that lcore (of_flight_copy) as a flat blob
 * that any thread reads (of_flight_blob_each).
 *
 * The memory is two rings, switch to ofcd and ofcd to switch, so a flood
 * one way cannot push out the other way's messages. A message goes in
 * whole: the oldest of its ring go to make room (counted as evicted); one
 * larger than a quarter of its ring keeps only its first OF_FLIGHT_TRUNC
 * bytes and says so (orig_len; counted). Every record carries a sequence
 * number common to both rings: a copy merges them back in the order they
 * happened.
 *
 * The blob (native byte order: it never leaves the process) is a header
 * {OF_FLIGHT_BLOB_MAGIC, count, evicted, truncated} then each record
 * {t_ns, seq, len, orig_len, dir} and its len bytes, padded to 8.
 */
#ifndef OFCD_OF_FLIGHT_H
#define OFCD_OF_FLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OF_FLIGHT_TRUNC 256u               /* what a message too large for its ring keeps */
#define OF_FLIGHT_BLOB_MAGIC 0x6f667265u   /* "ofre" */

enum of_flight_dir {
    OF_FLIGHT_IN = 0,                      /* from the switch */
    OF_FLIGHT_OUT = 1,                     /* to the switch */
};

struct of_flight_ring {
    uint8_t *buf;
    uint32_t cap;                       /* bytes, a multiple of 8 */
    uint32_t head, tail;                /* next write; oldest record */
    uint32_t used;                      /* bytes between tail and head */
    uint32_t n;                         /* records held */
};

struct of_flight_stats {
    uint64_t recorded;                  /* messages taken in */
    uint64_t evicted;                   /* pushed out by newer ones */
    uint64_t truncated;                 /* kept as their first OF_FLIGHT_TRUNC bytes */
};

struct of_flight {
    struct of_flight_ring ring[2];         /* [OF_FLIGHT_IN], [OF_FLIGHT_OUT] */
    uint32_t seq;                       /* the next record's */
    struct of_flight_stats st;
};

/* A record as the walks give it. */
struct of_flight_msg {
    enum of_flight_dir dir;
    uint64_t t_ns;
    uint32_t seq;
    const uint8_t *bytes;
    uint32_t len;                       /* bytes kept */
    uint32_t orig_len;                  /* the message's own length */
};

/* Over mem (len bytes, 8-aligned; len 0: a recorder that keeps nothing):
 * empty, half of it each way. */
void of_flight_init(struct of_flight *r, void *mem, size_t len);
/* Empty again, the counters zeroed: a new connection in the slot. */
void of_flight_reset(struct of_flight *r);
/* One message, whole as it was framed or sent: how many older ones it
 * pushed out. */
unsigned of_flight_add(struct of_flight *r, enum of_flight_dir dir, uint64_t t_ns,
                        const void *msg, size_t len);

/* What of_flight_copy needs for r: the blob's size. */
size_t of_flight_copy_size(const struct of_flight *r);
/* The record as a blob into dst (at least of_flight_copy_size bytes): its
 * length, or 0 when cap is short. */
size_t of_flight_copy(const struct of_flight *r, void *dst, size_t cap);

typedef int (*of_flight_fn)(const struct of_flight_msg *m, void *arg);
/* Each record of a blob in the order they happened, until fn returns
 * non-zero (that value is returned); -EBADMSG for a blob that is not one
 * (checked before fn sees anything); *st (may be NULL) its counters. */
int of_flight_blob_each(const void *blob, size_t len, of_flight_fn fn, void *arg,
                        struct of_flight_stats *st);

/* ---- the record as a capture (of_flight_pcapng.c) --------------------------- */

struct ofcd_pcapng;
struct ofcd_pcapng_ends;

/* A blob into w (zeroed): the TCP stream between ends with each record's
 * bytes at its time plus mono_to_wall_ns (records carry the io lcore's
 * monotonic clock); the handshake at the first record's time (for an
 * empty blob: at mono_to_wall_ns). A message kept short goes as what was
 * kept, its OpenFlow length field set to that, so the stream still frames
 * and the capture is no larger than the record. comment: the
 * capture's (NULL: none). 0, -EBADMSG (not a blob) or the writer's
 * error; w is the caller's to free either way. */
int of_flight_pcapng(const void *blob, size_t len, const struct ofcd_pcapng_ends *ends,
                     int64_t mono_to_wall_ns, const char *comment, struct ofcd_pcapng *w);

#endif
