/*
 * test_net_rx: the Ethernet/ARP/IPv4/ICMP input path, driven by frames built
 * byte by byte with the helpers below (a correct frame first, then one thing
 * broken per case). Every call goes through run(), which checks the "no
 * silent drop" invariant for that frame: rx_frames +1 and exactly one
 * outcome counter +1, the expected one. Replies are checked field by field
 * and their checksums verified with net_cksum.
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
#include "net.h"
#include "net_cksum.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

#define FRAME_MAX 2048
#define T0 5000000ULL
#define ARP_TIMEOUT 60000000ULL

static const uint8_t our_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
static const uint8_t peer_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
static const uint8_t other_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x09};
static const uint8_t bcast_mac[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
static const uint8_t zero_mac[6] = {0, 0, 0, 0, 0, 0};
static const uint8_t mcast_mac[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x01};

#define OUR_IP IP(10, 66, 0, 2)
#define PEER_IP IP(10, 66, 0, 1)
#define OTHER_IP IP(10, 66, 0, 3)
#define SUBNET_BCAST IP(10, 66, 0, 255)

struct fixture {
    struct arp_cache *arp;
    struct net_ctx ctx;
};

/* ---- byte helpers ---------------------------------------------------- */

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)(v >> 16));
    put16(p + 2, (uint16_t)v);
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/* ---- frame builders --------------------------------------------------- */

static void eth_put(uint8_t *b, const uint8_t *dst, const uint8_t *src, uint16_t type)
{
    memcpy(b, dst, 6);
    memcpy(b + 6, src, 6);
    put16(b + 12, type);
}

/* Ethernet + ARP (Ethernet/IPv4), 42 bytes. */
static uint16_t arp_frame(uint8_t *b, const uint8_t *eth_dst, uint16_t op, const uint8_t *sha,
                          uint32_t spa, const uint8_t *tha, uint32_t tpa)
{
    eth_put(b, eth_dst, sha, 0x0806);
    uint8_t *a = b + 14;
    put16(a, 1);
    put16(a + 2, 0x0800);
    a[4] = 6;
    a[5] = 4;
    put16(a + 6, op);
    memcpy(a + 8, sha, 6);
    put32(a + 14, spa);
    memcpy(a + 18, tha, 6);
    put32(a + 24, tpa);
    return 42;
}

/* The usual "who has OUR_IP" from the peer. */
static uint16_t arp_request_for_us(uint8_t *b)
{
    return arp_frame(b, bcast_mac, 1, peer_mac, PEER_IP, zero_mac, OUR_IP);
}

struct ipv4_spec {
    const uint8_t *eth_dst;
    uint32_t src, dst;
    uint8_t proto, tos, ttl;
    uint16_t id, frag;
    uint8_t opts[40];
    uint8_t opts_len; /* multiple of 4 */
};

static struct ipv4_spec ipv4_default(void)
{
    struct ipv4_spec s = {
        .eth_dst = our_mac,
        .src = PEER_IP,
        .dst = OUR_IP,
        .proto = 1,
        .tos = 0x10,
        .ttl = 17,
        .id = 0x4321,
        .frag = 0x4000, /* DF, as Linux sends pings */
    };
    return s;
}

static void ip_fix_csum(uint8_t *b)
{
    uint8_t *ip = b + 14;
    unsigned hlen = (ip[0] & 0xfu) * 4;
    put16(ip + 10, 0);
    uint16_t c = net_cksum(ip, hlen);
    memcpy(ip + 10, &c, 2);
}

/* Ethernet + IPv4 (+ options) + l4 bytes; returns the frame length. */
static uint16_t ipv4_frame(uint8_t *b, const struct ipv4_spec *s, const uint8_t *l4,
                           uint16_t l4_len)
{
    eth_put(b, s->eth_dst, peer_mac, 0x0800);
    uint8_t *ip = b + 14;
    uint16_t hlen = (uint16_t)(20 + s->opts_len);
    ip[0] = (uint8_t)(0x40 | hlen / 4);
    ip[1] = s->tos;
    put16(ip + 2, (uint16_t)(hlen + l4_len));
    put16(ip + 4, s->id);
    put16(ip + 6, s->frag);
    ip[8] = s->ttl;
    ip[9] = s->proto;
    put32(ip + 12, s->src);
    put32(ip + 16, s->dst);
    memcpy(ip + 20, s->opts, s->opts_len);
    memmove(ip + hlen, l4, l4_len);
    ip_fix_csum(b);
    return (uint16_t)(14 + hlen + l4_len);
}

/* ICMP message with a recognisable payload and a correct checksum. */
static uint16_t icmp_msg(uint8_t *m, uint8_t type, uint8_t code, uint16_t plen)
{
    m[0] = type;
    m[1] = code;
    put16(m + 2, 0);
    put16(m + 4, 0xbeef); /* id */
    put16(m + 6, 0x0102); /* seq */
    for (uint16_t i = 0; i < plen; i++)
        m[8 + i] = (uint8_t)(i * 7 + 3);
    uint16_t c = net_cksum(m, 8u + plen);
    memcpy(m + 2, &c, 2);
    return (uint16_t)(8 + plen);
}

static uint16_t ping_frame(uint8_t *b, const struct ipv4_spec *s, uint16_t plen)
{
    uint8_t msg[FRAME_MAX];
    uint16_t n = icmp_msg(msg, 8, 0, plen);
    return ipv4_frame(b, s, msg, n);
}

static uint16_t ping_default(uint8_t *b)
{
    struct ipv4_spec s = ipv4_default();
    return ping_frame(b, &s, 56);
}

/* A plausible TCP SYN header (the net layer does not look inside). */
static uint16_t tcp_frame(uint8_t *b, const struct ipv4_spec *in, uint16_t payload)
{
    struct ipv4_spec s = *in;
    uint8_t seg[FRAME_MAX] = {0};
    s.proto = 6;
    put16(seg, 40000);
    put16(seg + 2, 6653);
    put32(seg + 4, 1000);
    seg[12] = 0x50;
    seg[13] = 0x02;
    put16(seg + 14, 64240);
    return ipv4_frame(b, &s, seg, (uint16_t)(20 + payload));
}

/* ---- counters ----------------------------------------------------------- */

#define MAX_CTR 64

struct snap {
    unsigned n;
    const char *name[MAX_CTR];
    uint64_t val[MAX_CTR];
};

/* Every counter through the registry, as the stats log and /metrics see it. */
static void snap_take(const struct net_ctx *ctx, struct snap *s)
{
    const uint64_t *v = OFCD_COUNTER_VALUES(&ctx->stats);

    memset(s, 0, sizeof(*s));
    assert_true(net_counters.n <= MAX_CTR);
    for (unsigned i = 0; i < net_counters.n; i++) {
        assert_non_null(net_counters.defs[i].help);
        assert_true(strlen(net_counters.defs[i].help) > 0);
        s->name[s->n] = net_counters.defs[i].name;
        s->val[s->n++] = v[i];
    }
}

static const char *const outcome_extra[] = {"rx_arp_reply", "tx_arp_reply",
                                            "tx_icmp_echo_reply", "rx_tcp"};
static const char *const info_names[] = {"rx_frames", "rx_arp_request", "tx_arp_request",
                                         "rx_icmp_echo"};

