/*
 * ofp_conform_gen: the encoder half of the OpenFlow 1.3 conformance test.
 *
 * Builds one of every message ofcd sends to a switch (and variants that
 * reach every action, instruction, OXM field, group type and meter band
 * ofcd can emit) from distinctive constants, encodes each with ofcd's codec
 * (ofp_encode, or ofp_error_reply as the channel does) and writes
 *
 *   OUTDIR/vectors.txt  per message: its bytes in hex and the values an
 *                       independent decoder must find in them
 *   OUTDIR/ofp13.pcap   the same bytes as one TCP stream from ofcd
 *                       (10.66.0.2:6653) to a switch, one message per segment:
 *                       a pcapng capture written by the flight recorder's
 *                       writer (common/ofcd_pcapng.h)
 *
 * conformance.sh decodes the bytes with ovs-ofctl and the capture with
 * tshark and compares. Every expected value below is written from the
 * constants the message is built from, never read back from the encoded
 * bytes, so an encoder bug shows as a mismatch.
 *
 * vectors.txt, one directive per line:
 *   msg FRAME NAME...          a message; FRAME is its frame in the pcap
 *   hex HEX                    its bytes
 *   ovs LABEL TOK...           ovs-ofctl ofp-print's text, cut at blanks and
 *                              commas, holds TOK... as consecutive tokens
 *   ovsskip REASON...          ovs-ofctl cannot decode this message at all
 *   ts LABEL F=V...            tshark's fields for the frame hold F=V... in
 *                              this order (PDML "show" values; F@raw=HEX the
 *                              raw bytes, V "*" any value, "%20" a blank)
 *   tsmalformed_ok             tshark may call the frame malformed (ERROR
 *                              data: a cut copy of the offending message)
 *   encodefail RC              the codec refused to encode the message
 *   note TEXT...               a field left unchecked by one decoder and why
 *   end
 * The "header" ovs/ts checks are anchored at the start of the decoded text /
 * the first OpenFlow field of the frame. Expected lengths are the spec's,
 * added up by hand in the comments.
 *
 * Usage: ofp_conform_gen OUTDIR. Exit 0, or 1 when a message cannot be
 * encoded (itself a conformance failure, reported on stderr).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofcd_inet.h"
#include "ofcd_pcapng.h"
#include "ofp_msg.h"

/* The TCP stream of the capture: ofcd's side and the switch's. */
#define CONF_CTRL_IP 0x0a420002u     /* 10.66.0.2 */
#define CONF_SW_IP 0x0a42000au       /* 10.66.0.10 */
#define CONF_SW_PORT 45678
#define CONF_T0_NS 1700000000000000000ull

struct conf_gen {
    FILE *vec;
    FILE *pcap;
    struct ofcd_pcapng cap;   /* the capture, written out at the end */
    unsigned n_msgs;
    uint32_t xid;             /* next xid: distinct and byte-order revealing */
    int failures;
};

/* ---- frames (the PACKET_OUT's payload) ------------------------------------- */

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* ---- vectors ---------------------------------------------------------------- */

static void vline(struct conf_gen *g, const char *kind, const char *label, const char *fmt,
                  va_list ap)
{
    fprintf(g->vec, "%s %s ", kind, label);
    vfprintf(g->vec, fmt, ap);
    fputc('\n', g->vec);
}

/* ovs-ofctl must print these tokens, consecutively. */
__attribute__((format(printf, 3, 4))) static void ovs(struct conf_gen *g, const char *label,
                                                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(g, "ovs", label, fmt, ap);
    va_end(ap);
}

/* tshark must show these field=value pairs, in this order. */
__attribute__((format(printf, 3, 4))) static void ts(struct conf_gen *g, const char *label,
                                                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(g, "ts", label, fmt, ap);
    va_end(ap);
}

/* A field one decoder cannot check, said aloud. */
__attribute__((format(printf, 2, 3))) static void note(struct conf_gen *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("note ", g->vec);
    vfprintf(g->vec, fmt, ap);
    fputc('\n', g->vec);
    va_end(ap);
}

/* Write the encoded bytes of one message and the header checks. ovs_name:
 * how ovs-ofctl names the message ("OFPT_FLOW_MOD", "OFPST_FLOW request"),
 * or NULL when ovs-ofctl cannot decode it (why: ovs_skip). */
static int emit_bytes(struct conf_gen *g, const char *name, uint8_t type, uint32_t xid,
                      size_t want_len, const uint8_t *bytes, size_t len, const char *ovs_name,
                      const char *ovs_skip)
{
    /* A millisecond a frame, from a fixed time: the same file each run. */
    uint64_t t_ns = CONF_T0_NS + g->cap.frames * 1000000u;
    if (ofcd_pcapng_data(&g->cap, false, t_ns, bytes, len) < 0) {
        fprintf(stderr, "ofp_conform_gen: %s: cannot write the capture\n", name);
        g->failures++;
        return -EIO;
    }
    g->n_msgs++;
    fprintf(g->vec, "msg %u %s\nhex ", (unsigned)g->cap.frames, name);
    for (size_t i = 0; i < len; i++)
        fprintf(g->vec, "%02x", bytes[i]);
    fputc('\n', g->vec);
    if (ovs_name) {
        ovs(g, "header", "%s OF1.3 xid=0x%x", ovs_name, xid);
    } else {
        fprintf(g->vec, "ovsskip %s\n", ovs_skip);
    }
    ts(g, "header", "openflow_v4.version=0x04 openflow_v4.type=%u openflow_v4.length=%zu "
       "openflow_v4.xid=%u", (unsigned)type, want_len, xid);
    return 0;
}

/* Encode m with the codec's entry point and emit it. */
static int emit(struct conf_gen *g, const char *name, struct ofp_msg *m, size_t want_len,
                const char *ovs_name, const char *ovs_skip)
{
    uint8_t buf[OFP13_MAX_MSG_LEN];
    struct ofp_buf b;

    m->hdr.version = OFP13_VERSION;
    m->hdr.xid = g->xid;
    g->xid += 0x01010101u;
    ofp_buf_init(&b, buf, sizeof(buf));
    int rc = ofp_encode(&b, m);
    if (rc < 0) {
        fprintf(stderr, "ofp_conform_gen: %s: ofp_encode failed (%s)\n", name, strerror(-rc));
        fprintf(g->vec, "msg 0 %s\nencodefail %d\n", name, rc);
        g->failures++;
        return rc;
    }
    return emit_bytes(g, name, m->hdr.type, m->hdr.xid, want_len, buf, b.len, ovs_name,
                      ovs_skip);
}

static void end(struct conf_gen *g)
{
    fputs("end\n", g->vec);
}

/* Hex dump tokens as ovs-ofctl prints them ("00000000 de ad be ef-..."):
 * 16 bytes a line, a '-' joining the 8th and 9th. */
static void ovs_hexdump(struct conf_gen *g, const char *label, const uint8_t *p, size_t len)
{
    char line[128];
    for (size_t off = 0; off < len; off += 16) {
        size_t n = len - off < 16 ? len - off : 16;
        int k = snprintf(line, sizeof(line), "%08zx", off);
        for (size_t i = 0; i < n; i++)
            k += snprintf(line + k, sizeof(line) - (size_t)k, "%s%02x",
                          i == 8 ? "-" : " ", p[off + i]);
        if (n == 8)
            k += snprintf(line + k, sizeof(line) - (size_t)k, "-");
        ovs(g, label, "%s", line);
    }
}

/* "de:ad:be:ef" the way PDML shows FT_BYTES. */
static const char *hexcolon(const uint8_t *p, size_t len, char *out, size_t cap)
{
    size_t k = 0;
    out[0] = 0;
    for (size_t i = 0; i < len && k + 4 < cap; i++)
        k += (size_t)snprintf(out + k, cap - k, i ? ":%02x" : "%02x", p[i]);
    return out;
}

/* ---- the messages ----------------------------------------------------------- */

static void msg_init(struct ofp_msg *m, uint8_t type)
{
    memset(m, 0, sizeof(*m));
    m->hdr.type = type;
}

static void gen_hello(struct conf_gen *g)
{
    struct ofp_msg m;

    /* What ofcd sends: OpenFlow 1.3 alone, with the version bitmap. */
    msg_init(&m, OFPT_HELLO);
    ofp_hello_init(&m.u.hello, 1u << OFP13_VERSION, true);
    if (emit(g, "HELLO bitmap 1.3", &m, 16, "OFPT_HELLO", NULL) == 0) {
        ovs(g, "bitmap", "version bitmap: 0x04");
        ts(g, "element", "openflow_v4.hello_element.type=1 openflow_v4.hello_element.length=8 "
           "openflow_v4.hello_element.version.bitmap=00:00:00:10");
    }
    end(g);

    /* Several versions: bit order inside the bitmap word shows. */
    msg_init(&m, OFPT_HELLO);
    ofp_hello_init(&m.u.hello, 1u << 1 | 1u << 3 | 1u << 4, true);
    if (emit(g, "HELLO bitmap 1.0+1.2+1.3", &m, 16, "OFPT_HELLO", NULL) == 0) {
        ovs(g, "bitmap", "version bitmap: 0x01 0x03 0x04");
        ts(g, "element", "openflow_v4.hello_element.version.bitmap=00:00:00:1a");
    }
    end(g);
}

