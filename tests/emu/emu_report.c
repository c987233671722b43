/*
 * emu_report.c - what the emulator measured: periodic samples during the run and the
 * final report, as JSON (--json FILE, or "-" for stdout) and as a human-readable table
 * (stdout, or stderr when the JSON goes to stdout; --quiet drops it).
 *
 * Samples are taken every --sample-interval ms by emu_main.c's timer; the sample array
 * has a fixed capacity and, when full, keeps every other sample and halves the rate, so
 * memory stays bounded however long the run.  Times in the report are microseconds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "emu.h"

#define SAMPLE_CAP 2048

static const char *const bad_names[EMU_BAD_COUNT] = {"type", "short", "oxm", "version", "len"};

int emu_report_init(struct emu_ctx *ctx)
{
    struct emu_stats *st = &ctx->st;
    st->samples = calloc(SAMPLE_CAP, sizeof(*st->samples));
    if (!st->samples)
        return -ENOMEM;
    st->cap_samples = SAMPLE_CAP;
    st->sample_every = 1;
    return 0;
}

void emu_report_free(struct emu_ctx *ctx)
{
    free(ctx->st.samples);
    ctx->st.samples = NULL;
}

static uint64_t disconnects(const struct emu_stats *st)
{
    uint64_t n = 0;
    for (int i = 0; i < EMU_DISC_COUNT; i++)
        if (i != EMU_DISC_CONNECT_FAILED && i != EMU_DISC_SHUTDOWN)
            n += st->disc[i];
    return n;
}

struct ft_summary {
    uint32_t min;
    uint32_t max;
    uint64_t total;
};

static struct ft_summary ft_summary(const struct emu_ctx *ctx)
{
    struct ft_summary s = {.min = UINT32_MAX};
    for (uint32_t i = 0; i < ctx->n_sw; i++) {
        uint32_t n = ctx->sw[i].ft ? ctx->sw[i].ft->n_flows : 0;
        s.min = n < s.min ? n : s.min;
        s.max = n > s.max ? n : s.max;
        s.total += n;
    }
    if (!ctx->n_sw)
        s.min = 0;
    return s;
}

void emu_report_sample(struct emu_ctx *ctx, uint64_t now_ns)
{
    struct emu_stats *st = &ctx->st;
    if (st->sample_tick++ % st->sample_every)
        return;
    if (st->n_samples == st->cap_samples) {
        for (uint32_t i = 0; i < st->n_samples / 2; i++)
            st->samples[i] = st->samples[2 * i];
        st->n_samples /= 2;
        st->sample_every *= 2;
    }
    struct ft_summary f = ft_summary(ctx);
    st->samples[st->n_samples++] = (struct emu_sample){
        .t_ms = (uint32_t)((now_ns - st->t_start_ns) / EMU_NS_PER_MS),
        .open = st->open_now,
        .handshaked = st->handshaked_now,
        .flows_min = f.min,
        .flows_max = f.max,
        .flows_total = f.total,
        .flow_mods = st->flow_mods,
        .pin_resp = st->pin_resp,
        .disconnects = disconnects(st),
    };
}

/* ---- JSON ------------------------------------------------------------------------- */

static double us(uint64_t ns)
{
    return (double)ns / 1000.0;
}

static void json_hist(FILE *f, const char *name, const struct emu_hist *h, const char *tail)
{
    fprintf(f, "    \"%s\": {\"count\": %llu, \"min\": %.1f, \"p50\": %.1f, \"p90\": %.1f, "
               "\"p99\": %.1f, \"max\": %.1f, \"mean\": %.1f}%s\n",
            name, (unsigned long long)h->count, us(h->count ? h->min : 0),
            us(emu_hist_quantile(h, 0.50)), us(emu_hist_quantile(h, 0.90)),
            us(emu_hist_quantile(h, 0.99)), us(h->max),
            h->count ? us(h->sum / h->count) : 0.0, tail);
}

static void json_errs(FILE *f, const char *name, const struct emu_errcount *tab,
                      uint64_t other, const char *tail)
{
    fprintf(f, "  \"%s\": {\"other\": %llu, \"by_code\": [", name, (unsigned long long)other);
    bool first = true;
    for (int i = 0; i < EMU_ERR_SLOTS; i++) {
        if (!tab[i].n)
            continue;
        fprintf(f, "%s{\"type\": %u, \"code\": %u, \"count\": %llu}", first ? "" : ", ",
                tab[i].type, tab[i].code, (unsigned long long)tab[i].n);
        first = false;
    }
    fprintf(f, "]}%s\n", tail);
}

