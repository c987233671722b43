/* control: see control.h. */
#include "control.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>

#include "flowmgr.h"
#include "lcore.h"
#include "ofcd_log.h"

void control_signal_set(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGUSR1);
    sigaddset(set, SIGUSR2);
}

static uint64_t mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

struct stats_line {
    char buf[1024];
    size_t len;
};

static void stats_append(const char *name, const char *help, uint64_t value, void *arg)
{
    struct stats_line *line = arg;

    (void)help;
    if (value == 0 || line->len >= sizeof(line->buf))
        return;
    int n = snprintf(line->buf + line->len, sizeof(line->buf) - line->len, " %s=%lu", name,
                     (unsigned long)value);
    if (n > 0)
        line->len += (size_t)n;
}

static void log_msgq(const char *who, unsigned id, const char *name, const struct msgq_stats *q)
{
    LOG_INFO("stats", "%s %u %s: depth P0..P3 %u/%u/%u/%u (max %u/%u/%u/%u), enqueued "
             "%lu/%lu/%lu/%lu, failed %lu/%lu/%lu/%lu, starvation serves %lu/%lu/%lu", who, id, name,
             q->depth[0], q->depth[1], q->depth[2], q->depth[3], q->depth_max[0],
             q->depth_max[1], q->depth_max[2], q->depth_max[3], (unsigned long)q->enqueued[0],
             (unsigned long)q->enqueued[1], (unsigned long)q->enqueued[2],
             (unsigned long)q->enqueued[3], (unsigned long)q->enqueue_failed[0],
             (unsigned long)q->enqueue_failed[1], (unsigned long)q->enqueue_failed[2],
             (unsigned long)q->enqueue_failed[3], (unsigned long)q->starved_serves[1],
             (unsigned long)q->starved_serves[2], (unsigned long)q->starved_serves[3]);
}

