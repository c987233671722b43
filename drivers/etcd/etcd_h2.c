/*
 * etcd_h2: unary gRPC calls on a kept HTTP/2 connection (etcd_h2.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nghttp2/nghttp2.h>

#include "etcd_codec.h"
#include "etcd_h2.h"
#include "ofcd_clock.h"

#define H2_HOST_MAX 256u
#define H2_PORT_MAX 16u
/* Answers up to ETCD_TEXT_MAX: a window that lets a large range answer
 * flow without a round trip per 64 KiB. */
#define H2_WINDOW (16 * 1024 * 1024)
/* Stream ids run out at 2^31: a connection that has used half goes. */
#define H2_STREAM_ID_RENEW (1 << 30)

struct etcd_h2 {
    int fd;                             /* -1: no connection */
    nghttp2_session *s;
    char host[H2_HOST_MAX], port[H2_PORT_MAX];
    bool goaway;                        /* etcd is closing it */
    int32_t goaway_last;                /* the last stream it will answer */
    bool io_failed;                     /* a send failed: the connection is gone */

    /* the call in progress */
    const struct etcd_h2_call *call;
    int32_t sid;
    size_t body_off;
    bool closed;                        /* our stream ended */
    uint32_t close_code;
    int status;
    bool refused_data;
};

static void fmt(char *err, const char *f, ...)
{
    va_list ap;

    va_start(ap, f);
    vsnprintf(err, ETCD_ERR_MAX, f, ap);
    va_end(ap);
}

int etcd_h2_endpoint(const char *url, char *host, size_t hcap, char *port, size_t pcap)
{
    const char *p, *end;

    if (strncmp(url, "http://", 7))
        return -EINVAL;
    p = url + 7;
    if (*p == '[') {
        end = strchr(p, ']');
        if (!end)
            return -EINVAL;
        p++;
    } else {
        end = p + strcspn(p, ":/");
    }
    size_t hl = (size_t)(end - p);
    if (!hl || hl >= hcap)
        return -EINVAL;
    memcpy(host, p, hl);
    host[hl] = 0;
    p = end + (*end == ']');
    if (!*p) {
        snprintf(port, pcap, "80");
        return 0;
    }
    if (*p != ':' || !p[1] || strspn(p + 1, "0123456789") != strlen(p + 1) ||
        strlen(p + 1) >= pcap)
        return -EINVAL;
    snprintf(port, pcap, "%s", p + 1);
    return 0;
}

/* ---- nghttp2's callbacks -------------------------------------------------- */

static ssize_t on_send(nghttp2_session *s, const uint8_t *data, size_t len, int flags, void *ud)
{
    struct etcd_h2 *h = ud;
    ssize_t n = send(h->fd, data, len, MSG_NOSIGNAL);

    (void)s;
    (void)flags;
    if (n >= 0)
        return n;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return NGHTTP2_ERR_WOULDBLOCK;
    h->io_failed = true;
    return NGHTTP2_ERR_CALLBACK_FAILURE;
}

static int on_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name,
                     size_t nlen, const uint8_t *value, size_t vlen, uint8_t flags, void *ud)
{
    struct etcd_h2 *h = ud;

    (void)s;
    (void)flags;
    if (!h->call || f->hd.stream_id != h->sid)
        return 0;
    if (nlen == 7 && !memcmp(name, ":status", 7)) {
        int st = 0;
        for (size_t i = 0; i < vlen && i < 4; i++)
            st = st * 10 + (value[i] >= '0' && value[i] <= '9' ? value[i] - '0' : 0);
        h->status = st;
    } else if (h->call->on_header) {
        h->call->on_header((const char *)name, nlen, (const char *)value, vlen, h->call->arg);
    }
    return 0;
}

static int on_data(nghttp2_session *s, uint8_t flags, int32_t sid, const uint8_t *data,
                   size_t len, void *ud)
{
    struct etcd_h2 *h = ud;

    (void)flags;
    if (!h->call || sid != h->sid || h->refused_data)
        return 0;
    if (h->call->on_data && !h->call->on_data(data, len, h->call->arg)) {
        h->refused_data = true;
        nghttp2_submit_rst_stream(s, NGHTTP2_FLAG_NONE, sid, NGHTTP2_CANCEL);
    }
    return 0;
}

static int on_close(nghttp2_session *s, int32_t sid, uint32_t code, void *ud)
{
    struct etcd_h2 *h = ud;

    (void)s;
    if (sid == h->sid) {
        h->closed = true;
        h->close_code = code;
    }
    return 0;
}

static int on_frame(nghttp2_session *s, const nghttp2_frame *f, void *ud)
{
    struct etcd_h2 *h = ud;

    (void)s;
    if (f->hd.type == NGHTTP2_GOAWAY) {
        h->goaway = true;
        h->goaway_last = f->goaway.last_stream_id;
    }
    return 0;
}

