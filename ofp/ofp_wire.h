/*
 * ofp_wire: OpenFlow 1.3 (wire version 0x04) constants and on-the-wire
 * layouts, as defined by the OpenFlow Switch Specification 1.3.5.
 *
 * Everything here is a description of bytes: the packed structs carry
 * network byte order fields and are only ever laid over buffers whose length
 * has been checked first (alignment 1, so any offset is fine). The rest of
 * ofp/ converts them into the version-independent structs of ofp_*.h.
 *
 * Wire structs are named ofp13_* so that the plain ofp_* names stay free for
 * the decoded forms (struct ofp_match, struct ofp_port, ...).
 */
#ifndef OFCD_OFP_WIRE_H
#define OFCD_OFP_WIRE_H

#include <stdint.h>

#define OFP13_PACKED __attribute__((packed))
#define OFP13_ASSERT_SIZE(s, n) _Static_assert(sizeof(struct s) == (n), #s " is " #n " bytes")

#define OFP13_VERSION 0x04
#define OFP13_HEADER_LEN 8
#define OFP13_MAX_MSG_LEN 65535u
#define OFP13_TCP_PORT 6653

/* ---- message types ---------------------------------------------------- */

enum ofp13_type {
    OFPT_HELLO = 0,
    OFPT_ERROR = 1,
    OFPT_ECHO_REQUEST = 2,
    OFPT_ECHO_REPLY = 3,
    OFPT_EXPERIMENTER = 4,
    OFPT_FEATURES_REQUEST = 5,
    OFPT_FEATURES_REPLY = 6,
    OFPT_GET_CONFIG_REQUEST = 7,
    OFPT_GET_CONFIG_REPLY = 8,
    OFPT_SET_CONFIG = 9,
    OFPT_PACKET_IN = 10,
    OFPT_FLOW_REMOVED = 11,
    OFPT_PORT_STATUS = 12,
    OFPT_PACKET_OUT = 13,
    OFPT_FLOW_MOD = 14,
    OFPT_GROUP_MOD = 15,
    OFPT_PORT_MOD = 16,
    OFPT_TABLE_MOD = 17,
    OFPT_MULTIPART_REQUEST = 18,
    OFPT_MULTIPART_REPLY = 19,
    OFPT_BARRIER_REQUEST = 20,
    OFPT_BARRIER_REPLY = 21,
    OFPT_QUEUE_GET_CONFIG_REQUEST = 22,
    OFPT_QUEUE_GET_CONFIG_REPLY = 23,
    OFPT_ROLE_REQUEST = 24,
    OFPT_ROLE_REPLY = 25,
    OFPT_GET_ASYNC_REQUEST = 26,
    OFPT_GET_ASYNC_REPLY = 27,
    OFPT_SET_ASYNC = 28,
    OFPT_METER_MOD = 29,
};
#define OFPT_COUNT 30

/* ---- reserved numbers --------------------------------------------------- */

/* Ports */
#define OFPP_MAX 0xffffff00u
#define OFPP_IN_PORT 0xfffffff8u
#define OFPP_TABLE 0xfffffff9u
#define OFPP_NORMAL 0xfffffffau
#define OFPP_FLOOD 0xfffffffbu
#define OFPP_ALL 0xfffffffcu
#define OFPP_CONTROLLER 0xfffffffdu
#define OFPP_LOCAL 0xfffffffeu
#define OFPP_ANY 0xffffffffu

/* Tables */
#define OFPTT_MAX 0xfe
#define OFPTT_ALL 0xff

/* Groups */
#define OFPG_MAX 0xffffff00u
#define OFPG_ALL 0xfffffffcu
#define OFPG_ANY 0xffffffffu

/* Meters */
#define OFPM_MAX 0xffff0000u
#define OFPM_SLOWPATH 0xfffffffdu
#define OFPM_CONTROLLER 0xfffffffeu
#define OFPM_ALL 0xffffffffu

/* Queues */
#define OFPQ_ALL 0xffffffffu

#define OFP_NO_BUFFER 0xffffffffu
#define OFPCML_MAX 0xffe5        /* largest max_len that still buffers */
#define OFPCML_NO_BUFFER 0xffff  /* send the whole packet, do not buffer */

#define OFP_ETH_ALEN 6
#define OFP_MAX_PORT_NAME_LEN 16
#define OFP_MAX_TABLE_NAME_LEN 32
#define DESC_STR_LEN 256
#define SERIAL_NUM_LEN 32

/* ---- header, hello ------------------------------------------------------ */

struct ofp13_header {
    uint8_t version;
    uint8_t type;
    uint16_t length;          /* including this header */
    uint32_t xid;
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_header, 8);

enum ofp13_hello_elem_type {
    OFPHET_VERSIONBITMAP = 1,
};

