/* of_io: see of_io.h. */
#include "of_io.h"
#include "of_flight.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "of_addr.h"
#include "of_event.h"
#include "of_stream.h"
#include "ofcd_inet.h"
#include "ofcd_log.h"
#include "ofcd_ratelimit.h"
#include "ofcd_textreq.h"
#include "ofp_msg.h"
#include "ofp_wire.h"

#define OF_IO_OUT_BURST 64
/* Messages framed per connection per readable event: fairness between
 * switches (OVS connmgr reads at most 50 at a time for the same reason). */
#define OF_IO_READ_BUDGET 64
/* Paused connections retried per poll, oldest first (the rest next poll). */
#define OF_IO_RETRY_BUDGET 256
/* TLS: one record's plaintext at most (RFC 8446 5.1); queued messages are
 * gathered into records this big rather than sent one record each. */
#define OF_IO_TLS_RECORD 16384u
/* TLS handshakes begun per poll: the first flight costs a signature with
 * ofcd's key (about a millisecond with RSA 2048), so a burst of ClientHellos
 * is spread over loops, the established switches' echo answered between,
 * and handshakes already under way finish before new ones start. */
#define OF_IO_TLS_NEW_PER_POLL 1

/* A wait list of connections, oldest first, linked through retry_next. */
struct of_conn;
struct of_wait {
    struct of_conn *head, *tail;
    uint32_t n;
};

enum { OC_LIST_NONE, OC_LIST_RETRY, OC_LIST_START };

struct of_conn {
    struct of_stream st;             /* st.tcp NULL: slot free */
    struct of_io *io;
    uint32_t slot;
    uint32_t gen;
    uint8_t on_list;                 /* OC_LIST_*: which wait list holds the slot */
    bool up_parked;                  /* its CONN_UP waits on the io's event list */
    struct of_addr *addr;            /* its source address (of_addr.h) */
    struct of_addr_pend pend;        /* pend.addr set: not yet ESTABLISHED */
    uint32_t peer_ip;                /* host order */
    uint16_t peer_port;
    struct qmsg *down_ev;            /* kept from accept: its CONN_DOWN is never lost */
    struct qmsg *up_ev;              /* CONN_UP waiting: for the TLS handshake, or for
                                      * its turn behind connections that wait */
    bool in_handshake;               /* TLS: on the io's handshake list */
    bool first_byte_seen;            /* TLS: the plaintext check is done */
    bool hs_begun;                   /* TLS: its ClientHello was handed to OpenSSL */
    bool tls_dirty;                  /* TLS: output queued, on the io's flush list */
    struct of_conn *dirty_next;
    uint64_t hs_deadline_us;
    struct of_conn *hs_prev, *hs_next;
    struct qmsg_fifo out;            /* unsent, in order */
    uint64_t out_bytes;
    struct of_conn *retry_next;
    /* What this slot's connections hold of the buffers; it outlives them
     * until every buffer charged here is back (qmsg_quota.h). */
    struct qmsg_quota quota;
    /* The last connection's flight record: kept until the slot is taken. */
    struct of_flight flight;
    uint32_t flight_gen;                /* that connection's generation */
    bool flight_open;                   /* it is still open */
    bool flight_framed;                 /* the message at the stream's head is recorded */
    uint16_t local_port;
};

/* A listener: which kind of channel its connections are. */
struct of_listener {
    struct of_io *io;
    bool tls;
};

struct of_io {
    struct of_io_env env;
    unsigned io_index;
    struct of_listener plain, secure;
    uint64_t tls_hs_timeout_us;
    struct of_conn *hs_head, *hs_tail;   /* TLS handshakes, oldest (first to expire) first */
    unsigned hs_budget;              /* handshakes that may begin in this poll */
    struct of_conn *dirty_head;      /* TLS connections with output to gather */
    uint8_t *tls_out;                /* OF_IO_TLS_RECORD bytes: one record gathered */
    struct msgq *msg_out;
    struct of_conn *conns;
    uint32_t n_slots;
    /* Free slots, a ring taken oldest first (a closed connection's record
     * stays as long as the table allows). */
    uint32_t *free_slots;
    uint32_t free_head, n_free;
    uint8_t *flight_mem;                /* every slot's flight record, recorder_kb each */
    size_t flight_bytes;
    uint64_t flight_now_ns;             /* the records' stamp: read once per poll and per
                                      * connection framed, not per message */
    /* The control thread's ask for one record (of_io_flight_ask): h set by
     * the asker, rc, ends and the blob (in req's buffer) by the io lcore,
     * each before req hands the buffer over. */
    struct {
        struct ofcd_textreq req;
        conn_handle_t h;
        int rc;
        struct of_io_flight_ends ends;
    } ask;
    /* Connections that wait, oldest first, so under a burst none waits
     * behind ever-newer ones: those blocked on msg_in or buffers (retried
     * first: their HELLO timer runs), then those accepted while others
     * waited, not yet started (CONN_UP not yet told). */
    struct of_wait retry, start;
    struct qmsg_fifo events;         /* CONN_DOWN events waiting for room */
    uint64_t out_backlog_max;
    struct qmsg_quota_bounds share;          /* each established connection's */
    struct qmsg_quota_bounds pending_share;  /* each connection short of ESTABLISHED */
    uint32_t max_pending;
    struct of_addrs *addrs;          /* source addresses: their shares, pending lists */
    struct qmsg_quota pending_quota; /* what all pending connections hold together */
    uint32_t n_conns;
    struct ofcd_ratelimit rl_refuse, rl_event, rl_quota, rl_tls, rl_evict, rl_early_pin;
    struct ofcd_ratelimit rl_close, rl_backlog, rl_tls_up;  /* one per log site */
    struct of_io_stats stats;
};

static conn_handle_t conn_handle(const struct of_conn *oc)
{
    return conn_handle_make(oc->io->io_index, oc->slot, oc->gen);
}

static struct msgq *worker_for(struct of_io *io, conn_handle_t h)
{
    /* Every message of a connection goes to the same worker: its order
     * within a class is the ring's FIFO order. */
    return io->env.worker_in[(conn_handle_slot(h) ^ io->io_index) % io->env.n_workers];
}

static void wait_push(struct of_wait *w, struct of_conn *oc, uint8_t list)
{
    oc->on_list = list;
    oc->retry_next = NULL;
    w->n++;
    if (w->tail)
        w->tail->retry_next = oc;
    else
        w->head = oc;
    w->tail = oc;
}

static struct of_conn *wait_pop(struct of_wait *w)
{
    struct of_conn *oc = w->head;