/* What ofcd sends back for a message it rejects (channel and decoder). */
static void gen_errors(struct conf_gen *g)
{
    /* ofp_chan's text for a switch without OpenFlow 1.3. */
    static const char why[] = "ofcd speaks OpenFlow 1.3 (version 0x04) only";
    /* A message seen before HELLO (ofp_chan sends its first bytes back). */
    static const uint8_t early[8] = {0x04, 0x0c, 0x00, 0x08, 0xde, 0xad, 0xbe, 0xef};
    /* A switch's FEATURES_REPLY whose header says 16 bytes (32 is the least). */
    static const uint8_t short_features[16] = {0x04, 0x06, 0x00, 0x10, 0x00, 0x00, 0x07, 0x77,
                                               0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, 0xbc};
    /* An 80-byte ECHO_REQUEST: only its first 64 bytes travel back. */
    uint8_t echo[80];
    for (unsigned i = 0; i < sizeof(echo); i++)
        echo[i] = (uint8_t)i;
    memcpy(echo, (const uint8_t[]){0x04, 0x02, 0x00, 80, 0x12, 0x34, 0x56, 0x78}, 8);

    struct ofp_msg m;
    char text[sizeof(why) * 3];

    msg_init(&m, OFPT_ERROR);
    m.u.error = (struct ofp_error){.type = OFPET_HELLO_FAILED, .code = OFPHFC_INCOMPATIBLE,
                                   .data = (const uint8_t *)why,
                                   .data_len = (uint16_t)strlen(why)};
    if (emit(g, "ERROR hello_failed/incompatible", &m, 12 + strlen(why), "OFPT_ERROR", NULL) == 0) {
        ovs(g, "code", "OFPHFC_INCOMPATIBLE");
        ovs(g, "text", "%s", why);
        /* Blanks travel as %20 in a ts value. */
        size_t k = 0;
        for (const char *c = why; *c; c++)
            k += (size_t)snprintf(text + k, sizeof(text) - k, *c == ' ' ? "%%20" : "%c", *c);
        ts(g, "body", "openflow_v4.error.type=0 openflow_v4.error.code=0 "
           "openflow_v4.error.data=%s", text);
    }
    end(g);

    msg_init(&m, OFPT_ERROR);
    m.u.error = (struct ofp_error){.type = OFPET_HELLO_FAILED, .code = OFPHFC_EPERM,
                                   .data = early, .data_len = sizeof(early)};
    if (emit(g, "ERROR hello_failed/eperm", &m, 20, "OFPT_ERROR", NULL) == 0) {
        ovs(g, "code", "OFPHFC_EPERM");
        /* HELLO_FAILED data is text to ovs-ofctl: it prints octal escapes. */
        ovs(g, "data", "\\004\\014\\000\\010\\336\\255\\276\\357");
        ts(g, "body", "openflow_v4.error.type=0 openflow_v4.error.code=1 "
           "openflow_v4.error.data@raw=040c0008deadbeef");
    }
    end(g);

    /* The decoder path: ofp_error_reply() takes the xid and the data from the
     * offending message. */
    struct {
        const char *name, *ovs_code;
        struct ofp_err err;
        const uint8_t *bad;
        size_t len;
    } rej[] = {
        {"ERROR bad_request/bad_len", "OFPBRC_BAD_LEN",
         OFP_ERR(OFPET_BAD_REQUEST, OFPBRC_BAD_LEN), short_features, sizeof(short_features)},
        {"ERROR bad_match/bad_prereq", "OFPBMC_BAD_PREREQ",
         OFP_ERR(OFPET_BAD_MATCH, OFPBMC_BAD_PREREQ), echo, sizeof(echo)},
        {"ERROR flow_mod_failed/bad_command", "OFPFMFC_BAD_COMMAND",
         OFP_ERR(OFPET_FLOW_MOD_FAILED, OFPFMFC_BAD_COMMAND), echo, 40},
        {"ERROR bad_action/bad_out_port", "OFPBAC_BAD_OUT_PORT",
         OFP_ERR(OFPET_BAD_ACTION, OFPBAC_BAD_OUT_PORT), echo, 24},
    };
    for (size_t i = 0; i < sizeof(rej) / sizeof(rej[0]); i++) {
        const uint8_t *bad = rej[i].bad;
        uint32_t xid = (uint32_t)bad[4] << 24 | (uint32_t)bad[5] << 16 | bad[6] << 8 | bad[7];
        unsigned bad_len = (unsigned)(bad[2] << 8 | bad[3]);
        size_t data_len = rej[i].len < OFP_ERROR_DATA_MAX ? rej[i].len : OFP_ERROR_DATA_MAX;
        uint8_t buf[256];
        struct ofp_buf b;

        ofp_buf_init(&b, buf, sizeof(buf));
        int rc = ofp_error_reply(&b, rej[i].err, bad, rej[i].len);
        if (rc < 0) {
            fprintf(stderr, "ofp_conform_gen: %s: ofp_error_reply failed\n", rej[i].name);
            fprintf(g->vec, "msg 0 %s\nencodefail %d\nend\n", rej[i].name, rc);
            g->failures++;
            continue;
        }
        if (emit_bytes(g, rej[i].name, OFPT_ERROR, xid, 12 + data_len, buf, b.len, "OFPT_ERROR",
                       NULL) != 0) {
            end(g);
            continue;
        }
        ovs(g, "code", "%s", rej[i].ovs_code);
        /* ovs-ofctl decodes the offending message carried as data, and dumps
         * it whole. */
        if (bad == echo) {
            ovs(g, "data.header", "OFPT_ECHO_REQUEST OF1.3 xid=0x%x", xid);
            ovs(g, "data.len", "(***truncated to %zu bytes from %u***)", data_len, bad_len);
        } else {
            ovs(g, "data.decode", "***decode error: OFPBRC_BAD_LEN***");
        }
        ovs_hexdump(g, "data", bad, data_len);
        ts(g, "body", "openflow_v4.error.type=%u openflow_v4.error.code=%u", rej[i].err.type,
           rej[i].err.code);
        ts(g, "data.header", "openflow_v4.version=0x04 openflow_v4.type=%u "
           "openflow_v4.length=%u openflow_v4.xid=%u", bad[1], bad_len, xid);
        /* tshark dissects the data as a whole message, and a cut one (the
         * spec asks for 64 bytes) ends in an exception. */
        fprintf(g->vec, "tsmalformed_ok\n");
        note(g, "tshark marks the offending message in the data malformed (it is cut, or bad): "
             "expected");
        end(g);
    }
}

static void gen_echo_and_empty(struct conf_gen *g)
{
    static const uint8_t payload[12] = {0xde, 0xad, 0xbe, 0xef, 0x01, 0x23,
                                        0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
    struct ofp_msg m;
    char hx[64];

    /* Keepalive: ofcd's ECHO_REQUEST has no payload. */
    msg_init(&m, OFPT_ECHO_REQUEST);
    if (emit(g, "ECHO_REQUEST", &m, 8, "OFPT_ECHO_REQUEST", NULL) == 0)
        ovs(g, "payload", "0 bytes of payload");
    end(g);

    msg_init(&m, OFPT_ECHO_REQUEST);
    m.u.echo = (struct ofp_echo){payload, 5};
    if (emit(g, "ECHO_REQUEST payload", &m, 13, "OFPT_ECHO_REQUEST", NULL) == 0) {
        ovs(g, "payload_len", "5 bytes of payload");
        ovs_hexdump(g, "payload", payload, 5);
        ts(g, "payload", "openflow_v4.echo.data=%s", hexcolon(payload, 5, hx, sizeof(hx)));
    }
    end(g);

    msg_init(&m, OFPT_ECHO_REPLY);
    m.u.echo = (struct ofp_echo){payload, sizeof(payload)};
    if (emit(g, "ECHO_REPLY payload", &m, 20, "OFPT_ECHO_REPLY", NULL) == 0) {
        ovs(g, "payload_len", "%zu bytes of payload", sizeof(payload));
        ovs_hexdump(g, "payload", payload, sizeof(payload));
        ts(g, "payload", "openflow_v4.echo.data=%s",
           hexcolon(payload, sizeof(payload), hx, sizeof(hx)));
    }
    end(g);

    static const struct {
        uint8_t type;
        const char *name, *ovs_name;
    } empty[] = {
        {OFPT_FEATURES_REQUEST, "FEATURES_REQUEST", "OFPT_FEATURES_REQUEST"},
        {OFPT_GET_CONFIG_REQUEST, "GET_CONFIG_REQUEST", "OFPT_GET_CONFIG_REQUEST"},
        {OFPT_BARRIER_REQUEST, "BARRIER_REQUEST", "OFPT_BARRIER_REQUEST"},
        {OFPT_GET_ASYNC_REQUEST, "GET_ASYNC_REQUEST", "OFPT_GET_ASYNC_REQUEST"},
    };
    for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++) {
        msg_init(&m, empty[i].type);
        emit(g, empty[i].name, &m, 8, empty[i].ovs_name, NULL);   /* the header is all */
        end(g);
    }
}

static void gen_set_config(struct conf_gen *g)
{
    static const struct {
        uint16_t flags, miss;
        const char *frags;
    } v[] = {
        {OFPC_FRAG_NORMAL, 0x0480, "normal"},        /* ofcd's handshake */
        {OFPC_FRAG_REASM, OFPCML_NO_BUFFER, "reassemble"},
        {OFPC_FRAG_DROP, 0x0123, "drop"},
    };
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        struct ofp_msg m;
        char name[64];
        msg_init(&m, OFPT_SET_CONFIG);
        m.u.config = (struct ofp_switch_config){v[i].flags, v[i].miss};
        snprintf(name, sizeof(name), "SET_CONFIG frags=%s", v[i].frags);
        if (emit(g, name, &m, 12, "OFPT_SET_CONFIG", NULL) == 0) {
            ovs(g, "flags", "frags=%s", v[i].frags);
            ovs(g, "miss_send_len", "miss_send_len=%u", v[i].miss);
            ts(g, "body", "openflow_v4.switch_config.flags=0x%04x "
               "openflow_v4.switch_config.miss_send_len=%u", v[i].flags, v[i].miss);
        }
        end(g);
    }
}

/* ---- actions, shared by PACKET_OUT, FLOW_MOD and GROUP_MOD ---------------- */

#define A_OUT_PORT 0x0000002au                 /* 42 */
#define A_CTRL_MAXLEN 0x01c8                   /* 456 */
#define A_GROUP 0x00a1b2c3u
#define A_QUEUE 0x00c0ffeeu
#define A_VLAN (OFPVID_PRESENT | 0x0abc)
#define A_MPLS_TTL 0x3c
#define A_NW_TTL 0x2d

