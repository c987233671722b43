/* topo_tags: see topo_tags.h. */
#include "topo_tags.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int topo_tags_check(const struct topo_tag_range *r, size_t n, char *why, size_t len)
{
    uint32_t last = 0;

    if (n == 0) {
        snprintf(why, len, "Tag range is empty");
        return -EINVAL;
    }
    if (n > TOPO_TAGS_MAX_RANGES) {
        snprintf(why, len, "%zu ranges: at most %u", n, TOPO_TAGS_MAX_RANGES);
        return -EINVAL;
    }
    /* In Kytos' order, so the first fault named is the one Kytos names. */
    for (size_t i = 0; i < n; i++) {
        if (r[i].lo > r[i].hi) {
            snprintf(why, len, "The range [%" PRIu32 ", %" PRIu32 "] is not ordered", r[i].lo,
                     r[i].hi);
            return -EINVAL;
        }
        if (last && last > r[i].lo) {
            snprintf(why, len, "Tag ranges are not ordered. %" PRIu32 " is higher than %" PRIu32,
                     last, r[i].lo);
            return -EINVAL;
        }
        if (last && last + 1 == r[i].lo) {
            snprintf(why, len, "Tag ranges have an unnecessary partition. %" PRIu32
                     " is before to %" PRIu32, last, r[i].lo);
            return -EINVAL;
        }
        if (last && last == r[i].lo) {
            snprintf(why, len, "Tag ranges have repetition. [%" PRIu32 ", %" PRIu32
                     "] have same values as [%" PRIu32 ", %" PRIu32 "]",
                     r[i - 1].lo, r[i - 1].hi, r[i].lo, r[i].hi);
            return -EINVAL;
        }
        last = r[i].hi;
    }
    if (r[n - 1].hi > TOPO_VLAN_MAX) {
        snprintf(why, len, "Maximum value for a tag is %u", TOPO_VLAN_MAX);
        return -EINVAL;
    }
    if (r[0].lo < TOPO_VLAN_MIN) {
        snprintf(why, len, "Minimum value for a tag is %u", TOPO_VLAN_MIN);
        return -EINVAL;
    }
    return 0;
}

bool topo_tags_has(const struct topo_tag_range *r, size_t n, uint32_t tag)
{
    for (size_t i = 0; i < n; i++)
        if (r[i].lo <= tag && tag <= r[i].hi)
            return true;
    return false;
}

size_t topo_tags_minus(const struct topo_tag_range *r, size_t n, uint32_t tag,
                       struct topo_tag_range *out)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++) {
        if (tag < r[i].lo || tag > r[i].hi) {
            out[k++] = r[i];
            continue;
        }
        if (r[i].lo < tag)
            out[k++] = (struct topo_tag_range){r[i].lo, tag - 1};
        if (tag < r[i].hi)
            out[k++] = (struct topo_tag_range){tag + 1, r[i].hi};
    }
    return k;
}

void topo_tags_to_set(const struct topo_tag_range *r, size_t n, uint64_t set[TOPO_TAGS_WORDS])
{
    memset(set, 0, TOPO_TAGS_WORDS * sizeof(set[0]));
    for (size_t i = 0; i < n; i++)
        for (uint32_t t = r[i].lo; t <= r[i].hi && t < 64u * TOPO_TAGS_WORDS; t++)
            set[t / 64] |= 1ull << (t % 64);
}

void topo_tags_mark(uint64_t set[TOPO_TAGS_WORDS], unsigned lo, unsigned hi)
{
    for (unsigned t = lo; t && t <= hi && t < 64u * TOPO_TAGS_WORDS; t++)
        set[t / 64] |= 1ull << (t % 64);
}

void topo_tags_into(void *used, uint64_t dpid, uint32_t port, unsigned lo, unsigned hi,
                    unsigned special)
{
    struct topo_tags_used *u = used;
    (void)dpid;
    (void)port;
    topo_tags_mark(u->set, lo, hi);
    if (u->special)
        *u->special |= special;
}

size_t topo_tags_from_set(const uint64_t set[TOPO_TAGS_WORDS], struct topo_tag_range *out)
{
    size_t k = 0;

    for (uint32_t t = 0; t < 64u * TOPO_TAGS_WORDS;) {
        if (!(set[t / 64] >> (t % 64) & 1)) {
            t++;
            continue;
        }
        uint32_t lo = t;
        while (t < 64u * TOPO_TAGS_WORDS && (set[t / 64] >> (t % 64) & 1))
            t++;
        out[k++] = (struct topo_tag_range){lo, t - 1};
    }
    return k;
}

unsigned topo_special_bit(const char *name)
{
    if (strcmp(name, "untagged") == 0)
        return TOPO_SPECIAL_UNTAGGED;
    if (strcmp(name, "any") == 0)
        return TOPO_SPECIAL_ANY;
    return 0;
}

const char *topo_special_name(unsigned bit)
{
    return bit == TOPO_SPECIAL_UNTAGGED ? "untagged" : bit == TOPO_SPECIAL_ANY ? "any" : "";
}
