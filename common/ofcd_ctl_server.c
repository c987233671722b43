/* ofcd_ctl_server: see ofcd_ctl_server.h. */
#include "ofcd_ctl_server.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "ofcd_ctl_wire.h"
#include "ofcd_log.h"

OFCD_COUNTER_GROUP(ofcd_ctl_counters, "ctl", struct ofcd_ctl_stats, OFCD_CTL_COUNTERS,
                   OFCD_CTL_GAUGES);

#define ACCEPT_PAUSE_MS 100             /* after accept(2) fails for want of fds */
#define ACCEPTS_PER_RUN 32              /* a connect flood cannot hold the thread */

enum client_state {
    CL_FREE = 0,
    CL_READ,                            /* the request is arriving */
    CL_LATER,                           /* a deferred answer is awaited */
    CL_WRITE,                           /* the answer is leaving */
};

struct client {
    int fd;
    enum client_state st;
    uint64_t deadline_ms;
    size_t req_len;
    char req[OFCD_CTL_REQUEST_MAX + 1];
    struct ofcd_ctl_out out;
    char head[OFCD_CTL_HEAD_MAX];
    size_t head_len;
    size_t sent;                        /* of head, then text */
};

struct ofcd_ctl_server {
    int lfd;
    bool listen_paused;
    uint64_t listen_paused_until_ms;
    struct sockaddr_un addr;
    struct ofcd_ctl *cmds;
    struct client cl[OFCD_CTL_CLIENTS_MAX];
    int slot_of[OFCD_CTL_POLLFDS];      /* fds[i] of the last ofcd_ctl_server_fds: -1 listener */
    /* Written by the serving thread only, read by any (relaxed atomics). */
    struct ofcd_ctl_stats st;
};

static void bump(uint64_t *v, int64_t by)
{
    __atomic_store_n(v, *v + (uint64_t)by, __ATOMIC_RELAXED);
}

/* Someone accepts connections at a: a live server, whose socket must not
 * be taken (a dead one's refuses the connection). */
static bool live(const struct sockaddr_un *a)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool up = fd >= 0 && connect(fd, (const struct sockaddr *)a, sizeof(*a)) == 0;

    if (fd >= 0)
        close(fd);
    return up;
}

struct ofcd_ctl_server *ofcd_ctl_server_open(const char *path, struct ofcd_ctl *cmds,
                                             char *err, size_t errlen)
{
    return ofcd_ctl_server_open_shared(path, (gid_t)-1, cmds, err, errlen);
}

struct ofcd_ctl_server *ofcd_ctl_server_open_shared(const char *path, gid_t group,
                                                    struct ofcd_ctl *cmds, char *err,
                                                    size_t errlen)
{
    struct ofcd_ctl_server *s = calloc(1, sizeof(*s));
    struct stat st;

    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->cmds = cmds;
    s->lfd = -1;
    s->addr.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(s->addr.sun_path)) {
        snprintf(err, errlen, "%s: a unix socket's path is %zu bytes at most", path,
                 sizeof(s->addr.sun_path) - 1);
        goto fail;
    }
    strcpy(s->addr.sun_path, path);
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            snprintf(err, errlen, "%s exists and is not a socket: not replaced", path);
            goto fail;
        }
        if (live(&s->addr)) {
            snprintf(err, errlen, "%s: another server listens there: not replaced", path);
            goto fail;
        }
        unlink(path);                   /* a dead server's */
    }
    s->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    /* Owner only from its creation, whatever the umask: Linux makes the
     * socket's file with the mode of its unbound inode (less the umask),
     * so nobody else ever finds it open, not even before it listens. */
    if (s->lfd < 0 || fchmod(s->lfd, 0600) < 0 ||
        bind(s->lfd, (struct sockaddr *)&s->addr, sizeof(s->addr)) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        goto fail;
    }
    /* The group's members only once the group is the right one: until
     * listen() nobody can connect anyway. */
    if ((group != (gid_t)-1 && chown(path, (uid_t)-1, group) < 0) ||
        chmod(path, group != (gid_t)-1 ? 0660 : 0600) < 0 ||
        listen(s->lfd, OFCD_CTL_CLIENTS_MAX) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        unlink(path);
        goto fail;
    }
    for (unsigned i = 0; i < OFCD_CTL_CLIENTS_MAX; i++)
        s->cl[i].fd = -1;
    return s;
