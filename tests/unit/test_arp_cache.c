/*
 * test_arp_cache: the per-lcore ARP table with a fake clock (now_us is just
 * a number passed in): hits and misses, expiry, update vs refresh-only,
 * eviction of the oldest when full, request rate limiting, input checks,
 * and a long random run checked step by step against a simple model.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "arp_cache.h"

#define T0 1000000000ULL /* arbitrary start of the fake clock */
#define TIMEOUT 60000000ULL

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

static void mac_for(uint32_t n, uint8_t mac[6])
{
    mac[0] = 0x02; /* locally administered unicast */
    mac[1] = 0x00;
    mac[2] = (uint8_t)(n >> 24);
    mac[3] = (uint8_t)(n >> 16);
    mac[4] = (uint8_t)(n >> 8);
    mac[5] = (uint8_t)n;
}

static void test_create_rejects_bad_args(void **state)
{
    (void)state;
    assert_null(arp_cache_create(0, TIMEOUT));
    assert_null(arp_cache_create(ARP_CACHE_MAX_CAPACITY + 1, TIMEOUT));
    assert_null(arp_cache_create(16, 0));

    struct arp_cache *c = arp_cache_create(1, 1);
    assert_non_null(c);
    assert_int_equal(arp_cache_count(c), 0);
    arp_cache_destroy(c);
}

static void test_hit_and_miss(void **state)
{
    (void)state;
    struct arp_cache *c = arp_cache_create(16, TIMEOUT);
    uint8_t mac[6], got[6];
    mac_for(1, mac);

    assert_int_equal(arp_cache_lookup(c, IP(10, 66, 0, 1), T0, got), -ENOENT);
    assert_int_equal(arp_cache_update(c, IP(10, 66, 0, 1), mac, T0), 0);
    assert_int_equal(arp_cache_count(c), 1);

    memset(got, 0, sizeof(got));
    assert_int_equal(arp_cache_lookup(c, IP(10, 66, 0, 1), T0 + 1, got), 0);
    assert_memory_equal(got, mac, 6);
    assert_int_equal(arp_cache_lookup(c, IP(10, 66, 0, 3), T0 + 1, got), -ENOENT);

    const struct arp_cache_stats *st = arp_cache_get_stats(c);
    assert_int_equal(st->lookups, 3);
    assert_int_equal(st->hits, 1);
    assert_int_equal(st->misses, 2);
    assert_int_equal(st->updates, 1);
    arp_cache_destroy(c);
}

static void test_expiry_on_lookup(void **state)
{
    (void)state;
    struct arp_cache *c = arp_cache_create(16, TIMEOUT);
    uint8_t mac[6], got[6];
    mac_for(7, mac);

    assert_int_equal(arp_cache_update(c, IP(10, 0, 0, 7), mac, T0), 0);
    assert_int_equal(arp_cache_lookup(c, IP(10, 0, 0, 7), T0 + TIMEOUT - 1, got), 0);
    assert_int_equal(arp_cache_lookup(c, IP(10, 0, 0, 7), T0 + TIMEOUT, got), -ENOENT);
    /* The expired entry is gone, not just hidden. */
    assert_int_equal(arp_cache_count(c), 0);
    assert_int_equal(arp_cache_get_stats(c)->expirations, 1);
    arp_cache_destroy(c);
}

static void test_expire_sweeps_only_expired(void **state)
{
    (void)state;
    struct arp_cache *c = arp_cache_create(16, TIMEOUT);
    uint8_t mac[6], got[6];

    for (uint32_t i = 1; i <= 10; i++) {
        mac_for(i, mac);
        assert_int_equal(arp_cache_update(c, IP(10, 0, 0, i), mac, T0 + i * 1000), 0);
    }
    /* Refreshing .2 makes it young again although it was inserted early. */
    mac_for(2, mac);
    assert_int_equal(arp_cache_update(c, IP(10, 0, 0, 2), mac, T0 + 20000), 0);

    assert_int_equal(arp_cache_expire(c, T0 + TIMEOUT), 0);
    /* Entries 1..5 (stamped up to T0+5000) are now expired, .2 is not. */
    assert_int_equal(arp_cache_expire(c, T0 + TIMEOUT + 5000), 4);
    assert_int_equal(arp_cache_count(c), 6);
    assert_int_equal(arp_cache_get_stats(c)->expirations, 4);
    for (uint32_t i = 1; i <= 10; i++) {
        bool alive = i == 2 || i > 5;
        assert_int_equal(arp_cache_lookup(c, IP(10, 0, 0, i), T0 + TIMEOUT + 5000, got),
                         alive ? 0 : -ENOENT);
    }
    assert_int_equal(arp_cache_expire(c, T0 + 20000 + TIMEOUT), 6);
    assert_int_equal(arp_cache_count(c), 0);
    arp_cache_destroy(c);
}

