/*
 * rest: ofcd's HTTP API on libmicrohttpd (its own thread pool, epoll), JSON
 * with jansson, on rest.listen (127.0.0.1:8181 by default).
 *
 *   GET /api/v1/switches          every switch the control thread knows
 *   GET /api/v1/switches/{dpid}   one switch with its ports and each port's
 *                                 counters from the last statistics poll (dpid
 *                                 as 16 hex digits, with or without colons, or
 *                                 decimal)
 *   GET /api/v1/switches/{dpid}/flows   its stored flows and their states
 *   GET /api/v1/health            lcores alive, rings not stuck, store writable
 *   GET /metrics                  Prometheus text format
 *   GET /api/v1/history           the last 15 minutes of headline figures
 *                                 (rest_history.h), for the dashboard
 *   GET /ui/                      the dashboard (rest_ui.h); / redirects there
 *   /api/kytos/flow_manager/v2/…  the Kytos-ng flow paths (rest_flows.c)
 * Every error is JSON {"code": N, "description": "..."}.
 *
 * This is the HTTP face only: routes, parsing and rendering. What it shows
 * comes through struct rest_sources, filled by the app: the flow manager and
 * the store (thread-safe libraries), the control thread's switch view under
 * the app's lock, and callbacks for lcores, rings and counters. Handlers run
 * on MHD's threads and never touch lcore state.
 */
#ifndef OFCD_REST_H
#define OFCD_REST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "msgq.h"
#include "ofcd_counters.h"

struct sw_view;
struct fm;
struct rest_auth_stats;
struct rest_events;
struct rest_server;
struct store;

struct rest_cfg {
    uint32_t ip;                        /* host order */
    uint16_t port;
    uint32_t threads;                   /* MHD pool threads */
    uint32_t max_body_kb;               /* 413 above */
    uint32_t max_conns_per_ip;          /* connections from one address at once */
    uint32_t rate_limit_per_s;          /* per client address, 0 = off (429) */
    uint32_t rate_burst;
    uint32_t fm_queue_max;              /* named in the 503 a full switch queue answers */
    uint32_t max_flows_per_request;     /* flows x switches one request may expand to */
    bool keep_deleted;                  /* deletes keep flows in state deleted (the
                                         * control thread purges them) */
    bool answer_queued;                 /* flow_manager.durability = async: a change is
                                         * answered once queued, not once durable */
    const char *tls_cert;               /* PEM file paths, both or neither: HTTPS */
    const char *tls_key;
    bool auth;                          /* bearer tokens required (rest_auth.h) */
    unsigned token_minutes;             /* a login's token lives this long */
    unsigned login_lock_s;              /* rest_login_guard.h */
    unsigned login_track_max;
    unsigned login_concurrency;
    unsigned refused_per_s;             /* rest_shun.h; 0 = off */
    unsigned refused_burst;
    const char *users_file;             /* the users (rest_users.h) */
    const char *reader_tokens_file;     /* static reader tokens, "" = none */
    const char *data_dir;               /* where the token key lives */
    const char *ui_dir;                 /* the dashboard's files (rest_ui.h); "" or NULL:
                                         * none, /ui/ answers 404 saying so */
};

/* One lcore as health shows it. */
struct rest_lcore {
    unsigned id;
    bool io, worker;                    /* its roles */
    uint64_t loops;                     /* as last published */
    bool rings_backlog;                 /* a ring it drains holds messages */
};

typedef void (*rest_ring_fn)(void *arg, unsigned lcore, const char *ring,
                             const struct msgq_stats *q);

/*
 * An app's REST routes (the topology's, say), served after the built-in
 * table under prefix (no trailing '/'), behind the same authentication,
 * rate limit and body checks. handle runs on an MHD thread: req->arg is
 * the path after "prefix/" ("" for the prefix itself), req->body the JSON
 * body or NULL, query(req, key) a query argument or NULL. It returns the
 * HTTP status and sets *out to the JSON answer (a new reference; NULL
 * sends null). rest_ext_error makes the server's own error shape.
 */
