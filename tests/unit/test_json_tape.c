/* Unit tests of json_tape, the one-pass reader of REST bodies: it accepts
 * exactly what json_u64_loadb (jansson) accepts and reads the same values,
 * held against jansson on hand-picked texts at every edge (depth 2048,
 * integers at 2^63 and 2^64, UTF-8, surrogates, U+0000 and U+0001, reals
 * that overflow; a NUL byte, the one place it is stricter) and on many
 * thousands of mutated ones; every value's span
 * is its own text; a key given twice keeps its first place and its last
 * value; one tape read again and again holds only the last text. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jt_json.h"
#include "json_tape.h"

static void agree(const char *text, size_t len)
{
    char msg[256];
    if (jt_json_agree(text, len, msg, sizeof(msg)))
        fail_msg("'%.*s': %s", (int)(len > 200 ? 200 : len), text, msg);
}

static bool accepts_n(const char *text, size_t len)
{
    struct jt_tape t = {0};
    int rc = jt_parse(&t, text, len, 0);
    jt_free(&t);
    return rc == 0;
}

static bool accepts(const char *text)
{
    return accepts_n(text, strlen(text));
}

static const char *const samples[] = {
    "{}", "[]", " \t\r\n{ } ", "[1,2,3]", "{\"a\":1,\"b\":[true,false,null]}",
    "[0]", "[-0]", "[-1]", "[9223372036854775807]", "[9223372036854775808]",
    "[-9223372036854775808]", "[-9223372036854775809]", "[18446744073709551615]",
    "[18446744073709551616]", "[99999999999999999999999999]", "[00]", "[01]", "[-]",
    "[1.]", "[.5]", "[1.5]", "[-1.5e3]", "[1E+2]", "[1e-2]", "[1e]", "[1e+]", "[1e400]",
    "[-1e400]", "[1e-400]", "[\"\"]", "[\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"]", "[\"\\x\"]",
    "[\"\\u0041\\u00e9\\u20ac\"]", "[\"\\ud83d\\ude00\"]", "[\"\\ud83d\"]", "[\"\\ude00\"]",
    "[\"\\ud83d\\u0041\"]", "[\"\\u0000\"]", "[\"\\u0001\"]", "[\"\\u12\"]", "[\"\\u12G4\"]",
    "[\"\xc3\xa9\"]", "[\"\xe2\x82\xac\"]", "[\"\xf0\x9f\x98\x80\"]", "[\"\xc0\xaf\"]",
    "[\"\xe0\x80\xaf\"]", "[\"\xed\xa0\x80\"]", "[\"\xf4\x90\x80\x80\"]", "[\"\xf5\x80\"]",
    "[\"\x80\"]", "[\"\xc3\"]", "[\"a\x01\"]", "[\"a\x1f\"]", "[\"a\x7f\"]", "[\"abc",
    "[\"abc\\", "1", "\"a\"", "true", "null", "", " ", "{", "[", "[1,]", "[,1]", "[1 2]",
    "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{1:2}", "{\"a\":1}x", "{\"a\":1}{}", "[true1]",
    "[truex]", "[tru]", "[nul]", "[fals]", "[True]", "{\"a\":1,\"a\":2}",
    "{\"a\":1,\"b\":2,\"a\":3,\"a\":[4]}", "{\"\":1}", "{\"\\u0000\":1}", "[\"\\/\"]",
    "{\"flows\": [{\"priority\": 10, \"match\": {\"in_port\": 1}, \"actions\": "
    "[{\"action_type\": \"output\", \"port\": 2}]}], \"force\": true}",
    "{\"a\" : [ 1 , { \"b\" : \"c\" } ] }", "[1]\x00", "[\x00]",
};

static void test_samples_agree_with_jansson(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
        agree(samples[i], strlen(samples[i]));
    /* A NUL byte is refused wherever it is (RFC 8259 allows none; jansson
     * lets one through in some places, the fuzzer found). */
    agree("[1]\0", 4);
    agree("[\"a\0\"]", 6);
    assert_false(accepts_n("[3\0]", 5));
    assert_false(accepts_n("{\"a\": 3\0, \"b\": 1}", 17));
}