static void test_update_replaces_mac_and_restarts_timeout(void **state)
{
    (void)state;
    struct arp_cache *c = arp_cache_create(4, TIMEOUT);
    uint8_t a[6], b[6], got[6];
    mac_for(0xa, a);
    mac_for(0xb, b);

    assert_int_equal(arp_cache_update(c, IP(10, 0, 0, 9), a, T0), 0);
    assert_int_equal(arp_cache_update(c, IP(10, 0, 0, 9), b, T0 + TIMEOUT / 2), 0);
    assert_int_equal(arp_cache_count(c), 1);
    assert_int_equal(arp_cache_lookup(c, IP(10, 0, 0, 9), T0 + TIMEOUT, got), 0);
    assert_memory_equal(got, b, 6);
    assert_int_equal(arp_cache_lookup(c, IP(10, 0, 0, 9), T0 + TIMEOUT / 2 + TIMEOUT, got),
                     -ENOENT);
    arp_cache_destroy(c);
}

static void test_refresh_only_merges_known(void **state)
{
    (void)state;
    struct arp_cache *c = arp_cache_create(8, TIMEOUT);
    uint8_t a[6], b[6], got[6];
    mac_for(0xa, a);
    mac_for(0xb, b);

    /* Unknown: nothing learnt. */
    assert_int_equal(arp_cache_refresh(c, IP(10, 0, 0, 5), a, T0), -ENOENT);
    assert_int_equal(arp_cache_count(c), 0);
    assert_int_equal(arp_cache_lookup(c, IP(10, 0, 0, 5), T0, got), -ENOENT);

    /* Known: MAC replaced and timeout restarted. */
    assert_int_equal(arp_cache_update(c, IP(10, 0, 0, 5), a, T0), 0);
    assert_int_equal(arp_cache_refresh(c, IP(10, 0, 0, 5), b, T0 + 10), 0);
    assert_int_equal(arp_cache_lookup(c, IP(10, 0, 0, 5), T0 + 10 + TIMEOUT - 1, got), 0);
    assert_memory_equal(got, b, 6);

    /* Incomplete (request pending): a refresh completes it. */
    assert_true(arp_cache_should_request(c, IP(10, 0, 0, 6), T0));
    assert_int_equal(arp_cache_lookup(c, IP(10, 0, 0, 6), T0, got), -ENOENT);
    assert_int_equal(arp_cache_refresh(c, IP(10, 0, 0, 6), a, T0 + 1), 0);
    assert_int_equal(arp_cache_lookup(c, IP(10, 0, 0, 6), T0 + 1, got), 0);
    assert_memory_equal(got, a, 6);

    /* Expired counts as absent and is removed. */
    uint32_t before = arp_cache_count(c);
    assert_int_equal(arp_cache_refresh(c, IP(10, 0, 0, 6), b, T0 + 1 + TIMEOUT), -ENOENT);
    assert_int_equal(arp_cache_count(c), before - 1);
    arp_cache_destroy(c);
}

