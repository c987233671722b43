/*
 * emu_conn.c - the TCP side of one emulated switch: connect (or listen and accept),
 * OpenFlow framing of the byte stream, a bounded transmit queue with backpressure, and
 * reconnection with exponential backoff.
 *
 * Called from the loop (emu_conn_io for fd events, timers for starts and retries) and by
 * the agent/load code (emu_conn_send).  Messages queued during an iteration are sent by
 * emu_conn_flush_all() from the loop's idle hook, so a burst costs one send() per switch.
 *
 * Backpressure: when the tx queue passes half of --tx-buffer, or a multipart reply is
 * waiting for room, the switch stops reading from the controller (EPOLLIN off) and keeps
 * unprocessed bytes; it resumes below a quarter.  Generated load (packet_ins) is only
 * produced below a quarter.  Since one request's reply is at most one 64 KiB message
 * (multipart replies are produced part by part), the queue never exceeds the limit in
 * normal operation; if it would, the switch disconnects and counts tx_overflow.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "emu.h"
#include "emu_tls.h"

#define SBUF_MIN 512u
/* A drained queue keeps its buffer up to this size; larger ones are freed so idle
 * switches cost little memory. */
#define SBUF_KEEP 512u
#define CLOSED SIZE_MAX

static const char *const disc_names[EMU_DISC_COUNT] = {
    "connect_failed", "peer_closed", "socket_error", "echo_timeout", "bad_framing",
    "hello_failed", "protocol_error", "reconnect_storm", "tx_overflow", "no_memory",
    "shutdown",
};

const char *emu_disc_name(enum emu_disc d)
{
    return d < EMU_DISC_COUNT ? disc_names[d] : "?";
}

/* ---- byte queues ------------------------------------------------------------------- */

static int sbuf_append(struct emu_sbuf *b, const uint8_t *p, size_t n, uint32_t limit)
{
    if ((size_t)b->len + n > limit)
        return -ENOBUFS;
    if ((size_t)b->off + b->len + n > b->cap) {
        if (b->off && (size_t)b->len + n <= b->cap) {
            memmove(b->p, b->p + b->off, b->len);
            b->off = 0;
        } else {
            uint32_t cap = b->cap ? b->cap : SBUF_MIN;
            while (cap < b->len + n)
                cap *= 2;
            uint8_t *np = malloc(cap);
            if (!np)
                return -ENOMEM;
            if (b->len)
                memcpy(np, b->p + b->off, b->len);
            free(b->p);
            b->p = np;
            b->cap = cap;
            b->off = 0;
        }
    }
    memcpy(b->p + b->off + b->len, p, n);
    b->len += (uint32_t)n;
    return 0;
}

static void sbuf_consume(struct emu_sbuf *b, size_t n)
{
    b->off += (uint32_t)n;
    b->len -= (uint32_t)n;
    if (b->len == 0) {
        b->off = 0;
        if (b->cap > SBUF_KEEP) {
            free(b->p);
            b->p = NULL;
            b->cap = 0;
        }
    }
}

static void sbuf_free(struct emu_sbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof(*b));
}

/* ---- helpers ----------------------------------------------------------------------- */

/* epoll tag: connection generation (30 bits) | switch index (32 bits) | kind (2 bits).
 * The generation lets a stale event, reported in the same epoll batch in which its
 * connection was closed and another one opened, be recognised and dropped. */
static uint64_t tag(const struct emu_sw *sw, uint32_t kind)
{
    return ((uint64_t)(sw->conn_gen & EMU_TAG_GEN_MASK) << 34) | ((uint64_t)sw->idx << 2) | kind;
}

static uint32_t high_water(const struct emu_sw *sw)
{
    return sw->ctx->opt.tx_limit / 2;
}

bool emu_conn_room_mp(const struct emu_sw *sw)
{
    return sw->ctx->opt.tx_limit - sw->tx.len >= EMU_OFP_MAX_MSG + 1;
}

