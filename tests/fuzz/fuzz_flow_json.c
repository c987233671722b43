/*
 * libFuzzer target for the REST flow parser: any bytes that jansson reads
 * as an object go through flow_json_parse() (as an add or, when the first
 * byte is odd, a delete). Whatever it accepts must encode as a FLOW_MOD,
 * render back to JSON (the typed flow with how it was written), and that
 * JSON must parse to a flow with the same match_id and flow_id (the store's
 * identity of a flow survives a restart).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flow_json.h"
#include "json_u64.h"
#include "ofp_msg.h"

static uint8_t wire[65536];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct fm_flow f, g;
    static struct flow_json_form ff, gf;
    char err[256];
    json_error_t je;

    if (size == 0)
        return 0;
    bool del = data[0] & 1;
    /* As REST reads bodies: numbers up to 2^64 - 1 through json_u64. */
    json_t *j = json_u64_loadb((const char *)data + 1, size - 1, &je);
    if (!j)
        return 0;
    if (json_is_object(j) && flow_json_parse(j, del, &f, &ff, err, sizeof(err)) == 0) {
        struct ofp_msg m;
        struct ofp_buf b;
        memset(&m, 0, sizeof(m));
        m.hdr.version = OFP13_VERSION;
        m.hdr.type = OFPT_FLOW_MOD;
        m.u.flow_mod = f.mod;
        ofp_buf_init(&b, wire, sizeof(wire));
        if (ofp_encode(&b, &m) != 0)
            abort();
        json_t *r = flow_json_render(&f, &ff);
        if (!r)
            abort();
        if (flow_json_parse(r, del, &g, &gf, err, sizeof(err)) != 0)
            abort();
        if (fm_flow_match_id(1, &f) != fm_flow_match_id(1, &g) ||
            fm_flow_id(1, &f) != fm_flow_id(1, &g))
            abort();
        /* And as text, the way REST answers and reads it: the same JSON. */
        char *text = json_dumps(r, JSON_COMPACT);
        if (!text)
            abort();
        json_u64_fixup(text);
        json_t *back = json_u64_loadb(text, strlen(text), &je);
        if (!back || !json_equal(back, r))
            abort();
        json_decref(back);
        free(text);
        json_decref(r);
    }
    json_decref(j);
    return 0;
}