/* The test's own classification, written from the spec: every drop_* plus
 * the four non-drop outcomes. Any new counter must be put in one class. */
static bool is_outcome(const char *name)
{
    if (strncmp(name, "drop_", 5) == 0)
        return true;
    for (size_t i = 0; i < sizeof(outcome_extra) / sizeof(outcome_extra[0]); i++)
        if (strcmp(name, outcome_extra[i]) == 0)
            return true;
    return false;
}

static bool is_info(const char *name)
{
    for (size_t i = 0; i < sizeof(info_names) / sizeof(info_names[0]); i++)
        if (strcmp(name, info_names[i]) == 0)
            return true;
    return false;
}

static uint64_t snap_get(const struct snap *s, const char *name)
{
    for (unsigned i = 0; i < s->n; i++)
        if (strcmp(s->name[i], name) == 0)
            return s->val[i];
    fail_msg("no counter %s", name);
    return 0;
}

static void check_invariant(const struct net_ctx *ctx)
{
    struct snap s;
    uint64_t sum = 0;
    snap_take(ctx, &s);
    for (unsigned i = 0; i < s.n; i++) {
        assert_true(is_outcome(s.name[i]) != is_info(s.name[i]));
        if (is_outcome(s.name[i]))
            sum += s.val[i];
    }
    assert_int_equal(snap_get(&s, "rx_frames"), sum);
    assert_int_equal(net_stats_outcome_sum(&ctx->stats), sum);
}

/* Feed one frame and check that exactly the expected outcome was counted. */
static enum net_verdict run_at(struct net_ctx *ctx, uint8_t *b, uint16_t *len, uint64_t now,
                               struct net_rx_info *info, const char *expect)
{
    struct snap before, after;
    assert_true(is_outcome(expect));
    snap_take(ctx, &before);
    uint64_t sum_before = net_stats_outcome_sum(&ctx->stats);

    enum net_verdict v = net_rx(ctx, b, len, now, info);

    snap_take(ctx, &after);
    assert_int_equal(after.n, before.n);
    for (unsigned i = 0; i < after.n; i++) {
        uint64_t delta = after.val[i] - before.val[i];
        if (strcmp(after.name[i], expect) == 0 || strcmp(after.name[i], "rx_frames") == 0) {
            if (delta != 1)
                fail_msg("expected %s +1, got %s +%llu", expect, after.name[i],
                         (unsigned long long)delta);
        } else if (is_outcome(after.name[i]) && delta != 0) {
            fail_msg("expected %s, but %s +%llu", expect, after.name[i],
                     (unsigned long long)delta);
        }
    }
    assert_int_equal(net_stats_outcome_sum(&ctx->stats), sum_before + 1);
    check_invariant(ctx);
    return v;
}

static enum net_verdict run(struct net_ctx *ctx, uint8_t *b, uint16_t *len, const char *expect)
{
    struct net_rx_info info;
    return run_at(ctx, b, len, T0, &info, expect);
}

/* ---- fixture ------------------------------------------------------------ */

static int setup(void **state)
{
    static struct fixture fx;
    memset(&fx, 0, sizeof(fx));
    fx.arp = arp_cache_create(64, ARP_TIMEOUT);
    if (!fx.arp || net_ctx_init(&fx.ctx, our_mac, OUR_IP, 24, fx.arp) != 0)
        return -1;
    *state = &fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    arp_cache_destroy(fx->arp);
    check_invariant(&fx->ctx);
    return 0;
}

/* ---- net_ctx_init / net_on_link ---------------------------------------- */

static void test_ctx_init_validates(void **state)
{
    struct fixture *fx = *state;
    struct net_ctx c;

    assert_int_equal(net_ctx_init(&c, our_mac, IP(192, 168, 1, 1), 30, fx->arp), 0);
    assert_int_equal(c.netmask, 0xfffffffcu);
    assert_int_equal(c.ip, IP(192, 168, 1, 1));
    assert_false(c.tcp_attached);
    assert_ptr_equal(c.arp, fx->arp);
    assert_int_equal(net_stats_outcome_sum(&c.stats), 0);
    assert_int_equal(c.stats.rx_frames, 0);
    assert_int_equal(net_ctx_init(&c, our_mac, IP(10, 1, 2, 3), 1, fx->arp), 0);
    assert_int_equal(c.netmask, 0x80000000u);

    assert_int_equal(net_ctx_init(&c, bcast_mac, OUR_IP, 24, fx->arp), -EINVAL);
    assert_int_equal(net_ctx_init(&c, mcast_mac, OUR_IP, 24, fx->arp), -EINVAL);
    assert_int_equal(net_ctx_init(&c, zero_mac, OUR_IP, 24, fx->arp), -EINVAL);
    assert_int_equal(net_ctx_init(&c, our_mac, 0, 24, fx->arp), -EINVAL);
    assert_int_equal(net_ctx_init(&c, our_mac, OUR_IP, 0, fx->arp), -EINVAL);
    assert_int_equal(net_ctx_init(&c, our_mac, OUR_IP, 31, fx->arp), -EINVAL);
    assert_int_equal(net_ctx_init(&c, our_mac, OUR_IP, 32, fx->arp), -EINVAL);
    assert_int_equal(net_ctx_init(&c, our_mac, IP(10, 66, 0, 0), 24, fx->arp), -EINVAL);
    assert_int_equal(net_ctx_init(&c, our_mac, SUBNET_BCAST, 24, fx->arp), -EINVAL);
    assert_int_equal(net_ctx_init(&c, our_mac, IP(224, 0, 0, 5), 24, fx->arp), -EINVAL);
    assert_int_equal(net_ctx_init(&c, our_mac, 0xffffffffu, 24, fx->arp), -EINVAL);
    assert_int_equal(net_ctx_init(&c, our_mac, IP(127, 0, 0, 1), 8, fx->arp), -EINVAL);
    assert_int_equal(net_ctx_init(&c, our_mac, OUR_IP, 24, NULL), -EINVAL);
}

static void test_on_link(void **state)
{
    struct fixture *fx = *state;
    assert_true(net_on_link(&fx->ctx, PEER_IP));
    assert_true(net_on_link(&fx->ctx, IP(10, 66, 0, 254)));
    assert_false(net_on_link(&fx->ctx, IP(10, 66, 1, 1)));
    assert_false(net_on_link(&fx->ctx, IP(192, 168, 0, 1)));
}

static void test_stats_foreach_visits_every_counter(void **state)
{
    struct fixture *fx = *state;
    struct snap s;
    struct net_stats *st = &fx->ctx.stats;
    uint64_t *words = (uint64_t *)st;
    size_t nwords = sizeof(*st) / sizeof(uint64_t);

    /* Distinct values in every field, then each must come back by name. */
    for (size_t i = 0; i < nwords; i++)
        words[i] = 1000 + i;
    snap_take(&fx->ctx, &s);
    assert_int_equal(s.n, nwords);
    for (unsigned i = 0; i < s.n; i++) {
        for (unsigned j = i + 1; j < s.n; j++)
            assert_string_not_equal(s.name[i], s.name[j]);
        assert_true(s.val[i] >= 1000 && s.val[i] < 1000 + nwords);
    }
    assert_int_equal(snap_get(&s, "rx_frames"), st->rx_frames);
    assert_int_equal(snap_get(&s, "drop_ip_csum"), st->drop_ip_csum);
    assert_int_equal(snap_get(&s, "tx_arp_reply"), st->tx_arp_reply);
    memset(st, 0, sizeof(*st));
}

