/* ofcd_sd_notify: see ofcd_sd_notify.h. */
#include "ofcd_sd_notify.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ofcd_sd_notify_init(struct ofcd_sd_notify *n, char *err, size_t errlen)
{
    const char *path = getenv("NOTIFY_SOCKET");
    const char *wd = getenv("WATCHDOG_USEC"), *wpid = getenv("WATCHDOG_PID");

    memset(n, 0, sizeof(*n));
    if (wd && (!wpid || strtol(wpid, NULL, 10) == (long)getpid())) {
        unsigned long long us = strtoull(wd, NULL, 10);
        n->watchdog_ms = us / 1000 ? us / 1000 : (us ? 1 : 0);
    }
    if (!path || !*path)
        return 0;
    size_t len = strlen(path);
    if ((path[0] != '/' && path[0] != '@') || len >= sizeof(n->addr.sun_path)) {
        snprintf(err, errlen, "NOTIFY_SOCKET '%s' is not a unix socket's path or abstract "
                 "name of at most %zu bytes: systemd will not hear that ofcd is ready",
                 path, sizeof(n->addr.sun_path) - 1);
        n->watchdog_ms = 0;
        return -EINVAL;
    }
    n->addr.sun_family = AF_UNIX;
    memcpy(n->addr.sun_path, path, len);
    if (path[0] == '@')
        n->addr.sun_path[0] = '\0';             /* an abstract name: no NUL after it */
    n->addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
                              (path[0] == '@' ? 0 : 1));
    n->on = true;
    return 0;
}

int ofcd_sd_notify_send(const struct ofcd_sd_notify *n, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    if (!n->on)
        return 0;
    va_start(ap, fmt);
    int len = vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (len < 0)
        return -EINVAL;
    if ((size_t)len >= sizeof(msg))
        len = sizeof(msg) - 1;                  /* a STATUS text cut, not lost */
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    int rc = sendto(fd, msg, (size_t)len, MSG_NOSIGNAL, (const struct sockaddr *)&n->addr,
                    n->addr_len) < 0 ? -errno : 0;
    close(fd);
    return rc;
}

void ofcd_sd_notify_watchdog(struct ofcd_sd_notify *n, uint64_t now_ms)
{
    if (!n->watchdog_ms || now_ms < n->next_watchdog_ms)
        return;
    ofcd_sd_notify_send(n, "WATCHDOG=1");
    n->next_watchdog_ms = now_ms + n->watchdog_ms / 2;
}
