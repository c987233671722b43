/* rest_server: the daemon, the route table and the reply plumbing. */
#include "rest.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <microhttpd.h>

#include "ofcd_clock.h"
#include "ofcd_inet.h"
#include "ofcd_log.h"
#include "json_u64.h"
#include "rest_priv.h"
#include "rest_events.h"
#include "rest_tls.h"

struct rest_route {
    const char *path;        /* exact path, or a prefix when it ends with '/' */
    const char *method;
    void (*handler)(struct rest_req *q, struct rest_reply *r);
};

#define KYTOS_FM "/api/kytos/flow_manager/v2"
#define REST_LOGIN_PATH "/api/kytos/core/auth/login"
#define REST_USERS_PATH "/api/kytos/core/auth/users"

/* One table: a new endpoint is a new row (no strcmp chains). */
static const struct rest_route routes[] = {
    {"/api/v1/switches", "GET", rest_get_switches},
    {"/api/v1/switches/", "GET", rest_get_switch},
    {"/api/v1/switches/", "POST", rest_switch_write},     /* {dpid}/groups, {dpid}/meters */
    {"/api/v1/switches/", "DELETE", rest_switch_write},
    {"/api/v1/health", "GET", rest_get_health},
    {"/api/v1/events", "GET", rest_get_events},
    {"/metrics", "GET", rest_get_metrics},
    {"/api/v1/history", "GET", rest_get_history},
    {KYTOS_FM "/flows", "GET", rest_flows_get},
    {KYTOS_FM "/flows", "POST", rest_flows_post},
    {KYTOS_FM "/flows", "DELETE", rest_flows_delete},
    {KYTOS_FM "/flows/", "GET", rest_flows_get},
    {KYTOS_FM "/flows/", "POST", rest_flows_post},
    {KYTOS_FM "/flows/", "DELETE", rest_flows_delete},
    /* Kytos' aliases: the seed's stress path, and the deprecated POST delete. */
    {KYTOS_FM "/flow_mods", "POST", rest_flows_post},
    {KYTOS_FM "/flow_mods/", "POST", rest_flows_post},
    {KYTOS_FM "/delete", "POST", rest_flows_delete},
    {KYTOS_FM "/delete/", "POST", rest_flows_delete},
    {KYTOS_FM "/flows_by_switch", "POST", rest_flows_by_switch_post},
    {KYTOS_FM "/flows_by_switch", "DELETE", rest_flows_by_switch_delete},
    {KYTOS_FM "/stored_flows", "GET", rest_stored_flows_get},
    {REST_LOGIN_PATH, "GET", rest_auth_login},
    {REST_USERS_PATH, "GET", rest_users_list},
    {REST_USERS_PATH, "POST", rest_users_create},
    {REST_USERS_PATH "/", "GET", rest_users_get},
    {REST_USERS_PATH "/", "PATCH", rest_users_patch},
    {REST_USERS_PATH "/", "DELETE", rest_users_delete},
};

/* One request while MHD delivers it. */
struct rest_conn_state {
    bool refused;                   /* answered from its headers (headers_check) */
    bool unauthenticated;           /* refused at its headers, or a login: a refusal
                                     * of it spends its address's budget (rest_shun.h) */
    char *body;
    size_t len, cap;
    bool too_big;
    unsigned limited;               /* over rest.rate_limit_per_s (its value then): 429, body dropped */
    uint64_t start_us;
    /* A deferred answer (rest_defer): fn makes it once woken with rc. */
    struct rest_server *rs;
    struct MHD_Connection *conn;
    rest_resume_fn resume_fn;
    rest_resume_ctx_fn resume_ctx_fn;   /* or this, with resume_ctx */
    void *resume_ctx;
    void (*resume_ctx_free)(void *ctx);
    int resume_rc;
    bool deferred;                  /* suspended, waiting for rest_wake */
    /* ofcd_clock_mono_us of a deferred change's stages after start_us
     * (rest_wake_timed); t_taken and t_durable stay 0 for an untimed wake */
    uint64_t t_dispatch, t_defer, t_taken, t_durable, t_wake;
};

#define REST_STREAM_BLOCK 65536     /* bytes MHD asks a streamed answer for at once */

static const unsigned status_list[REST_STATUSES] = REST_STATUS_LIST;
static const unsigned lat_le_us[REST_LAT_BUCKETS - 1] = REST_LAT_LE_US_LIST;
static const unsigned stage_le_us[REST_STAGE_BUCKETS - 1] = REST_STAGE_LE_US_LIST;

uint64_t rest_now_ms(void)
{
    return ofcd_clock_mono_ms();
}

static uint64_t now_us(void)
{
    return ofcd_clock_mono_us();
}

