/*
 * json_tape: a JSON text read in one pass into one flat array of nodes (a
 * "tape"), for the hot path of flow requests. A batched POST's body used to
 * become a jansson tree: one malloc per value and a hash table per object,
 * 2.5 µs of CPU per flow, more than parsing the flows themselves. The tape
 * costs two allocations per text (nodes, strings), kept for the next text
 * when the tape is reused, and it keeps where every value's text is, so a
 * flow can be stored as the client wrote it without a second walk.
 *
 * What it accepts is exactly what json_u64_loadb() accepts (jansson's
 * json_loadb with flags 0: an object or array at the top, nothing after it,
 * strict UTF-8, no \u0000, no lone surrogates, depth at most 2048, reals
 * that fit a double), with integers up to 2^64 - 1 read as such; a bigger
 * one is kept flagged JT_BIG (json_u64's overflow marker) so the field that
 * holds it can be named. \u0001 in a string is refused (json_u64's markers
 * start with it) unless JT_MARKERS is given: stored records may hold them.
 * A key given twice in one object keeps its first place and its last
 * value, as jansson does; the other occurrence is skipped by iteration and
 * lookup. One difference: a NUL byte is refused wherever it is (RFC 8259
 * allows none), where jansson reads some as nothing. Errors are one line (what, and the byte offset); a REST handler
 * that wants jansson's words for a 400 asks json_u64_loadb for them.
 *
 * Layout: a container's members follow it on the tape; node + node->skip is
 * its next sibling. An object's members are a key node (a string) followed
 * by the value's subtree. Nodes are valid until the tape is parsed again
 * or freed; strings are NUL-terminated copies with escapes resolved.
 */
#ifndef OFCD_JSON_TAPE_H
#define OFCD_JSON_TAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum jt_type {
    JT_OBJECT = 1,
    JT_ARRAY,
    JT_STRING,
    JT_INT,
    JT_REAL,
    JT_TRUE,
    JT_FALSE,
    JT_NULL,
};

/* Node flags. */
#define JT_NEG 0x01              /* JT_INT: negative (u holds the magnitude) */
#define JT_BIG 0x02              /* JT_INT: above 2^64 - 1 (u is not its value) */
#define JT_DUP 0x04              /* object key: given again later, this member is skipped */

struct jt_node {
    uint8_t type;                /* enum jt_type */
    uint8_t flags;
    uint16_t pad_;
    uint32_t size;               /* array: elements; object: distinct keys; string: bytes */
    uint32_t skip;               /* nodes in this subtree, itself included */
    uint32_t link;               /* object key: nodes from it to its value (the last one given) */
    uint32_t off, len;           /* the value's text in the parsed text */
    union {
        uint64_t u;              /* JT_INT */
        double d;                /* JT_REAL */
        const char *s;           /* JT_STRING */
    } v;
};

/* Parse flags. */
#define JT_MARKERS 0x01          /* accept \u0001 in strings (json_u64's markers) */

struct jt_tape {
    struct jt_node *nodes;
    size_t n, cap;
    char *strs;                  /* the strings, NUL-terminated */
    size_t strs_cap;
    uint32_t *stack;             /* open containers while parsing */
    size_t stack_cap;
    char err[96];                /* why the last parse failed */
};

/* A tape starts zeroed ({0}). */
void jt_free(struct jt_tape *t);

/* Parse text[0..len) onto t (what it held before is gone). 0; -EINVAL with
 * t->err set when the text is not JSON as described above; -ENOMEM;
 * -E2BIG for a text of 4 GiB or more. */
int jt_parse(struct jt_tape *t, const char *text, size_t len, unsigned flags);

/* The top value of the last successful parse. */
static inline const struct jt_node *jt_root(const struct jt_tape *t)
{
    return t->nodes;
}

/* Type tests; NULL is no type at all (as jansson's json_is_*). */
static inline bool jt_is(const struct jt_node *v, enum jt_type type)
{
    return v && v->type == type;
}
#define jt_is_object(v) jt_is(v, JT_OBJECT)
#define jt_is_array(v) jt_is(v, JT_ARRAY)
#define jt_is_string(v) jt_is(v, JT_STRING)
#define jt_is_int(v) jt_is(v, JT_INT)
static inline bool jt_is_bool(const struct jt_node *v)
{
    return v && (v->type == JT_TRUE || v->type == JT_FALSE);
}

/* A string's text (NUL-terminated; JSON strings here never hold NUL). */
static inline const char *jt_string(const struct jt_node *v)
{
    return v->v.s;
}

/* The value of obj's member key, or NULL when there is none. */
const struct jt_node *jt_object_get(const struct jt_node *obj, const char *key);

/* Key (or name) equality with the first byte compared before strcmp is
 * called: most keys of one object differ there, and a batch compares
 * several per flow (strcmp's calls were 2.5 % of a batched install's CPU). */
static inline bool jt_same_key(const char *a, const char *b)
{
    return a[0] == b[0] && !strcmp(a, b);
}

/* Walking an object's members in order (keys given twice: first place,
 * last value): k is the key node, jt_member(k) its value. */
const struct jt_node *jt_object_first(const struct jt_node *obj);
const struct jt_node *jt_object_next(const struct jt_node *obj, const struct jt_node *k);
static inline const struct jt_node *jt_member(const struct jt_node *k)
{
    return k + k->link;
}
#define jt_object_foreach(obj, k, val)                                                   \
    for ((k) = jt_object_first(obj); (k) && ((val) = jt_member(k), 1);                   \
         (k) = jt_object_next(obj, k))

/* Walking an array: e the element, i its index. */
#define jt_array_foreach(arr, i, e)                                                      \
    for ((i) = 0, (e) = (arr) + 1; (i) < (arr)->size; (i)++, (e) += (e)->skip)

#endif
