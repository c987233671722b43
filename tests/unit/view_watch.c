/* view_watch: see view_watch.h. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include <jansson.h>

#include "view_watch.h"

static struct view_watch *watched;

static void *counting_malloc(size_t n)
{
    if (watched && watched->locked)
        watched->json_allocs_locked++;
    return malloc(n);
}

void view_watch_begin(struct view_watch *w)
{
    watched = w;
    json_set_alloc_funcs(counting_malloc, free);
}

void view_watch_end(void)
{
    json_set_alloc_funcs(malloc, free);
    watched = NULL;
}

const struct sw_view *view_watch_lock(void *arg)
{
    struct view_watch *w = arg;
    assert_false(w->locked);
    w->locked = true;
    w->holds++;
    return w->cs;
}

void view_watch_unlock(void *arg)
{
    struct view_watch *w = arg;
    assert_true(w->locked);
    w->locked = false;
}
