/*
 * tt_common: small helpers shared by the kernel-socket TCP tools
 * (tcp-echo-client, tcp-echo-server, tcp-bench): clock, argument parsing,
 * socket set-up, the fd limit and the signal fd each tool's epoll loop reads.
 *
 * Every function returns 0 or a negative errno value unless stated; nothing
 * here keeps state between calls.
 */
#ifndef TT_COMMON_H
#define TT_COMMON_H

#include <getopt.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define TT_NS_PER_S 1000000000ULL

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t tt_now_ns(void);

/* Decimal integer in [min, max]; -EINVAL otherwise. */
int tt_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Byte count with optional binary suffix K, M or G ("200K" = 204800). */
int tt_parse_size(const char *s, uint64_t max, uint64_t *out);

/* Non-negative decimal seconds ("2.5"); -EINVAL if negative or not a number. */
int tt_parse_seconds(const char *s, double *out);

/* Dotted-quad IPv4 address and port into *out; -EINVAL on a bad address. */
int tt_parse_addr(const char *addr, uint16_t port, struct sockaddr_in *out);

/* Raise RLIMIT_NOFILE so that at least `want` descriptors can be open (the
 * hard limit too when allowed). -EMFILE when the limit stays below `want`. */
int tt_raise_nofile(uint64_t want);

/* A non-blocking, close-on-exec TCP socket, or a negative errno. */
int tt_tcp_socket(void);

/* TCP_NODELAY on fd: latency first, as ofcd's stack does for its channels. */
int tt_set_nodelay(int fd);

/* SO_LINGER {1, 0}: the next close() sends RST instead of FIN. */
int tt_set_linger0(int fd);

/* Blocks SIGINT, SIGTERM, SIGUSR1 (and SIGPIPE is ignored) and returns a
 * non-blocking signalfd delivering the first three, or a negative errno. */
int tt_signal_fd(void);

/* Reads one signal from a signalfd: the signal number, 0 if none pending. */
int tt_signal_read(int sfd);

/* "ECONNRESET" style name of a positive errno value. */
const char *tt_errname(int err);

/* Long name of the option whose val is `val`, for error messages. */
const char *tt_optname(const struct option *opts, int val);

/* Writes s as a JSON string literal (quotes and escapes included). */
void tt_json_str(FILE *f, const char *s);

#endif