static void test_eviction_takes_oldest(void **state)
{
    (void)state;
    struct arp_cache *c = arp_cache_create(4, TIMEOUT);
    uint8_t mac[6], got[6];

    for (uint32_t i = 1; i <= 4; i++) {
        mac_for(i, mac);
        assert_int_equal(arp_cache_update(c, IP(10, 0, 0, i), mac, T0 + i), 0);
    }
    /* .1 is updated again, so .2 becomes the oldest. */
    mac_for(1, mac);
    assert_int_equal(arp_cache_update(c, IP(10, 0, 0, 1), mac, T0 + 10), 0);
    mac_for(5, mac);
    assert_int_equal(arp_cache_update(c, IP(10, 0, 0, 5), mac, T0 + 11), 0);

    assert_int_equal(arp_cache_count(c), 4);
    assert_int_equal(arp_cache_get_stats(c)->evictions, 1);
    assert_int_equal(arp_cache_lookup(c, IP(10, 0, 0, 2), T0 + 12, got), -ENOENT);
    for (uint32_t i = 1; i <= 5; i++) {
        if (i == 2)
            continue;
        assert_int_equal(arp_cache_lookup(c, IP(10, 0, 0, i), T0 + 12, got), 0);
        mac_for(i, mac);
        assert_memory_equal(got, mac, 6);
    }

    /* An already expired oldest entry is counted as an expiry, not an eviction. */
    mac_for(6, mac);
    assert_int_equal(arp_cache_update(c, IP(10, 0, 0, 6), mac, T0 + 3 + TIMEOUT), 0);
    assert_int_equal(arp_cache_get_stats(c)->evictions, 1);
    assert_int_equal(arp_cache_get_stats(c)->expirations, 1);
    arp_cache_destroy(c);
}

static void test_request_rate_limit(void **state)
{
    (void)state;
    struct arp_cache *c = arp_cache_create(8, TIMEOUT);
    uint8_t mac[6], got[6];
    const uint32_t ip = IP(10, 66, 0, 1);
    mac_for(1, mac);

    assert_true(arp_cache_should_request(c, ip, T0));
    assert_int_equal(arp_cache_count(c), 1); /* the incomplete entry */
    assert_false(arp_cache_should_request(c, ip, T0 + 1));
    assert_false(arp_cache_should_request(c, ip, T0 + ARP_REQUEST_INTERVAL_US - 1));
    /* Another address has its own budget. */
    assert_true(arp_cache_should_request(c, IP(10, 66, 0, 7), T0 + 1));
    assert_true(arp_cache_should_request(c, ip, T0 + ARP_REQUEST_INTERVAL_US));
    assert_false(arp_cache_should_request(c, ip, T0 + ARP_REQUEST_INTERVAL_US + 5));
    /* Incomplete is not a hit. */
    assert_int_equal(arp_cache_lookup(c, ip, T0 + ARP_REQUEST_INTERVAL_US + 5, got), -ENOENT);

    /* Answered: no more requests while the entry lives. */
    assert_int_equal(arp_cache_update(c, ip, mac, T0 + 3 * ARP_REQUEST_INTERVAL_US), 0);
    assert_false(arp_cache_should_request(c, ip, T0 + 5 * ARP_REQUEST_INTERVAL_US));
    assert_int_equal(arp_cache_lookup(c, ip, T0 + 5 * ARP_REQUEST_INTERVAL_US, got), 0);
    /* Expired: ask again. */
    assert_true(arp_cache_should_request(c, ip, T0 + 3 * ARP_REQUEST_INTERVAL_US + TIMEOUT));

    const struct arp_cache_stats *st = arp_cache_get_stats(c);
    assert_int_equal(st->requests_allowed, 4);
    assert_int_equal(st->requests_suppressed, 4);
    /* Invalid addresses are never asked for. */
    assert_false(arp_cache_should_request(c, 0, T0));
    assert_false(arp_cache_should_request(c, IP(224, 0, 0, 1), T0));
    arp_cache_destroy(c);
}