struct ofp13_hello_elem_header {
    uint16_t type;
    uint16_t length;          /* excluding the padding to 8 bytes */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_hello_elem_header, 4);

/* ---- errors ------------------------------------------------------------- */

struct ofp13_error_msg {
    struct ofp13_header header;
    uint16_t type;
    uint16_t code;
    /* data follows */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_error_msg, 12);

struct ofp13_error_experimenter_msg {
    struct ofp13_header header;
    uint16_t type;            /* OFPET_EXPERIMENTER */
    uint16_t exp_type;
    uint32_t experimenter;
    /* data follows */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_error_experimenter_msg, 16);

enum ofp13_error_type {
    OFPET_HELLO_FAILED = 0,
    OFPET_BAD_REQUEST = 1,
    OFPET_BAD_ACTION = 2,
    OFPET_BAD_INSTRUCTION = 3,
    OFPET_BAD_MATCH = 4,
    OFPET_FLOW_MOD_FAILED = 5,
    OFPET_GROUP_MOD_FAILED = 6,
    OFPET_PORT_MOD_FAILED = 7,
    OFPET_TABLE_MOD_FAILED = 8,
    OFPET_QUEUE_OP_FAILED = 9,
    OFPET_SWITCH_CONFIG_FAILED = 10,
    OFPET_ROLE_REQUEST_FAILED = 11,
    OFPET_METER_MOD_FAILED = 12,
    OFPET_TABLE_FEATURES_FAILED = 13,
    OFPET_EXPERIMENTER = 0xffff,
};

enum ofp13_hello_failed_code {
    OFPHFC_INCOMPATIBLE = 0,
    OFPHFC_EPERM = 1,
};

enum ofp13_bad_request_code {
    OFPBRC_BAD_VERSION = 0,
    OFPBRC_BAD_TYPE = 1,
    OFPBRC_BAD_MULTIPART = 2,
    OFPBRC_BAD_EXPERIMENTER = 3,
    OFPBRC_BAD_EXP_TYPE = 4,
    OFPBRC_EPERM = 5,
    OFPBRC_BAD_LEN = 6,
    OFPBRC_BUFFER_EMPTY = 7,
    OFPBRC_BUFFER_UNKNOWN = 8,
    OFPBRC_BAD_TABLE_ID = 9,
    OFPBRC_IS_SLAVE = 10,
    OFPBRC_BAD_PORT = 11,
    OFPBRC_BAD_PACKET = 12,
    OFPBRC_MULTIPART_BUFFER_OVERFLOW = 13,
};

enum ofp13_bad_action_code {
    OFPBAC_BAD_TYPE = 0,
    OFPBAC_BAD_LEN = 1,
    OFPBAC_BAD_EXPERIMENTER = 2,
    OFPBAC_BAD_EXP_TYPE = 3,
    OFPBAC_BAD_OUT_PORT = 4,
    OFPBAC_BAD_ARGUMENT = 5,
    OFPBAC_EPERM = 6,
    OFPBAC_TOO_MANY = 7,
    OFPBAC_BAD_QUEUE = 8,
    OFPBAC_BAD_OUT_GROUP = 9,
    OFPBAC_MATCH_INCONSISTENT = 10,
    OFPBAC_UNSUPPORTED_ORDER = 11,
    OFPBAC_BAD_TAG = 12,
    OFPBAC_BAD_SET_TYPE = 13,
    OFPBAC_BAD_SET_LEN = 14,
    OFPBAC_BAD_SET_ARGUMENT = 15,
};

enum ofp13_bad_instruction_code {
    OFPBIC_UNKNOWN_INST = 0,
    OFPBIC_UNSUP_INST = 1,
    OFPBIC_BAD_TABLE_ID = 2,
    OFPBIC_UNSUP_METADATA = 3,
    OFPBIC_UNSUP_METADATA_MASK = 4,
    OFPBIC_BAD_EXPERIMENTER = 5,
    OFPBIC_BAD_EXP_TYPE = 6,
    OFPBIC_BAD_LEN = 7,
    OFPBIC_EPERM = 8,
};

enum ofp13_bad_match_code {
    OFPBMC_BAD_TYPE = 0,
    OFPBMC_BAD_LEN = 1,
    OFPBMC_BAD_TAG = 2,
    OFPBMC_BAD_DL_ADDR_MASK = 3,
    OFPBMC_BAD_NW_ADDR_MASK = 4,
    OFPBMC_BAD_WILDCARDS = 5,
    OFPBMC_BAD_FIELD = 6,
    OFPBMC_BAD_VALUE = 7,
    OFPBMC_BAD_MASK = 8,
    OFPBMC_BAD_PREREQ = 9,
    OFPBMC_DUP_FIELD = 10,
    OFPBMC_EPERM = 11,
};