static void json_msgs(FILE *f, const char *name, const uint64_t *v, const char *tail)
{
    fprintf(f, "    \"%s\": {", name);
    bool first = true;
    for (int i = 0; i <= EMU_OFPT_COUNT; i++) {
        if (!v[i])
            continue;
        fprintf(f, "%s\"%s\": %llu", first ? "" : ", ",
                i < EMU_OFPT_COUNT ? emu_ofp_type_name((uint8_t)i) : "UNKNOWN",
                (unsigned long long)v[i]);
        first = false;
    }
    fprintf(f, "}%s\n", tail);
}

static const char *mode_name(enum emu_mode m)
{
    return m == EMU_MODE_LATENCY ? "latency" : m == EMU_MODE_THROUGHPUT ? "throughput" : "none";
}

static void write_json(const struct emu_ctx *ctx, FILE *f)
{
    const struct emu_stats *st = &ctx->st;
    const struct emu_opts *o = &ctx->opt;
    double secs = (double)(st->t_end_ns - st->t_start_ns) / 1e9;
    if (secs <= 0)
        secs = 1e-9;
    struct ft_summary fs = ft_summary(ctx);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);

    fprintf(f, "{\n  \"version\": 1,\n");
    fprintf(f, "  \"config\": {\"switches\": %u, \"ports\": %u, \"tables\": %u, "
               "\"table_size\": %u, \"buffers\": %u, \"mode\": \"%s\", "
               "\"packet_in_rate\": %.1f, \"window\": %u, \"echo_interval_ms\": %u, "
               "\"echo_timeout_ms\": %u, \"connect_rate\": %.1f, \"listen\": %s},\n",
            o->n_switches, o->n_ports, o->n_tables, o->table_size, o->n_buffers,
            mode_name(o->mode), o->pin_rate, o->mode == EMU_MODE_LATENCY ? 1 : o->window,
            o->echo_interval_ms, o->echo_timeout_ms, o->connect_rate,
            o->listen ? "true" : "false");
    fprintf(f, "  \"duration_s\": %.3f,\n", secs);
    fprintf(f, "  \"switches\": {\"configured\": %u, \"handshaked\": %u, \"open_at_end\": %u, "
               "\"handshaked_at_end\": %u},\n",
            ctx->n_sw, st->switches_handshaked, st->open_now, st->handshaked_now);
    fprintf(f, "  \"connect\": {\"attempts\": %llu, \"established\": %llu, \"accepted\": %llu, "
               "\"refused_extra\": %llu, \"handshakes\": %llu},\n",
            (unsigned long long)st->connect_attempts, (unsigned long long)st->connects,
            (unsigned long long)st->accepts, (unsigned long long)st->accepts_refused,
            (unsigned long long)st->handshakes);
    fprintf(f, "  \"times_us\": {\n");
    json_hist(f, "connect", &st->connect, ",");
    json_hist(f, "handshake", &st->handshake, ",");
    json_hist(f, "echo_rtt", &st->echo_rtt, ",");
    json_hist(f, "packet_in_latency", &st->pin_lat, "");
    fprintf(f, "  },\n");
    fprintf(f, "  \"echo\": {\"requests_sent\": %llu, \"replies\": %llu, "
               "\"controller_requests_answered\": %llu},\n",
            (unsigned long long)st->echo_req_sent, (unsigned long long)st->echo_rep_rcvd,
            (unsigned long long)st->echo_req_answered);
    fprintf(f, "  \"disconnects\": {\"total\": %llu", (unsigned long long)disconnects(st));
    for (int i = 0; i < EMU_DISC_COUNT; i++)
        fprintf(f, ", \"%s\": %llu", emu_disc_name((enum emu_disc)i),
                (unsigned long long)st->disc[i]);
    fprintf(f, "},\n");
    fprintf(f, "  \"flow_mods\": {\"received\": %llu, \"failed\": %llu, \"per_sec\": %.1f, "
               "\"flows_removed_sent\": %llu, \"barriers\": %llu},\n",
            (unsigned long long)st->flow_mods, (unsigned long long)st->flow_mods_failed,
            (double)st->flow_mods / secs, (unsigned long long)st->flows_removed_sent,
            (unsigned long long)st->barriers);
    fprintf(f, "  \"flow_table\": {\"total\": %llu, \"per_switch_min\": %u, "
               "\"per_switch_avg\": %.1f, \"per_switch_max\": %u},\n",
            (unsigned long long)fs.total, fs.min,
            ctx->n_sw ? (double)fs.total / ctx->n_sw : 0.0, fs.max);
    fprintf(f, "  \"packet_in\": {\"mode\": \"%s\", \"sent\": %llu, \"responses\": %llu, "
               "\"responses_per_sec\": %.1f, \"timeouts\": %llu, \"late\": %llu, "
               "\"lost_on_disconnect\": %llu},\n",
            mode_name(o->mode), (unsigned long long)st->pin_sent,
            (unsigned long long)st->pin_resp, (double)st->pin_resp / secs,
            (unsigned long long)st->pin_timeout, (unsigned long long)st->pin_late,
            (unsigned long long)st->pin_lost_disc);
    fprintf(f, "  \"multipart\": {\"requests\": %llu, \"reply_messages\": %llu, "
               "\"reply_max_bytes\": %u},\n",
            (unsigned long long)st->mp_requests, (unsigned long long)st->mp_reply_msgs,
            st->mp_reply_max_len);
    fprintf(f, "  \"port_status_sent\": %llu,\n", (unsigned long long)st->port_status_sent);
    fprintf(f, "  \"wiring\": {\"delivered\": %llu, \"lost\": %llu},\n",
            (unsigned long long)st->wire_delivered, (unsigned long long)st->wire_lost);
    fprintf(f, "  \"attack\": {\"mode\": \"%s\", \"messages_sent\": %llu},\n",
            emu_attack_name(o->attack), (unsigned long long)st->attack_msgs);
    fprintf(f, "  \"malformed_sent\": {");
    for (int i = 0; i < EMU_BAD_COUNT; i++)
        fprintf(f, "%s\"%s\": %llu", i ? ", " : "", bad_names[i],
                (unsigned long long)st->malformed_sent[i]);
    fprintf(f, "},\n");
    json_errs(f, "errors_sent", st->err_sent, st->err_sent_other, ",");
    json_errs(f, "errors_received", st->err_rcvd, st->err_rcvd_other, ",");
    fprintf(f, "  \"messages\": {\n");
    json_msgs(f, "rx", st->rx_msgs, ",");
    json_msgs(f, "tx", st->tx_msgs, "");
    fprintf(f, "  },\n");
    fprintf(f, "  \"bytes\": {\"rx\": %llu, \"tx\": %llu},\n", (unsigned long long)st->rx_bytes,
            (unsigned long long)st->tx_bytes);
    fprintf(f, "  \"process\": {\"user_s\": %.3f, \"sys_s\": %.3f, \"max_rss_kib\": %ld},\n",
            (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
            (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss);
    fprintf(f, "  \"samples\": [");
    for (uint32_t i = 0; i < st->n_samples; i++) {
        const struct emu_sample *s = &st->samples[i];
        const struct emu_sample *p = i ? &st->samples[i - 1] : NULL;
        double dt = p ? (double)(s->t_ms - p->t_ms) / 1000.0 : (double)s->t_ms / 1000.0;
        if (dt <= 0)
            dt = 1e-3;
        fprintf(f, "%s\n    {\"t_ms\": %u, \"open\": %u, \"handshaked\": %u, "
                   "\"flows_total\": %llu, \"flows_min\": %u, \"flows_avg\": %.1f, "
                   "\"flows_max\": %u, \"flow_mods_per_sec\": %.1f, "
                   "\"packet_in_responses_per_sec\": %.1f, \"disconnects\": %llu}",
                i ? "," : "", s->t_ms, s->open, s->handshaked,
                (unsigned long long)s->flows_total, s->flows_min,
                ctx->n_sw ? (double)s->flows_total / ctx->n_sw : 0.0, s->flows_max,
                (double)(s->flow_mods - (p ? p->flow_mods : 0)) / dt,
                (double)(s->pin_resp - (p ? p->pin_resp : 0)) / dt,
                (unsigned long long)s->disconnects);
    }
    fprintf(f, "\n  ]\n}\n");
}

/* ---- table ------------------------------------------------------------------------ */

static void table_hist(FILE *f, const char *name, const struct emu_hist *h)
{
    if (!h->count) {
        fprintf(f, "  %-22s %10s\n", name, "-");
        return;
    }
    fprintf(f, "  %-22s %10llu %10.1f %10.1f %10.1f %10.1f\n", name,
            (unsigned long long)h->count, us(emu_hist_quantile(h, 0.50)),
            us(emu_hist_quantile(h, 0.90)), us(emu_hist_quantile(h, 0.99)), us(h->max));
}

static void write_table(const struct emu_ctx *ctx, FILE *f)
{
    const struct emu_stats *st = &ctx->st;
    double secs = (double)(st->t_end_ns - st->t_start_ns) / 1e9;
    if (secs <= 0)
        secs = 1e-9;
    struct ft_summary fs = ft_summary(ctx);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    fprintf(f, "ofswitch-emu: %u switches, %.1f s, mode %s\n", ctx->n_sw, secs,
            mode_name(ctx->opt.mode));
    fprintf(f, "  switches handshaked %u (open at end %u, handshaked at end %u)\n",
            st->switches_handshaked, st->open_now, st->handshaked_now);
    fprintf(f, "  connects %llu of %llu attempts, accepts %llu, handshakes %llu\n",
            (unsigned long long)st->connects, (unsigned long long)st->connect_attempts,
            (unsigned long long)st->accepts, (unsigned long long)st->handshakes);
    fprintf(f, "  %-22s %10s %10s %10s %10s %10s\n", "time (us)", "count", "p50", "p90",
            "p99", "max");
    table_hist(f, "connect", &st->connect);
    table_hist(f, "handshake", &st->handshake);
    table_hist(f, "echo rtt", &st->echo_rtt);
    table_hist(f, "packet_in -> response", &st->pin_lat);
    fprintf(f, "  disconnects %llu:", (unsigned long long)disconnects(st));
    for (int i = 0; i < EMU_DISC_COUNT; i++)
        if (st->disc[i] && i != EMU_DISC_SHUTDOWN)
            fprintf(f, " %s=%llu", emu_disc_name((enum emu_disc)i),
                    (unsigned long long)st->disc[i]);
    fprintf(f, "\n");
    fprintf(f, "  flow_mods %llu (%.1f/s, %llu rejected), barriers %llu\n",
            (unsigned long long)st->flow_mods, (double)st->flow_mods / secs,
            (unsigned long long)st->flow_mods_failed, (unsigned long long)st->barriers);
    fprintf(f, "  flows per switch min/avg/max %u / %.1f / %u (total %llu)\n", fs.min,
            ctx->n_sw ? (double)fs.total / ctx->n_sw : 0.0, fs.max,
            (unsigned long long)fs.total);
    fprintf(f, "  packet_in sent %llu, responses %llu (%.1f/s), timeouts %llu, late %llu\n",
            (unsigned long long)st->pin_sent, (unsigned long long)st->pin_resp,
            (double)st->pin_resp / secs, (unsigned long long)st->pin_timeout,
            (unsigned long long)st->pin_late);
    uint64_t bad = 0, errs = st->err_sent_other;
    for (int i = 0; i < EMU_BAD_COUNT; i++)
        bad += st->malformed_sent[i];
    for (int i = 0; i < EMU_ERR_SLOTS; i++)
        errs += st->err_sent[i].n;
    fprintf(f, "  port_status sent %llu, malformed sent %llu, errors sent %llu, "
               "errors received (type/code=n):",
            (unsigned long long)st->port_status_sent, (unsigned long long)bad,
            (unsigned long long)errs);
    for (int i = 0; i < EMU_ERR_SLOTS; i++)
        if (st->err_rcvd[i].n)
            fprintf(f, " %u/%u=%llu", st->err_rcvd[i].type, st->err_rcvd[i].code,
                    (unsigned long long)st->err_rcvd[i].n);
    fprintf(f, "\n  cpu user %.2f s sys %.2f s, max rss %ld KiB\n",
            (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
            (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss);
}

int emu_report_write(struct emu_ctx *ctx)
{
    const struct emu_opts *o = &ctx->opt;
    bool json_stdout = o->json_path && strcmp(o->json_path, "-") == 0;
    if (o->json_path) {
        FILE *f = json_stdout ? stdout : fopen(o->json_path, "w");
        if (!f) {
            int e = -errno;
            fprintf(stderr, "ofswitch-emu: cannot write %s: %s\n", o->json_path, strerror(errno));
            return e;
        }
        write_json(ctx, f);
        if (json_stdout)
            fflush(f);
        else if (fclose(f))
            return -errno;
    }
    if (!o->quiet)
        write_table(ctx, json_stdout ? stderr : stdout);
    return 0;
}
