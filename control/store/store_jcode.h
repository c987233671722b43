/*
 * store_jcode: the flows' JSON text, shorter in their records.
 *
 * A stored flow's text is mostly the same few dozen names (Kytos-ng's
 * "priority", "match", "actions", "action_type", ...) and the separators
 * ": " and ", ". Valid JSON never holds a raw byte below 0x20 but tab,
 * line feed and carriage return (inside strings they must be escaped), so
 * 28 of those bytes stand for 28 such pieces: each piece of the text that
 * is one of them becomes one byte, every other byte stays itself. The
 * coding is a substitution of byte strings, not a parse: it gives back the
 * exact text (spacing, key order, escapes), JSON or not, and needs no
 * state. A text holding any of the 28 bytes itself cannot be coded: its
 * record keeps it as is (store_lmdb.c says which in the record's header).
 *
 * The table below is part of the stored format: pieces may be appended
 * only while codes are free; none may change or move.
 *
 * Pure functions, no allocation; any thread.
 */
#ifndef OFCD_STORE_JCODE_H
#define OFCD_STORE_JCODE_H

#include <stddef.h>

/*
 * Code text[0..len) into out (room for len bytes: a coded text is never
 * longer). The coded length, or -EINVAL when the text holds one of the
 * code bytes (store it as is), or -E2BIG when coding would not make it
 * shorter (store it as is).
 */
long store_jcode_encode(const char *text, size_t len, unsigned char *out);

/*
 * Decode in[0..in_len) into out, which must hold exactly out_len bytes:
 * 0, or -EIO when in does not decode to exactly out_len bytes (a damaged
 * record). Never reads or writes past either buffer.
 */
int store_jcode_decode(const unsigned char *in, size_t in_len, char *out, size_t out_len);

#endif
