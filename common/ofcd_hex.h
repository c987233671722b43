/*
 * ofcd_hex: bytes as lower-case hex digits and back, for the records ofcd
 * writes as text (password salts and hashes, LLDP keys, link ids).
 */
#ifndef OFCD_HEX_H
#define OFCD_HEX_H

#include <stddef.h>
#include <stdint.h>

/* The n bytes of b as 2n lower-case hex digits and a NUL into out (2n + 1
 * bytes). */
void ofcd_hex_encode(char *out, const uint8_t *b, size_t n);

/* Exactly 2n hex digits (either case; nothing else: no spaces, signs or
 * 0x) from s (len bytes) into b. 0, or -EINVAL. */
int ofcd_hex_decode(const char *s, size_t len, uint8_t *b, size_t n);

#endif
