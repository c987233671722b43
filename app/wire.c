/* wire: see wire.h. */
#include "wire.h"

#include "flow_out.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "apps.h"
#include "ofcd_log.h"
#include "ofp_wire.h"
#include "port.h"
#include "test_services.h"

#define QMSG_EVENT_SPARE 16384     /* event buffers beyond the connections' own */
#define QMSG_EVENT_LARGE 256

/* ---- module configs ------------------------------------------------------------ */

/*
 * Whether everything an lcore serves rings its doorbell, so that it may
 * sleep until rung (struct lcore_cfg.idle_wait_us): a worker's ring does
 * (msgq_set_bell in wire_openflow); an io lcore's port only as a tap, whose
 * receive signal rings it (rx_signal_add_bell), and not under the fault
 * injector, which holds delayed frames for the lcore's next look.
 */
static bool lcore_rung(const struct app_ctx *app, bool io)
{
    return !io || (strcmp(app->port->driver, "net_tap") == 0 && !app->cfg.fault_enabled);
}

static void wire_lcore_cfg(const struct app_ctx *app, unsigned id, bool io, uint16_t queue,
                           struct lcore_cfg *out)
{
    const struct ofcd_config *c = &app->cfg;

    *out = (struct lcore_cfg){
        .lcore_id = id,
        .io = io,
        .queue = queue,
        .burst = c->burst,
        .idle_sleep_us = c->idle_sleep_us,
        .idle_polls = c->idle_polls,
        .idle_wait_us = lcore_rung(app, io) && c->idle_sleep_us < LCORE_IDLE_WAIT_US
                            ? LCORE_IDLE_WAIT_US : 0,
        .sleep_takes_rx_signal = io && c->n_io_lcores == 1,
        .ip = c->ip,
        .prefix_len = c->prefix_len,
        .arp_cache_size = c->arp_cache_size,
        .arp_timeout_s = c->arp_timeout_s,
        .gratuitous_arp = c->gratuitous_arp,
        .tcp = c->tcp,
        .tcp_chunks = c->tcp_chunks,
    };
    memcpy(out->mac, c->has_mac ? c->mac : app->port->mac, 6);
}

static void wire_of_io_cfg(const struct ofcd_config *c, unsigned io_index,
                           struct of_io_cfg *out)
{
    struct cfg_buffer_shares sh;

    cfg_buffer_shares(c, &sh);
    *out = (struct of_io_cfg){
        .io_index = io_index,
        .port = c->of_port,
        .extra_port = c->of_extra_port,
        .max_conns = c->tcp.max_conns,
        .out_backlog_kb = c->of_out_backlog_kb,
        .recorder_kb = c->of_recorder_kb,
        .queue_size = c->of_queue_size,
        .conn_buffers = c->of_conn_buffers,
        .conn_buffer_kb = c->of_conn_buffer_kb,
        .conn_control_buffers = c->of_conn_control_buffers,
        .max_pending = c->of_max_pending,
        .pending_conn_buffers = c->of_pending_conn_buffers,
        .pending_buffers = sh.pending_buffers,
        .ip_buffers = sh.ip_buffers,
        .ip_buffer_kb = sh.ip_buffer_kb,
        .ip_control_buffers = sh.ip_control_buffers,
        .tls_port = c->tls_port,
        .tls_handshake_timeout_ms = c->tls_handshake_timeout_ms,
    };
}