enum ofp13_flow_mod_failed_code {
    OFPFMFC_UNKNOWN = 0,
    OFPFMFC_TABLE_FULL = 1,
    OFPFMFC_BAD_TABLE_ID = 2,
    OFPFMFC_OVERLAP = 3,
    OFPFMFC_EPERM = 4,
    OFPFMFC_BAD_TIMEOUT = 5,
    OFPFMFC_BAD_COMMAND = 6,
    OFPFMFC_BAD_FLAGS = 7,
};

enum ofp13_group_mod_failed_code {
    OFPGMFC_GROUP_EXISTS = 0,
    OFPGMFC_INVALID_GROUP = 1,
    OFPGMFC_WEIGHT_UNSUPPORTED = 2,
    OFPGMFC_OUT_OF_GROUPS = 3,
    OFPGMFC_OUT_OF_BUCKETS = 4,
    OFPGMFC_CHAINING_UNSUPPORTED = 5,
    OFPGMFC_WATCH_UNSUPPORTED = 6,
    OFPGMFC_LOOP = 7,
    OFPGMFC_UNKNOWN_GROUP = 8,
    OFPGMFC_CHAINED_GROUP = 9,
    OFPGMFC_BAD_TYPE = 10,
    OFPGMFC_BAD_COMMAND = 11,
    OFPGMFC_BAD_BUCKET = 12,
    OFPGMFC_BAD_WATCH = 13,
    OFPGMFC_EPERM = 14,
};

enum ofp13_port_mod_failed_code {
    OFPPMFC_BAD_PORT = 0,
    OFPPMFC_BAD_HW_ADDR = 1,
    OFPPMFC_BAD_CONFIG = 2,
    OFPPMFC_BAD_ADVERTISE = 3,
    OFPPMFC_EPERM = 4,
};

enum ofp13_table_mod_failed_code {
    OFPTMFC_BAD_TABLE = 0,
    OFPTMFC_BAD_CONFIG = 1,
    OFPTMFC_EPERM = 2,
};

enum ofp13_queue_op_failed_code {
    OFPQOFC_BAD_PORT = 0,
    OFPQOFC_BAD_QUEUE = 1,
    OFPQOFC_EPERM = 2,
};

enum ofp13_switch_config_failed_code {
    OFPSCFC_BAD_FLAGS = 0,
    OFPSCFC_BAD_LEN = 1,
    OFPSCFC_EPERM = 2,
};

enum ofp13_role_request_failed_code {
    OFPRRFC_STALE = 0,
    OFPRRFC_UNSUP = 1,
    OFPRRFC_BAD_ROLE = 2,
};

enum ofp13_meter_mod_failed_code {
    OFPMMFC_UNKNOWN = 0,
    OFPMMFC_METER_EXISTS = 1,
    OFPMMFC_INVALID_METER = 2,
    OFPMMFC_UNKNOWN_METER = 3,
    OFPMMFC_BAD_COMMAND = 4,
    OFPMMFC_BAD_FLAGS = 5,
    OFPMMFC_BAD_RATE = 6,
    OFPMMFC_BAD_BURST = 7,
    OFPMMFC_BAD_BAND = 8,
    OFPMMFC_BAD_BAND_VALUE = 9,
    OFPMMFC_OUT_OF_METERS = 10,
    OFPMMFC_OUT_OF_BANDS = 11,
};

enum ofp13_table_features_failed_code {
    OFPTFFC_BAD_TABLE = 0,
    OFPTFFC_BAD_METADATA = 1,
    OFPTFFC_BAD_TYPE = 2,
    OFPTFFC_BAD_LEN = 3,
    OFPTFFC_BAD_ARGUMENT = 4,
    OFPTFFC_EPERM = 5,
};

/* ---- experimenter ------------------------------------------------------- */

struct ofp13_experimenter_header {
    struct ofp13_header header;
    uint32_t experimenter;
    uint32_t exp_type;
    /* data follows */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_experimenter_header, 16);

/* ---- switch features and configuration --------------------------------- */

struct ofp13_switch_features {
    struct ofp13_header header;
    uint64_t datapath_id;
    uint32_t n_buffers;
    uint8_t n_tables;
    uint8_t auxiliary_id;
    uint8_t pad[2];
    uint32_t capabilities;
    uint32_t reserved;
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_switch_features, 32);

enum ofp13_capabilities {
    OFPC_FLOW_STATS = 1 << 0,
    OFPC_TABLE_STATS = 1 << 1,
    OFPC_PORT_STATS = 1 << 2,
    OFPC_GROUP_STATS = 1 << 3,
    OFPC_IP_REASM = 1 << 5,
    OFPC_QUEUE_STATS = 1 << 6,
    OFPC_PORT_BLOCKED = 1 << 8,
};

struct ofp13_switch_config {
    struct ofp13_header header;
    uint16_t flags;
    uint16_t miss_send_len;
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_switch_config, 12);

