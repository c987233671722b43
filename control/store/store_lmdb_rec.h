/*
 * store_lmdb_rec: the bytes of store_lmdb's values — a flow's record in the
 * "flows" database and its state record in "state" — written and read.
 * Pure byte work: no LMDB, no I/O, no state.
 *
 * A flow's value: a header, then the owner's bytes, then the JSON's (coded
 * by store_jcode when REC_FLAG_JCODED). Two header layouts, in native byte
 * order (the file never leaves this machine):
 *
 *   version 2, written since 2026-12-05: 22 bytes for most flows
 *     [0] REC2_MAGIC  [1] state  [2] flags  [3] owner length (0..255)
 *     json length: 2 bytes, or 4 with REC_FLAG_LONG
 *     flow_id 8, added_ns 8
 *     changed_ns 8       only with REC_FLAG_CHANGED (else it is added_ns)
 *     err type 2, code 2 only with REC_FLAG_ERR (else 0, 0)
 *   version 1 ("OFS1", read only): 40 bytes, every field always there.
 *
 * A record only takes the bytes it needs: in a B-tree of ~110-byte leaf
 * entries the 18 bytes version 1 always spent on a magic word, zero error
 * codes and a second copy of the time were a sixth of the store.
 *
 * A state record (a flow's state since its put: installed, error): 18
 * bytes, or 22 with its error; version 1's were 24, always with an error
 * (zero) and padding. The length tells the two apart.
 *
 * The json length is the text's; a coded text is shorter, and what the
 * value leaves after header and owner is its coded length.
 */
#ifndef OFCD_STORE_LMDB_REC_H
#define OFCD_STORE_LMDB_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REC_FLAG_JCODED 0x01u   /* the JSON bytes are store_jcode's */
#define REC_FLAG_CHANGED 0x02u  /* version 2: changed_ns is stored (differs from added) */
#define REC_FLAG_ERR 0x04u      /* version 2: err type and code are stored */
#define REC_FLAG_LONG 0x08u     /* version 2: the json length takes 4 bytes */

#define REC_HDR_MAX 40          /* the longest header of either version */
#define REC_STATE_MAX 24        /* the longest state record of either version */

/* A flow record's header, decoded. */
struct rec_hdr {
    uint8_t state;              /* enum store_flow_state */
    bool coded;                 /* the JSON bytes are coded (store_jcode.h) */
    uint16_t err_type, err_code;
    uint8_t owner_len;
    uint32_t json_len;          /* the text's length, coded or not */
    uint64_t flow_id;
    uint64_t added_ns, changed_ns;
};

/* Bytes rec_hdr_write() takes for h. */
size_t rec_hdr_len(const struct rec_hdr *h);
/* h as a version 2 header at p (rec_hdr_len(h) bytes); that length. */
size_t rec_hdr_write(uint8_t *p, const struct rec_hdr *h);
/*
 * The header of the n-byte value at p (either version) into *h; its length
 * returned, or -EIO when it is no record: a wrong magic, a state or flag
 * unknown, a length past the value, a coded length that is not shorter
 * than the text or a plain one that is not the text's.
 */
int rec_hdr_read(const uint8_t *p, size_t n, struct rec_hdr *h);

/* A state record. */
struct rec_state {
    uint8_t state;              /* INSTALLED or ERROR (PENDING is allowed) */
    uint16_t err_type, err_code;
    uint64_t flow_id;           /* the version of the flow it is about */
    uint64_t changed_ns;
};

/* s at p (at most REC_STATE_MAX bytes); its length. */
size_t rec_state_write(uint8_t *p, const struct rec_state *s);
/* The n-byte state record at p into *s: 0, or -EIO when it is none. */
int rec_state_read(const uint8_t *p, size_t n, struct rec_state *s);

#endif
