/* ctl_cmds: see ctl_cmds.h. */
#include "ctl_cmds.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>

#include "apps.h"
#include "capture_ctl.h"
#include "dpid.h"
#include "fm.h"
#include "instance_lock.h"
#include "ofcd_clock.h"
#include "ofcd_counters_ctl.h"
#include "ofcd_ctl.h"
#include "ofcd_ctl_server.h"
#include "ofcd_log.h"
#include "ofcd_log_ctl.h"
#include "port.h"
#include "reload.h"
#include "store.h"

/* ---- counters/show [GROUP] ---------------------------------------------------------- */

static void show_ring(void *arg, unsigned lcore, const char *ring, const struct msgq_stats *q)
{
    char line[512];

    app_format_ring(line, sizeof(line), "lcore", lcore, ring, q);
    ofcd_ctl_printf(arg, "%s\n", line);
}

static void visit_counters(void *src, ofcd_counter_fn fn, void *arg)
{
    app_visit_counters(src, fn, arg);
}

static int counters_show(void *arg, int argc, char **argv, struct ofcd_ctl_out *out)
{
    struct app_ctx *app = arg;
    char line[512];

    int rc = ofcd_counters_show(visit_counters, app, argc == 2 ? argv[1] : NULL, out);
    if (rc < 0 || argc == 2)
        return rc;
    /* The rest of what SIGUSR1 logs. */
    app_visit_rings(app, show_ring, out);
    if (app->events) {
        struct msgq_stats es;
        msgq_get_stats(app->events, &es);
        app_format_ring(line, sizeof(line), "control", 0, "events", &es);
        ofcd_ctl_printf(out, "%s\n", line);
    }
    ofcd_ctl_printf(out, "an idle TCP connection costs %zu bytes\n", tcp_conn_idle_bytes());
    return 0;
}

/* ---- conn/show ------------------------------------------------------------------------ */

/* Every io lcore asked has answered, or the wait is over: the texts in
 * lcore order, and a line for each that did not answer. */
static int conn_show_poll(void *arg, struct ofcd_ctl_out *out, uint64_t now_ms)
{
    struct app_ctx *app = arg;
    bool all = true;

    if (!app->conn_show.deadline_ms)
        app->conn_show.deadline_ms = now_ms + CTL_CONN_SHOW_WAIT_MS;
    for (unsigned id = 0; id < RTE_MAX_LCORE && all; id++) {
        size_t len;
        bool cut;
        if (app->conn_show.asked[id] && !lcore_conns_text(app->lcores[id].lc, &len, &cut))
            all = false;
    }
    if (!all && now_ms < app->conn_show.deadline_ms)
        return OFCD_CTL_LATER;
    for (unsigned id = 0; id < RTE_MAX_LCORE; id++) {
        size_t len;
        bool cut;
        if (!app->conn_show.asked[id])
            continue;
        const char *text = lcore_conns_text(app->lcores[id].lc, &len, &cut);
        if (!text) {
            ofcd_ctl_printf(out, "lcore %u: no answer within %u ms (is its loop stuck?)\n", id,
                            CTL_CONN_SHOW_WAIT_MS);
            continue;
        }
        ofcd_ctl_write(out, text, len);
        if (cut)
            ofcd_ctl_printf(out, "lcore %u: more connections than %zu bytes of text hold\n", id,
                            (size_t)LCORE_CONNS_TEXT_MAX);
    }
    app->conn_show.busy = false;
    return 0;
}

static void conn_show_cancel(void *arg)
{
    struct app_ctx *app = arg;

    /* What the lcores still write lands in their own buffers. */
    app->conn_show.busy = false;
}

static int conn_show(void *arg, int argc, char **argv, struct ofcd_ctl_out *out)
{
    struct app_ctx *app = arg;
    unsigned asked = 0;

    (void)argc;
    (void)argv;
    if (app->conn_show.busy) {
        ofcd_ctl_printf(out, "busy: another conn/show is waiting for the lcores; try again\n");
        return -EBUSY;
    }
    memset(app->conn_show.asked, 0, sizeof(app->conn_show.asked));
    for (unsigned id = 0; id < RTE_MAX_LCORE; id++) {
        struct lcore_ctx *lc = app->lcores[id].lc;
        if (!lc || !app->lcores[id].io)
            continue;
        int rc = lcore_conns_ask(lc);
        if (rc == 0) {
            app->conn_show.asked[id] = true;
            asked++;
        } else {
            ofcd_ctl_printf(out, "lcore %u: %s\n", id, rc == -EBUSY
                            ? "still writing the answer to an earlier conn/show" : strerror(-rc));
        }
    }
    if (!asked)
        return 0;
    app->conn_show.busy = true;
    app->conn_show.deadline_ms = 0;         /* set at the first poll, on the server's clock */
    return ofcd_ctl_defer(out, &(struct ofcd_ctl_later){conn_show_poll, conn_show_cancel, app});
}

/* app/list: every app class this build has, on or off, and what a running
 * one says of itself. */
