/*
 * emu_ofp.h - OpenFlow 1.3 wire constants and the bounds-checked codec of the switch
 * emulator (tests/emu).
 *
 * Written from the OpenFlow 1.3.x specification, independently of ofcd's own ofp/ code,
 * so that the emulator can check ofcd rather than agree with it by construction.
 *
 * Encoders append to a struct emu_wr (a fixed buffer that records overflow instead of
 * writing past its end); a message is framed with emu_wr_msg_begin()/emu_wr_msg_end().
 * Decoders take one whole message (its header length already checked by the framer),
 * never read past it, and return views (pointers) into it: no copies.  A decoder that
 * rejects a message returns -EBADMSG and, when the caller passes a struct emu_oferr,
 * the OpenFlow error a switch answers with.
 */
#ifndef EMU_OFP_H
#define EMU_OFP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EMU_OFP_VERSION 0x04
#define EMU_OFP_HDR_LEN 8
#define EMU_OFP_MAX_MSG 65535u
/* Multipart replies are cut into messages no longer than this (below 64 KiB). */
#define EMU_OFP_MP_LIMIT 65000u
/* An OFPT_ERROR carries at most this many bytes of the offending message. */
#define EMU_OFP_ERR_DATA 64u

enum emu_ofpt {
    EMU_OFPT_HELLO = 0,
    EMU_OFPT_ERROR = 1,
    EMU_OFPT_ECHO_REQUEST = 2,
    EMU_OFPT_ECHO_REPLY = 3,
    EMU_OFPT_EXPERIMENTER = 4,
    EMU_OFPT_FEATURES_REQUEST = 5,
    EMU_OFPT_FEATURES_REPLY = 6,
    EMU_OFPT_GET_CONFIG_REQUEST = 7,
    EMU_OFPT_GET_CONFIG_REPLY = 8,
    EMU_OFPT_SET_CONFIG = 9,
    EMU_OFPT_PACKET_IN = 10,
    EMU_OFPT_FLOW_REMOVED = 11,
    EMU_OFPT_PORT_STATUS = 12,
    EMU_OFPT_PACKET_OUT = 13,
    EMU_OFPT_FLOW_MOD = 14,
    EMU_OFPT_GROUP_MOD = 15,
    EMU_OFPT_PORT_MOD = 16,
    EMU_OFPT_TABLE_MOD = 17,
    EMU_OFPT_MULTIPART_REQUEST = 18,
    EMU_OFPT_MULTIPART_REPLY = 19,
    EMU_OFPT_BARRIER_REQUEST = 20,
    EMU_OFPT_BARRIER_REPLY = 21,
    EMU_OFPT_QUEUE_GET_CONFIG_REQUEST = 22,
    EMU_OFPT_QUEUE_GET_CONFIG_REPLY = 23,
    EMU_OFPT_ROLE_REQUEST = 24,
    EMU_OFPT_ROLE_REPLY = 25,
    EMU_OFPT_GET_ASYNC_REQUEST = 26,
    EMU_OFPT_GET_ASYNC_REPLY = 27,
    EMU_OFPT_SET_ASYNC = 28,
    EMU_OFPT_METER_MOD = 29,
    EMU_OFPT_COUNT = 30,
};

enum emu_ofpmp {
    EMU_OFPMP_DESC = 0,
    EMU_OFPMP_FLOW = 1,
    EMU_OFPMP_AGGREGATE = 2,
    EMU_OFPMP_TABLE = 3,
    EMU_OFPMP_PORT_STATS = 4,
    EMU_OFPMP_QUEUE = 5,
    EMU_OFPMP_GROUP = 6,
    EMU_OFPMP_GROUP_DESC = 7,
    EMU_OFPMP_GROUP_FEATURES = 8,
    EMU_OFPMP_METER = 9,
    EMU_OFPMP_METER_CONFIG = 10,
    EMU_OFPMP_METER_FEATURES = 11,
    EMU_OFPMP_TABLE_FEATURES = 12,
    EMU_OFPMP_PORT_DESC = 13,
    EMU_OFPMP_EXPERIMENTER = 0xffff,
};
#define EMU_OFPMPF_MORE 0x0001 /* REQ_MORE and REPLY_MORE share the bit */

