/*
 * store_jcode: see store_jcode.h. The pieces are what Kytos-ng's own apps
 * and its users' flows spell most (flow_manager's fields, mef_eline's and
 * of_lldp's flows), each name with its quotes so that a name followed by
 * ": " or ":" codes alike.
 */
#include "store_jcode.h"

#include <errno.h>
#include <string.h>

#define JCODE_CODES 0x20    /* a piece's code is a byte below this */
#define JCODE_NAME_MAX 20   /* the longest piece, quotes included, and more */

struct jcode_piece {
    unsigned char len;      /* 0: the byte is no code */
    const char *text;
};

#define P(s) {sizeof(s) - 1, s}
/* Each piece at its code. The stored format: append only (store_jcode.h).
 * 0x00, tab, line feed and carriage return stand for themselves. */
static const struct jcode_piece jcode_pieces[JCODE_CODES] = {
    [0x01] = P(": "),              [0x02] = P(", "),
    [0x03] = P("\"priority\""),    [0x04] = P("\"match\""),
    [0x05] = P("\"actions\""),     [0x06] = P("\"action_type\""),
    [0x07] = P("\"output\""),      [0x08] = P("\"port\""),
    [0x0b] = P("\"in_port\""),     [0x0c] = P("\"dl_vlan\""),
    [0x0e] = P("\"dl_type\""),     [0x0f] = P("\"nw_src\""),
    [0x10] = P("\"nw_dst\""),      [0x11] = P("\"cookie\""),
    [0x12] = P("\"table_id\""),    [0x13] = P("\"instructions\""),
    [0x14] = P("\"instruction_type\""), [0x15] = P("\"apply_actions\""),
    [0x16] = P("\"set_vlan\""),    [0x17] = P("\"vlan_id\""),
    [0x18] = P("\"push_vlan\""),   [0x19] = P("\"tag_type\""),
    [0x1a] = P("\"pop_vlan\""),    [0x1b] = P("\"dl_src\""),
    [0x1c] = P("\"dl_dst\""),      [0x1d] = P("\"owner\""),
    [0x1e] = P("\"tp_dst\""),      [0x1f] = P("\"table_group\""),
};
#undef P

#define JCODE_COLON 0x01
#define JCODE_COMMA 0x02
#define JCODE_FIRST_NAME 0x03

static int jcode_is_code(unsigned char c)
{
    return c < JCODE_CODES && jcode_pieces[c].len;
}

/* The code of the name piece text (starting with a quote) starts with, or 0. */
static unsigned char jcode_name_at(const char *text, size_t left)
{
    size_t max = left < JCODE_NAME_MAX ? left : JCODE_NAME_MAX;
    const char *end = memchr(text + 1, '"', max > 1 ? max - 1 : 0);

    if (!end)
        return 0;
    size_t len = (size_t)(end - text) + 1;
    for (unsigned char c = JCODE_FIRST_NAME; c < JCODE_CODES; c++)
        if (jcode_pieces[c].len == len && memcmp(jcode_pieces[c].text, text, len) == 0)
            return c;
    return 0;
}

long store_jcode_encode(const char *text, size_t len, unsigned char *out)
{
    size_t o = 0;

    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)text[i], code = 0;

        if (jcode_is_code(c))
            return -EINVAL;
        if (c == '"')
            code = jcode_name_at(text + i, len - i);
        else if ((c == ':' || c == ',') && i + 1 < len && text[i + 1] == ' ')
            code = c == ':' ? JCODE_COLON : JCODE_COMMA;
        if (code) {
            out[o++] = code;
            i += jcode_pieces[code].len;
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
            const struct jcode_piece *p = &jcode_pieces[c];

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
