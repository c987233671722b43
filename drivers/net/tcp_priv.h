/*
 * tcp_priv: the stack's internal structures and the calls between its files.
 *
 *   tcp.c          API: stack create/destroy, listen/connect, send/recv/close
 *   tcp_table.c    connection pool, 4-tuple hash, TIME_WAIT list, reaping
 *   tcp_bufq.c     chunked byte queues (send/receive) and the out-of-order queue
 *   tcp_in.c       segment arrival (RFC 9293 §3.10.7), ACK and data processing
 *   tcp_out.c      segment building and output, RST replies, retransmission
 *   tcp_ctimer.c   per-connection timers: retransmit/persist, delayed ACK,
 *                  keepalive / TIME_WAIT / FIN_WAIT_2 / SYN timeouts
 *   tcp_opt.c      option parsing and building
 *   tcp_isn.c      keyed hash, ISNs (RFC 6528) and SYN cookies
 *
 * Callbacks to the upper layer are never made in the middle of processing:
 * processing records events on the connection and tcp_events_deliver() runs
 * them at the end, so a callback that closes or aborts the connection cannot
 * pull it out from under the code that called it. Freed connections go to a
 * reap list and return to the pool at the end of the top-level call.
 */
#ifndef OFCD_TCP_PRIV_H
#define OFCD_TCP_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "tcp.h"
#include "timer_wheel.h"
#include "tcp_wire.h"

#define TCP_MAX_LISTENERS 16
#define TCP_EPHEMERAL_MIN 32768u
#define TCP_EPHEMERAL_MAX 60999u
#define TCP_DEFAULT_MSS_V4 536u     /* RFC 9293 §3.7.1 when the peer sends none */
#define TCP_FRAME_HDRS (14u + 20u + TCP_MAX_HLEN)
/* Retransmissions of a connection the app has closed (FIN_WAIT_1, CLOSING,
 * LAST_ACK) before it is aborted: with the 200 ms minimum RTO about 25 s. */
#define TCP_ORPHAN_RETRIES 7u
/* A SYN waiting for ARP retries every 20 ms, up to 2 s, before ordinary RTOs. */
#define TCP_MAC_WAIT_US 20000u
#define TCP_MAC_WAIT_TRIES 100u

#define tcp_container_of(ptr, type, member)                                               \
    ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* ---- chunked byte queue ------------------------------------------------------- */

struct tcp_chunk {
    struct tcp_chunk *next;
    uint8_t data[];
};
#define TCP_CHUNK_DATA ((uint32_t)(TCP_CHUNK_SIZE - sizeof(struct tcp_chunk)))

struct tcp_bufq {
    struct tcp_chunk *head;
    struct tcp_chunk *tail;
    uint32_t head_off;   /* bytes already consumed in head */
    uint32_t tail_used;  /* bytes written in tail */
    uint32_t len;        /* bytes queued */
    uint32_t nchunks;
};

/* An out-of-order segment lives at the start of its own chunk. */
struct tcp_ooo_seg {
    struct tcp_ooo_seg *next;
    uint32_t seq;
    uint32_t len;
    uint8_t data[];
};
#define TCP_OOO_DATA ((uint32_t)(TCP_CHUNK_SIZE - sizeof(struct tcp_ooo_seg)))

/* ---- connection ------------------------------------------------------------------ */

/* Pending upper-layer events (delivered by tcp_events_deliver). */
#define TCP_EV_ESTABLISHED 0x01
#define TCP_EV_READABLE 0x02
#define TCP_EV_WRITABLE 0x04
#define TCP_EV_CLOSED 0x08

struct tcp_listener {
    uint16_t port;           /* 0 = free slot */
    uint32_t backlog;
    uint32_t half_open;      /* connections in SYN_RECEIVED from this listener */
    const struct tcp_conn_ops *ops;
    void *user;
};

struct tcp_conn {
    struct tcp_stack *stack;
    struct tcp_conn *hnext;          /* hash chain */
    struct tcp_conn *list_next;      /* free list / reap list */
    struct tcp_conn *flush_next;     /* output pending list (doubly linked) */
    struct tcp_conn *flush_prev;
    struct tcp_conn *tw_prev, *tw_next; /* TIME_WAIT age list */

    /* identity, host byte order */
    uint32_t rip;
    uint16_t rport, lport;
    uint8_t peer_mac[6];
    uint8_t state;                   /* enum tcp_state */
    uint8_t events;                  /* TCP_EV_* pending */
    int8_t close_reason;             /* for TCP_EV_CLOSED: 0 or -errno (fits in int8) */

