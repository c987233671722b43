/*
 * tcp-bench: connections/s, echo throughput and request/response latency
 * against any TCP echo service, over kernel sockets (measurements in tb.h).
 * Prints figures, never judges them; run_bench_tcp.sh runs it against the
 * kernel echo server and ofcd and prints the ratios.
 *
 *   tcp-bench --addr A --port P [--label L] [--test cps,tput,rtt|all]
 *             [--conns N] [--parallel N] [--bytes B] [--duration S]
 *             [--size N] [--timeout S] [--verify] [--json FILE]
 *
 * Output: a table whose lines start with "[label]", then one machine line
 * per test: "result label=L test=T key=value ...". Exit 0 when the tests
 * ran (whatever the figures), 1 if one could not run, 2 on usage errors.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tb.h"
#include "tt_common.h"

#define TB_TEST_CPS 1u
#define TB_TEST_TPUT 2u
#define TB_TEST_RTT 4u

#define TB_DEF_CPS_CONNS 10000
#define TB_DEF_TPUT_CONNS 100
#define TB_DEF_RTT_CONNS 1000

struct tb_report {
    const char *label;
    char target[32];
    unsigned tests;
    struct tb_cps_result cps;
    struct tb_tput_result tput;
    struct tb_rtt_result rtt;
};

static double tb_us(uint64_t ns)
{
    return (double)ns / 1000.0;
}

static void tb_usage(FILE *f)
{
    fprintf(f,
            "usage: tcp-bench --addr A.B.C.D --port P [options]\n"
            "  --label L       name printed with every figure (default 'target')\n"
            "  --test LIST     cps, tput, rtt, comma-separated, or all (default all)\n"
            "  --conns N       connections (default cps %u, tput %u, rtt %u)\n"
            "  --parallel N    cps: connections in flight (default 64)\n"
            "  --bytes B       tput: bytes echoed per connection (default 1M)\n"
            "  --duration S    rtt: seconds of measuring (default 5)\n"
            "  --size N        rtt: request size, 1..%u (default 64)\n"
            "  --timeout S     bound on each test (default 60)\n"
            "  --verify        tput: check every echoed byte (costs client CPU)\n"
            "  --seed S        payload seed (default 1)\n"
            "  --json FILE     also write the figures as JSON\n",
            TB_DEF_CPS_CONNS, TB_DEF_TPUT_CONNS, TB_DEF_RTT_CONNS, TB_MAX_MSG);
}

static int tb_parse_tests(const char *s, unsigned *out)
{
    char buf[64], *save = NULL, *tok;

    if (strcmp(s, "all") == 0) {
        *out = TB_TEST_CPS | TB_TEST_TPUT | TB_TEST_RTT;
        return 0;
    }
    if (strlen(s) >= sizeof(buf))
        return -EINVAL;
    strcpy(buf, s);
    *out = 0;
    for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "cps") == 0)
            *out |= TB_TEST_CPS;
        else if (strcmp(tok, "tput") == 0)
            *out |= TB_TEST_TPUT;
        else if (strcmp(tok, "rtt") == 0)
            *out |= TB_TEST_RTT;
        else
            return -EINVAL;
    }
    return *out != 0 ? 0 : -EINVAL;
}

static void tb_print(const struct tb_report *rp)
{
    const char *l = rp->label;

    printf("tcp-bench label=%s target=%s\n", l, rp->target);
    if (rp->tests & TB_TEST_CPS) {
        const struct tb_cps_result *r = &rp->cps;

        printf("[%s] connections/s    %12.1f  (%u conns: %u ok, %u failed, %.3f s; connect "
               "p50 %.1f us p99 %.1f us; cycle p50 %.1f us p99 %.1f us)\n",
               l, r->per_s, r->conns, r->ok, r->failed, r->seconds,
               tb_us(tt_hist_quantile(&r->connect_ns, 0.5)),
               tb_us(tt_hist_quantile(&r->connect_ns, 0.99)),
               tb_us(tt_hist_quantile(&r->cycle_ns, 0.5)),
               tb_us(tt_hist_quantile(&r->cycle_ns, 0.99)));
    }
    if (rp->tests & TB_TEST_TPUT) {
        const struct tb_tput_result *r = &rp->tput;

        printf("[%s] throughput MB/s  %12.1f  (%u conns x %" PRIu64 " B: %u ok, %u failed, "
               "%.3f s, sent+received%s)\n", l, r->mb_per_s, r->conns, r->bytes_each, r->ok,
               r->failed, r->seconds, r->verified ? ", verified" : "");
    }
    if (rp->tests & TB_TEST_RTT) {
        const struct tb_rtt_result *r = &rp->rtt;
        const struct tt_hist *h = &r->rtt_ns;

        printf("[%s] round trips/s    %12.1f  (%u conns, %u B, %.2f s, %" PRIu64 " msgs, "
               "%u failed, %" PRIu64 " bad)\n", l, r->msgs_per_s, r->conns, r->msg_size,
               r->seconds, r->msgs, r->failed, r->bad);
        printf("[%s] rtt p50 us       %12.1f\n", l, tb_us(tt_hist_quantile(h, 0.50)));
        printf("[%s] rtt p90 us       %12.1f\n", l, tb_us(tt_hist_quantile(h, 0.90)));
        printf("[%s] rtt p99 us       %12.1f\n", l, tb_us(tt_hist_quantile(h, 0.99)));
        printf("[%s] rtt max us       %12.1f\n", l, tb_us(h->max * (h->count > 0)));
    }
    /* Machine-readable lines, one per test, for run_bench_tcp.sh. */
    if (rp->tests & TB_TEST_CPS) {
        const struct tb_cps_result *r = &rp->cps;

        printf("result label=%s test=cps conns=%u ok=%u failed=%u seconds=%.3f "
               "conns_per_s=%.1f connect_p50_us=%.1f connect_p99_us=%.1f\n", l, r->conns,
               r->ok, r->failed, r->seconds, r->per_s,
               tb_us(tt_hist_quantile(&r->connect_ns, 0.5)),
               tb_us(tt_hist_quantile(&r->connect_ns, 0.99)));
    }
    if (rp->tests & TB_TEST_TPUT) {
        const struct tb_tput_result *r = &rp->tput;

        printf("result label=%s test=tput conns=%u bytes=%" PRIu64 " ok=%u failed=%u "
               "seconds=%.3f mb_per_s=%.1f\n", l, r->conns, r->bytes_each, r->ok, r->failed,
               r->seconds, r->mb_per_s);
    }
    if (rp->tests & TB_TEST_RTT) {
        const struct tb_rtt_result *r = &rp->rtt;
        const struct tt_hist *h = &r->rtt_ns;

        printf("result label=%s test=rtt conns=%u failed=%u size=%u seconds=%.3f msgs=%" PRIu64
               " msgs_per_s=%.1f p50_us=%.1f p90_us=%.1f p99_us=%.1f max_us=%.1f bad=%" PRIu64
               "\n", l, r->conns, r->failed, r->msg_size, r->seconds, r->msgs, r->msgs_per_s,
               tb_us(tt_hist_quantile(h, 0.50)), tb_us(tt_hist_quantile(h, 0.90)),
               tb_us(tt_hist_quantile(h, 0.99)), tb_us(h->max * (h->count > 0)), r->bad);
    }
    fflush(stdout);
}