    if (oc) {
        w->head = oc->retry_next;
        if (!w->head)
            w->tail = NULL;
        w->n--;
        oc->on_list = OC_LIST_NONE;
    }
    return oc;
}

/* Read it again from the poll. A slot already on a list stays where it is:
 * whatever it waits on, its turn serves it (a slot reused by a new
 * connection while the old one's place was kept included). */
static void retry_later(struct of_conn *oc)
{
    if (oc->on_list == OC_LIST_NONE)
        wait_push(&oc->io->retry, oc, OC_LIST_RETRY);
}

static bool waiting(const struct of_io *io)
{
    return io->retry.head || io->start.head;
}

/* ---- admission: pending connections and their shares ------------------------------ */

/* The handshake is done (or the connection gone): out of the pending lists,
 * and its share becomes an established switch's, outside the pending one. */
static void conn_not_pending(struct of_conn *oc)
{
    struct of_io *io = oc->io;

    if (!oc->pend.addr)
        return;
    of_addrs_unpend(io->addrs, &oc->pend);
    qmsg_quota_bound(&oc->quota, &io->share);
    qmsg_quota_set_up(&oc->quota, 1, NULL);
}

static void conn_close(struct of_conn *oc, bool abort, const char *why);

/* Pending connections are at openflow.max_pending: the oldest pending one
 * of the address holding the most is closed for the newcomer (a lab's burst
 * from one address is served while the table has room; when it is full,
 * whoever holds most of it gives way first). */
static void evict_pending(struct of_io *io)
{
    struct of_addr_pend *p = of_addrs_victim(io->addrs);
    uint64_t missed;
    char peer[OFCD_PEER_STRLEN];

    if (!p)
        return;
    struct of_conn *oc = (struct of_conn *)((char *)p - offsetof(struct of_conn, pend));
    io->stats.pending_evicted++;
    if (ofcd_ratelimit(&io->rl_evict, io->env.clock_us(), &missed))
        LOG_WARN("of", "io %u: openflow.max_pending (%u) connections short of ESTABLISHED: "
                 "closing the oldest of the %u from %s (port %u) for a newcomer (%lu more "
                 "unlogged)", io->io_index, io->max_pending, p->addr->n_pending,
                 ofcd_ipv4_format(oc->peer_ip, peer), oc->peer_port, (unsigned long)missed);
    conn_close(oc, true, NULL);
}

/* ---- events to the worker ------------------------------------------------------------- */

static struct of_conn *conn_of(struct of_io *io, conn_handle_t h);

/* Queue a connection event for the worker in m, a buffer of the events pool
 * taken when the connection was accepted; one that does not fit the ring
 * waits on the io's event list, in order. True when it waits. */
static bool post_event(struct of_io *io, conn_handle_t h, struct qmsg *m, enum qmsg_kind kind,
                       const void *data, uint32_t len)
{
    m->conn = h;
    m->kind = kind;
    m->cls = 0;
    m->len = len;
    memcpy(m->data, data, len);
    if (!io->events.head && msgq_enqueue(worker_for(io, h), m, io->env.clock_tsc()) == 0)
        return false;
    qmsg_fifo_push(&io->events, m);
    return true;
}

/* The connection's end, told with the buffer it kept; a TLS connection
 * whose handshake never finished was never told up, so nothing is told. */
static void post_down(struct of_conn *oc, conn_handle_t h, int reason)
{
    struct qmsg *m = oc->down_ev;

    oc->down_ev = NULL;
    if (oc->up_ev) {
        qmsg_free(oc->up_ev);
        qmsg_free(m);
        oc->up_ev = NULL;
        return;
    }
    post_event(oc->io, h, m, QMSG_CONN_DOWN, &reason, sizeof(reason));
}

static void flush_events(struct of_io *io)
{
    while (io->events.head) {
        struct qmsg *m = io->events.head;
        conn_handle_t h = m->conn;
        bool up = m->kind == QMSG_CONN_UP;
        if (msgq_enqueue(worker_for(io, h), m, io->env.clock_tsc()) != 0)
            return;
        qmsg_fifo_pop(&io->events);      /* the worker's now: read nothing of it */
        struct of_conn *oc = up ? conn_of(io, h) : NULL;
        if (oc)
            oc->up_parked = false;       /* its messages may follow it now */
    }
}

static void free_out(struct of_conn *oc)
{
    qmsg_fifo_free(&oc->out);
    oc->out_bytes = 0;
}

/* ---- TLS handshakes in progress, oldest first ---------------------------------------- */

static void hs_push(struct of_conn *oc, uint64_t now_us)
{
    struct of_io *io = oc->io;

    oc->in_handshake = true;
    oc->hs_deadline_us = now_us + io->tls_hs_timeout_us;
    oc->hs_next = NULL;
    oc->hs_prev = io->hs_tail;
    if (io->hs_tail)
        io->hs_tail->hs_next = oc;
    else
        io->hs_head = oc;
    io->hs_tail = oc;
}

static void hs_remove(struct of_conn *oc)
{
    struct of_io *io = oc->io;

    if (!oc->in_handshake)
        return;
    oc->in_handshake = false;
    if (oc->hs_prev)
        oc->hs_prev->hs_next = oc->hs_next;
    else
        io->hs_head = oc->hs_next;
    if (oc->hs_next)
        oc->hs_next->hs_prev = oc->hs_prev;
    else
        io->hs_tail = oc->hs_prev;
    oc->hs_prev = oc->hs_next = NULL;
}

static void release_slot(struct of_conn *oc)
{
    struct of_io *io = oc->io;

    conn_not_pending(oc);
    for (unsigned i = 0; i < QMSG_QUOTA_UPS; i++)
        qmsg_quota_set_up(&oc->quota, i, NULL);
    of_addrs_put(io->addrs, oc->addr);
    oc->addr = NULL;
    hs_remove(oc);
    free_out(oc);
    oc->gen = (oc->gen + 1) & 0xffffffu;     /* stale handles stop matching */
    io->free_slots[(io->free_head + io->n_free++) % io->n_slots] = oc->slot;
    oc->flight_open = false;
    io->n_conns--;
    io->stats.conns_closed++;
}

/* Close from our side (worker asked, framing broken, backlog exceeded, TLS
 * failed); why NULL: the caller logged it already (rate-limited). */
static void conn_close(struct of_conn *oc, bool abort, const char *why)
{
    struct of_io *io = oc->io;
    conn_handle_t h = conn_handle(oc);

    if (!oc->st.tcp)
        return;
    if (why)
        LOG_INFO_RL(&io->rl_close, io->env.clock_us(), "of", "io %u: closing connection %#lx: "
                    "%s", io->io_index, (unsigned long)h, why);
    of_stream_close(&oc->st, abort);
    release_slot(oc);
    post_down(oc, h, -ECONNABORTED);
}

