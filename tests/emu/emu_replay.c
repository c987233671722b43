/* emu_replay: see emu_replay.h. */
#include "emu_replay.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "emu_ofp.h"

#define LIVE_MAX 4096               /* live requests kept for replies to take */
#define MAP_MAX 1024                /* recorded xid -> live xid */

/* A live controller message a recorded reply may take. */
struct live {
    uint8_t type;
    uint16_t mp_type;
    uint32_t xid;
    uint8_t head[64];               /* its first bytes (an ERROR quotes them) */
    uint16_t head_len;
    bool taken;
};

struct fm_body {
    uint8_t *p;
    uint16_t len;
    bool matched;
};

struct replay {
    int fd;
    uint8_t rx[1 << 17];
    size_t rx_len;
    struct live live[LIVE_MAX];
    size_t n_live;
    uint32_t map_rec[MAP_MAX], map_live[MAP_MAX];
    size_t n_map;
    struct fm_body *rec_fm, *live_fm;
    size_t n_rec_fm, n_live_fm;
    struct emu_replay_report *rep;
    char *why;
    size_t why_len;
};

static int fail(struct replay *r, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, r->why_len, fmt, ap);
    va_end(ap);
    return rc;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* A message's xid and its multipart type, read and written with the
 * emulator's codec (emu_ofp.h). */
static uint32_t xid_of(const uint8_t *m)
{
    return emu_get32(m + 4);
}

static void set_xid(uint8_t *m, uint32_t x)
{
    emu_put32(m + 4, x);
}

static uint16_t mp_type_of(const uint8_t *m, uint16_t len)
{
    return len >= 10 ? emu_get16(m + 8) : 0;
}