static void count_stage(struct rest_server *rs, enum rest_stage s, uint64_t from, uint64_t to)
{
    uint64_t us = to > from ? to - from : 0;
    unsigned i;

    for (i = 0; i < REST_STAGE_BUCKETS - 1 && us > stage_le_us[i]; i++)
        ;
    __atomic_fetch_add(&rs->stage_hist[s][i], 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&rs->stage_sum_us[s], us, __ATOMIC_RELAXED);
}

/* A timed deferred change, answered now: each stage counted. */
static void count_stages(struct rest_server *rs, const struct rest_conn_state *st)
{
    const uint64_t t[REST_STAGES + 1] = {st->start_us, st->t_dispatch, st->t_defer, st->t_taken,
                                         st->t_durable, st->t_wake, now_us()};

    for (int s = 0; s < REST_STAGES; s++)
        count_stage(rs, (enum rest_stage)s, t[s], t[s + 1]);
}

void rest_error(struct rest_reply *r, unsigned status, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    json_decref(r->json);
    r->status = status;
    r->json = json_pack("{s:i, s:s}", "code", (int)status, "description", msg);
}

int rest_dpid_arg(const char *s, uint64_t *out, struct rest_reply *r)
{
    if (dpid_parse(s, out) == 0)
        return 0;
    rest_error(r, 400, "'%s' is not a dpid: give 16 hex digits (colons allowed) or a decimal "
               "number", s);
    return -EINVAL;
}

void *rest_defer(struct rest_req *q, rest_resume_fn fn)
{
    struct rest_conn_state *st = q->st;

    /* Under the lock rest_stop waits with: once it has begun, nothing more
     * is suspended (a wake after MHD has gone would touch freed memory). */
    pthread_mutex_lock(&q->rs->defer_lock);
    bool stopping = q->rs->stopping;
    if (!stopping)
        q->rs->deferred++;
    pthread_mutex_unlock(&q->rs->defer_lock);
    if (stopping)
        return NULL;
    st->rs = q->rs;
    st->conn = q->conn;
    st->resume_fn = fn;
    st->deferred = true;
    st->t_defer = now_us();
    MHD_suspend_connection(q->conn);
    return st;
}

void *rest_defer_ctx(struct rest_req *q, rest_resume_ctx_fn fn, void *ctx,
                     void (*ctx_free)(void *ctx))
{
    struct rest_conn_state *st = q->st;

    st->resume_ctx_fn = fn;
    st->resume_ctx = ctx;
    st->resume_ctx_free = ctx_free;
    void *token = rest_defer(q, NULL);
    if (!token) {
        st->resume_ctx_fn = NULL;
        st->resume_ctx = NULL;
    }
    return token;
}

bool rest_hold(struct rest_server *rs, size_t n)
{
    pthread_mutex_lock(&rs->defer_lock);
    bool ok = !rs->stopping && rs->async_flows + n <= REST_ASYNC_MAX_FLOWS;
    if (ok) {
        rs->deferred++;
        rs->async_flows += n;
    }
    pthread_mutex_unlock(&rs->defer_lock);
    return ok;
}

/* One deferred answer or held change ended (n: the flows it held): the
 * last one lets rest_stop go on. */
static void defer_end(struct rest_server *rs, size_t n)
{
    pthread_mutex_lock(&rs->defer_lock);
    rs->async_flows -= n;
    if (--rs->deferred == 0)
        pthread_cond_broadcast(&rs->defer_cv);
    pthread_mutex_unlock(&rs->defer_lock);
}

void rest_release(struct rest_server *rs, size_t n)
{
    defer_end(rs, n);
}

void rest_wake_timed(void *token, int rc, uint64_t taken_us, uint64_t durable_us)
{
    struct rest_conn_state *st = token;

    st->t_taken = taken_us;
    st->t_durable = durable_us;
    st->t_wake = now_us();
    rest_wake(token, rc);
}

void rest_wake(void *token, int rc)
{
    struct rest_conn_state *st = token;
    struct rest_server *rs = st->rs;

    st->resume_rc = rc;
    /* MHD's own lock orders these writes before the resumed call reads
     * them; after this call st may be gone. */
    MHD_resume_connection(st->conn);
    defer_end(rs, 0);
}

static const char *ext_query(const struct rest_ext_req *req, const char *key)
{
    return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, key);
}

struct ext_each {
    void (*fn)(void *arg, const char *key, const char *value);
    void *arg;
};

static enum MHD_Result ext_each_one(void *cls, enum MHD_ValueKind kind, const char *key,
                                    const char *value)
{
    struct ext_each *e = cls;
    (void)kind;
    e->fn(e->arg, key, value);
    return MHD_YES;
}

