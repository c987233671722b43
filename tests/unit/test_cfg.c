/*
 * test_cfg: unit tests of the configuration module (config/cfg.c and the
 * schema in config/cfg_schema.c).
 *
 * Covers the documented defaults, the shipped config/ofcd.conf (found through
 * the OFCD_CONF environment variable, else $OFCD_SOURCE_ROOT/config/ofcd.conf,
 * else that test is skipped), every value type at its edges, the file syntax,
 * command-line overrides, each cross-key rule of cfg_finish(), the contents
 * of error messages and the print -> parse round trip.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfg.h"
#include "cfg_priv.h"
#include "ofcd_log.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

/* ------------------------------------------------------------------------ */
/* helpers                                                                    */

static void assert_has(const char *haystack, const char *needle)
{
    if (strstr(haystack, needle) == NULL)
        fail_msg("expected '%s' in \"%s\"", needle, haystack);
}

static void assert_lacks(const char *haystack, const char *needle)
{
    if (strstr(haystack, needle) != NULL)
        fail_msg("did not expect '%s' in \"%s\"", needle, haystack);
}

static void assert_cfg_equal(const struct ofcd_config *a, const struct ofcd_config *b)
{
    if (memcmp(a, b, sizeof(*a)) != 0)
        fail_msg("configs differ");
}

static void override_ok(struct ofcd_config *cfg, const char *assignment)
{
    char err[CFG_ERR_MAX] = "";
    int rc = cfg_apply_override(cfg, assignment, err, sizeof(err));
    if (rc != 0)
        fail_msg("'%s' rejected (%d): %s", assignment, rc, err);
}

/*
 * The override must fail with -EINVAL, leave cfg untouched, and the error
 * must contain every needle (NULL-terminated). err receives the message.
 */
static void override_bad(struct ofcd_config *cfg, const char *assignment, char *err,
                         const char *needle, ...)
{
    struct ofcd_config before;
    memcpy(&before, cfg, sizeof(before));
    err[0] = '\0';
    int rc = cfg_apply_override(cfg, assignment, err, CFG_ERR_MAX);
    if (rc != -EINVAL)
        fail_msg("'%s' gave %d, expected -EINVAL", assignment, rc);
    assert_cfg_equal(cfg, &before);
    assert_null(strchr(err, '\n'));
    va_list ap;
    va_start(ap, needle);
    for (const char *n = needle; n != NULL; n = va_arg(ap, const char *))
        assert_has(err, n);
    va_end(ap);
}

static int load(struct ofcd_config *cfg, const char *text, char *err)
{
    err[0] = '\0';
    return cfg_load_string(cfg, text, "t.conf", err, CFG_ERR_MAX);
}

/* Loading must fail with -EINVAL, leave cfg untouched, and mention needles. */
static void load_bad(const char *text, const char *needle, ...)
{
    struct ofcd_config cfg, before;
    char err[CFG_ERR_MAX];
    cfg_defaults(&cfg);
    memcpy(&before, &cfg, sizeof(before));
    int rc = load(&cfg, text, err);
    if (rc != -EINVAL)
        fail_msg("text \"%s\" gave %d, expected -EINVAL", text, rc);
    assert_cfg_equal(&cfg, &before);
    assert_null(strchr(err, '\n'));
    va_list ap;
    va_start(ap, needle);
    for (const char *n = needle; n != NULL; n = va_arg(ap, const char *))
        assert_has(err, n);
    va_end(ap);
}

static void load_ok(struct ofcd_config *cfg, const char *text)
{
    char err[CFG_ERR_MAX];
    int rc = load(cfg, text, err);
    if (rc != 0)
        fail_msg("text \"%s\" rejected (%d): %s", text, rc, err);
}

