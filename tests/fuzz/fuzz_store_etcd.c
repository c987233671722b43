/*
 * fuzz_store_etcd: libFuzzer target for the etcd store backend's readers
 * (control/store/store_etcd_rec.c) — the values and keys any node, or anyone
 * who can write to the cluster's etcd, puts under the prefix, and every
 * node's mirror reads. The first byte picks the reader: a flow record, a
 * flow state, a switch's installed flows (P data/inst), a key. What a reader accepts must be within its bounds and
 * come back the same through its writer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_etcd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

#define PREFIX "/ofcd/v1/data/"

static void flow_record(const uint8_t *v, size_t len)
{
    struct store_flow f;
    size_t olen;
    char owner[STORE_OWNER_MAX + 1];

    if (store_etcd_rec_decode(v, len, &f, &olen) < 0)
        return;
    if (olen > STORE_OWNER_MAX || (unsigned)f.state > STORE_FLOW_DELETED ||
        (const uint8_t *)f.json + f.json_len != v + len)
        abort();
    /* The owner as the mirror copies it; one with a NUL inside is cut
     * there, so the round trip is compared only without one. */
    memcpy(owner, f.owner, olen);
    owner[olen] = '\0';
    if (strlen(owner) != olen)
        return;
    f.owner = owner;
    char *again = NULL;
    int n = store_etcd_rec_encode(&f, &again);
    struct store_flow g;
    size_t glen;
    if (n < 0 || store_etcd_rec_decode((const uint8_t *)again, (size_t)n, &g, &glen) < 0 ||
        g.flow_id != f.flow_id || g.state != f.state || g.err_type != f.err_type ||
        g.err_code != f.err_code || g.added_ns != f.added_ns || g.changed_ns != f.changed_ns ||
        glen != olen || memcmp(g.owner, owner, olen) != 0 || g.json_len != f.json_len ||
        memcmp(g.json, f.json, f.json_len) != 0)
        abort();
    free(again);
}

static void flow_state(const uint8_t *v, size_t len)
{
    uint64_t id, id2;
    enum store_flow_state st, st2;
    uint16_t et, ec, et2, ec2;
    char buf[128];

    if (store_etcd_state_decode(v, len, &id, &st, &et, &ec) < 0)
        return;
    if (st == STORE_FLOW_DELETED || (unsigned)st > STORE_FLOW_DELETED)
        abort();
    int n = store_etcd_state_encode(buf, sizeof(buf), id, st, et, ec);
    if (n < 0 || store_etcd_state_decode((const uint8_t *)buf, (size_t)n, &id2, &st2, &et2,
                                         &ec2) < 0 ||
        id2 != id || st2 != st || et2 != et || ec2 != ec)
        abort();
}

static void inst_value(const uint8_t *v, size_t len)
{
    static struct store_etcd_inst_ent e[STORE_ETCD_INST_MAX], e2[STORE_ETCD_INST_MAX];
    int64_t rev, rev2;
    size_t n, n2;
    char *out = NULL;

    if (store_etcd_inst_decode(v, len, &rev, e, &n) < 0)
        return;
    if (n > STORE_ETCD_INST_MAX || rev < 0)
        abort();
    int l = store_etcd_inst_encode(rev, e, n, &out);
    if (l < 0 || store_etcd_inst_decode((const uint8_t *)out, (size_t)l, &rev2, e2, &n2) < 0 ||
        rev2 != rev || n2 != n || memcmp(e, e2, n * sizeof(*e)) != 0)
        abort();
    free(out);
}

static void key(const uint8_t *k, size_t len)
{
    struct store_etcd_key out;
    char buf[STORE_ETCD_KEY_MAX];
    int n = -1;

    if (store_etcd_key_parse(PREFIX, k, len, &out) < 0)
        return;
    switch (out.kind) {
    case STORE_ETCD_KEY_FLOW:
        n = store_etcd_key_flow(buf, sizeof(buf), PREFIX, out.dpid, out.match_id);
        break;
    case STORE_ETCD_KEY_STATE:
        n = store_etcd_key_state(buf, sizeof(buf), PREFIX, out.dpid, out.match_id);
        break;
    case STORE_ETCD_KEY_APP:
        if (out.app_len > STORE_KV_KEY_MAX || memchr(out.app, 0, out.app_len))
            abort();
        char app[STORE_KV_KEY_MAX + 1];
        memcpy(app, out.app, out.app_len);
        app[out.app_len] = '\0';
        n = store_etcd_key_app(buf, sizeof(buf), PREFIX, app);
        break;
    case STORE_ETCD_KEY_SYNC:
        n = snprintf(buf, sizeof(buf), "%s%s", PREFIX, STORE_ETCD_SYNC_KEY);
        break;
    case STORE_ETCD_KEY_INST:
        n = store_etcd_key_inst(buf, sizeof(buf), PREFIX, out.dpid);
        break;
    case STORE_ETCD_KEY_OTHER:
        return;
    }
    /* A key read is the key written for what it names. */
    if (n < 0 || (size_t)n != len || memcmp(buf, k, len) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    if (len < 1)
        return 0;
    uint8_t *v = malloc(len - 1 ? len - 1 : 1);     /* exact size: ASan sees overreads */
    if (!v)
        return 0;
    memcpy(v, data + 1, len - 1);
    switch (data[0] % 4) {
    case 0:
        flow_record(v, len - 1);
        break;
    case 1:
        flow_state(v, len - 1);
        break;
    case 2:
        inst_value(v, len - 1);
        break;
    default:
        key(v, len - 1);
        break;
    }
    free(v);
    return 0;
}