/* The TLS session failed (a bad certificate, plaintext, a protocol error):
 * told once per connection, rate-limited, and closed so the alert OpenSSL
 * queued reaches the switch. */
static void tls_failed(struct of_conn *oc, const char *why)
{
    struct of_io *io = oc->io;
    uint64_t missed;
    char peer[OFCD_PEER_STRLEN];
    bool hs = oc->in_handshake;

    if (hs)
        io->stats.tls_handshake_failed++;
    else
        io->stats.tls_errors++;
    if (ofcd_ratelimit(&io->rl_tls, io->env.clock_us(), &missed))
        LOG_WARN("of", "io %u: TLS %s with %s (connection %#lx): %s; closed (%lu more TLS "
                 "failures unlogged)", io->io_index, hs ? "handshake failed" : "error",
                 ofcd_peer_format(oc->peer_ip, oc->peer_port, peer),
                 (unsigned long)conn_handle(oc), why, (unsigned long)missed);
    conn_close(oc, false, NULL);
}

/* Readable bytes after asking the stream for want of them; 0 with the
 * connection closed when its TLS failed. */
static size_t conn_fill(struct of_conn *oc, size_t want)
{
    if (of_stream_fill(&oc->st, want) < 0) {
        tls_failed(oc, of_stream_error(&oc->st));
        return 0;
    }
    return of_stream_avail(&oc->st);
}

/* The first n queued bytes went out: done messages freed. */
static void out_sent(struct of_conn *oc, size_t n)
{
    oc->out_bytes -= n;
    while (n) {
        struct qmsg *m = oc->out.head;
        size_t k = m->len - m->sent;
        if (n < k) {
            m->sent += (uint32_t)n;
            return;
        }
        n -= k;
        qmsg_fifo_pop(&oc->out);
        oc->io->stats.msgs_out++;
        qmsg_free(m);
    }
}

/* TLS: queued messages gathered into whole records, not one record each (a
 * FLOW_MOD flood is thousands of 100-byte messages). A record OpenSSL could
 * not hand to TCP waits inside it and must be asked for again with the same
 * leading bytes: gathering from the unchanged head of the queue gives them. */
static void flush_out_tls(struct of_conn *oc)
{
    struct of_io *io = oc->io;

    while (oc->out.head && oc->st.tcp) {
        size_t len = 0;
        for (struct qmsg *m = oc->out.head; m && len < OF_IO_TLS_RECORD; m = m->next) {
            size_t off = m == oc->out.head ? m->sent : 0, k = m->len - off;
            if (k > OF_IO_TLS_RECORD - len)
                k = OF_IO_TLS_RECORD - len;
            memcpy(io->tls_out + len, m->data + off, k);
            len += k;
        }
        ssize_t n = of_stream_send(&oc->st, io->tls_out, len);
        if (n < 0) {
            tls_failed(oc, of_stream_error(&oc->st));
            return;
        }
        out_sent(oc, (size_t)n);
        if ((size_t)n < len)
            return;                  /* TCP is full: on_writable resumes */
    }
}

/* Push queued output into the stream, in order. */
static void flush_out(struct of_conn *oc)
{
    struct of_io *io = oc->io;

    if (oc->st.tls) {
        flush_out_tls(oc);
        return;
    }
    while (oc->out.head && oc->st.tcp) {
        struct qmsg *m = oc->out.head;
        ssize_t n = of_stream_send(&oc->st, m->data + m->sent, m->len - m->sent);
        if (n < 0) {
            conn_close(oc, true, "TCP refused output");
            return;
        }
        m->sent += (uint32_t)n;
        oc->out_bytes -= (uint64_t)n;
        if (m->sent < m->len)
            return;                  /* send buffer full: on_writable resumes */
        qmsg_fifo_pop(&oc->out);
        io->stats.msgs_out++;
        qmsg_free(m);
    }
}

/* TLS connections with output queued this pass, flushed once at its end. */
static void flush_dirty(struct of_io *io)
{
    while (io->dirty_head) {
        struct of_conn *oc = io->dirty_head;
        io->dirty_head = oc->dirty_next;
        oc->tls_dirty = false;
        if (oc->st.tcp)
            flush_out(oc);
    }
}

/* Into the connection's flight record, stamped with the io's clock. */
static void flight_msg(struct of_conn *oc, enum of_flight_dir dir, const void *msg, size_t len)
{
    struct of_io *io = oc->io;

    if (!io->flight_mem)
        return;
    io->stats.recorder_evicted += of_flight_add(&oc->flight, dir, io->flight_now_ns, msg, len);
    io->stats.recorded++;
}

static void queue_out(struct of_conn *oc, struct qmsg *m)
{
    struct of_io *io = oc->io;

    flight_msg(oc, OF_FLIGHT_OUT, m->data, m->len);
    m->sent = 0;
    qmsg_fifo_push(&oc->out, m);
    oc->out_bytes += m->len;
    if (oc->st.tls) {
        /* Gathered with what else this pass queues (flush_dirty). */
        if (!oc->tls_dirty) {
            oc->tls_dirty = true;
            oc->dirty_next = io->dirty_head;
            io->dirty_head = oc;
        }
    } else {
        flush_out(oc);
    }
    if (oc->st.tcp && oc->out_bytes > io->out_backlog_max) {
        io->stats.out_backlog_drops++;
        LOG_WARN_RL(&io->rl_backlog, io->env.clock_us(), "of", "io %u: switch connection %#lx "
                    "has %lu unsent bytes: it stopped reading; disconnecting", io->io_index,
                    (unsigned long)conn_handle(oc), (unsigned long)oc->out_bytes);
        conn_close(oc, true, "output backlog over openflow.out_backlog_kb");
    }
}

/* A buffer for one of the connection's messages, charged to its share and
 * the shares it is part of: NULL (counted, and logged rate-limited with the
 * share that is full) when one of them has no room or the pool is empty. */
/* What a switch sends to finish the handshake (and errors about it): the
 * worker takes these at once (never holds them), so they cost only a
 * moment of the pending shares. */
static bool handshake_type(uint8_t type)
{
    return type == OFPT_HELLO || type == OFPT_ERROR || type == OFPT_ECHO_REPLY ||
           type == OFPT_FEATURES_REPLY || type == OFPT_GET_CONFIG_REPLY ||
           type == OFPT_MULTIPART_REPLY || type == OFPT_BARRIER_REPLY;
}

