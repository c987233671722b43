/*
 * tcp_helper: the harness the TCP unit tests drive ofcd's stack with, one
 * crafted segment at a time.
 *
 * A struct th owns one stack and a fake world around it: an env that
 * captures every outgoing frame in a queue, a malloc chunk pool with a
 * live-chunk counter and an optional limit, a fixed-MAC resolver, a fake
 * clock, and connection callbacks that log events. Frames from the peer
 * (10.66.0.1, MAC ..:01) to the stack (10.66.0.2, MAC ..:02) are built with
 * correct IPv4 and TCP checksums by th_build()/th_send(), with switches to
 * break them. Outgoing frames are parsed and their checksums verified by
 * th_pop(). struct th_peer plays the remote TCP: it opens connections,
 * tracks sequence numbers and timestamps, and checks on every segment it
 * receives the invariants that hold in every test (the stack's window right
 * edge never moves left; timestamps present and monotonic once negotiated).
 *
 * Use: th_setup/th_teardown as cmocka fixtures (the teardown destroys the
 * stack and fails the test if a payload chunk or an allocated frame leaked);
 * a test that needs another configuration edits th->cfg and calls
 * th_restart(). Nothing here is global: all state is in struct th.
 */
#ifndef OFCD_TEST_TCP_HELPER_H
#define OFCD_TEST_TCP_HELPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net.h"
#include "tcp.h"

#define TH_IP(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))
#define TH_OUR_IP TH_IP(10, 66, 0, 2)
#define TH_PEER_IP TH_IP(10, 66, 0, 1)
#define TH_PORT 6653                /* the stack's listening port in the tests */

#define TH_T0 1000000000ULL         /* start of the fake clock, microseconds */
#define TH_MS 1000ULL
#define TH_SEC 1000000ULL

#define TH_FIN 0x01
#define TH_SYN 0x02
#define TH_RST 0x04
#define TH_PSH 0x08
#define TH_ACK 0x10
#define TH_URG 0x20

#define TH_FRAME_MAX 9216
#define TH_OUT_MAX 4096
#define TH_EV_MAX 512
#define TH_ALLOC_MAX 64

/* th_tx.win: 0 means "65535"; this value puts a zero window on the wire. */
#define TH_WIN_ZERO 0x10000u

/* Sequence-space comparisons (RFC 9293 3.4). */
static inline bool th_seq_lt(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) < 0;
}
static inline bool th_seq_le(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) <= 0;
}

/* One segment from the peer, described field by field. */
struct th_tx {
    uint16_t sport;           /* 0: 40000 */
    uint16_t dport;           /* 0: TH_PORT */
    uint8_t flags;
    uint32_t seq, ack;
    uint32_t win;             /* raw window field; 0 = 65535, TH_WIN_ZERO = 0 */
    uint16_t mss;             /* 0: no MSS option */
    bool has_ws;
    uint8_t ws;
    bool has_ts;
    uint32_t tsval, tsecr;
    bool sack_perm;
    const void *data;
    uint16_t len;
    /* Breakage. */
    const uint8_t *raw_opts;  /* option bytes written instead of the built ones */
    uint8_t raw_opts_len;     /* (padded to 4 with NOPs unless doff is given) */
    bool bad_cksum;           /* flip the TCP checksum */
    int doff;                 /* > 0: data offset field (words) written as is */
    bool cksum_ok;            /* pass l4_cksum_ok = true to tcp_input */
    uint32_t src_ip;          /* 0: TH_PEER_IP */
};

/* One frame the stack sent, parsed. */
struct th_seg {
    uint8_t dst_mac[6], src_mac[6];
    uint32_t src_ip, dst_ip;
    uint16_t sport, dport;
    uint8_t flags;
    uint32_t seq, ack;
    uint16_t win;
    uint16_t cksum;
    bool has_mss;
    uint16_t mss;
    bool has_ws;
    uint8_t ws;
    bool has_ts;
    uint32_t tsval, tsecr;
    bool sack_perm;
    bool has_sack;
    uint8_t opt_len;          /* option bytes (incl. padding) */
    uint16_t len;             /* payload bytes */
    uint8_t data[TH_FRAME_MAX];
    struct tcp_tx_meta meta;
};

enum th_ev_type {
    TH_EV_ESTABLISHED,
    TH_EV_READABLE,
    TH_EV_WRITABLE,
    TH_EV_CLOSED,
};

struct th_event {
    enum th_ev_type type;
    struct tcp_conn *c;
    int reason;               /* on_closed */
    uint64_t at_us;
};

struct th_frame {
    uint8_t *buf;
    uint16_t len;
    struct tcp_tx_meta meta;
};

