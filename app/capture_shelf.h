/*
 * capture_shelf: flight records frozen as captures. A switch's live record
 * (ofp/path/of_flight.h) moves on with every message and is gone when its
 * slot is taken again; a frozen copy keeps the moment that mattered — when
 * the switch disconnected, sent an OFPT_ERROR, was found inconsistent by
 * the consistency check, or when an operator asked — for `ofcdctl
 * capture/list` and `capture/get DPID ID`.
 *
 * Pure: no thread, no clock, no lcore; the caller locks (app.h's capture
 * shelf lock) and gives the time. Two halves:
 *   asks    what waits to be frozen, a ring of CAPTURE_SHELF_ASKS: the
 *           control thread takes them one at a time (the io lcores answer
 *           one capture at a time, capture.h) and puts the capture here
 *   copies  what is frozen: at most max copies and max_bytes in all, the
 *           oldest leaving first; each numbered (from 1; an id comes back
 *           only after 2^32 more freezes)
 * A switch that keeps giving one reason (an ERROR per FLOW_MOD of a bad
 * batch, a flapping link) is frozen for it once per CAPTURE_SHELF_GAP_US:
 * an ask of a (switch, kind) already waiting, being frozen (taken, not yet
 * put or done), or frozen that recently, is skipped and counted. An
 * operator's ask is never skipped.
 */
#ifndef OFCD_CAPTURE_SHELF_H
#define OFCD_CAPTURE_SHELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CAPTURE_SHELF_ASKS 32u
#define CAPTURE_SHELF_GAP_US 10000000ull  /* one copy per switch and kind per 10 s */
#define CAPTURE_REASON_MAX 96u
#define CAPTURE_SUMMARY_MAX 256u

enum capture_kind {
    CAPTURE_KIND_DISCONNECT,
    CAPTURE_KIND_ERROR,             /* the switch sent an OFPT_ERROR */
    CAPTURE_KIND_INCONSISTENT,      /* the consistency check mended its table */
    CAPTURE_KIND_ASKED,             /* capture/freeze */
};

/* "disconnect", "error", "inconsistent", "asked". */
const char *capture_kind_name(enum capture_kind k);

struct capture_ask {
    uint64_t dpid;
    uint64_t conn;                  /* the connection (conn_handle_t); 0: the switch's
                                     * when the ask is taken */
    enum capture_kind kind;
    uint64_t at_us;                 /* the caller's clock when asked */
    char reason[CAPTURE_REASON_MAX];
};

struct capture_copy {
    uint32_t id;
    uint64_t dpid;
    enum capture_kind kind;
    uint64_t at_us;                 /* when it was asked (the caller's clock) */
    uint64_t wall_ns;               /* when it was frozen */
    char reason[CAPTURE_REASON_MAX];
    char summary[CAPTURE_SUMMARY_MAX];  /* what the record holds (capture.h's line) */
    uint8_t *pcap;                  /* the pcapng file (owned) */
    size_t len;
};

struct capture_shelf_stats {
    uint64_t asked, skipped, ask_full, frozen, failed, evicted;
};

struct capture_shelf {
    unsigned max;                   /* copies kept (0: nothing is frozen) */
    size_t max_bytes;
    struct capture_copy *copies;    /* a ring of max, oldest at head */
    unsigned head, n;
    size_t bytes;
    uint32_t next_id;
    struct capture_ask asks[CAPTURE_SHELF_ASKS];
    unsigned ask_head, n_asks;
    struct capture_ask inflight;    /* taken, not yet put or done */
    bool has_inflight;
    struct capture_shelf_stats st;
};

/* At most max copies and max_bytes of captures (max 0: every ask is
 * refused). 0 or -ENOMEM. */
int capture_shelf_init(struct capture_shelf *s, unsigned max, size_t max_bytes);
void capture_shelf_free(struct capture_shelf *s);

/* Ask for dpid's record to be frozen for reason (cut to fit): 0 queued;
 * -EALREADY skipped (the same switch and kind waiting, or frozen less than
 * CAPTURE_SHELF_GAP_US before now_us; never for CAPTURE_KIND_ASKED);
 * -ENOSPC the asks are full; -ENOTSUP nothing is frozen (max 0). */
int capture_shelf_ask(struct capture_shelf *s, uint64_t dpid, uint64_t conn,
                      enum capture_kind kind, const char *reason, uint64_t now_us);
/* The oldest ask, out of the ring and in flight: true with *out; false
 * when none. Each ends with capture_shelf_put or capture_shelf_done. */
bool capture_shelf_take_ask(struct capture_shelf *s, struct capture_ask *out);
/* The ask in flight ended without a copy (counted as failed). */
void capture_shelf_done(struct capture_shelf *s);

/* The capture of the ask in flight, frozen (pcap taken: freed here on
 * error): 0 with its id in *id; -E2BIG when it alone is over max_bytes.
 * The oldest copies leave until it fits. */
int capture_shelf_put(struct capture_shelf *s, uint64_t wall_ns, const char *summary,
                      uint8_t *pcap, size_t len, uint32_t *id);
/* The copy numbered id, or NULL (gone, or never). Valid until the next put. */
const struct capture_copy *capture_shelf_find(const struct capture_shelf *s, uint32_t id);
/* When c was frozen, UTC: "2026-12-07T15:44:42Z" (CAPTURE_WHEN_LEN with its NUL). */
#define CAPTURE_WHEN_LEN 32u
void capture_copy_when(const struct capture_copy *c, char out[CAPTURE_WHEN_LEN]);
/* The i-th copy, oldest first (i < s->n). */
const struct capture_copy *capture_shelf_at(const struct capture_shelf *s, unsigned i);

#endif
