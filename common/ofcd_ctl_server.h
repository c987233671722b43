/*
 * ofcd_ctl_server: the unix socket ofcdctl talks to, served by one thread
 * that sleeps in poll(2) — ofcd's control thread, which adds these fds to
 * the poll it already sleeps in and calls ofcd_ctl_server_run when it
 * wakes. Nothing here blocks or starts a thread.
 *
 * Bounded, so a slow, hung or hostile client cannot stall the thread or
 * make it hold much: every socket is non-blocking; at most
 * OFCD_CTL_CLIENTS_MAX clients at once (one more is told "busy" and
 * closed); a request of OFCD_CTL_REQUEST_MAX bytes at most (longer: an
 * error, closed); an answer of OFCD_CTL_REPLY_MAX bytes (cut past it, and
 * says so); a client has OFCD_CTL_CLIENT_TIMEOUT_MS to send its request
 * and as long again to take its answer, then it is dropped. Each bound
 * reached is counted (group "ctl").
 *
 * The socket file is made mode 600 before the server listens, so only its
 * owner (root, for ofcd) can connect; a stale socket at the path (nothing
 * accepts on it: a dead server's) is replaced, a live one's is not.
 */
#ifndef OFCD_CTL_SERVER_H
#define OFCD_CTL_SERVER_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ofcd_counters.h"
#include "ofcd_ctl.h"

#define OFCD_CTL_CLIENTS_MAX 16
#define OFCD_CTL_CLIENT_TIMEOUT_MS 5000
/* pollfds the server asks for: its listener and every client. */
#define OFCD_CTL_POLLFDS (OFCD_CTL_CLIENTS_MAX + 1)

#define OFCD_CTL_COUNTERS(X)                                                              \
    X(requests, "requests answered (ok or error)")                                        \
    X(errors, "requests answered with an error")                                          \
    X(refused_busy, "connections refused: 16 clients at once already")                   \
    X(too_long, "requests longer than 4096 bytes: refused")                                \
    X(timed_out, "clients dropped: no whole request, or the answer not taken, in 5 s")    \
    X(replies_cut, "answers cut at 4 MiB")                                                 \
    X(accept_failed, "accept(2) failures (out of file descriptors): listener paused 100 ms")
#define OFCD_CTL_GAUGES(X) X(clients, "clients connected now")

struct ofcd_ctl_stats {
    OFCD_CTL_COUNTERS(OFCD_COUNTER_FIELD)
    OFCD_CTL_GAUGES(OFCD_COUNTER_FIELD)
};

extern const struct ofcd_counter_group ofcd_ctl_counters;     /* "ctl" */

struct ofcd_ctl_server;

/* Bind path (stale socket replaced; a file that is not a socket refused),
 * mode 600, listen. NULL with the reason in err. */
struct ofcd_ctl_server *ofcd_ctl_server_open(const char *path, struct ofcd_ctl *cmds,
                                             char *err, size_t errlen);
/* The same, and when group is not (gid_t)-1 the socket's group is group and
 * its mode 660, so that group's members run ofcdctl (a service's operators
 * without root). The process must be root or a member of group. */
struct ofcd_ctl_server *ofcd_ctl_server_open_shared(const char *path, gid_t group,
                                                    struct ofcd_ctl *cmds, char *err,
                                                    size_t errlen);
/* Close every client (a deferred answer cancelled), the listener, and
 * remove the socket file. NULL is accepted. */
void ofcd_ctl_server_close(struct ofcd_ctl_server *s);

/* What to poll for now, into fds (room for OFCD_CTL_POLLFDS): how many. */
unsigned ofcd_ctl_server_fds(struct ofcd_ctl_server *s, struct pollfd *fds);

/* After poll: fds and n as ofcd_ctl_server_fds gave them (revents filled;
 * n 0 serves only time: deferred answers, deadlines). Accepts, reads,
 * runs commands, writes; now_ms on a monotonic clock. */
void ofcd_ctl_server_run(struct ofcd_ctl_server *s, const struct pollfd *fds, unsigned n,
                         uint64_t now_ms);

/* Any thread. */
void ofcd_ctl_server_get_stats(const struct ofcd_ctl_server *s, struct ofcd_ctl_stats *out);

#endif
