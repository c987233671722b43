/* tls_test_pki: see tls_test_pki.h. */
#include "tls_test_pki.h"

#include <stdbool.h>
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

static void add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
    X509V3_CTX v3;
    X509_EXTENSION *e;

    X509V3_set_ctx_nodb(&v3);
    X509V3_set_ctx(&v3, issuer ? issuer : x, x, NULL, NULL, 0);
    e = X509V3_EXT_conf_nid(NULL, &v3, nid, value);
    X509_add_ext(x, e, -1);
    X509_EXTENSION_free(e);
}

/* A certificate for cn: self-signed without an issuer; a CA when ca (or
 * self-signed); pad: a comment of that many bytes (0: none). */
static X509 *make_cert_ext(const char *cn, EVP_PKEY *key, X509 *issuer, EVP_PKEY *issuer_key,
                           long from_s, long to_s, long serial, bool ca, size_t pad)
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
    if (!issuer || ca)
        add_ext(x, issuer, NID_basic_constraints, "critical,CA:TRUE");
    if (pad) {
        char *text = malloc(pad + 1);
        memset(text, 'p', pad);
        text[pad] = '\0';
        add_ext(x, issuer, NID_netscape_comment, text);
        free(text);
    }
    X509_sign(x, issuer_key ? issuer_key : key, EVP_sha256());
    return x;
}

static X509 *make_cert(const char *cn, EVP_PKEY *key, X509 *issuer, EVP_PKEY *issuer_key,
                       long from_s, long to_s, long serial)
{
    return make_cert_ext(cn, key, issuer, issuer_key, from_s, to_s, serial, false, 0);
}

/* Serial numbers of everything made after the roots, unique per run. */
static long next_serial = 100;

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

struct test_pki_ca *test_pki_ca_sub(const struct test_pki_ca *parent, const char *dir,
                                    const char *cn)
{
    struct test_pki_ca *ca = calloc(1, sizeof(*ca));

    ca->key = EVP_EC_gen("P-256");
    ca->cert = make_cert_ext(cn, ca->key, parent->cert, parent->key, -60, 86400, next_serial++,
                             true, 0);
    snprintf(ca->file, sizeof(ca->file), "%s/%s-ca.pem", dir, cn);
    if (write_pem(ca->file, ca->cert, NULL) < 0) {
        test_pki_ca_free(ca);
        return NULL;
    }
    return ca;
}

int test_pki_append(const struct test_pki_ca *ca, const char *path)
{
    FILE *f = fopen(path, "a");
    int ok;

    if (!f)
        return -1;
    ok = PEM_write_X509(f, ca->cert);
    fclose(f);
    return ok ? 0 : -1;
}

int test_pki_leaf(const struct test_pki_ca *ca, const char *dir, const char *cn, long from_s,
                  long to_s)
{
    return test_pki_leaf_padded(ca, dir, cn, from_s, to_s, 0);
}

int test_pki_leaf_padded(const struct test_pki_ca *ca, const char *dir, const char *cn,
                         long from_s, long to_s, size_t pad)
{
    char path[512];
    EVP_PKEY *k = EVP_EC_gen("P-256");
    X509 *x = make_cert_ext(cn, k, ca->cert, ca->key, from_s, to_s, next_serial++, false, pad);
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

/* The serial number of the first certificate of a PEM file, or NULL. */
static ASN1_INTEGER *serial_of(const char *path)
{
    FILE *f = fopen(path, "r");
    X509 *x = f ? PEM_read_X509(f, NULL, NULL, NULL) : NULL;
    ASN1_INTEGER *sn = x ? ASN1_INTEGER_dup(X509_get0_serialNumber(x)) : NULL;

    if (f)
        fclose(f);
    X509_free(x);
    return sn;
}

int test_pki_crl(const struct test_pki_ca *ca, const char *path, long next_s,
                 const char *const revoked[])
{
    X509_CRL *crl = X509_CRL_new();
    ASN1_TIME *t = ASN1_TIME_new();
    int rc = 0;

    X509_CRL_set_version(crl, 1);
    X509_CRL_set_issuer_name(crl, X509_get_subject_name(ca->cert));
    X509_gmtime_adj(t, -60);
    X509_CRL_set1_lastUpdate(crl, t);
    X509_gmtime_adj(t, next_s);
    X509_CRL_set1_nextUpdate(crl, t);
    for (size_t i = 0; revoked && revoked[i]; i++) {
        X509_REVOKED *r = X509_REVOKED_new();
        ASN1_INTEGER *sn = serial_of(revoked[i]);
        if (!sn) {
            X509_REVOKED_free(r);
            rc = -1;
            break;
        }
        X509_REVOKED_set_serialNumber(r, sn);
        ASN1_INTEGER_free(sn);
        X509_gmtime_adj(t, -30);
        X509_REVOKED_set_revocationDate(r, t);
        X509_CRL_add0_revoked(crl, r);
    }
    X509_CRL_sort(crl);
    if (rc == 0 && !X509_CRL_sign(crl, ca->key, EVP_sha256()))
        rc = -1;
    FILE *f = rc == 0 ? fopen(path, "w") : NULL;
    if (rc == 0 && (!f || !PEM_write_X509_CRL(f, crl)))
        rc = -1;
    if (f)
        fclose(f);
    ASN1_TIME_free(t);
    X509_CRL_free(crl);
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
