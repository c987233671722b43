/*
 * etcd_pb_req: etcd's gRPC requests as protobuf bytes (etcd_pb.h is the
 * manual). A nested message is written in place: its tag, room for the
 * longest length varint, the message, then the length written and the
 * message moved up against it.
 */
#include "etcd_pb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { WT_VARINT = 0, WT_LEN = 2 };
#define VARINT_MAX 10u
#define LEN_ROOM 5u  /* a length varint below 2^35 */

void etcd_pb_free(struct etcd_pb *b)
{
    free(b->p);
    memset(b, 0, sizeof(*b));
}

static uint8_t *room(struct etcd_pb *b, size_t n)
{
    if (b->err)
        return NULL;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            b->err = -ENOMEM;
            return NULL;
        }
        b->p = p;
        b->cap = cap;
    }
    return b->p + b->len;
}

static size_t varint_at(uint8_t *p, uint64_t v)
{
    size_t n = 0;

    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static void varint(struct etcd_pb *b, uint64_t v)
{
    uint8_t *p = room(b, VARINT_MAX);

    if (p)
        b->len += varint_at(p, v);
}

static void tag(struct etcd_pb *b, unsigned field, unsigned wt)
{
    varint(b, (uint64_t)field << 3 | wt);
}

/* A bytes field; empty is its default, left out as proto3 does. */
static void bytes(struct etcd_pb *b, unsigned field, const void *p, size_t n)
{
    uint8_t *d;

    if (!n)
        return;
    tag(b, field, WT_LEN);
    varint(b, n);
    if ((d = room(b, n))) {
        memcpy(d, p, n);
        b->len += n;
    }
}

static void i64(struct etcd_pb *b, unsigned field, int64_t v)
{
    if (!v)
        return;
    tag(b, field, WT_VARINT);
    varint(b, (uint64_t)v);
}

static void flag(struct etcd_pb *b, unsigned field, bool v)
{
    if (!v)
        return;
    tag(b, field, WT_VARINT);
    varint(b, 1);
}

/* Opens a nested message: returns where its body starts. */
static size_t open_msg(struct etcd_pb *b, unsigned field)
{
    tag(b, field, WT_LEN);
    if (room(b, LEN_ROOM))
        b->len += LEN_ROOM;
    return b->len;
}

static void close_msg(struct etcd_pb *b, size_t body)
{
    uint8_t len[VARINT_MAX];
    size_t body_len, n;

    if (b->err)
        return;
    body_len = b->len - body;
    if (body_len >= (1ull << 35)) {
        b->err = -EINVAL;
        return;
    }
    n = varint_at(len, body_len);
    memcpy(b->p + body - LEN_ROOM, len, n);
    memmove(b->p + body - LEN_ROOM + n, b->p + body, body_len);
    b->len -= LEN_ROOM - n;
}

static void begin(struct etcd_pb *b)
{
    memset(b, 0, sizeof(*b));
    if (room(b, ETCD_PB_FRAME_HEAD))
        b->len = ETCD_PB_FRAME_HEAD;
}

/* The frame head, once the message is whole. */
static int finish(struct etcd_pb *b, int rc)
{
    size_t n;

    if (rc == 0)
        rc = b->err;
    if (rc == 0 && (n = b->len - ETCD_PB_FRAME_HEAD) > ETCD_PB_MSG_MAX)
        rc = -EINVAL;
    if (rc) {
        etcd_pb_free(b);
        return rc;
    }
    b->p[0] = 0;
    b->p[1] = (uint8_t)(n >> 24);
    b->p[2] = (uint8_t)(n >> 16);
    b->p[3] = (uint8_t)(n >> 8);
    b->p[4] = (uint8_t)n;
    return 0;
}

static int check_key(const void *key, size_t len, bool empty_ok)
{
    if ((!key && len) || len > ETCD_KEY_MAX || (!len && !empty_ok))
        return -EINVAL;
    return 0;
}

/* key (field 1) and range_end (field 2) for one key, a prefix or an
 * explicit range; an empty key is "\0", as the gateway's builder sends. */
static int span(struct etcd_pb *b, const void *key, size_t key_len, bool prefix,
                const void *end, size_t end_len)
{
    int rc = check_key(key, key_len, prefix);

    if (rc || end_len > ETCD_KEY_MAX || (!end && end_len))
        return rc ? rc : -EINVAL;
    bytes(b, 1, key_len ? key : "", key_len ? key_len : 1);
    if (prefix) {
        uint8_t e[ETCD_KEY_MAX];
        size_t n = key_len ? etcd_prefix_end(key, key_len, e) : 1;

        if (!key_len)
            e[0] = 0;
        bytes(b, 2, e, n);
    } else {
        bytes(b, 2, end, end_len);
    }
    return 0;
}

/* PutRequest: key 1, value 2, lease 3. */
static int put(struct etcd_pb *b, const struct etcd_put *p)
{
    int rc = check_key(p->key, p->key_len, false);

    if (rc)
        return rc;
    if ((!p->value && p->value_len) || p->value_len > ETCD_VALUE_MAX || p->lease < 0)
        return -EINVAL;
    bytes(b, 1, p->key, p->key_len);
    bytes(b, 2, p->value, p->value_len);
    i64(b, 3, p->lease);
    return 0;
}

/* RangeRequest: key 1, range_end 2, limit 3, revision 4, keys_only 8. */
static int range(struct etcd_pb *b, const struct etcd_range *r)
{
    int rc;

    if (r->limit < 0 || r->revision < 0)
        return -EINVAL;
    if ((rc = span(b, r->key, r->key_len, r->prefix, r->range_end, r->range_end_len)) < 0)
        return rc;
    i64(b, 3, r->limit);
    i64(b, 4, r->revision);
    flag(b, 8, r->keys_only);
    return 0;
}

/* DeleteRangeRequest: key 1, range_end 2. */
static int del(struct etcd_pb *b, const struct etcd_delete *d)
{
    return span(b, d->key, d->key_len, d->prefix, NULL, 0);
}

int etcd_pb_req_put(const struct etcd_put *p, struct etcd_pb *out)
{
    begin(out);
    return finish(out, put(out, p));
}

int etcd_pb_req_range(const struct etcd_range *r, struct etcd_pb *out)
{
    begin(out);
    return finish(out, range(out, r));
}

int etcd_pb_req_delete(const struct etcd_delete *d, struct etcd_pb *out)
{
    begin(out);
    return finish(out, del(out, d));
}

/* Compare: result 1, target 2, key 3, then version 4, create_revision 5,
 * mod_revision 6 or value 7 by target. */
static int cmp(struct etcd_pb *b, const struct etcd_cmp *c)
{
    int rc;

    if ((unsigned)c->target > ETCD_CMP_VALUE || (unsigned)c->result > ETCD_CMP_NOT_EQUAL ||
        (rc = check_key(c->key, c->key_len, false)) < 0 || c->number < 0 ||
        (!c->value && c->value_len) || c->value_len > ETCD_VALUE_MAX)
        return -EINVAL;
    /* The enums' numbers are etcd's: EQUAL 0 .. NOT_EQUAL 3, VERSION 0 ..
     * VALUE 3. */
    i64(b, 1, (int64_t)c->result);
    i64(b, 2, (int64_t)c->target);
    bytes(b, 3, c->key, c->key_len);
    if (c->target == ETCD_CMP_VALUE) {
        /* A oneof member is written even at its default, as the
         * gateway's request carries it (etcd reads it unset as the same). */
        uint8_t *d;
        tag(b, 7, WT_LEN);
        varint(b, c->value_len);
        if (c->value_len && (d = room(b, c->value_len))) {
            memcpy(d, c->value, c->value_len);
            b->len += c->value_len;
        }
    } else {
        tag(b, 4 + (unsigned)c->target, WT_VARINT);
        varint(b, (uint64_t)c->number);
    }
    return 0;
}

/* RequestOp: request_range 1, request_put 2, request_delete_range 3. */
static int op(struct etcd_pb *b, const struct etcd_op *o)
{
    size_t at;
    int rc;

    switch (o->kind) {
    case ETCD_OP_RANGE:
        at = open_msg(b, 1);
        rc = range(b, &o->u.range);
        break;
    case ETCD_OP_PUT:
        at = open_msg(b, 2);
        rc = put(b, &o->u.put);
        break;
    case ETCD_OP_DELETE:
        at = open_msg(b, 3);
        rc = del(b, &o->u.del);
        break;
    default:
        return -EINVAL;
    }
    close_msg(b, at);
    return rc;
}

/* TxnRequest: compare 1, success 2, failure 3 (each repeated). */
static int txn(struct etcd_pb *b, const struct etcd_txn *t)
{
    int rc = 0;

    if (t->n_cmp > ETCD_TXN_OPS_MAX || t->n_success > ETCD_TXN_OPS_MAX ||
        t->n_failure > ETCD_TXN_OPS_MAX || (t->n_cmp && !t->cmp) ||
        (t->n_success && !t->success) || (t->n_failure && !t->failure))
        return -EINVAL;
    for (size_t i = 0; i < t->n_cmp && rc == 0; i++) {
        size_t at = open_msg(b, 1);
        rc = cmp(b, &t->cmp[i]);
        close_msg(b, at);
    }
    for (size_t i = 0; i < t->n_success && rc == 0; i++) {
        size_t at = open_msg(b, 2);
        rc = op(b, &t->success[i]);
        close_msg(b, at);
    }
    for (size_t i = 0; i < t->n_failure && rc == 0; i++) {
        size_t at = open_msg(b, 3);
        rc = op(b, &t->failure[i]);
        close_msg(b, at);
    }
    return rc;
}

int etcd_pb_req_txn(const struct etcd_txn *t, struct etcd_pb *out)
{
    begin(out);
    return finish(out, txn(out, t));
}

/* CompactionRequest: revision 1, physical 2. */
int etcd_pb_req_compact(int64_t revision, bool physical, struct etcd_pb *out)
{
    begin(out);
    if (revision <= 0)
        return finish(out, -EINVAL);
    i64(out, 1, revision);
    flag(out, 2, physical);
    return finish(out, 0);
}

/* LeaseGrantRequest: TTL 1. */
int etcd_pb_req_lease_grant(int64_t ttl_s, struct etcd_pb *out)
{
    begin(out);
    if (ttl_s <= 0)
        return finish(out, -EINVAL);
    i64(out, 1, ttl_s);
    return finish(out, 0);
}

/* LeaseKeepAliveRequest, LeaseRevokeRequest, LeaseTimeToLiveRequest: ID 1. */
int etcd_pb_req_lease_id(int64_t id, struct etcd_pb *out)
{
    begin(out);
    if (id <= 0)
        return finish(out, -EINVAL);
    i64(out, 1, id);
    return finish(out, 0);
}

/* WatchRequest: create_request 1 = WatchCreateRequest: key 1, range_end
 * 2, start_revision 3, prev_kv 6. */
int etcd_pb_req_watch(const struct etcd_watch_req *w, struct etcd_pb *out)
{
    size_t at;
    int rc;

    begin(out);
    if (w->start_revision < 0)
        return finish(out, -EINVAL);
    at = open_msg(out, 1);
    rc = span(out, w->key, w->key_len, w->prefix, w->range_end, w->range_end_len);
    i64(out, 3, w->start_revision);
    flag(out, 6, w->prev_kv);
    close_msg(out, at);
    return finish(out, rc);
}

/* AuthenticateRequest: name 1, password 2. */
int etcd_pb_req_auth(const char *name, const char *password, struct etcd_pb *out)
{
    begin(out);
    if (!name || !password || !*name || strlen(name) > ETCD_KEY_MAX ||
        strlen(password) > ETCD_KEY_MAX)
        return finish(out, -EINVAL);
    bytes(out, 1, name, strlen(name));
    bytes(out, 2, password, strlen(password));
    return finish(out, 0);
}
