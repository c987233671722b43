/*
 * rest_history: the last 15 minutes of the appliance's headline figures,
 * one sample every 5 s, for the dashboard's sparklines (GET /api/v1/history).
 *
 * A sample holds gauges read at its time (switches, links, flows by state,
 * store use, the deepest priority ring) and rates over the 5 s before it
 * (REST requests per second, REST p99, echo RTT p50/p99 of every switch),
 * the rates from the difference of two readings of the cumulative
 * histograms /metrics also shows. A rate with nothing to measure (no echo
 * came back in those 5 s) is unknown, not 0: -1 here, null in JSON.
 *
 * This file is the pure part: the ring, the quantile of a histogram's
 * difference, the JSON. rest_history_http.c samples the server's sources
 * on a thread of its own and answers the route.
 *
 * GET /api/v1/history[?since=MS]  {"interval_s": 5, "samples": N,
 *     "t": [unix ms, ...], "switches_up": [...], ...one array per field,
 *     oldest first, only samples newer than since...,
 *     "now": {the gauges read at the request, same names}}
 */
#ifndef OFCD_REST_HISTORY_H
#define OFCD_REST_HISTORY_H

#include <stdint.h>

#include <jansson.h>

#define REST_HISTORY_INTERVAL_MS 5000
#define REST_HISTORY_SAMPLES 180        /* 15 minutes */

struct rest_history_sample {
    int64_t t_ms;                       /* unix time */
    int64_t switches_up, switches_known;
    int64_t links_up, links_down;       /* -1: the topology app is off */
    int64_t flows_installed, flows_pending, flows_error;
    int64_t store_used, store_size;     /* bytes */
    int64_t ring_depth;                 /* the deepest priority ring's messages now */
    double rest_rps, rest_p99_ms;       /* rates: -1 = unknown */
    double echo_p50_ms, echo_p99_ms;
};

struct rest_history_ring {
    struct rest_history_sample s[REST_HISTORY_SAMPLES];
    unsigned head;                      /* next slot written */
    unsigned n;
};

void rest_history_push(struct rest_history_ring *r, const struct rest_history_sample *s);
/* The samples newer than since_ms (unix), oldest first, into out[SAMPLES]:
 * their count. */
unsigned rest_history_since(const struct rest_history_ring *r, int64_t since_ms,
                            struct rest_history_sample *out);

/*
 * The q-quantile (0 < q < 1) of the observations between two readings of
 * a cumulative histogram of n buckets (prev may be NULL: none before),
 * bucket i holding values up to upper[i] (the last may be a bound for
 * everything above): the upper bound of the bucket the quantile falls in,
 * so never below the truth. -1 when there was no observation.
 */
double rest_history_quantile(const uint64_t *now, const uint64_t *prev, unsigned n,
                             const double *upper, double q);

/* The answer's JSON for v[n] (oldest first) and, if now is not NULL, its
 * gauges as "now". NULL when out of memory. */
json_t *rest_history_json(const struct rest_history_sample *v, unsigned n,
                          const struct rest_history_sample *now);

#endif