/* The depth limit: 2048 values deep is read, 2049 is refused. */
static void test_depth_limit(void **state)
{
    (void)state;
    char buf[5000];
    for (int depth = 2046; depth <= 2050; depth++) {
        for (int scalar = 0; scalar < 2; scalar++) {
            size_t n = 0;
            int open = scalar ? depth - 1 : depth;
            for (int i = 0; i < open; i++)
                buf[n++] = '[';
            if (scalar)
                buf[n++] = '7';
            for (int i = 0; i < open; i++)
                buf[n++] = ']';
            agree(buf, n);
            buf[n] = '\0';
            assert_int_equal(accepts(buf), depth <= 2048);
        }
    }
}

/* Values as the flow parser reads them. */
static void test_values(void **state)
{
    (void)state;
    struct jt_tape t = {0};
    const char *text = "[0, -0, 7, -9223372036854775808, 18446744073709551615, "
                       "18446744073709551616, 2.5, \"h\\u00e9\", true, false, null]";
    assert_int_equal(jt_parse(&t, text, strlen(text), 0), 0);
    const struct jt_node *a = jt_root(&t), *e = a + 1;
    assert_true(jt_is_array(a));
    assert_int_equal(a->size, 11);
    assert_true(jt_is_int(e) && e->v.u == 0 && !e->flags);
    e += e->skip;
    assert_true(jt_is_int(e) && e->v.u == 0 && !e->flags);      /* -0 is 0 */
    e += e->skip;
    assert_true(jt_is_int(e) && e->v.u == 7);
    e += e->skip;
    assert_true(jt_is_int(e) && (e->flags & JT_NEG) && e->v.u == (uint64_t)1 << 63);
    e += e->skip;
    assert_true(jt_is_int(e) && !e->flags && e->v.u == UINT64_MAX);
    e += e->skip;
    assert_true(jt_is_int(e) && (e->flags & JT_BIG));
    e += e->skip;
    assert_true(jt_is(e, JT_REAL) && e->v.d == 2.5);
    e += e->skip;
    assert_string_equal(jt_string(e), "h\xc3\xa9");
    assert_int_equal(e->size, 3);
    assert_int_equal(e->len, 9);              /* "h\u00e9" */
    e += e->skip;
    assert_true(jt_is_bool(e) && e->type == JT_TRUE);
    e += e->skip;
    assert_true(jt_is_bool(e) && e->type == JT_FALSE);
    e += e->skip;
    assert_true(jt_is(e, JT_NULL));
    jt_free(&t);
}

/* U+0001 starts json_u64's markers: refused in a body, read in a record. */
static void test_markers(void **state)
{
    (void)state;
    struct jt_tape t = {0};
    const char *text = "{\"cookie\": \"\\u0001u64:5\"}";
    assert_int_equal(jt_parse(&t, text, strlen(text), 0), -EINVAL);
    assert_non_null(strstr(t.err, "U+0001"));
    assert_int_equal(jt_parse(&t, text, strlen(text), JT_MARKERS), 0);
    assert_string_equal(jt_string(jt_object_get(jt_root(&t), "cookie")), "\x01u64:5");
    jt_free(&t);
}

/* A key given twice: its first place, its last value, counted once; the
 * same with more members than the small objects' pairwise check takes. */
