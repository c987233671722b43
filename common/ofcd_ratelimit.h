/*
 * ofcd_ratelimit: at most `burst` log lines per window from one call site
 * (or one kind), the rest counted and reported with the next line allowed —
 * so a peer that triggers a warning a million times a second costs one line
 * a second, and the operator still learns how many were not written.
 * One per context (per lcore's module, per connection...), time passed in.
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

struct ofcd_ratelimit {
    uint64_t window_us;
    uint32_t burst;
    uint64_t start_us;             /* current window */
    uint32_t used;                 /* lines allowed in it */
    uint64_t suppressed;           /* not written since the last allowed line */
};

#define OFCD_RATELIMIT_INIT(burst_, window_ms_) \
    {.window_us = (uint64_t)(window_ms_) * 1000u, .burst = (burst_)}

/* May a line go out at now_us? If so, *missed is how many were suppressed
 * since the previous one (to print with it). */
static inline bool ofcd_ratelimit(struct ofcd_ratelimit *rl, uint64_t now_us, uint64_t *missed)
{
    if (now_us - rl->start_us >= rl->window_us) {
        rl->start_us = now_us;
        rl->used = 0;
    }
    if (rl->used >= rl->burst) {
        rl->suppressed++;
        return false;
    }
    rl->used++;
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
