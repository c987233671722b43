/* Unit tests of the records' JSON coding (store_jcode.c): every text it
 * codes comes back byte for byte (spacing, escapes, UTF-8, names that only
 * start like a piece); a Kytos flow takes well under half its bytes; a
 * text holding a code byte, or one coding would not shorten, is left to be
 * stored as is; a damaged coded text is an error, never a read or write
 * past a buffer. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store_jcode.h"

/* Code text, decode it back, compare; the coded length. */
static long round_trip(const char *text, size_t len)
{
    unsigned char *coded = malloc(len ? len : 1);
    char *back = malloc(len ? len : 1);
    long n;

    assert_non_null(coded);
    assert_non_null(back);
    n = store_jcode_encode(text, len, coded);
    if (n >= 0) {
        assert_true((size_t)n < len);
        assert_int_equal(store_jcode_decode(coded, (size_t)n, back, len), 0);
        assert_memory_equal(back, text, len);
        /* One byte more or less expected: the text's length is part of the check. */
        if (len > 1)
            assert_int_equal(store_jcode_decode(coded, (size_t)n, back, len - 1), -EIO);
    }
    free(coded);
    free(back);
    return n;
}

static void test_kytos_flows_shrink(void **state)
{
    (void)state;
    static const char *flows[] = {
        /* the batched bench's, Python's json.dumps spacing */
        "{\"priority\": 100, \"match\": {\"dl_type\": 2048, \"nw_dst\": \"10.1.2.3\"}, "
        "\"actions\": [{\"action_type\": \"output\", \"port\": 1}]}",
        /* mef_eline's shape, compact */
        "{\"match\":{\"in_port\":1,\"dl_vlan\":100},\"cookie\":12297829382473034410,"
        "\"actions\":[{\"action_type\":\"set_vlan\",\"vlan_id\":200},"
        "{\"action_type\":\"output\",\"port\":2}],\"owner\":\"mef_eline\","
        "\"table_group\":\"evpl\",\"table_id\":0,\"priority\":20000}",
        /* of_lldp's, with instructions */
        "{\"priority\": 1000, \"table_id\": 0, \"cookie\": 12393906174523604992, "
        "\"match\": {\"dl_type\": 35020, \"dl_vlan\": 3799}, \"instructions\": "
        "[{\"instruction_type\": \"apply_actions\", \"actions\": [{\"action_type\": "
        "\"output\", \"port\": 4294967293}]}]}",
    };
    for (size_t i = 0; i < sizeof(flows) / sizeof(flows[0]); i++) {
        size_t len = strlen(flows[i]);
        long n = round_trip(flows[i], len);

        assert_true(n > 0);
        assert_true((size_t)n * 2 < len);
    }
}

/* Pretty-printed JSON (tabs, line feeds, carriage returns), escapes, UTF-8,
 * names that are longer than a piece or only look like one. */
static void test_exact_text_back(void **state)
{
    (void)state;
    static const char *texts[] = {
        "{\n\t\"priority\" : 5,\r\n\t\"match\":{ \"in_port\" :1 }\n}",
        "{\"ports\": 1, \"port \": 2, \"xport\": 3, \"port\": \"\\\"port\\\"\"}",
        "{\"owner\": \"caf\xc3\xa9 \xe2\x82\xac\", \"note\": \"a, b: c\"}",
        "\"priority\"\"priority\": , , : :",
        "{\"instruction_type\": \"apply_actions\"}\"",
        "\"port",
        "\"",
    };
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
        (void)round_trip(texts[i], strlen(texts[i]));
    assert_true(round_trip(texts[0], strlen(texts[0])) > 0);
}

/* Every piece alone is one byte, and decodes to itself. */
static void test_every_piece(void **state)
{
    (void)state;
    static const char *pieces[] = {
        ": ", ", ", "\"priority\"", "\"match\"", "\"actions\"", "\"action_type\"",
        "\"output\"", "\"port\"", "\"in_port\"", "\"dl_vlan\"", "\"dl_type\"", "\"nw_src\"",
        "\"nw_dst\"", "\"cookie\"", "\"table_id\"", "\"instructions\"",
        "\"instruction_type\"", "\"apply_actions\"", "\"set_vlan\"", "\"vlan_id\"",
        "\"push_vlan\"", "\"tag_type\"", "\"pop_vlan\"", "\"dl_src\"", "\"dl_dst\"",
        "\"owner\"", "\"tp_dst\"", "\"table_group\"",
    };
    unsigned char seen[32] = {0};

    for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
        unsigned char c[32];
        char back[32];
        size_t len = strlen(pieces[i]);

        assert_int_equal(store_jcode_encode(pieces[i], len, c), 1);
        assert_true(c[0] < 0x20 && c[0] != '\t' && c[0] != '\n' && c[0] != '\r' && c[0]);
        assert_false(seen[c[0]]);
        seen[c[0]] = 1;
        assert_int_equal(store_jcode_decode(c, 1, back, len), 0);
        assert_memory_equal(back, pieces[i], len);
    }
}

