/*
 * arp_cache: the per-io-lcore IPv4 → MAC table.
 *
 * Bounded (size fixed at create), open addressing, entries expire after
 * timeout_us. An entry is "incomplete" from the moment a request is sent
 * until a reply fills it; requests for the same address are rate-limited to
 * one per ARP_REQUEST_INTERVAL_US. When the table is full the oldest entry
 * (by last update) is evicted. Time is passed in, never read here.
 * Single-threaded by design: each io lcore owns its own cache.
 */
#ifndef OFCD_ARP_CACHE_H
#define OFCD_ARP_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "ofcd_counters.h"

#define ARP_REQUEST_INTERVAL_US 1000000ULL
#define ARP_CACHE_MAX_CAPACITY (1u << 24)

struct arp_cache;

#define ARP_CACHE_COUNTERS(X)                                                             \
    X(lookups, "next-hop lookups")                                                        \
    X(hits, "lookups answered from the cache")                                            \
    X(misses, "lookups for an absent, incomplete or expired entry")                       \
    X(updates, "entries learnt or refreshed")                                             \
    X(evictions, "oldest entries evicted: table full")                                    \
    X(expirations, "entries expired")                                                     \
    X(requests_allowed, "ARP requests sent")                                              \
    X(requests_suppressed, "ARP requests held back by the per-address rate limit")
#define ARP_CACHE_GAUGES(X) X(entries, "entries in the table")

struct arp_cache_stats {
    ARP_CACHE_COUNTERS(OFCD_COUNTER_FIELD)
    ARP_CACHE_GAUGES(OFCD_COUNTER_FIELD)
};

extern const struct ofcd_counter_group arp_cache_counters;    /* "arp" */

/* capacity >= 1 (at most ARP_CACHE_MAX_CAPACITY entries), timeout_us >= 1;
 * returns NULL (and logs) on bad args or no memory. The only allocation. */
struct arp_cache *arp_cache_create(uint32_t capacity, uint64_t timeout_us);
void arp_cache_destroy(struct arp_cache *cache);

/* ip in host byte order. 0 and mac filled, or -ENOENT (absent, incomplete or
 * expired; an expired entry is removed). An entry is valid for timeout_us
 * after its last update: expired once now_us >= updated + timeout_us. */
int arp_cache_lookup(struct arp_cache *cache, uint32_t ip, uint64_t now_us, uint8_t mac[6]);

/* Insert or refresh a complete entry (evicting the oldest when full).
 * Returns 0 or -EINVAL (ip 0, 255.255.255.255 or multicast; MAC zero,
 * broadcast or multicast). */
int arp_cache_update(struct arp_cache *cache, uint32_t ip, const uint8_t mac[6],
                     uint64_t now_us);

/* Only refresh an entry that exists (complete or incomplete): RFC 826 says a
 * host merges sender info it already knows even when the request is not for
 * it. Returns 0 if refreshed, -ENOENT if absent (or expired: then removed),
 * -EINVAL as arp_cache_update. */
int arp_cache_refresh(struct arp_cache *cache, uint32_t ip, const uint8_t mac[6],
                      uint64_t now_us);

/* Should a request for ip go out now? Marks an incomplete entry and returns
 * true at most once per ARP_REQUEST_INTERVAL_US per address; false while a
 * complete entry is valid or for an invalid ip. Each request sent restarts
 * the incomplete entry's timeout. */
bool arp_cache_should_request(struct arp_cache *cache, uint32_t ip, uint64_t now_us);

/* Drop expired entries; returns how many. Called from the lcore's timer tick.
 * Costs O(expired entries): now_us must never go backwards across calls. */
unsigned arp_cache_expire(struct arp_cache *cache, uint64_t now_us);

/* Entries held, complete and incomplete (expired ones until removed). */
uint32_t arp_cache_count(const struct arp_cache *cache);
const struct arp_cache_stats *arp_cache_get_stats(const struct arp_cache *cache);

#endif
