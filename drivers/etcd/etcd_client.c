/*
 * etcd_client: the blocking client and the watch stream over libcurl
 * (etcd_client.h is the manual). The only file that includes <curl/curl.h>
 * (scripts/check-layout holds it), so the transport can change without
 * the codec or the callers noticing.
 */
#include "etcd_client.h"
#include "etcd_pb.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include <curl/curl.h>

#include "etcd_h2.h"
#include "ofcd_clock.h"

struct buf {
    char *p;
    size_t len;
    size_t cap;
    size_t max;
    bool over;
};

/* A gRPC call's or watch's status, from its headers or trailers. */
struct grpc_status {
    bool has;
    long code;
    char message[ETCD_ERR_MAX];
};

struct etcd_client {
    char url[ETCD_ENDPOINTS_MAX][ETCD_URL_MAX];
    size_t n_url;
    size_t cur;
    unsigned timeout_ms;
    unsigned connect_ms;
    char *ca, *cert, *key, *user, *password;
    char token[ETCD_TOKEN_MAX];
    bool json;                 /* the gateway's API, else gRPC */
    CURL *h;
    /* gRPC on http:// endpoints: a kept connection of nghttp2's; https://
     * ones go through libcurl, a connection per call. */
    struct etcd_h2 *h2;
    bool h2_ok[ETCD_ENDPOINTS_MAX];
    char h2_host[ETCD_ENDPOINTS_MAX][ETCD_URL_MAX];
    char h2_port[ETCD_ENDPOINTS_MAX][16];
    struct buf resp;
    long http_code;
    /* gRPC: the status, and the answer's message inside resp. */
    struct grpc_status gs;
    const uint8_t *msg;
    size_t msg_len;
    struct etcd_client_stats stats;
    char err[ETCD_ERR_MAX];
};

struct etcd_watch {
    CURLM *m;
    CURL *h;
    struct curl_slist *hdrs;
    bool json;
    /* gRPC: the create request, sent once and the stream then held open
     * (etcd ends a watch stream whose client side ends); the status when
     * the stream ends. */
    struct etcd_pb req;
    size_t req_sent;
    struct grpc_status gs;
    struct buf line;            /* JSON lines, or gRPC messages */
    etcd_watch_cb cb;
    void *arg;
    bool created;
    int state;              /* 0 while the watch runs, its end's errno after */
    int64_t compact_rev;
    char err[ETCD_ERR_MAX];
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void curl_init(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void fmt(char *dst, const char *f, ...)
{
    va_list ap;

    va_start(ap, f);
    vsnprintf(dst, ETCD_ERR_MAX, f, ap);
    va_end(ap);
}

static size_t buf_write(char *data, size_t size, size_t n, void *arg)
{
    struct buf *b = arg;
    size_t add = size * n;

    if (add > b->max - b->len) {
        b->over = true;
        return 0;   /* curl aborts the transfer: CURLE_WRITE_ERROR */
    }
    if (b->len + add + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + add + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p)
            return 0;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, add);
    b->len += add;
    b->p[b->len] = 0;
    return add;
}

static char *dup_opt(const char *s, bool *bad)
{
    char *d = s ? strdup(s) : NULL;

    if (s && !d)
        *bad = true;
    return d;
}

struct etcd_client *etcd_client_new(const struct etcd_client_cfg *cfg, char *err)
{
    struct etcd_client *c;
    bool bad = false;

