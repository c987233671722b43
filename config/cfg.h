/*
 * cfg: ofcd's configuration — the schema of every key, the file parser, the
 * command-line overrides and the validated result.
 *
 * Call order: cfg_defaults() → cfg_load_file() → cfg_apply_override() for each
 * "--section.key=value" → cfg_finish() (cross-key checks). Nothing in ofcd
 * starts until all of these have succeeded, so a bad key never leaves a half
 * started appliance. Every error is written into the caller's buffer as one
 * line naming the file:line (or "command line"), the key, the value and what
 * is allowed.
 *
 * The schema is one table (cfg_schema.c): adding a key is adding a row.
 */
#ifndef OFCD_CFG_H
#define OFCD_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ofcd_range.h"
#include "tcp.h"

#define CFG_STR_MAX 512
#define CFG_MAX_LCORES 128
#define CFG_ERR_MAX 512

/* One direction (rx or tx) of the fault-injection wrapper. Rates are 0..1. */
struct cfg_fault_dir {
    double drop;
    double dup;
    double reorder;
    double delay;
    uint32_t delay_us;
};

/* Ranges from lists such as "0-9,0xff00-0xffff,17" (ofcd_range.h). */
#define CFG_MAX_RANGES OFCD_MAX_RANGES

/* Parse such a list ("" = none) into out[max]; 0 or -EINVAL with why set. */
int cfg_parse_ranges(const char *text, uint64_t limit, struct ofcd_range *out, unsigned max,
                     unsigned *n, char *why, size_t whylen);

struct ofcd_config {
    /* [eal] */
    char eal_args[CFG_STR_MAX];          /* split on spaces into argv for rte_eal_init */

    /* [net] */
    uint32_t ip;                         /* host byte order */
    uint8_t prefix_len;
    bool has_mac;                        /* false: use the port's MAC */
    uint8_t mac[6];
    bool configure_kernel;               /* set up the kernel side of a tap */
    uint32_t kernel_ip;                  /* host byte order */
    uint8_t kernel_prefix_len;
    uint32_t arp_cache_size;
    uint32_t arp_timeout_s;
    bool gratuitous_arp;

    /* [port] */
    uint32_t mbufs;
    uint32_t mbuf_cache;
    uint16_t rx_desc;
    uint16_t tx_desc;
    uint16_t burst;

    /* [lcores] */
    uint16_t io_lcores[CFG_MAX_LCORES];
    unsigned n_io_lcores;
    uint16_t worker_lcores[CFG_MAX_LCORES];
    unsigned n_worker_lcores;
    uint32_t idle_sleep_us;              /* 0 = pure busy-poll */
    uint32_t idle_polls;                 /* empty polls before sleeping */

    /* [openflow] */
    uint16_t of_port;                    /* plaintext, 0 = none */
    uint16_t of_extra_port;              /* 0 = none */
    uint32_t of_handshake_timeout_ms;
    uint32_t of_hello_timeout_ms;        /* no HELLO by then: closed */
    uint32_t of_max_pending;             /* unfinished handshakes per io lcore */
    uint32_t of_echo_interval_ms;        /* 0 = no keepalive */
    uint32_t of_echo_timeout_ms;
    uint32_t of_rtt_probe_ms;            /* echo at least this often for RTT, 0 = off */
    uint16_t of_miss_send_len;
    uint32_t of_queue_size;              /* msg_in/msg_out slots per class */
    uint32_t of_msg_buffers;             /* small message buffers (large: 1/64 of it) */
    uint32_t of_control_buffers;         /* the control plane's pool, same shape */
    uint32_t of_event_buffers;           /* events to the workers and the control thread */
    uint32_t of_conn_control_buffers;    /* per-connection quota of the control pools */
    uint32_t of_conn_buffers;            /* per-connection quota, buffers */
    uint32_t of_conn_buffer_kb;          /* per-connection quota, KiB of capacity */
    uint32_t of_pending_conn_buffers;    /* ... before the handshake is done */
    uint32_t of_pending_buffers;         /* all pending connections of an io lcore */
    uint32_t of_ip_buffers;              /* one source address's connections, buffers */
    uint32_t of_ip_buffer_kb;            /* ... KiB of capacity */
    uint32_t of_ip_control_buffers;      /* ... of the control pools */
    uint32_t of_out_backlog_kb;          /* unsent bytes per switch before disconnect */
    uint32_t of_recorder_kb;             /* each connection's flight record, 0 = none */
    uint32_t of_recorder_frozen;         /* frozen copies kept (capture/list), 0 = none */
    uint32_t of_malformed_limit;         /* bad messages per switch per minute */
    uint32_t of_max_ports;               /* per switch */
    uint32_t of_forget_after_s;          /* gone switches forgotten, 0 = never */
    uint32_t of_max_switches_known;      /* switch records kept, up or down */
    uint32_t of_mp_max_kb;               /* one multipart reply, all parts */
    uint32_t of_mp_max_parts;
    uint32_t of_stats_interval_s;        /* flow/port/table stats polling, 0 = off */
    char of_role[16];                    /* equal | master | slave */
    uint64_t of_generation_id;           /* for master/slave ROLE_REQUEST */

