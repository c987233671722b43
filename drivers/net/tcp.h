/*
 * tcp: ofcd's user-space TCP for the switch control channels, one instance
 * (struct tcp_stack) per io lcore, no locks, no kernel socket.
 *
 * Scope: RFC 9293 state machine (simultaneous open/close, half-close,
 * bounded TIME_WAIT with reuse), RFC 5961 (challenge ACKs), MSS, window
 * scaling and timestamps (RTTM + PAWS, RFC 7323), RTO per RFC 6298, NewReno
 * fast retransmit/recovery (RFC 6582), bounded out-of-order queue, flow
 * control with zero-window probes, delayed ACKs, keepalive, SYN backlog
 * with SYN cookies, Nagle off.
 *
 * The stack is pure logic over byte buffers with time passed in: frames come
 * in through tcp_input(), go out through the env's frame_alloc/frame_send,
 * payload bytes live in fixed-size chunks from the env's chunk pool (a DPDK
 * mempool in ofcd, malloc in the unit tests). Nothing is allocated per
 * packet beyond those pools.
 *
 * Calling order per poll-loop iteration on the owning lcore:
 *   tcp_input() for each received segment  (callbacks may run inside)
 *   tcp_stack_run_timers(now)               (callbacks may run inside)
 *   ... upper layer calls tcp_send()/tcp_recv*()/tcp_close() ...
 *   tcp_stack_flush(now)                    (segments leave here)
 * Output is batched until tcp_stack_flush so several small messages queued in
 * one iteration leave as one segment: no Nagle delay, no tinygrams.
 *
 * Callbacks run on the lcore, inside tcp_input / run_timers / flush. A
 * callback may call any function of this API on any connection, except
 * that after tcp_close()/tcp_abort() the connection must not be touched.
 */
#ifndef OFCD_TCP_H
#define OFCD_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "net.h"

struct tcp_stack;
struct tcp_conn;

/* Size of one payload chunk handed out by the env's chunk pool. */
#define TCP_CHUNK_SIZE 2048u

struct tcp_config {
    uint16_t mss;              /* MSS we advertise (default 1460) */
    uint32_t rcv_buf;          /* receive buffer bound per connection, bytes */
    uint32_t snd_buf;          /* send buffer bound per connection, bytes */
    uint32_t rto_min_ms;       /* RFC 6298 lower bound (default 200) */
    uint32_t rto_max_ms;       /* upper bound (default 60000) */
    uint32_t rto_initial_ms;   /* before any RTT sample (default 1000) */
    uint32_t delack_ms;        /* delayed ACK, <= 40 */
    uint32_t time_wait_ms;     /* TIME_WAIT duration (2*MSL) */
    uint32_t max_time_wait;    /* TIME_WAIT connections kept; oldest recycled beyond */
    uint32_t fin_wait2_ms;     /* orphaned FIN_WAIT_2 give-up time */
    uint32_t syn_backlog;      /* half-open connections per listener before cookies */
    uint32_t max_conns;        /* connections per stack (TCB pool size) */
    uint32_t syn_retries;      /* SYN / SYN-ACK retransmissions before giving up */
    uint32_t max_retrans;      /* data retransmissions before the connection is aborted */
    uint32_t keepalive_idle_s; /* 0 = keepalive off */
    uint32_t keepalive_intvl_s;
    uint32_t keepalive_probes;
    uint32_t ooo_max_segs;     /* out-of-order segments kept per connection */
    /* The chunk pool's size (0: no fair share). The last sixteenth of it goes
     * only to connections whose received data holds fewer than
     * TCP_CHUNK_SMALL_HOLDING chunks: when many peers leave large or partial
     * messages waiting, a switch sending echo requests still gets chunks;
     * the big holders' segments are dropped (the peers resend). */
    uint32_t chunk_budget;
    /* RFC 5961 challenge ACKs per second for the whole stack, on average:
     * each second's budget is drawn afresh in [base/2, base/2 + base), so
     * the number sent in a second tells an off-path attacker nothing he
     * can subtract from (CVE-2016-5696). */
    uint32_t challenge_ack_per_s;
    /* Per connection, at most one ACK per this many ms in answer to an
     * invalid segment: out of window, PAWS-rejected, acking data never
     * sent, or worth a challenge ACK (0: no per-connection limit). */
    uint32_t invalid_ack_interval_ms;
    bool syncookies;           /* answer with cookies when a backlog is full */
    bool timestamps;           /* offer/accept RFC 7323 timestamps */
    bool window_scaling;       /* offer/accept window scaling */
};

/* Defaults as documented above (the [tcp] section of the config maps onto it). */
void tcp_config_defaults(struct tcp_config *cfg);

