/* ofcd_journal: see ofcd_journal.h. */
#include "ofcd_journal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define JOURNAL_ENTRY_MAX 1536

bool ofcd_journal_wanted(void)
{
    const char *e = getenv("JOURNAL_STREAM");
    unsigned long long dev, ino;
    struct stat st;

    return e && sscanf(e, "%llu:%llu", &dev, &ino) == 2 && fstat(STDERR_FILENO, &st) == 0 &&
           (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

int ofcd_journal_open(struct ofcd_journal *j, const char *path)
{
    *j = (struct ofcd_journal){.fd = -1, .addr.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof(j->addr.sun_path))
        return -ENAMETOOLONG;
    strcpy(j->addr.sun_path, path);
    j->addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
    j->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    return j->fd < 0 ? -errno : 0;
}

void ofcd_journal_close(struct ofcd_journal *j)
{
    if (j->fd >= 0)
        close(j->fd);
    j->fd = -1;
}

static int priority_of(const char *level, size_t n)
{
    static const struct { const char *name; int prio; } map[] = {
        {"ERROR", 3}, {"WARN", 4}, {"INFO", 6}, {"DEBUG", 7}};
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (strlen(map[i].name) == n && memcmp(map[i].name, level, n) == 0)
            return map[i].prio;
    return -1;
}

/* The first "switch " followed by 16 hex digits (and not a 17th): the
 * switch the line is about. */
static const char *dpid_in(const char *msg, size_t n)
{
    static const char tag[] = "switch ";
    for (size_t i = 0; i + sizeof(tag) - 1 + 16 <= n; i++) {
        if (memcmp(msg + i, tag, sizeof(tag) - 1) != 0)
            continue;
        const char *d = msg + i + sizeof(tag) - 1;
        size_t k = 0;
        while (k < 16 && isxdigit((unsigned char)d[k]))
            k++;
        if (k == 16 && (d + 16 == msg + n || !isxdigit((unsigned char)d[16])))
            return d;
    }
    return NULL;
}

size_t ofcd_journal_entry(const char *line, size_t len, char *out, size_t cap)
{
    /* "<time> <LEVEL padded> <component>: <message>" */
    const char *end = line + len, *p = memchr(line, ' ', len);
    if (!p)
        return 0;
    const char *lv = p + 1, *lv_end = lv;
    while (lv_end < end && *lv_end != ' ')
        lv_end++;
    int prio = priority_of(lv, (size_t)(lv_end - lv));
    const char *comp = lv_end;
    while (comp < end && *comp == ' ')
        comp++;
    const char *colon = comp;
    while (colon + 1 < end && !(colon[0] == ':' && colon[1] == ' ') && colon[0] != ' ')
        colon++;
    if (prio < 0 || colon + 1 >= end || colon[0] != ':' || colon == comp)
        return 0;
    const char *msg = colon + 2, *dpid = dpid_in(msg, (size_t)(end - msg));
    int n = snprintf(out, cap, "PRIORITY=%d\nSYSLOG_IDENTIFIER=ofcd\nOFCD_MODULE=%.*s\n%s%.*s%s"
                     "MESSAGE=%.*s\n", prio, (int)(colon - comp), comp,
                     dpid ? "OFCD_DPID=" : "", dpid ? 16 : 0, dpid ? dpid : "", dpid ? "\n" : "",
                     (int)(end - comp), comp);
    if (n < 0 || (size_t)n >= cap)
        return 0;
    /* MESSAGE is one line in this form: a newline inside becomes a blank. */
    for (char *q = strstr(out, "MESSAGE=") + 8; q < out + n - 1; q++)
        if (*q == '\n')
            *q = ' ';
    return (size_t)n;
}

int ofcd_journal_send(const struct ofcd_journal *j, const char *line, size_t len)
{
    char entry[JOURNAL_ENTRY_MAX];
    size_t n = ofcd_journal_entry(line, len, entry, sizeof(entry));

    if (j->fd < 0)
        return -EBADF;
    if (n == 0)
        return -EINVAL;
    ssize_t w = sendto(j->fd, entry, n, MSG_NOSIGNAL, (const struct sockaddr *)&j->addr,
                       j->addr_len);
    return w == (ssize_t)n ? 0 : -errno;
}
