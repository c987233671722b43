/*
 * rest_tls: the REST API's HTTPS material. rest.tls_cert and rest.tls_key
 * name PEM files; both set means HTTPS only, neither means plain HTTP, one
 * alone is a configuration error. The files are read once, at start, into
 * memory libmicrohttpd (GnuTLS) is handed; a key file readable by others
 * than its owner is refused, as ssh refuses such a key.
 */
#ifndef OFCD_REST_TLS_H
#define OFCD_REST_TLS_H

#include "rest.h"

/*
 * Read cfg's PEM files. 0 with *cert and *key malloc'd and NUL-terminated
 * (or both NULL: plain HTTP); otherwise a negative errno, logged with the
 * key and the file it names, and nothing allocated.
 */
int rest_tls_load(const struct rest_cfg *cfg, char **cert, char **key);

#endif