static uint64_t get_uint(const struct ofcd_config *cfg, size_t off, size_t size)
{
    const char *p = (const char *)cfg + off;
    switch (size) {
    case 1: { uint8_t v; memcpy(&v, p, 1); return v; }
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

/* Captures what a printer writes to a FILE. Caller frees. */
static char *capture(void (*fn)(const struct ofcd_config *, FILE *),
                     const struct ofcd_config *cfg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    fn(cfg, f);
    fclose(f);
    return buf;
}

static void print_cfg_adapter(const struct ofcd_config *cfg, FILE *out)
{
    cfg_print(cfg, out);
}

static void print_help_adapter(const struct ofcd_config *cfg, FILE *out)
{
    (void)cfg;
    cfg_print_help(out);
}

static const struct cfg_key *row(const char *section, const char *name)
{
    for (size_t i = 0; i < cfg_n_keys; i++)
        if (strcmp(cfg_keys[i].section, section) == 0 && strcmp(cfg_keys[i].name, name) == 0)
            return &cfg_keys[i];
    fail_msg("no schema row %s.%s", section, name);
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* defaults and schema                                                        */

static void test_defaults(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX] = "";
    cfg_defaults(&c);

    assert_string_equal(c.eal_args,
                        "--no-huge -m 512 --no-pci --vdev=net_tap0,iface=ofc0 --file-prefix=ofcd");
    assert_int_equal(c.ip, IP4(10, 66, 0, 2));
    assert_int_equal(c.prefix_len, 24);
    assert_false(c.has_mac);
    assert_true(c.configure_kernel);
    assert_int_equal(c.kernel_ip, IP4(10, 66, 0, 1));
    assert_int_equal(c.kernel_prefix_len, 24);
    assert_int_equal(c.arp_cache_size, 1024);
    assert_int_equal(c.arp_timeout_s, 300);
    assert_true(c.gratuitous_arp);
    assert_int_equal(c.mbufs, 8191);
    assert_int_equal(c.mbuf_cache, 256);
    assert_int_equal(c.rx_desc, 1024);
    assert_int_equal(c.tx_desc, 1024);
    assert_int_equal(c.burst, 32);
    assert_int_equal(c.n_io_lcores, 1);
    assert_int_equal(c.io_lcores[0], 0);
    assert_int_equal(c.n_worker_lcores, 1);
    assert_int_equal(c.worker_lcores[0], 0);
    assert_int_equal(c.idle_sleep_us, 50);
    assert_int_equal(c.idle_polls, 1024);
    assert_int_equal(c.of_port, 6653);
    assert_int_equal(c.of_extra_port, 0);
    assert_int_equal(c.of_handshake_timeout_ms, 10000);
    assert_int_equal(c.of_echo_interval_ms, 5000);
    assert_int_equal(c.of_echo_timeout_ms, 15000);
    assert_int_equal(c.of_rtt_probe_ms, 10000);
    assert_int_equal(c.of_miss_send_len, 128);
    assert_int_equal(c.of_queue_size, 4096);
    assert_int_equal(c.of_msg_buffers, 32768);
    assert_int_equal(c.of_out_backlog_kb, 4096);
    assert_int_equal(c.of_recorder_kb, 4);
    assert_int_equal(c.of_recorder_frozen, 32);
    assert_int_equal(c.of_malformed_limit, 16);
    assert_int_equal(c.of_stats_interval_s, 10);
    assert_string_equal(c.of_role, "equal");
    assert_int_equal(c.of_generation_id, 0);
    assert_false(c.l2_learning);
    assert_int_equal(c.l2_table_size, 4096);
    assert_int_equal(c.l2_idle_timeout_s, 60);
    char rerr[CFG_ERR_MAX];
    struct ofcd_config rc = c;
    assert_int_equal(cfg_apply_override(&rc, "openflow.role=master", rerr, sizeof(rerr)), 0);
    assert_int_equal(cfg_finish(&rc, rerr, sizeof(rerr)), 0);
    assert_int_equal(cfg_apply_override(&rc, "openflow.role=boss", rerr, sizeof(rerr)), 0);
    assert_int_equal(cfg_finish(&rc, rerr, sizeof(rerr)), -EINVAL);
    assert_non_null(strstr(rerr, "openflow.role"));
    assert_int_equal(c.rest_ip, IP4(127, 0, 0, 1));
    assert_int_equal(c.rest_port, 8181);
    assert_string_equal(c.data_dir, "./var");
    assert_int_equal(c.rest_threads, 4);
    assert_int_equal(c.rest_max_body_kb, 16384);
    assert_int_equal(c.rest_rate_limit_per_s, 0);
    assert_int_equal(c.rest_max_conns_per_ip, 128);
    assert_int_equal(c.rest_login_lock_s, 60);
    assert_int_equal(c.rest_login_track_max, 4096);
    assert_int_equal(c.rest_login_concurrency, 1);
    assert_int_equal(c.fm_pacing_per_s, 1000);
    assert_int_equal(c.fm_queue_max, 100000);
    assert_int_equal(c.fm_snapshot_budget_mb, 512);
    assert_true(c.fm_consistency);
    assert_int_equal(c.fm_consistency_min_interval_s, 60);
    assert_string_equal(c.fm_ignore_cookies, "");
    assert_int_equal(c.fm_store_map_mb, 1024);
    assert_false(c.store_journal);
    assert_int_equal(c.store_checkpoint_ms, 1000);
    assert_int_equal(c.store_checkpoint_mb, 64);
    assert_int_equal(c.log_level, OFCD_LOG_INFO);
    assert_int_equal(c.stats_log_interval_s, 60);
    /* The [tcp] defaults are the stack's own documented defaults. */
    struct tcp_config td;
    tcp_config_defaults(&td);
    assert_int_equal(c.tcp.mss, td.mss);
    assert_int_equal(c.tcp.rcv_buf, td.rcv_buf);
    assert_int_equal(c.tcp.snd_buf, td.snd_buf);
    assert_int_equal(c.tcp.max_conns, td.max_conns);
    assert_int_equal(c.tcp.syn_backlog, td.syn_backlog);
    assert_int_equal(c.tcp.rto_min_ms, td.rto_min_ms);
    assert_int_equal(c.tcp.rto_max_ms, td.rto_max_ms);
    assert_int_equal(c.tcp.rto_initial_ms, td.rto_initial_ms);
    assert_int_equal(c.tcp.delack_ms, td.delack_ms);
    assert_int_equal(c.tcp.syn_retries, td.syn_retries);
    assert_int_equal(c.tcp.max_retrans, td.max_retrans);
    assert_int_equal(c.tcp.time_wait_ms, td.time_wait_ms);
    assert_int_equal(c.tcp.max_time_wait, td.max_time_wait);
    assert_int_equal(c.tcp.fin_wait2_ms, td.fin_wait2_ms);
    assert_int_equal(c.tcp.keepalive_idle_s, td.keepalive_idle_s);
    assert_int_equal(c.tcp.keepalive_intvl_s, td.keepalive_intvl_s);
    assert_int_equal(c.tcp.keepalive_probes, td.keepalive_probes);
    assert_int_equal(c.tcp.ooo_max_segs, td.ooo_max_segs);
    assert_int_equal(c.tcp.challenge_ack_per_s, td.challenge_ack_per_s);
    assert_int_equal(c.tcp.invalid_ack_interval_ms, td.invalid_ack_interval_ms);
    assert_true(c.tcp.syncookies == td.syncookies && c.tcp.timestamps == td.timestamps &&
                c.tcp.window_scaling == td.window_scaling);
    assert_int_equal(c.tcp_chunks, 32768);
    assert_int_equal(c.tcp_echo_port, 0);
    assert_int_equal(c.tcp_echo_connect_ip, 0);
    assert_int_equal(c.tcp_echo_connect_port, 0);
    assert_int_equal(c.tcp_backoff_min_ms, 1000);
    assert_int_equal(c.tcp_backoff_max_ms, 30000);
    assert_false(c.fault_enabled);
    assert_int_equal(c.fault_seed, 1);
    const struct cfg_fault_dir *dirs[] = {&c.fault_rx, &c.fault_tx};
    for (size_t i = 0; i < 2; i++) {
        assert_true(dirs[i]->drop == 0.0 && dirs[i]->dup == 0.0);
        assert_true(dirs[i]->reorder == 0.0 && dirs[i]->delay == 0.0);
        assert_int_equal(dirs[i]->delay_us, 1000);
    }

    /* The defaults must pass the cross checks, or a fresh machine cannot start. */
    assert_int_equal(cfg_finish(&c, err, sizeof(err)), 0);

    /* Deterministic: two calls give byte-identical structs (padding included). */
    struct ofcd_config d;
    memset(&d, 0xa5, sizeof(d));
    cfg_defaults(&d);
    assert_cfg_equal(&c, &d);
}

static void test_schema_rows(void **state)
{
    (void)state;
    struct ofcd_config scratch;
    char why[CFG_ERR_MAX];
    memset(&scratch, 0, sizeof(scratch));

    assert_true(cfg_n_keys > 0 && cfg_n_keys <= CFG_KEYS_MAX);
    for (size_t i = 0; i < cfg_n_keys; i++) {
        const struct cfg_key *k = &cfg_keys[i];
        why[0] = '\0';
        /* Every default goes through the same parser as user input. */
        if (cfg_parse_value(k, k->def, &scratch, why, sizeof(why)) != 0)
            fail_msg("default of %s.%s ('%s') does not parse: %s", k->section, k->name,
                     k->def, why);
        assert_true(k->off + k->size <= sizeof(struct ofcd_config));
        assert_non_null(k->help);
        assert_true(strlen(k->help) > 0);
        assert_true(strlen(k->section) + 1 + strlen(k->name) < 64);
        if (k->type == CFG_T_UINT) {
            assert_true(k->size == 1 || k->size == 2 || k->size == 4 || k->size == 8);
            assert_true(k->min <= k->max);
            if (k->size < 8)
                assert_true(k->max < (1ull << (8 * k->size)));
        }
        for (size_t j = 0; j < i; j++)
            assert_false(strcmp(k->section, cfg_keys[j].section) == 0 &&
                         strcmp(k->name, cfg_keys[j].name) == 0);
        /* Rows of a section are contiguous, so help and print group them. */
        if (i > 0 && strcmp(k->section, cfg_keys[i - 1].section) != 0)
            for (size_t j = 0; j < i; j++)
                assert_string_not_equal(k->section, cfg_keys[j].section);
    }
}

/* Path of the shipped config file, or NULL: OFCD_CONF, else the source root. */
static const char *shipped_conf(char *buf, size_t len)
{
    const char *p = getenv("OFCD_CONF");
    if (p != NULL && *p != '\0')
        return p;
    p = getenv("OFCD_SOURCE_ROOT");
    if (p != NULL && *p != '\0') {
        snprintf(buf, len, "%s/config/ofcd.conf", p);
        return buf;
    }
    return NULL;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = calloc(1, 1 << 20);
    assert_non_null(buf);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* True if text has a line "name = ..." (blanks allowed) under [section]. */
static int conf_mentions(const char *text, const char *section, const char *name)
{
    char cur[64] = "";
    const char *line = text;
    while (*line != '\0') {
        const char *end = strchr(line, '\n');
        size_t n = end != NULL ? (size_t)(end - line) : strlen(line);
        if (line[0] == '[') {
            const char *close = memchr(line, ']', n);
            if (close != NULL && (size_t)(close - line - 1) < sizeof(cur)) {
                memcpy(cur, line + 1, (size_t)(close - line - 1));
                cur[close - line - 1] = '\0';
            }
        } else if (strcmp(cur, section) == 0 && strncmp(line, name, strlen(name)) == 0) {
            const char *p = line + strlen(name);
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p == '=')
                return 1;
        }
        line += n + (end != NULL ? 1 : 0);
    }
    return 0;
}

static void test_shipped_conf(void **state)
{
    (void)state;
    char pathbuf[4096];
    const char *path = shipped_conf(pathbuf, sizeof(pathbuf));
    if (path == NULL) {
        print_message("OFCD_CONF and OFCD_SOURCE_ROOT unset: skipping\n");
        skip();
    }
    struct ofcd_config defaults, loaded;
    char err[CFG_ERR_MAX] = "";
    cfg_defaults(&defaults);
    cfg_defaults(&loaded);
    int rc = cfg_load_file(&loaded, path, err, sizeof(err));
    if (rc != 0)
        fail_msg("%s: %s", path, err);
    assert_cfg_equal(&loaded, &defaults);

    /* Every key is written out, so the file documents all of them. */
    char *text = slurp(path);
    for (size_t i = 0; i < cfg_n_keys; i++)
        if (!conf_mentions(text, cfg_keys[i].section, cfg_keys[i].name))
            fail_msg("%s lacks %s.%s", path, cfg_keys[i].section, cfg_keys[i].name);
    free(text);
}

/* ------------------------------------------------------------------------ */
/* value types                                                                */

struct uint_case {
    const char *key;
    uint64_t min, max;
    size_t off, size;
};

#define UCASE(k, f, lo, hi)                                                                \
    {k, lo, hi, offsetof(struct ofcd_config, f), sizeof(((struct ofcd_config *)0)->f)}

/* The documented ranges, written independently of the schema table. */
static const struct uint_case uint_cases[] = {
    UCASE("net.arp_cache_size", arp_cache_size, 16, 1048576),
    UCASE("net.arp_timeout_s", arp_timeout_s, 1, 86400),
    UCASE("port.mbufs", mbufs, 1023, 1048575),
    UCASE("port.mbuf_cache", mbuf_cache, 0, 512),
    UCASE("port.rx_desc", rx_desc, 64, 16384),
    UCASE("port.tx_desc", tx_desc, 64, 16384),
    UCASE("port.burst", burst, 1, 512),
    UCASE("lcores.idle_sleep_us", idle_sleep_us, 0, 100000),
    UCASE("lcores.idle_polls", idle_polls, 1, 1000000),
    UCASE("openflow.port", of_port, 0, 65535),
    UCASE("openflow.extra_port", of_extra_port, 0, 65535),
    UCASE("tls.port", tls_port, 0, 65535),
    UCASE("tls.handshake_timeout_ms", tls_handshake_timeout_ms, 100, 600000),
    UCASE("tls.verify_depth", tls_verify_depth, 1, 32),
    UCASE("tls.max_cert_list_kb", tls_max_cert_list_kb, 4, 1024),
    UCASE("openflow.handshake_timeout_ms", of_handshake_timeout_ms, 0, 600000),
    UCASE("openflow.hello_timeout_ms", of_hello_timeout_ms, 0, 600000),
    UCASE("openflow.max_pending", of_max_pending, 1, 1048576),
    UCASE("openflow.pending_conn_buffers", of_pending_conn_buffers, 4, 4194304),
    UCASE("openflow.pending_buffers", of_pending_buffers, 0, 4194304),
    UCASE("openflow.ip_buffers", of_ip_buffers, 0, 4194304),
    UCASE("openflow.ip_buffer_kb", of_ip_buffer_kb, 0, 4194304),
    UCASE("openflow.ip_control_buffers", of_ip_control_buffers, 0, 4194304),
    UCASE("openflow.echo_interval_ms", of_echo_interval_ms, 0, 3600000),
    UCASE("openflow.echo_timeout_ms", of_echo_timeout_ms, 0, 3600000),
    UCASE("openflow.rtt_probe_ms", of_rtt_probe_ms, 0, 3600000),
    UCASE("openflow.miss_send_len", of_miss_send_len, 0, 65535),
    UCASE("openflow.queue_size", of_queue_size, 64, 1048576),
    UCASE("openflow.msg_buffers", of_msg_buffers, 1024, 4194304),
    UCASE("openflow.control_buffers", of_control_buffers, 1024, 4194304),
    UCASE("openflow.event_buffers", of_event_buffers, 0, 8388608),
    UCASE("openflow.max_ports", of_max_ports, 1, 1048576),
    UCASE("openflow.forget_after_s", of_forget_after_s, 0, 31536000),
    UCASE("openflow.max_switches_known", of_max_switches_known, 1, 1048576),
    UCASE("openflow.mp_max_kb", of_mp_max_kb, 64, 4194304),
    UCASE("openflow.mp_max_parts", of_mp_max_parts, 1, 1048576),
    UCASE("openflow.conn_buffers", of_conn_buffers, 16, 4194304),
    UCASE("openflow.conn_control_buffers", of_conn_control_buffers, 8, 4194304),
    UCASE("openflow.conn_buffer_kb", of_conn_buffer_kb, 64, 4194304),
    UCASE("openflow.out_backlog_kb", of_out_backlog_kb, 64, 1048576),
    UCASE("openflow.recorder_kb", of_recorder_kb, 0, 256),
    UCASE("openflow.recorder_frozen", of_recorder_frozen, 0, 1024),
    UCASE("openflow.malformed_limit", of_malformed_limit, 1, 100000),
    UCASE("openflow.stats_interval_s", of_stats_interval_s, 0, 86400),
    UCASE("openflow.generation_id", of_generation_id, 0, UINT64_MAX),
    UCASE("apps.l2_table_size", l2_table_size, 16, 1048576),
    UCASE("apps.l2_idle_timeout_s", l2_idle_timeout_s, 0, 65535),
    UCASE("app.stats_log_interval_s", stats_log_interval_s, 0, 86400),
    UCASE("tcp.mss", tcp.mss, 536, 1460),
    UCASE("tcp.rcv_buf", tcp.rcv_buf, 65536, 16777216),
    UCASE("tcp.snd_buf", tcp.snd_buf, 4096, 16777216),
    UCASE("tcp.buffer_chunks", tcp_chunks, 1024, 4194304),
    UCASE("tcp.max_conns", tcp.max_conns, 16, 1048576),
    UCASE("tcp.syn_backlog", tcp.syn_backlog, 1, 65535),
    UCASE("tcp.rto_min_ms", tcp.rto_min_ms, 1, 60000),
    UCASE("tcp.rto_max_ms", tcp.rto_max_ms, 100, 600000),
    UCASE("tcp.rto_initial_ms", tcp.rto_initial_ms, 1, 600000),
    UCASE("tcp.delack_ms", tcp.delack_ms, 1, 40),
    UCASE("tcp.syn_retries", tcp.syn_retries, 1, 10),
    UCASE("tcp.max_retrans", tcp.max_retrans, 1, 30),
    UCASE("tcp.time_wait_ms", tcp.time_wait_ms, 100, 240000),
    UCASE("tcp.max_time_wait", tcp.max_time_wait, 0, 1048576),
    UCASE("tcp.fin_wait2_ms", tcp.fin_wait2_ms, 1000, 600000),
    UCASE("tcp.keepalive_idle_s", tcp.keepalive_idle_s, 0, 86400),
    UCASE("tcp.keepalive_intvl_s", tcp.keepalive_intvl_s, 1, 3600),
    UCASE("tcp.keepalive_probes", tcp.keepalive_probes, 1, 255),
    UCASE("tcp.ooo_max_segs", tcp.ooo_max_segs, 0, 4096),
    UCASE("tcp.challenge_ack_per_s", tcp.challenge_ack_per_s, 1, 1000000),
    UCASE("tcp.invalid_ack_interval_ms", tcp.invalid_ack_interval_ms, 1, 60000),
    UCASE("tcp.echo_port", tcp_echo_port, 0, 65535),
    UCASE("tcp.connect_backoff_min_ms", tcp_backoff_min_ms, 10, 600000),
    UCASE("tcp.connect_backoff_max_ms", tcp_backoff_max_ms, 10, 600000),
    UCASE("rest.threads", rest_threads, 1, 256),
    UCASE("rest.max_body_kb", rest_max_body_kb, 1, 1048576),
    UCASE("rest.max_conns_per_ip", rest_max_conns_per_ip, 1, 4096),
    UCASE("rest.max_flows_per_request", rest_max_flows_per_request, 1, 100000000),
    UCASE("rest.rate_limit_per_s", rest_rate_limit_per_s, 0, 10000000),
    UCASE("rest.rate_burst", rest_rate_burst, 1, 10000000),
    UCASE("rest.events_max_clients", rest_events_max_clients, 1, 256),
    UCASE("rest.events_queue_kb", rest_events_queue_kb, 4, 65536),
    UCASE("flow_manager.pacing_per_s", fm_pacing_per_s, 0, 10000000),
    UCASE("flow_manager.queue_max", fm_queue_max, 16, 100000000),
    UCASE("flow_manager.snapshot_budget_mb", fm_snapshot_budget_mb, 1, 1048576),
    UCASE("flow_manager.consistency_min_interval_s", fm_consistency_min_interval_s, 1, 86400),
    UCASE("flow_manager.deleted_retention_s", fm_deleted_retention_s, 0, 31536000),
    UCASE("flow_manager.store_map_mb", fm_store_map_mb, 16, 1048576),
    UCASE("flow_manager.store_linger_us", fm_store_linger_us, 0, 100000),
    UCASE("store.checkpoint_ms", store_checkpoint_ms, 10, 600000),
    UCASE("store.checkpoint_mb", store_checkpoint_mb, 1, 4096),
    UCASE("cluster.lease_ttl_s", cluster_lease_ttl_s, 2, 60),
    UCASE("rest.token_minutes", rest_token_minutes, 1, 525600),
    UCASE("rest.login_lock_s", rest_login_lock_s, 1, 86400),
    UCASE("rest.login_track_max", rest_login_track_max, 16, 1048576),
    UCASE("rest.login_concurrency", rest_login_concurrency, 1, 64),
    UCASE("rest.refused_per_s", rest_refused_per_s, 0, 1000000),
    UCASE("rest.refused_burst", rest_refused_burst, 1, 1000000),
    UCASE("topology.lldp_interval_s", topo_lldp_interval_s, 1, 3600),
    UCASE("topology.link_timeout_s", topo_link_timeout_s, 1, 3600),
    UCASE("topology.lldp_max_age_ms", topo_lldp_max_age_ms, 100, 3600000),
    UCASE("topology.lldp_vlan", topo_lldp_vlan, 0, 4094),
    UCASE("topology.max_links", topo_max_links, 16, 4194304),
    UCASE("topology.max_interfaces", topo_max_interfaces, 16, 16777216),
    UCASE("fault.seed", fault_seed, 0, UINT64_MAX),
    UCASE("fault.rx_delay_us", fault_rx.delay_us, 0, 10000000),
    UCASE("fault.tx_delay_us", fault_tx.delay_us, 0, 10000000),
};

static void test_uint_values(void **state)
{
    (void)state;
    static const char *const garbage[] = {
        "", "-1", "+1", " 1", "1 ", "0x10", "1.5", "1e3", "abc", "12abc", "1,000",
        "18446744073709551616", "99999999999999999999999",
    };
    size_t n_uint_rows = 0;
    for (size_t i = 0; i < cfg_n_keys; i++)
        n_uint_rows += cfg_keys[i].type == CFG_T_UINT;
    /* A new integer key must get a line in uint_cases. */
    assert_int_equal(n_uint_rows, ARRAY_SIZE(uint_cases));

    for (size_t i = 0; i < ARRAY_SIZE(uint_cases); i++) {
        const struct uint_case *u = &uint_cases[i];
        struct ofcd_config c;
        char a[128], err[CFG_ERR_MAX], val[32], range[64];
        cfg_defaults(&c);
        snprintf(range, sizeof(range), "%llu..%llu", (unsigned long long)u->min,
                 (unsigned long long)u->max);

        snprintf(a, sizeof(a), "%s=%llu", u->key, (unsigned long long)u->min);
        override_ok(&c, a);
        assert_true(get_uint(&c, u->off, u->size) == u->min);
        snprintf(a, sizeof(a), "%s=%llu", u->key, (unsigned long long)u->max);
        override_ok(&c, a);
        assert_true(get_uint(&c, u->off, u->size) == u->max);
        /* Leading zeros are still decimal. */
        snprintf(a, sizeof(a), "%s=00%llu", u->key, (unsigned long long)u->min);
        override_ok(&c, a);
        assert_true(get_uint(&c, u->off, u->size) == u->min);

        if (u->min > 0) {
            snprintf(val, sizeof(val), "%llu", (unsigned long long)u->min - 1);
            snprintf(a, sizeof(a), "%s=%s", u->key, val);
            char quoted[40];
            snprintf(quoted, sizeof(quoted), "'%s'", val);
            override_bad(&c, a, err, "command line", u->key, quoted, range, NULL);
        }
        if (u->max < UINT64_MAX) {
            snprintf(val, sizeof(val), "%llu", (unsigned long long)u->max + 1);
            snprintf(a, sizeof(a), "%s=%s", u->key, val);
            char quoted[40];
            snprintf(quoted, sizeof(quoted), "'%s'", val);
            override_bad(&c, a, err, "command line", u->key, quoted, range, NULL);
        }
        for (size_t g = 0; g < ARRAY_SIZE(garbage); g++) {
            snprintf(a, sizeof(a), "%s=%s", u->key, garbage[g]);
            override_bad(&c, a, err, u->key, "must be an integer in", range, NULL);
        }
    }
}

static void test_uint_error_text(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    cfg_defaults(&c);
    assert_int_equal(load(&c, "[net]\n\narp_cache_size = 5\n", err), -EINVAL);
    /* The exact form promised to users in the documentation. */
    assert_string_equal(err, "t.conf:3: net.arp_cache_size = '5': must be an integer in "
                        "16..1048576");
}

static void test_bool_values(void **state)
{
    (void)state;
    static const struct {
        const char *word;
        bool value;
    } good[] = {
        {"true", true}, {"false", false}, {"yes", true}, {"no", false}, {"on", true},
        {"off", false}, {"1", true}, {"0", false}, {"TRUE", true}, {"Off", false},
    };
    static const char *const bad[] = {"", "2", "-1", "tru", "yes please", "enabled", "01"};
    struct ofcd_config c;
    char a[64], err[CFG_ERR_MAX];
    cfg_defaults(&c);
    for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
        c.gratuitous_arp = !good[i].value;
        snprintf(a, sizeof(a), "net.gratuitous_arp=%s", good[i].word);
        override_ok(&c, a);
        assert_int_equal(c.gratuitous_arp, good[i].value);
    }
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        snprintf(a, sizeof(a), "fault.enabled=%s", bad[i]);
        override_bad(&c, a, err, "fault.enabled", "true or false", NULL);
    }
}