/* type: the message's OpenFlow type, or -1 for what ofcd makes itself (an
 * echo reply). A connection short of ESTABLISHED is not kept from its own
 * handshake by its pending shares: whatever it sent before (messages the
 * worker holds until the handshake ends, charged to its small share) or
 * what others hold of the pending connections' share would otherwise stop
 * its FEATURES_REPLY or DESC reply until the handshake timeout. Only its
 * address's share bounds those. */
static struct qmsg *conn_buf(struct of_conn *oc, size_t len, int type)
{
    struct of_io *io = oc->io;
    bool big = len > QMSG_SMALL_DATA;
    const struct qmsg_quota *full =
        oc->pend.addr && type >= 0 && handshake_type((uint8_t)type)
            ? (qmsg_quota_room_own(&oc->addr->quota, big) ? NULL : &oc->addr->quota)
            : qmsg_quota_blocker(&oc->quota, big);
    uint64_t missed;
    char peer[OFCD_PEER_STRLEN];
    const char *whose;

    if (!full) {
        struct qmsg *m = qmsg_alloc_for(io->env.pool, len, &oc->quota, false);
        if (!m)
            io->stats.no_buffer++;
        return m;
    }
    if (full == &oc->quota) {
        io->stats.quota_paused++;
        whose = oc->pend.addr ? "its share while short of ESTABLISHED "
                                "(openflow.pending_conn_buffers)"
                              : "its share (openflow.conn_buffers/conn_buffer_kb/"
                                "conn_control_buffers)";
    } else if (full == &io->pending_quota) {
        io->stats.pending_paused++;
        whose = "what all connections short of ESTABLISHED may hold (openflow.pending_buffers)";
    } else {
        io->stats.ip_paused++;
        whose = "what its address's connections may hold together (openflow.ip_buffers/"
                "ip_buffer_kb/ip_control_buffers)";
    }
    if (ofcd_ratelimit(&io->rl_quota, io->env.clock_us(), &missed))
        LOG_WARN("of", "io %u: connection %#lx from %s: buffers at %s (%u held, %u of them "
                 "large, %u of the control plane's): not reading it until they come back "
                 "(%lu more pauses unlogged)", io->io_index, (unsigned long)conn_handle(oc),
                 ofcd_peer_format(oc->peer_ip, oc->peer_port, peer), whose,
                 qmsg_quota_bufs(full), qmsg_quota_large(full), qmsg_quota_control_bufs(full),
                 (unsigned long)missed);
    return NULL;
}

/* The reply, queued on the connection; false when no buffer may be taken for
 * it now (the request stays in the stream and is answered later). */
static bool answer_echo(struct of_conn *oc, uint16_t len)
{
    struct qmsg *m = conn_buf(oc, len, -1);

    if (!m)
        return false;
    of_stream_copy(&oc->st, m->data, len);
    flight_msg(oc, OF_FLIGHT_IN, m->data, len);
    m->data[1] = OFPT_ECHO_REPLY;        /* same version, xid and payload */
    m->len = len;
    oc->io->stats.echo_inline++;
    queue_out(oc, m);
    return true;
}

static void drop_early_packet_in(struct of_conn *oc, uint16_t len)
{
    struct of_io *io = oc->io;
    uint64_t missed;
    char peer[OFCD_PEER_STRLEN];

    io->stats.early_packet_ins_dropped++;
    if (ofcd_ratelimit(&io->rl_early_pin, io->env.clock_us(), &missed))
        LOG_INFO("of", "io %u: connection %#lx from %s sends PACKET_INs before its handshake "
                 "is done: past openflow.pending_conn_buffers they are let go (%lu more "
                 "unlogged)", io->io_index, (unsigned long)conn_handle(oc),
                 ofcd_peer_format(oc->peer_ip, oc->peer_port, peer), (unsigned long)missed);
    of_stream_consume(&oc->st, len);
    oc->flight_framed = false;       /* the next message is another */
}

/* More to frame than has been: bytes readable, or (TLS) ciphertext in TCP. */
static bool more_waiting(const struct of_conn *oc)
{
    return of_stream_avail(&oc->st) >= OFP13_HEADER_LEN ||
           (oc->st.tls && tcp_recv_available(oc->st.tcp));
}

/* Frame and dispatch what has arrived. Stops at a partial message (more
 * comes with on_readable), or a full ring, full quota, empty pool or the
 * read budget (retried from the poll). Returns the messages consumed. */
static unsigned frame_conn(struct of_conn *oc)
{
    struct of_io *io = oc->io;
    unsigned done = 0, budget;

    if (oc->up_parked) {
        retry_later(oc);                 /* after its CONN_UP (flush_events) */
        return 0;
    }
    if (io->flight_mem)
        io->flight_now_ns = io->env.clock_us() * 1000u;
    for (budget = OF_IO_READ_BUDGET; budget && oc->st.tcp; budget--) {
        size_t avail = of_stream_avail(&oc->st);
        uint8_t hdr[OFP13_HEADER_LEN];
        if (avail < sizeof(hdr) && (avail = conn_fill(oc, sizeof(hdr))) < sizeof(hdr))
            break;
        of_stream_copy(&oc->st, hdr, sizeof(hdr));
        uint16_t len = (uint16_t)(hdr[2] << 8 | hdr[3]);
        if (len < OFP13_HEADER_LEN) {
            /* No way to find the next message: the stream is lost. */
            io->stats.bad_framing++;
            conn_close(oc, true, "OpenFlow length field below 8: stream cannot be framed");
            return done;
        }
        if (avail < len && conn_fill(oc, len) < len)
            return done;
        if (hdr[1] == OFPT_ECHO_REQUEST && hdr[0] == OFP13_VERSION) {
            if (!answer_echo(oc, len)) {
                retry_later(oc);
                return done;
            }
            if (!oc->st.tcp)
                return done;
            of_stream_consume(&oc->st, len);
            done++;
            continue;
        }
        if (oc->pend.addr && hdr[1] == OFPT_PACKET_IN &&
            !qmsg_quota_room_own(&oc->quota, sizeof(struct of_event_hdr) + len >
                                                 QMSG_SMALL_DATA)) {
            /* Short of ESTABLISHED, what the worker holds for the handshake
             * fills the small share: one more PACKET_IN (a packet the switch
             * copied, it loses no state) is let go so the replies behind it
             * can end the handshake, as controllers drop packet-ins before
             * their switch is up. Counted, never held. */
            drop_early_packet_in(oc, len);
            if (!oc->st.tcp)
                return done;
            done++;
            continue;
        }
        /* Room for the event header in front: the worker forwards a message
         * to the control thread in its own buffer. */
        struct qmsg *m = conn_buf(oc, sizeof(struct of_event_hdr) + len,
                                  hdr[0] == OFP13_VERSION ? hdr[1] : -1);
        if (!m) {
            retry_later(oc);             /* buffers come back as the worker frees */
            return done;
        }
        of_stream_copy(&oc->st, m->data, len);
        m->len = len;
        m->kind = QMSG_OF;
        m->conn = conn_handle(oc);
        m->cls = (uint8_t)ofp_msg_class(hdr);
        /* Recorded while the buffer is still the io's (queued, it is the
         * worker's), and once: a message that waits for room in msg_in is
         * framed again from the same bytes. */
        if (!oc->flight_framed) {
            flight_msg(oc, OF_FLIGHT_IN, m->data, len);
            oc->flight_framed = true;
        }
        if (msgq_enqueue(worker_for(io, m->conn), m, io->env.clock_tsc()) != 0) {
            qmsg_free(m);
            io->stats.in_blocked++;
            retry_later(oc);             /* bytes stay in the stream: the window closes */
            return done;
        }
        oc->flight_framed = false;
        io->stats.msgs_in++;
        of_stream_consume(&oc->st, len);
        done++;
    }
    if (!budget && oc->st.tcp && more_waiting(oc))
        retry_later(oc);                 /* budget spent: continue next loop */
    return done;
}

