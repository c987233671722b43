/* rest_scrypt: RFC 7914's own vectors, the same bytes as OpenSSL's scrypt
 * on random inputs, memory kept between calls and wiped after each, and
 * parameters refused as EVP_PBE_scrypt would refuse them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "rest_scrypt.h"

static void hex_of(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

/* RFC 7914 section 12 (the 16 MiB vector is left to the random cases'
 * size; its 1 GiB one is past REST_SCRYPT_MAXMEM). */
static void test_rfc_vectors(void **state)
{
    static const struct {
        const char *pw, *salt;
        uint64_t n;
        uint32_t r, p;
        const char *dk;
    } v[] = {
        {"", "", 16, 1, 1,
         "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442"
         "fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906"},
        {"password", "NaCl", 1024, 8, 16,
         "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162"
         "2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"},
    };
    struct rest_scrypt_mem m = {0};
    uint8_t dk[64];
    char hex[129];

    (void)state;
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        /* Kept memory and memory of the call alone: the same bytes. */
        for (int kept = 0; kept < 2; kept++) {
            memset(dk, 0, sizeof(dk));
            assert_int_equal(rest_scrypt(kept ? &m : NULL, v[i].pw, strlen(v[i].pw),
                                         (const uint8_t *)v[i].salt, strlen(v[i].salt), v[i].n,
                                         v[i].r, v[i].p, dk, sizeof(dk)),
                             0);
            hex_of(dk, sizeof(dk), hex);
            assert_string_equal(hex, v[i].dk);
        }
    }
    rest_scrypt_mem_free(&m);
}

/* Random passwords, salts and parameters (the users' own among them),
 * through one kept memory that grows and is reused: OpenSSL's bytes. */
static void test_same_as_openssl(void **state)
{
    static const struct {
        uint64_t n;
        uint32_t r, p;
    } prm[] = {{1u << 15, 8, 1}, {1024, 1, 1}, {4096, 8, 2}, {2, 3, 5}, {1u << 12, 16, 1},
               {1u << 15, 8, 1}};
    struct rest_scrypt_mem m = {0};

    (void)state;
    for (size_t i = 0; i < sizeof(prm) / sizeof(prm[0]); i++) {
        uint8_t pw[40], salt[16], want[32], got[32];
        size_t pw_len = 1 + i * 7 % sizeof(pw);
        assert_int_equal(RAND_bytes(pw, sizeof(pw)), 1);
        assert_int_equal(RAND_bytes(salt, sizeof(salt)), 1);
        assert_int_equal(EVP_PBE_scrypt((const char *)pw, pw_len, salt, sizeof(salt), prm[i].n,
                                        prm[i].r, prm[i].p, REST_SCRYPT_MAXMEM, want,
                                        sizeof(want)),
                         1);
        assert_int_equal(rest_scrypt(&m, (const char *)pw, pw_len, salt, sizeof(salt), prm[i].n,
                                     prm[i].r, prm[i].p, got, sizeof(got)),
                         0);
        assert_memory_equal(got, want, sizeof(want));
        /* Nothing of the check is left in the memory kept. */
        for (size_t w = 0; w < m.bytes / 4; w++)
            if (m.words[w]) {
                fail_msg("word %zu of the kept memory is not wiped", w);
            }
    }
    rest_scrypt_mem_free(&m);
}

static void test_bad_parameters(void **state)
{
    uint8_t dk[32];

    (void)state;
    assert_int_equal(rest_scrypt(NULL, "a", 1, NULL, 0, 1, 8, 1, dk, 32), -EINVAL);
    assert_int_equal(rest_scrypt(NULL, "a", 1, NULL, 0, 1000, 8, 1, dk, 32), -EINVAL);
    assert_int_equal(rest_scrypt(NULL, "a", 1, NULL, 0, 1024, 0, 1, dk, 32), -EINVAL);
    assert_int_equal(rest_scrypt(NULL, "a", 1, NULL, 0, 1024, 8, 0, dk, 32), -EINVAL);
    /* 128 * 8 * 2^16 = 64 MiB for V alone: over the bound with X, Y and B. */
    assert_int_equal(rest_scrypt(NULL, "a", 1, NULL, 0, 1u << 16, 8, 1, dk, 32), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc_vectors),
        cmocka_unit_test(test_same_as_openssl),
        cmocka_unit_test(test_bad_parameters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