    pthread_once(&curl_once, curl_init);
    if (curl_init_rc != CURLE_OK) {
        fmt(err, "etcd: libcurl did not initialise: %s", curl_easy_strerror(curl_init_rc));
        return NULL;
    }
    if (!cfg->n_endpoints || cfg->n_endpoints > ETCD_ENDPOINTS_MAX) {
        fmt(err, "etcd: %zu endpoints, need 1 to %u", cfg->n_endpoints, ETCD_ENDPOINTS_MAX);
        return NULL;
    }
    if (!cfg->cert != !cfg->key) {
        fmt(err, "etcd: a client certificate needs its key and a key its certificate");
        return NULL;
    }
    if (!cfg->user != !cfg->password) {
        fmt(err, "etcd: a user needs a password and a password a user");
        return NULL;
    }
    if (!(c = calloc(1, sizeof(*c)))) {
        fmt(err, "etcd: out of memory");
        return NULL;
    }
    for (size_t i = 0; i < cfg->n_endpoints; i++) {
        const char *e = cfg->endpoints[i];
        size_t n = e ? strlen(e) : 0;

        while (n && e[n - 1] == '/')
            n--;
        if (!e || n >= ETCD_URL_MAX || (strncmp(e, "http://", 7) && strncmp(e, "https://", 8))) {
            fmt(err, "etcd: endpoint '%s': want http://host:port or https://host:port, "
                "shorter than %u", e ? e : "(null)", ETCD_URL_MAX);
            free(c);
            return NULL;
        }
        memcpy(c->url[i], e, n);
        c->url[i][n] = 0;
    }
    c->n_url = cfg->n_endpoints;
    c->json = cfg->api == ETCD_API_JSON;
    c->timeout_ms = cfg->timeout_ms ? cfg->timeout_ms : 5000;
    c->connect_ms = cfg->connect_timeout_ms ? cfg->connect_timeout_ms
                                            : (c->timeout_ms < 1000 ? c->timeout_ms : 1000);
    c->ca = dup_opt(cfg->ca, &bad);
    c->cert = dup_opt(cfg->cert, &bad);
    c->key = dup_opt(cfg->key, &bad);
    c->user = dup_opt(cfg->user, &bad);
    c->password = dup_opt(cfg->password, &bad);
    c->resp.max = ETCD_TEXT_MAX;
    c->h = curl_easy_init();
    for (size_t i = 0; i < c->n_url && !c->json; i++)
        c->h2_ok[i] = etcd_h2_endpoint(c->url[i], c->h2_host[i], sizeof(c->h2_host[i]),
                                       c->h2_port[i], sizeof(c->h2_port[i])) == 0;
    if (!c->json && !(c->h2 = etcd_h2_new()))
        bad = true;
    if (bad || !c->h) {
        fmt(err, "etcd: out of memory");
        etcd_client_free(c);
        return NULL;
    }
    return c;
}

void etcd_client_free(struct etcd_client *c)
{
    if (!c)
        return;
    if (c->h)
        curl_easy_cleanup(c->h);
    etcd_h2_free(c->h2);
    free(c->resp.p);
    free(c->ca);
    free(c->cert);
    free(c->key);
    free(c->user);
    if (c->password)
        memset(c->password, 0, strlen(c->password));
    memset(c->token, 0, sizeof(c->token));
    free(c->password);
    free(c);
}

const char *etcd_client_error(const struct etcd_client *c)
{
    return c->err;
}

void etcd_client_stats(const struct etcd_client *c, struct etcd_client_stats *out)
{
    *out = c->stats;
}

const char *etcd_client_endpoint(const struct etcd_client *c)
{
    return c->url[c->cur];
}

/* What every handle of c shares: TLS files, no signals, no proxy. */
static void common_opts(const struct etcd_client *c, CURL *h)
{
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_PROXY, "");
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    if (c->ca)
        curl_easy_setopt(h, CURLOPT_CAINFO, c->ca);
    if (c->cert) {
        curl_easy_setopt(h, CURLOPT_SSLCERT, c->cert);
        curl_easy_setopt(h, CURLOPT_SSLKEY, c->key);
    }
}

static struct curl_slist *headers(const struct etcd_client *c, bool json, bool with_token)
{
    struct curl_slist *l = curl_slist_append(NULL, json ? "Content-Type: application/json"
                                                        : "Content-Type: application/grpc");
    char auth[ETCD_TOKEN_MAX + 32];

    /* curl's own "Expect: 100-continue" on large bodies costs a round trip. */
    if (l)
        l = curl_slist_append(l, "Expect:");
    /* gRPC's status comes in trailers, which a peer sends only to a client
     * that says it takes them. */
    if (l && !json)
        l = curl_slist_append(l, "TE: trailers");
    if (l && with_token && c->token[0]) {
        /* The gateway reads the token from Authorization, gRPC from the
         * "token" metadata. */
        snprintf(auth, sizeof(auth), "%s: %s", json ? "Authorization" : "token", c->token);
        l = curl_slist_append(l, auth);
    }
    return l;
}

/* grpc-message is percent-encoded (gRPC's HTTP/2 mapping); control bytes
 * are dropped from what reaches a log line. */
static void percent_decode(const char *in, size_t n, char *out, size_t cap)
{
    size_t o = 0;

    for (size_t i = 0; i < n && o + 1 < cap; i++) {
        char c = in[i];

        if (c == '%' && i + 2 < n && isxdigit((unsigned char)in[i + 1]) &&
            isxdigit((unsigned char)in[i + 2])) {
            char hex[3] = {in[i + 1], in[i + 2], 0};
            c = (char)strtoul(hex, NULL, 16);
            i += 2;
        }
        if ((unsigned char)c >= 0x20 && c != 0x7f)
            out[o++] = c;
    }
    out[o] = 0;
}

/* One header or trailer of a gRPC answer: its status is in either. */
static void grpc_status_take(struct grpc_status *o, const char *name, size_t nlen,
                             const char *value, size_t vlen)
{
    while (vlen && value[0] == ' ') {
        value++;
        vlen--;
    }
    if (nlen == 11 && !strncasecmp(name, "grpc-status", 11)) {
        char num[16] = "";
        snprintf(num, sizeof(num), "%.*s", (int)(vlen < 15 ? vlen : 15), value);
        o->code = strtol(num, NULL, 10);
        o->has = true;
    } else if (nlen == 12 && !strncasecmp(name, "grpc-message", 12)) {
        percent_decode(value, vlen, o->message, sizeof(o->message));
    }
}

