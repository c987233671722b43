/* store_journal: see store_journal.h. */
#include "store_journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ofcd_le.h"

#define MAGIC "OFCDJNL2"
#define SLOT_LEN 8192u
#define SLOT_FIELDS 32u                 /* magic, gen, first_seq, meta_len, crc */
#define HDR_LEN (2 * SLOT_LEN)
#define REC_HDR 16u

struct store_journal {
    int fd;
    uint64_t off;                       /* end of the good records */
    uint64_t size;                      /* the file's size (written ahead) */
    uint64_t next_seq;
    uint64_t first_seq;                 /* the slot's: the first record's */
    uint64_t gen;                       /* the header slot in force */
    uint8_t *buf;                       /* records queued, not written yet */
    size_t len, cap;
    uint64_t queued;                    /* how many */
};

/* CRC-32C (Castagnoli, reflected 0x82f63b78), a byte at a time from its
 * table (written out here: no state to initialise). */
static const uint32_t crc32c_table[256] = {
    0x00000000, 0xf26b8303, 0xe13b70f7, 0x1350f3f4, 0xc79a971f, 0x35f1141c,
    0x26a1e7e8, 0xd4ca64eb, 0x8ad958cf, 0x78b2dbcc, 0x6be22838, 0x9989ab3b,
    0x4d43cfd0, 0xbf284cd3, 0xac78bf27, 0x5e133c24, 0x105ec76f, 0xe235446c,
    0xf165b798, 0x030e349b, 0xd7c45070, 0x25afd373, 0x36ff2087, 0xc494a384,
    0x9a879fa0, 0x68ec1ca3, 0x7bbcef57, 0x89d76c54, 0x5d1d08bf, 0xaf768bbc,
    0xbc267848, 0x4e4dfb4b, 0x20bd8ede, 0xd2d60ddd, 0xc186fe29, 0x33ed7d2a,
    0xe72719c1, 0x154c9ac2, 0x061c6936, 0xf477ea35, 0xaa64d611, 0x580f5512,
    0x4b5fa6e6, 0xb93425e5, 0x6dfe410e, 0x9f95c20d, 0x8cc531f9, 0x7eaeb2fa,
    0x30e349b1, 0xc288cab2, 0xd1d83946, 0x23b3ba45, 0xf779deae, 0x05125dad,
    0x1642ae59, 0xe4292d5a, 0xba3a117e, 0x4851927d, 0x5b016189, 0xa96ae28a,
    0x7da08661, 0x8fcb0562, 0x9c9bf696, 0x6ef07595, 0x417b1dbc, 0xb3109ebf,
    0xa0406d4b, 0x522bee48, 0x86e18aa3, 0x748a09a0, 0x67dafa54, 0x95b17957,
    0xcba24573, 0x39c9c670, 0x2a993584, 0xd8f2b687, 0x0c38d26c, 0xfe53516f,
    0xed03a29b, 0x1f682198, 0x5125dad3, 0xa34e59d0, 0xb01eaa24, 0x42752927,
    0x96bf4dcc, 0x64d4cecf, 0x77843d3b, 0x85efbe38, 0xdbfc821c, 0x2997011f,
    0x3ac7f2eb, 0xc8ac71e8, 0x1c661503, 0xee0d9600, 0xfd5d65f4, 0x0f36e6f7,
    0x61c69362, 0x93ad1061, 0x80fde395, 0x72966096, 0xa65c047d, 0x5437877e,
    0x4767748a, 0xb50cf789, 0xeb1fcbad, 0x197448ae, 0x0a24bb5a, 0xf84f3859,
    0x2c855cb2, 0xdeeedfb1, 0xcdbe2c45, 0x3fd5af46, 0x7198540d, 0x83f3d70e,
    0x90a324fa, 0x62c8a7f9, 0xb602c312, 0x44694011, 0x5739b3e5, 0xa55230e6,
    0xfb410cc2, 0x092a8fc1, 0x1a7a7c35, 0xe811ff36, 0x3cdb9bdd, 0xceb018de,
    0xdde0eb2a, 0x2f8b6829, 0x82f63b78, 0x709db87b, 0x63cd4b8f, 0x91a6c88c,
    0x456cac67, 0xb7072f64, 0xa457dc90, 0x563c5f93, 0x082f63b7, 0xfa44e0b4,
    0xe9141340, 0x1b7f9043, 0xcfb5f4a8, 0x3dde77ab, 0x2e8e845f, 0xdce5075c,
    0x92a8fc17, 0x60c37f14, 0x73938ce0, 0x81f80fe3, 0x55326b08, 0xa759e80b,
    0xb4091bff, 0x466298fc, 0x1871a4d8, 0xea1a27db, 0xf94ad42f, 0x0b21572c,
    0xdfeb33c7, 0x2d80b0c4, 0x3ed04330, 0xccbbc033, 0xa24bb5a6, 0x502036a5,
    0x4370c551, 0xb11b4652, 0x65d122b9, 0x97baa1ba, 0x84ea524e, 0x7681d14d,
    0x2892ed69, 0xdaf96e6a, 0xc9a99d9e, 0x3bc21e9d, 0xef087a76, 0x1d63f975,
    0x0e330a81, 0xfc588982, 0xb21572c9, 0x407ef1ca, 0x532e023e, 0xa145813d,
    0x758fe5d6, 0x87e466d5, 0x94b49521, 0x66df1622, 0x38cc2a06, 0xcaa7a905,
    0xd9f75af1, 0x2b9cd9f2, 0xff56bd19, 0x0d3d3e1a, 0x1e6dcdee, 0xec064eed,
    0xc38d26c4, 0x31e6a5c7, 0x22b65633, 0xd0ddd530, 0x0417b1db, 0xf67c32d8,
    0xe52cc12c, 0x1747422f, 0x49547e0b, 0xbb3ffd08, 0xa86f0efc, 0x5a048dff,
    0x8ecee914, 0x7ca56a17, 0x6ff599e3, 0x9d9e1ae0, 0xd3d3e1ab, 0x21b862a8,
    0x32e8915c, 0xc083125f, 0x144976b4, 0xe622f5b7, 0xf5720643, 0x07198540,
    0x590ab964, 0xab613a67, 0xb831c993, 0x4a5a4a90, 0x9e902e7b, 0x6cfbad78,
    0x7fab5e8c, 0x8dc0dd8f, 0xe330a81a, 0x115b2b19, 0x020bd8ed, 0xf0605bee,
    0x24aa3f05, 0xd6c1bc06, 0xc5914ff2, 0x37faccf1, 0x69e9f0d5, 0x9b8273d6,
    0x88d28022, 0x7ab90321, 0xae7367ca, 0x5c18e4c9, 0x4f48173d, 0xbd23943e,
    0xf36e6f75, 0x0105ec76, 0x12551f82, 0xe03e9c81, 0x34f4f86a, 0xc69f7b69,
    0xd5cf889d, 0x27a40b9e, 0x79b737ba, 0x8bdcb4b9, 0x988c474d, 0x6ae7c44e,
    0xbe2da0a5, 0x4c4623a6, 0x5f16d052, 0xad7d5351,
};