/* ---- the drop/outcome table ---------------------------------------------- */

struct rx_case {
    const char *what;
    uint16_t (*build)(uint8_t *b);
    const char *expect;
    enum net_verdict verdict;
    bool tcp_attached;
};

static uint16_t c_eth_empty(uint8_t *b)
{
    (void)b;
    return 0;
}

static uint16_t c_eth_13(uint8_t *b)
{
    eth_put(b, our_mac, peer_mac, 0x0800);
    return 13;
}

static uint16_t c_eth_other_unicast(uint8_t *b)
{
    struct ipv4_spec s = ipv4_default();
    s.eth_dst = other_mac;
    return ping_frame(b, &s, 8);
}

static uint16_t c_eth_ipv4_multicast(uint8_t *b)
{
    struct ipv4_spec s = ipv4_default();
    s.eth_dst = mcast_mac;
    return ping_frame(b, &s, 8);
}

static uint16_t c_eth_ipv6_multicast(uint8_t *b)
{
    static const uint8_t v6m[6] = {0x33, 0x33, 0, 0, 0, 1};
    struct ipv4_spec s = ipv4_default();
    s.eth_dst = v6m;
    return ping_frame(b, &s, 8);
}

static uint16_t c_eth_src_multicast(uint8_t *b)
{
    uint16_t n = ping_default(b);
    memcpy(b + 6, mcast_mac, 6);
    return n;
}

static uint16_t c_eth_src_broadcast(uint8_t *b)
{
    uint16_t n = arp_request_for_us(b);
    memcpy(b + 6, bcast_mac, 6);
    return n;
}

/* A valid ping behind an 802.1Q tag: ofcd's port is untagged. */
static uint16_t c_eth_vlan(uint8_t *b)
{
    uint8_t inner[FRAME_MAX];
    uint16_t n = ping_default(inner);
    memcpy(b, inner, 12);
    put16(b + 12, 0x8100);
    put16(b + 14, 100);
    memcpy(b + 16, inner + 12, n - 12u);
    return (uint16_t)(n + 4);
}

static uint16_t c_eth_ipv6(uint8_t *b)
{
    uint16_t n = ping_default(b);
    put16(b + 12, 0x86dd);
    return n;
}

static uint16_t c_eth_lldp(uint8_t *b)
{
    memset(b, 0, 60);
    eth_put(b, our_mac, peer_mac, 0x88cc);
    return 60;
}

static uint16_t c_arp_short(uint8_t *b)
{
    arp_request_for_us(b);
    return 41;
}

static uint16_t c_arp_htype(uint8_t *b)
{
    uint16_t n = arp_request_for_us(b);
    put16(b + 14, 6); /* IEEE 802 */
    return n;
}

static uint16_t c_arp_ptype(uint8_t *b)
{
    uint16_t n = arp_request_for_us(b);
    put16(b + 16, 0x86dd);
    return n;
}

static uint16_t c_arp_hlen(uint8_t *b)
{
    uint16_t n = arp_request_for_us(b);
    b[18] = 8;
    return n;
}

static uint16_t c_arp_plen(uint8_t *b)
{
    uint16_t n = arp_request_for_us(b);
    b[19] = 16;
    return n;
}

static uint16_t c_arp_op0(uint8_t *b)
{
    uint16_t n = arp_request_for_us(b);
    put16(b + 20, 0);
    return n;
}

static uint16_t c_arp_op_rarp(uint8_t *b)
{
    uint16_t n = arp_request_for_us(b);
    put16(b + 20, 3);
    return n;
}

static uint16_t c_arp_sha_bcast(uint8_t *b)
{
    uint16_t n = arp_frame(b, bcast_mac, 1, bcast_mac, PEER_IP, zero_mac, OUR_IP);
    memcpy(b + 6, peer_mac, 6); /* keep the Ethernet source sane */
    return n;
}

static uint16_t c_arp_sha_mcast(uint8_t *b)
{
    uint16_t n = arp_frame(b, bcast_mac, 1, mcast_mac, PEER_IP, zero_mac, OUR_IP);
    memcpy(b + 6, peer_mac, 6);
    return n;
}

static uint16_t c_arp_sha_zero(uint8_t *b)
{
    uint16_t n = arp_frame(b, bcast_mac, 1, zero_mac, PEER_IP, zero_mac, OUR_IP);
    memcpy(b + 6, peer_mac, 6);
    return n;
}

static uint16_t c_arp_reply_spa_zero(uint8_t *b)
{
    return arp_frame(b, our_mac, 2, peer_mac, 0, our_mac, OUR_IP);
}

static uint16_t c_arp_spa_ours_request(uint8_t *b)
{
    return arp_frame(b, bcast_mac, 1, peer_mac, OUR_IP, zero_mac, OUR_IP);
}

static uint16_t c_arp_spa_ours_reply(uint8_t *b)
{
    return arp_frame(b, our_mac, 2, peer_mac, OUR_IP, our_mac, OUR_IP);
}

static uint16_t c_arp_spa_mcast(uint8_t *b)
{
    return arp_frame(b, bcast_mac, 1, peer_mac, IP(224, 0, 0, 9), zero_mac, OUR_IP);
}

static uint16_t c_arp_spa_subnet_bcast(uint8_t *b)
{
    return arp_frame(b, bcast_mac, 1, peer_mac, SUBNET_BCAST, zero_mac, OUR_IP);
}

static uint16_t c_arp_request_other(uint8_t *b)
{
    return arp_frame(b, bcast_mac, 1, peer_mac, PEER_IP, zero_mac, OTHER_IP);
}

static uint16_t c_arp_reply(uint8_t *b)
{
    return arp_frame(b, our_mac, 2, peer_mac, PEER_IP, our_mac, OUR_IP);
}

static uint16_t c_ip_short(uint8_t *b)
{
    ping_default(b);
    return 14 + 19;
}

static uint16_t c_ip_version6(uint8_t *b)
{
    uint16_t n = ping_default(b);
    b[14] = (uint8_t)(0x60 | (b[14] & 0x0f));
    ip_fix_csum(b);
    return n;
}

static uint16_t c_ip_ihl4(uint8_t *b)
{
    uint16_t n = ping_default(b);
    b[14] = 0x44;
    return n;
}

static uint16_t c_ip_ihl_beyond(uint8_t *b)
{
    struct ipv4_spec s = ipv4_default();
    uint16_t n = ping_frame(b, &s, 0); /* 28 bytes of IP */
    b[14] = 0x4f;                      /* claims 60 */
    return n;
}

static uint16_t c_ip_total_lt_hlen(uint8_t *b)
{
    uint16_t n = ping_default(b);
    put16(b + 16, 19);
    ip_fix_csum(b);
    return n;
}

static uint16_t c_ip_total_lt_hlen_opts(uint8_t *b)
{
    struct ipv4_spec s = ipv4_default();
    s.opts[0] = 1;
    s.opts_len = 4;
    uint16_t n = ping_frame(b, &s, 8);
    put16(b + 16, 22);
    ip_fix_csum(b);
    return n;
}

