/*
 * arp_cache: the IPv4 → MAC table of one io lcore (see arp_cache.h). Called
 * from net_rx (learning from ARP), from the TCP/ofp send path (lookup,
 * should_request) and from the lcore's timer tick (expire).
 *
 * Layout, all from the one allocation made at create:
 *   entries[capacity]  the records; free ones are chained on a free list;
 *   slots[2^k]         open-addressing index (linear probing) holding entry
 *                      numbers, at least twice the capacity so it is at most
 *                      half full and probe runs stay short. Removal shifts
 *                      the run back (no tombstones), so the table never
 *                      degrades however many inserts and removals it sees.
 * Every live entry is also on an age list ordered by last update (a doubly
 * linked list through the entries, oldest at the head). Since all entries
 * share one timeout, that order is also the expiry order, so:
 *   - eviction when full takes the head: O(1), exactly the oldest;
 *   - arp_cache_expire() pops expired heads: O(expired), no table scan.
 * The cost is two links per entry and a list move on every update.
 */
#include "arp_cache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ofcd_log.h"

OFCD_COUNTER_GROUP(arp_cache_counters, "arp", struct arp_cache_stats, ARP_CACHE_COUNTERS,
                   ARP_CACHE_GAUGES);

#define ARP_NIL UINT32_MAX
#define ARP_FIB_MULT 0x9e3779b1u /* 2^32 / golden ratio: spreads nearby IPs */

struct arp_entry {
    uint64_t updated_us;   /* last update or request sent: expiry and age order */
    uint64_t requested_us; /* last request allowed (rate limit) */
    uint32_t ip;
    uint32_t prev;         /* age list; unused while free */
    uint32_t next;         /* age list, or free list while free */
    uint8_t mac[6];
    bool complete;
};

struct arp_cache {
    uint32_t capacity;
    uint32_t slot_mask;
    unsigned hash_shift;
    uint64_t timeout_us;
    uint32_t oldest;
    uint32_t newest;
    uint32_t free_head;
    struct arp_cache_stats stats;
    struct arp_entry *entries;
    uint32_t *slots; /* entry number or ARP_NIL */
};

static bool arp_ip_valid(uint32_t ip)
{
    return ip != 0 && ip != 0xffffffffu && (ip >> 28) != 0xe;
}

static bool arp_mac_valid(const uint8_t *mac)
{
    return !(mac[0] & 1) && (mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]) != 0;
}

static uint32_t arp_home(const struct arp_cache *c, uint32_t ip)
{
    return (uint32_t)(ip * ARP_FIB_MULT) >> c->hash_shift;
}

static bool arp_expired(const struct arp_cache *c, const struct arp_entry *e, uint64_t now_us)
{
    /* A clock that stepped back leaves the entry alive rather than wrapping. */
    return now_us >= e->updated_us && now_us - e->updated_us >= c->timeout_us;
}

/* Slot holding ip, or ARP_NIL. Terminates: the table is never full. */
static uint32_t arp_find_slot(const struct arp_cache *c, uint32_t ip)
{
    for (uint32_t s = arp_home(c, ip);; s = (s + 1) & c->slot_mask) {
        uint32_t idx = c->slots[s];
        if (idx == ARP_NIL)
            return ARP_NIL;
        if (c->entries[idx].ip == ip)
            return s;
    }
}

static void arp_list_unlink(struct arp_cache *c, uint32_t idx)
{
    struct arp_entry *e = &c->entries[idx];

    if (e->prev != ARP_NIL)
        c->entries[e->prev].next = e->next;
    else
        c->oldest = e->next;
    if (e->next != ARP_NIL)
        c->entries[e->next].prev = e->prev;
    else
        c->newest = e->prev;
}

static void arp_list_append(struct arp_cache *c, uint32_t idx)
{
    struct arp_entry *e = &c->entries[idx];

    e->prev = c->newest;
    e->next = ARP_NIL;
    if (c->newest != ARP_NIL)
        c->entries[c->newest].next = idx;
    else
        c->oldest = idx;
    c->newest = idx;
}

