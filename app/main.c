/*
 * ofcd entry point: options and config → instance lock → EAL → port →
 * lcore contexts → control thread → poll loops → clean shutdown.
 *
 * The whole configuration is parsed and checked before anything starts, so a
 * bad key costs nothing but a message. Exit codes: 0 clean stop, 1 run-time
 * failure (EAL, port, lcores), 2 bad command line or configuration.
 */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "app.h"
#include "cfg.h"
#include "config_args.h"
#include "control.h"
#include "ctl_cmds.h"
#include "eal_args.h"
#include "fault.h"
#include "instance_lock.h"
#include "of_tls.h"
#include "rx_signal.h"
#include "rest_access.h"
#include "kernel_if.h"
#include "machine_check.h"
#include "flow_out.h"
#include "fm.h"
#include "port.h"
#include "cluster_store.h"
#include "store.h"
#include "ofcd_inet.h"
#include "ofcd_journal.h"
#include "ofcd_log.h"
#include "rest.h"
#include "wire.h"

#include "ofcd_version.h"

static void usage(FILE *out)
{
    fprintf(out,
            "ofcd " OFCD_VERSION " — OpenFlow 1.3 controller appliance on DPDK\n"
            "\n"
            "Usage: ofcd [--config FILE] [--SECTION.KEY=VALUE ...] [--check] [--print-config]\n"
            "       ofcd user add NAME [--role admin|reader] [--config FILE] [--SECTION.KEY=V ...]\n"
            "       ofcd setup list | nic NIC [--apply] | undo [--apply]   (ofcd setup --help)\n"
            "\n"
            "  --config FILE      read FILE (sections and 'key = value'); without it the\n"
            "                     built-in defaults below apply (they equal config/ofcd.conf)\n"
            "  --SECTION.KEY=V    override one key after the file, e.g. --net.address=10.1.0.2/24\n"
            "  --check            validate the configuration, print 'configuration OK', exit\n"
            "  --check-machine    --check, then whether this machine can run it: hugepages,\n"
            "                     the NICs' drivers, /dev/net/tun, app.data_dir writable,\n"
            "                     rest.listen free; one line per problem with its fix, exit 1\n"
            "  --print-config     print the effective configuration as a config file, exit\n"
            "  --version          print the version, exit\n"
            "  user add NAME      add (or replace) a REST API user in rest.users_file, role\n"
            "                     admin (default) or reader; the password is read from the\n"
            "                     terminal, or from stdin's first line\n"
            "  setup ...          dedicate a NIC to ofcd: lists the NICs, writes the\n"
            "                     hugepages, vfio-pci binding and [eal] lines; a dry run\n"
            "                     unless --apply (ofcd setup --help)\n"
            "  -h, --help         this text\n"
            "\n"
            "Signals: SIGINT/SIGTERM stop cleanly (exit 0); SIGUSR1 logs all counters now;\n"
            "SIGUSR2 logs every TCP connection and switch; SIGHUP reads the configuration\n"
            "again (the same --config file and command-line keys): app.log_level,\n"
            "app.stats_log_interval_s, rest.rate_limit_per_s, rest.rate_burst and\n"
            "topology.lldp_interval_s change at once, OpenFlow TLS's certificate, key,\n"
            "CA and CRL files are read again for new connections, any other key changed\n"
            "is logged as waiting for a restart, a broken file changes nothing (ofcdctl\n"
            "config/reload does the same and answers with each key). At run time,\n"
            "ofcdctl talks to app.ctl_socket, by default /run/ofcd/<EAL file-prefix>.ctl\n"
            "(ofcdctl --help).\n"
            "Under systemd (Type=notify, $NOTIFY_SOCKET): STATUS while it starts, READY=1\n"
            "once the port is up, the store open and REST listening, STOPPING=1 on\n"
            "SIGTERM, RELOADING=1 then READY=1 around a SIGHUP's reload, WATCHDOG=1 from\n"
            "the control thread when WatchdogSec is set.\n"
            "Exit codes: 0 clean stop, 1 run-time failure, 2 bad command line or config.\n"
            "\n");
    cfg_print_help(out);
}

/* The configuration from the command line: 0 to go on, 1 when --help or
 * --version said all, -1 on an error (printed). */
