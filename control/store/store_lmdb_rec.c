/* store_lmdb_rec: see store_lmdb_rec.h. */
#include "store_lmdb_rec.h"

#include <errno.h>
#include <string.h>

#include "store.h"

/* Version 2: the first byte. Version 1 begins with its magic word's low
 * byte on this (little-endian) machine, 0x31, or 0x4f on a big-endian one. */
#define REC2_MAGIC 0xa5u
#define REC2_FIXED 4u           /* magic, state, flags, owner length */
#define REC2_FLAGS (REC_FLAG_JCODED | REC_FLAG_CHANGED | REC_FLAG_ERR | REC_FLAG_LONG)

/* Version 1's header. */
#define REC1_MAGIC 0x4f465331u /* "OFS1" */
#define REC1_OFF_STATE 4
#define REC1_OFF_FLAGS 5
#define REC1_OFF_OWNER_LEN 6
#define REC1_OFF_ERR_TYPE 8
#define REC1_OFF_ERR_CODE 10
#define REC1_OFF_JSON_LEN 12
#define REC1_OFF_FLOW_ID 16
#define REC1_OFF_ADDED 24
#define REC1_OFF_CHANGED 32
#define REC1_LEN 40

/* State records: version 1's 24 bytes, version 2's 18 (+ 4 with an error). */
#define STATE1_LEN 24
#define STATE2_LEN 18
#define STATE2_FLAG_ERR 0x01u

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, sizeof(v)); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, sizeof(v)); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, sizeof(v)); }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, sizeof(v)); return v; }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, sizeof(v)); return v; }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, sizeof(v)); return v; }

static unsigned hdr_flags(const struct rec_hdr *h)
{
    return (h->coded ? REC_FLAG_JCODED : 0) |
           (h->changed_ns != h->added_ns ? REC_FLAG_CHANGED : 0) |
           (h->err_type || h->err_code ? REC_FLAG_ERR : 0) |
           (h->json_len > UINT16_MAX ? REC_FLAG_LONG : 0);
}

static size_t flags_len(unsigned flags)
{
    return REC2_FIXED + (flags & REC_FLAG_LONG ? 4 : 2) + 16 +
           (flags & REC_FLAG_CHANGED ? 8 : 0) + (flags & REC_FLAG_ERR ? 4 : 0);
}

size_t rec_hdr_len(const struct rec_hdr *h)
{
    return flags_len(hdr_flags(h));
}

size_t rec_hdr_write(uint8_t *p, const struct rec_hdr *h)
{
    unsigned flags = hdr_flags(h);
    uint8_t *q = p + REC2_FIXED;

    p[0] = REC2_MAGIC;
    p[1] = h->state;
    p[2] = (uint8_t)flags;
    p[3] = h->owner_len;
    if (flags & REC_FLAG_LONG) {
        put32(q, h->json_len);
        q += 4;
    } else {
        put16(q, (uint16_t)h->json_len);
        q += 2;
    }
    put64(q, h->flow_id);
    put64(q + 8, h->added_ns);
    q += 16;
    if (flags & REC_FLAG_CHANGED) {
        put64(q, h->changed_ns);
        q += 8;
    }
    if (flags & REC_FLAG_ERR) {
        put16(q, h->err_type);
        put16(q + 2, h->err_code);
        q += 4;
    }
    return (size_t)(q - p);
}

static int hdr1_read(const uint8_t *p, size_t n, struct rec_hdr *h)
{
    if (n < REC1_LEN || get32(p) != REC1_MAGIC || p[REC1_OFF_FLAGS] & ~REC_FLAG_JCODED ||
        get16(p + REC1_OFF_OWNER_LEN) > STORE_OWNER_MAX)
        return -EIO;
    h->state = p[REC1_OFF_STATE];
    h->coded = p[REC1_OFF_FLAGS] & REC_FLAG_JCODED;
    h->owner_len = (uint8_t)get16(p + REC1_OFF_OWNER_LEN);
    h->err_type = get16(p + REC1_OFF_ERR_TYPE);
    h->err_code = get16(p + REC1_OFF_ERR_CODE);
    h->json_len = get32(p + REC1_OFF_JSON_LEN);
    h->flow_id = get64(p + REC1_OFF_FLOW_ID);
    h->added_ns = get64(p + REC1_OFF_ADDED);
    h->changed_ns = get64(p + REC1_OFF_CHANGED);
    return REC1_LEN;
}

static int hdr2_read(const uint8_t *p, size_t n, struct rec_hdr *h)
{
    unsigned flags;
    size_t len;
    const uint8_t *q = p + REC2_FIXED;

    if (n < REC2_FIXED || p[0] != REC2_MAGIC || (p[2] & ~REC2_FLAGS))
        return -EIO;
    flags = p[2];
    len = flags_len(flags);
    if (n < len)
        return -EIO;
    h->state = p[1];
    h->coded = flags & REC_FLAG_JCODED;
    h->owner_len = p[3];
    if (flags & REC_FLAG_LONG) {
        h->json_len = get32(q);
        q += 4;
    } else {
        h->json_len = get16(q);
        q += 2;
    }
    h->flow_id = get64(q);
    h->added_ns = h->changed_ns = get64(q + 8);
    q += 16;
    if (flags & REC_FLAG_CHANGED) {
        h->changed_ns = get64(q);
        q += 8;
    }
    h->err_type = h->err_code = 0;
    if (flags & REC_FLAG_ERR) {
        h->err_type = get16(q);
        h->err_code = get16(q + 2);
    }
    return (int)len;
}

int rec_hdr_read(const uint8_t *p, size_t n, struct rec_hdr *h)
{
    int len = n && p[0] == REC2_MAGIC ? hdr2_read(p, n, h) : hdr1_read(p, n, h);
    size_t body;

    if (len < 0 || h->state > STORE_FLOW_DELETED || n < (size_t)len + h->owner_len)
        return -EIO;
    body = n - (size_t)len - h->owner_len;
    if (h->coded ? body == 0 || body >= h->json_len : body != h->json_len)
        return -EIO;
    return len;
}

size_t rec_state_write(uint8_t *p, const struct rec_state *s)
{
    bool err = s->err_type || s->err_code;

    p[0] = s->state;
    p[1] = err ? STATE2_FLAG_ERR : 0;
    put64(p + 2, s->flow_id);
    put64(p + 10, s->changed_ns);
    if (!err)
        return STATE2_LEN;
    put16(p + STATE2_LEN, s->err_type);
    put16(p + STATE2_LEN + 2, s->err_code);
    return STATE2_LEN + 4;
}

int rec_state_read(const uint8_t *p, size_t n, struct rec_state *s)
{
    if (n == STATE1_LEN) {
        s->state = p[0];
        s->err_type = get16(p + 2);
        s->err_code = get16(p + 4);
        s->flow_id = get64(p + 8);
        s->changed_ns = get64(p + 16);
    } else if ((n == STATE2_LEN && p[1] == 0) ||
               (n == STATE2_LEN + 4 && p[1] == STATE2_FLAG_ERR)) {
        s->state = p[0];
        s->flow_id = get64(p + 2);
        s->changed_ns = get64(p + 10);
        s->err_type = n > STATE2_LEN ? get16(p + STATE2_LEN) : 0;
        s->err_code = n > STATE2_LEN ? get16(p + STATE2_LEN + 2) : 0;
    } else {
        return -EIO;
    }
    return s->state > STORE_FLOW_ERROR ? -EIO : 0;
}