static struct ofp_action act_output(uint32_t port, uint16_t max_len)
{
    return (struct ofp_action){.type = OFPAT_OUTPUT, .u.output = {port, max_len}};
}

static struct ofp_action act_field(uint8_t field, const void *value, uint8_t len)
{
    struct ofp_action a = {.type = OFPAT_SET_FIELD};
    a.u.set_field.oxm_class = OFPXMC_OPENFLOW_BASIC;
    a.u.set_field.field = field;
    a.u.set_field.len = len;
    memcpy(a.u.set_field.value, value, len);
    return a;
}

/* ---- PACKET_OUT ------------------------------------------------------------ */

/* A UDP/IPv4 frame with distinctive addresses, 60 bytes (IPv4 checksum
 * filled in by gen_packet_out). */
static const uint8_t po_frame_tmpl[60] = {
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x02, 0x66, 0x77, 0x88, 0x99, 0xaa, 0x08, 0x00,
    0x45, 0x00, 0x00, 0x2e, 0x00, 0x01, 0x00, 0x00, 0x40, 0x11, 0x00, 0x00,
    192, 0, 2, 1, 198, 51, 100, 7,
    0xc0, 0xde, 0xf0, 0x0d, 0x00, 0x1a, 0x00, 0x00,
    'o', 'f', 'c', 'd', '-', 'c', 'o', 'n', 'f', 'o', 'r', 'm', 'a', 'n', 'c', 'e', '!', '!',
};

static void gen_packet_out(struct conf_gen *g)
{
    static const uint8_t vid[2] = {A_VLAN >> 8, A_VLAN & 0xff};
    static const uint8_t ip_dst[4] = {203, 0, 113, 9};
    struct ofp_action acts[] = {
        {.type = OFPAT_PUSH_VLAN, .u.ethertype = 0x8100},
        act_field(OFPXMT_OFB_VLAN_VID, vid, 2),
        act_field(OFPXMT_OFB_IPV4_DST, ip_dst, 4),
        {.type = OFPAT_SET_QUEUE, .u.queue_id = A_QUEUE},
        act_output(A_OUT_PORT, 0),
        act_output(OFPP_CONTROLLER, A_CTRL_MAXLEN),
    };
    struct ofp_msg m;
    uint8_t po_frame[sizeof(po_frame_tmpl)];

    memcpy(po_frame, po_frame_tmpl, sizeof(po_frame));
    put16(po_frame + 24, ofcd_inet_csum_fold(ofcd_inet_csum_add(0, po_frame + 14, 20)));
    msg_init(&m, OFPT_PACKET_OUT);
    m.u.packet_out.buffer_id = OFP_NO_BUFFER;
    m.u.packet_out.in_port = 0x17;
    m.u.packet_out.actions = (struct ofp_actions){.arr = acts, .n = 6};
    m.u.packet_out.data = po_frame;
    m.u.packet_out.data_len = sizeof(po_frame);
    if (emit(g, "PACKET_OUT unbuffered", &m, 164, "OFPT_PACKET_OUT", NULL) == 0) {
        ovs(g, "in_port", "in_port=23");
        ovs(g, "actions", "actions=push_vlan:0x8100 set_field:%u->vlan_vid "
            "set_field:203.0.113.9->ip_dst set_queue:%u output:%u CONTROLLER:%u",
            A_VLAN, A_QUEUE, A_OUT_PORT, A_CTRL_MAXLEN);
        ovs(g, "data_len", "data_len=%zu", sizeof(po_frame));
        /* ovs-ofctl parses the frame it carries. */
        ovs(g, "data.proto", "udp");
        ovs(g, "data.dl_src", "dl_src=02:66:77:88:99:aa");
        ovs(g, "data.dl_dst", "dl_dst=00:11:22:33:44:55");
        ovs(g, "data.nw_src", "nw_src=192.0.2.1");
        ovs(g, "data.nw_dst", "nw_dst=198.51.100.7");
        ovs(g, "data.tp_src", "tp_src=%u", 0xc0de);
        ovs(g, "data.tp_dst", "tp_dst=%u", 0xf00d);
        ts(g, "fixed", "openflow_v4.packet_out.buffer_id=%u "
           "openflow_v4.packet_out.in_port=23 openflow_v4.packet_out.acts_len=80", OFP_NO_BUFFER);
        ts(g, "actions", "openflow_v4.action.type=17 openflow_v4.action.push_vlan.ethertype=0x8100 "
           "openflow_v4.action.type=25 openflow_v4.oxm.field=6 "
           "openflow_v4.oxm.value_vlan_present=1 openflow_v4.oxm.value_vlan_vid=%u "
           "openflow_v4.action.type=25 openflow_v4.oxm.field=12 "
           "openflow_v4.oxm.value_ipv4addr=203.0.113.9 "
           "openflow_v4.action.type=21 openflow_v4.action.set_queue.queue_id=%u "
           "openflow_v4.action.type=0 openflow_v4.action.output.port=%u "
           "openflow_v4.action.output.max_len=0 "
           "openflow_v4.action.type=0 openflow_v4.action.output.port=%u "
           "openflow_v4.action.output.max_len=%u",
           A_VLAN & 0xfff, A_QUEUE, A_OUT_PORT, OFPP_CONTROLLER, A_CTRL_MAXLEN);
        ts(g, "data", "eth.src=02:66:77:88:99:aa ip.src=192.0.2.1 ip.dst=198.51.100.7 "
           "udp.srcport=%u udp.dstport=%u", 0xc0de, 0xf00d);
    }
    end(g);

    /* A buffered packet and the actions ovs-ofctl does not implement. */
    struct ofp_action rare[] = {
        {.type = OFPAT_COPY_TTL_OUT},
        {.type = OFPAT_COPY_TTL_IN},
        {.type = OFPAT_PUSH_PBB, .u.ethertype = 0x88e7},
        {.type = OFPAT_POP_PBB},
        act_output(OFPP_IN_PORT, 0),
    };
    msg_init(&m, OFPT_PACKET_OUT);
    m.u.packet_out.buffer_id = 0x00beef01;
    m.u.packet_out.in_port = OFPP_LOCAL;
    m.u.packet_out.actions = (struct ofp_actions){.arr = rare, .n = 5};
    if (emit(g, "PACKET_OUT buffered copy_ttl/pbb", &m, 72, NULL,
             "copy_ttl_out/in and push/pop_pbb are not implemented by ovs-ofctl 3.1 "
             "(OFPBAC_BAD_TYPE): checked with tshark only") == 0) {
        ts(g, "fixed", "openflow_v4.packet_out.buffer_id=%u "
           "openflow_v4.packet_out.in_port=%u openflow_v4.packet_out.acts_len=48", 0x00beef01u,
           OFPP_LOCAL);
        ts(g, "actions", "openflow_v4.action.type=11 openflow_v4.action.length=8 "
           "openflow_v4.action.type=12 openflow_v4.action.length=8 "
           "openflow_v4.action.type=26 openflow_v4.action.length=8 "
           "openflow_v4.action.push_pbb.ethertype=0x88e7 "
           "openflow_v4.action.type=27 openflow_v4.action.length=8 "
           "openflow_v4.action.type=0 openflow_v4.action.length=16 "
           "openflow_v4.action.output.port=%u", OFPP_IN_PORT);
    }
    end(g);
}

/* ---- FLOW_MOD ------------------------------------------------------------ */

#define FM_COOKIE 0x0123456789abcdefull
#define FM_METER 0x00000009u
#define FM_META 0xfeedface00c0ffeeull
#define FM_META_MASK 0xffffffff0000ffffull

