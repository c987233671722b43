/*
 * etcd_resp: the JSON gateway's answers as bounded structs, and its errors
 * as errnos (etcd_codec.h is the manual). Strict: a hostile or broken
 * answer fails here, naming the field, instead of reaching the store.
 */
#include "etcd_codec.h"
#include "etcd_codec_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

void etcd_seterr(char *err, const char *fmt, ...)
{
    va_list ap;

    if (!err)
        return;
    va_start(ap, fmt);
    vsnprintf(err, ETCD_ERR_MAX, fmt, ap);
    va_end(ap);
}

int etcd_grpc_errno(int64_t code, const char *message)
{
    /* etcd answers a read or watch below the compaction with OutOfRange
     * (11) and this text; no other code means it. */
    if (message && strstr(message, "required revision has been compacted"))
        return -ESTALE;
    /* A wrong password and a call without a token are InvalidArgument (3)
     * in etcd 3.4, told apart by their text only. */
    if (message && (strstr(message, "etcdserver: authentication failed") ||
                    strstr(message, "etcdserver: user name is empty")))
        return -EPERM;
    switch (code) {
    case 3:
        return -EINVAL;
    case 4:
        return -ETIMEDOUT;
    case 5:
        return -ENOENT;
    case 7:
    case 16:
        return -EPERM;
    case 14:
        return -EAGAIN;
    default:
        return -EIO;
    }
}

static int parse_i64_text(const char *s, int64_t *out)
{
    bool neg = *s == '-';
    uint64_t v = 0;

    s += neg;
    if (!*s || strlen(s) > 19)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    if (v > (uint64_t)INT64_MAX + neg)
        return -1;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

static int get_i64(json_t *o, const char *name, int64_t *out, const char *where, char *err)
{
    json_t *v = json_object_get(o, name);

    *out = 0;
    if (!v)
        return 0;
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
        return 0;
    }
    if (json_is_string(v) && parse_i64_text(json_string_value(v), out) == 0)
        return 0;
    etcd_seterr(err, "%s.%s: not a 64-bit integer", where, name);
    return -EBADMSG;
}

static int get_bool(json_t *o, const char *name, bool *out, const char *where, char *err)
{
    json_t *v = json_object_get(o, name);

    *out = false;
    if (!v)
        return 0;
    if (!json_is_boolean(v)) {
        etcd_seterr(err, "%s.%s: not a boolean", where, name);
        return -EBADMSG;
    }
    *out = json_is_true(v);
    return 0;
}

/* A base64 field into a NUL-terminated copy no longer than bound. */
static int get_bytes(json_t *o, const char *name, size_t bound, uint8_t **out, size_t *len,
                     const char *where, char *err)
{
    json_t *v = json_object_get(o, name);
    size_t n = v && json_is_string(v) ? json_string_length(v) : 0;

    *out = NULL;
    *len = 0;
    if (v && !json_is_string(v)) {
        etcd_seterr(err, "%s.%s: not a string", where, name);
        return -EBADMSG;
    }
    if (n > ETCD_B64_LEN(bound)) {
        etcd_seterr(err, "%s.%s: longer than %zu bytes", where, name, bound);
        return -EMSGSIZE;
    }
    if (!(*out = malloc(n / 4 * 3 + 1)))
        return -ENOMEM;
    int got = n ? etcd_b64_decode(json_string_value(v), n, *out) : 0;
    if (got < 0) {
        etcd_seterr(err, "%s.%s: not base64", where, name);
        return -EBADMSG;
    }
    if ((size_t)got > bound) {
        etcd_seterr(err, "%s.%s: longer than %zu bytes", where, name, bound);
        return -EMSGSIZE;
    }
    (*out)[got] = 0;
    *len = (size_t)got;
    return 0;
}

static json_t *get_obj(json_t *o, const char *name, const char *where, char *err, int *rc)
{
    json_t *v = json_object_get(o, name);

    *rc = 0;
    if (v && !json_is_object(v)) {
        etcd_seterr(err, "%s.%s: not an object", where, name);
        *rc = -EBADMSG;
        return NULL;
    }
    return v;
}

