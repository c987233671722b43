/* log_capture: what a test's log ring got, as text, for the tests that
 * check which lines ofcd writes (how many, what they say). The test makes
 * the ring and sets it as its thread's (ofcd_log_use_ring). */
#ifndef OFCD_TEST_LOG_CAPTURE_H
#define OFCD_TEST_LOG_CAPTURE_H

#include <stddef.h>

#include "ofcd_log_ring.h"

/* Every line waiting in r (the ring emptied), each ending in a newline, as
 * one malloc'd string; *n (when not NULL) gets how many. */
char *log_capture_text(struct ofcd_log_ring *r, unsigned *n);

/* Lines of text holding needle; the last of them copied into last (when
 * not NULL, cut to cap bytes, without its newline). */
unsigned log_capture_lines_with(const char *text, const char *needle, char *last, size_t cap);

#endif
