/* dpid: see dpid.h. */
#include "dpid.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dpid_parse(const char *s, uint64_t *out)
{
    char hex[17];
    size_t n = 0;
    bool colons = strchr(s, ':') != NULL;

    if (!colons && strlen(s) != 16) {
        /* Decimal, as Kytos and ovs-ofctl print it too. */
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno || *end || end == s || s[0] == '-')
            return -EINVAL;
        *out = v;
        return 0;
    }
    for (const char *p = s; *p; p++) {
        if (*p == ':')
            continue;
        if (n == 16 || !((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') ||
                         (*p >= 'A' && *p <= 'F')))
            return -EINVAL;
        hex[n++] = *p;
    }
    if (n != 16)
        return -EINVAL;
    hex[n] = '\0';
    *out = strtoull(hex, NULL, 16);
    return 0;
}

void dpid_format(uint64_t dpid, char out[24])
{
    snprintf(out, 24, "%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x", (unsigned)(dpid >> 56) & 255,
             (unsigned)(dpid >> 48) & 255, (unsigned)(dpid >> 40) & 255,
             (unsigned)(dpid >> 32) & 255, (unsigned)(dpid >> 24) & 255,
             (unsigned)(dpid >> 16) & 255, (unsigned)(dpid >> 8) & 255, (unsigned)dpid & 255);
}

void mac_format(const uint8_t mac[6], char out[18])
{
    snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
             mac[5]);
}
