/*
 * ofcd_log_priv: the line format, shared by ofcd_log and the log ring's own
 * report of dropped lines (inside common/ only).
 */
#ifndef OFCD_LOG_PRIV_H
#define OFCD_LOG_PRIV_H

#include <stdarg.h>
#include <stddef.h>

#include "ofcd_log.h"

/* "<iso8601 time> <LEVEL> <component>: message" into buf (no newline, cut
 * to n-1 bytes); returns its length. */
int ofcd_log_vformat(char *buf, size_t n, enum ofcd_log_level level, const char *component,
                     const char *fmt, va_list ap);
int ofcd_log_format(char *buf, size_t n, enum ofcd_log_level level, const char *component,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
