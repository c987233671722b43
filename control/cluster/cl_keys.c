/* cl_keys: see cl_keys.h. */
#include "cl_keys.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define MEMBERS "members/"
#define EVENTS "events/"
#define SWITCHES "switches/"
#define CAND "/cand/"
#define DPID_DIGITS 16

static int written(int n, size_t len)
{
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

int cl_key_member(char *buf, size_t len, const char *prefix, const char *node)
{
    return written(snprintf(buf, len, "%s" MEMBERS "%s", prefix, node), len);
}

int cl_key_members(char *buf, size_t len, const char *prefix)
{
    return written(snprintf(buf, len, "%s" MEMBERS, prefix), len);
}

int cl_key_cand(char *buf, size_t len, const char *prefix, uint64_t dpid, const char *node)
{
    return written(snprintf(buf, len, "%s" SWITCHES "%016" PRIx64 CAND "%s", prefix, dpid,
                            node), len);
}

int cl_key_switches(char *buf, size_t len, const char *prefix)
{
    return written(snprintf(buf, len, "%s" SWITCHES, prefix), len);
}

int cl_key_events(char *buf, size_t len, const char *prefix, const char *node)
{
    return written(snprintf(buf, len, "%s" EVENTS "%s", prefix, node), len);
}

/* The node name that ends a key: not empty, fits, and as cluster.node_id
 * allows it (letters, digits, '.', '_', '-'): anything else was not
 * written by an ofcd, and would reach logs and JSON (where a byte that is
 * not UTF-8 makes the answer a 500). */
static int take_node(const uint8_t *p, size_t n, char *out)
{
    if (n == 0 || n >= CL_NODE_NAME_MAX)
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') ||
              (p[i] >= '0' && p[i] <= '9') || p[i] == '.' || p[i] == '_' || p[i] == '-'))
            return -EINVAL;
    memcpy(out, p, n);
    out[n] = '\0';
    return 0;
}

static int hex_dpid(const uint8_t *p, uint64_t *out)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < DPID_DIGITS; i++) {
        unsigned d;
        if (p[i] >= '0' && p[i] <= '9')
            d = p[i] - '0';
        else if (p[i] >= 'a' && p[i] <= 'f')
            d = p[i] - 'a' + 10;
        else
            return -EINVAL;
        v = v << 4 | d;
    }
    *out = v;
    return 0;
}

int cl_key_parse(const char *prefix, const uint8_t *key, size_t len, struct cl_key *out)
{
    size_t pl = strlen(prefix);

    *out = (struct cl_key){.kind = CL_KEY_OTHER};
    if (len < pl || memcmp(key, prefix, pl) != 0)
        return -EINVAL;
    key += pl;
    len -= pl;
    if (len >= sizeof(MEMBERS) - 1 && memcmp(key, MEMBERS, sizeof(MEMBERS) - 1) == 0) {
        out->kind = CL_KEY_MEMBER;
        return take_node(key + sizeof(MEMBERS) - 1, len - (sizeof(MEMBERS) - 1), out->node);
    }
    if (len >= sizeof(EVENTS) - 1 && memcmp(key, EVENTS, sizeof(EVENTS) - 1) == 0) {
        out->kind = CL_KEY_EVENTS;
        return take_node(key + sizeof(EVENTS) - 1, len - (sizeof(EVENTS) - 1), out->node);
    }
    if (len < sizeof(SWITCHES) - 1 || memcmp(key, SWITCHES, sizeof(SWITCHES) - 1) != 0)
        return 0;
    key += sizeof(SWITCHES) - 1;
    len -= sizeof(SWITCHES) - 1;
    const size_t head = DPID_DIGITS + sizeof(CAND) - 1;
    if (len < head || memcmp(key + DPID_DIGITS, CAND, sizeof(CAND) - 1) != 0)
        return 0;                   /* another kind of switch key: not a candidate */
    out->kind = CL_KEY_CAND;
    if (hex_dpid(key, &out->dpid) < 0)
        return -EINVAL;
    return take_node(key + head, len - head, out->node);
}

int cl_key_view(char *from, char *to, const char *prefix)
{
    int a = snprintf(from, CL_KEY_MAX, "%s" EVENTS, prefix);
    int b = snprintf(to, CL_KEY_MAX, "%sswitches0", prefix);    /* '0' follows '/' */

    return a < 0 || b < 0 || a >= (int)CL_KEY_MAX || b >= (int)CL_KEY_MAX ? -ENAMETOOLONG : 0;
}
