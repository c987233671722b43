/*
 * ofcd_counters_ctl: the text of counter sets for ofcdctl's counters/show
 * and the SIGUSR1 log — one line a set, "lcore=0 tcp: segs_in=12 ...",
 * every value written (zeros too, so a field is always there to be read) —
 * and counters/show's walk: every set the owner of the counters visits, or
 * one group's. The appliance owns the walk and registers the command.
 */
#ifndef OFCD_COUNTERS_CTL_H
#define OFCD_COUNTERS_CTL_H

#include <stddef.h>
#include <stdint.h>

#include "ofcd_counters.h"
#include "ofcd_ctl.h"

/* Calls fn(arg, ...) for every counter set src holds. */
typedef void (*ofcd_counters_visit_fn)(void *src, ofcd_counter_fn fn, void *arg);

/* One set as a line, without its newline: the labels without quotes (64
 * bytes of them at most), the group's name, each "name=value". Cut to
 * n - 1 bytes, always NUL-terminated; its length. */
size_t ofcd_counter_set_format(char *line, size_t n, const struct ofcd_counter_group *g,
                               const char *labels, const uint64_t *values);

/* Every set visit walks (group NULL) or those of group, a line each into
 * out, in the walk's order. 0; -ENOENT when no set is of group, and out
 * says so, naming the groups there are. */
int ofcd_counters_show(ofcd_counters_visit_fn visit, void *src, const char *group,
                       struct ofcd_ctl_out *out);

#endif
