/*
 * etcd_b64: the bytes of etcd's keys and values as its JSON gateway writes
 * them (standard base64 with padding, read strictly), and the end of a
 * prefix's key range. Part of the codec: etcd_codec.h is the manual.
 */
#include "etcd_codec.h"

#include <errno.h>
#include <string.h>

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t etcd_b64_encode(const uint8_t *in, size_t len, char *out)
{
    size_t o = 0;

    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        size_t rest = len - i;

        if (rest > 1)
            v |= (uint32_t)in[i + 1] << 8;
        if (rest > 2)
            v |= in[i + 2];
        out[o++] = B64[(v >> 18) & 63];
        out[o++] = B64[(v >> 12) & 63];
        out[o++] = rest > 1 ? B64[(v >> 6) & 63] : '=';
        out[o++] = rest > 2 ? B64[v & 63] : '=';
    }
    out[o] = '\0';
    return o;
}

static int b64_val(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

int etcd_b64_decode(const char *in, size_t len, uint8_t *out)
{
    size_t o = 0;

    if (len % 4)
        return -EBADMSG;
    for (size_t i = 0; i < len; i += 4) {
        int v[4];
        int pad = 0;

        for (int j = 0; j < 4; j++) {
            /* '=' only as the last one or two characters of the text. */
            if (in[i + j] == '=' && i + 4 == len && j >= 2) {
                v[j] = 0;
                pad++;
                continue;
            }
            if (pad)
                return -EBADMSG;
            v[j] = b64_val(in[i + j]);
            if (v[j] < 0)
                return -EBADMSG;
        }
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 |
                     (uint32_t)v[3];
        out[o++] = (uint8_t)(w >> 16);
        if (pad < 2)
            out[o++] = (uint8_t)(w >> 8);
        if (pad < 1)
            out[o++] = (uint8_t)w;
    }
    return (int)o;
}

size_t etcd_prefix_end(const uint8_t *key, size_t key_len, uint8_t *out)
{
    for (size_t i = key_len; i > 0; i--) {
        if (key[i - 1] != 0xff) {
            memcpy(out, key, i);
            out[i - 1]++;
            return i;
        }
    }
    out[0] = 0;
    return 1;
}
