/*
 * emu_main.c - ofswitch-emu: emulates N OpenFlow 1.3 switches against a controller, for
 * ofcd's lab stress suite.  Parses options, builds the context (emu.h), staggers the
 * switches' starts, runs the event loop until --duration or SIGINT/SIGTERM, then prints
 * the report (emu_report.c).  Run `ofswitch-emu --help` for the options.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "emu.h"
#include "emu_wire.h"
#include "emu_tls.h"

static void usage(FILE *f)
{
    fputs(
        "usage: ofswitch-emu (--controller HOST:PORT | --listen PORT) [options]\n"
        "Emulates N OpenFlow 1.3 switches, each on its own TCP connection, and reports\n"
        "connect/handshake times, echo RTT, disconnects, FLOW_MOD rates, flow-table sizes\n"
        "and packet_in latency.\n"
        "\n"
        "where:\n"
        "  --controller HOST:PORT   connect every switch to this controller\n"
        "  --listen PORT            switch i listens on PORT+i (controller connects)\n"
        "  --listen-addr ADDR       address to listen on (default 127.0.0.1)\n"
        "  --bind ADDR              IPv4 source address of the connections (default: the\n"
        "                           kernel's choice); a fresh one has all its ports free\n"
        "switches:\n"
        "  --switches N             number of switches (default 1)\n"
        "  --ports N                ports per switch (default 4)\n"
        "  --dpid-base N            dpid of the first switch, then +1 (default 1)\n"
        "  --tables N               flow tables per switch, 1..254 (default 8)\n"
        "  --table-size N           flows per table before TABLE_FULL (default 100000)\n"
        "  --buffers N              n_buffers advertised; 0 = packet_ins carry the whole\n"
        "                           frame and no buffer id (default 256)\n"
        "  --connect-rate N[/s]     connections started per second, 0 = all at once\n"
        "                           (default 1000)\n"
        "  --backoff-min MS, --backoff-max MS   reconnect backoff (default 100, 8000)\n"
        "  --tx-buffer KIB          bytes queued per connection at most (default 256)\n"
        "  --mp-limit BYTES         largest multipart reply part, 1024..65535 (default 65000;\n"
        "                           65535 packs parts as full as OVS does)\n"
        "  --attack MODE            every switch misbehaves on purpose (default none):\n"
        "                           silent (connects, sends nothing), echo-flood (no HELLO,\n"
        "                           never reads, floods ECHO_REQUESTs), hello-flood (HELLO,\n"
        "                           then BARRIER_REQUESTs, never FEATURES), partial (a full\n"
        "                           handshake, then 65,000 bytes of a 65,535-byte message),\n"
        "                           churn (a fresh random dpid per connection, a full\n"
        "                           handshake, gone at SET_CONFIG, back at once)\n"
        "liveness:\n"
        "  --echo-interval MS       send ECHO_REQUEST this often, 0 = never (default 5000)\n"
        "  --echo-timeout MS        disconnect when a reply is this late, 0 = never\n"
        "                           (default 15000)\n"
        "load:\n"
        "  --mode none|latency|throughput   packet_in generator (default none)\n"
        "                           latency: one outstanding per switch, the next leaves\n"
        "                           when the controller answers (FLOW_MOD/PACKET_OUT);\n"
        "                           throughput: up to --window outstanding\n"
        "  --packet-in-rate N       cap per switch per second, 0 = no cap (default 0)\n"
        "  --window N               outstanding packet_ins in throughput mode (default 64)\n"
        "  --pin-timeout MS         give up on an unanswered packet_in (default 1000)\n"
        "  --port-flap-interval MS  toggle one port's link (PORT_STATUS) this often\n"
        "  --reconnect-every MS     each switch drops its connection this long after\n"
        "                           connecting and reconnects at once (reconnect storm)\n"
        "  --malformed-from DPID    this switch sends malformed messages ...\n"
        "  --malformed-every MS     ... this often (default 1000) ...\n"
        "  --malformed-kinds LIST   ... of these kinds, comma separated, in turn:\n"
        "                           type (unknown type), short (truncated body),\n"
        "                           oxm (OXM TLV overruns its match), version (0x01),\n"
        "                           len (header length < 8: breaks the stream)\n"
        "                           (default type,short,oxm,version)\n"
        "report:\n"
        "  --duration S             stop after S seconds, 0 = at SIGINT (default 10)\n"
        "  --sample-interval MS     flow-table and rate samples (default 1000)\n"
        "  --json FILE              write the JSON report to FILE ('-' = stdout)\n"
        "  --quiet                  no human-readable table\n"
        "  --seed N                 seed of the backoff jitter (default 1)\n"
        "  --dump-replies FILE      offline: answer a fixed script of controller requests\n"
        "                           as switch 1 and write every message sent to FILE\n"
        "  --tls CERT,KEY,CA        connect over TLS with this client certificate and key,\n"
        "                           verifying the controller against CA (as OVS's ssl:)\n"
        "  --wiring SPEC            wire the switches: a PACKET_OUT on a wired port is a\n"
        "                           PACKET_IN at the peer (LLDP discovery); SPEC is ring,\n"
        "                           fattree:K (5K^2/4 switches of K ports) or file:PATH\n"
        "                           with lines \"A PA B PB\"\n"
        "  --help                   this text\n"
        "\n"
        "Handshake time: from connect() (accept() with --listen) until the first\n"
        "controller message other than HELLO, ECHO, ERROR or FEATURES_REQUEST that the\n"
        "switch handles after sending its FEATURES_REPLY (e.g. SET_CONFIG).\n",
        f);
}

enum {
    OPT_CONTROLLER = 256, OPT_LISTEN, OPT_LISTEN_ADDR, OPT_BIND, OPT_SWITCHES, OPT_PORTS, OPT_DPID,
    OPT_TABLES, OPT_TABLE_SIZE, OPT_BUFFERS, OPT_RATE, OPT_DURATION, OPT_ECHO_INT,
    OPT_ECHO_TMO, OPT_BACKOFF_MIN, OPT_BACKOFF_MAX, OPT_MODE, OPT_PIN_RATE, OPT_WINDOW,
    OPT_PIN_TMO, OPT_FLAP, OPT_RECONNECT, OPT_BAD_FROM, OPT_BAD_EVERY, OPT_BAD_KINDS,
    OPT_TXBUF, OPT_MP_LIMIT, OPT_ATTACK, OPT_SAMPLE, OPT_JSON, OPT_QUIET, OPT_SEED, OPT_DUMP, OPT_TLS,
    OPT_WIRING, OPT_HELP,
};

static const struct option long_opts[] = {
    {"controller", required_argument, NULL, OPT_CONTROLLER},
    {"listen", required_argument, NULL, OPT_LISTEN},
    {"listen-addr", required_argument, NULL, OPT_LISTEN_ADDR},
    {"bind", required_argument, NULL, OPT_BIND},
    {"switches", required_argument, NULL, OPT_SWITCHES},
    {"ports", required_argument, NULL, OPT_PORTS},
    {"dpid-base", required_argument, NULL, OPT_DPID},
    {"tables", required_argument, NULL, OPT_TABLES},
    {"table-size", required_argument, NULL, OPT_TABLE_SIZE},
    {"buffers", required_argument, NULL, OPT_BUFFERS},
    {"connect-rate", required_argument, NULL, OPT_RATE},
    {"duration", required_argument, NULL, OPT_DURATION},
    {"echo-interval", required_argument, NULL, OPT_ECHO_INT},
    {"echo-timeout", required_argument, NULL, OPT_ECHO_TMO},
    {"backoff-min", required_argument, NULL, OPT_BACKOFF_MIN},
    {"backoff-max", required_argument, NULL, OPT_BACKOFF_MAX},
    {"mode", required_argument, NULL, OPT_MODE},
    {"packet-in-rate", required_argument, NULL, OPT_PIN_RATE},
    {"window", required_argument, NULL, OPT_WINDOW},
    {"pin-timeout", required_argument, NULL, OPT_PIN_TMO},
    {"port-flap-interval", required_argument, NULL, OPT_FLAP},
    {"reconnect-every", required_argument, NULL, OPT_RECONNECT},
    {"malformed-from", required_argument, NULL, OPT_BAD_FROM},
    {"malformed-every", required_argument, NULL, OPT_BAD_EVERY},
    {"malformed-kinds", required_argument, NULL, OPT_BAD_KINDS},
    {"tx-buffer", required_argument, NULL, OPT_TXBUF},
    {"mp-limit", required_argument, NULL, OPT_MP_LIMIT},
    {"attack", required_argument, NULL, OPT_ATTACK},
    {"sample-interval", required_argument, NULL, OPT_SAMPLE},
    {"json", required_argument, NULL, OPT_JSON},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"seed", required_argument, NULL, OPT_SEED},
    {"dump-replies", required_argument, NULL, OPT_DUMP},
    {"tls", required_argument, NULL, OPT_TLS},
    {"wiring", required_argument, NULL, OPT_WIRING},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

/* ---- option parsing ---------------------------------------------------------------- */