static void gen_flow_mod_add(struct conf_gen *g)
{
    static const uint8_t vid[2] = {A_VLAN >> 8, A_VLAN & 0xff};
    static const uint8_t mac[6] = {0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};
    static const uint8_t eth_dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x00};
    static const uint8_t eth_dst_mask[6] = {0xff, 0xff, 0xff, 0x00, 0x00, 0x00};
    struct ofp_action apply[] = {
        {.type = OFPAT_PUSH_VLAN, .u.ethertype = 0x88a8},
        act_field(OFPXMT_OFB_VLAN_VID, vid, 2),
        act_field(OFPXMT_OFB_ETH_SRC, mac, 6),
        {.type = OFPAT_DEC_NW_TTL},
        {.type = OFPAT_SET_QUEUE, .u.queue_id = A_QUEUE},
        {.type = OFPAT_GROUP, .u.group_id = A_GROUP},
        act_output(A_OUT_PORT, 0),
        act_output(OFPP_CONTROLLER, A_CTRL_MAXLEN),
    };
    struct ofp_action write[] = {
        {.type = OFPAT_SET_NW_TTL, .u.ttl = A_NW_TTL},
        act_output(OFPP_NORMAL, 0),
    };
    struct ofp_msg m;
    struct ofp_flow_mod *fm = &m.u.flow_mod;

    msg_init(&m, OFPT_FLOW_MOD);
    fm->cookie = FM_COOKIE;
    fm->cookie_mask = 0;
    fm->table_id = 3;
    fm->command = OFPFC_ADD;
    fm->idle_timeout = 0x0102;
    fm->hard_timeout = 0x0304;
    fm->priority = 0x5a5a;
    fm->buffer_id = OFP_NO_BUFFER;
    fm->out_port = OFPP_ANY;
    fm->out_group = OFPG_ANY;
    fm->flags = OFPFF_SEND_FLOW_REM | OFPFF_RESET_COUNTS | OFPFF_NO_BYT_COUNTS;

    struct ofp_match *mt = &fm->match;
    ofp_match_init(mt);
    ofp_match_set_uint(mt, OFPXMT_OFB_IN_PORT, 0x0b);
    ofp_match_set_uint_masked(mt, OFPXMT_OFB_METADATA, 0x00000000abcd0000ull,
                              0x00000000ffff0000ull);
    ofp_match_set(mt, OFPXMT_OFB_ETH_DST, eth_dst, eth_dst_mask);
    ofp_match_set(mt, OFPXMT_OFB_ETH_SRC, mac, NULL);
    ofp_match_set_uint(mt, OFPXMT_OFB_ETH_TYPE, 0x0800);
    ofp_match_set_uint(mt, OFPXMT_OFB_VLAN_VID, OFPVID_PRESENT | 0x123);
    ofp_match_set_uint(mt, OFPXMT_OFB_VLAN_PCP, 5);
    ofp_match_set_uint(mt, OFPXMT_OFB_IP_DSCP, 46);
    ofp_match_set_uint(mt, OFPXMT_OFB_IP_ECN, 2);
    ofp_match_set_uint(mt, OFPXMT_OFB_IP_PROTO, 6);
    ofp_match_set_uint_masked(mt, OFPXMT_OFB_IPV4_SRC, 0x0a010200, 0xffffff00);
    ofp_match_set_uint_masked(mt, OFPXMT_OFB_IPV4_DST, 0xac100000, 0xfff00000);
    ofp_match_set_uint(mt, OFPXMT_OFB_TCP_SRC, 0x8001);
    ofp_match_set_uint(mt, OFPXMT_OFB_TCP_DST, 8080);

    struct ofp_instructions *in = &fm->inst;
    in->present = OFP_INST_METER | OFP_INST_APPLY_ACTIONS | OFP_INST_CLEAR_ACTIONS |
                  OFP_INST_WRITE_ACTIONS | OFP_INST_WRITE_METADATA | OFP_INST_GOTO_TABLE;
    in->meter_id = FM_METER;
    in->apply_actions = (struct ofp_actions){.arr = apply, .n = 8};
    in->write_actions = (struct ofp_actions){.arr = write, .n = 2};
    in->metadata = FM_META;
    in->metadata_mask = FM_META_MASK;
    in->goto_table = 7;

    if (emit(g, "FLOW_MOD add", &m, 360, "OFPT_FLOW_MOD", NULL) == 0) {
        ovs(g, "command", "ADD");
        ovs(g, "table_id", "table:3");
        ovs(g, "priority", "priority=%u", 0x5a5a);
        ovs(g, "cookie", "cookie:0x%llx", (unsigned long long)FM_COOKIE);
        ovs(g, "idle_timeout", "idle:%u", 0x0102);
        ovs(g, "hard_timeout", "hard:%u", 0x0304);
        ovs(g, "flags", "send_flow_rem reset_counts no_byte_counts");
        ovs(g, "match.proto", "tcp");
        ovs(g, "match.in_port", "in_port=11");
        ovs(g, "match.metadata", "metadata=0xabcd0000/0xffff0000");
        ovs(g, "match.eth_dst", "dl_dst=01:80:c2:00:00:00/ff:ff:ff:00:00:00");
        ovs(g, "match.eth_src", "dl_src=02:aa:bb:cc:dd:ee");
        ovs(g, "match.vlan_vid", "dl_vlan=%u", 0x123);
        ovs(g, "match.vlan_pcp", "dl_vlan_pcp=5");
        ovs(g, "match.ip_dscp", "nw_tos=%u", 46 << 2);
        ovs(g, "match.ip_ecn", "nw_ecn=2");
        ovs(g, "match.ipv4_src", "nw_src=10.1.2.0/24");
        ovs(g, "match.ipv4_dst", "nw_dst=172.16.0.0/12");
        ovs(g, "match.tcp_src", "tp_src=%u", 0x8001);
        ovs(g, "match.tcp_dst", "tp_dst=8080");
        ovs(g, "instructions", "actions=meter:%u push_vlan:0x88a8 set_field:%u->vlan_vid "
            "set_field:02:aa:bb:cc:dd:ee->eth_src dec_ttl set_queue:%u group:%u output:%u "
            "CONTROLLER:%u clear_actions write_actions(mod_nw_ttl:%u NORMAL) "
            "write_metadata:0x%llx/0x%llx goto_table:7",
            FM_METER, A_VLAN, A_QUEUE, A_GROUP, A_OUT_PORT, A_CTRL_MAXLEN, A_NW_TTL,
            (unsigned long long)FM_META, (unsigned long long)FM_META_MASK);
        ts(g, "fixed", "openflow_v4.flowmod.cookie=0x%016llx "
           "openflow_v4.flowmod.cookie_mask=0x0000000000000000 "
           "openflow_v4.flowmod.table_id=3 openflow_v4.flowmod.command=0 "
           "openflow_v4.flowmod.idle_timeout=%u openflow_v4.flowmod.hard_timeout=%u "
           "openflow_v4.flowmod.priority=%u openflow_v4.flowmod.buffer_id=%u "
           "openflow_v4.flowmod.out_port=%u openflow_v4.flowmod.out_group=%u "
           "openflow_v4.flowmod.flags=0x%04x",
           (unsigned long long)FM_COOKIE, 0x0102, 0x0304, 0x5a5a, OFP_NO_BUFFER, OFPP_ANY,
           OFPG_ANY,
           OFPFF_SEND_FLOW_REM | OFPFF_RESET_COUNTS | OFPFF_NO_BYT_COUNTS);
        /* Every TLV in field order (prerequisites first, as the spec asks),
         * with its mask bit and length. */
        ts(g, "match.wire", "openflow_v4.match.type=1 openflow_v4.match.length=126 "
           "openflow_v4.oxm.field=0 openflow_v4.oxm.hm=0 openflow_v4.oxm.length=4 "
           "openflow_v4.oxm.value_uint32=11 "
           "openflow_v4.oxm.field=2 openflow_v4.oxm.hm=1 openflow_v4.oxm.length=16 "
           "openflow_v4.oxm.value=00:00:00:00:ab:cd:00:00 "
           "openflow_v4.oxm.mask=00:00:00:00:ff:ff:00:00 "
           "openflow_v4.oxm.field=3 openflow_v4.oxm.hm=1 openflow_v4.oxm.length=12 "
           "openflow_v4.oxm.value_etheraddr=01:80:c2:00:00:00 "
           "openflow_v4.oxm.ether_mask=ff:ff:ff:00:00:00 "
           "openflow_v4.oxm.field=4 openflow_v4.oxm.hm=0 openflow_v4.oxm.length=6 "
           "openflow_v4.oxm.value_etheraddr=02:aa:bb:cc:dd:ee "
           "openflow_v4.oxm.field=5 openflow_v4.oxm.hm=0 openflow_v4.oxm.length=2 "
           "openflow_v4.oxm.value_ethertype=0x0800 "
           "openflow_v4.oxm.field=6 openflow_v4.oxm.hm=0 openflow_v4.oxm.length=2 "
           "openflow_v4.oxm.value_vlan_present=1 openflow_v4.oxm.value_vlan_vid=%u "
           "openflow_v4.oxm.field=7 openflow_v4.oxm.hm=0 openflow_v4.oxm.length=1 "
           "openflow_v4.oxm.value=05 "
           "openflow_v4.oxm.field=8 openflow_v4.oxm.hm=0 openflow_v4.oxm.length=1 "
           "openflow_v4.oxm.value=2e "
           "openflow_v4.oxm.field=9 openflow_v4.oxm.hm=0 openflow_v4.oxm.length=1 "
           "openflow_v4.oxm.value=02 "
           "openflow_v4.oxm.field=10 openflow_v4.oxm.hm=0 openflow_v4.oxm.length=1 "
           "openflow_v4.oxm.value_ipproto=6 "
           "openflow_v4.oxm.field=11 openflow_v4.oxm.hm=1 openflow_v4.oxm.length=8 "
           "openflow_v4.oxm.value_ipv4addr=10.1.2.0 openflow_v4.oxm.ipv4_mask=255.255.255.0 "
           "openflow_v4.oxm.field=12 openflow_v4.oxm.hm=1 openflow_v4.oxm.length=8 "
           "openflow_v4.oxm.value_ipv4addr=172.16.0.0 openflow_v4.oxm.ipv4_mask=255.240.0.0 "
           "openflow_v4.oxm.field=13 openflow_v4.oxm.hm=0 openflow_v4.oxm.length=2 "
           "openflow_v4.oxm.value_uint16=%u "
           "openflow_v4.oxm.field=14 openflow_v4.oxm.hm=0 openflow_v4.oxm.length=2 "
           "openflow_v4.oxm.value_uint16=8080 openflow_v4.match.pad=00:00",
           0x123, 0x8001);
        /* Instructions in execution order, each with its spec length:
         * apply = 8 + 8 + 16 + 16 + 8 + 8 + 8 + 16 + 16, write = 8 + 8 + 16. */
        ts(g, "inst.order", "openflow_v4.instruction.type=6 openflow_v4.instruction.length=8 "
           "openflow_v4.instruction.meter.meter_id=%u "
           "openflow_v4.instruction.type=4 openflow_v4.instruction.length=104 "
           "openflow_v4.instruction.type=5 openflow_v4.instruction.length=8 "
           "openflow_v4.instruction.type=3 openflow_v4.instruction.length=32 "
           "openflow_v4.instruction.type=2 openflow_v4.instruction.length=24 "
           "openflow_v4.instruction.write_metadata.value=0x%016llx "
           "openflow_v4.instruction.write_metadata.mask=0x%016llx "
           "openflow_v4.instruction.type=1 openflow_v4.instruction.length=8 "
           "openflow_v4.instruction.goto_table.table_id=7",
           FM_METER, (unsigned long long)FM_META, (unsigned long long)FM_META_MASK);
    }
    end(g);
}