/* Error types and the codes the emulator uses. */
enum emu_ofpet {
    EMU_OFPET_HELLO_FAILED = 0,
    EMU_OFPET_BAD_REQUEST = 1,
    EMU_OFPET_BAD_ACTION = 2,
    EMU_OFPET_BAD_INSTRUCTION = 3,
    EMU_OFPET_BAD_MATCH = 4,
    EMU_OFPET_FLOW_MOD_FAILED = 5,
    EMU_OFPET_GROUP_MOD_FAILED = 6,
    EMU_OFPET_PORT_MOD_FAILED = 7,
    EMU_OFPET_TABLE_MOD_FAILED = 8,
    EMU_OFPET_QUEUE_OP_FAILED = 9,
    EMU_OFPET_SWITCH_CONFIG_FAILED = 10,
    EMU_OFPET_ROLE_REQUEST_FAILED = 11,
};
#define EMU_OFPHFC_INCOMPATIBLE 0
#define EMU_OFPBRC_BAD_VERSION 0
#define EMU_OFPBRC_BAD_TYPE 1
#define EMU_OFPBRC_BAD_MULTIPART 2
#define EMU_OFPBRC_BAD_EXPERIMENTER 3
#define EMU_OFPBRC_BAD_LEN 6
#define EMU_OFPBRC_BUFFER_EMPTY 7
#define EMU_OFPBRC_BUFFER_UNKNOWN 8
#define EMU_OFPBRC_BAD_TABLE_ID 9
#define EMU_OFPBRC_BAD_PORT 11
#define EMU_OFPBAC_BAD_TYPE 0
#define EMU_OFPBAC_BAD_LEN 1
#define EMU_OFPBAC_BAD_OUT_PORT 4
#define EMU_OFPBAC_BAD_OUT_GROUP 9
#define EMU_OFPBIC_UNKNOWN_INST 0
#define EMU_OFPBIC_BAD_TABLE_ID 2
#define EMU_OFPBIC_BAD_LEN 7
#define EMU_OFPBMC_BAD_TYPE 0
#define EMU_OFPBMC_BAD_LEN 1
#define EMU_OFPBMC_BAD_WILDCARDS 5
#define EMU_OFPBMC_BAD_FIELD 6
#define EMU_OFPBMC_BAD_VALUE 7
#define EMU_OFPBMC_BAD_MASK 8
#define EMU_OFPBMC_BAD_PREREQ 9
#define EMU_OFPBMC_DUP_FIELD 10
#define EMU_OFPFMFC_TABLE_FULL 1
#define EMU_OFPFMFC_BAD_TABLE_ID 2
#define EMU_OFPFMFC_OVERLAP 3
#define EMU_OFPFMFC_BAD_COMMAND 6
#define EMU_OFPFMFC_BAD_FLAGS 7
#define EMU_OFPPMFC_BAD_PORT 0
#define EMU_OFPPMFC_BAD_HW_ADDR 1
#define EMU_OFPTMFC_BAD_TABLE 0
#define EMU_OFPQOFC_BAD_PORT 0
#define EMU_OFPSCFC_BAD_FLAGS 0
#define EMU_OFPRRFC_BAD_ROLE 2

/* Reserved ports, groups and tables. */
#define EMU_OFPP_MAX 0xffffff00u
#define EMU_OFPP_IN_PORT 0xfffffff8u
#define EMU_OFPP_CONTROLLER 0xfffffffdu
#define EMU_OFPP_LOCAL 0xfffffffeu
#define EMU_OFPP_ANY 0xffffffffu
#define EMU_OFPG_MAX 0xffffff00u
#define EMU_OFPG_ANY 0xffffffffu
#define EMU_OFPTT_ALL 0xff
#define EMU_OFP_NO_BUFFER 0xffffffffu
#define EMU_OFPCML_NO_BUFFER 0xffff

enum emu_ofpfc {
    EMU_OFPFC_ADD = 0,
    EMU_OFPFC_MODIFY = 1,
    EMU_OFPFC_MODIFY_STRICT = 2,
    EMU_OFPFC_DELETE = 3,
    EMU_OFPFC_DELETE_STRICT = 4,
};
#define EMU_OFPFF_SEND_FLOW_REM 0x0001
#define EMU_OFPFF_CHECK_OVERLAP 0x0002
#define EMU_OFPFF_RESET_COUNTS 0x0004
#define EMU_OFPFF_ALL 0x001f

