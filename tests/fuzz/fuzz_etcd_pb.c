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
#include "fuzz_etcd_checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

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
            fz_check_kvs(&r.kvs);
        etcd_range_resp_free(&r);
        etcd_range_resp_free(&r);
        break;
    }
    case 1: {
        struct etcd_txn_resp r;
        rc = etcd_pb_decode_txn(m, len, &r, err);
        if (rc == 0)
            fz_check_txn(&r);
        etcd_txn_resp_free(&r);
        etcd_txn_resp_free(&r);
        break;
    }
    case 2: {
        struct etcd_watch_resp r;
        rc = etcd_pb_decode_watch(m, len, &r, err);
        if (rc == 0)
            fz_check_watch(&r);
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
        if (rc == 0)
            fz_check_token(tok);
        break;
    }
    }
    fz_check_rc(rc, err);
    free(m);
    return 0;
}
