/*
 * rest_scrypt: scrypt (RFC 7914) over working memory its caller keeps.
 *
 * Why not EVP_PBE_scrypt: OpenSSL maps its 128 * r * N bytes afresh for
 * every call and the kernel faults and zeroes each page of them. At the
 * users' parameters (N = 2^15, r = 8: 32 MiB) that was most of a check on
 * this appliance's 2-core VM: 150 ms a check, against 60-65 ms over memory
 * already mapped (docs/performance-log.md, "Password checks"). A login's check
 * is the one piece of work an unauthenticated client can make ofcd do at
 * length, so its cost is what an operator waits for while others guess.
 *
 * A password-check thread (rest_kdf) keeps one struct rest_scrypt_mem for
 * its life: mapped at the first check, grown when a user's parameters need
 * more, never shrunk. Everything in it is wiped before a call returns, so
 * nothing derived from a password outlives its check. The output is bit
 * for bit RFC 7914's (test_rest_scrypt: the RFC's vectors and
 * EVP_PBE_scrypt on random inputs).
 */
#ifndef OFCD_REST_SCRYPT_H
#define OFCD_REST_SCRYPT_H

#include <stddef.h>
#include <stdint.h>

/* The working memory of one call, and the most it may be. */
#define REST_SCRYPT_BYTES(n, r, p) ((uint64_t)128 * (r) * ((uint64_t)(n) + 2 + (p)))
#define REST_SCRYPT_MAXMEM (64u << 20)

struct rest_scrypt_mem {
    uint32_t *words;                    /* NULL until the first call */
    size_t bytes;                       /* mapped */
};

/*
 * out[out_len] = scrypt(password, salt, n, r, p). m: the memory to work
 * in (kept for the next call), or NULL for memory of this call only.
 * 0; -EINVAL (n not a power of two above 1, r or p 0, or the memory over
 * REST_SCRYPT_MAXMEM); -ENOMEM; -EIO (PBKDF2 failed).
 */
int rest_scrypt(struct rest_scrypt_mem *m, const char *password, size_t password_len,
                const uint8_t *salt, size_t salt_len, uint64_t n, uint32_t r, uint32_t p,
                uint8_t *out, size_t out_len);

/* m mapped to at least bytes and every page of it faulted in, so that no
 * check pays for it: 0 or -ENOMEM. */
int rest_scrypt_warm(struct rest_scrypt_mem *m, size_t bytes);

/* The memory returned to the kernel; m may be used again after. */
void rest_scrypt_mem_free(struct rest_scrypt_mem *m);

#endif
