/*
 * fuzz_etcd: libFuzzer target for the etcd gateway's answer decoders
 * (drivers/etcd/etcd_resp.c) — what a hostile or broken etcd, or anyone
 * between it and ofcd on a plain-HTTP link, can hand the cluster. The
 * first byte picks the decoder, the rest is the answer (an exact-size heap
 * copy, so ASan sees any read past it). An accepted answer must hold what
 * the bounds promise (counts, key and value sizes, NUL-terminated copies),
 * and a rejected one must say why; freeing twice must be harmless.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etcd_codec.h"
#include "fuzz_etcd_checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    char err[ETCD_ERR_MAX];
    char *t;
    int rc;

    if (len < 1)
        return 0;
    t = malloc(len - 1 ? len - 1 : 1);
    if (!t)
        return 0;
    memcpy(t, data + 1, len - 1);
    len--;
    err[0] = 0;
    switch (data[0] % 6) {
    case 0: {
        struct etcd_range_resp r;
        rc = etcd_decode_range(t, len, &r, err);
        if (rc == 0)
            fz_check_kvs(&r.kvs);
        etcd_range_resp_free(&r);
        etcd_range_resp_free(&r);
        break;
    }
    case 1: {
        struct etcd_txn_resp r;
        rc = etcd_decode_txn(t, len, &r, err);
        if (rc == 0)
            fz_check_txn(&r);
        etcd_txn_resp_free(&r);
        etcd_txn_resp_free(&r);
        break;
    }
    case 2: {
        struct etcd_watch_resp r;
        rc = etcd_decode_watch(t, len, &r, err);
        if (rc == 0)
            fz_check_watch(&r);
        etcd_watch_resp_free(&r);
        etcd_watch_resp_free(&r);
        break;
    }
    case 3: {
        struct etcd_lease_resp r;
        rc = etcd_decode_lease(t, len, &r, err);
        break;
    }
    case 4: {
        struct etcd_delete_resp r;
        rc = etcd_decode_delete(t, len, &r, err);
        break;
    }
    default: {
        char tok[ETCD_TOKEN_MAX];
        rc = etcd_decode_auth(t, len, tok, err);
        if (rc == 0)
            fz_check_token(tok);
        break;
    }
    }
    fz_check_rc(rc, err);
    free(t);
    return 0;
}