/* MODIFY_STRICT over IPv6, with the MPLS and TTL actions. */
static void gen_flow_mod_modify(struct conf_gen *g)
{
    static const uint8_t v6src[16] = {0x20, 0x01, 0x0d, 0xb8, 0xca, 0xfe};
    static const uint8_t v6src_mask[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    static const uint8_t v6dst[16] = {0xfd, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34};
    static const uint8_t label[4] = {0x00, 0x0b, 0xee, 0xf0};
    struct ofp_action apply[] = {
        {.type = OFPAT_POP_VLAN},
        {.type = OFPAT_PUSH_MPLS, .u.ethertype = 0x8847},
        act_field(OFPXMT_OFB_MPLS_LABEL, label, 4),
        {.type = OFPAT_SET_MPLS_TTL, .u.ttl = A_MPLS_TTL},
        {.type = OFPAT_DEC_MPLS_TTL},
        {.type = OFPAT_POP_MPLS, .u.ethertype = 0x86dd},
        act_output(OFPP_FLOOD, 0),
    };
    struct ofp_msg m;
    struct ofp_flow_mod *fm = &m.u.flow_mod;

    msg_init(&m, OFPT_FLOW_MOD);
    fm->cookie = 0x00000000c0c0a0a0ull;
    fm->cookie_mask = 0x00000000ffff0000ull;
    fm->table_id = 0x0c;
    fm->command = OFPFC_MODIFY_STRICT;
    fm->priority = 0x0101;
    fm->buffer_id = OFP_NO_BUFFER;
    fm->out_port = OFPP_ANY;
    fm->out_group = OFPG_ANY;
    fm->flags = OFPFF_CHECK_OVERLAP | OFPFF_NO_PKT_COUNTS;

    struct ofp_match *mt = &fm->match;
    ofp_match_init(mt);
    ofp_match_set_uint(mt, OFPXMT_OFB_IN_PORT, 0x21);
    ofp_match_set_uint(mt, OFPXMT_OFB_ETH_TYPE, 0x86dd);
    ofp_match_set_uint_masked(mt, OFPXMT_OFB_VLAN_VID, OFPVID_PRESENT, OFPVID_PRESENT);
    ofp_match_set_uint(mt, OFPXMT_OFB_IP_PROTO, 17);
    ofp_match_set(mt, OFPXMT_OFB_IPV6_SRC, v6src, v6src_mask);
    ofp_match_set(mt, OFPXMT_OFB_IPV6_DST, v6dst, NULL);
    ofp_match_set_uint_masked(mt, OFPXMT_OFB_IPV6_FLABEL, 0x000abcd0, 0x000ffff0);
    ofp_match_set_uint(mt, OFPXMT_OFB_UDP_SRC, 0x1234);
    ofp_match_set_uint(mt, OFPXMT_OFB_UDP_DST, 4789);
    ofp_match_set_uint_masked(mt, OFPXMT_OFB_TUNNEL_ID, 0x1122334400000000ull,
                              0xffffffff00000000ull);

    fm->inst.present = OFP_INST_APPLY_ACTIONS;
    fm->inst.apply_actions = (struct ofp_actions){.arr = apply, .n = 7};

    if (emit(g, "FLOW_MOD modify_strict", &m, 264, "OFPT_FLOW_MOD", NULL) == 0) {
        ovs(g, "command", "MOD_STRICT");
        ovs(g, "table_id", "table:12");
        ovs(g, "priority", "priority=257");
        ovs(g, "cookie", "cookie:0xc0c0a0a0/0xffff0000");
        ovs(g, "flags", "check_overlap no_packet_counts");
        ovs(g, "match.proto", "udp6");
        ovs(g, "match.in_port", "in_port=33");
        ovs(g, "match.vlan_vid", "vlan_tci=0x1000/0x1000");
        ovs(g, "match.ipv6_src", "ipv6_src=2001:db8:cafe::/48");
        ovs(g, "match.ipv6_dst", "ipv6_dst=fd00::1234");
        ovs(g, "match.ipv6_flabel", "ipv6_label=0xabcd0/0xffff0");
        ovs(g, "match.udp_src", "tp_src=%u", 0x1234);
        ovs(g, "match.udp_dst", "tp_dst=4789");
        ovs(g, "match.tunnel_id", "tun_id=0x1122334400000000/0xffffffff00000000");
        ovs(g, "actions", "actions=pop_vlan push_mpls:0x8847 set_field:%u->mpls_label "
            "set_mpls_ttl(%u) dec_mpls_ttl pop_mpls:0x86dd FLOOD", 0xbeef0, A_MPLS_TTL);
        ts(g, "fixed", "openflow_v4.flowmod.cookie=0x00000000c0c0a0a0 "
           "openflow_v4.flowmod.cookie_mask=0x00000000ffff0000 "
           "openflow_v4.flowmod.table_id=12 openflow_v4.flowmod.command=2 "
           "openflow_v4.flowmod.priority=257 openflow_v4.flowmod.flags=0x%04x",
           OFPFF_CHECK_OVERLAP | OFPFF_NO_PKT_COUNTS);
    }
    end(g);
}

/* DELETE with out_port/out_group over ARP; DELETE_STRICT over ICMPv6 ND. */
static void gen_flow_mod_delete(struct conf_gen *g)
{
    static const uint8_t sha[6] = {0x02, 0x00, 0x5e, 0x10, 0x20, 0x30};
    static const uint8_t tha[6] = {0x02, 0x00, 0x5e, 0x40, 0x50, 0x60};
    struct ofp_msg m;
    struct ofp_flow_mod *fm = &m.u.flow_mod;

    msg_init(&m, OFPT_FLOW_MOD);
    fm->cookie = 0x00000000000a0000ull;
    fm->cookie_mask = 0x00000000000f0000ull;
    fm->table_id = OFPTT_ALL;
    fm->command = OFPFC_DELETE;
    fm->buffer_id = OFP_NO_BUFFER;
    fm->out_port = 0x3f;
    fm->out_group = 0x00000515;
    ofp_match_init(&fm->match);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_ETH_TYPE, 0x0806);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_ARP_OP, 2);
    ofp_match_set_uint_masked(&fm->match, OFPXMT_OFB_ARP_SPA, 0xc0a80100, 0xffffff00);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_ARP_TPA, 0xc0a801fe);
    ofp_match_set(&fm->match, OFPXMT_OFB_ARP_SHA, sha, NULL);
    ofp_match_set(&fm->match, OFPXMT_OFB_ARP_THA, tha, NULL);
    if (emit(g, "FLOW_MOD delete out_port/out_group", &m, 104, "OFPT_FLOW_MOD", NULL) == 0) {
        ovs(g, "command", "DEL");
        ovs(g, "cookie", "cookie:0xa0000/0xf0000");
        ovs(g, "out_port", "out_port:63");
        note(g, "out_group: ovs-ofctl does not print a flow_mod's out_group, checked with "
             "tshark");
        ovs(g, "match.proto", "arp");
        ovs(g, "match.arp_op", "arp_op=2");
        ovs(g, "match.arp_spa", "arp_spa=192.168.1.0/24");
        ovs(g, "match.arp_tpa", "arp_tpa=192.168.1.254");
        ovs(g, "match.arp_sha", "arp_sha=02:00:5e:10:20:30");
        ovs(g, "match.arp_tha", "arp_tha=02:00:5e:40:50:60");
        ts(g, "fixed", "openflow_v4.flowmod.table_id=255 openflow_v4.flowmod.command=3 "
           "openflow_v4.flowmod.out_port=63 openflow_v4.flowmod.out_group=1301");
        /* 48 fixed + match 4 + 6 + 6 + 12 + 8 + 10 + 10 = 56: no instruction. */
        ts(g, "match_len", "openflow_v4.match.length=56");
    }
    end(g);

    static const uint8_t target[16] = {0xfe, 0x80, [14] = 0xab, [15] = 0xcd};
    static const uint8_t sll[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
    msg_init(&m, OFPT_FLOW_MOD);
    fm->cookie = 0x77;
    fm->cookie_mask = UINT64_MAX;
    fm->table_id = 0x0e;
    fm->command = OFPFC_DELETE_STRICT;
    fm->priority = 0x7e57;
    fm->buffer_id = OFP_NO_BUFFER;
    fm->out_port = OFPP_ANY;
    fm->out_group = OFPG_ANY;
    ofp_match_init(&fm->match);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_ETH_TYPE, 0x86dd);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_IP_PROTO, 58);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_ICMPV6_TYPE, 135);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_ICMPV6_CODE, 0);
    ofp_match_set(&fm->match, OFPXMT_OFB_IPV6_ND_TARGET, target, NULL);
    ofp_match_set(&fm->match, OFPXMT_OFB_IPV6_ND_SLL, sll, NULL);
    if (emit(g, "FLOW_MOD delete_strict nd", &m, 104, "OFPT_FLOW_MOD", NULL) == 0) {
        ovs(g, "command", "DEL_STRICT");
        ovs(g, "table_id", "table:14");
        ovs(g, "priority", "priority=%u", 0x7e57);
        ovs(g, "cookie", "cookie:0x77/0xffffffffffffffff");
        ovs(g, "match.icmpv6_type", "icmp_type=135");
        ovs(g, "match.icmpv6_code", "icmp_code=0");
        ovs(g, "match.nd_target", "nd_target=fe80::abcd");
        ovs(g, "match.nd_sll", "nd_sll=02:11:22:33:44:55");
        ts(g, "fixed", "openflow_v4.flowmod.command=4 openflow_v4.flowmod.priority=%u",
           0x7e57);
    }
    end(g);
}

/* MODIFY over MPLS, SCTP and ICMPv4 fields, and the two fields ovs does not
 * know (PBB_ISID, IPV6_EXTHDR) in a message of their own. */
