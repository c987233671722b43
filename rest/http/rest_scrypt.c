/* rest_scrypt: see rest_scrypt.h. */
#include "rest_scrypt.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#define BLOCK_WORDS 16                  /* one Salsa20 block: 64 bytes */

/* The mixing reads and writes only the calling thread's memory, 64 MiB of
 * it per check: under ThreadSanitizer, whose instrumentation made a check
 * take 2.5 s and the REST tests time out, it is left uninstrumented. */
#define NOT_RACY __attribute__((no_sanitize("thread")))

static inline uint32_t rotl(uint32_t v, unsigned c)
{
    return (v << c) | (v >> (32 - c));
}

/* Salsa20's quarter round on four words of x (RFC 7914 section 3). */
#define QUARTER(x, a, b, c, d)                                                                    \
    do {                                                                                          \
        x[b] ^= rotl(x[a] + x[d], 7);                                                             \
        x[c] ^= rotl(x[b] + x[a], 9);                                                             \
        x[d] ^= rotl(x[c] + x[b], 13);                                                            \
        x[a] ^= rotl(x[d] + x[c], 18);                                                            \
    } while (0)

/* b = Salsa20/8(b): four double rounds, then the input added back. */
NOT_RACY static void salsa20_8(uint32_t b[BLOCK_WORDS])
{
    uint32_t x[BLOCK_WORDS];

    memcpy(x, b, sizeof(x));
    for (int i = 0; i < 4; i++) {
        QUARTER(x, 0, 4, 8, 12);        /* columns */
        QUARTER(x, 5, 9, 13, 1);
        QUARTER(x, 10, 14, 2, 6);
        QUARTER(x, 15, 3, 7, 11);
        QUARTER(x, 0, 1, 2, 3);         /* rows */
        QUARTER(x, 5, 6, 7, 4);
        QUARTER(x, 10, 11, 8, 9);
        QUARTER(x, 15, 12, 13, 14);
    }
    for (int i = 0; i < BLOCK_WORDS; i++)
        b[i] += x[i];
}

/* out = BlockMix(in) over 2r blocks: the even results first, then the odd. */
NOT_RACY static void block_mix(const uint32_t *in, uint32_t *out, uint32_t r)
{
    uint32_t x[BLOCK_WORDS];

    memcpy(x, in + (2 * r - 1) * BLOCK_WORDS, sizeof(x));
    for (uint32_t i = 0; i < 2 * r; i++) {
        for (int k = 0; k < BLOCK_WORDS; k++)
            x[k] ^= in[i * BLOCK_WORDS + k];
        salsa20_8(x);
        memcpy(out + (i / 2 + (i & 1) * r) * BLOCK_WORDS, x, sizeof(x));
    }
}

/* One p-block of b, ROMix'ed in place; v holds n blocks of 32r words, x and
 * y one each. */
NOT_RACY static void ro_mix(uint8_t *b, uint64_t n, uint32_t r, uint32_t *v, uint32_t *x, uint32_t *y)
{
    const size_t words = (size_t)32 * r;

    for (size_t k = 0; k < words; k++)
        x[k] = (uint32_t)b[4 * k] | (uint32_t)b[4 * k + 1] << 8 | (uint32_t)b[4 * k + 2] << 16 |
               (uint32_t)b[4 * k + 3] << 24;
    /* V[i] = X, X = BlockMix(X): mixed from the copy just made, so X is
     * written once per step, not mixed aside and copied back. */
    for (uint64_t i = 0; i < n; i++) {
        memcpy(v + i * words, x, words * 4);
        block_mix(v + i * words, x, r);
    }
    for (uint64_t i = 0; i < n; i++) {
        /* Integerify: the last block's first word, enough for n <= 2^32. */
        const uint32_t *vj = v + (x[(2 * r - 1) * BLOCK_WORDS] & (n - 1)) * words;
        for (size_t k = 0; k < words; k++)
            x[k] ^= vj[k];
        block_mix(x, y, r);
        uint32_t *t = x;                /* the result is the next step's input */
        x = y;
        y = t;
    }
    for (size_t k = 0; k < words; k++) {
        b[4 * k] = (uint8_t)x[k];
        b[4 * k + 1] = (uint8_t)(x[k] >> 8);
        b[4 * k + 2] = (uint8_t)(x[k] >> 16);
        b[4 * k + 3] = (uint8_t)(x[k] >> 24);
    }
}

/* m mapped to at least bytes: 0 or -ENOMEM. */
static int mem_reserve(struct rest_scrypt_mem *m, size_t bytes)
{
    if (m->bytes >= bytes)
        return 0;
    rest_scrypt_mem_free(m);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -ENOMEM;
    /* V is read at random: huge pages spare the TLB (a hint; 4 KiB pages
     * work as well, a little slower). */
    (void)madvise(p, bytes, MADV_HUGEPAGE);
    m->words = p;
    m->bytes = bytes;
    return 0;
}

int rest_scrypt_warm(struct rest_scrypt_mem *m, size_t bytes)
{
    int rc = mem_reserve(m, bytes);

    if (rc == 0)
        memset(m->words, 0, bytes);
    return rc;
}

void rest_scrypt_mem_free(struct rest_scrypt_mem *m)
{
    if (m->words)
        munmap(m->words, m->bytes);
    m->words = NULL;
    m->bytes = 0;
}

int rest_scrypt(struct rest_scrypt_mem *m, const char *password, size_t password_len,
                const uint8_t *salt, size_t salt_len, uint64_t n, uint32_t r, uint32_t p,
                uint8_t *out, size_t out_len)
{
    struct rest_scrypt_mem once = {0};

    if (n < 2 || (n & (n - 1)) || n > UINT32_MAX || r == 0 || p == 0 ||
        (uint64_t)r * p >= (1u << 30))
        return -EINVAL;
    const uint64_t block_bytes = (uint64_t)128 * r;
    const uint64_t need = REST_SCRYPT_BYTES(n, r, p);
    if (need > REST_SCRYPT_MAXMEM)
        return -EINVAL;
    if (!m)
        m = &once;
    if (mem_reserve(m, (size_t)need) < 0)
        return -ENOMEM;
    uint32_t *v = m->words;
    uint32_t *x = v + n * 32 * r;
    uint32_t *y = x + 32 * r;
    uint8_t *b = (uint8_t *)(y + 32 * r);
    int rc = 0;

    if (!PKCS5_PBKDF2_HMAC(password, (int)password_len, salt, (int)salt_len, 1, EVP_sha256(),
                           (int)(block_bytes * p), b)) {
        rc = -EIO;
    } else {
        for (uint32_t i = 0; i < p; i++)
            ro_mix(b + i * block_bytes, n, r, v, x, y);
        if (!PKCS5_PBKDF2_HMAC(password, (int)password_len, b, (int)(block_bytes * p), 1,
                               EVP_sha256(), (int)out_len, out))
            rc = -EIO;
    }
    OPENSSL_cleanse(m->words, (size_t)need);
    rest_scrypt_mem_free(&once);
    return rc;
}