void control_log_stats(struct app_ctx *app)
{
    struct port_stats ps;

    if (app->port && port_get_stats(app->port, &ps) == 0)
        LOG_INFO("stats", "port %s: rx %lu pkts %lu bytes, tx %lu pkts %lu bytes, rx_missed "
                 "%lu, rx_errors %lu, tx_errors %lu, tx_refused %lu", app->port->name,
                 (unsigned long)ps.rx_packets, (unsigned long)ps.rx_bytes,
                 (unsigned long)ps.tx_packets, (unsigned long)ps.tx_bytes,
                 (unsigned long)ps.rx_missed, (unsigned long)ps.rx_errors,
                 (unsigned long)ps.tx_errors, (unsigned long)ps.tx_refused);

    if (app->ctl) {
        struct ctl_switches_stats cs;
        pthread_mutex_lock(&app->ctl_lock);
        ctl_switches_get_stats(app->ctl, &cs);
        pthread_mutex_unlock(&app->ctl_lock);
        LOG_INFO("stats", "control: switches known=%u up=%u, events=%lu ups=%lu downs=%lu "
                 "stats_replies=%lu undecodable=%lu", cs.known, cs.up,
                 (unsigned long)cs.events, (unsigned long)cs.ups, (unsigned long)cs.downs,
                 (unsigned long)cs.stats_replies, (unsigned long)cs.undecodable);
        if (app->events) {
            struct msgq_stats es;
            msgq_get_stats(app->events, &es);
            log_msgq("control", 0, "events", &es);
        }
    }
    for (unsigned id = 0; id < RTE_MAX_LCORE; id++) {
        struct lcore_ctx *lc = app->lcores[id];
        struct lcore_snapshot snap;

        if (!lc)
            continue;
        lcore_read_snapshot(lc, &snap);
        LOG_INFO("stats", "lcore %u: loops %lu, rx %lu, rx_unusable %lu, tx %lu, tx_dropped "
                 "%lu, tx_alloc_failed %lu, idle_sleeps %lu", id,
                 (unsigned long)snap.lcore.loops, (unsigned long)snap.lcore.rx_packets,
                 (unsigned long)snap.lcore.rx_unusable, (unsigned long)snap.lcore.tx_packets,
                 (unsigned long)snap.lcore.tx_dropped, (unsigned long)snap.lcore.tx_alloc_failed,
                 (unsigned long)snap.lcore.idle_sleeps);
        if (lc->role_worker) {
            const struct of_worker_stats *ow = &snap.of_worker;
            LOG_INFO("stats", "lcore %u openflow worker: switches_up=%u known=%u conns=%u "
                     "established=%lu replaced=%lu msgs=%lu malformed=%lu "
                     "malformed_disconnects=%lu errors_from_switches=%lu held=%lu "
                     "port_status=%lu packet_in=%lu echo_timeouts=%lu handshake_timeouts=%lu "
                     "out_backlogged=%lu no_buffer=%lu events=%lu events_lost=%lu "
                     "polls_sent=%lu polls_skipped=%lu", id, ow->switches_up,
                     ow->switches_known, ow->conns, (unsigned long)ow->switches_established,
                     (unsigned long)ow->switches_replaced, (unsigned long)ow->msgs,
                     (unsigned long)ow->malformed, (unsigned long)ow->malformed_disconnects,
                     (unsigned long)ow->errors_from_switches, (unsigned long)ow->held,
                     (unsigned long)ow->port_status, (unsigned long)ow->packet_in,
                     (unsigned long)ow->echo_timeouts,
                     (unsigned long)ow->handshake_timeouts, (unsigned long)ow->out_backlogged,
                     (unsigned long)ow->no_buffer, (unsigned long)ow->events,
                     (unsigned long)ow->events_lost, (unsigned long)ow->polls_sent,
                     (unsigned long)ow->polls_skipped);
            log_msgq("lcore", id, "msg_in", &snap.msg_in);
        }
        if (!lc->role_io)
            continue;
        log_msgq("lcore", id, "msg_out", &snap.msg_out);
        struct stats_line line = {.len = 0};
        line.buf[0] = '\0';
        net_stats_foreach(&snap.net, stats_append, &line);
        LOG_INFO("stats", "lcore %u net:%s", id, line.len ? line.buf : " (no frames)");
        char states[256] = "";
        size_t off = 0;
        for (int st = TCP_LISTEN; st < TCP_STATE_COUNT && off < sizeof(states); st++)
            if (snap.tcp_states[st])
                off += (size_t)snprintf(states + off, sizeof(states) - off, " %s=%u",
                                        tcp_state_name((enum tcp_state)st), snap.tcp_states[st]);
        LOG_INFO("stats", "lcore %u tcp: conns=%u%s chunks_free=%u (idle connection costs %zu "
                 "bytes)", id, snap.tcp_conns, states, snap.tcp_chunks_free,
                 tcp_conn_idle_bytes());
        if (snap.connector_attempts)
            LOG_INFO("stats", "lcore %u tcp connector: attempts=%lu established=%lu "
                     "failures=%lu disconnects=%lu next_backoff_ms=%u", id,
                     (unsigned long)snap.connector_attempts,
                     (unsigned long)snap.connector_established,
                     (unsigned long)snap.connector_failures,
                     (unsigned long)snap.connector_disconnects, snap.connector_backoff_ms);
        line.len = 0;
        line.buf[0] = '\0';
        tcp_stats_foreach(&snap.tcp, stats_append, &line);
        LOG_INFO("stats", "lcore %u tcp counters:%s", id, line.len ? line.buf : " (none)");
        const struct of_io_stats *oi = &snap.of_io;
        LOG_INFO("stats", "lcore %u openflow io: switch_conns=%u accepted=%lu closed=%lu "
                 "msgs_in=%lu msgs_out=%lu echo_inline=%lu in_blocked=%lu out_stale=%lu "
                 "out_backlog_drops=%lu bad_framing=%lu no_buffer=%lu", id, snap.of_conns,
                 (unsigned long)oi->conns_accepted, (unsigned long)oi->conns_closed,
                 (unsigned long)oi->msgs_in, (unsigned long)oi->msgs_out,
                 (unsigned long)oi->echo_inline, (unsigned long)oi->in_blocked,
                 (unsigned long)oi->out_stale, (unsigned long)oi->out_backlog_drops,
                 (unsigned long)oi->bad_framing, (unsigned long)oi->no_buffer);
        LOG_INFO("stats", "lcore %u arp: %u entries, hits %lu, misses %lu, updates %lu, "
                 "evictions %lu, expirations %lu", id, snap.arp_entries,
                 (unsigned long)snap.arp.hits, (unsigned long)snap.arp.misses,
                 (unsigned long)snap.arp.updates, (unsigned long)snap.arp.evictions,
                 (unsigned long)snap.arp.expirations);
    }
}

