/* ofcd_log: see ofcd_log.h. */
#include "ofcd_log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

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

void ofcd_log(enum ofcd_log_level level, const char *component, const char *fmt, ...)
{
    if (!ofcd_log_enabled(level))
        return;

    struct timespec ts;
    struct tm tm;
    char stamp[32];
    char msg[1024];

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);

    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);

    /* One fprintf per line keeps lines from different threads whole. */
    static const char *const upper[] = {"ERROR", "WARN", "INFO", "DEBUG"};
    fprintf(stderr, "%s.%03ldZ %-5s %s: %s\n", stamp, ts.tv_nsec / 1000000L,
            upper[level], component, msg);
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