static void test_duplicate_keys(void **state)
{
    (void)state;
    struct jt_tape t = {0};
    const struct jt_node *k, *v;
    const char *text = "{\"a\": 1, \"b\": 2, \"a\": 3, \"c\": 4, \"a\": 5}";
    assert_int_equal(jt_parse(&t, text, strlen(text), 0), 0);
    assert_int_equal(jt_root(&t)->size, 3);
    const char *order = "abc";
    const uint64_t vals[] = {5, 2, 4};
    int i = 0;
    jt_object_foreach(jt_root(&t), k, v) {
        assert_int_equal(jt_string(k)[0], order[i]);
        assert_int_equal(v->v.u, vals[i]);
        i++;
    }
    assert_int_equal(i, 3);
    assert_int_equal(jt_object_get(jt_root(&t), "a")->v.u, 5);
    assert_null(jt_object_get(jt_root(&t), "d"));

    char big[4096];
    size_t n = 0;
    n += (size_t)snprintf(big + n, sizeof(big) - n, "{");
    for (int m = 0; m < 100; m++)
        n += (size_t)snprintf(big + n, sizeof(big) - n, "%s\"k%d\": %d", m ? ", " : "", m % 40,
                              m);
    n += (size_t)snprintf(big + n, sizeof(big) - n, "}");
    agree(big, n);
    assert_int_equal(jt_parse(&t, big, n, 0), 0);
    assert_int_equal(jt_root(&t)->size, 40);
    assert_int_equal(jt_object_get(jt_root(&t), "k3")->v.u, 83);
    assert_int_equal(jt_object_get(jt_root(&t), "k39")->v.u, 79);
    jt_free(&t);
}

/* One tape, many texts: each parse holds its own text only, a refused one
 * holds nothing. */
static void test_reuse(void **state)
{
    (void)state;
    struct jt_tape t = {0};
    char big[20000];
    size_t n = 0;
    big[n++] = '[';
    for (int i = 0; i < 2000; i++)
        n += (size_t)snprintf(big + n, sizeof(big) - n, "%s\"s%d\"", i ? "," : "", i);
    big[n++] = ']';
    assert_int_equal(jt_parse(&t, big, n, 0), 0);
    assert_int_equal(jt_root(&t)->size, 2000);
    assert_int_equal(jt_parse(&t, "[1,", 3, 0), -EINVAL);
    assert_int_equal(t.n, 0);
    assert_int_equal(jt_parse(&t, "{\"x\":\"y\"}", 9, 0), 0);
    assert_int_equal(t.n, 3);
    assert_string_equal(jt_string(jt_object_get(jt_root(&t), "x")), "y");
    jt_free(&t);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Mutations of the samples and of flow bodies, each held against jansson:
 * the bytes that matter to a JSON reader are the ones put in. */
static void test_mutations_agree_with_jansson(void **state)
{
    (void)state;
    static const char pool[] = "{}[],:\"\\/0123456789-+.eEtrufalsn u\x01\x1f\x7f\x80\xbf\xc3"
                               "\xa9\xe2\x82\xac\xed\xa0\xf0\xf4\xf5\xff";
    char buf[600];
    for (int round = 0; round < 60000; round++) {
        const char *base = samples[rnd() % (sizeof(samples) / sizeof(samples[0]))];
        size_t n = strlen(base);
        memcpy(buf, base, n);
        for (int m = 0, ms = 1 + (int)(rnd() % 4); m < ms; m++) {
            size_t at = n ? rnd() % (n + 1) : 0;
            switch (rnd() % 4) {
            case 0:            /* replace */
                if (at < n)
                    buf[at] = pool[rnd() % (sizeof(pool) - 1)];
                break;
            case 1:            /* insert */
                if (n + 1 < sizeof(buf)) {
                    memmove(buf + at + 1, buf + at, n - at);
                    buf[at] = pool[rnd() % (sizeof(pool) - 1)];
                    n++;
                }
                break;
            case 2:            /* delete */
                if (at < n) {
                    memmove(buf + at, buf + at + 1, n - at - 1);
                    n--;
                }
                break;
            default: {         /* repeat a slice */
                size_t len = at < n ? 1 + rnd() % (n - at) : 0;
                if (len > 40)
                    len = 40;
                if (n + len < sizeof(buf)) {
                    memmove(buf + at + len, buf + at, n - at);
                    n += len;
                }
                break;
            }
            }
        }
        agree(buf, n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples_agree_with_jansson),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_markers),
        cmocka_unit_test(test_duplicate_keys),
        cmocka_unit_test(test_reuse),
        cmocka_unit_test(test_mutations_agree_with_jansson),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
