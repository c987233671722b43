/* log_capture: see log_capture.h. */
#include "log_capture.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *log_capture_text(struct ofcd_log_ring *r, unsigned *n)
{
    FILE *f = tmpfile();

    assert_non_null(f);
    unsigned lines = ofcd_log_ring_drain(r, f);
    if (n)
        *n = lines;
    long len = ftell(f);
    assert_true(len >= 0);
    char *buf = malloc((size_t)len + 1);
    assert_non_null(buf);
    rewind(f);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    fclose(f);
    return buf;
}

unsigned log_capture_lines_with(const char *text, const char *needle, char *last, size_t cap)
{
    unsigned n = 0;

    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char line[1200];
        snprintf(line, sizeof(line), "%.*s", (int)len, p);
        if (strstr(line, needle)) {
            n++;
            if (last)
                snprintf(last, cap, "%s", line);
        }
        p += len + (eol ? 1 : 0);
    }
    return n;
}
