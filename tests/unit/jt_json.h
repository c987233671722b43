/*
 * jt_json: a json_tape value as the jansson value json_u64_loadb() builds
 * for the same text (integers above INT64_MAX as json_u64 markers), so tests
 * and the fuzzer can hold the tape against jansson, the reference it must
 * match.
 */
#ifndef OFCD_TEST_JT_JSON_H
#define OFCD_TEST_JT_JSON_H

#include <jansson.h>

#include "json_tape.h"

/* v, parsed from text, as a new jansson value (NULL when out of memory). */
json_t *jt_json(const struct jt_node *v, const char *text);

/* 0 when the tape parse of text[0..len) and json_u64_loadb agree: both
 * refuse it, or both read the same value, every node's span reads back as
 * that node, and object members come in jansson's order; a text with a NUL
 * byte is refused by the tape (jansson lets some through). Otherwise -1
 * with why in msg. */
int jt_json_agree(const char *text, size_t len, char *msg, size_t msglen);

#endif