static json_t *get_array(json_t *o, const char *name, size_t bound, const char *where,
                         char *err, int *rc)
{
    json_t *v = json_object_get(o, name);

    *rc = 0;
    if (v && !json_is_array(v)) {
        etcd_seterr(err, "%s.%s: not an array", where, name);
        *rc = -EBADMSG;
        return NULL;
    }
    if (v && json_array_size(v) > bound) {
        etcd_seterr(err, "%s.%s: more than %zu entries", where, name, bound);
        *rc = -EMSGSIZE;
        return NULL;
    }
    return v;
}

static int read_header(json_t *o, struct etcd_header *h, char *err)
{
    int rc;
    json_t *v = get_obj(o, "header", "answer", err, &rc);
    int64_t member = 0;

    memset(h, 0, sizeof(*h));
    if (!v)
        return rc;
    if ((rc = get_i64(v, "revision", &h->revision, "header", err)) < 0 ||
        (rc = get_i64(v, "raft_term", &h->raft_term, "header", err)) < 0)
        return rc;
    /* member_id is a uint64 that may pass INT64_MAX; only shown, so an
     * unsigned text is read as such and anything else left at 0. */
    json_t *m = json_object_get(v, "member_id");
    if (m && json_is_string(m))
        h->member_id = strtoull(json_string_value(m), NULL, 10);
    else if (get_i64(v, "member_id", &member, "header", NULL) == 0)
        h->member_id = (uint64_t)member;
    return 0;
}

static void kv_free(struct etcd_kv *kv)
{
    free(kv->key);
    free(kv->value);
    kv->key = kv->value = NULL;
}

static int read_kv(json_t *o, struct etcd_kv *kv, const char *where, char *err)
{
    int rc;

    memset(kv, 0, sizeof(*kv));
    if (!json_is_object(o)) {
        etcd_seterr(err, "%s: not an object", where);
        return -EBADMSG;
    }
    if ((rc = get_bytes(o, "key", ETCD_KEY_MAX, &kv->key, &kv->key_len, where, err)) < 0 ||
        (rc = get_bytes(o, "value", ETCD_VALUE_MAX, &kv->value, &kv->value_len, where,
                        err)) < 0 ||
        (rc = get_i64(o, "create_revision", &kv->create_revision, where, err)) < 0 ||
        (rc = get_i64(o, "mod_revision", &kv->mod_revision, where, err)) < 0 ||
        (rc = get_i64(o, "version", &kv->version, where, err)) < 0 ||
        (rc = get_i64(o, "lease", &kv->lease, where, err)) < 0)
        return rc;
    return 0;
}

/* A field's path in an error message ("kvs[3].key"): where, cut so the
 * path fits WHERE_MAX with any suffix of up to 23 bytes. */
#define WHERE_MAX 96
static void where_at(char w[WHERE_MAX], const char *where, const char *suffix)
{
    snprintf(w, WHERE_MAX, "%.*s%s", WHERE_MAX - 24, where, suffix);
}

/* Reads each entry of a (possibly absent) array into a calloc'd table of
 * `size`-byte items; *n counts the entries read so far, the failed one
 * included, so the caller's free releases whatever was taken. */
static int read_each(json_t *a, size_t size, void **items, size_t *n, const char *where,
                     int (*one)(json_t *, void *, const char *, char *), char *err)
{
    char w[WHERE_MAX], idx[24];
    int rc = 0;

    if (!a || !json_array_size(a))
        return 0;
    if (!(*items = calloc(json_array_size(a), size)))
        return -ENOMEM;
    for (size_t i = 0; i < json_array_size(a) && rc == 0; i++) {
        snprintf(idx, sizeof(idx), "[%zu]", i);
        where_at(w, where, idx);
        rc = one(json_array_get(a, i), (char *)*items + i * size, w, err);
        *n = i + 1;
    }
    return rc;
}

static int one_kv(json_t *o, void *kv, const char *where, char *err)
{
    return read_kv(o, kv, where, err);
}

