/* eline_sched: see eline_sched.h. */
#include "eline_sched.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* The Gregorian calendar repeats, weekdays included, every 400 years: a
 * crontab that matches nothing within them never matches (refused). */
#define SCHED_CRON_YEARS 400
#define SCHED_CRON_FROM 946684800ll /* 2000-01-01T00:00:00Z, where that search starts */
#define SCHED_LAST_STEPS 100000     /* firings walked to find a window's last */

static int bad(char *err, size_t len, const char *prefix, const char *field, const char *why)
{
    snprintf(err, len, "%s.%s: %s", prefix, field, why);
    return -EINVAL;
}

/* ---- time ------------------------------------------------------------------------------ */

int eline_sched_time(const char *text, int64_t *out)
{
    struct tm tm = {0};
    int n = 0;

    static const char shape[] = "dddd-dd-ddTdd:dd:dd";
    for (size_t i = 0; text && i < sizeof(shape) - 1; i++)
        if (shape[i] == 'd' ? !isdigit((unsigned char)text[i]) : text[i] != shape[i])
            return -EINVAL;
    if (!text || sscanf(text, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                        &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6 || n != 19)
        return -EINVAL;
    const char *p = text + n;
    if (*p == '.')
        for (p++; isdigit((unsigned char)*p); p++) {
        }
    int64_t offset = 0;                 /* east of UTC, seconds */
    if (*p == 'Z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int hh, mm, used = 0;
        bool colon = strlen(p) >= 4 && p[3] == ':';
        if (sscanf(p + 1, colon ? "%2d:%2d%n" : "%2d%2d%n", &hh, &mm, &used) != 2 ||
            used != (colon ? 5 : 4) || !isdigit((unsigned char)p[1]) || hh > 23 || mm > 59)
            return -EINVAL;
        offset = (*p == '-' ? -1 : 1) * (hh * 3600 + mm * 60);
        p += 1 + used;
    }
    if (*p || tm.tm_year < 1970 || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 ||
        tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
        return -EINVAL;
    int mday = tm.tm_mday;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    time_t t = timegm(&tm);
    if (t == (time_t)-1 || tm.tm_mday != mday)      /* 31 February: normalised away */
        return -EINVAL;
    *out = (int64_t)t - offset;
    return 0;
}

/* ---- crontab ------------------------------------------------------------------------- */

static const char *const MONTHS[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                     "jul", "aug", "sep", "oct", "nov", "dec"};
static const char *const DAYS[] = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};

/* A value of a field: a number, or a name (names[i] is lo + i). */
static int cron_value(const char **p, int lo, const char *const *names, int n_names, int *out)
{
    if (isdigit((unsigned char)**p)) {
        char *end;
        long v = strtol(*p, &end, 10);
        if (end - *p > 3)
            return -EINVAL;
        *p = end;
        *out = (int)v;
        return 0;
    }
    for (int i = 0; i < n_names; i++)
        if (strncasecmp(*p, names[i], 3) == 0) {
            *p += 3;
            *out = lo + i;
            return 0;
        }
    return -EINVAL;
}

/* One field (a comma list of *, N, A-B, each with an optional /S) into the
 * bits lo..hi of *set. */
static int cron_field(const char *text, int lo, int hi, const char *const *names, int n_names,
                      uint64_t *set, int *max_step)
{
    const char *p = text;

    *set = 0;
    for (;;) {
        int a = lo, b = hi, step = 1;
        if (*p == '*') {
            p++;
        } else {
            if (cron_value(&p, lo, names, n_names, &a) < 0)
                return -EINVAL;
            b = *p == '/' ? hi : a;         /* "5/15": from 5 to the end, as APScheduler */
            if (*p == '-') {
                p++;
                if (cron_value(&p, lo, names, n_names, &b) < 0)
                    return -EINVAL;
            }
        }
        if (*p == '/') {
            char *end;
            p++;
            long s = isdigit((unsigned char)*p) ? strtol(p, &end, 10) : 0;
            if (s < 1)
                return -EINVAL;
            /* APScheduler's bound: the span the step walks ("*": the
             * field's; "N/S": N to the end; "A-B/S": B - A, an end of 0
             * read as the field's end, as its `last or max` does). */
            *max_step = (b ? b : hi) - a;
            if (s > *max_step)
                return -ERANGE;
            step = (int)s;
            p = end;
        }
        if (a < lo || b > hi || a > b)
            return -EINVAL;
        for (int v = a; v <= b; v += step)
            *set |= 1ull << v;
        if (*p == '\0')
            return 0;
        if (*p++ != ',')
            return -EINVAL;
    }
}

/* The first minute after `after` that c matches, -1 when none within
 * SCHED_CRON_YEARS. */
static int64_t cron_next(const struct eline_cron *c, int64_t after)
{
    int64_t t = (after / 60 + 1) * 60;      /* the next whole minute */
    int64_t limit = after + SCHED_CRON_YEARS * 366ll * 86400;

    while (t <= limit) {
        time_t tt = (time_t)t;
        struct tm tm;
        gmtime_r(&tt, &tm);
        int dow = (tm.tm_wday + 6) % 7;     /* Monday = 0 */
        if (!(c->month >> (tm.tm_mon + 1) & 1)) {
            tm.tm_mon++;                    /* the first of the next month */
            tm.tm_mday = 1;
            tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
            t = (int64_t)timegm(&tm);
        } else if (!(c->day >> tm.tm_mday & 1) || !(c->dow >> dow & 1)) {
            t += 86400 - (tm.tm_hour * 3600 + tm.tm_min * 60);
        } else if (!(c->hour >> tm.tm_hour & 1)) {
            t += 3600 - tm.tm_min * 60;
        } else if (!(c->minute >> tm.tm_min & 1)) {
            t += 60;
        } else {
            return t;
        }
    }
    return -1;
}

static int cron_parse(const char *line, struct eline_cron *c, char *why, size_t len)
{
    static const char *const field_names[] = {"a minute", "an hour", "a day", "a month",
                                              "a day_of_week"};
    static const char *const bare[] = {"minute", "hour", "day", "month", "day_of_week"};
    static const int lo[] = {0, 0, 1, 1, 0}, hi[] = {59, 23, 31, 12, 6};
    char buf[128], *save = NULL;
    uint64_t set[5];
    int n = 0;

    if (strlen(line) >= sizeof(buf)) {
        snprintf(why, len, "too long");
        return -EINVAL;
    }
    memcpy(buf, line, strlen(line) + 1);
    for (char *f = strtok_r(buf, " \t", &save); f; f = strtok_r(NULL, " \t", &save)) {
        if (n == 5) {
            snprintf(why, len, "a crontab line has 5 fields (minute hour day month "
                               "day_of_week), not more");
            return -EINVAL;
        }
        const char *const *names = n == 3 ? MONTHS : n == 4 ? DAYS : NULL;
        int n_names = n == 3 ? 12 : n == 4 ? 7 : 0;
        int max_step = 0;
        int rc = cron_field(f, lo[n], hi[n], names, n_names, &set[n], &max_step);
        if (rc == -ERANGE) {
            snprintf(why, len, "'%s': a step of the %s past its range (at most %d)", f, bare[n],
                     max_step);
            return -EINVAL;
        }
        if (rc < 0) {
            snprintf(why, len, "'%s' is not %s (%d-%d%s)", f, field_names[n], lo[n], hi[n],
                     n == 4 ? ", 0 = mon, or mon-sun" : n == 3 ? ", or jan-dec" : "");
            return -EINVAL;
        }
        n++;
    }
    if (n != 5) {
        snprintf(why, len, "a crontab line has 5 fields (minute hour day month day_of_week)");
        return -EINVAL;
    }
    *c = (struct eline_cron){.minute = set[0], .hour = (uint32_t)set[1], .day = (uint32_t)set[2],
                             .month = (uint16_t)set[3], .dow = (uint8_t)set[4]};
    if (cron_next(c, SCHED_CRON_FROM - 1) < 0) {
        snprintf(why, len, "'%s' matches no date (as the 30th of February)", line);
        return -EINVAL;
    }
    return 0;
}

/* ---- a schedule ---------------------------------------------------------------------- */

static int interval_parse(json_t *v, int64_t *every, char *why, size_t len)
{
    static const char *const units[] = {"weeks", "days", "hours", "minutes", "seconds"};
    static const int64_t secs[] = {604800, 86400, 3600, 60, 1};
    const char *k;
    json_t *x;

    if (!json_is_object(v)) {
        snprintf(why, len, "an object of weeks, days, hours, minutes, seconds");
        return -EINVAL;
    }
    *every = 0;
    json_object_foreach(v, k, x) {
        int u = -1;
        for (int i = 0; i < 5; i++)
            if (strcmp(k, units[i]) == 0)
                u = i;
        if (u < 0) {
            snprintf(why, len, "'%s' is not one of weeks, days, hours, minutes, seconds", k);
            return -EINVAL;
        }
        json_int_t n = json_integer_value(x);
        if (!json_is_integer(x) || n < 0 || n > 100000) {
            snprintf(why, len, "%s: a whole number, 0 to 100000", k);
            return -EINVAL;
        }
        *every += n * secs[u];
    }
    if (*every < 1) {
        snprintf(why, len, "at least one second in all");
        return -EINVAL;
    }
    return 0;
}

int eline_sched_parse(json_t *item, const char *prefix, struct eline_sched *out, char *err,
                      size_t errlen)
{
    static const char *const keys[] = {"id", "action", "date", "interval", "frequency", NULL};
    char why[160];
    const char *k;
    json_t *v;

    memset(out, 0, sizeof(*out));
    if (!json_is_object(item)) {
        snprintf(err, errlen, "%s: a schedule object", prefix);
        return -EINVAL;
    }
    json_object_foreach(item, k, v) {
        bool known = false;
        for (int i = 0; keys[i]; i++)
            known |= strcmp(k, keys[i]) == 0;
        if (!known)
            return bad(err, errlen, prefix, k, "not a schedule's field (id, action, date, "
                                               "interval, frequency)");
    }
    json_t *id = json_object_get(item, "id");
    if (id && (!json_is_string(id) || !json_string_length(id) ||
               json_string_length(id) >= ELINE_SCHED_ID_MAX))
        return bad(err, errlen, prefix, "id", "a string of 1 to 63 characters");
    if (id)
        memcpy(out->id, json_string_value(id), json_string_length(id) + 1);
    json_t *action = json_object_get(item, "action");
    const char *a = action ? json_string_value(action) : "create";
    if (!a || (strcmp(a, "create") != 0 && strcmp(a, "remove") != 0))
        return bad(err, errlen, prefix, "action", "'create' or 'remove'");
    out->action = strcmp(a, "remove") == 0 ? ELINE_SCHED_REMOVE : ELINE_SCHED_CREATE;

    json_t *date = json_object_get(item, "date"), *every = json_object_get(item, "interval"),
           *freq = json_object_get(item, "frequency");
    if (!!date + !!every + !!freq != 1)
        return bad(err, errlen, prefix, "date", "exactly one of date, interval and frequency");
    if (date) {
        out->kind = ELINE_SCHED_DATE;
        if (eline_sched_time(json_string_value(date), &out->date) < 0)
            return bad(err, errlen, prefix, "date",
                       "an ISO 8601 time in UTC, as 2026-12-07T14:52:10Z");
    } else if (every) {
        out->kind = ELINE_SCHED_INTERVAL;
        if (interval_parse(every, &out->every, why, sizeof(why)) < 0)
            return bad(err, errlen, prefix, "interval", why);
    } else {
        out->kind = ELINE_SCHED_CRON;
        if (!json_is_string(freq))
            return bad(err, errlen, prefix, "frequency", "a crontab line as text");
        if (cron_parse(json_string_value(freq), &out->cron, why, sizeof(why)) < 0)
            return bad(err, errlen, prefix, "frequency", why);
    }
    return 0;
}

/* ---- the next firing ----------------------------------------------------------------- */

int64_t eline_sched_next(const struct eline_sched *s, int64_t after, int64_t start,
                         int64_t end, int64_t created)
{
    int64_t t = -1;

    switch (s->kind) {
    case ELINE_SCHED_DATE:
        return s->date > after ? s->date : -1;     /* a date is not bound by start/end */
    case ELINE_SCHED_INTERVAL: {
        int64_t anchor = start ? start : created + s->every;
        t = anchor > after ? anchor : anchor + ((after - anchor) / s->every + 1) * s->every;
        break;
    }
    case ELINE_SCHED_CRON:
        t = cron_next(&s->cron, start > after ? start - 1 : after);
        break;
    }
    return t >= 0 && (!end || t <= end) ? t : -1;
}

int64_t eline_sched_last(const struct eline_sched *s, int64_t after, int64_t until,
                         int64_t start, int64_t end, int64_t created)
{
    int64_t t = eline_sched_next(s, after, start, end, created);

    if (t < 0 || t > until)
        return -1;
    if (s->kind == ELINE_SCHED_INTERVAL) {
        /* The anchor and every firing after it are k * every apart. */
        int64_t last = t + (until - t) / s->every * s->every;
        return end && last > end ? last - ((last - end - 1) / s->every + 1) * s->every : last;
    }
    for (int i = 0; i < SCHED_LAST_STEPS; i++) {
        int64_t u = eline_sched_next(s, t, start, end, created);
        if (u < 0 || u > until)
            break;
        t = u;
    }
    return t;
}