static ssize_t body_read(nghttp2_session *s, int32_t sid, uint8_t *buf, size_t len,
                         uint32_t *flags, nghttp2_data_source *src, void *ud)
{
    struct etcd_h2 *h = ud;
    size_t left = h->call->len - h->body_off;
    size_t n = left < len ? left : len;

    (void)s;
    (void)sid;
    (void)src;
    memcpy(buf, (const uint8_t *)h->call->body + h->body_off, n);
    h->body_off += n;
    if (h->body_off == h->call->len)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

/* ---- the connection ------------------------------------------------------------ */

static void h2_drop(struct etcd_h2 *h)
{
    if (h->s)
        nghttp2_session_del(h->s);
    h->s = NULL;
    if (h->fd >= 0) {
        /* A reset, not a FIN: no TIME_WAIT left behind by reconnections. */
        struct linger l = {.l_onoff = 1, .l_linger = 0};
        setsockopt(h->fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
        close(h->fd);
    }
    h->fd = -1;
    h->goaway = false;
    h->io_failed = false;
}

struct etcd_h2 *etcd_h2_new(void)
{
    struct etcd_h2 *h = calloc(1, sizeof(*h));

    if (h)
        h->fd = -1;
    return h;
}

void etcd_h2_free(struct etcd_h2 *h)
{
    if (!h)
        return;
    h2_drop(h);
    free(h);
}

static long left_ms(uint64_t deadline)
{
    uint64_t now = ofcd_clock_mono_ms();
    return now < deadline ? (long)(deadline - now) : 0;
}

/* A non-blocking TCP connection to one address within ms: the fd, or
 * -errno. */
static int connect_one(const struct addrinfo *a, long ms)
{
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    a->ai_protocol);
    int one = 1, e = 0;
    socklen_t el = sizeof(e);

    if (fd < 0)
        return -errno;
    if (connect(fd, a->ai_addr, a->ai_addrlen) < 0) {
        if (errno != EINPROGRESS) {
            e = errno;
            close(fd);
            return -e;
        }
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int n = poll(&p, 1, (int)ms);
        if (n <= 0) {
            close(fd);
            return n == 0 ? -ETIMEDOUT : -errno;
        }
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0 || e) {
            close(fd);
            return e ? -e : -EIO;
        }
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

static int h2_connect(struct etcd_h2 *h, const struct etcd_h2_call *c, char *err)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
    long ms = left_ms(c->deadline_ms);
    int rc;

    if ((long)c->connect_ms < ms)
        ms = c->connect_ms;
    if ((rc = getaddrinfo(c->host, c->port, &hints, &ai)) != 0) {
        fmt(err, "%s: %s", c->host, gai_strerror(rc));
        return -ECONNREFUSED;
    }
    rc = -ECONNREFUSED;
    for (const struct addrinfo *a = ai; a && h->fd < 0; a = a->ai_next) {
        rc = connect_one(a, ms);
        if (rc >= 0)
            h->fd = rc;
    }
    freeaddrinfo(ai);
    if (h->fd < 0) {
        fmt(err, "connect: %s", strerror(-rc));
        return rc == -ETIMEDOUT ? -ETIMEDOUT : -ECONNREFUSED;
    }

    nghttp2_session_callbacks *cb;
    if (nghttp2_session_callbacks_new(&cb)) {
        h2_drop(h);
        return -ENOMEM;
    }
    nghttp2_session_callbacks_set_send_callback(cb, on_send);
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_close);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame);
    rc = nghttp2_session_client_new(&h->s, cb, h);
    nghttp2_session_callbacks_del(cb);
    if (rc) {
        h->s = NULL;
        h2_drop(h);
        return -ENOMEM;
    }
    nghttp2_settings_entry set[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
                                    {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, H2_WINDOW}};
    if (nghttp2_submit_settings(h->s, NGHTTP2_FLAG_NONE, set, 2) ||
        nghttp2_session_set_local_window_size(h->s, NGHTTP2_FLAG_NONE, 0, H2_WINDOW)) {
        h2_drop(h);
        return -ENOMEM;
    }
    snprintf(h->host, sizeof(h->host), "%s", c->host);
    snprintf(h->port, sizeof(h->port), "%s", c->port);
    return 0;
}

/* Reads what is there without waiting: false when the peer closed, broke
 * the connection or the protocol. */