#define EMU_OFPPC_PORT_DOWN 0x01
#define EMU_OFPPC_ALL 0x65 /* PORT_DOWN | NO_RECV | NO_FWD | NO_PACKET_IN */
#define EMU_OFPPS_LINK_DOWN 0x01
#define EMU_OFPPS_LIVE 0x04
#define EMU_OFPPF_1GB_FD 0x0020
#define EMU_OFPPF_10GB_FD 0x0040
#define EMU_OFPPF_COPPER 0x0800
#define EMU_OFPPR_ADD 0
#define EMU_OFPPR_DELETE 1
#define EMU_OFPPR_MODIFY 2

#define EMU_OFPC_FLOW_STATS 0x01
#define EMU_OFPC_TABLE_STATS 0x02
#define EMU_OFPC_PORT_STATS 0x04

#define EMU_OFPR_NO_MATCH 0
#define EMU_OFPRR_IDLE_TIMEOUT 0
#define EMU_OFPRR_HARD_TIMEOUT 1
#define EMU_OFPRR_DELETE 2

#define EMU_OFPIT_GOTO_TABLE 1
#define EMU_OFPIT_WRITE_METADATA 2
#define EMU_OFPIT_WRITE_ACTIONS 3
#define EMU_OFPIT_APPLY_ACTIONS 4
#define EMU_OFPIT_CLEAR_ACTIONS 5
#define EMU_OFPIT_METER 6
#define EMU_OFPIT_EXPERIMENTER 0xffff
#define EMU_OFPAT_OUTPUT 0
#define EMU_OFPAT_GROUP 22
#define EMU_OFPAT_SET_FIELD 25
#define EMU_OFPAT_EXPERIMENTER 0xffff

#define EMU_OFPHET_VERSIONBITMAP 1
#define EMU_OFPCR_ROLE_NOCHANGE 0
#define EMU_OFPCR_ROLE_SLAVE 3
#define EMU_OFPC_FRAG_MASK 0x0003

/* The OpenFlow error a switch sends back: never mixed into errno values. */
struct emu_oferr {
    uint16_t type;
    uint16_t code;
};

/* ---- writer ---------------------------------------------------------------------- */

struct emu_wr {
    uint8_t *buf;
    size_t cap;
    size_t len;
    bool overflow; /* a put did not fit: the content is unusable */
};

void emu_wr_init(struct emu_wr *w, uint8_t *buf, size_t cap);
void emu_wr_u8(struct emu_wr *w, uint8_t v);
void emu_wr_u16(struct emu_wr *w, uint16_t v);
void emu_wr_u32(struct emu_wr *w, uint32_t v);
void emu_wr_u64(struct emu_wr *w, uint64_t v);
void emu_wr_bytes(struct emu_wr *w, const void *p, size_t n);
void emu_wr_zero(struct emu_wr *w, size_t n);
/* Pad with zeros from `start` up to the next multiple of 8. */
void emu_wr_pad8(struct emu_wr *w, size_t start);
/* Starts a message; returns its offset for emu_wr_msg_end(). */
size_t emu_wr_msg_begin(struct emu_wr *w, uint8_t type, uint32_t xid);
/* Patches the header length. Returns 0, or -EMSGSIZE on overflow or > 65535 bytes. */
int emu_wr_msg_end(struct emu_wr *w, size_t start);
void emu_wr_patch_u16(struct emu_wr *w, size_t off, uint16_t v);

/* ---- reader ---------------------------------------------------------------------- */

struct emu_rd {
    const uint8_t *p;
    size_t len;
    size_t off;
    bool bad; /* a get ran past the end: values read are zero */
};

void emu_rd_init(struct emu_rd *r, const uint8_t *p, size_t len);
uint8_t emu_rd_u8(struct emu_rd *r);
uint16_t emu_rd_u16(struct emu_rd *r);
uint32_t emu_rd_u32(struct emu_rd *r);
uint64_t emu_rd_u64(struct emu_rd *r);
/* Returns a view of the next n bytes, or NULL (and marks bad) when short. */
const uint8_t *emu_rd_view(struct emu_rd *r, size_t n);
void emu_rd_skip(struct emu_rd *r, size_t n);
size_t emu_rd_left(const struct emu_rd *r);

uint16_t emu_get16(const uint8_t *p);
uint32_t emu_get32(const uint8_t *p);
uint64_t emu_get64(const uint8_t *p);
void emu_put16(uint8_t *p, uint16_t v);
void emu_put32(uint8_t *p, uint32_t v);
void emu_put64(uint8_t *p, uint64_t v);

/* ---- messages -------------------------------------------------------------------- */