static void ext_query_each(const struct rest_ext_req *req,
                           void (*fn)(void *arg, const char *key, const char *value), void *arg)
{
    struct ext_each e = {fn, arg};
    MHD_get_connection_values(req->conn, MHD_GET_ARGUMENT_KIND, ext_each_one, &e);
}

unsigned rest_ext_error(json_t **out, unsigned status, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    json_decref(*out);
    *out = json_pack("{s:i, s:s}", "code", (int)status, "description", msg);
    return status;
}

/* url without its trailing '/'s (Kytos routes "path" and "path/" alike)
 * into path[REST_PATH_MAX]; false (a 404 in r) when it does not fit. */
#define REST_PATH_MAX 1024
static bool normal_path(const char *url, char *path, struct rest_reply *r)
{
    size_t len = strlen(url);

    while (len > 1 && url[len - 1] == '/')
        len--;
    if (len >= REST_PATH_MAX) {
        rest_error(r, 404, "no such resource: path too long");
        return false;
    }
    memcpy(path, url, len);
    path[len] = '\0';
    return true;
}

/* Does a request of method on path (normalised) change nothing? GET, HEAD,
 * and a POST to an app route whose POSTs read (rest_ext.post_reads). */
static bool request_reads(const struct rest_server *rs, const char *method, const char *path)
{
    if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0)
        return true;
    if (strcmp(method, "POST") != 0)
        return false;
    for (unsigned i = 0; i < rs->src.n_ext; i++) {
        const struct rest_ext *x = rs->src.ext[i];
        size_t n = strlen(x->prefix);
        if (x->post_reads && strncmp(path, x->prefix, n) == 0 &&
            (path[n] == '\0' || path[n] == '/'))
            return true;
    }
    return false;
}

/* Whether path is pfx, at least a character, then sub. */
static bool ends_with(const char *path, size_t n, size_t pfx, const char *sub)
{
    size_t k = strlen(sub);
    return n > pfx + k && strcmp(path + n - k, sub) == 0;
}

/* A read only admin may make: a switch's flight record holds every message
 * of its channel (GET /api/v1/switches/{dpid}/capture), its frozen copies
 * why it failed (.../captures). */
static bool admin_read(const char *method, const char *path)
{
    static const char pfx[] = "/api/v1/switches/";
    size_t n = strlen(path);

    return strcmp(method, "GET") == 0 && strncmp(path, pfx, sizeof(pfx) - 1) == 0 &&
           (ends_with(path, n, sizeof(pfx) - 1, "/capture") ||
            ends_with(path, n, sizeof(pfx) - 1, "/captures"));
}

/* A change while the appliance refuses them (a cluster node that cannot
 * prove its lease): 503 with the reason, before any handler runs. Reads
 * and logins always pass. */
static bool refused_write(struct rest_req *q, struct rest_reply *r)
{
    char why[256] = "";

    if (!q->rs->src.writes_refused || request_reads(q->rs, q->method, q->path) ||
        strcmp(q->path, REST_LOGIN_PATH) == 0 ||
        !q->rs->src.writes_refused(q->rs->src.arg, why, sizeof(why)))
        return false;
    rest_error(r, 503, "%s", why);
    return true;
}

/* The request's token was checked when its headers came (headers_check). */
static void dispatch(struct rest_req *q, struct rest_reply *r)
{
    bool path_known = false;
    char path[REST_PATH_MAX];

    if (!normal_path(q->path, path, r))
        return;
    q->path = path;
    if (refused_write(q, r))
        return;

    for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
        const struct rest_route *rt = &routes[i];
        size_t n = strlen(rt->path);
        bool prefix = rt->path[n - 1] == '/';
        bool match = prefix ? strncmp(q->path, rt->path, n) == 0 && q->path[n] != '\0'
                            : strcmp(q->path, rt->path) == 0;
        if (!match)
            continue;
        path_known = true;
        if (strcmp(q->method, rt->method) != 0)
            continue;
        q->arg = prefix ? q->path + n : NULL;
        r->status = 200;
        rt->handler(q, r);
        return;
    }
    for (unsigned i = 0; i < q->rs->src.n_ext; i++) {
        const struct rest_ext *x = q->rs->src.ext[i];
        size_t n = strlen(x->prefix);
        if (strncmp(q->path, x->prefix, n) != 0 || (q->path[n] != '\0' && q->path[n] != '/'))
            continue;
        struct rest_ext_req xr = {.method = q->method, .path = q->path,
                                  .arg = q->path[n] ? q->path + n + 1 : "", .body = q->body,
                                  .body_len = q->body_len, .query = ext_query,
                                  .query_each = ext_query_each, .conn = q->conn};
        json_t *out = NULL;
        r->status = x->handle(x->arg, &xr, &out);
        json_decref(r->json);
        r->json = out ? out : json_null();
        return;
    }
    if (path_known)
        rest_error(r, 405, "method %s not allowed on %s", q->method, q->path);
    else
        rest_error(r, 404, "no such resource: %s", q->path);
}

