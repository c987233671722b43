/*
 * etcd_codec: etcd v3's JSON gateway (grpc-gateway over HTTP/1.1), as text
 * in and C structs out. Pure: no network, no clock, no global state, so
 * every request and every answer is unit-tested and fuzzed as bytes.
 *
 * Requests: each etcd_req_* builds the body of one POST (the path is
 * ETCD_PATH_*) as a NUL-terminated JSON string the caller frees. Keys and
 * values are bytes (base64 on the wire, as protobuf's JSON mapping wants);
 * 64-bit numbers go out as decimal strings (protobuf's canonical form for
 * int64). Fields are written in one fixed order, so a request's text is
 * exact and testable.
 *
 * Responses: each etcd_decode_* reads one answer into a struct whose owned
 * memory the matching *_free releases (also after a failed decode, and
 * twice). Proto3 leaves out a field at its default (0, false, an empty
 * list, the PUT event type), so absent means zero here. Numbers are taken
 * as strings or JSON integers. Everything is bounded (ETCD_*_MAX below):
 * past a bound, or on anything malformed, the decode fails with -EBADMSG or
 * -EMSGSIZE and says where in `err`. A gateway error
 * {"error", "code", "message"} (or a stream's {"error": {...}}) becomes
 * the negative errno of etcd_grpc_errno and its message in `err`.
 */
#ifndef OFCD_ETCD_CODEC_H
#define OFCD_ETCD_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ETCD_PATH_PUT "/v3/kv/put"
#define ETCD_PATH_RANGE "/v3/kv/range"
#define ETCD_PATH_DELETE "/v3/kv/deleterange"
#define ETCD_PATH_TXN "/v3/kv/txn"
#define ETCD_PATH_COMPACT "/v3/kv/compaction"
#define ETCD_PATH_LEASE_GRANT "/v3/lease/grant"
#define ETCD_PATH_LEASE_KEEPALIVE "/v3/lease/keepalive"
#define ETCD_PATH_LEASE_REVOKE "/v3/lease/revoke"
#define ETCD_PATH_LEASE_TTL "/v3/lease/timetolive"
#define ETCD_PATH_WATCH "/v3/watch"
#define ETCD_PATH_AUTH "/v3/auth/authenticate"

/* A key: etcd allows more, ofcd's keys are a prefix and two ids. */
#define ETCD_KEY_MAX 4096u
/* A value: etcd's own default request bound (--max-request-bytes). */
#define ETCD_VALUE_MAX (1536u * 1024u)
/* Operations in each list of a transaction: etcd's --max-txn-ops default. */
#define ETCD_TXN_OPS_MAX 128u
/* Key-value pairs in one range answer; a larger read must page (limit). */
#define ETCD_KVS_MAX 65536u
/* Events in one watch message (etcd splits larger batches itself). */
#define ETCD_EVENTS_MAX 65536u
/* One answer's text: a full page of ETCD_KVS_MAX small records. */
#define ETCD_TEXT_MAX (64u * 1024u * 1024u)
/* Error text kept from a gateway answer or a decode failure. */
#define ETCD_ERR_MAX 256u
/* A token from /v3/auth/authenticate. */
#define ETCD_TOKEN_MAX 1024u

/* ---- requests ---- */

struct etcd_put {
    const void *key;
    size_t key_len;
    const void *value;
    size_t value_len;
    int64_t lease;            /* 0 = none */
};

/* One key, or with prefix every key starting with it (an empty key and
 * prefix = every key), or [key, range_end) when range_end_len > 0. */
struct etcd_range {
    const void *key;
    size_t key_len;
    bool prefix;
    const void *range_end;
    size_t range_end_len;
    int64_t limit;            /* 0 = no limit */
    int64_t revision;         /* 0 = the newest */
    bool keys_only;
};

struct etcd_delete {
    const void *key;
    size_t key_len;
    bool prefix;
};

enum etcd_cmp_target { ETCD_CMP_VERSION, ETCD_CMP_CREATE, ETCD_CMP_MOD, ETCD_CMP_VALUE };
enum etcd_cmp_result { ETCD_CMP_EQUAL, ETCD_CMP_GREATER, ETCD_CMP_LESS, ETCD_CMP_NOT_EQUAL };

struct etcd_cmp {
    enum etcd_cmp_target target;
    enum etcd_cmp_result result;
    const void *key;
    size_t key_len;
    int64_t number;           /* version, create_revision or mod_revision */
    const void *value;        /* ETCD_CMP_VALUE */
    size_t value_len;
};

enum etcd_op_kind { ETCD_OP_RANGE, ETCD_OP_PUT, ETCD_OP_DELETE };

struct etcd_op {
    enum etcd_op_kind kind;
    union {
        struct etcd_range range;
        struct etcd_put put;
        struct etcd_delete del;
    } u;
};

struct etcd_txn {
    const struct etcd_cmp *cmp;
    size_t n_cmp;
    const struct etcd_op *success;
    size_t n_success;
    const struct etcd_op *failure;
    size_t n_failure;
};

struct etcd_watch_req {
    const void *key;
    size_t key_len;
    bool prefix;
    int64_t start_revision;   /* 0 = from now on */
    bool prev_kv;
    const void *range_end;    /* [key, range_end) when range_end_len > 0 */
    size_t range_end_len;
};

/* Each returns 0 and *out (free() it), -EINVAL (a key or value over its
 * bound, an empty key where one is needed, too many operations, a negative
 * number) or -ENOMEM. */
