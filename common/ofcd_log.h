/*
 * ofcd_log: the one logging path of ofcd (lcores, control thread, tests).
 *
 * Lines go to stderr as "<iso8601 time> <LEVEL> <component>: message", or,
 * from a thread that has set one (ofcd_log_use_ring: the lcores), to its
 * ring, which another thread drains (ofcd_log_ring.h).
 *
 * Levels are per module: the component a log call names ("of", "tcp",
 * "flows", ...) is looked up in the module table of ofcd_log.c, and a
 * component the table does not name logs at the level of "other". Main sets
 * every module from app.log_level at start; `ofcdctl log/set` changes one or
 * all at run time (on the control thread). The levels are the one process-wide
 * state here, because a log call carries no context to hold them: relaxed
 * atomics, so an lcore sees a change at its next line without a lock, and a
 * line of a level no module logs costs one load.
 */
#ifndef OFCD_LOG_H
#define OFCD_LOG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum ofcd_log_level {
    OFCD_LOG_ERR = 0,
    OFCD_LOG_WARN,
    OFCD_LOG_INFO,
    OFCD_LOG_DEBUG,
};

/* Parse "error|warn|info|debug". Returns the level or -EINVAL. */
int ofcd_log_level_parse(const char *name);
const char *ofcd_log_level_name(enum ofcd_log_level level);

/* Every module at level. One writer at a time: main before threads start,
 * then the control thread (any thread may read meanwhile). */
void ofcd_log_set_level(enum ofcd_log_level level);
/* One module (a name of the table, "other" included): 0, or -ENOENT when
 * the table has no such module (nothing changed). Same writer rule. */
int ofcd_log_set_module_level(const char *module, enum ofcd_log_level level);
/* A module's level now, or -ENOENT. */
int ofcd_log_module_level(const char *module);
/* The table, for log/list: how many modules, and module i's name (NULL
 * past the end) with its one-line description in *help (when not NULL). */
unsigned ofcd_log_module_count(void);
const char *ofcd_log_module_name(unsigned i, const char **help);

/* Would a line of component at level be written? Any thread. */
int ofcd_log_enabled(const char *component, enum ofcd_log_level level);

void ofcd_log(enum ofcd_log_level level, const char *component, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

struct ofcd_journal;
/* Lines bound for stderr go to journald instead (ofcd_journal.h), from
 * every thread and every ring drained to stderr; NULL: stderr. Main sets
 * it once, before any thread starts. */
void ofcd_log_use_journal(const struct ofcd_journal *j);
/* One finished line to out (a ring's drain calls it): to the journal when
 * out is stderr and one is set, else (or when it refuses) to out. */
void ofcd_log_write(FILE *out, const char *line, size_t len);

/* The same, for a line a rate limiter let through: " (N similar lines
 * suppressed)" follows the message when missed > 0 (ofcd_ratelimit.h's
 * LOG_*_RL call it). */
void ofcd_log_missed(enum ofcd_log_level level, const char *component, uint64_t missed,
                     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * A string a peer sent (a switch's DESC, a port name), made safe to log:
 * at most n-1 bytes of it into dst, every byte that is not printable ASCII
 * (newline, escape, control, 8-bit) written as '?', so a switch cannot forge
 * log lines or send terminal escapes to the operator. Returns dst.
 */
char *ofcd_log_clean(char *dst, size_t n, const char *src);

#define LOG_ERR(comp, ...) ofcd_log(OFCD_LOG_ERR, comp, __VA_ARGS__)
#define LOG_WARN(comp, ...) ofcd_log(OFCD_LOG_WARN, comp, __VA_ARGS__)
#define LOG_INFO(comp, ...) ofcd_log(OFCD_LOG_INFO, comp, __VA_ARGS__)
#define LOG_DEBUG(comp, ...)                                                               \
    do {                                                                                   \
        if (ofcd_log_enabled(comp, OFCD_LOG_DEBUG))                                        \
            ofcd_log(OFCD_LOG_DEBUG, comp, __VA_ARGS__);                                   \
    } while (0)

#endif
