/*
 * ofcd_sd_notify: systemd's readiness protocol (sd_notify(3)) without
 * libsystemd: one datagram per message ("READY=1", "STATUS=...",
 * "STOPPING=1", "WATCHDOG=1") to the unix socket named by $NOTIFY_SOCKET (a
 * path, or '@' and an abstract name), when the service manager set one;
 * otherwise every call does nothing and returns 0. The watchdog is on when
 * $WATCHDOG_USEC is set (and $WATCHDOG_PID, if set, is this process): a
 * keep-alive is due every half of it, sent by whoever calls
 * ofcd_sd_notify_watchdog with the time (the control thread: a stuck one
 * lets the service be restarted).
 *
 * Read the environment once (init), on the main thread before others
 * start; send from any thread (a socket per message: they are few).
 */
#ifndef OFCD_SD_NOTIFY_H
#define OFCD_SD_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

struct ofcd_sd_notify {
    bool on;                        /* $NOTIFY_SOCKET named a usable socket */
    struct sockaddr_un addr;
    socklen_t addr_len;
    uint64_t watchdog_ms;           /* 0: no watchdog */
    uint64_t next_watchdog_ms;      /* the control thread's */
};

/* From the environment; n->on false (and a reason in err) when
 * $NOTIFY_SOCKET is set but unusable. 0, or -EINVAL. */
int ofcd_sd_notify_init(struct ofcd_sd_notify *n, char *err, size_t errlen);
/* One message (printf-style, a line "KEY=value", several joined by '\n'):
 * 0, or a negative errno from the socket. */
int ofcd_sd_notify_send(const struct ofcd_sd_notify *n, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* WATCHDOG=1 when half the watchdog interval has passed since the last. */
void ofcd_sd_notify_watchdog(struct ofcd_sd_notify *n, uint64_t now_ms);

#endif