/* libcurl's header lines ("name: value\r\n"), trailers included. */
static size_t grpc_header(char *data, size_t size, size_t n, void *arg)
{
    size_t len = size * n;
    const char *colon = memchr(data, ':', len);

    while (len && (data[len - 1] == '\n' || data[len - 1] == '\r'))
        len--;
    if (colon && (size_t)(colon - data) < len)
        grpc_status_take(arg, data, (size_t)(colon - data), colon + 1,
                         len - (size_t)(colon - data) - 1);
    return size * n;
}

/* HTTP/2 for gRPC: from the first byte on http:// (etcd's client port
 * serves gRPC and the gateway side by side), through ALPN on https://;
 * the status read from the headers or trailers into *st (cleared). */
static void grpc_opts(CURL *h, const char *url, struct grpc_status *st)
{
    memset(st, 0, sizeof(*st));
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, strncmp(url, "https://", 8)
                                                  ? CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE
                                                  : CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, grpc_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, st);
}

/* A connection closed with a reset once its one call is answered: at
 * hundreds of calls a second, closed ones kept in TIME_WAIT for a minute
 * would use up the local ports towards an endpoint. */
static int no_time_wait(void *arg, curl_socket_t fd, curlsocktype purpose)
{
    struct linger l = {.l_onoff = 1, .l_linger = 0};

    (void)arg;
    if (purpose == CURLSOCKTYPE_IPCXN)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
    return CURL_SOCKOPT_OK;
}

/* A failure before the request left: another endpoint may take it. */
static bool before_send(CURLcode rc, CURL *h)
{
    curl_off_t connected = 0;

    switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_SSL_CONNECT_ERROR:
        return true;
    case CURLE_OPERATION_TIMEDOUT:
        curl_easy_getinfo(h, CURLINFO_CONNECT_TIME_T, &connected);
        return connected == 0;
    default:
        return false;
    }
}

static void h2_header(const char *name, size_t nlen, const char *value, size_t vlen,
                      void *arg)
{
    grpc_status_take(&((struct etcd_client *)arg)->gs, name, nlen, value, vlen);
}

static bool h2_data(const uint8_t *p, size_t n, void *arg)
{
    struct etcd_client *c = arg;
    return buf_write((char *)p, 1, n, &c->resp) == n;
}

/* A gRPC call on endpoint i's kept HTTP/2 connection (etcd_h2.h's
 * returns); *sent whether the request left. */
static int post_h2(struct etcd_client *c, size_t i, const char *path, const void *body,
                   size_t len, bool token, uint64_t deadline, bool *sent)
{
    struct etcd_h2_call call = {
        .host = c->h2_host[i], .port = c->h2_port[i], .path = path,
        .token = token && c->token[0] ? c->token : NULL, .body = body, .len = len,
        .deadline_ms = deadline, .connect_ms = c->connect_ms, .on_header = h2_header,
        .on_data = h2_data, .arg = c};
    char why[ETCD_ERR_MAX] = "";
    int status = 0;
    bool connected = false;

    memset(&c->gs, 0, sizeof(c->gs));
    c->resp.len = 0;
    c->resp.over = false;
    int rc = etcd_h2_call(c->h2, &call, &status, sent, &connected, why);
    c->stats.connects += connected;
    c->http_code = status;
    if (rc < 0)
        fmt(c->err, "etcd %s%s: %s", c->url[i], path, why);
    else if (c->resp.len && c->resp.p)
        c->resp.p[c->resp.len] = 0;
    return rc;
}

/* One POST to the endpoints in turn within the call's timeout; the body
 * answered is in c->resp, with a gRPC call's status in c->grpc_*. */