struct th {
    struct tcp_config cfg;
    struct tcp_env env;
    struct tcp_stack *s;
    uint8_t secret[16];
    uint64_t now;
    /* Captured output. */
    struct th_frame out[TH_OUT_MAX];
    unsigned out_head, out_tail;
    uint64_t frames_alloced, frames_sent;
    bool frame_alloc_fail;    /* frame_alloc returns NULL */
    /* Chunk pool. */
    long chunks_live;
    long chunks_peak;
    long chunk_limit;         /* < 0: unlimited */
    /* Resolver. */
    int resolve_rc;           /* 0 or -EAGAIN */
    unsigned resolve_calls;
    /* Event log. */
    struct th_event ev[TH_EV_MAX];
    unsigned nev;
    /* App behaviour in callbacks: read everything on on_readable into rx,
     * then call hook (if set) for every event, as an application would. */
    bool auto_read;
    void (*hook)(struct th *th, enum th_ev_type type, struct tcp_conn *c);
    void *hook_arg;
    uint8_t *rx;
    size_t rx_len, rx_cap;
    struct th_seg seg;        /* last segment th_expect returned */
    /* Test memory freed by th_teardown, so a failing test leaks nothing. */
    void *allocs[TH_ALLOC_MAX];
};

/* The remote TCP as the tests play it. */
struct th_peer {
    struct th *th;
    uint32_t ip;              /* the peer's address, 0: TH_PEER_IP (set after th_peer_init) */
    uint16_t port;            /* the peer's port */
    uint16_t lport;           /* the stack's port */
    uint32_t irs;             /* the peer's ISN */
    uint32_t snd_nxt;         /* the peer's next sequence number */
    uint32_t rcv_nxt;         /* next sequence number expected from the stack */
    uint32_t iss;             /* the stack's ISS, from its SYN / SYN-ACK */
    uint32_t win;             /* window the peer advertises (th_tx.win encoding) */
    uint16_t mss;             /* MSS the peer offers, 0: none */
    int ws;                   /* shift the peer offers, -1: none */
    bool ts;                  /* the peer offers timestamps */
    bool sack_perm;
    uint32_t tsval;           /* the peer's timestamp clock (tests move it) */
    /* Learnt from the stack's SYN or SYN-ACK. */
    uint16_t stack_mss;
    bool ws_ok;
    uint8_t stack_ws;
    bool ts_ok;
    uint32_t syn_win;
    uint32_t ts_recent;       /* latest TSval from the stack */
    bool ts_seen;
    bool edge_valid;
    uint32_t right_edge;      /* highest ack + window the stack advertised */
    struct tcp_conn *conn;
    /* Bytes the stack sent, in order, as accepted by th_peer_accept. */
    uint8_t *rx;
    size_t rx_len, rx_cap;
    bool fin_rcvd;
};

/* ---- set-up ---------------------------------------------------------- */

/* The configuration the tests start from: the stack's defaults, then fixed
 * values for everything a test depends on (see tcp_helper.c). */
void th_config(struct tcp_config *cfg);

/* cmocka fixtures: *state becomes a struct th with a running stack. */
int th_setup(void **state);
int th_teardown(void **state);

/* Destroy the stack and create a new one from th->cfg (and th->env flags). */
void th_restart(struct th *th);

/* Listen on port with the harness callbacks (user = th). */
void th_listen(struct th *th, uint16_t port, uint32_t backlog);

/* ---- input ----------------------------------------------------------- */

/* Build the frame for tx into buf (room for TH_FRAME_MAX). Returns its
 * length and fills info as net_rx would. */
uint16_t th_build(const struct th_tx *tx, uint8_t *buf, struct net_rx_info *info);

/* tcp_input() of the frame, without / with a following tcp_stack_flush(). */
void th_input(struct th *th, const struct th_tx *tx);
void th_send(struct th *th, const struct th_tx *tx);
#define TH_SEND(th, ...) th_send((th), &(struct th_tx){__VA_ARGS__})

/* ---- time ------------------------------------------------------------ */

void th_flush(struct th *th);
/* Move the clock forward by us in 1 ms steps, running the timers and a
 * flush at each step, as the poll loop would. */
void th_advance(struct th *th, uint64_t us);
/* Advance in 1 ms steps until a frame is queued or max_us has passed.
 * Returns the time advanced, or UINT64_MAX if no frame came. */
uint64_t th_advance_until_frame(struct th *th, uint64_t max_us);

/* ---- output ---------------------------------------------------------- */

unsigned th_pending(const struct th *th);
/* Parse the oldest queued frame into seg (checking Ethernet/IPv4 framing and
 * both checksums, which fail the test when wrong). false when none. */
bool th_pop(struct th *th, struct th_seg *seg);
void th_drop_all(struct th *th);
/* Assert that no frame is queued. */
void th_expect_none(struct th *th);
/* Pop one frame and assert its flags (exactly), seq, ack (when the ACK flag
 * is expected) and payload length. Returns &th->seg. */
const struct th_seg *th_expect(struct th *th, uint8_t flags, uint32_t seq, uint32_t ack,
                               uint16_t len);