static void count_status(struct rest_server *rs, unsigned status, uint64_t us)
{
    unsigned i;

    for (i = 0; i < REST_STATUSES; i++)
        if (status_list[i] == status)
            break;
    if (i < REST_STATUSES)
        __atomic_fetch_add(&rs->by_status[i], 1, __ATOMIC_RELAXED);
    else
        __atomic_fetch_add(&rs->other_status[status / 100 < 6 ? status / 100 : 5], 1,
                           __ATOMIC_RELAXED);
    for (i = 0; i < REST_LAT_BUCKETS - 1 && us > lat_le_us[i]; i++)
        ;
    __atomic_fetch_add(&rs->lat_hist[i], 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&rs->lat_sum_us, us, __ATOMIC_RELAXED);
    __atomic_fetch_add(&rs->lat_count, 1, __ATOMIC_RELAXED);
}

/* An IPv4 address in host order, or 0 (none, or not IPv4). */
static uint32_t sockaddr_ipv4(const struct sockaddr *sa)
{
    return sa && sa->sa_family == AF_INET
               ? ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr)
               : 0;
}

uint32_t rest_client_ipv4(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

    return ci ? sockaddr_ipv4(ci->client_addr) : 0;
}

void rest_client_name(struct MHD_Connection *conn, char *out, size_t size)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    char host[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;

    if (ci && ci->client_addr && ci->client_addr->sa_family == AF_INET) {
        const struct sockaddr_in *a = (const void *)ci->client_addr;
        inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
        port = ntohs(a->sin_port);
    } else if (ci && ci->client_addr && ci->client_addr->sa_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const void *)ci->client_addr;
        inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
        port = ntohs(a->sin6_port);
    }
    snprintf(out, size, "%s:%u", host, port);
}

/* Per-client token bucket (rest.rate_limit_per_s); true = over the limit. */
/* 0 or the limit a client went over. The limits change under rl_lock
 * (rest_set_rate_limit), so they are read under it. */
static unsigned rate_limited(struct rest_server *rs, struct MHD_Connection *conn, uint64_t t)
{
    uint32_t addr = rest_client_ipv4(conn);
    if (addr == 0)
        addr = 1;                       /* non-IPv4 clients share one bucket */
    pthread_mutex_lock(&rs->rl_lock);
    unsigned per_s = rs->cfg.rate_limit_per_s, burst = rs->cfg.rate_burst;
    bool over = false;
    if (per_s) {
        uint32_t h = (addr * 2654435761u) >> 22;   /* 10 bits */
        struct rest_rl_slot *sl = &rs->rl[h % REST_RL_SLOTS];
        if (sl->addr != addr) {         /* new client (or a collision: it starts afresh) */
            sl->addr = addr;
            ofcd_tbucket_init(&sl->bucket, t, burst);
        }
        over = !ofcd_tbucket_take(&sl->bucket, t, per_s, burst);
    }
    pthread_mutex_unlock(&rs->rl_lock);
    return over ? per_s : 0;
}

void rest_set_rate_limit(struct rest_server *rs, unsigned per_s, unsigned burst)
{
    pthread_mutex_lock(&rs->rl_lock);
    rs->cfg.rate_limit_per_s = per_s;
    rs->cfg.rate_burst = burst;
    /* Buckets start afresh: one filled for an old burst must not outlast it. */
    memset(rs->rl, 0, sizeof(rs->rl));
    pthread_mutex_unlock(&rs->rl_lock);
}

static bool json_content_type(struct MHD_Connection *conn)
{
    const char *ct = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_TYPE);
    if (!ct)
        return false;
    size_t n = strlen("application/json");
    return strncasecmp(ct, "application/json", n) == 0 && (ct[n] == '\0' || ct[n] == ';' ||
                                                          ct[n] == ' ');
}

/* A streamed answer: MHD pulls the pieces (rest_reply.stream) as the client
 * reads. */
struct rest_stream {
    ssize_t (*fn)(void *ctx, char *buf, size_t max);
    void (*free_fn)(void *ctx);
    void *ctx;
};

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct rest_stream *s = cls;
    ssize_t n = s->fn(s->ctx, buf, max);

    (void)pos;
    if (n == 0)
        return MHD_CONTENT_READER_END_OF_STREAM;
    return n < 0 ? MHD_CONTENT_READER_END_WITH_ERROR : n;
}

static void stream_done(void *cls)
{
    struct rest_stream *s = cls;

    s->free_fn(s->ctx);
    free(s);
}

static struct MHD_Response *stream_response(struct rest_reply *r)
{
    struct rest_stream *s = malloc(sizeof(*s));
    struct MHD_Response *resp = NULL;