    /* [tls] */
    uint16_t tls_port;                   /* OpenFlow over TLS, 0 = none */
    char tls_cert[CFG_STR_MAX];
    char tls_key[CFG_STR_MAX];
    char tls_ca[CFG_STR_MAX];
    bool tls_verify_peer;
    char tls_min_version[8];
    char tls_ciphers[CFG_STR_MAX];
    char tls_ciphersuites[CFG_STR_MAX];
    uint32_t tls_handshake_timeout_ms;
    char tls_pins_file[CFG_STR_MAX];     /* "" = no dpid pinned to a certificate */
    uint32_t tls_verify_depth;           /* intermediate CAs a switch's chain may have */
    uint32_t tls_max_cert_list_kb;       /* largest certificate chain a switch may send */
    char tls_crl_file[CFG_STR_MAX];      /* "" = no revocation check */

    /* [tcp] */
    struct tcp_config tcp;               /* the stack's knobs, one per key */
    uint32_t tcp_chunks;                 /* payload chunks per io lcore */
    uint16_t tcp_echo_port;              /* test-only echo service, 0 = off */
    uint32_t tcp_echo_connect_ip;        /* test-only active echo target, 0 = off */
    uint16_t tcp_echo_connect_port;
    uint32_t tcp_backoff_min_ms;         /* active open: first reconnect delay */
    uint32_t tcp_backoff_max_ms;         /* active open: reconnect delay cap */
    /* Not a key: the build has no test services (meson's test_services off),
     * so the test-only keys (tcp.echo_port, tcp.echo_connect) accept only
     * their off value and are not printed. cfg_defaults leaves it false;
     * app/main.c sets it in a product build. */
    bool no_test_services;

    /* [apps] */
    bool l2_learning;                    /* the L2 learning-switch app */
    uint32_t l2_table_size;
    uint16_t l2_idle_timeout_s;
    bool topology;                       /* LLDP discovery and the topology APIs */
    bool mef_eline;                      /* EVCs (mef_eline v2) */
    bool eline_fast_failover;            /* EVCs' backups behind fast-failover groups */
    bool eline_meters;                   /* an EVC's bandwidth enforced by meters */

    /* [topology] */
    uint32_t topo_lldp_interval_s;
    uint32_t topo_link_timeout_s;
    uint32_t topo_lldp_max_age_ms;       /* older LLDP frames are stale */
    uint32_t topo_lldp_vlan;             /* the VLAN of LLDP frames and flow; 0 untagged */
    char topo_loop_actions[64];          /* log, disable, both (comma) or none */
    bool topo_enable_on_start;           /* new switches/interfaces enabled */
    uint32_t topo_max_links;
    uint32_t topo_max_interfaces;

