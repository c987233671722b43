/*
 * eline_sched: an EVC's schedules (mef_eline's circuit_scheduler) read and
 * reckoned. Pure: a schedule's JSON in, its next firing out, times in
 * seconds since the epoch (UTC) passed in; no clock, no I/O.
 *
 * A schedule, as Kytos-ng's mef_eline takes it: {"id", "action", one of
 * "date" | "interval" | "frequency"}:
 *   - action "create" (the default: the EVC laid) or "remove" (taken off
 *     its switches);
 *   - date: once, at that time (ISO 8601, "2026-12-07T14:52:10", a fraction
 *     and "Z" or an offset "+01:00" / "-0300" allowed; UTC without one);
 *   - interval: every {"weeks", "days", "hours", "minutes", "seconds"}
 *     (non-negative integers, at least one second in all), from the EVC's
 *     start_date, or from its creation plus one interval;
 *   - frequency: a crontab line "minute hour day month day_of_week" read
 *     as Kytos' scheduler (APScheduler's from_crontab) reads it: "*", "N",
 *     "A-B", "*\/S", "A-B/S", "N/S" (N to the end) and lists of them;
 *     months 1-12 or jan-dec;
 *     days of week 0-6 counted from MONDAY (not cron's Sunday) or mon-sun;
 *     every field must match (day and day_of_week together, not either),
 *     in UTC; a step at most the span it walks, as APScheduler bounds it
 *     ("*\/60" and "10-20/15" of a minute are refused); a line that
 *     matches no date (the 30th of February) refused.
 * interval and frequency fire only within the EVC's start_date and
 * end_date when given.
 */
#ifndef OFCD_ELINE_SCHED_H
#define OFCD_ELINE_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define ELINE_SCHED_ID_MAX 64           /* a schedule's id, NUL included */
#define ELINE_SCHED_MAX 16              /* schedules per EVC */

enum eline_sched_action {
    ELINE_SCHED_CREATE = 0,
    ELINE_SCHED_REMOVE = 1,
};

enum eline_sched_kind {
    ELINE_SCHED_DATE = 0,
    ELINE_SCHED_INTERVAL = 1,
    ELINE_SCHED_CRON = 2,
};

/* A crontab line as the sets of values each field lets through. */
struct eline_cron {
    uint64_t minute;                    /* bits 0..59 */
    uint32_t hour;                      /* bits 0..23 */
    uint32_t day;                       /* bits 1..31 */
    uint16_t month;                     /* bits 1..12 */
    uint8_t dow;                        /* bits 0..6, 0 = Monday */
};

struct eline_sched {
    char id[ELINE_SCHED_ID_MAX];        /* "" when the item had none */
    enum eline_sched_action action;
    enum eline_sched_kind kind;
    int64_t date;                       /* DATE */
    int64_t every;                      /* INTERVAL, seconds */
    struct eline_cron cron;             /* CRON */
};

/* One circuit_scheduler item into *out: 0, or -EINVAL with the field and
 * the reason in err ("circuit_scheduler[0].frequency: ..." as prefix
 * names). */
int eline_sched_parse(json_t *item, const char *prefix, struct eline_sched *out, char *err,
                      size_t errlen);

/* An ISO 8601 time (UTC) into seconds since the epoch: 0, -EINVAL. */
int eline_sched_time(const char *text, int64_t *out);

/*
 * The first firing of s strictly after `after`: a DATE's date; an
 * INTERVAL's anchor + k * every (anchor: start when non-zero, else
 * created + every); a CRON's next matching minute. -1 when there is none
 * (a date past, past end when end is non-zero).
 */
int64_t eline_sched_next(const struct eline_sched *s, int64_t after, int64_t start,
                         int64_t end, int64_t created);

/*
 * The last firing of s in (after, until], -1 when none: what a window the
 * worker looks at once (it may hold several firings of one schedule) is
 * ordered by, so that a "remove" at 10:05 and a "create" at 10:07 seen
 * together leave the EVC laid, whatever their order in the list. A crontab
 * window is walked a firing at a time, at most 100,000 of them (a window
 * that long: its last one found so far).
 */
int64_t eline_sched_last(const struct eline_sched *s, int64_t after, int64_t until,
                         int64_t start, int64_t end, int64_t created);

#endif
