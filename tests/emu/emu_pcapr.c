/* emu_pcapr: see emu_pcapr.h. */
#include "emu_pcapr.h"
#include "emu_ofp.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCAPNG_SHB 0x0a0d0d0au
#define PCAPNG_IDB 1u
#define PCAPNG_EPB 6u
#define PCAPNG_BOM 0x1a2b3c4du
#define LINKTYPE_ETHERNET 1u
#define STREAM_MAX (64u << 20)      /* bytes of one direction kept at most */

struct stream {
    bool started;
    uint32_t next;                  /* the sequence number of the next byte */
    uint8_t *buf;
    size_t len, cap;
};

struct reader {
    bool swap;                      /* the section's byte order is not ours */
    uint64_t ts_div_num, ts_mul;    /* a timestamp unit to ns: *mul / div */
    bool have_conn;
    uint32_t sw_ip, ctl_ip;
    uint16_t sw_port, ctl_port;
    struct stream st[2];
    struct emu_pcapr_session *out;
    char *why;
    size_t why_len;
};

static int fail(struct reader *r, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, r->why_len, fmt, ap);
    va_end(ap);
    return rc;
}

static uint32_t u32(const struct reader *r, const uint8_t *p)
{
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                 (uint32_t)p[3] << 24;
    return r->swap ? __builtin_bswap32(v) : v;
}

static uint16_t u16(const struct reader *r, const uint8_t *p)
{
    uint16_t v = (uint16_t)(p[0] | p[1] << 8);
    return r->swap ? __builtin_bswap16(v) : v;
}

/* The interface's if_tsresol (option 9): 10^-v s, or 2^-v with the top bit. */
static int idb(struct reader *r, const uint8_t *b, size_t blen)
{
    if (blen < 20)
        return fail(r, -EBADMSG, "an interface block of %zu bytes", blen);
    if (u16(r, b + 8) != LINKTYPE_ETHERNET)
        return fail(r, -EINVAL, "the capture's link type is %u, not Ethernet", u16(r, b + 8));
    r->ts_mul = 1000;               /* default: microseconds */
    r->ts_div_num = 1;
    for (size_t at = 16; at + 4 <= blen - 4;) {
        uint16_t code = u16(r, b + at), olen = u16(r, b + at + 2);
        if (code == 0 || at + 4 + olen > blen - 4)
            break;
        if (code == 9 && olen >= 1) {
            uint8_t v = b[at + 4];
            if (v & 0x80 || v > 18)
                return fail(r, -EINVAL, "a timestamp resolution this reader does not take");
            uint64_t per_s = 1;
            for (unsigned i = 0; i < v; i++)
                per_s *= 10;
            r->ts_mul = per_s <= 1000000000u ? 1000000000u / per_s : 1;
            r->ts_div_num = per_s > 1000000000u ? per_s / 1000000000u : 1;
        }
        at += 4 + ((olen + 3u) & ~3u);
    }
    return 0;
}

static int emit(struct reader *r, enum emu_pcapr_dir dir, uint64_t t_ns, const uint8_t *p,
                uint16_t len)
{
    struct emu_pcapr_session *s = r->out;

    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 64;
        struct emu_pcapr_msg *m = realloc(s->msg, nc * sizeof(*m));
        if (!m)
            return fail(r, -ENOMEM, "out of memory");
        s->msg = m;
        s->cap = nc;
    }
    uint8_t *d = malloc(len);
    if (!d)
        return fail(r, -ENOMEM, "out of memory");
    memcpy(d, p, len);
    s->msg[s->n++] = (struct emu_pcapr_msg){dir, t_ns, d, len};
    return 0;
}

/* Bytes of one direction in order: whole messages out, the rest kept. */
static int stream_add(struct reader *r, enum emu_pcapr_dir dir, uint32_t seq, const uint8_t *p,
                      size_t n, uint64_t t_ns)
{
    struct stream *st = &r->st[dir];

    if (!st->started) {
        st->started = true;
        st->next = seq;
    }
    int32_t ahead = (int32_t)(seq - st->next);
    if (ahead > 0)
        return fail(r, -EBADMSG, "%u bytes of the %s's stream are missing", (unsigned)ahead,
                    dir == EMU_PCAPR_FROM_SWITCH ? "switch" : "controller");
    size_t skip = (size_t)-(int64_t)ahead;      /* sent again: what was read already */
    if (skip >= n)
        return 0;
    p += skip;
    n -= skip;
    if (st->len + n > STREAM_MAX)
        return fail(r, -EBADMSG, "a message longer than this reader keeps");
    if (st->len + n > st->cap) {
        size_t nc = st->cap ? st->cap : 4096;
        while (nc < st->len + n)
            nc *= 2;
        uint8_t *b = realloc(st->buf, nc);
        if (!b)
            return fail(r, -ENOMEM, "out of memory");
        st->buf = b;
        st->cap = nc;
    }
    memcpy(st->buf + st->len, p, n);
    st->len += n;
    st->next += (uint32_t)n;
    size_t at = 0;
    while (st->len - at >= 8) {
        uint16_t mlen = emu_get16(st->buf + at + 2);
        if (mlen < 8)
            return fail(r, -EBADMSG, "an OpenFlow message of length %u", mlen);
        if (st->len - at < mlen)
            break;
        int rc = emit(r, dir, t_ns, st->buf + at, mlen);
        if (rc < 0)
            return rc;
        at += mlen;
    }
    memmove(st->buf, st->buf + at, st->len - at);
    st->len -= at;
    return 0;
}

