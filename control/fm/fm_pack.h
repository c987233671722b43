/*
 * fm_pack: an ADD FLOW_MOD's wire bytes as the flow manager's mirror keeps
 * them, one copy per stored flow (a million and more).
 *
 * The first 48 bytes of every ADD the flow manager encodes are the same
 * but for 17: the OpenFlow header (version, type, the length the mirror
 * keeps anyway, xid 0), a zero cookie mask, the ADD command, no buffer,
 * any port, any group and the padding never vary; the cookie, table,
 * timeouts, priority and flags do. A packed form keeps those 17 bytes and
 * the match and instructions after the head as they are, 31 bytes less
 * per flow. Wire bytes of any other shape are not packed (fm_pack_size
 * says 0) and the mirror keeps them whole.
 *
 * Pure functions; any thread.
 */
#ifndef OFCD_FM_PACK_H
#define OFCD_FM_PACK_H

#include <stddef.h>
#include <stdint.h>

#define FM_PACK_HEAD 48u    /* ofp_header + ofp_flow_mod's fixed fields */
#define FM_PACK_KEPT 17u    /* of them: cookie, table_id, idle, hard, priority, flags */
#define FM_PACK_SAVED (FM_PACK_HEAD - FM_PACK_KEPT)

/* The packed size of wire[0..len), or 0 when it is not packed (above). */
size_t fm_pack_size(const uint8_t *wire, size_t len);
/* Write wire's packed form (fm_pack_size(wire, len) bytes, not 0) to out. */
void fm_pack(const uint8_t *wire, size_t len, uint8_t *out);
/* The len wire bytes of a packed form (fm_pack(wire, len, packed)) into out. */
void fm_unpack(const uint8_t *packed, size_t len, uint8_t *out);

#endif
