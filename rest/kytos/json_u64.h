/*
 * json_u64: JSON numbers up to 2^64 - 1 with jansson, which keeps integers as
 * signed 64-bit and refuses bigger ones ("too big integer"). OpenFlow's
 * 64-bit fields (cookies, cookie masks, metadata, tunnel ids, masks) need
 * the whole unsigned range, and Kytos' NApps use the top byte of a cookie as
 * an owner tag, so 2^63 and above are everyday values.
 *
 * On the way in, json_u64_loadb() rewrites every integer token above
 * INT64_MAX (outside strings) into a marker string that the field parsers
 * read back exactly (json_u64_marker_value); an integer above 2^64 - 1 gets
 * an overflow marker, so the parser can name the field in its 400. On the
 * way out, a value above INT64_MAX is a marker string (json_u64_value) that
 * json_u64_fixup() turns back into a bare number in the dumped text. The
 * marker starts with U+0001, which the input may not contain in a string
 * (json_u64_loadb refuses it), so no string a client sent can become one.
 */
#ifndef OFCD_JSON_U64_H
#define OFCD_JSON_U64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* json_loadb, with integers above INT64_MAX read as markers. NULL with *err
 * filled on bad JSON or a U+0001 inside a string. */
json_t *json_u64_loadb(const char *buf, size_t len, json_error_t *err);

/* A stored flow's text (see rest_flows.c) as JSON, integers above INT64_MAX
 * as markers whether the text holds them bare (as the client sent them) or
 * as markers already. NULL when it is not JSON. New reference. */
json_t *json_u64_load_record(const char *buf, size_t len);

/* A marker string's value: 1 and *out for an exact one, -1 for one above
 * 2^64 - 1 (out of range), 0 for a string that is no marker. */
int json_u64_marker_value(const char *s, uint64_t *out);

/* v as JSON: an integer up to INT64_MAX, a marker above. New reference. */
json_t *json_u64_value(uint64_t v);

/* Turn every marker in dumped JSON text back into a bare number, in place
 * (the text only shrinks). Returns the new length. */
size_t json_u64_fixup(char *text);

/*
 * The unsigned integer of one top-level field of the JSON object text t
 * (e.g. a stored flow's "priority"), found without parsing the rest: for
 * ordering or filtering many stored records cheaply. 1 with *out set;
 * 0 when the object has no such field; -EINVAL when t is no object or the
 * field is not a plain unsigned integer; -ERANGE above 2^64 - 1. A key is
 * compared as written (a key spelt with escapes does not match).
 */
int json_u64_top_field(const char *t, size_t len, const char *key, uint64_t *out);

#endif
