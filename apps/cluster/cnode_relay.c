/* cnode_relay: see cnode_relay.h. */
#include "cnode_relay.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void cnode_outbox_init(struct cnode_outbox *o, size_t max)
{
    *o = (struct cnode_outbox){.max = max ? max : CNODE_RELAY_MAX_BYTES};
}

void cnode_outbox_fini(struct cnode_outbox *o)
{
    free(o->buf);
    *o = (struct cnode_outbox){0};
}

int cnode_outbox_add(struct cnode_outbox *o, const char *kind, const json_t *data)
{
    if (!kind || !kind[0] || !json_is_object(data))
        return -EINVAL;
    json_t *pair = json_pack("[sO]", kind, (json_t *)data);
    char *text = pair ? json_dumps(pair, JSON_COMPACT) : NULL;
    json_decref(pair);
    if (!text)
        return -ENOMEM;
    size_t n = strlen(text);
    /* room for this, its comma and the batch's brackets */
    if (o->len + n + 3 > o->max) {
        free(text);
        o->dropped++;
        return -ENOBUFS;
    }
    if (o->len + n + 1 > o->cap) {
        size_t nc = o->cap ? o->cap : 4096;
        while (nc < o->len + n + 1)
            nc *= 2;
        char *nb = realloc(o->buf, nc);
        if (!nb) {
            free(text);
            return -ENOMEM;
        }
        o->buf = nb;
        o->cap = nc;
    }
    memcpy(o->buf + o->len, text, n);
    o->buf[o->len + n] = ',';
    o->len += n + 1;
    o->n++;
    free(text);
    return 0;
}

char *cnode_outbox_take(struct cnode_outbox *o, size_t *len, uint32_t *n)
{
    if (!o->n)
        return NULL;
    char *out = malloc(o->len + 2);
    if (!out)
        return NULL;
    out[0] = '[';
    memcpy(out + 1, o->buf, o->len - 1);    /* without the last comma */
    out[o->len] = ']';
    out[o->len + 1] = '\0';
    *len = o->len + 1;
    *n = o->n;
    o->len = 0;
    o->n = 0;
    return out;
}

static bool kind_ok(const char *k)
{
    size_t n = strlen(k);

    if (n == 0 || n > CNODE_RELAY_KIND_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= '0' && k[i] <= '9') || k[i] == '.' ||
              k[i] == '_' || k[i] == '-'))
            return false;
    return true;
}

int cnode_relay_each(const char *text, size_t len, cnode_relay_fn fn, void *arg, unsigned *bad)
{
    json_error_t err;
    json_t *arr = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    unsigned nbad = 0;
    int given = 0;

    if (!json_is_array(arr)) {
        json_decref(arr);
        return -EINVAL;
    }
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *e = json_array_get(arr, i);
        const char *kind = json_string_value(json_array_get(e, 0));
        json_t *data = json_array_get(e, 1);
        if (!json_is_array(e) || json_array_size(e) != 2 || !kind || !kind_ok(kind) ||
            json_string_length(json_array_get(e, 0)) != strlen(kind) || !json_is_object(data)) {
            nbad++;
            continue;
        }
        fn(arg, kind, data);
        given++;
    }
    json_decref(arr);
    if (bad)
        *bad = nbad;
    return given;
}