static uint32_t crc32c(uint32_t c, const uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        c = crc32c_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return c;
}

/* Over seq (little-endian) and the payload. */
static uint32_t rec_crc(uint64_t seq, const uint8_t *p, size_t len)
{
    uint8_t s[8];
    ofcd_put_le(s, seq, 8);
    return ~crc32c(crc32c(0xffffffffu, s, 8), p, len);
}

static size_t padded(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static int full_pread(int fd, void *buf, size_t n, uint64_t off)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(fd, (uint8_t *)buf + done, n - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -errno;
        if (r == 0)
            return -ENODATA;
        done += (size_t)r;
    }
    return 0;
}

static int full_pwrite(int fd, const void *buf, size_t n, uint64_t off)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = pwrite(fd, (const uint8_t *)buf + done, n - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -errno;
        done += (size_t)r;
    }
    return 0;
}

/* ---- replay ------------------------------------------------------------------------ */

/* The header slot in force: the valid one (magic, bounds, CRC) of the
 * higher generation. 0, or -EINVAL when neither is valid. */
static int read_slot(int fd, uint64_t size, uint64_t *gen, uint64_t *first_seq, void *meta,
                     size_t *meta_len)
{
    uint8_t *slot = malloc(SLOT_LEN);
    int found = -EINVAL;

    if (!slot)
        return -ENOMEM;
    for (unsigned i = 0; i < 2; i++) {
        if ((uint64_t)(i + 1) * SLOT_LEN > size || full_pread(fd, slot, SLOT_LEN, i * SLOT_LEN) < 0 ||
            memcmp(slot, MAGIC, 8) != 0)
            continue;
        uint64_t g = ofcd_get_le(slot + 8, 8);
        size_t ml = (size_t)ofcd_get_le(slot + 24, 4);
        if (ml > STORE_JOURNAL_META_MAX ||
            ~crc32c(crc32c(0xffffffffu, slot + 8, 20), slot + SLOT_FIELDS, ml) !=
                (uint32_t)ofcd_get_le(slot + 28, 4) ||
            (found == 0 && g <= *gen))
            continue;
        found = 0;
        *gen = g;
        *first_seq = ofcd_get_le(slot + 16, 8);
        if (meta)
            memcpy(meta, slot + SLOT_FIELDS, ml);
        if (meta_len)
            *meta_len = ml;
    }
    free(slot);
    return found;
}