fail:
    if (s->lfd >= 0)
        close(s->lfd);
    free(s);
    return NULL;
}

static void drop(struct ofcd_ctl_server *s, struct client *c)
{
    if (c->st == CL_LATER && c->out.later.cancel)
        c->out.later.cancel(c->out.later.arg);
    close(c->fd);
    ofcd_ctl_out_free(&c->out);
    c->fd = -1;
    c->st = CL_FREE;
    bump(&s->st.clients, -1);
}

void ofcd_ctl_server_close(struct ofcd_ctl_server *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < OFCD_CTL_CLIENTS_MAX; i++)
        if (s->cl[i].st != CL_FREE)
            drop(s, &s->cl[i]);
    close(s->lfd);
    unlink(s->addr.sun_path);
    free(s);
}

unsigned ofcd_ctl_server_fds(struct ofcd_ctl_server *s, struct pollfd *fds)
{
    unsigned n = 0;

    if (!s->listen_paused) {
        fds[n] = (struct pollfd){.fd = s->lfd, .events = POLLIN};
        s->slot_of[n++] = -1;
    }
    for (unsigned i = 0; i < OFCD_CTL_CLIENTS_MAX; i++) {
        const struct client *c = &s->cl[i];
        if (c->st != CL_READ && c->st != CL_WRITE)
            continue;
        fds[n] = (struct pollfd){.fd = c->fd, .events = c->st == CL_READ ? POLLIN : POLLOUT};
        s->slot_of[n++] = (int)i;
    }
    return n;
}

/* Send what the socket takes; the client is closed once all is out. */
static void client_write(struct ofcd_ctl_server *s, struct client *c)
{
    for (;;) {
        size_t total = c->head_len + c->out.len;
        if (c->sent == total) {
            shutdown(c->fd, SHUT_WR);
            drop(s, c);
            return;
        }
        struct iovec iov[2];
        int k = 0;
        if (c->sent < c->head_len)
            iov[k++] = (struct iovec){c->head + c->sent, c->head_len - c->sent};
        size_t text_off = c->sent > c->head_len ? c->sent - c->head_len : 0;
        if (c->out.len > text_off)
            iov[k++] = (struct iovec){c->out.buf + text_off, c->out.len - text_off};
        ssize_t w = writev(c->fd, iov, k);
        if (w < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                drop(s, c);             /* the client is gone */
            return;
        }
        c->sent += (size_t)w;
    }
}

/* The answer is whole (rc: 0 or a negative errno): send it. */
static void complete(struct ofcd_ctl_server *s, struct client *c, int rc, uint64_t now_ms)
{
    ofcd_ctl_out_finish(&c->out);
    c->head_len = (size_t)ofcd_ctl_wire_head(c->head, sizeof(c->head), rc >= 0, c->out.len);
    c->sent = 0;
    c->st = CL_WRITE;
    c->deadline_ms = now_ms + OFCD_CTL_CLIENT_TIMEOUT_MS;
    bump(&s->st.requests, 1);
    if (rc < 0)
        bump(&s->st.errors, 1);
    if (c->out.cut)
        bump(&s->st.replies_cut, 1);
    client_write(s, c);
}

static void answer(struct ofcd_ctl_server *s, struct client *c, uint64_t now_ms)
{
    char *words[OFCD_CTL_ARGS_MAX + 1];
    const char *why = NULL;

    c->req[c->req_len] = '\0';
    char *nl = strchr(c->req, '\n');
    if (nl)
        *nl = '\0';
    int n = ofcd_ctl_wire_split(c->req, words, OFCD_CTL_ARGS_MAX + 1, &why);
    int rc;
    if (n < 0) {
        ofcd_ctl_printf(&c->out, "%s\n", why);
        rc = n;
    } else {
        rc = ofcd_ctl_execute(s->cmds, n, words, &c->out);
        LOG_DEBUG("control", "ofcdctl %s: %s", words[0],
                  rc == OFCD_CTL_LATER ? "answer deferred" : rc < 0 ? "error" : "ok");
    }
    if (rc == OFCD_CTL_LATER && c->out.later.poll) {
        c->st = CL_LATER;
        return;
    }
    complete(s, c, rc == OFCD_CTL_LATER ? -EINVAL : rc, now_ms);
}

