/*
 * ofcd_counters: the one registry of ofcd's counters. A module writes its
 * counters once, as X-macro lists of X(name, help) — counters (only ever
 * grow) and gauges (a value now) apart — and gets from them both the struct
 * that holds the values (every field a uint64_t, in list order) and a
 * struct ofcd_counter_group that names them. The SIGUSR1 log and /metrics
 * walk groups, never fields, so a counter added to a list shows in both.
 *
 *   #define FOO_COUNTERS(X) X(frames, "frames seen") X(drops, "frames dropped")
 *   #define FOO_GAUGES(X) X(queued, "frames waiting now")
 *   struct foo_stats { FOO_COUNTERS(OFCD_COUNTER_FIELD) FOO_GAUGES(OFCD_COUNTER_FIELD) };
 *   OFCD_COUNTER_GROUP(foo_counters, "foo", FOO_COUNTERS, FOO_GAUGES);  (in foo.c)
 *
 * A set of values is (group, labels, values): the labels tell sets of one
 * group apart (lcore="0"). Values crossing threads go through a seqlock
 * (ofcd_seqlock.h) with word-sized relaxed atomics, so a reader never sees
 * a torn value and the sanitizers see no race.
 */
#ifndef OFCD_COUNTERS_H
#define OFCD_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

enum ofcd_counter_kind {
    OFCD_COUNTER,               /* monotonic: Prometheus "counter", name gets _total */
    OFCD_GAUGE,                 /* a level now */
};

struct ofcd_counter_def {
    const char *name;
    const char *help;
    enum ofcd_counter_kind kind;
};

struct ofcd_counter_group {
    const char *name;           /* log tag and metric family prefix: "tcp", "openflow_io" */
    const struct ofcd_counter_def *defs;
    unsigned n;                 /* values in the group's struct */
};

#define OFCD_COUNTER_FIELD(name, help) uint64_t name;
#define OFCD_COUNTER_DEF(name, help) {#name, help, OFCD_COUNTER},
#define OFCD_GAUGE_DEF(name, help) {#name, help, OFCD_GAUGE},
#define OFCD_NO_COUNTERS(X)

/* The definitions of var's lists and how many they are (the two group
 * macros below share them). */
#define OFCD_COUNTER_DEFS_(var, COUNTERS, GAUGES)                                         \
    static const struct ofcd_counter_def var##_defs[] = {COUNTERS(OFCD_COUNTER_DEF)       \
                                                             GAUGES(OFCD_GAUGE_DEF)}
#define OFCD_COUNTER_N_(var) (sizeof(var##_defs) / sizeof(var##_defs[0]))

/* Define group var (named gname) from its two lists; the struct it describes
 * must hold exactly those fields in that order (checked by size). */
#define OFCD_COUNTER_GROUP(var, gname, stats_type, COUNTERS, GAUGES)                       \
    OFCD_COUNTER_DEFS_(var, COUNTERS, GAUGES);                                             \
    _Static_assert(sizeof(stats_type) == OFCD_COUNTER_N_(var) * sizeof(uint64_t),          \
                   #stats_type " must hold exactly the fields of its counter lists");      \
    const struct ofcd_counter_group var = {gname, var##_defs, OFCD_COUNTER_N_(var)}

/* The same for a group that covers only the fields before member after (a
 * struct that also holds values the registry does not name). */
#define OFCD_COUNTER_GROUP_HEAD(var, gname, stats_type, after, COUNTERS, GAUGES)            \
    OFCD_COUNTER_DEFS_(var, COUNTERS, GAUGES);                                             \
    _Static_assert(offsetof(stats_type, after) == OFCD_COUNTER_N_(var) * sizeof(uint64_t), \
                   #stats_type " must start with exactly the fields of its counter lists"); \
    const struct ofcd_counter_group var = {gname, var##_defs, OFCD_COUNTER_N_(var)}

/* The values of a group's struct, in definition order. */
#define OFCD_COUNTER_VALUES(stats_ptr) ((const uint64_t *)(const void *)(stats_ptr))

/* Visits one set of values (labels: Prometheus label text without braces,
 * "" for none). */
typedef void (*ofcd_counter_fn)(void *arg, const struct ofcd_counter_group *g,
                                const char *labels, const uint64_t *values);

#endif
