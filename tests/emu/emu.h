/*
 * emu.h - shared state of the OpenFlow 1.3 switch emulator (ofswitch-emu): options, the
 * per-switch record, run statistics and the entry points each emu_*.c file exports.
 *
 * One process, one thread, one epoll loop (emu_loop.c) drives N emulated switches.
 * Everything hangs off one struct emu_ctx created by emu_main.c; each struct emu_sw
 * points back to it.  Module map:
 *   emu_main.c     options, --help, setup, run, teardown
 *   emu_conn.c     sockets: connect/listen, framing, bounded tx, backpressure, reconnect
 *   emu_agent.c    the switch's reaction to each controller message, echo, handshake
 *   emu_mp.c       multipart requests and replies cut into < 64 KiB messages
 *   emu_load.c     packet_in generators, port flaps, malformed-message injection
 *   emu_report.c   sampling over time, JSON and human-readable report
 *   emu_dump.c     --dump-replies: offline replies for decoding by other tools
 *   emu_ofp.c, emu_oxm.c, emu_flowtable.c, emu_hist.c   protocol and data structures
 */
#ifndef EMU_H
#define EMU_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "emu_flowtable.h"
#include "emu_hist.h"
#include "emu_loop.h"
#include "emu_ofp.h"

#define EMU_NS_PER_MS 1000000ull
#define EMU_NS_PER_SEC 1000000000ull
#define EMU_MAX_SWITCHES 100000u
#define EMU_MAX_PORTS 4096u
#define EMU_MAX_WINDOW 4096u

#define EMU_CONTAINER_OF(ptr, type, member) \
    ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

enum emu_mode {
    EMU_MODE_NONE = 0,
    EMU_MODE_LATENCY,    /* one packet_in outstanding per switch */
    EMU_MODE_THROUGHPUT, /* up to --window outstanding per switch */
};

/* --attack: switches that misbehave on purpose (emu_attack.c). */
enum emu_attack {
    EMU_ATTACK_NONE = 0,
    EMU_ATTACK_SILENT,
    EMU_ATTACK_ECHO_FLOOD,
    EMU_ATTACK_HELLO_FLOOD,
    EMU_ATTACK_PARTIAL,
    EMU_ATTACK_CHURN,
};

/* Malformed message kinds (bit positions in emu_opts.malformed_kinds). */
enum emu_bad {
    EMU_BAD_TYPE = 0,    /* unknown message type */
    EMU_BAD_SHORT,       /* PORT_STATUS whose body is too short for its type */
    EMU_BAD_OXM,         /* PACKET_IN whose OXM TLV runs past the match */
    EMU_BAD_VERSION,     /* PORT_STATUS with version 0x01 mid-session */
    EMU_BAD_LEN,         /* header length < 8: breaks framing, the peer must close */
    EMU_BAD_COUNT,
};

struct emu_opts {
    bool listen;                  /* --listen: switches wait for the controller */
    struct sockaddr_storage addr; /* controller (connect) or first listen address */
    socklen_t addr_len;
    bool has_bind;                /* --bind: the connections' IPv4 source address */
    struct sockaddr_in bind_addr;
    uint16_t listen_base;
    uint32_t n_switches;
    uint32_t n_ports;
    uint64_t dpid_base;
    uint8_t n_tables;
    uint32_t table_size;
    uint32_t n_buffers;           /* 0: packet_ins carry whole frames, no buffer ids */
    double connect_rate;          /* connections started per second, 0 = all at once */
    double duration_s;            /* 0 = until SIGINT */
    uint32_t echo_interval_ms;    /* 0 = never send echo requests */
    uint32_t echo_timeout_ms;     /* 0 = never time out */
    uint32_t backoff_min_ms;
    uint32_t backoff_max_ms;
    enum emu_mode mode;
    double pin_rate;              /* packet_ins per second per switch, 0 = no cap */
    uint32_t window;
    uint32_t pin_timeout_ms;
    uint32_t flap_ms;
    uint32_t reconnect_ms;
    bool malformed;
    uint64_t malformed_dpid;
    uint32_t malformed_ms;
    uint32_t malformed_kinds;     /* bit set of enum emu_bad */
    uint32_t tx_limit;            /* bytes queued per connection before overflow */
    uint32_t mp_limit;            /* bytes of one multipart reply part at most */
    enum emu_attack attack;
    uint32_t sample_ms;
    const char *json_path;        /* NULL: no JSON; "-": stdout */
    bool quiet;
    uint64_t seed;
    const char *dump_path;        /* --dump-replies: offline run writing replies here */
    const char *tls;              /* --tls CERT,KEY,CA, NULL = plain TCP */
    const char *wiring;           /* --wiring SPEC (emu_wire.h), NULL = no links */
};

