/*
 * of_flight_pcapng: a flight record as a capture file (of_flight.h): the blob's
 * records, in the order they happened, through the pcapng writer.
 */
#include <errno.h>
#include <string.h>

#include "of_flight.h"
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

static int first_time(const struct of_flight_msg *m, void *arg)
{
    *(uint64_t *)arg = m->t_ns;
    return 1;
}

static int one(const struct of_flight_msg *m, void *arg)
{
    struct to_cap *c = arg;
    bool in = m->dir == OF_FLIGHT_IN;
    uint8_t cut[OF_FLIGHT_TRUNC];

    if (m->len == m->orig_len || m->len < 4)
        return ofcd_pcapng_data(c->w, in, wall(c, m->t_ns), m->bytes, m->len);
    /* A message the recorder kept short goes as what was kept, its length
     * field saying so: the reader frames the next message where it starts,
     * and the capture stays as small as the record (zeros for what was not
     * kept would make a 64 KiB message of every 256 bytes). */
    memcpy(cut, m->bytes, m->len);
    cut[2] = (uint8_t)(m->len >> 8);
    cut[3] = (uint8_t)m->len;
    return ofcd_pcapng_data(c->w, in, wall(c, m->t_ns), cut, m->len);
}

int of_flight_pcapng(const void *blob, size_t len, const struct ofcd_pcapng_ends *ends,
                     int64_t mono_to_wall_ns, const char *comment, struct ofcd_pcapng *w)
{
    struct to_cap c = {w, mono_to_wall_ns};
    uint64_t t0 = 0;

    memset(w, 0, sizeof(*w));               /* ofcd_pcapng_free is always safe */
    int rc = of_flight_blob_each(blob, len, first_time, &t0, NULL);

    if (rc < 0)
        return rc;
    rc = ofcd_pcapng_begin(w, ends, comment, wall(&c, t0));
    return rc ? rc : of_flight_blob_each(blob, len, one, &c, NULL);
}