static uint16_t c_ip_total_gt_frame(uint8_t *b)
{
    uint16_t n = ping_default(b);
    put16(b + 16, (uint16_t)(get16(b + 16) + 1));
    ip_fix_csum(b);
    return n;
}

static uint16_t c_ip_truncated(uint8_t *b)
{
    return (uint16_t)(ping_default(b) - 1);
}

static uint16_t c_ip_csum_field(uint8_t *b)
{
    uint16_t n = ping_default(b);
    b[14 + 10] ^= 0x40;
    return n;
}

static uint16_t c_ip_csum_ttl(uint8_t *b)
{
    uint16_t n = ping_default(b);
    b[14 + 8]--; /* as a router would, but without fixing the checksum */
    return n;
}

static uint16_t opts_ping(uint8_t *b, const uint8_t *opts, uint8_t len)
{
    struct ipv4_spec s = ipv4_default();
    memcpy(s.opts, opts, len);
    s.opts_len = len;
    return ping_frame(b, &s, 16);
}

static uint16_t c_ip_opt_len1(uint8_t *b)
{
    static const uint8_t o[4] = {0x07, 0x01, 0x00, 0x00};
    return opts_ping(b, o, sizeof(o));
}

static uint16_t c_ip_opt_len0(uint8_t *b)
{
    static const uint8_t o[4] = {0x44, 0x00, 0x00, 0x00};
    return opts_ping(b, o, sizeof(o));
}

static uint16_t c_ip_opt_past_header(uint8_t *b)
{
    static const uint8_t o[8] = {0x01, 0x07, 0x08, 0x04, 0, 0, 0, 0};
    return opts_ping(b, o, sizeof(o));
}

static uint16_t c_ip_opt_no_len_byte(uint8_t *b)
{
    static const uint8_t o[4] = {0x01, 0x01, 0x01, 0x83};
    return opts_ping(b, o, sizeof(o));
}

static uint16_t c_ip_mf(uint8_t *b)
{
    struct ipv4_spec s = ipv4_default();
    s.frag = 0x2000;
    return ping_frame(b, &s, 56);
}

static uint16_t c_ip_offset(uint8_t *b)
{
    struct ipv4_spec s = ipv4_default();
    s.frag = 185; /* last fragment: MF clear, offset 1480 */
    return ping_frame(b, &s, 56);
}

static uint16_t ping_from(uint8_t *b, uint32_t src)
{
    struct ipv4_spec s = ipv4_default();
    s.src = src;
    return ping_frame(b, &s, 8);
}

static uint16_t c_src_zero(uint8_t *b)
{
    return ping_from(b, 0);
}

static uint16_t c_src_bcast(uint8_t *b)
{
    return ping_from(b, 0xffffffffu);
}

static uint16_t c_src_mcast(uint8_t *b)
{
    return ping_from(b, IP(224, 0, 0, 1));
}

static uint16_t c_src_mcast_top(uint8_t *b)
{
    return ping_from(b, IP(239, 255, 255, 250));
}

static uint16_t c_src_subnet_bcast(uint8_t *b)
{
    return ping_from(b, SUBNET_BCAST);
}

static uint16_t c_src_ours(uint8_t *b)
{
    return ping_from(b, OUR_IP);
}

static uint16_t c_src_loopback(uint8_t *b)
{
    return ping_from(b, IP(127, 0, 0, 1));
}

static uint16_t c_dst_other(uint8_t *b)
{
    struct ipv4_spec s = ipv4_default();
    s.dst = OTHER_IP;
    return ping_frame(b, &s, 8);
}

static uint16_t c_dst_subnet_bcast(uint8_t *b)
{
    struct ipv4_spec s = ipv4_default();
    s.eth_dst = bcast_mac;
    s.dst = SUBNET_BCAST;
    return ping_frame(b, &s, 8);
}

static uint16_t c_dst_bcast(uint8_t *b)
{
    struct ipv4_spec s = ipv4_default();
    s.eth_dst = bcast_mac;
    s.dst = 0xffffffffu;
    return ping_frame(b, &s, 8);
}

static uint16_t c_proto_udp(uint8_t *b)
{
    struct ipv4_spec s = ipv4_default();
    uint8_t udp[16] = {0x30, 0x39, 0x00, 0x35, 0x00, 0x10};
    s.proto = 17;
    return ipv4_frame(b, &s, udp, sizeof(udp));
}

static uint16_t c_proto_ospf(uint8_t *b)
{
    struct ipv4_spec s = ipv4_default();
    uint8_t body[24] = {2, 1};
    s.proto = 89;
    return ipv4_frame(b, &s, body, sizeof(body));
}

static uint16_t c_tcp(uint8_t *b)
{
    struct ipv4_spec s = ipv4_default();
    return tcp_frame(b, &s, 0);
}

static uint16_t c_icmp_short(uint8_t *b)
{
    struct ipv4_spec s = ipv4_default();
    uint8_t msg[7] = {8, 0};
    return ipv4_frame(b, &s, msg, sizeof(msg));
}

/* Frame padded to 60, but the IP total length leaves only 4 ICMP bytes. */
static uint16_t c_icmp_short_padded(uint8_t *b)
{
    struct ipv4_spec s = ipv4_default();
    uint8_t msg[4] = {8, 0, 0xf7, 0xff};
    uint16_t n = ipv4_frame(b, &s, msg, sizeof(msg));
    memset(b + n, 0xaa, 60u - n);
    return 60;
}

static uint16_t c_icmp_csum_payload(uint8_t *b)
{
    uint16_t n = ping_default(b);
    b[14 + 20 + 8 + 5] ^= 0x01;
    return n;
}

static uint16_t c_icmp_csum_odd(uint8_t *b)
{
    struct ipv4_spec s = ipv4_default();
    uint16_t n = ping_frame(b, &s, 33);
    b[n - 1] ^= 0x80; /* the odd last byte, high half of its word */
    return n;
}

static uint16_t icmp_typed(uint8_t *b, uint8_t type, uint8_t code)
{
    struct ipv4_spec s = ipv4_default();
    uint8_t msg[64];
    uint16_t n = icmp_msg(msg, type, code, 28);
    return ipv4_frame(b, &s, msg, n);
}

static uint16_t c_icmp_echo_reply(uint8_t *b)
{
    return icmp_typed(b, 0, 0);
}

static uint16_t c_icmp_unreach(uint8_t *b)
{
    return icmp_typed(b, 3, 3);
}

static uint16_t c_icmp_echo_code1(uint8_t *b)
{
    return icmp_typed(b, 8, 1);
}

static uint16_t c_icmp_timestamp(uint8_t *b)
{
    return icmp_typed(b, 13, 0);
}

