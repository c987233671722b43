/* test_pcapng: the flight recorder's capture writer (common/ofcd_pcapng) —
 * what a reader of the file relies on: pcapng blocks whose lengths agree
 * at both ends and keep 32-bit alignment, Ethernet and nanosecond
 * timestamps declared, each frame's direction flagged, a TCP stream that
 * opens with the switch's handshake, carries every byte in order in
 * segments of at most OFCD_PCAPNG_SEG_MAX with contiguous sequence
 * numbers and valid checksums. (tshark decodes such a file in the
 * conformance test, tests/conformance.) */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ofcd_pcapng.h"

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)be16(p) << 16 | be16(p + 2);
}

static uint16_t csum(const uint8_t *p, size_t n, uint32_t sum)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        sum += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (n & 1)
        sum += (uint32_t)(p[n - 1] << 8);
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

struct seg {
    uint32_t dir;                           /* epb_flags: 1 inbound, 2 outbound */
    uint64_t t_ns;
    uint8_t flags;
    uint32_t seq, ack;
    uint16_t sport, dport;
    const uint8_t *data;
    size_t n;
};

/* Walks the file: checks every block's framing, the section and the
 * interface, and each frame's checksums; the segments into s. */
static size_t walk(const struct ofcd_pcapng *w, struct seg *s, size_t cap)
{
    size_t off = 0, n = 0;
    unsigned blocks = 0;

    assert_int_equal(w->len % 4, 0);
    while (off < w->len) {
        assert_true(w->len - off >= 12);
        uint32_t type = rd32(w->p + off), len = rd32(w->p + off + 4);
        assert_true(len >= 12 && len % 4 == 0 && off + len <= w->len);
        assert_int_equal(rd32(w->p + off + len - 4), len);
        const uint8_t *b = w->p + off + 8;
        if (blocks == 0) {
            assert_int_equal(type, 0x0A0D0D0Au);
            assert_int_equal(rd32(b), 0x1A2B3C4Du);
            assert_int_equal(b[4] | b[5] << 8, 1);
        } else if (blocks == 1) {
            assert_int_equal(type, 1);
            assert_int_equal(b[0] | b[1] << 8, 1);          /* Ethernet */
            assert_int_equal(b[8] | b[9] << 8, 9);          /* if_tsresol */
            assert_int_equal(b[12], 9);                     /* 10^-9 */
        } else {
            assert_int_equal(type, 6);
            assert_true(n < cap);
            uint32_t caplen = rd32(b + 12);
            assert_int_equal(rd32(b + 16), caplen);
            const uint8_t *f = b + 20, *ip = f + 14, *tcp = ip + 20;
            assert_int_equal(be16(f + 12), 0x0800);
            assert_int_equal(be16(ip + 2), caplen - 14);
            assert_int_equal(csum(ip, 20, 0), 0);
            size_t tl = caplen - 34;
            uint32_t pseudo = (uint32_t)be16(ip + 12) + be16(ip + 14) + be16(ip + 16) +
                              be16(ip + 18) + 6 + (uint32_t)tl;
            assert_int_equal(csum(tcp, tl, pseudo), 0);
            const uint8_t *opt = f + ((caplen + 3) & ~3u);
            assert_int_equal(opt[0] | opt[1] << 8, 2);      /* epb_flags */
            s[n] = (struct seg){.dir = rd32(opt + 4),
                                .t_ns = (uint64_t)rd32(b + 4) << 32 | rd32(b + 8),
                                .flags = tcp[13], .seq = be32(tcp + 4), .ack = be32(tcp + 8),
                                .sport = be16(tcp), .dport = be16(tcp + 2), .data = tcp + 20,
                                .n = tl - 20};
            n++;
        }
        blocks++;
        off += len;
    }
    return n;
}

static void test_stream(void **state)
{
    (void)state;
    struct ofcd_pcapng w;
    struct ofcd_pcapng_ends ends = {0x0a420001, 0x0a420002, 40000, 6653};
    static uint8_t big[40000], hello[8] = {4, 0, 0, 8, 0, 0, 0, 1};
    struct seg s[16];

    for (size_t i = 0; i < sizeof(big); i++)
        big[i] = (uint8_t)(i * 7);
    assert_int_equal(ofcd_pcapng_begin(&w, &ends, "switch 0000000000000001: closed", 5), 0);
    assert_int_equal(ofcd_pcapng_data(&w, false, 10, hello, sizeof(hello)), 0);
    assert_int_equal(ofcd_pcapng_data(&w, true, 20, hello, sizeof(hello)), 0);
    assert_int_equal(ofcd_pcapng_data(&w, true, 1ull << 40, big, sizeof(big)), 0);
    size_t n = walk(&w, s, 16);
    assert_int_equal(n, 3 + 1 + 1 + 3);
    assert_int_equal(w.frames, n);

    /* The handshake: the switch's SYN, ofcd's SYN-ACK, the switch's ACK. */
    assert_int_equal(s[0].flags, 0x02);
    assert_int_equal(s[0].dir, 1);
    assert_int_equal(s[0].sport, 40000);
    assert_int_equal(s[0].dport, 6653);
    assert_int_equal(s[1].flags, 0x12);
    assert_int_equal(s[1].dir, 2);
    assert_int_equal(s[1].ack, s[0].seq + 1);
    assert_int_equal(s[2].flags, 0x10);
    assert_int_equal(s[2].ack, s[1].seq + 1);

    /* Each side's bytes in order, contiguous, acknowledging the other's. */
    assert_int_equal(s[3].dir, 2);
    assert_int_equal(s[3].sport, 6653);
    assert_int_equal(s[3].seq, s[1].seq + 1);
    assert_int_equal(s[3].n, 8);
    assert_memory_equal(s[3].data, hello, 8);
    assert_int_equal(s[3].t_ns, 10);
    assert_int_equal(s[4].dir, 1);
    assert_int_equal(s[4].seq, s[2].seq);
    assert_int_equal(s[4].ack, s[3].seq + 8);
    size_t got = 0;
    for (size_t i = 5; i < 8; i++) {
        assert_int_equal(s[i].dir, 1);
        assert_int_equal(s[i].seq, s[4].seq + 8 + got);
        assert_true(s[i].n <= OFCD_PCAPNG_SEG_MAX);
        assert_int_equal(s[i].t_ns, 1ull << 40);
        assert_memory_equal(s[i].data, big + got, s[i].n);
        got += s[i].n;
    }
    assert_int_equal(got, sizeof(big));
    ofcd_pcapng_free(&w);
}

static void test_bad_calls(void **state)
{
    (void)state;
    struct ofcd_pcapng w;
    struct ofcd_pcapng_ends ends = {1, 2, 3, 4};
    char *c = malloc(OFCD_PCAPNG_COMMENT_MAX + 2);

    assert_non_null(c);
    memset(c, 'x', OFCD_PCAPNG_COMMENT_MAX + 1);
    c[OFCD_PCAPNG_COMMENT_MAX + 1] = 0;
    assert_int_equal(ofcd_pcapng_begin(&w, &ends, c, 0), -EINVAL);
    ofcd_pcapng_free(&w);
    free(c);
    assert_int_equal(ofcd_pcapng_begin(&w, &ends, NULL, 0), 0);
    size_t len = w.len;
    assert_int_equal(ofcd_pcapng_data(&w, true, 0, NULL, 4), -EINVAL);
    /* Failed once, failed for good: nothing more is written. */
    assert_int_equal(ofcd_pcapng_data(&w, true, 0, "abcd", 4), -EINVAL);
    assert_int_equal(w.len, len);
    ofcd_pcapng_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_bad_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
