/*
 * ofcd_ratelimit: at most `burst` log lines per window from one call site
 * (or one kind), the rest counted and reported with the next line allowed —
 * so a peer that triggers a warning a million times a second costs one line
 * a second, and the operator still learns how many were not written.
 * One per context (per lcore's module, per connection...), time passed in;
 * `burst` lines per window, on the one token bucket (ofcd_tbucket.h).
 *
 * LOG_WARN_RL(&ctx->rl_site, now_us, "comp", fmt, ...) (and _ERR_, _INFO_)
 * is the usual form: one limiter per log site, kept in the context whose
 * thread logs there (never a function-level static, which threads would
 * share); the line says how many of its kind were suppressed before it.
 */
#ifndef OFCD_RATELIMIT_H
#define OFCD_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "ofcd_log.h"
#include "ofcd_tbucket.h"

struct ofcd_ratelimit {
    uint64_t window_us;
    uint32_t burst;
    bool primed;                   /* the bucket was filled at the first line */
    struct ofcd_tbucket bucket;    /* burst lines per window, refilled evenly */
    uint64_t suppressed;           /* not written since the last allowed line */
};

#define OFCD_RATELIMIT_INIT(burst_, window_ms_) \
    {.window_us = (uint64_t)(window_ms_) * 1000u, .burst = (burst_)}

/* May a line go out at now_us? If so, *missed is how many were suppressed
 * since the previous one (to print with it). The first line of a site
 * always goes: the bucket starts full. */
static inline bool ofcd_ratelimit(struct ofcd_ratelimit *rl, uint64_t now_us, uint64_t *missed)
{
    double rate = rl->window_us ? (double)rl->burst * 1e6 / (double)rl->window_us : 1e18;

    if (!rl->primed) {
        ofcd_tbucket_init(&rl->bucket, now_us, rl->burst);
        rl->primed = true;
    }
    if (!ofcd_tbucket_take(&rl->bucket, now_us, rate, rl->burst)) {
        rl->suppressed++;
        return false;
    }
    *missed = rl->suppressed;
    rl->suppressed = 0;
    return true;
}

/* A line at level through rl (lines of a level not logged are not counted):
 * written with the count suppressed since the last one. */
#define OFCD_LOG_RL(level, rl, now_us, comp, ...)                                         \
    do {                                                                                  \
        uint64_t ofcd_rl_missed_;                                                         \
        if (ofcd_log_enabled((comp), (level)) &&                                          \
            ofcd_ratelimit((rl), (now_us), &ofcd_rl_missed_))                             \
            ofcd_log_missed((level), (comp), ofcd_rl_missed_, __VA_ARGS__);               \
    } while (0)
#define LOG_ERR_RL(rl, now_us, comp, ...) OFCD_LOG_RL(OFCD_LOG_ERR, rl, now_us, comp, __VA_ARGS__)
#define LOG_WARN_RL(rl, now_us, comp, ...)                                                \
    OFCD_LOG_RL(OFCD_LOG_WARN, rl, now_us, comp, __VA_ARGS__)
#define LOG_INFO_RL(rl, now_us, comp, ...)                                                \
    OFCD_LOG_RL(OFCD_LOG_INFO, rl, now_us, comp, __VA_ARGS__)

#endif
