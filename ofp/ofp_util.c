/*
 * ofp_util: small helpers private to ofp/ (declared in ofp_priv.h): fixed
 * wire strings and the bounded text builder behind the *_format functions.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ofp_priv.h"

void ofp_str_from_wire(char *dst, const char *src, size_t n)
{
    size_t i = 0;
    while (i < n && src[i]) {
        dst[i] = src[i];
        i++;
    }
    dst[i] = '\0';
}

void ofp_str_to_wire(char *dst, const char *src, size_t n)
{
    size_t i = 0;
    memset(dst, 0, n);
    while (src && i < n && src[i]) {
        dst[i] = src[i];
        i++;
    }
}

void ofp_txt_add(struct ofp_txt *t, const char *fmt, ...)
{
    va_list ap;
    size_t room = t->len < t->size ? t->size - t->len : 0;
    va_start(ap, fmt);
    int n = vsnprintf(room ? t->buf + t->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n;
}
