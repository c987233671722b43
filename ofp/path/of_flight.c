/*
 * of_flight: a connection's flight record (of_flight.h).
 *
 * Each ring is a circular byte buffer of records {hdr, bytes, padding to
 * 8}; a record may wrap past the end (written and read in two parts), so
 * no space is lost at the end and a message that fits the ring always
 * goes in after enough of the oldest have left.
 */
#include <errno.h>
#include <string.h>

#include "of_flight.h"

struct rec_hdr {
    uint64_t t_ns;
    uint32_t seq;
    uint32_t len;
    uint32_t orig_len;
    uint32_t dir;
};

struct blob_hdr {
    uint32_t magic;
    uint32_t count;
    uint64_t recorded, evicted, truncated;
};

static uint32_t pad8(uint32_t n)
{
    return (n + 7u) & ~7u;
}

static uint32_t rec_size(uint32_t len)
{
    return (uint32_t)sizeof(struct rec_hdr) + pad8(len);
}

/* A record's size as a blob claims it (any len: no wrap). */
static size_t blob_rec_size(uint32_t len)
{
    return sizeof(struct rec_hdr) + (((size_t)len + 7u) & ~(size_t)7u);
}

static void ring_put(struct of_flight_ring *g, uint32_t off, const void *src, uint32_t n)
{
    uint32_t first = g->cap - off < n ? g->cap - off : n;

    memcpy(g->buf + off, src, first);
    memcpy(g->buf, (const uint8_t *)src + first, n - first);
}

static void ring_get(const struct of_flight_ring *g, uint32_t off, void *dst, uint32_t n)
{
    uint32_t first = g->cap - off < n ? g->cap - off : n;

    memcpy(dst, g->buf + off, first);
    memcpy((uint8_t *)dst + first, g->buf, n - first);
}

/* n is at most cap: no division on the lcore's path. */
static uint32_t ring_next(const struct of_flight_ring *g, uint32_t off, uint32_t n)
{
    return n >= g->cap - off ? n - (g->cap - off) : off + n;
}

void of_flight_init(struct of_flight *r, void *mem, size_t len)
{
    uint32_t half = (uint32_t)(len / 2) & ~7u;

    memset(r, 0, sizeof(*r));
    if (half < 2 * sizeof(struct rec_hdr))
        return;                     /* too small to keep anything: off */
    r->ring[OF_FLIGHT_IN] = (struct of_flight_ring){.buf = mem, .cap = half};
    r->ring[OF_FLIGHT_OUT] = (struct of_flight_ring){.buf = (uint8_t *)mem + half, .cap = half};
}

void of_flight_reset(struct of_flight *r)
{
    for (int d = 0; d < 2; d++) {
        struct of_flight_ring *g = &r->ring[d];
        g->head = g->tail = g->used = g->n = 0;
    }
    r->seq = 0;
    r->st = (struct of_flight_stats){0};
}

static void ring_drop_oldest(struct of_flight_ring *g)
{
    struct rec_hdr h;

    ring_get(g, g->tail, &h, sizeof(h));
    uint32_t sz = rec_size(h.len);
    g->tail = ring_next(g, g->tail, sz);
    g->used -= sz;
    g->n--;
}

unsigned of_flight_add(struct of_flight *r, enum of_flight_dir dir, uint64_t t_ns,
                        const void *msg, size_t len)
{
    struct of_flight_ring *g = &r->ring[dir == OF_FLIGHT_OUT];
    unsigned evicted = 0;

    if (!g->cap)
        return 0;
    struct rec_hdr h = {.t_ns = t_ns, .seq = r->seq++, .orig_len = (uint32_t)len,
                        .dir = dir == OF_FLIGHT_OUT};
    /* At most a quarter of the ring (a header and its padding always
     * fit beside it: the ring holds at least two headers). */
    uint32_t keep = g->cap / 4 < OF_FLIGHT_TRUNC ? g->cap / 4 : OF_FLIGHT_TRUNC;
    h.len = len > g->cap / 4 ? keep : (uint32_t)len;
    if (h.len < len)
        r->st.truncated++;
    uint32_t need = rec_size(h.len);
    while (g->cap - g->used < need) {
        ring_drop_oldest(g);
        evicted++;
    }
    r->st.evicted += evicted;
    ring_put(g, g->head, &h, sizeof(h));
    ring_put(g, ring_next(g, g->head, sizeof(h)), msg, h.len);
    g->head = ring_next(g, g->head, need);
    g->used += need;
    g->n++;
    r->st.recorded++;
    return evicted;
}