static void test_string_values(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    char a[CFG_STR_MAX + 64];
    cfg_defaults(&c);

    override_ok(&c, "app.data_dir=/var/lib/ofcd");
    assert_string_equal(c.data_dir, "/var/lib/ofcd");
    override_ok(&c, "eal.args=-l 0-1 --vdev=net_tap0,iface=x");
    assert_string_equal(c.eal_args, "-l 0-1 --vdev=net_tap0,iface=x");

    /* 511 characters fit, 512 do not. */
    int n = snprintf(a, sizeof(a), "eal.args=");
    memset(a + n, 'x', CFG_STR_MAX - 1);
    a[n + CFG_STR_MAX - 1] = '\0';
    override_ok(&c, a);
    assert_int_equal(strlen(c.eal_args), CFG_STR_MAX - 1);
    a[n + CFG_STR_MAX - 1] = 'x';
    a[n + CFG_STR_MAX] = '\0';
    override_bad(&c, a, err, "eal.args", "too long", "at most 511", "...", NULL);
    assert_true(strlen(err) < CFG_ERR_MAX - 1);   /* long value shortened, not the reason */

    override_bad(&c, "eal.args=", err, "eal.args = ''", "non-empty", NULL);
    override_bad(&c, "app.data_dir=", err, "app.data_dir = ''", "non-empty", NULL);
    override_bad(&c, "app.data_dir=a\nb", err, "app.data_dir", "control character", NULL);
    override_bad(&c, "app.data_dir=a\tb", err, "app.data_dir", "control character", NULL);
}

static void check_cidr_good(const char *key, const char *val, uint32_t ip, uint8_t prefix)
{
    struct ofcd_config c;
    char a[128];
    cfg_defaults(&c);
    snprintf(a, sizeof(a), "%s=%s", key, val);
    override_ok(&c, a);
    if (strcmp(key, "net.address") == 0) {
        assert_int_equal(c.ip, ip);
        assert_int_equal(c.prefix_len, prefix);
    } else {
        assert_int_equal(c.kernel_ip, ip);
        assert_int_equal(c.kernel_prefix_len, prefix);
    }
}

static void test_cidr_values(void **state)
{
    (void)state;
    static const struct {
        const char *val;
        const char *reason;   /* extra text expected in the error, or NULL */
    } bad[] = {
        {"", NULL},
        {"10.66.0.2", "missing '/prefix'"},
        {"10.66.0.2/", "bad prefix length"},
        {"10.66.0.2/0", "bad prefix length"},
        {"10.66.0.2/31", "bad prefix length"},
        {"10.66.0.2/32", "bad prefix length"},
        {"10.66.0.2/-24", "bad prefix length"},
        {"10.66.0.2/24x", "bad prefix length"},
        {"10.66.0.2/99999999999999999999999", "bad prefix length"},
        {"10.66.0.256/24", NULL},
        {"10.66.0/24", NULL},
        {"10.66.0.2.1/24", NULL},
        {"010.66.0.2/24", NULL},
        {"10.66..2/24", NULL},
        {"a.b.c.d/24", NULL},
        {" 10.66.0.2/24", NULL},
        {"10.66.0.0/24", "all zeros"},
        {"10.66.0.255/24", "all ones"},
        {"1.2.3.4/30", "all zeros"},
        {"1.2.3.7/30", "all ones"},
        {"127.0.0.2/8", "unicast"},
        {"0.1.2.3/8", "unicast"},
        {"224.0.0.1/24", "unicast"},
        {"255.255.255.254/24", "unicast"},
    };
    check_cidr_good("net.address", "10.66.0.2/24", IP4(10, 66, 0, 2), 24);
    check_cidr_good("net.address", "192.168.1.5/30", IP4(192, 168, 1, 5), 30);
    check_cidr_good("net.address", "192.168.1.6/30", IP4(192, 168, 1, 6), 30);
    check_cidr_good("net.address", "10.0.0.1/1", IP4(10, 0, 0, 1), 1);
    check_cidr_good("net.kernel_address", "172.16.255.254/16", IP4(172, 16, 255, 254), 16);
    check_cidr_good("net.kernel_address", "1.0.0.1/8", IP4(1, 0, 0, 1), 8);

    struct ofcd_config c;
    char a[128], err[CFG_ERR_MAX], quoted[64];
    cfg_defaults(&c);
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        const char *key = i % 2 ? "net.kernel_address" : "net.address";
        snprintf(a, sizeof(a), "%s=%s", key, bad[i].val);
        snprintf(quoted, sizeof(quoted), "'%s'", bad[i].val);
        override_bad(&c, a, err, key, quoted, "A.B.C.D/1..30", bad[i].reason, NULL);
    }
}

