/* rest_textbuf: see rest_textbuf.h. */
#include "rest_textbuf.h"

#include <stdlib.h>
#include <string.h>

#include "json_u64.h"

bool rest_textbuf_put(struct rest_textbuf *b, const char *s, size_t n)
{
    if (b->len + n > b->cap) {
        size_t nc = b->cap ? b->cap : 16384;
        while (nc < b->len + n)
            nc *= 2;
        char *nb = realloc(b->buf, nc);
        if (!nb)
            return false;
        b->buf = nb;
        b->cap = nc;
    }
    memcpy(b->buf + b->len, s, n);
    b->len += n;
    return true;
}

bool rest_textbuf_puts(struct rest_textbuf *b, const char *s)
{
    return rest_textbuf_put(b, s, strlen(s));
}

bool rest_textbuf_put_json(struct rest_textbuf *b, json_t *o)
{
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;

    json_decref(o);
    if (!text)
        return false;
    json_u64_fixup(text);
    bool ok = rest_textbuf_puts(b, text);
    free(text);
    return ok;
}

bool rest_textbuf_drained(struct rest_textbuf *b)
{
    if (b->off < b->len)
        return false;
    b->off = b->len = 0;
    return true;
}

size_t rest_textbuf_take(struct rest_textbuf *b, char *out, size_t max)
{
    size_t n = b->len - b->off < max ? b->len - b->off : max;

    memcpy(out, b->buf + b->off, n);
    b->off += n;
    return n;
}

void rest_textbuf_free(struct rest_textbuf *b)
{
    free(b->buf);
    *b = (struct rest_textbuf){0};
}