static int replay_fd(int fd, int (*fn)(void *, uint64_t, const void *, size_t), void *arg,
                     uint64_t *end, uint64_t *next_seq, uint64_t *gen, uint64_t *first_seq,
                     void *meta, size_t *meta_len)
{
    uint8_t rh[REC_HDR];
    struct stat st;
    uint8_t *buf = NULL;
    size_t cap = 0;
    int rc = 0;
    uint64_t seq = 0;

    if (fstat(fd, &st) < 0)
        return -errno;
    /* Both slots are written when a journal is made: shorter is not one. */
    if ((uint64_t)st.st_size < HDR_LEN)
        return -EINVAL;
    if ((rc = read_slot(fd, (uint64_t)st.st_size, gen, &seq, meta, meta_len)) < 0)
        return rc;
    if (first_seq)
        *first_seq = seq;
    uint64_t off = HDR_LEN, size = (uint64_t)st.st_size;
    for (;;) {
        if (off + REC_HDR > size || full_pread(fd, rh, REC_HDR, off) < 0)
            break;
        size_t len = (size_t)ofcd_get_le(rh, 4);
        uint32_t crc = (uint32_t)ofcd_get_le(rh + 4, 4);
        if (len == 0 || len > STORE_JOURNAL_REC_MAX || ofcd_get_le(rh + 8, 8) != seq ||
            off + REC_HDR + padded(len) > size)
            break;
        if (len > cap) {
            uint8_t *nb = realloc(buf, len);
            if (!nb) {
                rc = -ENOMEM;
                break;
            }
            buf = nb;
            cap = len;
        }
        if (full_pread(fd, buf, len, off + REC_HDR) < 0 || rec_crc(seq, buf, len) != crc)
            break;
        if (fn && (rc = fn(arg, seq, buf, len)) != 0)
            break;
        off += REC_HDR + padded(len);
        seq++;
    }
    free(buf);
    *end = off;
    *next_seq = seq;
    return rc;
}

int store_journal_replay(const char *path,
                         int (*fn)(void *arg, uint64_t seq, const void *rec, size_t len),
                         void *arg, uint64_t *end, uint64_t *next_seq, void *meta,
                         size_t *meta_len)
{
    return store_journal_replay_from(path, fn, arg, end, NULL, next_seq, meta, meta_len);
}

int store_journal_replay_from(const char *path,
                              int (*fn)(void *arg, uint64_t seq, const void *rec, size_t len),
                              void *arg, uint64_t *end, uint64_t *first_seq,
                              uint64_t *next_seq, void *meta, size_t *meta_len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    uint64_t gen;

    if (meta_len)
        *meta_len = 0;
    if (fd < 0) {
        if (errno != ENOENT)
            return -errno;
        *end = 0;
        *next_seq = 1;
        if (first_seq)
            *first_seq = 1;
        return 0;
    }
    int rc = replay_fd(fd, fn, arg, end, next_seq, &gen, first_seq, meta, meta_len);
    close(fd);
    return rc;
}