static void test_ipport_values(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "", ":8181", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536",
        "127.0.0.1:99999999999999999999", "localhost:8181", "1.2.3.4:80x", "1.2.3:80",
        "1.2.3.4:-1", "1.2.3.4: 80", "[::1]:8181",
    };
    struct ofcd_config c;
    char a[128], err[CFG_ERR_MAX];
    cfg_defaults(&c);
    override_ok(&c, "rest.listen=0.0.0.0:1");
    assert_int_equal(c.rest_ip, 0);
    assert_int_equal(c.rest_port, 1);
    override_ok(&c, "rest.listen=192.168.10.20:65535");
    assert_int_equal(c.rest_ip, IP4(192, 168, 10, 20));
    assert_int_equal(c.rest_port, 65535);
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        snprintf(a, sizeof(a), "rest.listen=%s", bad[i]);
        override_bad(&c, a, err, "rest.listen", "A.B.C.D:1..65535", NULL);
    }
}

static void test_mac_values(void **state)
{
    (void)state;
    static const struct {
        const char *val;
        const char *reason;
    } bad[] = {
        {"01:00:5e:00:00:01", "multicast"},
        {"ff:ff:ff:ff:ff:ff", "multicast"},
        {"00:00:00:00:00:00", "all-zero"},
        {"02:00:00:00:00", NULL},
        {"02:00:00:00:00:0g", NULL},
        {"02-00-00-00-00-01", NULL},
        {"02:00:00:00:00:001", NULL},
        {"2:0:0:0:0:1", NULL},
        {"02:00:00:00:00:01:", NULL},
        {" ", NULL},
    };
    struct ofcd_config c;
    char a[128], err[CFG_ERR_MAX];
    cfg_defaults(&c);

    override_ok(&c, "net.mac=AA:bb:0C:dd:ee:f0");
    assert_true(c.has_mac);
    const uint8_t want[6] = {0xaa, 0xbb, 0x0c, 0xdd, 0xee, 0xf0};
    assert_memory_equal(c.mac, want, 6);

    /* Empty goes back to "use the port's MAC". */
    override_ok(&c, "net.mac=");
    assert_false(c.has_mac);
    struct ofcd_config d;
    cfg_defaults(&d);
    assert_cfg_equal(&c, &d);

    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        snprintf(a, sizeof(a), "net.mac=%s", bad[i].val);
        override_bad(&c, a, err, "net.mac", "unicast MAC", bad[i].reason, NULL);
    }
}

static void check_lcores(const char *val, const uint16_t *want, unsigned n)
{
    struct ofcd_config c;
    char a[640];
    cfg_defaults(&c);
    snprintf(a, sizeof(a), "lcores.worker=%s", val);
    override_ok(&c, a);
    assert_int_equal(c.n_worker_lcores, n);
    assert_memory_equal(c.worker_lcores, want, n * sizeof(uint16_t));
    for (unsigned i = n; i < CFG_MAX_LCORES; i++)
        assert_int_equal(c.worker_lcores[i], 0);
}

static void test_lcore_lists(void **state)
{
    (void)state;
    static const struct {
        const char *val;
        const char *reason;
    } bad[] = {
        {"", "no lcore given"},
        {" ", "no lcore given"},
        {",", "empty item"},
        {"1,", "empty item"},
        {",1", "empty item"},
        {"1,,2", "empty item"},
        {"128", "out of range"},
        {"0-128", "out of range"},
        {"99999999999999999999", "out of range"},
        {"3-1", "reversed"},
        {"1,1", "listed twice"},
        {"1-3,2", "listed twice"},
        {"0-127,5", "listed twice"},
        {"-1", "not an lcore id"},
        {"a", "not an lcore id"},
        {"1-", "not an lcore id"},
        {"1-2-3", "not an lcore id"},
        {"1;2", "not an lcore id"},
        {"+1", "not an lcore id"},
    };
    const uint16_t one[] = {0};
    const uint16_t r[] = {1, 2, 3};
    const uint16_t mix[] = {5, 1, 2, 3, 7};
    const uint16_t top[] = {127};
    uint16_t all[CFG_MAX_LCORES];
    for (unsigned i = 0; i < CFG_MAX_LCORES; i++)
        all[i] = (uint16_t)i;

    check_lcores("0", one, 1);
    check_lcores("1-3", r, 3);
    check_lcores("5,1-3, 7", mix, 5);
    check_lcores(" 5 , 1 - 3 ,7 ", mix, 5);
    check_lcores("127", top, 1);
    check_lcores("2-2", r + 1, 1);
    check_lcores("0-127", all, CFG_MAX_LCORES);

    struct ofcd_config c;
    char a[128], err[CFG_ERR_MAX];
    cfg_defaults(&c);
    /* A long list followed by a short one leaves no stale ids behind. */
    override_ok(&c, "lcores.io=0-127");
    override_ok(&c, "lcores.io=4");
    struct ofcd_config d;
    cfg_defaults(&d);
    override_ok(&d, "lcores.io=4");
    assert_cfg_equal(&c, &d);

    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        snprintf(a, sizeof(a), "lcores.io=%s", bad[i].val);
        override_bad(&c, a, err, "lcores.io", "0..127", bad[i].reason, NULL);
    }
}

static void test_rate_values(void **state)
{
    (void)state;
    static const struct {
        const char *val;
        double want;
    } good[] = {
        {"0", 0.0}, {"1", 1.0}, {"0.5", 0.5}, {".25", 0.25}, {"1.0", 1.0},
        {"1.", 1.0}, {"0.000001", 0.000001}, {"1e-3", 1e-3}, {"1E-3", 1e-3},
        {"5e-1", 0.5}, {"0.1", 0.1}, {"1e-400", 0.0},
    };
    static const char *const bad[] = {
        "", "-0.1", "-0", "1.1", "1.0000001", "+0.5", "nan", "inf", "0x0.8p0", "0.5x",
        "1e", ".", "e1", "5e-1.", "1e400", "0,5", " 0.5", "2",
    };
    struct ofcd_config c;
    char a[128], err[CFG_ERR_MAX];
    cfg_defaults(&c);
    for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
        snprintf(a, sizeof(a), "fault.tx_reorder=%s", good[i].val);
        override_ok(&c, a);
        if (c.fault_tx.reorder != good[i].want)
            fail_msg("'%s' gave %.17g", good[i].val, c.fault_tx.reorder);
    }
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        snprintf(a, sizeof(a), "fault.rx_drop=%s", bad[i]);
        override_bad(&c, a, err, "fault.rx_drop", "probability in 0..1", NULL);
    }
}

static void test_log_level_values(void **state)
{
    (void)state;
    static const struct {
        const char *val;
        int want;
    } good[] = {
        {"error", OFCD_LOG_ERR}, {"warn", OFCD_LOG_WARN},
        {"info", OFCD_LOG_INFO}, {"debug", OFCD_LOG_DEBUG},
    };
    static const char *const bad[] = {"", "verbose", "3", "err", "debug2"};
    struct ofcd_config c;
    char a[64], err[CFG_ERR_MAX];
    cfg_defaults(&c);
    for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
        snprintf(a, sizeof(a), "app.log_level=%s", good[i].val);
        override_ok(&c, a);
        assert_int_equal(c.log_level, good[i].want);
    }
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        snprintf(a, sizeof(a), "app.log_level=%s", bad[i]);
        override_bad(&c, a, err, "app.log_level", "error, warn, info, debug", NULL);
    }
}

/* app.ctl_socket: empty (the built-in path from the EAL file-prefix) by
 * default; a path longer than a unix socket's sun_path holds is refused
 * when the configuration is finished, before anything starts. */
static void test_ctl_socket(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX], a[256];
    cfg_defaults(&c);

    assert_string_equal(c.ctl_socket, "");
    override_ok(&c, "app.ctl_socket=/run/ofcd/test.ctl");
    assert_string_equal(c.ctl_socket, "/run/ofcd/test.ctl");
    assert_int_equal(cfg_finish(&c, err, sizeof(err)), 0);

    /* 107 bytes fit (and the NUL), 108 do not. */
    int n = snprintf(a, sizeof(a), "app.ctl_socket=/");
    memset(a + n, 'x', 106);
    a[n + 106] = '\0';
    override_ok(&c, a);
    assert_int_equal(strlen(c.ctl_socket), 107);
    assert_int_equal(cfg_finish(&c, err, sizeof(err)), 0);
    a[n + 106] = 'x';
    a[n + 107] = '\0';
    override_ok(&c, a);
    assert_int_equal(cfg_finish(&c, err, sizeof(err)), -EINVAL);
    assert_has(err, "app.ctl_socket");
    assert_has(err, "108 bytes");
    assert_has(err, "at most 107");
}

static int diff_collect(const char *key, const char *was, const char *now, void *arg)
{
    char *out = arg;
    size_t n = strlen(out);
    snprintf(out + n, 512 - n, "%s:%s>%s;", key, was, now);
    return 0;
}

static int diff_stop(const char *key, const char *was, const char *now, void *arg)
{
    (void)key, (void)was, (void)now;
    ++*(int *)arg;
    return 7;
}

/* What a reload compares: exactly the keys that changed, in the file's
 * order, with both values as --print-config writes them. */
static void test_diff(void **state)
{
    (void)state;
    struct ofcd_config a, b;
    char out[512] = "";
    int calls = 0;

    cfg_defaults(&a);
    cfg_defaults(&b);
    assert_int_equal(cfg_diff(&a, &b, diff_collect, out), 0);
    assert_string_equal(out, "");
    override_ok(&b, "app.log_level=debug");
    override_ok(&b, "rest.rate_limit_per_s=40");
    override_ok(&b, "net.address=10.1.0.2/24");
    assert_int_equal(cfg_diff(&a, &b, diff_collect, out), 0);
    assert_string_equal(out, "net.address:10.66.0.2/24>10.1.0.2/24;"
                             "rest.rate_limit_per_s:0>40;app.log_level:info>debug;");
    assert_int_equal(cfg_diff(&a, &b, diff_stop, &calls), 7);
    assert_int_equal(calls, 1);
}

/* A reload takes one key at a time: that key's value only. */
static void test_copy_key(void **state)
{
    (void)state;
    struct ofcd_config a, b;

    cfg_defaults(&a);
    cfg_defaults(&b);
    override_ok(&b, "app.log_level=debug");
    override_ok(&b, "rest.rate_limit_per_s=40");
    override_ok(&b, "net.address=10.1.0.2/24");
    assert_int_equal(cfg_copy_key(&a, &b, "rest.rate_limit_per_s"), 0);
    assert_int_equal(a.rest_rate_limit_per_s, 40);
    assert_int_not_equal(a.log_level, b.log_level);
    assert_int_equal(cfg_copy_key(&a, &b, "app.log_level"), 0);
    assert_int_equal(a.log_level, b.log_level);
    assert_int_equal(cfg_copy_key(&a, &b, "net.address"), -EINVAL);
    assert_int_equal(cfg_copy_key(&a, &b, "rest.no_such_key"), -ENOENT);
    assert_int_equal(cfg_copy_key(&a, &b, "nodot"), -ENOENT);
    assert_int_equal(cfg_copy_key(&a, &b, "res.rate_limit_per_s"), -ENOENT);
    char out[512] = "";
    assert_int_equal(cfg_diff(&a, &b, diff_collect, out), 0);
    assert_string_equal(out, "net.address:10.66.0.2/24>10.1.0.2/24;");
}