static unsigned read_conn(struct of_conn *oc)
{
    unsigned done = frame_conn(oc);

    flush_dirty(oc->io);                 /* TLS: the echo replies of this read, gathered */
    return done;
}

/* The switch closed its side and everything that can be framed is read:
 * nothing more will come, so what is left (a message cut short) never
 * completes; holding it would pin its bytes until a timeout. */
static void close_if_ended(struct of_conn *oc)
{
    if (!oc->st.tcp || oc->on_list || oc->in_handshake || !of_stream_ended(&oc->st))
        return;
    conn_close(oc, false, of_stream_avail(&oc->st)
                              ? "switch closed the connection in the middle of a message"
                              : "switch closed the connection");
}

/* Read what arrived, unless the connection waits on the retry list. A
 * connection short of ESTABLISHED also waits behind the ones already
 * there: in a burst the oldest handshakes go on first, instead of each
 * newcomer taking the room the worker frees and the oldest missing their
 * HELLO timeout. */
static void read_or_queue(struct of_conn *oc)
{
    if (oc->on_list)
        return;
    if (oc->pend.addr && oc->io->retry.head)
        retry_later(oc);
    else
        read_conn(oc);
}

/* Tell the worker the connection is up: at once for plain TCP, after the
 * handshake for TLS (the worker's HELLO cannot be written before). */
static void post_up(struct of_conn *oc, struct qmsg *up_ev)
{
    struct qmsg_conn_up up = {.quota = &oc->quota, .peer_ip = oc->peer_ip,
                              .peer_port = oc->peer_port, .tls = oc->st.tls != NULL};

    if (oc->st.tls)
        up.has_cert = tls_sess_peer_sha256(oc->st.tls, up.cert_sha256) == 0;
    /* Its messages must not overtake it into the ring: a HELLO before the
     * worker knows the connection is lost, and its HELLO timer then runs
     * out for nothing. */
    oc->up_parked = post_event(oc->io, conn_handle(oc), up_ev, QMSG_CONN_UP, &up, sizeof(up));
}

static void conn_up(struct of_conn *oc, struct qmsg *up_ev)
{
    post_up(oc, up_ev);
    read_or_queue(oc);
    close_if_ended(oc);
}

/* A TLS connection in its handshake: refuse plaintext OpenFlow with a
 * reason an operator recognises, move the handshake on, and once it is done
 * log who the switch says it is and hand the connection to the worker. */
static void tls_progress(struct of_conn *oc)
{
    struct of_io *io = oc->io;
    char peer[OFCD_PEER_STRLEN], subject[160], why[160];
    uint8_t first;

    if (!tcp_recv_available(oc->st.tcp) && !oc->hs_begun)
        return;                          /* nothing from the switch yet */
    if (!oc->hs_begun) {
        if (!io->hs_budget) {
            retry_later(oc);             /* this poll's first flights are taken */
            return;
        }
        io->hs_budget--;
        oc->hs_begun = true;
    }
    if (!oc->first_byte_seen && tcp_recv_copy(oc->st.tcp, &first, 1) == 1) {
        oc->first_byte_seen = true;
        if (first != 0x16 && first >= 1 && first <= 6) {   /* not a TLS handshake record */
            io->stats.tls_plaintext++;
            snprintf(why, sizeof(why), "plaintext OpenFlow (version byte %#x) on the TLS port: "
                     "is the switch set to tcp: instead of ssl:?", first);
            tls_failed(oc, why);
            return;
        }
    }
    if (of_stream_fill(&oc->st, 0) < 0) {
        tls_failed(oc, of_stream_error(&oc->st));
        return;
    }
    if (of_stream_handshaking(&oc->st))
        return;
    hs_remove(oc);
    io->stats.tls_handshakes++;
    tls_sess_peer_subject(oc->st.tls, subject, sizeof(subject));
    LOG_INFO_RL(&io->rl_tls_up, io->env.clock_us(), "of", "io %u: connection %#lx from %s: %s "
                "%s, certificate %s", io->io_index, (unsigned long)conn_handle(oc),
                ofcd_peer_format(oc->peer_ip, oc->peer_port, peer), tls_sess_version(oc->st.tls),
                tls_sess_cipher(oc->st.tls), subject);
    struct qmsg *m = oc->up_ev;
    oc->up_ev = NULL;
    conn_up(oc, m);
}

/* Handshakes past tls.handshake_timeout_ms: closed oldest first. */
static void expire_handshakes(struct of_io *io)
{
    uint64_t now = io->env.clock_us(), missed;
    char peer[OFCD_PEER_STRLEN];

    while (io->hs_head && io->hs_head->hs_deadline_us <= now) {
        struct of_conn *oc = io->hs_head;
        io->stats.tls_handshake_timeouts++;
        if (ofcd_ratelimit(&io->rl_tls, now, &missed))
            LOG_WARN("of", "io %u: TLS handshake with %s not done within "
                     "tls.handshake_timeout_ms (%lu ms): closed (%lu more TLS failures "
                     "unlogged)", io->io_index,
                     ofcd_peer_format(oc->peer_ip, oc->peer_port, peer),
                     (unsigned long)(io->tls_hs_timeout_us / 1000), (unsigned long)missed);
        conn_close(oc, true, NULL);
    }
}