    /* flags */
    uint32_t in_use : 1;
    uint32_t in_hash : 1;
    uint32_t in_flush : 1;
    uint32_t dead : 1;               /* freed: on the reap list */
    uint32_t passive : 1;            /* came from a listener */
    uint32_t app_detached : 1;       /* tcp_close()/tcp_abort() done: no callbacks */
    uint32_t app_known : 1;          /* the app holds this connection: on_closed owed */
    uint32_t app_wants_write : 1;    /* a short send happened: on_writable owed */
    uint32_t fin_queued : 1;         /* shutdown: FIN goes after the queued data */
    uint32_t fin_sent : 1;
    uint32_t fin_rcvd : 1;
    uint32_t ooo_fin : 1;            /* FIN seen out of order at ooo_fin_seq */
    uint32_t ack_now : 1;
    uint32_t delack_count : 2;       /* full segments received since the last ACK */
    uint32_t ts_ok : 1;
    uint32_t ws_ok : 1;
    uint32_t in_recovery : 1;        /* NewReno fast recovery */
    uint32_t rtt_timing : 1;         /* rtt_seq is being timed (no timestamps) */
    uint32_t persist : 1;            /* rtx timer is the persist timer */
    uint32_t syn_needed : 1;         /* SYN or SYN-ACK to (re)send */
    uint32_t rst_on_close : 1;
    uint32_t await_mac : 1;          /* rtx timer is a short wait for ARP */

    uint8_t snd_wscale;              /* shift applied to the peer's window */
    uint8_t rcv_wscale;              /* shift the peer applies to ours */
    uint8_t dupacks;
    uint8_t backoff;                 /* consecutive RTO/persist/SYN expirations */
    uint8_t ka_probes;
    uint8_t mac_waits;               /* short ARP waits before the first SYN */
    uint16_t mss;                    /* send MSS (peer's, bounded by ours) */
    uint16_t listener_idx;

    /* send sequence space */
    uint32_t iss;
    uint32_t snd_una;
    uint32_t snd_nxt;
    uint32_t snd_max;                /* highest sequence sent + 1 */
    uint32_t snd_wnd;                /* peer's window, scaled */
    uint32_t snd_wl1, snd_wl2;
    uint32_t max_snd_wnd;            /* RFC 5961 §5.2 */
    uint32_t cwnd, ssthresh, recover;
    uint32_t rtt_seq;

    /* receive sequence space */
    uint32_t irs;
    uint32_t rcv_nxt;
    uint32_t rcv_adv;                /* right edge of the last window advertised */
    uint32_t ooo_fin_seq;

    /* timestamps (RFC 7323) */
    uint32_t ts_recent;
    uint32_t ts_offset;              /* our TSval = now_ms + ts_offset */
    uint64_t ts_recent_us;

    /* RTT (RFC 6298), microseconds */
    uint32_t srtt_us, rttvar_us, rto_us;
    uint64_t rtt_start_us;
    uint64_t last_rcv_us;            /* keepalive idle reference */

    struct tcp_bufq sndq;            /* from snd_una: unacked, then unsent */
    struct tcp_bufq rcvq;            /* in order, unread */
    struct tcp_ooo_seg *ooo;         /* sorted by seq, non-overlapping */
    uint32_t ooo_count;
    /* The last ACK to an invalid segment, in ms of the stack's clock (mod
     * 2^32, 0 = none): 4 bytes where padding was, so a TCB costs no more. */
    uint32_t invalid_ack_ms;

    struct tw_timer rtx_timer;      /* retransmit, SYN retransmit or persist */
    struct tw_timer delack_timer;
    struct tw_timer life_timer;     /* keepalive, TIME_WAIT, FIN_WAIT_2, SYN_RECEIVED */

    const struct tcp_conn_ops *ops;
    void *user;

    uint64_t bytes_in, bytes_out, segs_in, segs_out;
    uint64_t retransmits, fast_retransmits, rto_expirations;
};

struct tcp_stack {
    struct tcp_config cfg;
    struct tcp_env env;
    uint32_t ip;
    uint8_t mac[6];
    uint8_t secret[16];
    uint64_t now_us;                 /* latest time seen by a top-level call */
    uint32_t max_rcv_wnd;            /* what rcv_buf allows us to advertise */
    uint32_t chunks_used;            /* payload chunks taken from the env now */
    uint8_t rcv_wscale;              /* shift we offer */