/* Stamp an entry with now and make it the newest. */
static void arp_touch(struct arp_cache *c, uint32_t idx, uint64_t now_us)
{
    c->entries[idx].updated_us = now_us;
    if (c->newest != idx) {
        arp_list_unlink(c, idx);
        arp_list_append(c, idx);
    }
}

/* Remove the entry in slot s: free it and close the gap in its probe run
 * (Knuth's algorithm R for linear probing). */
static void arp_remove_slot(struct arp_cache *c, uint32_t s)
{
    uint32_t idx = c->slots[s];

    arp_list_unlink(c, idx);
    c->entries[idx].next = c->free_head;
    c->free_head = idx;
    c->stats.entries--;

    uint32_t hole = s;
    for (uint32_t j = (s + 1) & c->slot_mask; c->slots[j] != ARP_NIL;
         j = (j + 1) & c->slot_mask) {
        uint32_t home = arp_home(c, c->entries[c->slots[j]].ip);
        /* The entry at j may fill the hole only if its home is not in
         * (hole, j], i.e. the hole lies on its probe path. */
        if (((j - home) & c->slot_mask) >= ((j - hole) & c->slot_mask)) {
            c->slots[hole] = c->slots[j];
            hole = j;
        }
    }
    c->slots[hole] = ARP_NIL;
}

static void arp_remove_ip(struct arp_cache *c, uint32_t ip)
{
    uint32_t s = arp_find_slot(c, ip);
    if (s != ARP_NIL)
        arp_remove_slot(c, s);
}

/* New entry for ip (absent), stamped now; evicts the oldest when full. */
static struct arp_entry *arp_insert(struct arp_cache *c, uint32_t ip, uint64_t now_us)
{
    if (c->free_head == ARP_NIL) {
        struct arp_entry *old = &c->entries[c->oldest];
        if (arp_expired(c, old, now_us))
            c->stats.expirations++;
        else
            c->stats.evictions++;
        arp_remove_ip(c, old->ip);
    }

    uint32_t idx = c->free_head;
    struct arp_entry *e = &c->entries[idx];
    c->free_head = e->next;

    memset(e, 0, sizeof(*e));
    e->ip = ip;
    e->updated_us = now_us;
    arp_list_append(c, idx);

    uint32_t s = arp_home(c, ip);
    while (c->slots[s] != ARP_NIL)
        s = (s + 1) & c->slot_mask;
    c->slots[s] = idx;
    c->stats.entries++;
    return e;
}

/* Live entry number for ip, or ARP_NIL; an expired entry is removed. */
static uint32_t arp_find_live(struct arp_cache *c, uint32_t ip, uint64_t now_us)
{
    uint32_t s = arp_find_slot(c, ip);
    if (s == ARP_NIL)
        return ARP_NIL;
    uint32_t idx = c->slots[s];
    if (arp_expired(c, &c->entries[idx], now_us)) {
        arp_remove_slot(c, s);
        c->stats.expirations++;
        return ARP_NIL;
    }
    return idx;
}

struct arp_cache *arp_cache_create(uint32_t capacity, uint64_t timeout_us)
{
    if (capacity < 1 || capacity > ARP_CACHE_MAX_CAPACITY || timeout_us == 0) {
        LOG_ERR("arp", "cache: capacity %u (1..%u) or timeout %llu us (> 0) out of range",
                capacity, ARP_CACHE_MAX_CAPACITY, (unsigned long long)timeout_us);
        return NULL;
    }

    uint32_t nslots = 2;
    unsigned bits = 1;
    while (nslots < 2 * capacity) {
        nslots <<= 1;
        bits++;
    }

    size_t entries_off = sizeof(struct arp_cache);
    size_t slots_off = entries_off + (size_t)capacity * sizeof(struct arp_entry);
    size_t size = slots_off + (size_t)nslots * sizeof(uint32_t);
    _Static_assert(sizeof(struct arp_cache) % _Alignof(struct arp_entry) == 0,
                   "entries follow the header unaligned");
    _Static_assert(sizeof(struct arp_entry) % _Alignof(uint32_t) == 0,
                   "slots follow the entries unaligned");

