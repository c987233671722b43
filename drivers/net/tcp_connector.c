/* tcp_connector: see tcp_connector.h. */
#include "tcp_connector.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ofcd_inet.h"
#include "ofcd_log.h"
#include "tcp_priv.h"

OFCD_COUNTER_GROUP(tcp_connector_counters, "tcp_connector", struct tcp_connector_stats,
                   TCP_CONNECTOR_COUNTERS, TCP_CONNECTOR_GAUGES);

struct tcp_connector {
    struct tcp_stack *stack;
    struct tcp_connector_cfg cfg;
    const struct tcp_conn_ops *user_ops;
    void *user;
    struct tcp_conn *conn;          /* current attempt or connection */
    bool up;                        /* conn is established */
    struct tw_timer retry;
    uint64_t rng;
    struct tcp_connector_stats stats;
};

static void try_connect(struct tcp_connector *k, uint64_t now_us);

static void schedule_retry(struct tcp_connector *k, uint64_t now_us)
{
    /* Up to 1/8 of jitter either way: thousands of connectors restarted
     * together (ovs-vswitchd restart) spread their SYNs out. */
    k->rng = k->rng * 6364136223846793005ULL + 1442695040888963407ULL;
    uint64_t base = (uint64_t)k->stats.backoff_ms * 1000u;
    uint64_t jitter = base / 4 ? (k->rng >> 33) % (base / 4) : 0;
    tw_arm(&k->stack->wheel, &k->retry, now_us + base - base / 8 + jitter);
    uint64_t next = k->stats.backoff_ms * 2;
    k->stats.backoff_ms = next > k->cfg.backoff_max_ms ? k->cfg.backoff_max_ms : next;
}

static void conn_established(struct tcp_conn *c, void *user)
{
    struct tcp_connector *k = user;

    k->up = true;
    k->stats.established++;
    k->stats.backoff_ms = k->cfg.backoff_min_ms;
    if (k->user_ops->on_established)
        k->user_ops->on_established(c, k->user);
}

static void conn_readable(struct tcp_conn *c, void *user)
{
    struct tcp_connector *k = user;

    if (k->user_ops->on_readable)
        k->user_ops->on_readable(c, k->user);
}

static void conn_writable(struct tcp_conn *c, void *user)
{
    struct tcp_connector *k = user;

    if (k->user_ops->on_writable)
        k->user_ops->on_writable(c, k->user);
}

static void conn_closed(struct tcp_conn *c, void *user, int reason)
{
    struct tcp_connector *k = user;
    bool was_up = k->up;
    char peer[OFCD_PEER_STRLEN];

    k->conn = NULL;
    k->up = false;
    if (was_up) {
        k->stats.disconnects++;
        if (k->user_ops->on_closed)
            k->user_ops->on_closed(c, k->user, reason);
    } else {
        k->stats.failures++;
    }
    LOG_DEBUG("tcp", "connector %s: %s (%s), retry in %u ms",
              ofcd_peer_format(k->cfg.ip, k->cfg.port, peer),
              was_up ? "connection closed" : "attempt failed", strerror(reason ? -reason : 0),
              (unsigned)k->stats.backoff_ms);
    schedule_retry(k, k->stack->now_us);
}

static const struct tcp_conn_ops connector_ops = {
    .on_established = conn_established,
    .on_readable = conn_readable,
    .on_writable = conn_writable,
    .on_closed = conn_closed,
};

static void try_connect(struct tcp_connector *k, uint64_t now_us)
{
    struct tcp_conn *c;
    int rc = tcp_connect(k->stack, k->cfg.ip, k->cfg.port, &connector_ops, k, now_us, &c);

    k->stats.attempts++;
    if (rc < 0) {
        k->stats.failures++;
        schedule_retry(k, now_us);
        return;
    }
    k->conn = c;
}

static void on_retry(struct tw_timer *t, uint64_t now_us)
{
    struct tcp_connector *k = tcp_container_of(t, struct tcp_connector, retry);

    try_connect(k, now_us);
}

struct tcp_connector *tcp_connector_start(struct tcp_stack *s,
                                          const struct tcp_connector_cfg *cfg,
                                          const struct tcp_conn_ops *ops, void *user,
                                          uint64_t now_us)
{
    if (!cfg->ip || !cfg->port || !ops || cfg->backoff_min_ms == 0 ||
        cfg->backoff_max_ms < cfg->backoff_min_ms) {
        LOG_ERR("tcp", "connector: need ip, port, ops and 0 < backoff_min_ms <= backoff_max_ms");
        return NULL;
    }
    struct tcp_connector *k = calloc(1, sizeof(*k));
    if (!k) {
        LOG_ERR("tcp", "connector: out of memory");
        return NULL;
    }
    k->stack = s;
    k->cfg = *cfg;
    k->user_ops = ops;
    k->user = user;
    k->rng = now_us ^ ((uint64_t)cfg->ip << 16) ^ cfg->port;
    k->stats.backoff_ms = cfg->backoff_min_ms;
    tw_timer_init(&k->retry, on_retry);
    s->now_us = now_us;
    try_connect(k, now_us);
    return k;
}

void tcp_connector_stop(struct tcp_connector *k)
{
    if (!k)
        return;
    tw_cancel(&k->stack->wheel, &k->retry);
    if (k->conn)
        tcp_abort(k->conn);
    free(k);
}

void tcp_connector_close(struct tcp_connector *k)
{
    struct tcp_conn *c = k->conn;

    if (!c)
        return;
    k->conn = NULL;
    if (k->up)
        k->stats.disconnects++;
    else
        k->stats.failures++;
    k->up = false;
    tcp_close(c);
    schedule_retry(k, k->stack->now_us);
}

struct tcp_conn *tcp_connector_conn(const struct tcp_connector *k)
{
    return k->up ? k->conn : NULL;
}

const struct tcp_connector_stats *tcp_connector_get_stats(const struct tcp_connector *k)
{
    return &k->stats;
}