bool emu_conn_room_load(const struct emu_sw *sw)
{
    return sw->cs == EMU_CS_OPEN && sw->tx.len < sw->ctx->opt.tx_limit / 4;
}

static void update_events(struct emu_sw *sw)
{
    if (sw->fd < 0 || sw->cs != EMU_CS_OPEN)
        return;
    uint32_t ev = (sw->flags & EMU_SWF_RX_PAUSED) ? 0 : EPOLLIN;
    if (sw->tx.len)
        ev |= EPOLLOUT;
    if (ev != sw->ev_mask && emu_loop_mod(&sw->ctx->loop, sw->fd, ev, tag(sw, EMU_TAG_CONN)) == 0)
        sw->ev_mask = ev;
}

static void mark_dirty(struct emu_sw *sw)
{
    if (sw->flags & EMU_SWF_DIRTY)
        return;
    sw->flags |= EMU_SWF_DIRTY;
    sw->dirty_next = sw->ctx->dirty_head;
    sw->ctx->dirty_head = sw->idx + 1;
}

static uint32_t backoff_delay(struct emu_sw *sw)
{
    struct emu_ctx *ctx = sw->ctx;
    uint32_t b = sw->backoff_ms ? sw->backoff_ms : ctx->opt.backoff_min_ms;
    /* Jitter in [b/2, b] so that switches dropped together do not return together. */
    uint32_t d = b / 2 + (uint32_t)(emu_rand(ctx) % (b / 2 + 1));
    uint64_t next = (uint64_t)b * 2;
    sw->backoff_ms = next > ctx->opt.backoff_max_ms ? ctx->opt.backoff_max_ms : (uint32_t)next;
    return d;
}

/* ---- connection setup -------------------------------------------------------------- */

static void on_open(struct emu_sw *sw)
{
    struct emu_ctx *ctx = sw->ctx;
    sw->cs = EMU_CS_OPEN;
    sw->t_open = ctx->loop.now_ns = emu_now_ns();
    sw->ev_mask = 0;
    ctx->st.open_now++;
    update_events(sw);
    emu_agent_on_open(sw);
}

static ssize_t conn_recv(struct emu_sw *sw, void *buf, size_t len)
{
    return sw->ssl ? emu_tls_recv(sw, buf, len) : recv(sw->fd, buf, len, 0);
}