static int parse_args(int argc, char **argv, struct config_args *opts, struct ofcd_config *cfg)
{
    char err[CFG_ERR_MAX];

    if (config_args_parse(argc, argv, opts, cfg, err, sizeof(err)) < 0) {
        fprintf(stderr, "ofcd: %s\n", err);
        return -1;
    }
    if (opts->help)
        usage(stdout);
    else if (opts->version)
        printf("ofcd %s\n", OFCD_VERSION);
    return opts->help || opts->version ? 1 : 0;
}

static int make_data_dir(const char *dir)
{
    char path[CFG_STR_MAX];

    snprintf(path, sizeof(path), "%s", dir);
    /* mkdir -p: the store lives here, so it must exist and be writable. */
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            return -errno;
        *p = '/';
    }
    if (mkdir(path, 0755) < 0 && errno != EEXIST)
        return -errno;
    return access(path, W_OK) < 0 ? -errno : 0;
}

static int open_port(struct app_ctx *app)
{
    const struct ofcd_config *cfg = &app->cfg;
    uint16_t port_id = RTE_MAX_ETHPORTS;
    uint16_t pid;

    RTE_ETH_FOREACH_DEV(pid) {
        if (port_id == RTE_MAX_ETHPORTS)
            port_id = pid;
        else
            LOG_WARN("main", "ethdev %u ignored: ofcd drives one port", pid);
    }
    if (port_id == RTE_MAX_ETHPORTS) {
        LOG_ERR("main", "EAL found no network port: give one with --vdev=net_tap0,iface=NAME "
                "or -a PCI_ADDRESS in eal.args (a NIC must be bound to vfio-pci)");
        return -ENODEV;
    }
    struct port_ethdev_conf pc = {
        .mbufs = cfg->mbufs,
        .mbuf_cache = cfg->mbuf_cache,
        .rx_desc = cfg->rx_desc,
        .tx_desc = cfg->tx_desc,
        .n_queues = (uint16_t)cfg->n_io_lcores,
        .socket_id = rte_eth_dev_socket_id(port_id),
    };
    if (pc.socket_id < 0)
        pc.socket_id = (int)rte_socket_id();
    app->port = port_ethdev_open(port_id, &pc);
    if (!app->port)
        return -EIO;
    app->pool = port_ethdev_pool(app->port);

    if (cfg->has_mac) {
        struct rte_ether_addr mac;
        memcpy(mac.addr_bytes, cfg->mac, 6);
        int rc = rte_eth_dev_default_mac_addr_set(port_id, &mac);
        if (rc < 0) {
            LOG_ERR("main", "%s: cannot set MAC from net.mac: %s", app->port->name,
                    rte_strerror(-rc));
            return rc;
        }
        memcpy(app->port->mac, cfg->mac, 6);
    }
    if (cfg->fault_enabled) {
        struct fault_rates rx = {cfg->fault_rx.drop, cfg->fault_rx.dup, cfg->fault_rx.reorder,
                                 cfg->fault_rx.delay, cfg->fault_rx.delay_us};
        struct fault_rates tx = {cfg->fault_tx.drop, cfg->fault_tx.dup, cfg->fault_tx.reorder,
                                 cfg->fault_tx.delay, cfg->fault_tx.delay_us};
        struct port *wrapped = port_fault_wrap(app->port, &rx, &tx, cfg->fault_seed);
        if (!wrapped)
            return -EINVAL;
        app->port = wrapped;
    }
    return 0;
}

static int setup_kernel_side(struct app_ctx *app)
{
    const struct ofcd_config *cfg = &app->cfg;
    char err[256];

    if (!cfg->configure_kernel)
        return 0;
    /* Only a tap's kernel side is ours to configure: an af_packet port's
     * ifindex is a real interface that belongs to the host. */
    if (strcmp(app->port->driver, "net_tap") != 0 || app->port->kernel_ifindex <= 0) {
        LOG_INFO("main", "port driver %s has no kernel side of ours: net.configure_kernel "
                 "does nothing", app->port->driver);
        return 0;
    }
    int rc = kernel_if_configure(app->port->kernel_ifindex, cfg->kernel_ip,
                                 cfg->kernel_prefix_len, app->kernel_ifname,
                                 sizeof(app->kernel_ifname), err, sizeof(err));
    if (rc < 0)
        LOG_ERR("main", "configuring the kernel side of the tap: %s (set "
                "net.configure_kernel=false to leave it alone)", err);
    return rc;
}