static int parse_u64(const char *name, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi) {
        fprintf(stderr, "ofswitch-emu: --%s wants a number in [%llu, %llu], not '%s'\n", name,
                (unsigned long long)lo, (unsigned long long)hi, s);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

static int parse_u32(const char *name, const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
    uint64_t v;
    int rc = parse_u64(name, s, lo, hi, &v);
    if (!rc)
        *out = (uint32_t)v;
    return rc;
}

static int parse_double(const char *name, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0 || (*end && strcmp(end, "/s") != 0)) {
        fprintf(stderr, "ofswitch-emu: --%s wants a non-negative number, not '%s'\n", name, s);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

static int resolve(const char *host, const char *port, struct emu_opts *o)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc) {
        fprintf(stderr, "ofswitch-emu: cannot resolve %s:%s: %s\n", host, port, gai_strerror(rc));
        return -EINVAL;
    }
    memcpy(&o->addr, res->ai_addr, res->ai_addrlen);
    o->addr_len = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

/* HOST:PORT or [V6]:PORT. */
static int parse_hostport(const char *s, struct emu_opts *o)
{
    char buf[256];
    if (strlen(s) >= sizeof(buf))
        return -EINVAL;
    strcpy(buf, s);
    char *host = buf, *colon;
    if (buf[0] == '[') {
        char *close = strchr(buf, ']');
        if (!close || close[1] != ':')
            return -EINVAL;
        *close = '\0';
        host = buf + 1;
        colon = close + 1;
    } else {
        colon = strrchr(buf, ':');
        if (!colon)
            return -EINVAL;
        *colon = '\0';
    }
    return resolve(host, colon + 1, o);
}

static int parse_kinds(const char *s, uint32_t *out)
{
    static const char *const names[EMU_BAD_COUNT] = {"type", "short", "oxm", "version", "len"};
    uint32_t k = 0;
    const char *p = s;
    while (*p) {
        size_t n = strcspn(p, ",");
        int hit = -1;
        for (int i = 0; i < EMU_BAD_COUNT; i++)
            if (strlen(names[i]) == n && strncmp(p, names[i], n) == 0)
                hit = i;
        if (hit < 0) {
            fprintf(stderr, "ofswitch-emu: unknown malformed kind in '%s'\n", s);
            return -EINVAL;
        }
        k |= 1u << hit;
        p += n + (p[n] == ',');
    }
    *out = k;
    return k ? 0 : -EINVAL;
}

static void defaults(struct emu_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->n_switches = 1;
    o->n_ports = 4;
    o->dpid_base = 1;
    o->n_tables = 8;
    o->table_size = 100000;
    o->n_buffers = 256;
    o->connect_rate = 1000;
    o->duration_s = 10;
    o->echo_interval_ms = 5000;
    o->echo_timeout_ms = 15000;
    o->backoff_min_ms = 100;
    o->backoff_max_ms = 8000;
    o->window = 64;
    o->pin_timeout_ms = 1000;
    o->malformed_ms = 1000;
    o->malformed_kinds = (1u << EMU_BAD_TYPE) | (1u << EMU_BAD_SHORT) | (1u << EMU_BAD_OXM) |
                         (1u << EMU_BAD_VERSION);
    o->tx_limit = 256 * 1024;
    o->mp_limit = EMU_OFP_MP_LIMIT;
    o->sample_ms = 1000;
    o->seed = 1;
}

/* Returns 0, 1 for --help, or -EINVAL. */
static int parse_args(int argc, char **argv, struct emu_opts *o)
{
    const char *listen_addr = "127.0.0.1";
    const char *controller = NULL;
    uint32_t v32 = 0;
    uint64_t v64;
    int c, rc = 0;
    defaults(o);
    optind = 1;
    while (rc == 0 && (c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
        const char *name = c >= OPT_CONTROLLER && c <= OPT_HELP
                               ? long_opts[c - OPT_CONTROLLER].name : "?";
        switch (c) {
        case OPT_CONTROLLER: controller = optarg; break;
        case OPT_LISTEN:
            rc = parse_u32(name, optarg, 1, 65535, &v32);
            o->listen = true;
            o->listen_base = (uint16_t)v32;
            break;
        case OPT_LISTEN_ADDR: listen_addr = optarg; break;
        case OPT_BIND:
            o->has_bind = inet_pton(AF_INET, optarg, &o->bind_addr.sin_addr) == 1;
            o->bind_addr.sin_family = AF_INET;
            if (!o->has_bind) {
                fprintf(stderr, "ofswitch-emu: --bind wants an IPv4 address, not '%s'\n",
                        optarg);
                rc = -EINVAL;
            }
            break;
        case OPT_SWITCHES: rc = parse_u32(name, optarg, 1, EMU_MAX_SWITCHES, &o->n_switches); break;
        case OPT_PORTS: rc = parse_u32(name, optarg, 1, EMU_MAX_PORTS, &o->n_ports); break;
        case OPT_DPID: rc = parse_u64(name, optarg, 0, UINT64_MAX, &o->dpid_base); break;
        case OPT_TABLES:
            rc = parse_u32(name, optarg, 1, 254, &v32);
            o->n_tables = (uint8_t)v32;
            break;
        case OPT_TABLE_SIZE: rc = parse_u32(name, optarg, 0, UINT32_MAX - 1, &o->table_size); break;
        case OPT_BUFFERS: rc = parse_u32(name, optarg, 0, UINT32_MAX, &o->n_buffers); break;
        case OPT_RATE: rc = parse_double(name, optarg, &o->connect_rate); break;
        case OPT_DURATION: rc = parse_double(name, optarg, &o->duration_s); break;
        case OPT_ECHO_INT: rc = parse_u32(name, optarg, 0, 3600000, &o->echo_interval_ms); break;
        case OPT_ECHO_TMO: rc = parse_u32(name, optarg, 0, 3600000, &o->echo_timeout_ms); break;
        case OPT_BACKOFF_MIN: rc = parse_u32(name, optarg, 1, 3600000, &o->backoff_min_ms); break;
        case OPT_BACKOFF_MAX: rc = parse_u32(name, optarg, 1, 3600000, &o->backoff_max_ms); break;
        case OPT_MODE:
            if (strcmp(optarg, "none") == 0)
                o->mode = EMU_MODE_NONE;
            else if (strcmp(optarg, "latency") == 0)
                o->mode = EMU_MODE_LATENCY;
            else if (strcmp(optarg, "throughput") == 0)
                o->mode = EMU_MODE_THROUGHPUT;
            else {
                fprintf(stderr, "ofswitch-emu: --mode is none, latency or throughput\n");
                rc = -EINVAL;
            }
            break;
        case OPT_PIN_RATE: rc = parse_double(name, optarg, &o->pin_rate); break;
        case OPT_WINDOW: rc = parse_u32(name, optarg, 1, EMU_MAX_WINDOW, &o->window); break;
        case OPT_PIN_TMO: rc = parse_u32(name, optarg, 1, 3600000, &o->pin_timeout_ms); break;
        case OPT_FLAP: rc = parse_u32(name, optarg, 0, 3600000, &o->flap_ms); break;
        case OPT_RECONNECT: rc = parse_u32(name, optarg, 0, 3600000, &o->reconnect_ms); break;
        case OPT_BAD_FROM:
            rc = parse_u64(name, optarg, 0, UINT64_MAX, &v64);
            o->malformed = true;
            o->malformed_dpid = v64;
            break;
        case OPT_BAD_EVERY: rc = parse_u32(name, optarg, 1, 3600000, &o->malformed_ms); break;
        case OPT_BAD_KINDS: rc = parse_kinds(optarg, &o->malformed_kinds); break;
        case OPT_TXBUF:
            rc = parse_u32(name, optarg, 256, 1024 * 1024, &v32);
            o->tx_limit = v32 * 1024;
            break;
        case OPT_MP_LIMIT: rc = parse_u32(name, optarg, 1024, 65535, &o->mp_limit); break;
        case OPT_ATTACK:
            if (emu_attack_parse(optarg, &o->attack) < 0) {
                fprintf(stderr, "ofswitch-emu: --attack is none, silent, echo-flood, "
                                "hello-flood, partial or churn\n");
                rc = -EINVAL;
            }
            break;
        case OPT_SAMPLE: rc = parse_u32(name, optarg, 10, 3600000, &o->sample_ms); break;
        case OPT_JSON: o->json_path = optarg; break;
        case OPT_QUIET: o->quiet = true; break;
        case OPT_SEED: rc = parse_u64(name, optarg, 0, UINT64_MAX, &o->seed); break;
        case OPT_DUMP: o->dump_path = optarg; break;
        case OPT_TLS: o->tls = optarg; break;
        case OPT_WIRING: o->wiring = optarg; break;
        case OPT_HELP: return 1;
        default: return -EINVAL;
        }
    }
    if (rc)
        return rc;
    if (optind < argc) {
        fprintf(stderr, "ofswitch-emu: unexpected argument '%s'\n", argv[optind]);
        return -EINVAL;
    }
    if (o->dump_path) {
        o->n_switches = 1;
        return 0;
    }
    if (!controller == !o->listen) {
        fprintf(stderr, "ofswitch-emu: give exactly one of --controller and --listen\n");
        return -EINVAL;
    }
    if (controller && parse_hostport(controller, o)) {
        fprintf(stderr, "ofswitch-emu: --controller wants HOST:PORT, not '%s'\n", controller);
        return -EINVAL;
    }
    if (o->listen) {
        if ((uint32_t)o->listen_base + o->n_switches - 1 > 65535) {
            fprintf(stderr, "ofswitch-emu: --listen %u + %u switches passes port 65535\n",
                    o->listen_base, o->n_switches);
            return -EINVAL;
        }
        if (resolve(listen_addr, "0", o))
            return -EINVAL;
    }
    if (o->backoff_max_ms < o->backoff_min_ms)
        o->backoff_max_ms = o->backoff_min_ms;
    return 0;
}

/* ---- setup and run ----------------------------------------------------------------- */

uint64_t emu_rand(struct emu_ctx *ctx)
{
    /* xorshift64*: jitter only, reproducible with --seed. */
    uint64_t x = ctx->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    ctx->rng = x;
    return x * 2685821657736338717ull;
}

void emu_count_err(struct emu_errcount *tab, uint64_t *other, uint16_t type, uint16_t code)
{
    for (int i = 0; i < EMU_ERR_SLOTS; i++) {
        if (tab[i].n && tab[i].type == type && tab[i].code == code) {
            tab[i].n++;
            return;
        }
        if (!tab[i].n) {
            tab[i] = (struct emu_errcount){.type = type, .code = code, .n = 1};
            return;
        }
    }
    (*other)++;
}

static int raise_nofile(uint64_t need)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl))
        return -errno;
    if (rl.rlim_cur >= need)
        return 0;
    if (rl.rlim_max < need) {
        rl.rlim_max = need; /* works as root (up to fs.nr_open) */
    }
    rl.rlim_cur = need;
    if (setrlimit(RLIMIT_NOFILE, &rl)) {
        int e = -errno;
        fprintf(stderr, "ofswitch-emu: cannot raise the open-file limit to %llu: %s\n",
                (unsigned long long)need, strerror(errno));
        return e;
    }
    return 0;
}