static int post_once(struct etcd_client *c, const char *path, const void *body, size_t len,
                     bool token)
{
    uint64_t deadline = ofcd_clock_mono_ms() + c->timeout_ms;
    struct curl_slist *hdrs = headers(c, c->json, token);
    int rc = -ECONNREFUSED;
    char url[ETCD_URL_MAX + 64];

    if (!hdrs) {
        fmt(c->err, "etcd: out of memory");
        return -ENOMEM;
    }
    for (size_t tries = 0; tries < c->n_url; tries++) {
        size_t i = (c->cur + tries) % c->n_url;
        uint64_t now = ofcd_clock_mono_ms();
        long left = now < deadline ? (long)(deadline - now) : 0;
        CURLcode cr;

        if (!left) {
            rc = -ETIMEDOUT;
            break;
        }
        if (!c->json && c->h2_ok[i]) {
            bool sent = false;
            rc = post_h2(c, i, path, body, len, token, deadline, &sent);
            if (rc == 0) {
                c->cur = i;
                c->stats.calls++;
                break;
            }
            if (rc == -ECONNREFUSED || (rc == -ETIMEDOUT && !sent)) {
                c->stats.failovers += tries + 1 < c->n_url;
                continue;
            }
            /* The request may have been applied: not sent again. */
            c->cur = (i + 1) % c->n_url;
            if (rc == -EMSGSIZE)
                fmt(c->err, "etcd %s%s: answer over %u bytes", c->url[i], path, ETCD_TEXT_MAX);
            else if (rc != -ETIMEDOUT && rc != -ENOMEM)
                rc = -EIO;
            break;
        }
        snprintf(url, sizeof(url), "%s%s", c->url[i], path);
        curl_easy_reset(c->h);
        common_opts(c, c->h);
        curl_easy_setopt(c->h, CURLOPT_URL, url);
        curl_easy_setopt(c->h, CURLOPT_HTTPHEADER, hdrs);
        curl_easy_setopt(c->h, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c->h, CURLOPT_POSTFIELDSIZE, (long)len);
        if (!c->json) {
            grpc_opts(c->h, c->url[i], &c->gs);
            /* libcurl 7.88 (Debian 12) fails the second request on a kept
             * HTTP/2 connection to etcd (CURLE_HTTP2 before a byte is
             * sent): each call has a connection of its own, a cost the
             * store's few dozen transactions a second do not feel. */
            curl_easy_setopt(c->h, CURLOPT_FRESH_CONNECT, 1L);
            curl_easy_setopt(c->h, CURLOPT_FORBID_REUSE, 1L);
            curl_easy_setopt(c->h, CURLOPT_SOCKOPTFUNCTION, no_time_wait);
        }
        curl_easy_setopt(c->h, CURLOPT_TIMEOUT_MS, left);
        curl_easy_setopt(c->h, CURLOPT_CONNECTTIMEOUT_MS,
                         (long)c->connect_ms < left ? (long)c->connect_ms : left);
        curl_easy_setopt(c->h, CURLOPT_WRITEFUNCTION, buf_write);
        curl_easy_setopt(c->h, CURLOPT_WRITEDATA, &c->resp);
        c->resp.len = 0;
        c->resp.over = false;
        cr = curl_easy_perform(c->h);
        long conns = 0;
        if (curl_easy_getinfo(c->h, CURLINFO_NUM_CONNECTS, &conns) == CURLE_OK && conns > 0)
            c->stats.connects += (uint64_t)conns;
        if (cr == CURLE_OK) {
            c->cur = i;
            c->stats.calls++;
            curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, &c->http_code);
            rc = 0;
            break;
        }
        fmt(c->err, "etcd %s%s: %s", c->url[i], path, curl_easy_strerror(cr));
        if (before_send(cr, c->h)) {
            rc = cr == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT : -ECONNREFUSED;
            c->stats.failovers += tries + 1 < c->n_url;
            continue;
        }
        /* The request may have been applied: not sent again. The next
         * call starts with the next endpoint. */
        c->cur = (i + 1) % c->n_url;
        if (c->resp.over) {
            fmt(c->err, "etcd %s%s: answer over %u bytes", c->url[i], path, ETCD_TEXT_MAX);
            rc = -EMSGSIZE;
        } else {
            rc = cr == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT : -EIO;
        }
        break;
    }
    curl_slist_free_all(hdrs);
    if (rc == 0 && !c->resp.p) {
        /* An empty answer: a valid (empty) buffer for the decoders. */
        c->resp.p = calloc(1, 1);
        if (!c->resp.p)
            return -ENOMEM;
    }
    return rc;
}

/* A gRPC call's outcome: its status as the errno etcd_grpc_errno gives,
 * or its one message in c->msg. */
static int grpc_answer(struct etcd_client *c, const char *path)
{
    size_t off = 0, len = 0;
    long n;

    if (c->http_code != 200) {
        fmt(c->err, "etcd %s%s: HTTP %ld where gRPC was expected (is this etcd's client "
            "port?)", c->url[c->cur], path, c->http_code);
        return -EIO;
    }
    if (!c->gs.has) {
        fmt(c->err, "etcd %s%s: the answer ended without a gRPC status", c->url[c->cur], path);
        return -EIO;
    }
    if (c->gs.code) {
        fmt(c->err, "etcd %s%s: %s (gRPC status %ld)", c->url[c->cur], path,
            c->gs.message[0] ? c->gs.message : "no message", c->gs.code);
        return etcd_grpc_errno(c->gs.code, c->gs.message);
    }
    n = etcd_pb_frame((const uint8_t *)c->resp.p, c->resp.len, &off, &len);
    if (n <= 0 || (size_t)n != c->resp.len) {
        fmt(c->err, "etcd %s%s: the answer is not one gRPC message (%zu bytes)",
            c->url[c->cur], path, c->resp.len);
        return n == -EMSGSIZE ? -EMSGSIZE : -EBADMSG;
    }
    c->msg = (const uint8_t *)c->resp.p + off;
    c->msg_len = len;
    return 0;
}

