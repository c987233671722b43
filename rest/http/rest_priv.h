/*
 * rest_priv: what the REST files share — the server state, the request being
 * answered, and the handlers the route table (rest_server.c) dispatches to.
 */
#ifndef OFCD_REST_PRIV_H
#define OFCD_REST_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "sw_view.h"
#include "dpid.h"
#include "ofcd_ratelimit.h"
#include "ofcd_tbucket.h"
#include "rest.h"
#include "rest_auth.h"
#include "rest_history.h"
#include "rest_shun.h"
#include "rest_ui.h"

/* Statuses counted one by one for /metrics (anything else: its class). */
#define REST_STATUS_LIST {200, 202, 400, 404, 405, 413, 415, 424, 429, 500, 503}
#define REST_STATUSES 11
/* Request latency buckets: their upper bounds in µs (the counting and the
 * "le" of /metrics), then +Inf. */
#define REST_LAT_LE_US_LIST {1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 1000000}
#define REST_LAT_BUCKETS 10
/*
 * A deferred flow change's time, stage by stage (/metrics
 * ofcd_rest_change_stage_seconds): where a durable answer's time goes.
 * Bounds in µs, then +Inf.
 */
enum rest_stage {
    REST_STAGE_RECEIVE,                 /* headers in until the body is read */
    REST_STAGE_CHECK,                   /* parse, checks, admission */
    REST_STAGE_WAIT,                    /* queued until its commit began */
    REST_STAGE_COMMIT,                  /* its commit, sync included */
    REST_STAGE_APPLY,                   /* durable until woken: the flow manager */
    REST_STAGE_RESUME,                  /* woken until answered on an MHD thread */
    REST_STAGES
};
#define REST_STAGE_NAMES {"receive", "check", "wait", "commit", "apply", "resume"}
#define REST_STAGE_LE_US_LIST {100, 250, 500, 1000, 1500, 2000, 3000, 5000, 7500, 10000, 25000, \
                               100000}
#define REST_STAGE_BUCKETS 13
#define REST_RL_SLOTS 1024              /* clients the rate limiter remembers */
#define REST_CONN_LIMIT 4096            /* connections at once, all clients */
#define REST_MAX_LCORES 128             /* lcores health looks at */

struct rest_rl_slot {
    uint32_t addr;                      /* IPv4, host order; 0 = free */
    struct ofcd_tbucket bucket;         /* rest.rate_limit_per_s, rest.rate_burst */
};

/* The history's sampler (rest_history_http.c). */
struct rest_history_sampler {
    pthread_mutex_t lock;               /* guards ring */
    struct rest_history_ring ring;
    pthread_mutex_t stop_lock;          /* guards stop; stop_cv wakes the thread */
    pthread_cond_t stop_cv;
    bool stop, running, inited;
    pthread_t thread;
    /* the sampler thread's own: the readings the next rates start from */
    bool have_prev;
    uint64_t prev_ms;
    uint64_t prev_lat[REST_LAT_BUCKETS];
    uint64_t prev_rtt[CTL_RTT_BUCKETS];
};

struct rest_server {
    struct rest_cfg cfg;
    struct rest_sources src;            /* src.fm NULL: the flow paths answer 503 */
    struct MHD_Daemon *mhd;
    pthread_mutex_t lock;               /* guards the health history below */
    uint64_t last_loops[REST_MAX_LCORES];
    uint64_t last_change_ms[REST_MAX_LCORES];
    uint64_t health_failed_commits;     /* the store's count at the previous look */
    /* relaxed atomics */
    uint64_t by_status[REST_STATUSES];
    uint64_t other_status[6];           /* by hundreds: 0xx..5xx */
    uint64_t lat_hist[REST_LAT_BUCKETS];
    uint64_t lat_sum_us, lat_count;
    uint64_t stage_hist[REST_STAGES][REST_STAGE_BUCKETS];
    uint64_t stage_sum_us[REST_STAGES];
    pthread_mutex_t rl_lock;            /* the rate limiter's table */
    struct rest_rl_slot rl[REST_RL_SLOTS];
    pthread_mutex_t defer_lock;         /* deferred answers not yet woken: */
    pthread_cond_t defer_cv;            /* rest_stop waits for them */
    unsigned deferred;
    size_t async_flows;                 /* held by rest_hold, under defer_lock */
    bool stopping;                      /* under defer_lock: rest_stop began, defer nothing */
    struct ofcd_ratelimit async_rl;     /* the store's committer thread: changes answered
                                         * 202 before their commit, which failed */
    char *tls_cert, *tls_key;           /* PEM text handed to MHD; NULL: plain HTTP */
    struct rest_log_limit mhd_log;      /* MHD's messages, rate-limited */
    struct rest_log_limit shun_log;     /* "address shunned" lines */
    struct rest_shun shun;              /* refusals per address (its own lock) */
    struct rest_auth auth;              /* read-only once started */
    struct rest_ui ui;                  /* the dashboard's files, read-only once started */
    char ui_missing[256];               /* why there is none ("" when there is) */
    struct rest_history_sampler hist;
};

/* A response under construction: either JSON or plain text. */
struct rest_reply {
    unsigned status;
    unsigned retry_after;               /* seconds; 0 = no Retry-After header */
    const char *www_authenticate;       /* a 401's WWW-Authenticate (static text) */
    json_t *json;                       /* owned */
    char *text;                         /* owned (malloc), for /metrics */
    size_t text_len;
    const char *text_type;              /* its Content-Type (NULL: /metrics') */
    char attachment[64];                /* "": none; else its file name (a download) */
    /* Or a JSON body made piece by piece as the client reads it (large
     * answers in bounded memory): up to max bytes into buf, the count
     * returned, 0 at the end, -1 to cut the connection. stream_free(ctx)
     * once the answer is done with, sent or not. */
    ssize_t (*stream)(void *ctx, char *buf, size_t max);
    void (*stream_free)(void *ctx);
    void *stream_ctx;
    /* Or the event stream (rest_events_http.c): its client, owned. */
    void *events;
    /* Or a dashboard file (rest_ui.h), not owned; or a redirect to location. */
    const struct rest_ui_file *file;
    const char *location;
};