static int tb_write_json(const struct tb_report *rp, const char *path)
{
    FILE *f = fopen(path, "w");
    const char *sep = "";

    if (f == NULL)
        return -errno;
    fprintf(f, "{\"label\":");
    tt_json_str(f, rp->label);
    fprintf(f, ",\"target\":\"%s\",\"results\":{", rp->target);
    if (rp->tests & TB_TEST_CPS) {
        const struct tb_cps_result *r = &rp->cps;

        fprintf(f, "\n \"cps\":{\"conns\":%u,\"ok\":%u,\"failed\":%u,\"seconds\":%.6f,"
                "\"conns_per_s\":%.1f,\"connect_p50_us\":%.1f,\"connect_p99_us\":%.1f,"
                "\"cycle_p50_us\":%.1f,\"cycle_p99_us\":%.1f}", r->conns, r->ok, r->failed,
                r->seconds, r->per_s, tb_us(tt_hist_quantile(&r->connect_ns, 0.5)),
                tb_us(tt_hist_quantile(&r->connect_ns, 0.99)),
                tb_us(tt_hist_quantile(&r->cycle_ns, 0.5)),
                tb_us(tt_hist_quantile(&r->cycle_ns, 0.99)));
        sep = ",";
    }
    if (rp->tests & TB_TEST_TPUT) {
        const struct tb_tput_result *r = &rp->tput;

        fprintf(f, "%s\n \"tput\":{\"conns\":%u,\"bytes\":%" PRIu64 ",\"ok\":%u,\"failed\":%u,"
                "\"seconds\":%.6f,\"sent\":%" PRIu64 ",\"received\":%" PRIu64
                ",\"mb_per_s\":%.1f,\"verified\":%s}", sep, r->conns, r->bytes_each, r->ok,
                r->failed, r->seconds, r->sent, r->rcvd, r->mb_per_s,
                r->verified ? "true" : "false");
        sep = ",";
    }
    if (rp->tests & TB_TEST_RTT) {
        const struct tb_rtt_result *r = &rp->rtt;
        const struct tt_hist *h = &r->rtt_ns;

        fprintf(f, "%s\n \"rtt\":{\"conns\":%u,\"connected\":%u,\"failed\":%u,\"size\":%u,"
                "\"seconds\":%.6f,\"msgs\":%" PRIu64 ",\"msgs_per_s\":%.1f,\"p50_us\":%.1f,"
                "\"p90_us\":%.1f,\"p99_us\":%.1f,\"max_us\":%.1f,\"mean_us\":%.1f,"
                "\"bad\":%" PRIu64 "}", sep, r->conns, r->connected, r->failed, r->msg_size,
                r->seconds, r->msgs, r->msgs_per_s, tb_us(tt_hist_quantile(h, 0.50)),
                tb_us(tt_hist_quantile(h, 0.90)), tb_us(tt_hist_quantile(h, 0.99)),
                tb_us(h->max * (h->count > 0)),
                h->count > 0 ? tb_us(h->sum) / (double)h->count : 0.0, r->bad);
    }
    fprintf(f, "}}\n");
    return fclose(f) == 0 ? 0 : -errno;
}