static int authenticate(struct etcd_client *c)
{
    char *json = NULL;
    struct etcd_pb pb = {0};
    int rc;

    c->token[0] = 0;
    c->stats.auths++;
    if (c->json) {
        rc = etcd_req_auth(c->user, c->password, &json);
        if (rc == 0 && (rc = post_once(c, ETCD_PATH_AUTH, json, strlen(json), false)) == 0)
            rc = etcd_decode_auth(c->resp.p, c->resp.len, c->token, c->err);
    } else {
        rc = etcd_pb_req_auth(c->user, c->password, &pb);
        if (rc == 0 && (rc = post_once(c, ETCD_GRPC_AUTH, pb.p, pb.len, false)) == 0 &&
            (rc = grpc_answer(c, ETCD_GRPC_AUTH)) == 0)
            rc = etcd_pb_decode_auth(c->msg, c->msg_len, c->token, c->err);
    }
    if (json)
        memset(json, 0, strlen(json));
    if (pb.p)
        memset(pb.p, 0, pb.len);
    free(json);
    etcd_pb_free(&pb);
    return rc;
}

/* A POST with authentication when configured: a token etcd no longer
 * takes (expired, or etcd restarted) is renewed once. */
static int post(struct etcd_client *c, const char *path, const void *body, size_t len)
{
    int rc;

    if (c->user && !c->token[0] && (rc = authenticate(c)) < 0)
        return rc;
    if ((rc = post_once(c, path, body, len, true)) < 0)
        return rc;
    if (!c->json) {
        rc = grpc_answer(c, path);
        if (rc == -EPERM && c->user && (rc = authenticate(c)) == 0 &&
            (rc = post_once(c, path, body, len, true)) == 0)
            rc = grpc_answer(c, path);
        return rc;
    }
    if (c->user && c->http_code != 200) {
        struct etcd_header h;
        if (etcd_decode_header_only(c->resp.p, c->resp.len, &h, NULL) == -EPERM &&
            (rc = authenticate(c)) == 0)
            rc = post_once(c, path, body, len, true);
    }
    return rc;
}

/* Sends a request built for the client's API (build_rc: the builder's
 * result; json or pb holds it) and frees it; 0 with the answer in c->resp
 * (JSON) or c->msg (gRPC), or the failure with c->err set. */
static int rpc(struct etcd_client *c, const char *json_path, const char *grpc_path,
               int build_rc, char *json, struct etcd_pb *pb)
{
    const char *path = c->json ? json_path : grpc_path;
    int rc = build_rc;

    if (rc < 0)
        fmt(c->err, "etcd %s: request not built: %s", path, strerror(-rc));
    else if (c->json)
        rc = post(c, path, json, strlen(json));
    else
        rc = post(c, path, pb->p, pb->len);
    free(json);
    etcd_pb_free(pb);
    return rc;
}

/* A decode's result: a success clears the last error; an answer that is
 * not the gateway's JSON under an HTTP error (a proxy's page, an etcd
 * without the gateway) is told by its status and first bytes. */
static int decoded(struct etcd_client *c, int rc)
{
    if (rc == 0)
        c->err[0] = 0;
    else if (rc == -EBADMSG && c->json && c->http_code != 200) {
        fmt(c->err, "etcd %s: HTTP %ld: %.80s", c->url[c->cur], c->http_code,
            c->resp.len ? c->resp.p : "(no body)");
        rc = -EIO;
    }
    return rc;
}

/* An answer read for its header alone, in either API. */
static int header_answer(struct etcd_client *c, struct etcd_header *hdr)
{
    struct etcd_header h;

    hdr = hdr ? hdr : &h;
    return c->json ? etcd_decode_header_only(c->resp.p, c->resp.len, hdr, c->err)
                   : etcd_pb_decode_header_only(c->msg, c->msg_len, hdr, c->err);
}

int etcd_put(struct etcd_client *c, const struct etcd_put *p, struct etcd_header *hdr)
{
    struct etcd_pb pb = {0};
    char *json = NULL;
    int rc = c->json ? etcd_req_put(p, &json) : etcd_pb_req_put(p, &pb);

    if ((rc = rpc(c, ETCD_PATH_PUT, ETCD_GRPC_PUT, rc, json, &pb)) < 0)
        return rc;
    return decoded(c, header_answer(c, hdr));
}

int etcd_get(struct etcd_client *c, const struct etcd_range *r, struct etcd_range_resp *out)
{
    struct etcd_pb pb = {0};
    char *json = NULL;
    int rc = c->json ? etcd_req_range(r, &json) : etcd_pb_req_range(r, &pb);

    memset(out, 0, sizeof(*out));
    if ((rc = rpc(c, ETCD_PATH_RANGE, ETCD_GRPC_RANGE, rc, json, &pb)) < 0)
        return rc;
    return decoded(c, c->json ? etcd_decode_range(c->resp.p, c->resp.len, out, c->err)
                              : etcd_pb_decode_range(c->msg, c->msg_len, out, c->err));
}

int etcd_delete(struct etcd_client *c, const struct etcd_delete *d,
                struct etcd_delete_resp *out)
{
    struct etcd_delete_resp r;
    struct etcd_pb pb = {0};
    char *json = NULL;
    int rc = c->json ? etcd_req_delete(d, &json) : etcd_pb_req_delete(d, &pb);