static void on_io(void *arg, uint64_t tag, uint32_t events)
{
    struct emu_ctx *ctx = arg;
    uint32_t kind = (uint32_t)(tag & 3);
    if (kind == EMU_TAG_SIGNAL) {
        struct signalfd_siginfo si;
        while (read(ctx->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
            ctx->stop = true;
        return;
    }
    emu_conn_io(ctx, (uint32_t)(tag >> 2), kind, (uint32_t)(tag >> 34), events);
}

static void on_idle(void *arg)
{
    emu_conn_flush_all(arg);
}

static void sample_timer(struct emu_timer *t, uint64_t now)
{
    struct emu_ctx *ctx = EMU_CONTAINER_OF(t, struct emu_ctx, t_sample);
    for (uint32_t i = 0; i < ctx->n_sw; i++)
        if (emu_ft_has_timeouts(ctx->sw[i].ft))
            emu_agent_expire(&ctx->sw[i], now);
    emu_report_sample(ctx, now);
    emu_timer_arm(&ctx->loop, t, now + ctx->opt.sample_ms * EMU_NS_PER_MS);
}

static void end_timer(struct emu_timer *t, uint64_t now)
{
    struct emu_ctx *ctx = EMU_CONTAINER_OF(t, struct emu_ctx, t_end);
    (void)now;
    ctx->stop = true;
}

static void ctx_free(struct emu_ctx *ctx)
{
    ctx->stopping = true;
    if (ctx->sw) {
        for (uint32_t i = 0; i < ctx->n_sw; i++) {
            emu_conn_free(&ctx->sw[i]);
            emu_agent_free(&ctx->sw[i]);
        }
    }
    free(ctx->sw);
    emu_wire_free(ctx->wire);
    emu_report_free(ctx);
    if (ctx->sigfd >= 0)
        close(ctx->sigfd);
    emu_loop_fini(&ctx->loop);
    emu_tls_teardown(ctx->tls);
    free(ctx->rxbuf);
    free(ctx->txbuf);
    free(ctx->mbuf);
    free(ctx);
}

static struct emu_ctx *ctx_new(const struct emu_opts *o)
{
    struct emu_ctx *ctx = calloc(1, sizeof(*ctx));
    if (!ctx)
        return NULL;
    ctx->opt = *o;
    ctx->sigfd = -1;
    ctx->loop.epfd = -1;
    ctx->rng = o->seed ? o->seed : 0x9e3779b97f4a7c15ull;
    ctx->offline = o->dump_path != NULL;
    if (ctx->offline)
        ctx->opt.tx_limit = 64u << 20;
    emu_hist_init(&ctx->st.connect);
    emu_hist_init(&ctx->st.handshake);
    emu_hist_init(&ctx->st.echo_rtt);
    emu_hist_init(&ctx->st.pin_lat);
    ctx->rxbuf = malloc(EMU_RX_CHUNK);
    ctx->txbuf = malloc(EMU_TXBUF_LEN);
    ctx->mbuf = malloc(EMU_OFP_MAX_MSG + 1);
    ctx->sw = calloc(o->n_switches, sizeof(*ctx->sw));
    if (!ctx->rxbuf || !ctx->txbuf || !ctx->mbuf || !ctx->sw ||
        emu_loop_init(&ctx->loop, on_io, on_idle, ctx) || emu_report_init(ctx)) {
        ctx_free(ctx);
        return NULL;
    }
    ctx->n_sw = o->n_switches;
    for (uint32_t i = 0; i < ctx->n_sw; i++) {
        struct emu_sw *sw = &ctx->sw[i];
        sw->ctx = ctx;
        sw->idx = i;
        sw->dpid = o->dpid_base + i;
        emu_conn_init(sw);
        if (emu_agent_init(sw)) {
            ctx_free(ctx);
            return NULL;
        }
    }
    emu_timer_init(&ctx->t_sample, sample_timer);
    emu_timer_init(&ctx->t_end, end_timer);
    return ctx;
}

static int setup_signals(struct emu_ctx *ctx)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    if (sigprocmask(SIG_BLOCK, &set, NULL))
        return -errno;
    signal(SIGPIPE, SIG_IGN);
    ctx->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (ctx->sigfd < 0)
        return -errno;
    return emu_loop_add(&ctx->loop, ctx->sigfd, EPOLLIN, EMU_TAG_SIGNAL);
}

static int run(struct emu_ctx *ctx)
{
    const struct emu_opts *o = &ctx->opt;
    uint64_t t0 = emu_now_ns();
    ctx->st.t_start_ns = t0;
    for (uint32_t i = 0; i < ctx->n_sw; i++) {
        uint64_t at = o->connect_rate > 0 ? t0 + (uint64_t)((double)i * 1e9 / o->connect_rate)
                                          : t0;
        emu_conn_schedule(&ctx->sw[i], at);
    }
    emu_timer_arm(&ctx->loop, &ctx->t_sample, t0 + o->sample_ms * EMU_NS_PER_MS);
    if (o->duration_s > 0)
        emu_timer_arm(&ctx->loop, &ctx->t_end, t0 + (uint64_t)(o->duration_s * 1e9));
    while (!ctx->stop) {
        int rc = emu_loop_run_once(&ctx->loop, 1000);
        if (rc) {
            fprintf(stderr, "ofswitch-emu: epoll_wait: %s\n", strerror(-rc));
            return rc;
        }
    }
    ctx->st.t_end_ns = emu_now_ns();
    emu_report_sample(ctx, ctx->st.t_end_ns);
    return emu_report_write(ctx);
}

int main(int argc, char **argv)
{
    struct emu_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc > 0) {
        usage(stdout);
        return 0;
    }
    if (rc) {
        fprintf(stderr, "run 'ofswitch-emu --help' for the options\n");
        return 2;
    }
    uint64_t fds = (uint64_t)o.n_switches * (o.listen ? 2 : 1) + 64;
    if (!o.dump_path && raise_nofile(fds))
        return 1;
    void *tls = NULL;
    if (o.tls && (o.listen || emu_tls_setup(&tls, o.tls))) {
        if (o.listen)
            fprintf(stderr, "--tls: switches connect over TLS; --listen is plain TCP only\n");
        return 2;
    }
    struct emu_ctx *ctx = ctx_new(&o);
    if (!ctx) {
        fprintf(stderr, "ofswitch-emu: out of memory for %u switches\n", o.n_switches);
        emu_tls_teardown(tls);
        return 1;
    }
    ctx->tls = tls;
    if (o.wiring) {
        char err[256];
        if (emu_wire_build(o.wiring, o.n_switches, o.n_ports, &ctx->wire, err, sizeof(err))) {
            fprintf(stderr, "%s\n", err);
            ctx_free(ctx);
            return 2;
        }
        if (!o.quiet)
            fprintf(stderr, "ofswitch-emu: --wiring %s: %llu links\n", o.wiring,
                    (unsigned long long)emu_wire_links(ctx->wire));
    }
    if (o.dump_path)
        rc = emu_dump_replies(ctx);
    else if ((rc = setup_signals(ctx)) == 0)
        rc = run(ctx);
    ctx_free(ctx);
    return rc ? 1 : 0;
}
