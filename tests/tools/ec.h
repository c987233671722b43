/*
 * ec: the engine of tcp-echo-client. tcp_echo_client.c parses options into
 * struct ec_opts, creates a context with ec_create(), drives every connection
 * to a verdict with ec_run() and reports from the context.
 *
 * Each connection i sends the tt_stream (seed, i) and checks every echoed
 * byte against the same stream as it arrives, so a verdict needs no copy of
 * what was sent. Modes:
 *   echo            send all (reading concurrently), shutdown(SHUT_WR), expect
 *                   every byte back then EOF;
 *   halfclose-only  send all without reading, shutdown(SHUT_WR), then read
 *                   everything and EOF (bytes may be 0; more than the path's
 *                   buffers hold cannot complete, the echo service applies
 *                   backpressure);
 *   reset           send half (reading concurrently), then abort with RST;
 *   hold            send half, never read, keep the connection open.
 */
#ifndef EC_H
#define EC_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "tt_stream.h"

#define EC_MAX_CONNS 10000
#define EC_FIRST_ERRORS 10

enum ec_mode { EC_MODE_ECHO, EC_MODE_HALFCLOSE, EC_MODE_RESET, EC_MODE_HOLD };

enum ec_state {
    EC_ST_IDLE,       /* not started yet */
    EC_ST_CONNECTING,
    EC_ST_OPEN,
    EC_ST_HELD,       /* hold mode: sent its half, left open */
    EC_ST_DONE,       /* succeeded */
    EC_ST_FAILED,
};

enum ec_err {
    EC_ERR_NONE,
    EC_ERR_REFUSED,   /* ECONNREFUSED on connect */
    EC_ERR_CONNECT,   /* any other connect failure */
    EC_ERR_RESET,     /* ECONNRESET / EPIPE after connect */
    EC_ERR_IO,        /* any other socket error */
    EC_ERR_MISMATCH,  /* echoed byte differs from what was sent */
    EC_ERR_EXTRA,     /* more bytes came back than were sent */
    EC_ERR_EARLY_EOF, /* EOF before every byte came back */
    EC_ERR_TIMEOUT,   /* --timeout ran out */
    EC_ERR_INTERRUPTED,
    EC_ERR_COUNT,
};

struct ec_opts {
    struct sockaddr_in dst;
    uint32_t conns;
    uint64_t bytes;
    uint64_t seed;
    double connect_rate;  /* connections per second, 0 = all at once */
    double timeout_s;
    enum ec_mode mode;
    char cc[16];          /* TCP_CONGESTION for every socket; "" = the system's */
};

struct ec_conn {
    int fd;
    uint8_t state;        /* enum ec_state */
    uint8_t err;          /* enum ec_err */
    bool wr_shut;
    int sys_err;          /* errno behind EC_ERR_CONNECT / EC_ERR_IO */
    uint64_t sent;
    uint64_t rcvd;        /* verified bytes */
    uint64_t target;      /* bytes to send in this mode */
    struct tt_stream stream;
    struct tt_sum sum_tx;
    struct tt_sum sum_rx;
};

struct ec_error_rec {
    uint32_t conn;
    uint8_t err;
    int sys_err;
    uint64_t offset;      /* stream offset where it happened */
    uint64_t sent;
    uint8_t state;        /* enum ec_state when it happened */
};

struct ec_ctx {
    struct ec_opts o;
    int ep;
    int sfd;
    struct ec_conn *conns;
    uint8_t *txbuf;
    uint8_t *rxbuf;
    uint8_t *scratch;
    uint32_t started;
    uint32_t connected;
    uint32_t finished;    /* done + failed + held */
    uint32_t ok;
    uint32_t failed;
    uint32_t held;
    bool holding_printed;
    uint64_t t_start;
    uint64_t t_end;
    uint64_t err_count[EC_ERR_COUNT];
    struct ec_error_rec first[EC_FIRST_ERRORS];
    uint32_t nfirst;
};

struct ec_ctx *ec_create(const struct ec_opts *o);
void ec_destroy(struct ec_ctx *ctx);

/* Runs until every connection has a verdict, the timeout, or SIGINT/SIGTERM
 * (in hold mode, after "holding N connections", only a signal ends it).
 * 0 when it ran (verdicts in ctx), negative errno on set-up failure. */
int ec_run(struct ec_ctx *ctx);

const char *ec_mode_name(enum ec_mode m);
int ec_mode_parse(const char *s, enum ec_mode *out);
const char *ec_err_name(enum ec_err e);
const char *ec_state_name(enum ec_state s);

#endif
