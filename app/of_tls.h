/*
 * of_tls: the switch channel's TLS material as [tls] describes it, made
 * once at start — before --check answers, so "configuration OK" means the
 * certificate, key and CA load and match — and shared read-only by every
 * io lcore. Also says loudly, at every start, what an operator should know
 * about who can reach the OpenFlow ports: a plaintext listener lets any
 * host that reaches it claim a dpid, and TLS without verify_peer lets any
 * client in.
 */
#ifndef OFCD_OF_TLS_H
#define OFCD_OF_TLS_H

#include "cfg.h"
#include "of_pins.h"
#include "tls.h"

/* *out = the context (NULL when tls.port = 0), *pins = tls.pins_file's
 * (empty when none). 0, or a negative errno with the reason logged naming
 * the key and file (nothing left allocated). */
int of_tls_open(const struct ofcd_config *c, struct tls_ctx **out, struct of_pins *pins);

/* A reload: ctx made again from c's [tls] keys and files (a renewed
 * certificate, a new CRL) for the connections accepted from now on. 0, or
 * a negative errno logged naming the key and file, ctx unchanged. */
int of_tls_reload(const struct ofcd_config *c, struct tls_ctx *ctx);

#endif