static uint32_t tb_conns_for(uint32_t given, uint32_t def)
{
    return given != 0 ? given : def;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "addr", required_argument, NULL, 'a' },
        { "port", required_argument, NULL, 'p' },
        { "label", required_argument, NULL, 'L' },
        { "test", required_argument, NULL, 'T' },
        { "conns", required_argument, NULL, 'c' },
        { "parallel", required_argument, NULL, 'P' },
        { "bytes", required_argument, NULL, 'b' },
        { "duration", required_argument, NULL, 'd' },
        { "size", required_argument, NULL, 'z' },
        { "timeout", required_argument, NULL, 't' },
        { "verify", no_argument, NULL, 'V' },
        { "seed", required_argument, NULL, 's' },
        { "json", required_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct tb_opts o = { .parallel = 64, .bytes = 1 << 20, .msg_size = 64, .duration_s = 5,
                         .timeout_s = 60, .seed = 1 };
    struct tb_report *rp = calloc(1, sizeof(*rp));
    const char *addr = NULL, *json = NULL;
    uint64_t port = 0, v;
    struct tb_env env;
    int opt, rc = 0;

    if (rp == NULL)
        return 1;
    rp->label = "target";
    rp->tests = TB_TEST_CPS | TB_TEST_TPUT | TB_TEST_RTT;
    while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (opt) {
        case 'a': addr = optarg; break;
        case 'p': rc = tt_parse_u64(optarg, 1, 65535, &port); break;
        case 'L': rp->label = optarg; break;
        case 'T': rc = tb_parse_tests(optarg, &rp->tests); break;
        case 'c': rc = tt_parse_u64(optarg, 1, TB_MAX_CONNS, &v); o.conns = (uint32_t)v; break;
        case 'P': rc = tt_parse_u64(optarg, 1, TB_MAX_CONNS, &v); o.parallel = (uint32_t)v;
            break;
        case 'b': rc = tt_parse_size(optarg, 1ULL << 40, &o.bytes); break;
        case 'd': rc = tt_parse_seconds(optarg, &o.duration_s); break;
        case 'z': rc = tt_parse_u64(optarg, 1, TB_MAX_MSG, &v); o.msg_size = (uint32_t)v; break;
        case 't':
            rc = tt_parse_seconds(optarg, &o.timeout_s);
            if (rc == 0 && o.timeout_s <= 0)
                rc = -EINVAL;
            break;
        case 'V': o.verify = true; break;
        case 's': rc = tt_parse_u64(optarg, 0, UINT64_MAX, &o.seed); break;
        case 'j': json = optarg; break;
        case 'h': tb_usage(stdout); free(rp); return 0;
        default: tb_usage(stderr); free(rp); return 2;
        }
        if (rc != 0) {
            fprintf(stderr, "tcp-bench: bad value '%s' for --%s\n", optarg,
                    tt_optname(opts, opt));
            free(rp);
            return 2;
        }
    }
    if (optind != argc || port == 0 || tt_parse_addr(addr, (uint16_t)port, &o.dst) != 0) {
        tb_usage(stderr);
        free(rp);
        return 2;
    }
    snprintf(rp->target, sizeof(rp->target), "%s:%u", addr, (unsigned)port);
    if (tt_raise_nofile(tb_conns_for(o.conns, TB_DEF_CPS_CONNS) + 64) != 0)
        fprintf(stderr, "tcp-bench: warning: could not raise the fd limit\n");
    rc = tb_env_init(&env);
    if (rc < 0) {
        fprintf(stderr, "tcp-bench: %s\n", strerror(-rc));
        free(rp);
        return 1;
    }

    if ((rp->tests & TB_TEST_CPS) && rc == 0 && !env.interrupted) {
        struct tb_opts t = o;

        t.conns = tb_conns_for(o.conns, TB_DEF_CPS_CONNS);
        rc = tb_cps_run(&env, &t, &rp->cps);
    }
    if ((rp->tests & TB_TEST_TPUT) && rc == 0 && !env.interrupted) {
        struct tb_opts t = o;

        t.conns = tb_conns_for(o.conns, TB_DEF_TPUT_CONNS);
        rc = tb_tput_run(&env, &t, &rp->tput);
    }
    if ((rp->tests & TB_TEST_RTT) && rc == 0 && !env.interrupted) {
        struct tb_opts t = o;

        t.conns = tb_conns_for(o.conns, TB_DEF_RTT_CONNS);
        rc = tb_rtt_run(&env, &t, &rp->rtt);
    }
    tb_env_close(&env);
    if (rc < 0) {
        fprintf(stderr, "tcp-bench: %s\n", strerror(-rc));
        free(rp);
        return 1;
    }
    tb_print(rp);
    if (json != NULL && (rc = tb_write_json(rp, json)) < 0)
        fprintf(stderr, "tcp-bench: %s: %s\n", json, strerror(-rc));
    free(rp);
    return 0;
}