enum ofp13_config_flags {
    OFPC_FRAG_NORMAL = 0,
    OFPC_FRAG_DROP = 1,
    OFPC_FRAG_REASM = 2,
    OFPC_FRAG_MASK = 3,
};

struct ofp13_table_mod {
    struct ofp13_header header;
    uint8_t table_id;
    uint8_t pad[3];
    uint32_t config;
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_table_mod, 16);

#define OFPTC_DEPRECATED_MASK 3u

/* ---- ports -------------------------------------------------------------- */

struct ofp13_port {
    uint32_t port_no;
    uint8_t pad[4];
    uint8_t hw_addr[OFP_ETH_ALEN];
    uint8_t pad2[2];
    char name[OFP_MAX_PORT_NAME_LEN];
    uint32_t config;
    uint32_t state;
    uint32_t curr;
    uint32_t advertised;
    uint32_t supported;
    uint32_t peer;
    uint32_t curr_speed;      /* kbps */
    uint32_t max_speed;       /* kbps */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_port, 64);

enum ofp13_port_config {
    OFPPC_PORT_DOWN = 1 << 0,
    OFPPC_NO_RECV = 1 << 2,
    OFPPC_NO_FWD = 1 << 5,
    OFPPC_NO_PACKET_IN = 1 << 6,
};
#define OFPPC_ALL (OFPPC_PORT_DOWN | OFPPC_NO_RECV | OFPPC_NO_FWD | OFPPC_NO_PACKET_IN)

enum ofp13_port_state {
    OFPPS_LINK_DOWN = 1 << 0,
    OFPPS_BLOCKED = 1 << 1,
    OFPPS_LIVE = 1 << 2,
};

enum ofp13_port_features {
    OFPPF_10MB_HD = 1 << 0,
    OFPPF_10MB_FD = 1 << 1,
    OFPPF_100MB_HD = 1 << 2,
    OFPPF_100MB_FD = 1 << 3,
    OFPPF_1GB_HD = 1 << 4,
    OFPPF_1GB_FD = 1 << 5,
    OFPPF_10GB_FD = 1 << 6,
    OFPPF_40GB_FD = 1 << 7,
    OFPPF_100GB_FD = 1 << 8,
    OFPPF_1TB_FD = 1 << 9,
    OFPPF_OTHER = 1 << 10,
    OFPPF_COPPER = 1 << 11,
    OFPPF_FIBER = 1 << 12,
    OFPPF_AUTONEG = 1 << 13,
    OFPPF_PAUSE = 1 << 14,
    OFPPF_PAUSE_ASYM = 1 << 15,
};
#define OFPPF_ALL 0xffffu

struct ofp13_port_status {
    struct ofp13_header header;
    uint8_t reason;
    uint8_t pad[7];
    struct ofp13_port desc;
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_port_status, 80);

enum ofp13_port_reason {
    OFPPR_ADD = 0,
    OFPPR_DELETE = 1,
    OFPPR_MODIFY = 2,
};

struct ofp13_port_mod {
    struct ofp13_header header;
    uint32_t port_no;
    uint8_t pad[4];
    uint8_t hw_addr[OFP_ETH_ALEN];
    uint8_t pad2[2];
    uint32_t config;
    uint32_t mask;
    uint32_t advertise;
    uint8_t pad3[4];
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_port_mod, 40);

/* ---- match and OXM ------------------------------------------------------ */

struct ofp13_match {
    uint16_t type;            /* OFPMT_OXM */
    uint16_t length;          /* type + length + OXMs, excluding the padding */
    /* OXM TLVs, then zero padding to a multiple of 8 */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_match, 4);

enum ofp13_match_type {
    OFPMT_STANDARD = 0,       /* OpenFlow 1.1 layout, deprecated */
    OFPMT_OXM = 1,
};

enum ofp13_oxm_class {
    OFPXMC_NXM_0 = 0x0000,
    OFPXMC_NXM_1 = 0x0001,
    OFPXMC_OPENFLOW_BASIC = 0x8000,
    OFPXMC_EXPERIMENTER = 0xffff,
};

/* OXM header: class (16) | field (7) | hasmask (1) | length (8). */
#define OFP13_OXM_HEADER(cls, field, hasmask, len)                                         \
    ((uint32_t)(cls) << 16 | (uint32_t)(field) << 9 | (uint32_t)((hasmask) ? 1 : 0) << 8 | \
     (uint32_t)(len))
#define OFP13_OXM_CLASS(h) ((uint16_t)((h) >> 16))
#define OFP13_OXM_FIELD(h) ((uint8_t)(((h) >> 9) & 0x7f))
#define OFP13_OXM_HASMASK(h) (((h) >> 8) & 1)
#define OFP13_OXM_LENGTH(h) ((uint8_t)((h)&0xff))