static void log_ready(const struct app_ctx *app)
{
    const struct ofcd_config *cfg = &app->cfg;
    const uint8_t *m = app->port->mac;
    char kside[96] = "", ip[OFCD_IPV4_STRLEN];

    if (app->kernel_ifname[0])
        snprintf(kside, sizeof(kside), ", kernel side %s %s/%u", app->kernel_ifname,
                 ofcd_ipv4_format(cfg->kernel_ip, ip), cfg->kernel_prefix_len);
    LOG_INFO("main", "ofcd ready: %s/%u MAC %02x:%02x:%02x:%02x:%02x:%02x on %s%s; "
             "answering ARP, ICMP echo and OpenFlow", ofcd_ipv4_format(cfg->ip, ip),
             cfg->prefix_len, m[0], m[1], m[2], m[3], m[4], m[5], app->port->name, kside);
    /* The port up, the store open, REST listening. */
    char rest_ip[OFCD_IPV4_STRLEN];
    ofcd_sd_notify_send(&app->notify, "READY=1\nSTATUS=ready: %s/%u on %s, REST on %s:%u",
                        ofcd_ipv4_format(cfg->ip, ip), cfg->prefix_len, app->port->name,
                        ofcd_ipv4_format(cfg->rest_ip, rest_ip), cfg->rest_port);
}

/* Launch the poll loops; the main lcore runs its own role inline. */
static int run_lcores(struct app_ctx *app)
{
    unsigned main_id = rte_get_main_lcore();
    int rc = 0;

    for (unsigned id = 0; id < RTE_MAX_LCORE; id++) {
        if (!app->lcores[id].lc || id == main_id)
            continue;
        int lrc = rte_eal_remote_launch(lcore_main, app->lcores[id].lc, id);
        if (lrc < 0) {
            LOG_ERR("main", "cannot launch lcore %u: %s", id, rte_strerror(-lrc));
            atomic_store(&app->stop, true);
            rc = lrc;
            break;
        }
    }
    if (rc == 0 && app->lcores[main_id].lc && lcore_main(app->lcores[main_id].lc) < 0)
        rc = -EIO;
    /* Without a role, main waits here until the control thread says stop. */
    rte_eal_mp_wait_lcore();
    return rc;
}

static int open_flow_store(struct app_ctx *app)
{
    char dir[CFG_STR_MAX + 16];
    struct store_config sc;
    struct cluster_store_buf eb;
    bool cluster = app->cfg.cluster_etcd_endpoints[0] != '\0';

    if (wire_store_cfg(&app->cfg, dir, sizeof(dir), &sc) < 0)
        return -EINVAL;
    if (cluster && cluster_store_cfg(app, &sc, &eb) < 0)
        return -EINVAL;
    app->store = store_open(&sc);
    memset(eb.access.password, 0, sizeof(eb.access.password));
    if (!app->store)
        return -EIO;
    struct fm_cfg fc;
    struct fm_env env;
    wire_fm(app, &fc);
    flow_out_env(app, &env);
    app->fm = fm_create(&fc, &env, app->store);
    if (!app->fm || (cluster && cluster_store_follow(app) < 0)) {
        fm_destroy(app->fm);
        app->fm = NULL;
        store_close(app->store);
        app->store = NULL;
        return -ENOMEM;
    }
    return 0;
}

/* The store first: its close commits what is still queued and hands each
 * change to the flow manager (fm_change), which must still be there. */
static void close_flow_store(struct app_ctx *app)
{
    wire_apps_quiesce(app);
    store_close(app->store);
    app->store = NULL;
    fm_destroy(app->fm);
    app->fm = NULL;
}

