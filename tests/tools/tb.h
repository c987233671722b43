/*
 * tb: the three measurements of tcp-bench against an echo service, each a
 * single-threaded epoll loop over non-blocking kernel sockets:
 *   tb_cps_run   open and gracefully close connections, `parallel` in flight;
 *   tb_tput_run  `conns` connections each echoing `bytes` concurrently;
 *   tb_rtt_run   `conns` connections each doing 64-byte request/response,
 *                one outstanding, for `duration_s`.
 * tcp_bench.c parses options, calls them and prints. They only measure:
 * failures are counted and reported, never asserted.
 */
#ifndef TB_H
#define TB_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>

#include "tt_hist.h"

#define TB_MAX_CONNS 100000
#define TB_MAX_MSG 4096

struct tb_opts {
    struct sockaddr_in dst;
    uint32_t conns;       /* 0: the test's default */
    uint32_t parallel;    /* cps: connections in flight */
    uint64_t bytes;       /* tput: bytes per connection */
    uint32_t msg_size;    /* rtt: request size */
    double duration_s;    /* rtt: measuring time */
    double timeout_s;     /* bound on each test */
    bool verify;          /* tput: check the echoed stream byte for byte */
    uint64_t seed;
};

/* Epoll set plus the signal fd; SIGINT/SIGTERM end the running test early. */
struct tb_env {
    int ep;
    int sfd;
    bool interrupted;
};

struct tb_cps_result {
    uint32_t conns;
    uint32_t ok;
    uint32_t failed;
    double seconds;
    double per_s;
    struct tt_hist connect_ns;   /* connect() to established */
    struct tt_hist cycle_ns;     /* connect() to the server's FIN after ours */
};

struct tb_tput_result {
    uint32_t conns;
    uint32_t ok;
    uint32_t failed;
    uint64_t bytes_each;
    uint64_t sent;
    uint64_t rcvd;
    double seconds;
    double mb_per_s;            /* (sent + received) / seconds / 1e6 */
    bool verified;
};

struct tb_rtt_result {
    uint32_t conns;
    uint32_t connected;
    uint32_t failed;
    uint32_t msg_size;
    uint64_t msgs;
    uint64_t bad;               /* echoes that differed from the request */
    double seconds;
    double msgs_per_s;
    struct tt_hist rtt_ns;
};

int tb_env_init(struct tb_env *env);
void tb_env_close(struct tb_env *env);

/* epoll_wait until deadline_ns (monotonic) at the latest, at most `max`
 * events; signal events are consumed here (setting env->interrupted). */
int tb_wait(struct tb_env *env, struct epoll_event *events, int max, uint64_t deadline_ns);

/* A non-blocking socket, registered edge-triggered for in/out with tag,
 * connect() started; the fd or a negative errno. */
int tb_connect_start(struct tb_env *env, const struct sockaddr_in *dst, uint64_t tag);

/* 0 when the connect behind an EPOLLOUT/ERR/HUP event succeeded, else the
 * positive errno. */
int tb_connect_result(int fd, uint32_t events);

/* Each returns 0 after measuring (results may contain failures) or a negative
 * errno if it could not run at all. */
int tb_cps_run(struct tb_env *env, const struct tb_opts *o, struct tb_cps_result *r);
int tb_tput_run(struct tb_env *env, const struct tb_opts *o, struct tb_tput_result *r);
int tb_rtt_run(struct tb_env *env, const struct tb_opts *o, struct tb_rtt_result *r);

#endif
