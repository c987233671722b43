/*
 * etcd_pb: etcd v3's gRPC API as bytes in and the codec's structs out
 * (etcd_codec.h), the same requests and answers as the JSON gateway's
 * without it: etcd decodes the gateway's JSON, sends it again over gRPC
 * inside itself and encodes the answer back, work that falls on etcd's
 * CPU for every request and every watched event.
 *
 * Pure like etcd_codec: no network, no clock, no global state; unit-tested
 * and fuzzed as bytes.
 *
 * Requests: each etcd_pb_req_* writes one gRPC message (the 5-byte frame
 * head: not compressed, the length big-endian, then the protobuf message)
 * into a struct etcd_pb the caller releases with etcd_pb_free. The checks
 * are the JSON builders' (the same -EINVAL cases); fields at their
 * default are left out, as proto3 does; field numbers are etcd's
 * rpc.proto and mvccpb's kv.proto.
 *
 * Answers: etcd_pb_frame finds one message in a stream's bytes; each
 * etcd_pb_decode_* reads one message (without its frame head) into the
 * codec's structs with the codec's bounds, freed by the codec's *_free;
 * malformed bytes (a truncated varint or length, a group, a field of the
 * wrong wire type) are -EBADMSG, a bound passed -EMSGSIZE, and `err` says
 * which field. Unknown fields are skipped; a repeated scalar field keeps
 * its last value, as protobuf does.
 *
 * gRPC's status (the grpc-status and grpc-message trailers) is the
 * client's; etcd_grpc_errno maps it as it does the gateway's codes.
 */
#ifndef OFCD_ETCD_PB_H
#define OFCD_ETCD_PB_H

#include "etcd_codec.h"

#define ETCD_GRPC_RANGE "/etcdserverpb.KV/Range"
#define ETCD_GRPC_PUT "/etcdserverpb.KV/Put"
#define ETCD_GRPC_DELETE "/etcdserverpb.KV/DeleteRange"
#define ETCD_GRPC_TXN "/etcdserverpb.KV/Txn"
#define ETCD_GRPC_COMPACT "/etcdserverpb.KV/Compact"
#define ETCD_GRPC_LEASE_GRANT "/etcdserverpb.Lease/LeaseGrant"
#define ETCD_GRPC_LEASE_REVOKE "/etcdserverpb.Lease/LeaseRevoke"
#define ETCD_GRPC_LEASE_KEEPALIVE "/etcdserverpb.Lease/LeaseKeepAlive"
#define ETCD_GRPC_LEASE_TTL "/etcdserverpb.Lease/LeaseTimeToLive"
#define ETCD_GRPC_WATCH "/etcdserverpb.Watch/Watch"
#define ETCD_GRPC_AUTH "/etcdserverpb.Auth/Authenticate"

/* The frame head before every gRPC message: a compressed flag and a
 * 32-bit big-endian length. */
#define ETCD_PB_FRAME_HEAD 5u
/* One message: a full range page or watch batch of small records, the
 * JSON text's bound (which the same answer in protobuf stays under). */
#define ETCD_PB_MSG_MAX ETCD_TEXT_MAX

struct etcd_pb {
    uint8_t *p;               /* frame head and message */
    size_t len;
    size_t cap;
    int err;                  /* the first failure while writing */
};

void etcd_pb_free(struct etcd_pb *b);

/* Each returns 0 with one framed message in *out (etcd_pb_free it, also
 * after a failure), -EINVAL as etcd_req_* or -ENOMEM. */
int etcd_pb_req_put(const struct etcd_put *p, struct etcd_pb *out);
int etcd_pb_req_range(const struct etcd_range *r, struct etcd_pb *out);
int etcd_pb_req_delete(const struct etcd_delete *d, struct etcd_pb *out);
int etcd_pb_req_txn(const struct etcd_txn *t, struct etcd_pb *out);
int etcd_pb_req_compact(int64_t revision, bool physical, struct etcd_pb *out);
int etcd_pb_req_lease_grant(int64_t ttl_s, struct etcd_pb *out);
/* Keepalive, revoke and time-to-live: the same message, an ID. */
int etcd_pb_req_lease_id(int64_t id, struct etcd_pb *out);
int etcd_pb_req_watch(const struct etcd_watch_req *w, struct etcd_pb *out);
int etcd_pb_req_auth(const char *name, const char *password, struct etcd_pb *out);

/* The first message of a stream's bytes: its offset and length in
 * *msg_off and *msg_len, and the bytes it takes with its head as the
 * result; 0 while the message is not whole yet; -EMSGSIZE past
 * ETCD_PB_MSG_MAX; -EBADMSG for a compressed one (never asked for) or a
 * flag byte that is neither. */
long etcd_pb_frame(const uint8_t *buf, size_t len, size_t *msg_off, size_t *msg_len);

int etcd_pb_decode_header_only(const uint8_t *m, size_t len, struct etcd_header *out,
                               char *err);
int etcd_pb_decode_range(const uint8_t *m, size_t len, struct etcd_range_resp *out, char *err);
int etcd_pb_decode_delete(const uint8_t *m, size_t len, struct etcd_delete_resp *out,
                          char *err);
int etcd_pb_decode_txn(const uint8_t *m, size_t len, struct etcd_txn_resp *out, char *err);
/* Grant, keepalive and time-to-live answers share their first fields
 * (header, ID, TTL); a grant's error text is an error here (-EIO). */
int etcd_pb_decode_lease(const uint8_t *m, size_t len, struct etcd_lease_resp *out, char *err);
int etcd_pb_decode_watch(const uint8_t *m, size_t len, struct etcd_watch_resp *out, char *err);
/* token: ETCD_TOKEN_MAX bytes, printable ASCII only (it goes into a
 * header line). */
int etcd_pb_decode_auth(const uint8_t *m, size_t len, char *token, char *err);

#endif
