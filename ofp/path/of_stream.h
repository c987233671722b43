/*
 * of_stream: a switch connection's byte stream as of_io reads and writes
 * it — plain TCP, or TLS over that TCP (drivers/tls) — so the framer sees
 * plaintext either way and does not branch on the channel's kind.
 *
 * TLS over ofcd's TCP: OpenSSL pulls ciphertext from the TCP receive buffer
 * only while the decrypted bytes waiting are short of what the framer
 * wants, so a connection that is not read (msg_in full, its quota spent)
 * closes its TCP window exactly as a plain one does; what it writes goes
 * straight into the TCP send buffer, whose room says when to write again.
 */
#ifndef OFCD_OF_STREAM_H
#define OFCD_OF_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "tcp.h"
#include "tls.h"

struct of_stream {
    struct tcp_conn *tcp;      /* NULL: no connection */
    struct tls_sess *tls;      /* NULL: plain TCP */
};

/* Make the stream TLS (server side, ctx's certificates): 0 or -ENOMEM. */
int of_stream_tls_start(struct of_stream *s, struct tls_ctx *ctx);

/* TLS: still in the handshake (nothing to read or write yet). */
bool of_stream_handshaking(const struct of_stream *s);

/* Move bytes on so that want are readable if the peer sent them (TLS:
 * handshake and decryption; plain: nothing to do). 0, or -EPROTO with
 * of_stream_error() saying why: the stream is lost. */
int of_stream_fill(struct of_stream *s, size_t want);
const char *of_stream_error(const struct of_stream *s);

size_t of_stream_avail(const struct of_stream *s);
size_t of_stream_copy(const struct of_stream *s, void *buf, size_t len);
void of_stream_consume(struct of_stream *s, size_t n);

/* As tcp_send: bytes taken (0..len; less: resume at on_writable), or < 0. */
ssize_t of_stream_send(struct of_stream *s, const void *data, size_t len);

/* The peer ended its side: nothing more will be readable than now. */
bool of_stream_ended(const struct of_stream *s);

/* Close (TLS: close_notify first), or abort (RST at once); frees the TLS
 * session, and s holds no connection afterwards. */
void of_stream_close(struct of_stream *s, bool abort);

/* Forget the connection TCP already freed (its on_closed). */
void of_stream_gone(struct of_stream *s);

#endif
