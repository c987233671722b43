/*
 * emu_tls: the emulator's switches over TLS (--tls CERT,KEY,CA), as Open
 * vSwitch's ssl: connections are: a client certificate, the controller's
 * verified against CA. OpenSSL on the switch's nonblocking socket; the
 * emulator's own code, not ofcd's (drivers/tls), so a bench over TLS
 * measures ofcd against an independent implementation.
 */
#ifndef EMU_TLS_H
#define EMU_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct emu_sw;

/* Parse "CERT,KEY,CA" and make the client context: 0 or -1 (printed). */
int emu_tls_setup(void **ctx_out, const char *spec);
void emu_tls_teardown(void *ctx);

/* A session on sw->fd. 0 or -1. */
int emu_tls_start(struct emu_sw *sw);
/* Move the handshake on: 1 done, 0 waiting (*want_write: for room, else for
 * data), -1 failed (printed once per run). */
int emu_tls_handshake(struct emu_sw *sw, bool *want_write);
/* As recv()/send() on a nonblocking socket: > 0 bytes; recv 0 = the peer
 * closed; -1 with errno EAGAIN when nothing can be done now. */
ssize_t emu_tls_recv(struct emu_sw *sw, void *buf, size_t len);
ssize_t emu_tls_send(struct emu_sw *sw, const void *buf, size_t len);
/* Bytes OpenSSL holds (decrypted or read ahead) that epoll will not announce. */
bool emu_tls_pending(const struct emu_sw *sw);
void emu_tls_free(struct emu_sw *sw);

#endif