    if (s) {
        *s = (struct rest_stream){r->stream, r->stream_free, r->stream_ctx};
        resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, REST_STREAM_BLOCK,
                                                 stream_read, s, stream_done);
    }
    if (!resp) {
        free(s);
        r->stream_free(r->stream_ctx);
        return NULL;
    }
    MHD_add_response_header(resp, "Content-Type", "application/json");
    return resp;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct rest_conn_state *st = *con_cls;

    (void)cls;
    (void)conn;
    (void)toe;
    if (st) {
        if (st->resume_ctx)
            st->resume_ctx_free(st->resume_ctx);    /* never answered */
        free(st->body);
        free(st);
        *con_cls = NULL;
    }
}

/* The dashboard's answers carry no data and need no token (rest_ui.h);
 * these keep them from being framed, sniffed, cached stale, or reaching
 * anything but their own origin. */
static void rest_ui_headers(struct MHD_Response *resp)
{
    MHD_add_response_header(resp, "Cache-Control", "no-cache");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, "X-Frame-Options", "DENY");
    MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
    /* Inline styles: the graph and chart libraries set style attributes. */
    MHD_add_response_header(resp, "Content-Security-Policy",
                            "default-src 'self'; style-src 'self' 'unsafe-inline'; "
                            "img-src 'self' data: blob:; frame-ancestors 'none'");
}

/* What the pages must know before their first API call, without a token
 * (so that they ask for a login instead of provoking a 401). */
static void ui_config(struct rest_server *rs, struct rest_reply *r)
{
    bool cluster = false, topology = false, circuits = false;

    for (unsigned i = 0; i < rs->src.n_ext; i++) {
        cluster |= strcmp(rs->src.ext[i]->prefix, "/api/v1/cluster") == 0;
        topology |= strcmp(rs->src.ext[i]->prefix, "/api/v1/topology") == 0;
        circuits |= strcmp(rs->src.ext[i]->prefix, "/api/kytos/mef_eline/v2") == 0;
    }
    r->json = json_pack("{s:b, s:b, s:b, s:b}", "auth", rs->auth.on, "cluster", cluster,
                        "topology", topology, "circuits", circuits);
    r->status = r->json ? 200 : 500;
}

/* A dashboard path (rest_ui.h): true with the answer in r. */
static bool ui_answer(struct rest_server *rs, const char *method, const char *url,
                      struct rest_reply *r)
{
    const char *name = NULL;

    switch (rest_ui_route(url, &name)) {
    case REST_UI_NONE:
        return false;
    case REST_UI_REDIRECT:
        r->status = 302;
        r->location = "/ui/";
        return true;
    case REST_UI_FILE:
        break;
    }
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        rest_error(r, 405, "method %s not allowed on %s (the dashboard's files)", method, url);
    else if (strcmp(name, REST_UI_CONFIG) == 0)
        ui_config(rs, r);
    else if (rs->ui.n == 0)
        rest_error(r, 404, "the dashboard is not served: %s", rs->ui_missing);
    else if (!(r->file = rest_ui_find(&rs->ui, name)))
        rest_error(r, 404, "no such file of the dashboard: %s", name);
    else
        r->status = 200;
    return true;
}

/* A request refused before its client authenticated: its address's budget
 * (rest_shun.h) spent, and said when this leaves the address shunned. */
static void spend_budget(struct rest_server *rs, struct MHD_Connection *conn)
{
    uint32_t addr = rest_client_ipv4(conn);
    char more[64];

    if (!rest_shun_refused(&rs->shun, addr, now_us()))
        return;
    __atomic_fetch_add(&rs->auth.st->addrs_shunned, 1, __ATOMIC_RELAXED);
    if (rest_log_limit_pass(&rs->shun_log, more, sizeof(more)))
        LOG_WARN("rest", "%u.%u.%u.%u was refused %u times at once (no good token, failed "
                 "logins): its connections are closed as accepted while it stays over "
                 "rest.refused_per_s = %u%s", addr >> 24, addr >> 16 & 255, addr >> 8 & 255,
                 addr & 255, rs->cfg.refused_burst, rs->cfg.refused_per_s, more);
}

/* MHD's accept: a shunned address's connection is closed before a byte of
 * it is read. */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t len)
{
    struct rest_server *rs = cls;

    if (len < (socklen_t)sizeof(struct sockaddr_in))
        return MHD_YES;
    if (rest_shun_accept(&rs->shun, sockaddr_ipv4(addr), now_us()))
        return MHD_YES;
    __atomic_fetch_add(&rs->auth.st->conns_shunned, 1, __ATOMIC_RELAXED);
    return MHD_NO;
}