struct rest_ext_req {
    const char *method;
    const char *path;
    const char *arg;
    const char *body;
    size_t body_len;
    const char *(*query)(const struct rest_ext_req *req, const char *key);
    /* Each query argument in turn (a key without a value: value NULL). */
    void (*query_each)(const struct rest_ext_req *req,
                       void (*fn)(void *arg, const char *key, const char *value), void *arg);
    void *conn;                         /* the server's, for query */
};

struct rest_ext {
    const char *prefix;
    void *arg;
    unsigned (*handle)(void *arg, const struct rest_ext_req *req, json_t **out);
    /* Its POSTs only read (a query with a body: pathfinder's): a reader's
     * token may make them, and a node that refuses writes answers them. */
    bool post_reads;
};

#define REST_EXT_MAX 8

/* {"code": status, "description": text}: returns status, sets *out. */
unsigned rest_ext_error(json_t **out, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

struct rest_sources {
    void *arg;
    struct fm *fm;                 /* NULL: the flow paths answer 503 */
    struct store *store;
    /* The control thread's switch view, valid until switches_unlock(). */
    const struct sw_view *(*switches_lock)(void *arg);
    void (*switches_unlock)(void *arg);
    /* Every lcore with a role, up to max; returns how many were written. */
    unsigned (*lcores)(void *arg, struct rest_lcore *out, unsigned max);
    /* Every lcore's priority rings: msg_in per worker, msg_out per io lcore. */
    void (*rings)(void *arg, rest_ring_fn fn, void *fn_arg);
    /* Every counter set of the appliance (the registry, ofcd_counters.h). */
    void (*counters)(void *arg, ofcd_counter_fn fn, void *fn_arg);
    /* Before a request that changes state (not GET/HEAD, not a login):
     * true answers 503 with why. NULL = never refused. */
    bool (*writes_refused)(void *arg, char *why, size_t len);
    /* More of GET /api/v1/health: members added to obj; *ok false
     * degrades the answer. NULL = none. */
    void (*health_more)(void *arg, json_t *obj, bool *ok);
    /* GET /api/v1/switches/{dpid}/capture[?frozen=ID] (admin only): the
     * switch's flight record (frozen 0), or its frozen copy ID, as a pcapng
     * file, malloc'd into *out (*len bytes), what it holds in note; or
     * -ENOENT (no such switch or copy, its record gone), -ENOTSUP (no
     * recorder), -EBUSY (another capture), -ETIMEDOUT, with why in note
     * (256 bytes). NULL = no recorder. */
    int (*capture)(void *arg, uint64_t dpid, uint32_t frozen, uint8_t **out, size_t *len,
                   char *note);
    /* GET /api/v1/switches/{dpid}/captures (admin only): the switch's
     * frozen copies, {"captures": [...], "max": N} (new reference; NULL
     * when out of memory). NULL = no recorder. */
    json_t *(*captures)(void *arg, uint64_t dpid);
    const struct rest_ext *ext[REST_EXT_MAX];
    unsigned n_ext;
    struct rest_events *events;         /* GET /api/v1/events; NULL = none */
    struct rest_auth_stats *auth_stats; /* logins and tokens counted (rest_auth.h);
                                         * NULL = the server's own */
};

/* Start serving; NULL (logged) when the address cannot be bound. cfg and
 * src are copied; what src points to must outlive the server. */
struct rest_server *rest_start(const struct rest_cfg *cfg, const struct rest_sources *src);
void rest_stop(struct rest_server *rs);

/* rest.rate_limit_per_s and rest.rate_burst while serving (a reload): the
 * next request of each client is measured against them. */
void rest_set_rate_limit(struct rest_server *rs, unsigned per_s, unsigned burst);

#endif