    if ((rc = rpc(c, ETCD_PATH_DELETE, ETCD_GRPC_DELETE, rc, json, &pb)) < 0)
        return rc;
    out = out ? out : &r;
    return decoded(c, c->json ? etcd_decode_delete(c->resp.p, c->resp.len, out, c->err)
                              : etcd_pb_decode_delete(c->msg, c->msg_len, out, c->err));
}

int etcd_txn(struct etcd_client *c, const struct etcd_txn *t, struct etcd_txn_resp *out)
{
    struct etcd_pb pb = {0};
    char *json = NULL;
    int rc = c->json ? etcd_req_txn(t, &json) : etcd_pb_req_txn(t, &pb);

    memset(out, 0, sizeof(*out));
    if ((rc = rpc(c, ETCD_PATH_TXN, ETCD_GRPC_TXN, rc, json, &pb)) < 0)
        return rc;
    return decoded(c, c->json ? etcd_decode_txn(c->resp.p, c->resp.len, out, c->err)
                              : etcd_pb_decode_txn(c->msg, c->msg_len, out, c->err));
}

int etcd_compact(struct etcd_client *c, int64_t revision, struct etcd_header *hdr)
{
    struct etcd_pb pb = {0};
    char *json = NULL;
    int rc = c->json ? etcd_req_compact(revision, true, &json)
                     : etcd_pb_req_compact(revision, true, &pb);

    if ((rc = rpc(c, ETCD_PATH_COMPACT, ETCD_GRPC_COMPACT, rc, json, &pb)) < 0)
        return rc;
    return decoded(c, header_answer(c, hdr));
}

/* The lease calls' answers, in either API. */
static int lease_answer(struct etcd_client *c, struct etcd_lease_resp *out)
{
    return c->json ? etcd_decode_lease(c->resp.p, c->resp.len, out, c->err)
                   : etcd_pb_decode_lease(c->msg, c->msg_len, out, c->err);
}

int etcd_lease_grant(struct etcd_client *c, int64_t ttl_s, struct etcd_lease_resp *out)
{
    struct etcd_pb pb = {0};
    char *json = NULL;
    int rc = c->json ? etcd_req_lease_grant(ttl_s, &json) : etcd_pb_req_lease_grant(ttl_s, &pb);

    if ((rc = rpc(c, ETCD_PATH_LEASE_GRANT, ETCD_GRPC_LEASE_GRANT, rc, json, &pb)) < 0)
        return rc;
    return decoded(c, lease_answer(c, out));
}

/* Over gRPC a keepalive is a stream: one request, then the end of the
 * client's side; etcd answers it before it reads that end. */
int etcd_lease_keepalive(struct etcd_client *c, int64_t id, struct etcd_lease_resp *out)
{
    struct etcd_pb pb = {0};
    char *json = NULL;
    int rc = c->json ? etcd_req_lease_keepalive(id, &json) : etcd_pb_req_lease_id(id, &pb);

    if ((rc = rpc(c, ETCD_PATH_LEASE_KEEPALIVE, ETCD_GRPC_LEASE_KEEPALIVE, rc, json, &pb)) < 0 ||
        (rc = lease_answer(c, out)) < 0)
        return rc;
    /* etcd answers a keepalive of a lease it no longer has with TTL 0 (or
     * none), not an error. */
    if (out->ttl <= 0) {
        fmt(c->err, "etcd: lease %lld is gone (expired or revoked)", (long long)id);
        return -ENOENT;
    }
    return decoded(c, 0);
}

int etcd_lease_revoke(struct etcd_client *c, int64_t id)
{
    struct etcd_pb pb = {0};
    char *json = NULL;
    int rc = c->json ? etcd_req_lease_revoke(id, &json) : etcd_pb_req_lease_id(id, &pb);

    if ((rc = rpc(c, ETCD_PATH_LEASE_REVOKE, ETCD_GRPC_LEASE_REVOKE, rc, json, &pb)) < 0)
        return rc;
    return decoded(c, header_answer(c, NULL));
}

int etcd_lease_ttl(struct etcd_client *c, int64_t id, int64_t *ttl_s)
{
    struct etcd_lease_resp l;
    struct etcd_pb pb = {0};
    char *json = NULL;
    int rc = c->json ? etcd_req_lease_ttl(id, &json) : etcd_pb_req_lease_id(id, &pb);

    if ((rc = rpc(c, ETCD_PATH_LEASE_TTL, ETCD_GRPC_LEASE_TTL, rc, json, &pb)) < 0 ||
        (rc = lease_answer(c, &l)) < 0)
        return rc;
    if (l.ttl < 0) {
        fmt(c->err, "etcd: lease %lld is gone (expired or revoked)", (long long)id);
        return -ENOENT;
    }
    *ttl_s = l.ttl;
    return decoded(c, 0);
}

/* ---- watch ---- */

/* Decodes and delivers the complete lines held; stops after creation when
 * asked (the rest stays for the next poll). Returns messages delivered. */