/* Queue r as the answer to conn (r's JSON is consumed). */
static enum MHD_Result send_reply(struct rest_server *rs, struct MHD_Connection *conn,
                                  const struct rest_conn_state *st, struct rest_reply *r)
{
    struct MHD_Response *resp;

    if (r->file) {
        /* PERSISTENT: the file lives as long as the server. */
        resp = MHD_create_response_from_buffer(r->file->len, r->file->data,
                                               MHD_RESPMEM_PERSISTENT);
        if (!resp)
            return MHD_NO;
        MHD_add_response_header(resp, "Content-Type", r->file->type);
        rest_ui_headers(resp);
    } else if (r->location) {
        resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
        if (!resp)
            return MHD_NO;
        MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, r->location);
    } else if (r->events) {
        resp = rest_events_response(r);
        if (!resp)
            return MHD_NO;
    } else if (r->stream) {
        resp = stream_response(r);
        if (!resp)
            return MHD_NO;
    } else if (r->text) {
        resp = MHD_create_response_from_buffer(r->text_len, r->text, MHD_RESPMEM_MUST_FREE);
        if (!resp) {
            free(r->text);
            r->text = NULL;
            return MHD_NO;
        }
        MHD_add_response_header(resp, "Content-Type",
                                r->text_type ? r->text_type : "text/plain; version=0.0.4");
        if (r->attachment[0]) {
            char cd[sizeof(r->attachment) + 32];
            snprintf(cd, sizeof(cd), "attachment; filename=\"%s\"", r->attachment);
            MHD_add_response_header(resp, "Content-Disposition", cd);
        }
    } else {
        /* ENCODE_ANY: Kytos-ng answers some changes with a bare JSON string. */
        char *body = r->json ? json_dumps(r->json, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
        if (body)
            json_u64_fixup(body);             /* values above 2^63 - 1 as numbers */
        if (!body) {
            r->status = 500;
            body = strdup("{\"code\":500,\"description\":\"out of memory\"}");
        }
        resp = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
        MHD_add_response_header(resp, "Content-Type", "application/json");
    }
    /* A page's script (the dashboard) marks its requests: for it a refused
     * login's Basic challenge would make the browser open its own password
     * dialog over the page's form, so it gets the 401 without one. */
    if (r->www_authenticate &&
        !(strncmp(r->www_authenticate, "Basic", 5) == 0 &&
          MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Requested-With")))
        MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, r->www_authenticate);
    if (r->retry_after) {
        char ra[16];
        snprintf(ra, sizeof(ra), "%u", r->retry_after);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, ra);
    }
    json_decref(r->json);
    r->json = NULL;
    if (st->unauthenticated && r->status >= 400)
        spend_budget(rs, conn);
    /* Counted before the answer can reach the client: a client reading
     * /metrics right after must see its own request. */
    count_status(rs, r->status, now_us() - st->start_us);
    enum MHD_Result ret = MHD_queue_response(conn, r->status, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* Does the request announce a body? */
static bool has_body(struct MHD_Connection *conn)
{
    const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_LENGTH);
    return (cl && strspn(cl, "0") != strlen(cl)) ||
           MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                       MHD_HTTP_HEADER_TRANSFER_ENCODING) != NULL;
}

/*
 * What the headers alone decide, before a byte of the body is read: the
 * token (rest.auth) of every route but the login, and that the login takes
 * no body. A refusal is queued now, so MHD answers without reading the
 * body (no 100 Continue) and closes the connection after: an
 * unauthenticated client can make ofcd hold no body at all. false with
 * the answer in r.
 */