    struct arp_cache *c = malloc(size);
    if (!c) {
        LOG_ERR("arp", "cache: cannot allocate %zu bytes for %u entries", size, capacity);
        return NULL;
    }
    memset(c, 0, sizeof(*c));
    c->capacity = capacity;
    c->slot_mask = nslots - 1;
    c->hash_shift = 32 - bits;
    c->timeout_us = timeout_us;
    c->oldest = ARP_NIL;
    c->newest = ARP_NIL;
    c->entries = (struct arp_entry *)((char *)c + entries_off);
    c->slots = (uint32_t *)((char *)c + slots_off);

    for (uint32_t i = 0; i < capacity; i++)
        c->entries[i].next = i + 1 < capacity ? i + 1 : ARP_NIL;
    c->free_head = 0;
    for (uint32_t i = 0; i < nslots; i++)
        c->slots[i] = ARP_NIL;
    return c;
}

void arp_cache_destroy(struct arp_cache *cache)
{
    free(cache);
}

int arp_cache_lookup(struct arp_cache *cache, uint32_t ip, uint64_t now_us, uint8_t mac[6])
{
    cache->stats.lookups++;
    uint32_t idx = arp_ip_valid(ip) ? arp_find_live(cache, ip, now_us) : ARP_NIL;
    if (idx == ARP_NIL || !cache->entries[idx].complete) {
        cache->stats.misses++;
        return -ENOENT;
    }
    cache->stats.hits++;
    memcpy(mac, cache->entries[idx].mac, 6);
    return 0;
}

static void arp_fill(struct arp_cache *c, struct arp_entry *e, const uint8_t mac[6])
{
    memcpy(e->mac, mac, 6);
    e->complete = true;
    c->stats.updates++;
}

int arp_cache_update(struct arp_cache *cache, uint32_t ip, const uint8_t mac[6],
                     uint64_t now_us)
{
    if (!arp_ip_valid(ip) || !arp_mac_valid(mac))
        return -EINVAL;

    uint32_t s = arp_find_slot(cache, ip);
    struct arp_entry *e;
    if (s != ARP_NIL) {
        /* Expired or not, the entry is current again from now. */
        arp_touch(cache, cache->slots[s], now_us);
        e = &cache->entries[cache->slots[s]];
    } else {
        e = arp_insert(cache, ip, now_us);
    }
    arp_fill(cache, e, mac);
    return 0;
}

int arp_cache_refresh(struct arp_cache *cache, uint32_t ip, const uint8_t mac[6],
                      uint64_t now_us)
{
    if (!arp_ip_valid(ip) || !arp_mac_valid(mac))
        return -EINVAL;

    uint32_t idx = arp_find_live(cache, ip, now_us);
    if (idx == ARP_NIL)
        return -ENOENT;
    arp_touch(cache, idx, now_us);
    arp_fill(cache, &cache->entries[idx], mac);
    return 0;
}

bool arp_cache_should_request(struct arp_cache *cache, uint32_t ip, uint64_t now_us)
{
    if (!arp_ip_valid(ip))
        return false;

    uint32_t idx = arp_find_live(cache, ip, now_us);
    if (idx == ARP_NIL) {
        struct arp_entry *e = arp_insert(cache, ip, now_us);
        e->requested_us = now_us;
        cache->stats.requests_allowed++;
        return true;
    }

    struct arp_entry *e = &cache->entries[idx];
    if (e->complete || now_us < e->requested_us ||
        now_us - e->requested_us < ARP_REQUEST_INTERVAL_US) {
        cache->stats.requests_suppressed++;
        return false;
    }
    e->requested_us = now_us;
    arp_touch(cache, idx, now_us);
    cache->stats.requests_allowed++;
    return true;
}

unsigned arp_cache_expire(struct arp_cache *cache, uint64_t now_us)
{
    unsigned n = 0;

    /* The age list is in expiry order: stop at the first live entry. */
    while (cache->oldest != ARP_NIL && arp_expired(cache, &cache->entries[cache->oldest], now_us)) {
        arp_remove_ip(cache, cache->entries[cache->oldest].ip);
        n++;
    }
    cache->stats.expirations += n;
    return n;
}

uint32_t arp_cache_count(const struct arp_cache *cache)
{
    return (uint32_t)cache->stats.entries;
}

const struct arp_cache_stats *arp_cache_get_stats(const struct arp_cache *cache)
{
    return &cache->stats;
}
