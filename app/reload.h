/*
 * reload: what SIGHUP (systemctl reload ofcd) and `ofcdctl config/reload`
 * do. The configuration is read again from the arguments ofcd started
 * with (config_args.h: the same file, the same command-line keys); a
 * configuration that does not load or pass its checks changes nothing.
 * Each key that changed is either taken at once or logged as waiting for
 * a restart — and logged again at each reload until then.
 *
 * Taken at once: app.log_level (every module: what `ofcdctl log/set` set
 * is replaced), app.stats_log_interval_s, rest.rate_limit_per_s and
 * rest.rate_burst (each client's bucket starts afresh), and the keys each
 * running app lists as live (app_class.h: topology.lldp_interval_s). With
 * OpenFlow TLS running, [tls]'s certificate, key, CA and CRL files are read
 * again at every reload, renamed or not (a renewed certificate keeps its
 * path), for the connections accepted from then on; when they do not load,
 * the reload is refused whole. REST's HTTPS certificate is read at start
 * only (libmicrohttpd holds it): a reload says so. The REST users file and reader tokens need
 * no reload: ofcd reads them again within a second of a change.
 *
 * Threads: the control thread only (its loop takes SIGHUP; ofcdctl's
 * commands run there).
 */
#ifndef OFCD_RELOAD_H
#define OFCD_RELOAD_H

#include <stddef.h>

struct app_ctx;

struct reload_result {
    unsigned applied;       /* keys taken now */
    unsigned at_restart;    /* keys that changed and wait for a restart */
};

/* 0 with *out filled and one line per changed key appended to report
 * ("KEY: OLD -> NEW, applied" or "..., at the next restart"; cut at
 * len); or -EINVAL with the reason in report, nothing changed. */
int reload_config(struct app_ctx *app, struct reload_result *out, char *report, size_t len);

#endif
