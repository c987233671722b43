/*
 * etcd_pb_resp: etcd's gRPC answers as the codec's bounded structs
 * (etcd_pb.h is the manual). Strict about the wire (every length inside
 * its message, varints of at most ten bytes, the wire type each field
 * has in etcd's protos), lenient about what proto3 allows: unknown
 * fields, fields in any order, a message field met twice merged.
 */
#include "etcd_codec_priv.h"
#include "etcd_pb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };
#define WHERE_MAX 96

struct rd {
    const uint8_t *p;
    const uint8_t *end;
};

struct fld {
    unsigned num;
    unsigned wt;
    uint64_t v;               /* WT_VARINT */
    const uint8_t *d;         /* WT_LEN */
    size_t n;
};

static int varint(struct rd *r, uint64_t *out)
{
    uint64_t v = 0;

    for (unsigned shift = 0; shift <= 63; shift += 7) {
        uint8_t c;

        if (r->p >= r->end)
            return -EBADMSG;
        c = *r->p++;
        if (shift == 63 && c > 1)
            return -EBADMSG;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return -EBADMSG;
}

/* The next field: 1, 0 at the message's end, -EBADMSG. */
static int next(struct rd *r, struct fld *f, const char *where, char *err)
{
    uint64_t key, len;

    if (r->p == r->end)
        return 0;
    if (varint(r, &key) < 0 || !(key >> 3) || key >> 3 > 0x1fffffff)
        goto bad;
    f->num = (unsigned)(key >> 3);
    f->wt = (unsigned)(key & 7);
    switch (f->wt) {
    case WT_VARINT:
        if (varint(r, &f->v) < 0)
            goto bad;
        return 1;
    case WT_I64:
    case WT_I32: {
        size_t n = f->wt == WT_I64 ? 8 : 4;
        if ((size_t)(r->end - r->p) < n)
            goto bad;
        r->p += n;
        return 1;
    }
    case WT_LEN:
        if (varint(r, &len) < 0 || len > (uint64_t)(r->end - r->p))
            goto bad;
        f->d = r->p;
        f->n = (size_t)len;
        r->p += len;
        return 1;
    default:
        goto bad;
    }
bad:
    etcd_seterr(err, "%s: malformed protobuf", where);
    return -EBADMSG;
}

static int want(const struct fld *f, unsigned wt, const char *where, const char *name,
                char *err)
{
    if (f->wt == wt)
        return 0;
    etcd_seterr(err, "%s.%s: wrong wire type %u", where, name, f->wt);
    return -EBADMSG;
}

static void where_at(char w[WHERE_MAX], const char *where, const char *suffix)
{
    /* The path's start and its last step, within WHERE_MAX. */
    snprintf(w, WHERE_MAX, "%.48s%.47s", where, suffix);
}

/* A NUL-terminated copy of a bytes field, replacing *out. */
static int dup_bytes(const struct fld *f, size_t bound, uint8_t **out, size_t *len,
                     const char *where, const char *name, char *err)
{
    uint8_t *p;
    int rc = want(f, WT_LEN, where, name, err);

    if (rc)
        return rc;
    if (f->n > bound) {
        etcd_seterr(err, "%s.%s: over %zu bytes", where, name, bound);
        return -EMSGSIZE;
    }
    if (!(p = malloc(f->n + 1)))
        return -ENOMEM;
    memcpy(p, f->d, f->n);
    p[f->n] = 0;
    free(*out);
    *out = p;
    *len = f->n;
    return 0;
}

static int get_i64(const struct fld *f, int64_t *out, const char *where, const char *name,
                   char *err)
{
    int rc = want(f, WT_VARINT, where, name, err);

    if (rc == 0)
        *out = (int64_t)f->v;
    return rc;
}

static int get_bool(const struct fld *f, bool *out, const char *where, const char *name,
                    char *err)
{
    int rc = want(f, WT_VARINT, where, name, err);

    if (rc == 0)
        *out = f->v != 0;
    return rc;
}

/* How many times field `num` holds a message in m (checking the whole
 * message's framing on the way), bounded. */
static int count(const uint8_t *m, size_t len, unsigned num, size_t bound, size_t *n,
                 const char *where, const char *name, char *err)
{
    struct rd r = {m, m + len};
    struct fld f;
    int rc;

    *n = 0;
    while ((rc = next(&r, &f, where, err)) == 1) {
        if (f.num != num)
            continue;
        if ((rc = want(&f, WT_LEN, where, name, err)) < 0)
            return rc;
        if (++*n > bound) {
            etcd_seterr(err, "%s.%s: over %zu entries", where, name, bound);
            return -EMSGSIZE;
        }
    }
    return rc;
}

typedef int (*one_fn)(const uint8_t *m, size_t len, void *item, const char *where, char *err);

/* Reads each occurrence of message field `num` into a calloc'd table of
 * `size`-byte items; *n counts the entries begun, so the caller's free
 * releases whatever was taken. */
static int read_each(const uint8_t *m, size_t len, unsigned num, size_t bound, size_t size,
                     void **items, size_t *n, const char *where, const char *name,
                     one_fn one, char *err)
{
    struct rd r = {m, m + len};
    struct fld f;
    size_t total;
    char w[WHERE_MAX], idx[48];
    int rc = count(m, len, num, bound, &total, where, name, err);

    if (rc || !total)
        return rc;
    if (!(*items = calloc(total, size)))
        return -ENOMEM;
    while (*n < total && (rc = next(&r, &f, where, err)) == 1) {
        if (f.num != num)
            continue;
        snprintf(idx, sizeof(idx), ".%.20s[%zu]", name, *n);
        where_at(w, where, idx);
        rc = one(f.d, f.n, (char *)*items + *n * size, w, err);
        ++*n;
        if (rc)
            return rc;
    }
    return rc < 0 ? rc : 0;
}

/* ResponseHeader: member_id 2, revision 3, raft_term 4. */
static int read_header(const uint8_t *m, size_t len, struct etcd_header *h, char *err)
{
    struct rd r = {m, m + len};
    struct fld f;
    int64_t v;
    int rc;

    while ((rc = next(&r, &f, "header", err)) == 1) {
        switch (f.num) {
        case 2:
            if ((rc = get_i64(&f, &v, "header", "member_id", err)) < 0)
                return rc;
            h->member_id = (uint64_t)v;
            break;
        case 3:
            if ((rc = get_i64(&f, &h->revision, "header", "revision", err)) < 0)
                return rc;
            break;
        case 4:
            if ((rc = get_i64(&f, &h->raft_term, "header", "raft_term", err)) < 0)
                return rc;
            break;
        }
    }
    return rc;
}

/* A header field (1) of an answer. */
static int header_field(const struct fld *f, struct etcd_header *h, const char *where,
                        char *err)
{
    int rc = want(f, WT_LEN, where, "header", err);

    return rc ? rc : read_header(f->d, f->n, h, err);
}

/* mvccpb.KeyValue: key 1, create_revision 2, mod_revision 3, version 4,
 * value 5, lease 6. Key and value are always allocated (empty when absent),
 * as the gateway's decoder leaves them. */
static int read_kv(const uint8_t *m, size_t len, void *item, const char *where, char *err)
{
    struct etcd_kv *kv = item;
    struct rd r = {m, m + len};
    struct fld f;
    int rc;

    while ((rc = next(&r, &f, where, err)) == 1) {
        switch (f.num) {
        case 1:
            rc = dup_bytes(&f, ETCD_KEY_MAX, &kv->key, &kv->key_len, where, "key", err);
            break;
        case 2:
            rc = get_i64(&f, &kv->create_revision, where, "create_revision", err);
            break;
        case 3:
            rc = get_i64(&f, &kv->mod_revision, where, "mod_revision", err);
            break;
        case 4:
            rc = get_i64(&f, &kv->version, where, "version", err);
            break;
        case 5:
            rc = dup_bytes(&f, ETCD_VALUE_MAX, &kv->value, &kv->value_len, where, "value",
                           err);
            break;
        case 6:
            rc = get_i64(&f, &kv->lease, where, "lease", err);
            break;
        default:
            rc = 0;
        }
        if (rc < 0)
            return rc;
    }
    if (rc == 0 && ((!kv->key && !(kv->key = calloc(1, 1))) ||
                    (!kv->value && !(kv->value = calloc(1, 1)))))
        rc = -ENOMEM;
    return rc;
}

/* The key-value part of a RangeResponse: kvs 2, more 3, count 4. */
static int read_kvs(const uint8_t *m, size_t len, struct etcd_kvs *k, const char *where,
                    char *err)
{
    struct rd r = {m, m + len};
    struct fld f;
    void *items = NULL;
    int rc;

    while ((rc = next(&r, &f, where, err)) == 1) {
        if (f.num == 3)
            rc = get_bool(&f, &k->more, where, "more", err);
        else if (f.num == 4)
            rc = get_i64(&f, &k->count, where, "count", err);
        if (rc < 0)
            return rc;
    }
    if (rc < 0)
        return rc;
    rc = read_each(m, len, 2, ETCD_KVS_MAX, sizeof(*k->kv), &items, &k->n, where, "kvs",
                   read_kv, err);
    k->kv = items;
    return rc;
}

/* The header of an answer whose other fields are not read. */
static int only_header(const uint8_t *m, size_t len, struct etcd_header *h, const char *where,
                       char *err)
{
    struct rd r = {m, m + len};
    struct fld f;
    int rc;

    while ((rc = next(&r, &f, where, err)) == 1)
        if (f.num == 1 && (rc = header_field(&f, h, where, err)) < 0)
            return rc;
    return rc;
}

int etcd_pb_decode_header_only(const uint8_t *m, size_t len, struct etcd_header *out,
                               char *err)
{
    memset(out, 0, sizeof(*out));
    return only_header(m, len, out, "answer", err);
}

int etcd_pb_decode_range(const uint8_t *m, size_t len, struct etcd_range_resp *out, char *err)
{
    int rc;

    memset(out, 0, sizeof(*out));
    if ((rc = only_header(m, len, &out->hdr, "range", err)) < 0)
        return rc;
    return read_kvs(m, len, &out->kvs, "range", err);
}

/* DeleteRangeResponse: header 1, deleted 2. */
static int read_deleted(const uint8_t *m, size_t len, int64_t *deleted, const char *where,
                        char *err)
{
    struct rd r = {m, m + len};
    struct fld f;
    int rc;

    while ((rc = next(&r, &f, where, err)) == 1)
        if (f.num == 2 && (rc = get_i64(&f, deleted, where, "deleted", err)) < 0)
            return rc;
    return rc;
}

int etcd_pb_decode_delete(const uint8_t *m, size_t len, struct etcd_delete_resp *out,
                          char *err)
{
    int rc;

    memset(out, 0, sizeof(*out));
    if ((rc = only_header(m, len, &out->hdr, "delete", err)) < 0)
        return rc;
    return read_deleted(m, len, &out->deleted, "delete", err);
}

/* ResponseOp: response_range 1, response_put 2, response_delete_range 3
 * (response_txn 4 answers a nested transaction, never sent). */
static int read_op_resp(const uint8_t *m, size_t len, void *item, const char *where,
                        char *err)
{
    struct etcd_op_resp *o = item;
    struct rd r = {m, m + len};
    struct fld f;
    char w[WHERE_MAX];
    int rc, seen = 0;

    while ((rc = next(&r, &f, where, err)) == 1) {
        if (f.num < 1 || f.num > 3)
            continue;
        if (seen++) {
            etcd_seterr(err, "%s: more than one answer", where);
            return -EBADMSG;
        }
        if ((rc = want(&f, WT_LEN, where, "response", err)) < 0)
            return rc;
        if (f.num == 1) {
            o->kind = ETCD_OP_RANGE;
            where_at(w, where, ".response_range");
            rc = read_kvs(f.d, f.n, &o->kvs, w, err);
        } else if (f.num == 2) {
            o->kind = ETCD_OP_PUT;
        } else {
            o->kind = ETCD_OP_DELETE;
            where_at(w, where, ".response_delete_range");
            rc = read_deleted(f.d, f.n, &o->deleted, w, err);
        }
        if (rc < 0)
            return rc;
    }
    if (rc == 0 && !seen) {
        etcd_seterr(err, "%s: no response_range, response_put or response_delete_range", where);
        return -EBADMSG;
    }
    return rc;
}

/* TxnResponse: header 1, succeeded 2, responses 3. */
int etcd_pb_decode_txn(const uint8_t *m, size_t len, struct etcd_txn_resp *out, char *err)
{
    struct rd r = {m, m + len};
    struct fld f;
    void *items = NULL;
    int rc;

    memset(out, 0, sizeof(*out));
    while ((rc = next(&r, &f, "txn", err)) == 1) {
        if (f.num == 1)
            rc = header_field(&f, &out->hdr, "txn", err);
        else if (f.num == 2)
            rc = get_bool(&f, &out->succeeded, "txn", "succeeded", err);
        if (rc < 0)
            return rc;
    }
    if (rc < 0)
        return rc;
    rc = read_each(m, len, 3, ETCD_TXN_OPS_MAX, sizeof(*out->resp), &items, &out->n_resp,
                   "txn", "responses", read_op_resp, err);
    out->resp = items;
    return rc;
}

/* LeaseGrantResponse (header 1, ID 2, TTL 3, error 4),
 * LeaseKeepAliveResponse (header 1, ID 2, TTL 3),
 * LeaseTimeToLiveResponse (header 1, ID 2, TTL 3, grantedTTL 4). */
int etcd_pb_decode_lease(const uint8_t *m, size_t len, struct etcd_lease_resp *out, char *err)
{
    struct rd r = {m, m + len};
    struct fld f;
    int rc;

    memset(out, 0, sizeof(*out));
    while ((rc = next(&r, &f, "lease", err)) == 1) {
        if (f.num == 1)
            rc = header_field(&f, &out->hdr, "lease", err);
        else if (f.num == 2)
            rc = get_i64(&f, &out->id, "lease", "ID", err);
        else if (f.num == 3)
            rc = get_i64(&f, &out->ttl, "lease", "TTL", err);
        else if (f.num == 4 && f.wt == WT_LEN && f.n) {
            etcd_seterr(err, "lease: etcd says: %.*s", (int)(f.n < 160 ? f.n : 160),
                        (const char *)f.d);
            return -EIO;
        }
        if (rc < 0)
            return rc;
    }
    return rc;
}

/* mvccpb.Event: type 1 (PUT 0, DELETE 1), kv 2, prev_kv 3. */
static int read_event(const uint8_t *m, size_t len, void *item, const char *where, char *err)
{
    struct etcd_event *e = item;
    struct rd r = {m, m + len};
    struct fld f;
    char w[WHERE_MAX];
    bool has_kv = false;
    int rc;

    while ((rc = next(&r, &f, where, err)) == 1) {
        if (f.num == 1) {
            if ((rc = want(&f, WT_VARINT, where, "type", err)) < 0)
                return rc;
            if (f.v > 1) {
                etcd_seterr(err, "%s.type: neither PUT nor DELETE", where);
                return -EBADMSG;
            }
            e->type = f.v ? ETCD_EV_DELETE : ETCD_EV_PUT;
        } else if (f.num == 2 || f.num == 3) {
            if ((rc = want(&f, WT_LEN, where, f.num == 2 ? "kv" : "prev_kv", err)) < 0)
                return rc;
            where_at(w, where, f.num == 2 ? ".kv" : ".prev_kv");
            if ((rc = read_kv(f.d, f.n, f.num == 2 ? &e->kv : &e->prev, w, err)) < 0)
                return rc;
            if (f.num == 2)
                has_kv = true;
            else
                e->has_prev = true;
        }
    }
    if (rc < 0)
        return rc;
    if (!has_kv || !e->kv.key_len) {
        etcd_seterr(err, "%s: %s", where, has_kv ? "empty key" : "no kv");
        return -EBADMSG;
    }
    return 0;
}

/* WatchResponse: header 1, watch_id 2, created 3, canceled 4,
 * compact_revision 5, cancel_reason 6, events 11. */
int etcd_pb_decode_watch(const uint8_t *m, size_t len, struct etcd_watch_resp *out, char *err)
{
    struct rd r = {m, m + len};
    struct fld f;
    void *items = NULL;
    int rc;

    memset(out, 0, sizeof(*out));
    while ((rc = next(&r, &f, "watch", err)) == 1) {
        switch (f.num) {
        case 1:
            rc = header_field(&f, &out->hdr, "watch", err);
            break;
        case 2:
            rc = get_i64(&f, &out->watch_id, "watch", "watch_id", err);
            break;
        case 3:
            rc = get_bool(&f, &out->created, "watch", "created", err);
            break;
        case 4:
            rc = get_bool(&f, &out->canceled, "watch", "canceled", err);
            break;
        case 5:
            rc = get_i64(&f, &out->compact_revision, "watch", "compact_revision", err);
            break;
        case 6:
            if ((rc = want(&f, WT_LEN, "watch", "cancel_reason", err)) == 0)
                snprintf(out->cancel_reason, sizeof(out->cancel_reason), "%.*s",
                         (int)(f.n < ETCD_ERR_MAX ? f.n : ETCD_ERR_MAX - 1),
                         (const char *)f.d);
            break;
        }
        if (rc < 0)
            return rc;
    }
    if (rc < 0)
        return rc;
    rc = read_each(m, len, 11, ETCD_EVENTS_MAX, sizeof(*out->ev), &items, &out->n_ev, "watch",
                   "events", read_event, err);
    out->ev = items;
    return rc;
}

/* AuthenticateResponse: header 1, token 2. */
int etcd_pb_decode_auth(const uint8_t *m, size_t len, char *token, char *err)
{
    struct rd r = {m, m + len};
    struct fld f;
    const uint8_t *t = NULL;
    size_t n = 0;
    int rc;

    token[0] = 0;
    while ((rc = next(&r, &f, "authenticate", err)) == 1) {
        if (f.num != 2)
            continue;
        if ((rc = want(&f, WT_LEN, "authenticate", "token", err)) < 0)
            return rc;
        t = f.d;
        n = f.n;
    }
    if (rc < 0)
        return rc;
    if (!t || !n || n >= ETCD_TOKEN_MAX) {
        etcd_seterr(err, "authenticate: no token, or one over %u bytes", ETCD_TOKEN_MAX - 1);
        return -EBADMSG;
    }
    /* It goes into a header line: printable ASCII only, or a hostile etcd
     * could add headers of its own to our requests. */
    for (size_t i = 0; i < n; i++)
        if (t[i] < 0x21 || t[i] > 0x7e) {
            etcd_seterr(err, "authenticate: token has a byte outside printable ASCII");
            return -EBADMSG;
        }
    memcpy(token, t, n);
    token[n] = 0;
    return 0;
}

long etcd_pb_frame(const uint8_t *buf, size_t len, size_t *msg_off, size_t *msg_len)
{
    uint32_t n;

    if (len < ETCD_PB_FRAME_HEAD)
        return 0;
    if (buf[0] != 0)
        return -EBADMSG;
    n = (uint32_t)buf[1] << 24 | (uint32_t)buf[2] << 16 | (uint32_t)buf[3] << 8 | buf[4];
    if (n > ETCD_PB_MSG_MAX)
        return -EMSGSIZE;
    if (len - ETCD_PB_FRAME_HEAD < n)
        return 0;
    *msg_off = ETCD_PB_FRAME_HEAD;
    *msg_len = n;
    return (long)(ETCD_PB_FRAME_HEAD + n);
}