int etcd_req_put(const struct etcd_put *p, char **out);
int etcd_req_range(const struct etcd_range *r, char **out);
int etcd_req_delete(const struct etcd_delete *d, char **out);
int etcd_req_txn(const struct etcd_txn *t, char **out);
int etcd_req_compact(int64_t revision, bool physical, char **out);
int etcd_req_lease_grant(int64_t ttl_s, char **out);
int etcd_req_lease_keepalive(int64_t id, char **out);
int etcd_req_lease_revoke(int64_t id, char **out);
int etcd_req_lease_ttl(int64_t id, char **out);
int etcd_req_watch(const struct etcd_watch_req *w, char **out);
int etcd_req_auth(const char *name, const char *password, char **out);

/* The end of the range of keys starting with `key`: the key with its last
 * byte below 0xff incremented and what follows dropped; "\0" (every key
 * from `key` on) when there is none. out holds key_len bytes at least (one
 * when key_len is 0); returns the end's length. */
size_t etcd_prefix_end(const uint8_t *key, size_t key_len, uint8_t *out);

/* Standard base64 with padding. encode: out holds ETCD_B64_LEN(len) + 1
 * (NUL-terminated), returns the length. decode: strict (padding, alphabet,
 * no spaces), out holds len / 4 * 3; returns the length or -EBADMSG. */
#define ETCD_B64_LEN(n) (((n) + 2) / 3 * 4)
size_t etcd_b64_encode(const uint8_t *in, size_t len, char *out);
int etcd_b64_decode(const char *in, size_t len, uint8_t *out);

/* ---- responses ---- */

struct etcd_header {
    int64_t revision;
    int64_t raft_term;
    uint64_t member_id;
};

/* Key and value are NUL-terminated copies (the NUL not counted): a key
 * prints as a string; binary values keep their length. */
struct etcd_kv {
    uint8_t *key;
    size_t key_len;
    uint8_t *value;
    size_t value_len;
    int64_t create_revision;
    int64_t mod_revision;
    int64_t version;
    int64_t lease;
};

struct etcd_kvs {
    struct etcd_kv *kv;
    size_t n;
    bool more;
    int64_t count;
};

struct etcd_range_resp {
    struct etcd_header hdr;
    struct etcd_kvs kvs;
};

struct etcd_delete_resp {
    struct etcd_header hdr;
    int64_t deleted;
};

struct etcd_op_resp {
    enum etcd_op_kind kind;
    struct etcd_kvs kvs;      /* ETCD_OP_RANGE */
    int64_t deleted;          /* ETCD_OP_DELETE */
};

struct etcd_txn_resp {
    struct etcd_header hdr;
    bool succeeded;
    struct etcd_op_resp *resp;
    size_t n_resp;
};

struct etcd_lease_resp {
    struct etcd_header hdr;
    int64_t id;
    int64_t ttl;              /* keepalive: 0 or absent = the lease is gone;
                               * timetolive: -1 = gone */
};

enum etcd_event_type { ETCD_EV_PUT, ETCD_EV_DELETE };

struct etcd_event {
    enum etcd_event_type type;
    struct etcd_kv kv;
    bool has_prev;
    struct etcd_kv prev;
};

struct etcd_watch_resp {
    struct etcd_header hdr;
    int64_t watch_id;
    bool created;
    bool canceled;
    int64_t compact_revision; /* > 0: the start revision was compacted */
    char cancel_reason[ETCD_ERR_MAX];
    struct etcd_event *ev;
    size_t n_ev;
};

/* The negative errno for a gRPC status code and its message: a compacted
 * revision -ESTALE; unauthenticated, permission denied, a wrong password
 * or a missing token (etcd 3.4 says InvalidArgument for those) -EPERM; not found
 * -ENOENT; invalid argument -EINVAL; deadline exceeded -ETIMEDOUT;
 * unavailable -EAGAIN; anything else -EIO. */
int etcd_grpc_errno(int64_t code, const char *message);

/* Each returns 0, a gateway error's errno, -EBADMSG, -EMSGSIZE or -ENOMEM;
 * err (ETCD_ERR_MAX bytes, may be NULL) says why on failure. */
int etcd_decode_header_only(const char *text, size_t len, struct etcd_header *out,
                            char *err);
int etcd_decode_range(const char *text, size_t len, struct etcd_range_resp *out, char *err);
int etcd_decode_delete(const char *text, size_t len, struct etcd_delete_resp *out, char *err);
int etcd_decode_txn(const char *text, size_t len, struct etcd_txn_resp *out, char *err);
/* Grant and revoke answer at the top level; keepalive's streamed answer
 * wraps it in {"result": ...}: both forms are read. */
int etcd_decode_lease(const char *text, size_t len, struct etcd_lease_resp *out, char *err);
/* One line of the watch stream: {"result": {...}} or {"error": {...}}. */
int etcd_decode_watch(const char *text, size_t len, struct etcd_watch_resp *out, char *err);
/* Whether a watch message ends the watch: 0 (it goes on), -ESTALE
 * (compacted), -EPERM (canceled for authentication: a token etcd no
 * longer takes, or no permission on the keys), -ECANCELED (any other
 * cancellation). */
int etcd_watch_end(const struct etcd_watch_resp *r);
/* token: ETCD_TOKEN_MAX bytes. */
int etcd_decode_auth(const char *text, size_t len, char *token, char *err);

/* A range read in pages (a limit, one revision): where the page after resp
 * starts, just after its last key (that key and a NUL), into *from
 * (realloc'd, *from_len its length). 1 when there is a next page, 0 when
 * resp was the last, -ENOMEM (*from left as it was). */
int etcd_range_next_page(const struct etcd_range_resp *resp, uint8_t **from,
                         size_t *from_len);

void etcd_kvs_free(struct etcd_kvs *k);
void etcd_range_resp_free(struct etcd_range_resp *r);
void etcd_txn_resp_free(struct etcd_txn_resp *t);
void etcd_watch_resp_free(struct etcd_watch_resp *w);

#endif
