/* json_tape: see json_tape.h. */
#include "json_tape.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* jansson's JSON_PARSER_MAX_DEPTH: a value nested deeper is refused. */
#define JT_MAX_DEPTH 2048

/* One parse: the text, where it is read, where strings go. */
struct jt_in {
    struct jt_tape *t;
    const unsigned char *s, *p, *end;
    char *sp;                    /* next free byte of t->strs */
    unsigned flags;
};

static int jt_fail(struct jt_in *in, const char *what)
{
    snprintf(in->t->err, sizeof(in->t->err), "%s at byte %zu", what, (size_t)(in->p - in->s));
    return -EINVAL;
}

void jt_free(struct jt_tape *t)
{
    free(t->nodes);
    free(t->strs);
    free(t->stack);
    *t = (struct jt_tape){0};
}

/* mem, an array of *cap elements of size elem, doubled (first: its size
 * when empty): the new array with *cap updated, or NULL when out of memory
 * (mem and *cap as they were). */
static void *jt_double(void *mem, size_t *cap, size_t elem, size_t first)
{
    size_t nc = *cap ? *cap * 2 : first;
    void *nm = realloc(mem, nc * elem);

    if (nm)
        *cap = nc;
    return nm;
}

/* A new node at the end of the tape (its index; -1 when out of memory). */
static long jt_push(struct jt_in *in, enum jt_type type)
{
    struct jt_tape *t = in->t;

    if (t->n == t->cap) {
        struct jt_node *nn = jt_double(t->nodes, &t->cap, sizeof(*nn), 64);
        if (!nn)
            return -1;
        t->nodes = nn;
    }
    struct jt_node *v = &t->nodes[t->n];
    memset(v, 0, sizeof(*v));
    v->type = (uint8_t)type;
    v->skip = 1;
    v->link = 1;
    v->off = (uint32_t)(in->p - in->s);
    return (long)t->n++;
}

static void jt_skip_ws(struct jt_in *in)
{
    while (in->p < in->end &&
           (*in->p == ' ' || *in->p == '\n' || *in->p == '\r' || *in->p == '\t'))
        in->p++;
}

static int jt_hex4(const unsigned char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned c = p[i], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return -1;
        v = v << 4 | d;
    }
    *out = v;
    return 0;
}

/* Bytes of the UTF-8 sequence at p (strict: no overlong forms, no
 * surrogates, nothing above U+10FFFF), 0 when it is not one. */