static void app_teardown(struct app_ctx *app)
{
    /* REST threads read what the rest of teardown frees: they go first. */
    rest_stop(app->rest);
    app->rest = NULL;
    control_stop(app);
    ctl_cmds_close(app);             /* the control thread served it */
    rx_signal_stop(&app->rxsig);
    if (app->port)
        control_log_stats(app);
    /* After the control thread: it is the flow manager's other user. */
    close_flow_store(app);
    unwire(app);
    if (app->port) {
        port_close(app->port);
        app->port = NULL;
    }
    qmsg_pool_destroy(app->qpool);
    app->qpool = NULL;
    qmsg_pool_destroy(app->cpool);
    app->cpool = NULL;
    qmsg_pool_destroy(app->epool);
    app->epool = NULL;
    tls_ctx_destroy(app->tls);       /* after the io lcores' sessions are gone */
    app->tls = NULL;
}

/* ofcd user add NAME [--role R] [config options]: exit code. */
static int user_command(int argc, char **argv, struct ofcd_config *cfg)
{
    struct config_args opts = {0};
    const char *role = "admin";
    char *rest[256];
    int n = 0;

    if (argc < 4 || strcmp(argv[2], "add") != 0) {
        fprintf(stderr, "usage: ofcd user add NAME [--role admin|reader] [--config FILE] "
                "[--SECTION.KEY=VALUE ...]\n");
        return 2;
    }
    rest[n++] = argv[0];
    for (int i = 4; i < argc && n < 255; i++) {
        if (strcmp(argv[i], "--role") == 0 && i + 1 < argc)
            role = argv[++i];
        else if (strncmp(argv[i], "--role=", 7) == 0)
            role = argv[i] + 7;
        else
            rest[n++] = argv[i];
    }
    rest[n] = NULL;
    int rc = parse_args(n, rest, &opts, cfg);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    rc = make_data_dir(cfg->data_dir);
    if (rc < 0) {
        fprintf(stderr, "ofcd: app.data_dir '%s': %s\n", cfg->data_dir, strerror(-rc));
        return 1;
    }
    rest_access_resolve(cfg);
    return rest_access_user_add(cfg, argv[3], role);
}

/*
 * glibc maps allocations above its mmap threshold (128 KiB, raised only by
 * what is freed) straight from the kernel and gives a heap's free top back
 * above 128 KiB. A batched POST's parsed flows (3.2 KiB each: 3 MiB for
 * 1,000) and its body's tape were mapped, faulted in page by page and
 * unmapped on every request: 11 % of ofcd's CPU in a batched install went
 * to page faults. Up to 8 MiB now comes from the heaps, and up to 64 MiB of
 * free heap stays with the process for the next request. An operator's
 * GLIBC_TUNABLES, when set, wins.
 */