/* ---- writing ------------------------------------------------------------------------ */

/* Zeros over [from, to): the torn tail, or the room written ahead. */
static int zero_range(int fd, uint64_t from, uint64_t to)
{
    static const uint8_t zeros[65536];
    int rc = 0;

    while (rc == 0 && from < to) {
        size_t n = to - from < sizeof(zeros) ? (size_t)(to - from) : sizeof(zeros);
        rc = full_pwrite(fd, zeros, n, from);
        from += n;
    }
    return rc;
}

/* The next generation's slot (the other one than in force): the one in
 * force stays whole whatever a crash does to this write. */
static int write_slot(struct store_journal *j, uint64_t first_seq, const void *meta,
                      size_t meta_len)
{
    uint8_t *slot = calloc(1, SLOT_LEN);
    uint64_t gen = j->gen + 1;

    if (!slot)
        return -ENOMEM;
    memcpy(slot, MAGIC, 8);
    ofcd_put_le(slot + 8, gen, 8);
    ofcd_put_le(slot + 16, first_seq, 8);
    ofcd_put_le(slot + 24, meta_len, 4);
    if (meta_len)
        memcpy(slot + SLOT_FIELDS, meta, meta_len);
    ofcd_put_le(slot + 28, ~crc32c(crc32c(0xffffffffu, slot + 8, 20), slot + SLOT_FIELDS, meta_len),
           4);
    int rc = full_pwrite(j->fd, slot, SLOT_LEN, (gen % 2) * SLOT_LEN);
    free(slot);
    if (rc == 0)
        j->gen = gen;
    return rc;
}

int store_journal_open(const char *path, struct store_journal **out)
{
    struct store_journal *j = calloc(1, sizeof(*j));
    struct stat st;
    int rc = 0;

    if (!j)
        return -ENOMEM;
    j->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (j->fd < 0) {
        rc = -errno;
        free(j);
        return rc;
    }
    if (fstat(j->fd, &st) < 0) {
        rc = -errno;
        goto fail;
    }
    if (st.st_size > 0) {
        rc = replay_fd(j->fd, NULL, NULL, &j->off, &j->next_seq, &j->gen, &j->first_seq,
                       NULL, NULL);
        /* No valid slot (a crash while the file was made, or an invalidated
         * one): it holds no record anyone can place. Made anew, emptied
         * first: its old records must never follow a new header. */
        if (rc == -EINVAL) {
            if (ftruncate(j->fd, 0) < 0) {
                rc = -errno;
                goto fail;
            }
            st.st_size = 0;
        } else if (rc < 0) {
            goto fail;
        }
    }
    if (st.st_size == 0) {
        j->next_seq = j->first_seq = 1;
        j->gen = 0;
        j->off = HDR_LEN;
        /* Slot 0 (generation 0's) zeros, slot 1 generation 1's. */
        rc = zero_range(j->fd, 0, SLOT_LEN);
        if (rc == 0)
            rc = write_slot(j, 1, NULL, 0);
    }
    j->size = st.st_size > (off_t)j->off ? (uint64_t)st.st_size : j->off;
    /* A torn tail is zeroed, so no leftover is ever read as a record. */
    if (rc == 0)
        rc = zero_range(j->fd, j->off, j->size);
    if (rc == 0 && fdatasync(j->fd) < 0)
        rc = -errno;
    if (rc < 0)
        goto fail;
    *out = j;
    return 0;
fail:
    close(j->fd);
    free(j);
    return rc;
}