static bool headers_check(struct rest_server *rs, struct rest_req *q, struct rest_reply *r,
                          bool *login)
{
    char path[REST_PATH_MAX];

    if (!normal_path(q->path, path, r))
        return false;
    *login = strcmp(path, REST_LOGIN_PATH) == 0;
    if (*login) {
        if (!has_body(q->conn))
            return true;
        rest_error(r, 413, "GET %s takes no body (credentials go in Authorization)",
                   REST_LOGIN_PATH);
    } else if (rest_auth_allow(&rs->auth, q,
                               request_reads(rs, q->method, path) &&
                                   !admin_read(q->method, path),
                               r, (uint64_t)ofcd_clock_wall_s())) {
        return true;
    }
    __atomic_fetch_add(&rs->auth.st->refused_at_headers, 1, __ATOMIC_RELAXED);
    return false;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_size,
                                  void **con_cls)
{
    struct rest_server *rs = cls;
    struct rest_conn_state *st = *con_cls;
    struct rest_req q = {.rs = rs, .conn = conn, .method = method, .path = url, .st = st};
    struct rest_reply r = {.status = 500};
    const size_t max_body = (size_t)rs->cfg.max_body_kb * 1024u;

    (void)version;
    /* The first call only announces the request: what its headers decide
     * is answered now; otherwise keep state for its body, and decide on
     * the rate limit now, so an over-limit client's body is never held. */
    if (!st) {
        st = calloc(1, sizeof(*st));
        if (!st)
            return MHD_NO;
        st->start_us = now_us();
        *con_cls = st;
        if (ui_answer(rs, method, url, &r)) {
            st->refused = true;         /* answered: no body is read */
            return send_reply(rs, conn, st, &r);
        }
        bool login = false;
        if (!headers_check(rs, &q, &r, &login)) {
            st->refused = true;
            st->unauthenticated = r.status != 403;  /* 403: a token, not allowed this */
            return send_reply(rs, conn, st, &r);
        }
        st->unauthenticated = login;
        st->limited = rate_limited(rs, conn, st->start_us);
        return MHD_YES;
    }
    if (st->refused) {
        *upload_size = 0;               /* MHD reads no body after an early answer */
        return MHD_YES;
    }
    if (*upload_size) {
        /* Take the body as it comes; past the limit (or from a rate-limited
         * client), keep reading (so the client sees the answer instead of a
         * reset) but store nothing. */
        size_t n = *upload_size;
        if (!st->too_big && !st->limited && st->len + n > max_body) {
            st->too_big = true;
            free(st->body);
            st->body = NULL;
            st->len = st->cap = 0;
        }
        if (!st->too_big && !st->limited) {
            if (st->len + n + 1 > st->cap) {
                size_t nc = st->cap ? st->cap : 4096;
                while (nc < st->len + n + 1)
                    nc *= 2;
                char *nb = realloc(st->body, nc);
                if (!nb)
                    return MHD_NO;
                st->body = nb;
                st->cap = nc;
            }
            memcpy(st->body + st->len, upload_data, n);
            st->len += n;
            st->body[st->len] = '\0';
        }
        *upload_size = 0;
        return MHD_YES;
    }
    if (st->deferred) {
        /* Woken (rest_wake): the answer the work's outcome makes. */
        st->deferred = false;
        if (st->t_taken && st->t_durable)
            count_stages(rs, st);
        if (st->resume_ctx_fn) {
            st->resume_ctx_fn(&r, st->resume_rc, st->resume_ctx);
            st->resume_ctx_free(st->resume_ctx);
            st->resume_ctx = NULL;
        } else {
            st->resume_fn(&r, st->resume_rc);
        }
    } else if (st->limited) {
        rest_error(&r, 429, "too many requests from this client (rest.rate_limit_per_s = %u)",
                   st->limited);
        r.retry_after = 1;
    } else if (st->too_big) {
        rest_error(&r, 413, "request body larger than rest.max_body_kb = %u KiB",
                   rs->cfg.max_body_kb);
    } else if (st->len && !json_content_type(conn)) {
        rest_error(&r, 415, "request body must be sent as Content-Type: application/json");
    } else {
        q.body = st->body;
        q.body_len = st->len;
        q.st = st;
        st->t_dispatch = now_us();
        dispatch(&q, &r);
        if (st->deferred) {
            json_decref(r.json);
            return MHD_YES;             /* answered when woken */
        }
    }
    return send_reply(rs, conn, st, &r);
}

/* MHD's own messages (a connection over a limit, a request it could not
 * parse, a TLS handshake that failed): clients can cause them at will, so
 * at most 5 lines per 10 s, the rest counted in the next line. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    struct rest_server *rs = cls;
    char msg[256], more[64];

    if (strstr(fmt, "connection limit"))
        __atomic_fetch_add(&rs->auth.st->conns_refused, 1, __ATOMIC_RELAXED);
    if (!rest_log_limit_pass(&rs->mhd_log, more, sizeof(more)))
        return;
    vsnprintf(msg, sizeof(msg), fmt, ap);
    msg[strcspn(msg, "\r\n")] = '\0';
    LOG_WARN("rest", "libmicrohttpd: %s%s", msg, more);
}

/* What rest_start made, whether it got to start MHD or not. */
static void server_free(struct rest_server *rs)
{
    rest_history_stop(rs);              /* first: its thread reads the server */
    rest_auth_close(&rs->auth);
    free(rs->tls_cert);
    free(rs->tls_key);
    pthread_mutex_destroy(&rs->defer_lock);
    pthread_cond_destroy(&rs->defer_cv);
    pthread_mutex_destroy(&rs->lock);
    pthread_mutex_destroy(&rs->rl_lock);
    rest_log_limit_destroy(&rs->mhd_log);
    rest_log_limit_destroy(&rs->shun_log);
    rest_shun_destroy(&rs->shun);
    rest_ui_free(&rs->ui);
    free(rs);
}