    /* [rest] */
    uint32_t rest_ip;                    /* host byte order */
    uint16_t rest_port;
    uint32_t rest_threads;               /* libmicrohttpd pool threads */
    uint32_t rest_max_body_kb;           /* larger bodies: 413 */
    uint32_t rest_max_conns_per_ip;      /* open connections per client address */
    uint32_t rest_max_flows_per_request; /* flows x switches, larger: 413 */
    uint32_t rest_rate_limit_per_s;      /* per client address, 0 = off (429) */
    uint32_t rest_rate_burst;
    uint32_t rest_events_max_clients;
    uint32_t rest_events_queue_kb;
    char rest_tls_cert[CFG_STR_MAX];     /* PEM file; with rest_tls_key: HTTPS */
    char rest_tls_key[CFG_STR_MAX];
    bool rest_auth;                      /* bearer tokens required */
    bool rest_allow_insecure;            /* a non-loopback listen without auth */
    uint32_t rest_token_minutes;
    uint32_t rest_login_lock_s;          /* failed logins: lock time and memory */
    uint32_t rest_login_track_max;       /* addresses with failed logins remembered */
    uint32_t rest_login_concurrency;     /* password checks at once (+1 trusted) */
    uint32_t rest_refused_per_s;         /* refusals per address before it is shunned */
    uint32_t rest_refused_burst;
    char rest_users_file[CFG_STR_MAX];   /* "" = data_dir/users.json */
    char rest_reader_tokens_file[CFG_STR_MAX]; /* static reader tokens, "" = none */
    char rest_ui_dir[CFG_STR_MAX];       /* the dashboard's files, "" = next to the program */

    /* [flow_manager] */
    uint32_t fm_pacing_per_s;            /* flow_mods/s per owner per switch, 0 = off */
    uint32_t fm_queue_max;               /* flow_mods waiting per switch before 503 */
    uint32_t fm_snapshot_budget_mb;      /* all switches' flow-stats snapshots together */
    bool fm_consistency;                 /* the consistency check runs */
    uint32_t fm_consistency_min_interval_s;
    uint32_t fm_deleted_retention_s;     /* deleted flows listed this long, 0 = not kept */
    char fm_ignore_cookies[CFG_STR_MAX]; /* "lo-hi,..." as written */
    char fm_ignore_tables[CFG_STR_MAX];
    struct ofcd_range fm_ignore_cookie[CFG_MAX_RANGES];
    unsigned n_fm_ignore_cookie;
    struct ofcd_range fm_ignore_table[CFG_MAX_RANGES];
    unsigned n_fm_ignore_table;
    uint32_t fm_store_map_mb;            /* the store's size limit (LMDB map size) */
    uint32_t fm_store_linger_us;         /* group commit: wait for company, µs */
    char fm_durability[16];              /* sync | async: when a change is answered */

    /* [store] */
    char store_backend[16];              /* lmdb | memory */
    bool store_journal;                  /* lmdb: a journal is the durability source */
    uint32_t store_checkpoint_ms;        /* journal: LMDB synced at least this often */
    uint32_t store_checkpoint_mb;        /* journal: ... or after this much journal */

    /* [cluster] */
    char cluster_etcd_endpoints[CFG_STR_MAX]; /* "" = no cluster */
    char cluster_node_id[64];            /* "" = the host name (cfg_finish fills it) */
    uint32_t cluster_lease_ttl_s;
    char cluster_prefix[128];            /* "/.../" */
    char cluster_etcd_ca[CFG_STR_MAX];
    char cluster_etcd_cert[CFG_STR_MAX];
    char cluster_etcd_key[CFG_STR_MAX];
    char cluster_etcd_user[64];
    char cluster_etcd_api[8];                 /* grpc or json */
    char cluster_etcd_password_file[CFG_STR_MAX];

    /* [app] */
    char data_dir[CFG_STR_MAX];
    int log_level;                       /* enum ofcd_log_level */
    uint32_t stats_log_interval_s;       /* 0 = never */
    char ctl_socket[CFG_STR_MAX];        /* ofcdctl's; "" = /run/ofcd/<file-prefix>.ctl */
    char ctl_group[CFG_STR_MAX];         /* its group (mode 660); "" = owner only (600) */

    /* [fault] */
    bool fault_enabled;
    uint64_t fault_seed;
    struct cfg_fault_dir fault_rx;
    struct cfg_fault_dir fault_tx;
};

/* Fill every key with its documented default. */
void cfg_defaults(struct ofcd_config *cfg);