static int send_all(struct replay *r, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = send(r->fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return fail(r, -EPIPE, "the controller's connection failed: %s", strerror(errno));
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* A FLOW_MOD's bytes but its xid, kept for the comparison. */
static int keep_fm(struct fm_body **v, size_t *n, const uint8_t *m, uint16_t len)
{
    struct fm_body *nv = realloc(*v, (*n + 1) * sizeof(**v));
    if (!nv)
        return -ENOMEM;
    *v = nv;
    uint8_t *p = malloc(len);
    if (!p)
        return -ENOMEM;
    memcpy(p, m, len);
    set_xid(p, 0);
    (*v)[(*n)++] = (struct fm_body){p, len, false};
    return 0;
}

/* One message from the live controller: echoes answered, FLOW_MODs kept,
 * requests queued for the recorded replies. */
static int on_live(struct replay *r, const uint8_t *m, uint16_t len)
{
    if (m[1] == EMU_OFPT_ECHO_REQUEST) {
        uint8_t *a = malloc(len);
        if (!a)
            return fail(r, -ENOMEM, "out of memory");
        memcpy(a, m, len);
        a[1] = EMU_OFPT_ECHO_REPLY;
        int rc = send_all(r, a, len);
        free(a);
        r->rep->echoes_answered++;
        return rc;
    }
    if (m[1] == EMU_OFPT_FLOW_MOD && keep_fm(&r->live_fm, &r->n_live_fm, m, len) < 0)
        return fail(r, -ENOMEM, "out of memory");
    if (r->n_live == LIVE_MAX) {            /* the oldest go: they were never taken */
        memmove(r->live, r->live + LIVE_MAX / 2, (LIVE_MAX / 2) * sizeof(r->live[0]));
        r->n_live -= LIVE_MAX / 2;
    }
    struct live *l = &r->live[r->n_live++];
    *l = (struct live){.type = m[1], .mp_type = mp_type_of(m, len), .xid = xid_of(m),
                       .head_len = len < sizeof(l->head) ? len : sizeof(l->head)};
    memcpy(l->head, m, l->head_len);
    return 0;
}

/* Read what the controller sent, for at most ms: 0, or -EPIPE once it closed. */
static int pump(struct replay *r, unsigned ms)
{
    struct pollfd p = {.fd = r->fd, .events = POLLIN};
    int ready = poll(&p, 1, (int)ms);

    if (ready <= 0)
        return 0;
    ssize_t n = recv(r->fd, r->rx + r->rx_len, sizeof(r->rx) - r->rx_len, 0);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
        r->rep->peer_closed = true;
        return fail(r, -EPIPE, "the controller closed the connection");
    }
    if (n < 0)
        return 0;
    r->rx_len += (size_t)n;
    size_t at = 0;
    while (r->rx_len - at >= 8) {
        struct emu_ofp_hdr h;
        if (emu_ofp_parse_hdr(r->rx + at, r->rx_len - at, &h) < 0)
            return fail(r, -EBADMSG, "the controller sent a message of length %u",
                        emu_get16(r->rx + at + 2));
        if (r->rx_len - at < h.length)
            break;
        uint16_t len = h.length;
        int rc = on_live(r, r->rx + at, len);
        if (rc < 0)
            return rc;
        at += len;
    }
    memmove(r->rx, r->rx + at, r->rx_len - at);
    r->rx_len -= at;
    return 0;
}

/* The request type a reply answers (0: not a reply). */
static uint8_t request_of(uint8_t reply)
{
    switch (reply) {
    case EMU_OFPT_FEATURES_REPLY:
        return EMU_OFPT_FEATURES_REQUEST;
    case EMU_OFPT_GET_CONFIG_REPLY:
        return EMU_OFPT_GET_CONFIG_REQUEST;
    case EMU_OFPT_MULTIPART_REPLY:
        return EMU_OFPT_MULTIPART_REQUEST;
    case EMU_OFPT_BARRIER_REPLY:
        return EMU_OFPT_BARRIER_REQUEST;
    case EMU_OFPT_QUEUE_GET_CONFIG_REPLY:
        return EMU_OFPT_QUEUE_GET_CONFIG_REQUEST;
    case EMU_OFPT_ROLE_REPLY:
        return EMU_OFPT_ROLE_REQUEST;
    case EMU_OFPT_GET_ASYNC_REPLY:
        return EMU_OFPT_GET_ASYNC_REQUEST;
    default:
        return 0;
    }
}

/* The live request recorded reply m (to recorded request q) answers. */
static struct live *find_live(struct replay *r, const uint8_t *m, uint16_t len,
                              const struct emu_pcapr_msg *q)
{
    struct live *first = NULL;

    for (size_t i = 0; i < r->n_live; i++) {
        struct live *l = &r->live[i];
        if (l->taken || l->type != q->data[1])
            continue;
        if (q->data[1] == EMU_OFPT_MULTIPART_REQUEST && l->mp_type != mp_type_of(q->data, q->len))
            continue;
        if (m[1] != EMU_OFPT_ERROR)
            return l;
        /* An ERROR quotes its request: the live one with the same bytes. */
        size_t k = len > 12 ? len - 12 : 0;
        if (k > l->head_len)
            k = l->head_len;
        if (k > 8 && memcmp(m + 12 + 8, l->head + 8, k - 8) == 0)
            return l;
        if (!first)
            first = l;
    }
    return first;
}

static bool map_find(const struct replay *r, uint32_t rec, uint32_t *live)
{
    for (size_t i = r->n_map; i-- > 0;)
        if (r->map_rec[i] == rec) {
            *live = r->map_live[i];
            return true;
        }
    return false;
}

static void map_add(struct replay *r, uint32_t rec, uint32_t live)
{
    if (r->n_map == MAP_MAX) {
        memmove(r->map_rec, r->map_rec + MAP_MAX / 2, (MAP_MAX / 2) * sizeof(uint32_t));
        memmove(r->map_live, r->map_live + MAP_MAX / 2, (MAP_MAX / 2) * sizeof(uint32_t));
        r->n_map -= MAP_MAX / 2;
    }
    r->map_rec[r->n_map] = rec;
    r->map_live[r->n_map++] = live;
}

/* Recorded switch message i (s->msg[i]) sent, a reply with its live xid. */
static int play(struct replay *r, const struct emu_pcapr_session *s, size_t i,
                const struct emu_replay_opts *o)
{
    const struct emu_pcapr_msg *m = &s->msg[i];
    uint8_t type = m->data[1];

    if (type == EMU_OFPT_ECHO_REPLY)
        return 0;                           /* echoes are answered live */
    bool answers = request_of(type) || type == EMU_OFPT_ERROR;
    const struct emu_pcapr_msg *q = NULL;
    for (size_t j = i; answers && j-- > 0;)
        if (s->msg[j].dir == EMU_PCAPR_FROM_CONTROLLER && xid_of(s->msg[j].data) == xid_of(m->data)) {
            q = &s->msg[j];
            break;
        }
    if (type != EMU_OFPT_ERROR && q && q->data[1] != request_of(type))
        q = NULL;                           /* the xid was another message's */
    if (!q) {
        r->rep->sent++;
        return send_all(r, m->data, m->len);
    }
    uint32_t live_xid;
    if (!map_find(r, xid_of(q->data), &live_xid)) {
        uint64_t until = now_ms() + o->wait_ms;
        struct live *l;
        while (!(l = find_live(r, m->data, m->len, q))) {
            uint64_t t = now_ms();
            if (t >= until) {
                r->rep->replies_skipped++;
                return 0;
            }
            int rc = pump(r, (unsigned)(until - t));
            if (rc < 0)
                return rc;
        }
        l->taken = true;
        live_xid = l->xid;
        map_add(r, xid_of(q->data), live_xid);
    }
    uint8_t *c = malloc(m->len);
    if (!c)
        return fail(r, -ENOMEM, "out of memory");
    memcpy(c, m->data, m->len);
    set_xid(c, live_xid);
    if (type == EMU_OFPT_ERROR && m->len >= 20)
        set_xid(c + 12, live_xid);          /* the request it quotes */
    int rc = send_all(r, c, m->len);
    free(c);
    r->rep->sent++;
    r->rep->replies_matched++;
    return rc;
}

static int connect_to(struct replay *r, const struct emu_replay_opts *o)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(o->port)};

    if (inet_pton(AF_INET, o->host, &a.sin_addr) != 1)
        return fail(r, -EINVAL, "'%s' is not an IPv4 address", o->host);
    r->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (r->fd < 0)
        return fail(r, -errno, "socket: %s", strerror(errno));
    int one = 1;
    setsockopt(r->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (connect(r->fd, (struct sockaddr *)&a, sizeof(a)) < 0)
        return fail(r, -errno, "cannot connect to %s:%u: %s", o->host, o->port, strerror(errno));
    return 0;
}

