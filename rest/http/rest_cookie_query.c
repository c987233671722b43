/* rest_cookie_query: see rest_cookie_query.h. */
#include "rest_cookie_query.h"

#include <ctype.h>
#include <errno.h>

/* text as an integer clamped to 0..2^64-1; *side says which way it was
 * clamped (-1 below 0, +1 above, 0 not). -EINVAL when not an integer. */
static int parse_clamped(const char *s, uint64_t *v, int *side)
{
    bool neg = false, digits = false;
    uint64_t acc = 0;

    *side = 0;
    while (isspace((unsigned char)*s))
        s++;
    if (*s == '+' || *s == '-')
        neg = *s++ == '-';
    for (; isdigit((unsigned char)*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        digits = true;
        if (*side == 0 && acc > (UINT64_MAX - d) / 10)
            *side = 1;
        acc = acc * 10 + d;
    }
    while (isspace((unsigned char)*s))
        s++;
    if (!digits || *s)
        return -EINVAL;
    if (neg && (acc || *side)) {
        *side = -1;
        acc = 0;
    }
    *v = *side > 0 ? UINT64_MAX : acc;
    return 0;
}

int rest_cookie_query_add(struct rest_cookie_query *cq, const char *text)
{
    uint64_t v;
    int side;

    if (parse_clamped(text, &v, &side) < 0)
        return -EINVAL;
    if (cq->n_values / 2 >= REST_COOKIE_PAIRS_MAX)
        return -E2BIG;
    if (cq->n_values++ % 2 == 0) {
        cq->lo = v;
        cq->lo_side = side;
        return 0;
    }
    /* A bound below 0 is 0 as a low end and matches nothing as a high end;
     * above 2^64-1 the reverse. */
    if (side < 0 || cq->lo_side > 0 || cq->lo > v)
        return 0;
    cq->pairs[cq->n++] = (struct ofcd_range){cq->lo, v};
    return 0;
}

int rest_cookie_query_finish(const struct rest_cookie_query *cq)
{
    return cq->n_values % 2 ? -EINVAL : 0;
}

bool rest_cookie_query_match(const struct rest_cookie_query *cq, uint64_t cookie)
{
    return cq->n_values == 0 || ofcd_ranges_contain(cq->pairs, cq->n, cookie);
}