enum ofp13_oxm_basic_field {
    OFPXMT_OFB_IN_PORT = 0,
    OFPXMT_OFB_IN_PHY_PORT = 1,
    OFPXMT_OFB_METADATA = 2,
    OFPXMT_OFB_ETH_DST = 3,
    OFPXMT_OFB_ETH_SRC = 4,
    OFPXMT_OFB_ETH_TYPE = 5,
    OFPXMT_OFB_VLAN_VID = 6,
    OFPXMT_OFB_VLAN_PCP = 7,
    OFPXMT_OFB_IP_DSCP = 8,
    OFPXMT_OFB_IP_ECN = 9,
    OFPXMT_OFB_IP_PROTO = 10,
    OFPXMT_OFB_IPV4_SRC = 11,
    OFPXMT_OFB_IPV4_DST = 12,
    OFPXMT_OFB_TCP_SRC = 13,
    OFPXMT_OFB_TCP_DST = 14,
    OFPXMT_OFB_UDP_SRC = 15,
    OFPXMT_OFB_UDP_DST = 16,
    OFPXMT_OFB_SCTP_SRC = 17,
    OFPXMT_OFB_SCTP_DST = 18,
    OFPXMT_OFB_ICMPV4_TYPE = 19,
    OFPXMT_OFB_ICMPV4_CODE = 20,
    OFPXMT_OFB_ARP_OP = 21,
    OFPXMT_OFB_ARP_SPA = 22,
    OFPXMT_OFB_ARP_TPA = 23,
    OFPXMT_OFB_ARP_SHA = 24,
    OFPXMT_OFB_ARP_THA = 25,
    OFPXMT_OFB_IPV6_SRC = 26,
    OFPXMT_OFB_IPV6_DST = 27,
    OFPXMT_OFB_IPV6_FLABEL = 28,
    OFPXMT_OFB_ICMPV6_TYPE = 29,
    OFPXMT_OFB_ICMPV6_CODE = 30,
    OFPXMT_OFB_IPV6_ND_TARGET = 31,
    OFPXMT_OFB_IPV6_ND_SLL = 32,
    OFPXMT_OFB_IPV6_ND_TLL = 33,
    OFPXMT_OFB_MPLS_LABEL = 34,
    OFPXMT_OFB_MPLS_TC = 35,
    OFPXMT_OFB_MPLS_BOS = 36,
    OFPXMT_OFB_PBB_ISID = 37,
    OFPXMT_OFB_TUNNEL_ID = 38,
    OFPXMT_OFB_IPV6_EXTHDR = 39,
};
#define OFPXMT_OFB_COUNT 40

#define OFPVID_PRESENT 0x1000
#define OFPVID_NONE 0x0000

enum ofp13_ipv6exthdr_flags {
    OFPIEH_NONEXT = 1 << 0,
    OFPIEH_ESP = 1 << 1,
    OFPIEH_AUTH = 1 << 2,
    OFPIEH_DEST = 1 << 3,
    OFPIEH_FRAG = 1 << 4,
    OFPIEH_ROUTER = 1 << 5,
    OFPIEH_HOP = 1 << 6,
    OFPIEH_UNREP = 1 << 7,
    OFPIEH_UNSEQ = 1 << 8,
};

/* ---- instructions ------------------------------------------------------- */

enum ofp13_instruction_type {
    OFPIT_GOTO_TABLE = 1,
    OFPIT_WRITE_METADATA = 2,
    OFPIT_WRITE_ACTIONS = 3,
    OFPIT_APPLY_ACTIONS = 4,
    OFPIT_CLEAR_ACTIONS = 5,
    OFPIT_METER = 6,
    OFPIT_EXPERIMENTER = 0xffff,
};

struct ofp13_instruction {
    uint16_t type;
    uint16_t len;
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_instruction, 4);

struct ofp13_instruction_goto_table {
    uint16_t type;
    uint16_t len;             /* 8 */
    uint8_t table_id;
    uint8_t pad[3];
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_instruction_goto_table, 8);

struct ofp13_instruction_write_metadata {
    uint16_t type;
    uint16_t len;             /* 24 */
    uint8_t pad[4];
    uint64_t metadata;
    uint64_t metadata_mask;
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_instruction_write_metadata, 24);

/* WRITE_ACTIONS, APPLY_ACTIONS, CLEAR_ACTIONS (no actions follow for CLEAR). */
struct ofp13_instruction_actions {
    uint16_t type;
    uint16_t len;
    uint8_t pad[4];
    /* actions follow */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_instruction_actions, 8);

struct ofp13_instruction_meter {
    uint16_t type;
    uint16_t len;             /* 8 */
    uint32_t meter_id;
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_instruction_meter, 8);

struct ofp13_instruction_experimenter {
    uint16_t type;
    uint16_t len;
    uint32_t experimenter;
    /* data follows */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_instruction_experimenter, 8);

/* ---- actions ------------------------------------------------------------ */