static int read_kvs(json_t *o, struct etcd_kvs *k, const char *where, char *err)
{
    int rc;
    json_t *a = get_array(o, "kvs", ETCD_KVS_MAX, where, err, &rc);
    char w[WHERE_MAX];
    void *items = NULL;

    memset(k, 0, sizeof(*k));
    if (rc)
        return rc;
    if ((rc = get_bool(o, "more", &k->more, where, err)) < 0 ||
        (rc = get_i64(o, "count", &k->count, where, err)) < 0)
        return rc;
    where_at(w, where, ".kvs");
    rc = read_each(a, sizeof(*k->kv), &items, &k->n, w, one_kv, err);
    k->kv = items;
    return rc;
}

void etcd_kvs_free(struct etcd_kvs *k)
{
    for (size_t i = 0; i < k->n; i++)
        kv_free(&k->kv[i]);
    free(k->kv);
    k->kv = NULL;
    k->n = 0;
}

/* The gateway's error forms: unary {"error": "...", "code": N, "message":
 * "..."}; a stream's {"error": {"grpc_code": N, "message": "..."}}. */
static int gateway_error(json_t *o, char *err)
{
    json_t *e = json_object_get(o, "error");
    json_t *src = json_is_object(e) ? e : o;
    int64_t code = 0;
    const char *msg = json_string_value(json_object_get(src, "message"));

    if (!e)
        return 0;
    if (get_i64(src, json_is_object(e) ? "grpc_code" : "code", &code, "error", NULL) < 0)
        code = 2;
    if (!msg)
        msg = json_is_string(e) ? json_string_value(e) : "etcd error without a message";
    etcd_seterr(err, "etcd: %s (code %" PRId64 ")", msg, code);
    return etcd_grpc_errno(code, msg);
}

/* Parse, then a gateway error or the object to decode. */
static json_t *load(const char *text, size_t len, char *err, int *rc)
{
    json_error_t je;
    json_t *o;

    *rc = 0;
    if (len > ETCD_TEXT_MAX) {
        etcd_seterr(err, "answer of %zu bytes, over %u", len, ETCD_TEXT_MAX);
        *rc = -EMSGSIZE;
        return NULL;
    }
    o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!o) {
        etcd_seterr(err, "answer is not JSON: %s (line %d)", je.text, je.line);
        *rc = -EBADMSG;
        return NULL;
    }
    if (!json_is_object(o)) {
        etcd_seterr(err, "answer is not a JSON object");
        *rc = -EBADMSG;
    } else {
        *rc = gateway_error(o, err);
    }
    if (*rc) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* Every decoder: out zeroed first (so its free is safe whatever happens),
 * the text parsed and checked for a gateway error, then body reads it. */
static int decode(const char *text, size_t len, void *out, size_t size,
                  int (*body)(json_t *, void *, char *), char *err)
{
    int rc;
    json_t *o;

    memset(out, 0, size);
    if (!(o = load(text, len, err, &rc)))
        return rc;
    rc = body(o, out, err);
    json_decref(o);
    return rc;
}

static int body_header(json_t *o, void *out, char *err)
{
    return read_header(o, out, err);
}

int etcd_decode_header_only(const char *text, size_t len, struct etcd_header *out, char *err)
{
    return decode(text, len, out, sizeof(*out), body_header, err);
}

static int body_range(json_t *o, void *out, char *err)
{
    struct etcd_range_resp *r = out;
    int rc = read_header(o, &r->hdr, err);

    return rc ? rc : read_kvs(o, &r->kvs, "range", err);
}

int etcd_decode_range(const char *text, size_t len, struct etcd_range_resp *out, char *err)
{
    return decode(text, len, out, sizeof(*out), body_range, err);
}

void etcd_range_resp_free(struct etcd_range_resp *r)
{
    etcd_kvs_free(&r->kvs);
}

int etcd_range_next_page(const struct etcd_range_resp *resp, uint8_t **from,
                         size_t *from_len)
{
    if (!resp->kvs.more || resp->kvs.n == 0)
        return 0;
    const struct etcd_kv *last = &resp->kvs.kv[resp->kvs.n - 1];
    uint8_t *n = realloc(*from, last->key_len + 1);
    if (!n)
        return -ENOMEM;
    memcpy(n, last->key, last->key_len);
    n[last->key_len] = '\0';
    *from = n;
    *from_len = last->key_len + 1;
    return 1;
}

static int body_delete(json_t *o, void *out, char *err)
{
    struct etcd_delete_resp *d = out;
    int rc = read_header(o, &d->hdr, err);

    return rc ? rc : get_i64(o, "deleted", &d->deleted, "delete", err);
}