enum emu_cs {
    EMU_CS_IDLE = 0,   /* waiting to (re)connect */
    EMU_CS_CONNECTING,
    EMU_CS_LISTENING,  /* listener open, no connection */
    EMU_CS_OPEN,       /* TCP up: OpenFlow runs */
    EMU_CS_TLS,        /* TCP up, TLS handshake under way (--tls) */
};

enum emu_disc {
    EMU_DISC_CONNECT_FAILED = 0,
    EMU_DISC_PEER_CLOSED,
    EMU_DISC_SOCKET_ERROR,
    EMU_DISC_ECHO_TIMEOUT,
    EMU_DISC_BAD_FRAMING,
    EMU_DISC_HELLO_FAILED,
    EMU_DISC_PROTOCOL,
    EMU_DISC_RECONNECT_STORM,
    EMU_DISC_TX_OVERFLOW,
    EMU_DISC_NO_MEMORY,
    EMU_DISC_SHUTDOWN, /* end of run: not counted as a disconnect */
    EMU_DISC_COUNT,
};
const char *emu_disc_name(enum emu_disc d);

/* A growable byte queue: data at p[off .. off+len). */
struct emu_sbuf {
    uint8_t *p;
    uint32_t off;
    uint32_t len;
    uint32_t cap;
};

struct emu_port {
    uint32_t config;
    uint32_t state;
    uint64_t rx_packets, rx_bytes, tx_packets, tx_bytes;
};

struct emu_pin;
struct emu_mp;
struct emu_ctx;

/* Per-switch flags. */
#define EMU_SWF_HELLO_RCVD    0x0001
#define EMU_SWF_FEATURES_SENT 0x0002
#define EMU_SWF_HANDSHAKED    0x0004
#define EMU_SWF_EVER_HS       0x0008
#define EMU_SWF_ECHO_PENDING  0x0010
#define EMU_SWF_RX_PAUSED     0x0020
#define EMU_SWF_DIRTY         0x0040
#define EMU_SWF_GEN_SET       0x0080
#define EMU_SWF_MUTED         0x0100  /* --attack partial: sent its half message, now mute */

struct emu_sw {
    struct emu_ctx *ctx;
    uint64_t dpid;
    uint32_t idx;
    int fd;
    int lfd;
    void *ssl;                /* --tls: the session on fd (emu_tls.c) */
    uint8_t cs;
    uint16_t flags;
    uint32_t ev_mask;         /* events currently registered for fd */
    uint32_t conn_gen;        /* bumped on every close: detects a close mid-processing */
    uint32_t backoff_ms;
    uint32_t next_xid;
    uint32_t echo_xid;
    uint32_t dirty_next;      /* next switch index + 1 in the tx flush list */
    uint16_t miss_send_len;
    uint16_t cfg_flags;
    uint32_t role;
    uint64_t generation_id;
    uint64_t t_conn_start;    /* connect() or accept() */
    uint64_t t_open;
    uint64_t echo_sent_ns;
    uint32_t flap_next;
    uint32_t bad_next;
    struct emu_sbuf rx;
    struct emu_sbuf tx;
    struct emu_timer t_conn;  /* start, reconnect backoff, reconnect storm */
    struct emu_timer t_echo;
    struct emu_timer t_load;
    struct emu_timer t_flap;
    struct emu_timer t_bad;
    struct emu_timer t_attack;
    struct emu_port *ports;   /* n_ports, port_no = index + 1 */
    struct emu_ft *ft;
    struct emu_pin *pin;      /* packet_in generator state, NULL without a load mode */
    struct emu_mp *mp;        /* multipart reply in progress, or NULL */
    struct emu_ofp_async async;
    uint64_t flow_mods;       /* received by this switch */
    uint64_t lookups;         /* packet_ins generated: table-0 misses */
};

struct emu_errcount {
    uint16_t type;
    uint16_t code;
    uint64_t n;
};
#define EMU_ERR_SLOTS 24

struct emu_sample {
    uint32_t t_ms;
    uint32_t open;
    uint32_t handshaked;
    uint32_t flows_min;
    uint32_t flows_max;
    uint64_t flows_total;
    uint64_t flow_mods;       /* cumulative */
    uint64_t pin_resp;        /* cumulative */
    uint64_t disconnects;     /* cumulative */
};