/* What the stack needs from the lcore it runs on. */
struct tcp_tx_meta {
    bool l4_cksum_offload;     /* TCP checksum field holds the pseudo-header sum only */
    bool ip_cksum_offload;     /* IPv4 checksum field is 0: the NIC fills it */
};

struct tcp_env {
    void *arg;
    /* A buffer for one frame of up to len bytes (Ethernet + IPv4 + TCP +
     * payload), or NULL when none is available (the stack counts it and
     * retries on its own schedule). *handle goes back in frame_send. */
    uint8_t *(*frame_alloc)(void *arg, uint16_t len, void **handle);
    /* Transmit the frame (len bytes); the env owns it from here. */
    void (*frame_send)(void *arg, void *handle, uint16_t len, const struct tcp_tx_meta *meta);
    /* TCP_CHUNK_SIZE-byte blocks for payload; NULL when the pool is empty
     * (receive: the segment is dropped and counted; send: a short send). */
    void *(*chunk_alloc)(void *arg);
    void (*chunk_free)(void *arg, void *chunk);
    /* Next-hop MAC for ip (host order): 0 with mac filled, or -EAGAIN when
     * resolution is under way (the caller retries later). May be NULL: then
     * only the MAC learnt from the peer's own segments is used. */
    int (*resolve)(void *arg, uint32_t ip, uint8_t mac[6]);
    bool l4_cksum_offload;     /* the port computes TCP checksums on transmit */
    bool ip_cksum_offload;
};

/* Why a connection ended (on_closed reason). */
#define TCP_CLOSE_NORMAL 0
/* otherwise a negative errno: -ECONNRESET, -ETIMEDOUT, -ECONNREFUSED, -ECONNABORTED */

struct tcp_conn_ops {
    /* Passive open completed (accept) or active open completed (connect). */
    void (*on_established)(struct tcp_conn *c, void *user);
    /* In-order data arrived, or the peer's FIN (tcp_recv_eof() turns true). */
    void (*on_readable)(struct tcp_conn *c, void *user);
    /* Send-buffer room appeared after a tcp_send() that queued less than asked. */
    void (*on_writable)(struct tcp_conn *c, void *user);
    /* The connection is gone (reset, timeout, refused, or both sides closed
     * while the app still held it). c is invalid once this returns. Not
     * called after tcp_close()/tcp_abort(). */
    void (*on_closed)(struct tcp_conn *c, void *user, int reason);
};

enum tcp_state {
    TCP_CLOSED = 0,
    TCP_LISTEN,
    TCP_SYN_SENT,
    TCP_SYN_RECEIVED,
    TCP_ESTABLISHED,
    TCP_FIN_WAIT_1,
    TCP_FIN_WAIT_2,
    TCP_CLOSE_WAIT,
    TCP_CLOSING,
    TCP_LAST_ACK,
    TCP_TIME_WAIT,
    TCP_STATE_COUNT,
};

const char *tcp_state_name(enum tcp_state st);

/* Per-connection figures for operators (the SIGUSR2 connection dump). */
struct tcp_conn_info {
    enum tcp_state state;
    uint32_t local_ip, remote_ip;      /* host order */
    uint16_t local_port, remote_port;
    uint32_t srtt_us, rttvar_us, rto_us;
    uint32_t cwnd, ssthresh, snd_wnd, rcv_wnd;
    uint16_t mss;
    uint8_t snd_wscale, rcv_wscale;
    bool timestamps;
    uint64_t bytes_in, bytes_out;      /* payload, excluding retransmissions */
    uint64_t segs_in, segs_out;
    uint64_t retransmits, fast_retransmits, rto_expirations;
    uint32_t snd_queued;               /* bytes in the send buffer (unacked + unsent) */
    uint32_t rcv_queued;               /* bytes received, not yet read */
    uint32_t ooo_segs;
    uint32_t chunks;                   /* payload chunks held now */
    /* sequence state, for diagnosis of a stuck connection */
    uint32_t snd_una, snd_nxt, snd_max, rcv_nxt, rcv_adv;
    uint8_t backoff, dupacks;
    bool rtx_armed, persist, in_recovery, fin_sent, fin_rcvd, app_closed, wants_write;
};