static void wire_of_worker_cfg(const struct ofcd_config *c, unsigned index,
                               struct of_worker_cfg *out)
{
    *out = (struct of_worker_cfg){
        .index = index,
        .queue_size = c->of_queue_size,
        .multi_producer = c->n_io_lcores > 1,
        .malformed_limit = c->of_malformed_limit,
        .max_ports = c->of_max_ports,
        .forget_after_s = c->of_forget_after_s,
        .max_switches_known = c->of_max_switches_known,
        .mp_max_kb = c->of_mp_max_kb,
        .mp_max_parts = c->of_mp_max_parts,
        .stats_interval_s = c->of_stats_interval_s,
        .role = strcmp(c->of_role, "master") == 0  ? OFPCR_ROLE_MASTER
                : strcmp(c->of_role, "slave") == 0 ? OFPCR_ROLE_SLAVE
                                                   : OFPCR_ROLE_EQUAL,
        .generation_id = c->of_generation_id,
        .chan = {
            .handshake_timeout_ms = c->of_handshake_timeout_ms,
            .hello_timeout_ms = c->of_hello_timeout_ms,
            .echo_interval_ms = c->of_echo_interval_ms,
            .echo_timeout_ms = c->of_echo_timeout_ms,
            .rtt_probe_ms = c->of_rtt_probe_ms,
            .miss_send_len = c->of_miss_send_len,
        },
    };
}

/* window = max(consistency_min_interval_s, 1.5 x stats interval); the apps'
 * cookies, whose flows the flow manager leaves alone. */
void wire_fm(const struct app_ctx *app, struct fm_cfg *out)
{
    const struct ofcd_config *c = &app->cfg;
    uint64_t w = (uint64_t)c->fm_consistency_min_interval_s * 1000000u;
    uint64_t s15 = (uint64_t)c->of_stats_interval_s * 1500000u;

    memset(out, 0, sizeof(*out));
    out->pacing_per_s = c->fm_pacing_per_s;
    out->queue_max = c->fm_queue_max;
    out->consistency = c->fm_consistency;
    out->window_us = w > s15 ? w : s15;
    memcpy(out->ignore_cookie, c->fm_ignore_cookie, sizeof(out->ignore_cookie));
    out->n_ignore_cookie = c->n_fm_ignore_cookie;
    memcpy(out->ignore_table, c->fm_ignore_table, sizeof(out->ignore_table));
    out->n_ignore_table = c->n_fm_ignore_table;
    out->snap_max_bytes = (uint64_t)c->of_mp_max_kb * 1024u;
    out->snap_max_parts = c->of_mp_max_parts;
    out->snap_budget_bytes = (uint64_t)c->fm_snapshot_budget_mb << 20;
    out->forget_after_us = (uint64_t)c->of_forget_after_s * 1000000u;
    out->shared_store = c->cluster_etcd_endpoints[0] != '\0';
    for (unsigned i = 0; i < app->n_apps && i < FM_MAX_APPS; i++)
        out->app_cookie[out->n_app_cookie++] = app->apps[i].cookies;
}

/* [store] and flow_manager.store_*: the batch size and the bound on queued
 * state updates are ofcd's own choices, not keys. */
int wire_store_cfg(const struct ofcd_config *c, char *dir, size_t len, struct store_config *out)
{
    bool group = strcmp(c->fm_durability, "group") == 0;

    *out = (struct store_config){
        .dir = dir,
        .map_size = (size_t)c->fm_store_map_mb << 20,
        .linger_us = c->fm_store_linger_us,
        .batch_target = 64,
        .max_async = 1u << 20,
        .journal = c->store_journal,
        /* durability = group: one sync per commit, the meta page's late. */
        .lazy_meta_sync = group,
        .meta_sync_ms = group ? STORE_GROUP_META_SYNC_MS : 0,
        .checkpoint_ms = c->store_checkpoint_ms,
        .checkpoint_bytes = (uint64_t)c->store_checkpoint_mb << 20,
    };
    snprintf(dir, len, "%s/flows", c->data_dir);
    if (store_backend_by_name(c->store_backend, &out->backend) < 0) {
        LOG_ERR("main", "store.backend = '%s': must be lmdb or memory", c->store_backend);
        return -EINVAL;
    }
    return 0;
}

/* The event stream first: the apps publish to it. Then every enabled app,
 * in app_classes[] order, which is the order their worker hooks run. */
/* app_host.app_find: a running app's instance by its class name. */
static void *wire_app_find(void *arg, const char *name)
{
    struct app_ctx *app = arg;

    for (unsigned i = 0; i < app->n_inst; i++)
        if (strcmp(app->inst[i].cls->name, name) == 0)
            return app->inst[i].self;
    return NULL;
}