/* app.ctl_group: empty by default; a group the machine has is taken, one
 * it lacks refused by --check with the way out, not found at start. */
static void test_ctl_group(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    cfg_defaults(&c);

    assert_string_equal(c.ctl_group, "");
    override_ok(&c, "app.ctl_group=root");
    assert_int_equal(cfg_finish(&c, err, sizeof(err)), 0);
    override_ok(&c, "app.ctl_group=ofcd-no-such-group");
    assert_int_equal(cfg_finish(&c, err, sizeof(err)), -EINVAL);
    assert_has(err, "app.ctl_group 'ofcd-no-such-group': no such group");
}

/* ------------------------------------------------------------------------ */
/* file syntax                                                                */

static void test_file_syntax(void **state)
{
    (void)state;
    struct ofcd_config c, want;
    cfg_defaults(&c);
    cfg_defaults(&want);
    load_ok(&c,
            "# leading comment\n"
            "; another comment\n"
            "   # indented comment\n"
            "\n"
            "   \n"
            "[net]\n"
            "arp_cache_size=2048\n"
            "  arp_timeout_s   =   30   \n"
            "gratuitous_arp = off # trailing comment\n"
            "\t[ port ]   # a comment after a header\n"
            "burst = 64\t# tab before the comment\n"
            "[app]\n"
            "data_dir = /srv/a#b\n"
            "[net]\n"
            "arp_cache_size = 4096\n"
            "mac = # empty value with a comment\n");
    want.arp_cache_size = 4096;   /* set twice: the later line wins */
    want.arp_timeout_s = 30;
    want.gratuitous_arp = false;
    want.burst = 64;
    /* '#' glued to text is part of the value. */
    memset(want.data_dir, 0, sizeof(want.data_dir));
    strcpy(want.data_dir, "/srv/a#b");
    assert_cfg_equal(&c, &want);

    /* An empty text and a text of comments change nothing. */
    cfg_defaults(&c);
    load_ok(&c, "");
    load_ok(&c, "# only\n; comments\n\n");
    cfg_defaults(&want);
    assert_cfg_equal(&c, &want);
}

static void test_crlf_and_bom(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    cfg_defaults(&c);
    load_ok(&c, "\xEF\xBB\xBF[net]\r\narp_cache_size = 100\r\nmac = \"02:00:00:00:00:01\"\r\n"
            "[app]\r\ndata_dir = /x\r\n");
    assert_int_equal(c.arp_cache_size, 100);
    assert_true(c.has_mac);
    assert_string_equal(c.data_dir, "/x");

    /* No newline at the end of the last line. */
    load_ok(&c, "[net]\narp_cache_size = 200");
    assert_int_equal(c.arp_cache_size, 200);

    /* Line numbers count CRLF lines like LF lines. */
    assert_int_equal(load(&c, "[net]\r\n\r\narp_cache_size = 1\r\n", err), -EINVAL);
    assert_has(err, "t.conf:3:");
    assert_has(err, "'1'");
}

static void test_quoted_values(void **state)
{
    (void)state;
    struct ofcd_config c;
    cfg_defaults(&c);

    load_ok(&c, "[app]\ndata_dir = \"  /a # b ; c  \"   # comment\n");
    assert_string_equal(c.data_dir, "  /a # b ; c  ");
    load_ok(&c, "[app]\ndata_dir = \"a\\\"b\\\\c\"\n");
    assert_string_equal(c.data_dir, "a\"b\\c");
    load_ok(&c, "[app]\ndata_dir=\"x\"#comment right after the quote\n");
    assert_string_equal(c.data_dir, "x");
    /* A quote inside an unquoted value is literal. */
    load_ok(&c, "[app]\ndata_dir = a\"b\n");
    assert_string_equal(c.data_dir, "a\"b");
    /* Quoting works for every type, not only strings. */
    load_ok(&c, "[net]\narp_cache_size = \"64\"\n");
    assert_int_equal(c.arp_cache_size, 64);

    load_bad("[app]\ndata_dir = \"abc\n", "t.conf:2", "app.data_dir", "missing closing",
             NULL);
    load_bad("[app]\ndata_dir = \"abc\" def\n", "t.conf:2", "app.data_dir",
             "after the closing", NULL);
    load_bad("[app]\ndata_dir = \"a\\nb\"\n", "t.conf:2", "app.data_dir", "backslash", NULL);
    /* Quoted empty string is still empty for a key that forbids it. */
    load_bad("[app]\ndata_dir = \"\"\n", "t.conf:2", "app.data_dir = ''", "non-empty", NULL);
    /* ... and allowed where the key allows it. */
    load_ok(&c, "[net]\nmac = \"02:00:00:00:00:01\"\nmac = \"\"\n");
    assert_false(c.has_mac);
}

static void test_syntax_errors(void **state)
{
    (void)state;
    load_bad("[nett]\n", "t.conf:1", "unknown section '[nett]'", "did you mean '[net]'", NULL);
    load_bad("[zzzzzzzz]\n", "unknown section '[zzzzzzzz]'", NULL);
    load_bad("[]\n", "unknown section '[]'", NULL);
    load_bad("[net\n", "t.conf:1", "no closing ']'", NULL);
    load_bad("[net] x\n", "t.conf:1", "unexpected text 'x'", NULL);
    load_bad("[net]\nadress = 10.66.0.2/24\n", "t.conf:2", "unknown key 'net.adress'",
             "did you mean 'net.address'", NULL);
    /* The right key under the wrong section. */
    load_bad("[net]\nmbufs = 4096\n", "unknown key 'net.mbufs'", "did you mean 'port.mbufs'",
             NULL);
    load_bad("[net]\nqqqqqqqqqq = 1\n", "unknown key 'net.qqqqqqqqqq'", NULL);
    /* A key that was removed says so, and what to do. */
    load_bad("[openflow]\nmax_pending_per_ip = 512\n", "t.conf:2",
             "unknown key 'openflow.max_pending_per_ip': it was removed",
             "openflow.ip_buffers", "delete the line", NULL);
    load_bad("address = 10.66.0.2/24\n", "t.conf:1", "'address'", "before any [section]",
             NULL);
    load_bad("# c\n\n[net]\naddress 10.66.0.2/24\n", "t.conf:4", "expected 'key = value'",
             "'address 10.66.0.2/24'", NULL);
    load_bad("[net]\n = 5\n", "t.conf:2", "missing key name", NULL);
    load_bad("[net]\naddress = 10.66.0.2/33\n", "t.conf:2", "net.address = '10.66.0.2/33'",
             "1..30", NULL);

    /* The unknown-key hint stays out when nothing is close. */
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    cfg_defaults(&c);
    assert_int_equal(load(&c, "[net]\nqqqqqqqqqq = 1\n", err), -EINVAL);
    assert_lacks(err, "did you mean");

    /* A failure later in the text undoes the good lines before it. */
    load_bad("[net]\narp_cache_size = 20\n[port]\nburst = 0\n", "t.conf:4", "port.burst",
             NULL);
}

static void test_long_lines(void **state)
{
    (void)state;
    struct ofcd_config c;
    size_t n = CFG_LINE_MAX + 16;
    char *text = malloc(n + 32);
    assert_non_null(text);
    cfg_defaults(&c);

    /* The longest accepted line: a comment of exactly CFG_LINE_MAX chars. */
    memset(text, '#', CFG_LINE_MAX);
    strcpy(text + CFG_LINE_MAX, "\n[net]\narp_cache_size = 77\n");
    load_ok(&c, text);
    assert_int_equal(c.arp_cache_size, 77);

    /* The CR of a CRLF ending does not count towards the limit. */
    memset(text, '#', CFG_LINE_MAX);
    strcpy(text + CFG_LINE_MAX, "\r\n[net]\r\narp_cache_size = 78\r\n");
    load_ok(&c, text);
    assert_int_equal(c.arp_cache_size, 78);

    /* One more is an error naming the line, also before a CR. */
    memset(text, '#', CFG_LINE_MAX + 1);
    strcpy(text + CFG_LINE_MAX + 1, "\r\n");
    load_bad(text, "t.conf:1", "longer than", NULL);
    strcpy(text, "[net]\n");
    memset(text + 6, ' ', CFG_LINE_MAX + 1);
    strcpy(text + 6 + CFG_LINE_MAX + 1, "\n");
    load_bad(text, "t.conf:2", "longer than", NULL);
    free(text);
}

