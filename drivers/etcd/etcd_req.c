/*
 * etcd_req: the JSON gateway's requests as exact text (etcd_codec.h is the
 * manual): keys and values base64, 64-bit numbers as decimal strings,
 * fields in one fixed order; bad input is -EINVAL before anything is sent.
 */
#include "etcd_codec.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static int set_bytes(json_t *o, const char *name, const void *p, size_t n)
{
    char *s = malloc(ETCD_B64_LEN(n) + 1);

    if (!s)
        return -ENOMEM;
    etcd_b64_encode(p, n, s);
    int rc = json_object_set_new(o, name, json_string(s)) ? -ENOMEM : 0;
    free(s);
    return rc;
}

static int set_num(json_t *o, const char *name, int64_t v)
{
    char s[24];

    snprintf(s, sizeof(s), "%" PRId64, v);
    return json_object_set_new(o, name, json_string(s)) ? -ENOMEM : 0;
}

static int set_true(json_t *o, const char *name)
{
    return json_object_set_new(o, name, json_true()) ? -ENOMEM : 0;
}

static int check_key(const void *key, size_t len, bool empty_ok)
{
    if ((!key && len) || len > ETCD_KEY_MAX || (!len && !empty_ok))
        return -EINVAL;
    return 0;
}

/* key plus range_end for one key, a prefix or an explicit range. */
static int set_span(json_t *o, const void *key, size_t key_len, bool prefix,
                    const void *end, size_t end_len)
{
    int rc = check_key(key, key_len, prefix);

    if (rc || end_len > ETCD_KEY_MAX || (!end && end_len))
        return rc ? rc : -EINVAL;
    if ((rc = set_bytes(o, "key", key_len ? key : "", key_len ? key_len : 1)) < 0)
        return rc;
    if (prefix) {
        uint8_t e[ETCD_KEY_MAX];
        size_t n = key_len ? etcd_prefix_end(key, key_len, e) : 1;

        if (!key_len)
            e[0] = 0;
        return set_bytes(o, "range_end", e, n);
    }
    if (end_len)
        return set_bytes(o, "range_end", end, end_len);
    return 0;
}

static int build_put(json_t *o, const struct etcd_put *p)
{
    int rc = check_key(p->key, p->key_len, false);

    if (rc)
        return rc;
    if ((!p->value && p->value_len) || p->value_len > ETCD_VALUE_MAX || p->lease < 0)
        return -EINVAL;
    if ((rc = set_bytes(o, "key", p->key, p->key_len)) < 0 ||
        (rc = set_bytes(o, "value", p->value_len ? p->value : "", p->value_len)) < 0)
        return rc;
    return p->lease ? set_num(o, "lease", p->lease) : 0;
}

static int build_range(json_t *o, const struct etcd_range *r)
{
    int rc;

    if (r->limit < 0 || r->revision < 0)
        return -EINVAL;
    if ((rc = set_span(o, r->key, r->key_len, r->prefix, r->range_end, r->range_end_len)) < 0)
        return rc;
    if (r->limit && (rc = set_num(o, "limit", r->limit)) < 0)
        return rc;
    if (r->revision && (rc = set_num(o, "revision", r->revision)) < 0)
        return rc;
    return r->keys_only ? set_true(o, "keys_only") : 0;
}

static int build_delete(json_t *o, const struct etcd_delete *d)
{
    return set_span(o, d->key, d->key_len, d->prefix, NULL, 0);
}

static int finish(json_t *o, int rc, char **out)
{
    if (rc == 0) {
        *out = json_dumps(o, JSON_COMPACT);
        if (!*out)
            rc = -ENOMEM;
    }
    json_decref(o);
    return rc;
}

#define BUILD(fn, arg, out)                     \
    do {                                        \
        json_t *o_ = json_object();             \
        if (!o_)                                \
            return -ENOMEM;                     \
        return finish(o_, fn(o_, arg), out);    \
    } while (0)

int etcd_req_put(const struct etcd_put *p, char **out)
{
    BUILD(build_put, p, out);
}

int etcd_req_range(const struct etcd_range *r, char **out)
{
    BUILD(build_range, r, out);
}

int etcd_req_delete(const struct etcd_delete *d, char **out)
{
    BUILD(build_delete, d, out);
}

static const char *const CMP_TARGET[] = {"VERSION", "CREATE", "MOD", "VALUE"};
static const char *const CMP_RESULT[] = {"EQUAL", "GREATER", "LESS", "NOT_EQUAL"};
static const char *const CMP_FIELD[] = {"version", "create_revision", "mod_revision"};
static const char *const OP_NAME[] = {"request_range", "request_put", "request_delete_range"};

