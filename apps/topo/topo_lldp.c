/* topo_lldp: see topo_lldp.h. */
#include "topo_lldp.h"

#include <stdbool.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#define TLV_END 0
#define TLV_CHASSIS 1
#define TLV_PORT 2
#define TLV_TTL 3
#define TLV_ORG 127
#define SUBTYPE_LOCAL 7
#define OFCD_SUBTYPE 1                  /* a probe on schedule */
#define OFCD_SUBTYPE_ASK 2              /* a port just came up: answer at once */
#define TAG_LEN 8

static const uint8_t lldp_dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e};

static void put_be(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static uint64_t get_be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

static uint8_t *tlv(uint8_t *p, unsigned type, unsigned len)
{
    p[0] = (uint8_t)(type << 1 | len >> 8);
    p[1] = (uint8_t)len;
    return p + 2;
}

static void make_tag(const uint8_t key[TOPO_LLDP_KEY_LEN], uint64_t dpid, uint32_t port,
                     uint64_t sent_us, uint8_t subtype, uint8_t tag[TAG_LEN])
{
    uint8_t msg[21], mac[32];
    unsigned n = sizeof(mac);

    put_be(msg, dpid, 8);
    put_be(msg + 8, port, 4);
    put_be(msg + 12, sent_us, 8);
    msg[20] = subtype;
    HMAC(EVP_sha256(), key, TOPO_LLDP_KEY_LEN, msg, sizeof(msg), mac, &n);
    memcpy(tag, mac, TAG_LEN);
}

size_t topo_lldp_build(uint8_t *buf, const uint8_t src_mac[6], uint16_t vlan, uint64_t dpid,
                       uint32_t port, uint64_t sent_us, bool ask,
                       const uint8_t key[TOPO_LLDP_KEY_LEN])
{
    uint8_t *p = buf;
    uint8_t subtype = ask ? OFCD_SUBTYPE_ASK : OFCD_SUBTYPE;

    memcpy(p, lldp_dst, 6);
    memcpy(p + 6, src_mac, 6);
    p += 12;
    if (vlan) {
        put_be(p, 0x8100, 2);
        put_be(p + 2, vlan & 0x0fffu, 2);       /* priority 0, as Kytos' */
        p += 4;
    }
    put_be(p, TOPO_LLDP_ETHERTYPE, 2);
    p += 2;
    p = tlv(p, TLV_CHASSIS, 9);
    *p++ = SUBTYPE_LOCAL;
    put_be(p, dpid, 8);
    p += 8;
    p = tlv(p, TLV_PORT, 5);
    *p++ = SUBTYPE_LOCAL;
    put_be(p, port, 4);
    p += 4;
    p = tlv(p, TLV_TTL, 2);
    put_be(p, 120, 2);
    p += 2;
    p = tlv(p, TLV_ORG, 4 + 8 + TAG_LEN);
    put_be(p, TOPO_LLDP_OUI, 3);
    p[3] = subtype;
    put_be(p + 4, sent_us, 8);
    make_tag(key, dpid, port, sent_us, subtype, p + 12);
    p += 12 + TAG_LEN;
    p = tlv(p, TLV_END, 0);
    size_t len = (size_t)(p - buf);
    memset(p, 0, TOPO_LLDP_FRAME_LEN - len);    /* padded to Ethernet's minimum */
    return TOPO_LLDP_FRAME_LEN;
}

bool topo_lldp_is_lldp(const uint8_t *f, size_t len)
{
    if (len >= 18 && get_be(f + 12, 2) == 0x8100)
        return get_be(f + 16, 2) == TOPO_LLDP_ETHERTYPE;
    return len >= 14 && get_be(f + 12, 2) == TOPO_LLDP_ETHERTYPE;
}

enum topo_lldp_verdict topo_lldp_parse(const uint8_t *f, size_t len,
                                       const uint8_t key[TOPO_LLDP_KEY_LEN], uint64_t now_us,
                                       uint64_t max_age_us, uint64_t skew_us,
                                       struct topo_lldp_id *id)
{
    size_t off = 12;
    bool chassis = false, port = false, ttl = false, tagged = false;
    uint8_t tag[TAG_LEN], subtype = 0;

    memset(id, 0, sizeof(*id));
    if (len < 14)
        return TOPO_LLDP_MALFORMED;
    if (get_be(f + 12, 2) == 0x8100) {          /* one VLAN tag (Kytos tags its own) */
        if (len < 18)
            return TOPO_LLDP_MALFORMED;
        off = 16;
    }
    if (get_be(f + off, 2) != TOPO_LLDP_ETHERTYPE)
        return TOPO_LLDP_NOT_LLDP;
    off += 2;
    for (unsigned n = 0;; n++) {
        if (off + 2 > len)
            return TOPO_LLDP_MALFORMED;         /* no End TLV */
        unsigned type = f[off] >> 1, tlen = (unsigned)(f[off] & 1) << 8 | f[off + 1];
        const uint8_t *v = f + off + 2;
        off += 2;
        if (off + tlen > len)
            return TOPO_LLDP_MALFORMED;
        off += tlen;
        /* 802.1AB: Chassis ID, Port ID, TTL first, in that order. */
        if ((n == 0 && type != TLV_CHASSIS) || (n == 1 && type != TLV_PORT) ||
            (n == 2 && type != TLV_TTL))
            return TOPO_LLDP_MALFORMED;
        if (type == TLV_END)
            break;
        if (type == TLV_CHASSIS) {
            if (tlen < 2)
                return TOPO_LLDP_MALFORMED;
            if (v[0] == SUBTYPE_LOCAL && tlen == 9) {
                id->dpid = get_be(v + 1, 8);
                chassis = true;
            }
        } else if (type == TLV_PORT) {
            if (tlen < 2)
                return TOPO_LLDP_MALFORMED;
            if (v[0] == SUBTYPE_LOCAL && tlen == 5) {
                id->port = (uint32_t)get_be(v + 1, 4);
                port = true;
            }
        } else if (type == TLV_TTL) {
            if (tlen != 2)
                return TOPO_LLDP_MALFORMED;
            ttl = true;
        } else if (type == TLV_ORG && tlen == 4 + 8 + TAG_LEN &&
                   get_be(v, 3) == TOPO_LLDP_OUI &&
                   (v[3] == OFCD_SUBTYPE || v[3] == OFCD_SUBTYPE_ASK)) {
            subtype = v[3];
            id->ask = v[3] == OFCD_SUBTYPE_ASK;
            id->sent_us = get_be(v + 4, 8);
            memcpy(tag, v + 12, TAG_LEN);
            tagged = true;
        }
    }
    if (!ttl)
        return TOPO_LLDP_MALFORMED;
    if (!chassis || !port || !tagged)
        return TOPO_LLDP_FOREIGN;               /* not in the form ofcd sends */
    uint8_t want[TAG_LEN];
    make_tag(key, id->dpid, id->port, id->sent_us, subtype, want);
    if (CRYPTO_memcmp(want, tag, TAG_LEN) != 0)
        return TOPO_LLDP_FOREIGN;
    if (id->sent_us > now_us + skew_us ||
        (id->sent_us < now_us && now_us - id->sent_us > max_age_us))
        return TOPO_LLDP_STALE;
    return TOPO_LLDP_OURS;
}