/* app_host.leads: the app that knows the cluster's leader (the cluster's). */
static bool wire_leads(void *arg, char *leader, size_t len)
{
    struct app_ctx *app = arg;

    for (unsigned i = 0; i < app->n_inst; i++)
        if (app->inst[i].cls->leads)
            return app->inst[i].cls->leads(app->inst[i].self, leader, len);
    snprintf(leader, len, "%s", "");
    return false;
}

int wire_apps(struct app_ctx *app)
{
    const struct ofcd_config *c = &app->cfg;

    app->n_apps = 0;
    app->n_inst = 0;
    app->stream = rest_events_create(c->rest_events_max_clients,
                                     (size_t)c->rest_events_queue_kb * 1024u);
    if (!app->stream) {
        LOG_ERR("main", "out of memory for the event stream");
        return -ENOMEM;
    }
    /* A cluster node acts as a master once its lease is proven: the
     * cluster app stores that here, the workers' role gate reads it. */
    atomic_init(&app->cluster_may_act, false);
    app->host = (struct app_host){.cfg = c, .stream = app->stream, .view_arg = app,
                                  .view_lock = app_view_lock, .view_unlock = app_view_unlock,
                                  .send = flow_out_send, .send_arg = app,
                                  .may_act = c->cluster_etcd_endpoints[0] ? &app->cluster_may_act
                                                                         : NULL,
                                  .app_find = wire_app_find, .app_find_arg = app,
                                  .leads = c->cluster_etcd_endpoints[0] ? wire_leads : NULL,
                                  .leads_arg = app};
    for (unsigned k = 0; k < app_classes_n; k++) {
        const struct app_class *cls = app_classes[k];
        void *self = NULL;

        if (!cls->enabled(c))
            continue;
        if (app->n_apps >= OF_APPS_MAX) {
            LOG_ERR("main", "app %s: more than %u apps enabled", cls->name, OF_APPS_MAX);
            return -E2BIG;
        }
        app->apps[app->n_apps] = (struct of_app){0};
        int rc = cls->create(&app->host, app->n_apps, &app->apps[app->n_apps], &self);
        if (rc < 0) {
            LOG_ERR("main", "app %s cannot start: %s", cls->name, strerror(-rc));
            return rc;
        }
        /* An app with no part on the workers (it left the hooks unnamed)
         * takes no slot there, nor a cookie range of the flow manager's. */
        if (app->apps[app->n_apps].name)
            app->n_apps++;
        app->inst[app->n_inst++] = (struct app_inst){.cls = cls, .self = self};
    }
    return 0;
}

int wire_apps_load(struct app_ctx *app)
{
    app->host.store = app->store;
    app->host.fm = app->fm;
    for (unsigned i = 0; i < app->n_inst; i++) {
        const struct app_inst *a = &app->inst[i];
        int rc = a->cls->load ? a->cls->load(a->self) : 0;
        if (rc < 0)
            return rc;
    }
    return 0;
}

void wire_apps_quiesce(struct app_ctx *app)
{
    for (unsigned i = app->n_inst; i-- > 0;)
        if (app->inst[i].cls->quiesce)
            app->inst[i].cls->quiesce(app->inst[i].self);
}

void unwire_apps(struct app_ctx *app)
{
    for (unsigned i = app->n_inst; i-- > 0;)
        app->inst[i].cls->destroy(app->inst[i].self);
    app->n_inst = 0;
    rest_events_destroy(app->stream);
    app->stream = NULL;
}

static void wire_ui_dir(const char *configured, char *out, size_t len)
{
    static const char *const near[] = {"../ui", "../share/ofcd/ui"};
    char exe[PATH_MAX], probe[PATH_MAX + 64];
    ssize_t n;

    out[0] = '\0';
    if (configured[0]) {
        snprintf(out, len, "%s", configured);
        return;
    }
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    *slash = '\0';
    for (size_t i = 0; i < sizeof(near) / sizeof(near[0]); i++) {
        snprintf(probe, sizeof(probe), "%s/%s/index.html", exe, near[i]);
        if (access(probe, R_OK) == 0) {
            snprintf(out, len, "%s/%s", exe, near[i]);
            return;
        }
    }
}

