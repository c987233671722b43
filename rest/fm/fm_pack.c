/*
 * fm_pack: see fm_pack.h. Offsets are OpenFlow 1.3's struct ofp_flow_mod
 * (section 7.3.4.1), big-endian on the wire.
 */
#include "fm_pack.h"

#include <string.h>

#define OFP13_VERSION 0x04
#define OFPT13_FLOW_MOD 14
#define OFPFC13_ADD 0

/* Where the varying fields sit in the head, and in the packed form. */
#define W_COOKIE 8          /* 8 bytes */
#define W_TABLE 24          /* 1 */
#define W_COMMAND 25        /* 1 */
#define W_TIMEOUTS 26       /* idle 2, hard 2, priority 2 */
#define W_BUFFER 32         /* buffer_id, out_port, out_group: 4 each */
#define W_FLAGS 44          /* 2, then 2 of padding */
#define P_COOKIE 0
#define P_TABLE 8
#define P_TIMEOUTS 9
#define P_FLAGS 15

/* The head every packed ADD has, but for the length and the kept fields. */
static void fm_pack_template(uint8_t head[FM_PACK_HEAD], size_t len)
{
    memset(head, 0, FM_PACK_HEAD);
    head[0] = OFP13_VERSION;
    head[1] = OFPT13_FLOW_MOD;
    head[2] = (uint8_t)(len >> 8);
    head[3] = (uint8_t)len;
    head[W_COMMAND] = OFPFC13_ADD;
    memset(head + W_BUFFER, 0xff, 12);      /* OFP_NO_BUFFER, OFPP_ANY, OFPG_ANY */
}

size_t fm_pack_size(const uint8_t *wire, size_t len)
{
    uint8_t head[FM_PACK_HEAD];

    if (len < FM_PACK_HEAD || len > UINT16_MAX)
        return 0;
    fm_pack_template(head, len);
    memcpy(head + W_COOKIE, wire + W_COOKIE, 8);
    head[W_TABLE] = wire[W_TABLE];
    memcpy(head + W_TIMEOUTS, wire + W_TIMEOUTS, 6);
    memcpy(head + W_FLAGS, wire + W_FLAGS, 2);
    return memcmp(head, wire, FM_PACK_HEAD) == 0 ? len - FM_PACK_SAVED : 0;
}

void fm_pack(const uint8_t *wire, size_t len, uint8_t *out)
{
    memcpy(out + P_COOKIE, wire + W_COOKIE, 8);
    out[P_TABLE] = wire[W_TABLE];
    memcpy(out + P_TIMEOUTS, wire + W_TIMEOUTS, 6);
    memcpy(out + P_FLAGS, wire + W_FLAGS, 2);
    memcpy(out + FM_PACK_KEPT, wire + FM_PACK_HEAD, len - FM_PACK_HEAD);
}

void fm_unpack(const uint8_t *packed, size_t len, uint8_t *out)
{
    fm_pack_template(out, len);
    memcpy(out + W_COOKIE, packed + P_COOKIE, 8);
    out[W_TABLE] = packed[P_TABLE];
    memcpy(out + W_TIMEOUTS, packed + P_TIMEOUTS, 6);
    memcpy(out + W_FLAGS, packed + P_FLAGS, 2);
    memcpy(out + FM_PACK_HEAD, packed + FM_PACK_KEPT, len - FM_PACK_HEAD);
}
