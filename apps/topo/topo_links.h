/*
 * topo_links: the links LLDP reveals, as the control thread keeps them,
 * pure and with time passed in (unit-tested with a fake clock).
 *
 * A frame sent from (A, x) and received on (B, y) is one direction of the
 * link A:x – B:y. The link is up once both directions were seen within
 * timeout; it goes down when either direction has not been seen for
 * timeout, when a port at either end goes down, when a switch at either
 * end disconnects, or when one of its ports is seen linked elsewhere (the
 * cable moved). A frame that comes back to the switch that sent it is a
 * loop: kept and shown as one, never up. An interface is in one link at
 * most. Every change is told to the caller's function with its reason.
 */
#ifndef OFCD_TOPO_LINKS_H
#define OFCD_TOPO_LINKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct topo_end {
    uint64_t dpid;
    uint32_t port;
};

/* The one hash of an end (and of a pair) the topology's tables use; the
 * tables take its low bits. dpids and ports are small, sequential numbers:
 * a full mix (splitmix64's finaliser) keeps them from clustering in open
 * addressing, where a weaker mix cost the control thread twice the CPU. */
static inline uint32_t topo_end_hash(struct topo_end e)
{
    uint64_t v = e.dpid * 0x9e3779b97f4a7c15ull + e.port;
    v ^= v >> 30;
    v *= 0xbf58476d1ce4e5b9ull;
    v ^= v >> 27;
    v *= 0x94d049bb133111ebull;
    return (uint32_t)(v ^ (v >> 31));
}

static inline uint32_t topo_pair_hash(struct topo_end a, struct topo_end b)
{
    return topo_end_hash(a) * 0x01000193u ^ topo_end_hash(b);
}

struct topo_link {
    struct topo_end a, b;               /* a before b (dpid, then port) */
    uint64_t seen_ab_us, seen_ba_us;    /* last frame each way, 0 = never */
    uint64_t since_us;                  /* up (or looped) since */
    bool up;
    bool loop;                          /* a.dpid == b.dpid */
};

enum topo_change { TOPO_LINK_UP, TOPO_LINK_DOWN, TOPO_LINK_LOOP };

typedef void (*topo_change_fn)(void *arg, const struct topo_link *l, enum topo_change c,
                               const char *why);

struct topo_links;

/* At most max_links links; timeout_us without a frame one way takes a link
 * down. fn (may be NULL) hears every change. NULL when out of memory. */
struct topo_links *topo_links_create(uint32_t max_links, uint64_t timeout_us,
                                     topo_change_fn fn, void *arg);
void topo_links_destroy(struct topo_links *t);

/* A frame from `from` arrived on `to`. 0, or -ENOSPC (the table is full:
 * the caller counts it) or -EINVAL (an end with port 0 or dpid 0). */
int topo_links_seen(struct topo_links *t, struct topo_end from, struct topo_end to,
                    uint64_t now_us);

/* Links past their timeout go down (and are forgotten), but for up ones
 * the hold function (set_hold; may be NULL) keeps: another judge (of_lldp's
 * liveness) decides when they are down. */
void topo_links_expire(struct topo_links *t, uint64_t now_us);
void topo_links_set_hold(struct topo_links *t, bool (*hold)(void *arg, const struct topo_link *l),
                         void *arg);
/* A port went down, or a switch went away: its links go down. */
void topo_links_port_down(struct topo_links *t, struct topo_end e);
void topo_links_switch_down(struct topo_links *t, uint64_t dpid);
/* Forget link a – b (a before b; down first if up, told with why): frames
 * that come later make it anew, as a link never seen. An end now in
 * another link (the cable moved) keeps that one. */
void topo_links_forget_pair(struct topo_links *t, struct topo_end a, struct topo_end b,
                            const char *why);

size_t topo_links_count(const struct topo_links *t);
/* Visit every link (fn must not change the table). */
void topo_links_each(const struct topo_links *t, void (*fn)(void *arg, const struct topo_link *l),
                     void *arg);

#endif
