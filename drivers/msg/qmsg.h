/*
 * qmsg: one item of the msg_in / msg_out rings — an OpenFlow message (or a
 * connection event) with the connection it belongs to and its enqueue time.
 *
 * Buffers come from qmsg_pool (two DPDK mempools: small for the common case,
 * large for multipart replies up to the OpenFlow maximum of 64 KiB, with
 * room for an event header in front), so no
 * message is ever allocated with malloc on an lcore. Whoever dequeues a
 * qmsg owns it and returns it with qmsg_free(), which needs no pool: a
 * buffer knows where it came from and whom it is charged to. An owner that
 * must hold messages back keeps them in a qmsg_fifo.
 */
#ifndef OFCD_QMSG_H
#define OFCD_QMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a qmsg carries. */
enum qmsg_kind {
    QMSG_OF = 0,        /* data[] is one OpenFlow message */
    QMSG_CONN_UP,       /* io → worker: a switch connection was accepted */
    QMSG_CONN_DOWN,     /* io → worker: the connection is gone (data: reason) */
    QMSG_CLOSE,         /* worker → io: close this connection (data: why) */
    QMSG_ESTABLISHED,   /* worker → io: the channel is established (no data) */
    /* worker → control thread (data starts with struct of_event_hdr) */
    QMSG_EV_SWITCH_UP,  /* established: features, desc, ports follow the header */
    QMSG_EV_SWITCH_DOWN,
    QMSG_EV_OF,         /* an OpenFlow message from the switch follows the header */
    QMSG_EV_ECHO,       /* an echo round trip was measured: struct of_event_echo */
    QMSG_EV_APP,        /* an app's own news from the data path: struct of_event_app */
};

/* A connection handle: which io lcore, which slot, which incarnation — so a
 * message for a connection that has since been replaced is recognised. */
typedef uint64_t conn_handle_t;

static inline conn_handle_t conn_handle_make(unsigned io_index, uint32_t slot, uint32_t gen)
{
    return ((uint64_t)io_index << 56) | ((uint64_t)(gen & 0xffffffu) << 32) | slot;
}
static inline unsigned conn_handle_io(conn_handle_t h) { return (unsigned)(h >> 56); }
static inline uint32_t conn_handle_slot(conn_handle_t h) { return (uint32_t)h; }
static inline uint32_t conn_handle_gen(conn_handle_t h) { return (uint32_t)(h >> 32) & 0xffffffu; }

struct qmsg_quota;

/* How many larger shares a peer's share may be part of (qmsg_quota.h). */
#define QMSG_QUOTA_UPS 2

/* QMSG_CONN_UP's data: what the worker needs of a new connection. */
struct qmsg_conn_up {
    struct qmsg_quota *quota;   /* charge what is made for this connection here */
    uint32_t peer_ip;           /* host order */
    uint16_t peer_port;
    bool tls;                   /* the channel is TLS (handshake done) */
    bool has_cert;              /* ... and the switch showed a certificate: */
    uint8_t cert_sha256[32];    /* its SHA-256 (tls.pins) */
};

struct qmsg {
    conn_handle_t conn;
    struct qmsg_quota *quota;   /* the peer it is charged to (qmsg_quota.h), or NULL */
    struct qmsg_quota *quota_up[QMSG_QUOTA_UPS];  /* ... and the shares that peer was part
                                                   * of when it was charged */
    void *origin;               /* the pool's store it goes back to */
    uint64_t enq_tsc;       /* stamped by msgq_enqueue for per-class latency */
    uint32_t len;           /* bytes used in data[] */
    uint32_t cap;           /* bytes available in data[] */
    uint16_t kind;          /* enum qmsg_kind */
    uint8_t cls;            /* priority class 0..3 (P0 highest) */
    uint8_t size_class;     /* which pool it came from */
    uint8_t control;        /* from a control-plane pool (counted apart on its quota) */
    uint32_t sent;          /* io: bytes of data[] already handed to TCP */
    struct qmsg *next;      /* owner's private list link (not used in rings) */
    uint8_t data[];
};

/* Messages in arrival order, linked through next, owned by one thread: what
 * waits for room (a ring, a TCP send buffer) or for a handshake to end. */
struct qmsg_fifo {
    struct qmsg *head, *tail;
    uint32_t n;
};

static inline void qmsg_fifo_push(struct qmsg_fifo *f, struct qmsg *m)
{
    m->next = NULL;
    if (f->tail)
        f->tail->next = m;
    else
        f->head = m;
    f->tail = m;
    f->n++;
}

/* The oldest, taken off f; NULL when f is empty. */
static inline struct qmsg *qmsg_fifo_pop(struct qmsg_fifo *f)
{
    struct qmsg *m = f->head;

    if (m) {
        f->head = m->next;
        if (!f->head)
            f->tail = NULL;
        f->n--;
    }
    return m;
}

#define QMSG_SMALL_DATA 512u
/* The largest OpenFlow message (65,535 bytes) and the header of the event
 * that carries it to the control thread (struct of_event_hdr). */
#define QMSG_EVENT_HEADROOM 64u
#define QMSG_LARGE_DATA (65536u + QMSG_EVENT_HEADROOM)

#endif