static const struct rx_case rx_cases[] = {
    {"empty frame", c_eth_empty, "drop_eth_short", NET_VERDICT_DROP, false},
    {"13-byte frame", c_eth_13, "drop_eth_short", NET_VERDICT_DROP, false},
    {"other unicast MAC", c_eth_other_unicast, "drop_eth_not_for_us", NET_VERDICT_DROP, false},
    {"IPv4 multicast MAC", c_eth_ipv4_multicast, "drop_eth_not_for_us", NET_VERDICT_DROP, false},
    {"IPv6 multicast MAC", c_eth_ipv6_multicast, "drop_eth_not_for_us", NET_VERDICT_DROP, false},
    {"multicast source MAC", c_eth_src_multicast, "drop_eth_bad_src", NET_VERDICT_DROP, false},
    {"broadcast source MAC", c_eth_src_broadcast, "drop_eth_bad_src", NET_VERDICT_DROP, false},
    {"802.1Q tagged", c_eth_vlan, "drop_eth_type", NET_VERDICT_DROP, false},
    {"IPv6", c_eth_ipv6, "drop_eth_type", NET_VERDICT_DROP, false},
    {"LLDP", c_eth_lldp, "drop_eth_type", NET_VERDICT_DROP, false},
    {"ARP 41 bytes", c_arp_short, "drop_arp_malformed", NET_VERDICT_DROP, false},
    {"ARP htype 6", c_arp_htype, "drop_arp_malformed", NET_VERDICT_DROP, false},
    {"ARP ptype IPv6", c_arp_ptype, "drop_arp_malformed", NET_VERDICT_DROP, false},
    {"ARP hlen 8", c_arp_hlen, "drop_arp_malformed", NET_VERDICT_DROP, false},
    {"ARP plen 16", c_arp_plen, "drop_arp_malformed", NET_VERDICT_DROP, false},
    {"ARP op 0", c_arp_op0, "drop_arp_bad_op", NET_VERDICT_DROP, false},
    {"ARP op 3 (RARP)", c_arp_op_rarp, "drop_arp_bad_op", NET_VERDICT_DROP, false},
    {"ARP sha broadcast", c_arp_sha_bcast, "drop_arp_bad_sender", NET_VERDICT_DROP, false},
    {"ARP sha multicast", c_arp_sha_mcast, "drop_arp_bad_sender", NET_VERDICT_DROP, false},
    {"ARP sha zero", c_arp_sha_zero, "drop_arp_bad_sender", NET_VERDICT_DROP, false},
    {"ARP reply spa 0", c_arp_reply_spa_zero, "drop_arp_bad_sender", NET_VERDICT_DROP, false},
    {"ARP request spa ours", c_arp_spa_ours_request, "drop_arp_bad_sender", NET_VERDICT_DROP,
     false},
    {"ARP reply spa ours", c_arp_spa_ours_reply, "drop_arp_bad_sender", NET_VERDICT_DROP, false},
    {"ARP spa multicast", c_arp_spa_mcast, "drop_arp_bad_sender", NET_VERDICT_DROP, false},
    {"ARP spa subnet bcast", c_arp_spa_subnet_bcast, "drop_arp_bad_sender", NET_VERDICT_DROP,
     false},
    {"ARP request other", c_arp_request_other, "drop_arp_not_for_us", NET_VERDICT_DROP, false},
    {"ARP request for us", arp_request_for_us, "tx_arp_reply", NET_VERDICT_TX, false},
    {"ARP reply to us", c_arp_reply, "rx_arp_reply", NET_VERDICT_DROP, false},
    {"IP 19 bytes", c_ip_short, "drop_ip_short", NET_VERDICT_DROP, false},
    {"IP version 6", c_ip_version6, "drop_ip_version", NET_VERDICT_DROP, false},
    {"IP ihl 4", c_ip_ihl4, "drop_ip_hlen", NET_VERDICT_DROP, false},
    {"IP ihl past data", c_ip_ihl_beyond, "drop_ip_hlen", NET_VERDICT_DROP, false},
    {"IP total < 20", c_ip_total_lt_hlen, "drop_ip_len", NET_VERDICT_DROP, false},
    {"IP total < ihl*4", c_ip_total_lt_hlen_opts, "drop_ip_len", NET_VERDICT_DROP, false},
    {"IP total > frame", c_ip_total_gt_frame, "drop_ip_len", NET_VERDICT_DROP, false},
    {"IP truncated", c_ip_truncated, "drop_ip_len", NET_VERDICT_DROP, false},
    {"IP csum field", c_ip_csum_field, "drop_ip_csum", NET_VERDICT_DROP, false},
    {"IP ttl changed", c_ip_csum_ttl, "drop_ip_csum", NET_VERDICT_DROP, false},
    {"IP option len 1", c_ip_opt_len1, "drop_ip_options", NET_VERDICT_DROP, false},
    {"IP option len 0", c_ip_opt_len0, "drop_ip_options", NET_VERDICT_DROP, false},
    {"IP option past hdr", c_ip_opt_past_header, "drop_ip_options", NET_VERDICT_DROP, false},
    {"IP option no len", c_ip_opt_no_len_byte, "drop_ip_options", NET_VERDICT_DROP, false},
    {"IP MF", c_ip_mf, "drop_ip_fragment", NET_VERDICT_DROP, false},
    {"IP frag offset", c_ip_offset, "drop_ip_fragment", NET_VERDICT_DROP, false},
    {"src 0.0.0.0", c_src_zero, "drop_ip_bad_src", NET_VERDICT_DROP, false},
    {"src 255.255.255.255", c_src_bcast, "drop_ip_bad_src", NET_VERDICT_DROP, false},
    {"src 224.0.0.1", c_src_mcast, "drop_ip_bad_src", NET_VERDICT_DROP, false},
    {"src 239.255.255.250", c_src_mcast_top, "drop_ip_bad_src", NET_VERDICT_DROP, false},
    {"src subnet broadcast", c_src_subnet_bcast, "drop_ip_bad_src", NET_VERDICT_DROP, false},
    {"src our own IP", c_src_ours, "drop_ip_bad_src", NET_VERDICT_DROP, false},
    {"src loopback", c_src_loopback, "drop_ip_bad_src", NET_VERDICT_DROP, false},
    {"dst other host", c_dst_other, "drop_ip_not_for_us", NET_VERDICT_DROP, false},
    {"dst subnet bcast", c_dst_subnet_bcast, "drop_ip_not_for_us", NET_VERDICT_DROP, false},
    {"dst 255.255.255.255", c_dst_bcast, "drop_ip_not_for_us", NET_VERDICT_DROP, false},
    {"UDP", c_proto_udp, "drop_ip_proto", NET_VERDICT_DROP, false},
    {"OSPF", c_proto_ospf, "drop_ip_proto", NET_VERDICT_DROP, false},
    {"TCP, no stack", c_tcp, "drop_tcp_no_stack", NET_VERDICT_DROP, false},
    {"TCP, stack", c_tcp, "rx_tcp", NET_VERDICT_TCP, true},
    {"ICMP 7 bytes", c_icmp_short, "drop_icmp_short", NET_VERDICT_DROP, false},
    {"ICMP 4 bytes, padded", c_icmp_short_padded, "drop_icmp_short", NET_VERDICT_DROP, false},
    {"ICMP payload flipped", c_icmp_csum_payload, "drop_icmp_csum", NET_VERDICT_DROP, false},
    {"ICMP odd byte flipped", c_icmp_csum_odd, "drop_icmp_csum", NET_VERDICT_DROP, false},
    {"ICMP echo reply", c_icmp_echo_reply, "drop_icmp_type", NET_VERDICT_DROP, false},
    {"ICMP unreachable", c_icmp_unreach, "drop_icmp_type", NET_VERDICT_DROP, false},
    {"ICMP echo code 1", c_icmp_echo_code1, "drop_icmp_type", NET_VERDICT_DROP, false},
    {"ICMP timestamp", c_icmp_timestamp, "drop_icmp_type", NET_VERDICT_DROP, false},
    {"ping", ping_default, "tx_icmp_echo_reply", NET_VERDICT_TX, false},
};