/* Barriers the record did not answer: answered, so the controller's
 * flows settle. */
static int answer_barriers(struct replay *r)
{
    for (size_t i = 0; i < r->n_live; i++) {
        struct live *l = &r->live[i];
        if (l->taken || l->type != EMU_OFPT_BARRIER_REQUEST)
            continue;
        uint8_t b[8] = {0x04, EMU_OFPT_BARRIER_REPLY, 0, 8};
        set_xid(b, l->xid);
        l->taken = true;
        r->rep->barriers_answered++;
        int rc = send_all(r, b, sizeof(b));
        if (rc < 0)
            return rc;
    }
    return 0;
}

static void compare_flow_mods(struct replay *r)
{
    for (size_t i = 0; i < r->n_live_fm; i++)
        for (size_t j = 0; j < r->n_rec_fm; j++) {
            struct fm_body *a = &r->live_fm[i], *b = &r->rec_fm[j];
            if (!b->matched && a->len == b->len && memcmp(a->p, b->p, a->len) == 0) {
                b->matched = true;
                r->rep->live_flow_mods_recorded++;
                break;
            }
        }
    r->rep->rec_flow_mods = (unsigned)r->n_rec_fm;
    r->rep->live_flow_mods = (unsigned)r->n_live_fm;
}

int emu_replay_run(const struct emu_pcapr_session *s, const struct emu_replay_opts *o,
                   struct emu_replay_report *rep, char *why, size_t why_len)
{
    struct replay *r = calloc(1, sizeof(*r));
    int rc = 0;

    if (!r)
        return -ENOMEM;
    memset(rep, 0, sizeof(*rep));
    r->fd = -1;
    r->rep = rep;
    r->why = why;
    r->why_len = why_len;
    size_t first = 0;
    while (first < s->n && s->msg[first].dir != EMU_PCAPR_FROM_SWITCH)
        first++;
    if (first == s->n || s->msg[first].data[1] != EMU_OFPT_HELLO)
        rc = fail(r, -EINVAL, "the capture does not begin with the switch's HELLO (its start "
                  "was pushed out of the record?): it cannot be played from the start");
    for (size_t i = 0; i < s->n && rc == 0; i++)
        if (s->msg[i].dir == EMU_PCAPR_FROM_CONTROLLER && s->msg[i].data[1] == EMU_OFPT_FLOW_MOD &&
            keep_fm(&r->rec_fm, &r->n_rec_fm, s->msg[i].data, s->msg[i].len) < 0)
            rc = fail(r, -ENOMEM, "out of memory");
    if (rc == 0)
        rc = connect_to(r, o);
    uint64_t t0_live = now_ms(), t0_rec = s->n ? s->msg[first].t_ns : 0;
    for (size_t i = first; i < s->n && rc == 0; i++) {
        if (s->msg[i].dir != EMU_PCAPR_FROM_SWITCH)
            continue;
        if (o->speed > 0) {
            uint64_t due = t0_live + (uint64_t)((double)(s->msg[i].t_ns - t0_rec) / 1e6 / o->speed);
            for (uint64_t t = now_ms(); t < due && rc == 0; t = now_ms())
                rc = pump(r, (unsigned)(due - t));
        }
        rc = rc ? rc : pump(r, 0);
        rc = rc ? rc : play(r, s, i, o);
    }
    for (uint64_t until = now_ms() + o->hold_ms, t = now_ms(); t < until && rc == 0; t = now_ms()) {
        rc = pump(r, (unsigned)(until - t) < 100 ? (unsigned)(until - t) : 100);
        rc = rc ? rc : answer_barriers(r);
    }
    compare_flow_mods(r);
    if (r->fd >= 0)
        close(r->fd);
    for (size_t i = 0; i < r->n_rec_fm; i++)
        free(r->rec_fm[i].p);
    for (size_t i = 0; i < r->n_live_fm; i++)
        free(r->live_fm[i].p);
    free(r->rec_fm);
    free(r->live_fm);
    free(r);
    return rc;
}
