/*
 * ofp_test_util: test-only helpers for the ofp/ codec tests and the fuzz
 * target — a catalogue of valid sample messages (one or more per message
 * and multipart type, with every kind of variable part), message equality
 * by meaning (views compared by content), hex vectors, and exact-size heap
 * copies so ASan sees any read past a message.
 */
#ifndef OFCD_OFP_TEST_UTIL_H
#define OFCD_OFP_TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofp_msg.h"

/* Sample i (0, 1, ...) into *m: 0, or -ENOENT past the last one. Views point
 * to static data. */
int ofp_test_sample(unsigned i, struct ofp_msg *m);

/* Same meaning: header type/xid (and version for HELLO/ERROR) and body. */
bool ofp_test_msg_equal(const struct ofp_msg *a, const struct ofp_msg *b);

/* "04 00 00 08 ..." (spaces, newlines ignored) → bytes; returns the count,
 * aborts the test program on a malformed string. */
size_t ofp_test_hex(const char *hex, uint8_t *out, size_t cap);

/* malloc'd copy of exactly len bytes (free it). */
uint8_t *ofp_test_dup(const void *p, size_t len);

/* Encode m into a fresh buffer: returns its length, buf holds the bytes. */
size_t ofp_test_encode(const struct ofp_msg *m, uint8_t *buf, size_t cap);

/* A FLOW MULTIPART_REPLY (xid; more: REPLY_MORE) of the n entries fs into
 * buf: returns its length; aborts the test program when it does not fit. */
size_t ofp_test_flow_reply(const struct ofp_flow_stats *fs, unsigned n, uint32_t xid, bool more,
                           uint8_t *buf, size_t cap);

/* Decode len bytes from an exact-size heap copy; returns ofp_decode's rc.
 * Views in *out are dangling afterwards unless keep is given (then *keep is
 * the copy, to free by the caller). */
int ofp_test_decode_copy(const uint8_t *msg, size_t len, struct ofp_msg *out,
                         struct ofp_err *err, uint8_t **keep);

#endif
