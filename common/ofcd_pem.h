/*
 * ofcd_pem: read a PEM file (certificate, chain, CA bundle or private key)
 * named by a configuration key into memory, once, at start — with the
 * checks an operator expects to be told about by key and file: it must be a
 * regular file of 1 byte .. OFCD_PEM_MAX holding a PEM block, and a secret
 * (a private key) must not be readable by anyone but its owner, as ssh
 * refuses such a key. Errors are logged under the caller's subsystem.
 */
#ifndef OFCD_PEM_H
#define OFCD_PEM_H

#include <stdbool.h>

#define OFCD_PEM_MAX (1u << 20)         /* a file larger than this is refused */

/* 0 with *out malloc'd and NUL-terminated, or a negative errno (logged as
 * "<key_name> = <path>: why" under subsys) and nothing allocated. */
int ofcd_pem_read(const char *subsys, const char *key_name, const char *path, bool secret,
                  char **out);

#endif