static void malloc_keep_memory(void)
{
    if (getenv("GLIBC_TUNABLES"))
        return;
    mallopt(M_MMAP_THRESHOLD, 8 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

static void print_problem(void *arg, const char *what, const char *fix)
{
    (void)arg;
    fprintf(stderr, "ofcd: %s: %s\n", what, fix);
}

/* --check-machine: exit 0 when this machine can run cfg, 1 with one line per
 * problem. */
static int check_machine(const struct ofcd_config *cfg)
{
    int n = machine_check(cfg, "", print_problem, NULL);
    if (n < 0) {
        fprintf(stderr, "ofcd: eal.args cannot be split: %s\n", strerror(-n));
        return 2;
    }
    if (n == 0)
        printf("machine OK\n");
    else
        fprintf(stderr, "ofcd: %d problem(s) on this machine: ofcd would not start\n", n);
    return n ? 1 : 0;
}

/* ofcd setup ...: the NIC tool (scripts/ofcd-setup), installed beside
 * ofcd, or in a checkout two folders up from build/app/ofcd. */
static int setup_command(char **argv)
{
    char self[PATH_MAX], tool[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

    if (n <= 0) {
        fprintf(stderr, "ofcd: cannot find myself: %s\n", strerror(errno));
        return 2;
    }
    self[n] = '\0';
    *strrchr(self, '/') = '\0';
    const char *where[] = {"%s/ofcd-setup", "%s/../../scripts/ofcd-setup"};
    for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
        snprintf(tool, sizeof(tool), where[i], self);
        if (access(tool, X_OK) == 0) {
            argv[1] = tool;
            execv(tool, argv + 1);
            fprintf(stderr, "ofcd: cannot run %s: %s\n", tool, strerror(errno));
            return 2;
        }
    }
    fprintf(stderr, "ofcd: ofcd-setup is not installed beside %s\n", self);
    return 2;
}

int main(int argc, char **argv)
{
    struct app_ctx app = {0};
    struct config_args opts = {0};
    char err[CFG_ERR_MAX];
    sigset_t sigs;
    cpu_set_t cpus;
    int rc, exit_code = 1, data_lock_fd = -1;

    cfg_defaults(&app.cfg);
    /* A product build has no test services: their keys take only "off". */
    app.cfg.no_test_services = !OFCD_TEST_SERVICES;
    if (argc >= 2 && strcmp(argv[1], "user") == 0)
        return user_command(argc, argv, &app.cfg);
    if (argc >= 2 && strcmp(argv[1], "setup") == 0)
        return setup_command(argv);
    /* Under systemd: entries journald files by priority and switch. */
    if (ofcd_journal_wanted() && ofcd_journal_open(&app.journal, OFCD_JOURNAL_SOCKET) == 0)
        ofcd_log_use_journal(&app.journal);
    rc = parse_args(argc, argv, &opts, &app.cfg);
    app.argc = argc;                /* a reload reads them again (reload.h) */
    app.argv = argv;
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    rest_access_resolve(&app.cfg);
    ofcd_log_set_level((enum ofcd_log_level)app.cfg.log_level);
    rest_access_warn(&app.cfg);
    if (opts.print_config) {
        cfg_print(&app.cfg, stdout);
        return 0;
    }
    if (of_tls_open(&app.cfg, &app.tls, &app.pins) < 0)
        return 2;
    if (opts.check_only) {
        tls_ctx_destroy(app.tls);
        of_pins_free(&app.pins);
        printf("configuration OK\n");
        return opts.check_machine ? check_machine(&app.cfg) : 0;
    }
    malloc_keep_memory();
    if (ofcd_sd_notify_init(&app.notify, err, sizeof(err)) < 0)
        LOG_WARN("main", "%s", err);

    struct eal_args ea;
    rc = eal_args_build(&ea, argv[0], app.cfg.eal_args);
    if (rc < 0) {
        fprintf(stderr, "ofcd: eal.args: %s\n", rc == -E2BIG ? "too many or too long arguments"
                                                            : "empty");
        tls_ctx_destroy(app.tls);
        of_pins_free(&app.pins);
        return 2;
    }
    const char *prefix = eal_args_file_prefix(&ea);
    int lock_fd = instance_lock_acquire(INSTANCE_LOCK_DIR, prefix, err, sizeof(err));
    if (lock_fd < 0) {
        LOG_ERR("main", "%s", err);
        tls_ctx_destroy(app.tls);
        of_pins_free(&app.pins);
        return 1;
    }
    rc = make_data_dir(app.cfg.data_dir);
    if (rc < 0) {
        LOG_ERR("main", "app.data_dir '%s' is not a writable directory: %s", app.cfg.data_dir,
                strerror(-rc));
        goto out_unlock;
    }
    /* Before any store file is opened (journal recovery included). */
    data_lock_fd = instance_data_lock_acquire(app.cfg.data_dir, err, sizeof(err));
    if (data_lock_fd < 0) {
        LOG_ERR("main", "%s", err);
        goto out_unlock;
    }

    /* Before EAL starts threads: they all inherit the blocked set, and only the
     * control thread takes these signals. The original affinity goes to the
     * control thread too, since EAL pins this thread to the main lcore. */
    control_signal_set(&sigs);
    rx_signal_block_set(&sigs);          /* taken by ofcd-rxsig, never an lcore */
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    sched_getaffinity(0, sizeof(cpus), &cpus);

    /* The apps first: the flow manager leaves their flows alone. The store's
     * committer thread starts here, so it too floats over the original CPUs
     * with the signals blocked. */
    ofcd_sd_notify_send(&app.notify, "STATUS=opening the flow store in %s; a cluster node "
                        "catches up with etcd", app.cfg.data_dir);
    rc = wire_apps(&app);
    if (rc == 0)
        rc = open_flow_store(&app);
    if (rc == 0 && (rc = wire_apps_load(&app)) < 0)
        close_flow_store(&app);
    if (rc < 0) {
        unwire_apps(&app);
        goto out_unlock;
    }

    ofcd_sd_notify_send(&app.notify, "STATUS=starting DPDK and the port");
    rc = rte_eal_init(ea.argc, ea.argv);
    if (rc < 0) {
        /* ENODEV: a --vdev or -a names a driver DPDK did not load. With
         * Debian's DPDK each driver is a package of its own. */
        LOG_ERR("main", "DPDK EAL initialisation failed: %s (eal.args = '%s')%s",
                rte_strerror(rte_errno), app.cfg.eal_args,
                rte_errno == ENODEV ? ": is the port's driver installed? (Debian: a "
                "librte-net-* package, e.g. librte-net-tap23 for net_tap)" : "");
        close_flow_store(&app);
        unwire_apps(&app);
        goto out_unlock;
    }
    atomic_init(&app.stop, false);
    pthread_mutex_init(&app.ctl_lock, NULL);
    pthread_mutex_init(&app.capture.lock, NULL);
    pthread_mutex_init(&app.capture.shelf_lock, NULL);
    app.capture.rl_full = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 60000);
    /* Nothing to freeze without a recorder; a copy is a record's capture,
     * at most about 8 bytes of pcapng per recorded byte (small messages). */
    unsigned frozen = app.cfg.of_recorder_kb ? app.cfg.of_recorder_frozen : 0;
    if (capture_shelf_init(&app.capture.shelf, frozen,
                           (size_t)frozen * app.cfg.of_recorder_kb * 8u * 1024u) < 0) {
        LOG_ERR("main", "no memory for %u frozen flight records (openflow.recorder_frozen)",
                frozen);
        goto out_eal;
    }
    rc = rx_signal_start(&app.rxsig, &cpus);
    if (rc < 0) {
        LOG_ERR("main", "cannot start the receive-signal thread: %s", strerror(-rc));
        goto out_eal;
    }
    app.n_io = app.cfg.n_io_lcores;

    if (open_port(&app) < 0 || setup_kernel_side(&app) < 0 || wire_lcores(&app) < 0 ||
        wire_openflow(&app) < 0 || ctl_cmds_open(&app, prefix) < 0)
        goto out_eal;
    rc = control_start(&app, &cpus);
    if (rc < 0) {
        LOG_ERR("main", "cannot start the control thread: %s", strerror(-rc));
        goto out_eal;
    }
    /* MHD's threads inherit this thread's CPU set: give them the process's
     * original one, not the main lcore's core, then pin back. */
    cpu_set_t lcore_cpus;
    pthread_getaffinity_np(pthread_self(), sizeof(lcore_cpus), &lcore_cpus);
    pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
    struct rest_cfg rc_cfg;
    struct rest_sources rc_src;
    wire_rest_cfg(&app.cfg, app.ui_dir, sizeof(app.ui_dir), &rc_cfg);
    app_rest_sources(&app, &rc_src);
    app.rest = rest_start(&rc_cfg, &rc_src);
    pthread_setaffinity_np(pthread_self(), sizeof(lcore_cpus), &lcore_cpus);
    if (!app.rest)
        goto out_eal;
    log_ready(&app);
    exit_code = run_lcores(&app) == 0 ? 0 : 1;
    ofcd_sd_notify_send(&app.notify, "STATUS=stopping: closing the flow store");

out_eal:
    app_teardown(&app);
    unwire_apps(&app);               /* after the lcores and REST, who read it */
    capture_shelf_free(&app.capture.shelf);   /* after REST and ofcdctl, who read it */
    rte_eal_cleanup();
out_unlock:
    tls_ctx_destroy(app.tls);        /* NULL after a teardown: it freed it */
    app.tls = NULL;
    of_pins_free(&app.pins);         /* after the workers, who read it */
    if (data_lock_fd >= 0)
        close(data_lock_fd);         /* after the store closed (app_teardown) */
    instance_lock_release(lock_fd, INSTANCE_LOCK_DIR, prefix);
    if (exit_code == 0)
        LOG_INFO("main", "ofcd stopped cleanly");
    return exit_code;
}