/* ------------------------------------------------------------------------ */
/* files                                                                      */

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void test_load_file(void **state)
{
    (void)state;
    struct ofcd_config c, before;
    char err[CFG_ERR_MAX];
    char dir[] = "/tmp/test_cfg.XXXXXX";
    char path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/a.conf", dir);
    cfg_defaults(&c);

    /* Missing file: -ENOENT and the promised text. */
    assert_int_equal(cfg_load_file(&c, path, err, sizeof(err)), -ENOENT);
    char want[256];
    snprintf(want, sizeof(want), "cannot open '%s': No such file or directory", path);
    assert_string_equal(err, want);

    const char good[] = "[openflow]\nport = 6633\nextra_port = 6653\n";
    write_file(path, good, sizeof(good) - 1);
    assert_int_equal(cfg_load_file(&c, path, err, sizeof(err)), 0);
    assert_int_equal(c.of_port, 6633);
    assert_int_equal(c.of_extra_port, 6653);

    /* Errors inside a file name it with the line. */
    const char bad[] = "[openflow]\n\nport = 65536\n";
    write_file(path, bad, sizeof(bad) - 1);
    memcpy(&before, &c, sizeof(c));
    assert_int_equal(cfg_load_file(&c, path, err, sizeof(err)), -EINVAL);
    char where[96];
    snprintf(where, sizeof(where), "%s:3: openflow.port = '65536'", path);
    assert_has(err, where);
    assert_cfg_equal(&c, &before);

    /* A NUL byte would silently cut the file short: refuse it. */
    const char nul[] = "[net]\narp_cache_size = 100\0\narp_cache_size = 5\n";
    write_file(path, nul, sizeof(nul) - 1);
    assert_int_equal(cfg_load_file(&c, path, err, sizeof(err)), -EINVAL);
    assert_has(err, "NUL");
    assert_cfg_equal(&c, &before);

    /* A directory is not a config file. */
    assert_true(cfg_load_file(&c, dir, err, sizeof(err)) < 0);
    assert_has(err, dir);

    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* ------------------------------------------------------------------------ */
/* overrides                                                                  */

static void test_overrides(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    cfg_defaults(&c);

    override_ok(&c, "net.address=10.0.0.2/24");
    assert_int_equal(c.ip, IP4(10, 0, 0, 2));
    /* Everything after the first '=' is the value, '=' and '#' included. */
    override_ok(&c, "eal.args=--vdev=net_tap0,iface=t1 # not a comment");
    assert_string_equal(c.eal_args, "--vdev=net_tap0,iface=t1 # not a comment");
    /* No quote stripping on the command line: the shell already did it. */
    override_ok(&c, "app.data_dir=\"q\"");
    assert_string_equal(c.data_dir, "\"q\"");

    override_bad(&c, "net.address", err, "command line", "'--net.address'", "no '='", NULL);
    override_bad(&c, "", err, "no '='", NULL);
    override_bad(&c, "net.adress=10.0.0.2/24", err, "command line",
                 "unknown key 'net.adress'", "did you mean 'net.address'", NULL);
    override_bad(&c, "address=10.0.0.2/24", err, "unknown key 'address'",
                 "did you mean 'net.address'", NULL);
    override_bad(&c, "nett.address=1", err, "unknown key 'nett.address'",
                 "did you mean 'net.address'", NULL);
    override_bad(&c, "net.=1", err, "unknown key 'net.'", NULL);
    override_bad(&c, ".address=1", err, "unknown key '.address'", NULL);
    override_bad(&c, "=1", err, "unknown key ''", NULL);
    override_bad(&c, "net.address =10.0.0.2/24", err, "unknown key 'net.address '", NULL);
    override_bad(&c, "net.arp_cache_size=", err, "command line: net.arp_cache_size = ''",
                 "16..1048576", NULL);
    override_bad(&c, "net.configure_kernel=", err, "net.configure_kernel = ''", NULL);

    /* Values quoted back in errors are bounded and printable. */
    char big[400];
    memset(big, 'z', sizeof(big));
    memcpy(big, "net.address=", 12);
    big[sizeof(big) - 1] = '\0';
    override_bad(&c, big, err, "net.address = 'zzzz", "...'", "A.B.C.D/1..30", NULL);
    override_bad(&c, "net.address=\x01\x1b[31m", err, "'??[31m'", NULL);

    /* A NULL or tiny err buffer is safe (ASan checks the bounds). */
    assert_int_equal(cfg_apply_override(&c, "nope", NULL, 0), -EINVAL);
    char tiny[8];
    assert_int_equal(cfg_apply_override(&c, "net.address=x", tiny, sizeof(tiny)), -EINVAL);
    assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
}

/* A product build (meson's test_services off) has no echo service: turning
 * one on is refused with a line that says why and how to get it, not
 * "unknown key"; the off values an earlier --print-config or ofcd.conf wrote
 * still load, and --print-config leaves the keys out. */
static void test_test_only_keys(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    cfg_defaults(&c);
    c.no_test_services = true;

    override_bad(&c, "tcp.echo_port=7007", err, "command line: tcp.echo_port = '7007'",
                 "test-only", "-Dtest_services=true", NULL);
    assert_lacks(err, "unknown key");
    override_bad(&c, "tcp.echo_connect=10.66.0.1:7100", err, "tcp.echo_connect",
                 "test-only", "-Dtest_services=true", NULL);
    /* A bad value is still named as such first. */
    override_bad(&c, "tcp.echo_port=x", err, "tcp.echo_port = 'x'", "0..65535", NULL);
    override_ok(&c, "tcp.echo_port=0");
    override_ok(&c, "tcp.echo_connect=0.0.0.0:0");
    assert_int_equal(cfg_load_string(&c, "[tcp]\necho_port = 0\n", "f.conf", err,
                                     sizeof(err)), 0);
    assert_int_equal(cfg_load_string(&c, "[tcp]\necho_port = 9\n", "f.conf", err,
                                     sizeof(err)), -EINVAL);
    assert_has(err, "f.conf:2: tcp.echo_port = '9'");
    assert_has(err, "test-only");
    assert_int_equal(c.tcp_echo_port, 0);

    char *text = capture(print_cfg_adapter, &c);
    assert_lacks(text, "echo_port");
    assert_lacks(text, "echo_connect");
    assert_has(text, "connect_backoff_max_ms = 30000");
    struct ofcd_config back;
    cfg_defaults(&back);
    back.no_test_services = true;
    assert_int_equal(cfg_load_string(&back, text, "printed", err, sizeof(err)), 0);
    free(text);

    /* With the services built, the same values are taken. */
    c.no_test_services = false;
    override_ok(&c, "tcp.echo_port=7007");
    override_ok(&c, "tcp.echo_connect=10.66.0.1:7100");
    assert_int_equal(c.tcp_echo_port, 7007);
    assert_int_equal(c.tcp_echo_connect_port, 7100);
}

/* ------------------------------------------------------------------------ */
/* cross-key checks                                                           */

static int finish(struct ofcd_config *c, char *err)
{
    err[0] = '\0';
    return cfg_finish(c, err, CFG_ERR_MAX);
}

static void test_finish_mbuf_cache(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    /* With the key ranges (cache <= 512, mbufs >= 1023) no file can break this
     * rule, so the guard is driven through the struct directly. */
    cfg_defaults(&c);
    c.rx_desc = 64;
    c.tx_desc = 64;
    c.burst = 1;
    c.mbuf_cache = 512;
    c.mbufs = 768;
    assert_int_equal(finish(&c, err), 0);
    c.mbufs = 767;
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "port.mbuf_cache = 512");
    assert_has(err, "port.mbufs = 767");
    assert_has(err, "mbufs/1.5");
}

/* A link timeout at or below the probe interval would take every link down
 * between two probes. */
static void test_finish_topology_timeout(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    cfg_defaults(&c);
    override_ok(&c, "topology.lldp_interval_s=5");
    override_ok(&c, "topology.link_timeout_s=6");
    assert_int_equal(finish(&c, err), 0);
    override_ok(&c, "topology.link_timeout_s=5");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "topology.link_timeout_s = 5");
    assert_has(err, "topology.lldp_interval_s = 5");
}

/* An LLDP frame older than topology.lldp_max_age_ms is stale: the window
 * may not exceed the link timeout, or an old frame could keep a link that
 * went silent up. */
static void test_finish_lldp_max_age(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    cfg_defaults(&c);
    assert_int_equal(c.topo_lldp_max_age_ms, 2000);
    assert_int_equal(finish(&c, err), 0);
    override_ok(&c, "topology.lldp_max_age_ms=10000");
    assert_int_equal(finish(&c, err), 0);
    override_ok(&c, "topology.lldp_max_age_ms=10001");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "topology.lldp_max_age_ms = 10001");
    assert_has(err, "topology.link_timeout_s = 10");
    assert_has(err, "10000 ms");
}

/* flow_manager.durability: sync (the default), group or async; anything
 * else is refused naming the key and the three words;
 * topology.lldp_loop_actions the same with its words. */
static void test_finish_durability_and_loop_actions(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    cfg_defaults(&c);
    assert_string_equal(c.fm_durability, "sync");
    assert_string_equal(c.topo_loop_actions, "log");
    assert_true(c.topo_enable_on_start);
    assert_int_equal(c.topo_lldp_vlan, 3799);
    override_ok(&c, "flow_manager.durability=async");
    assert_int_equal(finish(&c, err), 0);
    override_ok(&c, "flow_manager.durability=group");
    assert_int_equal(finish(&c, err), 0);
    override_ok(&c, "flow_manager.durability=batch");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "flow_manager.durability = 'batch'");
    assert_has(err, "sync, group or async");
    cfg_defaults(&c);
    override_ok(&c, "topology.lldp_loop_actions=log,disable");
    assert_int_equal(finish(&c, err), 0);
    override_ok(&c, "topology.lldp_loop_actions=shutdown");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "topology.lldp_loop_actions = 'shutdown'");
}

/* The framer needs a whole OpenFlow message (up to 65,535 bytes) in the
 * receive buffer: a smaller tcp.rcv_buf would stall a switch's connection
 * on its first large message, so the key refuses it and its help says why. */
static void test_rcv_buf_holds_a_message(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    cfg_defaults(&c);
    override_bad(&c, "tcp.rcv_buf=65535", err, "tcp.rcv_buf", "'65535'", "65536..16777216",
                 NULL);
    override_bad(&c, "tcp.rcv_buf=4096", err, "tcp.rcv_buf", "65536..16777216", NULL);
    override_ok(&c, "tcp.rcv_buf=65536");
    assert_int_equal(finish(&c, err), 0);
    assert_has(row("tcp", "rcv_buf")->help, "65,535-byte");
}

static void test_finish_descriptors(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    cfg_defaults(&c);
    /* 1024 + 1024 + 2 * 32 = 2112 */
    override_ok(&c, "port.mbufs=2113");
    assert_int_equal(finish(&c, err), 0);
    override_ok(&c, "port.mbufs=2112");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "port.rx_desc");
    assert_has(err, "port.tx_desc");
    assert_has(err, "port.burst");
    assert_has(err, "2112");
    assert_has(err, "port.mbufs = 2112");

    cfg_defaults(&c);
    override_ok(&c, "port.rx_desc=16384");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "16384");
    override_ok(&c, "port.mbufs=20000");
    assert_int_equal(finish(&c, err), 0);
}

/* The buffer shares nest, and one address plus the pending connections
 * leave half of each pool to the others; the refusal shows the arithmetic. */
static void test_finish_buffer_shares(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    cfg_defaults(&c);
    assert_int_equal(finish(&c, err), 0);
    /* 8192 + 4096 = 12288 <= 32768 / 2; 8193 + 8192 = 16385 is not. */
    override_ok(&c, "openflow.pending_buffers=8192");
    override_ok(&c, "openflow.ip_buffers=8192");
    assert_int_equal(finish(&c, err), 0);
    override_ok(&c, "openflow.ip_buffers=8193");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "1 io lcore(s) x (ip_buffers 8193 + pending_buffers 8192) = 16385");
    assert_has(err, "msg_buffers 32768 / 2 = 16384");
    override_ok(&c, "openflow.msg_buffers=32770");
    assert_int_equal(finish(&c, err), 0);
    /* Two io lcores, each with its own address table: twice as much. */
    override_ok(&c, "lcores.io=0,1");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "2 io lcore(s)");
    cfg_defaults(&c);
    /* Large ones: 8 MiB of an address is 128, the pending ones' 64: 192 > 512/2
     * once the pool is smaller. */
    override_ok(&c, "openflow.msg_buffers=16384");
    override_ok(&c, "openflow.ip_buffers=4096");
    override_ok(&c, "openflow.pending_buffers=2048");
    override_ok(&c, "openflow.ip_buffer_kb=8192");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "large buffers");
    assert_has(err, "ip_buffer_kb/64 128");
    override_ok(&c, "openflow.ip_buffer_kb=4096");
    assert_int_equal(finish(&c, err), 0);
    /* A share must fit the one it is part of. */
    override_ok(&c, "openflow.conn_buffer_kb=8192");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "openflow.conn_buffer_kb = 8192 exceeds openflow.ip_buffer_kb = 4096");
    cfg_defaults(&c);
    override_ok(&c, "openflow.pending_conn_buffers=2048");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "openflow.pending_conn_buffers = 2048 exceeds openflow.conn_buffers");
    cfg_defaults(&c);
    override_ok(&c, "openflow.ip_control_buffers=8193");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "control_buffers 16384 / 2 = 8192");
}

/* Shares left at 0 follow the pools and the io lcores: the shipped
 * configuration starts whatever the lcore layout (with fixed shares, two io
 * lcores broke the rule above), and a lab behind one address still gets a
 * quarter of the pool on one io lcore. */
static void test_shares_derived(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    struct cfg_buffer_shares sh;
    static const char *const layouts[] = {"0", "0,1", "0-3", "0-7"};

    for (size_t i = 0; i < ARRAY_SIZE(layouts); i++) {
        char o[32];
        cfg_defaults(&c);
        snprintf(o, sizeof(o), "lcores.io=%s", layouts[i]);
        override_ok(&c, o);
        if (finish(&c, err) != 0)
            fail_msg("lcores.io=%s: %s", layouts[i], err);
    }
    cfg_defaults(&c);
    cfg_buffer_shares(&c, &sh);
    assert_int_equal(sh.ip_buffers, 8192);
    assert_int_equal(sh.pending_buffers, 4096);
    assert_int_equal(sh.ip_buffer_kb, 8192);
    assert_int_equal(sh.ip_control_buffers, 2048);
    override_ok(&c, "lcores.io=0-3");
    cfg_buffer_shares(&c, &sh);
    assert_int_equal(sh.ip_buffers, 2048);
    assert_int_equal(sh.pending_buffers, 1024);
    override_ok(&c, "openflow.ip_buffers=3000");
    cfg_buffer_shares(&c, &sh);
    assert_int_equal(sh.ip_buffers, 3000);            /* set: taken as it is */
}