static void gen_flow_mod_fields(struct conf_gen *g)
{
    struct ofp_msg m;
    struct ofp_flow_mod *fm = &m.u.flow_mod;
    struct ofp_action out = act_output(2, 0);

    msg_init(&m, OFPT_FLOW_MOD);
    fm->command = OFPFC_MODIFY;
    fm->table_id = 1;
    fm->buffer_id = OFP_NO_BUFFER;
    fm->out_port = OFPP_ANY;
    fm->out_group = OFPG_ANY;
    ofp_match_init(&fm->match);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_IN_PORT, 4);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_ETH_TYPE, 0x8847);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_MPLS_LABEL, 0xfedcb);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_MPLS_TC, 6);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_MPLS_BOS, 1);
    fm->inst.present = OFP_INST_WRITE_ACTIONS;
    fm->inst.write_actions = (struct ofp_actions){.arr = &out, .n = 1};
    if (emit(g, "FLOW_MOD modify mpls", &m, 112, "OFPT_FLOW_MOD", NULL) == 0) {
        ovs(g, "command", "MOD");
        ovs(g, "table_id", "table:1");
        ovs(g, "match.proto", "mpls");
        ovs(g, "match.mpls_label", "mpls_label=%u", 0xfedcb);
        ovs(g, "match.mpls_tc", "mpls_tc=6");
        ovs(g, "match.mpls_bos", "mpls_bos=1");
        ovs(g, "actions", "actions=write_actions(output:2)");
    }
    end(g);

    msg_init(&m, OFPT_FLOW_MOD);
    fm->command = OFPFC_ADD;
    fm->priority = 0x0fff;
    fm->buffer_id = OFP_NO_BUFFER;
    fm->out_port = OFPP_ANY;
    fm->out_group = OFPG_ANY;
    ofp_match_init(&fm->match);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_ETH_TYPE, 0x0800);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_IP_PROTO, 132);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_SCTP_SRC, 0x0b0b);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_SCTP_DST, 0x0c0c);
    fm->inst.present = OFP_INST_GOTO_TABLE;
    fm->inst.goto_table = 0xfe;
    if (emit(g, "FLOW_MOD add sctp", &m, 88, "OFPT_FLOW_MOD", NULL) == 0) {
        ovs(g, "match.proto", "sctp");
        ovs(g, "match.sctp_src", "tp_src=%u", 0x0b0b);
        ovs(g, "match.sctp_dst", "tp_dst=%u", 0x0c0c);
        ovs(g, "goto_table", "actions=goto_table:254");
    }
    end(g);

    msg_init(&m, OFPT_FLOW_MOD);
    fm->command = OFPFC_ADD;
    fm->priority = 0x0ffe;
    fm->buffer_id = OFP_NO_BUFFER;
    fm->out_port = OFPP_ANY;
    fm->out_group = OFPG_ANY;
    ofp_match_init(&fm->match);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_ETH_TYPE, 0x0800);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_IP_PROTO, 1);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_ICMPV4_TYPE, 3);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_ICMPV4_CODE, 13);
    fm->inst.present = OFP_INST_CLEAR_ACTIONS;
    if (emit(g, "FLOW_MOD add icmp", &m, 88, "OFPT_FLOW_MOD", NULL) == 0) {
        ovs(g, "match.proto", "icmp");
        ovs(g, "match.icmp_type", "icmp_type=3");
        ovs(g, "match.icmp_code", "icmp_code=13");
        ovs(g, "clear_actions", "actions=clear_actions");
    }
    end(g);

    /* Fields ovs-ofctl 3.1 does not decode. */
    msg_init(&m, OFPT_FLOW_MOD);
    fm->command = OFPFC_ADD;
    fm->priority = 0x0ffd;
    fm->buffer_id = OFP_NO_BUFFER;
    fm->out_port = OFPP_ANY;
    fm->out_group = OFPG_ANY;
    ofp_match_init(&fm->match);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_IN_PORT, 9);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_IN_PHY_PORT, 10);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_ETH_TYPE, 0x88e7);
    ofp_match_set_uint_masked(&fm->match, OFPXMT_OFB_PBB_ISID, 0xabcd00, 0xffff00);
    if (emit(g, "FLOW_MOD add pbb_isid/in_phy_port", &m, 88, NULL,
             "ovs-ofctl 3.1 knows no PBB_ISID field (and rejects IN_PHY_PORT): "
             "checked with tshark only") == 0) {
        ts(g, "in_port", "openflow_v4.oxm.field=0 openflow_v4.oxm.hm=0 "
           "openflow_v4.oxm.length=4 openflow_v4.oxm.value_uint32=9");
        ts(g, "in_phy_port", "openflow_v4.oxm.field=1 openflow_v4.oxm.hm=0 "
           "openflow_v4.oxm.length=4 openflow_v4.oxm.value_uint32=10");
        ts(g, "eth_type", "openflow_v4.oxm.field=5 openflow_v4.oxm.value_ethertype=0x88e7");
        ts(g, "pbb_isid", "openflow_v4.oxm.field=37 openflow_v4.oxm.hm=1 "
           "openflow_v4.oxm.length=6 openflow_v4.oxm.value=ab:cd:00 "
           "openflow_v4.oxm.mask=ff:ff:00");
    }
    end(g);

    msg_init(&m, OFPT_FLOW_MOD);
    fm->command = OFPFC_ADD;
    fm->priority = 0x0ffc;
    fm->buffer_id = OFP_NO_BUFFER;
    fm->out_port = OFPP_ANY;
    fm->out_group = OFPG_ANY;
    ofp_match_init(&fm->match);
    ofp_match_set_uint(&fm->match, OFPXMT_OFB_ETH_TYPE, 0x86dd);
    ofp_match_set_uint_masked(&fm->match, OFPXMT_OFB_IPV6_EXTHDR,
                              OFPIEH_HOP | OFPIEH_FRAG, OFPIEH_HOP | OFPIEH_FRAG | OFPIEH_ESP);
    if (emit(g, "FLOW_MOD add ipv6_exthdr", &m, 72, NULL,
             "ovs-ofctl 3.1 knows no IPV6_EXTHDR field: checked with tshark only") == 0) {
        ts(g, "ipv6_exthdr", "openflow_v4.oxm.field=39 openflow_v4.oxm.hm=1 "
           "openflow_v4.oxm.length=4 openflow_v4.oxm.value=00:50 "
           "openflow_v4.oxm.mask=00:52");
    }
    end(g);
}

/* ---- GROUP_MOD ---------------------------------------------------------- */

static void gen_group_mod(struct conf_gen *g)
{
    static const uint8_t ip_src[4] = {100, 64, 0, 1};
    struct ofp_action a1[] = {act_field(OFPXMT_OFB_IPV4_SRC, ip_src, 4), act_output(5, 0)};
    struct ofp_action a2[] = {{.type = OFPAT_DEC_NW_TTL}, act_output(6, 0)};
    struct ofp_action a3[] = {act_output(7, 0)};
    struct ofp_bucket sel[] = {
        {.weight = 0x0a0b, .watch_port = OFPP_ANY, .watch_group = OFPG_ANY,
         .actions = {.arr = a1, .n = 2}},
        {.weight = 3, .watch_port = OFPP_ANY, .watch_group = OFPG_ANY,
         .actions = {.arr = a2, .n = 2}},
    };
    struct ofp_bucket all[] = {
        {.watch_port = OFPP_ANY, .watch_group = OFPG_ANY, .actions = {.arr = a1, .n = 2}},
        {.watch_port = OFPP_ANY, .watch_group = OFPG_ANY, .actions = {.arr = a3, .n = 1}},
        {.watch_port = OFPP_ANY, .watch_group = OFPG_ANY, .actions = {.n = 0}},
    };
    struct ofp_bucket ff[] = {
        {.watch_port = 5, .watch_group = OFPG_ANY, .actions = {.arr = a3, .n = 1}},
        {.watch_port = OFPP_ANY, .watch_group = 0x0e0f, .actions = {.arr = a2, .n = 2}},
    };
    struct ofp_msg m;

    msg_init(&m, OFPT_GROUP_MOD);
    m.u.group_mod = (struct ofp_group_mod){OFPGC_ADD, OFPGT_SELECT, 0x00abcd01,
                                           {.arr = sel, .n = 2}};
    if (emit(g, "GROUP_MOD add select", &m, 104, "OFPT_GROUP_MOD", NULL) == 0) {
        ovs(g, "group", "ADD group_id=%u type=select", 0x00abcd01);
        ovs(g, "bucket0", "bucket=weight:%u actions=set_field:100.64.0.1->ip_src output:5",
            0x0a0b);
        ovs(g, "bucket1", "bucket=weight:3 actions=dec_ttl output:6");
        ts(g, "fixed", "openflow_v4.groupmod.command=0 openflow_v4.groupmod.type=1 "
           "openflow_v4.groupmod.group_id=%u", 0x00abcd01);
        ts(g, "buckets", "openflow_v4.bucket.length=48 openflow_v4.bucket.weight=%u "
           "openflow_v4.bucket.watch_port=%u openflow_v4.bucket.watch_group=%u "
           "openflow_v4.bucket.length=40 openflow_v4.bucket.weight=3",
           0x0a0b, OFPP_ANY, OFPG_ANY);
    }
    end(g);

    msg_init(&m, OFPT_GROUP_MOD);
    m.u.group_mod = (struct ofp_group_mod){OFPGC_MODIFY, OFPGT_ALL, 0x0102,
                                           {.arr = all, .n = 3}};
    if (emit(g, "GROUP_MOD modify all", &m, 112, "OFPT_GROUP_MOD", NULL) == 0) {
        ovs(g, "group", "MOD group_id=%u type=all", 0x0102);
        ovs(g, "buckets", "bucket=actions=set_field:100.64.0.1->ip_src output:5 "
            "bucket=actions=output:7 bucket=actions=drop");
        ts(g, "fixed", "openflow_v4.groupmod.command=1 openflow_v4.groupmod.type=0 "
           "openflow_v4.groupmod.group_id=%u", 0x0102);
        ts(g, "buckets", "openflow_v4.bucket.length=48 openflow_v4.bucket.weight=0 "
           "openflow_v4.bucket.length=32 openflow_v4.bucket.length=16");
    }
    end(g);

    msg_init(&m, OFPT_GROUP_MOD);
    m.u.group_mod = (struct ofp_group_mod){OFPGC_ADD, OFPGT_FF, 0x77, {.arr = ff, .n = 2}};
    if (emit(g, "GROUP_MOD add fast_failover", &m, 88, "OFPT_GROUP_MOD", NULL) == 0) {
        ovs(g, "group", "ADD group_id=%u type=ff", 0x77);
        ovs(g, "bucket0", "bucket=watch_port:5 actions=output:7");
        ovs(g, "bucket1", "bucket=watch_group:%u actions=dec_ttl output:6", 0x0e0f);
        ts(g, "buckets", "openflow_v4.bucket.watch_port=5 openflow_v4.bucket.watch_group=%u "
           "openflow_v4.bucket.watch_port=%u openflow_v4.bucket.watch_group=%u",
           OFPG_ANY, OFPP_ANY, 0x0e0f);
    }
    end(g);

    msg_init(&m, OFPT_GROUP_MOD);
    m.u.group_mod = (struct ofp_group_mod){OFPGC_DELETE, OFPGT_INDIRECT, 0x00abcd01, {.n = 0}};
    if (emit(g, "GROUP_MOD delete", &m, 16, "OFPT_GROUP_MOD", NULL) == 0) {
        ovs(g, "group", "DEL group_id=%u type=indirect", 0x00abcd01);
        ts(g, "fixed", "openflow_v4.groupmod.command=2 "
           "openflow_v4.groupmod.type=2");
    }
    end(g);
}