int etcd_decode_delete(const char *text, size_t len, struct etcd_delete_resp *out, char *err)
{
    return decode(text, len, out, sizeof(*out), body_delete, err);
}

static int read_op_resp(json_t *o, struct etcd_op_resp *r, const char *where, char *err)
{
    json_t *v;

    memset(r, 0, sizeof(*r));
    if (!json_is_object(o) || json_object_size(o) != 1) {
        etcd_seterr(err, "%s: not an object with one answer", where);
        return -EBADMSG;
    }
    if ((v = json_object_get(o, "response_range")) && json_is_object(v)) {
        r->kind = ETCD_OP_RANGE;
        return read_kvs(v, &r->kvs, where, err);
    }
    if ((v = json_object_get(o, "response_put")) && json_is_object(v)) {
        r->kind = ETCD_OP_PUT;
        return 0;
    }
    if ((v = json_object_get(o, "response_delete_range")) && json_is_object(v)) {
        r->kind = ETCD_OP_DELETE;
        return get_i64(v, "deleted", &r->deleted, where, err);
    }
    etcd_seterr(err, "%s: no response_range, response_put or response_delete_range", where);
    return -EBADMSG;
}

static int one_op_resp(json_t *o, void *r, const char *where, char *err)
{
    return read_op_resp(o, r, where, err);
}

static int body_txn(json_t *o, void *out, char *err)
{
    struct etcd_txn_resp *t = out;
    void *items = NULL;
    json_t *a;
    int rc;

    if ((rc = read_header(o, &t->hdr, err)) < 0 ||
        (rc = get_bool(o, "succeeded", &t->succeeded, "txn", err)) < 0)
        return rc;
    a = get_array(o, "responses", ETCD_TXN_OPS_MAX, "txn", err, &rc);
    if (rc)
        return rc;
    rc = read_each(a, sizeof(*t->resp), &items, &t->n_resp, "txn.responses", one_op_resp, err);
    t->resp = items;
    return rc;
}

int etcd_decode_txn(const char *text, size_t len, struct etcd_txn_resp *out, char *err)
{
    return decode(text, len, out, sizeof(*out), body_txn, err);
}

void etcd_txn_resp_free(struct etcd_txn_resp *t)
{
    for (size_t i = 0; i < t->n_resp; i++)
        etcd_kvs_free(&t->resp[i].kvs);
    free(t->resp);
    t->resp = NULL;
    t->n_resp = 0;
}

/* A stream's message: {"result": {...}}, the result object returned. */
static json_t *stream_result(json_t *o, const char *what, char *err, int *rc)
{
    json_t *r = json_object_get(o, "result");

    if (!json_is_object(r)) {
        etcd_seterr(err, "%s: no result object", what);
        *rc = -EBADMSG;
        return NULL;
    }
    return r;
}

static int body_lease(json_t *o, void *out, char *err)
{
    struct etcd_lease_resp *l = out;
    int rc = 0;
    json_t *r = json_object_get(o, "result") ? stream_result(o, "lease", err, &rc) : o;

    if (!r || (rc = read_header(r, &l->hdr, err)) < 0 ||
        (rc = get_i64(r, "ID", &l->id, "lease", err)) < 0)
        return rc;
    return get_i64(r, "TTL", &l->ttl, "lease", err);
}

int etcd_decode_lease(const char *text, size_t len, struct etcd_lease_resp *out, char *err)
{
    return decode(text, len, out, sizeof(*out), body_lease, err);
}

