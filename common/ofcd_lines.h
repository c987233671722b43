/*
 * ofcd_lines: the small line files ofcd reads at start (tls.pins_file,
 * rest.reader_tokens_file): one entry per line, '#' to the end of a line is
 * a comment. Each call takes the next line off *text into buf without its
 * comment; the caller splits the fields and names the line in its errors.
 */
#ifndef OFCD_LINES_H
#define OFCD_LINES_H

#include <errno.h>
#include <stddef.h>
#include <string.h>

/* 1 with the next line in buf (comment cut, *line its number), 0 at the
 * end of text, -E2BIG when it is longer than cap - 1 (*line names it). */
static inline int ofcd_line_next(const char **text, char *buf, size_t cap, unsigned *line)
{
    const char *t = *text;

    if (!*t)
        return 0;
    const char *nl = strchr(t, '\n');
    size_t len = nl ? (size_t)(nl - t) : strlen(t);
    ++*line;
    if (len >= cap)
        return -E2BIG;
    memcpy(buf, t, len);
    buf[len] = '\0';
    *text = t + len + (nl != NULL);
    char *hash = strchr(buf, '#');
    if (hash)
        *hash = '\0';
    return 1;
}

#endif
