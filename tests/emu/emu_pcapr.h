/*
 * emu_pcapr: an OpenFlow session read back from a pcapng capture (ofcd's
 * flight record, or any capture of one TCP connection to a controller):
 * the TCP payload of each direction put back in order by sequence number,
 * cut into OpenFlow messages, each with its direction and the time of the
 * packet that completed it, in the order they were sent.
 *
 * The switch's end is the one that sent the first SYN, or, with none in
 * the file, the one whose port is not ctl_port. Only Ethernet + IPv4 + TCP
 * packets of that one connection are read (another connection in the
 * file: -EINVAL). A segment sent again (a sequence number already read) is
 * skipped; a gap (a segment missing) is -EBADMSG. Pure: bytes in, a list
 * out, every length checked against what is there.
 */
#ifndef EMU_PCAPR_H
#define EMU_PCAPR_H

#include <stddef.h>
#include <stdint.h>

enum emu_pcapr_dir { EMU_PCAPR_FROM_SWITCH = 0, EMU_PCAPR_FROM_CONTROLLER = 1 };

struct emu_pcapr_msg {
    enum emu_pcapr_dir dir;
    uint64_t t_ns;                  /* the capture's timestamp (ns since 1970) */
    uint8_t *data;                  /* the whole message (owned by the session) */
    uint16_t len;
};

struct emu_pcapr_session {
    struct emu_pcapr_msg *msg;
    size_t n, cap;
    size_t trailing[2];             /* bytes after the last whole message, per direction */
};

/* Read file bytes p[0..len) (ctl_port: the controller's TCP port when the
 * file has no SYN; 0 = 6653). 0, or -EINVAL (not pcapng, a packet of
 * another connection), -EBADMSG (a block or packet cut short, a gap in a
 * stream, an OpenFlow length below 8), -ENOMEM; why says which in words. */
int emu_pcapr_read(const uint8_t *p, size_t len, uint16_t ctl_port,
                   struct emu_pcapr_session *out, char *why, size_t why_len);
void emu_pcapr_free(struct emu_pcapr_session *s);

#endif
