/*
 * test_emu_pcapr: the replay's capture reader against a real flight record
 * (an Open vSwitch session frozen by ofcd: tests/fuzz/corpus_pcapr, whose
 * messages tshark lists as 26), and the same file broken: cut short, its
 * byte-order mark wrong, a segment taken out (a gap), a second connection.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_pcapr.h"

static const char *capture_path;

static uint8_t *load(size_t *len)
{
    FILE *f = fopen(capture_path, "rb");
    assert_non_null(f);
    uint8_t *p = malloc(1 << 20);
    assert_non_null(p);
    *len = fread(p, 1, 1 << 20, f);
    fclose(f);
    assert_true(*len > 100);
    return p;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_reads_the_session(void **state)
{
    (void)state;
    size_t len;
    uint8_t *p = load(&len);
    struct emu_pcapr_session s;
    char why[128];

    assert_int_equal(emu_pcapr_read(p, len, 0, &s, why, sizeof(why)), 0);
    assert_int_equal(s.n, 26);
    /* ofcd's HELLO, the switch's, FEATURES_REQUEST, its reply with the dpid. */
    assert_int_equal(s.msg[0].dir, EMU_PCAPR_FROM_CONTROLLER);
    assert_int_equal(s.msg[0].data[1], 0);
    assert_int_equal(s.msg[1].dir, EMU_PCAPR_FROM_SWITCH);
    assert_int_equal(s.msg[1].data[1], 0);
    assert_int_equal(s.msg[2].data[1], 5);
    assert_int_equal(s.msg[3].data[1], 6);
    assert_int_equal(s.msg[3].data[15], 0x01);
    assert_int_equal(s.msg[3].data[14], 0x10);      /* datapath 00:..:10:01 */
    for (size_t i = 0; i < s.n; i++) {
        assert_int_equal(s.msg[i].data[0], 4);
        assert_int_equal(s.msg[i].len, s.msg[i].data[2] << 8 | s.msg[i].data[3]);
        assert_true(i == 0 || s.msg[i].t_ns >= s.msg[i - 1].t_ns);
    }
    assert_true(s.msg[0].t_ns > 1700000000ull * 1000000000ull);   /* ns since 1970 */
    assert_int_equal(s.trailing[0] + s.trailing[1], 0);
    emu_pcapr_free(&s);
    free(p);
}

/* The blocks of the file: offsets of the n-th EPB (type 6). */
static size_t epb_at(const uint8_t *p, size_t len, unsigned nth)
{
    for (size_t at = 0; at + 8 <= len; at += le32(p + at + 4))
        if (le32(p + at) == 6 && nth-- == 0)
            return at;
    fail_msg("no packet block %u", nth);
    return 0;
}

static void test_broken_files_refused(void **state)
{
    (void)state;
    size_t len;
    uint8_t *p = load(&len);
    struct emu_pcapr_session s;
    char why[128];

    /* Cut short in the middle of a block. */
    assert_int_equal(emu_pcapr_read(p, len - 3, 0, &s, why, sizeof(why)), -EBADMSG);
    assert_non_null(strstr(why, "block"));
    /* Not pcapng. */
    uint8_t *q = malloc(len);
    memcpy(q, p, len);
    q[8] ^= 0xff;
    assert_int_equal(emu_pcapr_read(q, len, 0, &s, why, sizeof(why)), -EINVAL);
    /* A segment with data taken out: the stream has a gap. The 5th packet
     * block (after the handshake's three and the first HELLO) carries one. */
    size_t at = epb_at(p, len, 6), bl = le32(p + at + 4);
    memcpy(q, p, at);
    memcpy(q + at, p + at + bl, len - at - bl);
    assert_int_equal(emu_pcapr_read(q, len - bl, 0, &s, why, sizeof(why)), -EBADMSG);
    assert_non_null(strstr(why, "missing"));
    /* Another connection: a segment's source port changed. */
    memcpy(q, p, len);
    at = epb_at(p, len, 6);
    q[at + 28 + 14 + 20] ^= 0x01;                   /* TCP source port, low byte of... */
    q[at + 28 + 14 + 21] ^= 0x01;
    assert_int_equal(emu_pcapr_read(q, len, 0, &s, why, sizeof(why)), -EINVAL);
    assert_non_null(strstr(why, "more than one TCP connection"));
    free(q);
    free(p);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_the_session),
        cmocka_unit_test(test_broken_files_refused),
    };
    if (argc < 2) {
        fprintf(stderr, "usage: test_emu_pcapr CAPTURE.pcapng\n");
        return 2;
    }
    capture_path = argv[1];
    return cmocka_run_group_tests(tests, NULL, NULL);
}