/* ---- PORT_MOD, TABLE_MOD, METER_MOD --------------------------------------- */

static void gen_port_table_mod(struct conf_gen *g)
{
    struct ofp_msg m;

    msg_init(&m, OFPT_PORT_MOD);
    m.u.port_mod = (struct ofp_port_mod){
        .port_no = 0x0c, .hw_addr = {0x02, 0x12, 0x34, 0x56, 0x78, 0x9a},
        .config = OFPPC_PORT_DOWN | OFPPC_NO_FWD,
        .mask = OFPPC_PORT_DOWN | OFPPC_NO_RECV | OFPPC_NO_FWD,
        .advertise = OFPPF_100MB_FD | OFPPF_1GB_FD | OFPPF_COPPER | OFPPF_AUTONEG};
    if (emit(g, "PORT_MOD", &m, 40, "OFPT_PORT_MOD", NULL) == 0) {
        ovs(g, "port_hw_addr", "port: 12: addr:02:12:34:56:78:9a");
        ovs(g, "config", "config: PORT_DOWN NO_FWD mask:");
        ovs(g, "mask", "mask: PORT_DOWN NO_RECV NO_FWD advertise:");
        ovs(g, "advertise", "advertise: 100MB-FD 1GB-FD COPPER AUTO_NEG");
        ts(g, "body", "openflow_v4.portmod.port_no=12 "
           "openflow_v4.portmod.hw_addr=02:12:34:56:78:9a openflow_v4.portmod.config=0x%08x "
           "openflow_v4.portmod.mask=0x%08x openflow_v4.portmod.advertise=0x%08x",
           OFPPC_PORT_DOWN | OFPPC_NO_FWD, OFPPC_PORT_DOWN | OFPPC_NO_RECV | OFPPC_NO_FWD,
           OFPPF_100MB_FD | OFPPF_1GB_FD | OFPPF_COPPER | OFPPF_AUTONEG);
    }
    end(g);

    msg_init(&m, OFPT_TABLE_MOD);
    m.u.table_mod = (struct ofp_table_mod){.table_id = 0x2b, .config = 0};
    if (emit(g, "TABLE_MOD", &m, 16, "OFPT_TABLE_MOD", NULL) == 0) {
        ovs(g, "table_id", "table_id=43");
        ts(g, "body", "openflow_v4.tablemod.table_id=43 openflow_v4.tablemod.config=00:00:00:00");
    }
    end(g);

    msg_init(&m, OFPT_TABLE_MOD);
    m.u.table_mod = (struct ofp_table_mod){.table_id = OFPTT_ALL, .config = 3};
    if (emit(g, "TABLE_MOD all tables", &m, 16, "OFPT_TABLE_MOD", NULL) == 0) {
        ovs(g, "table_id", "table_id: ALL_TABLES");
        note(g, "config=3 (OFPTC_DEPRECATED_MASK): ovs-ofctl does not print OF1.3 table "
             "config, checked with tshark");
        ts(g, "body", "openflow_v4.tablemod.table_id=255 openflow_v4.tablemod.config=00:00:00:03");
    }
    end(g);
}

static void gen_meter_mod(struct conf_gen *g)
{
    struct ofp_meter_band bands[] = {
        {.type = OFPMBT_DROP, .rate = 10000, .burst_size = 1500},
        {.type = OFPMBT_DSCP_REMARK, .rate = 0x00012345, .burst_size = 0x0678, .prec_level = 2},
    };
    struct ofp_msg m;

    msg_init(&m, OFPT_METER_MOD);
    m.u.meter_mod = (struct ofp_meter_mod){OFPMC_ADD, OFPMF_KBPS | OFPMF_BURST | OFPMF_STATS,
                                           0x21, {.arr = bands, .n = 2}};
    if (emit(g, "METER_MOD add drop+dscp_remark", &m, 48, "OFPT_METER_MOD", NULL) == 0) {
        ovs(g, "command_id", "ADD meter=33");
        ovs(g, "flags", "kbps burst stats bands=");
        ovs(g, "band0", "type=drop rate=10000 burst_size=1500");
        ovs(g, "band1", "type=dscp_remark rate=%u burst_size=%u prec_level=2", 0x12345,
            0x0678);
        ts(g, "fixed", "openflow_v4.metermod.command=0 openflow_v4.metermod.flags=0x0000000d "
           "openflow_v4.metermod.meter_id=33");
        ts(g, "bands", "openflow_v4.meter_band.type=1 openflow_v4.meter_band.length=16 "
           "openflow_v4.meter_band.rate=10000 openflow_v4.meter_band.burst_size=1500 "
           "openflow_v4.meter_band.type=2 openflow_v4.meter_band.length=16 "
           "openflow_v4.meter_band.rate=%u openflow_v4.meter_band.burst_size=%u "
           "openflow_v4.meter_band.dscp_remark.prec_level=2", 0x12345, 0x0678);
    }
    end(g);

    struct ofp_meter_band pk[] = {{.type = OFPMBT_DROP, .rate = 777, .burst_size = 0}};
    msg_init(&m, OFPT_METER_MOD);
    m.u.meter_mod = (struct ofp_meter_mod){OFPMC_MODIFY, OFPMF_PKTPS, 0x00fedcba,
                                           {.arr = pk, .n = 1}};
    if (emit(g, "METER_MOD modify pktps", &m, 32, "OFPT_METER_MOD", NULL) == 0) {
        ovs(g, "command_id", "MOD meter=%u pktps bands=", 0x00fedcba);
        ovs(g, "band0", "type=drop rate=777");
        ts(g, "fixed", "openflow_v4.metermod.command=1 openflow_v4.metermod.flags=0x00000002 "
           "openflow_v4.metermod.meter_id=%u", 0x00fedcba);
    }
    end(g);

    msg_init(&m, OFPT_METER_MOD);
    m.u.meter_mod = (struct ofp_meter_mod){OFPMC_DELETE, 0, 0x21, {.n = 0}};
    if (emit(g, "METER_MOD delete", &m, 16, "OFPT_METER_MOD", NULL) == 0) {
        ovs(g, "command_id", "DEL meter=33");
        ts(g, "fixed", "openflow_v4.metermod.command=2 "
           "openflow_v4.metermod.meter_id=33");
    }
    end(g);
}

/* ---- MULTIPART_REQUEST ------------------------------------------------------ */