static size_t jt_utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0], n, v;

    if (c >= 0xC2 && c <= 0xDF)
        n = 2, v = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, v = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, v = c & 0x07;
    else
        return 0;
    if ((size_t)(end - p) < n)
        return 0;
    for (unsigned i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (p[i] & 0x3F);
    }
    if ((n == 3 && v < 0x800) || (n == 4 && v < 0x10000) || v > 0x10FFFF ||
        (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    return n;
}

static char *jt_put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        *o++ = (char)cp;
    } else if (cp < 0x800) {
        *o++ = (char)(0xC0 | cp >> 6);
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *o++ = (char)(0xE0 | cp >> 12);
        *o++ = (char)(0x80 | (cp >> 6 & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *o++ = (char)(0xF0 | cp >> 18);
        *o++ = (char)(0x80 | (cp >> 12 & 0x3F));
        *o++ = (char)(0x80 | (cp >> 6 & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    }
    return o;
}

/* The \u escape at in->p (just after "\u"): its code point, a surrogate
 * pair joined. */
static int jt_escape_u(struct jt_in *in, unsigned *cp)
{
    unsigned hi, lo;

    if (in->end - in->p < 4 || jt_hex4(in->p, &hi) < 0)
        return jt_fail(in, "invalid \\u escape");
    in->p += 4;
    if (hi >= 0xDC00 && hi <= 0xDFFF)
        return jt_fail(in, "invalid Unicode: lone low surrogate");
    if (hi >= 0xD800 && hi <= 0xDBFF) {
        if (in->end - in->p < 6 || in->p[0] != '\\' || in->p[1] != 'u' ||
            jt_hex4(in->p + 2, &lo) < 0 || lo < 0xDC00 || lo > 0xDFFF)
            return jt_fail(in, "invalid Unicode: high surrogate without its low half");
        in->p += 6;
        hi = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
    }
    if (hi == 0)
        return jt_fail(in, "\\u0000 is not allowed");
    if (hi == 1 && !(in->flags & JT_MARKERS))
        return jt_fail(in, "control character U+0001 in a string");
    *cp = hi;
    return 0;
}

/* The string at in->p (on its opening quote) as node idx's value. */
static int jt_string_at(struct jt_in *in, long idx)
{
    char *o = in->sp, *start = o;

    in->p++;
    for (;;) {
        const unsigned char *q = in->p;
        /* The plain run: printable ASCII without quote or backslash. */
        while (q < in->end && *q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\')
            q++;
        memcpy(o, in->p, (size_t)(q - in->p));
        o += q - in->p;
        in->p = q;
        if (q == in->end)
            return jt_fail(in, "premature end of input in a string");
        unsigned c = *q;
        if (c == '"') {
            in->p++;
            break;
        }
        if (c < 0x20)
            return jt_fail(in, "control character in a string");
        if (c >= 0x80) {
            size_t n = jt_utf8_len(q, in->end);
            if (!n)
                return jt_fail(in, "invalid UTF-8");
            memcpy(o, q, n);
            o += n;
            in->p += n;
            continue;
        }
        /* A backslash. */
        if (in->end - q < 2)
            return jt_fail(in, "premature end of input in a string");
        in->p += 2;
        switch (q[1]) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned cp;
            int rc = jt_escape_u(in, &cp);
            if (rc)
                return rc;
            o = jt_put_utf8(o, cp);
            break;
        }
        default:
            in->p = q;
            return jt_fail(in, "invalid escape");
        }
    }
    *o++ = '\0';
    struct jt_node *v = &in->t->nodes[idx];
    v->v.s = start;
    v->size = (uint32_t)(o - 1 - start);
    in->sp = o;
    return 0;
}

static bool jt_digit(const unsigned char *p, const unsigned char *end)
{
    return p < end && *p >= '0' && *p <= '9';
}

/* The number at in->p as node idx. */
static int jt_number_at(struct jt_in *in, long idx)
{
    const unsigned char *p = in->p, *start = p;
    bool neg = *p == '-', is_int = true;

    if (neg)
        p++;
    if (!jt_digit(p, in->end))
        return jt_fail(in, "invalid number");
    if (*p == '0') {
        if (jt_digit(++p, in->end))
            return jt_fail(in, "invalid number: leading zero");
    } else {
        while (jt_digit(p, in->end))
            p++;
    }
    if (p < in->end && *p == '.') {
        is_int = false;
        if (!jt_digit(++p, in->end))
            return jt_fail(in, "invalid number");
        while (jt_digit(p, in->end))
            p++;
    }
    if (p < in->end && (*p == 'e' || *p == 'E')) {
        is_int = false;
        p++;
        if (p < in->end && (*p == '+' || *p == '-'))
            p++;
        if (!jt_digit(p, in->end))
            return jt_fail(in, "invalid number");
        while (jt_digit(p, in->end))
            p++;
    }
    struct jt_node *v = &in->t->nodes[idx];
    if (is_int) {
        uint64_t u = 0;
        bool big = false;
        for (const unsigned char *d = start + neg; d < p; d++) {
            unsigned dv = (unsigned)(*d - '0');
            if (u > (UINT64_MAX - dv) / 10)
                big = true;
            else
                u = u * 10 + dv;
        }
        if (neg && (big || u > (uint64_t)INT64_MAX + 1))
            return jt_fail(in, "too big negative integer");
        v->type = JT_INT;
        v->flags = (uint8_t)((big ? JT_BIG : 0) | (neg && u ? JT_NEG : 0));
        v->v.u = u;
    } else {
        char small[64], *buf = small;
        size_t n = (size_t)(p - start);
        if (n >= sizeof(small) && !(buf = malloc(n + 1)))
            return -ENOMEM;
        memcpy(buf, start, n);
        buf[n] = '\0';
        errno = 0;
        double d = strtod(buf, NULL);
        bool over = errno == ERANGE && (d == HUGE_VAL || d == -HUGE_VAL);
        if (buf != small)
            free(buf);
        if (over)
            return jt_fail(in, "real number overflow");
        v->type = JT_REAL;
        v->v.d = d;
    }
    in->p = p;
    return 0;
}

static int jt_literal_at(struct jt_in *in, long idx)
{
    static const struct {
        const char *word;
        size_t len;
        enum jt_type type;
    } lit[] = {{"true", 4, JT_TRUE}, {"false", 5, JT_FALSE}, {"null", 4, JT_NULL}};

    for (size_t i = 0; i < sizeof(lit) / sizeof(lit[0]); i++) {
        if ((size_t)(in->end - in->p) >= lit[i].len && !memcmp(in->p, lit[i].word, lit[i].len)) {
            in->t->nodes[idx].type = (uint8_t)lit[i].type;
            in->p += lit[i].len;
            return 0;
        }
    }
    return jt_fail(in, "invalid token");
}

struct jt_keyref {
    const char *s;
    uint32_t idx;
};

static int jt_keyref_cmp(const void *a, const void *b)
{
    const struct jt_keyref *x = a, *y = b;
    int c = strcmp(x->s, y->s);
    return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* Keys given more than once in the object at obj (whose members are all on
 * the tape): the first keeps its place and takes the last one's value, the
 * others are marked skipped; size becomes the distinct keys. Small objects
 * by pairs, big ones sorted, so no object costs quadratic time. */
static int jt_dedupe(struct jt_tape *t, uint32_t obj)
{
    uint32_t count = t->nodes[obj].size, dups = 0;
    if (count < 2)
        return 0;
    if (count <= 16) {
        uint32_t keys[16], n = 0;
        for (uint32_t k = obj + 1; n < count; k += 1 + t->nodes[k + 1].skip)
            keys[n++] = k;
        for (uint32_t i = 0; i < n; i++) {
            if (t->nodes[keys[i]].flags & JT_DUP)
                continue;
            for (uint32_t j = i + 1; j < n; j++) {
                if (jt_same_key(t->nodes[keys[i]].v.s, t->nodes[keys[j]].v.s)) {
                    t->nodes[keys[j]].flags |= JT_DUP;
                    t->nodes[keys[i]].link = keys[j] + 1 - keys[i];
                    dups++;
                }
            }
        }
    } else {
        struct jt_keyref *r = malloc(count * sizeof(*r));
        if (!r)
            return -ENOMEM;
        uint32_t n = 0;
        for (uint32_t k = obj + 1; n < count; k += 1 + t->nodes[k + 1].skip)
            r[n++] = (struct jt_keyref){t->nodes[k].v.s, k};
        qsort(r, n, sizeof(*r), jt_keyref_cmp);
        for (uint32_t i = 0; i < n;) {
            uint32_t j = i + 1;
            while (j < n && !strcmp(r[i].s, r[j].s)) {
                t->nodes[r[j].idx].flags |= JT_DUP;
                dups++;
                j++;
            }
            t->nodes[r[i].idx].link = r[j - 1].idx + 1 - r[i].idx;
            i = j;
        }
        free(r);
    }
    t->nodes[obj].size = count - dups;
    return 0;
}

/*
 * The walk: open containers on t->stack. "value" reads one value (a
 * container is opened and its members follow), "key" one object key and
 * its colon, "after" what may follow a value in its container.
 */
static int jt_walk(struct jt_in *in)
{
    struct jt_tape *t = in->t;
    uint32_t depth = 0;
    long idx;
    int rc;

    jt_skip_ws(in);
    if (in->p == in->end || (*in->p != '{' && *in->p != '['))
        return jt_fail(in, "'[' or '{' expected");
value:
    if (depth >= JT_MAX_DEPTH)
        return jt_fail(in, "maximum parsing depth reached");
    jt_skip_ws(in);
    if (in->p == in->end)
        return jt_fail(in, "premature end of input");
    switch (*in->p) {
    case '{':
    case '[': {
        bool obj = *in->p == '{';
        if ((idx = jt_push(in, obj ? JT_OBJECT : JT_ARRAY)) < 0)
            return -ENOMEM;
        if (depth == t->stack_cap) {
            uint32_t *ns = jt_double(t->stack, &t->stack_cap, sizeof(*ns), 16);
            if (!ns)
                return -ENOMEM;
            t->stack = ns;
        }
        t->stack[depth++] = (uint32_t)idx;
        in->p++;
        jt_skip_ws(in);
        if (in->p < in->end && *in->p == (obj ? '}' : ']')) {
            in->p++;
            goto close;
        }
        if (obj)
            goto key;
        goto value;
    }
    case '"':
        if ((idx = jt_push(in, JT_STRING)) < 0)
            return -ENOMEM;
        rc = jt_string_at(in, idx);
        break;
    case 't':
    case 'f':
    case 'n':
        if ((idx = jt_push(in, JT_NULL)) < 0)
            return -ENOMEM;
        rc = jt_literal_at(in, idx);
        break;
    default:
        if (*in->p != '-' && (*in->p < '0' || *in->p > '9'))
            return jt_fail(in, "invalid token");
        if ((idx = jt_push(in, JT_INT)) < 0)
            return -ENOMEM;
        rc = jt_number_at(in, idx);
        break;
    }
    if (rc)
        return rc;
    t->nodes[idx].len = (uint32_t)(in->p - in->s) - t->nodes[idx].off;
    goto after;

key:
    jt_skip_ws(in);
    if (in->p == in->end || *in->p != '"')
        return jt_fail(in, "string or '}' expected");
    if ((idx = jt_push(in, JT_STRING)) < 0)
        return -ENOMEM;
    if ((rc = jt_string_at(in, idx)))
        return rc;
    t->nodes[idx].len = (uint32_t)(in->p - in->s) - t->nodes[idx].off;
    jt_skip_ws(in);
    if (in->p == in->end || *in->p != ':')
        return jt_fail(in, "':' expected");
    in->p++;
    goto value;

close: {
    uint32_t c = t->stack[--depth];
    struct jt_node *v = &t->nodes[c];
    v->skip = (uint32_t)(t->n - c);
    v->len = (uint32_t)(in->p - in->s) - v->off;
    if (v->type == JT_OBJECT && (rc = jt_dedupe(t, c)))
        return rc;
}
after:
    if (depth == 0) {
        jt_skip_ws(in);
        return in->p == in->end ? 0 : jt_fail(in, "end of file expected");
    }
    {
        struct jt_node *c = &t->nodes[t->stack[depth - 1]];
        bool obj = c->type == JT_OBJECT;
        c->size++;
        jt_skip_ws(in);
        if (in->p < in->end && *in->p == ',') {
            in->p++;
            if (obj)
                goto key;
            goto value;
        }
        if (in->p < in->end && *in->p == (obj ? '}' : ']')) {
            in->p++;
            goto close;
        }
        return jt_fail(in, obj ? "',' or '}' expected" : "',' or ']' expected");
    }
}

int jt_parse(struct jt_tape *t, const char *text, size_t len, unsigned flags)
{
    struct jt_in in = {.t = t, .s = (const unsigned char *)text,
                       .p = (const unsigned char *)text,
                       .end = (const unsigned char *)text + len, .flags = flags};

    t->n = 0;
    t->err[0] = '\0';
    if (len >= UINT32_MAX)
        return -E2BIG;
    /* A string's resolved text and its NUL never outgrow its quoted text. */
    if (t->strs_cap < len + 1) {
        char *ns = malloc(len + 1);
        if (!ns)
            return -ENOMEM;
        free(t->strs);
        t->strs = ns;
        t->strs_cap = len + 1;
    }
    in.sp = t->strs;
    int rc = jt_walk(&in);
    if (rc)
        t->n = 0;
    if (rc == -ENOMEM)
        snprintf(t->err, sizeof(t->err), "out of memory");
    return rc;
}

const struct jt_node *jt_object_first(const struct jt_node *obj)
{
    return jt_object_next(obj, NULL);
}

const struct jt_node *jt_object_next(const struct jt_node *obj, const struct jt_node *k)
{
    const struct jt_node *end = obj + obj->skip;
    k = k ? k + 1 + k[1].skip : obj + 1;
    while (k < end && (k->flags & JT_DUP))
        k += 1 + k[1].skip;
    return k < end ? k : NULL;
}

const struct jt_node *jt_object_get(const struct jt_node *obj, const char *key)
{
    const struct jt_node *k, *v;

    if (!jt_is_object(obj))
        return NULL;
    jt_object_foreach(obj, k, v) {
        if (jt_same_key(k->v.s, key))
            return v;
    }
    return NULL;
}