    struct tw_wheel wheel;
    struct tcp_conn *pool;
    struct tcp_conn *free_list;
    struct tcp_conn *reap_list;
    struct tcp_conn **buckets;
    uint32_t bucket_mask;
    uint32_t state_counts[TCP_STATE_COUNT];

    struct tcp_listener listeners[TCP_MAX_LISTENERS];
    struct tcp_conn *flush_head;
    struct tcp_conn *tw_head, *tw_tail;
    uint32_t n_time_wait;

    uint16_t next_port;
    uint16_t ip_id;
    uint64_t chal_window_us;         /* the current second of the challenge budget */
    uint32_t chal_left;              /* challenge ACKs it may still send */
    uint64_t rand_count;             /* tcp_random's counter */
    uint64_t cookie_last_us;         /* last cookie sent: cookie ACKs accepted for a while */
    bool force_iss;
    uint32_t forced_iss;
    struct tcp_stats stats;
};

/* Bytes the receive queue may hold: rcv_buf, plus the less-than-one scale
 * unit by which a window rounded up to keep its right edge may exceed it. */
static inline uint32_t tcp_rcv_limit(const struct tcp_conn *c)
{
    return c->stack->cfg.rcv_buf + (c->ws_ok ? (1u << c->rcv_wscale) - 1u : 0u);
}

#define TCP_CHUNK_SMALL_HOLDING 2    /* 4 KiB: echo requests, small messages */
#define TCP_CHUNK_RESERVE_DIV 16     /* the pool's last sixteenth */

/* May the connection take another chunk for what it receives? Always,
 * while the pool has more than its reserve free or the connection holds
 * little; otherwise not (tcp_config.chunk_budget). */
static inline bool tcp_rcv_may_grow(const struct tcp_conn *c)
{
    const struct tcp_stack *s = c->stack;
    uint32_t budget = s->cfg.chunk_budget;

    if (!budget || c->rcvq.nchunks + c->ooo_count < TCP_CHUNK_SMALL_HOLDING)
        return true;
    return s->chunks_used + budget / TCP_CHUNK_RESERVE_DIV < budget;
}

/* Chunks from and back to the env, counted (tcp_bufq.c). */
void *tcp_chunk_take(struct tcp_stack *s);
void tcp_chunk_give(struct tcp_stack *s, void *chunk);

/* ---- tcp_table.c ---------------------------------------------------------------- */
struct tcp_conn *tcp_conn_alloc(struct tcp_stack *s);
void tcp_conn_hash_insert(struct tcp_stack *s, struct tcp_conn *c);
struct tcp_conn *tcp_conn_lookup(struct tcp_stack *s, uint32_t rip, uint16_t rport,
                                 uint16_t lport);
/* Move to a new state, keeping the per-state counts and TIME_WAIT list right. */
void tcp_set_state(struct tcp_conn *c, enum tcp_state st);
/* Release everything the connection holds and put it on the reap list. If the
 * app still holds it and reason is given, on_closed is owed (event). */
void tcp_conn_destroy(struct tcp_conn *c, int reason);
void tcp_reap(struct tcp_stack *s);
struct tcp_listener *tcp_listener_find(struct tcp_stack *s, uint16_t port);

/* ---- tcp_bufq.c ------------------------------------------------------------------ */
/* Append up to len bytes, bounded by limit total; returns bytes appended. */
uint32_t tcp_bufq_append(struct tcp_stack *s, struct tcp_bufq *q, const uint8_t *data,
                         uint32_t len, uint32_t limit);
/* Copy len bytes starting off bytes after the head into out. */
void tcp_bufq_copy(const struct tcp_bufq *q, uint32_t off, uint8_t *out, uint32_t len);
void tcp_bufq_consume(struct tcp_stack *s, struct tcp_bufq *q, uint32_t n);
void tcp_bufq_clear(struct tcp_stack *s, struct tcp_bufq *q);
size_t tcp_bufq_peek(const struct tcp_bufq *q, struct tcp_iovec *iov, unsigned *iovcnt);
/* Out-of-order queue: insert [seq, seq+len) (trimming overlaps with what is
 * held); returns 0, -ENOSPC (bound) or -ENOMEM (no chunk). */
int tcp_ooo_insert(struct tcp_conn *c, uint32_t seq, const uint8_t *data, uint32_t len);
/* Move what became contiguous at rcv_nxt into rcvq; returns bytes moved. */
uint32_t tcp_ooo_drain(struct tcp_conn *c);
void tcp_ooo_clear(struct tcp_conn *c);