/* Every case gives its expected verdict and exactly its one outcome; over
 * the whole table every outcome counter has been reached, and rx_frames
 * equals the sum of outcomes. Dropped frames are left untouched. */
static void test_every_outcome(void **state)
{
    struct fixture *fx = *state;

    for (size_t i = 0; i < sizeof(rx_cases) / sizeof(rx_cases[0]); i++) {
        const struct rx_case *c = &rx_cases[i];
        uint8_t b[FRAME_MAX], orig[FRAME_MAX];
        struct net_rx_info info;

        memset(b, 0, sizeof(b));
        uint16_t len = c->build(b);
        uint16_t len0 = len;
        memcpy(orig, b, sizeof(b));
        fx->ctx.tcp_attached = c->tcp_attached;
        enum net_verdict v = run_at(&fx->ctx, b, &len, T0, &info, c->expect);
        if (v != c->verdict)
            fail_msg("%s: verdict %d, expected %d", c->what, v, c->verdict);
        if (v != NET_VERDICT_TX) {
            assert_int_equal(len, len0);
            assert_memory_equal(b, orig, sizeof(b));
        }
    }

    struct snap s;
    snap_take(&fx->ctx, &s);
    for (unsigned i = 0; i < s.n; i++)
        if (is_outcome(s.name[i]) && s.val[i] == 0)
            fail_msg("outcome %s never reached", s.name[i]);
    assert_int_equal(fx->ctx.stats.rx_frames, sizeof(rx_cases) / sizeof(rx_cases[0]));
}

/* ---- ARP ----------------------------------------------------------------- */

static void check_arp_reply(const uint8_t *r, uint16_t len, const uint8_t *to_mac, uint32_t to_ip)
{
    assert_int_equal(len, 60);
    assert_memory_equal(r, to_mac, 6);
    assert_memory_equal(r + 6, our_mac, 6);
    assert_int_equal(get16(r + 12), 0x0806);
    assert_int_equal(get16(r + 14), 1);
    assert_int_equal(get16(r + 16), 0x0800);
    assert_int_equal(r[18], 6);
    assert_int_equal(r[19], 4);
    assert_int_equal(get16(r + 20), 2);
    assert_memory_equal(r + 22, our_mac, 6);
    assert_int_equal(get32(r + 28), OUR_IP);
    assert_memory_equal(r + 32, to_mac, 6);
    assert_int_equal(get32(r + 38), to_ip);
    for (unsigned i = 42; i < 60; i++)
        assert_int_equal(r[i], 0);
}

static void test_arp_request_for_us_replies_and_learns(void **state)
{
    struct fixture *fx = *state;
    uint8_t b[FRAME_MAX];
    uint8_t got[6];

    /* 42 bytes as a host stack hands it over; the buffer has room for 60. */
    memset(b, 0x5a, sizeof(b));
    uint16_t len = arp_request_for_us(b);
    assert_int_equal(run(&fx->ctx, b, &len, "tx_arp_reply"), NET_VERDICT_TX);
    check_arp_reply(b, len, peer_mac, PEER_IP);
    assert_int_equal(fx->ctx.stats.rx_arp_request, 1);

    /* The requester was learnt. */
    assert_int_equal(arp_cache_lookup(fx->arp, PEER_IP, T0, got), 0);
    assert_memory_equal(got, peer_mac, 6);

    /* Padded on the wire with junk: the reply's padding is still zero and
     * the reply is 60 bytes, not the request's length. */
    memset(b, 0, sizeof(b));
    len = arp_request_for_us(b);
    memset(b + len, 0xee, 80u - len);
    len = 80;
    assert_int_equal(run(&fx->ctx, b, &len, "tx_arp_reply"), NET_VERDICT_TX);
    check_arp_reply(b, len, peer_mac, PEER_IP);
    assert_int_equal(fx->ctx.stats.rx_arp_request, 2);
}

/* Unicast request (a host re-validating its entry) is answered too, and the
 * reply goes to the sender hardware address. */
static void test_arp_unicast_request(void **state)
{
    struct fixture *fx = *state;
    uint8_t b[FRAME_MAX] = {0};
    uint16_t len = arp_frame(b, our_mac, 1, other_mac, OTHER_IP, our_mac, OUR_IP);

    assert_int_equal(run(&fx->ctx, b, &len, "tx_arp_reply"), NET_VERDICT_TX);
    check_arp_reply(b, len, other_mac, OTHER_IP);
}

/* RFC 5227 probe: spa 0. Answered (as Linux does) so the prober sees the
 * conflict, but nothing is learnt: 0.0.0.0 is nobody's address. */
static void test_arp_probe(void **state)
{
    struct fixture *fx = *state;
    uint8_t b[FRAME_MAX] = {0};
    uint16_t len = arp_frame(b, bcast_mac, 1, other_mac, 0, zero_mac, OUR_IP);

    assert_int_equal(run(&fx->ctx, b, &len, "tx_arp_reply"), NET_VERDICT_TX);
    check_arp_reply(b, len, other_mac, 0);
    assert_int_equal(arp_cache_count(fx->arp), 0);

    /* A probe for someone else's address: not ours to answer. */
    len = arp_frame(b, bcast_mac, 1, other_mac, 0, zero_mac, OTHER_IP);
    assert_int_equal(run(&fx->ctx, b, &len, "drop_arp_not_for_us"), NET_VERDICT_DROP);
    assert_int_equal(arp_cache_count(fx->arp), 0);
}

/* A request for another host only merges what we already know (RFC 826). */
static void test_arp_request_other_refreshes_only(void **state)
{
    struct fixture *fx = *state;
    uint8_t b[FRAME_MAX] = {0};
    uint8_t got[6];
    static const uint8_t new_mac[6] = {0x02, 0xaa, 0, 0, 0, 0x01};

    uint16_t len = arp_frame(b, bcast_mac, 1, other_mac, OTHER_IP, zero_mac, PEER_IP);
    assert_int_equal(run(&fx->ctx, b, &len, "drop_arp_not_for_us"), NET_VERDICT_DROP);
    assert_int_equal(arp_cache_lookup(fx->arp, OTHER_IP, T0, got), -ENOENT);
    assert_int_equal(arp_cache_count(fx->arp), 0);

    assert_int_equal(arp_cache_update(fx->arp, OTHER_IP, other_mac, T0), 0);
    len = arp_frame(b, bcast_mac, 1, new_mac, OTHER_IP, zero_mac, PEER_IP);
    assert_int_equal(run_at(&fx->ctx, b, &len, T0 + 100, NULL, "drop_arp_not_for_us"),
                     NET_VERDICT_DROP);
    assert_int_equal(arp_cache_lookup(fx->arp, OTHER_IP, T0 + 100, got), 0);
    assert_memory_equal(got, new_mac, 6);
    /* Refreshed at T0 + 100, so alive until T0 + 100 + timeout. */
    assert_int_equal(arp_cache_lookup(fx->arp, OTHER_IP, T0 + ARP_TIMEOUT + 50, got), 0);
}

/* Gratuitous ARP (spa == tpa), request or reply form: updates a known peer
 * that moved, never creates entries. */