/* Stack-wide counters, written once: X(name, help). */
#define TCP_STATS_FIELDS(X)                                                               \
    X(segs_in, "segments received")                                                       \
    X(segs_out, "segments sent")                                                          \
    X(bytes_in, "payload bytes delivered in order")                                       \
    X(bytes_out, "payload bytes sent, first transmissions")                               \
    X(retransmits, "segments retransmitted")                                              \
    X(fast_retransmits, "fast retransmits on 3 duplicate ACKs")                           \
    X(rto_expirations, "retransmission timeouts")                                         \
    X(drop_bad_cksum, "segments with a wrong TCP checksum")                               \
    X(drop_malformed, "segments with a bad header/data offset/options")                   \
    X(drop_paws, "segments rejected by PAWS")                                             \
    X(drop_out_of_window, "segments outside the receive window (ACKed)")                  \
    X(drop_no_chunk, "payload dropped: chunk pool empty")                                 \
    X(drop_chunk_share, "payload dropped: pool short and the connection holds many chunks") \
    X(drop_rcv_full, "payload beyond the receive buffer")                                 \
    X(drop_ooo_full, "out-of-order segments beyond the per-connection bound")             \
    X(drop_listen_overflow, "SYNs dropped: backlog full and cookies off")                 \
    X(drop_no_tcb, "SYNs dropped: connection table full")                                 \
    X(ooo_queued, "out-of-order segments queued")                                         \
    X(rst_sent, "RSTs sent")                                                              \
    X(rst_received, "RSTs accepted")                                                      \
    X(challenge_acks, "RFC 5961 challenge ACKs sent")                                     \
    X(challenge_ack_limited, "challenge ACKs suppressed: the stack's budget of the second") \
    X(invalid_ack_limited, "ACKs to invalid segments suppressed: one per connection per "   \
      "tcp.invalid_ack_interval_ms")                                                      \
    X(syncookies_sent, "SYN-ACKs carrying a cookie")                                      \
    X(syncookies_ok, "connections created from a valid cookie")                           \
    X(syncookies_failed, "ACKs with a bad or stale cookie")                               \
    X(conns_opened, "connections established")                                            \
    X(conns_closed, "connections freed")                                                  \
    X(conns_reset, "connections ended by RST")                                            \
    X(conns_timed_out, "connections ended by retransmission/keepalive timeout")           \
    X(time_wait_recycled, "TIME_WAIT connections recycled early (bound or reuse)")        \
    X(zero_window_probes, "zero-window probes sent")                                      \
    X(keepalive_probes, "keepalive probes sent")                                          \
    X(frame_alloc_failed, "no frame buffer for a segment")                                \
    X(no_route, "segments held: next-hop MAC unknown")

/* Levels now, published with the counters. */
#define TCP_STATS_GAUGES(X) X(connections, "connections in any state but CLOSED")

struct tcp_stats {
    TCP_STATS_FIELDS(OFCD_COUNTER_FIELD)
    TCP_STATS_GAUGES(OFCD_COUNTER_FIELD)
};

extern const struct ofcd_counter_group tcp_counters;          /* "tcp" */

/* Connections per state, as gauges of group "tcp_state". */
#define TCP_STATE_GAUGES(X)                                                               \
    X(closed, "connection slots allocated but not yet in a state")                        \
    X(listen, "always 0: listeners are not connections")                                  \
    X(syn_sent, "active opens waiting for a SYN-ACK")                                     \
    X(syn_received, "passive opens waiting for the final ACK")                            \
    X(established, "connections established")                                             \
    X(fin_wait_1, "connections in FIN_WAIT_1")                                            \
    X(fin_wait_2, "connections in FIN_WAIT_2")                                            \
    X(close_wait, "connections in CLOSE_WAIT")                                            \
    X(closing, "connections in CLOSING")                                                  \
    X(last_ack, "connections in LAST_ACK")                                                \
    X(time_wait, "connections in TIME_WAIT")
struct tcp_state_counts {
    TCP_STATE_GAUGES(OFCD_COUNTER_FIELD)
};
extern const struct ofcd_counter_group tcp_state_counters;    /* "tcp_state" */

/*
 * Create a stack for the local address ip (host order) and mac. secret keys
 * ISNs (RFC 6528) and SYN cookies; pass random bytes in production and a
 * fixed value in tests. Returns NULL (logged) on bad config or no memory.
 */
struct tcp_stack *tcp_stack_create(const struct tcp_config *cfg, const struct tcp_env *env,
                                   uint32_t ip, const uint8_t mac[6], const uint8_t secret[16],
                                   uint64_t now_us);
/* Free everything, without sending anything and without callbacks. */
void tcp_stack_destroy(struct tcp_stack *s);

/*
 * One received frame: Ethernet + IPv4 + TCP as located by net_rx (info).
 * The frame is only read; the caller frees it afterwards.
 * l4_cksum_ok: the NIC verified the TCP checksum (skip the software check).
 */
void tcp_input(struct tcp_stack *s, const uint8_t *frame, uint16_t len,
               const struct net_rx_info *info, bool l4_cksum_ok, uint64_t now_us);