static void on_established(struct tcp_conn *c, void *user)
{
    struct of_listener *l = user;
    struct of_io *io = l->io;
    struct tcp_conn_info info;
    uint64_t missed;
    char peer[OFCD_PEER_STRLEN];

    tcp_conn_get_info(c, &info);
    if (io->n_free == 0) {
        io->stats.refused_table_full++;
        if (ofcd_ratelimit(&io->rl_refuse, io->env.clock_us(), &missed))
            LOG_WARN("of", "io %u: connection table full (%u): refusing %s (%lu more refused "
                     "unlogged)", io->io_index, io->n_slots,
                     ofcd_peer_format(info.remote_ip, info.remote_port, peer),
                     (unsigned long)missed);
        tcp_abort(c);
        return;
    }
    struct of_addr *addr = of_addrs_get(io->addrs, info.remote_ip);
    if (!addr) {
        io->stats.refused_addr_table++;
        if (ofcd_ratelimit(&io->rl_refuse, io->env.clock_us(), &missed))
            LOG_WARN("of", "io %u: address table full (%u addresses with connections or "
                     "buffers out): refusing %s (%lu more refused unlogged)", io->io_index,
                     of_addrs_count(io->addrs),
                     ofcd_peer_format(info.remote_ip, info.remote_port, peer),
                     (unsigned long)missed);
        tcp_abort(c);
        return;
    }
    /* Both connection events' buffers now, or the connection is refused: its
     * end must reach the worker whatever the events pool holds by then. */
    struct qmsg *up_ev = qmsg_alloc(io->env.event_pool, sizeof(struct qmsg_conn_up));
    struct qmsg *down_ev = up_ev ? qmsg_alloc(io->env.event_pool, sizeof(int)) : NULL;
    struct of_stream st = {.tcp = c};
    bool no_tls = down_ev && l->tls && of_stream_tls_start(&st, io->env.tls) < 0;
    if (!down_ev || no_tls) {
        qmsg_free(up_ev);
        qmsg_free(down_ev);
        of_addrs_put(io->addrs, addr);
        if (no_tls)
            io->stats.tls_no_memory++;
        else
            io->stats.refused_no_event_buffer++;
        if (ofcd_ratelimit(&io->rl_event, io->env.clock_us(), &missed))
            LOG_WARN("of", "io %u: %s: refusing %s (%lu more refused unlogged)", io->io_index,
                     no_tls ? "out of memory for a TLS session"
                            : "events pool empty (raise openflow.event_buffers)",
                     ofcd_peer_format(info.remote_ip, info.remote_port, peer),
                     (unsigned long)missed);
        tcp_abort(c);
        return;
    }
    struct of_conn *oc = &io->conns[io->free_slots[io->free_head]];
    io->free_head = (io->free_head + 1) % io->n_slots;
    io->n_free--;
    oc->st = st;
    of_flight_reset(&oc->flight);
    oc->flight_gen = oc->gen;
    oc->flight_open = true;
    oc->flight_framed = false;
    oc->local_port = info.local_port;
    oc->down_ev = down_ev;
    oc->up_ev = NULL;
    /* on_list is left as it is: it says the slot is on a wait list, where
     * a previous connection of this slot may have left it; pushing it again
     * would link the list into a loop (its turn serves the new one). */
    oc->out = (struct qmsg_fifo){0};
    oc->out_bytes = 0;
    oc->first_byte_seen = false;
    oc->hs_begun = false;
    oc->up_parked = false;
    oc->peer_ip = info.remote_ip;
    oc->peer_port = info.remote_port;
    /* Short of ESTABLISHED: a small share, inside its address's and the
     * pending connections' (the oldest of the busiest address gives way
     * when the pending connections are at their bound). */
    if (of_addrs_pending(io->addrs) >= io->max_pending)
        evict_pending(io);
    oc->addr = addr;
    oc->pend.addr = NULL;
    qmsg_quota_set_up(&oc->quota, 0, &addr->quota);
    if (of_addrs_pend(io->addrs, addr, &oc->pend) == 0) {
        qmsg_quota_bound(&oc->quota, &io->pending_share);
        qmsg_quota_set_up(&oc->quota, 1, &io->pending_quota);
    } else {
        /* Cannot be with room made just above (max_pending is at least
         * one); counted established rather than pending for ever. */
        qmsg_quota_bound(&oc->quota, &io->share);
        qmsg_quota_set_up(&oc->quota, 1, NULL);
    }
    io->n_conns++;
    io->stats.conns_accepted++;
    tcp_conn_set_user(c, oc);
    if (st.tls) {
        oc->up_ev = up_ev;
        hs_push(oc, io->env.clock_us());
        tls_progress(oc);
        return;
    }
    if (waiting(io)) {
        /* Others wait: this one's start (the worker's HELLO and its HELLO
         * timer) waits its turn behind them, so a burst is served in
         * arrival order and nobody's timer runs while ofcd, not the switch,
         * is the slow one. */
        oc->up_ev = up_ev;
        if (oc->on_list == OC_LIST_NONE)
            wait_push(&io->start, oc, OC_LIST_START);
        return;
    }
    conn_up(oc, up_ev);
}

static void on_readable(struct tcp_conn *c, void *user)
{
    struct of_conn *oc = user;

    (void)c;
    if (oc->in_handshake) {
        tls_progress(oc);
        return;
    }
    read_or_queue(oc);
    close_if_ended(oc);
}

static void on_writable(struct tcp_conn *c, void *user)
{
    struct of_conn *oc = user;

    (void)c;
    if (oc->in_handshake) {
        tls_progress(oc);            /* a handshake flight waited for room */
        return;
    }
    flush_out(oc);
}

static void on_closed(struct tcp_conn *c, void *user, int reason)
{
    struct of_conn *oc = user;
    conn_handle_t h = conn_handle(oc);

    (void)c;
    if (!oc->st.tcp)
        return;
    of_stream_gone(&oc->st);
    release_slot(oc);
    post_down(oc, h, reason);
}

/* The listener's ops become each accepted connection's; the user pointer
 * switches from the of_listener to the connection's of_conn in
 * on_established. */
static const struct tcp_conn_ops of_listen_ops = {
    .on_established = on_established,
    .on_readable = on_readable,
    .on_writable = on_writable,
    .on_closed = on_closed,
};

OFCD_COUNTER_GROUP(of_io_counters, "openflow_io", struct of_io_stats, OF_IO_COUNTERS,
                   OF_IO_GAUGES);

struct of_io *of_io_create(const struct of_io_cfg *cfg, const struct of_io_env *env)
{
    unsigned io_index = cfg->io_index;
    struct of_io *io = calloc(1, sizeof(*io));

