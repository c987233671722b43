/* of_io: see of_io.h. */
#include "of_io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofcd_log.h"
#include "ofp_msg.h"
#include "ofp_wire.h"

#define OF_IO_OUT_BURST 64
/* Messages framed per connection per readable event: fairness between
 * switches (OVS connmgr reads at most 50 at a time for the same reason). */
#define OF_IO_READ_BUDGET 64

struct of_conn {
    struct tcp_conn *tcp;            /* NULL: slot free */
    struct of_io *io;
    uint32_t slot;
    uint32_t gen;
    bool blocked;                    /* on the retry list */
    struct qmsg *out_head, *out_tail; /* unsent, in order */
    uint64_t out_bytes;
    struct of_conn *retry_next;
};

struct of_io {
    struct of_io_env env;
    unsigned io_index;
    struct msgq *msg_out;
    struct of_conn *conns;
    uint32_t n_slots;
    uint32_t *free_slots;
    uint32_t n_free;
    struct of_conn *retry_head;      /* connections blocked on msg_in or buffers */
    struct qmsg *events_head, *events_tail; /* CONN_DOWN events waiting for room */
    uint64_t out_backlog_max;
    uint32_t n_conns;
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


static void retry_later(struct of_conn *oc)
{
    if (oc->blocked)
        return;
    oc->blocked = true;
    oc->retry_next = oc->io->retry_head;
    oc->io->retry_head = oc;
}

/* Queue a connection event for the worker; events are never dropped: one
 * that does not fit waits on the io's event list. */
static void post_event(struct of_io *io, conn_handle_t h, enum qmsg_kind kind, int reason)
{
    struct qmsg *m = qmsg_alloc(io->env.pool, sizeof(int));
    if (!m) {
        io->stats.no_buffer++;
        LOG_ERR("of", "io %u: no buffer for a connection event: worker view may go stale",
                io->io_index);
        return;
    }
    m->conn = h;
    m->kind = kind;
    m->cls = 0;
    m->len = sizeof(int);
    memcpy(m->data, &reason, sizeof(int));
    m->next = NULL;
    if (!io->events_head && msgq_enqueue(worker_for(io, h), m, io->env.clock_tsc()) == 0)
        return;
    if (io->events_tail)
        io->events_tail->next = m;
    else
        io->events_head = m;
    io->events_tail = m;
}

static void flush_events(struct of_io *io)
{
    while (io->events_head) {
        struct qmsg *m = io->events_head;
        if (msgq_enqueue(worker_for(io, m->conn), m, io->env.clock_tsc()) != 0)
            return;
        io->events_head = m->next;
        if (!io->events_head)
            io->events_tail = NULL;
    }
}

static void free_out(struct of_conn *oc)
{
    while (oc->out_head) {
        struct qmsg *m = oc->out_head;
        oc->out_head = m->next;
        qmsg_free(oc->io->env.pool, m);
    }
    oc->out_tail = NULL;
    oc->out_bytes = 0;
}

static void release_slot(struct of_conn *oc)
{
    struct of_io *io = oc->io;

    free_out(oc);
    oc->tcp = NULL;
    oc->gen = (oc->gen + 1) & 0xffffffu;     /* stale handles stop matching */
    io->free_slots[io->n_free++] = oc->slot;
    io->n_conns--;
    io->stats.conns_closed++;
}

/* Close from our side (worker asked, framing broken, backlog exceeded). */
static void conn_close(struct of_conn *oc, bool abort, const char *why)
{
    struct of_io *io = oc->io;
    conn_handle_t h = conn_handle(oc);

    if (!oc->tcp)
        return;
    LOG_INFO("of", "io %u: closing connection %#lx: %s", io->io_index, (unsigned long)h, why);
    if (abort)
        tcp_abort(oc->tcp);
    else
        tcp_close(oc->tcp);
    release_slot(oc);
    post_event(io, h, QMSG_CONN_DOWN, -ECONNABORTED);
}

/* Push queued output into TCP, in order. */
static void flush_out(struct of_conn *oc)
{
    struct of_io *io = oc->io;

    while (oc->out_head && oc->tcp) {
        struct qmsg *m = oc->out_head;
        ssize_t n = tcp_send(oc->tcp, m->data + m->sent, m->len - m->sent);
        if (n < 0) {
            conn_close(oc, true, "TCP refused output");
            return;
        }
        m->sent += (uint32_t)n;
        oc->out_bytes -= (uint64_t)n;
        if (m->sent < m->len)
            return;                  /* send buffer full: on_writable resumes */
        oc->out_head = m->next;
        if (!oc->out_head)
            oc->out_tail = NULL;
        io->stats.msgs_out++;
        qmsg_free(io->env.pool, m);
    }
}

static void queue_out(struct of_conn *oc, struct qmsg *m)
{
    struct of_io *io = oc->io;

    m->sent = 0;
    m->next = NULL;
    if (oc->out_tail)
        oc->out_tail->next = m;
    else
        oc->out_head = m;
    oc->out_tail = m;
    oc->out_bytes += m->len;
    flush_out(oc);
    if (oc->tcp && oc->out_bytes > io->out_backlog_max) {
        io->stats.out_backlog_drops++;
        LOG_WARN("of", "io %u: switch connection %#lx has %lu unsent bytes: it stopped "
                 "reading; disconnecting", io->io_index, (unsigned long)conn_handle(oc),
                 (unsigned long)oc->out_bytes);
        conn_close(oc, true, "output backlog over openflow.out_backlog_kb");
    }
}

static void answer_echo(struct of_conn *oc, uint16_t len)
{
    struct of_io *io = oc->io;
    struct qmsg *m = qmsg_alloc(io->env.pool, len);

    if (!m) {
        io->stats.no_buffer++;
        return;
    }
    tcp_recv_copy(oc->tcp, m->data, len);
    m->data[1] = OFPT_ECHO_REPLY;        /* same version, xid and payload */
    m->len = len;
    io->stats.echo_inline++;
    queue_out(oc, m);
}

/* Frame and dispatch what has arrived. Stops at a partial message, a full
 * ring (retry later) or the read budget. */
static void read_conn(struct of_conn *oc)
{
    struct of_io *io = oc->io;

    for (unsigned budget = OF_IO_READ_BUDGET; budget && oc->tcp; budget--) {
        size_t avail = tcp_recv_available(oc->tcp);
        uint8_t hdr[OFP13_HEADER_LEN];
        if (avail < sizeof(hdr))
            break;
        tcp_recv_copy(oc->tcp, hdr, sizeof(hdr));
        uint16_t len = (uint16_t)(hdr[2] << 8 | hdr[3]);
        if (len < OFP13_HEADER_LEN) {
            /* No way to find the next message: the stream is lost. */
            io->stats.bad_framing++;
            conn_close(oc, true, "OpenFlow length field below 8: stream cannot be framed");
            return;
        }
        if (avail < len)
            break;
        if (hdr[1] == OFPT_ECHO_REQUEST && hdr[0] == OFP13_VERSION) {
            answer_echo(oc, len);
            if (!oc->tcp)
                return;
            tcp_recv_consume(oc->tcp, len);
            continue;
        }
        struct qmsg *m = qmsg_alloc(io->env.pool, len);
        if (!m) {
            io->stats.no_buffer++;
            retry_later(oc);
            return;
        }
        tcp_recv_copy(oc->tcp, m->data, len);
        m->len = len;
        m->kind = QMSG_OF;
        m->conn = conn_handle(oc);
        m->cls = (uint8_t)ofp_msg_class(hdr);
        if (msgq_enqueue(worker_for(io, m->conn), m, io->env.clock_tsc()) != 0) {
            qmsg_free(io->env.pool, m);
            io->stats.in_blocked++;
            retry_later(oc);             /* bytes stay in TCP: the window closes */
            return;
        }
        io->stats.msgs_in++;
        tcp_recv_consume(oc->tcp, len);
    }
    if (oc->tcp && tcp_recv_available(oc->tcp) >= OFP13_HEADER_LEN)
        retry_later(oc);                 /* budget spent: continue next loop */
}

static void on_established(struct tcp_conn *c, void *user)
{
    struct of_io *io = user;

    if (io->n_free == 0) {
        LOG_WARN("of", "io %u: connection table full (%u): refusing a switch",
                 io->io_index, io->n_slots);
        tcp_abort(c);
        return;
    }
    struct of_conn *oc = &io->conns[io->free_slots[--io->n_free]];
    oc->tcp = c;
    /* blocked is left as it is: it says the slot is on the retry list, where
     * a previous connection of this slot may have left it; pushing it again
     * would link the list into a loop. */
    oc->out_head = oc->out_tail = NULL;
    oc->out_bytes = 0;
    io->n_conns++;
    io->stats.conns_accepted++;
    tcp_conn_set_user(c, oc);
    post_event(io, conn_handle(oc), QMSG_CONN_UP, 0);
    read_conn(oc);
}

static void on_readable(struct tcp_conn *c, void *user)
{
    struct of_conn *oc = user;

    (void)c;
    if (!oc->blocked)
        read_conn(oc);
    if (oc->tcp && tcp_recv_eof(oc->tcp) && tcp_recv_available(oc->tcp) == 0) {
        /* The switch closed its side: nothing more will come. */
        conn_close(oc, false, "switch closed the connection");
    }
}

static void on_writable(struct tcp_conn *c, void *user)
{
    (void)c;
    flush_out(user);
}

static void on_closed(struct tcp_conn *c, void *user, int reason)
{
    struct of_conn *oc = user;
    struct of_io *io = oc->io;
    conn_handle_t h = conn_handle(oc);

    (void)c;
    if (!oc->tcp)
        return;
    release_slot(oc);
    post_event(io, h, QMSG_CONN_DOWN, reason);
}

/* The listener's ops become each accepted connection's; the user pointer
 * switches from the of_io to the connection's of_conn in on_established. */
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
    io->n_slots = cfg->max_conns;
    io->conns = calloc(io->n_slots, sizeof(*io->conns));
    io->free_slots = calloc(io->n_slots, sizeof(*io->free_slots));
    if (!io->conns || !io->free_slots)
        goto oom;
    for (uint32_t i = 0; i < io->n_slots; i++) {
        io->conns[i].io = io;
        io->conns[i].slot = i;
        io->free_slots[io->n_slots - 1 - i] = i;
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
    uint16_t ports[2] = {cfg->port, cfg->extra_port};
    for (unsigned i = 0; i < 2; i++) {
        if (!ports[i])
            continue;
        int rc = tcp_listen(env->tcp, ports[i], 0, &of_listen_ops, io);
        if (rc < 0) {
            LOG_ERR("of", "io %u: cannot listen on OpenFlow port %u: %s", io_index, ports[i],
                    strerror(-rc));
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
    for (uint32_t i = 0; io->conns && i < io->n_slots; i++)
        free_out(&io->conns[i]);
    while (io->events_head) {
        struct qmsg *m = io->events_head;
        io->events_head = m->next;
        qmsg_free(io->env.pool, m);
    }
    if (io->msg_out) {
        struct qmsg *m[32];
        unsigned n;
        while ((n = msgq_dequeue_burst(io->msg_out, m, 32, 0)) > 0)
            for (unsigned i = 0; i < n; i++)
                qmsg_free(io->env.pool, m[i]);
        msgq_destroy(io->msg_out);
    }
    free(io->conns);
    free(io->free_slots);
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
    return oc->tcp && oc->gen == conn_handle_gen(h) ? oc : NULL;
}

bool of_io_poll(struct of_io *io, uint64_t tsc)
{
    bool worked = false;

    flush_events(io);
    /* Connections that paused on a full ring or an empty pool. */
    struct of_conn *list = io->retry_head;
    io->retry_head = NULL;
    while (list) {
        struct of_conn *oc = list;
        list = oc->retry_next;
        oc->blocked = false;
        if (oc->tcp) {
            read_conn(oc);
            worked = true;
        }
    }
    struct qmsg *m[OF_IO_OUT_BURST];
    unsigned n = msgq_dequeue_burst(io->msg_out, m, OF_IO_OUT_BURST, tsc);
    for (unsigned i = 0; i < n; i++) {
        struct of_conn *oc = conn_of(io, m[i]->conn);
        if (!oc) {
            io->stats.out_stale++;       /* the switch went away meanwhile */
            qmsg_free(io->env.pool, m[i]);
            continue;
        }
        if (m[i]->kind == QMSG_CLOSE) {
            char why[96];
            size_t k = m[i]->len < sizeof(why) - 1 ? m[i]->len : sizeof(why) - 1;
            memcpy(why, m[i]->data, k);
            why[k] = '\0';
            qmsg_free(io->env.pool, m[i]);
            conn_close(oc, false, why);
            continue;
        }
        queue_out(oc, m[i]);
    }
    return worked || n > 0;
}

void of_io_get_stats(const struct of_io *io, struct of_io_stats *out)
{
    *out = io->stats;
    out->switch_conns = io->n_conns;
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