static void test_finish_kernel_address(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];

    cfg_defaults(&c);
    override_ok(&c, "net.kernel_address=10.66.1.1/24");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "net.kernel_address = 10.66.1.1/24");
    assert_has(err, "net.address = 10.66.0.2/24");
    assert_has(err, "10.66.0.0/24");
    /* Without the kernel side to configure the two are unrelated. */
    override_ok(&c, "net.configure_kernel=false");
    assert_int_equal(finish(&c, err), 0);

    cfg_defaults(&c);
    override_ok(&c, "net.kernel_address=10.66.0.1/25");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "net.kernel_address = 10.66.0.1/25");

    cfg_defaults(&c);
    override_ok(&c, "net.kernel_address=10.66.0.2/24");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "net.kernel_address = 10.66.0.2/24");
    assert_has(err, "net.address = 10.66.0.2/24");
    assert_has(err, "same address");
    override_ok(&c, "net.configure_kernel=no");
    assert_int_equal(finish(&c, err), 0);

    cfg_defaults(&c);
    override_ok(&c, "net.address=192.168.7.9/16");
    override_ok(&c, "net.kernel_address=192.168.200.1/16");
    assert_int_equal(finish(&c, err), 0);
}

static void test_finish_openflow_ports(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    cfg_defaults(&c);
    override_ok(&c, "openflow.extra_port=6633");
    assert_int_equal(finish(&c, err), 0);
    override_ok(&c, "openflow.extra_port=6653");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "openflow.extra_port = 6653");
    assert_has(err, "openflow.port = 6653");
    override_ok(&c, "openflow.port=6633");
    assert_int_equal(finish(&c, err), 0);
}

/* All switches' snapshots must hold one switch's snapshot and its next
 * reply, each as large as openflow.mp_max_kb allows. */
static void test_finish_snapshot_budget(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    cfg_defaults(&c);
    assert_int_equal(finish(&c, err), 0);
    override_ok(&c, "openflow.mp_max_kb=262145");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "flow_manager.snapshot_budget_mb = 512");
    assert_has(err, "2 x openflow.mp_max_kb = 2 x 262145 KiB = 513 MiB");
    override_ok(&c, "flow_manager.snapshot_budget_mb=513");
    assert_int_equal(finish(&c, err), 0);
}

/* TLS: its port is a kind of its own, needs its certificate and key, and
 * verifying switches needs the CA; TLS only is openflow.port = 0. */
static void test_finish_tls(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    cfg_defaults(&c);
    assert_int_equal(c.tls_port, 0);
    assert_true(c.tls_verify_peer);
    override_ok(&c, "tls.port=6653");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "tls.port = 6653 is also a plaintext port");
    override_ok(&c, "tls.port=6654");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "needs tls.cert and tls.key (tls.cert is empty)");
    override_ok(&c, "tls.cert=/etc/ofcd/cert.pem");
    override_ok(&c, "tls.key=/etc/ofcd/key.pem");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "tls.verify_peer = true needs tls.ca");
    override_ok(&c, "tls.ca=/etc/ofcd/switchca.pem");
    assert_int_equal(finish(&c, err), 0);
    override_ok(&c, "tls.min_version=1.1");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "tls.min_version = '1.1'");
    override_ok(&c, "tls.min_version=1.3");
    override_ok(&c, "openflow.port=0");
    assert_int_equal(finish(&c, err), 0);                 /* TLS only */
    override_ok(&c, "tls.pins_file=/etc/ofcd/pins");
    assert_int_equal(finish(&c, err), 0);
    override_ok(&c, "tls.port=0");
    override_ok(&c, "openflow.port=6653");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "tls.pins_file pins switches to certificates, which needs tls.port");
    override_ok(&c, "tls.pins_file=");
    override_ok(&c, "openflow.port=0");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "nowhere to connect");
}

/* The chain bounds and the CRL: defaults, and a CRL without verification
 * (nothing would be checked against it) refused with both keys named. */
static void test_finish_tls_chain(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    cfg_defaults(&c);
    assert_int_equal(c.tls_verify_depth, 4);
    assert_int_equal(c.tls_max_cert_list_kb, 32);
    assert_string_equal(c.tls_crl_file, "");
    override_ok(&c, "tls.port=6654");
    override_ok(&c, "tls.cert=/etc/ofcd/cert.pem");
    override_ok(&c, "tls.key=/etc/ofcd/key.pem");
    override_ok(&c, "tls.ca=/etc/ofcd/switchca.pem");
    override_ok(&c, "tls.crl_file=/etc/ofcd/switchca.crl");
    assert_int_equal(finish(&c, err), 0);
    override_ok(&c, "tls.verify_peer=false");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "tls.crl_file = /etc/ofcd/switchca.crl");
    assert_has(err, "tls.verify_peer = false");
}

static void test_finish_fault_rates(void **state)
{
    (void)state;
    static const char *const dirs[] = {"rx", "tx"};
    for (size_t d = 0; d < 2; d++) {
        struct ofcd_config c;
        char err[CFG_ERR_MAX], a[64], want[64];
        cfg_defaults(&c);
        /* 0.1 + 0.2 + 0.3 + 0.4 rounds to just above 1 in binary: still fine. */
        snprintf(a, sizeof(a), "fault.%s_drop=0.1", dirs[d]);
        override_ok(&c, a);
        snprintf(a, sizeof(a), "fault.%s_dup=0.2", dirs[d]);
        override_ok(&c, a);
        snprintf(a, sizeof(a), "fault.%s_reorder=0.3", dirs[d]);
        override_ok(&c, a);
        snprintf(a, sizeof(a), "fault.%s_delay=0.4", dirs[d]);
        override_ok(&c, a);
        assert_int_equal(finish(&c, err), 0);

        snprintf(a, sizeof(a), "fault.%s_delay=0.41", dirs[d]);
        override_ok(&c, a);
        assert_int_equal(finish(&c, err), -EINVAL);
        snprintf(want, sizeof(want), "fault.%s_drop", dirs[d]);
        assert_has(err, want);
        snprintf(want, sizeof(want), "fault.%s_delay", dirs[d]);
        assert_has(err, want);
        assert_has(err, "0.41");
        assert_has(err, "1.01");
        assert_has(err, "at most 1");
    }
}

/* ------------------------------------------------------------------------ */
/* printers                                                                   */

static void round_trip(const struct ofcd_config *c)
{
    struct ofcd_config back;
    char err[CFG_ERR_MAX];
    char *text = capture(print_cfg_adapter, c);
    /* Every key is written, not only those that differ from the defaults. */
    for (size_t i = 0; i < cfg_n_keys; i++)
        if (!conf_mentions(text, cfg_keys[i].section, cfg_keys[i].name))
            fail_msg("printed config lacks %s.%s:\n%s", cfg_keys[i].section, cfg_keys[i].name,
                     text);
    cfg_defaults(&back);
    int rc = cfg_load_string(&back, text, "printed", err, sizeof(err));
    if (rc != 0)
        fail_msg("printed config does not parse: %s\n%s", err, text);
    if (memcmp(&back, c, sizeof(back)) != 0)
        fail_msg("round trip changed the config:\n%s", text);
    free(text);
}

static void test_print_round_trip(void **state)
{
    (void)state;
    struct ofcd_config c;
    cfg_defaults(&c);
    round_trip(&c);

    static const char *const changes[] = {
        "eal.args= -l 0-1 \"quoted\" back\\slash # hash ; semi ",
        "net.address=192.168.3.5/30",
        "net.mac=02:ab:cd:ef:01:23",
        "net.configure_kernel=false",
        "net.kernel_address=172.16.0.1/12",
        "net.arp_cache_size=1048576",
        "net.arp_timeout_s=1",
        "net.gratuitous_arp=no",
        "port.mbufs=1048575",
        "port.mbuf_cache=0",
        "port.rx_desc=64",
        "port.tx_desc=16384",
        "port.burst=512",
        "lcores.io=5,1-3,7,9-10,127,0",
        "lcores.worker=0-127",
        "lcores.idle_sleep_us=0",
        "lcores.idle_polls=1000000",
        "openflow.port=1",
        "openflow.extra_port=65535",
        "rest.listen=0.0.0.0:65535",
        "app.data_dir=;leading semicolon",
        "app.log_level=debug",
        "app.stats_log_interval_s=0",
        "tcp.mss=536",
        "tcp.rcv_buf=16777216",
        "tcp.syncookies=off",
        "tcp.keepalive_idle_s=7200",
        "tcp.echo_port=7007",
        "tcp.echo_connect=10.66.0.1:7100",
        "tcp.connect_backoff_min_ms=10",
        "fault.enabled=yes",
        "fault.seed=18446744073709551615",
        "fault.rx_drop=0.1",
        "fault.rx_dup=1e-7",
        "fault.rx_reorder=0.30000000000000004",
        "fault.rx_delay=0.3333333333333333",
        "fault.rx_delay_us=0",
        "fault.tx_drop=1",
        "fault.tx_delay_us=10000000",
    };
    struct ofcd_config d;
    cfg_defaults(&d);
    for (size_t i = 0; i < ARRAY_SIZE(changes); i++)
        override_ok(&c, changes[i]);
    /* Each override above changed something, so the round trip is not trivial. */
    assert_true(memcmp(&c, &d, sizeof(c)) != 0);
    round_trip(&c);

    /* The longest string with every character needing an escape. */
    char a[CFG_STR_MAX + 16];
    int n = snprintf(a, sizeof(a), "eal.args=");
    for (int i = 0; i < CFG_STR_MAX - 1; i++)
        a[n + i] = i % 2 ? '"' : '\\';
    a[n + CFG_STR_MAX - 1] = '\0';
    override_ok(&c, a);
    round_trip(&c);

    /* The printed file is readable as documented: one key per line. */
    char *text = capture(print_cfg_adapter, &c);
    assert_has(text, "[lcores]\nio = 5,1-3,7,9,10,127,0\nworker = 0-127\n");
    assert_has(text, "address = 192.168.3.5/30\n");
    assert_has(text, "mac = 02:ab:cd:ef:01:23\n");
    assert_has(text, "rx_drop = 0.1\n");
    assert_has(text, "log_level = debug\n");
    free(text);
}

static void test_print_help(void **state)
{
    (void)state;
    char *text = capture(print_help_adapter, NULL);
    char want[128];
    for (size_t i = 0; i < cfg_n_keys; i++) {
        const struct cfg_key *k = &cfg_keys[i];
        snprintf(want, sizeof(want), "  --%s.%s=", k->section, k->name);
        assert_has(text, want);
        snprintf(want, sizeof(want), "\n[%s]\n", k->section);
        assert_has(text, want);
    }
    assert_has(text, "--net.arp_cache_size=N");
    assert_has(text, "(default: 1024)");
    assert_has(text, "16..1048576");
    assert_has(text, "(default: 10.66.0.2/24)");
    assert_has(text, "(default: \"\")");   /* net.mac */
    assert_has(text, "(default: \"--no-huge -m 512");

    /* Aligned: every "(default:" of a key line starts in the same column. */
    long col = -1;
    for (const char *line = text; *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
        if (strncmp(line, "  --", 4) == 0) {
            const char *d = strstr(line, "(default:");
            assert_non_null(d);
            assert_true(d < line + len);
            if (col < 0)
                col = d - line;
            assert_int_equal(d - line, col);
        }
        line += len + (end != NULL ? 1 : 0);
    }
    assert_true(col > 0);
    free(text);
}

