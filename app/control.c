/* control: see control.h. */
#include "control.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "fm.h"
#include "fm_change.h"
#include "ofcd_clock.h"
#include "ofcd_counters_ctl.h"
#include "ofcd_ctl_server.h"
#include "ofcd_log.h"
#include "port.h"
#include "store.h"
#include "capture.h"
#include "events_pub.h"
#include "reload.h"

void control_signal_set(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGUSR1);
    sigaddset(set, SIGUSR2);
    sigaddset(set, SIGHUP);
}

static uint64_t mono_ms(void)
{
    return ofcd_clock_mono_ms();
}

/* One log line per counter set, as counters/show writes it. */
static void log_set(void *arg, const struct ofcd_counter_group *g, const char *labels,
                    const uint64_t *values)
{
    char line[4096];

    (void)arg;
    ofcd_counter_set_format(line, sizeof(line), g, labels, values);
    LOG_INFO("stats", "%s", line);
}

static void log_msgq(const char *who, unsigned id, const char *name, const struct msgq_stats *q)
{
    char line[512];

    app_format_ring(line, sizeof(line), who, id, name, q);
    LOG_INFO("stats", "%s", line);
}

static void log_ring(void *arg, unsigned lcore, const char *ring, const struct msgq_stats *q)
{
    (void)arg;
    log_msgq("lcore", lcore, ring, q);
}

void control_log_stats(struct app_ctx *app)
{
    app_visit_counters(app, log_set, NULL);
    app_visit_rings(app, log_ring, NULL);
    if (app->events) {
        struct msgq_stats es;
        msgq_get_stats(app->events, &es);
        log_msgq("control", 0, "events", &es);
    }
    LOG_INFO("stats", "an idle TCP connection costs %zu bytes", tcp_conn_idle_bytes());
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

/* Once a second: forget the switches gone longer than openflow.forget_after_s
 * from the view (and so from /metrics), on the workers' clock. */
static void control_forget(struct app_ctx *app, uint64_t *next_us)
{
    uint64_t now = lcore_clock_us();

    if (!app->ctl || !app->cfg.of_forget_after_s || now < *next_us)
        return;
    *next_us = now + 1000000u;
    pthread_mutex_lock(&app->ctl_lock);
    sw_view_forget(app->ctl, now, (uint64_t)app->cfg.of_forget_after_s * 1000000u);
    pthread_mutex_unlock(&app->ctl_lock);
}

/* Once a minute (or once per retention, when shorter): purge the deleted
 * flows older than flow_manager.deleted_retention_s (queued to the store,
 * never waited for). */
static void control_purge_deleted(struct app_ctx *app, uint64_t *next_ms)
{
    uint64_t now = mono_ms();
    uint64_t every_ms = (uint64_t)app->cfg.fm_deleted_retention_s * 1000u;

    if (!app->fm || !every_ms || now < *next_ms)
        return;
    *next_ms = now + (every_ms < 60000u ? every_ms : 60000u);
    uint64_t real_ns = ofcd_clock_wall_ns();
    uint64_t keep_ns = (uint64_t)app->cfg.fm_deleted_retention_s * 1000000000u;
    if (real_ns > keep_ns && fm_change_purge_deleted(app->fm, real_ns - keep_ns) < 0)
        *next_ms = now + 1000u;              /* queue full: try again soon */
}

/* The lcores' log lines, which wait in their rings so no poll loop blocks
 * on stderr. */
static void control_drain_logs(struct app_ctx *app)
{
    for (unsigned id = 0; id < RTE_MAX_LCORE; id++)
        if (app->lcores[id].lc)
            lcore_drain_log(app->lcores[id].lc, stderr);
}

/* Every CONTROL_KEEPALIVE_MS: a comment on every event stream, so proxies
 * and the server's inactivity timeout leave idle streams open. */
#define CONTROL_KEEPALIVE_MS 10000u
static void control_keepalive(struct app_ctx *app, uint64_t *next_ms)
{
    uint64_t now = mono_ms();

    if (!app->stream || now < *next_ms)
        return;
    *next_ms = now + CONTROL_KEEPALIVE_MS;
    rest_events_keepalive(app->stream);
}

/* Every app whose on_stop is done (a cluster node: its switches handed
 * over)? Asked each pass while the appliance stops. */
static bool apps_stopped(struct app_ctx *app)
{
    bool done = true;

    for (unsigned i = 0; i < app->n_inst; i++)
        if (app->inst[i].cls->on_stop && app->inst[i].cls->on_stop(app->inst[i].self) > 0)
            done = false;
    return done;
}

/* Each app's control-thread timeouts. */
static void control_apps_tick(struct app_ctx *app)
{
    uint64_t now = lcore_clock_us();

    for (unsigned i = 0; i < app->n_inst; i++)
        if (app->inst[i].cls->on_tick)
            app->inst[i].cls->on_tick(app->inst[i].self, now);
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
                fm_on_event(app->fm, m[i]);
        uint64_t now = lcore_clock_us();
        pthread_mutex_lock(&app->ctl_lock);
        for (unsigned i = 0; i < n; i++) {
            sw_view_handle(app->ctl, m[i]);
            for (unsigned a = 0; a < app->n_inst; a++)
                if (app->inst[a].cls->on_event_locked)
                    app->inst[a].cls->on_event_locked(app->inst[a].self, m[i], now);
        }
        pthread_mutex_unlock(&app->ctl_lock);
        for (unsigned i = 0; i < n; i++) {
            for (unsigned a = 0; a < app->n_inst; a++)
                if (app->inst[a].cls->on_event)
                    app->inst[a].cls->on_event(app->inst[a].self, m[i], now);
            events_pub_worker_event(app->stream, m[i]);
            capture_on_worker_event(app, m[i]);
            qmsg_free(m[i]);
        }
    }
}