static void test_arp_gratuitous(void **state)
{
    struct fixture *fx = *state;
    uint8_t b[FRAME_MAX] = {0};
    uint8_t got[6];
    static const uint8_t moved[6] = {0x02, 0xbb, 0, 0, 0, 0x01};

    uint16_t len = arp_frame(b, bcast_mac, 1, other_mac, OTHER_IP, zero_mac, OTHER_IP);
    assert_int_equal(run(&fx->ctx, b, &len, "drop_arp_not_for_us"), NET_VERDICT_DROP);
    len = arp_frame(b, bcast_mac, 2, other_mac, OTHER_IP, bcast_mac, OTHER_IP);
    assert_int_equal(run(&fx->ctx, b, &len, "rx_arp_reply"), NET_VERDICT_DROP);
    assert_int_equal(arp_cache_count(fx->arp), 0);

    assert_int_equal(arp_cache_update(fx->arp, PEER_IP, peer_mac, T0), 0);
    len = arp_frame(b, bcast_mac, 1, moved, PEER_IP, zero_mac, PEER_IP);
    assert_int_equal(run(&fx->ctx, b, &len, "drop_arp_not_for_us"), NET_VERDICT_DROP);
    assert_int_equal(arp_cache_lookup(fx->arp, PEER_IP, T0, got), 0);
    assert_memory_equal(got, moved, 6);

    len = arp_frame(b, bcast_mac, 2, peer_mac, PEER_IP, bcast_mac, PEER_IP);
    assert_int_equal(run(&fx->ctx, b, &len, "rx_arp_reply"), NET_VERDICT_DROP);
    assert_int_equal(arp_cache_lookup(fx->arp, PEER_IP, T0, got), 0);
    assert_memory_equal(got, peer_mac, 6);
    assert_int_equal(arp_cache_count(fx->arp), 1);
}

/* A reply to us completes the entry our request left incomplete; a reply
 * overheard for someone else teaches us nothing new. */
static void test_arp_reply_consumed(void **state)
{
    struct fixture *fx = *state;
    uint8_t b[FRAME_MAX] = {0};
    uint8_t got[6];

    assert_true(arp_cache_should_request(fx->arp, PEER_IP, T0));
    assert_int_equal(arp_cache_lookup(fx->arp, PEER_IP, T0, got), -ENOENT);
    uint16_t len = arp_frame(b, our_mac, 2, peer_mac, PEER_IP, our_mac, OUR_IP);
    assert_int_equal(run(&fx->ctx, b, &len, "rx_arp_reply"), NET_VERDICT_DROP);
    assert_int_equal(arp_cache_lookup(fx->arp, PEER_IP, T0, got), 0);
    assert_memory_equal(got, peer_mac, 6);

    len = arp_frame(b, bcast_mac, 2, other_mac, OTHER_IP, peer_mac, PEER_IP);
    assert_int_equal(run(&fx->ctx, b, &len, "rx_arp_reply"), NET_VERDICT_DROP);
    assert_int_equal(arp_cache_lookup(fx->arp, OTHER_IP, T0, got), -ENOENT);
    assert_int_equal(fx->ctx.stats.rx_arp_reply, 2);
}

/* Refused senders must not reach the cache. */
static void test_arp_bad_sender_not_learnt(void **state)
{
    struct fixture *fx = *state;
    uint8_t b[FRAME_MAX] = {0};
    uint8_t got[6];

    uint16_t len = c_arp_spa_ours_reply(b);
    assert_int_equal(run(&fx->ctx, b, &len, "drop_arp_bad_sender"), NET_VERDICT_DROP);
    len = c_arp_sha_mcast(b);
    assert_int_equal(run(&fx->ctx, b, &len, "drop_arp_bad_sender"), NET_VERDICT_DROP);
    assert_int_equal(arp_cache_count(fx->arp), 0);
    assert_int_equal(arp_cache_lookup(fx->arp, OUR_IP, T0, got), -ENOENT);
}

static void test_build_arp_request(void **state)
{
    struct fixture *fx = *state;
    uint8_t b[FRAME_MAX];

    memset(b, 0x77, sizeof(b));
    uint16_t len = net_build_arp_request(&fx->ctx, PEER_IP, b);
    assert_int_equal(len, 60);
    assert_memory_equal(b, bcast_mac, 6);
    assert_memory_equal(b + 6, our_mac, 6);
    assert_int_equal(get16(b + 12), 0x0806);
    assert_int_equal(get16(b + 14), 1);
    assert_int_equal(get16(b + 16), 0x0800);
    assert_int_equal(b[18], 6);
    assert_int_equal(b[19], 4);
    assert_int_equal(get16(b + 20), 1);
    assert_memory_equal(b + 22, our_mac, 6);
    assert_int_equal(get32(b + 28), OUR_IP);
    assert_memory_equal(b + 32, zero_mac, 6);
    assert_int_equal(get32(b + 38), PEER_IP);
    for (unsigned i = 42; i < 60; i++)
        assert_int_equal(b[i], 0);
    assert_int_equal(b[60], 0x77); /* nothing written past the frame */
    assert_int_equal(fx->ctx.stats.tx_arp_request, 1);

    /* Gratuitous: target is our own address. */
    len = net_build_arp_request(&fx->ctx, OUR_IP, b);
    assert_int_equal(len, 60);
    assert_int_equal(get32(b + 28), OUR_IP);
    assert_int_equal(get32(b + 38), OUR_IP);
    assert_int_equal(fx->ctx.stats.tx_arp_request, 2);
    /* Building is not receiving. */
    assert_int_equal(fx->ctx.stats.rx_frames, 0);
}

/* Two net contexts talk ARP to each other: A asks, B answers, A learns. */
static void test_arp_round_trip(void **state)
{
    struct fixture *fx = *state;
    struct arp_cache *arp_b = arp_cache_create(8, ARP_TIMEOUT);
    struct net_ctx b_ctx;
    uint8_t f[FRAME_MAX];
    uint8_t got[6];

    assert_non_null(arp_b);
    assert_int_equal(net_ctx_init(&b_ctx, peer_mac, PEER_IP, 24, arp_b), 0);

    uint16_t len = net_build_arp_request(&fx->ctx, PEER_IP, f);
    assert_int_equal(run(&b_ctx, f, &len, "tx_arp_reply"), NET_VERDICT_TX);
    assert_int_equal(arp_cache_lookup(arp_b, OUR_IP, T0, got), 0);
    assert_memory_equal(got, our_mac, 6);

    assert_int_equal(run(&fx->ctx, f, &len, "rx_arp_reply"), NET_VERDICT_DROP);
    assert_int_equal(arp_cache_lookup(fx->arp, PEER_IP, T0, got), 0);
    assert_memory_equal(got, peer_mac, 6);
    check_invariant(&b_ctx);
    arp_cache_destroy(arp_b);
}

/* ---- ICMP echo ------------------------------------------------------------ */

