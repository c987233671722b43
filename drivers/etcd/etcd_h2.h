/*
 * etcd_h2: unary gRPC calls on one kept HTTP/2 connection to one etcd
 * endpoint, cleartext with prior knowledge (etcd's http:// client port
 * speaks HTTP/2 from the first byte), with nghttp2. For etcd_client.c
 * only: libcurl 7.88 (Debian 12's) fails a second request on a kept
 * HTTP/2 connection to etcd, and a connection per call costs each store
 * transaction about a millisecond and etcd a new transport. https://
 * endpoints stay with libcurl.
 *
 * One connection, one call at a time, one thread; every wait is a poll
 * bounded by the call's deadline. The connection is kept after a call
 * answered whole; any failure drops it, so the next call starts on a
 * fresh one. Before a call reuses it, whatever the peer sent meanwhile is
 * read: a connection etcd closed or is closing (GOAWAY) is replaced
 * before the request goes, so a restarted member costs no unknown outcome.
 *
 * etcd_h2_call returns
 *   0              the answer came whole: its HTTP status, each header and
 *                  trailer (on_header) and its body (on_data) were handed over
 *   -ECONNREFUSED  nothing of the request reached etcd (no connection, or
 *                  etcd refused the stream or said GOAWAY before it): another
 *                  endpoint may take it
 *   -ETIMEDOUT     the deadline passed (*sent says whether the request left)
 *   -EMSGSIZE      on_data refused the body (over the caller's bound)
 *   -EIO           the connection failed after the request left: its outcome
 *                  is not known
 *   -ENOMEM
 * with err (ETCD_ERR_MAX bytes) saying why.
 */
#ifndef OFCD_ETCD_H2_H
#define OFCD_ETCD_H2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct etcd_h2;

struct etcd_h2_call {
    const char *host, *port;        /* the endpoint: a new one drops the connection */
    const char *path;               /* "/etcdserverpb.KV/Txn" */
    const char *token;              /* the "token" metadata, NULL for none */
    const void *body;
    size_t len;
    uint64_t deadline_ms;           /* ofcd_clock_mono_ms() */
    unsigned connect_ms;            /* at most this for a new connection */
    /* A header or trailer of the answer (":status" is not passed). */
    void (*on_header)(const char *name, size_t nlen, const char *value, size_t vlen, void *arg);
    /* A piece of the body: false stops the call (-EMSGSIZE). */
    bool (*on_data)(const uint8_t *p, size_t n, void *arg);
    void *arg;
};

struct etcd_h2 *etcd_h2_new(void);
void etcd_h2_free(struct etcd_h2 *h);

/* One call: *status the answer's HTTP status (0 when none came), *sent
 * whether the request left, *connected whether a new connection was made
 * for it. */
int etcd_h2_call(struct etcd_h2 *h, const struct etcd_h2_call *call, int *status, bool *sent,
                 bool *connected, char *err);

/* Splits "http://host:port" (IPv6 in brackets; no path) into host and
 * port (80 when none): 0, or -EINVAL for anything else (https included). */
int etcd_h2_endpoint(const char *url, char *host, size_t hcap, char *port, size_t pcap);

#endif