/*
 * Parse an INI-style file: "[section]", "key = value", '#' or ';' comments,
 * blank lines. Unknown section/key, a key outside a section, a line that is
 * not "key = value", or a bad value → -EINVAL with err filled.
 * A missing file → -ENOENT with err filled.
 */
int cfg_load_file(struct ofcd_config *cfg, const char *path, char *err, size_t errlen);

/* Same parser over a string (used by tests and by cfg_load_file). origin names
 * the source in errors. */
int cfg_load_string(struct ofcd_config *cfg, const char *text, const char *origin,
                    char *err, size_t errlen);

/*
 * Apply one "section.key=value" (the leading "--" already stripped).
 * Returns 0, or -EINVAL with err filled (unknown key, missing '=', bad value).
 */
int cfg_apply_override(struct ofcd_config *cfg, const char *assignment, char *err,
                       size_t errlen);

/* Cross-key checks once everything is applied (e.g. mbuf_cache <= mbufs / 1.5,
 * kernel address in ofcd's subnet but not equal to it). */
int cfg_finish(struct ofcd_config *cfg, char *err, size_t errlen);

/* What a client of the cluster's etcd needs from [cluster], read once:
 * cluster.etcd_endpoints split at ',' with the blanks around each dropped
 * (their starts in endpoints[], pointing into list), the TLS files and the
 * user (NULL when unset), and the first line of cluster.etcd_password_file
 * when there is a user ("" otherwise). The cluster app and the store's
 * etcd backend both connect with it; wipe password after use. */
#define CFG_CLUSTER_ENDPOINTS_MAX 16u
struct cfg_cluster_etcd {
    char list[CFG_STR_MAX];
    const char *endpoints[CFG_CLUSTER_ENDPOINTS_MAX];
    size_t n_endpoints;
    const char *ca, *cert, *key, *user;
    char password[256];
    bool json;                     /* cluster.etcd_api = json */
};
/* 0, or the password file's error (logged with the key and the path: a
 * regular file, mode 600, a password on its first line). cfg_finish has
 * checked the endpoints. */
int cfg_cluster_etcd(const struct ofcd_config *cfg, struct cfg_cluster_etcd *out);

/* topology.lldp_loop_actions as flags: of_lldp's LLDP_LOOP_ACTIONS, a
 * comma-separated list of "log" and "disable", or "none". 0 or -EINVAL. */
enum { CFG_LOOP_LOG = 1u << 0, CFG_LOOP_DISABLE = 1u << 1 };
int cfg_loop_actions(const char *text, unsigned *out);

/* A pool of n_small buffers of 512 B has this many of 64 KiB beside it: one
 * per CFG_LARGE_SHARE small ones, at least CFG_LARGE_SHARE. */
#define CFG_LARGE_SHARE 64u
uint32_t cfg_large_buffers(uint32_t n_small);

/* The buffer shares in effect: the openflow.*_buffers keys, those left at 0
 * derived from the pools and the number of io lcores (cfg_shares.c). */
struct cfg_buffer_shares {
    uint32_t pending_buffers;
    uint32_t ip_buffers;
    uint32_t ip_buffer_kb;
    uint32_t ip_control_buffers;
};
void cfg_buffer_shares(const struct ofcd_config *cfg, struct cfg_buffer_shares *out);

/* Print every key with its default and help, grouped by section (for --help). */
void cfg_print_help(FILE *out);

/* Print the effective configuration as a valid config file. */
void cfg_print(const struct ofcd_config *cfg, FILE *out);

/* Each key whose value differs between a and b, in the file's order, as
 * "section.key" and both values as cfg_print writes them. fn returning
 * non-zero stops the walk with that value; else 0. */
typedef int (*cfg_diff_fn)(const char *key, const char *was, const char *now, void *arg);
int cfg_diff(const struct ofcd_config *a, const struct ofcd_config *b, cfg_diff_fn fn,
             void *arg);

/* One key's value ("section.key") from src into dst, nothing else: 0, or
 * -ENOENT for no such key, -EINVAL for a key whose value spans two fields
 * (an address and its prefix), which a reload never takes alone. */
int cfg_copy_key(struct ofcd_config *dst, const struct ofcd_config *src, const char *key);

#endif