enum ofp13_action_type {
    OFPAT_OUTPUT = 0,
    OFPAT_COPY_TTL_OUT = 11,
    OFPAT_COPY_TTL_IN = 12,
    OFPAT_SET_MPLS_TTL = 15,
    OFPAT_DEC_MPLS_TTL = 16,
    OFPAT_PUSH_VLAN = 17,
    OFPAT_POP_VLAN = 18,
    OFPAT_PUSH_MPLS = 19,
    OFPAT_POP_MPLS = 20,
    OFPAT_SET_QUEUE = 21,
    OFPAT_GROUP = 22,
    OFPAT_SET_NW_TTL = 23,
    OFPAT_DEC_NW_TTL = 24,
    OFPAT_SET_FIELD = 25,
    OFPAT_PUSH_PBB = 26,
    OFPAT_POP_PBB = 27,
    OFPAT_EXPERIMENTER = 0xffff,
};

struct ofp13_action_header {
    uint16_t type;
    uint16_t len;             /* including this header, a multiple of 8 */
    uint8_t pad[4];
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_action_header, 8);

struct ofp13_action_output {
    uint16_t type;
    uint16_t len;             /* 16 */
    uint32_t port;
    uint16_t max_len;
    uint8_t pad[6];
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_action_output, 16);

/* SET_MPLS_TTL and SET_NW_TTL */
struct ofp13_action_ttl {
    uint16_t type;
    uint16_t len;             /* 8 */
    uint8_t ttl;
    uint8_t pad[3];
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_action_ttl, 8);

/* PUSH_VLAN, PUSH_MPLS, PUSH_PBB, POP_MPLS */
struct ofp13_action_ethertype {
    uint16_t type;
    uint16_t len;             /* 8 */
    uint16_t ethertype;
    uint8_t pad[2];
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_action_ethertype, 8);

/* SET_QUEUE (queue_id) and GROUP (group_id) */
struct ofp13_action_u32 {
    uint16_t type;
    uint16_t len;             /* 8 */
    uint32_t value;
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_action_u32, 8);

struct ofp13_action_set_field {
    uint16_t type;
    uint16_t len;             /* 4 + OXM TLV, padded to a multiple of 8 */
    /* OXM TLV follows */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_action_set_field, 4);

struct ofp13_action_experimenter {
    uint16_t type;
    uint16_t len;
    uint32_t experimenter;
    /* data follows */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_action_experimenter, 8);

/* ---- packet-in/out, flow-removed ---------------------------------------- */

struct ofp13_packet_in {
    struct ofp13_header header;
    uint32_t buffer_id;
    uint16_t total_len;
    uint8_t reason;
    uint8_t table_id;
    uint64_t cookie;
    /* ofp13_match (padded), 2 bytes of padding, then the frame */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_packet_in, 24);

enum ofp13_packet_in_reason {
    OFPR_NO_MATCH = 0,
    OFPR_ACTION = 1,
    OFPR_INVALID_TTL = 2,
};

struct ofp13_packet_out {
    struct ofp13_header header;
    uint32_t buffer_id;
    uint32_t in_port;
    uint16_t actions_len;
    uint8_t pad[6];
    /* actions, then the frame */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_packet_out, 24);

struct ofp13_flow_removed {
    struct ofp13_header header;
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
    /* ofp13_match (padded) */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_flow_removed, 48);

enum ofp13_flow_removed_reason {
    OFPRR_IDLE_TIMEOUT = 0,
    OFPRR_HARD_TIMEOUT = 1,
    OFPRR_DELETE = 2,
    OFPRR_GROUP_DELETE = 3,
};

/* ---- flow-mod ----------------------------------------------------------- */

struct ofp13_flow_mod {
    struct ofp13_header header;
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
    uint8_t pad[2];
    /* ofp13_match (padded), then instructions */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_flow_mod, 48);

enum ofp13_flow_mod_command {
    OFPFC_ADD = 0,
    OFPFC_MODIFY = 1,
    OFPFC_MODIFY_STRICT = 2,
    OFPFC_DELETE = 3,
    OFPFC_DELETE_STRICT = 4,
};

enum ofp13_flow_mod_flags {
    OFPFF_SEND_FLOW_REM = 1 << 0,
    OFPFF_CHECK_OVERLAP = 1 << 1,
    OFPFF_RESET_COUNTS = 1 << 2,
    OFPFF_NO_PKT_COUNTS = 1 << 3,
    OFPFF_NO_BYT_COUNTS = 1 << 4,
};
#define OFPFF_ALL 0x1fu

#define OFP_DEFAULT_PRIORITY 0x8000

/* ---- groups ------------------------------------------------------------- */

struct ofp13_group_mod {
    struct ofp13_header header;
    uint16_t command;
    uint8_t type;
    uint8_t pad;
    uint32_t group_id;
    /* buckets follow */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_group_mod, 16);

