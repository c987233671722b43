/* Certificates for the TLS unit tests, made with OpenSSL in a temporary
 * directory: a CA, and leaves it signs (P-256, so making them is quick). */
#ifndef OFCD_TLS_TEST_PKI_H
#define OFCD_TLS_TEST_PKI_H

struct test_pki_ca;

/* A self-signed CA named cn; its certificate is written to dir/<cn>-ca.pem. */
struct test_pki_ca *test_pki_ca_new(const char *dir, const char *cn);
void test_pki_ca_free(struct test_pki_ca *ca);
const char *test_pki_ca_file(const struct test_pki_ca *ca);

/* A leaf for cn signed by ca, valid from now+from_s to now+to_s: writes
 * dir/<cn>-cert.pem and dir/<cn>-key.pem (mode 600). 0 or -1. */
int test_pki_leaf(const struct test_pki_ca *ca, const char *dir, const char *cn, long from_s,
                  long to_s);

#endif