static void test_rejects_bad_mac_and_ip(void **state)
{
    (void)state;
    struct arp_cache *c = arp_cache_create(8, TIMEOUT);
    const uint8_t good[6] = {0x02, 0, 0, 0, 0, 1};
    const uint8_t bad_macs[][6] = {
        {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, /* broadcast */
        {0x01, 0x00, 0x5e, 0x00, 0x00, 0x01}, /* IPv4 multicast */
        {0x33, 0x33, 0x00, 0x00, 0x00, 0x01}, /* IPv6 multicast */
        {0, 0, 0, 0, 0, 0},
    };
    const uint32_t bad_ips[] = {0, 0xffffffffu, IP(224, 0, 0, 1), IP(239, 1, 2, 3)};

    for (size_t i = 0; i < sizeof(bad_macs) / sizeof(bad_macs[0]); i++) {
        assert_int_equal(arp_cache_update(c, IP(10, 0, 0, 1), bad_macs[i], T0), -EINVAL);
        assert_int_equal(arp_cache_refresh(c, IP(10, 0, 0, 1), bad_macs[i], T0), -EINVAL);
    }
    for (size_t i = 0; i < sizeof(bad_ips) / sizeof(bad_ips[0]); i++)
        assert_int_equal(arp_cache_update(c, bad_ips[i], good, T0), -EINVAL);
    assert_int_equal(arp_cache_count(c), 0);

    /* A bad MAC must not clobber a good entry either. */
    uint8_t got[6];
    assert_int_equal(arp_cache_update(c, IP(10, 0, 0, 1), good, T0), 0);
    assert_int_equal(arp_cache_update(c, IP(10, 0, 0, 1), bad_macs[0], T0), -EINVAL);
    assert_int_equal(arp_cache_lookup(c, IP(10, 0, 0, 1), T0, got), 0);
    assert_memory_equal(got, good, 6);
    arp_cache_destroy(c);
}

/*
 * Model: an unordered array of entries with a sequence number that grows on
 * every touch; the oldest is the smallest sequence. Obviously correct, slow.
 */
struct model_entry {
    uint32_t ip;
    uint8_t mac[6];
    bool complete;
    uint64_t updated;
    uint64_t requested;
    uint64_t seq;
};

struct model {
    struct model_entry e[512];
    unsigned n;
    unsigned cap;
    uint64_t seq;
};

static int model_find(struct model *m, uint32_t ip)
{
    for (unsigned i = 0; i < m->n; i++)
        if (m->e[i].ip == ip)
            return (int)i;
    return -1;
}

static void model_remove(struct model *m, int i)
{
    m->e[i] = m->e[--m->n];
}

static bool model_expired(const struct model_entry *e, uint64_t now)
{
    return now - e->updated >= TIMEOUT;
}

static int model_find_live(struct model *m, uint32_t ip, uint64_t now)
{
    int i = model_find(m, ip);
    if (i >= 0 && model_expired(&m->e[i], now)) {
        model_remove(m, i);
        return -1;
    }
    return i;
}

static int model_insert(struct model *m, uint32_t ip, uint64_t now)
{
    if (m->n == m->cap) {
        unsigned old = 0;
        for (unsigned i = 1; i < m->n; i++)
            if (m->e[i].seq < m->e[old].seq)
                old = i;
        model_remove(m, (int)old);
    }
    struct model_entry *e = &m->e[m->n];
    memset(e, 0, sizeof(*e));
    e->ip = ip;
    e->updated = now;
    e->seq = ++m->seq;
    return (int)m->n++;
}

static void model_touch(struct model *m, int i, uint64_t now)
{
    m->e[i].updated = now;
    m->e[i].seq = ++m->seq;
}

static uint32_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*s >> 33);
}