void wire_rest_cfg(const struct ofcd_config *c, char *ui_dir, size_t ui_len,
                   struct rest_cfg *out)
{
    wire_ui_dir(c->rest_ui_dir, ui_dir, ui_len);
    *out = (struct rest_cfg){
        .ip = c->rest_ip,
        .port = c->rest_port,
        .threads = c->rest_threads,
        .max_body_kb = c->rest_max_body_kb,
        .max_conns_per_ip = c->rest_max_conns_per_ip,
        .rate_limit_per_s = c->rest_rate_limit_per_s,
        .rate_burst = c->rest_rate_burst,
        .fm_queue_max = c->fm_queue_max,
        .keep_deleted = c->fm_deleted_retention_s > 0,
        .answer_queued = strcmp(c->fm_durability, "async") == 0,
        .max_flows_per_request = c->rest_max_flows_per_request,
        .tls_cert = c->rest_tls_cert,
        .tls_key = c->rest_tls_key,
        .auth = c->rest_auth,
        .token_minutes = c->rest_token_minutes,
        .login_lock_s = c->rest_login_lock_s,
        .login_track_max = c->rest_login_track_max,
        .login_concurrency = c->rest_login_concurrency,
        .refused_per_s = c->rest_refused_per_s,
        .refused_burst = c->rest_refused_burst,
        .users_file = c->rest_users_file,
        .reader_tokens_file = c->rest_reader_tokens_file,
        .data_dir = c->data_dir,
        .ui_dir = ui_dir,
    };
}

/* ---- lcores -------------------------------------------------------------------- */

int wire_lcores(struct app_ctx *app)
{
    const struct ofcd_config *cfg = &app->cfg;
    bool io[RTE_MAX_LCORE] = {false}, worker[RTE_MAX_LCORE] = {false};
    struct lcore_env env = {.port = app->port, .pool = app->pool, .stop = &app->stop,
                            .dump = &app->dump_conns};

    for (unsigned i = 0; i < cfg->n_io_lcores; i++)
        io[cfg->io_lcores[i]] = true;
    for (unsigned i = 0; i < cfg->n_worker_lcores; i++)
        worker[cfg->worker_lcores[i]] = true;

    uint16_t queue = 0;
    for (unsigned id = 0; id < RTE_MAX_LCORE && id < CFG_MAX_LCORES; id++) {
        struct app_lcore *al = &app->lcores[id];
        struct lcore_cfg lcfg;

        if (!io[id] && !worker[id])
            continue;
        if (!rte_lcore_is_enabled(id)) {
            LOG_ERR("main", "lcores.%s names lcore %u, which EAL did not enable (give EAL "
                    "-l/--lcores in eal.args, or change lcores.io/lcores.worker)",
                    io[id] ? "io" : "worker", id);
            return -EINVAL;
        }
        al->io = io[id];
        al->worker = worker[id];
        al->queue = io[id] ? queue++ : 0;
        wire_lcore_cfg(app, id, al->io, al->queue, &lcfg);
        al->lc = lcore_create(&lcfg, &env);
        if (!al->lc)
            return -ENOMEM;
        /* An io lcore that sleeps until rung is rung by every receive signal. */
        if (al->io && lcfg.idle_wait_us &&
            rx_signal_add_bell(&app->rxsig, lcore_bell(al->lc)) < 0) {
            LOG_ERR("main", "more than %u io lcores on a tap", RX_SIGNAL_MAX_BELLS);
            return -ENOSPC;
        }
    }
    return 0;
}

/* ---- tasks --------------------------------------------------------------------- */

static bool task_worker_poll(void *arg, uint64_t now_us, uint64_t now_tsc)
{
    return of_worker_poll(arg, now_us, now_tsc);
}

static void task_worker_dump(void *arg)
{
    of_worker_log_switches(arg);
}

static void task_worker_counters(void *arg, ofcd_counter_fn fn, void *fn_arg)
{
    of_worker_visit_counters(arg, fn, fn_arg);
}

