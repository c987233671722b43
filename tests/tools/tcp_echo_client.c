/*
 * tcp-echo-client: opens many kernel TCP connections to an echo service and
 * verifies, byte for byte, that each gets its own stream back (engine and
 * modes in ec.h). Used by the TCP integration tests against ofcd and by the
 * tools' selftest against tcp-echo-server.
 *
 *   tcp-echo-client --addr A --port P [--conns N] [--bytes B] [--mode M]
 *                   [--seed S] [--connect-rate R] [--timeout S] [--json FILE]
 *
 * Prints a summary, the first errors with connection index and stream offset,
 * and last a line "conns_ok=N conns_failed=M bytes_verified=B". Exit 0 only
 * when every connection succeeded in the requested mode, 1 otherwise, 2 on a
 * usage error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ec.h"
#include "tt_common.h"

struct ec_totals {
    uint64_t sent;
    uint64_t verified;
    uint64_t sum_tx;
    uint64_t sum_rx;
    double elapsed_s;
};

static void ec_usage(FILE *f)
{
    fprintf(f,
            "usage: tcp-echo-client --addr A.B.C.D --port P [options]\n"
            "  --conns N          concurrent connections, 1..%u (default 1)\n"
            "  --bytes B          bytes per connection, K/M/G suffixes (default 64K)\n"
            "  --mode M           echo | halfclose-only | reset | hold (default echo)\n"
            "  --seed S           stream seed (default 1); connection i sends stream (S, i)\n"
            "  --connect-rate R   new connections per second, 0 = all at once (default 0)\n"
            "  --timeout S        fail whatever is unfinished after S seconds (default 60)\n"
            "  --json FILE        also write the results as JSON\n"
            "  --cc NAME          congestion control of every socket (default: the system's)\n"
            "Modes: echo sends B bytes while reading, half-closes, expects B bytes then EOF;\n"
            "halfclose-only sends B bytes (may be 0) before reading, then the same (B must\n"
            "fit in the path's buffers); reset aborts with RST after B/2; hold sends B/2,\n"
            "prints 'holding N connections' and waits for a signal.\n",
            EC_MAX_CONNS);
}

static void ec_totals_get(const struct ec_ctx *ctx, struct ec_totals *t)
{
    memset(t, 0, sizeof(*t));
    for (uint32_t i = 0; i < ctx->o.conns; i++) {
        const struct ec_conn *c = &ctx->conns[i];

        t->sent += c->sent;
        t->verified += c->rcvd;
        /* Per-connection sums add into an order-free run total. */
        t->sum_tx += tt_sum_value(&c->sum_tx);
        t->sum_rx += tt_sum_value(&c->sum_rx);
    }
    t->elapsed_s = (double)(ctx->t_end - ctx->t_start) / 1e9;
}

static void ec_error_text(const struct ec_ctx *ctx, const struct ec_error_rec *r, char *buf,
                          size_t len)
{
    const struct ec_conn *c = &ctx->conns[r->conn];
    const char *what = ec_err_name((enum ec_err)r->err);

    if (r->err == EC_ERR_CONNECT || r->err == EC_ERR_IO || r->err == EC_ERR_RESET)
        what = tt_errname(r->sys_err);
    snprintf(buf, len,
             "conn %u: %s at offset %" PRIu64 " (sent %" PRIu64 ", received %" PRIu64 ", state %s)",
             r->conn, what, r->offset, r->sent, c->rcvd,
             ec_state_name((enum ec_state)r->state));
}