/* A code byte in the text: not coded (-EINVAL); nothing to gain: -E2BIG. */
static void test_left_as_is(void **state)
{
    (void)state;
    unsigned char out[64];
    char big[1500];

    static const char *with_code[] = {"{\"a\x01\": 1}", "{\"priority\x1f\": 1}"};
    for (size_t i = 0; i < 2; i++)
        assert_int_equal(store_jcode_encode(with_code[i], strlen(with_code[i]), out), -EINVAL);
    assert_int_equal(store_jcode_encode("{}", 2, out), -E2BIG);
    assert_int_equal(store_jcode_encode("x", 1, out), -E2BIG);
    memset(big, 'j', sizeof(big));
    char *o = malloc(sizeof(big));
    assert_non_null(o);
    assert_int_equal(store_jcode_encode(big, sizeof(big), (unsigned char *)o), -E2BIG);
    free(o);
    /* A NUL is not a code: such a text (not JSON) still codes. */
    assert_true(round_trip("\"port\"\0\"port\"", 13) > 0);
}

/* Texts made of pieces' fragments, quotes, separators, whitespace and
 * high bytes: each comes back exactly (or is refused for a code byte). */
static void test_random_texts(void **state)
{
    (void)state;
    static const char *frags[] = {
        "\"", "port", "\"port\"", ":", " ", ",", ": ", ", ", "\"match\"", "priority",
        "\n", "\t", "\r", "\xc3\xa9", "{", "}", "[", "]", "\\\"", "1", "\x01", "\x1f",
        "\"table_group\"", "\"instruction_type", "\"\"", "\0",
    };
    char text[512];
    unsigned seed = 12345, coded = 0, refused = 0;

    for (int round = 0; round < 100000; round++) {
        size_t len = 0;
        int parts = (int)(rand_r(&seed) % 40);

        for (int p = 0; p < parts; p++) {
            unsigned f = (unsigned)rand_r(&seed) % (sizeof(frags) / sizeof(frags[0]));
            size_t fl = f == sizeof(frags) / sizeof(frags[0]) - 1 ? 1 : strlen(frags[f]);

            if (len + fl > sizeof(text))
                break;
            memcpy(text + len, frags[f], fl);
            len += fl;
        }
        long n = round_trip(text, len);
        if (n >= 0)
            coded++;
        else if (n == -EINVAL)
            refused++;
        else
            assert_int_equal(n, -E2BIG);
    }
    assert_true(coded > 10000);
    assert_true(refused > 10000);
}

/* Damaged coded texts: an error or some text of exactly the length asked,
 * never more (ASan watches the buffers, sized exactly). */
static void test_damaged_input(void **state)
{
    (void)state;
    unsigned seed = 777;

    for (int round = 0; round < 100000; round++) {
        size_t in_len = (size_t)(rand_r(&seed) % 64), out_len = (size_t)(rand_r(&seed) % 256);
        unsigned char *in = malloc(in_len ? in_len : 1);
        char *out = malloc(out_len ? out_len : 1);

        assert_non_null(in);
        assert_non_null(out);
        for (size_t i = 0; i < in_len; i++)
            in[i] = (unsigned char)(rand_r(&seed) % 3 ? rand_r(&seed) % 0x20 : rand_r(&seed));
        int rc = store_jcode_decode(in, in_len, out, out_len);
        assert_true(rc == 0 || rc == -EIO);
        free(in);
        free(out);
    }
    /* cut short: a piece that does not fit */
    unsigned char one = 0x14;               /* "instruction_type", 18 bytes */
    char small[17];
    assert_int_equal(store_jcode_decode(&one, 1, small, sizeof(small)), -EIO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kytos_flows_shrink), cmocka_unit_test(test_exact_text_back),
        cmocka_unit_test(test_every_piece),        cmocka_unit_test(test_left_as_is),
        cmocka_unit_test(test_random_texts),       cmocka_unit_test(test_damaged_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
