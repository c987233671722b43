/*
 * fm_pack: see fm_pack.h. The head is ofp_wire.h's struct ofp13_flow_mod.
 */
#include "fm_pack.h"

#include <arpa/inet.h>
#include <stddef.h>
#include <string.h>

#include "ofp_wire.h"

_Static_assert(sizeof(struct ofp13_flow_mod) == FM_PACK_HEAD, "FM_PACK_HEAD is the head");

/* Where the kept fields sit in the head, and in the packed form. */
#define W(field) offsetof(struct ofp13_flow_mod, field)
#define W_TIMEOUTS W(idle_timeout)      /* idle, hard, priority: 6 bytes */
#define P_COOKIE 0
#define P_TABLE 8
#define P_TIMEOUTS 9
#define P_FLAGS 15
_Static_assert(W(priority) + 2 == W_TIMEOUTS + 6, "idle, hard and priority are adjacent");
_Static_assert(P_FLAGS + 2 == FM_PACK_KEPT, "FM_PACK_KEPT is the kept fields");

/* The head every packed ADD has, but for the kept fields. */
static void fm_pack_template(uint8_t *head, size_t len)
{
    const struct ofp13_flow_mod t = {
        .header = {.version = OFP13_VERSION, .type = OFPT_FLOW_MOD,
                   .length = htons((uint16_t)len)},
        .command = OFPFC_ADD,
        .buffer_id = htonl(OFP_NO_BUFFER),
        .out_port = htonl(OFPP_ANY),
        .out_group = htonl(OFPG_ANY),
    };

    memcpy(head, &t, sizeof(t));
}

size_t fm_pack_size(const uint8_t *wire, size_t len)
{
    uint8_t head[FM_PACK_HEAD];

    if (len < FM_PACK_HEAD || len > UINT16_MAX)
        return 0;
    fm_pack_template(head, len);
    memcpy(head + W(cookie), wire + W(cookie), 8);
    head[W(table_id)] = wire[W(table_id)];
    memcpy(head + W_TIMEOUTS, wire + W_TIMEOUTS, 6);
    memcpy(head + W(flags), wire + W(flags), 2);
    return memcmp(head, wire, FM_PACK_HEAD) == 0 ? len - FM_PACK_SAVED : 0;
}

void fm_pack(const uint8_t *wire, size_t len, uint8_t *out)
{
    memcpy(out + P_COOKIE, wire + W(cookie), 8);
    out[P_TABLE] = wire[W(table_id)];
    memcpy(out + P_TIMEOUTS, wire + W_TIMEOUTS, 6);
    memcpy(out + P_FLAGS, wire + W(flags), 2);
    memcpy(out + FM_PACK_KEPT, wire + FM_PACK_HEAD, len - FM_PACK_HEAD);
}

void fm_unpack(const uint8_t *packed, size_t len, uint8_t *out)
{
    fm_pack_template(out, len);
    memcpy(out + W(cookie), packed + P_COOKIE, 8);
    out[W(table_id)] = packed[P_TABLE];
    memcpy(out + W_TIMEOUTS, packed + P_TIMEOUTS, 6);
    memcpy(out + W(flags), packed + P_FLAGS, 2);
    memcpy(out + FM_PACK_HEAD, packed + FM_PACK_KEPT, len - FM_PACK_HEAD);
}
