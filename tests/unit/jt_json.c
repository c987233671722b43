/* jt_json: see jt_json.h. */
#include "jt_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_u64.h"

json_t *jt_json(const struct jt_node *v, const char *text)
{
    const struct jt_node *k, *m;
    size_t i;
    json_t *out;

    switch (v->type) {
    case JT_OBJECT:
        out = json_object();
        jt_object_foreach(v, k, m)
            json_object_set_new(out, jt_string(k), jt_json(m, text));
        return out;
    case JT_ARRAY:
        out = json_array();
        jt_array_foreach(v, i, m)
            json_array_append_new(out, jt_json(m, text));
        return out;
    case JT_STRING:
        return json_stringn(jt_string(v), v->size);
    case JT_INT: {
        if (v->flags & JT_BIG) {
            char buf[256];
            snprintf(buf, sizeof(buf), "\x01u64o:%.*s", (int)v->len, text + v->off);
            return json_string(buf);
        }
        if (v->flags & JT_NEG)
            return json_integer(-(json_int_t)(v->v.u - 1) - 1);
        return json_u64_value(v->v.u);
    }
    case JT_REAL:
        return json_real(v->v.d);
    case JT_TRUE:
        return json_true();
    case JT_FALSE:
        return json_false();
    default:
        return json_null();
    }
}

/* Members of a and b in the same order (jansson keeps insertion order). */
static int same_order(const json_t *a, const json_t *b)
{
    if (json_is_object(a)) {
        void *ia = json_object_iter((json_t *)a), *ib = json_object_iter((json_t *)b);
        for (; ia && ib; ia = json_object_iter_next((json_t *)a, ia),
                         ib = json_object_iter_next((json_t *)b, ib)) {
            if (strcmp(json_object_iter_key(ia), json_object_iter_key(ib)) ||
                same_order(json_object_iter_value(ia), json_object_iter_value(ib)))
                return -1;
        }
        return ia || ib ? -1 : 0;
    }
    if (json_is_array(a)) {
        for (size_t i = 0; i < json_array_size(a); i++)
            if (same_order(json_array_get(a, i), json_array_get(b, i)))
                return -1;
    }
    return 0;
}

int jt_json_agree(const char *text, size_t len, char *msg, size_t msglen)
{
    struct jt_tape t = {0};
    json_error_t je;
    json_t *ref = json_u64_loadb(text, len, &je);
    int rc = jt_parse(&t, text, len, 0), out = 0;

    if (memchr(text, '\0', len)) {
        /* The one difference: the tape refuses every NUL byte (RFC 8259
         * allows none); jansson reads some as nothing (its stream takes a
         * NUL for the end of a chunk). */
        if (rc == 0) {
            snprintf(msg, msglen, "the tape accepts a NUL byte");
            out = -1;
        }
    } else if (!ref != (rc != 0)) {
        snprintf(msg, msglen, "jansson %s (%s), tape %s (%s)", ref ? "accepts" : "refuses",
                 ref ? "" : je.text, rc ? "refuses" : "accepts", t.err);
        out = -1;
    } else if (ref) {
        json_t *got = jt_json(jt_root(&t), text);
        if (!json_equal(got, ref) || same_order(got, ref)) {
            snprintf(msg, msglen, "the tape reads another value than jansson");
            out = -1;
        }
        json_decref(got);
        /* Every node's span, alone in an array (the top one alone: it may
         * be as deep as jansson allows), reads back as that node. */
        for (size_t n = 0; out == 0 && n < t.n && n < 256; n++) {
            const struct jt_node *v = &t.nodes[n];
            char *wrap = malloc(v->len + 2);
            memcpy(wrap + 1, text + v->off, v->len);
            wrap[0] = '[';
            wrap[v->len + 1] = ']';
            json_t *w = n ? json_u64_loadb(wrap, v->len + 2, &je)
                          : json_pack("[o]", json_u64_loadb(wrap + 1, v->len, &je));
            json_t *mine = jt_json(v, text);
            if (!w || !json_equal(json_array_get(w, 0), mine)) {
                snprintf(msg, msglen, "node %zu's span '%.*s' is not its value", n,
                         (int)(v->len > 60 ? 60 : v->len), text + v->off);
                out = -1;
            }
            json_decref(w);
            json_decref(mine);
            free(wrap);
        }
    }
    json_decref(ref);
    jt_free(&t);
    return out;
}
