/*
 * fuzz_lldp: libFuzzer target for topology discovery's LLDP reader
 * (apps/topo/topo_lldp.c) — what any host on a switch port can put in front
 * of it through a PACKET_IN. Each input is parsed from an exact-size heap
 * copy (ASan sees any read past it) at a few clock values; a frame read as
 * ofcd's must rebuild to the same bytes (nothing else can carry a valid
 * tag), and every verdict must be one the reader names.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "topo_lldp.h"

static const uint8_t key[TOPO_LLDP_KEY_LEN] = "fuzz-key-fuzz-key-fuzz-key-fuzz";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    uint8_t *f = malloc(len ? len : 1);
    struct topo_lldp_id id;
    static const uint64_t nows[] = {0, 1000, UINT64_MAX};

    if (!f)
        return 0;
    memcpy(f, data, len);
    for (size_t i = 0; i < sizeof(nows) / sizeof(nows[0]); i++) {
        enum topo_lldp_verdict v = topo_lldp_parse(f, len, key, nows[i], 3000,
                                                   TOPO_LLDP_SKEW_US, &id);
        if (v > TOPO_LLDP_STALE)
            abort();
        if (v == TOPO_LLDP_OURS) {
            uint8_t again[TOPO_LLDP_FRAME_LEN];
            struct topo_lldp_id id2;
            topo_lldp_build(again, f + 6, (uint16_t)(len % 2 ? 3799 : 0), id.dpid, id.port,
                            id.sent_us, id.ask, key);
            if (topo_lldp_parse(again, sizeof(again), key, nows[i], 3000, TOPO_LLDP_SKEW_US,
                                &id2) !=
                    TOPO_LLDP_OURS || id2.dpid != id.dpid || id2.port != id.port ||
                id2.sent_us != id.sent_us)
                abort();
        }
    }
    free(f);
    return 0;
}
