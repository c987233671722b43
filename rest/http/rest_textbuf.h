/*
 * rest_textbuf: the text of a streamed answer that is made but not yet sent
 * (rest_reply.stream): generators append JSON, the reader takes it out in
 * the pieces MHD asks for.
 */
#ifndef OFCD_REST_TEXTBUF_H
#define OFCD_REST_TEXTBUF_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct rest_textbuf {
    char *buf;                      /* buf[off..len) is not sent yet */
    size_t len, off, cap;
};

/* Append; false when out of memory. */
bool rest_textbuf_put(struct rest_textbuf *b, const char *s, size_t n);
bool rest_textbuf_puts(struct rest_textbuf *b, const char *s);
/* o as compact JSON, 64-bit values above 2^63-1 as numbers (json_u64); o is
 * released either way. */
bool rest_textbuf_put_json(struct rest_textbuf *b, json_t *o);

/* Nothing left to send? (Then the buffer starts over.) */
bool rest_textbuf_drained(struct rest_textbuf *b);
/* Up to max bytes into out; returns how many. */
size_t rest_textbuf_take(struct rest_textbuf *b, char *out, size_t max);
void rest_textbuf_free(struct rest_textbuf *b);

#endif