enum ofp13_group_mod_command {
    OFPGC_ADD = 0,
    OFPGC_MODIFY = 1,
    OFPGC_DELETE = 2,
};

enum ofp13_group_type {
    OFPGT_ALL = 0,
    OFPGT_SELECT = 1,
    OFPGT_INDIRECT = 2,
    OFPGT_FF = 3,
};

struct ofp13_bucket {
    uint16_t len;             /* including this header and the actions */
    uint16_t weight;
    uint32_t watch_port;
    uint32_t watch_group;
    uint8_t pad[4];
    /* actions follow */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_bucket, 16);

/* ---- meters ------------------------------------------------------------- */

struct ofp13_meter_mod {
    struct ofp13_header header;
    uint16_t command;
    uint16_t flags;
    uint32_t meter_id;
    /* bands follow */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_meter_mod, 16);

enum ofp13_meter_mod_command {
    OFPMC_ADD = 0,
    OFPMC_MODIFY = 1,
    OFPMC_DELETE = 2,
};

enum ofp13_meter_flags {
    OFPMF_KBPS = 1 << 0,
    OFPMF_PKTPS = 1 << 1,
    OFPMF_BURST = 1 << 2,
    OFPMF_STATS = 1 << 3,
};
#define OFPMF_ALL 0xfu

enum ofp13_meter_band_type {
    OFPMBT_DROP = 1,
    OFPMBT_DSCP_REMARK = 2,
    OFPMBT_EXPERIMENTER = 0xffff,
};

/* All three band kinds share this 16-byte layout: the last 4 bytes are
 * padding (drop), prec_level + 3 pad (dscp_remark) or the experimenter id. */
struct ofp13_meter_band {
    uint16_t type;
    uint16_t len;
    uint32_t rate;
    uint32_t burst_size;
    union {
        struct {
            uint8_t prec_level;
            uint8_t pad[3];
        } OFP13_PACKED dscp;
        uint32_t experimenter;
        uint8_t pad[4];
    } u;
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_meter_band, 16);

/* ---- multipart ---------------------------------------------------------- */

struct ofp13_multipart {
    struct ofp13_header header;
    uint16_t type;
    uint16_t flags;
    uint8_t pad[4];
    /* body follows */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_multipart, 16);

enum ofp13_multipart_type {
    OFPMP_DESC = 0,
    OFPMP_FLOW = 1,
    OFPMP_AGGREGATE = 2,
    OFPMP_TABLE = 3,
    OFPMP_PORT_STATS = 4,
    OFPMP_QUEUE = 5,
    OFPMP_GROUP = 6,
    OFPMP_GROUP_DESC = 7,
    OFPMP_GROUP_FEATURES = 8,
    OFPMP_METER = 9,
    OFPMP_METER_CONFIG = 10,
    OFPMP_METER_FEATURES = 11,
    OFPMP_TABLE_FEATURES = 12,
    OFPMP_PORT_DESC = 13,
    OFPMP_EXPERIMENTER = 0xffff,
};

#define OFPMPF_REQ_MORE 1u
#define OFPMPF_REPLY_MORE 1u

struct ofp13_desc {
    char mfr_desc[DESC_STR_LEN];
    char hw_desc[DESC_STR_LEN];
    char sw_desc[DESC_STR_LEN];
    char serial_num[SERIAL_NUM_LEN];
    char dp_desc[DESC_STR_LEN];
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_desc, 1056);

/* FLOW and AGGREGATE requests share this body. */
struct ofp13_flow_stats_request {
    uint8_t table_id;
    uint8_t pad[3];
    uint32_t out_port;
    uint32_t out_group;
    uint8_t pad2[4];
    uint64_t cookie;
    uint64_t cookie_mask;
    /* ofp13_match (padded) */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_flow_stats_request, 32);

struct ofp13_flow_stats {
    uint16_t length;
    uint8_t table_id;
    uint8_t pad;
    uint32_t duration_sec;
    uint32_t duration_nsec;
    uint16_t priority;
    uint16_t idle_timeout;
    uint16_t hard_timeout;
    uint16_t flags;
    uint8_t pad2[4];
    uint64_t cookie;
    uint64_t packet_count;
    uint64_t byte_count;
    /* ofp13_match (padded), then instructions */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_flow_stats, 48);

struct ofp13_aggregate_stats_reply {
    uint64_t packet_count;
    uint64_t byte_count;
    uint32_t flow_count;
    uint8_t pad[4];
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_aggregate_stats_reply, 24);

struct ofp13_table_stats {
    uint8_t table_id;
    uint8_t pad[3];
    uint32_t active_count;
    uint64_t lookup_count;
    uint64_t matched_count;
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_table_stats, 24);