/* The dashboard's files, if rest.ui_dir names a built one: without them
 * the API runs as before and /ui/ says why. */
static void ui_open(struct rest_server *rs, const char *dir)
{
    if (!dir || !*dir) {
        snprintf(rs->ui_missing, sizeof(rs->ui_missing),
                 "no rest.ui_dir and no built dashboard next to the program (ui/README.md)");
        return;
    }
    if (rest_ui_load(&rs->ui, dir, rs->ui_missing, sizeof(rs->ui_missing)) < 0)
        LOG_WARN("rest", "the dashboard is not served: %s", rs->ui_missing);
}

struct rest_server *rest_start(const struct rest_cfg *cfg, const struct rest_sources *src)
{
    struct rest_server *rs = calloc(1, sizeof(*rs));

    if (!rs) {
        LOG_ERR("rest", "out of memory");
        return NULL;
    }
    rs->cfg = *cfg;
    rs->src = *src;
    pthread_mutex_init(&rs->lock, NULL);
    pthread_mutex_init(&rs->rl_lock, NULL);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(cfg->port),
                             .sin_addr.s_addr = htonl(cfg->ip)};
    pthread_mutex_init(&rs->defer_lock, NULL);
    pthread_cond_init(&rs->defer_cv, NULL);
    rs->async_rl = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    rest_log_limit_init(&rs->mhd_log);
    rest_log_limit_init(&rs->shun_log);
    rest_shun_init(&rs->shun, cfg->refused_per_s, cfg->refused_burst);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG |
                     MHD_ALLOW_SUSPEND_RESUME;
    struct MHD_OptionItem opts[14];
    unsigned n = 0;
    /* First, so that no line of MHD's reaches stderr unlimited. */
    opts[n++] = (struct MHD_OptionItem){MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)mhd_log, rs};
    opts[n++] = (struct MHD_OptionItem){MHD_OPTION_SOCK_ADDR, 0, &sa};
    opts[n++] = (struct MHD_OptionItem){MHD_OPTION_THREAD_POOL_SIZE, cfg->threads, NULL};
    opts[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed,
                                        rs};
    opts[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT, REST_CONN_LIMIT, NULL};
    /* MHD closes a connection over it as it accepts it, before reading. */
    opts[n++] = (struct MHD_OptionItem){MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                                        cfg->max_conns_per_ip, NULL};
    opts[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT, 30, NULL};
    if (rest_tls_load(cfg, &rs->tls_cert, &rs->tls_key) < 0)
        goto fail;
    if (rest_auth_open(&rs->auth, cfg, src->auth_stats) < 0)
        goto fail;
    ui_open(rs, cfg->ui_dir);
    if (rest_history_start(rs) < 0)
        goto fail;
    if (rs->tls_cert) {
        flags |= MHD_USE_TLS;
        opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, rs->tls_cert};
        opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, rs->tls_key};
    }
    opts[n++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    rs->mhd = MHD_start_daemon(flags, cfg->port, accept_policy, rs, on_request, rs,
                               MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
    char peer[OFCD_PEER_STRLEN];
    ofcd_peer_format(cfg->ip, cfg->port, peer);
    if (!rs->mhd) {
        if (rs->tls_cert)
            LOG_ERR("rest", "cannot serve HTTPS on %s: address in use or not local (change "
                    "rest.listen), or rest.tls_cert/rest.tls_key not a certificate and its "
                    "key (the line above may say which)", peer);
        else
            LOG_ERR("rest", "cannot serve HTTP on %s (address in use or not local?); change "
                    "rest.listen", peer);
        goto fail;
    }
    LOG_INFO("rest", "REST API on %s://%s/api/v1/ (%s)", rs->tls_cert ? "https" : "http", peer,
             rs->auth.on ? "bearer tokens required" : "no authentication");
    if (rs->ui.n)
        LOG_INFO("rest", "dashboard on %s://%s/ui/ (%u files from %s)",
                 rs->tls_cert ? "https" : "http", peer, rs->ui.n, cfg->ui_dir);
    return rs;
fail:
    server_free(rs);
    return NULL;
}

void rest_stop(struct rest_server *rs)
{
    if (!rs)
        return;
    /* A suspended connection must be woken before MHD goes: the store (still
     * open) completes every queued change, and from now on nothing new is
     * deferred, so the wait ends even under load. */
    /* Event streams end (and no new one starts): none stays suspended. */
    if (rs->src.events)
        rest_events_close_all(rs->src.events);
    pthread_mutex_lock(&rs->defer_lock);
    rs->stopping = true;
    while (rs->deferred)
        pthread_cond_wait(&rs->defer_cv, &rs->defer_lock);
    pthread_mutex_unlock(&rs->defer_lock);
    MHD_stop_daemon(rs->mhd);
    server_free(rs);
}