static void gen_multipart(struct conf_gen *g)
{
    struct ofp_msg m;
    struct ofp_mp_request *r = &m.u.mp_request;

    msg_init(&m, OFPT_MULTIPART_REQUEST);
    r->type = OFPMP_DESC;
    if (emit(g, "MULTIPART_REQUEST desc", &m, 16, "OFPST_DESC request", NULL) == 0)
        ts(g, "mp", "openflow_v4.multipart_request.type=0 "
           "openflow_v4.multipart_request.flags=0x0000");
    end(g);

    /* FLOW and AGGREGATE: every selector set. */
    static const uint16_t fa[2] = {OFPMP_FLOW, OFPMP_AGGREGATE};
    for (int i = 0; i < 2; i++) {
        msg_init(&m, OFPT_MULTIPART_REQUEST);
        r->type = fa[i];
        r->u.flow.table_id = (uint8_t)(4 + i);
        r->u.flow.out_port = 0x09;
        r->u.flow.out_group = 0x0333;
        r->u.flow.cookie = 0x0000beef00000000ull;
        r->u.flow.cookie_mask = 0x0000ffff00000000ull;
        ofp_match_init(&r->u.flow.match);
        ofp_match_set_uint(&r->u.flow.match, OFPXMT_OFB_ETH_TYPE, 0x0800);
        ofp_match_set_uint_masked(&r->u.flow.match, OFPXMT_OFB_IPV4_DST, 0x0a630000,
                                  0xffff0000);
        const char *name = i ? "MULTIPART_REQUEST aggregate" : "MULTIPART_REQUEST flow";
        const char *pre = i ? "aggregate_stats_request" : "flow_stats_request";
        if (emit(g, name, &m, 72, i ? "OFPST_AGGREGATE request" : "OFPST_FLOW request",
                 NULL) == 0) {
            ovs(g, "table_id", "table=%d", 4 + i);
            ovs(g, "out_port", "out_port=9");
            ovs(g, "match.proto", "ip");
            ovs(g, "match.ipv4_dst", "nw_dst=10.99.0.0/16");
            note(g, "out_group, cookie and cookie_mask are not printed by ovs-ofctl for "
                 "OF1.3 stats requests: checked with tshark");
            ts(g, "body", "openflow_v4.multipart_request.type=%u "
               "openflow_v4.%s.table_id=%d openflow_v4.%s.out_port=9 "
               "openflow_v4.%s.out_group=%u openflow_v4.%s.cookie=0x0000beef00000000 "
               "openflow_v4.%s.cookie_mask=0x0000ffff00000000",
               fa[i], pre, 4 + i, pre, pre, 0x0333, pre, pre);
            ts(g, "match", "openflow_v4.oxm.field=5 openflow_v4.oxm.value_ethertype=0x0800 "
               "openflow_v4.oxm.field=12 openflow_v4.oxm.hm=1 "
               "openflow_v4.oxm.value_ipv4addr=10.99.0.0 "
               "openflow_v4.oxm.ipv4_mask=255.255.0.0");
        }
        end(g);
    }

    /* What ofcd's stats poller sends: everything. */
    msg_init(&m, OFPT_MULTIPART_REQUEST);
    r->type = OFPMP_FLOW;
    r->u.flow.table_id = OFPTT_ALL;
    r->u.flow.out_port = OFPP_ANY;
    r->u.flow.out_group = OFPG_ANY;
    ofp_match_init(&r->u.flow.match);
    if (emit(g, "MULTIPART_REQUEST flow all", &m, 56, "OFPST_FLOW request", NULL) == 0) {
        ts(g, "body", "openflow_v4.flow_stats_request.table_id=255 "
           "openflow_v4.flow_stats_request.out_port=%u "
           "openflow_v4.flow_stats_request.out_group=%u "
           "openflow_v4.match.type=1 openflow_v4.match.length=4",
           OFPP_ANY, OFPG_ANY);
    }
    end(g);

    msg_init(&m, OFPT_MULTIPART_REQUEST);
    r->type = OFPMP_TABLE;
    if (emit(g, "MULTIPART_REQUEST table", &m, 16, "OFPST_TABLE request", NULL) == 0)
        ts(g, "mp", "openflow_v4.multipart_request.type=3");
    end(g);

    msg_init(&m, OFPT_MULTIPART_REQUEST);
    r->type = OFPMP_PORT_STATS;
    r->u.port_no = 0x0d;
    if (emit(g, "MULTIPART_REQUEST port_stats", &m, 24, "OFPST_PORT request", NULL) == 0) {
        ovs(g, "port_no", "port_no=13");
        ts(g, "mp", "openflow_v4.multipart_request.type=4 "
           "openflow_v4.port_stats_request.port_no=13");
    }
    end(g);

    msg_init(&m, OFPT_MULTIPART_REQUEST);
    r->type = OFPMP_PORT_STATS;
    r->u.port_no = OFPP_ANY;
    if (emit(g, "MULTIPART_REQUEST port_stats any", &m, 24, "OFPST_PORT request", NULL) == 0) {
        ovs(g, "port_no", "port_no=ANY");
        ts(g, "mp", "openflow_v4.port_stats_request.port_no=%u", OFPP_ANY);
    }
    end(g);

    msg_init(&m, OFPT_MULTIPART_REQUEST);
    r->type = OFPMP_QUEUE;
    r->u.queue.port_no = 3;
    r->u.queue.queue_id = 0x44;
    if (emit(g, "MULTIPART_REQUEST queue", &m, 24, "OFPST_QUEUE request", NULL) == 0) {
        ovs(g, "port_queue", "port=3 queue=68");
        ts(g, "mp", "openflow_v4.multipart_request.type=5 "
           "openflow_v4.queue_stats_request.port_no=3 "
           "openflow_v4.queue_stats_request.queue_id=68");
    }
    end(g);

    msg_init(&m, OFPT_MULTIPART_REQUEST);
    r->type = OFPMP_GROUP;
    r->u.group_id = 0x0555;
    if (emit(g, "MULTIPART_REQUEST group", &m, 24, "OFPST_GROUP request", NULL) == 0) {
        ovs(g, "group_id", "group_id=%u", 0x0555);
        ts(g, "mp", "openflow_v4.multipart_request.type=6 "
           "openflow_v4.group_stats_request.group_id=%u", 0x0555);
    }
    end(g);

    msg_init(&m, OFPT_MULTIPART_REQUEST);
    r->type = OFPMP_GROUP_DESC;
    if (emit(g, "MULTIPART_REQUEST group_desc", &m, 16, "OFPST_GROUP_DESC request", NULL) == 0) {
        ts(g, "mp", "openflow_v4.multipart_request.type=7");
    }
    end(g);

    msg_init(&m, OFPT_MULTIPART_REQUEST);
    r->type = OFPMP_METER;
    r->u.meter_id = 0x66;
    if (emit(g, "MULTIPART_REQUEST meter", &m, 24, "OFPST_METER request", NULL) == 0) {
        ovs(g, "meter_id", "meter=102");
        ts(g, "mp", "openflow_v4.multipart_request.type=9 "
           "openflow_v4.meter_stats_request.meter_id=102");
    }
    end(g);

    msg_init(&m, OFPT_MULTIPART_REQUEST);
    r->type = OFPMP_PORT_DESC;
    if (emit(g, "MULTIPART_REQUEST port_desc", &m, 16, "OFPST_PORT_DESC request", NULL) == 0)
        ts(g, "mp", "openflow_v4.multipart_request.type=13");
    end(g);
}

/* ---- ROLE, SET_ASYNC ---------------------------------------------------------- */

static void gen_role_async(struct conf_gen *g)
{
    static const struct {
        uint32_t role;
        uint64_t gen;
        const char *name, *ovs_role;
    } roles[] = {
        {OFPCR_ROLE_MASTER, 0x0102030405060708ull, "ROLE_REQUEST master", "primary"},
        {OFPCR_ROLE_SLAVE, 0x8000000000000001ull, "ROLE_REQUEST slave", "secondary"},
        {OFPCR_ROLE_EQUAL, 0, "ROLE_REQUEST equal", "equal"},
    };
    struct ofp_msg m;

    for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
        msg_init(&m, OFPT_ROLE_REQUEST);
        m.u.role = (struct ofp_role){roles[i].role, roles[i].gen};
        if (emit(g, roles[i].name, &m, 24, "OFPT_ROLE_REQUEST", NULL) == 0) {
            ovs(g, "role", "role=%s", roles[i].ovs_role);
            if (roles[i].role != OFPCR_ROLE_EQUAL)
                ovs(g, "generation_id", "generation_id=%llu",
                    (unsigned long long)roles[i].gen);
            ts(g, "body", "openflow_v4.role_request.role=0x%08x "
               "openflow_v4.role_request.generation_id=0x%016llx", roles[i].role,
               (unsigned long long)roles[i].gen);
        }
        end(g);
    }

    msg_init(&m, OFPT_SET_ASYNC);
    m.u.async = (struct ofp_async){
        .packet_in_mask = {1u << OFPR_NO_MATCH | 1u << OFPR_ACTION, 1u << OFPR_INVALID_TTL},
        .port_status_mask = {1u << OFPPR_ADD | 1u << OFPPR_MODIFY, 1u << OFPPR_DELETE},
        .flow_removed_mask = {1u << OFPRR_IDLE_TIMEOUT | 1u << OFPRR_DELETE,
                              1u << OFPRR_HARD_TIMEOUT | 1u << OFPRR_GROUP_DELETE},
    };
    if (emit(g, "SET_ASYNC", &m, 32, "OFPT_SET_ASYNC", NULL) == 0) {
        ovs(g, "master", "primary: PACKET_IN: no_match action PORT_STATUS: add modify "
            "FLOW_REMOVED: idle delete ROLE_STATUS:");
        ovs(g, "slave", "secondary: PACKET_IN: invalid_ttl PORT_STATUS: delete "
            "FLOW_REMOVED: hard group_delete ROLE_STATUS:");
        ts(g, "masks", "openflow_v4.async_config.packet_in_mask.master=0x00000003 "
           "openflow_v4.async_config.packet_in_mask.slave=0x00000004 "
           "openflow_v4.async_config.port_status_mask.master=0x00000005 "
           "openflow_v4.async_config.port_status_mask.slave=0x00000002 "
           "openflow_v4.async_config.flow_removed_mask.master=0x00000005 "
           "openflow_v4.async_config.flow_removed_mask.slave=0x0000000a");
    }
    end(g);
}

int main(int argc, char **argv)
{
    char path[4096];
    struct conf_gen g = {.xid = 0x0a0b0c01u};

    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    snprintf(path, sizeof(path), "%s/vectors.txt", argv[1]);
    g.vec = fopen(path, "w");
    snprintf(path, sizeof(path), "%s/ofp13.pcap", argv[1]);
    g.pcap = fopen(path, "wb");
    struct ofcd_pcapng_ends ends = {.switch_ip = CONF_SW_IP, .ofcd_ip = CONF_CTRL_IP,
                                    .switch_port = CONF_SW_PORT, .ofcd_port = OFP13_TCP_PORT};
    if (!g.vec || !g.pcap ||
        ofcd_pcapng_begin(&g.cap, &ends, "ofp_conform_gen: one of every message ofcd sends",
                          CONF_T0_NS) < 0) {
        fprintf(stderr, "ofp_conform_gen: cannot write into %s\n", argv[1]);
        return 2;
    }

    gen_hello(&g);
    gen_errors(&g);
    gen_echo_and_empty(&g);
    gen_set_config(&g);
    gen_packet_out(&g);
    gen_flow_mod_add(&g);
    gen_flow_mod_modify(&g);
    gen_flow_mod_delete(&g);
    gen_flow_mod_fields(&g);
    gen_group_mod(&g);
    gen_port_table_mod(&g);
    gen_meter_mod(&g);
    gen_multipart(&g);
    gen_role_async(&g);

    if (g.cap.err || fwrite(g.cap.p, g.cap.len, 1, g.pcap) != 1 || fclose(g.vec) != 0 ||
        fclose(g.pcap) != 0) {
        fprintf(stderr, "ofp_conform_gen: cannot write into %s\n", argv[1]);
        return 2;
    }
    fprintf(stderr, "ofp_conform_gen: %u messages, %u frames\n", g.n_msgs,
            (unsigned)g.cap.frames);
    ofcd_pcapng_free(&g.cap);
    return g.failures ? 1 : 0;
}
