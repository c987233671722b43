/* ofcd_log: see ofcd_log.h. */
#include "ofcd_log.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ofcd_clock.h"
#include "ofcd_journal.h"
#include "ofcd_log_priv.h"
#include "ofcd_log_ring.h"

/*
 * The modules, each with the level of its lines: the components the log
 * calls name, grouped as an operator thinks of them. The last, "other",
 * holds every component the table does not name (tests' own, a new one
 * not added here yet), so no line is ever without a level.
 */
#define LOG_MODULES(X)                                                                    \
    X(main, "start-up, wiring and shutdown")                                               \
    X(control, "the control thread and its command socket (ofcdctl)")                      \
    X(stats, "the counter log: SIGUSR1 and app.stats_log_interval_s")                      \
    X(cfg, "the configuration")                                                            \
    X(log, "the log itself: lines an lcore's full log ring dropped")                       \
    X(port, "the port: queues, link, offloads")                                            \
    X(fault, "fault injection (fault.enabled)")                                            \
    X(lcore, "the poll loops")                                                             \
    X(arp, "ARP")                                                                          \
    X(tcp, "the TCP stack; SIGUSR2's connection lines")                                    \
    X(msgq, "the priority rings")                                                          \
    X(qmsg, "message buffers and their shares")                                            \
    X(tls, "TLS sessions, certificates, pins")                                             \
    X(of, "OpenFlow: listeners, connections, channels, workers")                           \
    X(ctl, "the control thread's switch view; SIGUSR2's switch lines")                     \
    X(flows, "the flow manager: queues, barriers, errors, consistency")                    \
    X(store, "the flow store (LMDB)")                                                      \
    X(rest, "the REST server, its users and tokens")                                       \
    X(topology, "topology discovery (apps.topology)")                                      \
    X(l2, "the L2 learning app (apps.l2_learning)")                                        \
    X(other, "any component not named above")

#define LOG_MODULE_DEF(name, help) {#name, help},
#define LOG_MODULE_START(name, help) OFCD_LOG_INFO,

static const struct {
    const char *name, *help;
} log_modules[] = {LOG_MODULES(LOG_MODULE_DEF)};

#define N_LOG_MODULES (sizeof(log_modules) / sizeof(log_modules[0]))
#define LOG_OTHER (N_LOG_MODULES - 1)

/* Each module's level, and the most verbose of them (a line above it is
 * refused with one load, before any name is looked up). The header says
 * why these are process-wide. */
static _Atomic unsigned char log_levels[N_LOG_MODULES] = {LOG_MODULES(LOG_MODULE_START)};
static _Atomic unsigned char log_level_max = OFCD_LOG_INFO;

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

/* The module's index, or -1. */
static int module_find(const char *name)
{
    for (unsigned i = 0; i < N_LOG_MODULES; i++)
        if (name[0] == log_modules[i].name[0] && strcmp(name, log_modules[i].name) == 0)
            return (int)i;
    return -1;
}

static void update_max(void)
{
    unsigned char max = OFCD_LOG_ERR;

    for (unsigned i = 0; i < N_LOG_MODULES; i++) {
        unsigned char l = atomic_load_explicit(&log_levels[i], memory_order_relaxed);
        if (l > max)
            max = l;
    }
    atomic_store_explicit(&log_level_max, max, memory_order_relaxed);
}

void ofcd_log_set_level(enum ofcd_log_level level)
{
    for (unsigned i = 0; i < N_LOG_MODULES; i++)
        atomic_store_explicit(&log_levels[i], (unsigned char)level, memory_order_relaxed);
    atomic_store_explicit(&log_level_max, (unsigned char)level, memory_order_relaxed);
}

int ofcd_log_set_module_level(const char *module, enum ofcd_log_level level)
{
    int i = module_find(module);

    if (i < 0)
        return -ENOENT;
    atomic_store_explicit(&log_levels[i], (unsigned char)level, memory_order_relaxed);
    update_max();
    return 0;
}

int ofcd_log_module_level(const char *module)
{
    int i = module_find(module);

    return i < 0 ? -ENOENT : atomic_load_explicit(&log_levels[i], memory_order_relaxed);
}

unsigned ofcd_log_module_count(void)
{
    return N_LOG_MODULES;
}

const char *ofcd_log_module_name(unsigned i, const char **help)
{
    if (i >= N_LOG_MODULES)
        return NULL;
    if (help)
        *help = log_modules[i].help;
    return log_modules[i].name;
}

int ofcd_log_enabled(const char *component, enum ofcd_log_level level)
{
    if ((unsigned)level > atomic_load_explicit(&log_level_max, memory_order_relaxed))
        return 0;
    int i = module_find(component);
    return (unsigned)level <=
           atomic_load_explicit(&log_levels[i < 0 ? (int)LOG_OTHER : i], memory_order_relaxed);
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

/* Set once by main before any thread starts, read-only after: like the
 * levels, the one other process-wide thing here. */
static const struct ofcd_journal *journal;

void ofcd_log_use_journal(const struct ofcd_journal *j)
{
    journal = j;
}

void ofcd_log_write(FILE *out, const char *line, size_t len)
{
    if (out == stderr && journal && ofcd_journal_send(journal, line, len) == 0)
        return;
    /* One fprintf per line keeps lines from different threads whole. */
    fprintf(out, "%.*s\n", (int)len, line);
}

static void emit(const char *line, int len)
{
    if (thread_ring) {
        ofcd_log_ring_put(thread_ring, line, (size_t)len);
        return;
    }
    ofcd_log_write(stderr, line, (size_t)len);
}

void ofcd_log(enum ofcd_log_level level, const char *component, const char *fmt, ...)
{
    if (!ofcd_log_enabled(component, level))
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
    if (!ofcd_log_enabled(component, level))
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