static int epb(struct reader *r, const uint8_t *b, size_t blen)
{
    if (blen < 32)
        return fail(r, -EBADMSG, "a packet block of %zu bytes", blen);
    uint64_t ts = (uint64_t)u32(r, b + 12) << 32 | u32(r, b + 16);
    uint32_t caplen = u32(r, b + 20);
    if (caplen > blen - 32)
        return fail(r, -EBADMSG, "a packet of %u bytes in a block of %zu", caplen, blen);
    const uint8_t *e = b + 28;
    uint64_t t_ns = ts * r->ts_mul / r->ts_div_num;
    if (caplen < 14 || emu_get16(e + 12) != 0x0800)
        return 0;                                   /* not IPv4 */
    const uint8_t *ip = e + 14;
    size_t iplen = caplen - 14;
    if (iplen < 20 || (ip[0] >> 4) != 4)
        return 0;
    size_t ihl = (size_t)(ip[0] & 15) * 4, tot = emu_get16(ip + 2);
    if (ihl < 20 || tot < ihl || tot > iplen)
        return fail(r, -EBADMSG, "an IPv4 packet cut short");
    if (ip[9] != 6)
        return 0;                                   /* not TCP */
    const uint8_t *tcp = ip + ihl;
    size_t tlen = tot - ihl;
    if (tlen < 20 || (size_t)(tcp[12] >> 4) * 4 < 20 || (size_t)(tcp[12] >> 4) * 4 > tlen)
        return fail(r, -EBADMSG, "a TCP segment cut short");
    size_t doff = (size_t)(tcp[12] >> 4) * 4;
    uint32_t src = emu_get32(ip + 12), dst = emu_get32(ip + 16), seq = emu_get32(tcp + 4);
    uint16_t sport = emu_get16(tcp), dport = emu_get16(tcp + 2);
    uint8_t flags = tcp[13];
    bool syn = flags & 0x02, ack = flags & 0x10;
    if (!r->have_conn) {
        /* The switch opens the connection (active open toward ofcd). */
        bool src_is_switch = syn ? !ack : dport == r->ctl_port;
        r->sw_ip = src_is_switch ? src : dst;
        r->sw_port = src_is_switch ? sport : dport;
        r->ctl_ip = src_is_switch ? dst : src;
        r->ctl_port = src_is_switch ? dport : sport;
        r->have_conn = true;
    }
    enum emu_pcapr_dir dir;
    if (src == r->sw_ip && sport == r->sw_port && dst == r->ctl_ip && dport == r->ctl_port)
        dir = EMU_PCAPR_FROM_SWITCH;
    else if (src == r->ctl_ip && sport == r->ctl_port && dst == r->sw_ip && dport == r->sw_port)
        dir = EMU_PCAPR_FROM_CONTROLLER;
    else
        return fail(r, -EINVAL, "the capture holds more than one TCP connection (port %u to "
                    "%u besides %u to %u)", sport, dport, r->sw_port, r->ctl_port);
    if (syn) {
        r->st[dir].started = true;
        r->st[dir].next = seq + 1;
        return 0;
    }
    return tlen > doff ? stream_add(r, dir, seq, tcp + doff, tlen - doff, t_ns) : 0;
}

int emu_pcapr_read(const uint8_t *p, size_t len, uint16_t ctl_port,
                   struct emu_pcapr_session *out, char *why, size_t why_len)
{
    struct reader r = {.ctl_port = ctl_port ? ctl_port : 6653, .ts_mul = 1000,
                       .ts_div_num = 1, .out = out, .why = why, .why_len = why_len};
    int rc = 0;
    bool section = false;

    memset(out, 0, sizeof(*out));
    if (why_len)
        why[0] = '\0';
    for (size_t at = 0; at < len && rc == 0;) {
        if (len - at < 12) {
            rc = fail(&r, -EBADMSG, "a block cut short at byte %zu", at);
            break;
        }
        const uint8_t *b = p + at;
        uint32_t type = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                        (uint32_t)b[3] << 24;
        if (type == PCAPNG_SHB) {
            uint32_t bom = (uint32_t)b[8] | (uint32_t)b[9] << 8 | (uint32_t)b[10] << 16 |
                           (uint32_t)b[11] << 24;
            if (bom != PCAPNG_BOM && bom != __builtin_bswap32(PCAPNG_BOM)) {
                rc = fail(&r, -EINVAL, "not a pcapng file");
                break;
            }
            r.swap = bom != PCAPNG_BOM;
            section = true;
        } else if (!section) {
            rc = fail(&r, -EINVAL, "not a pcapng file");
            break;
        } else {
            type = u32(&r, b);
        }
        uint32_t blen = u32(&r, b + 4);
        if (blen < 12 || blen % 4 || blen > len - at || u32(&r, b + blen - 4) != blen) {
            rc = fail(&r, -EBADMSG, "a block with a bad length at byte %zu", at);
            break;
        }
        if (type == PCAPNG_IDB)
            rc = idb(&r, b, blen);
        else if (type == PCAPNG_EPB)
            rc = epb(&r, b, blen);
        at += blen;
    }
    for (int d = 0; d < 2; d++) {
        out->trailing[d] = r.st[d].len;
        free(r.st[d].buf);
    }
    if (rc < 0)
        emu_pcapr_free(out);
    return rc;
}

void emu_pcapr_free(struct emu_pcapr_session *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->msg[i].data);
    free(s->msg);
    memset(s, 0, sizeof(*s));
}
