/* ofcd_ctl_wire: see ofcd_ctl_wire.h. */
#include "ofcd_ctl_wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ofcd_ctl_wire_split(char *line, char **words, unsigned max, const char **why)
{
    size_t len = strlen(line);
    unsigned n = 0;

    if (len > 0 && line[len - 1] == '\r')
        line[--len] = '\0';
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)line[i];
        if ((ch < 0x20 && ch != '\t') || ch > 0x7e) {
            *why = "the request holds a byte that is not printable ASCII";
            return -EINVAL;
        }
    }
    char *save = NULL;
    for (char *w = strtok_r(line, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (n == max) {
            *why = "the request has too many words";
            return -E2BIG;
        }
        words[n++] = w;
    }
    if (n == 0) {
        *why = "the request is empty: send a command (list-commands lists them)";
        return -EINVAL;
    }
    return (int)n;
}

int ofcd_ctl_wire_head(char *buf, size_t n, bool ok, size_t text_len)
{
    return snprintf(buf, n, "%s %zu\n", ok ? "ok" : "error", text_len);
}

int ofcd_ctl_wire_parse(const char *reply, size_t len, bool *ok, const char **text,
                        size_t *text_len)
{
    const char *nl = memchr(reply, '\n', len < OFCD_CTL_HEAD_MAX ? len : OFCD_CTL_HEAD_MAX);
    size_t word;

    if (!nl)
        return -EPROTO;
    if (len >= 3 && memcmp(reply, "ok ", 3) == 0) {
        *ok = true;
        word = 3;
    } else if (len >= 6 && memcmp(reply, "error ", 6) == 0) {
        *ok = false;
        word = 6;
    } else {
        return -EPROTO;
    }
    const char *p = reply + word;
    if (p >= nl || *p < '0' || *p > '9')
        return -EPROTO;
    char *end;
    unsigned long long n = strtoull(p, &end, 10);
    if (end != nl)
        return -EPROTO;
    size_t body = len - (size_t)(nl + 1 - reply);
    if (n != body)
        return -EPROTO;
    *text = nl + 1;
    *text_len = body;
    return 0;
}
