/*
 * tcp_opt: TCP option parsing (every segment) and building (SYN, SYN-ACK,
 * timestamps on the rest). Unknown options are skipped by their length;
 * a malformed list (length 0/1, beyond the header) rejects the segment.
 */
#include <errno.h>
#include <string.h>

#include "tcp_priv.h"

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void wr16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

int tcp_opts_parse(const uint8_t *p, unsigned len, bool syn, struct tcp_opts *out)
{
    memset(out, 0, sizeof(*out));
    unsigned i = 0;

    while (i < len) {
        uint8_t kind = p[i];
        if (kind == TCPOPT_EOL)
            break;
        if (kind == TCPOPT_NOP) {
            i++;
            continue;
        }
        if (i + 1 >= len)
            return -EINVAL;
        uint8_t olen = p[i + 1];
        if (olen < 2 || i + olen > len)
            return -EINVAL;
        switch (kind) {
        case TCPOPT_MSS:
            /* MSS and window scale only mean something on a SYN (RFC 9293,
             * RFC 7323 §2.2); elsewhere they are ignored, not errors. */
            if (olen != TCPOLEN_MSS)
                return -EINVAL;
            if (syn) {
                out->mss_ok = true;
                out->mss = rd16(p + i + 2);
            }
            break;
        case TCPOPT_WSCALE:
            if (olen != TCPOLEN_WSCALE)
                return -EINVAL;
            if (syn) {
                out->ws_ok = true;
                out->wscale = p[i + 2] > TCP_MAX_WSCALE ? TCP_MAX_WSCALE : p[i + 2];
            }
            break;
        case TCPOPT_SACK_PERM:
            if (olen != 2)
                return -EINVAL;
            out->sack_perm = syn;
            break;
        case TCPOPT_TS:
            if (olen != TCPOLEN_TS)
                return -EINVAL;
            out->ts_ok = true;
            out->tsval = rd32(p + i + 2);
            out->tsecr = rd32(p + i + 6);
            break;
        default:
            break;
        }
        i += olen;
    }
    return 0;
}

unsigned tcp_opts_build_ts(uint8_t *p, uint32_t tsval, uint32_t tsecr)
{
    p[0] = TCPOPT_NOP;
    p[1] = TCPOPT_NOP;
    p[2] = TCPOPT_TS;
    p[3] = TCPOLEN_TS;
    wr32(p + 4, tsval);
    wr32(p + 8, tsecr);
    return TCPOLEN_TS_ALIGNED;
}

unsigned tcp_opts_build_syn(uint8_t *p, uint16_t mss, bool ws, uint8_t wscale, bool ts,
                            uint32_t tsval, uint32_t tsecr)
{
    unsigned n = 0;

    p[n++] = TCPOPT_MSS;
    p[n++] = TCPOLEN_MSS;
    wr16(p + n, mss);
    n += 2;
    if (ws) {
        p[n++] = TCPOPT_NOP;
        p[n++] = TCPOPT_WSCALE;
        p[n++] = TCPOLEN_WSCALE;
        p[n++] = wscale;
    }
    if (ts)
        n += tcp_opts_build_ts(p + n, tsval, tsecr);
    return n;
}