static int app_list(void *arg, int argc, char **argv, struct ofcd_ctl_out *out)
{
    struct app_ctx *app = arg;
    char line[256];

    (void)argc;
    (void)argv;
    for (unsigned k = 0; k < app_classes_n; k++) {
        const struct app_class *cls = app_classes[k];
        const struct app_inst *run = NULL;
        for (unsigned i = 0; i < app->n_inst; i++)
            if (app->inst[i].cls == cls)
                run = &app->inst[i];
        if (!run) {
            ofcd_ctl_printf(out, "%-12s off (apps.%s = false)\n", cls->name, cls->name);
            continue;
        }
        snprintf(line, sizeof(line), "on");
        if (cls->status)
            cls->status(run->self, line, sizeof(line));
        ofcd_ctl_printf(out, "%-12s %s\n", cls->name, line);
    }
    return 0;
}

/* config/reload: what SIGHUP does (reload.h), answered with each key that
 * changed and whether it was taken. */
static int config_reload(void *arg, int argc, char **argv, struct ofcd_ctl_out *out)
{
    struct app_ctx *app = arg;
    struct reload_result res;
    char report[2048];

    (void)argc;
    (void)argv;
    int rc = reload_config(app, &res, report, sizeof(report));
    if (rc < 0) {
        ofcd_ctl_printf(out, "%s", report);
        return rc;
    }
    ofcd_ctl_printf(out, "%s%u key(s) applied, %u waiting for a restart\n", report, res.applied,
                    res.at_restart);
    return 0;
}

/* ---- life cycle ------------------------------------------------------------------------ */

static int register_app_commands(struct app_ctx *app)
{
    const struct ofcd_ctl_cmd cmds[] = {
        {"counters/show", "[GROUP]",
         "every counter set as SIGUSR1 logs them, and the rings; GROUP: that group's sets only",
         0, 1, counters_show, app},
        {"conn/show", "", "each io lcore's TCP connections, as SIGUSR2 logs them (from the "
         "lcore itself)", 0, 0, conn_show, app},
        {"app/list", "", "every app this build has, on or off, and what each running one says "
         "of itself", 0, 0, app_list, app},
        {"config/reload", "", "read the configuration again, as SIGHUP does: the keys that "
         "can change live are taken, the others named as waiting for a restart", 0, 0,
         config_reload, app},
    };
    int rc = 0;

    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]) && rc == 0; i++)
        rc = ofcd_ctl_register(app->cmds, &cmds[i]);
    return rc < 0 ? rc : capture_ctl_register(app);
}

int ctl_cmds_open(struct app_ctx *app, const char *file_prefix)
{
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)], err[256];
    int rc;

    app->cmds = ofcd_ctl_create();
    if (!app->cmds)
        return -ENOMEM;
    /* Each module its own; the appliance's last. */
    rc = ofcd_log_ctl_register(app->cmds);
    if (rc == 0 && app->ctl)
        rc = sw_view_ctl_register(app->ctl, app->cmds);
    if (rc == 0 && app->fm)
        rc = fm_ctl_register(app->fm, app->cmds);
    if (rc == 0 && app->store)
        rc = store_ctl_register(app->store, app->cmds);
    if (rc == 0 && app->cfg.fault_enabled)
        rc = port_fault_ctl_register(app->port, app->cmds);
#if OFCD_TEST_SERVICES
    if (rc == 0)
        rc = ofcd_clock_ctl_register(app->cmds);
#endif
    if (rc == 0)
        rc = register_app_commands(app);
    if (rc < 0) {
        LOG_ERR("control", "cannot register ofcdctl's commands: %s", strerror(-rc));
        return rc;
    }
    size_t len = strlen(app->cfg.ctl_socket);
    if (len) {
        if (len >= sizeof(path))        /* cfg_finish refuses it first */
            return -ENAMETOOLONG;
        memcpy(path, app->cfg.ctl_socket, len + 1);
    } else if (instance_ctl_path(path, sizeof(path), INSTANCE_LOCK_DIR, file_prefix) < 0) {
        LOG_ERR("control", "the command socket %s/%s.ctl is longer than a unix socket's "
                "%zu bytes: give EAL a shorter --file-prefix", INSTANCE_LOCK_DIR, file_prefix,
                sizeof(path) - 1);
        return -ENAMETOOLONG;
    }
    gid_t group = (gid_t)-1;
    if (app->cfg.ctl_group[0]) {
        const struct group *g = getgrnam(app->cfg.ctl_group);
        if (!g) {                       /* checked with the config; gone since */
            LOG_ERR("control", "app.ctl_group '%s': no such group", app->cfg.ctl_group);
            return -ENOENT;
        }
        group = g->gr_gid;
    }
    app->cmd_srv = ofcd_ctl_server_open_shared(path, group, app->cmds, err, sizeof(err));
    if (!app->cmd_srv) {
        LOG_ERR("control", "cannot open the command socket: %s", err);
        return -EIO;
    }
    LOG_INFO("control", "ofcdctl's socket: %s", path);
    if (group != (gid_t)-1)
        LOG_INFO("control", "ofcdctl's socket is open to group %s (mode 660)",
                 app->cfg.ctl_group);
    return 0;
}

void ctl_cmds_close(struct app_ctx *app)
{
    ofcd_ctl_server_close(app->cmd_srv);
    app->cmd_srv = NULL;
    ofcd_ctl_destroy(app->cmds);
    app->cmds = NULL;
}