static bool task_io_poll(void *arg, uint64_t now_us, uint64_t now_tsc)
{
    (void)now_us;
    return of_io_poll(arg, now_tsc);
}

static void task_io_counters(void *arg, ofcd_counter_fn fn, void *fn_arg)
{
    of_io_visit_counters(arg, fn, fn_arg);
}

static uint64_t tsc_now(void)
{
    return rte_get_tsc_cycles();
}



/* openflow.event_buffers, or (0) enough for every connection the io lcores
 * can hold to keep its two down events (the io's and the worker's) with
 * room to spare for the events in flight. */
static unsigned event_buffers(const struct ofcd_config *cfg)
{
    uint64_t n = cfg->of_event_buffers;

    if (!n)
        n = 2ull * cfg->tcp.max_conns * cfg->n_io_lcores + QMSG_EVENT_SPARE;
    return n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
}

/* The switch view's hooks when it is full (openflow.max_switches_known): the
 * flow manager knows which switches have stored flows, and lets go of its
 * own record of a flow-less switch the view lets go; so do the apps of
 * theirs (app_class.switch_forgotten). It is made after the
 * view; the control thread, the only caller, starts after both. */
static bool view_has_flows(void *arg, uint64_t dpid)
{
    const struct app_ctx *app = arg;
    return app->fm && fm_has_flows(app->fm, dpid);
}

static void view_forgotten(void *arg, uint64_t dpid)
{
    const struct app_ctx *app = arg;
    if (app->fm)
        fm_forget(app->fm, dpid);
    for (unsigned i = 0; i < app->n_inst; i++) {
        const struct app_inst *a = &app->inst[i];
        if (a->cls->switch_forgotten)
            a->cls->switch_forgotten(a->self, dpid);
    }
}

