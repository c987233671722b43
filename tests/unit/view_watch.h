/*
 * view_watch: for tests of the REST readers of the control thread's switch
 * view — the view's lock as a flag, and jansson's allocator counting the
 * JSON made while the flag is set (what must be built after the lock is
 * let go).
 */
#ifndef OFCD_TEST_VIEW_WATCH_H
#define OFCD_TEST_VIEW_WATCH_H

#include <stdbool.h>

#include "sw_view.h"

struct view_watch {
    struct sw_view *cs;            /* what the lock hands out */
    bool locked;
    unsigned holds;
    unsigned json_allocs_locked;
};

/* jansson's allocations count for w until view_watch_end(). */
void view_watch_begin(struct view_watch *w);
void view_watch_end(void);

/* The lock and unlock callbacks (arg: the struct view_watch); the lock
 * fails the test when taken twice. */
const struct sw_view *view_watch_lock(void *arg);
void view_watch_unlock(void *arg);

#endif
