/*
 * tcp_isn: the keyed hash behind initial sequence numbers (RFC 6528), SYN
 * cookies, per-connection timestamp offsets and the stack's random numbers
 * (the challenge ACK budget).
 *
 * SipHash-2-4 (Aumasson & Bernstein) keyed with the stack's secret: short
 * inputs, strong enough that an off-path attacker cannot predict ISNs or
 * forge cookies.
 *
 * Cookie layout (32 bits, sent as our ISS):
 *   [31..27] time slot t = now / 64 s, mod 32  (valid for the current and previous slot)
 *   [26..24] index of the MSS in tcp_cookie_mss[]
 *   [23..0]  SipHash(tuple, irs, t, index) truncated
 */
#include <errno.h>
#include <string.h>

#include "tcp_priv.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static inline uint64_t load64_le(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static inline void sip_round(uint64_t v[4])
{
    v[0] += v[1];
    v[1] = ROTL(v[1], 13);
    v[1] ^= v[0];
    v[0] = ROTL(v[0], 32);
    v[2] += v[3];
    v[3] = ROTL(v[3], 16);
    v[3] ^= v[2];
    v[0] += v[3];
    v[3] = ROTL(v[3], 21);
    v[3] ^= v[0];
    v[2] += v[1];
    v[1] = ROTL(v[1], 17);
    v[1] ^= v[2];
    v[2] = ROTL(v[2], 32);
}

uint64_t tcp_siphash(const uint8_t key[16], const void *data, size_t len)
{
    const uint8_t *in = data;
    uint64_t k0 = load64_le(key), k1 = load64_le(key + 8);
    uint64_t v[4] = {
        k0 ^ 0x736f6d6570736575ULL,
        k1 ^ 0x646f72616e646f6dULL,
        k0 ^ 0x6c7967656e657261ULL,
        k1 ^ 0x7465646279746573ULL,
    };
    size_t full = len & ~(size_t)7;

    for (size_t i = 0; i < full; i += 8) {
        uint64_t m = load64_le(in + i);
        v[3] ^= m;
        sip_round(v);
        sip_round(v);
        v[0] ^= m;
    }
    uint64_t last = (uint64_t)len << 56;
    for (size_t i = 0; i < (len & 7); i++)
        last |= (uint64_t)in[full + i] << (8 * i);
    v[3] ^= last;
    sip_round(v);
    sip_round(v);
    v[0] ^= last;
    v[2] ^= 0xff;
    for (int r = 0; r < 4; r++)
        sip_round(v);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

struct tuple_input {
    uint32_t lip, rip;
    uint16_t lport, rport;
    uint32_t extra;      /* irs for cookies, a domain tag otherwise */
    uint32_t slot;
    uint32_t idx;
};

static uint64_t tuple_hash(const struct tcp_stack *s, uint32_t rip, uint16_t rport,
                           uint16_t lport, uint32_t extra, uint32_t slot, uint32_t idx)
{
    struct tuple_input in;

    memset(&in, 0, sizeof(in));
    in.lip = s->ip;
    in.rip = rip;
    in.lport = lport;
    in.rport = rport;
    in.extra = extra;
    in.slot = slot;
    in.idx = idx;
    return tcp_siphash(s->secret, &in, sizeof(in));
}

uint32_t tcp_isn(struct tcp_stack *s, uint32_t rip, uint16_t rport, uint16_t lport,
                 uint64_t now_us)
{
    if (s->force_iss) {
        s->force_iss = false;
        return s->forced_iss;
    }
    /* RFC 6528: M (a 4 µs clock) + F(tuple, secret). */
    return (uint32_t)(now_us / 4) + (uint32_t)tuple_hash(s, rip, rport, lport, 0x15, 0, 0);
}

uint32_t tcp_random(struct tcp_stack *s)
{
    uint64_t in[2] = {s->rand_count++, 0x726e64};    /* a tag of its own: no ISN collides */

    return (uint32_t)tcp_siphash(s->secret, in, sizeof(in));
}

static const uint16_t tcp_cookie_mss[8] = {536, 1220, 1300, 1400, 1440, 1452, 1460, 8960};

#define COOKIE_SLOT_US (64ULL * 1000000ULL)

uint32_t tcp_cookie_make(struct tcp_stack *s, uint32_t rip, uint16_t rport, uint16_t lport,
                         uint32_t irs, uint16_t peer_mss, uint64_t now_us)
{
    uint32_t idx = 0;
    for (uint32_t i = 0; i < 8; i++)
        if (tcp_cookie_mss[i] <= peer_mss)
            idx = i;
    uint32_t slot = (uint32_t)(now_us / COOKIE_SLOT_US) & 31u;
    uint32_t mac = (uint32_t)tuple_hash(s, rip, rport, lport, irs, slot, idx) & 0xffffffu;
    return (slot << 27) | (idx << 24) | mac;
}

int tcp_cookie_check(struct tcp_stack *s, uint32_t rip, uint16_t rport, uint16_t lport,
                     uint32_t irs, uint32_t cookie, uint64_t now_us)
{
    uint32_t slot = cookie >> 27;
    uint32_t idx = (cookie >> 24) & 7u;
    uint32_t now_slot = (uint32_t)(now_us / COOKIE_SLOT_US) & 31u;
    uint32_t age = (now_slot - slot) & 31u;

    if (age > 1)
        return -EINVAL;
    uint32_t mac = (uint32_t)tuple_hash(s, rip, rport, lport, irs, slot, idx) & 0xffffffu;
    if (mac != (cookie & 0xffffffu))
        return -EINVAL;
    return tcp_cookie_mss[idx];
}