/* Check a reply against the request it answers, field by field. */
static void check_echo_reply(const uint8_t *req, const uint8_t *rep, uint16_t rep_len)
{
    const uint8_t *rq_ip = req + 14;
    unsigned rq_hlen = (rq_ip[0] & 0xfu) * 4;
    unsigned icmp_len = get16(rq_ip + 2) - rq_hlen;
    const uint8_t *rq_icmp = rq_ip + rq_hlen;
    const uint8_t *ip = rep + 14;
    const uint8_t *icmp = ip + 20;
    unsigned frame = 14 + 20 + icmp_len;

    assert_int_equal(rep_len, frame < 60 ? 60 : frame);
    assert_memory_equal(rep, req + 6, 6); /* back to whoever sent it */
    assert_memory_equal(rep + 6, our_mac, 6);
    assert_int_equal(get16(rep + 12), 0x0800);

    assert_int_equal(ip[0], 0x45); /* options stripped */
    assert_int_equal(ip[1], rq_ip[1]);
    assert_int_equal(get16(ip + 2), 20 + icmp_len);
    assert_int_equal(get16(ip + 4), get16(rq_ip + 4));
    assert_int_equal(get16(ip + 6), get16(rq_ip + 6) & 0x4000);
    assert_int_equal(ip[8], 64);
    assert_int_equal(ip[9], 1);
    assert_int_equal(get32(ip + 12), OUR_IP);
    assert_int_equal(get32(ip + 16), get32(rq_ip + 12));
    assert_int_equal(net_cksum(ip, 20), 0);

    assert_int_equal(icmp[0], 0);
    assert_int_equal(icmp[1], 0);
    /* id, seq and data echoed unchanged */
    assert_memory_equal(icmp + 4, rq_icmp + 4, icmp_len - 4);
    assert_int_equal(net_cksum(icmp, icmp_len), 0);

    for (unsigned i = frame; i < rep_len; i++)
        assert_int_equal(rep[i], 0);
}

static void ping_and_check(struct fixture *fx, uint8_t *b, uint16_t len)
{
    uint8_t req[FRAME_MAX];
    memcpy(req, b, FRAME_MAX);
    uint64_t echo = fx->ctx.stats.rx_icmp_echo;

    assert_int_equal(run(&fx->ctx, b, &len, "tx_icmp_echo_reply"), NET_VERDICT_TX);
    check_echo_reply(req, b, len);
    assert_int_equal(fx->ctx.stats.rx_icmp_echo, echo + 1);
}

static void test_ping_reply(void **state)
{
    struct fixture *fx = *state;
    uint8_t b[FRAME_MAX] = {0};
    struct ipv4_spec s = ipv4_default();

    ping_and_check(fx, b, ping_frame(b, &s, 56));
    /* Without DF; odd payload length (the checksum's odd-byte path). */
    s.frag = 0;
    ping_and_check(fx, b, ping_frame(b, &s, 33));
    /* Largest for a 1500 MTU. */
    ping_and_check(fx, b, ping_frame(b, &s, 1472));
    /* The reserved flag is not echoed; DF is. */
    s.frag = 0x8000 | 0x4000;
    ping_and_check(fx, b, ping_frame(b, &s, 8));
    /* The reply does not need the ARP cache, nor does it fill it. */
    assert_int_equal(arp_cache_count(fx->arp), 0);
}

/* Minimum frame: a 60-byte frame carries a 28-byte IP packet plus 18 bytes
 * of Ethernet padding, which must not be mistaken for ICMP data. */
static void test_ping_padded_min_frame(void **state)
{
    struct fixture *fx = *state;
    uint8_t b[FRAME_MAX] = {0};
    struct ipv4_spec s = ipv4_default();

    uint16_t len = ping_frame(b, &s, 0);
    assert_int_equal(len, 42);
    memset(b + len, 0xa5, 60u - len);
    ping_and_check(fx, b, 60);

    /* Same packet unpadded (42 bytes, room for 60): padded reply. */
    memset(b, 0xcc, sizeof(b));
    len = ping_frame(b, &s, 0);
    ping_and_check(fx, b, len);
}

static void test_ping_with_options_stripped(void **state)
{
    struct fixture *fx = *state;
    uint8_t b[FRAME_MAX] = {0};
    struct ipv4_spec s = ipv4_default();
    /* NOP, record route (len 7, pointer 4, one slot), EOL, 3 bytes after EOL. */
    static const uint8_t rr[12] = {0x01, 0x07, 0x07, 0x04, 0, 0, 0, 0, 0x00, 0xde, 0xad, 0x00};
    /* Timestamp option filling the whole 40 bytes. */
    uint8_t ts[40] = {0x44, 40, 5, 0};

    memcpy(s.opts, rr, sizeof(rr));
    s.opts_len = sizeof(rr);
    ping_and_check(fx, b, ping_frame(b, &s, 56));

    memcpy(s.opts, ts, sizeof(ts));
    s.opts_len = sizeof(ts);
    ping_and_check(fx, b, ping_frame(b, &s, 3));

    /* Options shrink a small packet under 60 bytes: reply padded with zeros. */
    memset(b, 0xff, sizeof(b));
    ping_and_check(fx, b, ping_frame(b, &s, 0));
}

/* ---- TCP hand-off ---------------------------------------------------------- */

static void test_tcp_handoff(void **state)
{
    struct fixture *fx = *state;
    uint8_t b[FRAME_MAX] = {0};
    struct net_rx_info info;
    struct ipv4_spec s = ipv4_default();

    fx->ctx.tcp_attached = true;

    uint16_t len = tcp_frame(b, &s, 100);
    memset(&info, 0xff, sizeof(info));
    assert_int_equal(run_at(&fx->ctx, b, &len, T0, &info, "rx_tcp"), NET_VERDICT_TCP);
    assert_int_equal(info.l3_off, 14);
    assert_int_equal(info.l4_off, 34);
    assert_int_equal(info.l4_len, 120);
    assert_int_equal(len, 154);

    /* With options, and padded: the lengths come from the IP header. */
    s.opts[0] = 0x01;
    s.opts[1] = 0x01;
    s.opts[2] = 0x01;
    s.opts[3] = 0x00;
    s.opts_len = 4;
    len = tcp_frame(b, &s, 0);
    assert_int_equal(len, 58);
    memset(b + len, 0x33, 2);
    len = 60;
    assert_int_equal(run_at(&fx->ctx, b, &len, T0, &info, "rx_tcp"), NET_VERDICT_TCP);
    assert_int_equal(info.l3_off, 14);
    assert_int_equal(info.l4_off, 38);
    assert_int_equal(info.l4_len, 20);

    /* No place to put the result: counted, not delivered. */
    len = tcp_frame(b, &s, 0);
    assert_int_equal(run_at(&fx->ctx, b, &len, T0, NULL, "drop_tcp_no_stack"),
                     NET_VERDICT_DROP);

    fx->ctx.tcp_attached = false;
    len = tcp_frame(b, &s, 0);
    assert_int_equal(run_at(&fx->ctx, b, &len, T0, &info, "drop_tcp_no_stack"),
                     NET_VERDICT_DROP);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_ctx_init_validates),
        T(test_on_link),
        T(test_stats_foreach_visits_every_counter),
        T(test_every_outcome),
        T(test_arp_request_for_us_replies_and_learns),
        T(test_arp_unicast_request),
        T(test_arp_probe),
        T(test_arp_request_other_refreshes_only),
        T(test_arp_gratuitous),
        T(test_arp_reply_consumed),
        T(test_arp_bad_sender_not_learnt),
        T(test_build_arp_request),
        T(test_arp_round_trip),
        T(test_ping_reply),
        T(test_ping_padded_min_frame),
        T(test_ping_with_options_stripped),
        T(test_tcp_handoff),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
