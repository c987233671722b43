/*
 * store_jcode: see store_jcode.h. The pieces are what Kytos-ng's own apps
 * and its users' flows spell most (flow_manager's fields, mef_eline's and
 * of_lldp's flows), each name with its quotes so that a name followed by
 * ": " or ":" codes alike.
 */
#include "store_jcode.h"

#include <errno.h>
#include <string.h>

#define JCODE_PIECES 28
#define JCODE_NAME_MAX 20   /* the longest piece, quotes included, and more */

struct jcode_piece {
    unsigned char code;
    unsigned char len;
    const char *text;
};

#define P(c, s) {c, sizeof(s) - 1, s}
/* The stored format: append only (store_jcode.h). */
static const struct jcode_piece jcode_pieces[JCODE_PIECES] = {
    P(0x01, ": "),              P(0x02, ", "),
    P(0x03, "\"priority\""),    P(0x04, "\"match\""),
    P(0x05, "\"actions\""),     P(0x06, "\"action_type\""),
    P(0x07, "\"output\""),      P(0x08, "\"port\""),
    P(0x0b, "\"in_port\""),     P(0x0c, "\"dl_vlan\""),
    P(0x0e, "\"dl_type\""),     P(0x0f, "\"nw_src\""),
    P(0x10, "\"nw_dst\""),      P(0x11, "\"cookie\""),
    P(0x12, "\"table_id\""),    P(0x13, "\"instructions\""),
    P(0x14, "\"instruction_type\""), P(0x15, "\"apply_actions\""),
    P(0x16, "\"set_vlan\""),    P(0x17, "\"vlan_id\""),
    P(0x18, "\"push_vlan\""),   P(0x19, "\"tag_type\""),
    P(0x1a, "\"pop_vlan\""),    P(0x1b, "\"dl_src\""),
    P(0x1c, "\"dl_dst\""),      P(0x1d, "\"owner\""),
    P(0x1e, "\"tp_dst\""),      P(0x1f, "\"table_group\""),
};
#undef P

/* Byte below 0x20 -> its piece + 1, 0 for a byte that stands for itself. */
static const unsigned char jcode_of_byte[0x20] = {
    [0x01] = 1,  [0x02] = 2,  [0x03] = 3,  [0x04] = 4,  [0x05] = 5,  [0x06] = 6,
    [0x07] = 7,  [0x08] = 8,  [0x0b] = 9,  [0x0c] = 10, [0x0e] = 11, [0x0f] = 12,
    [0x10] = 13, [0x11] = 14, [0x12] = 15, [0x13] = 16, [0x14] = 17, [0x15] = 18,
    [0x16] = 19, [0x17] = 20, [0x18] = 21, [0x19] = 22, [0x1a] = 23, [0x1b] = 24,
    [0x1c] = 25, [0x1d] = 26, [0x1e] = 27, [0x1f] = 28,
};

static int jcode_is_code(unsigned char c)
{
    return c < 0x20 && jcode_of_byte[c];
}

/* The name piece text (starting with a quote) starts with, or -1. */
static int jcode_name_at(const char *text, size_t left)
{
    size_t max = left < JCODE_NAME_MAX ? left : JCODE_NAME_MAX;
    const char *end = memchr(text + 1, '"', max > 1 ? max - 1 : 0);

    if (!end)
        return -1;
    size_t len = (size_t)(end - text) + 1;
    for (int k = 2; k < JCODE_PIECES; k++)
        if (jcode_pieces[k].len == len && memcmp(jcode_pieces[k].text, text, len) == 0)
            return k;
    return -1;
}

long store_jcode_encode(const char *text, size_t len, unsigned char *out)
{
    size_t o = 0;

    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)text[i];
        int k = -1;

        if (jcode_is_code(c))
            return -EINVAL;
        if (c == '"')
            k = jcode_name_at(text + i, len - i);
        else if ((c == ':' || c == ',') && i + 1 < len && text[i + 1] == ' ')
            k = c == ':' ? 0 : 1;
        if (k >= 0) {
            out[o++] = jcode_pieces[k].code;
            i += jcode_pieces[k].len;
        } else {
            out[o++] = c;
            i++;
        }
    }
    return o < len ? (long)o : -E2BIG;
}

int store_jcode_decode(const unsigned char *in, size_t in_len, char *out, size_t out_len)
{
    size_t o = 0;

    for (size_t i = 0; i < in_len; i++) {
        unsigned char c = in[i];

        if (jcode_is_code(c)) {
            const struct jcode_piece *p = &jcode_pieces[jcode_of_byte[c] - 1];

            if (out_len - o < p->len)
                return -EIO;
            memcpy(out + o, p->text, p->len);
            o += p->len;
        } else {
            if (o == out_len)
                return -EIO;
            out[o++] = (char)c;
        }
    }
    return o == out_len ? 0 : -EIO;
}
