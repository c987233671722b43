/* ofcd_hex: see ofcd_hex.h. */
#include "ofcd_hex.h"

#include <errno.h>

void ofcd_hex_encode(char *out, const uint8_t *b, size_t n)
{
    static const char digits[] = "0123456789abcdef";

    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

static int nibble(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int ofcd_hex_decode(const char *s, size_t len, uint8_t *b, size_t n)
{
    if (!s || len != 2 * n)
        return -EINVAL;
    for (size_t i = 0; i < n; i++) {
        int hi = nibble(s[2 * i]), lo = nibble(s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -EINVAL;
        b[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}