static void test_parse_value_direct(void **state)
{
    (void)state;
    /* cfg_parse_value() is what cfg_defaults() relies on: failures leave the
     * field alone and explain themselves. */
    struct ofcd_config c;
    char why[CFG_ERR_MAX];
    cfg_defaults(&c);
    const struct cfg_key *k = row("port", "burst");
    assert_int_equal(cfg_parse_value(k, "513", &c, why, sizeof(why)), -EINVAL);
    assert_string_equal(why, "must be an integer in 1..512");
    assert_int_equal(c.burst, 32);
    assert_int_equal(cfg_parse_value(k, "7", &c, why, sizeof(why)), 0);
    assert_int_equal(c.burst, 7);

    char buf[64];
    k = row("lcores", "io");
    assert_int_equal(cfg_parse_value(k, "3,4,5,6,1", &c, why, sizeof(why)), 0);
    assert_int_equal(cfg_format_value(k, &c, buf, sizeof(buf)), (int)strlen("3-6,1"));
    assert_string_equal(buf, "3-6,1");
    /* Truncation still reports the full length, like snprintf. */
    assert_int_equal(cfg_format_value(k, &c, buf, 3), (int)strlen("3-6,1"));
    assert_string_equal(buf, "3-");
}

/* The consistency check's ignore lists: parsed at load, errors name the key. */
static void test_finish_ranges(void **state)
{
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    (void)state;

    cfg_defaults(&c);
    assert_int_equal(cfg_apply_override(&c, "flow_manager.ignore_cookies=0x10-0x1f,7", err,
                                        sizeof(err)), 0);
    assert_int_equal(cfg_apply_override(&c, "flow_manager.ignore_tables=100-254", err,
                                        sizeof(err)), 0);
    assert_int_equal(cfg_finish(&c, err, sizeof(err)), 0);
    assert_int_equal(c.n_fm_ignore_cookie, 2);
    assert_int_equal(c.fm_ignore_cookie[0].lo, 0x10);
    assert_int_equal(c.fm_ignore_cookie[0].hi, 0x1f);
    assert_int_equal(c.fm_ignore_cookie[1].lo, 7);
    assert_int_equal(c.fm_ignore_cookie[1].hi, 7);
    assert_int_equal(c.n_fm_ignore_table, 1);
    assert_int_equal(c.fm_ignore_table[0].hi, 254);

    const char *bad[] = {"flow_manager.ignore_tables=100-255", "flow_manager.ignore_tables=9-3",
                         "flow_manager.ignore_cookies=1;2", "flow_manager.ignore_cookies=x",
                         "flow_manager.ignore_cookies=-1"};
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cfg_defaults(&c);
        assert_int_equal(cfg_apply_override(&c, bad[i], err, sizeof(err)), 0);
        assert_int_equal(cfg_finish(&c, err, sizeof(err)), -EINVAL);
        char key[64];
        snprintf(key, sizeof(key), "%.*s", (int)(strchr(bad[i], '=') - bad[i]), bad[i]);
        if (!strstr(err, key))
            fail_msg("%s: error '%s' does not name the key", bad[i], err);
    }
}


/* store.backend: lmdb by default, memory accepted, anything else refused
 * with the key and the choices named; a name too long for the field is a
 * parse error, not a truncation. */
static void test_finish_store_backend(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    cfg_defaults(&c);
    assert_string_equal(c.store_backend, "lmdb");
    assert_int_equal(finish(&c, err), 0);
    override_ok(&c, "store.backend=memory");
    assert_int_equal(finish(&c, err), 0);
    assert_string_equal(c.store_backend, "memory");
    override_ok(&c, "store.backend=etcd");
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "store.backend = 'etcd': must be lmdb or memory");
    assert_int_equal(cfg_apply_override(&c, "store.backend=lmdb-with-a-long-name", err,
                                        sizeof(err)), -EINVAL);
    assert_has(err, "store.backend");
}
/* [cluster]: off by default; on, each endpoint is checked, the node's name
 * is the host name when left empty, the prefix has its slashes, TLS and
 * credentials come in pairs and a fixed openflow.role is refused; every
 * error names its key. */
static void test_finish_cluster(void **state)
{
    (void)state;
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    cfg_defaults(&c);
    assert_int_equal(finish(&c, err), 0);
    assert_string_equal(c.cluster_etcd_endpoints, "");
    assert_string_equal(c.cluster_prefix, "/ofcd/v1/");
    assert_int_equal(c.cluster_lease_ttl_s, 3);
    assert_string_equal(c.cluster_node_id, "");     /* no cluster: not filled */

    override_ok(&c, "cluster.etcd_endpoints=http://127.0.0.1:2379, https://[::1]:2379");
    assert_int_equal(finish(&c, err), 0);
    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    assert_string_equal(c.cluster_node_id, host);

    static const struct { const char *set, *says; } bad[] = {
        {"cluster.etcd_endpoints=http://a:1,,http://b:2", "endpoint 2 is empty"},
        {"cluster.etcd_endpoints=127.0.0.1:2379", "'127.0.0.1:2379' must start with http://"},
        {"cluster.node_id=node one", "cluster.node_id = 'node one'"},
        {"cluster.prefix=/ofcd", "cluster.prefix = '/ofcd'"},
        {"cluster.etcd_cert=/tmp/c.pem", "cluster.etcd_cert and cluster.etcd_key"},
        {"cluster.etcd_user=ofcd", "cluster.etcd_user and cluster.etcd_password_file"},
        {"openflow.role=master", "openflow.role = master with cluster.etcd_endpoints"},
        {"apps.l2_learning=true", "apps.l2_learning = true with cluster.etcd_endpoints"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct ofcd_config b;
        cfg_defaults(&b);
        override_ok(&b, "cluster.etcd_endpoints=http://127.0.0.1:2379");
        override_ok(&b, "cluster.node_id=n1");
        override_ok(&b, bad[i].set);
        assert_int_equal(finish(&b, err), -EINVAL);
        if (!strstr(err, bad[i].says))
            fail_msg("%s: error '%s' lacks '%s'", bad[i].set, err, bad[i].says);
    }
    /* Seventeen endpoints: one past etcd_client's bound. */
    char many[CFG_STR_MAX] = "";
    for (int i = 0; i < 17; i++)
        snprintf(many + strlen(many), sizeof(many) - strlen(many), "%shttp://h%d:1",
                 i ? "," : "", i);
    char set[CFG_STR_MAX + 32];
    snprintf(set, sizeof(set), "cluster.etcd_endpoints=%s", many);
    override_ok(&c, set);
    assert_int_equal(finish(&c, err), -EINVAL);
    assert_has(err, "more than 16 endpoints");
    assert_int_equal(cfg_apply_override(&c, "cluster.lease_ttl_s=1", err, sizeof(err)),
                     -EINVAL);
    assert_has(err, "cluster.lease_ttl_s");
}

/* The REST listen policy: off loopback, the API needs rest.auth and, with
 * it, HTTPS (passwords and tokens would cross the network in clear), unless
 * rest.allow_insecure; the error names the keys. */
static void test_finish_rest_listen(void **state)
{
    struct ofcd_config c;
    char err[CFG_ERR_MAX];
    (void)state;

    cfg_defaults(&c);
    assert_int_equal(cfg_finish(&c, err, sizeof(err)), 0);
    override_ok(&c, "rest.listen=10.0.0.1:8181");
    assert_int_equal(cfg_finish(&c, err, sizeof(err)), -EINVAL);
    assert_has(err, "rest.listen = 10.0.0.1:8181");
    assert_has(err, "rest.auth");
    assert_has(err, "rest.allow_insecure");
    override_ok(&c, "rest.auth=true");
    assert_int_equal(cfg_finish(&c, err, sizeof(err)), -EINVAL);
    assert_has(err, "rest.listen = 10.0.0.1:8181");
    assert_has(err, "in clear");
    assert_has(err, "rest.tls_cert");
    assert_has(err, "rest.allow_insecure");
    override_ok(&c, "rest.tls_cert=/etc/ofcd/rest.crt");
    assert_int_equal(cfg_finish(&c, err, sizeof(err)), -EINVAL);
    assert_has(err, "rest.tls_key");
    override_ok(&c, "rest.tls_key=/etc/ofcd/rest.key");
    assert_int_equal(cfg_finish(&c, err, sizeof(err)), 0);
    /* allow_insecure lets either through (ofcd logs it loudly at start). */
    override_ok(&c, "rest.tls_cert=");
    override_ok(&c, "rest.allow_insecure=true");
    assert_int_equal(cfg_finish(&c, err, sizeof(err)), 0);
    override_ok(&c, "rest.auth=false");
    assert_int_equal(cfg_finish(&c, err, sizeof(err)), 0);
    /* Anything in 127.0.0.0/8 is loopback. */
    cfg_defaults(&c);
    override_ok(&c, "rest.listen=127.1.2.3:8181");
    override_ok(&c, "rest.auth=true");
    assert_int_equal(cfg_finish(&c, err, sizeof(err)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_schema_rows),
        cmocka_unit_test(test_shipped_conf),
        cmocka_unit_test(test_uint_values),
        cmocka_unit_test(test_uint_error_text),
        cmocka_unit_test(test_bool_values),
        cmocka_unit_test(test_string_values),
        cmocka_unit_test(test_cidr_values),
        cmocka_unit_test(test_ipport_values),
        cmocka_unit_test(test_mac_values),
        cmocka_unit_test(test_lcore_lists),
        cmocka_unit_test(test_rate_values),
        cmocka_unit_test(test_log_level_values),
        cmocka_unit_test(test_ctl_socket),
        cmocka_unit_test(test_ctl_group),
        cmocka_unit_test(test_diff),
        cmocka_unit_test(test_copy_key),
        cmocka_unit_test(test_file_syntax),
        cmocka_unit_test(test_crlf_and_bom),
        cmocka_unit_test(test_quoted_values),
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_long_lines),
        cmocka_unit_test(test_load_file),
        cmocka_unit_test(test_overrides),
        cmocka_unit_test(test_test_only_keys),
        cmocka_unit_test(test_finish_mbuf_cache),
        cmocka_unit_test(test_finish_descriptors),
        cmocka_unit_test(test_finish_buffer_shares),
        cmocka_unit_test(test_shares_derived),
        cmocka_unit_test(test_rcv_buf_holds_a_message),
        cmocka_unit_test(test_finish_topology_timeout),
        cmocka_unit_test(test_finish_lldp_max_age),
        cmocka_unit_test(test_finish_durability_and_loop_actions),
        cmocka_unit_test(test_finish_kernel_address),
        cmocka_unit_test(test_finish_openflow_ports),
        cmocka_unit_test(test_finish_snapshot_budget),
        cmocka_unit_test(test_finish_tls),
        cmocka_unit_test(test_finish_tls_chain),
        cmocka_unit_test(test_finish_fault_rates),
        cmocka_unit_test(test_finish_ranges),
        cmocka_unit_test(test_finish_rest_listen),
        cmocka_unit_test(test_finish_store_backend),
        cmocka_unit_test(test_finish_cluster),
        cmocka_unit_test(test_print_round_trip),
        cmocka_unit_test(test_print_help),
        cmocka_unit_test(test_parse_value_direct),
    };
    /* Duplicate-key warnings are expected output of some tests; keep them quiet. */
    ofcd_log_set_level(OFCD_LOG_ERR);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