struct emu_ofp_hdr {
    uint8_t version;
    uint8_t type;
    uint16_t length;
    uint32_t xid;
};

/* Reads the header of the message at buf (avail >= 8). -EBADMSG if length < 8. */
int emu_ofp_parse_hdr(const uint8_t *buf, size_t avail, struct emu_ofp_hdr *h);
/* Message type name ("FLOW_MOD"), "UNKNOWN" beyond the table. */
const char *emu_ofp_type_name(uint8_t type);

/* HELLO with one version-bitmap element holding `bitmap` (bit n = version n). */
int emu_ofp_enc_hello(struct emu_wr *w, uint32_t xid, uint32_t bitmap);
/* has_bitmap is false when the peer sent no bitmap element; bitmap is then 0. */
int emu_ofp_dec_hello(const uint8_t *msg, size_t len, bool *has_bitmap, uint32_t *bitmap);

struct emu_ofp_error {
    uint16_t type;
    uint16_t code;
    const uint8_t *data;
    size_t data_len;
};
/* data is cut to EMU_OFP_ERR_DATA bytes, as the spec asks ("at least 64 bytes"). */
int emu_ofp_enc_error(struct emu_wr *w, uint32_t xid, uint16_t type, uint16_t code,
                      const uint8_t *data, size_t data_len);
int emu_ofp_dec_error(const uint8_t *msg, size_t len, struct emu_ofp_error *e);

/* ECHO_REQUEST / ECHO_REPLY / BARRIER_* and other header-plus-opaque-body messages. */
int emu_ofp_enc_simple(struct emu_wr *w, uint8_t type, uint32_t xid, const uint8_t *body,
                       size_t body_len);

struct emu_ofp_features {
    uint64_t dpid;
    uint32_t n_buffers;
    uint8_t n_tables;
    uint8_t aux_id;
    uint32_t capabilities;
};
int emu_ofp_enc_features_reply(struct emu_wr *w, uint32_t xid,
                               const struct emu_ofp_features *f);
int emu_ofp_dec_features_reply(const uint8_t *msg, size_t len, struct emu_ofp_features *f);

struct emu_ofp_config {
    uint16_t flags;
    uint16_t miss_send_len;
};
/* type is GET_CONFIG_REPLY or SET_CONFIG (same body). */
int emu_ofp_enc_config(struct emu_wr *w, uint8_t type, uint32_t xid,
                       const struct emu_ofp_config *c);
int emu_ofp_dec_config(const uint8_t *msg, size_t len, struct emu_ofp_config *c,
                       struct emu_oferr *err);

struct emu_ofp_port {
    uint32_t port_no;
    uint8_t hw_addr[6];
    char name[16]; /* NUL-terminated on decode */
    uint32_t config;
    uint32_t state;
    uint32_t curr;
    uint32_t advertised;
    uint32_t supported;
    uint32_t peer;
    uint32_t curr_speed; /* kbps */
    uint32_t max_speed;
};
#define EMU_OFP_PORT_LEN 64
void emu_ofp_enc_port(struct emu_wr *w, const struct emu_ofp_port *p);
int emu_ofp_dec_port(struct emu_rd *r, struct emu_ofp_port *p);
int emu_ofp_enc_port_status(struct emu_wr *w, uint32_t xid, uint8_t reason,
                            const struct emu_ofp_port *p);
int emu_ofp_dec_port_status(const uint8_t *msg, size_t len, uint8_t *reason,
                            struct emu_ofp_port *p);

struct emu_ofp_port_mod {
    uint32_t port_no;
    uint8_t hw_addr[6];
    uint32_t config;
    uint32_t mask;
    uint32_t advertise;
};
int emu_ofp_enc_port_mod(struct emu_wr *w, uint32_t xid, const struct emu_ofp_port_mod *pm);
int emu_ofp_dec_port_mod(const uint8_t *msg, size_t len, struct emu_ofp_port_mod *pm,
                         struct emu_oferr *err);

/* ofp_match of type OXM: writes header, TLVs and the padding to 8 bytes. */
void emu_ofp_enc_match(struct emu_wr *w, const uint8_t *oxm, size_t oxm_len);
/* Reads an ofp_match; *oxm views its TLVs (not yet validated, see emu_oxm.h). */
int emu_ofp_dec_match(struct emu_rd *r, const uint8_t **oxm, size_t *oxm_len,
                      struct emu_oferr *err);

