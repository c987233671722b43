/*
 * test_net_cksum: the RFC 1071 checksum against published vectors and a
 * byte-at-a-time reference, over odd lengths, every alignment, chained
 * blocks and buffers big enough to overflow a naive 32-bit accumulator.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "net_cksum.h"

/* Textbook definition: big-endian 16-bit words, odd byte padded with zero,
 * end-around carries, complement. Returned in host order. */
static uint16_t ref_cksum(const uint8_t *p, size_t len)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < len; i += 2) {
        uint16_t w = (uint16_t)(p[i] << 8);
        if (i + 1 < len)
            w |= p[i + 1];
        sum += w;
        while (sum >> 16)
            sum = (sum & 0xffff) + (sum >> 16);
    }
    return (uint16_t)~sum;
}

/* The checksum as it would appear on the wire, read back in host order. */
static uint16_t wire_value(uint16_t stored)
{
    return ntohs(stored);
}

static uint32_t xorshift(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void fill_random(uint8_t *p, size_t len, uint32_t seed)
{
    for (size_t i = 0; i < len; i++)
        p[i] = (uint8_t)xorshift(&seed);
}

/* RFC 1071 section 3: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2. */
static void test_rfc1071_example(void **state)
{
    (void)state;
    const uint8_t bytes[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};

    uint32_t sum = net_cksum_add(0, bytes, sizeof(bytes));
    assert_int_equal(wire_value(net_cksum_finish(sum)), (uint16_t)~0xddf2);
    assert_int_equal(wire_value(net_cksum(bytes, sizeof(bytes))), 0x220d);
}

/* A real IPv4 header (192.168.0.1 → 192.168.0.199, UDP) whose checksum is b861. */
static void test_ipv4_header_vector(void **state)
{
    (void)state;
    uint8_t hdr[] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                     0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};

    uint16_t c = net_cksum(hdr, sizeof(hdr));
    assert_int_equal(wire_value(c), 0xb861);
    /* Stored as returned, the bytes are b8 61 and the header verifies to 0. */
    memcpy(hdr + 10, &c, 2);
    assert_int_equal(hdr[10], 0xb8);
    assert_int_equal(hdr[11], 0x61);
    assert_int_equal(net_cksum(hdr, sizeof(hdr)), 0);
    hdr[15] ^= 0x01;
    assert_int_not_equal(net_cksum(hdr, sizeof(hdr)), 0);
}

static void test_empty_and_single_byte(void **state)
{
    (void)state;
    const uint8_t one = 0xab;

    assert_int_equal(wire_value(net_cksum(&one, 0)), 0xffff);
    /* An odd byte is the high half of a zero-padded word. */
    assert_int_equal(wire_value(net_cksum(&one, 1)), (uint16_t)~0xab00);
}

static void test_odd_lengths_match_reference(void **state)
{
    (void)state;
    uint8_t buf[301];
    fill_random(buf, sizeof(buf), 12345);

    for (size_t len = 0; len <= sizeof(buf); len++)
        assert_int_equal(wire_value(net_cksum(buf, len)), ref_cksum(buf, len));
}

/* Every start alignment within 8 bytes and every tail length. */
static void test_unaligned_matches_reference(void **state)
{
    (void)state;
    uint8_t raw[256 + 16];
    fill_random(raw, sizeof(raw), 777);

    for (size_t off = 0; off < 8; off++)
        for (size_t len = 0; len <= 256; len += 1)
            assert_int_equal(wire_value(net_cksum(raw + off, len)), ref_cksum(raw + off, len));
}

/* Summing even-length blocks one after the other equals one pass; this is
 * how a pseudo-header is combined with a segment. */
static void test_chained_blocks(void **state)
{
    (void)state;
    uint8_t buf[1000];
    fill_random(buf, sizeof(buf), 4242);

    for (size_t cut = 0; cut < sizeof(buf); cut += 2) {
        uint32_t sum = net_cksum_add(0, buf, cut);
        sum = net_cksum_add(sum, buf + cut, sizeof(buf) - cut - 1);
        assert_int_equal(wire_value(net_cksum_finish(sum)), ref_cksum(buf, sizeof(buf) - 1));
    }
}

/* A running sum near 2^32 must not lose its carry. */
static void test_large_initial_sum(void **state)
{
    (void)state;
    const uint8_t bytes[] = {0xff, 0xff, 0xff, 0xff, 0x12, 0x34};
    /* 0xffffffff == 0xffff + 0xffff + carry chain == 0 mod 0xffff, i.e. a
     * one's-complement zero: it must not change the result. */
    uint32_t sum = net_cksum_add(0xffffffffu, bytes, sizeof(bytes));
    assert_int_equal(wire_value(net_cksum_finish(sum)), ref_cksum(bytes, sizeof(bytes)));
    sum = net_cksum_add(0x0001fffeu, bytes, sizeof(bytes));
    /* 0x1fffe folds to 0xffff: again a zero. */
    assert_int_equal(wire_value(net_cksum_finish(sum)), ref_cksum(bytes, sizeof(bytes)));
}

/* > 64 KiB of 0xff: the worst case for carries (a 32-bit word-sum would wrap
 * after 128 KiB), and random data of the same size, odd and misaligned. */
static void test_big_buffers(void **state)
{
    (void)state;
    const size_t size = 300 * 1024 + 3;
    uint8_t *buf = malloc(size + 1);
    assert_non_null(buf);

    memset(buf, 0xff, size + 1);
    assert_int_equal(wire_value(net_cksum(buf, size)), ref_cksum(buf, size));
    buf[size / 2] = 0xfe;
    assert_int_equal(wire_value(net_cksum(buf, size)), ref_cksum(buf, size));

    fill_random(buf, size + 1, 99);
    assert_int_equal(wire_value(net_cksum(buf, size)), ref_cksum(buf, size));
    assert_int_equal(wire_value(net_cksum(buf + 1, size)), ref_cksum(buf + 1, size));
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc1071_example),
        cmocka_unit_test(test_ipv4_header_vector),
        cmocka_unit_test(test_empty_and_single_byte),
        cmocka_unit_test(test_odd_lengths_match_reference),
        cmocka_unit_test(test_unaligned_matches_reference),
        cmocka_unit_test(test_chained_blocks),
        cmocka_unit_test(test_large_initial_sum),
        cmocka_unit_test(test_big_buffers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
