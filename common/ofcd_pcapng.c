/* ofcd_pcapng: see ofcd_pcapng.h. Block layouts are pcapng's (the IETF
 * draft "PCAP Next Generation Dump File Format"); frames are Ethernet II,
 * IPv4 without options, TCP without options. */
#include "ofcd_pcapng.h"
#include "ofcd_inet.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BT_SHB 0x0A0D0D0Au
#define BT_IDB 0x00000001u
#define BT_EPB 0x00000006u
#define LINKTYPE_ETHERNET 1u
#define OPT_END 0u
#define OPT_COMMENT 1u
#define IF_TSRESOL 9u
#define EPB_FLAGS 2u
#define EPB_INBOUND 1u
#define EPB_OUTBOUND 2u

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_PSH 0x08
#define TCP_ACK 0x10
#define HDRS (14u + 20u + 20u)

/* Initial sequence numbers: any will do; fixed, so a capture of the same
 * records is the same file. */
#define ISN_SWITCH 0x5ca1ab1eu
#define ISN_OFCD 0x0fcd0001u

static uint8_t *room(struct ofcd_pcapng *w, size_t n)
{
    if (w->err)
        return NULL;
    if (w->len + n > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap < w->len + n)
            cap *= 2;
        uint8_t *p = realloc(w->p, cap);
        if (!p) {
            w->err = -ENOMEM;
            return NULL;
        }
        w->p = p;
        w->cap = cap;
    }
    uint8_t *at = w->p + w->len;
    w->len += n;
    return at;
}

static void le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void le32(uint8_t *p, uint32_t v)
{
    le16(p, (uint16_t)v);
    le16(p + 2, (uint16_t)(v >> 16));
}

static void be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void be32(uint8_t *p, uint32_t v)
{
    be16(p, (uint16_t)(v >> 16));
    be16(p + 2, (uint16_t)v);
}

static size_t pad4(size_t n)
{
    return (n + 3) & ~(size_t)3;
}

/* One option: code, length, value, zero padding. */
static void option(struct ofcd_pcapng *w, uint16_t code, const void *v, size_t n)
{
    uint8_t *p = room(w, 4 + pad4(n));

    if (!p)
        return;
    le16(p, code);
    le16(p + 2, (uint16_t)n);
    memset(p + 4, 0, pad4(n));
    if (n)
        memcpy(p + 4, v, n);
}

/* A block's head (type, room for its length); its end writes the length
 * at both ends. */
static size_t block_open(struct ofcd_pcapng *w, uint32_t type)
{
    size_t at = w->len;
    uint8_t *p = room(w, 8);

    if (p)
        le32(p, type);
    return at;
}

static void block_close(struct ofcd_pcapng *w, size_t at)
{
    uint8_t *p = room(w, 4);

    if (!p)
        return;
    uint32_t total = (uint32_t)(w->len - at);
    le32(w->p + at + 4, total);
    le32(p, total);
}

/* The frame of one segment into f (HDRS + n bytes). */
static void frame(struct ofcd_pcapng *w, bool to_ofcd, uint8_t flags, const uint8_t *data,
                  size_t n, uint8_t *f)
{
    const struct ofcd_pcapng_ends *e = &w->ends;
    /* Locally administered MACs that carry each end's IPv4 address. */
    uint8_t mac[2][6] = {{0x02, 0x00}, {0x02, 0x00}};
    be32(mac[0] + 2, e->switch_ip);
    be32(mac[1] + 2, e->ofcd_ip);
    int src = to_ofcd ? 0 : 1;

    memcpy(f, mac[1 - src], 6);
    memcpy(f + 6, mac[src], 6);
    be16(f + 12, 0x0800);

    uint8_t *ip = f + 14;
    memset(ip, 0, 20);
    ip[0] = 0x45;
    be16(ip + 2, (uint16_t)(40 + n));
    be16(ip + 4, w->ip_id++);
    ip[6] = 0x40;                               /* DF */
    ip[8] = 64;
    ip[9] = 6;
    be32(ip + 12, to_ofcd ? e->switch_ip : e->ofcd_ip);
    be32(ip + 16, to_ofcd ? e->ofcd_ip : e->switch_ip);
    be16(ip + 10, ofcd_inet_csum_fold(ofcd_inet_csum_add(0, ip, 20)));

    uint8_t *tcp = ip + 20;
    uint32_t *seq = &w->seq[src], ack = w->seq[1 - src];
    memset(tcp, 0, 20);
    be16(tcp, to_ofcd ? e->switch_port : e->ofcd_port);
    be16(tcp + 2, to_ofcd ? e->ofcd_port : e->switch_port);
    be32(tcp + 4, *seq);
    be32(tcp + 8, (flags & TCP_ACK) ? ack : 0);
    tcp[12] = 5 << 4;
    tcp[13] = flags;
    be16(tcp + 14, 65535);
    if (n)
        memcpy(tcp + 20, data, n);
    uint8_t pseudo[12];
    memcpy(pseudo, ip + 12, 8);
    pseudo[8] = 0;
    pseudo[9] = 6;
    be16(pseudo + 10, (uint16_t)(20 + n));
    uint32_t sum = ofcd_inet_csum_add(ofcd_inet_csum_add(0, pseudo, 12), tcp, 20 + n);
    be16(tcp + 16, ofcd_inet_csum_fold(sum));
    *seq += (uint32_t)n + ((flags & (TCP_SYN | TCP_FIN)) ? 1u : 0u);
}