struct emu_ofp_flow_mod {
    uint64_t cookie;
    uint64_t cookie_mask;
    uint8_t table_id;
    uint8_t command;
    uint16_t idle_timeout;
    uint16_t hard_timeout;
    uint16_t priority;
    uint32_t buffer_id;
    uint32_t out_port;
    uint32_t out_group;
    uint16_t flags;
    const uint8_t *oxm;
    size_t oxm_len;
    const uint8_t *instr;
    size_t instr_len;
};
int emu_ofp_enc_flow_mod(struct emu_wr *w, uint32_t xid, const struct emu_ofp_flow_mod *fm);
int emu_ofp_dec_flow_mod(const uint8_t *msg, size_t len, struct emu_ofp_flow_mod *fm,
                         struct emu_oferr *err);

struct emu_ofp_flow_removed {
    uint64_t cookie;
    uint16_t priority;
    uint8_t reason;
    uint8_t table_id;
    uint32_t duration_sec;
    uint32_t duration_nsec;
    uint16_t idle_timeout;
    uint16_t hard_timeout;
    uint64_t packet_count;
    uint64_t byte_count;
    const uint8_t *oxm;
    size_t oxm_len;
};
int emu_ofp_enc_flow_removed(struct emu_wr *w, uint32_t xid,
                             const struct emu_ofp_flow_removed *fr);
int emu_ofp_dec_flow_removed(const uint8_t *msg, size_t len, struct emu_ofp_flow_removed *fr);

struct emu_ofp_packet_in {
    uint32_t buffer_id;
    uint16_t total_len;
    uint8_t reason;
    uint8_t table_id;
    uint64_t cookie;
    uint32_t in_port; /* the match carries only OXM in_port */
    const uint8_t *data;
    size_t data_len;
};
int emu_ofp_enc_packet_in(struct emu_wr *w, uint32_t xid, const struct emu_ofp_packet_in *pi);
int emu_ofp_dec_packet_in(const uint8_t *msg, size_t len, struct emu_ofp_packet_in *pi);

struct emu_ofp_packet_out {
    uint32_t buffer_id;
    uint32_t in_port;
    const uint8_t *actions;
    size_t actions_len;
    const uint8_t *data;
    size_t data_len;
};
int emu_ofp_enc_packet_out(struct emu_wr *w, uint32_t xid,
                           const struct emu_ofp_packet_out *po);
int emu_ofp_dec_packet_out(const uint8_t *msg, size_t len, struct emu_ofp_packet_out *po,
                           struct emu_oferr *err);

struct emu_ofp_role {
    uint32_t role;
    uint64_t generation_id;
};
/* type is ROLE_REQUEST or ROLE_REPLY. */
int emu_ofp_enc_role(struct emu_wr *w, uint8_t type, uint32_t xid,
                     const struct emu_ofp_role *ro);
int emu_ofp_dec_role(const uint8_t *msg, size_t len, struct emu_ofp_role *ro,
                     struct emu_oferr *err);

struct emu_ofp_async {
    uint32_t packet_in_mask[2];
    uint32_t port_status_mask[2];
    uint32_t flow_removed_mask[2];
};
/* type is GET_ASYNC_REPLY or SET_ASYNC. */
int emu_ofp_enc_async(struct emu_wr *w, uint8_t type, uint32_t xid,
                      const struct emu_ofp_async *a);
int emu_ofp_dec_async(const uint8_t *msg, size_t len, struct emu_ofp_async *a,
                      struct emu_oferr *err);

/* ---- multipart ------------------------------------------------------------------- */

struct emu_ofp_mp {
    uint16_t type;
    uint16_t flags;
    const uint8_t *body;
    size_t body_len;
};
/* Starts a MULTIPART_REQUEST/REPLY (msg_type); finish with emu_wr_msg_end(). */
size_t emu_ofp_enc_mp_begin(struct emu_wr *w, uint8_t msg_type, uint32_t xid, uint16_t mp_type,
                            uint16_t flags);
int emu_ofp_dec_mp(const uint8_t *msg, size_t len, struct emu_ofp_mp *mp,
                   struct emu_oferr *err);

struct emu_ofp_desc {
    char mfr[256];
    char hw[256];
    char sw[256];
    char serial[32];
    char dp[256];
};
#define EMU_OFP_DESC_LEN 1056
void emu_ofp_enc_desc(struct emu_wr *w, const struct emu_ofp_desc *d);
int emu_ofp_dec_desc(const uint8_t *body, size_t len, struct emu_ofp_desc *d);