static void client_read(struct ofcd_ctl_server *s, struct client *c, uint64_t now_ms)
{
    for (;;) {
        if (c->req_len == OFCD_CTL_REQUEST_MAX) {
            bump(&s->st.too_long, 1);
            ofcd_ctl_printf(&c->out, "the request is longer than %u bytes\n",
                            OFCD_CTL_REQUEST_MAX);
            complete(s, c, -E2BIG, now_ms);
            return;
        }
        ssize_t r = read(c->fd, c->req + c->req_len, OFCD_CTL_REQUEST_MAX - c->req_len);
        if (r < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                drop(s, c);
            return;
        }
        if (r == 0) {
            /* End of stream ends the request too; nothing at all: gone. */
            if (c->req_len)
                answer(s, c, now_ms);
            else
                drop(s, c);
            return;
        }
        bool whole = memchr(c->req + c->req_len, '\n', (size_t)r) != NULL;
        c->req_len += (size_t)r;
        if (whole) {
            answer(s, c, now_ms);
            return;
        }
    }
}

/* One more client than the bound: told so at once (a fresh socket's
 * buffer takes the line), never queued. */
static void refuse_busy(struct ofcd_ctl_server *s, int fd)
{
    char msg[128], head[OFCD_CTL_HEAD_MAX];
    int n = snprintf(msg, sizeof(msg), "busy: %u clients at once already; try again\n",
                     OFCD_CTL_CLIENTS_MAX);
    int h = ofcd_ctl_wire_head(head, sizeof(head), false, (size_t)n);
    struct iovec iov[2] = {{head, (size_t)h}, {msg, (size_t)n}};

    (void)!writev(fd, iov, 2);
    close(fd);
    bump(&s->st.refused_busy, 1);
}

static void accept_ready(struct ofcd_ctl_server *s, uint64_t now_ms)
{
    for (unsigned k = 0; k < ACCEPTS_PER_RUN; k++) {
        int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                /* The connection stays queued and the listener readable:
                 * stop polling it a while rather than spin. */
                bump(&s->st.accept_failed, 1);
                s->listen_paused = true;
                s->listen_paused_until_ms = now_ms + ACCEPT_PAUSE_MS;
            }
            return;
        }
        struct client *c = NULL;
        for (unsigned i = 0; i < OFCD_CTL_CLIENTS_MAX && !c; i++)
            if (s->cl[i].st == CL_FREE)
                c = &s->cl[i];
        if (!c) {
            refuse_busy(s, fd);
            continue;
        }
        c->fd = fd;
        c->st = CL_READ;
        c->req_len = 0;
        c->deadline_ms = now_ms + OFCD_CTL_CLIENT_TIMEOUT_MS;
        ofcd_ctl_out_init(&c->out, OFCD_CTL_REPLY_MAX);
        bump(&s->st.clients, 1);
    }
}

void ofcd_ctl_server_run(struct ofcd_ctl_server *s, const struct pollfd *fds, unsigned n,
                         uint64_t now_ms)
{
    for (unsigned i = 0; i < n; i++) {
        if (!fds[i].revents)
            continue;
        if (s->slot_of[i] < 0) {
            accept_ready(s, now_ms);
            continue;
        }
        struct client *c = &s->cl[s->slot_of[i]];
        if (c->st == CL_READ)
            client_read(s, c, now_ms);
        else if (c->st == CL_WRITE)
            client_write(s, c);
    }
    if (s->listen_paused && now_ms >= s->listen_paused_until_ms)
        s->listen_paused = false;
    for (unsigned i = 0; i < OFCD_CTL_CLIENTS_MAX; i++) {
        struct client *c = &s->cl[i];
        if (c->st == CL_LATER) {
            int rc = c->out.later.poll(c->out.later.arg, &c->out, now_ms);
            if (rc != OFCD_CTL_LATER) {
                c->out.later = (struct ofcd_ctl_later){0};
                complete(s, c, rc, now_ms);
            }
        }
        if (c->st != CL_FREE && now_ms >= c->deadline_ms) {
            bump(&s->st.timed_out, 1);
            drop(s, c);
        }
    }
}

void ofcd_ctl_server_get_stats(const struct ofcd_ctl_server *s, struct ofcd_ctl_stats *out)
{
#define READ_FIELD(name, help) out->name = __atomic_load_n(&s->st.name, __ATOMIC_RELAXED);
    OFCD_CTL_COUNTERS(READ_FIELD)
    OFCD_CTL_GAUGES(READ_FIELD)
#undef READ_FIELD
}