struct emu_stats {
    uint64_t t_start_ns;
    uint64_t t_end_ns;
    struct emu_hist connect;   /* connect() until TCP established */
    struct emu_hist handshake; /* connect()/accept() until handshake done (README) */
    struct emu_hist echo_rtt;  /* our ECHO_REQUEST until the controller's reply */
    struct emu_hist pin_lat;   /* PACKET_IN until its FLOW_MOD/PACKET_OUT */
    uint64_t disc[EMU_DISC_COUNT];
    uint64_t connect_attempts;
    uint64_t connects;
    uint64_t accepts;
    uint64_t accepts_refused;  /* listen mode: a second connection while one is open */
    uint64_t handshakes;
    uint32_t open_now;
    uint32_t handshaked_now;
    uint32_t switches_handshaked; /* distinct switches that completed a handshake */
    uint64_t rx_msgs[EMU_OFPT_COUNT + 1]; /* last slot: unknown types */
    uint64_t tx_msgs[EMU_OFPT_COUNT + 1];
    uint64_t rx_bytes;
    uint64_t tx_bytes;
    uint64_t flow_mods;
    uint64_t flow_mods_failed;
    uint64_t flows_removed_sent;
    uint64_t echo_req_sent;
    uint64_t echo_rep_rcvd;
    uint64_t echo_req_answered;
    uint64_t pin_sent;
    uint64_t pin_resp;
    uint64_t pin_timeout;      /* no answer within --pin-timeout */
    uint64_t pin_late;         /* answer for a packet_in already timed out */
    uint64_t pin_lost_disc;    /* outstanding when the connection closed */
    uint64_t port_status_sent;
    uint64_t wire_delivered;      /* --wiring: PACKET_OUT frames handed to the peer's controller */
    uint64_t wire_lost;           /* --wiring: the peer was not connected */
    uint64_t malformed_sent[EMU_BAD_COUNT];
    uint64_t barriers;
    uint64_t mp_requests;
    uint64_t mp_reply_msgs;
    uint32_t mp_reply_max_len;    /* the largest part sent */
    uint64_t attack_msgs;         /* --attack: messages of the attack sent (churn: switches
                                     that handshook with a fresh dpid and left) */
    struct emu_errcount err_sent[EMU_ERR_SLOTS];
    struct emu_errcount err_rcvd[EMU_ERR_SLOTS];
    uint64_t err_sent_other;
    uint64_t err_rcvd_other;
    struct emu_sample *samples;
    uint32_t n_samples;
    uint32_t cap_samples;
    uint32_t sample_every;     /* keep one sample out of this many (doubles when full) */
    uint32_t sample_tick;
};

struct emu_ctx {
    struct emu_opts opt;
    struct emu_loop loop;
    struct emu_sw *sw;
    uint32_t n_sw;
    struct emu_stats st;
    uint8_t *rxbuf;           /* one recv() at a time lands here */
    uint8_t *txbuf;           /* messages are encoded here, then queued */
    uint8_t *mbuf;            /* normalised matches */
    uint32_t dirty_head;      /* switch index + 1, 0 = empty */
    uint64_t rng;
    int sigfd;
    bool stop;
    bool stopping;            /* shutting down: no reconnects */
    bool offline;             /* --dump-replies: no sockets */
    void *tls;                /* --tls: the client context, NULL = plain TCP */
    struct emu_wire *wire;    /* --wiring, NULL = none */
    bool tls_error_told;      /* a TLS failure was printed (once per run) */
    struct emu_timer t_sample;
    struct emu_timer t_end;
};

#define EMU_TXBUF_LEN (2 * 65536u)
#define EMU_RX_CHUNK 65536u

/* epoll tags: connection generation << 34 | switch index << 2 | kind (emu_conn.c). */
#define EMU_TAG_CONN 0u
#define EMU_TAG_LISTEN 1u
#define EMU_TAG_SIGNAL 2u
#define EMU_TAG_GEN_MASK 0x3fffffffu

uint64_t emu_rand(struct emu_ctx *ctx);
void emu_count_err(struct emu_errcount *tab, uint64_t *other, uint16_t type, uint16_t code);

/* ---- emu_conn.c ------------------------------------------------------------------ */
void emu_conn_init(struct emu_sw *sw);
/* First start of a switch (connect or listen) at absolute time at_ns. */
void emu_conn_schedule(struct emu_sw *sw, uint64_t at_ns);
/* An epoll event for switch idx; tag_gen is the tag's connection generation. */
void emu_conn_io(struct emu_ctx *ctx, uint32_t idx, uint32_t kind, uint32_t tag_gen,
                 uint32_t events);
/* Queues one encoded message. Returns 0, or -ENOTCONN, -ENOBUFS/-ENOMEM after which the
 * connection has been closed (the caller must not touch connection state). */