static bool events_waiting(const struct app_ctx *app)
{
    for (unsigned c = 0; app->events && c < MSGQ_CLASSES; c++)
        if (msgq_count(app->events, c))
            return true;
    return false;
}

/* What the control thread sleeps on: the workers' doorbell, then
 * ofcdctl's listener and clients. */
struct control_fds {
    struct pollfd fds[1 + OFCD_CTL_POLLFDS];
    unsigned n_ctl;                     /* the command socket's, after fds[0] */
};

/* Sleep until the workers' doorbell, a command client or timeout_ms, then
 * take one pending signal of set (0 = none). Signals are not waited for: a
 * signalfd in the poll would wake this thread for every signal the process
 * gets — DPDK's tap raises one per received frame, thousands a second — so
 * they are taken at the next wake-up, within CONTROL_WAKE_MS. */
static int control_sleep(struct app_ctx *app, const sigset_t *set, bool armed, int timeout_ms,
                         struct control_fds *cf, bool *rung)
{
    const struct timespec now = {0, 0};

    cf->fds[0] = (struct pollfd){.fd = armed ? app->events_bell.fd : -1, .events = POLLIN};
    cf->n_ctl = app->cmd_srv ? ofcd_ctl_server_fds(app->cmd_srv, cf->fds + 1) : 0;
    int ready = poll(cf->fds, 1 + cf->n_ctl, timeout_ms);
    if (ready < 0)
        cf->n_ctl = 0;                  /* EINTR: nothing to serve but the time */
    *rung = ready > 0 && (cf->fds[0].revents & POLLIN);
    int sig = sigtimedwait(set, NULL, &now);
    return sig > 0 ? sig : 0;
}

/* Work that runs on the timer (CONTROL_WAKE_MS), not on every event. */
static void control_periodic(struct app_ctx *app, int *link, uint64_t *next_forget_us,
                             uint64_t *next_purge_ms, uint64_t *next_keepalive_ms)
{
    if (app->fm)
        fm_tick(app->fm);
    control_watch_link(app, link);
    control_forget(app, next_forget_us);
    control_apps_tick(app);
    control_keepalive(app, next_keepalive_ms);
    control_purge_deleted(app, next_purge_ms);
    capture_freeze_tick(app);
}

/* SIGHUP (systemctl reload): the configuration read again; systemd hears
 * of the reload's start and end. */
static void control_reload(struct app_ctx *app)
{
    struct reload_result res;
    char report[1024], status[128];

    ofcd_sd_notify_send(&app->notify, "RELOADING=1\nSTATUS=reloading the configuration");
    int rc = reload_config(app, &res, report, sizeof(report));
    if (rc < 0)
        snprintf(status, sizeof(status), "reload refused (see the log); running as before");
    else
        snprintf(status, sizeof(status), "reloaded: %u key(s) applied, %u at the next restart",
                 res.applied, res.at_restart);
    ofcd_sd_notify_send(&app->notify, "READY=1\nSTATUS=%s", status);
}