int wire_openflow(struct app_ctx *app)
{
    const struct ofcd_config *cfg = &app->cfg;
    /* What switches send, each buffer charged to its connection's share, and
     * the control plane's own, which no switch's traffic can drain: what it
     * sends, and the events (qmsg_pool.h). */
    int socket = (int)rte_socket_id();
    app->qpool = qmsg_pool_create("qmsg", cfg->of_msg_buffers,
                                  cfg_large_buffers(cfg->of_msg_buffers),
                                  socket, false);
    app->cpool = qmsg_pool_create("ctlmsg", cfg->of_control_buffers,
                                  cfg_large_buffers(cfg->of_control_buffers), socket, true);
    /* Large event buffers carry only switch announcements (desc and ports):
     * a few hundred in flight at once; more wait their turn (events_deferred). */
    app->epool = qmsg_pool_create("evmsg", event_buffers(cfg), QMSG_EVENT_LARGE, socket, true);
    if (!app->qpool || !app->cpool || !app->epool)
        return -ENOMEM;
    struct msgq_cfg ec = {
        .name = "events",
        .size = cfg->of_queue_size,
        .multi_producer = true,
        .multi_consumer = false,
        .starve_bursts = MSGQ_STARVE_BURSTS,
        .credit = MSGQ_CREDIT,
    };
    /* The bell before the ring: unwire() closes it whenever the ring exists. */
    int brc = ofcd_doorbell_init(&app->events_bell);
    if (brc < 0) {
        LOG_ERR("main", "no eventfd for the control thread's doorbell: %s", strerror(-brc));
        return brc;
    }
    app->events = msgq_create(&ec);
    struct sw_view_cfg vc = {.max_known = cfg->of_max_switches_known,
                                  .has_flows = view_has_flows,
                                  .forgotten = view_forgotten,
                                  .arg = app};
    app->ctl = sw_view_create(&vc);
    if (!app->events || !app->ctl)
        return -ENOMEM;
    /* Workers first: the io sides need every worker's msg_in. */
    for (unsigned id = 0; id < RTE_MAX_LCORE; id++) {
        struct app_lcore *al = &app->lcores[id];
        struct of_worker_cfg wc;
        if (!al->lc || !al->worker)
            continue;
        wire_of_worker_cfg(cfg, app->n_workers, &wc);
        wc.pins = app->pins.n ? &app->pins : NULL;
        wc.events_bell = &app->events_bell;
        /* Cluster mode: the apps change a switch only as its confirmed
         * master, while the node's fence holds (the cluster class sends
         * the ROLE_REQUESTs and sets cluster_may_act). */
        wc.role_gate = cfg->cluster_etcd_endpoints[0] != '\0';
        wc.may_act = wc.role_gate ? &app->cluster_may_act : NULL;
        for (unsigned i = 0; i < app->n_apps; i++)
            wc.apps[wc.n_apps++] = &app->apps[i];
        al->ofw = of_worker_create(&wc, app->cpool, app->epool);
        if (!al->ofw)
            return -ENOMEM;
        app->worker_in[app->n_workers++] = of_worker_msg_in(al->ofw);
        msgq_set_bell(of_worker_msg_in(al->ofw), lcore_bell(al->lc));
        struct lcore_task t = {.name = "openflow-worker", .poll = task_worker_poll,
                               .dump = task_worker_dump, .counters = task_worker_counters,
                               .arg = al->ofw};
        if (lcore_add_task(al->lc, &t) < 0)
            return -ENOMEM;
    }
    for (unsigned id = 0; id < RTE_MAX_LCORE; id++) {
        struct app_lcore *al = &app->lcores[id];
        struct of_io_cfg ic;
        if (!al->lc || !al->io)
            continue;
        struct of_io_env ie = {.tcp = lcore_tcp(al->lc), .pool = app->qpool,
                               .event_pool = app->epool, .worker_in = app->worker_in,
                               .n_workers = app->n_workers, .tls = app->tls,
                               .clock_tsc = tsc_now,
                               .clock_us = lcore_clock_us};
        wire_of_io_cfg(cfg, al->queue, &ic);
        al->ofio = of_io_create(&ic, &ie);
        if (!al->ofio)
            return -EINVAL;
        app->io_out[al->queue] = of_io_msg_out(al->ofio);
        msgq_set_bell(of_io_msg_out(al->ofio), lcore_bell(al->lc));
        struct lcore_task t = {.name = "openflow-io", .poll = task_io_poll,
                               .counters = task_io_counters, .arg = al->ofio};
        if (lcore_add_task(al->lc, &t) < 0 || test_services_start(app, al) < 0)
            return -EINVAL;
    }
    for (unsigned id = 0; id < RTE_MAX_LCORE; id++)
        if (app->lcores[id].ofw)
            of_worker_set_outputs(app->lcores[id].ofw, app->io_out, app->n_io, app->events);
    LOG_INFO("main", "OpenFlow 1.3: plaintext port %u%s%.0u, TLS port %u (0 = none): %u io, "
             "%u worker lcore(s)", cfg->of_port, cfg->of_extra_port ? " and " : "",
             cfg->of_extra_port, cfg->tls_port, app->n_io, app->n_workers);
    return 0;
}

void unwire(struct app_ctx *app)
{
    if (app->events) {
        ofcd_doorbell_fini(&app->events_bell);
        qmsg_free_queued(app->events);
        msgq_destroy(app->events);
        app->events = NULL;
    }
    sw_view_destroy(app->ctl);
    app->ctl = NULL;
    /* Workers before io sides: what a worker holds is charged to shares that
     * live in the io sides' connection slots. */
    for (unsigned id = 0; id < RTE_MAX_LCORE; id++) {
        of_worker_destroy(app->lcores[id].ofw);
        app->lcores[id].ofw = NULL;
    }
    for (unsigned id = 0; id < RTE_MAX_LCORE; id++) {
        of_io_destroy(app->lcores[id].ofio);
        app->lcores[id].ofio = NULL;
    }
    for (unsigned id = 0; id < RTE_MAX_LCORE; id++) {
        struct app_lcore *al = &app->lcores[id];
        test_services_stop(al);
        lcore_destroy(al->lc);
        al->lc = NULL;
    }
}
