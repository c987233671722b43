/* ofcd_log: see ofcd_log.h. */
#include "ofcd_log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ofcd_clock.h"
#include "ofcd_log_priv.h"
#include "ofcd_log_ring.h"

/* Written once before threads start (see header), read-only afterwards. */
static enum ofcd_log_level log_level = OFCD_LOG_INFO;

static const char *const level_names[] = {"error", "warn", "info", "debug"};

int ofcd_log_level_parse(const char *name)
{
    for (size_t i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
        if (strcasecmp(name, level_names[i]) == 0)
            return (int)i;
    return -EINVAL;
}

const char *ofcd_log_level_name(enum ofcd_log_level level)
{
    if ((unsigned)level < sizeof(level_names) / sizeof(level_names[0]))
        return level_names[level];
    return "?";
}

void ofcd_log_set_level(enum ofcd_log_level level)
{
    log_level = level;
}

int ofcd_log_enabled(enum ofcd_log_level level)
{
    return level <= log_level;
}

/* The ring of the calling thread's lines, if it must not block on stderr:
 * per-thread state (an lcore sets its own), not shared. */
static _Thread_local struct ofcd_log_ring *thread_ring;

void ofcd_log_use_ring(struct ofcd_log_ring *r)
{
    thread_ring = r;
}

int ofcd_log_vformat(char *buf, size_t n, enum ofcd_log_level level, const char *component,
                     const char *fmt, va_list ap)
{
    static const char *const upper[] = {"ERROR", "WARN", "INFO", "DEBUG"};
    struct timespec ts;
    struct tm tm;
    char stamp[32];

    uint64_t wall_ns = ofcd_clock_wall_ns();
    ts.tv_sec = (time_t)(wall_ns / 1000000000u);
    ts.tv_nsec = (long)(wall_ns % 1000000000u);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    int len = snprintf(buf, n, "%s.%03ldZ %-5s %s: ", stamp, ts.tv_nsec / 1000000L,
                       upper[(unsigned)level < 4 ? level : OFCD_LOG_DEBUG], component);
    if (len < 0 || (size_t)len >= n)
        return len < 0 ? 0 : (int)n - 1;
    int m = vsnprintf(buf + len, n - (size_t)len, fmt, ap);
    if (m < 0)
        return len;
    return (size_t)(len + m) >= n ? (int)n - 1 : len + m;
}

int ofcd_log_format(char *buf, size_t n, enum ofcd_log_level level, const char *component,
                    const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    int len = ofcd_log_vformat(buf, n, level, component, fmt, ap);
    va_end(ap);
    return len;
}

#define LOG_LINE_MAX 1100

static void emit(const char *line, int len)
{
    if (thread_ring) {
        ofcd_log_ring_put(thread_ring, line, (size_t)len);
        return;
    }
    /* One fprintf per line keeps lines from different threads whole. */
    fprintf(stderr, "%.*s\n", len, line);
}

void ofcd_log(enum ofcd_log_level level, const char *component, const char *fmt, ...)
{
    if (!ofcd_log_enabled(level))
        return;

    char line[LOG_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int len = ofcd_log_vformat(line, sizeof(line), level, component, fmt, ap);
    va_end(ap);
    emit(line, len);
}

void ofcd_log_missed(enum ofcd_log_level level, const char *component, uint64_t missed,
                     const char *fmt, ...)
{
    if (!ofcd_log_enabled(level))
        return;

    char line[LOG_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int len = ofcd_log_vformat(line, sizeof(line), level, component, fmt, ap);
    va_end(ap);
    if (missed) {
        char tail[64];
        int m = snprintf(tail, sizeof(tail), " (%llu similar lines suppressed)",
                         (unsigned long long)missed);
        /* The count is what the line is for: a long message gives way to
         * it (a ring cuts lines at OFCD_LOG_RING_LINE). */
        size_t cap = (thread_ring ? OFCD_LOG_RING_LINE : sizeof(line) - 1) - (size_t)m;
        if ((size_t)len > cap)
            len = (int)cap;
        memcpy(line + len, tail, (size_t)m + 1);
        len += m;
    }
    emit(line, len);
}

char *ofcd_log_clean(char *dst, size_t n, const char *src)
{
    size_t i = 0;

    if (!n)
        return dst;
    for (; src[i] && i + 1 < n; i++) {
        unsigned char ch = (unsigned char)src[i];
        dst[i] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
    }
    dst[i] = '\0';
    return dst;
}
