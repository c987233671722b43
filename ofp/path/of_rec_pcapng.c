/*
 * of_rec_pcapng: a flight record as a capture file (of_rec.h): the blob's
 * records, in the order they happened, through the pcapng writer.
 */
#include <errno.h>
#include <string.h>

#include "of_rec.h"
#include "ofcd_pcapng.h"

struct to_cap {
    struct ofcd_pcapng *w;
    int64_t shift;
};

static uint64_t wall(const struct to_cap *c, uint64_t t_ns)
{
    int64_t t = (int64_t)t_ns + c->shift;
    return t > 0 ? (uint64_t)t : 0;
}

static int first_time(const struct of_rec_msg *m, void *arg)
{
    *(uint64_t *)arg = m->t_ns;
    return 1;
}

static int one(const struct of_rec_msg *m, void *arg)
{
    static const uint8_t zeros[256];
    struct to_cap *c = arg;
    bool in = m->dir == OF_REC_IN;
    int rc = ofcd_pcapng_data(c->w, in, wall(c, m->t_ns), m->bytes, m->len);

    /* What the recorder did not keep, as zeros of its length: the reader
     * frames the next message where it starts. */
    for (uint32_t left = m->orig_len - m->len; rc == 0 && left;) {
        uint32_t n = left < sizeof(zeros) ? left : (uint32_t)sizeof(zeros);
        rc = ofcd_pcapng_data(c->w, in, wall(c, m->t_ns), zeros, n);
        left -= n;
    }
    return rc;
}

int of_rec_pcapng(const void *blob, size_t len, const struct ofcd_pcapng_ends *ends,
                  int64_t mono_to_wall_ns, const char *comment, struct ofcd_pcapng *w)
{
    struct to_cap c = {w, mono_to_wall_ns};
    uint64_t t0 = 0;

    memset(w, 0, sizeof(*w));               /* ofcd_pcapng_free is always safe */
    int rc = of_rec_blob_each(blob, len, first_time, &t0, NULL);

    if (rc < 0)
        return rc;
    rc = ofcd_pcapng_begin(w, ends, comment, wall(&c, t0));
    return rc ? rc : of_rec_blob_each(blob, len, one, &c, NULL);
}
