/*
 * fuzz_etcd_checks: what an accepted etcd answer must hold, whichever
 * decoder read it (fuzz_etcd: the gateway's JSON; fuzz_etcd_pb: gRPC's
 * protobuf) — the bounds the codec promises, NUL-terminated copies, a
 * reason for every refusal. Each aborts (a finding) when it does not.
 */
#ifndef OFCD_FUZZ_ETCD_CHECKS_H
#define OFCD_FUZZ_ETCD_CHECKS_H

#include <stdlib.h>
#include <string.h>

#include "etcd_codec.h"

static inline void fz_check_kv(const struct etcd_kv *kv)
{
    if (kv->key_len > ETCD_KEY_MAX || kv->value_len > ETCD_VALUE_MAX ||
        !kv->key || !kv->value || kv->key[kv->key_len] || kv->value[kv->value_len])
        abort();
}

static inline void fz_check_kvs(const struct etcd_kvs *k)
{
    if (k->n > ETCD_KVS_MAX || (k->n && !k->kv))
        abort();
    for (size_t i = 0; i < k->n; i++)
        fz_check_kv(&k->kv[i]);
}

static inline void fz_check_txn(const struct etcd_txn_resp *r)
{
    if (r->n_resp > ETCD_TXN_OPS_MAX)
        abort();
    for (size_t i = 0; i < r->n_resp; i++)
        fz_check_kvs(&r->resp[i].kvs);
}

static inline void fz_check_watch(const struct etcd_watch_resp *r)
{
    if (r->n_ev > ETCD_EVENTS_MAX || memchr(r->cancel_reason, 0, ETCD_ERR_MAX) == NULL)
        abort();
    for (size_t i = 0; i < r->n_ev; i++) {
        if (r->ev[i].type != ETCD_EV_PUT && r->ev[i].type != ETCD_EV_DELETE)
            abort();
        if (!r->ev[i].kv.key_len)
            abort();
        fz_check_kv(&r->ev[i].kv);
        if (r->ev[i].has_prev)
            fz_check_kv(&r->ev[i].prev);
    }
}

/* A token goes into a header line: printable ASCII only. */
static inline void fz_check_token(const char *tok)
{
    for (size_t i = 0; tok[i]; i++)
        if (tok[i] < 0x21 || tok[i] > 0x7e)
            abort();
}

/* A refusal says why; no decoder answers > 0. */
static inline void fz_check_rc(int rc, const char *err)
{
    if (rc > 0 || (rc < 0 && !err[0]))
        abort();
}

#endif
