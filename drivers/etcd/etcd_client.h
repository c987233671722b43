/*
 * etcd_client: a blocking etcd v3 client with libcurl, over etcd's gRPC
 * API (etcd_pb.h; the default) or its JSON gateway (etcd_codec.h). For
 * the control thread or a cluster thread, never a poll-mode lcore: every
 * call waits for the network, at most its timeout.
 *
 * One client is one connection cache used by one thread at a time:
 * HTTP/1.1 keep-alive for the gateway; gRPC on an http:// endpoint over
 * one kept HTTP/2 connection (etcd_h2.h: libcurl 7.88, Debian 12's,
 * fails a second request on a kept HTTP/2 connection to etcd), on an
 * https:// one over a connection per call (libcurl). Endpoints are
 * tried in order, starting from the one that answered last: a connection
 * failure (refused, unreachable, reset, nothing answered) moves to the
 * next within the same call's timeout; an answer, even an error, does
 * not. TLS (a CA, a client certificate and key) and user/password are
 * optional; with a user the client authenticates (Authenticate) before
 * its first call and again once when etcd says the token is no longer
 * good.
 *
 * Every call returns 0 or a negative errno: -ETIMEDOUT (no answer within
 * the timeout), -ECONNREFUSED (no endpoint reachable), -ESTALE (the
 * revision asked for is compacted), -EPERM (authentication), -ENOENT (a
 * lease that is gone), -EINVAL (a request over the codec's bounds, or one
 * etcd refused as invalid), -EIO (anything else); etcd_client_error()
 * then names the endpoint and why.
 *
 * A watch is its own streamed answer on a connection of its own (gRPC
 * messages, or the gateway's JSON object per line): etcd_watch_open waits
 * until etcd has created it, so every change after that is delivered;
 * etcd_watch_poll hands each message to the callback as it arrives.
 */
#ifndef OFCD_ETCD_CLIENT_H
#define OFCD_ETCD_CLIENT_H

#include "etcd_codec.h"

#define ETCD_ENDPOINTS_MAX 16u
#define ETCD_URL_MAX 256u
/* A gateway watch message held before its newline: a full
 * ETCD_EVENTS_MAX batch of small records; beyond it (or a gRPC message
 * past ETCD_PB_MSG_MAX) the watch fails with -EMSGSIZE. */
#define ETCD_WATCH_LINE_MAX (16u * 1024u * 1024u)

/* How calls and watches travel: etcd's gRPC API (HTTP/2, protobuf), or
 * its JSON gateway (HTTP/1.1), which costs etcd a decode, a gRPC call
 * inside itself and an encode for every request and watched change. */
enum etcd_api { ETCD_API_GRPC, ETCD_API_JSON };

struct etcd_client_cfg {
    const char *const *endpoints;  /* "http://127.0.0.1:2379", "https://..." */
    enum etcd_api api;             /* ETCD_API_GRPC unless set */
    size_t n_endpoints;
    unsigned timeout_ms;           /* a whole call, failovers included; 0 = 5000 */
    unsigned connect_timeout_ms;   /* one endpoint's connect; 0 = min(timeout, 1000) */
    const char *ca;                /* PEM CA file for https endpoints, NULL = system's */
    const char *cert;              /* PEM client certificate, NULL = none */
    const char *key;               /* its key */
    const char *user;              /* NULL = no authentication */
    const char *password;
};

struct etcd_client;

/* NULL on a bad configuration (no endpoint, too many, one too long or
 * not http(s)://, a cert without a key) with the reason in err
 * (ETCD_ERR_MAX bytes). */
struct etcd_client *etcd_client_new(const struct etcd_client_cfg *cfg, char *err);
void etcd_client_free(struct etcd_client *c);
/* The last failure's text ("" after a success). */
const char *etcd_client_error(const struct etcd_client *c);
/* The endpoint the next call starts with. */
const char *etcd_client_endpoint(const struct etcd_client *c);

/* What a client has done since it was made (for its owner's counters). */
struct etcd_client_stats {
    uint64_t calls;         /* requests answered by etcd (errors included) */
    uint64_t connects;      /* new connections: keep-alive makes this small */
    uint64_t failovers;     /* endpoints passed over because unreachable */
    uint64_t auths;         /* authentications (the first and renewals) */
};
void etcd_client_stats(const struct etcd_client *c, struct etcd_client_stats *out);

int etcd_put(struct etcd_client *c, const struct etcd_put *p, struct etcd_header *hdr);
int etcd_get(struct etcd_client *c, const struct etcd_range *r, struct etcd_range_resp *out);
int etcd_delete(struct etcd_client *c, const struct etcd_delete *d,
                struct etcd_delete_resp *out);
int etcd_txn(struct etcd_client *c, const struct etcd_txn *t, struct etcd_txn_resp *out);
int etcd_compact(struct etcd_client *c, int64_t revision, struct etcd_header *hdr);
int etcd_lease_grant(struct etcd_client *c, int64_t ttl_s, struct etcd_lease_resp *out);
/* -ENOENT when the lease has expired or was revoked. */
int etcd_lease_keepalive(struct etcd_client *c, int64_t id, struct etcd_lease_resp *out);
int etcd_lease_revoke(struct etcd_client *c, int64_t id);
/* Seconds the lease id has left (any node's: etcd's LeaseTimeToLive) into
 * *ttl_s; -ENOENT when it is gone. */
int etcd_lease_ttl(struct etcd_client *c, int64_t id, int64_t *ttl_s);

struct etcd_watch;
/* Each message after creation (events, or the cancellation). Runs inside
 * etcd_watch_poll, on its thread; r is valid during the call only. */
typedef void (*etcd_watch_cb)(void *arg, const struct etcd_watch_resp *r);

/* Opens a watch of w's keys on c's current endpoint (with c's TLS and
 * token; the next one when it cannot be reached), waiting at most c's
 * timeout for etcd to create it. A start_revision below etcd's compaction
 * is created and then canceled (etcd checks its watchers every 100 ms):
 * -ESTALE here (the compaction revision in *compact_rev when not NULL) if
 * the cancellation came with the creation, else from etcd_watch_poll. */
int etcd_watch_open(struct etcd_client *c, const struct etcd_watch_req *w, etcd_watch_cb cb,
                    void *arg, struct etcd_watch **out, int64_t *compact_rev);
/* Waits up to timeout_ms for messages and delivers each complete one.
 * Returns how many were delivered (0 on a quiet timeout), or once the
 * watch is over: -ESTALE (compacted; the callback saw compact_revision),
 * -EPERM (canceled for authentication), -ECANCELED (canceled for another
 * reason), -ECONNRESET (the stream ended),
 * -EMSGSIZE, -EBADMSG; every later poll returns the same. */
int etcd_watch_poll(struct etcd_watch *w, unsigned timeout_ms);
const char *etcd_watch_error(const struct etcd_watch *w);
void etcd_watch_close(struct etcd_watch *w);

#endif