static ssize_t conn_send(struct emu_sw *sw, const void *buf, size_t len)
{
    return sw->ssl ? emu_tls_send(sw, buf, len)
                   : send(sw->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void connect_failed(struct emu_sw *sw)
{
    struct emu_ctx *ctx = sw->ctx;
    emu_tls_free(sw);
    if (sw->fd >= 0) {
        emu_loop_del(&ctx->loop, sw->fd);
        close(sw->fd);
        sw->fd = -1;
    }
    sw->cs = EMU_CS_IDLE;
    sw->conn_gen++;
    ctx->st.disc[EMU_DISC_CONNECT_FAILED]++;
    if (!ctx->stopping)
        emu_timer_arm(&ctx->loop, &sw->t_conn,
                      emu_now_ns() + backoff_delay(sw) * EMU_NS_PER_MS);
}

/* --tls: the handshake on, OpenFlow once it is done. */
static void tls_step(struct emu_sw *sw)
{
    bool want_write = false;
    int rc = emu_tls_handshake(sw, &want_write);
    if (rc > 0) {
        on_open(sw);
        return;
    }
    uint32_t ev = want_write ? EPOLLOUT : EPOLLIN;
    if (rc < 0 || (ev != sw->ev_mask &&
                   emu_loop_mod(&sw->ctx->loop, sw->fd, ev, tag(sw, EMU_TAG_CONN)))) {
        connect_failed(sw);
        return;
    }
    sw->ev_mask = ev;
}

/* TCP is up: OpenFlow at once, or TLS first. */
static void tcp_up(struct emu_sw *sw)
{
    if (!sw->ctx->tls) {
        on_open(sw);
        return;
    }
    if (emu_tls_start(sw)) {
        connect_failed(sw);
        return;
    }
    sw->cs = EMU_CS_TLS;
    tls_step(sw);
}

static void start_connect(struct emu_sw *sw)
{
    struct emu_ctx *ctx = sw->ctx;
    ctx->st.connect_attempts++;
    sw->t_conn_start = emu_now_ns();
    sw->fd = socket(ctx->opt.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (sw->fd < 0) {
        connect_failed(sw);
        return;
    }
    int one = 1;
    (void)setsockopt(sw->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (ctx->opt.has_bind &&
        bind(sw->fd, (const struct sockaddr *)&ctx->opt.bind_addr, sizeof(ctx->opt.bind_addr))) {
        connect_failed(sw);
        return;
    }
    emu_attack_on_socket(sw);
    int rc = connect(sw->fd, (const struct sockaddr *)&ctx->opt.addr, ctx->opt.addr_len);
    if (rc == 0) {
        if (emu_loop_add(&ctx->loop, sw->fd, 0, tag(sw, EMU_TAG_CONN))) {
            connect_failed(sw);
            return;
        }
        emu_hist_add(&ctx->st.connect, emu_now_ns() - sw->t_conn_start);
        ctx->st.connects++;
        tcp_up(sw);
        return;
    }
    if (errno != EINPROGRESS ||
        emu_loop_add(&ctx->loop, sw->fd, EPOLLOUT, tag(sw, EMU_TAG_CONN))) {
        connect_failed(sw);
        return;
    }
    sw->ev_mask = EPOLLOUT;
    sw->cs = EMU_CS_CONNECTING;
}

static int open_listener(struct emu_sw *sw)
{
    struct emu_ctx *ctx = sw->ctx;
    struct sockaddr_storage a = ctx->opt.addr;
    uint16_t port = (uint16_t)(ctx->opt.listen_base + sw->idx);
    if (a.ss_family == AF_INET6)
        ((struct sockaddr_in6 *)&a)->sin6_port = htons(port);
    else
        ((struct sockaddr_in *)&a)->sin_port = htons(port);
    int fd = socket(a.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    int one = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&a, ctx->opt.addr_len) || listen(fd, 4) ||
        emu_loop_add(&ctx->loop, fd, EPOLLIN, tag(sw, EMU_TAG_LISTEN))) {
        int e = -errno;
        close(fd);
        return e;
    }
    sw->lfd = fd;
    sw->cs = EMU_CS_LISTENING;
    return 0;
}

static void on_accept(struct emu_sw *sw)
{
    struct emu_ctx *ctx = sw->ctx;
    int fd = accept4(sw->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
        return;
    if (sw->fd >= 0 || ctx->stopping) {
        /* A switch serves one controller connection at a time. */
        close(fd);
        ctx->st.accepts_refused++;
        return;
    }
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (emu_loop_add(&ctx->loop, fd, 0, tag(sw, EMU_TAG_CONN))) {
        close(fd);
        return;
    }
    sw->fd = fd;
    sw->t_conn_start = emu_now_ns();
    ctx->st.accepts++;
    on_open(sw);
}

/* t_conn: first start, retry after backoff, or the reconnect-storm disconnect. */
static void conn_timer(struct emu_timer *t, uint64_t now)
{
    struct emu_sw *sw = EMU_CONTAINER_OF(t, struct emu_sw, t_conn);
    struct emu_ctx *ctx = sw->ctx;
    (void)now;
    if (ctx->stopping)
        return;
    if (sw->cs == EMU_CS_OPEN) {
        emu_conn_close(sw, EMU_DISC_RECONNECT_STORM);
        return;
    }
    if (ctx->opt.listen) {
        if (sw->lfd < 0 && open_listener(sw))
            emu_timer_arm(&ctx->loop, t, emu_now_ns() + backoff_delay(sw) * EMU_NS_PER_MS);
        return;
    }
    if (sw->cs == EMU_CS_IDLE)
        start_connect(sw);
}

void emu_conn_init(struct emu_sw *sw)
{
    sw->fd = -1;
    sw->lfd = -1;
    sw->cs = EMU_CS_IDLE;
    emu_timer_init(&sw->t_conn, conn_timer);
}

void emu_conn_schedule(struct emu_sw *sw, uint64_t at_ns)
{
    emu_timer_arm(&sw->ctx->loop, &sw->t_conn, at_ns);
}

/* ---- closing ----------------------------------------------------------------------- */

void emu_conn_close(struct emu_sw *sw, enum emu_disc reason)
{
    struct emu_ctx *ctx = sw->ctx;
    if (sw->cs != EMU_CS_OPEN)
        return;
    if (sw->fd >= 0) {
        /* Best effort: an ERROR explaining the close may still be queued. */
        if (sw->tx.len)
            (void)conn_send(sw, sw->tx.p + sw->tx.off, sw->tx.len);
        emu_tls_free(sw);
        emu_loop_del(&ctx->loop, sw->fd);
        close(sw->fd);
        sw->fd = -1;
    }
    ctx->st.disc[reason]++;
    ctx->st.open_now--;
    sw->conn_gen++;
    emu_agent_on_close(sw);
    emu_load_on_close(sw);
    sbuf_free(&sw->rx);
    sbuf_free(&sw->tx);
    sw->flags &= (uint16_t)~EMU_SWF_RX_PAUSED;
    sw->ev_mask = 0;
    sw->cs = ctx->opt.listen ? EMU_CS_LISTENING : EMU_CS_IDLE;
    emu_timer_cancel(&ctx->loop, &sw->t_conn);
    if (ctx->stopping || ctx->opt.listen)
        return;
    uint32_t delay =
        reason == EMU_DISC_RECONNECT_STORM || emu_attack_no_backoff(sw) ? 0 : backoff_delay(sw);
    emu_timer_arm(&ctx->loop, &sw->t_conn, emu_now_ns() + delay * EMU_NS_PER_MS);
}

void emu_conn_free(struct emu_sw *sw)
{
    struct emu_ctx *ctx = sw->ctx;
    emu_conn_close(sw, EMU_DISC_SHUTDOWN);
    emu_tls_free(sw);                  /* a handshake still under way */
    if (sw->fd >= 0) {
        emu_loop_del(&ctx->loop, sw->fd);
        close(sw->fd);
        sw->fd = -1;
    }
    if (sw->lfd >= 0) {
        emu_loop_del(&ctx->loop, sw->lfd);
        close(sw->lfd);
        sw->lfd = -1;
    }
    emu_timer_cancel(&ctx->loop, &sw->t_conn);
    sbuf_free(&sw->rx);
    sbuf_free(&sw->tx);
}

/* ---- receive ----------------------------------------------------------------------- */

static bool must_pause(const struct emu_sw *sw)
{
    return sw->tx.len >= high_water(sw) || sw->mp != NULL || emu_attack_pauses_rx(sw);
}

static void pause_rx(struct emu_sw *sw)
{
    if (!(sw->flags & EMU_SWF_RX_PAUSED)) {
        sw->flags |= EMU_SWF_RX_PAUSED;
        update_events(sw);
    }
}

/* Runs the complete messages in buf; returns bytes consumed or CLOSED. */
static size_t process(struct emu_sw *sw, const uint8_t *buf, size_t len)
{
    uint32_t gen = sw->conn_gen;
    size_t off = 0;
    while (len - off >= EMU_OFP_HDR_LEN) {
        if (must_pause(sw)) {
            pause_rx(sw);
            break;
        }
        struct emu_ofp_hdr h;
        if (emu_ofp_parse_hdr(buf + off, len - off, &h)) {
            emu_conn_close(sw, EMU_DISC_BAD_FRAMING);
            return CLOSED;
        }
        if (len - off < h.length)
            break;
        if (emu_agent_on_msg(sw, buf + off, h.length) || sw->conn_gen != gen)
            return CLOSED;
        off += h.length;
    }
    return off;
}

static void process_backlog(struct emu_sw *sw)
{
    if (!sw->rx.len)
        return;
    size_t n = process(sw, sw->rx.p + sw->rx.off, sw->rx.len);
    if (n != CLOSED)
        sbuf_consume(&sw->rx, n);
}

/* rx holds at most one read plus one partial message. */
static uint32_t rx_limit(void)
{
    return EMU_RX_CHUNK + EMU_OFP_MAX_MSG + 1;
}

static void keep_rx(struct emu_sw *sw, const uint8_t *p, size_t n)
{
    int rc = sbuf_append(&sw->rx, p, n, rx_limit());
    if (rc)
        emu_conn_close(sw, rc == -ENOMEM ? EMU_DISC_NO_MEMORY : EMU_DISC_TX_OVERFLOW);
}

static void do_read_once(struct emu_sw *sw)
{
    struct emu_ctx *ctx = sw->ctx;
    ssize_t n = conn_recv(sw, ctx->rxbuf, EMU_RX_CHUNK);
    if (n == 0) {
        emu_conn_close(sw, EMU_DISC_PEER_CLOSED);
        return;
    }
    if (n < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            emu_conn_close(sw, EMU_DISC_SOCKET_ERROR);
        return;
    }
    ctx->st.rx_bytes += (uint64_t)n;
    if (sw->rx.len) {
        keep_rx(sw, ctx->rxbuf, (size_t)n);
        if (sw->cs == EMU_CS_OPEN)
            process_backlog(sw);
        return;
    }
    /* Common case: nothing pending, run messages straight from the read buffer. */
    size_t used = process(sw, ctx->rxbuf, (size_t)n);
    if (used != CLOSED && used < (size_t)n)
        keep_rx(sw, ctx->rxbuf + used, (size_t)n - used);
}

/* TLS: OpenSSL may hold decrypted bytes epoll will not announce; read them
 * too while the switch is still reading. */
static void do_read(struct emu_sw *sw)
{
    uint32_t gen = sw->conn_gen;
    do
        do_read_once(sw);
    while (sw->conn_gen == gen && sw->cs == EMU_CS_OPEN && !(sw->flags & EMU_SWF_RX_PAUSED) &&
           emu_tls_pending(sw));
}

int emu_conn_feed(struct emu_sw *sw, const uint8_t *buf, size_t len)
{
    uint32_t gen = sw->conn_gen;
    if (sbuf_append(&sw->rx, buf, len, UINT32_MAX))
        return -ENOMEM;
    process_backlog(sw);
    return sw->conn_gen == gen ? 0 : -EPIPE;
}

/* ---- transmit ---------------------------------------------------------------------- */

int emu_conn_send(struct emu_sw *sw, const uint8_t *msg, size_t len)
{
    struct emu_ctx *ctx = sw->ctx;
    if (sw->cs != EMU_CS_OPEN)
        return -ENOTCONN;
    if (sw->flags & EMU_SWF_MUTED)
        return 0;                      /* --attack partial: nothing may follow */
    int rc = sbuf_append(&sw->tx, msg, len, ctx->opt.tx_limit);
    if (rc) {
        emu_conn_close(sw, rc == -ENOMEM ? EMU_DISC_NO_MEMORY : EMU_DISC_TX_OVERFLOW);
        return rc;
    }
    ctx->st.tx_msgs[len >= 2 && msg[1] < EMU_OFPT_COUNT ? msg[1] : EMU_OFPT_COUNT]++;
    if (!ctx->offline)
        mark_dirty(sw);
    return 0;
}

int emu_conn_send_wr(struct emu_sw *sw, const struct emu_wr *w)
{
    if (w->overflow)
        return -EMSGSIZE;
    return emu_conn_send(sw, w->buf, w->len);
}

/* Called when the queue shrank: resume whatever waited for room. */
static void after_drain(struct emu_sw *sw)
{
    uint32_t gen = sw->conn_gen;
    if (sw->mp && emu_conn_room_mp(sw))
        emu_mp_continue(sw);
    if (sw->conn_gen != gen)
        return;
    if ((sw->flags & EMU_SWF_RX_PAUSED) && !sw->mp && sw->tx.len < high_water(sw) / 2 &&
        !emu_attack_pauses_rx(sw)) {
        sw->flags &= (uint16_t)~EMU_SWF_RX_PAUSED;
        process_backlog(sw);
        if (sw->conn_gen != gen)
            return;
        update_events(sw);
    }
    emu_load_pump(sw);
    if (sw->conn_gen == gen)
        emu_attack_refill(sw);
}

static void flush(struct emu_sw *sw)
{
    struct emu_ctx *ctx = sw->ctx;
    bool sent = false;
    while (sw->tx.len) {
        ssize_t n = conn_send(sw, sw->tx.p + sw->tx.off, sw->tx.len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            emu_conn_close(sw, EMU_DISC_SOCKET_ERROR);
            return;
        }
        ctx->st.tx_bytes += (uint64_t)n;
        sbuf_consume(&sw->tx, (size_t)n);
        sent = true;
    }
    if (sent)
        after_drain(sw);
    update_events(sw);
}

void emu_conn_flush_all(struct emu_ctx *ctx)
{
    while (ctx->dirty_head) {
        struct emu_sw *sw = &ctx->sw[ctx->dirty_head - 1];
        ctx->dirty_head = sw->dirty_next;
        sw->dirty_next = 0;
        sw->flags &= (uint16_t)~EMU_SWF_DIRTY;
        if (sw->cs == EMU_CS_OPEN && sw->fd >= 0)
            flush(sw);
    }
}

/* ---- events ------------------------------------------------------------------------ */

void emu_conn_io(struct emu_ctx *ctx, uint32_t idx, uint32_t kind, uint32_t tag_gen,
                 uint32_t events)
{
    struct emu_sw *sw = &ctx->sw[idx];
    if (kind == EMU_TAG_LISTEN) {
        on_accept(sw);
        return;
    }
    if (tag_gen != (sw->conn_gen & EMU_TAG_GEN_MASK))
        return;
    if (sw->cs == EMU_CS_CONNECTING) {
        int err = 0;
        socklen_t elen = sizeof(err);
        if (getsockopt(sw->fd, SOL_SOCKET, SO_ERROR, &err, &elen) || err) {
            connect_failed(sw);
            return;
        }
        emu_hist_add(&ctx->st.connect, emu_now_ns() - sw->t_conn_start);
        ctx->st.connects++;
        tcp_up(sw);
        return;
    }
    if (sw->cs == EMU_CS_TLS) {
        tls_step(sw);
        return;
    }
    if (sw->cs != EMU_CS_OPEN)
        return;
    uint32_t gen = sw->conn_gen;
    if (events & EPOLLOUT)
        flush(sw);
    if (sw->conn_gen != gen)
        return;
    if (events & EPOLLERR) {
        emu_conn_close(sw, EMU_DISC_SOCKET_ERROR);
        return;
    }
    if ((events & EPOLLHUP) && (sw->flags & EMU_SWF_RX_PAUSED)) {
        /* Paused switches do not read, and a hang-up would be reported forever. */
        emu_conn_close(sw, EMU_DISC_PEER_CLOSED);
        return;
    }
    if ((events & (EPOLLIN | EPOLLHUP)) && !(sw->flags & EMU_SWF_RX_PAUSED))
        do_read(sw);
}