static bool h2_read_ready(struct etcd_h2 *h, bool *eof)
{
    uint8_t buf[16384];

    for (;;) {
        ssize_t n = recv(h->fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (n > 0) {
            if (nghttp2_session_mem_recv(h->s, buf, (size_t)n) < 0)
                return false;
            continue;
        }
        if (n == 0) {
            *eof = true;
            return false;
        }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    }
}

/* Whether the kept connection can take a call: what the peer sent while
 * it was idle read (a PING answered, a GOAWAY or a close seen). */
static bool h2_usable(struct etcd_h2 *h, const struct etcd_h2_call *c)
{
    bool eof = false;

    if (h->fd < 0 || strcmp(h->host, c->host) || strcmp(h->port, c->port))
        return false;
    if (!h2_read_ready(h, &eof) || nghttp2_session_send(h->s) || h->io_failed)
        return false;
    return !h->goaway && nghttp2_session_get_next_stream_id(h->s) < H2_STREAM_ID_RENEW;
}

/* Whether etcd says it never began the stream (safe to send elsewhere). */
static bool h2_not_processed(const struct etcd_h2 *h)
{
    return (h->closed && h->close_code == NGHTTP2_REFUSED_STREAM) ||
           (h->goaway && h->goaway_last < h->sid);
}

/* The stream submitted, until it ends or the deadline. */
static int h2_run(struct etcd_h2 *h, bool *sent, char *err)
{
    uint8_t buf[16384];

    while (!h->closed) {
        if (nghttp2_session_send(h->s) || h->io_failed) {
            fmt(err, "connection lost while sending");
            return h2_not_processed(h) ? -ECONNREFUSED : -EIO;
        }
        *sent = true;
        if (h->closed)
            break;
        long ms = left_ms(h->call->deadline_ms);
        if (!ms) {
            fmt(err, "no answer in time");
            return -ETIMEDOUT;
        }
        struct pollfd p = {.fd = h->fd,
                           .events = POLLIN | (nghttp2_session_want_write(h->s) ? POLLOUT : 0)};
        int n = poll(&p, 1, (int)ms);
        if (n < 0 && errno != EINTR) {
            fmt(err, "poll: %s", strerror(errno));
            return -EIO;
        }
        if (n <= 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        ssize_t r = recv(h->fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            fmt(err, "connection closed by etcd%s", r < 0 ? " (reset)" : "");
            return h2_not_processed(h) ? -ECONNREFUSED : -EIO;
        }
        if (r > 0 && nghttp2_session_mem_recv(h->s, buf, (size_t)r) < 0) {
            fmt(err, "HTTP/2 protocol error from etcd");
            return -EIO;
        }
    }
    /* The answer is read: acknowledge what needs it (settings, window). */
    nghttp2_session_send(h->s);
    if (h->refused_data) {
        fmt(err, "answer over its bound");
        return -EMSGSIZE;
    }
    if (h->close_code != NGHTTP2_NO_ERROR) {
        fmt(err, "stream reset by etcd (HTTP/2 error %u)", h->close_code);
        return h2_not_processed(h) ? -ECONNREFUSED : -EIO;
    }
    return 0;
}

/* One try on the connection there is (a new one when none). */
static int h2_try(struct etcd_h2 *h, const struct etcd_h2_call *c, int *status, bool *sent,
                  bool *connected, char *err)
{
    char authority[H2_HOST_MAX + H2_PORT_MAX + 4];
    int rc;

    if (!h2_usable(h, c)) {
        h2_drop(h);
        if ((rc = h2_connect(h, c, err)) < 0)
            return rc;
        *connected = true;
    }
    snprintf(authority, sizeof(authority), strchr(c->host, ':') ? "[%s]:%s" : "%s:%s",
             c->host, c->port);
#define NV(n, v) {(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v), \
                  NGHTTP2_NV_FLAG_NO_COPY_NAME}
    nghttp2_nv hdr[] = {NV(":method", "POST"), NV(":scheme", "http"), NV(":path", c->path),
                        NV(":authority", authority), NV("content-type", "application/grpc"),
                        NV("te", "trailers"), NV("token", c->token ? c->token : "")};
#undef NV
    nghttp2_data_provider body = {.read_callback = body_read};
    h->call = c;
    h->body_off = 0;
    h->closed = h->refused_data = false;
    h->close_code = 0;
    h->status = 0;
    h->sid = nghttp2_submit_request(h->s, NULL, hdr, c->token ? 7 : 6, &body, NULL);
    if (h->sid < 0) {
        fmt(err, "request not submitted: %s", nghttp2_strerror(h->sid));
        rc = h->sid == NGHTTP2_ERR_NOMEM ? -ENOMEM : -ECONNREFUSED;
    } else {
        rc = h2_run(h, sent, err);
        /* A send that failed before a whole request left: etcd cannot have
         * run a call it never read to its end. */
        if (!*sent && rc == -EIO)
            rc = -ECONNREFUSED;
    }
    *status = h->status;
    h->call = NULL;
    /* Kept only after a whole answer on a connection etcd keeps too. */
    if (rc < 0 || h->goaway)
        h2_drop(h);
    return rc;
}

int etcd_h2_call(struct etcd_h2 *h, const struct etcd_h2_call *c, int *status, bool *sent,
                 bool *connected, char *err)
{
    *status = 0;
    *sent = *connected = false;
    int rc = h2_try(h, c, status, sent, connected, err);
    /* A kept connection that broke before the request left (etcd closed it
     * just as it was reused): once more on a new one. */
    if (rc == -ECONNREFUSED && !*connected && !*sent)
        rc = h2_try(h, c, status, sent, connected, err);
    return rc;
}