/* FLOW and AGGREGATE requests share this body. */
struct emu_ofp_flow_stats_req {
    uint8_t table_id;
    uint32_t out_port;
    uint32_t out_group;
    uint64_t cookie;
    uint64_t cookie_mask;
    const uint8_t *oxm;
    size_t oxm_len;
};
void emu_ofp_enc_flow_stats_req(struct emu_wr *w, const struct emu_ofp_flow_stats_req *q);
int emu_ofp_dec_flow_stats_req(const uint8_t *body, size_t len,
                               struct emu_ofp_flow_stats_req *q, struct emu_oferr *err);

struct emu_ofp_flow_stats {
    uint8_t table_id;
    uint32_t duration_sec;
    uint32_t duration_nsec;
    uint16_t priority;
    uint16_t idle_timeout;
    uint16_t hard_timeout;
    uint16_t flags;
    uint64_t cookie;
    uint64_t packet_count;
    uint64_t byte_count;
    const uint8_t *oxm;
    size_t oxm_len;
    const uint8_t *instr;
    size_t instr_len;
};
/* Encoded size of one entry, to decide where a reply is cut. */
size_t emu_ofp_flow_stats_len(size_t oxm_len, size_t instr_len);
void emu_ofp_enc_flow_stats(struct emu_wr *w, const struct emu_ofp_flow_stats *fs);
/* Reads one entry from a FLOW reply body. */
int emu_ofp_dec_flow_stats(struct emu_rd *r, struct emu_ofp_flow_stats *fs);

struct emu_ofp_aggregate {
    uint64_t packet_count;
    uint64_t byte_count;
    uint32_t flow_count;
};
void emu_ofp_enc_aggregate(struct emu_wr *w, const struct emu_ofp_aggregate *a);
int emu_ofp_dec_aggregate(const uint8_t *body, size_t len, struct emu_ofp_aggregate *a);

struct emu_ofp_table_stats {
    uint8_t table_id;
    uint32_t active_count;
    uint64_t lookup_count;
    uint64_t matched_count;
};
#define EMU_OFP_TABLE_STATS_LEN 24
void emu_ofp_enc_table_stats(struct emu_wr *w, const struct emu_ofp_table_stats *t);
int emu_ofp_dec_table_stats(struct emu_rd *r, struct emu_ofp_table_stats *t);

struct emu_ofp_port_stats {
    uint32_t port_no;
    uint64_t rx_packets, tx_packets, rx_bytes, tx_bytes;
    uint64_t rx_dropped, tx_dropped, rx_errors, tx_errors;
    uint64_t rx_frame_err, rx_over_err, rx_crc_err, collisions;
    uint32_t duration_sec;
    uint32_t duration_nsec;
};
#define EMU_OFP_PORT_STATS_LEN 112
void emu_ofp_enc_port_stats(struct emu_wr *w, const struct emu_ofp_port_stats *s);
int emu_ofp_dec_port_stats(struct emu_rd *r, struct emu_ofp_port_stats *s);
/* PORT_STATS and QUEUE_GET_CONFIG requests: a port number and padding. */
int emu_ofp_dec_port_req(const uint8_t *body, size_t len, uint32_t *port_no,
                         struct emu_oferr *err);

/* ---- instructions and actions ----------------------------------------------------- */

struct emu_ofp_limits {
    uint8_t n_tables;
    uint32_t n_ports;
};
/* Checks instruction and action framing and references (goto forward and existing,
 * output to an existing or reserved port, no groups exist in the emulator). */
int emu_ofp_check_instructions(const uint8_t *p, size_t len, uint8_t table_id,
                               const struct emu_ofp_limits *lim, struct emu_oferr *err);
int emu_ofp_check_actions(const uint8_t *p, size_t len, const struct emu_ofp_limits *lim,
                          struct emu_oferr *err);
/* True when the (already checked) instructions output to out_port (unless ANY) and to
 * out_group (unless ANY): the out_port/out_group filter of delete and flow stats. */
bool emu_ofp_instr_outputs(const uint8_t *p, size_t len, uint32_t out_port,
                           uint32_t out_group);
/* Appends an APPLY_ACTIONS instruction with one OUTPUT action. */
void emu_ofp_enc_instr_output(struct emu_wr *w, uint32_t port);

#endif /* EMU_OFP_H */