static int read_event(json_t *o, struct etcd_event *e, const char *where, char *err)
{
    json_t *t = json_object_get(o, "type");
    json_t *kv, *prev;
    int rc;
    char w[WHERE_MAX];

    memset(e, 0, sizeof(*e));
    if (!json_is_object(o)) {
        etcd_seterr(err, "%s: not an object", where);
        return -EBADMSG;
    }
    if (t && (!json_is_string(t) || (strcmp(json_string_value(t), "PUT") &&
                                     strcmp(json_string_value(t), "DELETE")))) {
        etcd_seterr(err, "%s.type: neither PUT nor DELETE", where);
        return -EBADMSG;
    }
    e->type = t && !strcmp(json_string_value(t), "DELETE") ? ETCD_EV_DELETE : ETCD_EV_PUT;
    if (!(kv = get_obj(o, "kv", where, err, &rc))) {
        if (!rc)
            etcd_seterr(err, "%s: no kv", where);
        return rc ? rc : -EBADMSG;
    }
    where_at(w, where, ".kv");
    if ((rc = read_kv(kv, &e->kv, w, err)) < 0)
        return rc;
    if (!e->kv.key_len) {
        etcd_seterr(err, "%s: empty key", w);
        return -EBADMSG;
    }
    if (!(prev = get_obj(o, "prev_kv", where, err, &rc)))
        return rc;
    where_at(w, where, ".prev_kv");
    e->has_prev = true;
    return read_kv(prev, &e->prev, w, err);
}

static int one_event(json_t *o, void *e, const char *where, char *err)
{
    return read_event(o, e, where, err);
}

static int body_watch(json_t *o, void *out, char *err)
{
    struct etcd_watch_resp *w = out;
    void *items = NULL;
    json_t *r, *a, *reason;
    int rc = 0;

    if (!(r = stream_result(o, "watch", err, &rc)))
        return rc;
    if ((rc = read_header(r, &w->hdr, err)) < 0 ||
        (rc = get_i64(r, "watch_id", &w->watch_id, "watch", err)) < 0 ||
        (rc = get_bool(r, "created", &w->created, "watch", err)) < 0 ||
        (rc = get_bool(r, "canceled", &w->canceled, "watch", err)) < 0 ||
        (rc = get_i64(r, "compact_revision", &w->compact_revision, "watch", err)) < 0)
        return rc;
    if ((reason = json_object_get(r, "cancel_reason")) && json_is_string(reason))
        snprintf(w->cancel_reason, sizeof(w->cancel_reason), "%s", json_string_value(reason));
    a = get_array(r, "events", ETCD_EVENTS_MAX, "watch", err, &rc);
    if (rc)
        return rc;
    rc = read_each(a, sizeof(*w->ev), &items, &w->n_ev, "watch.events", one_event, err);
    w->ev = items;
    return rc;
}

int etcd_decode_watch(const char *text, size_t len, struct etcd_watch_resp *out, char *err)
{
    return decode(text, len, out, sizeof(*out), body_watch, err);
}

int etcd_watch_end(const struct etcd_watch_resp *r)
{
    if (r->compact_revision > 0)
        return -ESTALE;
    if (!r->canceled)
        return 0;
    /* etcd puts the gRPC status of a refused watch in its reason text. */
    if (strstr(r->cancel_reason, "code = Unauthenticated") ||
        strstr(r->cancel_reason, "code = PermissionDenied"))
        return -EPERM;
    return -ECANCELED;
}

void etcd_watch_resp_free(struct etcd_watch_resp *w)
{
    for (size_t i = 0; i < w->n_ev; i++) {
        kv_free(&w->ev[i].kv);
        kv_free(&w->ev[i].prev);
    }
    free(w->ev);
    w->ev = NULL;
    w->n_ev = 0;
}

static int body_auth(json_t *o, void *token, char *err)
{
    json_t *t = json_object_get(o, "token");
    const char *s = json_string_value(t);

    if (!s || !json_string_length(t) || json_string_length(t) >= ETCD_TOKEN_MAX ||
        strlen(s) != json_string_length(t)) {
        etcd_seterr(err, "authenticate: no token, or one over %u bytes", ETCD_TOKEN_MAX - 1);
        return -EBADMSG;
    }
    /* It goes into a header line: printable ASCII only, or a hostile etcd
     * could add headers of its own to our requests. */
    for (size_t i = 0; s[i]; i++)
        if (s[i] < 0x21 || s[i] > 0x7e) {
            etcd_seterr(err, "authenticate: token has a byte outside printable ASCII");
            return -EBADMSG;
        }
    memcpy(token, s, json_string_length(t) + 1);
    return 0;
}

int etcd_decode_auth(const char *text, size_t len, char *token, char *err)
{
    return decode(text, len, token, ETCD_TOKEN_MAX, body_auth, err);
}
