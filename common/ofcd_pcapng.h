/*
 * ofcd_pcapng: a switch's control channel as a standard capture file
 * (pcapng), built in memory: the OpenFlow bytes each way carried on a
 * synthesized TCP stream between the switch's address and port and
 * ofcd's, so that Wireshark's and tshark's OpenFlow dissector (TCP port
 * 6653) decodes it. The flight recorder's export (issue 51); pure — no
 * clock, no I/O, no global state.
 *
 * The file: one Section Header Block (with a comment: what the capture
 * is), one Interface Description Block (Ethernet, nanosecond
 * timestamps), then an Enhanced Packet Block per frame, its flags saying
 * inbound (switch to ofcd) or outbound. The stream opens with the
 * three-way handshake (the switch connects), then each record's bytes go
 * as TCP segments of at most OFCD_PCAPNG_SEG_MAX bytes, every frame with
 * correct IPv4 and TCP checksums and contiguous sequence numbers (a
 * record lost to the recorder's bound leaves no gap: the stream is what
 * was kept). Multi-byte fields of the blocks are little-endian (the
 * section's byte-order magic says so); the frames are network order.
 *
 * Every call returns 0 or -ENOMEM / -EINVAL; after a failure the writer
 * holds what it had and further calls fail the same.
 */
#ifndef OFCD_PCAPNG_H
#define OFCD_PCAPNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OFCD_PCAPNG_SEG_MAX 16384u          /* TCP payload of one frame */
#define OFCD_PCAPNG_COMMENT_MAX 1024u

/* The two ends, host order: the switch (the TCP client) and ofcd. */
struct ofcd_pcapng_ends {
    uint32_t switch_ip, ofcd_ip;
    uint16_t switch_port, ofcd_port;
};

struct ofcd_pcapng {
    uint8_t *p;
    size_t len, cap;
    int err;
    struct ofcd_pcapng_ends ends;
    uint32_t seq[2];                        /* next: [0] the switch's, [1] ofcd's */
    uint16_t ip_id;
    uint64_t frames;
};

/* The section, the interface and the handshake at t_ns (ns since the
 * epoch); comment (NUL-terminated, at most OFCD_PCAPNG_COMMENT_MAX bytes)
 * may be NULL. */
int ofcd_pcapng_begin(struct ofcd_pcapng *w, const struct ofcd_pcapng_ends *ends,
                      const char *comment, uint64_t t_ns);
/* One record: n bytes sent at t_ns by the switch (to_ofcd) or by ofcd. */
int ofcd_pcapng_data(struct ofcd_pcapng *w, bool to_ofcd, uint64_t t_ns, const void *bytes,
                     size_t n);
void ofcd_pcapng_free(struct ofcd_pcapng *w);

#endif
