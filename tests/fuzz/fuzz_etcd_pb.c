/*
 * fuzz_etcd_pb: libFuzzer target for etcd's gRPC answer decoders and the
 * frame reader (drivers/etcd/etcd_pb_resp.c) — what a hostile or broken
 * etcd, or anyone between it and ofcd on a plain-HTTP/2 link, can hand the
 * cluster. The first byte picks the decoder, the rest is one message (an
 * exact-size heap copy, so ASan sees any read past it). An accepted answer
 * must hold what the bounds promise (counts, key and value sizes,
 * NUL-terminated copies), a rejected one must say why; freeing twice must
 * be harmless; a frame found must lie inside the bytes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etcd_pb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static void check_kv(const struct etcd_kv *kv)
{
    if (kv->key_len > ETCD_KEY_MAX || kv->value_len > ETCD_VALUE_MAX ||
        !kv->key || !kv->value || kv->key[kv->key_len] || kv->value[kv->value_len])
        abort();
}

static void check_kvs(const struct etcd_kvs *k)
{
    if (k->n > ETCD_KVS_MAX || (k->n && !k->kv))
        abort();
    for (size_t i = 0; i < k->n; i++)
        check_kv(&k->kv[i]);
}

static void check_rc(int rc, const char *err)
{
    if (rc > 0 || (rc < 0 && rc != -ENOMEM && !err[0]))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    char err[ETCD_ERR_MAX];
    uint8_t *m;
    int rc = 0;

    if (len < 1)
        return 0;
    m = malloc(len - 1 ? len - 1 : 1);
    if (!m)
        return 0;
    memcpy(m, data + 1, len - 1);
    len--;
    err[0] = 0;
    switch (data[0] % 8) {
    case 0: {
        struct etcd_range_resp r;
        rc = etcd_pb_decode_range(m, len, &r, err);
        if (rc == 0)
            check_kvs(&r.kvs);
        etcd_range_resp_free(&r);
        etcd_range_resp_free(&r);
        break;
    }
    case 1: {
        struct etcd_txn_resp r;
        rc = etcd_pb_decode_txn(m, len, &r, err);
        if (rc == 0) {
            if (r.n_resp > ETCD_TXN_OPS_MAX)
                abort();
            for (size_t i = 0; i < r.n_resp; i++)
                check_kvs(&r.resp[i].kvs);
        }
        etcd_txn_resp_free(&r);
        etcd_txn_resp_free(&r);
        break;
    }
    case 2: {
        struct etcd_watch_resp r;
        rc = etcd_pb_decode_watch(m, len, &r, err);
        if (rc == 0) {
            if (r.n_ev > ETCD_EVENTS_MAX || memchr(r.cancel_reason, 0, ETCD_ERR_MAX) == NULL)
                abort();
            for (size_t i = 0; i < r.n_ev; i++) {
                if (r.ev[i].type != ETCD_EV_PUT && r.ev[i].type != ETCD_EV_DELETE)
                    abort();
                if (!r.ev[i].kv.key_len)
                    abort();
                check_kv(&r.ev[i].kv);
                if (r.ev[i].has_prev)
                    check_kv(&r.ev[i].prev);
            }
        }
        etcd_watch_resp_free(&r);
        etcd_watch_resp_free(&r);
        break;
    }
    case 3: {
        struct etcd_lease_resp r;
        rc = etcd_pb_decode_lease(m, len, &r, err);
        break;
    }
    case 4: {
        struct etcd_delete_resp r;
        rc = etcd_pb_decode_delete(m, len, &r, err);
        break;
    }
    case 5: {
        struct etcd_header h;
        rc = etcd_pb_decode_header_only(m, len, &h, err);
        break;
    }
    case 6: {
        size_t off = 0, n = 0;
        long took = etcd_pb_frame(m, len, &off, &n);
        if (took > 0 && (off + n != (size_t)took || (size_t)took > len))
            abort();
        break;
    }
    default: {
        char tok[ETCD_TOKEN_MAX];
        rc = etcd_pb_decode_auth(m, len, tok, err);
        /* A token goes into a header line: printable ASCII only. */
        for (size_t i = 0; rc == 0 && tok[i]; i++)
            if (tok[i] < 0x21 || tok[i] > 0x7e)
                abort();
        break;
    }
    }
    check_rc(rc, err);
    free(m);
    return 0;
}