    if (!io)
        goto oom;
    io->env = *env;
    io->io_index = io_index;
    io->out_backlog_max = (uint64_t)cfg->out_backlog_kb * 1024u;
    io->share = (struct qmsg_quota_bounds){
        .bufs = cfg->conn_buffers, .bytes = (uint64_t)cfg->conn_buffer_kb * 1024u,
        .control_bufs = cfg->conn_control_buffers};
    /* A handshake needs a few buffers and one large one at most (a PORT_DESC
     * reply of many ports); what waits for the handshake to end counts too. */
    io->pending_share = io->share;
    if (cfg->pending_conn_buffers) {
        io->pending_share.bufs = cfg->pending_conn_buffers;
        io->pending_share.large = 1;
    }
    qmsg_quota_bound(&io->pending_quota, &(struct qmsg_quota_bounds){
        .bufs = cfg->pending_buffers, .large = of_io_large_of(cfg->pending_buffers)});
    io->max_pending = cfg->max_pending;
    io->rl_refuse = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    io->rl_event = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    io->rl_quota = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    io->rl_tls = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    io->rl_evict = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    io->rl_early_pin = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(1, 10000);
    io->rl_close = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(100, 1000);
    io->rl_backlog = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    io->rl_tls_up = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(20, 1000);
    io->plain = (struct of_listener){.io = io, .tls = false};
    io->secure = (struct of_listener){.io = io, .tls = true};
    io->tls_hs_timeout_us = (uint64_t)cfg->tls_handshake_timeout_ms * 1000u;
    if (cfg->tls_port && !env->tls) {
        LOG_ERR("of", "io %u: a TLS port (%u) without a TLS context", io_index, cfg->tls_port);
        goto fail;
    }
    /* Every open connection pins its address; as many again may be draining
     * (closed, buffers still on their way back). */
    struct qmsg_quota_bounds ip_share = {
        .bufs = cfg->ip_buffers, .bytes = (uint64_t)cfg->ip_buffer_kb * 1024u,
        .control_bufs = cfg->ip_control_buffers};
    io->addrs = of_addrs_create(2u * cfg->max_conns, cfg->max_pending, &ip_share);
    io->n_slots = cfg->max_conns;
    io->conns = calloc(io->n_slots, sizeof(*io->conns));
    io->tls_out = cfg->tls_port ? malloc(OF_IO_TLS_RECORD) : NULL;
    io->free_slots = calloc(io->n_slots, sizeof(*io->free_slots));
    if (!io->conns || !io->free_slots || !io->addrs || (cfg->tls_port && !io->tls_out))
        goto oom;
    size_t flight_bytes = io->flight_bytes = (size_t)cfg->recorder_kb * 1024u;
    /* Pages are made resident as records fill, not all at once. */
    io->flight_mem = flight_bytes ? calloc(io->n_slots, flight_bytes) : NULL;
    if (flight_bytes && !io->flight_mem) {
        LOG_ERR("of", "io %u: no memory for the flight recorder: openflow.recorder_kb (%u) "
                "times tcp.max_conns (%u) is %zu MiB; lower either", io_index,
                cfg->recorder_kb, io->n_slots, flight_bytes * io->n_slots >> 20);
        goto fail;
    }
    for (uint32_t i = 0; i < io->n_slots; i++) {
        io->conns[i].io = io;
        io->conns[i].slot = i;
        io->free_slots[i] = i;
        of_flight_init(&io->conns[i].flight,
                       io->flight_mem ? io->flight_mem + i * flight_bytes : NULL, flight_bytes);
    }
    io->n_free = io->n_slots;
    char name[32];
    snprintf(name, sizeof(name), "msg_out_%u", io_index);
    struct msgq_cfg qc = {
        .name = name,
        .size = cfg->queue_size,
        .multi_producer = true,          /* workers and the control thread */
        .multi_consumer = false,
        .starve_bursts = MSGQ_STARVE_BURSTS,
        .credit = MSGQ_CREDIT,
    };
    io->msg_out = msgq_create(&qc);
    if (!io->msg_out)
        goto fail;
    uint16_t ports[3] = {cfg->port, cfg->extra_port, cfg->tls_port};
    for (unsigned i = 0; i < 3; i++) {
        if (!ports[i])
            continue;
        int rc = tcp_listen(env->tcp, ports[i], 0, &of_listen_ops,
                            i == 2 ? &io->secure : &io->plain);
        if (rc < 0) {
            LOG_ERR("of", "io %u: cannot listen on OpenFlow%s port %u: %s", io_index,
                    i == 2 ? " TLS" : "", ports[i], strerror(-rc));
            goto fail;
        }
    }
    return io;
oom:
    LOG_ERR("of", "io %u: out of memory for the OpenFlow connection table", io_index);
fail:
    of_io_destroy(io);
    return NULL;
}

void of_io_destroy(struct of_io *io)
{
    if (!io)
        return;
    for (uint32_t i = 0; io->conns && i < io->n_slots; i++) {
        free_out(&io->conns[i]);
        qmsg_free(io->conns[i].down_ev);
        qmsg_free(io->conns[i].up_ev);
        tls_sess_free(io->conns[i].st.tls);  /* TCP is the stack's to free */
    }
    qmsg_fifo_free(&io->events);
    if (io->msg_out) {
        qmsg_free_queued(io->msg_out);
        msgq_destroy(io->msg_out);
    }
    free(io->conns);
    free(io->flight_mem);
    ofcd_textreq_fini(&io->ask.req);
    free(io->tls_out);
    free(io->free_slots);
    of_addrs_destroy(io->addrs);
    free(io);
}

struct msgq *of_io_msg_out(struct of_io *io)
{
    return io->msg_out;
}

static struct of_conn *conn_of(struct of_io *io, conn_handle_t h)
{
    uint32_t slot = conn_handle_slot(h);

    if (conn_handle_io(h) != io->io_index || slot >= io->n_slots)
        return NULL;
    struct of_conn *oc = &io->conns[slot];
    return oc->st.tcp && oc->gen == conn_handle_gen(h) ? oc : NULL;
}

/* Room to start a connection now: the worker's ring can take its CONN_UP
 * and its HELLO (else its timer would run on ofcd's own delay). Nothing of
 * a share: a HELLO is taken whatever the pending shares hold, and one
 * address's share must not hold up another address's starts. */
static bool room_to_start(struct of_conn *oc)
{
    return !oc->io->events.head &&
           msgq_free_count(worker_for(oc->io, conn_handle(oc)), OFP_PRIO_P0) >= 2;
}