static void *control_main(void *arg)
{
    struct app_ctx *app = arg;
    uint64_t interval_ms = (uint64_t)app->cfg.stats_log_interval_s * 1000u;
    uint64_t next_stats = mono_ms() + interval_ms;
    int link = -1;
    uint64_t next_forget_us = 0;
    uint64_t next_purge_ms = 0;
    uint64_t next_keepalive_ms = mono_ms() + CONTROL_KEEPALIVE_MS;
    uint64_t next_periodic_ms = 0, last_rung_ms = 0, stop_by_ms = 0;
    sigset_t set;

    control_signal_set(&set);
    control_watch_link(app, &link);
    while (!atomic_load(&app->stop)) {
        uint64_t now = mono_ms();
        /* The doorbell wakes at most once per CONTROL_BELL_MIN_MS: under a
         * flood of events the thread drains in batches, not one by one. */
        bool armed = now - last_rung_ms >= CONTROL_BELL_MIN_MS;
        int timeout = next_periodic_ms > now ? (int)(next_periodic_ms - now) : 0;
        if (armed) {
            ofcd_doorbell_arm(&app->events_bell);
            if (events_waiting(app))
                timeout = 0;              /* came between the last drain and the arming */
        } else if (timeout > CONTROL_BELL_MIN_MS) {
            timeout = CONTROL_BELL_MIN_MS;
        }
        if (stop_by_ms && timeout > CONTROL_STOP_POLL_MS)
            timeout = CONTROL_STOP_POLL_MS;   /* handing over: look again soon */
        bool rung;
        struct control_fds cf;
        int sig = control_sleep(app, &set, armed, timeout, &cf, &rung);
        if (armed)
            ofcd_doorbell_clear(&app->events_bell);
        if (rung)
            last_rung_ms = mono_ms();
        /* ofcdctl: what is ready, deferred answers, clients out of time;
         * nothing here waits on a client. */
        if (app->cmd_srv)
            ofcd_ctl_server_run(app->cmd_srv, cf.fds + 1, cf.n_ctl, mono_ms());

        if ((sig == SIGINT || sig == SIGTERM) && stop_by_ms) {
            LOG_INFO("control", "%s received again: stopping now",
                     sig == SIGINT ? "SIGINT" : "SIGTERM");
            break;
        }
        if (sig == SIGINT || sig == SIGTERM) {
            LOG_INFO("control", "%s received: stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
            ofcd_sd_notify_send(&app->notify, "STOPPING=1\nSTATUS=stopping: handing the "
                                "switches over, then closing");
            stop_by_ms = mono_ms() + CONTROL_STOP_WAIT_MS;
        }
        if (sig == SIGUSR1)
            control_log_stats(app);
        if (sig == SIGHUP)
            control_reload(app);
        if ((uint64_t)app->cfg.stats_log_interval_s * 1000u != interval_ms) {
            interval_ms = (uint64_t)app->cfg.stats_log_interval_s * 1000u;   /* a reload */
            next_stats = mono_ms() + interval_ms;
        }
        control_drain_events(app);
        control_drain_logs(app);
        if (sig == SIGUSR2) {
            atomic_fetch_add(&app->dump_conns, 1);
            if (app->ctl) {
                pthread_mutex_lock(&app->ctl_lock);
                sw_view_log(app->ctl);
                pthread_mutex_unlock(&app->ctl_lock);
            }
        }
        if (interval_ms && mono_ms() >= next_stats) {
            control_log_stats(app);
            next_stats += interval_ms;
        }
        now = mono_ms();
        /* A control thread that stops looping stops this: systemd's
         * WatchdogSec then restarts the service. */
        ofcd_sd_notify_watchdog(&app->notify, now);
        if (now >= next_periodic_ms) {
            next_periodic_ms = now + CONTROL_WAKE_MS;
            control_periodic(app, &link, &next_forget_us, &next_purge_ms, &next_keepalive_ms);
        }
        if (stop_by_ms && (apps_stopped(app) || mono_ms() >= stop_by_ms))
            break;
    }
    atomic_store(&app->stop, true);
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