/* ---- events ---------------------------------------------------------- */

extern const struct tcp_conn_ops th_ops;
/* Number of events of type for c (NULL: any connection). */
unsigned th_events(const struct th *th, enum th_ev_type type, const struct tcp_conn *c);
/* The connection of the latest on_established, NULL if none. */
struct tcp_conn *th_last_established(const struct th *th);
/* Reason of c's on_closed; asserts that exactly one was logged. */
int th_close_reason(const struct th *th, const struct tcp_conn *c);
bool th_is_closed(const struct th *th, const struct tcp_conn *c);
void th_clear_rx(struct th *th);

/* ---- the peer -------------------------------------------------------- */

/* A peer on port (its own) talking to the stack's TH_PORT, offering MSS
 * 1460 and nothing else, window 65535, ISN 0x10000000 + port. Its receive
 * buffer belongs to th (freed by th_teardown). */
void th_peer_init(struct th *th, struct th_peer *p, uint16_t port);

/* SYN → SYN-ACK (checked: ack, only offered options, MSS present) → ACK →
 * on_established. Fills the learnt fields. Returns the connection. */
struct tcp_conn *th_passive_open(struct th *th, struct th_peer *p);
/* First half only: send the SYN and check the SYN-ACK (learnt fields set). */
void th_passive_syn(struct th *th, struct th_peer *p);
/* tcp_connect to the peer (p->port is the peer's listening port), SYN
 * checked, SYN-ACK from the peer, ACK checked, on_established. */
struct tcp_conn *th_active_open(struct th *th, struct th_peer *p);

/* A segment from the peer with its ports, window and (when negotiated)
 * timestamps; flushes after input. The peer's state is not changed. */
void th_peer_tx(struct th *th, struct th_peer *p, uint8_t flags, uint32_t seq, uint32_t ack,
                const void *data, uint16_t len);
/* Data at snd_nxt acking rcv_nxt (snd_nxt advances). */
void th_peer_data(struct th *th, struct th_peer *p, const void *data, uint16_t len);
/* Pure ACK of rcv_nxt. */
void th_peer_ack(struct th *th, struct th_peer *p);
/* FIN|ACK at snd_nxt (snd_nxt advances by one). */
void th_peer_fin(struct th *th, struct th_peer *p);

/* Pop a frame and check it belongs to p and keeps the invariants; records
 * the stack's TSval. false when nothing is queued. */
bool th_peer_recv(struct th *th, struct th_peer *p, struct th_seg *seg);
/* Take seg's payload/FIN into p's stream if it is in order or overlaps
 * rcv_nxt (rcv_nxt advances). Returns the new bytes taken. */
size_t th_peer_accept(struct th_peer *p, const struct th_seg *seg);
/* th_peer_recv + th_peer_accept for every queued frame; returns frames (the
 * last one stays in th->seg). th_drop_all and th_peer_pump use th->seg too. */
unsigned th_peer_collect(struct th *th, struct th_peer *p);
/* th_peer_recv and assert like th_expect. Returns &th->seg. */
const struct th_seg *th_peer_expect(struct th *th, struct th_peer *p, uint8_t flags,
                                    uint32_t seq, uint32_t ack, uint16_t len);
/* Learn from the stack's SYN (active) or SYN-ACK what was negotiated. */
void th_peer_learn_syn(struct th_peer *p, const struct th_seg *seg, bool active);
/* Receive everything the stack sends and ACK it (after each data segment,
 * or once per batch), until it sends nothing more. Every payload must be at
 * most max_seg bytes. Returns the largest payload seen. */
uint16_t th_peer_pump(struct th *th, struct th_peer *p, uint16_t max_seg, bool ack_each);
/* The stack's window in seg, in bytes (scaled unless SYN). */
uint32_t th_peer_wnd(const struct th_peer *p, const struct th_seg *seg);

/* ---- app side -------------------------------------------------------- */

/* tcp_send all of data (asserting it fits) and flush. */
void th_app_send(struct th *th, struct tcp_conn *c, const void *data, size_t len);
/* tcp_recv everything available into buf (at most cap). */
size_t th_app_read(struct tcp_conn *c, void *buf, size_t cap);

/* Zeroed memory owned by th, freed by th_teardown (so a test that fails
 * half-way leaks nothing); th_realloc keeps ownership. */
void *th_alloc(struct th *th, size_t n);
void *th_realloc(struct th *th, void *ptr, size_t n);

/* Deterministic test payload: byte i of stream seed. */
void th_pattern(uint8_t *buf, size_t off, size_t len, unsigned seed);

/* Stack counter by field, e.g. TH_STAT(th, drop_paws). */
#define TH_STAT(th, field) (tcp_stack_get_stats((th)->s)->field)

/* Number of connections in state st. */
uint32_t th_state_count(const struct th *th, enum tcp_state st);

#endif