static void ec_print_summary(const struct ec_ctx *ctx, const struct ec_totals *t)
{
    char addr[INET_ADDRSTRLEN], line[256];
    double mb = (double)(t->sent + t->verified) / 1e6;

    inet_ntop(AF_INET, &ctx->o.dst.sin_addr, addr, sizeof(addr));
    printf("tcp-echo-client: mode=%s target=%s:%u conns=%u bytes=%" PRIu64 " seed=%" PRIu64
           "\n", ec_mode_name(ctx->o.mode), addr, ntohs(ctx->o.dst.sin_port), ctx->o.conns,
           ctx->o.bytes, ctx->o.seed);
    printf("  connected      %u of %u\n", ctx->connected, ctx->o.conns);
    printf("  succeeded      %u%s\n", ctx->ok, ctx->o.mode == EC_MODE_HOLD ? " (held)" : "");
    printf("  failed         %u\n", ctx->failed);
    printf("  sent           %" PRIu64 " bytes, checksum 0x%016" PRIx64 "\n", t->sent,
           t->sum_tx);
    printf("  verified       %" PRIu64 " bytes, checksum 0x%016" PRIx64 "%s\n", t->verified,
           t->sum_rx,
           ctx->o.mode == EC_MODE_ECHO || ctx->o.mode == EC_MODE_HALFCLOSE
               ? (t->sum_tx == t->sum_rx && t->sent == t->verified ? " (matches sent)"
                                                                   : " (differs from sent)")
               : "");
    printf("  elapsed        %.3f s, %.1f MB/s sent+received\n", t->elapsed_s,
           t->elapsed_s > 0 ? mb / t->elapsed_s : 0.0);
    if (ctx->failed > 0) {
        printf("  errors        ");
        for (unsigned e = EC_ERR_NONE + 1; e < EC_ERR_COUNT; e++)
            if (ctx->err_count[e] > 0)
                printf(" %s=%" PRIu64, ec_err_name((enum ec_err)e), ctx->err_count[e]);
        printf("\n");
        for (uint32_t i = 0; i < ctx->nfirst; i++) {
            ec_error_text(ctx, &ctx->first[i], line, sizeof(line));
            printf("    %s\n", line);
        }
        if (ctx->failed > ctx->nfirst)
            printf("    ... and %u more\n", ctx->failed - ctx->nfirst);
    }
    printf("conns_ok=%u conns_failed=%u bytes_verified=%" PRIu64 "\n", ctx->ok,
           ctx->o.conns - ctx->ok, t->verified);
    fflush(stdout);
}