/* ---- tcp_in.c -------------------------------------------------------------------- */
void tcp_events_deliver(struct tcp_conn *c);
void tcp_ack_sent(struct tcp_conn *c);

/* ---- tcp_out.c ------------------------------------------------------------------- */
/* Mark for output at the next flush. */
void tcp_want_output(struct tcp_conn *c);
void tcp_flush_unlink(struct tcp_conn *c);
/* Send what the windows allow plus any ACK/FIN owed. */
void tcp_output(struct tcp_conn *c, uint64_t now_us);
/* Sequence number for a segment without payload or FIN (pure ACK, RST). */
uint32_t tcp_ctl_seq(const struct tcp_conn *c);
/* A segment with no payload (ACK, SYN, FIN, RST, keepalive probe). */
int tcp_send_ctl(struct tcp_conn *c, uint8_t flags, uint32_t seq, uint64_t now_us);
/* Retransmit len bytes of data (or SYN/FIN) at seq. */
void tcp_retransmit_una(struct tcp_conn *c, uint64_t now_us);
/* RST in reply to a segment that has no connection (RFC 9293 §3.10.7.1). */
void tcp_send_rst_reply(struct tcp_stack *s, const uint8_t *frame, uint32_t rip,
                        uint16_t rport, uint16_t lport, uint32_t seg_seq, uint32_t seg_ack,
                        uint8_t seg_flags, uint32_t seg_len);
/* A stateless SYN-ACK carrying a cookie. */
void tcp_send_cookie_synack(struct tcp_stack *s, const uint8_t *peer_mac, uint32_t rip,
                            uint16_t rport, uint16_t lport, uint32_t irs,
                            const struct tcp_opts *opts, uint64_t now_us);
uint32_t tcp_rcv_window(const struct tcp_conn *c);
uint32_t tcp_ts_now(const struct tcp_conn *c, uint64_t now_us);

/* ---- tcp_ctimer.c ---------------------------------------------------------------- */
void tcp_ctimers_init(struct tcp_conn *c);
void tcp_ctimers_cancel(struct tcp_conn *c);
void tcp_rtx_arm(struct tcp_conn *c, uint64_t now_us);       /* RTO from now */
void tcp_rtx_stop(struct tcp_conn *c);
void tcp_persist_arm(struct tcp_conn *c, uint64_t now_us);
void tcp_delack_arm(struct tcp_conn *c, uint64_t now_us);
void tcp_life_arm(struct tcp_conn *c, uint64_t now_us);      /* per state */
void tcp_rtt_sample(struct tcp_conn *c, uint32_t rtt_us);

/* ---- tcp_opt.c ------------------------------------------------------------------- */
/* 0 or -EINVAL (malformed option list). */
int tcp_opts_parse(const uint8_t *p, unsigned len, bool syn, struct tcp_opts *out);
/* Options for a segment: returns bytes written (multiple of 4). */
unsigned tcp_opts_build_syn(uint8_t *p, uint16_t mss, bool ws, uint8_t wscale, bool ts,
                            uint32_t tsval, uint32_t tsecr);
unsigned tcp_opts_build_ts(uint8_t *p, uint32_t tsval, uint32_t tsecr);

/* ---- tcp_isn.c ------------------------------------------------------------------- */
uint64_t tcp_siphash(const uint8_t key[16], const void *data, size_t len);
/* 32 random bits an off-path observer cannot predict: the keyed hash of
 * the stack's secret over a counter of its own. */
uint32_t tcp_random(struct tcp_stack *s);
uint32_t tcp_isn(struct tcp_stack *s, uint32_t rip, uint16_t rport, uint16_t lport,
                 uint64_t now_us);
/* Cookie for a SYN: encodes the MSS index and a MAC over tuple, time, irs. */
uint32_t tcp_cookie_make(struct tcp_stack *s, uint32_t rip, uint16_t rport, uint16_t lport,
                         uint32_t irs, uint16_t peer_mss, uint64_t now_us);
/* Validate cookie (= SEG.ACK - 1) for irs (= SEG.SEQ - 1); returns the MSS or -EINVAL. */
int tcp_cookie_check(struct tcp_stack *s, uint32_t rip, uint16_t rport, uint16_t lport,
                     uint32_t irs, uint32_t cookie, uint64_t now_us);

#endif