static void run_model(unsigned cap, unsigned pool_size, unsigned steps, uint64_t step_div,
                      uint64_t seed)
{
    struct arp_cache *c = arp_cache_create(cap, TIMEOUT);
    static struct model m;
    uint32_t pool[400];
    uint64_t now = T0;
    uint8_t mac[6], got[6];

    assert_non_null(c);
    assert_true(pool_size <= 400 && cap <= 512);
    memset(&m, 0, sizeof(m));
    m.cap = cap;
    for (unsigned i = 0; i < pool_size; i++) /* spread over a /16, some adjacent */
        pool[i] = IP(10, 1, 0, 0) + (i % 3 ? rnd(&seed) % 65534 + 1 : i);

    for (unsigned step = 0; step < steps; step++) {
        uint32_t ip = pool[rnd(&seed) % pool_size];
        unsigned op = rnd(&seed) % 100;
        /* Mostly small steps, so tables fill up; now and then a long pause
         * so that whole generations expire. */
        now += rnd(&seed) % (rnd(&seed) % 200 == 0 ? 2 * TIMEOUT : TIMEOUT / step_div);
        mac_for(rnd(&seed) % 1000 + 1, mac);

        if (op < 40) {
            assert_int_equal(arp_cache_update(c, ip, mac, now), 0);
            int i = model_find(&m, ip);
            if (i < 0)
                i = model_insert(&m, ip, now);
            model_touch(&m, i, now);
            memcpy(m.e[i].mac, mac, 6);
            m.e[i].complete = true;
        } else if (op < 55) {
            int i = model_find_live(&m, ip, now);
            assert_int_equal(arp_cache_refresh(c, ip, mac, now), i < 0 ? -ENOENT : 0);
            if (i >= 0) {
                model_touch(&m, i, now);
                memcpy(m.e[i].mac, mac, 6);
                m.e[i].complete = true;
            }
        } else if (op < 75) {
            int i = model_find_live(&m, ip, now);
            bool want;
            if (i < 0) {
                i = model_insert(&m, ip, now);
                m.e[i].requested = now;
                want = true;
            } else if (!m.e[i].complete && now - m.e[i].requested >= ARP_REQUEST_INTERVAL_US) {
                m.e[i].requested = now;
                model_touch(&m, i, now);
                want = true;
            } else {
                want = false;
            }
            assert_int_equal(arp_cache_should_request(c, ip, now), want);
        } else if (op < 97) {
            int i = model_find_live(&m, ip, now);
            bool hit = i >= 0 && m.e[i].complete;
            assert_int_equal(arp_cache_lookup(c, ip, now, got), hit ? 0 : -ENOENT);
            if (hit)
                assert_memory_equal(got, m.e[i].mac, 6);
        } else {
            unsigned n = 0;
            for (unsigned i = 0; i < m.n;) {
                if (model_expired(&m.e[i], now)) {
                    model_remove(&m, (int)i);
                    n++;
                } else {
                    i++;
                }
            }
            assert_int_equal(arp_cache_expire(c, now), n);
        }
        assert_int_equal(arp_cache_count(c), m.n);

        /* Every so often: every key the model holds is still found. */
        if (step % 64 == 0) {
            for (unsigned i = 0; i < m.n; i++) {
                if (!m.e[i].complete || model_expired(&m.e[i], now))
                    continue;
                assert_int_equal(arp_cache_lookup(c, m.e[i].ip, now, got), 0);
                assert_memory_equal(got, m.e[i].mac, 6);
            }
        }
    }
    /* The run must have exercised every path, or it proves nothing. */
    const struct arp_cache_stats *st = arp_cache_get_stats(c);
    assert_true(st->hits > 0 && st->misses > 0 && st->expirations > 0);
    assert_true(st->requests_allowed > 0 && st->requests_suppressed > 0);
    if (pool_size > cap)
        assert_true(st->evictions > 0);
    arp_cache_destroy(c);
}

/* Many inserts, removals (expiry, eviction) and lookups: the open-addressing
 * index must never lose or duplicate a key, at every size. */
static void test_random_against_model(void **state)
{
    (void)state;
    run_model(1, 5, 3000, 200, 1);
    run_model(8, 40, 20000, 200, 2);
    run_model(37, 120, 20000, 200, 3);
    run_model(256, 400, 20000, 20000, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_rejects_bad_args),
        cmocka_unit_test(test_hit_and_miss),
        cmocka_unit_test(test_expiry_on_lookup),
        cmocka_unit_test(test_expire_sweeps_only_expired),
        cmocka_unit_test(test_update_replaces_mac_and_restarts_timeout),
        cmocka_unit_test(test_refresh_only_merges_known),
        cmocka_unit_test(test_eviction_takes_oldest),
        cmocka_unit_test(test_request_rate_limit),
        cmocka_unit_test(test_rejects_bad_mac_and_ip),
        cmocka_unit_test(test_random_against_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
