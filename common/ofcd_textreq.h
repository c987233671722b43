/*
 * ofcd_textreq: one thread asks a poll loop for a text only the loop can
 * write (what its TCP connections are doing now, read on the lcore that
 * owns them) and picks it up later, neither side ever waiting for the
 * other. One asker (the control thread), one answerer (the loop).
 *
 * The buffer changes hands with the two counters: the asker's while
 * answered == asked, the answerer's between an ask and its answer
 * (release on each hand-over, acquire on each look). An asker that gave
 * up waiting cannot ask again until the late answer came (-EBUSY), so the
 * loop never writes into a buffer someone else is reading or has freed.
 */
#ifndef OFCD_TEXTREQ_H
#define OFCD_TEXTREQ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

struct ofcd_textreq {
    atomic_uint asked, answered;
    char *buf;                          /* cap bytes, made at the first ask */
    size_t cap, len;
    bool cut;                           /* the answer did not fit cap */
};

/* All zero is a textreq with nothing asked. Frees the buffer (neither side
 * may use it any more). */
void ofcd_textreq_fini(struct ofcd_textreq *t);

/* Asker: ask for a new text of cap bytes at most. 0, -EBUSY (the last
 * ask is unanswered), -ENOMEM. */
int ofcd_textreq_ask(struct ofcd_textreq *t, size_t cap);
/* Asker: is the text asked for there? Then buf/len/cut are the asker's to
 * read until the next ask. */
bool ofcd_textreq_ready(struct ofcd_textreq *t);

/* Answerer: is there an ask to answer? Then write with ofcd_textreq_printf
 * and hand over with ofcd_textreq_answer. */
bool ofcd_textreq_pending(struct ofcd_textreq *t);
/* Append to the text (cut at cap, and `cut` set). Never allocates. */
void ofcd_textreq_printf(struct ofcd_textreq *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ofcd_textreq_answer(struct ofcd_textreq *t);

#endif