static int watch_drain(struct etcd_watch *w, bool until_created)
{
    int delivered = 0;
    size_t off = 0;

    /* Nothing has arrived yet: no buffer (memchr of NULL is undefined). */
    if (!w->line.p)
        return 0;
    while (!w->state) {
        struct etcd_watch_resp r;
        size_t n, at;
        int rc;

        if (w->json) {
            char *nl = memchr(w->line.p + off, '\n', w->line.len - off);

            if (!nl)
                break;
            n = (size_t)(nl - (w->line.p + off));
            if (n == 0 || (n == 1 && w->line.p[off] == '\r')) {
                off += n + 1;
                continue;
            }
            rc = etcd_decode_watch(w->line.p + off, n, &r, w->err);
            off += n + 1;
        } else {
            long took = etcd_pb_frame((const uint8_t *)w->line.p + off, w->line.len - off,
                                      &at, &n);
            if (took == 0)
                break;
            if (took < 0) {
                fmt(w->err, "etcd watch: %s", took == -EMSGSIZE
                    ? "a message over its bound" : "a compressed or malformed gRPC frame");
                w->state = (int)took;
                break;
            }
            rc = etcd_pb_decode_watch((const uint8_t *)w->line.p + off + at, n, &r, w->err);
            off += (size_t)took;
        }
        if (rc < 0) {
            w->state = rc;
            etcd_watch_resp_free(&r);
            break;
        }
        if (r.compact_revision > 0) {
            w->compact_rev = r.compact_revision;
            fmt(w->err, "etcd watch: revision compacted (compaction at %lld)",
                (long long)r.compact_revision);
        } else if (r.canceled) {
            fmt(w->err, "etcd watch: canceled: %s",
                r.cancel_reason[0] ? r.cancel_reason : "no reason given");
        }
        w->state = etcd_watch_end(&r);
        if (!w->created) {
            w->created = r.created;
        } else {
            w->cb(w->arg, &r);
            delivered++;
        }
        etcd_watch_resp_free(&r);
        if (until_created && w->created)
            break;
    }
    memmove(w->line.p, w->line.p + off, w->line.len - off);
    w->line.len -= off;
    return delivered;
}

/* Runs the transfer for up to timeout_ms, or until something is decoded. */
static int watch_run(struct etcd_watch *w, unsigned timeout_ms, bool until_created)
{
    uint64_t deadline = ofcd_clock_mono_ms() + timeout_ms;
    int delivered = 0;

    for (;;) {
        int running = 0;
        CURLMsg *msg;
        int left_msgs;

        if (curl_multi_perform(w->m, &running) != CURLM_OK && !w->state) {
            fmt(w->err, "etcd watch: libcurl multi failed");
            w->state = -EIO;
        }
        delivered += watch_drain(w, until_created);
        while (!w->state && (msg = curl_multi_info_read(w->m, &left_msgs))) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            if (w->line.over) {
                fmt(w->err, "etcd watch: more than %zu bytes held for one message",
                    w->line.max);
                w->state = -EMSGSIZE;
            } else if (!w->json && w->gs.has && w->gs.code) {
                /* A refused stream: etcd says why in its status. */
                fmt(w->err, "etcd watch: %s (gRPC status %ld)",
                    w->gs.message[0] ? w->gs.message : "no message", w->gs.code);
                w->state = etcd_grpc_errno(w->gs.code, w->gs.message);
                if (w->state == -EIO || w->state == -EAGAIN)
                    w->state = -ECONNRESET;
            } else {
                fmt(w->err, "etcd watch: stream ended: %s",
                    curl_easy_strerror(msg->data.result));
                w->state = msg->data.result == CURLE_COULDNT_CONNECT ? -ECONNREFUSED
                                                                     : -ECONNRESET;
            }
        }
        if (w->state || delivered || (until_created && w->created))
            return delivered;
        uint64_t now = ofcd_clock_mono_ms();
        if (now >= deadline)
            return 0;
        curl_multi_poll(w->m, NULL, 0, (int)(deadline - now), NULL);
    }
}

static void watch_free(struct etcd_watch *w)
{
    if (w->m && w->h)
        curl_multi_remove_handle(w->m, w->h);
    if (w->h)
        curl_easy_cleanup(w->h);
    if (w->m)
        curl_multi_cleanup(w->m);
    curl_slist_free_all(w->hdrs);
    etcd_pb_free(&w->req);
    free(w->line.p);
    free(w);
}

/* The gRPC watch's side of the stream: the create request, then a pause
 * that keeps the stream open (returning 0 would end it, and etcd ends a
 * watch whose client is done). */
static size_t watch_send(char *out, size_t size, size_t n, void *arg)
{
    struct etcd_watch *w = arg;
    size_t left = w->req.len - w->req_sent, take = size * n < left ? size * n : left;

    if (!left)
        return CURL_READFUNC_PAUSE;
    memcpy(out, w->req.p + w->req_sent, take);
    w->req_sent += take;
    return take;
}

static int watch_open_one(struct etcd_client *c, size_t i, const char *body,
                          const struct etcd_pb *req, etcd_watch_cb cb, void *arg,
                          struct etcd_watch **out, int64_t *compact_rev)
{
    struct etcd_watch *w = calloc(1, sizeof(*w));
    char url[ETCD_URL_MAX + 64];