/* One Enhanced Packet Block holding one segment. */
static void segment(struct ofcd_pcapng *w, bool to_ofcd, uint8_t flags, uint64_t t_ns,
                    const uint8_t *data, size_t n)
{
    size_t start = w->len, at = block_open(w, BT_EPB), flen = HDRS + n;
    uint8_t *p = room(w, 20 + pad4(flen));

    if (!p) {
        w->len = start;                         /* no half-written block */
        return;
    }
    le32(p, 0);                                 /* the one interface */
    le32(p + 4, (uint32_t)(t_ns >> 32));
    le32(p + 8, (uint32_t)t_ns);
    le32(p + 12, (uint32_t)flen);
    le32(p + 16, (uint32_t)flen);
    memset(p + 20, 0, pad4(flen));
    frame(w, to_ofcd, flags, data, n, p + 20);
    uint8_t dir[4];
    le32(dir, to_ofcd ? EPB_INBOUND : EPB_OUTBOUND);
    option(w, EPB_FLAGS, dir, 4);
    option(w, OPT_END, NULL, 0);
    block_close(w, at);
    if (w->err) {
        w->len = start;
        return;
    }
    w->frames++;
}

int ofcd_pcapng_begin(struct ofcd_pcapng *w, const struct ofcd_pcapng_ends *ends,
                      const char *comment, uint64_t t_ns)
{
    memset(w, 0, sizeof(*w));
    if (!ends || (comment && strlen(comment) > OFCD_PCAPNG_COMMENT_MAX))
        return w->err = -EINVAL;
    w->ends = *ends;
    w->seq[0] = ISN_SWITCH;
    w->seq[1] = ISN_OFCD;

    size_t at = block_open(w, BT_SHB);
    uint8_t *p = room(w, 16);
    if (p) {
        le32(p, 0x1A2B3C4Du);                   /* byte-order magic */
        le16(p + 4, 1);
        le16(p + 6, 0);
        memset(p + 8, 0xff, 8);                 /* section length: not given */
    }
    if (comment && *comment)
        option(w, OPT_COMMENT, comment, strlen(comment));
    option(w, OPT_END, NULL, 0);
    block_close(w, at);

    at = block_open(w, BT_IDB);
    if ((p = room(w, 8))) {
        le16(p, LINKTYPE_ETHERNET);
        le16(p + 2, 0);
        le32(p + 4, 0);                         /* snap length: none */
    }
    uint8_t ns = 9;                             /* timestamps in 10^-9 s */
    option(w, IF_TSRESOL, &ns, 1);
    option(w, OPT_END, NULL, 0);
    block_close(w, at);

    /* The switch connects to ofcd. */
    segment(w, true, TCP_SYN, t_ns, NULL, 0);
    segment(w, false, TCP_SYN | TCP_ACK, t_ns, NULL, 0);
    segment(w, true, TCP_ACK, t_ns, NULL, 0);
    return w->err;
}

int ofcd_pcapng_data(struct ofcd_pcapng *w, bool to_ofcd, uint64_t t_ns, const void *bytes,
                     size_t n)
{
    const uint8_t *b = bytes;

    if (!w->err && !bytes && n)
        w->err = -EINVAL;
    for (size_t off = 0; off < n && !w->err; off += OFCD_PCAPNG_SEG_MAX) {
        size_t k = n - off < OFCD_PCAPNG_SEG_MAX ? n - off : OFCD_PCAPNG_SEG_MAX;
        segment(w, to_ofcd, TCP_PSH | TCP_ACK, t_ns, b + off, k);
    }
    return w->err;
}

void ofcd_pcapng_free(struct ofcd_pcapng *w)
{
    free(w->p);
    memset(w, 0, sizeof(*w));
}