static int ec_write_json(const struct ec_ctx *ctx, const struct ec_totals *t, const char *path)
{
    char addr[INET_ADDRSTRLEN], line[256];
    FILE *f = fopen(path, "w");

    if (f == NULL)
        return -errno;
    inet_ntop(AF_INET, &ctx->o.dst.sin_addr, addr, sizeof(addr));
    fprintf(f, "{\"mode\":\"%s\",\"addr\":\"%s\",\"port\":%u,\"conns\":%u,\"bytes\":%" PRIu64
            ",\"seed\":%" PRIu64 ",\n", ec_mode_name(ctx->o.mode), addr,
            ntohs(ctx->o.dst.sin_port), ctx->o.conns, ctx->o.bytes, ctx->o.seed);
    fprintf(f, " \"connected\":%u,\"conns_ok\":%u,\"conns_failed\":%u,\"bytes_sent\":%" PRIu64
            ",\"bytes_verified\":%" PRIu64 ",\n", ctx->connected, ctx->ok,
            ctx->o.conns - ctx->ok, t->sent, t->verified);
    fprintf(f, " \"checksum_sent\":\"0x%016" PRIx64 "\",\"checksum_received\":\"0x%016" PRIx64
            "\",\"elapsed_s\":%.6f,\n \"errors\":{", t->sum_tx, t->sum_rx, t->elapsed_s);
    for (unsigned e = EC_ERR_NONE + 1; e < EC_ERR_COUNT; e++)
        fprintf(f, "%s\"%s\":%" PRIu64, e == 1 ? "" : ",", ec_err_name((enum ec_err)e),
                ctx->err_count[e]);
    fprintf(f, "},\n \"first_errors\":[");
    for (uint32_t i = 0; i < ctx->nfirst; i++) {
        const struct ec_error_rec *r = &ctx->first[i];

        ec_error_text(ctx, r, line, sizeof(line));
        fprintf(f, "%s\n  {\"conn\":%u,\"error\":\"%s\",\"errno\":\"%s\",\"offset\":%" PRIu64
                ",\"sent\":%" PRIu64 ",\"text\":", i == 0 ? "" : ",", r->conn,
                ec_err_name((enum ec_err)r->err), r->sys_err ? tt_errname(r->sys_err) : "",
                r->offset, r->sent);
        tt_json_str(f, line);
        fprintf(f, "}");
    }
    fprintf(f, "]}\n");
    return fclose(f) == 0 ? 0 : -errno;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "addr", required_argument, NULL, 'a' },
        { "port", required_argument, NULL, 'p' },
        { "conns", required_argument, NULL, 'c' },
        { "bytes", required_argument, NULL, 'b' },
        { "mode", required_argument, NULL, 'M' },
        { "seed", required_argument, NULL, 's' },
        { "connect-rate", required_argument, NULL, 'r' },
        { "timeout", required_argument, NULL, 't' },
        { "json", required_argument, NULL, 'j' },
        { "cc", required_argument, NULL, 'C' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct ec_opts o = { .conns = 1, .bytes = 64 << 10, .seed = 1, .timeout_s = 60,
                         .mode = EC_MODE_ECHO };
    const char *addr = NULL, *json = NULL;
    uint64_t port = 0, v;
    struct ec_totals t;
    struct ec_ctx *ctx;
    int opt, rc = 0;

    while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (opt) {
        case 'a': addr = optarg; break;
        case 'p': rc = tt_parse_u64(optarg, 1, 65535, &port); break;
        case 'c': rc = tt_parse_u64(optarg, 1, EC_MAX_CONNS, &v); o.conns = (uint32_t)v; break;
        case 'b': rc = tt_parse_size(optarg, 1ULL << 40, &o.bytes); break;
        case 'M': rc = ec_mode_parse(optarg, &o.mode); break;
        case 's': rc = tt_parse_u64(optarg, 0, UINT64_MAX, &o.seed); break;
        case 'r': rc = tt_parse_seconds(optarg, &o.connect_rate); break;
        case 't':
            rc = tt_parse_seconds(optarg, &o.timeout_s);
            if (rc == 0 && (o.timeout_s <= 0 || o.timeout_s > 86400))
                rc = -EINVAL;
            break;
        case 'j': json = optarg; break;
        case 'C':
            rc = strlen(optarg) < sizeof(o.cc) && optarg[0] ? 0 : -EINVAL;
            if (rc == 0)
                snprintf(o.cc, sizeof(o.cc), "%s", optarg);
            break;
        case 'h': ec_usage(stdout); return 0;
        default: ec_usage(stderr); return 2;
        }
        if (rc != 0) {
            fprintf(stderr, "tcp-echo-client: bad value '%s' for --%s\n", optarg,
                    tt_optname(opts, opt));
            return 2;
        }
    }
    if (optind != argc || port == 0 || tt_parse_addr(addr, (uint16_t)port, &o.dst) != 0) {
        ec_usage(stderr);
        return 2;
    }
    if (o.mode == EC_MODE_HALFCLOSE && o.bytes > (256u << 10))
        fprintf(stderr, "tcp-echo-client: warning: halfclose-only writes all %" PRIu64
                " bytes before reading; past the path's buffers it stalls until --timeout\n",
                o.bytes);
    if (tt_raise_nofile((uint64_t)o.conns + 64) != 0)
        fprintf(stderr, "tcp-echo-client: warning: fd limit below %u, some connections "
                "will fail with EMFILE\n", o.conns + 64);

    ctx = ec_create(&o);
    if (ctx == NULL)
        return 1;
    rc = ec_run(ctx);
    if (rc < 0) {
        fprintf(stderr, "tcp-echo-client: %s\n", strerror(-rc));
        ec_destroy(ctx);
        return 1;
    }
    ec_totals_get(ctx, &t);
    if (json != NULL) {
        rc = ec_write_json(ctx, &t, json);
        if (rc < 0)
            fprintf(stderr, "tcp-echo-client: %s: %s\n", json, strerror(-rc));
    }
    ec_print_summary(ctx, &t);
    rc = ctx->ok == ctx->o.conns ? 0 : 1;
    ec_destroy(ctx);
    return rc;
}
