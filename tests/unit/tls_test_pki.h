/* Certificates for the TLS unit tests, made with OpenSSL in a temporary
 * directory: a CA, and leaves it signs (P-256, so making them is quick). */
#ifndef OFCD_TLS_TEST_PKI_H
#define OFCD_TLS_TEST_PKI_H

#include <stddef.h>

struct test_pki_ca;

/* A self-signed CA named cn; its certificate is written to dir/<cn>-ca.pem. */
struct test_pki_ca *test_pki_ca_new(const char *dir, const char *cn);
void test_pki_ca_free(struct test_pki_ca *ca);
const char *test_pki_ca_file(const struct test_pki_ca *ca);

/* An intermediate CA named cn signed by parent; its certificate is written
 * to dir/<cn>-ca.pem. */
struct test_pki_ca *test_pki_ca_sub(const struct test_pki_ca *parent, const char *dir,
                                    const char *cn);
/* Append ca's certificate to the PEM file path (a chain after a leaf). 0 or -1. */
int test_pki_append(const struct test_pki_ca *ca, const char *path);

/* A leaf for cn signed by ca, valid from now+from_s to now+to_s: writes
 * dir/<cn>-cert.pem and dir/<cn>-key.pem (mode 600). 0 or -1. */
int test_pki_leaf(const struct test_pki_ca *ca, const char *dir, const char *cn, long from_s,
                  long to_s);
/* The same with a comment of pad bytes in the certificate: a large chain. */
int test_pki_leaf_padded(const struct test_pki_ca *ca, const char *dir, const char *cn,
                         long from_s, long to_s, size_t pad);

/* A CRL of ca, issued a minute ago, next update in next_s (negative: it
 * has expired), revoking the first certificate of each PEM file in revoked
 * (NULL-terminated, may be NULL): written to path. 0 or -1. */
int test_pki_crl(const struct test_pki_ca *ca, const char *path, long next_s,
                 const char *const revoked[]);

/* The set both TLS tests use, in a fresh directory under /tmp: "switchca"
 * signing ofcd, sw1 and expired (valid until an hour ago), "otherca"
 * signing intruder. 0 or -1. */
struct test_pki {
    char dir[128];
    struct test_pki_ca *ca, *other_ca;
};
int test_pki_make(struct test_pki *p);
/* Free it and remove its directory: 0 or -1. */
int test_pki_remove(struct test_pki *p);
/* dir/name, in one of four rotating buffers (a few at once in one call). */
const char *test_pki_path(const struct test_pki *p, const char *name);

#endif