/* The waiting connections' turn, oldest first and at most a budget of each
 * list per poll (thousands waiting in a burst must not make every loop
 * slower than the worker drains): first those already started, whose HELLO
 * timers run, then starts while there is room. Whether it worked. */
static bool serve_waiting(struct of_io *io)
{
    struct of_wait list = io->retry;
    bool worked = false;
    unsigned budget = OF_IO_RETRY_BUDGET;

    io->retry = (struct of_wait){0};
    while (list.head) {
        if (!budget--) {
            /* The rest keep their place, ahead of those that paused again. */
            list.tail->retry_next = io->retry.head;
            if (!io->retry.head)
                io->retry.tail = list.tail;
            io->retry.head = list.head;
            io->retry.n += list.n;
            break;
        }
        struct of_conn *oc = wait_pop(&list);
        if (!oc->st.tcp)
            continue;
        if (oc->in_handshake) {
            tls_progress(oc);            /* its first flight waited for a poll's budget */
            worked = true;
            continue;
        }
        if (oc->up_ev) {                 /* a new connection of a slot on this list */
            wait_push(&io->start, oc, OC_LIST_START);
            continue;
        }
        /* A connection waiting for its quota is no work: the loop may idle. */
        if (read_conn(oc))
            worked = true;
        close_if_ended(oc);
    }
    for (budget = OF_IO_RETRY_BUDGET; io->start.head && budget; budget--) {
        struct of_conn *oc = io->start.head;
        if (oc->st.tcp && oc->up_ev && !oc->in_handshake && !room_to_start(oc))
            break;                       /* in order: the head waits for room */
        wait_pop(&io->start);
        if (!oc->st.tcp)
            continue;
        if (oc->in_handshake) {          /* a TLS connection of a slot on this list */
            tls_progress(oc);
            worked = true;
            continue;
        }
        if (oc->up_ev) {
            struct qmsg *up_ev = oc->up_ev;
            oc->up_ev = NULL;
            post_up(oc, up_ev);
        }
        worked = true;
        read_conn(oc);
        close_if_ended(oc);
    }
    return worked;
}

/* The control thread's ask, answered into its buffer. */
static void answer_flight_ask(struct of_io *io)
{
    struct ofcd_textreq *t = &io->ask.req;

    io->ask.rc = of_io_flight_copy(io, io->ask.h, t->buf, t->cap, &t->len, &io->ask.ends);
    if (io->ask.rc < 0)
        t->len = 0;
    ofcd_textreq_answer(t);
}

int of_io_flight_ask(struct of_io *io, conn_handle_t h)
{
    /* The largest blob a slot gives: both rings full, and its header. */
    size_t cap = io->flight_bytes + 64;

    if (!io->flight_mem)
        return -ENOENT;
    if (!ofcd_textreq_ready(&io->ask.req))
        return -EBUSY;
    io->ask.h = h;
    return ofcd_textreq_ask(&io->ask.req, cap);
}

bool of_io_flight_answer(struct of_io *io, int *rc, const void **blob, size_t *len,
                         struct of_io_flight_ends *ends)
{
    if (!io->ask.req.buf || !ofcd_textreq_ready(&io->ask.req))
        return false;
    *rc = io->ask.rc;
    *blob = io->ask.req.buf;
    *len = io->ask.req.len;
    *ends = io->ask.ends;
    return true;
}

bool of_io_poll(struct of_io *io, uint64_t tsc)
{
    bool worked = false;

    if (ofcd_textreq_pending(&io->ask.req))
        answer_flight_ask(io);
    if (io->flight_mem)
        io->flight_now_ns = io->env.clock_us() * 1000u;
    flush_events(io);
    of_addrs_reap(io->addrs);
    io->hs_budget = OF_IO_TLS_NEW_PER_POLL;
    if (io->hs_head)
        expire_handshakes(io);
    if (serve_waiting(io))
        worked = true;
    struct qmsg *m[OF_IO_OUT_BURST];
    unsigned n = msgq_dequeue_burst(io->msg_out, m, OF_IO_OUT_BURST, tsc);
    for (unsigned i = 0; i < n; i++) {
        struct of_conn *oc = conn_of(io, m[i]->conn);
        if (!oc) {
            io->stats.out_stale++;       /* the switch went away meanwhile */
            qmsg_free(m[i]);
            continue;
        }
        if (m[i]->kind == QMSG_ESTABLISHED) {
            conn_not_pending(oc);        /* the handshake is done: no longer pending */
            qmsg_free(m[i]);
            continue;
        }
        if (m[i]->kind == QMSG_CLOSE) {
            char why[96];
            size_t k = m[i]->len < sizeof(why) - 1 ? m[i]->len : sizeof(why) - 1;
            memcpy(why, m[i]->data, k);
            why[k] = '\0';
            qmsg_free(m[i]);
            flush_out(oc);               /* TLS: what the worker queued before it, first */
            if (oc->st.tcp)
                conn_close(oc, false, why);
            continue;
        }
        queue_out(oc, m[i]);
    }
    flush_dirty(io);
    return worked || n > 0;
}

int of_io_flight_copy(struct of_io *io, conn_handle_t h, void *dst, size_t cap, size_t *len,
                      struct of_io_flight_ends *ends)
{
    uint32_t slot = conn_handle_slot(h);

    if (!io->flight_mem || slot >= io->n_slots)
        return -ENOENT;
    struct of_conn *oc = &io->conns[slot];
    if (oc->flight_gen != conn_handle_gen(h) || !oc->flight.st.recorded)
        return -ENOENT;
    *len = of_flight_copy_size(&oc->flight);
    if (cap < *len)
        return -ENOSPC;
    of_flight_copy(&oc->flight, dst, cap);
    *ends = (struct of_io_flight_ends){.peer_ip = oc->peer_ip, .peer_port = oc->peer_port,
                                    .local_port = oc->local_port, .closed = !oc->flight_open};
    return 0;
}

void of_io_get_stats(const struct of_io *io, struct of_io_stats *out)
{
    *out = io->stats;
    out->switch_conns = io->n_conns;
    out->pending = of_addrs_pending(io->addrs);
    out->addresses = of_addrs_count(io->addrs);
    out->waiting_read = io->retry.n;
    out->waiting_start = io->start.n;
}

void of_io_visit_counters(const struct of_io *io, ofcd_counter_fn fn, void *arg)
{
    struct of_io_stats st;

    of_io_get_stats(io, &st);
    fn(arg, &of_io_counters, "", OFCD_COUNTER_VALUES(&st));
}

uint32_t of_io_conn_count(const struct of_io *io)
{
    return io->n_conns;
}
