/* rest_history: the samples' ring, quantiles and JSON (rest_history.h). */
#include "rest_history.h"

#include <stddef.h>

void rest_history_push(struct rest_history_ring *r, const struct rest_history_sample *s)
{
    r->s[r->head] = *s;
    r->head = (r->head + 1) % REST_HISTORY_SAMPLES;
    if (r->n < REST_HISTORY_SAMPLES)
        r->n++;
}

unsigned rest_history_since(const struct rest_history_ring *r, int64_t since_ms,
                            struct rest_history_sample *out)
{
    unsigned first = (r->head + REST_HISTORY_SAMPLES - r->n) % REST_HISTORY_SAMPLES, k = 0;

    for (unsigned i = 0; i < r->n; i++) {
        const struct rest_history_sample *s = &r->s[(first + i) % REST_HISTORY_SAMPLES];
        if (s->t_ms > since_ms)
            out[k++] = *s;
    }
    return k;
}

double rest_history_quantile(const uint64_t *now, const uint64_t *prev, unsigned n,
                             const double *upper, double q)
{
    uint64_t total = 0, cum = 0;

    for (unsigned i = 0; i < n; i++)
        total += now[i] - (prev ? prev[i] : 0);
    if (total == 0)
        return -1;
    /* The rank of the quantile, 1-based: the smallest bucket whose
     * cumulative count reaches it. */
    double rank = q * (double)total;
    for (unsigned i = 0; i < n; i++) {
        cum += now[i] - (prev ? prev[i] : 0);
        if ((double)cum >= rank)
            return upper[i];
    }
    return upper[n - 1];
}

/* The fields as JSON names, with how to read each from a sample. */
struct field {
    const char *name;
    size_t off;
    int kind;                           /* 0: int64_t, 1: double */
    int gauge;                          /* read at the moment (in "now") */
};

#define FI(f, g) {#f, offsetof(struct rest_history_sample, f), 0, g}
#define FD(f) {#f, offsetof(struct rest_history_sample, f), 1, 0}
static const struct field fields[] = {
    {"t", offsetof(struct rest_history_sample, t_ms), 0, 1},
    FI(switches_up, 1), FI(switches_known, 1), FI(links_up, 1), FI(links_down, 1),
    FI(flows_installed, 1), FI(flows_pending, 1), FI(flows_error, 1),
    FI(store_used, 1), FI(store_size, 1), FI(ring_depth, 1),
    FD(rest_rps), FD(rest_p99_ms), FD(echo_p50_ms), FD(echo_p99_ms),
};

static json_t *value(const struct rest_history_sample *s, const struct field *f)
{
    const char *p = (const char *)s + f->off;

    if (f->kind == 1) {
        double d = *(const double *)p;
        return d < 0 ? json_null() : json_real(d);
    }
    int64_t v = *(const int64_t *)p;
    return v < 0 ? json_null() : json_integer(v);
}

json_t *rest_history_json(const struct rest_history_sample *v, unsigned n,
                          const struct rest_history_sample *now)
{
    json_t *o = json_pack("{s:i, s:i}", "interval_s", REST_HISTORY_INTERVAL_MS / 1000,
                          "samples", (int)n);
    json_t *nowo = now ? json_object() : NULL;
    int bad = !o || (now && !nowo);

    for (size_t f = 0; !bad && f < sizeof(fields) / sizeof(fields[0]); f++) {
        json_t *a = json_array();
        bad |= !a || json_object_set_new(o, fields[f].name, a) < 0;
        for (unsigned i = 0; !bad && i < n; i++)
            bad |= json_array_append_new(a, value(&v[i], &fields[f])) < 0;
        if (!bad && nowo && fields[f].gauge)
            bad |= json_object_set_new(nowo, fields[f].name, value(now, &fields[f])) < 0;
    }
    if (!bad && nowo) {
        bad |= json_object_set_new(o, "now", nowo) < 0;
        nowo = NULL;
    }
    json_decref(nowo);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}