size_t of_flight_copy_size(const struct of_flight *r)
{
    return sizeof(struct blob_hdr) + r->ring[0].used + r->ring[1].used;
}

size_t of_flight_copy(const struct of_flight *r, void *dst, size_t cap)
{
    size_t need = of_flight_copy_size(r);

    if (cap < need)
        return 0;
    uint8_t *o = dst;
    struct blob_hdr bh = {OF_FLIGHT_BLOB_MAGIC, r->ring[0].n + r->ring[1].n, r->st.recorded,
                          r->st.evicted, r->st.truncated};
    memcpy(o, &bh, sizeof(bh));
    o += sizeof(bh);
    /* Both rings hold their records in sequence order: merged by seq,
     * whose wrap at 2^32 a signed difference tells. */
    uint32_t off[2] = {r->ring[0].tail, r->ring[1].tail}, left[2] = {r->ring[0].n,
                                                                      r->ring[1].n};
    struct rec_hdr h[2];
    for (int d = 0; d < 2; d++)
        if (left[d])
            ring_get(&r->ring[d], off[d], &h[d], sizeof(h[d]));
    while (left[0] || left[1]) {
        int d = !left[0] ? 1 : !left[1] ? 0 : (int32_t)(h[1].seq - h[0].seq) < 0;
        const struct of_flight_ring *g = &r->ring[d];
        uint32_t sz = rec_size(h[d].len);
        ring_get(g, off[d], o, sz);
        o += sz;
        off[d] = ring_next(g, off[d], sz);
        if (--left[d])
            ring_get(g, off[d], &h[d], sizeof(h[d]));
    }
    return (size_t)(o - (uint8_t *)dst);
}

/* Walks a blob: with fn NULL only checks it. */
static int blob_walk(const uint8_t *p, size_t len, of_flight_fn fn, void *arg)
{
    struct blob_hdr bh;
    size_t at = sizeof(bh);

    memcpy(&bh, p, sizeof(bh));
    for (uint32_t i = 0; i < bh.count; i++) {
        struct rec_hdr h;
        if (len - at < sizeof(h))
            return -EBADMSG;
        memcpy(&h, p + at, sizeof(h));
        /* orig_len: an OpenFlow length (16 bits); len: at most what a
         * shortened message keeps when shortened. */
        if (h.dir > 1 || h.len > h.orig_len || h.orig_len > 0xffff ||
            (h.len < h.orig_len && h.len > OF_FLIGHT_TRUNC) || len - at < blob_rec_size(h.len))
            return -EBADMSG;
        if (fn) {
            struct of_flight_msg m = {h.dir ? OF_FLIGHT_OUT : OF_FLIGHT_IN, h.t_ns, h.seq,
                                   p + at + sizeof(h), h.len, h.orig_len};
            int rc = fn(&m, arg);
            if (rc)
                return rc;
        }
        at += blob_rec_size(h.len);
    }
    return at == len ? 0 : -EBADMSG;
}

int of_flight_blob_each(const void *blob, size_t len, of_flight_fn fn, void *arg,
                        struct of_flight_stats *st)
{
    struct blob_hdr bh;

    if (!blob || len < sizeof(bh))
        return -EBADMSG;
    memcpy(&bh, blob, sizeof(bh));
    if (bh.magic != OF_FLIGHT_BLOB_MAGIC)
        return -EBADMSG;
    int rc = blob_walk(blob, len, NULL, NULL);
    if (rc)
        return rc;
    if (st)
        *st = (struct of_flight_stats){bh.recorded, bh.evicted, bh.truncated};
    return blob_walk(blob, len, fn, arg);
}
