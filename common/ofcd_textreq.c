/* ofcd_textreq: see ofcd_textreq.h. */
#include "ofcd_textreq.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void ofcd_textreq_fini(struct ofcd_textreq *t)
{
    free(t->buf);
    t->buf = NULL;
    t->cap = 0;
}

int ofcd_textreq_ask(struct ofcd_textreq *t, size_t cap)
{
    unsigned asked = atomic_load_explicit(&t->asked, memory_order_relaxed);

    if (atomic_load_explicit(&t->answered, memory_order_acquire) != asked)
        return -EBUSY;
    if (t->cap != cap) {
        char *b = realloc(t->buf, cap);
        if (!b)
            return -ENOMEM;
        t->buf = b;
        t->cap = cap;
    }
    t->len = 0;
    t->cut = false;
    /* The emptied buffer before the ask: the answerer's acquire sees it. */
    atomic_store_explicit(&t->asked, asked + 1, memory_order_release);
    return 0;
}

bool ofcd_textreq_ready(struct ofcd_textreq *t)
{
    return atomic_load_explicit(&t->answered, memory_order_acquire) ==
           atomic_load_explicit(&t->asked, memory_order_relaxed);
}

bool ofcd_textreq_pending(struct ofcd_textreq *t)
{
    /* Relaxed first: the loop looks every tick and nearly always finds
     * nothing; the acquire only when there is an ask. An acquire load of
     * asked, not a fence: it pairs with the asker's release store of it,
     * and ThreadSanitizer sees that pairing (it does not model fences). */
    if (atomic_load_explicit(&t->asked, memory_order_relaxed) ==
        atomic_load_explicit(&t->answered, memory_order_relaxed))
        return false;
    (void)atomic_load_explicit(&t->asked, memory_order_acquire);
    return true;
}

void ofcd_textreq_printf(struct ofcd_textreq *t, const char *fmt, ...)
{
    va_list ap;

    if (t->cut || t->len + 1 >= t->cap) {
        t->cut = true;
        return;
    }
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= t->cap - t->len) {
        /* Whole lines only: what did not fit goes, this line with it. */
        t->cut = true;
        t->buf[t->len] = '\0';
        return;
    }
    t->len += (size_t)n;
}

void ofcd_textreq_answer(struct ofcd_textreq *t)
{
    atomic_store_explicit(&t->answered, atomic_load_explicit(&t->asked, memory_order_relaxed),
                          memory_order_release);
}
