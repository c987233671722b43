/* tls_test_pki: see tls_test_pki.h. */
#include "tls_test_pki.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

struct test_pki_ca {
    EVP_PKEY *key;
    X509 *cert;
    char file[512];
};

static X509 *make_cert(const char *cn, EVP_PKEY *key, X509 *issuer, EVP_PKEY *issuer_key,
                       long from_s, long to_s, long serial)
{
    X509 *x = X509_new();
    X509_NAME *n = X509_NAME_new();

    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), serial);
    X509_gmtime_adj(X509_getm_notBefore(x), from_s);
    X509_gmtime_adj(X509_getm_notAfter(x), to_s);
    X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
    X509_set_subject_name(x, n);
    X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : n);
    X509_NAME_free(n);
    X509_set_pubkey(x, key);
    if (!issuer) {
        X509V3_CTX v3;
        X509V3_set_ctx_nodb(&v3);
        X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
        X509_EXTENSION *e =
            X509V3_EXT_conf_nid(NULL, &v3, NID_basic_constraints, "critical,CA:TRUE");
        X509_add_ext(x, e, -1);
        X509_EXTENSION_free(e);
    }
    X509_sign(x, issuer_key ? issuer_key : key, EVP_sha256());
    return x;
}

static int write_pem(const char *path, X509 *x, EVP_PKEY *k)
{
    FILE *f = fopen(path, "w");
    int ok;

    if (!f)
        return -1;
    if (k)
        chmod(path, 0600);
    ok = x ? PEM_write_X509(f, x) : PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL);
    fclose(f);
    return ok ? 0 : -1;
}

struct test_pki_ca *test_pki_ca_new(const char *dir, const char *cn)
{
    struct test_pki_ca *ca = calloc(1, sizeof(*ca));

    ca->key = EVP_EC_gen("P-256");
    ca->cert = make_cert(cn, ca->key, NULL, NULL, -60, 86400, 1);
    snprintf(ca->file, sizeof(ca->file), "%s/%s-ca.pem", dir, cn);
    if (write_pem(ca->file, ca->cert, NULL) < 0) {
        test_pki_ca_free(ca);
        return NULL;
    }
    return ca;
}

void test_pki_ca_free(struct test_pki_ca *ca)
{
    if (!ca)
        return;
    EVP_PKEY_free(ca->key);
    X509_free(ca->cert);
    free(ca);
}

const char *test_pki_ca_file(const struct test_pki_ca *ca)
{
    return ca->file;
}

int test_pki_leaf(const struct test_pki_ca *ca, const char *dir, const char *cn, long from_s,
                  long to_s)
{
    static long serial = 100;
    char path[512];
    EVP_PKEY *k = EVP_EC_gen("P-256");
    X509 *x = make_cert(cn, k, ca->cert, ca->key, from_s, to_s, serial++);
    int rc;

    snprintf(path, sizeof(path), "%s/%s-cert.pem", dir, cn);
    rc = write_pem(path, x, NULL);
    snprintf(path, sizeof(path), "%s/%s-key.pem", dir, cn);
    if (rc == 0)
        rc = write_pem(path, NULL, k);
    X509_free(x);
    EVP_PKEY_free(k);
    return rc;
}

int test_pki_make(struct test_pki *p)
{
    snprintf(p->dir, sizeof(p->dir), "/tmp/ofcd-test-tls-XXXXXX");
    if (!mkdtemp(p->dir))
        return -1;
    p->ca = test_pki_ca_new(p->dir, "switchca");
    p->other_ca = test_pki_ca_new(p->dir, "otherca");
    if (!p->ca || !p->other_ca || test_pki_leaf(p->ca, p->dir, "ofcd", -60, 3600) ||
        test_pki_leaf(p->ca, p->dir, "sw1", -60, 3600) ||
        test_pki_leaf(p->other_ca, p->dir, "intruder", -60, 3600) ||
        test_pki_leaf(p->ca, p->dir, "expired", -7200, -3600))
        return -1;
    return 0;
}

int test_pki_remove(struct test_pki *p)
{
    char cmd[200];

    test_pki_ca_free(p->ca);
    test_pki_ca_free(p->other_ca);
    p->ca = p->other_ca = NULL;
    snprintf(cmd, sizeof(cmd), "rm -rf %s", p->dir);
    return system(cmd) == 0 ? 0 : -1;
}

const char *test_pki_path(const struct test_pki *p, const char *name)
{
    static char buf[4][256];
    static int i;

    i = (i + 1) % 4;
    snprintf(buf[i], sizeof(buf[i]), "%s/%s", p->dir, name);
    return buf[i];
}