static int build_cmp(json_t *o, const struct etcd_cmp *c)
{
    int rc;

    if ((unsigned)c->target > ETCD_CMP_VALUE || (unsigned)c->result > ETCD_CMP_NOT_EQUAL ||
        (rc = check_key(c->key, c->key_len, false)) < 0 || c->number < 0 ||
        (!c->value && c->value_len) || c->value_len > ETCD_VALUE_MAX)
        return -EINVAL;
    if (json_object_set_new(o, "target", json_string(CMP_TARGET[c->target])) ||
        json_object_set_new(o, "result", json_string(CMP_RESULT[c->result])))
        return -ENOMEM;
    if ((rc = set_bytes(o, "key", c->key, c->key_len)) < 0)
        return rc;
    if (c->target == ETCD_CMP_VALUE)
        return set_bytes(o, "value", c->value_len ? c->value : "", c->value_len);
    return set_num(o, CMP_FIELD[c->target], c->number);
}

static int build_op(json_t *o, const struct etcd_op *op)
{
    json_t *in = json_object();
    int rc;

    if (!in)
        return -ENOMEM;
    switch (op->kind) {
    case ETCD_OP_RANGE:
        rc = build_range(in, &op->u.range);
        break;
    case ETCD_OP_PUT:
        rc = build_put(in, &op->u.put);
        break;
    case ETCD_OP_DELETE:
        rc = build_delete(in, &op->u.del);
        break;
    default:
        rc = -EINVAL;
    }
    if (rc == 0 && json_object_set_new(o, OP_NAME[op->kind], in))
        return -ENOMEM;
    if (rc)
        json_decref(in);
    return rc;
}

static int build_list(json_t *o, const char *name, const void *items, size_t n, size_t size,
                      int (*one)(json_t *, const void *))
{
    json_t *a;

    if (n > ETCD_TXN_OPS_MAX || (n && !items))
        return -EINVAL;
    if (!n)
        return 0;
    if (!(a = json_array()))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_object();
        int rc = e ? one(e, (const char *)items + i * size) : -ENOMEM;

        if (rc == 0 && json_array_append_new(a, e))
            rc = -ENOMEM;
        else if (rc && e)
            json_decref(e);
        if (rc) {
            json_decref(a);
            return rc;
        }
    }
    return json_object_set_new(o, name, a) ? -ENOMEM : 0;
}

static int one_cmp(json_t *o, const void *c)
{
    return build_cmp(o, c);
}

static int one_op(json_t *o, const void *op)
{
    return build_op(o, op);
}

static int build_txn(json_t *o, const struct etcd_txn *t)
{
    int rc;

    if ((rc = build_list(o, "compare", t->cmp, t->n_cmp, sizeof(*t->cmp), one_cmp)) < 0 ||
        (rc = build_list(o, "success", t->success, t->n_success, sizeof(*t->success),
                         one_op)) < 0)
        return rc;
    return build_list(o, "failure", t->failure, t->n_failure, sizeof(*t->failure), one_op);
}

int etcd_req_txn(const struct etcd_txn *t, char **out)
{
    BUILD(build_txn, t, out);
}

int etcd_req_compact(int64_t revision, bool physical, char **out)
{
    json_t *o = json_object();
    int rc;

    if (!o)
        return -ENOMEM;
    rc = revision <= 0 ? -EINVAL : set_num(o, "revision", revision);
    if (rc == 0 && physical)
        rc = set_true(o, "physical");
    return finish(o, rc, out);
}

static int req_id_or_ttl(const char *name, int64_t v, char **out)
{
    json_t *o = json_object();

    if (!o)
        return -ENOMEM;
    return finish(o, v <= 0 ? -EINVAL : set_num(o, name, v), out);
}

int etcd_req_lease_grant(int64_t ttl_s, char **out)
{
    return req_id_or_ttl("TTL", ttl_s, out);
}

int etcd_req_lease_keepalive(int64_t id, char **out)
{
    return req_id_or_ttl("ID", id, out);
}

int etcd_req_lease_revoke(int64_t id, char **out)
{
    return req_id_or_ttl("ID", id, out);
}

int etcd_req_lease_ttl(int64_t id, char **out)
{
    return req_id_or_ttl("ID", id, out);
}

static int build_watch(json_t *o, const struct etcd_watch_req *w)
{
    json_t *c = json_object();
    int rc;

    if (!c)
        return -ENOMEM;
    rc = w->start_revision < 0 ? -EINVAL
                               : set_span(c, w->key, w->key_len, w->prefix, w->range_end,
                                          w->range_end_len);
    if (rc == 0 && w->start_revision)
        rc = set_num(c, "start_revision", w->start_revision);
    if (rc == 0 && w->prev_kv)
        rc = set_true(c, "prev_kv");
    if (rc == 0 && json_object_set_new(o, "create_request", c))
        return -ENOMEM;
    if (rc)
        json_decref(c);
    return rc;
}

int etcd_req_watch(const struct etcd_watch_req *w, char **out)
{
    BUILD(build_watch, w, out);
}

int etcd_req_auth(const char *name, const char *password, char **out)
{
    json_t *o = json_object();
    int rc = 0;

    if (!o)
        return -ENOMEM;
    if (!name || !password || !*name)
        rc = -EINVAL;
    else if (json_object_set_new(o, "name", json_string(name)) ||
             json_object_set_new(o, "password", json_string(password)))
        rc = -ENOMEM;
    return finish(o, rc, out);
}
