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
    if (rc > 0 || (rc < 0 && !err[0]))
        abort();
}

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
            check_kvs(&r.kvs);
        etcd_range_resp_free(&r);
        etcd_range_resp_free(&r);
        break;
    }
    case 1: {
        struct etcd_txn_resp r;
        rc = etcd_decode_txn(t, len, &r, err);
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
        rc = etcd_decode_watch(t, len, &r, err);
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
        /* A token goes into a header line: printable ASCII only. */
        for (size_t i = 0; rc == 0 && tok[i]; i++)
            if (tok[i] < 0x21 || tok[i] > 0x7e)
                abort();
        break;
    }
    }
    check_rc(rc, err);
    free(t);
    return 0;
}