static void control_watch_link(struct app_ctx *app, int *last)
{
    uint32_t speed = 0;
    int up = port_ethdev_link(app->port, &speed);

    if (up < 0 || up == *last)
        return;
    if (*last >= 0) {
        if (up)
            LOG_INFO("port", "%s: link up, %u Mbps", app->port->name, speed);
        else
            LOG_WARN("port", "%s: link down", app->port->name);
    }
    *last = up;
}

/* Drain what the workers report into the control thread's switch view. */
static void control_drain_events(struct app_ctx *app)
{
    struct qmsg *m[64];
    unsigned n;

    if (!app->events)
        return;
    while ((n = msgq_dequeue_burst(app->events, m, 64, rte_get_tsc_cycles())) > 0) {
        /* The flow manager first: once the REST view shows a switch up or
         * down, flow requests for it see the same. */
        if (app->fm)
            for (unsigned i = 0; i < n; i++)
                flowmgr_on_event(app->fm, m[i]);
        pthread_mutex_lock(&app->ctl_lock);
        for (unsigned i = 0; i < n; i++)
            ctl_switches_handle(app->ctl, m[i]);
        pthread_mutex_unlock(&app->ctl_lock);
        for (unsigned i = 0; i < n; i++)
            qmsg_free(app->qpool, m[i]);
    }
}

static void *control_main(void *arg)
{
    struct app_ctx *app = arg;
    const uint64_t interval_ms = (uint64_t)app->cfg.stats_log_interval_s * 1000u;
    uint64_t next_stats = mono_ms() + interval_ms;
    int link = -1;
    sigset_t set;

    control_signal_set(&set);
    control_watch_link(app, &link);
    while (!atomic_load(&app->stop)) {
        struct timespec wait = {.tv_sec = 0, .tv_nsec = CONTROL_WAKE_MS * 1000000L};
        int sig = sigtimedwait(&set, NULL, &wait);

        if (sig == SIGINT || sig == SIGTERM) {
            LOG_INFO("control", "%s received: stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
            atomic_store(&app->stop, true);
            break;
        }
        if (sig == SIGUSR1)
            control_log_stats(app);
        control_drain_events(app);
        if (app->fm)
            flowmgr_tick(app->fm);
        if (sig == SIGUSR2) {
            atomic_fetch_add(&app->dump_conns, 1);
            if (app->ctl) {
                pthread_mutex_lock(&app->ctl_lock);
                ctl_switches_log(app->ctl);
                pthread_mutex_unlock(&app->ctl_lock);
            }
        }
        if (interval_ms && mono_ms() >= next_stats) {
            control_log_stats(app);
            next_stats += interval_ms;
        }
        control_watch_link(app, &link);
    }
    return NULL;
}

int control_start(struct app_ctx *app, const cpu_set_t *cpus)
{
    pthread_attr_t attr;
    int rc = pthread_attr_init(&attr);

    if (rc)
        return -rc;
    /* Not the main lcore's core only: the control thread floats over the
     * CPUs ofcd was given, so it never steals a poll loop's core for good. */
    rc = pthread_attr_setaffinity_np(&attr, sizeof(*cpus), cpus);
    if (rc == 0)
        rc = pthread_create(&app->control, &attr, control_main, app);
    pthread_attr_destroy(&attr);
    if (rc)
        return -rc;
    pthread_setname_np(app->control, "ofcd-control");
    app->control_started = true;
    return 0;
}

void control_stop(struct app_ctx *app)
{
    if (!app->control_started)
        return;
    atomic_store(&app->stop, true);
    pthread_join(app->control, NULL);
    app->control_started = false;
}
