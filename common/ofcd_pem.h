/*
 * ofcd_pem: read a key file named by a configuration key into memory, once,
 * at start — a PEM file (certificate, chain, CA bundle, private key) or
 * another secret (a token list) — with the checks an operator expects to be
 * told about by key and file: a regular file of 1 byte .. OFCD_PEM_MAX (a
 * PEM one holding a PEM block), and a secret not readable by anyone but its
 * owner, as ssh refuses such a key. Errors are logged under the caller's
 * subsystem.
 */
#ifndef OFCD_PEM_H
#define OFCD_PEM_H

#include <stdbool.h>

#define OFCD_PEM_MAX (1u << 20)         /* a file larger than this is refused */

/* 0 with *out malloc'd and NUL-terminated, or a negative errno (logged as
 * "<key_name> = <path>: why" under subsys) and nothing allocated. */
int ofcd_pem_read(const char *subsys, const char *key_name, const char *path, bool secret,
                  char **out);

/* The same for a secret that is not PEM (a token list): any text, mode 600. */
int ofcd_secret_file_read(const char *subsys, const char *key_name, const char *path,
                          char **out);

#endif