    if (!w || !(w->m = curl_multi_init()) || !(w->h = curl_easy_init()) ||
        !(w->hdrs = headers(c, c->json, true)) ||
        (!c->json && !(w->req.p = malloc(req->len)))) {
        if (w)
            watch_free(w);
        fmt(c->err, "etcd watch: out of memory");
        return -ENOMEM;
    }
    w->cb = cb;
    w->arg = arg;
    w->json = c->json;
    /* gRPC: a whole message may wait beside the start of the next. */
    w->line.max = c->json ? ETCD_WATCH_LINE_MAX : 2 * (ETCD_PB_FRAME_HEAD + ETCD_PB_MSG_MAX);
    snprintf(url, sizeof(url), "%s%s", c->url[i], c->json ? ETCD_PATH_WATCH : ETCD_GRPC_WATCH);
    common_opts(c, w->h);
    curl_easy_setopt(w->h, CURLOPT_URL, url);
    curl_easy_setopt(w->h, CURLOPT_HTTPHEADER, w->hdrs);
    if (c->json) {
        curl_easy_setopt(w->h, CURLOPT_COPYPOSTFIELDS, body);
    } else {
        memcpy(w->req.p, req->p, req->len);
        w->req.len = w->req.cap = req->len;
        curl_easy_setopt(w->h, CURLOPT_POST, 1L);
        curl_easy_setopt(w->h, CURLOPT_READFUNCTION, watch_send);
        curl_easy_setopt(w->h, CURLOPT_READDATA, w);
        grpc_opts(w->h, c->url[i], &w->gs);
    }
    curl_easy_setopt(w->h, CURLOPT_CONNECTTIMEOUT_MS, (long)c->connect_ms);
    /* A peer that vanishes without a FIN is noticed by TCP keepalive. */
    curl_easy_setopt(w->h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(w->h, CURLOPT_TCP_KEEPIDLE, 5L);
    curl_easy_setopt(w->h, CURLOPT_TCP_KEEPINTVL, 2L);
    curl_easy_setopt(w->h, CURLOPT_WRITEFUNCTION, buf_write);
    curl_easy_setopt(w->h, CURLOPT_WRITEDATA, &w->line);
    if (curl_multi_add_handle(w->m, w->h) != CURLM_OK) {
        watch_free(w);
        fmt(c->err, "etcd watch: libcurl refused the handle");
        return -EIO;
    }
    watch_run(w, c->timeout_ms, true);
    if (w->created && !w->state) {
        *out = w;
        c->err[0] = 0;
        return 0;
    }
    int rc = w->state ? w->state : -ETIMEDOUT;
    if (!w->state)
        fmt(w->err, "etcd watch %s: not created within %u ms", c->url[i], c->timeout_ms);
    if (compact_rev)
        *compact_rev = w->compact_rev;
    snprintf(c->err, sizeof(c->err), "%s", w->err);
    watch_free(w);
    return rc;
}

int etcd_watch_open(struct etcd_client *c, const struct etcd_watch_req *req, etcd_watch_cb cb,
                    void *arg, struct etcd_watch **out, int64_t *compact_rev)
{
    struct etcd_pb pb = {0};
    char *body = NULL;
    int rc;

    *out = NULL;
    if (compact_rev)
        *compact_rev = 0;
    if ((rc = c->json ? etcd_req_watch(req, &body) : etcd_pb_req_watch(req, &pb)) < 0) {
        fmt(c->err, "etcd watch: request not built: %s", strerror(-rc));
        return rc;
    }
    if (c->user && !c->token[0] && (rc = authenticate(c)) < 0) {
        free(body);
        etcd_pb_free(&pb);
        return rc;
    }
    /* Like a call: the next endpoint only when this one cannot be reached;
     * a token etcd no longer takes is renewed once. */
    bool renewed = false;
    for (size_t tries = 0; tries < c->n_url; tries++) {
        size_t i = (c->cur + tries) % c->n_url;

        rc = watch_open_one(c, i, body, &pb, cb, arg, out, compact_rev);
        if (rc == -EPERM && c->user && !renewed) {
            renewed = true;
            if ((rc = authenticate(c)) < 0)
                break;
            rc = watch_open_one(c, i, body, &pb, cb, arg, out, compact_rev);
        }
        if (rc == 0)
            c->cur = i;
        if (rc != -ECONNREFUSED)
            break;
    }
    free(body);
    etcd_pb_free(&pb);
    return rc;
}

int etcd_watch_poll(struct etcd_watch *w, unsigned timeout_ms)
{
    int n;

    if (w->state)
        return w->state;
    n = watch_run(w, timeout_ms, false);
    return n ? n : w->state;
}

const char *etcd_watch_error(const struct etcd_watch *w)
{
    return w->err;
}

void etcd_watch_close(struct etcd_watch *w)
{
    if (w)
        watch_free(w);
}