struct MHD_Connection;
struct rest_conn_state;

struct rest_req {
    struct rest_server *rs;
    struct MHD_Connection *conn;        /* for query arguments */
    const char *method;
    const char *path;
    const char *arg;                    /* the path after a prefix route, or NULL */
    const char *body;                   /* NUL-terminated; NULL when there was none */
    size_t body_len;
    struct rest_conn_state *st;         /* the server's state of this request */
};

/*
 * Deferred answers: a handler whose answer waits for something done on
 * another thread (a store commit) does not hold its MHD thread meanwhile.
 * It calls rest_defer(q, fn) and returns leaving r as it is; the
 * connection is suspended (its thread serves others). Once the work is
 * done, that thread calls rest_wake(token, rc); then, on an MHD thread,
 * fn(r, rc) makes the answer, which is sent as any other. rest_wake must be
 * called exactly once per rest_defer (the server waits for it to stop) and
 * may be called before the handler has returned. So the number of
 * requests waiting on one commit is bounded by the connection limit, not
 * by rest.threads.
 */
typedef void (*rest_resume_fn)(struct rest_reply *r, int rc);
/* Work a handler answered without waiting for (flow_manager.durability =
 * async) that still touches the server when it ends: rest_stop waits for
 * each rest_hold to be released, as for a deferred answer. n: the flows
 * it carries; at most REST_ASYNC_MAX_FLOWS are held at once, so clients
 * faster than the disk cannot grow the store's queue without bound: past
 * it, or while the server stops, hold is false and the handler answers
 * from the commit (rest_defer) as with durability sync. */
#define REST_ASYNC_MAX_FLOWS 65536u
bool rest_hold(struct rest_server *rs, size_t n);
void rest_release(struct rest_server *rs, size_t n);
/* NULL when the server is stopping: nothing was suspended, answer now. */
void *rest_defer(struct rest_req *q, rest_resume_fn fn);
void rest_wake(void *token, int rc);
/* rest_wake from a store completion, with the times of the commit that
 * completed the work (store_batch_times, ofcd_clock_mono_us; 0: unknown):
 * the answer's stages are then counted in /metrics. */
void rest_wake_timed(void *token, int rc, uint64_t taken_us, uint64_t durable_us);
/* The same with a context for the answer: fn(r, rc, ctx), then
 * ctx_free(ctx); ctx_free(ctx) alone if the answer is never made (the
 * client or the server went meanwhile). NULL as rest_defer's (ctx is the
 * caller's still). */
typedef void (*rest_resume_ctx_fn)(struct rest_reply *r, int rc, void *ctx);
void *rest_defer_ctx(struct rest_req *q, rest_resume_ctx_fn fn, void *ctx,
                     void (*ctx_free)(void *ctx));

void rest_error(struct rest_reply *r, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The flow manager and store are there; otherwise false with the 503 set. */
bool rest_need_fm(struct rest_req *q, struct rest_reply *r);

/* A dpid from a path or body: 0, or -EINVAL with the 400 answer set. */
int rest_dpid_arg(const char *s, uint64_t *out, struct rest_reply *r);

void rest_get_switches(struct rest_req *q, struct rest_reply *r);
void rest_get_switch(struct rest_req *q, struct rest_reply *r);
/* POST/DELETE /api/v1/switches/{dpid}/... (rest_switches.c). */
void rest_switch_write(struct rest_req *q, struct rest_reply *r);
/* /api/v1/switches/{dpid}/groups[/{id}] and meters (rest_gm.c); rest is
 * the path after "{dpid}/". */
void rest_switch_gm(struct rest_req *q, struct rest_reply *r, uint64_t dpid, const char *rest);
void rest_get_health(struct rest_req *q, struct rest_reply *r);
void rest_get_metrics(struct rest_req *q, struct rest_reply *r);
/* GET /api/v1/history and its sampler (rest_history_http.c). */
void rest_get_history(struct rest_req *q, struct rest_reply *r);
int rest_history_start(struct rest_server *rs);
void rest_history_stop(struct rest_server *rs);
/* GET /api/v1/events (rest_events_http.c) and the response it makes. */
void rest_get_events(struct rest_req *q, struct rest_reply *r);
struct MHD_Response;
struct MHD_Response *rest_events_response(struct rest_reply *r);

/* Kytos flow_manager v2 (rest_flows.c) */
void rest_flows_post(struct rest_req *q, struct rest_reply *r);
void rest_flows_delete(struct rest_req *q, struct rest_reply *r);
void rest_flows_get(struct rest_req *q, struct rest_reply *r);
void rest_flows_by_switch_post(struct rest_req *q, struct rest_reply *r);
void rest_flows_by_switch_delete(struct rest_req *q, struct rest_reply *r);
/* stored_flows and one switch's stored flows, streamed (rest_stored.c) */
void rest_stored_flows_get(struct rest_req *q, struct rest_reply *r);
/* GET /api/v1/switches/{dpid}/flows */
void rest_switch_flows_get(struct rest_req *q, struct rest_reply *r, uint64_t dpid);


uint64_t rest_now_ms(void);

/* The client's IPv4 address (host order), 0 for any other kind. */
uint32_t rest_client_ipv4(struct MHD_Connection *conn);
/* "address:port" of the client, for log lines. */
void rest_client_name(struct MHD_Connection *conn, char *out, size_t size);

#endif