int store_journal_appendv(struct store_journal *j, const struct store_journal_part *parts,
                          unsigned n)
{
    size_t len = 0;

    for (unsigned i = 0; i < n; i++)
        len += parts[i].len;
    if (len == 0 || len > STORE_JOURNAL_REC_MAX)
        return len ? -E2BIG : -EINVAL;
    size_t need = REC_HDR + padded(len);
    if (j->len + need > j->cap) {
        size_t nc = j->cap ? j->cap : 65536;
        while (nc < j->len + need)
            nc *= 2;
        uint8_t *nb = realloc(j->buf, nc);
        if (!nb)
            return -ENOMEM;
        j->buf = nb;
        j->cap = nc;
    }
    uint8_t *p = j->buf + j->len, *q = p + REC_HDR;
    uint64_t seq = j->next_seq + j->queued;
    for (unsigned i = 0; i < n; i++) {
        if (parts[i].len)
            memcpy(q, parts[i].p, parts[i].len);
        q += parts[i].len;
    }
    memset(q, 0, padded(len) - len);
    ofcd_put_le(p, len, 4);
    ofcd_put_le(p + 4, rec_crc(seq, p + REC_HDR, len), 4);
    ofcd_put_le(p + 8, seq, 8);
    j->len += need;
    j->queued++;
    return 0;
}

int store_journal_append(struct store_journal *j, const void *rec, size_t len)
{
    struct store_journal_part part = {rec, len};

    return store_journal_appendv(j, &part, 1);
}

void store_journal_drop(struct store_journal *j)
{
    j->len = 0;
    j->queued = 0;
}

uint64_t store_journal_queued_bytes(const struct store_journal *j)
{
    return j->len;
}

int store_journal_sync(struct store_journal *j)
{
    int rc = 0;

    if (!j->len)
        return 0;
    /* Room written ahead: a sync never grows the file. */
    if (j->off + j->len + REC_HDR > j->size) {
        uint64_t to = j->off + j->len + REC_HDR + STORE_JOURNAL_AHEAD;
        if ((rc = zero_range(j->fd, j->size, to)) < 0)
            return rc;
        j->size = to;
    }
    if ((rc = full_pwrite(j->fd, j->buf, j->len, j->off)) < 0)
        return rc;
    if (fdatasync(j->fd) < 0)
        return -errno;
    j->next_seq += j->queued;
    j->queued = 0;
    j->off += j->len;
    j->len = 0;
    return 0;
}

int store_journal_reset_at(struct store_journal *j, uint64_t first_seq, const void *meta,
                           size_t meta_len)
{
    if (meta_len > STORE_JOURNAL_META_MAX)
        return -E2BIG;
    int rc = store_journal_sync(j);

    if (rc == 0 && first_seq < j->next_seq)
        return -EINVAL;

    /* The new slot names the next sequence as the first: the old records
     * after it carry smaller ones, so a replay stops at once. */
    if (rc == 0)
        rc = write_slot(j, first_seq, meta, meta_len);
    if (rc == 0 && fdatasync(j->fd) < 0)
        rc = -errno;
    if (rc == 0) {
        j->off = HDR_LEN;
        j->next_seq = j->first_seq = first_seq;
    }
    return rc;
}

int store_journal_reset(struct store_journal *j, const void *meta, size_t meta_len)
{
    int rc = store_journal_sync(j);

    return rc ? rc : store_journal_reset_at(j, j->next_seq, meta, meta_len);
}

int store_journal_set_meta(struct store_journal *j, const void *meta, size_t meta_len)
{
    if (meta_len > STORE_JOURNAL_META_MAX)
        return -E2BIG;
    /* The other slot: a crash while it is written leaves this one whole. */
    int rc = write_slot(j, j->first_seq, meta, meta_len);

    if (rc == 0 && fdatasync(j->fd) < 0)
        rc = -errno;
    return rc;
}

uint64_t store_journal_next_seq(const struct store_journal *j)
{
    return j->next_seq;
}

uint64_t store_journal_bytes(const struct store_journal *j)
{
    return j->off;
}

void store_journal_close(struct store_journal *j)
{
    if (!j)
        return;
    close(j->fd);
    free(j->buf);
    free(j);
}

int store_journal_invalidate(const char *path)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    int rc;

    if (fd < 0)
        return errno == ENOENT ? 0 : -errno;
    rc = zero_range(fd, 0, HDR_LEN);
    if (rc == 0 && fdatasync(fd) < 0)
        rc = -errno;
    close(fd);
    return rc;
}