/* PORT_STATS request (port_no), also the shape of GROUP and METER requests. */
struct ofp13_port_stats_request {
    uint32_t port_no;
    uint8_t pad[4];
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_port_stats_request, 8);

struct ofp13_port_stats {
    uint32_t port_no;
    uint8_t pad[4];
    uint64_t rx_packets;
    uint64_t tx_packets;
    uint64_t rx_bytes;
    uint64_t tx_bytes;
    uint64_t rx_dropped;
    uint64_t tx_dropped;
    uint64_t rx_errors;
    uint64_t tx_errors;
    uint64_t rx_frame_err;
    uint64_t rx_over_err;
    uint64_t rx_crc_err;
    uint64_t collisions;
    uint32_t duration_sec;
    uint32_t duration_nsec;
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_port_stats, 112);

struct ofp13_queue_stats_request {
    uint32_t port_no;
    uint32_t queue_id;
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_queue_stats_request, 8);

struct ofp13_queue_stats {
    uint32_t port_no;
    uint32_t queue_id;
    uint64_t tx_bytes;
    uint64_t tx_packets;
    uint64_t tx_errors;
    uint32_t duration_sec;
    uint32_t duration_nsec;
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_queue_stats, 40);

struct ofp13_group_stats_request {
    uint32_t group_id;
    uint8_t pad[4];
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_group_stats_request, 8);

struct ofp13_bucket_counter {
    uint64_t packet_count;
    uint64_t byte_count;
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_bucket_counter, 16);

struct ofp13_group_stats {
    uint16_t length;
    uint8_t pad[2];
    uint32_t group_id;
    uint32_t ref_count;
    uint8_t pad2[4];
    uint64_t packet_count;
    uint64_t byte_count;
    uint32_t duration_sec;
    uint32_t duration_nsec;
    /* ofp13_bucket_counter[] follow */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_group_stats, 40);

struct ofp13_group_desc {
    uint16_t length;
    uint8_t type;
    uint8_t pad;
    uint32_t group_id;
    /* buckets follow */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_group_desc, 8);

struct ofp13_meter_multipart_request {
    uint32_t meter_id;
    uint8_t pad[4];
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_meter_multipart_request, 8);

struct ofp13_meter_band_stats {
    uint64_t packet_band_count;
    uint64_t byte_band_count;
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_meter_band_stats, 16);

struct ofp13_meter_stats {
    uint32_t meter_id;
    uint16_t len;
    uint8_t pad[6];
    uint32_t flow_count;
    uint64_t packet_in_count;
    uint64_t byte_in_count;
    uint32_t duration_sec;
    uint32_t duration_nsec;
    /* ofp13_meter_band_stats[] follow */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_meter_stats, 40);

struct ofp13_experimenter_multipart_header {
    uint32_t experimenter;
    uint32_t exp_type;
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_experimenter_multipart_header, 8);

/* ---- queue configuration ------------------------------------------------ */

struct ofp13_queue_get_config_request {
    struct ofp13_header header;
    uint32_t port;
    uint8_t pad[4];
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_queue_get_config_request, 16);

struct ofp13_queue_get_config_reply {
    struct ofp13_header header;
    uint32_t port;
    uint8_t pad[4];
    /* ofp13_packet_queue[] follow */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_queue_get_config_reply, 16);

struct ofp13_packet_queue {
    uint32_t queue_id;
    uint32_t port;
    uint16_t len;
    uint8_t pad[6];
    /* properties follow */
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_packet_queue, 16);

enum ofp13_queue_properties {
    OFPQT_MIN_RATE = 1,
    OFPQT_MAX_RATE = 2,
    OFPQT_EXPERIMENTER = 0xffff,
};

struct ofp13_queue_prop_header {
    uint16_t property;
    uint16_t len;
    uint8_t pad[4];
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_queue_prop_header, 8);

struct ofp13_queue_prop_rate {
    struct ofp13_queue_prop_header prop_header;   /* len 16 */
    uint16_t rate;            /* 1/10 of a percent; > 1000 means disabled */
    uint8_t pad[6];
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_queue_prop_rate, 16);

/* ---- role, async -------------------------------------------------------- */

struct ofp13_role_request {
    struct ofp13_header header;
    uint32_t role;
    uint8_t pad[4];
    uint64_t generation_id;
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_role_request, 24);

enum ofp13_controller_role {
    OFPCR_ROLE_NOCHANGE = 0,
    OFPCR_ROLE_EQUAL = 1,
    OFPCR_ROLE_MASTER = 2,
    OFPCR_ROLE_SLAVE = 3,
};

struct ofp13_async_config {
    struct ofp13_header header;
    uint32_t packet_in_mask[2];     /* [0] master/equal, [1] slave */
    uint32_t port_status_mask[2];
    uint32_t flow_removed_mask[2];
} OFP13_PACKED;
OFP13_ASSERT_SIZE(ofp13_async_config, 32);

#endif
