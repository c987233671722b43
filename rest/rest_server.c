/* rest_server: the daemon, the route table and the reply plumbing. */
#include "rest.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <microhttpd.h>

#include "ofcd_log.h"
#include "rest_priv.h"

struct rest_route {
    const char *path;        /* exact path, or a prefix when it ends with '/' */
    const char *method;
    void (*handler)(struct rest_req *q, struct rest_reply *r);
};

/* One table: a new endpoint is a new row (no strcmp chains). */
static const struct rest_route routes[] = {
    {"/api/v1/switches", "GET", rest_get_switches},
    {"/api/v1/switches/", "GET", rest_get_switch},
    {"/api/v1/health", "GET", rest_get_health},
    {"/metrics", "GET", rest_get_metrics},
};

uint64_t rest_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void rest_error(struct rest_reply *r, unsigned status, const char *fmt, ...)
{
    char msg[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    json_decref(r->json);
    r->status = status;
    r->json = json_pack("{s:i, s:s}", "code", (int)status, "description", msg);
}

static void dispatch(struct rest_req *q, struct rest_reply *r)
{
    bool path_known = false;

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
    if (path_known)
        rest_error(r, 405, "method %s not allowed on %s", q->method, q->path);
    else
        rest_error(r, 404, "no such resource: %s", q->path);
}

static unsigned code_bucket(unsigned status)
{
    return status < 300 ? 0 : status < 400 ? 1 : status == 404 ? 3 : status == 405 ? 4
           : status < 500 ? 2 : 5;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_size,
                                  void **con_cls)
{
    struct rest_server *rs = cls;
    struct rest_req q = {.rs = rs, .method = method, .path = url};
    struct rest_reply r = {.status = 500};

    (void)version;
    (void)upload_data;
    /* The first call only announces the request; bodies are not taken yet
     * (every endpoint is a GET), so answer on the second. */
    if (*con_cls == NULL) {
        *con_cls = rs;
        return MHD_YES;
    }
    if (*upload_size) {
        *upload_size = 0;       /* a body on a GET: ignored, the answer follows */
        return MHD_YES;
    }
    dispatch(&q, &r);

    struct MHD_Response *resp;
    if (r.text) {
        resp = MHD_create_response_from_buffer(r.text_len, r.text, MHD_RESPMEM_MUST_FREE);
        MHD_add_response_header(resp, "Content-Type", "text/plain; version=0.0.4");
    } else {
        char *body = r.json ? json_dumps(r.json, JSON_COMPACT) : NULL;
        if (!body)
            body = strdup("{\"code\":500,\"description\":\"out of memory\"}");
        resp = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
        MHD_add_response_header(resp, "Content-Type", "application/json");
    }
    json_decref(r.json);
    enum MHD_Result ret = MHD_queue_response(conn, r.status, resp);
    MHD_destroy_response(resp);
    __atomic_fetch_add(&rs->requests[code_bucket(r.status)], 1, __ATOMIC_RELAXED);
    return ret;
}

struct rest_server *rest_start(struct app_ctx *app)
{
    const struct ofcd_config *cfg = &app->cfg;
    struct rest_server *rs = calloc(1, sizeof(*rs));

    if (!rs) {
        LOG_ERR("rest", "out of memory");
        return NULL;
    }
    rs->app = app;
    pthread_mutex_init(&rs->lock, NULL);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(cfg->rest_port),
                             .sin_addr.s_addr = htonl(cfg->rest_ip)};
    rs->mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
                                   MHD_USE_ERROR_LOG,
                               cfg->rest_port, NULL, NULL, on_request, rs,
                               MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                               MHD_OPTION_THREAD_POOL_SIZE, (unsigned)2,
                               MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
                               MHD_OPTION_END);
    if (!rs->mhd) {
        LOG_ERR("rest", "cannot serve HTTP on %u.%u.%u.%u:%u (address in use or not "
                "local?); change rest.listen", cfg->rest_ip >> 24, (cfg->rest_ip >> 16) & 255,
                (cfg->rest_ip >> 8) & 255, cfg->rest_ip & 255, cfg->rest_port);
        pthread_mutex_destroy(&rs->lock);
        free(rs);
        return NULL;
    }
    LOG_INFO("rest", "REST API on http://%u.%u.%u.%u:%u/api/v1/", cfg->rest_ip >> 24,
             (cfg->rest_ip >> 16) & 255, (cfg->rest_ip >> 8) & 255, cfg->rest_ip & 255,
             cfg->rest_port);
    return rs;
}

void rest_stop(struct rest_server *rs)
{
    if (!rs)
        return;
    MHD_stop_daemon(rs->mhd);
    pthread_mutex_destroy(&rs->lock);
    free(rs);
}