int emu_conn_send(struct emu_sw *sw, const uint8_t *msg, size_t len);
/* Sends w's content when it encoded without overflow. */
int emu_conn_send_wr(struct emu_sw *sw, const struct emu_wr *w);
void emu_conn_close(struct emu_sw *sw, enum emu_disc reason);
/* Room for a multipart part / for generated load (backpressure). */
bool emu_conn_room_mp(const struct emu_sw *sw);
bool emu_conn_room_load(const struct emu_sw *sw);
/* Feeds bytes as if received (the offline --dump-replies run). Returns 0 or -EPIPE. */
int emu_conn_feed(struct emu_sw *sw, const uint8_t *buf, size_t len);
void emu_conn_flush_all(struct emu_ctx *ctx);
void emu_conn_free(struct emu_sw *sw);

/* ---- emu_agent.c ----------------------------------------------------------------- */
int emu_agent_init(struct emu_sw *sw);
void emu_agent_free(struct emu_sw *sw);
void emu_agent_on_open(struct emu_sw *sw);
/* Handles one framed message. Returns 0, or -EPIPE when the connection was closed. */
int emu_agent_on_msg(struct emu_sw *sw, const uint8_t *msg, size_t len);
void emu_agent_on_close(struct emu_sw *sw);
/* Sends OFPT_ERROR quoting `msg`. Returns emu_conn_send()'s result. */
int emu_agent_send_error(struct emu_sw *sw, uint16_t type, uint16_t code, const uint8_t *msg,
                         size_t len);
void emu_agent_port_desc(const struct emu_sw *sw, uint32_t port_idx, struct emu_ofp_port *p);
void emu_agent_host_mac(uint64_t dpid, uint32_t port_no, uint8_t mac[6]);
void emu_agent_expire(struct emu_sw *sw, uint64_t now_ns);
uint32_t emu_agent_next_xid(struct emu_sw *sw);

/* ---- emu_attack.c ---------------------------------------------------------------- */
int emu_attack_parse(const char *s, enum emu_attack *out);
const char *emu_attack_name(enum emu_attack a);
void emu_attack_init(struct emu_sw *sw);
/* On connect: true when the attack replaces the switch's own opening. */
bool emu_attack_on_open(struct emu_sw *sw);
void emu_attack_on_socket(struct emu_sw *sw);  /* before connect() */
bool emu_attack_ignores_input(const struct emu_sw *sw);
bool emu_attack_pauses_rx(const struct emu_sw *sw);
void emu_attack_refill(struct emu_sw *sw);     /* the tx queue drained */
void emu_attack_on_handshake(struct emu_sw *sw);
/* A message of the controller's was handled (churn leaves after SET_CONFIG). */
void emu_attack_on_msg(struct emu_sw *sw, uint8_t type);
/* Reconnect at once after any close, without backoff (churn). */
bool emu_attack_no_backoff(const struct emu_sw *sw);
void emu_attack_on_close(struct emu_sw *sw);

/* ---- emu_mp.c -------------------------------------------------------------------- */
int emu_mp_request(struct emu_sw *sw, const uint8_t *msg, size_t len);
/* Continues a reply cut by backpressure; no-op without one. */
void emu_mp_continue(struct emu_sw *sw);
void emu_mp_free(struct emu_sw *sw);

/* ---- emu_load.c ------------------------------------------------------------------ */
int emu_load_init(struct emu_sw *sw);
void emu_load_free(struct emu_sw *sw);
void emu_load_on_handshake(struct emu_sw *sw);
void emu_load_on_close(struct emu_sw *sw);
void emu_load_pump(struct emu_sw *sw);
/* A FLOW_MOD/PACKET_OUT naming buffer_id (or carrying our frame in data) may answer one
 * of our packet_ins. Returns 0 when it did, -ENOENT when it did not. */
int emu_load_on_response(struct emu_sw *sw, uint32_t buffer_id, const uint8_t *data,
                         size_t data_len);
/* Buffer state for PACKET_OUT/FLOW_MOD buffer_id checks: 0 = held, or the OFPBRC code
 * (BUFFER_EMPTY: issued but no longer held, BUFFER_UNKNOWN: never issued). */
int emu_load_buffer_check(const struct emu_sw *sw, uint32_t buffer_id);
/* Builds the frame our packet_ins carry (exposed for the codec test). */
size_t emu_load_frame(uint64_t dpid, uint32_t in_port, uint32_t n_ports, uint32_t id,
                      uint8_t *buf, size_t cap);

/* ---- emu_dump.c ------------------------------------------------------------------ */
/* --dump-replies: switch 1 answers a fixed script of controller messages offline and
 * everything it sends is written to opt.dump_path. Returns 0 or a negative errno. */
int emu_dump_replies(struct emu_ctx *ctx);

/* ---- emu_report.c ---------------------------------------------------------------- */
int emu_report_init(struct emu_ctx *ctx);
void emu_report_sample(struct emu_ctx *ctx, uint64_t now_ns);
int emu_report_write(struct emu_ctx *ctx);
void emu_report_free(struct emu_ctx *ctx);

#endif /* EMU_H */