/* Fire due timers. */
void tcp_stack_run_timers(struct tcp_stack *s, uint64_t now_us);

/* Send everything pending (data, ACKs, FINs, window updates). */
void tcp_stack_flush(struct tcp_stack *s, uint64_t now_us);

/* Listen on port with the given backlog of half-open connections (0 = the
 * config's syn_backlog). Accepted connections start with user = user.
 * Returns 0, -EADDRINUSE, -ENOMEM or -EINVAL. */
int tcp_listen(struct tcp_stack *s, uint16_t port, uint32_t backlog,
               const struct tcp_conn_ops *ops, void *user);
int tcp_unlisten(struct tcp_stack *s, uint16_t port);

/* Active open to ip:port (host order). The SYN leaves at the next flush;
 * on_established or on_closed(-ECONNREFUSED/-ETIMEDOUT) reports the result.
 * Returns 0 with *out set, or -ENOMEM/-EADDRINUSE (no free local port). */
int tcp_connect(struct tcp_stack *s, uint32_t ip, uint16_t port, const struct tcp_conn_ops *ops,
                void *user, uint64_t now_us, struct tcp_conn **out);

void tcp_conn_set_user(struct tcp_conn *c, void *user);
void *tcp_conn_user(const struct tcp_conn *c);

/*
 * Queue up to len bytes for sending. Returns how many were queued (0..len;
 * less than len when the send buffer is full — on_writable follows when room
 * appears), or -ENOTCONN (not yet established), -EPIPE (already shut down for
 * writing or closing).
 */
ssize_t tcp_send(struct tcp_conn *c, const void *data, size_t len);

/* Room left in the send buffer, bytes. */
size_t tcp_send_space(const struct tcp_conn *c);

/* Received in-order bytes, as up to *iovcnt contiguous pieces (chunked
 * storage). Returns the total bytes described; *iovcnt is set to the pieces
 * used. Nothing is consumed. */
struct tcp_iovec {
    const uint8_t *base;
    size_t len;
};
size_t tcp_recv_peek(const struct tcp_conn *c, struct tcp_iovec *iov, unsigned *iovcnt);

/* Drop n bytes from the front of the receive buffer (n <= available); the
 * window reopens and a window update goes out if it grew enough. */
void tcp_recv_consume(struct tcp_conn *c, size_t n);

/* Copy up to len bytes from the front without consuming them (any length,
 * unlike tcp_recv_peek's bounded iovec list). Returns bytes copied. */
size_t tcp_recv_copy(const struct tcp_conn *c, void *buf, size_t len);

/* Copy out and consume up to len bytes. Returns bytes copied (0 = nothing
 * available now; check tcp_recv_eof()). */
size_t tcp_recv(struct tcp_conn *c, void *buf, size_t len);

/* Bytes available to read. */
size_t tcp_recv_available(const struct tcp_conn *c);

/* The peer sent FIN and every byte before it has been read. */
bool tcp_recv_eof(const struct tcp_conn *c);
/* The peer sent FIN: nothing follows what is queued (which may remain). */
bool tcp_recv_fin(const struct tcp_conn *c);

/* Half-close: FIN after the queued data. Reading goes on. 0 or -ENOTCONN. */
int tcp_shutdown(struct tcp_conn *c);

/* Full close: FIN after the queued data; the stack finishes the close on its
 * own and frees the connection; no more callbacks. Unread or later-arriving
 * data makes it reset instead (RFC 9293 3.10.4). */
void tcp_close(struct tcp_conn *c);

/* Send RST and free now; no callbacks. */
void tcp_abort(struct tcp_conn *c);

void tcp_conn_get_info(const struct tcp_conn *c, struct tcp_conn_info *out);
enum tcp_state tcp_conn_state(const struct tcp_conn *c);

const struct tcp_stats *tcp_stack_get_stats(const struct tcp_stack *s);
/* Connections per state, and in total. */
void tcp_stack_state_counts(const struct tcp_stack *s, struct tcp_state_counts *out);
uint32_t tcp_stack_conn_count(const struct tcp_stack *s);
/* Bytes a connection costs while idle (TCB + table share; no payload chunks). */
size_t tcp_conn_idle_bytes(void);

/* Visit every live connection (operators' listings, debugging). fn must not
 * close or abort connections. */
void tcp_stack_foreach_conn(const struct tcp_stack *s,
                            void (*fn)(const struct tcp_conn *c, void *arg), void *arg);

/* Tests only: the next ISS the stack picks (for sequence wraparound and
 * exact-byte checks). Production never calls it. */
void tcp_stack_force_next_iss(struct tcp_stack *s, uint32_t iss);

#endif
