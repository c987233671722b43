/*
 * ofcd_tbucket: the one token bucket every limiter uses — REST requests per
 * client address (rest.rate_limit_per_s), FLOW_MODs per owner per switch
 * (flow_manager.pacing_per_s) and log lines per call site (ofcd_ratelimit.h).
 *
 * A bucket holds up to `burst` tokens and gains `rate_per_s` of them per
 * second; an action costs one. Pure: time is passed in (µs of one
 * monotonic clock), the rate and burst too, so one bucket struct per
 * client or per owner is 16 bytes and a limit changed at run time applies
 * to every bucket at once. A caller whose clock reading is a little older
 * than the bucket's last refill (it read the clock before taking a lock)
 * gains nothing and loses nothing.
 *
 * Not thread-safe: a bucket belongs to one context or sits under its lock.
 */
#ifndef OFCD_TBUCKET_H
#define OFCD_TBUCKET_H

#include <stdbool.h>
#include <stdint.h>

struct ofcd_tbucket {
    double tokens;
    uint64_t at_us;      /* the clock at the last refill */
};

/* A bucket that starts with `tokens` at now_us. */
static inline void ofcd_tbucket_init(struct ofcd_tbucket *b, uint64_t now_us, double tokens)
{
    b->tokens = tokens;
    b->at_us = now_us;
}

/* Add what accrued since the last refill, capped at burst. */
static inline void ofcd_tbucket_refill(struct ofcd_tbucket *b, uint64_t now_us,
                                       double rate_per_s, double burst)
{
    if (now_us > b->at_us) {
        b->tokens += (double)(now_us - b->at_us) * rate_per_s / 1e6;
        b->at_us = now_us;
    }
    if (b->tokens > burst)
        b->tokens = burst;
}

/* Refilled to now_us: is there a whole token? (Spend it with _spend.) */
static inline bool ofcd_tbucket_ready(struct ofcd_tbucket *b, uint64_t now_us,
                                      double rate_per_s, double burst)
{
    ofcd_tbucket_refill(b, now_us, rate_per_s, burst);
    return b->tokens >= 1.0;
}

static inline void ofcd_tbucket_spend(struct ofcd_tbucket *b)
{
    b->tokens -= 1.0;
}

/* Take one token if there is one: true = allowed. */
static inline bool ofcd_tbucket_take(struct ofcd_tbucket *b, uint64_t now_us,
                                     double rate_per_s, double burst)
{
    if (!ofcd_tbucket_ready(b, now_us, rate_per_s, burst))
        return false;
    ofcd_tbucket_spend(b);
    return true;
}

#endif
